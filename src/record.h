/*
 * record.h: the one record type: all GPUs and the host at one instant.
 *
 * The sampler produces records, sinks and analysis consume them, and the
 * JSON Lines log is their serialization. Every value carries its state, so
 * "unsupported", "error", "lost" and "not known yet" are never confused with
 * zero. String values point into storage owned by the record's producer
 * (the sampler's per-GPU identity strings), valid while it lives.
 */
#ifndef GPUMON_RECORD_H
#define GPUMON_RECORD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

enum value_state {
    VS_NONE = 0,       /* not read (not selected, or no reading yet) */
    VS_OK,
    VS_UNSUPPORTED,    /* this GPU or driver cannot report it */
    VS_ERROR,          /* NVML returned an error; code holds it */
    VS_LOST,           /* the GPU fell off the bus */
};

struct value {
    uint8_t state;
    int32_t code;      /* NVML return code for VS_ERROR / VS_UNSUPPORTED / VS_LOST */
    union {
        long long i;
        double f;
        const char *s;
    } u;
};

#define RECORD_MAX_PROCS 32     /* processes listed per GPU: the largest by memory when there are more */
#define RECORD_MAX_METRICS 112  /* >= METRIC_COUNT, checked in metrics.c */

struct record_proc {
    unsigned int pid;
    long long used_mib;         /* -1 when NVML cannot tell */
    char name[64];
    char user[33];              /* "" unknown (the process is not visible in gpumon's PID namespace) */
    char container[96];         /* "docker://<64 hex>" (runtime://id, Kubernetes' form); "" none or unknown */
    char pod[37];               /* Kubernetes pod UID; "" none */
    unsigned char kinds;        /* NVML_PROC_COMPUTE 1 | NVML_PROC_GRAPHICS 2: NVML's lists it is on; 0 unknown (a log) */
    bool notebook;              /* a notebook's kernel (its command line, else its name: host_is_notebook_command) */
    bool server;                /* an inference server (the same way: host_is_server_command) */
};

#define RECORD_MAX_XIDS 16
#define RECORD_MAX_JOBS 8       /* job ids kept per GPU */

/* One XID code seen on a GPU since monitoring began (cumulative). */
struct record_xid {
    unsigned int code;
    unsigned long long count;
    struct timespec last;       /* the latest occurrence, on the records' clock (wall, or a fast-played scenario's) */
};

struct record_gpu {   /* the counts ahead of the lists: a record without lists writes fewer pages */
    unsigned int index;
    unsigned int nprocs;
    unsigned int procs_omitted;           /* processes left out of procs (beyond RECORD_MAX_PROCS; the count
                                           * and memory metrics include them) */
    unsigned int nxids;                   /* distinct codes, most recent first once full */
    unsigned njobs;                       /* job ids from an HPC job mapping directory (host_jobs.c) */
    struct value v[RECORD_MAX_METRICS];   /* indexed by enum metric_id */
    struct record_proc procs[RECORD_MAX_PROCS];
    struct record_xid xids[RECORD_MAX_XIDS];
    char jobs[RECORD_MAX_JOBS][64];
};

#define RECORD_MAX_RANKS 32
#define RECORD_STEP_BINS 24     /* distinct step-time bins one interval keeps */
#define RECORD_STEP_NBINS 512   /* bins of step times: 16 per doubling from 1 us */

/* What a training process is doing at a record's time (docs/steps-channel.md). */
enum step_phase { SP_NONE = 0, SP_WAIT, SP_COMPUTE, SP_OUT };

/* One training process's steps (steps.c), over the interval that ends at
 * the record's time: the steps that ended in it, and the time the loop
 * spent waiting for input and computing within it. */
struct record_rank {
    int pid, rank, local_rank, world;   /* rank, local_rank, world: -1 when the job did not say */
    uint8_t phase;                      /* enum step_phase at the record's time */
    unsigned steps, batches, waited;    /* steps ended, batches they trained, steps whose wait is known */
    double step_s, wait_s;              /* summed over the steps with a known wait */
    double in_wait_s, in_compute_s;     /* phase time within the interval */
    double unwait_s;                    /* wait counted in earlier records that ended out of the loop: not input */
    unsigned long long dropped, bad;    /* cumulative: entries the writer dropped (ring full), invalid ones */
    unsigned nbins;
    struct { uint16_t bin; uint32_t n; } bins[RECORD_STEP_BINS];   /* times of those steps, record_step_bin() */
};

struct record {
    struct timespec time;       /* wall clock, UTC (a fast-played simulator's scenario time: nvml_clock.c) */
    const char *hostname;
    struct value host[RECORD_MAX_METRICS];  /* host-scope metrics, by enum metric_id */
    unsigned int ngpus;
    struct record_gpu *gpus;
    unsigned nranks;            /* training processes reporting steps (gpumon run); 0 none */
    struct record_rank *ranks;
};

/* Step times in a record are binned: bin b holds 2^(b/16) to 2^((b+1)/16) microseconds (4.4% wide), so
 * a percentile is within 2.2% whatever the interval; 1 us to 71 minutes. */
static inline unsigned record_step_bin(double seconds)
{
    double b = seconds > 1e-6 ? 16 * log2(seconds * 1e6) : 0;
    return b >= RECORD_STEP_NBINS - 1 ? RECORD_STEP_NBINS - 1 : (unsigned)b;
}

/* A bin's middle (geometric), in seconds. */
static inline double record_step_bin_s(unsigned bin)
{
    return 1e-6 * exp2((bin + 0.5) / 16);
}

#endif
