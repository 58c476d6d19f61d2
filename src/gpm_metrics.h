/*
 * gpm_metrics.h: the GPM (GPU performance metrics, Hopper and newer) rows,
 * the one list that the metric table (metrics.h), the GPM reader
 * (sampler_gpm.c) and the dcgm-exporter names (prom_dcgm.c) expand, so a
 * GPM metric is added in one place.
 *
 * ROW(P, ID, key, nvml_id, unit, prom_name, prom_scale, prom_labels, dcgm_name, dcgm_scale, help),
 * P passed through (as clock_reasons.h's table does)
 *   ID        suffix of the metric id (M_GPM_ID)
 *   nvml_id   NVML_GPM_METRIC_* (nvml_abi.h)
 *   unit      "%" (0-100, as NVML gives it) or "MiB/s"
 *   prom_*    gpumon's exporter: ratios 0-1 and bytes per second
 *   dcgm_*    dcgm-exporter's profiling field (NULL: none), with its scale:
 *             ratios 0-1, bytes per second
 */
#ifndef GPUMON_GPM_METRICS_H
#define GPUMON_GPM_METRICS_H

#define GPM_TABLE(ROW, P) \
    ROW(P, GR_ACTIVE, "gpm.graphics_active", NVML_GPM_METRIC_GRAPHICS_UTIL, "%", \
      "gpumon_gpu_gr_engine_active_ratio", 0.01, NULL, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.01, \
      "Share of time the graphics/compute engine was busy (GPM, like utilization.gpu)") \
    ROW(P, SM_ACTIVE, "gpm.sm_active", NVML_GPM_METRIC_SM_UTIL, "%", \
      "gpumon_gpu_sm_active_ratio", 0.01, NULL, "DCGM_FI_PROF_SM_ACTIVE", 0.01, \
      "Share of SMs busy, averaged over time (GPM): how much of the GPU the kernels fill") \
    ROW(P, SM_OCCUPANCY, "gpm.sm_occupancy", NVML_GPM_METRIC_SM_OCCUPANCY, "%", \
      "gpumon_gpu_sm_occupancy_ratio", 0.01, NULL, "DCGM_FI_PROF_SM_OCCUPANCY", 0.01, \
      "Resident warps against the SMs' maximum (GPM)") \
    ROW(P, TENSOR_ACTIVE, "gpm.tensor_active", NVML_GPM_METRIC_ANY_TENSOR_UTIL, "%", \
      "gpumon_gpu_tensor_active_ratio", 0.01, NULL, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 0.01, \
      "Share of time the tensor cores did any work (GPM)") \
    ROW(P, TENSOR_DFMA, "gpm.tensor_dfma_active", NVML_GPM_METRIC_DFMA_TENSOR_UTIL, "%", \
      "gpumon_gpu_tensor_pipe_active_ratio", 0.01, "pipe=\"dfma\"", "DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE", 0.01, \
      "Share of time the tensor cores did DFMA work (GPM)") \
    ROW(P, TENSOR_HMMA, "gpm.tensor_hmma_active", NVML_GPM_METRIC_HMMA_TENSOR_UTIL, "%", \
      "gpumon_gpu_tensor_pipe_active_ratio", 0.01, "pipe=\"hmma\"", "DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE", 0.01, \
      "Share of time the tensor cores did half-precision (HMMA) work (GPM)") \
    ROW(P, TENSOR_DMMA, "gpm.tensor_dmma_active", NVML_GPM_METRIC_DMMA_TENSOR_UTIL, "%", \
      "gpumon_gpu_tensor_pipe_active_ratio", 0.01, "pipe=\"dmma\"", NULL, 1, \
      "Share of time the tensor cores did double-precision (DMMA) work (GPM)") \
    ROW(P, TENSOR_IMMA, "gpm.tensor_imma_active", NVML_GPM_METRIC_IMMA_TENSOR_UTIL, "%", \
      "gpumon_gpu_tensor_pipe_active_ratio", 0.01, "pipe=\"imma\"", "DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE", 0.01, \
      "Share of time the tensor cores did integer (IMMA) work (GPM)") \
    ROW(P, DRAM_ACTIVE, "gpm.dram_active", NVML_GPM_METRIC_DRAM_BW_UTIL, "%", \
      "gpumon_gpu_dram_active_ratio", 0.01, NULL, "DCGM_FI_PROF_DRAM_ACTIVE", 0.01, \
      "DRAM bandwidth used, share of the peak (GPM)") \
    ROW(P, FP64_ACTIVE, "gpm.fp64_active", NVML_GPM_METRIC_FP64_UTIL, "%", \
      "gpumon_gpu_fp_pipe_active_ratio", 0.01, "precision=\"fp64\"", "DCGM_FI_PROF_PIPE_FP64_ACTIVE", 0.01, \
      "Share of time the FP64 (non-tensor) pipe was busy (GPM)") \
    ROW(P, FP32_ACTIVE, "gpm.fp32_active", NVML_GPM_METRIC_FP32_UTIL, "%", \
      "gpumon_gpu_fp_pipe_active_ratio", 0.01, "precision=\"fp32\"", "DCGM_FI_PROF_PIPE_FP32_ACTIVE", 0.01, \
      "Share of time the FP32 (non-tensor) pipe was busy (GPM)") \
    ROW(P, FP16_ACTIVE, "gpm.fp16_active", NVML_GPM_METRIC_FP16_UTIL, "%", \
      "gpumon_gpu_fp_pipe_active_ratio", 0.01, "precision=\"fp16\"", "DCGM_FI_PROF_PIPE_FP16_ACTIVE", 0.01, \
      "Share of time the FP16 (non-tensor) pipe was busy (GPM)") \
    ROW(P, PCIE_TX, "gpm.pcie.tx", NVML_GPM_METRIC_PCIE_TX_PER_SEC, "MiB/s", \
      "gpumon_gpu_gpm_pcie_bytes_per_second", 1048576, "direction=\"tx\"", "DCGM_FI_PROF_PCIE_TX_BYTES", \
      1048576, "PCIe bytes out of the GPU per second (GPM, counted over the whole interval)") \
    ROW(P, PCIE_RX, "gpm.pcie.rx", NVML_GPM_METRIC_PCIE_RX_PER_SEC, "MiB/s", \
      "gpumon_gpu_gpm_pcie_bytes_per_second", 1048576, "direction=\"rx\"", "DCGM_FI_PROF_PCIE_RX_BYTES", \
      1048576, "PCIe bytes into the GPU per second (GPM, counted over the whole interval)") \
    ROW(P, NVLINK_RX, "gpm.nvlink.rx", NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, "MiB/s", \
      "gpumon_gpu_nvlink_bytes_per_second", 1048576, "direction=\"rx\"", "DCGM_FI_PROF_NVLINK_RX_BYTES", \
      1048576, "NVLink bytes received per second, all links (GPM)") \
    ROW(P, NVLINK_TX, "gpm.nvlink.tx", NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, "MiB/s", \
      "gpumon_gpu_nvlink_bytes_per_second", 1048576, "direction=\"tx\"", "DCGM_FI_PROF_NVLINK_TX_BYTES", \
      1048576, "NVLink bytes sent per second, all links (GPM)")

/* Two GPM samples closer than this give no valid result (the driver's counter refresh). */
#define GPM_MIN_PAIR_NS 100000000ull

#endif
