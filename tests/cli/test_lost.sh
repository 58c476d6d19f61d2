# A GPU lost mid-run is marked lost in every format and the others go on
# being sampled.
. "$(dirname "$0")/lib.sh"
export SCENARIO="$SCN/gpu-lost.scn"
lost_at=$(awk '$1 == "at" && $3 == "lost" {print $2; exit}' "$SCENARIO")
[ -n "$lost_at" ] && ok || fail "gpu-lost.scn has no 'at T lost' line"
lost_gpu=$("$PY" - "$SCENARIO" <<'PYEOF'
import sys
gpu = None
for line in open(sys.argv[1]):
    w = line.split("#")[0].split()
    if w[:1] == ["gpu"]: gpu = w[1]
    if w[:1] == ["at"] and w[2:3] == ["lost"]: print(gpu); break
PYEOF
)
# Start 2 s before the loss (the scenario's clock is the wall's: the first record must come before it),
# sample through it (35 records end after it, however long a loaded machine takes).
GPUMON_SIM_START=$((lost_at - 2)) gp watch --interval 100ms --count 35 --format jsonl > "$T/run.jsonl" 2>/dev/null; rc=$?
expect_eq "exit" "$rc" 0
pycheck "$T/run.jsonl" "
lost = int('$lost_gpu')
first, last = recs[0], recs[-1]
assert first['gpus'][lost]['state'] == 'ok', first['gpus'][lost]['state']
assert last['gpus'][lost]['state'] == 'lost'
g = last['gpus'][lost]
assert g['utilization.gpu'] is None and g['power.draw'] is None
assert g['uuid'].startswith('GPU-'), 'identity stays known'
assert g['errors']['utilization.gpu']['code'] == 15, g.get('errors')
others = [x for x in last['gpus'] if x['index'] != lost]
assert others and all(x['state'] == 'ok' and x['utilization.gpu'] is not None for x in others)
"
GPUMON_SIM_START=$((lost_at + 5)) gp watch --once --format csv --fields state,utilization.gpu > "$T/lost.csv" 2>/dev/null
expect_match "csv marks the lost GPU" "$(cat "$T/lost.csv")" ",lost,\[GPU is lost\]"
out=$(GPUMON_SIM_START=$((lost_at + 5)) gp watch --once 2>/dev/null)
expect_match "text marks the lost GPU" "$out" "GPU $lost_gpu .*LOST"
done_tests
