/*
 * analyze.h: windowed statistics per GPU, the figures the rules judge.
 *
 * The analyzer is fed records (live from the sampler, or from logread) in
 * time order and keeps, per GPU, only the points inside the sliding window
 * (a ring, at most ANALYZE_MAX_POINTS) plus a few scalars of history (when
 * memory was first used and first near full, since when the GPU is idle,
 * XIDs seen), so memory is bounded whatever the run's length. The host
 * side (job CPU, iowait) has a window of its own. analyze_stats() computes
 * the stats struct that every rule reads: computed once per evaluation,
 * figures only, no wording. Whole-run aggregates for the summary (exact
 * utilization percentiles from a 101-bin histogram, peak memory, time
 * throttled) are kept alongside.
 */
#ifndef GPUMON_ANALYZE_H
#define GPUMON_ANALYZE_H

#include <stdbool.h>
#include "clock_reasons.h"
#include "record.h"
#include "rules.h"
#include "account.h"
#include "stepstat.h"

#define ANALYZE_MAX_GPUS 64
#define ANALYZE_MAX_POINTS 65536
#define ANALYZE_MAX_XIDS 8

struct analyze_gpu_stats {
    unsigned index;
    char name[96];
    double now, window_s, span_s;      /* time of the latest point; span the window's points cover */
    unsigned n;                        /* points in the window */
    bool enough;                       /* enough data for window rules */
    /* utilization (% of time a kernel ran) */
    unsigned n_util;
    double util_mean, util_p5, util_p50, util_p95, util_peak;  /* peak: p95 of the sub-second maxima */
    double idle_share;                 /* % of the window idle (driver sub-second samples where logged) */
    unsigned idle_gaps;
    double idle_gap_mean_s, idle_gap_max_s;
    double idle_for_s;                 /* how long the GPU has been idle without a break, 0 if busy */
    /* memory (MiB) */
    bool mem_ok;
    double mem_total, mem_last, mem_min, mem_max, mem_slope;   /* slope: MiB per second */
    double mem_first_use_t, mem_high_t;  /* first use (>= 1%), start of the current near-full stretch; 0: none */
    int procs;                         /* processes on the GPU at the latest point, -1 unknown */
    double oom_t, oom_mem_share;       /* a process ended while memory was this full (%); oom_t 0: none */
    /* clocks, power, temperature, PCIe */
    unsigned n_reasons;
    double reason_share[CLOCK_REASON_COUNT];   /* % of the window each reason (clock_reasons.h) was active */
    double thermal_share, power_share; /* % of the window any thermal / power reason was active */
    double temp_max, power_mean, power_limit, sm_mean, sm_max_clock;
    double pcie_tx_mean, pcie_rx_mean; /* KB/s; NAN unknown */
    /* GPM (Hopper and newer): means over the window's points that have them; NAN none */
    unsigned n_gpm;                    /* points with GPM SM activity */
    double sm_active_mean, sm_occupancy_mean, tensor_mean, dram_mean, fp32_mean;
    int gpm_code;                      /* why GPM is missing (NVML code) at the latest point; 0 ok, -1 not logged */
    /* start-up and pauses */
    bool warmup;                       /* the window reaches back into the job's first startup.seconds */
    double mem_recent_slope;           /* MiB per second over the later half of the window */
    /* faults */
    bool lost;
    double lost_t;
    unsigned nxids;
    struct { unsigned code; unsigned long long count; double last_t; } xids[ANALYZE_MAX_XIDS];  /* in the window */
    long long ecc_uncorr_new;          /* uncorrected ECC errors counted during the window */
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
    double util_in_wait, util_in_compute;   /* mean utilization while the loop waited / computed; NAN unknown */
    double sm_in_wait, sm_in_compute;       /* the same of SM activity (GPM) */
    /* a job of several processes: the slowest against the others (its GPU's stats only; pid 0: none) */
    int slow_pid, slow_rank;
    unsigned job_ranks;
    double slow_p50, others_p50, slow_wait, others_wait;
};

/* Whole-run figures for the summary. */
struct analyze_gpu_total {
    unsigned index;
    char host[64];                     /* its node's hostname */
    char name[96];
    double first_t, last_t;
    unsigned long long samples, n_util;
    unsigned long long hist[101];      /* records per whole-percent utilization */
    double idle_sum;                   /* sum of per-record idle shares (%) */
    double mem_peak, mem_total, throttled_s, lost_t;
    unsigned long long n_gpm, n_tensor, n_dram;   /* records with GPM SM, tensor, DRAM activity */
    double sm_active_sum, tensor_sum, dram_sum;
    int gpm_code;                      /* latest reason GPM was missing (NVML code); 0 ok, -1 never logged */
    char who[320];                     /* its jobs, users, containers, pods when last known ("" never) */
};

struct analyzer;

struct analyzer *analyze_new(const struct rule_config *c);
void analyze_free(struct analyzer *a);
/* Adds one record. Records earlier than the latest are ignored. */
void analyze_feed(struct analyzer *a, const struct record *r);
/* Number of GPUs seen so far (in order of first appearance). */
unsigned analyze_ngpus(const struct analyzer *a);
/* Computes the stats of every GPU at the latest point into out[ngpus]. */
void analyze_stats(struct analyzer *a, struct analyze_gpu_stats *out);
const struct analyze_gpu_total *analyze_total(const struct analyzer *a, unsigned i);
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
/* Nearest-rank percentile (0-100) of a 101-bin histogram holding n values. */
double analyze_hist_percentile(const unsigned long long *hist, unsigned long long n, double pct);

#endif
