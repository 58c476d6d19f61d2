/*
 * test_compare.c: two runs compared (compare.c) on synthetic records with
 * known answers: the step-time median from the records' histograms, the
 * rate and input-wait share over the loop's time, the verdicts both ways
 * round, a change below the floor and one inside the noise as "no clear
 * change", a run folded past its block limit giving the same figures,
 * figures missing on one side, too-short runs, and the JSON's keys.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "compare.h"
#include "metrics.h"

static struct record_gpu gpus[2];
static struct record_rank rank;
static struct record rec;

/* One record at time t (1 s after the previous): two GPUs at util% drawing watts each (energy so far:
 * e), and one process that ended steps steps of step_s seconds, waiting wait of every second. */
static void feed(struct compare_run *r, double t, int util, double e, unsigned steps, double step_s, double wait)
{
    memset(gpus, 0, sizeof gpus);
    memset(&rank, 0, sizeof rank);
    memset(&rec, 0, sizeof rec);
    rec.time.tv_sec = (time_t)t;
    rec.time.tv_nsec = (long)((t - floor(t)) * 1e9);
    rec.ngpus = 2;
    rec.gpus = gpus;
    for (unsigned g = 0; g < 2; g++) {
        gpus[g].index = g;
        gpus[g].v[M_UTIL_GPU] = (struct value){.state = VS_OK, .u.i = util};
        gpus[g].v[M_ENERGY] = (struct value){.state = VS_OK, .u.f = e};
    }
    if (steps) {
        rank.pid = 42;
        rank.steps = rank.waited = steps;
        rank.step_s = steps * step_s;
        rank.in_wait_s = wait;
        rank.in_compute_s = 1 - wait;
        rank.nbins = 1;
        rank.bins[0].bin = (uint16_t)record_step_bin(step_s);
        rank.bins[0].n = steps;
        rec.nranks = 1;
        rec.ranks = &rank;
    }
    compare_run_feed(r, &rec);
}

/* A run of n records: steps of step_s (alternating +-jitter), wait share w, watts per GPU. */
static struct compare_run *run(unsigned n, double step_s, double jitter, double w, double watts)
{
    struct compare_run *r = compare_run_new();
    for (unsigned i = 0; i < n; i++) {
        double s = step_s * (1 + (i % 2 ? jitter : -jitter));
        feed(r, 1000 + i, 90, watts * i, (unsigned)lround(1 / s), s, w);
    }
    compare_run_finish(r);
    return r;
}

static void test_known_answers(void **state)
{
    (void)state;
    struct compare_run *a = run(60, 0.1, 0.01, 0.4, 300), *b = run(60, 0.06, 0.01, 0.0, 300);
    struct compare_result res;
    compare_runs(a, b, &res);
    const struct compare_change *p50 = &res.fig[CF_STEP_P50], *w = &res.fig[CF_INPUT_WAIT];
    assert_true(fabs(p50->a - 0.1) < 0.1 * 0.045);   /* within a histogram bin */
    assert_true(fabs(p50->b - 0.06) < 0.06 * 0.045);
    assert_true(fabs(p50->change - 0.6) < 0.04);
    assert_true(p50->lo <= p50->change && p50->change <= p50->hi);
    assert_int_equal(p50->verdict, CV_BETTER);
    assert_true(fabs(w->a - 40) < 1e-6 && fabs(w->b) < 1e-6);
    assert_int_equal(w->verdict, CV_BETTER);
    assert_true(fabs(res.fig[CF_STEPS_PER_S].a - 10) < 0.5);
    assert_true(fabs(res.fig[CF_STEPS_PER_S].b - 17) < 0.5);   /* lround(1/0.06) steps a second */
    assert_int_equal(res.fig[CF_UTIL].verdict, CV_SAME);
    assert_true(fabs(res.fig[CF_ENERGY_STEP].a - 60) < 3);     /* 600 J a second over 10 steps */
    assert_int_equal(res.fig[CF_ENERGY_STEP].verdict, CV_BETTER);
    assert_int_equal(res.fig[CF_SM].verdict, CV_NONE);           /* no GPM in either */
    assert_true(isnan(res.fig[CF_SM].a));
    /* 1/0.6 = 1.67, read through 4.4%-wide bins */
    if ((strncmp(res.summary, "1.6x", 4) && strncmp(res.summary, "1.7x", 4)) ||
        !strstr(res.summary, "x faster, input wait 40% -> 0%"))
        fail_msg("summary: %s", res.summary);
    compare_runs(b, a, &res);
    assert_int_equal(res.fig[CF_STEP_P50].verdict, CV_WORSE);
    if ((strncmp(res.summary, "1.6x", 4) && strncmp(res.summary, "1.7x", 4)) ||
        !strstr(res.summary, "x slower, input wait 0% -> 40%"))
        fail_msg("summary: %s", res.summary);
    compare_run_free(a);
    compare_run_free(b);
}

static void test_no_clear_change(void **state)
{
    (void)state;
    struct compare_result res;
    /* 3% slower: beyond the noise of so steady a job, but under the 5% floor */
    struct compare_run *a = run(60, 0.1, 0.0, 0.1, 300), *b = run(60, 0.103, 0.0, 0.1, 300);
    compare_runs(a, b, &res);
    assert_int_equal(res.fig[CF_STEP_P50].verdict, CV_SAME);
    assert_string_equal(res.summary, "step time: no clear change");
    compare_run_free(b);
    /* 10% slower by its median, but half its run steps at 0.07 s and half at 0.13 s: which half
     * holds the median is chance, and the interval says so */
    struct compare_run *c = run(60, 0.1, 0.0, 0.1, 300), *d = compare_run_new();
    for (unsigned i = 0; i < 60; i++)
        feed(d, 1000 + i, 90, 300.0 * i, 10, i < 30 ? 0.07 : 0.13, 0.1);
    compare_run_finish(d);
    compare_runs(c, d, &res);
    if (!(res.fig[CF_STEP_P50].lo < 0.8 && res.fig[CF_STEP_P50].hi > 1.2))
        fail_msg("p50 %g [%g, %g]", res.fig[CF_STEP_P50].change, res.fig[CF_STEP_P50].lo, res.fig[CF_STEP_P50].hi);
    assert_int_equal(res.fig[CF_STEP_P50].verdict, CV_SAME);
    compare_run_free(a);
    compare_run_free(c);
    compare_run_free(d);
}

static void test_long_run_folds(void **state)
{
    (void)state;
    struct compare_result shortr, longr;
    struct compare_run *a = run(100, 0.1, 0.01, 0.2, 300), *b = run(5000, 0.1, 0.01, 0.2, 300);
    struct compare_run *c = run(100, 0.05, 0.01, 0.0, 300);
    compare_runs(a, c, &shortr);
    compare_runs(b, c, &longr);   /* 5,000 records in 1,024 blocks at most */
    assert_true(fabs(shortr.fig[CF_STEP_P50].a - longr.fig[CF_STEP_P50].a) < 1e-9);
    assert_true(fabs(shortr.fig[CF_INPUT_WAIT].a - longr.fig[CF_INPUT_WAIT].a) < 1e-9);
    assert_true(fabs(longr.fig[CF_DURATION].a - 4999) < 1e-6);
    assert_int_equal(longr.records[0], 5000);
    assert_int_equal(longr.fig[CF_STEP_P50].verdict, CV_BETTER);
    assert_int_equal(longr.fig[CF_DURATION].verdict, CV_NONE);   /* other step counts */
    assert_true(longr.fig[CF_DURATION].other_work);
    compare_run_free(a);
    compare_run_free(b);
    compare_run_free(c);
}

static void test_short_and_missing(void **state)
{
    (void)state;
    struct compare_result res;
    struct compare_run *a = run(2, 0.1, 0, 0.4, 300), *b = run(60, 0.05, 0, 0, 300);
    compare_runs(a, b, &res);
    assert_int_equal(res.fig[CF_STEP_P50].verdict, CV_SAME);
    assert_true(res.fig[CF_STEP_P50].short_runs);
    assert_non_null(strstr(res.summary, "too few records"));
    compare_run_free(a);
    struct compare_run *none = compare_run_new();   /* records without steps */
    for (unsigned i = 0; i < 60; i++)
        feed(none, 1000 + i, 40, 100.0 * i, 0, 0, 0);
    compare_run_finish(none);
    compare_runs(none, b, &res);
    assert_int_equal(res.fig[CF_STEP_P50].verdict, CV_NONE);
    assert_int_equal(res.fig[CF_UTIL].verdict, CV_BETTER);       /* 40% -> 90% */
    assert_non_null(strstr(res.summary, "utilization 40% -> 90%"));
    struct sbuf s;
    sbuf_init(&s);
    compare_json(&res, "a\"1.jsonl", "b.jsonl", &s);
    assert_non_null(strstr(s.data, "{\"a\":{\"log\":\"a\\\"1.jsonl\""));
    assert_non_null(strstr(s.data, "\"step_p50_s\":{\"a\":null,"));
    assert_non_null(strstr(s.data, "\"verdict\":null"));
    assert_non_null(strstr(s.data, "\"utilization\":{\"a\":40.000000,\"b\":90.000000,\"ratio\":2.2500,"
                                   "\"difference\":50.00,"));
    assert_null(strstr(s.data, "nan"));
    sbuf_reset(&s);
    compare_text(&res, "a.jsonl", "b.jsonl", &s);
    assert_non_null(strstr(s.data, "not measured in both"));
    sbuf_free(&s);
    compare_run_free(none);
    compare_run_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_no_clear_change),
        cmocka_unit_test(test_long_run_folds),
        cmocka_unit_test(test_short_and_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
