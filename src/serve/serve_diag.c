/*
 * serve_diag.c: the exporter's verdicts. The collector feeds every record
 * to a diag (the windows and rules of run and diagnose, --window and
 * --threshold alike) and this renders, per GPU:
 *   gpumon_diagnosis_active{gpu,uuid,rule,severity} 1 for each verdict
 *     that holds now (none: the series is absent, as Prometheus expects);
 *   gpumon_diagnosis_seconds_total{gpu,uuid,rule,severity}, the seconds
 *     each verdict has held since the exporter started (a counter: its
 *     increase over a range is the GPU time lost to that cause);
 *   the window figures the verdicts stand on, the rows of
 *     analyze_window_figures that say export_help (mean utilization, idle
 *     share, and SM and tensor activity where GPM covers the window).
 * And the accounting (account.h), counters per job and per user of the
 * GPU-seconds, idle GPU-seconds and joules since the exporter started:
 * gpumon_{job,user}_gpu_seconds_total{hpc_job or user}, _gpu_idle_seconds_total,
 * _energy_joules_total, the 64 most recently active of each kind.
 * Cardinality is bounded by rules x GPUs (and those 64). A GPU is labelled as in prom.c
 * (gpu index and uuid from the current record); one absent from the
 * record (not selected any more) is left out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "fmt.h"
#include "prom_write.h"
#include "serve.h"

/* gpu="N",uuid="..." of the analyzer's i-th GPU from the record (the one the analyzer took it for, a new
 * UUID at an index being a new GPU; by index if the analyzer passed the record over); false when the
 * record lacks it. */
static bool serve_diag_labels(struct sbuf *b, const struct analyzer *an, const struct record *rec, unsigned i)
{
    unsigned index = analyze_gpu_index(an, i);
    for (unsigned g = 0; g < rec->ngpus; g++) {
        int slot = analyze_gpu_of(an, rec, g);
        if (slot >= 0 ? slot != (int)i : rec->gpus[g].index != index)
            continue;
        const struct value *u = &rec->gpus[g].v[M_UUID];
        sbuf_printf(b, "gpu=\"%u\",uuid=\"", index);
        prom_label_value(b, u->state == VS_OK && u->u.s ? u->u.s : "");
        sbuf_putc(b, '"');
        return true;
    }
    return false;
}

/* One sample: NAME{LABELS,extra} VALUE, after the family's header the first time. */
static void serve_diag_sample(struct sbuf *b, bool *header, const char *name, const char *type, const char *help,
                              const struct sbuf *labels, const char *extra, double v)
{
    if (!*header)
        prom_family(b, name, type, help);
    *header = true;
    sbuf_puts(b, name);
    sbuf_putc(b, '{');
    sbuf_add(b, labels->data, labels->len);
    sbuf_puts(b, extra);
    sbuf_puts(b, "} ");
    prom_number(b, v);
    sbuf_putc(b, '\n');
}

/* labels[i]: the i-th analyzed GPU's labels, empty when the record lacks it. */
static void serve_diag_verdicts(struct sbuf *b, const struct diag *d, const struct sbuf *labels, bool active)
{
    bool header = false;
    char extra[96];
    for (unsigned i = 0; i < analyze_ngpus(diag_analyzer(d)); i++) {
        for (int r = 0; labels[i].len && r < rule_count; r++) {
            const struct diag_verdict *v = diag_verdict(d, i, r);
            if (active ? !v->active : !v->ever)
                continue;
            snprintf(extra, sizeof extra, ",rule=\"%s\",severity=\"%s\"", rule_table[r].id,
                     rules_severity_name(rule_table[r].severity));
            if (active)
                serve_diag_sample(b, &header, "gpumon_diagnosis_active", "gauge",
                                  "1 while this verdict of gpumon's rules holds on the GPU (gpumon diagnose "
                                  "--list-rules lists them)", &labels[i], extra, 1);
            else
                serve_diag_sample(b, &header, "gpumon_diagnosis_seconds_total", "counter",
                                  "Seconds this verdict has held on the GPU since the exporter started", &labels[i],
                                  extra, v->active_s);
        }
    }
}

/* The gauges of the window figures the analysis exports (analyze_window_figures' rows with export_help):
 * gpumon_diagnosis_window_KEY_ratio, a ratio 0-1 from a percentage, for every GPU where the figure is
 * shown (known; a GPM figure where GPM covers the window). */
static void serve_diag_figures(struct sbuf *b, const struct diag *d, const struct sbuf *labels)
{
    char name[96];
    for (int f = 0; f < analyze_nwindow_figures; f++) {
        const struct analyze_figure *fig = &analyze_window_figures[f];
        bool header = false;
        if (!fig->export_help)
            continue;
        snprintf(name, sizeof name, "gpumon_diagnosis_window_%s_ratio", fig->key);
        for (unsigned i = 0; i < analyze_ngpus(diag_analyzer(d)); i++) {
            const struct analyze_gpu_stats *s = diag_stats(d, i);
            if (labels[i].len && s && analyze_figure_shown(fig, s))
                serve_diag_sample(b, &header, name, "gauge", fig->export_help, &labels[i], "",
                                  analyze_figure_value(fig, s) / 100.0);
        }
    }
}

#define SERVE_ACCOUNTS 64   /* most recently active jobs (users) exported */

static int serve_diag_recent(const void *x, const void *y)
{
    const struct account_entry *a = *(const struct account_entry *const *)x, *b = *(const struct account_entry *const *)y;
    return (a->last_t < b->last_t) - (a->last_t > b->last_t);
}

/* The accounting counters: per kind, the SERVE_ACCOUNTS entries seen most recently. */
static void serve_diag_accounts(struct sbuf *b, const struct diag *d)
{
    static const char *const kinds[2] = {"job", "user"}, *const labels[2] = {"hpc_job", "user"};
    static const char *const what[3] = {"gpu_seconds_total", "gpu_idle_seconds_total", "energy_joules_total"};
    static const char *const help[3] = {
        "GPU-seconds the GPUs spent on it since the exporter started (a GPU shared by several is split evenly)",
        "Of those, GPU-seconds the GPUs were idle", "Energy its GPUs used since the exporter started, in joules"};
    const struct account_entry *e[ACCOUNT_MAX];
    unsigned n = account_sorted(analyze_account(diag_analyzer(d)), e);
    qsort(e, n, sizeof *e, serve_diag_recent);
    for (int k = 0; k < 2; k++)
        for (int w = 0; w < 3; w++) {
            char name[64];
            snprintf(name, sizeof name, "gpumon_%s_%s", kinds[k], what[w]);
            unsigned shown = 0;
            for (unsigned i = 0; i < n && shown < SERVE_ACCOUNTS; i++) {
                double v = w == 0 ? e[i]->gpu_s : w == 1 ? e[i]->idle_s : e[i]->energy_j;
                if ((int)e[i]->kind != k || !isfinite(v))
                    continue;
                if (!shown++)
                    prom_family(b, name, "counter", help[w]);
                sbuf_printf(b, "%s{%s=\"", name, labels[k]);
                prom_label_value(b, e[i]->key);
                sbuf_puts(b, "\"} ");
                prom_number(b, v);
                sbuf_putc(b, '\n');
            }
        }
}

void serve_render_diag(struct sbuf *b, const struct diag *d, const struct record *rec)
{
    const struct analyzer *an = diag_analyzer(d);
    unsigned n = analyze_ngpus(an);
    struct sbuf *labels = xcalloc(n ? n : 1, sizeof *labels);
    for (unsigned i = 0; i < n; i++) {
        sbuf_init(&labels[i]);
        if (!serve_diag_labels(&labels[i], an, rec, i))
            sbuf_reset(&labels[i]);
    }
    serve_diag_verdicts(b, d, labels, true);
    serve_diag_verdicts(b, d, labels, false);
    serve_diag_figures(b, d, labels);
    serve_diag_accounts(b, d);
    for (unsigned i = 0; i < n; i++)
        sbuf_free(&labels[i]);
    free(labels);
}

/* The analyzer's GPU that record GPU g is (the one it took the record's GPU for, as the labels above;
 * by index if the analyzer passed the record over), or -1. */
static int serve_diag_slot(const struct analyzer *an, const struct record *rec, unsigned g)
{
    int slot = analyze_gpu_of(an, rec, g);
    if (slot >= 0)
        return slot;
    for (unsigned i = 0; i < analyze_ngpus(an); i++)
        if (analyze_gpu_index(an, i) == rec->gpus[g].index)
            return (int)i;
    return -1;
}

void serve_diag_json(struct sbuf *b, const struct diag *d, const struct record *rec)
{
    sbuf_putc(b, '[');
    bool first = true;
    for (unsigned g = 0; d && g < rec->ngpus; g++) {
        int i = serve_diag_slot(diag_analyzer(d), rec, g);
        for (int r = 0; i >= 0 && r < rule_count; r++) {
            const struct diag_verdict *v = diag_verdict(d, (unsigned)i, r);
            if (!v->active)
                continue;
            const struct value *u = &rec->gpus[g].v[M_UUID];
            sbuf_puts(b, first ? "{\"gpu\":" : ",{\"gpu\":");
            first = false;
            sbuf_put_int(b, rec->gpus[g].index);
            sbuf_puts(b, ",\"uuid\":");
            fmt_json_string(b, u->state == VS_OK && u->u.s ? u->u.s : "");
            const char *const text[][2] = {
                {",\"rule\":", rule_table[r].id}, {",\"severity\":", rules_severity_name(rule_table[r].severity)},
                {",\"title\":", rule_table[r].title}, {",\"evidence\":", v->evidence},
                {",\"advice\":", rule_table[r].advice}};
            for (size_t k = 0; k < sizeof text / sizeof text[0]; k++) {
                sbuf_puts(b, text[k][0]);
                fmt_json_string(b, text[k][1] ? text[k][1] : "");
            }
            sbuf_puts(b, ",\"first\":");
            sbuf_put_fixed(b, v->first_t, 3);
            sbuf_puts(b, ",\"held_s\":");
            sbuf_put_fixed(b, v->active_s, 1);
            sbuf_putc(b, '}');
        }
    }
    sbuf_putc(b, ']');
}

/* LEDGER HOOK (issue 22, "the time ledger so far"): the ledger is not in this tree yet, so this writes
 * nothing and the state has no "ledger" member; the page hides its ledger section when the member is
 * absent. When the ledger lands, this writes ,"ledger":{...} in the schema of gpumon run --format json
 * (gpu_seconds, seconds by cause, gain), for the run and per GPU. */
void serve_diag_ledger_json(struct sbuf *b, const struct diag *d)
{
    (void)b;
    (void)d;
}
