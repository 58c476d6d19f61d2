"""gpumon._live, the live display of %%gpumon in Jupyter: its rendering (sparklines, values, the verdict
that holds, steps per second, escaping), its updates from a page's API (a stdlib HTTP server standing
in for gpumon run --web), and the magic in a kernel, against a fake gpumon that serves such a page
when given --web and refuses --web when told to. The real thing, a Jupyter kernel running the cell
under the real gpumon on the simulator, is tests/cli/test_notebook.sh."""
import http.server
import json
import os
import shutil
import stat
import sys
import tempfile
import threading
import unittest
from unittest import mock

from . import PYTHON_DIR  # noqa: F401  (puts python/ on sys.path)
from gpumon import _live

try:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
except ImportError:
    InteractiveShell = None


def state(n, util, verdicts=(), job=None, name="NVIDIA H100 80GB HBM3"):
    """An API state: GPU i at util[i]."""
    st = {"gpumon": "0", "source": "run", "hostname": "node1", "time": 1000.0 + n, "interval_s": 1,
          "verdicts": list(verdicts),
          "record": {"hostname": "node1", "gpus": [
              {"index": i, "uuid": "GPU-%d" % i, "name": name, "utilization.gpu": u, "gpm.sm_active": u / 2}
              for i, u in enumerate(util)]}}
    if job:
        st["job"] = job
    return st


def history(util_series):
    return {"t": list(range(len(util_series[0]))), "gpus": [
        {"index": i, "uuid": "GPU-%d" % i, "series": {"utilization.gpu": s, "gpm.sm_active": [None] * len(s)}}
        for i, s in enumerate(util_series)]}


class Render(unittest.TestCase):
    def test_rows_sparklines_verdict_steps(self):
        v = [{"gpu": 1, "rule": "input-wait", "severity": "warning", "title": "the loop waits"},
             {"gpu": 1, "rule": "idle", "severity": "info", "title": "nothing runs"}]
        out = _live.render(state(1, [80, 10], v, {"steps_per_s": 12.5, "input_wait": 38.0}),
                           history([[10, 50, 80], [None, 5, 10]]))
        self.assertEqual(out.count("<tr>"), 2)
        self.assertEqual(out.count("<svg"), 4)                  # utilization and SM, per GPU
        self.assertIn("80%", out)
        self.assertIn('data-verdict="input-wait"', out)         # the most severe of GPU 1's
        self.assertNotIn('data-verdict="idle"', out)
        self.assertIn("12.5 steps/s", out)
        self.assertIn("input wait 38%", out)
        self.assertIn("no verdict yet", out)                    # GPU 0
        self.assertIn("live, every", out)
        self.assertIn("ended", _live.render(state(1, [1]), history([[1]]), ended=True))

    def test_escaping_and_gaps(self):
        out = _live.render(state(1, [5], name="<img src=x onerror=alert(1)>"), history([[None, 1, None, 2]]))
        self.assertNotIn("<img", out)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;", out)
        svg = _live.sparkline([1, None, 2, 3], 100)
        self.assertEqual(svg.count("<polyline"), 2)              # unknown breaks the line, never 0
        self.assertEqual(_live.sparkline([], 100).count("<polyline"), 0)

    def test_page_line(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        out = os.path.join(d, "out")
        with open(out, "w") as f:
            f.write("gpumon run: the live page is at http://127.0.0.1:4242/\nSummary: x\n")
        self.assertEqual(_live.page_url(out, lambda: True), "http://127.0.0.1:4242/")
        with open(out) as f:
            self.assertEqual(_live.without_page_line(f.read()), "Summary: x\n")
        with open(out, "w") as f:
            f.write("nothing\n")
        self.assertIsNone(_live.page_url(out, lambda: False))
        self.assertTrue(_live.in_notebook(mock.Mock(kernel=object())))
        self.assertFalse(_live.in_notebook(object()))


class Server(object):
    """A page's API on 127.0.0.1: GPU 0's utilization rises by 10 each state asked."""

    def __init__(self):
        self.asked = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path == "/api/v1/state":
                    outer.asked += 1
                    body = state(outer.asked, [10 * outer.asked % 100])
                elif self.path.startswith("/api/v1/history?seconds="):
                    body = history([[10 * k % 100 for k in range(1, outer.asked + 1)]])
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass
        self.httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Updates(unittest.TestCase):
    def test_updates_then_final_frame(self):
        srv = Server()
        self.addCleanup(srv.close)
        frames = []
        seen = threading.Event()

        def show(first):
            frames.append(first)

            def update(text):
                frames.append(text)
                if len(frames) >= 4:
                    seen.set()
            return update
        live = _live.LiveDisplay(srv.url, show, update_s=0.05)
        self.assertTrue(seen.wait(30), frames)
        live.stop()
        self.assertIn("waiting for the first sample", frames[0])
        self.assertGreaterEqual(live.updates, 3)
        self.assertTrue(all("<svg" in f for f in frames[1:]))
        self.assertGreater(len(set(frames[1:-1])), 1)            # the values changed between updates
        self.assertIn("ended", frames[-1])
        self.assertNotIn("ended", frames[-2])

    def test_gpumon_gone(self):
        srv = Server()
        url = srv.url
        srv.close()
        frames = []
        live = _live.LiveDisplay(url, lambda first: frames.append, update_s=0.05)
        live.stop()
        self.assertEqual(live.updates, 0)
        self.assertGreaterEqual(live.errors, 1)
        self.assertIn("ended before its page had data", frames[-1])


FAKE = r'''#!%(python)s
import http.server, json, os, signal, sys, threading, time
def state(n):
    return {"hostname": "node1", "job": {"steps_per_s": 9.5}, "verdicts": [], "record": {"gpus": [
        {"index": 0, "uuid": "GPU-0", "name": "H100", "utilization.gpu": n %% 100}]}}
args = sys.argv[1:]
stop = []
signal.signal(signal.SIGINT, lambda *a: stop.append(1))
opts = dict(zip(args[1::2], args[2::2]))
pid = int(args[args.index("--attach") + 1])
if "--web" in args and os.environ.get("FAKE_NO_WEB"):
    sys.stderr.write("gpumon run: --web: this gpumon was built without the exporter module\n")
    sys.exit(1)
open(args[args.index("--output") + 1], "w").write("{}\n")
if "--web" in args:
    n = [0]
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            n[0] += 1
            body = state(n[0]) if self.path == "/api/v1/state" else {"gpus": [{"uuid": "GPU-0", "series": {}}]}
            data = json.dumps(body).encode()
            self.send_response(200); self.send_header("Content-Length", str(len(data))); self.end_headers()
            self.wfile.write(data)
        def log_message(self, *a): pass
    httpd = http.server.HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    sys.stderr.write("gpumon run: the live page is at http://127.0.0.1:%%d/\n" %% httpd.server_address[1])
    sys.stderr.flush()
while not stop:
    try:
        os.kill(pid, 0)
    except OSError:
        break
    time.sleep(0.01)
sys.stderr.write("gpumon run: fake summary, web=%%s\n" %% ("--web" in args))
'''


@unittest.skipIf(InteractiveShell is None, "IPython is not installed")
class Magic(unittest.TestCase):
    def setUp(self):
        from .test_notebook import shell
        self.work = tempfile.mkdtemp(prefix="gpumon-livetest-")
        self.addCleanup(shutil.rmtree, self.work, True)
        self.fake = os.path.join(self.work, "fake-gpumon")
        with open(self.fake, "w") as f:
            f.write(FAKE % {"python": sys.executable})
        os.chmod(self.fake, stat.S_IRWXU)
        os.environ["IPYTHONDIR"] = os.path.join(self.work, "ipython")
        self.sh = shell()

    def magic(self, line, kernel=True):
        with mock.patch.object(_live, "in_notebook", lambda ip: kernel), mock.patch.object(_live, "UPDATE_S", 0.05):
            with capture_output() as cap:
                self.sh.run_cell_magic("gpumon", "--gpumon %s --no-report %s" % (self.fake, line),
                                       "import time\ntime.sleep(0.6)\n")
        return cap

    def live_frames(self, cap):
        return [o for o in cap.outputs if "text/html" in o.data and "gpumon-live" in o.data["text/html"]]

    def test_kernel_gets_a_live_display(self):
        cap = self.magic("")
        frames = self.live_frames(cap)
        self.assertGreaterEqual(len(frames), 3, [o.data for o in cap.outputs])
        ids = set((o.transient or {}).get("display_id") for o in frames)
        self.assertEqual(len(ids), 1)                              # one display, updated in place
        self.assertTrue(all(o.update for o in frames[1:]))
        self.assertIn("9.5 steps/s", frames[-1].data["text/html"])
        self.assertIn("ended", frames[-1].data["text/html"])
        self.assertIn("fake summary, web=True", cap.stdout)
        self.assertNotIn("the live page is at", cap.stdout)       # gone with the cell: not shown

    def test_plain_ipython_keeps_text(self):
        cap = self.magic("")
        cap2 = self.magic("", kernel=False)
        self.assertTrue(self.live_frames(cap))
        self.assertEqual(self.live_frames(cap2), [])
        self.assertIn("fake summary, web=False", cap2.stdout)

    def test_no_live(self):
        cap = self.magic("--no-live")
        self.assertEqual(self.live_frames(cap), [])
        self.assertIn("web=False", cap.stdout)

    def test_gpumon_without_the_page(self):
        with mock.patch.dict(os.environ, {"FAKE_NO_WEB": "1"}):
            cap = self.magic("")
        self.assertEqual(self.live_frames(cap), [])
        self.assertIn("%%gpumon: no live display: gpumon run: --web: this gpumon was built without", cap.stdout)
        self.assertIn("fake summary, web=False", cap.stdout)      # and the cell ran watched all the same
