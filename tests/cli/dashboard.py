"""dashboard.py: reads the dashboards of deploy/grafana/ for the deploy tests.

`check FILE` validates what Grafana 9/10 needs to import it and what the
dashboard promises (its query variables, one data source variable, panels
for every topic: PROFILES, by the dashboard's uid); it prints one line per
problem and exits 1 if any. `exprs FILE [NAME=VALUE ...]` prints every PromQL
query, panel targets and the variables' label_values() selectors alike, as
"where<TAB>expr" lines, with template variables substituted (defaults:
job/instance/gpu/hpc_job/user .*, Grafana's $__rate_interval 5s, $__interval
1s, $__range 1h, $__range_s 3600, and the dashboard's constant variables'
values); an unknown variable is an error. The tests feed these to promtool
and to a running Prometheus. Standard library only; run with /usr/bin/python3.
"""
import json, re, sys

DEFAULTS = {"job": ".*", "instance": ".*", "gpu": ".*", "hpc_job": ".*", "user": ".*", "__rate_interval": "5s",
            "__interval": "1s", "__range": "1h", "__range_s": "3600"}
# Metric names the dashboard must chart: one per topic it promises.
TOPICS = ["gpumon_gpu_utilization_ratio", "gpumon_gpu_memory_used_bytes", "gpumon_gpu_memory_total_bytes",
          "gpumon_gpu_temperature_celsius", "gpumon_gpu_power_watts", "gpumon_gpu_enforced_power_limit_watts",
          "gpumon_gpu_clock_hertz", "gpumon_gpu_clock_event_reason_active", "gpumon_gpu_pcie_tx_bytes_per_second",
          "gpumon_gpu_pcie_rx_bytes_per_second", "gpumon_gpu_xid_errors_total", "gpumon_gpu_lost", "up{",
          "gpumon_exporter_snapshot_age_seconds", "gpumon_exporter_collection_errors_total",
          "gpumon_exporter_collection_duration_seconds", "gpumon_host_cpu_ratio", "gpumon_gpu_sm_active_ratio",
          "gpumon_gpu_tensor_active_ratio", "gpumon_diagnosis_active", "gpumon_diagnosis_seconds_total"]
# The cluster dashboard charts the recording rules of deploy/prometheus/gpumon-rules.yml.
CLUSTER_TOPICS = ["instance:gpumon_gpu_time_seconds:rate5m", "hpc_job:gpumon_gpu_time_seconds:rate5m",
                  "user:gpumon_gpu_time_seconds:rate5m", "hpc_job:gpumon_gpu_time_lost_seconds:rate5m",
                  "instance_gpu:gpumon_gpu_idle_held:share", "instance_hpc_job:gpumon_slow_node_gap:ratio",
                  "hpc_job:gpumon_gpus:sum", "hpc_job:gpumon_job_user:info"]
# Per dashboard uid: the query variables it must have, and the topics it must chart.
PROFILES = {"gpumon-gpus": (["instance", "gpu"], TOPICS), "gpumon-cluster": (["hpc_job", "user"], CLUSTER_TOPICS)}


def panels(dash):
    for p in dash.get("panels", []):
        yield p
        for q in p.get("panels", []):  # collapsed rows keep their panels inside
            yield q


def substitute(expr, values):
    def one(m):
        name = m.group(1) or m.group(2)
        if name not in values:
            raise KeyError("unknown template variable $%s in %s" % (name, expr))
        return values[name]
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", one, expr)


def queries(dash):
    """(where, raw expr) for every target and every query variable."""
    for p in panels(dash):
        for t in p.get("targets", []):
            yield "panel %r target %s" % (p.get("title"), t.get("refId")), t.get("expr", "")
    for v in dash["templating"]["list"]:
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", q)
        if not m:
            raise ValueError("variable %s: not label_values(selector, label): %s" % (v["name"], q))
        sel, label = m.group(1), m.group(2)
        sel = sel.replace("{", "{%s!=\"\", " % label, 1) if "{" in sel else sel + "{%s!=\"\"}" % label
        yield "variable %s" % v["name"], sel


def check(dash):
    bad = []
    if not isinstance(dash.get("schemaVersion"), int) or not 30 <= dash["schemaVersion"] <= 39:
        bad.append("schemaVersion %r: want 30..39 (Grafana 9/10)" % dash.get("schemaVersion"))
    for k in ("uid", "title"):
        if not dash.get(k):
            bad.append("no %s" % k)
    tv = {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}
    if tv.get("DS_PROMETHEUS", {}).get("type") != "datasource" or tv["DS_PROMETHEUS"].get("query") != "prometheus":
        bad.append("no datasource variable DS_PROMETHEUS of type prometheus")
    if dash.get("uid") not in PROFILES:
        return bad + ["uid %r: not one of %s" % (dash.get("uid"), sorted(PROFILES))]
    names, topics = PROFILES[dash["uid"]]
    for name in names:
        if tv.get(name, {}).get("type") != "query":
            bad.append("no query variable %s" % name)
    ids, cells = set(), {}
    for p in panels(dash):
        title = p.get("title")
        if p.get("id") in ids:
            bad.append("panel %r: duplicate id %r" % (title, p.get("id")))
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in "hwxy") or g["x"] + g["w"] > 24:
            bad.append("panel %r: bad gridPos %r" % (title, g))
            continue
        cover = [(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])]
        bad += ["panel %r overlaps %r" % (title, t) for t in sorted({cells[c] for c in cover if c in cells})]
        cells.update((c, title) for c in cover)
        if p.get("type") == "row":
            continue
        for obj in [p] + p.get("targets", []):
            ds = obj.get("datasource")
            uid = ds.get("uid") if isinstance(ds, dict) else ds
            if uid not in ("${DS_PROMETHEUS}", "Prometheus"):
                bad.append("panel %r: datasource %r, want ${DS_PROMETHEUS}" % (title, ds))
        refs = [t.get("refId") for t in p.get("targets", [])]
        if not refs or len(set(refs)) != len(refs):
            bad.append("panel %r: targets missing or refIds not unique: %r" % (title, refs))
        if not p.get("description"):
            bad.append("panel %r: no description" % title)
        for t in p.get("targets", []):
            if not t.get("expr", "").strip() or "\n" in t["expr"]:
                bad.append("panel %r: empty or multi-line expr" % title)
    text = " ".join(e for _, e in queries(dash))
    bad += ["no panel charts %s" % m for m in topics if m not in text]
    return bad


def main(argv):
    dash = json.load(open(argv[2]))
    if argv[1] == "check":
        bad = check(dash)
        for b in bad:
            print(b)
        return 1 if bad else 0
    values = dict(DEFAULTS)
    values.update((v["name"], v["query"]) for v in dash["templating"]["list"] if v.get("type") == "constant")
    values.update(a.split("=", 1) for a in argv[3:])
    for where, expr in queries(dash):
        print("%s\t%s" % (where, substitute(expr, values)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
