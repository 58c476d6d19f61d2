/*
 * sampler_events.c: XID errors, from NVML's event API. One event set for
 * all selected GPUs; each GPU registers only the XID bit, and only if
 * GetSupportedEventTypes offers it (a GPU without it reads "unsupported").
 * Every sample first drains what the driver queued since the previous one
 * (nvmlEventSetWait with a 0 ms timeout, on the sampling thread: no thread
 * of its own that would wake an idle monitor four times a second) and
 * counts each XID code per GPU with the time it was taken (the records'
 * clock, nvml_clock_now: the scenario's when fast-played), so an
 * XID's time is known to within one interval; the sampler then copies the
 * counts into the record. NVML delivers nothing from before registration,
 * so counts start at zero when gpumon starts. The per-GPU list lives under
 * the GPU's slow_mu (the readers of a record may run on another thread).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sampler_int.h"
#include "util.h"

#define EVENTS_MAX_DRAIN 4096   /* events taken per sample at most, so a storm cannot hold a sample up */

struct sampler_events {
    nvmlEventSet_t set;
    struct sampler_gpu *gpus;
    unsigned ngpus;
};

/* Counts one occurrence of code on g; when the list is full, the entry
 * seen longest ago makes room. Caller holds g->slow_mu. */
UTIL_HOT static void events_count(struct sampler_gpu *g, unsigned code, const struct timespec *now)
{
    unsigned i, oldest = 0;
    for (i = 0; i < g->nxids && g->xids[i].code != code; i++)
        if (g->xids[i].last.tv_sec < g->xids[oldest].last.tv_sec)
            oldest = i;
    if (i == g->nxids) {
        if (g->nxids < RECORD_MAX_XIDS)
            g->nxids++;
        else
            i = oldest;
        g->xids[i] = (struct record_xid){.code = code};
    }
    g->xids[i].count++;
    g->xids[i].last = *now;
    g->xid_total++;
    g->xid_last = code;
}

/* The oldest pending event in d, without waiting: SUCCESS, TIMEOUT when none is pending, or a failure. */
UTIL_HOT static nvmlReturn_t events_poll(nvmlEventSet_t set, nvmlEventData_t *d)
{
    memset(d, 0, sizeof *d);
    if (nvml.nvmlEventSetWait_v2)
        return nvml.nvmlEventSetWait_v2(set, d, 0);
    nvmlEventData_legacy_t l = {0};
    nvmlReturn_t r = nvml.nvmlEventSetWait(set, &l, 0);
    d->device = l.device;
    d->eventType = l.eventType;
    d->eventData = l.eventData;
    return r;
}

UTIL_HOT void sampler_events_drain(struct sampler_events *e)
{
    if (!e)
        return;
    struct timespec now = {0, 0};
    for (unsigned n = 0; n < EVENTS_MAX_DRAIN; n++) {
        nvmlEventData_t d;
        if (events_poll(e->set, &d) != NVML_SUCCESS)
            return;   /* none pending (TIMEOUT), or a failure such as a lost GPU, which its readers report */
        if (!(d.eventType & nvmlEventTypeXidCriticalError))
            continue;
        if (!now.tv_sec)
            nvml_clock_now(&now);   /* the records' clock (the scenario's when fast-played), once per drain */
        for (unsigned i = 0; i < e->ngpus; i++) {
            struct sampler_gpu *g = &e->gpus[i];
            if (g->h != d.device)
                continue;
            pthread_mutex_lock(&g->slow_mu);
            events_count(g, (unsigned)d.eventData, &now);
            pthread_mutex_unlock(&g->slow_mu);
        }
    }
}

struct sampler_events *sampler_events_start(struct sampler_gpu *gpus, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        gpus[i].xid_rc = NVML_ERROR_NOT_SUPPORTED;
    if (!nvml.nvmlEventSetCreate || !nvml.nvmlDeviceRegisterEvents || !nvml.nvmlEventSetFree ||
        (!nvml.nvmlEventSetWait_v2 && !nvml.nvmlEventSetWait) || n == 0)
        return NULL;
    struct sampler_events *e = xcalloc(1, sizeof *e);
    e->gpus = gpus;
    e->ngpus = n;
    if (nvml.nvmlEventSetCreate(&e->set) != NVML_SUCCESS) {
        free(e);
        return NULL;
    }
    unsigned registered = 0;
    for (unsigned i = 0; i < n; i++) {
        struct sampler_gpu *g = &gpus[i];
        unsigned long long types = 0;
        if (!g->h)
            continue;
        if (nvml.nvmlDeviceGetSupportedEventTypes) {
            g->xid_rc = nvml.nvmlDeviceGetSupportedEventTypes(g->h, &types);
            if (g->xid_rc == NVML_SUCCESS && !(types & nvmlEventTypeXidCriticalError))
                g->xid_rc = NVML_ERROR_NOT_SUPPORTED;
            if (g->xid_rc != NVML_SUCCESS)
                continue;
        }
        g->xid_rc = nvml.nvmlDeviceRegisterEvents(g->h, nvmlEventTypeXidCriticalError, e->set);
        if (g->xid_rc == NVML_ERROR_UNKNOWN) {   /* the set is undefined now (docs/nvml-facts.md §21): give up on events */
            for (unsigned j = 0; j < i; j++)
                gpus[j].xid_rc = gpus[j].xid_rc == NVML_SUCCESS ? NVML_ERROR_UNKNOWN : gpus[j].xid_rc;
            registered = 0;
            break;
        }
        registered += g->xid_rc == NVML_SUCCESS;
    }
    if (registered == 0) {
        for (unsigned i = 0; i < n; i++)
            gpus[i].xid_rc = gpus[i].xid_rc == NVML_SUCCESS ? NVML_ERROR_NOT_SUPPORTED : gpus[i].xid_rc;
        nvml.nvmlEventSetFree(e->set);
        free(e);
        return NULL;
    }
    return e;
}

void sampler_events_stop(struct sampler_events *e)
{
    if (!e)
        return;
    nvml.nvmlEventSetFree(e->set);
    free(e);
}

UTIL_HOT void sampler_events_copy(struct sampler_gpu *g, struct record_gpu *rg)
{
    pthread_mutex_lock(&g->slow_mu);
    rg->nxids = g->nxids;
    memcpy(rg->xids, g->xids, g->nxids * sizeof *g->xids);
    pthread_mutex_unlock(&g->slow_mu);
}

UTIL_HOT void sampler_read_xid_count(const struct read_ctx *c, struct value *out)
{
    struct sampler_gpu *g = c->g;
    pthread_mutex_lock(&g->slow_mu);
    if (g->xid_rc == NVML_SUCCESS)
        *out = (struct value){.state = VS_OK, .u.i = (long long)g->xid_total};
    else
        *out = (struct value){.state = nvml_code_is_unsupported(g->xid_rc) ? VS_UNSUPPORTED : VS_ERROR,
                              .code = g->xid_rc};
    pthread_mutex_unlock(&g->slow_mu);
}

UTIL_HOT void sampler_read_xid_last(const struct read_ctx *c, struct value *out)
{
    struct sampler_gpu *g = c->g;
    pthread_mutex_lock(&g->slow_mu);
    if (g->xid_rc != NVML_SUCCESS)
        *out = (struct value){.state = nvml_code_is_unsupported(g->xid_rc) ? VS_UNSUPPORTED : VS_ERROR,
                              .code = g->xid_rc};
    else
        *out = g->xid_total ? (struct value){.state = VS_OK, .u.i = g->xid_last} : (struct value){0};
    pthread_mutex_unlock(&g->slow_mu);
}
