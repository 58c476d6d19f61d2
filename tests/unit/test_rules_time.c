/*
 * test_rules_time.c: the rules that read time and the job's steps: start-up
 * and pauses (a stop between busy stretches, repeated stalls that are not
 * pauses), the loop's input wait from its step timing, and the steps' shape
 * (jitter, slowing down, one rank slower than the others).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules_fixture.h"

/* Start-up and pauses are not input stalls. */
static void test_startup_and_pause(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.util_mean = 45;
    s.util_peak = 80;
    s.idle_share = 30;
    s.idle_gaps = 4;
    assert_true(holds(&s, "input-bound"));
    s.job_start_t = s.now - 89;           /* the job started 89 s ago: its first 60 s are in the window */
    assert_false(holds(&s, "input-bound"));
    assert_int_equal(nactive(&s), 0);
    cfg.t[T_STARTUP_S] = 58;              /* a shorter start-up: over before the window began */
    assert_true(holds(&s, "input-bound"));
    cfg.t[T_STARTUP_S] = 60;
    /* one 15 s stop in 30 s, 94% around it, 170 s after the previous one, with the CPU busy writing: a
     * pause (info), not input-bound-cpu */
    s = base();
    s.util_mean = 47;
    s.util_peak = 96;
    s.idle_share = 50;
    s.idle_gaps = 1;
    s.idle_gap_max_s = 15;
    s.stops = 1;
    s.stop_max_s = s.stop_idle_s = 15;
    s.stop_busy_before_s = 170;
    s.busy_util = 94;
    s.job_ok = true;
    s.ncpus = 16;
    s.job_cpu = s.job_cpu_top = 1.0;
    assert_true(holds(&s, "pause"));
    assert_false(holds(&s, "input-bound-cpu"));
    s.util_mean = 70;                     /* the window mostly busy: the pause still holds, healthy beside it */
    assert_true(holds(&s, "pause"));
    assert_true(holds(&s, "healthy"));
    s.util_mean = 47;
    s.idle_for_s = 5;                     /* the stop still lasts: no verdict yet, neither pause nor input */
    assert_false(holds(&s, "pause"));
    assert_false(holds(&s, "input-bound-cpu"));
    s.idle_for_s = 4.9;
    assert_true(holds(&s, "pause"));
    s.idle_for_s = 0;
    s.stop_going = true;                  /* still in it (a quiet point: no burst of work yet) */
    assert_false(holds(&s, "pause"));
    s.stop_going = false;
    s.busy_util = 69;                     /* not busy around it */
    assert_false(holds(&s, "pause"));
    s.busy_util = 94;
    s.idle_share = 50 + 100 * 3.0 / 30;   /* 3 s idle besides the stop: under swing.idle_share (10%) of 30 s */
    assert_false(holds(&s, "pause"));
    s.idle_share = 50 + 100 * 2.9 / 30;
    assert_true(holds(&s, "pause"));
    s.idle_share = 50;
    assert_int_equal(rules_stop_kind(&s, &cfg), RULE_STOP_PAUSE);   /* what the ledger reads */
    s.stop_busy_before_s = 60;            /* pause.apart after the one before: still isolated */
    assert_true(holds(&s, "pause"));
    struct analyze_stop st = {.busy_before_s = 60};
    assert_true(rules_stop_is_pause(&st, &cfg));
    st.busy_before_s = 59.9;
    assert_false(rules_stop_is_pause(&st, &cfg));
    st.busy_before_s = NAN;
    assert_true(rules_stop_is_pause(&st, &cfg));
    s.stop_busy_before_s = 59.9;          /* it came back sooner: the stall recurs, the input's */
    assert_false(holds(&s, "pause"));
    assert_true(holds(&s, "input-bound-cpu"));
    assert_int_equal(rules_stop_kind(&s, &cfg), RULE_STOP_RECURS);
    s.stop_busy_before_s = NAN;           /* the first stop of a log that began in it: not known to recur, */
    assert_int_equal(rules_stop_kind(&s, &cfg), RULE_STOP_PAUSE);
    assert_false(holds(&s, "input-bound-cpu"));
    assert_false(holds(&s, "pause"));     /* but nothing was busy before it: a start-up, not a pause */
    s.stop_busy_before_s = 170;
    s.stops = 0;                          /* no stop of pause.seconds (a shorter gap): input */
    assert_int_equal(rules_stop_kind(&s, &cfg), RULE_STOP_NONE);
    assert_false(holds(&s, "pause"));
    assert_true(holds(&s, "input-bound-cpu"));
    s.stops = 1;
    s.idle_gaps = 4;                      /* a window that holds a pause is no input verdict, swing or not */
    assert_false(holds(&s, "input-bound-cpu"));
    assert_false(holds(&s, "input-bound"));
    s.idle_gaps = 1;
    /* the start-up goes on while memory grows (compilation), for the input rules; not for memory pressure */
    s = base();
    s.util_mean = 45;
    s.util_peak = 80;
    s.idle_share = 30;
    s.idle_gaps = 4;
    s.job_start_t = s.now - 120;          /* past its first 60 s */
    s.mem_last = s.mem_min = s.mem_max = 600;
    assert_true(holds(&s, "input-bound"));
    s.mem_slope = 20.0 / 30;              /* memory grew 2% of the total over the window: still compiling */
    assert_false(holds(&s, "input-bound"));
    s.job_start_t = s.now - 330;          /* up to startup.max (300 s) */
    assert_true(holds(&s, "input-bound"));
    s.job_start_t = s.now - 120;
    s.mem_slope = 19.9 / 30;              /* 1.99% of the total, 3.3% of the 600 MiB held */
    assert_true(holds(&s, "input-bound"));
    /* or by startup.growth (5%) of what it holds, per window over the last minutes (mem_growth): a model
     * small beside its GPU, still allocating at its autotune bursts */
    s.mem_slope = 0;
    s.mem_growth = 5;
    assert_false(holds(&s, "input-bound"));
    s.mem_growth = 4.9;
    assert_true(holds(&s, "input-bound"));
    s.mem_growth = NAN;                   /* not known yet */
    assert_true(holds(&s, "input-bound"));
    s.mem_growth = 5;
    s.job_start_t = s.now - 330;          /* up to startup.max */
    assert_true(holds(&s, "input-bound"));
    s.job_start_t = s.now - 120;
    s.mem_growth = 0;
    s.mem_slope = 19.9 / 30;
    s.util_mean = 34;                     /* around the stops only 68%: not a busy job pausing */
    assert_false(holds(&s, "pause"));
}

/* Step evidence: the TensorFlow Profiler's 5% and 20% bounds, and it outranks utilization's inference. */
static void test_steps_input(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    with_steps(&s, 19.9);
    assert_false(holds(&s, "input-wait"));
    assert_true(holds(&s, "input-wait-some"));
    with_steps(&s, 20);
    assert_true(holds(&s, "input-wait"));
    assert_false(holds(&s, "input-wait-some"));
    with_steps(&s, 4.9);
    assert_int_equal(nactive(&s), 0);
    with_steps(&s, 5);
    assert_true(holds(&s, "input-wait-some"));
    /* too few steps with a known wait: step rules stay silent */
    with_steps(&s, 60);
    s.steps.waited = 9;
    assert_false(holds(&s, "input-wait"));
    s.steps.waited = 10;
    assert_true(holds(&s, "input-wait"));
    s.steps.wait_share = NAN;   /* no phase time */
    assert_false(holds(&s, "input-wait"));
    /* utilization looks input-bound (low, CPU saturated), the loop hardly waits: not input-bound */
    s = base();
    s.util_mean = 30;
    s.job_ok = true;
    s.job_cpu_top = 1;
    s.ncpus = 8;
    assert_true(holds(&s, "input-bound-cpu"));
    with_steps(&s, 2);
    assert_false(holds(&s, "input-bound-cpu"));
    assert_false(holds(&s, "input-wait"));
    /* ... and with iowait */
    s.iowait = 30;
    s.job_ok = false;
    assert_false(holds(&s, "input-bound-io"));
    /* low and steady, the loop waits 30%: input-wait, not small-batch */
    s = base();
    s.util_mean = 30;
    assert_true(holds(&s, "small-batch"));
    with_steps(&s, 30);
    assert_false(holds(&s, "small-batch"));
    assert_true(holds(&s, "input-wait"));
    with_steps(&s, 3);   /* the loop does not wait: the kernels are small */
    assert_true(holds(&s, "small-batch"));
}

static void test_steps_shape(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    with_steps(&s, 1);
    s.steps.p95 = 0.2399;
    assert_false(holds(&s, "step-jitter"));
    s.steps.p95 = 0.24;
    assert_true(holds(&s, "step-jitter"));
    s.steps.p95 = 0.15;
    /* slowing: p50 at 1.3x the best of a window that ended at least a window ago, the GPU doing less */
    s.step_best_p50 = 0.1;
    s.step_best_t = s.now - 30;
    s.best_util = 70;   /* 10 points busier then */
    s.steps.p50 = 0.1299;
    assert_false(holds(&s, "steps-slowing"));
    s.steps.p50 = 0.13;
    assert_true(holds(&s, "steps-slowing"));
    s.step_best_t = s.now - 29;   /* the best is this very window */
    assert_false(holds(&s, "steps-slowing"));
    s.step_best_t = s.now - 30;
    s.best_util = 69.9;   /* as busy as then, at its clocks: each step does more work (a longer sequence) */
    assert_false(holds(&s, "steps-slowing"));
    s.sm_active_mean = 72, s.best_sm = 80;   /* 10% fewer SMs at work */
    assert_true(holds(&s, "steps-slowing"));
    s.best_sm = 79.9;
    assert_false(holds(&s, "steps-slowing"));
    s.sm_active_mean = s.best_sm = NAN;
    s.best_clock = 1400 / 0.9;   /* the SM clock 10% down */
    assert_true(holds(&s, "steps-slowing"));
    s.best_clock = 1400;
    s.best_wait = s.steps.wait_share - 10;   /* waiting 10 points more */
    assert_true(holds(&s, "steps-slowing"));
    s.best_wait = NAN;
    s.thermal_share = 20;   /* throttled */
    assert_true(holds(&s, "steps-slowing"));
    s.thermal_share = 0;
    s.best_util = 70;
    s.steps.waited = 9;
    assert_false(holds(&s, "steps-slowing"));
    /* slow-rank: the analysis measures each GPU's slowest process against the others; the rule speaks
     * where that one is slow (rank.slow, or steps.wait points more waiting) and none ranked slower is */
    s = base();
    assert_false(holds(&s, "slow-rank"));
    s.proc_pid = 4242;
    s.proc_rank = 1;
    s.job_ranks = 2;
    s.proc_p50 = 0.2;
    s.others_p50 = 0.1;
    s.proc_wait = 45;
    s.others_wait = 2;
    s.proc_ratio = 1.24;
    s.proc_wait_gap = 19.9;
    assert_false(holds(&s, "slow-rank"));
    s.proc_ratio = 1.25;
    assert_true(holds(&s, "slow-rank"));
    s.proc_ratio = 1;
    s.proc_wait_gap = 20;
    assert_true(holds(&s, "slow-rank"));
    s.slower_ratio = 1.1;                 /* another ranks slower, but is not slow: this one is the slowest slow */
    s.slower_wait_gap = 19;
    assert_true(holds(&s, "slow-rank"));
    s.slower_ratio = 1.3;                 /* a slower one is slow: it is named, on its GPU */
    assert_false(holds(&s, "slow-rank"));
    s.slower_ratio = 1.1;
    s.proc_ratio = 2;
    bool active[R_COUNT];
    struct sbuf ev[R_COUNT];
    for (int i = 0; i < R_COUNT; i++)
        sbuf_init(&ev[i]);
    rules_evaluate(&s, &cfg, active, ev);
    assert_non_null(strstr(ev[rule_index("slow-rank")].data, "rank 1 (pid 4242): p50 step 200 ms against 100 ms"));
    for (int i = 0; i < R_COUNT; i++)
        sbuf_free(&ev[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_startup_and_pause, setup),
        cmocka_unit_test_setup(test_steps_input, setup),
        cmocka_unit_test_setup(test_steps_shape, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
