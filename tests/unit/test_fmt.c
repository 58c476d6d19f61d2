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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_not_ok_is_never_zero),
        cmocka_unit_test(test_markers),
        cmocka_unit_test(test_json_escaping),
        cmocka_unit_test(test_csv_quoting),
    };
    return cmocka_run_group_tests_name("fmt", tests, NULL, NULL);
}
