/*
 * sampler_attr.c: the readers of gpu_attr.h's attributes, the per-GPU facts
 * only nvidia-smi's query mode shows. One reader per row, called through
 * one switch; each stores a value with its state exactly as the metric
 * readers do (sampler_value_fail: unsupported, error with NVML's code, or
 * lost, which also marks the GPU lost). GA_ONCE rows are read on the first
 * request and kept in the sampler's GPU; GA_SAMPLE rows on every request.
 * Calls that answer several rows (PCI info, ECC mode, MIG mode, the power
 * limit range, the driver model, remapped rows) are made once per request.
 * Readers never print.
 */
#include <stdio.h>
#include <string.h>
#include "sampler_int.h"

#define MISSING NVML_ERROR_FUNCTION_NOT_FOUND

static const enum gpu_attr_cadence attr_cadence[GA_COUNT] = {
#define ATTR_CADENCE(id, cad) [GA_##id] = cad,
    GPU_ATTR_TABLE(ATTR_CADENCE)
#undef ATTR_CADENCE
};

static void attr_str(struct sampler_gpu *g, struct value *out, nvmlReturn_t rc, const char *s)
{
    if (rc != NVML_SUCCESS)
        return sampler_value_fail(g, out, rc);
    *out = (struct value){.state = VS_OK, .u.s = s};
}

/* One field value: its own return code, an integer (uiVal or ullVal by type). */
static nvmlReturn_t attr_field(struct sampler_gpu *g, unsigned int id, unsigned long long *v)
{
    nvmlFieldValue_t f;
    memset(&f, 0, sizeof f);
    f.fieldId = id;
    nvmlReturn_t rc = nvml.nvmlDeviceGetFieldValues ? nvml.nvmlDeviceGetFieldValues(g->h, 1, &f) : MISSING;
    if (rc != NVML_SUCCESS)
        return rc;
    if (f.nvmlReturn != NVML_SUCCESS)
        return f.nvmlReturn;
    switch (f.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *v = f.value.ullVal; break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: *v = f.value.ulVal; break;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *v = (unsigned long long)f.value.sllVal; break;
    case NVML_VALUE_TYPE_SIGNED_INT: *v = (unsigned long long)f.value.siVal; break;
    default: *v = f.value.uiVal; break;
    }
    return NVML_SUCCESS;
}

static void attr_read_field(struct sampler_gpu *g, struct value *out, unsigned int id, bool watts)
{
    unsigned long long v = 0;
    nvmlReturn_t rc = attr_field(g, id, &v);
    if (watts)
        sampler_value_float(g, out, rc, ((unsigned int)v) / 1000.0);
    else
        sampler_value_int(g, out, rc, (long long)v);
}

static void attr_read_pci(struct sampler_gpu *g, struct value *v)
{
    nvmlPciInfo_t p;
    nvmlReturn_t rc = nvml_pci_info(g->h, &p);
    sampler_value_int(g, &v[GA_PCI_DOMAIN], rc, p.domain);
    sampler_value_int(g, &v[GA_PCI_BUS], rc, p.bus);
    sampler_value_int(g, &v[GA_PCI_DEVICE], rc, p.device);
    sampler_value_int(g, &v[GA_PCI_DEVICE_ID], rc, p.pciDeviceId);
    sampler_value_int(g, &v[GA_PCI_SUBSYS_ID], rc, p.pciSubSystemId);
}

static void attr_read_power_range(struct sampler_gpu *g, struct value *v)
{
    unsigned int lo = 0, hi = 0, def = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetPowerManagementLimitConstraints
                          ? nvml.nvmlDeviceGetPowerManagementLimitConstraints(g->h, &lo, &hi) : MISSING;
    sampler_value_float(g, &v[GA_POWER_MIN], rc, lo / 1000.0);
    sampler_value_float(g, &v[GA_POWER_MAX], rc, hi / 1000.0);
    rc = nvml.nvmlDeviceGetPowerManagementDefaultLimit ? nvml.nvmlDeviceGetPowerManagementDefaultLimit(g->h, &def)
                                                       : MISSING;
    sampler_value_float(g, &v[GA_POWER_DEFAULT], rc, def / 1000.0);
}

/* The rows read once: identity-like facts of the board and its VBIOS. */
static void attr_read_once(struct sampler_gpu *g)
{
    struct value *v = g->attr;
    attr_read_pci(g, v);
    nvmlReturn_t rc = nvml.nvmlDeviceGetVbiosVersion ? nvml.nvmlDeviceGetVbiosVersion(g->h, g->vbios, sizeof g->vbios)
                                                     : MISSING;
    g->vbios[sizeof g->vbios - 1] = '\0';
    attr_str(g, &v[GA_VBIOS], rc, g->vbios);
    int major = 0, minor = 0;
    rc = nvml.nvmlDeviceGetCudaComputeCapability ? nvml.nvmlDeviceGetCudaComputeCapability(g->h, &major, &minor)
                                                 : MISSING;
    snprintf(g->compute_cap, sizeof g->compute_cap, "%d.%d", major, minor);
    attr_str(g, &v[GA_COMPUTE_CAP], rc, g->compute_cap);
    unsigned long long mask = 0;
    rc = nvml.nvmlDeviceGetSupportedClocksEventReasons ? nvml.nvmlDeviceGetSupportedClocksEventReasons(g->h, &mask)
         : nvml.nvmlDeviceGetSupportedClocksThrottleReasons ? nvml.nvmlDeviceGetSupportedClocksThrottleReasons(g->h, &mask)
                                                            : MISSING;
    sampler_value_int(g, &v[GA_REASONS_SUPPORTED], rc, (long long)mask);
    attr_read_power_range(g, v);
    g->attr_once = true;
}

static void attr_read_enable(struct sampler_gpu *g, struct value *out, nvmlReturn_t (*fn)(nvmlDevice_t,
                                                                                        nvmlEnableState_t *))
{
    nvmlEnableState_t s = NVML_FEATURE_DISABLED;
    nvmlReturn_t rc = fn ? fn(g->h, &s) : MISSING;
    sampler_value_int(g, out, rc, s == NVML_FEATURE_ENABLED);
}

static void attr_read_sample(struct sampler_gpu *g, const bool *want, struct value *v)
{
    nvmlReturn_t rc;
    attr_read_enable(g, &v[GA_DISPLAY_ATTACHED], nvml.nvmlDeviceGetDisplayMode);
    attr_read_enable(g, &v[GA_DISPLAY_ACTIVE], nvml.nvmlDeviceGetDisplayActive);
    attr_read_enable(g, &v[GA_PERSISTENCE], nvml.nvmlDeviceGetPersistenceMode);
    if (want[GA_DRIVER_MODEL] || want[GA_DRIVER_MODEL_PENDING]) {
        nvmlDriverModel_t cur = 0, pend = 0;
        rc = nvml.nvmlDeviceGetDriverModel_v2 ? nvml.nvmlDeviceGetDriverModel_v2(g->h, &cur, &pend)
             : nvml.nvmlDeviceGetDriverModel ? nvml.nvmlDeviceGetDriverModel(g->h, &cur, &pend) : MISSING;
        sampler_value_int(g, &v[GA_DRIVER_MODEL], rc, cur);
        sampler_value_int(g, &v[GA_DRIVER_MODEL_PENDING], rc, pend);
    }
    nvmlComputeMode_t mode = 0;
    rc = nvml.nvmlDeviceGetComputeMode ? nvml.nvmlDeviceGetComputeMode(g->h, &mode) : MISSING;
    sampler_value_int(g, &v[GA_COMPUTE_MODE], rc, mode);
    if (want[GA_ECC_MODE] || want[GA_ECC_MODE_PENDING]) {
        nvmlEnableState_t cur = NVML_FEATURE_DISABLED, pend = NVML_FEATURE_DISABLED;
        rc = nvml.nvmlDeviceGetEccMode ? nvml.nvmlDeviceGetEccMode(g->h, &cur, &pend) : MISSING;
        sampler_value_int(g, &v[GA_ECC_MODE], rc, cur == NVML_FEATURE_ENABLED);
        sampler_value_int(g, &v[GA_ECC_MODE_PENDING], rc, pend == NVML_FEATURE_ENABLED);
    }
    if (want[GA_MIG_MODE] || want[GA_MIG_MODE_PENDING]) {
        unsigned int cur = 0, pend = 0;
        rc = nvml.nvmlDeviceGetMigMode ? nvml.nvmlDeviceGetMigMode(g->h, &cur, &pend) : MISSING;
        sampler_value_int(g, &v[GA_MIG_MODE], rc, cur == NVML_DEVICE_MIG_ENABLE);
        sampler_value_int(g, &v[GA_MIG_MODE_PENDING], rc, pend == NVML_DEVICE_MIG_ENABLE);
    }
    for (int unc = 0; unc < 2; unc++) {
        unsigned long long n = 0;
        if (!want[unc ? GA_ECC_UNCORR_AGG : GA_ECC_CORR_AGG])
            continue;
        rc = nvml.nvmlDeviceGetTotalEccErrors
                 ? nvml.nvmlDeviceGetTotalEccErrors(g->h, unc ? NVML_MEMORY_ERROR_TYPE_UNCORRECTED
                                                              : NVML_MEMORY_ERROR_TYPE_CORRECTED,
                                                    NVML_AGGREGATE_ECC, &n)
                 : MISSING;
        sampler_value_int(g, &v[unc ? GA_ECC_UNCORR_AGG : GA_ECC_CORR_AGG], rc, (long long)n);
    }
    if (want[GA_RETIRED_SBE])
        attr_read_field(g, &v[GA_RETIRED_SBE], NVML_FI_DEV_RETIRED_SBE, false);
    if (want[GA_RETIRED_DBE])
        attr_read_field(g, &v[GA_RETIRED_DBE], NVML_FI_DEV_RETIRED_DBE, false);
    if (want[GA_REMAP_COR] || want[GA_REMAP_UNC] || want[GA_REMAP_FAILURE]) {
        unsigned int corr = 0, unc = 0, pending = 0, failed = 0;
        rc = nvml.nvmlDeviceGetRemappedRows ? nvml.nvmlDeviceGetRemappedRows(g->h, &corr, &unc, &pending, &failed)
                                            : MISSING;
        sampler_value_int(g, &v[GA_REMAP_COR], rc, corr);
        sampler_value_int(g, &v[GA_REMAP_UNC], rc, unc);
        sampler_value_int(g, &v[GA_REMAP_FAILURE], rc, failed != 0);
    }
    if (want[GA_TEMP_MEMORY])
        attr_read_field(g, &v[GA_TEMP_MEMORY], NVML_FI_DEV_MEMORY_TEMP, false);
    if (want[GA_POWER_AVERAGE])
        attr_read_field(g, &v[GA_POWER_AVERAGE], NVML_FI_DEV_POWER_AVERAGE, true);
    if (want[GA_POWER_INSTANT])
        attr_read_field(g, &v[GA_POWER_INSTANT], NVML_FI_DEV_POWER_INSTANT, true);
    if (want[GA_CLOCK_VIDEO]) {
        unsigned int mhz = 0;
        rc = nvml.nvmlDeviceGetClockInfo ? nvml.nvmlDeviceGetClockInfo(g->h, NVML_CLOCK_VIDEO, &mhz) : MISSING;
        sampler_value_int(g, &v[GA_CLOCK_VIDEO], rc, mhz);
    }
}

void sampler_attr_read(struct sampler_gpu *g, const bool want[GA_COUNT], struct gpu_attrs *out)
{
    struct value now[GA_COUNT];
    memset(now, 0, sizeof now);
    if (!g->attr_once)
        attr_read_once(g);
    attr_read_sample(g, want, now);
    for (int a = 0; a < GA_COUNT; a++)
        out->v[a] = !want[a] ? (struct value){.state = VS_NONE} : attr_cadence[a] == GA_ONCE ? g->attr[a] : now[a];
}
