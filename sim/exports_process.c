/*
 * exports_process.c: running-process lists, the detail list, process names.
 *
 * Compute, graphics and MPS lists (the MPS one holds a scenario's type=mps
 * processes, so it is empty unless the scenario says; nvtop 3.x reads it
 * with the others on every refresh). Every list variant writes its own
 * element size: plain 16 bytes (nvmlProcessInfo_v1_t), _v2 24, _v3 24 or,
 * on a 535.43-535.86 driver profile / process_layout 535, 32
 * (nvmlProcessDetail_v1_t), and never more than the caller's count. Sizing
 * protocol: a NULL count, or a NULL array with a non-zero count, is 2; no
 * processes is SUCCESS with count 0; a count below the number running is 7
 * with the needed count. GI/CI ids
 * are 0xFFFFFFFF (no MIG). The detail list checks its version word
 * 0x01000018 (else 2) and uses the same protocol on numProcArrayEntries.
 */
#include "sim_exports.h"
#include "sim_model.h"

#include <string.h>

/* With the mutex held: writes the processes of `types` with the given stride. */
static nvmlReturn_t proc_fill(unsigned int gpu, long long now, unsigned int types, unsigned int *count,
                              void *array, size_t stride)
{
    const struct sim_gpu *g = &sim_state.sc->gpus[gpu];
    unsigned int n = 0, w = 0;

    if (*count != 0 && !array)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < g->nprocs; i++)
        if ((g->procs[i].types & types) && sim_model_proc_running(gpu, i, now))
            n++;
    if (n == 0) {
        *count = 0;
        return NVML_SUCCESS;
    }
    if (*count < n) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (size_t i = 0; i < g->nprocs && w < n; i++) {
        nvmlProcessDetail_v1_t d;
        if (!(g->procs[i].types & types) || !sim_model_proc_running(gpu, i, now))
            continue;
        memset(&d, 0, sizeof(d));
        d.pid = g->procs[i].pid;
        d.usedGpuMemory = sim_model_proc_memory(gpu, i, now);
        d.gpuInstanceId = 0xFFFFFFFFu;
        d.computeInstanceId = 0xFFFFFFFFu;
        d.usedGpuCcProtectedMemory = 0;
        memcpy((char *)array + (size_t)w * stride, &d, stride);
        w++;
    }
    *count = w;
    return NVML_SUCCESS;
}

static nvmlReturn_t proc_list(const char *func, nvmlDevice_t device, unsigned int types, unsigned int *count,
                              void *array, size_t stride)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, SIM_F_PROCESSES, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!count)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    return sim_leave(proc_fill(gpu, now, types, count, array, stride));
}

#define PROC_V3_STRIDE (sim_state.layout_32 ? sizeof(nvmlProcessDetail_v1_t) : sizeof(nvmlProcessInfo_v2_t))

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                  nvmlProcessInfo_v1_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_COMPUTE, infoCount, infos, sizeof(nvmlProcessInfo_v1_t));
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v2_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_COMPUTE, infoCount, infos, sizeof(nvmlProcessInfo_v2_t));
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v2_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_COMPUTE, infoCount, infos, PROC_V3_STRIDE);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                   nvmlProcessInfo_v1_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_GRAPHICS, infoCount, infos, sizeof(nvmlProcessInfo_v1_t));
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_v2_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_GRAPHICS, infoCount, infos, sizeof(nvmlProcessInfo_v2_t));
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_v2_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_GRAPHICS, infoCount, infos, PROC_V3_STRIDE);
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v1_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_MPS, infoCount, infos, sizeof(nvmlProcessInfo_v1_t));
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                        nvmlProcessInfo_v2_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_MPS, infoCount, infos, sizeof(nvmlProcessInfo_v2_t));
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                        nvmlProcessInfo_v2_t *infos)
{
    return proc_list(__func__, device, SIM_PROC_MPS, infoCount, infos, PROC_V3_STRIDE);
}

nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device, nvmlProcessDetailList_v1_t *plist)
{
    static const unsigned int mode_types[3] = { SIM_PROC_COMPUTE, SIM_PROC_GRAPHICS, SIM_PROC_MPS };
    unsigned int gpu, count;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_PROCESSES, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!plist || plist->version != nvmlProcessDetailList_v1 || plist->mode > NVML_PROCESS_MODE_MPS)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    count = plist->numProcArrayEntries;
    rc = proc_fill(gpu, now, mode_types[plist->mode], &count, plist->procArray, sizeof(nvmlProcessDetail_v1_t));
    if (rc != NVML_ERROR_INVALID_ARGUMENT)
        plist->numProcArrayEntries = count;
    return sim_leave(rc);
}

nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    nvmlReturn_t rc = sim_enter(__func__);
    long long now;

    if (rc != NVML_SUCCESS)
        return rc;
    if (!name || length == 0)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    now = sim_state_now_us();
    for (unsigned int g = 0; g < sim_state.sc->ngpus; g++) {
        const struct sim_gpu *sg = &sim_state.sc->gpus[g];
        for (size_t i = 0; i < sg->nprocs; i++) {
            size_t n;
            if (sg->procs[i].pid != pid || !sim_model_proc_running(g, i, now))
                continue;
            n = strlen(sg->procs[i].name);
            if (n > length - 1)
                n = length - 1;           /* truncates, as the real call does */
            memcpy(name, sg->procs[i].name, n);
            name[n] = '\0';
            return sim_leave(NVML_SUCCESS);
        }
    }
    return sim_leave(NVML_ERROR_NOT_FOUND);
}
