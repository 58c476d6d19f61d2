/*
 * smi.h: nvidia-smi's own views, for gpumon invoked as nvidia-smi: the
 * summary table of a bare `nvidia-smi` and the list of `nvidia-smi -L`.
 *
 * smi_read.c gathers one snapshot from the sampler, which reads every
 * value as it does for the other commands (one reader per value): the
 * GPUs' metrics from a record, the modes only nvidia-smi shows (persistence,
 * display, ECC, compute and MIG modes) from the sampler's query-only rows
 * (gpu_attr.h), MIG devices and the whole process list from what the
 * sampler reads beyond the record. smi_table.c spells a snapshot the way
 * nvidia-smi does (the layout of the captures in tests/cli/smi/, checked
 * byte for byte by tests/cli/test_smi_table.sh) and never sees NVML. Every
 * value carries its state: a value, "unsupported" (N/A) or any other
 * failure (ERR!), as nvidia-smi.
 */
#ifndef GPUMON_SMI_H
#define GPUMON_SMI_H

#include <stdbool.h>
#include <time.h>
#include "gpu_attr.h"
#include "nvml_abi.h"
#include "record.h"
#include "sampler.h"
#include "util.h"

struct smi_gpu {
    unsigned index;
    int handle_rc;                  /* sampler_handle_rc; on failure nothing else was read */
    const struct value *v;          /* the record's values of the GPU, by metric id */
    struct gpu_attrs a;             /* the modes: persistence, display active, ECC, compute, MIG */
    unsigned nmig;
    const struct sampler_mig *mig;  /* owned by the sampler */
};

struct smi_snapshot {
    const char *driver;             /* "" unknown */
    int cuda;                       /* e.g. 13010; 0 unknown */
    unsigned ngpus;
    struct smi_gpu *gpus;
    unsigned nprocs;
    struct sampler_proc *procs;     /* sorted by GPU, then pid */
};

/* The snapshot of the GPUs of s (selected), from rec, its latest record: names and UUIDs only
 * (with MIG devices) for -L when full is false, everything the table shows when true. Valid until
 * the next sampler_sample; owns what it allocates until smi_free. */
void smi_read(struct smi_snapshot *snap, struct sampler *s, const struct record *rec, bool full);
void smi_free(struct smi_snapshot *snap);

/* nvidia-smi's summary table of s at time now (local time in the first
 * line), appended to b. GPUs whose handle failed are not in it: the
 * caller says so. */
void smi_table(struct sbuf *b, const struct smi_snapshot *s, time_t now);
/* nvidia-smi -L: one line per GPU, its MIG devices under it. */
void smi_list(struct sbuf *b, const struct smi_snapshot *s);

#endif
