/*
 * test_logread_simd.c: the log reader's two parsers read every line alike
 * (built where simdjson is, logread_simd.h). Each line is parsed by a
 * reader opened with cJSON only and by one opened with simdjson: the same
 * result, the same message, and the same record, field by field
 * (logread_record_text: every value's state, code and bits). The lines: a
 * full record (every metric, as the jsonl sink writes it) with each value in
 * turn replaced by an edge case (null, -0, huge and tiny numbers, 2^53 + 1,
 * beyond 64 bits, 1e400, 64 digits, strings as numbers, "[N/A]", NaN, an
 * escaped NUL, non-UTF-8, nested), then hand-written lines for structure
 * (missing and repeated keys, escaped keys, lost GPUs, processes, XIDs,
 * jobs, steps, CR, BOM, depth, text after the record, truncation). Lines
 * gpumon writes must take the fast path: the test fails if simdjson
 * declines them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "logread.h"
#include "logread_simd.h"
#include "metrics.h"
#include "sink.h"
#include "util.h"

static const char line1[] =
    "{\"timestamp\":\"2026-11-29T21:03:04.567Z\",\"hostname\":\"node1\",\"host\":{\"host.cpu.user\":12.5,"
    "\"job.cpu\":1.25,\"job.processes\":3,\"host.cpu.iowait\":null},\"gpus\":[{\"index\":0,\"name\":\"NVIDIA H200\","
    "\"uuid\":\"GPU-a7725883-466f-4926-bb6a-05655901ad44\",\"state\":\"ok\",\"utilization.gpu\":97,"
    "\"power.draw\":655.2,\"pstate\":\"P2\",\"clocks_event_reasons.active\":4,"
    "\"clocks_event_reasons.sw_power_cap\":true,\"fan.speed\":null,\"power.limit\":null,\"future.metric\":[1,2],"
    "\"errors\":{\"power.limit\":\"Insufficient Permissions\"},"
    "\"processes\":[{\"pid\":4242,\"name\":\"python3\",\"used_memory\":131000,\"user\":\"ada\","
    "\"container\":\"docker://0123456789ab\",\"pod\":\"p\",\"notebook\":true},{\"pid\":7,\"name\":\"x\","
    "\"used_memory\":null,\"server\":true}],\"xids\":[{\"code\":79,\"count\":2,\"last_seen\":\"2026-11-29T21:03:01Z\"}],"
    "\"jobs\":[\"1234\",\"5678\"]},"
    "{\"index\":3,\"state\":\"lost\",\"utilization.gpu\":null,\"errors\":{\"utilization.gpu\":{\"code\":15,"
    "\"text\":\"GPU is lost\"}}}],\"steps\":[{\"pid\":4242,\"rank\":1,\"local_rank\":0,\"world_size\":2,"
    "\"phase\":\"compute\",\"n\":12,\"batches\":48,\"waited\":11,\"step_s\":2.2,\"wait_s\":1.3,\"in_wait_s\":0.6,"
    "\"in_compute_s\":0.4,\"unwait_s\":0.1,\"dropped\":3,\"bad\":1,\"hist\":[[279,5],[281,6]]}]}";

struct readers {
    struct logread *cjson, *simd;
    struct logread_simd *raw;       /* the simdjson parser alone: did it take the line? */
    struct logread_simd_out out;
    struct record_rank ranks[RECORD_MAX_RANKS];
    unsigned taken, declined, lines;
};

static void readers_open(struct readers *r)
{
    char err[512];
    memset(r, 0, sizeof *r);
    logread_simd_use(NULL);
    assert_int_equal(logread_open(&r->cjson, "/dev/null", err, sizeof err), 0);
    logread_simd_use(&logread_simd_table);
    assert_int_equal(logread_open(&r->simd, "/dev/null", err, sizeof err), 0);
    logread_simd_use(NULL);
    r->raw = logread_simd_table.open();
    assert_non_null(r->raw);
    r->out.ranks = r->ranks;
}

static void readers_close(struct readers *r)
{
    logread_close(r->cjson);
    logread_close(r->simd);
    logread_simd_table.close(r->raw);
    free(r->out.gpus);
    free(r->out.strs);
}

/* Parses line through both readers and compares; returns whether simdjson took it itself. */
static bool same(struct readers *r, const char *line, size_t len)
{
    char e1[512] = "", e2[512] = "";
    struct record a, b;
    struct sbuf ta, tb;
    sbuf_init(&ta);
    sbuf_init(&tb);
    int rc1 = logread_parse(r->cjson, line, len, &a, e1, sizeof e1);
    if (rc1 == 0)
        logread_record_text(&a, &ta);
    int rc2 = logread_parse(r->simd, line, len, &b, e2, sizeof e2);
    if (rc2 == 0)
        logread_record_text(&b, &tb);
    if (rc1 != rc2 || strcmp(e1, e2) || (rc1 == 0 && strcmp(ta.data, tb.data)))
        fail_msg("the readers differ on %.*s:\ncJSON %d %s\n%s\nsimdjson %d %s\n%s", (int)(len < 600 ? len : 600),
                 line, rc1, e1, rc1 == 0 ? ta.data : "", rc2, e2, rc2 == 0 ? tb.data : "");
    sbuf_free(&ta);
    sbuf_free(&tb);
    /* the fast path alone, on a padded copy */
    char *copy = xmalloc(len + 1 + LOGREAD_SIMD_PAD);
    memcpy(copy, line, len);
    memset(copy + len, 0, 1 + LOGREAD_SIMD_PAD);
    r->out.strs = xrealloc(r->out.strs, len + 1);
    struct record c;
    bool took = logread_simd_table.parse(r->raw, copy, len, &r->out, &c) == 1;
    free(copy);
    if (took && rc1 != 0)
        fail_msg("simdjson took a line cJSON refuses (%s): %.*s", e1, (int)(len < 600 ? len : 600), line);
    r->lines++;
    took ? r->taken++ : r->declined++;
    return took;
}

static bool same_s(struct readers *r, const char *line)
{
    return same(r, line, strlen(line));
}

/* Every key of a full record, each value replaced in turn by each edge case. */
static void test_every_value(void **state)
{
    (void)state;
    static const char *const edge[] = {
        "null", "0", "-0", "-0.0", "0.0", "1", "-1", "1.5", "-2.75", "100", "1e2", "1E+2", "2.5e-3", "1e308",
        "1.7976931348623157e308", "4.9e-324", "1e-400", "-1e-400", "1e400", "-1e400", "9007199254740992",
        "9007199254740993", "-9007199254740993", "9223372036854775807", "-9223372036854775808",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
        "0.1000000000000000055511151231257827021181583404541015625",
        "1.00000000000000000000000000000000000000000000000000000000000001",
        "1.0000000000000000000000000000000000000000000000000000000000000000000001", "01", "1.", ".5", "+1",
        "true", "false", "\"x\"", "\"\"", "\"[N/A]\"", "\"[Not Supported]\"", "\"NaN\"", "\"nan\"", "\"Infinity\"",
        "\"P0\"", "\"P15\"", "\"P16\"", "\"P015\"", "\"P\"", "\"Px\"", "\"P1 \"", "\"a\\u0000b\"", "\"\\u00e9t\\u00e9\"",
        "\"\\ud83d\\ude00\"", "\"\\udc00\"", "\"caf\xc3\xa9\"", "\"\xff\xfe\"", "\"tab\\tnl\\n\"", "[]", "{}", "[1,2]",
        "{\"a\":[{\"b\":null}]}", "NaN", "Infinity", "-", "nul", "tru",
    };
    struct readers r;
    readers_open(&r);
    enum metric_id ids[METRIC_COUNT];
    for (int i = 0; i < METRIC_COUNT; i++)
        ids[i] = (enum metric_id)i;
    struct sink sk = {&sink_jsonl, ids, METRIC_COUNT, false, true, 0};
    struct record rec;
    char err[512];
    struct sbuf full, line;
    sbuf_init(&full);
    sbuf_init(&line);
    assert_int_equal(logread_parse(r.cjson, line1, strlen(line1), &rec, err, sizeof err), 0);
    sink_jsonl.record(&sk, &rec, &full);   /* every key, in table order, as gpumon writes it */
    full.data[--full.len] = '\0';          /* the newline */
    assert_true(same(&r, full.data, full.len));
    unsigned keys = 0;
    for (const char *k = full.data; (k = strstr(k, "\":")); k += 2) {
        /* the value after this key: up to the next comma or brace at its depth (values here are flat) */
        const char *v = k + 2, *end = v;
        if (*v == '{' || *v == '[')
            continue;   /* "host", "gpus", lists: their members are keys of their own */
        if (*v == '"')
            for (end = v + 1; *end && *end != '"'; end += *end == '\\' ? 2 : 1)
                ;
        end = end + strcspn(end, ",}]");
        keys++;
        for (size_t e = 0; e < sizeof edge / sizeof edge[0]; e++) {
            sbuf_reset(&line);
            sbuf_add(&line, full.data, (size_t)(v - full.data));
            sbuf_puts(&line, edge[e]);
            sbuf_puts(&line, end);
            same(&r, line.data, line.len);
        }
    }
    assert_true(keys > 100);
    assert_true(r.taken > r.lines / 4);   /* most edge values are readable, and read fast */
    sbuf_free(&full);
    sbuf_free(&line);
    readers_close(&r);
}

#define TS "{\"timestamp\":\"2026-11-29T21:03:04Z\","

/* Structure: keys missing, repeated, escaped; the lists; steps; what lies around the record. */
static void test_structure(void **state)
{
    (void)state;
    static const char *const fast[] = {   /* as gpumon writes them: simdjson must take these */
        line1,
        TS "\"gpus\":[]}",
        TS "\"gpus\":[{\"index\":0}]}",
        TS "\"hostname\":\"n\",\"gpus\":[{\"index\":1,\"utilization.gpu\":null,\"errors\":{\"utilization.gpu\":"
        "{\"code\":999,\"text\":\"new\"},\"power.draw\":{\"code\":0},\"not.a.metric\":{\"code\":\"x\"}}}]}",
        TS "\"gpus\":[{\"index\":0,\"processes\":[],\"xids\":[],\"jobs\":[]}]}",
        TS "\"gpus\":[{\"index\":0,\"state\":\"lost\",\"utilization.gpu\":null,\"memory.used\":null,"
        "\"errors\":{\"utilization.gpu\":{\"code\":15},\"memory.used\":{\"code\":16}}}]}",
        TS "\"gpus\":[{\"index\":0,\"power.draw\":0,\"utilization.gpu\":0}]}",   /* no -0 in the line */
        TS "\"gpus\":[],\"steps\":[{\"pid\":1,\"rank\":null,\"n\":0,\"batches\":0,\"waited\":0,\"step_s\":0.0,"
        "\"wait_s\":0.0,\"in_wait_s\":0.0,\"in_compute_s\":0.0}]}",
        "  " TS "\"gpus\":[]}  \t",
    };
    static const char *const lines[] = {
        /* keys missing, of the wrong type, repeated (the first "index", "timestamp"... counts; the last
         * "errors", "processes", "xids", "jobs") */
        "{\"gpus\":[]}", "{\"timestamp\":\"2026-11-29T21:03:04Z\"}", TS "\"gpus\":{}}", TS "\"gpus\":[1]}",
        "{\"timestamp\":5,\"gpus\":[]}", "{\"timestamp\":\"2026-13-29T21:03:04Z\",\"gpus\":[]}",
        "{\"timestamp\":\"2026-11-29T21:03:04\",\"gpus\":[]}", "{\"timestamp\":\"2026-11-29T21:03:04.123456789Z\",\"gpus\":[]}",
        TS "\"timestamp\":\"bad\",\"gpus\":[]}",
        "{\"timestamp\":\"bad\",\"timestamp\":\"2026-11-29T21:03:04Z\",\"gpus\":[]}",
        TS "\"gpus\":[],\"gpus\":5}", TS "\"gpus\":[],\"host\":[]}", TS "\"gpus\":[],\"host\":{\"index\":3,"
        "\"utilization.gpu\":5,\"host.cpu.count\":\"x\"}}", TS "\"gpus\":[],\"hostname\":5}",
        TS "\"gpus\":[],\"hostname\":\"a\",\"hostname\":\"b\"}",
        TS "\"gpus\":[{\"index\":0,\"index\":\"x\"}]}", TS "\"gpus\":[{\"index\":\"x\",\"index\":0}]}",
        TS "\"gpus\":[{\"index\":0},{\"index\":0}]}", TS "\"gpus\":[{\"index\":65535},{\"index\":65536}]}",
        TS "\"gpus\":[{\"index\":-1}]}", TS "\"gpus\":[{\"index\":1.5}]}", TS "\"gpus\":[{\"index\":2.0}]}",
        TS "\"gpus\":[{\"ind\\u0065x\":4}]}", TS "\"gpus\":[{\"index\\u0000junk\":4}]}",
        TS "\"gpus\":[{\"index\":0,\"power.draw\":1,\"power.draw\":2}]}",
        TS "\"gpus\":[{\"index\":0,\"power.draw\":\"x\",\"power.draw\":2}]}",
        TS "\"gpus\":[{\"index\":0,\"errors\":5,\"errors\":{}}]}", TS "\"gpus\":[{\"index\":0,\"errors\":{},\"errors\":5}]}",
        TS "\"gpus\":[{\"index\":0,\"errors\":{\"index\":{\"code\":15}}}]}",
        TS "\"gpus\":[{\"index\":0,\"errors\":{\"power.draw\":{\"code\":4,\"code\":\"x\"}}}]}",
        TS "\"gpus\":[{\"index\":0,\"errors\":{\"power.draw\":[4]}}]}",
        TS "\"gpus\":[{\"index\":0,\"errors\":{\"power.draw\":{\"code\":2147483648}}}]}",
        TS "\"gpus\":[{\"index\":0,\"errors\":{\"host.cpu.user\":{\"code\":4}}}]}",
        TS "\"gpus\":[{\"index\":0,\"errors\":{\"power.draw\":\"GPU is lost\",\"fan.speed\":\"no such text\"}}]}",
        /* processes, XIDs, jobs */
        TS "\"gpus\":[{\"index\":0,\"processes\":5}]}", TS "\"gpus\":[{\"index\":0,\"processes\":[5]}]}",
        TS "\"gpus\":[{\"index\":0,\"processes\":[{\"pid\":-1}]}]}",
        TS "\"gpus\":[{\"index\":0,\"processes\":[{\"pid\":\"1\"}],\"processes\":[{\"pid\":1}]}]}",
        TS "\"gpus\":[{\"index\":0,\"processes\":[{\"pid\":1,\"name\":5,\"name\":\"x\",\"used_memory\":1.5,"
        "\"notebook\":1,\"user\":\"\\u00e9\",\"container\":\"" "0123456789012345678901234567890123456789012345678901234567890123456789"
        "0123456789012345678901234567890123456789\",\"pod\":null}]}]}",
        TS "\"gpus\":[{\"index\":0,\"xids\":[{\"code\":79}],\"xids\":[{\"code\":13,\"count\":0,\"last_seen\":null}]}]}",
        TS "\"gpus\":[{\"index\":0,\"xids\":[{\"code\":79,\"last_seen\":\"yesterday\"}]}]}",
        TS "\"gpus\":[{\"index\":0,\"xids\":[{\"code\":-79}]}]}", TS "\"gpus\":[{\"index\":0,\"xids\":[[79]]}]}",
        TS "\"gpus\":[{\"index\":0,\"xids\":[{\"code\":79,\"count\":1e300}]}]}",
        TS "\"gpus\":[{\"index\":0,\"jobs\":[\"\"]}]}", TS "\"gpus\":[{\"index\":0,\"jobs\":[5]}]}",
        TS "\"gpus\":[{\"index\":0,\"jobs\":[\"a\\u0000\"]}]}",
        TS "\"gpus\":[{\"index\":0,\"jobs\":[\"0123456789012345678901234567890123456789012345678901234567890123\"]}]}",
        TS "\"gpus\":[{\"index\":0,\"jobs\":[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]}]}",
        /* steps */
        TS "\"gpus\":[],\"steps\":[{\"pid\":1,\"n\":1,\"batches\":1,\"waited\":1,\"step_s\":-0,\"wait_s\":0,"
        "\"in_wait_s\":0,\"in_compute_s\":0}]}",
        TS "\"gpus\":[],\"steps\":[{\"pid\":1,\"n\":1,\"batches\":1,\"waited\":1,\"step_s\":-0.0,\"wait_s\":0,"
        "\"in_wait_s\":0,\"in_compute_s\":0,\"unwait_s\":-0,\"dropped\":-0,\"bad\":1e19}]}",
        TS "\"gpus\":[],\"steps\":[{\"pid\":1,\"n\":1,\"batches\":1,\"waited\":1,\"step_s\":1,\"wait_s\":0,"
        "\"in_wait_s\":0,\"in_compute_s\":0,\"unwait_s\":null}]}",
        TS "\"gpus\":[],\"steps\":[{\"pid\":1,\"n\":1,\"batches\":1,\"waited\":1,\"step_s\":1,\"wait_s\":0,"
        "\"in_wait_s\":0,\"in_compute_s\":0,\"hist\":[[1,2,3]]}]}",
        TS "\"gpus\":[],\"steps\":[{\"pid\":1,\"n\":1,\"batches\":1,\"waited\":1,\"step_s\":1,\"wait_s\":0,"
        "\"in_wait_s\":0,\"in_compute_s\":0,\"hist\":[[1,2]],\"hist\":5,\"phase\":\"wait\",\"phase\":\"out\"}]}",
        TS "\"gpus\":[],\"steps\":[{\"pid\":1,\"n\":1,\"batches\":1,\"waited\":1,\"step_s\":1,\"wait_s\":0,"
        "\"in_wait_s\":0,\"in_compute_s\":0},{\"pid\":1,\"n\":1,\"batches\":1,\"waited\":1,\"step_s\":1,\"wait_s\":0,"
        "\"in_wait_s\":0,\"in_compute_s\":0}]}",
        TS "\"gpus\":[],\"steps\":{}}", TS "\"gpus\":[],\"steps\":null}",
        /* around the record */
        "", " ", "[]", "null", "\"x\"", TS "\"gpus\":[]}\r", TS "\"gpus\":[]} \r ", TS "\"gpus\":[]}\n",
        TS "\"gpus\":[]}x", TS "\"gpus\":[]}{}", "\xef\xbb\xbf" TS "\"gpus\":[]}", "\f" TS "\"gpus\":[]}",
        "\r\n" TS "\"gpus\":[]}", TS "\"gpus\":[],}", TS "\"gpus\":[] \f}", TS "\"gpus\":[],\"x\":[1,,2]}",
        TS "\"gpus\":[],\"x\":\"\xc3\"}", TS "\"gpus\":[],\"x\":\"a\x01" "b\"}", TS "\"gpus\":[],\"x\":01}",
        TS "\"gpus\":[],\"x\":1.e5}", TS "\"gpus\":[],\"x\":\"\\q\"}", TS "\"gpus\":[],\"x\":\"\\ud800\"}",
        TS "\"gpus\":[],\"x\":\"\\ud800\\u0041\"}", TS "\"gpus\":[],\"x\":nulls}",
        TS "\"gpus\":[],\"x\":1000000000000000000000000000000000000000000000000000000000000000000000000000000}",
        TS "\"gpus\":[],\"x\":\"1000000000000000000000000000000000000000000000000000000000000000000000\"}",
        TS "\"gpus\":[],\"-0\":\"-0\"}",
    };
    struct readers r;
    readers_open(&r);
    for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++)
        if (!same_s(&r, fast[i]))
            fail_msg("simdjson declined a line gpumon writes: %s", fast[i]);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        same_s(&r, lines[i]);
    /* a truncated record at every length, and nesting around cJSON's limit (1000) and simdjson's (64) */
    for (size_t n = 0; n < strlen(line1); n++)
        same(&r, line1, n);
    static const int depths[] = {60, 63, 64, 65, 100, 999, 1000, 1001, 1030};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
        struct sbuf b;
        sbuf_init(&b);
        sbuf_puts(&b, TS "\"gpus\":[],\"deep\":");
        for (int d = 0; d < depths[i]; d++)
            sbuf_puts(&b, "[");
        for (int d = 0; d < depths[i]; d++)
            sbuf_puts(&b, "]");
        sbuf_puts(&b, "}");
        same(&r, b.data, b.len);
        sbuf_free(&b);
    }
    /* more GPUs, processes and XIDs than a record keeps */
    struct sbuf b;
    sbuf_init(&b);
    sbuf_puts(&b, TS "\"gpus\":[");
    for (int g = 0; g < 40; g++) {
        sbuf_printf(&b, "%s{\"index\":%d,\"processes\":[", g ? "," : "", g);
        for (int p = 0; p < 40; p++)
            sbuf_printf(&b, "%s{\"pid\":%d,\"name\":\"p%d\",\"used_memory\":%d}", p ? "," : "", 100 + p, p, p * 10);
        sbuf_puts(&b, "],\"xids\":[");
        for (int x = 0; x < 20; x++)
            sbuf_printf(&b, "%s{\"code\":%d,\"count\":%d}", x ? "," : "", x, x + 1);
        sbuf_puts(&b, "]}");
    }
    sbuf_puts(&b, "]}");
    assert_true(same(&r, b.data, b.len));
    sbuf_free(&b);
    readers_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_value),
        cmocka_unit_test(test_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
