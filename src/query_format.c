/*
 * query_format.c: how nvidia-smi spells each --query-gpu value, by the
 * row's style (query_fields.h). The markers of values that are not ok come
 * from fmt.c's one table (its SMI column); a field may name its own text for
 * "the driver cannot tell" (temperature.memory and the fabric fields print
 * N/A without brackets). Units follow a value, never a marker.
 */
#include "query_format.h"

#include "fmt.h"

void query_format_marker(struct sbuf *b, const struct value *v, const char *na)
{
    char tmp[64];
    if (na && (v->state == VS_UNSUPPORTED || v->state == VS_NONE))
        sbuf_puts(b, na);
    else
        sbuf_puts(b, fmt_marker(v, FMT_MARK_SMI, tmp, sizeof tmp));
}

static const char *query_compute_mode(long long m)
{
    static const char *const names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
    return m >= 0 && m < 4 ? names[m] : "Unknown";
}

static const char *query_driver_model(long long m)
{
    static const char *const names[] = {"WDDM", "TCC", "MCDM"};
    return m >= 0 && m < 3 ? names[m] : "Unknown";
}

void query_format_value(struct sbuf *b, const struct query_field *f, const struct value *v, bool units)
{
    if (f->source == QSRC_FIXED) {
        sbuf_puts(b, f->na);
        return;
    }
    if (v->state != VS_OK)
        return query_format_marker(b, v, f->na);
    unsigned long long u = (unsigned long long)v->u.i;
    switch (f->style) {
    case QS_WATTS: sbuf_put_fixed(b, v->u.f, 2); break;
    case QS_TEXT: sbuf_puts(b, v->u.s ? v->u.s : ""); break;
    case QS_PSTATE: sbuf_printf(b, "P%lld", v->u.i); break;
    case QS_MASK: sbuf_printf(b, "0x%016llX", u); break;
    case QS_HEX2: sbuf_printf(b, "0x%02llX", u); break;
    case QS_HEX4: sbuf_printf(b, "0x%04llX", u); break;
    case QS_HEX8: sbuf_printf(b, "0x%08llX", u); break;
    case QS_ACTIVE: sbuf_puts(b, v->u.i ? "Active" : "Not Active"); break;
    case QS_YESNO: sbuf_puts(b, v->u.i ? "Yes" : "No"); break;
    case QS_ENABLED: sbuf_puts(b, v->u.i ? "Enabled" : "Disabled"); break;
    case QS_COMPUTE_MODE: sbuf_puts(b, query_compute_mode(v->u.i)); break;
    case QS_DRIVER_MODEL: sbuf_puts(b, query_driver_model(v->u.i)); break;
    case QS_INT: sbuf_put_int(b, v->u.i); break;
    }
    if (units && *f->unit)
        sbuf_printf(b, " %s", f->unit);
}
