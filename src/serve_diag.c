/*
 * serve_diag.c: the exporter's verdicts. The collector feeds every record
 * to a diag (the windows and rules of run and diagnose, --window and
 * --threshold alike) and this renders, per GPU:
 *   gpumon_diagnosis_active{gpu,uuid,rule,severity} 1 for each verdict
 *     that holds now (none: the series is absent, as Prometheus expects);
 *   gpumon_diagnosis_seconds_total{gpu,uuid,rule,severity}, the seconds
 *     each verdict has held since the exporter started (a counter: its
 *     increase over a range is the GPU time lost to that cause);
 *   the window figures the verdicts stand on: mean utilization, idle
 *     share, and SM and tensor activity where GPM covers the window.
 * Cardinality is bounded by rules x GPUs. A GPU is labelled as in prom.c
 * (gpu index and uuid from the current record); one absent from the
 * record (not selected any more) is left out.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "diag.h"
#include "prom_write.h"
#include "serve.h"

/* gpu="N",uuid="..." of GPU index from the record; false when the record lacks it. */
static bool serve_diag_labels(struct sbuf *b, const struct record *rec, unsigned index)
{
    for (unsigned g = 0; g < rec->ngpus; g++) {
        if (rec->gpus[g].index != index)
            continue;
        const struct value *u = &rec->gpus[g].v[M_UUID];
        sbuf_printf(b, "gpu=\"%u\",uuid=\"", index);
        prom_label_value(b, u->state == VS_OK && u->u.s ? u->u.s : "");
        sbuf_putc(b, '"');
        return true;
    }
    return false;
}

static void serve_diag_verdicts(struct sbuf *b, const struct diag *d, const struct record *rec, bool active)
{
    const struct analyzer *an = diag_analyzer(d);
    bool header = false;
    for (unsigned i = 0; i < analyze_ngpus(an); i++) {
        for (int r = 0; r < rule_count; r++) {
            const struct diag_verdict *v = diag_verdict(d, i, r);
            if (active ? !v->active : !v->ever)
                continue;
            struct sbuf l;
            sbuf_init(&l);
            if (serve_diag_labels(&l, rec, analyze_total(an, i)->index)) {
                if (!header)
                    prom_family(b, active ? "gpumon_diagnosis_active" : "gpumon_diagnosis_seconds_total",
                                active ? "gauge" : "counter",
                                active ? "1 while this verdict of gpumon's rules holds on the GPU (gpumon diagnose "
                                         "--list-rules lists them)"
                                       : "Seconds this verdict has held on the GPU since the exporter started");
                header = true;
                sbuf_puts(b, active ? "gpumon_diagnosis_active{" : "gpumon_diagnosis_seconds_total{");
                sbuf_add(b, l.data, l.len);
                sbuf_printf(b, ",rule=\"%s\",severity=\"%s\"} ", rule_table[r].id,
                            rules_severity_name(rule_table[r].severity));
                prom_number(b, active ? 1 : v->active_s);
                sbuf_putc(b, '\n');
            }
            sbuf_free(&l);
        }
    }
}

/* One gauge of a window figure (a ratio 0-1 from a percentage), for every GPU that has it. */
static void serve_diag_figure(struct sbuf *b, const struct diag *d, const struct record *rec, const char *name,
                              const char *help, size_t offset, bool gpm)
{
    const struct analyzer *an = diag_analyzer(d);
    bool header = false;
    for (unsigned i = 0; i < analyze_ngpus(an); i++) {
        const struct analyze_gpu_stats *s = diag_stats(d, i);
        if (!s || !s->n)
            continue;
        double v = *(const double *)((const char *)s + offset);
        if (!isfinite(v) || (gpm && s->n_gpm < s->n / 2 + 1))
            continue;
        struct sbuf l;
        sbuf_init(&l);
        if (serve_diag_labels(&l, rec, s->index)) {
            if (!header)
                prom_family(b, name, "gauge", help);
            header = true;
            sbuf_puts(b, name);
            sbuf_putc(b, '{');
            sbuf_add(b, l.data, l.len);
            sbuf_puts(b, "} ");
            prom_number(b, v / 100.0);
            sbuf_putc(b, '\n');
        }
        sbuf_free(&l);
    }
}

void serve_render_diag(struct sbuf *b, const struct diag *d, const struct record *rec)
{
    serve_diag_verdicts(b, d, rec, true);
    serve_diag_verdicts(b, d, rec, false);
    serve_diag_figure(b, d, rec, "gpumon_diagnosis_window_utilization_ratio",
                      "Mean utilization over the analysis window (--window)",
                      offsetof(struct analyze_gpu_stats, util_mean), false);
    serve_diag_figure(b, d, rec, "gpumon_diagnosis_window_idle_ratio",
                      "Share of the analysis window the GPU was idle (driver's sub-second samples)",
                      offsetof(struct analyze_gpu_stats, idle_share), false);
    serve_diag_figure(b, d, rec, "gpumon_diagnosis_window_sm_active_ratio",
                      "Mean SM activity (GPM) over the analysis window, where GPM covers it",
                      offsetof(struct analyze_gpu_stats, sm_active_mean), true);
    serve_diag_figure(b, d, rec, "gpumon_diagnosis_window_tensor_active_ratio",
                      "Mean tensor-core activity (GPM) over the analysis window, where GPM covers it",
                      offsetof(struct analyze_gpu_stats, tensor_mean), true);
}
