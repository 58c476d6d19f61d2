/*
 * smi.h: nvidia-smi's own views, for gpumon invoked as nvidia-smi: the
 * summary table of a bare `nvidia-smi` and the list of `nvidia-smi -L`.
 *
 * smi_read.c takes one snapshot straight from NVML (nvml.h): what the table
 * shows is mostly no metric of gpumon's (persistence, display, ECC, compute
 * and MIG modes, MIG devices, a process's C/G type and instance ids) and is
 * read once, so it does not go through the sampler. smi_table.c spells a
 * snapshot the way nvidia-smi does (the layout of the captures in
 * tests/cli/smi/, checked byte for byte by tests/cli/test_smi_table.sh) and
 * never calls NVML. Every value carries the NVML code it came with: 0 is a
 * value, "not supported" prints N/A, any other failure ERR!, as nvidia-smi.
 */
#ifndef GPUMON_SMI_H
#define GPUMON_SMI_H

#include <stdbool.h>
#include <time.h>
#include "nvml_abi.h"
#include "util.h"

#define SMI_MISSING NVML_ERROR_FUNCTION_NOT_FOUND   /* the library lacks the call: shown as N/A */

struct smi_val {
    int rc;                         /* NVML return code; NVML_SUCCESS: v holds the value */
    unsigned long long v;
};

/* A MIG device (a compute instance inside a GPU instance). */
struct smi_mig {
    unsigned dev;                   /* index among the GPU's MIG devices */
    struct smi_val gi, ci;          /* GPU and compute instance ids */
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    struct smi_val mem_used, mem_total, bar1_used, bar1_total, ecc_uncorr;   /* bytes; a count */
};

struct smi_gpu {
    unsigned index;
    int handle_rc;                  /* GetHandleByIndex; on failure nothing else was read */
    int name_rc, uuid_rc, bus_rc;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE], bus_id[32];
    struct smi_val persistence, display, ecc_mode, ecc_uncorr, fan, temp, pstate, power_mw, cap_mw, mem_used,
        mem_total, util, compute_mode, mig_mode;
    unsigned nmig;
    struct smi_mig *mig;
};

struct smi_proc {
    unsigned gpu, pid, gi, ci;      /* gi, ci: 0xFFFFFFFF without MIG */
    unsigned kinds;                 /* NVML_PROC_COMPUTE | NVML_PROC_GRAPHICS (nvml.h) */
    unsigned long long mem;         /* bytes; NVML_VALUE_NOT_AVAILABLE when unknown */
    char name[256];                 /* "" when NVML cannot name it */
};

struct smi_snapshot {
    char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];   /* "" unknown */
    int cuda;                       /* e.g. 13010; 0 unknown */
    unsigned ngpus;
    struct smi_gpu *gpus;
    unsigned nprocs;
    struct smi_proc *procs;         /* sorted by GPU, then pid */
};

/* Reads every GPU NVML reports (NVML is open): names and UUIDs only
 * (with MIG devices) for -L when full is false, everything the table shows
 * when true. Owns what it allocates until smi_free. */
void smi_read(struct smi_snapshot *s, bool full);
void smi_free(struct smi_snapshot *s);

/* nvidia-smi's summary table of s at time now (local time in the first
 * line), appended to b. GPUs whose handle failed are not in it: the
 * caller says so. */
void smi_table(struct sbuf *b, const struct smi_snapshot *s, time_t now);
/* nvidia-smi -L: one line per GPU, its MIG devices under it. */
void smi_list(struct sbuf *b, const struct smi_snapshot *s);

#endif
