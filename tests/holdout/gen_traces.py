#!/usr/bin/env python3
"""Writes the hold-out scenarios' irregular utilization traces (tests/holdout/*.csv).

The simulator's signal terms (square, sine, noise...) repeat exactly; real runs do not: shard
fetches, checkpoints, notebook cells and compile bursts each last a little more or less. Each trace
is a list of segments (seconds, level %, noise amplitude) played through a seeded random generator,
written as `t,value` points every 0.5 s (the simulator interpolates linearly between them; the
driver's 166 ms samples then read it). A level of 0 stays exactly 0: an idle GPU reads 0%.
Run it again after changing a segment list; the output is deterministic.
"""
import os
import random
from typing import Callable, Dict, List, Tuple

Segment = Tuple[float, float, float]  # seconds, level %, noise amplitude %
HERE = os.path.dirname(os.path.abspath(__file__))


def write(name: str, segments: List[Segment], note: str) -> None:
    rnd = random.Random(name)
    t = 0.0
    lines = ["t,util", "# " + note + " (gen_traces.py)"]
    for dur, level, amp in segments:
        end = t + dur
        # a point right at the segment's start, so a change of level is sharp (0.05 s)
        while t < end - 1e-9:
            v = 0.0 if level == 0 else min(100.0, max(0.0, level + rnd.uniform(-amp, amp)))
            lines.append("%.2f,%.1f" % (t, v))
            t = min(end, t + 0.5)
            if end - t < 0.05:
                t = end
        lines.append("%.2f,%.1f" % (t - 0.05, v))
    lines.append("%.2f,%.1f" % (t, segments[-1][1]))
    with open(os.path.join(HERE, name + ".csv"), "w") as f:
        f.write("\n".join(lines) + "\n")


def jitter(rnd: random.Random, mean: float, spread: float) -> float:
    return max(0.5, rnd.uniform(mean - spread, mean + spread))


def shards() -> List[Segment]:
    """Four GPUs compute ~6 s on a shard, then wait ~10 s for the next one from network storage."""
    rnd = random.Random(11)
    segs: List[Segment] = [(4.0, 0, 0)]
    while sum(s[0] for s in segs) < 460:
        segs.append((jitter(rnd, 6.0, 0.8), 95, 3))
        segs.append((jitter(rnd, 10.0, 1.6), 0, 0))
    return segs


def gh200_checkpoints() -> List[Segment]:
    """Healthy training; every ~200 s (+-15) a checkpoint of ~25 s (+-3) with the GPU idle."""
    rnd = random.Random(12)
    segs: List[Segment] = [(170.0, 96, 2)]
    while sum(s[0] for s in segs) < 680:
        segs.append((jitter(rnd, 25.0, 3.0), 0, 0))
        segs.append((2.0, 60, 10))  # the first steps after it: caches cold again
        segs.append((jitter(rnd, 175.0, 15.0), 96, 2))
    return segs


def gh200_checkpoint_copies() -> List[Segment]:
    """The same run, each checkpoint as it looks with the state copied to the host shard by shard: the
    state gathered (a busy second and a half), then a short copy (copy engines, a low utilization peak)
    every ~2.8 s between writes, then the first steps after it."""
    rnd = random.Random(21)
    segs: List[Segment] = [(170.0, 96, 2)]
    while sum(s[0] for s in segs) < 680:
        segs.append((1.5, 90, 5))
        for _ in range(7):
            segs.append((jitter(rnd, 2.8, 0.6), 0, 0))
            segs.append((0.4, 30, 8))
        segs += [(2.0, 0, 0), (2.0, 60, 10), (jitter(rnd, 175.0, 15.0), 96, 2)]
    return segs


def epochs() -> List[Segment]:
    """Epochs of ~100 s; at each start 12-16 s idle while DataLoader workers are re-spawned."""
    rnd = random.Random(13)
    segs: List[Segment] = [(6.0, 0, 0)]
    while sum(s[0] for s in segs) < 460:
        segs.append((jitter(rnd, 98.0, 4.0), 91, 3))
        segs.append((jitter(rnd, 14.0, 2.0), 0, 0))
    return segs


def warmup() -> List[Segment]:
    """torch.compile (max-autotune): ~90 s of compiling on the CPU with short autotuning bursts
    on the GPU, then CUDA-graph capture and steady training."""
    rnd = random.Random(14)
    segs: List[Segment] = [(34.0, 0, 0)]   # gpumon up, then launch, imports, the model built on the CPU
    while sum(s[0] for s in segs) < 118:
        segs.append((jitter(rnd, 1.2, 0.7), rnd.uniform(55, 100), 5))
        segs.append((jitter(rnd, 5.0, 3.0), 0, 0))
    segs += [(4.0, 40, 15), (380.0, 97, 2)]
    return segs


def notebook() -> List[Segment]:
    """A Jupyter session: kernel start and imports, then cells that train or evaluate for
    30-90 s, with minutes of reading plots and editing code between them."""
    return [(22.0, 0, 0), (55.0, 90, 4), (185.0, 0, 0), (31.0, 72, 8), (178.0, 0, 0), (88.0, 91, 3),
            (160.0, 0, 0)]


def sweep_done() -> List[Segment]:
    """A sweep trial that early-stops at 170 s: its process exits, the GPU reads 0 from then on."""
    return [(170.0, 93, 3), (300.0, 0, 0)]


def rank_died() -> List[Segment]:
    """DDP rank 3 raises at 121 s (its process exits)."""
    return [(121.0, 97, 2), (300.0, 0, 0)]


TRACES: Dict[str, Tuple[Callable[[], List[Segment]], str]] = {
    "shards": (shards, "shard-stalls: ~6 s compute, ~10 s waiting for the next shard"),
    "gh200-ckpt": (gh200_checkpoints, "gh200-checkpoint: ~25 s checkpoint every ~200 s"),
    "gh200-ckpt-copies": (gh200_checkpoint_copies, "gh200-checkpoint-copies: the same with the state's copies"),
    "epochs": (epochs, "epoch-respawn: 12-16 s idle at each epoch's start"),
    "warmup": (warmup, "warmup-compile: torch.compile autotuning, then steady"),
    "notebook": (notebook, "notebook-cells: cells between minutes of idling"),
    "sweep-done": (sweep_done, "sweep-one-done: trial 2 early-stops at 170 s"),
    "rank-died": (rank_died, "ddp-rank-died: rank 3 exits at 121 s"),
}

if __name__ == "__main__":
    for trace_name, (make, trace_note) in TRACES.items():
        write(trace_name, make(), trace_note)
