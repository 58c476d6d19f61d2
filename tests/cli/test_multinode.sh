#!/usr/bin/env bash
# One job across nodes: gpumon diagnose of several nodes' logs (each record names its host), merged on
# time: a slow node is named (slow-node on its GPUs, not a straggler verdict per GPU), the others not;
# a summary per node; GPUs and processes of different hosts kept apart (the same indices and pids).
. "$(dirname "$0")/lib.sh"
scn() {   # scn FILE UTIL: two busy H100s at UTIL%, one training process each (the same pids on every node)
  cat > "$1" <<SCN
gpu 0-1
  name NVIDIA H100 80GB HBM3
  util.gpu = $2 + noise(2)
  memory.used = 60 GiB
  process 4242 python3 train.py memory=60 GiB
SCN
}
scn "$T/fast.scn" 90
scn "$T/slow.scn" 55
pids=()
for n in 1 2 3 4; do
  s="$T/fast.scn"; [ $n = 4 ] && s="$T/slow.scn"
  GPUMON_SIM_SCENARIO="$s" "$GPUMON" --nvml "$SIM" -i 200ms -n 40 -f jsonl > "$T/node$n.jsonl" 2>/dev/null & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "recording a node's log"; done
for n in 1 2 3 4; do
  "$PY" - "$T/node$n.jsonl" "node$n" <<'PYEOF'
import json, sys
path, host = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(path) if l.strip()]
with open(path, "w") as f:
    for r in recs:
        r["hostname"] = host
        r["host"]["host.cpu.iowait"] = 0.3
        f.write(json.dumps(r) + "\n")
PYEOF
done
out=$("$GPUMON" diagnose --window 5s "$T"/node{1,2,3,4}.jsonl); rc=$?
expect_eq "four nodes: status" "$rc" 0
expect_match "the slow node named on its GPUs" "$out" "node4 GPU 0 warning slow-node: .*median utilization of 5[0-9]% against 9[0-9]% on the other 3 nodes"
expect_match "both of its GPUs" "$out" "node4 GPU 1 warning slow-node"
expect_no_match "no other node is slow" "$out" "node[123] GPU [01] warning slow-node"
expect_no_match "no straggler verdict per GPU on top" "$out" "warning straggler"
expect_match "eight GPUs, apart" "$out" "Summary: [0-9]+ s of records, window 5 s, 8 GPUs"
expect_match "per node" "$out" "Nodes \(4\):"
expect_match "the slow one's line" "$out" "  node4: 2 GPUs, utilization mean 5[0-9]\.[0-9]%; the slow node for [0-9]+ s"
expect_match "a fast one's line" "$out" "  node1: 2 GPUs, utilization mean (8[89]|9[0-9])\.[0-9]%"$'\n'
"$GPUMON" diagnose --window 5s --format json "$T"/node{1,2,3,4}.jsonl > "$T/d.json"
pycheck "$T/node1.jsonl" "
d = json.load(open('$T/d.json'))
hosts = sorted({g['host'] for g in d['gpus']})
assert hosts == ['node1', 'node2', 'node3', 'node4'] and len(d['gpus']) == 8, d['gpus']
slow = [g for g in d['gpus'] if any(v['id'] == 'slow-node' for v in g['verdicts'])]
assert sorted((g['host'], g['index']) for g in slow) == [('node4', 0), ('node4', 1)], slow"
# one node alone: no node comparison, as before
out=$("$GPUMON" diagnose --window 5s "$T/node4.jsonl")
expect_no_match "one node: no slow-node" "$out" "slow-node|Nodes \("
expect_match "one node: GPUs without a host prefix" "$out" $'\n''GPU 0  NVIDIA H100'
# bad invocations
out=$("$GPUMON" diagnose "$T/node1.jsonl" "$T/node1.jsonl" 2>&1); rc=$?
expect_eq "a log twice: status" "$rc" 2
expect_match "a log twice: message" "$out" "is given twice"
out=$("$GPUMON" diagnose "$T/node1.jsonl" - < /dev/null 2>&1); rc=$?
expect_eq "standard input among several: status" "$rc" 2
out=$("$GPUMON" diagnose "$T/node1.jsonl" "$T/nope.jsonl" 2>&1); rc=$?
expect_eq "a missing log among several: status" "$rc" 1
expect_match "a missing log: named" "$out" "nope.jsonl"
done_tests
