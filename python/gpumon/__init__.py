"""gpumon: tell `gpumon run` where each training step's time goes.

Inside `gpumon run -- CMD` (which sets GPUMON_STEPS), each call appends one
entry to this process's ring (a shared-memory file that gpumon reads at each
sample: docs/steps-channel.md); outside it every call is a no-op.

    import gpumon
    for batch in loader:
        with gpumon.step():        # the body is one step's compute;
            train(batch)           # the time between steps is the input wait

    gpumon.mark("data")            # any other loop: the loop starts waiting
    gpumon.mark("compute")         # the input is there: compute begins
    gpumon.mark("end")             # the loop leaves training (eval, checkpoint, end)
    gpumon.done()                  # the same as "end"; also run at exit

The state is per process. The first call decides: GPUMON_STEPS unset or empty
means no-op; a usable directory means a ring file is created there; a
directory that cannot be used gives one warning line on stderr and no-op.
Nothing here raises into the training loop except the argument checks
(unknown mark names, batches < 1 or > 2**32 - 1), which raise everywhere so that a mistake
shows during development. A forked child (DataLoader workers,
multiprocessing) never writes into its parent's ring: it decides again on its
own first call and creates its own ring (os.register_at_fork). Record from
one thread per process: the ring has a single writer. The state lives in
gpumon._state, shared with gpumon.torch, gpumon.keras and gpumon.notebook.
"""
import atexit
import os
from types import TracebackType
from typing import Any, Dict, Optional, Type

from . import _state
from ._version import __version__

__all__ = ["enabled", "step", "mark", "done", "stats", "load_ipython_extension", "__version__"]

_TN_W = _state.TN_W
_TN_C1 = _state.TN_C1
_TN_O = _state.TN_O
_compute_tn = _state.compute_tn
_reset = _state.reset        # for the notebook magic's callers and the tests
_restore = _state.restore


def enabled() -> bool:
    """True when this process records steps: GPUMON_STEPS names a usable
    directory (inside `gpumon run`). Creates nothing; an unusable directory
    gives the warning now and turns recording off."""
    return _state.enabled()


class _Step(object):
    """The context manager of step(): enter writes `c`, exit writes `w`."""
    __slots__ = ("_tn",)

    def __init__(self, tn: int) -> None:
        self._tn = tn

    def __enter__(self) -> "_Step":
        _state.write(self._tn)
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> bool:
        _state.write(_TN_W)
        return False


_STEP1 = _Step(_TN_C1)


def step(batches: int = 1) -> _Step:
    """`with gpumon.step():` around one step's compute. Entering writes `c`
    (compute begins, count = batches), leaving writes `w` (the loop now waits
    for its next input), also when the body raises. batches: how many batches
    this step trains (an integer from 1 to 2**32 - 1; ValueError otherwise)."""
    if batches == 1:
        return _STEP1
    return _Step(_compute_tn(batches))


_MARKS = {"data": _TN_W, "wait": _TN_W, "end": _TN_O, "other": _TN_O, "eval": _TN_O}


def mark(name: str, batches: int = 1) -> None:
    """Records that the loop starts doing name now:
    "data" (or "wait"): waiting for the next input (a step begins);
    "compute": the input is ready, compute begins (batches: how many it trains);
    "end" (or "other", "eval"): the loop leaves training; a wait in progress is
    not counted as input wait.
    An unknown name raises ValueError, inside `gpumon run` or not."""
    if name == "compute":
        _state.write(_TN_C1 if batches == 1 else _compute_tn(batches))
        return
    tn = _MARKS.get(name) if isinstance(name, str) else None
    if tn is None:
        raise ValueError("gpumon.mark: unknown name %r (data, wait, compute, end, other, eval)" % (name,))
    if batches != 1:
        _compute_tn(batches)
    _state.write(tn)


def done() -> None:
    """The loop leaves training: writes `o`, unless this process has recorded
    nothing or its last entry already is `o`. Also run at interpreter exit."""
    _state.done()


def _at_exit() -> None:
    try:
        ring = _state.ring
        if ring is not None and ring.pid == os.getpid():
            _state.done()
    except Exception:
        pass


atexit.register(_at_exit)


def stats() -> Dict[str, Any]:
    """This process's counters: enabled, path (the ring file or None), pid,
    written (entries written), dropped (entries dropped because the ring was
    full), nslots, reason (why recording is off, or None)."""
    ring = _state.ring
    written, dropped = ring.counters() if ring is not None else (0, 0)
    return {
        "enabled": enabled(),
        "path": ring.path if ring is not None else None,
        "pid": os.getpid(),
        "written": written,
        "dropped": dropped,
        "nslots": ring.nslots if ring is not None else None,
        "reason": _state.off_reason,
    }


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext gpumon`: registers the `%%gpumon` cell magic."""
    from . import notebook
    notebook.load_ipython_extension(ipython)
