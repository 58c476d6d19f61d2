"""benchlib.py: helpers shared by the benchmarks."""
import os, re, subprocess


def sim_share(args, env):
    """Instructions of one run of args (gpumon on the simulated NVML), split by
    callgrind into (total, inside the simulator's nvml* entry points).
    None when valgrind is not installed."""
    if subprocess.run(["sh", "-c", "command -v valgrind callgrind_annotate"],
                      stdout=subprocess.DEVNULL).returncode != 0:
        return None
    out = "/tmp/gpumon-bench-cg.%d" % os.getpid()
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + args, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = annotate_share(out)
    os.unlink(out)
    return r


def annotate_share(out):
    """(total, inside the NVML library's nvml* entry points) of a callgrind output file: the simulated
    NVML's, or the stand-in's (bench/nvml_free.c), under gpumon or under another client such as nvtop."""
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                         capture_output=True, text=True, check=True).stdout
    # callgrind_annotate may list one function in several forms (file:fn,
    # ???:fn, fn [object]); take each NVML entry point's largest inclusive
    # count once. gpumon's own functions are nvml_*; the simulator's are nvmlX.
    total, per_fn = 0, {}
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)$", line)
        if not m:
            continue
        ir, rest = int(m.group(1).replace(",", "")), m.group(2)
        if "PROGRAM TOTALS" in rest:
            total = ir
            continue
        fn = re.search(r":(nvml[A-Z]\w*)", rest)
        if fn and "/gpumon]" not in rest:
            per_fn[fn.group(1)] = max(per_fn.get(fn.group(1), 0), ir)
    return total, sum(per_fn.values())
