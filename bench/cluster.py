#!/usr/bin/python3
"""cluster.py: a simulated GPU cluster on a real Prometheus, and past one.

Starts N nodes of `gpumon serve`, each with 8 simulated H100s, on its own
loopback address (127.0.1.1, 127.0.1.2, ...; one port for all), with its own
host name (a UTS namespace per node, as root) and its own job mapping
directory, playing a mix of scenarios built per GPU: most GPUs train at ~93%,
some wait on their input (utilization swinging 1-60%), one node of a 3-node
job runs at 55% (the slow node), some GPUs sit idle while a job holds them,
one job per group of nodes hangs holding memory (stalled), some GPUs belong to
no job. Each job belongs to a user, whose real processes (a `sleep` per user,
run under the user's uid as root) are the simulated GPUs' processes, so
`--collect.processes` names the user as on a real node.

Then one real Prometheus scrapes every node with the shipped configuration
(deploy/prometheus/prometheus.yml's file_sd job, gpumon-alerts.yml and
gpumon-rules.yml); with --agents, two more Prometheus servers in agent mode
(deploy/prometheus/prometheus-agent.yml) each scrape half of the nodes and
remote-write to a central one (prometheus-central.yml, started with
--web.enable-remote-write-receiver), at the same time. After --seconds it
measures, prints every figure, checks the answers (--check: the queries must
return what the scenarios say, on the single server and on the central one,
and the two must agree), and stops everything it started, whatever happens.

Figures: series per node and per GPU (by collector), scrape duration p50/p99
per target, each exporter's CPU and RSS, each Prometheus's CPU, RSS, head
series and ingest rate, the evaluation time of the recording rules and of
every dashboard query, and the per-node cost against dcgm-exporter's defaults
(its etc/default-counters.csv: 25 fields per GPU, collected every 30 s) at the
same scrape interval, with the ratio; and an extrapolation to 64 nodes when
fewer ran.

Usage: bench/cluster.py [--build DIR] [--nodes N] [--seconds S] [--speed X]
         [--scrape-interval DUR] [--agents] [--check]
The bench: bench/cluster.py --nodes 64 --agents   (needs Debian's prometheus)
The test:  tests/cli/test_cluster.sh (4 nodes fast-played, --agents --check)
Needs /usr/bin/python3 with python3-yaml.
"""
import argparse, json, math, os, pwd, re, signal, socket, statistics, subprocess, sys, tempfile, time
import urllib.parse, urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
DEPLOY = os.path.join(SRC, "deploy")
PROM_DIR = os.path.join(DEPLOY, "prometheus")
DASHBOARDS = [os.path.join(DEPLOY, "grafana", f) for f in ("gpumon-dashboard.json", "gpumon-cluster-dashboard.json")]

# dcgm-exporter's defaults: the active lines of etc/default-counters.csv in NVIDIA/dcgm-exporter (read at
# commit d5e5f51, 2026-05-12; the file last changed in e61056b, 2025-12-04): 25 fields, one series per GPU
# each, plus DCGM_FI_DRIVER_VERSION as a label; collected every 30 s (-c 30000).
DCGM_DEFAULT_FIELDS = [
    "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_GPU_TEMP",
    "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
    "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_ENC_UTIL", "DCGM_FI_DEV_DEC_UTIL",
    "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_RESERVED",
    "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "DCGM_FI_DEV_VGPU_LICENSE_STATUS",
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
    "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
    "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES"]
DCGM_DEFAULT_INTERVAL_S = 30
GPUS_PER_NODE = 8
# The series budget at the defaults (docs/serve.md): per GPU (readings 62 on a GPU with GPM, verdicts about 6,
# room for the ledger's causes) and per node (the host's and the exporter's own).
BUDGET_PER_GPU, BUDGET_PER_NODE = 80, 20

# What a simulated GPU does (scenario lines under its `gpu K` block; {pid}: its user's process) and its
# main cause in the exporter's ledger (gpumon_gpu_time_seconds_total; LEDGER_SHARES has every cause's share).
ROLES = {
    "busy": ("util.gpu = sine(93, 3, 45) + noise(2)\n  util.mem = sine(50, 6, 45) + noise(3)\n"
             "  power = sine(600, 30, 45) + noise(15)\n  temperature = ramp(40, 64, 0, 180) + noise(1)\n"
             "  process {pid} python3 train.py memory=const(62 GiB)\n", "compute"),
    "slow": ("util.gpu = const(55) + noise(3)\n  util.mem = const(30) + noise(2)\n  power = const(380) + noise(10)\n"
             "  temperature = const(52) + noise(1)\n  process {pid} python3 train.py memory=const(62 GiB)\n", "compute"),
    "input": ("util.gpu = square(1, 60, 2.0, 0.45) + noise(3)\n  util.mem = square(0, 25, 2.0, 0.45) + noise(2)\n"
              "  power = square(110, 330, 2.0, 0.45) + noise(8)\n  temperature = sine(48, 2, 120)\n"
              "  process {pid} python3 train.py --workers 1 memory=const(30 GiB)\n", "input_wait"),
    "idle": ("util.gpu = const(0)\n  power = const(72) + noise(3)\n  temperature = const(31) + noise(1)\n", "idle"),
    "stalled": ("util.gpu = const(0)\n  power = const(95) + noise(3)\n  temperature = const(36) + noise(1)\n"
                "  process {pid} python3 train.py memory=const(40 GiB)\n", "stalled"),
}
# Each role's share of its GPU's time by cause in the ledger: a steady 55% computes all the time; the
# loader's swing idles 55% of each 2 s (square(1, 60, 2.0, 0.45)), input wait once the input verdict
# speaks (the ledger then takes the gaps since the start, within its horizon of a window and a start-up).
LEDGER_SHARES = {"busy": {"compute": 1.0}, "slow": {"compute": 1.0}, "input": {"input_wait": 0.55, "compute": 0.45},
                 "idle": {"idle": 1.0}, "stalled": {"stalled": 1.0}}
# Scenario seconds after an exporter starts before the ledger decides a cause: at once, but for the input
# wait (when the input verdict speaks: the 30 s window at 80% coverage) and a stall (stall.seconds, 120 s
# idle holding memory), each then for the whole time since the start.
ONSET_S = {"compute": 0, "input_wait": 24, "idle": 0, "stalled": 120}
RETRO_CAUSES = ("input_wait", "stalled")   # decided late, for the time since the start
NODE_HEADER = """seed {seed}
driver 610.43.02
cuda 13030

gpu 0-7
  name NVIDIA H100 80GB HBM3
  memory_total 81559 MiB
  memory_reserved 530 MiB
  power_limit 700 W
  clock_max sm=1980 mem=2619 graphics=1980 video=1545
  pcie gen=5 width=16 max_gen=5 max_width=16
"""
USERS = ["alice", "bob", "carol", "dave", "erin", "frank"]
FIRST_UID = 20001


def layout(n):
    """The nodes: groups of 4 (a 3-node job A, the second node with two idle GPUs held by A, the third
    the slow node in group 0 only; the fourth: in even groups a 6-GPU input-bound job B, a stalled 1-GPU
    job C and a free GPU, in odd groups a 1-node job D), left-over nodes 1-node jobs. Returns
    (nodes, jobs): nodes = [{name, roles[8], jobs[8]}], jobs = {job: user}."""
    nodes, jobs = [], {}

    def node(roles, js):
        nodes.append({"name": "node-%02d" % (len(nodes) + 1), "roles": roles, "jobs": js})
    for g in range(n // 4):
        a, b, c, d = ("%d" % (1000 + 10 * g + k) for k in range(4))
        jobs[a] = USERS[(3 * g) % len(USERS)]
        node(["busy"] * 8, [a] * 8)
        node(["busy"] * 6 + ["idle"] * 2, [a] * 8)
        node(["slow" if g == 0 else "busy"] * 8, [a] * 8)
        if g % 2 == 0:
            jobs[b] = USERS[(3 * g + 1) % len(USERS)]
            jobs[c] = USERS[(3 * g + 2) % len(USERS)]
            node(["input"] * 6 + ["stalled", "idle"], [b] * 6 + [c, None])
        else:
            jobs[d] = USERS[(3 * g + 1) % len(USERS)]
            node(["busy"] * 8, [d] * 8)
    for _ in range(n % 4):
        j = "%d" % (9000 + len(nodes))
        jobs[j] = USERS[len(nodes) % len(USERS)]
        node(["busy"] * 8, [j] * 8)
    for i, nd in enumerate(nodes):
        nd["addr"] = "127.0.%d.%d" % (1 + i // 250, 1 + i % 250)
    return nodes, jobs


class Cluster:
    """Everything started, to stop it whatever happens."""

    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="gpumon-cluster-")
        self.procs = []      # (name, Popen)
        self.failures = []
        self.build = os.path.abspath(args.build)
        self.gpumon = os.path.join(self.build, "gpumon")
        self.sim = os.path.join(self.build, "sim", "libnvidia-ml.so.1")

    # ---- processes ----
    def start(self, name, cmd, env=None, log=None):
        out = open(log or os.path.join(self.tmp, name + ".log"), "wb")
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out.close()
        self.procs.append((name, p))
        if self.args.pid_file:
            with open(self.args.pid_file, "a") as f:
                f.write("%d %s\n" % (p.pid, name))
        return p

    def stop_all(self):
        """SIGTERM to each, the last started first (agents before the server they write to, servers before
        the nodes), 15 s for all; SIGKILL after that. Exporters and Prometheus servers must exit 0."""
        deadline = time.monotonic() + 15
        bad = []
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
            try:
                rc = p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                rc = "killed after 15 s"
            if rc != 0 and not name.startswith("user-"):
                bad.append("%s exited %s" % (name, rc))
        self.procs = []
        return bad

    def cleanup(self):
        self.stop_all()
        if not self.args.keep:
            subprocess.run(["rm", "-rf", self.tmp])
        else:
            print("kept %s" % self.tmp)


def free_port(prefer=None):
    """A TCP port free on every address (bound on 0.0.0.0 to see), prefer's if it is."""
    for p in ([prefer] if prefer else []) + [0]:
        s = socket.socket()
        try:
            s.bind(("0.0.0.0", p))
            return s.getsockname()[1]
        except OSError:
            continue
        finally:
            s.close()
    raise SystemExit("no free port")


def http(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


def wait_for(what, cond, seconds, procs=()):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if cond():
                return True
        except OSError:
            pass
        for name, p in procs:
            if p.poll() is not None:
                raise SystemExit("%s exited (%s) while waiting for %s" % (name, p.returncode, what))
        time.sleep(0.2)
    raise SystemExit("timed out after %d s waiting for %s" % (seconds, what))


class Prom:
    """A Prometheus server's HTTP API."""

    def __init__(self, name, port, proc):
        self.name, self.url, self.proc = name, "http://127.0.0.1:%d" % port, proc

    def api(self, path, **params):
        r = json.loads(http(self.url + "/api/v1/" + path + "?" + urllib.parse.urlencode(params), timeout=60))
        if r.get("status") != "success":
            raise RuntimeError("%s: %s" % (self.name, r))
        return r["data"]

    def query(self, expr, t=None, stats=False):
        params = {"query": expr}
        if t is not None:
            params["time"] = "%.3f" % t
        if stats:
            params["stats"] = "all"
        return self.api("query", **params)

    def vector(self, expr, t=None):
        """{frozenset of (label, value) without __name__: float}"""
        d = self.query(expr, t)
        if d["resultType"] == "scalar":
            return {frozenset(): float(d["result"][1])}
        return {frozenset((k, v) for k, v in s["metric"].items() if k != "__name__"): float(s["value"][1])
                for s in d["result"]}

    def metrics(self):
        """Its own /metrics, as {name{labels}: value} lines parsed loosely."""
        out = {}
        for line in http(self.url + "/metrics").decode().splitlines():
            if line and not line.startswith("#"):
                k, _, v = line.rpartition(" ")
                try:
                    out[k] = float(v)
                except ValueError:
                    pass
        return out


def proc_stat(pid):
    """(CPU seconds, VmRSS KiB, VmHWM KiB) of a process."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    with open("/proc/%d/status" % pid) as f:
        st = f.read()
    return cpu, int(re.search(r"VmRSS:\s+(\d+)", st).group(1)), int(re.search(r"VmHWM:\s+(\d+)", st).group(1))


def parse_metrics(text):
    """[(family, labels dict)] of the series in a text exposition."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? ", line)
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out.append((m.group(1), labels))
    return out


def collector_of(family):
    if family.startswith("gpumon_process_"):
        return "--collect.processes"
    if family.startswith("gpumon_user_"):
        return "--collect.processes: accounting per user"
    if family == "gpumon_gpu_job_info" or family.startswith("gpumon_job_"):
        return "--hpc-job-mapping-dir"
    if family.startswith("gpumon_diagnosis_"):
        return "defaults: verdicts"
    if family.startswith("DCGM_"):
        return "--compat dcgm"
    return "defaults: readings"


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo = math.floor(k)
    return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (k - lo)


def dur_s(text):
    m = re.fullmatch(r"(\d+)(ms|s|m)", text)
    if not m:
        raise SystemExit("bad duration %r (e.g. 500ms, 15s, 1m)" % text)
    return int(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60}[m.group(2)]


def dashboard_exprs(path, values):
    """(where, expr) of every query of a dashboard, through tests/cli/dashboard.py (the deploy tests' reader)."""
    if not os.path.exists(path):
        return []
    out = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests", "cli", "dashboard.py"), "exprs", path] +
                         ["%s=%s" % kv for kv in values.items()], capture_output=True, text=True, check=True).stdout
    return [tuple(line.split("\t", 1)) for line in out.splitlines() if "\t" in line]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=180, help="run time once every target is up (default 180)")
    ap.add_argument("--speed", type=float, default=1, help="GPUMON_SIM_SPEED of the nodes (default 1: real time)")
    ap.add_argument("--scrape-interval", default="15s", help="Prometheus scrape and evaluation interval (15s)")
    ap.add_argument("--agents", action="store_true", help="also two agents remote-writing to a central server")
    ap.add_argument("--check", action="store_true", help="exit 1 unless every known answer is found")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--pid-file", help="append each started process's pid and name to this file")
    args = ap.parse_args()
    if args.nodes < 4:
        raise SystemExit("--nodes: at least 4 (the slow node's job spans 3)")
    for tool in ("prometheus", "promtool"):
        if subprocess.run(["sh", "-c", "command -v " + tool], stdout=subprocess.DEVNULL).returncode:
            raise SystemExit("%s is not installed (apt-get install prometheus)" % tool)
    if args.agents and "--web.enable-remote-write-receiver" not in subprocess.run(
            ["prometheus", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout:
        raise SystemExit("--agents: this Prometheus has no agent mode (2.32) or remote-write receiver flag (2.33): "
                         "run without --agents, or with a newer Prometheus")
    cl = Cluster(args)
    if not os.access(cl.gpumon, os.X_OK) or not os.path.exists(cl.sim):
        raise SystemExit("no gpumon build in %s" % cl.build)

    def on_signal(signum, frame):
        raise SystemExit("interrupted by signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    t_begin = time.monotonic()
    try:
        run(cl)
    finally:
        bad = cl.stop_all()
        for b in bad:
            print("FAIL: %s" % b)
        cl.failures += bad
        cl.cleanup()
    print("total wall time %.0f s" % (time.monotonic() - t_begin))
    if args.check and cl.failures:
        print("%d checks failed" % len(cl.failures))
        sys.exit(1)


def run(cl):
    args, tmp = cl.args, cl.tmp
    si = dur_s(args.scrape_interval)
    nodes, jobs = layout(args.nodes)
    root = os.geteuid() == 0
    # Users: as root, real processes under their own uids, and (with a mount namespace per node) their names
    # in that node's /etc/passwd; otherwise every process is this user's.
    passwd = os.path.join(tmp, "passwd")
    with open("/etc/passwd") as f, open(passwd, "w") as out:
        out.write(f.read())
        for i, u in enumerate(USERS):
            out.write("%s:x:%d:%d::/nonexistent:/usr/sbin/nologin\n" % (u, FIRST_UID + i, FIRST_UID + i))
    ns = root and subprocess.run(
        ["unshare", "--uts", "--mount", "sh", "-c", 'hostname node-probe && mount --bind "$0" /etc/passwd && '
         'test "$(hostname)" = node-probe && getent passwd alice > /dev/null', passwd],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    me = pwd.getpwuid(os.geteuid()).pw_name

    def user_label(u):
        return u if ns else str(FIRST_UID + USERS.index(u)) if root else me
    users_pid = {}
    for i, u in enumerate(sorted(set(jobs.values()))):
        uid = FIRST_UID + USERS.index(u)
        cmd = (["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups"] if root else []) + \
            ["sleep", "infinity"]
        users_pid[u] = cl.start("user-" + u, cmd).pid
    port = free_port(9445)
    print("working in %s (removed at the end)" % tmp)
    print("cluster: %d nodes x %d simulated H100s = %d GPUs, %d jobs of %d users; nodes on 127.0.x.y:%d%s; "
          "users %s; speed %gx; scrape and evaluation every %s%s"
          % (len(nodes), GPUS_PER_NODE, len(nodes) * GPUS_PER_NODE, len(jobs), len(set(jobs.values())), port,
             ", own host names (UTS namespaces)" if ns else " (no namespaces: not root or no unshare; one host name)",
             "by name" if ns else "by uid" if root else "all %s (not root)" % me, args.speed,
             args.scrape_interval, "; two agents and a central server too" if args.agents else ""))

    # ---- the nodes ----
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMON_")}
    env["GPUMON_SIM_CLOCK_DIR"] = tmp   # each node's scenario its own clock, in this run's directory
    if args.speed != 1:
        env["GPUMON_SIM_SPEED"] = "%g" % args.speed
    exporters = []
    t_start = time.time()
    for i, nd in enumerate(nodes):
        d = os.path.join(tmp, nd["name"])
        os.makedirs(os.path.join(d, "jobs"))
        scn = NODE_HEADER.format(seed=100 + i)
        for g, (role, job) in enumerate(zip(nd["roles"], nd["jobs"])):
            pid = users_pid[jobs[job]] if job else 0
            scn += "\ngpu %d\n  " % g + ROLES[role][0].format(pid=pid)
            if job:
                with open(os.path.join(d, "jobs", str(g)), "w") as f:
                    f.write(job + "\n")
        with open(os.path.join(d, "node.scn"), "w") as f:
            f.write(scn)
        cmd = [cl.gpumon, "serve", "--nvml", cl.sim, "--scenario", os.path.join(d, "node.scn"),
               "--web.listen-address", "%s:%d" % (nd["addr"], port), "--hpc-job-mapping-dir",
               os.path.join(d, "jobs"), "--collect.processes"]
        if ns:
            cmd = ["unshare", "--uts", "--mount", "sh", "-c",
                   'hostname "$0" && mount --bind "$1" /etc/passwd && shift && exec "$@"', nd["name"], passwd] + cmd
        nd["t0"] = time.time()
        nd["proc"] = cl.start(nd["name"], cmd, env=env)
        nd["url"] = "http://%s:%d/metrics" % (nd["addr"], port)
        nd["instance"] = "%s:%d" % (nd["name"], port)
        exporters.append((nd["name"], nd["proc"]))
    cl.node_urls = [nd["url"] for nd in nodes]
    for nd in nodes:
        wait_for(nd["name"] + "'s /metrics", lambda nd=nd: http(nd["url"], 2) is not None, 60, exporters)

    # ---- Prometheus: the shipped configurations with this run's targets and paths ----
    fsd = os.path.join(tmp, "file_sd")
    os.makedirs(fsd)
    half = (len(nodes) + 1) // 2
    for name, part in (("all", nodes), ("shard-0", nodes[:half]), ("shard-1", nodes[half:])):
        with open(os.path.join(fsd, name + ".json"), "w") as f:
            json.dump([{"targets": ["%s:%d" % (nd["addr"], port)], "labels": {"instance": nd["instance"]}}
                       for nd in part], f)
    for f in ("gpumon-alerts.yml", "gpumon-rules.yml"):
        subprocess.run(["cp", os.path.join(PROM_DIR, f), tmp], check=True)
    rules = [os.path.join(tmp, "gpumon-alerts.yml"), os.path.join(tmp, "gpumon-rules.yml")]
    gl = {"scrape_interval": args.scrape_interval, "scrape_timeout": "%gs" % min(si, 10),
          "evaluation_interval": args.scrape_interval}
    shipped = yaml.safe_load(open(os.path.join(PROM_DIR, "prometheus.yml")))
    sd_job = [j for j in shipped["scrape_configs"] if "file_sd_configs" in j][0]
    sd_job.update(job_name="gpumon", file_sd_configs=[{"files": [os.path.join(fsd, "all.json")], "refresh_interval": "5m"}])
    shipped.update({"global": gl, "rule_files": rules, "scrape_configs": [sd_job]})
    servers = {}

    def prometheus(name, cfg, extra):
        path = os.path.join(tmp, name + ".yml")
        with open(path, "w") as f:
            yaml.safe_dump(cfg, f)
        chk = subprocess.run(["promtool", "check", "config", path], capture_output=True, text=True)
        if chk.returncode:
            raise SystemExit("promtool check config %s: %s" % (name, chk.stdout + chk.stderr))
        p = free_port()
        proc = cl.start(name, ["prometheus", "--config.file=" + path, "--web.listen-address=127.0.0.1:%d" % p,
                               "--log.level=warn"] + extra)
        servers[name] = Prom(name, p, proc)
        return servers[name]
    single = prometheus("single", shipped, ["--storage.tsdb.path=" + os.path.join(tmp, "tsdb-single")])
    # The same server with nothing to scrape: its memory is Prometheus's own, the rest the series'.
    prometheus("empty", {"global": gl}, ["--storage.tsdb.path=" + os.path.join(tmp, "tsdb-empty")])
    central = None
    if args.agents:
        c = yaml.safe_load(open(os.path.join(PROM_DIR, "prometheus-central.yml")))
        c.update({"global": {"evaluation_interval": args.scrape_interval}, "rule_files": rules})
        central = prometheus("central", c, ["--storage.tsdb.path=" + os.path.join(tmp, "tsdb-central"),
                                            "--web.enable-remote-write-receiver"])
        for k in (0, 1):
            a = yaml.safe_load(open(os.path.join(PROM_DIR, "prometheus-agent.yml")))
            a["global"] = {"scrape_interval": args.scrape_interval, "scrape_timeout": gl["scrape_timeout"]}
            a["scrape_configs"][0]["file_sd_configs"][0]["files"] = [os.path.join(fsd, "shard-%d.json" % k)]
            a["remote_write"][0]["url"] = central.url + "/api/v1/write"
            if si < 5:   # keep the central server within a scrape of the agents in short runs
                a["remote_write"][0]["queue_config"]["batch_send_deadline"] = args.scrape_interval
            prometheus("agent-%d" % k, a, ["--enable-feature=agent",
                                           "--storage.agent.path=" + os.path.join(tmp, "wal-agent-%d" % k)])
    everything = exporters + [(s.name, s.proc) for s in servers.values()]
    for s in servers.values():
        wait_for(s.name + " ready", lambda s=s: http(s.url + "/-/ready", 2) is not None, 60, everything)
    queried = [single] + ([central] if central else [])
    for s in queried:
        wait_for("%s: every node up" % s.name,
                 lambda s=s: s.vector('count(up{job="gpumon"} == 1)').get(frozenset(), 0) == len(nodes),
                 60 + 3 * si, everything)
    t_up = time.time()
    print("every node up on %s %.1f s after the nodes started" % (" and ".join(s.name for s in queried),
                                                                      t_up - t_start))

    # ---- the run: CPU and memory of every process over it, the rules' evaluation times along it ----
    def snapshot():
        return {name: proc_stat(p.pid) for name, p in everything}
    prom0 = {s.name: s.metrics() for s in servers.values()}
    snap0, m0 = snapshot(), time.monotonic()
    rule_times = {s.name: [] for s in queried}
    seen = {s.name: set() for s in queried}
    end = m0 + args.seconds
    while time.monotonic() < end:
        time.sleep(min(max(si, 1), max(0.0, end - time.monotonic())))
        for name, p in everything:
            if p.poll() is not None:
                raise SystemExit("%s exited (%s) during the run" % (name, p.returncode))
        for s in queried:
            for g in s.api("rules")["groups"]:
                key = (g["name"], g.get("lastEvaluation"))
                if g["name"] == "gpumon-cluster" and key not in seen[s.name] and g.get("evaluationTime"):
                    seen[s.name].add(key)
                    rule_times[s.name].append((g["evaluationTime"],
                                               max((r.get("evaluationTime", 0), r["name"]) for r in g["rules"])))
    snap1, m1 = snapshot(), time.monotonic()
    prom1 = {s.name: s.metrics() for s in servers.values()}
    wall = m1 - m0
    t_end = time.time()

    # ---- figures ----
    print()
    print("== measured at N=%d nodes (%d GPUs), %.0f s, scrape every %s, speed %gx, on %s (load average %s) =="
          % (len(nodes), len(nodes) * GPUS_PER_NODE, wall, args.scrape_interval, args.speed, socket.gethostname(),
             open("/proc/loadavg").read().split()[0]))
    # Series per node and per GPU, by collector.
    per_node, budget = [], {}
    for nd in nodes:
        series = parse_metrics(http(nd["url"]).decode())
        per_node.append(len(series))
        for fam, lab in series:
            k = (collector_of(fam), "gpu" if "gpu" in lab else "node")
            budget.setdefault(k, []).append(1)
    n = len(nodes)
    print("series per node: median %d, min %d, max %d (%.1f per GPU); all nodes: %d"
          % (statistics.median(per_node), min(per_node), max(per_node), statistics.median(per_node) / GPUS_PER_NODE,
             sum(per_node)))
    print("  %-44s %8s %9s" % ("series by collector", "per GPU", "per node"))
    for coll in sorted({c for c, _ in budget}):
        g, nl = len(budget.get((coll, "gpu"), [])) / n, len(budget.get((coll, "node"), [])) / n
        print("  %-44s %8.1f %9.1f" % (coll, g / GPUS_PER_NODE, g + nl))
    defaults = sum(len(v) for (c, _), v in budget.items() if c.startswith("defaults")) / n
    d_gpu = sum(len(v) for (c, sc), v in budget.items() if c.startswith("defaults") and sc == "gpu") / n / GPUS_PER_NODE
    d_node = sum(len(v) for (c, sc), v in budget.items() if c.startswith("defaults") and sc == "node") / n
    good = d_gpu <= BUDGET_PER_GPU and d_node <= BUDGET_PER_NODE
    print("%s: series at the defaults within the budget: %.1f per GPU (at most %d), %.1f node-level (at most %d)"
          % ("ok" if good else "FAIL", d_gpu, BUDGET_PER_GPU, d_node, BUDGET_PER_NODE))
    if not good:
        cl.failures.append("series budget")
    dcgm = dcgm_series(cl, port)
    print("  %-44s %8.1f %9.1f   (one more node, measured apart)" % ("--compat dcgm", dcgm["compat"] / GPUS_PER_NODE,
                                                                     dcgm["compat"]))
    # Scrape durations.
    m = single.query('scrape_duration_seconds{job="gpumon"}[%ds]' % max(1, int(t_end - t_up)), t_end)["result"]
    pooled = [float(v) for s in m for _, v in s["values"]]
    p99s = sorted((pct([float(v) for _, v in s["values"]], 0.99), s["metric"]["instance"]) for s in m)
    p50s = [pct([float(v) for _, v in s["values"]], 0.5) for s in m]
    print("scrape duration (single server, %d scrapes of %d targets): p50 %.2f ms, p99 %.2f ms; per target: "
          "p50 median %.2f ms (highest %.2f ms), p99 median %.2f ms (highest %.2f ms, %s)"
          % (len(pooled), len(m), pct(pooled, 0.5) * 1e3, pct(pooled, 0.99) * 1e3, statistics.median(p50s) * 1e3,
             max(p50s) * 1e3, statistics.median(x[0] for x in p99s) * 1e3, p99s[-1][0] * 1e3, p99s[-1][1]))
    # Exporters.
    cpu = [(snap1[nd["name"]][0] - snap0[nd["name"]][0]) / wall for nd in nodes]
    rss = [snap1[nd["name"]][1] / 1024 for nd in nodes]
    hwm = [snap1[nd["name"]][2] / 1024 for nd in nodes]
    print("exporter CPU: mean %.2f%% of a core (%.2f ms/s; %.2f ms per collection, %g a second), max %.2f%%; "
          "all %d: %.1f%% of a core" % (statistics.mean(cpu) * 100, statistics.mean(cpu) * 1e3,
                                        statistics.mean(cpu) * 1e3 / args.speed, args.speed, max(cpu) * 100, n,
                                        sum(cpu) * 100))
    print("exporter RSS: mean %.1f MiB, max %.1f MiB, peak (VmHWM) max %.1f MiB; all %d: %.0f MiB"
          % (statistics.mean(rss), max(rss), max(hwm), n, sum(rss)))
    # Prometheus servers.
    for s in servers.values():
        if s.name == "empty":
            continue
        c = (snap1[s.name][0] - snap0[s.name][0]) / wall
        a0, a1 = prom0[s.name], prom1[s.name]
        app = [k for k in a1 if k.startswith("prometheus_tsdb_head_samples_appended_total")]
        rate = (sum(a1[k] for k in app) - sum(a0.get(k, 0) for k in app)) / wall
        head = a1.get("prometheus_tsdb_head_series", a1.get("prometheus_agent_active_series", float("nan")))
        sent = [k for k in a1 if k.startswith("prometheus_remote_storage_samples_total")]
        extra = ""
        if sent:
            extra = ", remote-wrote %.0f samples/s" % ((sum(a1[k] for k in sent) - sum(a0.get(k, 0) for k in sent)) / wall)
        print("prometheus %-8s RSS %.0f MiB (peak %.0f MiB), CPU %.1f%% of a core, %s series%s, ingest %.0f samples/s%s"
              % (s.name, snap1[s.name][1] / 1024, snap1[s.name][2] / 1024, c * 100,
                 "%d" % head if head == head else "?", " (agent: active)" if s.name.startswith("agent") else " in the head",
                 rate, extra))
    if args.agents:
        names = ("agent-0", "agent-1", "central")
        rss_a = sum(snap1[k][1] for k in names) / 1024
        cpu_a = sum(snap1[k][0] - snap0[k][0] for k in names) / wall
        cpu_s = (snap1["single"][0] - snap0["single"][0]) / wall
        print("past one server: two agents and the central one use %.0f MiB and %.1f%% of a core together, the single "
              "server %.0f MiB and %.1f%%: %.1fx the memory, %.1fx the CPU, for the same series"
              % (rss_a, cpu_a * 100, snap1["single"][1] / 1024, cpu_s * 100, rss_a * 1024 / snap1["single"][1],
                 cpu_a / cpu_s if cpu_s else float("nan")))
    for s in queried:
        t = rule_times[s.name]
        if t:
            slow = max(x[1] for x in t)
            print("recording rules (gpumon-cluster, %d rules) on %s: %d evaluations, median %.2f ms, max %.2f ms; "
                  "slowest rule %s %.2f ms" % (len(yaml.safe_load(open(rules[1]))["groups"][0]["rules"]), s.name,
                                               len(t), statistics.median(x[0] for x in t) * 1e3,
                                               max(x[0] for x in t) * 1e3, slow[1], slow[0] * 1e3))
    span = int(t_end - t_up)
    values = {"__range": "%ds" % span, "__range_s": str(span), "__rate_interval": "%ds" % max(4 * si, 1),
              "__interval": args.scrape_interval, "step": "%ds" % max(1, int(si)), "step_s": str(max(1, int(si)))}
    for s in queried:
        for dash in DASHBOARDS:
            ex = dashboard_exprs(dash, values)
            if not ex:
                continue
            times, empty = [], []
            for where, expr in ex:
                best = None
                for _ in range(3):
                    t0 = time.monotonic()
                    d = s.query(expr, t_end, stats=True)
                    w = time.monotonic() - t0
                    best = min(best or w, w)
                times.append((best, d["stats"]["timings"]["evalTotalTime"], where))
                if not d["result"]:
                    empty.append(where)
            print("dashboard %s on %s: %d queries, total %.0f ms (Prometheus's own evaluation %.0f ms), median %.1f ms, "
                  "slowest %.1f ms (%s)" % (os.path.basename(dash), s.name, len(times), sum(x[0] for x in times) * 1e3,
                                            sum(x[1] for x in times) * 1e3, statistics.median(x[0] for x in times) * 1e3,
                                            max(times)[0] * 1e3, max(times)[2]))
            if "cluster" in dash:
                for w in empty:
                    cl.failures.append("%s: dashboard query returned nothing: %s" % (s.name, w))
                    print("FAIL: %s: the cluster dashboard's %s returned nothing" % (s.name, w))
    # Against dcgm-exporter's defaults, per node, at the same scrape interval.
    gm = statistics.median(per_node)
    print("per node against dcgm-exporter's defaults (%d fields x %d GPUs = %d series, from its default-counters.csv), "
          "both scraped every %s:" % (len(DCGM_DEFAULT_FIELDS), GPUS_PER_NODE, dcgm["series"], args.scrape_interval))
    print("  series: gpumon %d (defaults alone %d) vs dcgm-exporter %d: %.1fx (defaults %.1fx)"
          % (gm, defaults, dcgm["series"], gm / dcgm["series"], defaults / dcgm["series"]))
    print("  samples/s: gpumon %.1f vs %.1f; bytes per scrape: gpumon %d vs about %d (dcgm-exporter's lines as gpumon "
          "--compat dcgm writes them): %.1fx" % (gm / si, dcgm["series"] / si, statistics.median(dcgm["gpumon_bytes"]),
                                                 dcgm["bytes"], statistics.median(dcgm["gpumon_bytes"]) / dcgm["bytes"]))
    print("  dcgm-exporter collects every %d s by default, gpumon every 1 s: between two 30 s scrapes gpumon's "
          "verdicts and counters have seen 30 samples, dcgm-exporter's gauges 1" % DCGM_DEFAULT_INTERVAL_S)
    hs = prom1["single"].get("prometheus_tsdb_head_series", 0)
    per_series = (snap1["single"][1] - snap1["empty"][1]) * 1024 / hs if hs else float("nan")
    print("  Prometheus memory per head series: %.1f KiB (the single server's RSS less that of the same server with "
          "nothing to scrape, %.0f MiB, over its head series): per node gpumon %.1f MiB, dcgm-exporter about %.1f MiB"
          % (per_series / 1024, snap1["empty"][1] / 1024, per_series * gm / 1048576, per_series * dcgm["series"] / 1048576))
    if n != 64:
        k = 64 / n
        print("extrapolated to 64 nodes (512 GPUs), linearly in nodes (x%.1f): %d series, %.0f samples/s at %s, "
              "exporters %.1f%% of a core in all at 1 collection a second, Prometheus about %.0f MiB (its own %.0f MiB "
              "and %.1f KiB per series)" % (k, sum(per_node) * k, sum(per_node) * k / si, args.scrape_interval,
                                            sum(cpu) * k * 100 / args.speed, (snap1["empty"][1] * 1024 + per_series *
                                                                              sum(per_node) * k) / 1048576,
                                            snap1["empty"][1] / 1024, per_series / 1024))
    check_answers(cl, nodes, jobs, queried, user_label, t_up, si)


def dcgm_series(cl, port):
    """dcgm-exporter's default series per node; its bytes per scrape estimated from the lines of gpumon
    --compat dcgm (dcgm-exporter's names and labels) on a node of the same 8 H100s; gpumon's own bytes per
    scrape of each cluster node."""
    p = free_port()
    scn = os.path.join(cl.tmp, "node-01", "node.scn")
    proc = cl.start("compat", [cl.gpumon, "serve", "--nvml", cl.sim, "--scenario", scn,
                               "--web.listen-address", "127.0.0.1:%d" % p, "--compat", "dcgm"])
    url = "http://127.0.0.1:%d/metrics" % p
    wait_for("the --compat dcgm exporter", lambda: b"DCGM_FI_DEV_GPU_UTIL" in http(url, 2), 30, [("compat", proc)])
    text = http(url).decode()
    proc.terminate()
    proc.wait()
    cl.procs = [x for x in cl.procs if x[1] is not proc]
    sizes = {}
    for line in text.splitlines():
        if line.startswith("DCGM_"):
            sizes.setdefault(line.split("{")[0], []).append(len(line) + 1)
    avg = statistics.mean(statistics.mean(v) for v in sizes.values())
    series = len(DCGM_DEFAULT_FIELDS) * GPUS_PER_NODE
    return {"series": series, "bytes": int(avg * series + 80 * len(DCGM_DEFAULT_FIELDS)),   # + HELP and TYPE
            "gpumon_bytes": [len(http(u, 5)) for u in cl.node_urls], "compat": sum(len(v) for v in sizes.values())}


class Checker:
    def __init__(self, cl):
        self.cl = cl

    def expect(self, what, good, detail=""):
        print("%s: %s%s" % ("ok" if good else "FAIL", what, "" if good else ": " + detail))
        if not good:
            self.cl.failures.append(what)


def keyed(vec, *labels):
    """{(label values...): value} of a vector."""
    return {tuple(dict(k).get(l, "") for l in labels): v for k, v in vec.items()}


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check_answers(cl, nodes, jobs, servers, user_label, t_up, si):
    """The cluster's answers against the layout: GPUs, nodes and users of each job; each GPU's main cause;
    each job's, node's and user's share of GPU time per cause (within 0.15 of what the scenarios and the
    verdicts' onsets give); the joins exact (the per-job, per-node and per-user rates are the per-GPU rates
    summed through the layout's own jobs); the jobs losing GPU time and the top one; the idle GPUs held by
    a job; the slow node; the idle-job alert's expression over the run's span; the same on the central
    server, and its shares those of the single server within the same margin."""
    S = cl.args.speed
    ck = Checker(cl)
    print()
    print("== the answers ==")
    inst = {nd["name"]: nd["instance"] for nd in nodes}
    gpus = [(nd, g, role, job) for nd in nodes for g, (role, job) in enumerate(zip(nd["roles"], nd["jobs"]))]
    per_job_gpus = {j: sum(1 for *_, job in gpus if job == j) for j in jobs}
    per_job_nodes = {j: len({nd["name"] for nd, *_, job in gpus if job == j}) for j in jobs}
    alert = [r for g in yaml.safe_load(open(os.path.join(PROM_DIR, "gpumon-alerts.yml")))["groups"]
             for r in g["rules"] if r.get("alert") == "GpumonJobGPUsIdle"][0]["expr"]
    shares, tols, evals, spreads = {}, [], {}, {}
    for s in servers:
        # The evaluation before the latest: the latest may still be under way when the answers are queried
        # (its later rules not yet written, so a query at its time mixes its early rules with the previous
        # evaluation's late ones: a loaded machine met it); an evaluation never starts before the last ends.
        e = max(s.vector("timestamp(hpc_job:gpumon_gpus:sum)").values()) - si
        covered = S * min(300.0, e - t_up + si / 2)
        # A counter born during the run (a verdict that starts late) gains or loses up to a scrape interval's
        # worth in a rate, as the scrapes fall: so much of the covered time, twice, on top of 0.1.
        tol = 0.1 + 2 * S * si / covered
        tols.append(tol)
        evals[s.name] = e

        def f(nd, cause, late):
            """The counter's increase over the covered time, as a share of it: a cause counted as it goes is
            all of it; one decided late (a stall at stall.seconds, input wait at its verdict) brings its seconds
            since the exporter's start at once, so when that falls after the rate's first sample (late) the
            increase holds the seconds before it too; nothing before its onset."""
            life = S * (e - nd["t0"])
            if life < ONSET_S[cause]:
                return 0.0
            return life / covered if late and cause in RETRO_CAUSES else 1.0
        # whether a late cause's seconds fall before or after the rate's first sample depends on where the
        # scrapes fall: each answer is expected within the two (its midpoint, the spread added to the margin)
        exp = [{}, {}]
        for k, late in enumerate((False, True)):
            exp_job, exp_node, exp_user = {}, {}, {}
            held_node = {}
            for nd, g, role, job in gpus:
                if job:
                    held_node[nd["instance"]] = held_node.get(nd["instance"], 0) + 1
                for c, share in LEDGER_SHARES[role].items():
                    if job:
                        exp_job[(job, c)] = exp_job.get((job, c), 0) + share * f(nd, c, late) / per_job_gpus[job]
                    exp_node[(nd["instance"], c)] = exp_node.get((nd["instance"], c), 0) + share * f(nd, c, late)
            for key in list(exp_node):
                exp_node[key] /= held_node[key[0]]
            for u in {user_label(u) for u in jobs.values()}:   # (without root, one user runs every job)
                mine = [j for j in jobs if user_label(jobs[j]) == u]
                tot = sum(per_job_gpus[j] for j in mine)
                for (j, c), v in exp_job.items():
                    if j in mine:
                        exp_user[(u, c)] = exp_user.get((u, c), 0) + v * per_job_gpus[j] / tot
            exp[k] = {"job": exp_job, "node": exp_node, "user": exp_user}
        spread = {w: {key: abs(exp[1][w][key] - exp[0][w][key]) / 2 for key in exp[0][w]} for w in exp[0]}
        spreads[s.name] = spread
        exp_job, exp_node, exp_user = ({key: (exp[0][w][key] + exp[1][w][key]) / 2 for key in exp[0][w]}
                                       for w in ("job", "node", "user"))
        tag = s.name
        got = keyed(s.vector("hpc_job:gpumon_gpus:sum", e), "hpc_job")
        ck.expect("%s: GPUs of each of the %d jobs" % (tag, len(jobs)), got == {(j,): float(v) for j, v in per_job_gpus.items()},
                  "got %s" % got)
        got = keyed(s.vector("hpc_job:gpumon_nodes:count", e), "hpc_job")
        ck.expect("%s: nodes of each job" % tag, got == {(j,): float(v) for j, v in per_job_nodes.items()}, "got %s" % got)
        got = sorted(keyed(s.vector("hpc_job:gpumon_job_user:info", e), "hpc_job", "user"))
        want = sorted((j, user_label(u)) for j, u in jobs.items())
        ck.expect("%s: each job's user, from its GPUs' processes" % tag, got == want, "got %s, expected %s" % (got, want))
        per_gpu = keyed(s.vector("instance_gpu:gpumon_gpu_time_seconds:rate5m", e), "instance", "gpu", "cause")
        main, bad = {}, []
        for (i, g, c), v in per_gpu.items():
            if v > main.get((i, g), ("", 0))[1]:
                main[(i, g)] = (c, v)
        for nd, g, role, job in gpus:
            want = ROLES[role][1]
            have = main.get((nd["instance"], str(g)), (None, 0))[0]
            if have != want:
                bad.append("%s GPU %d (%s): %s" % (nd["name"], g, role, have))
        ck.expect("%s: each of the %d GPUs' main cause (compute, input_wait, idle, stalled; compute at 55%%)"
                  % (tag, len(gpus)), not bad, "; ".join(bad[:8]))
        # exact joins: the per-job, node and user rates are the per-GPU rates summed by the layout
        sums = {"job": {}, "node": {}, "user": {}}
        job_of = {(nd["instance"], str(g)): job for nd, g, _, job in gpus}
        for (i, g, c), v in per_gpu.items():
            j = job_of[(i, g)]
            sums["node"][(i, c)] = sums["node"].get((i, c), 0) + v
            if j:
                sums["job"][(j, c)] = sums["job"].get((j, c), 0) + v
                k = (user_label(jobs[j]), c)
                sums["user"][k] = sums["user"].get(k, 0) + v
        for what, rec, lab in (("job", "hpc_job", "hpc_job"), ("node", "instance", "instance"), ("user", "user", "user")):
            got = keyed(s.vector("%s:gpumon_gpu_time_seconds:rate5m" % rec, e), lab, "cause")
            want = sums[what]
            ok = set(got) == set(want) and all(close(got[k], want[k]) for k in got)
            ck.expect("%s: GPU time by cause per %s is the GPUs' through the info series (%d series)"
                      % (tag, what, len(want)), ok, "got %s, expected %s" % (sorted(got.items())[:6], sorted(want.items())[:6]))
        # shares of GPU time by cause against what the scenarios give
        # (denominator: the exporters' own accounting of the jobs' GPU time, recorded at the same evaluation)
        ref = "instance_hpc_job:gpumon_job_gpu_seconds:rate5m"
        queries = {
            "job": ("hpc_job:gpumon_gpu_time_seconds:rate5m / on (hpc_job) group_left () sum by (hpc_job) (%s)" % ref,
                    "hpc_job", exp_job),
            "node": ("instance:gpumon_gpu_time_seconds:rate5m / on (instance) group_left () sum by (instance) (%s)" % ref,
                     "instance", exp_node),
            "user": ("user:gpumon_gpu_time_seconds:rate5m / on (user) group_left () sum by (user) (sum by (hpc_job) (%s) "
                     "* on (hpc_job) group_left (user) hpc_job:gpumon_job_user:info)" % ref, "user", exp_user)}
        shares[tag] = {}
        for what, (q, lab, want) in queries.items():
            got = keyed(s.vector(q, e), lab, "cause")
            shares[tag][what] = got
            bad = ["%s %s: got %.2f, expected %.2f" % (k[0], k[1], got.get(k, 0), want.get(k, 0))
                   for k in sorted(set(got) | set(want))
                   if abs(got.get(k, 0) - want.get(k, 0)) > tol + spread[what].get(k, 0)]
            ck.expect("%s: share of GPU time by cause per %s (%d answers) as the scenarios give, within %.2f"
                      % (tag, what, len(want), tol), not bad, "; ".join(bad[:8]))
        # GPU time lost: which jobs, and the top one
        lost_exp = {}
        for (j, c), v in exp_job.items():
            if c != "compute":
                lost_exp[j] = lost_exp.get(j, 0) + v * per_job_gpus[j]
        got = keyed(s.vector("hpc_job:gpumon_gpu_time_lost_seconds:rate5m", e), "hpc_job")
        ck.expect("%s: the jobs losing GPU time (%d)" % (tag, len(lost_exp)), sorted(k[0] for k in got) == sorted(lost_exp),
                  "got %s, expected %s" % (sorted(k[0] for k in got), sorted(lost_exp)))
        top = sorted(lost_exp.items(), key=lambda kv: -kv[1])
        if len(top) > 1 and top[0][1] > 1.3 * top[1][1]:
            got = keyed(s.vector("topk(1, hpc_job:gpumon_gpu_time_lost_seconds:rate5m)", e), "hpc_job")
            ck.expect("%s: the top job by GPU-hours lost is %s" % (tag, top[0][0]), list(got) == [(top[0][0],)], "got %s" % got)
        # idle GPUs held by a job
        want = sorted((nd["instance"], str(g), job) for nd, g, role, job in gpus if job and role in ("idle", "stalled"))
        got = sorted(keyed(s.vector("instance_gpu:gpumon_gpu_idle_held:share", e), "instance", "gpu", "hpc_job"))
        ck.expect("%s: the %d idle GPUs held by a job (not the free ones)" % (tag, len(want)), got == want,
                  "got %s, expected %s" % (got[:6], want[:6]))
        # the slow node
        want = sorted((nd["instance"], nd["jobs"][0]) for nd in nodes if "slow" in nd["roles"])
        gotv = keyed(s.vector("instance_hpc_job:gpumon_slow_node_gap:ratio", e), "instance", "hpc_job")
        ck.expect("%s: the slow node %s" % (tag, ", ".join("%s (job %s)" % w for w in want)),
                  sorted(gotv) == want and all(0.28 <= v <= 0.48 for v in gotv.values()), "got %s" % gotv)
        # the idle-job alert over the run's span instead of an hour
        span = max(2 * si, int(e - t_up - si))
        q = alert.replace("[1h]", "[%ds]" % span).replace("offset 1h", "offset %ds" % span)
        want = sorted(j for j in jobs if all(role in ("idle", "stalled") for _, _, role, job in gpus if job == j))
        got = sorted(k[0] for k in keyed(s.vector(q, e), "hpc_job"))
        ck.expect("%s: GpumonJobGPUsIdle's expression over the last %d s names the idle jobs %s"
                  % (tag, span, ", ".join(want)), got == want, "got %s" % got)
        firing = [a for a in s.api("alerts")["alerts"] if a["labels"]["alertname"] == "GpumonJobGPUsIdle"]
        ck.expect("%s: GpumonJobGPUsIdle itself waits for the hour" % tag, not firing, "got %s" % firing)
    if len(servers) == 2:
        a, b = (shares[s.name] for s in servers)
        tol = max(tols)
        for what in a:
            sp = {k: 2 * max(spreads[sv.name][what].get(k, 0) for sv in servers) for k in set(a[what]) | set(b[what])}
            bad = ["%s: %.3f vs %.3f" % (k, a[what].get(k, 0), b[what].get(k, 0))   # (each at either end of its spread)
                   for k in sorted(set(a[what]) | set(b[what])) if abs(a[what].get(k, 0) - b[what].get(k, 0)) > tol + sp[k]]
            ck.expect("single and central (through the agents) agree on the shares per %s, within %.2f" % (what, tol),
                      not bad, "; ".join(bad[:6]))
        # every query of the cluster dashboard: the same series (label sets) on both
        span = max(2 * si, int(min(evals.values()) - t_up))
        values = {"__range": "%ds" % span, "step": "%ds" % max(1, int(si)), "step_s": str(max(1, int(si)))}
        ex = dashboard_exprs(DASHBOARDS[1], values)
        bad = []
        for where, expr in ex:
            sets = [sorted(sorted(k) for k in s.vector(expr, evals[s.name])) for s in servers]
            if sets[0] != sets[1]:
                bad.append("%s: %s vs %s" % (where, sets[0][:3], sets[1][:3]))
        ck.expect("single and central return the same series for the cluster dashboard's %d queries" % len(ex),
                  ex and not bad, "; ".join(bad[:4]))


if __name__ == "__main__":
    main()
