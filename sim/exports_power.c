/*
 * exports_power.c: memory, temperature, fan, power, energy, clocks,
 * clock-event reasons and performance state.
 *
 * Memory keeps the v1/v2 relation of the real driver: v2 reports reserved
 * apart (total = reserved + used + free), v1 folds it into used (total =
 * used + free), and _v2 accepts only the version word 0x02000028 (anything
 * else, such as a bare 2, answers 13 as the real library does).
 * TemperatureV checks its word 0x0100000C (else 25). The Throttle and
 * Event reason calls return the same mask. The power limit range is the
 * configured limit down to a quarter of it; setting a limit within it
 * answers 4 (the caller is never root here: limits come from the
 * scenario), outside it 2; gonvml exporters resolve the setter and the
 * constraints at start-up. Values come from sim_model.c; most calls here
 * are "one number out", served by power_u32().
 */
#include "sim_exports.h"
#include "sim_model.h"

#include <math.h>
#include <string.h>

typedef unsigned int (*power_getter)(unsigned int gpu, long long now);

static nvmlReturn_t power_u32(const char *func, nvmlDevice_t device, int family, unsigned int *out,
                              power_getter get)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, family, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!out)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *out = get(gpu, now);
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    const struct sim_gpu *g;
    unsigned int gpu;
    long long now;
    nvmlMemory_t m;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_MEMORY, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!memory)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    g = &sim_state.sc->gpus[gpu];
    m.total = g->memory_total;
    m.used = sim_model_memory_used(gpu, now) + g->memory_reserved;
    m.free = m.total - m.used;
    memcpy(memory, &m, sizeof(m));
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    const struct sim_gpu *g;
    unsigned int gpu;
    long long now;
    nvmlMemory_v2_t m;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_MEMORY, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!memory)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (memory->version != nvmlMemory_v2)
        return sim_leave(NVML_ERROR_FUNCTION_NOT_FOUND);
    g = &sim_state.sc->gpus[gpu];
    memset(&m, 0, sizeof(m));
    m.version = nvmlMemory_v2;
    m.total = g->memory_total;
    m.reserved = g->memory_reserved;
    m.used = sim_model_memory_used(gpu, now);
    m.free = m.total - m.reserved - m.used;
    memory->total = m.total;               /* field by field: never touch the padding */
    memory->reserved = m.reserved;
    memory->free = m.free;
    memory->used = m.used;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device, void *memInfo)
{
    unsigned long long info[2];           /* protectedMemSizeKib, unprotectedMemSizeKib */
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_MEMORY, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!memInfo)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    info[0] = 0;                          /* confidential computing is off */
    info[1] = sim_state.sc->gpus[gpu].memory_total / 1024u;
    memcpy(memInfo, info, sizeof(info));
    return sim_leave(NVML_SUCCESS);
}

static int power_temperature(unsigned int gpu, long long now)
{
    return (int)lround(sim_model_metric(gpu, SIM_M_TEMPERATURE, now));
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp)
{
    unsigned int gpu;
    long long now;
    int t;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_TEMPERATURE, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!temp || sensorType != NVML_TEMPERATURE_GPU)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    t = power_temperature(gpu, now);
    *temp = t < 0 ? 0u : (unsigned int)t;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_v1_t *temperature)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_TEMPERATURE, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!temperature)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (temperature->version != nvmlTemperature_v1)
        return sim_leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (temperature->sensorType != NVML_TEMPERATURE_GPU)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    temperature->temperature = power_temperature(gpu, now);
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType,
                                               unsigned int *temp)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_TEMPERATURE, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!temp || thresholdType < 0 || thresholdType >= NVML_TEMPERATURE_THRESHOLD_COUNT)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (thresholdType > NVML_TEMPERATURE_THRESHOLD_GPU_MAX || !sim_state.sc->gpus[gpu].temp_threshold[thresholdType])
        return sim_leave(NVML_ERROR_NOT_SUPPORTED);   /* acoustic and GPS limits: datacenter boards have none */
    *temp = sim_state.sc->gpus[gpu].temp_threshold[thresholdType];
    return sim_leave(NVML_SUCCESS);
}

static unsigned int power_fan(unsigned int gpu, long long now)
{
    return (unsigned int)lround(sim_model_metric(gpu, SIM_M_FAN, now));
}

static unsigned int power_num_fans(unsigned int gpu, long long now)
{
    (void)now;
    return sim_state.sc->gpus[gpu].num_fans;
}

nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *numFans)
{
    return power_u32(__func__, device, SIM_F_FAN, numFans, power_num_fans);
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_FAN, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (sim_state.sc->gpus[gpu].num_fans == 0)
        return sim_leave(NVML_ERROR_NOT_SUPPORTED);
    if (!speed)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *speed = power_fan(gpu, now);
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_FAN, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (sim_state.sc->gpus[gpu].num_fans == 0)
        return sim_leave(NVML_ERROR_NOT_SUPPORTED);
    if (!speed || fan >= sim_state.sc->gpus[gpu].num_fans)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *speed = power_fan(gpu, now);
    return sim_leave(NVML_SUCCESS);
}

static unsigned int power_usage(unsigned int gpu, long long now)
{
    return sim_model_power_mw(gpu, now);
}

static unsigned int power_limit(unsigned int gpu, long long now)
{
    (void)now;
    return sim_state.sc->gpus[gpu].power_limit_mw;
}

static unsigned int power_enforced(unsigned int gpu, long long now)
{
    (void)now;
    return sim_state.sc->gpus[gpu].enforced_limit_mw;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    return power_u32(__func__, device, SIM_F_POWER, power, power_usage);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
    return power_u32(__func__, device, SIM_F_POWER, limit, power_limit);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
    return power_u32(__func__, device, SIM_F_POWER, limit, power_enforced);
}

static unsigned int power_default_limit(unsigned int gpu, long long now)
{
    (void)now;
    return sim_state.sc->gpus[gpu].power_limit_mw;       /* nothing changed the limit since boot */
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit)
{
    return power_u32(__func__, device, SIM_F_POWER, defaultLimit, power_default_limit);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit,
                                                          unsigned int *maxLimit)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_POWER, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!minLimit || !maxLimit)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    sim_model_power_range(gpu, minLimit, maxLimit);
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device, unsigned int limit)
{
    unsigned int gpu, lo, hi;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_POWER, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    sim_model_power_range(gpu, &lo, &hi);
    if (limit < lo || limit > hi)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    return sim_leave(NVML_ERROR_NO_PERMISSION);           /* the scenario is the only one who sets limits */
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ENERGY, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!energy)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *energy = sim_model_energy_mj(gpu, now);
    return sim_leave(NVML_SUCCESS);
}

/* NVML clock types map one to one onto enum sim_clock. */
static nvmlReturn_t power_clock(const char *func, nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock,
                                int max)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, SIM_F_CLOCKS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!clock || type < 0 || type >= NVML_CLOCK_COUNT)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *clock = max ? sim_state.sc->gpus[gpu].clock_max[type] : sim_model_clock(gpu, (enum sim_clock)type, now);
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    return power_clock(__func__, device, type, clock, 0);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    return power_clock(__func__, device, type, clock, 1);
}

static nvmlReturn_t power_reasons(const char *func, nvmlDevice_t device, unsigned long long *reasons,
                                  int supported)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, SIM_F_CLOCKS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!reasons)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *reasons = supported ? NVML_CLOCKS_EVENT_ALL : sim_model_reasons(gpu, now);
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    return power_reasons(__func__, device, reasons, 0);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    return power_reasons(__func__, device, reasons, 0);
}

nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    return power_reasons(__func__, device, reasons, 1);
}

nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    return power_reasons(__func__, device, reasons, 1);
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_PSTATE, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!pState)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *pState = (nvmlPstates_t)lround(sim_model_metric(gpu, SIM_M_PSTATE, now));
    return sim_leave(NVML_SUCCESS);
}
