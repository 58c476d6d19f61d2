/*
 * diag.c: records -> stats -> verdicts -> history and summary (see
 * diag.h). The history is a fixed array per GPU and rule, so memory does
 * not grow with the run. A verdict's active time adds the record time
 * between two evaluations in which it held.
 */
#include "diag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"

struct diag {
    struct rule_config cfg;
    struct analyzer *an;
    diag_change_fn *fn;
    void *ctx;
    double first_t, last_eval;
    bool evaluated_latest;
    struct diag_verdict v[ANALYZE_MAX_GPUS][RULE_MAX];
    bool had_enough[ANALYZE_MAX_GPUS];
    struct analyze_gpu_stats stats[ANALYZE_MAX_GPUS];
    struct analyze_gpu_stats prev[ANALYZE_MAX_GPUS];   /* the evaluation before: evidence of a verdict
                                                          * as it last held, when it clears */
    struct sbuf ev[RULE_MAX];
};

struct diag *diag_new(const struct rule_config *c, diag_change_fn *fn, void *ctx)
{
    struct diag *d = xcalloc(1, sizeof *d);
    d->cfg = *c;
    d->an = analyze_new(c);
    d->fn = fn;
    d->ctx = ctx;
    for (int i = 0; i < RULE_MAX; i++)
        sbuf_init(&d->ev[i]);
    return d;
}

void diag_free(struct diag *d)
{
    if (!d)
        return;
    analyze_free(d->an);
    for (int i = 0; i < RULE_MAX; i++)
        sbuf_free(&d->ev[i]);
    free(d);
}

const struct analyzer *diag_analyzer(const struct diag *d)
{
    return d->an;
}

const struct diag_verdict *diag_verdict(const struct diag *d, unsigned i, int r)
{
    return &d->v[i][r];
}

const struct analyze_gpu_stats *diag_stats(const struct diag *d, unsigned i)
{
    return i < analyze_ngpus(d->an) && d->last_eval > 0 ? &d->stats[i] : NULL;
}

bool diag_had_enough(const struct diag *d, unsigned i)
{
    return d->had_enough[i];
}

/* Formats rule r's evidence from s into v. Evidence is text, and the most
 * expensive part of an evaluation, so it is made only when a verdict
 * starts, when it clears (from the evaluation before, when it last held)
 * and at the end, not at every record. */
static void diag_evidence(struct diag *d, const struct analyze_gpu_stats *s, int r, struct diag_verdict *v)
{
    sbuf_reset(&d->ev[r]);
    rule_table[r].evidence(s, &d->cfg, &d->ev[r]);
    snprintf(v->evidence, sizeof v->evidence, "%s", d->ev[r].data ? d->ev[r].data : "");
}

static void diag_evaluate(struct diag *d)
{
    double now = analyze_now(d->an), dt = d->last_eval > 0 ? now - d->last_eval : 0;
    unsigned n = analyze_ngpus(d->an);
    analyze_stats(d->an, d->stats);
    for (unsigned g = 0; g < n; g++) {
        const struct analyze_gpu_stats *s = &d->stats[g];
        bool active[RULE_MAX];
        d->had_enough[g] |= s->enough;
        rules_evaluate(s, &d->cfg, active, NULL);
        for (int r = 0; r < rule_count; r++) {
            struct diag_verdict *v = &d->v[g][r];
            if (active[r]) {
                if (v->active)
                    v->active_s += dt;
                v->last_t = now;
            }
            if (active[r] == v->active)
                continue;
            diag_evidence(d, active[r] ? s : &d->prev[g], r, v);
            v->active = active[r];
            if (active[r]) {
                if (!v->ever)
                    v->first_t = now;
                v->ever = true;
                v->starts++;
            }
            if (d->fn) {
                struct diag_change ch = {now, now - d->first_t, s->index, r, active[r], v->evidence,
                                         analyze_nnodes(d->an) > 1 ? analyze_total(d->an, g)->host : NULL};
                d->fn(d->ctx, &ch);
            }
        }
        d->prev[g] = *s;
    }
    d->last_eval = now;
    d->evaluated_latest = true;
}

void diag_feed(struct diag *d, const struct record *r)
{
    double before = analyze_now(d->an);
    analyze_feed(d->an, r);
    double now = analyze_now(d->an);
    if (now == before && before != 0)
        return;   /* out of order: ignored */
    if (d->first_t == 0)
        d->first_t = now;
    d->evaluated_latest = false;
    double step = fmin(1.0, d->cfg.window_s / 30.0);
    if (d->last_eval == 0 || now - d->last_eval >= step)
        diag_evaluate(d);
}

void diag_finish(struct diag *d)
{
    if (!d->evaluated_latest && analyze_now(d->an) > 0)
        diag_evaluate(d);
    for (unsigned g = 0; g < analyze_ngpus(d->an); g++)   /* the evidence of what still holds, as of now */
        for (int r = 0; r < rule_count; r++)
            if (d->v[g][r].active)
                diag_evidence(d, &d->stats[g], r, &d->v[g][r]);
}

void diag_change_line(const struct diag_change *ch, struct sbuf *b)
{
    const struct rule *r = &rule_table[ch->rule];
    sbuf_printf(b, "+%.0fs %s%sGPU %u ", ch->since_start, ch->node ? ch->node : "", ch->node ? " " : "", ch->gpu);
    if (ch->active)
        sbuf_printf(b, "%s %s: %s (%s)", rules_severity_name(r->severity), r->id, r->title, ch->evidence);
    else
        sbuf_printf(b, "cleared %s", r->id);
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
    unsigned n = 0, nodes = analyze_nnodes(d->an);
    for (unsigned h = 0; h < nodes; h++)
        n += stepstat_nranks(analyze_node_steps(d->an, h));
    if (n == 0)
        return;
    sbuf_printf(b, "Training steps (reported by the job, %u process%s):\n", n, n == 1 ? "" : "es");
    for (unsigned h = 0; h < nodes; h++)
    for (unsigned i = 0; i < stepstat_nranks(analyze_node_steps(d->an, h)); i++) {
        struct stepstat_rank r;
        stepstat_rank(analyze_node_steps(d->an, h), i, analyze_now(d->an), &r);
        sbuf_puts(b, "  ");
        if (nodes > 1)
            sbuf_printf(b, "%s ", analyze_node_name(d->an, h));
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
    unsigned n = account_sorted(analyze_account(d->an), e);
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

/* Several nodes: each one's GPUs and their whole-run utilization, and whether it was the slow one. */
static void diag_nodes_text(const struct diag *d, struct sbuf *b)
{
    unsigned nodes = analyze_nnodes(d->an), n = analyze_ngpus(d->an);
    int slow = -1;
    for (int r = 0; r < rule_count && slow < 0; r++)
        if (!strcmp(rule_table[r].id, "slow-node"))
            slow = r;
    if (nodes < 2)
        return;
    sbuf_printf(b, "Nodes (%u):\n", nodes);
    for (unsigned h = 0; h < nodes; h++) {
        const char *name = analyze_node_name(d->an, h);
        unsigned gpus = 0;
        double sum = 0, cnt = 0, slow_s = 0;
        for (unsigned g = 0; g < n; g++) {
            const struct analyze_gpu_total *t = analyze_total(d->an, g);
            if (strcmp(t->host, name))
                continue;
            gpus++;
            for (int k = 0; k <= 100; k++)
                sum += (double)k * (double)t->hist[k], cnt += (double)t->hist[k];
            if (slow >= 0)
                slow_s = fmax(slow_s, diag_verdict(d, g, slow)->active_s);
        }
        sbuf_printf(b, "  %s: %u GPU%s, utilization mean %.1f%%", name[0] ? name : "(no hostname)", gpus,
                    gpus == 1 ? "" : "s", cnt ? sum / cnt : 0);
        if (slow_s > 0)
            sbuf_printf(b, "; the slow node for %.0f s", slow_s);
        sbuf_putc(b, '\n');
    }
}

void diag_summary_text(const struct diag *d, struct sbuf *b)
{
    unsigned n = analyze_ngpus(d->an);
    double now = analyze_now(d->an);
    sbuf_printf(b, "Summary: %.0f s of records, window %g s, %u GPU%s\n", n ? now - d->first_t : 0, d->cfg.window_s,
                n, n == 1 ? "" : "s");
    for (unsigned g = 0; g < n; g++) {
        const struct analyze_gpu_total *t = analyze_total(d->an, g);
        double p50 = analyze_hist_percentile(t->hist, t->n_util, 50);
        double p95 = analyze_hist_percentile(t->hist, t->n_util, 95), sum = 0;
        for (int k = 0; k <= 100; k++)
            sum += (double)k * (double)t->hist[k];
        double dur = t->last_t - t->first_t;
        if (analyze_nnodes(d->an) > 1)
            sbuf_printf(b, "%s ", t->host);
        sbuf_printf(b, "GPU %u  %s  (%llu sample%s over %.0f s)\n", t->index, t->name[0] ? t->name : "?", t->samples,
                    t->samples == 1 ? "" : "s", dur);
        if (t->n_util)
            sbuf_printf(b, "  utilization mean %.1f%%  p50 %.0f%%  p95 %.0f%%  idle %.1f%%", sum / (double)t->n_util,
                        p50, p95, t->idle_sum / (double)t->n_util);
        else
            sbuf_puts(b, "  utilization not available");
        if (t->mem_total > 0)
            sbuf_printf(b, "  peak memory %.0f/%.0f MiB (%.1f%%)", t->mem_peak, t->mem_total,
                        100.0 * t->mem_peak / t->mem_total);
        sbuf_printf(b, "  throttled %.0f s (%.0f%%)\n", t->throttled_s, dur > 0 ? 100.0 * t->throttled_s / dur : 0);
        if (t->who[0])
            sbuf_printf(b, "  on it: %s\n", t->who);
        if (t->n_gpm) {
            sbuf_printf(b, "  GPM: SM activity mean %.1f%%", t->sm_active_sum / (double)t->n_gpm);
            if (t->n_tensor)
                sbuf_printf(b, "  tensor cores %.1f%%", t->tensor_sum / (double)t->n_tensor);
            if (t->n_dram)
                sbuf_printf(b, "  DRAM bandwidth %.1f%%", t->dram_sum / (double)t->n_dram);
            sbuf_putc(b, '\n');
        } else
            sbuf_printf(b, "  GPM not available: %s; utilization alone judged\n", rules_gpm_why(t->gpm_code));
        bool any = false;
        for (int r = 0; r < rule_count; r++) {
            const struct diag_verdict *v = &d->v[g][r];
            if (!v->ever)
                continue;
            any = true;
            char sev[16];
            snprintf(sev, sizeof sev, "%s", rules_severity_name(rule_table[r].severity));
            for (char *p = sev; *p; p++)
                *p = (char)(*p - 'a' + 'A');
            sbuf_printf(b, "  %-8s %s: %s\n", sev, rule_table[r].id, rule_table[r].title);
            sbuf_printf(b, "           held %.0f s, first at +%.0f s%s\n", v->active_s, v->first_t - d->first_t,
                        v->active ? ", still at the end" : "");
            sbuf_printf(b, "           evidence: %s\n", v->evidence);
            if (rule_table[r].severity != SEV_OK)
                sbuf_printf(b, "           advice: %s\n", rule_table[r].advice);
        }
        if (!any && !d->had_enough[g])
            sbuf_printf(b, "  no verdict: %.0f s of data is too little for the %g s window (--window sets it)\n", dur,
                        d->cfg.window_s);
        else if (!any)
            sbuf_puts(b, "  no verdict: utilization is moderate and no problem rule held\n");
    }
    diag_nodes_text(d, b);
    diag_steps_text(d, b);
    diag_account_text(d, b);
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
    for (unsigned h = 0; h < analyze_nnodes(d->an); h++)
    for (unsigned i = 0; i < stepstat_nranks(analyze_node_steps(d->an, h)); i++) {
        struct stepstat_rank r;
        stepstat_rank(analyze_node_steps(d->an, h), i, analyze_now(d->an), &r);
        sbuf_printf(b, "%s{\"host\":", first ? "" : ",");
        fmt_json_string(b, analyze_node_name(d->an, h));
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
    unsigned n = account_sorted(analyze_account(d->an), e);
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

void diag_summary_json(const struct diag *d, struct sbuf *b)
{
    unsigned n = analyze_ngpus(d->an);
    sbuf_puts(b, "{");
    diag_json_num(b, "window_s", d->cfg.window_s, 3);
    sbuf_puts(b, ",");
    diag_json_num(b, "duration_s", n ? analyze_now(d->an) - d->first_t : 0, 3);
    sbuf_puts(b, ",\"gpus\":[");
    for (unsigned g = 0; g < n; g++) {
        const struct analyze_gpu_total *t = analyze_total(d->an, g);
        double sum = 0;
        for (int k = 0; k <= 100; k++)
            sum += (double)k * (double)t->hist[k];
        sbuf_printf(b, "%s{\"host\":", g ? "," : "");
        fmt_json_string(b, t->host);
        sbuf_printf(b, ",\"index\":%u,\"name\":", t->index);
        fmt_json_string(b, t->name);
        sbuf_printf(b, ",\"samples\":%llu,\"first\":\"", t->samples);
        diag_ts(t->first_t, b);
        sbuf_puts(b, "\",\"last\":\"");
        diag_ts(t->last_t, b);
        sbuf_puts(b, "\",\"utilization\":{");
        diag_json_num(b, "mean", t->n_util ? sum / (double)t->n_util : NAN, 1);
        sbuf_putc(b, ',');
        diag_json_num(b, "p50", analyze_hist_percentile(t->hist, t->n_util, 50), 0);
        sbuf_putc(b, ',');
        diag_json_num(b, "p95", analyze_hist_percentile(t->hist, t->n_util, 95), 0);
        sbuf_puts(b, "},");
        diag_json_num(b, "idle_share", t->n_util ? t->idle_sum / (double)t->n_util : NAN, 1);
        sbuf_putc(b, ',');
        diag_json_num(b, "memory_peak_mib", t->mem_total > 0 ? t->mem_peak : NAN, 0);
        sbuf_putc(b, ',');
        diag_json_num(b, "memory_total_mib", t->mem_total > 0 ? t->mem_total : NAN, 0);
        sbuf_putc(b, ',');
        diag_json_num(b, "throttled_s", t->throttled_s, 1);
        if (t->n_gpm) {
            sbuf_puts(b, ",\"gpm\":{\"available\":true,");
            diag_json_num(b, "sm_active_mean", t->sm_active_sum / (double)t->n_gpm, 1);
            sbuf_putc(b, ',');
            diag_json_num(b, "tensor_active_mean", t->n_tensor ? t->tensor_sum / (double)t->n_tensor : NAN, 1);
            sbuf_putc(b, ',');
            diag_json_num(b, "dram_active_mean", t->n_dram ? t->dram_sum / (double)t->n_dram : NAN, 1);
            sbuf_putc(b, '}');
        } else {
            sbuf_printf(b, ",\"gpm\":{\"available\":false,\"code\":%d,\"why\":", t->gpm_code);
            fmt_json_string(b, rules_gpm_why(t->gpm_code));
            sbuf_putc(b, '}');
        }
        sbuf_printf(b, ",\"enough_data\":%s,\"verdicts\":[", d->had_enough[g] ? "true" : "false");
        bool first = true;
        for (int r = 0; r < rule_count; r++) {
            const struct diag_verdict *v = &d->v[g][r];
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
        sbuf_puts(b, "]}");
    }
    sbuf_putc(b, ']');
    diag_steps_json(d, b);
    diag_account_json(d, b);
    sbuf_puts(b, "}\n");
}
