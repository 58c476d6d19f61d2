/*
 * prom.c: gpumon's own names in the Prometheus text format (see prom.h).
 *
 * Families come from the metric table's prom_* columns; rows that share a
 * name (clocks by domain, one row per clock event reason, CPU by mode) are
 * one family whose rows differ by a fixed label, and are written together
 * under one HELP/TYPE. The order of families is computed once. Besides the
 * table: gpumon_gpu_info (identity as labels, for joins), gpumon_gpu_lost,
 * XIDs as a counter per code plus a last-seen timestamp, and optional
 * per-process memory.
 */
#include "prom.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom_dcgm.h"
#include "prom_write.h"

/* HELP of families with more than one row: the rows' own help texts
 * describe one label value each. */
static const struct { const char *name, *help; } prom_family_help[] = {
    {"gpumon_gpu_clock_hertz", "Current clock frequency, by clock domain"},
    {"gpumon_gpu_clock_max_hertz", "Maximum clock frequency, by clock domain"},
    {"gpumon_gpu_clock_event_reason_active", "1 while this clock event (throttle) reason is active"},
    {"gpumon_host_cpu_ratio", "Host CPU time, share of all CPUs, by mode"},
    {"gpumon_gpu_tensor_pipe_active_ratio", "Share of time the tensor cores did this kind of work (GPM), by pipe"},
    {"gpumon_gpu_fp_pipe_active_ratio", "Share of time this non-tensor math pipe was busy (GPM), by precision"},
    {"gpumon_gpu_gpm_pcie_bytes_per_second", "PCIe bytes per second counted by GPM, by direction"},
    {"gpumon_gpu_nvlink_bytes_per_second", "NVLink bytes per second, all links (GPM), by direction"},
};

/* Table rows with a Prometheus name, grouped by family in table order. */
static enum metric_id prom_order[METRIC_COUNT];
static int prom_norder;
static pthread_once_t prom_once = PTHREAD_ONCE_INIT;

static void prom_build_order(void)
{
    bool done[METRIC_COUNT] = {false};
    for (int i = 0; i < METRIC_COUNT; i++) {
        if (!metric_table[i].prom_name || done[i])
            continue;
        for (int j = i; j < METRIC_COUNT; j++)
            if (metric_table[j].prom_name && !strcmp(metric_table[j].prom_name, metric_table[i].prom_name)) {
                prom_order[prom_norder++] = (enum metric_id)j;
                done[j] = true;
            }
    }
}

/* gpu="0",uuid="GPU-..." */
static void prom_gpu_labels(struct sbuf *b, const struct record_gpu *g)
{
    sbuf_puts(b, "gpu=\"");
    sbuf_put_int(b, g->index);
    sbuf_puts(b, "\",uuid=\"");
    if (g->v[M_UUID].state == VS_OK)
        prom_label_value(b, g->v[M_UUID].u.s);
    sbuf_putc(b, '"');
}

static void prom_series(struct sbuf *b, const char *name, const char *labels, const char *extra, double v)
{
    sbuf_puts(b, name);
    if (labels || extra) {
        sbuf_putc(b, '{');
        if (labels)
            sbuf_puts(b, labels);
        if (labels && extra)
            sbuf_putc(b, ',');
        if (extra)
            sbuf_puts(b, extra);
        sbuf_putc(b, '}');
    }
    sbuf_putc(b, ' ');
    prom_number(b, v);
    sbuf_putc(b, '\n');
}

static void prom_info(struct sbuf *b, const struct record *rec, char **labels)
{
    static const struct prom_str_label info[] = {
        {"name", M_NAME}, {"pci_bus_id", M_PCI_BUS_ID}, {"driver_version", M_DRIVER_VERSION},
    };
    prom_family(b, "gpumon_gpu_info", "gauge", "GPU identity as labels (value 1), for joins by gpu or uuid");
    for (unsigned g = 0; g < rec->ngpus; g++) {
        const struct record_gpu *rg = &rec->gpus[g];
        sbuf_puts(b, "gpumon_gpu_info{");
        sbuf_puts(b, labels[g]);
        prom_str_labels(b, rg, info, sizeof info / sizeof info[0]);
        sbuf_puts(b, "} 1\n");
    }
    prom_family(b, "gpumon_gpu_lost", "gauge", "1 when the GPU fell off the bus or needs a reset; its other series vanish");
    for (unsigned g = 0; g < rec->ngpus; g++) {
        prom_series(b, "gpumon_gpu_lost", labels[g], NULL, metric_gpu_lost(rec->gpus[g].v));
    }
}

static void prom_table(struct sbuf *b, const struct record *rec, char **labels)
{
    for (int k = 0; k < prom_norder;) {
        const struct metric *first = &metric_table[prom_order[k]];
        int end = k;
        while (end < prom_norder && !strcmp(metric_table[prom_order[end]].prom_name, first->prom_name))
            end++;
        const char *help = first->help;
        for (size_t h = 0; h < sizeof prom_family_help / sizeof prom_family_help[0]; h++)
            if (!strcmp(prom_family_help[h].name, first->prom_name))
                help = prom_family_help[h].help;
        bool header = false;
        for (int r = k; r < end; r++) {
            const struct metric *m = &metric_table[prom_order[r]];
            unsigned n = m->scope == MS_HOST ? 1 : rec->ngpus;
            for (unsigned g = 0; g < n; g++) {
                const struct value *v = m->scope == MS_HOST ? &rec->host[m->id] : &rec->gpus[g].v[m->id];
                if (v->state != VS_OK)
                    continue;
                double x = prom_raw(m, v);
                if (!isfinite(x))
                    continue;
                if (!header)
                    prom_family(b, m->prom_name, m->prom_type, help);
                header = true;
                prom_series(b, m->prom_name, m->scope == MS_HOST ? NULL : labels[g], m->prom_labels,
                            x * m->prom_scale);
            }
        }
        k = end;
    }
}

static void prom_xids(struct sbuf *b, const struct record *rec, char **labels)
{
    static const char *const names[2] = {"gpumon_gpu_xid_errors_total", "gpumon_gpu_xid_last_seen_timestamp_seconds"};
    static const char *const helps[2] = {
        "XID errors reported by the driver since gpumon started, by XID code",
        "Unix time at which this XID code was last reported"};
    bool any = false;
    for (unsigned g = 0; g < rec->ngpus; g++)
        any |= rec->gpus[g].nxids > 0;
    if (!any)
        return;
    for (int f = 0; f < 2; f++) {
        prom_family(b, names[f], f ? "gauge" : "counter", helps[f]);
        for (unsigned g = 0; g < rec->ngpus; g++)
            for (unsigned i = 0; i < rec->gpus[g].nxids; i++) {
                const struct record_xid *x = &rec->gpus[g].xids[i];
                char extra[32];
                snprintf(extra, sizeof extra, "xid=\"%u\"", x->code);
                prom_series(b, names[f], labels[g], extra,
                            f ? (double)x->last.tv_sec + x->last.tv_nsec / 1e9 : (double)x->count);
            }
    }
}

static void prom_processes(struct sbuf *b, const struct record *rec, char **labels, unsigned max)
{
    bool header = false;
    for (unsigned g = 0; g < rec->ngpus; g++) {
        const struct record_gpu *rg = &rec->gpus[g];
        bool taken[RECORD_MAX_PROCS] = {false};
        for (unsigned n = 0; n < max && n < rg->nprocs; n++) {
            int best = -1;   /* the largest not yet written */
            for (unsigned p = 0; p < rg->nprocs; p++)
                if (!taken[p] && (best < 0 || rg->procs[p].used_mib > rg->procs[best].used_mib))
                    best = (int)p;
            taken[best] = true;
            const struct record_proc *pr = &rg->procs[best];
            if (pr->used_mib < 0)
                continue;
            if (!header)
                prom_family(b, "gpumon_process_gpu_memory_bytes", "gauge",
                            "GPU memory used by a process (largest first, bounded by --collect.processes.max), with "
                            "its user, container (runtime://id) and Kubernetes pod UID where known");
            header = true;
            sbuf_puts(b, "gpumon_process_gpu_memory_bytes{");
            sbuf_puts(b, labels[g]);
            sbuf_puts(b, ",pid=\"");
            sbuf_put_int(b, pr->pid);
            sbuf_puts(b, "\",process_name=\"");
            prom_label_value(b, pr->name);
            const char *who[3][2] = {{"\",user=\"", pr->user}, {"\",container=\"", pr->container},
                                     {"\",pod_uid=\"", pr->pod}};
            for (int k = 0; k < 3; k++) {   /* empty labels are absent labels in Prometheus */
                sbuf_puts(b, who[k][0]);
                prom_label_value(b, who[k][1]);
            }
            sbuf_puts(b, "\"} ");
            prom_number(b, pr->used_mib * 1048576.0);
            sbuf_putc(b, '\n');
        }
    }
}

/* gpumon_gpu_job_info{gpu,uuid,hpc_job} 1: the job ids of each GPU (a job mapping directory), to join on;
 * hpc_job as dcgm-exporter names it (Prometheus keeps "job" for the scrape job). */
static void prom_jobs(struct sbuf *b, const struct record *rec, char **labels)
{
    bool header = false;
    for (unsigned g = 0; g < rec->ngpus; g++)
        for (unsigned j = 0; j < rec->gpus[g].njobs; j++) {
            if (!header)
                prom_family(b, "gpumon_gpu_job_info", "gauge",
                            "A job running on the GPU, from the HPC job mapping directory (value 1)");
            header = true;
            sbuf_puts(b, "gpumon_gpu_job_info{");
            sbuf_puts(b, labels[g]);
            sbuf_puts(b, ",hpc_job=\"");
            prom_label_value(b, rec->gpus[g].jobs[j]);
            sbuf_puts(b, "\"} 1\n");
        }
}

void prom_render(struct sbuf *b, const struct record *rec, const struct prom_opts *o)
{
    pthread_once(&prom_once, prom_build_order);
    char **labels = xcalloc(rec->ngpus ? rec->ngpus : 1, sizeof *labels);
    struct sbuf l;
    sbuf_init(&l);
    for (unsigned g = 0; g < rec->ngpus; g++) {
        sbuf_reset(&l);
        prom_gpu_labels(&l, &rec->gpus[g]);
        labels[g] = xstrdup(l.data);
    }
    sbuf_free(&l);
    prom_info(b, rec, labels);
    prom_table(b, rec, labels);
    prom_xids(b, rec, labels);
    prom_jobs(b, rec, labels);
    if (o->processes)
        prom_processes(b, rec, labels, o->max_processes);
    if (o->dcgm)
        prom_render_dcgm(b, rec);
    for (unsigned g = 0; g < rec->ngpus; g++)
        free(labels[g]);
    free(labels);
}

unsigned prom_count_errors(const struct record *rec)
{
    unsigned n = 0;
    for (int id = 0; id < METRIC_COUNT; id++) {
        if (metric_table[id].scope == MS_HOST) {
            n += rec->host[id].state == VS_ERROR;
            continue;
        }
        for (unsigned g = 0; g < rec->ngpus; g++)
            n += rec->gpus[g].v[id].state == VS_ERROR;
    }
    return n;
}

void prom_render_self(struct sbuf *b, const struct prom_self *s)
{
    prom_family(b, "gpumon_exporter_build_info", "gauge", "gpumon's version (value 1)");
    sbuf_puts(b, "gpumon_exporter_build_info{version=\"" GPUMON_VERSION "\"} 1\n");
    prom_family(b, "gpumon_exporter_gpus", "gauge", "GPUs this exporter monitors");
    prom_series(b, "gpumon_exporter_gpus", NULL, NULL, s->gpus);
    prom_family(b, "gpumon_exporter_gpus_lost", "gauge", "Monitored GPUs that fell off the bus");
    prom_series(b, "gpumon_exporter_gpus_lost", NULL, NULL, s->gpus_lost);
    prom_family(b, "gpumon_exporter_collection_duration_seconds", "gauge", "Time the latest collection took");
    prom_series(b, "gpumon_exporter_collection_duration_seconds", NULL, NULL, s->collect_seconds);
    prom_family(b, "gpumon_exporter_last_success_timestamp_seconds", "gauge",
                "Unix time at which the latest collection completed");
    prom_series(b, "gpumon_exporter_last_success_timestamp_seconds", NULL, NULL, s->last_success);
    prom_family(b, "gpumon_exporter_collections_total", "counter", "Collections completed");
    prom_series(b, "gpumon_exporter_collections_total", NULL, NULL, (double)s->collections_total);
    prom_family(b, "gpumon_exporter_collection_errors_total", "counter",
                "Values NVML answered with an error (not \"unsupported\") while collecting");
    prom_series(b, "gpumon_exporter_collection_errors_total", NULL, NULL, (double)s->errors_total);
}

void prom_render_scrape(struct sbuf *b, double snapshot_age, unsigned long long scrapes)
{
    prom_family(b, "gpumon_exporter_snapshot_age_seconds", "gauge",
                "Age of the data served: seconds since the collection that produced it began");
    prom_series(b, "gpumon_exporter_snapshot_age_seconds", NULL, NULL, snapshot_age);
    prom_family(b, "gpumon_exporter_scrapes_total", "counter", "Requests for /metrics answered");
    prom_series(b, "gpumon_exporter_scrapes_total", NULL, NULL, (double)scrapes);
}
