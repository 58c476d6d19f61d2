#!/usr/bin/env bash
# No fixed cap on GPUs or nodes (issue 24 item 8): ten 8-GPU node logs, 16 nodes x 8 GPUs = 128 GPUs and
# a 65-GPU log are all counted, in diagnose and in report; a GPU whose UUID changes within a log is a new
# GPU, not merged with the old one; one log under two names (a second path, a hard link, a symlink) is
# refused, since each record would count twice (item 10). The simulator plays at most 64 GPUs: the
# larger logs are generated from a recorded 8-GPU one.
. "$(dirname "$0")/lib.sh"
cat > "$T/node.scn" <<'SCN'
gpu 0-7
  name NVIDIA H100 80GB HBM3
  util.gpu = 70 + noise(3)
  memory.used = 40 GiB
  process 4242 python3 train.py memory=40 GiB
SCN
GPUMON_SIM_SPEED=20 GPUMON_SIM_SCENARIO="$T/node.scn" "$GPUMON" --nvml "$SIM" -i 1s -n 40 -f jsonl \
  > "$T/node.jsonl" 2>/dev/null || fail "recording the 8-GPU log"
# gen.py nodes N PREFIX: N copies of the log, each with its own hostname; gen.py wide N OUT: one log whose
# records hold N GPUs (the 8 copied over, each with its own index and UUID); gen.py swap OUT: GPU 0's UUID
# changes half-way (another board after a reset)
cat > "$T/gen.py" <<'PYEOF'
import copy, json, sys
recs = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
what = sys.argv[1]
if what == "nodes":
    for n in range(int(sys.argv[3])):
        with open("%s%02d.jsonl" % (sys.argv[4], n), "w") as f:
            for r in recs:
                r["hostname"] = "node%02d" % n
                f.write(json.dumps(r) + "\n")
elif what == "wide":
    with open(sys.argv[4], "w") as f:
        for r in recs:
            gpus = []
            for k in range(int(sys.argv[3])):
                g = copy.deepcopy(r["gpus"][k % len(r["gpus"])])
                g["index"] = k
                g["uuid"] = "GPU-00000000-0000-0000-0000-%012d" % k
                gpus.append(g)
            r["gpus"] = gpus
            f.write(json.dumps(r) + "\n")
elif what == "swap":
    with open(sys.argv[3], "w") as f:
        for i, r in enumerate(recs):
            if i >= len(recs) // 2:
                r["gpus"][0]["uuid"] = "GPU-ffffffff-0000-0000-0000-000000000000"
            f.write(json.dumps(r) + "\n")
PYEOF
"$PY" "$T/gen.py" nodes "$T/node.jsonl" 16 "$T/n"
# summary GPUS: "<gpus> <hosts> <least samples>" of diagnose --format json on the logs given
summary() {
  "$GPUMON" diagnose --format json "$@" 2>"$T/err" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
print(len(d["gpus"]), len({g["host"] for g in d["gpus"]}), min(g["samples"] for g in d["gpus"]))'
}
expect_eq "ten 8-GPU nodes: every GPU of every node, each with all its records" \
  "$(summary "$T"/n0[0-9].jsonl)" "80 10 40"
out=$("$GPUMON" diagnose "$T"/n0[0-9].jsonl)
expect_match "ten nodes: the summary per node" "$out" "Nodes \(10\):"
expect_no_match "ten nodes: no node at 0 GPUs" "$out" "0 GPUs, 0\.0%"
expect_match "ten nodes: the tenth node counted" "$out" "  node09: 8 GPUs, utilization mean (6[5-9]|7[0-5])\.[0-9]%"
expect_eq "16 nodes x 8 GPUs: 128 GPUs" "$(summary "$T"/n[0-9]*.jsonl)" "128 16 40"
expect_match "128 GPUs: said" "$("$GPUMON" diagnose "$T"/n[0-9]*.jsonl)" "Summary: [0-9]+ s of records, window 30 s, 128 GPUs"
"$PY" "$T/gen.py" wide "$T/node.jsonl" 65 "$T/wide.jsonl"
expect_eq "a 65-GPU log: 65 GPUs" "$(summary "$T/wide.jsonl")" "65 1 40"
expect_match "a 65-GPU log: GPU 64 judged" "$("$GPUMON" diagnose "$T/wide.jsonl")" $'\n''GPU 64  NVIDIA H100 80GB HBM3  \(40 samples'
"$GPUMON" report "$T/wide.jsonl" -o "$T/wide.html" 2>"$T/err"; expect_eq "report of 65 GPUs: status" "$?" 0
expect_match "report of 65 GPUs: said" "$(cat "$T/err")" "65 GPUs\)"
expect_eq "report of 65 GPUs: a section each" "$(grep -o '<section class="gpu"' "$T/wide.html" | wc -l)" 65
expect_match "report of 65 GPUs: GPU 64's charts" "$(sed -n '/id="gpu64"/,/<\/section>/p' "$T/wide.html")" 'data-series="utilization.gpu"'

# a new UUID at an index is a new GPU
"$PY" "$T/gen.py" swap "$T/node.jsonl" "$T/swap.jsonl"
"$GPUMON" diagnose --format json "$T/swap.jsonl" > "$T/swap.json"
pycheck "$T/swap.jsonl" "
d = json.load(open('$T/swap.json'))
zero = [g for g in d['gpus'] if g['index'] == 0]
assert len(d['gpus']) == 9 and len(zero) == 2, [(g['index'], g['uuid']) for g in d['gpus']]
assert zero[0]['uuid'] != zero[1]['uuid'] and zero[1]['uuid'].startswith('GPU-ffffffff'), zero
assert [g['samples'] for g in zero] == [20, 20], [g['samples'] for g in zero]
assert all(g['samples'] == 40 for g in d['gpus'] if g['index'] != 0)"
out=$("$GPUMON" diagnose "$T/swap.jsonl")
expect_eq "a new UUID: both GPUs 0, each named by its UUID" \
  "$(printf '%s\n' "$out" | grep -cE '^GPU 0  NVIDIA H100 80GB HBM3  GPU-[0-9a-f-]+  \(20 samples')" 2
expect_match "a new UUID: the new one" "$out" "GPU 0  NVIDIA H100 80GB HBM3  GPU-ffffffff-[0-9a-f-]+  \(20 samples"
expect_match "a new UUID: other GPUs as ever" "$out" $'\n''GPU 1  NVIDIA H100 80GB HBM3  \(40 samples'
"$GPUMON" report "$T/swap.jsonl" -o "$T/swap.html" 2>"$T/err"
expect_match "report of a new UUID: 9 GPUs" "$(cat "$T/err")" "9 GPUs\)"
expect_match "report of a new UUID: its own section" "$(cat "$T/swap.html")" 'id="gpu0-2"><h2>GPU 0 &ndash; NVIDIA H100 80GB HBM3 \(GPU-ffffffff'

# one log under two names: refused, saying why
cp "$T/node.jsonl" "$T/a.jsonl"
ln "$T/a.jsonl" "$T/hard.jsonl"
ln -s "$T/a.jsonl" "$T/soft.jsonl"
for other in "$T/hard.jsonl" "$T/soft.jsonl" "$T/./a.jsonl" "$T/../$(basename "$T")/a.jsonl"; do
  out=$("$GPUMON" diagnose "$T/a.jsonl" "$other" 2>&1); rc=$?
  expect_eq "the same log as $other: status" "$rc" 2
  expect_match "the same log as $other: message" "$out" "are the same file .*each record would count twice"
done
out=$("$GPUMON" diagnose "$T/a.jsonl" "$T/a.jsonl" 2>&1); rc=$?
expect_eq "one name twice: status" "$rc" 2
expect_match "one name twice: message" "$out" "is given twice"
expect_eq "a copy is another file: read" "$(summary "$T/a.jsonl" "$T/n00.jsonl")" "16 2 40"
done_tests
