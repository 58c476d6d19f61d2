# Option handling: every bad input gets a specific message and exit 2;
# --help, --version and --list-metrics tell the truth.
. "$(dirname "$0")/lib.sh"

check_usage() {  # check_usage REGEX ARGS...
  local re=$1; shift
  gp "$@" > "$T/out" 2> "$T/err"; local rc=$?
  expect_eq "exit for $*" "$rc" 2
  expect_match "message for $*" "$(cat "$T/err")" "$re"
  expect_eq "stdout for $*" "$(cat "$T/out")" ""
}
check_usage "below the minimum of 10ms" watch --interval 5ms
# Bounded: an interval that would overflow a nanosecond count (and busy-loop) is refused.
check_usage "above the maximum of 24h" watch --interval 1e20
check_usage "above the maximum of 24h" watch --interval 25h
check_usage "not a duration" watch --interval nan
check_usage "above the maximum of 24h" serve --web.timeout 4294967297
check_usage "expected \[HOST\]:PORT" serve --web.listen-address garbage
check_usage "is not a port number" serve --web.listen-address :99999
check_usage "not a duration" watch --interval -1s
check_usage "not a duration" watch --interval inf
check_usage "above the maximum of 24h" run --interval 1e20 -- true

check_usage "not a duration" watch --interval soon
check_usage "unknown format \"xml\"" watch --format xml
check_usage "unknown metric \"gpu.util\"" watch --fields utilization.gpu,gpu.util
check_usage "not a positive integer" watch --count 0
check_usage "--count: 123456789012345678901 is too large \(at most 4611686018427387904\)" watch --count 123456789012345678901
check_usage "not a positive integer" watch --count -5
# query -i names the query's option, not watch's --gpus
gp query --query-gpu=index --format=csv -i 5 > "$T/out" 2> "$T/err"; rc=$?
expect_eq "query -i 5: exit" "$rc" 2
expect_match "query -i 5: its own option" "$(cat "$T/err")" "^gpumon query: -i 5: no GPU matches \"5\""
expect_no_match "query -i 5: not watch's" "$(cat "$T/err")" "--gpus"
# one record is "1 sample"
gp watch --once --format jsonl > "$T/one.jsonl" 2> /dev/null
expect_match "a one-record log: 1 sample" "$("$GPUMON" diagnose "$T/one.jsonl")" "\(1 sample over 0 s\)"
check_usage "unknown option --frobnicate" watch --frobnicate
"$GPUMON" watch --interval > "$T/out" 2> "$T/err"; rc=$?
expect_eq "exit for a missing value" "$rc" 2
expect_match "message for a missing value" "$(cat "$T/err")" "option --interval needs a value"
check_usage "unexpected argument" watch extra
"$GPUMON" frobnicate > /dev/null 2> "$T/err"; rc=$?
expect_eq "unknown command exit" "$rc" 2
expect_match "unknown command" "$(cat "$T/err")" "unknown command \"frobnicate\""

help=$("$GPUMON" watch --help)
for opt in --interval --count --once --format --fields --gpus --output --no-processes --nvml --sim --scenario; do
  expect_match "watch --help mentions $opt" "$help" -- "$opt"
done
expect_match "--help" "$("$GPUMON" --help)" "Exit status"
expect_match "--version" "$("$GPUMON" --version)" "^gpumon [0-9]+\.[0-9]+\.[0-9]+$"
list=$("$GPUMON" --list-metrics)
expect_match "--list-metrics header" "$list" "^KEY +UNIT +SCOPE"
expect_match "--list-metrics row" "$list" "power.draw +W +gpu +sample +gpumon_gpu_power_watts \(gauge\)"
expect_match "--list-metrics slow row" "$list" "pcie.throughput.tx +KB/s +gpu +slow"
# Every key --list-metrics prints is accepted by --fields.
keys=$(printf '%s\n' "$list" | tail -n +2 | awk '{print $1}' | paste -sd, -)
gp watch --once --format csv --fields "$keys" > "$T/all.csv" 2>/dev/null; rc=$?
expect_eq "--fields with every listed key" "$rc" 0
expect_eq "header has every key" "$(head -1 "$T/all.csv")" "timestamp,hostname,$keys"

# A 100 kB path: the message keeps its reason (the path is shortened, not the reason).
long=/tmp/$(head -c 100000 /dev/zero | tr '\0' a)
longpath() {  # longpath ARGS...: gpumon ARGS; the message must keep its reason and stay short
  "$GPUMON" "$@" > /dev/null 2> "$T/err"
  local what; what=$(echo "$*" | cut -c1-24)
  expect_match "100 kB path, $what: the reason" "$(tail -c 300 "$T/err")" "(too long|not found|No such file)"
  [ "$(wc -c < "$T/err")" -lt 4000 ] && ok || fail "100 kB path, $what: a message of $(wc -c < "$T/err") bytes"
}
longpath watch --once -o "$long" --nvml "$SIM"
longpath diagnose "$long"
gp watch --once --format jsonl > "$T/one.jsonl" 2>/dev/null
longpath report "$T/one.jsonl" -o "$long"
longpath watch --once --scenario "$long"
longpath watch --once --nvml "$long"
longpath query --query-gpu=index --format=csv -f "$long" --nvml "$SIM"
# More than 128 query fields (nvidia-smi takes them), and a list too long.
many=$(for i in $(seq 200); do printf 'index,'; done)utilization.gpu
gp query --query-gpu="$many" --format=csv,noheader > "$T/out" 2> "$T/err"; expect_eq "200 query fields: exit" "$?" 0
expect_eq "200 query fields: one row per GPU" "$(head -1 "$T/out" | tr ',' '\n' | wc -l)" 201
toomany=$(for i in $(seq 600); do printf 'index,'; done)index
gp query --query-gpu="$toomany" --format=csv > "$T/out" 2> "$T/err"; expect_eq "600 query fields: exit" "$?" 2
expect_match "600 query fields: message" "$(cat "$T/err")" "Too many fields to query: at most 512"

# --help comes from each command's option table; the man page and the
# documentation (README.md and docs/*.md) must name every option it lists.
man=$(sed 's/\\//g' "$SRC/man/gpumon.1")
docs=$(cat "$SRC/README.md" "$SRC"/docs/*.md)
expect_match "man page mentions --list-metrics" "$man" -- "--list-metrics"
for c in watch query serve run diagnose report compare; do
  [ "$c" = serve ] && [ "$HAVE_SERVE" != 1 ] && continue
  opts=$("$GPUMON" $c --help | grep -oE -- '--[a-z][a-z.-]+' | sort -u)
  [ -n "$opts" ] && ok || fail "$c --help lists no option"
  for opt in $opts; do
    expect_match "man page mentions $c $opt" "$man" -- "$opt"
    expect_match "docs mention $c $opt" "$docs" -- "$opt"
  done
done
help=$("$GPUMON" serve --help)
for opt in web.listen-address web.config.file web.max-connections web.timeout interval gpus compat \
           collect.processes collect.processes.max textfile nvml sim scenario; do
  expect_match "serve --help mentions --$opt" "$help" -- "--$opt"
done
expect_match "gpumon --help lists serve" "$("$GPUMON" --help)" "serve"
# run, diagnose and report: in --help and in the man page with their options.
mainhelp=$("$GPUMON" --help)
for c in run diagnose report compare; do
  expect_match "--help lists $c" "$mainhelp" "^  $c +"
  expect_match "man page has $c" "$man" "^\.B $c"
done
for opt in window threshold list-rules report; do
  expect_match "man page mentions --$opt" "$man" -- "--$opt"
done
# Every help fits 80 columns: gpumon's own and every command's (they reached 127), listed from
# gpumon --help so a new command is checked too; gpumon -h is the global help, as --help is.
commands=$("$GPUMON" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
expect_match "the commands listed" "$(echo $commands)" "^watch query serve top run diagnose report compare$"
for c in "" $commands; do
  out=$("$GPUMON" $c --help 2>&1)
  expect_eq "gpumon${c:+ $c} --help: lines over 80 columns" \
    "$(printf '%s\n' "$out" | awk 'length($0) > 80 {n++; if (!w) w = $0} END {print n + 0 (w ? ": " w : "")}')" 0
done
expect_eq "gpumon -h is the global help" "$("$GPUMON" -h)" "$("$GPUMON" --help)"
expect_match "gpumon watch -h is watch's" "$("$GPUMON" watch -h)" "^Usage: gpumon watch "
done_tests
