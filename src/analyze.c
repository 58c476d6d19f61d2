/*
 * analyze.c: records into the analysis (see analyze.h): each GPU of a
 * record becomes a point of its window (columns from analyze_columns[],
 * NAN or -1 where a value was not available, never 0), two 101-bin
 * histograms (utilization, sub-second peak) are updated as points enter
 * and leave, so percentiles cost 101 steps whatever the window, and the
 * history the window cannot hold (first memory use, near-full since, idle
 * since, the job's start, XIDs, whole-run accumulators, accounting) is
 * kept per GPU. A GPU is its node, its index and, where the records say,
 * its UUID: a new UUID at an index is a new GPU. Arrays of GPUs and nodes
 * grow as they appear. The window's figures are computed on demand
 * (analyze_stats: analyze_fig.c's rows, analyze_window.c's functions).
 */
#include "analyze_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"

struct analyzer *analyze_new(const struct analyze_config *c)
{
    struct analyzer *a = xcalloc(1, sizeof *a);
    a->cfg = *c;
    a->thermal_mask = clock_reason_mask(CR_GROUP_THERMAL);
    a->power_mask = clock_reason_mask(CR_GROUP_POWER);
    a->account = account_new();
    sbuf_init(&a->who);
    analyze_plan_make(&a->plan);
    return a;
}

void analyze_free(struct analyzer *a)
{
    if (!a)
        return;
    for (unsigned i = 0; i < a->ngpus; i++) {
        free(a->gpus[i]->ring);
        analyze_slide_free(a->gpus[i]);
        free(a->gpus[i]);
    }
    free(a->gpus);
    for (unsigned i = 0; i < a->nnodes; i++)
        analyze_node_free(&a->nodes[i]);
    free(a->nodes);
    free(a->last_gpu);
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

unsigned analyze_gpu_index(const struct analyzer *a, unsigned i)
{
    return i < a->ngpus ? a->gpus[i]->index : 0;
}

const char *analyze_gpu_host(const struct analyzer *a, unsigned i)
{
    return i < a->ngpus ? a->nodes[a->gpus[i]->node].name : "";
}

int analyze_gpu_of(const struct analyzer *a, const struct record *r, unsigned i)
{
    return i < a->nlast && i < r->ngpus ? (int)a->last_gpu[i] : -1;
}

static int analyze_bin(float v)
{
    int b = (int)lround(v);
    return b < 0 ? 0 : b > 100 ? 100 : b;
}

static void analyze_hist_bit(unsigned long long *bits, int b, bool on)
{
    if (on)
        bits[b >> 6] |= 1ull << (b & 63);
    else
        bits[b >> 6] &= ~(1ull << (b & 63));
}

static void analyze_hist(struct analyze_gpu *g, const struct analyze_point *p, int dir)
{
    if (!isnan(p->v[AC_UTIL])) {
        int b = analyze_bin(p->v[AC_UTIL]);
        g->hist[b] += dir;
        g->hist_sum += (unsigned long long)(dir * b);
        g->n_util += dir;
        analyze_hist_bit(g->hist_bits, b, g->hist[b] != 0);
    }
    if (!isnan(p->v[AC_UTIL_MAX])) {
        int b = analyze_bin(p->v[AC_UTIL_MAX]);
        g->hist_max[b] += dir;
        g->hist_max_sum += (unsigned long long)(dir * b);
        g->n_max += dir;
        analyze_hist_bit(g->hist_max_bits, b, g->hist_max[b] != 0);
    }
}

/* A record's GPU as a point: its columns, then the integer facts. */
static void analyze_point_from(const struct analyzer *a, const struct record_gpu *rg, double t,
                               const struct stepstat_fig *steps, struct analyze_point *p)
{
    const struct value *v = rg->v;
    *p = (struct analyze_point){.t = t};
    for (int c = 0; c < AC_COUNT; c++) {
        const struct analyze_column *col = &analyze_columns[c];
        if (col->from_steps)
            continue;
        p->v[c] = analyze_num(&v[col->metric], col->metric);
        if (col->div)
            p->v[c] /= col->div;
    }
    p->v[AC_IN_WAIT] = (float)steps->in_wait_s;
    p->v[AC_IN_COMPUTE] = (float)steps->in_compute_s;
    if (isnan(p->v[AC_IDLE]) && !isnan(p->v[AC_UTIL]))
        p->v[AC_IDLE] = p->v[AC_UTIL] < a->cfg.idle_util ? 1.0f : 0.0f;
    /* A kernel that waits (a collective whose peer is not there, a spin lock) keeps utilization at 100%, but
     * no SM works and no memory moves: the GPU idles. */
    float sm_idle = (float)a->cfg.sm_idle;
    if (p->v[AC_UTIL] >= a->cfg.idle_util && p->v[AC_SM_ACTIVE] < sm_idle && p->v[AC_DRAM] < sm_idle) {
        p->spin = 1;
        p->v[AC_IDLE] = 1.0f;
    }
    if (isnan(p->v[AC_POWER_LIMIT]))
        p->v[AC_POWER_LIMIT] = analyze_num(&v[M_POWER_LIMIT], M_POWER_LIMIT);
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
    const struct value *gs = &v[M_GPM_SM_ACTIVE];
    p->gpm_code = gs->state == VS_OK ? 0 : (gs->state == VS_UNSUPPORTED || gs->state == VS_ERROR) && gs->code > 0
                                               ? (int16_t)(gs->code > 32767 ? 32767 : gs->code) : -1;
    p->procs = v[M_PROC_COUNT].state == VS_OK ? (int16_t)v[M_PROC_COUNT].u.i : -1;
    p->lost = metric_gpu_lost(v);
    p->quiet = analyze_quiet(&a->cfg, p);
}

/* The GPU of this node and index, and of this UUID where the record has one (a new UUID at an index is a
 * new GPU: another board after a reset or a swap; a record without one is the latest GPU of its index);
 * created on first sight. Its analyzer number in *number. */
static struct analyze_gpu *analyze_gpu_for(struct analyzer *a, unsigned node, const struct record_gpu *rg,
                                           unsigned *number)
{
    const struct value *u = &rg->v[M_UUID];
    const char *uuid = u->state == VS_OK && u->u.s ? u->u.s : "";
    int latest = -1;
    for (unsigned i = a->ngpus; i-- > 0;) {
        struct analyze_gpu *g = a->gpus[i];
        if (g->index != rg->index || g->node != node)
            continue;
        if (latest < 0)
            latest = (int)i;
        if (!uuid[0] || !strncmp(g->uuid, uuid, sizeof g->uuid - 1)) {
            *number = i;
            return g;
        }
    }
    if (latest >= 0 && !a->gpus[latest]->uuid[0]) {   /* the UUID is learnt: still that GPU */
        snprintf(a->gpus[latest]->uuid, sizeof a->gpus[latest]->uuid, "%s", uuid);
        *number = (unsigned)latest;
        return a->gpus[latest];
    }
    if (a->ngpus == a->gcap) {
        a->gcap = a->gcap ? 2 * a->gcap : 8;
        a->gpus = xrealloc(a->gpus, a->gcap * sizeof *a->gpus);
    }
    struct analyze_gpu *g = xcalloc(1, sizeof *g);
    g->node = node;
    g->index = rg->index;
    snprintf(g->uuid, sizeof g->uuid, "%s", uuid);
    g->run.gpm_code = -1;
    *number = a->ngpus;
    a->gpus[a->ngpus++] = g;
    return g;
}

/* Stops, point by point: a stop is a run of quiet points (analyze_quiet): a point with a burst of real
 * work ends it, so each burst of a swinging input pipeline or of autotuning ends one, while a
 * checkpoint's copies to the host (copy engines, not kernels: a low peak) leave it whole. A stop of
 * pause_s or more is kept with the busy time before it (since the previous one ended, or since the
 * GPU's first record; unknown for one that the first record is in): the rules tell an isolated pause
 * from a stall that recurs by it. */
static void analyze_stop(const struct analyzer *a, struct analyze_gpu *g, const struct analyze_point *p)
{
    double dt = g->prev_t > 0 ? fmin(p->t - g->prev_t, 10) : 0, before = g->prev_t > 0 ? g->prev_t : p->t;
    g->prev_t = p->t;
    if (isnan(p->v[AC_IDLE]) || p->lost)
        return;
    if (analyze_quiet(&a->cfg, p)) {
        if (!g->stop_open) {
            const struct analyze_stop *prev = g->nstops ? &g->stops[(g->stops_head + g->nstops - 1) % ANALYZE_STOPS]
                                                        : NULL;
            g->stop_open = true;
            g->cur = (struct analyze_stop){.start = before, .end = p->t};
            /* from the log's first record: unknown (it may have begun before) */
            g->cur.busy_before_s = prev ? before - prev->end : g->run.samples && before > g->run.first_t
                                                                    ? before - g->run.first_t : NAN;
        }
        g->cur.idle_s += p->v[AC_IDLE] * dt;
        g->cur.end = p->t;
        return;
    }
    if (!g->stop_open)
        return;
    g->stop_open = false;
    if (g->cur.idle_s < a->cfg.pause_s)
        return;   /* a short gap: the busy time before the next stop goes on counting from the previous one */
    if (g->nstops == ANALYZE_STOPS)
        g->stops_head = (g->stops_head + 1) % ANALYZE_STOPS, g->nstops--;
    g->stops[(g->stops_head + g->nstops++) % ANALYZE_STOPS] = g->cur;
}

unsigned analyze_gpu_stops(const struct analyzer *a, unsigned i, struct analyze_stop *out)
{
    return analyze_stops_of(a, a->gpus[i], out);
}

unsigned analyze_stops_of(const struct analyzer *a, const struct analyze_gpu *g, struct analyze_stop *out)
{
    unsigned n = 0;
    for (unsigned k = 0; k < g->nstops; k++)
        out[n++] = g->stops[(g->stops_head + k) % ANALYZE_STOPS];
    if (g->stop_open && g->cur.idle_s >= a->cfg.pause_s) {
        if (n == ANALYZE_STOPS)
            memmove(out, out + 1, --n * sizeof *out);
        out[n++] = g->cur;
    }
    return n;
}

/* The stall clock (still_for_s): an idle GPU whose memory rises above the most it held since the clock
 * started, by stall_growth of the GPU, is making progress (weights read from slow storage into it, a model
 * built on it), not hung: the clock starts again there. Above the most, not the least: a neighbour that
 * allocates and frees the same memory over and over is no progress of this job. Memory given up (under 1%
 * of the GPU) starts the watermark afresh, for the next job. */
static void analyze_still(const struct analyzer *a, struct analyze_gpu *g, double t, bool idle, double used,
                          double total)
{
    bool known = !isnan(used) && total > 0;
    if (!idle) {
        g->still_since = 0;
        return;
    }
    if (g->still_since == 0 || (known && used < 0.01 * total)) {
        g->still_since = t;
        g->still_mem = known ? used : NAN;
        return;
    }
    if (!known)
        return;
    if (isnan(g->still_mem) || used > g->still_mem) {
        bool progress = !isnan(g->still_mem) && 100 * (used - g->still_mem) >= a->cfg.stall_growth * total;
        g->still_mem = used;   /* the most it held since the clock started */
        if (progress)
            g->still_since = g->progress_t = t;
    }
}

/* The history the window cannot hold: first memory use, near full since, the job's start, idle since, the
 * stall clock, mem_growth's references, lost since, XIDs, stops, whether notebook kernels or inference servers
 * hold the GPU, a memory repair pending since. */
static void analyze_history(struct analyzer *a, struct analyze_gpu *g, const struct record_gpu *rg,
                            const struct analyze_point *p)
{
    if (p->procs >= 0) {   /* the list as recorded (a log without one keeps what was known) */
        g->notebook = g->server = rg->nprocs > 0;
        for (unsigned j = 0; j < rg->nprocs; j++) {
            g->notebook &= rg->procs[j].notebook;
            g->server &= rg->procs[j].server;
        }
    }
    const struct value *remap = &rg->v[M_REMAP_PENDING], *retire = &rg->v[M_RETIRED_PENDING];
    if (remap->state == VS_OK || retire->state == VS_OK) {   /* a repair waits for the GPU's next reset */
        unsigned bits = (remap->state == VS_OK && remap->u.i ? ANALYZE_REPAIR_REMAP : 0) |
                        (retire->state == VS_OK && retire->u.i ? ANALYZE_REPAIR_RETIRE : 0);
        if (bits && !g->repair)
            g->repair_since = p->t;
        g->repair = bits;
    }
    analyze_stop(a, g, p);
    if (rg->v[M_NAME].state == VS_OK && rg->v[M_NAME].u.s) {   /* snprintf's "%s" without printf, every record */
        size_t n = strnlen(rg->v[M_NAME].u.s, sizeof g->name - 1);
        memcpy(g->name, rg->v[M_NAME].u.s, n);
        g->name[n] = '\0';
    }
    double used = p->v[AC_MEM_USED], total = p->v[AC_MEM_TOTAL], util = p->v[AC_UTIL], umax = p->v[AC_UTIL_MAX];
    double frac = total > 0 ? used / total : NAN;
    if (!isnan(frac)) {
        if (frac < 0.01)
            g->mem_first_use_t = 0;   /* nothing held: a later allocation starts afresh */
        else if (g->mem_first_use_t == 0)
            g->mem_first_use_t = p->t;
        if (frac >= 0.01 && g->seen_unused && g->job_start_t == 0) {
            g->job_start_t = p->t;    /* a job started here, not before the log began */
            g->grow_t[0] = g->grow_mem[0] = 0;   /* mem_growth from what it first held, not from nothing */
            g->grow_t[1] = p->t, g->grow_mem[1] = used;
        }
        if (frac < 0.01) {
            g->seen_unused = true;
            g->job_start_t = 0;       /* the GPU was given up: the next use is a new start */
        }
        if (frac * 100 < a->cfg.mem_high)
            g->mem_high_t = 0;
        else if (g->mem_high_t == 0)
            g->mem_high_t = p->t;
    }
    bool idle = p->spin || (!isnan(util) && util < a->cfg.idle_util && (isnan(umax) || umax < a->cfg.idle_util));
    if (!idle || p->lost)
        g->idle_since = 0;
    else if (g->idle_since == 0)
        g->idle_since = p->t;
    analyze_still(a, g, p->t, idle && !p->lost, used, total);
    if (!isnan(used) && (g->grow_t[1] == 0 || p->t - g->grow_t[1] >= ANALYZE_GROW_S)) {
        g->grow_t[0] = g->grow_t[1], g->grow_mem[0] = g->grow_mem[1];   /* mem_growth's references */
        g->grow_t[1] = p->t, g->grow_mem[1] = used;
    }
    if (p->lost && g->lost_t == 0)
        g->lost_t = p->t;
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
}

/* The whole-run accumulators: the rows of analyze_run_figures, and what analyze_summary computes itself. */
static void analyze_run_feed(const struct analyzer *a, struct analyze_gpu *g, const struct analyze_point *p)
{
    struct analyze_run *run = &g->run;
    double dt = run->samples ? p->t - run->last_t : 0;
    if (dt > 60)
        dt = 60;   /* a hole in the data is not throttled time */
    if (!run->samples)
        run->first_t = p->t;
    run->last_t = p->t;
    run->samples++;
    if (!isnan(p->v[AC_UTIL])) {
        run->hist[analyze_bin(p->v[AC_UTIL])]++;
        run->n_util++;
        run->idle_sum += isnan(p->v[AC_IDLE]) ? 0 : p->v[AC_IDLE] * 100.0;
    }
    if (p->reasons > 0 && (p->reasons & (a->thermal_mask | a->power_mask)))
        run->throttled_s += dt;
    if (p->gpm_code >= 0)
        run->gpm_code = p->gpm_code;
    analyze_run_add(run, p);
}

void analyze_summary(const struct analyzer *a, unsigned i, struct analyze_summary *out)
{
    const struct analyze_gpu *g = a->gpus[i];
    const struct analyze_run *run = &g->run;
    *out = (struct analyze_summary){.index = g->index, .host = a->nodes[g->node].name, .name = g->name,
                                    .uuid = g->uuid, .who = g->who, .first_t = run->first_t,
                                    .last_t = run->last_t, .duration_s = run->last_t - run->first_t,
                                    .samples = (double)run->samples, .throttled_s = run->throttled_s,
                                    .gpm_code = run->gpm_code};
    unsigned same = 0, before = 0;
    for (unsigned k = 0; k < a->ngpus; k++)
        if (a->gpus[k]->index == g->index && a->gpus[k]->node == g->node)
            same++, before += k < i;
    out->twin = same > 1 ? before + 1 : 0;
    analyze_run_reduce(run, out);
    out->n_util = (double)run->n_util;
    for (int b = 0; b <= 100; b++)
        out->util_sum += (double)b * (double)run->hist[b];
    out->idle_share = run->n_util ? run->idle_sum / (double)run->n_util : NAN;
    if (out->mem_total > 0) {   /* a peak needs the total it is of */
        out->mem_peak = isnan(out->mem_peak) ? 0 : fmax(out->mem_peak, 0);
        out->mem_peak_share = 100.0 * out->mem_peak / out->mem_total;
    } else {
        out->mem_peak = out->mem_total = out->mem_peak_share = NAN;
    }
    out->throttled_share = out->duration_s > 0 ? 100.0 * run->throttled_s / out->duration_s : 0;
    out->gpm = !isnan(out->sm_active_mean);   /* some record had it */
}

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
        snprintf(g->who, sizeof g->who, "%s", b.data);
    a->who = b;
}

/* The GPU's interval since its previous record (a hole counted up to a minute) goes to the accounts of
 * its jobs and users, with its energy: the counter's rise, or power x time without the counter. */
static void analyze_account_add(struct analyzer *a, struct analyze_gpu *g, const struct record_gpu *rg,
                                const struct analyze_point *p)
{
    analyze_who(a, g, rg);
    double dt = g->acct_t > 0 ? fmin(p->t - g->acct_t, 60) : 0;
    double e = analyze_num(&rg->v[M_ENERGY], M_ENERGY), used = NAN;
    if (!isnan(e) && !isnan(g->acct_energy) && e >= g->acct_energy)
        used = e - g->acct_energy;
    else if (!isnan(p->v[AC_POWER]))
        used = p->v[AC_POWER] * dt;
    g->acct_t = p->t;
    g->acct_energy = e;
    account_add(a->account, rg, p->t, dt, p->v[AC_IDLE], used);
}

/* The oldest point leaves g's window. */
static void analyze_window_pop(const struct analyzer *a, struct analyze_gpu *g)
{
    analyze_hist(g, &g->ring[g->head], -1);
    analyze_slide(&a->plan, g, &g->ring[g->head], g->seq_out++, -1);
    g->head = analyze_wrap(g->head + 1, g->cap), g->n--;
}

/* The point enters g's window; points at or before from leave it (and the oldest, at the ring's cap). */
static void analyze_window_push(const struct analyzer *a, struct analyze_gpu *g, const struct analyze_point *p,
                                double from)
{
    /* the time step from the point before (read only while that one is in the window too: pushes append) */
    double dt = g->n ? p->t - analyze_at(g, g->n - 1)->t : 0;
    if (!g->n || g->seq_in == 0)   /* the first point has no step */
        g->dt_run = 0;
    else if (g->dt_run && !memcmp(&dt, &analyze_at(g, g->n - 1)->dt, sizeof dt))
        g->dt_run++;
    else
        g->dt_run = 1;
    while (g->n && g->ring[g->head].t <= from)
        analyze_window_pop(a, g);
    g->ring = analyze_ring_grow(g->ring, sizeof *g->ring, &g->cap, &g->head, g->n);
    if (g->n == g->cap)
        analyze_window_pop(a, g);
    struct analyze_point *slot = &g->ring[analyze_wrap(g->head + g->n++, g->cap)];
    *slot = *p;
    slot->dt = dt;
    analyze_hist(g, p, +1);
    analyze_slide(&a->plan, g, p, g->seq_in++, +1);
}

void analyze_feed(struct analyzer *a, const struct record *r)
{
    double t = (double)r->time.tv_sec + r->time.tv_nsec / 1e9, from = t - a->cfg.window_s;
    a->nlast = 0;
    if (t < a->now)
        return;
    a->now = t;
    struct analyze_node *node = analyze_node_for(a, r->hostname);
    analyze_node_feed(node, r, t, from);
    if (r->ngpus > a->lastcap) {
        a->lastcap = r->ngpus;
        a->last_gpu = xrealloc(a->last_gpu, a->lastcap * sizeof *a->last_gpu);
    }
    for (unsigned i = 0; i < r->ngpus; i++) {
        struct analyze_gpu *g = analyze_gpu_for(a, (unsigned)(node - a->nodes), &r->gpus[i], &a->last_gpu[i]);
        struct analyze_point p;
        struct stepstat_fig f;
        g->last_steps_ok = stepstat_latest(node->steps, r->gpus[i].index, &f);
        g->last_steps = f.steps;
        analyze_point_from(a, &r->gpus[i], t, &f, &p);
        analyze_account_add(a, g, &r->gpus[i], &p);
        analyze_window_push(a, g, &p, from);
        analyze_history(a, g, &r->gpus[i], &p);
        analyze_run_feed(a, g, &p);
    }
    a->nlast = r->ngpus;
}

bool analyze_latest(const struct analyzer *a, unsigned i, struct analyze_latest *out)
{
    const struct analyze_gpu *g = i < a->ngpus ? a->gpus[i] : NULL;
    if (!g || g->n == 0)
        return false;
    const struct analyze_point *p = analyze_at(g, g->n - 1);
    out->t = p->t;
    for (int c = 0; c < AC_COUNT; c++)
        out->v[c] = p->v[c];
    out->lost = p->lost;
    out->procs = p->procs;
    out->clock_held = p->reasons > 0 && (p->reasons & (int32_t)(a->thermal_mask | a->power_mask));
    out->notebook = g->notebook;
    out->server = g->server;
    out->steps_ok = g->last_steps_ok;
    out->steps = g->last_steps;
    out->progress = g->progress_t == p->t;   /* analyze_still restarted the clock there */
    return true;
}

void analyze_stats(struct analyzer *a, struct analyze_gpu_stats *out)
{
    for (unsigned i = 0; i < a->ngpus; i++)
        analyze_window_stats(a, a->gpus[i], &out[i]);
    for (unsigned h = 0; h < a->nnodes; h++) {   /* a node's host window once, not once per GPU */
        int first = -1;
        for (unsigned i = 0; i < a->ngpus; i++) {
            if (a->gpus[i]->node != h)
                continue;
            if (first < 0)
                analyze_node_stats(&a->nodes[h], &out[first = (int)i]);
            else
                analyze_node_copy(&out[first], &out[i]);
        }
    }
    analyze_window_across(a, out);
}
