/*
 * gpm_metrics.h: the GPM (GPU performance metrics, Hopper and newer) rows,
 * the one list that the metric table (metrics.h), the GPM reader
 * (sampler_gpm.c) and the dcgm-exporter names (prom_dcgm.c) expand, so a
 * GPM metric is added in one place.
 *
 * ROW(P, ID, (GPM fields), metric fields...): P passed through (as clock_reasons.h's table does), ID the
 * suffix of the metric id (M_GPM_ID); then, as designated initializers,
 *   in parentheses, the fields of struct gpm_row (below): .nvml_id, NVML_GPM_METRIC_* (nvml_abi.h), and
 *             .dcgm_name, dcgm-exporter's profiling field (none: not exported with --compat dcgm), with
 *             .dcgm_scale from gpumon's unit to dcgm's (ratios 0-1, bytes per second);
 *   the rest, fields of struct metric (metrics.h): .key, .unit ("%", 0-100 as NVML gives it, or
 *             "MiB/s"), .prom_name, .prom_scale (to ratios 0-1 and bytes per second), .prom_labels, .help.
 * metrics.h adds what every GPM row shares (a float of 1 decimal, read every sample, a gauge).
 */
#ifndef GPUMON_GPM_METRICS_H
#define GPUMON_GPM_METRICS_H

/* What a GPM row says besides its metric row. */
struct gpm_row {
    unsigned nvml_id;
    const char *dcgm_name;
    double dcgm_scale;
};

/* GPM_ROW_INIT(P, id, (fields), ...) expands a row into a struct gpm_row initializer. */
#define GPM_FIELDS(...) __VA_ARGS__
#define GPM_ROW_INIT(P, id, gpm, ...) {GPM_FIELDS gpm},

#define GPM_TABLE(ROW, P) \
    ROW(P, GR_ACTIVE, \
      (.nvml_id = NVML_GPM_METRIC_GRAPHICS_UTIL, .dcgm_name = "DCGM_FI_PROF_GR_ENGINE_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.graphics_active", .unit = "%", .prom_name = "gpumon_gpu_gr_engine_active_ratio", \
      .prom_scale = 0.01, \
      .help = "Share of time the graphics/compute engine was busy (GPM, like utilization.gpu)") \
    ROW(P, SM_ACTIVE, \
      (.nvml_id = NVML_GPM_METRIC_SM_UTIL, .dcgm_name = "DCGM_FI_PROF_SM_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.sm_active", .unit = "%", .prom_name = "gpumon_gpu_sm_active_ratio", .prom_scale = 0.01, \
      .help = "Share of SMs busy, averaged over time (GPM): how much of the GPU the kernels fill") \
    ROW(P, SM_OCCUPANCY, \
      (.nvml_id = NVML_GPM_METRIC_SM_OCCUPANCY, .dcgm_name = "DCGM_FI_PROF_SM_OCCUPANCY", .dcgm_scale = 0.01), \
      .key = "gpm.sm_occupancy", .unit = "%", .prom_name = "gpumon_gpu_sm_occupancy_ratio", .prom_scale = 0.01, \
      .help = "Resident warps against the SMs' maximum (GPM)") \
    ROW(P, TENSOR_ACTIVE, \
      (.nvml_id = NVML_GPM_METRIC_ANY_TENSOR_UTIL, .dcgm_name = "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.tensor_active", .unit = "%", .prom_name = "gpumon_gpu_tensor_active_ratio", .prom_scale = 0.01, \
      .help = "Share of time the tensor cores did any work (GPM)") \
    ROW(P, TENSOR_DFMA, \
      (.nvml_id = NVML_GPM_METRIC_DFMA_TENSOR_UTIL, .dcgm_name = "DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.tensor_dfma_active", .unit = "%", .prom_name = "gpumon_gpu_tensor_pipe_active_ratio", \
      .prom_scale = 0.01, .prom_labels = "pipe=\"dfma\"", \
      .help = "Share of time the tensor cores did DFMA work (GPM)") \
    ROW(P, TENSOR_HMMA, \
      (.nvml_id = NVML_GPM_METRIC_HMMA_TENSOR_UTIL, .dcgm_name = "DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.tensor_hmma_active", .unit = "%", .prom_name = "gpumon_gpu_tensor_pipe_active_ratio", \
      .prom_scale = 0.01, .prom_labels = "pipe=\"hmma\"", \
      .help = "Share of time the tensor cores did half-precision (HMMA) work (GPM)") \
    ROW(P, TENSOR_DMMA, (.nvml_id = NVML_GPM_METRIC_DMMA_TENSOR_UTIL), .key = "gpm.tensor_dmma_active", .unit = "%", \
      .prom_name = "gpumon_gpu_tensor_pipe_active_ratio", .prom_scale = 0.01, .prom_labels = "pipe=\"dmma\"", \
      .help = "Share of time the tensor cores did double-precision (DMMA) work (GPM)") \
    ROW(P, TENSOR_IMMA, \
      (.nvml_id = NVML_GPM_METRIC_IMMA_TENSOR_UTIL, .dcgm_name = "DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.tensor_imma_active", .unit = "%", .prom_name = "gpumon_gpu_tensor_pipe_active_ratio", \
      .prom_scale = 0.01, .prom_labels = "pipe=\"imma\"", \
      .help = "Share of time the tensor cores did integer (IMMA) work (GPM)") \
    ROW(P, DRAM_ACTIVE, \
      (.nvml_id = NVML_GPM_METRIC_DRAM_BW_UTIL, .dcgm_name = "DCGM_FI_PROF_DRAM_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.dram_active", .unit = "%", .prom_name = "gpumon_gpu_dram_active_ratio", .prom_scale = 0.01, \
      .help = "DRAM bandwidth used, share of the peak (GPM)") \
    ROW(P, FP64_ACTIVE, \
      (.nvml_id = NVML_GPM_METRIC_FP64_UTIL, .dcgm_name = "DCGM_FI_PROF_PIPE_FP64_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.fp64_active", .unit = "%", .prom_name = "gpumon_gpu_fp_pipe_active_ratio", .prom_scale = 0.01, \
      .prom_labels = "precision=\"fp64\"", .help = "Share of time the FP64 (non-tensor) pipe was busy (GPM)") \
    ROW(P, FP32_ACTIVE, \
      (.nvml_id = NVML_GPM_METRIC_FP32_UTIL, .dcgm_name = "DCGM_FI_PROF_PIPE_FP32_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.fp32_active", .unit = "%", .prom_name = "gpumon_gpu_fp_pipe_active_ratio", .prom_scale = 0.01, \
      .prom_labels = "precision=\"fp32\"", .help = "Share of time the FP32 (non-tensor) pipe was busy (GPM)") \
    ROW(P, FP16_ACTIVE, \
      (.nvml_id = NVML_GPM_METRIC_FP16_UTIL, .dcgm_name = "DCGM_FI_PROF_PIPE_FP16_ACTIVE", .dcgm_scale = 0.01), \
      .key = "gpm.fp16_active", .unit = "%", .prom_name = "gpumon_gpu_fp_pipe_active_ratio", .prom_scale = 0.01, \
      .prom_labels = "precision=\"fp16\"", .help = "Share of time the FP16 (non-tensor) pipe was busy (GPM)") \
    ROW(P, PCIE_TX, \
      (.nvml_id = NVML_GPM_METRIC_PCIE_TX_PER_SEC, .dcgm_name = "DCGM_FI_PROF_PCIE_TX_BYTES", .dcgm_scale = 1048576), \
      .key = "gpm.pcie.tx", .unit = "MiB/s", .prom_name = "gpumon_gpu_gpm_pcie_bytes_per_second", \
      .prom_scale = 1048576, .prom_labels = "direction=\"tx\"", \
      .help = "PCIe bytes out of the GPU per second (GPM, counted over the whole interval)") \
    ROW(P, PCIE_RX, \
      (.nvml_id = NVML_GPM_METRIC_PCIE_RX_PER_SEC, .dcgm_name = "DCGM_FI_PROF_PCIE_RX_BYTES", .dcgm_scale = 1048576), \
      .key = "gpm.pcie.rx", .unit = "MiB/s", .prom_name = "gpumon_gpu_gpm_pcie_bytes_per_second", \
      .prom_scale = 1048576, .prom_labels = "direction=\"rx\"", \
      .help = "PCIe bytes into the GPU per second (GPM, counted over the whole interval)") \
    ROW(P, NVLINK_RX, \
      (.nvml_id = NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, .dcgm_name = "DCGM_FI_PROF_NVLINK_RX_BYTES", .dcgm_scale = 1048576), \
      .key = "gpm.nvlink.rx", .unit = "MiB/s", .prom_name = "gpumon_gpu_nvlink_bytes_per_second", \
      .prom_scale = 1048576, .prom_labels = "direction=\"rx\"", \
      .help = "NVLink bytes received per second, all links (GPM)") \
    ROW(P, NVLINK_TX, \
      (.nvml_id = NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, .dcgm_name = "DCGM_FI_PROF_NVLINK_TX_BYTES", .dcgm_scale = 1048576), \
      .key = "gpm.nvlink.tx", .unit = "MiB/s", .prom_name = "gpumon_gpu_nvlink_bytes_per_second", \
      .prom_scale = 1048576, .prom_labels = "direction=\"tx\"", \
      .help = "NVLink bytes sent per second, all links (GPM)")

/* Two GPM samples closer than this give no valid result (the driver's counter refresh). */
#define GPM_MIN_PAIR_NS 100000000ull

/* The rows' count. */
enum { GPM_COUNT =
#define GPM_COUNT_ROW(P, id, ...) +1
    GPM_TABLE(GPM_COUNT_ROW, _)
#undef GPM_COUNT_ROW
};

#endif
