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
SCENARIO="$SCN/zero-gpus.scn" expect_fail "zero GPUs" 5 "simulated scenario .*zero-gpus.scn\" declares no GPU" gp --once
# on the simulator, the advice is about the scenario, never "try gpumon --sim"
"$GPUMON" --once --scenario zero-gpus > /dev/null 2> "$T/err"; rc=$?
expect_eq "--sim, zero GPUs: exit" "$rc" 5
expect_no_match "--sim, zero GPUs: no advice to try --sim" "$(cat "$T/err")" "gpumon --sim|docker"

for code in NO_PERMISSION LIB_RM_VERSION_MISMATCH UNKNOWN; do
  printf 'init_error %s\n' "$code" > "$T/init.scn"
  case $code in
    NO_PERMISSION) re="no permission";;
    LIB_RM_VERSION_MISMATCH) re="different versions.*Reboot";;
    *) re="could not be initialized: .*code 999";;
  esac
  SCENARIO="$T/init.scn" expect_fail "init $code" 4 "$re" gp --once
  # a valid scenario that asks for the failure is not "not a valid scenario", and the hint is not --sim
  expect_no_match "init $code: a valid scenario" "$(cat "$T/err")" "not a valid scenario|see the line above|gpumon --sim"
done
"$GPUMON" --once --scenario "$T/init.scn" > /dev/null 2> "$T/err"; rc=$?
expect_eq "--scenario with init_error UNKNOWN: init failed (4), not usage" "$rc" 4

# An invalid scenario: init fails, the simulator names file and line, gpumon says the scenario is
# not valid: a usage error (2), however the scenario was given.
printf 'seed 1\ngpu 0\n  name Test\n  util.gpu = wobble(3)\n' > "$T/bad.scn"
SCENARIO="$T/bad.scn" gp --once > /dev/null 2> "$T/err"; rc=$?
expect_eq "invalid scenario exit" "$rc" 2
expect_match "invalid scenario names file:line" "$(cat "$T/err")" "$T/bad.scn:4"
expect_match "invalid scenario: said by gpumon" "$(cat "$T/err")" "bad.scn\" is not a valid scenario \(see the line above"

# --scenario that cannot be used is a usage error (2) naming the file and
# what is wrong, never the driver's advice; only regular files are opened,
# without blocking (a FIFO must not hang).
bad_scn() {  # bad_scn WHAT PATH REGEX
  timeout 10 "$GPUMON" --once --scenario "$2" > /dev/null 2> "$T/err"; local rc=$?
  expect_eq "--scenario $1: exit" "$rc" 2
  expect_match "--scenario $1: message" "$(cat "$T/err")" "$3"
  expect_no_match "--scenario $1: no driver advice" "$(cat "$T/err")" "driver installation|docker"
}
mkdir "$T/scn.dir"; mkfifo "$T/scn.fifo"; head -c 3000 /dev/urandom > "$T/scn.bin"
bad_scn directory "$T/scn.dir" "is a directory, not a scenario file"
bad_scn FIFO "$T/scn.fifo" "is a FIFO, not a scenario file"
bad_scn /dev/zero /dev/zero "/dev/zero\" is a device, not a scenario file"
bad_scn /dev/null /dev/null "/dev/null\" is a device, not a scenario file"
bad_scn "a binary file" "$T/scn.bin" "scn.bin:[0-9]+: "
expect_match "--scenario a binary file: said by gpumon" "$(cat "$T/err")" "scn.bin\" is not a valid scenario"
bad_scn "a bad line" "$T/bad.scn" "bad.scn:4: unknown term \"wobble\""
expect_match "--scenario a bad line: said by gpumon" "$(cat "$T/err")" "bad.scn\" is not a valid scenario"
chmod 000 "$T/bad.scn"
[ "$(id -u)" = 0 ] || bad_scn "unreadable" "$T/bad.scn" "cannot open .*Permission denied"
# An empty GPU selection is a usage error, in every command that takes one.
for c in watch serve run; do
  if [ $c = run ]; then "$GPUMON" run --gpus ', ' --sim -- true > /dev/null 2> "$T/err"; rc=$?
  else "$GPUMON" $c --gpus ', ' --sim > /dev/null 2> "$T/err"; rc=$?; fi
  expect_eq "$c --gpus ', ': exit" "$rc" 2
  expect_match "$c --gpus ', ': message" "$(cat "$T/err")" "names no GPU"
done
"$GPUMON" query --query-gpu=index --format=csv -i '' --sim > "$T/out" 2> "$T/err"; rc=$?
expect_eq "query -i '': exit" "$rc" 2
expect_eq "query -i '': nothing on stdout" "$(cat "$T/out")" ""

# The bundled simulator through --sim and a scenario by name.
"$GPUMON" --once --sim --scenario idle-8xh200 --format csv --fields name > "$T/out" 2> "$T/err"; rc=$?
expect_eq "--sim --scenario exit" "$rc" 0
expect_eq "--sim --scenario rows" "$(tail -n +2 "$T/out" | grep -c 'H200')" 8
expect_match "--sim says so" "$(cat "$T/err")" "simulated GPUs \(scenario .*idle-8xh200.scn\)"
"$GPUMON" --once --scenario no-such-thing > /dev/null 2> "$T/err"; rc=$?
expect_eq "unknown scenario exit" "$rc" 2
expect_match "unknown scenario message" "$(cat "$T/err")" "no scenario file \"no-such-thing\""
done_tests
