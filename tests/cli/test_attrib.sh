#!/usr/bin/env bash
# Who runs on each GPU: the user (and container, pod) of each GPU process from /proc, in JSON Lines and
# as exporter labels; job ids from an HPC job mapping directory (dcgm-exporter's format) in the log and
# as gpumon_gpu_job_info, re-read as it changes, its bad content said once, never fatal.
. "$(dirname "$0")/lib.sh"

# a real process the simulated GPU 0 lists (its pid in the scenario): its owner is known
sleep 60 & child=$!
cat > "$T/who.scn" <<EOF
gpu 0-1
  name NVIDIA H100 80GB HBM3
  util.gpu = 90
gpu 0
  process $child sleep memory=2 GiB
gpu 1
  process 4194001 ghost memory=1 GiB
EOF
export GPUMON_SIM_SCENARIO="$T/who.scn"
me=$(id -un)
out=$(gp --once -f jsonl 2>/dev/null)
pycheck <(printf '%s\n' "$out") "
p0 = recs[0]['gpus'][0]['processes'][0]; p1 = recs[0]['gpus'][1]['processes'][0]
assert p0['pid'] == $child and p0['user'] == '$me', p0
assert p0['container'] is None and p0['pod'] is None, p0   # the test runs on the host (or says so below)
assert p1['user'] is None and p1['container'] is None, p1  # a pid this host does not have: unknown, not a guess"
if grep -qE 'docker|kubepods|containerd|libpod' /proc/self/cgroup 2>/dev/null; then
  echo "note: the test itself runs in a container; the container check above is about the host view" >&2
fi

# --- the job mapping directory ---
mkdir "$T/jobs"
echo 1001 > "$T/jobs/0"
printf '  2002\n\n2003\n2002\n' > "$T/jobs/1"
out=$(gp --once -f jsonl --hpc-job-mapping-dir "$T/jobs" 2>"$T/err")
pycheck <(printf '%s\n' "$out") "
g = recs[0]['gpus']
assert g[0]['jobs'] == ['1001'] and g[1]['jobs'] == ['2002', '2003'], g"
expect_eq "good files: no warning" "$(cat "$T/err" | grep -c 'job mapping')" 0
# a change mid-run is picked up; an emptied file means no job; bad content is said once, not fatal
"$GPUMON" -i 200ms -n 20 -f jsonl --hpc-job-mapping-dir "$T/jobs" --nvml "$SIM" > "$T/run.jsonl" 2>"$T/err" & w=$!
wait_for "the first record" '[ "$(lines "$T/run.jsonl")" -ge 1 ]'   # then the change, 19 records before the end
echo 1004 > "$T/jobs/0"
: > "$T/jobs/1"
wait $w; expect_eq "watch with a changing mapping: status" "$?" 0
pycheck "$T/run.jsonl" "
first, last = recs[0]['gpus'], recs[-1]['gpus']
assert first[0]['jobs'] == ['1001'] and last[0]['jobs'] == ['1004'], (first[0].get('jobs'), last[0].get('jobs'))
assert 'jobs' not in last[1], last[1]"
rm "$T/jobs/1"; ln -s /etc/passwd "$T/jobs/1"
printf 'ok-job\nhas space\n%s\n' "$(printf 'x%.0s' $(seq 70))" > "$T/jobs/0"
out=$(gp -i 200ms -n 6 -f jsonl --hpc-job-mapping-dir "$T/jobs" 2>"$T/err"); rc=$?
expect_eq "bad mapping files: status" "$rc" 0
expect_eq "a symlink: said once" "$(grep -c 'jobs/1: a symbolic link' "$T/err")" 1
expect_eq "a bad line: said once" "$(grep -c 'jobs/0 line 2: not a job id' "$T/err")" 1
pycheck <(printf '%s\n' "$out") "assert recs[-1]['gpus'][0]['jobs'] == ['ok-job'] and 'jobs' not in recs[-1]['gpus'][1]"
out=$(gp --once --hpc-job-mapping-dir "$T/nope" 2>&1); rc=$?
expect_eq "no such mapping dir: status" "$rc" 2
expect_match "no such mapping dir: message" "$out" "hpc-job-mapping-dir $T/nope: No such file"

# --- the log reads back; diagnose accounts GPU time by job and user (a shared GPU split evenly) ---
echo 1001 > "$T/jobs/0"; rm "$T/jobs/1"; printf '1001\n1002\n' > "$T/jobs/1"
gp -i 250ms -n 9 -f jsonl --hpc-job-mapping-dir "$T/jobs" > "$T/log.jsonl" 2>/dev/null
out=$("$GPUMON" diagnose "$T/log.jsonl"); rc=$?
expect_eq "diagnose of a log with jobs and owners" "$rc" 0
expect_match "accounting: the job on two GPUs" "$out" "job 1001: 2 GPUs, [0-9]+ GPU-seconds, [0-9]+% idle"
expect_match "accounting: the user" "$out" "user $me: 1 GPU, "
expect_match "summary: who is on GPU 0" "$out" "on it: jobs 1001; users $me"
expect_match "summary: who is on GPU 1" "$out" "on it: jobs 1001, 1002"
"$GPUMON" diagnose --format json "$T/log.jsonl" > "$T/d.json"
pycheck "$T/log.jsonl" "
d = json.load(open('$T/d.json'))['accounting']
acc = {(list(a)[0], list(a.values())[0]): a for a in d}
j1, j2 = acc[('job', '1001')], acc[('job', '1002')]
from datetime import datetime
t = [datetime.strptime(r['timestamp'], '%Y-%m-%dT%H:%M:%S.%fZ') for r in recs]
span = (t[-1] - t[0]).total_seconds()   # the records' own span: a loaded machine stretches it past 8 x 0.25 s
assert abs(j1['gpu_seconds'] - 1.5 * span) < 0.35 and abs(j2['gpu_seconds'] - 0.5 * span) < 0.2, (j1, j2)
w = sum(g['power.draw'] for r in recs[1:] for g in r['gpus'][:1]) / (len(recs) - 1)
u = acc[('user', '$me')]
assert u['gpus'] == 1 and abs(u['energy_joules'] - w * u['gpu_seconds']) < 0.15 * w * u['gpu_seconds'] + 5, (u, w)"

# --- the exporter: job info series and owner labels ---
if [ "$HAVE_SERVE" = 1 ]; then
  port=$(free_port)
  # gpumon itself in the background, not the gp function (a subshell: killing it would leave gpumon running)
  "$GPUMON" serve --nvml "$SIM" --web.listen-address "127.0.0.1:$port" --interval 200ms --collect.processes \
    --hpc-job-mapping-dir "$T/jobs" > /dev/null 2>"$T/serve.err" & s=$!
  m=""
  wait_for "the exporter's accounting" \
    'm=$(curl -sf "http://127.0.0.1:$port/metrics") && printf "%s" "$m" | grep -q gpumon_job_gpu_seconds_total' 
  expect_match "job info series" "$m" 'gpumon_gpu_job_info\{gpu="0",uuid="[^"]+",hpc_job="1001"\} 1'
  expect_match "job accounting counter" "$m" 'gpumon_job_gpu_seconds_total\{hpc_job="1001"\} [0-9.e+-]+'
  expect_match "user accounting counter" "$m" "gpumon_user_energy_joules_total\{user=\"$me\"\} [0-9.e+-]+"
  expect_match "owner labels" "$m" "gpumon_process_gpu_memory_bytes\{gpu=\"0\",[^}]*pid=\"$child\",[^}]*user=\"$me\",container=\"\",pod_uid=\"\"\}"
  if command -v promtool > /dev/null; then
    printf '%s\n' "$m" | promtool check metrics > "$T/lint" 2>&1 && ok || fail "promtool: $(cat "$T/lint")"
  fi
  kill $s; wait $s
fi
kill $child 2>/dev/null; wait $child 2>/dev/null
done_tests
