/*
 * sampler_int.h: the sampler's per-GPU state, shared by sampler.c (the
 * loop, cadences, threads), sampler_read.c (one reader per metric table
 * row), sampler_attr.c (one per attribute row) and the files for what no
 * row holds (sampler_proc.c, sampler_mig.c). Every NVML reading of a value
 * has one reader here, whoever shows it. Readers memoize each NVML call per
 * tick, so values served by the same call (memory total/used/free/reserved)
 * cost one call per sample.
 */
#ifndef GPUMON_SAMPLER_INT_H
#define GPUMON_SAMPLER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "gpu_attr.h"
#include "host.h"
#include "nvml.h"
#include "metrics.h"
#include "record.h"
#include "sampler.h"

struct util_stats {
    unsigned count;
    unsigned min, max;
    double idle_share;
};

/* GPM of one GPU (sampler_gpm.c). Metrics come from a pair of samples at
 * least GPM_MIN_PAIR_NS apart: base (taken at base_ns) and the next one;
 * between pairs the latest results are repeated. */
struct sampler_gpm {
    nvmlReturn_t rc;            /* why GPM is unavailable (NVML code), or SUCCESS */
    nvmlGpmSample_t base, next;
    uint64_t base_ns;           /* monotonic time just after base was taken; 0: none yet */
    uint64_t tick;              /* the tick whose results v/vrc hold */
    bool have;                  /* v/vrc hold a result */
    bool waited;                /* the first record waited for the first pair (only ever once) */
    nvmlReturn_t step_rc;       /* the latest sample or metrics call failed with this */
    double v[GPM_COUNT];
    nvmlReturn_t vrc[GPM_COUNT];
};

/* PCIe throughput from the driver's running byte counters (sampler_pcie.c); counters false: the
 * slow-reader thread calls nvmlDeviceGetPcieThroughput instead. Index 0 transmit, 1 receive. */
struct sampler_pcie {
    bool counters;              /* fields 197/198 answered at open */
    bool have;                  /* kbps holds a rate */
    nvmlReturn_t rc;            /* the latest reading's result */
    uint64_t tick;              /* the tick rc and kbps are for */
    uint64_t base_ns;           /* monotonic time of the base reading */
    long long base_ts_us;       /* the driver's stamp of it (µs since the epoch; 0 none) */
    unsigned long long base[2];
    double kbps[2];
};

struct sampler_gpu {
    unsigned index;
    nvmlDevice_t h;
    nvmlReturn_t handle_rc;
    atomic_bool lost;
    atomic_int lost_code;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    char serial[NVML_DEVICE_SERIAL_BUFFER_SIZE + 2];
    char pci[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    nvmlPciInfo_t pci_info;                     /* the whole reading behind pci (the PCI attributes) */
    nvmlReturn_t name_rc, uuid_rc, serial_rc, pci_rc;

    uint64_t util_tick, mem_tick, reasons_tick, samples_tick, proc_tick, remap_tick;
    nvmlReturn_t util_rc, mem_rc, reasons_rc, samples_rc, proc_rc, remap_rc;
    unsigned remap[4];                          /* GetRemappedRows: corrected, uncorrected, pending, failed */
    nvmlUtilization_t util;
    struct nvml_memory mem;
    unsigned long long reasons;
    struct util_stats ustats;
    unsigned long long last_seen_us;
    nvmlSample_t *sbuf;
    unsigned scap;
    struct nvml_process *procs; /* every process NVML lists (count and memory are theirs) */
    unsigned nprocs, proc_cap;

    struct sampler_gpm gpm;
    struct sampler_pcie pcie;

    struct value static_v[RECORD_MAX_METRICS];  /* once-only metrics, read at open */
    pthread_mutex_t slow_mu;

    /* XIDs seen since start (sampler_events.c), under slow_mu */
    nvmlReturn_t xid_rc;                        /* registration result */
    unsigned nxids;
    unsigned long long xid_total;
    unsigned xid_last;

    /* What a sample of most nodes never touches comes last, so that the pages a sample writes are few
     * (peak RSS): the codes seen, the process names, the slow thread's values, nvidia-smi's attributes. */
    struct record_xid xids[RECORD_MAX_XIDS];
    struct { unsigned pid; char name[64]; struct host_attrib who; } pname[RECORD_MAX_PROCS];
    char jobs_warned[512];      /* the job mapping's latest problem with this GPU's file, said once */
    struct value slow_v[RECORD_MAX_METRICS];    /* latest slow-thread readings */
    bool attr_have[GA_COUNT];                   /* attr[] holds this GA_ONCE attribute (sampler_attr.c) */
    struct value attr[GA_COUNT];
    char vbios[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE];
    char compute_cap[24];

    /* per-process SM shares (sampler_proc.c): the newest sample seen, the call's buffer */
    unsigned long long putil_ts;
    nvmlProcessUtilizationSample_t *putil_buf;
    unsigned putil_cap;
    /* MIG devices from the latest sampler_migs (sampler_mig.c): each read as a GPU of its own */
    struct sampler_gpu *migs;
    struct sampler_mig *mig_out;
    unsigned nmigs;
};

struct read_ctx {
    struct sampler_gpu *g;              /* NULL for host rows */
    const struct host_sample *host;
    uint64_t tick;
    enum metric_id id;                  /* the row being read */
};

/* The reader of each row of the metric table: sampler_read_NAME for the
 * row whose reader column is NAME (sampler_read.c for GPU rows,
 * sampler_host.c for host rows, sampler_events.c for XIDs). */
typedef void sampler_reader(const struct read_ctx *c, struct value *out);
#define SAMPLER_READER_DECL(id, reader, ...) sampler_reader sampler_read_##reader;
METRIC_TABLE(SAMPLER_READER_DECL)
#undef SAMPLER_READER_DECL

/* Reads identity strings and primes the utilization sample buffer. */
void sampler_read_identity(struct sampler_gpu *g);
void sampler_prime_samples(struct sampler_gpu *g);
/* Fills the process list of g (memoized per tick) and copies it to rg. */
void sampler_read_processes(const struct read_ctx *c, struct record_gpu *rg);
void sampler_gpu_free(struct sampler_gpu *g);
/* Stores rc's state in out (unsupported, error, or lost, which marks g lost). */
void sampler_value_fail(struct sampler_gpu *g, struct value *out, nvmlReturn_t rc);
/* Stores v in out when rc is SUCCESS, else as sampler_value_fail does. */
void sampler_value_int(struct sampler_gpu *g, struct value *out, nvmlReturn_t rc, long long v);
void sampler_value_float(struct sampler_gpu *g, struct value *out, nvmlReturn_t rc, double v);
/* Reads the attributes want[] selects into out (sampler_attr.c) at tick: GA_ONCE
 * ones on the first call that wants them only, GA_SAMPLE ones on every call. */
void sampler_attr_read(struct sampler_gpu *g, uint64_t tick, const bool want[GA_COUNT], struct gpu_attrs *out);
/* Row id of g read at tick into out, by the row's reader (sampler.c): a MIG device's values. */
void sampler_read_metric(struct sampler_gpu *g, uint64_t tick, enum metric_id id, struct value *out);

/* Readers that metric rows and attribute rows share (sampler_read.c), one per NVML reading: an ECC
 * total (type, counter), a clock now (type), and GetRemappedRows, memoized per tick (tick 0: not
 * memoized), whose four counts land in g->remap. */
void sampler_read_ecc_total(struct sampler_gpu *g, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
                            struct value *out);
void sampler_read_clock_now(struct sampler_gpu *g, nvmlClockType_t type, struct value *out);
nvmlReturn_t sampler_fetch_remap(struct sampler_gpu *g, uint64_t tick);

/* Processes beyond the record's list (sampler_proc.c): NVML's name of a process into buf (""
 * when NVML has none), for the record and the full list alike; the full list of g (allocated,
 * sorted by pid; the count) for nvidia-smi's table; the per-process SM shares of g. */
void sampler_process_name(unsigned pid, char *buf, size_t len);
unsigned sampler_gpu_processes(struct sampler_gpu *g, struct sampler_proc **out);
int sampler_gpu_proc_util(struct sampler_gpu *g, unsigned *pid, unsigned *sm, unsigned max, unsigned *n);
/* The MIG devices of g (sampler_mig.c), enumerated again at every call; owned by g until the next
 * call or sampler_gpu_free. */
unsigned sampler_gpu_migs(struct sampler_gpu *g, bool full, const struct sampler_mig **out);
void sampler_gpu_migs_free(struct sampler_gpu *g);
/* GPM: checks support and takes the first sample (sampler_gpm.c); frees its samples. */
void sampler_gpm_open(struct sampler_gpu *g);
void sampler_gpm_close(struct sampler_gpu *g);

/* PCIe counters (sampler_pcie.c): open probes them (true: this GPU has them); value fills the
 * transmit (dir 0) or receive (1) row, memoized per tick; slow says whether row id of g is read
 * by the slow-reader thread. */
bool sampler_pcie_open(struct sampler_gpu *g);
void sampler_pcie_value(const struct read_ctx *c, int dir, struct value *out);
bool sampler_pcie_slow(const struct sampler_gpu *g, enum metric_id id);

/* XID events: start registers the GPUs (NULL when events are not available: every GPU's xid_rc
 * then says why); drain counts what is pending (every sample, before the GPUs are filled); stop
 * frees the set. */
struct sampler_events;
struct sampler_events *sampler_events_start(struct sampler_gpu *gpus, unsigned n);
void sampler_events_drain(struct sampler_events *e);
void sampler_events_stop(struct sampler_events *e);
/* Copies g's XID list into rg. */
void sampler_events_copy(struct sampler_gpu *g, struct record_gpu *rg);

#endif
