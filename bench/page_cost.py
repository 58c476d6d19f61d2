#!/usr/bin/python3
"""page_cost.py: what the live page costs gpumon serve, measured in one run.

CPU: gpumon serve samples simulated GPUs every second (8 H200s, then 64 H100s, with processes); its
own CPU time (all its threads' run time from /proc/PID/task/*/schedstat) is taken over SECONDS with
the page open in headless Chromium (Debian's; the real page, polling its API every second) and over
SECONDS with no browser, in alternating rounds (the page loaded before each is measured). The ratio of the two is the page's cost; the browser's own CPU is not
counted (it is another process). On a shared machine that difference is within the noise, so the
cost is also derived from serve's CPU per request (the page makes two a second: the state and the
newest history points), measured in the same run. Memory: the history ring's size as the state states it
(points x (8 + 4 x (GPUs x series + job series)) bytes), against the resident memory serve gains
over the same run when the ring is full: serve with --web.history 15m and with 1m, 64 GPUs,
fast-played (GPUMON_SIM_SPEED=100) until the 15 min ring is full, the 1 min one for as long.
Usage: bench/page_cost.py [BUILD_DIR] [SECONDS]
"""
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

build = sys.argv[1] if len(sys.argv) > 1 else "build"
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20
here = os.path.dirname(os.path.abspath(__file__))
gpumon = os.path.join(build, "gpumon")
sim = os.path.join(build, "sim", "libnvidia-ml.so.1")
WARM_S = 35        # the rules' 30 s window fills first: serve's steady cost
PAGE_LOAD_S = 5    # the page loads and fetches its history before a round is measured
SCN8 = os.path.join(here, "..", "examples", "scenarios", "idle-8xh200.scn")
SCN64 = os.path.join(here, "..", "tests", "cli", "page64.scn")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(url):
    return urllib.request.urlopen(url, timeout=5).read()


def serve(scenario, *args, speed=None):
    port = free_port()
    env = dict(os.environ, GPUMON_SIM_SCENARIO=scenario)
    if speed:
        env["GPUMON_SIM_SPEED"] = str(speed)
    p = subprocess.Popen([gpumon, "serve", "--nvml", sim, "--web.listen-address", "127.0.0.1:%d" % port,
                          "--collect.processes"] + list(args), env=env, stderr=subprocess.DEVNULL)
    url = "http://127.0.0.1:%d/" % port
    for _ in range(200):
        try:
            get(url + "health")
            return p, url
        except OSError:
            time.sleep(0.05)
    sys.exit("gpumon serve did not start")


def cpu_s(pid):
    """CPU time of all of pid's threads, in seconds (the scheduler's nanoseconds, not clock ticks)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass   # a thread that just ended
    return total / 1e9


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def over(pid, s):
    c0, t0 = cpu_s(pid), time.monotonic()
    time.sleep(s)
    return (cpu_s(pid) - c0) / (time.monotonic() - t0)


def browser(url):
    prof = tempfile.mkdtemp(prefix="gpumon-bench-chrome-")
    b = subprocess.Popen([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                          "--disable-extensions", "--user-data-dir=" + prof, "--remote-debugging-port=0",
                          "--window-size=1400,900", url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return b, prof


def per_request(pid, url, path, n=500):
    """serve's CPU seconds per GET of path, over n requests on one kept-alive connection."""
    host, port = url.split("//")[1].strip("/").split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=5)
    a = cpu_s(pid)
    for _ in range(n):
        c.request("GET", "/" + path)
        c.getresponse().read()
    b = cpu_s(pid)
    c.close()
    return (b - a) / n


def cpu(scenario, label, rounds=3):
    """serve's CPU with no page and with one page open, in alternating rounds of seconds / rounds each
    (a browser started for each round with the page, given PAGE_LOAD_S to load it first), after the
    rules' first window has filled, so both kinds of round see the same machine and the same serve."""
    p, url = serve(scenario, "--interval", "1s")
    try:
        time.sleep(WARM_S)
        alone = paged = 0.0
        for _ in range(rounds):
            alone += over(p.pid, seconds / rounds)
            b, prof = browser(url)
            try:
                time.sleep(PAGE_LOAD_S)
                paged += over(p.pid, seconds / rounds)
            finally:
                b.terminate()
                b.wait()
                shutil.rmtree(prof, ignore_errors=True)
            time.sleep(1)
        alone, paged = alone / rounds, paged / rounds
        size = len(get(url + "api/v1/state"))
        per = {path: per_request(p.pid, url, path) for path in ("api/v1/state", "api/v1/history?seconds=3")}
        print("%-8s serve alone %.3f%% of a core, with one page open %.3f%%: %.2fx (the page adds %.4f%% of a "
              "core); a state is %d bytes" % (label, alone * 100, paged * 100, paged / alone if alone else float("inf"),
                                               (paged - alone) * 100, size))
        poll = sum(per.values())   # what one poll of the page costs serve, each second
        print("%-8s serve's CPU per request (keep-alive, 500 each): state %.1f us, history %.1f us: a page polling "
              "every second adds %.4f%% of a core, %.1f%% of serve's own" % ("", per["api/v1/state"] * 1e6,
                                                                         per["api/v1/history?seconds=3"] * 1e6,
                                                                         poll * 100, poll / alone * 100))
    finally:
        p.terminate()
        p.wait()


def memory():
    """The 15 min ring filled first (fast-played), then the 1 min one run for as long, so both did the
    same work and differ by the ring."""
    runs, took = {}, None
    for hist in ("15m", "1m"):
        p, url = serve(SCN64, "--interval", "1s", "--web.history", hist, speed=100)
        try:
            t0 = time.monotonic()
            while True:
                st = json.loads(get(url + "api/v1/state"))
                full = st["history"]["points"] >= st["history"]["capacity"]
                if (took is None and full) or (took is not None and time.monotonic() - t0 >= took):
                    break
                if time.monotonic() - t0 > 300:
                    sys.exit("the ring did not fill in 300 s")
                time.sleep(0.2)
            took = time.monotonic() - t0 if took is None else took
            runs[hist] = (st["history"], rss_kib(p.pid))
        finally:
            p.terminate()
            p.wait()
    (h1, r1), (h15, r15) = runs["1m"], runs["15m"]
    print("ring, 64 GPUs x %d series + %d job series, 1 s points: 15 min = %d points, stated %.1f kB "
          "(1 min: %.1f kB)" % (len(h15["series"]), len(h15["job_series"]), h15["capacity"], h15["bytes"] / 1000,
                                h1["bytes"] / 1000))
    print("resident memory with the ring full: --web.history 15m %.1f MiB, 1m %.1f MiB: +%.1f kB for +%.1f kB stated "
          "(%.2fx)" % (r15 / 1024, r1 / 1024, (r15 - r1) * 1.024, (h15["bytes"] - h1["bytes"]) / 1000,
                       (r15 - r1) * 1024 / (h15["bytes"] - h1["bytes"])))


def main():
    if not CHROMIUM:
        sys.exit("chromium is not installed (scripts/deps.sh installs it)")
    print("gpumon serve --interval 1s --collect.processes, %.0f s each way, CPU time of serve itself" % seconds)
    cpu(SCN8, "8 GPUs")
    cpu(SCN64, "64 GPUs")
    memory()


main()
