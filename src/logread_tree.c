/*
 * logread_tree.c: a log line parsed by cJSON into a record (logread.c
 * reads lines, and tries simdjson first where it is there). Parsing is
 * most of a cJSON read's cost, so each line's tree is built in an arena
 * (cJSON's allocation hooks): one bump allocation per node, nothing freed
 * node by node, and the arena reset for the next line; a line too big for
 * the arena falls back to malloc and the arena grows for the next one.
 * Metric keys are looked up through a cache by position: every line of a
 * log lists its keys in the same order, so the table is searched once per
 * key and later lines cost one string comparison each. The tree is kept
 * until the next line, because string values in the record point into it.
 * An "errors" entry carries NVML's numeric code; logs of gpumon 0.1
 * carried the text only, which maps back through nvml_codes.h's table.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "logread.h"
#include "logread_int.h"
#include "logread_simd.h"
#include "metrics.h"
#include "util.h"

#define LOGREAD_MAX_INDEX 65535         /* NVML indices are small; a larger one is not a GPU */
#define LOGREAD_ARENA_MIN (1u << 20)

static pthread_mutex_t logread_cjson_mu = PTHREAD_MUTEX_INITIALIZER;

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

void logread_tree_release(struct logread_tree *t)
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
        rp->server = logread_is(logread_item(p, "server"), cJSON_True);
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

static int logread_gpu(struct logread_keys *keys, const cJSON *obj, struct record_gpu *g, char *err, size_t errlen)
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
    if (logread_metrics(keys->gpu, obj, MS_GPU, g->v, &extra, err, errlen) != 0 ||
        logread_errors_map(extra.errors, g->v, err, errlen) != 0 ||
        logread_procs(extra.processes, g, err, errlen) != 0 ||
        logread_xids(extra.xids, g, err, errlen) != 0 || logread_jobs(extra.jobs, g, err, errlen) != 0)
        return -1;
    return 0;
}

int logread_tree_parse(struct logread_keys *keys, struct logread_tree *t, const char *line, size_t len,
                       struct record *rec, char *err, size_t errlen)
{
    pthread_once(&logread_hooks_once, logread_hooks);
    logread_tree_release(t);
    logread_cur = &t->arena;
    const char *end = NULL;
    /* line[len] is NUL: ParseWithOpts, since cJSON 1.7.10 has no length form. cJSON keeps where a parse
     * failed in a global of its own: two threads parse, so one at a time */
    pthread_mutex_lock(&logread_cjson_mu);
    t->root = lazy_cjson.cJSON_ParseWithOpts(line, &end, false);
    const char *at = t->root ? NULL : lazy_cjson.cJSON_GetErrorPtr();
    pthread_mutex_unlock(&logread_cjson_mu);
    logread_cur = NULL;
    if (!t->root) {
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
    if (host && logread_metrics(keys->host, host, MS_HOST, rec->host, NULL, err, errlen) != 0)
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
        if (logread_gpu(keys, g, &t->gpus[i], e, sizeof e) != 0) {
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


void logread_tree_free(struct logread_tree *t)
{
    logread_tree_release(t);
    free(t->arena.buf);
    free(t->gpus);
    free(t->strs);
}
