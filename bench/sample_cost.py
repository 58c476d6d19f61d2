#!/usr/bin/python3
"""sample_cost.py: what one sample costs gpumon itself, against nvtop on the same driver, in the
same run. The driver is the stand-in libnvidia-ml.so.1 whose calls cost nothing (bench/nvml_free.c,
built as BUILD/nvml-free/libnvidia-ml.so.1: 8 busy H200s), so what is measured is each client's own
work; nvtop (from $NVTOP, else PATH; built from its source with NVIDIA support only) loads it through
LD_LIBRARY_PATH.

  instructions  callgrind: `gpumon watch --format jsonl|csv|text` with every metric (82 per GPU), 10 ms
                interval, (run of 201 samples - run of 1) / 200, outside the stand-in's entry points;
                `nvtop -l` (its JSON loop, every 100 ms), (a longer run - a shorter one) / the
                refreshes between them, the same way. nvtop's refresh reads ~15 values per GPU.
  tight loop    build/bench/sample_loop: the sampler and each sink back to back, thread CPU per sample
                (no wake-up, warm caches): gpumon's own CPU per 8-GPU sample at its least.
  in place      `gpumon watch --format jsonl` every 10 ms, all metrics against `--fields index` (the same
                wake-ups, sleeps and writes), CPU per sample from wait4, alternating rounds, median: what
                sampling and formatting every metric add to a real watch. With BASE=BUILD_DIR (an older
                build), its gpumon is measured the same way in the same rounds, alternating.
  per refresh   CPU per sample of `gpumon watch --format jsonl` every 100 ms against nvtop's per
                refresh at its fastest (100 ms), wake-ups included, alternating rounds, median.
  gpumon run    its own CPU per second (every thread's schedstat, read by the job at its end) at the
                default 1 s interval on the 8 GPUs, with a job stepping 1,000 times a second through the
                step channel (bench/steps_cost.py --paced) and the rules running: (25 s run - 5 s run) / 20.

Targets (issue 27): at most 20 us of gpumon's own CPU per sample, at least 10x below nvtop's per
refresh; CSV and text no slower than JSON Lines; gpumon run at most 1 ms of CPU per second (0.1% of a
core). Usage: [BASE=OLD_BUILD_DIR] bench/sample_cost.py [BUILD_DIR] [ROUNDS]   (default: build 5; needs valgrind)
"""
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
here = os.path.dirname(os.path.abspath(__file__))
gpumon = os.path.join(build, "gpumon")
free = os.path.join(build, "nvml-free", "libnvidia-ml.so.1")
loop = os.path.join(build, "bench", "sample_loop")
nvtop = os.environ.get("NVTOP") or shutil.which("nvtop")
base = os.environ.get("BASE")
base_gpumon = os.path.join(os.path.abspath(base), "gpumon") if base else None
env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(free))
env.pop("GPUMON_SIM_SCENARIO", None)


def watch_args(fmt, count, interval="10ms", fields=None, binary=None):
    extra = ["--fields", fields] if fields else []
    return [binary or gpumon, "watch", "--nvml", free, "--interval", interval, "--count", str(count), "--format", fmt,
            "--output", "/dev/null"] + extra


def own_instructions(args):
    """(all instructions, those outside the stand-in's entry points) of one run, by callgrind."""
    r = benchlib.sim_share(args, env)
    return None if r is None else (r[0], r[0] - r[1])


def gpumon_instructions(fmt):
    a, b = own_instructions(watch_args(fmt, 1)), own_instructions(watch_args(fmt, 201))
    return None if a is None or b is None else ((b[0] - a[0]) / 200, (b[1] - a[1]) / 200)


def nvtop_run(seconds, valgrind=False):
    """Runs `nvtop -l` for seconds; (instructions and own instructions under callgrind, or CPU seconds from
    wait4 without it, and the refreshes it printed)."""
    cg = "/tmp/gpumon-bench-nvtop-cg.%d" % os.getpid()
    cmd = ([nvtop, "-l", "-d", "1"] if not valgrind else
           ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg, nvtop, "-l", "-d", "1"])
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(seconds)
        os.killpg(p.pid, signal.SIGINT)
        _, _, ru = os.wait4(p.pid, 0)
        out.seek(0)
        text = out.read()
    refreshes = text.count(b"\n[\n") + text.startswith(b"[\n")
    if not valgrind:
        return ru.ru_utime + ru.ru_stime, refreshes
    total, inside = benchlib.annotate_share(cg)
    os.unlink(cg)
    return (total, total - inside), refreshes


def nvtop_instructions():
    (a, na), (b, nb) = nvtop_run(4, True), nvtop_run(10, True)
    n = nb - na
    return ((b[0] - a[0]) / n, (b[1] - a[1]) / n) if n > 0 else None


def cpu(args):
    p = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("benchmark command failed: %s" % " ".join(args))
    return ru.ru_utime + ru.ru_stime


def per_sample(fmt, interval, fields=None, n1=50, n2=550, binary=None):
    return ((cpu(watch_args(fmt, n2, interval, fields, binary)) - cpu(watch_args(fmt, n1, interval, fields, binary)))
            / (n2 - n1))


def run_cpu_per_second():
    """gpumon run's own CPU per second (ms), steady state: runs of 25 s and 5 s with a paced job."""
    def once(seconds):
        p = subprocess.run([gpumon, "run", "--nvml", free, "--", sys.executable,
                            os.path.join(here, "steps_cost.py"), "--paced", "1000", str(seconds)],
                           capture_output=True, text=True, timeout=seconds + 60, env=env)
        lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
        if p.returncode != 0 or not lines:
            return None
        return json.loads(lines[-1])["gpumon_cpu_s"]
    got = []
    for _ in range(3):
        a, b = once(5), once(25)
        if a is None or b is None:
            return None
        got.append((b - a) / 20 * 1e3)
    return statistics.median(got)


def main():
    for path, what in ((gpumon, "gpumon"), (free, "the stand-in NVML"), (loop, "bench/sample_loop")):
        if not os.path.exists(path):
            sys.exit("build %s first (cmake --build %s)" % (what, build))
    print("8 H200s on the stand-in NVML whose calls cost nothing (bench/nvml_free.c), every metric")
    print("callgrind, instructions per sample (gpumon: 82 values per GPU; nvtop: its JSON loop's ~15)")
    ins = {fmt: gpumon_instructions(fmt) for fmt in ("jsonl", "csv", "text")}
    nv = nvtop_instructions() if nvtop else None
    for fmt, r in ins.items():
        if r:
            print("  %-44s %10.0f  (%.0f with the stand-in's)" % ("gpumon watch --format " + fmt, r[1], r[0]))
    if nv:
        print("  %-44s %10.0f  (%.0f with the stand-in's)" % ("nvtop -l, per refresh", nv[1], nv[0]))
    out = subprocess.run([loop, free, "20000", str(rounds)], capture_output=True, text=True, check=True).stdout
    tight = {k: float(v) / 1e3 for k, v in (line.split() for line in out.splitlines())}
    print("tight loop (bench/sample_loop: no wake-up, warm caches), CPU per sample")
    print("  %-44s %10.1f us" % ("sampling alone", tight["sample"]))
    for fmt in ("jsonl", "csv", "text"):
        print("  %-44s %10.1f us" % ("sampling and " + fmt, tight[fmt]))
    full, idx, g100, n100, bfull, bidx = [], [], [], [], [], []
    for _ in range(rounds):
        full.append(per_sample("jsonl", "10ms"))
        idx.append(per_sample("jsonl", "10ms", "index"))
        if base_gpumon:
            bfull.append(per_sample("jsonl", "10ms", binary=base_gpumon))
            bidx.append(per_sample("jsonl", "10ms", "index", binary=base_gpumon))
        g100.append(per_sample("jsonl", "100ms", None, 10, 60))
        if nvtop:
            c1, r1 = nvtop_run(1.5)
            c2, r2 = nvtop_run(6.5)
            n100.append((c2 - c1) / (r2 - r1) if r2 > r1 else float("nan"))
    full, idx, g100 = statistics.median(full), statistics.median(idx), statistics.median(g100)
    print("in place: gpumon watch --format jsonl every 10 ms, CPU per sample (wait4), median of %d" % rounds)
    print("  %-44s %10.1f us" % ("every metric", full * 1e6))
    print("  %-44s %10.1f us" % ("--fields index (wake-up, sleep, write)", idx * 1e6))
    print("  %-44s %10.1f us" % ("what every metric adds (gpumon's own)", (full - idx) * 1e6))
    if base_gpumon:
        bfull, bidx = statistics.median(bfull), statistics.median(bidx)
        print("  %-44s %10.1f us (every metric %.1f, index %.1f)" % ("the same, BASE's gpumon, same rounds",
                                                                      (bfull - bidx) * 1e6, bfull * 1e6, bidx * 1e6))
    print("per refresh at 100 ms, wake-ups included, median of %d" % rounds)
    print("  %-44s %10.1f us" % ("gpumon watch --format jsonl, every metric", g100 * 1e6))
    if n100:
        n100 = statistics.median(n100)
        print("  %-44s %10.1f us" % ("nvtop -l -d 1", n100 * 1e6))
    run = run_cpu_per_second()
    if run is not None:
        print("gpumon run at 1 s, 8 GPUs, a job at 1,000 steps/s through the step channel, the rules on")
        print("  %-44s %10.2f ms per second (%.3f%% of a core)" % ("own CPU, every thread", run, run / 10))
    j = ins.get("jsonl")
    if j and nv:
        print("ratio: nvtop's own instructions per refresh are %.2fx gpumon's per JSON Lines sample "
              "(target: 10x)" % (nv[1] / j[1]))
    if n100:
        print("ratio: nvtop's CPU per refresh is %.2fx gpumon watch's per sample at 100 ms, wake-ups included"
              % (n100 / g100))
    print("ratio: gpumon's own CPU per JSON Lines sample is %.1f us in a tight loop, %.1f us in place "
          "(target: 20 us)" % (tight["jsonl"], (full - idx) * 1e6))
    print("ratio: CSV costs %.2fx and text %.2fx the CPU of JSON Lines per sample (tight loop; target: "
          "at most 1x)" % (tight["csv"] / tight["jsonl"], tight["text"] / tight["jsonl"]))
    if run is not None:
        print("ratio: gpumon run uses %.2fx the target's CPU per second (1 ms)" % run)


if __name__ == "__main__":
    main()
