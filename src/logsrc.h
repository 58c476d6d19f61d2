/*
 * logsrc.h: the lines of a log: a file or standard input, plain or
 * zstd-compressed (recognized by the zstd magic number, not by the name,
 * so `zstdcat`-free pipes and renamed files work), read in chunks with the
 * length of a line bounded while it is read: a hostile line is refused at
 * LOGSRC_MAX_LINE bytes, never read whole into memory. A compressed log
 * may be several frames (one per time gpumon opened it) and may end
 * inside a frame (the writer was killed): every complete line before that
 * is read, and the end is a warning, not an error.
 */
#ifndef GPUMON_LOGSRC_H
#define GPUMON_LOGSRC_H

#include <stdbool.h>
#include <stddef.h>

#define LOGSRC_MAX_LINE (16u << 20)   /* a longer line is not one of gpumon's records */
#define LOGSRC_PAD 64                 /* readable bytes after a line's NUL (simdjson's padding) */

struct logsrc;

/* Opens path ("-": standard input). A directory is refused. Returns 0, or
 * -1 with a message. */
int logsrc_open(struct logsrc **out, const char *path, char *err, size_t errlen);
/* The next line: newline (and a CR before it) removed, NUL-terminated,
 * LOGSRC_PAD bytes readable after the NUL, valid until the next call. Returns 1 with *complete telling whether it
 * ended with a newline; 0 at the end; -1 with a message (a read error, a
 * line over LOGSRC_MAX_LINE, compressed data that is not zstd's). */
int logsrc_line(struct logsrc *s, char **line, size_t *len, bool *complete, char *err, size_t errlen);
/* Exchanges the line buffer (*buf of *cap bytes, NULL and 0 for none) with logsrc's: the next line is read
 * into the one given, and a caller that keeps lines keeps that one instead of copying the line out. */
void logsrc_swap(struct logsrc *s, char **buf, size_t *cap);
/* True for a zstd-compressed log (known once the first bytes are read). */
bool logsrc_compressed(const struct logsrc *s);
/* A warning about the end of the log (a compressed log cut inside a
 * frame), or NULL. */
const char *logsrc_warning(const struct logsrc *s);
void logsrc_close(struct logsrc *s);

#endif
