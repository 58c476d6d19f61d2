/*
 * exitcodes.h: gpumon's documented exit statuses (README, man page).
 */
#ifndef GPUMON_EXITCODES_H
#define GPUMON_EXITCODES_H

enum {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1,     /* a runtime failure, e.g. the output file cannot be opened */
    EXIT_USAGE = 2,       /* bad options or arguments */
    EXIT_NO_LIBRARY = 3,  /* no usable NVML library: missing, a CUDA stub, or not NVML */
    EXIT_INIT = 4,        /* NVML failed to initialize: driver not loaded, permission, version mismatch */
    EXIT_NO_GPU = 5,      /* NVML works but reports zero GPUs */
};

#endif
