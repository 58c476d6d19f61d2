/*
 * logsrc.c: log lines from plain or zstd input (see logsrc.h). Raw bytes
 * are read in 128 KiB chunks; a compressed log is decompressed into a
 * buffer of the same size; lines are cut from that buffer with memchr and
 * copied into a line buffer that grows up to the bound and no further.
 */
#include "logsrc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "lazylib.h"
#include "util.h"

#define LOGSRC_CHUNK (128u << 10)
#define LOGSRC_ZSTD_SLICE 4096u   /* compressed bytes per decompression call */

struct logsrc {
    FILE *f;
    bool own;
    char *path;                 /* for messages (util_short) */
    char *raw;                  /* bytes read from the file */
    size_t raw_pos, raw_end;
    bool raw_eof, started;
    ZSTD_DStream *z;            /* NULL: plain */
    size_t z_left;              /* the last ZSTD_decompressStream hint: 0 between frames */
    bool z_more;                /* the last call filled the output: more may wait inside */
    unsigned long long z_in;    /* compressed bytes consumed, for messages */
    unsigned long long z_good;  /* ... of which decoded without error */
    char *buf;                  /* decompressed bytes (plain: points at raw) */
    size_t pos, end;
    char *line;
    size_t len, cap;
    char warning[3200];
};

int logsrc_open(struct logsrc **out, const char *path, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    struct stat st;
    char shorter[UTIL_SHORT + 1];
    const char *name = util_short(path, shorter);
    if (!f) {
        snprintf(err, errlen, "cannot open log %s: %s", name, strerror(errno));
        return -1;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot read log %s: it is a directory", name);
        if (f != stdin)
            fclose(f);
        return -1;
    }
    struct logsrc *s = xcalloc(1, sizeof *s);
    s->f = f;
    s->own = f != stdin;
    s->path = xstrdup(name);
    s->raw = xmalloc(LOGSRC_CHUNK);
    *out = s;
    return 0;
}

/* Reads more raw bytes. Returns 0, or -1 with a message. */
static int logsrc_read_raw(struct logsrc *s, char *err, size_t errlen)
{
    s->raw_pos = 0;
    s->raw_end = fread(s->raw, 1, LOGSRC_CHUNK, s->f);
    if (s->raw_end == 0) {
        if (ferror(s->f)) {
            snprintf(err, errlen, "%s: read error: %s", s->path, strerror(errno));
            return -1;
        }
        s->raw_eof = true;
    }
    return 0;
}

/* Decides plain or zstd from the first bytes. */
static int logsrc_start(struct logsrc *s, char *err, size_t errlen)
{
    static const unsigned char magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
    s->started = true;
    if (logsrc_read_raw(s, err, errlen) != 0)
        return -1;
    if (s->raw_end >= 4 && !memcmp(s->raw, magic, 4)) {
        char e[600];
        if (lazy_zstd_load(e, sizeof e) != 0) {
            snprintf(err, errlen, "%s is zstd-compressed, but %s", s->path, e);
            return -1;
        }
        s->z = lazy_zstd.ZSTD_createDStream();
        if (!s->z) {
            snprintf(err, errlen, "%s: cannot start zstd decompression", s->path);
            return -1;
        }
        lazy_zstd.ZSTD_initDStream(s->z);
        s->buf = xmalloc(LOGSRC_CHUNK);
    } else {
        s->buf = s->raw;
        s->pos = 0, s->end = s->raw_end;
    }
    return 0;
}

/* Refills buf; at the end of the input leaves it empty. */
static int logsrc_fill(struct logsrc *s, char *err, size_t errlen)
{
    if (!s->z) {
        if (logsrc_read_raw(s, err, errlen) != 0)
            return -1;
        s->pos = 0, s->end = s->raw_end;
        return 0;
    }
    s->pos = s->end = 0;
    while (s->end == 0) {
        if (s->raw_pos == s->raw_end && !s->z_more) {
            if (!s->raw_eof && logsrc_read_raw(s, err, errlen) != 0)
                return -1;
            if (s->raw_eof) {
                if (s->z_left != 0)
                    snprintf(s->warning, sizeof s->warning, "%s ends inside a zstd frame (the writer was "
                             "killed, or the file was cut): every complete record before that was read", s->path);
                return 0;
            }
        }
        /* the input in slices, so that damage is placed between the last byte that decoded and the end
         * of a slice (gpumon's own logs have a block per record), not anywhere in a whole chunk */
        size_t start = s->raw_pos, slice = s->raw_end - start < LOGSRC_ZSTD_SLICE ? s->raw_end - start
                                                                                 : LOGSRC_ZSTD_SLICE;
        ZSTD_inBuffer in = {s->raw, start + slice, start};
        ZSTD_outBuffer ob = {s->buf, LOGSRC_CHUNK, 0};
        size_t r = lazy_zstd.ZSTD_decompressStream(s->z, &ob, &in);
        unsigned long long slice_end = s->z_in + slice;
        s->z_in += in.pos - start;
        s->raw_pos = in.pos;
        if (lazy_zstd.ZSTD_isError(r)) {
            snprintf(err, errlen, "%s: compressed data is damaged between bytes %llu and %llu: %s", s->path,
                     s->z_good, slice_end, lazy_zstd.ZSTD_getErrorName(r));
            return -1;
        }
        if (ob.pos > 0 || r == 0)
            s->z_good = s->z_in;   /* decoded up to here */
        s->z_left = r;
        s->z_more = ob.pos == ob.size;
        s->end = ob.pos;
    }
    return 0;
}

static int logsrc_append(struct logsrc *s, const char *p, size_t n, char *err, size_t errlen)
{
    if (s->len + n > LOGSRC_MAX_LINE) {
        snprintf(err, errlen, "a line longer than %u MiB: not a gpumon record", LOGSRC_MAX_LINE >> 20);
        return -1;
    }
    if (s->len + n + 1 + LOGSRC_PAD > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1 + LOGSRC_PAD)
            cap *= 2;
        s->line = xrealloc(s->line, cap);
        s->cap = cap;
    }
    memcpy(s->line + s->len, p, n);
    s->len += n;
    return 0;
}

int logsrc_line(struct logsrc *s, char **line, size_t *len, bool *complete, char *err, size_t errlen)
{
    if (!s->started && logsrc_start(s, err, errlen) != 0)
        return -1;
    s->len = 0;
    for (;;) {
        if (s->pos == s->end) {
            if (logsrc_fill(s, err, errlen) != 0)
                return -1;
            if (s->end == 0) {   /* the end of the input */
                if (s->len == 0)
                    return 0;
                *complete = false;
                break;
            }
        }
        const char *p = s->buf + s->pos, *nl = memchr(p, '\n', s->end - s->pos);
        size_t n = nl ? (size_t)(nl - p) : s->end - s->pos;
        if (logsrc_append(s, p, n, err, errlen) != 0)
            return -1;
        s->pos += n + (nl != NULL);
        if (nl) {
            *complete = true;
            break;
        }
    }
    if (s->len > 0 && s->line[s->len - 1] == '\r')
        s->len--;
    if (!s->line)
        logsrc_append(s, "", 0, err, errlen);
    memset(s->line + s->len, 0, 1 + LOGSRC_PAD);   /* the NUL, and the padding defined */
    *line = s->line;
    *len = s->len;
    return 1;
}

void logsrc_swap(struct logsrc *s, char **buf, size_t *cap)
{
    char *b = s->line;
    size_t c = s->cap;
    s->line = *buf, s->cap = *cap;
    *buf = b, *cap = c;
}

bool logsrc_compressed(const struct logsrc *s)
{
    return s->z != NULL;
}

const char *logsrc_warning(const struct logsrc *s)
{
    return s->warning[0] ? s->warning : NULL;
}

void logsrc_close(struct logsrc *s)
{
    if (!s)
        return;
    if (s->own)
        fclose(s->f);
    if (s->z) {
        lazy_zstd.ZSTD_freeDStream(s->z);
        free(s->buf);
    }
    free(s->raw);
    free(s->line);
    free(s->path);
    free(s);
}
