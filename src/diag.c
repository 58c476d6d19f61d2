/*
 * diag.c: records -> window figures -> verdicts -> history (see diag.h).
 * The history is an array of every rule per GPU, grown as GPUs appear,
 * so memory does not grow with the run. A verdict's active time adds the
 * record time between two evaluations in which it held.
 */
#include "diag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct diag_gpu {
    struct diag_verdict v[R_COUNT];
    bool had_enough;
};

struct diag {
    struct rule_config cfg;
    struct analyzer *an;
    diag_change_fn *fn;
    void *ctx;
    double first_t, last_eval;
    bool evaluated_latest;
    unsigned n, cap;                   /* GPUs the arrays hold (analyze_ngpus as of the latest record) */
    struct diag_gpu *gpus;
    struct analyze_gpu_stats *stats;   /* at the latest evaluation */
    struct analyze_gpu_stats *prev;    /* at the one before: evidence of a verdict as it last held, when it clears */
    struct sbuf ev[R_COUNT];
};

struct diag *diag_new(const struct rule_config *c, diag_change_fn *fn, void *ctx)
{
    struct diag *d = xcalloc(1, sizeof *d);
    struct analyze_config ac;
    d->cfg = *c;
    rules_analyze_config(c, &ac);
    d->an = analyze_new(&ac);
    d->fn = fn;
    d->ctx = ctx;
    for (int i = 0; i < R_COUNT; i++)
        sbuf_init(&d->ev[i]);
    return d;
}

void diag_free(struct diag *d)
{
    if (!d)
        return;
    analyze_free(d->an);
    for (int i = 0; i < R_COUNT; i++)
        sbuf_free(&d->ev[i]);
    free(d->gpus);
    free(d->stats);
    free(d->prev);
    free(d);
}

const struct analyzer *diag_analyzer(const struct diag *d)
{
    return d->an;
}

const struct rule_config *diag_config(const struct diag *d)
{
    return &d->cfg;
}

double diag_first_time(const struct diag *d)
{
    return d->first_t;
}

const struct diag_verdict *diag_verdict(const struct diag *d, unsigned i, int r)
{
    return &d->gpus[i].v[r];
}

const struct analyze_gpu_stats *diag_stats(const struct diag *d, unsigned i)
{
    return i < d->n && d->last_eval > 0 ? &d->stats[i] : NULL;
}

bool diag_had_enough(const struct diag *d, unsigned i)
{
    return d->gpus[i].had_enough;
}

/* Room for the analyzer's GPUs (new ones zeroed: no verdict yet). */
static void diag_grow(struct diag *d)
{
    unsigned n = analyze_ngpus(d->an);
    if (n > d->cap) {
        unsigned cap = d->cap ? d->cap : 8;
        while (cap < n)
            cap *= 2;
        d->gpus = xrealloc(d->gpus, cap * sizeof *d->gpus);
        d->stats = xrealloc(d->stats, cap * sizeof *d->stats);
        d->prev = xrealloc(d->prev, cap * sizeof *d->prev);
        memset(d->gpus + d->cap, 0, (cap - d->cap) * sizeof *d->gpus);
        memset(d->stats + d->cap, 0, (cap - d->cap) * sizeof *d->stats);
        memset(d->prev + d->cap, 0, (cap - d->cap) * sizeof *d->prev);
        d->cap = cap;
    }
    d->n = n;
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
        bool active[R_COUNT];
        d->gpus[g].had_enough |= s->enough;
        rules_evaluate(s, &d->cfg, active, NULL);
        for (int r = 0; r < rule_count; r++) {
            struct diag_verdict *v = &d->gpus[g].v[r];
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
                struct diag_change ch = {now, now - d->first_t, s->index, g, r, active[r], v->evidence,
                                         analyze_nnodes(d->an) > 1 ? analyze_gpu_host(d->an, g) : NULL};
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
    diag_grow(d);
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
            if (d->gpus[g].v[r].active)
                diag_evidence(d, &d->stats[g], r, &d->gpus[g].v[r]);
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
