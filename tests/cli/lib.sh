# lib.sh: helpers for the black-box tests. Each test script sources this,
# runs the real build/gpumon against the simulated NVML in its own temp
# directory, and fails with "got X, expected Y".
set -u
: "${GPUMON:?set GPUMON to the gpumon binary}" "${BUILD:?set BUILD}" "${SRC:?set SRC}"
SIM="$BUILD/sim/libnvidia-ml.so.1"
SCN="$SRC/examples/scenarios"
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/gpumon-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
export GPUMON_TEST_DIR="$T"   # every process the test starts carries it: done_tests finds orphans by it
unset GPUMON_NVML GPUMON_SIM_SCENARIO GPUMON_SIM_SPEED GPUMON_SIM_START
export GPUMON_SIM_CLOCK_DIR="$T/simclock"   # the scenario clocks this test's processes share (no other test's)
FAILS=0
CHECKS=0

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
ok() { CHECKS=$((CHECKS + 1)); }
# expect_eq WHAT GOT EXPECTED
expect_eq() { if [ "$2" = "$3" ]; then ok; else fail "$1: got '$2', expected '$3'"; fi; }
# expect_match WHAT TEXT REGEX
expect_match() { if printf '%s' "$2" | grep -Eq -- "$3"; then ok; else fail "$1: got '$2', expected a match for /$3/"; fi; }
expect_no_match() { if printf '%s' "$2" | grep -Eq -- "$3"; then fail "$1: got '$2', expected no match for /$3/"; else ok; fi; }
# gp ARGS...: gpumon on the simulator (scenario from $SCENARIO if set)
gp() {
  if [ -n "${SCENARIO:-}" ]; then GPUMON_SIM_SCENARIO="$SCENARIO" "$GPUMON" "$@" --nvml "$SIM"
  else "$GPUMON" "$@" --nvml "$SIM"; fi
}
# pycheck FILE 'python code using recs (list of dicts from a JSONL file)'
pycheck() {
  local file=$1; shift
  if "$PY" - "$file" "$@" <<PYEOF
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
$*
PYEOF
  then ok; else fail "python check on $file: $*"; fi
}
# quiet_host FILE: pins host.cpu.iowait to 0.3% in a JSON Lines log. The simulated GPUs play on a real
# host whose iowait belongs to whatever else runs (other tests, CI's own work), and a rule reads it:
# tests that expect exact verdicts of a scenario pin it, as a quiet host would show.
quiet_host() {
  "$PY" - "$1" <<'PYEOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
with open(sys.argv[1], "w") as out:
    for r in recs:
        if "host" in r and "host.cpu.iowait" in r["host"]:
            r["host"]["host.cpu.iowait"] = 0.3
        out.write(json.dumps(r, separators=(",", ":")) + "\n")
PYEOF
}
# wait_for WHAT 'CONDITION' [LIMIT_S]: waits until the shell condition holds, testing it every 50 ms.
# Tests wait on conditions, never on a guess of how long something takes: the limit (default 120 s)
# only ends a wait that would otherwise hang, as a failure naming WHAT; it is not a timing assertion.
wait_for() {
  local what=$1 cond=$2 limit=${3:-120} start=$SECONDS
  until eval "$cond"; do
    if [ $((SECONDS - start)) -ge "$limit" ]; then fail "gave up waiting (${limit} s) for $what"; return 1; fi
    sleep 0.05
  done
}
# free_port: a TCP port nothing listens on now
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# lines FILE: its number of lines (0 when it does not exist yet)
lines() { if [ -e "$1" ]; then wc -l < "$1"; else echo 0; fi; }
# orphans: this test's processes (GPUMON_TEST_DIR=$T in their environment) whose parent is neither the
# test nor another of them: left behind when a background job's subshell was killed and not what it
# ran (they would outlive the test). Read with builtins only, so the scan starts no process itself.
orphans() {
  local p s e mine=" " ppids=()
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] && continue
    e=""
    while IFS= read -r -d '' e; do [ "$e" = "GPUMON_TEST_DIR=$T" ] && break; done 2> /dev/null < "/proc/$p/environ"
    [ "$e" = "GPUMON_TEST_DIR=$T" ] || continue
    read -r s 2> /dev/null < "/proc/$p/stat" || continue
    s=${s##*) }
    [ "${s%% *}" = Z ] && continue
    s=${s#* }
    mine+="$p "
    ppids+=("$p:${s%% *}")
  done
  for e in ${ppids[@]+"${ppids[@]}"}; do
    [ "${e#*:}" = "$$" ] || [[ "$mine" == *" ${e#*:} "* ]] || printf '%s ' "${e%%:*}"
  done
}
done_tests() {
  local left="" i
  for i in $(seq 20); do   # a process whose parent was just killed may be ending too: 2 s for it
    left=$(orphans)
    [ -z "$left" ] && break
    sleep 0.1
  done
  for i in $left; do
    fail "left running after the test (its parent is gone): pid $i: $(tr '\0' ' ' < "/proc/$i/cmdline" 2> /dev/null)"
    kill -KILL "$i" 2> /dev/null
  done
  echo "$CHECKS checks passed, $FAILS failed"
  [ "$FAILS" -eq 0 ]
}
