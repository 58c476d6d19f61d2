/*
 * test_sim_util.c: library loading, environment and capture helpers for
 * the simulator tests (see test_sim.h). Everything here asserts through
 * cmocka, so a helper failing fails the calling test with its location.
 */
#include "test_sim.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct tsim_lib L;

static const char *const tsim_names[] = {
#define TSIM_NAME(name, params) #name,
    NVML_FUNCTIONS(TSIM_NAME)
    NVML_CLIENT_FUNCTIONS(TSIM_NAME)
#undef TSIM_NAME
};

int tsim_open(struct tsim_lib *lib, const char *variant)
{
    const char *dir = getenv("SIM_LIB_DIR");
    char path[1024];
    void **slots = (void **)((char *)lib + offsetof(struct tsim_lib, handle) + sizeof(void *));
    int missing = 0;

    memset(lib, 0, sizeof(*lib));
    snprintf(path, sizeof(path), "%s%s%s/libnvidia-ml.so.1", dir ? dir : "sim", *variant ? "/" : "", variant);
    lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return -1;
    }
    for (size_t i = 0; i < sizeof(tsim_names) / sizeof(tsim_names[0]); i++) {
        slots[i] = dlsym(lib->handle, tsim_names[i]);
        if (!slots[i])
            missing++;
    }
    *(void **)&lib->nvmlErrorString = dlsym(lib->handle, "nvmlErrorString");
    if (!lib->nvmlErrorString)
        missing++;
    return missing;
}

void *tsim_sym(const struct tsim_lib *lib, const char *name)
{
    return dlsym(lib->handle, name);
}

static const char *tsim_join(const char *env, const char *fallback, const char *name)
{
    static char buf[4][1024];
    static int slot;
    const char *dir = getenv(env);
    char *b = buf[slot++ % 4];

    snprintf(b, sizeof(buf[0]), "%s/%s", dir ? dir : fallback, name);
    return b;
}

const char *tsim_data(const char *name)
{
    return tsim_join("SIM_TEST_DATA", "tests/sim", name);
}

const char *tsim_example(const char *name)
{
    return tsim_join("SIM_EXAMPLES", "examples/scenarios", name);
}

static char tsim_tmp_path[256];

static void tsim_cleanup(void)
{
    if (tsim_tmp_path[0])
        unlink(tsim_tmp_path);
}

const char *tsim_write(const char *text, size_t len)
{
    FILE *f;

    if (!tsim_tmp_path[0]) {
        snprintf(tsim_tmp_path, sizeof(tsim_tmp_path), "/tmp/gpumon-simtest-%ld.scn", (long)getpid());
        atexit(tsim_cleanup);
    }
    f = fopen(tsim_tmp_path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    return tsim_tmp_path;
}

void tsim_env(const char *scenario, double speed, double start)
{
    char v[64];

    if (scenario)
        setenv("GPUMON_SIM_SCENARIO", scenario, 1);
    else
        unsetenv("GPUMON_SIM_SCENARIO");
    if (speed >= 0) {
        snprintf(v, sizeof(v), "%.6f", speed);
        setenv("GPUMON_SIM_SPEED", v, 1);
    } else {
        unsetenv("GPUMON_SIM_SPEED");
    }
    if (start >= 0) {
        snprintf(v, sizeof(v), "%.6f", start);
        setenv("GPUMON_SIM_START", v, 1);
    } else {
        unsetenv("GPUMON_SIM_START");
    }
}

void tsim_up(const char *scenario, double speed, double start)
{
    tsim_env(scenario, speed, start);
    assert_int_equal(L.nvmlInit_v2(), NVML_SUCCESS);
}

void tsim_down(void)
{
    int guard = 0;

    while (L.nvmlShutdown() == NVML_SUCCESS && guard++ < 100)
        ;
}

nvmlDevice_t tsim_dev(unsigned int index)
{
    nvmlDevice_t d = NULL;

    assert_int_equal(L.nvmlDeviceGetHandleByIndex_v2(index, &d), NVML_SUCCESS);
    assert_non_null(d);
    return d;
}

nvmlReturn_t tsim_init_captured(nvmlReturn_t (*fn)(void), char *buf, size_t len)
{
    FILE *tmp = tmpfile();
    int saved;
    size_t n;
    nvmlReturn_t rc;

    assert_non_null(tmp);
    fflush(stderr);
    saved = dup(2);
    dup2(fileno(tmp), 2);
    rc = fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    n = fread(buf, 1, len - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return rc;
}

double tsim_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void tsim_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}
