/*
 * nvml_free.h: what the stand-in NVML's two halves share (bench/nvml_free.c: the driver, its devices'
 * identity and modes; bench/nvml_free_readings.c: what a client reads at every sample). Private to
 * the stand-in.
 */
#ifndef GPUMON_BENCH_NVML_FREE_H
#define GPUMON_BENCH_NVML_FREE_H

#include <string.h>
#include "nvml_abi.h"

#define FREE_EXPORT __attribute__((visibility("default")))
#define FREE_PROTO(name, params) FREE_EXPORT nvmlReturn_t name params;
NVML_FUNCTIONS(FREE_PROTO)
NVML_CLIENT_FUNCTIONS(FREE_PROTO)
#undef FREE_PROTO
FREE_EXPORT const char *nvmlErrorString(nvmlReturn_t result);

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

struct nvmlEventSet_st {
    int unused;
};

/* The stand-in's state (nvml_free.c): set at init, read by every call. */
extern struct nvmlDevice_st free_devs[FREE_MAX_GPUS];
extern unsigned free_ngpus;
extern unsigned free_pids[FREE_MAX_PIDS];
extern unsigned free_npids;
extern struct nvmlEventSet_st free_event_set;

static inline int free_dev(nvmlDevice_t d)
{
    return d >= free_devs && d < free_devs + free_ngpus ? (int)(d - free_devs) : -1;
}

#define DEV_OR_FAIL(d) \
    do { \
        if (free_dev(d) < 0) \
            return NVML_ERROR_INVALID_ARGUMENT; \
    } while (0)

/* A value in [lo, lo + span) that moves with the sample count: k picks the metric. */
static inline unsigned free_wave(const struct nvmlDevice_st *d, unsigned k, unsigned lo, unsigned span)
{
    return lo + (unsigned)((d->n * 7 + d->index * 13 + k * 29) % span);
}

static inline nvmlReturn_t free_str(char *out, unsigned len, const char *s)
{
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(s) + 1 > len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, s, strlen(s) + 1);
    return NVML_SUCCESS;
}

/* A fixed unsigned answer from a known device. */
static inline nvmlReturn_t free_u32(nvmlDevice_t device, unsigned int *out, unsigned v)
{
    DEV_OR_FAIL(device);
    *out = v;
    return NVML_SUCCESS;
}

#endif
