"""The per-process state of step recording, shared by gpumon, gpumon.torch, gpumon.keras and the
notebook magic (private: none of them reaches into another's globals, they all use this module).

`write` is what every entry goes through: `_first` until this process has decided whether it records
(GPUMON_STEPS: unset or empty is off; a usable directory gets a ring file; an unusable one a warning
and off), then `_noop` or the ring's own write function. It is a module global so that the hot path
costs one attribute load and one call. `ring` is this process's Ring once created, `off_reason` why
recording is off once warned. A forked child decides again on its first call (os.register_at_fork).
"""
import operator
import os
import sys
import threading
from typing import Callable, Optional, Tuple

from . import _ring

Write = Callable[[int], None]

TN_W = _ring.tn(_ring.TYPE_WAIT)
TN_C1 = _ring.tn(_ring.TYPE_COMPUTE)
TN_O = _ring.tn(_ring.TYPE_OTHER)

lock = threading.Lock()
ring: Optional[_ring.Ring] = None
off_reason: Optional[str] = None


def _noop(tn: int) -> None:
    pass


def _first(tn: int) -> None:
    decide()(tn)


write: Write = _first


def warn(reason: str) -> None:
    try:
        sys.stderr.write("gpumon: step timing off: %s\n" % reason)
        sys.stderr.flush()
    except Exception:
        pass


def decide() -> Write:
    """Decides whether this process records steps; returns the write function."""
    global write, ring, off_reason
    with lock:
        if write is not _first:
            return write
        directory = os.environ.get("GPUMON_STEPS", "")
        if not directory:
            write = _noop
            return _noop
        reason = _ring.check_dir(directory)
        made = None
        if reason is None:
            try:
                made = _ring.Ring(directory)
            except Exception as e:
                reason = "cannot create a ring file in %s: %s" % (
                    directory, e.strerror if isinstance(e, OSError) and e.strerror else e)
        if made is None:
            off_reason = reason
            write = _noop
            warn(reason or "unknown reason")
            return _noop
        ring = made
        write = made.write
        return write


def enabled() -> bool:
    """True when this process records (or, undecided, would record) steps; see gpumon.enabled."""
    global write, off_reason
    w = write
    if w is not _first:
        return w is not _noop
    directory = os.environ.get("GPUMON_STEPS", "")
    if not directory:
        return False
    reason = _ring.check_dir(directory)
    if reason is None:
        return True
    with lock:
        if write is _first:
            off_reason = reason
            write = _noop
            warn(reason)
    return False


State = Tuple[Write, Optional[_ring.Ring], Optional[str]]


def reset() -> State:
    """Forgets this process's decision (the next call decides again from GPUMON_STEPS); returns the
    previous state for restore. For the notebook magic and the tests."""
    global write, ring, off_reason
    with lock:
        old = (write, ring, off_reason)
        write, ring, off_reason = _first, None, None
    return old


def restore(old: State) -> None:
    global write, ring, off_reason
    with lock:
        write, ring, off_reason = old


def _after_fork_in_child() -> None:
    global write, ring, lock
    lock = threading.Lock()
    if ring is not None:       # the parent's ring: the child makes its own
        write, ring = _first, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def compute_tn(batches: int) -> int:
    """The `c` entry's word for batches; checks batches (an integer from 1 to 2**32 - 1, what the
    ring's 32-bit count holds)."""
    try:
        n = operator.index(batches)
    except TypeError:
        raise TypeError("gpumon: batches must be an integer, not %s" % type(batches).__name__) from None
    if n < 1:
        raise ValueError("gpumon: batches must be at least 1, got %d" % n)
    if n > _ring.COUNT_MAX:
        raise ValueError("gpumon: batches must be at most %d (the ring's 32-bit count), got %d" % (_ring.COUNT_MAX, n))
    return _ring.tn(_ring.TYPE_COMPUTE, n)


def done() -> None:
    """Writes `o` unless this process has recorded nothing or its last entry already is `o`."""
    r = ring
    if r is not None and r.last_type() != "o":
        r.write(TN_O)
