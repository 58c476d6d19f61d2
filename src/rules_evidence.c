/*
 * rules_evidence.c: the evidence of each rule (rules_int.h): the window
 * figures a verdict stands on, as one line of words with their numbers.
 * Evidence is formatted only when a verdict starts, clears or is summed up
 * (diag.c), never at every evaluation, so it may take its time.
 */
#include <math.h>
#include <stdio.h>
#include "fmt.h"
#include "rules_int.h"

static void e_util(const struct analyze_gpu_stats *s, struct sbuf *b)
{
    sbuf_printf(b, "utilization mean %.0f%% (p5 %.0f, p50 %.0f, p95 %.0f, sub-second peak %.0f) over %.0f s",
                s->util_mean, s->util_p5, s->util_p50, s->util_p95, s->util_peak, s->span_s);
}

static void e_idle(const struct analyze_gpu_stats *s, struct sbuf *b)
{
    sbuf_printf(b, "; idle %.0f%% of the time in %.0f gap%s (mean %.1f s, longest %.1f s)", s->idle_share,
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

void rules_ev_lost(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
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

void rules_ev_xid_critical(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    ev_xid(s, b, true);
}

void rules_ev_xid_app(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    ev_xid(s, b, false);
}

void rules_ev_ecc(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "%lld new uncorrected ECC error%s in the last %.0f s", s->ecc_uncorr_new,
                s->ecc_uncorr_new == 1 ? "" : "s", s->window_s);
}

void rules_ev_reset(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    unsigned r = s->repair_pending;
    sbuf_printf(b, "the driver reports %s%s%s, a repair that waits for the GPU's reset (for %.0f s so far)",
                r & ANALYZE_REPAIR_REMAP ? "rows pending remapping" : "",
                (r & ANALYZE_REPAIR_REMAP) && (r & ANALYZE_REPAIR_RETIRE) ? " and " : "",
                r & ANALYZE_REPAIR_RETIRE ? "pages pending retirement" : "", fmax(0, s->now - s->repair_since_t));
}

void rules_ev_oom(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "a process left the GPU %.0f s ago while memory was %.1f%% full (threshold %.0f%%)",
                s->now - s->exit_t, s->exit_mem_share, c->t[T_OOM_MEM]);
}

void rules_ev_stalled(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    if (s->spin_share >= 50)   /* the window mostly a kernel that waits: utilization says busy, GPM says not */
        sbuf_printf(b, "idle for %.0f s: utilization %.0f%%, but SM activity %.0f%% and DRAM %.0f%% (GPM, under "
                    "%.0f%%: a kernel that waits, a collective whose peer is gone?), while holding %.0f MiB (%.1f%%) "
                    "with %d process%s", s->idle_for_s, s->util_mean, s->sm_active_mean, s->dram_mean,
                    c->t[T_SM_IDLE], s->mem_last, rules_mem_share(s, s->mem_last), s->procs, s->procs == 1 ? "" : "es");
    else
        sbuf_printf(b, "idle (utilization under %.0f%%) for %.0f s while holding %.0f MiB (%.1f%%) with %d process%s",
                    c->t[T_IDLE_UTIL], s->idle_for_s, s->mem_last, rules_mem_share(s, s->mem_last), s->procs,
                    s->procs == 1 ? "" : "es");
    if (s->still_for_s < s->idle_for_s - 0.5)   /* the stall clock started again when memory last grew */
        sbuf_printf(b, "; its memory last grew %.0f s ago", s->still_for_s);
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
    if (!isnan(s->sm_clock_mean) && s->sm_clock_max > 0)
        sbuf_printf(b, "; SM clock %.0f of %.0f MHz", s->sm_clock_mean, s->sm_clock_max);
}

void rules_ev_thermal(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    ev_throttle(s, b, CR_GROUP_THERMAL, s->thermal_share);
}

void rules_ev_power(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    ev_throttle(s, b, CR_GROUP_POWER, s->power_share);
}

void rules_ev_memory(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "memory %.0f of %.0f MiB (%.1f%%), %s %.1f MiB/s over %.0f s (%.0f to %.0f MiB)", s->mem_last,
                s->mem_total, rules_mem_share(s, s->mem_last), s->mem_slope >= 0 ? "rising" : "falling",
                fabs(s->mem_slope), s->span_s, s->mem_min, s->mem_max);
}

void rules_ev_prealloc(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    rules_ev_memory(s, c, b);
    sbuf_printf(b, "; near full %.1f s after first use", s->mem_high_t - s->mem_first_use_t);
}

void rules_ev_slow_node(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "the GPUs of this node run at a median utilization of %.0f%% against %.0f%% on the other %u node%s "
                "(median of theirs); this GPU %.0f%%", s->node_util, s->other_nodes_util, s->nodes - 1,
                s->nodes == 2 ? "" : "s", s->util_mean);
    e_job(s, b);
}

void rules_ev_straggler(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "utilization mean %.0f%% against a median of %.0f%% on %u busy peer GPU%s", s->util_mean,
                s->peer_median_util, s->npeers, s->npeers == 1 ? "" : "s");
    if (!isnan(s->temp_max))
        sbuf_printf(b, "; temperature up to %.0f C", s->temp_max);
    if (!isnan(s->power_mean))
        sbuf_printf(b, "; power %.0f W", s->power_mean);
}

void rules_ev_starving(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
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

void rules_ev_input_wait(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
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

void rules_ev_steps(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    e_steps(s, b);
    if (!isnan(s->steps.wait_share))
        sbuf_printf(b, "; waiting for input %.0f%% of the time", s->steps.wait_share);
}

void rules_ev_slowing(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    e_ms(b, "p50 step ", s->steps.p50);
    sbuf_printf(b, " now, %.2fx", s->steps.p50 / s->step_best_p50);
    e_ms(b, " the ", s->step_best_p50);
    sbuf_printf(b, " of the window that ended %.0f s ago; ", s->now - s->step_best_t);
    rules_ev_steps(s, c, b);
}

void rules_ev_slow_rank(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    if (s->proc_rank >= 0)
        sbuf_printf(b, "rank %d (pid %d)", s->proc_rank, s->proc_pid);
    else
        sbuf_printf(b, "pid %d", s->proc_pid);
    e_ms(b, ": p50 step ", s->proc_p50);
    e_ms(b, " against ", s->others_p50);
    sbuf_printf(b, " on the other %u process%s (median); waiting for input %.0f%% of the time against %.0f%%",
                s->job_ranks - 1, s->job_ranks == 2 ? "" : "es", isnan(s->proc_wait) ? 0 : s->proc_wait,
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

void rules_ev_plain(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    e_util(s, b);
    if (s->idle_share > 0)
        e_idle(s, b);
    e_gpm(s, b);
}

void rules_ev_pause(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "idle for %.0f s in %.0f stretch%s (longest %.0f s) of the last %.0f s, busy at %.0f%% around %s",
                s->stop_idle_s, s->stops, s->stops == 1 ? "" : "es", s->stop_max_s, s->span_s, s->busy_util,
                s->stops == 1 ? "it" : "them");
    if (!isnan(s->stop_busy_before_s))
        sbuf_printf(b, ", %.0f s after the one before", s->stop_busy_before_s);
    e_job(s, b);
}

void rules_ev_idle(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b)
{
    (void)c;
    sbuf_printf(b, "utilization mean %.1f%% over %.0f s, %.0f MiB held, %d process%s", s->util_mean, s->span_s,
                s->mem_last, s->procs < 0 ? 0 : s->procs, s->procs == 1 ? "" : "es");
}

