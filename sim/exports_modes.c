/*
 * exports_modes.c: the operating modes a monitor shows next to each GPU:
 * persistence, compute mode, display, and the (Windows-only) driver model.
 *
 * Persistence and compute mode are scenario keys (persistence on|off,
 * default off as on a fresh Linux driver; compute_mode default|
 * exclusive_process|prohibited, default default). A GPU drives a display
 * only when its scenario says display on: display mode and display active
 * then answer enabled, else disabled (the default). The
 * driver model exists on Windows only: both variants answer 3, as the
 * Linux driver does, after checking their arguments. Who needs them:
 *   nvitop (nvidia-ml-py)   GetPersistenceMode, GetComputeMode,
 *                           GetDisplayActive, GetDriverModel_v2 (then the
 *                           plain GetDriverModel) on every refresh of its
 *                           device panel, GetDisplayMode for snapshots
 *   nvidia-ml-py's smi      all of them
 */
#include "sim_exports.h"

/* The one-value modes, each an enable state or an enum read from the scenario. */
enum modes_which { MODES_PERSISTENCE, MODES_COMPUTE, MODES_DISPLAY };

static nvmlReturn_t modes_get(const char *func, nvmlDevice_t device, int *out, enum modes_which which)
{
    const struct sim_gpu *g;
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!out)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    g = &sim_state.sc->gpus[gpu];
    switch (which) {
    case MODES_PERSISTENCE:
        *out = g->persistence ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
        break;
    case MODES_COMPUTE:
        *out = g->compute_mode;
        break;
    case MODES_DISPLAY:
        *out = g->display ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
        break;
    }
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    return modes_get(__func__, device, mode, MODES_PERSISTENCE);
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    return modes_get(__func__, device, mode, MODES_COMPUTE);
}

nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, nvmlEnableState_t *display)
{
    return modes_get(__func__, device, display, MODES_DISPLAY);
}

nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, nvmlEnableState_t *isActive)
{
    return modes_get(__func__, device, isActive, MODES_DISPLAY);
}

/* Windows only: 2 when both outputs are NULL, else 3 on Linux. */
static nvmlReturn_t modes_driver_model(const char *func, nvmlDevice_t device, nvmlDriverModel_t *current,
                                       nvmlDriverModel_t *pending)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    return sim_leave(!current && !pending ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_NOT_SUPPORTED);
}

nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)
{
    return modes_driver_model(__func__, device, current, pending);
}

nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, nvmlDriverModel_t *current,
                                         nvmlDriverModel_t *pending)
{
    return modes_driver_model(__func__, device, current, pending);
}
