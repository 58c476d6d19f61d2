# gpumon serve: the exposition (values, labels, types, promtool's linter),
# /health and staleness under a hung NVML call, lost GPUs, XIDs, dcgm
# names, per-process series, the textfile, TLS with basic auth, and every
# start-up error (bad web config, address in use) leaving nothing running.
. "$(dirname "$0")/lib.sh"
command -v curl > /dev/null || { fail "curl is not installed (scripts/deps.sh installs it)"; done_tests; exit 1; }
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# serve NAME ARGS...: starts gpumon serve in the background on a free port; sets PORT
serve() {
  local name=$1; shift
  PORT=$(free_port)
  "$GPUMON" serve --nvml "$SIM" --web.listen-address "127.0.0.1:$PORT" "$@" 2> "$T/$name.err" &
  PIDS+=($!)
  LASTPID=$!
  local up='curl -sk -o /dev/null "http://127.0.0.1:$PORT/" || curl -sk -o /dev/null "https://127.0.0.1:$PORT/"'
  wait_for "serve $name to answer" "$up || ! kill -0 $LASTPID 2> /dev/null" && eval "$up" && return 0
  fail "serve $name did not start: $(cat "$T/$name.err")"
}
metric() {  # metric FILE 'name{labels-regex}' -> value of the first matching series
  grep -E "^$2 " "$1" | head -1 | awk '{print $NF}'
}

# --- exposition on the healthy scenario -----------------------------------
GPUMON_SIM_SCENARIO="$SCN/healthy.scn" serve healthy --interval 100ms
curl -s -D "$T/h.hdr" "http://127.0.0.1:$PORT/metrics" > "$T/m.txt"
expect_match "content type" "$(cat "$T/h.hdr")" "Content-Type: text/plain; version=0.0.4; charset=utf-8"
if command -v promtool > /dev/null; then
  lint=$(promtool check metrics < "$T/m.txt" 2>&1); rc=$?
  expect_eq "promtool check metrics says nothing" "$rc:$lint" "0:"
else fail "promtool is not installed (scripts/deps.sh installs prometheus)"; fi
expect_eq "info series per GPU" "$(grep -c '^gpumon_gpu_info{' "$T/m.txt")" 2
expect_match "info labels" "$(grep '^gpumon_gpu_info{gpu="1"' "$T/m.txt")" \
  'uuid="GPU-[0-9a-f-]+",name="NVIDIA H100 80GB HBM3",pci_bus_id="[0-9A-F:.]+",driver_version="610.43.02"\} 1$'
expect_eq "memory total in bytes" "$(metric "$T/m.txt" 'gpumon_gpu_memory_total_bytes\{gpu="0",[^}]*\}')" \
  $((81559 * 1048576))
expect_eq "one HELP per family" "$(grep -c '^# HELP gpumon_gpu_clock_hertz ' "$T/m.txt")" 1
expect_eq "clock domains" "$(grep -c '^gpumon_gpu_clock_hertz{gpu="0",.*clock="' "$T/m.txt")" 3
expect_eq "reasons per GPU" "$(grep -c '^gpumon_gpu_clock_event_reason_active{gpu="0",.*reason="' "$T/m.txt")" 8
expect_match "energy is a counter" "$(cat "$T/m.txt")" "# TYPE gpumon_gpu_energy_joules_total counter"
"$PY" - "$T/m.txt" <<'EOF' && ok || fail "values in base units and ranges"
import re, sys
v = {}
for line in open(sys.argv[1]):
    if line.startswith('#'): continue
    name, val = line.rsplit(' ', 1)
    v[name] = float(val)
def get(prefix): return [x for k, x in v.items() if k.startswith(prefix)]
u = get('gpumon_gpu_utilization_ratio{')
assert len(u) == 2 and all(0.7 <= x <= 1 for x in u), u
assert all(400 <= x <= 700 for x in get('gpumon_gpu_power_watts{')), get('gpumon_gpu_power_watts{')
assert all(x == 700 for x in get('gpumon_gpu_power_limit_watts{'))
sm = [x for k, x in v.items() if k.startswith('gpumon_gpu_clock_max_hertz{') and 'clock="sm"' in k]
assert sm == [1980e6, 1980e6], sm
assert get('gpumon_host_cpus') and all(k.find('gpu=') < 0 for k in v if k.startswith('gpumon_host_'))
assert v['gpumon_exporter_gpus'] == 2 and v['gpumon_exporter_gpus_lost'] == 0
assert 0 <= v['gpumon_exporter_snapshot_age_seconds'] < 30, v['gpumon_exporter_snapshot_age_seconds']   # sane (a loaded machine may make it old)
assert not get('gpumon_process_gpu_memory_bytes'), 'processes only with --collect.processes'
assert not get('DCGM_'), 'dcgm names only with --compat dcgm'
EOF
s1=$(metric "$T/m.txt" gpumon_exporter_scrapes_total)
s2=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^gpumon_exporter_scrapes_total/ {print $2}')
expect_eq "scrapes counted" "$s2" $((s1 + 1))
expect_eq "health" "$(curl -s -w ' %{http_code}' "http://127.0.0.1:$PORT/health" | tr -d '\n')" "ok 200"
expect_match "landing page links" "$(curl -s "http://127.0.0.1:$PORT/")" 'href="metrics".*|href="health"'
expect_eq "404" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nope")" 404
expect_eq "POST refused" "$(curl -s -o /dev/null -w '%{http_code}' -d x=1 "http://127.0.0.1:$PORT/metrics")" 405
expect_eq "HEAD" "$(curl -s -I -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")" 200
big=$(head -c 40000 /dev/zero | tr '\0' a)
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $big" "http://127.0.0.1:$PORT/metrics")
expect_match "oversized header refused" "$code" '^(4[0-9][0-9]|000)$'
expect_eq "still serving after it" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")" 200
# HTTP versions: 1.0 and 1.1 answered, any other refused with 505, none (HTTP/0.9) closed without a body
# (libmicrohttpd 0.9.75 answers that one 400 itself; 0.9.72 hands it to gpumon)
"$PY" - "$PORT" <<'EOF' && ok || fail "HTTP versions (see above)"
import socket, sys
def ask(line):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.sendall(line)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return data
bad = False
for v, want in ((b"HTTP/1.0", b" 200 "), (b"HTTP/1.1", b" 200 "), (b"HTTP/1.2", b" 505 "), (b"HTTP/2.0", b" 505 "),
                (b"HTTP/9.9", b" 505 ")):   # a 1.0 request is answered in 1.0 (0.9.72) or 1.1 (0.9.75)
    got = ask(b"GET /metrics " + v + b"\r\nHost: x\r\nConnection: close\r\n\r\n")
    if got[:8] not in (b"HTTP/1.0", b"HTTP/1.1") or got[8:13] != want:
        print("GET /metrics %s: got %r, expected %r" % (v.decode(), got[:40], want)); bad = True
got = ask(b"GET /metrics\r\n\r\n")
if got and not got.startswith(b"HTTP/1.1 400 "):
    print("GET /metrics with no version: got %r, expected nothing (closed) or a 400" % got[:40]); bad = True
sys.exit(1 if bad else 0)
EOF

# address in use: a clear error, exit 1, nothing left running
"$GPUMON" serve --nvml "$SIM" --web.listen-address "127.0.0.1:$PORT" > /dev/null 2> "$T/inuse.err"; rc=$?
expect_eq "address in use exits 1" "$rc" 1
expect_match "address in use message" "$(cat "$T/inuse.err")" "127.0.0.1:$PORT.*Address already in use"
kill -TERM "$LASTPID"; wait "$LASTPID"; rc=$?
expect_eq "SIGTERM exits 0" "$rc" 0

# --- dcgm names, processes ------------------------------------------------
GPUMON_SIM_SCENARIO="$SCN/healthy.scn" serve dcgm --interval 100ms --compat dcgm --collect.processes \
  --collect.processes.max 1
curl -s "http://127.0.0.1:$PORT/metrics" > "$T/d.txt"
expect_match "dcgm labels" "$(grep '^DCGM_FI_DEV_GPU_UTIL{gpu="0"' "$T/d.txt")" \
  'device="nvidia0",Hostname="[^"]+",UUID="GPU-[^"]+",modelName="NVIDIA H100 80GB HBM3"'
expect_eq "dcgm FB_USED in MiB equals ours in bytes" \
  "$(metric "$T/d.txt" 'DCGM_FI_DEV_FB_USED\{gpu="0",[^}]*\}')" \
  "$(( $(metric "$T/d.txt" 'gpumon_gpu_memory_used_bytes\{gpu="0",[^}]*\}') / 1048576 ))"
expect_match "dcgm energy counter in mJ" "$(cat "$T/d.txt")" "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter"
for f in DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_POWER_USAGE DCGM_FI_DEV_SM_CLOCK DCGM_FI_DEV_MEM_CLOCK DCGM_FI_DEV_FB_FREE \
         DCGM_FI_DEV_MEM_COPY_UTIL; do
  expect_eq "$f per GPU" "$(grep -c "^$f{" "$T/d.txt")" 2
done
expect_match "process series" "$(grep '^gpumon_process_gpu_memory_bytes' "$T/d.txt" | head -1)" \
  'pid="51200",process_name="python3 train.py --model llama-8b",user="",container="",pod_uid=""\} [0-9]+$'
expect_eq "process count bounded per GPU" "$(grep -c '^gpumon_process_gpu_memory_bytes{gpu="0"' "$T/d.txt")" 1
kill "$LASTPID"; wait "$LASTPID"

# --- a hung NVML call: scrapes never wait for it, staleness shows ----------
# (no timing: scrapes answered while /health still says stale, before and after them, did not wait for
# the 10 s hang to end)
hang_at=$(awk '$1 == "at" && $3 == "hang" {print $2; exit}' "$SCN/hang.scn")
GPUMON_SIM_START=$((hang_at - 1)) GPUMON_SIM_SCENARIO="$SCN/hang.scn" serve hang --interval 200ms
health() { curl -s -w ' %{http_code}' "http://127.0.0.1:$PORT/health" | tr -d '\n'; }
wait_for "the collector to hang (health stale)" '[ "$(health | grep -c " 503$")" = 1 ]'
expect_match "health during a hang" "$(health)" "^stale: .* 503$"
codes=""
for i in 1 2 3 4 5; do codes="$codes$(curl -s -o "$T/hang.txt" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics") "; done
expect_eq "scrapes answered during the hang" "$codes" "200 200 200 200 200 "
expect_match "... while it still lasts" "$(health)" "^stale: .* 503$"
wait_for "the snapshot's age past 1.5 s" '"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) > 1.5 else 1)" \
  "$(curl -s "http://127.0.0.1:$PORT/metrics" | awk "/^gpumon_exporter_snapshot_age_seconds/ {print \$2}")"' 
kill "$LASTPID"; wait "$LASTPID"; rc=$?
expect_eq "exit while the collector hangs" "$rc" 0

# --- a lost GPU and XIDs --------------------------------------------------
lost_at=$(awk '$1 == "at" && $3 == "lost" {print $2; exit}' "$SCN/gpu-lost.scn")
GPUMON_SIM_START=$((lost_at - 1)) GPUMON_SIM_SCENARIO="$SCN/gpu-lost.scn" serve lost --interval 100ms
wait_for "the GPU to be lost" 'curl -s "http://127.0.0.1:$PORT/metrics" > "$T/l.txt" &&
  grep -q "^gpumon_exporter_gpus_lost 1$" "$T/l.txt" && grep -q "xid=\"79\"} 1$" "$T/l.txt"' 
expect_eq "one GPU lost" "$(metric "$T/l.txt" gpumon_exporter_gpus_lost)" 1
lost_line=$(grep -E '^gpumon_gpu_lost\{.*\} 1$' "$T/l.txt")
lg=$(printf '%s' "$lost_line" | sed -n 's/.*gpu="\([0-9]*\)".*/\1/p')
expect_match "lost series" "$lost_line" 'gpu="[0-9]+"'
expect_eq "a lost GPU's values vanish" "$(grep -c "^gpumon_gpu_utilization_ratio{gpu=\"$lg\"" "$T/l.txt")" 0
expect_eq "its identity stays" "$(grep -c "^gpumon_gpu_info{gpu=\"$lg\"" "$T/l.txt")" 1
expect_match "Xid 79 counted on it" "$(cat "$T/l.txt")" "gpumon_gpu_xid_errors_total\{gpu=\"$lg\",[^}]*xid=\"79\"\} 1"
kill "$LASTPID"; wait "$LASTPID"
GPUMON_SIM_SPEED=10 GPUMON_SIM_SCENARIO="$SCN/xid-storm.scn" serve xid --interval 1s   # 0.1 s apart in wall time
wait_for "an XID 31 storm and XID 48 on GPU 1" 'curl -s "http://127.0.0.1:$PORT/metrics" > "$T/x.txt" &&
  [ "$(metric "$T/x.txt" "gpumon_gpu_xid_errors_total\{gpu=\"0\",[^}]*xid=\"31\"\}")" -ge 20 ] 2> /dev/null &&
  grep -q "gpumon_gpu_xid_errors_total{gpu=\"1\",[^}]*xid=\"48\"} 1" "$T/x.txt"' 
n31=$(metric "$T/x.txt" 'gpumon_gpu_xid_errors_total\{gpu="0",[^}]*xid="31"\}')
expect_match "xid 31 storm counted" "${n31:-none}" '^[0-9]+$'
[ "${n31:-0}" -ge 20 ] && ok || fail "xid 31 count: got ${n31:-none}, expected >= 20"
expect_match "xid 48 on GPU 1" "$(cat "$T/x.txt")" 'gpumon_gpu_xid_errors_total\{gpu="1",[^}]*xid="48"\} 1'
expect_match "last seen timestamp" "$(grep '^gpumon_gpu_xid_last_seen_timestamp_seconds{gpu="1"' "$T/x.txt")" ' 1[0-9]{9}(\.[0-9]+)?$'
kill "$LASTPID"; wait "$LASTPID"

# --- zero GPUs: the exporter still answers, so alerts can see the node --------
GPUMON_SIM_SCENARIO="$SCN/zero-gpus.scn" serve zero --interval 100ms
curl -s "http://127.0.0.1:$PORT/metrics" > "$T/z.txt"
expect_eq "zero GPUs exported" "$(metric "$T/z.txt" gpumon_exporter_gpus)" 0
expect_eq "no per-GPU series" "$(grep -c '^gpumon_gpu_[a-z_]*{' "$T/z.txt")" 0
expect_match "says so" "$(cat "$T/zero.err")" "NVML reports no GPU; serving the exporter's own metrics"
kill "$LASTPID"; wait "$LASTPID"

# --- textfile -------------------------------------------------------------
mkdir "$T/tf"
serve textfile --interval 100ms --textfile "$T/tf/gpumon.prom"
wait_for "the textfile" '[ -s "$T/tf/gpumon.prom" ]'
expect_eq "textfile written" "$(ls "$T/tf")" "gpumon.prom"
"$PY" - "$T/tf/gpumon.prom" <<'EOF' && ok || fail "textfile: every series is NAME{LABELS} VALUE, no timestamp"
import re, sys
series = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? [-+0-9.eE]+(NaN|Inf)?$')
lines = [l.rstrip('\n') for l in open(sys.argv[1]) if not l.startswith('#')]
bad = [l for l in lines if not series.match(l)]
assert lines and not bad, bad[:3]
EOF
command -v promtool > /dev/null && { promtool check metrics < "$T/tf/gpumon.prom" > /dev/null 2>&1 && ok || fail "promtool check metrics on the textfile"; }
chmod 0555 "$T/tf"
if [ "$(id -u)" -ne 0 ]; then
  sleep 0.4
  expect_match "unwritable textfile warned once" "$(grep -c 'textfile' "$T/textfile.err")" '^1$'
  expect_eq "serving goes on" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")" 200
fi
chmod 0755 "$T/tf"
kill "$LASTPID"; wait "$LASTPID"
"$GPUMON" serve --nvml "$SIM" --web.listen-address 127.0.0.1:0 --textfile /dev/full/x.prom > /dev/null 2> "$T/tfull.err" &
p=$!; PIDS+=($p)
wait_for "the textfile failure to be said" 'grep -q textfile "$T/tfull.err"'
kill "$p"; wait "$p"; rc=$?
expect_eq "textfile failing does not stop serve" "$rc" 0
expect_eq "textfile failure reported once" "$(grep -c 'textfile' "$T/tfull.err")" 1

# --- web config: TLS and basic auth ---------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 > /dev/null 2>&1 || fail "openssl could not make a test certificate"
HASH='$2b$10$/1ckNswVKatls7K3/U3.0.HKTdZ7f/yLs7b5qVQoVmqgN9NhZIycG'   # bcrypt of "s3cret"
cat > "$T/web.yml" <<EOF
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
  min_version: TLS12
basic_auth_users:
  prometheus: $HASH
EOF
if command -v promtool > /dev/null; then
  promtool check web-config "$T/web.yml" > /dev/null 2>&1 && ok || fail "promtool check web-config refuses our example"
fi
serve tls --web.config.file "$T/web.yml"
code() { curl -sk -o /dev/null -w '%{http_code}' "$@"; }
expect_eq "TLS with credentials" "$(code -u prometheus:s3cret "https://127.0.0.1:$PORT/metrics")" 200
expect_eq "TLS again (cached check)" "$(code -u prometheus:s3cret "https://127.0.0.1:$PORT/metrics")" 200
expect_eq "no credentials" "$(code "https://127.0.0.1:$PORT/metrics")" 401
expect_eq "wrong password" "$(code -u prometheus:wrong "https://127.0.0.1:$PORT/metrics")" 401
expect_eq "unknown user" "$(code -u alice:s3cret "https://127.0.0.1:$PORT/metrics")" 401
expect_match "challenge" "$(curl -sk -D - -o /dev/null "https://127.0.0.1:$PORT/metrics")" 'WWW-Authenticate: Basic realm="gpumon"'
expect_eq "health also needs credentials" "$(code "https://127.0.0.1:$PORT/health")" 401
# plain HTTP on the TLS port: a 400 in plain text that says what the port speaks, then closed
expect_eq "plain HTTP refused on the TLS port" "$(curl -s -o "$T/plain.txt" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")" 400
expect_match "and told why" "$(cat "$T/plain.txt")" "this port speaks TLS: use https://"
expect_eq "TLS 1.1 refused" "$(code --tls-max 1.1 -u prometheus:s3cret "https://127.0.0.1:$PORT/metrics")" 000
expect_eq "certificate verifies" "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$T/cert.pem" -u prometheus:s3cret \
  "https://127.0.0.1:$PORT/metrics")" 200
kill "$LASTPID"; wait "$LASTPID"

# --- what is not HTTP, or not valid HTTP/1.1 ---------------------------------
# Junk and a TLS handshake on the plain port are closed at once, not held until the idle timeout
# (60 s here: the client gives up at 30, so a held connection fails the check); HTTP/1.1 without Host,
# or with a space before a header's colon, is a 400 (RFC 9112); HTTP/1.0 needs no Host.
serve strict --interval 100ms --web.timeout 60s
"$PY" - "$PORT" <<'PYEOF' && ok || fail "junk and TLS on the plain port, requests without Host (above)"
import re, socket, sys
port = int(sys.argv[1])
def exchange(data, wait=30):
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    s.sendall(data)
    try:
        reply = s.recv(200)   # b"": closed; an HTTP reply otherwise
    except ConnectionResetError:
        reply = b""
    except socket.timeout:
        reply = b"(held)"
    s.close()
    return reply
hello = bytes.fromhex("16030100a5010000a10303") + bytes(32) + b"\x00\x00\x02\x13\x01\x01\x00"
for name, data in (("TLS ClientHello", hello), ("binary junk", b"\x00\xff\xfe\x01\x02\x03")):
    got = exchange(data)
    assert got == b"", "%s on the plain port: %r, expected the connection closed" % (name, got)
# want: a pattern; libmicrohttpd 0.9.72 (Debian 11) answers HTTP/1.0 in 1.0, 0.9.75 in 1.1
for name, req, want in (("HTTP/1.1 without Host", b"GET /metrics HTTP/1.1\r\n\r\n", rb"HTTP/1\.1 400"),
                        ("Host : x", b"GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", rb"HTTP/1\.1 400"),
                        ("HTTP/1.0 without Host", b"GET /health HTTP/1.0\r\n\r\n", rb"HTTP/1\.[01] 200"),
                        ("HTTP/1.1 with Host", b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                         rb"HTTP/1\.1 200")):
    got = exchange(req)
    assert re.match(want, got), "%s: %r, expected %r" % (name, got[:40], want)
PYEOF
kill "$LASTPID"; wait "$LASTPID"

# bad web configs: exit 2, a message naming the problem, and no server left
bad() {  # bad WHAT REGEX  (config text on stdin)
  cat > "$T/bad.yml"
  local p; p=$(free_port)
  "$GPUMON" serve --nvml "$SIM" --web.listen-address "127.0.0.1:$p" --web.config.file "$T/bad.yml" \
    > /dev/null 2> "$T/bad.err"; local rc=$?
  expect_eq "$1: exit" "$rc" 2
  expect_match "$1: message" "$(cat "$T/bad.err")" "$2"
  expect_eq "$1: nothing listening" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/")" 000
}
printf 'basic_auth_users:\n  bob: plaintext\n' | bad "plain password" "basic_auth_users.bob: not a bcrypt hash"
printf 'tls_server_config:\n  cert_file: nope.pem\n  key_file: key.pem\n' | bad "missing cert" "cert_file: cannot open .*nope.pem"
printf 'tls_server_config:\n  cert_file: cert.pem\n' | bad "no key" "both cert_file and key_file"
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  min_version: TLS9\n' | bad "bad version" "TLS9"
printf 'basic_auth_user:\n  bob: x\n' | bad "misspelt key" '"basic_auth_user": unknown'
printf 'tls_server_config: [\n' | bad "not YAML" "not valid YAML"
# a web config that asks for nothing: the user wanted protection, so gpumon does not start without it
printf '' | bad "an empty web config" "the file is empty: it configures neither TLS nor basic auth"
printf '# TLS later\n' | bad "a web config of comments" "the file is empty"
printf 'basic_auth_users:\n' | bad "basic_auth_users with nobody" "basic_auth_users: names no user, so nothing would be protected"
"$PY" -c 'print("basic_auth_users: " + "[" * 40000 + "]" * 40000)' | bad "nested 40,000 deep" "nested more than 16 levels deep"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key2.pem" -out /dev/null -days 1 -subj /CN=x > /dev/null 2>&1
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key2.pem\n' | bad "key of another cert" "cannot be used together"
mkfifo "$T/fifo.yml"
timeout 10 "$GPUMON" serve --nvml "$SIM" --web.config.file "$T/fifo.yml" > /dev/null 2> "$T/bad.err"; rc=$?
expect_eq "a FIFO as web config: refused at once" "$rc:$(grep -c 'fifo.yml: not a regular file' "$T/bad.err")" "2:1"
"$GPUMON" serve --nvml "$SIM" --web.config.file "$T/none.yml" > /dev/null 2> "$T/bad.err"; rc=$?
expect_eq "missing web config" "$rc:$(grep -c 'none.yml' "$T/bad.err")" "2:1"
"$GPUMON" serve --nvml "$SIM" --web.listen-address "127.0.0.1:99999" > /dev/null 2> "$T/bad.err"; rc=$?
expect_match "bad port" "$rc $(cat "$T/bad.err")" '^2 .*not a port number'
"$GPUMON" serve --nvml "$SIM" --compat prom > /dev/null 2> "$T/bad.err"; rc=$?
expect_eq "bad --compat" "$rc" 2
# Port 0: the start-up line says the port it got.
"$GPUMON" serve --nvml "$SIM" --web.listen-address 127.0.0.1:0 > /dev/null 2> "$T/p0.err" & p0=$!
wait_for "port 0's start-up line" 'grep -q serving "$T/p0.err"'
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/p0.err")
[ -n "$port" ] && [ "$port" != 0 ] && ok || fail "port 0: the start-up line names no port: $(cat "$T/p0.err")"
expect_eq "port 0: that port answers" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")" 200
kill $p0; wait $p0

# --- verdicts: the rules of run on the collector ----------------------------
# straggler: GPU 5 at ~45% among seven at ~95%; a 5 s window so verdicts come quickly (and a collector
# kept off the CPU for a second, ASan on a loaded machine, still leaves the 80% of it that a verdict needs).
GPUMON_SIM_SCENARIO="$SCN/straggler.scn" serve verdicts --interval 100ms --window 5s
verdict='"gpumon_diagnosis_active\{gpu=\"5\",[^}]*rule=\"straggler\"[^}]*\} 1$"'
held() { metric "$1" 'gpumon_diagnosis_seconds_total\{gpu="5",[^}]*rule="straggler"[^}]*\}'; }
wait_for "the straggler verdict, held a while" "curl -s http://127.0.0.1:$PORT/metrics > '$T/v1.txt' &&
  grep -Eq $verdict '$T/v1.txt' && [ \"\$(held '$T/v1.txt')\" != 0 ]"
last() { metric "$1" gpumon_exporter_last_success_timestamp_seconds; }
wait_for "collections after the first scrape" 'curl -s "http://127.0.0.1:$PORT/metrics" > "$T/v2.txt" &&
  "$PY" -c "import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) >= 1 else 1)" "$(last "$T/v1.txt")" "$(last "$T/v2.txt")"'
kill "$LASTPID"; wait "$LASTPID" 2>/dev/null
v=$(cat "$T/v2.txt")
expect_match "verdict: GPU 5 straggler" "$v" '^gpumon_diagnosis_active\{gpu="5",uuid="GPU-[^"]+",rule="straggler",severity="warning"\} 1$'
expect_eq "verdicts: the other seven healthy" "$(grep -c '^gpumon_diagnosis_active{.*rule="healthy",severity="ok"} 1$' "$T/v2.txt")" 7
a=$(metric "$T/v1.txt" 'gpumon_diagnosis_seconds_total\{gpu="5",[^}]*rule="straggler"[^}]*\}')
b=$(metric "$T/v2.txt" 'gpumon_diagnosis_seconds_total\{gpu="5",[^}]*rule="straggler"[^}]*\}')
# the counter grows by the time between the two snapshots' collections (their own timestamps)
"$PY" -c "import sys; a, b, t1, t2 = map(float, sys.argv[1:5]); assert a > 0 and abs((b - a) - (t2 - t1)) < 0.35, (a, b, t1, t2)" \
  "$a" "$b" "$(last "$T/v1.txt")" "$(last "$T/v2.txt")" && ok || fail "verdict seconds: a counter that grows with time held ($a then $b)"
expect_match "window utilization of the straggler" "$(metric "$T/v2.txt" 'gpumon_diagnosis_window_utilization_ratio\{gpu="5",[^}]*\}')" '^0\.[3-5]'
expect_match "window SM activity (GPM on H100s)" "$v" '^gpumon_diagnosis_window_sm_active_ratio\{gpu="0",'
if command -v promtool > /dev/null; then
  out=$(promtool check metrics < "$T/v2.txt" 2>&1); rc=$?
  expect_eq "promtool check metrics with verdicts" "$rc:$out" "0:"
fi
# No GPM on A100s: no SM figure, not a 0. (The verdict reads the real host's iowait, which other tests
# may raise: small batch, or input-bound-io then.)
GPUMON_SIM_SCENARIO="$SCN/small-batch.scn" serve verdicts-a100 --interval 100ms --window 1s
wait_for "the A100's verdict" 'curl -s "http://127.0.0.1:$PORT/metrics" > "$T/v3.txt" &&
  grep -Eq "^gpumon_diagnosis_active\{gpu=\"0\",[^}]*rule=\"(small-batch|input-bound-io)\"" "$T/v3.txt"' 
kill "$LASTPID"; wait "$LASTPID" 2>/dev/null
expect_match "A100: small-batch verdict" "$(cat "$T/v3.txt")" '^gpumon_diagnosis_active\{gpu="0",[^}]*rule="(small-batch|input-bound-io)",severity="warning"\} 1$'
expect_no_match "A100: no SM activity figure" "$(cat "$T/v3.txt")" '^gpumon_diagnosis_window_sm_active_ratio'
"$GPUMON" serve --nvml "$SIM" --window 0 > /dev/null 2> "$T/bad.err"; rc=$?
expect_match "serve --window 0: refused" "$rc $(cat "$T/bad.err")" '^2 .*--window'
"$GPUMON" serve --nvml "$SIM" --threshold nope=1 > /dev/null 2> "$T/bad.err"; rc=$?
expect_match "serve --threshold: unknown name" "$rc $(cat "$T/bad.err")" '^2 .*unknown threshold "nope"'
expect_match "serve --list-rules" "$("$GPUMON" serve --list-rules)" "  straggler +warning"
done_tests
