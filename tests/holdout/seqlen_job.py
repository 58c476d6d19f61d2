#!/usr/bin/env python3
"""seqlen-switch's training loop, under `gpumon run` on the fast-played simulator.

Steps take ~1.0 s of scenario time until 150 s (sequence length 2048), then ~2.05 s (4096), until
300 s; the input is prefetched, so each step finds its batch ready (the wait is marked, and ends at
once: a sleep there would read S times its wall overshoot under fast-play). The loop runs in wall time;
gpumon multiplies its times by GPUMON_SIM_SPEED (docs/steps-channel.md), so it sleeps the scenario's
durations divided by that speed and reads the scenario's time the same way.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpumon  # noqa: E402

SPEED = float(os.environ.get("GPUMON_SIM_SPEED") or "1") or 1.0
SWITCH_S, END_S = 150.0, 300.0


def main() -> None:
    t0 = time.monotonic()

    def now() -> float:
        return (time.monotonic() - t0) * SPEED

    while now() < END_S:
        step_s = 1.0 if now() < SWITCH_S else 2.05
        gpumon.mark("data")
        gpumon.mark("compute")
        time.sleep(step_s / SPEED)
    gpumon.done()


if __name__ == "__main__":
    main()
