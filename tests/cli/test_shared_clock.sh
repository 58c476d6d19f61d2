#!/usr/bin/env bash
# One scenario clock for every process that plays a scenario (sim/sim_clock.c, docs/scenario-format.md):
# gpumon run on the simulated GPUs (fast-played 20x) and nvidia-smi (gpumon by that name) started later in
# another process, without GPUMON_SIM_SPEED, see the same GPUs in the same state at the same scenario
# second (a temperature ramp of 1 degree a second, bracketed by run's records before and after the query),
# and the same GPU lost once the scenario's second 40 has passed; the clock file goes with the last holder,
# and a pinned GPUMON_SIM_START keeps a clock of its own. Conditions are waited on, never a speed.
. "$(dirname "$0")/lib.sh"
cat > "$T/s.scn" <<'EOF'
gpu 0-1
  name NVIDIA H100 80GB HBM3
  temperature = ramp(20, 1020, 0, 1000)
  util.gpu = const(80)
gpu 1
  at 40 lost
EOF
ln -s "$GPUMON" "$T/nvidia-smi"
smi() { GPUMON_NVML="$SIM" GPUMON_SIM_SCENARIO="$T/s.scn" "$T/nvidia-smi" "$@"; }
# records LOG: how many records the log holds; last_temp LOG: GPU 0's temperature in its last record
records() { if [ -e "$1" ]; then grep -c '"timestamp"' "$1"; else echo 0; fi; }
last_temp() { tail -n 1 "$1" | "$PY" -c 'import json,sys; print(json.loads(sys.stdin.read())["gpus"][0]["temperature.gpu"])'; }
# wait_for WHAT CMD...: until CMD succeeds (at most 120 s, however loaded the machine)
wait_for() {
  local what=$1 i; shift
  for ((i = 0; i < 1200; i++)); do "$@" && return 0; sleep 0.1; done
  fail "timed out waiting for $what"; return 1
}
at_least() { [ "$(records "$1")" -ge "$2" ]; }
past_temp() { [ "$(records "$1")" -ge 1 ] && [ "$(last_temp "$1")" -ge "$2" ]; }

GPUMON_SIM_SPEED=20 "$GPUMON" run --nvml "$SIM" --scenario "$T/s.scn" --interval 1s -o "$T/run.jsonl" -- \
  sh -c "while [ ! -e '$T/go' ]; do sleep 0.05; done" 2> "$T/run.err" &
run_pid=$!
wait_for "run's first records" at_least "$T/run.jsonl" 5
[ "$(ls "$GPUMON_SIM_CLOCK_DIR" | grep -c '\.clock$')" = 1 ] && ok || fail "no clock file while run plays the scenario"
before=$(last_temp "$T/run.jsonl")
out=$(smi --query-gpu=index,uuid,name,temperature.gpu --format=csv,noheader); rc=$?
# the records written next may have been sampled before the query ended (a loaded machine delays run's
# writes): the bracket's upper end is taken three records later (the ramp only climbs)
m=$(records "$T/run.jsonl")
wait_for "records after the query" at_least "$T/run.jsonl" $((m + 3))
after=$(last_temp "$T/run.jsonl")
expect_eq "nvidia-smi beside run: status" "$rc" 0
t0=$(printf '%s\n' "$out" | sed -n '1s/.*, //p')
[ "$before" -ge 24 ] && ok || fail "run's clock: temperature $before, expected at least second 4 of the scenario"
if [ -n "$t0" ] && [ "$t0" -ge $((before - 1)) ] && [ "$t0" -le $((after + 1)) ]; then ok
else fail "nvidia-smi read ${t0:-nothing} degrees (the scenario's second + 20), run's records around it $before and $after: not one clock"; fi
"$PY" - "$T/run.jsonl" "$out" <<'PYEOF' && ok || fail "nvidia-smi and run disagree on the GPUs: $out"
import json, sys
rec = json.loads(open(sys.argv[1]).readline())
rows = [l.split(", ") for l in sys.argv[2].splitlines()]
assert [(int(r[0]), r[1], r[2]) for r in rows] == \
    [(g["index"], g["uuid"], g["name"]) for g in rec["gpus"]], (rows, rec["gpus"])
PYEOF

# the same GPU lost: once run's records are past second 40, nvidia-smi finds GPU 1 lost too
wait_for "run past second 45" past_temp "$T/run.jsonl" 65
out=$(smi --query-gpu=index,temperature.gpu --format=csv,noheader 2>&1); rc=$?
expect_eq "nvidia-smi after the loss: status" "$rc" 15
expect_match "nvidia-smi after the loss: GPU 1" "$out" "GPU 1: GPU is lost"
"$PY" - "$T/run.jsonl" <<'PYEOF' && ok || fail "run's log does not show GPU 1 lost"
import json, sys
last = json.loads(open(sys.argv[1]).readlines()[-1])
assert "lost" in json.dumps(last["gpus"][1]), last["gpus"][1]
PYEOF
# a pinned moment is a clock of its own, even beside a shared one
out=$(GPUMON_SIM_START=3 GPUMON_SIM_SPEED=0 smi --query-gpu=index,temperature.gpu --format=csv,noheader -i 0)
expect_eq "GPUMON_SIM_START pins its own moment" "$out" "0, 23"
touch "$T/go"
wait "$run_pid"; rc=$?
expect_eq "run's status" "$rc" 0
[ "$(ls "$GPUMON_SIM_CLOCK_DIR" | grep -c '\.clock$')" = 0 ] && ok || fail "the clock file outlived its last holder"
# with nobody playing it, a new process starts the scenario at second 0
out=$(smi --query-gpu=index,temperature.gpu --format=csv,noheader -i 0)
expect_match "a fresh clock after the last holder" "$out" "^0, 2[01]$"
done_tests
