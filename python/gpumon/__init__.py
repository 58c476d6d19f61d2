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
(unknown mark names, batches < 1), which raise everywhere so that a mistake
shows during development. A forked child (DataLoader workers,
multiprocessing) never writes into its parent's ring: it decides again on its
own first call and creates its own ring (os.register_at_fork). Record from
one thread per process: the ring has a single writer.
"""
import atexit
import operator
import os
import sys
import threading

from . import _ring

__version__ = "0.1.0"
__all__ = ["enabled", "step", "mark", "done", "stats", "load_ipython_extension"]

_TN_W = _ring.tn(_ring.TYPE_WAIT)
_TN_C1 = _ring.tn(_ring.TYPE_COMPUTE)
_TN_O = _ring.tn(_ring.TYPE_OTHER)

_lock = threading.Lock()
_ring_obj = None      # this process's Ring once created
_off_reason = None    # why recording is off, once warned


def _noop(tn):
    pass


def _first(tn):
    _open()(tn)


# What every entry goes through: _first until this process has decided, then
# _noop (off) or the ring's write function. A module global, so the hot path
# costs one global load and one call.
_write = _first


def _warn(reason):
    try:
        sys.stderr.write("gpumon: step timing off: %s\n" % reason)
        sys.stderr.flush()
    except Exception:
        pass


def _open():
    """Decides whether this process records steps; returns the write function."""
    global _write, _ring_obj, _off_reason
    with _lock:
        if _write is not _first:
            return _write
        directory = os.environ.get("GPUMON_STEPS", "")
        if not directory:
            _write = _noop
            return _noop
        reason = _ring.check_dir(directory)
        if reason is None:
            try:
                ring = _ring.Ring(directory)
            except Exception as e:
                reason = "cannot create a ring file in %s: %s" % (
                    directory, e.strerror if isinstance(e, OSError) and e.strerror else e)
        if reason is not None:
            _off_reason = reason
            _write = _noop
            _warn(reason)
            return _noop
        _ring_obj = ring
        _write = ring.write
        return _write


def _reset():
    """Forgets this process's decision (the next call decides again from
    GPUMON_STEPS); returns the previous state for _restore. For the notebook
    magic and the tests."""
    global _write, _ring_obj, _off_reason
    with _lock:
        old = (_write, _ring_obj, _off_reason)
        _write, _ring_obj, _off_reason = _first, None, None
    return old


def _restore(old):
    global _write, _ring_obj, _off_reason
    with _lock:
        _write, _ring_obj, _off_reason = old


def _after_fork_in_child():
    global _write, _ring_obj, _lock
    _lock = threading.Lock()
    if _ring_obj is not None:      # the parent's ring: the child makes its own
        _write, _ring_obj = _first, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _compute_tn(batches):
    """The `c` entry's word for batches; checks batches."""
    try:
        n = operator.index(batches)
    except TypeError:
        raise TypeError("gpumon: batches must be an integer, not %s" % type(batches).__name__) from None
    if n < 1:
        raise ValueError("gpumon: batches must be at least 1, got %d" % n)
    return _ring.tn(_ring.TYPE_COMPUTE, min(n, _ring.COUNT_MAX))


def enabled():
    """True when this process records steps: GPUMON_STEPS names a usable
    directory (inside `gpumon run`). Creates nothing; an unusable directory
    gives the warning now and turns recording off."""
    global _write, _off_reason
    w = _write
    if w is not _first:
        return w is not _noop
    directory = os.environ.get("GPUMON_STEPS", "")
    if not directory:
        return False
    reason = _ring.check_dir(directory)
    if reason is None:
        return True
    with _lock:
        if _write is _first:
            _off_reason = reason
            _write = _noop
            _warn(reason)
    return False


class _Step(object):
    """The context manager of step(): enter writes `c`, exit writes `w`."""
    __slots__ = ("_tn",)

    def __init__(self, tn):
        self._tn = tn

    def __enter__(self):
        _write(self._tn)
        return self

    def __exit__(self, exc_type, exc, tb):
        _write(_TN_W)
        return False


_STEP1 = _Step(_TN_C1)


def step(batches=1):
    """`with gpumon.step():` around one step's compute. Entering writes `c`
    (compute begins, count = batches), leaving writes `w` (the loop now waits
    for its next input), also when the body raises. batches: how many batches
    this step trains (an integer >= 1)."""
    if batches == 1:
        return _STEP1
    return _Step(_compute_tn(batches))


_MARKS = {"data": _TN_W, "wait": _TN_W, "end": _TN_O, "other": _TN_O, "eval": _TN_O}


def mark(name, batches=1):
    """Records that the loop starts doing name now:
    "data" (or "wait"): waiting for the next input (a step begins);
    "compute": the input is ready, compute begins (batches: how many it trains);
    "end" (or "other", "eval"): the loop leaves training; a wait in progress is
    not counted as input wait.
    An unknown name raises ValueError, inside `gpumon run` or not."""
    if name == "compute":
        _write(_TN_C1 if batches == 1 else _compute_tn(batches))
        return
    tn = _MARKS.get(name) if isinstance(name, str) else None
    if tn is None:
        raise ValueError("gpumon.mark: unknown name %r (data, wait, compute, end, other, eval)" % (name,))
    if batches != 1:
        _compute_tn(batches)
    _write(tn)


def done():
    """The loop leaves training: writes `o`, unless this process has recorded
    nothing or its last entry already is `o`. Also run at interpreter exit."""
    ring = _ring_obj
    if ring is not None and ring.last_type() != "o":
        ring.write(_TN_O)


def _at_exit():
    try:
        ring = _ring_obj
        if ring is not None and ring.pid == os.getpid():
            done()
    except Exception:
        pass


atexit.register(_at_exit)


def stats():
    """This process's counters: enabled, path (the ring file or None), pid,
    written (entries written), dropped (entries dropped because the ring was
    full), nslots, reason (why recording is off, or None)."""
    ring = _ring_obj
    written, dropped = ring.counters() if ring is not None else (0, 0)
    return {
        "enabled": enabled(),
        "path": ring.path if ring is not None else None,
        "pid": os.getpid(),
        "written": written,
        "dropped": dropped,
        "nslots": ring.nslots if ring is not None else None,
        "reason": _off_reason,
    }


def load_ipython_extension(ipython):
    """`%load_ext gpumon`: registers the `%%gpumon` cell magic."""
    from . import notebook
    notebook.load_ipython_extension(ipython)
