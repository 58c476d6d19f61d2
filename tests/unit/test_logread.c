/*
 * test_logread.c: the JSON Lines reader: values by kind, null as "not
 * available", the errors map (lost, no permission), processes and XIDs,
 * a record written by the jsonl sink reads back to the same line, a torn
 * last line is a warning and a bad line elsewhere an error naming it;
 * times of gpumon's own form read as timegm reads them; with or without
 * reader threads, logs read at once give every record in order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "logread.h"
#include "metrics.h"
#include "sink.h"

static const char line1[] =
    "{\"timestamp\":\"2026-11-29T21:03:04.567Z\",\"hostname\":\"node1\",\"host\":{\"host.cpu.user\":12.5,"
    "\"job.cpu\":1.25,\"job.processes\":3},\"gpus\":[{\"index\":0,\"name\":\"NVIDIA H200\",\"state\":\"ok\","
    "\"utilization.gpu\":97,\"power.draw\":655.2,\"pstate\":\"P2\",\"clocks_event_reasons.active\":4,"
    "\"clocks_event_reasons.sw_power_cap\":true,\"fan.speed\":null,\"power.limit\":null,\"future.metric\":[1,2],"
    "\"errors\":{\"power.limit\":\"Insufficient Permissions\"},"
    "\"processes\":[{\"pid\":4242,\"name\":\"python3\",\"used_memory\":131000},{\"pid\":7,\"name\":\"x\","
    "\"used_memory\":null}],\"xids\":[{\"code\":79,\"count\":2,\"last_seen\":\"2026-11-29T21:03:01Z\"}]},"
    "{\"index\":3,\"state\":\"lost\",\"utilization.gpu\":null,\"errors\":{\"utilization.gpu\":\"GPU is lost\"}}]}";

static void test_parse_line(void **state)
{
    (void)state;
    struct logread *lr;
    struct record r;
    char err[512];
    assert_int_equal(logread_open(&lr, "/dev/null", err, sizeof err), 0);
    assert_int_equal(logread_parse(lr, line1, strlen(line1), &r, err, sizeof err), 0);
    assert_int_equal(r.time.tv_sec, 1795986184);
    assert_int_equal(r.time.tv_nsec, 567000000);
    assert_string_equal(r.hostname, "node1");
    assert_true(r.host[M_HOST_USER].state == VS_OK && r.host[M_HOST_USER].u.f == 12.5);
    assert_true(r.host[M_JOB_CPU].u.f == 1.25 && r.host[M_JOB_PROCS].u.i == 3);
    assert_int_equal(r.host[M_HOST_IOWAIT].state, VS_NONE);
    assert_int_equal(r.ngpus, 2);
    const struct record_gpu *g = &r.gpus[0];
    assert_int_equal(g->v[M_UTIL_GPU].u.i, 97);
    assert_string_equal(g->v[M_NAME].u.s, "NVIDIA H200");
    assert_int_equal(g->v[M_PSTATE].u.i, 2);
    assert_int_equal(g->v[M_REASONS].u.i, 4);
    assert_int_equal(g->v[M_R_SW_POWER].u.i, 1);
    assert_int_equal(g->v[M_FAN].state, VS_UNSUPPORTED);   /* null without "errors": not supported */
    assert_int_equal(g->v[M_FAN].code, 3);
    assert_int_equal(g->v[M_POWER_LIMIT].state, VS_ERROR);
    assert_int_equal(g->v[M_POWER_LIMIT].code, 4);
    assert_int_equal(g->nprocs, 2);
    assert_int_equal(g->procs[0].pid, 4242);
    assert_int_equal(g->procs[0].used_mib, 131000);
    assert_int_equal(g->procs[1].used_mib, -1);
    assert_int_equal(g->nxids, 1);
    assert_int_equal(g->xids[0].code, 79);
    assert_int_equal(g->xids[0].count, 2);
    assert_int_equal(g->xids[0].last.tv_sec, 1795986181);
    assert_int_equal(r.gpus[1].index, 3);
    assert_int_equal(r.gpus[1].v[M_UTIL_GPU].state, VS_LOST);
    assert_string_equal(r.gpus[1].v[M_STATE].u.s, "lost");

    static const char *const bad[] = {"{\"timestamp\":\"x\",\"gpus\":[]}", "[1]", "{\"gpus\":[]}", "not json",
                                      ("{\"timestamp\":\"2026-11-29T21:03:04Z\",\"gpus\":[{\"index\":0,"
                                       "\"utilization.gpu\":\"high\"}]}"),
                                      "{\"timestamp\":\"2026-11-29T21:03:04Z\",\"gpus\":[{\"name\":\"x\"}]}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(logread_parse(lr, bad[i], strlen(bad[i]), &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "index"));
    logread_close(lr);
}

/* "errors" holds NVML's numeric code: a code the table lacks (a newer
 * driver's) keeps its number, a lost code reads lost whatever the text
 * says, and the text alone (gpumon 0.1's logs) still maps back. */
static void test_errors_by_code(void **state)
{
    (void)state;
    static const char line[] =
        "{\"timestamp\":\"2026-11-29T21:03:04Z\",\"gpus\":[{\"index\":0,\"power.draw\":null,"
        "\"fan.speed\":null,\"temperature.gpu\":null,\"clocks.sm\":null,\"errors\":{"
        "\"power.draw\":{\"code\":31,\"text\":\"a wording of a newer driver\"},"
        "\"fan.speed\":{\"code\":16,\"text\":\"anything\"},"
        "\"temperature.gpu\":{\"code\":4},"
        "\"clocks.sm\":\"Driver Not Loaded\"}}]}";
    struct logread *lr;
    struct record r;
    char err[512];
    assert_int_equal(logread_open(&lr, "/dev/null", err, sizeof err), 0);
    assert_int_equal(logread_parse(lr, line, strlen(line), &r, err, sizeof err), 0);
    const struct value *v = r.gpus[0].v;
    assert_int_equal(v[M_POWER].state, VS_ERROR);
    assert_int_equal(v[M_POWER].code, 31);
    assert_int_equal(v[M_FAN].state, VS_LOST);
    assert_int_equal(v[M_FAN].code, 16);
    assert_int_equal(v[M_TEMP].code, 4);
    assert_int_equal(v[M_CLOCK_SM].state, VS_ERROR);
    assert_int_equal(v[M_CLOCK_SM].code, 9);
    static const char *const bad[] = {
        "{\"timestamp\":\"2026-11-29T21:03:04Z\",\"gpus\":[{\"index\":0,\"errors\":{\"power.draw\":{}}}]}",
        "{\"timestamp\":\"2026-11-29T21:03:04Z\",\"gpus\":[{\"index\":0,\"errors\":{\"power.draw\":{\"code\":-1}}}]}",
        ("{\"timestamp\":\"2026-11-29T21:03:04Z\",\"gpus\":[{\"index\":0,\"errors\":{\"power.draw\":"
         "{\"code\":4294967296}}}]}"),
        "{\"timestamp\":\"2026-11-29T21:03:04Z\",\"gpus\":[{\"index\":0,\"errors\":{\"power.draw\":{\"code\":1.5}}}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(logread_parse(lr, bad[i], strlen(bad[i]), &r, err, sizeof err), -1);
        assert_non_null(strstr(err, "code"));
    }
    logread_close(lr);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct logread *lr;
    struct record r;
    char err[512];
    enum metric_id ids[METRIC_COUNT];
    for (int i = 0; i < METRIC_COUNT; i++)
        ids[i] = (enum metric_id)i;
    struct sink sk = {&sink_jsonl, ids, METRIC_COUNT, false, true, 0};
    struct sbuf a, b;
    sbuf_init(&a);
    sbuf_init(&b);
    assert_int_equal(logread_open(&lr, "/dev/null", err, sizeof err), 0);
    assert_int_equal(logread_parse(lr, line1, strlen(line1), &r, err, sizeof err), 0);
    sink_jsonl.record(&sk, &r, &a);   /* every key now, in table order */
    assert_int_equal(logread_parse(lr, a.data, a.len - 1, &r, err, sizeof err), 0);
    sink_jsonl.record(&sk, &r, &b);
    assert_string_equal(a.data, b.data);
    sbuf_free(&a);
    sbuf_free(&b);
    logread_close(lr);
}

/* Step records survive the round trip; malformed ones are clear errors. */
static void test_steps(void **state)
{
    (void)state;
    static const char with_steps[] =
        "{\"timestamp\":\"2026-11-29T21:03:04.567Z\",\"gpus\":[{\"index\":0}],\"steps\":[{\"pid\":42,\"rank\":1,"
        "\"local_rank\":1,\"world_size\":null,\"phase\":\"compute\",\"n\":12,\"batches\":48,\"waited\":11,"
        "\"step_s\":2.2,\"wait_s\":1.3,\"in_wait_s\":0.6,\"in_compute_s\":0.4,\"dropped\":3,\"bad\":1,"
        "\"hist\":[[279,5],[281,6]]}]}";
    struct logread *lr;
    struct record r;
    char err[512];
    enum metric_id ids[1] = {M_INDEX};
    struct sink sk = {&sink_jsonl, ids, 1, false, false, 0};
    struct sbuf a, b;
    sbuf_init(&a);
    sbuf_init(&b);
    assert_int_equal(logread_open(&lr, "/dev/null", err, sizeof err), 0);
    assert_int_equal(logread_parse(lr, with_steps, strlen(with_steps), &r, err, sizeof err), 0);
    assert_int_equal(r.nranks, 1);
    assert_int_equal(r.ranks[0].pid, 42);
    assert_int_equal(r.ranks[0].rank, 1);
    assert_int_equal(r.ranks[0].world, -1);
    assert_int_equal(r.ranks[0].phase, SP_COMPUTE);
    assert_int_equal(r.ranks[0].batches, 48);
    assert_int_equal(r.ranks[0].nbins, 2);
    assert_int_equal(r.ranks[0].bins[1].bin, 281);
    assert_true(r.ranks[0].dropped == 3 && r.ranks[0].bad == 1);
    sink_jsonl.record(&sk, &r, &a);
    assert_int_equal(logread_parse(lr, a.data, a.len - 1, &r, err, sizeof err), 0);
    sink_jsonl.record(&sk, &r, &b);
    assert_string_equal(a.data, b.data);
    static const struct { const char *steps, *msg; } bad[] = {
        {"{}", "\"steps\" is not an array"},
        {"[1]", "steps[0] needs an integer \"pid\""},
        {"[{\"pid\":0}]", "steps[0] needs an integer \"pid\""},
        {"[{\"pid\":1,\"n\":-1,\"batches\":0,\"waited\":0,\"step_s\":0,\"wait_s\":0,\"in_wait_s\":0,"
         "\"in_compute_s\":0}]", "steps[0] needs ids"},
        {"[{\"pid\":1,\"n\":1,\"batches\":0,\"waited\":2,\"step_s\":0,\"wait_s\":0,\"in_wait_s\":0,"
         "\"in_compute_s\":0}]", "steps[0] needs ids"},
        {"[{\"pid\":1,\"rank\":-2,\"n\":1,\"batches\":0,\"waited\":0,\"step_s\":0,\"wait_s\":0,"
         "\"in_wait_s\":0,\"in_compute_s\":0}]", "steps[0] needs ids"},
        {"[{\"pid\":1,\"n\":1,\"batches\":0,\"waited\":0,\"step_s\":\"x\",\"wait_s\":0,\"in_wait_s\":0,"
         "\"in_compute_s\":0}]", "steps[0] needs ids"},
        {"[{\"pid\":1,\"n\":1,\"batches\":0,\"waited\":0,\"step_s\":0,\"wait_s\":0,\"in_wait_s\":0,"
         "\"in_compute_s\":1e999}]", "steps[0] needs ids"},
        {"[{\"pid\":1,\"n\":1,\"batches\":0,\"waited\":0,\"step_s\":0,\"wait_s\":0,\"in_wait_s\":0,"
         "\"in_compute_s\":0,\"hist\":[[512,1]]}]", "steps[0] \"hist\" holds [bin, count] pairs"},
        {"[{\"pid\":1,\"n\":1,\"batches\":0,\"waited\":0,\"step_s\":0,\"wait_s\":0,\"in_wait_s\":0,"
         "\"in_compute_s\":0,\"hist\":[3]}]", "steps[0] \"hist\" holds [bin, count] pairs"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[1024];
        snprintf(line, sizeof line, "{\"timestamp\":\"2026-11-29T21:03:04.567Z\",\"gpus\":[],\"steps\":%s}",
                 bad[i].steps);
        err[0] = '\0';
        assert_int_equal(logread_parse(lr, line, strlen(line), &r, err, sizeof err), -1);
        if (!strstr(err, bad[i].msg))
            fail_msg("%s: got \"%s\", expected \"%s\"", bad[i].steps, err, bad[i].msg);
    }
    sbuf_free(&a);
    sbuf_free(&b);
    logread_close(lr);
}

static char *write_tmp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gpumon-logread-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void test_files(void **state)
{
    (void)state;
    char text[4096], err[512];
    struct logread *lr;
    struct record r;
    /* two records, an empty line, then a torn last line */
    snprintf(text, sizeof text, "%s\n\n%s\n%.60s", line1, line1, line1);
    char *path = write_tmp(text);
    assert_int_equal(logread_open(&lr, path, err, sizeof err), 0);
    assert_int_equal(logread_next(lr, &r, err, sizeof err), 1);
    assert_int_equal(logread_next(lr, &r, err, sizeof err), 1);
    assert_null(logread_warning(lr));
    assert_int_equal(logread_next(lr, &r, err, sizeof err), 0);
    assert_non_null(logread_warning(lr));
    assert_non_null(strstr(logread_warning(lr), ":4: the last line is incomplete"));
    logread_close(lr);
    unlink(path);
    /* the same cut in the middle is an error naming line 2 */
    snprintf(text, sizeof text, "%s\n%.60s\n%s\n", line1, line1, line1);
    path = write_tmp(text);
    assert_int_equal(logread_open(&lr, path, err, sizeof err), 0);
    assert_int_equal(logread_next(lr, &r, err, sizeof err), 1);
    assert_int_equal(logread_next(lr, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, ":2: not JSON"));
    logread_close(lr);
    unlink(path);
    /* a last line without newline that parses is a record */
    path = write_tmp(line1);
    assert_int_equal(logread_open(&lr, path, err, sizeof err), 0);
    assert_int_equal(logread_next(lr, &r, err, sizeof err), 1);
    assert_int_equal(logread_next(lr, &r, err, sizeof err), 0);
    assert_null(logread_warning(lr));
    logread_close(lr);
    unlink(path);
    assert_int_equal(logread_open(&lr, "/nonexistent/log.jsonl", err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot open log /nonexistent/log.jsonl"));
}

/* A log of n records, record k at 21:00:00 + k s with utilization k % 101 (empty lines between some); bad:
 * the line of that record is not JSON (0: none); back: that record's time goes back 10 s (0: none). */
static char *write_records(int n, int bad, int back)
{
    size_t cap = (size_t)n * 160 + 1;
    char *text = malloc(cap);
    size_t used = 0;
    assert_non_null(text);
    for (int k = 1; k <= n; k++) {
        int t = k == back ? k - 10 : k;
        if (k == bad)
            used += (size_t)snprintf(text + used, cap - used, "{\"timestamp\":\"2026-11-29T21:00:00Z\",\"gpus\":[\n");
        else
            used += (size_t)snprintf(text + used, cap - used, "{\"timestamp\":\"2026-11-29T%02d:%02d:%02d.000Z\","
                                     "\"gpus\":[{\"index\":0,\"utilization.gpu\":%d}]}\n%s", 21 + t / 3600,
                                     t / 60 % 60, t % 60, k % 101, k % 7 == 0 ? "\n" : "");
    }
    char *path = strdup(write_tmp(text));
    free(text);
    return path;
}

/* The reader threads (logread_threads_set): with none, one for the first of three logs open at once, or
 * one for each, interleaved reads give every record once, in order, each with its own values; the bad
 * line's error at the same record with the same message; the same skipped-record warning. */
static void test_threads(void **state)
{
    (void)state;
    enum { N = 300, LOGS = 3 };
    char *paths[LOGS] = {write_records(N, 0, 0), write_records(N, 0, 77), write_records(N, 200, 0)};
    char first_err[512] = "", first_skip[1024] = "";
    static const unsigned settings[] = {0, 1, LOGREAD_THREADS, 0};
    for (size_t s = 0; s < sizeof settings / sizeof settings[0]; s++) {
        logread_threads_set(settings[s]);
        assert_int_equal(logread_threads(), settings[s]);
        struct logread *lr[LOGS];
        char err[512];
        int got[LOGS], seen[LOGS] = {0};
        for (int i = 0; i < LOGS; i++) {
            assert_int_equal(logread_open(&lr[i], paths[i], err, sizeof err), 0);
            assert_int_equal(logread_threaded(lr[i]), (unsigned)i < settings[s]);
            got[i] = 1;
        }
        for (int live = LOGS; live > 0;) {
            live = 0;
            for (int i = 0; i < LOGS; i++) {
                if (got[i] != 1)
                    continue;
                struct record r;
                err[0] = '\0';
                got[i] = logread_next(lr[i], &r, err, sizeof err);
                if (got[i] == 1) {
                    seen[i]++;
                    int k = seen[i] + (i == 1 && seen[i] >= 77);   /* log 1 skips record 77 */
                    assert_int_equal(r.time.tv_sec % 3600, k % 3600);
                    assert_int_equal(r.ngpus, 1);
                    assert_int_equal(r.gpus[0].v[M_UTIL_GPU].u.i, k % 101);
                    live++;
                } else if (got[i] < 0) {
                    assert_int_equal(i, 2);
                    assert_int_equal(seen[i], 199);
                    assert_non_null(strstr(err, ":228: "));   /* 199 records and 28 empty lines before it */
                    if (!first_err[0])
                        snprintf(first_err, sizeof first_err, "%s", err);
                    assert_string_equal(err, first_err);
                    assert_int_equal(logread_next(lr[i], &r, err, sizeof err), -1);   /* again: the same */
                    assert_string_equal(err, first_err);
                }
            }
        }
        assert_int_equal(got[0], 0);
        assert_int_equal(got[1], 0);
        assert_int_equal(seen[0], N);
        assert_int_equal(seen[1], N - 1);
        assert_null(logread_skipped(lr[0]));
        assert_non_null(logread_skipped(lr[1]));
        if (!first_skip[0])
            snprintf(first_skip, sizeof first_skip, "%s", logread_skipped(lr[1]));
        assert_string_equal(logread_skipped(lr[1]), first_skip);
        assert_non_null(strstr(first_skip, "1 record was skipped: its time goes back (the first at line 87,"));
        for (int i = 0; i < LOGS; i++)
            logread_close(lr[i]);
    }
    /* a log closed unread gives its place back */
    logread_threads_set(1);
    struct logread *a, *b;
    char err[512];
    assert_int_equal(logread_open(&a, paths[0], err, sizeof err), 0);
    assert_true(logread_threaded(a));
    logread_close(a);
    assert_int_equal(logread_open(&b, paths[0], err, sizeof err), 0);
    assert_true(logread_threaded(b));
    logread_close(b);
    logread_threads_set(LOGREAD_THREADS);
    for (int i = 0; i < LOGS; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
}

/* Times in gpumon's own form are read without sscanf and timegm: the same seconds as timegm gives, over
 * years from 0 to 9999, every month, days past a month's end (they run on into the next) and second 60. */
static void test_times(void **state)
{
    (void)state;
    static const int years[] = {0, 1, 99, 100, 399, 400, 1582, 1899, 1900, 1969, 1970, 1999, 2000, 2024, 2026,
                                2027, 2038, 2100, 2400, 9999};
    for (size_t y = 0; y < sizeof years / sizeof years[0]; y++)
        for (int mo = 1; mo <= 12; mo++)
            for (int d = 1; d <= 31; d++) {
                char s[64];
                int h = (d * 7) % 24, mi = (d * 13) % 60, se = d == 31 ? 60 : (d * 17) % 60;
                snprintf(s, sizeof s, "%04d-%02d-%02dT%02d:%02d:%02d.25Z", years[y], mo, d, h, mi, se);
                struct tm tm = {.tm_year = years[y] - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
                                .tm_min = mi, .tm_sec = se};
                struct timespec ts;
                assert_int_equal(logread_parse_time(s, &ts), 0);
                if (ts.tv_sec != timegm(&tm) || ts.tv_nsec != 250000000)
                    fail_msg("%s: %lld, timegm %lld", s, (long long)ts.tv_sec, (long long)timegm(&tm));
            }
    static const char *const bad[] = {"", "2026", "2026-11-29T21:03:04", "2026-13-01T00:00:00Z",
                                      "2026-11-29T24:00:00Z", "2026-11-29 21:03:04Z", "2026-11-29T21:03:04ZZ",
                                      "2026-00-10T00:00:00Z", "2026-11-32T00:00:00Z", "2026-11-29T21:03:61Z"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct timespec ts;
        if (logread_parse_time(bad[i], &ts) == 0)
            fail_msg("\"%s\" read as a time", bad[i]);
    }
    struct timespec a, b;   /* sscanf's forms still read as before */
    assert_int_equal(logread_parse_time(" 2026-11-29T21:03:04Z", &a), -1);
    assert_int_equal(logread_parse_time("+026-11-29T21:03:04Z", &a), 0);
    assert_int_equal(logread_parse_time("0026-11-29T21:03:04Z", &b), 0);
    assert_int_equal(a.tv_sec, b.tv_sec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_parse_line),
        cmocka_unit_test(test_errors_by_code),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_steps),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
