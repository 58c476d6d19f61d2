# gpumon diagnose: every bundled scenario, recorded by gpumon watch on the
# simulator (fast-forwarded 20x with GPUMON_SIM_SPEED: records carry the
# scenario's clock, so 70 records 2 s apart are 140 s of a job, taken in 7 s,
# and the default window and thresholds judge them as a live job), yields its
# expected verdicts; healthy yields no problem; XIDs from a hand-written log;
# torn and malformed lines; options.
. "$(dirname "$0")/lib.sh"

# record NAME SPEED [SCENARIO_FILE [COUNT]]: COUNT (70) records 2 s apart -> $T/NAME.jsonl, on a quiet host
record() {
  GPUMON_SIM_SPEED=$2 "$GPUMON" watch --scenario "${3:-$1}" --format jsonl --interval 2s --count "${4:-70}" \
    > "$T/$1.jsonl" 2>/dev/null || fail "$1: watch failed"
  quiet_host "$T/$1.jsonl"
}
for s in healthy input-bound small-batch tf-prealloc thermal-throttle power-cap straggler gpu-lost \
         idle-8xh200 xid-storm legacy-535; do
  record $s 20 &
done
record oom 20 oom 100 &
record stalled 20 "$SRC/tests/cli/stalled.scn" &
wait

# verdicts NAME [ARGS]: "gpu:id,id gpu:id ..." from the JSON summary
verdicts() {
  local name=$1; shift
  "$GPUMON" diagnose "$T/$name.jsonl" --format json "$@" > "$T/$name.json" 2> "$T/$name.err" \
    || fail "$name: diagnose exit $?: $(cat "$T/$name.err")"
  "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%d:%s" % (g["index"], ",".join(sorted(v["id"] for v in g["verdicts"]))) for g in d["gpus"]))' \
    "$T/$name.json"
}
# has NAME GPU RULE: the GPU had RULE among its verdicts
check() { expect_match "$1 GPU $2 verdicts" "$3" "(^| )$2:([a-z-]+,)*$4(,|$| )"; }
check_not() { expect_no_match "$1 GPU $2 verdicts" "$3" "(^| )$2:([a-z-]+,)*$4(,|$| )"; }

v=$(verdicts healthy)
expect_eq "healthy: healthy only" "$v" "0:healthy 1:healthy"
v=$(verdicts legacy-535)
expect_eq "legacy-535: healthy only" "$v" "0:healthy 1:healthy"
v=$(verdicts input-bound)
check input-bound 0 "$v" input-bound
check_not input-bound 0 "$v" healthy
v=$(verdicts small-batch)
expect_eq "small-batch" "$v" "0:small-batch"
v=$(verdicts oom)
check oom 0 "$v" oom
check oom 0 "$v" memory-pressure
check_not "oom (the window spanning the crash is not steady)" 0 "$v" small-batch
v=$(verdicts tf-prealloc)
check tf-prealloc 0 "$v" tf-prealloc
check_not tf-prealloc 0 "$v" memory-pressure
v=$(verdicts thermal-throttle)
check thermal-throttle 0 "$v" thermal-throttle
check_not thermal-throttle 0 "$v" power-throttle
v=$(verdicts power-cap)
expect_eq "power-cap" "$v" "0:power-throttle"
v=$(verdicts straggler)
expect_eq "straggler" "$v" "0:healthy 1:healthy 2:healthy 3:healthy 4:healthy 5:straggler 6:healthy 7:healthy"
v=$(verdicts gpu-lost)
expect_eq "gpu-lost (and its Xid 79)" "$v" "0:healthy 1:gpu-lost,xid-critical 2:healthy 3:healthy"
v=$(verdicts idle-8xh200)
expect_eq "idle-8xh200" "$v" "0:idle 1:idle 2:idle 3:idle 4:idle 5:idle 6:idle 7:idle"
v=$(verdicts xid-storm)
check xid-storm 1 "$v" ecc-uncorrected
check "xid-storm (live XID events)" 1 "$v" xid-critical
check "xid-storm (live XID events)" 0 "$v" xid-app
v=$(verdicts stalled)
check "stalled (140 s, over the default 120 s)" 0 "$v" stalled
expect_match "stalled: GPU 1 fine" "$v" " 1:healthy$"
head -50 "$T/stalled.jsonl" > "$T/stalled-100s.jsonl"
v=$(verdicts stalled-100s)
check_not "stalled (100 s, under the default 120 s)" 0 "$v" stalled

# JSON summary carries the figures, evidence and advice.
pycheck "$T/small-batch.json" '
d = recs[0]; g = d["gpus"][0]
assert 28 <= g["utilization"]["mean"] <= 42 and g["utilization"]["p95"] <= 50, g
assert g["memory_peak_mib"] == 9216 and g["enough_data"] is True
v = g["verdicts"][0]
assert v["severity"] == "warning" and "batch" in v["advice"] and "utilization mean" in v["evidence"], v'

# Played 20x fast, judged as real time: 70 records 2 s apart make 138 s of the scenario (more when a
# busy machine made the recorder skip a deadline), and the straggler's
# verdict comes once the default 30 s window holds enough of it.
pycheck "$T/straggler.json" '
d = recs[0]
assert 137 <= d["duration_s"] <= 170, d["duration_s"]'
# Text: a timeline of changes and the summary.
out=$("$GPUMON" diagnose "$T/straggler.jsonl" 2>&1)
expect_match "fast-played: real-time duration" "$out" "Summary: 1[3-6][0-9] s of records, window 30 s, 8 GPUs"
expect_match "text timeline" "$out" "\+[0-9]+s GPU 5 warning straggler: .*against a median of 9[0-9]%"
expect_match "text summary" "$out" "GPU 5  NVIDIA H100 80GB HBM3 .*"$'\n'"  utilization mean 4[0-9]\.[0-9]%  p50 4[0-9]%  p95"
expect_match "text advice" "$out" "advice: In data-parallel training"

# XIDs (hand-written: the records of xid-storm plus the driver's XID lists).
"$PY" - "$T/xid-storm.jsonl" > "$T/xid.jsonl" <<'PYEOF'
import json, sys
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    if i >= 20:
        r["gpus"][0]["xids"] = [{"code": 31, "count": i - 19, "last_seen": r["timestamp"]}]
        r["gpus"][1]["xids"] = [{"code": 48, "count": 1, "last_seen": r["timestamp"]}]
    print(json.dumps(r, separators=(",", ":")))
PYEOF
v=$(verdicts xid)
check xid 0 "$v" xid-app
check_not xid 0 "$v" xid-critical
check xid 1 "$v" xid-critical
expect_match "xid evidence" "$(cat "$T/xid.json")" "Xid 48: double-bit ECC error"

# A torn last line (kill -9 mid-write): a warning naming it, the rest diagnosed.
head -c -300 "$T/healthy.jsonl" > "$T/torn.jsonl"
"$GPUMON" diagnose "$T/torn.jsonl" > "$T/out" 2> "$T/err"; rc=$?
expect_eq "torn: exit" "$rc" 0
expect_match "torn: warning" "$(cat "$T/err")" "torn.jsonl:70: the last line is incomplete"
expect_match "torn: still diagnosed" "$(cat "$T/out")" "OK +healthy: "
# A malformed line elsewhere: exit 1 with its number.
{ head -5 "$T/healthy.jsonl"; echo '{"timestamp":"2026-01-01T00:00:00Z","gpus":[{"index":0,"utilization.gpu":"x"}]}';
  tail -3 "$T/healthy.jsonl"; } > "$T/bad.jsonl"
"$GPUMON" diagnose "$T/bad.jsonl" > /dev/null 2> "$T/err"; rc=$?
expect_eq "malformed: exit" "$rc" 1
expect_match "malformed: message" "$(cat "$T/err")" "bad.jsonl:6: gpus\[0\]: \"utilization.gpu\" has the wrong type"
# Too little data: no verdict, said so.
head -5 "$T/healthy.jsonl" > "$T/short.jsonl"
out=$("$GPUMON" diagnose "$T/short.jsonl" 2>&1)
expect_match "short log" "$out" "no verdict: [0-9]+ s of data is too little for the 30 s window"
# Standard input.
out=$("$GPUMON" diagnose - < "$T/power-cap.jsonl" 2>&1)
expect_match "stdin" "$out" "power-throttle"

# Time order: an older log appended, or a reversed log: the records that go
# back in time are skipped and counted, the first one's line named.
# healthy, its times moved to the year 2000 (both were recorded at once), appended to straggler
{ cat "$T/straggler.jsonl"; sed -E 's/^\{"timestamp":"([0-9]{4})/{"timestamp":"2000/' "$T/healthy.jsonl"; } > "$T/appended.jsonl"
n1=$(wc -l < "$T/straggler.jsonl"); n2=$(wc -l < "$T/healthy.jsonl")
"$GPUMON" diagnose "$T/appended.jsonl" --format json > "$T/out" 2> "$T/err"; rc=$?
expect_eq "appended: exit" "$rc" 0
expect_match "appended: warning" "$(cat "$T/err")" "appended.jsonl: $n2 records were skipped: their time goes back \(the first at line $((n1 + 1)), "
tac "$T/healthy.jsonl" > "$T/reversed.jsonl"
"$GPUMON" diagnose "$T/reversed.jsonl" > /dev/null 2> "$T/err"
expect_match "reversed: warning" "$(cat "$T/err")" "$((n2 - 1)) records were skipped: .*the first at line 2,"
# Out-of-range values are malformed, not merged or misread.
line=$(head -1 "$T/healthy.jsonl")
bad_value() {  # bad_value WHAT SED-EXPRESSION REGEX
  printf '%s\n' "$line" | sed "$2" > "$T/v.jsonl"
  "$GPUMON" diagnose "$T/v.jsonl" > /dev/null 2> "$T/err"; local rc=$?
  expect_eq "$1: exit" "$rc" 1
  expect_match "$1: message" "$(cat "$T/err")" "$3"
}
bad_value "index 2^32" 's/"index":0/"index":4294967296/' '"index" 4294967296 is out of range \(0 to 65535\)'
bad_value "index -1" 's/"index":0/"index":-1/' '"index" -1 is out of range'
bad_value "1e400" 's/"power.draw":[0-9.]*/"power.draw":1e400/' '"power.draw" is out of range'
bad_value "2^60" 's/"memory.used":[0-9]*/"memory.used":1152921504606846976/' '"memory.used" is out of range'
bad_value "fraction" 's/"memory.used":[0-9]*/"memory.used":1.5/' '"memory.used" is not a whole number'
bad_value "P99" 's/"pstate":"P[0-9]*"/"pstate":"P99"/' '"pstate" is not a P-state'
# the same GPU twice in one record
"$PY" -c 'import json,sys; r=json.loads(sys.argv[1]); r["gpus"].append(dict(r["gpus"][0])); print(json.dumps(r))' \
  "$line" > "$T/v.jsonl"
"$GPUMON" diagnose "$T/v.jsonl" > /dev/null 2> "$T/err"; expect_eq "repeated index: exit" "$?" 1
expect_match "repeated index: message" "$(cat "$T/err")" "gpus\[[0-9]+\] repeats the index 0 of gpus\[0\]"
# Not a JSON Lines log: say what it looks like.
gp watch --once --format csv > "$T/log.csv" 2>/dev/null
"$GPUMON" diagnose "$T/log.csv" > "$T/out" 2> "$T/err"; expect_eq "CSV log: exit" "$?" 1
expect_match "CSV log: hint" "$(cat "$T/err")" "this looks like CSV"
expect_eq "CSV log: no timeline header before the error" "$(cat "$T/out")" ""
: > "$T/empty.jsonl"
expect_eq "empty log" "$("$GPUMON" diagnose "$T/empty.jsonl" 2>&1)" "The log holds no records."

# Options.
"$GPUMON" diagnose > /dev/null 2> "$T/err"; expect_eq "no log exit" "$?" 2
expect_match "no log message" "$(cat "$T/err")" "give the log to read"
"$GPUMON" diagnose "$T/healthy.jsonl" --threshold nope=1 > /dev/null 2> "$T/err"; expect_eq "bad threshold" "$?" 2
expect_match "bad threshold message" "$(cat "$T/err")" "unknown threshold \"nope\""
"$GPUMON" diagnose "$T/healthy.jsonl" --window 0 > /dev/null 2>&1; expect_eq "bad window" "$?" 2
"$GPUMON" diagnose "$T/healthy.jsonl" --format xml > /dev/null 2>&1; expect_eq "bad format" "$?" 2
"$GPUMON" diagnose /nonexistent.jsonl > /dev/null 2> "$T/err"; expect_eq "missing log" "$?" 1
rules=$("$GPUMON" diagnose --list-rules --threshold healthy.util=75)
for r in healthy input-bound-cpu input-bound-io small-batch memory-pressure oom tf-prealloc thermal-throttle \
         power-throttle straggler stalled gpu-lost xid-critical; do
  expect_match "--list-rules lists $r" "$rules" "  $r "
done
expect_match "--list-rules shows a changed threshold" "$rules" "healthy.util +75 "
help=$("$GPUMON" diagnose --help)
for opt in --format --window --threshold --list-rules; do expect_match "diagnose --help: $opt" "$help" -- "$opt"; done
done_tests
