# test_nvtop.sh: an installed nvtop on the simulated NVML, its figures compared with gpumon's own reading of
# the same scenario at the same (frozen) scenario time. nvtop dlopens libnvidia-ml.so.1 and requires about
# 25 functions at start-up (it gives up without them) and reads MIG mode and the MPS lists when present;
# LD_LIBRARY_PATH points it at build/sim. nvtop 3.1 and later print a JSON snapshot (-s); Debian's 3.0.1
# (contrib: scripts/deps.sh test installs it) only draws its screen, which is read in tmux (a pane of a
# fixed size, no colour, no plot). Skipped (77) where no nvtop (or, for 3.0, no tmux) is installed.
# Usage: BUILD=build SRC=. bash tests/sim/test_nvtop.sh
set -u
: "${BUILD:?set BUILD}" "${SRC:?set SRC}"
NVTOP=$(command -v nvtop) || { echo "test_nvtop: no nvtop installed (scripts/deps.sh test installs it): skipped"; exit 77; }
snapshot=0
"$NVTOP" --help 2>&1 | grep -q -- '--snapshot' && snapshot=1
[ $snapshot = 1 ] || command -v tmux > /dev/null || { echo "test_nvtop: $NVTOP draws only its screen and tmux is not installed: skipped"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gpumon-nvtop.XXXXXX")
trap 'rm -rf "$T"' EXIT
export GPUMON_SIM_SCENARIO="$SRC/tests/sim/clients.scn" GPUMON_SIM_START=5 GPUMON_SIM_SPEED=0   # frozen at 5 s
"$BUILD/gpumon" --nvml "$BUILD/sim/libnvidia-ml.so.1" --once -f jsonl > "$T/gpumon.jsonl" 2> "$T/err" ||
  { echo "FAIL: gpumon --once: $(cat "$T/err")"; exit 1; }
if [ $snapshot = 0 ]; then
  SOCK="$T/tmux.sock"
  tmux -S "$SOCK" -f /dev/null new-session -d -x 110 -y 50 \
    "env LD_LIBRARY_PATH='$BUILD/sim' TERM=xterm LANG=C.UTF-8 '$NVTOP' -C -p 2> '$T/err'; sleep 60"
  prev="" screen=""
  for _ in $(seq 100); do   # until all eight GPUs and the processes are drawn, and the screen stays the same
    sleep 0.1
    screen=$(tmux -S "$SOCK" capture-pane -p 2> /dev/null)
    if [ "$(printf '%s\n' "$screen" | grep -c '^ Device [0-9] \[')" = 8 ] && printf '%s' "$screen" | grep -q ' 3001 ' &&
       [ "$screen" = "$prev" ]; then
      break
    fi
    prev=$screen
  done
  tmux -S "$SOCK" kill-server 2> /dev/null
  printf '%s\n' "$screen" > "$T/screen.txt"
  /usr/bin/python3 - "$T/screen.txt" "$T/gpumon.jsonl" "$("$NVTOP" --version 2>&1)" <<'PYEOF'
import json, re, sys
screen = open(sys.argv[1]).read()
gpus = json.loads(open(sys.argv[2]).readline())["gpus"]
bad = []
checks = 0
def eq(what, got, want):
    global checks
    checks += 1
    if got != want:
        bad.append(f"{what}: nvtop shows {got!r}, gpumon read {want!r}")
dev = re.compile(r"^ Device (\d+) \[(.*?)\] +PCIe GEN (\d+)@(\d+)x .*\n"
                 r" GPU (\d+)MHz +MEM (\d+)MHz +TEMP +(\d+)\S*C FAN +(N/A|\d+)% POW +(N/A|\d+)(?: / (\d+))? W *\n"
                 r" GPU\[[ |]*?(N/A|\d+)%?\] MEM\[[ |]*([0-9.]+)Gi/([0-9.]+)Gi\]", re.M)
seen = {}
for m in dev.finditer(screen):
    seen[int(m.group(1))] = m.groups()[1:]
eq("GPUs drawn", sorted(seen), list(range(len(gpus))))
na = lambda v: "N/A" if v is None else v
for g in gpus:
    if g["index"] not in seen:
        continue
    name, gen, width, sm, mem, temp, fan, pow_, plim, util, used, total = seen[g["index"]]
    w = f"GPU {g['index']} "
    eq(w + "name", name, g["name"])
    eq(w + "PCIe generation and width", (int(gen), int(width)), (g["pcie.link.gen.current"], g["pcie.link.width.current"]))
    eq(w + "SM and memory clocks (MHz)", (int(sm), int(mem)), (g["clocks.sm"], g["clocks.mem"]))
    eq(w + "temperature", int(temp), g["temperature.gpu"])
    eq(w + "fan", fan, str(na(g["fan.speed"])))
    eq(w + "power draw (W, rounded)", pow_, na(None if g["power.draw"] is None else str(round(g["power.draw"]))))
    if plim is not None:
        eq(w + "power limit", int(plim), round(g["power.limit"]))
    eq(w + "utilization", util, str(na(g["utilization.gpu"])))
    # nvtop reads NVML's first memory call, whose used includes the driver's reserved memory; gpumon (as
    # nvidia-smi since driver 510) leaves it out and reports it as memory.reserved
    eq(w + "memory used (GiB, 3 decimals)", used, "%.3f" % ((g["memory.used"] + g["memory.reserved"]) / 1024))
    eq(w + "memory total (GiB)", total, "%.3f" % (g["memory.total"] / 1024))
procs = {int(m.group(1)): (int(m.group(2)), m.group(3), int(m.group(4)))
         for m in re.finditer(r"^ +(\d+) +\S+ +(\d+) +(Compute|Graphic) +\S+ +(\d+)MiB", screen, re.M)}
mine = {p["pid"]: (g["index"], p["used_memory"]) for g in gpus for p in g.get("processes") or []}
eq("processes (pid: GPU, MiB)", {p: (v[0], v[2]) for p, v in procs.items()}, mine)
eq("process kinds", {p: v[1] for p, v in procs.items()}, {2001: "Compute", 3001: "Graphic"})
eq("H100 utilization with MIG on", seen.get(0, [None] * 12)[9], "N/A")
eq("A100 power (unsupported)", seen.get(2, [None] * 12)[7], "N/A")
for b in bad:
    print("FAIL:", b)
if bad or not seen:
    print(screen)
print(f"test_nvtop: {'failed' if bad or not seen else 'passed'} ({sys.argv[3]} on screen, {len(seen)} GPUs, {checks} checks against gpumon)")
sys.exit(1 if bad or not seen else 0)
PYEOF
  exit
fi
LD_LIBRARY_PATH="$BUILD/sim" timeout 30 "$NVTOP" -s > "$T/snap.json" 2> "$T/err" || { echo "FAIL: nvtop -s: $(cat "$T/err")"; exit 1; }
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
