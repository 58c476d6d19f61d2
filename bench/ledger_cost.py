#!/usr/bin/python3
"""ledger_cost.py: what the ledger of GPU time by cause (src/ledger.c, fed by diag.c's
diag_ledger_feed) adds to gpumon diagnose and to gpumon run, measured in the same run: callgrind
counts every instruction of one process, and the ledger's share is the inclusive count of its entry
points (diag_ledger_feed, which reads the analysis' latest point and classifies it; ledger_finish;
the summary's ledger_run, ledger_text and ledger_json) over the program's total. Targets: at most 5%
of diagnose's instructions and of run's.

  diagnose: an 8-GPU log at 1 Hz (the straggler scenario recorded fast-played, its records copied
            one second apart to the length asked for), gpumon diagnose --format json under callgrind;
            also its wall time, the median of 3 runs without valgrind, for scale.
  run:      gpumon run --sim --scenario straggler --interval 100ms -- sleep SECONDS under callgrind.

Needs valgrind (callgrind_annotate). Usage: bench/ledger_cost.py [BUILD_DIR] [MINUTES] (build 60)
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
minutes = float(sys.argv[2]) if len(sys.argv) > 2 else 60
gpumon = os.path.abspath(os.path.join(build, "gpumon"))
tmp = tempfile.mkdtemp(prefix="gpumon-bench-ledger-")
LEDGER_FNS = ("diag_ledger_feed", "ledger_finish", "ledger_run", "ledger_text", "ledger_json", "compare_ledger_delta")


def callgrind(args, env=None):
    """(total instructions, the ledger's inclusive instructions) of one run of args."""
    out = os.path.join(tmp, "cg.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + args, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out], capture_output=True,
                         text=True, check=True).stdout
    os.unlink(out)
    total, per_fn = 0, {}
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)$", line)
        if not m:
            continue
        ir, rest = int(m.group(1).replace(",", "")), m.group(2)
        if "PROGRAM TOTALS" in rest:
            total = ir
            continue
        fn = re.search(r":(\w+)", rest)
        if fn and fn.group(1) in LEDGER_FNS:
            per_fn[fn.group(1)] = max(per_fn.get(fn.group(1), 0), ir)
    return total, sum(per_fn.values()), per_fn


def make_log(path, seconds):
    """The straggler scenario's 8 GPUs at 1 Hz: records recorded fast-played, re-stamped 1 s apart."""
    src = os.path.join(tmp, "src.jsonl")
    env = dict(os.environ, GPUMON_SIM_SPEED="20", GPUMON_SIM_CLOCK_DIR=os.path.join(tmp, "clock"))
    subprocess.run([gpumon, "watch", "--sim", "--scenario", "straggler", "--format", "jsonl", "--interval", "1s",
                    "--count", "300", "--output", src], env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    recs = [json.loads(l) for l in open(src)]
    t0 = 1798761600  # 2027-01-01T00:00:00Z
    with open(path, "w") as f:
        for s in range(int(seconds)):
            r = recs[s % len(recs)]
            r["timestamp"] = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t0 + s))
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    os.unlink(src)


if subprocess.run(["sh", "-c", "command -v valgrind callgrind_annotate"], stdout=subprocess.DEVNULL).returncode:
    sys.exit("ledger_cost: needs valgrind (apt-get install valgrind)")
log = os.path.join(tmp, "log.jsonl")
make_log(log, minutes * 60)
walls = []
for _ in range(3):
    t = time.monotonic()
    subprocess.run([gpumon, "diagnose", "--format", "json", log], check=True, stdout=subprocess.DEVNULL)
    walls.append(time.monotonic() - t)
total, led, per = callgrind([gpumon, "diagnose", "--format", "json", log])
print("diagnose of %.0f min, 8 GPUs, 1 Hz (%.1f MiB): %.2f s wall (median of 3)" % (minutes, os.path.getsize(log) / 2**20,
                                                                                 statistics.median(walls)))
print("  instructions %d, the ledger's %d: %s" % (total, led, ", ".join("%s %d" % kv for kv in sorted(per.items()))))
print("ratio: the ledger is %.2f%% of diagnose's instructions (target at most 5%%)" % (100.0 * led / total))
env = dict(os.environ, GPUMON_SIM_CLOCK_DIR=os.path.join(tmp, "clock"))
secs = "20"
total, led, per = callgrind([gpumon, "run", "--sim", "--scenario", "straggler", "--interval", "100ms", "--", "sleep", secs],
                            env=env)
print("run --interval 100ms of sleep %s on the straggler scenario's 8 GPUs, under callgrind:" % secs)
print("  instructions %d, the ledger's %d: %s" % (total, led, ", ".join("%s %d" % kv for kv in sorted(per.items()))))
print("ratio: the ledger is %.2f%% of run's instructions (target at most 5%%)" % (100.0 * led / total))
os.unlink(log)
for d, _, files in os.walk(tmp, topdown=False):
    for f in files:
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
