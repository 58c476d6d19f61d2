/*
 * top_collect.c: `gpumon top`'s collector thread. Samples every interval
 * on absolute monotonic deadlines (missed ones skipped; a new interval
 * from the keyboard takes effect at once), feeds each record to a diag
 * (the rules of `gpumon run`, so the verdicts on screen are run's), adds
 * the record to per-GPU history rings (one point per max(interval, 1 s):
 * the mean of the samples it covers), reads the GPU processes' /proc
 * figures and per-process SM shares, and publishes the whole snapshot by
 * swapping two buffers under a mutex held for the swap alone. The UI
 * takes it under the same mutex by swapping its own buffer in (three
 * buffers go round, nothing is copied) and never waits for NVML: the
 * sample in progress is visible to it only as a start time
 * (top_collect_busy_ns). A collector stuck in NVML at exit
 * is left behind after a grace time, as serve's is.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ledger.h"
#include "rules.h"
#include "top.h"
#include "util.h"

struct top_collect_acc {
    double sum[TOP_S_COUNT];
    unsigned n[TOP_S_COUNT];
};

struct top_collector {
    /* collector-owned */
    struct sampler *sampler;
    struct diag *diag;
    struct top_proc_cache *procs;
    struct top_snap work;             /* built here, then swapped with pub */
    struct top_recent *hist;          /* per GPU position; changed under mu only (the UI copies from it) */
    float (*point)[TOP_S_COUNT];      /* per GPU position: the point the next publication pushes */
    bool push;                        /* whether it does */
    struct top_collect_acc *acc;
    int *putil_rc;                    /* per GPU position: the latest answer on per-process shares */
    unsigned nhist, acc_samples;
    uint64_t seq;                     /* snapshots built */
    int notify_fd;
    pthread_t thread;
    /* shared */
    pthread_mutex_t mu;               /* guards pub (swapped with work) */
    struct top_snap pub;
    pthread_mutex_t wake_mu;          /* with wake_cv: a stop or a new interval ends the wait */
    pthread_cond_t wake_cv;
    atomic_bool stop, kick, tree;
    atomic_ullong step_ns, busy_since;   /* step_ns: wall time between samples (sampler_step_ns) */
};

void top_snap_init(struct top_snap *s)
{
    memset(s, 0, sizeof *s);
    s->rows = xcalloc(TOP_MAX_ROWS, sizeof *s->rows);
}

void top_snap_free(struct top_snap *s)
{
    free(s->gpus);
    free(s->rows);
    free(s->text);
    memset(s, 0, sizeof *s);
}

bool top_gpu_lost(const struct value *v)
{
    return metric_gpu_lost(v);
}

static double top_collect_num(const struct value *v)
{
    return v->state != VS_OK ? NAN : v->u.f;
}

static double top_collect_int(const struct value *v)
{
    return v->state != VS_OK ? NAN : (double)v->u.i;
}

/* The history values of one GPU at this record, in %. */
static void top_collect_values(const struct record_gpu *g, double out[TOP_S_COUNT])
{
    double total = top_collect_int(&g->v[M_MEM_TOTAL]), used = top_collect_int(&g->v[M_MEM_USED]);
    double limit = top_collect_num(&g->v[M_POWER_ENFORCED]);
    if (!(limit > 0))
        limit = top_collect_num(&g->v[M_POWER_LIMIT]);
    out[TOP_S_UTIL] = top_collect_int(&g->v[M_UTIL_GPU]);
    out[TOP_S_SM] = top_collect_num(&g->v[M_GPM_SM_ACTIVE]);
    out[TOP_S_MEM] = total > 0 ? used / total * 100.0 : NAN;
    out[TOP_S_POWER] = limit > 0 ? top_collect_num(&g->v[M_POWER]) / limit * 100.0 : NAN;
}

/* Adds the record to the rings: a point once it covers max(interval, 1 s) of samples. */
static void top_collect_history(struct top_collector *c, const struct record *rec)
{
    if (c->nhist < rec->ngpus) {
        pthread_mutex_lock(&c->mu);   /* the UI reads the rings under it */
        c->hist = xrealloc(c->hist, rec->ngpus * sizeof *c->hist);
        memset(c->hist + c->nhist, 0, (rec->ngpus - c->nhist) * sizeof *c->hist);
        pthread_mutex_unlock(&c->mu);
        c->point = xrealloc(c->point, rec->ngpus * sizeof *c->point);
        c->acc = xrealloc(c->acc, rec->ngpus * sizeof *c->acc);
        c->putil_rc = xrealloc(c->putil_rc, rec->ngpus * sizeof *c->putil_rc);
        memset(c->acc + c->nhist, 0, (rec->ngpus - c->nhist) * sizeof *c->acc);
        for (unsigned g = c->nhist; g < rec->ngpus; g++)
            c->putil_rc[g] = -1;
        c->nhist = rec->ngpus;
    }
    double step_ms = (double)atomic_load(&c->step_ns) / 1e6;
    unsigned per = step_ms >= 1000 ? 1 : (unsigned)top_round_away(1000.0 / step_ms);
    bool push = ++c->acc_samples >= per;
    for (unsigned g = 0; g < rec->ngpus; g++) {
        double v[TOP_S_COUNT];
        top_collect_values(&rec->gpus[g], v);
        struct top_collect_acc *a = &c->acc[g];
        for (int s = 0; s < TOP_S_COUNT; s++)
            if (isfinite(v[s]))
                a->sum[s] += v[s], a->n[s]++;
        if (!push)
            continue;
        for (int s = 0; s < TOP_S_COUNT; s++)
            c->point[g][s] = a->n[s] ? (float)(a->sum[s] / a->n[s]) : NAN;
        memset(a, 0, sizeof *a);
    }
    c->push = push;
    if (push)
        c->acc_samples = 0;
    c->work.hist_step_s = step_ms >= 1000 ? step_ms / 1000 : per * step_ms / 1000;
}

/* Appends s (NUL-terminated) to the snapshot's text; returns its offset. */
static unsigned top_collect_text(struct top_snap *s, const char *t)
{
    size_t n = strlen(t) + 1;
    if (s->ntext + n > s->text_cap) {
        s->text_cap = (s->ntext + n) * 2;
        s->text = xrealloc(s->text, s->text_cap);
    }
    memcpy(s->text + s->ntext, t, n);
    s->ntext += n;
    return (unsigned)(s->ntext - n);
}

/* The active verdicts of the analyzer's i-th GPU, most severe first. */
static void top_collect_verdicts(const struct diag *d, unsigned i, struct top_snap *s, struct top_gpu *out)
{
    out->nverdicts = 0;
    for (int sev = SEV_CRITICAL; sev >= SEV_OK; sev--)
        for (int r = 0; r < rule_count && out->nverdicts < TOP_MAX_VERDICTS; r++) {
            const struct diag_verdict *v = diag_verdict(d, i, r);
            if (!v->active || (int)rule_table[r].severity != sev)
                continue;
            struct top_verdict *tv = &out->verdicts[out->nverdicts++];
            tv->rule = r;
            tv->held_s = v->active_s;
            tv->evidence = top_collect_text(s, v->evidence);
        }
    const struct analyze_gpu_stats *st = diag_stats(d, i);
    out->have_stats = st != NULL;
    if (st)
        out->stats = *st;
}

static bool top_collect_has_pid(const struct top_snap *s, int pid)
{
    for (unsigned i = 0; i < s->nrows; i++)
        if (s->rows[i].p.pid == pid)
            return true;
    return false;
}

/* One row per process and GPU; in tree mode also the processes' ancestors (gpu -1). */
static void top_collect_rows(struct top_collector *c, const struct record *rec, uint64_t now)
{
    struct top_snap *s = &c->work;
    unsigned pids[RECORD_MAX_PROCS * 4], sms[RECORD_MAX_PROCS * 4];
    s->nrows = 0;
    s->putil_any = false;
    for (unsigned g = 0; g < rec->ngpus; g++) {
        const struct record_gpu *rg = &rec->gpus[g];
        unsigned n = 0;
        int rc = top_gpu_lost(rg->v) ? 15 : rg->nprocs == 0 ? -1
                                     : sampler_proc_util(c->sampler, g, pids, sms, RECORD_MAX_PROCS * 4, &n);
        if (rc != -1)
            c->putil_rc[g] = rc;   /* without processes the last answer stands */
        s->gpus[g].putil_rc = c->putil_rc[g];
        s->putil_any |= c->putil_rc[g] == 0;
        for (unsigned k = 0; k < rg->nprocs && s->nrows < TOP_MAX_ROWS; k++) {
            struct top_row *r = &s->rows[s->nrows++];
            memset(r, 0, sizeof *r);
            r->gpu = (int)rg->index;
            r->gpu_mib = rg->procs[k].used_mib;
            snprintf(r->nvml_name, sizeof r->nvml_name, "%s", rg->procs[k].name);
            r->sm = s->gpus[g].putil_rc == 0 ? 0 : -1;
            for (unsigned j = 0; rc == 0 && j < n; j++)
                if (pids[j] == rg->procs[k].pid)
                    r->sm = (int)sms[j];
            r->on_host = top_proc_read(c->procs, (int)rg->procs[k].pid, now, &r->p) == 0;
            if (!r->on_host) {
                r->p.pid = (int)rg->procs[k].pid;
                r->p.cpu = NAN;
                r->p.rss_kib = -1;
                r->p.uid = (unsigned)-1;
                snprintf(r->p.user, sizeof r->p.user, "?");
                snprintf(r->p.cmd, sizeof r->p.cmd, "%s", rg->procs[k].name);
            }
        }
    }
    unsigned ngpu_rows = s->nrows;
    for (unsigned i = 0; atomic_load(&c->tree) && i < ngpu_rows; i++) {
        int pid = s->rows[i].on_host ? s->rows[i].p.ppid : 0;
        for (int depth = 0; pid > 1 && depth < 64 && s->nrows < TOP_MAX_ROWS && !top_collect_has_pid(s, pid); depth++) {
            struct top_row *r = &s->rows[s->nrows];
            memset(r, 0, sizeof *r);
            if (top_proc_read(c->procs, pid, now, &r->p) != 0)
                break;
            r->on_host = true;
            r->gpu = -1;
            r->gpu_mib = -1;
            r->sm = -1;
            s->nrows++;
            pid = r->p.ppid;
        }
    }
    top_proc_sweep(c->procs);
}

static void top_collect_build(struct top_collector *c, const struct record *rec, uint64_t t0)
{
    struct top_snap *s = &c->work;
    s->mono_ns = t0;
    s->time = rec->time;
    snprintf(s->hostname, sizeof s->hostname, "%s", rec->hostname ? rec->hostname : "");
    memcpy(s->host, rec->host, sizeof s->host);
    if (s->gcap < rec->ngpus) {
        s->gpus = xrealloc(s->gpus, rec->ngpus * sizeof *s->gpus);
        memset(s->gpus + s->gcap, 0, (rec->ngpus - s->gcap) * sizeof *s->gpus);
        s->gcap = rec->ngpus;
    }
    s->ngpus = rec->ngpus;
    s->ntext = 0;
    top_collect_history(c, rec);
    const struct analyzer *an = diag_analyzer(c->diag);
    for (unsigned g = 0; g < rec->ngpus; g++) {
        struct top_gpu *tg = &s->gpus[g];
        tg->rec.index = rec->gpus[g].index;   /* what the screens show: not the process list, which is the rows */
        memcpy(tg->rec.v, rec->gpus[g].v, sizeof tg->rec.v);
        tg->rec.nxids = rec->gpus[g].nxids;
        memcpy(tg->rec.xids, rec->gpus[g].xids, tg->rec.nxids * sizeof tg->rec.xids[0]);
        tg->hist = NULL;
        tg->nverdicts = 0;
        tg->have_stats = false;
        tg->cause = -1;
        for (unsigned i = 0; i < analyze_ngpus(an); i++)
            if (analyze_gpu_index(an, i) == rec->gpus[g].index) {   /* the latest GPU of the index wins */
                top_collect_verdicts(c->diag, i, s, tg);
                if (i < ledger_ngpus(diag_ledger(c->diag)))
                    tg->cause = (int)ledger_recent_cause(diag_ledger(c->diag), i);
            }
    }
    top_collect_rows(c, rec, t0);
}

/* Sleeps until deadline (monotonic ns), a stop or a new interval. */
static void top_collect_wait(struct top_collector *c, uint64_t deadline)
{
    struct timespec until = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
    pthread_mutex_lock(&c->wake_mu);
    while (!atomic_load(&c->stop) && !atomic_load(&c->kick) &&
           pthread_cond_timedwait(&c->wake_cv, &c->wake_mu, &until) == 0)
        ;
    pthread_mutex_unlock(&c->wake_mu);
}

static void *top_collect_main(void *arg)
{
    struct top_collector *c = arg;
    pthread_setname_np(pthread_self(), "top-collect");   /* for ps and top -H, and the benchmark */
    struct record rec;
    memset(&rec, 0, sizeof rec);
    uint64_t next = util_mono_ns();
    while (!atomic_load(&c->stop)) {
        uint64_t t0 = util_mono_ns();
        atomic_store(&c->busy_since, t0);
        sampler_sample(c->sampler, &rec);
        atomic_store(&c->busy_since, 0);
        diag_feed(c->diag, &rec);
        top_collect_build(c, &rec, t0);
        pthread_mutex_lock(&c->mu);
        for (unsigned g = 0; c->push && g < c->nhist && g < rec.ngpus; g++) {
            struct top_recent *h = &c->hist[g];
            for (int s = 0; s < TOP_S_COUNT; s++)
                h->v[s][h->n % TOP_RECENT] = c->point[g][s];
            h->n++;
        }
        c->work.gen = ++c->seq;
        struct top_snap older = c->pub;
        c->pub = c->work;
        c->work = older;   /* rebuilt whole by the next sample */
        pthread_mutex_unlock(&c->mu);
        uint64_t one = 1;
        if (write(c->notify_fd, &one, sizeof one) < 0 && errno != EAGAIN)
            break;   /* the UI is gone */
        util_next_deadline(&next, atomic_load(&c->step_ns));
        for (;;) {
            top_collect_wait(c, next);
            if (!atomic_exchange(&c->kick, false))
                break;
            next = t0;   /* a new interval: the next sample is one new interval after this one */
            util_next_deadline(&next, atomic_load(&c->step_ns));
        }
    }
    return NULL;
}

struct top_collector *top_collect_start(struct sampler *s, const struct rule_config *cfg, double interval_ms,
                                        int notify_fd)
{
    struct top_collector *c = xcalloc(1, sizeof *c);
    c->sampler = s;
    c->diag = diag_new(cfg, NULL, NULL);
    c->procs = top_proc_new("/proc");
    c->notify_fd = notify_fd;
    top_snap_init(&c->work);
    top_snap_init(&c->pub);
    atomic_init(&c->step_ns, sampler_step_ns(s, interval_ms));
    pthread_mutex_init(&c->mu, NULL);
    pthread_mutex_init(&c->wake_mu, NULL);
    util_cond_init_monotonic(&c->wake_cv);
    if (pthread_create(&c->thread, NULL, top_collect_main, c) != 0) {
        atomic_store(&c->stop, true);
        top_collect_stop(c, 0);
        return NULL;
    }
    return c;
}

void top_collect_set_interval(struct top_collector *c, double interval_ms)
{
    pthread_mutex_lock(&c->wake_mu);
    atomic_store(&c->step_ns, sampler_step_ns(c->sampler, interval_ms));
    atomic_store(&c->kick, true);
    pthread_cond_signal(&c->wake_cv);
    pthread_mutex_unlock(&c->wake_mu);
}

double top_collect_interval(const struct top_collector *c)
{
    return (double)atomic_load(&c->step_ns) / 1e6;
}

void top_collect_set_tree(struct top_collector *c, bool tree)
{
    atomic_store(&c->tree, tree);
}

void top_hist_catch_up(struct top_hist *to, const struct top_recent *from)
{
    if (from->n < to->n)   /* never, as the collector counts: start over */
        to->n = 0;
    unsigned kept = from->n < TOP_RECENT ? 0 : from->n - TOP_RECENT;   /* the oldest point it still has */
    if (kept > to->n)
        to->n = kept - to->n > TOP_HIST ? kept - TOP_HIST : to->n;
    for (; to->n < kept; to->n++)
        for (int s = 0; s < TOP_S_COUNT; s++)
            to->v[s][to->n % TOP_HIST] = NAN;
    for (; to->n < from->n; to->n++)
        for (int s = 0; s < TOP_S_COUNT; s++)
            to->v[s][to->n % TOP_HIST] = from->v[s][to->n % TOP_RECENT];
}

bool top_collect_take(struct top_collector *c, struct top_snap *dst, struct top_hist **hist, unsigned *nhist)
{
    bool newer = false;
    pthread_mutex_lock(&c->mu);
    if (c->pub.gen > dst->gen) {   /* dst's buffers become the collector's, rebuilt whole by a later sample */
        struct top_snap mine = *dst;
        *dst = c->pub;
        c->pub = mine;
        newer = true;
        if (*nhist < c->nhist) {
            *hist = xrealloc(*hist, c->nhist * sizeof **hist);
            memset(*hist + *nhist, 0, (c->nhist - *nhist) * sizeof **hist);
            *nhist = c->nhist;
        }
        for (unsigned g = 0; g < c->nhist; g++)   /* the points added since: one a second, usually */
            top_hist_catch_up(&(*hist)[g], &c->hist[g]);
        for (unsigned g = 0; g < dst->ngpus; g++)
            dst->gpus[g].hist = g < *nhist ? &(*hist)[g] : NULL;
    }
    pthread_mutex_unlock(&c->mu);
    return newer;
}

uint64_t top_collect_busy_ns(const struct top_collector *c)
{
    uint64_t since = atomic_load(&c->busy_since), now = util_mono_ns();
    return since && now > since ? now - since : 0;
}

bool top_collect_stop(struct top_collector *c, double grace_s)
{
    bool started = !atomic_load(&c->stop);
    pthread_mutex_lock(&c->wake_mu);
    atomic_store(&c->stop, true);
    pthread_cond_signal(&c->wake_cv);
    pthread_mutex_unlock(&c->wake_mu);
    if (started) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)(grace_s * 1e9);
        until.tv_sec += (time_t)(ns / 1000000000ull);
        until.tv_nsec = (long)(ns % 1000000000ull);
        if (pthread_timedjoin_np(c->thread, NULL, &until) != 0)
            return false;
    }
    diag_free(c->diag);
    top_proc_free(c->procs);
    top_snap_free(&c->work);
    top_snap_free(&c->pub);
    free(c->hist);
    free(c->point);
    free(c->acc);
    free(c->putil_rc);
    pthread_mutex_destroy(&c->mu);
    pthread_mutex_destroy(&c->wake_mu);
    pthread_cond_destroy(&c->wake_cv);
    free(c);
    return true;
}
