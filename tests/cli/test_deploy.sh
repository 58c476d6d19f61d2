# The files in deploy/, checked with the real Prometheus tools: alert rules
# and their unit tests (which must show every alert firing and not firing),
# the cluster's recording rules and theirs (every recorded series pinned),
# the scrape configs (single server, agents, central server), the web config
# (TLS + basic auth), every query of the two Grafana dashboards, the systemd
# unit, and promtool's linter on what `gpumon serve` exposes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.sh"
need_prometheus
P="$DEPLOY/prometheus"
DASH="$DEPLOY/grafana/gpumon-dashboard.json"
CDASH="$DEPLOY/grafana/gpumon-cluster-dashboard.json"

# run_ok WHAT CMD...: CMD exits 0 (its output is shown otherwise)
run_ok() {
  local what=$1 out; shift
  if out=$("$@" 2>&1); then ok; else fail "$what: got exit $? from '$*', expected 0: $out"; fi
}

# Alert rules: valid, unit tests pass, and the unit tests cover each alert
# both firing and not firing.
run_ok "promtool check rules" promtool check rules "$P/gpumon-alerts.yml"
run_ok "promtool test rules" promtool test rules "$P/gpumon-alerts_test.yml"
"$PY" - "$P/gpumon-alerts.yml" "$P/gpumon-alerts_test.yml" <<'PYEOF' && ok || fail "alert unit tests: every alert firing and not firing"
import sys, yaml
rules = yaml.safe_load(open(sys.argv[1]))
tests = yaml.safe_load(open(sys.argv[2]))
alerts = [r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r]
cases = [c for t in tests["tests"] for c in t.get("alert_rule_test", [])]
bad = False
for a in alerts:
    fired = [c for c in cases if c["alertname"] == a and c.get("exp_alerts")]
    quiet = [c for c in cases if c["alertname"] == a and not c.get("exp_alerts")]
    if not fired or not quiet:
        print("alert %s: got %d firing and %d not-firing cases, expected at least one of each" % (a, len(fired), len(quiet)))
        bad = True
    for r in [r for g in rules["groups"] for r in g["rules"] if r.get("alert") == a]:
        if r.get("labels", {}).get("severity") not in ("critical", "warning", "info"):
            print("alert %s: no severity label" % a); bad = True
        ann = r.get("annotations", {})
        who = "$labels.hpc_job" if "by (hpc_job)" in r["expr"] else "$labels.instance"   # per job, or per node
        if not ann.get("summary") or who not in ann.get("description", ""):
            print("alert %s: summary, or description naming %s, missing" % (a, who)); bad = True
        if "gpumon_gpu_" in r["expr"] and who == "$labels.instance" and "$labels.gpu" not in ann.get("description", ""):
            print("alert %s: per-GPU alert whose description does not name the gpu" % a); bad = True
sys.exit(1 if bad else 0)
PYEOF

# Recording rules: valid, unit tests pass, and every recorded series is what a
# unit test queries.
run_ok "promtool check rules gpumon-rules.yml" promtool check rules "$P/gpumon-rules.yml"
run_ok "promtool test rules gpumon-rules_test.yml" promtool test rules "$P/gpumon-rules_test.yml"
# promtool before 2.39 (Debian 11: 2.24) refuses a test group's name: each says what it shows in a comment
expect_eq "no test group with a name: field (promtool 2.24 refuses it)" \
  "$(grep -Hn '^  - name:' "$P"/*_test.yml)" ""
"$PY" - "$P/gpumon-rules.yml" "$P/gpumon-rules_test.yml" <<'PYEOF' && ok || fail "recording rule unit tests: every recorded series queried"
import re, sys, yaml
rules = [r["record"] for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"]]
exprs = [c["expr"] for t in yaml.safe_load(open(sys.argv[2]))["tests"] for c in t.get("promql_expr_test", [])]
missing = [r for r in rules if not any(re.search(r"(^|[^a-z_:])%s([^a-z0-9_:]|$)" % re.escape(r), e) for e in exprs)]
if missing:
    print("recorded series no unit test queries: %s" % ", ".join(missing))
sys.exit(1 if missing else 0)
PYEOF

# Web config: the shipped file, with a real certificate in place of the
# example paths, passes promtool; its password hash is bcrypt.
make_cert "$T" || fail "openssl: could not make a test certificate"
web_config "$T/web-config.yml" "$T"
run_ok "promtool check web-config" promtool check web-config "$T/web-config.yml"
hash=$(sed -n "s/^ *$EXAMPLE_USER: *//p" "$P/web-config.yml")
expect_match "example user's password hash" "$hash" '^\$2[aby]\$1[0-9]\$[./A-Za-z0-9]{53}$'

# Scrape configs: the plain one as shipped (it names the rules and a file_sd
# file next to it); the TLS one with its CA and password files made real.
run_ok "promtool check config prometheus.yml" promtool check config "$P/prometheus.yml"
cp "$P/gpumon-alerts.yml" "$T/"
printf '%s\n' "$EXAMPLE_PASSWORD" > "$T/password"
sed -e "s#/etc/prometheus/gpumon-ca.crt#$T/ca.crt#" -e "s#/etc/prometheus/gpumon-password#$T/password#" \
  "$P/prometheus-tls.yml" > "$T/prometheus-tls.yml"
expect_eq "prometheus-tls.yml paths replaced" "$(grep -c "$T/" "$T/prometheus-tls.yml")" 2
run_ok "promtool check config prometheus-tls.yml" promtool check config "$T/prometheus-tls.yml"
# Past one server: an agent (its shard's file_sd file next to it) and the
# central server (the alert and recording rules next to it); the agent config
# holds nothing agent mode refuses (rules, alerting), and sets no external
# labels (the central server's series must read as a single server's).
run_ok "promtool check config prometheus-agent.yml" promtool check config "$P/prometheus-agent.yml"
run_ok "promtool check config prometheus-central.yml" promtool check config "$P/prometheus-central.yml"
"$PY" - "$P/prometheus-agent.yml" "$P/prometheus-central.yml" <<'PYEOF' && ok || fail "agent and central configs"
import sys, yaml
agent, central = (yaml.safe_load(open(f)) for f in sys.argv[1:])
bad = [k for k in ("rule_files", "alerting") if k in agent]
bad += ["external_labels"] if "external_labels" in agent.get("global", {}) else []
bad += [] if agent.get("remote_write") and agent["remote_write"][0]["url"].endswith("/api/v1/write") else ["remote_write url"]
bad += [] if sorted(central.get("rule_files", [])) == ["gpumon-alerts.yml", "gpumon-rules.yml"] else ["central rule_files"]
if bad:
    print("agent/central configs: %s" % bad)
sys.exit(1 if bad else 0)
PYEOF

# Dashboard: importable structure, and every query (panel targets and
# variables, template variables substituted) is valid PromQL: each becomes a
# recording rule that promtool checks.
run_ok "dashboard structure" "$PY" "$SRC/tests/cli/dashboard.py" check "$DASH"
"$PY" "$SRC/tests/cli/dashboard.py" exprs "$DASH" > "$T/exprs.tsv" || fail "dashboard queries could not be listed"
n=$(wc -l < "$T/exprs.tsv")
[ "$n" -ge 30 ] && ok || fail "dashboard queries: got $n, expected at least 30"
"$PY" - "$T/exprs.tsv" > "$T/dash-rules.yml" <<'PYEOF'
import json, sys
print("groups:\n  - name: dashboard\n    rules:")
for i, line in enumerate(open(sys.argv[1])):
    where, expr = line.rstrip("\n").split("\t", 1)
    print("      - record: dashboard:q%d  # %s\n        expr: %s" % (i, where.replace("#", ""), json.dumps(expr)))
PYEOF
out=$(promtool check rules "$T/dash-rules.yml" 2>&1)
expect_match "every dashboard query parses" "$out" "SUCCESS: $n rules found"
# The cluster dashboard: the same, and every recorded series it reads is one
# that gpumon-rules.yml records.
run_ok "cluster dashboard structure" "$PY" "$SRC/tests/cli/dashboard.py" check "$CDASH"
"$PY" "$SRC/tests/cli/dashboard.py" exprs "$CDASH" > "$T/cexprs.tsv" || fail "cluster dashboard queries could not be listed"
n=$(wc -l < "$T/cexprs.tsv")
[ "$n" -ge 15 ] && ok || fail "cluster dashboard queries: got $n, expected at least 15"
"$PY" - "$T/cexprs.tsv" > "$T/cdash-rules.yml" <<'PYEOF'
import json, sys
print("groups:\n  - name: dashboard\n    rules:")
for i, line in enumerate(open(sys.argv[1])):
    where, expr = line.rstrip("\n").split("\t", 1)
    print("      - record: dashboard:q%d  # %s\n        expr: %s" % (i, where.replace("#", ""), json.dumps(expr)))
PYEOF
out=$(promtool check rules "$T/cdash-rules.yml" 2>&1)
expect_match "every cluster dashboard query parses" "$out" "SUCCESS: $n rules found"
"$PY" - "$T/cexprs.tsv" "$P/gpumon-rules.yml" <<'PYEOF' && ok || fail "cluster dashboard: recorded series it reads"
import re, sys, yaml
recorded = {r["record"] for g in yaml.safe_load(open(sys.argv[2]))["groups"] for r in g["rules"]}
used = set(re.findall(r"\b[a-z_]+:[a-z_]+:[a-z0-9_]+\b", open(sys.argv[1]).read()))
if used - recorded:
    print("the cluster dashboard reads series no rule records: %s" % sorted(used - recorded))
sys.exit(1 if used - recorded or not used else 0)
PYEOF

# systemd unit: the hardening the unit promises, and systemd's own check
# (with the binary and man page of this build) where systemd is installed.
U="$DEPLOY/systemd/gpumon.service"
for d in "ExecStart=/usr/local/bin/gpumon serve \$GPUMON_ARGS" "DynamicUser=yes" "ProtectSystem=strict" "ProtectHome=yes" \
  "NoNewPrivileges=yes" "PrivateTmp=yes" "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" \
  "DevicePolicy=closed" "DeviceAllow=char-nvidia-frontend rw" "Restart=on-failure" "CapabilityBoundingSet="; do
  expect_eq "gpumon.service has '$d'" "$(grep -cxF "$d" "$U")" 1
done
if command -v systemd-analyze > /dev/null; then
  mkdir -p "$T/man/man1" && cp "$SRC/man/gpumon.1" "$T/man/man1/"
  sed "s#/usr/local/bin/gpumon#$GPUMON#" "$U" > "$T/gpumon.service"
  # Documentation=man:gpumon(1) is looked up with man, when there is one (a minimal system has none);
  # a chroot's cgroup, which systemd-analyze cannot use, is its own note, not the unit's
  man=(); command -v man > /dev/null || { man=(--man=no); echo "note: no man installed: the unit's man page link not checked"; }
  out=$(MANPATH="$T/man" SYSTEMD_COLORS=no systemd-analyze verify ${man[@]+"${man[@]}"} "$T/gpumon.service" 2>&1); rc=$?
  out=$(printf '%s\n' "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -v "^Couldn't move remaining userspace processes, ignoring")
  expect_eq "systemd-analyze verify gpumon.service: exit status and output" "$rc:$out" "0:"
else
  echo "note: systemd-analyze not installed, gpumon.service syntax not verified"
fi

# promtool's linter on what gpumon serve exposes: no problem with gpumon's
# own names; with --compat dcgm, problems only on the DCGM_ names, whose
# spelling is dcgm-exporter's and not ours to change.
port=$(free_ports)
serve healthy "$port" --scenario healthy
if wait_url healthy "http://127.0.0.1:$port/metrics"; then   # serve answers only after its first collection
  curl -sf "http://127.0.0.1:$port/metrics" > "$T/metrics.txt"
  expect_match "metrics include GPU series" "$(cat "$T/metrics.txt")" '^gpumon_gpu_utilization_ratio\{'
  out=$(promtool check metrics < "$T/metrics.txt" 2>&1); rc=$?
  expect_eq "promtool check metrics on gpumon serve: exit status and output" "$rc:$out" "0:"
fi
stop healthy
port=$(free_ports)
serve compat "$port" --scenario healthy --compat dcgm --collect.processes
if wait_url compat "http://127.0.0.1:$port/metrics"; then
  curl -sf "http://127.0.0.1:$port/metrics" > "$T/compat.txt"
  expect_match "compat metrics include DCGM names" "$(cat "$T/compat.txt")" '^DCGM_FI_DEV_GPU_UTIL\{'
  out=$(promtool check metrics < "$T/compat.txt" 2>&1); rc=$?
  expect_match "promtool check metrics --compat dcgm: exit 0 (clean) or 3 (lint problems)" "$rc" '^(0|3)$'
  expect_eq "promtool lint problems on non-DCGM names with --compat dcgm" "$(printf '%s\n' "$out" | grep -v '^DCGM_' | grep -v '^$')" ""
fi
stop compat

done_tests
