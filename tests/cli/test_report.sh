# gpumon report: one self-contained HTML file with SVG charts per GPU,
# verdicts and advice; a 24-hour log stays small with its extremes kept;
# the page opens in headless Chromium with no console message, the charts
# are in the DOM, and a screenshot is kept in the build directory.
. "$(dirname "$0")/lib.sh"

GPUMON_SIM_SPEED=20 "$GPUMON" watch --scenario straggler --format jsonl --interval 100ms --count 60 \
  > "$T/s.jsonl" 2>/dev/null
"$GPUMON" report "$T/s.jsonl" -o "$T/s.html" --window 3s > "$T/out" 2> "$T/err"; rc=$?
expect_eq "report exit" "$rc" 0
expect_eq "report quiet" "$(cat "$T/out" "$T/err")" ""
html=$(cat "$T/s.html")
expect_eq "charts: 5 per GPU" "$(grep -o '<svg class="chart"' "$T/s.html" | wc -l)" 40
for key in utilization.gpu memory.used temperature.gpu power.draw clocks.sm; do
  expect_eq "chart of $key per GPU" "$(grep -o "data-series=\"$key\"" "$T/s.html" | wc -l)" 8
done
expect_match "straggler verdict listed with advice" "$html" \
  'data-rule="straggler"><b>warning</b> straggler: .*Advice: In data-parallel training'
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
PYEOF

# Headless Chromium: no console message, charts in the DOM, a screenshot.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium is not installed (scripts/deps.sh installs it); browser checks not run"
else
  flags=(--headless --disable-gpu --no-sandbox --no-first-run --disable-extensions --user-data-dir="$T/chrome")
  timeout 120 "$CHROMIUM" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$T/s.html" \
    > "$T/dom.html" 2> "$T/chrome.log"
  expect_match "DOM: the in-page check counted the charts" "$(cat "$T/dom.html")" 'data-charts="40"'
  expect_match "DOM: check text" "$(cat "$T/dom.html")" 'charts rendered: 40'
  expect_eq "no console messages" "$(grep ':CONSOLE' "$T/chrome.log")" ""
  shot="$BUILD/report-screenshot.png"
  rm -f "$shot"
  timeout 120 "$CHROMIUM" "${flags[@]}" --screenshot="$shot" --window-size=1000,1400 "file://$T/s.html" \
    > /dev/null 2>&1
  [ -s "$shot" ] && ok || fail "no screenshot at $shot"
  echo "screenshot: $shot"
fi

"$GPUMON" report "$T/s.jsonl" > /dev/null 2> "$T/err"; expect_eq "report without -o" "$?" 2
expect_match "report without -o message" "$(cat "$T/err")" "give the file to write with -o"
"$GPUMON" report "$T/s.jsonl" -o /nonexistent/dir/r.html > /dev/null 2> "$T/err"; expect_eq "unwritable" "$?" 1
help=$("$GPUMON" report --help)
for opt in --output --window --threshold --list-rules; do expect_match "report --help: $opt" "$help" -- "$opt"; done
done_tests
