"""gpumon._live: the live display of `%%gpumon` in Jupyter (private; notebook.py calls it).

While the cell runs, `gpumon run --attach` serves its live page on 127.0.0.1 (`--web 127.0.0.1:0`,
a port of its choosing, said on its standard error); a thread here asks that page's API
(api/v1/state, api/v1/history) every UPDATE_S seconds and updates one display in the cell's output:
per GPU a sparkline of utilization and of SM activity (GPM), the latest values and the verdict that
holds; the job's steps per second and input wait where the loop reports its steps. When the cell
ends the display keeps its last frame, marked as ended, and notebook.py shows the summary and report
as before. Only a Jupyter kernel can update a display in place: plain IPython keeps text (in_notebook
says which). Standard library only; every name and text from gpumon is escaped.
"""
import html
import json
import re
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

__all__: List[str] = []   # private: notebook.py is the user

UPDATE_S = 2.0            # seconds between updates of the display
SPARK_S = 120.0           # seconds of history a sparkline shows
URL_TIMEOUT = 5.0         # seconds to wait for gpumon to say where its page is
FETCH_TIMEOUT = 2.0       # seconds one API request may take
WEB_ADDRESS = "127.0.0.1:0"
_PAGE_LINE = re.compile(r"^gpumon run: the live page is at (https?://\S+)$", re.M)
_SEVERITY = {"critical": 0, "warning": 1, "info": 2, "ok": 3}
_COLORS = {"critical": "#c62828", "warning": "#c77700", "info": "#4b7bbd", "ok": "#2e8b57"}

Json = Dict[str, Any]


def in_notebook(ipython: Any) -> bool:
    """True inside a Jupyter kernel (a display can be updated in place), False in plain IPython."""
    return getattr(ipython, "kernel", None) is not None


def page_url(output_path: str, alive: Callable[[], bool], timeout: float = URL_TIMEOUT) -> Optional[str]:
    """The URL gpumon run printed for its live page in output_path (its standard error), waiting up to
    timeout seconds while alive() holds; None if it said none."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(output_path, "rb") as f:
                m = _PAGE_LINE.search(f.read().decode("utf-8", "replace"))
        except OSError:
            m = None
        if m:
            return m.group(1)
        if time.monotonic() > deadline or not alive():
            return None
        time.sleep(0.02)


def without_page_line(text: str) -> str:
    """gpumon's output without the line naming its page (the page is gone once the cell has ended)."""
    return re.sub(r"(?m)^gpumon run: the live page is at \S+\n?", "", text)


def _number(v: Any) -> Optional[float]:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v else None


def sparkline(values: Sequence[Optional[float]], top: float, width: int = 120, height: int = 22) -> str:
    """An inline SVG of values (oldest first; None breaks the line) on a 0..top scale."""
    pts: List[List[Tuple[float, float]]] = [[]]
    n = len(values)
    top = top if top > 0 else 1.0
    for i, v in enumerate(values):
        x = width * (i + 0.5) / n if n else 0.0
        f = _number(v)
        if f is None:
            pts.append([])
            continue
        y = height - 1 - min(max(f, 0.0), top) / top * (height - 3)
        pts[-1].append((x, y))
    lines = "".join('<polyline fill="none" stroke="#2f6fd6" stroke-width="1.3" points="%s"/>'
                    % " ".join("%.1f,%.1f" % p for p in run) for run in pts if run)
    return ('<svg width="%d" height="%d" viewBox="0 0 %d %d" style="vertical-align:middle;background:#f3f5f8">'
            '<line x1="0" y1="%d" x2="%d" y2="%d" stroke="#dde1e6"/>%s</svg>'
            % (width, height, width, height, height - 0.5, width, height - 0.5, lines))


def _fmt(v: Any, unit: str = "%") -> str:
    f = _number(v)
    if f is None:
        return "–"
    return ("%.0f%s" % (f, unit)) if unit == "%" else ("%.1f" % f if f < 100 else "%.0f" % f)


def render(state: Json, history: Json, ended: bool = False) -> str:
    """The display's HTML for one state and history of the API (docs/serve.md, "The live page")."""
    rec = state.get("record") or {}
    gpus = rec.get("gpus") or []
    hist = {g.get("uuid"): g.get("series", {}) for g in history.get("gpus", [])}
    worst: Dict[int, Json] = {}
    for v in state.get("verdicts") or []:
        w = worst.get(v.get("gpu"))
        if w is None or _SEVERITY.get(v.get("severity"), 9) < _SEVERITY.get(w.get("severity"), 9):
            worst[v.get("gpu")] = v
    esc = html.escape
    head = ["<b>gpumon</b>", esc(str(rec.get("hostname") or state.get("hostname") or ""))]
    job = state.get("job")
    if job:
        head.append('<span data-steps-per-s="%s">%s steps/s</span>' % (esc(str(job.get("steps_per_s"))),
                                                                      _fmt(job.get("steps_per_s"), "")))
        if _number(job.get("input_wait")) is not None:
            head.append("input wait %s" % _fmt(job.get("input_wait")))
    head.append("ended" if ended else "live, every %g s" % UPDATE_S)
    rows = []
    for g in gpus:
        series = hist.get(g.get("uuid"), {})
        cells = ['<td style="padding:2px 8px"><b>GPU %s</b> <span style="color:#66707a">%s</span></td>'
                 % (esc(str(g.get("index"))), esc(str(g.get("name") or "")))]
        for key, label in (("utilization.gpu", "util"), ("gpm.sm_active", "SM")):
            cells.append('<td style="padding:2px 8px" data-key="%s">%s <span style="color:#66707a">%s</span> %s</td>'
                         % (key, sparkline(series.get(key, []), 100), label, _fmt(g.get(key))))
        v = worst.get(g.get("index"))
        if v:
            color = _COLORS.get(v.get("severity"), "#66707a")
            cells.append('<td style="padding:2px 8px" data-verdict="%s"><span style="color:#fff;background:%s;'
                         'padding:0 5px;border-radius:3px;font-size:11px">%s</span> %s</td>'
                         % (esc(str(v.get("rule"))), color, esc(str(v.get("rule"))), esc(str(v.get("title")))))
        else:
            cells.append('<td style="padding:2px 8px;color:#66707a">no verdict yet</td>')
        rows.append("<tr>%s</tr>" % "".join(cells))
    if not gpus:
        rows.append('<tr><td style="color:#66707a">no GPU watched</td></tr>')
    return ('<div class="gpumon-live" style="font:13px system-ui,sans-serif">'
            '<div style="margin:2px 0 4px">%s</div><table style="border-collapse:collapse">%s</table></div>'
            % (" · ".join(head), "".join(rows)))


def _waiting(ended: bool) -> str:
    return ('<div class="gpumon-live" style="font:13px system-ui,sans-serif;color:#66707a"><b>gpumon</b> · %s</div>'
            % ("ended before its page had data" if ended else "waiting for the first sample…"))


class LiveDisplay(object):
    """Updates one display from gpumon run's page at url every update_s seconds, on its own thread,
    until stop(). show(html) makes the display and returns a function that updates it."""

    def __init__(self, url: str, show: Callable[[str], Callable[[str], None]], update_s: float = UPDATE_S) -> None:
        self.url = url.rstrip("/") + "/"
        self.update_s = update_s
        self.updates = 0
        self.errors = 0
        self._update = show(_waiting(False))
        self._last: Optional[Tuple[Json, Json]] = None
        self._stop = threading.Event()
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # 127.0.0.1: no proxy
        self._thread = threading.Thread(target=self._loop, name="gpumon-live", daemon=True)
        self._thread.start()

    def _get(self, path: str) -> Json:
        with self._opener.open(self.url + path, timeout=FETCH_TIMEOUT) as r:
            data: Json = json.loads(r.read().decode("utf-8"))
            return data

    def refresh(self) -> bool:
        """One update from the API; False when gpumon did not answer (the display stays as it was)."""
        try:
            state = self._get("api/v1/state")
            history = self._get("api/v1/history?seconds=%g" % SPARK_S)
        except (OSError, ValueError, urllib.error.URLError):
            self.errors += 1
            return False
        self._last = (state, history)
        self._update(render(state, history))
        self.updates += 1
        return True

    def _loop(self) -> None:
        self.refresh()
        while not self._stop.wait(self.update_s):
            self.refresh()

    def stop(self) -> None:
        """Stops updating; the display keeps its last frame, marked as ended."""
        self._stop.set()
        self._thread.join(FETCH_TIMEOUT * 2 + 1)
        self.refresh()
        last = self._last
        self._update(render(last[0], last[1], ended=True) if last else _waiting(True))


def start(ipython: Any, output_path: str, alive: Callable[[], bool]) -> Optional[LiveDisplay]:
    """The live display for the gpumon run writing output_path, or None when gpumon names no page."""
    url = page_url(output_path, alive)
    if url is None:
        return None
    from IPython.display import HTML, display

    def show(first: str) -> Callable[[str], None]:
        handle = display(HTML(first), display_id=True)

        def update(text: str) -> None:
            if handle is not None:
                handle.update(HTML(text))
        return update
    return LiveDisplay(url, show)


def web_refused(output: str) -> bool:
    """Whether gpumon's output says it could not serve the page (built without the exporter module)."""
    return "gpumon run: --web" in output
