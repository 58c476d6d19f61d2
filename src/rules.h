/*
 * rules.h: the diagnosis rules and their thresholds, both as data.
 *
 * A rule is a row { id, severity, whether it needs a full window, predicate
 * over the per-GPU stats (analyze.h), evidence formatter, title, advice };
 * rules.c holds the one table. Thresholds are another table (name, default,
 * unit, meaning) that --threshold NAME=VALUE changes and --list-rules
 * prints; the statistics read a few of them too (what counts as idle).
 * Wording lives in rules.c only; analyze.c computes figures, never words.
 */
#ifndef GPUMON_RULES_H
#define GPUMON_RULES_H

#include <stdbool.h>
#include "util.h"

/* X(ID, name, default, unit, meaning) */
#define RULE_THRESHOLDS(X) \
    X(T_HEALTHY_UTIL, "healthy.util", 70, "%", "mean utilization at or above which the GPU is well used") \
    X(T_LOW_UTIL, "low.util", 50, "%", "mean utilization below which the GPU is under-used") \
    X(T_IDLE_UTIL, "idle.util", 5, "%", "utilization below which a sample counts as idle") \
    X(T_BUSY_UTIL, "busy.util", 40, "%", "sub-second peak at or above which an idle/busy swing counts") \
    X(T_SWING_IDLE, "swing.idle_share", 10, "%", "idle share from which utilization swings (below: steady)") \
    X(T_SWING_GAPS, "swing.gaps", 3, "", "idle gaps in the window needed for a swing") \
    X(T_STEADY_SPREAD, "steady.spread", 30, "points", "p95 - p5 utilization at most this for steady use") \
    X(T_CPU_SATURATED, "cpu.saturated", 90, "%", \
      "job CPU saturated: busiest process at this share of one core, or the tree at this share of all CPUs") \
    X(T_IOWAIT, "iowait.high", 10, "%", "host iowait at or above which input is I/O-bound") \
    X(T_JOB_READ, "job.read", 1024, "KB/s", \
      "storage reads of the job (gpumon run) from which host iowait is its own; below: a neighbour's") \
    X(T_MEM_HIGH, "memory.high", 90, "%", "memory used, share of total, that counts as near full") \
    X(T_MEM_RISE, "memory.rise", 2, "%", "growth over the window, share of total, that counts as rising") \
    X(T_OOM_MEM, "oom.memory", 95, "%", "memory share just before a process ended that means out of memory") \
    X(T_PREALLOC_RISE, "prealloc.rise_s", 5, "s", "first use to near full within this time: pre-allocation") \
    X(T_THROTTLE_SHARE, "throttle.share", 20, "%", "share of the window with a throttle reason active") \
    X(T_STRAGGLER_GAP, "straggler.gap", 20, "points", "utilization this far below the median of busy peers") \
    X(T_STALL_S, "stall.seconds", 120, "s", "idle this long while holding memory: stalled") \
    X(T_STALL_MEM, "stall.memory", 5, "%", "memory share that counts as held") \
    X(T_SM_LOW, "sm.low", 50, "%", "SM activity (GPM) below which a busy GPU is underused; healthy needs at least this") \
    X(T_SM_BUSY, "sm.busy", 60, "%", "SM activity (GPM) from which the SMs count as busy") \
    X(T_TENSOR_LOW, "tensor.low", 5, "%", "tensor-core activity (GPM) at or below which the tensor cores sit unused") \
    X(T_DRAM_HIGH, "dram.high", 70, "%", "DRAM bandwidth (GPM, share of peak) from which the job is memory-bound") \
    X(T_STARTUP_S, "startup.seconds", 60, "s", "after a job starts on a GPU, its start-up: no input verdicts yet") \
    X(T_PAUSE_S, "pause.seconds", 5, "s", "one idle stretch this long between busy stretches is a pause, not a stall") \
    X(T_STEPS_MIN, "steps.min", 10, "", "steps with a known input wait in the window needed for step verdicts") \
    X(T_STEPS_WAIT, "steps.wait", 20, "%", \
      "share of the loop's time waiting for input from which it is input-bound (TensorFlow Profiler: highly)") \
    X(T_STEPS_WAIT_SOME, "steps.wait_some", 5, "%", "share of the loop's time waiting for input: moderately input-bound") \
    X(T_STEPS_JITTER, "steps.jitter", 2, "x", "p95 step time this many times the p50 or more: uneven steps") \
    X(T_STEPS_SLOWER, "steps.slower", 1.3, "x", "p50 step time this many times the run's best window: slowing down") \
    X(T_RANK_SLOW, "rank.slow", 1.25, "x", "a process's p50 step time this many times the others' median: a slow rank") \
    X(T_MIN_COVERAGE, "min.coverage", 80, "%", "share of the window that data must cover before a verdict") \
    X(T_MIN_SAMPLES, "min.samples", 5, "", "samples needed in the window before a verdict")

enum rule_threshold {
#define RULE_T_ENUM(id, ...) id,
    RULE_THRESHOLDS(RULE_T_ENUM)
#undef RULE_T_ENUM
    T_COUNT
};

enum rule_severity { SEV_OK, SEV_INFO, SEV_WARNING, SEV_CRITICAL };

struct rule_config {
    double window_s;
    double t[T_COUNT];
};

struct analyze_gpu_stats;

struct rule {
    const char *id;
    enum rule_severity severity;
    bool needs_window;   /* false: an event rule, judged on whatever data there is */
    bool (*applies)(const struct analyze_gpu_stats *s, const struct rule_config *c);
    void (*evidence)(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b);
    const char *title, *advice;
};

extern const struct rule rule_table[];
extern const int rule_count;
#define RULE_MAX 32

/* Defaults: a 30 s window and every threshold's default. */
void rules_defaults(struct rule_config *c);
/* Applies "NAME=VALUE". Returns 0, or -1 with a message. */
int rules_set_threshold(struct rule_config *c, const char *assignment, char *err, size_t errlen);
/* Evaluates every rule for one GPU: active[i] for rule_table[i]; the
 * evidence of each active rule goes into evidence[i] (caller's sbufs).
 * An OK-severity rule holds only when no warning or critical one does. */
void rules_evaluate(const struct analyze_gpu_stats *s, const struct rule_config *c, bool *active,
                    struct sbuf *evidence);
const char *rules_severity_name(enum rule_severity s);
/* Rule r's advice, for a verdict whose evidence had the job's process figures (job_watched: gpumon run,
 * or its log) or not: where knowing them changes what to do, the advice says so. */
const char *rules_advice(int r, bool job_watched);
/* Prints rules and thresholds (--list-rules). */
void rules_print(const struct rule_config *c);
/* The meaning of an XID code and whether it is critical (hardware or
 * driver) rather than an application fault. */
const char *rules_xid_meaning(unsigned code, bool *critical);
/* Why GPM figures are missing, from the NVML code the log holds (-1: the log has no GPM fields). */
const char *rules_gpm_why(int code);

#endif
