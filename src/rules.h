/*
 * rules.h: the diagnosis rules and their thresholds, both as data: the
 * analysis measures (analyze.h), the rules decide.
 *
 * A rule is a row of rule_table (rules.c): { id, severity, whether it
 * needs a full window, predicate over the per-GPU window figures, the rules
 * it stands aside for, evidence formatter, title, advice }. Precedence is
 * that column, not a condition inside another rule's predicate: a rule
 * holds when its predicate does and none of the rules it yields to (listed
 * above it in the table) holds. Thresholds are another table (name,
 * default, unit, meaning, and whether the analysis reads it to measure)
 * that --threshold NAME=VALUE changes; the thresholds that decide verdicts
 * are read by the rules alone. --list-rules prints both tables as text,
 * Markdown (docs/rules.md) or a man page section (man/gpumon.1), so the
 * documentation is the table. Wording lives in rules.c and
 * rules_evidence.c only.
 */
#ifndef GPUMON_RULES_H
#define GPUMON_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "analyze.h"
#include "util.h"

enum rule_threshold {
    T_HEALTHY_UTIL, T_LOW_UTIL, T_IDLE_UTIL, T_BUSY_UTIL, T_SWING_IDLE, T_SWING_GAPS, T_STEADY_SPREAD,
    T_CPU_SATURATED, T_IOWAIT, T_JOB_READ, T_MEM_HIGH, T_MEM_RISE, T_OOM_MEM, T_PREALLOC_RISE, T_THROTTLE_SHARE,
    T_STRAGGLER_GAP, T_STALL_S, T_STALL_MEM, T_STALL_GROWTH, T_SM_LOW, T_SM_BUSY, T_SM_IDLE, T_TENSOR_LOW, T_DRAM_HIGH,
    T_DRAM_SAT, T_STARTUP_S, T_STARTUP_MAX, T_STARTUP_GROWTH, T_PAUSE_S, T_PAUSE_APART, T_STEPS_MIN, T_STEPS_WAIT,
    T_STEPS_WAIT_SOME, T_STEPS_JITTER, T_STEPS_SLOWER, T_STEPS_LESS, T_RANK_SLOW,
    T_MIN_COVERAGE, T_MIN_SAMPLES,
    T_COUNT
};

/* A threshold: one row of rules_thresholds (rules.c). */
struct rule_threshold_row {
    const char *name, *unit, *meaning;
    double def;
    size_t analysis;   /* offsetof its field in struct analyze_config: the analysis measures with it; 0: not */
};
extern const struct rule_threshold_row rules_thresholds[T_COUNT];

/* The rules, most severe first (the table's order; a rule yields only to rules above it). */
enum rule_id {
    R_GPU_LOST, R_XID_CRITICAL, R_ECC, R_OOM, R_STALLED, R_XID_APP, R_RESET_NEEDED, R_THERMAL, R_POWER, R_MEM_PRESSURE,
    R_INPUT_IO, R_INPUT_CPU, R_INPUT_SWING, R_INPUT_WAIT, R_SLOW_RANK, R_STEPS_SLOWING, R_SLOW_NODE,
    R_STRAGGLER, R_BUSY_UNDERUSED, R_NO_TENSOR, R_SMALL_BATCH, R_PREALLOC, R_MEMORY_BOUND, R_INPUT_WAIT_SOME,
    R_STEP_JITTER, R_PAUSE, R_NOTEBOOK_IDLE, R_SERVER_IDLE, R_IDLE, R_HEALTHY,
    R_COUNT
};
#define RULE_BIT(r) (UINT64_C(1) << (r))
#define RULE_MAX 64   /* rules fit a uint64_t of RULE_BITs */
_Static_assert(R_COUNT <= RULE_MAX, "more rules than a yields_to mask holds");

enum rule_severity { SEV_OK, SEV_INFO, SEV_WARNING, SEV_CRITICAL };

struct rule_config {
    double window_s;
    double t[T_COUNT];
};

struct rule {
    const char *id;
    enum rule_severity severity;
    bool needs_window;      /* false: an event rule, judged on whatever data there is */
    bool (*applies)(const struct analyze_gpu_stats *s, const struct rule_config *c);
    uint64_t yields_to;     /* RULE_BITs of the rules (above it) it stands aside for when they hold */
    bool yields_to_problems;   /* it stands aside for any warning or critical verdict */
    void (*evidence)(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b);
    const char *title, *advice;
    const char *advice_watched;   /* the advice where the job's process figures were watched (gpumon run or
                                   * its log), when knowing them changes it; NULL: .advice fits either way */
    const char *when;       /* what its predicate asks, in words, for the documentation */
};

extern const struct rule rule_table[R_COUNT];
extern const int rule_count;

/* Defaults: a 30 s window and every threshold's default. */
void rules_defaults(struct rule_config *c);
/* Applies "NAME=VALUE". Returns 0, or -1 with a message. */
int rules_set_threshold(struct rule_config *c, const char *assignment, char *err, size_t errlen);
/* What the analysis measures with: the window and the thresholds whose rows name an analysis field. */
void rules_analyze_config(const struct rule_config *c, struct analyze_config *out);
/* Evaluates every rule for one GPU: active[i] for rule_table[i]; the
 * evidence of each active rule goes into evidence[i] (caller's sbufs, may
 * be NULL). A rule holds when its predicate does (a window rule: on a full
 * window of a GPU not lost) and no rule it yields to holds. */
void rules_evaluate(const struct analyze_gpu_stats *s, const struct rule_config *c, bool *active,
                    struct sbuf *evidence);
const char *rules_severity_name(enum rule_severity s);
/* What the rules make of a GPU's stops (analyze.h: idle stretches of pause.seconds or more), for the
 * rules themselves and for whoever splits GPU time by cause (the ledger): a stop that came pause.apart or
 * more after the previous one (or the log's start) is an isolated pause; sooner, a stop that recurs: the
 * input stall itself. rules_stop_kind: what the window's stops are (none, pauses, or recurring: one that
 * recurs makes them all the input's). */
enum rule_stop { RULE_STOP_NONE, RULE_STOP_PAUSE, RULE_STOP_RECURS };
bool rules_stop_is_pause(const struct analyze_stop *st, const struct rule_config *c);
/* The job's start-up still allocates on this GPU past its first startup.seconds: its memory grows by
 * memory.rise of the GPU or startup.growth of what it holds (compilation, autotuning), up to startup.max from
 * its start (the rules' start-up beyond startup.seconds; the ledger's: bursts of work meanwhile are not yet
 * its sustained work; in the first seconds the first allocation is growth too, and a job starved from its
 * first step works in bursts then). */
bool rules_allocating(const struct analyze_gpu_stats *s, const struct rule_config *c);
enum rule_stop rules_stop_kind(const struct analyze_gpu_stats *s, const struct rule_config *c);
/* Rule r's advice, for a verdict whose evidence had the job's process figures (job_watched: gpumon run,
 * or its log) or not: where knowing them changes what to do, the advice says so. */
const char *rules_advice(int r, bool job_watched);

/* --list-rules: the rule and threshold tables with c's values, as text (rules_print: on standard output),
 * Markdown (docs/rules.md's tables) or man(7) (man/gpumon.1's rules section). */
enum rules_doc_format { RULES_DOC_TEXT, RULES_DOC_MARKDOWN, RULES_DOC_MAN };
void rules_print(const struct rule_config *c);
void rules_print_doc(FILE *out, const struct rule_config *c, enum rules_doc_format format);

/* The meaning of an XID code and whether it is critical (hardware or
 * driver) rather than an application fault. */
const char *rules_xid_meaning(unsigned code, bool *critical);
/* Why GPM figures are missing, from the NVML code the log holds (-1: the log has no GPM fields). */
const char *rules_gpm_why(int code);

#endif
