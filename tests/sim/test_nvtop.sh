# test_nvtop.sh: an installed nvtop (3.x, with -s snapshot mode) on the simulated NVML.
# nvtop dlopens libnvidia-ml.so.1 and requires about 25 functions at start-up (it gives up without
# them) and reads MIG mode and the MPS lists when present; LD_LIBRARY_PATH points it at build/sim.
# Skipped (77) where no nvtop with -s is installed (Debian 12's archive has none in main).
# Usage: BUILD=build SRC=. bash tests/sim/test_nvtop.sh
set -u
: "${BUILD:?set BUILD}" "${SRC:?set SRC}"
NVTOP=$(command -v nvtop) || { echo "test_nvtop: no nvtop installed: skipped"; exit 77; }
"$NVTOP" --help 2>&1 | grep -q -- '--snapshot' || { echo "test_nvtop: $NVTOP has no -s: skipped"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gpumon-nvtop.XXXXXX")
trap 'rm -rf "$T"' EXIT
LD_LIBRARY_PATH="$BUILD/sim" GPUMON_SIM_SCENARIO="$SRC/tests/sim/clients.scn" GPUMON_SIM_START=5 \
  timeout 30 "$NVTOP" -s > "$T/snap.json" 2> "$T/err" || { echo "FAIL: nvtop -s: $(cat "$T/err")"; exit 1; }
/usr/bin/python3 - "$T/snap.json" <<'PYEOF'
import json, sys
gpus = json.load(open(sys.argv[1]))
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, expected {want!r}")
eq("GPUs", len(gpus), 8)
eq("names", [g["device_name"] for g in gpus][:3],
   ["NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 2080 SUPER", "NVIDIA A100-SXM4-80GB"])
eq("H100 utilization with MIG on", gpus[0].get("gpu_util"), None)
eq("GeForce processes", sorted((p["pid"], p["kind"]) for p in gpus[1]["processes"]),
   [("3001", "graphic"), ("3002", "compute")])        # 3002 comes from the MPS list
eq("A100 power (unsupported)", gpus[2].get("power_draw"), None)
eq("L40S utilization", gpus[3]["gpu_util"], "0%")
for b in bad:
    print("FAIL:", b)
print(f"test_nvtop: {'failed' if bad else 'passed'} ({len(gpus)} GPUs)")
sys.exit(1 if bad else 0)
PYEOF
