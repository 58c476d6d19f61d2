/*
 * sink_csv.c: CSV, one row per GPU per sample. Columns: timestamp, hostname,
 * then the selected metric keys in order (host metrics repeat on each GPU's
 * row). Values not available print as nvidia-smi-style markers such as
 * [Not Supported], never as 0. A sample of a node without GPUs prints no row.
 */
#include <stdint.h>
#include <string.h>
#include "fmt.h"
#include "sink.h"

static void sink_csv_begin(const struct sink *s, struct sbuf *b)
{
    sbuf_puts(b, "timestamp,hostname");
    for (int i = 0; i < s->nids; i++) {
        sbuf_putc(b, ',');
        fmt_csv_field(b, metric_table[s->ids[i]].key);
    }
    sbuf_putc(b, '\n');
}

/* The columns of one list of ids (a sink's), worked out once per thread and list: each one's metric,
 * kind, decimals and scope. */
struct csv_col {
    uint8_t id, kind, host;
    int8_t decimals;
};
_Static_assert(METRIC_COUNT <= 255, "a column's id fits a byte");
static _Thread_local struct csv_plan {
    bool ready;                            /* zero: none (in .tbss) */
    int nids;
    enum metric_id ids[RECORD_MAX_METRICS];
    struct csv_col cols[RECORD_MAX_METRICS];
} csv_plan;

UTIL_HOT static const struct csv_plan *csv_plan_for(const struct sink *s)
{
    struct csv_plan *pl = &csv_plan;
    if (s->nids > RECORD_MAX_METRICS)
        return NULL;
    if (sink_plan_current(&pl->ready, &pl->nids, pl->ids, s))
        return pl;
    for (int i = 0; i < s->nids; i++) {
        const struct metric *m = &metric_table[s->ids[i]];
        pl->cols[i] = (struct csv_col){(uint8_t)m->id, (uint8_t)m->kind, m->scope == MS_HOST, (int8_t)m->decimals};
    }
    return pl;
}

/* One cell at b's end, its comma first: numbers and markers written in place, strings quoted as needed. */
UTIL_HOT static void csv_cell(struct sbuf *b, const struct metric *m, const struct value *v)
{
    if (b->len + FMT_NUMBER_MAX + 2 > b->cap)
        sbuf_grow(b, FMT_NUMBER_MAX + 1);
    b->data[b->len] = ',';
    char *end = v->state == VS_OK ? fmt_fast(b->data + b->len + 1, m->kind, m->decimals, v, FMT_CSV) : NULL;
    if (!end)
        end = fmt_number_at(b->data + b->len + 1, m, v, FMT_CSV);
    if (end) {
        b->len = (size_t)(end - b->data);
        b->data[b->len] = '\0';
        return;
    }
    b->len++;
    fmt_value(b, m, v, FMT_CSV);
}

/* The cells of columns [from, to) of one row, the comma before each. */
UTIL_HOT static void csv_cells(const struct csv_plan *pl, int from, int to, const struct value *gpu,
                      const struct value *host, struct sbuf *b)
{
    const size_t ahead = FMT_NUMBER_MAX + 2;
    if (b->len + ahead > b->cap)
        sbuf_grow(b, ahead);
    char *p = b->data + b->len, *end = b->data + b->cap - ahead;
    for (int i = from; i < to; i++) {
        const struct csv_col *c = &pl->cols[i];
        const struct value *v = c->host ? &host[c->id] : &gpu[c->id];
        char *e = NULL;
        *p = ',';
        if (v->state == VS_OK)
            e = fmt_fast(p + 1, (enum metric_kind)c->kind, c->decimals, v, FMT_CSV);
        if (!e) {
            b->len = (size_t)(p - b->data);
            csv_cell(b, &metric_table[c->id], v);
            e = b->data + b->len;
            end = b->data + b->cap - ahead;   /* it may have grown the buffer */
        }
        p = e;
        if (p > end) {
            b->len = (size_t)(p - b->data);
            sbuf_grow(b, ahead);
            p = b->data + b->len;
            end = b->data + b->cap - ahead;
        }
    }
    b->len = (size_t)(p - b->data);
    b->data[b->len] = '\0';
}

UTIL_HOT static void sink_csv_record(const struct sink *s, const struct record *r, struct sbuf *b)
{
    char ts[32];
    const struct csv_plan *pl = csv_plan_for(s);
    util_rfc3339(&r->time, ts);
    /* The first row's timestamp, host name and host cells, which every row repeats, are copied from it:
     * a run of host columns as one span (host[i]: the span of the run that starts at column i). */
    size_t first = b->len, lead = 0, host[RECORD_MAX_METRICS][2];
    for (unsigned g = 0; g < r->ngpus; g++) {
        size_t row = b->len;
        if (g == 0) {
            sbuf_puts(b, ts);
            sbuf_putc(b, ',');
            fmt_csv_field(b, r->hostname);
            lead = b->len - row;
        } else {
            if (b->len + lead + 1 > b->cap)
                sbuf_grow(b, lead);   /* before the source is taken: growing moves the buffer */
            sbuf_add(b, b->data + first, lead);
        }
        if (!pl) {   /* a list longer than any plan: cell by cell */
            for (int i = 0; i < s->nids; i++) {
                const struct metric *m = &metric_table[s->ids[i]];
                csv_cell(b, m, m->scope == MS_HOST ? &r->host[m->id] : &r->gpus[g].v[m->id]);
            }
            sbuf_putc(b, '\n');
            continue;
        }
        for (int i = 0; i < s->nids;) {
            int j = i;
            while (j < s->nids && pl->cols[j].host == pl->cols[i].host)
                j++;   /* [i, j): a run of GPU columns, or of host columns */
            if (!pl->cols[i].host || g == 0) {
                size_t at = b->len;
                csv_cells(pl, i, j, r->gpus[g].v, r->host, b);
                host[i][0] = at - first, host[i][1] = b->len - at;
            } else {
                size_t n = host[i][1];
                if (b->len + n + 1 > b->cap)
                    sbuf_grow(b, n);   /* as above */
                memcpy(b->data + b->len, b->data + first + host[i][0], n);
                b->len += n;
                b->data[b->len] = '\0';
            }
            i = j;
        }
        sbuf_putc(b, '\n');
    }
}

const struct sink_ops sink_csv = {"csv", sink_csv_begin, sink_csv_record};
