/*
 * analyze_int.h: what the analysis' files share: a GPU's window of points
 * and its history (analyze.c feeds them), the reductions of the figure
 * tables over them (analyze_fig.c), the figures computed by functions of
 * their own (analyze_window.c), and a node's windows, its host figures and
 * the steps its processes report (analyze_node.c).
 */
#ifndef GPUMON_ANALYZE_INT_H
#define GPUMON_ANALYZE_INT_H

#include "analyze.h"
#include "metrics.h"

/* One record of one GPU: a number per column (NAN unknown) and the few integer facts. */
struct analyze_point {
    double t;
    float v[AC_COUNT];
    int64_t ecc_uncorr;              /* -1 unknown */
    int32_t reasons;                 /* clock event reasons mask; -1 unknown */
    int16_t procs;                   /* -1 unknown */
    int16_t gpm_code;                /* 0 GPM known, NVML code why not, -1 not in the record */
    uint8_t lost;
};

/* Where a column comes from: a metric of the record (scaled), or the job's steps (stepstat.h). */
struct analyze_column {
    enum metric_id metric;
    float div;                       /* divided by this (0: as it is) */
    bool from_steps;
};
extern const struct analyze_column analyze_columns[AC_COUNT];

/* A running reduction (enum analyze_how) of one column. */
struct analyze_acc {
    double n, sum, min, max, last;
    double st, sv, stt, stv;         /* least squares: sums of t, v, t*t, t*v (t from the window's start) */
};

#define ANALYZE_RUN_ACCS 16          /* >= rows of analyze_run_figures (checked there) */

/* Whole-run accumulators of one GPU. */
struct analyze_run {
    double first_t, last_t;
    unsigned long long samples, n_util;
    unsigned long long hist[101];    /* records per whole-percent utilization */
    double idle_sum;                 /* sum of per-record idle shares (%) */
    double throttled_s;
    int gpm_code;                    /* latest reason GPM was missing (NVML code); 0 ok, -1 never logged */
    struct analyze_acc acc[ANALYZE_RUN_ACCS];   /* by row of analyze_run_figures */
};

struct analyze_gpu {
    unsigned index;
    unsigned node;                   /* its node (analyzer's nodes[]) */
    char name[96], uuid[96];         /* uuid "": the records do not say */
    char who[320];                   /* its jobs, users, containers, pods when last known ("" never) */
    struct analyze_point *ring;
    unsigned cap, head, n;
    unsigned long long hist[101], hist_max[101];
    unsigned long long n_util, n_max;
    double mem_first_use_t, mem_high_t, idle_since, lost_t;
    double job_start_t;              /* memory went from unused to used here (a start seen); 0 none */
    double best_p50, best_t;         /* fastest step p50 of a full window so far; 0 none */
    unsigned long long best_set;     /* of this set of processes (stepstat_gpu_set): a new job starts afresh */
    double acct_t, acct_energy;      /* the previous record's time and energy counter (accounting) */
    bool seen_unused;                /* a record without memory in use came before */
    unsigned nxid;
    struct { unsigned code; unsigned long long count; double last_t; } xid[RECORD_MAX_XIDS];
    struct analyze_run run;
};

struct analyze_host_point {
    double t;
    float job_cpu, job_top, job_rss, iowait, ncpus, job_read;
    int32_t job_procs;
};

/* One node (a hostname of the records): the host's window and its processes' steps. */
struct analyze_node {
    char name[64];
    struct analyze_host_point *host;
    unsigned hcap, hhead, hn;
    struct stepstat *steps;
};

struct analyzer {
    struct analyze_config cfg;
    double now;
    unsigned ngpus, gcap;
    struct analyze_gpu **gpus;       /* in order of first appearance; grows with the GPUs */
    unsigned nnodes, ncap;
    struct analyze_node *nodes;      /* by hostname: host windows and steps */
    unsigned *last_gpu;              /* the record's i-th GPU: its analyzer number (analyze_gpu_of) */
    unsigned nlast, lastcap;
    unsigned long long thermal_mask, power_mask;   /* clock_reasons.h's groups */
    struct account *account;
    struct sbuf who;                 /* analyze_who's buffer */
};

/* The k-th point of g's window (0: the oldest). */
static inline const struct analyze_point *analyze_at(const struct analyze_gpu *g, unsigned k)
{
    return &g->ring[(g->head + k) % g->cap];
}

/* Grows a ring of n elements of sz bytes when full (up to ANALYZE_MAX_POINTS), unrolling it. */
void *analyze_ring_grow(void *ring, size_t sz, unsigned *cap, unsigned *head, unsigned n);
float analyze_num(const struct value *v, enum metric_id id);
int analyze_cmp_double(const void *x, const void *y);
/* The median of n values (sorts them); NAN of none. */
double analyze_median(double *v, unsigned n);
/* The median of the n ascending values with one occurrence of x taken out: the others' median in O(1);
 * NAN when x is not among them or none is left. */
double analyze_median_but(const double *sorted, unsigned n, double x);
/* The k-th smallest of n values (0-based; they are reordered), as a sort would give it, in O(n). */
double analyze_nth(double *v, unsigned n, unsigned k);

/* analyze_fig.c: the rows' reductions. */
void analyze_acc_add(struct analyze_acc *acc, double t, double v);
/* The window figures the rows of analyze_window_figures describe (all but AH_CUSTOM), into s. */
void analyze_window_reduce(const struct analyze_gpu *g, struct analyze_gpu_stats *s);
/* A record's point into the GPU's whole-run accumulators. */
void analyze_run_add(struct analyze_run *run, const struct analyze_point *p);
/* The whole-run figures the rows of analyze_run_figures describe, into out. */
void analyze_run_reduce(const struct analyze_run *run, struct analyze_summary *out);

/* analyze_window.c: the figures computed by functions of their own. */
void analyze_window_stats(const struct analyzer *a, struct analyze_gpu *g, struct analyze_gpu_stats *s);
/* Across GPUs: the slowest process of a job, peers, nodes. */
void analyze_window_across(struct analyzer *a, struct analyze_gpu_stats *out);

/* analyze_node.c. The node of hostname (created on first sight). */
struct analyze_node *analyze_node_for(struct analyzer *a, const char *hostname);
void analyze_node_free(struct analyze_node *node);
/* Adds a record's host figures and steps (t its time; points before from leave the window). */
void analyze_node_feed(struct analyze_node *node, const struct record *r, double t, double from);
/* The job's CPU, RSS, storage reads and the host's iowait over the window, into s. */
void analyze_node_stats(const struct analyze_node *node, struct analyze_gpu_stats *s);
/* With GPUs on several nodes: each GPU's node against the others. */
void analyze_nodes_compare(const struct analyzer *a, struct analyze_gpu_stats *out);

#endif
