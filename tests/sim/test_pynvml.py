"""test_pynvml.py: the simulated NVML under nvidia-ml-py (the pynvml module).

End-to-end check that build/sim/libnvidia-ml.so.1 stands in for the driver
under the Python bindings that gpustat and nvitop are built on: it makes
the calls those tools make at start-up and on every refresh, through
pynvml's own wrappers (so its struct layouts, sizing loops and _v2/_v3
choices), and checks the answers against the scenario. pynvml finds the
library as "libnvidia-ml.so.1" through the dynamic loader, so the caller
sets LD_LIBRARY_PATH to the simulator's directory (ctest's sim_pynvml
does). Last, every GPU's figures under pynvml are compared with gpumon's reading of the same frozen
scenario ($GPUMON, the binary). Exits 77 (ctest: skipped) when the pynvml module is not installed
(Debian's python3-pynvml is in contrib: scripts/deps.sh test installs it).

Usage: LD_LIBRARY_PATH=build/sim python3 tests/sim/test_pynvml.py SCENARIO_DIR
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any, Callable

SKIP = 77


class Checks:
    """Counts checks and collects failures as "what: got X, expected Y"."""

    def __init__(self) -> None:
        self.done = 0
        self.failed: list[str] = []

    def eq(self, what: str, got: Any, want: Any) -> None:
        """Records a failure unless got == want."""
        self.done += 1
        if got != want:
            self.failed.append(f"{what}: got {got!r}, expected {want!r}")

    def true(self, what: str, cond: bool, got: Any = None) -> None:
        """Records a failure unless cond holds."""
        self.done += 1
        if not cond:
            self.failed.append(f"{what}: got {got!r}")

    def raises(self, what: str, nvml: Any, code: int, fn: Callable[[], Any]) -> None:
        """Records a failure unless fn raises NVMLError with this code."""
        self.done += 1
        try:
            value = fn()
        except nvml.NVMLError as e:
            if e.value != code:
                self.failed.append(f"{what}: got error {e.value}, expected {code}")
            return
        self.failed.append(f"{what}: got {value!r}, expected error {code}")


def text(v: Any) -> str:
    """pynvml returns str or bytes depending on its version."""
    return v.decode() if isinstance(v, bytes) else v


def gpustat_query(nvml: Any, c: Checks) -> None:
    """What gpustat's GPUStatCollection.new_query() calls, on the built-in scenario (2 A100s)."""
    c.true("driver version", text(nvml.nvmlSystemGetDriverVersion()).startswith("610."))
    n = nvml.nvmlDeviceGetCount()
    c.eq("device count", n, 2)
    for i in range(n):
        h = nvml.nvmlDeviceGetHandleByIndex(i)
        c.eq("index", nvml.nvmlDeviceGetIndex(h), i)
        c.eq("name", text(nvml.nvmlDeviceGetName(h)), "NVIDIA A100-SXM4-80GB")
        c.true("uuid", text(nvml.nvmlDeviceGetUUID(h)).startswith("GPU-"))
        c.true("temperature", 20 < nvml.nvmlDeviceGetTemperature(h, nvml.NVML_TEMPERATURE_GPU) < 100)
        c.eq("fan", nvml.nvmlDeviceGetFanSpeed(h), 40)
        mem = nvml.nvmlDeviceGetMemoryInfo(h, version=nvml.nvmlMemory_v2)   # gpustat's patched call
        c.eq("memory v2 total", mem.total, mem.reserved + mem.used + mem.free)
        mem1 = nvml.nvmlDeviceGetMemoryInfo(h)
        c.eq("memory v1 total", mem1.total, mem1.used + mem1.free)
        util = nvml.nvmlDeviceGetUtilizationRates(h)
        c.true("utilization", 0 <= util.gpu <= 100 and 0 <= util.memory <= 100, util.gpu)
        c.eq("encoder", nvml.nvmlDeviceGetEncoderUtilization(h)[0], 0)
        c.eq("decoder", nvml.nvmlDeviceGetDecoderUtilization(h)[0], 0)
        c.true("power", 0 < nvml.nvmlDeviceGetPowerUsage(h) <= 400000)
        c.eq("enforced limit", nvml.nvmlDeviceGetEnforcedPowerLimit(h), 400000)
        procs = nvml.nvmlDeviceGetComputeRunningProcesses(h)                  # the _v3 call
        c.eq("compute pids", [p.pid for p in procs], [4242 + i])
        c.true("process memory", procs[0].usedGpuMemory >= 2 << 30, procs[0].usedGpuMemory)
        c.eq("graphics processes", nvml.nvmlDeviceGetGraphicsRunningProcesses(h), [])


def nvitop_refresh(nvml: Any, c: Checks) -> None:
    """What nvitop's Device calls at start-up and per refresh, on tests/sim/clients.scn."""
    c.eq("cuda driver version", nvml.nvmlSystemGetCudaDriverVersion(), 13030)
    c.eq("device count", nvml.nvmlDeviceGetCount(), 8)
    h0, h1, h2 = (nvml.nvmlDeviceGetHandleByIndex(i) for i in range(3))
    c.eq("by uuid", nvml.nvmlDeviceGetIndex(nvml.nvmlDeviceGetHandleByUUID(nvml.nvmlDeviceGetUUID(h1))), 1)
    pci = nvml.nvmlDeviceGetPciInfo(h1)                                      # the _v3 call
    c.eq("by bus id", nvml.nvmlDeviceGetIndex(nvml.nvmlDeviceGetHandleByPciBusId(pci.busId)), 1)
    c.eq("compute capability H100", nvml.nvmlDeviceGetCudaComputeCapability(h0), (9, 0))
    c.eq("compute capability RTX 2080 SUPER", nvml.nvmlDeviceGetCudaComputeCapability(h1), (7, 5))
    c.eq("is MIG handle", bool(nvml.nvmlDeviceIsMigDeviceHandle(h0)), False)      # a c_uint; nvitop bool()s it
    c.eq("MIG mode H100", nvml.nvmlDeviceGetMigMode(h0), [1, 0])
    c.raises("MIG mode GeForce", nvml, nvml.NVML_ERROR_NOT_SUPPORTED, lambda: nvml.nvmlDeviceGetMigMode(h1))
    c.eq("max MIG devices", nvml.nvmlDeviceGetMaxMigDeviceCount(h0), 7)
    c.raises("empty MIG slot", nvml, nvml.NVML_ERROR_NOT_FOUND,
             lambda: nvml.nvmlDeviceGetMigDeviceHandleByIndex(h0, 0))
    c.raises("utilization with MIG on", nvml, nvml.NVML_ERROR_NOT_SUPPORTED,
             lambda: nvml.nvmlDeviceGetUtilizationRates(h0))
    bar1 = nvml.nvmlDeviceGetBAR1MemoryInfo(h0)
    c.eq("BAR1 total", bar1.bar1Total, 128 << 30)
    c.eq("BAR1 sum", bar1.bar1Used + bar1.bar1Free, bar1.bar1Total)
    c.eq("persistence", nvml.nvmlDeviceGetPersistenceMode(h0), nvml.NVML_FEATURE_ENABLED)
    c.eq("compute mode", nvml.nvmlDeviceGetComputeMode(h0), nvml.NVML_COMPUTEMODE_EXCLUSIVE_PROCESS)
    c.eq("display active", nvml.nvmlDeviceGetDisplayActive(h1), nvml.NVML_FEATURE_DISABLED)
    c.eq("display mode", nvml.nvmlDeviceGetDisplayMode(h1), nvml.NVML_FEATURE_DISABLED)
    c.raises("driver model (Windows only)", nvml, nvml.NVML_ERROR_NOT_SUPPORTED,
             lambda: nvml.nvmlDeviceGetCurrentDriverModel(h0))
    c.eq("performance state", nvml.nvmlDeviceGetPerformanceState(h1), 8)
    c.eq("volatile uncorrected ECC", nvml.nvmlDeviceGetTotalEccErrors(
        h0, nvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nvml.NVML_VOLATILE_ECC), 0)
    for clock in (nvml.NVML_CLOCK_GRAPHICS, nvml.NVML_CLOCK_SM, nvml.NVML_CLOCK_MEM, nvml.NVML_CLOCK_VIDEO):
        c.true("clock <= max", nvml.nvmlDeviceGetClockInfo(h1, clock) <= nvml.nvmlDeviceGetMaxClockInfo(h1, clock))
    c.eq("PCIe tx KB/s", nvml.nvmlDeviceGetPcieThroughput(h0, nvml.NVML_PCIE_UTIL_TX_BYTES), 1000)
    c.eq("power limit", nvml.nvmlDeviceGetPowerManagementLimit(h0), 700000)
    # NVLink: link count once, then per-link data counters twice (nvitop's throughput bars)
    (count,) = nvml.nvmlDeviceGetFieldValues(h0, [nvml.NVML_FI_DEV_NVLINK_LINK_COUNT])
    c.eq("NVLink count status", count.nvmlReturn, nvml.NVML_SUCCESS)
    c.eq("NVLink count", count.value.uiVal, 18)
    ids = [(nvml.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, i) for i in range(18)]
    first = nvml.nvmlDeviceGetFieldValues(h0, ids + [9999])
    c.eq("unknown field", first[18].nvmlReturn, nvml.NVML_ERROR_NOT_SUPPORTED)
    time.sleep(0.2)
    second = nvml.nvmlDeviceGetFieldValues(h0, ids)
    rate = (second[0].value.ullVal - first[0].value.ullVal) * 1e6 / (second[0].timestamp - first[0].timestamp)
    c.true("NVLink KiB/s per link", abs(rate - 100 * 1024) < 100 * 1024 * 0.05, rate)
    # processes: compute, graphics and MPS lists (nvtop reads all three), then per-process utilization
    c.eq("graphics pids", [p.pid for p in nvml.nvmlDeviceGetGraphicsRunningProcesses(h1)], [3001])
    c.eq("MPS pids", [p.pid for p in nvml.nvmlDeviceGetMPSComputeRunningProcesses(h1)], [3002])
    if hasattr(nvml, "nvmlDeviceGetMPSComputeRunningProcesses_v2"):   # not in Debian's 11.525
        c.eq("MPS pids _v2", [p.pid for p in nvml.nvmlDeviceGetMPSComputeRunningProcesses_v2(h1)], [3002])
    c.eq("no MPS", nvml.nvmlDeviceGetMPSComputeRunningProcesses(h0), [])
    c.eq("compute pids", [p.pid for p in nvml.nvmlDeviceGetComputeRunningProcesses(h0)], [2001])
    c.raises("process utilization with MIG on", nvml, nvml.NVML_ERROR_NOT_SUPPORTED,
             lambda: nvml.nvmlDeviceGetProcessUtilization(h0, int(time.time() * 1e6) - 1000000))
    # what pynvml's own nvidia-smi and gonvml exporters read
    c.eq("VBIOS", text(nvml.nvmlDeviceGetVbiosVersion(h2)), "92.00.19.00.10")
    c.eq("minor number", nvml.nvmlDeviceGetMinorNumber(h2), 2)
    c.eq("limit constraints", nvml.nvmlDeviceGetPowerManagementLimitConstraints(h0), [175000, 700000])
    c.raises("power unsupported", nvml, nvml.NVML_ERROR_NOT_SUPPORTED, lambda: nvml.nvmlDeviceGetPowerUsage(h2))


def bus_id(text_id: str) -> tuple:
    """domain, bus, device, function of a PCI bus id: the first PCI call (an old pynvml's) gives the
    legacy 4-digit domain (0000:3A:00.0), the later ones and nvidia-smi 8 digits (00000000:3A:00.0)."""
    domain, bus, rest = text_id.split(":")
    dev, fn = rest.split(".")
    return int(domain, 16), int(bus, 16), int(dev, 16), int(fn, 16)


def against_gpumon(nvml: Any, c: Checks, gpumon: str, sim: str) -> None:
    """Every GPU of tests/sim/clients.scn as pynvml reads it and as gpumon reads it (gpumon --once -f
    jsonl, the same scenario frozen at the same time): the same figures, in NVML's units."""
    out = subprocess.run([gpumon, "--nvml", sim, "--once", "-f", "jsonl"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False, timeout=30)
    c.eq("gpumon --once: status", out.returncode, 0)
    if out.returncode != 0:
        c.failed.append("gpumon: " + out.stderr.decode(errors="replace").strip())
        return
    gpus = json.loads(out.stdout.decode().splitlines()[0])["gpus"]
    c.eq("GPUs, pynvml and gpumon", nvml.nvmlDeviceGetCount(), len(gpus))

    def value(fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except nvml.NVMLError:
            return None
    for g in gpus:
        h = nvml.nvmlDeviceGetHandleByIndex(g["index"])
        w = f"GPU {g['index']} "
        c.eq(w + "name", text(nvml.nvmlDeviceGetName(h)), g["name"])
        c.eq(w + "uuid", text(nvml.nvmlDeviceGetUUID(h)), g["uuid"])
        c.eq(w + "bus id", bus_id(text(nvml.nvmlDeviceGetPciInfo(h).busId)), bus_id(g["pci.bus_id"]))
        c.eq(w + "temperature", nvml.nvmlDeviceGetTemperature(h, nvml.NVML_TEMPERATURE_GPU), g["temperature.gpu"])
        c.eq(w + "fan", value(lambda: nvml.nvmlDeviceGetFanSpeed(h)), g["fan.speed"])
        util = value(lambda: nvml.nvmlDeviceGetUtilizationRates(h))
        c.eq(w + "utilization", util and util.gpu, g["utilization.gpu"])
        if hasattr(nvml, "nvmlMemory_v2"):
            mem = nvml.nvmlDeviceGetMemoryInfo(h, version=nvml.nvmlMemory_v2)
            c.eq(w + "memory total, used, reserved (MiB)", (mem.total >> 20, mem.used >> 20, mem.reserved >> 20),
                 (g["memory.total"], g["memory.used"], g["memory.reserved"]))
        else:   # the first call's used counts the driver's reserved memory, which gpumon reports apart
            mem = nvml.nvmlDeviceGetMemoryInfo(h)
            c.eq(w + "memory total, used (v1: with reserved, MiB)", (mem.total >> 20, mem.used >> 20),
                 (g["memory.total"], g["memory.used"] + g["memory.reserved"]))
        power = value(lambda: nvml.nvmlDeviceGetPowerUsage(h))
        c.eq(w + "power (W)", power and round(power / 1000, 2), g["power.draw"])
        c.eq(w + "SM, memory clocks (MHz)", (nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM),
             nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_MEM)), (g["clocks.sm"], g["clocks.mem"]))
        c.eq(w + "PCIe generation, width", (nvml.nvmlDeviceGetCurrPcieLinkGeneration(h),
             nvml.nvmlDeviceGetCurrPcieLinkWidth(h)), (g["pcie.link.gen.current"], g["pcie.link.width.current"]))
        procs = nvml.nvmlDeviceGetComputeRunningProcesses(h) + nvml.nvmlDeviceGetGraphicsRunningProcesses(h)
        c.eq(w + "processes (pid, MiB)", sorted((p.pid, p.usedGpuMemory >> 20) for p in procs),
             sorted((p["pid"], p["used_memory"]) for p in g.get("processes") or []))


def main() -> int:
    """Runs both query sets; prints one line per failure. Returns 0, 1 (failures) or 77 (no pynvml)."""
    try:
        import pynvml as nvml
    except ImportError:
        print("test_pynvml: the pynvml module (nvidia-ml-py) is not installed: skipped")
        return SKIP
    scenarios = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__))
    c = Checks()
    os.environ.pop("GPUMON_SIM_SCENARIO", None)
    os.environ["GPUMON_SIM_START"] = "5"
    # gpustat and nvitop need nvidia-ml-py 11.450 or later (the v2 memory struct, MIG, field values):
    # an older pynvml (Debian 11's 7.352) is only compared with gpumon below
    modern = hasattr(nvml, "nvmlMemory_v2") and hasattr(nvml, "nvmlDeviceGetMigMode")
    if modern:
        nvml.nvmlInit()
        try:
            gpustat_query(nvml, c)
        finally:
            nvml.nvmlShutdown()
    else:
        print("test_pynvml: this pynvml predates gpustat's and nvitop's calls: only compared with gpumon")
    os.environ["GPUMON_SIM_SCENARIO"] = os.path.join(scenarios, "clients.scn")
    if modern:
        nvml.nvmlInit()
        try:
            nvitop_refresh(nvml, c)
        finally:
            nvml.nvmlShutdown()
    gpumon = os.environ.get("GPUMON")
    if gpumon:
        os.environ["GPUMON_SIM_SPEED"] = "0"            # frozen at 5 s, for pynvml and for gpumon
        nvml.nvmlInit()
        try:
            against_gpumon(nvml, c, gpumon, os.path.join(os.environ.get("LD_LIBRARY_PATH", "").split(":")[0],
                                                          "libnvidia-ml.so.1"))
        finally:
            nvml.nvmlShutdown()
    else:
        print("test_pynvml: GPUMON not set: pynvml's figures not compared with gpumon's")
    for f in c.failed:
        print("FAIL:", f)
    print(f"test_pynvml: {c.done - len(c.failed)} checks passed, {len(c.failed)} failed "
          f"(pynvml from {os.path.dirname(nvml.__file__)})")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
