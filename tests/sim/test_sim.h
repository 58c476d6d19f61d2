/*
 * test_sim.h: shared helpers of the simulator's ABI tests.
 *
 * The tests treat the simulator as a black box, as gpumon does: they
 * dlopen a built libnvidia-ml.so.1 (SIM_LIB_DIR, plus a variant subdir),
 * resolve every NVML_FUNCTIONS and NVML_CLIENT_FUNCTIONS entry into a
 * table, and drive it through
 * scenario files chosen with GPUMON_SIM_SCENARIO, GPUMON_SIM_SPEED and
 * GPUMON_SIM_START, which the library reads on each 0->1 init. Groups of
 * tests (one ctest test each) live in test_sim_abi.c, _protocols.c,
 * _scenarios.c and _clients.c; main() in test_sim_abi.c picks the group
 * from argv[1].
 */
#ifndef GPUMON_TEST_SIM_H
#define GPUMON_TEST_SIM_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "nvml_abi.h"

struct tsim_lib {
    void *handle;
#define TSIM_FIELD(name, params) nvmlReturn_t (*name) params;
    NVML_FUNCTIONS(TSIM_FIELD)
    NVML_CLIENT_FUNCTIONS(TSIM_FIELD)
#undef TSIM_FIELD
    const char *(*nvmlErrorString)(nvmlReturn_t result);
};

/* The full library, opened by main() before any test runs. */
extern struct tsim_lib L;

/* Opens SIM_LIB_DIR/<variant>/libnvidia-ml.so.1 ("" for the full one). Returns missing symbol count. */
int tsim_open(struct tsim_lib *lib, const char *variant);
/* dlsym of one name in an opened variant. */
void *tsim_sym(const struct tsim_lib *lib, const char *name);

/* Path of a file in tests/sim/ or examples/scenarios/. */
const char *tsim_data(const char *name);
const char *tsim_example(const char *name);

/* Writes text to a private temp file and returns its path (reused per call). */
const char *tsim_write(const char *text, size_t len);

/* Sets the environment (NULL scenario: unset; speed/start < 0: unset). */
void tsim_env(const char *scenario, double speed, double start);

/* nvmlInit_v2 with the given environment; asserts success. */
void tsim_up(const char *scenario, double speed, double start);
/* Shuts down until the library reports UNINITIALIZED. */
void tsim_down(void);
nvmlDevice_t tsim_dev(unsigned int index);

/* Runs init (fn) with stderr captured into buf. */
nvmlReturn_t tsim_init_captured(nvmlReturn_t (*fn)(void), char *buf, size_t len);

double tsim_now(void);                      /* monotonic seconds */
void tsim_sleep_ms(int ms);

#endif
