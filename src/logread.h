/*
 * logread.h: the JSON Lines log (sink_jsonl.c's format) read back into
 * records, one line at a time, so diagnose and report run the same
 * analysis on a log that run performs live.
 *
 * Keys map to metric ids through the metric table (unknown keys are
 * skipped, so a newer log still reads); null is "not supported" for a GPU
 * value (VS_UNSUPPORTED, code 3: the writer's contract) and "not known yet"
 * for a host figure; the
 * "errors" object ({"key":{"code":N,"text":...}}, or the text alone in
 * older logs) turns a value into VS_ERROR with NVML's code, VS_LOST for
 * codes 15/16, or VS_UNSUPPORTED for 3/6/13/25; "processes" and "xids" fill the record's lists. A
 * record and its strings stay valid until the next logread_next() call.
 * A last line without its newline that does not parse (a write cut short
 * by kill -9) ends the log with a warning; any other bad line is an error
 * naming its line number.
 */
#ifndef GPUMON_LOGREAD_H
#define GPUMON_LOGREAD_H

#include <stdbool.h>
#include <stddef.h>
#include "record.h"

struct logread;

/* Opens path ("-" is standard input). Returns 0, or -1 with a message. */
int logread_open(struct logread **out, const char *path, char *err, size_t errlen);
/* Reads the next record into rec. Returns 1, 0 at the end of the log, or
 * -1 with a message naming the file and line. Empty lines are skipped. */
int logread_next(struct logread *lr, struct record *rec, char *err, size_t errlen);
/* The warning about a torn last line (or a compressed log cut inside a
 * frame), or NULL when there was none. */
const char *logread_warning(const struct logread *lr);
/* Once logread_next() returned 0: NULL, or a warning that records were
 * skipped because their time goes back (how many, the first one's line).
 * The analysis needs records in time order; equal times are kept. */
const char *logread_skipped(struct logread *lr);
void logread_close(struct logread *lr);

/* Reader threads (logread.c): at most n logs open at once read ahead in a thread of their own, the first
 * opened; the others are read by the caller alone (the same records, errors and warnings, one core).
 * 0: none. GPUMON_LOG_THREADS sets it for diagnose, report and compare (cmd_log_reader). */
#define LOGREAD_THREADS 16
void logread_threads_set(unsigned n);
unsigned logread_threads(void);
/* Whether lr was given a reader thread when it opened. */
bool logread_threaded(const struct logread *lr);

/* Parses one line (without its newline) into rec; for tests and fuzzing.
 * Returns 0, or -1 with a message (no file or line prefix). */
int logread_parse(struct logread *lr, const char *line, size_t len, struct record *rec, char *err, size_t errlen);
struct sbuf;
/* Appends every field of r to b as text (floats to the bit, each value's state and code): two readers'
 * records compare equal when their texts do (tests and fuzzing). */
void logread_record_text(const struct record *r, struct sbuf *b);
/* Parses an RFC 3339 UTC time ("2026-11-29T21:03:04.567Z", fraction
 * optional). Returns 0 or -1. */
int logread_parse_time(const char *s, struct timespec *out);

#endif
