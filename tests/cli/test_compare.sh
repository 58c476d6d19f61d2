#!/usr/bin/env bash
# gpumon compare A B and gpumon run --baseline: logs of a training loop (examples/train_loop.py, the
# bundled Python helper marking each step) under gpumon run on simulated GPUs fast-played 5x. The
# same job twice comes out "no clear change"; a loop whose input wait went from 40% to 0% comes out
# "1.7x faster, input wait 40% -> 0%" (1/(1-0.4)), and the other way round "1.7x slower, input wait
# 0% -> 40%"; the JSON holds the same; logs without steps compare on their GPUs' activity; bad input
# says why. The loop paces its steps by deadlines, so a loaded machine does not move their median.
. "$(dirname "$0")/lib.sh"
LOOP="$SRC/examples/train_loop.py"
export GPUMON_SIM_SPEED=5 PYTHONPATH="$SRC/python${PYTHONPATH:+:$PYTHONPATH}"
# loop LOG WAIT_MS: 100 steps of 24 ms compute (wall; 120 ms of the scenario) after WAIT_MS of input wait
loop() {
  "$GPUMON" run --nvml "$SIM" --scenario healthy --interval 1s -o "$T/$1" -- \
    "$PY" "$LOOP" --steps 100 --wait-ms "$2" --compute-ms 24 --quiet 2> "$T/$1.err" ||
    fail "the loop for $1 failed: $(tail -3 "$T/$1.err")"
}
# jget FILE EXPR: a value of gpumon compare's JSON in FILE
jget() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# the same job twice, side by side: whatever else loads the machine loads both alike (one after the
# other, a neighbour's burst could make one run's loop genuinely wait more, and compare would rightly
# say so)
loop a1.jsonl 16 &
loop a2.jsonl 16
wait
loop b.jsonl 0

# the same job twice
out=$("$GPUMON" compare "$T/a1.jsonl" "$T/a2.jsonl"); rc=$?
expect_eq "same job twice: status" "$rc" 0
expect_match "same job twice: summary" "$out" "Summary: step time: no clear change"
expect_match "same job twice: step time p50" "$out" "step time p50 .* no clear change"
expect_match "same job twice: input wait" "$out" "input wait +(3[0-9]|4[0-9])% +(3[0-9]|4[0-9])% .* no clear change"
"$GPUMON" compare --format json "$T/a1.jsonl" "$T/a2.jsonl" > "$T/same.json"
expect_eq "same job twice (json): step p50" "$(jget "$T/same.json" 'd["change"]["step_p50_s"]["verdict"]')" \
  "no clear change"
expect_eq "same job twice (json): input wait" \
  "$(jget "$T/same.json" 'd["change"]["input_wait_share"]["verdict"]')" "no clear change"
expect_eq "same job twice (json): steps" "$(jget "$T/same.json" '(d["a"]["steps"], d["b"]["steps"])')" "(100, 100)"

# 40% -> 0% of the loop's time waiting for input, both ways round
out=$("$GPUMON" compare "$T/a1.jsonl" "$T/b.jsonl")
expect_match "wait removed: summary" "$out" "Summary: 1\.[67]x faster, input wait (3[0-9]|4[0-9])% -> [0-2]%"
expect_match "wait removed: step time p50" "$out" "step time p50 .* 0\.(59|60|61)x .* better"
expect_match "wait removed: steps/s" "$out" "steps/s .* better"
expect_match "wait removed: the ledger's input wait" "$out" "time: input wait .* better"
expect_no_match "wait removed: causes neither run had are left out" "$out" "time: lost"
out=$("$GPUMON" compare "$T/b.jsonl" "$T/a1.jsonl")
expect_match "wait added: summary" "$out" "Summary: 1\.[67]x slower, input wait [0-2]% -> (3[0-9]|4[0-9])%"
expect_match "wait added: input wait" "$out" "input wait .* worse"
"$GPUMON" compare -f json "$T/a1.jsonl" "$T/b.jsonl" > "$T/fix.json"
"$PY" - "$T/fix.json" <<'PYEOF' && ok || fail "compare --format json: $(cat "$T/fix.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"a", "b", "change", "summary"}, d.keys()
for k in ("duration_s", "steps_per_s", "step_p50_s", "step_p95_s", "input_wait_share", "utilization",
          "sm_active", "tensor_active", "energy_per_step_j", "ledger_compute", "ledger_input_wait",
          "ledger_throttled", "ledger_startup", "ledger_pause", "ledger_stalled", "ledger_idle", "ledger_lost"):
    c = d["change"][k]
    assert {"a", "b", "ratio", "verdict"} <= set(c), (k, c)
    assert d["a"][k] == c["a"] and d["b"][k] == c["b"], k
p50 = d["change"]["step_p50_s"]
assert p50["verdict"] == "better" and 0.55 < p50["ratio"] < 0.65, p50
assert p50["interval"][0] <= p50["ratio"] <= p50["interval"][1], p50
w = d["change"]["input_wait_share"]
assert w["verdict"] == "better" and 30 <= w["a"] < 50 and w["b"] < 2 and w["difference"] < -36, w
lw = d["change"]["ledger_input_wait"]
assert lw["verdict"] == "better" and lw["a"] > 20 and lw["b"] < 2, lw   # the ledger's share of GPU time too
assert abs(sum(d["a"]["ledger_" + c] for c in ("compute", "input_wait", "throttled", "startup", "pause", "stalled",
                                               "idle", "lost")) - 100) < 1, d["a"]
assert d["summary"].startswith("1.6x faster") or d["summary"].startswith("1.7x faster"), d["summary"]
assert d["a"]["log"].endswith("a1.jsonl") and d["a"]["gpus"] == 2, d["a"]
PYEOF

# run --baseline: the comparison after the summary
out=$("$GPUMON" run --nvml "$SIM" --scenario healthy --interval 1s --baseline "$T/a1.jsonl" -- \
  "$PY" "$LOOP" --steps 60 --wait-ms 0 --compute-ms 24 --quiet 2>&1); rc=$?
expect_eq "run --baseline: status" "$rc" 0
expect_match "run --baseline: heading" "$out" "Against the baseline:"
expect_match "run --baseline: summary" "$out" "Summary: 1\.[67]x faster, input wait (3[0-9]|4[0-9])% -> [0-2]%"
expect_match "run --baseline: other work, no duration verdict" "$out" "duration .* not comparable"
out=$("$GPUMON" run --nvml "$SIM" --baseline "$T/nope.jsonl" -- touch "$T/ran" 2>&1); rc=$?
expect_eq "run --baseline missing: status" "$rc" 1
expect_match "run --baseline missing: message" "$out" "nope.jsonl"
[ -e "$T/ran" ] && fail "run --baseline missing: the command ran" || ok

# logs without steps: the GPUs' activity decides (a healthy scenario against an input-bound one)
GPUMON_SIM_SPEED=50 gp watch --scenario healthy --format jsonl --interval 2s --count 40 > "$T/healthy.jsonl" 2>/dev/null
GPUMON_SIM_SPEED=50 gp watch --scenario input-bound --format jsonl --interval 2s --count 40 > "$T/starved.jsonl" 2>/dev/null
out=$("$GPUMON" compare "$T/healthy.jsonl" "$T/starved.jsonl")
expect_match "no steps: step figures" "$out" "step time p50 .* not measured in both"
expect_match "no steps: utilization" "$out" "utilization .* worse"
expect_match "no steps: summary" "$out" "Summary: utilization [0-9]+% -> [0-9]+%"
out=$("$GPUMON" compare "$T/healthy.jsonl" "$T/healthy.jsonl")
expect_match "a log against itself" "$out" "Summary: no clear change"
gp watch --format jsonl --count 2 > "$T/two.jsonl" 2>/dev/null
out=$("$GPUMON" compare "$T/two.jsonl" "$T/healthy.jsonl")
expect_match "two records: too few to judge" "$out" "too few records to judge"

# bad input
for args in "" "$T/a1.jsonl" "$T/a1.jsonl $T/a2.jsonl $T/b.jsonl" "- -" "--format xml $T/a1.jsonl $T/b.jsonl"; do
  "$GPUMON" compare $args > /dev/null 2> "$T/err" < /dev/null; rc=$?
  expect_eq "compare $args: usage status" "$rc" 2
done
"$GPUMON" compare "$T/nope.jsonl" "$T/a1.jsonl" 2> "$T/err"; rc=$?
expect_eq "missing log: status" "$rc" 1
expect_match "missing log: message" "$(cat "$T/err")" "nope.jsonl"
: > "$T/empty.jsonl"
"$GPUMON" compare "$T/a1.jsonl" "$T/empty.jsonl" 2> "$T/err"; rc=$?
expect_eq "empty log: status" "$rc" 1
expect_match "empty log: message" "$(cat "$T/err")" "empty.jsonl holds no records"
{ head -3 "$T/a1.jsonl"; echo '{"timestamp": oops'; tail -2 "$T/a1.jsonl"; } > "$T/bad.jsonl"
"$GPUMON" compare "$T/bad.jsonl" "$T/a1.jsonl" 2> "$T/err"; rc=$?
expect_eq "malformed line: status" "$rc" 1
expect_match "malformed line: its number" "$(cat "$T/err")" "bad.jsonl:4: "
out=$("$GPUMON" compare - "$T/a2.jsonl" < "$T/a1.jsonl"); rc=$?
expect_eq "standard input as A: status" "$rc" 0
expect_match "standard input as A" "$out" "Summary: step time: no clear change"
done_tests
