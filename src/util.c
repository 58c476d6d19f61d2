/*
 * util.c: allocation that cannot fail, the record buffer, time and number
 * parsing helpers. Nothing here knows about GPUs.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

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

/* Under AddressSanitizer the pages come from calloc: its leak checker does not look for pointers in
 * memory of mmap's (the sampler's GPUs hold allocations), and sanitized builds measure no RSS. */
#if defined(__SANITIZE_ADDRESS__)
#define UTIL_PAGES_CALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UTIL_PAGES_CALLOC 1
#endif
#endif

void *xcalloc_pages(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        util_oom(SIZE_MAX);
#ifdef UTIL_PAGES_CALLOC
    return xcalloc(n, size);
#else
    size_t bytes = n * size;
    bytes = bytes ? bytes : 1;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        util_oom(bytes);
    return p;
#endif
}

void xfree_pages(void *p, size_t n, size_t size)
{
#ifdef UTIL_PAGES_CALLOC
    (void)n, (void)size;
    free(p);
#else
    size_t bytes = n * size;
    if (p)
        munmap(p, bytes ? bytes : 1);
#endif
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

UTIL_HOT void sbuf_reset(struct sbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

UTIL_HOT void sbuf_grow(struct sbuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

UTIL_HOT void sbuf_puts(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap)
        sbuf_grow(b, n);
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

/* "00" to "99": two digits per division. */
static const char util_digits2[201] = "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243"
                                      "4445464748495051525354555657585960616263646566676869707172737475767778798081828384858687"
                                      "888990919293949596979899";

static const unsigned long long util_pow10_u[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull};

/* Decimal digits of v: from its bit length (log10(2) ~ 1233 / 4096), one comparison to correct. */
UTIL_HOT static unsigned util_digit_count(unsigned long long v)
{
    unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233u >> 12;
    return t + (v >= util_pow10_u[t]);
}

/* Writes the n lowest digits of v (zero-padded) ending at end. */
UTIL_HOT static void util_digits(char *end, unsigned long long v, unsigned n)
{
    while (n >= 2 && v > 0xFFFFFFFFull) {
        end -= 2;
        memcpy(end, util_digits2 + 2 * (v % 100), 2);
        v /= 100;
        n -= 2;
    }
    uint32_t w = (uint32_t)v;   /* the rest in 32 bits: cheaper divisions */
    while (n >= 2) {
        end -= 2;
        memcpy(end, util_digits2 + 2 * (w % 100), 2);
        w /= 100;
        n -= 2;
    }
    if (n)
        *--end = (char)('0' + w % 10);
}

UTIL_HOT size_t util_fmt_uint(char *out, unsigned long long v)
{
    if (v < 10) {
        out[0] = (char)('0' + v);
        return 1;
    }
    if (v < 100) {
        memcpy(out, util_digits2 + 2 * v, 2);
        return 2;
    }
    unsigned n = util_digit_count(v);
    util_digits(out + n, v, n);
    return n;
}

UTIL_HOT size_t util_fmt_int(char *out, long long v)
{
    if (v >= 0)
        return util_fmt_uint(out, (unsigned long long)v);
    out[0] = '-';
    return 1 + util_fmt_uint(out + 1, 0ull - (unsigned long long)v);
}

/*
 * The fast path of "%.*f" (decimals 0-9). glibc's printf rounds the exact binary value of v to the
 * nearest multiple of 10^-decimals, ties to even; so does this, exactly:
 *   p = |v| * 10^d rounded, and e = |v| * 10^d - p exactly (Dekker's product: |v| split into two
 *   halves of 26 bits, 10^d, at most 21 significant bits, needs no split, so both partial products
 *   are exact), so |v| * 10^d = n0 + frac + e exactly, with n0 = floor(p) and frac = p - n0 exact;
 *   while p < 2^50, |e| <= ulp(p) / 2 <= 2^-4, so frac < 1/4 rounds down, frac > 3/4 up, and in
 *   between frac - 1/2 is exact (Sterbenz) and its sum with e compares with 0 exactly: above up,
 *   below down, zero a true tie (to even).
 * Outside it (|v| * 10^d >= 2^50, NaN, infinities, more decimals) the caller asks printf. x87
 * arithmetic (FLT_EVAL_METHOD != 0) would break the exactness: there printf does it all.
 */
static const double util_pow10[10] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/* The fast path of both spellings: signed_zero writes the sign of a negative that rounds to zero. */
UTIL_HOT static size_t util_fixed(char *out, double v, int decimals, bool signed_zero)
{
#if FLT_EVAL_METHOD == 0
    if (decimals < 0 || decimals > 9)
        return 0;
    double a = fabs(v), P = util_pow10[decimals];
    double p = a * P;
    if (!(p < 1125899906842624.0))   /* 2^50; false for NaN */
        return 0;
    unsigned long long n = 0;
    if (p >= 0.25) {   /* below, the exact product is under 0.25 + 2^-4: rounds to 0 */
        double c = 134217729.0 * a;   /* 2^27 + 1: Veltkamp's split */
        double ah = c - (c - a), al = a - ah;
        double e = (ah * P - p) + al * P;
        n = (unsigned long long)p;
        double frac = p - (double)n;
        if (frac > 0.75)
            n++;
        else if (frac >= 0.25) {
            double d = frac - 0.5;
            n += d > -e || (d == -e && (n & 1));
        }
    }
    char *o = out;
    if (signbit(v) && (n || signed_zero))
        *o++ = '-';
    if (!decimals)
        return (size_t)(o - out) + util_fmt_uint(o, n);
    /* n's digits, at least one before the point: the integer part, the point, the decimals */
    unsigned d = (unsigned)decimals, nd = util_digit_count(n);
    nd = nd > d ? nd : d + 1;
    char digits[40];   /* copied 16 bytes at a time: the caller's room (UTIL_FMT_ROOM) takes the rest */
    util_digits(digits + nd, n, nd);
    memcpy(o, digits, 16);
    o += nd - d;
    *o++ = '.';
    memcpy(o, digits + nd - d, 16);
    return (size_t)(o + d - out);
#else
    (void)out, (void)v, (void)decimals, (void)signed_zero;
    return 0;
#endif
}

UTIL_HOT size_t util_fmt_fixed(char *out, double v, int decimals)
{
    return util_fixed(out, v, decimals, true);
}

UTIL_HOT size_t util_fmt_decimal(char *out, double v, int decimals)
{
    return decimals > 6 ? 0 : util_fixed(out, v, decimals, false);   /* more: printf's, as always */
}

UTIL_HOT void sbuf_put_int(struct sbuf *b, long long v)
{
    if (b->len + 21 > b->cap)
        sbuf_grow(b, 20);
    b->len += util_fmt_int(b->data + b->len, v);
    b->data[b->len] = '\0';
}

UTIL_HOT void sbuf_put_fixed(struct sbuf *b, double v, int decimals)
{
    if (b->len + UTIL_FMT_ROOM + 1 > b->cap)
        sbuf_grow(b, UTIL_FMT_ROOM);
    size_t n = util_fmt_decimal(b->data + b->len, v, decimals);
    if (n == 0) {
        sbuf_printf(b, "%.*f", decimals < 0 ? 0 : decimals, v);
        return;
    }
    b->len += n;
    b->data[b->len] = '\0';
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    if (b->cap - b->len < 64)   /* room for what most calls write, so that one vsnprintf does */
        sbuf_grow(b, 64);
    va_start(ap, fmt);
    int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->data[b->len] = '\0';
        return;
    }
    if ((size_t)n >= b->cap - b->len) {   /* cut short: again, with the room it needs */
        sbuf_grow(b, (size_t)n);
        va_start(ap, fmt);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
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

UTIL_HOT uint64_t util_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

UTIL_HOT void util_next_deadline(uint64_t *next, uint64_t step)
{
    *next += step;
    uint64_t now = util_mono_ns();
    if (step && now > *next)
        *next += ((now - *next) / step + 1) * step;
}

UTIL_HOT void util_rfc3339(const struct timespec *t, char out[32])
{
    /* the date and time of the latest second, per thread: records come many a second */
    static _Thread_local time_t last_s;
    static _Thread_local char last[32];
    static _Thread_local size_t last_n;
    time_t s = t->tv_sec;
    if (!last_n || s != last_s) {
        struct tm tm;
        gmtime_r(&s, &tm);
        last_n = strftime(last, sizeof last, "%Y-%m-%dT%H:%M:%S", &tm);
        last_s = s;
    }
    memcpy(out, last, last_n);
    int ms = (int)(t->tv_nsec / 1000000) % 1000;
    if (last_n + 6 > 32 || ms < 0) {   /* a year of 10+ digits, or a negative remainder: as printf writes it */
        snprintf(out + last_n, 32 - last_n, ".%03dZ", ms);
        return;
    }
    out[last_n] = '.';
    util_digits(out + last_n + 4, (unsigned)ms, 3);
    out[last_n + 4] = 'Z';
    out[last_n + 5] = '\0';
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
