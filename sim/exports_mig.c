/*
 * exports_mig.c: MIG mode and MIG device enumeration (docs/nvml-facts.md §22).
 *
 * Boards with MIG (the board table's mig_max: A100 and H100/H200 7, A30 4,
 * Blackwell data-centre parts 7) report the scenario's "mig on|off
 * [pending=on|off]", default off; other boards (GeForce, L40S, V100, T4)
 * answer 3 to GetMigMode. The simulator creates no GPU instances, so a GPU
 * with MIG on is one whose instances have not been created yet: the max
 * device count is the board's, every slot below it answers 6 NOT_FOUND,
 * and, as the driver does with MIG on, the utilization families answer 3
 * (sim_state.c, SIM_F_MIG_OFF). Every handle the simulator hands out is a
 * full GPU: IsMigDeviceHandle says 0, the parent of one is 2 (not a MIG
 * handle), and the GPU/compute instance ids of one are 3 (the query is
 * for MIG handles). Who needs them:
 *   nvtop 3.x               GetMigMode on every refresh (optional symbol)
 *   nvitop (nvidia-ml-py)   IsMigDeviceHandle and GetMigMode at start-up,
 *                           GetMaxMigDeviceCount and GetMigDeviceHandleByIndex
 *                           when MIG is on, then GetDeviceHandleFromMig-
 *                           DeviceHandle, GetGpuInstanceId and
 *                           GetComputeInstanceId on each MIG device
 */
#include "sim_exports.h"
#include "sim_board.h"

/* With the mutex held: the board's MIG capacity, 0 when it has no MIG. */
static unsigned int mig_max(unsigned int gpu)
{
    return sim_state.sc->gpus[gpu].board->mig_max;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)
{
    const struct sim_gpu *g;
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!currentMode || !pendingMode)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (!mig_max(gpu))
        return sim_leave(NVML_ERROR_NOT_SUPPORTED);
    g = &sim_state.sc->gpus[gpu];
    *currentMode = g->mig_current ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    *pendingMode = g->mig_pending ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!isMigDevice)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *isMigDevice = 0;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!count)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *count = sim_state.sc->gpus[gpu].mig_current ? mig_max(gpu) : 0;   /* "zero if MIG is not ... enabled" */
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!migDevice)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (!mig_max(gpu))
        return sim_leave(NVML_ERROR_NOT_SUPPORTED);
    if (!sim_state.sc->gpus[gpu].mig_current || index >= mig_max(gpu))
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    return sim_leave(NVML_ERROR_NOT_FOUND);                          /* no instance was created */
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, migDevice, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    (void)device;
    return sim_leave(NVML_ERROR_INVALID_ARGUMENT);                    /* a full GPU is no MIG handle */
}

static nvmlReturn_t mig_instance_id(const char *func, nvmlDevice_t device, unsigned int *id)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!id)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    return sim_leave(NVML_ERROR_NOT_SUPPORTED);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    return mig_instance_id(__func__, device, id);
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    return mig_instance_id(__func__, device, id);
}
