/*
 * sim_scenario.h: the in-memory form of a simulator scenario.
 *
 * A scenario is parsed once per 0->1 nvmlInit (sim_scenario_parse.c reads
 * the text, sim_scenario_expr.c the numbers and signal expressions,
 * sim_scenario_default.c fills derived defaults and holds the built-in
 * scenario). After loading it is read-only except for the per-fault "fired"
 * flags, which sim_state.c changes under its mutex.
 *
 * Two tables here are the master copies: sim_metric_table (every metric a
 * signal can drive, with its clamp range) and sim_family_table (every
 * family a scenario can mark unsupported or forbidden). The parser, the
 * model and the docs all follow them. Every array is bounded (SIM_MAX_*),
 * so no input can make the simulator allocate without limit.
 */
#ifndef GPUMON_SIM_SCENARIO_H
#define GPUMON_SIM_SCENARIO_H

#include <stddef.h>

struct sim_board;

#define SIM_MAX_GPUS 64
#define SIM_MAX_TERMS 8
#define SIM_MAX_PROCS 64            /* per GPU */
#define SIM_MAX_FAULTS 4096         /* per GPU, after expanding "every" */
#define SIM_MAX_LINE 4096           /* bytes per line, both scenario and trace */
#define SIM_MAX_LINES 100000
#define SIM_MAX_TRACES 256
#define SIM_MAX_TRACE_POINTS 100000
#define SIM_MAX_TIME_S 1e9          /* any time argument, seconds */
#define SIM_MAX_NUMBER 1e18         /* any numeric literal after units */
#define SIM_PROC_NAME_LEN 256
#define SIM_FUNC_NAME_LEN 64

enum sim_term_kind {
    SIM_TERM_CONST,
    SIM_TERM_SQUARE,
    SIM_TERM_SINE,
    SIM_TERM_SAW,
    SIM_TERM_RAMP,
    SIM_TERM_STEP,
    SIM_TERM_NOISE,
    SIM_TERM_TRACE
};

struct sim_trace {                  /* piecewise-linear points, t ascending */
    size_t n;
    double *t;
    double *v;
};

struct sim_term {
    enum sim_term_kind kind;
    double a[4];
    const struct sim_trace *trace;  /* owned by the scenario's trace list */
};

struct sim_signal {                 /* sum of terms; nterms == 0: no signal */
    int nterms;
    struct sim_term terms[SIM_MAX_TERMS];
};

enum sim_metric {
    SIM_M_UTIL_GPU,
    SIM_M_UTIL_MEM,
    SIM_M_MEMORY_USED,
    SIM_M_TEMPERATURE,
    SIM_M_FAN,
    SIM_M_POWER,
    SIM_M_CLOCK_SM,
    SIM_M_CLOCK_MEM,
    SIM_M_CLOCK_GRAPHICS,
    SIM_M_CLOCK_VIDEO,
    SIM_M_PSTATE,
    SIM_M_PCIE_TX,
    SIM_M_PCIE_RX,
    SIM_M_ENCODER,
    SIM_M_DECODER,
    SIM_M_REASONS,
    SIM_M_ECC_CORRECTED,
    SIM_M_ECC_UNCORRECTED,
    SIM_M_RETIRED_PENDING,
    SIM_M_REMAP_PENDING,
    SIM_M_REMAP_CORRECTED,
    SIM_M_REMAP_UNCORRECTED,
    SIM_M_REMAP_FAILURE,
    /* GPM (Hopper and newer), % except NVLink MiB/s; defaults follow util.gpu (sim_model.c) */
    SIM_M_GPM_GRAPHICS,
    SIM_M_GPM_SM,
    SIM_M_GPM_OCCUPANCY,
    SIM_M_GPM_INTEGER,
    SIM_M_GPM_TENSOR,
    SIM_M_GPM_DFMA,
    SIM_M_GPM_HMMA,
    SIM_M_GPM_DMMA,
    SIM_M_GPM_IMMA,
    SIM_M_GPM_DRAM,
    SIM_M_GPM_FP64,
    SIM_M_GPM_FP32,
    SIM_M_GPM_FP16,
    SIM_M_GPM_NVLINK_RX,
    SIM_M_GPM_NVLINK_TX,
    SIM_M_COUNT
};

struct sim_metric_info {
    const char *name;               /* key in the scenario file */
    double min, max;                /* clamp range of the evaluated value */
};
extern const struct sim_metric_info sim_metric_table[SIM_M_COUNT];

enum sim_family {
    SIM_F_FAN,
    SIM_F_ECC,
    SIM_F_ENCODER,
    SIM_F_DECODER,
    SIM_F_REMAPPED_ROWS,
    SIM_F_TEMPERATURE,
    SIM_F_POWER,
    SIM_F_ENERGY,
    SIM_F_PCIE_THROUGHPUT,
    SIM_F_PCIE_LINK,
    SIM_F_PROCESSES,
    SIM_F_SAMPLES,
    SIM_F_PROCESS_UTILIZATION,
    SIM_F_CLOCKS,
    SIM_F_PSTATE,
    SIM_F_RETIRED_PAGES,
    SIM_F_MEMORY,
    SIM_F_UTILIZATION,
    SIM_F_EVENTS,
    SIM_F_SERIAL,
    SIM_F_GPM,
    SIM_F_HANDLE,                   /* getting the handle (by index, UUID or bus id) */
    SIM_F_COUNT,
    SIM_F_ALWAYS = SIM_F_COUNT      /* identity calls: never unsupported */
};
extern const char *const sim_family_table[SIM_F_COUNT];

/* What a GPU with MIG on answers 3 to (docs/nvml-facts.md §22): utilization rates, encoder/decoder, process
 * utilization, and the GetSamples types that read them. */
#define SIM_F_MIG_OFF ((1u << SIM_F_UTILIZATION) | (1u << SIM_F_ENCODER) | (1u << SIM_F_DECODER) | \
                       (1u << SIM_F_PROCESS_UTILIZATION))

#define SIM_PROC_COMPUTE 1u
#define SIM_PROC_GRAPHICS 2u
#define SIM_PROC_MPS 4u             /* an MPS client: listed by the MPS process calls only */

struct sim_process {
    unsigned int pid;
    char name[SIM_PROC_NAME_LEN];
    struct sim_signal memory;       /* bytes; no terms: 512 MiB */
    long long start_us, stop_us;    /* scenario time; stop_us < 0: never */
    double share;                   /* fraction of the GPU's util.gpu */
    unsigned int types;             /* SIM_PROC_* */
};

enum sim_fault_kind {
    SIM_FAULT_LOST,
    SIM_FAULT_UNSUPPORTED,
    SIM_FAULT_NO_PERMISSION,
    SIM_FAULT_HANG,
    SIM_FAULT_XID
};

struct sim_fault {
    long long t_us;                 /* scenario time */
    enum sim_fault_kind kind;
    int family;                     /* UNSUPPORTED, NO_PERMISSION */
    unsigned int xid;               /* XID */
    double hang_s;                  /* HANG: wall seconds */
    char func[SIM_FUNC_NAME_LEN];   /* HANG: exported function name */
    int fired;                      /* HANG: already served (runtime) */
    size_t seq;                     /* input order, for a stable sort */
};

/* Fields a scenario set explicitly (the rest are derived in _default.c). */
#define SIM_SET_UUID 0x01u
#define SIM_SET_PCI 0x02u
#define SIM_SET_SERIAL 0x04u
#define SIM_SET_DEVICE_ID 0x08u
#define SIM_SET_ENFORCED 0x10u
#define SIM_SET_NAME 0x20u
#define SIM_SET_NVLINKS 0x40u
#define SIM_SET_BAR1 0x80u
#define SIM_SET_VBIOS 0x100u
#define SIM_SET_FANS 0x200u

enum sim_clock { SIM_CLK_GRAPHICS, SIM_CLK_SM, SIM_CLK_MEM, SIM_CLK_VIDEO, SIM_CLK_COUNT };

struct sim_gpu {
    unsigned int set;               /* SIM_SET_* */
    char name[96];
    char uuid[96];
    char serial[30];
    char bus_id[32];                /* "00000000:18:00.0" */
    unsigned int pci_domain, pci_bus, pci_device;
    unsigned int pci_device_id, pci_subsystem_id;
    unsigned long long memory_total, memory_reserved;
    unsigned int power_limit_mw, enforced_limit_mw;
    unsigned int power_range_w[2];           /* power_range min, max (W); 0: derived from power_limit */
    unsigned int clock_max[SIM_CLK_COUNT];
    unsigned int temp_threshold[4];          /* shutdown, slowdown, mem_max, gpu_max (C) */
    unsigned int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
    unsigned int num_fans;          /* the board's unless SIM_SET_FANS */
    int ecc_enabled;
    int gpm;                        /* GPM: 1 on, 0 off, -1 by the name (Hopper and newer) */
    const struct sim_board *board;  /* the row of the name (sim_board.h), set after parsing */
    char vbios[32];                 /* the board's unless SIM_SET_VBIOS */
    unsigned int nvlinks;           /* the board's unless SIM_SET_NVLINKS */
    unsigned long long bar1_total;  /* bytes; the board's unless SIM_SET_BAR1 */
    int mig_current, mig_pending;   /* NVML_DEVICE_MIG_*; only on boards with MIG */
    int persistence;                /* NVML_FEATURE_* */
    int display;                    /* NVML_FEATURE_*: a display attached and active (display mode and active) */
    int compute_mode;               /* NVML_COMPUTEMODE_* */
    unsigned int unsupported;       /* bit per sim_family */
    struct sim_signal sig[SIM_M_COUNT];
    struct sim_process *procs;
    size_t nprocs;
    struct sim_fault *faults;       /* sorted by t_us after loading */
    size_t nfaults;
};

struct sim_scenario {
    char path[1024];                /* for messages; "<builtin>" for the default */
    unsigned long long seed;
    char driver[80];
    int has_driver;
    int cuda;
    int has_cuda;
    int init_error;                 /* 0: none */
    unsigned int sample_period_ms;
    unsigned int pcie_latency_ms;
    int process_layout;             /* 0: by driver version; 535: 32-byte _v3 */
    unsigned int ngpus;
    struct sim_gpu gpus[SIM_MAX_GPUS];
    struct sim_trace *traces[SIM_MAX_TRACES];
    size_t ntraces;
};

/*
 * Loads the scenario at path, or the built-in one when path is NULL.
 * Returns a new scenario (free with sim_scenario_free), or NULL with a
 * one-line "FILE:LINE: problem" message in err. Never crashes on any input.
 */
struct sim_scenario *sim_scenario_load(const char *path, char *err, size_t errlen);
void sim_scenario_free(struct sim_scenario *sc);

/* Parses scenario text (used for files and the built-in text). */
struct sim_scenario *sim_scenario_parse_text(const char *text, size_t len, const char *path,
                                             const char *dir, char *err, size_t errlen);

/* Fills derived defaults for gpu index i (uuid, pci, serial, ids). */
void sim_scenario_default_gpu(struct sim_gpu *g);
void sim_scenario_finish_gpu(const struct sim_scenario *sc, struct sim_gpu *g, unsigned int index);
extern const char sim_scenario_builtin[];

/* Looks up names; -1 if unknown. */
int sim_scenario_metric_by_name(const char *name);
int sim_scenario_family_by_name(const char *name);
int sim_scenario_return_by_name(const char *name);

/* True when GPU g has GPM: its gpm key, else its board's (Hopper and newer: H100, H200, GH200, B200...). */
int sim_scenario_gpu_has_gpm(const struct sim_gpu *g);

/* True when the driver string is a 535.43-535.86 release (32-byte _v3). */
int sim_scenario_driver_is_r535_early(const char *driver);

#endif
