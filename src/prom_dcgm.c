/*
 * prom_dcgm.c: --compat=dcgm, NVIDIA dcgm-exporter's names over the same
 * record, so dashboards and alert rules written for dcgm-exporter (Grafana
 * dashboard 12239, for one) work unchanged. Each row maps a dcgm field
 * onto a row of the metric table with the factor from gpumon's unit to
 * dcgm's (dcgm keeps nvidia-smi's units: %, MiB, MHz, W, mJ). Labels are
 * dcgm-exporter's: gpu, UUID, device, modelName, Hostname, pci_bus_id,
 * DCGM_FI_DRIVER_VERSION. DCGM_FI_DEV_XID_ERRORS is the latest XID code.
 * The profiling fields (DCGM_FI_PROF_*) come from GPM with dcgm's units:
 * ratios 0-1 and bytes per second.
 */
#include <stdio.h>
#include <stdlib.h>
#include "nvml_abi.h"   /* the NVML ids in gpm_metrics.h's rows */
#include "prom_dcgm.h"
#include "prom_write.h"

static const struct prom_dcgm_row {
    const char *name, *type;
    enum metric_id id;
    double factor;
    const char *help;
} prom_dcgm_rows[] = {
    {"DCGM_FI_DEV_SM_CLOCK", "gauge", M_CLOCK_SM, 1, "SM clock (MHz)"},
    {"DCGM_FI_DEV_MEM_CLOCK", "gauge", M_CLOCK_MEM, 1, "Memory clock (MHz)"},
    {"DCGM_FI_DEV_GPU_TEMP", "gauge", M_TEMP, 1, "GPU temperature (C)"},
    {"DCGM_FI_DEV_POWER_USAGE", "gauge", M_POWER, 1, "Power draw (W)"},
    {"DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", M_POWER_LIMIT, 1, "Power management limit (W)"},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", M_ENERGY, 1000,
     "Energy consumed since the driver was loaded (mJ)"},
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", M_UTIL_GPU, 1, "GPU utilization (%)"},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", M_UTIL_MEM, 1, "Memory utilization (%)"},
    {"DCGM_FI_DEV_ENC_UTIL", "gauge", M_ENC, 1, "Encoder utilization (%)"},
    {"DCGM_FI_DEV_DEC_UTIL", "gauge", M_DEC, 1, "Decoder utilization (%)"},
    {"DCGM_FI_DEV_FB_FREE", "gauge", M_MEM_FREE, 1, "Frame buffer memory free (MiB)"},
    {"DCGM_FI_DEV_FB_USED", "gauge", M_MEM_USED, 1, "Frame buffer memory used (MiB)"},
    {"DCGM_FI_DEV_FB_RESERVED", "gauge", M_MEM_RESERVED, 1, "Frame buffer memory reserved (MiB)"},
    {"DCGM_FI_DEV_FAN_SPEED", "gauge", M_FAN, 1, "Fan speed (%)"},
    {"DCGM_FI_DEV_PSTATE", "gauge", M_PSTATE, 1, "Performance state"},
    {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge", M_REASONS, 1, "Clock event (throttle) reasons bitmask"},
    {"DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "gauge", M_PCIE_TX, 1, "PCIe transmit throughput (KB/s)"},
    {"DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "gauge", M_PCIE_RX, 1, "PCIe receive throughput (KB/s)"},
    {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", M_ECC_CORR, 1, "Single-bit (corrected) volatile ECC errors"},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", M_ECC_UNCORR, 1, "Double-bit (uncorrected) volatile ECC errors"},
    {"DCGM_FI_DEV_XID_ERRORS", "gauge", M_XID_LAST, 1, "Code of the latest XID error"},
};

static void prom_dcgm_labels(struct sbuf *b, const struct record *rec, const struct record_gpu *g)
{
    static const struct prom_str_label str[] = {
        {"UUID", M_UUID}, {"modelName", M_NAME}, {"pci_bus_id", M_PCI_BUS_ID},
        {"DCGM_FI_DRIVER_VERSION", M_DRIVER_VERSION},
    };
    sbuf_puts(b, "gpu=\"");
    sbuf_put_int(b, g->index);
    sbuf_puts(b, "\",device=\"nvidia");
    sbuf_put_int(b, g->index);
    sbuf_puts(b, "\",Hostname=\"");
    prom_label_value(b, rec->hostname ? rec->hostname : "");
    sbuf_putc(b, '"');
    prom_str_labels(b, g, str, sizeof str / sizeof str[0]);
}

/* One family: the row's series of every GPU whose value is known. */
static void prom_dcgm_family(struct sbuf *b, const struct record *rec, const struct sbuf *labels,
                             const struct prom_dcgm_row *d)
{
    const struct metric *m = &metric_table[d->id];
    bool header = false;
    for (unsigned g = 0; g < rec->ngpus; g++) {
        const struct value *v = &rec->gpus[g].v[d->id];
        if (v->state != VS_OK)
            continue;
        if (!header)
            prom_family(b, d->name, d->type, d->help);
        header = true;
        sbuf_puts(b, d->name);
        sbuf_putc(b, '{');
        sbuf_add(b, labels[g].data, labels[g].len);
        sbuf_puts(b, "} ");
        prom_number(b, prom_raw(m, v) * d->factor);
        sbuf_putc(b, '\n');
    }
}

/* dcgm's profiling fields, from GPM: the dcgm name and scale of each row of gpm_metrics.h that has one. */
static const struct gpm_row prom_dcgm_gpm[GPM_COUNT] = {GPM_TABLE(GPM_ROW_INIT, _)};

void prom_render_dcgm(struct sbuf *b, const struct record *rec)
{
    struct sbuf *labels = xcalloc(rec->ngpus ? rec->ngpus : 1, sizeof *labels);
    for (unsigned g = 0; g < rec->ngpus; g++) {
        sbuf_init(&labels[g]);
        prom_dcgm_labels(&labels[g], rec, &rec->gpus[g]);
    }
    for (size_t r = 0; r < sizeof prom_dcgm_rows / sizeof prom_dcgm_rows[0]; r++)
        prom_dcgm_family(b, rec, labels, &prom_dcgm_rows[r]);
    for (int i = 0; i < GPM_COUNT; i++) {
        const struct gpm_row *gr = &prom_dcgm_gpm[i];
        enum metric_id id = (enum metric_id)(M_GPM_GR_ACTIVE + i);
        if (gr->dcgm_name)
            prom_dcgm_family(b, rec, labels,
                             &(struct prom_dcgm_row){gr->dcgm_name, "gauge", id, gr->dcgm_scale, metric_table[id].help});
    }
    for (unsigned g = 0; g < rec->ngpus; g++)
        sbuf_free(&labels[g]);
    free(labels);
}
