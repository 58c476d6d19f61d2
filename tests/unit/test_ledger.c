/*
 * test_ledger.c: the ledger's classification on synthetic points with
 * known answers: start-up before the first sustained work, a pause
 * between busy stretches, a stall, idle GPUs, a lost GPU, held-down clocks,
 * the loop's own input wait, gaps taken as input wait by an input verdict
 * that speaks late, the sums (every observed second once), the gains, and
 * the text and JSON.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "ledger.h"

static const struct ledger_config cfg = {.pause_s = 5, .pause_apart_s = 60, .stall_s = 120, .sustain_s = 5,
                                         .horizon_s = 90};

static struct ledger_point pt(double t, double idle, bool mem)
{
    return (struct ledger_point){.t = t, .idle = idle, .mem_held = mem, .job = true, .clock_ratio = 1,
                                 .wait_s = NAN, .sm_active = NAN, .tensor = NAN, .energy_j = NAN};
}

static void near(double got, double want, double tol, const char *what)
{
    if (fabs(got - want) > tol)
        fail_msg("%s: got %g, expected %g (+-%g)", what, got, want, tol);
}

static void sums(const struct ledger_totals *t)
{
    double s = t->pending;
    for (int c = 0; c < LC_COUNT; c++)
        s += t->s[c];
    near(s, t->gpu_seconds, 1e-6 * (t->gpu_seconds + 1), "causes sum to the observed seconds");
}

static void test_startup_pause_stall(void **state)
{
    (void)state;
    struct ledger *l = ledger_new(&cfg);
    struct ledger_totals t;
    double s = 0;
    for (int i = 0; i <= 1000; i++, s++) {
        double idle = i < 20 ? 1 : (i >= 300 && i < 330) ? 1 : (i >= 600 && i < 800) ? 1 : 0.02;
        { struct ledger_point p = pt(s, idle, i >= 10); ledger_feed(l, 0, &p); }
        if (i == 400) {   /* midway: decided and pending add up, and stay put */
            ledger_gpu(l, 0, &t);
            sums(&t);
        }
    }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    sums(&t);
    near(t.gpu_seconds, 1000, 1e-9, "observed");
    near(t.s[LC_STARTUP], 19, 1e-9, "startup: the job's first idle seconds (the intervals up to the first busy point)");
    near(t.s[LC_PAUSE], 30, 1e-9, "pause: 30 s idle between busy stretches");
    near(t.s[LC_STALLED], 200, 1e-9, "stalled: 200 s idle holding memory");
    near(t.s[LC_COMPUTE], 751, 1e-9, "compute");
    near(t.s[LC_INPUT_WAIT] + t.s[LC_IDLE] + t.s[LC_LOST] + t.s[LC_THROTTLED], 0, 1e-9, "nothing else");
    ledger_free(l);
}

/* Weights read into an idle GPU from slow storage: its memory grows (progress), so the stall clock starts
 * again; only memory held flat for stall_s is stalled, before the first work and between busy stretches. */
static void test_loading_not_stalled(void **state)
{
    (void)state;
    struct ledger *l = ledger_new(&cfg);
    struct ledger_totals t;
    for (int i = 0; i <= 800; i++) {
        /* 0-200: loading (progress every 10 s), 200-400 work, 400-560 loading again, 560-800 held flat */
        bool busy = i > 200 && i <= 400;
        struct ledger_point p = pt(i, busy ? 0.02 : 1, true);
        p.progress = !busy && i % 10 == 0 && (i <= 200 || (i > 400 && i <= 560));
        ledger_feed(l, 0, &p);
    }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    sums(&t);
    near(t.s[LC_STARTUP], 200, 1e-9, "the first load: start-up, not stalled");
    near(t.s[LC_COMPUTE], 200, 1e-9, "compute");
    near(t.s[LC_STALLED], 240, 1e-9, "stalled: only the 240 s held flat, from the last growth at 560");
    near(t.s[LC_PAUSE], 160, 1e-9, "the second load: a pause");
    ledger_free(l);
    /* stalled, then memory grows and work comes back 3 s later: that stretch was a stop all the same, so a
     * 10 s stop 27 s after it recurs (the input's while an input verdict holds), as the rules read it */
    l = ledger_new(&cfg);
    for (int i = 0; i <= 300; i++) {
        bool idle = (i > 100 && i <= 233) || (i > 260 && i <= 270);
        struct ledger_point p = pt(i, idle ? 1 : 0.02, true);
        p.progress = i == 231;
        p.input_verdict = i > 240;
        ledger_feed(l, 0, &p);
    }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    sums(&t);
    near(t.s[LC_INPUT_WAIT], 10 + 57 * 0.02, 1e-9,   /* and the gaps of the busy records from 234 */
         "the stop 27 s after the stalled one: input wait, not an isolated pause");
    near(t.s[LC_PAUSE], 3, 1e-9, "the stalled stop's 3 s after its memory grew: its rest, a pause");
    ledger_free(l);
}

/* A compile's start-up: autotune bursts (a quarter of a record) every 4 s between idle records. While the
 * start-up still allocates they are not sustained work, and a mostly idle record's idle rest is start-up;
 * otherwise five bursts 3 s apart are 5 s of sustained work and the start-up ends at the fifth. */
static void test_autotune_bursts(void **state)
{
    (void)state;
    for (int alloc = 0; alloc < 2; alloc++) {
        struct ledger *l = ledger_new(&cfg);
        struct ledger_totals t;
        for (int i = 0; i <= 100; i++) {
            struct ledger_point p = pt(i, i >= 60 ? 0.02 : i % 4 == 0 ? 0.75 : 1, true);
            p.allocating = alloc && i < 60;
            ledger_feed(l, 0, &p);
        }
        ledger_finish(l);
        ledger_gpu(l, 0, &t);
        sums(&t);
        if (alloc) {   /* 1-59: 45 idle records and 14 bursts' idle 0.75 s */
            near(t.s[LC_STARTUP], 59 - 14 * 0.25, 1e-9, "start-up: the compile, bursts' idle rest included");
            near(t.s[LC_COMPUTE], 14 * 0.25 + 41, 1e-9, "compute: the bursts' work, then training");
        } else {       /* working from the fifth burst (at 20): before it the 15 idle records (the bursts'
                        * gaps are not the start-up's unless it allocates: a starved job's first steps) */
            near(t.s[LC_STARTUP], 15, 1e-9, "start-up up to the fifth burst");
        }
        ledger_free(l);
    }
}

/* A notebook's kernel holding memory between cells: its long stop is idle (notebook-idle), not stalled. */
static void test_notebook(void **state)
{
    (void)state;
    struct ledger *l = ledger_new(&cfg);
    struct ledger_totals t;
    for (int i = 0; i <= 400; i++) {
        struct ledger_point p = pt(i, i >= 100 ? 1 : 0.02, true);
        p.idle_by_design = true;
        ledger_feed(l, 0, &p);
    }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    sums(&t);
    near(t.s[LC_IDLE], 301, 1e-9, "a notebook between cells: idle (the intervals ending at points 100-400)");
    near(t.s[LC_STALLED], 0, 1e-9, "not stalled");
    ledger_free(l);
}

static void test_idle_lost_throttled(void **state)
{
    (void)state;
    struct ledger *l = ledger_new(&cfg);
    struct ledger_totals t;
    for (int i = 0; i <= 600; i++) {
        struct ledger_point a = pt(i, 0, true), b = pt(i, 1, false), c = pt(i, 0, true);
        a.lost = i > 400;                       /* GPU 0: lost after 400 s */
        b.job = false;                          /* GPU 1: nothing ever runs */
        c.clock_held = i >= 100 && i < 300;     /* GPU 2: clocks held at 60% for 200 s */
        c.clock_ratio = c.clock_held ? 0.6 : 1;
        c.sm_active = 80;
        c.tensor = 40;
        c.energy_j = 300.0 * i;
        ledger_feed(l, 0, &a);
        ledger_feed(l, 1, &b);
        ledger_feed(l, 2, &c);
    }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    sums(&t);
    near(t.s[LC_LOST], 200, 1e-9, "lost");
    near(t.s[LC_COMPUTE], 400, 1e-9, "compute until the loss");
    ledger_gpu(l, 1, &t);
    near(t.s[LC_IDLE], 600, 1e-9, "an idle GPU");
    ledger_gpu(l, 2, &t);
    sums(&t);
    near(t.s[LC_THROTTLED], 200 * 0.4, 1e-6, "throttled: busy seconds x (1 - clock / max)");
    near(t.s[LC_COMPUTE], 600 - 80, 1e-6, "compute");
    near(t.energy_j, 180000, 1e-6, "energy");
    near(t.sm_s / t.gpm_s, 80, 1e-9, "SM activity while computing");
    double x = ledger_speedup(&t, LC_THROTTLED);
    near(x, 1 / (1 - 80.0 / 600), 1e-9, "throttled's speedup bound");
    assert_true(isnan(ledger_speedup(&t, LC_IDLE)));
    ledger_run(l, &t);
    sums(&t);
    assert_int_equal(t.gpus, 3);
    near(t.gpu_seconds, 1800, 1e-9, "the run's GPU-seconds");
    ledger_free(l);
}

/* The recent window (gpumon top's "time goes to"): seconds decay over horizon_s / 3 (30 s here), so a new
 * cause takes over once its decayed seconds pass the old one's: 300 s of compute, then clocks held at 20%
 * (80% of each second throttled) take over after about 29 s; a gap the ledger does not observe leaves the
 * old seconds decayed to nothing. */
static void test_recent_cause(void **state)
{
    (void)state;
    struct ledger *l = ledger_new(&cfg);
    assert_int_equal(ledger_recent_cause(l, 0), LC_COMPUTE);   /* nothing yet, and a GPU never seen */
    assert_int_equal(ledger_recent_cause(l, 7), LC_COMPUTE);
    for (int i = 0; i <= 400; i++) {
        struct ledger_point p = pt(i, 0.02, true);
        p.clock_held = i > 300;
        p.clock_ratio = p.clock_held ? 0.2 : 1;
        ledger_feed(l, 0, &p);
        if (i == 300 || i == 320)
            assert_int_equal(ledger_recent_cause(l, 0), LC_COMPUTE);
        if (i == 340 || i == 400)
            assert_int_equal(ledger_recent_cause(l, 0), LC_THROTTLED);
    }
    for (int i = 5000; i <= 5003; i++) {   /* after a gap of more than an hour: compute again at once */
        struct ledger_point p = pt(i, 0.02, true);
        ledger_feed(l, 0, &p);
    }
    assert_int_equal(ledger_recent_cause(l, 0), LC_COMPUTE);
    ledger_free(l);
}

static void test_input_wait(void **state)
{
    (void)state;
    struct ledger *l = ledger_new(&cfg);
    struct ledger_totals t;
    /* GPU 0: the loop reports 0.4 s of input wait a second */
    for (int i = 0; i <= 300; i++) {
        struct ledger_point p = pt(i, 0.4, true);
        p.wait_s = 0.4;
        p.loop_s = 1;
        p.steps = 2;
        ledger_feed(l, 0, &p);
    }
    /* GPU 1: no steps; it swings (half of each second idle) and an input verdict speaks after 90 s */
    for (int i = 0; i <= 300; i++) {
        struct ledger_point p = pt(i, 0.5, true);
        p.input_verdict = i >= 90;
        ledger_feed(l, 1, &p);
    }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    sums(&t);
    near(t.s[LC_INPUT_WAIT], 120, 1e-6, "the loop's own wait");
    near(t.s[LC_COMPUTE], 180, 1e-6, "compute");
    near(ledger_speedup(&t, LC_INPUT_WAIT), 1 / 0.6, 1e-6, "speedup bound 1/(1-0.4)");
    near(t.steps, 600, 1e-9, "steps");
    ledger_gpu(l, 1, &t);
    sums(&t);
    near(t.s[LC_INPUT_WAIT], 150, 1, "the idle half, also before the verdict spoke (within its horizon)");
    ledger_free(l);
    /* an input verdict never comes: the gaps inside busy time are compute, a long stop a pause */
    l = ledger_new(&cfg);
    for (int i = 0; i <= 300; i++)
        { struct ledger_point p = pt(i, i >= 100 && i < 110 ? 1 : 0.1, true); ledger_feed(l, 0, &p); }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    near(t.s[LC_PAUSE], 10, 1e-9, "pause");
    near(t.s[LC_COMPUTE], 290, 1e-9, "compute, gaps included");
    ledger_free(l);
}

/* Stops an input verdict takes, and one it does not: stops that recur (10 s every 30 s, less than
 * pause_apart_s of busy time between them) are the input stall itself once the verdict speaks within the
 * horizon; an isolated stop (60 s of busy time before it) is the rules' pause, taken by no verdict that comes
 * after it (tests/holdout3/mixed-job.scn: a 60 s pause, then input-bound 30 s later, had it as input wait). */
static void test_stops_and_input(void **state)
{
    (void)state;
    struct ledger *l = ledger_new(&cfg);
    struct ledger_totals t;
    for (int i = 0; i <= 200; i++) {   /* GPU 0: busy 20 s, stopped 10 s, from 20 s; the verdict at 170 s */
        struct ledger_point p = pt(i, i >= 20 && i % 30 >= 20 ? 1 : 0, true);
        p.input_verdict = i >= 170;
        ledger_feed(l, 0, &p);
    }
    /* GPU 1: busy 100 s, a 30 s stop (isolated: 100 s of work before it), busy; the verdict at 160 s */
    for (int i = 0; i <= 200; i++) {
        struct ledger_point p = pt(i, i > 100 && i <= 130 ? 1 : 0, true);
        p.input_verdict = i >= 160;
        ledger_feed(l, 1, &p);
    }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    sums(&t);
    /* stops end at 29, 59, 89, 119, 149, 179 and one second at 200: at 170 the three within the horizon
     * (90 s) are taken, the one under the verdict and the last second are its; the two older were pauses */
    near(t.s[LC_INPUT_WAIT], 41, 1e-9, "recurring stops within the horizon: input wait");
    near(t.s[LC_PAUSE], 20, 1e-9, "recurring stops decided before the verdict: pauses");
    ledger_gpu(l, 1, &t);
    sums(&t);
    near(t.s[LC_PAUSE], 30, 1e-9, "the isolated stop: a pause, whatever verdict came after it");
    near(t.s[LC_INPUT_WAIT], 0, 1e-9, "no input wait");
    ledger_free(l);
}

/* At most 256 undecided items wait per GPU: with a horizon of 1000 s, 600 s of swinging (half of each
 * second idle, a gap each) and an input verdict at the end, the oldest 344 gaps were decided as compute
 * when the ring was full, and the newest 256 are input wait, as is the last interval's gap. */
static void test_pending_ring(void **state)
{
    (void)state;
    const struct ledger_config long_cfg = {.pause_s = 5, .stall_s = 120, .sustain_s = 5, .horizon_s = 1000};
    struct ledger *l = ledger_new(&long_cfg);
    struct ledger_totals t;
    for (int i = 0; i <= 600; i++) {
        struct ledger_point p = pt(i, 0.5, true);
        p.input_verdict = i == 600;
        ledger_feed(l, 0, &p);
        if (i == 7 || i == 9 || i == 300) {   /* as the ring grows: nothing decided yet */
            ledger_gpu(l, 0, &t);
            sums(&t);
            near(t.pending, i < 300 ? 0.5 * i : 128, 1e-9, "undecided: the gaps, at most 256 of them");
        }
    }
    ledger_finish(l);
    ledger_gpu(l, 0, &t);
    sums(&t);
    near(t.s[LC_INPUT_WAIT], 128.5, 1e-9, "input wait: the newest 256 gaps, and the last interval's");
    near(t.s[LC_COMPUTE], 600 - 128.5, 1e-9, "compute: the busy halves and the oldest gaps");
    ledger_free(l);
}

static void test_gaps_and_text(void **state)
{
    (void)state;
    struct ledger *l = ledger_new(&cfg);
    struct ledger_totals t;
    /* a log with a 2-hour hole: not observed */
    for (int i = 0; i <= 100; i++)
        { struct ledger_point p = pt(i < 50 ? i : i + 7200, 0, true); ledger_feed(l, 0, &p); }
    ledger_steps(l, 1000);
    ledger_finish(l);
    ledger_run(l, &t);
    near(t.gpu_seconds, 99, 1e-9, "a hole in the log is not observed");
    struct sbuf b;
    sbuf_init(&b);
    ledger_text(&t, "1 GPU", 2.5, &b);
    assert_non_null(strstr(b.data, "GPU time by cause (1 GPU, 1.6 GPU-min observed"));
    assert_non_null(strstr(b.data, "compute"));
    sbuf_reset(&b);
    ledger_json(&t, 2.5, &b);
    assert_non_null(strstr(b.data, "{\"gpu_seconds\":99.000,\"seconds\":{\"compute\":99.000,\"input_wait\":0.000,"));
    if (!strstr(b.data, "\"gain\":{\"input_wait\":{\"speedup\":1.0000,\"gpu_seconds\":0.000}"))
        fail_msg("%s", b.data);
    assert_non_null(strstr(b.data, "\"cost\":{\"per_gpu_hour\":2.5000,\"total\":0.0688"));
    assert_non_null(strstr(b.data, "\"steps\":1000"));
    assert_null(strstr(b.data, "nan"));
    sbuf_free(&b);
    ledger_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_startup_pause_stall),
        cmocka_unit_test(test_stops_and_input),
        cmocka_unit_test(test_notebook),
        cmocka_unit_test(test_loading_not_stalled),
        cmocka_unit_test(test_autotune_bursts),
        cmocka_unit_test(test_idle_lost_throttled),
        cmocka_unit_test(test_recent_cause),
        cmocka_unit_test(test_input_wait),
        cmocka_unit_test(test_pending_ring),
        cmocka_unit_test(test_gaps_and_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
