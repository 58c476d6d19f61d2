# No GPU, bad GPU: every way NVML can be unusable gets one specific line,
# a documented exit status and a hint, and never a crash.
. "$(dirname "$0")/lib.sh"

expect_fail() {  # expect_fail NAME STATUS REGEX CMD...
  local name=$1 want=$2 re=$3; shift 3
  "$@" > "$T/out" 2> "$T/err"; local rc=$?
  expect_eq "$name exit" "$rc" "$want"
  expect_match "$name message" "$(cat "$T/err")" "$re"
  expect_eq "$name stdout" "$(cat "$T/out")" ""
  expect_eq "$name: one line from gpumon" "$(grep -c '^gpumon:' "$T/err")" 1
}

expect_fail "missing library" 3 "cannot load the NVML library /nonexistent/libnvidia-ml.so.1.*--sim" \
  "$GPUMON" watch --once --nvml /nonexistent/libnvidia-ml.so.1
GPUMON_NVML=/nonexistent/lib.so expect_fail "GPUMON_NVML" 3 "/nonexistent/lib.so" "$GPUMON" --once
# The system's libnvidia-ml is absent here (no driver on CI machines).
if ! ldconfig -p | grep -q libnvidia-ml; then
  expect_fail "no driver" 3 "no NVIDIA driver library found \(tried libnvidia-ml.so.1, libnvidia-ml.so\)" \
    "$GPUMON" --once
fi
expect_fail "CUDA stub" 3 "stub library, not a driver" "$GPUMON" --once --nvml "$BUILD/tests/stubs/libnvidia-ml.so"
libm=$(ldconfig -p | awk '/libm.so.6 .*x86-64|libm.so.6 .*aarch64/ {print $NF; exit}')
[ -n "$libm" ] || libm=/lib/x86_64-linux-gnu/libm.so.6
expect_fail "not NVML" 3 "not a usable NVML library: missing nvmlInit_v2" "$GPUMON" --once --nvml "$libm"

SCENARIO="$SCN/driver-not-loaded.scn" expect_fail "driver not loaded" 4 "kernel driver is not loaded" gp --once
SCENARIO="$SCN/zero-gpus.scn" expect_fail "zero GPUs" 5 "reports no GPU" gp --once

for code in NO_PERMISSION LIB_RM_VERSION_MISMATCH UNKNOWN; do
  printf 'init_error %s\n' "$code" > "$T/init.scn"
  case $code in
    NO_PERMISSION) re="no permission";;
    LIB_RM_VERSION_MISMATCH) re="different versions.*Reboot";;
    *) re="could not be initialized: .*code 999";;
  esac
  SCENARIO="$T/init.scn" expect_fail "init $code" 4 "$re" gp --once
done

# An invalid scenario: init fails, the simulator names file and line.
printf 'seed 1\ngpu 0\n  name Test\n  util.gpu = wobble(3)\n' > "$T/bad.scn"
SCENARIO="$T/bad.scn" gp --once > /dev/null 2> "$T/err"; rc=$?
expect_eq "invalid scenario exit" "$rc" 4
expect_match "invalid scenario names file:line" "$(cat "$T/err")" "$T/bad.scn:4"

# The bundled simulator through --sim and a scenario by name.
"$GPUMON" --once --sim --scenario idle-8xh200 --format csv --fields name > "$T/out" 2> "$T/err"; rc=$?
expect_eq "--sim --scenario exit" "$rc" 0
expect_eq "--sim --scenario rows" "$(tail -n +2 "$T/out" | grep -c 'H200')" 8
expect_match "--sim says so" "$(cat "$T/err")" "simulated GPUs \(scenario .*idle-8xh200.scn\)"
"$GPUMON" --once --scenario no-such-thing > /dev/null 2> "$T/err"; rc=$?
expect_eq "unknown scenario exit" "$rc" 2
expect_match "unknown scenario message" "$(cat "$T/err")" "no scenario file \"no-such-thing\""
done_tests
