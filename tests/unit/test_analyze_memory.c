/*
 * test_analyze_memory.c: the analysis' memory figures on synthetic records: when a job started, the
 * memory's trend and a process's exit, the stall clock of an idle GPU whose memory rises (still_for_s,
 * progress), and the memory's growth over the last 30-60 s (mem_growth). Measurements only: what the
 * rules decide from them is test_rules.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include "analyze_fixture.h"

/* A start seen in the log (memory from unused to used) is when the job started (the rules give it
 * startup.seconds of grace); a log that begins with the job already running has none; giving the GPU up
 * makes the next use a new start. */
static void test_job_start(void **state)
{
    (void)state;
    struct analyze_config c = config(30);
    struct analyzer *a = analyze_new(&c);
    feed(a, 7000, 0, NAN, 0, 0);
    for (int t = 1; t <= 89; t++)
        feed(a, 7000 + t, 90, NAN, 500, 1);
    assert_true(stats(a).job_start_t == 7001);
    feed(a, 7090, 0, NAN, 0, 0);
    assert_true(stats(a).job_start_t == 0);
    feed(a, 7091, 90, NAN, 500, 1);
    assert_true(stats(a).job_start_t == 7091);
    analyze_free(a);
    a = analyze_new(&c);
    for (int t = 0; t <= 10; t++)
        feed(a, 8000 + t, 90, NAN, 500, 1);
    assert_true(stats(a).job_start_t == 0);
    analyze_free(a);
}

/* Memory that rose and then held still: the later half's slope is 0. */
static void test_memory_recent_slope(void **state)
{
    (void)state;
    struct analyze_config c = config(20);
    struct analyzer *a = analyze_new(&c);
    for (int t = 0; t <= 20; t++)
        feed(a, 9000 + t, 90, NAN, t < 10 ? 100 + 80 * t : 900, 1);
    struct analyze_gpu_stats s = stats(a);
    assert_true(s.mem_slope > 20);
    assert_true(fabs(s.mem_recent_slope) < 1e-9);
    analyze_free(a);
}

static void test_memory_trend_and_oom(void **state)
{
    (void)state;
    struct analyze_config c = config(30);
    struct analyzer *a = analyze_new(&c);
    for (int i = 0; i <= 20; i++)
        feed(a, 4000 + i, 90, NAN, 100 + 10 * i, 1);
    struct analyze_gpu_stats s = stats(a);
    assert_true(fabs(s.mem_slope - 10) < 1e-6);
    assert_true(s.mem_min == 100 && s.mem_max == 300 && s.mem_last == 300);
    assert_true(s.mem_first_use_t == 4000);
    assert_true(s.exit_t == 0);
    analyze_free(a);
    /* a process ends right after memory was 94.9% full: measured as it is (the rules call 95% OOM) */
    a = analyze_new(&c);
    feed(a, 5000, 90, NAN, 949, 1);
    feed(a, 5001, 0, NAN, 0, 0);
    s = stats(a);
    assert_true(s.exit_t == 5001 && fabs(s.exit_mem_share - 94.9) < 1e-9);
    /* two exits in the window: the fuller is kept, the latest of equals */
    feed(a, 5002, 90, NAN, 500, 2);
    feed(a, 5003, 90, NAN, 500, 1);
    s = stats(a);
    assert_true(s.exit_t == 5001 && fabs(s.exit_mem_share - 94.9) < 1e-9);
    feed(a, 5004, 90, NAN, 949, 2);
    feed(a, 5005, 90, NAN, 100, 1);
    s = stats(a);
    assert_true(s.exit_t == 5005);
    analyze_free(a);
}

/* Memory that rises while the GPU idles is progress (weights loading): the stall clock starts again. */
static void test_stall_clock(void **state)
{
    (void)state;
    /* where it rises stall_growth (0.1%: 1 MiB of 1000) above the most it held since the clock started */
    struct analyze_config c = config(100);
    struct analyzer *a = analyze_new(&c);
    struct analyze_gpu_stats s;
    static const long long mem[] = {400, 400, 401, 401, 405, 300, 320, 404, 406, 5, 50, 50};
    static const double still[] = {0, 1, 0, 1, 0, 1, 2, 3, 0, 0, 0, 1};
    /* 401: +1; 405: +4; 300, 320, 404: under the most (a neighbour's memory freed and taken again is no
     * progress); 406: +1 above it; 5: memory given up (under 1%), afresh; 50: +45 */
    for (int i = 0; i < 12; i++) {
        feed(a, 4000 + i, 0, 100, mem[i], 1);
        s = stats(a);
        if (fabs(s.still_for_s - still[i]) > 1e-9)
            fail_msg("point %d (memory %lld): still_for_s %g, expected %g", i, mem[i], s.still_for_s, still[i]);
        assert_true(fabs(s.idle_for_s - i) < 1e-9);
    }
    struct analyze_latest l;
    assert_true(analyze_latest(a, 0, &l) && !l.progress);
    feed(a, 4012, 0, 100, 400, 1);
    assert_true(analyze_latest(a, 0, &l) && l.progress);
    feed(a, 4013, 90, 0, 500, 1);   /* busy: neither idle nor still, and not progress (work) */
    s = stats(a);
    assert_true(s.idle_for_s == 0 && s.still_for_s == 0);
    assert_true(analyze_latest(a, 0, &l) && !l.progress);
    analyze_free(a);
}

/* mem_growth, what the rules' start-up reads of a job still allocating. */
static void test_mem_growth(void **state)
{
    (void)state;
    /* mem_growth: the memory's growth per window over the last 30 to 60 s, share of what it held then:
     * references at 5000 (100 MiB), 5030 (115), ..., 5090 (145), 5120 (160); at 5130 from 5090's: 20 over 40 s */
    struct analyze_config c = config(100);
    struct analyzer *a = analyze_new(&c);
    struct analyze_gpu_stats s;
    for (int t = 0; t <= 130; t++) {
        feed(a, 5000 + t, 0, 100, 100 + t / 2, 1);
        s = stats(a);
        if (t < 30)
            assert_true(isnan(s.mem_growth));   /* one reference only */
    }
    if (fabs(s.mem_growth - 100.0 * 20 / 145 * c.window_s / 40) > 1e-9)
        fail_msg("mem_growth %g", s.mem_growth);
    analyze_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_start),
        cmocka_unit_test(test_memory_recent_slope),
        cmocka_unit_test(test_memory_trend_and_oom),
        cmocka_unit_test(test_stall_clock),
        cmocka_unit_test(test_mem_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
