/*
 * analyze.c: the sliding windows and the stats computed from them (see
 * analyze.h). Each GPU keeps a ring of compact points (NAN or -1 where a
 * value was not available, never 0) and two 101-bin histograms
 * (utilization, sub-second peak) updated as points enter and leave, so
 * percentiles cost 101 steps whatever the window. Idle time uses the
 * driver's sub-second idle share where the record has it, else the
 * record's utilization under idle.util. An idle gap is a stretch of idle
 * records together with the mixed (partly idle) records on either side of
 * it, where the stall began or ended: one stall is one gap whatever the
 * sampling phase. A mixed record next to no idle record is a short gap of
 * its own. Time steps are capped at three median intervals, so a
 * hole in the data (a hung driver call) is not counted as idle time.
 */
#include "analyze_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"

struct analyze_point {
    double t;
    float util, umax, idle;          /* %, %, share 0-1 */
    float mem_used, mem_total, temp, power, plimit, sm, smmax, pcie_tx, pcie_rx;
    float sm_act, sm_occ, tensor, dram, fp32;   /* GPM, %; NAN unknown */
    int16_t gpm_code;                /* 0 GPM known, NVML code why not, -1 not in the record */
    int64_t ecc_uncorr;
    int32_t reasons;                 /* -1 unknown */
    int16_t procs;                   /* -1 unknown */
    uint8_t lost;
    float in_wait, in_compute;       /* seconds the job's loop on this GPU waited / computed (stepstat.h) */
};

struct analyze_gpu {
    struct analyze_point *ring;
    unsigned cap, head, n;
    unsigned long long hist[101], hist_max[101];
    unsigned long long n_util, n_max;
    double mem_first_use_t, mem_high_t, idle_since, lost_t;
    double job_start_t;              /* memory went from unused to used here (a start seen); 0 none */
    double best_p50, best_t;         /* fastest step p50 of a full window so far; 0 none */
    unsigned long long best_set;     /* of this set of processes (stepstat_gpu_set): a new job starts afresh */
    double acct_t, acct_energy;      /* the previous record's time and energy counter (accounting) */
    bool seen_unused;                /* a record without memory in use came before */
    unsigned nxid;
    struct { unsigned code; unsigned long long count; double last_t; } xid[RECORD_MAX_XIDS];
    struct analyze_gpu_total tot;
    unsigned node;                   /* its node (analyzer's nodes[]) */
};

struct analyzer {
    struct rule_config cfg;
    double now;
    unsigned ngpus;
    struct analyze_gpu gpus[ANALYZE_MAX_GPUS];
    struct analyze_node nodes[ANALYZE_MAX_NODES];   /* by hostname: host windows and steps */
    unsigned nnodes;
    unsigned long long thermal_mask, power_mask;   /* clock_reasons.h's groups */
    struct account *account;
    struct sbuf who;                 /* analyze_who's buffer */
};

struct analyzer *analyze_new(const struct rule_config *c)
{
    struct analyzer *a = xcalloc(1, sizeof *a);
    a->cfg = *c;
    a->thermal_mask = clock_reason_mask(CR_GROUP_THERMAL);
    a->power_mask = clock_reason_mask(CR_GROUP_POWER);
    a->account = account_new();
    sbuf_init(&a->who);
    return a;
}

void analyze_free(struct analyzer *a)
{
    if (!a)
        return;
    for (unsigned i = 0; i < a->ngpus; i++)
        free(a->gpus[i].ring);
    for (unsigned i = 0; i < a->nnodes; i++)
        analyze_node_free(&a->nodes[i]);
    account_free(a->account);
    sbuf_free(&a->who);
    free(a);
}

unsigned analyze_ngpus(const struct analyzer *a)
{
    return a->ngpus;
}

double analyze_now(const struct analyzer *a)
{
    return a->now;
}

const struct account *analyze_account(const struct analyzer *a)
{
    return a->account;
}

const struct stepstat *analyze_steps(const struct analyzer *a)
{
    return a->nnodes ? a->nodes[0].steps : NULL;
}

unsigned analyze_nnodes(const struct analyzer *a)
{
    return a->nnodes;
}

const char *analyze_node_name(const struct analyzer *a, unsigned i)
{
    return i < a->nnodes ? a->nodes[i].name : "";
}

const struct stepstat *analyze_node_steps(const struct analyzer *a, unsigned i)
{
    return i < a->nnodes ? a->nodes[i].steps : NULL;
}

const struct analyze_gpu_total *analyze_total(const struct analyzer *a, unsigned i)
{
    return i < a->ngpus ? &a->gpus[i].tot : NULL;
}

double analyze_hist_percentile(const unsigned long long *hist, unsigned long long n, double pct)
{
    if (n == 0)
        return NAN;
    unsigned long long rank = (unsigned long long)ceil(pct / 100.0 * (double)n), cum = 0;
    if (rank < 1)
        rank = 1;
    for (int b = 0; b <= 100; b++)
        if ((cum += hist[b]) >= rank)
            return b;
    return 100;
}

static int analyze_bin(float v)
{
    int b = (int)lround(v);
    return b < 0 ? 0 : b > 100 ? 100 : b;
}

static void analyze_hist(struct analyze_gpu *g, const struct analyze_point *p, int dir)
{
    if (!isnan(p->util)) {
        g->hist[analyze_bin(p->util)] += dir;
        g->n_util += dir;
    }
    if (!isnan(p->umax)) {
        g->hist_max[analyze_bin(p->umax)] += dir;
        g->n_max += dir;
    }
}

static void analyze_point_from(const struct analyzer *a, const struct record_gpu *rg, double t,
                               struct analyze_point *p)
{
    const struct value *v = rg->v;
    *p = (struct analyze_point){.t = t};
    p->util = analyze_num(&v[M_UTIL_GPU], M_UTIL_GPU);
    p->umax = analyze_num(&v[M_UTIL_MAX], M_UTIL_MAX);
    p->idle = analyze_num(&v[M_UTIL_IDLE], M_UTIL_IDLE) / 100.0f;
    if (isnan(p->idle) && !isnan(p->util))
        p->idle = p->util < a->cfg.t[T_IDLE_UTIL] ? 1.0f : 0.0f;
    p->mem_used = analyze_num(&v[M_MEM_USED], M_MEM_USED);
    p->mem_total = analyze_num(&v[M_MEM_TOTAL], M_MEM_TOTAL);
    p->temp = analyze_num(&v[M_TEMP], M_TEMP);
    p->power = analyze_num(&v[M_POWER], M_POWER);
    p->plimit = analyze_num(&v[M_POWER_ENFORCED], M_POWER_ENFORCED);
    if (isnan(p->plimit))
        p->plimit = analyze_num(&v[M_POWER_LIMIT], M_POWER_LIMIT);
    p->sm = analyze_num(&v[M_CLOCK_SM], M_CLOCK_SM);
    p->smmax = analyze_num(&v[M_CLOCK_MAX_SM], M_CLOCK_MAX_SM);
    p->pcie_tx = analyze_num(&v[M_PCIE_TX], M_PCIE_TX);
    p->pcie_rx = analyze_num(&v[M_PCIE_RX], M_PCIE_RX);
    p->ecc_uncorr = v[M_ECC_UNCORR].state == VS_OK ? v[M_ECC_UNCORR].u.i : -1;
    p->reasons = -1;
    if (v[M_REASONS].state == VS_OK) {
        p->reasons = (int32_t)(v[M_REASONS].u.i & 0x7fffffff);
    } else {   /* a log with the flag rows only (--fields): the mask from them */
        for (int r = 0; r < CLOCK_REASON_COUNT; r++) {
            const struct value *f = &v[metric_reason_id((enum clock_reason_id)r)];
            if (f->state == VS_OK)
                p->reasons = (p->reasons < 0 ? 0 : p->reasons) | (f->u.i ? (int32_t)clock_reasons[r].bit : 0);
        }
    }
    p->sm_act = analyze_num(&v[M_GPM_SM_ACTIVE], M_GPM_SM_ACTIVE);
    p->sm_occ = analyze_num(&v[M_GPM_SM_OCCUPANCY], M_GPM_SM_OCCUPANCY);
    p->tensor = analyze_num(&v[M_GPM_TENSOR_ACTIVE], M_GPM_TENSOR_ACTIVE);
    p->dram = analyze_num(&v[M_GPM_DRAM_ACTIVE], M_GPM_DRAM_ACTIVE);
    p->fp32 = analyze_num(&v[M_GPM_FP32_ACTIVE], M_GPM_FP32_ACTIVE);
    const struct value *gs = &v[M_GPM_SM_ACTIVE];
    p->gpm_code = gs->state == VS_OK ? 0 : (gs->state == VS_UNSUPPORTED || gs->state == VS_ERROR) && gs->code > 0
                                               ? (int16_t)(gs->code > 32767 ? 32767 : gs->code) : -1;
    p->procs = v[M_PROC_COUNT].state == VS_OK ? (int16_t)v[M_PROC_COUNT].u.i : -1;
    p->lost = (v[M_STATE].state == VS_OK && v[M_STATE].u.s && !strcmp(v[M_STATE].u.s, "lost")) ||
              v[M_UTIL_GPU].state == VS_LOST;
}

static struct analyze_gpu *analyze_gpu_for(struct analyzer *a, unsigned node, const struct record_gpu *rg)
{
    for (unsigned i = 0; i < a->ngpus; i++)
        if (a->gpus[i].tot.index == rg->index && a->gpus[i].node == node)
            return &a->gpus[i];
    if (a->ngpus == ANALYZE_MAX_GPUS)
        return NULL;
    struct analyze_gpu *g = &a->gpus[a->ngpus++];
    g->node = node;
    g->tot.index = rg->index;
    memcpy(g->tot.host, a->nodes[node].name, sizeof g->tot.host);   /* both 64 bytes, NUL-terminated */
    g->tot.lost_t = 0;
    g->tot.gpm_code = -1;
    return g;
}

static void analyze_history(struct analyzer *a, struct analyze_gpu *g, const struct record_gpu *rg,
                            const struct analyze_point *p)
{
    const double *th = a->cfg.t;
    if (rg->v[M_NAME].state == VS_OK && rg->v[M_NAME].u.s)
        snprintf(g->tot.name, sizeof g->tot.name, "%s", rg->v[M_NAME].u.s);
    double frac = p->mem_total > 0 ? p->mem_used / p->mem_total : NAN;
    if (!isnan(frac)) {
        if (frac < 0.01)
            g->mem_first_use_t = 0;   /* nothing held: a later allocation starts afresh */
        else if (g->mem_first_use_t == 0)
            g->mem_first_use_t = p->t;
        if (frac >= 0.01 && g->seen_unused && g->job_start_t == 0)
            g->job_start_t = p->t;    /* a job started here, not before the log began */
        if (frac < 0.01) {
            g->seen_unused = true;
            g->job_start_t = 0;       /* the GPU was given up: the next use is a new start */
        }
        if (frac * 100 < th[T_MEM_HIGH])
            g->mem_high_t = 0;
        else if (g->mem_high_t == 0)
            g->mem_high_t = p->t;
    }
    bool idle = !isnan(p->util) && p->util < th[T_IDLE_UTIL] && (isnan(p->umax) || p->umax < th[T_IDLE_UTIL]);
    if (!idle || p->lost)
        g->idle_since = 0;
    else if (g->idle_since == 0)
        g->idle_since = p->t;
    if (p->lost && g->lost_t == 0)
        g->lost_t = g->tot.lost_t = p->t;
    for (unsigned x = 0; x < rg->nxids; x++) {
        const struct record_xid *rx = &rg->xids[x];
        unsigned k = 0;
        while (k < g->nxid && g->xid[k].code != rx->code)
            k++;
        if (k == g->nxid) {
            if (g->nxid == RECORD_MAX_XIDS)
                continue;
            g->nxid++;
            g->xid[k].code = rx->code;
        }
        g->xid[k].count = rx->count;
        g->xid[k].last_t = (double)rx->last.tv_sec + rx->last.tv_nsec / 1e9;
    }
    /* whole-run totals */
    struct analyze_gpu_total *tot = &g->tot;
    double dt = tot->samples ? p->t - tot->last_t : 0;
    if (dt > 60)
        dt = 60;   /* a hole in the data is not throttled time */
    if (!tot->samples)
        tot->first_t = p->t;
    tot->last_t = p->t;
    tot->samples++;
    if (!isnan(p->util)) {
        tot->hist[analyze_bin(p->util)]++;
        tot->n_util++;
        tot->idle_sum += isnan(p->idle) ? 0 : p->idle * 100.0;
    }
    if (!isnan(p->mem_used) && p->mem_used > tot->mem_peak)
        tot->mem_peak = p->mem_used;
    if (!isnan(p->mem_total))
        tot->mem_total = p->mem_total;
    if (p->reasons > 0 && (p->reasons & (a->thermal_mask | a->power_mask)))
        tot->throttled_s += dt;
    if (!isnan(p->sm_act)) {
        tot->n_gpm++;
        tot->sm_active_sum += p->sm_act;
        if (!isnan(p->tensor))
            tot->n_tensor++, tot->tensor_sum += p->tensor;
        if (!isnan(p->dram))
            tot->n_dram++, tot->dram_sum += p->dram;
    }
    if (p->gpm_code >= 0)
        tot->gpm_code = p->gpm_code;
}

/* A full ring of n elements of size sz doubles (up to ANALYZE_MAX_POINTS),
 * unrolled so that its head is 0. Returns the ring to use. */
/* The GPU's interval since its previous record (a hole counted up to a minute) goes to the accounts of
 * its jobs and users, with its energy: the counter's rise, or power x time without the counter. */
/* Adds the distinct non-empty values of n strings (stride bytes apart) to b, comma-separated; short:
 * a container "runtime://id" with the id cut to docker's 12 digits. */
static void analyze_who_list(struct sbuf *b, const char *first, size_t stride, unsigned n, bool short_id)
{
    size_t start = b->len;
    for (unsigned i = 0; i < n; i++) {
        const char *v = first + i * stride;
        bool dup = !v[0];
        for (unsigned j = 0; j < i && !dup; j++)
            dup = !strcmp(v, first + j * stride);
        if (dup)
            continue;
        const char *id = short_id ? strstr(v, "://") : NULL;
        int len = id ? (int)(id - v) + 3 + 12 : 64;
        sbuf_printf(b, "%s%.*s", b->len > start ? ", " : "", len, v);
    }
}

/* Who was on the GPU in this record (jobs, users, containers, pods), kept while it is known. */
static void analyze_who(struct analyzer *a, struct analyze_gpu *g, const struct record_gpu *rg)
{
    static const char *const names[4] = {"jobs ", "users ", "containers ", "pods "};
    if (!rg->njobs && !rg->nprocs)
        return;   /* nothing known now: the last known stays */
    struct sbuf b = a->who;   /* reused: no allocation per GPU per record */
    sbuf_reset(&b);
    for (int k = 0; k < 4; k++) {
        size_t before = b.len;
        sbuf_puts(&b, before ? "; " : "");
        sbuf_puts(&b, names[k]);
        size_t head = b.len;
        const struct record_proc *p = rg->procs;
        if (k == 0)
            analyze_who_list(&b, rg->jobs[0], sizeof rg->jobs[0], rg->njobs, false);
        else
            analyze_who_list(&b, k == 1 ? p->user : k == 2 ? p->container : p->pod, sizeof *p, rg->nprocs, k == 2);
        if (b.len == head) {   /* none of this kind */
            b.len = before;
            b.data[b.len] = '\0';
        }
    }
    if (b.len)
        snprintf(g->tot.who, sizeof g->tot.who, "%s", b.data);
    a->who = b;
}

static void analyze_account_add(struct analyzer *a, struct analyze_gpu *g, const struct record_gpu *rg,
                                const struct analyze_point *p)
{
    analyze_who(a, g, rg);
    double dt = g->acct_t > 0 ? fmin(p->t - g->acct_t, 60) : 0;
    double e = analyze_num(&rg->v[M_ENERGY], M_ENERGY), used = NAN;
    if (!isnan(e) && !isnan(g->acct_energy) && e >= g->acct_energy)
        used = e - g->acct_energy;
    else if (!isnan(p->power))
        used = p->power * dt;
    g->acct_t = p->t;
    g->acct_energy = e;
    account_add(a->account, rg, p->t, dt, p->idle, used);
}

void analyze_feed(struct analyzer *a, const struct record *r)
{
    double t = (double)r->time.tv_sec + r->time.tv_nsec / 1e9, from = t - a->cfg.window_s;
    if (t < a->now)
        return;
    a->now = t;
    struct analyze_node *node = analyze_node_for(a->nodes, &a->nnodes, r->hostname, a->cfg.window_s);
    if (!node)
        return;   /* past ANALYZE_MAX_NODES nodes */
    analyze_node_feed(node, r, t, from);
    for (unsigned i = 0; i < r->ngpus; i++) {
        struct analyze_gpu *g = analyze_gpu_for(a, (unsigned)(node - a->nodes), &r->gpus[i]);
        if (!g)
            continue;
        struct analyze_point p;
        analyze_point_from(a, &r->gpus[i], t, &p);
        struct stepstat_fig f;
        stepstat_latest(node->steps, r->gpus[i].index, &f);
        p.in_wait = (float)f.in_wait_s, p.in_compute = (float)f.in_compute_s;
        analyze_account_add(a, g, &r->gpus[i], &p);
        while (g->n && g->ring[g->head].t <= from) {
            analyze_hist(g, &g->ring[g->head], -1);
            g->head = (g->head + 1) % g->cap, g->n--;
        }
        g->ring = analyze_ring_grow(g->ring, sizeof *g->ring, &g->cap, &g->head, g->n);
        if (g->n == g->cap) {
            analyze_hist(g, &g->ring[g->head], -1);
            g->head = (g->head + 1) % g->cap, g->n--;
        }
        g->ring[(g->head + g->n++) % g->cap] = p;
        analyze_hist(g, &p, +1);
        analyze_history(a, g, &r->gpus[i], &p);
    }
}

/* Idle share and gaps over the window (see the top of the file). */
static void analyze_idle(const struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    double dts[64], step = 1;
    unsigned nd = 0;
    for (unsigned k = 1; k < g->n && nd < 64; k++)
        dts[nd++] = g->ring[(g->head + k) % g->cap].t - g->ring[(g->head + k - 1) % g->cap].t;
    if (nd) {
        qsort(dts, nd, sizeof *dts, analyze_cmp_double);
        step = dts[nd / 2];
    }
    double idle = 0, total = 0, cur = 0, sum_gaps = 0;
    bool in_gap = false, gap_full = false;   /* the open gap, and whether it has a wholly idle record */
    for (unsigned k = 0; k < g->n; k++) {
        const struct analyze_point *p = &g->ring[(g->head + k) % g->cap];
        double dt = k ? p->t - g->ring[(g->head + k - 1) % g->cap].t : step;
        if (dt > 3 * step)
            dt = 3 * step;
        if (isnan(p->idle) || p->lost)
            continue;
        total += dt;
        idle += p->idle * dt;
        bool full = p->idle >= 0.95f, part = p->idle > 0 && !full;
        /* a gap closes at a busy record, at a mixed record after idle ones (the stall ended in it), and
         * before a mixed record that follows a lone mixed one (two short gaps, not one) */
        bool close_before = in_gap && (!(full || part) || (part && !gap_full));
        if (close_before) {
            sum_gaps += cur;
            s->idle_gap_max_s = fmax(s->idle_gap_max_s, cur);
            in_gap = false;
        }
        if ((full || part) && !in_gap) {
            s->idle_gaps++;
            cur = 0;
            in_gap = true;
            gap_full = false;
        }
        if (in_gap) {
            cur += p->idle * dt;
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
    s->idle_share = total > 0 ? 100.0 * idle / total : NAN;
    s->idle_gap_mean_s = s->idle_gaps ? sum_gaps / s->idle_gaps : 0;
}

static void analyze_gpu_stats(const struct analyzer *a, const struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    const double *th = a->cfg.t;
    memset(s, 0, sizeof *s);
    s->index = g->tot.index;
    snprintf(s->name, sizeof s->name, "%s", g->tot.name);
    s->now = a->now;
    s->window_s = a->cfg.window_s;
    s->n = g->n;
    if (g->n == 0)
        return;
    const struct analyze_point *first = &g->ring[g->head], *last = &g->ring[(g->head + g->n - 1) % g->cap];
    s->span_s = last->t - first->t;
    s->enough = g->n >= th[T_MIN_SAMPLES] && s->span_s >= th[T_MIN_COVERAGE] / 100.0 * a->cfg.window_s;
    s->n_util = (unsigned)g->n_util;
    double sum = 0;
    for (int b = 0; b <= 100; b++)
        sum += (double)b * (double)g->hist[b];
    s->util_mean = g->n_util ? sum / (double)g->n_util : NAN;
    s->util_p5 = analyze_hist_percentile(g->hist, g->n_util, 5);
    s->util_p50 = analyze_hist_percentile(g->hist, g->n_util, 50);
    s->util_p95 = analyze_hist_percentile(g->hist, g->n_util, 95);
    s->util_peak = g->n_max ? analyze_hist_percentile(g->hist_max, g->n_max, 95) : s->util_p95;
    analyze_idle(g, s);
    s->idle_for_s = g->idle_since > 0 ? a->now - g->idle_since : 0;

    double mn = INFINITY, mx = -INFINITY, st = 0, sm = 0, stt = 0, stm = 0, nm = 0;
    double nr = 0, rs[CLOCK_REASON_COUNT] = {0}, thermal = 0, power = 0, np = 0, psum = 0, nsm = 0, smsum = 0;
    double ntx = 0, tx = 0, nrx = 0, rx = 0;
    double ng = 0, g_sm = 0, g_occ = 0, g_tc = 0, g_dram = 0, g_fp32 = 0, n_occ = 0, n_tc = 0, n_dram = 0, n_fp32 = 0;
    double half = first->t + s->span_s / 2, hst = 0, hsm = 0, hstt = 0, hstm = 0, hn = 0;
    long long ecc_first = -1, ecc_last = -1;
    s->temp_max = s->power_limit = s->sm_max_clock = s->mem_total = NAN;
    s->oom_t = 0;
    for (unsigned k = 0; k < g->n; k++) {
        const struct analyze_point *p = &g->ring[(g->head + k) % g->cap];
        if (!isnan(p->mem_used) && !isnan(p->mem_total)) {
            double x = p->t - first->t;
            mn = fmin(mn, p->mem_used), mx = fmax(mx, p->mem_used);
            st += x, sm += p->mem_used, stt += x * x, stm += x * p->mem_used, nm++;
            s->mem_total = p->mem_total, s->mem_last = p->mem_used;
            if (p->t >= half)
                hst += x, hsm += p->mem_used, hstt += x * x, hstm += x * p->mem_used, hn++;
        }
        if (!isnan(p->sm_act)) {
            ng++, g_sm += p->sm_act;
            if (!isnan(p->sm_occ))
                n_occ++, g_occ += p->sm_occ;
            if (!isnan(p->tensor))
                n_tc++, g_tc += p->tensor;
            if (!isnan(p->dram))
                n_dram++, g_dram += p->dram;
            if (!isnan(p->fp32))
                n_fp32++, g_fp32 += p->fp32;
        }
        if (k > 0) {
            const struct analyze_point *q = &g->ring[(g->head + k - 1) % g->cap];
            if (p->procs >= 0 && q->procs >= 0 && p->procs < q->procs && q->mem_total > 0 &&
                100.0 * q->mem_used / q->mem_total >= th[T_OOM_MEM]) {
                s->oom_t = p->t;
                s->oom_mem_share = 100.0 * q->mem_used / q->mem_total;
            }
        }
        if (p->reasons >= 0) {
            nr++;
            for (int r = 0; r < CLOCK_REASON_COUNT; r++)
                rs[r] += (p->reasons & clock_reasons[r].bit) != 0;
            thermal += (p->reasons & a->thermal_mask) != 0;
            power += (p->reasons & a->power_mask) != 0;
        }
        if (!isnan(p->temp))
            s->temp_max = isnan(s->temp_max) ? p->temp : fmax(s->temp_max, p->temp);
        if (!isnan(p->power))
            psum += p->power, np++;
        if (!isnan(p->plimit))
            s->power_limit = p->plimit;
        if (!isnan(p->sm))
            smsum += p->sm, nsm++;
        if (!isnan(p->smmax))
            s->sm_max_clock = p->smmax;
        if (!isnan(p->pcie_tx))
            tx += p->pcie_tx, ntx++;
        if (!isnan(p->pcie_rx))
            rx += p->pcie_rx, nrx++;
        if (p->ecc_uncorr >= 0) {
            if (ecc_first < 0)
                ecc_first = p->ecc_uncorr;
            ecc_last = p->ecc_uncorr;
        }
    }
    s->mem_ok = nm > 0;
    s->mem_min = s->mem_ok ? mn : NAN;
    s->mem_max = s->mem_ok ? mx : NAN;
    double den = nm * stt - st * st, hden = hn * hstt - hst * hst;
    s->mem_slope = nm >= 2 && den > 0 ? (nm * stm - st * sm) / den : 0;
    s->mem_recent_slope = hn >= 2 && hden > 0 ? (hn * hstm - hst * hsm) / hden : 0;
    s->n_gpm = (unsigned)ng;
    s->sm_active_mean = ng ? g_sm / ng : NAN;
    s->sm_occupancy_mean = n_occ ? g_occ / n_occ : NAN;
    s->tensor_mean = n_tc ? g_tc / n_tc : NAN;
    s->dram_mean = n_dram ? g_dram / n_dram : NAN;
    s->fp32_mean = n_fp32 ? g_fp32 / n_fp32 : NAN;
    s->gpm_code = last->gpm_code;
    s->warmup = g->job_start_t > 0 && a->now - a->cfg.window_s < g->job_start_t + th[T_STARTUP_S];
    s->mem_first_use_t = g->mem_first_use_t;
    s->mem_high_t = g->mem_high_t;
    s->procs = last->procs;
    s->n_reasons = (unsigned)nr;
    for (int r = 0; r < CLOCK_REASON_COUNT; r++)
        s->reason_share[r] = nr ? 100.0 * rs[r] / nr : 0;
    s->thermal_share = nr ? 100.0 * thermal / nr : 0;
    s->power_share = nr ? 100.0 * power / nr : 0;
    s->power_mean = np ? psum / np : NAN;
    s->sm_mean = nsm ? smsum / nsm : NAN;
    s->pcie_tx_mean = ntx ? tx / ntx : NAN;
    s->pcie_rx_mean = nrx ? rx / nrx : NAN;
    s->lost = last->lost;
    s->lost_t = g->lost_t;
    for (unsigned x = 0; x < g->nxid && s->nxids < ANALYZE_MAX_XIDS; x++)
        if (g->xid[x].last_t > a->now - a->cfg.window_s) {
            s->xids[s->nxids].code = g->xid[x].code;
            s->xids[s->nxids].count = g->xid[x].count;
            s->xids[s->nxids++].last_t = g->xid[x].last_t;
        }
    s->ecc_uncorr_new = ecc_first >= 0 ? ecc_last - ecc_first : 0;
}

/* The job's steps on this GPU; utilization (and SM activity) while its loop waited and computed,
 * weighted by each record's phase time, where the phases are long enough against the sampling
 * interval to tell apart (a mean step of two intervals or more). */
static void analyze_step_stats(struct analyzer *a, struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    s->step_best_p50 = s->step_best_t = NAN;
    s->util_in_wait = s->util_in_compute = NAN;
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
    }
    if (s->enough && !s->warmup && s->steps.waited >= a->cfg.t[T_STEPS_MIN] && !isnan(s->steps.p50) &&
        (g->best_p50 <= 0 || s->steps.p50 < g->best_p50)) {
        g->best_p50 = s->steps.p50;
        g->best_t = a->now;
    }
    s->sm_in_wait = s->sm_in_compute = NAN;
    if (g->n < 2 || !(s->steps.step_mean >= 2 * s->span_s / (g->n - 1)))
        return;
    double sum[2][4] = {{0}};   /* utilization, SM activity: [sum while waiting, time, sum computing, time] */
    for (unsigned k = 0; k < g->n; k++) {
        const struct analyze_point *p = &g->ring[(g->head + k) % g->cap];
        const float v[2] = {p->util, p->sm_act};
        for (int j = 0; j < 2; j++)
            if (!isnan(v[j])) {
                sum[j][0] += v[j] * p->in_wait, sum[j][1] += p->in_wait;
                sum[j][2] += v[j] * p->in_compute, sum[j][3] += p->in_compute;
            }
    }
    double *out[2][2] = {{&s->util_in_wait, &s->util_in_compute}, {&s->sm_in_wait, &s->sm_in_compute}};
    for (int j = 0; j < 2; j++) {
        *out[j][0] = sum[j][1] > 0 ? sum[j][0] / sum[j][1] : NAN;
        *out[j][1] = sum[j][3] > 0 ? sum[j][2] / sum[j][3] : NAN;
    }
}

/* A job of several processes: the slowest against the median of the others (rules.c judges it). */
static void analyze_slow_rank(struct analyzer *a, struct analyze_gpu_stats *out)
{
    unsigned n = 0, m = 0;
    for (unsigned h = 0; h < a->nnodes; h++)
        n += stepstat_nranks(a->nodes[h].steps);
    if (n < 2)
        return;
    struct stepstat_rank *r = xcalloc(n, sizeof *r);
    unsigned *node = xcalloc(n, sizeof *node);
    double *p50s = xcalloc(n, sizeof *p50s), *waits = xcalloc(n, sizeof *waits);
    /* the processes of one job running now, on every node: listed in the latest record of their node,
     * the same WORLD_SIZE (> 1) */
    int world = -1;
    for (unsigned h = 0; h < a->nnodes; h++)
        for (unsigned i = 0; i < stepstat_nranks(a->nodes[h].steps); i++) {
            stepstat_rank(a->nodes[h].steps, i, a->now, &r[m]);
            if (r[m].current && r[m].world > 1 && r[m].win.waited >= a->cfg.t[T_STEPS_MIN] &&
                !isnan(r[m].win.p50) && (world < 0 || r[m].world == world)) {
                world = r[m].world;
                node[m++] = h;
            }
        }
    int worst = -1;
    double worst_score = 0, worst_others = NAN, worst_wait = NAN;
    for (unsigned i = 0; i < m && m >= 2; i++) {
        unsigned k = 0;
        for (unsigned j = 0; j < m; j++)
            if (j != i)
                p50s[k] = r[j].win.p50, waits[k++] = isnan(r[j].win.wait_share) ? 0 : r[j].win.wait_share;
        qsort(p50s, k, sizeof *p50s, analyze_cmp_double);
        qsort(waits, k, sizeof *waits, analyze_cmp_double);
        double med = k % 2 ? p50s[k / 2] : (p50s[k / 2 - 1] + p50s[k / 2]) / 2;
        double medw = k % 2 ? waits[k / 2] : (waits[k / 2 - 1] + waits[k / 2]) / 2;
        double score = med > 0 ? r[i].win.p50 / med : 0;
        double wgap = (isnan(r[i].win.wait_share) ? 0 : r[i].win.wait_share) - medw;
        if (score >= a->cfg.t[T_RANK_SLOW] || wgap >= a->cfg.t[T_STEPS_WAIT]) {
            double key = score + wgap / 100;
            if (key > worst_score)
                worst = (int)i, worst_score = key, worst_others = med, worst_wait = medw;
        }
    }
    for (unsigned g = 0; g < a->ngpus; g++)
        out[g].job_ranks = m;
    if (worst >= 0) {
        const struct stepstat_rank *w = &r[worst];
        for (unsigned g = 0; g < a->ngpus; g++)
            if (a->gpus[g].node == node[worst] && (w->gpu == STEPSTAT_ALL_GPUS || w->gpu == (int)out[g].index)) {
                out[g].slow_pid = w->pid;
                out[g].slow_rank = w->rank;
                out[g].slow_p50 = w->win.p50;
                out[g].others_p50 = worst_others;
                out[g].slow_wait = w->win.wait_share;
                out[g].others_wait = worst_wait;
            }
    }
    free(r);
    free(node);
    free(p50s);
    free(waits);
}

void analyze_stats(struct analyzer *a, struct analyze_gpu_stats *out)
{
    for (unsigned i = 0; i < a->ngpus; i++) {
        analyze_gpu_stats(a, &a->gpus[i], &out[i]);
        analyze_node_stats(&a->nodes[a->gpus[i].node], &out[i]);
        analyze_step_stats(a, &a->gpus[i], &out[i]);
    }
    analyze_slow_rank(a, out);
    if (a->nnodes > 1) {
        unsigned node[ANALYZE_MAX_GPUS];
        for (unsigned i = 0; i < a->ngpus; i++)
            node[i] = a->gpus[i].node;
        analyze_nodes_compare(out, node, a->ngpus, a->nnodes, a->cfg.t[T_IDLE_UTIL]);
    }
    /* Peers: the other GPUs of the node that are busy in the job. */
    for (unsigned i = 0; i < a->ngpus; i++) {
        double m[ANALYZE_MAX_GPUS];
        unsigned n = 0;
        for (unsigned j = 0; j < a->ngpus; j++) {
            const struct analyze_gpu_stats *o = &out[j];
            if (j != i && o->enough && !o->lost && !isnan(o->util_mean) &&
                (o->util_mean >= a->cfg.t[T_IDLE_UTIL] || o->procs > 0))
                m[n++] = o->util_mean;
        }
        qsort(m, n, sizeof *m, analyze_cmp_double);
        out[i].npeers = n;
        out[i].peer_median_util = n == 0 ? NAN : n % 2 ? m[n / 2] : (m[n / 2 - 1] + m[n / 2]) / 2;
    }
}
