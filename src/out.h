/*
 * out.h: where records go: standard output or a log file opened for
 * appending. A record is written whole or not at all: if a write fails
 * part-way (disk full), the file is truncated back to the last complete
 * record and the record is kept in a bounded in-memory backlog that is
 * retried before every later write, so writing resumes by itself when
 * space returns and no torn line is ever left in the middle of the file.
 * out_reopen() serves SIGHUP (logrotate moved the file away).
 */
#ifndef GPUMON_OUT_H
#define GPUMON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include "util.h"

struct out {
    int fd;
    char *path;                 /* NULL for standard output */
    struct sbuf backlog;        /* complete records not yet written */
    unsigned long long dropped; /* records dropped because the backlog was full */
    bool failing;               /* the last write failed; a warning was printed */
};

/* Opens path for appending (created 0644), or standard output when path is
 * NULL. Returns 0, or -1 with a message in err. */
int out_open(struct out *o, const char *path, char *err, size_t errlen);
/* True when the output is a file that is empty (it needs a header). */
bool out_is_empty(const struct out *o);
/* Writes one complete record (or queues it, see above). Returns 0 when it
 * reached the output or the backlog, -1 when the output is gone for good
 * (EPIPE on standard output). */
int out_write(struct out *o, const char *buf, size_t len);
/* Reopens the file at its path. Returns 0, or -1 with a message. */
int out_reopen(struct out *o, char *err, size_t errlen);
/* Final attempt to write the backlog, then closes. */
void out_close(struct out *o);

#endif
