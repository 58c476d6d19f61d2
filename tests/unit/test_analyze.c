/*
 * test_analyze.c: the windowed statistics on synthetic records:
 * percentiles from the histogram, eviction from the window, idle share and
 * gaps, coverage, XIDs in the window, peers,
 * the slowest process of a job, the whole-run summary, the window's
 * running figures against a pass over its points (bit for bit), and the
 * figure tables themselves (every row well formed); the memory figures are
 * test_analyze_memory.c's. Measurements only: what the
 * rules decide from them is test_rules.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "analyze_int.h"
#include "metrics.h"
#include "analyze_fixture.h"


/* Two GPUs at 90%, and the given processes' steps: each takes step seconds, wait of it waiting. */
static struct record_rank ranks[4];
static void feed_steps(struct analyzer *a, double t, unsigned nr, const int *pids, const int *local,
                       const double *step, const double *wait, int proc_on_gpu1)
{
    memset(gpus, 0, sizeof gpus);
    memset(&rec, 0, sizeof rec);
    rec.time.tv_sec = (time_t)t;
    rec.ngpus = 2;
    rec.gpus = gpus;
    for (unsigned g = 0; g < 2; g++) {
        gpus[g].index = g;
        set_i(&gpus[g], M_UTIL_GPU, 90);
        set_i(&gpus[g], M_MEM_USED, 500);
        set_i(&gpus[g], M_MEM_TOTAL, 1000);
        set_i(&gpus[g], M_PROC_COUNT, 1);
    }
    if (proc_on_gpu1) {
        gpus[1].nprocs = 1;
        gpus[1].procs[0].pid = (unsigned)proc_on_gpu1;
    }
    for (unsigned i = 0; i < nr; i++) {
        unsigned n = (unsigned)(1 / step[i]);
        ranks[i] = (struct record_rank){.pid = pids[i], .rank = local[i], .local_rank = local[i], .world = (int)nr,
                                        .phase = SP_COMPUTE, .steps = n, .batches = n, .waited = n,
                                        .step_s = n * step[i], .wait_s = n * wait[i], .in_wait_s = n * wait[i],
                                        .in_compute_s = n * (step[i] - wait[i]), .nbins = 1};
        ranks[i].bins[0].bin = (uint16_t)record_step_bin(step[i]);
        ranks[i].bins[0].n = n;
    }
    rec.nranks = nr;
    rec.ranks = ranks;
    analyze_feed(a, &rec);
}

static void test_steps(void **state)
{
    (void)state;
    struct analyze_config c = config(30);
    struct analyzer *a = analyze_new(&c);
    const int pids[2] = {100, 200}, local[2] = {0, 1};
    const double step[2] = {0.1, 0.2}, wait[2] = {0.02, 0.1};
    for (int t = 0; t <= 40; t++)
        feed_steps(a, 1000 + t, 2, pids, local, step, wait, 0);
    struct analyze_gpu_stats s[MAX_GPUS];
    analyze_stats(a, s);
    /* by local rank: rank 0 on GPU 0, rank 1 on GPU 1 */
    assert_true(s[0].steps_ok && s[1].steps_ok);
    assert_float_equal(s[0].steps.wait_share, 20, 1e-9);
    assert_float_equal(s[1].steps.wait_share, 50, 1e-9);
    assert_float_equal(s[0].steps.rate, 10, 0.01);
    assert_float_equal(s[0].steps.step_mean, 0.1, 1e-9);
    assert_float_equal(s[0].steps.wait_mean, 0.02, 1e-9);
    assert_float_equal(s[0].steps.p50, 0.1, 0.1 * 0.022);
    assert_float_equal(s[1].steps.p95, 0.2, 0.2 * 0.022);
    assert_float_equal(s[0].steps.steps, 300, 1e-9);   /* the 30 records in the window */
    /* each GPU's process against the other: twice as slow on GPU 1, half on GPU 0; the rules judge */
    assert_int_equal(s[1].proc_pid, 200);
    assert_int_equal(s[1].proc_rank, 1);
    assert_float_equal(s[1].others_p50, s[0].steps.p50, 1e-9);
    assert_float_equal(s[1].proc_ratio, s[1].steps.p50 / s[0].steps.p50, 1e-9);
    assert_float_equal(s[1].proc_wait_gap, 30, 1e-6);
    assert_true(isnan(s[1].slower_ratio));   /* nobody ranks slower */
    assert_int_equal(s[0].proc_pid, 100);
    assert_float_equal(s[0].proc_ratio, 1 / s[1].proc_ratio, 1e-9);
    assert_float_equal(s[0].slower_ratio, s[1].proc_ratio, 1e-9);   /* GPU 1's ranks slower */
    assert_float_equal(s[0].slower_wait_gap, 30, 1e-6);
    assert_int_equal(s[0].job_ranks, 2);
    /* the best p50 is kept; the same pace is not slower */
    assert_float_equal(s[0].step_best_p50, s[0].steps.p50, 1e-9);
    /* whole run */
    struct stepstat_rank r;
    stepstat_rank(analyze_steps(a), 0, analyze_now(a), &r);
    assert_float_equal(r.run.steps, 410, 1e-9);
    assert_float_equal(r.run.rate, 10, 0.01);
    assert_int_equal(r.gpu, 0);
    analyze_free(a);

    /* one process seen on GPU 1's process list: there, even with its local rank 0 */
    a = analyze_new(&c);
    for (int t = 0; t <= 40; t++)
        feed_steps(a, 1000 + t, 2, pids, local, step, wait, t < 5 ? 100 : 0);
    analyze_stats(a, s);
    stepstat_rank(analyze_steps(a), 0, analyze_now(a), &r);
    assert_int_equal(r.gpu, 1);
    assert_float_equal(s[1].steps.wait_share, (20 * 0.1 * 10 + 50 * 0.2 * 5) / (0.1 * 10 + 0.2 * 5), 1e-9);
    analyze_free(a);

    /* one process, its pid on no GPU: its steps count for every GPU */
    a = analyze_new(&c);
    for (int t = 0; t <= 40; t++)
        feed_steps(a, 1000 + t, 1, pids, local, step, wait, 0);
    analyze_stats(a, s);
    assert_true(s[0].steps_ok && s[1].steps_ok);
    assert_float_equal(s[1].steps.wait_share, 20, 1e-9);
    assert_int_equal(s[0].proc_pid, 0);   /* a job of one: nobody to compare with */
    /* it stops reporting: its figures leave with the window */
    for (int t = 41; t <= 80; t++)
        feed_steps(a, 1000 + t, 0, pids, local, step, wait, 0);
    analyze_stats(a, s);
    assert_false(s[0].steps_ok);
    analyze_free(a);
}

/* Long steps (6 s: 3 waiting, 3 computing, sampled every second): utilization while the loop waited and
 * while it computed, told apart; short steps against the interval: not claimed. */
static void test_steps_phases(void **state)
{
    (void)state;
    struct analyze_config c = config(30);
    struct analyzer *a = analyze_new(&c);
    for (int t = 0; t <= 60; t++) {
        bool waiting = t % 6 < 3;
        memset(gpus, 0, sizeof gpus);
        memset(&rec, 0, sizeof rec);
        rec.time.tv_sec = 1000 + t;
        rec.ngpus = 1;
        rec.gpus = gpus;
        set_i(&gpus[0], M_UTIL_GPU, waiting ? 5 : 95);
        gpus[0].v[M_GPM_SM_ACTIVE] = (struct value){.state = VS_OK, .u.f = waiting ? 1 : 70};
        ranks[0] = (struct record_rank){.pid = 7, .rank = -1, .local_rank = -1, .world = -1,
                                        .phase = waiting ? SP_WAIT : SP_COMPUTE,
                                        .in_wait_s = waiting ? 1 : 0, .in_compute_s = waiting ? 0 : 1};
        if (t % 6 == 0 && t > 0) {   /* a step ends as the next wait begins */
            ranks[0].steps = ranks[0].waited = 1;
            ranks[0].step_s = 6, ranks[0].wait_s = 3;
            ranks[0].nbins = 1;
            ranks[0].bins[0].bin = (uint16_t)record_step_bin(6);
            ranks[0].bins[0].n = 1;
        }
        rec.nranks = 1;
        rec.ranks = ranks;
        analyze_feed(a, &rec);
    }
    struct analyze_gpu_stats s = stats(a);
    assert_float_equal(s.steps.wait_share, 50, 4);
    assert_float_equal(s.util_in_wait, 5, 1e-6);
    assert_float_equal(s.util_in_compute, 95, 1e-6);
    assert_float_equal(s.sm_in_wait, 1, 1e-6);
    assert_float_equal(s.sm_in_compute, 70, 1e-6);
    analyze_free(a);
    /* 100 ms steps sampled every second: the phases blur, nothing is said */
    a = analyze_new(&c);
    const int pid[1] = {7}, local[1] = {-1};
    const double step[1] = {0.1}, wait[1] = {0.05};
    for (int t = 0; t <= 40; t++)
        feed_steps(a, 1000 + t, 1, pid, local, step, wait, 0);
    s = stats(a);
    assert_true(isnan(s.util_in_wait) && isnan(s.util_in_compute));
    analyze_free(a);
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The selection and the others' median agree with sorting, with ties. */
static void test_selection(void **state)
{
    (void)state;
    unsigned seed = 7;
    for (int round = 0; round < 500; round++) {
        double v[40], sorted[40], w[40];
        unsigned n = 1 + (seed = seed * 1103515245u + 12345u) % 40;
        for (unsigned i = 0; i < n; i++)
            v[i] = (double)(((seed = seed * 1103515245u + 12345u) >> 16) % 9);   /* few values: many ties */
        memcpy(sorted, v, sizeof v);
        qsort(sorted, n, sizeof *sorted, cmp_d);
        for (unsigned k = 0; k < n; k++) {
            memcpy(w, v, sizeof v);
            assert_true(analyze_nth(w, n, k) == sorted[k]);
        }
        for (unsigned out = 0; out < n; out++) {   /* the median of all but v[out], as a sort of the rest gives */
            double rest[40];
            unsigned m = 0;
            for (unsigned i = 0; i < n; i++)
                if (i != out)
                    rest[m++] = v[i];
            double want = analyze_median(rest, m), got = analyze_median_but(sorted, n, v[out]);
            assert_true(m ? got == want : isnan(got));
        }
    }
    double one[2] = {1, 2};
    assert_true(isnan(analyze_median_but(one, 2, 3)));   /* not among them */
}

static void test_percentiles(void **state)
{
    (void)state;
    unsigned long long h[101] = {0};
    assert_true(isnan(analyze_hist_percentile(h, 0, 50)));
    for (int v = 1; v <= 100; v++)
        h[v]++;
    assert_true(analyze_hist_percentile(h, 100, 5) == 5);
    assert_true(analyze_hist_percentile(h, 100, 50) == 50);
    assert_true(analyze_hist_percentile(h, 100, 95) == 95);
    assert_true(analyze_hist_percentile(h, 100, 100) == 100);
    assert_true(analyze_hist_percentile(h, 100, 0) == 1);
}

static void test_window_and_coverage(void **state)
{
    (void)state;
    struct analyze_config c = config(10);
    struct analyzer *a = analyze_new(&c);
    for (int t = 1; t <= 8; t++)
        feed(a, 1000 + t, t * 10, NAN, 100, 1);
    struct analyze_gpu_stats s = stats(a);
    assert_int_equal(s.n, 8);
    assert_false(s.enough);   /* 7 s span < 80% of 10 s */
    for (int t = 9; t <= 30; t++)
        feed(a, 1000 + t, t <= 20 ? 0 : 50 + t, NAN, 100, 1);
    s = stats(a);
    assert_int_equal(s.n, 10);   /* 1021..1030 */
    assert_true(s.enough);
    assert_true(fabs(s.util_mean - 75.5) < 1e-9);   /* 71..80 */
    assert_true(s.util_p5 == 71 && s.util_p50 == 75 && s.util_p95 == 80);
    feed(a, 1029, 0, NAN, 100, 1);   /* out of order: ignored */
    assert_int_equal(stats(a).n, 10);
    struct analyze_summary sum;
    analyze_summary(a, 0, &sum);
    assert_true(sum.samples == 30 && sum.n_util == 30);
    assert_true(sum.duration_s == 29 && sum.mem_peak == 100 && sum.mem_total == 1000 && sum.mem_peak_share == 10);
    analyze_free(a);
}

static void test_idle_gaps(void **state)
{
    (void)state;
    struct analyze_config c = config(100);
    struct analyzer *a = analyze_new(&c);
    /* busy busy idle idle busy idle busy busy idle(partial 50%) busy: gaps 2 s, 1 s, 0.5 s */
    static const int util[] = {90, 90, 0, 0, 90, 0, 90, 90, 45, 90};
    static const double idle[] = {0, 0, 100, 100, 0, 100, 0, 0, 50, 0};
    for (int i = 0; i < 10; i++)
        feed(a, 2000 + i, util[i], idle[i], 100, 1);
    struct analyze_gpu_stats s = stats(a);
    assert_true(s.idle_gaps == 3);
    assert_true(fabs(s.idle_gap_max_s - 2) < 1e-9);
    assert_true(fabs(s.idle_gap_mean_s - 3.5 / 3) < 1e-9);
    assert_true(fabs(s.idle_share - 35) < 1e-9);
    assert_true(s.idle_for_s == 0);
    /* without sub-second samples, utilization under idle.util counts as idle */
    analyze_free(a);
    a = analyze_new(&c);
    for (int i = 0; i < 10; i++)
        feed(a, 3000 + i, i < 6 ? 50 : 4, NAN, 100, 1);
    s = stats(a);
    assert_true(s.idle_gaps == 1);
    assert_true(fabs(s.idle_share - 40) < 1e-9);
    assert_true(fabs(s.idle_for_s - 3) < 1e-9);   /* idle since 3006, now 3009 */
    assert_true(fabs(s.still_for_s - 3) < 1e-9);  /* its memory flat */
    analyze_free(a);
}

/* One 6 s stall is one gap whatever the sampling phase: a mixed record where it begins or ends belongs
 * to it. Two mixed records in a row are two short gaps; a busy blip between stalls makes two. */
static void test_idle_gap_phase(void **state)
{
    (void)state;
    struct analyze_config c = config(100);
    static const struct { double idle[10]; unsigned gaps; double longest; } cases[] = {
        {{0, 0, 40, 100, 100, 100, 100, 100, 60, 0}, 1, 6.0},   /* begins and ends inside records */
        {{0, 0, 100, 100, 100, 100, 100, 100, 0, 0}, 1, 6.0},   /* aligned with the records */
        {{0, 40, 100, 100, 100, 100, 100, 0, 0, 0}, 1, 5.4},    /* begins inside a record */
        {{0, 30, 30, 0, 0, 0, 0, 0, 0, 0}, 2, 0.3},             /* two short gaps, not one */
        {{0, 100, 100, 50, 100, 100, 0, 0, 0, 0}, 2, 2.5},      /* a busy blip between two stalls */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct analyzer *a = analyze_new(&c);
        for (int i = 0; i < 10; i++)
            feed(a, 6000 + i, cases[k].idle[i] >= 95 ? 0 : 90, cases[k].idle[i], 100, 1);
        struct analyze_gpu_stats s = stats(a);
        if (s.idle_gaps != cases[k].gaps || fabs(s.idle_gap_max_s - cases[k].longest) > 1e-4)   /* idle shares are floats */
            fail_msg("case %zu: %.0f gaps, longest %.2f s; want %u, %.2f", k, s.idle_gaps, s.idle_gap_max_s,
                     cases[k].gaps, cases[k].longest);
        analyze_free(a);
    }
}

/* One record at t for GPU 0 with its sub-second peak, and GPM SM activity and DRAM (NAN: none). */
static void feed_full(struct analyzer *a, double t, int util, double idle, int umax, double sm, double dram)
{
    memset(gpus, 0, sizeof gpus);
    memset(&rec, 0, sizeof rec);
    rec.time.tv_sec = (time_t)t;
    rec.ngpus = 1;
    rec.gpus = gpus;
    set_i(&gpus[0], M_UTIL_GPU, util);
    set_i(&gpus[0], M_UTIL_MAX, umax);
    gpus[0].v[M_UTIL_IDLE] = (struct value){.state = VS_OK, .u.f = idle};
    if (!isnan(sm)) {
        gpus[0].v[M_GPM_SM_ACTIVE] = (struct value){.state = VS_OK, .u.f = sm};
        gpus[0].v[M_GPM_DRAM_ACTIVE] = (struct value){.state = VS_OK, .u.f = dram};
    }
    set_i(&gpus[0], M_MEM_USED, 500);
    set_i(&gpus[0], M_MEM_TOTAL, 1000);
    set_i(&gpus[0], M_PROC_COUNT, 1);
    gpus[0].nprocs = 1;
    analyze_feed(a, &rec);
}

/* Stops: a checkpoint whose copies to the host blip the GPU (sub-second peaks under busy.util) is one
 * stop; a burst of real work ends one; the busy time before each (since the previous stop, or the first
 * record) tells a pause from a stall that recurs; a kernel that waits (GPM: SMs and DRAM idle under a
 * busy utilization) is idle. */
static void test_stops(void **state)
{
    (void)state;
    struct analyze_config c = config(30);
    struct analyzer *a = analyze_new(&c);
    double t = 1000;
    for (int i = 0; i < 40; i++)
        feed_full(a, t++, 95, 0, 98, NAN, NAN);
    for (int i = 0; i < 24; i++)   /* 24 s of checkpoint, a copy every third second (idle 60%, peak 25%) */
        feed_full(a, t++, i % 3 == 2 ? 20 : 0, i % 3 == 2 ? 60 : 100, i % 3 == 2 ? 25 : 0, NAN, NAN);
    for (int i = 0; i < 6; i++)
        feed_full(a, t++, 95, 0, 98, NAN, NAN);
    struct analyze_gpu_stats s = stats(a);
    assert_true(s.stops == 1);
    if (!(fabs(s.stop_max_s - 20.8) < 0.01 && fabs(s.stop_busy_before_s - 39) < 1e-9))
        fail_msg("stop: %.2f s idle, %.2f s after the first record", s.stop_max_s, s.stop_busy_before_s);
    assert_true(s.idle_gaps == 1);   /* the copies do not cut it into gaps either */
    assert_true(fabs(s.busy_util - 95) < 1e-9);
    struct analyze_stop st[ANALYZE_STOPS];
    assert_int_equal(analyze_gpu_stops(a, 0, st), 1);
    assert_true(fabs(st[0].end - 1063) < 1e-9 && fabs(st[0].start - 1039) < 1e-9);
    /* a burst of real work (peak 90%) inside: two stretches, each under pause.seconds here: no stop */
    analyze_free(a);
    a = analyze_new(&c);
    t = 2000;
    for (int i = 0; i < 20; i++)
        feed_full(a, t++, 95, 0, 98, NAN, NAN);
    for (int i = 0; i < 9; i++)
        feed_full(a, t++, i == 4 ? 60 : 0, i == 4 ? 40 : 100, i == 4 ? 90 : 0, NAN, NAN);
    feed_full(a, t++, 95, 0, 98, NAN, NAN);
    s = stats(a);
    assert_true(s.stops == 0 && s.idle_gaps == 2);
    /* stalls that recur: 6 s of work, 10 s of waiting, over and over: each stop 6 s after the previous */
    analyze_free(a);
    a = analyze_new(&c);
    t = 3000;
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < 6; i++)
            feed_full(a, t++, 95, 0, 98, NAN, NAN);
        for (int i = 0; i < 10; i++)
            feed_full(a, t++, 0, 100, 0, NAN, NAN);
    }
    feed_full(a, t++, 95, 0, 98, NAN, NAN);
    s = stats(a);
    assert_true(s.stops == 2);
    assert_true(fabs(s.stop_busy_before_s - 6) < 1e-9);
    assert_int_equal(analyze_gpu_stops(a, 0, st), 6);
    /* a kernel that waits: utilization 100%, SMs and DRAM under sm.idle: idle, a stop, idle for as long */
    analyze_free(a);
    a = analyze_new(&c);
    t = 4000;
    for (int i = 0; i < 20; i++)
        feed_full(a, t++, 99, 0, 100, 80, 40);
    for (int i = 0; i < 15; i++)
        feed_full(a, t++, 100, 0, 100, 2, 1);
    s = stats(a);
    if (!(fabs(s.idle_share - 50) < 1e-9 && fabs(s.spin_share - 50) < 1e-9 && s.stops == 1 &&
          fabs(s.idle_for_s - 14) < 1e-9))
        fail_msg("spin: idle %.1f%%, spin %.1f%%, %.0f stops, idle for %.1f s", s.idle_share, s.spin_share, s.stops,
                 s.idle_for_s);
    assert_true(s.stop_going);
    feed_full(a, t++, 100, 0, 100, 5, 1);   /* SM activity at sm.idle: working */
    s = stats(a);
    assert_true(s.idle_for_s == 0 && !s.stop_going);
    feed_full(a, t++, 0, 100, 0, 0, 0);      /* a short gap going on: no stop yet */
    feed_full(a, t++, 0, 100, 0, 0, 0);
    assert_false(stats(a).stop_going);
    analyze_free(a);
}

/* A notebook's kernel holds the GPU only where every process on it is one (the sampler's flag). */
static void test_notebook(void **state)
{
    (void)state;
    struct analyze_config c = config(30);
    struct analyzer *a = analyze_new(&c);
    feed_full(a, 5000, 0, 100, 0, NAN, NAN);
    assert_false(stats(a).notebook);
    memset(gpus, 0, sizeof gpus);
    rec.time.tv_sec = 5001;
    set_i(&gpus[0], M_UTIL_GPU, 0);
    set_i(&gpus[0], M_PROC_COUNT, 2);
    gpus[0].nprocs = 2;
    gpus[0].procs[0].notebook = gpus[0].procs[1].notebook = true;
    analyze_feed(a, &rec);
    assert_true(stats(a).notebook);
    gpus[0].procs[1].notebook = false;
    rec.time.tv_sec = 5002;
    analyze_feed(a, &rec);
    assert_false(stats(a).notebook);   /* a training job beside the notebook */
    gpus[0].procs[0].notebook = false;  /* inference servers alike (the server-idle rule's) */
    gpus[0].procs[0].server = gpus[0].procs[1].server = true;
    rec.time.tv_sec = 5003;
    analyze_feed(a, &rec);
    assert_true(stats(a).server);
    assert_false(stats(a).notebook);
    gpus[0].procs[1].server = false;
    rec.time.tv_sec = 5004;
    analyze_feed(a, &rec);
    assert_false(stats(a).server);
    analyze_free(a);
}

static void test_xids_peers_lost(void **state)
{
    (void)state;
    struct analyze_config c = config(10);
    struct analyzer *a = analyze_new(&c);
    for (int i = 0; i <= 20; i++) {
        memset(gpus, 0, sizeof gpus);
        memset(&rec, 0, sizeof rec);
        rec.time.tv_sec = 6000 + i;
        rec.ngpus = 2;
        rec.gpus = gpus;
        gpus[1].index = 1;
        set_i(&gpus[0], M_UTIL_GPU, 40);
        set_i(&gpus[1], M_UTIL_GPU, 95);
        if (i >= 2) {
            gpus[0].nxids = 1;
            gpus[0].xids[0] = (struct record_xid){79, 1, {6002, 0}};
        }
        if (i == 20) {
            gpus[1].v[M_UTIL_GPU] = (struct value){.state = VS_LOST, .code = 15};
            gpus[1].v[M_STATE] = (struct value){.state = VS_OK, .u.s = "lost"};
        }
        analyze_feed(a, &rec);
        if (i == 11) {   /* the XID at 6002 is inside the 10 s window ending at 6011 */
            struct analyze_gpu_stats s[MAX_GPUS];
            analyze_stats(a, s);
            assert_int_equal(s[0].nxids, 1);
            assert_int_equal(s[0].xids[0].code, 79);
            assert_int_equal(s[0].npeers, 1);
            assert_true(s[0].peer_median_util == 95);
        }
    }
    struct analyze_gpu_stats s[MAX_GPUS];
    analyze_stats(a, s);
    assert_int_equal(analyze_ngpus(a), 2);
    assert_int_equal(s[0].nxids, 0);   /* older than the window now */
    assert_true(s[1].lost && s[1].lost_t == 6020);
    assert_int_equal(s[0].npeers, 0);  /* a lost GPU is nobody's peer */
    analyze_free(a);
}

/* A GPU is its node, index and UUID: a new UUID at an index is a new GPU; a UUID first learnt is the same
 * GPU; a record without one is the latest GPU of its index; analyze_gpu_of maps a record's GPUs. */
static void test_gpu_identity(void **state)
{
    (void)state;
    struct analyze_config c = config(30);
    struct analyzer *a = analyze_new(&c);
    static const char *const uuids[] = {NULL, "GPU-a", "GPU-a", "GPU-b", NULL, "GPU-a"};
    for (int t = 0; t < 6; t++) {
        memset(gpus, 0, sizeof gpus);
        memset(&rec, 0, sizeof rec);
        rec.time.tv_sec = 9900 + t;
        rec.ngpus = 2;
        rec.gpus = gpus;
        gpus[0].index = 3, gpus[1].index = 4;
        set_i(&gpus[0], M_UTIL_GPU, 50);
        set_i(&gpus[1], M_UTIL_GPU, 50);
        if (uuids[t])
            gpus[0].v[M_UUID] = (struct value){.state = VS_OK, .u.s = uuids[t]};
        analyze_feed(a, &rec);
        int want = t < 3 ? 0 : 2;   /* GPU-a is GPU 0 (its UUID learnt at t 1); GPU-b from t 3, then its index */
        if (t == 5)
            want = 0;               /* GPU-a again: the GPU it was */
        assert_int_equal(analyze_gpu_of(a, &rec, 0), want);
        assert_int_equal(analyze_gpu_of(a, &rec, 1), 1);
    }
    assert_int_equal(analyze_ngpus(a), 3);
    struct analyze_summary s0, s2;
    analyze_summary(a, 0, &s0);
    analyze_summary(a, 2, &s2);
    assert_true(s0.index == 3 && s2.index == 3 && s0.twin == 1 && s2.twin == 2);
    assert_string_equal(s0.uuid, "GPU-a");
    assert_string_equal(s2.uuid, "GPU-b");
    assert_true(s0.samples == 4 && s2.samples == 2);
    feed(a, 9000, 50, NAN, 100, 1);   /* out of order: ignored, mapped to nothing */
    assert_int_equal(analyze_gpu_of(a, &rec, 0), -1);
    analyze_free(a);
}

/* GPM must cover the window as a full window must: min.coverage (80%) of its points, min.samples of them. */
static void test_gpm_covered(void **state)
{
    (void)state;
    for (int with = 23; with <= 24; with++) {
        struct analyze_config c = config(30);
        struct analyzer *a = analyze_new(&c);
        for (int t = 0; t <= 31; t++) {   /* 30 points in the window (2-31), GPM in the last `with` */
            memset(gpus, 0, sizeof gpus);
            memset(&rec, 0, sizeof rec);
            rec.time.tv_sec = 9500 + t;
            rec.ngpus = 1;
            rec.gpus = gpus;
            set_i(&gpus[0], M_UTIL_GPU, 90);
            if (t > 31 - with)
                gpus[0].v[M_GPM_SM_ACTIVE] = (struct value){.state = VS_OK, .u.f = 40};
            analyze_feed(a, &rec);
        }
        struct analyze_gpu_stats s = stats(a);
        if (!(s.n == 30 && s.n_gpm == with && s.sm_active_mean == 40))
            fail_msg("%u points, %.0f with GPM at %.1f", s.n, s.n_gpm, s.sm_active_mean);
        assert_true(s.gpm_covered == (with == 24));   /* 24 of 30: 80% */
        analyze_free(a);
    }
}

/* Every row of the figure tables is well formed: a unique key, a double inside its struct, a reduction its
 * column can have (histograms: utilization's), words for what no reduction names, exported figures in %. */
/* The window's running figures (analyze_slide.c) against a pass over the window's points, bit for bit: a
 * mean where the fixed point holds the sum exactly (200 records of values as GPUs report them), and where
 * it cannot (more than 24 fractional bits, huge values, subnormals, infinities: added up point by point),
 * extremes with ties, counts with gaps. */
static void test_running_figures(void **state)
{
    (void)state;
    static const double vals[] = {600.25, 1e30, -1e30, 1.0, 1e-30, 0.1, -0.0, 0.0, 3.0e-8, 123456.789, 1e20,
                                  7e-45, 4.6e18, 655.2, 1e39, 700, 0.333333343, -12.5, 2.5e-7, 16777217};
    static const double nice[] = {600.25, 655.2, 700, -12.5, 0.0, -0.0, 123456.789, 16777217, 76.3, 1e6};
    static const long long mems[] = {500, 900, 500, 100, 100, 900, 0, 1000000000, 7, 7};
    struct analyze_config c = config(10);
    struct analyzer *a = analyze_new(&c);
    float win[10];
    long long mwin[10];
    int n = 0;
    unsigned seed = 7;
    for (int t = 1; t <= 400; t++) {
        seed = seed * 1103515245u + 12345u;
        double v = t <= 200 ? nice[(seed >> 16) % 10] : vals[(seed >> 16) % (sizeof vals / sizeof vals[0])];
        bool gap = (seed >> 8) % 7 == 0;   /* a record without power */
        long long mem = mems[(seed >> 20) % (sizeof mems / sizeof mems[0])];
        memset(gpus, 0, sizeof gpus);
        memset(&rec, 0, sizeof rec);
        rec.time.tv_sec = 1000 + t;
        rec.ngpus = 1;
        rec.gpus = gpus;
        set_i(&gpus[0], M_UTIL_GPU, 50);
        set_i(&gpus[0], M_MEM_USED, mem);
        set_i(&gpus[0], M_MEM_TOTAL, 1000);
        if (!gap)
            gpus[0].v[M_POWER] = (struct value){.state = VS_OK, .u.f = v};
        analyze_feed(a, &rec);
        /* the reference: the last 10 records' values, as a pass adds them */
        if (n == 10)
            memmove(win, win + 1, 9 * sizeof win[0]), memmove(mwin, mwin + 1, 9 * sizeof mwin[0]), n--;
        win[n] = gap ? NAN : (float)v, mwin[n++] = mem;
        struct analyze_gpu_stats s = stats(a);
        double sum = 0, k = 0, lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; i++) {
            if (!isnan(win[i]))
                sum += win[i], k++;
            lo = (double)mwin[i] < lo ? (double)mwin[i] : lo;
            hi = (double)mwin[i] > hi ? (double)mwin[i] : hi;
        }
        double mean = k ? sum / k : NAN;
        if (memcmp(&mean, &s.power_mean, sizeof mean) && !(isnan(mean) && isnan(s.power_mean)))
            fail_msg("t %d: power mean %a, a pass gives %a", t, s.power_mean, mean);
        assert_true(s.mem_min == lo && s.mem_max == hi && s.mem_last == (double)mem);
    }
    analyze_free(a);
}

static void test_figure_tables(void **state)
{
    (void)state;
    for (int i = 0; i < analyze_nwindow_figures; i++) {
        const struct analyze_figure *f = &analyze_window_figures[i];
        assert_non_null(f->key);
        assert_true(f->offset % sizeof(double) == 0 && f->offset + sizeof(double) <= sizeof(struct analyze_gpu_stats));
        assert_true(f->col <= AC_NONE && f->gate <= AC_NONE);
        if (f->how == AH_HIST_MEAN || f->how == AH_HIST_PCT)
            assert_true(f->col == AC_UTIL || f->col == AC_UTIL_MAX);
        if (f->how == AH_CUSTOM)
            assert_non_null(f->how_text);
        if (f->how != AH_CUSTOM && f->how != AH_REASONS && f->how != AH_HIST_MEAN && f->how != AH_HIST_PCT)
            assert_true(f->col < AC_COUNT);
        if (f->export_help)
            assert_string_equal(f->unit, "%");
        for (int j = 0; j < i; j++) {
            assert_string_not_equal(f->key, analyze_window_figures[j].key);
            assert_true(f->offset != analyze_window_figures[j].offset);
        }
    }
    for (int i = 0; i < analyze_nrun_figures; i++) {
        const struct analyze_run_figure *f = &analyze_run_figures[i];
        assert_true(f->offset % sizeof(double) == 0 && f->offset + sizeof(double) <= sizeof(struct analyze_summary));
        assert_true(f->how != AH_REASONS && f->how != AH_SLOPE && f->how != AH_SLOPE_LATER);
        if (f->how == AH_HIST_MEAN || f->how == AH_HIST_PCT)
            assert_true(f->col == AC_UTIL);
        if (f->how == AH_CUSTOM)
            assert_non_null(f->how_text);
        else if (f->how != AH_HIST_MEAN && f->how != AH_HIST_PCT)
            assert_true(f->col < AC_COUNT && f->gate <= AC_NONE);
    }
    for (int c = 0; c < AC_COUNT; c++)   /* every column is read from somewhere */
        assert_true(analyze_columns[c].from_steps || analyze_columns[c].metric != 0 || c == 0);
    unsigned long long h[101] = {0};
    h[10] = 1, h[20] = 3;
    assert_true(isnan(analyze_hist_mean(h, 0)) && analyze_hist_mean(h, 4) == 17.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_steps),
        cmocka_unit_test(test_steps_phases),
        cmocka_unit_test(test_window_and_coverage),
        cmocka_unit_test(test_idle_gaps),
        cmocka_unit_test(test_idle_gap_phase),
        cmocka_unit_test(test_stops),
        cmocka_unit_test(test_notebook),
        cmocka_unit_test(test_xids_peers_lost),
        cmocka_unit_test(test_gpm_covered),
        cmocka_unit_test(test_gpu_identity),
        cmocka_unit_test(test_running_figures),
        cmocka_unit_test(test_figure_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
