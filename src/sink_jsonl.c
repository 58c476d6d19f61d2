/*
 * sink_jsonl.c: JSON Lines, one object per sample:
 *   {"timestamp":"2026-11-29T21:03:04.567Z","hostname":"node1",
 *    "host":{"host.cpu.user":12.5,...},
 *    "gpus":[{"index":0,"name":"NVIDIA H200",...,"errors":{...},"processes":[...]}]}
 * Keys are metric keys; numbers are numbers; anything not available is null,
 * and when NVML gave a reason other than "not supported", "errors" maps the
 * key to it. This is the log format that diagnose and report read back.
 */
#include "fmt.h"
#include "nvml.h"
#include "sink.h"

static void sink_jsonl_begin(const struct sink *s, struct sbuf *b)
{
    (void)s;
    (void)b;
}

static void sink_jsonl_errors(const struct sink *s, const struct record_gpu *g, struct sbuf *b)
{
    bool any = false;
    for (int i = 0; i < s->nids; i++) {
        const struct metric *m = &metric_table[s->ids[i]];
        const struct value *v = &g->v[m->id];
        if (m->scope != MS_GPU || (v->state != VS_ERROR && v->state != VS_LOST))
            continue;
        sbuf_puts(b, any ? "," : ",\"errors\":{");
        any = true;
        fmt_json_string(b, m->key);
        sbuf_putc(b, ':');
        fmt_json_string(b, nvml_error(v->code));
    }
    if (any)
        sbuf_putc(b, '}');
}

static void sink_jsonl_processes(const struct record_gpu *g, struct sbuf *b)
{
    sbuf_puts(b, ",\"processes\":[");
    for (unsigned p = 0; p < g->nprocs; p++) {
        const struct record_proc *pr = &g->procs[p];
        sbuf_printf(b, "%s{\"pid\":%u,\"name\":", p ? "," : "", pr->pid);
        fmt_json_string(b, pr->name);
        if (pr->used_mib < 0)
            sbuf_puts(b, ",\"used_memory\":null}");
        else
            sbuf_printf(b, ",\"used_memory\":%lld}", pr->used_mib);
    }
    sbuf_putc(b, ']');
}

static void sink_jsonl_record(const struct sink *s, const struct record *r, struct sbuf *b)
{
    char ts[32];
    util_rfc3339(&r->time, ts);
    sbuf_printf(b, "{\"timestamp\":\"%s\",\"hostname\":", ts);
    fmt_json_string(b, r->hostname);
    bool first = true;
    for (int i = 0; i < s->nids; i++) {
        const struct metric *m = &metric_table[s->ids[i]];
        if (m->scope != MS_HOST)
            continue;
        sbuf_puts(b, first ? ",\"host\":{" : ",");
        first = false;
        fmt_json_string(b, m->key);
        sbuf_putc(b, ':');
        fmt_value(b, m, &r->host[m->id], FMT_JSON);
    }
    if (!first)
        sbuf_putc(b, '}');
    sbuf_puts(b, ",\"gpus\":[");
    for (unsigned g = 0; g < r->ngpus; g++) {
        const struct record_gpu *rg = &r->gpus[g];
        sbuf_printf(b, "%s{\"index\":%u", g ? "," : "", rg->index);
        for (int i = 0; i < s->nids; i++) {
            const struct metric *m = &metric_table[s->ids[i]];
            if (m->scope != MS_GPU || m->id == M_INDEX)
                continue;
            sbuf_putc(b, ',');
            fmt_json_string(b, m->key);
            sbuf_putc(b, ':');
            fmt_value(b, m, &rg->v[m->id], FMT_JSON);
        }
        sink_jsonl_errors(s, rg, b);
        if (s->processes)
            sink_jsonl_processes(rg, b);
        sbuf_putc(b, '}');
    }
    sbuf_puts(b, "]}\n");
}

const struct sink_ops sink_jsonl = {"jsonl", sink_jsonl_begin, sink_jsonl_record};
