/*
 * sink_text.c: the human-readable block, one per sample: a header line with
 * the time, host name and host CPU and memory, then one line per GPU, its
 * columns aligned from GPU to GPU. Two layouts of the same figures:
 *  - full (not a terminal: logs; or a terminal wide enough for its lines):
 *    name, utilization with the range of the driver's sub-second samples,
 *    SM and tensor activity (GPM, where some GPU of the record has it),
 *    memory used/total and percent, temperature, power against its limit,
 *    SM clock, P-state and active clock event reasons;
 *  - compact (a terminal narrower than the full lines): the same in at most
 *    80 columns, under a line of column heads, so 8 GPUs take 8 lines, not 17.
 * A lost GPU says LOST. With --fields, each line lists key=value pairs of
 * the chosen metrics instead. Missing values use fmt.c's brief markers.
 * On a terminal nothing wraps: a line wider than it is cut at its width
 * (compact lines on a terminal under 80 columns), and --fields pairs go on
 * indented lines of their own.
 */
#include <string.h>
#include "fmt.h"
#include "sink.h"


static void sink_text_begin(const struct sink *s, struct sbuf *b)
{
    (void)s;
    (void)b;
}

/* A value in fmt (its unit inside), or the brief marker right-aligned in
 * width columns so that columns stay aligned. */
static void text_val(struct sbuf *b, const struct value *v, const char *fmt, bool is_float, int width)
{
    if (v->state == VS_OK) {
        if (is_float)
            sbuf_printf(b, fmt, v->u.f);
        else
            sbuf_printf(b, fmt, v->u.i);
    } else {
        char tmp[32];
        sbuf_printf(b, "%*s", width, fmt_marker(v, FMT_MARK_BRIEF, tmp, sizeof tmp));
    }
}

static bool text_lost(const struct value *v)
{
    return metric_gpu_lost(v);
}

/* Active clock event reasons but idle, comma-separated after lead. */
static void text_reasons(struct sbuf *b, const struct value *v, const char *lead)
{
    bool first = true;
    for (int i = 0; i < CLOCK_REASON_COUNT; i++) {
        const struct value *r = &v[metric_reason_id((enum clock_reason_id)i)];
        if (r->state == VS_OK && r->u.i && i != CR_IDLE) {
            sbuf_printf(b, "%s%s", first ? lead : ",", clock_reasons[i].label);
            first = false;
        }
    }
}

static double text_mem_share(const struct value *v)
{
    if (v[M_MEM_USED].state != VS_OK || v[M_MEM_TOTAL].state != VS_OK || v[M_MEM_TOTAL].u.i <= 0)
        return -1;
    return 100.0 * (double)v[M_MEM_USED].u.i / (double)v[M_MEM_TOTAL].u.i;
}

/* GPM's SM and tensor activity get columns when some GPU of the record has them (Hopper and newer). */
static bool text_gpm_shown(const struct record *r)
{
    for (unsigned g = 0; g < r->ngpus; g++)
        if (r->gpus[g].v[M_GPM_SM_ACTIVE].state == VS_OK)
            return true;
    return false;
}

static void sink_text_gpu_full(const struct record_gpu *g, bool gpm, struct sbuf *b)
{
    const struct value *v = g->v;
    sbuf_printf(b, "  GPU %-2u ", g->index);
    sbuf_printf(b, "%-24.24s", v[M_NAME].state == VS_OK ? v[M_NAME].u.s : "");
    if (text_lost(v)) {
        sbuf_puts(b, "  LOST (fell off the bus or needs a reset)\n");
        return;
    }
    sbuf_puts(b, "  util ");
    text_val(b, &v[M_UTIL_GPU], "%3lld%%", false, 4);
    if (v[M_UTIL_MIN].state == VS_OK && v[M_UTIL_MAX].state == VS_OK)
        sbuf_printf(b, " [%3lld-%3lld]", v[M_UTIL_MIN].u.i, v[M_UTIL_MAX].u.i);
    else
        sbuf_puts(b, "          ");
    if (gpm) {
        sbuf_puts(b, "  sm active ");
        text_val(b, &v[M_GPM_SM_ACTIVE], "%3.0f%%", true, 4);
        sbuf_puts(b, " tensor ");
        text_val(b, &v[M_GPM_TENSOR_ACTIVE], "%3.0f%%", true, 4);
    }
    sbuf_puts(b, "  mem ");
    text_val(b, &v[M_MEM_USED], "%6lld", false, 6);
    sbuf_putc(b, '/');
    text_val(b, &v[M_MEM_TOTAL], "%-6lld", false, -6);
    sbuf_puts(b, " MiB ");
    double share = text_mem_share(v);
    if (share >= 0)
        sbuf_printf(b, "%5.1f%%", share);
    else
        sbuf_puts(b, "      ");
    sbuf_puts(b, "  temp ");
    text_val(b, &v[M_TEMP], "%3lld C", false, 5);
    sbuf_puts(b, "  power ");
    text_val(b, &v[M_POWER], "%7.2f", true, 7);
    sbuf_putc(b, '/');
    text_val(b, &v[M_POWER_ENFORCED], "%-7.2f", true, -7);
    sbuf_puts(b, " W  sm ");
    text_val(b, &v[M_CLOCK_SM], "%4lld MHz", false, 8);
    sbuf_puts(b, "  ");
    if (v[M_PSTATE].state == VS_OK)
        sbuf_printf(b, "P%-2lld", v[M_PSTATE].u.i);
    else
        sbuf_puts(b, "   ");
    text_reasons(b, v, "  throttled: ");
    while (b->len && b->data[b->len - 1] == ' ')
        b->data[--b->len] = '\0';
    sbuf_putc(b, '\n');
}

/* The product name without "NVIDIA ", for narrow columns. */
static const char *text_short_name(const struct value *v)
{
    if (v[M_NAME].state != VS_OK)
        return "";
    const char *n = v[M_NAME].u.s;
    return strncmp(n, "NVIDIA ", 7) ? n : n + 7;
}

static void sink_text_gpu_compact(const struct record_gpu *g, bool gpm, struct sbuf *b)
{
    const struct value *v = g->v;
    sbuf_printf(b, "%3u %-14.14s", g->index, text_short_name(v));
    if (text_lost(v)) {
        sbuf_puts(b, " LOST (fell off the bus or needs a reset)\n");
        return;
    }
    text_val(b, &v[M_UTIL_GPU], " %3lld%%", false, 5);
    if (v[M_UTIL_MIN].state == VS_OK && v[M_UTIL_MAX].state == VS_OK)
        sbuf_printf(b, " %3lld-%-3lld", v[M_UTIL_MIN].u.i, v[M_UTIL_MAX].u.i);
    else
        sbuf_puts(b, "        ");
    if (gpm) {
        text_val(b, &v[M_GPM_SM_ACTIVE], " %3.0f", true, 4);
        sbuf_putc(b, '/');
        text_val(b, &v[M_GPM_TENSOR_ACTIVE], "%-2.0f", true, -2);   /* 100% tensor (never seen) takes one more */
    }
    double share = text_mem_share(v);
    if (share >= 0)
        sbuf_printf(b, " %5.1f%%", share);
    else
        sbuf_puts(b, "    n/a");
    text_val(b, &v[M_TEMP], " %3lldC", false, 5);
    text_val(b, &v[M_POWER], " %4.0f", true, 5);
    sbuf_putc(b, '/');
    text_val(b, &v[M_POWER_ENFORCED], "%-4.0fW", true, -5);
    text_val(b, &v[M_CLOCK_SM], " %4lld", false, 5);
    if (v[M_PSTATE].state == VS_OK)
        sbuf_printf(b, " P%-2lld", v[M_PSTATE].u.i);
    else
        sbuf_puts(b, "    ");
    text_reasons(b, v, " ");
    while (b->len && b->data[b->len - 1] == ' ')
        b->data[--b->len] = '\0';
    sbuf_putc(b, '\n');
}

static void text_pair(struct sbuf *b, const struct metric *m, const struct value *v)
{
    sbuf_printf(b, "  %s=", m->key);
    fmt_value(b, m, v, FMT_TEXT);
    if (v->state == VS_OK && *m->unit)
        sbuf_printf(b, " %s", m->unit);
}

/* The host's CPU and memory; compact: shorter words, for 80 columns. */
static void sink_text_host(const struct record *r, bool compact, struct sbuf *b)
{
    const struct value *h = r->host;
    static const char *const words[2][4] = {{"  cpu usr ", " sys ", " iowait ", "  mem "},
                                            {"  cpu usr ", " sys ", " io ", "  mem "}};
    const char *const *w = words[compact];
    sbuf_puts(b, w[0]);
    text_val(b, &h[M_HOST_USER], "%.1f%%", true, 0);
    sbuf_puts(b, w[1]);
    text_val(b, &h[M_HOST_SYSTEM], "%.1f%%", true, 0);
    sbuf_puts(b, w[2]);
    text_val(b, &h[M_HOST_IOWAIT], "%.1f%%", true, 0);
    sbuf_puts(b, w[3]);
    text_val(b, &h[M_HOST_MEM_USED], "%lld", false, 0);
    sbuf_putc(b, '/');
    text_val(b, &h[M_HOST_MEM_TOTAL], "%lld", false, 0);
    sbuf_puts(b, " MiB");
}

/* The columns of the widest line of b from start on (UTF-8: a character is one column). */
static int text_widest(const struct sbuf *b, size_t start)
{
    int widest = 0, col = 0;
    for (size_t i = start; i < b->len; i++) {
        unsigned char c = (unsigned char)b->data[i];
        if (c == '\n')
            col = 0;
        else if ((c & 0xC0) != 0x80 && ++col > widest)
            widest = col;
    }
    return widest;
}

/* Fits the lines of b from start on into width columns: a line of
 * key=value pairs is broken between pairs (the rest indented), any other
 * line is cut at the width. */
static void text_fit(struct sbuf *b, size_t start, int width, bool pairs)
{
    struct sbuf out;
    sbuf_init(&out);
    for (size_t i = start; i < b->len;) {
        size_t end = i;
        while (end < b->len && b->data[end] != '\n')
            end++;
        int col = 0;
        size_t cut = i, brk = 0;
        for (size_t k = i; k < end; k++) {
            unsigned char c = (unsigned char)b->data[k];
            if (pairs && k > i + 4 && c == ' ' && b->data[k + 1] == ' ' && b->data[k - 1] != ' ')
                brk = k;   /* between two pairs */
            if ((c & 0xC0) != 0x80 && ++col > width) {
                if (pairs && brk) {   /* the pairs from brk on go to a line of their own */
                    sbuf_add(&out, b->data + i, brk - i);
                    sbuf_puts(&out, "\n    ");
                    i = brk + 2;
                    k = i - 1;
                    col = 4;
                    brk = 0;
                    continue;
                }
                break;
            }
            cut = k + 1;
        }
        sbuf_add(&out, b->data + i, (col > width ? cut : end) - i);
        sbuf_putc(&out, '\n');
        i = end + 1;
    }
    b->len = start;
    sbuf_add(b, out.data ? out.data : "", out.len);
    sbuf_free(&out);
}

static void sink_text_render(const struct sink *s, const struct record *r, bool compact, struct sbuf *b);

static void sink_text_record(const struct sink *s, const struct record *r, struct sbuf *b)
{
    size_t start = b->len;
    sink_text_render(s, r, false, b);
    if (s->width <= 0)
        return;   /* a file or a pipe: the full layout, whole */
    if (!s->custom_fields && text_widest(b, start) > s->width) {
        b->len = start;
        sink_text_render(s, r, true, b);
    }
    if (text_widest(b, start) > s->width)
        text_fit(b, start, s->width, s->custom_fields);
}

static void sink_text_render(const struct sink *s, const struct record *r, bool compact, struct sbuf *b)
{
    char ts[32];
    compact = compact && !s->custom_fields;
    util_rfc3339(&r->time, ts);
    sbuf_printf(b, "%s  %.*s", ts, compact ? 16 : 255, r->hostname);
    if (s->custom_fields) {
        for (int i = 0; i < s->nids; i++)
            if (metric_table[s->ids[i]].scope == MS_HOST)
                text_pair(b, &metric_table[s->ids[i]], &r->host[s->ids[i]]);
    } else {
        sink_text_host(r, compact, b);
    }
    sbuf_putc(b, '\n');
    if (r->ngpus == 0)
        sbuf_puts(b, "  (no GPU)\n");
    bool gpm = !s->custom_fields && text_gpm_shown(r);
    if (r->ngpus && compact)   /* the widths of sink_text_gpu_compact */
        sbuf_printf(b, "%3s %-14s %4s %-7s%s %6s %4s %10s %4s %-3s %s\n", "GPU", "NAME", "UTIL", "RANGE",
                    gpm ? " SM/TC " : "", "MEM", "TEMP", "POWER", "SM", "P", "THROTTLED");
    for (unsigned g = 0; g < r->ngpus; g++) {
        if (compact) {
            sink_text_gpu_compact(&r->gpus[g], gpm, b);
            continue;
        }
        if (!s->custom_fields) {
            sink_text_gpu_full(&r->gpus[g], gpm, b);
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
