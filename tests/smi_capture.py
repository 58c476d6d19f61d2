#!/usr/bin/python3
"""Compares gpumon, invoked as nvidia-smi, with real nvidia-smi captures.

For each capture (tests/captures/*.txt, see its README), each of its two
``--query-gpu=<every field> --format=csv`` answers (idle, then under load)
becomes a simulator scenario holding the capture's values: identity, PCI
ids, memory, power limits and range, clocks, PCIe link, temperatures, modes,
VBIOS, and a NOT_SUPPORTED family wherever the capture prints [N/A]. gpumon
then answers the same command on that scenario (GPUMON_SIM_SPEED=0) and the
two answers are compared field by field, byte for byte, except:

  TIME         the timestamp (its format is checked);
  APPROX       values the simulator derives and cannot set apart: memory.free
               (the driver's own rounding, within 2 MiB), power.draw.average and
               power.draw.instant (one power signal serves both; format only);
  NOT_READ     fields whose NVML source gpumon does not read, or that the
               simulator does not model (a fixed text, or [N/A] there): gpumon
               must print the nvidia-smi marker ([N/A], N/A or the deprecation
               text) where the capture prints a value;
  SIM_LACKS    fields gpumon reads but the simulator cannot be told the
               capture's value of (display_attached, display_active: it drives
               no display): format only.

The compute-apps answer under load is compared the same way (timestamp aside;
a process name only where no process of that pid runs on this machine, since
gpumon then names the local process). Exit status 0 when everything matches;
otherwise every difference is printed. Usage: smi_capture.py GPUMON SIMLIB
CAPTURE...
"""
import os
import re
import subprocess
import sys
import tempfile
from typing import Dict, List, Tuple

TIME = {"timestamp"}
APPROX = {"memory.free", "power.draw.average", "power.draw.instant"}
NOT_READ = {
    # NVML calls gpumon does not make (the simulator exports none of them)
    "pci.baseClass", "pci.subClass", "pcie.link.gen.gpumax", "pcie.link.gen.hostmax", "addressing_mode",
    "accounting.mode", "accounting.buffer_size", "inforom.img", "inforom.oem", "inforom.ecc",
    "inforom.checksum_validation", "gpu_recovery_action", "utilization.jpeg", "utilization.ofa",
    "encoder.stats.sessionCount", "encoder.stats.averageFps", "encoder.stats.averageLatency",
    "gsp.mode.current", "gsp.mode.default", "c2c.mode", "edpp_multiplier", "temperature.gpu.tlimit",
    "protected_memory.total", "protected_memory.used", "protected_memory.free",
    "fabric.state", "fabric.status", "fabric.cliqueId", "fabric.clusterUuid",
    "platform.chassis_serial_number", "platform.slot_number", "platform.tray_index", "platform.host_id",
    "platform.peer_type", "platform.module_id", "platform.gpu_fabric_guid",
    # the simulator models no memory temperature sensor (field 82)
    "temperature.memory",
}
SIM_LACKS = {"display_attached": ("Yes", "No"), "display_active": ("Enabled", "Disabled")}
NOT_READ_PREFIX = ("clocks_event_reasons_counters.", "ecc.errors.corrected.volatile.", "ecc.errors.corrected.aggregate.",
                   "ecc.errors.uncorrected.volatile.", "ecc.errors.uncorrected.aggregate.", "remapped_rows.histogram.",
                   "remapped_rows.correctable_inactive", "remapped_rows.uncorrectable_inactive")
NOT_READ_EXCEPT = {"ecc.errors.corrected.volatile.total", "ecc.errors.corrected.aggregate.total",
                   "ecc.errors.uncorrected.volatile.total", "ecc.errors.uncorrected.aggregate.total"}
MARKERS = {"[N/A]", "N/A", "[Requested functionality has been deprecated]"}


def sections(path: str) -> List[Tuple[str, List[str]]]:
    """Returns (command line, body lines) for each '# $ ' section of a capture."""
    out: List[Tuple[str, List[str]]] = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# $ "):
            out.append((line[4:], []))
        elif out and line and not line.startswith("#"):
            out[-1][1].append(line)
    return out


def field_class(name: str) -> str:
    """TIME, APPROX, SIM_LACKS, NOT_READ or EXACT for a --query-gpu header name (unit stripped)."""
    if name in TIME:
        return "TIME"
    if name in APPROX:
        return "APPROX"
    if name in SIM_LACKS:
        return "SIM_LACKS"
    if name in NOT_READ or (name.startswith(NOT_READ_PREFIX) and name not in NOT_READ_EXCEPT):
        return "NOT_READ"
    return "EXACT"


def num(v: str) -> str:
    """The number of a value such as '38 %', '250.00 W' or '8192 MiB'."""
    return v.split(" ")[0]


def scenario(row: Dict[str, str], driver: str, apps: List[Dict[str, str]]) -> str:
    """A scenario (docs/scenario-format.md) holding one --query-gpu row's values."""
    na = lambda k: row.get(k, "[N/A]") in MARKERS
    s = [f"driver {driver}", "gpu 0", f"  name {row['name']}", f"  uuid {row['uuid']}",
         f"  pci {row['pci.bus_id']}", f"  pci_device_id {row['pci.device_id']}",
         f"  pci_subsystem_id {row['pci.sub_device_id']}", f"  memory_total {num(row['memory.total'])} MiB",
         f"  memory_reserved {num(row['memory.reserved'])} MiB", f"  power_limit {num(row['power.limit'])} W",
         f"  enforced_power_limit {num(row['enforced.power.limit'])} W",
         f"  power_range min={round(float(num(row['power.min_limit'])))} max={round(float(num(row['power.max_limit'])))}",
         f"  clock_max sm={num(row['clocks.max.sm'])} mem={num(row['clocks.max.memory'])} "
         f"graphics={num(row['clocks.max.graphics'])}",
         f"  pcie gen={row['pcie.link.gen.current']} width={row['pcie.link.width.current']} "
         f"max_gen={row['pcie.link.gen.max']} max_width={row['pcie.link.width.max']}",
         f"  vbios {row['vbios_version']}",
         f"  persistence {'on' if row['persistence_mode'] == 'Enabled' else 'off'}",
         f"  compute_mode {row['compute_mode'].lower()}"]
    if na("serial"):
        s.append("  unsupported serial")
    else:
        s.append(f"  serial {row['serial']}")
    if not na("mig.mode.current"):
        s.append(f"  mig {'on' if row['mig.mode.current'] == 'Enabled' else 'off'} "
                 f"pending={'on' if row['mig.mode.pending'] == 'Enabled' else 'off'}")
    s.append("  fans 0" if na("fan.speed") else f"  fan = const({num(row['fan.speed'])})")
    for field, family in (("ecc.mode.current", "ecc"), ("retired_pages.pending", "retired_pages"),
                          ("remapped_rows.pending", "remapped_rows"), ("utilization.encoder", "encoder"),
                          ("utilization.decoder", "decoder")):
        if na(field) and not (row.get("mig.mode.current") == "Enabled" and family in ("encoder", "decoder")):
            s.append(f"  unsupported {family}")
    signals = (("utilization.gpu", "util.gpu"), ("utilization.memory", "util.mem"), ("temperature.gpu", "temperature"),
               ("power.draw", "power"), ("clocks.current.sm", "clock.sm"), ("clocks.current.graphics", "clock.graphics"),
               ("clocks.current.memory", "clock.mem"), ("clocks.current.video", "clock.video"),
               ("utilization.encoder", "encoder"), ("utilization.decoder", "decoder"))
    for field, metric in signals:
        if not na(field):
            s.append(f"  {metric} = const({num(row[field])})")
    s.append(f"  memory.used = const({num(row['memory.used'])} MiB)")
    s.append(f"  pstate = const({row['pstate'][1:]})")
    s.append(f"  clocks_event_reasons = const({int(row['clocks_event_reasons.active'], 16)})")
    for a in apps:
        s.append(f"  process {a['pid']} {a['process_name']} memory=const({num(a['used_gpu_memory'])} MiB)")
    return "\n".join(s) + "\n"


def run(nvsmi: str, simlib: str, scn: str, args: List[str]) -> str:
    """gpumon as nvidia-smi on scenario scn; its standard output."""
    env = dict(os.environ, GPUMON_NVML=simlib, GPUMON_SIM_SCENARIO=scn, GPUMON_SIM_SPEED="0", GPUMON_SIM_START="0")
    p = subprocess.run([nvsmi] + args, env=env, capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stdout}{p.stderr}")
    return p.stdout


def parse_csv(lines: List[str]) -> Tuple[List[str], List[List[str]]]:
    """Header names (units stripped) and rows of a --format=csv answer."""
    head = [re.sub(r" \[[^]]*\]$", "", h) for h in lines[0].split(", ")]
    return head, [l.split(", ") for l in lines[1:]]


def compare(label: str, head: List[str], want: List[str], got: List[str], errors: List[str]) -> None:
    """Appends a line to errors for each field of got that differs from want beyond its class."""
    if len(want) != len(got):
        errors.append(f"{label}: {len(got)} values, expected {len(want)}")
        return
    for name, w, g in zip(head, want, got):
        cls = field_class(name)
        if cls == "TIME":
            ok = re.fullmatch(r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}", g) is not None
        elif cls == "APPROX" and name == "memory.free":
            ok = g.endswith(" MiB") and abs(int(num(g)) - int(num(w))) <= 2
        elif cls == "APPROX":
            ok = (w in MARKERS) == (g in MARKERS) or re.fullmatch(r"\d+\.\d\d W", g) is not None
        elif cls == "SIM_LACKS":
            words = SIM_LACKS[name]
            ok = g == w or (g in words if words else re.fullmatch(r"\d+ %", g) is not None)
        elif cls == "NOT_READ":
            ok = g == w or g in MARKERS
        else:
            ok = g == w
        if not ok:
            errors.append(f"{label}: {name}: got '{g}', expected '{w}' ({cls})")


def check(nvsmi: str, simlib: str, path: str, tmp: str) -> List[str]:
    """Compares every --query-gpu and --query-compute-apps answer of one capture."""
    errors: List[str] = []
    secs = sections(path)
    gpu = [(c, b) for c, b in secs if c.startswith("nvidia-smi --query-gpu=")]
    apps = [(c, b) for c, b in secs if c.startswith("nvidia-smi --query-compute-apps=")]
    name = os.path.basename(path)
    for i, (cmd, body) in enumerate(gpu):
        head, rows = parse_csv(body)
        row = dict(zip(head, rows[0]))
        app_rows: List[Dict[str, str]] = []
        if i < len(apps) and len(apps[i][1]) > 1:
            ah, ar = parse_csv(apps[i][1])
            app_rows = [dict(zip(ah, r)) for r in ar]
        scn = os.path.join(tmp, f"{name}.{i}.scn")
        with open(scn, "w", encoding="utf-8") as f:
            f.write(scenario(row, row["driver_version"], app_rows))
        label = f"{name} {'idle' if i == 0 else 'load'}"
        out = run(nvsmi, simlib, scn, cmd.split(" ")[1:]).rstrip("\n").split("\n")
        ghead, grows = parse_csv(out)
        if out[0] != body[0]:
            errors.append(f"{label}: header differs:\n  got  {out[0]}\n  want {body[0]}")
        compare(label, head, rows[0], grows[0] if grows else [], errors)
        if i < len(apps):
            acmd, abody = apps[i]
            aout = run(nvsmi, simlib, scn, acmd.split(" ")[1:]).rstrip("\n").split("\n")
            if aout[0] != abody[0]:
                errors.append(f"{label} apps: header '{aout[0]}', expected '{abody[0]}'")
            want = sorted(abody[1:], key=lambda l: l.split(", ")[5])
            got = sorted(aout[1:], key=lambda l: l.split(", ")[5])
            if len(want) != len(got):
                errors.append(f"{label} apps: {len(got)} rows, expected {len(want)}")
            for w, g in zip(want, got):
                wv, gv = w.split(", "), g.split(", ")
                same = [k for k in range(1, len(wv)) if not (k == 6 and os.path.exists(f"/proc/{wv[5]}"))]
                if any(wv[k] != gv[k] for k in same) or not re.fullmatch(r"\d{4}/.*\.\d{3}", gv[0]):
                    errors.append(f"{label} apps: got '{g}', expected '{w}'")
    return errors


def main(argv: List[str]) -> int:
    """Runs the comparison for every capture named; prints differences; 0 when none."""
    gpumon, simlib, captures = argv[1], argv[2], argv[3:]
    errors: List[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        nvsmi = os.path.join(tmp, "nvidia-smi")
        os.symlink(os.path.abspath(gpumon), nvsmi)
        for c in captures:
            errors += check(nvsmi, simlib, c, tmp)
    for e in errors:
        print("FAIL:", e)
    print(f"{len(captures)} captures compared, {len(errors)} differences")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
