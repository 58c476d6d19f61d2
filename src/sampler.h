/*
 * sampler.h: turns NVML and /proc into records.
 *
 * sampler_open() enumerates the GPUs (all, or a --gpus selection by index,
 * UUID or PCI bus id), reads the once-only metrics (identity, maxima),
 * primes the interval-based readers (driver utilization samples, host CPU,
 * PCIe byte counters) and, only for GPUs whose driver lacks the PCIe byte
 * counters (before R555), starts a slow-reader thread for PCIe throughput
 * (~20 ms per call), so it never holds back fast sampling.
 * sampler_sample() fills one record: pending XID events are counted, fast
 * metrics are read now, slow ones are copied from the thread's latest
 * reading. Call after nvml_open(); a
 * sampler opened without NVML has no GPU and samples the host only.
 * Records carry nvml_clock_now()'s time: the scenario's on a fast-played
 * simulator, where intervals (sampling, the slow reader's) are in scenario
 * seconds too; the host's own cadences stay in wall time.
 */
#ifndef GPUMON_SAMPLER_H
#define GPUMON_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gpu_attr.h"
#include "metrics.h"

struct sampler_opts {
    const enum metric_id *ids;  /* metrics to read; NULL means all */
    int nids;
    const char *gpus;           /* comma-separated indices, UUIDs or PCI bus ids; NULL means all */
    double slow_interval_ms;    /* slow-reader period; 0 means 1000 */
    bool processes;             /* fill per-process lists in records */
    int job_pid;                /* process tree to follow (job.* metrics); 0: none */
    const char *job_dir;        /* HPC job mapping directory (host_jobs.c): each GPU's job ids; NULL: none */
};

struct sampler;

/* Returns 0, or -1 with a message in err (a bad --gpus entry). */
int sampler_open(struct sampler **out, const struct sampler_opts *o, char *err, size_t errlen);
/* Wall nanoseconds between records interval_ms apart in record time: the
 * same, or interval_ms / S on the simulator playing at speed S (nvml_clock.c
 * says when records carry the scenario's time). Commands pace with it. */
uint64_t sampler_step_ns(const struct sampler *s, double interval_ms);
/* Total GPUs NVML reports (before selection). */
unsigned sampler_device_count(const struct sampler *s);
/* The NVML code of getting the handle of the i-th selected GPU (0 success): a GPU without a handle
 * has records with its index only. */
int sampler_handle_rc(const struct sampler *s, unsigned i);
/* Fills rec; rec->gpus points into the sampler and is valid until the next call. */
void sampler_sample(struct sampler *s, struct record *rec);
/* Reads the attributes want[] selects of the i-th GPU of the latest record
 * (nvidia-smi's query mode; gpu_attr.h) into out. A lost GPU or one
 * without a handle gets that state in every value. */
void sampler_attrs(struct sampler *s, unsigned i, const bool want[GA_COUNT], struct gpu_attrs *out);

/* What nvidia-smi's summary table and -L show beyond the record (smi.h). */
/* A MIG device of a GPU (a compute instance in a GPU instance), read as a GPU of its own. */
struct sampler_mig {
    unsigned slot;                  /* among the GPU's MIG devices (nvidia-smi's "MIG Dev") */
    struct value name, uuid;        /* strings owned by the sampler, as the record's */
    struct value gi, ci;            /* GPU and compute instance ids */
    struct value mem_used, mem_total, bar1_used, bar1_total;   /* MiB; full reads only */
    struct value ecc_uncorr;        /* volatile uncorrected ECC errors; full reads only */
};
/* The MIG devices of the i-th selected GPU, enumerated now (MIG handles go stale): names, UUIDs and
 * instance ids, and with full their memory, BAR1 and ECC too. Returns how many, *out valid until the
 * next call for this GPU or sampler_close; 0 for a GPU without a handle, lost, or without MIG. */
unsigned sampler_migs(struct sampler *s, unsigned i, bool full, const struct sampler_mig **out);

/* One process on a GPU as NVML lists it, however many there are (the record keeps RECORD_MAX_PROCS). */
struct sampler_proc {
    unsigned gpu, pid;              /* gpu: NVML's index */
    unsigned gi, ci;                /* MIG GPU and compute instance; 0xFFFFFFFF without MIG */
    bool compute, graphics;         /* the lists it is on */
    unsigned long long mem;         /* bytes; NVML_VALUE_NOT_AVAILABLE when NVML cannot tell */
    char name[256];                 /* "" when NVML cannot name it */
};
/* The processes of the i-th selected GPU, read now, sorted by pid: the count, *out allocated (the
 * caller frees it; NULL when 0). */
unsigned sampler_processes(struct sampler *s, unsigned i, struct sampler_proc **out);
/* The SM share of each busy process of the i-th selected GPU (gpumon top): the mean of the driver's
 * samples since the previous call, into pid[k], sm[k] (percent; at most max, *n of them). Returns 0,
 * or the NVML code why not (NVML_ERROR_FUNCTION_NOT_FOUND: the library has no such call). */
int sampler_proc_util(struct sampler *s, unsigned i, unsigned *pid, unsigned *sm, unsigned max, unsigned *n);
/* The CUDA driver version NVML reports (e.g. 13010; 0 unknown). */
int sampler_cuda_version(const struct sampler *s);

void sampler_close(struct sampler *s);

#endif
