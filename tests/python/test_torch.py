"""gpumon.torch.timed: over plain iterables (no torch needed) and a real DataLoader (skipped
without torch)."""
import inspect
import subprocess
import sys
import types
import unittest
from unittest import mock

from ._base import RingTest, gpumon, PYTHON_DIR
import gpumon.torch
from gpumon.torch import timed

try:
    import torch
    import torch.utils.data
except ImportError:
    torch = None


class Timed(RingTest):
    def test_list(self):
        seen = [x for x in timed([1, 2, 3])]
        self.assertEqual(seen, [1, 2, 3])
        # per item: w before the fetch, c when it arrives; the last fetch ends the loop: w, o
        self.assertEqual(self.kinds(), "w1c1w1c1w1c1w1o1")

    def test_break(self):
        for x in timed([1, 2, 3]):
            break
        self.assertEqual(self.kinds(), "w1c1o1")

    def test_exception_in_body(self):
        def loop():
            for x in timed(iter([1, 2, 3])):
                if x == 2:
                    raise RuntimeError("boom")
        with self.assertRaises(RuntimeError):
            loop()
        self.assertEqual(self.kinds(), "w1c1w1c1o1")

    def test_exception_in_the_iterable(self):
        def source():
            yield 1
            raise OSError("disk")
        with self.assertRaises(OSError):
            for _ in timed(source()):
                pass
        self.assertEqual(self.kinds(), "w1c1w1o1")

    def test_close(self):
        it = iter(timed([1, 2, 3]))
        next(it)
        it.close()
        self.assertEqual(self.kinds(), "w1c1o1")

    def test_not_started_writes_nothing(self):
        it = iter(timed([1, 2]))
        del it
        self.assertEqual(self.rings(), [])

    def test_batches(self):
        list(timed([1, 2], batches=4))
        self.assertEqual(self.kinds(), "w1c4w1c4w1o1")
        with self.assertRaises(ValueError):
            timed([1], batches=0)
        with self.assertRaises(ValueError):
            timed([1], batches=2 ** 40)
        with self.assertRaises(ValueError):
            timed([1], sync_every=-1)

    def test_len(self):
        self.assertEqual(len(timed([1, 2, 3])), 3)
        self.assertEqual(len(timed(range(7))), 7)
        gen = timed(x for x in range(3))
        with self.assertRaises(TypeError):
            len(gen)
        self.assertTrue(gen)
        # timed is a plain factory: a Timed for any iterable, a SizedTimed (with len) for a sized one
        self.assertTrue(inspect.isfunction(timed))
        self.assertIs(type(gen), gpumon.torch.Timed)
        self.assertIs(type(timed([1])), gpumon.torch.SizedTimed)
        self.assertIsInstance(timed([1]), gpumon.torch.Timed)
        self.assertEqual(list(gen), [0, 1, 2])

    def test_iterable_twice(self):
        t = timed([1, 2])
        self.assertEqual(list(t) + list(t), [1, 2, 1, 2])
        self.assertEqual(self.kinds(), "w1c1w1c1w1o1" * 2)

    def fake_torch(self, initialized=True):
        calls = []
        cuda = types.SimpleNamespace(is_initialized=lambda: initialized,
                                     synchronize=lambda: calls.append(gpumon.stats()["written"]))
        fake = types.ModuleType("torch")
        fake.cuda = cuda
        patcher = mock.patch.dict(sys.modules, {"torch": fake})
        patcher.start()
        self.addCleanup(patcher.stop)
        return calls

    def test_sync_every(self):
        calls = self.fake_torch()
        list(timed(range(5), sync_every=2))
        # after steps 2 and 4, just before the w: 4 and 8 entries are written then
        self.assertEqual(calls, [4, 8])
        self.assertEqual(self.kinds(), "w1c1" * 5 + "w1o1")

    def test_no_sync_before_cuda_is_initialized(self):
        calls = self.fake_torch(initialized=False)
        list(timed(range(5), sync_every=1))
        self.assertEqual(calls, [])

    def test_imports_without_torch(self):
        code = ("import sys; sys.path.insert(0, %r); sys.modules['torch'] = None\n"
                "from gpumon.torch import timed\n"
                "assert list(timed([1, 2], sync_every=1)) == [1, 2]\n" % PYTHON_DIR)
        subprocess.run([sys.executable, "-c", code], check=True, timeout=30)


class TimedOutside(RingTest):
    inside = False

    def test_noop_and_no_sync(self):
        calls = []
        fake = types.ModuleType("torch")
        fake.cuda = types.SimpleNamespace(is_initialized=lambda: True, synchronize=lambda: calls.append(1))
        with mock.patch.dict(sys.modules, {"torch": fake}):
            self.assertEqual(list(timed([1, 2, 3], sync_every=1)), [1, 2, 3])
        self.assertEqual(calls, [])
        self.assertEqual(self.rings(), [])


@unittest.skipIf(torch is None, "torch is not installed")
class DataLoader(RingTest):
    def loader(self, **kwargs):
        data = torch.utils.data.TensorDataset(torch.arange(10, dtype=torch.float32))
        return torch.utils.data.DataLoader(data, batch_size=3, **kwargs)

    def test_dataloader(self):
        loader = timed(self.loader(), sync_every=2)   # CUDA absent or unused: no sync, no failure
        self.assertEqual(len(loader), 4)
        total = 0.0
        for (batch,) in loader:
            total += float(batch.sum())
        self.assertEqual(total, 45.0)
        self.assertEqual(self.kinds(), "w1c1" * 4 + "w1o1")

    def test_dataloader_workers(self):
        # the workers are forked after the ring exists; they never write into it
        gpumon.mark("end")
        seen = sum(len(b) for (b,) in timed(self.loader(num_workers=2)))
        self.assertEqual(seen, 10)
        self.assertEqual(self.kinds(), "o1" + "w1c1" * 4 + "w1o1")


if __name__ == "__main__":
    unittest.main()
