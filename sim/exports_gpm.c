/*
 * exports_gpm.c: GPM (GPU performance metrics): support query, sample
 * alloc/free/get, metrics over a pair of samples.
 *
 * As docs/nvml-facts.md §23 has it: both structs take the raw version 1 (the
 * size|ver word answers 25), boards before Hopper answer the support query
 * with isSupportedDevice 0 and their SampleGet with 3, a scenario's
 * "unsupported gpm" / "no_permission gpm" answers 3 / 4 everywhere, and
 * the legacy-470 variant lacks the symbols. numMetrics above the driver's
 * NVML_GPM_METRIC_MAX (98 for 535.43, 333 otherwise) or 0 is 2.
 * The 100 ms rule: samples taken less than 100 ms apart (wall time)
 * succeed with meaningless values, as the driver does, which here are the
 * true mean scrambled (0.1x-0.7x or 1.5x-3x, per pair), so a client that ignores the
 * rule shows numbers that tests catch. Ids the model lacks (NVDEC, per-link
 * NVLink) answer 3 in their entry. Samples are static slots (a handle is a
 * stable, checkable address), dropped at the final nvmlShutdown.
 */
#include "sim_exports.h"
#include "sim_model.h"
#include "sim_signal.h"

#include <limits.h>
#include <string.h>

#define GPM_MIN_PAIR_US 100000LL

static nvmlReturn_t gpm_device_supported(unsigned int gpu)
{
    return sim_scenario_gpu_has_gpm(&sim_state.sc->gpus[gpu]) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_GPM, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!gpmSupport)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (gpmSupport->version != NVML_GPM_SUPPORT_VERSION)
        return sim_leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    gpmSupport->isSupportedDevice = gpm_device_supported(gpu) == NVML_SUCCESS;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample)
{
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!gpmSample)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < SIM_MAX_GPM_SAMPLES; i++) {
        if (sim_state.gpm[i].used)
            continue;
        memset(&sim_state.gpm[i], 0, sizeof(sim_state.gpm[i]));
        sim_state.gpm[i].used = 1;
        *gpmSample = &sim_state.gpm[i];
        return sim_leave(NVML_SUCCESS);
    }
    return sim_leave(NVML_ERROR_MEMORY);
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample)
{
    struct nvmlGpmSample_st *s;
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!(s = sim_state_gpm_sample(gpmSample)))
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    memset(s, 0, sizeof(*s));
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample)
{
    struct nvmlGpmSample_st *s;
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_GPM, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!(s = sim_state_gpm_sample(gpmSample)))
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if ((rc = gpm_device_supported(gpu)) != NVML_SUCCESS)
        return sim_leave(rc);
    s->taken = 1;
    s->gpu = gpu;
    s->t_us = now;
    s->mono_us = sim_state_mono_us();
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet)
{
    const struct nvmlGpmSample_st *a, *b;
    unsigned int max = sim_profile == SIM_PROFILE_R535_43 ? NVML_GPM_METRIC_MAX_R520 : NVML_GPM_METRIC_MAX;
    double scramble = 1.0;
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!metricsGet)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (metricsGet->version != NVML_GPM_METRICS_GET_VERSION)
        return sim_leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (metricsGet->numMetrics == 0 || metricsGet->numMetrics > max)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    a = sim_state_gpm_sample(metricsGet->sample1);
    b = sim_state_gpm_sample(metricsGet->sample2);
    if (!a || !b || !a->taken || !b->taken || a->gpu != b->gpu || b->t_us < a->t_us)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (sim_state_gpu_lost(a->gpu, sim_state_now_us()))
        return sim_leave(NVML_ERROR_GPU_IS_LOST);
    if (b->mono_us - a->mono_us < GPM_MIN_PAIR_US) {   /* far from the truth either way: 0.1-0.7x or 1.5-3x */
        unsigned long long h = sim_signal_hash(sim_state.sc->seed, a->gpu, 0x6d, (unsigned long long)b->mono_us);
        double u = (double)(h % 1000u) / 999.0;
        scramble = h & 0x100000u ? 0.1 + 0.6 * u : 1.5 + 1.5 * u;
    }
    unsigned int ids[NVML_GPM_METRIC_MAX];
    double values[NVML_GPM_METRIC_MAX];
    for (unsigned int i = 0; i < metricsGet->numMetrics; i++)   /* an id past max: not modelled (UINT_MAX) */
        ids[i] = metricsGet->metrics[i].metricId < max ? metricsGet->metrics[i].metricId : UINT_MAX;
    sim_model_gpm(a->gpu, ids, metricsGet->numMetrics, a->t_us, b->t_us, values);
    for (unsigned int i = 0; i < metricsGet->numMetrics; i++) {
        nvmlGpmMetric_t *m = &metricsGet->metrics[i];
        double v = values[i];

        m->metricInfo.shortName = m->metricInfo.longName = m->metricInfo.unit = NULL;
        if (v < 0) {
            m->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            m->value = 0.0;
            continue;
        }
        m->nvmlReturn = NVML_SUCCESS;
        m->value = v * scramble;
    }
    return sim_leave(NVML_SUCCESS);
}
