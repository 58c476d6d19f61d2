"""gpumon.torch: time a PyTorch input loop (or any iterable).

    from gpumon.torch import timed
    for batch in timed(loader, sync_every=50):
        train(batch)

Before fetching each item the wrapper writes `w` (the loop waits for input),
when the item arrives `c` (compute begins), and when the iterable is exhausted
or the loop leaves it (break, an exception, close) `o`. The module imports
without torch; torch is imported only when sync_every > 0.
"""
import operator

import gpumon as _core
from . import _ring

__all__ = ["timed"]

_TN_W = _ring.tn(_ring.TYPE_WAIT)
_TN_O = _ring.tn(_ring.TYPE_OTHER)


class timed(object):
    """timed(iterable, sync_every=0, batches=1): iterate over iterable,
    recording each item as one step.

    sync_every=N > 0: when CUDA is initialized, call torch.cuda.synchronize()
    every N steps just before the wait is recorded, so the GPU work the step
    queued counts as the step's compute (only inside `gpumon run`).
    batches: how many batches each item trains (an integer >= 1).
    len() passes through when the iterable has a length."""

    def __new__(cls, iterable, sync_every=0, batches=1):
        if cls is timed and hasattr(type(iterable), "__len__"):
            cls = _SizedTimed
        return object.__new__(cls)

    def __init__(self, iterable, sync_every=0, batches=1):
        try:
            sync_every = operator.index(sync_every)
        except TypeError:
            raise TypeError("gpumon.torch.timed: sync_every must be an integer") from None
        if sync_every < 0:
            raise ValueError("gpumon.torch.timed: sync_every must be >= 0, got %d" % sync_every)
        self.iterable = iterable
        self.sync_every = sync_every
        self._tn_c = _core._compute_tn(batches)
        self._sync = _cuda_sync() if sync_every > 0 else None

    def __iter__(self):
        return _steps(iter(self.iterable), self.sync_every, self._sync, self._tn_c)

    def __repr__(self):
        return "gpumon.torch.timed(%r, sync_every=%d)" % (self.iterable, self.sync_every)


class _SizedTimed(timed):
    def __len__(self):
        return len(self.iterable)


def _cuda_sync():
    """A function that waits for the current CUDA device when torch has
    initialized CUDA (else does nothing), or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    cuda = torch.cuda

    def sync():
        if cuda.is_initialized():
            cuda.synchronize()
    return sync


def _steps(it, sync_every, sync, tn_c):
    core = _core
    n = 0
    try:
        while True:
            if sync is not None and n and n % sync_every == 0 and core._ring_obj is not None:
                sync()
            core._write(_TN_W)
            try:
                item = next(it)
            except StopIteration:
                return
            core._write(tn_c)
            n += 1
            yield item
    finally:
        core._write(_TN_O)
