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
 *
 * A log file has one writer: it is locked when opened (loglock.h) and a
 * second writer is refused, naming the first. A FIFO is opened and written
 * without ever blocking in the kernel: with no reader yet, out_open says
 * that it waits for one and waits, and a write waits while the reader
 * does not read, both asking the caller's stop function (a signal pending)
 * every 100 ms, so that SIGINT and SIGTERM always end gpumon.
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
    size_t off;                 /* bytes of it already written (a FIFO took part of it) */
};

/* Whether to stop waiting for a FIFO's reader (ctx: the caller's). */
typedef bool out_stop_fn(const void *ctx);

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
    out_stop_fn *stop;          /* asked while a FIFO makes gpumon wait; NULL: wait on */
    const void *stop_ctx;
    bool fifo;                  /* a FIFO, written without blocking (waits in poll) */
    bool stopped;               /* a wait was stopped: later writes to the FIFO do not wait */
    bool closing;               /* out_close: a reader that takes nothing more is given up */
    bool failing;               /* the last write failed */
    bool warned;                /* ... and still did at the next record: a warning was printed */
};

/* True when path names a zstd-compressed log (it ends in ".zst"). */
bool out_is_zstd_path(const char *path);
#define OUT_STOPPED 1
/* Opens path for appending (created 0644) and locks it, or standard output
 * when path is NULL or "-". stop (may be NULL) ends waits for a FIFO's
 * reader. Returns 0; -1 with a message in err (cannot open; another writer
 * holds the lock, named); or OUT_STOPPED when stop said so while waiting
 * for a reader of the FIFO at path. */
int out_open(struct out *o, const char *path, out_stop_fn *stop, const void *stop_ctx, char *err, size_t errlen);
/* True when the output is a file that is empty (it needs a header). */
bool out_is_empty(const struct out *o);
/* Writes one complete record (or queues it, see above). Returns 0 when it
 * reached the output or the backlog (or was dropped and counted), -1 when
 * the output is gone for good: EPIPE on standard output (its reader left;
 * the backlog is discarded), or EBADF (no descriptor, e.g. a closed
 * standard output: the record stays queued, for out_close to count). */
int out_write(struct out *o, const char *buf, size_t len);
/* Reopens the file at its path (a compressed log ends its frame first;
 * when the path is still the same file, its descriptor goes on and a
 * compressed log starts a new frame there). Returns 0, or -1 with a
 * message when the new file cannot be opened or another writer holds it
 * (the old file is written on). */
int out_reopen(struct out *o, char *err, size_t errlen);
/* Writes what is left and closes. Returns 0 when every record reached the
 * output, or -1 after a message saying how many did not. */
int out_close(struct out *o);

#endif
