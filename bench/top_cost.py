#!/usr/bin/python3
"""top_cost.py: CPU of `gpumon top` against nvtop showing the same 8
simulated H200s (idle-8xh200) through the same simulated NVML, in the same
run: each runs in its own tmux session of a fixed size (200x50) refreshing
every second, and two figures are taken from the kernel's per-thread
scheduler statistics (/proc/PID/task/*/schedstat, nanoseconds on a CPU,
summed over the process's threads):

  start-up  CPU from exec until the first full screen (all eight GPUs drawn),
            polled with capture-pane every 5 ms;
  steady    CPU per second over SECONDS (default 10) once running, with the
            times its threads were scheduled (wake-ups), and gpumon top's
            figure split by thread: the UI, the collector, and the sampler's
            reader thread (PCIe throughput, only for GPUs whose driver lacks
            the byte counters: none on the simulator's default profile) that watch, run and
            serve run too.

nvtop is taken from $NVTOP, else from PATH (build it from its source with
NVIDIA support only); `gpumon watch` printing its text every second in the
same kind of pane is measured too, for reference (the same sampler without a
screen). Without nvtop, watch is the baseline. Each figure is the median of
RUNS runs (default 5), tools alternating. Needs tmux. The last row is what
top costs beyond that sampler: its CPU per second less watch's, against
nvtop's (the sampler and the simulated NVML it calls are shared with watch,
run and serve; the screen, the rules and the history are top's).
With NVML=free both run on the stand-in driver whose calls cost nothing
(bench/nvml_free.c, BUILD/nvml-free/libnvidia-ml.so.1), so the figures are each
tool's own work: the simulator's scenario model (GPM's above all, which nvtop
does not ask for) is not in them.
With BASE=OLD_BUILD_DIR, that build's gpumon top is measured too, in the same rounds (alternating).
Usage: [NVML=free] [BASE=OLD_BUILD_DIR] bench/top_cost.py [BUILD_DIR] [SECONDS] [RUNS]   (default: build 10 5)
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
here = os.path.dirname(os.path.abspath(__file__))
gpumon = os.path.join(build, "gpumon")
sim = os.path.join(build, "nvml-free" if os.environ.get("NVML") == "free" else "sim", "libnvidia-ml.so.1")
scenario = os.path.join(here, "..", "examples", "scenarios", "idle-8xh200.scn")
nvtop = os.environ.get("NVTOP") or shutil.which("nvtop")
WIDTH, HEIGHT = 200, 50


def threads(pid):
    """{tid: (name, ns on a CPU, times scheduled)} of pid's threads (schedstat; comm)."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                run, _, slices = f.read().split()
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
        except (FileNotFoundError, ProcessLookupError):
            continue   # a thread that just ended
        out[int(tid)] = (name, int(run), int(slices))
    return out


def part(pid, tid, name):
    """Which part of gpumon top a thread is: its UI (the main thread), its collector, or the sampler's
    reader thread (PCIe throughput on drivers without the byte counters), which watch, run and serve
    have too."""
    if tid == pid:
        return "ui"
    return "collector" if name == "top-collect" else "readers"


class Pane:
    """A detached tmux session of WIDTHxHEIGHT running one command (exec'd, so the pane's pid is its pid)."""

    def __init__(self, args, env):
        self.dir = tempfile.mkdtemp(prefix="gpumon-topcost-")
        self.sock = os.path.join(self.dir, "tmux.sock")
        cmd = "exec env %s %s" % (" ".join("%s=%s" % kv for kv in env.items()),
                                  " ".join(subprocess.list2cmdline([a]) for a in args))
        self.tmux("new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT), cmd)
        self.pid = int(self.tmux("display", "-p", "#{pane_pid}").strip())

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock, "-f", "/dev/null"] + list(args), check=True,
                              capture_output=True, text=True).stdout

    def screen(self):
        return self.tmux("capture-pane", "-p")

    def close(self):
        subprocess.run(["tmux", "-S", self.sock, "kill-server"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def measure(args, ready):
    """Start-up CPU (ms) until ready(screen) holds, and per part: CPU (ms) and wake-ups per second over
    `seconds` ({"all": ..., "ui": ..., ...})."""
    env = {"GPUMON_SIM_SCENARIO": scenario, "LD_LIBRARY_PATH": os.path.dirname(sim), "LANG": "C.UTF-8"}
    pane = Pane(args, env)
    try:
        deadline = time.monotonic() + 20
        while not ready(pane.screen()):
            if time.monotonic() > deadline:
                sys.exit("%s did not draw its screen: %s" % (args[0], pane.screen()[:400]))
            time.sleep(0.005)
        startup = sum(t[1] for t in threads(pane.pid).values()) / 1e6
        time.sleep(2)   # past the first samples and the analysis' first judgements
        a, t0 = threads(pane.pid), time.monotonic()
        time.sleep(seconds)
        b, t1 = threads(pane.pid), time.monotonic()
        parts = {}
        for tid, (name, run, slices) in b.items():
            _, run0, slices0 = a.get(tid, (name, 0, 0))
            for key in ("all", part(pane.pid, tid, name)):
                cpu, wake = parts.get(key, (0.0, 0.0))
                parts[key] = (cpu + (run - run0) / 1e6 / (t1 - t0), wake + (slices - slices0) / (t1 - t0))
        return startup, parts
    finally:
        pane.close()


def gpumon_top_ready(s):
    return "8 GPUs" in s and any(line.startswith("  7 ") and "/700W" in line for line in s.splitlines())


def main():
    if not os.path.exists(gpumon) or not os.path.exists(os.path.join(build, "gpumon-top.so")):
        sys.exit("build gpumon and its top module first (cmake --build %s)" % build)
    if not shutil.which("tmux"):
        sys.exit("tmux is needed (apt-get install tmux)")
    top = [gpumon, "top", "--nvml", sim, "--interval", "1s"]
    if nvtop:
        base_name, base = "nvtop -d 10 (every second)", [nvtop, "-d", "10"]
        base_ready = lambda s: "Device 7" in s and "POW" in s
    else:
        base_name, base = "gpumon watch (text, every second)", [gpumon, "watch", "--nvml", sim, "--interval", "1s"]
        base_ready = lambda s: "GPU 7" in s or "\n  7 " in s
    watch = [gpumon, "watch", "--nvml", sim, "--interval", "1s"]
    watch_ready = lambda s: "GPU 7" in s or "\n  7 " in s
    old_dir = os.environ.get("BASE")
    old = [os.path.join(os.path.abspath(old_dir), "gpumon")] + top[1:] if old_dir else None
    a, b, w, o = [], [], [], []
    for _ in range(runs):
        a.append(measure(top, gpumon_top_ready))
        if old:
            o.append(measure(old, gpumon_top_ready))
        b.append(measure(base, base_ready))
        if nvtop:   # the same sampler without a screen, for reference
            w.append(measure(watch, watch_ready))
    start = lambda xs: statistics.median(x[0] for x in xs)
    cpu = lambda xs, k: statistics.median(x[1].get(k, (0, 0))[0] for x in xs)
    wake = lambda xs, k: statistics.median(x[1].get(k, (0, 0))[1] for x in xs)
    print("CPU, 8 %s, %dx%d tmux pane, median of %d runs, %.0f s each"
          % ("H200s of the stand-in driver whose calls cost nothing" if os.environ.get("NVML") == "free"
             else "simulated H200 (%s)" % os.path.basename(scenario), WIDTH, HEIGHT, runs, seconds))
    print("| | gpumon top (every second) | %s | ratio |" % base_name)
    print("| --- | --- | --- | --- |")
    print("| start-up, until all 8 GPUs are drawn | %.1f ms | %.1f ms | %.2fx |"
          % (start(a), start(b), start(a) / start(b)))
    print("| steady, CPU per second (wake-ups per second) | %.2f ms (%.0f) | %.2f ms (%.0f) | %.2fx |"
          % (cpu(a, "all"), wake(a, "all"), cpu(b, "all"), wake(b, "all"), cpu(a, "all") / cpu(b, "all")))
    for key, what in (("ui", "top's UI thread (drawing, keys)"), ("collector", "top's collector (sampling, rules)"),
                      ("readers", "the sampler's reader thread (PCIe, older drivers)")):
        print("| of which %s | %.2f ms (%.0f) | | |" % (what, cpu(a, key), wake(a, key)))
    if old:
        print("| BASE's gpumon top, same rounds: CPU per second (UI / collector) | %.2f ms (%.2f / %.2f) | %.2f ms | %.2fx |"
              % (cpu(o, "all"), cpu(o, "ui"), cpu(o, "collector"), cpu(b, "all"), cpu(o, "all") / cpu(b, "all")))
    if nvtop:
        print("| reference: gpumon watch (text, every second), same sampler | %.2f ms (%.0f) | | |"
              % (cpu(w, "all"), wake(w, "all")))
        print("| of which the sampler's reader thread | %.2f ms (%.0f) | | |" % (cpu(w, "readers"), wake(w, "readers")))
        own = cpu(a, "all") - cpu(w, "all")
        print("| top beyond the sampler (top less watch: screen, rules, history) | %.2f ms | %.2f ms | %.2fx |"
              % (own, cpu(b, "all"), own / cpu(b, "all")))
    else:
        print("(nvtop not found: set NVTOP=/path/to/nvtop to compare with it)")


if __name__ == "__main__":
    main()
