/*
 * nvml_clock.c: the clock records follow. gpumon stamps records with the
 * wall clock, except on the simulator when it plays a scenario at a speed S
 * other than 1 (GPUMON_SIM_SPEED=S): then the simulator's gpumonSimClock
 * (an export of its own, nvml_abi.h; the driver has none, so dlsym finds
 * nothing there) gives the scenario's time as an epoch time, records carry
 * it, and commands pace their sampling S times faster (nvml_clock_speed),
 * so --interval is in scenario seconds and a log played fast reads as if
 * recorded in real time. A frozen scenario (S = 0) has no time of its own
 * to give: records then follow the wall clock, as at S = 1. The speed is
 * read once, at nvml_open, since the simulator reads it at init only.
 */
#include "nvml.h"
#include "util.h"

#include <dlfcn.h>

void nvml_clock_open(void)
{
    double speed = 1;
    unsigned long long us;

    *(void **)&nvml.sim_clock = nvml.dl ? dlsym(nvml.dl, GPUMON_SIM_CLOCK_SYMBOL) : NULL;
    if (nvml.sim_clock && nvml.sim_clock(&speed, &us) != NVML_SUCCESS)
        speed = 1;
    nvml.clock_speed = speed > 0 && speed != 1 ? speed : 1;
    if (nvml.clock_speed == 1)
        nvml.sim_clock = NULL;
}

double nvml_clock_speed(void)
{
    return nvml.clock_speed > 0 ? nvml.clock_speed : 1;
}

UTIL_HOT void nvml_clock_now(struct timespec *ts)
{
    double speed;
    unsigned long long us;

    if (nvml.sim_clock && nvml.sim_clock(&speed, &us) == NVML_SUCCESS) {
        ts->tv_sec = (time_t)(us / 1000000ull);
        ts->tv_nsec = (long)(us % 1000000ull) * 1000L;
        return;
    }
    clock_gettime(CLOCK_REALTIME, ts);
}
