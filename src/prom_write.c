/*
 * prom_write.c: the pieces of the Prometheus text format that both of
 * gpumon's namings write (prom.c for gpumon_*, prom_dcgm.c for DCGM_FI_*):
 * HELP/TYPE lines, escaped label values (always valid UTF-8), numbers as
 * the format spells them (NaN, +Inf) and string metrics as labels. Knows
 * the record and the metric table, nothing of either naming.
 */
#include "prom_write.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fmt.h"

static void prom_text(struct sbuf *b, const char *s, bool quote)
{
    for (; *s; s++) {
        if (*s == '\\')
            sbuf_puts(b, "\\\\");
        else if (*s == '\n')
            sbuf_puts(b, "\\n");
        else if (*s == '"' && quote)
            sbuf_puts(b, "\\\"");
        else
            sbuf_putc(b, *s);
    }
}

void prom_family(struct sbuf *b, const char *name, const char *type, const char *help)
{
    sbuf_puts(b, "# HELP ");
    sbuf_puts(b, name);
    sbuf_putc(b, ' ');
    prom_text(b, help, false);
    sbuf_puts(b, "\n# TYPE ");
    sbuf_puts(b, name);
    sbuf_putc(b, ' ');
    sbuf_puts(b, type);
    sbuf_putc(b, '\n');
}

/* Label values must be valid UTF-8: JSON escaping already replaces invalid
 * bytes with U+FFFD; the JSON escapes are then undone except \\ and \". */
void prom_label_value(struct sbuf *b, const char *s)
{
    bool plain = true;
    for (const unsigned char *p = (const unsigned char *)s; *p && plain; p++)
        plain = *p >= 0x20 && *p < 0x80;
    if (plain) {
        prom_text(b, s, true);
        return;
    }
    struct sbuf j;
    sbuf_init(&j);
    fmt_json_string(&j, s);
    for (size_t i = 1; i + 1 < j.len; i++) {   /* inside the quotes */
        char c = j.data[i];
        if (c != '\\') {
            sbuf_putc(b, c);
            continue;
        }
        c = j.data[++i];
        if (c == 'u') {   /* U+FFFD kept, other control characters dropped */
            if (!strncmp(j.data + i + 1, "fffd", 4))
                sbuf_puts(b, "\xef\xbf\xbd");
            i += 4;
        } else if (c == '\\' || c == '"' || c == 'n') {
            sbuf_putc(b, '\\');
            sbuf_putc(b, c);
        }   /* \b \f \r \t: dropped */
    }
    sbuf_free(&j);
}

void prom_number(struct sbuf *b, double v)
{
    if (isnan(v))
        sbuf_puts(b, "NaN");
    else if (isinf(v))
        sbuf_puts(b, v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 1e15)
        sbuf_put_int(b, (long long)v);
    else
        sbuf_printf(b, "%.15g", v);
}

double prom_raw(const struct metric *m, const struct value *v)
{
    return m->kind == MK_FLOAT ? v->u.f : (double)v->u.i;
}

void prom_str_labels(struct sbuf *b, const struct record_gpu *g, const struct prom_str_label *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sbuf_putc(b, ',');
        sbuf_puts(b, l[i].label);
        sbuf_puts(b, "=\"");
        if (g->v[l[i].id].state == VS_OK)
            prom_label_value(b, g->v[l[i].id].u.s);
        sbuf_putc(b, '"');
    }
}
