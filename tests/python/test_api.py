"""The public API's shape: every public function and method annotated (parameters and return), the
package marked as typed (PEP 561), one version for the package and the binary, and the shared
state in one private module that the other modules use instead of each other's globals."""
import inspect
import os
import re
import typing
import unittest

from ._base import PYTHON_DIR
import gpumon
import gpumon.keras
import gpumon.notebook
import gpumon.torch

REPO = os.path.dirname(PYTHON_DIR)


def public_callables():
    for mod in (gpumon, gpumon.torch, gpumon.notebook):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj):
                yield "%s.%s" % (mod.__name__, name), obj
            elif inspect.isclass(obj):
                for mname, m in vars(obj).items():
                    if inspect.isfunction(m) and (not mname.startswith("_") or mname in ("__iter__", "__len__")):
                        yield "%s.%s.%s" % (mod.__name__, name, mname), m
    yield "gpumon.step().__enter__", type(gpumon.step(batches=2)).__enter__
    yield "gpumon.step().__exit__", type(gpumon.step(batches=2)).__exit__


class Api(unittest.TestCase):
    def test_annotated(self):
        seen = 0
        for name, f in public_callables():
            hints = typing.get_type_hints(f)
            params = [p for p in inspect.signature(f).parameters if p != "self"]
            missing = [p for p in params + ["return"] if p not in hints]
            self.assertEqual(missing, [], "%s: not annotated: %s" % (name, ", ".join(missing)))
            seen += 1
        self.assertGreaterEqual(seen, 12)

    def test_typed_marker(self):
        self.assertTrue(os.path.isfile(os.path.join(PYTHON_DIR, "gpumon", "py.typed")))

    def test_one_version(self):
        with open(os.path.join(REPO, "CMakeLists.txt")) as f:
            cmake = f.read()
        # the binary's version is read from the package's _version.py, not written a second time
        self.assertIn("python/gpumon/_version.py", cmake)
        self.assertIsNone(re.search(r"project\(gpumon VERSION [0-9]", cmake))
        self.assertRegex(gpumon.__version__, r"^[0-9]+\.[0-9]+\.[0-9]+$")
        with open(os.path.join(PYTHON_DIR, "setup.cfg")) as f:
            self.assertIn("version = attr: gpumon._version.__version__", f.read())

    def test_state_in_one_module(self):
        # no module reaches into gpumon's own globals for the writer or the ring
        for mod in ("torch.py", "keras.py", "notebook.py", "__init__.py"):
            with open(os.path.join(PYTHON_DIR, "gpumon", mod)) as f:
                text = f.read()
            self.assertIsNone(re.search(r"_core\.|import gpumon as|\b_write\b|_ring_obj", text), mod)


if __name__ == "__main__":
    unittest.main()
