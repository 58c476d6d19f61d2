/*
 * analyze_window.c: a GPU's window figures (analyze.h). The rows of
 * analyze_window_figures[] that a reduction describes are computed by
 * analyze_fig.c; this file computes the rest, each in a function of its
 * own: the window's coverage, utilization's sub-second peak, idle time and
 * gaps, clock reasons one by one, the events (process exits, ECC, XIDs,
 * loss), the job's steps, and, across GPUs, the slowest process of a
 * job, the busy peers of each GPU and the nodes compared. Figures only:
 * no threshold of the rules decides anything here.
 *
 * Idle time uses the driver's sub-second idle share where the record has
 * it, else the record's utilization under idle.util. An idle gap is a
 * stretch of idle records together with the mixed (partly idle) records on
 * either side of it, where the stall began or ended: one stall is one gap
 * whatever the sampling phase. A mixed record next to no idle record is a
 * short gap of its own. Time steps are capped at three median intervals,
 * so a hole in the data (a hung driver call) is not counted as idle time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze_int.h"

/* The figures that need the window's points one by one, in one pass (each sum adds its points in the
 * window's order, as a pass of its own would): idle share and gaps (see the top of the file), the mean
 * utilization of the mostly busy points and the share a kernel waited in (spin), and the events (the
 * process exit with the most memory in use just before it, new uncorrected ECC errors). A point's time
 * step and whether it is quiet were worked out as it entered (analyze.c). */
static void analyze_points(const struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    double dts[64], step = 1;
    unsigned nd = 0;
    if (g->n >= 2 && g->dt_run >= g->n - 1) {   /* every step the same: that is the median */
        step = analyze_at(g, g->n - 1)->dt;
    } else {
        for (unsigned k = 1; k < g->n && nd < 64; k++)
            dts[nd++] = analyze_at(g, k)->dt;
        if (nd)
            step = analyze_nth(dts, nd, nd / 2);   /* the median interval */
    }
    double idle = 0, total = 0, cur = 0, sum_gaps = 0, cap = 3 * step;
    unsigned gaps = 0;
    bool in_gap = false, gap_full = false;   /* the open gap, and whether it has a wholly idle record */
    double bu = 0;
    unsigned nb = 0, spin = 0;                /* counts: as doubles would count them */
    long long ecc_first = -1, ecc_last = -1;
    const struct analyze_point *q = NULL;    /* the point before */
    struct analyze_runs runs = analyze_runs_of(g);
    ANALYZE_EACH_POINT(runs, p) {
        spin += p->spin;
        if (!isnan(p->v[AC_UTIL]) && p->v[AC_IDLE] < 0.5f)
            bu += p->v[AC_UTIL], nb++;
        if (q && p->procs >= 0 && q->procs >= 0 && p->procs < q->procs && q->v[AC_MEM_TOTAL] > 0) {
            double share = 100.0 * q->v[AC_MEM_USED] / q->v[AC_MEM_TOTAL];
            if (share >= s->exit_mem_share || s->exit_t == 0)
                s->exit_t = p->t, s->exit_mem_share = share;
        }
        if (p->ecc_uncorr >= 0) {
            if (ecc_first < 0)
                ecc_first = p->ecc_uncorr;
            ecc_last = p->ecc_uncorr;
        }
        float share = p->v[AC_IDLE];
        double dt = q ? p->dt : step;
        q = p;
        if (dt > cap)
            dt = cap;
        if (isnan(share) || p->lost)
            continue;
        total += dt;
        idle += share * dt;
        /* quiet (analyze_quiet: a copy to the host, a kernel that waits) does not end a gap */
        bool full = p->quiet, part = share > 0 && !full;
        /* a gap closes at a busy record, at a mixed record after idle ones (the stall ended in it), and
         * before a mixed record that follows a lone mixed one (two short gaps, not one) */
        bool close_before = in_gap && (!(full || part) || (part && !gap_full));
        if (close_before) {
            sum_gaps += cur;
            s->idle_gap_max_s = fmax(s->idle_gap_max_s, cur);
            in_gap = false;
        }
        if ((full || part) && !in_gap) {
            gaps++;
            cur = 0;
            in_gap = true;
            gap_full = false;
        }
        if (in_gap) {
            cur += share * dt;
            gap_full |= full;
            if (part && gap_full) {   /* the stall ended inside this record */
                sum_gaps += cur;
                s->idle_gap_max_s = fmax(s->idle_gap_max_s, cur);
                in_gap = false;
            }
        }
    }
    if (in_gap) {
        sum_gaps += cur;
        if (cur > s->idle_gap_max_s)
            s->idle_gap_max_s = cur;
    }
    s->idle_gaps = gaps;
    s->idle_share = total > 0 ? 100.0 * idle / total : NAN;
    s->idle_gap_mean_s = gaps ? sum_gaps / gaps : 0;
    s->busy_util = nb ? bu / (double)nb : NAN;
    s->spin_share = g->n ? 100.0 * (double)spin / g->n : 0;
    s->ecc_uncorr_new = ecc_first >= 0 ? ecc_last - ecc_first : 0;
}

/* The stops that reach into the window (the one going on, once pause_s long, too). */
static void analyze_stops_window(const struct analyzer *a, const struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    struct analyze_stop st[ANALYZE_STOPS];
    double from = a->now - a->cfg.window_s;
    s->stop_busy_before_s = NAN;
    s->stop_going = g->stop_open && g->cur.idle_s >= a->cfg.pause_s;   /* a short gap going on is no stop */
    for (unsigned k = 0, n = analyze_stops_of(a, g, st); k < n; k++) {
        if (st[k].end <= from)
            continue;
        double len = st[k].end - st[k].start, in = st[k].end - fmax(st[k].start, from);
        s->stops++;
        s->stop_max_s = fmax(s->stop_max_s, st[k].idle_s);
        s->stop_idle_s += len > 0 ? st[k].idle_s * in / len : 0;
        if (!isnan(st[k].busy_before_s))
            s->stop_busy_before_s = isnan(s->stop_busy_before_s) ? st[k].busy_before_s
                                                                 : fmin(s->stop_busy_before_s, st[k].busy_before_s);
    }
}

/* How much of the window the points cover, and whether that is a full window (for GPM too). */
static void analyze_coverage(const struct analyzer *a, const struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    const struct analyze_config *c = &a->cfg;
    s->span_s = analyze_at(g, g->n - 1)->t - analyze_at(g, 0)->t;
    s->enough = g->n >= c->min_samples && s->span_s >= c->min_coverage / 100.0 * c->window_s;
    s->gpm_covered = s->n_gpm >= c->min_samples && s->n_gpm >= c->min_coverage / 100.0 * g->n &&
                     !isnan(s->sm_active_mean);
    s->n_util = (unsigned)g->n_util;
    static const double p95 = 95;
    s->util_peak = s->util_p95;
    if (g->n_max)
        analyze_hist_percentiles(g->hist_max, g->hist_max_bits, g->n_max, &p95, 1, &s->util_peak);
    s->mem_ok = !isnan(s->mem_min);
}

/* The share of the window each clock event reason was active (of the points that have reasons), from the
 * window's running counts (analyze_slide.c). */
static void analyze_reasons(const struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    double known = (double)g->slide.rknown;
    s->n_reasons = (unsigned)g->slide.rknown;
    for (int r = 0; r < CLOCK_REASON_COUNT; r++)
        s->reason_share[r] = known ? 100.0 * (double)g->slide.reason[r] / known : 0;
}

/* Events of the window (those of its points: analyze_points): XIDs seen; the latest point's facts and the
 * history's times. */
static void analyze_events(const struct analyzer *a, const struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    for (unsigned x = 0; x < g->nxid && s->nxids < ANALYZE_MAX_XIDS; x++)
        if (g->xid[x].last_t > a->now - a->cfg.window_s) {
            s->xids[s->nxids].code = g->xid[x].code;
            s->xids[s->nxids].count = g->xid[x].count;
            s->xids[s->nxids++].last_t = g->xid[x].last_t;
        }
    const struct analyze_point *last = analyze_at(g, g->n - 1);
    s->procs = last->procs;
    s->gpm_code = last->gpm_code;
    s->lost = last->lost;
    s->lost_t = g->lost_t;
    s->idle_for_s = g->idle_since > 0 ? a->now - g->idle_since : 0;
    s->still_for_s = g->still_since > 0 ? a->now - g->still_since : 0;
    double span = a->now - g->grow_t[0];   /* from the older reference: ANALYZE_GROW_S to twice that back */
    s->mem_growth = g->grow_t[0] > 0 && g->grow_mem[0] > 0 && span > 0 && s->mem_ok
                        ? 100 * (s->mem_last - g->grow_mem[0]) / g->grow_mem[0] * a->cfg.window_s / span : NAN;
    s->mem_first_use_t = g->mem_first_use_t;
    s->mem_high_t = g->mem_high_t;
    s->job_start_t = g->job_start_t;
    s->notebook = g->notebook;
    s->server = g->server;
    s->repair_pending = g->repair;
    s->repair_since_t = g->repair ? g->repair_since : 0;
}

/* The job's steps on this GPU, and the fastest p50 of a full window past the start-up so far; utilization
 * (and SM activity) while its loop waited and computed, weighted by each record's phase time, where the
 * phases are long enough against the sampling interval to tell apart (a mean step of two intervals or
 * more). */
static void analyze_steps_window(const struct analyzer *a, struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    s->step_best_p50 = s->step_best_t = NAN;
    s->best_util = s->best_sm = s->best_clock = s->best_wait = NAN;
    s->util_in_wait = s->util_in_compute = s->sm_in_wait = s->sm_in_compute = NAN;
    const struct stepstat *ss = a->nodes[g->node].steps;
    s->steps_ok = stepstat_gpu(ss, s->index, a->now, &s->steps);
    if (!s->steps_ok)
        return;
    unsigned long long set = stepstat_gpu_set(ss, s->index);
    if (set != g->best_set) {
        g->best_set = set;
        g->best_p50 = g->best_t = 0;
    }
    if (g->best_p50 > 0) {
        s->step_best_p50 = g->best_p50;
        s->step_best_t = g->best_t;
        s->best_util = g->best_util, s->best_sm = g->best_sm, s->best_clock = g->best_clock;
        s->best_wait = g->best_wait;
    }
    bool startup = g->job_start_t > 0 && a->now - a->cfg.window_s < g->job_start_t + a->cfg.startup_s;
    if (s->enough && !startup && s->steps.waited >= a->cfg.steps_min && !isnan(s->steps.p50) &&
        (g->best_p50 <= 0 || s->steps.p50 < g->best_p50)) {
        g->best_p50 = s->steps.p50;
        g->best_t = a->now;
        g->best_util = s->util_mean, g->best_sm = s->sm_active_mean, g->best_clock = s->sm_clock_mean;
        g->best_wait = s->steps.wait_share;   /* how busy the GPU was then: slower steps later are a slowdown
                                               * only if it does less (the rules) */
    }
    if (g->n < 2 || !(s->steps.step_mean >= 2 * s->span_s / (g->n - 1)))
        return;
    static const enum analyze_col cols[2] = {AC_UTIL, AC_SM_ACTIVE};
    double sum[2][4] = {{0}};   /* utilization, SM activity: [sum while waiting, time, sum computing, time] */
    for (unsigned k = 0; k < g->n; k++) {
        const struct analyze_point *p = analyze_at(g, k);
        for (int j = 0; j < 2; j++) {
            float v = p->v[cols[j]], w = p->v[AC_IN_WAIT], c = p->v[AC_IN_COMPUTE];
            if (!isnan(v)) {
                sum[j][0] += v * w, sum[j][1] += w;
                sum[j][2] += v * c, sum[j][3] += c;
            }
        }
    }
    double *out[2][2] = {{&s->util_in_wait, &s->util_in_compute}, {&s->sm_in_wait, &s->sm_in_compute}};
    for (int j = 0; j < 2; j++) {
        *out[j][0] = sum[j][1] > 0 ? sum[j][0] / sum[j][1] : NAN;
        *out[j][1] = sum[j][3] > 0 ? sum[j][2] / sum[j][3] : NAN;
    }
}

void analyze_window_stats(const struct analyzer *a, struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    memset(s, 0, sizeof *s);
    s->index = g->index;
    _Static_assert(sizeof s->name == sizeof g->name, "the window's name is the GPU's");
    memcpy(s->name, g->name, strlen(g->name) + 1);   /* every record evaluates it: no printf */
    s->now = a->now;
    s->window_s = a->cfg.window_s;
    s->n = g->n;
    s->proc_ratio = s->proc_wait_gap = s->slower_ratio = s->slower_wait_gap = NAN;
    s->proc_p50 = s->others_p50 = s->proc_wait = s->others_wait = NAN;
    if (g->n > 0) {
        analyze_window_reduce(&a->plan, g, s);
        analyze_coverage(a, g, s);
        analyze_points(g, s);
        analyze_stops_window(a, g, s);
        analyze_reasons(g, s);
        analyze_events(a, g, s);
    }
    analyze_steps_window(a, g, s);
}

/* One process of a job (analyze_slowest). */
struct analyze_proc {
    struct stepstat_rank r;
    unsigned node;
    double others_p50, others_wait;   /* the medians of the others */
    double ratio, wait_gap, key;      /* against them; key: how slow, both together */
};

/* A job of several processes: each against the median of the others. The process of a GPU is the
 * slowest on it; the rules judge whether it is slow, and whether one that ranks slower is (those figures
 * are the highest among them). */
static void analyze_slowest(const struct analyzer *a, struct analyze_gpu_stats *out)
{
    unsigned n = 0, m = 0;
    for (unsigned h = 0; h < a->nnodes; h++)
        n += stepstat_nranks(a->nodes[h].steps);
    if (n < 2)
        return;
    struct analyze_proc *p = xcalloc(n, sizeof *p);
    double *p50s = xcalloc(n, sizeof *p50s), *waits = xcalloc(n, sizeof *waits);
    /* the processes of one job running now, on every node: listed in the latest record of their node,
     * the same WORLD_SIZE (> 1) */
    int world = -1;
    for (unsigned h = 0; h < a->nnodes; h++)
        for (unsigned i = 0; i < stepstat_nranks(a->nodes[h].steps); i++) {
            stepstat_rank(a->nodes[h].steps, i, a->now, &p[m].r);
            const struct stepstat_rank *r = &p[m].r;
            if (r->current && r->world > 1 && r->win.waited >= a->cfg.steps_min && !isnan(r->win.p50) &&
                (world < 0 || r->world == world)) {
                world = r->world;
                p[m++].node = h;
            }
        }
    for (unsigned j = 0; j < m; j++)   /* sorted once; each process's others are they without it */
        p50s[j] = p[j].r.win.p50, waits[j] = isnan(p[j].r.win.wait_share) ? 0 : p[j].r.win.wait_share;
    qsort(p50s, m, sizeof *p50s, analyze_cmp_double);
    qsort(waits, m, sizeof *waits, analyze_cmp_double);
    for (unsigned i = 0; i < m && m >= 2; i++) {
        double wait = isnan(p[i].r.win.wait_share) ? 0 : p[i].r.win.wait_share;
        double med = p[i].others_p50 = analyze_median_but(p50s, m, p[i].r.win.p50);
        double medw = p[i].others_wait = analyze_median_but(waits, m, wait);
        p[i].ratio = med > 0 ? p[i].r.win.p50 / med : 0;
        p[i].wait_gap = wait - medw;
        p[i].key = p[i].ratio + p[i].wait_gap / 100;
    }
    for (unsigned g = 0; g < a->ngpus; g++) {
        out[g].job_ranks = m;
        int best = -1;
        for (unsigned i = 0; i < m && m >= 2; i++)
            if (a->gpus[g]->node == p[i].node &&
                (p[i].r.gpu == STEPSTAT_ALL_GPUS || p[i].r.gpu == (int)out[g].index) &&
                (best < 0 || p[i].key > p[best].key))
                best = (int)i;
        if (best < 0)
            continue;
        const struct analyze_proc *w = &p[best];
        out[g].proc_pid = w->r.pid;
        out[g].proc_rank = w->r.rank;
        out[g].proc_p50 = w->r.win.p50;
        out[g].others_p50 = w->others_p50;
        out[g].proc_wait = w->r.win.wait_share;
        out[g].others_wait = w->others_wait;
        out[g].proc_ratio = w->ratio;
        out[g].proc_wait_gap = w->wait_gap;
        for (unsigned j = 0; j < m; j++)   /* ranked slower: a higher key, or the same key listed earlier */
            if (p[j].key > w->key || (p[j].key == w->key && j < (unsigned)best)) {
                out[g].slower_ratio = isnan(out[g].slower_ratio) ? p[j].ratio : fmax(out[g].slower_ratio, p[j].ratio);
                out[g].slower_wait_gap = isnan(out[g].slower_wait_gap) ? p[j].wait_gap
                                                                       : fmax(out[g].slower_wait_gap, p[j].wait_gap);
            }
    }
    free(p);
    free(p50s);
    free(waits);
}

/* Peers: the other GPUs (of every node) busy in the job: a full window, not lost, utilization at idle.util
 * or more, or a process. */
static bool analyze_peer(const struct analyzer *a, const struct analyze_gpu_stats *o)
{
    return o->enough && !o->lost && !isnan(o->util_mean) && (o->util_mean >= a->cfg.idle_util || o->procs > 0);
}

/* The busy GPUs sorted once; each GPU's peers are they without itself. */
static void analyze_peers(const struct analyzer *a, struct analyze_gpu_stats *out)
{
    double *m = xcalloc(a->ngpus ? a->ngpus : 1, sizeof *m);
    unsigned n = 0;
    for (unsigned j = 0; j < a->ngpus; j++)
        if (analyze_peer(a, &out[j]))
            m[n++] = out[j].util_mean;
    qsort(m, n, sizeof *m, analyze_cmp_double);
    for (unsigned i = 0; i < a->ngpus; i++) {
        bool self = analyze_peer(a, &out[i]);
        out[i].npeers = self ? n - 1 : n;
        out[i].peer_median_util = self ? analyze_median_but(m, n, out[i].util_mean)
                                       : n ? (n % 2 ? m[n / 2] : (m[n / 2 - 1] + m[n / 2]) / 2) : NAN;
    }
    free(m);
}

void analyze_window_across(struct analyzer *a, struct analyze_gpu_stats *out)
{
    analyze_slowest(a, out);
    if (a->nnodes > 1)
        analyze_nodes_compare(a, out);
    analyze_peers(a, out);
}
