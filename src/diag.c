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
#include "ledger.h"
#include "metrics.h"

struct diag_gpu {
    struct diag_verdict v[R_COUNT];
    char *ev[R_COUNT];                 /* v[r].evidence once a verdict started: allocated when first needed, */
    unsigned ev_cap[R_COUNT];          /* so GPUs without verdicts hold no room for evidence */
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
    struct ledger *ledger;             /* GPU time by cause (ledger.h), fed the points the rules judged */
    double gpu_hour_cost;              /* for the ledger's money; 0 none */
};

/* The verdicts that say a GPU waits for its input: the ledger takes its idle time as input wait while
 * one holds. */
static const int diag_input_rules[] = {R_INPUT_IO, R_INPUT_CPU, R_INPUT_SWING, R_INPUT_WAIT, R_INPUT_WAIT_SOME};

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
    /* the ledger decides with the rules' thresholds: a pause and a stall as the pause and stalled rules
     * see them; idle time waits for an input verdict as long as one may take (the window after the
     * start-up) */
    struct ledger_config lc = {.pause_s = c->t[T_PAUSE_S], .pause_apart_s = c->t[T_PAUSE_APART],
                               .stall_s = c->t[T_STALL_S], .sustain_s = 5,
                               .horizon_s = c->window_s + c->t[T_STARTUP_S]};
    d->ledger = ledger_new(&lc);
    return d;
}

void diag_set_cost(struct diag *d, double per_gpu_hour)
{
    d->gpu_hour_cost = per_gpu_hour > 0 ? per_gpu_hour : 0;
}

double diag_cost(const struct diag *d)
{
    return d->gpu_hour_cost;
}

const struct ledger *diag_ledger(const struct diag *d)
{
    return d->ledger;
}

void diag_free(struct diag *d)
{
    if (!d)
        return;
    analyze_free(d->an);
    ledger_free(d->ledger);
    for (int i = 0; i < R_COUNT; i++)
        sbuf_free(&d->ev[i]);
    for (unsigned g = 0; g < d->cap; g++)
        for (int r = 0; r < R_COUNT; r++)
            free(d->gpus[g].ev[r]);
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
        for (unsigned g = d->cap; g < cap; g++)
            for (int r = 0; r < R_COUNT; r++)
                d->gpus[g].v[r].evidence = "";
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
static void diag_evidence(struct diag *d, const struct analyze_gpu_stats *s, int r, unsigned g)
{
    struct diag_gpu *dg = &d->gpus[g];
    sbuf_reset(&d->ev[r]);
    rule_table[r].evidence(s, &d->cfg, &d->ev[r]);
    size_t n = d->ev[r].data ? strlen(d->ev[r].data) : 0;
    if (n > DIAG_EVIDENCE_MAX - 1)
        n = DIAG_EVIDENCE_MAX - 1;
    if (n + 1 > dg->ev_cap[r]) {   /* most evidence is a sentence or two */
        dg->ev_cap[r] = n < 256 ? 256 : DIAG_EVIDENCE_MAX;
        dg->ev[r] = xrealloc(dg->ev[r], dg->ev_cap[r]);
    }
    memcpy(dg->ev[r], d->ev[r].data ? d->ev[r].data : "", n);
    dg->ev[r][n] = '\0';
    dg->v[r].evidence = dg->ev[r];
    dg->v[r].job_watched = s->job_ok;
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
            diag_evidence(d, active[r] ? s : &d->prev[g], r, g);
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

/* The record's GPUs into the ledger: each one's point as the analysis read it, and whether an input
 * verdict holds on it as the rules judged it last. (Not inlined: bench/ledger_cost.py counts its
 * instructions.) */
__attribute__((noinline)) static void diag_ledger_feed(struct diag *d, const struct record *r)
{
    bool job = r->host[M_JOB_PROCS].state == VS_OK;   /* gpumon run: its job runs from the first record */
    double steps = 0;
    for (unsigned k = 0; k < r->nranks; k++)
        steps += r->ranks[k].steps;
    ledger_steps(d->ledger, steps);
    for (unsigned i = 0; i < r->ngpus; i++) {
        int g = analyze_gpu_of(d->an, r, i);
        struct analyze_latest p;
        if (g < 0 || !analyze_latest(d->an, (unsigned)g, &p))
            continue;
        double total = p.v[AC_MEM_TOTAL], used = p.v[AC_MEM_USED];
        bool held = (total > 0 && used / total * 100 >= d->cfg.t[T_STALL_MEM]) || p.procs > 0;
        struct ledger_point lp = {
            .t = p.t, .lost = p.lost, .idle = p.v[AC_IDLE], .mem_held = held, .job = job || held,
            .clock_ratio = p.v[AC_SM_CLOCK_MAX] > 0 ? p.v[AC_SM_CLOCK] / p.v[AC_SM_CLOCK_MAX] : NAN,
            .clock_held = p.clock_held, .wait_s = NAN, .steps = p.steps_ok ? p.steps : 0,
            .sm_active = p.v[AC_SM_ACTIVE], .tensor = p.v[AC_TENSOR], .energy_j = NAN,
            .idle_by_design = p.notebook || p.server, .progress = p.progress,
            .allocating = d->last_eval > 0 && rules_allocating(&d->stats[g], &d->cfg),
        };
        if (p.steps_ok) {   /* the loop's share of its time waiting, over the record's interval */
            double w = fmax(0, p.v[AC_IN_WAIT]), c = fmax(0, p.v[AC_IN_COMPUTE]), dt = ledger_interval(d->ledger, g, p.t);
            double k = w + c > dt && dt > 0 ? dt / (w + c) : 1;   /* several processes on the GPU: their mean */
            lp.wait_s = w * k;
            lp.loop_s = (w + c) * k;
        }
        const struct value *e = &r->gpus[i].v[M_ENERGY];
        if (e->state == VS_OK)
            lp.energy_j = e->u.f;
        for (size_t k = 0; k < sizeof diag_input_rules / sizeof diag_input_rules[0]; k++)
            lp.input_verdict |= d->gpus[g].v[diag_input_rules[k]].active;
        ledger_feed(d->ledger, (unsigned)g, &lp);
    }
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
    diag_ledger_feed(d, r);
}

void diag_finish(struct diag *d)
{
    if (!d->evaluated_latest && analyze_now(d->an) > 0)
        diag_evaluate(d);
    for (unsigned g = 0; g < analyze_ngpus(d->an); g++)   /* the evidence of what still holds, as of now */
        for (int r = 0; r < rule_count; r++)
            if (d->gpus[g].v[r].active)
                diag_evidence(d, &d->stats[g], r, g);
    ledger_finish(d->ledger);
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
