/*
 * diag.h: one diagnosis session, the single path every command takes:
 * records in (from the sampler in `run`, from logread in `diagnose` and
 * `report`), the analysis' window figures (analyze.h), the rules' verdicts
 * (rules.h), and a history of each verdict per GPU (when it first held,
 * for how long, its latest evidence). Each change of a verdict is passed
 * to a callback as it happens; at the end the summary is written as text
 * or JSON (diag_summary.c: each GPU's whole-run figures, struct
 * analyze_summary, rendered from one table of rows, which the report's
 * table walks too). Rules are judged at most every min(1 s, window/30) of
 * record time, and once more at the end, so cost does not grow with the
 * sampling rate. Memory grows with the GPUs, not with the run.
 */
#ifndef GPUMON_DIAG_H
#define GPUMON_DIAG_H

#include <stdbool.h>
#include "analyze.h"
#include "rules.h"
#include "util.h"

struct diag_change {
    double t;                 /* record time, seconds since the epoch */
    double since_start;       /* seconds since the first record */
    unsigned gpu;             /* GPU index */
    unsigned slot;            /* the analyzer's number of the GPU (analyze.h: in order of appearance) */
    int rule;                 /* index into rule_table */
    bool active;              /* true: the verdict starts; false: it ends */
    const char *evidence;     /* when it starts */
    const char *node;         /* the GPU's hostname in a diagnosis of several nodes; NULL with one */
};

typedef void diag_change_fn(void *ctx, const struct diag_change *ch);

#define DIAG_EVIDENCE_MAX 640   /* a verdict's evidence is cut to 639 bytes */

struct diag_verdict {
    bool active, ever;
    double first_t, last_t, active_s;
    unsigned starts;
    const char *evidence;     /* the latest while it held: "" before the first start, else at most
                                 DIAG_EVIDENCE_MAX - 1 bytes (the diag's own storage, until diag_free) */
    bool job_watched;         /* that evidence had the job's process figures (rules_advice) */
};

struct diag;

/* fn may be NULL. The config is copied; the analysis measures with rules_analyze_config's part of it. */
struct diag *diag_new(const struct rule_config *c, diag_change_fn *fn, void *ctx);
void diag_free(struct diag *d);
void diag_feed(struct diag *d, const struct record *r);
/* Judges the latest data once more (call after the last record). */
void diag_finish(struct diag *d);
const struct analyzer *diag_analyzer(const struct diag *d);
/* Verdict history of the i-th GPU seen (the analyzer's order) for rule r. */
const struct diag_verdict *diag_verdict(const struct diag *d, unsigned i, int r);
/* The window figures of the i-th GPU at the latest judgement (NULL before the first). */
const struct analyze_gpu_stats *diag_stats(const struct diag *d, unsigned i);
/* Whether the i-th GPU ever had enough data for window rules. */
bool diag_had_enough(const struct diag *d, unsigned i);
/* The session's rules and window; the time of its first record (0 before any). */
const struct rule_config *diag_config(const struct diag *d);
double diag_first_time(const struct diag *d);
/* GPU time by cause (ledger.h), of the records fed so far (decided up to the end by diag_finish). */
struct ledger;
const struct ledger *diag_ledger(const struct diag *d);
/* The price of a GPU-hour, for the ledger's money (0: none); its value. */
void diag_set_cost(struct diag *d, double per_gpu_hour);
double diag_cost(const struct diag *d);
/* One line for a change, without a newline: "+35s GPU 0 warning input-bound-cpu: ...". */
void diag_change_line(const struct diag_change *ch, struct sbuf *b);
/* diag_summary.c. The end-of-run summary: per GPU its whole-run figures, then the verdicts with
 * evidence and advice; the nodes, the job's steps and the accounting. */
void diag_summary_text(const struct diag *d, struct sbuf *b);
void diag_summary_json(const struct diag *d, struct sbuf *b);
/* The verdicts grouped: for each rule that held on some GPU (the table's order), its GPUs ("GPUs 0-3, 5";
 * nodes named in a diagnosis of several), when it held over them ("held 120-127 s, first at +24 s, still
 * at the end"), and one evidence text per set of GPUs whose evidence has the same words, its figures that
 * differ as ranges (ev_gpus[i]: that set, "" when all of them say the same). */
struct diag_group {
    int rule;
    bool job_watched;         /* its advice (rules_advice): the first GPU's evidence had the job's figures */
    const char *gpus, *when;
    unsigned nev;
    const char *const *ev_gpus, *const *ev_text;
};
typedef void diag_group_fn(void *ctx, const struct diag_group *g);
void diag_groups(const struct diag *d, diag_group_fn *fn, void *ctx);
/* The groups as the text summary says them (after "Verdicts:"), and as its JSON member
 * ,"verdict_groups":[...] (docs/schemas.md). */
void diag_groups_text(const struct diag *d, struct sbuf *b);
void diag_groups_json(const struct diag *d, struct sbuf *b);
/* The whole-run figures of every GPU as the report's table, a row each. */
void diag_summary_html_table(const struct diag *d, struct sbuf *b);

#endif
