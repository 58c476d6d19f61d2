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
        sbuf_printf(b, ": %.0f step%s in %.0f s (%.2f/s)", r.run.steps, r.run.steps == 1 ? "" : "s",
                    r.last_t - r.first_t, isnan(r.run.rate) ? 0 : r.run.rate);
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

void diag_summary_html(const struct analyze_summary *s, struct sbuf *b)
{
    sbuf_puts(b, "<table><tr>");
    for (size_t i = 0; i < DIAG_NROWS; i++)
        if (diag_rows[i].head)
            sbuf_printf(b, "<th>%s</th>", diag_rows[i].head);
    sbuf_puts(b, "</tr><tr>");
    for (size_t i = 0; i < DIAG_NROWS; i++) {
        const struct diag_row *r = &diag_rows[i];
        double v = r->cell && r->kind == DK_NUM ? diag_row_num(r, s) : NAN;
        if (isfinite(v))
            sbuf_printf(b, r->cell, v);
        else if (r->cell_none)
            sbuf_puts(b, r->cell_none);
    }
    sbuf_puts(b, "</tr></table>\n");
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

/* ---- verdicts grouped: one block per rule over the GPUs that had it ---- */

/* A number of an evidence text: where it starts, how long it is, its value. */
struct diag_num {
    size_t at, len;
    double v;
};

/* The numbers of text (digits, with a fraction), at most max; their count. */
static unsigned diag_numbers(const char *text, struct diag_num *out, unsigned max)
{
    unsigned n = 0;
    for (size_t i = 0; text[i] && n < max;) {
        if (text[i] < '0' || text[i] > '9') {
            i++;
            continue;
        }
        size_t j = i;
        while (text[j] >= '0' && text[j] <= '9')
            j++;
        if (text[j] == '.' && text[j + 1] >= '0' && text[j + 1] <= '9')
            for (j++; text[j] >= '0' && text[j] <= '9'; j++)
                ;
        out[n++] = (struct diag_num){i, j - i, strtod(text + i, NULL)};
        i = j;
    }
    return n;
}

#define DIAG_MAX_NUMS 64

/* Whether two evidence texts say the same but for their numbers. */
static bool diag_same_words(const char *x, const char *y)
{
    struct diag_num a[DIAG_MAX_NUMS], c[DIAG_MAX_NUMS];
    unsigned na = diag_numbers(x, a, DIAG_MAX_NUMS), nc = diag_numbers(y, c, DIAG_MAX_NUMS);
    if (na != nc)
        return false;
    size_t pa = 0, pc = 0;
    for (unsigned k = 0; k <= na; k++) {
        size_t ea = k < na ? a[k].at : strlen(x), ec = k < nc ? c[k].at : strlen(y);
        if (ea - pa != ec - pc || memcmp(x + pa, y + pc, ea - pa))
            return false;
        if (k < na)
            pa = a[k].at + a[k].len, pc = c[k].at + c[k].len;
    }
    return true;
}

/* The evidence of GPUs gs[0..n) (the same words) as one text: each number that differs as its range
 * ("waited 38-40% of the time"). */
static void diag_merge_evidence(const struct diag *d, int r, const unsigned *gs, unsigned n, struct sbuf *b)
{
    const char *first = diag_verdict(d, gs[0], r)->evidence;
    struct diag_num base[DIAG_MAX_NUMS], o[DIAG_MAX_NUMS];
    unsigned nb = diag_numbers(first, base, DIAG_MAX_NUMS);
    size_t at = 0;
    for (unsigned k = 0; k < nb; k++) {
        const char *lo = first + base[k].at, *hi = lo;
        size_t llo = base[k].len, lhi = llo;
        double vlo = base[k].v, vhi = vlo;
        for (unsigned i = 1; i < n; i++) {
            const char *e = diag_verdict(d, gs[i], r)->evidence;
            diag_numbers(e, o, DIAG_MAX_NUMS);
            if (o[k].v < vlo)
                vlo = o[k].v, lo = e + o[k].at, llo = o[k].len;
            if (o[k].v > vhi)
                vhi = o[k].v, hi = e + o[k].at, lhi = o[k].len;
        }
        sbuf_add(b, first + at, base[k].at - at);
        sbuf_add(b, lo, llo);
        if (vhi > vlo) {
            sbuf_putc(b, '-');
            sbuf_add(b, hi, lhi);
        }
        at = base[k].at + base[k].len;
    }
    sbuf_puts(b, first + at);
}

/* "GPU 5", "GPUs 0-3, 5", with their nodes in a diagnosis of several ("node-a GPUs 0-7, node-b GPU 2"). */
static void diag_gpu_set(const struct diag *d, const unsigned *gs, unsigned n, struct sbuf *b)
{
    const struct analyzer *an = diag_analyzer(d);
    bool nodes = analyze_nnodes(an) > 1;
    for (unsigned i = 0; i < n;) {
        const char *host = analyze_gpu_host(an, gs[i]);
        unsigned j = i, count = 0;
        while (j < n && (!nodes || !strcmp(analyze_gpu_host(an, gs[j]), host)))
            j++, count++;
        if (i)
            sbuf_puts(b, ", ");
        if (nodes)
            sbuf_printf(b, "%s ", host[0] ? host : "(no hostname)");
        sbuf_puts(b, count == 1 ? "GPU " : "GPUs ");
        for (unsigned k = i; k < j;) {   /* runs of consecutive indices */
            unsigned e = k;
            while (e + 1 < j && analyze_gpu_index(an, gs[e + 1]) == analyze_gpu_index(an, gs[e]) + 1)
                e++;
            sbuf_printf(b, k > i ? ",%u" : "%u", analyze_gpu_index(an, gs[k]));
            if (e > k)
                sbuf_printf(b, "-%u", analyze_gpu_index(an, gs[e]));
            k = e + 1;
        }
        i = j;
    }
}

/* A range of seconds as the text says it: "180 s", "178-182 s". */
static void diag_range(struct sbuf *b, const char *prefix, double lo, double hi)
{
    sbuf_printf(b, "%s%.0f", prefix, lo);
    if (floor(hi + 0.5) > floor(lo + 0.5))
        sbuf_printf(b, "-%.0f", hi);
}

/* The verdicts of every GPU, grouped: one block per rule with the GPUs that had it, the ranges of their
 * times and figures, an evidence line for each set of GPUs whose evidence says other things, the advice
 * once. */
static void diag_groups_text(const struct diag *d, struct sbuf *b)
{
    unsigned n = analyze_ngpus(diag_analyzer(d));
    unsigned *gs = xmalloc((n ? n : 1) * sizeof *gs), *sub = xmalloc((n ? n : 1) * sizeof *sub);
    bool *done = xmalloc(n ? n : 1);
    bool headed = false;
    for (int r = 0; r < rule_count; r++) {
        unsigned k = 0, at_end = 0;
        double held_lo = INFINITY, held_hi = 0, first_lo = INFINITY, first_hi = -INFINITY;
        for (unsigned g = 0; g < n; g++) {
            const struct diag_verdict *v = diag_verdict(d, g, r);
            if (!v->ever)
                continue;
            gs[k++] = g;
            at_end += v->active;
            held_lo = fmin(held_lo, v->active_s), held_hi = fmax(held_hi, v->active_s);
            first_lo = fmin(first_lo, v->first_t), first_hi = fmax(first_hi, v->first_t);
        }
        if (k == 0)
            continue;
        if (!headed)
            sbuf_puts(b, "Verdicts:\n");
        headed = true;
        char sev[16];
        snprintf(sev, sizeof sev, "%s", rules_severity_name(rule_table[r].severity));
        for (char *p = sev; *p; p++)
            *p = (char)(*p - 'a' + 'A');
        sbuf_puts(b, "  ");
        diag_gpu_set(d, gs, k, b);
        sbuf_printf(b, "  %-8s %s: %s\n", sev, rule_table[r].id, rule_table[r].title);
        diag_range(b, "           held ", held_lo, held_hi);
        diag_range(b, " s, first at +", first_lo - diag_first_time(d), first_hi - diag_first_time(d));
        sbuf_puts(b, " s");
        if (at_end == k)
            sbuf_puts(b, ", still at the end");
        else if (at_end) {
            unsigned m = 0;
            for (unsigned i = 0; i < k; i++)
                if (diag_verdict(d, gs[i], r)->active)
                    sub[m++] = gs[i];
            sbuf_puts(b, ", still at the end on ");
            diag_gpu_set(d, sub, m, b);
        }
        sbuf_putc(b, '\n');
        memset(done, 0, n);
        bool several = false;
        for (unsigned i = 0; i < k; i++)
            several |= !diag_same_words(diag_verdict(d, gs[0], r)->evidence, diag_verdict(d, gs[i], r)->evidence);
        for (unsigned i = 0; i < k; i++) {   /* one line per set of GPUs whose evidence has the same words */
            if (done[gs[i]])
                continue;
            unsigned m = 0;
            for (unsigned j = i; j < k; j++)
                if (!done[gs[j]] && diag_same_words(diag_verdict(d, gs[i], r)->evidence,
                                                    diag_verdict(d, gs[j], r)->evidence)) {
                    sub[m++] = gs[j];
                    done[gs[j]] = true;
                }
            sbuf_puts(b, "           evidence");
            if (several) {
                sbuf_puts(b, " (");
                diag_gpu_set(d, sub, m, b);
                sbuf_putc(b, ')');
            }
            sbuf_puts(b, ": ");
            diag_merge_evidence(d, r, sub, m, b);
            sbuf_putc(b, '\n');
        }
        if (rule_table[r].severity != SEV_OK)
            sbuf_printf(b, "           advice: %s\n", rule_table[r].advice);
    }
    free(gs);
    free(sub);
    free(done);
}

/* The GPUs gs[0..n) as JSON: [{"host":..,"index":..},...]. */
static void diag_gpus_json(const struct diag *d, const unsigned *gs, unsigned n, struct sbuf *b)
{
    sbuf_putc(b, '[');
    for (unsigned i = 0; i < n; i++) {
        sbuf_puts(b, i ? ",{\"host\":" : "{\"host\":");
        fmt_json_string(b, analyze_gpu_host(diag_analyzer(d), gs[i]));
        sbuf_printf(b, ",\"index\":%u}", analyze_gpu_index(diag_analyzer(d), gs[i]));
    }
    sbuf_putc(b, ']');
}

/* The grouped verdicts as JSON: "verdict_groups":[{"id","severity","title","gpus","held_s":[lo,hi],
 * "at_end":[GPUs],"evidence":[{"gpus","text"}],"advice"}]. */
static void diag_groups_json(const struct diag *d, struct sbuf *b)
{
    unsigned n = analyze_ngpus(diag_analyzer(d));
    unsigned *gs = xmalloc((n ? n : 1) * sizeof *gs), *sub = xmalloc((n ? n : 1) * sizeof *sub);
    bool *done = xmalloc(n ? n : 1), first = true;
    struct sbuf ev;
    sbuf_init(&ev);
    sbuf_puts(b, ",\"verdict_groups\":[");
    for (int r = 0; r < rule_count; r++) {
        unsigned k = 0, m = 0;
        double lo = INFINITY, hi = 0;
        for (unsigned g = 0; g < n; g++) {
            const struct diag_verdict *v = diag_verdict(d, g, r);
            if (!v->ever)
                continue;
            gs[k++] = g;
            lo = fmin(lo, v->active_s), hi = fmax(hi, v->active_s);
        }
        if (k == 0)
            continue;
        sbuf_printf(b, "%s{\"id\":\"%s\",\"severity\":\"%s\",\"title\":", first ? "" : ",", rule_table[r].id,
                    rules_severity_name(rule_table[r].severity));
        first = false;
        fmt_json_string(b, rule_table[r].title);
        sbuf_puts(b, ",\"gpus\":");
        diag_gpus_json(d, gs, k, b);
        sbuf_printf(b, ",\"held_s\":[%.1f,%.1f],\"at_end\":", lo, hi);
        for (unsigned i = 0; i < k; i++)
            if (diag_verdict(d, gs[i], r)->active)
                sub[m++] = gs[i];
        diag_gpus_json(d, sub, m, b);
        sbuf_puts(b, ",\"evidence\":[");
        memset(done, 0, n);
        bool efirst = true;
        for (unsigned i = 0; i < k; i++) {
            if (done[gs[i]])
                continue;
            m = 0;
            for (unsigned j = i; j < k; j++)
                if (!done[gs[j]] && diag_same_words(diag_verdict(d, gs[i], r)->evidence,
                                                    diag_verdict(d, gs[j], r)->evidence)) {
                    sub[m++] = gs[j];
                    done[gs[j]] = true;
                }
            sbuf_puts(b, efirst ? "{\"gpus\":" : ",{\"gpus\":");
            efirst = false;
            diag_gpus_json(d, sub, m, b);
            sbuf_reset(&ev);
            diag_merge_evidence(d, r, sub, m, &ev);
            sbuf_puts(b, ",\"text\":");
            fmt_json_string(b, ev.data ? ev.data : "");
            sbuf_putc(b, '}');
        }
        sbuf_puts(b, "],\"advice\":");
        fmt_json_string(b, rule_table[r].advice);
        sbuf_putc(b, '}');
    }
    sbuf_putc(b, ']');
    sbuf_free(&ev);
    free(gs);
    free(sub);
    free(done);
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
    sbuf_printf(b, "Summary: %.0f s of records, window %g s, %u GPU%s\n", n ? analyze_now(an) - diag_first_time(d) : 0,
                diag_config(d)->window_s, n, n == 1 ? "" : "s");
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
        sbuf_printf(b, "(%.0f samples over %.0f s)\n", s.samples, s.duration_s);
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
        fmt_json_string(b, rule_table[r].advice);
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
    diag_json_num(b, "duration_s", n ? analyze_now(an) - diag_first_time(d) : 0, 3);
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
