# gpumon invoked as nvidia-smi, with no argument (the summary table) and with -L: byte for byte the
# bare nvidia-smi and -L sections of real captures (tests/cli/smi/*-{idle,load,L}.txt, copied from
# /work/shared/captures with their LICENSE.nvidia_gpu_exporter), played by scenarios built from their
# values (tests/cli/smi/*.scn: idle before t=100, under load after); the date line is checked for its
# form only. Then what no capture shows: a golden table of edges (tests/cli/smi/edges.*), 8 GPUs, a lost
# GPU, no driver and no GPU.
. "$(dirname "$0")/lib.sh"
D="$SRC/tests/cli/smi"
ln -s "$GPUMON" "$T/nvidia-smi"
export GPUMON_NVML="$SIM" GPUMON_SIM_SPEED=0
smi() {  # smi SCENARIO START ARGS...: nvidia-smi on the simulator, stdout in $T/out, status in $rc
  local scn=$1 start=$2; shift 2
  GPUMON_SIM_SCENARIO="$scn" GPUMON_SIM_START="$start" "$T/nvidia-smi" "$@" > "$T/out" 2> "$T/err"; rc=$?
}
DATE='^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 1-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9] [0-9]{4}       $'
table() {  # table NAME WANT: $T/out is the table of WANT (a file), its first line aside
  expect_eq "$1: exit" "$rc" 0
  expect_eq "$1: stderr" "$(cat "$T/err")" ""
  expect_match "$1: date line" "$(head -n 1 "$T/out")" "$DATE"
  if diff <(tail -n +2 "$2") <(tail -n +2 "$T/out") > "$T/diff"; then ok; else fail "$1 differs: $(cat "$T/diff")"; fi
}

for board in h100 l40s rtx2080s-595 rtx2080s-610; do
  smi "$D/$board.scn" 10
  table "$board idle" "$D/$board-idle.txt"
  smi "$D/$board.scn" 110
  table "$board load" "$D/$board-load.txt"
  smi "$D/$board.scn" 110 -L
  expect_eq "$board -L" "$(cat "$T/out")" "$(cat "$D/$board-L.txt")"
  smi "$D/$board.scn" 110 --list-gpus
  expect_eq "$board --list-gpus" "$(cat "$T/out")" "$(cat "$D/$board-L.txt")"
done

# Edges: a long GPU name, ECC off, fan at 100%, E. Process, C+G, a long process name, 120000 MiB, MIG on
# without instances.
smi "$D/edges.scn" 5
table edges "$D/edges.txt"
smi "$D/edges.scn" 5 -L
expect_eq "edges -L" "$(sed -E 's/ \(UUID: GPU-[0-9a-f-]{36}\)$//' "$T/out" | paste -sd'|')" \
  "GPU 0: NVIDIA RTX PRO 6000 Blackwell Server Edition|GPU 1: NVIDIA H100 80GB HBM3|GPU 2: NVIDIA H200"

# 8 GPUs: one block each, every line 91 columns, processes in GPU order.
smi "$SCN/idle-8xh200.scn" 5
expect_eq "8 GPUs: exit" "$rc" 0
expect_eq "8 GPUs: blocks" "$(grep -cE '^\|   [0-7]  NVIDIA H200 ' "$T/out")" 8
expect_eq "8 GPUs: widths" "$(tail -n +2 "$T/out" | awk 'length($0) != 91 && length($0) != 0' | wc -l)" 0
smi "$SCN/idle-8xh200.scn" 5 -L
expect_eq "8 GPUs -L" "$(grep -cE '^GPU [0-7]: NVIDIA H200 \(UUID: GPU-[0-9a-f-]{36}\)$' "$T/out")" 8

# A GPU fallen off the bus: named on the first line, the others in the table, status 15.
printf 'gpu 0-1\n  name NVIDIA A100-SXM4-80GB\ngpu 1\n  at 0 lost\n' > "$T/lost.scn"
smi "$T/lost.scn" 5
expect_eq "lost: exit" "$rc" 15
expect_eq "lost: first line" "$(head -n 1 "$T/out")" "Unable to determine the device handle for GPU 1: GPU is lost"
expect_match "lost: date line next" "$(sed -n 2p "$T/out")" "$DATE"
expect_eq "lost: GPU 0 only" "$(grep -cE '^\|   [0-9]  NVIDIA' "$T/out")" 1

# No library, no driver, no GPU: one way of opening NVML for the table, -L and the query alike:
# nvidia-smi's words on stdout and its statuses (12, 9, 6), gpumon's diagnosis on stderr.
NOLIB="NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed and present in your system.
Please also try adding directory that contains libnvidia-ml.so to your system PATH."
NODRV="NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."
for args in "" "-L" "--query-gpu=index --format=csv"; do
  # shellcheck disable=SC2086
  GPUMON_NVML=/nonexistent/libnvidia-ml.so.1 "$T/nvidia-smi" $args > "$T/out" 2> "$T/err"; rc=$?
  expect_eq "no library ($args): exit" "$rc" 12
  expect_eq "no library ($args): stdout" "$(cat "$T/out")" "$NOLIB"
  expect_match "no library ($args): stderr" "$(cat "$T/err")" "^gpumon: cannot load the NVML library"
  # shellcheck disable=SC2086
  smi "$SCN/driver-not-loaded.scn" 0 $args
  expect_eq "driver not loaded ($args): exit" "$rc" 9
  expect_eq "driver not loaded ($args): stdout" "$(cat "$T/out")" "$NODRV"
  expect_match "driver not loaded ($args): stderr" "$(cat "$T/err")" "^gpumon: "
  # shellcheck disable=SC2086
  smi "$SCN/zero-gpus.scn" 0 $args
  expect_eq "zero GPUs ($args): exit" "$rc" 6
  expect_eq "zero GPUs ($args): stdout" "$(cat "$T/out")" "No devices were found"
done
GPUMON_NVML="$BUILD/tests/stubs/libnvidia-ml.so" "$T/nvidia-smi" -L > "$T/out" 2> "$T/err"; rc=$?
expect_eq "the CUDA stub: exit" "$rc" 12
expect_eq "the CUDA stub: stdout" "$(cat "$T/out")" "$NOLIB"

# -i: the table and -L of the GPUs named (index, UUID, bus id), their processes only; a name that
# matches none: "No devices were found", 6. -l: the table again every SEC seconds until interrupted.
smi "$D/edges.scn" 5 -i 2
expect_eq "-i 2: exit" "$rc" 0
expect_eq "-i 2: its block only" "$(grep -E '^\|   [0-9]  NVIDIA' "$T/out" | cut -c1-18)" "|   2  NVIDIA H200"
expect_eq "-i 2: its processes only" "$(grep -E '^\|  +[0-9]+ +(N/A|[0-9]+) ' "$T/out" | awk '{print $2 ":" $5}' | paste -sd,)" "2:7"
smi "$D/edges.scn" 5 -L
uuid=$(sed -n 's/^GPU 2: .*(UUID: \(GPU-[0-9a-f-]*\))$/\1/p' "$T/out")
smi "$D/edges.scn" 5 --id="0,$uuid" -L
expect_eq "--id=0,UUID -L" "$(cut -d' ' -f1-2 "$T/out" | paste -sd'|')" "GPU 0:|GPU 2:"
smi "$D/edges.scn" 5 -i GPU-00000000-0000-0000-0000-000000000000
expect_eq "-i naming no GPU: exit" "$rc" 6
expect_eq "-i naming no GPU: stdout" "$(cat "$T/out")" "No devices were found"
# -l and -lms repeat the table (-lms used to answer "Nothing to query"); SIGINT ends a loop cleanly.
# (Waits on what was printed: how many tables a time span holds depends on the machine's load.)
lines=$(wc -l < "$D/h100-idle.txt")
for loop in "-l 1" "-lms 100" "--loop-ms=100"; do
  GPUMON_SIM_SCENARIO="$D/h100.scn" GPUMON_SIM_START=10 "$T/nvidia-smi" $loop 2> "$T/err" | head -n $((2 * lines)) > "$T/out"
  expect_eq "$loop: two tables" "$(grep -cE "$DATE" "$T/out")" 2
  expect_eq "$loop: quiet when the reader leaves" "$(cat "$T/err")" ""
done
# (a file of its own: waiting on $T/out could see the tables above before the shell truncated it, and
# a SIGINT that came before gpumon's start is ignored, as bash ignores it for a background job)
GPUMON_SIM_SCENARIO="$D/h100.scn" GPUMON_SIM_START=10 "$T/nvidia-smi" -lms 50 > "$T/lms.out" 2> "$T/err" &
pid=$!
wait_for "a table from -lms 50" '[ "$(grep -cE "$DATE" "$T/lms.out" 2> /dev/null)" -ge 1 ]'
kill -INT $pid; wait $pid; rc=$?
expect_eq "-lms 50: interrupted, a clean end" "$rc" 0
smi "$D/h100.scn" 10 -lms 5
expect_match "-lms 5: below 10 ms" "$rc $(cat "$T/out")" '^2 Invalid loop interval "5"'
smi "$D/h100.scn" 10 -l 1 -lms 100
expect_eq "-l with -lms: refused as query refuses it" "$rc" 2
smi "$D/h100.scn" 10 -l 0
expect_eq "-l 0: exit" "$rc" 2
expect_match "-l 0: says why" "$(cat "$T/out")" 'Invalid loop interval "0"'

# Other nvidia-smi commands keep query's refusal.
smi "$D/h100.scn" 10 dmon
expect_eq "dmon: exit" "$rc" 2
expect_eq "dmon: stdout" "$(cat "$T/out")" ""
done_tests
