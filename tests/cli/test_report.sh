# gpumon report: one self-contained HTML file with SVG charts per GPU,
# verdicts and advice; a 24-hour log stays small with its extremes kept;
# the page opens in headless Chromium with no console message, the charts
# are in the DOM, and a screenshot is kept in the build directory.
. "$(dirname "$0")/lib.sh"

# two minutes of the scenario, played 20x fast in 6 s, judged with the default window
GPUMON_SIM_SPEED=20 "$GPUMON" watch --scenario straggler --format jsonl --interval 2s --count 60 \
  > "$T/s.jsonl" 2>/dev/null
"$GPUMON" report "$T/s.jsonl" -o "$T/s.html" > "$T/out" 2> "$T/err"; rc=$?
expect_eq "report exit" "$rc" 0
expect_eq "report: nothing on stdout" "$(cat "$T/out")" ""
expect_match "report says what it wrote" "$(cat "$T/err")" "^gpumon report: wrote .*/s.html \([0-9.]+ kB, 8 GPUs\)$"
html=$(cat "$T/s.html")
expect_eq "charts: one per metric, the 8 GPUs overlaid (H100s: with SM and tensor activity)" \
  "$(grep -o '<svg class="chart"' "$T/s.html" | wc -l)" 7
for key in utilization.gpu gpm.sm_active gpm.tensor_active memory.used temperature.gpu power.draw clocks.sm; do
  expect_eq "chart of $key, all GPUs in it" "$(grep -o "data-series=\"$key\" data-gpus=\"8\"" "$T/s.html" | wc -l)" 1
done
expect_eq "chart: a line per GPU" "$(sed -n '/data-series="utilization.gpu"/,/<\/svg>/p' "$T/s.html" | grep -o '<title>GPU [0-7]</title>' | sort -u | wc -l)" 8
# the headline: the ledger (a bar for the job and one per GPU, its table), the verdicts grouped, the GPUs' table
expect_match "headline first: ledger, verdicts, GPUs, then the charts" "$(grep -o '<section id="[a-z]*"' "$T/s.html" | tr '\n' ' ')" \
  '^<section id="ledger" <section id="verdicts" <section id="gpus" <section id="charts" $'
expect_eq "ledger: a bar for the job and one per GPU" "$(grep -o '<rect[^>]*data-cause="compute"' "$T/s.html" | wc -l)" 9
expect_match "ledger: its table" "$html" '<tr data-cause="compute">.*<td>compute</td><td>[0-9.]+ GPU-min</td><td>100.0%</td>'
expect_match "straggler verdict, its GPU named, with advice" "$html" \
  'data-rule="straggler"><b>GPU 5</b> warning straggler: .*Advice: In data-parallel training'
expect_match "the others' verdict once" "$html" 'data-rule="healthy"><b>GPUs 0-4,6-7</b> ok healthy'
expect_eq "GPUs: a row each" "$(grep -o '<tr><td>[0-7]</td><td>NVIDIA H100 80GB HBM3</td>' "$T/s.html" | wc -l)" 8
expect_match "verdict marked on the time axis" "$html" '<line class="mark warning"[^>]*><title>straggler starts'
# Self-contained: no external resource of any kind.
expect_no_match "no external scripts, styles, fonts or images" "$html" \
  '<script[^>]+src=|<link |@import|url\(|<img |https?://[^"]*"[^>]*(src|href)='
expect_no_match "no links out" "$html" 'href="http'

# A 24-hour, 10 s log (8,640 records, one GPU): small, and one spike survives downsampling.
"$PY" - "$T/day.jsonl" <<'PYEOF'
import sys, datetime
t0 = datetime.datetime(2026, 1, 1)
tpl = ('{"timestamp":"%s","hostname":"n","gpus":[{"index":0,"name":"NVIDIA H200","state":"ok",'
       '"utilization.gpu":%d,"utilization.gpu.idle_share":%.1f,"memory.used":%d,"memory.total":143771,'
       '"temperature.gpu":%d,"power.draw":%.2f,"enforced.power.limit":700.0,"clocks.sm":1980,'
       '"clocks.max.sm":1980,"clocks_event_reasons.active":%d,"processes.count":1}]}\n')
with open(sys.argv[1], "w") as f:
    for i in range(8640):
        t = (t0 + datetime.timedelta(seconds=10 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        hot = 4000 <= i < 4100
        f.write(tpl % (t, 90 if i % 7 else 2, 0 if i % 7 else 100, 50000, 99 if i == 6000 else (85 if hot else 60),
                       500, 0x20 if hot else 0))
PYEOF
"$GPUMON" report "$T/day.jsonl" -o "$T/day.html" > /dev/null 2>&1; rc=$?
expect_eq "24 h report exit" "$rc" 0
size=$(stat -c %s "$T/day.html")
[ "$size" -lt 250000 ] && ok || fail "24 h report is $size bytes, expected under 250 kB"
"$PY" - "$T/day.html" <<'PYEOF' && ok || fail "24 h report: buckets, spike, shading"
import re, sys
h = open(sys.argv[1]).read()
temp = re.search(r'data-series="temperature.gpu".*?</svg>', h, re.S).group(0)
pts = re.findall(r'<polyline class="mean" points="([^"]*)"', temp)
n = sum(len(p.split()) for p in pts)
assert 400 <= n <= 800, n                       # between half and all of the 800 buckets
assert '>100</text>' in temp, "the one 99 C sample sets the axis (kept by the min/max band)"
assert 'class="thr"' in temp, "the throttled stretch is shaded"
assert 'Each point summarizes' in h
assert 'data-series="gpm.sm_active"' not in h, "no GPM in the log: no empty GPM charts"
PYEOF

# Headless Chromium: no console message, charts in the DOM, a screenshot.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium is not installed (scripts/deps.sh installs it); browser checks not run"
else
  flags=(--headless --disable-gpu --no-sandbox --no-first-run --disable-extensions --user-data-dir="$T/chrome")
  timeout 120 "$CHROMIUM" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$T/s.html" \
    > "$T/dom.html" 2> "$T/chrome.log"
  expect_match "DOM: the in-page check counted the charts" "$(cat "$T/dom.html")" 'data-charts="7"'
  expect_match "DOM: check text" "$(cat "$T/dom.html")" 'charts rendered: 7'
  expect_eq "no console messages" "$(grep ':CONSOLE' "$T/chrome.log")" ""
  # the page's height in Chromium, against the per-GPU layout before the headline and the overlaid charts:
  # 10,216 px for this 8-GPU straggler log (measured on a screenshot of the earlier build, 1000 px wide);
  # now at most a third of it
  height=$(sed -n 's/.*data-height="\([0-9]*\)".*/\1/p' "$T/dom.html" | head -1)
  [ -n "$height" ] && [ "$height" -le 3405 ] && ok || fail "8-GPU report height ${height:-unknown} px, expected at most 3405 (a third of 10216)"
  echo "8-GPU report height: ${height:-unknown} px (the per-GPU layout's: 10216)"
  shot="$BUILD/report-screenshot.png"
  rm -f "$shot"
  timeout 120 "$CHROMIUM" "${flags[@]}" --screenshot="$shot" --window-size=1000,2400 "file://$T/s.html" \
    > /dev/null 2>&1
  [ -s "$shot" ] && ok || fail "no screenshot at $shot"
  echo "screenshot: $shot"
fi

"$GPUMON" report "$T/s.jsonl" > /dev/null 2> "$T/err"; expect_eq "report without -o" "$?" 2
expect_match "report without -o message" "$(cat "$T/err")" "give the file to write with -o"
"$GPUMON" report "$T/s.jsonl" -o /nonexistent/dir/r.html > /dev/null 2> "$T/err"; expect_eq "unwritable" "$?" 1

# What is at the path decides how the report is written: a regular file is
# replaced atomically (mode kept), a link's target is replaced (the link
# stays), a device or a FIFO with a reader is written through, never
# replaced; a full device, a FIFO nobody reads and a directory are errors.
rep() { "$GPUMON" report "$T/s.jsonl" -o "$1" > /dev/null 2> "$T/err"; }
echo old > "$T/keep.html"; chmod 640 "$T/keep.html"
rep "$T/keep.html"; expect_eq "over a file: exit" "$?" 0
expect_eq "over a file: mode kept" "$(stat -c %a "$T/keep.html")" 640
grep -q "<svg" "$T/keep.html" && ok || fail "over a file: not replaced"
ln -s keep.html "$T/link.html"
rep "$T/link.html"; expect_eq "through a link: exit" "$?" 0
[ -L "$T/link.html" ] && ok || fail "the link was replaced by a file"
rep /dev/null; expect_eq "/dev/null: exit" "$?" 0
[ -c /dev/null ] && ok || fail "/dev/null is no longer a device"
if [ -c /dev/full ]; then
  rep /dev/full; expect_eq "/dev/full: exit" "$?" 1
  expect_match "/dev/full: message" "$(cat "$T/err")" "cannot write /dev/full: No space left on device"
  [ -c /dev/full ] && ok || fail "/dev/full is no longer a device"
fi
mkfifo "$T/fifo"
rep "$T/fifo"; expect_eq "FIFO nobody reads: exit" "$?" 1
expect_match "FIFO nobody reads: message" "$(cat "$T/err")" "FIFO that nothing reads"
[ -p "$T/fifo" ] && ok || fail "the FIFO was replaced"
# the reader holds the FIFO open before the report starts (a cat in the background might not have opened
# it yet), and reads until the writer is done
"$PY" - "$T/fifo" "$T/fifo.out" <<'PYEOF' & reader=$!
import errno, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
open(sys.argv[2] + ".ready", "w").close()
got = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except BlockingIOError:
        chunk = None
    if chunk:
        got += chunk
    elif chunk == b"" and got:
        break   # the writer closed it
    else:
        time.sleep(0.01)
open(sys.argv[2], "wb").write(got)
PYEOF
wait_for "the FIFO's reader" '[ -e "$T/fifo.out.ready" ]'
rep "$T/fifo"; expect_eq "FIFO with a reader: exit" "$?" 0
wait $reader; grep -q "<svg" "$T/fifo.out" && ok || fail "FIFO with a reader: the page did not go through"
mkdir "$T/dir.html"
rep "$T/dir.html"; expect_eq "a directory: exit" "$?" 1
expect_match "a directory: message" "$(cat "$T/err")" "is a directory"
# two writers at once: unique temporary names, both succeed, no temporary left behind
rep "$T/two.html" & a=$!; rep "$T/two.html"; b=$?; wait $a; expect_eq "two writers" "$?/$b" "0/0"
expect_eq "no temporary file left" "$(ls -a "$T" | grep -c '\.tmp')" 0
help=$("$GPUMON" report --help)
for opt in --output --window --threshold --list-rules; do expect_match "report --help: $opt" "$help" -- "$opt"; done
done_tests
