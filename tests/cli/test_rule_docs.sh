#!/usr/bin/env bash
# The rules' documentation is the rule table: docs/rules.md and man/gpumon.1 hold what
# `gpumon diagnose --list-rules --format markdown|man` prints (scripts/rule-docs --check), and a
# change on either side is caught; the formats' options.
. "$(dirname "$0")/lib.sh"
out=$("$PY" "$SRC/scripts/rule-docs" --check "$GPUMON" 2>&1); rc=$?
expect_eq "docs/rules.md and man/gpumon.1 match the rule table (scripts/rule-docs rewrites them): $out" "$rc" 0
# the check can fail: a copy of the tree with a rule's words changed, and one with a threshold's default
mkdir -p "$T/tree/docs" "$T/tree/man"
sed 's/the GPU fell off the bus/the GPU fell off a cliff/' "$SRC/docs/rules.md" > "$T/tree/docs/rules.md"
cp "$SRC/man/gpumon.1" "$T/tree/man/gpumon.1"
out=$(RULE_DOCS_ROOT="$T/tree" "$PY" "$SRC/scripts/rule-docs" --check "$GPUMON" 2>&1); rc=$?
expect_eq "an edited docs/rules.md: --check fails" "$rc" 1
expect_match "an edited docs/rules.md: the diff" "$out" "^\+.*the GPU fell off the bus"
cp "$SRC/docs/rules.md" "$T/tree/docs/rules.md"
sed 's/^\\fBhealthy\.util\\fR 70%$/\\fBhealthy.util\\fR 75%/' "$SRC/man/gpumon.1" > "$T/tree/man/gpumon.1"
cmp -s "$SRC/man/gpumon.1" "$T/tree/man/gpumon.1" && fail "the man page's healthy.util line was not found" || ok
out=$(RULE_DOCS_ROOT="$T/tree" "$PY" "$SRC/scripts/rule-docs" --check "$GPUMON" 2>&1); rc=$?
expect_eq "an edited man page: --check fails" "$rc" 1
expect_match "an edited man page: named" "$out" "man/gpumon.1"
# rewriting puts the table back
RULE_DOCS_ROOT="$T/tree" "$PY" "$SRC/scripts/rule-docs" "$GPUMON" > /dev/null
expect_eq "rule-docs rewrites the man page" "$(cmp -s "$SRC/man/gpumon.1" "$T/tree/man/gpumon.1"; echo $?)" 0
# a changed threshold shows in every format
for f in text markdown man; do
  expect_match "--list-rules --format $f shows a changed threshold" \
    "$("$GPUMON" diagnose --list-rules --format $f --threshold oom.memory=91)" "oom\.memory[^0-9]*91"
done
"$GPUMON" diagnose --list-rules --format json > /dev/null 2>&1; expect_eq "--list-rules --format json: usage" "$?" 2
"$GPUMON" diagnose --format man "$T/none.jsonl" > /dev/null 2>"$T/err"; expect_eq "--format man without --list-rules" "$?" 2
expect_match "--format man without --list-rules: said" "$(cat "$T/err")" "goes with --list-rules"
done_tests
