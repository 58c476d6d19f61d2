/*
 * nvml_free.c: a stand-in libnvidia-ml.so.1 whose calls cost (almost)
 * nothing, for the benchmarks that measure what an NVML client itself
 * spends per sample (bench/sample_cost.py, bench/rss.py). Built by cmake
 * as build/nvml-free/libnvidia-ml.so.1; give it to gpumon with --nvml, to
 * nvtop (which dlopens "libnvidia-ml.so.1") with LD_LIBRARY_PATH.
 *
 * It exports every entry point of NVML_FUNCTIONS (what gpumon's loader
 * resolves) and NVML_CLIENT_FUNCTIONS (what nvtop and other clients call
 * on top), and answers as a busy node of NVML_FREE_GPUS (default 8, at most
 * 64) H200s on driver 570 would: every reading gpumon and nvtop take per
 * sample succeeds with a plausible value that changes from one sample to
 * the next (utilization, clocks, power, energy, GPM activity with
 * arbitrary fractions, PCIe byte counters, utilization samples), so the
 * client formats realistic numbers. No call sleeps, allocates (but
 * nvmlGpmSampleAlloc), reads the clock or takes a lock: what a profile
 * counts is the client's work. Unlike the simulator (sim/), it has no
 * scenario, no model and no clock of its own (gpumonSimClock is not
 * exported: clients see a driver). NVML_FREE_PIDS=pid,pid,... lists those
 * processes on every GPU (1 GiB each); by default no GPU has one.
 * Not thread-safe beyond what the benchmarks need (counters may race).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "nvml_abi.h"

#define FREE_EXPORT __attribute__((visibility("default")))
#define FREE_PROTO(name, params) FREE_EXPORT nvmlReturn_t name params;
NVML_FUNCTIONS(FREE_PROTO)
NVML_CLIENT_FUNCTIONS(FREE_PROTO)
#undef FREE_PROTO
FREE_EXPORT const char *nvmlErrorString(nvmlReturn_t result);

/* Every entry point referenced once, so a missing definition fails the link (-Wl,--no-undefined). */
#define FREE_ADDR(name, params) (void (*)(void))name,
static void (*const free_entry_points[])(void) __attribute__((used)) = {
    NVML_FUNCTIONS(FREE_ADDR) NVML_CLIENT_FUNCTIONS(FREE_ADDR) (void (*)(void))nvmlErrorString,
};
#undef FREE_ADDR

#define FREE_MAX_GPUS 64
#define FREE_MAX_PIDS 16
#define MIB 1048576ull

struct nvmlDevice_st {
    unsigned index;
    unsigned long long n;          /* samples taken (bumped by GetUtilizationRates, once per client sample) */
    unsigned long long energy_mj;
    unsigned long long pcie[2];
};

struct nvmlGpmSample_st {
    struct nvmlDevice_st *dev;
    unsigned long long n;
};

static struct nvmlDevice_st free_devs[FREE_MAX_GPUS];
static unsigned free_ngpus = 8;
static unsigned free_pids[FREE_MAX_PIDS];
static unsigned free_npids;
static struct nvmlEventSet_st { int unused; } free_event_set;

static int free_dev(nvmlDevice_t d)
{
    return d >= free_devs && d < free_devs + free_ngpus ? (int)(d - free_devs) : -1;
}

#define DEV_OR_FAIL(d) \
    do { \
        if (free_dev(d) < 0) \
            return NVML_ERROR_INVALID_ARGUMENT; \
    } while (0)

/* A value in [lo, lo + span) that moves with the sample count: k picks the metric. */
static unsigned free_wave(const struct nvmlDevice_st *d, unsigned k, unsigned lo, unsigned span)
{
    return lo + (unsigned)((d->n * 7 + d->index * 13 + k * 29) % span);
}

static nvmlReturn_t free_str(char *out, unsigned len, const char *s)
{
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(s) + 1 > len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, s, strlen(s) + 1);
    return NVML_SUCCESS;
}

/* ---- init, system ---- */

static nvmlReturn_t free_init(void)
{
    const char *g = getenv("NVML_FREE_GPUS");
    if (g && atoi(g) > 0)
        free_ngpus = atoi(g) > FREE_MAX_GPUS ? FREE_MAX_GPUS : (unsigned)atoi(g);
    for (unsigned i = 0; i < FREE_MAX_GPUS; i++) {
        free_devs[i].index = i;
        free_devs[i].energy_mj = 81234567890ull + i * 1234567ull;
        free_devs[i].pcie[0] = 1000000000ull * (i + 1);
        free_devs[i].pcie[1] = 3000000000ull * (i + 1);
    }
    free_npids = 0;
    const char *p = getenv("NVML_FREE_PIDS");
    while (p && *p && free_npids < FREE_MAX_PIDS) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p)
            break;
        free_pids[free_npids++] = (unsigned)v;
        p = *end == ',' ? end + 1 : end;
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void) { return free_init(); }
nvmlReturn_t nvmlInit_v2(void) { return free_init(); }
nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void)flags; return free_init(); }
nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    return free_str(version, length, "570.86.15");
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    return free_str(version, length, "12.570.86.15");
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
    if (!v)
        return NVML_ERROR_INVALID_ARGUMENT;
    *v = 12080;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { return nvmlSystemGetCudaDriverVersion(v); }

nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    (void)pid;
    return free_str(name, length, "python3");
}

const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
#define FREE_ERR(name, value, text) case value: return text;
        NVML_RETURN_CODES(FREE_ERR)
#undef FREE_ERR
    default: return "Unknown Error";
    }
}

/* ---- devices, identity ---- */

nvmlReturn_t nvmlDeviceGetCount(unsigned int *n)
{
    if (!n)
        return NVML_ERROR_INVALID_ARGUMENT;
    *n = free_ngpus;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { return nvmlDeviceGetCount(n); }

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    if (index >= free_ngpus || !device)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = &free_devs[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    return nvmlDeviceGetHandleByIndex(index, device);
}

static void free_uuid(unsigned i, char *out, size_t len)
{
    snprintf(out, len, "GPU-5f3c1a2e-8b4d-4c6f-9e1a-%012x", 0x7a0000u + i);
}

static void free_bus_id(unsigned i, char *out, size_t len)
{
    static const unsigned bus[8] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};
    snprintf(out, len, "00000000:%02X:00.0", i < 8 ? bus[i] : 0xe0 + i);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    char buf[64];
    for (unsigned i = 0; uuid && device && i < free_ngpus; i++) {
        free_uuid(i, buf, sizeof buf);
        if (!strcmp(buf, uuid)) {
            *device = &free_devs[i];
            return NVML_SUCCESS;
        }
    }
    return uuid && device ? NVML_ERROR_NOT_FOUND : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *id, nvmlDevice_t *device)
{
    char buf[32];
    for (unsigned i = 0; id && device && i < free_ngpus; i++) {
        free_bus_id(i, buf, sizeof buf);
        if (!strcasecmp(buf, id) || !strcasecmp(buf + 4, id)) {
            *device = &free_devs[i];
            return NVML_SUCCESS;
        }
    }
    return id && device ? NVML_ERROR_NOT_FOUND : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *id, nvmlDevice_t *device)
{
    return nvmlDeviceGetHandleByPciBusId(id, device);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    DEV_OR_FAIL(device);
    *index = device->index;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    DEV_OR_FAIL(device);
    return free_str(name, length, "NVIDIA H200");
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    char buf[64];
    DEV_OR_FAIL(device);
    free_uuid(device->index, buf, sizeof buf);
    return free_str(uuid, length, buf);
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
    char buf[32];
    DEV_OR_FAIL(device);
    snprintf(buf, sizeof buf, "16549620873%02u", device->index);
    return free_str(serial, length, buf);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    DEV_OR_FAIL(device);
    memset(pci, 0, sizeof *pci);
    free_bus_id(device->index, pci->busId, sizeof pci->busId);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%s", pci->busId + 4);
    sscanf(pci->busId, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device);
    pci->pciDeviceId = 0x233510de;
    pci->pciSubSystemId = 0x18a610de;
    return NVML_SUCCESS;
}

static nvmlReturn_t free_pci_legacy(nvmlDevice_t device, nvmlPciInfo_legacy_t *pci)
{
    nvmlPciInfo_t p;
    nvmlReturn_t rc = nvmlDeviceGetPciInfo_v3(device, &p);
    if (rc != NVML_SUCCESS)
        return rc;
    memset(pci, 0, sizeof *pci);
    snprintf(pci->busId, sizeof pci->busId, "%s", p.busIdLegacy);
    pci->domain = p.domain, pci->bus = p.bus, pci->device = p.device;
    pci->pciDeviceId = p.pciDeviceId, pci->pciSubSystemId = p.pciSubSystemId;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_legacy_t *pci) { return free_pci_legacy(device, pci); }
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_legacy_t *pci) { return free_pci_legacy(device, pci); }

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor)
{
    DEV_OR_FAIL(device);
    *minor = device->index;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
    DEV_OR_FAIL(device);
    *arch = NVML_DEVICE_ARCH_HOPPER;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    DEV_OR_FAIL(device);
    return free_str(version, length, "96.00.89.00.01");
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
    DEV_OR_FAIL(device);
    *major = 9, *minor = 0;
    return NVML_SUCCESS;
}

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

static nvmlReturn_t free_limit(nvmlDevice_t device, unsigned int *mw, unsigned v)
{
    DEV_OR_FAIL(device);
    *mw = v;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned int *l) { return free_limit(d, l, 700000); }
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *l) { return free_limit(d, l, 700000); }
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int *l) { return free_limit(d, l, 700000); }

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

static nvmlReturn_t free_u32(nvmlDevice_t device, unsigned int *out, unsigned v)
{
    DEV_OR_FAIL(device);
    *out = v;
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

/* ---- modes, MIG ---- */

static nvmlReturn_t free_state(nvmlDevice_t device, nvmlEnableState_t *out, nvmlEnableState_t v)
{
    DEV_OR_FAIL(device);
    *out = v;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, nvmlEnableState_t *m) { return free_state(d, m, 1); }
nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t d, nvmlEnableState_t *m) { return free_state(d, m, 0); }
nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t d, nvmlEnableState_t *m) { return free_state(d, m, 0); }
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, nvmlComputeMode_t *m) { return free_state(d, m, 0); }

nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)
{
    (void)current, (void)pending;
    DEV_OR_FAIL(device);
    return NVML_ERROR_NOT_SUPPORTED;   /* Windows only */
}

nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t d, nvmlDriverModel_t *c, nvmlDriverModel_t *p)
{
    return nvmlDeviceGetDriverModel(d, c, p);
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending)
{
    DEV_OR_FAIL(device);
    *current = *pending = NVML_DEVICE_MIG_DISABLE;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *n) { return free_u32(d, n, 7); }

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *mig)
{
    (void)index, (void)mig;
    DEV_OR_FAIL(device);
    return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t d, unsigned int *is) { return free_u32(d, is, 0); }

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t *device)
{
    (void)device;
    DEV_OR_FAIL(mig);
    return NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    (void)id;
    DEV_OR_FAIL(device);
    return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    (void)id;
    DEV_OR_FAIL(device);
    return NVML_ERROR_NOT_SUPPORTED;
}
