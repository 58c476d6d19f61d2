#!/usr/bin/env python3
"""The hold-out's host models and its judge (tests/cli/test_holdout.sh).

host NAME LOG
    Rewrites the host figures of a JSON Lines log recorded from tests/holdout/NAME.scn. The
    simulated GPUs play on a real host whose CPU and I/O belong to whatever else runs (other tests),
    so every record's host figures are set to what the scenario's host would show, as a function of
    the scenario's time (from the first record) and of the scenario's own traces: `gpumon run`'s job
    figures where the scenario says what the job does, a quiet host elsewhere.
gap LOG
    Prints the longest time between two records of LOG, in seconds.
check DIR EXPECT KNOWN
    Judges DIR/NAME.json (gpumon diagnose --format json, default window and thresholds) against the
    expectations in EXPECT, one per line: NAME GPUS CHECK [ARG...], GPUS as 0-3, 0,2 or 5:
      has R          R is among the GPU's verdicts
      not R[,R...]   none of them is
      only R[,R...]  the verdicts are exactly these
      none           no verdict at all
      end R          R holds at the end
      end-any R[,R...] one of them holds at the end
      not-end R      R does not hold at the end
      held R F       R held at least F of the judged time (the log's duration less one window)
      end-problem    a warning or critical verdict holds at the end
      share C MIN MAX  the ledger's cause C (compute, input_wait, startup, pause, stalled, idle,
                     throttled, lost) took MIN to MAX percent of the GPU's observed time
    KNOWN lists expectations (same form, then `# why`) that gpumon does not meet yet: they are
    reported XFAIL; one that passes is XPASS, and fails the test until it leaves the list.
    Prints one line per GPU and check, then the pass counts; exits 1 on FAIL or XPASS.
"""
import bisect
import datetime
import json
import os
import random
import sys
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
Host = Dict[str, Any]


def trace(name: str) -> Callable[[float], float]:
    ts: List[float] = []
    vs: List[float] = []
    with open(os.path.join(HERE, name + ".csv")) as f:
        for line in f:
            if line[:1].isdigit():
                t, v = line.split(",")
                ts.append(float(t))
                vs.append(float(v))

    def at(t: float) -> float:
        i = bisect.bisect_right(ts, t)
        if i == 0:
            return vs[0]
        if i == len(ts):
            return vs[-1]
        f = (t - ts[i - 1]) / (ts[i] - ts[i - 1])
        return vs[i - 1] + f * (vs[i] - vs[i - 1])
    return at


def quiet(t: float, rnd: random.Random) -> Host:
    return {"host.cpu.user": round(6 + rnd.uniform(-1, 1), 1), "host.cpu.system": 1.5, "host.cpu.iowait": 0.3}


def shard_stalls(t: float, rnd: random.Random) -> Host:
    """64 cores; 4 ranks + 8 readers. Waiting for a shard: iowait ~30%, the job reading ~200 MB/s,
    its processes blocked on I/O. Computing: each rank's main thread drives the GPU (a core each)."""
    if SHARDS(t) < 50:
        return {"host.cpu.count": 64, "host.cpu.user": 4.0, "host.cpu.system": 3.1,
                "host.cpu.iowait": round(30 + rnd.uniform(-6, 6), 1), "job.cpu": round(0.6 + rnd.uniform(-.2, .2), 2),
                "job.cpu.top": 0.3, "job.rss": 38000, "job.processes": 13,
                "job.io.read": int(205000 + rnd.uniform(-35000, 35000))}
    return {"host.cpu.count": 64, "host.cpu.user": 8.5, "host.cpu.system": 2.0,
            "host.cpu.iowait": round(4 + rnd.uniform(-2, 2), 1), "job.cpu": round(4.4 + rnd.uniform(-.3, .3), 2),
            "job.cpu.top": 1.0, "job.rss": 38000, "job.processes": 13, "job.io.read": int(12000 + rnd.uniform(-5000, 5000))}


def gh200_checkpoint(t: float, rnd: random.Random, util: Optional[Callable[[float], float]] = None) -> Host:
    """72 Grace cores. Checkpoint: writing (iowait ~22%), each rank serializing on one core."""
    if (util or GH200)(t) < 50:
        return {"host.cpu.count": 72, "host.cpu.user": 6.2, "host.cpu.system": 4.0,
                "host.cpu.iowait": round(22 + rnd.uniform(-5, 5), 1), "job.cpu": round(4.3 + rnd.uniform(-.3, .3), 2),
                "job.cpu.top": 1.0, "job.rss": 61000, "job.processes": 21, "job.io.read": 0}
    return {"host.cpu.count": 72, "host.cpu.user": 13.0, "host.cpu.system": 2.0,
            "host.cpu.iowait": round(0.5 + rnd.uniform(-.3, .3), 1), "job.cpu": round(9.5 + rnd.uniform(-.8, .8), 2),
            "job.cpu.top": 1.0, "job.rss": 61000, "job.processes": 21, "job.io.read": int(900 + rnd.uniform(-300, 300))}


def input_cpu_hot(t: float, rnd: random.Random) -> Host:
    """16 cores, all busy with the 12 workers' JPEG decoding and augmentation."""
    return {"host.cpu.count": 16, "host.cpu.user": round(93 + rnd.uniform(-3, 3), 1), "host.cpu.system": 4.8,
            "host.cpu.iowait": 0.4, "job.cpu": round(15.1 + rnd.uniform(-.4, .4), 2), "job.cpu.top": 1.0,
            "job.rss": 23000, "job.processes": 14, "job.io.read": int(2500 + rnd.uniform(-1500, 1500))}


def epoch_respawn(t: float, rnd: random.Random) -> Host:
    """8 vCPUs. Epoch start: 8 workers starting (imports, forks) and the sampler shuffling."""
    if EPOCHS(t) < 50:
        return {"host.cpu.count": 8, "host.cpu.user": 88.0, "host.cpu.system": 9.0, "host.cpu.iowait": 0.8,
                "job.cpu": round(7.4 + rnd.uniform(-.3, .3), 2), "job.cpu.top": 1.0, "job.rss": 14000,
                "job.processes": 10, "job.io.read": int(6000 + rnd.uniform(-2000, 2000))}
    return {"host.cpu.count": 8, "host.cpu.user": 72.0, "host.cpu.system": 6.0, "host.cpu.iowait": 0.3,
            "job.cpu": round(6.1 + rnd.uniform(-.4, .4), 2), "job.cpu.top": 0.9, "job.rss": 14000,
            "job.processes": 10, "job.io.read": int(1500 + rnd.uniform(-500, 500))}


def warmup_compile(t: float, rnd: random.Random) -> Host:
    """32 cores; inductor's compile workers busy during the warm-up."""
    user = 38.0 if t < 95 else 9.0
    return {"host.cpu.count": 32, "host.cpu.user": round(user + rnd.uniform(-3, 3), 1), "host.cpu.system": 2.5,
            "host.cpu.iowait": 0.3}


SHARDS = trace("shards")
GH200 = trace("gh200-ckpt")
GH200_COPIES = trace("gh200-ckpt-copies")
EPOCHS = trace("epochs")
MODELS: Dict[str, Callable[[float, random.Random], Host]] = {
    "shard-stalls": shard_stalls, "gh200-checkpoint": gh200_checkpoint, "input-cpu-hot": input_cpu_hot,
    "gh200-checkpoint-copies": lambda t, rnd: gh200_checkpoint(t, rnd, GH200_COPIES),
    "epoch-respawn": epoch_respawn, "warmup-compile": warmup_compile,
}


def when(ts: str) -> float:
    return datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def host(name: str, log: str) -> None:
    model = MODELS.get(name, quiet)
    recs = [json.loads(line) for line in open(log) if line.strip()]
    t0 = when(recs[0]["timestamp"]) if recs else 0.0
    with open(log, "w") as out:
        for r in recs:
            t = when(r["timestamp"]) - t0
            r.setdefault("host", {}).update(model(t, random.Random("%s %.1f" % (name, t))))
            out.write(json.dumps(r, separators=(",", ":")) + "\n")


def gap(log: str) -> None:
    ts = [when(json.loads(line)["timestamp"]) for line in open(log) if line.strip()]
    print("%.3f" % max((b - a for a, b in zip(ts, ts[1:])), default=0.0))


def gpus(spec: str) -> List[int]:
    out: List[int] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def judge(g: Dict[str, Any], check: str, args: List[str], judged_s: float) -> Tuple[bool, str]:
    vs = g["verdicts"]
    ids: Set[str] = {v["id"] for v in vs}
    at_end = {v["id"] for v in vs if v.get("at_end")}
    got = "verdicts %s, at the end %s" % (",".join(sorted(ids)) or "none", ",".join(sorted(at_end)) or "none")
    if check == "has":
        return args[0] in ids, got
    if check == "not":
        return not (ids & set(args[0].split(","))), got
    if check == "only":
        return ids == set(args[0].split(",")), got
    if check == "none":
        return not ids, got
    if check == "end":
        return args[0] in at_end, got
    if check == "end-any":
        return bool(at_end & set(args[0].split(","))), got
    if check == "not-end":
        return args[0] not in at_end, got
    if check == "held":
        held = sum(v.get("held_s", 0.0) for v in vs if v["id"] == args[0])
        return held >= float(args[1]) * judged_s, "%s held %.0f s of %.0f judged" % (args[0], held, judged_s)
    if check == "share":
        led = g.get("ledger") or {}
        total = led.get("gpu_seconds") or 0.0
        secs = (led.get("seconds") or {}).get(args[0])
        if secs is None or total <= 0:
            return False, "no ledger figure for %s" % args[0]
        pct = 100.0 * secs / total
        return float(args[1]) - 1e-6 <= pct <= float(args[2]) + 1e-6, "%s %.1f%% (%.1f of %.1f GPU-s); time %s" % (
            args[0], pct, secs, total, ", ".join("%s %.1f%%" % (k, 100.0 * v / total)
                                                for k, v in led["seconds"].items() if v > 0))
    if check == "end-problem":
        return any(v.get("at_end") and v["severity"] in ("warning", "critical") for v in vs), got
    raise SystemExit("holdout.py: unknown check %r" % check)


def expand(path: str) -> List[Tuple[str, int, str, List[str]]]:
    out = []
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if line:
            name, spec, check, args = line[0], line[1], line[2], line[3:]
            out += [(name, i, check, args) for i in gpus(spec)]
    return out


def check(d: str, expect: str, known: str) -> int:
    xfail = {(n, i, c, tuple(a)) for n, i, c, a in expand(known)}
    docs: Dict[str, Optional[Dict[str, Any]]] = {}
    bad = 0
    per: Dict[str, List[bool]] = {}
    for name, i, chk, args in expand(expect):
        if name not in docs:
            try:
                docs[name] = json.load(open(os.path.join(d, name + ".json")))
            except (OSError, ValueError):
                docs[name] = None
        doc = docs[name]
        what = "%s GPU %d %s %s" % (name, i, chk, " ".join(args))
        g = next((g for g in doc["gpus"] if g["index"] == i), None) if doc else None
        ok, got = judge(g, chk, args, doc["duration_s"] - doc["window_s"]) if g else (False, "no such GPU or no diagnosis")
        per.setdefault(name, []).append(ok)
        known_fail = (name, i, chk, tuple(args)) in xfail
        if ok and known_fail:
            print("XPASS %s (listed as known: take it off the list)" % what)
            bad += 1
        elif ok:
            print("PASS  %s" % what)
        elif known_fail:
            print("XFAIL %s: %s" % (what, got))
        else:
            print("FAIL  %s: %s" % (what, got))
            bad += 1
    checks = [ok for oks in per.values() for ok in oks]
    print("hold-out: %d of %d scenarios meet every expectation (%d of %d checks)"
          % (sum(all(oks) for oks in per.values()), len(per), sum(checks), len(checks)))
    for name, oks in per.items():
        if not all(oks):
            print("  %s: %d of %d checks" % (name, sum(oks), len(oks)))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "host":
        host(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "gap":
        gap(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4]))
    else:
        sys.exit(__doc__)
