#!/usr/bin/python3
"""query_cost.py: the cost of one `gpumon query` process for 8 simulated GPUs
(start-up included), against a one-shot Python script that spawns the same
query and parses its CSV the way monitoring scripts parse nvidia-smi, in the
same run. Prints medians of CPU (user+system), wall time and peak RSS, and
the ratios. The simulated NVML runs inside the gpumon process, so its work
counts toward gpumon's figures. Usage: bench/query_cost.py [BUILD_DIR]
"""
import os, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else "build"
gpumon = os.path.abspath(os.path.join(build, "gpumon"))
sim = os.path.abspath(os.path.join(build, "sim", "libnvidia-ml.so.1"))
here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, GPUMON_SIM_SCENARIO=os.path.join(here, "..", "examples", "scenarios", "idle-8xh200.scn"))
fields = "index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,clocks.sm,pstate"
query = [gpumon, "query", "--nvml", sim, "--query-gpu=" + fields, "--format=csv,noheader,nounits"]
script = ("import subprocess\n"
          "out = subprocess.run(%r, capture_output=True, text=True, check=True).stdout\n"
          "rows = [[x.strip() for x in l.split(',')] for l in out.splitlines()]\n"
          "assert len(rows) == 8 and all(int(r[2]) >= 0 and float(r[6]) > 0 for r in rows)\n" % (query,))


def measure(args, runs):
    """Medians of CPU and wall from wait4 on the command itself, and of peak RSS
    from GNU time in separate runs (a child forked from this Python process
    would report Python's RSS from before its exec)."""
    cpu, wall, rss = [], [], []
    for _ in range(runs):
        t0 = time.monotonic()
        p = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall.append(time.monotonic() - t0)
        if status != 0:
            sys.exit("benchmark command failed: %s" % " ".join(args))
        cpu.append(ru.ru_utime + ru.ru_stime)
    for _ in range(5):
        out = "/tmp/gpumon-qbench.%d" % os.getpid()
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out] + args, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            rss.append(int(f.read().split()[-1]))
        os.unlink(out)
    return statistics.median(cpu), statistics.median(wall), statistics.median(rss)


base = measure(["/bin/true"], 40)
g = measure(query, 40)
b = measure(["/usr/bin/python3", "-c", script], 15)
print("one query of 8 simulated GPUs (%d fields), medians" % len(fields.split(",")))
print("  %-40s %10s %10s %12s" % ("", "CPU", "wall", "peak RSS"))
print("  %-40s %7.2f ms %7.2f ms %8.2f MiB" % ("gpumon query (start-up included)", g[0] * 1e3, g[1] * 1e3, g[2] / 1024))
print("  %-40s %7.2f ms %7.2f ms %8.2f MiB" % ("python script spawning and parsing it", b[0] * 1e3, b[1] * 1e3,
                                                b[2] / 1024))
print("  %-40s %7.2f ms %7.2f ms %8.2f MiB" % ("(/bin/true, the cost of any process)", base[0] * 1e3,
                                                base[1] * 1e3, base[2] / 1024))
split = benchlib.sim_share(query, env)
if split:
    total, in_sim = split
    print("instructions of one query (callgrind): %d in all, %d (%.0f%%) inside the simulated NVML,"
          % (total, in_sim, 100.0 * in_sim / total))
    print("  %d in gpumon, libc and the dynamic loader" % (total - in_sim))
print("ratio: the Python one-shot costs %.0fx the CPU and %.0fx the wall time of gpumon query alone"
      % (b[0] / max(g[0], 1e-6), b[1] / g[1]))
