/*
 * out.c: whole-record writes with truncate-on-failure and a retry backlog
 * (see out.h). The backlog is capped; past the cap the oldest complete
 * records are dropped and counted, never parts of records.
 */
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_BACKLOG_MAX (64u << 20)

int out_open(struct out *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    sbuf_init(&o->backlog);
    if (!path || !strcmp(path, "-")) {
        o->fd = STDOUT_FILENO;
        return 0;
    }
    o->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        snprintf(err, errlen, "cannot open output file %s: %s", path, strerror(errno));
        return -1;
    }
    o->path = xstrdup(path);
    return 0;
}

bool out_is_empty(const struct out *o)
{
    struct stat st;
    return o->path && fstat(o->fd, &st) == 0 && st.st_size == 0;
}

/* Writes all of buf or restores the file to its previous end. */
static int out_write_all(struct out *o, const char *buf, size_t len)
{
    off_t start = -1;
    struct stat st;
    if (o->path && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode))
        start = st.st_size;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(o->fd, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            if (start >= 0 && done > 0 && ftruncate(o->fd, start) != 0)
                util_warn("cannot remove a partial record from %s: %s", o->path, strerror(errno));
            errno = e;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* Drops whole records from the front until the backlog fits the cap. */
static void out_trim_backlog(struct out *o)
{
    while (o->backlog.len > OUT_BACKLOG_MAX) {
        char *nl = memchr(o->backlog.data, '\n', o->backlog.len);
        size_t cut = nl ? (size_t)(nl - o->backlog.data) + 1 : o->backlog.len;
        memmove(o->backlog.data, o->backlog.data + cut, o->backlog.len - cut);
        o->backlog.len -= cut;
        o->dropped++;
    }
}

int out_write(struct out *o, const char *buf, size_t len)
{
    const char *where = o->path ? o->path : "standard output";
    if (o->backlog.len == 0) {
        if (out_write_all(o, buf, len) == 0)
            return 0;   /* the usual case: no copy */
        if (errno == EPIPE)
            return -1;
        sbuf_add(&o->backlog, buf, len);
    } else {
        sbuf_add(&o->backlog, buf, len);
        out_trim_backlog(o);
        if (out_write_all(o, o->backlog.data, o->backlog.len) == 0) {
            util_warn("writing to %s again: delayed records written%s", where,
                      o->dropped ? " (some were dropped: the backlog was full)" : "");
            o->failing = false;
            sbuf_reset(&o->backlog);
            return 0;
        }
        if (errno == EPIPE) {
            sbuf_reset(&o->backlog);   /* the reader is gone: nothing will ever read these */
            return -1;
        }
    }
    if (!o->failing)
        util_warn("cannot write to %s: %s; keeping records in memory and retrying at every sample", where,
                  strerror(errno));
    o->failing = true;
    return 0;
}

int out_reopen(struct out *o, char *err, size_t errlen)
{
    if (!o->path)
        return 0;
    int fd = open(o->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot reopen output file %s: %s (still writing to the old file)", o->path,
                 strerror(errno));
        return -1;
    }
    close(o->fd);
    o->fd = fd;
    return 0;
}

void out_close(struct out *o)
{
    if (o->backlog.len && out_write_all(o, o->backlog.data, o->backlog.len) != 0)
        util_warn("%zu bytes of records could not be written to %s: %s", o->backlog.len,
                  o->path ? o->path : "standard output", strerror(errno));
    if (o->dropped)
        util_warn("%llu records were dropped while %s could not be written", o->dropped,
                  o->path ? o->path : "standard output");
    if (o->path)
        close(o->fd);
    free(o->path);
    sbuf_free(&o->backlog);
}
