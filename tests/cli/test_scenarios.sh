# Every bundled scenario parses and plays as its first-line comment says,
# checked through gpumon's own JSON Lines output. GPUMON_SIM_START jumps
# into the scenario and GPUMON_SIM_SPEED fast-forwards it, so this is quick.
. "$(dirname "$0")/lib.sh"

for f in "$SCN"/*.scn; do
  name=$(basename "$f" .scn)
  expect_match "$name: one-line description" "$(head -1 "$f")" "^# [A-Za-z].{15,}"
  SCENARIO=$f gp --once --format jsonl > /dev/null 2> "$T/err"; rc=$?
  case $name in driver-not-loaded) want=4;; zero-gpus) want=5;; *) want=0;; esac
  expect_eq "$name: gpumon exit" "$rc" "$want"
done

# sample SCENARIO START COUNT INTERVAL [SPEED] -> $T/SCENARIO.jsonl (INTERVAL in scenario time)
sample() {
  GPUMON_SIM_START=$2 GPUMON_SIM_SPEED=${5:-1} SCENARIO="$SCN/$1.scn" \
    gp watch --format jsonl --count "$3" --interval "$4" > "$T/$1.jsonl" 2>/dev/null \
    || fail "$1: gpumon failed"
}
COMMON='
def util(r, i=0): return r["gpus"][i]["utilization.gpu"]
def mean(xs): xs = list(xs); return sum(xs) / len(xs)
'

sample healthy 30 10 100ms
pycheck "$T/healthy.jsonl" "$COMMON
for i in range(len(recs[0]['gpus'])):
    m = mean(util(r, i) for r in recs)
    assert 85 <= m <= 98, ('healthy mean', i, m)
"
sample input-bound 30 4 3s 3   # records 3 s of scenario time apart, taken 1 s apart
pycheck "$T/input-bound.jsonl" "$COMMON
for r in recs[1:]:
    g = r['gpus'][0]
    assert g['utilization.gpu.min'] <= 10 and 45 <= g['utilization.gpu.max'] <= 75, g
"
sample small-batch 30 10 100ms
pycheck "$T/small-batch.jsonl" "$COMMON
m = mean(util(r) for r in recs)
assert 28 <= m <= 42, m
assert max(util(r) for r in recs) < 55
"
# OOM: memory climbs to the total, then the process disappears.
sample oom 0 60 4s 40   # 4 min of scenario in 6 s
pycheck "$T/oom.jsonl" "$COMMON
g0 = [r['gpus'][0] for r in recs]
frac = [g['memory.used'] / g['memory.total'] for g in g0]
peak = max(range(len(frac)), key=lambda i: frac[i])
assert frac[peak] >= 0.95, frac[peak]
assert frac[0] < 0.5, frac[0]
assert all(frac[i] <= frac[i + 1] + 0.01 for i in range(peak)), 'memory climbs'
assert g0[peak // 2]['processes'], 'a process holds the memory'
assert not g0[-1]['processes'] and frac[-1] < 0.2, ('process gone, memory freed', g0[-1]['processes'], frac[-1])
"
sample tf-prealloc 1 5 100ms
pycheck "$T/tf-prealloc.jsonl" "$COMMON
for r in recs:
    g = r['gpus'][0]
    assert g['memory.used'] / g['memory.total'] >= 0.9, g['memory.used']
    assert g['utilization.gpu'] >= 70
"
# Thermal throttling: hot later, thermal reasons active, clocks lower.
sample thermal-throttle 10 1 100ms && mv "$T/thermal-throttle.jsonl" "$T/cool.jsonl"
sample thermal-throttle 300 3 100ms
pycheck "$T/thermal-throttle.jsonl" "
import json
cool = json.loads(open('$T/cool.jsonl').readline())['gpus'][0]
for r in recs:
    g = r['gpus'][0]
    assert g['temperature.gpu'] >= 85, g['temperature.gpu']
    assert g['clocks_event_reasons.hw_thermal_slowdown'] or g['clocks_event_reasons.sw_thermal_slowdown'], g
    assert g['clocks.sm'] < 0.9 * cool['clocks.sm'], (g['clocks.sm'], cool['clocks.sm'])
assert not cool['clocks_event_reasons.hw_thermal_slowdown']
"
sample power-cap 30 10 100ms
pycheck "$T/power-cap.jsonl" "
act = [r['gpus'][0]['clocks_event_reasons.sw_power_cap'] for r in recs]
assert sum(act) >= 6, act
for r in recs:
    g = r['gpus'][0]
    assert g['power.draw'] >= 0.9 * g['enforced.power.limit'], (g['power.draw'], g['enforced.power.limit'])
"
sample straggler 30 10 100ms
pycheck "$T/straggler.jsonl" "$COMMON
n = len(recs[0]['gpus'])
assert n == 8, n
means = sorted((mean(util(r, i) for r in recs), i) for i in range(n))
slow, rest = means[0], [m for m, _ in means[1:]]
assert slow[0] < 0.7 * min(rest), means
assert min(rest) >= 85, means
"
sample idle-8xh200 5 2 100ms
pycheck "$T/idle-8xh200.jsonl" "
for g in recs[-1]['gpus']:
    assert 'H200' in g['name'] and g['utilization.gpu'] == 0, g
    assert 140000 <= g['memory.total'] <= 145000, g['memory.total']
    assert g['fan.speed'] is None
assert len(recs[-1]['gpus']) == 8
"
sample metrics-unsupported 15 1 100ms
pycheck "$T/metrics-unsupported.jsonl" "
g = recs[0]['gpus'][0]
assert g['ecc.errors.corrected.volatile.total'] is None and 'ecc.errors.corrected.volatile.total' not in g.get('errors', {})
assert g['power.draw'] is None and g['errors']['power.draw']['code'] == 4, g.get('errors')
assert g['utilization.gpu'] is not None
"
done_tests
