/*
 * sampler.c: GPU enumeration and selection, cadences, and the slow-reader
 * thread. Fast metrics are read on the caller's thread at every sample;
 * once-only metrics are read at open and copied; slow metrics are read by
 * a thread of their own and the latest reading is copied, so one 20 ms PCIe
 * call per GPU never delays a 10 ms sampling interval (only for GPUs whose
 * driver lacks the PCIe byte counters: sampler_pcie.c reads those on the
 * caller's thread, and no slow thread runs when every GPU has them). A GPU that reports
 * GPU_IS_LOST is marked lost: its identity stays, every other value reads
 * "lost", and the other GPUs go on being sampled.
 */
#include "sampler.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sampler_int.h"
#include "util.h"

struct sampler {
    unsigned ndev;              /* s->gpus holds ndev (xcalloc_pages) */
    unsigned ngpus, nrgpus;     /* selected; s->rgpus holds nrgpus */
    struct sampler_gpu *gpus;
    struct record_gpu *rgpus;
    bool want[METRIC_COUNT];
    /* the GPU rows each sample reads (wanted, all but the state, which is read last), in table order,
     * each with how (enum sampler_how), worked out at open */
    int nrows;
    uint8_t row_id[METRIC_COUNT], row_how[METRIC_COUNT];   /* ids fit: RECORD_MAX_METRICS < 256 */
    bool want_slow, want_host, want_gpm, processes;
    struct host_sample host;
    uint64_t host_ns;           /* when /proc was last read */
    struct value host_v[RECORD_MAX_METRICS];   /* host metrics from that read */
    uint64_t tick;
    char hostname[256];
    pthread_t slow_thread;
    bool slow_running;
    struct sampler_events *events;
    bool stop;
    pthread_mutex_t stop_mu;
    pthread_cond_t stop_cv;
    double slow_ms;             /* wall time between slow readings */
    double speed;               /* record seconds per wall second (nvml_clock_speed) */
    const char *job_dir;        /* HPC job mapping directory; NULL none */
    uint64_t jobs_ns;           /* when it was last read (every 0.5 s at most) */
};

/* Each GPU's job ids from the mapping directory (file named by the GPU index), read at most every
 * 0.5 s (faster records repeat them); a problem with a file is said once, when it first shows. */
UTIL_HOT static void sampler_jobs(struct sampler *s, uint64_t now)
{
    if (!s->job_dir || (s->jobs_ns && now - s->jobs_ns < 500000000ull))
        return;
    s->jobs_ns = now;
    for (unsigned i = 0; i < s->ngpus; i++) {
        struct sampler_gpu *g = &s->gpus[i];
        struct record_gpu *rg = &s->rgpus[i];
        char name[16], warn[512];
        snprintf(name, sizeof name, "%u", rg->index);
        rg->njobs = host_jobs_read(s->job_dir, name, rg->jobs, RECORD_MAX_JOBS, warn, sizeof warn);
        if (warn[0] && strcmp(warn, g->jobs_warned))
            util_warn("job mapping: %s", warn);
        snprintf(g->jobs_warned, sizeof g->jobs_warned, "%s", warn);
    }
}

static sampler_reader *const sampler_readers[METRIC_COUNT] = {
#define SAMPLER_READER(id, reader, ...) [id] = sampler_read_##reader,
    METRIC_TABLE(SAMPLER_READER)
#undef SAMPLER_READER
};

/* Reads row id with the context of c. */
UTIL_HOT static void sampler_read(const struct read_ctx *c, enum metric_id id, struct value *v)
{
    struct read_ctx row = *c;
    row.id = id;
    sampler_readers[id](&row, v);
}

void sampler_read_metric(struct sampler_gpu *g, uint64_t tick, enum metric_id id, struct value *out)
{
    struct read_ctx c = {g, NULL, tick, id};
    sampler_readers[id](&c, out);
}

static void sampler_read_slow(struct sampler *s, struct sampler_gpu *g)
{
    struct read_ctx c = {g, &s->host, 0, 0};
    for (int id = 0; id < METRIC_COUNT; id++) {
        if (!s->want[id] || !sampler_pcie_slow(g, (enum metric_id)id) || atomic_load(&g->lost) || !g->h)
            continue;
        struct value v = {0};
        sampler_read(&c, (enum metric_id)id, &v);
        pthread_mutex_lock(&g->slow_mu);
        g->slow_v[id] = v;
        pthread_mutex_unlock(&g->slow_mu);
    }
}

static void *sampler_slow_main(void *arg)
{
    struct sampler *s = arg;
    pthread_setname_np(pthread_self(), "gpumon-pcie");   /* for ps, top -H and bench/top_cost.py */
    pthread_mutex_lock(&s->stop_mu);
    while (!s->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        long long ns = (long long)(s->slow_ms * 1e6);
        until.tv_sec += ns / 1000000000LL;
        until.tv_nsec += ns % 1000000000LL;
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        while (!s->stop && pthread_cond_timedwait(&s->stop_cv, &s->stop_mu, &until) == 0)
            ;
        if (s->stop)
            break;
        pthread_mutex_unlock(&s->stop_mu);
        for (unsigned i = 0; i < s->ngpus; i++)
            sampler_read_slow(s, &s->gpus[i]);
        pthread_mutex_lock(&s->stop_mu);
    }
    pthread_mutex_unlock(&s->stop_mu);
    return NULL;
}

/* How a sample reads a GPU row (sampler_plan). */
enum sampler_how {
    SH_ALWAYS,      /* by its reader, with or without a handle: index, driver version, XIDs (known after a loss) */
    SH_STATIC,      /* read at open: copied (identity stays known after the GPU is lost) */
    SH_SLOW,        /* by the slow-reader thread where the GPU has no PCIe counters, else as SH_READ */
    SH_READ,        /* by its reader, while the GPU has a handle and is not lost */
};

/* The rows every sample reads, in table order (the readers' memos and a loss found midway rely on it). */
static void sampler_plan(struct sampler *s)
{
    s->nrows = 0;
    for (int id = 0; id < METRIC_COUNT; id++) {
        const struct metric *m = &metric_table[id];
        if (!s->want[id] || m->scope != MS_GPU || id == M_STATE)
            continue;   /* the state is read last, after the readers may have found the GPU lost */
        s->row_id[s->nrows] = (uint8_t)id;
        s->row_how[s->nrows++] = id == M_INDEX || id == M_DRIVER_VERSION || id == M_XID_COUNT || id == M_XID_LAST
                                     ? SH_ALWAYS
                                 : m->cadence == MC_STATIC ? SH_STATIC
                                 : m->cadence == MC_SLOW   ? SH_SLOW : SH_READ;
    }
}

/* Does token name GPU g? Index, UUID (case-insensitive) or PCI bus id in
 * either domain width. */
static bool sampler_matches(const struct sampler_gpu *g, const char *tok)
{
    return util_gpu_named(tok, g->index, g->uuid_rc == NVML_SUCCESS ? g->uuid : NULL,
                          g->pci_rc == NVML_SUCCESS ? g->pci : NULL);
}

/* Keeps the GPUs that list names at the front of s->gpus (s->ngpus of them). */
static int sampler_select(struct sampler *s, const char *list, char *err, size_t errlen)
{
    struct sampler_gpu *all = s->gpus;
    bool *take = xcalloc(s->ndev ? s->ndev : 1, sizeof *take);
    char *copy = xstrdup(list), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        for (size_t n = strlen(tok); n && isspace((unsigned char)tok[n - 1]); n--)
            tok[n - 1] = '\0';
        bool found = false;
        for (unsigned i = 0; i < s->ndev; i++)
            if (sampler_matches(&all[i], tok))
                take[i] = found = true;
        if (!found) {
            snprintf(err, errlen, "--gpus: no GPU matches \"%.200s\" (this node has %u GPU%s, indices 0-%u; give "
                     "indices, UUIDs or PCI bus ids)", tok, s->ndev, s->ndev == 1 ? "" : "s",
                     s->ndev ? s->ndev - 1 : 0);
            rc = -1;
            break;
        }
    }
    free(copy);
    s->ngpus = 0;
    for (unsigned i = 0; rc == 0 && i < s->ndev; i++)
        if (take[i])
            all[s->ngpus++] = all[i];
    free(take);
    return rc;
}

int sampler_open(struct sampler **out, const struct sampler_opts *o, char *err, size_t errlen)
{
    struct sampler *s = xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->stop_mu, NULL);
    util_cond_init_monotonic(&s->stop_cv);
    s->speed = nvml_clock_speed();
    s->slow_ms = (o->slow_interval_ms > 0 ? o->slow_interval_ms : 1000) / s->speed;
    s->processes = o->processes;
    s->job_dir = o->job_dir;
    for (int i = 0; i < (o->ids ? o->nids : METRIC_COUNT); i++)
        s->want[o->ids ? o->ids[i] : (enum metric_id)i] = true;
    bool want_slow = false;
    for (int id = 0; id < METRIC_COUNT; id++) {
        want_slow |= s->want[id] && metric_table[id].cadence == MC_SLOW;
        s->want_host |= s->want[id] && metric_table[id].scope == MS_HOST;
    }
    sampler_plan(s);
#define SAMPLER_WANT_GPM(P, id, ...) s->want_gpm |= s->want[M_GPM_##id];
    GPM_TABLE(SAMPLER_WANT_GPM, _)
#undef SAMPLER_WANT_GPM
    if (gethostname(s->hostname, sizeof s->hostname) != 0)
        snprintf(s->hostname, sizeof s->hostname, "localhost");
    s->hostname[sizeof s->hostname - 1] = '\0';
    host_init(&s->host);
    if (o->job_pid > 0)
        host_job_watch(&s->host, o->job_pid);

    if (!nvml.get_count || nvml.get_count(&s->ndev) != NVML_SUCCESS)
        s->ndev = 0;   /* no NVML (gpumon run without a driver): host figures only */
    struct sampler_gpu *all = xcalloc_pages(s->ndev, sizeof *all);
    for (unsigned i = 0; i < s->ndev; i++) {
        struct sampler_gpu *g = &all[i];
        g->index = i;
        g->handle_rc = nvml.get_handle(i, &g->h);
        if (g->handle_rc != NVML_SUCCESS) {
            g->h = NULL;
            g->name_rc = g->uuid_rc = g->serial_rc = g->pci_rc = g->handle_rc;
            atomic_store(&g->lost, nvml_code_is_lost(g->handle_rc));
            atomic_store(&g->lost_code, g->handle_rc);
            continue;
        }
        sampler_read_identity(g);
    }
    s->gpus = all;   /* the selection keeps its GPUs at the front, in index order */
    s->ngpus = s->ndev;
    if (o->gpus && sampler_select(s, o->gpus, err, errlen) != 0) {
        s->ngpus = 0;   /* none was set up: sampler_close has nothing of theirs to undo */
        sampler_close(s);
        return -1;
    }
    s->rgpus = xcalloc_pages(s->ngpus, sizeof *s->rgpus);
    s->nrgpus = s->ngpus;
    for (unsigned i = 0; i < s->ngpus; i++) {
        struct sampler_gpu *g = &s->gpus[i];
        pthread_mutex_init(&g->slow_mu, NULL);
        if (!g->h)
            continue;
        struct read_ctx c = {g, &s->host, 0, 0};
        for (int id = 0; id < METRIC_COUNT; id++)
            if (s->want[id] && metric_table[id].cadence == MC_STATIC)
                sampler_read(&c, (enum metric_id)id, &g->static_v[id]);
        if (s->want[M_UTIL_MIN] || s->want[M_UTIL_MAX] || s->want[M_UTIL_IDLE] || s->want[M_UTIL_SAMPLES])
            sampler_prime_samples(g);
        if (s->want_gpm)
            sampler_gpm_open(g);
        /* the slow-reader thread runs only for GPUs without the PCIe counters */
        if (want_slow && !sampler_pcie_open(g)) {   /* want_slow: PCIe throughput is wanted */
            s->want_slow = true;
            sampler_read_slow(s, g);
        }
    }
    if (s->want[M_XID_COUNT] || s->want[M_XID_LAST])
        s->events = sampler_events_start(s->gpus, s->ngpus);
    if (s->want_slow && s->ngpus > 0 && pthread_create(&s->slow_thread, NULL, sampler_slow_main, s) == 0)
        s->slow_running = true;
    *out = s;
    return 0;
}

uint64_t sampler_step_ns(const struct sampler *s, double interval_ms)
{
    double ns = interval_ms * 1e6 / s->speed;
    return ns >= 1 ? (uint64_t)ns : 1;
}

unsigned sampler_device_count(const struct sampler *s)
{
    return s->ndev;
}

int sampler_handle_rc(const struct sampler *s, unsigned i)
{
    return i < s->ngpus ? s->gpus[i].handle_rc : NVML_ERROR_INVALID_ARGUMENT;
}

UTIL_HOT static void sampler_fill_gpu(struct sampler *s, struct sampler_gpu *g, struct record_gpu *rg)
{
    struct read_ctx c = {g, &s->host, s->tick, 0};
    rg->index = g->index;
    for (int k = 0; k < s->nrows; k++) {
        enum metric_id id = (enum metric_id)s->row_id[k];
        struct value *v = &rg->v[id];
        enum sampler_how how = (enum sampler_how)s->row_how[k];
        if (how == SH_STATIC && g->h) {
            *v = g->static_v[id];
        } else if (how != SH_ALWAYS && (!g->h || atomic_load(&g->lost))) {
            int code = g->h ? atomic_load(&g->lost_code) : g->handle_rc;
            *v = (struct value){.state = nvml_code_is_lost(code) ? VS_LOST : VS_ERROR, .code = code};
        } else if (how == SH_SLOW && sampler_pcie_slow(g, id)) {
            pthread_mutex_lock(&g->slow_mu);
            *v = g->slow_v[id];
            pthread_mutex_unlock(&g->slow_mu);
        } else {
            c.id = id;
            sampler_readers[id](&c, v);
        }
    }
    if (s->want[M_STATE])
        sampler_read(&c, M_STATE, &rg->v[M_STATE]);
    rg->nxids = 0;
    if (s->events)
        sampler_events_copy(g, rg);
    rg->nprocs = rg->procs_omitted = 0;
    if (s->processes && g->h && !atomic_load(&g->lost))
        sampler_read_processes(&c, rg);
}

UTIL_HOT void sampler_sample(struct sampler *s, struct record *rec)
{
    s->tick++;
    nvml_clock_now(&rec->time);
    rec->hostname = s->hostname;
    /* Host CPU shares need jiffies to accumulate (100 per second): /proc is
     * read at most every 0.5 s and faster records repeat the latest figures. */
    uint64_t now = util_mono_ns();
    if (s->want_host && (s->host_ns == 0 || now - s->host_ns >= 500000000ull)) {
        s->host_ns = now;
        host_read(&s->host);
        struct read_ctx c = {NULL, &s->host, s->tick, 0};
        for (int id = 0; id < METRIC_COUNT; id++)
            if (s->want[id] && metric_table[id].scope == MS_HOST)
                sampler_read(&c, (enum metric_id)id, &s->host_v[id]);
    }
    /* every record gets the host figures, fresh or repeated, so a caller
     * may start each record from scratch */
    if (s->want_host)
        memcpy(rec->host, s->host_v, sizeof rec->host);
    sampler_events_drain(s->events);
    for (unsigned i = 0; i < s->ngpus; i++)
        sampler_fill_gpu(s, &s->gpus[i], &s->rgpus[i]);
    sampler_jobs(s, now);
    rec->ngpus = s->ngpus;
    rec->gpus = s->rgpus;
}

void sampler_attrs(struct sampler *s, unsigned i, const bool want[GA_COUNT], struct gpu_attrs *out)
{
    memset(out, 0, sizeof *out);
    if (i >= s->ngpus)
        return;
    struct sampler_gpu *g = &s->gpus[i];
    if (g->h && !atomic_load(&g->lost)) {
        sampler_attr_read(g, s->tick, want, out);
        return;
    }
    int code = g->h ? atomic_load(&g->lost_code) : g->handle_rc;
    for (int a = 0; a < GA_COUNT; a++)
        out->v[a] = (struct value){.state = nvml_code_is_lost(code) ? VS_LOST : VS_ERROR, .code = code};
}

/* The i-th selected GPU when NVML can be asked about it (a handle, not lost), else NULL. */
static struct sampler_gpu *sampler_live(struct sampler *s, unsigned i)
{
    struct sampler_gpu *g = i < s->ngpus ? &s->gpus[i] : NULL;
    return g && g->h && !atomic_load(&g->lost) ? g : NULL;
}

unsigned sampler_migs(struct sampler *s, unsigned i, bool full, const struct sampler_mig **out)
{
    struct sampler_gpu *g = sampler_live(s, i);
    *out = NULL;
    return g ? sampler_gpu_migs(g, full, out) : 0;
}

unsigned sampler_processes(struct sampler *s, unsigned i, struct sampler_proc **out)
{
    struct sampler_gpu *g = sampler_live(s, i);
    *out = NULL;
    return g ? sampler_gpu_processes(g, out) : 0;
}

int sampler_proc_util(struct sampler *s, unsigned i, unsigned *pid, unsigned *sm, unsigned max, unsigned *n)
{
    struct sampler_gpu *g = i < s->ngpus ? &s->gpus[i] : NULL;
    *n = 0;
    if (!g)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!g->h || atomic_load(&g->lost))
        return g->h ? atomic_load(&g->lost_code) : g->handle_rc;
    return sampler_gpu_proc_util(g, pid, sm, max, n);
}

int sampler_cuda_version(const struct sampler *s)
{
    (void)s;
    return nvml.cuda_version;
}

void sampler_close(struct sampler *s)
{
    if (!s)
        return;
    sampler_events_stop(s->events);
    if (s->slow_running) {
        pthread_mutex_lock(&s->stop_mu);
        s->stop = true;
        pthread_cond_signal(&s->stop_cv);
        pthread_mutex_unlock(&s->stop_mu);
        pthread_join(s->slow_thread, NULL);
    }
    for (unsigned i = 0; i < s->ngpus; i++) {
        if (s->want_gpm && s->gpus[i].h)
            sampler_gpm_close(&s->gpus[i]);
        sampler_gpu_free(&s->gpus[i]);
        pthread_mutex_destroy(&s->gpus[i].slow_mu);
    }
    pthread_mutex_destroy(&s->stop_mu);
    pthread_cond_destroy(&s->stop_cv);
    host_close(&s->host);
    xfree_pages(s->gpus, s->ndev, sizeof *s->gpus);
    xfree_pages(s->rgpus, s->nrgpus, sizeof *s->rgpus);
    free(s);
}
