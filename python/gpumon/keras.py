"""gpumon.keras: a Keras callback recording each training step.

    from gpumon.keras import StepTimer
    model.fit(dataset, epochs=10, callbacks=[StepTimer()])

TensorFlow is imported on the first access to StepTimer (PEP 562), not when
this module is imported. Without TensorFlow, the standalone `keras` package
(Keras 3) is used when it is installed.

Keras calls a callback in this order (tf.keras.callbacks.Callback docs):
on_train_begin; per epoch on_epoch_begin, per batch (per execution with
steps_per_execution > 1) on_train_batch_begin / on_train_batch_end, then with
validation on_test_begin, on_test_batch_begin / on_test_batch_end ...,
on_test_end; on_epoch_end; finally on_train_end. StepTimer maps it to:

    on_epoch_begin        w   (the first step's input wait begins)
    on_train_batch_begin  c   count = batches this call trains
    on_train_batch_end    w
    on_test_begin         o   (validation is not training)
    on_epoch_end          o
    on_train_end          o

Test and predict batches are not recorded.

With steps_per_execution = N > 1, Keras calls the batch hooks once per
execution of N steps, and the index passed to on_train_batch_begin advances by
N. The count of a call is the difference between this call's index and the
previous call's in the same epoch; the first call of an epoch uses the model's
steps per execution when it is readable (`_steps_per_execution`, tf.keras;
`steps_per_execution`, Keras 3), else the count learned in an earlier epoch,
else 1. When Keras says how many steps an epoch has (params["steps"]), the
count is capped at the steps left, so the last, shorter execution of an epoch
counts right.
"""
from typing import Any, Optional

from . import _ring, _state

__all__ = ["StepTimer"]

_TN_W = _state.TN_W
_TN_O = _state.TN_O


def _import_callback_base() -> type:
    try:
        import tensorflow as tf
    except ImportError as e:
        tf_error = e
    else:
        return tf.keras.callbacks.Callback
    try:
        import keras
        return keras.callbacks.Callback
    except ImportError:
        pass
    raise ImportError("gpumon.keras.StepTimer needs TensorFlow (pip install tensorflow) or Keras 3 "
                      "(pip install keras): %s" % tf_error) from tf_error


def _int_or_none(value: Any) -> Optional[int]:
    """An int from an int, a numpy scalar or a tf.Variable/Tensor; None if unreadable."""
    if value is None:
        return None
    try:
        if hasattr(value, "numpy"):
            value = value.numpy()
        n = int(value)
    except Exception:
        return None
    return n if n >= 1 else None


def _model_steps_per_execution(model: Any) -> Optional[int]:
    for attr in ("_steps_per_execution", "steps_per_execution"):
        try:
            value = getattr(model, attr, None)
        except Exception:
            value = None
        n = _int_or_none(value)
        if n is not None:
            return n
    return None


def _make_step_timer(base: type) -> type:
    class StepTimer(base):  # type: ignore[valid-type,misc]
        """Records each Keras training step for `gpumon run` (a no-op outside
        it). Reads neither logs nor metrics, so it never makes Keras copy
        tensors to the host."""

        def __init__(self) -> None:
            super(StepTimer, self).__init__()
            # logs are not read: let Keras pass its tensors without converting
            # them to numpy (which would wait for the device every batch)
            self._supports_tf_logs = True
            self._prev_index = None    # index of the last on_train_batch_begin this epoch
            self._learned = None       # steps per execution seen from the indices

        def _count(self, index: Any) -> int:
            """How many batches the execution starting at index trains."""
            prev = self._prev_index
            self._prev_index = index
            n = None
            if prev is not None:
                try:
                    n = int(index) - int(prev)
                except (TypeError, ValueError):
                    n = None
                if n is not None and n >= 1:
                    self._learned = n
                else:
                    n = None
            if n is None:
                n = _model_steps_per_execution(getattr(self, "model", None)) or self._learned or 1
            params = getattr(self, "params", None)
            steps = params.get("steps") if isinstance(params, dict) else None
            if isinstance(steps, int) and not isinstance(steps, bool):
                try:
                    left = steps - int(index)
                except (TypeError, ValueError):
                    left = 0
                if 1 <= left < n:
                    n = left
            return n

        def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
            self._prev_index = None
            _state.write(_TN_W)

        def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
            n = self._count(batch)
            _state.write(_state.compute_tn(min(n, _ring.COUNT_MAX)))

        def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
            _state.write(_TN_W)

        def on_test_begin(self, logs: Optional[dict] = None) -> None:
            _state.write(_TN_O)

        def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
            _state.write(_TN_O)

        def on_train_end(self, logs: Optional[dict] = None) -> None:
            _state.write(_TN_O)

    StepTimer.__module__ = __name__
    return StepTimer


def __getattr__(name: str) -> Any:
    if name == "StepTimer":
        cls = _make_step_timer(_import_callback_base())
        globals()["StepTimer"] = cls
        return cls
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def __dir__() -> list:
    return sorted(list(globals()) + ["StepTimer"])
