/*
 * out.h: where records go: standard output or a log file opened for
 * appending, plain or zstd-compressed (a path ending in ".zst"). A record
 * is written whole or not at all: if a write fails part-way (disk full),
 * the file is truncated back to the last complete record and the record
 * is kept in a bounded in-memory backlog of whole records, retried before
 * every later write, so writing resumes by itself when space returns and
 * no torn record is ever left in the middle of the file. When the backlog
 * is full, newer records are dropped and counted (never parts of records).
 * A compressed log is one zstd frame per file opened, flushed at every
 * record: a reader sees every finished record, and kill -9 loses at most
 * the one being written. out_reopen() serves SIGHUP (logrotate).
 */
#ifndef GPUMON_OUT_H
#define GPUMON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include "util.h"

#define OUT_BACKLOG_MAX (64u << 20)   /* bytes of records kept while the output fails */

struct out_block {
    char *data;
    size_t len;
};

struct out {
    int fd;
    char *path;                 /* NULL for standard output */
    char *name;                 /* path, shortened for messages */
    void *zstd;                 /* ZSTD_CCtx of a compressed log, else NULL */
    struct sbuf z;              /* one record, compressed */
    struct out_block *q;        /* backlog: a ring of whole records (as written: compressed or not) */
    size_t qcap, qhead, qn, qbytes;
    size_t backlog_max;         /* bytes the backlog may hold: OUT_BACKLOG_MAX (tests lower it) */
    unsigned long long dropped; /* records dropped because the backlog was full */
    bool failing;               /* the last write failed */
    bool warned;                /* ... and still did at the next record: a warning was printed */
};

/* True when path names a zstd-compressed log (it ends in ".zst"). */
bool out_is_zstd_path(const char *path);
/* Opens path for appending (created 0644), or standard output when path is
 * NULL or "-". Returns 0, or -1 with a message in err. */
int out_open(struct out *o, const char *path, char *err, size_t errlen);
/* True when the output is a file that is empty (it needs a header). */
bool out_is_empty(const struct out *o);
/* Writes one complete record (or queues it, see above). Returns 0 when it
 * reached the output or the backlog (or was dropped and counted), -1 when
 * the output is gone for good: EPIPE on standard output (its reader left;
 * the backlog is discarded), or EBADF (no descriptor, e.g. a closed
 * standard output: the record stays queued, for out_close to count). */
int out_write(struct out *o, const char *buf, size_t len);
/* Reopens the file at its path (a compressed log ends its frame first).
 * Returns 0, or -1 with a message. */
int out_reopen(struct out *o, char *err, size_t errlen);
/* Writes what is left and closes. Returns 0 when every record reached the
 * output, or -1 after a message saying how many did not. */
int out_close(struct out *o);

#endif
