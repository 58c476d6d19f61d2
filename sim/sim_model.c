/*
 * sim_model.c: signals plus defaults become readings.
 *
 * Defaults for a metric without a signal follow util.gpu (u, 0..100):
 * util.mem 0.4u, temperature 35 + 0.4u C, fan 30 + 0.4u %, power
 * idle + (0.85 limit - idle) u/100 W with the board's idle power (else
 * max(25 W, 0.1 limit)), pstate 0 when busy else 8, PCIe tx/rx 200u /
 * 800u KB/s, clock-event reasons GpuIdle (0x1) when u == 0, clocks at max
 * when busy and at the board's idle clocks when idle (sim_board.c: an
 * H100's SM 345 MHz with its HBM at max, a GDDR board's memory down to
 * 405 MHz). SM, graphics and video clocks without a signal drop with
 * active reasons: power brake x0.5, thermal or HW slowdown x0.6, SW power
 * cap x0.85; the memory clock stays where it is, as on the hardware. A
 * process's memory moves from its first value in whole 2 MiB pages, its
 * signal read at 100 ms ticks of scenario time (an allocator grows in
 * steps; two calls within a tick agree; a step at a whole second or tenth
 * stays where it is; a constant is reported as given, odd MiB included,
 * as real processes show). Energy is the integral of power
 * since scenario time 0, the NVLink and PCIe byte counters the integrals of
 * their rates, and ECC counters report the maximum seen, so all only grow.
 * GPM metrics hold the hardware's order at every instant, signal or not:
 * graphics-engine activity defaults to util.gpu; SM activity (default 0.8
 * of it) never exceeds it; occupancy (0.5 SM), any-tensor (0.4 SM) and the
 * FP32/FP16/integer pipes (0.25/0.1/0.15 SM, FP64 0) never exceed SM
 * activity; HMMA defaults to any-tensor and no tensor type exceeds it;
 * DRAM defaults to util.mem; PCIe comes from pcie.tx/rx; NVLink is 0. A
 * GPM result is the mean over the pair's interval.
 */
#include "sim_model.h"

#include "nvml_abi.h"
#include "sim_board.h"
#include "sim_signal.h"
#include "sim_state.h"

#include <math.h>

#define SIM_MODEL_PAGE 2097152.0   /* bytes: the driver maps GPU memory in 2 MiB pages */
#define SIM_MODEL_ALLOC_US 100000  /* a process's memory changes at most every 100 ms of scenario time */

static const struct sim_gpu *model_gpu(unsigned int gpu)
{
    return &sim_state.sc->gpus[gpu];
}

static double model_clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static double model_raw(unsigned int gpu, enum sim_metric m, long long t_us, int *has)
{
    const struct sim_signal *s = &model_gpu(gpu)->sig[m];

    *has = s->nterms > 0;
    if (!*has)
        return 0.0;
    return model_clamp(sim_signal_eval(s, sim_state.sc->seed, gpu, (unsigned int)m, t_us, sim_state.period_us),
                       sim_metric_table[m].min, sim_metric_table[m].max);
}

double sim_model_metric(unsigned int gpu, enum sim_metric m, long long t_us)
{
    const struct sim_gpu *g = model_gpu(gpu);
    double u, v, limit_w, idle_w;
    int has;

    v = model_raw(gpu, m, t_us, &has);
    if (has)
        return v;
    u = m == SIM_M_UTIL_GPU ? 0.0 : sim_model_metric(gpu, SIM_M_UTIL_GPU, t_us);
    switch (m) {
    case SIM_M_UTIL_MEM:
        return 0.4 * u;
    case SIM_M_TEMPERATURE:
        return 35.0 + 0.4 * u;
    case SIM_M_FAN:
        return 30.0 + 0.4 * u;
    case SIM_M_POWER:
        limit_w = g->enforced_limit_mw / 1000.0;
        idle_w = g->board->idle_w ? (double)g->board->idle_w : fmax(25.0, 0.1 * limit_w);
        return idle_w + fmax(0.0, 0.85 * limit_w - idle_w) * u / 100.0;
    case SIM_M_PSTATE:
        return u > 0 ? 0 : 8;
    case SIM_M_PCIE_TX:
        return 200.0 * u;
    case SIM_M_PCIE_RX:
        return 800.0 * u;
    case SIM_M_REASONS:
        return u > 0 ? 0 : (double)NVML_CLOCKS_EVENT_GPU_IDLE;
    default:
        return 0.0;
    }
}

unsigned long long sim_model_reasons(unsigned int gpu, long long t_us)
{
    return (unsigned long long)llround(sim_model_metric(gpu, SIM_M_REASONS, t_us)) & NVML_CLOCKS_EVENT_ALL;
}

unsigned int sim_model_clock(unsigned int gpu, enum sim_clock clk, long long t_us)
{
    static const enum sim_metric metric[SIM_CLK_COUNT] = { SIM_M_CLOCK_GRAPHICS, SIM_M_CLOCK_SM,
                                                           SIM_M_CLOCK_MEM, SIM_M_CLOCK_VIDEO };
    const struct sim_gpu *g = model_gpu(gpu);
    unsigned long long reasons;
    double v, factor = 1.0;
    int has;

    v = model_raw(gpu, metric[clk], t_us, &has);
    if (has)
        return (unsigned int)llround(v);
    v = g->clock_max[clk];
    if (sim_model_metric(gpu, SIM_M_UTIL_GPU, t_us) <= 0) {
        unsigned int idle = clk == SIM_CLK_VIDEO ? g->board->idle_video_mhz
                          : clk == SIM_CLK_MEM   ? g->board->idle_mem_mhz
                                                 : g->board->idle_sm_mhz;
        if (idle)
            v = fmin(v, (double)idle);
    }
    if (clk == SIM_CLK_MEM)
        return (unsigned int)llround(v);   /* throttling slows the SMs, not the memory */
    reasons = sim_model_reasons(gpu, t_us);
    if (reasons & NVML_CLOCKS_THROTTLE_HW_POWER_BRAKE)
        factor = 0.5;
    else if (reasons & (NVML_CLOCKS_THROTTLE_HW_SLOWDOWN | NVML_CLOCKS_EVENT_SW_THERMAL |
                        NVML_CLOCKS_THROTTLE_HW_THERMAL))
        factor = 0.6;
    else if (reasons & NVML_CLOCKS_EVENT_SW_POWER_CAP)
        factor = 0.85;
    return (unsigned int)llround(v * factor);
}

unsigned int sim_model_power_mw(unsigned int gpu, long long t_us)
{
    return (unsigned int)llround(sim_model_metric(gpu, SIM_M_POWER, t_us) * 1000.0);
}

void sim_model_power_range(unsigned int gpu, unsigned int *min_mw, unsigned int *max_mw)
{
    const struct sim_gpu *g = model_gpu(gpu);
    *max_mw = g->power_range_w[1] ? g->power_range_w[1] * 1000u : g->power_limit_mw;
    *min_mw = g->power_range_w[0] ? g->power_range_w[0] * 1000u : g->power_limit_mw / 4;
}

/* Adds the integral of metric m from *t_us to now (value x microseconds / divisor) to *sum, in steps of
 * at most one sample period (at most 20000 steps), and moves *t_us to now. */
static void model_integrate(unsigned int gpu, enum sim_metric m, double divisor, double *sum, long long *t_us,
                            long long now_us)
{
    long long gap = now_us - *t_us, steps, dt;

    if (gap <= 0)
        return;
    steps = gap / (sim_state.period_us > 0 ? sim_state.period_us : 1) + 1;
    if (steps > 20000)
        steps = 20000;
    dt = gap / steps;
    for (long long i = 0; i < steps; i++) {
        long long t0 = *t_us + i * dt;
        long long len = i == steps - 1 ? now_us - t0 : dt;
        *sum += sim_model_metric(gpu, m, t0 + len / 2) * (double)len / divisor;
    }
    *t_us = now_us;
}

unsigned long long sim_model_energy_mj(unsigned int gpu, long long now_us)
{
    struct sim_gpu_rt *rt = &sim_state.rt[gpu];
    unsigned long long e;

    model_integrate(gpu, SIM_M_POWER, 1000.0, &rt->energy_mj, &rt->energy_t_us, now_us);   /* W x us -> mJ */
    e = (unsigned long long)rt->energy_mj;
    if (e > rt->energy_reported)
        rt->energy_reported = e;
    return rt->energy_reported;
}

unsigned long long sim_model_counter(unsigned int gpu, enum sim_counter c, long long now_us)
{
    static const enum sim_metric rate[SIM_C_COUNT] = {
        [SIM_C_NVLINK_TX] = SIM_M_GPM_NVLINK_TX, [SIM_C_NVLINK_RX] = SIM_M_GPM_NVLINK_RX,
        [SIM_C_PCIE_TX] = SIM_M_PCIE_TX, [SIM_C_PCIE_RX] = SIM_M_PCIE_RX,
    };
    struct sim_gpu_rt *rt = &sim_state.rt[gpu];

    /* MiB/s x us -> KiB and KB/s x us -> bytes are both x 1024 / 1e6 */
    model_integrate(gpu, rate[c], 1e6 / 1024.0, &rt->counter[c], &rt->counter_t_us[c], now_us);
    return (unsigned long long)rt->counter[c];
}

unsigned long long sim_model_ecc(unsigned int gpu, int uncorrected, long long now_us)
{
    enum sim_metric m = uncorrected ? SIM_M_ECC_UNCORRECTED : SIM_M_ECC_CORRECTED;
    unsigned long long v = (unsigned long long)llround(sim_model_metric(gpu, m, now_us));
    unsigned long long *max = &sim_state.rt[gpu].ecc_max[uncorrected ? 1 : 0];

    if (v > *max)
        *max = v;
    return *max;
}

int sim_model_proc_running(unsigned int gpu, size_t i, long long t_us)
{
    const struct sim_process *p = &model_gpu(gpu)->procs[i];

    return t_us >= p->start_us && (p->stop_us < 0 || t_us < p->stop_us);
}

unsigned long long sim_model_proc_memory(unsigned int gpu, size_t i, long long t_us)
{
    const struct sim_gpu *g = model_gpu(gpu);
    const struct sim_process *p = &g->procs[i];
    double v, v0, d;

    if (p->memory.nterms == 0)
        return 536870912ull;
    t_us -= t_us % SIM_MODEL_ALLOC_US;   /* the allocator's state at the start of its tick */
    v = sim_signal_eval(&p->memory, sim_state.sc->seed, gpu, 1000u + (unsigned int)i, t_us, sim_state.period_us);
    v0 = sim_signal_eval(&p->memory, sim_state.sc->seed, gpu, 1000u + (unsigned int)i, p->start_us,
                         sim_state.period_us);
    d = v - v0;                          /* what it took (or gave back) since its start, in whole pages */
    v = v0 + (d >= 0 ? ceil(d / SIM_MODEL_PAGE) : -ceil(-d / SIM_MODEL_PAGE)) * SIM_MODEL_PAGE;
    return (unsigned long long)model_clamp(v, 0.0, (double)(g->memory_total - g->memory_reserved));
}

unsigned long long sim_model_memory_used(unsigned int gpu, long long t_us)
{
    const struct sim_gpu *g = model_gpu(gpu);
    unsigned long long cap = g->memory_total - g->memory_reserved, sum = 0;
    int has;
    double v = model_raw(gpu, SIM_M_MEMORY_USED, t_us, &has);

    if (has)
        return (unsigned long long)model_clamp(v, 0.0, (double)cap);
    for (size_t i = 0; i < g->nprocs; i++)
        if (sim_model_proc_running(gpu, i, t_us))
            sum += sim_model_proc_memory(gpu, i, t_us);
    return sum < cap ? sum : cap;
}

void sim_model_ring(long long now_us, long long *k_lo, long long *k_hi)
{
    *k_hi = now_us / sim_state.period_us;
    *k_lo = *k_hi - (SIM_MODEL_RING - 1);
    if (*k_lo < 0)
        *k_lo = 0;
}

unsigned long long sim_model_sample_ts(long long k)
{
    return (unsigned long long)sim_state_epoch_us(k * sim_state.period_us);
}

unsigned int sim_model_sample(unsigned int gpu, int type, long long k)
{
    long long t = k * sim_state.period_us;

    switch (type) {
    case NVML_TOTAL_POWER_SAMPLES:
        return sim_model_power_mw(gpu, t);
    case NVML_GPU_UTILIZATION_SAMPLES:
        return (unsigned int)llround(sim_model_metric(gpu, SIM_M_UTIL_GPU, t));
    case NVML_MEMORY_UTILIZATION_SAMPLES:
        return (unsigned int)llround(sim_model_metric(gpu, SIM_M_UTIL_MEM, t));
    case NVML_ENC_UTILIZATION_SAMPLES:
        return (unsigned int)llround(sim_model_metric(gpu, SIM_M_ENCODER, t));
    case NVML_DEC_UTILIZATION_SAMPLES:
        return (unsigned int)llround(sim_model_metric(gpu, SIM_M_DECODER, t));
    case NVML_PROCESSOR_CLK_SAMPLES:
        return sim_model_clock(gpu, SIM_CLK_SM, t);
    case NVML_MEMORY_CLK_SAMPLES:
        return sim_model_clock(gpu, SIM_CLK_MEM, t);
    default:
        return 0;
    }
}

unsigned int sim_model_rate(unsigned int gpu, int type, long long now_us, long long *k_hi)
{
    long long lo, hi, span = (1000000LL + sim_state.period_us - 1) / sim_state.period_us;
    unsigned long long sum = 0, n = 0;

    sim_model_ring(now_us, &lo, &hi);
    if (hi - lo + 1 > span)
        lo = hi - span + 1;
    for (long long k = lo; k <= hi; k++) {
        sum += sim_model_sample(gpu, type, k);
        n++;
    }
    *k_hi = hi;
    return n ? (unsigned int)((sum + n / 2) / n) : 0;
}

/* What bounds every GPM metric at one instant: graphics-engine activity, SM activity, any tensor. */
struct model_gpm_base {
    double gr, sm, tensor;
};

#define GPM_SIG(m, dflt) ((v = model_raw(gpu, (m), t, &has)), has ? v : (dflt))

static void model_gpm_base(unsigned int gpu, long long t, struct model_gpm_base *b)
{
    int has;
    double v;

    b->gr = GPM_SIG(SIM_M_GPM_GRAPHICS, sim_model_metric(gpu, SIM_M_UTIL_GPU, t));
    b->sm = fmin(GPM_SIG(SIM_M_GPM_SM, 0.8 * b->gr), b->gr);
    b->tensor = fmin(GPM_SIG(SIM_M_GPM_TENSOR, 0.4 * b->sm), b->sm);
}

/* GPM values at one instant t whose base is b, by NVML_GPM_METRIC_* id; -1 for an id not modelled. */
static double model_gpm_point(unsigned int gpu, unsigned int id, long long t, const struct model_gpm_base *b)
{
    int has;
    double v, sm = b->sm, tensor = b->tensor;

    switch (id) {
    case NVML_GPM_METRIC_GRAPHICS_UTIL:
        return b->gr;
    case NVML_GPM_METRIC_SM_UTIL:
        return sm;
    case NVML_GPM_METRIC_SM_OCCUPANCY:
        return fmin(GPM_SIG(SIM_M_GPM_OCCUPANCY, 0.5 * sm), sm);
    case NVML_GPM_METRIC_INTEGER_UTIL:
        return fmin(GPM_SIG(SIM_M_GPM_INTEGER, 0.15 * sm), sm);
    case NVML_GPM_METRIC_ANY_TENSOR_UTIL:
        return tensor;
    case NVML_GPM_METRIC_DFMA_TENSOR_UTIL:
        return fmin(GPM_SIG(SIM_M_GPM_DFMA, 0.0), tensor);
    case NVML_GPM_METRIC_HMMA_TENSOR_UTIL:
        return fmin(GPM_SIG(SIM_M_GPM_HMMA, tensor), tensor);
    case NVML_GPM_METRIC_DMMA_TENSOR_UTIL:
        return fmin(GPM_SIG(SIM_M_GPM_DMMA, 0.0), tensor);
    case NVML_GPM_METRIC_IMMA_TENSOR_UTIL:
        return fmin(GPM_SIG(SIM_M_GPM_IMMA, 0.0), tensor);
    case NVML_GPM_METRIC_DRAM_BW_UTIL:
        return GPM_SIG(SIM_M_GPM_DRAM, sim_model_metric(gpu, SIM_M_UTIL_MEM, t));
    case NVML_GPM_METRIC_FP64_UTIL:
        return fmin(GPM_SIG(SIM_M_GPM_FP64, 0.0), sm);
    case NVML_GPM_METRIC_FP32_UTIL:
        return fmin(GPM_SIG(SIM_M_GPM_FP32, 0.25 * sm), sm);
    case NVML_GPM_METRIC_FP16_UTIL:
        return fmin(GPM_SIG(SIM_M_GPM_FP16, 0.1 * sm), sm);
    case NVML_GPM_METRIC_PCIE_TX_PER_SEC:
        return sim_model_metric(gpu, SIM_M_PCIE_TX, t) / 1024.0;   /* KB/s to MiB/s */
    case NVML_GPM_METRIC_PCIE_RX_PER_SEC:
        return sim_model_metric(gpu, SIM_M_PCIE_RX, t) / 1024.0;
    case NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC:
        return GPM_SIG(SIM_M_GPM_NVLINK_RX, 0.0);
    case NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC:
        return GPM_SIG(SIM_M_GPM_NVLINK_TX, 0.0);
    default:
        return -1.0;
    }
}

#undef GPM_SIG

void sim_model_gpm(unsigned int gpu, const unsigned int *ids, unsigned int n, long long t1_us, long long t2_us,
                   double *out)
{
    enum { POINTS = 8 };

    for (unsigned int j = 0; j < n; j++)
        out[j] = 0.0;
    for (int i = 0; i < POINTS; i++) {   /* the base once an instant, for all the metrics asked */
        long long t = t1_us + (long long)((t2_us - t1_us) * (i + 0.5) / POINTS);
        struct model_gpm_base b;

        model_gpm_base(gpu, t, &b);
        for (unsigned int j = 0; j < n; j++) {
            double v = out[j] < 0 ? -1.0 : model_gpm_point(gpu, ids[j], t, &b);

            out[j] = v < 0 ? -1.0 : out[j] + v;
        }
    }
    for (unsigned int j = 0; j < n; j++)
        if (out[j] >= 0)
            out[j] /= POINTS;
}
