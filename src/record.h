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

#define RECORD_MAX_PROCS 32
#define RECORD_MAX_METRICS 112  /* >= METRIC_COUNT, checked in metrics.c */

struct record_proc {
    unsigned int pid;
    long long used_mib;         /* -1 when NVML cannot tell */
    char name[64];
};

#define RECORD_MAX_XIDS 16

/* One XID code seen on a GPU since monitoring began (cumulative). */
struct record_xid {
    unsigned int code;
    unsigned long long count;
    struct timespec last;       /* wall clock of the latest occurrence */
};

struct record_gpu {
    unsigned int index;
    struct value v[RECORD_MAX_METRICS];   /* indexed by enum metric_id */
    unsigned int nprocs;
    struct record_proc procs[RECORD_MAX_PROCS];
    unsigned int nxids;                   /* distinct codes, most recent first once full */
    struct record_xid xids[RECORD_MAX_XIDS];
};

struct record {
    struct timespec time;       /* wall clock, UTC */
    const char *hostname;
    struct value host[RECORD_MAX_METRICS];  /* host-scope metrics, by enum metric_id */
    unsigned int ngpus;
    struct record_gpu *gpus;
};

#endif
