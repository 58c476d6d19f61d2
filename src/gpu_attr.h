/*
 * gpu_attr.h: the per-GPU attributes that only nvidia-smi's query mode
 * shows (PCI ids, modes, VBIOS, compute capability, power limit range, MIG
 * mode, aggregate ECC and row-remapping counts, the video clock, memory
 * temperature, average and instant power). They are not in the metric
 * table, so records, logs and the exporter do not carry them; the sampler
 * reads them on request (sampler_attrs) for the query command. Each row:
 * the id and whether the value can change while the driver runs (read on
 * every query sample) or is fixed (read once per GPU, then kept).
 * Values carry their state like record values; a string (VBIOS, compute
 * capability) points into the sampler and lives as long as it.
 */
#ifndef GPUMON_GPU_ATTR_H
#define GPUMON_GPU_ATTR_H

#include <stdbool.h>
#include "record.h"

enum gpu_attr_cadence { GA_ONCE, GA_SAMPLE };

/* X(ID, cadence) */
#define GPU_ATTR_TABLE(X) \
    X(PCI_DOMAIN, GA_ONCE) \
    X(PCI_BUS, GA_ONCE) \
    X(PCI_DEVICE, GA_ONCE) \
    X(PCI_DEVICE_ID, GA_ONCE) \
    X(PCI_SUBSYS_ID, GA_ONCE) \
    X(VBIOS, GA_ONCE) \
    X(COMPUTE_CAP, GA_ONCE) \
    X(REASONS_SUPPORTED, GA_ONCE) \
    X(POWER_DEFAULT, GA_ONCE) \
    X(POWER_MIN, GA_ONCE) \
    X(POWER_MAX, GA_ONCE) \
    X(DISPLAY_ATTACHED, GA_SAMPLE) \
    X(DISPLAY_ACTIVE, GA_SAMPLE) \
    X(PERSISTENCE, GA_SAMPLE) \
    X(DRIVER_MODEL, GA_SAMPLE) \
    X(DRIVER_MODEL_PENDING, GA_SAMPLE) \
    X(COMPUTE_MODE, GA_SAMPLE) \
    X(ECC_MODE, GA_SAMPLE) \
    X(ECC_MODE_PENDING, GA_SAMPLE) \
    X(MIG_MODE, GA_SAMPLE) \
    X(MIG_MODE_PENDING, GA_SAMPLE) \
    X(ECC_CORR_AGG, GA_SAMPLE) \
    X(ECC_UNCORR_AGG, GA_SAMPLE) \
    X(RETIRED_SBE, GA_SAMPLE) \
    X(RETIRED_DBE, GA_SAMPLE) \
    X(REMAP_COR, GA_SAMPLE) \
    X(REMAP_UNC, GA_SAMPLE) \
    X(REMAP_FAILURE, GA_SAMPLE) \
    X(TEMP_MEMORY, GA_SAMPLE) \
    X(POWER_AVERAGE, GA_SAMPLE) \
    X(POWER_INSTANT, GA_SAMPLE) \
    X(CLOCK_VIDEO, GA_SAMPLE)

enum gpu_attr_id {
#define GPU_ATTR_ENUM(id, cad) GA_##id,
    GPU_ATTR_TABLE(GPU_ATTR_ENUM)
#undef GPU_ATTR_ENUM
    GA_COUNT
};

/* Integer values are NVML's (enable states, compute mode and driver model
 * enums, counts); power values are watts (u.f); strings are u.s. */
struct gpu_attrs {
    struct value v[GA_COUNT];
};

#endif
