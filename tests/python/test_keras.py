"""gpumon.keras.StepTimer against a stand-in for TensorFlow: a fake `tensorflow` module whose
keras.callbacks.Callback behaves like the real base class, driven by a fit() loop that calls the
hooks in Keras' documented order."""
import subprocess
import sys
import types
import unittest
from unittest import mock

from ._base import RingTest, PYTHON_DIR
import gpumon.keras


class Callback(object):
    """Like tf.keras.callbacks.Callback: model and params are set by the CallbackList before
    on_train_begin; every hook is a no-op here."""

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = None
        self._supports_tf_logs = False

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def _noop(self, *args, **kwargs):
        pass

    on_train_begin = on_train_end = on_epoch_begin = on_epoch_end = _noop
    on_train_batch_begin = on_train_batch_end = _noop
    on_test_begin = on_test_end = on_test_batch_begin = on_test_batch_end = _noop
    on_predict_begin = on_predict_end = on_predict_batch_begin = on_predict_batch_end = _noop


class Variable(object):
    """Stands for the tf.Variable holding Model._steps_per_execution."""

    def __init__(self, value):
        self.value = value

    def numpy(self):
        return self.value


def fake_tensorflow():
    tf = types.ModuleType("tensorflow")
    tf.keras = types.ModuleType("tensorflow.keras")
    tf.keras.callbacks = types.ModuleType("tensorflow.keras.callbacks")
    tf.keras.callbacks.Callback = Callback
    return tf


def fit(callbacks, model, epochs, steps, steps_per_execution=1, validation_steps=0, tell_steps=True):
    """Calls the hooks in the order the Keras Callback documentation gives for Model.fit
    (https://keras.io/api/callbacks/base_callback/, https://keras.io/guides/writing_your_own_callbacks/):

        on_train_begin
        for each epoch:
            on_epoch_begin(epoch)
            for each batch (each execution of steps_per_execution batches):
                on_train_batch_begin(batch)
                on_train_batch_end(batch)
            if validation:                       # Model.evaluate inside fit, same callbacks
                on_test_begin
                for each validation batch: on_test_batch_begin(batch), on_test_batch_end(batch)
                on_test_end
            on_epoch_end(epoch, logs)
        on_train_end

    with the batch indices tf.keras passes: with steps_per_execution N the index of
    on_train_batch_begin advances by N, on_train_batch_end gets the execution's last index, and
    the last execution of an epoch runs only the steps left. Logs are always None here."""
    params = {"epochs": epochs, "verbose": 0}
    if tell_steps:
        params["steps"] = steps
    for cb in callbacks:
        cb.set_params(params)
        cb.set_model(model)
    for cb in callbacks:
        cb.on_train_begin()
    for epoch in range(epochs):
        for cb in callbacks:
            cb.on_epoch_begin(epoch)
        step = 0
        while step < steps:
            n = min(steps_per_execution, steps - step)
            for cb in callbacks:
                cb.on_train_batch_begin(step)
            for cb in callbacks:
                cb.on_train_batch_end(step + n - 1)
            step += n
        if validation_steps:
            for cb in callbacks:
                cb.on_test_begin()
            for b in range(validation_steps):
                for cb in callbacks:
                    cb.on_test_batch_begin(b)
                for cb in callbacks:
                    cb.on_test_batch_end(b)
            for cb in callbacks:
                cb.on_test_end()
        for cb in callbacks:
            cb.on_epoch_end(epoch, None)
    for cb in callbacks:
        cb.on_train_end()


class StepTimerTest(RingTest):
    def setUp(self):
        super(StepTimerTest, self).setUp()
        patcher = mock.patch.dict(sys.modules, {"tensorflow": fake_tensorflow()})
        patcher.start()
        self.addCleanup(patcher.stop)
        gpumon.keras.__dict__.pop("StepTimer", None)      # built again on the stand-in
        self.addCleanup(gpumon.keras.__dict__.pop, "StepTimer", None)

    def test_is_a_keras_callback(self):
        timer = gpumon.keras.StepTimer()
        self.assertIsInstance(timer, Callback)
        self.assertIs(gpumon.keras.StepTimer, type(timer))
        self.assertTrue(timer._supports_tf_logs)
        self.assertIn("StepTimer", dir(gpumon.keras))

    def test_plain_fit(self):
        fit([gpumon.keras.StepTimer(), Callback()], types.SimpleNamespace(), epochs=2, steps=3)
        epoch = "w1" + "c1w1" * 3 + "o1"
        self.assertEqual(self.kinds(), epoch * 2 + "o1")

    def test_steps_per_execution_and_validation(self):
        model = types.SimpleNamespace(_steps_per_execution=Variable(4))
        fit([gpumon.keras.StepTimer()], model, epochs=2, steps=10, steps_per_execution=4, validation_steps=3)
        # executions of 4, 4 and the 2 steps left; validation and the epoch end are `o`
        epoch = "w1" + "c4w1c4w1c2w1" + "o1" + "o1"
        self.assertEqual(self.kinds(), epoch * 2 + "o1")

    def test_steps_per_execution_from_the_indices(self):
        # the model says nothing: the first execution of the first epoch counts 1, then the
        # index differences give 4; later epochs start from what was learned
        fit([gpumon.keras.StepTimer()], object(), epochs=2, steps=10, steps_per_execution=4)
        self.assertEqual(self.kinds(), "w1c1w1c4w1c2w1o1" + "w1c4w1c4w1c2w1o1" + "o1")

    def test_steps_unknown(self):
        # without params["steps"] (a dataset of unknown size) the last, shorter execution
        # cannot be told from a full one
        model = types.SimpleNamespace(_steps_per_execution=Variable(4))
        fit([gpumon.keras.StepTimer()], model, epochs=1, steps=10, steps_per_execution=4, tell_steps=False)
        self.assertEqual(self.kinds(), "w1c4w1c4w1c4w1o1o1")

    def test_keras3_attribute(self):
        model = types.SimpleNamespace(steps_per_execution=8)
        fit([gpumon.keras.StepTimer()], model, epochs=1, steps=16, steps_per_execution=8)
        self.assertEqual(self.kinds(), "w1c8w1c8w1o1o1")


class StepTimerOutside(StepTimerTest):
    inside = False

    def test_plain_fit(self):
        fit([gpumon.keras.StepTimer()], object(), epochs=2, steps=3, validation_steps=1)
        self.assertEqual(self.rings(), [])

    test_steps_per_execution_and_validation = test_steps_per_execution_from_the_indices = None
    test_steps_unknown = test_keras3_attribute = None


class WithoutTensorFlow(unittest.TestCase):
    def test_clear_import_error(self):
        code = ("import sys; sys.path.insert(0, %r)\n"
                "sys.modules['tensorflow'] = None; sys.modules['keras'] = None\n"
                "import gpumon.keras\n"
                "try:\n"
                "    gpumon.keras.StepTimer\n"
                "except ImportError as e:\n"
                "    print(e)\n"
                "else:\n"
                "    print('no error')\n" % PYTHON_DIR)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("gpumon.keras.StepTimer needs TensorFlow", out.stdout)

    def test_other_attributes(self):
        with self.assertRaises(AttributeError):
            gpumon.keras.NoSuchThing


if __name__ == "__main__":
    unittest.main()
