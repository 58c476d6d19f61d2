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

/* X(ID, key, unit, kind, scope, cadence, decimals, prom_name, prom_type, prom_scale, prom_labels, help, reader)
 * prom_name NULL: the metric is a label (index, uuid, name...) or has no Prometheus form.
 * One flag row per clock event reason, all read by the same reader: */
#define METRIC_REASON_ROW(X, id, bit, key, label, group, help, smi_help) \
    X(M_R_##id, "clocks_event_reasons." key, "", MK_FLAG, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_clock_event_reason_active", "gauge", 1, "reason=\"" key "\"", help, reason)

/* One row per GPM metric (gpm_metrics.h), all read by the same reader: */
#define METRIC_GPM_ROW(X, id, key, nvml_id, unit, pn, ps, pl, dn, ds, help) \
    X(M_GPM_##id, key, unit, MK_FLOAT, MS_GPU, MC_FAST, 1, pn, "gauge", ps, pl, help, gpm)

#define METRIC_TABLE(X) \
    X(M_INDEX, "index", "", MK_INT, MS_GPU, MC_STATIC, 0, NULL, NULL, 1, NULL, \
      "NVML index of the GPU (not stable across reboots; key on uuid)", index) \
    X(M_NAME, "name", "", MK_STR, MS_GPU, MC_STATIC, 0, NULL, NULL, 1, NULL, \
      "Product name of the GPU", name) \
    X(M_UUID, "uuid", "", MK_STR, MS_GPU, MC_STATIC, 0, NULL, NULL, 1, NULL, \
      "Globally unique, stable identifier of the GPU (GPU-...)", uuid) \
    X(M_SERIAL, "serial", "", MK_STR, MS_GPU, MC_STATIC, 0, NULL, NULL, 1, NULL, \
      "Board serial number", serial) \
    X(M_PCI_BUS_ID, "pci.bus_id", "", MK_STR, MS_GPU, MC_STATIC, 0, NULL, NULL, 1, NULL, \
      "PCI bus id, domain:bus:device.function in hex", pci_bus_id) \
    X(M_DRIVER_VERSION, "driver_version", "", MK_STR, MS_GPU, MC_STATIC, 0, NULL, NULL, 1, NULL, \
      "Version of the installed NVIDIA driver", driver_version) \
    X(M_STATE, "state", "", MK_STR, MS_GPU, MC_FAST, 0, NULL, NULL, 1, NULL, \
      "ok, or lost once the GPU fell off the bus or needs a reset", state) \
    X(M_UTIL_GPU, "utilization.gpu", "%", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_utilization_ratio", "gauge", 0.01, NULL, \
      "Share of the last driver period in which a kernel was running", util_gpu) \
    X(M_UTIL_MEM, "utilization.memory", "%", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_memory_utilization_ratio", "gauge", 0.01, NULL, \
      "Share of the last driver period in which device memory was read or written", util_mem) \
    X(M_UTIL_MIN, "utilization.gpu.min", "%", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_utilization_min_ratio", "gauge", 0.01, NULL, \
      "Lowest driver utilization sample since the previous record", util_min) \
    X(M_UTIL_MAX, "utilization.gpu.max", "%", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_utilization_max_ratio", "gauge", 0.01, NULL, \
      "Highest driver utilization sample since the previous record", util_max) \
    X(M_UTIL_IDLE, "utilization.gpu.idle_share", "%", MK_FLOAT, MS_GPU, MC_FAST, 1, \
      "gpumon_gpu_idle_share_ratio", "gauge", 0.01, NULL, \
      "Share of driver utilization samples under 5% since the previous record", util_idle) \
    X(M_UTIL_SAMPLES, "utilization.gpu.samples", "", MK_INT, MS_GPU, MC_FAST, 0, NULL, NULL, 1, NULL, \
      "Number of driver utilization samples since the previous record", util_samples) \
    GPM_TABLE(METRIC_GPM_ROW, X) \
    X(M_ENC, "utilization.encoder", "%", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_encoder_utilization_ratio", "gauge", 0.01, NULL, "Video encoder utilization", enc) \
    X(M_DEC, "utilization.decoder", "%", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_decoder_utilization_ratio", "gauge", 0.01, NULL, "Video decoder utilization", dec) \
    X(M_MEM_TOTAL, "memory.total", "MiB", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_memory_total_bytes", "gauge", 1048576, NULL, "Total installed GPU memory", mem_total) \
    X(M_MEM_USED, "memory.used", "MiB", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_memory_used_bytes", "gauge", 1048576, NULL, \
      "GPU memory allocated by processes (v2 accounting: driver reservation excluded)", mem_used) \
    X(M_MEM_FREE, "memory.free", "MiB", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_memory_free_bytes", "gauge", 1048576, NULL, "Free GPU memory", mem_free) \
    X(M_MEM_RESERVED, "memory.reserved", "MiB", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_memory_reserved_bytes", "gauge", 1048576, NULL, \
      "GPU memory reserved by the driver and firmware", mem_reserved) \
    X(M_TEMP, "temperature.gpu", "C", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_temperature_celsius", "gauge", 1, NULL, "GPU die temperature", temp) \
    X(M_FAN, "fan.speed", "%", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_fan_speed_ratio", "gauge", 0.01, NULL, \
      "Intended fan speed, share of the maximum (may exceed 100)", fan) \
    X(M_POWER, "power.draw", "W", MK_FLOAT, MS_GPU, MC_FAST, 2, \
      "gpumon_gpu_power_watts", "gauge", 1, NULL, "Power drawn by the board", power) \
    X(M_POWER_LIMIT, "power.limit", "W", MK_FLOAT, MS_GPU, MC_FAST, 2, \
      "gpumon_gpu_power_limit_watts", "gauge", 1, NULL, "Configured power management limit", power_limit) \
    X(M_POWER_ENFORCED, "enforced.power.limit", "W", MK_FLOAT, MS_GPU, MC_FAST, 2, \
      "gpumon_gpu_enforced_power_limit_watts", "gauge", 1, NULL, \
      "Effective power limit after all limiters", power_enforced) \
    X(M_ENERGY, "energy.consumption", "J", MK_FLOAT, MS_GPU, MC_FAST, 3, \
      "gpumon_gpu_energy_joules_total", "counter", 1, NULL, \
      "Energy consumed since the driver was loaded", energy) \
    X(M_CLOCK_SM, "clocks.sm", "MHz", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_clock_hertz", "gauge", 1e6, "clock=\"sm\"", "Current SM clock", clock_sm) \
    X(M_CLOCK_MEM, "clocks.mem", "MHz", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_clock_hertz", "gauge", 1e6, "clock=\"memory\"", "Current memory clock", clock_mem) \
    X(M_CLOCK_GR, "clocks.gr", "MHz", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_clock_hertz", "gauge", 1e6, "clock=\"graphics\"", "Current graphics clock", clock_gr) \
    X(M_CLOCK_MAX_SM, "clocks.max.sm", "MHz", MK_INT, MS_GPU, MC_STATIC, 0, \
      "gpumon_gpu_clock_max_hertz", "gauge", 1e6, "clock=\"sm\"", "Maximum SM clock", clock_max_sm) \
    X(M_CLOCK_MAX_MEM, "clocks.max.mem", "MHz", MK_INT, MS_GPU, MC_STATIC, 0, \
      "gpumon_gpu_clock_max_hertz", "gauge", 1e6, "clock=\"memory\"", "Maximum memory clock", clock_max_mem) \
    X(M_CLOCK_MAX_GR, "clocks.max.gr", "MHz", MK_INT, MS_GPU, MC_STATIC, 0, \
      "gpumon_gpu_clock_max_hertz", "gauge", 1e6, "clock=\"graphics\"", "Maximum graphics clock", \
      clock_max_gr) \
    X(M_REASONS, "clocks_event_reasons.active", "", MK_HEX, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_clock_event_reasons", "gauge", 1, NULL, \
      "Bitmask of active clock event (throttle) reasons", reasons) \
    CLOCK_REASON_TABLE(METRIC_REASON_ROW, X) \
    X(M_PSTATE, "pstate", "", MK_PSTATE, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_pstate", "gauge", 1, NULL, "Performance state, 0 (P0, maximum) to 15 (P15)", pstate) \
    X(M_PCIE_TX, "pcie.throughput.tx", "KB/s", MK_INT, MS_GPU, MC_SLOW, 0, \
      "gpumon_gpu_pcie_tx_bytes_per_second", "gauge", 1024, NULL, \
      "PCIe transmit throughput (from the driver's byte counters, R555+; older drivers: sampled over 20 ms)", pcie_tx) \
    X(M_PCIE_RX, "pcie.throughput.rx", "KB/s", MK_INT, MS_GPU, MC_SLOW, 0, \
      "gpumon_gpu_pcie_rx_bytes_per_second", "gauge", 1024, NULL, \
      "PCIe receive throughput (from the driver's byte counters, R555+; older drivers: sampled over 20 ms)", pcie_rx) \
    X(M_PCIE_GEN, "pcie.link.gen.current", "", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_pcie_link_generation", "gauge", 1, NULL, "Current PCIe link generation", pcie_gen) \
    X(M_PCIE_GEN_MAX, "pcie.link.gen.max", "", MK_INT, MS_GPU, MC_STATIC, 0, \
      "gpumon_gpu_pcie_link_generation_max", "gauge", 1, NULL, "Maximum PCIe link generation", \
      pcie_gen_max) \
    X(M_PCIE_WIDTH, "pcie.link.width.current", "", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_pcie_link_width", "gauge", 1, NULL, "Current PCIe link width (lanes)", pcie_width) \
    X(M_PCIE_WIDTH_MAX, "pcie.link.width.max", "", MK_INT, MS_GPU, MC_STATIC, 0, \
      "gpumon_gpu_pcie_link_width_max", "gauge", 1, NULL, "Maximum PCIe link width (lanes)", \
      pcie_width_max) \
    X(M_ECC_CORR, "ecc.errors.corrected.volatile.total", "", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_ecc_errors_corrected_total", "counter", 1, NULL, \
      "Corrected ECC errors since the driver was loaded", ecc_corr) \
    X(M_ECC_UNCORR, "ecc.errors.uncorrected.volatile.total", "", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_ecc_errors_uncorrected_total", "counter", 1, NULL, \
      "Uncorrected ECC errors since the driver was loaded", ecc_uncorr) \
    X(M_RETIRED_PENDING, "retired_pages.pending", "", MK_FLAG, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_retired_pages_pending", "gauge", 1, NULL, \
      "Pages waiting to be retired at the next reset (pre-Ampere)", retired_pending) \
    X(M_REMAP_PENDING, "remapped_rows.pending", "", MK_FLAG, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_remapped_rows_pending", "gauge", 1, NULL, \
      "Row remappings waiting for the next reset (Ampere and newer)", remap_pending) \
    X(M_XID_COUNT, "xid.count", "", MK_INT, MS_GPU, MC_FAST, 0, NULL, NULL, 1, NULL, \
      "XID errors reported since gpumon started (Prometheus: gpumon_gpu_xid_errors_total per code)", \
      xid_count) \
    X(M_XID_LAST, "xid.last", "", MK_INT, MS_GPU, MC_FAST, 0, NULL, NULL, 1, NULL, \
      "Code of the latest XID error since gpumon started (null: none)", xid_last) \
    X(M_PROC_COUNT, "processes.count", "", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_processes", "gauge", 1, NULL, "Number of processes using the GPU", proc_count) \
    X(M_PROC_MEM, "processes.used_memory", "MiB", MK_INT, MS_GPU, MC_FAST, 0, \
      "gpumon_gpu_processes_memory_bytes", "gauge", 1048576, NULL, \
      "GPU memory used by all processes together", proc_mem) \
    X(M_HOST_USER, "host.cpu.user", "%", MK_FLOAT, MS_HOST, MC_FAST, 1, \
      "gpumon_host_cpu_ratio", "gauge", 0.01, "mode=\"user\"", \
      "Host CPU time in user mode (including nice), share of all CPUs", host_user) \
    X(M_HOST_SYSTEM, "host.cpu.system", "%", MK_FLOAT, MS_HOST, MC_FAST, 1, \
      "gpumon_host_cpu_ratio", "gauge", 0.01, "mode=\"system\"", \
      "Host CPU time in the kernel (including irq), share of all CPUs", host_system) \
    X(M_HOST_IOWAIT, "host.cpu.iowait", "%", MK_FLOAT, MS_HOST, MC_FAST, 1, \
      "gpumon_host_cpu_ratio", "gauge", 0.01, "mode=\"iowait\"", \
      "Host CPU time idle while waiting for I/O, share of all CPUs", host_iowait) \
    X(M_HOST_CPUS, "host.cpu.count", "", MK_INT, MS_HOST, MC_FAST, 0, \
      "gpumon_host_cpus", "gauge", 1, NULL, "Number of online host CPUs", host_cpus) \
    X(M_HOST_MEM_TOTAL, "host.memory.total", "MiB", MK_INT, MS_HOST, MC_FAST, 0, \
      "gpumon_host_memory_total_bytes", "gauge", 1048576, NULL, "Host memory installed", host_mem_total) \
    X(M_HOST_MEM_USED, "host.memory.used", "MiB", MK_INT, MS_HOST, MC_FAST, 0, \
      "gpumon_host_memory_used_bytes", "gauge", 1048576, NULL, \
      "Host memory in use (total minus available)", host_mem_used) \
    X(M_JOB_CPU, "job.cpu", "cores", MK_FLOAT, MS_HOST, MC_FAST, 2, \
      "gpumon_job_cpu_cores", "gauge", 1, NULL, \
      "CPU used by the watched process tree (gpumon run), in cores", job_cpu) \
    X(M_JOB_CPU_TOP, "job.cpu.top", "cores", MK_FLOAT, MS_HOST, MC_FAST, 2, \
      "gpumon_job_cpu_top_cores", "gauge", 1, NULL, \
      "CPU demand of the busiest process of the watched tree (time its main thread ran or waited to run), " \
      "in cores", job_cpu_top) \
    X(M_JOB_RSS, "job.rss", "MiB", MK_INT, MS_HOST, MC_FAST, 0, \
      "gpumon_job_memory_rss_bytes", "gauge", 1048576, NULL, \
      "Resident memory of the watched process tree (sum over its processes)", job_rss) \
    X(M_JOB_PROCS, "job.processes", "", MK_INT, MS_HOST, MC_FAST, 0, \
      "gpumon_job_processes", "gauge", 1, NULL, \
      "Processes in the watched tree; 0 once the command has ended", job_procs) \
    X(M_JOB_READ, "job.io.read", "KB/s", MK_INT, MS_HOST, MC_FAST, 0, \
      "gpumon_job_read_bytes_per_second", "gauge", 1024, NULL, \
      "Bytes the watched process tree read from storage (page-cache hits excluded), per second", job_read)

enum metric_id {
#define METRIC_ENUM(id, ...) id,
    METRIC_TABLE(METRIC_ENUM)
#undef METRIC_ENUM
    METRIC_COUNT
};

struct metric {
    enum metric_id id;
    const char *key, *unit;
    enum metric_kind kind;
    enum metric_scope scope;
    enum metric_cadence cadence;
    int decimals;
    const char *prom_name, *prom_type;
    double prom_scale;
    const char *prom_labels, *help;
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
