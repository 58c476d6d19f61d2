/*
 * analyze.h: the analysis: figures per GPU over a sliding window and over
 * the whole run, measured, never judged (rules.h judges them).
 *
 * The analyzer is fed records (live from the sampler, or from logread) in
 * time order and keeps, per GPU, only the points inside the sliding window
 * (a ring, at most ANALYZE_MAX_POINTS) plus a few scalars of history (when
 * memory was first used and first near full, since when the GPU is idle,
 * when its job started, XIDs seen), so memory grows with the GPUs, not with
 * the run. The host side (job CPU, iowait) has a window per node.
 *
 * What a figure is, is data: a point has one column per metric it reads
 * (enum analyze_col, from analyze_columns[]), and a window figure is a row
 * of analyze_window_figures[] (analyze_fig.c) saying which column it
 * reduces and how (mean, min, max, last, a share of time, a percentile...),
 * into which field of struct analyze_gpu_stats. The exporter, gpumon top
 * and the rules' documentation walk the same rows. Figures no reduction
 * describes (idle gaps, the memory trend, process exits, steps, the slow
 * process, peers, nodes) are computed by small named functions
 * (analyze_window.c). The whole run is summarized the same way into
 * struct analyze_summary (analyze_run_figures[]), which the summary's text
 * and JSON and the report render from one table (diag_summary.c).
 */
#ifndef GPUMON_ANALYZE_H
#define GPUMON_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include "clock_reasons.h"
#include "record.h"
#include "account.h"
#include "stepstat.h"
#include "util.h"

#define ANALYZE_MAX_POINTS 65536
#define ANALYZE_GROW_S 30       /* mem_growth's reference points: one at least this far back */
#define ANALYZE_MAX_XIDS 8

/* What the analysis needs to measure: the window, and the thresholds that define a measurement (what
 * counts as idle, as near-full memory, as a covered window, as the start-up, as enough steps). The rules
 * fill it from their threshold table (rules_analyze_config); the thresholds that decide verdicts stay with
 * the rules. window_s is first: the threshold table's offset 0 means "the analysis does not read it". */
struct analyze_config {
    double window_s;
    double idle_util;       /* % utilization under which a sample is idle */
    double mem_high;        /* % of memory from which it is near full (mem_high_t) */
    double min_samples;     /* a full window ("enough"): at least this many points, */
    double min_coverage;    /* spanning this % of the window */
    double startup_s;       /* a job's first seconds on a GPU: their windows do not set the run's best step */
    double steps_min;       /* steps with a known wait a process needs in the window to be compared */
    double busy_util;       /* % sub-second peak from which a mostly idle record holds a burst of real work */
    double pause_s;         /* idle seconds from which a stop counts (analyze_stop) */
    double sm_idle;         /* % SM activity and DRAM bandwidth (GPM) both under which a busy GPU waits: idle */
    double stall_growth;    /* % of the GPU's memory by which an idle GPU's memory rising is progress, not a stall */
};

/* The columns of a window point: one number per record, NAN where the record lacks it. */
enum analyze_col {
    AC_UTIL,            /* utilization.gpu, % */
    AC_UTIL_MAX,        /* the driver's sub-second maximum, % */
    AC_IDLE,            /* share of the record's interval idle, 0-1 (the driver's, else from AC_UTIL) */
    AC_MEM_USED,        /* MiB */
    AC_MEM_TOTAL,
    AC_TEMP,            /* C */
    AC_POWER,           /* W */
    AC_POWER_LIMIT,     /* the enforced limit, else the configured one */
    AC_SM_CLOCK,        /* MHz */
    AC_SM_CLOCK_MAX,
    AC_PCIE_TX,         /* KB/s */
    AC_PCIE_RX,
    AC_SM_ACTIVE,       /* GPM, % */
    AC_SM_OCCUPANCY,
    AC_TENSOR,
    AC_DRAM,
    AC_FP32,
    AC_IN_WAIT,         /* seconds of the record's interval the job's loop on this GPU waited (stepstat.h) */
    AC_IN_COMPUTE,      /* ... computed */
    AC_COUNT,
    AC_NONE = AC_COUNT  /* a figure's gate: every point */
};

/* How a figure reduces its column over the points (where the gate column is known too). */
enum analyze_how {
    AH_MEAN,            /* mean; NAN without points */
    AH_MIN,
    AH_MAX,
    AH_LAST,            /* the latest point's */
    AH_COUNT,           /* how many points have it */
    AH_HIST_MEAN,       /* from the column's histogram of whole percents (AC_UTIL, AC_UTIL_MAX) */
    AH_HIST_PCT,        /* nearest-rank percentile .pct of that histogram */
    AH_REASONS,         /* % of the points with clock event reasons known where a reason of .group is active;
                         * 0 without points */
    AH_SLOPE,           /* least-squares slope per second; 0 without two points */
    AH_SLOPE_LATER,     /* the same over the later half of the window */
    AH_CUSTOM,          /* computed by a function of analyze_window.c, named in the row's .how_text */
};

#define AF_GPM 1u           /* a GPM figure: shown where GPM covers the window (gpm_covered) */
#define AF_NONE_ZERO 2u     /* 0, not NAN, without points */

/* A window figure: one row of analyze_window_figures[]. */
struct analyze_figure {
    const char *key;                /* stable name (snake_case): the exporter's gauge, the docs */
    size_t offset;                  /* its double in struct analyze_gpu_stats */
    enum analyze_col col, gate;     /* the column reduced, over the points where gate is known too */
    enum analyze_how how;
    double pct;                     /* AH_HIST_PCT */
    enum clock_reason_group group;  /* AH_REASONS */
    unsigned flags;                 /* AF_* */
    const char *how_text;           /* AH_CUSTOM: what computes it */
    const char *label;              /* how gpumon top names it ("utilization mean"); NULL: not shown there */
    const char *unit;               /* "%", "s", "MiB", ... */
    const char *export_help;        /* a gauge of the exporter (gpumon_diagnosis_window_KEY_ratio, a % as 0-1);
                                     * NULL: not exported */
};

struct analyze_gpu_stats;
extern const struct analyze_figure analyze_window_figures[];
extern const int analyze_nwindow_figures;
/* The figure of row f in s. */
double analyze_figure_value(const struct analyze_figure *f, const struct analyze_gpu_stats *s);
/* Whether row f of s is to be shown: known, and for a GPM figure, GPM covers the window. */
bool analyze_figure_shown(const struct analyze_figure *f, const struct analyze_gpu_stats *s);

/* The window figures of one GPU. The rules read the named fields; rows of analyze_window_figures[]
 * say how most of them are computed (the rest: analyze_window.c). */
struct analyze_gpu_stats {
    unsigned index;
    char name[96];
    double now, window_s, span_s;      /* time of the latest point; span the window's points cover */
    unsigned n;                        /* points in the window */
    bool enough;                       /* a full window: min_samples points over min_coverage of it */
    /* utilization (% of time a kernel ran) */
    unsigned n_util;
    double util_mean, util_p5, util_p50, util_p95, util_peak;  /* peak: p95 of the sub-second maxima */
    double idle_share;                 /* % of the window idle (driver sub-second samples where logged) */
    double idle_gaps;                  /* idle stretches in the window */
    double idle_gap_mean_s, idle_gap_max_s;
    double idle_for_s;                 /* how long the GPU has been idle without a break, 0 if busy */
    double mem_growth;                 /* % growth of the memory held, per window, over the last 30-60 s
                                        * (ANALYZE_GROW_S to twice that, the window's end alike whatever its
                                        * length): a start-up's allocations come in bursts, and a least-squares
                                        * slope over a window that holds one or two reads them low; NAN unknown */
    double still_for_s;                /* of that, since its memory last rose by stall_growth of the GPU above
                                        * the most it held (weights loading: progress, not a hang) */
    double spin_share;                 /* % of the window's points busy by utilization while GPM shows the SMs
                                        * and DRAM idle (under sm.idle): a kernel that waits, counted idle */
    /* stops (analyze_stop): idle stretches of pause.seconds or more, quiet blips inside them forgiven */
    double stops;                      /* stops that reach into the window, the one going on included */
    double stop_max_s;                 /* idle seconds of the longest */
    double stop_idle_s;                /* their idle seconds inside the window */
    bool stop_going;                   /* the GPU is in a stop now (quiet, pause_s idle so far) */
    double stop_busy_before_s;         /* the least busy time before one of them: since the previous stop
                                        * ended (or the GPU's first record); NAN: no stop, or none known */
    double busy_util;                  /* mean utilization of the window's mostly busy points; NAN: none */
    bool notebook;                     /* every process on the GPU is a notebook's kernel (ipykernel...) */
    bool server;                       /* every process on the GPU is an inference server (tritonserver...) */
    /* memory (MiB) */
    bool mem_ok;
    double mem_total, mem_last, mem_min, mem_max, mem_slope;   /* slope: MiB per second */
    double mem_recent_slope;           /* MiB per second over the later half of the window */
    double mem_first_use_t, mem_high_t;  /* first use (>= 1%), start of the current near-full stretch; 0: none */
    int procs;                         /* processes on the GPU at the latest point, -1 unknown */
    double exit_t, exit_mem_share;     /* the process exit of the window with the most memory in use just
                                        * before (% of total; the latest of equals); exit_t 0: none */
    /* clocks, power, temperature, PCIe */
    unsigned n_reasons;
    double reason_share[CLOCK_REASON_COUNT];   /* % of the window each reason (clock_reasons.h) was active */
    double thermal_share, power_share; /* % of the window any thermal / power reason was active */
    double temp_max, power_mean, power_limit, sm_clock_mean, sm_clock_max;
    double pcie_tx_mean, pcie_rx_mean; /* KB/s; NAN unknown */
    /* GPM (Hopper and newer): means over the window's points that have them; NAN none */
    double n_gpm;                      /* points with GPM SM activity */
    bool gpm_covered;                  /* GPM covers the window as a full window must (min_samples, min_coverage) */
    double sm_active_mean, sm_occupancy_mean, tensor_mean, dram_mean, fp32_mean;
    int gpm_code;                      /* why GPM is missing (NVML code) at the latest point; 0 ok, -1 not logged */
    /* the job's start on this GPU */
    double job_start_t;                /* memory went from unused to used here (a start seen); 0: none */
    /* faults */
    bool lost;
    double lost_t;
    unsigned nxids;
    struct { unsigned code; unsigned long long count; double last_t; } xids[ANALYZE_MAX_XIDS];  /* in the window */
    long long ecc_uncorr_new;          /* uncorrected ECC errors counted during the window */
    unsigned repair_pending;           /* ANALYZE_REPAIR_* at the latest record: memory repairs that wait for a
                                        * reset (docs/nvml-facts.md, section 20) */
    double repair_since_t;             /* when they began to wait (0: none pending) */
    /* peers (other busy GPUs of the node) */
    unsigned npeers;
    double peer_median_util;
    /* nodes (records of several hosts: a multi-node diagnosis); nodes 0 or 1: one */
    unsigned nodes;                    /* nodes with GPUs in use */
    double node_util, other_nodes_util;   /* median utilization of this node's GPUs in use; of the others' */
    /* the watched process tree and the host, over the window; NAN unknown */
    bool job_ok;
    double job_cpu, job_cpu_top, job_rss_max, ncpus, iowait;
    double job_read_kbs;               /* storage reads of the tree, KB/s; NAN unknown (old logs, no access) */
    int job_procs;
    /* training steps the job reported (stepstat.h), by its processes on this GPU, over the window */
    bool steps_ok;                     /* some process on this GPU reports steps */
    struct stepstat_fig steps;
    double step_best_p50, step_best_t; /* the fastest p50 of an earlier full window, and when; NAN none */
    double best_util, best_sm, best_clock, best_wait;   /* that window's utilization mean, SM activity, SM
                                                         * clock and wait share; NAN unknown */
    double util_in_wait, util_in_compute;   /* mean utilization while the loop waited / computed; NAN unknown */
    double sm_in_wait, sm_in_compute;       /* the same of SM activity (GPM) */
    /* a job of several processes (the same WORLD_SIZE, each with steps_min steps in the window): the one on
     * this GPU that is slowest against the median of the others (by ratio + wait gap / 100); pid 0: none */
    unsigned job_ranks;
    int proc_pid, proc_rank;
    double proc_p50, others_p50, proc_wait, others_wait;
    double proc_ratio;                 /* proc_p50 / others_p50 (0 when they have none) */
    double proc_wait_gap;              /* proc_wait - others_wait, points */
    double slower_ratio, slower_wait_gap;   /* the highest of each among the job's processes that rank slower
                                             * than this one; NAN: none does */
};

/* A stop: an idle stretch of a GPU, its quiet blips forgiven (analyze_stop in analyze.c). */
struct analyze_stop {
    double start, end;                 /* the previous point's time, and the last quiet point's */
    double idle_s;                     /* idle seconds in it */
    double busy_before_s;              /* from the previous stop's end (or the GPU's first record) to its start;
                                        * NAN: it began at the first record (the time before is unknown) */
};
#define ANALYZE_STOPS 16               /* recent stops a GPU keeps */
#define ANALYZE_REPAIR_REMAP 1u        /* rows pending remapping (Ampere and newer: remapped_rows.pending) */
#define ANALYZE_REPAIR_RETIRE 2u       /* pages pending retirement (older GPUs: retired_pages.pending) */

/* Whole-run figures of one GPU, computed once (analyze_summary): every summary renders this. NAN: unknown. */
struct analyze_summary {
    unsigned index;
    unsigned twin;                          /* 0: the only GPU of its node and index; else its place (1, 2, ...)
                                             * among those (the index came back with another UUID) */
    const char *host, *name, *uuid, *who;   /* the analyzer's strings; "" unknown */
    double first_t, last_t, duration_s;
    double samples;
    double n_util, util_sum;                      /* records with utilization, the sum of their whole percents */
    double util_mean, util_p50, util_p95, idle_share;
    double mem_peak, mem_total, mem_peak_share;   /* NAN without a known total */
    double throttled_s, throttled_share;          /* time a thermal or power reason was active */
    bool gpm;                                     /* some record had GPM SM activity */
    int gpm_code;                                 /* why not (NVML code): 0, or -1 the log has no GPM fields */
    double sm_active_mean, tensor_mean, dram_mean;
};

/* A whole-run figure: one row of analyze_run_figures[], reduced over every record (AH_MEAN, AH_MIN, AH_MAX,
 * AH_LAST, AH_COUNT, AH_HIST_*: of AC_UTIL; AH_CUSTOM: analyze_summary computes it). */
struct analyze_run_figure {
    const char *key;
    size_t offset;                  /* its double in struct analyze_summary */
    enum analyze_col col, gate;
    enum analyze_how how;
    double pct;
    const char *how_text;
};
extern const struct analyze_run_figure analyze_run_figures[];
extern const int analyze_nrun_figures;

struct analyzer;

struct analyzer *analyze_new(const struct analyze_config *c);
void analyze_free(struct analyzer *a);
/* Adds one record. Records earlier than the latest are ignored. */
void analyze_feed(struct analyzer *a, const struct record *r);
/* Number of GPUs seen so far (in order of first appearance; a new UUID at an index is a new GPU). */
unsigned analyze_ngpus(const struct analyzer *a);
/* The analyzer's number of the i-th GPU of record r (as analyze_feed saw it); -1 none. */
int analyze_gpu_of(const struct analyzer *a, const struct record *r, unsigned i);
/* The i-th GPU's latest point as the analysis read it (what the ledger classifies, ledger.h). */
struct analyze_latest {
    double t;
    double v[AC_COUNT];     /* the point's columns, NAN unknown */
    bool lost;
    bool clock_held;        /* a thermal or power clock event reason active */
    int procs;              /* processes on it, -1 unknown */
    bool notebook;          /* every process on it is a notebook's kernel (the notebook-idle rule's) */
    bool server;            /* every process on it is an inference server (the server-idle rule's) */
    bool steps_ok;          /* processes on it reported steps in that record */
    double steps;           /* steps they ended in it */
    bool progress;          /* idle, its memory grew enough by this point to count as progress (still_for_s) */
};
/* False before the GPU's first record. */
bool analyze_latest(const struct analyzer *a, unsigned i, struct analyze_latest *out);
/* Computes the window figures of every GPU at the latest point into out[analyze_ngpus()]. */
void analyze_stats(struct analyzer *a, struct analyze_gpu_stats *out);
/* The i-th GPU's recent stops of pause_s or more, oldest first, the one going on last (when it is that long
 * already): at most ANALYZE_STOPS into out; returns how many. */
unsigned analyze_gpu_stops(const struct analyzer *a, unsigned i, struct analyze_stop *out);
/* The whole-run figures of the i-th GPU. */
void analyze_summary(const struct analyzer *a, unsigned i, struct analyze_summary *out);
/* The i-th GPU's index and node name. */
unsigned analyze_gpu_index(const struct analyzer *a, unsigned i);
const char *analyze_gpu_host(const struct analyzer *a, unsigned i);
/* Time of the latest record, seconds since the epoch (0 before any). */
double analyze_now(const struct analyzer *a);
/* GPU time by job and user over the whole run. */
const struct account *analyze_account(const struct analyzer *a);
/* The first node's step figures (NULL before any record). */
const struct stepstat *analyze_steps(const struct analyzer *a);
/* Nodes (hostnames) seen, in order of appearance: more than one in a multi-node diagnosis. */
unsigned analyze_nnodes(const struct analyzer *a);
const char *analyze_node_name(const struct analyzer *a, unsigned i);
const struct stepstat *analyze_node_steps(const struct analyzer *a, unsigned i);
/* Nearest-rank percentile (0-100) and mean of a 101-bin histogram holding n values (NAN when n is 0). */
double analyze_hist_percentile(const unsigned long long *hist, unsigned long long n, double pct);
double analyze_hist_mean(const unsigned long long *hist, unsigned long long n);

#endif
