#!/usr/bin/env python3
"""Third hold-out (ledger round): writes the scenarios' utilization traces and prints their true time split.

gen_traces.py [DIR]          writes DIR/NAME-util.csv (default: next to this script)
gen_traces.py --truth        prints each scenario's true split (seconds and % of the recorded span)

Each trace is a list of segments (seconds, level, noise amplitude, cause). Levels are laid out at 10 ms,
one noise draw per 0.1 s, averaged into 0.1 s bins, written as `t,value` every 0.1 s (as tests/holdout2
does). The cause of each segment is the ground truth the ledger is judged against: by construction, not
from gpumon. Deterministic.
"""
import os
import random
import sys
from typing import Any, Callable, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
Seg = Tuple[float, float, float, str]   # seconds, util level, noise amplitude, cause


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


def write(d: str, name: str, segs: List[Seg], source: str = "tests/holdout3/gen_traces.py") -> None:
    """DIR/NAME-util.csv from the segments (tests/holdout4 writes its utilization here too)."""
    rnd = random.Random(name)
    fine: List[float] = []
    for dur, level, amp, _ in segs:
        draw = 0.0
        for i in range(max(1, int(round(dur * 100)))):
            if i % 10 == 0:
                draw = rnd.uniform(-amp, amp)
            fine.append(0.0 if level == 0 else min(100.0, max(0.0, level + draw)))
    lines = ["t,util", "# %s (%s)" % (name, source)]
    for b in range(len(fine) // 10):
        chunk = fine[b * 10:(b + 1) * 10]
        lines.append("%.2f,%.1f" % (b * 0.1 + 0.05, sum(chunk) / len(chunk)))
    with open(os.path.join(d, name + "-util.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")


def input_stalls() -> List[Seg]:
    """A running job (memory held from the first record) whose loader cannot keep up: 4-6 s of
    work at ~96%, then 1-3 s waiting for the next batch (GPU idle). 360 s."""
    rnd = random.Random(31)
    segs: List[Seg] = []
    while total(segs) < 370:
        segs.append((rnd.uniform(4.0, 6.0), 96, 3, "compute"))
        segs.append((rnd.uniform(1.0, 3.0), 0, 0, "input_wait"))
    return clip(segs, 360)


def checkpoint90() -> List[Seg]:
    """A running job at ~94% (short kernel gaps inside) that writes a 90 s checkpoint every 6 min:
    the last one ended just before the recording; the next runs 270-360 s. During it the GPU is
    idle but for a blip of D2H staging kernels now and then. 480 s."""
    rnd = random.Random(32)
    segs: List[Seg] = []
    while total(segs) < 270:
        segs.append((rnd.uniform(3, 8), 94, 5, "compute"))
    segs = clip(segs, 270)
    t = 0.0
    while t < 90:
        d = min(rnd.uniform(6, 12), 90 - t)
        segs.append((d, 0, 0, "pause"))
        t += d
        if t < 89.8:
            segs.append((0.1, 20, 5, "pause"))
            t += 0.1
    while total(segs) < 490:
        segs.append((rnd.uniform(3, 8), 94, 5, "compute"))
    return clip(segs, 480)


def startup3min() -> List[Seg]:
    """Nothing for 5 s; the job starts at 5 s and spends 3 minutes getting ready (dataset index,
    weights from network storage, torch.compile with autotune: a short kernel burst now and then,
    memory growing), then trains steadily at ~95% until 420 s."""
    rnd = random.Random(33)
    segs: List[Seg] = [(5.0, 0, 0, "idle")]
    while total(segs) < 185:
        segs.append((rnd.uniform(12, 25), 0, 0, "startup"))
        segs.append((rnd.uniform(0.2, 0.6), 55, 25, "compute"))
    segs = clip(segs, 185)
    while total(segs) < 430:
        segs.append((rnd.uniform(3, 8), 95, 4, "compute"))
    return clip(segs, 420)


def hang() -> List[Seg]:
    """Training at ~93% until 300 s, then a hang (a deadlocked rank, a stuck NFS read in the main
    process): the GPU idle, memory held, until the recording ends at 450 s."""
    rnd = random.Random(34)
    segs: List[Seg] = []
    while total(segs) < 300:
        segs.append((rnd.uniform(3, 8), 93, 5, "compute"))
    segs = clip(segs, 300)
    segs.append((150.0, 0, 0, "stalled"))
    return segs


def mixed() -> List[Seg]:
    """Nothing for 3 s; the job starts at 3 s, gets ready for ~42 s (idle, memory growing); trains
    with a loader that falls short (2.5-4 s work, 0.8-1.6 s waits) until 240 s; a 60 s evaluation/
    checkpoint pause (idle, memory held); trains as before until 460 s."""
    rnd = random.Random(35)
    segs: List[Seg] = [(3.0, 0, 0, "idle"), (42.0, 0, 0, "startup")]

    def train(until: float) -> None:
        nonlocal segs
        while total(segs) < until + 10:
            segs.append((rnd.uniform(2.5, 4.0), 95, 4, "compute"))
            segs.append((rnd.uniform(0.8, 1.6), 0, 0, "input_wait"))
        segs = clip(segs, until)
    train(240)
    segs.append((60.0, 0, 0, "pause"))
    train(460)
    return segs


def busy(name: str, secs: float, level: float = 96) -> List[Seg]:
    rnd = random.Random(name)
    segs: List[Seg] = []
    while total(segs) < secs + 10:
        segs.append((rnd.uniform(3, 8), level, 3, "compute"))
    return clip(segs, secs)


def idle_half() -> List[Seg]:
    """GPU 1 of a 2-GPU box: a fine-tuning job at ~96% until it ends at 200 s, its process gone and
    memory freed; nothing else uses the GPU until 400 s."""
    return busy("idle-half-1", 200) + [(200.0, 0, 0, "idle")]


TRACES = {
    "input-stalls": input_stalls,
    "checkpoint-90s": checkpoint90,
    "startup-3min": startup3min,
    "hang-last-third": hang,
    "mixed-job": mixed,
    "idle-half-0": lambda: busy("idle-half-0", 400),
    "idle-half-1": idle_half,
    "power-throttle-half": lambda: busy("power-throttle-half", 360, 97),
}


def truth(traces: Dict[str, Callable[[], Any]], segs_of: Callable[[Any], List[Seg]]) -> None:
    for name, fn in traces.items():
        segs = segs_of(fn())
        by: Dict[str, float] = {}
        for d, _, _, c in segs:
            by[c] = by.get(c, 0.0) + d
        span = total(segs)
        print("%-20s %5.0f s  " % (name, span) + "  ".join("%s %.1f s (%.1f%%)" % (c, s, 100 * s / span)
                                                       for c, s in sorted(by.items(), key=lambda x: -x[1])))


def main(traces: Dict[str, Callable[[], Any]], write_one: Callable[[str, str, Any], None],
         segs_of: Callable[[Any], List[Seg]] = lambda r: r, here: str = HERE) -> None:
    """`--truth`, or the traces into DIR (default: here, beside the script); round 4 runs its own through it."""
    if sys.argv[1:] == ["--truth"]:
        truth(traces, segs_of)
    else:
        out = sys.argv[1] if len(sys.argv) > 1 else here
        for n, fn in traces.items():
            write_one(out, n, fn())


if __name__ == "__main__":
    main(TRACES, write)
