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
from typing import Callable, Generic, Iterable, Iterator, Optional, Sized, TypeVar, Union

from . import _state

__all__ = ["timed", "Timed", "SizedTimed"]

T = TypeVar("T")


class Timed(Generic[T]):
    """What timed() returns for an iterable without a length: iterating over it records each item as
    one step (see timed)."""

    def __init__(self, iterable: Iterable[T], sync_every: int, tn_c: int, sync: Optional[Callable[[], None]]) -> None:
        self.iterable = iterable
        self.sync_every = sync_every
        self._tn_c = tn_c
        self._sync = sync

    def __iter__(self) -> Iterator[T]:
        return _steps(iter(self.iterable), self.sync_every, self._sync, self._tn_c)

    def __repr__(self) -> str:
        return "gpumon.torch.timed(%r, sync_every=%d)" % (self.iterable, self.sync_every)


class SizedTimed(Timed[T]):
    """What timed() returns for an iterable with a length: the same, and len() passes through (so
    tqdm(timed(loader)) shows a total)."""

    def __len__(self) -> int:
        return len(self.iterable)  # type: ignore[arg-type]


def timed(iterable: Iterable[T], sync_every: int = 0, batches: int = 1) -> Union[Timed[T], SizedTimed[T]]:
    """Iterates over iterable, recording each item as one step: `w` before fetching it (the loop
    waits for input), `c` when it arrives (compute begins), `o` when the iterable is exhausted or the
    loop leaves it (break, an exception, close).

    sync_every=N > 0: when CUDA is initialized, call torch.cuda.synchronize()
    every N steps just before the wait is recorded, so the GPU work the step
    queued counts as the step's compute (only inside `gpumon run`).
    batches: how many batches each item trains (an integer from 1 to 2**32 - 1).
    Returns a SizedTimed (len() passes through) when the iterable has a length, else a Timed."""
    try:
        sync_every = operator.index(sync_every)
    except TypeError:
        raise TypeError("gpumon.torch.timed: sync_every must be an integer") from None
    if sync_every < 0:
        raise ValueError("gpumon.torch.timed: sync_every must be >= 0, got %d" % sync_every)
    tn_c = _state.compute_tn(batches)
    sync = _cuda_sync() if sync_every > 0 else None
    cls = SizedTimed if isinstance(iterable, Sized) else Timed
    return cls(iterable, sync_every, tn_c, sync)


def _cuda_sync() -> Optional[Callable[[], None]]:
    """A function that waits for the current CUDA device when torch has
    initialized CUDA (else does nothing), or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    cuda = torch.cuda

    def sync() -> None:
        if cuda.is_initialized():
            cuda.synchronize()
    return sync


def _steps(it: Iterator[T], sync_every: int, sync: Optional[Callable[[], None]], tn_c: int) -> Iterator[T]:
    state = _state
    tn_w = state.TN_W
    n = 0
    try:
        while True:
            if sync is not None and n and n % sync_every == 0 and state.ring is not None:
                sync()
            state.write(tn_w)
            try:
                item = next(it)
            except StopIteration:
                return
            state.write(tn_c)
            n += 1
            yield item
    finally:
        state.write(state.TN_O)
