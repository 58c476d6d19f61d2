# Older drivers through the simulator's profiles: a 470-era library without
# the newer symbols, and the 535.43-535.86 drivers whose _v3 process lists
# have 32-byte entries. gpumon must fall back and read every entry right.
. "$(dirname "$0")/lib.sh"

SIM="$BUILD/sim/legacy-470/libnvidia-ml.so.1"
gp watch --once --format jsonl > "$T/470.jsonl" 2>/dev/null; rc=$?
expect_eq "legacy-470 exit" "$rc" 0
pycheck "$T/470.jsonl" '
for g in recs[0]["gpus"]:
    assert g["memory.used"] is not None and g["memory.total"] > 0        # v1 fallback
    assert g["memory.reserved"] is None                                   # only v2 splits it out
    assert g["temperature.gpu"] is not None                               # GetTemperature fallback
    assert isinstance(g["clocks_event_reasons.active"], int)              # Throttle fallback
    assert all(p["pid"] > 0 and p["used_memory"] > 0 for p in g["processes"]), g["processes"]
'

SIM="$BUILD/sim/r535-43/libnvidia-ml.so.1"
SCENARIO="$SCN/legacy-535.scn" gp watch --once --format jsonl > "$T/535.jsonl" 2>/dev/null; rc=$?
expect_eq "r535-43 exit" "$rc" 0
"$PY" - "$T/535.jsonl" "$SCN/legacy-535.scn" <<'PYEOF' && ok || fail "535 process entries read with the wrong stride"
import json, sys
rec = json.loads(open(sys.argv[1]).readline())
declared = set()
for line in open(sys.argv[2]):
    w = line.split("#")[0].split()
    if w[:1] == ["process"]:
        declared.add(int(w[1]))
seen = {p["pid"] for g in rec["gpus"] for p in g["processes"]}
assert seen and seen <= declared, (seen, declared)
for g in rec["gpus"]:
    for p in g["processes"]:
        assert 0 < p["used_memory"] <= g["memory.total"], p
PYEOF
done_tests
