/*
 * test_rules.c: every rule at its thresholds: just below does not hold,
 * at or just above does; window rules stay silent without enough data;
 * event rules speak anyway; "healthy" yields to any problem; thresholds
 * are settable by name and refuse unknown names and bad values. The rules
 * of time and steps (start-up, pauses, step timing) are in
 * test_rules_time.c; both build on rules_fixture.h.
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

static void test_neutral(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    assert_int_equal(nactive(&s), 0);
}

static void test_healthy(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.util_mean = 69.9;
    assert_false(holds(&s, "healthy"));
    s.util_mean = 70;
    assert_true(holds(&s, "healthy"));
    s.thermal_share = 20;   /* a problem silences healthy */
    assert_true(holds(&s, "thermal-throttle"));
    assert_false(holds(&s, "healthy"));
    s.thermal_share = 0;
    s.enough = false;       /* too little data: no verdict */
    assert_int_equal(nactive(&s), 0);
}

static void test_small_batch_and_input_cpu(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.util_mean = 50;
    assert_false(holds(&s, "small-batch"));
    s.util_mean = 49.9;
    assert_true(holds(&s, "small-batch"));
    assert_int_equal(nactive(&s), 1);
    s.util_p5 = 34.9;   /* p95 - p5 over 30 points: not steady */
    assert_false(holds(&s, "small-batch"));
    s.util_p5 = 35;
    assert_true(holds(&s, "small-batch"));
    /* the job's busiest process just under / at a saturated core */
    s.job_ok = true;
    s.ncpus = 16;
    s.job_cpu = 1.2;
    s.job_cpu_top = 0.89;
    assert_true(holds(&s, "small-batch"));
    assert_false(holds(&s, "input-bound-cpu"));
    s.job_cpu_top = 0.9;
    assert_false(holds(&s, "small-batch"));
    assert_true(holds(&s, "input-bound-cpu"));
    /* or the whole tree at 90% of all CPUs */
    s.job_cpu_top = 0.5;
    s.job_cpu = 14.3;
    assert_false(holds(&s, "input-bound-cpu"));
    s.job_cpu = 14.4;
    assert_true(holds(&s, "input-bound-cpu"));
}

static void test_input_io(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.util_mean = 30;
    s.iowait = 9.9;
    assert_false(holds(&s, "input-bound-io"));
    assert_true(holds(&s, "small-batch"));
    s.iowait = 10;
    assert_true(holds(&s, "input-bound-io"));
    assert_false(holds(&s, "small-batch"));
    s.job_ok = true;   /* CPU saturated too: storage is named, not the CPU */
    s.job_cpu_top = 1;
    s.ncpus = 8;
    assert_false(holds(&s, "input-bound-cpu"));
}

/* Under gpumon run, host iowait is the job's only when the job reads from storage itself. */
static void test_input_io_neighbour(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.util_mean = 30;
    s.iowait = 50;
    s.job_ok = true;
    s.ncpus = 8;
    s.job_cpu = s.job_cpu_top = 0.05;
    s.job_read_kbs = 1023.9;   /* just under job.read: a neighbour's I/O */
    assert_false(holds(&s, "input-bound-io"));
    assert_true(holds(&s, "small-batch"));
    s.job_read_kbs = 1024;
    assert_true(holds(&s, "input-bound-io"));
    assert_false(holds(&s, "small-batch"));
    s.job_read_kbs = NAN;      /* no figure (an older log, io unreadable): the host figure alone */
    assert_true(holds(&s, "input-bound-io"));
    s.job_ok = false;          /* watch or serve: no job at all */
    s.job_read_kbs = 0;
    assert_true(holds(&s, "input-bound-io"));
    /* a saturated CPU with a neighbour's iowait is the CPU's verdict */
    s.job_ok = true;
    s.job_cpu_top = 1;
    assert_false(holds(&s, "input-bound-io"));
    assert_true(holds(&s, "input-bound-cpu"));
}

static void test_swing(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.util_mean = 45;
    s.util_peak = 60;
    s.idle_gaps = 3;
    s.idle_share = 9.9;
    assert_false(holds(&s, "input-bound"));
    s.idle_share = 10;
    assert_true(holds(&s, "input-bound"));
    assert_false(holds(&s, "small-batch"));
    s.idle_gaps = 2;
    assert_false(holds(&s, "input-bound"));
    s.idle_gaps = 3;
    s.util_peak = 39;   /* no busy peaks: not a swing */
    assert_false(holds(&s, "input-bound"));
    s.util_peak = 40;
    s.util_mean = 75;   /* swings with a high mean: still waiting between bursts, healthy yields */
    assert_true(holds(&s, "input-bound"));
    assert_false(holds(&s, "healthy"));
}

static void test_memory(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.mem_last = s.mem_max = 899;
    s.mem_min = 700;
    s.mem_slope = s.mem_recent_slope = 1;   /* 30 MiB over 30 s = 3% */
    assert_false(holds(&s, "memory-pressure"));
    s.mem_last = s.mem_max = 900;
    assert_true(holds(&s, "memory-pressure"));
    s.job_start_t = s.now - 89;   /* an allocator growing during the job's start-up: the window (from now - 30)
                                   * reaches into its first 60 s */
    assert_false(holds(&s, "memory-pressure"));
    s.job_start_t = s.now - 90;
    assert_true(holds(&s, "memory-pressure"));
    s.job_start_t = 0;
    s.mem_recent_slope = 0.66;   /* the later half rose 0.99%: growth levelling off */
    assert_false(holds(&s, "memory-pressure"));
    s.mem_recent_slope = 0.67;   /* 1.005% */
    assert_true(holds(&s, "memory-pressure"));
    s.mem_slope = 19.9 / 30.0;   /* 1.99% rise */
    assert_false(holds(&s, "memory-pressure"));
    /* pre-allocation: near full from first use, flat */
    s = base();
    s.mem_last = s.mem_min = s.mem_max = 950;
    s.mem_first_use_t = 100;
    s.mem_high_t = 105.1;
    assert_false(holds(&s, "tf-prealloc"));
    s.mem_high_t = 105;
    assert_true(holds(&s, "tf-prealloc"));
    s.mem_max = 970;   /* 2% range: not flat */
    assert_false(holds(&s, "tf-prealloc"));
    s.mem_max = s.mem_last = 969;
    s.mem_slope = 1;   /* a rise that is only the pre-allocation jump is not pressure */
    assert_true(holds(&s, "tf-prealloc"));
    assert_false(holds(&s, "memory-pressure"));
}

/* GPM covering the window (the analysis says so: gpm_covered). */
static struct analyze_gpu_stats with_gpm(double util, double sm, double tensor, double dram)
{
    struct analyze_gpu_stats s = base();
    s.util_mean = s.util_p5 = s.util_p50 = s.util_p95 = s.util_peak = util;
    s.n_gpm = s.n;
    s.gpm_covered = true;
    s.sm_active_mean = sm;
    s.tensor_mean = tensor;
    s.dram_mean = dram;
    s.gpm_code = 0;
    return s;
}

static void test_gpm(void **state)
{
    (void)state;
    /* busy but underused: utilization high, SM activity under sm.low */
    struct analyze_gpu_stats s = with_gpm(97, 49.9, 3, 10);
    assert_true(holds(&s, "busy-underused"));
    assert_false(holds(&s, "healthy"));   /* 98% utilization at 20% SM activity is not healthy */
    s.sm_active_mean = 50;
    assert_false(holds(&s, "busy-underused"));
    assert_true(holds(&s, "healthy"));
    s.sm_active_mean = 20;
    s.util_mean = 69.9;                   /* from low.util up, steady: batch-1 decoding (tests/holdout2) */
    assert_true(holds(&s, "busy-underused"));
    assert_false(holds(&s, "small-batch"));
    s.idle_share = 10;                    /* swinging: the input rules' */
    s.idle_gaps = 3;
    s.util_peak = 90;
    assert_false(holds(&s, "busy-underused"));
    s.util_mean = 70;                     /* from healthy.util up, swinging or not */
    assert_true(holds(&s, "busy-underused"));
    s.idle_share = 0;
    s.idle_gaps = 0;
    s.util_mean = 50;
    assert_true(holds(&s, "busy-underused"));
    s.util_mean = 49.9;                   /* under low.util: small-batch's, not this rule */
    assert_false(holds(&s, "busy-underused"));
    s.util_mean = 97;
    s.gpm_covered = false;                /* GPM covers too little of the window: utilization's rules */
    assert_false(holds(&s, "busy-underused"));
    assert_true(holds(&s, "healthy"));
    s.gpm_covered = true;
    assert_true(holds(&s, "busy-underused"));
    s.dram_mean = 70;                     /* bandwidth-bound instead */
    assert_false(holds(&s, "busy-underused"));
    assert_true(holds(&s, "memory-bound"));
    /* no tensor cores: SMs busy, tensor at or under tensor.low */
    s = with_gpm(96, 60, 5, 40);
    assert_true(holds(&s, "no-tensor-cores"));
    s.tensor_mean = 5.1;
    assert_false(holds(&s, "no-tensor-cores"));
    s.tensor_mean = 1;
    s.sm_active_mean = 59.9;
    assert_false(holds(&s, "no-tensor-cores"));
    s.tensor_mean = NAN;                  /* tensor activity not known: no claim */
    s.sm_active_mean = 80;
    assert_false(holds(&s, "no-tensor-cores"));
    /* memory-bound: DRAM at dram.high with SMs under sm.busy */
    s = with_gpm(97, 45, 11, 69.9);
    assert_false(holds(&s, "memory-bound"));
    s.dram_mean = 70;
    assert_true(holds(&s, "memory-bound"));
    s.sm_active_mean = 60;
    assert_false(holds(&s, "memory-bound"));
    /* DRAM at its practical peak (dram.saturated): memory-bound whatever the SMs do, beside healthy */
    s = with_gpm(98, 70, 18, 79.9);
    assert_false(holds(&s, "memory-bound"));
    assert_true(holds(&s, "healthy"));
    s.dram_mean = 80;
    assert_true(holds(&s, "memory-bound"));
    assert_true(holds(&s, "healthy"));
    assert_false(holds(&s, "busy-underused"));
    assert_false(holds(&s, "no-tensor-cores"));
    /* a kernel that waits (SMs and DRAM idle under a busy utilization) is no small-kernel job */
    s = with_gpm(99, 2, 0, 1);
    assert_true(holds(&s, "busy-underused"));
    s.spin_share = 10;   /* swing.idle_share of the window waiting in a kernel */
    assert_false(holds(&s, "busy-underused"));
    s.spin_share = 9.9;
    assert_true(holds(&s, "busy-underused"));
    s.stops = 1;         /* or the window holds a pause (ranks waiting on rank 0's evaluation) */
    s.stop_busy_before_s = 200;
    assert_false(holds(&s, "busy-underused"));
    /* nor in the job's start-up: NCCL set-up and autotuning run small kernels (tests/holdout2) */
    s = with_gpm(97, 30, 3, 10);
    s.job_start_t = s.now - 89;          /* the window (from now - 30) reaches into its first 60 s */
    assert_false(holds(&s, "busy-underused"));
    s.job_start_t = s.now - 90;
    assert_true(holds(&s, "busy-underused"));
    /* a healthy Hopper job */
    s = with_gpm(98, 85, 45, 50);
    assert_true(holds(&s, "healthy"));
    assert_int_equal(nactive(&s), 1);
}

/* Thresholds named for GPM are in the table, so --threshold reaches them. */
static void test_gpm_thresholds(void **state)
{
    (void)state;
    struct rule_config c;
    char err[256];
    rules_defaults(&c);
    assert_int_equal(rules_set_threshold(&c, "sm.low=30", err, sizeof err), 0);
    assert_true(c.t[T_SM_LOW] == 30);
    assert_int_equal(rules_set_threshold(&c, "tensor.low=-1", err, sizeof err), -1);
    assert_int_equal(rules_set_threshold(&c, "dram.high=nan", err, sizeof err), -1);
    assert_true(strstr(rules_gpm_why(3), "Hopper") != NULL);
    assert_true(strstr(rules_gpm_why(4), "permission") != NULL);
    assert_true(strstr(rules_gpm_why(13), "520") != NULL);
    assert_true(strstr(rules_gpm_why(-1), "no GPM fields") != NULL);
}

/* An unused GPU beside a single-GPU job is idle, not a straggler; a slow busy one still is. */
static void test_straggler_unused(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.npeers = 1;
    s.peer_median_util = 93;
    s.util_mean = s.util_p5 = s.util_p50 = s.util_p95 = s.util_peak = 0;
    s.mem_last = s.mem_min = s.mem_max = 0;
    s.procs = 0;
    assert_false(holds(&s, "straggler"));
    assert_true(holds(&s, "idle"));
    s.util_mean = s.util_p5 = s.util_p50 = s.util_p95 = s.util_peak = 45;
    s.procs = 1;
    s.mem_last = s.mem_min = s.mem_max = 600;
    assert_true(holds(&s, "straggler"));
    /* its process just exited, memory freed (a trial that stopped early, a rank that died): the window still
     * holds its busy time, but the GPU has left the job: no straggler */
    s.procs = 0;
    s.mem_last = 49;
    assert_false(holds(&s, "straggler"));
    s.mem_last = 50;   /* memory still held (a container hides the process list): still in the job */
    assert_true(holds(&s, "straggler"));
}

static void test_events(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.enough = false;   /* events need no full window */
    s.exit_t = 990;
    s.exit_mem_share = 94.9;              /* a process ended with memory under oom.memory: not OOM */
    assert_false(holds(&s, "oom"));
    s.exit_mem_share = 95;
    assert_true(holds(&s, "oom"));
    cfg.t[T_OOM_MEM] = 96;                /* the rules' threshold decides, not the analysis */
    assert_false(holds(&s, "oom"));
    cfg.t[T_OOM_MEM] = 95;
    s.exit_t = 0;
    s.ecc_uncorr_new = 1;
    assert_true(holds(&s, "ecc-uncorrected"));
    s.ecc_uncorr_new = 0;
    assert_false(holds(&s, "reset-needed"));
    s.repair_pending = ANALYZE_REPAIR_REMAP;   /* a repair waits for the reset: said after the errors' window */
    s.repair_since_t = 900;
    assert_true(holds(&s, "reset-needed"));
    assert_false(holds(&s, "ecc-uncorrected"));
    s.repair_pending = ANALYZE_REPAIR_RETIRE;
    assert_true(holds(&s, "reset-needed"));
    s.lost = true;                        /* a lost GPU: gpu-lost says it */
    assert_false(holds(&s, "reset-needed"));
    s.lost = false;
    s.repair_pending = 0;
    s.nxids = 1;
    s.xids[0].code = 79;
    s.xids[0].count = 1;
    s.xids[0].last_t = 995;
    assert_true(holds(&s, "xid-critical"));
    assert_false(holds(&s, "xid-app"));
    s.xids[0].code = 31;
    assert_false(holds(&s, "xid-critical"));
    assert_true(holds(&s, "xid-app"));
    s.nxids = 0;
    s.lost = true;
    s.enough = true;
    s.util_mean = 95;
    assert_true(holds(&s, "gpu-lost"));
    assert_int_equal(nactive(&s), 1);   /* no window rule on a lost GPU */
}

static void test_throttle(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.thermal_share = 19.9;
    s.power_share = 19.9;
    assert_false(holds(&s, "thermal-throttle"));
    assert_false(holds(&s, "power-throttle"));
    s.thermal_share = 20;
    assert_true(holds(&s, "thermal-throttle"));
    assert_false(holds(&s, "power-throttle"));
    s.power_share = 20;
    assert_true(holds(&s, "power-throttle"));
}

static void test_straggler_stalled_idle(void **state)
{
    (void)state;
    struct analyze_gpu_stats s = base();
    s.npeers = 7;
    s.peer_median_util = 79.9;
    assert_false(holds(&s, "straggler"));
    s.peer_median_util = 80;
    assert_true(holds(&s, "straggler"));
    s.util_mean = 45;   /* low, but because it straggles: not called a small batch */
    assert_false(holds(&s, "small-batch"));
    s.job_start_t = s.now - 80;   /* in its start-up (startup.seconds): a rank that loads longer than its peers */
    assert_false(holds(&s, "straggler"));
    s.job_start_t = s.now - 120;  /* past it, memory flat */
    assert_true(holds(&s, "straggler"));
    s.mem_growth = 5;             /* still allocating (startup.growth): the start-up goes on */
    assert_false(holds(&s, "straggler"));
    s.job_start_t = s.now - 330;  /* up to startup.max */
    assert_true(holds(&s, "straggler"));

    s = base();
    s.util_mean = s.util_p95 = s.util_peak = 0;
    s.idle_share = 100;
    s.idle_for_s = s.still_for_s = 119.9;
    assert_false(holds(&s, "stalled"));
    s.idle_for_s = s.still_for_s = 120;
    assert_true(holds(&s, "stalled"));
    assert_false(holds(&s, "idle"));
    s.idle_for_s = 300;
    s.still_for_s = 119.9;   /* its memory grew 119.9 s ago (weights read into it): progress, not a hang */
    assert_false(holds(&s, "stalled"));
    s.still_for_s = 120;
    s.procs = 0;
    s.mem_last = 49;   /* 4.9%: not held */
    assert_false(holds(&s, "stalled"));
    assert_true(holds(&s, "idle"));
    s.mem_last = 50;
    assert_true(holds(&s, "stalled"));
    /* a notebook's kernel between cells: not hung */
    s.procs = 1;
    s.notebook = true;
    assert_false(holds(&s, "stalled"));
    assert_true(holds(&s, "notebook-idle"));
    assert_false(holds(&s, "server-idle"));
    /* an inference server between requests: not hung either (tests/holdout2/inference-diurnal.scn) */
    s.notebook = false;
    s.server = true;
    assert_false(holds(&s, "stalled"));
    assert_true(holds(&s, "server-idle"));
    assert_false(holds(&s, "notebook-idle"));
    s.idle_for_s = s.still_for_s = 119.9;
    assert_false(holds(&s, "server-idle"));
    assert_false(holds(&s, "notebook-idle"));
}

static void test_thresholds(void **state)
{
    (void)state;
    char err[256];
    struct rule_config c;
    rules_defaults(&c);
    assert_true(c.window_s == 30 && c.t[T_HEALTHY_UTIL] == 70);
    assert_int_equal(rules_set_threshold(&c, "healthy.util=80", err, sizeof err), 0);
    assert_true(c.t[T_HEALTHY_UTIL] == 80);
    assert_int_equal(rules_set_threshold(&c, "healthy=80", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown threshold \"healthy\""));
    assert_int_equal(rules_set_threshold(&c, "healthy.util=much", err, sizeof err), -1);
    assert_int_equal(rules_set_threshold(&c, "healthy.util", err, sizeof err), -1);
    assert_int_equal(rules_set_threshold(&c, "healthy.util=-1", err, sizeof err), -1);
    /* every rule is complete */
    for (int i = 0; i < rule_count; i++) {
        assert_true(strlen(rule_table[i].title) > 5 && strlen(rule_table[i].advice) > 10);
        for (int j = i + 1; j < rule_count; j++)
            assert_string_not_equal(rule_table[i].id, rule_table[j].id);
    }
}

/* Precedence is the table's column: a rule stands aside only for rules above it (so one pass in table order
 * resolves it), and only while they hold. */
static void test_precedence(void **state)
{
    (void)state;
    for (int i = 0; i < rule_count; i++) {
        assert_true((rule_table[i].yields_to >> i) == 0);   /* no rule at or below itself */
        if (rule_table[i].yields_to_problems)
            for (int j = i; j < rule_count; j++)
                assert_true(rule_table[j].severity < SEV_WARNING);
    }
    /* a GPU of a slow node, also below its peers: the node is the finding */
    struct analyze_gpu_stats s = base();
    s.util_mean = 40;
    s.npeers = 3;
    s.peer_median_util = 90;
    assert_true(holds(&s, "straggler"));
    s.nodes = 2;
    s.node_util = 40;
    s.other_nodes_util = 90;
    assert_true(holds(&s, "slow-node"));
    assert_false(holds(&s, "straggler"));
    /* steady and low below its peers: a straggler, not a small batch; without peers, small-batch */
    s = base();
    s.util_mean = 40;
    s.util_p5 = 35, s.util_p95 = 45;
    assert_true(holds(&s, "small-batch"));
    s.npeers = 3;
    s.peer_median_util = 90;
    assert_true(holds(&s, "straggler"));
    assert_false(holds(&s, "small-batch"));
    /* the job's steps say it waits 20%: input-wait, not input-wait-some, nor small-batch */
    s = base();
    s.util_mean = 40;
    s.util_p5 = 35, s.util_p95 = 45;
    with_steps(&s, 20);
    assert_true(holds(&s, "input-wait"));
    assert_false(holds(&s, "input-wait-some") || holds(&s, "small-batch"));
    s.steps.wait_share = 19.9;
    assert_true(holds(&s, "input-wait-some") && holds(&s, "small-batch"));
}

/* The documentation is the table: every {name} of a rule's .when is a threshold, every threshold the
 * analysis reads maps onto its config, and each format names every rule and threshold. */
static void test_docs(void **state)
{
    (void)state;
    for (int i = 0; i < rule_count; i++) {
        assert_non_null(rule_table[i].when);
        for (const char *w = strchr(rule_table[i].when, '{'); w; w = strchr(w + 1, '{')) {
            const char *end = strchr(w, '}');
            assert_non_null(end);
            bool found = false;
            for (int t = 0; t < T_COUNT; t++)
                found |= strlen(rules_thresholds[t].name) == (size_t)(end - w - 1) &&
                         !strncmp(rules_thresholds[t].name, w + 1, (size_t)(end - w - 1));
            if (!found)
                fail_msg("rule %s: {%.*s} is no threshold", rule_table[i].id, (int)(end - w - 1), w + 1);
        }
    }
    struct rule_config c;
    struct analyze_config a;
    rules_defaults(&c);
    c.t[T_IDLE_UTIL] = 7;
    c.t[T_STARTUP_S] = 33;
    c.window_s = 12;
    rules_analyze_config(&c, &a);
    assert_true(a.window_s == 12 && a.idle_util == 7 && a.startup_s == 33 && a.mem_high == 90 && a.steps_min == 10 &&
                a.min_samples == 5 && a.min_coverage == 80);
    for (int t = 0; t < T_COUNT; t++)
        assert_true(rules_thresholds[t].name && rules_thresholds[t].meaning &&
                    rules_thresholds[t].analysis + sizeof(double) <= sizeof a);
    for (int f = RULES_DOC_TEXT; f <= RULES_DOC_MAN; f++) {
        char *doc = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&doc, &len);
        rules_print_doc(out, &c, (enum rules_doc_format)f);
        fclose(out);
        for (int i = 0; i < rule_count + T_COUNT; i++) {   /* every rule and threshold, as that format spells it */
            const char *name = i < rule_count ? rule_table[i].id : rules_thresholds[i - rule_count].name;
            char spelt[64];
            size_t n = 0;
            for (const char *c = name; *c && n + 3 < sizeof spelt; c++) {
                if (*c == '-' && f == RULES_DOC_MAN)
                    spelt[n++] = '\\';
                spelt[n++] = *c;
            }
            spelt[n] = '\0';
            if (!strstr(doc, spelt))
                fail_msg("format %d does not name %s", f, spelt);
        }
        assert_null(strchr(doc, '{'));   /* every placeholder filled */
        free(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_neutral, setup),
        cmocka_unit_test_setup(test_healthy, setup),
        cmocka_unit_test_setup(test_small_batch_and_input_cpu, setup),
        cmocka_unit_test_setup(test_input_io, setup),
        cmocka_unit_test_setup(test_input_io_neighbour, setup),
        cmocka_unit_test_setup(test_gpm, setup),
        cmocka_unit_test_setup(test_gpm_thresholds, setup),
        cmocka_unit_test_setup(test_straggler_unused, setup),
        cmocka_unit_test_setup(test_swing, setup),
        cmocka_unit_test_setup(test_memory, setup),
        cmocka_unit_test_setup(test_events, setup),
        cmocka_unit_test_setup(test_throttle, setup),
        cmocka_unit_test_setup(test_straggler_stalled_idle, setup),
        cmocka_unit_test_setup(test_thresholds, setup),
        cmocka_unit_test_setup(test_precedence, setup),
        cmocka_unit_test_setup(test_docs, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
