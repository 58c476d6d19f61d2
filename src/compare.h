/*
 * compare.h: two runs side by side (gpumon compare A B, gpumon run
 * --baseline A): what each run's records say of its speed, its input wait,
 * its GPUs' activity and its energy, and for each figure whether B is
 * better, worse, or not clearly different from A, judged against the
 * noise each run shows over its own course (compare.c says how), and the
 * shares of the ledger of GPU time (a diagnosis of each run, as diagnose
 * makes it). It reads records, never a file; the commands feed it.
 */
#ifndef GPUMON_COMPARE_H
#define GPUMON_COMPARE_H

#include <stdbool.h>
#include "record.h"
#include "util.h"

/* One run as compare sees it: records in, in time order. */
struct compare_run;

struct compare_run *compare_run_new(void);
void compare_run_free(struct compare_run *r);
void compare_run_feed(struct compare_run *r, const struct record *rec);
/* After the last record: decides the ledger's undecided time (call once, before compare_runs). */
void compare_run_finish(struct compare_run *r);
unsigned long long compare_run_records(const struct compare_run *r);

/* The figures, in the order they are shown (compare.c's table). */
enum compare_fig {
    CF_DURATION,
    CF_STEPS_PER_S,
    CF_STEP_P50,
    CF_STEP_P95,
    CF_INPUT_WAIT,
    CF_UTIL,
    CF_SM,
    CF_TENSOR,
    CF_ENERGY_STEP,
    CF_LEDGER,                /* the ledger's shares of GPU time: one figure per cause (ledger.h's order) */
    CF_COUNT = CF_LEDGER + 8
};

enum compare_verdict { CV_NONE = 0, CV_SAME, CV_BETTER, CV_WORSE };

struct compare_change {
    double a, b;              /* the figure in each run; NAN: not measured there */
    double change;            /* b / a (a ratio figure) or b - a (a share, in points); NAN */
    double lo, hi;            /* its 95% interval over the runs' noise; NAN: not tested (duration) */
    enum compare_verdict verdict;
    bool short_runs;          /* no verdict but "no clear change": too few records to judge */
    bool other_work;          /* no verdict: the runs did different numbers of steps (the duration) */
};

struct compare_result {
    struct compare_change fig[CF_COUNT];
    unsigned long long records[2], steps[2];
    unsigned gpus[2];
    char summary[512];        /* "1.7x faster, input wait 40% -> 0%" */
};

/* Compares run b against run a (a: before, the baseline). */
void compare_runs(const struct compare_run *a, const struct compare_run *b, struct compare_result *out);
/* The table and the summary line; name_a, name_b: what the runs are called (their logs). */
void compare_text(const struct compare_result *res, const char *name_a, const char *name_b, struct sbuf *b);
/* {"a": {...}, "b": {...}, "change": {FIGURE: {...}}, "summary": "..."} (docs/schemas.md). */
void compare_json(const struct compare_result *res, const char *name_a, const char *name_b, struct sbuf *b);

#endif
