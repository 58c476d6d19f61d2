/*
 * sink.h: output formats for records. Each sink is a small const vtable
 * listed in one array (sink.c); a sink writes one complete record (a line,
 * or a text block) into an sbuf, and the caller writes the buffer in one
 * call, so records are never interleaved or half-written by gpumon. Sinks
 * never call NVML: they read records and walk the metric table.
 */
#ifndef GPUMON_SINK_H
#define GPUMON_SINK_H

#include <stdbool.h>
#include "metrics.h"
#include "util.h"

struct sink {
    const struct sink_ops *ops;
    const enum metric_id *ids;  /* metrics to print, in order */
    int nids;
    bool custom_fields;         /* --fields given (text: key=value layout) */
    bool processes;             /* include per-process lists (JSON Lines) */
    int width;                  /* text: the terminal's columns; 0 when not a terminal */
};

/* A sink's plan of its columns, cached per thread: true when (*ready, *nids, ids) already plan s's
 * columns; otherwise takes s's (ids holds at least s->nids) and returns false: the caller builds the
 * rest of its plan. */
bool sink_plan_current(bool *ready, int *nids, enum metric_id *ids, const struct sink *s);

struct sink_ops {
    const char *name;
    /* Appends what starts a fresh output (the CSV header), or nothing. */
    void (*begin)(const struct sink *s, struct sbuf *b);
    /* Appends one record. */
    void (*record)(const struct sink *s, const struct record *r, struct sbuf *b);
};

extern const struct sink_ops sink_text, sink_csv, sink_jsonl;
/* The sink named name ("text", "csv", "jsonl"), or NULL. */
const struct sink_ops *sink_find(const char *name);
/* Comma-separated names of all sinks, for messages. */
const char *sink_names(void);

#endif
