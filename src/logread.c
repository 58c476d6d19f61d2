/*
 * logread.c: JSON Lines back into records (see logread.h), parsed with
 * cJSON. Parsing is most of diagnose's cost, so each line's tree is built
 * in an arena (cJSON's allocation hooks): one bump allocation per node,
 * nothing freed node by node, and the arena reset for the next line; a
 * line too big for the arena falls back to malloc and the arena grows for
 * the next one. Metric keys are looked up through a cache by position:
 * every line of a log lists its keys in the same order, so the table is
 * searched once per key and later lines cost one string comparison each.
 * The tree is kept until the next line, because string values in the
 * record point into it. A reader thread parses up to 15 lines ahead into a
 * ring of slots, each with its own tree, while the caller analyzes; a side
 * that waits is woken with half a ring of work, not line by line. An
 * "errors" entry carries NVML's numeric code; logs of gpumon 0.1 carried
 * the text only, which maps back through nvml_codes.h's table.
 */
#include "logread.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lazylib.h"
#include "logread_int.h"
#include "logread_simd.h"
#include "logsrc.h"
#include "metrics.h"
#include "nvml_codes.h"
#include "util.h"

#define LOGREAD_KEY_CACHE 128
#define LOGREAD_MAX_INDEX 65535         /* NVML indices are small; a larger one is not a GPU */
#define LOGREAD_ARENA_MIN (1u << 20)
#define LOGREAD_SLOTS 16
_Static_assert(LOGSRC_PAD >= LOGREAD_SIMD_PAD, "the lines of logsrc carry simdjson's padding");

struct logread_key {
    char key[64];
    int id;
};

struct logread_arena {
    char *buf;
    size_t used, cap;
    size_t overflow;                /* bytes that did not fit, this line */
};

/* One parsed line: its tree (cJSON) or its string buffer (simdjson) owns the strings its record points
 * to. */
struct logread_tree {
    cJSON *root;
    struct logread_arena arena;
    struct record_gpu *gpus;
    unsigned gcap;
    struct record_rank ranks[RECORD_MAX_RANKS];
    char *strs;                     /* the simdjson path's strings */
    size_t scap;
};

/* A line handed from the reader thread to the caller. */
struct logread_slot {
    struct logread_tree tree;
    struct record rec;
    int status;                     /* 1 a record, 0 the end (err: a warning, if any), -1 an error (err) */
    char err[1024];
};

struct logread {
    struct logsrc *src;
    char *path;
    const struct logread_simd_ops *simd_ops;   /* the simdjson reader, NULL: cJSON only */
    struct logread_simd *simd;      /* its parser, used by the one thread that parses */
    unsigned long long lineno;
    struct logread_key host_keys[LOGREAD_KEY_CACHE], gpu_keys[LOGREAD_KEY_CACHE];   /* reader's */
    struct logread_tree direct;     /* logread_parse()'s */
    char warning[512];              /* reader's: the torn last line */
    struct timespec last;           /* reader's: the latest record's time */
    unsigned long long skipped, skip_line;   /* records skipped: their time went back; the first one's line */
    struct timespec skip_t, skip_after;      /* its time, and the latest before it */
    char skip_text[512];
    bool warned;
    char end_warning[1024];         /* caller's: that warning, once the caller reached the end */
    bool end_warned, end_seen;

    /* The reader thread fills slots ahead of the caller: produced and
     * consumed count lines; the caller holds slot (consumed - 1) % N. */
    struct logread_slot slots[LOGREAD_SLOTS];
    pthread_t thread;
    bool started, stop;
    bool reader_waits, caller_waits;    /* signal only a thread that sleeps */
    unsigned long long produced, consumed;
    pthread_mutex_t mu;
    pthread_cond_t more, room;
};

static const struct logread_simd_ops *logread_simd_ops_used;

void logread_simd_use(const struct logread_simd_ops *ops)
{
    logread_simd_ops_used = ops;
}

const struct logread_simd_ops *logread_simd_current(void)
{
    return logread_simd_ops_used;
}

/* The arena of the parse running on this thread; NULL: plain malloc. */
static _Thread_local struct logread_arena *logread_cur;
static pthread_once_t logread_hooks_once = PTHREAD_ONCE_INIT;

static void *logread_alloc(size_t n)
{
    struct logread_arena *a = logread_cur;
    n = (n + 15) & ~(size_t)15;
    if (a && a->cap - a->used >= n) {
        void *p = a->buf + a->used;
        a->used += n;
        return p;
    }
    if (a)
        a->overflow += n;
    return malloc(n);
}

static void logread_free(void *p)
{
    struct logread_arena *a = logread_cur;
    if (a && a->buf && (char *)p >= a->buf && (char *)p < a->buf + a->cap)
        return;   /* released with the whole arena */
    free(p);
}

static void logread_hooks(void)
{
    cJSON_Hooks h = {logread_alloc, logread_free};
    lazy_cjson.cJSON_InitHooks(&h);
}

/* Frees a line's tree and readies its arena for the next. */
static void logread_release(struct logread_tree *t)
{
    logread_cur = &t->arena;
    if (t->root)
        lazy_cjson.cJSON_Delete(t->root);   /* frees only the nodes that overflowed to malloc */
    t->root = NULL;
    struct logread_arena *a = &t->arena;
    if (a->overflow) {
        size_t want = a->cap + a->overflow;
        a->cap = want > LOGREAD_ARENA_MIN ? want + want / 2 : LOGREAD_ARENA_MIN;
        free(a->buf);
        a->buf = xmalloc(a->cap);
    }
    a->used = a->overflow = 0;
    logread_cur = NULL;
}

/* The id of the pos-th key of an object: a metric id, or one of the
 * LOGREAD_KEY_* values. */
static int logread_key_id(struct logread_key *cache, size_t pos, const char *key)
{
    struct logread_key *c = pos < LOGREAD_KEY_CACHE ? &cache[pos] : NULL;
    if (c && c->id != LOGREAD_KEY_EMPTY && !strcmp(c->key, key))
        return c->id;
    int id = logread_key(key);
    if (c && strlen(key) < sizeof c->key) {
        snprintf(c->key, sizeof c->key, "%s", key);
        c->id = id;
    }
    return id;
}

/* A cJSON node as logread_scalar takes it. */
static const char *logread_value(int id, const cJSON *j, struct value *v)
{
    enum logread_json t = logread_is(j, cJSON_NULL) ? LJ_NULL : logread_is(j, cJSON_False) ? LJ_FALSE
                          : logread_is(j, cJSON_True) ? LJ_TRUE : logread_is(j, cJSON_Number) ? LJ_NUMBER
                          : logread_is(j, cJSON_String) ? LJ_STRING : LJ_OTHER;
    return logread_scalar(id, t, t == LJ_NUMBER ? j->valuedouble : 0, t == LJ_STRING ? j->valuestring : NULL, v);
}

/* The members of a GPU object that are not metric values. */
struct logread_extra {
    const cJSON *errors, *processes, *xids, *jobs;
};

/* Fills vals (scope scope) from the keys of obj, and notes the extra members. */
static int logread_metrics(struct logread_key *cache, const cJSON *obj, enum metric_scope scope, struct value *vals,
                           struct logread_extra *extra, char *err, size_t errlen)
{
    const cJSON *j;
    size_t pos = 0;
    cJSON_ArrayForEach(j, obj) {
        int id = logread_key_id(cache, pos++, j->string);
        if (id < 0) {
            if (extra && id == LOGREAD_KEY_ERRORS)
                extra->errors = j;
            else if (extra && id == LOGREAD_KEY_PROCESSES)
                extra->processes = j;
            else if (extra && id == LOGREAD_KEY_XIDS)
                extra->xids = j;
            else if (extra && id == LOGREAD_KEY_JOBS)
                extra->jobs = j;
            continue;   /* or a key from a newer gpumon */
        }
        if (metric_table[id].scope != scope || id == M_INDEX)
            continue;
        const char *why = logread_value(id, j, &vals[id]);
        if (why) {
            snprintf(err, errlen, "\"%s\" %s", j->string, why);
            return -1;
        }
    }
    return 0;
}

static int logread_errors_map(const cJSON *errs, struct value *vals, char *err, size_t errlen)
{
    const cJSON *j;
    if (!errs)
        return 0;
    if (!logread_is(errs, cJSON_Object)) {
        snprintf(err, errlen, "\"errors\" is not an object");
        return -1;
    }
    cJSON_ArrayForEach(j, errs) {
        int id = logread_error_metric(j->string);
        if (id < 0)
            continue;
        long long code;
        if (logread_is(j, cJSON_String)) {
            code = logread_error_text(j->valuestring);
        } else if (logread_int(logread_item(j, "code"), &code) != 0 || code < 0 ||
                   code > 0x7fffffff) {
            snprintf(err, errlen, "\"errors\": \"%.64s\" needs an integer \"code\" from 0 to 2147483647",
                     j->string);
            return -1;
        }
        logread_error_apply(vals, id, code);
    }
    return 0;
}

static int logread_procs(const cJSON *arr, struct record_gpu *g, char *err, size_t errlen)
{
    const cJSON *p;
    size_t i = 0;
    g->nprocs = g->procs_omitted = 0;
    if (!arr)
        return 0;
    if (!logread_is(arr, cJSON_Array)) {
        snprintf(err, errlen, "\"processes\" is not an array");
        return -1;
    }
    cJSON_ArrayForEach(p, arr) {
        long long pid, mem;
        if (logread_int(logread_item(p, "pid"), &pid) != 0 || pid < 0) {
            snprintf(err, errlen, "processes[%zu] has no integer \"pid\"", i);
            return -1;
        }
        i++;
        if (g->nprocs == RECORD_MAX_PROCS)
            continue;
        struct record_proc *rp = &g->procs[g->nprocs++];
        rp->pid = (unsigned)pid;
        rp->kinds = 0;   /* a log does not say */
        rp->used_mib = logread_int(logread_item(p, "used_memory"), &mem) == 0 ? mem : -1;
        const char *name = logread_str(logread_item(p, "name"));
        snprintf(rp->name, sizeof rp->name, "%s", name ? name : "");
        const char *user = logread_str(logread_item(p, "user")), *ctr = logread_str(logread_item(p, "container"));
        const char *pod = logread_str(logread_item(p, "pod"));
        snprintf(rp->user, sizeof rp->user, "%s", user ? user : "");
        snprintf(rp->container, sizeof rp->container, "%s", ctr ? ctr : "");
        snprintf(rp->pod, sizeof rp->pod, "%s", pod ? pod : "");
        rp->notebook = logread_is(logread_item(p, "notebook"), cJSON_True);
    }
    return 0;
}

static int logread_xids(const cJSON *arr, struct record_gpu *g, char *err, size_t errlen)
{
    const cJSON *x;
    size_t i = 0;
    g->nxids = 0;
    if (!arr)
        return 0;
    if (!logread_is(arr, cJSON_Array)) {
        snprintf(err, errlen, "\"xids\" is not an array");
        return -1;
    }
    cJSON_ArrayForEach(x, arr) {
        long long code, count;
        const char *last = logread_str(logread_item(x, "last_seen"));
        struct record_xid rx = {0};
        if (logread_int(logread_item(x, "code"), &code) != 0 || code < 0 ||
            (last && logread_parse_time(last, &rx.last) != 0)) {
            snprintf(err, errlen, "xids[%zu] needs an integer \"code\" and an RFC 3339 \"last_seen\"", i);
            return -1;
        }
        i++;
        rx.code = (unsigned)code;
        rx.count = logread_int(logread_item(x, "count"), &count) == 0 && count > 0
                   ? (unsigned long long)count : 1;
        if (g->nxids < RECORD_MAX_XIDS)
            g->xids[g->nxids++] = rx;
    }
    return 0;
}

/* "jobs": a GPU's job ids (a job mapping directory); absent: none. */
static int logread_jobs(const cJSON *arr, struct record_gpu *g, char *err, size_t errlen)
{
    const cJSON *j;
    g->njobs = 0;
    if (!arr)
        return 0;
    if (!logread_is(arr, cJSON_Array)) {
        snprintf(err, errlen, "\"jobs\" is not an array");
        return -1;
    }
    cJSON_ArrayForEach(j, arr) {
        const char *id = logread_str(j);
        if (!id || !id[0] || strlen(id) > 63) {
            snprintf(err, errlen, "\"jobs\" holds job ids: strings of 1 to 63 bytes");
            return -1;
        }
        if (g->njobs < RECORD_MAX_JOBS)
            snprintf(g->jobs[g->njobs++], sizeof g->jobs[0], "%s", id);
    }
    return 0;
}

static int logread_gpu(struct logread *lr, const cJSON *obj, struct record_gpu *g, char *err, size_t errlen)
{
    long long idx;
    memset(g->v, 0, sizeof g->v);
    if (logread_int(logread_item(obj, "index"), &idx) != 0) {
        snprintf(err, errlen, "a GPU object has no integer \"index\"");
        return -1;
    }
    if (idx < 0 || idx > LOGREAD_MAX_INDEX) {
        snprintf(err, errlen, "\"index\" %lld is out of range (0 to %d)", idx, LOGREAD_MAX_INDEX);
        return -1;
    }
    g->index = (unsigned)idx;
    g->v[M_INDEX] = (struct value){.state = VS_OK, .u.i = g->index};
    struct logread_extra extra = {NULL, NULL, NULL, NULL};
    if (logread_metrics(lr->gpu_keys, obj, MS_GPU, g->v, &extra, err, errlen) != 0 ||
        logread_errors_map(extra.errors, g->v, err, errlen) != 0 ||
        logread_procs(extra.processes, g, err, errlen) != 0 ||
        logread_xids(extra.xids, g, err, errlen) != 0 || logread_jobs(extra.jobs, g, err, errlen) != 0)
        return -1;
    return 0;
}

/* The simdjson path (logread_simd.h): 1 with the record, 0 to leave the line to cJSON. line[len] is NUL
 * and LOGREAD_SIMD_PAD bytes after it can be read. */
static int logread_simd_parse(struct logread *lr, struct logread_tree *t, const char *line, size_t len,
                              struct record *rec)
{
    if (!lr->simd)
        return 0;
    if (t->scap < len + 1) {
        t->scap = len + 1 > 4096 ? len + 1 + len / 2 : 4096;
        free(t->strs);
        t->strs = xmalloc(t->scap);
    }
    struct logread_simd_out out = {t->gpus, t->gcap, t->ranks, t->strs};
    int rc = lr->simd_ops->parse(lr->simd, line, len, &out, rec);
    t->gpus = out.gpus;   /* grown or not, it is the tree's */
    t->gcap = out.gcap;
    return rc;
}

static int logread_tree_parse(struct logread *lr, struct logread_tree *t, const char *line, size_t len,
                              struct record *rec, char *err, size_t errlen)
{
    pthread_once(&logread_hooks_once, logread_hooks);
    logread_release(t);
    if (logread_simd_parse(lr, t, line, len, rec) == 1)
        return 0;
    logread_cur = &t->arena;
    const char *end = NULL;
    /* line[len] is NUL: ParseWithOpts, since cJSON 1.7.10 has no length form */
    t->root = lazy_cjson.cJSON_ParseWithOpts(line, &end, false);
    logread_cur = NULL;
    if (!t->root) {
        const char *at = lazy_cjson.cJSON_GetErrorPtr();
        snprintf(err, errlen, "not JSON (at column %zu)", at && at >= line && at <= line + len
                 ? (size_t)(at - line) + 1 : len);
        return -1;
    }
    while (end && end < line + len && (*end == ' ' || *end == '\t'))
        end++;
    if (end && end < line + len) {
        snprintf(err, errlen, "not JSON: text after the record (at column %zu)", (size_t)(end - line) + 1);
        return -1;
    }
    const cJSON *ts = logread_item(t->root, "timestamp");
    const cJSON *gpus = logread_item(t->root, "gpus");
    const cJSON *host = logread_item(t->root, "host");
    if (!logread_is(t->root, cJSON_Object) || !logread_is(ts, cJSON_String) || !logread_is(gpus, cJSON_Array)) {
        snprintf(err, errlen, "not a gpumon record (an object with \"timestamp\" and \"gpus\")");
        return -1;
    }
    memset(rec, 0, sizeof *rec);
    if (logread_parse_time(ts->valuestring, &rec->time) != 0) {
        snprintf(err, errlen, "\"timestamp\" is not RFC 3339 UTC: \"%.64s\"", ts->valuestring);
        return -1;
    }
    const char *hn = logread_str(logread_item(t->root, "hostname"));
    rec->hostname = hn ? hn : "";
    if (host && !logread_is(host, cJSON_Object)) {
        snprintf(err, errlen, "\"host\" is not an object");
        return -1;
    }
    if (host && logread_metrics(lr->host_keys, host, MS_HOST, rec->host, NULL, err, errlen) != 0)
        return -1;
    size_t n = logread_count(gpus), i = 0;
    if (n > t->gcap) {
        t->gpus = xrealloc(t->gpus, n * sizeof *t->gpus);
        t->gcap = (unsigned)n;
    }
    const cJSON *g;
    cJSON_ArrayForEach(g, gpus) {
        if (!logread_is(g, cJSON_Object)) {
            snprintf(err, errlen, "gpus[%zu] is not an object", i);
            return -1;
        }
        char e[256];
        if (logread_gpu(lr, g, &t->gpus[i], e, sizeof e) != 0) {
            snprintf(err, errlen, "gpus[%zu]: %s", i, e);
            return -1;
        }
        for (size_t k = 0; k < i; k++)
            if (t->gpus[k].index == t->gpus[i].index) {
                snprintf(err, errlen, "gpus[%zu] repeats the index %u of gpus[%zu]", i, t->gpus[i].index, k);
                return -1;
            }
        i++;
    }
    rec->ngpus = (unsigned)n;
    rec->gpus = t->gpus;
    return logread_steps(t->ranks, logread_item(t->root, "steps"), rec, err, errlen);
}

int logread_parse(struct logread *lr, const char *line, size_t len, struct record *rec, char *err, size_t errlen)
{
    /* the parsers want the line NUL-terminated and padded: a copy (tests and fuzzing only) */
    char *copy = xmalloc(len + 1 + LOGREAD_SIMD_PAD);
    memcpy(copy, line, len);
    memset(copy + len, 0, 1 + LOGREAD_SIMD_PAD);
    int rc = logread_tree_parse(lr, &lr->direct, copy, len, rec, err, errlen);
    free(copy);   /* the record's strings point into the tree, not into the line */
    return rc;
}

int logread_open(struct logread **out, const char *path, char *err, size_t errlen)
{
    struct logsrc *src;
    if (lazy_cjson_load(err, errlen) != 0 || logsrc_open(&src, path, err, errlen) != 0)
        return -1;
    struct logread *lr = xcalloc(1, sizeof *lr);
    lr->src = src;
    lr->path = xstrdup(path);
    lr->simd_ops = logread_simd_ops_used;
    lr->simd = lr->simd_ops ? lr->simd_ops->open() : NULL;
    for (int i = 0; i < LOGREAD_KEY_CACHE; i++)
        lr->host_keys[i].id = lr->gpu_keys[i].id = LOGREAD_KEY_EMPTY;
    pthread_mutex_init(&lr->mu, NULL);
    pthread_cond_init(&lr->more, NULL);
    pthread_cond_init(&lr->room, NULL);
    *out = lr;
    return 0;
}

/* What a line that is not a record may be instead, for the message. */
static const char *logread_hint(const char *line)
{
    if (!strncmp(line, "timestamp,hostname", 18) || (strchr(line, ',') && line[0] != '{' && line[0] != '['))
        return " (this looks like CSV: diagnose and report read JSON Lines, as gpumon watch --format jsonl "
               "or gpumon run --output write them)";
    if (line[0] >= '0' && line[0] <= '9' && strstr(line, "  "))
        return " (this looks like gpumon watch's text output: record with --format jsonl for diagnose and report)";
    return "";
}

/* Reads and parses the next line into t and rec: 1, 0 at the end, -1. */
static int logread_read_one(struct logread *lr, struct logread_tree *t, struct record *rec, char *err,
                            size_t errlen)
{
    for (;;) {
        char *line, e[384];
        size_t len;
        bool complete;
        int got = logsrc_line(lr->src, &line, &len, &complete, e, sizeof e);
        if (got <= 0) {
            if (got < 0)
                snprintf(err, errlen, "%s:%llu: %s", lr->path, lr->lineno + 1, e);
            else if (logsrc_warning(lr->src)) {
                snprintf(lr->warning, sizeof lr->warning, "%s", logsrc_warning(lr->src));
                lr->warned = true;
            }
            return got;
        }
        lr->lineno++;
        if (len == 0)
            continue;
        if (logread_tree_parse(lr, t, line, len, rec, e, sizeof e) == 0) {
            bool back = rec->time.tv_sec < lr->last.tv_sec ||
                        (rec->time.tv_sec == lr->last.tv_sec && rec->time.tv_nsec < lr->last.tv_nsec);
            if (!back) {
                lr->last = rec->time;
                return 1;
            }
            if (lr->skipped++ == 0) {   /* the analysis needs time order: say what is left out, and where */
                lr->skip_line = lr->lineno;
                lr->skip_t = rec->time;
                lr->skip_after = lr->last;
            }
            continue;
        }
        if (!complete) {   /* the last line, cut short */
            snprintf(lr->warning, sizeof lr->warning, "%s:%llu: the last line is incomplete (%zu bytes, no "
                     "newline; the writer was probably killed) and was ignored", lr->path, lr->lineno, len);
            lr->warned = true;
            return 0;
        }
        snprintf(err, errlen, "%.300s:%llu: %s%s", lr->path, lr->lineno, e, logread_hint(line));
        return -1;
    }
}

/* The reader thread: parses lines into free slots until the end, an
 * error, or logread_close. Parsing is most of diagnose's work, so it runs
 * beside the analysis. */
static void *logread_main(void *arg)
{
    struct logread *lr = arg;
    for (;;) {
        pthread_mutex_lock(&lr->mu);
        while (!lr->stop && lr->produced + 1 >= lr->consumed + LOGREAD_SLOTS) {
            lr->reader_waits = true;
            pthread_cond_wait(&lr->room, &lr->mu);
            lr->reader_waits = false;
        }
        bool stop = lr->stop;
        pthread_mutex_unlock(&lr->mu);
        if (stop)
            return NULL;
        struct logread_slot *sl = &lr->slots[lr->produced % LOGREAD_SLOTS];
        sl->status = logread_read_one(lr, &sl->tree, &sl->rec, sl->err, sizeof sl->err);
        if (sl->status == 0)
            snprintf(sl->err, sizeof sl->err, "%s", lr->warned ? lr->warning : "");
        pthread_mutex_lock(&lr->mu);
        lr->produced++;
        /* wake a waiting caller with half a ring of records, or the end */
        if (lr->caller_waits && (lr->produced - lr->consumed >= LOGREAD_SLOTS / 2 || sl->status != 1))
            pthread_cond_signal(&lr->more);
        pthread_mutex_unlock(&lr->mu);
        if (sl->status != 1)
            return NULL;
    }
}

int logread_next(struct logread *lr, struct record *rec, char *err, size_t errlen)
{
    if (!lr->started) {
        if (pthread_create(&lr->thread, NULL, logread_main, lr) != 0) {
            snprintf(err, errlen, "%s: cannot start the reader thread", lr->path);
            return -1;
        }
        lr->started = true;
    }
    pthread_mutex_lock(&lr->mu);
    if (lr->consumed > 0 && lr->slots[(lr->consumed - 1) % LOGREAD_SLOTS].status != 1) {
        struct logread_slot *last = &lr->slots[(lr->consumed - 1) % LOGREAD_SLOTS];
        pthread_mutex_unlock(&lr->mu);   /* called again after the end or an error */
        if (last->status < 0)
            snprintf(err, errlen, "%s", last->err);
        return last->status;
    }
    /* the slot held since the last call is free; wake a waiting reader
     * once half the ring is */
    if (lr->reader_waits && lr->consumed + LOGREAD_SLOTS - 1 - lr->produced >= LOGREAD_SLOTS / 2)
        pthread_cond_signal(&lr->room);
    while (lr->produced == lr->consumed) {
        lr->caller_waits = true;
        pthread_cond_wait(&lr->more, &lr->mu);
        lr->caller_waits = false;
    }
    struct logread_slot *sl = &lr->slots[lr->consumed++ % LOGREAD_SLOTS];
    lr->end_seen = sl->status != 1;   /* the reader is done: its counts may be read */
    pthread_mutex_unlock(&lr->mu);
    if (sl->status == 1)
        *rec = sl->rec;
    else if (sl->status < 0)
        snprintf(err, errlen, "%s", sl->err);
    else if (sl->err[0]) {
        snprintf(lr->end_warning, sizeof lr->end_warning, "%s", sl->err);
        lr->end_warned = true;
    }
    return sl->status;
}

const char *logread_warning(const struct logread *lr)
{
    return lr->end_warned ? lr->end_warning : NULL;
}

const char *logread_skipped(struct logread *lr)
{
    if (!lr->end_seen || lr->skipped == 0)
        return NULL;
    char a[32], b[32];
    util_rfc3339(&lr->skip_t, a);
    util_rfc3339(&lr->skip_after, b);
    snprintf(lr->skip_text, sizeof lr->skip_text, "%s: %llu record%s skipped: %s time goes back (the first at line "
             "%llu, %s, after %s); is an older log appended to this one? Diagnose each part on its own, or sort "
             "the lines by time", lr->path, lr->skipped, lr->skipped == 1 ? " was" : "s were",
             lr->skipped == 1 ? "its" : "their", lr->skip_line, a, b);
    return lr->skip_text;
}

void logread_close(struct logread *lr)
{
    if (!lr)
        return;
    if (lr->started) {
        pthread_mutex_lock(&lr->mu);
        lr->stop = true;
        pthread_cond_signal(&lr->room);
        pthread_mutex_unlock(&lr->mu);
        pthread_join(lr->thread, NULL);
    }
    logsrc_close(lr->src);
    for (int i = 0; i <= LOGREAD_SLOTS; i++) {
        struct logread_tree *t = i < LOGREAD_SLOTS ? &lr->slots[i].tree : &lr->direct;
        logread_release(t);
        free(t->arena.buf);
        free(t->gpus);
        free(t->strs);
    }
    if (lr->simd)
        lr->simd_ops->close(lr->simd);
    pthread_mutex_destroy(&lr->mu);
    pthread_cond_destroy(&lr->more);
    pthread_cond_destroy(&lr->room);
    free(lr->path);
    free(lr);
}
