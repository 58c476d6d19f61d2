/*
 * exports_clock.c: gpumonSimClock, the one export that is gpumon's and not
 * NVML's (declared in src/nvml_abi.h). It tells gpumon the scenario's clock:
 * the speed it runs at (GPUMON_SIM_SPEED) and the scenario's time as a
 * wall-clock-equivalent epoch time, the same mapping the samples' timestamps
 * use (sim_state_epoch_us). With it, gpumon stamps records in scenario time
 * and paces its sampling to the speed, so a scenario played 20 times faster
 * still leaves a log whose time axis reads as if recorded in real time. The
 * driver's library has no such symbol; gpumon's loader finds it with dlsym
 * and does without it, so real NVML is unaffected.
 */
#include "sim_exports.h"

SIM_EXPORT nvmlReturn_t gpumonSimClock(double *speed, unsigned long long *epochUs)
{
    nvmlReturn_t rc = sim_enter("gpumonSimClock");

    if (rc != NVML_SUCCESS)
        return rc;
    if (!speed || !epochUs)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *speed = sim_state.speed;
    *epochUs = (unsigned long long)sim_state_epoch_us(sim_state_now_us());
    return sim_leave(NVML_SUCCESS);
}
