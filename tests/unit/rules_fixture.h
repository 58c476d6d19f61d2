/*
 * rules_fixture.h: what the rules' unit tests share (test_rules.c, test_rules_time.c): a GPU's window
 * figures with enough data and no problem, the job's steps, and whether a rule holds on them under the
 * default thresholds (setup). Include after cmocka.h.
 */
#ifndef GPUMON_TEST_RULES_FIXTURE_H
#define GPUMON_TEST_RULES_FIXTURE_H
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include "analyze.h"
#include "rules.h"

static struct rule_config cfg;

static inline int rule_index(const char *id)
{
    for (int i = 0; i < rule_count; i++)
        if (!strcmp(rule_table[i].id, id))
            return i;
    fail_msg("no rule %s", id);
    return -1;
}

/* A GPU with enough data, moderate steady utilization, a process, no faults: no verdict. */
static inline struct analyze_gpu_stats base(void)
{
    struct analyze_gpu_stats s;
    memset(&s, 0, sizeof s);
    s.now = 1000;
    s.window_s = s.span_s = 30;
    s.n = 31;
    s.enough = true;
    s.util_mean = s.util_p50 = 60;
    s.util_p5 = 55;
    s.util_p95 = s.util_peak = 65;
    s.idle_share = 0;
    s.mem_ok = true;
    s.mem_total = 1000;
    s.mem_last = s.mem_min = s.mem_max = 300;
    s.procs = 1;
    s.temp_max = 60;
    s.power_mean = 200;
    s.power_limit = 400;
    s.sm_clock_mean = s.sm_clock_max = 1400;
    s.pcie_tx_mean = s.pcie_rx_mean = NAN;
    s.n_reasons = 31;
    s.peer_median_util = NAN;
    s.job_cpu = s.job_cpu_top = s.job_rss_max = s.ncpus = NAN;
    s.iowait = 0;
    s.job_read_kbs = NAN;
    s.job_procs = -1;
    s.sm_active_mean = s.sm_occupancy_mean = s.tensor_mean = s.dram_mean = s.fp32_mean = NAN;
    s.gpm_code = -1;
    s.step_best_p50 = s.step_best_t = s.util_in_wait = s.util_in_compute = s.sm_in_wait = s.sm_in_compute = NAN;
    s.proc_wait = s.others_wait = s.proc_p50 = s.others_p50 = NAN;
    s.proc_ratio = s.proc_wait_gap = s.slower_ratio = s.slower_wait_gap = NAN;
    s.stop_busy_before_s = s.busy_util = NAN;
    s.best_util = s.best_sm = s.best_clock = s.best_wait = NAN;
    return s;
}

/* The job reports its steps: 100 in the window, 120 ms each, of which wait% waiting. */
static inline void with_steps(struct analyze_gpu_stats *s, double wait)
{
    s->steps_ok = true;
    s->steps.steps = s->steps.waited = 100;
    s->steps.rate = 100 / 30.0;
    s->steps.step_mean = s->steps.p50 = 0.12;
    s->steps.p95 = 0.15;
    s->steps.wait_mean = 0.12 * wait / 100;
    s->steps.wait_share = wait;
    s->steps.in_wait_s = 30 * wait / 100;
    s->steps.in_compute_s = 30 - s->steps.in_wait_s;
}

static inline bool holds(const struct analyze_gpu_stats *s, const char *id)
{
    bool active[R_COUNT];
    rules_evaluate(s, &cfg, active, NULL);
    return active[rule_index(id)];
}

static inline int nactive(const struct analyze_gpu_stats *s)
{
    bool active[R_COUNT];
    int n = 0;
    rules_evaluate(s, &cfg, active, NULL);
    for (int i = 0; i < rule_count; i++)
        n += active[i];
    return n;
}

static inline int setup(void **state)
{
    (void)state;
    rules_defaults(&cfg);
    return 0;
}

#endif
