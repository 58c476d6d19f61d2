/*
 * serve_web.c: the live page's data (serve_web.h): the history ring, the
 * state JSON and the page's routes.
 *
 * What the page charts is a table (serve_web_series: a metric of the
 * metric table per row, with the chart's label and top) and so is the
 * job's (steps per second, input wait); the API describes both tables in
 * the state, so the page draws whatever rows there are. A point is the
 * mean of per_point records (NAN where none had the value: unknown is
 * never 0); the ring is reset when the GPUs change (another count, or a
 * new UUID at a position), so a point's columns always mean the same GPU.
 * The state embeds the latest record in the JSON Lines schema of the log
 * (sink_jsonl, docs/schemas.md), the verdicts that hold (serve_diag.c)
 * and the ledger hook. JSON is written with the sinks' writers (fmt.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "metrics.h"
#include "serve.h"
#include "serve_web.h"
#include "sink.h"

/* A chart per GPU: one metric, averaged into points; its top is max, or (max 0) the record's max_id. */
struct serve_web_series {
    enum metric_id id;
    const char *label;
    double max;
    enum metric_id max_id;
    int decimals;
};

static const struct serve_web_series serve_web_series[] = {
    {.id = M_UTIL_GPU, .label = "utilization", .max = 100, .decimals = 1},
    {.id = M_GPM_SM_ACTIVE, .label = "SM active", .max = 100, .decimals = 1},
    {.id = M_GPM_TENSOR_ACTIVE, .label = "tensor active", .max = 100, .decimals = 1},
    {.id = M_GPM_DRAM_ACTIVE, .label = "DRAM bandwidth", .max = 100, .decimals = 1},
    {.id = M_MEM_USED, .label = "memory used", .max_id = M_MEM_TOTAL, .decimals = 0},
    {.id = M_POWER, .label = "power", .max_id = M_POWER_ENFORCED, .decimals = 1},
    {.id = M_TEMP, .label = "temperature", .max = 100, .decimals = 0},
    {.id = M_CLOCK_SM, .label = "SM clock", .max_id = M_CLOCK_MAX_SM, .decimals = 0},
};
#define SW_NSERIES (sizeof serve_web_series / sizeof serve_web_series[0])

/* The job's figures, from the steps the training processes report under gpumon run. */
enum { SW_JOB_STEPS, SW_JOB_WAIT, SW_NJOB };
static const struct {
    const char *key, *label, *unit;
    double max;
    int decimals;
} serve_web_job_series[SW_NJOB] = {
    [SW_JOB_STEPS] = {"steps_per_s", "steps/s", "1/s", 0, 2},
    [SW_JOB_WAIT] = {"input_wait", "input wait", "%", 100, 1},
};

struct serve_web {
    struct serve_web_opts o;
    char *command;              /* o.command's copy */
    double step_s;              /* a point's length */
    unsigned cap, per_point;    /* points held at most; records averaged into one */

    pthread_mutex_t mu;         /* guards everything below but the feeder's part */
    unsigned ngpus;
    unsigned *index;            /* per position: the GPU's index */
    char (*uuid)[96];           /* and its UUID */
    unsigned long long pushed;  /* points so far; the newest at (pushed - 1) % cap */
    double *t;                  /* cap: a point's time (its last record's), seconds since the epoch */
    float *gv;                  /* cap x ngpus x SW_NSERIES */
    float *jv;                  /* cap x SW_NJOB */
    char *state;                /* the latest state JSON; owned */
    size_t state_len;

    /* the feeder's */
    double *acc;                /* sums of the point in progress: ngpus x SW_NSERIES, then SW_NJOB */
    unsigned *accn;             /* how many records had each */
    unsigned acc_records;
    double prev_t;              /* the previous record's time (steps per second) */
};

struct serve_web *serve_web_new(const struct serve_web_opts *o)
{
    struct serve_web *w = xcalloc(1, sizeof *w);
    w->o = *o;
    w->command = o->command ? xstrdup(o->command) : NULL;
    w->o.command = w->command;
    double interval_s = o->interval_ms > 0 ? o->interval_ms / 1000 : 1;
    double history_s = o->history_s > 0 ? o->history_s : SERVE_WEB_DEFAULT_HISTORY_S;
    double per = ceil(history_s / SERVE_WEB_MAX_POINTS / interval_s - 1e-9);
    w->per_point = per < 1 ? 1 : (unsigned)per;
    w->step_s = w->per_point * interval_s;
    double cap = ceil(history_s / w->step_s - 1e-9);
    w->cap = cap < 2 ? 2 : cap > SERVE_WEB_MAX_POINTS ? SERVE_WEB_MAX_POINTS : (unsigned)cap;
    w->o.history_s = history_s;
    pthread_mutex_init(&w->mu, NULL);
    w->t = xcalloc(w->cap, sizeof *w->t);
    w->jv = xcalloc((size_t)w->cap * SW_NJOB, sizeof *w->jv);
    return w;
}

void serve_web_free(struct serve_web *w)
{
    if (!w)
        return;
    pthread_mutex_destroy(&w->mu);
    free(w->command);
    free(w->index);
    free(w->uuid);
    free(w->t);
    free(w->gv);
    free(w->jv);
    free(w->state);
    free(w->acc);
    free(w->accn);
    free(w);
}

unsigned serve_web_points(const struct serve_web *w)
{
    return w->cap;
}

double serve_web_step_s(const struct serve_web *w)
{
    return w->step_s;
}

size_t serve_web_ring_bytes(const struct serve_web *w, unsigned ngpus)
{
    return (size_t)w->cap * (sizeof(double) + sizeof(float) * ((size_t)ngpus * SW_NSERIES + SW_NJOB));
}

static const char *serve_web_uuid_of(const struct record_gpu *g)
{
    const struct value *u = &g->v[M_UUID];
    return u->state == VS_OK && u->u.s ? u->u.s : "";
}

/* Whether rec's GPUs are not those of the ring (count, index or UUID at a position). */
static bool serve_web_changed(const struct serve_web *w, const struct record *rec)
{
    if (rec->ngpus != w->ngpus)
        return true;
    for (unsigned g = 0; g < rec->ngpus; g++)
        if (w->index[g] != rec->gpus[g].index || strncmp(w->uuid[g], serve_web_uuid_of(&rec->gpus[g]), 95))
            return true;
    return false;
}

/* Starts the ring afresh for rec's GPUs. Takes the mutex. */
static void serve_web_reset(struct serve_web *w, const struct record *rec)
{
    unsigned n = rec->ngpus;
    pthread_mutex_lock(&w->mu);
    w->ngpus = n;
    w->pushed = 0;
    free(w->gv);
    free(w->index);
    free(w->uuid);
    w->gv = xcalloc((size_t)w->cap * (n ? n : 1) * SW_NSERIES, sizeof *w->gv);
    w->index = xcalloc(n ? n : 1, sizeof *w->index);
    w->uuid = xcalloc(n ? n : 1, sizeof *w->uuid);
    for (unsigned g = 0; g < n; g++) {
        w->index[g] = rec->gpus[g].index;
        snprintf(w->uuid[g], sizeof w->uuid[g], "%s", serve_web_uuid_of(&rec->gpus[g]));
    }
    pthread_mutex_unlock(&w->mu);
    free(w->acc);
    free(w->accn);
    w->acc = xcalloc((size_t)n * SW_NSERIES + SW_NJOB, sizeof *w->acc);
    w->accn = xcalloc((size_t)n * SW_NSERIES + SW_NJOB, sizeof *w->accn);
    w->acc_records = 0;
}

/* A value as a number; NAN unless it is a known number. */
static double serve_web_number(const struct value *v, enum metric_id id)
{
    if (v->state != VS_OK)
        return NAN;
    switch (metric_table[id].kind) {
    case MK_FLOAT: return v->u.f;
    case MK_INT: case MK_HEX: case MK_FLAG: case MK_PSTATE: return (double)v->u.i;
    default: return NAN;
    }
}

/* The job's figures at rec over dt seconds: steps per second (mean over the reporting processes) and
 * the share of the loops' time spent waiting for input; NAN without steps. */
static void serve_web_job(const struct record *rec, double dt, double out[SW_NJOB])
{
    out[SW_JOB_STEPS] = out[SW_JOB_WAIT] = NAN;
    if (!rec->nranks || !(dt > 0))
        return;
    double steps = 0, wait = 0, busy = 0;
    for (unsigned i = 0; i < rec->nranks; i++) {
        steps += rec->ranks[i].steps;
        wait += rec->ranks[i].in_wait_s;
        busy += rec->ranks[i].in_wait_s + rec->ranks[i].in_compute_s;
    }
    out[SW_JOB_STEPS] = steps / rec->nranks / dt;
    if (busy > 0)
        out[SW_JOB_WAIT] = 100 * wait / busy;
}

static void serve_web_add(struct serve_web *w, size_t k, double v)
{
    if (isfinite(v)) {
        w->acc[k] += v;
        w->accn[k]++;
    }
}

/* Accumulates rec; every per_point records, the mean becomes the ring's newest point. */
static void serve_web_accumulate(struct serve_web *w, const struct record *rec, const double job[SW_NJOB], double t)
{
    size_t ng = (size_t)w->ngpus * SW_NSERIES;
    for (unsigned g = 0; g < w->ngpus; g++)
        for (size_t s = 0; s < SW_NSERIES; s++)
            serve_web_add(w, g * SW_NSERIES + s, serve_web_number(&rec->gpus[g].v[serve_web_series[s].id],
                                                                  serve_web_series[s].id));
    for (size_t j = 0; j < SW_NJOB; j++)
        serve_web_add(w, ng + j, job[j]);
    if (++w->acc_records < w->per_point)
        return;
    pthread_mutex_lock(&w->mu);
    size_t p = (size_t)(w->pushed % w->cap);
    w->t[p] = t;
    for (size_t k = 0; k < ng; k++)
        w->gv[p * ng + k] = w->accn[k] ? (float)(w->acc[k] / w->accn[k]) : NAN;
    for (size_t j = 0; j < SW_NJOB; j++)
        w->jv[p * SW_NJOB + j] = w->accn[ng + j] ? (float)(w->acc[ng + j] / w->accn[ng + j]) : NAN;
    w->pushed++;
    pthread_mutex_unlock(&w->mu);
    memset(w->acc, 0, (ng + SW_NJOB) * sizeof *w->acc);
    memset(w->accn, 0, (ng + SW_NJOB) * sizeof *w->accn);
    w->acc_records = 0;
}

static void serve_web_num(struct sbuf *b, const char *key, double v, int decimals)
{
    sbuf_puts(b, key);
    if (isfinite(v))
        sbuf_put_fixed(b, v, decimals);
    else
        sbuf_puts(b, "null");
}

/* "history":{...}: the ring's length, cost and what each series is. */
static void serve_web_describe(struct sbuf *b, const struct serve_web *w, unsigned long long pushed)
{
    serve_web_num(b, "\"history\":{\"seconds\":", w->cap * w->step_s, 3);
    serve_web_num(b, ",\"step_s\":", w->step_s, 3);
    sbuf_printf(b, ",\"capacity\":%u,\"points\":%llu,\"bytes\":%zu,\"series\":[", w->cap,
                pushed < w->cap ? pushed : w->cap, serve_web_ring_bytes(w, w->ngpus));
    for (size_t s = 0; s < SW_NSERIES; s++) {
        const struct serve_web_series *r = &serve_web_series[s];
        sbuf_puts(b, s ? ",{\"key\":" : "{\"key\":");
        fmt_json_string(b, metric_table[r->id].key);
        sbuf_puts(b, ",\"label\":");
        fmt_json_string(b, r->label);
        sbuf_puts(b, ",\"unit\":");
        fmt_json_string(b, metric_table[r->id].unit);
        if (r->max > 0)
            serve_web_num(b, ",\"max\":", r->max, 0);
        else {
            sbuf_puts(b, ",\"max_key\":");
            fmt_json_string(b, metric_table[r->max_id].key);
        }
        sbuf_putc(b, '}');
    }
    sbuf_puts(b, "],\"job_series\":[");
    for (size_t j = 0; j < SW_NJOB; j++) {
        sbuf_puts(b, j ? ",{\"key\":" : "{\"key\":");
        fmt_json_string(b, serve_web_job_series[j].key);
        sbuf_puts(b, ",\"label\":");
        fmt_json_string(b, serve_web_job_series[j].label);
        sbuf_puts(b, ",\"unit\":");
        fmt_json_string(b, serve_web_job_series[j].unit);
        if (serve_web_job_series[j].max > 0)
            serve_web_num(b, ",\"max\":", serve_web_job_series[j].max, 0);
        sbuf_putc(b, '}');
    }
    sbuf_puts(b, "]}");
}

/* Every metric, in the table's order: the record as the log has it. */
static enum metric_id serve_web_ids[METRIC_COUNT];
static pthread_once_t serve_web_ids_once = PTHREAD_ONCE_INIT;

static void serve_web_ids_init(void)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        serve_web_ids[i] = (enum metric_id)i;
}

/* The state: who serves, the history's description, the job, the verdicts, the record, the ledger. */
static void serve_web_render(struct serve_web *w, struct sbuf *b, const struct record *rec, const struct diag *d,
                             const double job[SW_NJOB], double t)
{
    sbuf_puts(b, "{\"gpumon\":\"" GPUMON_VERSION "\",\"source\":");
    fmt_json_string(b, w->o.source ? w->o.source : "serve");
    sbuf_puts(b, ",\"command\":");
    if (w->command)
        fmt_json_string(b, w->command);
    else
        sbuf_puts(b, "null");
    sbuf_puts(b, ",\"hostname\":");
    fmt_json_string(b, rec->hostname ? rec->hostname : "");
    serve_web_num(b, ",\"time\":", t, 3);
    serve_web_num(b, ",\"interval_s\":", w->o.interval_ms / 1000, 3);
    serve_web_num(b, ",\"window_s\":", w->o.window_s, 3);
    sbuf_puts(b, w->o.processes ? ",\"processes\":true" : ",\"processes\":false");
    sbuf_putc(b, ',');
    serve_web_describe(b, w, w->pushed);
    if (rec->nranks) {
        sbuf_printf(b, ",\"job\":{\"processes\":%u", rec->nranks);
        for (size_t j = 0; j < SW_NJOB; j++) {
            char key[64];
            snprintf(key, sizeof key, ",\"%s\":", serve_web_job_series[j].key);
            serve_web_num(b, key, job[j], serve_web_job_series[j].decimals);
        }
        sbuf_putc(b, '}');
    }
    sbuf_puts(b, ",\"verdicts\":");
    serve_diag_json(b, d, rec);
    serve_diag_ledger_json(b, d);
    sbuf_puts(b, ",\"record\":");
    pthread_once(&serve_web_ids_once, serve_web_ids_init);
    struct sink sk = {&sink_jsonl, serve_web_ids, METRIC_COUNT, false, true, 0};
    size_t at = b->len;
    sink_jsonl.record(&sk, rec, b);
    while (b->len > at && b->data[b->len - 1] == '\n')
        b->data[--b->len] = '\0';
    sbuf_puts(b, "}\n");
}

void serve_web_feed(struct serve_web *w, const struct record *rec, const struct diag *d)
{
    double t = (double)rec->time.tv_sec + rec->time.tv_nsec / 1e9;
    double dt = w->prev_t > 0 && t > w->prev_t ? t - w->prev_t : w->o.interval_ms / 1000;
    w->prev_t = t;
    if (!w->acc || serve_web_changed(w, rec))
        serve_web_reset(w, rec);
    double job[SW_NJOB];
    serve_web_job(rec, dt, job);
    serve_web_accumulate(w, rec, job, t);
    struct sbuf b;
    sbuf_init(&b);
    serve_web_render(w, &b, rec, d, job, t);
    pthread_mutex_lock(&w->mu);
    char *old = w->state;
    w->state = b.data;
    w->state_len = b.len;
    pthread_mutex_unlock(&w->mu);
    free(old);
}

/* ---- the routes ---- */

static void serve_web_text(struct serve_web_reply *out, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void serve_web_text(struct serve_web_reply *out, unsigned status, const char *fmt, ...)
{
    struct sbuf b;
    sbuf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n >= 0)
        sbuf_add(&b, s, (size_t)n);
    free(s);
    *out = (struct serve_web_reply){status, "text/plain; charset=utf-8", b.data ? b.data : xstrdup(""), b.len, true};
}

static void serve_web_state(struct serve_web *w, struct serve_web_reply *out)
{
    pthread_mutex_lock(&w->mu);
    char *copy = w->state ? xmalloc(w->state_len + 1) : NULL;
    size_t len = w->state_len;
    if (copy)
        memcpy(copy, w->state, len + 1);
    pthread_mutex_unlock(&w->mu);
    if (!copy) {   /* not fed yet: gpumon run before its first record */
        serve_web_text(out, 503, "no data yet: the first collection has not ended\n");
        return;
    }
    *out = (struct serve_web_reply){200, "application/json", copy, len, true};
}

/* Parses ?seconds=N: a positive number of seconds; larger than the history is the whole history. */
static int serve_web_seconds(const char *arg, double history_s, double *out, char *why, size_t whylen)
{
    *out = history_s;
    if (!arg)
        return 0;
    char *end;
    double v = strtod(arg, &end);   /* decimal only: strtod's hex, inf and nan are refused */
    if (end == arg || *end || arg[strspn(arg, "0123456789.eE+-")] || !(v > 0) || !isfinite(v)) {
        snprintf(why, whylen, "seconds=\"%.80s\" is not a positive number of seconds (the history holds %.0f)",
                 arg, history_s);
        return -1;
    }
    *out = v < history_s ? v : history_s;
    return 0;
}

/* What a history request copies out of the ring under the mutex. */
struct serve_web_span {
    unsigned n, ngpus;          /* points, oldest first */
    double *t;
    float *gv, *jv;
    unsigned *index;
    char (*uuid)[96];
};

static void serve_web_copy(struct serve_web *w, double seconds, struct serve_web_span *sp)
{
    memset(sp, 0, sizeof *sp);
    pthread_mutex_lock(&w->mu);
    unsigned held = w->pushed < w->cap ? (unsigned)w->pushed : w->cap, n = 0;
    size_t ng = (size_t)w->ngpus * SW_NSERIES;
    double newest = held ? w->t[(w->pushed - 1) % w->cap] : 0;
    /* the newest points within seconds of the newest one (half a step of slack for the records' jitter) */
    while (n < held && newest - w->t[(w->pushed - 1 - n) % w->cap] < seconds - w->step_s / 2)
        n++;
    sp->n = n;
    sp->ngpus = w->ngpus;
    sp->t = xcalloc(n ? n : 1, sizeof *sp->t);
    sp->gv = xcalloc((n ? n : 1) * (ng ? ng : 1), sizeof *sp->gv);
    sp->jv = xcalloc((n ? n : 1) * SW_NJOB, sizeof *sp->jv);
    sp->index = xcalloc(w->ngpus ? w->ngpus : 1, sizeof *sp->index);
    sp->uuid = xcalloc(w->ngpus ? w->ngpus : 1, sizeof *sp->uuid);
    if (w->ngpus) {
        memcpy(sp->index, w->index, w->ngpus * sizeof *sp->index);
        memcpy(sp->uuid, w->uuid, w->ngpus * sizeof *sp->uuid);
    }
    for (unsigned i = 0; i < n; i++) {   /* i: oldest first */
        size_t p = (size_t)((w->pushed - n + i) % w->cap);
        sp->t[i] = w->t[p];
        memcpy(sp->gv + i * ng, w->gv + p * ng, ng * sizeof *sp->gv);
        memcpy(sp->jv + i * SW_NJOB, w->jv + p * SW_NJOB, SW_NJOB * sizeof *sp->jv);
    }
    pthread_mutex_unlock(&w->mu);
}

static void serve_web_span_free(struct serve_web_span *sp)
{
    free(sp->t);
    free(sp->gv);
    free(sp->jv);
    free(sp->index);
    free(sp->uuid);
}

/* "KEY":[v,...] of one column of the span: stride floats apart from first. */
static void serve_web_column(struct sbuf *b, const char *key, const float *first, size_t stride, unsigned n,
                             int decimals)
{
    fmt_json_string(b, key);
    sbuf_puts(b, ":[");
    for (unsigned i = 0; i < n; i++) {
        if (i)
            sbuf_putc(b, ',');
        double v = first[i * stride];
        if (isfinite(v))
            sbuf_put_fixed(b, v, decimals);
        else
            sbuf_puts(b, "null");
    }
    sbuf_putc(b, ']');
}

static void serve_web_history(struct serve_web *w, serve_web_arg_fn *arg, void *ctx, struct serve_web_reply *out)
{
    double seconds;
    char why[256];
    if (serve_web_seconds(arg(ctx, "seconds"), w->cap * w->step_s, &seconds, why, sizeof why) != 0) {
        serve_web_text(out, 400, "bad request: %s\n", why);
        return;
    }
    struct serve_web_span sp;
    serve_web_copy(w, seconds, &sp);
    struct sbuf b;
    sbuf_init(&b);
    size_t ng = (size_t)sp.ngpus * SW_NSERIES;
    serve_web_num(&b, "{\"step_s\":", w->step_s, 3);
    serve_web_num(&b, ",\"seconds\":", seconds, 3);
    sbuf_printf(&b, ",\"points\":%u,\"t\":[", sp.n);
    for (unsigned i = 0; i < sp.n; i++) {
        if (i)
            sbuf_putc(&b, ',');
        sbuf_put_fixed(&b, sp.t[i], 3);
    }
    sbuf_puts(&b, "],\"gpus\":[");
    for (unsigned g = 0; g < sp.ngpus; g++) {
        sbuf_puts(&b, g ? ",{\"index\":" : "{\"index\":");
        sbuf_put_int(&b, sp.index[g]);
        sbuf_puts(&b, ",\"uuid\":");
        fmt_json_string(&b, sp.uuid[g]);
        sbuf_puts(&b, ",\"series\":{");
        for (size_t s = 0; s < SW_NSERIES; s++) {
            if (s)
                sbuf_putc(&b, ',');
            serve_web_column(&b, metric_table[serve_web_series[s].id].key, sp.gv + g * SW_NSERIES + s, ng, sp.n,
                             serve_web_series[s].decimals);
        }
        sbuf_puts(&b, "}}");
    }
    sbuf_puts(&b, "],\"job\":{");
    for (size_t j = 0; j < SW_NJOB; j++) {
        if (j)
            sbuf_putc(&b, ',');
        serve_web_column(&b, serve_web_job_series[j].key, sp.jv + j, SW_NJOB, sp.n, serve_web_job_series[j].decimals);
    }
    sbuf_puts(&b, "}}\n");
    serve_web_span_free(&sp);
    *out = (struct serve_web_reply){200, "application/json", b.data, b.len, true};
}

bool serve_web_answer(struct serve_web *w, const char *path, serve_web_arg_fn *arg, void *ctx,
                      struct serve_web_reply *out)
{
    if (!strcmp(path, "/")) {
        *out = (struct serve_web_reply){200, "text/html; charset=utf-8", (char *)serve_page_html, serve_page_html_len,
                                        false};
        return true;
    }
    if (!strcmp(path, "/api/v1/state")) {
        serve_web_state(w, out);
        return true;
    }
    if (!strcmp(path, "/api/v1/history")) {
        serve_web_history(w, arg, ctx, out);
        return true;
    }
    return false;
}
