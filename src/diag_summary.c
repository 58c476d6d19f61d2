/*
 * diag_summary.c: the end-of-run summary of a diagnosis (diag.h), as text
 * and as JSON, and the figures of the report's table. Each GPU's whole-run
 * figures are computed once (analyze_summary) and rendered from one table,
 * diag_rows[]: a row is one figure of struct analyze_summary with its JSON
 * key (and the object it sits in), its text in the summary (a printf
 * format; what to say when unknown) and its cell in the report. A figure
 * shown everywhere is one row. Then the verdicts with evidence and advice,
 * the nodes of a multi-node diagnosis, the job's steps and the accounting.
 */
#include "diag.h"
#include "ledger.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"

/* What a row shows: a number of struct analyze_summary, or one of the few other facts. */
enum diag_kind {
    DK_NUM,             /* the double at .offset; JSON null and no text (or .text_none) when unknown */
    DK_WHO,             /* who was on the GPU (text only, when known) */
    DK_GPM,             /* whether GPM was known (JSON true or false) */
    DK_GPM_CODE,        /* why not, as NVML's code */
    DK_GPM_WHY,         /* why not, in words */
    DK_TEXT,            /* .text as it is */
};

/* Which GPUs a row is for: all, those with GPM figures, those without. */
enum diag_when { DW_ALL, DW_GPM, DW_NO_GPM };

struct diag_row {
    enum diag_kind kind;
    size_t offset;
    enum diag_when when;
    const char *group;              /* the JSON object it sits in; NULL: the GPU's */
    const char *json;               /* its key; NULL: not in JSON */
    int dec;                        /* decimals in JSON */
    const char *text, *text_none;   /* the text summary's format of its value; said when it is unknown */
    const char *head, *cell, *cell_none;   /* the report's table: column head (NULL: shares the one before) */
};

#define SUM(field) .offset = offsetof(struct analyze_summary, field)

static const struct diag_row diag_rows[] = {
    {DK_NUM, SUM(util_mean), .group = "utilization", .json = "mean", .dec = 1, .text = "  utilization mean %.1f%%",
     .text_none = "  utilization not available", .head = "utilization mean", .cell = "<td>%.1f%%</td>",
     .cell_none = "<td>n/a</td>"},
    {DK_NUM, SUM(util_p50), .group = "utilization", .json = "p50", .dec = 0, .text = "  p50 %.0f%%", .head = "p50",
     .cell = "<td>%.0f%%</td>", .cell_none = "<td>n/a</td>"},
    {DK_NUM, SUM(util_p95), .group = "utilization", .json = "p95", .dec = 0, .text = "  p95 %.0f%%", .head = "p95",
     .cell = "<td>%.0f%%</td>", .cell_none = "<td>n/a</td>"},
    {DK_NUM, SUM(idle_share), .json = "idle_share", .dec = 1, .text = "  idle %.1f%%", .head = "idle",
     .cell = "<td>%.1f%%</td>", .cell_none = "<td>n/a</td>"},
    {DK_NUM, SUM(mem_peak), .json = "memory_peak_mib", .dec = 0, .text = "  peak memory %.0f", .head = "peak memory",
     .cell = "<td>%.0f", .cell_none = "<td>n/a</td>"},
    {DK_NUM, SUM(mem_total), .json = "memory_total_mib", .dec = 0, .text = "/%.0f MiB", .cell = " / %.0f MiB</td>"},
    {DK_NUM, SUM(mem_peak_share), .text = " (%.1f%%)"},
    {DK_NUM, SUM(throttled_s), .json = "throttled_s", .dec = 1, .text = "  throttled %.0f s", .head = "throttled",
     .cell = "<td>%.0f s</td>"},
    {DK_NUM, SUM(throttled_share), .text = " (%.0f%%)\n"},
    {DK_NUM, SUM(samples), .head = "samples", .cell = "<td>%.0f</td>"},
    {DK_WHO, .text = "  on it: %s\n"},
    {DK_GPM, .group = "gpm", .json = "available"},
    {DK_GPM_CODE, .when = DW_NO_GPM, .group = "gpm", .json = "code"},
    {DK_GPM_WHY, .when = DW_NO_GPM, .group = "gpm", .json = "why", .text = "  GPM not available: %s; utilization alone judged\n"},
    {DK_NUM, SUM(sm_active_mean), .when = DW_GPM, .group = "gpm", .json = "sm_active_mean", .dec = 1,
     .text = "  GPM: SM activity mean %.1f%%"},
    {DK_NUM, SUM(tensor_mean), .when = DW_GPM, .group = "gpm", .json = "tensor_active_mean", .dec = 1,
     .text = "  tensor cores %.1f%%"},
    {DK_NUM, SUM(dram_mean), .when = DW_GPM, .group = "gpm", .json = "dram_active_mean", .dec = 1,
     .text = "  DRAM bandwidth %.1f%%"},
    {DK_TEXT, .when = DW_GPM, .text = "\n"},
};
#define DIAG_NROWS (sizeof diag_rows / sizeof diag_rows[0])

static double diag_row_num(const struct diag_row *r, const struct analyze_summary *s)
{
    double v;
    memcpy(&v, (const char *)s + r->offset, sizeof v);
    return v;
}

static bool diag_row_for(const struct diag_row *r, const struct analyze_summary *s)
{
    return r->when == DW_ALL || (r->when == DW_GPM) == s->gpm;
}

static void diag_ts(double t, struct sbuf *b)
{
    char ts[32];
    struct timespec tv = {(time_t)floor(t), (long)((t - floor(t)) * 1e9)};
    util_rfc3339(&tv, ts);
    sbuf_puts(b, ts);
}

static void diag_ms(struct sbuf *b, const char *what, double seconds)
{
    if (isnan(seconds))
        return;
    sbuf_puts(b, what);
    fmt_duration(b, seconds);
}

/* The processes that reported their steps, over the whole run. */
static void diag_steps_text(const struct diag *d, struct sbuf *b)
{
    unsigned n = 0, nodes = analyze_nnodes(diag_analyzer(d));
    for (unsigned h = 0; h < nodes; h++)
        n += stepstat_nranks(analyze_node_steps(diag_analyzer(d), h));
    if (n == 0)
        return;
    sbuf_printf(b, "Training steps (reported by the job, %u process%s):\n", n, n == 1 ? "" : "es");
    for (unsigned h = 0; h < nodes; h++)
    for (unsigned i = 0; i < stepstat_nranks(analyze_node_steps(diag_analyzer(d), h)); i++) {
        struct stepstat_rank r;
        stepstat_rank(analyze_node_steps(diag_analyzer(d), h), i, analyze_now(diag_analyzer(d)), &r);
        sbuf_puts(b, "  ");
        if (nodes > 1)
            sbuf_printf(b, "%s ", analyze_node_name(diag_analyzer(d), h));
        if (r.rank >= 0)
            sbuf_printf(b, "rank %d ", r.rank);
        sbuf_printf(b, "pid %d", r.pid);
        if (r.gpu >= 0)
            sbuf_printf(b, " on GPU %d", r.gpu);
        /* the rate is over the time the loop trained (waiting for input and computing), said as such; the
         * span it reported over may hold evaluation, checkpoints, the time after done() */
        sbuf_printf(b, ": %.0f step%s", r.run.steps, r.run.steps == 1 ? "" : "s");
        diag_ms(b, " in ", r.run.in_wait_s + r.run.in_compute_s);
        if (!isnan(r.run.rate))
            sbuf_printf(b, " of training (%.2f/s)", r.run.rate);
        sbuf_printf(b, ", reported over %.0f s", r.last_t - r.first_t);
        diag_ms(b, "; step p50 ", r.run.p50);
        diag_ms(b, ", p95 ", r.run.p95);
        if (!isnan(r.run.wait_share)) {
            sbuf_printf(b, "; waiting for input %.0f%% of the time", r.run.wait_share);
            diag_ms(b, " (mean ", r.run.wait_mean);
            sbuf_puts(b, isnan(r.run.wait_mean) ? "" : " per step)");
        }
        if (r.dropped || r.bad)
            sbuf_printf(b, "; %llu entr%s dropped (ring full), %llu invalid", r.dropped, r.dropped == 1 ? "y" : "ies",
                        r.bad);
        sbuf_putc(b, '\n');
    }
}

/* GPU time in the unit that reads best: GPU-seconds under 6 minutes, else GPU-hours. */
static void diag_gpu_time(struct sbuf *b, double s)
{
    if (s < 360)
        sbuf_printf(b, "%.0f GPU-seconds", s);
    else
        sbuf_printf(b, "%.*f GPU-hours", s < 36000 ? 2 : 1, s / 3600);
}

/* GPU time by job and by user: "job 1234: 4 GPUs, 12.8 GPU-hours, 41% idle (5.2 GPU-hours), 38.0 kWh". */
static void diag_account_text(const struct diag *d, struct sbuf *b)
{
    const struct account_entry *e[ACCOUNT_MAX];
    unsigned n = account_sorted(analyze_account(diag_analyzer(d)), e);
    if (n == 0)
        return;
    sbuf_puts(b, "Accounting (GPU time by job and by user; a shared GPU's time is split evenly):\n");
    for (unsigned i = 0; i < n; i++) {
        sbuf_printf(b, "  %s %s: %u GPU%s, ", e[i]->kind == ACCOUNT_JOB ? "job" : "user", e[i]->key, e[i]->ngpus,
                    e[i]->ngpus == 1 ? "" : "s");
        diag_gpu_time(b, e[i]->gpu_s);
        sbuf_printf(b, ", %.0f%% idle (", e[i]->gpu_s > 0 ? 100 * e[i]->idle_s / e[i]->gpu_s : 0);
        diag_gpu_time(b, e[i]->idle_s);
        sbuf_putc(b, ')');
        if (!isnan(e[i]->energy_j))
            sbuf_printf(b, e[i]->energy_j < 360000 ? ", %.1f Wh" : ", %.1f kWh",
                        e[i]->energy_j / (e[i]->energy_j < 360000 ? 3600 : 3.6e6));
        sbuf_putc(b, '\n');
    }
}

/* A GPU's figures in the text summary: each row's text, its value known. */
static void diag_rows_text(const struct analyze_summary *s, struct sbuf *b)
{
    for (size_t i = 0; i < DIAG_NROWS; i++) {
        const struct diag_row *r = &diag_rows[i];
        if (!r->text || !diag_row_for(r, s))
            continue;
        if (r->kind == DK_NUM) {
            double v = diag_row_num(r, s);
            if (isfinite(v))
                sbuf_printf(b, r->text, v);
            else if (r->text_none)
                sbuf_puts(b, r->text_none);
        } else if (r->kind == DK_WHO) {
            if (s->who[0])
                sbuf_printf(b, r->text, s->who);
        } else if (r->kind == DK_GPM_WHY) {
            sbuf_printf(b, r->text, rules_gpm_why(s->gpm_code));
        } else if (r->kind == DK_TEXT) {
            sbuf_puts(b, r->text);
        }
    }
}

static void diag_json_num(struct sbuf *b, const char *key, double v, int dec)
{
    sbuf_printf(b, "\"%s\":", key);
    if (isfinite(v))
        sbuf_put_fixed(b, v, dec);
    else
        sbuf_puts(b, "null");
}

static void diag_steps_json(const struct diag *d, struct sbuf *b)
{
    bool first = true;
    sbuf_puts(b, ",\"steps\":[");
    for (unsigned h = 0; h < analyze_nnodes(diag_analyzer(d)); h++)
    for (unsigned i = 0; i < stepstat_nranks(analyze_node_steps(diag_analyzer(d), h)); i++) {
        struct stepstat_rank r;
        stepstat_rank(analyze_node_steps(diag_analyzer(d), h), i, analyze_now(diag_analyzer(d)), &r);
        sbuf_printf(b, "%s{\"host\":", first ? "" : ",");
        fmt_json_string(b, analyze_node_name(diag_analyzer(d), h));
        sbuf_printf(b, ",\"pid\":%d,", r.pid);
        first = false;
        diag_json_num(b, "rank", r.rank >= 0 ? r.rank : NAN, 0);
        sbuf_putc(b, ',');
        diag_json_num(b, "local_rank", r.local_rank >= 0 ? r.local_rank : NAN, 0);
        sbuf_putc(b, ',');
        diag_json_num(b, "gpu", r.gpu >= 0 ? r.gpu : NAN, 0);
        sbuf_putc(b, ',');
        diag_json_num(b, "steps", r.run.steps, 0);
        sbuf_putc(b, ',');
        diag_json_num(b, "steps_per_s", r.run.rate, 3);
        sbuf_putc(b, ',');
        diag_json_num(b, "training_s", r.run.in_wait_s + r.run.in_compute_s, 3);
        sbuf_putc(b, ',');
        diag_json_num(b, "step_mean_s", r.run.step_mean, 6);
        sbuf_putc(b, ',');
        diag_json_num(b, "step_p50_s", r.run.p50, 6);
        sbuf_putc(b, ',');
        diag_json_num(b, "step_p95_s", r.run.p95, 6);
        sbuf_putc(b, ',');
        diag_json_num(b, "wait_mean_s", r.run.wait_mean, 6);
        sbuf_putc(b, ',');
        diag_json_num(b, "wait_share", r.run.wait_share, 1);
        sbuf_printf(b, ",\"dropped\":%llu,\"invalid\":%llu}", r.dropped, r.bad);
    }
    sbuf_putc(b, ']');
}

static void diag_account_json(const struct diag *d, struct sbuf *b)
{
    const struct account_entry *e[ACCOUNT_MAX];
    unsigned n = account_sorted(analyze_account(diag_analyzer(d)), e);
    sbuf_puts(b, ",\"accounting\":[");
    for (unsigned i = 0; i < n; i++) {
        sbuf_printf(b, "%s{\"%s\":", i ? "," : "", e[i]->kind == ACCOUNT_JOB ? "job" : "user");
        fmt_json_string(b, e[i]->key);
        sbuf_printf(b, ",\"gpus\":%u,", e[i]->ngpus);
        diag_json_num(b, "gpu_seconds", e[i]->gpu_s, 1);
        sbuf_putc(b, ',');
        diag_json_num(b, "idle_gpu_seconds", e[i]->idle_s, 1);
        sbuf_putc(b, ',');
        diag_json_num(b, "energy_joules", e[i]->energy_j, 0);
        sbuf_putc(b, '}');
    }
    sbuf_putc(b, ']');
}

/* A GPU's figures as JSON members (each after a comma), the rows of one object together. */
static void diag_rows_json(const struct analyze_summary *s, struct sbuf *b)
{
    const char *group = NULL;
    bool first = false;   /* the next member opens its object */
    for (size_t i = 0; i < DIAG_NROWS; i++) {
        const struct diag_row *r = &diag_rows[i];
        if (!r->json || !diag_row_for(r, s))
            continue;
        if (group && (!r->group || strcmp(r->group, group)))
            sbuf_putc(b, '}'), group = NULL;
        if (r->group && !group) {
            sbuf_printf(b, ",\"%s\":{", r->group);
            group = r->group;
            first = true;
        }
        if (!first)
            sbuf_putc(b, ',');
        first = false;
        if (r->kind == DK_NUM) {
            diag_json_num(b, r->json, diag_row_num(r, s), r->dec);
        } else if (r->kind == DK_GPM) {
            sbuf_printf(b, "\"%s\":%s", r->json, s->gpm ? "true" : "false");
        } else if (r->kind == DK_GPM_CODE) {
            sbuf_printf(b, "\"%s\":%d", r->json, s->gpm_code);
        } else if (r->kind == DK_GPM_WHY) {
            sbuf_printf(b, "\"%s\":", r->json);
            fmt_json_string(b, rules_gpm_why(s->gpm_code));
        }
    }
    if (group)
        sbuf_putc(b, '}');
}

/* One GPU's cells of the report's table. */
static void diag_html_cells(const struct analyze_summary *s, struct sbuf *b)
{
    for (size_t i = 0; i < DIAG_NROWS; i++) {
        const struct diag_row *r = &diag_rows[i];
        double v = r->cell && r->kind == DK_NUM ? diag_row_num(r, s) : NAN;
        if (isfinite(v))
            sbuf_printf(b, r->cell, v);
        else if (r->cell_none)
            sbuf_puts(b, r->cell_none);
    }
}

void diag_summary_html_table(const struct diag *d, struct sbuf *b)
{
    const struct analyzer *an = diag_analyzer(d);
    bool nodes = analyze_nnodes(an) > 1;
    sbuf_puts(b, "<table class=\"gpus\"><tr>");
    if (nodes)
        sbuf_puts(b, "<th>node</th>");
    sbuf_puts(b, "<th>GPU</th><th>name</th>");
    for (size_t i = 0; i < DIAG_NROWS; i++)
        if (diag_rows[i].head)
            sbuf_printf(b, "<th>%s</th>", diag_rows[i].head);
    sbuf_puts(b, "</tr>\n");
    for (unsigned g = 0; g < analyze_ngpus(an); g++) {
        struct analyze_summary s;
        analyze_summary(an, g, &s);
        sbuf_puts(b, "<tr>");
        if (nodes) {
            sbuf_puts(b, "<td>");
            fmt_html_text(b, s.host);
            sbuf_puts(b, "</td>");
        }
        sbuf_printf(b, "<td>%u</td><td>", s.index);
        fmt_html_text(b, s.name[0] ? s.name : "?");
        if (s.twin) {
            sbuf_puts(b, " (");
            fmt_html_text(b, s.uuid[0] ? s.uuid : "no UUID");
            sbuf_putc(b, ')');
        }
        sbuf_puts(b, "</td>");
        diag_html_cells(&s, b);
        sbuf_puts(b, "</tr>\n");
    }
    sbuf_puts(b, "</table>\n");
}

/* Several nodes: each one's GPUs and their whole-run utilization, and whether it was the slow one. */
static void diag_nodes_text(const struct diag *d, struct sbuf *b)
{
    const struct analyzer *an = diag_analyzer(d);
    unsigned nodes = analyze_nnodes(an), n = analyze_ngpus(an);
    if (nodes < 2)
        return;
    sbuf_printf(b, "Nodes (%u):\n", nodes);
    for (unsigned h = 0; h < nodes; h++) {
        const char *name = analyze_node_name(an, h);
        unsigned gpus = 0;
        double sum = 0, cnt = 0, slow_s = 0;
        for (unsigned g = 0; g < n; g++) {
            struct analyze_summary s;
            if (strcmp(analyze_gpu_host(an, g), name))
                continue;
            analyze_summary(an, g, &s);
            gpus++;
            sum += s.util_sum, cnt += s.n_util;
            slow_s = fmax(slow_s, diag_verdict(d, g, R_SLOW_NODE)->active_s);
        }
        sbuf_printf(b, "  %s: %u GPU%s, utilization mean %.1f%%", name[0] ? name : "(no hostname)", gpus,
                    gpus == 1 ? "" : "s", cnt ? sum / cnt : 0);
        if (slow_s > 0)
            sbuf_printf(b, "; the slow node for %.0f s", slow_s);
        sbuf_putc(b, '\n');
    }
}

/* Why a GPU had no verdict. */
static void diag_verdicts_text(const struct diag *d, unsigned g, const struct analyze_summary *s, struct sbuf *b)
{
    bool any = false;
    for (int r = 0; r < rule_count && !any; r++)
        any = diag_verdict(d, g, r)->ever;
    if (!any && !diag_had_enough(d, g))
        sbuf_printf(b, "  no verdict: %.0f s of data is too little for the %g s window (--window sets it)\n",
                    s->duration_s, diag_config(d)->window_s);
    else if (!any)
        sbuf_puts(b, "  no verdict: utilization is moderate and no problem rule held\n");
}

/* A GPU's time by cause in one line: "  time: compute 91%, input wait 5%, pause 4%". */
static void diag_ledger_line(const struct ledger_totals *t, struct sbuf *b)
{
    if (t->gpu_seconds <= 0)
        return;
    sbuf_puts(b, "  time:");
    bool first = true;
    for (int c = 0; c < LC_COUNT; c++) {
        double share = 100 * t->s[c] / t->gpu_seconds;
        if (share < 0.5 && !(c == LC_COMPUTE && first))
            continue;
        sbuf_printf(b, "%s %s %.0f%%", first ? "" : ",", ledger_causes[c].label, share);
        first = false;
    }
    sbuf_putc(b, '\n');
}

void diag_summary_text(const struct diag *d, struct sbuf *b)
{
    const struct analyzer *an = diag_analyzer(d);
    unsigned n = analyze_ngpus(an);
    sbuf_printf(b, "Summary: %.0f s of records, window %g s, ", diag_first_time(d) > 0 ? analyze_now(an) - diag_first_time(d)
                : 0, diag_config(d)->window_s);
    if (n)
        sbuf_printf(b, "%u GPU%s\n", n, n == 1 ? "" : "s");
    else
        sbuf_puts(b, "no GPU in them\n");
    struct ledger_totals lt;
    ledger_run(diag_ledger(d), &lt);
    if (lt.gpu_seconds > 0) {
        char what[32];
        snprintf(what, sizeof what, "%u GPU%s", lt.gpus, lt.gpus == 1 ? "" : "s");
        ledger_text(&lt, what, diag_cost(d), b);
    }
    diag_groups_text(d, b);
    for (unsigned g = 0; g < n; g++) {
        struct analyze_summary s;
        analyze_summary(an, g, &s);
        if (analyze_nnodes(an) > 1)
            sbuf_printf(b, "%s ", s.host);
        sbuf_printf(b, "GPU %u  %s  ", s.index, s.name[0] ? s.name : "?");
        if (s.twin)   /* the index came back with another UUID: another GPU, named by it */
            sbuf_printf(b, "%s  ", s.uuid[0] ? s.uuid : "(no UUID)");
        sbuf_printf(b, "(%.0f sample%s over %.0f s)\n", s.samples, s.samples == 1 ? "" : "s", s.duration_s);
        diag_rows_text(&s, b);
        if (g < ledger_ngpus(diag_ledger(d)) && n > 1) {
            ledger_gpu(diag_ledger(d), g, &lt);
            diag_ledger_line(&lt, b);
        }
        diag_verdicts_text(d, g, &s, b);
    }
    diag_nodes_text(d, b);
    diag_steps_text(d, b);
    diag_account_text(d, b);
}

static void diag_verdicts_json(const struct diag *d, unsigned g, struct sbuf *b)
{
    bool first = true;
    sbuf_puts(b, ",\"verdicts\":[");
    for (int r = 0; r < rule_count; r++) {
        const struct diag_verdict *v = diag_verdict(d, g, r);
        if (!v->ever)
            continue;
        sbuf_printf(b, "%s{\"id\":\"%s\",\"severity\":\"%s\",\"title\":", first ? "" : ",", rule_table[r].id,
                    rules_severity_name(rule_table[r].severity));
        first = false;
        fmt_json_string(b, rule_table[r].title);
        sbuf_putc(b, ',');
        diag_json_num(b, "held_s", v->active_s, 1);
        sbuf_puts(b, ",\"first\":\"");
        diag_ts(v->first_t, b);
        sbuf_printf(b, "\",\"at_end\":%s,\"evidence\":", v->active ? "true" : "false");
        fmt_json_string(b, v->evidence);
        sbuf_puts(b, ",\"advice\":");
        fmt_json_string(b, rules_advice(r, v->job_watched));
        sbuf_putc(b, '}');
    }
    sbuf_putc(b, ']');
}

void diag_summary_json(const struct diag *d, struct sbuf *b)
{
    const struct analyzer *an = diag_analyzer(d);
    unsigned n = analyze_ngpus(an);
    struct ledger_totals lt;
    ledger_run(diag_ledger(d), &lt);
    sbuf_puts(b, "{\"ledger\":");
    ledger_json(&lt, diag_cost(d), b);
    sbuf_puts(b, ",");
    diag_json_num(b, "window_s", diag_config(d)->window_s, 3);
    sbuf_puts(b, ",");
    diag_json_num(b, "duration_s", diag_first_time(d) > 0 ? analyze_now(an) - diag_first_time(d) : 0, 3);
    diag_groups_json(d, b);
    sbuf_puts(b, ",\"gpus\":[");
    for (unsigned g = 0; g < n; g++) {
        struct analyze_summary s;
        analyze_summary(an, g, &s);
        sbuf_printf(b, "%s{\"host\":", g ? "," : "");
        fmt_json_string(b, s.host);
        sbuf_printf(b, ",\"index\":%u,\"name\":", s.index);
        fmt_json_string(b, s.name);
        sbuf_puts(b, ",\"uuid\":");
        if (s.uuid[0])
            fmt_json_string(b, s.uuid);
        else
            sbuf_puts(b, "null");
        sbuf_printf(b, ",\"samples\":%.0f,\"first\":\"", s.samples);
        diag_ts(s.first_t, b);
        sbuf_puts(b, "\",\"last\":\"");
        diag_ts(s.last_t, b);
        sbuf_putc(b, '"');
        diag_rows_json(&s, b);
        sbuf_printf(b, ",\"enough_data\":%s", diag_had_enough(d, g) ? "true" : "false");
        if (g < ledger_ngpus(diag_ledger(d))) {
            struct ledger_totals lt;
            ledger_gpu(diag_ledger(d), g, &lt);
            sbuf_puts(b, ",\"ledger\":");
            ledger_json(&lt, diag_cost(d), b);
        }
        diag_verdicts_json(d, g, b);
        sbuf_putc(b, '}');
    }
    sbuf_putc(b, ']');
    diag_steps_json(d, b);
    diag_account_json(d, b);
    sbuf_puts(b, "}\n");
}
