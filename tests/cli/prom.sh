# prom.sh: helpers for the tests that drive the real Prometheus tools
# (test_deploy.sh, test_prometheus.sh); source it after lib.sh. Such a test
# skips (exit 0) only when the Prometheus package is missing, which
# scripts/deps.sh installs. Background processes are started with `start`,
# stopped with `stop` (which checks they exit 0 on SIGTERM) and, whatever
# happens, killed on exit.
DEPLOY="$SRC/deploy"
declare -A PIDS=()

need_prometheus() {
  local t
  for t in promtool prometheus; do
    command -v "$t" > /dev/null || { echo "SKIP: $t is not installed (scripts/deps.sh installs package prometheus)"; exit 0; }
  done
  for t in curl openssl; do
    command -v "$t" > /dev/null || { echo "FAIL: $t is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
  done
}

prom_cleanup() {
  local n
  for n in "${!PIDS[@]}"; do kill -9 "${PIDS[$n]}" 2> /dev/null; done
  wait 2> /dev/null
  rm -rf "$T"
}
trap prom_cleanup EXIT

# free_ports [N]: N (default 1) distinct TCP ports on 127.0.0.1 that nothing listens on right now
free_ports() {
  "$PY" -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "${1:-1}"
}

# start NAME CMD...: runs CMD in the background, output in $T/NAME.log
start() { local name=$1; shift; "$@" > "$T/$name.log" 2>&1 & PIDS[$name]=$!; }

# serve NAME PORT ARGS...: gpumon serve on 127.0.0.1:PORT, simulated GPUs, 200 ms interval
serve() {
  local name=$1 port=$2; shift 2
  start "$name" "$GPUMON" serve --web.listen-address "127.0.0.1:$port" --interval 200ms --nvml "$SIM" "$@"
}

# stop NAME: SIGTERM, then up to 60 s for a clean exit 0 (SIGKILL and a failure otherwise; the limit
# only ends a wait that would hang)
stop() {
  local name=$1 pid=${PIDS[$1]} i rc
  kill "$pid" 2> /dev/null
  for i in $(seq 600); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2> /dev/null; then
    kill -9 "$pid"; fail "$name: still running 60 s after SIGTERM, killed"
  fi
  wait "$pid"; rc=$?
  unset "PIDS[$name]"
  expect_eq "$name exit status after SIGTERM" "$rc" 0
  [ "$rc" = 0 ] || tail -5 "$T/$name.log" >&2
}

# wait_url NAME URL [CURL ARGS...]: until URL answers 200 (120 s at most: a start-up on a loaded machine
# may be slow); NAME's log on failure
wait_url() {
  local name=$1 url=$2 i; shift 2
  for i in $(seq 1200); do
    curl -sf -o /dev/null "$@" "$url" && { ok; return 0; }
    kill -0 "${PIDS[$name]}" 2> /dev/null || break
    sleep 0.1
  done
  fail "$name: got no answer 200 from $url, expected one within 120 s; its log: $(tail -5 "$T/$name.log")"
  return 1
}

# make_cert DIR: a CA (DIR/ca.crt) and a server certificate for localhost and
# 127.0.0.1 signed by it (DIR/server.crt, DIR/server.key)
make_cert() {
  local d=$1
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj "/CN=gpumon test CA" -keyout "$d/ca.key" -out "$d/ca.crt" 2> /dev/null &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
    -keyout "$d/server.key" -out "$d/server.csr" 2> /dev/null &&
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$d/ext.cnf" &&
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
    -extfile "$d/ext.cnf" -out "$d/server.crt" 2> /dev/null
}

# web_config OUT DIR: the shipped web-config.yml with its certificate paths
# pointed at make_cert's files in DIR (users and hashes as shipped)
web_config() {
  sed -e "s#^\( *cert_file:\).*#\1 $2/server.crt#" -e "s#^\( *key_file:\).*#\1 $2/server.key#" \
    "$DEPLOY/prometheus/web-config.yml" > "$1"
}

# The example credentials documented in deploy/prometheus/web-config.yml
EXAMPLE_USER=prometheus
EXAMPLE_PASSWORD=gpumon-example
