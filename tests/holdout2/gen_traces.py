#!/usr/bin/env python3
"""Writes the second hold-out's irregular traces: gen_traces.py [DIR] writes DIR/NAME-METRIC.csv (by
default next to this script; tests/cli/test_holdout.sh writes them beside copies of the scenarios, so
the tree holds the generator, not its 1 MB of output).

Each trace is a list of segments (seconds, {metric: (level, noise amplitude)}) played through a
seeded random generator. The level is laid out at 10 ms resolution, then averaged over 0.1 s bins
(a driver sample is the busy fraction of its period, so a 0.3 s gap reads partly), and written as
`t,value` points every 0.1 s. A metric absent from a segment is 0. Deterministic.
"""
import math
import os
import random
import sys
from typing import Dict, List, Tuple

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
Seg = Tuple[float, Dict[str, Tuple[float, float]]]


def write(name: str, segs: List[Seg], metrics: List[str], note: str) -> None:
    rnd = random.Random(name)
    fine: Dict[str, List[float]] = {m: [] for m in metrics}
    for dur, lv in segs:
        n = max(1, int(round(dur * 100)))
        # one noise draw per 0.1 s inside a segment
        for m in metrics:
            level, amp = lv.get(m, (0.0, 0.0))
            draw = 0.0
            for i in range(n):
                if i % 10 == 0:
                    draw = rnd.uniform(-amp, amp)
                fine[m].append(0.0 if level == 0 else max(0.0, level + draw))
    for m in metrics:
        vals = fine[m]
        lines = ["t,%s" % m, "# %s: %s (gen_traces.py)" % (name, note)]
        for b in range(0, len(vals) // 10):
            chunk = vals[b * 10:(b + 1) * 10]
            v = sum(chunk) / len(chunk)
            if m.startswith("util") or m.startswith("sm") or m.startswith("tensor") or m.startswith("dram"):
                v = min(100.0, v)
            lines.append("%.2f,%.1f" % (b * 0.1 + 0.05, v))
        with open(os.path.join(HERE, "%s-%s.csv" % (name, m)), "w") as f:
            f.write("\n".join(lines) + "\n")


def total(segs: List[Seg]) -> float:
    return sum(s[0] for s in segs)


def loader_cache_degrade() -> List[Seg]:
    """8 workers read an image set from local NVMe. Until ~150 s the page cache holds the epoch's
    files and the prefetch queue keeps up (steps of ~0.45 s, a rare 0.1-0.3 s hiccup). Then the
    cache is full, reads go to the disk, and the wait per batch grows slowly to ~0.9 s by 480 s."""
    rnd = random.Random(1)
    segs: List[Seg] = [(6.0, {}), (14.0, {"util": (30, 25)})]  # start-up: imports, then cudnn autotune
    while total(segs) < 490:
        t = total(segs)
        segs.append((rnd.uniform(0.40, 0.50), {"util": (96, 3)}))
        if t < 150:
            wait = rnd.uniform(0.1, 0.3) if rnd.random() < 0.04 else 0.0
        else:
            mean = 0.03 + 0.87 * min(1.0, (t - 150) / 330)
            wait = rnd.lognormvariate(math.log(max(mean, 0.01)), 0.45)
        if wait > 0.005:
            segs.append((wait, {}))
    return segs


def grad_accum(warmup: float = 12.0) -> List[Seg]:
    """8 micro-batches (~0.35 s each, no_sync), then the gradient all-reduce over NVLink (~0.5 s),
    the AdamW step (~0.3 s, memory-bound) and a host sync for grad-norm clipping and logging
    (~0.45 s, the GPU idle). Starts at 8 s after imports and NCCL init."""
    rnd = random.Random(2)
    segs: List[Seg] = [(8.0, {}), (warmup, {"util": (55, 40), "sm": (30, 25), "tensor": (10, 8), "dram": (20, 15)})]
    while total(segs) < 310:
        for _ in range(8):
            segs.append((rnd.uniform(0.32, 0.38), {"util": (99, 1), "sm": (82, 4), "tensor": (46, 5), "dram": (42, 5)}))
        segs.append((rnd.uniform(0.42, 0.6), {"util": (100, 0), "sm": (22, 4), "tensor": (0, 0), "dram": (12, 3),
                                               "nvlink": (85000, 6000)}))
        segs.append((rnd.uniform(0.27, 0.33), {"util": (86, 5), "sm": (58, 6), "tensor": (0, 0), "dram": (76, 5)}))
        segs.append((rnd.uniform(0.35, 0.55), {}))
    return segs


def cpu_preproc() -> List[Seg]:
    """num_workers=0: the main process computes log-mel spectrograms and tokenizes on its one core
    (~3.2 s a batch, +-0.6), then the GPU runs forward and backward (~1.1 s)."""
    rnd = random.Random(4)
    segs: List[Seg] = [(5.0, {})]
    while total(segs) < 370:
        segs.append((rnd.uniform(2.6, 3.8), {}))
        segs.append((rnd.uniform(1.0, 1.2), {"util": (95, 3)}))
    return segs


def inference_diurnal() -> List[Seg]:
    """A Triton server: daytime traffic (dynamic batching, load ~45% with swings), then the night
    (no requests for ~200 s), then the morning ramp. Requests run as short busy bursts."""
    rnd = random.Random(6)
    segs: List[Seg] = [(3.0, {})]
    while total(segs) < 460:
        t = total(segs)
        if t < 140:
            load = 0.45 + 0.15 * math.sin(t / 23.0)
        elif t < 340:
            load = 0.0
        else:
            load = 0.08 + 0.4 * (t - 340) / 120
        if load <= 0:
            segs.append((min(340 - t, 1.0), {}))
            continue
        busy = rnd.uniform(0.03, 0.12)
        gap = busy * (1 - load) / load * rnd.uniform(0.3, 1.7)
        segs.append((busy, {"util": (92, 6)}))
        segs.append((gap, {}))
    return segs


def pcie_rank(slow: bool) -> List[Seg]:
    """DDP over PCIe (no NVLink), 3 GB volumes a step. Copy H2D (no kernel running): 0.125 s on
    Gen4 x16, 0.46 s on GPU 2's x4 link; compute 0.75 s; the fast ranks then spin in NCCL waiting
    for GPU 2 (busy); the all-reduce itself ~0.3 s."""
    rnd = random.Random(7)  # the same draws on every rank: they run in lockstep
    segs: List[Seg] = [(10.0, {}), (10.0, {"util": (50, 40)})]
    while total(segs) < 310:
        slow_copy = rnd.uniform(0.42, 0.50)
        fast_copy = rnd.uniform(0.11, 0.14)
        comp = rnd.uniform(0.72, 0.80)
        ar = rnd.uniform(0.27, 0.33)
        if slow:
            segs += [(slow_copy, {"rx": (6400000, 300000)}), (comp, {"util": (98, 2)}), (ar, {"util": (100, 0)})]
        else:
            segs += [(fast_copy, {"rx": (24000000, 1000000)}), (comp, {"util": (98, 2)}),
                     (slow_copy - fast_copy + ar, {"util": (100, 0)})]
    return segs


def healthy_noisy(gpu: int) -> List[Seg]:
    """8 ranks of a well-fed job: utilization 88-100 in 0.1 s bins, a metrics all-gather every ~45 s
    (1.5 s at ~60%), a Python GC pause of 1-2 s now and then on one rank (the others wait in NCCL,
    busy). Start: NCCL init and cudnn benchmark, ragged, for ~35 s."""
    rnd = random.Random(100 + gpu)
    shared = random.Random(99)
    segs: List[Seg] = [(4.0, {}), (31.0, {"util": (60, 40)})]
    next_log = 45.0
    while total(segs) < 370:
        t = total(segs)
        if t >= next_log:
            segs.append((1.5, {"util": (60, 15)}))
            next_log += shared.uniform(40, 50)
        elif rnd.random() < 0.004:
            segs.append((rnd.uniform(1.0, 2.0), {"util": (35, 15)}))
        else:
            segs.append((rnd.uniform(2, 5), {"util": (95, 6)}))
    return segs


def main() -> None:
    write("loader-cache-degrade", loader_cache_degrade(), ["util"], "page cache fills at ~150 s, loader waits grow")
    write("grad-accum-bursty", grad_accum(), ["util", "sm", "tensor", "dram", "nvlink"], "8 micro-batches, all-reduce, AdamW, host sync")
    write("startup-autotune", grad_accum(26.0), ["util", "sm", "tensor", "dram", "nvlink"],
          "grad-accum-bursty with a 26 s autotune warm-up")
    write("cpu-preproc-bursts", cpu_preproc(), ["util"], "3.2 s of CPU preprocessing, 1.1 s of GPU")
    write("inference-diurnal", inference_diurnal(), ["util"], "day, night, morning")
    write("pcie-x4-rank", pcie_rank(False), ["util", "rx"], "a rank on a Gen4 x16 link")
    write("pcie-x4-rank-slow", pcie_rank(True), ["util", "rx"], "the rank on a Gen4 x4 link")
    for g in range(8):
        write("healthy-noisy-%d" % g, healthy_noisy(g), ["util"], "rank %d" % g)


if __name__ == "__main__":
    main()
