/*
 * ledger.c: every observed GPU-second to one cause (ledger.h). Each record
 * interval of a GPU (from its previous point to this one; a gap in the log
 * longer than max(60 s, 10 intervals) is not observed) is split:
 *   - lost: the GPU fell off the bus: the whole interval;
 *   - the loop's input wait, where the job reports steps on the GPU: that
 *     much of the interval is input_wait (the job's own measure);
 *   - an interval the GPU was idle through (>= 90% of it) extends an idle
 *     stretch: before the job's first sustained work (sustain_s busy
 *     without a stop of pause_s) it is startup, once a job is known on the GPU
 *     (idle, when the GPU is never used at all), unless memory is held that
 *     long without any work, nor any growth of it (stalled, as the stalled
 *     rule says: weights loading into it are progress); holding no
 *     memory it is idle; holding memory for stall_s it is stalled (the
 *     stalled rule), or idle for a notebook's kernel between cells or a
 *     server between requests (the notebook-idle and server-idle rules);
 *     otherwise, when it ends, a pause, unless an input verdict holds;
 *   - the rest is busy time: its idle part (gaps inside the interval) is
 *     input_wait when an input verdict holds and the job does not report
 *     steps, else compute; its busy part is throttled by (1 - SM clock /
 *     max) while a thermal or power reason holds, and compute otherwise.
 * The rules speak about input only after a window (and a job's start-up)
 * of evidence, so pauses and gaps stay undecided for horizon_s: an input
 * verdict that starts within it takes them as input_wait, as the verdict
 * says of that time; otherwise they are committed as pause and compute.
 * Pending items live in a bounded ring per GPU, so memory does not grow
 * with the run, and the totals a reader sees only grow (the exporter's
 * counters). Classification reads the analysis' figures and the rules'
 * verdicts as diag.c passes them, never its own thresholds.
 */
#include "ledger.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"

const struct ledger_cause_info ledger_causes[LC_COUNT] = {
#define LEDGER_ROW(id, key, label, speedup, gain) [id] = {key, label, speedup, gain},
    LEDGER_CAUSES(LEDGER_ROW)
#undef LEDGER_ROW
};

#define LEDGER_PEND_MAX 256      /* 8 times a power of two: the ring grows from 8 by doubling */
_Static_assert(LEDGER_PEND_MAX >= 8 && (LEDGER_PEND_MAX & (LEDGER_PEND_MAX - 1)) == 0, "a power of two, at least 8");
#define LEDGER_IDLE 0.9          /* an interval idle this much of its time is idle through */

enum { LP_GAP, LP_PAUSE };       /* undecided: gaps inside busy time (else compute), a pause */

struct ledger_pend {
    double t, s;
    int kind;
};

struct ledger_gpu {
    bool have_t, working, used, input_was, lost;
    double last_t, last_dt;
    double pre_pending;          /* idle seconds before the first sustained work, a job known */
    double pre_held;             /* of them, the latest ones holding memory without a break */
    bool pre_stalled;            /* those reached stall_s: stalled before any work (the stalled rule's) */
    double busy_run;             /* busy seconds without a break of pause_s (sustained work), memory not growing */
    double still_s;              /* of a stretch, idle seconds since its memory last grew (progress): stalled
                                  * from stall_s, as the stalled rule's clock */
    double idle_run;             /* idle seconds since the latest busy ones */
    bool in_stretch, stretch_mem, stretch_stalled;
    bool stretch_was_stop;       /* the stretch was stalled once (its stretch_s restarted there): a stop */
    enum ledger_cause stall_as;  /* what a stretch past stall_s is: stalled, or idle (a notebook between cells,
                                  * a server between requests) */
    double stretch_s, stretch_start, stretch_end;   /* start: the interval's, where the stretch began */
    double first_t;              /* the GPU's first record */
    double stop_end;             /* where the latest stop (a stretch of pause_s or more) ended; first_t: none */
    struct ledger_pend *pend;    /* a ring of pcap (a power of two, grown to at most LEDGER_PEND_MAX as */
    unsigned ph, pn, pcap;       /* items wait: a GPU that never waits holds none) */
    double energy_prev;
    double recent[LC_COUNT], recent_t;
    struct ledger_totals tot;    /* decided seconds, observed seconds */
};

struct ledger {
    struct ledger_config cfg;
    unsigned n, cap;
    struct ledger_gpu *g;
    double run_steps;
    bool run_has_steps;
};

struct ledger *ledger_new(const struct ledger_config *c)
{
    struct ledger *l = xcalloc(1, sizeof *l);
    l->cfg = *c;
    return l;
}

void ledger_free(struct ledger *l)
{
    if (!l)
        return;
    for (unsigned i = 0; i < l->cap; i++)
        free(l->g[i].pend);
    free(l->g);
    free(l);
}

unsigned ledger_ngpus(const struct ledger *l)
{
    return l->n;
}

static struct ledger_gpu *ledger_slot(struct ledger *l, unsigned gpu)
{
    if (gpu >= l->cap) {
        unsigned cap = l->cap ? l->cap : 8;
        while (cap <= gpu)
            cap *= 2;
        l->g = xrealloc(l->g, cap * sizeof *l->g);
        memset(l->g + l->cap, 0, (cap - l->cap) * sizeof *l->g);
        for (unsigned i = l->cap; i < cap; i++) {
            l->g[i].energy_prev = NAN;
            l->g[i].tot.steps = NAN;
        }
        l->cap = cap;
    }
    if (gpu >= l->n)
        l->n = gpu + 1;
    return &l->g[gpu];
}

/* Seconds s of cause c are decided (at record time t, for the recent window). */
static void ledger_add(struct ledger *l, struct ledger_gpu *g, enum ledger_cause c, double s)
{
    (void)l;
    if (s > 0)
        g->tot.s[c] += s;
}

/* e^x for x <= 0, without libm (its exp and tables would be the only libm pages gpumon top maps beyond
 * what the NVML library maps: fault-around, 64 kB a call site's neighbourhood), to about 1e-12 relative:
 * what the recent window needs, whose causes are only compared with each other. x is halved n times to
 * |x| <= 2^-8 (exact: powers of two), a degree-5 Taylor polynomial (error below 2^-48 / 720) and n
 * squarings (each doubles the relative error, n <= 14). Below -40 it is 0: e^-40 is 4e-18. */
static double ledger_decay(double x)
{
    if (!(x > -40))
        return 0;
    int n = 0;
    while (x < -0x1p-8) {
        x *= 0.5;
        n++;
    }
    double k = 1 + x * (1 + x * (0.5 + x * (1.0 / 6 + x * (1.0 / 24 + x * (1.0 / 120)))));
    while (n-- > 0)
        k *= k;
    return k;
}

/* The recent window (gpumon top): seconds as they are classified now, decaying over the horizon. */
static void ledger_recent(const struct ledger *l, struct ledger_gpu *g, double t, enum ledger_cause c, double s)
{
    double tau = l->cfg.horizon_s > 0 ? l->cfg.horizon_s / 3 : 10;
    if (t > g->recent_t) {
        double k = ledger_decay(-(t - g->recent_t) / tau);
        for (int i = 0; i < LC_COUNT; i++)
            g->recent[i] *= k;
        g->recent_t = t;
    }
    if (s > 0)
        g->recent[c] += s;
}

static void ledger_commit_pend(struct ledger *l, struct ledger_gpu *g, const struct ledger_pend *p,
                               enum ledger_cause as)
{
    ledger_add(l, g, as, p->s);
    g->tot.pending -= p->s;
    if (g->tot.pending < 1e-9)
        g->tot.pending = 0;
}

/* Decides the oldest pending item as what it is when no input verdict took it. */
static void ledger_pop(struct ledger *l, struct ledger_gpu *g)
{
    struct ledger_pend *p = &g->pend[g->ph];
    ledger_commit_pend(l, g, p, p->kind == LP_GAP ? LC_COMPUTE : LC_PAUSE);
    g->ph = (g->ph + 1) % g->pcap;
    g->pn--;
}

/* Room for one more pending item (the ring full, below LEDGER_PEND_MAX): twice the ring, unrolled. */
static void ledger_pend_grow(struct ledger_gpu *g)
{
    unsigned cap = g->pcap ? 2 * g->pcap : 8;
    struct ledger_pend *p = xmalloc(cap * sizeof *p);
    for (unsigned i = 0; i < g->pn; i++)
        p[i] = g->pend[(g->ph + i) % g->pcap];
    free(g->pend);
    g->pend = p;
    g->ph = 0;
    g->pcap = cap;
}

/* Undecided seconds of a kind at time t (merged with the newest item of that kind within a second). */
static void ledger_push(struct ledger *l, struct ledger_gpu *g, double t, int kind, double s)
{
    if (s <= 0)
        return;
    g->tot.pending += s;
    if (g->pn) {
        struct ledger_pend *last = &g->pend[(g->ph + g->pn - 1) % g->pcap];
        if (last->kind == kind && t - last->t < 1) {
            last->s += s;
            return;
        }
    }
    if (g->pn == LEDGER_PEND_MAX)
        ledger_pop(l, g);
    else if (g->pn == g->pcap)
        ledger_pend_grow(g);
    g->pend[(g->ph + g->pn) % g->pcap] = (struct ledger_pend){t, s, kind};
    g->pn++;
}

/* An input verdict started: what is undecided was input wait. */
static void ledger_take_input(struct ledger *l, struct ledger_gpu *g)
{
    while (g->pn) {
        ledger_commit_pend(l, g, &g->pend[g->ph], LC_INPUT_WAIT);
        g->ph = (g->ph + 1) % g->pcap;
        g->pn--;
    }
}

/* The idle stretch ends at t (busy again, lost, or the end): a stall is decided already; a stop the rules
 * call a pause (pause_apart_s or more after the previous one, or begun at the GPU's first record:
 * rules_stop_is_pause) is one, whatever input verdict holds or comes (a blind hold-out's 60 s pause was
 * taken as input wait by a verdict that began after it, tests/holdout3/mixed-job.scn); the rest is input
 * wait while an input verdict holds, else undecided. */
static void ledger_stop_seconds(struct ledger *l, struct ledger_gpu *g, bool stop, bool input, double s)
{
    bool isolated = stop && (g->stretch_start <= g->first_t ||
                             !(g->stretch_start - g->stop_end < l->cfg.pause_apart_s));
    if (isolated)
        ledger_add(l, g, LC_PAUSE, s);
    else if (input)
        ledger_add(l, g, LC_INPUT_WAIT, s);
    else
        ledger_push(l, g, g->stretch_end, LP_PAUSE, s);
}

static void ledger_end_stretch(struct ledger *l, struct ledger_gpu *g, bool input, double t)
{
    if (!g->in_stretch)
        return;
    bool stop = g->stretch_stalled || g->stretch_was_stop || g->stretch_s >= l->cfg.pause_s;
    if (!g->stretch_stalled && g->stretch_s > 0)
        ledger_stop_seconds(l, g, stop, input, g->stretch_s);
    if (stop)
        g->stop_end = t;
    g->in_stretch = g->stretch_stalled = g->stretch_was_stop = g->stretch_mem = false;
    g->stretch_s = 0;
}

/* Idle seconds s of an interval the GPU was idle through (after the loop's wait). */
static void ledger_idle(struct ledger *l, struct ledger_gpu *g, const struct ledger_point *p, double s)
{
    g->idle_run += s;
    if (g->idle_run >= l->cfg.pause_s)
        g->busy_run = 0;   /* a stop, not a gap: sustained work starts again */
    if (!g->working) {
        if (p->progress)   /* memory grows: loading, not hung */
            g->pre_stalled = false;
        if (g->pre_stalled && p->mem_held) {
            ledger_add(l, g, g->stall_as, s);
            ledger_recent(l, g, p->t, g->stall_as, s);
        } else if (p->job || g->used) {
            g->pre_stalled = false;
            g->pre_pending += s;
            g->pre_held = p->mem_held && !p->progress ? g->pre_held + s : 0;   /* held, and flat */
            ledger_recent(l, g, p->t, LC_STARTUP, s);
            if (g->pre_held >= l->cfg.stall_s) {   /* memory held, nothing done for stall_s: stalled */
                g->stall_as = p->idle_by_design ? LC_IDLE : LC_STALLED;
                ledger_add(l, g, LC_STARTUP, g->pre_pending - g->pre_held);
                ledger_add(l, g, g->stall_as, g->pre_held);
                g->pre_pending = g->pre_held = 0;
                g->pre_stalled = true;
            }
        } else {
            ledger_add(l, g, LC_IDLE, s);
            ledger_recent(l, g, p->t, LC_IDLE, s);
        }
        return;
    }
    if (!p->mem_held && !g->in_stretch) {
        ledger_add(l, g, LC_IDLE, s);   /* nothing runs on it */
        ledger_recent(l, g, p->t, LC_IDLE, s);
        return;
    }
    if (!g->in_stretch)
        g->stretch_start = g->last_t, g->still_s = 0;
    g->in_stretch = true;
    g->stretch_mem |= p->mem_held;
    g->stretch_end = p->t;
    if (p->progress) {   /* memory grows: progress, the stall clock starts again */
        g->still_s = 0;
        g->stretch_stalled = false;
    } else {
        g->still_s += s;
    }
    if (g->stretch_stalled) {
        ledger_add(l, g, g->stall_as, s);
        ledger_recent(l, g, p->t, g->stall_as, s);
        return;
    }
    g->stretch_s += s;
    if (g->still_s >= l->cfg.stall_s && p->mem_held) {   /* the stalled rule's: idle that long, memory held and flat */
        if (g->stretch_s > g->still_s)   /* the stop's time while memory still grew: a stop like any other */
            ledger_stop_seconds(l, g, true, p->input_verdict, g->stretch_s - g->still_s);
        g->stall_as = p->idle_by_design ? LC_IDLE : LC_STALLED;   /* notebook-idle's, server-idle's */
        ledger_add(l, g, g->stall_as, g->still_s);
        ledger_recent(l, g, p->t, g->stall_as, s);
        g->stretch_s = 0;
        g->stretch_stalled = g->stretch_was_stop = true;
        return;
    }
    ledger_recent(l, g, p->t, p->input_verdict ? LC_INPUT_WAIT : LC_PAUSE, s);
}

/* Busy seconds b (with idle gaps gap inside them) of an interval. */
static void ledger_busy(struct ledger *l, struct ledger_gpu *g, const struct ledger_point *p, double dt, double b,
                        double gap, bool steps)
{
    ledger_end_stretch(l, g, p->input_verdict && !steps, p->t);
    g->used = true;
    if (!p->allocating)   /* autotune bursts while the start-up still allocates are not yet sustained work */
        g->busy_run += dt;
    g->idle_run = 0;
    g->pre_held = 0;
    g->pre_stalled = false;
    if (!g->working && (g->busy_run >= l->cfg.sustain_s || steps)) {
        g->working = true;   /* the first sustained work: what came before was the start-up */
        ledger_add(l, g, LC_STARTUP, g->pre_pending);
        g->pre_pending = 0;
    }
    if (steps) {
        ledger_add(l, g, LC_COMPUTE, gap);   /* the loop says when it waits: gaps are compute's */
        ledger_recent(l, g, p->t, LC_COMPUTE, gap);
    } else if (p->input_verdict) {
        ledger_add(l, g, LC_INPUT_WAIT, gap);
        ledger_recent(l, g, p->t, LC_INPUT_WAIT, gap);
    } else if (!g->working && p->allocating && gap > b) {   /* a mostly idle record while the start-up still
                                                             * allocates (an autotune burst): its idle rest is
                                                             * the start-up's, as the idle records around it
                                                             * (not a starved job's: its first steps' gaps) */
        ledger_add(l, g, LC_STARTUP, gap);
        ledger_recent(l, g, p->t, LC_STARTUP, gap);
    } else {
        ledger_push(l, g, p->t, LP_GAP, gap);
        ledger_recent(l, g, p->t, LC_COMPUTE, gap);
    }
    double held = p->clock_held && p->clock_ratio >= 0 && p->clock_ratio < 1 ? b * (1 - p->clock_ratio) : 0;
    ledger_add(l, g, LC_THROTTLED, held);
    ledger_add(l, g, LC_COMPUTE, b - held);
    ledger_recent(l, g, p->t, LC_THROTTLED, held);
    ledger_recent(l, g, p->t, LC_COMPUTE, b - held);
    if (!isnan(p->sm_active) && b - held > 0) {
        g->tot.gpm_s += b - held;
        g->tot.sm_s += (b - held) * p->sm_active;
        g->tot.tensor_s += (b - held) * (isnan(p->tensor) ? 0 : p->tensor);
    }
}

void ledger_feed(struct ledger *l, unsigned gpu, const struct ledger_point *p)
{
    struct ledger_gpu *g = ledger_slot(l, gpu);
    double dt = g->have_t ? p->t - g->last_t : 0;
    bool observed = dt > 0 && dt <= fmax(60, 10 * (g->last_dt > 0 ? g->last_dt : 1));
    if (g->have_t && dt < 0)
        return;   /* out of order */
    if (!g->have_t)
        g->first_t = g->stop_end = p->t;
    if (p->mem_held)
        g->used = true;
    if (p->input_verdict && !g->input_was)
        ledger_take_input(l, g);   /* its evidence began up to a horizon ago: that time was input wait */
    g->input_was = p->input_verdict;
    while (g->pn && g->pend[g->ph].t < p->t - l->cfg.horizon_s)
        ledger_pop(l, g);
    if (observed) {
        g->tot.gpu_seconds += dt;
        g->last_dt = dt;
        if (!isnan(p->energy_j) && !isnan(g->energy_prev) && p->energy_j >= g->energy_prev)
            g->tot.energy_j += p->energy_j - g->energy_prev;
        if (p->steps > 0)
            g->tot.steps = (isnan(g->tot.steps) ? 0 : g->tot.steps) + p->steps;
        if (p->lost || g->lost) {
            ledger_end_stretch(l, g, p->input_verdict, p->t);
            g->lost = true;   /* lost stays lost */
            ledger_add(l, g, LC_LOST, dt);
            ledger_recent(l, g, p->t, LC_LOST, dt);
        } else {
            bool steps = !isnan(p->wait_s);
            double wait = steps ? fmin(fmax(p->wait_s, 0), dt) : 0, rest = dt - wait;
            double idle = isnan(p->idle) ? 0 : fmin(fmax(p->idle, 0), 1) * dt;
            ledger_add(l, g, LC_INPUT_WAIT, wait);
            ledger_recent(l, g, p->t, LC_INPUT_WAIT, wait);
            if (steps && p->loop_s > 0) {
                g->tot.loop_s += fmin(p->loop_s, dt);
                g->tot.loop_wait_s += wait;
            }
            if (steps && (p->steps > 0 || wait > 0))
                g->used = true;
            if (idle >= LEDGER_IDLE * dt && !(steps && p->steps > 0)) {
                ledger_idle(l, g, p, rest);
            } else {
                double gap = fmin(fmax(idle - wait, 0), rest);
                ledger_busy(l, g, p, dt, rest - gap, gap, steps && p->steps > 0);
            }
        }
    }
    if (!isnan(p->energy_j))
        g->energy_prev = p->energy_j;
    g->last_t = p->t;
    g->have_t = true;
}

double ledger_interval(const struct ledger *l, unsigned gpu, double t)
{
    return gpu < l->n && l->g[gpu].have_t && t > l->g[gpu].last_t ? t - l->g[gpu].last_t : 0;
}

void ledger_steps(struct ledger *l, double steps)
{
    if (steps > 0) {
        l->run_steps += steps;
        l->run_has_steps = true;
    }
}

void ledger_finish(struct ledger *l)
{
    for (unsigned i = 0; i < l->n; i++) {
        struct ledger_gpu *g = &l->g[i];
        ledger_end_stretch(l, g, g->input_was, g->last_t);
        if (!g->working)   /* never got going: start-up if the job used the GPU, else idle */
            ledger_add(l, g, g->used ? LC_STARTUP : LC_IDLE, g->pre_pending);
        g->pre_pending = 0;
        while (g->pn)
            ledger_pop(l, g);
        g->tot.pending = 0;
    }
}

void ledger_gpu(const struct ledger *l, unsigned gpu, struct ledger_totals *out)
{
    const struct ledger_gpu *g = &l->g[gpu];
    *out = g->tot;
    out->gpus = 1;
    out->pending += g->pre_pending + g->stretch_s;
}

void ledger_run(const struct ledger *l, struct ledger_totals *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < l->n; i++) {
        struct ledger_totals t;
        ledger_gpu(l, i, &t);
        if (t.gpu_seconds <= 0 && !l->g[i].have_t)
            continue;
        out->gpus++;
        out->gpu_seconds += t.gpu_seconds;
        for (int c = 0; c < LC_COUNT; c++)
            out->s[c] += t.s[c];
        out->pending += t.pending;
        out->gpm_s += t.gpm_s;
        out->sm_s += t.sm_s;
        out->tensor_s += t.tensor_s;
        out->energy_j += t.energy_j;
        out->loop_s += t.loop_s;
        out->loop_wait_s += t.loop_wait_s;
    }
    out->steps = l->run_has_steps ? l->run_steps : NAN;
}

double ledger_speedup(const struct ledger_totals *t, enum ledger_cause c)
{
    if (!ledger_causes[c].speedup)
        return NAN;
    if (c == LC_INPUT_WAIT && t->loop_s > 0)   /* the loop's own share (TensorFlow Profiler's bound) */
        return t->loop_wait_s < t->loop_s ? 1 / (1 - t->loop_wait_s / t->loop_s) : NAN;
    double loop = t->s[LC_COMPUTE] + t->s[LC_INPUT_WAIT] + t->s[LC_THROTTLED];
    if (loop <= 0 || t->s[c] >= loop)
        return NAN;
    return 1 / (1 - t->s[c] / loop);
}

enum ledger_cause ledger_recent_cause(const struct ledger *l, unsigned gpu)
{
    if (gpu >= l->n)
        return LC_COMPUTE;
    const struct ledger_gpu *g = &l->g[gpu];
    enum ledger_cause best = LC_COMPUTE;
    for (int c = 0; c < LC_COUNT; c++)
        if (g->recent[c] > g->recent[best])
            best = (enum ledger_cause)c;
    return best;
}

/* GPU time as people read it: GPU-h, GPU-min or GPU-s. */
static void ledger_fmt_time(double s, char *out, size_t len)
{
    if (s >= 3600)
        snprintf(out, len, "%.1f GPU-h", s / 3600);
    else if (s >= 60)
        snprintf(out, len, "%.1f GPU-min", s / 60);
    else
        snprintf(out, len, "%.0f GPU-s", s);
}

void ledger_text(const struct ledger_totals *t, const char *what, double cost_per_hour, struct sbuf *b)
{
    char v[32], gain[160], money[48];
    double total = t->gpu_seconds;
    ledger_fmt_time(total, v, sizeof v);
    sbuf_printf(b, "GPU time by cause (%s, %s observed", what, v);
    if (cost_per_hour > 0)
        sbuf_printf(b, ", %.2f at %.2f a GPU-hour", total / 3600 * cost_per_hour, cost_per_hour);
    sbuf_puts(b, "):\n");
    for (int c = 0; c < LC_COUNT; c++) {
        double s = t->s[c];
        if (s <= 0 && c != LC_COMPUTE)
            continue;
        ledger_fmt_time(s, v, sizeof v);
        gain[0] = money[0] = '\0';
        if (cost_per_hour > 0)
            snprintf(money, sizeof money, "  %9.2f", s / 3600 * cost_per_hour);
        double x = ledger_speedup(t, (enum ledger_cause)c);
        if (ledger_causes[c].speedup && !isnan(x) && x >= 1.005)
            snprintf(gain, sizeof gain, "   steps up to %.2fx faster %s", x, ledger_causes[c].gain);
        else if (!ledger_causes[c].speedup && ledger_causes[c].gain && s >= 1)
            snprintf(gain, sizeof gain, "   %s back %s", v, ledger_causes[c].gain);
        sbuf_printf(b, "  %-11s %13s %4.0f%%%s%s\n", ledger_causes[c].label, v, total > 0 ? 100 * s / total : 0,
                    money, gain);
    }
    if (t->gpm_s > 0)
        sbuf_printf(b, "  while computing: SM activity %.0f%%, tensor cores %.0f%% (GPM)\n", t->sm_s / t->gpm_s,
                    t->tensor_s / t->gpm_s);
    if (!isnan(t->steps) && t->steps > 0 && t->energy_j > 0)
        sbuf_printf(b, "  energy per step %.*f J (%.0f steps)\n", t->energy_j / t->steps < 10 ? 2 : 1,
                    t->energy_j / t->steps, t->steps);
}

static void ledger_json_num(struct sbuf *b, double v, int dec)
{
    if (isnan(v) || isinf(v))
        sbuf_puts(b, "null");
    else
        sbuf_put_fixed(b, v, dec);
}

void ledger_json(const struct ledger_totals *t, double cost_per_hour, struct sbuf *b)
{
    sbuf_puts(b, "{\"gpu_seconds\":");
    ledger_json_num(b, t->gpu_seconds, 3);
    sbuf_puts(b, ",\"seconds\":{");
    for (int c = 0; c < LC_COUNT; c++) {
        sbuf_printf(b, "%s\"%s\":", c ? "," : "", ledger_causes[c].key);
        ledger_json_num(b, t->s[c], 3);
    }
    sbuf_puts(b, "},\"gain\":{");
    bool first = true;
    for (int c = 0; c < LC_COUNT; c++) {
        if (!ledger_causes[c].gain)
            continue;
        sbuf_printf(b, "%s\"%s\":{\"speedup\":", first ? "" : ",", ledger_causes[c].key);
        ledger_json_num(b, ledger_speedup(t, (enum ledger_cause)c), 4);
        sbuf_puts(b, ",\"gpu_seconds\":");
        ledger_json_num(b, t->s[c], 3);
        sbuf_putc(b, '}');
        first = false;
    }
    sbuf_putc(b, '}');
    if (cost_per_hour > 0) {
        sbuf_puts(b, ",\"cost\":{\"per_gpu_hour\":");
        ledger_json_num(b, cost_per_hour, 4);
        sbuf_puts(b, ",\"total\":");
        ledger_json_num(b, t->gpu_seconds / 3600 * cost_per_hour, 4);
        for (int c = 0; c < LC_COUNT; c++) {
            sbuf_printf(b, ",\"%s\":", ledger_causes[c].key);
            ledger_json_num(b, t->s[c] / 3600 * cost_per_hour, 4);
        }
        sbuf_putc(b, '}');
    }
    sbuf_puts(b, ",\"compute_sm_active\":");
    ledger_json_num(b, t->gpm_s > 0 ? t->sm_s / t->gpm_s : NAN, 1);
    sbuf_puts(b, ",\"compute_tensor_active\":");
    ledger_json_num(b, t->gpm_s > 0 ? t->tensor_s / t->gpm_s : NAN, 1);
    sbuf_puts(b, ",\"steps\":");
    ledger_json_num(b, t->steps, 0);
    sbuf_puts(b, ",\"energy_j\":");
    ledger_json_num(b, t->energy_j > 0 ? t->energy_j : NAN, 1);
    sbuf_puts(b, ",\"energy_per_step_j\":");
    ledger_json_num(b, !isnan(t->steps) && t->steps > 0 && t->energy_j > 0 ? t->energy_j / t->steps : NAN, 3);
    sbuf_putc(b, '}');
}
