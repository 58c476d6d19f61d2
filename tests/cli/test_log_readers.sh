# The log reader's two parsers (docs/testing.md, "Log readers"): where gpumon was built with simdjson,
# diagnose (text and JSON, one log and several), report and compare give byte-identical outputs, and the
# same messages and exit status, whether the log is read on the simdjson path (GPUMON_LOG_READER=simdjson)
# or with cJSON alone (=cjson): watch logs of every kind of scenario, a run log with steps, a compressed
# log, and a log of edge cases that mixes lines simdjson takes with lines it leaves to cJSON (-0, CRLF,
# long numbers, escapes, non-UTF-8, repeated keys), then bad lines (each error's message), a torn last
# line and records whose time goes back; the same again without reader threads (GPUMON_LOG_THREADS=0) and
# with one for the first log only (=1). Without simdjson: =simdjson is refused, saying why.
. "$(dirname "$0")/lib.sh"

out=$(GPUMON_LOG_READER=bogus "$GPUMON" diagnose /dev/null 2>&1); rc=$?
expect_eq "GPUMON_LOG_READER=bogus: status" "$rc" 2
expect_match "GPUMON_LOG_READER=bogus: message" "$out" "give cjson, simdjson or auto"
out=$(GPUMON_LOG_THREADS=-1 "$GPUMON" diagnose /dev/null 2>&1); rc=$?
expect_eq "GPUMON_LOG_THREADS=-1: status" "$rc" 2
expect_match "GPUMON_LOG_THREADS=-1: message" "$out" "give a number of logs from 0"
if [ ! -e "$BUILD/gpumon-simdjson.so" ]; then
  out=$(GPUMON_LOG_READER=simdjson "$GPUMON" diagnose /dev/null 2>&1); rc=$?
  expect_eq "no simdjson: =simdjson refused" "$rc" 1
  expect_match "no simdjson: says why" "$out" "built without simdjson|gpumon-simdjson.so"
  echo "test_log_readers: this build has no simdjson reader: the comparisons are left out"
  done_tests
  exit
fi

# record NAME SCENARIO [COUNT]: watch records 2 s apart of the scenario played 20x fast
record() {
  GPUMON_SIM_SPEED=20 "$GPUMON" watch --scenario "$2" --format jsonl --interval 2s --count "${3:-60}" \
    > "$T/$1.jsonl" 2>/dev/null || fail "$1: watch failed"
}
record straggler straggler &
record lost gpu-lost &
record xid xid-storm &
record idle idle-8xh200 40 &
record thermal thermal-throttle &
wait
export PYTHONPATH="$SRC/python${PYTHONPATH:+:$PYTHONPATH}"
GPUMON_SIM_SPEED=5 "$GPUMON" run --nvml "$SIM" --scenario healthy --interval 500ms -o "$T/steps.jsonl" -- \
  "$PY" "$SRC/examples/train_loop.py" --steps 60 --wait-ms 10 --compute-ms 20 --quiet > /dev/null 2>&1 \
  || fail "run with steps failed"
grep -q '"steps":\[{' "$T/steps.jsonl" && ok || fail "the run log has no steps"
zstd -q -c "$T/straggler.jsonl" > "$T/straggler.jsonl.zst" || fail "zstd"

# edge.jsonl: the straggler's records, rewritten line by line into what a reader may meet
"$PY" - "$T/straggler.jsonl" "$T/edge.jsonl" <<'PYEOF'
import sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src, "rb").read().splitlines()
out = []
for i, l in enumerate(lines):
    k = i % 10
    if k == 1:
        l = l.replace(b'"power.draw":', b'"power.draw":-0,"x":', 1)          # an integer -0 in a float
    elif k == 2:
        l = l + b"\r"                                                       # CRLF (the CR goes with the LF)
    elif k == 3:
        l = l.replace(b'"hostname":', b'"big":1.' + b"0" * 80 + b'1,"hostname":', 1)   # a long number
    elif k == 4:
        l = l.replace(b'"name":"', b'"name":"caf\xc3\xa9 \\u00e9\\ud83d\\ude00 ', 1)     # escapes, UTF-8
    elif k == 5:
        l = l.replace(b'"name":"', b'"name":"\xff\xfe', 1)                   # not UTF-8: cJSON only
    elif k == 6:
        l = l.replace(b'{"index":0,', b'{"index":0,"index":"x","name":"[N/A]","temperature.gpu":1e9,', 1)   # repeats
    elif k == 7:
        l = l.replace(b'"utilization.gpu":', b'"utilization.gpu":null,"errors":{"utilization.gpu":{"code":999}},"u":', 1)
    elif k == 8:
        l = b"   " + l + b" \t"
    out.append(l)
open(dst, "wb").write(b"\n".join(out) + b"\n")
PYEOF
head -c 300 "$T/straggler.jsonl" > "$T/torn.part"
cat "$T/edge.jsonl" "$T/torn.part" > "$T/torn.jsonl"
{ sed -n 1,20p "$T/idle.jsonl"; sed -n 5,8p "$T/idle.jsonl"; sed -n 21,40p "$T/idle.jsonl"; } > "$T/back.jsonl"

# both WHAT CMD...: runs gpumon CMD with each reader (standard input from $IN, if set); their stdout,
# stderr and status must be the same
both() {
  local what=$1; shift
  GPUMON_LOG_READER=cjson "$GPUMON" "$@" < "${IN:-/dev/null}" > "$T/c.out" 2> "$T/c.err"; local rc1=$?
  GPUMON_LOG_READER=simdjson "$GPUMON" "$@" < "${IN:-/dev/null}" > "$T/s.out" 2> "$T/s.err"; local rc2=$?
  expect_eq "$what: status" "$rc2" "$rc1"
  cmp -s "$T/c.out" "$T/s.out" && ok || fail "$what: stdout differs ($(diff "$T/c.out" "$T/s.out" | head -5))"
  cmp -s "$T/c.err" "$T/s.err" && ok || fail "$what: stderr differs ($(diff "$T/c.err" "$T/s.err" | head -5))"
  local n  # and without reader threads, or with one for the first log only: the same again
  for n in 0 1; do
    GPUMON_LOG_THREADS=$n "$GPUMON" "$@" < "${IN:-/dev/null}" > "$T/t.out" 2> "$T/t.err"; local rc3=$?
    expect_eq "$what: status, GPUMON_LOG_THREADS=$n" "$rc3" "$rc1"
    cmp -s "$T/c.out" "$T/t.out" && ok || fail "$what: stdout differs, GPUMON_LOG_THREADS=$n"
    cmp -s "$T/c.err" "$T/t.err" && ok || fail "$what: stderr differs, GPUMON_LOG_THREADS=$n"
  done
}
# reports: the same HTML from both readers
report() {
  GPUMON_LOG_READER=cjson "$GPUMON" report "$2" -o "$T/c.html" > /dev/null 2>&1 || fail "$1: report (cJSON)"
  GPUMON_LOG_READER=simdjson "$GPUMON" report "$2" -o "$T/s.html" > /dev/null 2>&1 || fail "$1: report (simdjson)"
  cmp -s "$T/c.html" "$T/s.html" && ok || fail "$1: the reports differ"
}

for log in straggler lost xid idle thermal steps edge; do
  both "$log: diagnose" diagnose "$T/$log.jsonl"
  both "$log: diagnose json" diagnose --format json "$T/$log.jsonl"
  report "$log" "$T/$log.jsonl"
done
both "steps: a short window" diagnose --window 4s --format json "$T/steps.jsonl"
both "zst: diagnose" diagnose --format json "$T/straggler.jsonl.zst"
IN="$T/straggler.jsonl.zst" both "zst from stdin" diagnose -
both "several logs" diagnose --format json "$T/lost.jsonl" "$T/xid.jsonl" "$T/thermal.jsonl"
both "compare" compare "$T/straggler.jsonl" "$T/edge.jsonl"
both "compare json" compare --format json "$T/thermal.jsonl" "$T/straggler.jsonl"
both "torn last line" diagnose --format json "$T/torn.jsonl"
expect_match "torn last line: warned" "$(cat "$T/s.err")" "last line is incomplete"
both "time going back" diagnose "$T/back.jsonl"
expect_match "time going back: warned" "$(cat "$T/s.err")" "records were skipped"

# each bad line in the middle of a log: the same message (cJSON's, whichever reader read the log)
n=0
while IFS= read -r bad; do
  n=$((n + 1))
  { sed -n 1,5p "$T/idle.jsonl"; printf '%s\n' "$bad"; sed -n 6,10p "$T/idle.jsonl"; } > "$T/bad$n.jsonl"
  both "bad line $n" diagnose "$T/bad$n.jsonl"
  expect_match "bad line $n: refused at line 6" "$(cat "$T/s.err")" "bad$n.jsonl:6: "
done <<'EOF'
{"timestamp":"2027-01-01T00:00:00Z","gpus":[{"index":0,"utilization.gpu":1e400}]}
{"timestamp":"2027-01-01T00:00:00Z","gpus":[{"index":0,"power.draw":"[N/A]"}]}
{"timestamp":"2027-01-01T00:00:00Z","gpus":[{"index":0,"utilization.gpu":1.5}]}
{"timestamp":"2027-01-01T00:00:00Z","gpus":[{"index":0},{"index":0}]}
{"timestamp":"2027-01-01T00:00:00Z","gpus":[{"index":0,"processes":[{"pid":"x"}]}]}
{"timestamp":"2027-01-01T00:00:00Z","gpus":[{"index":0}]} trailing
{"timestamp":"2027-01-01T00:00:00Z","gpus":[{"index":0,"x":[1,,2]}]}
{"timestamp":"2027-01-01T00:00:00Z","gpus":[],"steps":[{"pid":1}]}
{"timestamp":"yesterday","gpus":[]}
timestamp,hostname,index
EOF
done_tests
