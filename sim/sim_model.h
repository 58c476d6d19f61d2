/*
 * sim_model.h: what a simulated GPU reads at a given scenario time.
 *
 * Turns scenario signals into the values the NVML calls return: it applies
 * the idle/load defaults for metrics without a signal, clamps to each
 * metric's range, drops clocks when clock-event reasons are active, sums
 * process memory, keeps the monotonic counters (energy, ECC), and defines
 * the driver's sample ring (sample k is taken at scenario time k * period;
 * the ring holds the newest SIM_MODEL_RING samples). All functions expect
 * the sim_state mutex to be held.
 */
#ifndef GPUMON_SIM_MODEL_H
#define GPUMON_SIM_MODEL_H

#include "sim_scenario.h"
#include "sim_state.h"

#define SIM_MODEL_RING 120

double sim_model_metric(unsigned int gpu, enum sim_metric m, long long t_us);
unsigned long long sim_model_reasons(unsigned int gpu, long long t_us);
unsigned int sim_model_clock(unsigned int gpu, enum sim_clock clk, long long t_us);
unsigned int sim_model_power_mw(unsigned int gpu, long long t_us);
/* The range a power limit may be set within (mW): the configured limit is the maximum (and the
 * default, as nothing changed it since boot), a quarter of it the minimum. */
void sim_model_power_range(unsigned int gpu, unsigned int *min_mw, unsigned int *max_mw);
unsigned long long sim_model_energy_mj(unsigned int gpu, long long now_us);
unsigned long long sim_model_ecc(unsigned int gpu, int uncorrected, long long now_us);
/* A running counter since scenario time 0: KiB over all NVLinks (gpm.nvlink.tx/rx) or PCIe bytes (pcie.tx/rx). */
unsigned long long sim_model_counter(unsigned int gpu, enum sim_counter c, long long now_us);

/* Memory (v2 meaning: allocations only, reserved apart). */
unsigned long long sim_model_memory_used(unsigned int gpu, long long t_us);

/* Processes. */
int sim_model_proc_running(unsigned int gpu, size_t i, long long t_us);
unsigned long long sim_model_proc_memory(unsigned int gpu, size_t i, long long t_us);

/* Samples: indices of the ring at now, and one sample's value by NVML sampling type. */
void sim_model_ring(long long now_us, long long *k_lo, long long *k_hi);
unsigned int sim_model_sample(unsigned int gpu, int type, long long k);
unsigned long long sim_model_sample_ts(long long k);

/*
 * Mean of the samples of type within 1 s of the newest one (timestamps
 * newer than newest - 1 s), rounded. This is what GetUtilizationRates
 * reports. *k_hi receives the newest sample index.
 */
unsigned int sim_model_rate(unsigned int gpu, int type, long long now_us, long long *k_hi);

/* Means of the GPM metrics ids[0..n) (NVML_GPM_METRIC_*) over scenario time [t1, t2], each from 8 instants
 * (what bounds them all worked out once an instant), in out[0..n); -1 for one not modelled. */
void sim_model_gpm(unsigned int gpu, const unsigned int *ids, unsigned int n, long long t1_us, long long t2_us,
                   double *out);

#endif
