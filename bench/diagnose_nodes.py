#!/usr/bin/python3
"""diagnose_nodes.py: `gpumon diagnose` of one job across 16 nodes (128 GPUs).

Records 16 node logs of 8 simulated H100s each with `gpumon watch --format
jsonl -o node-NN.jsonl.zst` (1 Hz records, fast-played), each under its own
host name (a UTS namespace per node, as root; else the hostname field is
rewritten), 15 nodes training at ~93% and node-07 at ~55% (the slow node),
then times `gpumon diagnose` of all 16 together: wall and CPU time and peak
RSS (GNU time), at two log lengths (memory must not grow with the log) and at
2, 4, 8 and 16 nodes (memory grows with the GPUs), the 16 long logs again with a
reader thread for the first 8 only (GPUMON_LOG_THREADS=8; by default the first
16 have one) and with none (=0), and checks what the whole
job's diagnosis says: 128 GPUs in 16 nodes, node-07 the slow node on each of
its 8 GPUs and no other, the others healthy.

Usage: bench/diagnose_nodes.py [BUILD_DIR] [SHORT_RECORDS] [LONG_RECORDS]
       (defaults: build 600 3600; prints every figure and the ratios)
"""
import json, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cluster  # noqa: E402  (the node scenarios)

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(HERE), "build"))
short = int(sys.argv[2]) if len(sys.argv) > 2 else 600
long_ = int(sys.argv[3]) if len(sys.argv) > 3 else 3600
gpumon = os.path.join(build, "gpumon")
sim = os.path.join(build, "sim", "libnvidia-ml.so.1")
NODES, SLOW = 16, "node-07"
SPEED = 20   # scenario seconds per wall second while recording: 1 Hz records every 50 ms of wall time, which a
             # loaded machine's wake-ups keep up with (at 500x they fell 4 s of scenario apart)


def record(tmp, records, parallel=NODES, nodes=NODES, gpus=8):
    """The node logs of `records` records each (all recorded at once); returns their paths."""
    ns = os.geteuid() == 0 and subprocess.run(["unshare", "--uts", "sh", "-c", "hostname probe"],
                                              stderr=subprocess.DEVNULL).returncode == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMON_")}
    env.update(GPUMON_SIM_SPEED=str(SPEED), GPUMON_SIM_CLOCK_DIR=tmp)
    paths, running = [], []
    for i in range(nodes):
        name = "node-%02d" % (i + 1) if gpus == 8 else "big-node"
        scn = os.path.join(tmp, "%s-%d.scn" % (name, records))
        role = "slow" if name == SLOW else "busy"
        with open(scn, "w") as f:
            f.write(cluster.NODE_HEADER.format(seed=200 + i).replace("gpu 0-7", "gpu 0-%d" % (gpus - 1)))
            for g in range(gpus):
                f.write("\ngpu %d\n  " % g + cluster.ROLES[role][0].format(pid=4000 + g))
        out = os.path.join(tmp, "%s-%d.jsonl%s" % (name, records, ".zst" if ns else ""))
        cmd = [gpumon, "watch", "--nvml", sim, "--scenario", scn, "--interval", "1s", "--count", str(records),
               "--format", "jsonl", "-o", out]
        if ns:
            cmd = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', name] + cmd
        running.append((subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), name, out))
        paths.append(out)
        while len(running) >= parallel or (i == nodes - 1 and running):
            p, n, o = running.pop(0)
            if p.wait() != 0:
                sys.exit("recording %s failed: %s" % (n, p.stderr.read().decode()))
            if not ns:   # no namespaces: the node's name goes into each record
                recs = [json.loads(line) for line in open(o) if line.strip()]
                with open(o, "w") as f:
                    for r in recs:
                        r["hostname"] = n
                        f.write(json.dumps(r, separators=(",", ":")) + "\n")
    return paths


def diagnose(paths, fmt="text", threads=None):
    """(stdout, wall s, CPU s, peak RSS MiB) of one diagnose run (threads: GPUMON_LOG_THREADS, None: the
    default, 16)."""
    env = dict(os.environ, **({"GPUMON_LOG_THREADS": str(threads)} if threads is not None else {}))
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", gpumon, "diagnose", "--format", fmt] + paths,
                       capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("diagnose failed (%d): %s" % (p.returncode, p.stderr[-2000:]))
    rss, user, sys_ = p.stderr.strip().splitlines()[-1].split()
    return p.stdout, wall, float(user) + float(sys_), int(rss) / 1024


def best(paths, runs=3, threads=None):
    """The run with the least CPU of `runs` (the machine is shared); its RSS is the peak of all."""
    rs = [diagnose(paths, threads=threads) for _ in range(runs)]
    out, wall, cpu, _ = min(rs, key=lambda r: r[2])
    return out, wall, cpu, max(r[3] for r in rs)


def main():
    tmp = tempfile.mkdtemp(prefix="gpumon-bench-")
    failures = []

    def check(what, good, detail=""):
        print("%s: %s%s" % ("ok" if good else "FAIL", what, "" if good else ": " + detail))
        if not good:
            failures.append(what)
    try:
        t0 = time.monotonic()
        logs_s, logs_l = record(tmp, short), record(tmp, long_)
        big = record(tmp, short, nodes=1, gpus=64)
        size = sum(os.path.getsize(p) for p in logs_l)
        print("recorded 16 node logs of 8 simulated H100s at %d and %d records (1 Hz, played %dx) and one node of "
              "64 at %d, in %.0f s; the long ones %.1f MiB in all" % (short, long_, SPEED, short,
                                                                     time.monotonic() - t0, size / 1048576))
        out, wall, cpu, rss = best(logs_l)
        records = NODES * long_
        print("diagnose, 16 nodes x %d records (128 GPUs, %d records): wall %.2f s, CPU %.2f s (%.1f us per 8-GPU "
              "record), peak RSS %.1f MiB" % (long_, records, wall, cpu, cpu / records * 1e6, rss))
        for threads in (NODES // 2, 0):   # a reader thread for half the logs, and none
            _, wall_t, cpu_t, rss_t = best(logs_l, threads=threads)
            print("  the same, GPUMON_LOG_THREADS=%d: wall %.2f s, CPU %.2f s, peak RSS %.1f MiB"
                  % (threads, wall_t, cpu_t, rss_t))
        out_s, wall_s, cpu_s, rss_s = best(logs_s)
        print("diagnose, 16 nodes x %d records: wall %.2f s, CPU %.2f s, peak RSS %.1f MiB" % (short, wall_s, cpu_s, rss_s))
        print("a log %.0fx longer: CPU %.1fx, peak RSS %.2fx (memory does not grow with the log)"
              % (long_ / short, cpu / cpu_s, rss / rss_s))
        grow = []
        for k in (2, 4, 8, 16):
            _, _, c, r = best(logs_s[:k], runs=2)
            grow.append((k, r, c))
            print("  %2d nodes (%3d GPUs) x %d records: peak RSS %.1f MiB, CPU %.2f s" % (k, 8 * k, short, r, c))
        per_gpu = (grow[-1][1] - grow[0][1]) / (8 * (grow[-1][0] - grow[0][0]))
        print("memory per GPU: %.0f KiB (16 nodes against 2: %.1f MiB against %.1f MiB, %.2fx for 8x the GPUs)"
              % (per_gpu * 1024, grow[-1][1], grow[0][1], grow[-1][1] / grow[0][1]))
        _, _, c, r = best(big, runs=2)
        print("  one log of 64 GPUs x %d records: peak RSS %.1f MiB, CPU %.2f s, against %.1f MiB for 8 logs of 8: "
              "%.1f MiB of the difference per log read (its reader, its ring of parsed records, its zstd window)"
              % (short, r, c, grow[2][1], (grow[2][1] - r) / 7))
        # what the whole job's diagnosis says
        summary = re.search(r"Summary: .*", out)
        print(summary.group(0) if summary else "(no summary line)")
        m = re.search(r"Nodes \((\d+)\):", out)
        check("16 nodes in the summary", m is not None and m.group(1) == "16", "got %s" % (m and m.group(0)))
        check("128 GPUs in the summary", bool(re.search(r"Summary: .*\b128 GPUs\b", out)), summary and summary.group(0))
        for line in out.splitlines():
            if re.match(r"\s+node-\d+: ", line):
                print(line)
        js = json.loads(diagnose(logs_l, "json")[0])
        gpus = js["gpus"]
        slow = sorted((g["host"], g["index"]) for g in gpus if any(v["id"] == "slow-node" for v in g["verdicts"]))
        check("%s the slow node, on each of its 8 GPUs and no other's" % SLOW,
              slow == [(SLOW, i) for i in range(8)], "got %s" % slow[:10])
        verdicts = {}
        for g in gpus:
            for v in g["verdicts"]:
                verdicts.setdefault(v["id"], set()).add(g["host"])
        print("verdicts of the whole job: %s" % ", ".join("%s on %d node%s" % (k, len(v), "s" * (len(v) > 1))
                                                         for k, v in sorted(verdicts.items())))
        others = {g["host"] for g in gpus if g["host"] != SLOW and any(v["id"] == "healthy" for v in g["verdicts"])}
        check("the 15 other nodes healthy", len(others) == 15, "healthy on %s" % sorted(others))
    finally:
        shutil.rmtree(tmp)
    if failures:
        sys.exit("%d checks failed" % len(failures))


main()
