/*
 * sim_state.h: the simulator's one piece of shared mutable state.
 *
 * Owns the init reference count, the loaded scenario, the scenario clock,
 * per-GPU runtime counters (energy, ECC maxima), the static device objects
 * that handles point to, and the event sets. Every access happens under
 * one mutex: the sim_*enter() functions take it (after serving any "hang"
 * fault with the mutex released) and sim_leave() drops it. Nothing sleeps
 * while holding it. Values are computed by sim_model.c; the exported
 * entry points (exports_*.c) only check arguments and copy results out.
 */
#ifndef GPUMON_SIM_STATE_H
#define GPUMON_SIM_STATE_H

#include "nvml_abi.h"
#include "sim_scenario.h"

#include <pthread.h>

/* Driver profile compiled into each library variant (sim_profile_*.c). */
enum { SIM_PROFILE_FULL = 0, SIM_PROFILE_LEGACY_470 = 470, SIM_PROFILE_R535_43 = 535 };
extern const int sim_profile;

#define SIM_EXPORT __attribute__((visibility("default")))

#define SIM_MAX_SETS 32
#define SIM_SET_QUEUE 256
#define SIM_SUPPORTED_EVENTS \
    (nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError | nvmlEventTypePState | \
     nvmlEventTypeXidCriticalError)

struct nvmlDevice_st {
    unsigned int index;
};

struct sim_event {
    long long t_us;
    unsigned int gpu;
    unsigned long long type, data;
};

struct sim_registration {
    unsigned long long mask;        /* 0: not registered */
    long long cursor_us;            /* events after this scenario time are due */
};

struct nvmlEventSet_st {
    int used;
    struct sim_registration regs[SIM_MAX_GPUS];
    struct sim_event queue[SIM_SET_QUEUE];
    size_t head, len;
};

#define SIM_MAX_GPM_SAMPLES 512

struct nvmlGpmSample_st {           /* a GPM sample: which GPU, when (scenario and wall time) */
    int used, taken;
    unsigned int gpu;
    long long t_us, mono_us;
};

/* Byte counters that only grow, integrated from their rate signals by sim_model.c. */
enum sim_counter { SIM_C_NVLINK_TX, SIM_C_NVLINK_RX, SIM_C_PCIE_TX, SIM_C_PCIE_RX, SIM_C_COUNT };

struct sim_gpu_rt {
    double energy_mj;
    long long energy_t_us;
    unsigned long long energy_reported;
    unsigned long long ecc_max[2];
    double counter[SIM_C_COUNT];    /* KiB (NVLink, all links) or bytes (PCIe) since scenario time 0 */
    long long counter_t_us[SIM_C_COUNT];
};

struct sim_state {
    pthread_mutex_t lock;
    int refcount;
    int invalid;                  /* the last init failed on the scenario or a GPUMON_SIM_* variable */
    struct sim_scenario *sc;
    double speed;
    long long start_us;             /* scenario time at the origin: GPUMON_SIM_START, or 0 (shared clock) */
    long long origin_mono_us;       /* CLOCK_MONOTONIC at the origin (sim_clock.c: shared or this init's) */
    long long origin_epoch_us;      /* CLOCK_REALTIME then */
    int clock_shared;               /* the clock is shared with other processes (sim_clock.c) */
    long long period_us;
    int layout_32;                  /* _v3 process lists write 32-byte entries */
    char driver[80];
    int cuda;
    struct sim_gpu_rt rt[SIM_MAX_GPUS];
    struct nvmlEventSet_st sets[SIM_MAX_SETS];
    struct nvmlGpmSample_st gpm[SIM_MAX_GPM_SAMPLES];
};

extern struct sim_state sim_state;
extern struct nvmlDevice_st sim_devices[SIM_MAX_GPUS];

/* nvmlInit*: legacy = plain nvmlInit (fails if a GPU is already lost). */
nvmlReturn_t sim_state_init(int legacy);
nvmlReturn_t sim_state_shutdown(void);

/*
 * Takes the mutex and checks init. On NVML_SUCCESS the mutex is held and
 * the caller must end with sim_leave(); on error it is released. Serves a
 * pending "hang" fault for func (with the mutex released) first.
 */
nvmlReturn_t sim_enter(const char *func);

/*
 * sim_enter() plus: device is one of ours (else 2), its GPU is not lost at
 * the current scenario time (else 15), and family is neither unsupported
 * (3, also for the SIM_F_MIG_OFF families while MIG is on) nor forbidden
 * (4). On success *gpu and *now_us are set.
 */
nvmlReturn_t sim_dev_enter(const char *func, nvmlDevice_t device, int family, unsigned int *gpu,
                           long long *now_us);

/* Releases the mutex and returns rc. */
nvmlReturn_t sim_leave(nvmlReturn_t rc);

/* With the mutex held: */
long long sim_state_now_us(void);                 /* scenario time */
long long sim_state_epoch_us(long long t_us);     /* scenario time -> µs since epoch */
int sim_state_gpu_lost(unsigned int gpu, long long t_us);
nvmlReturn_t sim_state_family(unsigned int gpu, int family, long long t_us);
int sim_state_device_index(nvmlDevice_t device, unsigned int *gpu);
struct nvmlEventSet_st *sim_state_set(nvmlEventSet_t set);
struct nvmlGpmSample_st *sim_state_gpm_sample(nvmlGpmSample_t sample);   /* NULL unless allocated */

/* Wall-clock helpers (no mutex needed). */
long long sim_state_mono_us(void);
void sim_state_sleep_us(long long us);

/* Copies a NUL-terminated string into buf of length len: 2 for NULL, 7 if too short. */
nvmlReturn_t sim_state_copy_string(char *buf, unsigned int len, const char *s);

#endif
