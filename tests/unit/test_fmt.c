/*
 * test_fmt.c: value formatting and string escaping, the rules every sink
 * relies on: unsupported is never 0, JSON is always valid, CSV quotes what
 * needs quoting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "nvml_abi.h"

static char out[512];

static const char *fmt(enum metric_id id, struct value v, enum fmt_style st)
{
    struct sbuf b;
    sbuf_init(&b);
    fmt_value(&b, &metric_table[id], &v, st);
    snprintf(out, sizeof out, "%s", b.data ? b.data : "");
    sbuf_free(&b);
    return out;
}

static const char *json(const char *s)
{
    struct sbuf b;
    sbuf_init(&b);
    fmt_json_string(&b, s);
    snprintf(out, sizeof out, "%s", b.data);
    sbuf_free(&b);
    return out;
}

static const char *csv(const char *s)
{
    struct sbuf b;
    sbuf_init(&b);
    fmt_csv_field(&b, s);
    snprintf(out, sizeof out, "%s", b.data ? b.data : "");
    sbuf_free(&b);
    return out;
}

static void test_numbers(void **state)
{
    (void)state;
    struct value v = {.state = VS_OK, .u.i = 87};
    assert_string_equal(fmt(M_UTIL_GPU, v, FMT_CSV), "87");
    assert_string_equal(fmt(M_UTIL_GPU, v, FMT_JSON), "87");
    struct value p = {.state = VS_OK, .u.f = 312.456};
    assert_string_equal(fmt(M_POWER, p, FMT_TEXT), "312.46");
    struct value ps = {.state = VS_OK, .u.i = 0};
    assert_string_equal(fmt(M_PSTATE, ps, FMT_CSV), "P0");
    assert_string_equal(fmt(M_PSTATE, ps, FMT_JSON), "\"P0\"");
    struct value mask = {.state = VS_OK, .u.i = 0x44};
    assert_string_equal(fmt(M_REASONS, mask, FMT_CSV), "0x0000000000000044");
    assert_string_equal(fmt(M_REASONS, mask, FMT_JSON), "68");
    struct value flag = {.state = VS_OK, .u.i = 1};
    assert_string_equal(fmt(M_R_HW_THERMAL, flag, FMT_JSON), "true");
    assert_string_equal(fmt(M_R_HW_THERMAL, flag, FMT_TEXT), "Active");
    flag.u.i = 0;
    assert_string_equal(fmt(M_R_HW_THERMAL, flag, FMT_CSV), "0");
}

static void test_not_ok_is_never_zero(void **state)
{
    (void)state;
    struct value uns = {.state = VS_UNSUPPORTED, .code = NVML_ERROR_NOT_SUPPORTED};
    assert_string_equal(fmt(M_FAN, uns, FMT_CSV), "[Not Supported]");
    assert_string_equal(fmt(M_FAN, uns, FMT_JSON), "null");
    struct value lost = {.state = VS_LOST, .code = NVML_ERROR_GPU_IS_LOST};
    assert_string_equal(fmt(M_POWER, lost, FMT_TEXT), "[GPU is lost]");
    struct value perm = {.state = VS_ERROR, .code = NVML_ERROR_NO_PERMISSION};
    assert_string_equal(fmt(M_POWER, perm, FMT_CSV), "[Insufficient Permissions]");
    struct value err = {.state = VS_ERROR, .code = 999};
    assert_string_equal(fmt(M_POWER, err, FMT_CSV), "[Error 999]");
    struct value none = {.state = VS_NONE};
    assert_string_equal(fmt(M_UTIL_MIN, none, FMT_CSV), "[N/A]");
    assert_string_equal(fmt(M_NAME, none, FMT_JSON), "null");
}

/* One marker table: each kind of missing value in each style. */
static void test_markers(void **state)
{
    (void)state;
    static const struct { struct value v; const char *full, *brief, *smi; } rows[] = {
        {{.state = VS_NONE}, "[N/A]", "n/a", "[N/A]"},
        {{.state = VS_UNSUPPORTED, .code = 3}, "[Not Supported]", "n/a", "[N/A]"},
        {{.state = VS_ERROR, .code = 26}, "[Deprecated]", "n/a", "[Requested functionality has been deprecated]"},
        {{.state = VS_ERROR, .code = 4}, "[Insufficient Permissions]", "no-perm", "[Insufficient Permissions]"},
        {{.state = VS_ERROR, .code = 17}, "[Error 17]", "ERR", "[Unknown Error]"},
        {{.state = VS_LOST, .code = 15}, "[GPU is lost]", "LOST", "[GPU is lost]"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_string_equal(fmt_marker(&rows[i].v, FMT_MARK_FULL, buf, sizeof buf), rows[i].full);
        assert_string_equal(fmt_marker(&rows[i].v, FMT_MARK_BRIEF, buf, sizeof buf), rows[i].brief);
        assert_string_equal(fmt_marker(&rows[i].v, FMT_MARK_SMI, buf, sizeof buf), rows[i].smi);
    }
}

static void test_json_escaping(void **state)
{
    (void)state;
    assert_string_equal(json("plain"), "\"plain\"");
    assert_string_equal(json("a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_string_equal(json("tab\tnl\n"), "\"tab\\tnl\\n\"");
    assert_string_equal(json("\x01\x1f"), "\"\\u0001\\u001f\"");
    assert_string_equal(json("caf\xc3\xa9"), "\"caf\xc3\xa9\"");           /* valid UTF-8 kept */
    assert_string_equal(json("bad\xff"), "\"bad\\ufffd\"");                   /* invalid byte replaced */
    assert_string_equal(json("\xc3"), "\"\\ufffd\"");                         /* truncated sequence */
    assert_string_equal(json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");   /* surrogate */
}

static void test_csv_quoting(void **state)
{
    (void)state;
    assert_string_equal(csv("NVIDIA H200"), "NVIDIA H200");
    assert_string_equal(csv("a,b"), "\"a,b\"");
    assert_string_equal(csv("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_string_equal(csv("line\nbreak"), "\"line\nbreak\"");
    assert_string_equal(csv(" padded"), "\" padded\"");
    assert_string_equal(csv(""), "");
}

/* util_fmt_fixed writes what snprintf's "%.*f" writes, byte for byte, or declines (0) and the caller asks
 * printf; sbuf_put_fixed (every sink's decimals) is the same but for the sign of a negative zero. */
static uint64_t fixed_rng = 0x9E3779B97F4A7C15ull;

static uint64_t fixed_next(void)
{
    fixed_rng ^= fixed_rng << 13;
    fixed_rng ^= fixed_rng >> 7;
    fixed_rng ^= fixed_rng << 17;
    return fixed_rng;
}

static unsigned long fixed_fast;

static void fixed_check(double v, int d)
{
    char mine[UTIL_FMT_ROOM + 1], printf_s[512];
    snprintf(printf_s, sizeof printf_s, "%.*f", d, v);
    size_t n = util_fmt_fixed(mine, v, d);
    if (n) {
        fixed_fast++;
        mine[n] = '\0';
        if (strcmp(mine, printf_s) != 0)
            fail_msg("%%.%df of %.17g: fast path \"%s\", printf \"%s\"", d, v, mine, printf_s);
    }
    struct sbuf b;
    sbuf_init(&b);
    sbuf_put_fixed(&b, v, d);
    const char *want = printf_s;
    if (d <= 6 && printf_s[0] == '-' && strspn(printf_s + 1, "0.") == strlen(printf_s + 1))
        want = printf_s + 1;   /* a negative that rounds to zero: no sign (up to 6 decimals) */
    if (strcmp(b.data, want) != 0)
        fail_msg("sbuf_put_fixed(%.17g, %d): \"%s\", want \"%s\"", v, d, b.data, want);
    sbuf_free(&b);
}

static void test_fixed_matches_printf(void **state)
{
    (void)state;
    static const double edges[] = {
        0, 0.5, 1.5, 2.5, 3.5, 0.125, 0.375, 0.625, 0.875, 0.0625, 0.25, 0.75,   /* exact ties: to even */
        0.005, 0.015, 0.025, 0.045, 1.005, 2.675, 1.115, 8.345, 99.995, 9.9995, 0.9999999999, 0.95, 0.05,
        0.49999999999999994, 0.5000000000000001, 1.0 / 3, 2.0 / 3, 12345.6789, 612.005, 81234567.0125,
        1e-300, 5e-324, 2.2250738585072014e-308, 1e-10, 4.9e-10, 5e-10, 5.1e-10,
        1e9, 1e12, 1e15, 1125899906842623.5, 1125899906842624.0, 4503599627370495.5, 9007199254740993.0,
        1e17, 1e22, 1.7976931348623157e308,
    };
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        for (int d = 0; d <= 10; d++) {
            fixed_check(edges[i], d);
            fixed_check(-edges[i], d);
            fixed_check(nextafter(edges[i], 0), d);
            fixed_check(nextafter(edges[i], INFINITY), d);
        }
    for (int d = 0; d <= 10; d++) {
        fixed_check(NAN, d);
        fixed_check(-NAN, d);
        fixed_check(INFINITY, d);
        fixed_check(-INFINITY, d);
        fixed_check(-0.0, d);
    }
    for (long i = 0; i < 400000; i++) {
        int d = (int)(fixed_next() % 10);
        uint64_t r = fixed_next();
        double v;
        switch (i % 6) {
        case 0:   /* any bit pattern */
            memcpy(&v, &r, sizeof v);
            break;
        case 1:   /* a counter in thousandths, as energy in J from mJ */
            v = (double)(r % 100000000000ull) / 1000.0;
            break;
        case 2:   /* dyadic fractions: exact ties at many decimals */
            v = (double)(r % 4000000) / 1024.0 * ((r >> 60) & 1 ? -1 : 1);
            break;
        case 3:   /* the decimal halfway points of d digits, and their neighbours */
            v = ((double)(r % 10000000) + 0.5) / pow(10, d);
            v = (r >> 62) == 0 ? nextafter(v, 0) : (r >> 62) == 1 ? nextafter(v, INFINITY) : v;
            break;
        case 4:   /* any magnitude */
            v = ldexp((double)(r >> 11), (int)(fixed_next() % 100) - 100);
            break;
        default:  /* percentages and watts as readings give them */
            v = (double)(r % 100000) / 1000.0 + (double)(r >> 40) / 1e16;
            break;
        }
        fixed_check(v, d);
    }
    assert_true(fixed_fast > 300000);   /* the fast path took most of them */
}

static void test_ints(void **state)
{
    (void)state;
    static const long long vals[] = {0, 1, 9, 10, 99, 100, 999, 1000, 65535, 4294967295ll, 4294967296ll,
                                     999999999999ll, 1000000000000ll, 9223372036854775807ll, -1, -10, -99,
                                     -4294967296ll, -9223372036854775807ll - 1};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        char mine[24], want[32];
        snprintf(want, sizeof want, "%lld", vals[i]);
        mine[util_fmt_int(mine, vals[i])] = '\0';
        assert_string_equal(mine, want);
        snprintf(want, sizeof want, "%llu", (unsigned long long)vals[i]);
        mine[util_fmt_uint(mine, (unsigned long long)vals[i])] = '\0';
        assert_string_equal(mine, want);
    }
    for (long i = 0; i < 200000; i++) {
        uint64_t r = fixed_next() >> (fixed_next() % 64);
        char mine[24], want[32];
        snprintf(want, sizeof want, "%llu", (unsigned long long)r);
        mine[util_fmt_uint(mine, r)] = '\0';
        assert_string_equal(mine, want);
    }
}

/* The JSON sink's fast path writes what fmt_value writes, for every kind and state. */
static void test_json_number_fast_path(void **state)
{
    (void)state;
    const struct value vals[] = {
        {.state = VS_OK, .u.i = 0}, {.state = VS_OK, .u.i = 7}, {.state = VS_OK, .u.i = 143771},
        {.state = VS_OK, .u.i = -3}, {.state = VS_OK, .u.f = 612.473}, {.state = VS_OK, .u.f = -0.001},
        {.state = VS_OK, .u.f = NAN}, {.state = VS_OK, .u.f = 1e300}, {.state = VS_UNSUPPORTED},
        {.state = VS_ERROR, .code = 4}, {.state = VS_LOST, .code = 15}, {.state = VS_NONE},
    };
    for (int id = 0; id < METRIC_COUNT; id++) {
        const struct metric *m = &metric_table[id];
        if (m->kind == MK_STR)
            continue;
        for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
            struct value v = vals[i];
            if (m->kind == MK_FLOAT && v.state == VS_OK && i < 4)
                v.u.f = (double)v.u.i;
            char fast[UTIL_FMT_ROOM + 1];
            char *end = fmt_json_number(fast, m, &v);
            const char *slow = fmt((enum metric_id)id, v, FMT_JSON);
            if (!end)
                continue;   /* the caller asks fmt_value */
            *end = '\0';
            assert_string_equal(fast, slow);
        }
    }
}

/* Long and escaped strings: the word-at-a-time run gives what the byte loop gives. */
static void test_json_long_strings(void **state)
{
    (void)state;
    assert_string_equal(json("GPU-5f3c1a2e-8b4d-4c6f-9e1a-0000007a0000"), "\"GPU-5f3c1a2e-8b4d-4c6f-9e1a-0000007a0000\"");
    assert_string_equal(json("abcdefgh\"ijklmnop"), "\"abcdefgh\\\"ijklmnop\"");
    assert_string_equal(json("abcdefg\\hijklmnop"), "\"abcdefg\\\\hijklmnop\"");
    assert_string_equal(json("abcdefghijklmno\x7fz"), "\"abcdefghijklmno\\u007fz\"");
    assert_string_equal(json("abcdefghijklmno\x01z"), "\"abcdefghijklmno\\u0001z\"");
    assert_string_equal(json("abcdefgh\xc3\xa9ijklmnop"), "\"abcdefgh\xc3\xa9ijklmnop\"");
    assert_string_equal(json("abcdefgh\xffijklmnop"), "\"abcdefgh\\ufffdijklmnop\"");
    assert_string_equal(json("~~~~~~~~ !!!!!!!"), "\"~~~~~~~~ !!!!!!!\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_not_ok_is_never_zero),
        cmocka_unit_test(test_markers),
        cmocka_unit_test(test_json_escaping),
        cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_fixed_matches_printf),
        cmocka_unit_test(test_ints),
        cmocka_unit_test(test_json_number_fast_path),
        cmocka_unit_test(test_json_long_strings),
    };
    return cmocka_run_group_tests_name("fmt", tests, NULL, NULL);
}
