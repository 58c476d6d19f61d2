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

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Zeroed memory of its own pages for a large array of which a sample writes a few parts (the sampler's
 * GPUs): a page never written is never resident, where calloc clears them all (peak RSS). Freed by
 * xfree_pages with the same n and size. */
void *xcalloc_pages(size_t n, size_t size);
void xfree_pages(void *p, size_t n, size_t size);

/* s for a message: itself, or when longer than UTIL_SHORT chars its start
 * and end around "...", so that what follows it (the reason) is not lost
 * to a message buffer. out must hold UTIL_SHORT + 1 bytes. */
#define UTIL_SHORT 240

/* The code every sample runs (the sampler's readers, the host's /proc readers, the sinks' record
 * writers and their formatting, the wait and the write) is marked UTIL_HOT: the linker lays it out
 * together instead of among the code that runs once, so a sample, which starts cold after sleeping
 * (its code fetched from memory one miss after another), touches fewer cache lines and pages of code.
 * The section is .text.hot, which the linkers' default scripts put at the front of .text, next to
 * the rest of the sampling commands' code (CMakeLists.txt's GPUMON_HOT_SOURCES), not after all of it,
 * where it would keep a 64 kB window of code resident of its own (fault-around; docs/benchmarks.md).
 * It changes nothing else; where the compiler cannot name sections, it is nothing. */
#if defined(__GNUC__) && defined(__ELF__)
#define UTIL_HOT __attribute__((section(".text.hot")))
#else
#define UTIL_HOT
#endif
const char *util_short(const char *s, char *out);

/* Prints "gpumon: <message>" on stderr. */
void util_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct sbuf {
    char *data;
    size_t len, cap;
};
void sbuf_init(struct sbuf *b);
void sbuf_free(struct sbuf *b);
void sbuf_reset(struct sbuf *b);
/* Makes room for extra more bytes plus a NUL (the slow path of sbuf_add). */
void sbuf_grow(struct sbuf *b, size_t extra);
void sbuf_puts(struct sbuf *b, const char *s);
/* Appends a decimal integer, or a fixed-point number with `decimals` digits,
 * as printf's "%lld" and "%.*f" write them (util_fmt_fixed), except that with
 * up to 6 decimals a number that rounds to zero has no minus sign ("0.00",
 * never "-0.00"). */
void sbuf_put_int(struct sbuf *b, long long v);
void sbuf_put_fixed(struct sbuf *b, double v, int decimals);
/* Number formatting without printf, into out (unterminated); each returns the length written.
 * util_fmt_uint/int need 20 bytes. util_fmt_fixed writes exactly what snprintf(out, n, "%.*f",
 * decimals, v) would (rounding the exact binary value, ties to even; "-0.00" for a negative that
 * rounds to zero), at most 19 bytes but scribbling up to UTIL_FMT_ROOM, or returns 0, having written
 * nothing, when v is not on its fast path (NaN, infinities, |v| * 10^decimals >= 2^50, decimals
 * outside 0-9): the caller asks printf then. */
#define UTIL_FMT_ROOM 40
size_t util_fmt_uint(char *out, unsigned long long v);
size_t util_fmt_int(char *out, long long v);
size_t util_fmt_fixed(char *out, double v, int decimals);
/* The same with sbuf_put_fixed's sign: none on a number that rounds to zero; 0 (printf's) for more than
 * 6 decimals. */
size_t util_fmt_decimal(char *out, double v, int decimals);

static inline void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap)
        sbuf_grow(b, n);
    if (n <= 16)   /* short runs (keys, numbers): cheaper than a memcpy call */
        for (size_t i = 0; i < n; i++)
            b->data[b->len + i] = s[i];
    else
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline void sbuf_putc(struct sbuf *b, char c)
{
    if (b->len + 2 > b->cap)
        sbuf_grow(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

uint64_t util_mono_ns(void);
/* Initializes a condition variable whose timed waits use CLOCK_MONOTONIC
 * deadlines (util_mono_ns), so changes of the wall clock do not move them. */
void util_cond_init_monotonic(pthread_cond_t *cv);
/* Advances *next by one step on the monotonic clock (util_mono_ns),
 * skipping deadlines already missed: no bunching, no drift. Sleeping until
 * it is sig_wait()'s (sig.h), so that signals end the wait. */
void util_next_deadline(uint64_t *next, uint64_t step);
/* Formats t as RFC 3339 UTC with milliseconds: 2026-11-29T21:03:04.567Z. */
void util_rfc3339(const struct timespec *t, char out[32]);
/* Parses a duration: "250ms", "1.5s", "2" (seconds), "1m". Returns -1 on error. */
int util_parse_duration_ms(const char *s, double *out_ms);
/* Parses a non-negative integer; -1 when s is not one entirely. */
int util_parse_uint(const char *s, unsigned long long max, unsigned long long *out);
/* Does tok (as --gpus and nvidia-smi's -i take it) name the GPU with this index, UUID and PCI bus
 * id? An index, a UUID (any case) or a bus id, [domain:]bus:device.function in hex (NVML's 8-digit
 * domain, the legacy 4-digit one, or none: domain 0). uuid and bus_id may be NULL (unknown). */
bool util_gpu_named(const char *tok, unsigned index, const char *uuid, const char *bus_id);

#endif
