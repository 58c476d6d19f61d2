# valgrind's memcheck over every command (watch, query, serve, run,
# diagnose, report): no invalid access, no use of
# uninitialized memory, no definite or indirect leak. Runs on the plain
# build only: sanitizer builds cannot run under valgrind, and in scripts/test
# the Release and clang variants leave it to the plain one (a `long` test:
# tests/CMakeLists.txt).
. "$(dirname "$0")/lib.sh"
if nm "$GPUMON" 2>/dev/null | grep -q __asan_init; then
  echo "SKIP: $GPUMON is an AddressSanitizer build; valgrind runs on the plain build"
  done_tests; exit 0
fi
command -v valgrind > /dev/null || { fail "valgrind is not installed (scripts/deps.sh installs it)"; done_tests; exit 1; }
VG=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect --track-origins=yes)
# vg NAME ARGS...: gpumon under memcheck; output kept in $T/NAME.vg
vg() {
  local name=$1; shift
  "${VG[@]}" --log-file="$T/$name.vg" "$GPUMON" "$@" > "$T/$name.out" 2> "$T/$name.err"
  local rc=$?
  if [ "$rc" -eq 99 ] || [ -s "$T/$name.vg" ]; then fail "memcheck on $name: $(head -30 "$T/$name.vg")"; else ok; fi
  return $rc
}
vg watch watch --nvml "$SIM" --count 5 --interval 50ms --format jsonl
vg watch-text watch --nvml "$SIM" --count 3 --interval 50ms
GPUMON_SIM_SCENARIO="$SCN/gpu-lost.scn" GPUMON_SIM_START=58 vg watch-lost watch --nvml "$SIM" --count 30 \
  --interval 100ms --format csv
vg query query --nvml "$SIM" --query-gpu=index,name,utilization.gpu,memory.used,power.draw,pstate --format=csv
vg query-apps query --nvml "$SIM" --query-compute-apps=pid,process_name,used_memory --format=csv
vg watch-log watch --nvml "$SIM" --count 40 --interval 20ms --format jsonl -o "$T/log.jsonl"
vg diagnose diagnose "$T/log.jsonl" --window 300ms
vg diagnose-json diagnose "$T/log.jsonl" --window 300ms --format json
vg report report "$T/log.jsonl" -o "$T/report.html" --window 300ms
GPUMON_SIM_SCENARIO="$SCN/input-bound.scn" vg run run --nvml "$SIM" --interval 100ms --window 1s -o "$T/run.jsonl" \
  --report "$T/run.html" -- sleep 2
vg no-library watch --nvml /nonexistent/libnvidia-ml.so.1 --once
vg bad-option watch --nvml "$SIM" --interval 1ms

PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
GPUMON_SIM_SCENARIO="$SCN/xid-storm.scn" "${VG[@]}" --log-file="$T/serve.vg" "$GPUMON" serve --nvml "$SIM" \
  --web.listen-address "127.0.0.1:$PORT" --interval 100ms --compat dcgm --collect.processes \
  --textfile "$T/gpumon.prom" 2> "$T/serve.err" &
pid=$!
wait_for "serve under memcheck" 'curl -s -o /dev/null "http://127.0.0.1:$PORT/health"' 300
for _ in 1 2 3; do curl -s -o /dev/null "http://127.0.0.1:$PORT/metrics"; done
curl -s -o /dev/null -d x "http://127.0.0.1:$PORT/metrics"
curl -s -o /dev/null "http://127.0.0.1:$PORT/nope"
kill -TERM $pid; wait $pid; rc=$?
expect_eq "serve under memcheck exits 0" "$rc" 0
if [ -s "$T/serve.vg" ]; then fail "memcheck on serve: $(head -30 "$T/serve.vg")"; else ok; fi
done_tests
