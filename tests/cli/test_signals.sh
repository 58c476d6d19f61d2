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
expect_eq "new file starts with a header" "$(head -1 "$T/rot.csv")" "timestamp,hostname,utilization.gpu"
"$PY" - "$T/rot.csv.1" "$T/rot.csv" <<'PYEOF' && ok || fail "rotation lost or tore samples"
import sys, datetime
stamps = []
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    assert lines[-1] == "", "torn last line in " + path
    assert lines[0] == "timestamp,hostname,utilization.gpu"
    for l in lines[1:-1]:
        ts, host, util = l.split(",")
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

# A reader that goes away (| head) ends gpumon quietly.
out=$(gp watch --interval 10ms --format csv 2>"$T/err" | head -3)
expect_eq "head -3 lines" "$(printf '%s\n' "$out" | wc -l)" 3
expect_eq "no error when the pipe closes" "$(grep -v 'simulated GPUs' "$T/err")" ""
done_tests
