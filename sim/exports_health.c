/*
 * exports_health.c: PCIe throughput and link, ECC, retired pages and
 * remapped rows.
 *
 * GetPcieThroughput costs what the real one does: it samples a byte
 * counter over pcie_latency_ms (default 20 ms) of wall time, so the call
 * sleeps that long, with the mutex released. ECC totals require ECC on
 * (else 3) and never decrease (sim_model.c keeps the maximum seen);
 * aggregate counters equal the volatile ones since the simulated driver
 * load. Remapped rows and retired pages read their signals directly.
 */
#include "sim_exports.h"
#include "sim_model.h"

#include <math.h>

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value)
{
    unsigned int gpu, v;
    long long now, latency_us;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_PCIE_THROUGHPUT, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!value || (counter != NVML_PCIE_UTIL_TX_BYTES && counter != NVML_PCIE_UTIL_RX_BYTES))
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    v = (unsigned int)llround(
        sim_model_metric(gpu, counter == NVML_PCIE_UTIL_TX_BYTES ? SIM_M_PCIE_TX : SIM_M_PCIE_RX, now));
    latency_us = (long long)sim_state.sc->pcie_latency_ms * 1000LL;
    sim_leave(NVML_SUCCESS);
    sim_state_sleep_us(latency_us);
    *value = v;
    return NVML_SUCCESS;
}

enum health_link { HEALTH_GEN, HEALTH_WIDTH, HEALTH_MAX_GEN, HEALTH_MAX_WIDTH };

static nvmlReturn_t health_link(const char *func, nvmlDevice_t device, unsigned int *out, enum health_link which)
{
    const struct sim_gpu *g;
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(func, device, SIM_F_PCIE_LINK, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!out)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    g = &sim_state.sc->gpus[gpu];
    switch (which) {
    case HEALTH_GEN:
        *out = g->pcie_gen;
        break;
    case HEALTH_WIDTH:
        *out = g->pcie_width;
        break;
    case HEALTH_MAX_GEN:
        *out = g->pcie_max_gen;
        break;
    case HEALTH_MAX_WIDTH:
        *out = g->pcie_max_width;
        break;
    }
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen)
{
    return health_link(__func__, device, currLinkGen, HEALTH_GEN);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
    return health_link(__func__, device, currLinkWidth, HEALTH_WIDTH);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen)
{
    return health_link(__func__, device, maxLinkGen, HEALTH_MAX_GEN);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
    return health_link(__func__, device, maxLinkWidth, HEALTH_MAX_WIDTH);
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ECC, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!current || !pending)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *current = *pending = sim_state.sc->gpus[gpu].ecc_enabled ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ECC, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!eccCounts || (errorType != NVML_MEMORY_ERROR_TYPE_CORRECTED &&
                       errorType != NVML_MEMORY_ERROR_TYPE_UNCORRECTED) ||
        (counterType != NVML_VOLATILE_ECC && counterType != NVML_AGGREGATE_ECC))
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (!sim_state.sc->gpus[gpu].ecc_enabled)
        return sim_leave(NVML_ERROR_NOT_SUPPORTED);
    *eccCounts = sim_model_ecc(gpu, errorType == NVML_MEMORY_ERROR_TYPE_UNCORRECTED, now);
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *isPending)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_RETIRED_PAGES, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!isPending)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *isPending = sim_model_metric(gpu, SIM_M_RETIRED_PENDING, now) >= 0.5 ? NVML_FEATURE_ENABLED
                                                                         : NVML_FEATURE_DISABLED;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                       unsigned int *isPending, unsigned int *failureOccurred)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_REMAPPED_ROWS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!corrRows || !uncRows || !isPending || !failureOccurred)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *corrRows = (unsigned int)llround(sim_model_metric(gpu, SIM_M_REMAP_CORRECTED, now));
    *uncRows = (unsigned int)llround(sim_model_metric(gpu, SIM_M_REMAP_UNCORRECTED, now));
    *isPending = sim_model_metric(gpu, SIM_M_REMAP_PENDING, now) >= 0.5;
    *failureOccurred = sim_model_metric(gpu, SIM_M_REMAP_FAILURE, now) >= 0.5;
    return sim_leave(NVML_SUCCESS);
}
