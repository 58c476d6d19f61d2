# Integration with the real Prometheus server: four `gpumon serve` nodes on
# simulated GPUs are scraped every second, and PromQL through Prometheus's
# HTTP API must return what the scenarios produce: healthy (2x H100) and
# straggler (8x H100, GPU 5 slow) in job gpumon; gpu-lost (GPU 1 falls off
# the bus) in gpumon-faults; xid-storm (XID 48 on GPU 1) served over TLS
# with basic auth from deploy/prometheus/web-config.yml, scraped by job
# gpumon-tls as deploy/prometheus/prometheus-tls.yml does it and refused to
# job gpumon-noauth, which has no credentials. Prometheus loads the shipped
# alert rules, and every query of the shipped dashboard must return data.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.sh"
need_prometheus

read -r PA PB PC PD PP <<< "$(free_ports 5)"
A=127.0.0.1:$PA B=127.0.0.1:$PB C=127.0.0.1:$PC D=127.0.0.1:$PD
API="http://127.0.0.1:$PP/api/v1"
MIB=1048576

make_cert "$T" || fail "openssl: could not make a test certificate"
web_config "$T/web-config.yml" "$T"
printf '%s\n' "$EXAMPLE_PASSWORD" > "$T/password"
serve healthy "$PA" --scenario healthy
# the straggler node runs two jobs (a job mapping directory as a workload manager writes it): 0-3, 4-7
mkdir "$T/jobs"
for g in 0 1 2 3; do echo 7001 > "$T/jobs/$g"; done
for g in 4 5 6 7; do echo 7002 > "$T/jobs/$g"; done
serve straggler "$PB" --scenario straggler --hpc-job-mapping-dir "$T/jobs"
start xid env GPUMON_SIM_SPEED=20 "$GPUMON" serve --web.listen-address "$C" --interval 4s --nvml "$SIM" \
  --scenario xid-storm --web.config.file "$T/web-config.yml" --window 60m   # its XID verdicts hold all test long
# (60 min of the scenario is 3 min at 20x; 10 min, 30 s, ran out under ASan with two CPU hogs and a CI run)
start lost env GPUMON_SIM_SPEED=20 "$GPUMON" serve --web.listen-address "$D" --interval 4s --nvml "$SIM" \
  --scenario gpu-lost

# Prometheus's configuration: the gpumon-tls job is the shipped TLS example's,
# with the test CA, password file and target.
"$PY" - "$DEPLOY/prometheus/prometheus-tls.yml" "$T" "$A" "$B" "$C" "$D" > "$T/prometheus.yml" <<'PYEOF' || fail "prometheus.yml for the test"
import json, sys, yaml
shipped, t, a, b, c, d = sys.argv[1:]
tls = [j for j in yaml.safe_load(open(shipped))["scrape_configs"] if j["job_name"] == "gpumon-tls"][0]
tls["tls_config"]["ca_file"] = t + "/ca.crt"
tls["basic_auth"]["password_file"] = t + "/password"
tls["static_configs"] = [{"targets": [c]}]
noauth = {k: v for k, v in tls.items() if k != "basic_auth"}
noauth["job_name"] = "gpumon-noauth"
cfg = {"global": {"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"},
       "rule_files": [t + "/gpumon-alerts.yml", t + "/gpumon-rules.yml"],
       "scrape_configs": [{"job_name": "gpumon", "static_configs": [{"targets": [a, b]}]},
                          {"job_name": "gpumon-faults", "static_configs": [{"targets": [d]}]},
                          tls, noauth]}
print(json.dumps(cfg, indent=1))   # JSON is YAML
PYEOF
cp "$DEPLOY/prometheus/gpumon-alerts.yml" "$DEPLOY/prometheus/gpumon-rules.yml" "$T/"
start prometheus prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
  --web.listen-address="127.0.0.1:$PP" --log.level=warn

wait_url healthy "http://$A/metrics"
wait_url straggler "http://$B/metrics"
wait_url lost "http://$D/metrics"
wait_url xid "https://$C/metrics" --cacert "$T/ca.crt" -u "$EXAMPLE_USER:$EXAMPLE_PASSWORD"
wait_url prometheus "http://127.0.0.1:$PP/-/ready"

# q EXPR: the instant query's result, one "labels value" line per series,
# sorted; labels as k=v,k=v without __name__.
q() {
  "$PY" - "$API" "$1" <<'PYEOF'
import json, sys, urllib.parse, urllib.request
api, expr = sys.argv[1:]
r = json.load(urllib.request.urlopen(api + "/query?" + urllib.parse.urlencode({"query": expr}), timeout=5))
if r["status"] != "success":
    sys.exit("query failed: %s" % r)
res = r["data"]["result"] if r["data"]["resultType"] == "vector" else [{"metric": {}, "value": r["data"]["result"]}]
for s in sorted(res, key=lambda s: sorted(s["metric"].items())):
    print(",".join("%s=%s" % kv for kv in sorted(s["metric"].items()) if kv[0] != "__name__"), s["value"][1])
PYEOF
}
# qv EXPR: the query's values only, space-separated
qv() { q "$1" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $NF }'; }

# Wait until every target has been scraped a few times, and the faults have come (the scenarios run
# 20x fast: the GPU is lost and the XIDs counted within seconds, however long a loaded machine takes).
wait_for "every target scraped 4 times" '[ "$(qv "count(count_over_time(up[10s]) >= 4)")" = 5 ]'
wait_for "the faults in Prometheus" '[ "$(qv "count(gpumon_gpu_xid_errors_total{job=\"gpumon-tls\",gpu=\"0\",xid=\"31\"} > 5)")" = 1 ] &&
  [ "$(qv "gpumon_exporter_gpus_lost{job=\"gpumon-faults\"}")" = 1 ]'

# Scrape health: plain and TLS+auth targets up, the job without credentials refused. (Over the last
# 10 s: one scrape that Prometheus's 900 ms timeout cut short on a loaded machine is not gpumon's.)
expect_eq "up, job gpumon" "$(qv 'max_over_time(up{job="gpumon"}[10s])')" "1 1"
expect_eq "up, job gpumon-faults" "$(qv 'max_over_time(up{job="gpumon-faults"}[10s])')" 1
expect_eq "up, job gpumon-tls (TLS + basic auth)" "$(qv 'max_over_time(up{job="gpumon-tls"}[10s])')" 1
expect_eq "up, job gpumon-noauth (no credentials)" "$(qv 'max_over_time(up{job="gpumon-noauth"}[10s])')" 0
err=$("$PY" -c '
import json, sys, urllib.request
r = json.load(urllib.request.urlopen(sys.argv[1] + "/targets?state=active", timeout=5))
print([t["lastError"] for t in r["data"]["activeTargets"] if t["labels"]["job"] == "gpumon-noauth"][0])' "$API")
expect_match "gpumon-noauth scrape error" "$err" "401"

# What the scenarios produce.
expect_eq "GPUs in job gpumon" "$(qv 'count(gpumon_gpu_info{job="gpumon"})')" 10
expect_eq "GPUs on the healthy node" "$(qv "count(gpumon_gpu_info{instance=\"$A\"})")" 2
expect_eq "GPUs on the straggler node" "$(qv "count(gpumon_gpu_info{instance=\"$B\"})")" 8
expect_eq "memory total of every H100" "$(q 'count_values("bytes", gpumon_gpu_memory_total_bytes{job="gpumon"})')" \
  "bytes=$((81559 * MIB)) 10"
expect_eq "GPU names" "$(q 'count by (name) (gpumon_gpu_info{job="gpumon"})')" "name=NVIDIA H100 80GB HBM3 10"
slow=$(q "gpumon_gpu_utilization_ratio{instance=\"$B\"} < 0.6")
expect_eq "straggler: GPUs below 60% utilization" "$(printf '%s' "$slow" | sed -n 's/.*gpu=\([0-9]*\),.*/\1/p')" 5
expect_eq "straggler: GPU 5 between 35% and 55%" \
  "$(qv "count(gpumon_gpu_utilization_ratio{instance=\"$B\",gpu=\"5\"} > 0.35 < 0.55)")" 1
expect_eq "straggler: the other 7 above 85%" \
  "$(qv "count(gpumon_gpu_utilization_ratio{instance=\"$B\",gpu!=\"5\"} > 0.85)")" 7
expect_eq "healthy: power within the limit" \
  "$(qv "count(gpumon_gpu_power_watts{instance=\"$A\"} < gpumon_gpu_power_limit_watts{instance=\"$A\"} and gpumon_gpu_power_limit_watts == 700)")" 2
expect_eq "healthy: SM clock at 1980 MHz" "$(q "gpumon_gpu_clock_hertz{instance=\"$A\",clock=\"sm\"}" | cut -d' ' -f2 | sort -u)" 1980000000
# Host series, in every scrape of both nodes (not only some).
expect_eq "host CPU modes" "$(q 'count by (mode) (gpumon_host_cpu_ratio{job="gpumon"})' | tr '\n' ' ')" \
  "mode=iowait 2 mode=system 2 mode=user 2 "
expect_eq "host CPUs and memory > 0" "$(qv 'count(gpumon_host_cpus{job="gpumon"} > 0) + count(gpumon_host_memory_total_bytes{job="gpumon"} > 0)')" 4
expect_eq "host series in every scrape" \
  "$(qv 'count(count_over_time(gpumon_host_cpus{job="gpumon"}[10s]) == on (instance) sum_over_time(up{job="gpumon"}[10s]))')" 2
# Jobs: their GPUs joined by gpu/uuid, the slow GPU 5 in job 7002, accounting counters growing.
expect_eq "jobs: GPUs per job" "$(q "count by (hpc_job) (gpumon_gpu_job_info{instance=\"$B\"})" | sed 's/^hpc_job=//' | tr '\n' ' ')" \
  "7001 4 7002 4 "
expect_eq "jobs: the straggler's job" "$(q "(gpumon_gpu_utilization_ratio{instance=\"$B\"} < 0.6) * on (instance, gpu, uuid) group_right gpumon_gpu_job_info{hpc_job=\"7002\"}" | sed -n 's/.*gpu=\([0-9]*\),hpc_job=\([0-9]*\).*/\1 \2/p')" "5 7002"
expect_eq "jobs: accounting counters" "$(qv "count(gpumon_job_gpu_seconds_total{instance=\"$B\"} > 0)")" 2
# GPU time by cause (the ledger): every cause of every GPU a counter, compute growing on the busy nodes, the
# lost GPU's time going to lost; the shipped recording rules evaluate to the same, in GPUs.
expect_eq "ledger: 8 causes per GPU" "$(qv "count(gpumon_gpu_time_seconds_total{instance=\"$A\"})")" 16
expect_eq "ledger: compute on every busy GPU" "$(qv 'count(gpumon_gpu_time_seconds_total{job="gpumon",cause="compute"} > 0)')" 10
expect_eq "ledger: the lost GPU's time is lost" \
  "$(qv 'count(gpumon_gpu_time_seconds_total{job="gpumon-faults",gpu="1",cause="lost"} > 0)')" 1
for i in $(seq 100); do   # the rules run every second: wait for an evaluation with two scrapes in it
  [ "$(qv 'count(instance:gpumon_gpu_time_seconds:rate5m{cause="compute"} > 0)')" = 4 ] && break
  sleep 0.1
done
expect_eq "recording rule: each GPU's causes from the ledger" \
  "$(qv "count(instance_gpu:gpumon_gpu_time_seconds:rate5m{instance=\"$A\"})")" 16
expect_eq "recording rule: per node, computing (the four nodes)" "$(qv 'count(instance:gpumon_gpu_time_seconds:rate5m{cause="compute"} > 0)')" 4
expect_match "recording rule: a GPU's causes sum to one GPU-second a second at most" \
  "$(qv "max(sum by (instance, gpu) (instance_gpu:gpumon_gpu_time_seconds:rate5m{instance=\"$B\"}))")" "^(0\.[0-9]+|1(\.0+)?)(e-[0-9]+)?$"
# Exporter health.
# (fresh: far below the stale alert's 30 s; recent: far below its 60 s; a loaded machine delays both)
expect_eq "exporter fresh" "$(qv 'count(gpumon_exporter_snapshot_age_seconds{job="gpumon"} < 5)')" 2
expect_eq "exporter last success recent" "$(qv 'count(time() - gpumon_exporter_last_success_timestamp_seconds{job="gpumon"} < 30)')" 2
# Faults: the lost GPU (its other series gone) and XIDs, through TLS.
expect_eq "gpu-lost: gpumon_gpu_lost" "$(q 'sum by (gpu) (gpumon_gpu_lost{job="gpumon-faults"})' | tr '\n' ' ')" \
  "gpu=0 0 gpu=1 1 gpu=2 0 gpu=3 0 "
expect_eq "gpu-lost: lost GPU's utilization gone" "$(q 'gpumon_gpu_utilization_ratio{job="gpumon-faults",gpu="1"}')" ""
expect_eq "gpu-lost: gpumon_exporter_gpus_lost" "$(qv 'gpumon_exporter_gpus_lost{job="gpumon-faults"}')" 1
expect_eq "xid-storm: XID 48 on GPU 1" "$(qv 'count(gpumon_gpu_xid_errors_total{job="gpumon-tls",gpu="1",xid="48"} >= 1)')" 1
expect_eq "xid-storm: XID 31 on GPU 0 repeated" "$(qv 'count(gpumon_gpu_xid_errors_total{job="gpumon-tls",gpu="0",xid="31"} > 5)')" 1

# The shipped alert rules on real data: lost GPU and critical XID match (the
# XID alert has no `for`, so it fires), application XIDs and fresh exporters do not.
wait_for "the XID alert to fire" '"$PY" -c "
import json, sys, urllib.request
r = json.load(urllib.request.urlopen(sys.argv[1] + \"/alerts\", timeout=5))
sys.exit(0 if any(a[\"labels\"][\"alertname\"] == \"GpumonCriticalXID\" and a[\"state\"] == \"firing\" for a in r[\"data\"][\"alerts\"]) else 1)" "$API"'
alerts=$("$PY" -c '
import json, sys, urllib.request
r = json.load(urllib.request.urlopen(sys.argv[1] + "/alerts", timeout=5))
for a in sorted(r["data"]["alerts"], key=lambda a: sorted(a["labels"].items())):
    l = a["labels"]
    print(l["alertname"], l.get("job"), l.get("gpu", "-"), l.get("xid", "-"), a["state"])' "$API")
expect_match "alert GpumonGPULost" "$alerts" "^GpumonGPULost gpumon-faults 1 - (pending|firing)$"
expect_match "alert GpumonCriticalXID" "$alerts" "^GpumonCriticalXID gpumon-tls 1 48 firing$"
expect_match "alert GpumonExporterDown for the job without credentials" "$alerts" "^GpumonExporterDown gpumon-noauth - - (pending|firing)$"
expect_no_match "no alert on application XIDs" "$alerts" "CriticalXID .* (31|13|43) "
expect_no_match "no stale or error alerts" "$alerts" "GpumonExporterStale|GpumonCollectionErrors"
expect_no_match "no GPU alerts on the healthy job" "$alerts" "^Gpumon[A-Za-z]+ gpumon [0-9]"

# The dashboard: every query returns data, with all nodes and GPUs selected,
# and with one node and GPU selected (the XID node, GPU 1: an A100, so its
# "(GPM)" panels must be empty there, not show made-up zeros, and it has no
# job mapping, so the "HPC job" panels are empty too).
dash_check() {
  local gpm=$1; shift
  "$PY" "$SRC/tests/cli/dashboard.py" exprs "$DEPLOY/grafana/gpumon-dashboard.json" "$@" > "$T/exprs.tsv" || return
  "$PY" - "$API" "$T/exprs.tsv" "$*" "$gpm" <<'PYEOF' && ok || fail "dashboard queries ($*): every one returns data"
import json, sys, urllib.parse, urllib.request
api, exprs, how, gpm = sys.argv[1:]
bad = n = 0
for line in open(exprs):
    where, expr = line.rstrip("\n").split("\t", 1)
    r = json.load(urllib.request.urlopen(api + "/query?" + urllib.parse.urlencode({"query": expr}), timeout=5))
    n += 1
    want = (gpm == "gpm" or "(GPM)" not in where) and (gpm == "gpm" or "HPC job" not in where)   # jobs: node B only
    if r["status"] != "success" or bool(r["data"]["result"]) != want:
        print("FAIL: dashboard %s (%s): got %s for %s, expected %s" % (where, how, r["data"]["result"] or "no data",
              expr, "some" if want else "none (no GPM on this GPU)"), file=sys.stderr)
        bad += 1
sys.exit(1 if bad or n < 30 else 0)
PYEOF
}
dash_check gpm __rate_interval=4s
dash_check no-gpm __rate_interval=4s job=gpumon-tls instance="$C" gpu=1

# Basic auth as a client sees it: 401 without or with wrong credentials, 200 with.
code() { curl -s -o /dev/null -w '%{http_code}' --cacert "$T/ca.crt" "$@" "https://$C/metrics"; }
expect_eq "https without credentials" "$(code)" 401
expect_eq "https with a wrong password" "$(code -u "$EXAMPLE_USER:wrong")" 401
expect_eq "https with the example credentials" "$(code -u "$EXAMPLE_USER:$EXAMPLE_PASSWORD")" 200
expect_eq "plain http to the TLS port" "$(curl -s -o /dev/null -w '%{http_code}' "http://$C/metrics")" 400

for n in prometheus healthy straggler xid lost; do stop "$n"; done
done_tests
