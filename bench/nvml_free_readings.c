/*
 * nvml_free_readings.c: the stand-in NVML's answers to what a client reads
 * at every sample (utilization, memory, thermal, power, clocks, PCIe,
 * reliability, processes, events, GPM): plausible values that move with
 * the device's sample count, at no cost (bench/nvml_free.c says why).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nvml_free.h"

/* ---- utilization ---- */

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *u)
{
    DEV_OR_FAIL(device);
    device->n++;
    u->gpu = free_wave(device, 0, 81, 19);
    u->memory = free_wave(device, 1, 34, 21);
    return NVML_SUCCESS;
}

/* Two driver samples newer than the last one seen, whatever it was. */
nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type, unsigned long long last,
                                  nvmlValueType_t *vt, unsigned int *count, nvmlSample_t *samples)
{
    DEV_OR_FAIL(device);
    if (!vt || !count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *vt = NVML_VALUE_TYPE_UNSIGNED_INT;
    if (!samples) {
        *count = 2;
        return NVML_SUCCESS;
    }
    unsigned n = *count < 2 ? *count : 2;
    for (unsigned i = 0; i < n; i++) {
        samples[i].timeStamp = last + 1 + i;
        samples[i].sampleValue.uiVal = free_wave(device, 2 + i + (unsigned)type, 3, 97);
    }
    *count = n;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *u,
                                             unsigned int *count, unsigned long long last)
{
    (void)u, (void)last;
    DEV_OR_FAIL(device);
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = 0;
    return NVML_ERROR_NOT_FOUND;
}

static nvmlReturn_t free_codec(nvmlDevice_t device, unsigned int *util, unsigned int *period)
{
    DEV_OR_FAIL(device);
    *util = 0;
    *period = 167000;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *u, unsigned int *p)
{
    return free_codec(device, u, p);
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *u, unsigned int *p)
{
    return free_codec(device, u, p);
}

/* ---- memory ---- */

#define FREE_TOTAL (143771ull * MIB)
#define FREE_RESERVED (549ull * MIB)

static unsigned long long free_used(const struct nvmlDevice_st *d)
{
    return (101000ull + free_wave(d, 3, 0, 2000)) * MIB + 4096ull * d->n % MIB;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *m)
{
    DEV_OR_FAIL(device);
    if (m->version != nvmlMemory_v2)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    m->total = FREE_TOTAL;
    m->reserved = FREE_RESERVED;
    m->used = free_used(device);
    m->free = m->total - m->reserved - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *m)
{
    DEV_OR_FAIL(device);
    m->total = FREE_TOTAL;
    m->used = free_used(device) + FREE_RESERVED;
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *b)
{
    DEV_OR_FAIL(device);
    b->bar1Total = 262144ull * MIB;
    b->bar1Used = 41ull * MIB;
    b->bar1Free = b->bar1Total - b->bar1Used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device, void *info)
{
    (void)info;
    DEV_OR_FAIL(device);
    return NVML_ERROR_NOT_SUPPORTED;
}

/* ---- thermal, power, clocks ---- */

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned int *t)
{
    DEV_OR_FAIL(device);
    if (sensor != NVML_TEMPERATURE_GPU)
        return NVML_ERROR_NOT_SUPPORTED;
    *t = free_wave(device, 4, 52, 9);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_v1_t *t)
{
    DEV_OR_FAIL(device);
    if (t->version != nvmlTemperature_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    unsigned v = 0;
    nvmlReturn_t rc = nvmlDeviceGetTemperature(device, t->sensorType, &v);
    t->temperature = (int)v;
    return rc;
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t type,
                                               unsigned int *t)
{
    static const unsigned th[NVML_TEMPERATURE_THRESHOLD_COUNT] = {92, 89, 95, 87, 0, 0, 0, 0};
    DEV_OR_FAIL(device);
    if (type < 0 || type >= NVML_TEMPERATURE_THRESHOLD_COUNT || !th[type])
        return NVML_ERROR_NOT_SUPPORTED;
    *t = th[type];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
    (void)speed;
    DEV_OR_FAIL(device);
    return NVML_ERROR_NOT_SUPPORTED;   /* an SXM board: no fan of its own */
}

nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed)
{
    (void)fan;
    return nvmlDeviceGetFanSpeed(device, speed);
}

nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *n)
{
    (void)n;
    DEV_OR_FAIL(device);
    return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *mw)
{
    DEV_OR_FAIL(device);
    *mw = 540000 + free_wave(device, 5, 0, 97) * 1017 + (unsigned)(device->n % 7);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned int *l) { return free_u32(d, l, 700000); }
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *l) { return free_u32(d, l, 700000); }
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int *l) { return free_u32(d, l, 700000); }

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *lo, unsigned int *hi)
{
    DEV_OR_FAIL(device);
    *lo = 200000, *hi = 700000;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device, unsigned int limit)
{
    (void)limit;
    DEV_OR_FAIL(device);
    return NVML_ERROR_NO_PERMISSION;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *mj)
{
    DEV_OR_FAIL(device);
    device->energy_mj += 6123 + device->n % 911;
    *mj = device->energy_mj;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    DEV_OR_FAIL(device);
    switch (type) {
    case NVML_CLOCK_GRAPHICS:
    case NVML_CLOCK_SM: *clock = 1980 - 15 * free_wave(device, 6, 0, 6); return NVML_SUCCESS;
    case NVML_CLOCK_MEM: *clock = 3201; return NVML_SUCCESS;
    case NVML_CLOCK_VIDEO: *clock = 1755; return NVML_SUCCESS;
    default: return NVML_ERROR_INVALID_ARGUMENT;
    }
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    static const unsigned max[NVML_CLOCK_COUNT] = {1980, 1980, 3201, 1755};
    DEV_OR_FAIL(device);
    if (type < 0 || type >= NVML_CLOCK_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    *clock = max[type];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *r)
{
    DEV_OR_FAIL(device);
    *r = device->n % 5 == 0 ? NVML_CLOCKS_EVENT_SW_POWER_CAP : 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r)
{
    return nvmlDeviceGetCurrentClocksEventReasons(d, r);
}

nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t device, unsigned long long *r)
{
    DEV_OR_FAIL(device);
    *r = NVML_CLOCKS_EVENT_ALL;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r)
{
    return nvmlDeviceGetSupportedClocksEventReasons(d, r);
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *p)
{
    DEV_OR_FAIL(device);
    *p = NVML_PSTATE_0;
    return NVML_SUCCESS;
}

/* ---- PCIe ---- */

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *v)
{
    DEV_OR_FAIL(device);   /* the driver samples for 20 ms here; the stand-in answers at once */
    *v = counter == NVML_PCIE_UTIL_TX_BYTES ? 812345 + free_wave(device, 7, 0, 5000)
                                            : 2412345 + free_wave(device, 8, 0, 5000);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *v) { return free_u32(d, v, 5); }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *v) { return free_u32(d, v, 16); }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *v) { return free_u32(d, v, 5); }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *v) { return free_u32(d, v, 16); }

/* Running PCIe byte counters (197, 198) without a stamp; every other field unsupported. */
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t *values)
{
    DEV_OR_FAIL(device);
    if (count < 0 || (count && !values))
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++) {
        nvmlFieldValue_t *f = &values[i];
        f->timestamp = 0;
        f->latencyUsec = 0;
        if (f->fieldId == NVML_FI_DEV_PCIE_COUNT_TX_BYTES || f->fieldId == NVML_FI_DEV_PCIE_COUNT_RX_BYTES) {
            int dir = f->fieldId == NVML_FI_DEV_PCIE_COUNT_RX_BYTES;
            device->pcie[dir] += (dir ? 31234567ull : 8123456ull) + 4096ull * (device->n % 97);
            f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
            f->value.ullVal = device->pcie[dir];
            f->nvmlReturn = NVML_SUCCESS;
        } else {
            f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        }
    }
    return NVML_SUCCESS;
}

/* ---- reliability ---- */

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
    DEV_OR_FAIL(device);
    *current = *pending = NVML_FEATURE_ENABLED;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
                                         unsigned long long *n)
{
    (void)type, (void)counter;
    DEV_OR_FAIL(device);
    *n = 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *p)
{
    DEV_OR_FAIL(device);
    *p = NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corr, unsigned int *unc,
                                       unsigned int *pending, unsigned int *failed)
{
    DEV_OR_FAIL(device);
    *corr = *unc = *pending = *failed = 0;
    return NVML_SUCCESS;
}

/* ---- processes: NVML_FREE_PIDS on every GPU, 1 GiB each ---- */

static nvmlReturn_t free_procs(nvmlDevice_t device, unsigned int *count, void *infos, size_t stride, int graphics)
{
    DEV_OR_FAIL(device);
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned n = graphics ? 0 : free_npids;
    if (*count < n || (n && !infos)) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < n; i++) {
        nvmlProcessDetail_v1_t p = {free_pids[i], 1024ull * MIB, 0xFFFFFFFFu, 0xFFFFFFFFu, 0};
        memcpy((char *)infos + i * stride, &p, stride);
    }
    *count = n;
    return NVML_SUCCESS;
}

#define FREE_PROC_FN(name, type, graphics) \
    nvmlReturn_t name(nvmlDevice_t device, unsigned int *count, type *infos) \
    { \
        return free_procs(device, count, infos, sizeof(type), graphics); \
    }
FREE_PROC_FN(nvmlDeviceGetComputeRunningProcesses, nvmlProcessInfo_v1_t, 0)
FREE_PROC_FN(nvmlDeviceGetComputeRunningProcesses_v2, nvmlProcessInfo_v2_t, 0)
FREE_PROC_FN(nvmlDeviceGetComputeRunningProcesses_v3, nvmlProcessInfo_v2_t, 0)
FREE_PROC_FN(nvmlDeviceGetGraphicsRunningProcesses, nvmlProcessInfo_v1_t, 1)
FREE_PROC_FN(nvmlDeviceGetGraphicsRunningProcesses_v2, nvmlProcessInfo_v2_t, 1)
FREE_PROC_FN(nvmlDeviceGetGraphicsRunningProcesses_v3, nvmlProcessInfo_v2_t, 1)
FREE_PROC_FN(nvmlDeviceGetMPSComputeRunningProcesses, nvmlProcessInfo_v1_t, 1)
FREE_PROC_FN(nvmlDeviceGetMPSComputeRunningProcesses_v2, nvmlProcessInfo_v2_t, 1)
FREE_PROC_FN(nvmlDeviceGetMPSComputeRunningProcesses_v3, nvmlProcessInfo_v2_t, 1)

nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device, nvmlProcessDetailList_v1_t *list)
{
    DEV_OR_FAIL(device);
    if (!list || list->version != nvmlProcessDetailList_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    return free_procs(device, &list->numProcArrayEntries, list->procArray, sizeof(nvmlProcessDetail_v1_t),
                      list->mode != NVML_PROCESS_MODE_COMPUTE);
}

/* ---- events: none ever comes ---- */

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    *set = &free_event_set;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *types)
{
    DEV_OR_FAIL(device);
    *types = nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError | nvmlEventTypePState |
             nvmlEventTypeXidCriticalError;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set)
{
    (void)types, (void)set;
    DEV_OR_FAIL(device);
    return NVML_SUCCESS;
}

static nvmlReturn_t free_wait(unsigned int ms)
{
    if (ms) {   /* a driver blocks until an event or the timeout; none comes */
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return NVML_ERROR_TIMEOUT;
}

nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_legacy_t *data, unsigned int ms)
{
    (void)set, (void)data;
    return free_wait(ms);
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int ms)
{
    (void)set, (void)data;
    return free_wait(ms);
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    (void)set;
    return NVML_SUCCESS;
}

/* ---- GPM: every metric answers, with an arbitrary fraction ---- */

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *s)
{
    DEV_OR_FAIL(device);
    if (s->version != NVML_GPM_SUPPORT_VERSION)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    s->isSupportedDevice = 1;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *sample)
{
    *sample = calloc(1, sizeof **sample);
    return *sample ? NVML_SUCCESS : NVML_ERROR_MEMORY;
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample)
{
    free(sample);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t sample)
{
    DEV_OR_FAIL(device);
    sample->dev = device;
    sample->n = device->n;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *q)
{
    if (q->version != NVML_GPM_METRICS_GET_VERSION)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (!q->sample1 || !q->sample2 || !q->sample2->dev || q->numMetrics > NVML_GPM_METRIC_MAX)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long n = q->sample2->n, i = q->sample2->dev->index;
    for (unsigned k = 0; k < q->numMetrics; k++) {
        unsigned id = q->metrics[k].metricId;
        /* a percentage with an arbitrary fraction; the PCIe and NVLink rates in MB/s */
        double frac = (double)((n * 2654435761ull + id * 40503ull + i * 977ull) % 1000003ull) / 1000003.0;
        q->metrics[k].value = id >= NVML_GPM_METRIC_PCIE_TX_PER_SEC ? 1000.0 + 24000.0 * frac : 20.0 + 75.0 * frac;
        q->metrics[k].nvmlReturn = NVML_SUCCESS;
    }
    return NVML_SUCCESS;
}
