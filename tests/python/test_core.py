"""gpumon's core API and ring writer, checked against the format of docs/steps-channel.md with
an independent reader (_ringreader)."""
import os
import stat
import subprocess
import sys
import textwrap
import time
import unittest
from unittest import mock

from ._base import RingTest, rr, gpumon, _ring, PYTHON_DIR


class Outside(RingTest):
    inside = False

    def test_every_call_is_a_noop(self):
        self.assertFalse(gpumon.enabled())
        with gpumon.step():
            pass
        with gpumon.step(batches=3):
            pass
        for name in ("data", "wait", "compute", "end", "other", "eval"):
            gpumon.mark(name)
        gpumon.done()
        s = gpumon.stats()
        self.assertEqual((s["enabled"], s["path"], s["written"], s["dropped"], s["reason"]),
                         (False, None, 0, 0, None))
        self.assertEqual(self.err.getvalue(), "")
        self.assertEqual(os.listdir(self.dir), [])

    def test_empty_variable_is_outside(self):
        os.environ["GPUMON_STEPS"] = ""
        self.assertFalse(gpumon.enabled())
        with gpumon.step():
            pass
        self.assertEqual(self.err.getvalue(), "")

    def test_argument_errors_show_outside_too(self):
        with self.assertRaises(ValueError):
            gpumon.mark("dta")
        with self.assertRaises(ValueError):
            gpumon.mark(None)
        with self.assertRaises(ValueError):
            gpumon.step(batches=0)
        with self.assertRaises(ValueError):
            gpumon.mark("compute", batches=-1)
        with self.assertRaises(ValueError):
            gpumon.mark("data", batches=0)
        with self.assertRaises(TypeError):
            gpumon.step(batches=2.5)

    def test_cost_is_small(self):
        # a loose bound (the benchmark bench/steps_cost.py measures it): well under 1 us
        step = gpumon.step
        n = 20000
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(n):
                with step():
                    pass
            dt = (time.perf_counter() - t0) / n
            best = dt if best is None else min(best, dt)
        self.assertLess(best, 5e-6)


class Inside(RingTest):
    def test_enabled_creates_nothing(self):
        self.assertTrue(gpumon.enabled())
        self.assertEqual(os.listdir(self.dir), [])
        self.assertTrue(gpumon.stats()["enabled"])

    def test_ring_file(self):
        with gpumon.step():
            pass
        self.assertEqual(os.listdir(self.dir), [os.path.basename(self.only_ring())])
        path = self.only_ring()
        name = os.path.basename(path)
        self.assertRegex(name, r"^%d-[0-9a-f]{8}\.ring$" % os.getpid())
        st = os.stat(path)
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
        self.assertEqual(st.st_size, 64 + 16384 * 24)
        h, entries = rr.read(path)
        self.assertEqual((h["nslots"], h["pid"], h["rank"], h["local_rank"], h["world_size"], h["dropped"],
                          h["consumed"]), (16384, os.getpid(), -1, -1, -1, 0, 0))
        self.assertEqual([(seq, k, c) for seq, k, c, _ in entries], [(1, "c", 1), (2, "w", 1)])
        s = gpumon.stats()
        self.assertEqual((s["enabled"], s["path"], s["written"], s["dropped"]), (True, path, 2, 0))

    def test_times_are_clock_monotonic(self):
        before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        gpumon.mark("data")
        after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        t = rr.read(self.only_ring())[1][0][3]
        self.assertTrue(before <= t <= after, (before, t, after))

    def test_step(self):
        for _ in range(3):
            with gpumon.step():
                pass
        with gpumon.step(batches=4):
            pass
        self.assertEqual(self.kinds(), "c1w1c1w1c1w1c4w1")

    def test_step_body_raises(self):
        with self.assertRaises(KeyError):
            with gpumon.step():
                raise KeyError("x")
        self.assertEqual(self.kinds(), "c1w1")

    def test_count_beyond_32_bits_is_refused(self):
        # the ring's count is 32 bits: 2**32 - 1 is the largest, anything above is an error, never clamped
        with gpumon.step(batches=2 ** 32 - 1):
            pass
        self.assertEqual(self.kinds(), "c%dw1" % (2 ** 32 - 1))
        for bad in (2 ** 32, 2 ** 40):
            with self.assertRaisesRegex(ValueError, "at most 4294967295.*got %d" % bad):
                gpumon.step(batches=bad)
            with self.assertRaisesRegex(ValueError, "at most 4294967295"):
                gpumon.mark("compute", batches=bad)
            with self.assertRaisesRegex(ValueError, "at most 4294967295"):
                gpumon.mark("data", batches=bad)
        self.assertEqual(self.kinds(), "c%dw1" % (2 ** 32 - 1))

    def test_mark(self):
        for name in ("data", "compute", "wait", "end", "other", "eval"):
            gpumon.mark(name)
        gpumon.mark("compute", batches=3)
        self.assertEqual(self.kinds(), "w1c1w1o1o1o1c3")
        with self.assertRaises(ValueError):
            gpumon.mark("Data")
        self.assertEqual(self.kinds(), "w1c1w1o1o1o1c3")

    def test_done(self):
        gpumon.done()                      # nothing recorded: no ring for an `o` alone
        self.assertEqual(os.listdir(self.dir), [])
        with gpumon.step():
            pass
        gpumon.done()
        gpumon.done()                      # the last entry already is `o`
        self.assertEqual(self.kinds(), "c1w1o1")

    def test_done_at_exit(self):
        code = textwrap.dedent("""
            import sys; sys.path.insert(0, %r)
            import gpumon
            for _ in range(2):
                with gpumon.step():
                    pass
        """ % PYTHON_DIR)
        subprocess.run([sys.executable, "-c", code], check=True, timeout=30)
        self.assertEqual(self.kinds(), "c1w1c1w1o1")

    def test_ring_full_drops_then_resumes(self):
        self.small_rings(64)
        for _ in range(50):
            with gpumon.step():           # 100 entries into 64 slots
                pass
        path = self.only_ring()
        h, entries = rr.read(path)
        self.assertEqual(len(entries), 64)
        self.assertEqual(h["dropped"], 36)
        self.assertEqual(gpumon.stats()["dropped"], 36)
        self.assertEqual(gpumon.stats()["written"], 64)
        rr.set_consumed(path, 40)          # gpumon took 40: room for 40 more, then full again
        for _ in range(45):
            gpumon.mark("data")
        h, entries = rr.read(path)
        self.assertEqual([e[0] for e in entries], list(range(41, 105)))
        self.assertEqual(h["dropped"], 36 + 5)
        self.assertEqual(gpumon.stats()["dropped"], 41)
        self.assertEqual(self.kinds(path), "c1w1" * 12 + "w1" * 40)
        self.assertEqual(gpumon.stats()["written"], 104)

    def test_64_bit_wraparound(self):
        self.small_rings(64)
        gpumon.mark("data")
        ring = gpumon._state.ring
        cells = dict(zip(ring.write.__code__.co_freevars, ring.write.__closure__))
        start = 2 ** 64 - 3                # entries 2^64-2, 2^64-1, 0, 1, 2 follow
        cells["seq"].cell_contents = start
        cells["consumed"].cell_contents = start
        rr.set_consumed(ring.path, start)
        for _ in range(5):
            gpumon.mark("compute")
        h, entries = rr.read(ring.path)
        self.assertEqual([e[0] for e in entries], [2 ** 64 - 2, 2 ** 64 - 1, 0, 1, 2])
        # the ring holds 64 entries past consumed, across the wrap too
        for _ in range(70):
            gpumon.mark("compute")
        h, entries = rr.read(ring.path)
        self.assertEqual(len(entries), 64)
        self.assertEqual(h["dropped"], 11)

    def test_fork(self):
        with gpumon.step():
            pass
        parent = self.only_ring()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:                       # the child: its own ring, never the parent's
            status = 1
            try:
                os.close(r)
                for _ in range(2):
                    with gpumon.step():
                        pass
                s = gpumon.stats()
                os.write(w, (s["path"] or "").encode())
                status = 0
            finally:
                os._exit(status)
        os.close(w)
        child_path = os.read(r, 4096).decode()
        os.close(r)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(status, 0)
        self.assertEqual(self.kinds(parent), "c1w1")
        self.assertNotEqual(child_path, parent)
        self.assertEqual(sorted(self.rings()), sorted([parent, child_path]))
        h, _ = rr.read(child_path)
        self.assertEqual(h["pid"], pid)
        self.assertEqual(self.kinds(child_path), "c1w1c1w1")
        with gpumon.step():                # the parent goes on in its own ring
            pass
        self.assertEqual(self.kinds(parent), "c1w1c1w1")

    def test_fork_before_the_first_entry(self):
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                gpumon.mark("data")
                status = 0
            finally:
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(status, 0)
        gpumon.mark("compute")
        rings = self.rings()
        self.assertEqual(len(rings), 2)
        by_pid = dict((rr.read(p)[0]["pid"], rr.kinds(p)) for p in rings)
        self.assertEqual(by_pid, {pid: "w1", os.getpid(): "c1"})

    def test_rank_fields(self):
        cases = [({"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "8"}, (3, 1, 8)),
                 ({"RANK": "x", "LOCAL_RANK": "", "WORLD_SIZE": "2.0"}, (-1, -1, -1)),
                 ({"RANK": "99999999999", "WORLD_SIZE": "16"}, (-1, -1, 16)),
                 ({"RANK": "1_0", "LOCAL_RANK": "\u0663", "WORLD_SIZE": " 4"}, (-1, -1, -1)),
                 ({"RANK": "0", "LOCAL_RANK": "+2", "WORLD_SIZE": "-1"}, (0, 2, -1)),
                 ({}, (-1, -1, -1))]
        for env, expected in cases:
            with mock.patch.dict(os.environ, env):
                gpumon._reset()
                gpumon.mark("data")
                path = gpumon.stats()["path"]
                h = rr.read(path)[0]
                self.assertEqual((h["rank"], h["local_rank"], h["world_size"]), expected, env)


class BadDirectory(RingTest):
    """An unusable GPUMON_STEPS: one warning line, then no-op, never an exception."""

    def check_off(self, reason_part, check_first=True):
        if check_first:                   # a directory that is not usable is seen without a ring
            self.assertFalse(gpumon.enabled())
        for _ in range(3):
            with gpumon.step():
                pass
            gpumon.mark("data")
        gpumon.done()
        self.assertFalse(gpumon.enabled())
        lines = self.err.getvalue().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertTrue(lines[0].startswith("gpumon: step timing off: "), lines[0])
        self.assertIn(reason_part, lines[0])
        s = gpumon.stats()
        self.assertEqual((s["enabled"], s["path"], s["written"]), (False, None, 0))
        self.assertIn(reason_part, s["reason"])

    def test_missing(self):
        os.environ["GPUMON_STEPS"] = os.path.join(self.dir, "gone")
        self.check_off("No such file")

    def test_missing_first_call_is_a_step(self):
        os.environ["GPUMON_STEPS"] = os.path.join(self.dir, "gone")
        with gpumon.step():
            pass
        self.check_off("No such file")

    def test_a_file(self):
        path = os.path.join(self.dir, "file")
        open(path, "w").close()
        os.environ["GPUMON_STEPS"] = path
        self.check_off("not a directory")

    def test_group_writable(self):
        os.chmod(self.dir, 0o770)
        self.check_off("writable by group or others")
        self.assertEqual(os.listdir(self.dir), [])

    def test_other_owner(self):
        if os.geteuid() != 0:
            self.skipTest("giving a directory away needs root")
        os.chown(self.dir, 65534, 65534)
        self.check_off("owned by uid 65534")
        self.assertEqual(os.listdir(self.dir), [])

    def test_unwritable(self):
        if os.geteuid() == 0:
            self.skipTest("root writes into a 0500 directory")
        os.chmod(self.dir, 0o500)
        self.addCleanup(os.chmod, self.dir, 0o700)
        self.check_off("Permission denied")

    def test_disk_full(self):
        def full(*args, **kwargs):
            raise OSError(28, "No space left on device")
        with mock.patch.object(_ring, "Ring", full):
            self.check_off("No space left on device", check_first=False)

    def test_ring_creation_leaves_no_temp_file(self):
        with mock.patch.object(_ring.mmap, "mmap", side_effect=OSError(12, "Cannot allocate memory")):
            self.check_off("Cannot allocate memory", check_first=False)
        self.assertEqual(os.listdir(self.dir), [])


if __name__ == "__main__":
    unittest.main()
