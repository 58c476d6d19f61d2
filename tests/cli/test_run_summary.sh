# gpumon run's summary (issue 23 items 4-6): advice that fits where it is given (under run, never "run
# the job under gpumon run"; a job that reports no steps is told in one line how to, for the framework
# it runs), the job's CPU and memory when no GPU can be watched (and why none was), and step rates over
# the time the loop trained, said as such.
. "$(dirname "$0")/lib.sh"
export PYTHONPATH="$SRC/python${PYTHONPATH:+:$PYTHONPATH}"

# The runs wait on time (the job's, the scenario's), not on the CPU: all start at once, checked after.
GPUMON_SIM_SPEED=20 "$GPUMON" run --scenario input-bound --interval 2s --output "$T/ib.jsonl" -- sleep 6 \
  > /dev/null 2> "$T/ib.err" &
GPUMON_SIM_SPEED=20 "$GPUMON" watch --scenario input-bound --format jsonl --interval 2s --count 40 > "$T/w.jsonl" \
  2> /dev/null &
have_torch=0
if "$PY" -c "import torch" 2> /dev/null; then
  have_torch=1
  "$GPUMON" run --scenario healthy --interval 500ms -- "$PY" -c 'import torch, time; time.sleep(4)' > "$T/torch.out" 2>&1 &
fi
"$GPUMON" run --nvml "$T/none/libnvidia-ml.so.1" --interval 250ms -- "$PY" -c '
import time
b = b"x" * (200 << 20)
end = time.monotonic() + 3
while time.monotonic() < end:
    pass' > "$T/nonvml.out" 2>&1 &
nonvml=$!
cat > "$T/loop.py" <<'PYEOF'
import json, sys, time
import gpumon
for i in range(100):
    with gpumon.step():
        if i == 0:   # the clock starts inside the first step, as gpumon's: entering it first makes the ring
            t0 = time.monotonic()   # file, which a loaded machine (ASan, two CPU hogs) took 0.1 s to do
        time.sleep(0.01)
own = 100 / (time.monotonic() - t0)
gpumon.done()
json.dump({"rate": own}, open(sys.argv[1], "w"))
time.sleep(3)   # after the loop: evaluation, saving, anything but training
PYEOF
"$GPUMON" run --scenario healthy --interval 250ms -o "$T/loop.jsonl" -- "$PY" "$T/loop.py" "$T/own.json" > "$T/loop.out" 2>&1 &
wait $nonvml; expect_eq "no NVML: the job's status" "$?" 0
wait

# --- advice under run: the input-bound scenario with a job that neither burns CPU nor reads storage ---
err=$(cat "$T/ib.err")
expect_match "run: input-bound" "$err" "WARNING +input-bound: utilization swings"
expect_match "run: the advice knows the job's CPU" "$err" "advice: The GPU waits between bursts while the job's CPU is not saturated"
expect_no_match "run: never advises gpumon run" "$err" "[Uu]nder gpumon run"
v=$("$GPUMON" diagnose "$T/ib.jsonl" 2>&1)
expect_match "diagnose of run's log: the same advice" "$v" "advice: The GPU waits between bursts while the job's CPU"
# a watch log has no process figures: the evidence says how to get them, the advice stays general
quiet_host "$T/w.jsonl"
v=$("$GPUMON" diagnose "$T/w.jsonl" 2>&1)
expect_match "watch log: evidence points to gpumon run" "$v" "no process-tree figures \(run the job under gpumon run to see its CPU\)"
expect_match "watch log: general advice" "$v" "advice: The GPU waits between bursts: usually the input pipeline"

# --- no steps reported: one line on how to add them, for the framework seen ---
expect_match "no steps: the hint" "$err" $'\n''Step timing: the job reported no steps; wrap each step.s compute in `with gpumon.step\(\):` \(PyTorch: `for batch in gpumon.torch.timed\(loader\):`; Keras: `model.fit\(\.\.\., callbacks=\[gpumon.keras.StepTimer\(\)\]\)`\)'
expect_eq "no steps: one line" "$(grep -c '^Step timing' "$T/ib.err")" 1
if [ $have_torch = 1 ]; then
  out=$(cat "$T/torch.out")
  expect_match "PyTorch job: its own way" "$out" 'Step timing: the job reported no steps; it runs PyTorch: `import gpumon.torch` and loop `for batch in gpumon.torch.timed\(loader\):`'
else
  echo "SKIP: PyTorch is not installed: the framework's hint is checked by the unit test only" >&2
fi
out=$("$GPUMON" run --scenario healthy --interval 250ms -- "$PY" -c '
import gpumon, time
for i in range(20):
    with gpumon.step():
        time.sleep(0.01)' 2>&1)
expect_no_match "steps reported: no hint" "$out" "Step timing"
out=$("$GPUMON" run --scenario healthy --no-steps -- true 2>&1)
expect_no_match "--no-steps: no hint" "$out" "Step timing"

# --- no NVML: the job's CPU and memory, and why no GPU was watched ---
out=$(cat "$T/nonvml.out")
expect_match "no NVML: why no GPU" "$out" $'\n''No GPU was watched: the NVML library \(the NVIDIA driver.s libnvidia-ml.so.1\) could not be loaded'
expect_match "no NVML: records of the job" "$out" $'\n''Summary: [2-9] s of records, window 30 s, no GPU in them'
expect_match "no NVML: the job's CPU" "$out" $'\n''Job \(the command.s process tree, [1-9] s\): CPU mean [0-9.]+ cores, peak [0-9.]+ \(busiest process up to (0\.9[0-9]|1\.[0-9]+)\)'
expect_match "no NVML: the job's memory" "$out" "; memory up to 2[0-9][0-9] MiB \(RSS\) in up to 1 process"
out=$("$GPUMON" run --scenario zero-gpus -- sleep 1 2>&1)
expect_match "zero GPUs: why" "$out" "No GPU was watched: NVML reports no GPU on this machine"
# with GPUs, the job's line follows theirs
expect_match "with GPUs: the job's line too" "$err" $'\n''Job \(the command.s process tree, [0-9]+ s\): CPU mean 0\.[0-9]+ cores'

# --- step rates: steps over the time the loop trained, whatever the process did after ---
out=$(cat "$T/loop.out")
expect_match "rate: said as training time" "$out" "pid [0-9]+: 100 steps in [0-9.]+ (ms|s) of training \([0-9.]+/s\), reported over [3-9] s"
own=$("$PY" -c "import json; print(json.load(open('$T/own.json'))['rate'])")
got=$(printf '%s\n' "$out" | sed -n 's/.* of training (\([0-9.]*\)\/s).*/\1/p')
"$PY" -c "import sys; sys.exit(0 if abs($got - $own) <= 0.03 * $own else 1)" && ok ||
  fail "rate: gpumon's $got/s is not within 3% of the loop's own $own/s"
"$GPUMON" diagnose "$T/loop.jsonl" --format json > "$T/loop.json" 2>&1
"$PY" -c "
import json, sys
s = json.load(open('$T/loop.json'))['steps'][0]
assert s['steps'] == 100 and abs(s['steps_per_s'] * s['training_s'] - 100) < 0.5, s
assert abs(s['steps_per_s'] - $own) <= 0.03 * $own, s" && ok || fail "rate in diagnose's JSON: $(cat "$T/loop.json")"
done_tests
