# Signals: SIGTERM and SIGINT end cleanly with the last record complete and
# exit 0; SIGHUP reopens the output file (logrotate) without losing samples.
. "$(dirname "$0")/lib.sh"

for sig in TERM INT; do
  "$GPUMON" watch --nvml "$SIM" --interval 20ms --format jsonl --output "$T/$sig.jsonl" 2>/dev/null &
  pid=$!
  wait_for "5 records before SIG$sig" '[ "$(lines "$T/$sig.jsonl")" -ge 5 ]'
  kill -$sig $pid
  wait $pid; rc=$?
  expect_eq "exit after SIG$sig" "$rc" 0
  expect_eq "SIG$sig: file ends with a newline" "$(tail -c 1 "$T/$sig.jsonl" | od -An -c | tr -d ' ')" '\n'
  pycheck "$T/$sig.jsonl" 'assert len(recs) >= 5 and all(len(r["gpus"]) == 2 for r in recs)'
done

# Rotation: move the file away, SIGHUP, go on; the samples across both files are exactly the ones
# taken (--count), each whole (a CSV sample is a row per GPU, written together). Waits on the files,
# not on time; if the whole count ends before the rotation (a very slow machine), the count doubles.
rotation() {  # rotation COUNT: sets rot_ok when the rotation fell inside the run
  rm -f "$T/rot.csv" "$T/rot.csv.1"
  "$GPUMON" watch --nvml "$SIM" --interval 10ms --count "$1" --format csv --fields utilization.gpu \
    --output "$T/rot.csv" 2>/dev/null &
  pid=$!
  wait_for "rows before the rotation" '[ "$(lines "$T/rot.csv")" -ge 11 ]'
  mv "$T/rot.csv" "$T/rot.csv.1"
  kill -HUP $pid
  wait $pid; rc=$?
  rot_ok=0
  [ -s "$T/rot.csv" ] && [ "$(lines "$T/rot.csv.1")" -lt $((2 * $1 + 1)) ] && rot_ok=1
}
for count in 150 600 2400; do
  rotation $count
  [ $rot_ok = 1 ] && break
done
expect_eq "exit after rotation" "$rc" 0
[ -s "$T/rot.csv" ] && ok || fail "no new file after SIGHUP"
expect_eq "new file starts with a header" "$(head -1 "$T/rot.csv")" "timestamp,hostname,index,utilization.gpu"
"$PY" - "$count" "$T/rot.csv.1" "$T/rot.csv" <<'PYEOF' && ok || fail "rotation lost or tore samples"
import sys, datetime
count, samples = int(sys.argv[1]), []
for path in sys.argv[2:]:
    lines = open(path).read().split("\n")
    assert lines[-1] == "", "torn last line in " + path
    assert lines[0] == "timestamp,hostname,index,utilization.gpu"
    rows = [l.split(",") for l in lines[1:-1]]
    assert len(rows) % 2 == 0, "a sample lost a row in " + path
    for a, b in zip(rows[0::2], rows[1::2]):   # a sample: GPU 0's row, then GPU 1's, one timestamp
        assert a[2] == "0" and b[2] == "1" and a[0] == b[0] and a[3].isdigit() and b[3].isdigit(), (a, b)
        samples.append(datetime.datetime.strptime(a[0], "%Y-%m-%dT%H:%M:%S.%fZ"))
assert len(samples) == count, (len(samples), count)   # every sample taken is in one of the two files
assert samples == sorted(samples), "samples out of order across the rotation"
print(count, "samples across the rotation")
PYEOF

# Signals during start-up (slow-start.scn: 1 s inside NVML before any thread
# exists, then 2 s inside the first sample while the sampler's threads run).
# Every command blocks its signals before NVML opens, so a signal at either
# moment waits for the command, which ends cleanly: no death by the signal
# (143/130) and no torn output.
SLOW="$SRC/tests/cli/slow-start.scn"
startup() {  # startup NAME WHEN SIG ARGS...: runs gpumon ARGS, sends SIG after WHEN s; its status in $T/NAME.rc
  local name=$1 when=$2 sig=$3; shift 3
  GPUMON_SIM_SCENARIO="$SLOW" "$GPUMON" "$1" --nvml "$SIM" "${@:2}" > "$T/$name.out" 2> "$T/$name.out.err" &
  local pid=$!
  sleep "$when"   # aims at a moment of the start-up; the checks hold whenever the signal lands
  kill -"$sig" "$pid"
  wait "$pid"; echo $? > "$T/$name.rc"
}
# The runs sleep in the simulator most of the time: all at once, each checked when all have ended.
for when in 0.5 2; do
  for sig in TERM INT; do
    startup "w$when$sig" $when $sig watch --interval 100ms --format jsonl &
  done
  startup "q$when" $when TERM query --query-gpu=index,power.draw --format=csv -l 1 &
  [ "$HAVE_SERVE" = 1 ] && startup "s$when" $when TERM serve --web.listen-address 127.0.0.1:0 --interval 100ms &
  startup "r$when" $when TERM run --interval 100ms -- sleep 30 &
done
wait
for when in 0.5 2; do
  for sig in TERM INT; do
    expect_eq "watch: SIG$sig at ${when}s, exit" "$(cat "$T/w$when$sig.rc")" 0
    pycheck "$T/w$when$sig.out" 'assert all(len(r["gpus"]) == 2 for r in recs)'
  done
  expect_eq "query: SIGTERM at ${when}s, exit" "$(cat "$T/q$when.rc")" 0
  expect_no_match "query: no torn line at ${when}s" "$(tail -c 1 "$T/q$when.out" | od -An -c)" '[^\\n ]'
  [ "$HAVE_SERVE" = 1 ] && expect_eq "serve: SIGTERM at ${when}s, exit" "$(cat "$T/s$when.rc")" 0
  # run: the signal reaches the command, whose status gpumon returns.
  expect_eq "run: SIGTERM at ${when}s reaches the command (128+15)" "$(cat "$T/r$when.rc")" 143
  expect_match "run: SIGTERM at ${when}s, summary" "$(cat "$T/r$when.out.err")" "sleep exited with signal 15"
  expect_no_match "run: SIGTERM at ${when}s, not 'ended early'" "$(cat "$T/r$when.out.err")" "ended early"
done

# A HUP to watch during start-up is taken as a reopen: it goes on sampling.
GPUMON_SIM_SCENARIO="$SLOW" "$GPUMON" watch --interval 100ms --format jsonl --output "$T/h.jsonl" --nvml "$SIM" \
  2>/dev/null &
pid=$!
sleep 0.5; kill -HUP $pid   # during the slow start; records begin after it
wait_for "3 records after a SIGHUP at start-up" '[ "$(lines "$T/h.jsonl")" -ge 3 ]'
kill -TERM $pid; wait $pid; rc=$?
expect_eq "watch: SIGHUP at start-up, then TERM: exit" "$rc" 0
n=$(wc -l < "$T/h.jsonl")
[ "$n" -ge 3 ] && ok || fail "watch went on after SIGHUP at start-up: only $n records"

# Without --output, SIGHUP is the terminal hanging up (writes to it would fail for good): watch ends
# after the record, exit 0, every record it wrote whole.
"$GPUMON" watch --interval 100ms --format jsonl --nvml "$SIM" > "$T/hup-stdout.jsonl" 2>/dev/null &
pid=$!
wait_for "records on standard output" '[ "$(lines "$T/hup-stdout.jsonl")" -ge 2 ]'
kill -HUP $pid
wait_for "watch to standard output ended by SIGHUP" '[ -z "$(ps -o stat= -p $pid | grep -v Z)" ]' 60
[ -n "$(ps -o stat= -p $pid | grep -v Z)" ] && kill -TERM $pid   # it did not: end it, the test has failed
wait $pid; rc=$?
expect_eq "watch to standard output: SIGHUP ends it" "$rc" 0
pycheck "$T/hup-stdout.jsonl" 'assert len(recs) >= 2, len(recs)'

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
