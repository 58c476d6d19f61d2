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
    double dt;                       /* t less the GPU's point before it (its predecessor in any window) */
    float v[AC_COUNT];
    int64_t ecc_uncorr;              /* -1 unknown */
    int32_t reasons;                 /* clock event reasons mask; -1 unknown */
    int16_t procs;                   /* -1 unknown */
    int16_t gpm_code;                /* 0 GPM known, NVML code why not, -1 not in the record */
    uint8_t lost;
    uint8_t spin;                    /* busy by utilization, SMs and DRAM idle (GPM): AC_IDLE is 1 */
    uint8_t quiet;                   /* analyze_quiet's answer, worked out as the point enters */
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

struct analyze_gpu;

/* How the rows of analyze_window_figures reduce a window, worked out once (analyze_plan_make, analyze_fig.c):
 * the (column, gate) pairs, those reduced whole (count, sum, min, max, last) first, then those wanted for
 * their last point alone; the clock-reason rows' masks; the slope rows; the percentiles of the two
 * histograms; and for each row, its slot. */
#define ANALYZE_PLAN_ROWS 64         /* >= rows of analyze_window_figures (checked there) */
#define ANALYZE_PLAN_PAIRS (2 * AC_COUNT)
struct analyze_plan_row {
    const struct analyze_figure *fig;
    int slot;                        /* its pair, reason or slope; -1 none (custom, histogram) */
};
struct analyze_plan {
    unsigned nrows, npairs, nwhole, nreasons, nslopes;
    struct analyze_plan_row row[ANALYZE_PLAN_ROWS];
    enum analyze_col col[ANALYZE_PLAN_PAIRS], gate[ANALYZE_PLAN_PAIRS];
    bool whole[ANALYZE_PLAN_PAIRS];
    unsigned long long reason_mask[ANALYZE_PLAN_ROWS];
    enum analyze_col slope_col[ANALYZE_PLAN_ROWS], slope_gate[ANALYZE_PLAN_ROWS];
    bool slope_later[ANALYZE_PLAN_ROWS];
    unsigned nhist[2];               /* the percentile rows of the utilization histogram and of its peaks' */
    double hist_pct[2][ANALYZE_PLAN_ROWS];
    bool want_min[ANALYZE_PLAN_PAIRS], want_max[ANALYZE_PLAN_PAIRS], want_sum[ANALYZE_PLAN_PAIRS];
};

/* The running figures of a GPU's window (analyze_slide.c), kept as points enter and leave it. */
#ifdef __SIZEOF_INT128__
typedef __int128 analyze_wide;      /* exact sums in units of 2^-24 */
#define ANALYZE_EXACT_SUMS 1
#else
typedef long long analyze_wide;     /* no 128-bit integers: sums are added up point by point */
#define ANALYZE_EXACT_SUMS 0
#endif
struct analyze_extreme {
    double v;
    unsigned long long seq;          /* the point's (analyze_gpu's seq_in when it entered) */
};
struct analyze_deque {               /* candidates for the extreme, the front the window's */
    struct analyze_extreme *e;
    unsigned cap, head, n;
};
struct analyze_wpair {               /* one (column, gate) pair reduced whole, over the points where both are known */
    long long n;
    analyze_wide sum, abs;           /* their sum, and the sum of their magnitudes, exactly, in units of 2^-24 */
    int bad;                         /* values the fixed point cannot hold */
    int frac[25];                    /* values needing f fractional bits */
    unsigned fmask;                  /* bit f: some value needs f fractional bits */
    double last;                     /* the newest (while n > 0) */
    struct analyze_deque min, max;   /* where a row wants them */
};
#define ANALYZE_PLAN_SLOPES 4        /* slope rows kept as below; any more are added up by a pass */
struct analyze_slope_sums {          /* one slope row's points (both columns known): times T as whole seconds from
                                      * the GPU's base, values v whole too (analyze_slide.c) */
    long long n, bad;                /* its points; those not whole numbers as the sums need */
    analyze_wide t, tt, v, tv, av;   /* sums of T, T*T, v, T*v, |v|, exactly */
    unsigned long long front;        /* a later slope's: the oldest point in it (its seq) */
};
struct analyze_slide {
    struct analyze_wpair pair[ANALYZE_PLAN_PAIRS];
    double base;                     /* the GPU's first point's time (based: set) */
    bool based;
    struct analyze_slope_sums slope[ANALYZE_PLAN_SLOPES];
    long long rknown;                /* points with clock event reasons known */
    long long reason[CLOCK_REASON_COUNT];   /* ... with each reason active */
    long long rrow[ANALYZE_PLAN_ROWS];      /* ... with a reason of each AH_REASONS row's group active */
};
/* A point enters (dir 1) or the oldest leaves (dir -1), with its sequence number. */
void analyze_slide(const struct analyze_plan *pl, struct analyze_gpu *g, const struct analyze_point *p,
                   unsigned long long seq, int dir);
/* A pair's sum as a pass over the window in order would add it up, when that is exact; false otherwise
 * (then add it up). */
bool analyze_slide_sum(const struct analyze_wpair *w, double *sum);
/* Slope row k's sums (analyze_acc's n, st, sv, stt, stv) as a pass over the window in order would add them
 * up, when that is exact (t0 the window's first time, tlast its last, half where a later slope starts);
 * false otherwise (then add them up). Moves a later slope's front to half. */
bool analyze_slide_slope(const struct analyze_plan *pl, struct analyze_gpu *g, unsigned k, double t0, double tlast,
                         double half, struct analyze_acc *acc);
void analyze_slide_free(struct analyze_gpu *g);

struct analyze_gpu {
    unsigned index;
    unsigned node;                   /* its node (analyzer's nodes[]) */
    char name[96], uuid[96];         /* uuid "": the records do not say */
    char who[320];                   /* its jobs, users, containers, pods when last known ("" never) */
    struct analyze_point *ring;
    unsigned cap, head, n;
    unsigned long long hist[101], hist_max[101];
    unsigned long long n_util, n_max;
    unsigned long long hist_sum, hist_max_sum;   /* their sums of bin x count: the mean without a walk */
    unsigned long long hist_bits[2], hist_max_bits[2];   /* their bins that hold points: walks skip the rest */
    double mem_first_use_t, mem_high_t, idle_since, lost_t;
    double still_since, still_mem;   /* idle without progress since (0: busy), and the most memory (MiB) since */
    double progress_t;               /* the latest point at which idle memory grew enough to be progress */
    double grow_t[2], grow_mem[2];   /* memory (MiB) at two reference times, ANALYZE_GROW_S apart: the older
                                      * and the newer (mem_growth); 0: none yet */
    double job_start_t;              /* memory went from unused to used here (a start seen); 0 none */
    double best_p50, best_t;         /* fastest step p50 of a full window so far; 0 none */
    unsigned long long best_set;     /* of this set of processes (stepstat_gpu_set): a new job starts afresh */
    double acct_t, acct_energy;      /* the previous record's time and energy counter (accounting) */
    bool last_steps_ok;              /* the latest record: processes on it reported steps (stepstat_latest) */
    double last_steps;               /* and the steps they ended in it */
    bool seen_unused;                /* a record without memory in use came before */
    unsigned nxid;
    struct { unsigned code; unsigned long long count; double last_t; } xid[RECORD_MAX_XIDS];
    struct analyze_run run;
    double best_util, best_sm, best_clock, best_wait;   /* the fastest window's (analyze_gpu_stats) */
    bool notebook;                   /* the latest process list: all notebook kernels */
    bool server;                     /* ... all inference servers */
    unsigned repair;                 /* ANALYZE_REPAIR_* the driver reported last (a record without either
                                      * flag keeps what was known) */
    double repair_since;             /* when the current stretch of a pending repair began; 0: none */
    /* stops (analyze_stop): the recent ones, and the one going on */
    struct analyze_stop stops[ANALYZE_STOPS];
    unsigned nstops, stops_head;
    bool stop_open;
    struct analyze_stop cur;
    double prev_t;                   /* the previous point's time (0: none) */
    unsigned long long seq_in, seq_out;   /* the next point's number; the oldest's in the window */
    unsigned dt_run;                 /* the newest points with the newest's time step, bit for bit (analyze.c) */
    struct analyze_slide slide;      /* the window's running figures */
};

/* A point that continues a stop: wholly idle, waiting in a kernel, or mostly idle without a burst of real
 * work (its sub-second peak, else its utilization, under busy_util). */
static inline bool analyze_quiet(const struct analyze_config *c, const struct analyze_point *p)
{
    float idle = p->v[AC_IDLE], peak = !isnan(p->v[AC_UTIL_MAX]) ? p->v[AC_UTIL_MAX] : p->v[AC_UTIL];
    return p->spin || idle >= 0.95f || (idle >= 0.5f && !(peak >= c->busy_util));
}

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
    struct analyze_plan plan;        /* how the window figures reduce */
};

/* Position i of a ring of cap slots: caps are powers of two (analyze_ring_grow), so a mask, not a
 * division, on every point of every window figure. */
static inline unsigned analyze_wrap(unsigned i, unsigned cap)
{
    return i & (cap - 1);
}

/* The k-th point of g's window (0: the oldest). */
static inline const struct analyze_point *analyze_at(const struct analyze_gpu *g, unsigned k)
{
    return &g->ring[analyze_wrap(g->head + k, g->cap)];
}

/* The window's points in their two runs of the ring (no division per point). */
struct analyze_runs {
    const struct analyze_point *p[2];
    unsigned n[2];
};

static inline struct analyze_runs analyze_runs_of(const struct analyze_gpu *g)
{
    unsigned first = g->cap - g->head < g->n ? g->cap - g->head : g->n;
    return (struct analyze_runs){{g->ring + g->head, g->ring}, {first, g->n - first}};
}

#define ANALYZE_EACH_POINT(runs, p)                                                                            \
    for (int run_ = 0; run_ < 2; run_++)                                                                       \
        for (const struct analyze_point *p = (runs).p[run_], *end_ = p + (runs).n[run_]; p < end_; p++)

/* Grows a ring of n elements of sz bytes when full (up to ANALYZE_MAX_POINTS, a power of two, as every
 * cap it gives), unrolling it. */
void *analyze_ring_grow(void *ring, size_t sz, unsigned *cap, unsigned *head, unsigned n);
/* A value as a number of its column: NAN unless known (inline: every column of every point). */
static inline float analyze_num(const struct value *v, enum metric_id id)
{
    if (v->state != VS_OK)
        return NAN;
    return metric_table[id].kind == MK_FLOAT ? (float)v->u.f : (float)v->u.i;
}
int analyze_cmp_double(const void *x, const void *y);
/* The median of n values (sorts them); NAN of none. */
double analyze_median(double *v, unsigned n);
/* The median of the n ascending values with one occurrence of x taken out: the others' median in O(1);
 * NAN when x is not among them or none is left. */
double analyze_median_but(const double *sorted, unsigned n, double x);
/* The k-th smallest of n values (0-based; they are reordered), as a sort would give it, in O(n). */
double analyze_nth(double *v, unsigned n, unsigned k);

/* analyze_fig.c: the rows' reductions. */
/* Several percentiles of a window's histogram (hist, its bins with points marked in bits) in one walk. */
void analyze_hist_percentiles(const unsigned long long *hist, const unsigned long long *bits, unsigned long long n,
                              const double *pct, unsigned k, double *out);
void analyze_acc_add(struct analyze_acc *acc, double t, double v);
void analyze_plan_make(struct analyze_plan *pl);
/* The window figures the rows of analyze_window_figures describe (all but AH_CUSTOM), into s, in one pass
 * over g's points. */
void analyze_window_reduce(const struct analyze_plan *pl, struct analyze_gpu *g, struct analyze_gpu_stats *s);
/* A record's point into the GPU's whole-run accumulators. */
void analyze_run_add(struct analyze_run *run, const struct analyze_point *p);
/* The whole-run figures the rows of analyze_run_figures describe, into out. */
void analyze_run_reduce(const struct analyze_run *run, struct analyze_summary *out);

/* g's recent stops and the one going on (analyze_gpu_stops). */
unsigned analyze_stops_of(const struct analyzer *a, const struct analyze_gpu *g, struct analyze_stop *out);

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
/* Those figures of another GPU of the same node, from its stats. */
void analyze_node_copy(const struct analyze_gpu_stats *from, struct analyze_gpu_stats *s);
/* With GPUs on several nodes: each GPU's node against the others. */
void analyze_nodes_compare(const struct analyzer *a, struct analyze_gpu_stats *out);

#endif
