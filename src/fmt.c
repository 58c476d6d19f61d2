/*
 * fmt.c: value and string formatting for the sinks (see fmt.h).
 */
#include "fmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "nvml_abi.h"

enum fmt_mark_kind {
    FMT_KIND_NONE, FMT_KIND_UNSUPPORTED, FMT_KIND_NO_PERMISSION, FMT_KIND_DEPRECATED, FMT_KIND_ERROR, FMT_KIND_LOST
};

/* The markers: a row per kind, a column per style. "%d" is the NVML code.
 * SMI is what real nvidia-smi prints: "[N/A]" for anything the driver
 * cannot tell ("[Not Supported]" appears only in its help texts). */
static const char *const fmt_markers[][3] = {
    /*                          FULL                          BRIEF      SMI */
    [FMT_KIND_NONE] =          {"[N/A]",                      "n/a",     "[N/A]"},
    [FMT_KIND_UNSUPPORTED] =   {"[Not Supported]",            "n/a",     "[N/A]"},
    [FMT_KIND_NO_PERMISSION] = {"[Insufficient Permissions]", "no-perm", "[Insufficient Permissions]"},
    [FMT_KIND_DEPRECATED] =    {"[Deprecated]",               "n/a",     "[Requested functionality has been deprecated]"},
    [FMT_KIND_ERROR] =         {"[Error %d]",                 "ERR",     "[Unknown Error]"},
    [FMT_KIND_LOST] =          {"[GPU is lost]",              "LOST",    "[GPU is lost]"},
};

static enum fmt_mark_kind fmt_kind(const struct value *v)
{
    switch (v->state) {
    case VS_UNSUPPORTED: return FMT_KIND_UNSUPPORTED;
    case VS_LOST: return FMT_KIND_LOST;
    case VS_ERROR:
        return v->code == NVML_ERROR_NO_PERMISSION ? FMT_KIND_NO_PERMISSION
               : v->code == NVML_ERROR_DEPRECATED  ? FMT_KIND_DEPRECATED : FMT_KIND_ERROR;
    default: return FMT_KIND_NONE;
    }
}

const char *fmt_marker(const struct value *v, enum fmt_marker_style style, char *buf, size_t len)
{
    const char *m = fmt_markers[fmt_kind(v)][style];
    if (!strstr(m, "%d"))
        return m;
    snprintf(buf, len, m, (int)v->code);   /* m is a row of the table above */
    return buf;
}

static void fmt_number(struct sbuf *b, const struct metric *m, const struct value *v, enum fmt_style style)
{
    switch (m->kind) {
    case MK_FLOAT:
        if (!isfinite(v->u.f))
            sbuf_puts(b, style == FMT_JSON ? "null" : "[N/A]");
        else
            sbuf_put_fixed(b, v->u.f, m->decimals);
        break;
    case MK_HEX:
        if (style == FMT_JSON)
            sbuf_put_int(b, v->u.i);
        else
            sbuf_printf(b, "0x%016llx", (unsigned long long)v->u.i);
        break;
    case MK_FLAG:
        sbuf_puts(b, style == FMT_JSON ? (v->u.i ? "true" : "false")
                     : style == FMT_CSV ? (v->u.i ? "1" : "0") : (v->u.i ? "Active" : "Not Active"));
        break;
    case MK_PSTATE:
        sbuf_puts(b, style == FMT_JSON ? "\"P" : "P");
        sbuf_put_int(b, v->u.i);
        if (style == FMT_JSON)
            sbuf_putc(b, '"');
        break;
    default:
        sbuf_put_int(b, v->u.i);
        break;
    }
}

static char *fmt_copy(char *out, const char *s, size_t n)
{
    memcpy(out, s, n);
    return out + n;
}

UTIL_HOT char *fmt_number_at(char *out, const struct metric *m, const struct value *v, enum fmt_style style)
{
    static const char hex[] = "0123456789abcdef";
    if (v->state != VS_OK) {
        if (style == FMT_JSON)
            return fmt_copy(out, "null", 4);
        char tmp[32];
        const char *mark = fmt_marker(v, FMT_MARK_FULL, tmp, sizeof tmp);
        size_t n = strlen(mark);
        return n <= FMT_NUMBER_MAX ? fmt_copy(out, mark, n) : NULL;
    }
    char *end = fmt_fast(out, m->kind, m->decimals, v, style);
    if (end)
        return end;
    switch (m->kind) {   /* what the fast path leaves */
    case MK_HEX:
        if (style == FMT_JSON)
            return out + util_fmt_int(out, v->u.i);
        out[0] = '0', out[1] = 'x';   /* "0x%016llx" */
        for (int i = 0; i < 16; i++)
            out[2 + i] = hex[((unsigned long long)v->u.i >> (60 - 4 * i)) & 15];
        return out + 18;
    case MK_FLOAT:   /* not finite, or a number printf writes */
        if (!isfinite(v->u.f))
            return style == FMT_JSON ? fmt_copy(out, "null", 4) : fmt_copy(out, "[N/A]", 5);
        return NULL;
    case MK_FLAG:    /* text */
        return v->u.i ? fmt_copy(out, "Active", 6) : fmt_copy(out, "Not Active", 10);
    default:
        return NULL;
    }
}

char *fmt_json_number(char *out, const struct metric *m, const struct value *v)
{
    return fmt_number_at(out, m, v, FMT_JSON);
}

UTIL_HOT void fmt_value(struct sbuf *b, const struct metric *m, const struct value *v, enum fmt_style style)
{
    if (v->state != VS_OK) {
        char tmp[32];
        sbuf_puts(b, style == FMT_JSON ? "null" : fmt_marker(v, FMT_MARK_FULL, tmp, sizeof tmp));
        return;
    }
    if (m->kind != MK_STR)
        return fmt_number(b, m, v, style);
    const char *s = v->u.s ? v->u.s : "";
    if (style == FMT_JSON)
        fmt_json_string(b, s);
    else if (style == FMT_CSV)
        fmt_csv_field(b, s);
    else
        sbuf_puts(b, s);
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if invalid. */
static size_t fmt_utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (n == 2 && p[0] < 0xC2) || (n == 4 && p[0] > 0xF4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0)))
        return 0;
    if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90)))
        return 0;
    return n;
}

void fmt_html_text(struct sbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': sbuf_puts(b, "&amp;"); break;
        case '<': sbuf_puts(b, "&lt;"); break;
        case '>': sbuf_puts(b, "&gt;"); break;
        case '"': sbuf_puts(b, "&quot;"); break;
        default: sbuf_putc(b, *s);
        }
    }
}

/* Whether none of the 8 bytes of w needs escaping (each 0x20-0x7e, neither '"' nor '\\'). May answer
 * false for a word that needs none (a carry), never true for one that does. */
static bool fmt_json_plain8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\');
    uint64_t bad = ((w - ones * 0x20) & ~w)                 /* a byte under 0x20 */
                   | w | (w + ones)                         /* 0x80 and above, or 0x7f */
                   | ((q - ones) & ~q) | ((bs - ones) & ~bs);   /* '"', '\\' */
    return (bad & highs) == 0;
}

UTIL_HOT void fmt_json_string(struct sbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), plain = 0;
    while (plain + 8 <= n) {   /* whole words that need no escaping, copied at once */
        uint64_t w;
        memcpy(&w, s + plain, 8);
        if (!fmt_json_plain8(w))
            break;
        plain += 8;
    }
    if (b->len + plain + 3 > b->cap)
        sbuf_grow(b, plain + 2);
    b->data[b->len++] = '"';
    memcpy(b->data + b->len, s, plain);
    b->len += plain;
    b->data[b->len] = '\0';
    p += plain;
    while (*p) {
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
            p++;
        if (p > run)
            sbuf_add(b, (const char *)run, (size_t)(p - run));
        unsigned char c = *p;
        if (!c)
            break;
        if (c == '"' || c == '\\') {
            sbuf_putc(b, '\\');
            sbuf_putc(b, (char)c);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            const char *esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
            if (esc)
                sbuf_puts(b, esc);
            else
                sbuf_printf(b, "\\u%04x", c);
            p++;
        } else {
            size_t n = fmt_utf8_len(p);
            if (n == 0) {
                sbuf_puts(b, "\\ufffd");
                p++;
            } else {
                sbuf_add(b, (const char *)p, n);
                p += n;
            }
        }
    }
    sbuf_putc(b, '"');
}

void fmt_csv_field(struct sbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
        sbuf_puts(b, s);
        return;
    }
    sbuf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            sbuf_putc(b, '"');
        sbuf_putc(b, *s);
    }
    sbuf_putc(b, '"');
}

void fmt_duration(struct sbuf *b, double seconds)
{
    if (isnan(seconds))
        return;
    if (seconds < 1)
        sbuf_printf(b, "%.3g ms", seconds * 1e3);
    else if (seconds < 1000)
        sbuf_printf(b, "%.3g s", seconds);
    else
        sbuf_printf(b, "%.0f s", seconds);   /* %.3g would write 1.23e+03 */
}
