"""%load_ext gpumon and the %%gpumon cell magic, against a fake gpumon (a Python script) that keeps
the --attach contract: it watches until SIGINT, then reads the rings in --steps, prints a
"gpumon run: ..." summary on stderr, writes the report and exits 0."""
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import unittest
from unittest import mock

from ._base import RingTest
import gpumon.notebook
from . import _ringreader

try:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.error import UsageError
    from IPython.utils.capture import capture_output
except ImportError:
    InteractiveShell = None

FAKE = r'''#!%(python)s
import json, os, signal, sys, time
sys.path.insert(0, %(here)r)
import _ringreader

args = sys.argv[1:]
stop = []
signal.signal(signal.SIGINT, lambda *a: stop.append(1))
opts, flags, i = {}, [], 1
while i < len(args):
    if args[i] in ("--attach", "--steps", "--output", "--report", "--interval", "--gpus"):
        opts[args[i]] = args[i + 1]
        i += 2
    else:
        flags.append(args[i])
        i += 1
record = {"argv": args, "opts": opts, "flags": flags}
if args[0] != "run" or "--bad-option" in flags:
    sys.stderr.write("gpumon run: unknown option --bad-option\n")
    sys.exit(2)
log = open(opts["--output"], "a")            # open the log (appending, as gpumon run -o): sampling from now on
log.write('{"fake": 1}\n')
log.flush()
pid = int(opts["--attach"])
while not stop:
    try:
        os.kill(pid, 0)
    except OSError:
        break
    time.sleep(0.01)
kinds = "".join(_ringreader.kinds(p) for p in _ringreader.rings(opts["--steps"]))
entries = sum(len(_ringreader.read(p)[1]) for p in _ringreader.rings(opts["--steps"]))
record["kinds"] = kinds
record["steps_listing"] = os.listdir(opts["--steps"])
sys.stderr.write("gpumon run: watched pid %%d\ngpumon run: fake summary: %%d entries\n" %% (pid, entries))
with open(opts["--report"], "w") as f:
    f.write('<html><body><p>fake report &amp; "quotes"</p></body></html>')
log.write('{"fake": 2}\n')                   # the last record, written as gpumon ends
log.close()
with open(os.environ["FAKE_GPUMON_RECORD"], "w") as f:
    json.dump(record, f)
'''

CELL = """
import gpumon
for _ in range(3):
    with gpumon.step():
        pass
cell_ran = os.environ.get("GPUMON_STEPS", "")
"""

_shell = None


def shell():
    global _shell
    if _shell is None:
        from traitlets.config import Config
        config = Config()
        config.HistoryManager.hist_file = ":memory:"
        _shell = InteractiveShell.instance(config=config)
        _shell.run_line_magic("load_ext", "gpumon")
    return _shell


@unittest.skipIf(InteractiveShell is None, "IPython is not installed")
class Magic(RingTest):
    inside = False      # the kernel itself runs outside `gpumon run`

    def setUp(self):
        super(Magic, self).setUp()
        self.work = tempfile.mkdtemp(prefix="gpumon-nbtest-")
        self.addCleanup(shutil.rmtree, self.work, True)
        self.fake = os.path.join(self.work, "fake-gpumon")
        with open(self.fake, "w") as f:
            f.write(FAKE % {"python": sys.executable, "here": os.path.dirname(os.path.abspath(_ringreader.__file__))})
        os.chmod(self.fake, stat.S_IRWXU)
        self.record = os.path.join(self.work, "record.json")
        os.environ["FAKE_GPUMON_RECORD"] = self.record
        os.environ["IPYTHONDIR"] = os.path.join(self.work, "ipython")
        self.sh = shell()
        self.sh.user_ns.pop("cell_ran", None)
        self.sh.run_cell("import os")

    def magic(self, line, cell=CELL):
        with capture_output() as cap:
            self.sh.run_cell_magic("gpumon", line, cell)
        return cap

    def recorded(self):
        with open(self.record) as f:
            return json.load(f)

    def test_cell_with_gpumon(self):
        cap = self.magic("--gpumon %s --interval 100ms --sim" % self.fake)
        rec = self.recorded()
        opts = rec["opts"]
        steps = opts["--steps"]
        self.assertEqual(rec["argv"][0], "run")
        self.assertEqual(opts["--attach"], str(os.getpid()))
        self.assertEqual(opts["--interval"], "100ms")
        self.assertEqual(rec["flags"], ["--sim"])
        tmp = os.path.dirname(steps)
        self.assertEqual((opts["--output"], opts["--report"]),
                         (os.path.join(tmp, "log.jsonl"), os.path.join(tmp, "report.html")))
        # the cell ran with GPUMON_STEPS on the steps dir, and its steps reached the ring
        self.assertEqual(self.sh.user_ns.get("cell_ran"), steps)
        self.assertEqual(rec["kinds"], "c1w1c1w1c1w1o1")
        self.assertEqual(len(rec["steps_listing"]), 1)
        # the summary and the report are shown; the temp dir is gone; the state is restored
        self.assertIn("gpumon run: fake summary: 7 entries", cap.stdout)
        self.assertIn("gpumon run: watched pid %d" % os.getpid(), cap.stdout)
        html = [o.data["text/html"] for o in cap.outputs if "text/html" in o.data]
        self.assertEqual(len(html), 1)
        self.assertIn('<iframe srcdoc="', html[0])
        self.assertIn("fake report &amp;amp; &quot;quotes&quot;", html[0])
        self.assertFalse(os.path.exists(tmp))
        self.assertNotIn("GPUMON_STEPS", os.environ)
        self.assertFalse(gpumon_enabled())

    def test_log_and_no_report(self):
        keep = os.path.join(self.work, "kept.jsonl")
        with mock.patch.dict(os.environ, {"GPUMON": self.fake}):
            cap = self.magic("--log %s --no-report" % keep)
        self.assertEqual(self.recorded()["opts"]["--output"], keep)     # gpumon writes the log itself
        with open(keep) as f:
            self.assertEqual(f.read(), '{"fake": 1}\n{"fake": 2}\n')
        self.assertEqual([o for o in cap.outputs if "text/html" in o.data], [])
        self.assertIn("fake summary: 7 entries", cap.stdout)
        # a second cell with the same log appends to it: an earlier run is never lost
        with mock.patch.dict(os.environ, {"GPUMON": self.fake}):
            self.magic("--log %s --no-report" % keep)
        with open(keep) as f:
            self.assertEqual(f.read(), '{"fake": 1}\n{"fake": 2}\n' * 2)

    def test_log_that_cannot_be_written(self):
        # checked before anything runs: a usage error, the cell not run, gpumon not started
        adir = os.path.join(self.work, "adir")
        os.mkdir(adir)
        cases = [("/nonexistent/dir/x.jsonl", "no such directory /nonexistent/dir"),
                 (adir, "it is a directory"), ("/dev/null", "it is not a regular file")]
        if os.geteuid() != 0:        # root may write anywhere
            ro = os.path.join(self.work, "ro")
            os.mkdir(ro, 0o500)
            cases.append((os.path.join(ro, "x.jsonl"), "the directory %s cannot be written" % ro))
        for path, why in cases:
            with self.assertRaises(UsageError) as ctx:
                self.magic("--gpumon %s --log %s" % (self.fake, path))
            self.assertIn("--log %s: %s; the cell was not run" % (path, why), str(ctx.exception))
            self.assertIsNone(self.sh.user_ns.get("cell_ran"))
            self.assertFalse(os.path.exists(self.record))

    def test_cell_raises(self):
        # the cell's exception is raised again after gpumon's summary, so Run All and papermill stop
        cell = "import gpumon\nwith gpumon.step():\n    pass\nraise ValueError('in the cell')\n"
        with self.assertRaises(ValueError) as ctx:
            self.magic("--gpumon %s" % self.fake, cell)
        self.assertEqual(str(ctx.exception), "in the cell")
        self.assertEqual(self.recorded()["kinds"], "c1w1o1")
        # through IPython as a notebook runs it: the cell fails, its traceback shown once, then the
        # summary, then one line
        with capture_output() as cap:
            result = self.sh.run_cell("%%%%gpumon --gpumon %s\n%s" % (self.fake, cell))
        self.assertFalse(result.success)
        self.assertIsInstance(result.error_in_exec, ValueError)
        out = re.sub(r"\x1b\[[0-9;]*m", "", cap.stdout)      # IPython's colours
        self.assertEqual(out.count("ValueError: in the cell"), 1, out)
        self.assertEqual(out.count("Traceback"), 1, out)
        summary = out.index("fake summary: 3 entries")
        self.assertLess(out.index("ValueError: in the cell"), summary)
        self.assertGreater(out.index("%%gpumon: the cell raised ValueError (its traceback is above"), summary)

    def test_gpumon_fails_early(self):
        cap = self.magic("--gpumon %s --bad-option" % self.fake)
        self.assertIn("gpumon run: unknown option --bad-option", cap.stdout)
        self.assertIn("exit status 2", cap.stdout)
        self.assertEqual(self.sh.user_ns.get("cell_ran"), "")   # ran anyway, outside gpumon
        self.assertFalse(gpumon_enabled())
        with self.assertRaises(ZeroDivisionError):          # and a failing cell still fails
            self.magic("--gpumon %s --bad-option" % self.fake, "1 / 0")

    def test_no_binary(self):
        with mock.patch.dict(os.environ, {"PATH": self.work}), \
                mock.patch.object(sys, "executable", os.path.join(self.work, "python3")), \
                mock.patch("sysconfig.get_path", lambda *a: self.work):
            os.environ.pop("GPUMON", None)
            with self.assertRaises(UsageError) as ctx:
                self.magic("")
        self.assertIn("no gpumon binary", str(ctx.exception))
        self.assertIsNone(self.sh.user_ns.get("cell_ran"))

    def test_binary_beside_the_interpreter(self):
        # pip puts the wheel's gpumon in the environment's scripts directory, which a kernel started from
        # a venv need not have on PATH
        bindir = os.path.join(self.work, "venv-bin")
        os.mkdir(bindir)
        shutil.copy(self.fake, os.path.join(bindir, "gpumon"))
        with mock.patch.dict(os.environ, {"PATH": self.work}), \
                mock.patch.object(sys, "executable", os.path.join(bindir, "python3")):
            os.environ.pop("GPUMON", None)
            self.assertEqual(gpumon.notebook.find_gpumon(), os.path.join(bindir, "gpumon"))

    def test_kernel_already_inside_gpumon_run(self):
        outer = os.path.join(self.work, "outer")
        os.mkdir(outer, 0o700)
        os.environ["GPUMON_STEPS"] = outer
        import gpumon
        gpumon.mark("data")                          # the kernel's own ring in the outer dir
        self.magic("--gpumon %s" % self.fake)
        self.assertEqual(os.environ["GPUMON_STEPS"], outer)
        gpumon.mark("compute")                       # back in the outer ring
        rings = _ringreader.rings(outer)
        self.assertEqual(len(rings), 1)
        self.assertEqual(_ringreader.kinds(rings[0]), "w1c1")


def gpumon_enabled():
    import gpumon
    return gpumon.enabled()


if __name__ == "__main__":
    unittest.main()
