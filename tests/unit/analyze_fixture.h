/*
 * analyze_fixture.h: what the analysis' unit tests share (test_analyze.c, test_analyze_memory.c): one GPU's
 * records fed to an analyzer, its window figures, and the analysis' parameters at the rules' defaults.
 * Include after cmocka.h.
 */
#ifndef GPUMON_TEST_ANALYZE_FIXTURE_H
#define GPUMON_TEST_ANALYZE_FIXTURE_H
#include <math.h>
#include <string.h>
#include "analyze.h"
#include "metrics.h"

static struct record_gpu gpus[2];
static struct record rec;

static void set_i(struct record_gpu *g, enum metric_id id, long long v)
{
    g->v[id] = (struct value){.state = VS_OK, .u.i = v};
}

/* One record at time t for GPU 0: utilization, sub-second idle share (NAN: none), memory, processes. */
static void feed(struct analyzer *a, double t, int util, double idle, long long mem, int procs)
{
    memset(gpus, 0, sizeof gpus);
    memset(&rec, 0, sizeof rec);
    rec.time.tv_sec = (time_t)t;
    rec.time.tv_nsec = (long)((t - floor(t)) * 1e9);
    rec.ngpus = 1;
    rec.gpus = gpus;
    set_i(&gpus[0], M_UTIL_GPU, util);
    if (!isnan(idle))
        gpus[0].v[M_UTIL_IDLE] = (struct value){.state = VS_OK, .u.f = idle};
    set_i(&gpus[0], M_MEM_USED, mem);
    set_i(&gpus[0], M_MEM_TOTAL, 1000);
    set_i(&gpus[0], M_PROC_COUNT, procs);
    analyze_feed(a, &rec);
}

#define MAX_GPUS 8

static struct analyze_gpu_stats stats(struct analyzer *a)
{
    struct analyze_gpu_stats s[MAX_GPUS];
    assert_true(analyze_ngpus(a) <= MAX_GPUS);
    analyze_stats(a, s);
    return s[0];
}

/* The analysis' parameters at the rules' defaults (rules.c's threshold table), with this window. */
static struct analyze_config config(double window)
{
    return (struct analyze_config){.window_s = window, .idle_util = 5, .mem_high = 90, .min_samples = 5,
                                   .min_coverage = 80, .startup_s = 60, .steps_min = 10, .busy_util = 40,
                                   .pause_s = 5, .sm_idle = 5, .stall_growth = 0.1};
}

#endif
