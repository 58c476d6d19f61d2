#!/usr/bin/python3
"""watch_cost.py: CPU time and peak RSS per sample of `gpumon watch` on 8
simulated GPUs with every metric, against the classic approach measured in
the same run: a Python loop that spawns one query process per sample and
parses its CSV output (what scripts do with nvidia-smi; here the spawned
query is gpumon itself, since this machine has no nvidia-smi).

gpumon's figure is an upper bound of its own cost: the simulated NVML runs
inside the gpumon process, so its work (signal evaluation, fake samples) is
counted too. Start-up is cancelled out by timing two runs of different
lengths. The GPUs are H200s, so GPM (SM, tensor, DRAM activity) is read: a
second pair of runs leaves the gpm.* metrics out and gives GPM's added cost
per sample as a ratio, in the same run.
Usage: bench/watch_cost.py [BUILD_DIR]   (default: build)
"""
import os, resource, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else "build"
gpumon = os.path.join(build, "gpumon")
sim = os.path.join(build, "sim", "libnvidia-ml.so.1")
here = os.path.dirname(os.path.abspath(__file__))
scenario = os.path.join(here, "..", "examples", "scenarios", "idle-8xh200.scn")
env = dict(os.environ, GPUMON_SIM_SCENARIO=scenario)


def run(args):
    """Runs a command under GNU time; returns (cpu seconds, peak RSS KiB, wall seconds).
    CPU comes from wait4 (exact); peak RSS from time's %M, because a child forked
    from this Python process would report Python's RSS from before its exec."""
    rss_file = "/tmp/gpumon-bench-rss.%d" % os.getpid()
    t0 = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file] + args, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("benchmark command failed: %s" % " ".join(args))
    with open(rss_file) as f:
        rss = int(f.read().split()[-1])
    os.unlink(rss_file)
    return ru.ru_utime + ru.ru_stime, rss, wall


def watch(count, fields=None, interval="10ms"):
    extra = ["--fields", ",".join(fields)] if fields else []
    return run([gpumon, "watch", "--nvml", sim, "--interval", interval, "--count", str(count),
                "--format", "jsonl", "--output", "/dev/null"] + extra)


def per_sample_cpu(fields, interval, n1, n2):
    return (watch(n2, fields, interval)[0] - watch(n1, fields, interval)[0]) / (n2 - n1)


def metric_keys():
    out = subprocess.run([gpumon, "--list-metrics"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines()[1:] if line.strip()]


def classic(samples):
    """The Python loop: spawn a query per sample, split and convert its CSV."""
    before_self = resource.getrusage(resource.RUSAGE_SELF)
    before_kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = 0
    for _ in range(samples):
        out = subprocess.run([gpumon, "watch", "--nvml", sim, "--once", "--format", "csv"], env=env,
                             capture_output=True, text=True, check=True).stdout
        rows = [line.split(",") for line in out.strip().split("\n")]
        header, data = rows[0], rows[1:]
        util = [int(r[header.index("utilization.gpu")]) for r in data]
        assert len(util) == 8
    after_self = resource.getrusage(resource.RUSAGE_SELF)
    after_kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after_self.ru_utime - before_self.ru_utime + after_self.ru_stime - before_self.ru_stime +
           after_kids.ru_utime - before_kids.ru_utime + after_kids.ru_stime - before_kids.ru_stime)
    peak = max(after_self.ru_maxrss, after_kids.ru_maxrss)
    return cpu / samples, peak


def own_share():
    """Share of the instructions per sample spent in gpumon itself rather than
    in the simulated NVML (callgrind), start-up cancelled by two run lengths."""
    runs = []
    for n in (50, 250):
        r = benchlib.sim_share([gpumon, "watch", "--nvml", sim, "--interval", "10ms", "--count", str(n),
                                "--format", "jsonl", "--output", "/dev/null"], env)
        if r is None:
            return None
        runs.append(r)
    (t1, s1), (t2, s2) = runs
    own = (t2 - s2) - (t1 - s1)
    return own / (t2 - t1), own / 200.0


N1, N2 = 100, 1100
cpu1, rss1, _ = watch(N1)
cpu2, rss2, wall2 = watch(N2)
per_sample = (cpu2 - cpu1) / (N2 - N1)
keys = metric_keys()
no_gpm = [k for k in keys if not k.startswith("gpm.")]
# at 10 ms one sample in ten takes a new GPM pair (pairs are 100 ms apart); at 100 ms every one does
gpm = {iv: (per_sample_cpu(keys, iv, n1, n2), per_sample_cpu(no_gpm, iv, n1, n2))
       for iv, n1, n2 in (("10ms", N1, N2), ("100ms", 20, 220))}
base_cpu, _ = classic(30)
_, base_rss, _ = run([gpumon, "watch", "--nvml", sim, "--once", "--format", "csv"])
base_rss = max(base_rss, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
print("gpumon watch, 8 simulated GPUs, all metrics, 10 ms interval")
print("  %-44s %10.1f us" % ("CPU per sample (gpumon + simulated NVML)", per_sample * 1e6))
print("  %-44s %10.2f MiB" % ("peak RSS", max(rss1, rss2) / 1024))
print("  %-44s %10.2f s for %d samples" % ("wall", wall2, N2))
print("classic loop: Python spawns one query process per sample and parses it")
print("  %-44s %10.1f us" % ("CPU per sample (loop + child)", base_cpu * 1e6))
print("  %-44s %10.2f MiB" % ("peak RSS (largest of the loop and one query)", base_rss / 1024))
share = own_share()
if share:
    print("gpumon's own share (callgrind: instructions outside the simulated NVML)")
    print("  %-44s %10.0f" % ("instructions per sample, gpumon itself", share[1]))
    print("  %-44s %10.1f us (%.0f%% of the sample)" % ("estimated own CPU per sample", per_sample * share[0] * 1e6,
                                                        share[0] * 100))
print("GPM's added cost (the same run: every metric, then every metric but the %d gpm.* ones)" %
      (len(keys) - len(no_gpm)))
for iv, (on, off) in gpm.items():
    print("  %-44s %10.1f us" % ("CPU per sample with GPM, %s interval" % iv, on * 1e6))
    print("  %-44s %10.1f us" % ("CPU per sample without GPM, %s interval" % iv, off * 1e6))
    print("ratio: at %s, a sample with GPM costs %.2fx the CPU of one without" % (iv, on / off))
print("ratio: gpumon uses %.0fx less CPU per sample than the classic loop" % (base_cpu / per_sample))
