# Faults survived by watch: a hung NVML call (the gap is reported, sampling
# goes on) and a full disk (one clear error, records kept in memory, written
# when space returns, no partial line, no sample lost). The disk is "full"
# through a soft file size limit (ulimit -S -f), lifted from outside with prlimit.
. "$(dirname "$0")/lib.sh"

# --- hung NVML call -------------------------------------------------------
# hang.scn's 10 s hang shortened to 3 s (the same fault, a shorter test). --count, not a time limit,
# says how much to sample: a loaded machine takes longer, never fewer records.
sed 's/^  at 5 hang nvmlDeviceGetPowerUsage 10$/  at 1 hang nvmlDeviceGetPowerUsage 3/' "$SCN/hang.scn" > "$T/hang3.scn"
grep -q "at 1 hang" "$T/hang3.scn" && ok || fail "could not shorten hang.scn's hang"
GPUMON_SIM_SCENARIO="$T/hang3.scn" "$GPUMON" watch --nvml "$SIM" --interval 250ms --count 16 --format jsonl \
  -o "$T/hang.jsonl" 2> "$T/hang.err" &
hang_watch=$!   # while run's own hang below plays too
GPUMON_SIM_SCENARIO="$T/hang3.scn" "$GPUMON" run --nvml "$SIM" --interval 250ms -o "$T/run.jsonl" -- sh -c '
  end=$(($(date +%s) + 120))
  until [ -s "$0" ] && [ "$(wc -l < "$0")" -ge 16 ]; do [ "$(date +%s)" -lt $end ] || exit 9; sleep 0.1; done
  exit 3' "$T/run.jsonl" > /dev/null 2> "$T/run.err"; run_rc=$?
wait $hang_watch
expect_match "the gap is reported" "$(cat "$T/hang.err")" "a sample took [0-9]+\.[0-9] s .*NVML call was slow or hung"
pycheck "$T/hang.jsonl" "
from datetime import datetime
ts = [datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ') for r in recs]
gaps = [(b - a).total_seconds() for a, b in zip(ts, ts[1:])]
big = [g for g in gaps if g > 2]
assert len(big) == 1 and big[0] >= 3, gaps   # one gap, as long as the hang at least
after = gaps[gaps.index(big[0]) + 1:]
assert len(after) >= 8, after   # sampling went on after the gap
"

# run (above, at the same time): the same gap reported, the job's exit status kept; the job ends once
# gpumon has logged 16 records, hang included (a job of fixed length would leave a loaded machine fewer)
expect_eq "run keeps the job's status through a hang" "$run_rc" 3
expect_match "run reports the gap" "$(cat "$T/run.err")" "a sample took [0-9]+\.[0-9] s .*NVML call was slow or hung"
pycheck "$T/run.jsonl" "
assert len(recs) >= 16, len(recs)   # sampling went on after the gap
"

# --- a metric turning NO_PERMISSION mid-run (at 10 s of the scenario) -------------------------
# Started at 7.5 s: 2.5 s of wall time for the first record to come before the change; 30 records at
# 100 ms end after it whatever the load (the scenario's clock is the wall's).
GPUMON_SIM_START=7.5 GPUMON_SIM_SCENARIO="$SCN/metrics-unsupported.scn" "$GPUMON" watch --nvml "$SIM" \
  --interval 100ms --count 30 --format jsonl > "$T/perm.jsonl" 2> /dev/null
pycheck "$T/perm.jsonl" "
first, last = recs[0]['gpus'][0], recs[-1]['gpus'][0]
assert isinstance(first['power.draw'], float) and 'power.draw' not in first.get('errors', {}), first.get('errors')
assert last['power.draw'] is None and last['errors']['power.draw']['code'] == 4 and 'ermission' in last['errors']['power.draw']['text'], last.get('errors')
assert last['utilization.gpu'] is not None and last['ecc.errors.corrected.volatile.total'] is None
"
PORT=$(free_port)
GPUMON_SIM_START=7.5 GPUMON_SIM_SCENARIO="$SCN/metrics-unsupported.scn" "$GPUMON" serve --nvml "$SIM" \
  --web.listen-address "127.0.0.1:$PORT" --interval 100ms 2> /dev/null &
spid=$!
wait_for "the exporter" 'curl -sf -o "$T/p1.txt" "http://127.0.0.1:$PORT/metrics"'
wait_for "the power series to go (at 10 s of the scenario)" \
  'curl -sf -o "$T/p2.txt" "http://127.0.0.1:$PORT/metrics" && ! grep -q "^gpumon_gpu_power_watts{" "$T/p2.txt"'
kill $spid; wait $spid
expect_match "power exported before" "$(grep -c '^gpumon_gpu_power_watts{' "$T/p1.txt")" '^1$'
expect_eq "power series gone after" "$(grep -c '^gpumon_gpu_power_watts{' "$T/p2.txt")" 0
e1=$(awk '/^gpumon_exporter_collection_errors_total/ {print $2}' "$T/p1.txt")
e2=$(awk '/^gpumon_exporter_collection_errors_total/ {print $2}' "$T/p2.txt")
[ "${e2:-0}" -gt "${e1:-0}" ] && ok || fail "collection errors counted: got $e1 then $e2, expected a rise"
expect_eq "no ECC series on a board without ECC" "$(grep -c '^gpumon_gpu_ecc_' "$T/p2.txt")" 0

# --- a metric turning NOT_SUPPORTED mid-run (a driver update, a MIG change)
printf 'gpu 0-1\n  name NVIDIA A100-SXM4-80GB\n  temperature = const(55)\n\ngpu 1\n  at 2.5 unsupported temperature fan\n' \
  > "$T/unsup.scn"
GPUMON_SIM_SCENARIO="$T/unsup.scn" "$GPUMON" watch --nvml "$SIM" --interval 100ms --count 30 --format jsonl \
  > "$T/unsup.jsonl" 2> /dev/null
pycheck "$T/unsup.jsonl" "
first, last = recs[0]['gpus'], recs[-1]['gpus']
assert first[1]['temperature.gpu'] == 55 and first[1]['fan.speed'] is not None, first[1]['temperature.gpu']
assert last[1]['temperature.gpu'] is None and 'temperature.gpu' not in last[1].get('errors', {})
assert last[1]['fan.speed'] is None and last[1]['state'] == 'ok'
assert last[0]['temperature.gpu'] == 55, 'the other GPU is untouched'
"
out=$(GPUMON_SIM_SCENARIO="$T/unsup.scn" GPUMON_SIM_START=3 "$GPUMON" watch --nvml "$SIM" --once --format csv \
      --fields index,temperature.gpu 2> /dev/null)
expect_match "csv says Not Supported" "$out" ",1,\\[Not Supported\\]"

# --- kill -9 mid-run: the readers take every whole line and say what they skip
"$GPUMON" watch --nvml "$SIM" --interval 10ms --format jsonl -o "$T/k.jsonl" 2> /dev/null &
kp=$!
wait_for "20 records before kill -9" '[ "$(lines "$T/k.jsonl")" -ge 20 ]'
kill -9 $kp; wait $kp 2> /dev/null
lines=$(wc -l < "$T/k.jsonl")
"$GPUMON" diagnose "$T/k.jsonl" --format json > "$T/k.json" 2> "$T/k.err"; rc=$?
expect_eq "diagnose after kill -9" "$rc:$(cat "$T/k.err")" "0:"
size=$(stat -c %s "$T/k.jsonl")
head -c $((size - 700)) "$T/k.jsonl" > "$T/torn.jsonl"   # what a write cut short would leave
"$GPUMON" diagnose "$T/torn.jsonl" --format json > "$T/t.json" 2> "$T/t.err"; rc=$?
expect_eq "diagnose of a torn log exits 0" "$rc" 0
expect_match "and names the torn line" "$(cat "$T/t.err")" "torn.jsonl:$lines: the last line is incomplete"
"$GPUMON" report "$T/torn.jsonl" -o "$T/torn.html" > /dev/null 2> "$T/r.err"; rc=$?
expect_eq "report of a torn log exits 0" "$rc" 0
expect_match "report names the torn line" "$(cat "$T/r.err")" "torn.jsonl:$lines: the last line is incomplete"
expect_match "report written" "$(head -c 200 "$T/torn.html")" "<!DOCTYPE html>"

# --- full disk ------------------------------------------------------------
# --count says how many samples are taken, so the test knows how many records must be in the log at
# the end, whatever the machine's load: the limit is lifted once the error is said, while sampling
# goes on (waits on the messages, not on time; if the count ran out first, it doubles).
command -v prlimit > /dev/null || { fail "prlimit (util-linux) is missing"; done_tests; exit 1; }
full() {  # full COUNT: sets full_ok when the limit was lifted while watch still sampled
  rm -f "$T/full.jsonl"
  ( ulimit -S -f 16; exec "$GPUMON" watch --nvml "$SIM" --interval 20ms --count "$1" --format jsonl \
      -o "$T/full.jsonl" ) 2> "$T/full.err" &
  pid=$!
  wait_for "the full disk to be said" 'grep -q "cannot write" "$T/full.err"'
  size=$(stat -c %s "$T/full.jsonl")
  running=$(kill -0 $pid 2>/dev/null && ! grep -q '^[0-9]* (.*) Z' /proc/$pid/stat 2>/dev/null && echo yes)
  prlimit --pid $pid --fsize=unlimited 2> /dev/null
  wait_for "writing to resume" 'grep -q "writing to .*full.jsonl again" "$T/full.err" || ! kill -0 $pid 2> /dev/null'
  wait $pid; rc=$?
  full_ok=0
  [ "$running" = yes ] && grep -q "writing to .*full.jsonl again" "$T/full.err" && full_ok=1
}
for count in 150 600 2400; do
  full $count
  [ $full_ok = 1 ] && break
done
[ "$size" -le 16384 ] && ok || fail "file size under the limit: got $size, expected <= 16384"
expect_match "one clear error" "$(cat "$T/full.err")" "cannot write to .*full.jsonl: File too large; keeping records"
expect_eq "reported once" "$(grep -c 'cannot write' "$T/full.err")" 1
expect_eq "exit when done" "$rc" 0
expect_match "writing resumed" "$(cat "$T/full.err")" "writing to .*full.jsonl again: delayed records written"
pycheck "$T/full.jsonl" "
assert open(sys.argv[1]).read().endswith('\\n'), 'last line complete'
ts = [r['timestamp'] for r in recs]
assert len(recs) == $count, (len(recs), $count)   # every sample taken reached the log, none torn
assert ts == sorted(ts), 'records out of order'   # (two samples may share a millisecond: a late one, then one on time)
print('disk full: %d records, none lost or torn' % len(recs))
"

# --- output that cannot be written ------------------------------------------
# Lost output is a failure: one message and exit 1, for a file, for standard
# output and for the last flush of a command that prints with stdio. A reader
# that goes away (EPIPE) is not: nobody reads what is lost.
lost() {  # lost WHAT ARGS... (stdout of ARGS goes to /dev/full unless -f/-o names it)
  local what=$1; shift
  "$@" 2> "$T/lost.err"; local rc=$?
  expect_eq "$what: exit" "$rc" 1
  expect_eq "$what: one message" "$(grep -vc 'simulated GPUs' "$T/lost.err")" 1
  expect_match "$what: says so" "$(cat "$T/lost.err")" "(could not be written|No space left)"
}
if [ -c /dev/full ]; then
  lost "watch -o /dev/full" gp watch --once -o /dev/full
  lost "watch > /dev/full" sh -c '"$0" watch --once --nvml "$1" > /dev/full' "$GPUMON" "$SIM"
  lost "query > /dev/full" sh -c '"$0" query --query-gpu=index --format=csv --nvml "$1" > /dev/full' "$GPUMON" "$SIM"
  lost "query -f /dev/full" gp query --query-gpu=index --format=csv -f /dev/full
  gp watch --count 3 --interval 10ms --format jsonl > "$T/three.jsonl" 2>/dev/null
  lost "diagnose > /dev/full" sh -c '"$0" diagnose "$1" > /dev/full' "$GPUMON" "$T/three.jsonl"
  lost "--help > /dev/full" sh -c '"$0" watch --help > /dev/full' "$GPUMON"
fi
gp watch --interval 10ms --count 100 2> "$T/pipe.err" | head -1 > /dev/null
expect_eq "a closed pipe is not an error" "${PIPESTATUS[0]}" 0
done_tests
