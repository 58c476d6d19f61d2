/*
 * gpu_attr.h: the per-GPU values that no record carries, read only for
 * gpumon as nvidia-smi: its query mode (PCI ids, modes, VBIOS, compute
 * capability, power limit range, MIG mode, aggregate ECC and row-remapping
 * counts, the video clock, memory temperature, average and instant power)
 * and its summary table (a MIG device's instance ids and BAR1 memory).
 * These are the sampler's query-only rows: being rows of this table and not
 * of the metric table is what flags them so, and records, logs and the
 * exporter never see them. The sampler reads them on request
 * (sampler_attrs, sampler_migs), each row through the reader it names
 * (sampler_attr.c), as a metric row names its reader; rows naming the same
 * reader come from one NVML call. Each row: the id, whether the value can
 * change while the driver runs (read on every request) or is fixed (read on
 * the first request for it, then kept), and its reader. Values carry their
 * state like record values; a string (VBIOS, compute capability) points
 * into the sampler and lives as long as it.
 */
#ifndef GPUMON_GPU_ATTR_H
#define GPUMON_GPU_ATTR_H

#include <stdbool.h>
#include "record.h"

enum gpu_attr_cadence { GA_ONCE, GA_SAMPLE };

/* X(ID, cadence, reader) */
#define GPU_ATTR_TABLE(X) \
    X(PCI_DOMAIN, GA_ONCE, pci) \
    X(PCI_BUS, GA_ONCE, pci) \
    X(PCI_DEVICE, GA_ONCE, pci) \
    X(PCI_DEVICE_ID, GA_ONCE, pci) \
    X(PCI_SUBSYS_ID, GA_ONCE, pci) \
    X(VBIOS, GA_ONCE, vbios) \
    X(COMPUTE_CAP, GA_ONCE, compute_cap) \
    X(REASONS_SUPPORTED, GA_ONCE, reasons_supported) \
    X(POWER_DEFAULT, GA_ONCE, power_default) \
    X(POWER_MIN, GA_ONCE, power_range) \
    X(POWER_MAX, GA_ONCE, power_range) \
    X(GPU_INSTANCE, GA_ONCE, gpu_instance) \
    X(COMPUTE_INSTANCE, GA_ONCE, compute_instance) \
    X(DISPLAY_ATTACHED, GA_SAMPLE, display_mode) \
    X(DISPLAY_ACTIVE, GA_SAMPLE, display_active) \
    X(PERSISTENCE, GA_SAMPLE, persistence) \
    X(DRIVER_MODEL, GA_SAMPLE, driver_model) \
    X(DRIVER_MODEL_PENDING, GA_SAMPLE, driver_model) \
    X(COMPUTE_MODE, GA_SAMPLE, compute_mode) \
    X(ECC_MODE, GA_SAMPLE, ecc_mode) \
    X(ECC_MODE_PENDING, GA_SAMPLE, ecc_mode) \
    X(MIG_MODE, GA_SAMPLE, mig_mode) \
    X(MIG_MODE_PENDING, GA_SAMPLE, mig_mode) \
    X(ECC_CORR_AGG, GA_SAMPLE, ecc_corr_agg) \
    X(ECC_UNCORR_AGG, GA_SAMPLE, ecc_uncorr_agg) \
    X(RETIRED_SBE, GA_SAMPLE, retired_sbe) \
    X(RETIRED_DBE, GA_SAMPLE, retired_dbe) \
    X(REMAP_COR, GA_SAMPLE, remap) \
    X(REMAP_UNC, GA_SAMPLE, remap) \
    X(REMAP_FAILURE, GA_SAMPLE, remap) \
    X(TEMP_MEMORY, GA_SAMPLE, temp_memory) \
    X(POWER_AVERAGE, GA_SAMPLE, power_average) \
    X(POWER_INSTANT, GA_SAMPLE, power_instant) \
    X(CLOCK_VIDEO, GA_SAMPLE, clock_video) \
    X(BAR1_USED, GA_SAMPLE, bar1) \
    X(BAR1_TOTAL, GA_SAMPLE, bar1)

enum gpu_attr_id {
#define GPU_ATTR_ENUM(id, cad, reader) GA_##id,
    GPU_ATTR_TABLE(GPU_ATTR_ENUM)
#undef GPU_ATTR_ENUM
    GA_COUNT
};

/* Integer values are NVML's (enable states as 0/1, compute mode and driver
 * model enums, counts, instance ids); BAR1 is MiB; power values are watts
 * (u.f); strings are u.s. */
struct gpu_attrs {
    struct value v[GA_COUNT];
};

#endif
