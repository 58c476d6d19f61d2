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
"""
import argparse
import html
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

import gpumon as _core
from gpumon import _live

__all__ = ["load_ipython_extension", "find_gpumon"]

STOP_TIMEOUT = 30.0      # seconds gpumon may take to write its summary and report after SIGINT
READY_TIMEOUT = 2.0      # seconds to wait for gpumon to open its log before the cell runs
REPORT_HEIGHT = 640      # pixels of the inline report
_PREFIX = "%%gpumon: "


class _HelpShown(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        from IPython.core.error import UsageError
        raise UsageError(_PREFIX + message)

    def exit(self, status=0, message=None):
        if message:
            from IPython.core.error import UsageError
            raise UsageError(message)
        raise _HelpShown()


def _parser():
    p = _Parser(prog="%%gpumon", add_help=True,
                description="Run the cell with `gpumon run --attach` watching the GPUs and this kernel; "
                            "show gpumon's summary and report afterwards. Options not listed here go to "
                            "`gpumon run` (e.g. --sim, --scenario input-bound, --window 10s).")
    p.add_argument("-i", "--interval", metavar="DUR", help="time between samples (gpumon run --interval)")
    p.add_argument("-g", "--gpus", metavar="LIST", help="GPUs to monitor (gpumon run --gpus)")
    p.add_argument("--gpumon", metavar="PATH", help="the gpumon binary (default: $GPUMON, then gpumon on PATH)")
    p.add_argument("--log", metavar="FILE", help="keep gpumon's JSON Lines log in FILE")
    p.add_argument("--no-report", action="store_true", help="do not show the HTML report")
    p.add_argument("--no-live", action="store_true",
                   help="no live display while the cell runs (Jupyter; plain IPython has none)")
    return p


def find_gpumon(explicit=None):
    """The gpumon binary: explicit, else $GPUMON, else gpumon on PATH; None if none."""
    for candidate in (explicit, os.environ.get("GPUMON")):
        if candidate:
            path = os.path.expanduser(candidate)
            if os.sep not in path:
                found = shutil.which(path)
                if found:
                    return found
            return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which("gpumon")


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _show_text(text, hide=None):
    """Prints gpumon's output; lines naming hide (the temporary report, shown inline and then
    removed) are left out."""
    lines = [line for line in text.rstrip("\n").split("\n") if not (hide and hide in line)]
    text = "\n".join(lines).strip("\n")
    if text:
        print(text)


def _show_report(path):
    from IPython.display import HTML, display
    content = _read(path)
    if not content:
        return
    display(HTML('<iframe srcdoc="%s" style="width:100%%;height:%dpx;border:1px solid #ddd" '
                 'sandbox="allow-scripts allow-popups"></iframe>'
                 % (html.escape(content, quote=True), REPORT_HEIGHT)))


def _wait_ready(proc, log):
    """Waits until gpumon has opened its log (it is sampling) or has ended."""
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None or os.path.exists(log):
            return
        time.sleep(0.005)


def _stop(proc):
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


def run_cell_with_gpumon(ipython, line, cell):
    """The `%%gpumon` cell magic."""
    try:
        args, extra = _parser().parse_known_args(shlex.split(line))
    except _HelpShown:
        return None
    binary = find_gpumon(args.gpumon)
    if binary is None:
        from IPython.core.error import UsageError
        raise UsageError(_PREFIX + "no gpumon binary: give --gpumon PATH, set GPUMON=PATH, or put gpumon "
                         "on PATH (build it with `cmake -S . -B build && cmake --build build`)")
    tmp = tempfile.mkdtemp(prefix="gpumon-nb-")
    try:
        os.chmod(tmp, 0o700)
        steps = os.path.join(tmp, "steps")
        os.mkdir(steps, 0o700)
        log = os.path.join(tmp, "log.jsonl")
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
                ipython.run_cell(cell)
                return None
            saved_env = os.environ.get("GPUMON_STEPS")
            os.environ["GPUMON_STEPS"] = steps
            saved = _core._reset()
            try:
                ipython.run_cell(cell)
            finally:
                try:
                    _core.done()
                finally:
                    _core._restore(saved)
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
        if args.log:
            dest = os.path.expanduser(args.log)
            if os.path.exists(log):
                shutil.copyfile(log, dest)
            else:
                print(_PREFIX + "gpumon wrote no log; %s not written" % dest)
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_ipython_extension(ipython):
    """Registers the `%%gpumon` cell magic."""
    def gpumon(line, cell):
        return run_cell_with_gpumon(ipython, line, cell)
    gpumon.__doc__ = _parser().format_help()
    ipython.register_magic_function(gpumon, magic_kind="cell", magic_name="gpumon")
