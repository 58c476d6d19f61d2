# The files in deploy/, checked with the real Prometheus tools: alert rules
# and their unit tests (which must show every alert firing and not firing),
# the scrape configs, the web config (TLS + basic auth), every query of the
# Grafana dashboard, the systemd unit, and promtool's linter on what
# `gpumon serve` exposes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.sh"
need_prometheus
P="$DEPLOY/prometheus"
DASH="$DEPLOY/grafana/gpumon-dashboard.json"

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
        if not ann.get("summary") or "$labels.instance" not in ann.get("description", ""):
            print("alert %s: summary, or description naming the instance, missing" % a); bad = True
        if "gpumon_gpu_" in r["expr"] and "$labels.gpu" not in ann.get("description", ""):
            print("alert %s: per-GPU alert whose description does not name the gpu" % a); bad = True
sys.exit(1 if bad else 0)
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
  out=$(MANPATH="$T/man" systemd-analyze verify "$T/gpumon.service" 2>&1); rc=$?
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
