/*
 * sink_text.c: the human-readable block, one per sample: a header line with
 * the time, host name and host CPU and memory, then one line per GPU with
 * utilization (and the range of the driver's sub-second samples), memory
 * used/total and percent, temperature, power against its limit, SM clock,
 * P-state and active clock event reasons. A lost GPU says LOST. With
 * --fields, each line lists key=value pairs of the chosen metrics instead.
 */
#include <string.h>
#include "fmt.h"
#include "sink.h"

static void sink_text_begin(const struct sink *s, struct sbuf *b)
{
    (void)s;
    (void)b;
}

/* A value in fmt (its unit inside, so a marker goes without it), or a
 * short marker. */
static void text_val(struct sbuf *b, const struct value *v, const char *fmt, bool is_float)
{
    if (v->state == VS_OK) {
        if (is_float)
            sbuf_printf(b, fmt, v->u.f);
        else
            sbuf_printf(b, fmt, v->u.i);
    } else {
        char tmp[32];
        sbuf_puts(b, fmt_marker(v, FMT_MARK_BRIEF, tmp, sizeof tmp));
    }
}

static void sink_text_gpu_default(const struct record_gpu *g, struct sbuf *b)
{
    const struct value *v = g->v;
    sbuf_printf(b, "  GPU %u  ", g->index);
    if (v[M_NAME].state == VS_OK)
        sbuf_printf(b, "%-24s", v[M_NAME].u.s);
    if (v[M_STATE].state == VS_OK && !strcmp(v[M_STATE].u.s, "lost")) {
        sbuf_puts(b, "  LOST (fell off the bus or needs a reset)\n");
        return;
    }
    sbuf_puts(b, "  util ");
    text_val(b, &v[M_UTIL_GPU], "%3lld%%", false);
    if (v[M_UTIL_MIN].state == VS_OK && v[M_UTIL_MAX].state == VS_OK)
        sbuf_printf(b, " [%lld-%lld]", v[M_UTIL_MIN].u.i, v[M_UTIL_MAX].u.i);
    sbuf_puts(b, "  mem ");
    text_val(b, &v[M_MEM_USED], "%lld", false);
    sbuf_putc(b, '/');
    text_val(b, &v[M_MEM_TOTAL], "%lld", false);
    sbuf_puts(b, " MiB");
    if (v[M_MEM_USED].state == VS_OK && v[M_MEM_TOTAL].state == VS_OK && v[M_MEM_TOTAL].u.i > 0)
        sbuf_printf(b, " %5.1f%%", 100.0 * (double)v[M_MEM_USED].u.i / (double)v[M_MEM_TOTAL].u.i);
    sbuf_puts(b, "  temp ");
    text_val(b, &v[M_TEMP], "%lld C", false);
    sbuf_puts(b, "  power ");
    text_val(b, &v[M_POWER], "%.2f", true);
    sbuf_putc(b, '/');
    text_val(b, &v[M_POWER_ENFORCED], "%.2f", true);
    sbuf_puts(b, " W  sm ");
    text_val(b, &v[M_CLOCK_SM], "%lld MHz", false);
    sbuf_puts(b, "  ");
    if (v[M_PSTATE].state == VS_OK)
        sbuf_printf(b, "P%lld", v[M_PSTATE].u.i);
    bool first = true;
    for (int i = 0; i < CLOCK_REASON_COUNT; i++) {
        const struct value *r = &v[metric_reason_id((enum clock_reason_id)i)];
        if (r->state == VS_OK && r->u.i && i != CR_IDLE) {
            sbuf_printf(b, "%s%s", first ? "  throttled: " : ",", clock_reasons[i].label);
            first = false;
        }
    }
    sbuf_putc(b, '\n');
}

static void text_pair(struct sbuf *b, const struct metric *m, const struct value *v)
{
    sbuf_printf(b, "  %s=", m->key);
    fmt_value(b, m, v, FMT_TEXT);
    if (v->state == VS_OK && *m->unit)
        sbuf_printf(b, " %s", m->unit);
}

static void sink_text_record(const struct sink *s, const struct record *r, struct sbuf *b)
{
    char ts[32];
    util_rfc3339(&r->time, ts);
    sbuf_printf(b, "%s  %s", ts, r->hostname);
    if (s->custom_fields) {
        for (int i = 0; i < s->nids; i++)
            if (metric_table[s->ids[i]].scope == MS_HOST)
                text_pair(b, &metric_table[s->ids[i]], &r->host[s->ids[i]]);
    } else {
        const struct value *h = r->host;
        sbuf_puts(b, "  cpu usr ");
        text_val(b, &h[M_HOST_USER], "%.1f%%", true);
        sbuf_puts(b, " sys ");
        text_val(b, &h[M_HOST_SYSTEM], "%.1f%%", true);
        sbuf_puts(b, " iowait ");
        text_val(b, &h[M_HOST_IOWAIT], "%.1f%%", true);
        sbuf_puts(b, "  mem ");
        text_val(b, &h[M_HOST_MEM_USED], "%lld", false);
        sbuf_putc(b, '/');
        text_val(b, &h[M_HOST_MEM_TOTAL], "%lld", false);
        sbuf_puts(b, " MiB");
    }
    sbuf_putc(b, '\n');
    if (r->ngpus == 0)
        sbuf_puts(b, "  (no GPU)\n");
    for (unsigned g = 0; g < r->ngpus; g++) {
        if (!s->custom_fields) {
            sink_text_gpu_default(&r->gpus[g], b);
            continue;
        }
        sbuf_printf(b, "  GPU %u", r->gpus[g].index);
        for (int i = 0; i < s->nids; i++)
            if (metric_table[s->ids[i]].scope == MS_GPU)
                text_pair(b, &metric_table[s->ids[i]], &r->gpus[g].v[s->ids[i]]);
        sbuf_putc(b, '\n');
    }
}

const struct sink_ops sink_text = {"text", sink_text_begin, sink_text_record};
