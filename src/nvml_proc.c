/*
 * nvml_proc.c: running-process lists, the NVML call family with the most
 * history. Variants are tried newest first, each with its own entry size:
 * the detail list (32-byte entries, versioned struct), then _v3 (24 bytes,
 * or 32 on drivers 535.43-535.86 where NVIDIA changed it without a version
 * bump), then _v2 (24), then the plain symbol (16). Every variant follows
 * the sizing protocol: ask with count 0, get INSUFFICIENT_SIZE and the
 * needed count, allocate with headroom (2n+5, the list changes between
 * calls) and ask again, repeating while the list keeps growing. The
 * list has no cap (a GPU may run any number of processes): the caller's
 * array grows to hold them all, so their count and memory are true.
 */
#include "nvml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

typedef nvmlReturn_t (*nvml_proc_fn)(nvmlDevice_t, unsigned int *, void *);

enum { NVML_PROC_TRIES = 5 };

/* The list being filled: an array that grows as processes come. */
struct nvml_proc_out {
    struct nvml_process **list;
    unsigned *cap, *n;
};

static void nvml_proc_add(const struct nvml_proc_out *o, const struct nvml_process *p)
{
    struct nvml_process *l = *o->list;
    for (unsigned i = 0; i < *o->n; i++)
        if (l[i].pid == p->pid) {
            l[i].kinds |= p->kinds;
            return;
        }
    if (*o->n == *o->cap) {
        *o->cap = *o->cap ? *o->cap * 2 : 16;
        *o->list = l = xrealloc(l, *o->cap * sizeof *l);
    }
    l[(*o->n)++] = *p;
}

/* Entries are read through memcpy at their offsets: pid @0, memory @8, and
 * from 24-byte entries on the GPU and compute instance ids @16 and @20. */
static void nvml_proc_take(const unsigned char *buf, unsigned count, size_t stride, unsigned kind,
                           const struct nvml_proc_out *out)
{
    for (unsigned i = 0; i < count; i++) {
        struct nvml_process p = {.gi = 0xFFFFFFFFu, .ci = 0xFFFFFFFFu, .kinds = kind};
        memcpy(&p.pid, buf + i * stride, sizeof p.pid);
        memcpy(&p.used_memory, buf + i * stride + 8, sizeof p.used_memory);
        if (stride >= 24) {
            memcpy(&p.gi, buf + i * stride + 16, sizeof p.gi);
            memcpy(&p.ci, buf + i * stride + 20, sizeof p.ci);
        }
        nvml_proc_add(out, &p);
    }
}

static nvmlReturn_t nvml_proc_list(nvml_proc_fn fn, size_t stride, unsigned kind, nvmlDevice_t dev,
                                   const struct nvml_proc_out *out)
{
    unsigned int count = 0;
    nvmlReturn_t r = fn(dev, &count, NULL);
    if (r == NVML_SUCCESS)
        return NVML_SUCCESS;
    for (int t = 0; t < NVML_PROC_TRIES && r == NVML_ERROR_INSUFFICIENT_SIZE; t++) {
        unsigned int cap = count * 2 + 5;
        unsigned char *buf = xcalloc(cap, stride);
        count = cap;
        r = fn(dev, &count, buf);
        if (r == NVML_SUCCESS)
            nvml_proc_take(buf, count < cap ? count : cap, stride, kind, out);
        free(buf);
    }
    return r;
}

static nvmlReturn_t nvml_proc_detail(nvmlDevice_t dev, unsigned mode, const struct nvml_proc_out *out)
{
    nvmlProcessDetailList_v1_t list = {nvmlProcessDetailList_v1, mode, 0, NULL};
    nvmlReturn_t r = nvml.nvmlDeviceGetRunningProcessDetailList(dev, &list);
    if (r == NVML_SUCCESS)
        return NVML_SUCCESS;
    for (int t = 0; t < NVML_PROC_TRIES && r == NVML_ERROR_INSUFFICIENT_SIZE; t++) {
        unsigned int cap = list.numProcArrayEntries * 2 + 5;
        list.procArray = xcalloc(cap, sizeof *list.procArray);
        list.numProcArrayEntries = cap;
        r = nvml.nvmlDeviceGetRunningProcessDetailList(dev, &list);
        if (r == NVML_SUCCESS)
            nvml_proc_take((const unsigned char *)list.procArray,
                           list.numProcArrayEntries < cap ? list.numProcArrayEntries : cap,
                           sizeof *list.procArray,
                           mode == NVML_PROCESS_MODE_GRAPHICS ? NVML_PROC_GRAPHICS : NVML_PROC_COMPUTE, out);
        free(list.procArray);
        list.procArray = NULL;
    }
    return r;
}

UTIL_HOT static nvmlReturn_t nvml_proc_mode(nvmlDevice_t dev, int graphics, const struct nvml_proc_out *out)
{
    if (nvml.nvmlDeviceGetRunningProcessDetailList) {
        nvmlReturn_t r = nvml_proc_detail(dev, graphics ? NVML_PROCESS_MODE_GRAPHICS : NVML_PROCESS_MODE_COMPUTE,
                                          out);
        if (!nvml_code_is_unsupported(r) && r != NVML_ERROR_INVALID_ARGUMENT)
            return r;
    }
    struct { void *fn; size_t stride; } variants[] = {
        {graphics ? (void *)nvml.nvmlDeviceGetGraphicsRunningProcesses_v3
                  : (void *)nvml.nvmlDeviceGetComputeRunningProcesses_v3, (size_t)nvml.process_stride},
        {graphics ? (void *)nvml.nvmlDeviceGetGraphicsRunningProcesses_v2
                  : (void *)nvml.nvmlDeviceGetComputeRunningProcesses_v2, sizeof(nvmlProcessInfo_v2_t)},
        {graphics ? (void *)nvml.nvmlDeviceGetGraphicsRunningProcesses
                  : (void *)nvml.nvmlDeviceGetComputeRunningProcesses, sizeof(nvmlProcessInfo_v1_t)},
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        if (!variants[i].fn)
            continue;
        nvml_proc_fn fn;
        *(void **)&fn = variants[i].fn;
        return nvml_proc_list(fn, variants[i].stride, graphics ? NVML_PROC_GRAPHICS : NVML_PROC_COMPUTE, dev, out);
    }
    return NVML_ERROR_FUNCTION_NOT_FOUND;
}

UTIL_HOT nvmlReturn_t nvml_processes(nvmlDevice_t dev, struct nvml_process **list, unsigned *cap, unsigned *n)
{
    const struct nvml_proc_out out = {list, cap, n};
    *n = 0;
    nvmlReturn_t rc = nvml_proc_mode(dev, 0, &out);
    nvmlReturn_t rg = nvml_proc_mode(dev, 1, &out);
    if (rc == NVML_SUCCESS || rg == NVML_SUCCESS)
        return NVML_SUCCESS;
    return rc;
}
