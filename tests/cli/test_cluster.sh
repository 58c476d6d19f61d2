# A simulated cluster on real Prometheus servers (bench/cluster.py, small):
# 4 nodes of `gpumon serve` (32 simulated GPUs, fast-played 20x, jobs from
# mapping directories, users' real processes) scraped every second by one
# Prometheus with the shipped configuration and rules, and at the same time by
# two agents remote-writing to a central server. Every known answer must come
# back on both (GPUs, nodes and user of each job, each GPU's cause, GPU time
# by cause per job, node and user through the info series, the jobs losing
# time and the top one, idle GPUs held by a job, the slow node, the idle-job
# alert's expression, every cluster dashboard query), the two must agree, and
# everything the script started must be gone afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.sh"
need_prometheus
"$PY" -c 'import yaml' 2> /dev/null || { echo "FAIL: python3-yaml is not installed (scripts/deps.sh installs it)" >&2; exit 1; }

# Agent mode and the remote-write receiver's flag came with Prometheus 2.32 and 2.33: an older one (2.24 in
# Debian 11) checks the single server alone, and says so.
agents=--agents on=central server=agent-1 procs=13 answers=36
if ! prometheus --help 2>&1 | grep -q -- '--web.enable-remote-write-receiver'; then
  agents="" on=single server=single procs=10 answers=17
  echo "note: $(prometheus --version 2>&1 | head -1) has no agent mode (2.32) or remote-write receiver flag (2.33): the single server alone"
fi
out=$(timeout 150 "$PY" "$SRC/bench/cluster.py" --build "$BUILD" --nodes 4 --speed 20 --seconds 12 \
  --scrape-interval 1s $agents --check --pid-file "$T/pids" 2>&1); rc=$?
expect_eq "cluster.py --check: exit status" "$rc" 0
[ "$rc" = 0 ] || printf '%s\n' "$out" | grep -E '^(FAIL|Traceback|  File|[A-Za-z]+Error)' | head -20 >&2
expect_match "4 nodes, 32 GPUs" "$out" "^cluster: 4 nodes x 8 simulated H100s = 32 GPUs, 3 jobs of 3 users"
expect_match "figures: series per node" "$out" "^series per node: median [0-9]+"
expect_match "the series budget at the defaults" "$out" "^ok: series at the defaults within the budget: "
expect_match "figures: scrape duration" "$out" "^scrape duration \(single server, [0-9]+ scrapes of 4 targets\): p50 [0-9.]+ ms, p99 [0-9.]+ ms"
expect_match "figures: exporter CPU and RSS" "$out" "^exporter RSS: mean [0-9.]+ MiB"
expect_match "figures: each Prometheus" "$out" "^prometheus $server +RSS [0-9]+ MiB"
expect_match "figures: rule evaluation" "$out" "^recording rules \(gpumon-cluster, [0-9]+ rules\) on $on: [0-9]+ evaluations"
expect_match "figures: the cluster dashboard's queries" "$out" "^dashboard gpumon-cluster-dashboard.json on $on: [0-9]+ queries"
expect_match "figures: against dcgm-exporter" "$out" "^  series: gpumon [0-9]+ \(defaults alone [0-9]+\) vs dcgm-exporter 200: "
expect_match "figures: extrapolated to 64 nodes" "$out" "^extrapolated to 64 nodes \(512 GPUs\)"
n=$(printf '%s\n' "$out" | grep -c '^ok: ')
[ "$n" -ge $answers ] && ok || fail "known answers checked: got $n, expected at least $answers"
expect_eq "no answer failed" "$(printf '%s\n' "$out" | grep '^FAIL' | head -5)" ""
expect_match "the slow node found" "$out" "^ok: $on: the slow node node-03:[0-9]+ \(job 1000\)"
[ -z "$agents" ] || expect_match "the two agree" "$out" "^ok: single and central \(through the agents\) agree on the shares per user"
# nothing left behind: no process it started (nodes, users' processes, the Prometheus servers), no directory
n=$(wc -l < "$T/pids")
expect_eq "processes started (3 users, 4 nodes, 2 or 5 Prometheus servers, one --compat dcgm node)" "$n" $procs
left=$(while read -r pid name; do kill -0 "$pid" 2> /dev/null && echo "$name ($pid)"; done < "$T/pids")
expect_eq "processes left running" "$left" ""
dir=$(printf '%s\n' "$out" | sed -n 's/^working in \([^ ]*\) .*/\1/p')
expect_match "its working directory" "$dir" "gpumon-cluster-"
[ -n "$dir" ] && [ ! -e "$dir" ] && ok || fail "working directory $dir left behind"
done_tests
