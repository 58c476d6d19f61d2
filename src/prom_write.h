/*
 * prom_write.h: writers of the Prometheus text format shared by gpumon's
 * own names (prom.c) and dcgm-exporter's (prom_dcgm.c); see prom_write.c.
 */
#ifndef GPUMON_PROM_WRITE_H
#define GPUMON_PROM_WRITE_H

#include <stddef.h>
#include "metrics.h"
#include "util.h"

/* A string metric written as a label. */
struct prom_str_label {
    const char *label;
    enum metric_id id;
};
/* Appends ,LABEL="value" for each string metric of g ("" when not known). */
void prom_str_labels(struct sbuf *b, const struct record_gpu *g, const struct prom_str_label *l, size_t n);
/* Appends the # HELP and # TYPE lines of a family. */
void prom_family(struct sbuf *b, const char *name, const char *type, const char *help);
/* Appends s escaped for a label value, as valid UTF-8. */
void prom_label_value(struct sbuf *b, const char *s);
/* Appends v as the text format writes numbers (integers exactly, NaN, +Inf). */
void prom_number(struct sbuf *b, double v);
/* The numeric value of v as the metric's kind stores it. */
double prom_raw(const struct metric *m, const struct value *v);

#endif
