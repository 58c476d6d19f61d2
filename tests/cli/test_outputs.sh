# Outputs that must not lose data (issue 24, items 1-4, 6, 7): one writer per log file (a second is
# refused, naming the first), appends only in the log's own format, no output over an input, every
# output checked before a job starts, no report of an empty log, and FIFOs that never make a
# signal ineffective. Every wait here is on a condition (wait_for), never on a guess of a duration.
. "$(dirname "$0")/lib.sh"
sum() { md5sum < "$1"; }
bg() { exec "$GPUMON" "$@" --nvml "$SIM"; }   # for the background: gp & would leave a shell between (its pid is not gpumon's)

# --- one writer per log: watch, run and query refuse a file another gpumon writes ------------------
for log in same.jsonl same.jsonl.zst; do
  bg watch --interval 100ms --format jsonl -o "$T/$log" 2> "$T/first.err" &
  first=$!
  wait_for "the first writer's records in $log" '[ -s "$T/$log" ]'
  gp watch --count 3 --interval 10ms --format jsonl -o "$T/$log" > /dev/null 2> "$T/second.err"; rc=$?
  expect_eq "$log: a second watch: exit" "$rc" 1
  expect_match "$log: names the holder" "$(cat "$T/second.err")" \
    "$log is being written by another process \\(pid $first: [^)]*gpumon watch [^)]*-o [^)]*$log[^)]*\\)"
  gp run -o "$T/$log" -- touch "$T/started" > /dev/null 2> "$T/run.err"; rc=$?
  expect_eq "$log: run -o: exit" "$rc" 1
  [ ! -e "$T/started" ] && ok || fail "$log: run started its command with a log it cannot write"
  expect_match "$log: run says why" "$(cat "$T/run.err")" "being written by another process \\(pid $first"
  gp query --query-gpu=index --format=csv -f "$T/$log" > /dev/null 2> "$T/query.err"; rc=$?
  expect_eq "$log: query -f: exit" "$rc" 1
  expect_match "$log: query says why" "$(cat "$T/query.err")" "being written by another process"
  kill -TERM $first; wait $first
  if [ "${log%.zst}" != "$log" ]; then
    zstd -tq "$T/$log" && ok || fail "$log: the first writer's stream was damaged"
    n=$(zstd -dc "$T/$log" | wc -l)
  else
    n=$(lines "$T/$log")
  fi
  "$GPUMON" diagnose "$T/$log" > /dev/null 2> "$T/d.err" && ok || fail "$log: unreadable: $(cat "$T/d.err")"
  [ "$n" -ge 1 ] && ok || fail "$log: no records"
  gp watch --count 2 --interval 10ms --format jsonl -o "$T/$log" 2> /dev/null; rc=$?
  expect_eq "$log: free again once the writer is gone" "$rc" 0
done
# kill -9 leaves no lock behind (the kernel drops it with the process)
bg watch --interval 100ms --format jsonl -o "$T/k.jsonl" 2> /dev/null &
pid=$!
wait_for "records in k.jsonl" '[ -s "$T/k.jsonl" ]'
kill -9 $pid; wait $pid 2> /dev/null
gp watch --once --format jsonl -o "$T/k.jsonl" 2> /dev/null; expect_eq "free after kill -9" "$?" 0
# logrotate: after a move and SIGHUP the new file is the locked one, the moved one is free
bg watch --interval 50ms --format jsonl -o "$T/r.jsonl" 2> /dev/null &
pid=$!
wait_for "records in r.jsonl" '[ -s "$T/r.jsonl" ]'
mv "$T/r.jsonl" "$T/r.jsonl.1"
kill -HUP $pid
wait_for "the reopened r.jsonl" '[ -s "$T/r.jsonl" ]'
gp watch --once --format jsonl -o "$T/r.jsonl.1" 2> /dev/null; expect_eq "the rotated file is free" "$?" 0
gp watch --once --format jsonl -o "$T/r.jsonl" 2> /dev/null; expect_eq "the new file is locked" "$?" 1
kill -TERM $pid; wait $pid

# --- appending keeps the log's format --------------------------------------------------------------
gp watch --count 2 --interval 10ms --format csv --fields utilization.gpu -o "$T/a.csv" 2> /dev/null
before=$(sum "$T/a.csv")
gp watch --count 2 --interval 10ms --format csv --fields temperature.gpu -o "$T/a.csv" 2> "$T/err"; rc=$?
expect_eq "csv, other --fields: exit" "$rc" 1
expect_match "csv, other --fields: why" "$(cat "$T/err")" \
  "holds CSV with other columns \\(its header: timestamp,hostname,index,utilization.gpu; this one's: timestamp,hostname,index,temperature.gpu\\)"
expect_eq "csv, other --fields: the log untouched" "$(sum "$T/a.csv")" "$before"
gp watch --count 2 --interval 10ms --format jsonl -o "$T/a.csv" 2> "$T/err"; rc=$?
expect_eq "jsonl onto csv: exit" "$rc" 1
expect_match "jsonl onto csv: why" "$(cat "$T/err")" "holds CSV records; appending jsonl would mix two formats"
gp run -o "$T/a.csv" -- touch "$T/started" > /dev/null 2> "$T/err"; rc=$?
expect_eq "run -o onto csv: exit" "$rc" 1
[ ! -e "$T/started" ] && ok || fail "run started its command with a log of another format"
gp watch --count 2 --interval 10ms --format text -o "$T/a.csv" 2> /dev/null; expect_eq "text onto csv: exit" "$?" 1
expect_eq "the log untouched by all three" "$(sum "$T/a.csv")" "$before"
gp watch --count 2 --interval 10ms --format csv --fields utilization.gpu -o "$T/a.csv" 2> /dev/null
expect_eq "csv, same --fields: appended" "$?:$(grep -c '^timestamp,' "$T/a.csv"):$(lines "$T/a.csv")" "0:1:9"
gp watch --count 2 --interval 10ms --format jsonl -o "$T/j.jsonl" 2> /dev/null
gp watch --count 2 --interval 10ms --format csv -o "$T/j.jsonl" 2> /dev/null; expect_eq "csv onto jsonl: exit" "$?" 1
cp "$T/j.jsonl" "$T/plain.zst"
gp watch --count 1 --format jsonl -o "$T/plain.zst" 2> "$T/err"; expect_eq "zstd onto plain text: exit" "$?" 1
expect_match "zstd onto plain text: why" "$(cat "$T/err")" "is not zstd-compressed, but gpumon writes zstd there"
printf 'my notes\n' > "$T/notes.txt"
gp watch --count 1 --format jsonl -o "$T/notes.txt" 2> "$T/err"; expect_eq "onto another file: exit" "$?" 1
expect_match "onto another file: why" "$(cat "$T/err")" "notes.txt is not a gpumon log \\(its first line begins \"my notes\"\\)"

# --- no output over an input; outputs checked before the job --------------------------------------
gp watch --count 3 --interval 10ms --format jsonl -o "$T/in.jsonl" 2> /dev/null
before=$(sum "$T/in.jsonl")
ln -s in.jsonl "$T/link.jsonl"
for out in "$T/in.jsonl" "$T/./in.jsonl" "$T/link.jsonl"; do
  "$GPUMON" report "$T/in.jsonl" -o "$out" > /dev/null 2> "$T/err"; rc=$?
  expect_eq "report -o $(basename "$out") over its log: exit" "$rc" 2
  expect_match "report over its log: why" "$(cat "$T/err")" "is the log it reads: the report would replace it"
done
"$GPUMON" report - -o "$T/in.jsonl" < "$T/in.jsonl" > /dev/null 2> /dev/null; expect_eq "report - < LOG -o LOG" "$?" 2
expect_eq "the log survives" "$(sum "$T/in.jsonl")" "$before"
gp run -o "$T/in.jsonl" --report "$T/./in.jsonl" -- touch "$T/started" > /dev/null 2> "$T/err"; rc=$?
expect_eq "run --report over its -o: exit" "$rc" 2
expect_match "run --report over its -o: why" "$(cat "$T/err")" "--output and --report name the same file"
gp run -o "$T/new.jsonl" --report "$T/new.jsonl" -- touch "$T/started" > /dev/null 2>&1
expect_eq "run --report over its -o, not there yet: exit" "$?" 2
expect_eq "the log survives run" "$(sum "$T/in.jsonl")" "$before"
mkdir "$T/dir"
for bad in /nonexistent/x.html "$T/dir"; do
  gp run --report "$bad" -- touch "$T/started" > /dev/null 2> "$T/err"; rc=$?
  expect_eq "run --report $bad: exit" "$rc" 1
  expect_match "run --report $bad: said" "$(cat "$T/err")" "gpumon run: --report: cannot write $bad: "
  "$GPUMON" report "$T/in.jsonl" -o "$bad" > /dev/null 2> "$T/err"; expect_eq "report -o $bad: exit" "$?" 1
done
[ ! -e "$T/started" ] && ok || fail "run started a command whose outputs could not be written"
for opt in -o --report; do
  gp run "$opt" "" -- touch "$T/started" > /dev/null 2> "$T/err"; expect_eq "run $opt '': usage" "$?" 2
done
gp watch --once -o "" 2> "$T/err"; expect_eq "watch -o '': usage" "$?" 2
expect_match "watch -o '': why" "$(cat "$T/err")" "--output: give a file name"
"$GPUMON" report "$T/in.jsonl" -o "" 2> /dev/null; expect_eq "report -o '': usage" "$?" 2
gp query --query-gpu=index --format=csv -f "" > /dev/null 2>&1; expect_eq "query -f '': usage" "$?" 2

# --- a report of a log with no records: said, non-zero, nothing written -------------------------
: > "$T/empty.jsonl"
printf '\n\n\n' > "$T/blank.jsonl"
head -c 12 "$T/j.jsonl" | zstd -q -c | head -c 9 > "$T/cut.jsonl.zst"   # a .zst cut before its first record
for log in "$T/empty.jsonl" /dev/null "$T/blank.jsonl" "$T/cut.jsonl.zst"; do
  "$GPUMON" report "$log" -o "$T/e.html" > /dev/null 2> "$T/err"; rc=$?
  expect_eq "report of $(basename "$log"): exit" "$rc" 1
  expect_match "report of $(basename "$log"): said" "$(cat "$T/err")" "the log holds no records"
  [ ! -e "$T/e.html" ] && ok || fail "report of $(basename "$log") wrote a page"
done
"$GPUMON" report - -o "$T/e.html" < /dev/null > /dev/null 2> "$T/err"; expect_eq "report of empty stdin" "$?" 1

# --- FIFOs: a signal always ends the wait ---------------------------------------------------------
mkfifo "$T/fifo"
bg watch --format jsonl -o "$T/fifo" 2> "$T/w.err" &
pid=$!
wait_for "watch's wait message" 'grep -q "waiting for a reader on FIFO" "$T/w.err"'
kill -TERM $pid; wait $pid; rc=$?
expect_eq "watch -o FIFO without a reader, SIGTERM: exit" "$rc" 0
"$GPUMON" run --nvml "$SIM" -o "$T/fifo" -- touch "$T/started" > /dev/null 2> "$T/r.err" &
pid=$!
wait_for "run's wait message" 'grep -q "waiting for a reader on FIFO" "$T/r.err"'
kill -INT $pid; wait $pid; rc=$?
expect_eq "run -o FIFO without a reader, SIGINT: exit" "$rc" 130
expect_match "run -o FIFO: said" "$(cat "$T/r.err")" "stopped while waiting for a reader on FIFO .*touch was not started"
[ ! -e "$T/started" ] && ok || fail "run started its command while its log could not be opened"
bg query --query-gpu=index --format=csv -l 1 -f "$T/fifo" > /dev/null 2> "$T/q.err" &
pid=$!
wait_for "query's wait message" 'grep -q "waiting for a reader on FIFO" "$T/q.err"'
kill -TERM $pid; wait $pid; expect_eq "query -f FIFO without a reader, SIGTERM: exit" "$?" 0
# a reader that opens the FIFO and never reads: the writes wait (the FIFO fills up), and a signal
# still ends them: watch exits, and says what it could not write, if anything
"$PY" - "$T/fifo" "$T/reader" <<'PYEOF' &
import fcntl, os, struct, sys, termios, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
open(sys.argv[2] + ".ready", "w").close()
last, same = -1, 0
while True:   # "full": what the FIFO holds stops growing while the writer writes every 10 ms
    queued = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    same = same + 1 if queued == last and queued > 0 else 0
    last = queued
    if same == 10:
        open(sys.argv[2] + ".full", "w").close()
    time.sleep(0.02)
PYEOF
reader=$!
wait_for "the stalled reader" '[ -e "$T/reader.ready" ]'
bg watch --interval 10ms --format jsonl -o "$T/fifo" 2> "$T/s.err" &
pid=$!
wait_for "the FIFO to fill" '[ -e "$T/reader.full" ]'
kill -TERM $pid
ended() { [ ! -e /proc/$1 ] || grep -q '^[0-9]* (.*) Z' /proc/$1/stat 2> /dev/null; }
wait_for "watch to end after SIGTERM, its FIFO full" "ended $pid" || kill -9 $pid
wait $pid; rc=$?
if [ "$rc" = 1 ]; then
  expect_match "what it could not write is said" "$(cat "$T/s.err")" "could not be written to .*fifo: its reader does not read"
else
  expect_eq "watch with a stalled reader, SIGTERM: exit" "$rc" 0
fi
kill $reader; wait $reader 2> /dev/null
done_tests
