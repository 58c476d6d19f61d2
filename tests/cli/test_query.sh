# gpumon query / nvidia-smi: golden outputs for each formatting rule
# (units, nounits, noheader, [N/A], [Insufficient Permissions], a
# lost GPU), compute apps, parsing the way scripts parse nvidia-smi, loop
# mode, -i, -f, errors, and the nvidia-smi name.
. "$(dirname "$0")/lib.sh"
export GPUMON_SIM_SCENARIO="$SRC/tests/cli/query.scn" GPUMON_SIM_SPEED=0 GPUMON_SIM_START=10
q() { "$GPUMON" query --nvml "$SIM" "$@"; }
F=index,name,pci.bus_id,utilization.gpu,memory.total,memory.used,memory.free,memory.reserved,temperature.gpu,fan.speed,power.draw,enforced.power.limit,clocks.sm,clocks.max.memory,pstate,clocks_throttle_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,driver_version,count

q --query-gpu=$F --format=csv > "$T/out" 2> "$T/err"; rc=$?
expect_eq "exit" "$rc" 0
expect_eq "stderr" "$(cat "$T/err")" ""
cat > "$T/want" <<'WANT'
index, name, pci.bus_id, utilization.gpu [%], memory.total [MiB], memory.used [MiB], memory.free [MiB], memory.reserved [MiB], temperature.gpu, fan.speed [%], power.draw [W], enforced.power.limit [W], clocks.current.sm [MHz], clocks.max.memory [MHz], pstate, clocks_event_reasons.active, clocks_event_reasons.sw_power_cap, clocks_event_reasons.hw_slowdown, driver_version, count
0, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 87 %, 81559 MiB, 10240 MiB, 70807 MiB, 512 MiB, 65, 55 %, 312.50 W, 700.00 W, 1755 MHz, 2619 MHz, P0, 0x0000000000000004, Active, Not Active, 550.54.15, 3
1, NVIDIA H100 80GB HBM3, 00000000:2A:00.0, 87 %, 81559 MiB, 10240 MiB, 70807 MiB, 512 MiB, 65, [N/A], [Insufficient Permissions], [Insufficient Permissions], 1755 MHz, 2619 MHz, P0, 0x0000000000000004, Active, Not Active, 550.54.15, 3
2, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], 550.54.15, 3
WANT
diff "$T/want" "$T/out" > "$T/diff" && ok || fail "golden csv output differs: $(cat "$T/diff")"

q --query-gpu=utilization.gpu,memory.used,power.draw,temperature.gpu --format=csv,noheader,nounits -i 0 > "$T/out"
expect_eq "noheader,nounits" "$(cat "$T/out")" "87, 10240, 312.50, 65"
q --query-gpu=utilization.encoder,utilization.decoder --format=csv,noheader -i 0 > "$T/out"
expect_eq "encoder and decoder (the reading, not the variable before the call)" "$(cat "$T/out")" "23 %, 7 %"
q --query-gpu=memory.used --format=csv,nounits -i 0 > "$T/out"
expect_eq "nounits keeps units in the header" "$(cat "$T/out")" "$(printf 'memory.used [MiB]\n10240')"
q --query-gpu=gpu_name,gpu_uuid,clocks.gr --format=csv,noheader -i 1 > "$T/out"
expect_match "aliases" "$(cat "$T/out")" "^NVIDIA H100 80GB HBM3, GPU-[0-9a-f-]{36}, 1755 MHz$"
q --query-gpu=timestamp --format=csv,noheader -i 0 > "$T/out"
expect_match "timestamp" "$(cat "$T/out")" "^[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}$"

# -i by index, UUID and PCI bus id; a bad id fails with nothing on stdout.
uuid=$(q --query-gpu=uuid --format=csv,noheader -i 1)
for id in 1 "$uuid" 00000000:2A:00.0 0000:2a:00.0 2A:00.0 "0,1"; do
  n=$(q --query-gpu=index --format=csv,noheader -i "$id" | paste -sd' ')
  case $id in 0,1) want="0 1";; *) want=1;; esac
  expect_eq "-i $id" "$n" "$want"
done
for id in zz:2A:00.0 GPU:2A:00.0 00000000:2A:00.1 2A:00 00000000:2A:00.0x; do
  q --query-gpu=index --format=csv -i "$id" > "$T/out" 2> /dev/null; rc=$?
  expect_eq "-i $id names no GPU" "$rc:$(cat "$T/out")" "2:"
done
q --query-gpu=index --format=csv -i 9 > "$T/out" 2> "$T/err"; rc=$?
expect_eq "-i 9 exit" "$rc" 2
expect_eq "-i 9 stdout" "$(cat "$T/out")" ""

# Compute apps.
q --query-compute-apps=pid,process_name,used_memory,gpu_bus_id --format=csv > "$T/out"
expect_eq "compute apps" "$(cat "$T/out")" "$(printf '%s\n' 'pid, process_name, used_gpu_memory [MiB], gpu_bus_id' \
  '5001, python3 train.py, 6144 MiB, 00000000:18:00.0' '5002, python3 eval.py, 4096 MiB, 00000000:18:00.0')"

# Bad input: nvidia-smi's style of message, non-zero exit, nothing on stdout.
bad() {  # bad REGEX ARGS...
  local re=$1; shift
  q "$@" > "$T/out" 2> "$T/err"; local rc=$?
  [ "$rc" -ne 0 ] && ok || fail "exit 0 for $*"
  expect_eq "stdout for $*" "$(cat "$T/out")" ""
  expect_match "message for $*" "$(cat "$T/err")" "$re"
}
bad 'Field "gpu.util" is not a valid field to query.' --query-gpu=utilization.gpu,gpu.util --format=csv
bad 'Field "" is not a valid field to query.' --query-gpu=name,,index --format=csv
bad '"xml" is not a valid format option' --query-gpu=name --format=csv,xml
bad '"json" is not a valid format' --query-gpu=name --format=json
bad 'format=csv option is required' --query-gpu=name
bad 'Nothing to query' --format=csv
bad 'Invalid argument "--bogus"' --query-gpu=name --format=csv --bogus
bad 'Field "bogus" is not a valid field' --query-compute-apps=pid,bogus --format=csv

# Parse the output the way scripts parse nvidia-smi's (split on ",", strip, int/float).
unset GPUMON_SIM_SPEED GPUMON_SIM_START
GPUMON_SIM_SCENARIO="$SCN/straggler.scn" q --query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu \
  --format=csv,noheader,nounits > "$T/s.csv"
"$PY" - "$T/s.csv" <<'PYEOF' && ok || fail "script-style parsing"
import sys
rows = [[x.strip() for x in line.split(",")] for line in open(sys.argv[1]) if line.strip()]
assert len(rows) == 8
for idx, util, used, total, power, temp in rows:
    assert 0 <= int(util) <= 100 and 0 <= int(used) <= int(total) and float(power) > 0 and int(temp) > 0
    int(idx)
PYEOF

# Loop mode: -lms 100 repeats the answer, one header, until SIGINT (waits on the rows written: how
# many a span of time holds is the machine's business).
GPUMON_SIM_SCENARIO="$SRC/tests/cli/query.scn" "$GPUMON" query --nvml "$SIM" --query-gpu=index,utilization.gpu \
  --format=csv -i 0 -lms 100 > "$T/loop" 2>/dev/null &
pid=$!
wait_for "four answers of the loop" '[ "$(grep -c "^0, " "$T/loop")" -ge 4 ]'
kill -INT $pid
wait $pid; rc=$?
expect_eq "loop exit after SIGINT" "$rc" 0
expect_eq "loop: one header" "$(grep -c '^index' "$T/loop")" 1
expect_eq "loop: whole rows only" "$(grep -vc '^index\|^0, [0-9]* %$' "$T/loop")" 0

# -f writes to a file (replacing it), nothing on stdout.
echo old > "$T/f.csv"
GPUMON_SIM_SCENARIO="$SRC/tests/cli/query.scn" q --query-gpu=index --format=csv,noheader -f "$T/f.csv" > "$T/out"
expect_eq "-f stdout" "$(cat "$T/out")" ""
expect_eq "-f file" "$(cat "$T/f.csv" | paste -sd' ')" "0 1 2"

# Invoked as nvidia-smi.
ln -s "$GPUMON" "$T/nvidia-smi"
out=$(GPUMON_SIM_SCENARIO="$SRC/tests/cli/query.scn" GPUMON_NVML="$SIM" "$T/nvidia-smi" --query-gpu=index,name --format=csv,noheader -i 0)
expect_eq "as nvidia-smi" "$out" "0, NVIDIA H100 80GB HBM3"
GPUMON_NVML="$SIM" "$T/nvidia-smi" -q > "$T/out" 2> "$T/err"; rc=$?
expect_eq "nvidia-smi -q exit" "$rc" 2
expect_match "nvidia-smi -q message" "$(cat "$T/err")" 'installed as nvidia-smi.*"-q" is not supported'
# As nvidia-smi: its texts on standard output, its exit statuses.
smi() { GPUMON_SIM_SCENARIO="$SRC/tests/cli/query.scn" GPUMON_SIM_SPEED=0 GPUMON_SIM_START=10 GPUMON_NVML="$SIM" \
  "$T/nvidia-smi" "$@"; }
smi --query-gpu=name,foo --format=csv > "$T/out" 2> "$T/err"; rc=$?
expect_eq "nvidia-smi unknown field exit" "$rc" 2
expect_eq "nvidia-smi unknown field text" "$(cat "$T/out")" 'Field "foo" is not a valid field to query.'
smi --query-gpu= --format=csv > "$T/out"; rc=$?
expect_eq "nvidia-smi empty field list exit" "$rc" 2
smi --query-gpu=index,name --format=csv,noheader > "$T/out"; rc=$?
expect_eq "nvidia-smi lost GPU exit" "$rc" 15
# lost before gpumon started: NVML gives no handle, so no bus id; the GPU is named by its index
expect_eq "nvidia-smi lost GPU text" "$(cat "$T/out")" \
  "Unable to determine the device handle for GPU 2: GPU is lost.  Reboot the system to recover this GPU"
out=$(smi --query-gpu=index,clocks.gr,clocks.current.graphics,index,compute_cap,persistence_mode,pci.device_id,power.default_limit,power.min_limit,mig.mode.current,clocks_event_reasons.supported,fan.speed,display_mode,vgpu_device_capability.mig_timeSlicing --format=csv,nounits -i 0)
expect_eq "nvidia-smi aliases, duplicates, attributes, nounits" "$out" "$(printf '%s\n' \
  'index, clocks.current.graphics [MHz], clocks.current.graphics [MHz], index, compute_cap, persistence_mode, pci.device_id, power.default_limit [W], power.min_limit [W], mig.mode.current, clocks_event_reasons.supported, fan.speed [%], display_mode, vgpu_device_capability.mig_timeSlicing' \
  '0, 1755, 1755, 0, 9.0, Disabled, 0x233010DE, 700.00, 175.00, Disabled, 0x00000000000001FF, 55, [Requested functionality has been deprecated], [N/A]')"
out=$(smi --query-gpu=fan.speed,power.draw --format=csv,noheader -i 1)
expect_eq "nvidia-smi: unsupported is [N/A]" "$out" "[N/A], [Insufficient Permissions]"
out=$(smi --query-compute-apps=timestamp,gpu_serial,pid,name,used_memory --format=csv,noheader -i 0 | sed 's/^[0-9/]* [0-9:.]*, //')
expect_match "nvidia-smi compute apps serial, alias" "$out" '^[0-9]+, 5001, python3 train.py, 6144 MiB'
out=$(smi --query-compute-apps=pid --format=csv -i 1)
expect_eq "nvidia-smi compute apps without processes: the header only" "$out" "pid"
printf 'gpu 0\n  name T\n  process 100 /usr/lib/xorg/Xorg memory=const(40 MiB) type=graphics\n  process 200 python3 memory=const(1 GiB) type=both\n  process 300 python3 eval.py memory=const(2 GiB)\n' > "$T/gfx.scn"
out=$(GPUMON_SIM_SCENARIO="$T/gfx.scn" GPUMON_NVML="$SIM" "$T/nvidia-smi" --query-compute-apps=pid,used_memory --format=csv,noheader)
expect_eq "compute apps: compute and compute+graphics processes, not graphics-only ones" "$out" "$(printf '200, 1024 MiB\n300, 2048 MiB')"
printf 'gpu 0-1\n  name T\ngpu 1\n  at 0 no_permission handle\n' > "$T/handle.scn"
out=$(GPUMON_SIM_SCENARIO="$T/handle.scn" GPUMON_NVML="$SIM" "$T/nvidia-smi" --query-gpu=index --format=csv); rc=$?
expect_eq "a handle refused (not lost): nvidia-smi's message" "$out" "Unable to determine the device handle for GPU 1: Insufficient Permissions"
expect_eq "a handle refused: nvidia-smi's status (4, no permission)" "$rc" 4
out=$(GPUMON_SIM_SCENARIO="$T/handle.scn" GPUMON_NVML="$SIM" "$T/nvidia-smi" -L); rc=$?
expect_eq "-L with a handle refused: the same status" "$rc" 4
words=$(printf 'noheader,%.0s' $(seq 40))
smi --query-gpu=index --format=csv,${words}bogus > "$T/out"; rc=$?
expect_eq "a bad --format word after a long list is still checked" "$rc" 2
long="$T/$(printf 'd%.0s' $(seq 120))/$(printf 'e%.0s' $(seq 140))"
mkdir -p "$long" && ln -s "$GPUMON" "$long/nvidia-smi"
out=$(GPUMON_SIM_SCENARIO="$SRC/tests/cli/query.scn" GPUMON_NVML="$SIM" "$long/nvidia-smi" -L | head -1)
expect_match "invoked as nvidia-smi through a path over 255 characters" "$out" '^GPU 0: NVIDIA H100'
smi --query-gpu=index --format=csv -l 1 -i 0 >&- 2> "$T/err"; rc=$?
expect_eq "loop mode on a closed standard output ends with an error" "$rc" 1
expect_match "... and says so" "$(cat "$T/err")" "could not be written to standard output: Bad file descriptor"
expect_eq "--help-query-gpu lists every field" \
  "$("$GPUMON" query --help-query-gpu | grep -c '^"')" "$(( $(grep -c '^    {"' "$SRC/src/query_table.c") - 1 + $(grep -c '^    ROW(P,' "$SRC/src/clock_reasons.h") ))"
expect_match "--help-query-gpu" "$("$GPUMON" query --help-query-gpu)" '"clocks.current.sm" or "clocks.sm"'
man=$(sed 's/\\//g' "$SRC/man/gpumon.1")
help=$("$GPUMON" query --help)
for opt in query-gpu query-compute-apps format id loop loop-ms filename help-query-gpu help-query-compute-apps; do
  expect_match "man page mentions --$opt" "$man" -- "--$opt"
  expect_match "query --help mentions --$opt" "$help" -- "--$opt"
done
expect_match "gpumon --help lists query" "$("$GPUMON" --help)" "query +nvidia-smi compatible"

# More processes than a record lists (32): the count and memory stay true (they were 32 and the 32's
# sum), the list keeps the largest and says how many it leaves out, and the exporter and the
# compute-apps query agree (the query's rows are nvidia-smi's, the cap is said on stderr).
{ printf 'gpu 0\n  name NVIDIA A100-SXM4-80GB\n'
  for i in $(seq 1 44); do printf '  process %d worker%d memory=const(%d MiB)\n' $((5000 + i)) $i $((i * 4)); done; } > "$T/many.scn"
GPUMON_SIM_SCENARIO="$T/many.scn" gp watch --once --format jsonl > "$T/many.jsonl" 2> /dev/null
pycheck "$T/many.jsonl" '
g = recs[0]["gpus"][0]
assert g["processes.count"] == 44 and g["processes.used_memory"] == 4 * 44 * 45 // 2, (g["processes.count"], g["processes.used_memory"])
mem = [p["used_memory"] for p in g["processes"]]
assert len(mem) == 32 and g["processes_omitted"] == 12, (len(mem), g.get("processes_omitted"))
assert sorted(mem, reverse=True) == mem and min(mem) == 4 * 13, mem   # the 32 largest
'
gp watch --once --format jsonl > "$T/few.jsonl" 2> /dev/null
"$PY" - "$T/few.jsonl" <<'PYEOF' && ok || fail "a list that is not capped says nothing of omissions"
import json, sys
assert all("processes_omitted" not in g for l in open(sys.argv[1]) for g in json.loads(l)["gpus"])
PYEOF
out=$(GPUMON_SIM_SCENARIO="$T/many.scn" gp query --query-compute-apps=pid --format=csv,noheader 2> "$T/err")
expect_eq "compute apps: the rows a record holds" "$(printf '%s\n' "$out" | wc -l)" 32
expect_match "compute apps: the cap said" "$(cat "$T/err")" "GPU 0 runs 44 processes; the 32 using the most memory are listed \(12 left out\)"
if [ "$HAVE_SERVE" = 1 ]; then
  port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  GPUMON_SIM_SCENARIO="$T/many.scn" "$GPUMON" serve --nvml "$SIM" --web.listen-address "127.0.0.1:$port" \
    --interval 100ms 2> /dev/null &
  spid=$!
  wait_for "the exporter" 'curl -sf -o "$T/many.prom" "http://127.0.0.1:$port/metrics"'
  kill $spid; wait $spid
  expect_match "exporter: the true count" "$(cat "$T/many.prom")" 'gpumon_gpu_processes\{[^}]*\} 44'
  expect_match "exporter: the true memory" "$(cat "$T/many.prom")" "gpumon_gpu_processes_memory_bytes\{[^}]*\} $((4 * 44 * 45 / 2 * 1048576))"
fi
done_tests
