#!/usr/bin/env python3
"""Host models of the second hold-out (tests/cli/test_holdout.sh): the host figures each scenario's
machine would show, written into its log (as tests/holdout/holdout.py host does for the first).

host2.py host NAME LOG
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "holdout"))
import holdout  # noqa: E402


def loader_cache_degrade(t, rnd):
    """32 cores, 8 workers decoding JPEGs. Until ~150 s the files come from the page cache; then
    from the NVMe: iowait climbs to ~30%, the job reads ~350 MB/s, its workers block on reads."""
    f = 0.0 if t < 150 else min(1.0, (t - 150) / 330)
    return {"host.cpu.count": 32, "host.cpu.user": round(24 - 8 * f + rnd.uniform(-2, 2), 1), "host.cpu.system": 3.0 + 3 * f,
            "host.cpu.iowait": round(0.4 + 30 * f + rnd.uniform(-3, 3) * f, 1),
            "job.cpu": round(7.6 - 3.5 * f + rnd.uniform(-.4, .4), 2), "job.cpu.top": 1.0, "job.rss": 26000,
            "job.processes": 9, "job.io.read": int(4000 + 340000 * math.sqrt(f) + rnd.uniform(-3000, 3000) * (1 + 10 * f))}


def cpu_preproc_bursts(t, rnd):
    """32 cores; the main process alone does the preprocessing: one core saturated, nothing else."""
    return {"host.cpu.count": 32, "host.cpu.user": round(3.6 + rnd.uniform(-.5, .5), 1), "host.cpu.system": 0.6,
            "host.cpu.iowait": 0.1, "job.cpu": round(1.03 + rnd.uniform(-.03, .03), 2), "job.cpu.top": 1.0,
            "job.rss": 9800, "job.processes": 1, "job.io.read": int(900 + rnd.uniform(-300, 300))}


holdout.MODELS.update({"loader-cache-degrade": loader_cache_degrade, "cpu-preproc-bursts": cpu_preproc_bursts})

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "host":
        sys.exit(__doc__)
    holdout.host(sys.argv[2], sys.argv[3])
