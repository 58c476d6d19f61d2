# The live page (docs/serve.md, "The live page"): its JSON API on gpumon serve (the state against
# /metrics, the history ring's points and stated size, bad input: unknown paths, bad and huge
# seconds, methods), TLS and basic auth over the page and the API, --web.history's bounds, gpumon run
# --web (the same page for a run, its job's steps per second, refusals before the command starts),
# and the page itself in headless Chromium (tests/browser/page_check.js): values read twice seconds
# apart against /metrics, the ledger section, behind a proxy's path prefix, 64 GPUs; screenshots in
# $BUILD/page-*.png.
. "$(dirname "$0")/lib.sh"
command -v curl > /dev/null || { fail "curl is not installed (scripts/deps.sh installs it)"; done_tests; exit 1; }
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# serve NAME SCENARIO ARGS...: gpumon serve on a free port in the background; sets PORT, URL
serve() {
  local name=$1 scn=$2; shift 2
  PORT=$(free_port)
  GPUMON_SIM_SCENARIO="$scn" "$GPUMON" serve --nvml "$SIM" --web.listen-address "127.0.0.1:$PORT" "$@" \
    2> "$T/$name.err" &
  PIDS+=($!)
  LASTPID=$!
  for _ in $(seq 2400); do   # (120 s at most: a loaded machine starts slowly)
    for s in https http; do   # (plain HTTP to the TLS port is answered too: a 400 saying so)
      code=$(curl -sk -o /dev/null -w '%{http_code}' "$s://127.0.0.1:$PORT/health" 2>/dev/null)
      if [ "${code:-000}" != 000 ] && [ "$code" != 400 ]; then URL="$s://127.0.0.1:$PORT/"; return 0; fi
    done
    kill -0 "$LASTPID" 2>/dev/null || break
    sleep 0.05
  done
  fail "serve $name did not start: $(cat "$T/$name.err")"
}
stop() { kill "$LASTPID" 2>/dev/null; wait "$LASTPID" 2>/dev/null; }
code() { curl -sk -o /dev/null -w '%{http_code}' "$@"; }
PAGE_SCN="$SRC/tests/cli/page.scn"

# --- the API on gpumon serve -------------------------------------------------------------
serve api "$PAGE_SCN" --interval 250ms --collect.processes
expect_match "start-up states the ring" "$(cat "$T/api.err")" \
  'the live page is at http://127\.0\.0\.1:[0-9]+/ \(history: 3600 points of 0\.25 s, 288\.0 kB in memory\)'
curl -s -D "$T/page.hdr" "$URL" > "$T/page.html"
expect_match "/ is the page" "$(cat "$T/page.hdr")" "Content-Type: text/html; charset=utf-8"
expect_match "the page links /metrics and /health, relatively" "$(cat "$T/page.html")" 'href="metrics".*href="health"'
expect_no_match "no absolute URL, no CDN" "$(grep -oE '(src|href)="[^"]*"|https?://[^" ]*' "$T/page.html")" \
  '(src|href)="/|https?://'
expect_match "its data asked relatively" "$(cat "$T/page.html")" 'api\("api/v1/state"\)'
for _ in $(seq 200); do   # ten points in the ring
  n=$(curl -s "${URL}api/v1/history" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["points"])' 2>/dev/null)
  [ "${n:-0}" -ge 10 ] && break
  sleep 0.1
done
curl -s -D "$T/state.hdr" "${URL}api/v1/state" > "$T/state.json"
curl -s "${URL}metrics" > "$T/m.txt"
curl -s "${URL}api/v1/history?seconds=2" > "$T/h2.json"
curl -s "${URL}api/v1/history?seconds=1e308" > "$T/hbig.json"
expect_match "state is JSON" "$(cat "$T/state.hdr")" "Content-Type: application/json"
"$PY" - "$T/state.json" "$T/m.txt" "$T/h2.json" "$T/hbig.json" <<'EOF' && ok || fail "state and history (above)"
import json, sys
st, h2, hbig = (json.load(open(sys.argv[i])) for i in (1, 3, 4))
m = {}
for line in open(sys.argv[2]):
    if line.strip() and not line.startswith("#"):
        k, v = line.rsplit(" ", 1)
        m[k] = float(v)
def metric(name, gpu, extra=""):
    return [v for k, v in m.items() if k.startswith(name + "{") and 'gpu="%d"' % gpu in k and extra in k][0]
assert st["source"] == "serve" and st["command"] is None and st["processes"] is True, st
assert st["interval_s"] == 0.25 and st["window_s"] == 30
h = st["history"]
assert (h["seconds"], h["step_s"], h["capacity"]) == (900, 0.25, 3600), h
keys = [s["key"] for s in h["series"]]
assert keys[:2] == ["utilization.gpu", "gpm.sm_active"] and "memory.used" in keys and "clocks.sm" in keys, keys
# the memory stated: points x (8 + 4 x (GPUs x series + job series))
assert h["bytes"] == 3600 * (8 + 4 * (2 * len(keys) + len(h["job_series"]))), h
rec = st["record"]
assert [g["index"] for g in rec["gpus"]] == [0, 1]
for g in rec["gpus"]:
    i = g["index"]
    # constant signals: the state and /metrics agree whatever collection each shows
    assert g["power.draw"] == metric("gpumon_gpu_power_watts", i), (g["power.draw"], i)
    assert g["temperature.gpu"] == metric("gpumon_gpu_temperature_celsius", i)
    assert g["memory.used"] * 1048576 == metric("gpumon_gpu_memory_used_bytes", i)
    assert g["memory.total"] == 81559
assert rec["gpus"][0]["utilization.gpu"] in (20, 80) and rec["gpus"][1]["utilization.gpu"] == 0
assert [p["name"] for p in rec["gpus"][1]["processes"]] == ["python3 train.py"]
assert st["verdicts"] == [] and "job" not in st, st
led = st["ledger"]   # the ledger so far: every cause, the observed seconds at least the decided ones
assert sorted(led["seconds"]) == sorted(["compute", "input_wait", "throttled", "startup", "pause", "stalled", "idle",
                                         "lost"]), led
assert led["gpu_seconds"] > 0 and sum(led["seconds"].values()) <= led["gpu_seconds"] + 1e-6, led
# history: points 0.25 s apart, the window asked for, one column per series and GPU
for hist in (h2, hbig):
    assert [g["index"] for g in hist["gpus"]] == [0, 1] and hist["step_s"] == 0.25
    t = hist["t"]
    assert all(b > a for a, b in zip(t, t[1:])), t
    for g in hist["gpus"]:
        assert sorted(g["series"]) == sorted(keys) and all(len(v) == len(t) for v in g["series"].values())
    u = hist["gpus"][0]["series"]["utilization.gpu"]
    assert set(u) <= {20, 80}, u                               # exact levels: a point averages one record
    assert set(hist["gpus"][1]["series"]["power.draw"]) == {80}
    assert hist["job"]["steps_per_s"] == [None] * len(t)        # no job under serve: unknown, not 0
assert h2["seconds"] == 2 and 7 <= h2["points"] <= 9, h2["points"]
assert hbig["seconds"] == 900 and hbig["points"] >= h2["points"], (hbig["seconds"], hbig["points"])
EOF
expect_eq "HEAD of the state" "$(curl -s -I -o /dev/null -w '%{http_code}' "${URL}api/v1/state")" 200
for bad in abc -5 0 nan inf '' 1x 0x10 1e400; do
  expect_eq "seconds=$bad refused" "$(code "${URL}api/v1/history?seconds=$bad")" 400
done
expect_match "a bad seconds says why" "$(curl -s "${URL}api/v1/history?seconds=abc")" \
  'bad request: seconds="abc" is not a positive number of seconds'
expect_eq "an unknown argument is ignored" "$(code "${URL}api/v1/history?sekonds=5")" 200
for path in api api/ api/v1 api/v1/ api/v1/nope api/v2/state api/v1/state/ index.html; do
  expect_eq "/$path not found" "$(code "${URL}$path")" 404
done
for m in POST PUT DELETE PATCH OPTIONS; do
  expect_eq "$m on the state" "$(code -X "$m" "${URL}api/v1/state")" 405
done
expect_eq "POST on the page" "$(code -d x=1 "$URL")" 405
"$GPUMON" serve --nvml "$SIM" --web.history 30s > /dev/null 2> "$T/hist.err"
expect_eq "--web.history under a minute" "$?:$(grep -c 'web.history' "$T/hist.err")" "2:1"
"$GPUMON" serve --nvml "$SIM" --web.history 25h > /dev/null 2> "$T/hist.err"
expect_eq "--web.history over a day" "$?" 2
stop

# a long history at a short interval: at most 3600 points, each the mean of several records
serve long "$PAGE_SCN" --interval 100ms --web.history 24h
expect_match "24 h at 100 ms: 3600 points of 24 s" "$(cat "$T/long.err")" '\(history: 3600 points of 24 s, 288\.0 kB'
stop

# --- TLS and basic auth cover the page and its API ------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 > /dev/null 2>&1 || fail "openssl could not make a test certificate"
HASH='$2b$10$/1ckNswVKatls7K3/U3.0.HKTdZ7f/yLs7b5qVQoVmqgN9NhZIycG'   # bcrypt of "s3cret"
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  prometheus: %s\n' \
  "$HASH" > "$T/web.yml"
serve tls "$PAGE_SCN" --web.config.file "$T/web.yml"
expect_eq "TLS" "$URL" "https://127.0.0.1:$PORT/"
for path in "" api/v1/state "api/v1/history?seconds=5"; do
  expect_eq "/$path without credentials" "$(code "$URL$path")" 401
  expect_eq "/$path with credentials" "$(code -u prometheus:s3cret "$URL$path")" 200
  expect_eq "/$path wrong password" "$(code -u prometheus:nope "$URL$path")" 401
done
TLS_URL=$URL TLS_PID=$LASTPID

# --- the page in a browser ---------------------------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
NODE_DIR="$SRC/tests/browser"
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]' 2> /dev/null || echo "")
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium is not installed (scripts/deps.sh installs it); browser checks not run"
elif [ -n "$NODE_MAJOR" ] && [ "$NODE_MAJOR" -lt 18 ]; then
  echo "SKIP: node $(node --version) is older than puppeteer-core needs (18: Debian 11 has 12); browser checks not run"
elif ! command -v node > /dev/null || [ ! -d "$NODE_DIR/node_modules/puppeteer-core" ]; then
  fail "node or puppeteer-core is missing (scripts/deps.sh installs nodejs, npm and tests/browser's packages)"
else
  browse() {  # browse NAME MODE URL [ARG]: page_check.js; its lines are checks
    local name=$1; shift
    CHROMIUM="$CHROMIUM" timeout 240 node "$NODE_DIR/page_check.js" "$1" "$2" "$BUILD/page-$name.png" "${3:-}" \
      > "$T/browse-$name.out" 2>&1
    local rc=$?
    grep -c '^ok: ' "$T/browse-$name.out" > /dev/null && CHECKS=$((CHECKS + $(grep -c '^ok: ' "$T/browse-$name.out")))
    if [ "$rc" -ne 0 ]; then fail "browser ($name): $(grep -v '^ok: ' "$T/browse-$name.out")"; fi
    echo "screenshot: $BUILD/page-$name.png"
  }
  # through TLS and basic auth, as a person who typed the password
  PAGE_AUTH=prometheus:s3cret NODE_TLS_REJECT_UNAUTHORIZED=0 browse tls ledger "$TLS_URL"
  kill "$TLS_PID" 2>/dev/null
  # the values seconds apart, against /metrics: 2 s collections, rules over 8 s so verdicts come soon
  serve live "$PAGE_SCN" --interval 2s --collect.processes --window 8s
  browse live live "$URL"
  # behind a path prefix it does not know, as behind Jupyter's proxy
  "$PY" "$SRC/tests/cli/prefix_proxy.py" "$T/proxy.port" "$PORT" /proxy/$PORT &
  PROXY=$!; PIDS+=($PROXY)
  for _ in $(seq 100); do [ -s "$T/proxy.port" ] && break; sleep 0.05; done
  browse proxy proxy "http://127.0.0.1:$(cat "$T/proxy.port")/proxy/$PORT/"
  kill "$PROXY" 2>/dev/null
  stop
  serve scale "$SRC/tests/cli/page64.scn" --interval 1s --collect.processes
  browse scale scale "$URL" 64
  stop
fi
kill "$TLS_PID" 2>/dev/null

# --- gpumon run --web ----------------------------------------------------------------------------
cat > "$T/train.py" <<EOF
import sys, time
sys.path.insert(0, "$SRC/python")
import gpumon
end = time.monotonic() + 60
while time.monotonic() < end and not __import__("os").path.exists("$T/stop"):
    time.sleep(0.02)              # the loop waits for its input: 40% of each step
    with gpumon.step():
        time.sleep(0.03)
EOF
RPORT=$(free_port)
GPUMON_SIM_SCENARIO="$PAGE_SCN" "$GPUMON" run --nvml "$SIM" --interval 500ms --web "127.0.0.1:$RPORT" -- \
  "$PY" "$T/train.py" > "$T/run.out" 2> "$T/run.err" &
RUNPID=$!
PIDS+=($RUNPID)
RURL="http://127.0.0.1:$RPORT/"
for _ in $(seq 300); do   # until the job has reported steps over a few records
  curl -s "${RURL}api/v1/state" > "$T/rstate.json" 2>/dev/null &&
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("job") and d["history"]["points"] >= 6 else 1)' \
      "$T/rstate.json" 2>/dev/null && break
  sleep 0.1
done
curl -s "${RURL}api/v1/history" > "$T/rhist.json"
expect_match "run says where the page is" "$(cat "$T/run.err")" "gpumon run: the live page is at http://127\.0\.0\.1:$RPORT/"
expect_match "the page" "$(curl -s "$RURL")" 'href="metrics"'
expect_match "and /metrics" "$(curl -s "${RURL}metrics")" 'gpumon_gpu_utilization_ratio\{gpu="0"'
"$PY" - "$T/rstate.json" "$T/rhist.json" "$T/train.py" <<'EOF' && ok || fail "run --web state (above)"
import json, math, sys
st, h = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert st["source"] == "run" and st["command"].endswith("python3 " + sys.argv[3]), st["command"]
job = st["job"]
assert job["processes"] == 1
assert 8 <= job["steps_per_s"] <= 21, job          # 50 ms steps: at most 20 a second
assert 25 <= job["input_wait"] <= 55, job          # 20 of each 50 ms wait for input
s = [v for v in h["job"]["steps_per_s"] if v is not None]
assert s and all(0 <= v <= 21 for v in s) and s[-1] > 0, h["job"]   # 0 before its first step
assert len(h["gpus"]) == 2
EOF
touch "$T/stop"
wait "$RUNPID"; expect_eq "run's status is the job's" "$?" 0
expect_eq "the page ends with the run" "$(code "$RURL")" 000

# refusals before the command starts
"$GPUMON" run --nvml "$SIM" --web nowhere -- touch "$T/ran1" > /dev/null 2> "$T/r1.err"
expect_eq "run --web bad address" "$?:$([ -e "$T/ran1" ] && echo ran)" "2:"
expect_match "says which option" "$(cat "$T/r1.err")" '^gpumon run: --web "nowhere": expected \[HOST\]:PORT'
"$PY" -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' > "$T/busy" &
BUSY=$!; PIDS+=($BUSY)
for _ in $(seq 100); do [ -s "$T/busy" ] && break; sleep 0.05; done
"$GPUMON" run --nvml "$SIM" --web "127.0.0.1:$(cat "$T/busy")" -- touch "$T/ran2" > /dev/null 2> "$T/r2.err"
expect_eq "run --web address in use" "$?:$([ -e "$T/ran2" ] && echo ran)" "1:"
expect_match "says so" "$(cat "$T/r2.err")" 'Address already in use'
kill "$BUSY" 2>/dev/null
"$GPUMON" run --nvml "$SIM" --web.config.file "$T/web.yml" -- true > /dev/null 2> "$T/r3.err"
expect_eq "--web.config.file without --web" "$?" 2
printf 'basic_auth_users:\n  bob: plaintext\n' > "$T/bad.yml"
"$GPUMON" run --nvml "$SIM" --web 127.0.0.1:0 --web.config.file "$T/bad.yml" -- touch "$T/ran4" > /dev/null 2> "$T/r4.err"
expect_eq "a bad web config" "$?:$([ -e "$T/ran4" ] && echo ran)" "2:"
expect_match "names the key" "$(cat "$T/r4.err")" "basic_auth_users.bob: not a bcrypt hash"

done_tests
