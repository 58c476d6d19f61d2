#!/usr/bin/env python3
"""Host models of the fourth hold-out (tests/cli/test_holdout.sh): the host figures each scenario's
machine would show, written into its log (as tests/holdout/holdout.py host does for the first round).
Phases follow the scenarios' constructions (gen_traces.py): the job's CPU (cores), its busiest process
(job.cpu.top), its reads (job.io.read, kB/s), the host's CPU and iowait (percent).

host4.py host NAME LOG
"""
import os
import random
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "holdout"))
import holdout  # noqa: E402

Host = Dict[str, Any]


def j(rnd: random.Random, v: float, a: float, nd: int = 1) -> float:
    return round(v + rnd.uniform(-a, a), nd)


def compile_warmup(t: float, rnd: random.Random) -> Host:
    """32 cores. Until ~215 s Inductor's compile workers fill ~12 cores; then the training loop and 6
    loader workers (~3 cores), data from the page cache."""
    if t < 4:
        return holdout.quiet(t, rnd)
    if t < 215:
        return {"host.cpu.count": 32, "host.cpu.user": j(rnd, 38, 4), "host.cpu.system": 3.0, "host.cpu.iowait": 0.4,
                "job.cpu": j(rnd, 12.2, 1.5, 2), "job.cpu.top": 1.0, "job.rss": 21000, "job.processes": 14,
                "job.io.read": int(3000 + rnd.uniform(-2000, 2000))}
    return {"host.cpu.count": 32, "host.cpu.user": j(rnd, 11, 1.5), "host.cpu.system": 2.0, "host.cpu.iowait": 0.3,
            "job.cpu": j(rnd, 3.1, .3, 2), "job.cpu.top": 1.0, "job.rss": 26000, "job.processes": 7,
            "job.io.read": int(6000 + rnd.uniform(-2000, 2000))}


def weights_nfs(t: float, rnd: random.Random) -> Host:
    """64 cores. Until ~136 s the 4 ranks read their shards from NFS (~1.1 GB/s, iowait ~20%, each rank
    deserializing on about half a core); then training (each rank's main thread a core, 2 workers each)."""
    if t < 3:
        return holdout.quiet(t, rnd)
    if t < 136:
        return {"host.cpu.count": 64, "host.cpu.user": j(rnd, 4.5, 1), "host.cpu.system": j(rnd, 4.0, 1),
                "host.cpu.iowait": j(rnd, 21, 5), "job.cpu": j(rnd, 2.3, .4, 2), "job.cpu.top": j(rnd, .6, .15, 2),
                "job.rss": 52000, "job.processes": 5, "job.io.read": int(1080000 + rnd.uniform(-250000, 250000))}
    return {"host.cpu.count": 64, "host.cpu.user": j(rnd, 10.5, 1), "host.cpu.system": 1.5, "host.cpu.iowait": 0.4,
            "job.cpu": j(rnd, 6.2, .4, 2), "job.cpu.top": 1.0, "job.rss": 61000, "job.processes": 13,
            "job.io.read": int(9000 + rnd.uniform(-3000, 3000))}


def ddp_8gpu(t: float, rnd: random.Random) -> Host:
    """96 cores; 8 ranks, 4 workers each: ~12 cores busy once training, data from local NVMe."""
    if t < 2:
        return holdout.quiet(t, rnd)
    busy = t > 40
    return {"host.cpu.count": 96, "host.cpu.user": j(rnd, 13 if busy else 5, 1.5), "host.cpu.system": 2.0,
            "host.cpu.iowait": j(rnd, 0.6, .3), "job.cpu": j(rnd, 12.5 if busy else 4.0, .6, 2), "job.cpu.top": 1.0,
            "job.rss": 88000, "job.processes": 41, "job.io.read": int((40000 if busy else 20000) + rnd.uniform(-8000, 8000))}


def starved_cpu_small(t: float, rnd: random.Random) -> Host:
    """8 vCPUs, all busy with the 6 workers' JPEG decoding and the main process (files in the page cache)."""
    if t < 2:
        return holdout.quiet(t, rnd)
    return {"host.cpu.count": 8, "host.cpu.user": j(rnd, 93, 3), "host.cpu.system": j(rnd, 4.5, 1), "host.cpu.iowait": 0.3,
            "job.cpu": j(rnd, 7.6, .25, 2), "job.cpu.top": 1.0, "job.rss": 11000, "job.processes": 7,
            "job.io.read": int(3500 + rnd.uniform(-2000, 2000))}


def starved_io(t: float, rnd: random.Random) -> Host:
    """32 cores, mostly idle; the 4 workers blocked reading shards from the network mount (~200 MB/s)."""
    if t < 3:
        return holdout.quiet(t, rnd)
    return {"host.cpu.count": 32, "host.cpu.user": j(rnd, 5, 1.5), "host.cpu.system": j(rnd, 3.5, 1),
            "host.cpu.iowait": j(rnd, 30, 7), "job.cpu": j(rnd, 1.2, .25, 2), "job.cpu.top": j(rnd, .7, .2, 2),
            "job.rss": 24000, "job.processes": 5, "job.io.read": int(205000 + rnd.uniform(-60000, 60000))}


def small_startup(t: float, rnd: random.Random) -> Host:
    """16 cores. Until 118 s the main process tokenizes on one core; then training with 4 workers."""
    if t < 4:
        return holdout.quiet(t, rnd)
    if t < 118:
        return {"host.cpu.count": 16, "host.cpu.user": j(rnd, 8.5, 1), "host.cpu.system": 1.0, "host.cpu.iowait": 0.2,
                "job.cpu": j(rnd, 1.0, .03, 2), "job.cpu.top": 1.0, "job.rss": 6800, "job.processes": 1,
                "job.io.read": int(4000 + rnd.uniform(-1500, 1500))}
    return {"host.cpu.count": 16, "host.cpu.user": j(rnd, 22, 2), "host.cpu.system": 2.0, "host.cpu.iowait": 0.2,
            "job.cpu": j(rnd, 2.9, .3, 2), "job.cpu.top": 1.0, "job.rss": 9100, "job.processes": 5,
            "job.io.read": int(1500 + rnd.uniform(-500, 500))}


def nccl_hang(t: float, rnd: random.Random) -> Host:
    """64 cores, quiet: the 4 ranks sleep in NCCL's bootstrap (a socket poll), the agent waits."""
    if t < 3:
        return holdout.quiet(t, rnd)
    return {"host.cpu.count": 64, "host.cpu.user": j(rnd, 1.2, .3), "host.cpu.system": 0.4, "host.cpu.iowait": 0.1,
            "job.cpu": j(rnd, 0.12, .05, 2), "job.cpu.top": j(rnd, .05, .03, 2), "job.rss": 23000, "job.processes": 5,
            "job.io.read": 0}


def healthy_start(t: float, rnd: random.Random) -> Host:
    """32 cores; 2 ranks with 6 workers each, data from local NVMe."""
    if t < 2:
        return holdout.quiet(t, rnd)
    return {"host.cpu.count": 32, "host.cpu.user": j(rnd, 17, 2), "host.cpu.system": 2.0, "host.cpu.iowait": j(rnd, .5, .3),
            "job.cpu": j(rnd, 5.4, .4, 2), "job.cpu.top": 1.0, "job.rss": 34000, "job.processes": 15,
            "job.io.read": int(30000 + rnd.uniform(-8000, 8000))}


holdout.MODELS.update({"compile-warmup": compile_warmup, "weights-nfs": weights_nfs, "ddp-8gpu": ddp_8gpu,
                       "starved-cpu-small": starved_cpu_small, "starved-io": starved_io,
                       "small-startup": small_startup, "nccl-hang": nccl_hang, "healthy-start": healthy_start})

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "host":
        sys.exit(__doc__)
    holdout.host(sys.argv[2], sys.argv[3])
