/*
 * exports_init.c: init/shutdown, error strings, system queries, handles.
 *
 * Init is reference-counted (sim_state.c); every init variant fails with
 * the scenario's init_error, or 999 UNKNOWN when the scenario (or an
 * environment variable) is invalid. Plain nvmlInit additionally fails with
 * 15 when a GPU is already lost, as the legacy call initializes all GPUs
 * up front (gpumonSimScenarioInvalid tells the two 999s apart for gpumon).
 * Handles are addresses of the static per-device objects;
 * looking up a lost GPU returns 15. nvmlErrorString needs no init and
 * always returns a static string.
 */
#include "sim_exports.h"

#include <stdio.h>
#include <string.h>

nvmlReturn_t nvmlInit(void)
{
    return sim_state_init(1);
}

nvmlReturn_t nvmlInit_v2(void)
{
    return sim_state_init(0);
}

nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    (void)flags;                           /* NO_GPUS / NO_ATTACH change nothing here */
    return sim_state_init(0);
}

/* gpumon's own (nvml_abi.h): whether the last init failed because the scenario or a GPUMON_SIM_*
 * variable is invalid (the line printed on stderr said why), not because a valid scenario asks for
 * an init_error. Needs no init. */
SIM_EXPORT int gpumonSimScenarioInvalid(void)
{
    return sim_state.invalid;
}

nvmlReturn_t nvmlShutdown(void)
{
    return sim_state_shutdown();
}

const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
#define SIM_ERROR_CASE(name, value, text) case value: return text;
    NVML_RETURN_CODES(SIM_ERROR_CASE)
#undef SIM_ERROR_CASE
    default: return "Unknown Error";   /* any value we do not know */
    }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    return sim_leave(sim_state_copy_string(version, length, sim_state.driver));
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    nvmlReturn_t rc = sim_enter(__func__);
    char buf[96];

    if (rc != NVML_SUCCESS)
        return rc;
    snprintf(buf, sizeof(buf), "%d.%s", sim_state.cuda / 1000, sim_state.driver);
    return sim_leave(sim_state_copy_string(version, length, buf));
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!cudaDriverVersion)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *cudaDriverVersion = sim_state.cuda;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!cudaDriverVersion)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *cudaDriverVersion = sim_state.cuda;
    return sim_leave(NVML_SUCCESS);
}

static nvmlReturn_t init_count(const char *func, unsigned int *deviceCount)
{
    nvmlReturn_t rc = sim_enter(func);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!deviceCount)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *deviceCount = sim_state.sc->ngpus;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
    return init_count(__func__, deviceCount);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    return init_count(__func__, deviceCount);
}

/* With the mutex held: hands out GPU i unless it is lost or the scenario refuses its handle
 * (`no_permission handle`: a GPU whose device node the caller cannot open). */
static nvmlReturn_t init_handle(unsigned int i, nvmlDevice_t *device)
{
    long long now = sim_state_now_us();
    nvmlReturn_t rc;

    if (sim_state_gpu_lost(i, now))
        return sim_leave(NVML_ERROR_GPU_IS_LOST);
    if ((rc = sim_state_family(i, SIM_F_HANDLE, now)) != NVML_SUCCESS)
        return sim_leave(rc);
    *device = &sim_devices[i];
    return sim_leave(NVML_SUCCESS);
}

static nvmlReturn_t init_by_index(const char *func, unsigned int index, nvmlDevice_t *device)
{
    nvmlReturn_t rc = sim_enter(func);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!device || index >= sim_state.sc->ngpus)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    return init_handle(index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    return init_by_index(__func__, index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    return init_by_index(__func__, index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!uuid || !device)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (unsigned int i = 0; i < sim_state.sc->ngpus; i++)
        if (strcmp(sim_state.sc->gpus[i].uuid, uuid) == 0)
            return init_handle(i, device);
    return sim_leave(NVML_ERROR_NOT_FOUND);
}

/* Accepts "00000000:18:00.0" and the legacy "0000:18:00.0", any case. */
static nvmlReturn_t init_by_pci(const char *func, const char *pciBusId, nvmlDevice_t *device)
{
    unsigned int dom, bus, dev, fn;
    nvmlReturn_t rc = sim_enter(func);
    int n = 0;

    if (rc != NVML_SUCCESS)
        return rc;
    if (!pciBusId || !device)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (strnlen(pciBusId, 64) >= 64 ||
        sscanf(pciBusId, "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &n) != 4 || pciBusId[n] != '\0')
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (unsigned int i = 0; i < sim_state.sc->ngpus; i++) {
        const struct sim_gpu *g = &sim_state.sc->gpus[i];
        if (g->pci_domain == dom && g->pci_bus == bus && g->pci_device == dev)
            return init_handle(i, device);
    }
    return sim_leave(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
    return init_by_pci(__func__, pciBusId, device);
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
    return init_by_pci(__func__, pciBusId, device);
}
