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
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "sink.h"


static void sink_text_begin(const struct sink *s, struct sbuf *b)
{
    (void)s;
    (void)b;
}

/* Appends n bytes of t padded to width columns as printf's "%*s" pads: right-aligned, or left-aligned
 * for a negative width. */
UTIL_HOT static void text_pad(struct sbuf *b, const char *t, size_t n, int width)
{
    size_t w = (size_t)(width < 0 ? -width : width), pad = w > n ? w - n : 0;
    if (b->len + n + pad + 1 > b->cap)
        sbuf_grow(b, n + pad);
    char *p = b->data + b->len;
    if (width > 0) {
        memset(p, ' ', pad);
        p += pad;
    }
    memcpy(p, t, n);
    p += n;
    if (width < 0) {
        memset(p, ' ', pad);
        p += pad;
    }
    b->len = (size_t)(p - b->data);
    b->data[b->len] = '\0';
}

/* A number as printf writes it with a width: "%*lld" (decimals < 0) or "%*.*f" (without printf where
 * util_fmt_fixed can). */
UTIL_HOT static void text_number(struct sbuf *b, const struct value *v, int decimals, int width)
{
    char t[400];
    size_t n;
    if (decimals < 0)
        n = util_fmt_int(t, v->u.i);
    else if (!(n = util_fmt_fixed(t, v->u.f, decimals)))
        n = (size_t)snprintf(t, sizeof t, "%.*f", decimals, v->u.f);
    text_pad(b, t, n < sizeof t ? n : sizeof t - 1, width);
}

/* A string cut to prec bytes and padded to width, as printf's "%-*.*s". */
UTIL_HOT static void text_str(struct sbuf *b, const char *s, int prec, int width)
{
    text_pad(b, s, strnlen(s, (size_t)prec), width);
}

/* A value as pre, the number (decimals < 0: an integer) in width columns, post; or the brief marker
 * right-aligned in marker columns, so that columns stay aligned. */
UTIL_HOT static void text_val(struct sbuf *b, const struct value *v, const char *pre, int width, int decimals, const char *post,
                     int marker)
{
    if (v->state == VS_OK) {
        sbuf_puts(b, pre);
        text_number(b, v, decimals, width);
        sbuf_puts(b, post);
    } else {
        char tmp[32];
        const char *m = fmt_marker(v, FMT_MARK_BRIEF, tmp, sizeof tmp);
        text_pad(b, m, strlen(m), marker);
    }
}

UTIL_HOT static void text_int(struct sbuf *b, long long i, int width)
{
    struct value v = {.state = VS_OK, .u.i = i};
    text_number(b, &v, -1, width);
}

UTIL_HOT static bool text_lost(const struct value *v)
{
    return metric_gpu_lost(v);
}

/* Active clock event reasons but idle, comma-separated after lead. */
UTIL_HOT static void text_reasons(struct sbuf *b, const struct value *v, const char *lead)
{
    bool first = true;
    for (int i = 0; i < CLOCK_REASON_COUNT; i++) {
        const struct value *r = &v[metric_reason_id((enum clock_reason_id)i)];
        if (r->state == VS_OK && r->u.i && i != CR_IDLE) {
            sbuf_puts(b, first ? lead : ",");
            sbuf_puts(b, clock_reasons[i].label);
            first = false;
        }
    }
}

UTIL_HOT static double text_mem_share(const struct value *v)
{
    if (v[M_MEM_USED].state != VS_OK || v[M_MEM_TOTAL].state != VS_OK || v[M_MEM_TOTAL].u.i <= 0)
        return -1;
    return 100.0 * (double)v[M_MEM_USED].u.i / (double)v[M_MEM_TOTAL].u.i;
}

/* GPM's SM and tensor activity get columns when some GPU of the record has them (Hopper and newer). */
UTIL_HOT static bool text_gpm_shown(const struct record *r)
{
    for (unsigned g = 0; g < r->ngpus; g++)
        if (r->gpus[g].v[M_GPM_SM_ACTIVE].state == VS_OK)
            return true;
    return false;
}

UTIL_HOT static void sink_text_gpu_full(const struct record_gpu *g, bool gpm, struct sbuf *b)
{
    const struct value *v = g->v;
    sbuf_puts(b, "  GPU ");
    text_int(b, g->index, -2);
    sbuf_putc(b, ' ');
    text_str(b, v[M_NAME].state == VS_OK ? v[M_NAME].u.s : "", 24, -24);
    if (text_lost(v)) {
        sbuf_puts(b, "  LOST (fell off the bus or needs a reset)\n");
        return;
    }
    sbuf_puts(b, "  util ");
    text_val(b, &v[M_UTIL_GPU], "", 3, -1, "%", 4);
    if (v[M_UTIL_MIN].state == VS_OK && v[M_UTIL_MAX].state == VS_OK) {
        sbuf_puts(b, " [");
        text_int(b, v[M_UTIL_MIN].u.i, 3);
        sbuf_putc(b, '-');
        text_int(b, v[M_UTIL_MAX].u.i, 3);
        sbuf_putc(b, ']');
    } else {
        sbuf_puts(b, "          ");
    }
    if (gpm) {
        sbuf_puts(b, "  sm active ");
        text_val(b, &v[M_GPM_SM_ACTIVE], "", 3, 0, "%", 4);
        sbuf_puts(b, " tensor ");
        text_val(b, &v[M_GPM_TENSOR_ACTIVE], "", 3, 0, "%", 4);
    }
    sbuf_puts(b, "  mem ");
    text_val(b, &v[M_MEM_USED], "", 6, -1, "", 6);
    sbuf_putc(b, '/');
    text_val(b, &v[M_MEM_TOTAL], "", -6, -1, "", -6);
    sbuf_puts(b, " MiB ");
    struct value share = {.state = VS_OK, .u.f = text_mem_share(v)};
    if (share.u.f >= 0) {
        text_number(b, &share, 1, 5);
        sbuf_putc(b, '%');
    } else {
        sbuf_puts(b, "      ");
    }
    sbuf_puts(b, "  temp ");
    text_val(b, &v[M_TEMP], "", 3, -1, " C", 5);
    sbuf_puts(b, "  power ");
    text_val(b, &v[M_POWER], "", 7, 2, "", 7);
    sbuf_putc(b, '/');
    text_val(b, &v[M_POWER_ENFORCED], "", -7, 2, "", -7);
    sbuf_puts(b, " W  sm ");
    text_val(b, &v[M_CLOCK_SM], "", 4, -1, " MHz", 8);
    sbuf_puts(b, "  ");
    if (v[M_PSTATE].state == VS_OK) {
        sbuf_putc(b, 'P');
        text_int(b, v[M_PSTATE].u.i, -2);
    } else {
        sbuf_puts(b, "   ");
    }
    text_reasons(b, v, "  throttled: ");
    while (b->len && b->data[b->len - 1] == ' ')
        b->data[--b->len] = '\0';
    sbuf_putc(b, '\n');
}

/* The product name without "NVIDIA ", for narrow columns. */
UTIL_HOT static const char *text_short_name(const struct value *v)
{
    if (v[M_NAME].state != VS_OK)
        return "";
    const char *n = v[M_NAME].u.s;
    return strncmp(n, "NVIDIA ", 7) ? n : n + 7;
}

UTIL_HOT static void sink_text_gpu_compact(const struct record_gpu *g, bool gpm, struct sbuf *b)
{
    const struct value *v = g->v;
    text_int(b, g->index, 3);
    sbuf_putc(b, ' ');
    text_str(b, text_short_name(v), 14, -14);
    if (text_lost(v)) {
        sbuf_puts(b, " LOST (fell off the bus or needs a reset)\n");
        return;
    }
    text_val(b, &v[M_UTIL_GPU], " ", 3, -1, "%", 5);
    if (v[M_UTIL_MIN].state == VS_OK && v[M_UTIL_MAX].state == VS_OK) {
        sbuf_putc(b, ' ');
        text_int(b, v[M_UTIL_MIN].u.i, 3);
        sbuf_putc(b, '-');
        text_int(b, v[M_UTIL_MAX].u.i, -3);
    } else {
        sbuf_puts(b, "        ");
    }
    if (gpm) {
        text_val(b, &v[M_GPM_SM_ACTIVE], " ", 3, 0, "", 4);
        sbuf_putc(b, '/');
        text_val(b, &v[M_GPM_TENSOR_ACTIVE], "", -2, 0, "", -2);   /* 100% tensor (never seen) takes one more */
    }
    struct value share = {.state = VS_OK, .u.f = text_mem_share(v)};
    if (share.u.f >= 0) {
        sbuf_putc(b, ' ');
        text_number(b, &share, 1, 5);
        sbuf_putc(b, '%');
    } else {
        sbuf_puts(b, "    n/a");
    }
    text_val(b, &v[M_TEMP], " ", 3, -1, "C", 5);
    text_val(b, &v[M_POWER], " ", 4, 0, "", 5);
    sbuf_putc(b, '/');
    text_val(b, &v[M_POWER_ENFORCED], "", -4, 0, "W", -5);
    text_val(b, &v[M_CLOCK_SM], " ", 4, -1, "", 5);
    if (v[M_PSTATE].state == VS_OK) {
        sbuf_puts(b, " P");
        text_int(b, v[M_PSTATE].u.i, -2);
    } else {
        sbuf_puts(b, "    ");
    }
    text_reasons(b, v, " ");
    while (b->len && b->data[b->len - 1] == ' ')
        b->data[--b->len] = '\0';
    sbuf_putc(b, '\n');
}

UTIL_HOT static void text_pair(struct sbuf *b, const struct metric *m, const struct value *v)
{
    sbuf_puts(b, "  ");
    sbuf_puts(b, m->key);
    sbuf_putc(b, '=');
    fmt_value(b, m, v, FMT_TEXT);
    if (v->state == VS_OK && *m->unit) {
        sbuf_putc(b, ' ');
        sbuf_puts(b, m->unit);
    }
}

/* The host's CPU and memory; compact: shorter words, for 80 columns. */
UTIL_HOT static void sink_text_host(const struct record *r, bool compact, struct sbuf *b)
{
    const struct value *h = r->host;
    static const char *const words[2][4] = {{"  cpu usr ", " sys ", " iowait ", "  mem "},
                                            {"  cpu usr ", " sys ", " io ", "  mem "}};
    const char *const *w = words[compact];
    sbuf_puts(b, w[0]);
    text_val(b, &h[M_HOST_USER], "", 0, 1, "%", 0);
    sbuf_puts(b, w[1]);
    text_val(b, &h[M_HOST_SYSTEM], "", 0, 1, "%", 0);
    sbuf_puts(b, w[2]);
    text_val(b, &h[M_HOST_IOWAIT], "", 0, 1, "%", 0);
    sbuf_puts(b, w[3]);
    text_val(b, &h[M_HOST_MEM_USED], "", 0, -1, "", 0);
    sbuf_putc(b, '/');
    text_val(b, &h[M_HOST_MEM_TOTAL], "", 0, -1, "", 0);
    sbuf_puts(b, " MiB");
}

/* The columns of the widest line of b from start on (UTF-8: a character is one column). */
UTIL_HOT static int text_widest(const struct sbuf *b, size_t start)
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
UTIL_HOT static void text_fit(struct sbuf *b, size_t start, int width, bool pairs)
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

UTIL_HOT static void sink_text_record(const struct sink *s, const struct record *r, struct sbuf *b)
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

UTIL_HOT static void sink_text_render(const struct sink *s, const struct record *r, bool compact, struct sbuf *b)
{
    char ts[32];
    compact = compact && !s->custom_fields;
    util_rfc3339(&r->time, ts);
    sbuf_puts(b, ts);
    sbuf_puts(b, "  ");
    text_str(b, r->hostname, compact ? 16 : 255, 0);
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
        sbuf_puts(b, "  GPU ");
        text_int(b, r->gpus[g].index, 0);
        for (int i = 0; i < s->nids; i++)
            if (metric_table[s->ids[i]].scope == MS_GPU)
                text_pair(b, &metric_table[s->ids[i]], &r->gpus[g].v[s->ids[i]]);
        sbuf_putc(b, '\n');
    }
}

const struct sink_ops sink_text = {"text", sink_text_begin, sink_text_record};
