/*
 * util.h: the small toolbox every module shares.
 *
 * Two error regimes (see STYLE.md): running out of memory is fatal, so the
 * x* allocators never return NULL; every other failure is returned to the
 * caller with a message. sbuf is a growable byte buffer used to build one
 * complete output record before it is written in a single call, so a record
 * is never half-written by us. Time helpers give monotonic nanoseconds for
 * scheduling and wall-clock time for timestamps.
 */
#ifndef GPUMON_UTIL_H
#define GPUMON_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* Prints "gpumon: <message>" on stderr. */
void util_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct sbuf {
    char *data;
    size_t len, cap;
};
void sbuf_init(struct sbuf *b);
void sbuf_free(struct sbuf *b);
void sbuf_reset(struct sbuf *b);
void sbuf_add(struct sbuf *b, const char *s, size_t n);
void sbuf_puts(struct sbuf *b, const char *s);
void sbuf_putc(struct sbuf *b, char c);
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

uint64_t util_mono_ns(void);
/* Formats t as RFC 3339 UTC with milliseconds: 2026-11-29T21:03:04.567Z. */
void util_rfc3339(const struct timespec *t, char out[32]);
/* Parses a duration: "250ms", "1.5s", "2" (seconds), "1m". Returns -1 on error. */
int util_parse_duration_ms(const char *s, double *out_ms);
/* Parses a non-negative integer; -1 when s is not one entirely. */
int util_parse_uint(const char *s, unsigned long long max, unsigned long long *out);

#endif
