"""gpumon.notebook: the `%%gpumon` cell magic (`%load_ext gpumon` first).

    %%gpumon [--interval DUR] [--gpus LIST] [--log FILE] [--no-report] [--no-live] [--gpumon PATH] [gpumon run options]
    <cell>

runs the cell with `gpumon run --attach <kernel pid>` watching the GPUs and
the kernel's own process, records the steps the cell reports (gpumon.step,
gpumon.torch.timed, gpumon.keras.StepTimer) and shows gpumon's summary and
HTML report under the cell. In Jupyter a live display (gpumon._live) shows,
while the cell runs, each GPU's utilization and SM activity, the job's
steps per second and the verdict that holds (--no-live: none). Options this magic does not know (such as --sim,
--scenario NAME, --window 10s) go to `gpumon run` as they are.

A --log FILE that cannot be written is refused before the cell runs; gpumon
appends its records to FILE itself as it samples (as `gpumon run -o`), so the
log is whole even if the kernel dies. An exception the cell raises is raised
again after gpumon's summary, so that "Run All" and papermill stop there; its
traceback is shown once, where the cell raised it.
"""
import argparse
import html
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from typing import Any, NoReturn, Optional

from . import _live, _state

__all__ = ["load_ipython_extension", "find_gpumon"]

STOP_TIMEOUT = 30.0      # seconds gpumon may take to write its summary and report after SIGINT
READY_TIMEOUT = 2.0      # seconds to wait for gpumon to open its log before the cell runs
REPORT_HEIGHT = 640      # pixels of the inline report
_PREFIX = "%%gpumon: "


class _HelpShown(Exception):
    pass


def _usage(message: str) -> NoReturn:
    from IPython.core.error import UsageError
    raise UsageError(_PREFIX + message)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        _usage(message)

    def exit(self, status: int = 0, message: Optional[str] = None) -> NoReturn:
        if message:
            from IPython.core.error import UsageError
            raise UsageError(message)
        raise _HelpShown()


def _parser() -> _Parser:
    p = _Parser(prog="%%gpumon", add_help=True,
                description="Run the cell with `gpumon run --attach` watching the GPUs and this kernel; "
                            "show gpumon's summary and report afterwards. Options not listed here go to "
                            "`gpumon run` (e.g. --sim, --scenario input-bound, --window 10s).")
    p.add_argument("-i", "--interval", metavar="DUR", help="time between samples (gpumon run --interval)")
    p.add_argument("-g", "--gpus", metavar="LIST", help="GPUs to monitor (gpumon run --gpus)")
    p.add_argument("--gpumon", metavar="PATH", help="the gpumon binary (default: $GPUMON, then gpumon on PATH)")
    p.add_argument("--log", metavar="FILE", help="append gpumon's JSON Lines log to FILE (checked before the cell runs)")
    p.add_argument("--no-report", action="store_true", help="do not show the HTML report")
    p.add_argument("--no-live", action="store_true",
                   help="no live display while the cell runs (Jupyter; plain IPython has none)")
    return p


def find_gpumon(explicit: Optional[str] = None) -> Optional[str]:
    """The gpumon binary: explicit, else $GPUMON, else gpumon on PATH, else the one pip installed beside
    this Python (the wheel's, in the scripts directory of this environment: a kernel started from a
    venv without the venv on PATH); None if none."""
    for candidate in (explicit, os.environ.get("GPUMON")):
        if candidate:
            path = os.path.expanduser(candidate)
            if os.sep not in path:
                found = shutil.which(path)
                if found:
                    return found
            return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    found = shutil.which("gpumon")
    if found:
        return found
    dirs = [os.path.dirname(sys.executable), sysconfig.get_path("scripts")]
    try:
        dirs.append(sysconfig.get_path("scripts", "%s_user" % os.name))
    except KeyError:
        pass
    for d in dirs:
        path = os.path.join(d, "gpumon")
        if d and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _show_text(text: str, hide: Optional[str] = None) -> None:
    """Prints gpumon's output; lines naming hide (the temporary report, shown inline and then
    removed) are left out."""
    lines = [line for line in text.rstrip("\n").split("\n") if not (hide and hide in line)]
    text = "\n".join(lines).strip("\n")
    if text:
        print(text)


def _show_report(path: str) -> None:
    from IPython.display import HTML, display
    content = _read(path)
    if not content:
        return
    display(HTML('<iframe srcdoc="%s" style="width:100%%;height:%dpx;border:1px solid #ddd" '
                 'sandbox="allow-scripts allow-popups"></iframe>'
                 % (html.escape(content, quote=True), REPORT_HEIGHT)))


def _log_problem(path: str) -> Optional[str]:
    """Why gpumon could not append to path, or None: an existing regular file that can be written, or
    a new name in a directory that exists and can be written."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            return "no such directory %s" % parent
        if not os.access(parent, os.W_OK | os.X_OK):
            return "the directory %s cannot be written" % parent
        return None
    except OSError as e:
        return e.strerror or str(e)
    if stat.S_ISDIR(st.st_mode):
        return "it is a directory"
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if not os.access(path, os.W_OK):
        return "it cannot be written (permission denied)"
    return None


def _has_open(pid: int, path: str) -> bool:
    """Whether process pid has path open (Linux: its /proc/PID/fd links)."""
    real = os.path.realpath(path)
    fds = "/proc/%d/fd" % pid
    try:
        names = os.listdir(fds)
    except OSError:
        return os.path.exists(path)
    for name in names:
        try:
            if os.readlink(os.path.join(fds, name)) == real:
                return True
        except OSError:
            pass
    return False


def _wait_ready(proc: "subprocess.Popen[bytes]", log: str) -> None:
    """Waits until gpumon has opened its log (it is sampling) or has ended."""
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None or _has_open(proc.pid, log):
            return
        time.sleep(0.005)


def _raise_again(result: Any) -> None:
    """Raises the cell's own exception again, if it raised one. IPython has shown its traceback
    already, where the cell ran: this time it shows one line instead (_render_traceback_)."""
    err = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
    if err is None:
        return
    lines = [_PREFIX + "the cell raised %s (its traceback is above gpumon's summary)" % type(err).__name__]
    try:
        err._render_traceback_ = lambda: lines
    except Exception:
        pass
    raise err


def _stop(proc: "subprocess.Popen[bytes]") -> Optional[int]:
    """SIGINT, then up to STOP_TIMEOUT seconds for gpumon to finish, then
    SIGKILL. Returns its exit status, or None if it had to be killed."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGINT)
        except OSError:
            pass
    try:
        return proc.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    finally:
        if proc.poll() is None:       # interrupted while waiting
            proc.kill()
            proc.wait()


def run_cell_with_gpumon(ipython: Any, line: str, cell: str) -> None:
    """The `%%gpumon` cell magic."""
    try:
        args, extra = _parser().parse_known_args(shlex.split(line))
    except _HelpShown:
        return None
    binary = find_gpumon(args.gpumon)
    if binary is None:
        _usage("no gpumon binary: give --gpumon PATH, set GPUMON=PATH, or put gpumon on PATH (pip install "
               "gpumon's wheel, or build it with `cmake -S . -B build && cmake --build build`)")
    dest = None
    if args.log:
        dest = os.path.abspath(os.path.expanduser(args.log))
        why = _log_problem(dest)
        if why is not None:
            _usage("--log %s: %s; the cell was not run" % (args.log, why))
    tmp = tempfile.mkdtemp(prefix="gpumon-nb-")
    try:
        os.chmod(tmp, 0o700)
        steps = os.path.join(tmp, "steps")
        os.mkdir(steps, 0o700)
        log = dest or os.path.join(tmp, "log.jsonl")
        report = os.path.join(tmp, "report.html")
        output = os.path.join(tmp, "gpumon.out")
        cmd = [binary, "run", "--attach", str(os.getpid()), "--steps", steps, "--output", log, "--report", report]
        if args.interval:
            cmd += ["--interval", args.interval]
        if args.gpus:
            cmd += ["--gpus", args.gpus]
        cmd += extra
        live = not args.no_live and _live.in_notebook(ipython)

        def start(cmd):
            with open(output, "wb") as out:
                # its own session: a notebook interrupt (SIGINT to the kernel's
                # process group) stops the cell, not gpumon; the magic stops it
                return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                        env=dict(os.environ), start_new_session=True)
        proc = start(cmd + ["--web", _live.WEB_ADDRESS] if live else cmd)
        display = None
        try:
            _wait_ready(proc, log)
            if live and proc.poll() is not None and _live.web_refused(_read(output)):
                print(_PREFIX + "no live display: " + _read(output).strip().split("\n")[0])
                proc = start(cmd)
                _wait_ready(proc, log)
            status = proc.poll()
            if live and status is None:
                display = _live.start(ipython, output, lambda: proc.poll() is None)
            if status is not None:
                _show_text(_read(output))
                print(_PREFIX + "gpumon ended before the cell ran (exit status %d); running the cell without it"
                      % status)
                _raise_again(ipython.run_cell(cell))
                return None
            saved_env = os.environ.get("GPUMON_STEPS")
            os.environ["GPUMON_STEPS"] = steps
            saved = _state.reset()
            try:
                result = ipython.run_cell(cell)
            finally:
                try:
                    _state.done()
                finally:
                    _state.restore(saved)
                    if saved_env is None:
                        os.environ.pop("GPUMON_STEPS", None)
                    else:
                        os.environ["GPUMON_STEPS"] = saved_env
        finally:
            if display is not None:
                display.stop()
            status = _stop(proc)
        show_report = not args.no_report and os.path.exists(report)
        _show_text(_live.without_page_line(_read(output)), hide=report)
        if status is None:
            print(_PREFIX + "gpumon did not end within %g s of SIGINT and was killed" % STOP_TIMEOUT)
        elif status != 0:
            print(_PREFIX + "gpumon exited with status %d" % status)
        if show_report:
            _show_report(report)
        if dest is not None and not os.path.exists(dest):
            print(_PREFIX + "gpumon wrote no log; %s not written" % dest)
        _raise_again(result)
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_ipython_extension(ipython: Any) -> None:
    """Registers the `%%gpumon` cell magic."""
    def gpumon(line: str, cell: str) -> None:
        return run_cell_with_gpumon(ipython, line, cell)
    gpumon.__doc__ = _parser().format_help()
    ipython.register_magic_function(gpumon, magic_kind="cell", magic_name="gpumon")
