/*
 * query_format.h: a --query-gpu field's value as nvidia-smi spells it
 * (units, decimals, Enabled/Disabled, upper-case hex masks, its markers).
 */
#ifndef GPUMON_QUERY_FORMAT_H
#define GPUMON_QUERY_FORMAT_H

#include <stdbool.h>
#include "query_fields.h"
#include "util.h"

/* Appends v as field f prints it; the unit follows unless units is false.
 * A value that is not ok prints nvidia-smi's marker for its state (f->na
 * for an unsupported one where the field has its own). QSRC_FIXED rows
 * print f->na whatever v holds. */
void query_format_value(struct sbuf *b, const struct query_field *f, const struct value *v, bool units);
/* Appends nvidia-smi's marker for a value that is not ok. */
void query_format_marker(struct sbuf *b, const struct value *v, const char *na);

#endif
