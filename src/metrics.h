/*
 * metrics.h: THE metric table, the master copy of every metric gpumon knows.
 *
 * One row per metric: stable key (nvidia-smi's field name where it has one),
 * unit, value kind, scope (per GPU or host), cadence (read once, every
 * sample, or by the slow-reader thread), decimals for text output,
 * Prometheus name, type, scale to base units and labels, help text, and the
 * name of the reader that fills the value (the sampler expands the table
 * into its readers, sampler_read_NAME; nothing else sees them). Every
 * output (text, CSV, JSON Lines, --list-metrics, option checking) walks
 * this table; adding a metric is one row here plus its reader. The clock
 * event reason rows come from clock_reasons.h. Keys and Prometheus names
 * are public interface.
 */
#ifndef GPUMON_METRICS_H
#define GPUMON_METRICS_H

#include <stdbool.h>
#include "clock_reasons.h"
#include "gpm_metrics.h"
#include "record.h"

enum metric_kind { MK_INT, MK_FLOAT, MK_STR, MK_HEX, MK_FLAG, MK_PSTATE };
enum metric_scope { MS_GPU, MS_HOST };
enum metric_cadence { MC_STATIC, MC_FAST, MC_SLOW };

/* X(ID, reader, fields...): the metric's id, the name of its reader (sampler_read_NAME), then the fields
 * of struct metric (below) as designated initializers; a field left out is zero: scope MS_GPU, no
 * decimals, no Prometheus form (prom_name NULL: a label such as index, uuid, name, or exported in
 * another shape). One flag row per clock event reason, all read by the same reader: */
#define METRIC_REASON_ROW(X, id, bit, rkey, label, group, rhelp, smi_help) \
    X(M_R_##id, reason, .key = "clocks_event_reasons." rkey, .unit = "", .kind = MK_FLAG, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_clock_event_reason_active", .prom_type = "gauge", .prom_scale = 1, \
      .prom_labels = "reason=\"" rkey "\"", .help = rhelp)

/* One row per GPM metric (gpm_metrics.h), all read by the same reader: */
#define METRIC_GPM_ROW(X, id, gpm_fields, ...) \
    X(M_GPM_##id, gpm, .kind = MK_FLOAT, .cadence = MC_FAST, .decimals = 1, .prom_type = "gauge", __VA_ARGS__)

#define METRIC_TABLE(X) \
    X(M_INDEX, index, .key = "index", .unit = "", .kind = MK_INT, .cadence = MC_STATIC, \
      .help = "NVML index of the GPU (not stable across reboots; key on uuid)") \
    X(M_NAME, name, .key = "name", .unit = "", .kind = MK_STR, .cadence = MC_STATIC, \
      .help = "Product name of the GPU") \
    X(M_UUID, uuid, .key = "uuid", .unit = "", .kind = MK_STR, .cadence = MC_STATIC, \
      .help = "Globally unique, stable identifier of the GPU (GPU-...)") \
    X(M_SERIAL, serial, .key = "serial", .unit = "", .kind = MK_STR, .cadence = MC_STATIC, \
      .help = "Board serial number") \
    X(M_PCI_BUS_ID, pci_bus_id, .key = "pci.bus_id", .unit = "", .kind = MK_STR, .cadence = MC_STATIC, \
      .help = "PCI bus id, domain:bus:device.function in hex") \
    X(M_DRIVER_VERSION, driver_version, .key = "driver_version", .unit = "", .kind = MK_STR, .cadence = MC_STATIC, \
      .help = "Version of the installed NVIDIA driver") \
    X(M_STATE, state, .key = "state", .unit = "", .kind = MK_STR, .cadence = MC_FAST, \
      .help = "ok, or lost once the GPU fell off the bus or needs a reset") \
    X(M_UTIL_GPU, util_gpu, .key = "utilization.gpu", .unit = "%", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_utilization_ratio", .prom_type = "gauge", .prom_scale = 0.01, \
      .help = "Share of the last driver period in which a kernel was running") \
    X(M_UTIL_MEM, util_mem, .key = "utilization.memory", .unit = "%", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_memory_utilization_ratio", .prom_type = "gauge", .prom_scale = 0.01, \
      .help = "Share of the last driver period in which device memory was read or written") \
    X(M_UTIL_MIN, util_min, .key = "utilization.gpu.min", .unit = "%", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_utilization_min_ratio", .prom_type = "gauge", .prom_scale = 0.01, \
      .help = "Lowest driver utilization sample since the previous record") \
    X(M_UTIL_MAX, util_max, .key = "utilization.gpu.max", .unit = "%", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_utilization_max_ratio", .prom_type = "gauge", .prom_scale = 0.01, \
      .help = "Highest driver utilization sample since the previous record") \
    X(M_UTIL_IDLE, util_idle, .key = "utilization.gpu.idle_share", .unit = "%", .kind = MK_FLOAT, \
      .cadence = MC_FAST, .decimals = 1, .prom_name = "gpumon_gpu_idle_share_ratio", .prom_type = "gauge", \
      .prom_scale = 0.01, .help = "Share of driver utilization samples under 5% since the previous record") \
    X(M_UTIL_SAMPLES, util_samples, .key = "utilization.gpu.samples", .unit = "", .kind = MK_INT, \
      .cadence = MC_FAST, .help = "Number of driver utilization samples since the previous record") \
    GPM_TABLE(METRIC_GPM_ROW, X) \
    X(M_ENC, enc, .key = "utilization.encoder", .unit = "%", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_encoder_utilization_ratio", .prom_type = "gauge", .prom_scale = 0.01, \
      .help = "Video encoder utilization") \
    X(M_DEC, dec, .key = "utilization.decoder", .unit = "%", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_decoder_utilization_ratio", .prom_type = "gauge", .prom_scale = 0.01, \
      .help = "Video decoder utilization") \
    X(M_MEM_TOTAL, mem_total, .key = "memory.total", .unit = "MiB", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_memory_total_bytes", .prom_type = "gauge", .prom_scale = 1048576, \
      .help = "Total installed GPU memory") \
    X(M_MEM_USED, mem_used, .key = "memory.used", .unit = "MiB", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_memory_used_bytes", .prom_type = "gauge", .prom_scale = 1048576, \
      .help = "GPU memory allocated by processes (v2 accounting: driver reservation excluded)") \
    X(M_MEM_FREE, mem_free, .key = "memory.free", .unit = "MiB", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_memory_free_bytes", .prom_type = "gauge", .prom_scale = 1048576, \
      .help = "Free GPU memory") \
    X(M_MEM_RESERVED, mem_reserved, .key = "memory.reserved", .unit = "MiB", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_memory_reserved_bytes", .prom_type = "gauge", .prom_scale = 1048576, \
      .help = "GPU memory reserved by the driver and firmware") \
    X(M_TEMP, temp, .key = "temperature.gpu", .unit = "C", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_temperature_celsius", .prom_type = "gauge", .prom_scale = 1, \
      .help = "GPU die temperature") \
    X(M_FAN, fan, .key = "fan.speed", .unit = "%", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_fan_speed_ratio", .prom_type = "gauge", .prom_scale = 0.01, \
      .help = "Intended fan speed, share of the maximum (may exceed 100)") \
    X(M_POWER, power, .key = "power.draw", .unit = "W", .kind = MK_FLOAT, .cadence = MC_FAST, .decimals = 2, \
      .prom_name = "gpumon_gpu_power_watts", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Power drawn by the board") \
    X(M_POWER_LIMIT, power_limit, .key = "power.limit", .unit = "W", .kind = MK_FLOAT, .cadence = MC_FAST, \
      .decimals = 2, .prom_name = "gpumon_gpu_power_limit_watts", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Configured power management limit") \
    X(M_POWER_ENFORCED, power_enforced, .key = "enforced.power.limit", .unit = "W", .kind = MK_FLOAT, \
      .cadence = MC_FAST, .decimals = 2, .prom_name = "gpumon_gpu_enforced_power_limit_watts", \
      .prom_type = "gauge", .prom_scale = 1, .help = "Effective power limit after all limiters") \
    X(M_ENERGY, energy, .key = "energy.consumption", .unit = "J", .kind = MK_FLOAT, .cadence = MC_FAST, \
      .decimals = 3, .prom_name = "gpumon_gpu_energy_joules_total", .prom_type = "counter", .prom_scale = 1, \
      .help = "Energy consumed since the driver was loaded") \
    X(M_CLOCK_SM, clock_sm, .key = "clocks.sm", .unit = "MHz", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_clock_hertz", .prom_type = "gauge", .prom_scale = 1e6, \
      .prom_labels = "clock=\"sm\"", .help = "Current SM clock") \
    X(M_CLOCK_MEM, clock_mem, .key = "clocks.mem", .unit = "MHz", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_clock_hertz", .prom_type = "gauge", .prom_scale = 1e6, \
      .prom_labels = "clock=\"memory\"", .help = "Current memory clock") \
    X(M_CLOCK_GR, clock_gr, .key = "clocks.gr", .unit = "MHz", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_clock_hertz", .prom_type = "gauge", .prom_scale = 1e6, \
      .prom_labels = "clock=\"graphics\"", .help = "Current graphics clock") \
    X(M_CLOCK_MAX_SM, clock_max_sm, .key = "clocks.max.sm", .unit = "MHz", .kind = MK_INT, .cadence = MC_STATIC, \
      .prom_name = "gpumon_gpu_clock_max_hertz", .prom_type = "gauge", .prom_scale = 1e6, \
      .prom_labels = "clock=\"sm\"", .help = "Maximum SM clock") \
    X(M_CLOCK_MAX_MEM, clock_max_mem, .key = "clocks.max.mem", .unit = "MHz", .kind = MK_INT, \
      .cadence = MC_STATIC, .prom_name = "gpumon_gpu_clock_max_hertz", .prom_type = "gauge", .prom_scale = 1e6, \
      .prom_labels = "clock=\"memory\"", .help = "Maximum memory clock") \
    X(M_CLOCK_MAX_GR, clock_max_gr, .key = "clocks.max.gr", .unit = "MHz", .kind = MK_INT, .cadence = MC_STATIC, \
      .prom_name = "gpumon_gpu_clock_max_hertz", .prom_type = "gauge", .prom_scale = 1e6, \
      .prom_labels = "clock=\"graphics\"", .help = "Maximum graphics clock") \
    X(M_REASONS, reasons, .key = "clocks_event_reasons.active", .unit = "", .kind = MK_HEX, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_clock_event_reasons", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Bitmask of active clock event (throttle) reasons") \
    CLOCK_REASON_TABLE(METRIC_REASON_ROW, X) \
    X(M_PSTATE, pstate, .key = "pstate", .unit = "", .kind = MK_PSTATE, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_pstate", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Performance state, 0 (P0, maximum) to 15 (P15)") \
    X(M_PCIE_TX, pcie_tx, .key = "pcie.throughput.tx", .unit = "KB/s", .kind = MK_INT, .cadence = MC_SLOW, \
      .prom_name = "gpumon_gpu_pcie_tx_bytes_per_second", .prom_type = "gauge", .prom_scale = 1024, \
      .help = "PCIe transmit throughput (from the driver's byte counters, R555+; older drivers: sampled over 20 ms)") \
    X(M_PCIE_RX, pcie_rx, .key = "pcie.throughput.rx", .unit = "KB/s", .kind = MK_INT, .cadence = MC_SLOW, \
      .prom_name = "gpumon_gpu_pcie_rx_bytes_per_second", .prom_type = "gauge", .prom_scale = 1024, \
      .help = "PCIe receive throughput (from the driver's byte counters, R555+; older drivers: sampled over 20 ms)") \
    X(M_PCIE_GEN, pcie_gen, .key = "pcie.link.gen.current", .unit = "", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_pcie_link_generation", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Current PCIe link generation") \
    X(M_PCIE_GEN_MAX, pcie_gen_max, .key = "pcie.link.gen.max", .unit = "", .kind = MK_INT, .cadence = MC_STATIC, \
      .prom_name = "gpumon_gpu_pcie_link_generation_max", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Maximum PCIe link generation") \
    X(M_PCIE_WIDTH, pcie_width, .key = "pcie.link.width.current", .unit = "", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_pcie_link_width", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Current PCIe link width (lanes)") \
    X(M_PCIE_WIDTH_MAX, pcie_width_max, .key = "pcie.link.width.max", .unit = "", .kind = MK_INT, \
      .cadence = MC_STATIC, .prom_name = "gpumon_gpu_pcie_link_width_max", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Maximum PCIe link width (lanes)") \
    X(M_ECC_CORR, ecc_corr, .key = "ecc.errors.corrected.volatile.total", .unit = "", .kind = MK_INT, \
      .cadence = MC_FAST, .prom_name = "gpumon_gpu_ecc_errors_corrected_total", .prom_type = "counter", \
      .prom_scale = 1, .help = "Corrected ECC errors since the driver was loaded") \
    X(M_ECC_UNCORR, ecc_uncorr, .key = "ecc.errors.uncorrected.volatile.total", .unit = "", .kind = MK_INT, \
      .cadence = MC_FAST, .prom_name = "gpumon_gpu_ecc_errors_uncorrected_total", .prom_type = "counter", \
      .prom_scale = 1, .help = "Uncorrected ECC errors since the driver was loaded") \
    X(M_RETIRED_PENDING, retired_pending, .key = "retired_pages.pending", .unit = "", .kind = MK_FLAG, \
      .cadence = MC_FAST, .prom_name = "gpumon_gpu_retired_pages_pending", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Pages waiting to be retired at the next reset (pre-Ampere)") \
    X(M_REMAP_PENDING, remap_pending, .key = "remapped_rows.pending", .unit = "", .kind = MK_FLAG, \
      .cadence = MC_FAST, .prom_name = "gpumon_gpu_remapped_rows_pending", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Row remappings waiting for the next reset (Ampere and newer)") \
    X(M_XID_COUNT, xid_count, .key = "xid.count", .unit = "", .kind = MK_INT, .cadence = MC_FAST, \
      .help = "XID errors reported since gpumon started (Prometheus: gpumon_gpu_xid_errors_total per code)") \
    X(M_XID_LAST, xid_last, .key = "xid.last", .unit = "", .kind = MK_INT, .cadence = MC_FAST, \
      .help = "Code of the latest XID error since gpumon started (null: none)") \
    X(M_PROC_COUNT, proc_count, .key = "processes.count", .unit = "", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_processes", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Number of processes using the GPU") \
    X(M_PROC_MEM, proc_mem, .key = "processes.used_memory", .unit = "MiB", .kind = MK_INT, .cadence = MC_FAST, \
      .prom_name = "gpumon_gpu_processes_memory_bytes", .prom_type = "gauge", .prom_scale = 1048576, \
      .help = "GPU memory used by all processes together") \
    X(M_HOST_USER, host_user, .key = "host.cpu.user", .unit = "%", .kind = MK_FLOAT, .scope = MS_HOST, \
      .cadence = MC_FAST, .decimals = 1, .prom_name = "gpumon_host_cpu_ratio", .prom_type = "gauge", \
      .prom_scale = 0.01, .prom_labels = "mode=\"user\"", \
      .help = "Host CPU time in user mode (including nice), share of all CPUs") \
    X(M_HOST_SYSTEM, host_system, .key = "host.cpu.system", .unit = "%", .kind = MK_FLOAT, .scope = MS_HOST, \
      .cadence = MC_FAST, .decimals = 1, .prom_name = "gpumon_host_cpu_ratio", .prom_type = "gauge", \
      .prom_scale = 0.01, .prom_labels = "mode=\"system\"", \
      .help = "Host CPU time in the kernel (including irq), share of all CPUs") \
    X(M_HOST_IOWAIT, host_iowait, .key = "host.cpu.iowait", .unit = "%", .kind = MK_FLOAT, .scope = MS_HOST, \
      .cadence = MC_FAST, .decimals = 1, .prom_name = "gpumon_host_cpu_ratio", .prom_type = "gauge", \
      .prom_scale = 0.01, .prom_labels = "mode=\"iowait\"", \
      .help = "Host CPU time idle while waiting for I/O, share of all CPUs") \
    X(M_HOST_CPUS, host_cpus, .key = "host.cpu.count", .unit = "", .kind = MK_INT, .scope = MS_HOST, \
      .cadence = MC_FAST, .prom_name = "gpumon_host_cpus", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Number of online host CPUs") \
    X(M_HOST_MEM_TOTAL, host_mem_total, .key = "host.memory.total", .unit = "MiB", .kind = MK_INT, \
      .scope = MS_HOST, .cadence = MC_FAST, .prom_name = "gpumon_host_memory_total_bytes", .prom_type = "gauge", \
      .prom_scale = 1048576, .help = "Host memory installed") \
    X(M_HOST_MEM_USED, host_mem_used, .key = "host.memory.used", .unit = "MiB", .kind = MK_INT, .scope = MS_HOST, \
      .cadence = MC_FAST, .prom_name = "gpumon_host_memory_used_bytes", .prom_type = "gauge", \
      .prom_scale = 1048576, .help = "Host memory in use (total minus available)") \
    X(M_JOB_CPU, job_cpu, .key = "job.cpu", .unit = "cores", .kind = MK_FLOAT, .scope = MS_HOST, \
      .cadence = MC_FAST, .decimals = 2, .prom_name = "gpumon_job_cpu_cores", .prom_type = "gauge", \
      .prom_scale = 1, .help = "CPU used by the watched process tree (gpumon run), in cores") \
    X(M_JOB_CPU_TOP, job_cpu_top, .key = "job.cpu.top", .unit = "cores", .kind = MK_FLOAT, .scope = MS_HOST, \
      .cadence = MC_FAST, .decimals = 2, .prom_name = "gpumon_job_cpu_top_cores", .prom_type = "gauge", \
      .prom_scale = 1, \
      .help = "CPU demand of the busiest process of the watched tree (time its main thread ran or waited to run), " \
              "in cores") \
    X(M_JOB_RSS, job_rss, .key = "job.rss", .unit = "MiB", .kind = MK_INT, .scope = MS_HOST, .cadence = MC_FAST, \
      .prom_name = "gpumon_job_memory_rss_bytes", .prom_type = "gauge", .prom_scale = 1048576, \
      .help = "Resident memory of the watched process tree (sum over its processes)") \
    X(M_JOB_PROCS, job_procs, .key = "job.processes", .unit = "", .kind = MK_INT, .scope = MS_HOST, \
      .cadence = MC_FAST, .prom_name = "gpumon_job_processes", .prom_type = "gauge", .prom_scale = 1, \
      .help = "Processes in the watched tree; 0 once the command has ended") \
    X(M_JOB_READ, job_read, .key = "job.io.read", .unit = "KB/s", .kind = MK_INT, .scope = MS_HOST, \
      .cadence = MC_FAST, .prom_name = "gpumon_job_read_bytes_per_second", .prom_type = "gauge", \
      .prom_scale = 1024, \
      .help = "Bytes the watched process tree read from storage (page-cache hits excluded), per second")

enum metric_id {
#define METRIC_ENUM(id, reader, ...) id,
    METRIC_TABLE(METRIC_ENUM)
#undef METRIC_ENUM
    METRIC_COUNT
};
/* metrics.h expands the GPM table in one run of rows: GPM row i is metric M_GPM_GR_ACTIVE + i. */
_Static_assert(M_GPM_NVLINK_TX - M_GPM_GR_ACTIVE + 1 == GPM_COUNT, "the GPM rows are one run of the metric table");

struct metric {
    enum metric_id id;
    const char *key;                /* stable, public: nvidia-smi's field name where it has one */
    const char *unit;               /* "" when none */
    enum metric_kind kind;
    enum metric_scope scope;        /* per GPU, or the host's */
    enum metric_cadence cadence;    /* read once, every sample, or by the slow-reader thread */
    int decimals;                   /* of a float in text output */
    const char *prom_name;          /* the exporter's name (NULL: none), public */
    const char *prom_type;          /* "gauge" or "counter" */
    double prom_scale;              /* from unit to the exporter's base unit */
    const char *prom_labels;        /* labels of its own beside gpu and uuid, or NULL */
    const char *help;
};

extern const struct metric metric_table[METRIC_COUNT];

/* The metric row of a clock event reason. */
static inline enum metric_id metric_reason_id(enum clock_reason_id r)
{
    static const enum metric_id ids[CLOCK_REASON_COUNT] = {
#define METRIC_REASON_ID(P, id, ...) [CR_##id] = M_R_##id,
        CLOCK_REASON_TABLE(METRIC_REASON_ID, _)
#undef METRIC_REASON_ID
    };
    return ids[r];
}

/* The row for a key, or NULL. */
const struct metric *metric_find(const char *key);
/* Parses a comma-separated list of keys into ids. Returns the count, or -1
 * with the offending key copied to bad (size badlen). */
int metric_parse_list(const char *list, enum metric_id *ids, int max, char *bad, size_t badlen);
/* Prints the table for --list-metrics. */
void metric_print_table(void);
/* Whether a GPU's values (v[METRIC_COUNT], a record_gpu's) say it is lost: its state reads "lost" (the
 * sampler's, or a log's), or its state or utilization carries the lost state. */
bool metric_gpu_lost(const struct value *v);

#endif
