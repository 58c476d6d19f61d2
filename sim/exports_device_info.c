/*
 * exports_device_info.c: what a board is: minor number, VBIOS, architecture,
 * CUDA compute capability and the BAR1 aperture.
 *
 * Values come from the board row of the GPU's name (sim_board.h) unless
 * the scenario sets them (vbios, bar1_total); the minor number is the
 * index (/dev/nvidiaN). These calls belong to no family a scenario can
 * switch off, except BAR1, which is "memory". Who needs them:
 *   nvitop (nvidia-ml-py)   GetCudaComputeCapability at start-up,
 *                           GetBAR1MemoryInfo on every refresh of its panel
 *   gonvml exporters        GetMinorNumber (resolved at start-up: the
 *                           library is refused without it), on every scrape
 *   nvidia-ml-py's smi      GetVbiosVersion, GetMinorNumber, GetBAR1MemoryInfo
 *   GetArchitecture         docs/nvml-facts.md §5, §7
 * The other client calls live in exports_modes.c, exports_mig.c,
 * exports_fields.c, exports_process.c (MPS lists) and exports_power.c
 * (limits); NVML_CLIENT_FUNCTIONS in nvml_abi.h lists them all.
 */
#include "sim_exports.h"
#include "sim_board.h"
#include "sim_model.h"

#include <string.h>

/* BAR1 a process maps (its context and staging buffers), and the driver's own. */
#define INFO_BAR1_PER_PROCESS (1ull << 20)
#define INFO_BAR1_DRIVER (1ull << 20)

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!minorNumber)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *minorNumber = gpu;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    return sim_leave(sim_state_copy_string(version, length, sim_state.sc->gpus[gpu].vbios));
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!arch)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *arch = sim_state.sc->gpus[gpu].board->arch;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
    const struct sim_board *b;
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!major || !minor)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    b = sim_state.sc->gpus[gpu].board;
    *major = b->cc_major;
    *minor = b->cc_minor;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1Memory)
{
    const struct sim_gpu *g;
    unsigned long long used = INFO_BAR1_DRIVER;
    unsigned int gpu;
    long long now;
    nvmlBAR1Memory_t m;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_MEMORY, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!bar1Memory)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    g = &sim_state.sc->gpus[gpu];
    for (size_t i = 0; i < g->nprocs; i++)
        if (sim_model_proc_running(gpu, i, now))
            used += INFO_BAR1_PER_PROCESS;
    m.bar1Total = g->bar1_total;
    m.bar1Used = used < m.bar1Total ? used : m.bar1Total;
    m.bar1Free = m.bar1Total - m.bar1Used;
    memcpy(bar1Memory, &m, sizeof(m));
    return sim_leave(NVML_SUCCESS);
}
