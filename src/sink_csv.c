/*
 * sink_csv.c: CSV, one row per GPU per sample. Columns: timestamp, hostname,
 * then the selected metric keys in order (host metrics repeat on each GPU's
 * row). Values not available print as nvidia-smi-style markers such as
 * [Not Supported], never as 0. A sample of a node without GPUs prints no row.
 */
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

static void sink_csv_record(const struct sink *s, const struct record *r, struct sbuf *b)
{
    char ts[32];
    util_rfc3339(&r->time, ts);
    for (unsigned g = 0; g < r->ngpus; g++) {
        sbuf_puts(b, ts);
        sbuf_putc(b, ',');
        fmt_csv_field(b, r->hostname);
        for (int i = 0; i < s->nids; i++) {
            const struct metric *m = &metric_table[s->ids[i]];
            sbuf_putc(b, ',');
            fmt_value(b, m, m->scope == MS_HOST ? &r->host[m->id] : &r->gpus[g].v[m->id], FMT_CSV);
        }
        sbuf_putc(b, '\n');
    }
}

const struct sink_ops sink_csv = {"csv", sink_csv_begin, sink_csv_record};
