/*
 * sampler_read.c: one reader per GPU row of the metric table
 * (sampler_read_NAME for the row whose reader column is NAME).
 *
 * Each reader calls the newest NVML variant the library has, falls back to
 * older ones, and stores a value with its state: ok, unsupported (missing
 * symbol, or NVML says 3/6/13/25), error (any other code, kept), or lost
 * (15/16, which also marks the GPU lost for the sampler). Calls that serve
 * several metrics are memoized per tick. Readers never print.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "sampler_int.h"
#include "util.h"

#define MISSING NVML_ERROR_FUNCTION_NOT_FOUND

typedef nvmlReturn_t (*u32_getter)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*clock_getter)(nvmlDevice_t, nvmlClockType_t, unsigned int *);

UTIL_HOT void sampler_value_fail(struct sampler_gpu *g, struct value *out, nvmlReturn_t rc)
{
    out->code = rc;
    if (nvml_code_is_lost(rc)) {
        atomic_store(&g->lost_code, rc);
        atomic_store(&g->lost, true);
        out->state = VS_LOST;
    } else {
        out->state = nvml_code_is_unsupported(rc) ? VS_UNSUPPORTED : VS_ERROR;
    }
}

UTIL_HOT void sampler_value_int(struct sampler_gpu *g, struct value *out, nvmlReturn_t rc, long long v)
{
    if (rc != NVML_SUCCESS)
        return sampler_value_fail(g, out, rc);
    *out = (struct value){.state = VS_OK, .u.i = v};
}

UTIL_HOT void sampler_value_float(struct sampler_gpu *g, struct value *out, nvmlReturn_t rc, double v)
{
    if (rc != NVML_SUCCESS)
        return sampler_value_fail(g, out, rc);
    *out = (struct value){.state = VS_OK, .u.f = v};
}

UTIL_HOT static void val_str(struct value *out, nvmlReturn_t rc, const char *s)
{
    if (rc != NVML_SUCCESS) {
        out->code = rc;
        out->state = nvml_code_is_unsupported(rc) ? VS_UNSUPPORTED : nvml_code_is_lost(rc) ? VS_LOST : VS_ERROR;
        return;
    }
    out->state = VS_OK;
    out->code = 0;
    out->u.s = s;
}

UTIL_HOT static void read_u32(struct sampler_gpu *g, struct value *out, u32_getter fn, double scale, bool is_float)
{
    unsigned int v = 0;
    nvmlReturn_t rc = fn ? fn(g->h, &v) : MISSING;
    if (is_float)
        sampler_value_float(g, out, rc, v * scale);
    else
        sampler_value_int(g, out, rc, (long long)(v * scale));
}

UTIL_HOT static void read_clock(struct sampler_gpu *g, struct value *out, clock_getter fn, nvmlClockType_t type)
{
    unsigned int v = 0;
    nvmlReturn_t rc = fn ? fn(g->h, type, &v) : MISSING;
    sampler_value_int(g, out, rc, v);
}

UTIL_HOT void sampler_read_clock_now(struct sampler_gpu *g, nvmlClockType_t type, struct value *out)
{
    read_clock(g, out, nvml.nvmlDeviceGetClockInfo, type);
}

/* ---- identity, read once ---- */

void sampler_read_identity(struct sampler_gpu *g)
{
    g->name_rc = nvml.nvmlDeviceGetName ? nvml.nvmlDeviceGetName(g->h, g->name, sizeof g->name) : MISSING;
    g->uuid_rc = nvml.nvmlDeviceGetUUID ? nvml.nvmlDeviceGetUUID(g->h, g->uuid, sizeof g->uuid) : MISSING;
    g->serial_rc = nvml.nvmlDeviceGetSerial ? nvml.nvmlDeviceGetSerial(g->h, g->serial, sizeof g->serial) : MISSING;
    g->pci_rc = nvml_pci_info(g->h, &g->pci_info);
    if (g->pci_rc == NVML_SUCCESS)
        snprintf(g->pci, sizeof g->pci, "%s", g->pci_info.busId);
    g->name[sizeof g->name - 1] = g->uuid[sizeof g->uuid - 1] = g->serial[sizeof g->serial - 1] = '\0';
    g->pci[sizeof g->pci - 1] = '\0';
}

UTIL_HOT void sampler_read_index(const struct read_ctx *c, struct value *out)
{
    sampler_value_int(c->g, out, NVML_SUCCESS, c->g->index);
}

UTIL_HOT void sampler_read_name(const struct read_ctx *c, struct value *out)
{
    val_str(out, c->g->name_rc, c->g->name);
}

UTIL_HOT void sampler_read_uuid(const struct read_ctx *c, struct value *out)
{
    val_str(out, c->g->uuid_rc, c->g->uuid);
}

UTIL_HOT void sampler_read_serial(const struct read_ctx *c, struct value *out)
{
    val_str(out, c->g->serial_rc, c->g->serial);
}

UTIL_HOT void sampler_read_pci_bus_id(const struct read_ctx *c, struct value *out)
{
    val_str(out, c->g->pci_rc, c->g->pci);
}

UTIL_HOT void sampler_read_driver_version(const struct read_ctx *c, struct value *out)
{
    (void)c;
    val_str(out, nvml.driver_version[0] ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED, nvml.driver_version);
}

UTIL_HOT void sampler_read_state(const struct read_ctx *c, struct value *out)
{
    val_str(out, NVML_SUCCESS, atomic_load(&c->g->lost) ? "lost" : "ok");
}

/* ---- utilization ---- */

UTIL_HOT static nvmlReturn_t fetch_util(const struct read_ctx *c)
{
    struct sampler_gpu *g = c->g;
    if (g->util_tick != c->tick) {
        g->util_tick = c->tick;
        g->util_rc = nvml.nvmlDeviceGetUtilizationRates ? nvml.nvmlDeviceGetUtilizationRates(g->h, &g->util)
                                                        : MISSING;
    }
    return g->util_rc;
}

UTIL_HOT void sampler_read_util_gpu(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = fetch_util(c);
    sampler_value_int(c->g, out, rc, c->g->util.gpu);
}

UTIL_HOT void sampler_read_util_mem(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = fetch_util(c);
    sampler_value_int(c->g, out, rc, c->g->util.memory);
}

UTIL_HOT static double sample_value(nvmlValueType_t t, nvmlValue_t v)
{
    switch (t) {
    case NVML_VALUE_TYPE_DOUBLE: return v.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return (double)v.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return (double)v.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return (double)v.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT: return v.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return v.usVal;
    default: return v.uiVal;
    }
}

/* Driver samples newer than the last one seen: count, min, max, idle share. */
UTIL_HOT static nvmlReturn_t fetch_samples(const struct read_ctx *c)
{
    struct sampler_gpu *g = c->g;
    if (g->samples_tick == c->tick)
        return g->samples_rc;
    g->samples_tick = c->tick;
    memset(&g->ustats, 0, sizeof g->ustats);
    if (!nvml.nvmlDeviceGetSamples)
        return g->samples_rc = MISSING;
    nvmlValueType_t vt = NVML_VALUE_TYPE_UNSIGNED_INT;
    unsigned int n = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetSamples(g->h, NVML_GPU_UTILIZATION_SAMPLES, g->last_seen_us, &vt, &n, NULL);
    if (rc == NVML_SUCCESS && n > 0) {
        if (n > g->scap) {
            g->sbuf = xrealloc(g->sbuf, (size_t)n * sizeof *g->sbuf);
            g->scap = n;
        }
        rc = nvml.nvmlDeviceGetSamples(g->h, NVML_GPU_UTILIZATION_SAMPLES, g->last_seen_us, &vt, &n, g->sbuf);
    }
    if (rc == NVML_ERROR_NOT_FOUND)
        return g->samples_rc = NVML_SUCCESS;   /* no sample newer than the last seen */
    if (rc != NVML_SUCCESS)
        return g->samples_rc = rc;
    unsigned idle = 0;
    unsigned long long newest = g->last_seen_us;
    for (unsigned i = 0; i < n && i < g->scap; i++) {
        if (g->sbuf[i].timeStamp <= g->last_seen_us)
            continue;
        double v = sample_value(vt, g->sbuf[i].sampleValue);
        if (v < 0 || v > 100)
            continue;
        unsigned u = (unsigned)(v + 0.5);
        g->ustats.min = g->ustats.count ? (u < g->ustats.min ? u : g->ustats.min) : u;
        g->ustats.max = g->ustats.count ? (u > g->ustats.max ? u : g->ustats.max) : u;
        idle += u < 5;
        g->ustats.count++;
        if (g->sbuf[i].timeStamp > newest)
            newest = g->sbuf[i].timeStamp;
    }
    g->last_seen_us = newest;
    g->ustats.idle_share = g->ustats.count ? 100.0 * idle / g->ustats.count : 0;
    return g->samples_rc = NVML_SUCCESS;
}

void sampler_prime_samples(struct sampler_gpu *g)
{
    struct read_ctx c = {g, NULL, UINT64_MAX, M_UTIL_SAMPLES};
    g->samples_tick = 0;
    fetch_samples(&c);
    g->samples_tick = 0;
}

UTIL_HOT static void read_sample_stat(const struct read_ctx *c, struct value *out, int which)
{
    nvmlReturn_t rc = fetch_samples(c);
    const struct util_stats *s = &c->g->ustats;
    if (rc == NVML_SUCCESS && s->count == 0 && which != 3) {
        out->state = VS_NONE;   /* no driver sample in this interval */
        return;
    }
    if (which == 0)
        sampler_value_int(c->g, out, rc, s->min);
    else if (which == 1)
        sampler_value_int(c->g, out, rc, s->max);
    else if (which == 2)
        sampler_value_float(c->g, out, rc, s->idle_share);
    else
        sampler_value_int(c->g, out, rc, s->count);
}

UTIL_HOT void sampler_read_util_min(const struct read_ctx *c, struct value *out)
{
    read_sample_stat(c, out, 0);
}

UTIL_HOT void sampler_read_util_max(const struct read_ctx *c, struct value *out)
{
    read_sample_stat(c, out, 1);
}

UTIL_HOT void sampler_read_util_idle(const struct read_ctx *c, struct value *out)
{
    read_sample_stat(c, out, 2);
}

UTIL_HOT void sampler_read_util_samples(const struct read_ctx *c, struct value *out)
{
    read_sample_stat(c, out, 3);
}

UTIL_HOT static void read_codec(const struct read_ctx *c, struct value *out,
                       nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *, unsigned int *))
{
    unsigned int util = 0, period = 0;
    nvmlReturn_t rc = fn ? fn(c->g->h, &util, &period) : MISSING;   /* before util is read: argument order is unspecified */
    sampler_value_int(c->g, out, rc, util);
}

UTIL_HOT void sampler_read_enc(const struct read_ctx *c, struct value *out)
{
    read_codec(c, out, nvml.nvmlDeviceGetEncoderUtilization);
}

UTIL_HOT void sampler_read_dec(const struct read_ctx *c, struct value *out)
{
    read_codec(c, out, nvml.nvmlDeviceGetDecoderUtilization);
}

/* ---- memory (nvml_memory: v2, reserved split out, else v1) ---- */

UTIL_HOT static nvmlReturn_t fetch_mem(const struct read_ctx *c)
{
    struct sampler_gpu *g = c->g;
    if (g->mem_tick == c->tick)
        return g->mem_rc;
    g->mem_tick = c->tick;
    return g->mem_rc = nvml_memory(g->h, &g->mem);
}

#define MIB(x) ((long long)((x) / 1048576ull))

UTIL_HOT void sampler_read_mem_total(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = fetch_mem(c);
    sampler_value_int(c->g, out, rc, MIB(c->g->mem.total));
}

UTIL_HOT void sampler_read_mem_used(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = fetch_mem(c);
    sampler_value_int(c->g, out, rc, MIB(c->g->mem.used));
}

UTIL_HOT void sampler_read_mem_free(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = fetch_mem(c);
    sampler_value_int(c->g, out, rc, MIB(c->g->mem.free));
}

UTIL_HOT void sampler_read_mem_reserved(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = fetch_mem(c);
    sampler_value_int(c->g, out, rc == NVML_SUCCESS && !c->g->mem.v2 ? NVML_ERROR_NOT_SUPPORTED : rc,
            MIB(c->g->mem.reserved));
}

/* ---- thermal, power, clocks ---- */

UTIL_HOT void sampler_read_temp(const struct read_ctx *c, struct value *out)
{
    if (nvml.nvmlDeviceGetTemperatureV) {
        nvmlTemperature_v1_t t = {nvmlTemperature_v1, NVML_TEMPERATURE_GPU, 0};
        nvmlReturn_t rc = nvml.nvmlDeviceGetTemperatureV(c->g->h, &t);
        if (rc == NVML_SUCCESS || !nvml_code_is_unsupported(rc) || !nvml.nvmlDeviceGetTemperature)
            return sampler_value_int(c->g, out, rc, t.temperature);
    }
    unsigned int v = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetTemperature ? nvml.nvmlDeviceGetTemperature(c->g->h, NVML_TEMPERATURE_GPU, &v)
                                                    : MISSING;
    sampler_value_int(c->g, out, rc, v);
}

UTIL_HOT void sampler_read_fan(const struct read_ctx *c, struct value *out)
{
    read_u32(c->g, out, nvml.nvmlDeviceGetFanSpeed, 1, false);
}

UTIL_HOT void sampler_read_power(const struct read_ctx *c, struct value *out)
{
    read_u32(c->g, out, nvml.nvmlDeviceGetPowerUsage, 0.001, true);
}

UTIL_HOT void sampler_read_power_limit(const struct read_ctx *c, struct value *out)
{
    read_u32(c->g, out, nvml.nvmlDeviceGetPowerManagementLimit, 0.001, true);
}

UTIL_HOT void sampler_read_power_enforced(const struct read_ctx *c, struct value *out)
{
    read_u32(c->g, out, nvml.nvmlDeviceGetEnforcedPowerLimit, 0.001, true);
}

UTIL_HOT void sampler_read_energy(const struct read_ctx *c, struct value *out)
{
    unsigned long long mj = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetTotalEnergyConsumption
                          ? nvml.nvmlDeviceGetTotalEnergyConsumption(c->g->h, &mj) : MISSING;
    sampler_value_float(c->g, out, rc, (double)mj / 1000.0);
}

UTIL_HOT void sampler_read_clock_sm(const struct read_ctx *c, struct value *out)
{
    read_clock(c->g, out, nvml.nvmlDeviceGetClockInfo, NVML_CLOCK_SM);
}

UTIL_HOT void sampler_read_clock_mem(const struct read_ctx *c, struct value *out)
{
    read_clock(c->g, out, nvml.nvmlDeviceGetClockInfo, NVML_CLOCK_MEM);
}

UTIL_HOT void sampler_read_clock_gr(const struct read_ctx *c, struct value *out)
{
    read_clock(c->g, out, nvml.nvmlDeviceGetClockInfo, NVML_CLOCK_GRAPHICS);
}

UTIL_HOT void sampler_read_clock_max_sm(const struct read_ctx *c, struct value *out)
{
    read_clock(c->g, out, nvml.nvmlDeviceGetMaxClockInfo, NVML_CLOCK_SM);
}

UTIL_HOT void sampler_read_clock_max_mem(const struct read_ctx *c, struct value *out)
{
    read_clock(c->g, out, nvml.nvmlDeviceGetMaxClockInfo, NVML_CLOCK_MEM);
}

UTIL_HOT void sampler_read_clock_max_gr(const struct read_ctx *c, struct value *out)
{
    read_clock(c->g, out, nvml.nvmlDeviceGetMaxClockInfo, NVML_CLOCK_GRAPHICS);
}

/* Clock event reasons: the Event call (535+) first, the Throttle call before it. */
UTIL_HOT static nvmlReturn_t fetch_reasons(const struct read_ctx *c)
{
    struct sampler_gpu *g = c->g;
    if (g->reasons_tick == c->tick)
        return g->reasons_rc;
    g->reasons_tick = c->tick;
    g->reasons = 0;
    nvmlReturn_t rc = MISSING;
    if (nvml.nvmlDeviceGetCurrentClocksEventReasons)
        rc = nvml.nvmlDeviceGetCurrentClocksEventReasons(g->h, &g->reasons);
    if ((rc == MISSING || nvml_code_is_unsupported(rc)) && nvml.nvmlDeviceGetCurrentClocksThrottleReasons)
        rc = nvml.nvmlDeviceGetCurrentClocksThrottleReasons(g->h, &g->reasons);
    return g->reasons_rc = rc;
}

UTIL_HOT void sampler_read_reasons(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = fetch_reasons(c);
    sampler_value_int(c->g, out, rc, (long long)c->g->reasons);
}

/* One reader for every reason row: the row's bit from clock_reasons.h. */
UTIL_HOT void sampler_read_reason(const struct read_ctx *c, struct value *out)
{
    static const unsigned long long bit_of[METRIC_COUNT] = {
#define READ_REASON_BIT(P, id, bit, ...) [M_R_##id] = bit,
        CLOCK_REASON_TABLE(READ_REASON_BIT, _)
#undef READ_REASON_BIT
    };
    if (!bit_of[c->id])
        return;
    nvmlReturn_t rc = fetch_reasons(c);
    sampler_value_int(c->g, out, rc, (c->g->reasons & bit_of[c->id]) != 0);
}

UTIL_HOT void sampler_read_pstate(const struct read_ctx *c, struct value *out)
{
    nvmlPstates_t p = NVML_PSTATE_UNKNOWN;
    nvmlReturn_t rc = nvml.nvmlDeviceGetPerformanceState ? nvml.nvmlDeviceGetPerformanceState(c->g->h, &p) : MISSING;
    if (rc == NVML_SUCCESS && (p < NVML_PSTATE_0 || p > NVML_PSTATE_15))
        rc = NVML_ERROR_NOT_SUPPORTED;   /* NVML_PSTATE_UNKNOWN */
    sampler_value_int(c->g, out, rc, p);
}

/* ---- PCIe ---- */

UTIL_HOT static void read_pcie_counter(const struct read_ctx *c, struct value *out, nvmlPcieUtilCounter_t counter)
{
    if (c->g->pcie.counters)
        return sampler_pcie_value(c, counter == NVML_PCIE_UTIL_TX_BYTES ? 0 : 1, out);
    unsigned int v = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetPcieThroughput ? nvml.nvmlDeviceGetPcieThroughput(c->g->h, counter, &v)
                                                       : MISSING;
    sampler_value_int(c->g, out, rc, v);
}

UTIL_HOT void sampler_read_pcie_tx(const struct read_ctx *c, struct value *out)
{
    read_pcie_counter(c, out, NVML_PCIE_UTIL_TX_BYTES);
}

UTIL_HOT void sampler_read_pcie_rx(const struct read_ctx *c, struct value *out)
{
    read_pcie_counter(c, out, NVML_PCIE_UTIL_RX_BYTES);
}

UTIL_HOT void sampler_read_pcie_gen(const struct read_ctx *c, struct value *out)
{
    read_u32(c->g, out, nvml.nvmlDeviceGetCurrPcieLinkGeneration, 1, false);
}

UTIL_HOT void sampler_read_pcie_gen_max(const struct read_ctx *c, struct value *out)
{
    read_u32(c->g, out, nvml.nvmlDeviceGetMaxPcieLinkGeneration, 1, false);
}

UTIL_HOT void sampler_read_pcie_width(const struct read_ctx *c, struct value *out)
{
    read_u32(c->g, out, nvml.nvmlDeviceGetCurrPcieLinkWidth, 1, false);
}

UTIL_HOT void sampler_read_pcie_width_max(const struct read_ctx *c, struct value *out)
{
    read_u32(c->g, out, nvml.nvmlDeviceGetMaxPcieLinkWidth, 1, false);
}

/* ---- reliability ---- */

UTIL_HOT void sampler_read_ecc_total(struct sampler_gpu *g, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
                            struct value *out)
{
    unsigned long long v = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetTotalEccErrors
                          ? nvml.nvmlDeviceGetTotalEccErrors(g->h, type, counter, &v) : MISSING;
    sampler_value_int(g, out, rc, (long long)v);
}

UTIL_HOT void sampler_read_ecc_corr(const struct read_ctx *c, struct value *out)
{
    sampler_read_ecc_total(c->g, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, out);
}
UTIL_HOT void sampler_read_ecc_uncorr(const struct read_ctx *c, struct value *out)
{
    sampler_read_ecc_total(c->g, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, out);
}

UTIL_HOT void sampler_read_retired_pending(const struct read_ctx *c, struct value *out)
{
    nvmlEnableState_t s = NVML_FEATURE_DISABLED;
    nvmlReturn_t rc = nvml.nvmlDeviceGetRetiredPagesPendingStatus
                          ? nvml.nvmlDeviceGetRetiredPagesPendingStatus(c->g->h, &s) : MISSING;
    sampler_value_int(c->g, out, rc, s == NVML_FEATURE_ENABLED);
}

UTIL_HOT nvmlReturn_t sampler_fetch_remap(struct sampler_gpu *g, uint64_t tick)
{
    if (tick && g->remap_tick == tick)
        return g->remap_rc;
    g->remap_tick = tick;
    memset(g->remap, 0, sizeof g->remap);
    return g->remap_rc = nvml.nvmlDeviceGetRemappedRows
                             ? nvml.nvmlDeviceGetRemappedRows(g->h, &g->remap[0], &g->remap[1], &g->remap[2],
                                                              &g->remap[3])
                             : MISSING;
}

UTIL_HOT void sampler_read_remap_pending(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = sampler_fetch_remap(c->g, c->tick);
    sampler_value_int(c->g, out, rc, c->g->remap[2] != 0);
}

/* ---- processes ---- */

/* Orders processes by memory, largest first (unknown memory last). */
UTIL_HOT static int proc_by_memory(const void *a, const void *b)
{
    unsigned long long ma = ((const struct nvml_process *)a)->used_memory;
    unsigned long long mb = ((const struct nvml_process *)b)->used_memory;
    ma = ma == NVML_VALUE_NOT_AVAILABLE ? 0 : ma;
    mb = mb == NVML_VALUE_NOT_AVAILABLE ? 0 : mb;
    return ma < mb ? 1 : ma > mb ? -1 : 0;
}

/* Every process NVML lists, once per tick; more than a record lists are
 * ordered largest first, so the record keeps those that matter most. */
UTIL_HOT static nvmlReturn_t fetch_procs(const struct read_ctx *c)
{
    struct sampler_gpu *g = c->g;
    if (g->proc_tick != c->tick) {
        g->proc_tick = c->tick;
        g->proc_rc = nvml_processes(g->h, &g->procs, &g->proc_cap, &g->nprocs);
        if (g->proc_rc != NVML_SUCCESS)
            g->nprocs = 0;
        if (g->nprocs > RECORD_MAX_PROCS)
            qsort(g->procs, g->nprocs, sizeof *g->procs, proc_by_memory);
    }
    return g->proc_rc;
}

UTIL_HOT void sampler_read_proc_count(const struct read_ctx *c, struct value *out)
{
    nvmlReturn_t rc = fetch_procs(c);
    sampler_value_int(c->g, out, rc, c->g->nprocs);
}

UTIL_HOT void sampler_read_proc_mem(const struct read_ctx *c, struct value *out)
{
    unsigned long long sum = 0;
    nvmlReturn_t rc = fetch_procs(c);
    for (unsigned i = 0; i < c->g->nprocs; i++)
        if (c->g->procs[i].used_memory != NVML_VALUE_NOT_AVAILABLE)
            sum += c->g->procs[i].used_memory;
    sampler_value_int(c->g, out, rc, MIB(sum));
}

/* The process's name (NVML) and owner, container and pod (/proc, host_attrib.c), read when the pid in
 * this slot changes; whether it is a notebook's kernel or an inference server by its command line, else by
 * that name, worked out with them, not at every sample. */
UTIL_HOT static const char *proc_name(struct sampler_gpu *g, unsigned slot, unsigned pid)
{
    if (g->pname[slot].pid == pid && g->pname[slot].name[0])
        return g->pname[slot].name;
    struct host_attrib *w = &g->pname[slot].who;
    if (g->pname[slot].pid != pid)   /* /proc once per process, even while NVML has no name for it */
        host_attrib_read(NULL, (int)pid, w);
    g->pname[slot].pid = pid;
    sampler_process_name(pid, g->pname[slot].name, sizeof g->pname[slot].name);
    w->notebook = w->notebook || host_is_notebook_command(g->pname[slot].name);
    w->server = w->server || host_is_server_command(g->pname[slot].name);
    return g->pname[slot].name;
}

UTIL_HOT void sampler_read_processes(const struct read_ctx *c, struct record_gpu *rg)
{
    struct sampler_gpu *g = c->g;
    rg->nprocs = rg->procs_omitted = 0;
    if (fetch_procs(c) != NVML_SUCCESS)
        return;
    unsigned listed = g->nprocs < RECORD_MAX_PROCS ? g->nprocs : RECORD_MAX_PROCS;
    rg->procs_omitted = g->nprocs - listed;
    for (unsigned i = 0; i < listed; i++) {
        struct record_proc *p = &rg->procs[rg->nprocs++];
        p->pid = g->procs[i].pid;
        p->kinds = (unsigned char)g->procs[i].kinds;
        p->used_mib = g->procs[i].used_memory == NVML_VALUE_NOT_AVAILABLE ? -1 : MIB(g->procs[i].used_memory);
        snprintf(p->name, sizeof p->name, "%s", proc_name(g, i, p->pid));
        const struct host_attrib *w = &g->pname[i].who;
        p->notebook = w->notebook;
        p->server = w->server;
        snprintf(p->user, sizeof p->user, "%s", w->user);
        snprintf(p->pod, sizeof p->pod, "%s", w->pod);
        if (w->container_id[0])
            snprintf(p->container, sizeof p->container, "%s://%s", w->runtime[0] ? w->runtime : "container",
                     w->container_id);
        else
            p->container[0] = '\0';
    }
}

UTIL_HOT void sampler_gpu_free(struct sampler_gpu *g)
{
    free(g->sbuf);
    g->sbuf = NULL;
    g->scap = 0;
    free(g->procs);
    g->procs = NULL;
    g->nprocs = g->proc_cap = 0;
    free(g->putil_buf);
    g->putil_buf = NULL;
    g->putil_cap = 0;
    sampler_gpu_migs_free(g);
}
