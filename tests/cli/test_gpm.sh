# GPM (SM, tensor, DRAM activity on Hopper and newer) end to end on the simulator: every output, the
# reasons it is missing, the 100 ms pair rule at fast intervals, the exporter's and dcgm's names, and
# the verdicts on the bundled scenarios written for it (logs fast-forwarded 20x: records carry the
# scenario's clock, so window rules see minutes of a job).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.sh"

# log SCENARIO RECORDS: $T/SCENARIO.jsonl, RECORDS seconds of scenario time at 1 s per record
log() {
  GPUMON_SIM_SPEED=20 SCENARIO="$SCN/$1.scn" gp watch --format jsonl --count "$2" --interval 1s \
    > "$T/$1.jsonl" 2> /dev/null || fail "$1: gpumon watch failed"
  quiet_host "$T/$1.jsonl"
}
verdicts() { "$GPUMON" diagnose "$T/$1.jsonl" 2>&1; }
# The scenario logs wait on the clock, not the CPU: record them all at once, check them at the end.
for spec in tiny-kernels:90 fp32-no-tensor:90 memory-bound:90 healthy-hopper:90 one-job-on-node:90 startup:120 \
            checkpoint:200; do
  log "${spec%%:*}" "${spec##*:}" &
done

# Every output carries GPM.
out=$(SCENARIO="$SCN/healthy-hopper.scn" gp watch --once --format csv \
        --fields index,utilization.gpu,gpm.sm_active,gpm.tensor_active,gpm.dram_active 2> /dev/null)
expect_match "CSV: GPM values on an H100" "$out" $'\n0,[0-9]+,[0-9]+\\.[0-9],[0-9]+\\.[0-9],[0-9]+\\.[0-9]'
text=$(SCENARIO="$SCN/healthy-hopper.scn" gp watch --once 2> /dev/null)
expect_match "text: SM and tensor activity beside utilization" "$text" "util +[0-9]+%.*sm active +[0-9]+% tensor +[0-9]+%"
SCENARIO="$SCN/healthy-hopper.scn" gp watch --once --format jsonl > "$T/one.jsonl" 2> /dev/null
pycheck "$T/one.jsonl" '
g = recs[0]["gpus"][0]
keys = ["gpm.graphics_active", "gpm.sm_active", "gpm.sm_occupancy", "gpm.tensor_active", "gpm.tensor_hmma_active",
        "gpm.dram_active", "gpm.fp32_active", "gpm.fp16_active", "gpm.fp64_active", "gpm.pcie.tx", "gpm.pcie.rx",
        "gpm.nvlink.rx", "gpm.nvlink.tx"]
assert all(isinstance(g[k], (int, float)) for k in keys), {k: g[k] for k in keys}
assert 0 <= g["gpm.tensor_active"] <= g["gpm.sm_active"] <= g["gpm.graphics_active"] <= 100, g
assert "errors" not in g or not any(k.startswith("gpm.") for k in g["errors"]), g.get("errors")'
listed=$("$GPUMON" --list-metrics 2>&1)
expect_match "--list-metrics lists GPM" "$listed" "gpm\\.sm_active"

# Missing GPM says why, never 0: before Hopper, no permission, a vGPU slice, a driver before 520.
csv() { gp watch --once --format csv --fields index,gpm.sm_active "$@" 2> /dev/null | tail -n +2; }
expect_match "A100: not supported" "$(SCENARIO="$SCN/small-batch.scn" csv)" ",0,\[Not Supported\]$"
printf 'gpu 0\n  name NVIDIA H100 80GB HBM3\n  util.gpu = const(90)\n  at 0 no_permission gpm\n' > "$T/noperm.scn"
expect_match "no permission" "$(SCENARIO="$T/noperm.scn" csv)" ",0,\[Insufficient Permissions\]$"
printf 'gpu 0\n  name NVIDIA H100 80GB HBM3\n  util.gpu = const(90)\n  unsupported gpm\n' > "$T/vgpu.scn"
expect_match "vGPU: not supported" "$(SCENARIO="$T/vgpu.scn" csv)" ",0,\[Not Supported\]$"
old=$(GPUMON_SIM_SCENARIO="$SCN/healthy-hopper.scn" "$GPUMON" watch --once --format csv --fields index,gpm.sm_active \
        --nvml "$BUILD/sim/legacy-470/libnvidia-ml.so.1" 2> /dev/null | tail -n +2)
expect_match "driver 470: no GPM symbols" "$old" ",0,\[Not Supported\]$"
SCENARIO="$SCN/small-batch.scn" gp watch --count 6 --interval 100ms --format jsonl > "$T/a100.jsonl" 2> /dev/null
pycheck "$T/a100.jsonl" '
g = recs[-1]["gpus"][0]
assert g["gpm.sm_active"] is None and "gpm.sm_active" not in g.get("errors", {}), g  # null: not supported'
expect_match "summary: why GPM is missing" "$("$GPUMON" diagnose "$T/a100.jsonl" 2>&1)" \
  "GPM not available: not supported here: GPM needs a Hopper or newer GPU and driver 520 or newer"
GPUMON_SIM_SCENARIO="$SCN/healthy-hopper.scn" "$GPUMON" watch --count 6 --interval 100ms --format jsonl \
  --nvml "$BUILD/sim/legacy-470/libnvidia-ml.so.1" > "$T/r470.jsonl" 2> /dev/null
expect_match "summary: driver without GPM" "$("$GPUMON" diagnose "$T/r470.jsonl" 2>&1)" "GPM not available: .*driver 520 or newer"
"$GPUMON" diagnose "$T/a100.jsonl" --format json > "$T/a100.json" 2>&1
pycheck_json() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1" && ok || fail "json check: $2"; }
pycheck_json "$T/a100.json" 'g = d["gpus"][0]["gpm"]; assert g["available"] is False and g["code"] == 3, g'

# The 100 ms rule: at 10 ms and 50 ms, GPM comes from pairs at least 100 ms apart (a closer pair's
# values are meaningless; the simulator scrambles them), so every value is the true one, held until
# the next pair: at most one new value per 100 ms.
printf 'gpu 0\n  name NVIDIA H100 80GB HBM3\n  util.gpu = const(90)\n  gpm.sm = const(50)\n  gpm.tensor = const(30)\n' \
  > "$T/flat.scn"
for iv in 10 50; do
  SCENARIO="$T/flat.scn" gp watch --interval ${iv}ms --count $((1500 / iv)) --format jsonl --fields gpm.sm_active,gpm.tensor_active \
    > "$T/fast$iv.jsonl" 2> /dev/null
  pycheck "$T/fast$iv.jsonl" "
vals = [r['gpus'][0]['gpm.sm_active'] for r in recs]
assert all(v is not None and 49.5 <= v <= 50.5 for v in vals), vals
assert all(29.5 <= r['gpus'][0]['gpm.tensor_active'] <= 30.5 for r in recs)
assert len(recs) == $((1500 / iv)), len(recs)"
done

# The exporter: gpumon's names pass promtool's linter; dcgm's profiling names with dcgm's units.
if command -v promtool > /dev/null && [ "${HAVE_SERVE:-1}" = 1 ]; then
  for mode in gpumon dcgm; do
    port=$(free_ports)
    extra=(); [ $mode = dcgm ] && extra=(--compat dcgm)
    start $mode env GPUMON_SIM_SCENARIO="$SCN/healthy.scn" "$GPUMON" serve --nvml "$SIM" \
      --web.listen-address "127.0.0.1:$port" --interval 200ms "${extra[@]}"
    wait_for "the $mode exporter" 'curl -sf "http://127.0.0.1:$port/metrics" > "$T/$mode.txt" 2> /dev/null'
    stop $mode
  done
  m=$(cat "$T/gpumon.txt")
  expect_match "exporter: SM active ratio" "$m" '^gpumon_gpu_sm_active_ratio\{gpu="0",uuid="GPU-[^"]+"\} 0\.[0-9]+'
  expect_match "exporter: tensor pipes by label" "$m" '^gpumon_gpu_tensor_pipe_active_ratio\{[^}]*pipe="hmma"\} 0\.'
  expect_match "exporter: NVLink bytes per second" "$m" '^gpumon_gpu_nvlink_bytes_per_second\{[^}]*direction="rx"\} [0-9.e+]+'
  out=$(promtool check metrics < "$T/gpumon.txt" 2>&1); rc=$?
  expect_eq "promtool check metrics with GPM: exit status and output" "$rc:$out" "0:"
  d=$(cat "$T/dcgm.txt")
  for f in GR_ENGINE_ACTIVE SM_ACTIVE SM_OCCUPANCY PIPE_TENSOR_ACTIVE DRAM_ACTIVE PIPE_FP64_ACTIVE PIPE_FP32_ACTIVE \
           PIPE_FP16_ACTIVE PCIE_TX_BYTES PCIE_RX_BYTES NVLINK_TX_BYTES NVLINK_RX_BYTES; do
    expect_match "dcgm: DCGM_FI_PROF_$f" "$d" "^DCGM_FI_PROF_$f\\{gpu=\"0\""
  done
  "$PY" - "$T/dcgm.txt" <<'PYEOF' && ok || fail "dcgm: ratios within 0-1, bytes per second in bytes"
import re, sys
vals = {}
for line in open(sys.argv[1]):
    m = re.match(r'(DCGM_FI_PROF_\w+)\{gpu="0".*\} (\S+)$', line)
    if m:
        vals[m.group(1)] = float(m.group(2))
assert all(0 <= v <= 1 for k, v in vals.items() if k.endswith("ACTIVE") or k.endswith("OCCUPANCY")), vals
assert vals["DCGM_FI_PROF_NVLINK_RX_BYTES"] == 0, vals   # no NVLink traffic in the scenario
assert vals["DCGM_FI_PROF_PCIE_RX_BYTES"] > 1e7, vals   # ~110 MB/s in the scenario
PYEOF
fi

# Verdicts on the scenarios written for GPM and for the false verdicts once raised.
wait
v=$(verdicts tiny-kernels)
expect_match "tiny kernels: busy but underused" "$v" "WARNING +busy-underused"
expect_match "tiny kernels: the SM evidence" "$v" "evidence: utilization mean 9[0-9]%.*SM activity [12][0-9]%"
expect_no_match "tiny kernels: not healthy" "$v" "OK +healthy"
v=$(verdicts fp32-no-tensor)
expect_match "FP32: no tensor cores on both GPUs (one block)" "$v" "GPUs 0-1  WARNING  no-tensor-cores"
expect_match "FP32: mixed precision advised" "$v" "mixed_float16"
v=$(verdicts memory-bound)
expect_match "memory-bound: info" "$v" "INFO +memory-bound"
expect_no_match "memory-bound: not underused, not warned" "$v" "busy-underused|WARNING"
v=$(verdicts healthy-hopper)
expect_match "healthy Hopper: healthy on all 4 (one block)" "$v" "GPUs 0-3  OK       healthy"
expect_no_match "healthy Hopper: nothing else" "$v" "WARNING|INFO|CRITICAL"
expect_match "healthy Hopper: GPM in the summary" "$v" "GPM: SM activity mean 8[0-9]\\.[0-9]%  tensor cores 4[0-9]"
v=$(verdicts one-job-on-node)
expect_no_match "one job on a node: no straggler" "$v" "straggler"
expect_match "one job on a node: 7 idle GPUs (one block)" "$v" "GPUs 1-7  INFO     idle"
v=$(verdicts startup)
expect_no_match "start-up: not input-bound" "$v" "input-bound|small-batch|memory-pressure"
expect_match "start-up: healthy at the end" "$v" "healthy: .*"$'\n'".*still at the end"
# A checkpoint pause with what `gpumon run` sees meanwhile: the job's busiest process on one core
# (serializing) and the host in iowait (writing). A pause, not an input stall.
"$PY" - "$T/checkpoint.jsonl" <<'PYEOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
with open(sys.argv[1], "w") as out:
    for r in recs:
        pausing = r["gpus"][0]["utilization.gpu"] < 20
        r["host"].update({"host.cpu.count": 32, "host.cpu.iowait": 24.0 if pausing else 0.4,
                          "job.cpu": 1.1 if pausing else 3.2, "job.cpu.top": 1.0 if pausing else 0.6,
                          "job.rss": 9000, "job.processes": 9, "job.io.read": 0})
        out.write(json.dumps(r) + "\n")
PYEOF
v=$(verdicts checkpoint)
expect_match "checkpoint: a pause" "$v" "INFO +pause"
expect_match "checkpoint: its evidence" "$v" "idle for [0-9]+ s in 1 stretch"
expect_no_match "checkpoint: not input-bound" "$v" "input-bound|WARNING"
done_tests
