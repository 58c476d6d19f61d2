#!/usr/bin/env python3
"""Fourth hold-out (the first minutes of a job): writes the scenarios' traces and prints their true time split.

gen_traces.py [DIR]          writes DIR/NAME-util.csv and DIR/NAME-mem.csv (default: next to this script)
gen_traces.py --truth        prints each trace's true split (seconds and % of the recorded span)

Utilization is a list of segments (seconds, level, noise amplitude, cause), laid out at 10 ms with one
noise draw per 0.1 s, averaged into 0.1 s bins and written as `t,value` every 0.1 s (as tests/holdout3
does). Memory is a process's allocation in bytes as `t,value` points (a staircase: a caching allocator
grows in chunks), played by the scenario as the process's memory. The cause of each segment is the
ground truth the ledger is judged against: by construction, not from gpumon. Deterministic.
"""
import importlib.util
import os
import random
import sys
from typing import Callable, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("holdout3_traces", os.path.join(HERE, "..", "holdout3", "gen_traces.py"))
round3 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(round3)  # type: ignore[union-attr]
Seg = Tuple[float, float, float, str]   # seconds, util level, noise amplitude, cause
Mem = List[Tuple[float, float]]         # (scenario second, MiB)
MiB = 1 << 20


def total(segs: List[Seg]) -> float:
    return sum(s[0] for s in segs)


def clip(segs: List[Seg], end: float) -> List[Seg]:
    out, t = [], 0.0
    for d, lv, amp, c in segs:
        if t >= end:
            break
        out.append((min(d, end - t), lv, amp, c))
        t += d
    return out


def train(segs: List[Seg], rnd: random.Random, until: float, level: float = 95, amp: float = 3) -> List[Seg]:
    """Steady training: 2-7 s of kernels back to back, then a 0.1-0.2 s dip (all-reduce tail, optimizer
    step, a host sync), all compute."""
    while total(segs) < until + 10:
        segs.append((rnd.uniform(2, 7), level, amp, "compute"))
        segs.append((rnd.choice([0.1, 0.2]), rnd.uniform(25, 55), 5, "compute"))
    return clip(segs, until)


def bursts(segs: List[Seg], rnd: random.Random, until: float, busy: Tuple[float, float],
           wait: Tuple[float, float], level: float, wait_cause: str, busy_cause: str = "compute") -> List[Seg]:
    """Short bursts of work between waits (a starved loop, or autotuning between compilations)."""
    while total(segs) < until + 10:
        segs.append((rnd.uniform(*busy), level, 6, busy_cause))
        segs.append((rnd.uniform(*wait), 0, 0, wait_cause))
    return clip(segs, until)


# ---- compile-warmup: torch.compile(mode="max-autotune") on one H100, 420 s ----
def compile_warmup() -> Tuple[List[Seg], Mem]:
    """Launched at 4 s; weights on the GPU by 8 s; then ~207 s of Inductor compiling on the CPU with
    short autotune bursts (0.3-1.2 s benchmarking kernel candidates) every 4-18 s, memory growing by
    the candidates' workspaces (~1 GiB per 30 s, ~1.3% of the GPU); 4 s of CUDA-graph capture; steady
    bf16 training from ~215 s, memory jumping to ~46 GiB with the activations and optimizer state."""
    rnd = random.Random("compile-warmup")
    segs: List[Seg] = [(4.0, 0, 0, "idle"), (4.0, 0, 0, "startup")]
    mem: Mem = [(0, 0), (4.0, 520), (5.5, 1100), (7.5, 3600)]
    m = 3600.0
    while total(segs) < 211:
        segs.append((rnd.uniform(4, 18), 0, 0, "startup"))
        segs.append((rnd.uniform(0.3, 1.2), rnd.uniform(40, 85), 10, "startup"))
        m += rnd.uniform(150, 700)
        if total(segs) < 209:
            mem.append((total(segs), m))
    segs = clip(segs, 211)
    segs += [(1.0, 50, 20, "startup"), (1.5, 0, 0, "startup"), (1.5, 60, 25, "startup")]   # graph capture
    mem += [(212.0, m + 900), (215.5, 46200), (221.0, 46900)]
    return train(segs, rnd, 420, 96), mem


# ---- weights-nfs: a ~70B model's shards read from NFS onto 4 H100s, 360 s ----
def weights_nfs(gpu: int) -> Tuple[List[Seg], Mem]:
    """torchrun starts the 4 ranks at ~3 s; each reads its tensor-parallel shard files from NFS
    (~1.1 GB/s for the node): the GPU idle, its memory jumping 1.5-4.5 GiB every 5-13 s as each file
    lands, to ~35 GiB at ~130-138 s; a barrier, 3 s of NCCL warm-up bursts, then training at ~93%."""
    rnd = random.Random("weights-nfs-%d" % gpu)
    start = 2.5 + 0.4 * gpu
    segs: List[Seg] = [(start, 0, 0, "idle")]
    mem: Mem = [(0, 0), (start, 520), (start + 2, 900)]
    m, t = 900.0, start + 2
    end = 130 + rnd.uniform(0, 8)
    while t < end - 4:
        t += rnd.uniform(5, 13)
        m += rnd.uniform(1536, 4608)
        mem.append((min(t, end - 4), m))
    segs.append((end - start, 0, 0, "startup"))
    segs += [(0.3, 40, 10, "startup"), (0.8, 0, 0, "startup"), (0.4, 50, 10, "startup"), (1.5, 0, 0, "startup")]
    mem += [(end + 1, m + 1200), (end + 5, m + 9500)]
    return train(segs, rnd, 360, 93, 4), mem


DDP_START = [2.4, 3.1, 4.6, 2.2, 3.8, 4.9, 2.7, 3.5]   # the processes' start= in ddp-8gpu.scn
HANG_START = [3.2, 4.1, 5.6, 4.7]                     # and in nccl-hang.scn


# ---- ddp-8gpu: DDP on 8 H100s, NCCL set-up then cuDNN autotune, 300 s ----
def ddp_8gpu(gpu: int) -> Tuple[List[Seg], Mem]:
    """Each rank starts at 2-5 s, puts its weights on the GPU by ~9 s, then waits in the rendezvous and
    NCCL's communicator set-up (18-26 s, idle but for a blip of the first collectives), broadcasts the
    weights (two short bursts), then its first steps run cuDNN's benchmark autotuning (ragged bursts for
    ~10 s, memory growing to ~58 GiB), then steady training at ~96% from ~40-48 s."""
    rnd = random.Random("ddp-8gpu-%d" % gpu)
    start = DDP_START[gpu]
    segs: List[Seg] = [(start, 0, 0, "idle"), (7 - start + 2, 0, 0, "startup")]
    mem: Mem = [(0, 0), (start, 520), (start + 1.5, 1100), (8.5, 4700)]
    segs.append((rnd.uniform(18, 26), 0, 0, "startup"))
    segs += [(0.2, 30, 5, "startup"), (1.5, 0, 0, "startup"), (0.6, 70, 10, "startup"), (0.9, 0, 0, "startup"),
             (0.5, 70, 10, "startup")]
    t0 = total(segs)
    mem.append((t0, 5300))
    segs = bursts(segs, rnd, t0 + 10, (0.3, 1.0), (0.4, 1.6), 55, "startup", "startup")
    for i in range(6):
        mem.append((t0 + 1.6 * (i + 1), 5300 + (i + 1) * 8900 + rnd.uniform(-300, 300)))
    return train(segs, rnd, 300, 96), mem


# ---- starved-cpu-small: ResNet-18 (~3 GiB of an A100-80GB), a CPU-bound loader from the first step, 300 s ----
def starved_cpu() -> Tuple[List[Seg], Mem]:
    """Launched at 2 s; 2.9 GiB allocated by 5 s; the 6 workers' first batches arrive at ~9 s (12
    prefetched batches: ~3 s of steps back to back), then every step waits for JPEG decoding on an
    8-vCPU VM: 0.35-0.6 s of work, 1.8-3.0 s waiting. Memory then flat, creeping ~300 MiB in all."""
    rnd = random.Random("starved-cpu-small")
    segs: List[Seg] = [(2.0, 0, 0, "idle"), (7.0, 0, 0, "startup"), (3.0, 90, 5, "compute")]
    segs = bursts(segs, rnd, 300, (0.35, 0.6), (1.8, 3.0), 90, "input_wait")
    mem: Mem = [(0, 0), (2.0, 520), (3.5, 1800), (5.0, 2950), (9.5, 3060)]
    m, t = 3060.0, 9.5
    while t < 290:
        t += rnd.uniform(15, 45)
        m += rnd.choice([2, 2, 4, 20, 40, 64])
        mem.append((t, m))
    return segs, mem


# ---- starved-io: a ViT-L reading WebDataset shards over the network, from the first step, 360 s ----
def starved_io() -> Tuple[List[Seg], Mem]:
    """Launched at 3 s; ~34 GiB allocated by 9 s; the first shard arrives at ~14 s; then a few steps
    per shard (1.0-2.2 s of work at ~95%) and 2.5-7 s waiting for the next one from the network mount.
    Memory flat but for ~200 MiB of creep."""
    rnd = random.Random("starved-io")
    segs: List[Seg] = [(3.0, 0, 0, "idle"), (11.0, 0, 0, "startup")]
    segs = bursts(segs, rnd, 360, (1.0, 2.2), (2.5, 7.0), 95, "input_wait")
    mem: Mem = [(0, 0), (3.0, 520), (5.0, 3100), (9.0, 34800), (15.0, 34900)]
    m, t = 34900.0, 15.0
    while t < 350:
        t += rnd.uniform(20, 60)
        m += rnd.choice([2, 8, 20, 32, 64])
        mem.append((t, m))
    return segs, mem


# ---- small-startup: BERT-base fine-tuning (~4 GiB of an A100-80GB), 110 s of tokenizing first, 300 s ----
def small_startup() -> Tuple[List[Seg], Mem]:
    """Launched at 4 s; the model on the GPU by 6 s (1.4 GiB); then the main process tokenizes the
    dataset on one core (datasets.map without num_proc) for ~112 s, the GPU idle, its memory flat; the
    first steps at 118 s (memory to ~4.3 GiB), then training at ~88% (a small model: short gaps)."""
    rnd = random.Random("small-startup")
    segs: List[Seg] = [(4.0, 0, 0, "idle"), (114.0, 0, 0, "startup")]
    mem: Mem = [(0, 0), (4.0, 520), (6.0, 1430), (118.0, 1430), (119.0, 3300), (121.0, 4350)]
    return train(segs, rnd, 300, 88, 5), mem


# ---- nccl-hang: a 2-node job whose other node never joins; this node's 4 ranks wait, 360 s ----
def nccl_hang(gpu: int) -> Tuple[List[Seg], Mem]:
    """Each rank starts at 3-6 s, puts its 7 GiB of weights on the GPU by ~10 s and blocks in NCCL's
    bootstrap (the DDP constructor's first broadcast) waiting for ranks 4-7, which never come: the GPU
    idle, memory flat, until the recording ends (NCCL's timeout is 30 min). A healthy start would have
    stepped by ~15 s: from there on it is a stall."""
    rnd = random.Random("nccl-hang-%d" % gpu)
    start = HANG_START[gpu]
    segs: List[Seg] = [(start, 0, 0, "idle"), (15 - start, 0, 0, "startup"), (345.0, 0, 0, "stalled")]
    mem: Mem = [(0, 0), (start, 520), (start + 1.5, 1400), (start + 4, 7650 + rnd.uniform(0, 40))]
    return segs, mem


# ---- healthy-start: DDP on 2 H100s with a short start-up (control), 240 s ----
def healthy_start(gpu: int) -> Tuple[List[Seg], Mem]:
    """Ranks start at ~2 s, weights on the GPU by ~5 s, NCCL set-up (~4 s idle), cuDNN autotune on the
    first steps (~4 s of ragged bursts), then steady training at ~95% from ~14 s."""
    rnd = random.Random("healthy-start-%d" % gpu)
    segs: List[Seg] = [(2.0 + 0.3 * gpu, 0, 0, "idle"), (5.5 - 0.3 * gpu, 0, 0, "startup"), (0.4, 60, 10, "startup"),
                       (0.8, 0, 0, "startup")]
    segs = bursts(segs, rnd, 13.5, (0.4, 1.0), (0.3, 0.8), 60, "startup", "startup")
    mem: Mem = [(0, 0), (2.0 + 0.3 * gpu, 520), (5.0, 3900), (9.0, 4600), (11.0, 31000), (13.5, 52800)]
    return train(segs, rnd, 240, 95), mem


TRACES: Dict[str, Callable[[], Tuple[List[Seg], Mem]]] = {"compile-warmup": compile_warmup}
TRACES.update({"weights-nfs-%d" % i: (lambda i=i: weights_nfs(i)) for i in range(4)})
TRACES.update({"ddp-8gpu-%d" % i: (lambda i=i: ddp_8gpu(i)) for i in range(8)})
TRACES.update({"starved-cpu-small": starved_cpu, "starved-io": starved_io, "small-startup": small_startup})
TRACES.update({"nccl-hang-%d" % i: (lambda i=i: nccl_hang(i)) for i in range(4)})
TRACES.update({"healthy-start-%d" % i: (lambda i=i: healthy_start(i)) for i in range(2)})


def write(d: str, name: str, segs: List[Seg], mem: Mem) -> None:
    round3.write(d, name, segs, "tests/holdout4/gen_traces.py")   # the utilization, laid out as round 3's
    # a staircase: each allocation lands within 0.1 s and holds until the next
    pts: List[Tuple[float, float]] = []
    for t, mib in mem:
        if pts:
            pts.append((t, pts[-1][1]))
        pts.append((t + 0.1, mib))
    with open(os.path.join(d, name + "-mem.csv"), "w") as f:
        f.write("t,bytes\n# %s (tests/holdout4/gen_traces.py)\n" % name)
        f.write("".join("%.2f,%d\n" % (t, int(mib) * MiB) for t, mib in pts))


if __name__ == "__main__":
    round3.main(TRACES, lambda out, name, r: write(out, name, *r), lambda r: r[0], HERE)
