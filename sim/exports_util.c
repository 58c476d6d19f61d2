/*
 * exports_util.c: utilization rates, GetSamples, per-process utilization,
 * encoder/decoder utilization.
 *
 * All of them read the driver's sample ring (sim_model.c): sample k is
 * taken at scenario time k * sample_period and stamped in µs since the
 * epoch, strictly increasing. GetUtilizationRates is the mean of the
 * samples within 1 s of the newest one, and per-process smUtil splits that
 * same mean between the running processes by their util= shares (scaled
 * down when the shares add up to more than 100%), so the two agree.
 * Protocols follow docs/nvml-facts.md (§18, §17, §16): GetSamples sizes with a NULL buffer
 * (SUCCESS + count), ProcessUtilization with a NULL buffer (7 + a
 * capacity), and both answer 6 when nothing is newer than lastSeen.
 */
#include "sim_exports.h"
#include "sim_model.h"

#include <math.h>
#include <string.h>

#define UTIL_PROC_CAPACITY 100            /* what the sizing call announces */

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    unsigned int gpu;
    long long now, k_hi;
    nvmlUtilization_t u;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_UTILIZATION, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!utilization)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    u.gpu = sim_model_rate(gpu, NVML_GPU_UTILIZATION_SAMPLES, now, &k_hi);
    u.memory = sim_model_rate(gpu, NVML_MEMORY_UTILIZATION_SAMPLES, now, &k_hi);
    memcpy(utilization, &u, sizeof(u));
    return sim_leave(NVML_SUCCESS);
}

/* The family a sampling type also depends on; -1 for an invalid type, -2 unsupported. */
static int util_sample_family(int type)
{
    switch (type) {
    case NVML_TOTAL_POWER_SAMPLES:
        return SIM_F_POWER;
    case NVML_GPU_UTILIZATION_SAMPLES:
    case NVML_MEMORY_UTILIZATION_SAMPLES:
        return SIM_F_UTILIZATION;
    case NVML_ENC_UTILIZATION_SAMPLES:
        return SIM_F_ENCODER;
    case NVML_DEC_UTILIZATION_SAMPLES:
        return SIM_F_DECODER;
    case NVML_PROCESSOR_CLK_SAMPLES:
    case NVML_MEMORY_CLK_SAMPLES:
        return SIM_F_CLOCKS;
    case 7:                               /* MODULE_POWER: Grace Hopper only */
    case 8:                               /* JPG_UTILIZATION */
    case 9:                               /* OFA_UTILIZATION */
        return -2;
    default:
        return -1;
    }
}

/* First ring index whose timestamp is newer than last_seen. */
static long long util_first_newer(unsigned long long last_seen, long long k_lo)
{
    long long e0 = sim_state_epoch_us(0), k;

    if (last_seen > (unsigned long long)9e18)
        return 0x7fffffffffffffffLL;
    if ((long long)last_seen < e0)
        return k_lo;
    k = ((long long)last_seen - e0) / sim_state.period_us + 1;
    return k > k_lo ? k : k_lo;
}

nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type,
                                  unsigned long long lastSeenTimeStamp, nvmlValueType_t *sampleValType,
                                  unsigned int *sampleCount, nvmlSample_t *samples)
{
    unsigned int gpu, n;
    long long now, k_lo, k_hi, k_min, avail;
    int fam = util_sample_family(type);
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_SAMPLES, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (fam == -1 || !sampleValType || !sampleCount || (samples && *sampleCount == 0))
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (fam == -2)
        return sim_leave(NVML_ERROR_NOT_SUPPORTED);
    rc = sim_state_family(gpu, fam, now);
    if (rc != NVML_SUCCESS)
        return sim_leave(rc);
    sim_model_ring(now, &k_lo, &k_hi);
    k_min = util_first_newer(lastSeenTimeStamp, k_lo);
    avail = k_min <= k_hi ? k_hi - k_min + 1 : 0;
    if (avail == 0)
        return sim_leave(NVML_ERROR_NOT_FOUND);
    *sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
    if (!samples) {
        *sampleCount = (unsigned int)avail;
        return sim_leave(NVML_SUCCESS);
    }
    n = *sampleCount < (unsigned long long)avail ? *sampleCount : (unsigned int)avail;
    for (unsigned int i = 0; i < n; i++) {
        long long k = k_hi - n + 1 + i;
        nvmlSample_t s;
        memset(&s, 0, sizeof(s));
        s.timeStamp = sim_model_sample_ts(k);
        s.sampleValue.uiVal = sim_model_sample(gpu, type, k);
        memcpy(&samples[i], &s, sizeof(s));
    }
    *sampleCount = n;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization,
                                             unsigned int *processSamplesCount,
                                             unsigned long long lastSeenTimeStamp)
{
    const struct sim_gpu *g;
    unsigned int gpu, busy = 0, rate[4];
    long long now, k_hi;
    double shares = 0.0;
    unsigned long long ts;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_PROCESS_UTILIZATION, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!processSamplesCount)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (!utilization) {
        *processSamplesCount = UTIL_PROC_CAPACITY;
        return sim_leave(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    g = &sim_state.sc->gpus[gpu];
    rate[0] = sim_model_rate(gpu, NVML_GPU_UTILIZATION_SAMPLES, now, &k_hi);
    rate[1] = sim_model_rate(gpu, NVML_MEMORY_UTILIZATION_SAMPLES, now, &k_hi);
    rate[2] = sim_model_rate(gpu, NVML_ENC_UTILIZATION_SAMPLES, now, &k_hi);
    rate[3] = sim_model_rate(gpu, NVML_DEC_UTILIZATION_SAMPLES, now, &k_hi);
    ts = sim_model_sample_ts(k_hi);
    for (size_t i = 0; i < g->nprocs; i++)
        if (sim_model_proc_running(gpu, i, now))
            shares += g->procs[i].share;
    shares = shares > 1.0 ? shares : 1.0;
    for (int pass = 0; pass < 2; pass++) {
        unsigned int n = 0;
        for (size_t i = 0; i < g->nprocs; i++) {
            nvmlProcessUtilizationSample_t s;
            double f = g->procs[i].share / shares;
            if (!sim_model_proc_running(gpu, i, now))
                continue;
            memset(&s, 0, sizeof(s));
            s.pid = g->procs[i].pid;
            s.timeStamp = ts;
            s.smUtil = (unsigned int)lround(rate[0] * f);
            s.memUtil = (unsigned int)lround(rate[1] * f);
            s.encUtil = (unsigned int)lround(rate[2] * f);
            s.decUtil = (unsigned int)lround(rate[3] * f);
            if (!s.smUtil && !s.memUtil && !s.encUtil && !s.decUtil)
                continue;                 /* only busy processes appear */
            if (pass == 1)
                memcpy(&utilization[n], &s, sizeof(s));
            n++;
        }
        if (pass == 0) {
            busy = n;
            if (busy == 0 || ts <= lastSeenTimeStamp)
                return sim_leave(NVML_ERROR_NOT_FOUND);
            if (*processSamplesCount < busy) {
                *processSamplesCount = busy;
                return sim_leave(NVML_ERROR_INSUFFICIENT_SIZE);
            }
        }
    }
    *processSamplesCount = busy;
    return sim_leave(NVML_SUCCESS);
}

static nvmlReturn_t util_codec(const char *func, nvmlDevice_t device, int family, enum sim_metric m,
                               unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, family, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!utilization || !samplingPeriodUs)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *utilization = (unsigned int)llround(sim_model_metric(gpu, m, now));
    *samplingPeriodUs = (unsigned int)sim_state.period_us;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs)
{
    return util_codec(__func__, device, SIM_F_ENCODER, SIM_M_ENCODER, utilization, samplingPeriodUs);
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs)
{
    return util_codec(__func__, device, SIM_F_DECODER, SIM_M_DECODER, utilization, samplingPeriodUs);
}
