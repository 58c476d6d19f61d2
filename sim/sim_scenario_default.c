/*
 * sim_scenario_default.c: the master tables and every default value.
 *
 * Owns sim_metric_table (metric names and clamp ranges), sim_family_table
 * (family names for "unsupported" / "no_permission"), the return-code names
 * accepted by init_error, the per-GPU defaults (an A100-SXM4-80GB), the
 * derivation of identity fields the file leaves out (UUID, serial and PCI
 * address are deterministic functions of seed and index; device id, VBIOS,
 * NVLinks and BAR1 come from the board row of the name), and the built-in
 * scenario used when GPUMON_SIM_SCENARIO is unset. Defaults of time-varying
 * metrics (idle values) live in sim_model.c, next to the code using them.
 */
#include "sim_scenario.h"

#include "nvml_abi.h"
#include "sim_board.h"
#include "sim_signal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct sim_metric_info sim_metric_table[SIM_M_COUNT] = {
    [SIM_M_UTIL_GPU] = { "util.gpu", 0, 100 },
    [SIM_M_UTIL_MEM] = { "util.mem", 0, 100 },
    [SIM_M_MEMORY_USED] = { "memory.used", 0, 1125899906842624.0 },
    [SIM_M_TEMPERATURE] = { "temperature", -40, 150 },
    [SIM_M_FAN] = { "fan", 0, 200 },
    [SIM_M_POWER] = { "power", 0, 100000 },
    [SIM_M_CLOCK_SM] = { "clock.sm", 0, 100000 },
    [SIM_M_CLOCK_MEM] = { "clock.mem", 0, 100000 },
    [SIM_M_CLOCK_GRAPHICS] = { "clock.graphics", 0, 100000 },
    [SIM_M_CLOCK_VIDEO] = { "clock.video", 0, 100000 },
    [SIM_M_PSTATE] = { "pstate", 0, 15 },
    [SIM_M_PCIE_TX] = { "pcie.tx", 0, 4294967295.0 },
    [SIM_M_PCIE_RX] = { "pcie.rx", 0, 4294967295.0 },
    [SIM_M_ENCODER] = { "encoder", 0, 100 },
    [SIM_M_DECODER] = { "decoder", 0, 100 },
    [SIM_M_REASONS] = { "clocks_event_reasons", 0, 511 },
    [SIM_M_ECC_CORRECTED] = { "ecc.corrected", 0, 1e15 },
    [SIM_M_ECC_UNCORRECTED] = { "ecc.uncorrected", 0, 1e15 },
    [SIM_M_RETIRED_PENDING] = { "retired_pages_pending", 0, 1 },
    [SIM_M_REMAP_PENDING] = { "remapped_rows_pending", 0, 1 },
    [SIM_M_REMAP_CORRECTED] = { "remapped_rows.corrected", 0, 1000000 },
    [SIM_M_REMAP_UNCORRECTED] = { "remapped_rows.uncorrected", 0, 1000000 },
    [SIM_M_REMAP_FAILURE] = { "remapped_rows_failure", 0, 1 },
    [SIM_M_GPM_GRAPHICS] = { "gpm.graphics", 0, 100 },
    [SIM_M_GPM_SM] = { "gpm.sm", 0, 100 },
    [SIM_M_GPM_OCCUPANCY] = { "gpm.occupancy", 0, 100 },
    [SIM_M_GPM_INTEGER] = { "gpm.integer", 0, 100 },
    [SIM_M_GPM_TENSOR] = { "gpm.tensor", 0, 100 },
    [SIM_M_GPM_DFMA] = { "gpm.tensor.dfma", 0, 100 },
    [SIM_M_GPM_HMMA] = { "gpm.tensor.hmma", 0, 100 },
    [SIM_M_GPM_DMMA] = { "gpm.tensor.dmma", 0, 100 },
    [SIM_M_GPM_IMMA] = { "gpm.tensor.imma", 0, 100 },
    [SIM_M_GPM_DRAM] = { "gpm.dram", 0, 100 },
    [SIM_M_GPM_FP64] = { "gpm.fp64", 0, 100 },
    [SIM_M_GPM_FP32] = { "gpm.fp32", 0, 100 },
    [SIM_M_GPM_FP16] = { "gpm.fp16", 0, 100 },
    [SIM_M_GPM_NVLINK_RX] = { "gpm.nvlink.rx", 0, 1e7 },
    [SIM_M_GPM_NVLINK_TX] = { "gpm.nvlink.tx", 0, 1e7 },
};

const char *const sim_family_table[SIM_F_COUNT] = {
    [SIM_F_FAN] = "fan",
    [SIM_F_ECC] = "ecc",
    [SIM_F_ENCODER] = "encoder",
    [SIM_F_DECODER] = "decoder",
    [SIM_F_REMAPPED_ROWS] = "remapped_rows",
    [SIM_F_TEMPERATURE] = "temperature",
    [SIM_F_POWER] = "power",
    [SIM_F_ENERGY] = "energy",
    [SIM_F_PCIE_THROUGHPUT] = "pcie_throughput",
    [SIM_F_PCIE_LINK] = "pcie_link",
    [SIM_F_PROCESSES] = "processes",
    [SIM_F_SAMPLES] = "samples",
    [SIM_F_PROCESS_UTILIZATION] = "process_utilization",
    [SIM_F_CLOCKS] = "clocks",
    [SIM_F_PSTATE] = "pstate",
    [SIM_F_RETIRED_PAGES] = "retired_pages",
    [SIM_F_MEMORY] = "memory",
    [SIM_F_UTILIZATION] = "utilization",
    [SIM_F_EVENTS] = "events",
    [SIM_F_SERIAL] = "serial",
    [SIM_F_GPM] = "gpm",
    [SIM_F_HANDLE] = "handle",
};

static const struct { const char *name; int code; } default_returns[] = {
    { "SUCCESS", 0 }, { "UNINITIALIZED", 1 }, { "INVALID_ARGUMENT", 2 }, { "NOT_SUPPORTED", 3 },
    { "NO_PERMISSION", 4 }, { "ALREADY_INITIALIZED", 5 }, { "NOT_FOUND", 6 },
    { "INSUFFICIENT_SIZE", 7 }, { "INSUFFICIENT_POWER", 8 }, { "DRIVER_NOT_LOADED", 9 },
    { "TIMEOUT", 10 }, { "IRQ_ISSUE", 11 }, { "LIBRARY_NOT_FOUND", 12 }, { "FUNCTION_NOT_FOUND", 13 },
    { "CORRUPTED_INFOROM", 14 }, { "GPU_IS_LOST", 15 }, { "RESET_REQUIRED", 16 },
    { "OPERATING_SYSTEM", 17 }, { "LIB_RM_VERSION_MISMATCH", 18 }, { "IN_USE", 19 }, { "MEMORY", 20 },
    { "NO_DATA", 21 }, { "VGPU_ECC_NOT_SUPPORTED", 22 }, { "INSUFFICIENT_RESOURCES", 23 },
    { "FREQ_NOT_SUPPORTED", 24 }, { "ARGUMENT_VERSION_MISMATCH", 25 }, { "DEPRECATED", 26 },
    { "NOT_READY", 27 }, { "GPU_NOT_FOUND", 28 }, { "INVALID_STATE", 29 },
    { "RESET_TYPE_NOT_SUPPORTED", 30 }, { "UNKNOWN", 999 },
};

int sim_scenario_metric_by_name(const char *name)
{
    for (int i = 0; i < SIM_M_COUNT; i++)
        if (strcmp(sim_metric_table[i].name, name) == 0)
            return i;
    return -1;
}

int sim_scenario_family_by_name(const char *name)
{
    for (int i = 0; i < SIM_F_COUNT; i++)
        if (strcmp(sim_family_table[i], name) == 0)
            return i;
    return -1;
}

int sim_scenario_return_by_name(const char *name)
{
    if (strncmp(name, "NVML_ERROR_", 11) == 0)
        name += 11;
    for (size_t i = 0; i < sizeof(default_returns) / sizeof(default_returns[0]); i++)
        if (strcmp(default_returns[i].name, name) == 0)
            return default_returns[i].code;
    return -1;
}

int sim_scenario_gpu_has_gpm(const struct sim_gpu *g)
{
    if (g->gpm >= 0)
        return g->gpm;
    return (g->board ? g->board : sim_board_for(g->name))->gpm;
}

int sim_scenario_driver_is_r535_early(const char *driver)
{
    unsigned int major = 0, minor = 0;

    if (sscanf(driver, "%u.%u", &major, &minor) != 2)
        return 0;
    return major == 535 && minor >= 43 && minor <= 86;
}

void sim_scenario_default_gpu(struct sim_gpu *g)
{
    memset(g, 0, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "NVIDIA A100-SXM4-80GB");
    g->memory_total = 85899345920ull;      /* 81920 MiB */
    g->memory_reserved = 536870912ull;     /* 512 MiB */
    g->power_limit_mw = 400000;
    g->temp_threshold[0] = 92;   /* shutdown, slowdown, mem_max, gpu_max: an A100-SXM4's */
    g->temp_threshold[1] = 89;
    g->temp_threshold[2] = 95;
    g->temp_threshold[3] = 87;
    g->clock_max[SIM_CLK_GRAPHICS] = 1410;
    g->clock_max[SIM_CLK_SM] = 1410;
    g->clock_max[SIM_CLK_MEM] = 1593;
    g->clock_max[SIM_CLK_VIDEO] = 1290;
    g->pcie_gen = 4;
    g->pcie_width = 16;
    g->pcie_max_gen = 4;
    g->pcie_max_width = 16;
    g->num_fans = 1;
    g->ecc_enabled = 1;
    g->gpm = -1;
}

/* The usual bus numbers of an 8-GPU HGX board, then anything unique. */
static const unsigned char default_buses[8] = { 0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB };

void sim_scenario_finish_gpu(const struct sim_scenario *sc, struct sim_gpu *g, unsigned int index)
{
    unsigned long long h = sim_signal_hash(sc->seed, index, 0x55u, 0);
    unsigned long long h2 = sim_signal_hash(sc->seed, index, 0x56u, 1);

    if (!(g->set & SIM_SET_UUID))
        snprintf(g->uuid, sizeof(g->uuid), "GPU-%08x-%04x-%04x-%04x-%012llx", (unsigned int)(h >> 32),
                 (unsigned int)(h >> 16) & 0xFFFFu, 0x4000u | ((unsigned int)h & 0x0FFFu),
                 0x8000u | ((unsigned int)(h2 >> 48) & 0x3FFFu), h2 & 0xFFFFFFFFFFFFull);
    if (!(g->set & SIM_SET_PCI)) {
        g->pci_domain = 0;
        g->pci_bus = index < 8 ? default_buses[index] : (0x20u + index * 2u) & 0xFFu;
        g->pci_device = 0;
        snprintf(g->bus_id, sizeof(g->bus_id), "%08X:%02X:%02X.0", g->pci_domain, g->pci_bus,
                 g->pci_device);
    }
    if (!(g->set & SIM_SET_SERIAL))
        snprintf(g->serial, sizeof(g->serial), "16549%08llu", (h2 >> 8) % 100000000ull);
    g->board = sim_board_for(g->name);
    if (!(g->set & SIM_SET_DEVICE_ID))
        g->pci_device_id = g->board->pci_device_id ? g->board->pci_device_id : SIM_BOARD_DEFAULT_PCI_ID;
    if (!(g->set & SIM_SET_VBIOS))
        snprintf(g->vbios, sizeof(g->vbios), "%s", g->board->vbios);
    if (!(g->set & SIM_SET_NVLINKS))
        g->nvlinks = g->board->nvlinks;
    if (!(g->set & SIM_SET_BAR1))
        g->bar1_total = (unsigned long long)g->board->bar1_mib << 20;
    if (!(g->set & SIM_SET_FANS))
        g->num_fans = g->board->fans;
    if (!(g->set & SIM_SET_SERIAL) && !g->board->serial)
        g->unsupported |= 1u << SIM_F_SERIAL;   /* GeForce boards have none: nvidia-smi shows [N/A] */
    if (g->pci_subsystem_id == 0)
        g->pci_subsystem_id = ((0x1400u + (g->pci_device_id >> 20)) << 16) | 0x10DEu;
    if (!(g->set & SIM_SET_ENFORCED))
        g->enforced_limit_mw = g->power_limit_mw;
}

/* Two healthy A100s, moderate load, one training process each. */
const char sim_scenario_builtin[] =
    "# built-in: two healthy A100-SXM4-80GB, moderate utilization, one training process each\n"
    "seed 42\n"
    "gpu 0-1\n"
    "  name NVIDIA A100-SXM4-80GB\n"
    "  util.gpu = sine(55, 15, 60) + noise(4)\n"
    "  util.mem = sine(30, 8, 60) + noise(3)\n"
    "  temperature = sine(58, 3, 300)\n"
    "  fan = const(40)\n"
    "  pcie.tx = sine(20000, 5000, 30)\n"
    "  pcie.rx = sine(90000, 20000, 30)\n"
    "  process 4242 python3 train.py memory=ramp(2 GiB, 38 GiB, 0, 120) util=100%\n";
