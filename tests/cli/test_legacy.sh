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
"$PY" - "$T/535.jsonl" <<'PYEOF' && ok || fail "535 process entries read with the wrong stride"
import json, sys
rec = json.loads(open(sys.argv[1]).readline())
# legacy-535.scn: per GPU, worker_a (pid 1200 + index, 20 GiB) and worker_b (pid 1300 + index, 12 GiB).
for g in rec["gpus"]:
    i = g["index"]
    got = sorted((p["pid"], p["used_memory"]) for p in g["processes"])
    assert got == [(1200 + i, 20480), (1300 + i, 12288)], got
PYEOF
# PCIe throughput: from the byte counters (fields 197/198) on the current library, from the 20 ms
# GetPcieThroughput calls of the slow-reader thread on the 470-era one: the same rates either way.
printf 'gpu 0\n  name T\n  pcie.tx = const(30000)\n  pcie.rx = const(123456)\n' > "$T/pcie.scn"
for lib in "$BUILD/sim/libnvidia-ml.so.1" "$BUILD/sim/legacy-470/libnvidia-ml.so.1"; do
  SIM=$lib SCENARIO="$T/pcie.scn" gp watch --format jsonl --count 3 --interval 100ms > "$T/pcie.jsonl" 2>/dev/null
  pycheck "$T/pcie.jsonl" '
for r in recs:
    g = r["gpus"][0]
    assert abs(g["pcie.throughput.tx"] - 30000) <= 30 and abs(g["pcie.throughput.rx"] - 123456) <= 124, g
'
done
done_tests
