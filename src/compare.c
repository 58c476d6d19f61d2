/*
 * compare.c: two runs compared (compare.h). Each run's records are folded
 * into at most COMPARE_MAX_BLOCKS blocks of consecutive records (pairs
 * merge when the blocks run out, so memory stays bounded however long the
 * log), each block holding the sums the figures need: record time, steps,
 * the loop's input wait and compute time, energy, GPU activity, and the
 * histogram of its step times (the records' 4.4%-wide bins).
 *
 * A figure's change is judged by a block bootstrap: the blocks are grouped
 * into about n^(1/3) runs of consecutive blocks each (so that the slow
 * drift of a job, and steps that are not independent of their neighbours,
 * stay inside a resampled unit), each run is resampled with replacement
 * COMPARE_REPLICATES times with a fixed seed (the same logs give the same
 * answer), and the 95% interval of the change (b/a, or b-a in points for a
 * share) is read from the replicates. The step-time test is this interval
 * of the ratio of the medians (p95 alike), medians read from the merged
 * histograms with interpolation inside a bin. A change is clear when the
 * interval leaves out "no change" and the change itself is at least the
 * figure's floor (5% of a time or rate: the bins' width and the run-to-run
 * spread of real jobs; 5 points of a share), so that two runs of one job
 * come out "no clear change" however many steps they hold. The duration is
 * one number per run, with no noise to test: it is judged by its floor
 * only. The ledger's shares (each run diagnosed as diagnose would, its
 * decided GPU-seconds attributed to the block of records that decided
 * them) are figures like the others, in points. Wording and the table of figures are here; commands only print.
 */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "fmt.h"
#include "ledger.h"
#include "metrics.h"

#define COMPARE_MAX_BLOCKS 1024
#define COMPARE_REPLICATES 2000
#define COMPARE_MIN_UNITS 3          /* resampled units each run needs for a verdict */

struct compare_sums {
    double loop_s, loop_steps;       /* the loop's time in the records (its busiest process), their steps */
    double steps, wait_s, compute_s; /* all records: steps ended, the loop's input wait and compute time */
    double energy_j;                 /* energy of every GPU over the loop's time in the records */
    double act[3], act_n[3];         /* utilization, SM, tensor: sums and counts of GPU values */
    double cause[LC_COUNT], gpu_s;   /* the ledger's GPU-seconds decided in these records, by cause, and all */
};

struct compare_bin {
    uint16_t bin;
    uint32_t n;
};

struct compare_block {
    struct compare_sums s;
    unsigned nrec, nbins, cap;
    struct compare_bin *bins;        /* sorted by bin */
};

struct compare_run {
    struct compare_block blk[COMPARE_MAX_BLOCKS];
    unsigned nblk, per_block;        /* records a block takes */
    double first_t, last_t;
    bool have_t;
    unsigned long long records, steps;
    unsigned ngpu;                   /* 1 + the highest GPU index seen */
    double *energy_prev;             /* per GPU index: the latest energy reading, NAN none */
    struct diag *diag;               /* the run diagnosed, for its ledger (the defaults of diagnose) */
    double ledger_seen[LC_COUNT];    /* the ledger's totals as of the latest record */
    bool finished;
};

/* ---- the figures ---- */

enum compare_kind { CK_RATIO, CK_POINTS };

/* What a figure is, how it is computed from a run's sums (and step histogram), and what is better. */
struct compare_figure {
    const char *key, *label;
    enum compare_kind kind;
    int better;                      /* +1 higher is better, -1 lower */
    double floor;                    /* least change that counts: a ratio's 1 + floor, or points */
    bool tested;                     /* judged by the bootstrap (else by its floor alone) */
    int act;                         /* the activity figure it reads (0-2), or -1 */
    enum metric_id metric;           /* the metric an activity figure averages */
    double pct;                      /* a step-time percentile, or 0 */
    const char *unit;                /* how it is printed: "s", "ms", "%", "/s", "J" */
};

static const struct compare_figure compare_figs[CF_COUNT] = {
    [CF_DURATION] = {.key = "duration_s", .label = "duration", .kind = CK_RATIO, .better = -1, .floor = 0.05,
                     .tested = false, .act = -1, .unit = "s"},
    [CF_STEPS_PER_S] = {.key = "steps_per_s", .label = "steps/s", .kind = CK_RATIO, .better = +1,
                        .floor = 0.05, .tested = true, .act = -1, .unit = "/s"},
    [CF_STEP_P50] = {.key = "step_p50_s", .label = "step time p50", .kind = CK_RATIO, .better = -1,
                     .floor = 0.05, .tested = true, .act = -1, .pct = 50, .unit = "ms"},
    [CF_STEP_P95] = {.key = "step_p95_s", .label = "step time p95", .kind = CK_RATIO, .better = -1,
                     .floor = 0.05, .tested = true, .act = -1, .pct = 95, .unit = "ms"},
    [CF_INPUT_WAIT] = {.key = "input_wait_share", .label = "input wait", .kind = CK_POINTS, .better = -1,
                       .floor = 5, .tested = true, .act = -1, .unit = "%"},
    [CF_UTIL] = {.key = "utilization", .label = "utilization", .kind = CK_POINTS, .better = +1, .floor = 5,
                 .tested = true, .act = 0, .metric = M_UTIL_GPU, .unit = "%"},
    [CF_SM] = {.key = "sm_active", .label = "SM activity", .kind = CK_POINTS, .better = +1, .floor = 5,
               .tested = true, .act = 1, .metric = M_GPM_SM_ACTIVE, .unit = "%"},
    [CF_TENSOR] = {.key = "tensor_active", .label = "tensor activity", .kind = CK_POINTS, .better = +1,
                   .floor = 5, .tested = true, .act = 2, .metric = M_GPM_TENSOR_ACTIVE, .unit = "%"},
    [CF_ENERGY_STEP] = {.key = "energy_per_step_j", .label = "energy per step", .kind = CK_RATIO,
                        .better = -1, .floor = 0.05, .tested = true, .act = -1, .unit = "J"},
#define COMPARE_LEDGER_ROW(c, k, l, dir) \
    [CF_LEDGER + (c)] = {.key = "ledger_" k, .label = "time: " l, .kind = CK_POINTS, .better = (dir), .floor = 5, \
                         .tested = true, .act = -1, .unit = "%"}
    COMPARE_LEDGER_ROW(LC_COMPUTE, "compute", "compute", +1),
    COMPARE_LEDGER_ROW(LC_INPUT_WAIT, "input_wait", "input wait", -1),
    COMPARE_LEDGER_ROW(LC_THROTTLED, "throttled", "throttled", -1),
    COMPARE_LEDGER_ROW(LC_STARTUP, "startup", "startup", -1),
    COMPARE_LEDGER_ROW(LC_PAUSE, "pause", "pause", -1),
    COMPARE_LEDGER_ROW(LC_STALLED, "stalled", "stalled", -1),
    COMPARE_LEDGER_ROW(LC_IDLE, "idle", "idle", -1),
    COMPARE_LEDGER_ROW(LC_LOST, "lost", "lost", -1),
#undef COMPARE_LEDGER_ROW
};

_Static_assert(LC_COUNT == CF_COUNT - CF_LEDGER, "a compare figure per ledger cause");

/* ---- a run's blocks ---- */

struct compare_run *compare_run_new(void)
{
    struct compare_run *r = xcalloc(1, sizeof *r);
    struct rule_config c;
    rules_defaults(&c);
    r->per_block = 1;
    r->diag = diag_new(&c, NULL, NULL);
    return r;
}

void compare_run_free(struct compare_run *r)
{
    if (!r)
        return;
    for (unsigned i = 0; i < r->nblk; i++)
        free(r->blk[i].bins);
    free(r->energy_prev);
    diag_free(r->diag);
    free(r);
}

unsigned long long compare_run_records(const struct compare_run *r)
{
    return r->records;
}

/* Adds n steps of bin to a block's sorted histogram. */
static void compare_bin_add(struct compare_block *b, unsigned bin, unsigned long long n)
{
    unsigned lo = 0, hi = b->nbins;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (b->bins[mid].bin < bin)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < b->nbins && b->bins[lo].bin == bin) {
        b->bins[lo].n += (uint32_t)n;
        return;
    }
    if (b->nbins == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 8;
        b->bins = xrealloc(b->bins, b->cap * sizeof *b->bins);
    }
    memmove(&b->bins[lo + 1], &b->bins[lo], (b->nbins - lo) * sizeof *b->bins);
    b->bins[lo] = (struct compare_bin){(uint16_t)bin, (uint32_t)n};
    b->nbins++;
}

static void compare_sums_add(struct compare_sums *to, const struct compare_sums *s)
{
    to->loop_s += s->loop_s;
    to->loop_steps += s->loop_steps;
    to->steps += s->steps;
    to->wait_s += s->wait_s;
    to->compute_s += s->compute_s;
    to->energy_j += s->energy_j;
    for (int i = 0; i < 3; i++) {
        to->act[i] += s->act[i];
        to->act_n[i] += s->act_n[i];
    }
    for (int c = 0; c < LC_COUNT; c++)
        to->cause[c] += s->cause[c];
    to->gpu_s += s->gpu_s;
}

/* The ledger's seconds decided since the last call go to block b. */
static void compare_ledger_delta(struct compare_run *r, struct compare_sums *s)
{
    struct ledger_totals t;
    ledger_run(diag_ledger(r->diag), &t);
    for (int c = 0; c < LC_COUNT; c++) {
        double d = t.s[c] - r->ledger_seen[c];
        if (d > 0) {
            s->cause[c] += d;
            s->gpu_s += d;
        }
        r->ledger_seen[c] = t.s[c];
    }
}

void compare_run_finish(struct compare_run *r)
{
    if (r->finished || r->nblk == 0)
        return;
    r->finished = true;
    diag_finish(r->diag);
    compare_ledger_delta(r, &r->blk[r->nblk - 1].s);   /* what the end decided: the last records' */
}

/* to += from (from's storage freed). */
static void compare_block_merge(struct compare_block *to, struct compare_block *from)
{
    compare_sums_add(&to->s, &from->s);
    to->nrec += from->nrec;
    for (unsigned k = 0; k < from->nbins; k++)
        compare_bin_add(to, from->bins[k].bin, from->bins[k].n);
    free(from->bins);
    memset(from, 0, sizeof *from);
}

/* The block the next record goes to: pairs merge when every block is taken. */
static struct compare_block *compare_block_next(struct compare_run *r)
{
    if (r->nblk && r->blk[r->nblk - 1].nrec < r->per_block)
        return &r->blk[r->nblk - 1];
    if (r->nblk == COMPARE_MAX_BLOCKS) {
        for (unsigned i = 0; i < COMPARE_MAX_BLOCKS / 2; i++) {
            struct compare_block merged = r->blk[2 * i];
            memset(&r->blk[2 * i], 0, sizeof r->blk[0]);
            compare_block_merge(&merged, &r->blk[2 * i + 1]);
            r->blk[i] = merged;
        }
        r->nblk = COMPARE_MAX_BLOCKS / 2;
        r->per_block *= 2;
        if (r->blk[r->nblk - 1].nrec < r->per_block)
            return &r->blk[r->nblk - 1];
    }
    return &r->blk[r->nblk++];
}

static double compare_num(const struct value *v, enum metric_id id)
{
    if (v->state != VS_OK)
        return NAN;
    return metric_table[id].kind == MK_FLOAT ? v->u.f : (double)v->u.i;
}

void compare_run_feed(struct compare_run *r, const struct record *rec)
{
    double t = (double)rec->time.tv_sec + rec->time.tv_nsec / 1e9;
    if (r->have_t && t < r->last_t)
        return;   /* out of order: the analysis takes records in time order */
    double dt = r->have_t ? t - r->last_t : NAN;
    struct compare_block *b = compare_block_next(r);
    struct compare_sums *s = &b->s;
    if (!r->have_t)
        r->first_t = t;
    r->last_t = t;
    r->have_t = true;
    r->records++;
    b->nrec++;
    double steps = 0, loop = 0;
    for (unsigned i = 0; i < rec->nranks; i++) {
        const struct record_rank *k = &rec->ranks[i];
        double w = fmax(0, k->in_wait_s - k->unwait_s);
        steps += k->steps;
        s->wait_s += w;
        s->compute_s += k->in_compute_s;
        loop = fmax(loop, w + k->in_compute_s);
        for (unsigned j = 0; j < k->nbins; j++)
            compare_bin_add(b, k->bins[j].bin, k->bins[j].n);
    }
    s->steps += steps;
    r->steps += (unsigned long long)steps;
    if (dt > 0 && loop > 0) {   /* the rate counts the loop's own time: not the job's start, nor its end */
        s->loop_s += fmin(loop, dt);
        s->loop_steps += steps;
    }
    double loop_share = dt > 0 && loop > 0 ? fmin(loop, dt) / dt : 0;
    for (unsigned g = 0; g < rec->ngpus; g++) {
        const struct record_gpu *rg = &rec->gpus[g];
        if (rg->index >= r->ngpu) {
            unsigned n = rg->index + 1;
            r->energy_prev = xrealloc(r->energy_prev, n * sizeof *r->energy_prev);
            for (unsigned i = r->ngpu; i < n; i++)
                r->energy_prev[i] = NAN;
            r->ngpu = n;
        }
        for (int a = 0; a < 3; a++) {
            enum metric_id id = compare_figs[CF_UTIL + a].metric;
            double v = compare_num(&rg->v[id], id);
            if (!isnan(v)) {
                s->act[a] += v;
                s->act_n[a]++;
            }
        }
        double e = compare_num(&rg->v[M_ENERGY], M_ENERGY), *prev = &r->energy_prev[rg->index];
        if (!isnan(e) && !isnan(*prev) && e >= *prev)
            s->energy_j += (e - *prev) * loop_share;
        *prev = e;
    }
    diag_feed(r->diag, rec);
    compare_ledger_delta(r, s);
}

/* ---- figures from sums ---- */

/* Percentile pct of a dense step histogram (n steps), interpolated inside its bin; NAN without steps. */
static double compare_hist_pct(const uint64_t *h, uint64_t n, double pct)
{
    if (n == 0)
        return NAN;
    double want = pct / 100.0 * (double)n, cum = 0;
    for (unsigned b = 0; b < RECORD_STEP_NBINS; b++) {
        if (!h[b])
            continue;
        if (cum + (double)h[b] >= want) {
            double f = ((want - cum) / (double)h[b]);
            return 1e-6 * exp2((b + f) / 16.0);
        }
        cum += (double)h[b];
    }
    return 1e-6 * exp2(RECORD_STEP_NBINS / 16.0);
}

/* A figure's value from a run's summed blocks (duration aside). */
static double compare_value(enum compare_fig f, const struct compare_sums *s, const uint64_t *h, uint64_t n)
{
    const struct compare_figure *cf = &compare_figs[f];
    if (cf->act >= 0)
        return s->act_n[cf->act] > 0 ? s->act[cf->act] / s->act_n[cf->act] : NAN;
    if (f >= CF_LEDGER)
        return s->gpu_s > 0 ? 100 * s->cause[f - CF_LEDGER] / s->gpu_s : NAN;
    if (cf->pct > 0)
        return compare_hist_pct(h, n, cf->pct);
    switch (f) {
    case CF_STEPS_PER_S:
        return s->loop_s > 0 && s->loop_steps > 0 ? s->loop_steps / s->loop_s : NAN;
    case CF_INPUT_WAIT:
        return s->wait_s + s->compute_s > 0 ? 100.0 * s->wait_s / (s->wait_s + s->compute_s) : NAN;
    case CF_ENERGY_STEP:
        return s->loop_steps > 0 && s->energy_j > 0 ? s->energy_j / s->loop_steps : NAN;
    default:
        return NAN;
    }
}

static double compare_change_of(enum compare_fig f, double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (compare_figs[f].kind == CK_POINTS)
        return b - a;
    return a > 0 ? b / a : NAN;
}

/* ---- the bootstrap ---- */

/* A run cut into resampling units: runs of consecutive blocks, each its sums and histogram. */
struct compare_units {
    unsigned n;
    struct compare_sums *s;
    struct compare_block *h;         /* the units' histograms (bins only) */
};

static void compare_units_make(const struct compare_run *r, struct compare_units *u)
{
    unsigned len = r->nblk ? (unsigned)ceil(cbrt((double)r->nblk)) : 1;
    u->n = (r->nblk + len - 1) / len;
    u->s = xcalloc(u->n ? u->n : 1, sizeof *u->s);
    u->h = xcalloc(u->n ? u->n : 1, sizeof *u->h);
    for (unsigned i = 0; i < r->nblk; i++) {
        compare_sums_add(&u->s[i / len], &r->blk[i].s);
        for (unsigned k = 0; k < r->blk[i].nbins; k++)
            compare_bin_add(&u->h[i / len], r->blk[i].bins[k].bin, r->blk[i].bins[k].n);
    }
}

static void compare_units_free(struct compare_units *u)
{
    for (unsigned i = 0; i < u->n; i++)
        free(u->h[i].bins);
    free(u->s);
    free(u->h);
}

static uint64_t compare_rand(uint64_t *state)   /* splitmix64 */
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Sums and histogram of n units drawn with replacement (rng NULL: every unit once). */
static uint64_t compare_draw(const struct compare_units *u, uint64_t *rng, struct compare_sums *s, uint64_t *h)
{
    uint64_t n = 0;
    memset(s, 0, sizeof *s);
    memset(h, 0, RECORD_STEP_NBINS * sizeof *h);
    for (unsigned i = 0; i < u->n; i++) {
        unsigned k = rng ? (unsigned)(compare_rand(rng) % u->n) : i;
        compare_sums_add(s, &u->s[k]);
        for (unsigned j = 0; j < u->h[k].nbins; j++) {
            h[u->h[k].bins[j].bin] += u->h[k].bins[j].n;
            n += u->h[k].bins[j].n;
        }
    }
    return n;
}

static int compare_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The 95% intervals of every tested figure's change, into res. */
static void compare_bootstrap(const struct compare_units *ua, const struct compare_units *ub,
                              struct compare_result *res)
{
    double *reps = xmalloc((size_t)CF_COUNT * COMPARE_REPLICATES * sizeof *reps);
    unsigned nrep[CF_COUNT] = {0};
    uint64_t rng = 0x67706d6f6e636d70ull, ha[RECORD_STEP_NBINS], hb[RECORD_STEP_NBINS];
    struct compare_sums sa, sb;
    for (unsigned r = 0; r < COMPARE_REPLICATES; r++) {
        uint64_t na = compare_draw(ua, &rng, &sa, ha), nb = compare_draw(ub, &rng, &sb, hb);
        for (int f = 0; f < CF_COUNT; f++) {
            if (!compare_figs[f].tested)
                continue;
            double c = compare_change_of((enum compare_fig)f, compare_value((enum compare_fig)f, &sa, ha, na),
                                         compare_value((enum compare_fig)f, &sb, hb, nb));
            if (!isnan(c))
                reps[(size_t)f * COMPARE_REPLICATES + nrep[f]++] = c;
        }
    }
    for (int f = 0; f < CF_COUNT; f++) {
        double *v = reps + (size_t)f * COMPARE_REPLICATES;
        if (!compare_figs[f].tested || nrep[f] < COMPARE_REPLICATES * 9 / 10)
            continue;   /* a figure measured in too few replicates has no interval */
        qsort(v, nrep[f], sizeof *v, compare_cmp_double);
        res->fig[f].lo = v[(size_t)floor(0.025 * (nrep[f] - 1))];
        res->fig[f].hi = v[(size_t)ceil(0.975 * (nrep[f] - 1))];
    }
    free(reps);
}

/* ---- verdicts ---- */

static void compare_judge(enum compare_fig f, struct compare_change *c, bool short_runs)
{
    const struct compare_figure *cf = &compare_figs[f];
    if (isnan(c->a) || isnan(c->b) || isnan(c->change)) {
        c->verdict = CV_NONE;
        return;
    }
    c->verdict = CV_SAME;
    if (cf->tested && short_runs) {
        c->short_runs = true;
        return;
    }
    bool up, big;
    if (cf->kind == CK_RATIO) {
        up = c->change > 1;
        big = c->change >= 1 + cf->floor || c->change <= 1 / (1 + cf->floor);
    } else {
        up = c->change > 0;
        big = fabs(c->change) >= cf->floor;
    }
    double null = cf->kind == CK_RATIO ? 1 : 0;
    bool clear = !cf->tested || (!isnan(c->lo) && (c->lo > null || c->hi < null));
    if (big && clear)
        c->verdict = (up ? 1 : -1) == cf->better ? CV_BETTER : CV_WORSE;
}

/* A figure's value as the text shows it. */
static void compare_fmt(enum compare_fig f, double v, char *out, size_t len)
{
    const char *u = compare_figs[f].unit;
    if (isnan(v))
        snprintf(out, len, "-");
    else if (!strcmp(u, "%"))
        snprintf(out, len, "%.0f%%", v);
    else if (!strcmp(u, "ms"))
        snprintf(out, len, v < 1 ? "%.1f ms" : "%.3f s", v < 1 ? v * 1e3 : v);
    else if (!strcmp(u, "s"))
        snprintf(out, len, v < 120 ? "%.1f s" : "%.1f min", v < 120 ? v : v / 60);
    else if (!strcmp(u, "J"))
        snprintf(out, len, "%.*f J", v < 10 ? 2 : 1, v);
    else
        snprintf(out, len, "%.*f", v < 10 ? 2 : 1, v);
}

/* "1.7x faster" / "12% slower" for a step-time ratio b/a (or a rate's a/b). */
static void compare_speed(double time_ratio, char *out, size_t len)
{
    bool faster = time_ratio < 1;
    double x = faster ? 1 / time_ratio : time_ratio;
    if (x >= 1.2)
        snprintf(out, len, "%.1fx %s", x, faster ? "faster" : "slower");
    else
        snprintf(out, len, "%.0f%% %s", (x - 1) * 100, faster ? "faster" : "slower");
}

static void compare_summary(struct compare_result *res)
{
    struct sbuf b;
    char va[32], vb[32], sp[48];
    int extra = 0;
    bool shorts = false;
    sbuf_init(&b);
    const struct compare_change *p50 = &res->fig[CF_STEP_P50], *rate = &res->fig[CF_STEPS_PER_S];
    if (p50->verdict == CV_BETTER || p50->verdict == CV_WORSE) {
        compare_speed(p50->change, sp, sizeof sp);
        sbuf_puts(&b, sp);
    } else if (rate->verdict == CV_BETTER || rate->verdict == CV_WORSE) {
        compare_speed(1 / rate->change, sp, sizeof sp);
        sbuf_puts(&b, sp);
    } else if (p50->verdict == CV_SAME) {
        sbuf_puts(&b, "step time: no clear change");
    }
    /* up to three other clear changes; the ledger's shares only when nothing else changed clearly (they
     * mostly restate the figures above in GPU time) */
    for (int pass = 0; pass < 2 && !(pass == 1 && extra > 0); pass++)
        for (int f = pass ? CF_LEDGER : 0; f < (pass ? CF_COUNT : CF_LEDGER); f++) {
            const struct compare_change *c = &res->fig[f];
            shorts |= c->short_runs;
            if (f == CF_STEP_P50 || f == CF_STEP_P95 || f == CF_STEPS_PER_S || f == CF_DURATION ||
                (c->verdict != CV_BETTER && c->verdict != CV_WORSE) || extra == 3)
                continue;
            compare_fmt((enum compare_fig)f, c->a, va, sizeof va);
            compare_fmt((enum compare_fig)f, c->b, vb, sizeof vb);
            sbuf_printf(&b, "%s%s %s -> %s", b.len ? ", " : "", compare_figs[f].label, va, vb);
            extra++;
        }
    if (!b.len) {
        const struct compare_change *d = &res->fig[CF_DURATION];
        if (d->verdict == CV_BETTER || d->verdict == CV_WORSE) {
            compare_fmt(CF_DURATION, d->a, va, sizeof va);
            compare_fmt(CF_DURATION, d->b, vb, sizeof vb);
            sbuf_printf(&b, "duration %s -> %s", va, vb);
        } else {
            sbuf_puts(&b, "no clear change");
        }
    }
    if (shorts)
        sbuf_puts(&b, " (a run too short to judge: too few records)");
    snprintf(res->summary, sizeof res->summary, "%s", b.data);
    sbuf_free(&b);
}

void compare_runs(const struct compare_run *a, const struct compare_run *b, struct compare_result *out)
{
    const struct compare_run *run[2] = {a, b};
    struct compare_units u[2];
    struct compare_sums s[2];
    uint64_t h[2][RECORD_STEP_NBINS], n[2];
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 2; i++) {
        compare_units_make(run[i], &u[i]);
        n[i] = compare_draw(&u[i], NULL, &s[i], h[i]);
        out->records[i] = run[i]->records;
        out->steps[i] = run[i]->steps;
        out->gpus[i] = run[i]->ngpu;
    }
    for (int f = 0; f < CF_COUNT; f++) {
        struct compare_change *c = &out->fig[f];
        if (f == CF_DURATION) {
            c->a = a->records > 1 ? a->last_t - a->first_t : NAN;
            c->b = b->records > 1 ? b->last_t - b->first_t : NAN;
        } else {
            c->a = compare_value((enum compare_fig)f, &s[0], h[0], n[0]);
            c->b = compare_value((enum compare_fig)f, &s[1], h[1], n[1]);
        }
        c->change = compare_change_of((enum compare_fig)f, c->a, c->b);
        c->lo = c->hi = NAN;
    }
    bool short_runs = u[0].n < COMPARE_MIN_UNITS || u[1].n < COMPARE_MIN_UNITS;
    if (!short_runs)
        compare_bootstrap(&u[0], &u[1], out);
    for (int f = 0; f < CF_COUNT; f++)
        compare_judge((enum compare_fig)f, &out->fig[f], short_runs);
    /* a run that did more or fewer steps took longer or less for that: its duration is no verdict */
    double sa = (double)a->steps, sb = (double)b->steps;
    if (sa > 0 && sb > 0 && fabs(sb / sa - 1) > compare_figs[CF_DURATION].floor) {
        out->fig[CF_DURATION].verdict = CV_NONE;
        out->fig[CF_DURATION].other_work = true;
    }
    compare_units_free(&u[0]);
    compare_units_free(&u[1]);
    compare_summary(out);
}

static const char *compare_verdict_name(const struct compare_change *c)
{
    switch (c->verdict) {
    case CV_BETTER: return "better";
    case CV_WORSE: return "worse";
    case CV_SAME: return "no clear change";
    default: return NULL;
    }
}

/* v to one decimal, without a "-0.0" */
static double compare_tidy(double v)
{
    double r = round(v * 10) / 10;
    return r == 0 ? 0.0 : r;
}

/* A change as the text shows it: "0.60x [0.58-0.62]" or "-40 pts [-41 to -39]". */
static void compare_fmt_change(enum compare_fig f, const struct compare_change *c, char *out, size_t len)
{
    if (isnan(c->change)) {
        snprintf(out, len, "-");
        return;
    }
    if (compare_figs[f].kind == CK_RATIO) {
        int n = snprintf(out, len, "%.2fx", c->change);
        if (!isnan(c->lo) && n > 0 && (size_t)n < len)
            snprintf(out + n, len - (size_t)n, " [%.2f-%.2f]", c->lo, c->hi);
    } else {
        int n = snprintf(out, len, "%+.1f pts", compare_tidy(c->change));
        if (!isnan(c->lo) && n > 0 && (size_t)n < len)
            snprintf(out + n, len - (size_t)n, " [%+.1f, %+.1f]", compare_tidy(c->lo), compare_tidy(c->hi));
    }
}

void compare_text(const struct compare_result *res, const char *name_a, const char *name_b, struct sbuf *b)
{
    char va[32], vb[32], ch[64];
    sbuf_printf(b, "Compared: A %s (%llu records, %llu steps)\n          B %s (%llu records, %llu steps)\n",
                name_a, res->records[0], res->steps[0], name_b, res->records[1], res->steps[1]);
    sbuf_printf(b, "  %-16s %12s %12s  %-24s %s\n", "", "A", "B", "B vs A [95% interval]", "verdict");
    for (int f = 0; f < CF_COUNT; f++) {
        const struct compare_change *c = &res->fig[f];
        if (f >= CF_LEDGER && !(c->a >= 0.5) && !(c->b >= 0.5))
            continue;   /* a cause neither run had (JSON keeps it) */
        compare_fmt((enum compare_fig)f, c->a, va, sizeof va);
        compare_fmt((enum compare_fig)f, c->b, vb, sizeof vb);
        compare_fmt_change((enum compare_fig)f, c, ch, sizeof ch);
        const char *v = compare_verdict_name(c);
        sbuf_printf(b, "  %-16s %12s %12s  %-24s %s%s\n", compare_figs[f].label, va, vb, ch,
                    v ? v : c->other_work ? "not comparable (other step counts)" : "not measured in both",
                    c->short_runs ? " (too few records to judge)" : "");
    }
    sbuf_printf(b, "Summary: %s\n", res->summary);
}

static void compare_json_num(struct sbuf *b, double v, int dec)
{
    if (isnan(v) || isinf(v))
        sbuf_puts(b, "null");
    else
        sbuf_put_fixed(b, v, dec);
}

static void compare_json_run(const struct compare_result *res, int i, const char *name, struct sbuf *b)
{
    sbuf_puts(b, "{\"log\":");
    fmt_json_string(b, name);
    sbuf_printf(b, ",\"records\":%llu,\"gpus\":%u,\"steps\":%llu", res->records[i], res->gpus[i], res->steps[i]);
    for (int f = 0; f < CF_COUNT; f++) {
        sbuf_printf(b, ",\"%s\":", compare_figs[f].key);
        compare_json_num(b, i ? res->fig[f].b : res->fig[f].a, 6);
    }
    sbuf_putc(b, '}');
}

void compare_json(const struct compare_result *res, const char *name_a, const char *name_b, struct sbuf *b)
{
    sbuf_puts(b, "{\"a\":");
    compare_json_run(res, 0, name_a, b);
    sbuf_puts(b, ",\"b\":");
    compare_json_run(res, 1, name_b, b);
    sbuf_puts(b, ",\"change\":{");
    for (int f = 0; f < CF_COUNT; f++) {
        const struct compare_change *c = &res->fig[f];
        const struct compare_figure *cf = &compare_figs[f];
        sbuf_printf(b, "%s\"%s\":{\"a\":", f ? "," : "", cf->key);
        compare_json_num(b, c->a, 6);
        sbuf_puts(b, ",\"b\":");
        compare_json_num(b, c->b, 6);
        sbuf_puts(b, ",\"ratio\":");
        compare_json_num(b, !isnan(c->a) && !isnan(c->b) && c->a > 0 ? c->b / c->a : NAN, 4);
        if (cf->kind == CK_POINTS) {
            sbuf_puts(b, ",\"difference\":");
            compare_json_num(b, c->change, 2);
        }
        sbuf_puts(b, ",\"interval\":");
        if (isnan(c->lo)) {
            sbuf_puts(b, "null");
        } else {
            sbuf_putc(b, '[');
            compare_json_num(b, c->lo, 4);
            sbuf_putc(b, ',');
            compare_json_num(b, c->hi, 4);
            sbuf_putc(b, ']');
        }
        sbuf_puts(b, ",\"verdict\":");
        const char *v = compare_verdict_name(c);
        if (v)
            fmt_json_string(b, v);
        else
            sbuf_puts(b, "null");
        if (c->short_runs)
            sbuf_puts(b, ",\"too_few_records\":true");
        if (c->other_work)
            sbuf_puts(b, ",\"other_step_counts\":true");
        sbuf_putc(b, '}');
    }
    sbuf_puts(b, "},\"summary\":");
    fmt_json_string(b, res->summary);
    sbuf_puts(b, "}\n");
}
