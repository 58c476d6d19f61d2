#!/usr/bin/python3
"""rss.py: peak resident memory of gpumon's commands on 8 simulated H200s,
against nvtop showing the same GPUs through the same simulated NVML, in the
same run: `gpumon query` (one answer) against `nvtop -s` (one snapshot),
`gpumon watch` (text, then JSON Lines, 100 ms, for 3 s) against `nvtop -l` (its
JSON loop, 100 ms, for 3 s), and `gpumon top` (every second) against nvtop's own
screen (`nvtop -d 10`, every second), each full-screen program in a 200x50 tmux
pane for 4 s, then quit with q as a user would (needs tmux). `gpumon serve` is
measured too: it loads the exporter module (libmicrohttpd, GnuTLS and their
dependencies) that the other commands no longer map. Each figure is the median
of 11 runs, the tools alternating (ASLR moves the kernel's 64 KiB fault-around
windows, so single runs vary by about 5%) (GNU time's %M).

nvtop is taken from $NVTOP, else from PATH; without it the table says so and
the ratios are against serve. Usage: bench/rss.py [BUILD_DIR]   (default: build)
"""
import os, shutil, signal, statistics, subprocess, sys, tempfile, time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
here = os.path.dirname(os.path.abspath(__file__))
gpumon = os.path.join(build, "gpumon")
sim = os.path.join(build, "sim", "libnvidia-ml.so.1")
scenario = os.path.join(here, "..", "examples", "scenarios", "idle-8xh200.scn")
nvtop = os.environ.get("NVTOP") or shutil.which("nvtop")
env = dict(os.environ, GPUMON_SIM_SCENARIO=scenario, LD_LIBRARY_PATH=os.path.dirname(sim))
RUNS = 11


def peak_rss(args, seconds=None, ready=None):
    """Peak RSS in KiB of args: run to the end, or for `seconds` then SIGINT
    (for serve, `ready` names a word its stderr prints once it is up)."""
    fd, out = tempfile.mkstemp(prefix="gpumon-rss-")
    os.close(fd)
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", out] + args, env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE if ready else subprocess.DEVNULL)
    if ready:
        seen = b""
        while ready.encode() not in seen:
            chunk = p.stderr.readline()
            if not chunk:
                break
            seen += chunk
        time.sleep(seconds or 0)
        os.killpg(p.pid, signal.SIGINT)
    elif seconds:
        time.sleep(seconds)
        os.killpg(p.pid, signal.SIGINT)
    p.wait()
    with open(out) as f:
        kib = int(f.read().split()[-1])
    os.unlink(out)
    return kib


def median(args, **kw):
    return statistics.median(peak_rss(args, **kw) for _ in range(RUNS))


def pane_peak_rss(args, seconds=4.0):
    """Peak RSS in KiB of a full-screen program in a 200x50 tmux pane: run for `seconds`, then q."""
    d = tempfile.mkdtemp(prefix="gpumon-rss-")
    sock, out = os.path.join(d, "tmux.sock"), os.path.join(d, "peak")
    tmux = ["tmux", "-S", sock, "-f", "/dev/null"]
    names = ("GPUMON_SIM_SCENARIO", "LD_LIBRARY_PATH")
    cmd = "exec env %s LANG=C.UTF-8 /usr/bin/time -f %%M -o %s %s" % (
        " ".join("%s=%s" % (k, env[k]) for k in names), out, " ".join(subprocess.list2cmdline([a]) for a in args))
    try:
        subprocess.run(tmux + ["new-session", "-d", "-x", "200", "-y", "50", cmd], check=True)
        time.sleep(seconds)
        subprocess.run(tmux + ["send-keys", "q"], check=True)
        deadline = time.monotonic() + 10
        while not (os.path.exists(out) and os.path.getsize(out)) and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(out) as f:
            return int(f.read().split()[-1])
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        shutil.rmtree(d, ignore_errors=True)


def median_pair(a, b):
    """Medians of pane_peak_rss over RUNS runs of a and b, alternating (b is None: a alone)."""
    xs, ys = [], []
    for _ in range(RUNS):
        xs.append(pane_peak_rss(a))
        if b:
            ys.append(pane_peak_rss(b))
    return statistics.median(xs), statistics.median(ys) if ys else None


def main():
    if not os.path.exists(gpumon):
        sys.exit("build gpumon first (cmake --build %s)" % build)
    nv = ["--nvml", sim]
    nvtop_loop = median([nvtop, "-l", "-d", "1"], seconds=3) if nvtop else None
    rows = [
        ("gpumon query (8 GPUs, 5 fields)",
         median([gpumon, "query", "--query-gpu=index,name,utilization.gpu,memory.used,power.draw",
                 "--format=csv"] + nv), "nvtop -s (one snapshot)",
         median([nvtop, "-s"]) if nvtop else None),
        ("gpumon watch (text, 100 ms, 3 s)",
         median([gpumon, "watch", "--interval", "100ms"] + nv, seconds=3), "nvtop -l (its loop, 100 ms, 3 s)",
         nvtop_loop),
        ("gpumon watch (JSON Lines, 100 ms, 3 s)",
         median([gpumon, "watch", "--interval", "100ms", "--format", "jsonl"] + nv, seconds=3),
         "nvtop -l (its JSON loop, 100 ms, 3 s)", nvtop_loop),
    ]
    if os.path.exists(os.path.join(build, "gpumon-top.so")) and shutil.which("tmux"):
        top, nvtop_screen = median_pair([gpumon, "top", "--interval", "1s"] + nv, [nvtop, "-d", "10"] if nvtop else None)
        rows.append(("gpumon top (every second, 200x50 pane, 4 s)", top,
                     "nvtop (its screen, every second, 200x50 pane, 4 s)", nvtop_screen))
    else:
        print("(gpumon top not measured: it needs its module, gpumon-top.so, and tmux)")
    serve = median([gpumon, "serve", "--web.listen-address", "127.0.0.1:0", "--interval", "100ms"] + nv,
                   seconds=1, ready="serving")
    print("peak RSS, median of %d runs, 8 simulated H200 (%s)" % (RUNS, os.path.basename(scenario)))
    print("| gpumon | peak RSS | baseline | peak RSS | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for name, kib, base, base_kib in rows:
        if base_kib is None:
            base, base_kib = "gpumon serve (loads the exporter's libraries)", serve
        print("| %s | %.2f MiB | %s | %.2f MiB | %.2fx |" % (name, kib / 1024, base, base_kib / 1024,
                                                           kib / base_kib))
    print("| gpumon serve (exporter module: libmicrohttpd, GnuTLS) | %.2f MiB | | | |" % (serve / 1024))
    if not nvtop:
        print("(nvtop not found: set NVTOP=/path/to/nvtop to compare with it)")


if __name__ == "__main__":
    main()
