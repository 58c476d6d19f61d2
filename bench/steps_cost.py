#!/usr/bin/python3
"""steps_cost.py: what the Python step API (python/gpumon) adds to each training step, against the
same loop without it, measured in the same run.

  outside `gpumon run` (GPUMON_STEPS unset): every call is a no-op; target < 1 us per step
  inside (GPUMON_STEPS set): each step writes a `c` and a `w` entry into the ring; target < 5 us

A step is one `with gpumon.step(): pass`, one item of gpumon.torch.timed() over a list, or a
mark("data") + mark("compute") pair. The baseline is the same loop with an empty body; the figure
is (loop - baseline) / steps, the best of several interleaved runs. A run writes fewer entries than
the ring holds, and before each run the ring is read back and drained, as gpumon does at a sample
(in this process, untimed: the entries are checked and `consumed` advanced), so what is timed is
the write path, not the dropping of entries into a full ring. When GPUMON names the gpumon binary,
the loop is also timed under `$GPUMON run --sim --interval 10ms`, gpumon itself reading the ring
(the script waits for gpumon's next sample between runs), and gpumon's step summary is shown.
With GPUMON set, gpumon run's own CPU is also measured with a job stepping 1,000 times a second,
against the same run with --no-steps (the ratio is gpumon's cost of reading the rings).
Usage: bench/steps_cost.py        (GPUMON=build/gpumon bench/steps_cost.py: also under gpumon run)
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import gpumon  # noqa: E402
from gpumon.torch import timed  # noqa: E402

STEPS = 4000          # 8000 entries a run: the Python writer's ring holds 16384
REPEATS = 15
OUTSIDE_TARGET_NS = 1000
INSIDE_TARGET_NS = 5000


def _bare(items):
    t0 = time.perf_counter_ns()
    for _ in items:
        pass
    return time.perf_counter_ns() - t0


def _with_step(items):
    step = gpumon.step
    t0 = time.perf_counter_ns()
    for _ in items:
        with step():
            pass
    return time.perf_counter_ns() - t0


def _with_timed(items):
    t0 = time.perf_counter_ns()
    for _ in timed(items):
        pass
    return time.perf_counter_ns() - t0


def _with_marks(items):
    mark = gpumon.mark
    t0 = time.perf_counter_ns()
    for _ in items:
        mark("data")
        mark("compute")
    return time.perf_counter_ns() - t0


VARIANTS = [("with gpumon.step()", _with_step), ("gpumon.torch.timed(list)", _with_timed),
            ("mark('data') + mark('compute')", _with_marks)]


def drain():
    """Does what gpumon does at a sample: takes this process's valid entries (check word) and
    advances consumed. Returns the count taken."""
    ring = gpumon._state.ring
    if ring is None:
        return 0
    mm, nslots = ring.mm, ring.nslots
    key, m64 = 0x9E3779B97F4A7C15, (1 << 64) - 1
    consumed = struct.unpack_from("<Q", mm, 48)[0]
    seq, taken = (consumed + 1) & m64, 0
    while (seq - consumed) & m64 <= nslots:
        t, tn, check = struct.unpack_from("<QQQ", mm, 64 + 24 * ((seq - 1) % nslots))
        if check != seq ^ t ^ tn ^ key:
            break
        seq, taken = (seq + 1) & m64, taken + 1
    struct.pack_into("<Q", mm, 48, (seq - 1) & m64)
    return taken


def loop_costs(steps=STEPS, repeats=REPEATS, settle=None):
    """{name: ns per step} for the bare loop, and for each variant what it adds to the bare loop,
    in this process with its current GPUMON_STEPS, plus "_stats" (the ring's counters). settle()
    runs before each timed run, untimed: by default drain()."""
    gpumon._reset()
    items = list(range(steps))
    _with_step(items[:100])            # decides (creates the ring) before anything is timed
    taken = [0]

    def drain_all():
        taken[0] += drain()
    settle = settle or drain_all
    best = {}
    for _ in range(repeats):
        for name, fn in [("bare loop", _bare)] + VARIANTS:
            settle()
            ns = fn(items)
            best[name] = min(best.get(name, ns), ns)
    settle()
    base = best["bare loop"]
    out = {"bare loop": base / steps}
    for name, _ in VARIANTS:
        out[name] = (best[name] - base) / steps
    s = gpumon.stats()
    out["_stats"] = {"enabled": s["enabled"], "written": s["written"], "dropped": s["dropped"]}
    if taken[0]:
        out["_stats"]["read back"] = taken[0]
    gpumon.done()
    gpumon._reset()
    return out


def _with_steps_dir(directory, fn):
    saved = os.environ.get("GPUMON_STEPS")
    if directory is None:
        os.environ.pop("GPUMON_STEPS", None)
    else:
        os.environ["GPUMON_STEPS"] = directory
    try:
        return fn()
    finally:
        if saved is None:
            os.environ.pop("GPUMON_STEPS", None)
        else:
            os.environ["GPUMON_STEPS"] = saved


def outside():
    """Per-step costs with GPUMON_STEPS unset."""
    return _with_steps_dir(None, loop_costs)


def inside():
    """Per-step costs with GPUMON_STEPS on a private directory, the ring drained before each run."""
    directory = tempfile.mkdtemp(prefix="gpumon-bench-steps-")
    try:
        return _with_steps_dir(directory, loop_costs)
    finally:
        for name in os.listdir(directory):
            os.unlink(os.path.join(directory, name))
        os.rmdir(directory)


def inner():
    """The loop under gpumon run (--interval 10ms): waits for gpumon's next sample before each run."""
    return loop_costs(settle=lambda: time.sleep(0.025))


def under_gpumon(binary):
    """(costs, gpumon's step summary) of inner() run under `binary run --sim`, or (None, why not)."""
    p = subprocess.run([binary, "run", "--sim", "--interval", "10ms", "--", sys.executable,
                        os.path.abspath(__file__), "--inner"], capture_output=True, text=True, timeout=120)
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode != 0 or not lines:
        return None, "gpumon run failed (status %d): %s" % (p.returncode, p.stderr.strip()[-500:])
    costs = json.loads(lines[-1])
    if not costs["_stats"]["enabled"]:
        return None, "GPUMON_STEPS was not set under %s run (a build without the step channel)" % binary
    return costs, "; ".join(line.strip() for line in p.stderr.splitlines() if "Step channel" in line)


PACED_RATE = 1000     # steps per second of the paced job
PACED_SECONDS = 8


def paced(rate, seconds):
    """A job stepping at `rate` steps per second (busy-waiting to each step's start, so the pace holds on
    a loaded machine); at its end it prints its parent's (gpumon's) own CPU seconds from /proc (the sum
    of its threads' schedstat, in nanoseconds), which exclude the job's."""
    step, t = 1.0 / rate, time.monotonic()
    end = t + seconds
    n = 0
    while t < end:
        with gpumon.step():
            pass
        n += 1
        t += step
        while time.monotonic() < t:
            pass
    ns = 0
    task = "/proc/%d/task" % os.getppid()
    for tid in os.listdir(task):   # nanoseconds on CPU, thread by thread (schedstat's first field)
        with open(os.path.join(task, tid, "schedstat")) as f:
            ns += int(f.read().split()[0])
    print(json.dumps({"steps": n, "gpumon_cpu_s": ns / 1e9}))


def gpumon_cpu(binary):
    """gpumon run's own CPU per second with a job at PACED_RATE steps/s, with the step channel and
    without it (--no-steps), interleaved, best of 3 each; None when the runs fail."""
    best = {}
    for _ in range(3):
        for steps in (True, False):
            cmd = [binary, "run", "--sim"] + ([] if steps else ["--no-steps"]) + \
                  ["--", sys.executable, os.path.abspath(__file__), "--paced", str(PACED_RATE), str(PACED_SECONDS)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
            if p.returncode != 0 or not lines:
                return None
            got = json.loads(lines[-1])
            cpu = got["gpumon_cpu_s"] / PACED_SECONDS
            best[steps] = min(best.get(steps, cpu), cpu)
    return best


def show(title, costs, target_ns):
    print(title)
    print("  %-44s %10.1f ns" % ("bare loop, per step (the baseline)", costs["bare loop"]))
    for name, _ in VARIANTS:
        ns = costs[name]
        print("  %-44s %10.1f ns  (target < %d ns: %s)" % (name + ", added per step", ns, target_ns,
                                                          "met" if ns < target_ns else "MISSED"))
    print("  %-44s %s" % ("ring", ", ".join("%s %s" % kv for kv in costs["_stats"].items())))


def main():
    out = outside()
    show("outside gpumon run (GPUMON_STEPS unset): every call a no-op", out, OUTSIDE_TARGET_NS)
    ins = inside()
    show("inside (GPUMON_STEPS set): a c and a w entry per step, the ring drained between runs", ins,
         INSIDE_TARGET_NS)
    binary = os.environ.get("GPUMON")
    if binary:
        under, note = under_gpumon(binary)
        if under is None:
            print("under %s run --sim: not measured: %s" % (binary, note))
        else:
            show("under %s run --sim --interval 10ms: gpumon reads the ring" % binary, under, INSIDE_TARGET_NS)
            print("  %-44s %s" % ("gpumon's summary", note))
        cpu = gpumon_cpu(binary)
        if cpu:
            print("gpumon run's own CPU with a job at %d steps/s (default 1 s interval, %d s runs, best of 3):"
                  % (PACED_RATE, PACED_SECONDS))
            print("  %-44s %10.2f ms per second" % ("with the step channel", cpu[True] * 1e3))
            print("  %-44s %10.2f ms per second" % ("without it (--no-steps), the baseline", cpu[False] * 1e3))
            print("ratio: gpumon run's CPU with steps at %d/s is %.2fx the same run without the channel "
                  "(+%.2f ms of CPU per second)" % (PACED_RATE, cpu[True] / cpu[False] if cpu[False] else float("nan"),
                                                    (cpu[True] - cpu[False]) * 1e3))
    name = VARIANTS[0][0]
    for where, c in (("outside", out), ("inside", ins)):
        print("ratio: %s, %s makes an empty loop step %.0fx as long (%.0f ns added to %.1f ns); on a 1 ms "
              "training step it adds %.3f%%" % (where, name, (c["bare loop"] + c[name]) / c["bare loop"], c[name],
                                                c["bare loop"], c[name] / 1e6 * 100))


if __name__ == "__main__":
    if sys.argv[1:] == ["--inner"]:
        print(json.dumps(inner()))
    elif sys.argv[1:2] == ["--paced"]:
        paced(float(sys.argv[2]), float(sys.argv[3]))
    else:
        main()
