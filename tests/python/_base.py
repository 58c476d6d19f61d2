"""Shared set-up: a private GPUMON_STEPS directory per test and a fresh gpumon state."""
import io
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

from . import PYTHON_DIR  # noqa: F401  (puts python/ on sys.path)
import gpumon
from gpumon import _ring
from . import _ringreader as rr

ENV_KEYS = ("GPUMON_STEPS", "RANK", "LOCAL_RANK", "WORLD_SIZE")


class RingTest(unittest.TestCase):
    """Each test runs with GPUMON_STEPS set to a new 0700 directory (self.dir), RANK and the like
    unset, gpumon's per-process state forgotten, and stderr captured in self.err."""
    inside = True

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gpumon-test-")
        os.chmod(self.dir, 0o700)
        env = dict((k, v) for k, v in os.environ.items() if k not in ENV_KEYS)
        if self.inside:
            env["GPUMON_STEPS"] = self.dir
        patcher = mock.patch.dict(os.environ, env, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.err = io.StringIO()
        err_patcher = mock.patch.object(sys, "stderr", self.err)
        err_patcher.start()
        self.addCleanup(err_patcher.stop)
        saved = gpumon._reset()
        self.addCleanup(gpumon._restore, saved)
        self.addCleanup(gpumon._reset)
        self.addCleanup(shutil.rmtree, self.dir, True)

    def rings(self, directory=None):
        return rr.rings(directory or self.dir)

    def only_ring(self):
        rings = self.rings()
        self.assertEqual(len(rings), 1, rings)
        return rings[0]

    def kinds(self, path=None, start=None):
        return rr.kinds(path or self.only_ring(), start)

    def small_rings(self, nslots=64):
        patcher = mock.patch.object(_ring, "NSLOTS", nslots)
        patcher.start()
        self.addCleanup(patcher.stop)
