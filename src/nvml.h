/*
 * nvml.h: gpumon's only door to NVML.
 *
 * nvml_open() dlopens the driver library (an explicit path, $GPUMON_NVML, or
 * libnvidia-ml.so.1 then libnvidia-ml.so), resolves every symbol listed in
 * nvml_abi.h into one function table, detects the CUDA toolkit's stub, and
 * initializes NVML. Only the five required symbols must exist; any other
 * may be NULL and callers treat that as "unsupported". On failure it fills
 * an nvml_failure with a specific cause, a message and what to do, so the
 * command can print one line and exit with the documented status.
 *
 * Also here: the protocol helpers that need more than one call (process
 * lists with the sizing protocol and the 535.43-535.86 stride). What a
 * return code means is nvml_codes.h's, which needs no loaded library.
 */
#ifndef GPUMON_NVML_H
#define GPUMON_NVML_H

#include <stdbool.h>
#include <time.h>
#include "nvml_abi.h"
#include "nvml_codes.h"

struct nvml_api {
#define NVML_API_MEMBER(name, params) nvmlReturn_t (*name) params;
    NVML_FUNCTIONS(NVML_API_MEMBER)
#undef NVML_API_MEMBER
    nvmlErrorString_fn nvmlErrorString;
    /* The chosen variants, resolved once. NULL when absent. */
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*get_count)(unsigned int *);
    nvmlReturn_t (*get_handle)(unsigned int, nvmlDevice_t *);
    void *dl;
    char path[4096];          /* the library actually loaded */
    char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    int cuda_version;         /* e.g. 12040; 0 when unknown */
    int process_stride;       /* bytes per _v3 process entry: 24, or 32 on 535.43-535.86 */
    gpumonSimClock_fn sim_clock;   /* the simulator's scenario clock (nvml_clock.c); NULL on a driver */
    double clock_speed;       /* scenario seconds per wall second; 1 when records follow the wall clock */
};

extern struct nvml_api nvml;

enum nvml_cause {
    NVML_CAUSE_NONE = 0,
    NVML_CAUSE_NOT_FOUND,      /* no library could be dlopened */
    NVML_CAUSE_STUB,           /* the CUDA toolkit's stub library */
    NVML_CAUSE_BAD_LIBRARY,    /* loaded, but required symbols missing */
    NVML_CAUSE_DRIVER,         /* nvmlInit: driver not loaded */
    NVML_CAUSE_PERMISSION,     /* nvmlInit: no permission */
    NVML_CAUSE_MISMATCH,       /* nvmlInit: library/kernel module versions differ */
    NVML_CAUSE_INIT,           /* nvmlInit: any other error */
};

struct nvml_failure {
    enum nvml_cause cause;
    int code;                 /* NVML return code where there is one */
    char message[1024];       /* one line: cause and what to do */
    bool simulator;           /* the library is gpumon's simulator */
    bool sim_invalid;         /* ... and it refused its scenario (it said why on stderr) */
};

/* Opens and initializes NVML. path may be NULL (then $GPUMON_NVML, then the
 * system library). Returns 0, or -1 with *why filled. */
int nvml_open(const char *path, struct nvml_failure *why);
/* Shuts NVML down and unloads it. Safe to call after a failed open. */
void nvml_close(void);
/* nvmlErrorString of the loaded library, or a fallback that is never NULL. */
const char *nvml_error(nvmlReturn_t r);

enum { NVML_PROC_COMPUTE = 1, NVML_PROC_GRAPHICS = 2 };

/*
 * The clock records follow (nvml_clock.c). On the simulator whose scenario
 * clock runs at a speed other than 1 (GPUMON_SIM_SPEED), records carry the
 * scenario's time and sampling is paced in scenario seconds; on a driver, at
 * speed 1 and on a frozen scenario (speed 0), the wall clock rules.
 */
/* Looks for the simulator's clock; nvml_open calls it once NVML is up. */
void nvml_clock_open(void);
/* Scenario seconds per wall second: 1 unless the simulator fast- (or slow-) plays. */
double nvml_clock_speed(void);
/* The time a record taken now carries: CLOCK_REALTIME, or the scenario's time. */
void nvml_clock_now(struct timespec *ts);

struct nvml_process {
    unsigned int pid;
    unsigned long long used_memory;   /* bytes; NVML_VALUE_NOT_AVAILABLE when unknown */
    unsigned int gi, ci;              /* MIG GPU / compute instance; 0xFFFFFFFF without MIG or when unknown */
    unsigned int kinds;               /* NVML_PROC_COMPUTE | NVML_PROC_GRAPHICS: the lists it is on */
};
/* Lists the compute and graphics processes of a device, de-duplicated by pid,
 * through the newest variant the library has, into *list (*cap entries,
 * grown with xrealloc to hold them all; the caller frees it). Returns
 * NVML_SUCCESS and sets *n, or an NVML error code. */
nvmlReturn_t nvml_processes(nvmlDevice_t dev, struct nvml_process **list, unsigned *cap, unsigned *n);

/* A device's memory in bytes (nvml.c): GetMemoryInfo_v2 (reserved split out), else, where the
 * library lacks it or the driver does not support it, GetMemoryInfo (reserved 0). */
struct nvml_memory {
    unsigned long long total, used, free, reserved;
    bool v2;                          /* read through _v2 */
};
nvmlReturn_t nvml_memory(nvmlDevice_t dev, struct nvml_memory *out);
/* A device's PCI info (nvml.c): GetPciInfo_v3, else (unless the GPU is lost) _v2 or the plain call,
 * whose fields are copied into out; busId always ends with a NUL. */
nvmlReturn_t nvml_pci_info(nvmlDevice_t dev, nvmlPciInfo_t *out);

#endif
