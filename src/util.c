/*
 * util.c: allocation that cannot fail, the record buffer, time and number
 * parsing helpers. Nothing here knows about GPUs.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void util_oom(size_t n)
{
    fprintf(stderr, "gpumon: out of memory (allocating %zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        util_oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        util_oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        util_oom(n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

const char *util_short(const char *s, char *out)
{
    size_t n = strlen(s);
    if (n <= UTIL_SHORT)
        return s;
    size_t head = UTIL_SHORT - 100 - 3;
    memcpy(out, s, head);
    memcpy(out + head, "...", 3);
    memcpy(out + head + 3, s + n - 100, 100);
    out[UTIL_SHORT] = '\0';
    return out;
}

void util_warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gpumon: %s\n", msg);
}

void sbuf_init(struct sbuf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
}

void sbuf_free(struct sbuf *b)
{
    free(b->data);
    sbuf_init(b);
}

void sbuf_reset(struct sbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void sbuf_grow(struct sbuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void sbuf_puts(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap)
        sbuf_grow(b, n);
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

void sbuf_put_int(struct sbuf *b, long long v)
{
    char tmp[24];
    int i = sizeof tmp;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--i] = '-';
    sbuf_add(b, tmp + i, sizeof tmp - (size_t)i);
}

void sbuf_put_fixed(struct sbuf *b, double v, int decimals)
{
    static const double pow10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
    if (decimals < 0 || decimals > 6 || !(fabs(v) < 1e12)) {
        sbuf_printf(b, "%.*f", decimals < 0 ? 0 : decimals, v);
        return;
    }
    double scaled = fabs(v) * pow10[decimals] + 0.5;
    unsigned long long u = (unsigned long long)scaled;
    unsigned long long p = (unsigned long long)pow10[decimals];
    if (v < 0 && u != 0)
        sbuf_putc(b, '-');
    sbuf_put_int(b, (long long)(u / p));
    if (decimals == 0)
        return;
    char frac[8];
    unsigned long long f = u % p;
    for (int i = decimals - 1; i >= 0; i--, f /= 10)
        frac[i] = (char)('0' + f % 10);
    sbuf_putc(b, '.');
    sbuf_add(b, frac, (size_t)decimals);
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    sbuf_grow(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void util_cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

uint64_t util_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void util_next_deadline(uint64_t *next, uint64_t step)
{
    *next += step;
    uint64_t now = util_mono_ns();
    if (step && now > *next)
        *next += ((now - *next) / step + 1) * step;
}

void util_rfc3339(const struct timespec *t, char out[32])
{
    struct tm tm;
    time_t s = t->tv_sec;
    gmtime_r(&s, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int)(t->tv_nsec / 1000000) % 1000);
}

int util_parse_duration_ms(const char *s, double *out_ms)
{
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return -1;
    double scale;
    if (!strcmp(end, "") || !strcmp(end, "s"))
        scale = 1000;
    else if (!strcmp(end, "ms"))
        scale = 1;
    else if (!strcmp(end, "m") || !strcmp(end, "min"))
        scale = 60000;
    else if (!strcmp(end, "h"))
        scale = 3600000;
    else
        return -1;
    *out_ms = v * scale;
    return 0;
}

int util_parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Parses a PCI bus id, [domain:]bus:device.function, all hex (NVML's 8-digit domain, the legacy
 * 4-digit one, or none, which is domain 0), into out. Returns 0, or -1 when it is not one. */
static int util_parse_bus_id(const char *id, unsigned long long out[4])
{
    static const char seps[] = "::.";
    const char *p = id;
    int colons = 0;
    for (const char *c = id; *c; c++)
        colons += *c == ':';
    if (colons < 1 || colons > 2)
        return -1;
    out[0] = 0;
    for (int i = colons == 2 ? 0 : 1; i < 4; i++) {
        char *end;
        if (!isxdigit((unsigned char)*p))
            return -1;
        errno = 0;
        out[i] = strtoull(p, &end, 16);
        if (errno || end - p > 8 || (i < 3 ? *end != seps[i] : *end != '\0'))
            return -1;
        p = end + (i < 3);
    }
    return 0;
}

bool util_gpu_named(const char *tok, unsigned index, const char *uuid, const char *bus_id)
{
    unsigned long long idx, want[4], have[4];
    if (util_parse_uint(tok, 1u << 20, &idx) == 0)
        return idx == index;
    if (uuid && !strcasecmp(tok, uuid))
        return true;
    return bus_id && util_parse_bus_id(tok, want) == 0 && util_parse_bus_id(bus_id, have) == 0 &&
           !memcmp(want, have, sizeof want);
}
