#!/usr/bin/env python3
"""A stand-in for a training loop that reports its steps to `gpumon run`.

Each step waits for its input (--wait-ms, the data loader) and then
computes (--compute-ms, the GPU's work), marked with the bundled Python
helper (python/gpumon: gpumon.mark), so gpumon knows where each step's time
goes. Steps are paced by deadlines on the monotonic clock, not by sleeping a
fixed time, so a loaded machine delays a step without lengthening the ones
after it: the steps' median stays what was asked for. Standard library only.

    gpumon run -- python3 examples/train_loop.py --steps 300 --wait-ms 40 --compute-ms 60

The demo (scripts/demo) and the tests of `gpumon compare` run it.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gpumon  # noqa: E402  (the helper beside this file, when it is not installed)


def sleep_until(deadline: float) -> None:
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        time.sleep(left)


def main() -> int:
    p = argparse.ArgumentParser(description="a training loop stand-in that reports its steps to gpumon run")
    p.add_argument("--steps", type=int, default=300, help="steps to run (default 300)")
    p.add_argument("--wait-ms", type=float, default=40.0, help="input wait per step, ms (default 40)")
    p.add_argument("--compute-ms", type=float, default=60.0, help="compute per step, ms (default 60)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    a = p.parse_args()
    if a.steps < 1 or a.wait_ms < 0 or a.compute_ms <= 0:
        p.error("--steps must be at least 1, --wait-ms at least 0, --compute-ms above 0")
    wait, period = a.wait_ms / 1000.0, (a.wait_ms + a.compute_ms) / 1000.0
    t0 = time.monotonic()
    for k in range(a.steps):
        gpumon.mark("data")                 # waiting for the next batch
        sleep_until(t0 + k * period + wait)
        gpumon.mark("compute")              # the batch is there: the GPU works
        sleep_until(t0 + (k + 1) * period)
        if not a.quiet and (k + 1) % max(1, a.steps // 5) == 0:
            print("step %d/%d" % (k + 1, a.steps), flush=True)
    gpumon.done()
    return 0


if __name__ == "__main__":
    sys.exit(main())
