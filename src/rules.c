/*
 * rules.c: the rule table, the threshold table and the XID table: all the
 * wording of a diagnosis lives here, all the figures come from the stats
 * struct (analyze.c). A predicate is a few comparisons against thresholds;
 * shared conditions (CPU saturated, utilization swinging) are small named
 * helpers so rules that must exclude each other say so in one place.
 * Thresholds follow common practice: above 70% mean utilization is
 * healthy, below 50% a bottleneck, memory above 90% near full; the data
 * must cover 80% of the window before any window rule speaks.
 */
#include "rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "fmt.h"

static const struct { const char *name, *unit, *meaning; double def; } rules_thresholds[T_COUNT] = {
#define RULE_T_ROW(id, name, def, unit, meaning) [id] = {name, unit, meaning, def},
    RULE_THRESHOLDS(RULE_T_ROW)
#undef RULE_T_ROW
};

static const struct { unsigned code; bool critical; const char *meaning; } rules_xids[] = {
    {13, false, "graphics engine exception (an illegal instruction or address in a kernel)"},
    {31, false, "GPU memory page fault (an illegal memory access by a kernel)"},
    {43, false, "GPU stopped processing (the faulting process was stopped)"},
    {45, false, "preemptive cleanup after an earlier error (a process was killed)"},
    {48, true, "double-bit ECC error (uncorrectable memory error)"},
    {61, true, "internal micro-controller breakpoint"},
    {62, true, "internal micro-controller halt"},
    {63, true, "ECC page retirement or row remapping recorded"},
    {64, true, "ECC page retirement or row remapping failed"},
    {74, true, "NVLink error"},
    {79, true, "GPU has fallen off the bus"},
    {92, true, "high single-bit ECC error rate"},
    {94, true, "contained ECC error (the affected process was stopped)"},
    {95, true, "uncontained ECC error (the GPU needs a reset)"},
    {119, true, "GSP RPC timeout"},
    {120, true, "GSP error"},
};

const char *rules_xid_meaning(unsigned code, bool *critical)
{
    for (size_t i = 0; i < sizeof rules_xids / sizeof rules_xids[0]; i++)
        if (rules_xids[i].code == code) {
            *critical = rules_xids[i].critical;
            return rules_xids[i].meaning;
        }
    *critical = false;
    return "unclassified (see NVIDIA's XID catalog)";
}

#define T(name) (c->t[name])

/* ---- shared conditions ---- */

static bool cpu_saturated(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->job_ok && (s->job_cpu_top >= T(T_CPU_SATURATED) / 100.0 ||
                         (!isnan(s->ncpus) && s->job_cpu >= T(T_CPU_SATURATED) / 100.0 * s->ncpus));
}

/* Host iowait is the whole machine's: under gpumon run it counts only when the job itself reads
 * from storage (a neighbour's backup is not this job's input pipeline). Logs without the job's
 * reads (watch, serve, older logs) have only the host figure. */
static bool iowait_high(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return !isnan(s->iowait) && s->iowait >= T(T_IOWAIT) &&
           (!s->job_ok || isnan(s->job_read_kbs) || s->job_read_kbs >= T(T_JOB_READ));
}

static bool swinging(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return !isnan(s->idle_share) && s->idle_share >= T(T_SWING_IDLE) && s->idle_gaps >= T(T_SWING_GAPS) &&
           s->util_peak >= T(T_BUSY_UTIL);
}

static bool in_use(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->util_mean >= T(T_IDLE_UTIL) || s->util_peak >= T(T_BUSY_UTIL) || s->procs > 0;
}

static bool low(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->util_mean < T(T_LOW_UTIL);
}

/* One or two long idle stretches between busy stretches (a checkpoint, an evaluation, an epoch's
 * start): the GPU is busy around them, so the low mean is the pause, not starvation. */
static bool paused(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    double busy = !isnan(s->idle_share) && s->idle_share < 100 ? s->util_mean / (1 - s->idle_share / 100) : NAN;
    return s->idle_gaps >= 1 && s->idle_gaps <= 2 && s->idle_gap_max_s >= T(T_PAUSE_S) && busy >= T(T_HEALTHY_UTIL);
}

/* The job reports its steps on this GPU, enough of them with a known input wait: its own timing is the
 * evidence on input, ahead of what the shape of utilization suggests. */
static bool steps_known(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->steps_ok && s->steps.waited >= T(T_STEPS_MIN) && !isnan(s->steps.wait_share) && in_use(s, c);
}

/* The GPU waits on its input: swinging or low, recurring (not a pause), and past the job's start-up
 * (launch, NCCL warm-up, autotuning look the same and pass). Inferred from utilization only where the
 * job does not report its steps. */
static bool starving(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return in_use(s, c) && (swinging(s, c) || (low(s, c) && !paused(s, c))) && !s->warmup && !steps_known(s, c);
}

/* GPM covers the window (Hopper and newer, and a log that has it). */
static bool gpm_ok(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->n_gpm >= T(T_MIN_SAMPLES) && s->n_gpm >= T(T_MIN_COVERAGE) / 100.0 * s->n && !isnan(s->sm_active_mean);
}

static bool dram_high(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return !isnan(s->dram_mean) && s->dram_mean >= T(T_DRAM_HIGH);
}

static double mem_share(const struct analyze_gpu_stats *s, double mib)
{
    return s->mem_ok && s->mem_total > 0 ? 100.0 * mib / s->mem_total : NAN;
}

/* Memory went from first use to near full at once: a framework's allocator, not growth. */
static bool prealloc_jump(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->mem_high_t > 0 && s->mem_first_use_t > 0 && s->mem_high_t - s->mem_first_use_t <= T(T_PREALLOC_RISE);
}

static bool mem_held(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return mem_share(s, s->mem_last) >= T(T_STALL_MEM) || s->procs > 0;
}

/* ---- predicates ---- */

static bool p_lost(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    (void)c;
    return s->lost;
}

static bool p_xid(const struct analyze_gpu_stats *s, bool want_critical)
{
    for (unsigned i = 0; i < s->nxids; i++) {
        bool crit;
        rules_xid_meaning(s->xids[i].code, &crit);
        if (crit == want_critical)
            return true;
    }
    return false;
}

static bool p_xid_critical(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    (void)c;
    return p_xid(s, true);
}

static bool p_xid_app(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    (void)c;
    return p_xid(s, false);
}

static bool p_ecc(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    (void)c;
    return s->ecc_uncorr_new > 0;
}

static bool p_oom(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    (void)c;
    return s->oom_t > 0;
}

static bool p_stalled(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return !s->lost && s->idle_for_s >= T(T_STALL_S) && mem_held(s, c);
}

static bool p_thermal(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->n_reasons > 0 && s->thermal_share >= T(T_THROTTLE_SHARE);
}

static bool p_power(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->n_reasons > 0 && s->power_share >= T(T_THROTTLE_SHARE);
}

/* Still rising in the later half of the window too, and past the start-up: an allocator that grew to
 * its plateau is not pressure (a real overflow ends in the oom verdict, which start-up does not hide). */
static bool p_mem_pressure(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return mem_share(s, s->mem_last) >= T(T_MEM_HIGH) && mem_share(s, s->mem_slope * s->span_s) >= T(T_MEM_RISE) &&
           mem_share(s, s->mem_recent_slope * s->span_s / 2) >= T(T_MEM_RISE) / 2 && !prealloc_jump(s, c) &&
           !s->warmup;
}

static bool p_prealloc(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return mem_share(s, s->mem_min) >= T(T_MEM_HIGH) && mem_share(s, s->mem_max - s->mem_min) < T(T_MEM_RISE) &&
           prealloc_jump(s, c);
}

/* Several nodes (a multi-node diagnosis): this GPU's node runs well below the others. */
static bool p_slow_node(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->nodes >= 2 && in_use(s, c) && s->other_nodes_util - s->node_util >= T(T_STRAGGLER_GAP);
}

/* A straggler does the job's work, slower: an unused GPU beside a single-GPU job is not one; on a slow
 * node, the node is the finding. */
static bool p_straggler(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->npeers > 0 && in_use(s, c) && s->peer_median_util - s->util_mean >= T(T_STRAGGLER_GAP) &&
           !p_slow_node(s, c);
}

static bool p_input_io(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return starving(s, c) && iowait_high(s, c);
}

static bool p_input_cpu(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return starving(s, c) && cpu_saturated(s, c) && !iowait_high(s, c);
}

static bool p_swing(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return starving(s, c) && swinging(s, c) && !cpu_saturated(s, c) && !iowait_high(s, c);
}

static bool p_input_wait(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return steps_known(s, c) && s->steps.wait_share >= T(T_STEPS_WAIT);
}

static bool p_input_wait_some(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return steps_known(s, c) && s->steps.wait_share >= T(T_STEPS_WAIT_SOME) && s->steps.wait_share < T(T_STEPS_WAIT);
}

static bool p_step_jitter(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return steps_known(s, c) && s->steps.p95 >= T(T_STEPS_JITTER) * s->steps.p50;
}

/* Slower than an earlier window of the same run (not the start-up's slow steps: the best is the fastest). */
static bool p_steps_slowing(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return steps_known(s, c) && s->step_best_p50 > 0 && s->now - s->step_best_t >= s->window_s &&
           s->steps.p50 >= T(T_STEPS_SLOWER) * s->step_best_p50;
}

static bool p_slow_rank(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    (void)c;
    return s->slow_pid > 0;
}

static bool p_small_batch(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return in_use(s, c) && low(s, c) && s->util_mean >= T(T_IDLE_UTIL) && !swinging(s, c) && !s->warmup &&
           !(steps_known(s, c) && s->steps.wait_share >= T(T_STEPS_WAIT)) &&
           s->util_p95 - s->util_p5 <= T(T_STEADY_SPREAD) &&
           !cpu_saturated(s, c) && !iowait_high(s, c) && !p_straggler(s, c);
}

/* Nothing runs: no utilization, no sub-second peak, no memory held. */
static bool p_idle(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->util_mean < T(T_IDLE_UTIL) && s->util_peak < T(T_BUSY_UTIL) && !mem_held(s, c);
}

/* Said once the stop is over (busy again); while it lasts, neither this nor an input verdict (and
 * stalled speaks if it never ends). */
static bool p_pause(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return in_use(s, c) && low(s, c) && paused(s, c) && !s->warmup && s->idle_for_s < T(T_PAUSE_S);
}

static bool p_busy_underused(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return gpm_ok(s, c) && s->util_mean >= T(T_HEALTHY_UTIL) && s->sm_active_mean < T(T_SM_LOW) && !dram_high(s, c);
}

static bool p_no_tensor(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return gpm_ok(s, c) && s->sm_active_mean >= T(T_SM_BUSY) && !isnan(s->tensor_mean) &&
           s->tensor_mean <= T(T_TENSOR_LOW);
}

static bool p_memory_bound(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return gpm_ok(s, c) && dram_high(s, c) && s->sm_active_mean < T(T_SM_BUSY) && s->util_mean >= T(T_LOW_UTIL);
}

/* Busy by utilization, and where GPM tells, by SM activity too: 98% utilization at 20% SM activity is not. */
static bool p_healthy(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->util_mean >= T(T_HEALTHY_UTIL) && (!gpm_ok(s, c) || s->sm_active_mean >= T(T_SM_LOW));
}

/* ---- evidence ---- */

static void e_util(const struct analyze_gpu_stats *s, struct sbuf *b)
{
    sbuf_printf(b, "utilization mean %.0f%% (p5 %.0f, p50 %.0f, p95 %.0f, sub-second peak %.0f) over %.0f s",
                s->util_mean, s->util_p5, s->util_p50, s->util_p95, s->util_peak, s->span_s);
}

static void e_idle(const struct analyze_gpu_stats *s, struct sbuf *b)
{
    sbuf_printf(b, "; idle %.0f%% of the time in %u gap%s (mean %.1f s, longest %.1f s)", s->idle_share,
                s->idle_gaps, s->idle_gaps == 1 ? "" : "s", s->idle_gap_mean_s, s->idle_gap_max_s);
}

static void e_job(const struct analyze_gpu_stats *s, struct sbuf *b)
{
    if (!s->job_ok) {
        sbuf_puts(b, "; no process-tree figures (run the job under gpumon run to see its CPU)");
        return;
    }
    sbuf_printf(b, "; job CPU %.2f cores (busiest process %.2f) of %.0f CPUs", s->job_cpu, s->job_cpu_top,
                s->ncpus);
    if (!isnan(s->job_read_kbs))
        sbuf_printf(b, ", reading %.1f MB/s from storage", s->job_read_kbs / 1024);
    if (!isnan(s->iowait))
        sbuf_printf(b, ", host iowait %.1f%%", s->iowait);
}

static void ev_lost(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "the GPU answers \"GPU is lost\" since %.0f s before the latest record", s->now - s->lost_t);
}

static void ev_xid(const struct analyze_gpu_stats *s, struct sbuf *b, bool want_critical)
{
    const char *sep = "";
    for (unsigned i = 0; i < s->nxids; i++) {
        bool crit;
        const char *what = rules_xid_meaning(s->xids[i].code, &crit);
        if (crit != want_critical)
            continue;
        sbuf_printf(b, "%sXid %u: %s (%llu since monitoring began, latest %.0f s ago)", sep, s->xids[i].code, what,
                    s->xids[i].count, fmax(0, s->now - s->xids[i].last_t));
        sep = "; ";
    }
}

static void ev_xid_critical(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    ev_xid(s, b, true);
}

static void ev_xid_app(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    ev_xid(s, b, false);
}

static void ev_ecc(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "%lld new uncorrected ECC error%s in the last %.0f s", s->ecc_uncorr_new,
                s->ecc_uncorr_new == 1 ? "" : "s", s->window_s);
}

static void ev_oom(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "a process left the GPU %.0f s ago while memory was %.1f%% full (threshold %.0f%%)",
                s->now - s->oom_t, s->oom_mem_share, c->t[T_OOM_MEM]);
}

static void ev_stalled(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "idle (utilization under %.0f%%) for %.0f s while holding %.0f MiB (%.1f%%) with %d process%s",
                c->t[T_IDLE_UTIL], s->idle_for_s, s->mem_last, mem_share(s, s->mem_last), s->procs,
                s->procs == 1 ? "" : "es");
}

static void ev_throttle(const struct analyze_gpu_stats *s, struct sbuf *b, enum clock_reason_group group,
                        double share)
{
    sbuf_printf(b, "throttled %.0f%% of the last %.0f s:", share, s->span_s);
    for (int r = 0; r < CLOCK_REASON_COUNT; r++)
        if (clock_reasons[r].group == group && s->reason_share[r] > 0)
            sbuf_printf(b, " %s %.0f%%", clock_reasons[r].key, s->reason_share[r]);
    if (!isnan(s->temp_max))
        sbuf_printf(b, "; temperature up to %.0f C", s->temp_max);
    if (!isnan(s->power_mean) && s->power_limit > 0)
        sbuf_printf(b, "; power %.0f W of a %.0f W limit (%.0f%%)", s->power_mean, s->power_limit,
                    100.0 * s->power_mean / s->power_limit);
    if (!isnan(s->sm_mean) && s->sm_max_clock > 0)
        sbuf_printf(b, "; SM clock %.0f of %.0f MHz", s->sm_mean, s->sm_max_clock);
}

static void ev_thermal(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    ev_throttle(s, b, CR_GROUP_THERMAL, s->thermal_share);
}

static void ev_power(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    ev_throttle(s, b, CR_GROUP_POWER, s->power_share);
}

static void ev_memory(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "memory %.0f of %.0f MiB (%.1f%%), %s %.1f MiB/s over %.0f s (%.0f to %.0f MiB)", s->mem_last,
                s->mem_total, mem_share(s, s->mem_last), s->mem_slope >= 0 ? "rising" : "falling",
                fabs(s->mem_slope), s->span_s, s->mem_min, s->mem_max);
}

static void ev_prealloc(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    ev_memory(s, c, b);
    sbuf_printf(b, "; near full %.1f s after first use", s->mem_high_t - s->mem_first_use_t);
}

static void ev_slow_node(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "the GPUs of this node run at a median utilization of %.0f%% against %.0f%% on the other %u node%s "
                "(median of theirs); this GPU %.0f%%", s->node_util, s->other_nodes_util, s->nodes - 1,
                s->nodes == 2 ? "" : "s", s->util_mean);
    e_job(s, b);
}

static void ev_straggler(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "utilization mean %.0f%% against a median of %.0f%% on %u busy peer GPU%s", s->util_mean,
                s->peer_median_util, s->npeers, s->npeers == 1 ? "" : "s");
    if (!isnan(s->temp_max))
        sbuf_printf(b, "; temperature up to %.0f C", s->temp_max);
    if (!isnan(s->power_mean))
        sbuf_printf(b, "; power %.0f W", s->power_mean);
}

static void ev_starving(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    e_util(s, b);
    e_idle(s, b);
    e_job(s, b);
    if (!isnan(s->pcie_rx_mean))
        sbuf_printf(b, "; PCIe in %.1f MB/s, out %.1f MB/s", s->pcie_rx_mean / 1024, s->pcie_tx_mean / 1024);
}

static void e_ms(struct sbuf *b, const char *what, double seconds)
{
    sbuf_puts(b, what);
    fmt_duration(b, seconds);
}

/* The job's steps: "35 steps in 30 s (1.2/s); mean step 180 ms, of which 112 ms waiting; p50 ..., p95 ..." */
static void e_steps(const struct analyze_gpu_stats *s, struct sbuf *b)
{
    const struct stepstat_fig *f = &s->steps;
    sbuf_printf(b, "%.0f step%s in the last %.0f s", f->steps, f->steps == 1 ? "" : "s", s->span_s);
    if (!isnan(f->rate))
        sbuf_printf(b, " (%.2f/s while training)", f->rate);
    if (!isnan(f->step_mean)) {
        e_ms(b, "; mean step ", f->step_mean);
        e_ms(b, ", of which ", f->wait_mean);
        sbuf_puts(b, " waiting");
    }
    if (!isnan(f->p50)) {
        e_ms(b, "; p50 ", f->p50);
        e_ms(b, ", p95 ", f->p95);
    }
}

static void ev_input_wait(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "the training loop waited for its next batch %.0f%% of the time (step timing from the job): ",
                s->steps.wait_share);
    e_steps(s, b);
    if (!isnan(s->util_in_wait) && !isnan(s->util_in_compute))
        sbuf_printf(b, "; GPU utilization %.0f%% while it waited, %.0f%% while it computed", s->util_in_wait,
                    s->util_in_compute);
    if (!isnan(s->sm_in_wait) && !isnan(s->sm_in_compute))
        sbuf_printf(b, "; SM activity %.0f%% while it waited, %.0f%% while it computed (GPM)", s->sm_in_wait,
                    s->sm_in_compute);
    else if (!isnan(s->util_mean))
        sbuf_printf(b, "; GPU utilization mean %.0f%%", s->util_mean);
    e_job(s, b);
}

static void ev_steps(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    e_steps(s, b);
    if (!isnan(s->steps.wait_share))
        sbuf_printf(b, "; waiting for input %.0f%% of the time", s->steps.wait_share);
}

static void ev_slowing(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    e_ms(b, "p50 step ", s->steps.p50);
    sbuf_printf(b, " now, %.2fx", s->steps.p50 / s->step_best_p50);
    e_ms(b, " the ", s->step_best_p50);
    sbuf_printf(b, " of the window that ended %.0f s ago; ", s->now - s->step_best_t);
    ev_steps(s, c, b);
}

static void ev_slow_rank(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    if (s->slow_rank >= 0)
        sbuf_printf(b, "rank %d (pid %d)", s->slow_rank, s->slow_pid);
    else
        sbuf_printf(b, "pid %d", s->slow_pid);
    e_ms(b, ": p50 step ", s->slow_p50);
    e_ms(b, " against ", s->others_p50);
    sbuf_printf(b, " on the other %u process%s (median); waiting for input %.0f%% of the time against %.0f%%",
                s->job_ranks - 1, s->job_ranks == 2 ? "" : "es", isnan(s->slow_wait) ? 0 : s->slow_wait,
                s->others_wait);
}

/* GPM's figures, when the window has them. */
static void e_gpm(const struct analyze_gpu_stats *s, struct sbuf *b)
{
    if (!s->n_gpm || isnan(s->sm_active_mean))
        return;
    sbuf_printf(b, "; SM activity %.0f%%", s->sm_active_mean);
    if (!isnan(s->sm_occupancy_mean))
        sbuf_printf(b, " (occupancy %.0f%%)", s->sm_occupancy_mean);
    if (!isnan(s->tensor_mean))
        sbuf_printf(b, ", tensor cores %.0f%%", s->tensor_mean);
    if (!isnan(s->fp32_mean))
        sbuf_printf(b, ", FP32 pipe %.0f%%", s->fp32_mean);
    if (!isnan(s->dram_mean))
        sbuf_printf(b, ", DRAM bandwidth %.0f%%", s->dram_mean);
    sbuf_puts(b, " (GPM)");
}

static void ev_plain(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    e_util(s, b);
    if (s->idle_share > 0)
        e_idle(s, b);
    e_gpm(s, b);
}

static void ev_pause(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "idle for %.0f s in %u stretch%s (longest %.0f s) of the last %.0f s, busy at %.0f%% around %s",
                s->idle_share / 100 * s->span_s, s->idle_gaps, s->idle_gaps == 1 ? "" : "es", s->idle_gap_max_s,
                s->span_s, s->util_mean / (1 - s->idle_share / 100), s->idle_gaps == 1 ? "it" : "them");
    e_job(s, b);
}

static void ev_idle(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "utilization mean %.1f%% over %.0f s, %.0f MiB held, %d process%s", s->util_mean, s->span_s,
                s->mem_last, s->procs < 0 ? 0 : s->procs, s->procs == 1 ? "" : "es");
}

/* ---- the table ---- */

const char *rules_gpm_why(int code)
{
    switch (code) {
    case -1:
        return "the log has no GPM fields (recorded before gpumon read GPM, or --fields left them out)";
    case 0:
        return "GPM figures cover too little of the run";
    case 3:
        return "not supported here: GPM needs a Hopper or newer GPU and driver 520 or newer (a vGPU or a MIG "
               "slice without the whole GPU has none)";
    case 4:
        return "no permission: the driver restricts profiling counters to administrators "
               "(NVreg_RestrictProfilingToAdminUsers=0 lifts it; containers may need CAP_SYS_ADMIN)";
    case 13:
        return "the driver has no GPM functions (it needs driver 520 or newer)";
    case 25:
        return "the driver's GPM interface version differs from gpumon's";
    default:
        return "the driver answered an error (see the log's errors for its code)";
    }
}

const struct rule rule_table[] = {
    {"gpu-lost", SEV_CRITICAL, false, p_lost, ev_lost, "the GPU fell off the bus",
     "Drain the node and reset or reseat the GPU (nvidia-smi -r, or a reboot); check dmesg for Xid 79 and the "
     "power and PCIe health. Jobs on this GPU cannot continue."},
    {"xid-critical", SEV_CRITICAL, false, p_xid_critical, ev_xid_critical, "the driver reported a hardware XID",
     "Check dmesg and nvidia-smi -q for ECC and row-remapping state; drain the node and have the GPU checked if "
     "it repeats. Restart the job from its last checkpoint."},
    {"ecc-uncorrected", SEV_CRITICAL, false, p_ecc, ev_ecc, "uncorrectable memory errors",
     "Uncorrectable ECC errors corrupt results: restart from a checkpoint, reset the GPU so pending rows are "
     "remapped, and replace it if the errors recur."},
    {"oom", SEV_CRITICAL, false, p_oom, ev_oom, "out of GPU memory: a process ended with memory full",
     "Use a smaller batch (with gradient accumulation to keep the effective batch), mixed precision (bf16/fp16), "
     "activation checkpointing; in PyTorch check torch.cuda.max_memory_allocated()."},
    {"stalled", SEV_CRITICAL, false, p_stalled, ev_stalled, "the GPU idles while holding memory",
     "The job may be hung (deadlock in a collective, a stuck data loader, waiting on a dead peer): take a stack "
     "dump (py-spy dump --pid PID), check NCCL timeouts, and free the GPU if the job is dead."},
    {"xid-app", SEV_WARNING, false, p_xid_app, ev_xid_app, "XID errors from an application fault",
     "These XIDs usually mean a bug in the program or a library (illegal memory access): run with "
     "CUDA_LAUNCH_BLOCKING=1 or compute-sanitizer to find the kernel; the hardware is not suspected."},
    {"thermal-throttle", SEV_WARNING, true, p_thermal, ev_thermal, "clocks held down by heat",
     "Check cooling: fans, airflow, inlet temperature, blocked filters, data-center cooling; nvidia-smi -q -d "
     "TEMPERATURE,PERFORMANCE shows the slowdown temperatures."},
    {"power-throttle", SEV_WARNING, true, p_power, ev_power, "clocks held down by the power limit",
     "The GPU runs at its power cap: check the configured limit (nvidia-smi -q -d POWER), raise it if the "
     "platform allows (nvidia-smi -pl), or accept the lower clocks."},
    {"memory-pressure", SEV_WARNING, true, p_mem_pressure, ev_memory, "memory near full and rising",
     "Expect an out-of-memory error: use a smaller batch with gradient accumulation, mixed precision, "
     "activation checkpointing, and look for tensors kept alive across steps (a growing history)."},
    {"input-bound-io", SEV_WARNING, true, p_input_io, ev_starving, "the input pipeline waits on storage",
     "Reading data is the bottleneck: cache the dataset (tf.data cache(), local NVMe), shard it into "
     "TFRecord/WebDataset files of 100-200 MB, read in parallel (interleave with num_parallel_calls, "
     "DataLoader num_workers), move to faster storage."},
    {"input-bound-cpu", SEV_WARNING, true, p_input_cpu, ev_starving, "the CPU cannot feed the GPU",
     "Parallelize the input pipeline. tf.data: map(..., num_parallel_calls=tf.data.AUTOTUNE), "
     "prefetch(tf.data.AUTOTUNE), cache() after expensive steps, interleave(..., num_parallel_calls=AUTOTUNE) "
     "over files. PyTorch: DataLoader(num_workers=N, pin_memory=True, persistent_workers=True). Do "
     "augmentation on the GPU (DALI) if the CPU is still short."},
    {"input-bound", SEV_WARNING, true, p_swing, ev_starving, "utilization swings between idle and busy",
     "The GPU waits between bursts: usually the input pipeline (prefetch and parallel loading: tf.data "
     "prefetch(AUTOTUNE), DataLoader num_workers and pin_memory), otherwise host-device copies or "
     "synchronization (.item(), logging every step)."},
    {"input-wait", SEV_WARNING, true, p_input_wait, ev_input_wait,
     "the training loop waits for its input (the job's step timing)",
     "The loop spends this share of its time waiting for the next batch (the TensorFlow Profiler calls more than "
     "20% highly input-bound). If the job's CPU is saturated, load in parallel (PyTorch: DataLoader(num_workers=N, "
     "pin_memory=True, persistent_workers=True, prefetch_factor); tf.data: map(num_parallel_calls=AUTOTUNE), "
     "prefetch(AUTOTUNE)); if it reads storage, cache the data or move it to local NVMe; cache expensive "
     "preprocessing once instead of repeating it every epoch."},
    {"slow-rank", SEV_WARNING, true, p_slow_rank, ev_slow_rank, "one process of the job is slower than the others",
     "In data-parallel training every step waits for the slowest rank: look at what differs on it (its input "
     "shard or data loader, its GPU's clocks and temperature, another process on its GPU or CPU cores)."},
    {"steps-slowing", SEV_WARNING, true, p_steps_slowing, ev_slowing, "training steps take longer than earlier in the run",
     "Steps slowed down mid-run: look for throttling (clocks, temperature), memory fragmentation or a growing "
     "graph (tensors kept across steps), a dataset shard on slower storage, or other jobs on the node."},
    {"slow-node", SEV_WARNING, true, p_slow_node, ev_slow_node, "this node's GPUs run well below the other nodes'",
     "In a multi-node job every step waits for the slowest node: check its network (link errors, the NCCL "
     "transport: NCCL_DEBUG=INFO; a node falling back to TCP instead of InfiniBand/RoCE), its GPUs' clocks and "
     "temperature, and its input (local disk, data loader, CPU)."},
    {"straggler", SEV_WARNING, true, p_straggler, ev_straggler, "well below its peers",
     "In data-parallel training every step waits for the slowest GPU: check this GPU's clocks, temperature and "
     "PCIe link, uneven data sharding, or another process sharing it."},
    {"busy-underused", SEV_WARNING, true, p_busy_underused, ev_plain,
     "busy by utilization, but few SMs work: small kernels",
     "Utilization counts time with any kernel running, not how much of the GPU it fills. Give each kernel more "
     "work: a larger batch; compile to fuse kernels and cut launch overhead (XLA: tf.function(jit_compile=True); "
     "PyTorch: torch.compile, CUDA graphs); remove host synchronizations in the step (.item(), .cpu(), printing "
     "or logging tensors every step)."},
    {"no-tensor-cores", SEV_WARNING, true, p_no_tensor, ev_plain, "the SMs are busy but the tensor cores idle",
     "The math runs in FP32 on the ordinary pipes: use mixed precision (Keras: "
     "tf.keras.mixed_precision.set_global_policy(\"mixed_float16\"); PyTorch: torch.autocast(\"cuda\", "
     "dtype=torch.bfloat16)) or at least TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
     "torch.set_float32_matmul_precision(\"high\")); tensor cores are several times faster."},
    {"small-batch", SEV_WARNING, true, p_small_batch, ev_plain, "steady low utilization: small batch or launch-bound",
     "The kernels are too small to fill the GPU: raise the batch size, compile (XLA: tf.function(jit_compile=True); "
     "PyTorch: torch.compile, CUDA graphs), use mixed precision to make room for larger batches."},
    {"tf-prealloc", SEV_INFO, true, p_prealloc, ev_prealloc, "memory pre-allocated by the framework, not a leak",
     "TensorFlow reserves nearly all GPU memory at start-up; this is its allocator, not real use. To see real "
     "use: tf.config.experimental.set_memory_growth(gpu, True) (or TF_FORCE_GPU_ALLOW_GROWTH=true)."},
    {"memory-bound", SEV_INFO, true, p_memory_bound, ev_plain, "limited by memory bandwidth, not by math",
     "DRAM bandwidth is the limit: fuse element-wise kernels (torch.compile, XLA), keep activations in "
     "bf16/fp16, use a larger batch so weights are reused, prefer fused optimizers and attention kernels "
     "(FlashAttention); bandwidth-bound phases such as embedding lookups may simply be what the model is."},
    {"input-wait-some", SEV_INFO, true, p_input_wait_some, ev_input_wait,
     "the training loop waits for its input part of the time (the job's step timing)",
     "Moderately input-bound (5-20% of the time waiting for input): more prefetching (prefetch(AUTOTUNE), "
     "DataLoader prefetch_factor) or one or two more loader workers would hide the rest."},
    {"step-jitter", SEV_INFO, true, p_step_jitter, ev_steps, "step times vary widely",
     "Uneven steps: variable input sizes (bucket by length), a data loader that stalls now and then, garbage "
     "collection, or work done every N steps (logging, evaluation, checkpoints) inside the loop."},
    {"pause", SEV_INFO, true, p_pause, ev_pause, "a pause between busy stretches (checkpoint, evaluation, epoch start)",
     "A one-off or periodic stop is not an input stall. If it is checkpointing, save asynchronously "
     "(torch.distributed.checkpoint.async_save, Orbax async checkpoints) or less often; at an epoch's start, keep "
     "DataLoader workers alive (persistent_workers=True); nothing to fix if it is evaluation."},
    {"idle", SEV_INFO, true, p_idle, ev_idle, "nothing runs on the GPU", "Nothing to fix if no job was meant "
     "to run here; otherwise check that the job sees this GPU (CUDA_VISIBLE_DEVICES)."},
    {"healthy", SEV_OK, true, p_healthy, ev_plain, "the GPU is kept busy", "Nothing to change."},
};
const int rule_count = (int)(sizeof rule_table / sizeof rule_table[0]);
_Static_assert(sizeof rule_table / sizeof rule_table[0] <= RULE_MAX, "raise RULE_MAX");

void rules_defaults(struct rule_config *c)
{
    c->window_s = 30;
    for (int i = 0; i < T_COUNT; i++)
        c->t[i] = rules_thresholds[i].def;
}

int rules_set_threshold(struct rule_config *c, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    size_t len = eq ? (size_t)(eq - assignment) : strlen(assignment);
    for (int i = 0; i < T_COUNT; i++) {
        if (strlen(rules_thresholds[i].name) != len || strncmp(rules_thresholds[i].name, assignment, len))
            continue;
        char *end;
        double v = eq ? strtod(eq + 1, &end) : NAN;
        if (!eq || end == eq + 1 || *end || !isfinite(v) || v < 0) {
            snprintf(err, errlen, "--threshold %s: give NAME=VALUE with a number >= 0", assignment);
            return -1;
        }
        c->t[i] = v;
        return 0;
    }
    snprintf(err, errlen, "--threshold: unknown threshold \"%.*s\" (gpumon diagnose --list-rules lists them)",
             (int)(len < 64 ? len : 64), assignment);
    return -1;
}

void rules_evaluate(const struct analyze_gpu_stats *s, const struct rule_config *c, bool *active,
                    struct sbuf *evidence)
{
    bool problem = false;
    for (int i = 0; i < rule_count; i++) {
        const struct rule *r = &rule_table[i];
        active[i] = !(r->needs_window && (!s->enough || s->lost)) && r->applies(s, c);
        problem |= active[i] && r->severity >= SEV_WARNING;
    }
    for (int i = 0; i < rule_count; i++) {
        if (rule_table[i].severity == SEV_OK && problem)
            active[i] = false;
        if (active[i] && evidence) {
            sbuf_reset(&evidence[i]);
            rule_table[i].evidence(s, c, &evidence[i]);
        }
    }
}

/* Advice that reads otherwise where the job's process figures were watched (gpumon run or its log): the
 * advice of rule_table fits a log without them (watch, serve), whose evidence says how to get them. */
static const struct { const char *id, *advice; } rules_advice_watched[] = {
    /* input-bound holds only when the job's CPU is not saturated and it does not wait on storage (else
     * input-bound-cpu or -io): with its figures, that is known */
    {"input-bound",
     "The GPU waits between bursts while the job's CPU is not saturated and it does not wait on storage (its "
     "figures are in the evidence), so the wait is in the loop itself: too little prefetching (tf.data "
     "prefetch(AUTOTUNE); DataLoader prefetch_factor, pin_memory=True), host-device copies (non_blocking=True "
     "from pinned memory), synchronization (.item(), .cpu(), logging tensors every step), or a loader "
     "serialized on a lock or a single file."},
};

const char *rules_advice(int r, bool job_watched)
{
    for (size_t i = 0; job_watched && i < sizeof rules_advice_watched / sizeof *rules_advice_watched; i++)
        if (!strcmp(rules_advice_watched[i].id, rule_table[r].id))
            return rules_advice_watched[i].advice;
    return rule_table[r].advice;
}

const char *rules_severity_name(enum rule_severity s)
{
    return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : s == SEV_INFO ? "info" : "ok";
}

void rules_print(const struct rule_config *c)
{
    printf("RULES (most severe first)\n");
    for (int i = 0; i < rule_count; i++)
        printf("  %-17s %-8s %s%s\n", rule_table[i].id, rules_severity_name(rule_table[i].severity),
               rule_table[i].title, rule_table[i].needs_window ? "" : " (an event: no full window needed)");
    printf("\nTHRESHOLDS (--threshold NAME=VALUE; window: --window, now %g s)\n", c->window_s);
    for (int i = 0; i < T_COUNT; i++)
        printf("  %-18s %8g %-6s %s\n", rules_thresholds[i].name, c->t[i], rules_thresholds[i].unit,
               rules_thresholds[i].meaning);
}
