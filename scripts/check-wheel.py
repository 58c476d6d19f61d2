#!/usr/bin/env python3
"""check-wheel.py VENV: exercises gpumon installed from its wheel into VENV (pip install
dist/gpumon-*.whl), as scripts/check-portable runs it in a bare Debian 11 root: the binary on PATH and
every command a user reaches first, on the bundled simulated GPUs. Each check prints one line; the last
line is "check-wheel: N passed, N failed". Exit 1 on any failure. Standard library only.

- the files: the binary in VENV/bin, its modules, simulator, scenarios, man page; every ELF file's
  libraries found (ldd), those not every system has resolving to the wheel's own copies;
- gpumon --version is the Python package's version;
- gpumon --sim --once (watch), a zstd log written and read back by diagnose (libzstd and cJSON, which
  gpumon dlopens, loaded from the wheel: /proc/PID/maps);
- gpumon run with a Python job that records steps through the installed package, and its report;
- gpumon top in a pseudo-terminal: the screen shows the GPUs, q ends it with 0;
- gpumon serve: /metrics answers with gpumon's series, from the wheel's libmicrohttpd; SIGTERM ends it;
- %load_ext gpumon and a %%gpumon cell in IPython (when IPython can be imported), the magic finding the
  wheel's gpumon.
"""
import json
import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Callable, List, Optional

VENV = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.prefix
BIN = os.path.join(VENV, "bin", "gpumon")
SYSTEM = ("libc.so", "libm.so", "libdl.so", "librt.so", "libpthread.so", "libgcc_s.so", "ld-linux", "linux-vdso")
passed: List[str] = []
failed: List[str] = []


def check(what: str, ok: bool, detail: str = "") -> None:
    (passed if ok else failed).append(what)
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + detail))


def run(*args: str, timeout: float = 60, env: Optional[dict] = None, cwd: Optional[str] = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=timeout, env=env, cwd=cwd)


def wait_for(cond: Callable[[], bool], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def maps(pid: int) -> str:
    try:
        with open("/proc/%d/maps" % pid) as f:
            return f.read()
    except OSError:
        return ""


def files() -> None:
    lib = os.path.join(VENV, "lib", "gpumon")
    for rel in ("bin/gpumon", "lib/gpumon/gpumon-serve.so", "lib/gpumon/gpumon-top.so",
                "lib/gpumon/sim/libnvidia-ml.so.1", "share/gpumon/scenarios/input-bound.scn",
                "share/man/man1/gpumon.1"):
        check("installed: " + rel, os.path.isfile(os.path.join(VENV, rel)))
    check("gpumon is the one on PATH", run("sh", "-c", "command -v gpumon").stdout.strip() == BIN)
    elves = [BIN]
    for root, _, names in os.walk(lib):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    elves.append(p)
    bad = []
    for p in elves:
        out = run("ldd", p).stdout
        for line in out.splitlines():
            m = re.match(r"\s*(\S+) => (\S+)", line)
            if "not found" in line:
                bad.append("%s: %s" % (p, line.strip()))
            elif m and not m.group(1).startswith(SYSTEM) and not m.group(2).startswith(lib + "/"):
                bad.append("%s: %s from %s, not from the wheel" % (p, m.group(1), m.group(2)))
            if "libnvidia-ml" in line and "sim" not in p:
                bad.append("%s links libnvidia-ml" % p)
    check("every ELF file's libraries (%d files): found, from the wheel where not the system's" % len(elves),
          not bad, "; ".join(bad[:5]))


def version() -> None:
    out = run(BIN, "--version").stdout.strip()
    pkg = run(sys.executable, "-c", "import gpumon; print(gpumon.__version__, gpumon.__file__)").stdout.split()
    check("gpumon --version is the package's (%s)" % out, pkg and out == "gpumon " + pkg[0], "%r vs %r" % (out, pkg))
    check("the package imported from the venv", len(pkg) > 1 and pkg[1].startswith(VENV + "/"), repr(pkg))


def watch(tmp: str) -> None:
    r = run(BIN, "--sim", "--once", "--format", "csv", "--fields", "index,name,utilization.gpu")
    check("gpumon --sim --once", r.returncode == 0 and "A100" in r.stdout, r.stderr + r.stdout)
    log = os.path.join(tmp, "watch.jsonl.zst")
    p = subprocess.Popen([BIN, "--sim", "--interval", "100ms", "--count", "30", "--format", "jsonl", "-o", log],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, universal_newlines=True)
    seen = wait_for(lambda: "libzstd" in maps(p.pid) or p.poll() is not None, 10)
    m = maps(p.pid)
    _, err = p.communicate(timeout=30)
    zstd = [line.split()[-1] for line in m.splitlines() if "libzstd" in line]
    check("watch -o x.zst: libzstd loaded from the wheel", seen and zstd and zstd[0].startswith(VENV + "/"),
          "%s %s" % (zstd[:1], err))
    check("watch -o x.zst: exit 0", p.returncode == 0, err)
    r = run(BIN, "diagnose", log)
    check("diagnose reads the zstd log (cJSON from the wheel)", r.returncode == 0 and "GPU" in r.stdout,
          r.stderr + r.stdout[-300:])


def run_job(tmp: str) -> None:
    job = ("import time, gpumon\n"
           "for _ in range(60):\n"
           "    time.sleep(0.02)          # the wait for input\n"
           "    with gpumon.step():\n"
           "        time.sleep(0.01)\n"
           "gpumon.done()\n")
    log, report = os.path.join(tmp, "run.jsonl"), os.path.join(tmp, "run.html")
    r = run(BIN, "run", "--sim", "--interval", "200ms", "-o", log, "--report", report, "--",
            sys.executable, "-c", job, timeout=120)
    check("gpumon run -- python job: exit 0", r.returncode == 0, r.stderr[-500:])
    check("gpumon run: the job's steps reported", re.search(r"reported [0-9]+ steps", r.stderr) is not None,
          r.stderr[-500:])
    steps = 0
    try:
        with open(log) as f:
            for line in f:
                steps += sum(k.get("n", 0) for k in json.loads(line).get("steps") or [])
    except (OSError, ValueError) as e:
        check("run's log", False, str(e))
    check("run's log: the steps the job recorded (%d of 60)" % steps, 50 <= steps <= 60, str(steps))
    check("run's HTML report", os.path.isfile(report) and os.path.getsize(report) > 1000)


def top() -> None:
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.environ["LINES"], os.environ["COLUMNS"] = "40", "120"
        os.execv(BIN, [BIN, "top", "--sim"])
    import fcntl
    import struct
    import termios
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    screen = b""
    end = time.monotonic() + 15
    while time.monotonic() < end and b"A100" not in screen:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                screen += os.read(fd, 65536)
            except OSError:
                break
    mods = maps(pid)
    check("gpumon top: the screen shows the GPUs", b"A100" in screen, repr(screen[-300:]))
    check("gpumon top: ncursesw from the wheel", os.path.join(VENV, "lib/gpumon/libs/libncursesw") in mods)
    os.write(fd, b"q")
    status = None
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                os.read(fd, 65536)
        except OSError:
            pass
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    check("gpumon top: q ends it with 0", status == 0, str(status))
    os.close(fd)


def serve() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    p = subprocess.Popen([BIN, "serve", "--sim", "--web.listen-address", "127.0.0.1:%d" % port, "--interval", "200ms"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, universal_newlines=True)
    body = []

    def scraped() -> bool:
        try:
            body.append(urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=2).read().decode())
            return True
        except OSError:
            return p.poll() is not None
    wait_for(scraped, 15)
    mods = maps(p.pid)
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    check("gpumon serve: /metrics has the GPUs' series", bool(body) and "gpumon_gpu_utilization_ratio{" in body[-1],
          err[-300:])
    check("gpumon serve: libmicrohttpd from the wheel", os.path.join(VENV, "lib/gpumon/libs/libmicrohttpd") in mods)
    check("gpumon serve: SIGTERM ends it with 0", p.returncode == 0, "%s %s" % (p.returncode, err[-300:]))


def notebook(tmp: str) -> None:
    code = r'''
import io, sys
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from traitlets.config import Config
c = Config()
c.HistoryManager.hist_file = ":memory:"
sh = InteractiveShell.instance(config=c)
sh.run_line_magic("load_ext", "gpumon")
cell = "%%gpumon --sim --interval 200ms --no-report --log " + sys.argv[1] + """
import time, gpumon
for _ in range(30):
    time.sleep(0.02)
    with gpumon.step():
        time.sleep(0.01)
"""
with capture_output() as cap:
    result = sh.run_cell(cell)
print(cap.stdout)
sys.exit(0 if result.success else 1)
'''
    if run(sys.executable, "-c", "import IPython").returncode != 0:
        check("%load_ext gpumon (IPython is not installed here)", False, "no IPython")
        return
    log = os.path.join(tmp, "nb.jsonl")
    env = dict(os.environ, PATH="/usr/bin:/bin", IPYTHONDIR=os.path.join(tmp, "ipython"))   # not the venv's bin
    r = run(sys.executable, "-c", code, log, env=env, timeout=120, cwd=tmp)
    check("%load_ext gpumon, a %%gpumon cell: success and gpumon's summary", r.returncode == 0 and "gpumon run" in r.stdout,
          "exit %d: %s" % (r.returncode, (r.stdout + r.stderr)[-600:]))
    check("%%gpumon --log: the log", os.path.isfile(log) and os.path.getsize(log) > 0)


def main() -> int:
    tmp = tempfile.mkdtemp(prefix="gpumon-wheel-")
    os.environ["PATH"] = os.path.join(VENV, "bin") + os.pathsep + os.environ.get("PATH", "")
    for step in (files, version, lambda: watch(tmp), lambda: run_job(tmp), top, serve, lambda: notebook(tmp)):
        try:
            step()
        except Exception as e:     # a check that crashed is a failure, and the others still run
            check("%s" % getattr(step, "__name__", "check"), False, "%s: %s" % (type(e).__name__, e))
    print("check-wheel: %d passed, %d failed" % (len(passed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
