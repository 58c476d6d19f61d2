/*
 * sim_state.c: init lifecycle, the scenario clock, handles and faults.
 *
 * The state is rebuilt on every 0->1 nvmlInit: environment variables
 * (GPUMON_SIM_SCENARIO, GPUMON_SIM_SPEED, GPUMON_SIM_START) are read then,
 * the scenario is parsed, and the clock is joined: the one every process
 * playing this scenario shares (sim_clock.c), or with GPUMON_SIM_START a
 * private one from this init. Scenario time is START + (monotonic wall
 * time since the clock's origin) * SPEED, in microseconds; its epoch
 * mapping keeps the same rate, so sample timestamps stay strictly
 * increasing whatever the speed (even 0, a frozen clock). The final
 * shutdown frees everything. Faults are read here because every entry
 * point needs them: lost GPUs, per-family NOT_SUPPORTED / NO_PERMISSION
 * (MIG mode switches some families off), and one-shot hangs, which sleep
 * with the mutex released.
 */
#include "sim_state.h"
#include "sim_clock.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sim_state sim_state = { .lock = PTHREAD_MUTEX_INITIALIZER };
struct nvmlDevice_st sim_devices[SIM_MAX_GPUS];

long long sim_state_mono_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void sim_state_sleep_us(long long us)
{
    struct timespec ts, rem;

    if (us <= 0)
        return;
    ts.tv_sec = (time_t)(us / 1000000LL);
    ts.tv_nsec = (long)(us % 1000000LL) * 1000L;
    while (nanosleep(&ts, &rem) != 0 && errno == EINTR)
        ts = rem;
}

/* Reads a non-negative float from the environment: 1 when set, 0 unset (def), -1 if malformed. */
static int state_env_double(const char *name, double def, double max, double *out)
{
    const char *v = getenv(name);
    char *end;
    double d;

    *out = def;
    if (!v || !*v)
        return 0;
    errno = 0;
    d = strtod(v, &end);
    while (*end == ' ')
        end++;
    if (errno || *end || !isfinite(d) || d < 0 || d > max) {
        fprintf(stderr, "gpumon-sim: %s: invalid value \"%.40s\" (want a number within 0..%g)\n", name, v,
                max);
        return -1;
    }
    *out = d;
    return 1;
}

/* The runtime arrays start zeroed (static storage); after a scenario they are
 * cleared only as far as it used them, so a first init touches no extra
 * pages (a one-shot query pays for the GPUs it has, not for SIM_MAX_GPUS). */
static void state_reset(void)
{
    if (sim_state.sc) {
        memset(sim_state.rt, 0, sim_state.sc->ngpus * sizeof(sim_state.rt[0]));
        /* only the sets in use: clearing all 32 would touch ~300 KB of pages never used (a client's
         * peak RSS would jump at shutdown, which a real driver does not do) */
        for (size_t i = 0; i < SIM_MAX_SETS; i++)
            if (sim_state.sets[i].used)
                memset(&sim_state.sets[i], 0, sizeof(sim_state.sets[i]));
        for (size_t i = 0; i < SIM_MAX_GPM_SAMPLES; i++)   /* samples do not outlive the library's use */
            if (sim_state.gpm[i].used)
                memset(&sim_state.gpm[i], 0, sizeof(sim_state.gpm[i]));
    }
    sim_scenario_free(sim_state.sc);
    sim_state.sc = NULL;
    sim_clock_leave();
    sim_state.clock_shared = 0;
}

nvmlReturn_t sim_state_init(int legacy)
{
    const char *path, *def_driver = "610.43.02";
    struct sim_scenario *sc;
    char err[1200];
    double speed, start;
    int def_cuda = 13030, speed_set, start_set;
    struct sim_clock_origin clk;

    pthread_mutex_lock(&sim_state.lock);
    if (sim_state.refcount > 0) {
        sim_state.refcount++;
        return sim_leave(NVML_SUCCESS);
    }
    sim_state.invalid = 1;
    if ((speed_set = state_env_double("GPUMON_SIM_SPEED", 1.0, 1000.0, &speed)) < 0 ||
        (start_set = state_env_double("GPUMON_SIM_START", 0.0, SIM_MAX_TIME_S, &start)) < 0)
        return sim_leave(NVML_ERROR_UNKNOWN);
    path = getenv("GPUMON_SIM_SCENARIO");
    sc = sim_scenario_load(path && *path ? path : NULL, err, sizeof(err));
    if (!sc) {
        fprintf(stderr, "gpumon-sim: %s\n", err);
        return sim_leave(NVML_ERROR_UNKNOWN);
    }
    sim_state.invalid = 0;   /* from here, a failure is the scenario's init_error */
    if (sc->init_error) {
        int rc = sc->init_error;
        sim_scenario_free(sc);
        return sim_leave(rc);
    }
    state_reset();
    sim_state.sc = sc;
    if (start_set) {   /* a pinned moment: this process's own clock, from now */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        clk.origin_mono_us = sim_state_mono_us();
        clk.origin_epoch_us = (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
        clk.speed = speed;
        sim_state.clock_shared = 0;
    } else {
        sim_state.clock_shared = sim_clock_join(path, speed, speed_set, &clk);
    }
    sim_state.speed = clk.speed;
    sim_state.start_us = llround(start * 1e6);
    sim_state.origin_mono_us = clk.origin_mono_us;
    sim_state.origin_epoch_us = clk.origin_epoch_us;
    sim_state.period_us = (long long)sc->sample_period_ms * 1000LL;
    if (sim_profile == SIM_PROFILE_LEGACY_470) {
        def_driver = "470.256.02";
        def_cuda = 11040;
    } else if (sim_profile == SIM_PROFILE_R535_43) {
        def_driver = "535.43.02";
        def_cuda = 12020;
    }
    snprintf(sim_state.driver, sizeof(sim_state.driver), "%s", sc->has_driver ? sc->driver : def_driver);
    sim_state.cuda = sc->has_cuda ? sc->cuda : def_cuda;
    sim_state.layout_32 = sim_profile == SIM_PROFILE_R535_43 || sc->process_layout == 535 ||
                          (sc->process_layout == 0 && sim_scenario_driver_is_r535_early(sim_state.driver));
    for (unsigned int i = 0; i < SIM_MAX_GPUS; i++)
        sim_devices[i].index = i;
    if (legacy) {
        for (unsigned int i = 0; i < sc->ngpus; i++)
            if (sim_state_gpu_lost(i, sim_state_now_us())) {
                state_reset();
                return sim_leave(NVML_ERROR_GPU_IS_LOST);
            }
    }
    sim_state.refcount = 1;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t sim_state_shutdown(void)
{
    pthread_mutex_lock(&sim_state.lock);
    if (sim_state.refcount == 0)
        return sim_leave(NVML_ERROR_UNINITIALIZED);
    if (--sim_state.refcount == 0)
        state_reset();
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t sim_leave(nvmlReturn_t rc)
{
    pthread_mutex_unlock(&sim_state.lock);
    return rc;
}

long long sim_state_now_us(void)
{
    long long wall = sim_state_mono_us() - sim_state.origin_mono_us;

    return sim_state.start_us + llround((double)wall * sim_state.speed);
}

long long sim_state_epoch_us(long long t_us)
{
    return sim_state.origin_epoch_us - sim_state.start_us + t_us;
}

int sim_state_gpu_lost(unsigned int gpu, long long t_us)
{
    const struct sim_gpu *g = &sim_state.sc->gpus[gpu];

    for (size_t i = 0; i < g->nfaults && g->faults[i].t_us <= t_us; i++)
        if (g->faults[i].kind == SIM_FAULT_LOST)
            return 1;
    return 0;
}

nvmlReturn_t sim_state_family(unsigned int gpu, int family, long long t_us)
{
    const struct sim_gpu *g = &sim_state.sc->gpus[gpu];
    nvmlReturn_t rc = NVML_SUCCESS;

    if (family >= SIM_F_COUNT)
        return NVML_SUCCESS;
    if ((g->unsupported & (1u << family)) || (g->mig_current && (SIM_F_MIG_OFF & (1u << family))))
        return NVML_ERROR_NOT_SUPPORTED;
    for (size_t i = 0; i < g->nfaults && g->faults[i].t_us <= t_us; i++) {
        const struct sim_fault *f = &g->faults[i];
        if (f->family != family)
            continue;
        if (f->kind == SIM_FAULT_UNSUPPORTED)
            return NVML_ERROR_NOT_SUPPORTED;
        if (f->kind == SIM_FAULT_NO_PERMISSION)
            rc = NVML_ERROR_NO_PERMISSION;
    }
    return rc;
}

int sim_state_device_index(nvmlDevice_t device, unsigned int *gpu)
{
    uintptr_t p = (uintptr_t)device, base = (uintptr_t)sim_devices;
    size_t off;

    if (p < base || p >= base + sizeof(sim_devices))
        return -1;
    off = (size_t)(p - base);
    if (off % sizeof(sim_devices[0]) != 0)
        return -1;
    if (off / sizeof(sim_devices[0]) >= sim_state.sc->ngpus)
        return -1;
    *gpu = (unsigned int)(off / sizeof(sim_devices[0]));
    return 0;
}

/* The index of the slot that handle points at in an array of n slots of size elem, or -1 for any
 * other address (a foreign or misaligned handle). */
static long state_slot(const void *handle, const void *array, size_t n, size_t elem)
{
    uintptr_t p = (uintptr_t)handle, base = (uintptr_t)array;

    if (p < base || p >= base + n * elem || (p - base) % elem != 0)
        return -1;
    return (long)((p - base) / elem);
}

struct nvmlGpmSample_st *sim_state_gpm_sample(nvmlGpmSample_t sample)
{
    long i = state_slot(sample, sim_state.gpm, SIM_MAX_GPM_SAMPLES, sizeof(sim_state.gpm[0]));

    return i >= 0 && sim_state.gpm[i].used ? &sim_state.gpm[i] : NULL;
}

struct nvmlEventSet_st *sim_state_set(nvmlEventSet_t set)
{
    long i = state_slot(set, sim_state.sets, SIM_MAX_SETS, sizeof(sim_state.sets[0]));

    return i >= 0 && sim_state.sets[i].used ? &sim_state.sets[i] : NULL;
}

/* With the mutex held: takes a due, unfired hang of func (any GPU when gpu < 0). */
static double state_take_hang(const char *func, int gpu, long long now)
{
    for (unsigned int g = 0; g < sim_state.sc->ngpus; g++) {
        struct sim_gpu *sg = &sim_state.sc->gpus[g];
        if (gpu >= 0 && (unsigned int)gpu != g)
            continue;
        for (size_t i = 0; i < sg->nfaults && sg->faults[i].t_us <= now; i++) {
            struct sim_fault *f = &sg->faults[i];
            if (f->kind == SIM_FAULT_HANG && !f->fired && strcmp(f->func, func) == 0) {
                f->fired = 1;
                return f->hang_s;
            }
        }
    }
    return 0.0;
}

static nvmlReturn_t state_enter_gpu(const char *func, int gpu)
{
    double hang;

    pthread_mutex_lock(&sim_state.lock);
    if (sim_state.refcount == 0)
        return sim_leave(NVML_ERROR_UNINITIALIZED);
    hang = state_take_hang(func, gpu, sim_state_now_us());
    if (hang > 0) {
        pthread_mutex_unlock(&sim_state.lock);
        sim_state_sleep_us(llround(hang * 1e6));
        pthread_mutex_lock(&sim_state.lock);
        if (sim_state.refcount == 0)
            return sim_leave(NVML_ERROR_UNINITIALIZED);
    }
    return NVML_SUCCESS;
}

nvmlReturn_t sim_enter(const char *func)
{
    return state_enter_gpu(func, -1);
}

nvmlReturn_t sim_dev_enter(const char *func, nvmlDevice_t device, int family, unsigned int *gpu,
                           long long *now_us)
{
    nvmlReturn_t rc;
    unsigned int idx;

    pthread_mutex_lock(&sim_state.lock);
    if (sim_state.refcount == 0)
        return sim_leave(NVML_ERROR_UNINITIALIZED);
    if (sim_state_device_index(device, &idx) < 0)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    pthread_mutex_unlock(&sim_state.lock);
    rc = state_enter_gpu(func, (int)idx);
    if (rc != NVML_SUCCESS)
        return rc;
    if (sim_state_device_index(device, &idx) < 0)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *now_us = sim_state_now_us();
    if (sim_state_gpu_lost(idx, *now_us))
        return sim_leave(NVML_ERROR_GPU_IS_LOST);
    rc = sim_state_family(idx, family, *now_us);
    if (rc != NVML_SUCCESS)
        return sim_leave(rc);
    *gpu = idx;
    return NVML_SUCCESS;
}

nvmlReturn_t sim_state_copy_string(char *buf, unsigned int len, const char *s)
{
    size_t n = strlen(s);

    if (!buf)
        return NVML_ERROR_INVALID_ARGUMENT;
    if ((size_t)len < n + 1)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, s, n + 1);
    return NVML_SUCCESS;
}
