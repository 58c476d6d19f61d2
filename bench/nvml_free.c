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
 * This file: the driver, the devices' identity and modes; the readings
 * are in nvml_free_readings.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include "nvml_free.h"

/* Every entry point referenced once, so a missing definition fails the link (-Wl,--no-undefined). */
#define FREE_ADDR(name, params) (void (*)(void))name,
static void (*const free_entry_points[])(void) __attribute__((used)) = {
    NVML_FUNCTIONS(FREE_ADDR) NVML_CLIENT_FUNCTIONS(FREE_ADDR) (void (*)(void))nvmlErrorString,
};
#undef FREE_ADDR

struct nvmlDevice_st free_devs[FREE_MAX_GPUS];
unsigned free_ngpus = 8;
unsigned free_pids[FREE_MAX_PIDS];
unsigned free_npids;
struct nvmlEventSet_st free_event_set;

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
