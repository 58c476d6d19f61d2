/*
 * sampler_pcie.c: PCIe throughput of one GPU, the cheap way where the
 * driver has it. From R555 NVML keeps running byte counters per direction
 * (field values 197 and 198): one GetFieldValues call per sample answers
 * both, and the rate is the change since the base reading over the time
 * between them (the driver's own stamps on the values where it gives
 * them, so the call's latency does not skew it), taken once the pair is
 * PCIE_MIN_PAIR_NS apart (the window
 * nvmlDeviceGetPcieThroughput samples over); between pairs the latest rate
 * stands (on a fast-played simulator the counters run on its scenario
 * clock, so the pair's time is the wall time times its speed). A counter
 * that goes back (a wrap, a driver reload) rebases without a rate. Without
 * the counters (older drivers, the simulator's r535 profile) the rows stay
 * on the slow-reader thread, whose nvmlDeviceGetPcieThroughput call blocks
 * about 20 ms per direction.
 */
#include <stdbool.h>
#include <time.h>
#include "sampler_int.h"
#include "util.h"

#define PCIE_MIN_PAIR_NS 20000000ull   /* 20 ms */

/* Reads both counters into bytes, and the time the driver stamped them with (µs since the epoch; 0
 * when it did not); the call's result, or the first entry's failure. */
UTIL_HOT static nvmlReturn_t pcie_read(struct sampler_gpu *g, unsigned long long bytes[2], long long *ts_us)
{
    nvmlFieldValue_t f[2] = {{.fieldId = NVML_FI_DEV_PCIE_COUNT_TX_BYTES},
                             {.fieldId = NVML_FI_DEV_PCIE_COUNT_RX_BYTES}};
    if (!nvml.nvmlDeviceGetFieldValues)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    nvmlReturn_t rc = nvml.nvmlDeviceGetFieldValues(g->h, 2, f);
    for (int i = 0; i < 2 && rc == NVML_SUCCESS; i++) {
        rc = f[i].nvmlReturn;
        if (rc == NVML_SUCCESS && f[i].valueType != NVML_VALUE_TYPE_UNSIGNED_LONG_LONG)
            rc = NVML_ERROR_NOT_SUPPORTED;
        bytes[i] = f[i].value.ullVal;
    }
    *ts_us = f[0].timestamp;
    return rc;
}

bool sampler_pcie_open(struct sampler_gpu *g)
{
    struct sampler_pcie *p = &g->pcie;
    p->counters = pcie_read(g, p->base, &p->base_ts_us) == NVML_SUCCESS;
    p->base_ns = util_mono_ns();
    return p->counters;
}

/* Brings g's rates up to date for tick (once per tick): the failure of this tick's reading, or SUCCESS. */
static nvmlReturn_t pcie_update(struct sampler_gpu *g, uint64_t tick)
{
    struct sampler_pcie *p = &g->pcie;
    if (p->tick == tick && tick)
        return p->rc;
    p->tick = tick;
    uint64_t age = util_mono_ns() - p->base_ns;
    if (age < PCIE_MIN_PAIR_NS && !p->have) {
        /* the first record waits out the first pair (once), so that even --once carries a rate */
        struct timespec ts = {0, (long)(PCIE_MIN_PAIR_NS - age)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    } else if (age < PCIE_MIN_PAIR_NS) {
        return p->rc = NVML_SUCCESS;   /* too close: the latest rate stands */
    }
    unsigned long long now_bytes[2];
    long long ts_us;
    if ((p->rc = pcie_read(g, now_bytes, &ts_us)) != NVML_SUCCESS)
        return p->rc;
    uint64_t now = util_mono_ns();
    /* the time between the two readings: the driver's own stamps where it gives them (exact, whatever
     * the call's latency; on the simulator, its scenario time), else ours (on the counters' clock) */
    double secs = p->base_ts_us > 0 && ts_us > p->base_ts_us ? (double)(ts_us - p->base_ts_us) / 1e6
                                                              : (double)(now - p->base_ns) / 1e9 * nvml_clock_speed();
    bool back = now_bytes[0] < p->base[0] || now_bytes[1] < p->base[1];
    for (int i = 0; i < 2 && !back; i++)
        p->kbps[i] = (double)(now_bytes[i] - p->base[i]) / 1024.0 / secs;
    p->have |= !back;
    p->base[0] = now_bytes[0], p->base[1] = now_bytes[1];
    p->base_ns = now;
    p->base_ts_us = ts_us;
    return p->rc;
}

UTIL_HOT void sampler_pcie_value(const struct read_ctx *c, int dir, struct value *out)
{
    struct sampler_gpu *g = c->g;
    nvmlReturn_t rc = pcie_update(g, c->tick);
    if (rc != NVML_SUCCESS)
        sampler_value_fail(g, out, rc);
    else if (!g->pcie.have)
        *out = (struct value){.state = VS_NONE};   /* only a counter that went back so far */
    else
        *out = (struct value){.state = VS_OK, .u.i = (long long)(g->pcie.kbps[dir] + 0.5)};
}

UTIL_HOT bool sampler_pcie_slow(const struct sampler_gpu *g, enum metric_id id)
{
    return metric_table[id].cadence == MC_SLOW && !(g->pcie.counters && (id == M_PCIE_TX || id == M_PCIE_RX));
}
