/*
 * exports_fields.c: nvmlDeviceGetFieldValues (docs/nvml-facts.md §19).
 *
 * One table maps each field id the simulator knows to the family that can
 * switch it off, the first driver profile that has it, its value type and
 * a reader. Every entry of the caller's array is answered on its own: its
 * timestamp (µs since the epoch, the scenario's now), latencyUsec (0),
 * valueType and nvmlReturn are always written, the value only on success.
 * An unknown id, or one newer than the library's driver profile, is 3 in
 * that entry, never a failed call; a family the scenario marks unsupported
 * or forbidden is 3 or 4 per entry; the call itself fails only for a bad
 * handle, a NULL array or a negative count (2), before init (1) and on a
 * lost GPU (15). NVLink throughput counters are KiB since scenario time 0,
 * integrated from gpm.nvlink.tx/rx and shared evenly by the links (scopeId
 * picks a link, UINT_MAX sums them; raw counts add 1/16 of protocol
 * overhead); PCIe byte counters integrate pcie.tx/rx. Who needs it:
 *   nvitop (nvidia-ml-py)   NVLINK_LINK_COUNT (91) at start-up,
 *                           NVLINK_THROUGHPUT_DATA_TX/RX (138/139) per link
 *                           on every refresh of its NVLink bars
 *   exporters on NVML       POWER_INSTANT/AVERAGE (186/185), ENERGY (191),
 *                           the ECC, retired-page and remapped-row counters
 */
#include "sim_exports.h"
#include "sim_model.h"

#include <math.h>
#include <string.h>

typedef nvmlReturn_t (*fields_reader)(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v);

struct fields_row {
    unsigned int id;                /* NVML_FI_* */
    int since;                      /* first driver profile with it: 0 all, 535 or 555 (newer only) */
    int family;                     /* sim_family, or SIM_F_ALWAYS */
    nvmlValueType_t type;
    fields_reader read;
};

static nvmlReturn_t fields_ecc_mode(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)now;
    (void)scope;
    v->uiVal = sim_state.sc->gpus[gpu].ecc_enabled ? 1u : 0u;
    return NVML_SUCCESS;
}

static nvmlReturn_t fields_ecc_count(unsigned int gpu, long long now, int uncorrected, nvmlValue_t *v)
{
    if (!sim_state.sc->gpus[gpu].ecc_enabled)
        return NVML_ERROR_NOT_SUPPORTED;
    v->ullVal = sim_model_ecc(gpu, uncorrected, now);
    return NVML_SUCCESS;
}

static nvmlReturn_t fields_ecc_sbe(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)scope;
    return fields_ecc_count(gpu, now, 0, v);
}

static nvmlReturn_t fields_ecc_dbe(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)scope;
    return fields_ecc_count(gpu, now, 1, v);
}

static nvmlReturn_t fields_zero(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)gpu;
    (void)now;
    (void)scope;
    v->ullVal = 0;                  /* no page retirements or PCIe replays are modelled */
    return NVML_SUCCESS;
}

/* A 0/1 or count signal of the metric table, rounded. */
static nvmlReturn_t fields_signal(unsigned int gpu, long long now, enum sim_metric m, nvmlValue_t *v)
{
    v->uiVal = (unsigned int)llround(sim_model_metric(gpu, m, now));
    return NVML_SUCCESS;
}

#define FIELDS_SIGNAL_READER(fn, metric) \
    static nvmlReturn_t fn(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v) \
    { \
        (void)scope; \
        return fields_signal(gpu, now, metric, v); \
    }
FIELDS_SIGNAL_READER(fields_retired_pending, SIM_M_RETIRED_PENDING)
FIELDS_SIGNAL_READER(fields_remap_cor, SIM_M_REMAP_CORRECTED)
FIELDS_SIGNAL_READER(fields_remap_unc, SIM_M_REMAP_UNCORRECTED)
FIELDS_SIGNAL_READER(fields_remap_pending, SIM_M_REMAP_PENDING)
FIELDS_SIGNAL_READER(fields_remap_failure, SIM_M_REMAP_FAILURE)
#undef FIELDS_SIGNAL_READER

static nvmlReturn_t fields_energy(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)scope;
    v->ullVal = sim_model_energy_mj(gpu, now);
    return NVML_SUCCESS;
}

static nvmlReturn_t fields_nvlink_count(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)now;
    (void)scope;
    v->uiVal = sim_state.sc->gpus[gpu].nvlinks;
    return NVML_SUCCESS;
}

/* KiB through one link (scope) or all (UINT_MAX); raw adds 1/16 of protocol overhead. */
static nvmlReturn_t fields_nvlink(unsigned int gpu, long long now, unsigned int scope, enum sim_counter c, int raw,
                                  nvmlValue_t *v)
{
    unsigned int links = sim_state.sc->gpus[gpu].nvlinks;
    unsigned long long kib;

    if (links == 0)
        return NVML_ERROR_NOT_SUPPORTED;
    if (scope != NVML_FI_SCOPE_ALL_LINKS && scope >= links)
        return NVML_ERROR_INVALID_ARGUMENT;
    kib = sim_model_counter(gpu, c, now);
    if (raw)
        kib += kib / 16;
    v->ullVal = scope == NVML_FI_SCOPE_ALL_LINKS ? kib : kib / links;
    return NVML_SUCCESS;
}

#define FIELDS_NVLINK_READER(fn, counter, raw) \
    static nvmlReturn_t fn(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v) \
    { \
        return fields_nvlink(gpu, now, scope, counter, raw, v); \
    }
FIELDS_NVLINK_READER(fields_nvlink_data_tx, SIM_C_NVLINK_TX, 0)
FIELDS_NVLINK_READER(fields_nvlink_data_rx, SIM_C_NVLINK_RX, 0)
FIELDS_NVLINK_READER(fields_nvlink_raw_tx, SIM_C_NVLINK_TX, 1)
FIELDS_NVLINK_READER(fields_nvlink_raw_rx, SIM_C_NVLINK_RX, 1)
#undef FIELDS_NVLINK_READER

static nvmlReturn_t fields_pcie_tx(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)scope;
    v->ullVal = sim_model_counter(gpu, SIM_C_PCIE_TX, now);
    return NVML_SUCCESS;
}

static nvmlReturn_t fields_pcie_rx(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)scope;
    v->ullVal = sim_model_counter(gpu, SIM_C_PCIE_RX, now);
    return NVML_SUCCESS;
}

static nvmlReturn_t fields_power_average(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    long long k_hi;

    (void)scope;
    v->uiVal = sim_model_rate(gpu, NVML_TOTAL_POWER_SAMPLES, now, &k_hi);   /* the last second of samples */
    return NVML_SUCCESS;
}

static nvmlReturn_t fields_power_instant(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v)
{
    (void)scope;
    v->uiVal = sim_model_power_mw(gpu, now);
    return NVML_SUCCESS;
}

/* The power limits in mW: which = 0 min, 1 max, 2 default and requested, 3 enforced. */
static nvmlReturn_t fields_limit(unsigned int gpu, int which, nvmlValue_t *v)
{
    unsigned int lo, hi;

    sim_model_power_range(gpu, &lo, &hi);
    v->uiVal = which == 0 ? lo : which == 3 ? sim_state.sc->gpus[gpu].enforced_limit_mw
                                           : which == 1 ? hi : sim_state.sc->gpus[gpu].power_limit_mw;
    return NVML_SUCCESS;
}

#define FIELDS_LIMIT_READER(fn, which) \
    static nvmlReturn_t fn(unsigned int gpu, long long now, unsigned int scope, nvmlValue_t *v) \
    { \
        (void)now; \
        (void)scope; \
        return fields_limit(gpu, which, v); \
    }
FIELDS_LIMIT_READER(fields_limit_min, 0)
FIELDS_LIMIT_READER(fields_limit_max, 1)
FIELDS_LIMIT_READER(fields_limit_default, 2)
FIELDS_LIMIT_READER(fields_limit_current, 3)
#undef FIELDS_LIMIT_READER

#define UI NVML_VALUE_TYPE_UNSIGNED_INT
#define ULL NVML_VALUE_TYPE_UNSIGNED_LONG_LONG
static const struct fields_row fields_table[] = {
    { NVML_FI_DEV_ECC_CURRENT, 0, SIM_F_ECC, UI, fields_ecc_mode },
    { NVML_FI_DEV_ECC_PENDING, 0, SIM_F_ECC, UI, fields_ecc_mode },
    { NVML_FI_DEV_ECC_SBE_VOL_TOTAL, 0, SIM_F_ECC, ULL, fields_ecc_sbe },
    { NVML_FI_DEV_ECC_DBE_VOL_TOTAL, 0, SIM_F_ECC, ULL, fields_ecc_dbe },
    { NVML_FI_DEV_ECC_SBE_AGG_TOTAL, 0, SIM_F_ECC, ULL, fields_ecc_sbe },
    { NVML_FI_DEV_ECC_DBE_AGG_TOTAL, 0, SIM_F_ECC, ULL, fields_ecc_dbe },
    { NVML_FI_DEV_RETIRED_SBE, 0, SIM_F_RETIRED_PAGES, ULL, fields_zero },
    { NVML_FI_DEV_RETIRED_DBE, 0, SIM_F_RETIRED_PAGES, ULL, fields_zero },
    { NVML_FI_DEV_RETIRED_PENDING, 0, SIM_F_RETIRED_PAGES, UI, fields_retired_pending },
    { NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, 0, SIM_F_ENERGY, ULL, fields_energy },
    { NVML_FI_DEV_NVLINK_LINK_COUNT, 0, SIM_F_ALWAYS, UI, fields_nvlink_count },
    { NVML_FI_DEV_PCIE_REPLAY_COUNTER, 0, SIM_F_PCIE_LINK, ULL, fields_zero },
    { NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 0, SIM_F_ALWAYS, ULL, fields_nvlink_data_tx },
    { NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, 0, SIM_F_ALWAYS, ULL, fields_nvlink_data_rx },
    { NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX, 0, SIM_F_ALWAYS, ULL, fields_nvlink_raw_tx },
    { NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX, 0, SIM_F_ALWAYS, ULL, fields_nvlink_raw_rx },
    { NVML_FI_DEV_REMAPPED_COR, 0, SIM_F_REMAPPED_ROWS, UI, fields_remap_cor },
    { NVML_FI_DEV_REMAPPED_UNC, 0, SIM_F_REMAPPED_ROWS, UI, fields_remap_unc },
    { NVML_FI_DEV_REMAPPED_PENDING, 0, SIM_F_REMAPPED_ROWS, UI, fields_remap_pending },
    { NVML_FI_DEV_REMAPPED_FAILURE, 0, SIM_F_REMAPPED_ROWS, UI, fields_remap_failure },
    { NVML_FI_DEV_POWER_AVERAGE, 535, SIM_F_POWER, UI, fields_power_average },
    { NVML_FI_DEV_POWER_INSTANT, 535, SIM_F_POWER, UI, fields_power_instant },
    { NVML_FI_DEV_POWER_MIN_LIMIT, 535, SIM_F_POWER, UI, fields_limit_min },
    { NVML_FI_DEV_POWER_MAX_LIMIT, 535, SIM_F_POWER, UI, fields_limit_max },
    { NVML_FI_DEV_POWER_DEFAULT_LIMIT, 535, SIM_F_POWER, UI, fields_limit_default },
    { NVML_FI_DEV_POWER_CURRENT_LIMIT, 535, SIM_F_POWER, UI, fields_limit_current },
    { NVML_FI_DEV_ENERGY, 535, SIM_F_ENERGY, ULL, fields_energy },
    { NVML_FI_DEV_POWER_REQUESTED_LIMIT, 535, SIM_F_POWER, UI, fields_limit_default },
    { NVML_FI_DEV_PCIE_COUNT_TX_BYTES, 555, SIM_F_PCIE_THROUGHPUT, ULL, fields_pcie_tx },
    { NVML_FI_DEV_PCIE_COUNT_RX_BYTES, 555, SIM_F_PCIE_THROUGHPUT, ULL, fields_pcie_rx },
};
#undef UI
#undef ULL

/* The row of id in this library's driver profile, or NULL. */
static const struct fields_row *fields_find(unsigned int id)
{
    for (size_t i = 0; i < sizeof(fields_table) / sizeof(fields_table[0]); i++)
        if (fields_table[i].id == id)
            return sim_profile == SIM_PROFILE_FULL || sim_profile >= fields_table[i].since ? &fields_table[i]
                                                                                           : NULL;
    return NULL;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!values || valuesCount < 0)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < valuesCount; i++) {
        nvmlFieldValue_t *f = &values[i];
        const struct fields_row *row = fields_find(f->fieldId);
        nvmlValue_t v;
        nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;

        memset(&v, 0, sizeof(v));
        if (row) {
            r = sim_state_family(gpu, row->family, now);
            if (r == NVML_SUCCESS)
                r = row->read(gpu, now, f->scopeId, &v);
        }
        f->timestamp = sim_state_epoch_us(now);
        f->latencyUsec = 0;
        f->valueType = row ? row->type : NVML_VALUE_TYPE_UNSIGNED_INT;
        f->nvmlReturn = r;
        f->value = r == NVML_SUCCESS ? v : (nvmlValue_t){ .ullVal = 0 };
    }
    return sim_leave(NVML_SUCCESS);
}
