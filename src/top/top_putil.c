/*
 * top_putil.c: each process's share of a GPU's SMs for `gpumon top`'s
 * process table, from nvmlDeviceGetProcessUtilization, which gpumon's
 * sampler does not read (records carry no per-process utilization). The
 * call's protocol: a NULL buffer asks for the number of samples (answered
 * INSUFFICIENT_SIZE, or SUCCESS when there are none); samples newer than
 * lastSeenTimeStamp follow, several per process on a real driver (one per
 * driver period), so a process's share is the mean of its samples since
 * the previous call; NOT_FOUND means no process was busy. Called on the
 * collector thread only, through gpumon's one NVML function table; a
 * library without the function answers FUNCTION_NOT_FOUND, and the UI
 * then leaves the column out.
 */
#include <stdlib.h>
#include <string.h>
#include "nvml.h"
#include "top.h"
#include "util.h"

#define TOP_PUTIL_GPUS 64

struct top_putil {
    struct {
        bool used;
        unsigned idx;
        nvmlDevice_t h;
        unsigned long long last_ts;
    } dev[TOP_PUTIL_GPUS];
    nvmlProcessUtilizationSample_t *buf;
    unsigned cap;
};

struct top_putil *top_putil_new(void)
{
    return xcalloc(1, sizeof(struct top_putil));
}

void top_putil_free(struct top_putil *u)
{
    if (u)
        free(u->buf);
    free(u);
}

/* The means per pid of samples[0..count) into pid/sm (at most max). */
static unsigned top_putil_means(const nvmlProcessUtilizationSample_t *s, unsigned count, unsigned *pid,
                                unsigned *sm, unsigned max)
{
    unsigned n = 0, k[RECORD_MAX_PROCS * 4] = {0};
    unsigned long long sum[RECORD_MAX_PROCS * 4] = {0};
    if (max > RECORD_MAX_PROCS * 4)
        max = RECORD_MAX_PROCS * 4;
    for (unsigned i = 0; i < count; i++) {
        unsigned j = 0;
        while (j < n && pid[j] != s[i].pid)
            j++;
        if (j == n) {
            if (n == max)
                continue;
            pid[n++] = s[i].pid;
        }
        sum[j] += s[i].smUtil;
        k[j]++;
    }
    for (unsigned j = 0; j < n; j++)
        sm[j] = (unsigned)((sum[j] + k[j] / 2) / k[j]);
    return n;
}

int top_putil_read(struct top_putil *u, unsigned idx, unsigned *pid, unsigned *sm, unsigned max, unsigned *n)
{
    *n = 0;
    if (!nvml.nvmlDeviceGetProcessUtilization)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    unsigned d = 0;
    while (d < TOP_PUTIL_GPUS && u->dev[d].used && u->dev[d].idx != idx)
        d++;
    if (d == TOP_PUTIL_GPUS)
        return NVML_ERROR_INSUFFICIENT_RESOURCES;
    if (!u->dev[d].used) {
        nvmlReturn_t rc = nvml.get_handle(idx, &u->dev[d].h);
        if (rc != NVML_SUCCESS)
            return (int)rc;
        u->dev[d].used = true;
        u->dev[d].idx = idx;
    }
    unsigned count = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetProcessUtilization(u->dev[d].h, NULL, &count, u->dev[d].last_ts);
    if (rc == NVML_ERROR_NOT_FOUND || (rc == NVML_SUCCESS && count == 0))
        return 0;
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE)
        return (int)rc;
    if (count > 4096)
        count = 4096;
    if (u->cap < count) {
        u->buf = xrealloc(u->buf, count * sizeof *u->buf);
        u->cap = count;
    }
    memset(u->buf, 0, count * sizeof *u->buf);
    rc = nvml.nvmlDeviceGetProcessUtilization(u->dev[d].h, u->buf, &count, u->dev[d].last_ts);
    if (rc == NVML_ERROR_NOT_FOUND)
        return 0;
    if (rc != NVML_SUCCESS)
        return (int)rc;
    if (count > u->cap)
        count = u->cap;
    for (unsigned i = 0; i < count; i++)
        if (u->buf[i].timeStamp > u->dev[d].last_ts)
            u->dev[d].last_ts = u->buf[i].timeStamp;
    *n = top_putil_means(u->buf, count, pid, sm, max);
    return 0;
}
