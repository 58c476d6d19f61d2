/*
 * sampler_gpm.c: the GPM rows (gpm_metrics.h): SM, tensor, DRAM and pipe
 * activity, PCIe and NVLink bytes, on Hopper and newer.
 *
 * Protocol (docs/nvml-facts.md §23): the support query with the raw version 1, two
 * samples per GPU, nvmlGpmMetricsGet over a pair. A pair closer than
 * GPM_MIN_PAIR_NS (100 ms, the driver's counter refresh) gives no valid
 * result, so the next sample is taken only once the base is 100 ms old
 * (measured from just after the base was taken, so the driver's own gap
 * is never shorter); the pair's results then serve every record until the
 * next pair: at intervals above 100 ms each record has its own pair, at
 * 100 ms and below values change once the next pair is 100 ms old. The first record waits until the
 * first sample is 100 ms old (once, so that --once has GPM values too).
 * Unavailable GPM (no symbols in an older driver, isSupportedDevice 0
 * before Hopper, NOT_SUPPORTED in vGPU or MIG, NO_PERMISSION, a version
 * mismatch) makes every GPM row unsupported with that code; a failed
 * sample or metrics call an error (or lost) like any other reading.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sampler_int.h"
#include "util.h"

/* The request, sized for the newest header (13 KB): one for all GPUs, since only the sampling thread
 * asks for metrics; only its first GPM_COUNT entries are ever written, so one page is touched. */
static nvmlGpmMetricsGet_t sampler_gpm_req;

static const struct gpm_row sampler_gpm_rows[GPM_COUNT] = {GPM_TABLE(GPM_ROW_INIT, _)};

UTIL_HOT static int sampler_gpm_slot(enum metric_id id)
{
    return id >= M_GPM_GR_ACTIVE && id <= M_GPM_NVLINK_TX ? (int)(id - M_GPM_GR_ACTIVE) : -1;
}

void sampler_gpm_open(struct sampler_gpu *g)
{
    struct sampler_gpm *m = &g->gpm;
    memset(m, 0, sizeof *m);
    if (!nvml.nvmlGpmQueryDeviceSupport || !nvml.nvmlGpmSampleAlloc || !nvml.nvmlGpmSampleFree ||
        !nvml.nvmlGpmSampleGet || !nvml.nvmlGpmMetricsGet) {
        m->rc = NVML_ERROR_FUNCTION_NOT_FOUND;   /* a driver before 520 */
        return;
    }
    nvmlGpmSupport_t sup = {NVML_GPM_SUPPORT_VERSION, 0};
    m->rc = nvml.nvmlGpmQueryDeviceSupport(g->h, &sup);
    if (m->rc == NVML_SUCCESS && !sup.isSupportedDevice)
        m->rc = NVML_ERROR_NOT_SUPPORTED;      /* before Hopper */
    if (m->rc != NVML_SUCCESS)
        return;
    if ((m->rc = nvml.nvmlGpmSampleAlloc(&m->base)) != NVML_SUCCESS)
        return;
    if ((m->rc = nvml.nvmlGpmSampleAlloc(&m->next)) != NVML_SUCCESS) {
        nvml.nvmlGpmSampleFree(m->base);
        m->base = NULL;
        return;
    }
    if (nvml.nvmlGpmSampleGet(g->h, m->base) == NVML_SUCCESS)
        m->base_ns = util_mono_ns();
}

void sampler_gpm_close(struct sampler_gpu *g)
{
    struct sampler_gpm *m = &g->gpm;
    if (m->base)
        nvml.nvmlGpmSampleFree(m->base);
    if (m->next)
        nvml.nvmlGpmSampleFree(m->next);
    memset(m, 0, sizeof *m);
    m->rc = NVML_ERROR_UNINITIALIZED;
}

/* Once per tick: a new pair when the base is old enough. */
UTIL_HOT static void sampler_gpm_step(struct sampler_gpu *g, uint64_t tick)
{
    struct sampler_gpm *m = &g->gpm;
    if (m->tick == tick && tick)
        return;
    m->tick = tick;
    if (!m->base_ns) {   /* the first sample failed: try again */
        m->step_rc = nvml.nvmlGpmSampleGet(g->h, m->base);
        if (m->step_rc == NVML_SUCCESS)
            m->base_ns = util_mono_ns();
        return;
    }
    uint64_t age = util_mono_ns() - m->base_ns;
    if (age < GPM_MIN_PAIR_NS && !m->waited) {
        /* the first record waits out the first pair (once), so that even --once carries GPM values */
        m->waited = true;
        struct timespec ts = {0, (long)(GPM_MIN_PAIR_NS - age)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    } else if (age < GPM_MIN_PAIR_NS) {
        return;   /* too close: the previous pair's results stand */
    }
    if ((m->step_rc = nvml.nvmlGpmSampleGet(g->h, m->next)) != NVML_SUCCESS)
        return;
    uint64_t taken = util_mono_ns();
    nvmlGpmMetricsGet_t *q = &sampler_gpm_req;
    memset(q, 0, offsetof(nvmlGpmMetricsGet_t, metrics) + GPM_COUNT * sizeof q->metrics[0]);
    q->version = NVML_GPM_METRICS_GET_VERSION;
    q->numMetrics = GPM_COUNT;
    q->sample1 = m->base;
    q->sample2 = m->next;
    for (int i = 0; i < GPM_COUNT; i++)
        q->metrics[i].metricId = sampler_gpm_rows[i].nvml_id;
    m->step_rc = nvml.nvmlGpmMetricsGet(q);
    /* the new sample is the next pair's base either way */
    nvmlGpmSample_t t = m->base;
    m->base = m->next;
    m->next = t;
    m->base_ns = taken;
    if (m->step_rc != NVML_SUCCESS)
        return;
    for (int i = 0; i < GPM_COUNT; i++) {
        m->vrc[i] = q->metrics[i].nvmlReturn;
        m->v[i] = q->metrics[i].value;
    }
    m->have = true;
}

UTIL_HOT void sampler_read_gpm(const struct read_ctx *c, struct value *out)
{
    struct sampler_gpu *g = c->g;
    struct sampler_gpm *m = &g->gpm;
    int slot = sampler_gpm_slot(c->id);
    if (slot < 0 || m->rc != NVML_SUCCESS)
        return sampler_value_fail(g, out, slot < 0 ? NVML_ERROR_NOT_SUPPORTED : m->rc);
    sampler_gpm_step(g, c->tick);
    if (m->step_rc != NVML_SUCCESS)
        return sampler_value_fail(g, out, m->step_rc);
    if (!m->have) {
        out->state = VS_NONE;   /* the first pair is not 100 ms old yet */
        return;
    }
    double v = m->v[slot];
    if (m->vrc[slot] == NVML_SUCCESS && v >= 0 && v <= 1e12) {   /* the common case first */
        *out = (struct value){.state = VS_OK, .u.f = v};
        return;
    }
    if (m->vrc[slot] != NVML_SUCCESS)
        return sampler_value_fail(g, out, m->vrc[slot]);
    out->state = VS_ERROR;   /* NaN, negative or absurd: not a reading */
    out->code = NVML_ERROR_UNKNOWN;
}
