/*
 * rules.c: the threshold table, the rule table and their evaluation: the
 * rules decide what the analysis measured (analyze.h). A predicate is a
 * few comparisons of window figures against thresholds; conditions several
 * rules share (CPU saturated, utilization swinging, starving) are small
 * named helpers; which rule stands aside for which is the table's
 * yields_to column, resolved in table order by rules_evaluate. Thresholds
 * follow common practice: above 70% mean utilization is healthy, below 50%
 * a bottleneck, memory above 90% near full; the data must cover 80% of
 * the window before any window rule speaks. The evidence each rule gives
 * is rules_evidence.c's; the tables as documentation, rules_doc.c's.
 */
#include "rules_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AP(field) .analysis = offsetof(struct analyze_config, field)
_Static_assert(offsetof(struct analyze_config, window_s) == 0, "analysis offset 0 must mean none");

const struct rule_threshold_row rules_thresholds[T_COUNT] = {
    [T_HEALTHY_UTIL] = {.name = "healthy.util", .def = 70, .unit = "%",
             .meaning = "mean utilization at or above which the GPU is well used"},
    [T_LOW_UTIL] = {.name = "low.util", .def = 50, .unit = "%",
             .meaning = "mean utilization below which the GPU is under-used"},
    [T_IDLE_UTIL] = {.name = "idle.util", .def = 5, .unit = "%",
             .meaning = "utilization below which a sample counts as idle",
             AP(idle_util)},
    [T_BUSY_UTIL] = {.name = "busy.util", .def = 40, .unit = "%",
             .meaning = "sub-second peak at or above which an idle/busy swing counts, and a mostly idle record holds "
                        "real work (under it, a stop goes on through it: a checkpoint's copies to the host)",
             AP(busy_util)},
    [T_SWING_IDLE] = {.name = "swing.idle_share", .def = 10, .unit = "%",
             .meaning = "idle share from which utilization swings (below: steady)"},
    [T_SWING_GAPS] = {.name = "swing.gaps", .def = 3, .unit = "",
             .meaning = "idle gaps in the window needed for a swing"},
    [T_STEADY_SPREAD] = {.name = "steady.spread", .def = 30, .unit = "points",
             .meaning = "p95 - p5 utilization at most this for steady use"},
    [T_CPU_SATURATED] = {.name = "cpu.saturated", .def = 90, .unit = "%",
             .meaning = "job CPU saturated: busiest process at this share of one core, or the tree at this share of all CPUs"},
    [T_IOWAIT] = {.name = "iowait.high", .def = 10, .unit = "%",
             .meaning = "host iowait at or above which input is I/O-bound"},
    [T_JOB_READ] = {.name = "job.read", .def = 1024, .unit = "KB/s",
             .meaning = "storage reads of the job (gpumon run) from which host iowait is its own; below: a neighbour's"},
    [T_MEM_HIGH] = {.name = "memory.high", .def = 90, .unit = "%",
             .meaning = "memory used, share of total, that counts as near full",
             AP(mem_high)},
    [T_MEM_RISE] = {.name = "memory.rise", .def = 2, .unit = "%",
             .meaning = "growth over the window, share of total, that counts as rising"},
    [T_OOM_MEM] = {.name = "oom.memory", .def = 95, .unit = "%",
             .meaning = "memory share just before a process ended that means out of memory"},
    [T_PREALLOC_RISE] = {.name = "prealloc.rise_s", .def = 5, .unit = "s",
             .meaning = "first use to near full within this time: pre-allocation"},
    [T_THROTTLE_SHARE] = {.name = "throttle.share", .def = 20, .unit = "%",
             .meaning = "share of the window with a throttle reason active"},
    [T_STRAGGLER_GAP] = {.name = "straggler.gap", .def = 20, .unit = "points",
             .meaning = "utilization this far below the median of busy peers"},
    [T_STALL_S] = {.name = "stall.seconds", .def = 120, .unit = "s",
             .meaning = "idle this long while holding memory: stalled"},
    [T_STALL_MEM] = {.name = "stall.memory", .def = 5, .unit = "%",
             .meaning = "memory share that counts as held"},
    [T_STALL_GROWTH] = {.name = "stall.growth", .def = 0.1, .unit = "%",
             .meaning = "an idle GPU's memory rising this share of the GPU above the most it held since it went "
                        "idle is progress (weights loading into it), not a stall: the stall clock starts again",
             AP(stall_growth)},
    [T_SM_LOW] = {.name = "sm.low", .def = 50, .unit = "%",
             .meaning = "SM activity (GPM) below which a busy GPU is underused; healthy needs at least this"},
    [T_SM_BUSY] = {.name = "sm.busy", .def = 60, .unit = "%",
             .meaning = "SM activity (GPM) from which the SMs count as busy"},
    [T_SM_IDLE] = {.name = "sm.idle", .def = 5, .unit = "%",
             .meaning = "SM activity and DRAM bandwidth (GPM) both under this while utilization reads busy: a kernel "
                        "that waits (a collective on a missing peer), counted idle",
             AP(sm_idle)},
    [T_TENSOR_LOW] = {.name = "tensor.low", .def = 5, .unit = "%",
             .meaning = "tensor-core activity (GPM) at or below which the tensor cores sit unused"},
    [T_DRAM_HIGH] = {.name = "dram.high", .def = 70, .unit = "%",
             .meaning = "DRAM bandwidth (GPM, share of peak) from which the job is memory-bound"},
    [T_DRAM_SAT] = {.name = "dram.saturated", .def = 80, .unit = "%",
             .meaning = "DRAM bandwidth (GPM, share of peak) from which the job is memory-bound whatever the SM "
                        "activity (DCGM: the practical peak is near 0.8)"},
    [T_STARTUP_S] = {.name = "startup.seconds", .def = 60, .unit = "s",
             .meaning = "after a job starts on a GPU, its start-up: no input verdicts yet",
             AP(startup_s)},
    [T_STARTUP_MAX] = {.name = "startup.max", .def = 300, .unit = "s",
             .meaning = "the start-up goes on past startup.seconds while the job's memory still grows by memory.rise "
                        "or startup.growth over the window (compilation, autotuning), up to this"},
    [T_STARTUP_GROWTH] = {.name = "startup.growth", .def = 5, .unit = "%",
             .meaning = "growth per window (over the last 30-60 s), share of the memory the GPU held, that counts "
                        "as a start-up still allocating (a model small beside its GPU grows less than memory.rise)"},
    [T_PAUSE_S] = {.name = "pause.seconds", .def = 5, .unit = "s",
             .meaning = "an idle stretch (a stop) this long between busy stretches is a pause or a recurring stall, "
                        "not a gap",
             AP(pause_s)},
    [T_PAUSE_APART] = {.name = "pause.apart", .def = 60, .unit = "s",
             .meaning = "a stop this long or more after the previous one ended (or the log began) is an isolated "
                        "pause; sooner, it recurs: the input stall itself, however long each one is"},
    [T_STEPS_MIN] = {.name = "steps.min", .def = 10, .unit = "",
             .meaning = "steps with a known input wait in the window needed for step verdicts",
             AP(steps_min)},
    [T_STEPS_WAIT] = {.name = "steps.wait", .def = 20, .unit = "%",
             .meaning = "share of the loop's time waiting for input from which it is input-bound (TensorFlow Profiler: highly)"},
    [T_STEPS_WAIT_SOME] = {.name = "steps.wait_some", .def = 5, .unit = "%",
             .meaning = "share of the loop's time waiting for input: moderately input-bound"},
    [T_STEPS_JITTER] = {.name = "steps.jitter", .def = 2, .unit = "x",
             .meaning = "p95 step time this many times the p50 or more: uneven steps"},
    [T_STEPS_SLOWER] = {.name = "steps.slower", .def = 1.3, .unit = "x",
             .meaning = "p50 step time this many times the run's best window: slowing down"},
    [T_STEPS_LESS] = {.name = "steps.less_busy", .def = 10, .unit = "%",
             .meaning = "slower steps are a slowdown only where the GPU does this much less than in the fastest window "
                        "(utilization or wait-share points, % of SM activity or clock) or is throttled; else each "
                        "step does more work"},
    [T_RANK_SLOW] = {.name = "rank.slow", .def = 1.25, .unit = "x",
             .meaning = "a process's p50 step time this many times the others' median: a slow rank"},
    [T_MIN_COVERAGE] = {.name = "min.coverage", .def = 80, .unit = "%",
             .meaning = "share of the window that data must cover before a verdict",
             AP(min_coverage)},
    [T_MIN_SAMPLES] = {.name = "min.samples", .def = 5, .unit = "",
             .meaning = "samples needed in the window before a verdict",
             AP(min_samples)},
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

/* The window reaches back into the job's first startup.seconds on this GPU (launch, NCCL warm-up and
 * autotuning look like stalls, an allocator grows to its plateau). */
static bool in_startup(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->job_start_t > 0 && s->now - s->window_s < s->job_start_t + T(T_STARTUP_S);
}

/* For the shape of utilization (input, pause, small batch, straggler), the start-up goes on while the job's
 * memory still grows: compilation and autotuning (torch.compile, XLA, cuDNN) allocate as they go, in bursts
 * between idle stretches, for minutes; an allocator at its plateau is past them. Growing: by memory.rise of
 * the GPU over the window, or by startup.growth of what it holds per window over the last 30-60 s
 * (mem_growth: allocations come in steps at the bursts, which a window's slope reads low), as what a
 * start-up allocates goes with the model, not the GPU (1.4 GiB a window: 1.8% of an 80 GiB A100, 10% of the
 * 14 GiB a compiling job holds; 5% of what it holds is memory.rise on a GPU 40% full). Up to startup.max.
 * Not for memory pressure: near-full memory that still rises is a risk whenever it comes. */
bool rules_allocating(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    bool growing = rules_mem_share(s, s->mem_slope * s->span_s) >= T(T_MEM_RISE) ||
                   s->mem_growth >= T(T_STARTUP_GROWTH);
    return s->job_start_t > 0 && growing && !in_startup(s, c) &&
           s->now - s->window_s < s->job_start_t + T(T_STARTUP_MAX);
}

static bool in_warmup(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return in_startup(s, c) || rules_allocating(s, c);
}

/* Long stops that come back after little busy time (shards fetched from network storage, a loader that
 * blocks every few seconds) are the input stall itself, however long each one is; one after a long busy
 * stretch (a checkpoint, an evaluation, an epoch's start) is a pause. A stop the log began in: not known
 * to recur. */
bool rules_stop_is_pause(const struct analyze_stop *st, const struct rule_config *c)
{
    return !(st->busy_before_s < T(T_PAUSE_APART));
}

enum rule_stop rules_stop_kind(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    if (!(s->stops > 0))
        return RULE_STOP_NONE;
    struct analyze_stop nearest = {.busy_before_s = s->stop_busy_before_s};   /* the window's least */
    return rules_stop_is_pause(&nearest, c) ? RULE_STOP_PAUSE : RULE_STOP_RECURS;
}

/* The window holds an isolated long stop, over or still going on: a pause; no window that holds one is an
 * input verdict. */
static bool holds_pause(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return rules_stop_kind(s, c) == RULE_STOP_PAUSE;
}

/* One or two isolated stops between busy stretches, the GPU busy around them and little idle besides. Not
 * the stop its records began in (stop_busy_before_s NAN): nothing busy before it, a start-up if anything. */
static bool paused(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    double other_idle = s->idle_share / 100 * s->span_s - s->stop_idle_s;
    return holds_pause(s, c) && !isnan(s->stop_busy_before_s) && s->stops <= 2 && s->busy_util >= T(T_HEALTHY_UTIL) &&
           other_idle < T(T_SWING_IDLE) / 100 * s->span_s;
}

/* The job reports its steps on this GPU, enough of them with a known input wait: its own timing is the
 * evidence on input, ahead of what the shape of utilization suggests. */
static bool steps_known(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->steps_ok && s->steps.waited >= T(T_STEPS_MIN) && !isnan(s->steps.wait_share) && in_use(s, c);
}

/* The GPU waits on its input: swinging or low, recurring (not a pause), and past the job's start-up.
 * Inferred from utilization only where the job does not report its steps. */
static bool starving(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return in_use(s, c) && (swinging(s, c) || low(s, c)) && !holds_pause(s, c) && !in_warmup(s, c) &&
           !steps_known(s, c);
}

static bool dram_high(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return !isnan(s->dram_mean) && s->dram_mean >= T(T_DRAM_HIGH);
}

/* DRAM near its practical peak (DCGM's guidance: about 0.8 of the theoretical): the limit, whatever the
 * SMs do. */
static bool dram_saturated(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return !isnan(s->dram_mean) && s->dram_mean >= T(T_DRAM_SAT);
}

/* Memory went from first use to near full at once: a framework's allocator, not growth. */
static bool prealloc_jump(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->mem_high_t > 0 && s->mem_first_use_t > 0 && s->mem_high_t - s->mem_first_use_t <= T(T_PREALLOC_RISE);
}

static bool mem_held(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return rules_mem_share(s, s->mem_last) >= T(T_STALL_MEM) || s->procs > 0;
}

/* A process of a job of several is slow: its p50 step that many times the others' median, or its wait for
 * input that many points above theirs. */
static bool rank_slow(double ratio, double wait_gap, const struct rule_config *c)
{
    return ratio >= T(T_RANK_SLOW) || wait_gap >= T(T_STEPS_WAIT);
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

/* A memory repair the driver holds until the GPU's reset: while it waits, the faulty rows or pages stay in
 * the driver's hands, and the count of uncorrected errors that caused it no longer moves (ecc-uncorrected
 * speaks for one window only). */
static bool p_reset_needed(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    (void)c;
    return s->repair_pending != 0;
}

static bool p_oom(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->exit_t > 0 && s->exit_mem_share >= T(T_OOM_MEM);
}

/* Idle that long holding memory; a notebook's kernel between cells is not hung (notebook-idle), nor an
 * inference server between requests (server-idle: a blind hold-out's quiet night read stalled). */
static bool p_stalled(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->still_for_s >= T(T_STALL_S) && mem_held(s, c) && !s->notebook && !s->server;
}

static bool p_server_idle(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->still_for_s >= T(T_STALL_S) && mem_held(s, c) && s->server && !s->notebook;
}

static bool p_notebook_idle(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->still_for_s >= T(T_STALL_S) && mem_held(s, c) && s->notebook;
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
    return rules_mem_share(s, s->mem_last) >= T(T_MEM_HIGH) &&
           rules_mem_share(s, s->mem_slope * s->span_s) >= T(T_MEM_RISE) &&
           rules_mem_share(s, s->mem_recent_slope * s->span_s / 2) >= T(T_MEM_RISE) / 2 && !prealloc_jump(s, c) &&
           !in_startup(s, c);
}

static bool p_prealloc(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return rules_mem_share(s, s->mem_min) >= T(T_MEM_HIGH) &&
           rules_mem_share(s, s->mem_max - s->mem_min) < T(T_MEM_RISE) && prealloc_jump(s, c);
}

/* Several nodes (a multi-node diagnosis): this GPU's node runs well below the others. */
static bool p_slow_node(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->nodes >= 2 && in_use(s, c) && s->other_nodes_util - s->node_util >= T(T_STRAGGLER_GAP);
}

/* A straggler does the job's work, slower: an unused GPU beside a single-GPU job is not one (on a slow
 * node, the node is the finding: the table's precedence). */
static bool p_straggler(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    bool left = s->procs == 0 && !(rules_mem_share(s, s->mem_last) >= T(T_STALL_MEM));   /* done, or it failed */
    return s->npeers > 0 && in_use(s, c) && !left && s->peer_median_util - s->util_mean >= T(T_STRAGGLER_GAP) &&
           !in_warmup(s, c);   /* a rank that loads its shards longer than its peers is in its start-up */
}

static bool p_input_io(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return starving(s, c) && iowait_high(s, c);
}

static bool p_input_cpu(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return starving(s, c) && cpu_saturated(s, c);
}

static bool p_swing(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return starving(s, c) && swinging(s, c);
}

static bool p_input_wait(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return steps_known(s, c) && s->steps.wait_share >= T(T_STEPS_WAIT);
}

static bool p_input_wait_some(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return steps_known(s, c) && s->steps.wait_share >= T(T_STEPS_WAIT_SOME);
}

static bool p_step_jitter(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return steps_known(s, c) && s->steps.p95 >= T(T_STEPS_JITTER) * s->steps.p50;
}

/* The GPU does less now than in the run's fastest window: less busy, fewer SMs at work, lower clocks, more
 * waiting for input, or throttled. Without any of these, longer steps each do more work (a longer
 * sequence, a larger batch or image): the GPU is as busy as it was. */
static bool gpu_does_less(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    double d = T(T_STEPS_LESS);
    return s->util_mean <= s->best_util - d || s->sm_active_mean <= s->best_sm * (1 - d / 100) ||
           s->sm_clock_mean <= s->best_clock * (1 - d / 100) || s->steps.wait_share >= s->best_wait + d ||
           (s->n_reasons > 0 && (s->thermal_share >= T(T_THROTTLE_SHARE) || s->power_share >= T(T_THROTTLE_SHARE)));
}

/* Slower than an earlier window of the same run (not the start-up's slow steps: the best is the fastest),
 * with the GPU doing less. */
static bool p_steps_slowing(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return steps_known(s, c) && s->step_best_p50 > 0 && s->now - s->step_best_t >= s->window_s &&
           s->steps.p50 >= T(T_STEPS_SLOWER) * s->step_best_p50 && gpu_does_less(s, c);
}

/* The slowest process of the job on this GPU is slow, and none ranked slower than it is: the job's
 * slowest slow process, named on its GPU only. */
static bool p_slow_rank(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->proc_pid > 0 && rank_slow(s->proc_ratio, s->proc_wait_gap, c) &&
           !rank_slow(s->slower_ratio, s->slower_wait_gap, c);
}

static bool p_small_batch(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return in_use(s, c) && low(s, c) && s->util_mean >= T(T_IDLE_UTIL) && !swinging(s, c) && !in_warmup(s, c) &&
           s->util_p95 - s->util_p5 <= T(T_STEADY_SPREAD) && !cpu_saturated(s, c) && !iowait_high(s, c);
}

/* Nothing runs: no utilization, no sub-second peak, no memory held. */
static bool p_idle(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->util_mean < T(T_IDLE_UTIL) && s->util_peak < T(T_BUSY_UTIL) && !mem_held(s, c);
}

/* Said once the stop is over (busy again), while the window holds it; while it lasts, neither this nor an
 * input verdict (and stalled speaks if it never ends). */
static bool p_pause(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return in_use(s, c) && paused(s, c) && !in_warmup(s, c) && !s->stop_going && s->idle_for_s < T(T_PAUSE_S);
}

/* Busy by utilization: at least healthy.util, or from low.util up without swinging (under low.util a steady
 * GPU is small-batch's, a swinging one the input rules'); the blind hold-out's batch-1 evaluation at 64%
 * with SMs 9% active got no verdict at all while this asked for healthy.util. Not where the SMs idle because
 * a kernel waits, or the window holds a pause: that is a wait, not small kernels; nor in the start-up, where
 * NCCL set-up and autotuning run small kernels on their way to the job's own (tests/holdout2). */
static bool p_busy_underused(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    bool busy = s->util_mean >= T(T_HEALTHY_UTIL) || (s->util_mean >= T(T_LOW_UTIL) && !swinging(s, c));
    return s->gpm_covered && busy && s->sm_active_mean < T(T_SM_LOW) && !dram_high(s, c) && !holds_pause(s, c) &&
           s->spin_share < T(T_SWING_IDLE) && !in_warmup(s, c);
}

static bool p_no_tensor(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->gpm_covered && s->sm_active_mean >= T(T_SM_BUSY) && !isnan(s->tensor_mean) &&
           s->tensor_mean <= T(T_TENSOR_LOW);
}

static bool p_memory_bound(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->gpm_covered && s->util_mean >= T(T_LOW_UTIL) &&
           (dram_saturated(s, c) || (dram_high(s, c) && s->sm_active_mean < T(T_SM_BUSY)));
}

/* Busy by utilization, and where GPM tells, by SM activity too: 98% utilization at 20% SM activity is not. */
static bool p_healthy(const struct analyze_gpu_stats *s, const struct rule_config *c)
{
    return s->util_mean >= T(T_HEALTHY_UTIL) && (!s->gpm_covered || s->sm_active_mean >= T(T_SM_LOW));
}

/* ---- the table ----
 * .when says in words what the predicate asks, {threshold} standing for a threshold's name and value;
 * rules_doc.c prints it. The conditions the input rules share are rules_doc_starving. */

const char rules_doc_starving[] =
    "The GPU is starving (the input rules input-bound-io, input-bound-cpu and input-bound) when it is in use "
    "(utilization mean at least {idle.util}, sub-second peaks at least {busy.util}, or a process), swinging or low "
    "(mean under {low.util}), the window holds no pause (a stop, an idle stretch of at least {pause.seconds}, "
    "that came at least {pause.apart} after the previous one; stops that come back sooner are the input stall "
    "itself), the window is not in the job's start-up (its first {startup.seconds} on the GPU, and on while its "
    "memory still grows by {memory.rise} of the total or {startup.growth} of what it holds, up to {startup.max}), "
    "and the job does not report its steps (where it "
    "does, input-wait and input-wait-some decide from its own timing).";

const struct rule rule_table[R_COUNT] = {
    [R_GPU_LOST] = {.id = "gpu-lost", .severity = SEV_CRITICAL, .needs_window = false, .applies = p_lost,
        .evidence = rules_ev_lost, .title = "the GPU fell off the bus",
        .when = "the GPU answers \"GPU is lost\" (its state, or its values say so)",
        .advice = "Drain the node and reset or reseat the GPU (nvidia-smi -r, or a reboot); check dmesg for Xid 79 and the "
         "power and PCIe health. Jobs on this GPU cannot continue."},
    [R_XID_CRITICAL] = {.id = "xid-critical", .severity = SEV_CRITICAL, .needs_window = false, .applies = p_xid_critical,
        .evidence = rules_ev_xid_critical, .title = "the driver reported a hardware XID",
        .when = "the driver reported a hardware or driver XID (48, 61-64, 74, 79, 92, 94, 95, 119, 120) in the window",
        .advice = "Check dmesg and nvidia-smi -q for ECC and row-remapping state; drain the node and have the GPU checked if "
         "it repeats. Restart the job from its last checkpoint."},
    [R_ECC] = {.id = "ecc-uncorrected", .severity = SEV_CRITICAL, .needs_window = false, .applies = p_ecc,
        .evidence = rules_ev_ecc, .title = "uncorrectable memory errors",
        .when = "the count of uncorrected ECC errors rose in the window",
        .advice = "Uncorrectable ECC errors corrupt results: restart from a checkpoint, reset the GPU so pending rows are "
         "remapped, and replace it if the errors recur."},
    [R_OOM] = {.id = "oom", .severity = SEV_CRITICAL, .needs_window = false, .applies = p_oom,
        .evidence = rules_ev_oom, .title = "out of GPU memory: a process ended with memory full",
        .when = "a process left the GPU while memory was at least {oom.memory} full",
        .advice = "Use a smaller batch (with gradient accumulation to keep the effective batch), mixed precision (bf16/fp16), "
         "activation checkpointing; in PyTorch check torch.cuda.max_memory_allocated()."},
    [R_STALLED] = {.id = "stalled", .severity = SEV_CRITICAL, .needs_window = false, .applies = p_stalled,
        .yields_to = RULE_BIT(R_GPU_LOST),
        .evidence = rules_ev_stalled, .title = "the GPU idles while holding memory",
        .when = "the GPU is idle (under {idle.util}, or a kernel that waits: utilization busy while SM activity and DRAM are under {sm.idle}) for at least {stall.seconds} while holding at least {stall.memory} of memory or a process, its memory not rising meanwhile by {stall.growth} above the most it held (a model loaded from slow storage is progress), and its processes are not all a notebook's kernels (notebook-idle) nor all inference servers (server-idle)",
        .advice = "The job may be hung (deadlock in a collective, a stuck data loader, waiting on a dead peer): take a stack "
         "dump (py-spy dump --pid PID), check NCCL timeouts, and free the GPU if the job is dead."},
    [R_XID_APP] = {.id = "xid-app", .severity = SEV_WARNING, .needs_window = false, .applies = p_xid_app,
        .evidence = rules_ev_xid_app, .title = "XID errors from an application fault",
        .when = "the driver reported an application XID (13, 31, 43, 45) or an unclassified one in the window",
        .advice = "These XIDs usually mean a bug in the program or a library (illegal memory access): run with "
         "CUDA_LAUNCH_BLOCKING=1 or compute-sanitizer to find the kernel; the hardware is not suspected."},
    [R_RESET_NEEDED] = {.id = "reset-needed", .severity = SEV_WARNING, .needs_window = false,
        .yields_to = RULE_BIT(R_GPU_LOST), .applies = p_reset_needed, .evidence = rules_ev_reset,
        .title = "a memory repair waits for the GPU's reset",
        .when = "at the latest record the driver reports rows pending remapping (Ampere and newer) or pages pending retirement (older GPUs): a repair that takes effect at the GPU's next reset",
        .advice = "The GPU found memory it must repair (after an uncorrectable ECC error, or correctable ones that "
         "recur) and applies the repair at its next reset. Drain its jobs and reset it (nvidia-smi -r -i INDEX) or "
         "reboot the node; nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT shows the state. If the remapping fails "
         "or the errors recur, have the GPU replaced."},
    [R_THERMAL] = {.id = "thermal-throttle", .severity = SEV_WARNING, .needs_window = true, .applies = p_thermal,
        .evidence = rules_ev_thermal, .title = "clocks held down by heat",
        .when = "a thermal or hardware-slowdown reason was active at least {throttle.share} of the window",
        .advice = "Check cooling: fans, airflow, inlet temperature, blocked filters, data-center cooling; nvidia-smi -q -d "
         "TEMPERATURE,PERFORMANCE shows the slowdown temperatures."},
    [R_POWER] = {.id = "power-throttle", .severity = SEV_WARNING, .needs_window = true, .applies = p_power,
        .evidence = rules_ev_power, .title = "clocks held down by the power limit",
        .when = "a power-cap or power-brake reason was active at least {throttle.share} of the window",
        .advice = "The GPU runs at its power cap: check the configured limit (nvidia-smi -q -d POWER), raise it if the "
         "platform allows (nvidia-smi -pl), or accept the lower clocks."},
    [R_MEM_PRESSURE] = {.id = "memory-pressure", .severity = SEV_WARNING, .needs_window = true, .applies = p_mem_pressure,
        .evidence = rules_ev_memory, .title = "memory near full and rising",
        .when = "memory is at least {memory.high} full, grew by at least {memory.rise} of the total over the window and still grows in its later half, neither in a pre-allocation jump nor in the start-up",
        .advice = "Expect an out-of-memory error: use a smaller batch with gradient accumulation, mixed precision, "
         "activation checkpointing, and look for tensors kept alive across steps (a growing history)."},
    [R_INPUT_IO] = {.id = "input-bound-io", .severity = SEV_WARNING, .needs_window = true, .applies = p_input_io,
        .evidence = rules_ev_starving, .title = "the input pipeline waits on storage",
        .when = "the GPU is starving while the host's iowait is at least {iowait.high}; under gpumon run only if the job itself reads at least {job.read} from storage (a neighbour's I/O is not the job's input)",
        .advice = "Reading data is the bottleneck: cache the dataset (tf.data cache(), local NVMe), shard it into "
         "TFRecord/WebDataset files of 100-200 MB, read in parallel (interleave with num_parallel_calls, "
         "DataLoader num_workers), move to faster storage."},
    [R_INPUT_CPU] = {.id = "input-bound-cpu", .severity = SEV_WARNING, .needs_window = true, .applies = p_input_cpu,
        .yields_to = RULE_BIT(R_INPUT_IO),
        .evidence = rules_ev_starving, .title = "the CPU cannot feed the GPU",
        .when = "the GPU is starving while the job's busiest process demands at least {cpu.saturated} of a core, or the process tree that share of all CPUs",
        .advice = "Parallelize the input pipeline. tf.data: map(..., num_parallel_calls=tf.data.AUTOTUNE), "
         "prefetch(tf.data.AUTOTUNE), cache() after expensive steps, interleave(..., num_parallel_calls=AUTOTUNE) "
         "over files. PyTorch: DataLoader(num_workers=N, pin_memory=True, persistent_workers=True). Do "
         "augmentation on the GPU (DALI) if the CPU is still short."},
    [R_INPUT_SWING] = {.id = "input-bound", .severity = SEV_WARNING, .needs_window = true, .applies = p_swing,
        .yields_to = RULE_BIT(R_INPUT_IO) | RULE_BIT(R_INPUT_CPU),
        .evidence = rules_ev_starving, .title = "utilization swings between idle and busy",
        .when = "the GPU is starving and swinging: idle at least {swing.idle_share} of the window in at least {swing.gaps} gaps, with sub-second peaks of at least {busy.util}",
        .advice = "The GPU waits between bursts: usually the input pipeline (prefetch and parallel loading: tf.data "
         "prefetch(AUTOTUNE), DataLoader num_workers and pin_memory), otherwise host-device copies or "
         "synchronization (.item(), logging every step).",
        /* it holds only where the job's CPU is not saturated and it does not wait on storage (else -cpu, -io) */
        .advice_watched = "The GPU waits between bursts while the job's CPU is not saturated and it does not wait "
         "on storage (its figures are in the evidence), so the wait is in the loop itself: too little prefetching "
         "(tf.data prefetch(AUTOTUNE); DataLoader prefetch_factor, pin_memory=True), host-device copies "
         "(non_blocking=True from pinned memory), synchronization (.item(), .cpu(), logging tensors every step), "
         "or a loader serialized on a lock or a single file."},
    [R_INPUT_WAIT] = {.id = "input-wait", .severity = SEV_WARNING, .needs_window = true, .applies = p_input_wait,
        .evidence = rules_ev_input_wait, .title = "the training loop waits for its input (the job's step timing)",
        .when = "the job reports its steps (at least {steps.min} with a known wait in the window) and its loop waited for input at least {steps.wait} of its time (the TensorFlow Profiler's \"highly input-bound\")",
        .advice = "The loop spends this share of its time waiting for the next batch (the TensorFlow Profiler calls more than "
         "20% highly input-bound). If the job's CPU is saturated, load in parallel (PyTorch: DataLoader(num_workers=N, "
         "pin_memory=True, persistent_workers=True, prefetch_factor); tf.data: map(num_parallel_calls=AUTOTUNE), "
         "prefetch(AUTOTUNE)); if it reads storage, cache the data or move it to local NVMe; cache expensive "
         "preprocessing once instead of repeating it every epoch."},
    [R_SLOW_RANK] = {.id = "slow-rank", .severity = SEV_WARNING, .needs_window = true, .applies = p_slow_rank,
        .evidence = rules_ev_slow_rank, .title = "one process of the job is slower than the others",
        .when = "in a job of several processes, the slowest one on this GPU has a p50 step at least {rank.slow} the median of the others', or its share of time waiting for input is at least {steps.wait} above theirs, and no process ranked slower is slow",
        .advice = "In data-parallel training every step waits for the slowest rank: look at what differs on it (its input "
         "shard or data loader, its GPU's clocks and temperature, another process on its GPU or CPU cores)."},
    [R_STEPS_SLOWING] = {.id = "steps-slowing", .severity = SEV_WARNING, .needs_window = true, .applies = p_steps_slowing,
        .evidence = rules_ev_slowing, .title = "training steps take longer than earlier in the run",
        .when = "the p50 step is at least {steps.slower} the fastest p50 of an earlier full window of the run, and the GPU does less than then: utilization or SM activity or its clock {steps.less_busy} lower, the wait share that much higher, or throttled (else each step does more work)",
        .advice = "Steps slowed down mid-run: look for throttling (clocks, temperature), memory fragmentation or a growing "
         "graph (tensors kept across steps), a dataset shard on slower storage, or other jobs on the node."},
    [R_SLOW_NODE] = {.id = "slow-node", .severity = SEV_WARNING, .needs_window = true, .applies = p_slow_node,
        .evidence = rules_ev_slow_node, .title = "this node's GPUs run well below the other nodes'",
        .when = "in a diagnosis of several nodes' logs, the median utilization of this node's GPUs in use is at least {straggler.gap} below the median of the other nodes'",
        .advice = "In a multi-node job every step waits for the slowest node: check its network (link errors, the NCCL "
         "transport: NCCL_DEBUG=INFO; a node falling back to TCP instead of InfiniBand/RoCE), its GPUs' clocks and "
         "temperature, and its input (local disk, data loader, CPU)."},
    [R_STRAGGLER] = {.id = "straggler", .severity = SEV_WARNING, .needs_window = true, .applies = p_straggler,
        .yields_to = RULE_BIT(R_SLOW_NODE),
        .evidence = rules_ev_straggler, .title = "well below its peers",
        .when = "the GPU is in use by the job (not a GPU its processes left, memory freed) and its mean utilization is at least {straggler.gap} below the median of the busy peer GPUs, not in its start-up (as the input rules: {startup.seconds}, and on while its memory grows)",
        .advice = "In data-parallel training every step waits for the slowest GPU: check this GPU's clocks, temperature and "
         "PCIe link, uneven data sharding, or another process sharing it."},
    [R_BUSY_UNDERUSED] = {.id = "busy-underused", .severity = SEV_WARNING, .needs_window = true, .applies = p_busy_underused,
        .evidence = rules_ev_plain, .title = "busy by utilization, but few SMs work: small kernels",
        .when = "GPM covers the window, utilization mean is at least {healthy.util} (or at least {low.util}, not swinging) but SM activity under {sm.low}, DRAM bandwidth under {dram.high}, no pause in the window, a kernel waited (SMs and DRAM under {sm.idle}) less than {swing.idle_share} of it, and not in the start-up",
        .advice = "Utilization counts time with any kernel running, not how much of the GPU it fills. Give each kernel more "
         "work: a larger batch; compile to fuse kernels and cut launch overhead (XLA: tf.function(jit_compile=True); "
         "PyTorch: torch.compile, CUDA graphs); remove host synchronizations in the step (.item(), .cpu(), printing "
         "or logging tensors every step)."},
    [R_NO_TENSOR] = {.id = "no-tensor-cores", .severity = SEV_WARNING, .needs_window = true, .applies = p_no_tensor,
        .evidence = rules_ev_plain, .title = "the SMs are busy but the tensor cores idle",
        .when = "GPM covers the window, SM activity is at least {sm.busy} and tensor-core activity at most {tensor.low}",
        .advice = "The math runs in FP32 on the ordinary pipes: use mixed precision (Keras: "
         "tf.keras.mixed_precision.set_global_policy(\"mixed_float16\"); PyTorch: torch.autocast(\"cuda\", "
         "dtype=torch.bfloat16)) or at least TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
         "torch.set_float32_matmul_precision(\"high\")); tensor cores are several times faster."},
    [R_SMALL_BATCH] = {.id = "small-batch", .severity = SEV_WARNING, .needs_window = true, .applies = p_small_batch,
        .yields_to = RULE_BIT(R_INPUT_WAIT) | RULE_BIT(R_STRAGGLER),
        .evidence = rules_ev_plain, .title = "steady low utilization: small batch or launch-bound",
        .when = "the GPU is in use with steady (p95 - p5 at most {steady.spread}) and low (from {idle.util} to under {low.util}) utilization, not swinging, not in the start-up, the job's CPU not saturated and no iowait",
        .advice = "The kernels are too small to fill the GPU: raise the batch size, compile (XLA: tf.function(jit_compile=True); "
         "PyTorch: torch.compile, CUDA graphs), use mixed precision to make room for larger batches."},
    [R_PREALLOC] = {.id = "tf-prealloc", .severity = SEV_INFO, .needs_window = true, .applies = p_prealloc,
        .evidence = rules_ev_prealloc, .title = "memory pre-allocated by the framework, not a leak",
        .when = "memory reached at least {memory.high} within {prealloc.rise_s} of first use and stays flat (it moved less than {memory.rise})",
        .advice = "TensorFlow reserves nearly all GPU memory at start-up; this is its allocator, not real use. To see real "
         "use: tf.config.experimental.set_memory_growth(gpu, True) (or TF_FORCE_GPU_ALLOW_GROWTH=true)."},
    [R_MEMORY_BOUND] = {.id = "memory-bound", .severity = SEV_INFO, .needs_window = true, .applies = p_memory_bound,
        .evidence = rules_ev_plain, .title = "limited by memory bandwidth, not by math",
        .when = "GPM covers the window, utilization mean is at least {low.util}, and DRAM bandwidth at least {dram.saturated} of peak whatever the SMs do, or at least {dram.high} with SM activity under {sm.busy}; healthy may stand beside it",
        .advice = "DRAM bandwidth is the limit: fuse element-wise kernels (torch.compile, XLA), keep activations in "
         "bf16/fp16, use a larger batch so weights are reused, prefer fused optimizers and attention kernels "
         "(FlashAttention); bandwidth-bound phases such as embedding lookups may simply be what the model is."},
    [R_INPUT_WAIT_SOME] = {.id = "input-wait-some", .severity = SEV_INFO, .needs_window = true, .applies = p_input_wait_some,
        .yields_to = RULE_BIT(R_INPUT_WAIT),
        .evidence = rules_ev_input_wait, .title = "the training loop waits for its input part of the time (the job's step timing)",
        .when = "the job reports its steps and its loop waited for input at least {steps.wait_some} of its time",
        .advice = "Moderately input-bound (5-20% of the time waiting for input): more prefetching (prefetch(AUTOTUNE), "
         "DataLoader prefetch_factor) or one or two more loader workers would hide the rest."},
    [R_STEP_JITTER] = {.id = "step-jitter", .severity = SEV_INFO, .needs_window = true, .applies = p_step_jitter,
        .evidence = rules_ev_steps, .title = "step times vary widely",
        .when = "the job reports its steps and the p95 step is at least {steps.jitter} the p50",
        .advice = "Uneven steps: variable input sizes (bucket by length), a data loader that stalls now and then, garbage "
         "collection, or work done every N steps (logging, evaluation, checkpoints) inside the loop."},
    [R_PAUSE] = {.id = "pause", .severity = SEV_INFO, .needs_window = true, .applies = p_pause,
        .evidence = rules_ev_pause, .title = "a pause between busy stretches (checkpoint, evaluation, epoch start)",
        .when = "the GPU is in use, with one or two stops (idle stretches of at least {pause.seconds}, quiet blips inside them forgiven) that each came at least {pause.apart} after the previous one (not the stop its records began in: nothing was seen busy before it), busy at least {healthy.util} around them and idle under {swing.idle_share} besides, not in the start-up; said once it is busy again, while the window holds them",
        .advice = "A one-off or periodic stop is not an input stall. If it is checkpointing, save asynchronously "
         "(torch.distributed.checkpoint.async_save, Orbax async checkpoints) or less often; at an epoch's start, keep "
         "DataLoader workers alive (persistent_workers=True); nothing to fix if it is evaluation."},
    [R_NOTEBOOK_IDLE] = {.id = "notebook-idle", .severity = SEV_INFO, .needs_window = false, .yields_to = RULE_BIT(R_GPU_LOST),
        .applies = p_notebook_idle, .evidence = rules_ev_stalled,
        .title = "a notebook kernel holds the GPU's memory between cells",
        .when = "idle for at least {stall.seconds} (its memory not growing: as stalled) while holding at least {stall.memory} of memory or a process, and every process on the GPU is a notebook's kernel (ipykernel, Colab, Spyder): a notebook between cells, not a hung job",
        .advice = "Nothing runs while the notebook waits for its next cell, but its memory stays taken and other jobs "
         "cannot use it: free what you are done with (del the tensors, then torch.cuda.empty_cache(); TensorFlow keeps "
         "it until the kernel restarts) and shut the kernel down when you are finished."},
    [R_SERVER_IDLE] = {.id = "server-idle", .severity = SEV_INFO, .needs_window = false, .yields_to = RULE_BIT(R_GPU_LOST),
        .applies = p_server_idle, .evidence = rules_ev_stalled,
        .title = "an inference server holds its model, waiting for requests",
        .when = "idle for at least {stall.seconds} (its memory not growing: as stalled) while holding at least {stall.memory} of memory or a process, and every process on the GPU is an inference server (Triton, vLLM, Text Generation Inference, TorchServe, TensorFlow Serving, SGLang, LMDeploy, TensorRT-LLM, Ray Serve, llama.cpp, Ollama): no requests, not a hung job",
        .advice = "The server keeps its model in memory to answer the next request at once. If it stays this quiet, "
         "serve the model from fewer GPUs, share the GPU (MIG, MPS, several models per server), or scale the "
         "deployment to zero when idle; if it should be busy, check that requests reach it."},
    [R_IDLE] = {.id = "idle", .severity = SEV_INFO, .needs_window = true, .applies = p_idle,
        .evidence = rules_ev_idle, .title = "nothing runs on the GPU",
        .when = "nothing runs: utilization mean under {idle.util}, sub-second peaks under {busy.util}, memory held under {stall.memory} and no process",
        .advice = "Nothing to fix if no job was meant "
         "to run here; otherwise check that the job sees this GPU (CUDA_VISIBLE_DEVICES)."},
    [R_HEALTHY] = {.id = "healthy", .severity = SEV_OK, .needs_window = true, .applies = p_healthy,
        .yields_to_problems = true,
        .evidence = rules_ev_plain, .title = "the GPU is kept busy",
        .when = "utilization mean is at least {healthy.util}, and SM activity at least {sm.low} where GPM covers the window",
        .advice = "Nothing to change."},
};
const int rule_count = R_COUNT;

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

void rules_analyze_config(const struct rule_config *c, struct analyze_config *out)
{
    memset(out, 0, sizeof *out);
    out->window_s = c->window_s;
    for (int i = 0; i < T_COUNT; i++)
        if (rules_thresholds[i].analysis)
            memcpy((char *)out + rules_thresholds[i].analysis, &c->t[i], sizeof c->t[i]);
}

void rules_evaluate(const struct analyze_gpu_stats *s, const struct rule_config *c, bool *active,
                    struct sbuf *evidence)
{
    uint64_t held = 0;
    bool problem = false;
    for (int i = 0; i < rule_count; i++) {
        const struct rule *r = &rule_table[i];
        bool aside = (r->yields_to & held) || (r->yields_to_problems && problem);
        active[i] = !aside && !(r->needs_window && (!s->enough || s->lost)) && r->applies(s, c);
        if (!active[i])
            continue;
        held |= RULE_BIT(i);
        problem |= r->severity >= SEV_WARNING;
        if (evidence) {
            sbuf_reset(&evidence[i]);
            r->evidence(s, c, &evidence[i]);
        }
    }
}

const char *rules_advice(int r, bool job_watched)
{
    return job_watched && rule_table[r].advice_watched ? rule_table[r].advice_watched : rule_table[r].advice;
}

const char *rules_severity_name(enum rule_severity s)
{
    return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : s == SEV_INFO ? "info" : "ok";
}
