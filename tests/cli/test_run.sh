# gpumon run: a real busy child process as the training command under the
# input-bound scenario is called CPU input-bound; verdict changes and the
# summary go to stderr; --output is watch's JSON Lines and diagnose agrees;
# exit status propagation; signal forwarding; no start without NVML.
. "$(dirname "$0")/lib.sh"
export GPUMON_SIM_SPEED=20   # records 2 s apart of the scenario every 0.1 s: 7 s make 140 s of a job
gr() { "$GPUMON" run --nvml "$SIM" "$@"; }   # (gp would add --nvml after the command)

# The CPU-bound input case: the "training" command keeps one core busy.
"$GPUMON" run --scenario input-bound --interval 2s --output "$T/ib.jsonl" \
  --report "$T/ib.html" -- sh -c 'timeout 7 sh -c "while :; do :; done"; exit 3' > "$T/out" 2> "$T/err"; rc=$?
expect_eq "run exit status is the command's" "$rc" 3
expect_eq "run leaves stdout to the command" "$(cat "$T/out")" ""
err=$(cat "$T/err")
expect_match "verdict change line" "$err" "gpumon run: \+[0-9]+s GPU 0 warning input-bound-cpu: the CPU cannot feed the GPU \(.*busiest process (0\.9|1\.0)"
expect_match "summary figures" "$err" "GPU 0  NVIDIA A100-SXM4-80GB .*"$'\n'"  utilization mean [0-9.]+%  p50 [0-9]+%  p95 [0-9]+%  idle [0-9.]+%  peak memory 22528/81920 MiB"
expect_match "summary advice" "$err" "advice: Parallelize the input pipeline. tf.data: map\(\.\.\., num_parallel_calls=tf.data.AUTOTUNE\)"
expect_match "command status said" "$err" "sh exited with status 3"
[ -s "$T/ib.html" ] && ok || fail "--report wrote nothing"
# The log is watch's format, with the job's figures, and diagnose finds the same.
pycheck "$T/ib.jsonl" '
assert len(recs) > 20, len(recs)
keys = set(recs[-1]["host"])
assert {"job.cpu", "job.cpu.top", "job.rss", "job.processes"} <= keys, keys
busy = [r["host"]["job.cpu.top"] for r in recs if r["host"]["job.cpu.top"] is not None]
assert max(busy) >= 0.9, busy
assert recs[-1]["host"]["job.processes"] == 0, recs[-1]["host"]
assert all(set(r) == {"timestamp", "hostname", "host", "gpus"} for r in recs)
assert "processes" in recs[0]["gpus"][0] and "utilization.gpu.idle_share" in recs[0]["gpus"][0]'
expect_match "diagnose of run's log" "$("$GPUMON" diagnose "$T/ib.jsonl" 2>&1)" "WARNING +input-bound-cpu"

# A command that does not keep the CPU busy on a steady low GPU: small batch, not input-bound.
"$GPUMON" run --scenario small-batch --interval 2s -- sleep 5 > /dev/null 2> "$T/err"; rc=$?
expect_eq "sleep exit" "$rc" 0
expect_match "small batch" "$(cat "$T/err")" "GPU 0 warning small-batch"
expect_no_match "not input-bound" "$(cat "$T/err")" "input-bound"
# The same while a neighbour (not the job) reads from storage, bypassing the page cache, so the host's
# iowait rises (the CI incident: a parallel test's I/O was blamed on the job). The job reads nothing.
dd if=/dev/zero of="$T/neighbour.bin" bs=1M count=64 2> /dev/null
(end=$((SECONDS + 8)); while [ $SECONDS -lt $end ]; do
   dd if="$T/neighbour.bin" of=/dev/null bs=64k iflag=direct 2> /dev/null || cat "$T/neighbour.bin" > /dev/null
 done) &
neighbour=$!
"$GPUMON" run --scenario small-batch --interval 2s --output "$T/nb.jsonl" -- sleep 5 > /dev/null 2> "$T/err"
kill $neighbour 2> /dev/null; wait $neighbour 2> /dev/null
expect_match "neighbour's I/O: small batch" "$(cat "$T/err")" "GPU 0 warning small-batch"
expect_no_match "neighbour's I/O: not input-bound" "$(cat "$T/err")" "input-bound"
# (the first quarter aside: fast-played, its records fall in the job's first wall second, whose start-up
# reads, loading the command, are the job's own; the host figures are read every 0.5 s of wall time)
pycheck "$T/nb.jsonl" 'assert all(r["host"]["job.io.read"] == 0 for r in recs[len(recs) // 4:]), [r["host"]["job.io.read"] for r in recs]'

# Exit status: the command's, 128+signal, 127 not found.
gr --interval 2s -- sh -c 'exit 7' > /dev/null 2>&1; expect_eq "exit 7" "$?" 7
gr --interval 2s -- sh -c 'kill -TERM $$' > /dev/null 2>&1; expect_eq "killed by TERM" "$?" 143
gr -- /nonexistent/train > /dev/null 2> "$T/err"; rc=$?
expect_eq "not found" "$rc" 127
expect_match "not found message" "$(cat "$T/err")" "cannot run /nonexistent/train: No such file or directory"
# Options run does not know come before --; after it, everything is the command's.
gr --interval 2s -- sh -c 'echo "$@"' sh --window x > "$T/out" 2>/dev/null
expect_eq "arguments after --" "$(cat "$T/out")" "--window x"
gr > /dev/null 2> "$T/err"; expect_eq "no command" "$?" 2
expect_match "no command message" "$(cat "$T/err")" "give the command to run"
# No NVML: a monitor never stops the work it watches: the command runs, gpumon
# says once why it cannot watch the GPUs, and the status is the command's.
"$GPUMON" run --nvml /nonexistent/libnvidia-ml.so.1 --interval 2s -- sh -c "touch '$T/started'; exit 7" \
  > /dev/null 2> "$T/err"; rc=$?
expect_eq "no NVML: the command's status" "$rc" 7
[ -e "$T/started" ] && ok || fail "the command did not run without NVML"
expect_match "no NVML: why" "$(cat "$T/err")" "cannot load the NVML library /nonexistent"
expect_eq "no NVML: said once" "$(grep -c "cannot watch the GPUs" "$T/err")" 1
rm -f "$T/started"
# A usage error (a --gpus no GPU matches) is the user's to fix: nothing starts.
gr --gpus 9 -- touch "$T/started" > /dev/null 2>&1; expect_eq "bad --gpus" "$?" 2
[ ! -e "$T/started" ] && ok || fail "the command ran with a bad --gpus"

# Signal forwarding: SIGTERM and SIGINT reach the command, which decides how to end. The command
# says when its trap is set (a signal before that would find the shell's default: death, 143).
ready() { wait_for "the command's traps" '[ -e "$T/ready" ]'; rm -f "$T/ready"; }
"$GPUMON" run --nvml "$SIM" --interval 2s -- sh -c \
  "trap 'echo TERM > \"$T/got\"; exit 42' TERM; touch '$T/ready'; while :; do sleep 0.05; done" > /dev/null 2>&1 &
pid=$!
ready
kill -TERM $pid
wait $pid; rc=$?
expect_eq "SIGTERM forwarded: exit" "$rc" 42
expect_eq "SIGTERM forwarded: the command saw it" "$(cat "$T/got" 2>/dev/null)" TERM
rm -f "$T/got"
# SIGINT too (job control on, so the background job does not start with SIGINT ignored).
set -m
"$GPUMON" run --nvml "$SIM" --interval 2s -- sh -c "trap 'exit 5' INT; touch '$T/ready'; while :; do sleep 0.05; done" \
  > /dev/null 2>&1 &
pid=$!
set +m
ready
kill -INT $pid
wait $pid; expect_eq "SIGINT forwarded: exit" "$?" 5
# SIGHUP is gpumon's (logrotate): run's own log is reopened, the command never sees it (it used to be
# forwarded and kill the job, 129).
"$GPUMON" run --nvml "$SIM" --interval 100ms -o "$T/hup.jsonl" -- sh -c \
  "trap 'echo HUP > \"$T/got\"' HUP; trap 'exit 42' TERM; touch '$T/ready'; while :; do sleep 0.05; done" \
  > /dev/null 2> "$T/hup.err" &
pid=$!
ready
wait_for "records in run's log" '[ "$(lines "$T/hup.jsonl")" -ge 2 ]'
mv "$T/hup.jsonl" "$T/hup.jsonl.1"
kill -HUP $pid
wait_for "the reopened log" '[ "$(lines "$T/hup.jsonl")" -ge 2 ]'
kill -TERM $pid
wait $pid; rc=$?
expect_eq "SIGHUP: the job goes on, then ends by SIGTERM" "$rc" 42
[ ! -e "$T/got" ] && ok || fail "SIGHUP reached the command"
for f in hup.jsonl.1 hup.jsonl; do
  pycheck "$T/$f" 'assert recs and all(len(r["gpus"]) == 2 for r in recs), len(recs)'
done
expect_no_match "SIGHUP: no warning" "$(cat "$T/hup.err")" "cannot reopen"
help=$("$GPUMON" run --help)
expect_match "run --help: which signals are forwarded" "$(printf '%s' "$help" | tr '\n' ' ')" \
  "SIGINT and SIGTERM are forwarded to the command; SIGHUP reopens --output \(logrotate\) and is not forwarded"
for opt in --interval --gpus --output --report --no-processes --window --threshold --list-rules --nvml --sim \
           --scenario; do
  expect_match "run --help: $opt" "$help" -- "$opt"
done
# A command that leaves processes behind: gpumon says so, by pid, and stops
# (it does not hang on them); the status is still the command's.
"$GPUMON" run --nvml "$SIM" --interval 2s -- sh -c 'sleep 60 & echo $! > "$0"; sleep 0.3; exit 5' "$T/left.pid" \
  > /dev/null 2> "$T/err"; rc=$?
expect_eq "leftovers: the command's status" "$rc" 5
left=$(cat "$T/left.pid")
expect_match "leftovers: said, with the pid" "$(cat "$T/err")" "sh exited, but 1 of the processes it started still runs \(pid $left\)"
kill "$left" 2>/dev/null
done_tests
