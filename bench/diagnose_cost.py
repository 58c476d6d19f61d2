#!/usr/bin/python3
"""diagnose_cost.py: `gpumon diagnose` on a 24-hour, 1 Hz, 8-GPU JSON Lines
log against a pandas script computing the same per-GPU statistics (whole-run
mean, p50, p95 utilization, idle share, peak memory, time throttled, and the
30 s rolling mean and p5/p50/p95 of utilization that the rules read), in the
same run, alternating rounds (medians, and the best round of each: the least
disturbed on a shared machine): wall and CPU time, MB/s, peak RSS
(GNU time), and diagnose's peak RSS on a 1-hour log against the 24-hour one,
to show memory does not grow. It says which reader diagnose used (simdjson,
where this build has it, else cJSON: GPUMON_LOG_READER, docs/testing.md) and
times the cJSON reader once for reference. Then the same log compressed as
gpumon's own writer compresses it (zstd level 3, one frame flushed after
every record, through libzstd itself) against the plain one, per record,
alternating.

The log is watch's exact format: one real `gpumon watch --format jsonl`
record of the simulated 8xH200 node is the template, and per-second values
(utilization swinging, memory, temperature, power, throttle bits) are
templated into it. Needs Debian's python3-pandas (use /usr/bin/python3).
Diagnose reads one log ahead in a thread of its own beside the analysis (both
cores parse); each round also times it with GPUMON_LOG_THREADS=0 (no reader
thread: one core), and with BEFORE=DIR a build to compare with (the same log,
alternating).
Usage: bench/diagnose_cost.py [BUILD_DIR] [HOURS] [ROUNDS]   (defaults: build 24 3)
"""
import ctypes, json, os, re, statistics, subprocess, sys, tempfile, time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
hours = float(sys.argv[2]) if len(sys.argv) > 2 else 24
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
gpumon = os.path.abspath(os.path.join(build, "gpumon"))
before = os.path.abspath(os.path.join(os.environ["BEFORE"], "gpumon")) if os.environ.get("BEFORE") else None
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
    out[int(gpu)] = dict(mean=float(g["util"].mean()), p50=float(g["util"].quantile(.5)),
                         p95=float(g["util"].quantile(.95)), idle=float(g["idle"].mean()),
                         mem_peak=float(g["mem"].max()), throttled_s=float(dt[g["thr"]].sum()),
                         roll_mean_last=float(roll.mean().iloc[-1]), roll_p5_min=float(roll.quantile(.05).min()),
                         roll_p50_max=float(roll.quantile(.5).max()), roll_p95_max=float(roll.quantile(.95).max()))
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


class ZBuf(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


def zstd_like_gpumon(src, dst):
    """src compressed as gpumon's writer does (src/out.c: level 3, checksum, one frame flushed after every
    record), through libzstd."""
    z = ctypes.CDLL("libzstd.so.1")
    z.ZSTD_createCCtx.restype = ctypes.c_void_p
    z.ZSTD_freeCCtx.argtypes = [ctypes.c_void_p]
    z.ZSTD_CCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    z.ZSTD_compressStream2.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    z.ZSTD_compressStream2.restype = ctypes.c_size_t
    z.ZSTD_isError.argtypes = [ctypes.c_size_t]
    c = z.ZSTD_createCCtx()
    z.ZSTD_CCtx_setParameter(c, 100, 3)   # ZSTD_c_compressionLevel
    z.ZSTD_CCtx_setParameter(c, 201, 1)   # ZSTD_c_checksumFlag
    out = ctypes.create_string_buffer(1 << 20)
    with open(src, "rb") as f, open(dst, "wb") as o:
        line = f.readline()
        while line:
            nxt = f.readline()
            buf = ctypes.create_string_buffer(line, len(line))
            ib = ZBuf(ctypes.cast(buf, ctypes.c_void_p), len(line), 0)
            while True:   # ZSTD_e_flush after each record, ZSTD_e_end after the last
                ob = ZBuf(ctypes.cast(out, ctypes.c_void_p), len(out), 0)
                left = z.ZSTD_compressStream2(c, ctypes.byref(ob), ctypes.byref(ib), 1 if nxt else 2)
                if z.ZSTD_isError(left):
                    sys.exit("zstd failed")
                o.write(out.raw[:ob.pos])
                if left == 0 and ib.pos == ib.size:
                    break
            line = nxt
    z.ZSTD_freeCCtx(c)


def timed(args, env=None):
    """(wall s, cpu s, peak RSS KiB) of args under GNU time."""
    rss = os.path.join(tmp, "time.out")
    t = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-v", "-o", rss] + args, stdout=subprocess.DEVNULL,
                         env=dict(os.environ, **(env or {})))
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    if status != 0:
        sys.exit("failed: " + " ".join(args))
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(rss).read()).group(1))
    return wall, ru.ru_utime + ru.ru_stime, peak


def median(runs, i):
    return statistics.median(r[i] for r in runs)


day, hour, packed = os.path.join(tmp, "day.jsonl"), os.path.join(tmp, "hour.jsonl"), os.path.join(tmp, "day.jsonl.zst")
t = time.monotonic()
make_log(day, int(hours * 3600))
make_log(hour, 3600)
zstd_like_gpumon(day, packed)
gen = time.monotonic() - t
size, zsize, records = os.path.getsize(day), os.path.getsize(packed), int(hours * 3600)
script = os.path.join(tmp, "pandas_stats.py")
open(script, "w").write(PANDAS)
print("log: %g h, 1 Hz, 8 GPUs, %.0f MiB (%d records; %.1f MiB as gpumon's .zst), written in %.0f s" % (
    hours, size / 2**20, records, zsize / 2**20, gen))

# which reader: GPUMON_LOG_READER=simdjson fails, saying why, where this gpumon has none
probe = subprocess.run([gpumon, "diagnose", hour, "--format", "json"], env=dict(os.environ, GPUMON_LOG_READER="simdjson"),
                       capture_output=True, text=True)
reader = "simdjson" if probe.returncode == 0 else "cJSON"
why = "" if probe.returncode == 0 else " (%s)" % probe.stderr.strip().split(": ", 1)[-1]
print("reader: %s%s" % (reader, why))

d_runs, p_runs, z_runs, t_runs, b_runs = [], [], [], [], []
for r in range(rounds):   # alternating, so that a neighbour's load falls on each alike
    d_runs.append(timed([gpumon, "diagnose", day, "--format", "json"]))
    p_runs.append(timed(["/usr/bin/python3", script, day]))
    z_runs.append(timed([gpumon, "diagnose", packed, "--format", "json"]))
    t_runs.append(timed([gpumon, "diagnose", day, "--format", "json"], env={"GPUMON_LOG_THREADS": "0"}))
    if before:
        b_runs.append(timed([before, "diagnose", day, "--format", "json"]))
c_run = timed([gpumon, "diagnose", day, "--format", "json"], env={"GPUMON_LOG_READER": "cjson"})
h_run = timed([gpumon, "diagnose", hour, "--format", "json"])
d_wall, d_cpu, d_rss = median(d_runs, 0), median(d_runs, 1), max(r[2] for r in d_runs)
p_wall, p_cpu, p_rss = median(p_runs, 0), median(p_runs, 1), max(r[2] for r in p_runs)
z_wall, z_cpu, z_rss = median(z_runs, 0), median(z_runs, 1), max(r[2] for r in z_runs)
row = "  %-44s %7.2f s wall %7.2f s CPU %8.1f MiB peak RSS"
print("medians of %d alternating rounds:" % rounds)
print(row % ("gpumon diagnose (%s, %g h log)" % (reader, hours), d_wall, d_cpu, d_rss / 1024))
print(row % ("pandas, same statistics", p_wall, p_cpu, p_rss / 1024))
print(row % ("gpumon diagnose (%s, %g h log, .zst)" % (reader, hours), z_wall, z_cpu, z_rss / 1024))
print(row % ("  the same, GPUMON_LOG_THREADS=0 (no thread)", median(t_runs, 0), median(t_runs, 1),
             max(r[2] for r in t_runs) / 1024))
if before:
    print(row % ("  the build before (BEFORE=%s)" % os.environ["BEFORE"], median(b_runs, 0), median(b_runs, 1),
                 max(r[2] for r in b_runs) / 1024))
print(row % ("gpumon diagnose (cJSON, %g h log, one run)" % hours, c_run[0], c_run[1], c_run[2] / 1024))
print(row % ("gpumon diagnose (%s, 1 h log, one run)" % reader, h_run[0], h_run[1], h_run[2] / 1024))
print("  %-44s %7.0f MB/s (cJSON: %.0f MB/s)" % ("diagnose throughput, plain JSON Lines", size / 1e6 / d_wall,
                                                   size / 1e6 / c_run[0]))
print("  %-44s %7.1f us wall, %.1f us CPU (.zst: %.1f us wall, %.1f us CPU)" % (
    "per record", d_wall / records * 1e6, d_cpu / records * 1e6, z_wall / records * 1e6, z_cpu / records * 1e6))
best = lambda runs: min(r[0] for r in runs)   # the least disturbed round of each (a shared machine)
print("best rounds: diagnose %.2f s (%.0f MB/s), pandas %.2f s, .zst %.2f s: %.1fx faster than pandas, .zst %.2fx "
      "plain per record" % (best(d_runs), size / 1e6 / best(d_runs), best(p_runs), best(z_runs),
                            best(p_runs) / best(d_runs), best(z_runs) / best(d_runs)))
print("reader thread: used (one log; GPUMON_LOG_THREADS=0 leaves it out: %.2fx the wall time, %.1fx faster than "
      "pandas; best rounds %.2f s, %.1fx)%s" % (median(t_runs, 0) / d_wall, p_wall / median(t_runs, 0), best(t_runs),
                                                best(p_runs) / best(t_runs),
                                                "" if not before else "; the build before: %.2f s median (%.1fx "
                                                "pandas), best %.2f s (%.1fx)" % (
                                                    median(b_runs, 0), p_wall / median(b_runs, 0), best(b_runs),
                                                    best(p_runs) / best(b_runs))))
print("ratio: diagnose (%s) is %.1fx faster than pandas (wall), %.1fx less CPU, %.0fx less memory; "
      "its RSS on %g h vs 1 h: %.2f vs %.2f MiB; .zst per record vs plain: %.2fx wall, %.2fx CPU" % (
          reader, p_wall / d_wall, p_cpu / d_cpu, p_rss / d_rss, hours, d_rss / 1024, h_run[2] / 1024, z_wall / d_wall,
          z_cpu / d_cpu))
for p in (day, hour, packed, script, os.path.join(tmp, "time.out")):
    os.unlink(p)
os.rmdir(tmp)
