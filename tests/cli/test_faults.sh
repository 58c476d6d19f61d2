# Faults survived by watch: a hung NVML call (the gap is reported, sampling
# goes on) and a full disk (one clear error, records kept in memory, written
# when space returns, no partial line, no sample lost). The disk is "full"
# through a soft file size limit (ulimit -S -f), lifted from outside with prlimit.
. "$(dirname "$0")/lib.sh"

# --- hung NVML call -------------------------------------------------------
hang_at=$(awk '$1 == "at" && $3 == "hang" {print $2; exit}' "$SCN/hang.scn")
hang_s=$(awk '$1 == "at" && $3 == "hang" {print $5; exit}' "$SCN/hang.scn")
GPUMON_SIM_START=$((hang_at - 1)) GPUMON_SIM_SCENARIO="$SCN/hang.scn" timeout $((hang_s + 6)) \
  "$GPUMON" watch --nvml "$SIM" --interval 250ms --format jsonl -o "$T/hang.jsonl" 2> "$T/hang.err"
expect_match "the gap is reported" "$(cat "$T/hang.err")" "a sample took (9|10)\.[0-9] s .*NVML call was slow or hung"
pycheck "$T/hang.jsonl" "
from datetime import datetime
ts = [datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ') for r in recs]
gaps = [(b - a).total_seconds() for a, b in zip(ts, ts[1:])]
big = [g for g in gaps if g > 1]
assert len(big) == 1 and $hang_s - 1 < big[0] < $hang_s + 1, big
after = gaps[gaps.index(big[0]) + 1:]
assert len(after) >= 8 and max(after) < 0.6, after   # sampling went on at its interval
"

# --- full disk ------------------------------------------------------------
command -v prlimit > /dev/null || { fail "prlimit (util-linux) is missing"; done_tests; exit 1; }
( ulimit -S -f 16; exec "$GPUMON" watch --nvml "$SIM" --interval 20ms --format jsonl -o "$T/full.jsonl" ) \
  2> "$T/full.err" &
pid=$!
sleep 1.5
size=$(stat -c %s "$T/full.jsonl")
[ "$size" -le 16384 ] && ok || fail "file size under the limit: got $size, expected <= 16384"
expect_match "one clear error" "$(cat "$T/full.err")" "cannot write to .*full.jsonl: File too large; keeping records"
expect_eq "reported once" "$(grep -c 'cannot write' "$T/full.err")" 1
expect_eq "still running" "$(kill -0 $pid 2>/dev/null && echo yes)" yes
prlimit --pid $pid --fsize=unlimited
sleep 1
kill -TERM $pid; wait $pid; rc=$?
expect_eq "exit after SIGTERM" "$rc" 0
expect_match "writing resumed" "$(cat "$T/full.err")" "writing to .*full.jsonl again: delayed records written"
pycheck "$T/full.jsonl" "
from datetime import datetime
assert open(sys.argv[1]).read().endswith('\n'), 'last line complete'
ts = [datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ') for r in recs]
gaps = [(b - a).total_seconds() for a, b in zip(ts, ts[1:])]
assert len(recs) > 80, len(recs)
assert all(0 < g < 0.2 for g in gaps), max(gaps)   # every 20 ms sample is there, in order
"
done_tests
