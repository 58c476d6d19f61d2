# Compressed logs: -o FILE.zst writes zstd flushed per record; diagnose and
# report read .zst (and compressed standard input) as they read plain logs;
# kill -9 loses at most the record being written; rotation ends a frame;
# damaged data, a directory and a hostile endless line are refused by name,
# the last without reading it into memory.
. "$(dirname "$0")/lib.sh"
SCENARIO="$SCN/input-bound.scn"

# 40 records 1 s apart of the scenario, played 20x fast (records carry the scenario's time)
GPUMON_SIM_SPEED=20 gp watch --interval 1s --count 40 --format jsonl --output "$T/a.jsonl.zst" 2>/dev/null
expect_eq "watch .zst: exit" "$?" 0
zstd -t -q "$T/a.jsonl.zst" && ok || fail "watch .zst: not a complete zstd file"
zstd -dcq "$T/a.jsonl.zst" > "$T/a.jsonl"
expect_eq "watch .zst: records" "$(wc -l < "$T/a.jsonl")" 40
pycheck "$T/a.jsonl" 'assert len(recs) == 40 and all(len(r["gpus"]) == 1 for r in recs)'
plain=$(stat -c %s "$T/a.jsonl"); packed=$(stat -c %s "$T/a.jsonl.zst")
[ "$packed" -lt $((plain / 4)) ] && ok || fail "compression: $packed bytes for $plain plain"

# diagnose and report: the same answer from the compressed log, from a pipe, and from plain text.
"$GPUMON" diagnose "$T/a.jsonl" --window 100s > "$T/d.plain" 2>&1
"$GPUMON" diagnose "$T/a.jsonl.zst" --window 100s > "$T/d.zst" 2>&1; expect_eq "diagnose .zst: exit" "$?" 0
"$GPUMON" diagnose - --window 100s < "$T/a.jsonl.zst" > "$T/d.stdin" 2>&1; expect_eq "diagnose compressed stdin" "$?" 0
expect_eq "diagnose .zst = plain" "$(cat "$T/d.zst")" "$(cat "$T/d.plain")"
expect_eq "diagnose compressed stdin = plain" "$(cat "$T/d.stdin")" "$(cat "$T/d.plain")"
"$GPUMON" report "$T/a.jsonl.zst" -o "$T/a.html" > /dev/null 2>&1; expect_eq "report .zst: exit" "$?" 0
grep -q "<svg" "$T/a.html" && ok || fail "report .zst: no chart"

# run --output .zst
GPUMON_SIM_SPEED=20 GPUMON_SIM_SCENARIO="$SCENARIO" "$GPUMON" run --nvml "$SIM" --interval 1s --output "$T/run.jsonl.zst" \
  -- sleep 1 > /dev/null 2>&1
expect_eq "run .zst: exit" "$?" 0
zstd -t -q "$T/run.jsonl.zst" && ok || fail "run .zst: not a complete zstd file"
n=$(zstd -dcq "$T/run.jsonl.zst" | wc -l); [ "$n" -ge 10 ] && ok || fail "run .zst: $n records"

# kill -9: every finished record is readable; the end is a warning, not an error.
GPUMON_SIM_SCENARIO="$SCENARIO" "$GPUMON" watch --nvml "$SIM" --interval 10ms --format jsonl \
  --output "$T/k.jsonl.zst" 2>/dev/null &
pid=$!
wait_for "20 records" '[ "$(zstd -dcq "$T/k.jsonl.zst" 2> /dev/null | wc -l)" -ge 20 ]'
kill -9 $pid; wait $pid 2>/dev/null
n=$(zstd -dcq "$T/k.jsonl.zst" 2>/dev/null | wc -l)
[ "$n" -ge 20 ] && ok || fail "kill -9: only $n records readable"
"$GPUMON" diagnose "$T/k.jsonl.zst" --format json > "$T/k.json" 2> "$T/k.err"; rc=$?
expect_eq "diagnose after kill -9: exit" "$rc" 0
expect_match "diagnose after kill -9: warning" "$(cat "$T/k.err")" "ends inside a zstd frame"
"$PY" - "$T/k.json" "$n" <<'PYEOF' && ok || fail "diagnose after kill -9 did not read every finished record"
import json, sys
d = json.load(open(sys.argv[1]))
got = max(g["samples"] for g in d["gpus"])
assert got == int(sys.argv[2]), (got, sys.argv[2])
PYEOF

# SIGHUP rotation: the old file's frame is ended, the new file starts its own.
GPUMON_SIM_SCENARIO="$SCENARIO" "$GPUMON" watch --nvml "$SIM" --interval 20ms --format jsonl \
  --output "$T/r.jsonl.zst" 2>/dev/null &
pid=$!
wait_for "records before the rotation" '[ "$(zstd -dcq "$T/r.jsonl.zst" 2> /dev/null | wc -l)" -ge 3 ]'
mv "$T/r.jsonl.zst" "$T/r.jsonl.zst.1"; kill -HUP $pid
wait_for "records after it" '[ "$(zstd -dcq "$T/r.jsonl.zst" 2> /dev/null | wc -l)" -ge 3 ]'
kill -TERM $pid; wait $pid
zstd -t -q "$T/r.jsonl.zst.1" && ok || fail "rotation: the old file's frame was not ended"
zstd -t -q "$T/r.jsonl.zst" && ok || fail "rotation: the new file is not complete zstd"
# appending to an existing .zst adds a frame; the whole file reads on
gp watch --once --format jsonl --output "$T/r.jsonl.zst" 2>/dev/null
a=$(zstd -dcq "$T/r.jsonl.zst" | wc -l); b=$("$GPUMON" diagnose "$T/r.jsonl.zst" --format json | "$PY" -c \
  'import json,sys; print(max(g["samples"] for g in json.load(sys.stdin)["gpus"]))')
expect_eq "append: a second frame reads on" "$b" "$a"

# Damaged data, a directory, a hostile line.
cp "$T/a.jsonl.zst" "$T/bad.zst"
printf '\377\377\377\377\377\377\377\377' | dd of="$T/bad.zst" bs=1 seek=200 conv=notrunc 2>/dev/null
"$GPUMON" diagnose "$T/bad.zst" > /dev/null 2> "$T/err"; rc=$?
expect_eq "damaged .zst: exit" "$rc" 1
expect_match "damaged .zst: message" "$(cat "$T/err")" "bad.zst.*(damaged|not JSON|malformed|wrong type|incomplete)"
# damage far into a log is placed near where it is (it used to be "near byte 0"): between the last
# byte that decoded and the end of a 4 KiB slice
GPUMON_SIM_SPEED=20 gp watch --interval 1s --count 200 --format jsonl --output "$T/long.jsonl.zst" 2> /dev/null
size=$(stat -c %s "$T/long.jsonl.zst")
[ "$size" -gt 12000 ] && ok || fail "a 200-record compressed log of $size bytes: too small to damage at 10000"
cp "$T/long.jsonl.zst" "$T/far.zst"
printf '\377\377\377\377\377\377\377\377' | dd of="$T/far.zst" bs=1 seek=10000 conv=notrunc 2>/dev/null
"$GPUMON" diagnose "$T/far.zst" > /dev/null 2> "$T/err"; expect_eq "damage at byte 10000: exit" "$?" 1
# (or, where the damaged bytes still decode, as with zstd 1.4.8's blocks in Debian 11, the line they spoil:
# one far into the log, not the first)
range=$(sed -n 's/.*damaged between bytes \([0-9]*\) and \([0-9]*\).*/\1 \2/p' "$T/err")
line=$(sed -n 's/.*far\.zst:\([0-9]*\): not JSON.*/\1/p' "$T/err")
if [ -z "$range" ] && [ -n "$line" ]; then
  [ "$line" -gt 20 ] && ok || fail "damage at byte 10000 decoded into line $line: $(cat "$T/err")"
else
  "$PY" -c 'import sys; a, b = map(int, sys.argv[1:3]); assert a <= 10000 < b and a > 0 and b - a <= 8192, (a, b)' $range \
    && ok || fail "damage at byte 10000 placed at bytes '$range': $(cat "$T/err")"
fi
"$GPUMON" diagnose "$T" > /dev/null 2> "$T/err"; expect_eq "a directory: exit" "$?" 1
expect_match "a directory: message" "$(cat "$T/err")" "is a directory"
"$PY" -c 'import sys; sys.stdout.buffer.write(b"{" + b" " * 200_000_000)' 2>/dev/null |
  /usr/bin/time -f %M -o "$T/rss" "$GPUMON" diagnose - > /dev/null 2> "$T/err"
expect_match "endless line: message" "$(cat "$T/err")" "longer than 16 MiB"
# read whole, the line alone would take 200 MB (sanitizer builds start near 60 MB)
rss=$(tail -1 "$T/rss"); [ "$rss" -lt 150000 ] && ok || fail "endless line: read into memory (peak RSS $rss KiB)"
done_tests
