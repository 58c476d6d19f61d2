#!/usr/bin/python3
"""serve_cost.py: /metrics throughput and latency of `gpumon serve` on an
8-GPU node (simulated H200s) under concurrent load from wrk, against a
Python exporter built on prometheus_client serving the same series, both
measured in the same run; then serve's peak RSS.

The Python exporter is given every advantage: it serves a fixed copy of
gpumon's own families (parsed once from gpumon's /metrics), so it does no
NVML work at all; each scrape only renders them. gpumon meanwhile keeps
sampling every second. Both get the same wrk load, one after the other, on
the same cores. Usage: bench/serve_cost.py [BUILD_DIR] [SECONDS]
"""
import os, re, socket, subprocess, sys, time, urllib.request

build = sys.argv[1] if len(sys.argv) > 1 else "build"
seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
here = os.path.dirname(os.path.abspath(__file__))
gpumon = os.path.join(build, "gpumon")
sim = os.path.join(build, "sim", "libnvidia-ml.so.1")
scenario = os.path.join(here, "..", "examples", "scenarios", "idle-8xh200.scn")

PY_EXPORTER = r'''
import sys, time, threading
from prometheus_client import start_http_server
from prometheus_client.core import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
families = list(text_string_to_metric_families(text))
class Copy:
    def collect(self):
        return iter(families)
REGISTRY.register(Copy())
start_http_server(int(sys.argv[2]), addr="127.0.0.1")
threading.Event().wait()
'''


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_up(url):
    for _ in range(200):
        try:
            return urllib.request.urlopen(url, timeout=1).read()
        except OSError:
            time.sleep(0.05)
    sys.exit("exporter at %s did not start" % url)


def wrk(url, conns):
    out = subprocess.run(["wrk", "-t%d" % min(2, conns), "-c%d" % conns, "-d%ds" % seconds, "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def ms(label):
        m = re.search(r"\s%s\s+([\d.]+)(us|ms|s)\b" % re.escape(label), out)
        v = float(m.group(1))
        return v / 1000 if m.group(2) == "us" else v * 1000 if m.group(2) == "s" else v
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, ms("50%"), ms("99%"), int(errors.group(1)) if errors else 0


def main():
    if subprocess.run(["sh", "-c", "command -v wrk"], stdout=subprocess.DEVNULL).returncode:
        sys.exit("wrk is not installed (apt-get install wrk)")
    port = free_port()
    env = dict(os.environ, GPUMON_SIM_SCENARIO=scenario)
    srv = subprocess.Popen([gpumon, "serve", "--nvml", sim, "--web.listen-address", "127.0.0.1:%d" % port,
                            "--interval", "1s"], env=env, stderr=subprocess.DEVNULL)
    body = wait_up("http://127.0.0.1:%d/metrics" % port)
    series = sum(1 for line in body.decode().splitlines() if line and not line.startswith("#"))
    snap = "/tmp/gpumon-bench-metrics.%d" % os.getpid()
    with open(snap, "wb") as f:
        f.write(body)
    pport = free_port()
    py = subprocess.Popen(["/usr/bin/python3", "-c", PY_EXPORTER, snap, str(pport)], stderr=subprocess.PIPE)
    pbody = wait_up("http://127.0.0.1:%d/metrics" % pport)
    pseries = sum(1 for line in pbody.decode().splitlines() if line and not line.startswith("#"))
    try:
        print("8 simulated GPUs: gpumon serves %d series (%d bytes), the Python exporter %d series"
              " (prometheus_client adds a _created series per counter)"
              % (series, len(body), pseries))
        print("%-22s %8s %12s %10s %10s %8s" % ("", "conns", "requests/s", "p50 ms", "p99 ms", "errors"))
        results = {}
        for conns in (1, 32):
            for name, url in (("gpumon serve", "http://127.0.0.1:%d/metrics" % port),
                              ("prometheus_client", "http://127.0.0.1:%d/metrics" % pport)):
                r = wrk(url, conns)
                results[(name, conns)] = r
                print("%-22s %8d %12.0f %10.2f %10.2f %8d" % (name, conns, r[0], r[1], r[2], r[3]))
        for conns in (1, 32):
            g, p = results[("gpumon serve", conns)], results[("prometheus_client", conns)]
            print("ratio at %2d connections: %.1fx the throughput, p99 latency %.1fx lower"
                  % (conns, g[0] / p[0], p[2] / g[2] if g[2] else float("inf")))
        with open("/proc/%d/status" % srv.pid) as f:
            hwm = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
        with open("/proc/%d/status" % py.pid) as f:
            phwm = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
        print("peak RSS after the load: gpumon serve %.1f MiB, Python exporter %.1f MiB (%.1fx)"
              % (hwm / 1024, phwm / 1024, phwm / hwm))
    finally:
        srv.terminate()
        py.terminate()
        srv.wait()
        py.wait()
        os.unlink(snap)


main()
