/*
 * sampler_attr.c: the readers of gpu_attr.h's rows, the values only gpumon
 * as nvidia-smi shows. Each row names its reader; a reader fills every row
 * that names it from one NVML call (PCI info, the power limit range, the
 * driver model, ECC mode, MIG mode, remapped rows, BAR1), and is called at
 * most once per request. Values get their state exactly as the metric
 * readers give it (sampler_value_fail: unsupported, error with NVML's code,
 * or lost, which also marks the GPU lost). A reading that a metric row
 * makes too goes through that one reader (sampler_read.c: ECC totals, the
 * clocks, remapped rows; the PCI info is identity's, read at open). GA_ONCE
 * rows are read on the first request that wants them and kept in the
 * sampler's GPU; GA_SAMPLE rows on every request. Readers never print.
 */
#include <stdio.h>
#include <string.h>
#include "sampler_int.h"

#define MISSING NVML_ERROR_FUNCTION_NOT_FOUND

/* What one request reads from: the GPU (a whole GPU or a MIG device) and the sampler's tick. */
struct attr_ctx {
    struct sampler_gpu *g;
    uint64_t tick;
};

/* A reader fills its rows of v (indexed by enum gpu_attr_id). */
typedef void attr_reader(const struct attr_ctx *c, struct value *v);

#define ATTR_READER_DECL(id, cad, reader) static attr_reader attr_read_##reader;
GPU_ATTR_TABLE(ATTR_READER_DECL)
#undef ATTR_READER_DECL

static const struct {
    enum gpu_attr_cadence cadence;
    attr_reader *read;
} attr_rows[GA_COUNT] = {
#define ATTR_ROW(id, cad, reader) [GA_##id] = {cad, attr_read_##reader},
    GPU_ATTR_TABLE(ATTR_ROW)
#undef ATTR_ROW
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

static void attr_read_enable(struct sampler_gpu *g, struct value *out,
                             nvmlReturn_t (*fn)(nvmlDevice_t, nvmlEnableState_t *))
{
    nvmlEnableState_t s = NVML_FEATURE_DISABLED;
    nvmlReturn_t rc = fn ? fn(g->h, &s) : MISSING;
    sampler_value_int(g, out, rc, s == NVML_FEATURE_ENABLED);
}

static void attr_read_u32(struct sampler_gpu *g, struct value *out, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *))
{
    unsigned int v = 0;
    nvmlReturn_t rc = fn ? fn(g->h, &v) : MISSING;
    sampler_value_int(g, out, rc, v);
}

/* ---- read once: facts of the board, its VBIOS, a MIG device's instances ---- */

static void attr_read_pci(const struct attr_ctx *c, struct value *v)   /* identity's reading */
{
    const nvmlPciInfo_t *p = &c->g->pci_info;
    nvmlReturn_t rc = c->g->pci_rc;
    sampler_value_int(c->g, &v[GA_PCI_DOMAIN], rc, p->domain);
    sampler_value_int(c->g, &v[GA_PCI_BUS], rc, p->bus);
    sampler_value_int(c->g, &v[GA_PCI_DEVICE], rc, p->device);
    sampler_value_int(c->g, &v[GA_PCI_DEVICE_ID], rc, p->pciDeviceId);
    sampler_value_int(c->g, &v[GA_PCI_SUBSYS_ID], rc, p->pciSubSystemId);
}

static void attr_read_vbios(const struct attr_ctx *c, struct value *v)
{
    struct sampler_gpu *g = c->g;
    nvmlReturn_t rc = nvml.nvmlDeviceGetVbiosVersion ? nvml.nvmlDeviceGetVbiosVersion(g->h, g->vbios, sizeof g->vbios)
                                                     : MISSING;
    g->vbios[sizeof g->vbios - 1] = '\0';
    attr_str(g, &v[GA_VBIOS], rc, g->vbios);
}

static void attr_read_compute_cap(const struct attr_ctx *c, struct value *v)
{
    struct sampler_gpu *g = c->g;
    int major = 0, minor = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetCudaComputeCapability
                          ? nvml.nvmlDeviceGetCudaComputeCapability(g->h, &major, &minor) : MISSING;
    snprintf(g->compute_cap, sizeof g->compute_cap, "%d.%d", major, minor);
    attr_str(g, &v[GA_COMPUTE_CAP], rc, g->compute_cap);
}

static void attr_read_reasons_supported(const struct attr_ctx *c, struct value *v)
{
    unsigned long long mask = 0;
    nvmlReturn_t rc =
        nvml.nvmlDeviceGetSupportedClocksEventReasons ? nvml.nvmlDeviceGetSupportedClocksEventReasons(c->g->h, &mask)
        : nvml.nvmlDeviceGetSupportedClocksThrottleReasons
            ? nvml.nvmlDeviceGetSupportedClocksThrottleReasons(c->g->h, &mask)
            : MISSING;
    sampler_value_int(c->g, &v[GA_REASONS_SUPPORTED], rc, (long long)mask);
}

static void attr_read_power_default(const struct attr_ctx *c, struct value *v)
{
    unsigned int def = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetPowerManagementDefaultLimit
                          ? nvml.nvmlDeviceGetPowerManagementDefaultLimit(c->g->h, &def) : MISSING;
    sampler_value_float(c->g, &v[GA_POWER_DEFAULT], rc, def / 1000.0);
}

static void attr_read_power_range(const struct attr_ctx *c, struct value *v)
{
    unsigned int lo = 0, hi = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetPowerManagementLimitConstraints
                          ? nvml.nvmlDeviceGetPowerManagementLimitConstraints(c->g->h, &lo, &hi) : MISSING;
    sampler_value_float(c->g, &v[GA_POWER_MIN], rc, lo / 1000.0);
    sampler_value_float(c->g, &v[GA_POWER_MAX], rc, hi / 1000.0);
}

static void attr_read_gpu_instance(const struct attr_ctx *c, struct value *v)
{
    attr_read_u32(c->g, &v[GA_GPU_INSTANCE], nvml.nvmlDeviceGetGpuInstanceId);
}

static void attr_read_compute_instance(const struct attr_ctx *c, struct value *v)
{
    attr_read_u32(c->g, &v[GA_COMPUTE_INSTANCE], nvml.nvmlDeviceGetComputeInstanceId);
}

/* ---- read at every request: modes, counts, readings ---- */

static void attr_read_display_mode(const struct attr_ctx *c, struct value *v)
{
    attr_read_enable(c->g, &v[GA_DISPLAY_ATTACHED], nvml.nvmlDeviceGetDisplayMode);
}

static void attr_read_display_active(const struct attr_ctx *c, struct value *v)
{
    attr_read_enable(c->g, &v[GA_DISPLAY_ACTIVE], nvml.nvmlDeviceGetDisplayActive);
}

static void attr_read_persistence(const struct attr_ctx *c, struct value *v)
{
    attr_read_enable(c->g, &v[GA_PERSISTENCE], nvml.nvmlDeviceGetPersistenceMode);
}

static void attr_read_driver_model(const struct attr_ctx *c, struct value *v)
{
    nvmlDriverModel_t cur = 0, pend = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetDriverModel_v2 ? nvml.nvmlDeviceGetDriverModel_v2(c->g->h, &cur, &pend)
                      : nvml.nvmlDeviceGetDriverModel  ? nvml.nvmlDeviceGetDriverModel(c->g->h, &cur, &pend)
                                                       : MISSING;
    sampler_value_int(c->g, &v[GA_DRIVER_MODEL], rc, cur);
    sampler_value_int(c->g, &v[GA_DRIVER_MODEL_PENDING], rc, pend);
}

static void attr_read_compute_mode(const struct attr_ctx *c, struct value *v)
{
    nvmlComputeMode_t mode = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetComputeMode ? nvml.nvmlDeviceGetComputeMode(c->g->h, &mode) : MISSING;
    sampler_value_int(c->g, &v[GA_COMPUTE_MODE], rc, mode);
}

static void attr_read_ecc_mode(const struct attr_ctx *c, struct value *v)
{
    nvmlEnableState_t cur = NVML_FEATURE_DISABLED, pend = NVML_FEATURE_DISABLED;
    nvmlReturn_t rc = nvml.nvmlDeviceGetEccMode ? nvml.nvmlDeviceGetEccMode(c->g->h, &cur, &pend) : MISSING;
    sampler_value_int(c->g, &v[GA_ECC_MODE], rc, cur == NVML_FEATURE_ENABLED);
    sampler_value_int(c->g, &v[GA_ECC_MODE_PENDING], rc, pend == NVML_FEATURE_ENABLED);
}

static void attr_read_mig_mode(const struct attr_ctx *c, struct value *v)
{
    unsigned int cur = 0, pend = 0;
    nvmlReturn_t rc = nvml.nvmlDeviceGetMigMode ? nvml.nvmlDeviceGetMigMode(c->g->h, &cur, &pend) : MISSING;
    sampler_value_int(c->g, &v[GA_MIG_MODE], rc, cur == NVML_DEVICE_MIG_ENABLE);
    sampler_value_int(c->g, &v[GA_MIG_MODE_PENDING], rc, pend == NVML_DEVICE_MIG_ENABLE);
}

static void attr_read_ecc_corr_agg(const struct attr_ctx *c, struct value *v)
{
    sampler_read_ecc_total(c->g, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &v[GA_ECC_CORR_AGG]);
}

static void attr_read_ecc_uncorr_agg(const struct attr_ctx *c, struct value *v)
{
    sampler_read_ecc_total(c->g, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &v[GA_ECC_UNCORR_AGG]);
}

static void attr_read_retired_sbe(const struct attr_ctx *c, struct value *v)
{
    attr_read_field(c->g, &v[GA_RETIRED_SBE], NVML_FI_DEV_RETIRED_SBE, false);
}

static void attr_read_retired_dbe(const struct attr_ctx *c, struct value *v)
{
    attr_read_field(c->g, &v[GA_RETIRED_DBE], NVML_FI_DEV_RETIRED_DBE, false);
}

static void attr_read_remap(const struct attr_ctx *c, struct value *v)   /* the remap_pending metric's reading */
{
    nvmlReturn_t rc = sampler_fetch_remap(c->g, c->tick);
    sampler_value_int(c->g, &v[GA_REMAP_COR], rc, c->g->remap[0]);
    sampler_value_int(c->g, &v[GA_REMAP_UNC], rc, c->g->remap[1]);
    sampler_value_int(c->g, &v[GA_REMAP_FAILURE], rc, c->g->remap[3] != 0);
}

static void attr_read_temp_memory(const struct attr_ctx *c, struct value *v)
{
    attr_read_field(c->g, &v[GA_TEMP_MEMORY], NVML_FI_DEV_MEMORY_TEMP, false);
}

static void attr_read_power_average(const struct attr_ctx *c, struct value *v)
{
    attr_read_field(c->g, &v[GA_POWER_AVERAGE], NVML_FI_DEV_POWER_AVERAGE, true);
}

static void attr_read_power_instant(const struct attr_ctx *c, struct value *v)
{
    attr_read_field(c->g, &v[GA_POWER_INSTANT], NVML_FI_DEV_POWER_INSTANT, true);
}

static void attr_read_clock_video(const struct attr_ctx *c, struct value *v)
{
    sampler_read_clock_now(c->g, NVML_CLOCK_VIDEO, &v[GA_CLOCK_VIDEO]);
}

static void attr_read_bar1(const struct attr_ctx *c, struct value *v)
{
    nvmlBAR1Memory_t m;
    memset(&m, 0, sizeof m);
    nvmlReturn_t rc = nvml.nvmlDeviceGetBAR1MemoryInfo ? nvml.nvmlDeviceGetBAR1MemoryInfo(c->g->h, &m) : MISSING;
    sampler_value_int(c->g, &v[GA_BAR1_USED], rc, (long long)(m.bar1Used / 1048576ull));
    sampler_value_int(c->g, &v[GA_BAR1_TOTAL], rc, (long long)(m.bar1Total / 1048576ull));
}

void sampler_attr_read(struct sampler_gpu *g, uint64_t tick, const bool want[GA_COUNT], struct gpu_attrs *out)
{
    const struct attr_ctx c = {g, tick};
    struct value now[GA_COUNT];
    bool filled[GA_COUNT] = {false};
    memset(now, 0, sizeof now);
    for (int a = 0; a < GA_COUNT; a++) {
        if (!want[a] || filled[a] || (attr_rows[a].cadence == GA_ONCE && g->attr_have[a]))
            continue;
        attr_rows[a].read(&c, now);
        for (int b = 0; b < GA_COUNT; b++) {
            if (attr_rows[b].read != attr_rows[a].read)
                continue;
            filled[b] = true;
            if (attr_rows[b].cadence == GA_ONCE) {
                g->attr[b] = now[b];
                g->attr_have[b] = true;
            }
        }
    }
    for (int a = 0; a < GA_COUNT; a++)
        out->v[a] = !want[a] ? (struct value){.state = VS_NONE}
                  : attr_rows[a].cadence == GA_ONCE ? g->attr[a] : now[a];
}
