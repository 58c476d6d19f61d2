# Every output format and the options that shape it, on the default
# simulated node (two GPUs).
. "$(dirname "$0")/lib.sh"

# JSON Lines: one object per sample with timestamp, hostname, host and gpus.
gp watch --once --format jsonl > "$T/one.jsonl" 2> "$T/err"; rc=$?
expect_eq "jsonl exit" "$rc" 0
expect_eq "no stderr" "$(cat "$T/err")" ""
expect_eq "jsonl lines" "$(wc -l < "$T/one.jsonl")" 1
pycheck "$T/one.jsonl" '
import re, socket
r = recs[0]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["timestamp"]), r["timestamp"]
assert r["hostname"] == socket.gethostname()
assert isinstance(r["host"]["host.cpu.count"], int) and r["host"]["host.memory.total"] > 0
assert len(r["gpus"]) == 2
for i, g in enumerate(r["gpus"]):
    assert g["index"] == i and g["state"] == "ok"
    assert g["uuid"].startswith("GPU-") and g["name"]
    assert isinstance(g["utilization.gpu"], int) and 0 <= g["utilization.gpu"] <= 100
    assert isinstance(g["power.draw"], (int, float)) and g["power.draw"] > 0
    assert g["memory.used"] + g["memory.free"] + g["memory.reserved"] in range(g["memory.total"] - 2, g["memory.total"] + 1)
    assert re.fullmatch(r"P\d+", g["pstate"])
    assert g["pcie.throughput.tx"] is not None, "slow metrics are read before the first record"
    assert isinstance(g["clocks_event_reasons.sw_power_cap"], bool)
    assert isinstance(g["processes"], list)
'

# CSV: header of metric keys, one row per GPU per sample.
gp watch --count 3 --interval 50ms --format csv > "$T/three.csv" 2>/dev/null
expect_eq "csv lines (header + 3 samples x 2 GPUs)" "$(wc -l < "$T/three.csv")" 7
expect_match "csv header" "$(head -1 "$T/three.csv")" "^timestamp,hostname,index,name,uuid,"
"$PY" - "$T/three.csv" <<'PYEOF' && ok || fail "csv parses with matching column counts"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert all(len(r) == len(rows[0]) for r in rows), "ragged rows"
h = rows[0]
assert [r[h.index("index")] for r in rows[1:]] == ["0", "1"] * 3
assert all(r[h.index("utilization.gpu")].isdigit() for r in rows[1:])
PYEOF

# --fields chooses metrics, in order, in every format.
gp watch --once --format csv --fields utilization.gpu,memory.used,host.cpu.user > "$T/f.csv" 2>/dev/null
expect_eq "csv --fields header" "$(head -1 "$T/f.csv")" \
  "timestamp,hostname,index,utilization.gpu,memory.used,host.cpu.user"   # rows always name their GPU
gp watch --once --format csv --fields utilization.gpu,index > "$T/f2.csv" 2>/dev/null
expect_eq "csv --fields with index where it is listed" "$(head -1 "$T/f2.csv")" "timestamp,hostname,utilization.gpu,index"
gp watch --once --format jsonl --fields temperature.gpu,host.memory.used > "$T/f.jsonl" 2>/dev/null
pycheck "$T/f.jsonl" '
r = recs[0]
assert set(r["host"]) == {"host.memory.used"}
assert set(r["gpus"][0]) == {"index", "temperature.gpu"}, r["gpus"][0].keys()'
out=$(gp watch --once --fields utilization.gpu,power.draw 2>/dev/null)
expect_match "text --fields" "$out" "GPU 0  utilization.gpu=[0-9]+ %  power.draw=[0-9]+\.[0-9]{2} W"

# Text: a timestamped block, a line per GPU with the essentials.
out=$(gp watch --once 2>/dev/null)
expect_match "text header" "$out" "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z  "
expect_match "text gpu line" "$out" "GPU 1  .*util +[0-9]+%.*mem +[0-9]+/[0-9]+ +MiB +[0-9.]+%.*temp +[0-9]+ C.*power +[0-9.]+/[0-9.]+ +W"
# Text fits the terminal: 8 GPUs on 80 columns take one aligned line each
# (a terminal, through script(1)); a terminal wide enough, or a file, gets the full line.
tty_out() {  # tty_out COLUMNS: one 8-GPU text block written to a terminal of that width
  script -qc "COLUMNS=$1 GPUMON_SIM_SCENARIO='$SCN/straggler.scn' '$GPUMON' watch --once --nvml '$SIM' 2>/dev/null" \
    /dev/null | tr -d '\r'
}
narrow=$(tty_out 80)
expect_eq "80 columns: lines" "$(printf '%s\n' "$narrow" | wc -l)" 10   # host, column heads, 8 GPUs
expect_eq "80 columns: none longer" "$(printf '%s\n' "$narrow" | awk 'length($0) > 80' | wc -l)" 0
expect_match "80 columns: column heads" "$narrow" "^GPU NAME +UTIL RANGE +SM/TC +MEM TEMP +POWER +SM P +THROTTLED"
expect_match "80 columns: a GPU" "$narrow" "^  5 H100 80GB HBM3 +[0-9]+%( +[0-9]+- *[0-9]+)? +[0-9]+/[0-9]+ +[0-9.]+% +[0-9]+C +[0-9]+/700 W +[0-9]+ P0"
cols=$(printf '%s\n' "$narrow" | tail -n +3 | awk '{ print index($0, "%") }' | sort -u | wc -l)
expect_eq "80 columns: aligned" "$cols" 1
# GPUs without GPM (before Hopper) keep the layout without the SM/TC column.
old=$(script -qc "COLUMNS=80 GPUMON_SIM_SCENARIO='$SCN/small-batch.scn' '$GPUMON' watch --once --nvml '$SIM' 2>/dev/null" \
        /dev/null | tr -d '\r')
expect_match "80 columns, no GPM: column heads" "$old" "^GPU NAME +UTIL RANGE +MEM TEMP +POWER +SM P +THROTTLED"
expect_no_match "80 columns, no GPM: no SM/TC" "$old" "SM/TC"
expect_no_match "full line, no GPM: no sm active" "$(gp watch --once --scenario small-batch 2>/dev/null)" "sm active"
# The full line only where it fits: its H100 lines are over 130 columns, so 100 and 120 columns get the
# compact layout (they wrapped before), 200 the full one; under 80 columns lines are cut, never wrapped.
for w in 60 100 120 140 200; do
  out=$(tty_out $w)
  expect_eq "$w columns: no line longer" "$(printf '%s\n' "$out" | awk -v w=$w 'length($0) > w' | wc -l)" 0
  expect_eq "$w columns: a line per GPU" "$(printf '%s\n' "$out" | grep -Ec '^ *(GPU )?[0-7] ')" 8
done
expect_match "120 columns: compact" "$(tty_out 120)" "^GPU NAME +UTIL RANGE"
wide=$(tty_out 200)
expect_match "200 columns: the full line" "$wide" "GPU 5  NVIDIA H100 80GB HBM3 +util"
cols=$(printf '%s\n' "$wide" | tail -n +2 | awk '{ print index($0, "mem") }' | sort -u | wc -l)
expect_eq "full lines aligned" "$cols" 1
expect_eq "a file gets the full line, whole" "$(GPUMON_SIM_SCENARIO="$SCN/straggler.scn" gp watch --once 2>/dev/null |
  awk 'length($0) > 129' | wc -l)" 8
# --fields on a narrow terminal: the pairs that do not fit go on indented lines, none lost
pairs=$(script -qc "COLUMNS=50 '$GPUMON' watch --once --nvml '$SIM' --fields name,uuid,utilization.gpu,temperature.gpu 2>/dev/null" \
  /dev/null | tr -d '\r')
expect_eq "--fields in 50 columns: no line longer" "$(printf '%s\n' "$pairs" | awk 'length($0) > 50' | wc -l)" 0
expect_eq "--fields in 50 columns: every pair" "$(printf '%s\n' "$pairs" | grep -o '[a-z.]*=' | sort | uniq -c | awk '{print $1}' | sort -u)" 2

# --gpus by index, UUID and PCI bus id.
uuid1=$("$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["gpus"][1]["uuid"])' "$T/one.jsonl")
pci1=$("$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["gpus"][1]["pci.bus_id"])' "$T/one.jsonl")
for sel in 1 "$uuid1" "$pci1"; do
  n=$(gp watch --once --format csv --gpus "$sel" --fields index 2>/dev/null | tail -n +2 | cut -d, -f3 | tr '\n' ' ')
  expect_eq "--gpus $sel" "$n" "1 "
done
n=$(gp watch --once --format csv --gpus "1,0" --fields index 2>/dev/null | tail -n +2 | wc -l)
expect_eq "--gpus 1,0 rows" "$n" 2
gp watch --once --gpus 7 > /dev/null 2> "$T/err"; rc=$?
expect_eq "--gpus 7 exit" "$rc" 2
expect_match "--gpus 7 message" "$(cat "$T/err")" "no GPU matches \"7\".*2 GPUs"

# --output appends complete lines; the CSV header is written only to an empty file.
gp watch --count 2 --interval 20ms --format csv --output "$T/log.csv" 2>/dev/null
gp watch --count 2 --interval 20ms --format csv --output "$T/log.csv" 2>/dev/null
expect_eq "csv log lines" "$(wc -l < "$T/log.csv")" 9
expect_eq "csv log headers" "$(grep -c '^timestamp,' "$T/log.csv")" 1

# Host CPU shares need an interval: not known in a first record (never a made-up 0), known later.
gp watch --count 2 --interval 700ms --format jsonl > "$T/cpu.jsonl" 2>/dev/null
pycheck "$T/cpu.jsonl" "
assert recs[0]['host']['host.cpu.user'] is None and recs[0]['host']['host.cpu.count'] > 0, recs[0]['host']
assert isinstance(recs[1]['host']['host.cpu.user'], float), recs[1]['host']
"

done_tests
