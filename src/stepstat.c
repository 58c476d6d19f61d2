/*
 * stepstat.c: per-process step windows (see stepstat.h). A process keeps
 * a ring of buckets, one per record (records closer together than a
 * 1/1024 of the window share one), each with its sums and up to
 * RECORD_STEP_BINS histogram bins; percentiles merge the bins in the
 * window on demand, 256 bins wide, so cost does not grow with the step
 * rate. The whole run keeps one full histogram per process. Rates are steps
 * over the loop's own time waiting and computing (the time it trained).
 * Rings grow by doubling from 64 buckets: a slot is a mask, not a division.
 */
#include "stepstat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define STEPSTAT_MAX_PROCS 4096   /* processes of one run (or log) followed; more are not */

struct stepstat_bucket {
    double t, dt;                         /* the latest record's time; the interval it covers (p->last only) */
    double timed;                         /* p->last: its steps if its interval is known (the chart's rate) */
    double steps, waited, step_s, wait_s, in_wait, in_compute;
    unsigned nbins;
    struct { uint16_t bin; uint32_t n; } bins[RECORD_STEP_BINS];
};

struct stepstat_proc {
    struct stepstat_rank id;
    struct stepstat_bucket *ring;
    unsigned cap, head, n;
    struct stepstat_bucket last;          /* the latest record's figures */
    double run_steps, run_waited, run_step_s, run_wait_s, run_in_wait, run_in_compute;
    unsigned long long run_hist[RECORD_STEP_NBINS];
};

struct stepstat {
    double window_s, latest_t;            /* the latest record's time */
    unsigned n, cap;
    struct stepstat_proc **p;             /* every process seen, in order of appearance */
};

struct stepstat *stepstat_new(double window_s)
{
    struct stepstat *ss = xcalloc(1, sizeof *ss);
    ss->window_s = window_s;
    return ss;
}

void stepstat_free(struct stepstat *ss)
{
    if (!ss)
        return;
    for (unsigned i = 0; i < ss->n; i++) {
        free(ss->p[i]->ring);
        free(ss->p[i]);
    }
    free(ss->p);
    free(ss);
}

unsigned stepstat_nranks(const struct stepstat *ss)
{
    return ss->n;
}

static struct stepstat_proc *stepstat_proc_for(struct stepstat *ss, const struct record_rank *k, double t)
{
    for (unsigned i = ss->n; i-- > 0;)   /* the latest first: a pid reused later is a new process */
        if (ss->p[i]->id.pid == k->pid)
            return ss->p[i];
    if (ss->n == STEPSTAT_MAX_PROCS)
        return NULL;
    if (ss->n == ss->cap) {
        ss->cap = ss->cap ? ss->cap * 2 : 8;
        ss->p = xrealloc(ss->p, ss->cap * sizeof *ss->p);
    }
    struct stepstat_proc *p = ss->p[ss->n++] = xcalloc(1, sizeof **ss->p);
    p->id.pid = k->pid;
    p->id.gpu = STEPSTAT_ALL_GPUS;
    p->id.first_t = t;
    return p;
}

/* The GPU a process runs on (stepstat.h): its pid in a process list (kept once seen), else its local rank. */
static int stepstat_map(const struct record *r, const struct record_rank *k, int known)
{
    for (unsigned g = 0; g < r->ngpus; g++)
        for (unsigned j = 0; j < r->gpus[g].nprocs; j++)
            if ((int)r->gpus[g].procs[j].pid == k->pid)
                return (int)r->gpus[g].index;
    if (known != STEPSTAT_ALL_GPUS)
        return known;
    if (r->nranks > 1 && k->local_rank >= 0 && (unsigned)k->local_rank < r->ngpus)
        return (int)r->gpus[k->local_rank].index;
    return STEPSTAT_ALL_GPUS;
}

static void stepstat_bins_add(struct stepstat_bucket *b, const struct record_rank *k)
{
    for (unsigned i = 0; i < k->nbins; i++) {
        unsigned best = 0, j;
        for (j = 0; j < b->nbins && b->bins[j].bin != k->bins[i].bin; j++)
            if (abs((int)b->bins[j].bin - (int)k->bins[i].bin) < abs((int)b->bins[best].bin - (int)k->bins[i].bin))
                best = j;
        if (j == b->nbins && b->nbins < RECORD_STEP_BINS) {
            b->bins[b->nbins].bin = k->bins[i].bin;
            b->bins[b->nbins++].n = k->bins[i].n;
        } else
            b->bins[j < b->nbins ? j : best].n += k->bins[i].n;   /* full: the nearest bin takes it */
    }
}

void stepstat_feed(struct stepstat *ss, const struct record *r, double t)
{
    double dt = ss->latest_t > 0 && t > ss->latest_t ? t - ss->latest_t : 0;
    ss->latest_t = t;
    for (unsigned i = 0; i < ss->n; i++)   /* a process gone for a window: its window's memory goes */
        if (ss->p[i]->ring && ss->p[i]->id.last_t <= t - ss->window_s) {
            free(ss->p[i]->ring);
            ss->p[i]->ring = NULL;
            ss->p[i]->cap = ss->p[i]->n = ss->p[i]->head = 0;
        }
    for (unsigned i = 0; i < r->nranks; i++) {
        const struct record_rank *k = &r->ranks[i];
        struct stepstat_proc *p = stepstat_proc_for(ss, k, t);
        if (!p)
            continue;
        p->id.rank = k->rank, p->id.local_rank = k->local_rank, p->id.world = k->world;
        p->id.gpu = stepstat_map(r, k, p->id.gpu);
        p->id.phase = k->phase;
        p->id.dropped = k->dropped, p->id.bad = k->bad;
        p->id.last_t = t;
        double timed = dt > 0 ? k->steps : 0;   /* the first record's interval is unknown */
        p->last = (struct stepstat_bucket){.t = t, .dt = dt, .timed = timed, .steps = k->steps, .waited = k->waited, .step_s = k->step_s,
                                           .wait_s = k->wait_s, .in_wait = k->in_wait_s - k->unwait_s,
                                           .in_compute = k->in_compute_s};
        p->run_steps += k->steps, p->run_waited += k->waited, p->run_step_s += k->step_s;
        p->run_wait_s += k->wait_s, p->run_in_wait += k->in_wait_s - k->unwait_s;
        p->run_in_compute += k->in_compute_s;
        for (unsigned b = 0; b < k->nbins; b++)
            p->run_hist[k->bins[b].bin] += k->bins[b].n;
        /* the window: drop what left it, then add to the newest bucket or start one */
        while (p->n && p->ring[p->head].t <= t - ss->window_s)
            p->head = (p->head + 1) & (p->cap - 1), p->n--;
        struct stepstat_bucket *last = p->n ? &p->ring[(p->head + p->n - 1) & (p->cap - 1)] : NULL;
        if (!last || t - last->t >= ss->window_s / 1024) {
            if (p->n == p->cap) {   /* grow, unrolling the ring */
                unsigned cap = p->cap ? p->cap * 2 : 64;
                struct stepstat_bucket *ring = xmalloc(cap * sizeof *ring);
                for (unsigned j = 0; j < p->n; j++)
                    ring[j] = p->ring[(p->head + j) & (p->cap - 1)];
                free(p->ring);
                p->ring = ring, p->cap = cap, p->head = 0;
            }
            last = &p->ring[(p->head + p->n++) & (p->cap - 1)];
            memset(last, 0, sizeof *last);
        }
        last->t = t;
        last->steps += k->steps, last->waited += k->waited, last->step_s += k->step_s, last->wait_s += k->wait_s;
        last->in_wait += k->in_wait_s - k->unwait_s, last->in_compute += k->in_compute_s;
        stepstat_bins_add(last, k);
    }
}

static double stepstat_pct(const unsigned long long *hist, double n, double pct)
{
    if (n <= 0)
        return NAN;
    double want = ceil(pct / 100 * n), cum = 0;
    for (unsigned b = 0; b < RECORD_STEP_NBINS; b++)
        if ((cum += (double)hist[b]) >= (want < 1 ? 1 : want))
            return record_step_bin_s(b);
    return record_step_bin_s(RECORD_STEP_NBINS - 1);
}

/* Adds process p's window (buckets after now - window) to f, hist and the sums. */
static void stepstat_window(const struct stepstat *ss, const struct stepstat_proc *p, double now,
                            struct stepstat_fig *f, unsigned long long *hist, double *sums)
{
    for (unsigned j = 0; j < p->n; j++) {
        const struct stepstat_bucket *b = &p->ring[(p->head + j) & (p->cap - 1)];
        if (b->t <= now - ss->window_s)
            continue;
        f->steps += b->steps, f->waited += (unsigned long long)b->waited;
        f->in_wait_s += b->in_wait, f->in_compute_s += b->in_compute;
        sums[0] += b->step_s, sums[1] += b->wait_s;
        for (unsigned i = 0; i < b->nbins; i++)
            hist[b->bins[i].bin] += b->bins[i].n;
    }
}

/* Percentiles, means, the wait share and the rate (steps per second of the loop's own time waiting and
 * computing: the time it trained, whatever else the process did meanwhile) from the sums (step time,
 * wait). */
static void stepstat_finish(struct stepstat_fig *f, const unsigned long long *hist, const double *sums)
{
    double step_s = sums[0], wait_s = sums[1];
    double nh = 0;   /* hist NULL: no percentiles (one record's figures) */
    for (unsigned b = 0; hist && b < RECORD_STEP_NBINS; b++)
        nh += (double)hist[b];
    f->p50 = stepstat_pct(hist, nh, 50);
    f->p95 = stepstat_pct(hist, nh, 95);
    f->step_mean = f->waited ? step_s / (double)f->waited : NAN;
    f->wait_mean = f->waited ? wait_s / (double)f->waited : NAN;
    f->in_wait_s = fmax(0, f->in_wait_s);   /* a window may hold a take-back without the wait it takes back */
    double loop = f->in_wait_s + f->in_compute_s;
    f->wait_share = loop > 0 ? 100 * f->in_wait_s / loop : NAN;
    f->rate = loop > 0 ? f->steps / loop : NAN;   /* per second of training, not of the records' span */
}

void stepstat_rank(const struct stepstat *ss, unsigned i, double now, struct stepstat_rank *out)
{
    const struct stepstat_proc *p = ss->p[i];
    *out = p->id;
    out->current = p->id.last_t == ss->latest_t;
    memset(&out->win, 0, sizeof out->win);
    memset(&out->run, 0, sizeof out->run);
    unsigned long long hist[RECORD_STEP_NBINS] = {0};
    double sums[3] = {0};
    stepstat_window(ss, p, now, &out->win, hist, sums);
    stepstat_finish(&out->win, hist, sums);
    struct stepstat_fig *r = &out->run;
    r->steps = p->run_steps, r->waited = (unsigned long long)p->run_waited;
    r->in_wait_s = p->run_in_wait, r->in_compute_s = p->run_in_compute;
    const double run[3] = {p->run_step_s, p->run_wait_s, 0};
    stepstat_finish(r, p->run_hist, run);
}

static bool stepstat_on(const struct stepstat_proc *p, unsigned gpu)
{
    return p->id.gpu == STEPSTAT_ALL_GPUS || p->id.gpu == (int)gpu;
}

bool stepstat_gpu(const struct stepstat *ss, unsigned gpu, double now, struct stepstat_fig *out)
{
    memset(out, 0, sizeof *out);
    double sums[3] = {0};
    unsigned i = 0;
    while (i < ss->n && !(stepstat_on(ss->p[i], gpu) && ss->p[i]->id.last_t > now - ss->window_s))
        i++;
    if (i == ss->n) {   /* no process on it (most GPUs of most logs): no histogram to clear and walk */
        stepstat_finish(out, NULL, sums);
        return false;
    }
    unsigned long long hist[RECORD_STEP_NBINS] = {0};
    for (; i < ss->n; i++)
        if (stepstat_on(ss->p[i], gpu) && ss->p[i]->id.last_t > now - ss->window_s)
            stepstat_window(ss, ss->p[i], now, out, hist, sums);
    stepstat_finish(out, hist, sums);
    return true;
}

bool stepstat_latest(const struct stepstat *ss, unsigned gpu, struct stepstat_fig *out)
{
    double sums[3] = {0}, dt = 0;
    bool any = false;
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < ss->n; i++) {
        const struct stepstat_bucket *b = &ss->p[i]->last;
        if (!stepstat_on(ss->p[i], gpu) || b->t != ss->latest_t)
            continue;
        any = true;
        out->steps += b->steps, out->waited += (unsigned long long)b->waited;
        out->in_wait_s += b->in_wait, out->in_compute_s += b->in_compute;
        sums[0] += b->step_s, sums[1] += b->wait_s, sums[2] += b->timed, dt = fmax(dt, b->dt);
    }
    stepstat_finish(out, NULL, sums);   /* per GPU per record: no 512-bin histogram to walk */
    out->rate = dt > 0 ? sums[2] / dt : NAN;   /* the chart's: steps per second of the record's interval */
    return any;
}

unsigned long long stepstat_gpu_set(const struct stepstat *ss, unsigned gpu)
{
    unsigned long long sig = 0;
    for (unsigned i = 0; i < ss->n; i++)
        if (stepstat_on(ss->p[i], gpu) && ss->p[i]->id.last_t == ss->latest_t)
            sig += (unsigned long long)(unsigned)ss->p[i]->id.pid * 0x9E3779B97F4A7C15ull + 1;
    return sig;
}
