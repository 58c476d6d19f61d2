# gpumon top: the live view, driven in tmux on simulated GPUs (new-session with a fixed size, send-keys,
# capture-pane, polled until the text appears). The layout at 80x24 and 200x60, a resize and a terminal
# too small; sorting, filtering, the tree; signalling the test's own processes (listed as GPU processes by
# a scenario that names their pids): the y/n question, a process that ends before the answer (ESRCH),
# another user's process refused; a lost GPU with its verdict and the detail screen; a hung NVML call (the
# screen goes on, the header shows the data's age, q still ends it); NO_COLOR, UTF-8 and ASCII graphs;
# TERM=dumb, not a terminal and no GPU (watch's line and status); SIGTERM, SIGINT and the terminal given
# back; the module loaded by top alone; the /proc reader's unit test.
. "$(dirname "$0")/lib.sh"

# Built without ncursesw (or -DGPUMON_TOP=OFF): top says what to install, and that is all there is.
if [ ! -f "$BUILD/gpumon-top.so" ]; then
  "$GPUMON" top > /dev/null 2> "$T/err"; rc=$?
  expect_eq "top without its module: exit" "$rc" 1
  expect_match "top without its module: what to install" "$(cat "$T/err")" "built without the live view: install libncurses-dev"
  done_tests; exit
fi
if ! command -v tmux > /dev/null; then
  echo "tmux is not installed (scripts/deps.sh test installs it): gpumon top's screen checks skipped" >&2
  done_tests; exit
fi

# Options, help, and a terminal that cannot do it.
out=$("$GPUMON" top --help); rc=$?
expect_eq "top --help exit" "$rc" 0
expect_match "top --help: terminal needs and status" "$out" "TERM=dumb, is refused with exit status 2"
expect_match "top --help: the shared options" "$out" "--scenario FILE.*"$'\n'".*|--threshold"
expect_match "gpumon --help lists top" "$("$GPUMON" --help)" "top +live view in the terminal"
"$GPUMON" top --interval 50ms > /dev/null 2> "$T/err"; rc=$?
expect_eq "--interval below 100ms: exit" "$rc" 2
expect_match "--interval below 100ms: why" "$(cat "$T/err")" "below the minimum of 100ms"
"$GPUMON" top --sim < /dev/null > "$T/out" 2> "$T/err"; rc=$?
expect_eq "not a terminal: exit" "$rc" 2
expect_match "not a terminal: one line" "$(cat "$T/err")" "^gpumon top: standard input and output must be a terminal \(for a pipe or a log: gpumon watch\)$"
"$GPUMON" top --list-rules > "$T/out" 2>&1; expect_match "top --list-rules" "$(cat "$T/out")" "input-bound-cpu"

# The module: loaded by top only; watch never maps a curses library.
expect_no_match "gpumon is not linked with ncurses" "$(ldd "$GPUMON")" "ncurses|tinfo"
"$GPUMON" watch --sim --interval 100ms --count 100 > /dev/null 2>&1 &
wpid=$!
wait_for "watch to load NVML" 'grep -q libnvidia-ml /proc/$wpid/maps 2> /dev/null'   # well into its start
expect_no_match "watch does not map ncurses" "$(cat /proc/$wpid/maps 2> /dev/null)" "ncurses"
kill $wpid; wait $wpid

# ---- tmux ----
chmod 755 "$T"
SOCK="$T/tmux.sock"
tm() { tmux -S "$SOCK" -f /dev/null "$@"; }
cat > "$T/run.sh" <<EOF
#!/bin/sh
# run.sh NAME CMD...: CMD in a tmux pane; its status into rc.NAME, its stderr into err.NAME
name=\$1; shift
trap : INT   # a Ctrl-C is gpumon's to take: this shell goes on to write the status
"\$@" 2> "$T/err.\$name"
echo \$? > "$T/rc.\$name"
exec sleep 300
EOF
chmod 755 "$T/run.sh"
# start NAME WIDTH HEIGHT CMD...: a detached session of that size running CMD
start() {
  local name=$1 w=$2 h=$3; shift 3
  rm -f "$T/rc.$name"
  tm new-session -d -s "$name" -x "$w" -y "$h" "$T/run.sh $name $(printf '%q ' "$@")"
}
screen() { tm capture-pane -p -t "$1"; }
keys() { local name=$1; shift; tm send-keys -t "$name" "$@"; }
# wait_screen NAME REGEX [SECONDS]: polls the pane until REGEX matches; false (and the screen is shown) if not.
# The limit (default 30 s) only ends a wait that would hang: a loaded machine may take long to draw.
wait_screen() {
  local i s
  for i in $(seq $((${3:-30} * 20))); do
    s=$(screen "$1") && printf '%s' "$s" | grep -Eq -- "$2" && return 0
    sleep 0.05
  done
  echo "--- $1: no /$2/ in:" >&2; printf '%s\n' "$s" >&2
  return 1
}
expect_screen() { if wait_screen "$1" "$2" "${4:-30}"; then ok; else fail "$3"; fi; }
# wait_rc NAME [SECONDS]: the command's exit status, once it has exited ("none" if it has not in 30 s)
wait_rc() {
  local i
  for i in $(seq $((${2:-30} * 20))); do
    [ -s "$T/rc.$1" ] && { cat "$T/rc.$1"; return; }
    sleep 0.05
  done
  echo none
}
gpid() { pgrep -P "$(tm display -p -t "$1" '#{pane_pid}')" | head -1; }
trap 'tm kill-server 2> /dev/null; kill $(jobs -p) ${w2:-} 2> /dev/null; rm -rf "$T"' EXIT

U8="LANG=C.UTF-8 LC_ALL=C.UTF-8"
# Sessions that only start and stop, at once: TERM=dumb, no NVML library, zero GPUs; a lost GPU (the
# scenario's GPU 1 falls off at 20 s: started at 19 s), and a hang (GetPowerUsage blocks 10 s from 5 s).
start dumb 80 24 env TERM=dumb "$GPUMON" top --sim
start nolib 80 24 "$GPUMON" top --nvml /nonexistent/libnvidia-ml.so.1
start zero 80 24 "$GPUMON" top --scenario zero-gpus
start lost 80 24 env LC_ALL=C LANG=C GPUMON_SIM_START=19 "$GPUMON" top --scenario gpu-lost
start hang 100 30 env GPUMON_SIM_START=4.6 "$GPUMON" top --scenario hang --interval 100ms

expect_eq "TERM=dumb: exit" "$(wait_rc dumb)" 2
expect_match "TERM=dumb: why" "$(cat "$T/err.dumb")" "^gpumon top: this terminal \(TERM=dumb\) cannot show a full-screen view"
"$GPUMON" watch --once --nvml /nonexistent/libnvidia-ml.so.1 > /dev/null 2> "$T/watch.err"; wrc=$?
expect_eq "no NVML library: watch's status" "$(wait_rc nolib)" "$wrc"
expect_eq "no NVML library: watch's line" "$(cat "$T/err.nolib")" "$(cat "$T/watch.err")"
expect_eq "zero GPUs: exit" "$(wait_rc zero)" 5
expect_match "zero GPUs: why" "$(cat "$T/err.zero")" "simulated scenario .*zero-gpus.scn\" declares no GPU"

# A hung NVML call: the screen goes on (the clock and the age move), the header says how old the data
# is, and q ends top with the terminal given back, the stuck sampler left behind (after its 2 s grace,
# well before the 10 s hang ends: it says so).
age() { screen hang | sed -n 's/.*data \([0-9.]*\) s old.*/\1/p'; }
if wait_screen hang "data [0-9.]+ s old: an NVML call is slow or hung"; then
  ok
  a=$(age)
  # a later screen with an older age (waits for the redraw, however long a loaded machine takes)
  if wait_for "the data's age to grow past $a" '[ "$(awk -v a="$a" -v b="$(age)" "BEGIN { print (b > a) }")" = 1 ]' 20; then
    ok
  fi
  keys hang q
  expect_eq "hang: q ends top" "$(wait_rc hang)" 0
  expect_match "hang: says it left the sampler" "$(cat "$T/err.hang")" "stuck in an NVML call; exiting without waiting"
  expect_no_match "hang: terminal given back (no screen left)" "$(screen hang)" "gpumon top"
else
  fail "hang: no data age in the header"
fi

# A lost GPU, ASCII graphs (LC_ALL=C), the verdict at once and the detail screen, then SIGTERM.
expect_screen lost "^  1 +LOST .*gpu-lost" "lost GPU: LOST and its verdict on its line"
expect_screen lost "^  1 +LOST .* lost +gpu-lost" "lost GPU: where its time goes (the ledger's cause)"
expect_match "the others' time goes to compute" "$(screen lost | grep -E '^  0 ')" "W -  +(judging|healthy)"
expect_no_match "lost: the other GPUs go on" "$(screen lost | grep -E '^  [023] ')" "LOST"
expect_no_match "ASCII locale: no byte above 127" "$(screen lost | LC_ALL=C tr -d '\000-\177' | head -c 10)" "."
expect_match "ASCII locale: graph cells" "$(screen lost)" "##"
keys lost 1 Enter
expect_screen lost "critical gpu-lost: the GPU fell off the bus" "detail screen: the verdict's title"
expect_screen lost "advice: Drain the node" "detail screen: the advice"
expect_match "detail screen: the lost state" "$(screen lost)" "state: LOST"
keys lost Escape
expect_screen lost "^GPU +UTIL" "Esc: back to the main screen"
kill -TERM "$(gpid lost)"
expect_eq "SIGTERM: exit 0" "$(wait_rc lost)" 0
expect_eq "SIGTERM: the terminal given back" "$(screen lost | grep -c .)" 0

# 80x24, 8 idle H200s without colour: every part in place, no colour escape, then resizes.
start idle 80 24 env NO_COLOR=1 $U8 "$GPUMON" top --scenario idle-8xh200
expect_screen idle "^  7 +0% " "80x24: the GPUs"
s=$(screen idle)
expect_match "80x24: GPU heads" "$s" "^GPU +UTIL +RANGE +SM +TNSR +MEM +TEMP +POWER .*VERDICT"
expect_match "80x24: header" "$s" "^gpumon top  .*  8 GPUs  every 1s  [0-9:]{8}"
expect_eq "80x24: eight GPU lines" "$(printf '%s\n' "$s" | grep -cE '^  [0-7] +0% .*/700W')" 8
expect_match "80x24: the history graph" "$s" "GPU 0 utilization 0%, last [0-9]+ s"
expect_match "80x24: process heads" "$s" "PID USER +GPU GPU MEM +CPU% +RSS COMMAND"
expect_match "80x24: no processes" "$s" "no processes on the GPUs"
expect_match "80x24: judging until the window is covered" "$s" "judging"
expect_match "80x24: key hints" "$s" "q quit  \? help"
expect_eq "80x24: 24 lines, none wider than 80" "$(printf '%s\n' "$s" | awk 'length > 80' | wc -l):$(printf '%s\n' "$s" | wc -l)" "0:24"
expect_no_match "NO_COLOR: no colour escapes" "$(tm capture-pane -e -p -t idle)" $'\e\\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])(;[0-9;]*)?m'
tm resize-window -t idle -x 200 -y 60
expect_screen idle "^GPU NAME +UTIL .*MEM USED .*HISTORY +VERDICT" "resize to 200x60: wider columns"
tm resize-window -t idle -x 50 -y 10
expect_screen idle "terminal too small:" "resize to 50x10: says the minimum"
expect_match "too small: the minimum and the size" "$(screen idle)" "needs 60x12 or more,"$'\n'"this one is 50x10"
tm resize-window -t idle -x 80 -y 14
expect_screen idle " GPUs 1-[0-9] of 8$" "more GPUs than rows: which are shown"
keys idle 7
expect_screen idle "^  7 +0% " "selecting GPU 7 scrolls to it"
tm resize-window -t idle -x 80 -y 24
expect_screen idle "^  0 +0% " "back to 80x24: all GPUs"
keys idle '?'
expect_screen idle "^Keys" "? shows the keys"
keys idle Escape p
expect_screen idle "PAUSED" "p pauses"
keys idle p -
expect_screen idle "every 500ms" "- samples more often"
keys idle C-c
expect_eq "Ctrl-C (SIGINT): exit 0" "$(wait_rc idle)" 0

# 200x60 with colour, busy GPUs: names, memory, history sparklines, four graphs, UTF-8 blocks.
start wide 200 60 env $U8 "$GPUMON" top --scenario straggler
expect_screen wide "^  7 H100 80GB HBM3 .*[0-9]+/700W" "200x60: GPU lines with names"
expect_screen wide "power of limit" "200x60: four history graphs"
s=$(screen wide)
expect_match "200x60: all columns" "$s" "^GPU NAME +UTIL +RANGE +SM +TNSR +MEM +MEM USED +TEMP +POWER +SMCLK +P +THROTTLE +TIME GOES TO +HISTORY +VERDICT"
expect_eq "200x60: eight process lines" "$(printf '%s\n' "$s" | grep -cE '^ +910[0-7] ')" 8
expect_match "200x60: SM share per process" "$s" "PID USER +GPU GPU MEM +SM% +CPU%"
expect_match "UTF-8: block graphs" "$s" "█"
expect_match "colours when NO_COLOR is not set" "$(tm capture-pane -e -p -t wide)" $'\e\\[(3[0-7]|4[0-7])m'
# The frames top writes itself (top_out.c) show what curses shows: paused, the screen as they left it
# against curses' whole redraw after a resize, cell by cell with colours and attributes. The filter,
# written by top into the host line as it is typed, begins with a combining accent (curses would put it
# on the cell before) and has characters with more combining ones than a curses cell keeps (four), one of
# them wide (whose combining ones top leaves out: ncurses 6.2, Debian 11's, drops them where 6.4 keeps them).
keys wide /
tm send-keys -t wide -l $'\u0301x e\u0301\u0302\u0303\u0304\u0305 \u4e2d\u0301\u0302\u0303\u0304\u0305'
keys wide Enter
expect_screen wide "filter: .*x e.* 中" "200x60: a filter of combining characters"
cells() {   # cells FILE: a capture-pane -e as cells (a character, its colours and attributes), one line a row
  "$PY" - "$1" <<'PYEOF'
import re, sys
rows, st = [], {}
for line in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    row = []
    for tok in re.findall(r"\x1b\[[0-9;]*m|.", line):
        if not tok.startswith("\x1b["):   # a blank shows only its background, reverse and underline
            row.append((tok, tuple(sorted(st.items() if tok != " " else
                                          ((k, v) for k, v in st.items() if k in ("bg", "7", "4"))))))
            continue
        for p in (tok[2:-1] or "0").split(";"):
            p = int(p or 0)
            if p == 0:
                st = {}
            elif 30 <= p <= 37 or 40 <= p <= 47:
                st["fg" if p < 40 else "bg"] = p
            elif p in (39, 49):
                st.pop("fg" if p == 39 else "bg", None)
            elif p in (22, 24, 27):
                for k in {22: ("1", "2"), 24: ("4",), 27: ("7",)}[p]:
                    st.pop(k, None)
            else:
                st[str(p)] = 1
    while row and row[-1] == (" ", ()):
        row.pop()
    rows.append(row)
while rows and not rows[-1]:
    rows.pop()
for row in rows:
    print(row)
PYEOF
}
# as_curses NAME W H WHAT: pauses the W x H pane NAME, and checks that the screen top's frames left there
# is the one curses draws whole after a resize away and back.
as_curses() {
  local n=$1 w=$2 h=$3
  keys "$n" p
  expect_screen "$n" "PAUSED" "$4: paused"
  tm capture-pane -e -p -t "$n" > "$T/direct"
  tm resize-window -t "$n" -x 50 -y 10
  expect_screen "$n" "terminal too small:" "$4: resized away"
  tm resize-window -t "$n" -x "$w" -y "$h"
  expect_screen "$n" "^q quit  \\? help" "$4: redrawn by curses (down to its last line)"
  tm capture-pane -e -p -t "$n" > "$T/curses"
  same_cells "$4"
}
same_cells() {   # same_cells WHAT: $T/direct and $T/curses show the same cells
  cells "$T/direct" > "$T/direct.cells"
  cells "$T/curses" > "$T/curses.cells"
  expect_eq "$1: frames written by top look as curses draws them (rows that differ)" \
    "$(diff "$T/direct.cells" "$T/curses.cells" | grep '^[<>]' | cut -c1-300 | head -4)" ""
}
as_curses wide 200 60 "200x60"
kill -HUP "$(gpid wide)"
expect_eq "SIGHUP (the terminal closed): exit 0" "$(wait_rc wide)" 0

# Ctrl-Z while a frame is being written (a slow terminal: tmux stopped until top blocks in its write):
# curses' handler ends the screen and, resumed, redraws the frame curses drew last, under the one top is
# writing; top then draws whole. (The pane's process group is orphaned: the stop itself is discarded, the
# handler runs all the same. The wait reads the kernel's wchan: skipped where it shows no symbol.)
start susp 120 40 env $U8 "$GPUMON" top --scenario straggler --interval 100ms
expect_screen susp "^  7 H100" "Ctrl-Z in a write: the screen"
gp=$(gpid susp)
in_poll() { local i; for i in $(seq 100); do grep -q poll "/proc/$1/wchan" 2> /dev/null && return; sleep 0.05; done; false; }
if [ -n "$gp" ] && in_poll "$gp"; then
  server=$(tm display -p -t susp '#{pid}')
  kill -STOP "$server"
  wait_for "top to block writing a frame" 'grep -Eq "wait_woken|tty_write" /proc/$gp/wchan' 60
  kill -TSTP "$gp"
  kill -CONT "$server"
  kill -CONT "$gp"
  expect_screen susp "^  7 H100" "Ctrl-Z in a write: resumed"
  as_curses susp 120 40 "Ctrl-Z in a write"
else
  echo "no poll in /proc/$gp/wchan: Ctrl-Z in a write not checked" >&2
fi
keys susp q
expect_eq "Ctrl-Z in a write: q ends top" "$(wait_rc susp)" 0

# A terminal another program left non-blocking (O_NONBLOCK is shared by every process on the tty): a
# frame written while the terminal's buffer is full waits for room, as curses does, rather than being
# lost with top believing it shown. Paused, tmux stopped and its buffer filled with NULs (which a
# terminal ignores), a message on top's standard error is the one frame, sent once top has read it.
start nonblock 120 40 env $U8 "$PY" -c 'import fcntl, os, sys
fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK)
os.execv(sys.argv[1], sys.argv[1:])' "$GPUMON" top --scenario straggler
expect_screen nonblock "^  7 H100" "non-blocking terminal: the screen"
keys nonblock p
expect_screen nonblock "PAUSED" "non-blocking terminal: paused"
gp=$(gpid nonblock)
if [ -n "$gp" ] && in_poll "$gp"; then
  server=$(tm display -p -t nonblock '#{pid}') tty=$(tm display -p -t nonblock '#{pane_tty}')
  kill -STOP "$server"   # no tmux command until it goes on: it would wait for the server
  "$PY" - "$tty" <<'PYEOF'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
try:
    while True:
        os.write(fd, bytes(4096))
except BlockingIOError:
    pass
PYEOF
  echo "a message while the terminal is full" > "/proc/$gp/fd/2"
  unread() { "$PY" -c 'import fcntl, os, struct, sys, termios
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
print(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"0000"))[0])' "/proc/$gp/fd/2"; }
  wait_for "top to read its standard error" '[ "$(unread)" = 0 ]' 30
  in_poll "$gp"   # the frame written (or waiting for room)
  kill -CONT "$server"
  expect_screen nonblock "a message while the terminal is full" "non-blocking terminal: the frame shown once there is room"
else
  echo "no poll in /proc/$gp/wchan: a full non-blocking terminal not checked" >&2
fi
keys nonblock q
expect_eq "non-blocking terminal: q ends top" "$(wait_rc nonblock)" 0

# A UTF-8 hostname (set in a UTS namespace of the test's own) whose wide characters reach the header's
# "? help": the hint is not written over half of one (curses would draw it a column further on).
if unshare -Ur --uts true 2> /dev/null; then
  start host 60 24 env $U8 unshare -Ur --uts "$PY" -c 'import os, socket, sys
socket.sethostname(sys.argv[1].encode())
os.execv(sys.argv[2], sys.argv[2:])' "$(printf '中%.0s' $(seq 21))" "$GPUMON" top --scenario straggler --interval 100ms
  expect_screen host "^gpumon top  中+ +\\? help$" "UTF-8 hostname: the header"
  # the header alone (it hides the clock and PAUSED: it stays as it is), against curses' redraw
  tm capture-pane -e -p -t host -E 0 > "$T/direct"
  tm resize-window -t host -x 50 -y 10
  expect_screen host "terminal too small:" "UTF-8 hostname: resized away"
  tm resize-window -t host -x 60 -y 24
  expect_screen host "^q quit  \\? help" "UTF-8 hostname: redrawn by curses"
  tm capture-pane -e -p -t host -E 0 > "$T/curses"
  same_cells "UTF-8 hostname"
  keys host q
  expect_eq "UTF-8 hostname: q ends top" "$(wait_rc host)" 0
else
  echo "no user namespaces here: a UTF-8 hostname not checked" >&2
fi

# The test's own processes as GPU processes: a launcher with two workers, a third process, one that is not
# on this host (another PID namespace); sorting, filtering, the tree, signals.
sh -c 'sleep 300 & sleep 300 & wait' &
launcher=$!
sleep 300 &
third=$!
for i in $(seq 100); do [ "$(pgrep -P $launcher | wc -l)" -eq 2 ] && break; sleep 0.02; done
set -- $(pgrep -P $launcher | sort -n)
w1=$1 w2=$2
far=3999999
cat > "$T/own.scn" <<EOF
gpu 0-1
  name NVIDIA H100 80GB HBM3
  memory_total 81559 MiB
  util.gpu = const(80)
gpu 0
  process $w1 worker-one memory=const(30 GiB) util=70%
  process $third the-third memory=const(20 GiB) util=30%
gpu 1
  process $w2 worker-two memory=const(10 GiB)
  process $far far-away memory=const(5 GiB)
EOF
chmod 644 "$T/own.scn"
start own 120 40 env $U8 "$GPUMON" top --scenario "$T/own.scn"
# the table, largest GPU memory first
expect_screen own "^ *$far " "own processes listed"
# the rows' order, waited for: a frame that changes many rows is more than the terminal reads at once, so a
# capture can fall between the header's line and the rows (a loaded machine)
order() { screen own | awk -v a=$w1 -v b=$w2 -v c=$third -v d=$far '$1==a||$1==b||$1==c||$1==d {printf "%s ", $1}'; }
expect_order() {   # (wait_for's eval sees its own arguments: the expected order goes in a variable)
  want_order=$2
  if wait_for "$1" '[ "$(order)" = "$want_order" ]' 30; then ok; else echo "  rows: $(order), expected: $2" >&2; fi
}
expect_order "sorted by GPU memory, largest first" "$w1 $third $w2 $far "
row=$(screen own | grep -E "^ +$w1 ")
expect_match "own process: user, GPU, memory, SM share, CPU, RSS, command line" "$row" \
  "^ +$w1 $(id -un) +(.{12} +)?0 +30\.0G +[0-9]+% +([0-9.]+|-) +[0-9.]+[MG] sleep 300$"
expect_match "a process of another PID namespace: NVML's name" "$(screen own | grep -E "^ *$far ")" "^ *$far \? +1 +5\.0G .*far-away$"
sort_by() { screen own | grep -Eo "sorted by [A-Z%]+( [A-Z]+)?" | head -1; }
for i in $(seq 12); do   # one s at a time, each once the screen shows where the last one went
  was=$(sort_by)
  [ "$was" = "sorted by PID" ] && break
  keys own s
  wait_for "the sort after s (was: $was)" '[ "$(sort_by)" != "$was" ]' 30 || break
done
expect_screen own "sorted by PID" "s: sorts by the next column, round to PID"
expect_order "sorted by PID" "$(printf '%s\n' $w1 $w2 $third $far | sort -n | tr '\n' ' ')"
keys own r
expect_screen own "sorted by PID, descending" "r: reverses"
expect_order "sorted by PID, descending" "$(printf '%s\n' $w1 $w2 $third $far | sort -rn | tr '\n' ' ')"
keys own '>'
expect_screen own "sorted by USER" "> sorts by the next column"
keys own '<' '<'
expect_screen own "sorted by COMMAND" "< sorts by the previous column"
# the tree: the launcher (sh, not on a GPU) over its two workers
keys own t
expect_screen own "^ +$launcher .*sh -c sleep 300 & sleep 300 & wait" "t: the launcher of two GPU processes"
expect_match "tree: the workers under it" "$(screen own | grep -E "^ +($w1|$w2) ")" "└─ sleep 300"
expect_match "tree: the test's shell, where the launcher and the third process meet" "$(screen own)" "^ +$$ "
expect_no_match "tree: not the single-branch ancestor above it" "$(screen own)" "^ +$PPID "
keys own t
expect_screen own "flat view" "t again: flat"
# filter on a pid: one row; Esc clears it
keys own / "$third" Enter
expect_screen own "filter: $third" "filter shown in the header"
# the header shows the text as it is typed, the rows follow at Enter: wait for them (a loaded machine)
rows() { screen own | grep -cE "^ *($w1|$w2|$third|$far) "; }
wait_for "filter: one row" '[ "$(rows)" = 1 ]' 30 && ok
keys own Escape
expect_screen own "^ +$w2 " "Esc clears the filter"
# signals: n keeps the process, y sends, a process that ends before the answer is not signalled
keys own / "$w1" Enter Tab
expect_screen own "filter: $w1" "filter on the first worker"
wait_for "filter: the first worker alone" '[ "$(rows)" = 1 ]' 30 && ok
keys own k
expect_screen own "Send SIGTERM to $w1 \(sleep 300\)\? \(y/n\)" "k asks first"
keys own n
expect_screen own "no signal sent" "n: nothing sent"
kill -0 $w1 2> /dev/null && ok || fail "n killed the process anyway"
keys own k y
expect_screen own "sent SIGTERM to process $w1" "y: sent"
for i in $(seq 100); do kill -0 $w1 2> /dev/null || break; sleep 0.02; done
kill -0 $w1 2> /dev/null && fail "SIGTERM did not end process $w1" || ok
keys own Escape / "$third" Enter K
expect_screen own "Send SIGKILL to $third" "K asks first"
kill -9 $third; wait $third 2> /dev/null
keys own y
expect_screen own "process $third has already ended: no signal sent" "a process gone before the answer: said, not signalled"
keys own Escape / "$far" Enter k
expect_screen own "process $far is not visible here" "a process of another PID namespace: refused"
keys own q
expect_eq "q: exit 0" "$(wait_rc own)" 0

# Another user's process: refused without root (as root: top run as nobody, the process root's).
# nobody runs an installed copy in $T (mode 755): the build tree may be under a home nobody cannot enter
# (a checkout in /root, mode 0700).
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
  cmake --install "$BUILD" --prefix "$T/prefix" > /dev/null 2>&1
  cp "$SRC/tests/lsan.supp" "$T/"   # the sanitizer build's suppressions, where nobody can read them
  start nobody 100 30 setpriv --reuid=65534 --regid=65534 --clear-groups env $U8 \
    LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0" "$T/prefix/bin/gpumon" top \
    --nvml "$T/prefix/lib/gpumon/sim/libnvidia-ml.so.1" --scenario "$T/own.scn"
  if wait_screen nobody "^ +$w2 " 8; then
    keys nobody / "$w2" Enter Tab k
    expect_screen nobody "process $w2 belongs to root: only root may signal another user's processes" \
      "another user's process: refused"
    kill -0 $w2 2> /dev/null && ok || fail "the other user's process was signalled"
  else
    fail "top as nobody did not show the processes ($(cat "$T/err.nobody"))"
  fi
fi
kill $launcher $w2 2> /dev/null
tm kill-server 2> /dev/null

# Installed: the module beside the binary's prefix, found by the installed gpumon.
cmake --install "$BUILD" --prefix "$T/prefix" > /dev/null 2>&1
[ -f "$T/prefix/lib/gpumon/gpumon-top.so" ] && ok || fail "not installed: lib/gpumon/gpumon-top.so"
"$T/prefix/bin/gpumon" top --help > /dev/null 2>&1; expect_eq "installed gpumon top finds its module" "$?" 0

# (The /proc reader's own unit test is unit_top_proc, registered in tests/CMakeLists.txt.)
done_tests
