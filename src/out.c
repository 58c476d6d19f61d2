/*
 * out.c: whole-record writes with truncate-on-failure and a retry backlog,
 * plain or zstd (see out.h). The backlog is a ring of records: queuing and
 * writing are O(1) per record whatever its size, and a full backlog drops
 * the newest record, so a compressed stream stays contiguous (a zstd block
 * depends on the ones before it, so the oldest may not be dropped).
 * Over a regular file a failed record is cut off again (ftruncate); over
 * a FIFO nothing can be taken back, so what is left of a record part-way
 * written stays at the head of the backlog and is finished first. A FIFO
 * is written without blocking: its writes wait for the reader in poll(),
 * asking the caller's stop function between waits, so that a signal ends
 * a wait for a reader that never reads (signals are blocked in gpumon and
 * cannot interrupt a blocking write).
 */
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lazylib.h"
#include "loglock.h"

#define OUT_ZSTD_LEVEL 3
#define OUT_POLL_MS 100          /* how often a wait for a FIFO's reader asks whether to stop */
#define OUT_CLOSE_STALL_MS 1000  /* at the end, a FIFO reader that takes nothing for this long is given up */

bool out_is_zstd_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && !strcmp(path + n - 4, ".zst");
}

static const char *out_where(const struct out *o)
{
    return o->path ? o->name : "standard output";
}

static int out_zstd_start(struct out *o, char *err, size_t errlen)
{
    if (lazy_zstd_load(err, errlen) != 0)
        return -1;
    ZSTD_CCtx *c = o->zstd ? o->zstd : lazy_zstd.ZSTD_createCCtx();
    if (!c) {
        snprintf(err, errlen, "cannot start zstd compression for %s", o->path);
        return -1;
    }
    lazy_zstd.ZSTD_CCtx_reset(c, ZSTD_reset_session_only);
    lazy_zstd.ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, OUT_ZSTD_LEVEL);
    lazy_zstd.ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    o->zstd = c;
    return 0;
}

static bool out_stop_now(const struct out *o)
{
    return o->stop && o->stop(o->stop_ctx);
}

static void out_pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Opens path for appending. A FIFO is opened without blocking (open()
 * would wait for a reader with every signal blocked): while it has no
 * reader, says so once and tries again until the stop function says stop.
 * Returns the descriptor, -1 (errno set), or -2 when stopped. */
static int out_open_fd(struct out *o, const char *path)
{
    bool said = false;
    for (;;) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
        if (fd >= 0 || errno != ENXIO)
            return fd;   /* ENXIO: a FIFO without a reader */
        if (!said) {
            char shorter[UTIL_SHORT + 1];
            util_warn("waiting for a reader on FIFO %s (records are written once something reads it; SIGINT or "
                      "SIGTERM ends the wait)", util_short(path, shorter));
            said = true;
        }
        if (out_stop_now(o))
            return -2;
        out_pause_ms(OUT_POLL_MS / 2);
    }
}

/* A FIFO stays non-blocking (its writes wait in poll, see out_wait; *fifo
 * says so); any other file is made blocking again. Then the one-writer
 * lock: 0, or -1 with a message naming the other writer. */
static int out_setup_fd(int fd, const char *name, bool *fifo, char *err, size_t errlen)
{
    struct stat st;
    *fifo = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
    if (!*fifo)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return loglock_take(fd, name, err, errlen);
}

int out_open(struct out *o, const char *path, out_stop_fn *stop, const void *stop_ctx, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    sbuf_init(&o->z);
    o->backlog_max = OUT_BACKLOG_MAX;
    o->stop = stop;
    o->stop_ctx = stop_ctx;
    if (!path || !strcmp(path, "-")) {
        o->fd = STDOUT_FILENO;
        return 0;
    }
    char shorter[UTIL_SHORT + 1];
    o->fd = out_open_fd(o, path);
    if (o->fd == -2) {
        snprintf(err, errlen, "stopped while waiting for a reader on FIFO %s", util_short(path, shorter));
        return OUT_STOPPED;
    }
    if (o->fd < 0) {
        snprintf(err, errlen, "cannot open output file %s: %s", util_short(path, shorter), strerror(errno));
        return -1;
    }
    o->path = xstrdup(path);
    o->name = xstrdup(util_short(path, shorter));
    if (out_setup_fd(o->fd, o->name, &o->fifo, err, errlen) != 0 ||
        (out_is_zstd_path(path) && out_zstd_start(o, err, errlen) != 0)) {
        close(o->fd);
        free(o->path);
        free(o->name);
        o->path = o->name = NULL;
        o->fd = -1;
        return -1;
    }
    return 0;
}

bool out_is_empty(const struct out *o)
{
    struct stat st;
    return o->path && fstat(o->fd, &st) == 0 && st.st_size == 0;
}

/* Waits until the FIFO takes more: true, or false when the caller's stop
 * function says stop (the stop is remembered: later writes do not wait) or,
 * at the end, when the reader has taken nothing for OUT_CLOSE_STALL_MS. */
static bool out_wait(struct out *o)
{
    for (long waited = 0; !o->stopped;) {
        struct pollfd p = {o->fd, POLLOUT, 0};
        int n = poll(&p, 1, OUT_POLL_MS);
        if (n > 0)
            return true;   /* room, or an error that the next write() reports */
        if (n < 0 && errno != EINTR)
            return false;
        if (out_stop_now(o) || (o->closing && (waited += OUT_POLL_MS) >= OUT_CLOSE_STALL_MS))
            o->stopped = true;
    }
    return false;
}

/* Writes all of buf. On failure (errno set): over a regular file the file
 * is restored to its previous end and *done is 0; over anything else
 * *done is what was written, which cannot be taken back. */
UTIL_HOT static int out_write_all(struct out *o, const char *buf, size_t len, size_t *done)
{
    struct stat st;
    *done = 0;
    while (*done < len) {
        ssize_t n = write(o->fd, buf + *done, len - *done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN && o->fifo) {
            if (out_wait(o))
                continue;
            errno = EAGAIN;   /* the reader does not read (and gpumon was told to stop) */
            return -1;
        }
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            /* the file's end before this record: its end now less what was written of it (one writer:
             * loglock.c), asked only when a write fails, not at every record */
            if (*done > 0 && o->path && !o->fifo && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) &&
                st.st_size >= (off_t)*done) {
                if (ftruncate(o->fd, st.st_size - (off_t)*done) != 0)
                    util_warn("cannot remove a partial record from %s: %s", o->name, strerror(errno));
                *done = 0;
            }
            errno = e;
            return -1;
        }
        *done += (size_t)n;
    }
    return 0;
}

/* Compresses one record (or, with len 0 and end, the frame's epilogue)
 * into o->z, flushed so that a reader can decode it now. */
static int out_compress(struct out *o, const char *buf, size_t len, bool end)
{
    ZSTD_inBuffer in = {buf, len, 0};
    sbuf_reset(&o->z);
    for (;;) {
        sbuf_grow(&o->z, lazy_zstd.ZSTD_CStreamOutSize());
        ZSTD_outBuffer ob = {o->z.data + o->z.len, o->z.cap - o->z.len - 1, 0};
        size_t left = lazy_zstd.ZSTD_compressStream2(o->zstd, &ob, &in, end ? ZSTD_e_end : ZSTD_e_flush);
        if (lazy_zstd.ZSTD_isError(left)) {
            util_warn("zstd compression for %s failed: %s", o->name, lazy_zstd.ZSTD_getErrorName(left));
            return -1;
        }
        o->z.len += ob.pos;
        if (left == 0 && in.pos == in.size)
            return 0;
    }
}

static void out_queue(struct out *o, const char *data, size_t len)
{
    if (o->qn == o->qcap) {
        size_t ncap = o->qcap ? o->qcap * 2 : 64;
        struct out_block *q = xmalloc(ncap * sizeof *q);
        for (size_t i = 0; i < o->qn; i++)
            q[i] = o->q[(o->qhead + i) % o->qcap];
        free(o->q);
        o->q = q, o->qcap = ncap, o->qhead = 0;
    }
    struct out_block *b = &o->q[(o->qhead + o->qn++) % o->qcap];
    b->data = xmalloc(len);
    memcpy(b->data, data, len);
    b->len = len;
    b->off = 0;
    o->qbytes += len;
}

/* Writes queued records in order until one fails (the part of it that a
 * FIFO took is not written again). Returns 0 when the backlog is empty. */
static int out_drain(struct out *o)
{
    while (o->qn) {
        struct out_block *b = &o->q[o->qhead];
        size_t done;
        int rc = out_write_all(o, b->data + b->off, b->len - b->off, &done);
        b->off += done;
        o->qbytes -= done;
        if (rc != 0)
            return -1;
        free(b->data);
        o->qhead = (o->qhead + 1) % o->qcap;
        o->qn--;
    }
    return 0;
}

/* Empties the backlog; count: whether its records count as dropped. */
static void out_discard(struct out *o, bool count)
{
    while (o->qn) {
        free(o->q[o->qhead].data);
        o->qhead = (o->qhead + 1) % o->qcap;
        o->qn--;
        o->dropped += count;
    }
    o->qbytes = 0;
}

UTIL_HOT int out_write(struct out *o, const char *buf, size_t len)
{
    if (o->qn && o->qbytes + (o->zstd ? lazy_zstd.ZSTD_compressBound(len) : len) > o->backlog_max && out_drain(o) != 0) {
        o->dropped++;   /* full: the newest goes, the backlog stays a contiguous stream */
        return 0;
    }
    if (o->zstd) {
        if (out_compress(o, buf, len, false) != 0) {
            o->dropped++;
            return 0;
        }
        buf = o->z.data, len = o->z.len;
    }
    if (o->qn == 0) {
        size_t done;
        if (out_write_all(o, buf, len, &done) == 0) {
            if (o->failing)
                goto recovered;   /* the backlog was drained just above */
            return 0;   /* the usual case: no copy */
        }
        if (errno == EPIPE)
            return -1;
        int e = errno;
        out_queue(o, buf + done, len - done);   /* a FIFO's part-written record: the rest comes first */
        if (e == EBADF)
            return errno = e, -1;   /* no descriptor (a closed stdout): nothing will ever be written; out_close says so */
    } else {
        out_queue(o, buf, len);
        if (out_drain(o) == 0)
            goto recovered;
        if (errno == EPIPE) {
            out_discard(o, false);   /* the reader is gone: nothing will ever read these */
            return -1;
        }
        if (errno == EBADF)
            return -1;
    }
    /* said when the trouble outlasts a record (a one-shot query gets out_close's one message only) */
    if (o->failing && !o->warned) {
        util_warn("cannot write to %s: %s; keeping records in memory (up to %zu MiB) and retrying at every sample",
                  out_where(o), strerror(errno), o->backlog_max >> 20);
        o->warned = true;
    }
    o->failing = true;
    return 0;
recovered:
    if (o->warned)
        util_warn("writing to %s again: delayed records written%s", out_where(o),
                  o->dropped ? " (some were dropped: the backlog was full)" : "");
    o->failing = o->warned = false;
    return 0;
}

/* Ends a compressed log's frame on the current file, after its backlog.
 * Returns 0, or -1 when the backlog or the epilogue could not be written. */
static int out_zstd_end(struct out *o)
{
    size_t done;
    if (out_drain(o) != 0 || out_compress(o, "", 0, true) != 0)
        return -1;
    return out_write_all(o, o->z.data, o->z.len, &done);
}

int out_reopen(struct out *o, char *err, size_t errlen)
{
    if (!o->path)
        return 0;
    int fd = open(o->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot reopen output file %s: %s (still writing to the old file)", o->name,
                 errno == ENXIO ? "the FIFO has no reader" : strerror(errno));
        return -1;
    }
    struct stat now, was;
    bool same = fstat(fd, &now) == 0 && fstat(o->fd, &was) == 0 && now.st_dev == was.st_dev &&
                now.st_ino == was.st_ino, fifo = o->fifo;
    if (same) {
        close(fd);   /* not moved (or copied and truncated): the locked descriptor goes on */
        fd = o->fd;
    } else if (out_setup_fd(fd, o->name, &fifo, err, errlen) != 0) {
        close(fd);
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, " (still writing to the old file)");
        return -1;
    }
    if (o->zstd && same && S_ISREG(now.st_mode) && now.st_size == 0) {
        /* truncated under gpumon (logrotate's copytruncate): the frame begun before cannot go on there */
        if (o->qn)
            util_warn("%zu delayed records for %s were dropped when it was truncated", o->qn, o->name);
        out_discard(o, true);
    } else if (o->zstd && out_zstd_end(o) != 0 && o->qn) {
        /* the delayed records continue the old file's stream: they cannot start the new one */
        util_warn("%zu delayed records for %s were dropped when it was reopened", o->qn, o->name);
        out_discard(o, true);
    }
    if (!same) {
        close(o->fd);
        o->fd = fd;
        o->fifo = fifo;
    }
    if (o->zstd)
        out_zstd_start(o, err, errlen);   /* a new frame: cannot fail with a context that exists */
    return 0;
}

int out_close(struct out *o)
{
    int rc = 0;
    o->closing = true;   /* a FIFO's reader that takes nothing more is given up (out_wait) */
    if (o->zstd && out_zstd_end(o) != 0 && o->qn == 0)
        util_warn("the end of the compressed log %s could not be written (%s): every record is there, but "
                  "zstd will say the file is truncated", o->name, strerror(errno));
    if (out_drain(o) != 0) {
        util_warn("%zu record%s could not be written to %s: %s", o->qn, o->qn == 1 ? "" : "s", out_where(o),
                  o->fifo && errno == EAGAIN ? "its reader does not read" : strerror(errno));
        out_discard(o, false);
        rc = -1;
    }
    if (o->dropped) {
        util_warn("%llu record%s dropped while %s could not be written", o->dropped,
                  o->dropped == 1 ? " was" : "s were", out_where(o));
        rc = -1;
    }
    if (o->path && close(o->fd) != 0) {
        util_warn("closing %s: %s", o->name, strerror(errno));
        rc = -1;
    }
    if (o->zstd)
        lazy_zstd.ZSTD_freeCCtx(o->zstd);
    free(o->q);
    free(o->path);
    free(o->name);
    sbuf_free(&o->z);
    return rc;
}
