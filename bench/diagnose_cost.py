#!/usr/bin/python3
"""diagnose_cost.py: `gpumon diagnose` on a 24-hour, 1 Hz, 8-GPU JSON Lines
log against a pandas script computing the same per-GPU statistics (whole-run
mean, p50, p95 utilization, idle share, peak memory, time throttled, and the
30 s rolling mean and p5/p50/p95 of utilization that the rules read), in the
same run: wall and CPU time, peak RSS (GNU time), and diagnose's peak RSS on
a 1-hour log against the 24-hour one, to show memory does not grow.

The log is watch's exact format: one real `gpumon watch --format jsonl`
record of the simulated 8xH200 node is the template, and per-second values
(utilization swinging, memory, temperature, power, throttle bits) are
templated into it. Needs Debian's python3-pandas (use /usr/bin/python3).
Usage: bench/diagnose_cost.py [BUILD_DIR] [HOURS]   (defaults: build 24)
"""
import json, os, re, subprocess, sys, tempfile, time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
hours = float(sys.argv[2]) if len(sys.argv) > 2 else 24
gpumon = os.path.abspath(os.path.join(build, "gpumon"))
here = os.path.dirname(os.path.abspath(__file__))
scenario = os.path.join(here, "..", "examples", "scenarios", "idle-8xh200.scn")
tmp = tempfile.mkdtemp(prefix="gpumon-bench-")

PANDAS = r'''
import json, sys
import pandas as pd
rows = []
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)
        ts = r["timestamp"]
        for g in r["gpus"]:
            rows.append((ts, g["index"], g["utilization.gpu"], g["utilization.gpu.idle_share"], g["memory.used"],
                         g["clocks_event_reasons.active"]))
df = pd.DataFrame(rows, columns=["ts", "gpu", "util", "idle", "mem", "reasons"])
df["ts"] = pd.to_datetime(df["ts"])
df["thr"] = (df["reasons"].fillna(0).astype(int) & 0xEC) != 0
out = {}
for gpu, g in df.groupby("gpu"):
    g = g.set_index("ts").sort_index()
    roll = g["util"].rolling("30s")
    dt = g.index.to_series().diff().dt.total_seconds().fillna(0)
    out[int(gpu)] = dict(mean=g["util"].mean(), p50=g["util"].quantile(.5), p95=g["util"].quantile(.95),
                         idle=g["idle"].mean(), mem_peak=g["mem"].max(), throttled_s=float(dt[g["thr"]].sum()),
                         roll_mean_last=roll.mean().iloc[-1], roll_p5_min=roll.quantile(.05).min(),
                         roll_p50_max=roll.quantile(.5).max(), roll_p95_max=roll.quantile(.95).max())
print(json.dumps(out))
'''


def make_log(path, seconds):
    """Templated watch records, one per second."""
    env = dict(os.environ, GPUMON_SIM_SCENARIO=scenario)
    line = subprocess.run([gpumon, "watch", "--sim", "--once", "--format", "jsonl"], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()
    line = line.replace("%", "%%")
    subs = {"utilization.gpu": "%d", "utilization.gpu.min": "%d", "utilization.gpu.max": "%d",
            "utilization.gpu.idle_share": "%.1f", "memory.used": "%d", "temperature.gpu": "%d",
            "power.draw": "%.2f", "clocks_event_reasons.active": "%d"}
    for key, fmt in subs.items():
        line = re.sub(r'("%s":)[^,}]+' % re.escape(key), lambda m: m.group(1) + fmt, line)
    line = re.sub(r'"timestamp":"[^"]+"', '"timestamp":"%s"', line, count=1)
    gpu_part = line[line.index('{"index":0'):line.rindex("]}")]
    # one %-template per GPU object, in order: util, min, max, idle, mem, temp, power, reasons
    order = [k for k in re.findall(r'"([a-z_.]+)":%', gpu_part) if k in subs]
    assert order == ["utilization.gpu", "utilization.gpu.min", "utilization.gpu.max", "utilization.gpu.idle_share",
                     "memory.used", "temperature.gpu", "power.draw", "clocks_event_reasons.active"] * 8, order
    t0 = 1798761600  # 2027-01-01T00:00:00Z
    with open(path, "w") as f:
        for s in range(seconds):
            ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t0 + s))
            vals = [ts]
            for g in range(8):
                busy = (s + g) % 7 != 0 if g != 5 else s % 2 == 0
                u = 92 if busy else 3
                thr = 0x20 if g == 2 and (s // 600) % 6 == 0 else 0
                vals += [u, 0 if busy else 0, 99 if busy else 40, 0.0 if busy else 60.0,
                         60000 + (s % 3600) * 10, 60 + (s % 17), 600.0 - g, thr]
            f.write(line % tuple(vals) + "\n")


def timed(args):
    """(wall s, cpu s, peak RSS KiB) of args under GNU time."""
    rss = os.path.join(tmp, "time.out")
    t = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-v", "-o", rss] + args, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    if status != 0:
        sys.exit("failed: " + " ".join(args))
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(rss).read()).group(1))
    return wall, ru.ru_utime + ru.ru_stime, peak


day, hour = os.path.join(tmp, "day.jsonl"), os.path.join(tmp, "hour.jsonl")
t = time.monotonic()
make_log(day, int(hours * 3600))
make_log(hour, 3600)
gen = time.monotonic() - t
size = os.path.getsize(day)
script = os.path.join(tmp, "pandas_stats.py")
open(script, "w").write(PANDAS)
print("log: %.0f h, 1 Hz, 8 GPUs, %.0f MiB (%d records), written in %.0f s" % (hours, size / 2**20, int(hours * 3600),
                                                                             gen))
d_wall, d_cpu, d_rss = timed([gpumon, "diagnose", day, "--format", "json"])
h_wall, h_cpu, h_rss = timed([gpumon, "diagnose", hour, "--format", "json"])
p_wall, p_cpu, p_rss = timed(["/usr/bin/python3", script, day])
print("  %-40s %8.1f s wall %8.1f s CPU %8.1f MiB peak RSS" % ("gpumon diagnose (24 h log)", d_wall, d_cpu, d_rss / 1024))
print("  %-40s %8.1f s wall %8.1f s CPU %8.1f MiB peak RSS" % ("pandas, same statistics", p_wall, p_cpu, p_rss / 1024))
print("  %-40s %8.1f s wall %8.1f s CPU %8.1f MiB peak RSS" % ("gpumon diagnose (1 h log)", h_wall, h_cpu, h_rss / 1024))
print("  %-40s %8.0f MiB/s" % ("diagnose throughput", size / 2**20 / d_wall))
print("ratio: diagnose is %.1fx faster than pandas (wall), %.1fx less CPU, %.0fx less memory; "
      "its RSS on 24 h vs 1 h: %.2f vs %.2f MiB" % (p_wall / d_wall, p_cpu / d_cpu, p_rss / d_rss, d_rss / 1024,
                                                   h_rss / 1024))
for p in (day, hour, script, os.path.join(tmp, "time.out")):
    os.unlink(p)
os.rmdir(tmp)
