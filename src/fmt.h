/*
 * fmt.h: turning values into text, shared by every sink. One place decides
 * how a kind of value looks (integers, decimals from the metric table,
 * P-states as "P0", masks as 0x%016llx) and how strings are escaped for
 * JSON and quoted for CSV. Pure functions over an sbuf; unit-tested.
 */
#ifndef GPUMON_FMT_H
#define GPUMON_FMT_H

#include <string.h>
#include "metrics.h"
#include "util.h"

enum fmt_style { FMT_TEXT, FMT_CSV, FMT_JSON };

/* Appends v. Non-ok values: JSON null; text/CSV the full marker below,
 * such as "[Not Supported]", "[GPU is lost]" or "[N/A]"; never 0. */
void fmt_value(struct sbuf *b, const struct metric *m, const struct value *v, enum fmt_style style);
/* The fast path of fmt_value(FMT_JSON) for what is not a string: writes v's JSON at out, which has
 * room for FMT_JSON_NUMBER_MAX bytes, and returns the end; NULL, having written nothing, for a
 * string or a number that needs printf (fmt_value writes those). */
#define FMT_JSON_NUMBER_MAX UTIL_FMT_ROOM
char *fmt_json_number(char *out, const struct metric *m, const struct value *v);
/* The same for any style: what fmt_value(style) writes for a value that is not a string (a marker, for
 * CSV and text, or a number), at out with room for FMT_NUMBER_MAX bytes; NULL, having written nothing,
 * for a string or what needs printf. */
#define FMT_NUMBER_MAX UTIL_FMT_ROOM
char *fmt_number_at(char *out, const struct metric *m, const struct value *v, enum fmt_style style);
/* The common case of fmt_number_at, inline for the sinks' loops: an ok integer, finite decimal number,
 * flag or P-state of a row of kind and decimals, in style, at out (room for FMT_NUMBER_MAX bytes);
 * NULL, having written nothing, for anything else. */
static inline char *fmt_fast(char *out, enum metric_kind kind, int decimals, const struct value *v,
                             enum fmt_style style)
{
    switch (kind) {
    case MK_INT:
        if ((unsigned long long)v->u.i < 10) {
            *out = (char)('0' + v->u.i);
            return out + 1;
        }
        return out + util_fmt_int(out, v->u.i);
    case MK_FLOAT: {
        size_t n = util_fmt_decimal(out, v->u.f, decimals);   /* 0 for NaN and infinities */
        return n ? out + n : NULL;
    }
    case MK_FLAG:
        if (style == FMT_JSON) {
            memcpy(out, v->u.i ? "true" : "false", 5);
            return out + (v->u.i ? 4 : 5);
        }
        if (style == FMT_CSV) {
            *out = v->u.i ? '1' : '0';
            return out + 1;
        }
        return NULL;
    case MK_PSTATE:
        if (style == FMT_JSON)
            *out++ = '"';
        *out++ = 'P';
        out += util_fmt_int(out, v->u.i);
        if (style == FMT_JSON)
            *out++ = '"';
        return out;
    default:
        return NULL;
    }
}
/* Appends s as a JSON string literal, quotes included. Invalid UTF-8 bytes
 * become U+FFFD so the output is always valid JSON. */
void fmt_json_string(struct sbuf *b, const char *s);
/* Appends s escaped for HTML text and attribute values (& < > "). */
void fmt_html_text(struct sbuf *b, const char *s);
/* A duration for people: "0.214 ms", "63.4 ms", "1.25 s" (3 significant digits); nothing for NAN. */
void fmt_duration(struct sbuf *b, double seconds);
/* Appends s as one CSV field, quoted when it holds a comma, quote or newline. */
void fmt_csv_field(struct sbuf *b, const char *s);
/* How a value that is not a number is spelled: the one table of markers
 * (fmt.c) has a row per kind (not known, unsupported, no permission, other
 * error, lost) and a column per style: */
enum fmt_marker_style {
    FMT_MARK_FULL,      /* CSV and key=value text: "[Insufficient Permissions]", "[Error 17]" */
    FMT_MARK_BRIEF,     /* the text layout's columns: "n/a", "no-perm", "ERR", "LOST" */
    FMT_MARK_SMI,       /* nvidia-smi's query output: "[Insufficient Permissions]", "[Unknown Error]" */
};
/* The marker of a non-ok value in style; buf (at least 32 bytes) holds it
 * when it carries the value's code. */
const char *fmt_marker(const struct value *v, enum fmt_marker_style style, char *buf, size_t len);

#endif
