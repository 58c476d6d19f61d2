/*
 * report.h: the HTML report: one self-contained file (inline CSS and SVG,
 * no network, no external scripts or fonts) with, per GPU, charts over
 * time of utilization, memory, temperature, power and SM clock (and where
 * the log has them, GPM activity and the job's training steps); idle and
 * throttled stretches shaded; verdict changes marked on the time axis; and
 * the verdicts listed with evidence and advice.
 *
 * Memory is bounded: each series is kept as at most REPORT_BUCKETS time
 * buckets holding min, max, sum and count; when the run outgrows them,
 * neighbours merge and the bucket width doubles. Every record lands in a
 * bucket (the chart draws the min-max envelope and the mean), so nothing
 * is dropped, only summarized. report_svg.c owns the buckets and charts,
 * report.c the page.
 */
#ifndef GPUMON_REPORT_H
#define GPUMON_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "diag.h"
#include "record.h"
#include "util.h"

#define REPORT_BUCKETS 800
#define REPORT_MAX_MARKS 200   /* verdict changes marked per GPU; further ones are counted and said */

struct report;

struct report *report_new(void);
void report_free(struct report *rp);
/* Adds one record to the charts, after d has been fed it (the GPUs are d's analyzer's). */
void report_feed(struct report *rp, const struct diag *d, const struct record *r);
/* Marks a verdict change (a diag_change_fn target). */
void report_change(struct report *rp, const struct diag_change *ch);
/* GPUs seen in the records fed so far (a new UUID at an index is a new GPU, as in the analysis). */
unsigned report_ngpus(const struct report *rp);
/* Writes the page for the records fed so far, with d's verdicts, to path
 * (wfile.h: atomically over a regular file, never replacing a device or a
 * FIFO). source: what the data came from (shown in the header). Returns 0
 * with the page's size in *written (if not NULL), or -1 with a message. */
int report_write(const struct report *rp, const struct diag *d, const char *path, const char *source,
                 size_t *written, char *err, size_t errlen);

/* report_svg.c: the time series of one GPU. */
enum report_series { RS_UTIL, RS_SM, RS_TENSOR, RS_STEPS, RS_STEP_TIME, RS_WAIT, RS_MEM, RS_TEMP, RS_POWER, RS_CLOCK,
                     RS_COUNT };
struct report_gpu;
struct report_gpu *report_gpu_new(unsigned index, double t0);
void report_gpu_free(struct report_gpu *g);
unsigned report_gpu_index(const struct report_gpu *g);
/* Adds one record of this GPU at time t (seconds since the epoch), with the steps the job's processes
 * on it reported in that record (NULL: none). */
void report_gpu_add(struct report_gpu *g, const struct record_gpu *rg, double t, const struct stepstat_fig *st);
/* Adds a verdict change mark. */
void report_gpu_mark(struct report_gpu *g, const struct diag_change *ch);
/* Appends the GPU's charts (SVG) for the time range [t0, t1]. */
void report_gpu_charts(const struct report_gpu *g, double t0, double t1, struct sbuf *b);
/* Escapes s for HTML text and attributes. */
void report_html_escape(struct sbuf *b, const char *s);

#endif
