#!/usr/bin/env bash
# The ledger of GPU time by cause, against constructed truths: an 8-GPU scenario with one cause per GPU
# (a 60 s pause, a GPU lost at second 150, clocks held at 60% for 200 s, an idle GPU, a stall from
# second 100, a 40 s start-up, a loader starving the GPU half of each 2 s, a healthy one) and a
# training loop whose wait is 40% of its time: each cause within 5 points of its truth, the causes
# summing to the GPU-seconds observed within 1% per GPU and for the run, on these and on every bundled
# scenario. Then the summary's order (ledger, grouped verdicts), grouped verdicts of 8 GPUs with one
# cause (printed once, the figures as ranges) and with one that differs (named), the JSON, and prices.
. "$(dirname "$0")/lib.sh"
cat > "$T/known.scn" <<'EOF'
seed 3
gpu 0-7
  name NVIDIA H100 80GB HBM3
  memory_total 81559 MiB
  clock_max sm=1980 mem=2619 graphics=1980 video=1545
  util.gpu = const(95) + noise(2)
gpu 0-2
  process 7000 python3 train.py memory=const(40 GiB)
gpu 4-7
  process 7004 python3 train.py memory=const(40 GiB)
gpu 0
  util.gpu = const(95) + noise(2) + step(200, 0, -97) + step(260, 0, 97)
gpu 1
  at 150 lost
gpu 2
  clock.sm = const(1980) + step(100, 0, -792) + step(300, 0, 792)
  clocks_event_reasons = step(100, 0, 0x20) + step(300, 0, -0x20)
gpu 3
  util.gpu = const(0)
gpu 4
  util.gpu = const(95) + noise(2) + step(100, 0, -97)
gpu 5
  util.gpu = step(40, 0, 95) + noise(2)
gpu 6
  util.gpu = square(0, 90, 2.0, 0.5)
EOF
GPUMON_SIM_SPEED=80 SCENARIO="$T/known.scn" gp watch --format jsonl --interval 1s --count 401 > "$T/known.jsonl" 2>/dev/null
"$GPUMON" diagnose --format json "$T/known.jsonl" > "$T/known.json"; rc=$?
expect_eq "diagnose --format json: status" "$rc" 0
# check JSON: each GPU's causes against the truth of its scenario block (shares of the observed time)
check() {
  "$PY" - "$@" <<'PYEOF' && ok || fail "ledger against the truth: see above"
import json, sys
d = json.load(open(sys.argv[1]))
truth = {   # GPU: {cause: seconds as a function of the observed seconds T}
    0: {"pause": lambda T: 60, "compute": lambda T: T - 60},
    1: {"lost": lambda T: T - 150, "compute": lambda T: 150},
    2: {"throttled": lambda T: 200 * (1 - 1188 / 1980), "compute": lambda T: T - 80},
    3: {"idle": lambda T: T},
    4: {"stalled": lambda T: T - 100, "compute": lambda T: 100},
    5: {"startup": lambda T: 40, "compute": lambda T: T - 40},
    6: {"input_wait": lambda T: T / 2, "compute": lambda T: T / 2},
    7: {"compute": lambda T: T},
}
bad = []
def sums(what, led):
    s = sum(led["seconds"].values())
    if abs(s - led["gpu_seconds"]) > 0.01 * led["gpu_seconds"]:
        bad.append("%s: causes sum to %.1f s of %.1f s observed" % (what, s, led["gpu_seconds"]))
for g in d["gpus"]:
    led, T = g["ledger"], g["ledger"]["gpu_seconds"]
    sums("GPU %d" % g["index"], led)
    want = truth[g["index"]]
    for cause, secs in led["seconds"].items():
        w = want[cause](T) if cause in want else 0
        if abs(100 * (secs - w) / T) > 5:
            bad.append("GPU %d %s: %.1f s (%.1f%%), truth %.1f s (%.1f%%)" % (g["index"], cause, secs,
                       100 * secs / T, w, 100 * w / T))
sums("the run", d["ledger"])
if abs(d["ledger"]["gpu_seconds"] - sum(g["ledger"]["gpu_seconds"] for g in d["gpus"])) > 1e-3:
    bad.append("the run's GPU-seconds are not its GPUs'")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PYEOF
}
check "$T/known.json"
txt=$("$GPUMON" diagnose "$T/known.jsonl")
expect_match "text: the ledger first" "$(printf '%s\n' "$txt" | sed -n '/^Summary/{n;p;q}')" "^GPU time by cause \(8 GPUs, [0-9.]+ GPU-h(our|)? observed|^GPU time by cause \(8 GPUs, [0-9.]+ GPU-min observed"
expect_match "text: input wait's gain" "$txt" "input wait +[0-9.]+ GPU-min +[0-9]+%   steps up to [0-9.]+x faster if the input kept up"
expect_match "text: lost's gain" "$txt" "lost +[0-9.]+ GPU-min +[0-9]+%   [0-9.]+ GPU-min back without the lost GPUs"
expect_match "text: the verdicts after the ledger" "$(printf '%s\n' "$txt" | grep -n -m1 '^Verdicts:' | cut -d: -f1)" "^[0-9]+$"
expect_match "text: per GPU, its time" "$txt" "time: compute [0-9]+%, pause 1[0-9]%"

# a training loop that waits 40% of its time for input (its own step timing), fast-played
export PYTHONPATH="$SRC/python${PYTHONPATH:+:$PYTHONPATH}"
GPUMON_SIM_SPEED=5 "$GPUMON" run --nvml "$SIM" --scenario healthy --interval 1s -o "$T/loop.jsonl" -- \
  "$PY" "$SRC/examples/train_loop.py" --steps 100 --wait-ms 16 --compute-ms 24 --quiet > /dev/null 2> "$T/loop.err"
expect_match "run: the ledger in its summary" "$(cat "$T/loop.err")" "GPU time by cause \(2 GPUs"
"$GPUMON" diagnose --format json "$T/loop.jsonl" > "$T/loop.json"
"$PY" - "$T/loop.json" "$T/loop.jsonl" <<'PYEOF' && ok || fail "the loop's input wait in the ledger"
import json, sys
from datetime import datetime
d = json.load(open(sys.argv[1]))
# the truth: 40% of the loop's time (the time its processes spent waiting or computing, as its records say)
loop = sum(sum(k["in_wait_s"] + k["in_compute_s"] for k in r.get("steps", []))
           for r in map(json.loads, open(sys.argv[2])))
for g in d["gpus"]:
    s, T = g["ledger"]["seconds"], g["ledger"]["gpu_seconds"]
    assert abs(100 * (s["input_wait"] - 0.4 * loop) / T) <= 5, (g["index"], s, loop, T)
    sp = g["ledger"]["gain"]["input_wait"]["speedup"]
    assert abs(sp - 1 / (1 - 0.4)) <= 0.1, (sp, s)   # 1/(1-0.4), the loop's own share
    assert abs(sum(s.values()) - T) <= 0.01 * T, s
assert d["ledger"]["steps"] == 100 and d["ledger"]["energy_per_step_j"] > 0, d["ledger"]
PYEOF

# every bundled scenario: every observed second once
for scn in "$SRC"/examples/scenarios/*.scn; do
  name=$(basename "$scn" .scn)
  [ "$name" = hang ] && continue   # its NVML call blocks 10 s of wall time; healthy otherwise
  GPUMON_SIM_SPEED=100 SCENARIO="$scn" gp watch --format jsonl --interval 3s --count 10 > "$T/b.jsonl" 2>/dev/null
  [ -s "$T/b.jsonl" ] || continue   # no driver, no GPU: nothing recorded
  "$GPUMON" diagnose --format json "$T/b.jsonl" > "$T/b.json" 2>/dev/null
  "$PY" - "$T/b.json" <<'PYEOF' && ok || fail "$name: the causes do not sum to the observed GPU-seconds"
import json, sys
d = json.load(open(sys.argv[1]))
for led in [d["ledger"]] + [g["ledger"] for g in d["gpus"]]:
    assert abs(sum(led["seconds"].values()) - led["gpu_seconds"]) <= 0.01 * led["gpu_seconds"] + 1e-6, led
PYEOF
done

# grouped verdicts: 8 GPUs with one cause print it once, figures as ranges; one that differs is named
cat > "$T/starve8.scn" <<'EOF'
seed 11
gpu 0-7
  name NVIDIA A100-SXM4-80GB
  util.gpu = square(1, 60, 2.0, 0.45) + noise(3)
  process 3300 python3 train.py memory=const(22 GiB)
EOF
GPUMON_SIM_SPEED=80 SCENARIO="$T/starve8.scn" gp watch --format jsonl --interval 1s --count 150 > "$T/s8.jsonl" 2>/dev/null
out=$("$GPUMON" diagnose "$T/s8.jsonl")
expect_eq "8 GPUs, one cause: once" "$(printf '%s\n' "$out" | grep -c 'WARNING  input-bound')" 1
expect_match "8 GPUs, one cause: all named" "$out" "  GPUs 0-7  WARNING  input-bound: "
expect_eq "8 GPUs, one cause: one evidence line" "$(printf '%s\n' "$out" | sed -n '/WARNING  input-bound/,/advice/p' | grep -c 'evidence')" 1
expect_match "8 GPUs, one cause: figures as ranges" "$out" "evidence: .*p50 [0-9]+(-[0-9]+)?,.*[0-9.]+-[0-9.]+ MB/s"
GPUMON_SIM_SPEED=80 gp watch --scenario straggler --format jsonl --interval 1s --count 100 > "$T/st.jsonl" 2>/dev/null
out=$("$GPUMON" diagnose "$T/st.jsonl")
expect_match "one GPU differs: named" "$out" "  GPU 5  WARNING  straggler: "
expect_match "one GPU differs: the others together" "$out" "  GPUs 0-4,6-7  OK       healthy: "
"$GPUMON" diagnose --format json "$T/st.jsonl" > "$T/st.json"
"$PY" - "$T/st.json" <<'PYEOF' && ok || fail "verdict_groups in JSON"
import json, sys
d = json.load(open(sys.argv[1]))
g = {v["id"]: v for v in d["verdict_groups"]}
assert [x["index"] for x in g["straggler"]["gpus"]] == [5], g["straggler"]
assert [x["index"] for x in g["healthy"]["gpus"]] == [0, 1, 2, 3, 4, 6, 7], g["healthy"]
assert g["straggler"]["evidence"][0]["text"].startswith("utilization mean 4"), g["straggler"]
assert list(d)[0] == "ledger", list(d)
PYEOF

# prices: --gpu-hour-cost and GPUMON_GPU_HOUR_COST
out=$("$GPUMON" diagnose --gpu-hour-cost 2.5 "$T/known.jsonl")
expect_match "--gpu-hour-cost: the total" "$out" "observed, [0-9.]+ at 2\.50 a GPU-hour\):"
"$GPUMON" diagnose --format json "$T/known.jsonl" > "$T/c.json" 2>/dev/null
GPUMON_GPU_HOUR_COST=4 "$GPUMON" diagnose --format json "$T/known.jsonl" > "$T/c.json"
"$PY" - "$T/c.json" <<'PYEOF' && ok || fail "GPUMON_GPU_HOUR_COST: the cost object"
import json, sys
led = json.load(open(sys.argv[1]))["ledger"]
c = led["cost"]
assert c["per_gpu_hour"] == 4 and abs(c["total"] - led["gpu_seconds"] / 3600 * 4) < 1e-3, c
assert abs(c["lost"] - led["seconds"]["lost"] / 3600 * 4) < 1e-3, c
PYEOF
for bad in -1 abc nan 1e9 ""; do
  "$GPUMON" diagnose --gpu-hour-cost "$bad" "$T/known.jsonl" > /dev/null 2> "$T/err"; rc=$?
  expect_eq "--gpu-hour-cost '$bad': usage" "$rc" 2
done
GPUMON_GPU_HOUR_COST=x "$GPUMON" diagnose "$T/known.jsonl" > /dev/null 2> "$T/err"; rc=$?
expect_eq "GPUMON_GPU_HOUR_COST=x: usage" "$rc" 2
expect_match "GPUMON_GPU_HOUR_COST=x: says so" "$(cat "$T/err")" "GPUMON_GPU_HOUR_COST=\"x\": not a price"
done_tests
