/*
 * logread.c: JSON Lines back into records (see logread.h), parsed with
 * jansson. Metric keys are looked up through a cache by position: every
 * line of a log lists its keys in the same order, so the table is searched
 * once per key and later lines cost one string comparison each. The
 * parsed line (jansson's tree) is kept until the next line, because string
 * values in the record point into it. NVML's error strings map back to
 * codes through the one table below (the texts nvmlErrorString returns).
 */
#include "logread.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "nvml.h"
#include "util.h"

#define LOGREAD_MAX_LINE (16u << 20)   /* a longer line is not one of ours */
#define LOGREAD_KEY_CACHE 128

struct logread_key {
    char key[64];
    int id;   /* metric id, -1 unknown key, -2 empty slot */
};

struct logread {
    FILE *f;
    bool own;
    char *path;
    char *line;
    size_t cap;
    unsigned long long lineno;
    json_t *root;                   /* the current line, owner of the record's strings */
    struct record_gpu *gpus;
    unsigned gcap;
    struct logread_key host_keys[LOGREAD_KEY_CACHE], gpu_keys[LOGREAD_KEY_CACHE];
    char warning[512];
    bool warned;
};

static const struct { int code; const char *text; } logread_errors[] = {
    {1, "Uninitialized"}, {2, "Invalid Argument"}, {3, "Not Supported"}, {4, "Insufficient Permissions"},
    {4, "No permission"}, {6, "Not Found"}, {7, "Insufficient Size"}, {8, "Insufficient External Power"},
    {9, "Driver Not Loaded"}, {10, "Timeout"}, {11, "Interrupt request issue"}, {13, "Function Not Found"},
    {14, "Corrupted infoROM"}, {15, "GPU is lost"}, {16, "GPU requires restart"}, {20, "Insufficient Memory"},
    {21, "No data"},
};

int logread_parse_time(const char *s, struct timespec *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int n = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &n) != 6 || n != 19)
        return -1;
    long nsec = 0, scale = 100000000;
    const char *p = s + n;
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
            nsec += scale * (*p - '0');
    }
    if (strcmp(p, "Z") != 0 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    out->tv_sec = timegm(&tm);
    out->tv_nsec = nsec;
    return 0;
}

static int logread_error_code(const char *text)
{
    for (size_t i = 0; i < sizeof logread_errors / sizeof logread_errors[0]; i++)
        if (!strcmp(text, logread_errors[i].text))
            return logread_errors[i].code;
    return 999;   /* NVML_ERROR_UNKNOWN */
}

/* The metric id of the pos-th key of an object, -1 for a key gpumon does not know. */
static int logread_key_id(struct logread_key *cache, size_t pos, const char *key)
{
    struct logread_key *c = pos < LOGREAD_KEY_CACHE ? &cache[pos] : NULL;
    if (c && c->id != -2 && !strcmp(c->key, key))
        return c->id;
    const struct metric *m = metric_find(key);
    int id = m ? (int)m->id : -1;
    if (c && strlen(key) < sizeof c->key) {
        snprintf(c->key, sizeof c->key, "%s", key);
        c->id = id;
    }
    return id;
}

/* Sets v from a JSON value of metric m. Returns 0, or -1 for a wrong type. */
static int logread_value(const struct metric *m, json_t *j, struct value *v)
{
    memset(v, 0, sizeof *v);
    if (json_is_null(j))
        return 0;   /* VS_NONE unless "errors" says why */
    v->state = VS_OK;
    switch (m->kind) {
    case MK_FLOAT:
        if (!json_is_number(j))
            return -1;
        v->u.f = json_number_value(j);
        return 0;
    case MK_INT:
    case MK_HEX:
        if (!json_is_integer(j))
            return -1;
        v->u.i = json_integer_value(j);
        return 0;
    case MK_FLAG:
        if (!json_is_boolean(j))
            return -1;
        v->u.i = json_is_true(j);
        return 0;
    case MK_PSTATE: {
        const char *s = json_string_value(j);
        char *end;
        if (!s || s[0] != 'P' || s[1] < '0' || s[1] > '9')
            return -1;
        v->u.i = strtol(s + 1, &end, 10);
        return *end ? -1 : 0;
    }
    case MK_STR:
        if (!(v->u.s = json_string_value(j)))
            return -1;
        return 0;
    }
    return -1;
}

/* Fills vals (scope scope) from the keys of obj. skip: keys handled by the caller. */
static int logread_metrics(struct logread_key *cache, json_t *obj, enum metric_scope scope, struct value *vals,
                           char *err, size_t errlen)
{
    const char *key;
    json_t *j;
    size_t pos = 0;
    json_object_foreach(obj, key, j) {
        int id = logread_key_id(cache, pos++, key);
        if (id < 0 || metric_table[id].scope != scope)
            continue;   /* "index", "errors", "processes", "xids", or a key from a newer gpumon */
        if (logread_value(&metric_table[id], j, &vals[id]) != 0) {
            snprintf(err, errlen, "\"%s\" has the wrong type for a %s value", key,
                     metric_table[id].kind == MK_STR ? "string" : metric_table[id].kind == MK_FLAG ? "boolean"
                     : metric_table[id].kind == MK_PSTATE ? "P-state" : "numeric");
            return -1;
        }
    }
    return 0;
}

static int logread_errors_map(json_t *errs, struct value *vals, char *err, size_t errlen)
{
    const char *key;
    json_t *j;
    if (!errs)
        return 0;
    if (!json_is_object(errs)) {
        snprintf(err, errlen, "\"errors\" is not an object");
        return -1;
    }
    json_object_foreach(errs, key, j) {
        const struct metric *m = metric_find(key);
        if (!m || m->scope != MS_GPU || !json_is_string(j))
            continue;
        int code = logread_error_code(json_string_value(j));
        vals[m->id] = (struct value){.state = nvml_is_lost(code) ? VS_LOST : VS_ERROR, .code = code};
    }
    return 0;
}

static int logread_procs(json_t *arr, struct record_gpu *g, char *err, size_t errlen)
{
    size_t i;
    json_t *p;
    g->nprocs = 0;
    if (!arr)
        return 0;
    if (!json_is_array(arr)) {
        snprintf(err, errlen, "\"processes\" is not an array");
        return -1;
    }
    json_array_foreach(arr, i, p) {
        json_t *pid = json_object_get(p, "pid"), *mem = json_object_get(p, "used_memory");
        if (!json_is_integer(pid)) {
            snprintf(err, errlen, "processes[%zu] has no integer \"pid\"", i);
            return -1;
        }
        if (g->nprocs == RECORD_MAX_PROCS)
            continue;
        struct record_proc *rp = &g->procs[g->nprocs++];
        rp->pid = (unsigned)json_integer_value(pid);
        rp->used_mib = json_is_integer(mem) ? json_integer_value(mem) : -1;
        const char *name = json_string_value(json_object_get(p, "name"));
        snprintf(rp->name, sizeof rp->name, "%s", name ? name : "");
    }
    return 0;
}

static int logread_xids(json_t *arr, struct record_gpu *g, char *err, size_t errlen)
{
    size_t i;
    json_t *x;
    g->nxids = 0;
    if (!arr)
        return 0;
    if (!json_is_array(arr)) {
        snprintf(err, errlen, "\"xids\" is not an array");
        return -1;
    }
    json_array_foreach(arr, i, x) {
        json_t *code = json_object_get(x, "code"), *count = json_object_get(x, "count");
        const char *last = json_string_value(json_object_get(x, "last_seen"));
        struct record_xid rx = {0};
        if (!json_is_integer(code) || (last && logread_parse_time(last, &rx.last) != 0)) {
            snprintf(err, errlen, "xids[%zu] needs an integer \"code\" and an RFC 3339 \"last_seen\"", i);
            return -1;
        }
        rx.code = (unsigned)json_integer_value(code);
        rx.count = json_is_integer(count) ? (unsigned long long)json_integer_value(count) : 1;
        if (g->nxids < RECORD_MAX_XIDS)
            g->xids[g->nxids++] = rx;
    }
    return 0;
}

static int logread_gpu(struct logread *lr, json_t *obj, struct record_gpu *g, char *err, size_t errlen)
{
    json_t *idx = json_object_get(obj, "index");
    memset(g->v, 0, sizeof g->v);
    if (!json_is_integer(idx)) {
        snprintf(err, errlen, "a GPU object has no integer \"index\"");
        return -1;
    }
    g->index = (unsigned)json_integer_value(idx);
    g->v[M_INDEX] = (struct value){.state = VS_OK, .u.i = g->index};
    if (logread_metrics(lr->gpu_keys, obj, MS_GPU, g->v, err, errlen) != 0 ||
        logread_errors_map(json_object_get(obj, "errors"), g->v, err, errlen) != 0 ||
        logread_procs(json_object_get(obj, "processes"), g, err, errlen) != 0 ||
        logread_xids(json_object_get(obj, "xids"), g, err, errlen) != 0)
        return -1;
    return 0;
}

int logread_parse(struct logread *lr, const char *line, size_t len, struct record *rec, char *err, size_t errlen)
{
    json_error_t je;
    if (lr->root)
        json_decref(lr->root);
    lr->root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (!lr->root) {
        snprintf(err, errlen, "not JSON: %s (column %d)", je.text, je.column);
        return -1;
    }
    json_t *ts = json_object_get(lr->root, "timestamp"), *gpus = json_object_get(lr->root, "gpus");
    json_t *host = json_object_get(lr->root, "host");
    if (!json_is_object(lr->root) || !json_is_string(ts) || !json_is_array(gpus)) {
        snprintf(err, errlen, "not a gpumon record (an object with \"timestamp\" and \"gpus\")");
        return -1;
    }
    memset(rec, 0, sizeof *rec);
    if (logread_parse_time(json_string_value(ts), &rec->time) != 0) {
        snprintf(err, errlen, "\"timestamp\" is not RFC 3339 UTC: \"%s\"", json_string_value(ts));
        return -1;
    }
    const char *hn = json_string_value(json_object_get(lr->root, "hostname"));
    rec->hostname = hn ? hn : "";
    if (host && (!json_is_object(host) || logread_metrics(lr->host_keys, host, MS_HOST, rec->host, err,
                                                          errlen) != 0)) {
        if (!json_is_object(host))
            snprintf(err, errlen, "\"host\" is not an object");
        return -1;
    }
    size_t n = json_array_size(gpus);
    if (n > lr->gcap) {
        lr->gpus = xrealloc(lr->gpus, n * sizeof *lr->gpus);
        lr->gcap = (unsigned)n;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *g = json_array_get(gpus, i);
        if (!json_is_object(g)) {
            snprintf(err, errlen, "gpus[%zu] is not an object", i);
            return -1;
        }
        char e[256];
        if (logread_gpu(lr, g, &lr->gpus[i], e, sizeof e) != 0) {
            snprintf(err, errlen, "gpus[%zu]: %s", i, e);
            return -1;
        }
    }
    rec->ngpus = (unsigned)n;
    rec->gpus = lr->gpus;
    return 0;
}

int logread_open(struct logread **out, const char *path, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        snprintf(err, errlen, "cannot open log %s: %s", path, strerror(errno));
        return -1;
    }
    struct logread *lr = xcalloc(1, sizeof *lr);
    lr->f = f;
    lr->own = f != stdin;
    lr->path = xstrdup(path);
    for (int i = 0; i < LOGREAD_KEY_CACHE; i++)
        lr->host_keys[i].id = lr->gpu_keys[i].id = -2;
    *out = lr;
    return 0;
}

int logread_next(struct logread *lr, struct record *rec, char *err, size_t errlen)
{
    for (;;) {
        ssize_t n = getline(&lr->line, &lr->cap, lr->f);
        if (n < 0) {
            if (ferror(lr->f)) {
                snprintf(err, errlen, "%s: read error after line %llu: %s", lr->path, lr->lineno, strerror(errno));
                return -1;
            }
            return 0;
        }
        lr->lineno++;
        bool complete = n > 0 && lr->line[n - 1] == '\n';
        size_t len = (size_t)n - complete;
        if (len > 0 && lr->line[len - 1] == '\r')
            len--;
        if (len == 0)
            continue;
        char e[384];
        if (len > LOGREAD_MAX_LINE) {
            snprintf(err, errlen, "%s:%llu: line of %zu bytes is too long for a gpumon record", lr->path,
                     lr->lineno, len);
            return -1;
        }
        if (logread_parse(lr, lr->line, len, rec, e, sizeof e) == 0)
            return 1;
        if (!complete) {   /* the last line, cut short */
            snprintf(lr->warning, sizeof lr->warning, "%s:%llu: the last line is incomplete (%zu bytes, no "
                     "newline; the writer was probably killed) and was ignored", lr->path, lr->lineno, len);
            lr->warned = true;
            return 0;
        }
        snprintf(err, errlen, "%s:%llu: %s", lr->path, lr->lineno, e);
        return -1;
    }
}

const char *logread_warning(const struct logread *lr)
{
    return lr->warned ? lr->warning : NULL;
}

void logread_close(struct logread *lr)
{
    if (!lr)
        return;
    if (lr->own)
        fclose(lr->f);
    if (lr->root)
        json_decref(lr->root);
    free(lr->line);
    free(lr->path);
    free(lr->gpus);
    free(lr);
}
