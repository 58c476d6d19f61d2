/*
 * sink_jsonl.c: JSON Lines, one object per sample:
 *   {"timestamp":"2026-11-29T21:03:04.567Z","hostname":"node1",
 *    "host":{"host.cpu.user":12.5,...},
 *    "gpus":[{"index":0,"name":"NVIDIA H200",...,"errors":{...},"xids":[...],"processes":[...]}]}
 * Keys are metric keys; numbers are numbers; anything not available is null,
 * and when NVML gave a reason other than "not supported", "errors" maps the
 * key to NVML's return code and its text: {"code":4,"text":"Insufficient
 * Permissions"} (the code is what readers use; the text is for people).
 * Under gpumon run, "steps" lists the training processes that report their
 * steps, each with the interval's figures (docs/steps-channel.md, "In the
 * log"). A process carries its user, container ("runtime://id") and pod
 * UID, null where they cannot be told; a GPU with more processes than a
 * record lists (RECORD_MAX_PROCS, the largest by memory) adds
 * "processes_omitted":N; "jobs" (with a job mapping
 * directory) lists a GPU's job ids. This is the log format that
 * diagnose and report read back.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "nvml_codes.h"
#include "sink.h"

/* Each metric's ,"key": escaped once, not at every sample; text + 1 is "key": without the comma. A
 * GPU value copies JSONL_KEY bytes at once (the room is reserved), then moves on by len. */
#define JSONL_KEY 64
static struct { char text[96]; size_t len; } jsonl_keys[METRIC_COUNT];
static pthread_once_t jsonl_keys_once = PTHREAD_ONCE_INIT;

static void jsonl_keys_build(void)
{
    struct sbuf b;
    sbuf_init(&b);
    for (int i = 0; i < METRIC_COUNT; i++) {
        sbuf_reset(&b);
        sbuf_putc(&b, ',');
        fmt_json_string(&b, metric_table[i].key);
        sbuf_putc(&b, ':');
        snprintf(jsonl_keys[i].text, sizeof jsonl_keys[i].text, "%s", b.data);
        jsonl_keys[i].len = strlen(jsonl_keys[i].text);
    }
    sbuf_free(&b);
}

UTIL_HOT static void jsonl_key(struct sbuf *b, enum metric_id id)
{
    sbuf_add(b, jsonl_keys[id].text + 1, jsonl_keys[id].len - 1);
}

/* What a GPU object lists after its index, for one list of ids (a sink's), worked out once per thread
 * and list: each row's key (with its comma), its kind and decimals. */
/* What a GPU object lists after its index, for one list of ids (a sink's), worked out once per thread
 * and list: each row's key with its comma, packed one after the other (few cache lines: a sample on an
 * idle machine starts cold), its kind and decimals. */
struct jsonl_row {
    uint16_t key;                          /* offset in keys */
    uint8_t keylen, kind, id;
    int8_t decimals;
};
_Static_assert(METRIC_COUNT <= 255, "a row's id fits a byte");
static _Thread_local struct jsonl_plan {
    bool ready;                            /* ids and rows hold a plan (zero: none, in .tbss) */
    bool index;                            /* the ids list the index: an error of it has an entry too */
    int nids, nrows;
    enum metric_id ids[METRIC_COUNT];
    struct jsonl_row rows[METRIC_COUNT];
    char keys[METRIC_COUNT * 48 + JSONL_KEY];   /* JSONL_KEY bytes are copied from any key's start */
} jsonl_plan;

UTIL_HOT static const struct jsonl_plan *jsonl_plan_for(const struct sink *s)
{
    struct jsonl_plan *pl = &jsonl_plan;
    if (s->nids > METRIC_COUNT)
        return NULL;
    if (sink_plan_current(&pl->ready, &pl->nids, pl->ids, s))
        return pl;
    pl->nrows = 0;
    pl->index = false;
    size_t at = 0;
    for (int i = 0; i < s->nids; i++) {
        const struct metric *m = &metric_table[s->ids[i]];
        pl->index |= m->id == M_INDEX;
        if (m->scope != MS_GPU || m->id == M_INDEX)
            continue;
        size_t len = jsonl_keys[m->id].len;
        if (len > JSONL_KEY || at + len + JSONL_KEY > sizeof pl->keys) {   /* too long: the slow path */
            pl->ready = false;
            return NULL;
        }
        memcpy(pl->keys + at, jsonl_keys[m->id].text, len);
        pl->rows[pl->nrows++] = (struct jsonl_row){(uint16_t)at, (uint8_t)len, (uint8_t)m->kind, (uint8_t)m->id,
                                                   (int8_t)m->decimals};
        at += len;
    }
    return pl;
}

/* A GPU's values after its index, each ,"key":value; true when one of them is an error (or lost), which
 * then has an entry in "errors". The buffer keeps room for a whole key and a number ahead of the
 * writing; strings and what needs printf go through fmt_value. */
UTIL_HOT static bool sink_jsonl_gpu_values(const struct sink *s, const struct record_gpu *rg, struct sbuf *b)
{
    const size_t ahead = JSONL_KEY + FMT_JSON_NUMBER_MAX;
    const struct jsonl_plan *pl = jsonl_plan_for(s);
    const struct value *index = &rg->v[M_INDEX];
    bool errors = false;
    if (!pl) {
        for (int i = 0; i < s->nids; i++) {
            const struct metric *m = &metric_table[s->ids[i]];
            const struct value *v = &rg->v[m->id];
            errors |= m->scope == MS_GPU && (v->state == VS_ERROR || v->state == VS_LOST);
            if (m->scope != MS_GPU || m->id == M_INDEX)
                continue;
            sbuf_putc(b, ',');
            jsonl_key(b, m->id);
            fmt_value(b, m, v, FMT_JSON);
        }
        return errors;
    }
    errors = pl->index && (index->state == VS_ERROR || index->state == VS_LOST);
    if (b->len + ahead + 1 > b->cap)
        sbuf_grow(b, ahead);
    char *p = b->data + b->len, *end = b->data + b->cap - ahead - 1;
    for (const struct jsonl_row *row = pl->rows, *last = pl->rows + pl->nrows; row < last; row++) {
        const struct value *v = &rg->v[row->id];
        memcpy(p, pl->keys + row->key, JSONL_KEY);
        p += row->keylen;
        char *e;
        if (v->state != VS_OK) {
            errors |= v->state == VS_ERROR || v->state == VS_LOST;
            memcpy(p, "null", 4);
            p += 4;
        } else if ((e = fmt_fast(p, (enum metric_kind)row->kind, row->decimals, v, FMT_JSON)) ||
                   (e = fmt_number_at(p, &metric_table[row->id], v, FMT_JSON))) {
            p = e;
        } else {
            b->len = (size_t)(p - b->data);
            fmt_value(b, &metric_table[row->id], v, FMT_JSON);
            p = b->data + b->len;
            end = b->data + b->cap - ahead - 1;   /* it may have grown the buffer */
        }
        if (p > end) {
            b->len = (size_t)(p - b->data);
            sbuf_grow(b, ahead);
            p = b->data + b->len;
            end = b->data + b->cap - ahead - 1;
        }
    }
    b->len = (size_t)(p - b->data);
    b->data[b->len] = '\0';
    return errors;
}

static void sink_jsonl_begin(const struct sink *s, struct sbuf *b)
{
    (void)s;
    (void)b;
}

UTIL_HOT static void sink_jsonl_errors(const struct sink *s, const struct record_gpu *g, struct sbuf *b)
{
    bool any = false;
    for (int i = 0; i < s->nids; i++) {
        const struct metric *m = &metric_table[s->ids[i]];
        const struct value *v = &g->v[m->id];
        if (m->scope != MS_GPU || (v->state != VS_ERROR && v->state != VS_LOST))
            continue;
        sbuf_puts(b, any ? "," : ",\"errors\":{");
        any = true;
        jsonl_key(b, m->id);
        sbuf_puts(b, "{\"code\":");
        sbuf_put_int(b, v->code);
        sbuf_puts(b, ",\"text\":");
        fmt_json_string(b, nvml_code_text(v->code));
        sbuf_putc(b, '}');
    }
    if (any)
        sbuf_putc(b, '}');
}

UTIL_HOT static void sink_jsonl_processes(const struct record_gpu *g, struct sbuf *b)
{
    sbuf_puts(b, ",\"processes\":[");
    for (unsigned p = 0; p < g->nprocs; p++) {
        const struct record_proc *pr = &g->procs[p];
        sbuf_puts(b, p ? ",{\"pid\":" : "{\"pid\":");
        sbuf_put_int(b, pr->pid);
        sbuf_puts(b, ",\"name\":");
        fmt_json_string(b, pr->name);
        const char *who[3][2] = {{",\"user\":", pr->user}, {",\"container\":", pr->container}, {",\"pod\":", pr->pod}};
        for (int k = 0; k < 3; k++) {
            sbuf_puts(b, who[k][0]);
            if (who[k][1][0])
                fmt_json_string(b, who[k][1]);
            else
                sbuf_puts(b, "null");
        }
        if (pr->notebook)
            sbuf_puts(b, ",\"notebook\":true");
        if (pr->server)
            sbuf_puts(b, ",\"server\":true");
        if (pr->used_mib < 0)
            sbuf_puts(b, ",\"used_memory\":null}");
        else {
            sbuf_puts(b, ",\"used_memory\":");
            sbuf_put_int(b, pr->used_mib);
            sbuf_putc(b, '}');
        }
    }
    sbuf_putc(b, ']');
    if (g->procs_omitted) {   /* a capped list says so (processes.count and .used_memory count them all) */
        sbuf_puts(b, ",\"processes_omitted\":");
        sbuf_put_int(b, g->procs_omitted);
    }
}

/* "xids":[{"code":79,"count":1,"last_seen":"..."}], only when any were seen. */
UTIL_HOT static void sink_jsonl_xids(const struct record_gpu *g, struct sbuf *b)
{
    if (g->nxids == 0)
        return;
    sbuf_puts(b, ",\"xids\":[");
    for (unsigned i = 0; i < g->nxids; i++) {
        char ts[32];
        util_rfc3339(&g->xids[i].last, ts);
        sbuf_puts(b, i ? ",{\"code\":" : "{\"code\":");
        sbuf_put_int(b, g->xids[i].code);
        sbuf_puts(b, ",\"count\":");
        sbuf_put_int(b, (long long)g->xids[i].count);
        sbuf_puts(b, ",\"last_seen\":\"");
        sbuf_puts(b, ts);
        sbuf_puts(b, "\"}");
    }
    sbuf_putc(b, ']');
}

static const char *const jsonl_phases[] = {"none", "wait", "compute", "out"};

UTIL_HOT static void jsonl_num(struct sbuf *b, const char *key, double v, int decimals)
{
    sbuf_puts(b, key);
    sbuf_put_fixed(b, v, decimals);
}

/* "steps":[{"pid":..,"rank":..,...,"hist":[[bin,n],...]}], only under gpumon run with reporting processes. */
UTIL_HOT static void sink_jsonl_steps(const struct record *r, struct sbuf *b)
{
    if (r->nranks == 0)
        return;
    sbuf_puts(b, ",\"steps\":[");
    for (unsigned i = 0; i < r->nranks; i++) {
        const struct record_rank *k = &r->ranks[i];
        const int ids[3] = {k->rank, k->local_rank, k->world};
        const char *const names[3] = {",\"rank\":", ",\"local_rank\":", ",\"world_size\":"};
        sbuf_puts(b, i ? ",{\"pid\":" : "{\"pid\":");
        sbuf_put_int(b, k->pid);
        for (int j = 0; j < 3; j++) {
            sbuf_puts(b, names[j]);
            if (ids[j] < 0)
                sbuf_puts(b, "null");
            else
                sbuf_put_int(b, ids[j]);
        }
        sbuf_puts(b, ",\"phase\":\"");
        sbuf_puts(b, jsonl_phases[k->phase < 4 ? k->phase : 0]);
        sbuf_puts(b, "\",\"n\":");
        sbuf_put_int(b, k->steps);
        sbuf_puts(b, ",\"batches\":");
        sbuf_put_int(b, k->batches);
        sbuf_puts(b, ",\"waited\":");
        sbuf_put_int(b, k->waited);
        jsonl_num(b, ",\"step_s\":", k->step_s, 6);
        jsonl_num(b, ",\"wait_s\":", k->wait_s, 6);
        jsonl_num(b, ",\"in_wait_s\":", k->in_wait_s, 6);
        jsonl_num(b, ",\"in_compute_s\":", k->in_compute_s, 6);
        jsonl_num(b, ",\"unwait_s\":", k->unwait_s, 6);
        sbuf_printf(b, ",\"dropped\":%llu,\"bad\":%llu", k->dropped, k->bad);
        sbuf_puts(b, ",\"hist\":[");
        for (unsigned h = 0; h < k->nbins; h++) {
            sbuf_puts(b, h ? ",[" : "[");
            sbuf_put_int(b, k->bins[h].bin);
            sbuf_putc(b, ',');
            sbuf_put_int(b, k->bins[h].n);
            sbuf_putc(b, ']');
        }
        sbuf_puts(b, "]}");
    }
    sbuf_putc(b, ']');
}

UTIL_HOT static void sink_jsonl_record(const struct sink *s, const struct record *r, struct sbuf *b)
{
    char ts[32];
    pthread_once(&jsonl_keys_once, jsonl_keys_build);
    util_rfc3339(&r->time, ts);
    sbuf_puts(b, "{\"timestamp\":\"");
    sbuf_puts(b, ts);
    sbuf_puts(b, "\",\"hostname\":");
    fmt_json_string(b, r->hostname);
    bool first = true;
    for (int i = 0; i < s->nids; i++) {
        const struct metric *m = &metric_table[s->ids[i]];
        if (m->scope != MS_HOST)
            continue;
        sbuf_puts(b, first ? ",\"host\":{" : ",");
        first = false;
        jsonl_key(b, m->id);
        fmt_value(b, m, &r->host[m->id], FMT_JSON);
    }
    if (!first)
        sbuf_putc(b, '}');
    sbuf_puts(b, ",\"gpus\":[");
    for (unsigned g = 0; g < r->ngpus; g++) {
        const struct record_gpu *rg = &r->gpus[g];
        sbuf_puts(b, g ? ",{\"index\":" : "{\"index\":");
        sbuf_put_int(b, rg->index);
        if (sink_jsonl_gpu_values(s, rg, b))
            sink_jsonl_errors(s, rg, b);
        sink_jsonl_xids(rg, b);
        for (unsigned j = 0; j < rg->njobs; j++) {   /* "jobs":["1234"], with a job mapping directory */
            sbuf_puts(b, j ? "," : ",\"jobs\":[");
            fmt_json_string(b, rg->jobs[j]);
        }
        if (rg->njobs)
            sbuf_putc(b, ']');
        if (s->processes)
            sink_jsonl_processes(rg, b);
        sbuf_putc(b, '}');
    }
    sbuf_putc(b, ']');
    sink_jsonl_steps(r, b);
    sbuf_puts(b, "}\n");
}

const struct sink_ops sink_jsonl = {"jsonl", sink_jsonl_begin, sink_jsonl_record};
