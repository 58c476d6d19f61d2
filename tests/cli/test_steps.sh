#!/usr/bin/env bash
# Step timing from the job (docs/steps-channel.md, python/gpumon): real PyTorch training (Debian's
# python3-torch, CPU) under gpumon run on simulated GPUs; the channel's bad input; --attach; the
# notebook magic against the real binary; the log, diagnose and report of step records.
. "$(dirname "$0")/lib.sh"
TRAIN="$SRC/tests/cli/train_torch.py"
RING="$SRC/tests/cli/ring_writer.py"
export PYTHONPATH="$SRC/python${PYTHONPATH:+:$PYTHONPATH}"
have_torch=0
"$PY" -c "import torch" 2>/dev/null && have_torch=1
# Debian 11's python3-torch 1.7.1 aborts (SIGABRT) at interpreter exit after any backward(): a training
# script then ends with 134 whatever gpumon does, so such a torch cannot be used here. Now and then it
# hangs there instead (its autograd threads at exit: the probe slept on until ctest's limit, seen
# under load), so the probe has a limit of its own, and a hang counts as the abort does.
if [ $have_torch = 1 ] && ! timeout -k 5 60 "$PY" -c "import torch; torch.ones(1, requires_grad=True).sum().backward()" \
     2>/dev/null; then
  have_torch=3
fi
RUN=(run --interval 250ms --window 4s --nvml "$SIM")
export GPUMON_SIM_SCENARIO="$SCN/healthy.scn"

# json FILE EXPR: a figure from gpumon diagnose --format json of a log
jfig() { "$GPUMON" diagnose --window 4s --format json "$1" | "$PY" -c "import json,sys; d=json.load(sys.stdin); print($2)"; }

# --- options and the channel's directory ---
out=$("$GPUMON" run --steps "$T/nope" --nvml "$SIM" -- true 2>&1); rc=$?
expect_eq "--steps missing dir: status" "$rc" 2
expect_match "--steps missing dir: message" "$out" "--steps $T/nope: No such file"
touch "$T/file"
out=$("$GPUMON" run --steps "$T/file" --nvml "$SIM" -- true 2>&1); rc=$?
expect_eq "--steps a file: status" "$rc" 2
expect_match "--steps a file: message" "$out" "not a directory"
mkdir -m 0777 "$T/open"; chmod 0777 "$T/open"
out=$("$GPUMON" run --steps "$T/open" --nvml "$SIM" -- true 2>&1); rc=$?
expect_eq "--steps writable by others: status" "$rc" 2
expect_match "--steps writable by others: message" "$out" "not be writable by others"
ln -s "$T/open" "$T/link"
out=$("$GPUMON" run --steps "$T/link" --nvml "$SIM" -- true 2>&1); rc=$?
expect_eq "--steps a symlink: status" "$rc" 2
out=$("$GPUMON" run --steps "$T" --no-steps --nvml "$SIM" -- true 2>&1); rc=$?
expect_eq "--steps with --no-steps: status" "$rc" 2
for bad in 0 -3 abc 99999999999 ""; do
  out=$("$GPUMON" run --attach "$bad" --nvml "$SIM" 2>&1); rc=$?
  expect_eq "--attach '$bad': status" "$rc" 2
done
out=$("$GPUMON" run --attach 4194000 --nvml "$SIM" 2>&1); rc=$?
expect_eq "--attach of no process: status" "$rc" 2
expect_match "--attach of no process: message" "$out" "no such process"
out=$("$GPUMON" run --attach $$ --nvml "$SIM" -- true 2>&1); rc=$?
expect_eq "--attach with a command: status" "$rc" 2

# the job sees GPUMON_STEPS: a private directory, removed at the end; --no-steps: none (not even an outer one)
out=$(GPUMON_STEPS=/outer "$GPUMON" run --nvml "$SIM" -- sh -c 'echo "dir=$GPUMON_STEPS"; stat -c %a "$GPUMON_STEPS"' 2>/dev/null)
dir=$(printf '%s\n' "$out" | sed -n 's/^dir=//p')
expect_match "GPUMON_STEPS set" "$dir" "^/.*/gpumon-steps-"
expect_match "private directory" "$out" "^700$"
[ -e "$dir" ] && fail "the channel's directory $dir outlived the run" || ok
out=$(GPUMON_STEPS=/outer "$GPUMON" run --no-steps --nvml "$SIM" -- sh -c 'echo "dir=${GPUMON_STEPS-unset}"' 2>/dev/null)
expect_eq "--no-steps" "$out" "dir=unset"

# --- bad input on the channel: never fatal, counted, said ---
mkdir -m 0700 "$T/ch"
out=$("$GPUMON" "${RUN[@]}" --steps "$T/ch" -o "$T/bad.jsonl" -- "$PY" "$RING" "$T/ch" bad-files 2>&1); rc=$?
expect_eq "bad ring files: status is the command's" "$rc" 0
for why in "not a gpumon step ring" "shorter than a header" "slot count does not match" "names another process" \
           "not a regular file"; do
  expect_match "bad ring files: $why" "$out" "ignoring [0-9]+-[0-9a-f]{8}\.ring: (its |its header )?$why"
done
expect_match "bad ring files: the good one is read, once (not through its hard link)" "$out" "1 process reported 30 steps"
expect_match "bad ring files: counted" "$out" "[0-9]+ bad files\)"
[ -e "$T/ch" ] && ok || fail "--steps DIR given by the user was removed"
rm -rf "$T/ch"; mkdir -m 0700 "$T/ch"
out=$("$GPUMON" "${RUN[@]}" --steps "$T/ch" -o "$T/badent.jsonl" -- "$PY" "$RING" "$T/ch" bad-entries 2>&1)
expect_match "bad entries: counted" "$out" "4 invalid"
expect_match "bad entries: good steps read" "$out" "1 process reported 50 steps"
pycheck "$T/badent.jsonl" 'assert recs[-1]["steps"][0]["bad"] == 4, recs[-1]["steps"]'
rm -rf "$T/ch"; mkdir -m 0700 "$T/ch"
# steps of 2^32 - 1 batches each: a record's batches saturate at what the count holds, never wrap
"$GPUMON" "${RUN[@]}" --steps "$T/ch" -o "$T/huge.jsonl" -- "$PY" "$RING" "$T/ch" huge-batches > /dev/null 2>&1
pycheck "$T/huge.jsonl" '
ks = [k for r in recs for k in r.get("steps") or []]
assert sum(k["n"] for k in ks) == 4, ks
assert all(k["batches"] == (4294967295 if k["n"] else 0) for k in ks), ks'
rm -rf "$T/ch"; mkdir -m 0700 "$T/ch"
out=$(SECONDS_ALIVE=1.5 "$GPUMON" "${RUN[@]}" --steps "$T/ch" -o "$T/over.jsonl" -- "$PY" "$RING" "$T/ch" overflow 2>&1)
expect_match "full ring: drops said" "$out" "entries dropped by a full ring"
pycheck "$T/over.jsonl" '
last = [r for r in recs if r.get("steps")][-1]["steps"][0]
assert last["dropped"] > 800 and last["dropped"] < 1001, last'

# the review's cases: a ring truncated under gpumon (no SIGBUS), 34 processes one after another (slots
# freed), a wait ended by `o` (not input wait), a reused --steps directory (old rings not read again)
rm -rf "$T/ch"; mkdir -m 0700 "$T/ch"
out=$(SECONDS_ALIVE=1 "$GPUMON" "${RUN[@]}" --steps "$T/ch" -- "$PY" "$RING" "$T/ch" truncate 2>&1); rc=$?
expect_eq "truncated ring: gpumon lives, status is the command's" "$rc" 0
expect_match "truncated ring: the steps before it read" "$out" "1 process reported 5 steps"
rm -rf "$T/ch"; mkdir -m 0700 "$T/ch"
out=$("$GPUMON" "${RUN[@]}" --steps "$T/ch" -o "$T/seq.jsonl" -- "$PY" "$RING" "$T/ch" sequence 2>&1)
expect_match "34 processes in turn: all read" "$out" "34 processes reported 340 steps"
expect_no_match "34 processes in turn: no slot shortage" "$out" "more than 32"
out=$("$GPUMON" "${RUN[@]}" --steps "$T/ch" -- "$PY" "$RING" "$T/ch" bad-entries 2>&1)
expect_match "reused --steps: only the new process read" "$out" "Step channel: 1 process reported 50 steps"
rm -rf "$T/ch"; mkdir -m 0700 "$T/ch"
# (2 s between records: the job's steps are usually all done when the record after its start finds its
# ring; their phases are that record's all the same, however late the ring is found)
RING_OWN="$T/wo.own" "$GPUMON" run --interval 2s --window 4s --nvml "$SIM" --steps "$T/ch" -o "$T/wo.jsonl" -- \
  "$PY" "$RING" "$T/ch" wait-out > /dev/null 2>&1
pycheck "$T/wo.jsonl" '
w = sum(k["in_wait_s"] - k["unwait_s"] for r in recs for k in r.get("steps", []))
c = sum(k["in_compute_s"] for r in recs for k in r.get("steps", []))
own = float(open(sys.argv[1].replace("wo.jsonl", "wo.own")).read())   # the job its own: about half
assert abs(w / (w + c) - own) < 0.02, (w, c, own)'
# On a simulator played 10x fast the job's times join the records' (scenario) time axis: its 20 ms
# steps (as long as the machine makes them: the job measures its own) read 10 times as long, as its
# phases fill the 1 s between records taken 0.1 s apart.
rm -rf "$T/ch"; mkdir -m 0700 "$T/ch"
RING_STEP="$T/fast.own" GPUMON_SIM_SPEED=10 "$GPUMON" run --interval 1s --nvml "$SIM" --steps "$T/ch" \
  -o "$T/fast.jsonl" -- "$PY" "$RING" "$T/ch" wait-out > /dev/null 2>&1
pycheck "$T/fast.jsonl" '
from datetime import datetime
ks = [k for r in recs for k in r.get("steps", [])]
mean = sum(k["step_s"] for k in ks) / sum(k["waited"] for k in ks)
own = float(open(sys.argv[1].replace("fast.jsonl", "fast.own")).read())
assert abs(mean / (10 * own) - 1) < 0.02, (mean, own)   # its own step time, times 10
t = [datetime.strptime(r["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ") for r in recs]
# the phases fill the records own intervals (a loaded machine may take a record late: a longer one)
fill = sorted((k["in_wait_s"] + k["in_compute_s"]) / (t[i] - t[i - 1]).total_seconds()
              for i, r in enumerate(recs) if i for k in r.get("steps", []) if k["n"])[1:-1]
assert fill and 0.7 < fill[len(fill) // 2] < 1.3, fill'

# --- attach: a running process, stopped by SIGINT or by its own end ---
rm -rf "$T/ch"; mkdir -m 0700 "$T/ch"
GPUMON_STEPS="$T/ch" SECONDS_ALIVE=30 "$PY" "$RING" "$T/ch" bad-entries & job=$!
"$GPUMON" run --attach $job --steps "$T/ch" --interval 200ms --nvml "$SIM" -o "$T/att.jsonl" 2>"$T/att.err" & mon=$!
wait_for "steps in the attached log" 'grep -q "\"steps\":\[{" "$T/att.jsonl" 2> /dev/null'
kill -INT $mon; wait $mon; rc=$?
expect_eq "attach: SIGINT ends the watch with 0" "$rc" 0
kill -0 $job 2>/dev/null && ok || fail "attach: SIGINT to gpumon reached the process it watched"
expect_match "attach: said" "$(cat "$T/att.err")" "stopped watching pid $job \(signal 2\)"
expect_match "attach: steps read" "$(cat "$T/att.err")" "1 process reported [0-9]+ steps"
kill $job; wait $job 2>/dev/null
sleep 1 & job=$!
out=$("$GPUMON" run --attach $job --interval 200ms --nvml "$SIM" 2>&1); rc=$?
expect_eq "attach: the process's end ends the watch" "$rc" 0
expect_no_match "attach without --steps: no channel" "$out" "Step channel"
expect_match "attach: its end said" "$out" "pid $job exited"

# --- log: malformed step records are clear errors ---
line=$(head -1 "$T/badent.jsonl" | "$PY" -c 'import json,sys; r=json.loads(sys.stdin.read()); r["steps"]=[{"pid":1,"n":-1}]; print(json.dumps(r))')
printf '%s\n' "$line" > "$T/malformed.jsonl"
out=$("$GPUMON" diagnose "$T/malformed.jsonl" 2>&1); rc=$?
expect_eq "malformed steps: status" "$rc" 1
expect_match "malformed steps: message" "$out" "malformed.jsonl:1: steps\[0\] needs"

if [ $have_torch = 0 ]; then
  echo "SKIP: python3-torch is not installed: the training runs are not tested" >&2
elif [ $have_torch = 3 ]; then
  echo "SKIP: this python3-torch ($("$PY" -c "import torch; print(torch.__version__)" 2>/dev/null)) aborts at exit" \
    "after backward() (Debian 11's 1.7.1): the training runs are not tested" >&2
else
  # --- a real training run: input-bound from step data, then fixed ---
  # gpumon's figures are compared with the job's own (train_torch.py measures its loop); a verdict is
  # checked where the job's own figures call for it, however a loaded machine made them: its share of
  # waiting over a rule's threshold, and the steps a 4 s window needs (steps.min, 10) in every window.
  "$GPUMON" "${RUN[@]}" -o "$T/slow.jsonl" --report "$T/slow.html" -- "$PY" "$TRAIN" slow 6 "$T/slow.json" \
    2>"$T/slow.err" & a=$!
  "$GPUMON" "${RUN[@]}" -o "$T/cached.jsonl" -- "$PY" "$TRAIN" cached 6 "$T/cached.json" 2>"$T/cached.err" & b=$!
  wait $a; expect_eq "slow loader: status" "$?" 0
  wait $b; expect_eq "cached: status" "$?" 0
  share() { "$PY" -c "import json; print(round(json.load(open('$1'))['wait_share'], 1))"; }
  steps() { "$PY" -c "import json; print(json.load(open('$1'))['steps'])"; }
  above() { "$PY" -c "import sys; sys.exit(0 if $1 >= $2 else 1)"; }   # above A B: A >= B
  slow=$(cat "$T/slow.err")
  own=$(share "$T/slow.json")
  got=$(jfig "$T/slow.jsonl" 'd["steps"][0]["wait_share"]')
  "$PY" -c "import sys; sys.exit(0 if abs($own - $got) <= 3 else 1)" && ok ||
    fail "slow loader: gpumon's wait share $got% is not within 3 points of the job's own $own%"
  expect_no_match "slow loader: no inference from utilization" "$slow" "(WARNING|warning) +(input-bound|small-batch)"
  if above "$own" 25 && above "$(steps "$T/slow.json")" 24; then   # over steps.wait (20%), 10 steps per 4 s
    expect_match "slow loader: input-wait" "$slow" "WARNING  input-wait: the training loop waits for its input"
    expect_match "slow loader: evidence" "$slow" "waited for its next batch [0-9]+% of the time \(step timing from the job\)"
    expect_match "diagnose of the log: same verdict" "$("$GPUMON" diagnose --window 4s "$T/slow.jsonl")" "input-wait"
  else
    echo "note: the slow loader waited $own% of its loop in $(steps "$T/slow.json") steps (a loaded machine): its verdict is not checked" >&2
  fi
  html=$(cat "$T/slow.html")
  for s in steps.rate steps.time steps.wait; do expect_match "report: $s chart" "$html" "data-series=\"$s\""; done
  expect_match "report: steps table" "$html" '<section id="steps">'
  cached=$(cat "$T/cached.err")
  own=$(share "$T/cached.json")
  got=$(jfig "$T/cached.jsonl" 'd["steps"][0]["wait_share"]')
  "$PY" -c "import sys; sys.exit(0 if abs($own - $got) <= 3 else 1)" && ok ||
    fail "cached: gpumon's wait share $got% is not within 3 points of the job's own $own%"
  if above 3 "$own"; then   # under steps.wait_some (5%): no input verdict
    expect_no_match "cached: no input verdict" "$cached" "input-wait|input-bound"
    expect_match "cached: healthy" "$cached" "OK       healthy"
  else
    echo "note: the cached loader waited $own% of its loop (a loaded machine): its verdict is not checked" >&2
  fi
  # --- two ranks, one slowed down: slow-rank on its GPU (LOCAL_RANK 1 -> GPU 1) ---
  "$GPUMON" "${RUN[@]}" -o "$T/ranks.jsonl" -- sh -c "
    WORLD_SIZE=2 RANK=0 LOCAL_RANK=0 '$PY' '$TRAIN' cached 6 '$T/r0.json' &
    WORLD_SIZE=2 RANK=1 LOCAL_RANK=1 TRAIN_TRANSFORM_S=0.002 '$PY' '$TRAIN' slow 6 '$T/r1.json'; wait" 2>"$T/ranks.err"
  ranks=$(cat "$T/ranks.err")
  expect_match "two ranks: rank 0 listed" "$ranks" "rank 0 pid [0-9]+ on GPU 0: [0-9]+ steps"
  expect_match "two ranks: rank 1 listed" "$ranks" "rank 1 pid [0-9]+ on GPU 1: [0-9]+ steps"
  ratio=$("$PY" -c "import json; f = lambda p: json.load(open(p))['steps']; print(f('$T/r0.json') / max(f('$T/r1.json'), 1))")
  if above "$ratio" 2 && above "$(steps "$T/r1.json")" 24; then   # rank 1 slower by over rank.slow (1.25x)
    expect_match "two ranks: slow-rank" "$ranks" "GPU 1 warning slow-rank: .*rank 1 \(pid [0-9]+\)"
  else
    echo "note: rank 0 took only ${ratio}x the steps of rank 1 (a loaded machine): slow-rank is not checked" >&2
  fi
  expect_no_match "two ranks: not on GPU 0" "$ranks" "GPU 0 warning slow-rank"
fi

# --- the notebook magic, with the real binary ---
if "$PY" -c "import IPython" 2>/dev/null; then
  gp_abs=$(readlink -f "$GPUMON") sim_abs=$(readlink -f "$SIM")
  out=$(cd "$T" && GPUMON="$gp_abs" GPUMON_NVML="$sim_abs" "$PY" - <<'PYEOF' 2>&1
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "gpumon")
ip.run_cell_magic("gpumon", "--interval 200ms --no-report", """
import time, gpumon
for i in range(40):
    with gpumon.step():
        time.sleep(0.01)
    time.sleep(0.02)
print("cell done")
""")
PYEOF
)
  expect_match "notebook: the cell ran" "$out" "cell done"
  expect_match "notebook: the summary" "$out" "Training steps \(reported by the job, 1 process\)"
  expect_match "notebook: steps of the kernel" "$out" "pid [0-9]+: 40 steps"
else
  echo "SKIP: IPython is not installed: the notebook magic is not tested" >&2
fi
echo "$CHECKS checks, $FAILS failures"
[ "$FAILS" = 0 ]
