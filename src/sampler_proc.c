/*
 * sampler_proc.c: what NVML says about a GPU's processes beyond the
 * record's list (sampler_read.c keeps at most RECORD_MAX_PROCS there, with
 * names cut to the record's width).
 *
 * Process names have one reader, sampler_process_name, for the record and
 * the full list alike. The full list (nvidia-smi's summary table) comes from
 * the same protocol as the record's (nvml_processes: compute and graphics
 * lists merged, each process remembering the lists it was on) with names
 * as long as NVML gives them. Per-process SM shares (gpumon top) come from
 * nvmlDeviceGetProcessUtilization (docs/nvml-facts.md §17): a NULL buffer
 * asks for the number of samples (INSUFFICIENT_SIZE, or SUCCESS when there
 * are none), then the samples newer than the newest one seen before; a real
 * driver gives several per process (one per driver period), so a process's
 * share is the mean of its samples since the previous call; NOT_FOUND means
 * no process was busy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sampler_int.h"
#include "util.h"

#define SAMPLER_PUTIL_MAX 4096       /* utilization samples one call takes */

void sampler_process_name(unsigned pid, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!nvml.nvmlSystemGetProcessName || nvml.nvmlSystemGetProcessName(pid, buf, (unsigned)len) != NVML_SUCCESS)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}

static int sampler_proc_cmp(const void *a, const void *b)
{
    const struct sampler_proc *x = a, *y = b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

unsigned sampler_gpu_processes(struct sampler_gpu *g, struct sampler_proc **out)
{
    struct nvml_process *p = NULL;
    unsigned n = 0, cap = 0;
    *out = NULL;
    if (nvml_processes(g->h, &p, &cap, &n) != NVML_SUCCESS || n == 0) {
        free(p);
        return 0;
    }
    struct sampler_proc *list = xcalloc(n, sizeof *list);
    for (unsigned i = 0; i < n; i++) {
        struct sampler_proc *q = &list[i];
        *q = (struct sampler_proc){.gpu = g->index, .pid = p[i].pid, .gi = p[i].gi, .ci = p[i].ci,
                                   .compute = (p[i].kinds & NVML_PROC_COMPUTE) != 0,
                                   .graphics = (p[i].kinds & NVML_PROC_GRAPHICS) != 0, .mem = p[i].used_memory};
        sampler_process_name(p[i].pid, q->name, sizeof q->name);
    }
    free(p);
    qsort(list, n, sizeof *list, sampler_proc_cmp);
    *out = list;
    return n;
}

/* The means per pid of samples[0..count) into pid/sm (at most max). */
static unsigned sampler_proc_means(const nvmlProcessUtilizationSample_t *s, unsigned count, unsigned *pid,
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

int sampler_gpu_proc_util(struct sampler_gpu *g, unsigned *pid, unsigned *sm, unsigned max, unsigned *n)
{
    *n = 0;
    if (!nvml.nvmlDeviceGetProcessUtilization)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    unsigned count = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetProcessUtilization(g->h, NULL, &count, g->putil_ts);
    if (rc == NVML_ERROR_NOT_FOUND || (rc == NVML_SUCCESS && count == 0))
        return 0;
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE)
        return (int)rc;
    if (count > SAMPLER_PUTIL_MAX)
        count = SAMPLER_PUTIL_MAX;
    if (g->putil_cap < count) {
        g->putil_buf = xrealloc(g->putil_buf, count * sizeof *g->putil_buf);
        g->putil_cap = count;
    }
    memset(g->putil_buf, 0, count * sizeof *g->putil_buf);
    rc = nvml.nvmlDeviceGetProcessUtilization(g->h, g->putil_buf, &count, g->putil_ts);
    if (rc == NVML_ERROR_NOT_FOUND)
        return 0;
    if (rc != NVML_SUCCESS)
        return (int)rc;
    if (count > g->putil_cap)
        count = g->putil_cap;
    for (unsigned i = 0; i < count; i++)
        if (g->putil_buf[i].timeStamp > g->putil_ts)
            g->putil_ts = g->putil_buf[i].timeStamp;
    *n = sampler_proc_means(g->putil_buf, count, pid, sm, max);
    return 0;
}
