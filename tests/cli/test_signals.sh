# Signals: SIGTERM and SIGINT end cleanly with the last record complete and
# exit 0; SIGHUP reopens the output file (logrotate) without losing samples.
. "$(dirname "$0")/lib.sh"

for sig in TERM INT; do
  "$GPUMON" watch --nvml "$SIM" --interval 20ms --format jsonl --output "$T/$sig.jsonl" 2>/dev/null &
  pid=$!
  sleep 0.6
  kill -$sig $pid
  wait $pid; rc=$?
  expect_eq "exit after SIG$sig" "$rc" 0
  n=$(wc -l < "$T/$sig.jsonl")
  [ "$n" -ge 5 ] && ok || fail "SIG$sig: only $n records"
  expect_eq "SIG$sig: file ends with a newline" "$(tail -c 1 "$T/$sig.jsonl" | od -An -c | tr -d ' ')" '\n'
  pycheck "$T/$sig.jsonl" 'assert all(len(r["gpus"]) == 2 for r in recs)'
done

# Rotation: move the file away, SIGHUP, go on; count samples across both.
"$GPUMON" watch --nvml "$SIM" --interval 10ms --format csv --fields utilization.gpu --output "$T/rot.csv" 2>/dev/null &
pid=$!
sleep 0.5
mv "$T/rot.csv" "$T/rot.csv.1"
kill -HUP $pid
sleep 0.5
kill -TERM $pid
wait $pid; rc=$?
expect_eq "exit after rotation" "$rc" 0
[ -s "$T/rot.csv" ] && ok || fail "no new file after SIGHUP"
expect_eq "new file starts with a header" "$(head -1 "$T/rot.csv")" "timestamp,hostname,index,utilization.gpu"
"$PY" - "$T/rot.csv.1" "$T/rot.csv" <<'PYEOF' && ok || fail "rotation lost or tore samples"
import sys, datetime
stamps = []
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    assert lines[-1] == "", "torn last line in " + path
    assert lines[0] == "timestamp,hostname,index,utilization.gpu"
    for l in lines[1:-1]:
        ts, host, index, util = l.split(",")
        assert util.isdigit(), l
        stamps.append(datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ"))
# two rows (GPUs) per sample; consecutive samples at most a few intervals apart
samples = sorted(set(stamps))
assert len(stamps) == 2 * len(samples), "a sample lost a row"
gaps = [(b - a).total_seconds() for a, b in zip(samples, samples[1:])]
assert len(samples) > 40, len(samples)
assert max(gaps) < 0.25, max(gaps)
print(len(samples), "samples across rotation, largest gap", max(gaps))
PYEOF

# Signals during start-up (slow-start.scn: 1 s inside NVML before any thread
# exists, then 2 s inside the first sample while the sampler's threads run).
# Every command blocks its signals before NVML opens, so a signal at either
# moment waits for the command, which ends cleanly: no death by the signal
# (143/130) and no torn output.
SLOW="$SRC/tests/cli/slow-start.scn"
startup() {  # startup WHEN SIG OUT ARGS...: runs gpumon ARGS, sends SIG after WHEN s; sets rc
  local when=$1 sig=$2 out=$3; shift 3
  GPUMON_SIM_SCENARIO="$SLOW" "$GPUMON" "$1" --nvml "$SIM" "${@:2}" > "$out" 2> "$out.err" &
  local pid=$!
  sleep "$when"
  kill -"$sig" "$pid"
  wait "$pid"; rc=$?
}
for when in 0.5 2; do
  for sig in TERM INT; do
    startup $when $sig "$T/w.out" watch --interval 100ms --format jsonl
    expect_eq "watch: SIG$sig at ${when}s, exit" "$rc" 0
    pycheck "$T/w.out" 'assert all(len(r["gpus"]) == 2 for r in recs)'
  done
  startup $when TERM "$T/q.out" query --query-gpu=index,power.draw --format=csv -l 1
  expect_eq "query: SIGTERM at ${when}s, exit" "$rc" 0
  expect_no_match "query: no torn line at ${when}s" "$(tail -c 1 "$T/q.out" | od -An -c)" '[^\\n ]'
  if [ "$HAVE_SERVE" = 1 ]; then
    startup $when TERM "$T/s.out" serve --web.listen-address 127.0.0.1:0 --interval 100ms
    expect_eq "serve: SIGTERM at ${when}s, exit" "$rc" 0
  fi
  # run: the signal reaches the command, whose status gpumon returns.
  startup $when TERM "$T/r.out" run --interval 100ms -- sleep 30
  expect_eq "run: SIGTERM at ${when}s reaches the command (128+15)" "$rc" 143
  expect_match "run: SIGTERM at ${when}s, summary" "$(cat "$T/r.out.err")" "sleep exited with signal 15"
  expect_no_match "run: SIGTERM at ${when}s, not 'ended early'" "$(cat "$T/r.out.err")" "ended early"
done

# A HUP to watch during start-up is taken as a reopen: it goes on sampling.
GPUMON_SIM_SCENARIO="$SLOW" "$GPUMON" watch --interval 100ms --format jsonl --output "$T/h.jsonl" --nvml "$SIM" \
  2>/dev/null &
pid=$!
sleep 0.5; kill -HUP $pid; sleep 4; kill -TERM $pid; wait $pid; rc=$?   # records begin after the 3 s of slow start
expect_eq "watch: SIGHUP at start-up, then TERM: exit" "$rc" 0
n=$(wc -l < "$T/h.jsonl")
[ "$n" -ge 3 ] && ok || fail "watch went on after SIGHUP at start-up: only $n records"

# SIGINT to the whole process group (as a terminal's Ctrl-C) while run's
# command waits at its start gate: the command ends by it (130), never "the
# child ended early". set -m puts the job in its own group, as a terminal does.
setsid bash -c "set -m; GPUMON_SIM_SCENARIO='$SLOW' '$GPUMON' run --interval 100ms --nvml '$SIM' -- sleep 30 \
  > '$T/g.out' 2> '$T/g.err' & sleep 0.5; kill -INT -- -\$!; wait \$!; echo \$? > '$T/g.rc'"  2>/dev/null
expect_eq "run: group SIGINT at the gate" "$(cat "$T/g.rc" 2>/dev/null)" 130
expect_match "run: group SIGINT at the gate, summary" "$(cat "$T/g.err")" "sleep exited with signal 2"

# A reader that goes away (| head) ends gpumon quietly.
out=$(gp watch --interval 10ms --format csv 2>"$T/err" | head -3)
expect_eq "head -3 lines" "$(printf '%s\n' "$out" | wc -l)" 3
expect_eq "no error when the pipe closes" "$(grep -v 'simulated GPUs' "$T/err")" ""
done_tests
