/*
 * test_sim_scenarios.c: the "scenarios", "parse" and "variants" groups.
 *
 * scenarios: every bundled bundled scenario (examples/scenarios) initializes (except
 * driver-not-loaded, 9) and answers basic queries; the built-in default;
 * determinism of seeded noise; GPUMON_SIM_SPEED and GPUMON_SIM_START;
 * trace() files; the 535 process layout chosen by the driver string.
 * parse: malformed files make every init variant fail with 999 and one
 * stderr line naming file and line, and random mutations never crash.
 * variants: the legacy-470 and r535-43 libraries export what those
 * drivers had, and r535-43 writes 32-byte _v3 entries.
 */
#include "test_sim.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_bundled(void **state)
{
    const char *dir = getenv("SIM_EXAMPLES");
    struct dirent *de;
    DIR *dh;
    int seen = 0;

    (void)state;
    dh = opendir(dir ? dir : "examples/scenarios");
    assert_non_null(dh);
    while ((de = readdir(dh)) != NULL) {
        size_t n = strlen(de->d_name);
        char first[256], err[2048];
        const char *path;
        unsigned int count = 99;
        nvmlReturn_t rc;
        FILE *f;

        if (n < 5 || strcmp(de->d_name + n - 4, ".scn") != 0)
            continue;
        seen++;
        path = tsim_example(de->d_name);
        f = fopen(path, "r");
        assert_non_null(f);
        assert_non_null(fgets(first, sizeof(first), f));
        fclose(f);
        if (strncmp(first, "# ", 2) != 0)
            fail_msg("%s: the first line must be a \"# description\"", de->d_name);
        tsim_env(path, 0, 0);
        rc = tsim_init_captured(L.nvmlInit_v2, err, sizeof(err));
        if (strcmp(de->d_name, "driver-not-loaded.scn") == 0) {
            assert_int_equal(rc, NVML_ERROR_DRIVER_NOT_LOADED);
            assert_int_equal(L.nvmlInit(), NVML_ERROR_DRIVER_NOT_LOADED);
            assert_int_equal(L.nvmlInitWithFlags(0), NVML_ERROR_DRIVER_NOT_LOADED);
            continue;
        }
        if (rc != NVML_SUCCESS)
            fail_msg("%s: init returned %d: %s", de->d_name, rc, err);
        assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
        if (strcmp(de->d_name, "zero-gpus.scn") == 0)
            assert_int_equal(count, 0);
        else
            assert_true(count >= 1 && count <= 64);
        for (unsigned int i = 0; i < count; i++) {
            nvmlDevice_t d;
            nvmlMemory_v2_t m;
            char name[96];
            assert_int_equal(L.nvmlDeviceGetHandleByIndex_v2(i, &d), NVML_SUCCESS);
            assert_int_equal(L.nvmlDeviceGetName(d, name, sizeof(name)), NVML_SUCCESS);
            assert_memory_equal(name, "NVIDIA ", 7);
            m.version = nvmlMemory_v2;
            assert_int_equal(L.nvmlDeviceGetMemoryInfo_v2(d, &m), NVML_SUCCESS);
            assert_int_equal(m.total, m.reserved + m.used + m.free);
        }
        tsim_down();
    }
    closedir(dh);
    assert_true(seen >= 16);
}

/* Spot checks of what the bundled scenarios are meant to show. */
static void test_bundled_behaviour(void **state)
{
    nvmlMemory_v2_t m;
    nvmlUtilization_t u;
    unsigned long long r;
    unsigned int v, count;
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_example("idle-8xh200.scn"), 0, 10);
    assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    assert_int_equal(count, 8);
    d = tsim_dev(7);
    assert_int_equal(L.nvmlDeviceGetFanSpeed(d, &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetEnforcedPowerLimit(d, &v), NVML_SUCCESS);
    assert_int_equal(v, 700000);
    assert_int_equal(L.nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
    assert_int_equal(u.gpu, 0);
    tsim_down();

    tsim_up(tsim_example("tf-prealloc.scn"), 0, 30);
    m.version = nvmlMemory_v2;
    assert_int_equal(L.nvmlDeviceGetMemoryInfo_v2(tsim_dev(0), &m), NVML_SUCCESS);
    assert_true(m.used > m.total / 100 * 95);
    tsim_down();

    tsim_up(tsim_example("thermal-throttle.scn"), 0, 200);
    assert_int_equal(L.nvmlDeviceGetCurrentClocksEventReasons(tsim_dev(0), &r), NVML_SUCCESS);
    assert_true(r & 0x60);
    assert_int_equal(L.nvmlDeviceGetTemperature(tsim_dev(0), NVML_TEMPERATURE_GPU, &v), NVML_SUCCESS);
    assert_true(v >= 85);
    tsim_down();

    tsim_up(tsim_example("gpu-lost.scn"), 0, 30);
    assert_int_equal(L.nvmlDeviceGetHandleByIndex_v2(1, &d), NVML_ERROR_GPU_IS_LOST);
    tsim_down();

    tsim_up(tsim_example("oom.scn"), 0, 150);
    count = 0;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(tsim_dev(0), &count, NULL), NVML_SUCCESS);
    assert_int_equal(count, 0);
    tsim_down();
}

static void test_builtin_default(void **state)
{
    unsigned int count = 0;
    char name[96];

    (void)state;
    tsim_up(NULL, -1, -1);
    assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    assert_int_equal(count, 2);
    assert_int_equal(L.nvmlDeviceGetName(tsim_dev(1), name, sizeof(name)), NVML_SUCCESS);
    assert_string_equal(name, "NVIDIA A100-SXM4-80GB");
    count = 0;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(tsim_dev(0), &count, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 1);
    tsim_down();
}

struct scen_snapshot {
    unsigned int samples[64];
    unsigned int n, power, temp, fan;
};

static void scen_take(const char *path, double start, struct scen_snapshot *s)
{
    nvmlSample_t buf[64];
    nvmlValueType_t vt;
    nvmlDevice_t d;

    tsim_up(path, 0, start);
    d = tsim_dev(0);
    s->n = 64;
    assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &s->n, buf), NVML_SUCCESS);
    for (unsigned int i = 0; i < s->n; i++)
        s->samples[i] = buf[i].sampleValue.uiVal;
    assert_int_equal(L.nvmlDeviceGetPowerUsage(d, &s->power), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &s->temp), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetFanSpeed(d, &s->fan), NVML_SUCCESS);
    tsim_down();
}

static void test_determinism(void **state)
{
    static const char a[] = "seed 5\ngpu 0\n  util.gpu = const(50) + noise(20)\n  power = const(300) + noise(50)\n"
                            "  temperature = const(60) + noise(5)\n";
    static const char b[] = "seed 6\ngpu 0\n  util.gpu = const(50) + noise(20)\n  power = const(300) + noise(50)\n"
                            "  temperature = const(60) + noise(5)\n";
    struct scen_snapshot s1, s2, s3;

    (void)state;
    scen_take(tsim_write(a, sizeof(a) - 1), 37.3, &s1);
    scen_take(tsim_write(a, sizeof(a) - 1), 37.3, &s2);
    assert_int_equal(s1.n, s2.n);
    assert_memory_equal(&s1, &s2, sizeof(s1));
    scen_take(tsim_write(b, sizeof(b) - 1), 37.3, &s3);
    assert_int_equal(s1.n, s3.n);
    assert_memory_not_equal(s1.samples, s3.samples, sizeof(s1.samples[0]) * s1.n);
}

static void test_speed_and_start(void **state)
{
    static const char scn[] = "sample_period_ms 20\ngpu 0\n  util.gpu = step(1, 0, 100)\n"
                              "  process 9 late start=300\n";
    nvmlUtilization_t u;
    unsigned int count;

    (void)state;
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 10, 0);      /* 10x: t=1 s after 100 ms */
    tsim_sleep_ms(300);
    assert_int_equal(L.nvmlDeviceGetUtilizationRates(tsim_dev(0), &u), NVML_SUCCESS);
    assert_true(u.gpu > 0);
    tsim_down();
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 1, 0);
    tsim_sleep_ms(300);
    assert_int_equal(L.nvmlDeviceGetUtilizationRates(tsim_dev(0), &u), NVML_SUCCESS);
    assert_int_equal(u.gpu, 0);
    count = 0;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(tsim_dev(0), &count, NULL), NVML_SUCCESS);
    tsim_down();
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 1, 300);     /* START jumps to t=300 at once */
    count = 0;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(tsim_dev(0), &count, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 1);
    assert_int_equal(L.nvmlDeviceGetUtilizationRates(tsim_dev(0), &u), NVML_SUCCESS);
    assert_int_equal(u.gpu, 100);
    tsim_down();
}

static void test_trace(void **state)
{
    unsigned int t;

    (void)state;
    tsim_up(tsim_data("trace.scn"), 0, 5);
    assert_int_equal(L.nvmlDeviceGetTemperature(tsim_dev(0), NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
    assert_int_equal(t, 50);                /* halfway between (0,40) and (10,60) */
    tsim_down();
    tsim_up(tsim_data("trace.scn"), 0, 100);
    assert_int_equal(L.nvmlDeviceGetTemperature(tsim_dev(0), NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
    assert_int_equal(t, 90);                /* holds the last point */
    tsim_down();
}

static void test_layout_by_driver(void **state)
{
    unsigned char buf[256];
    unsigned int count = 8, pid;
    char ver[80];

    (void)state;
    tsim_up(tsim_example("legacy-535.scn"), 0, 30);
    assert_int_equal(L.nvmlSystemGetDriverVersion(ver, sizeof(ver)), NVML_SUCCESS);
    assert_string_equal(ver, "535.54.03");
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(tsim_dev(0), &count, (void *)buf), NVML_SUCCESS);
    assert_int_equal(count, 2);
    memcpy(&pid, buf + 32, 4);              /* second entry at a 32-byte stride */
    assert_true(pid != 0 && pid != 0xABABABABu);
    for (size_t i = 64; i < sizeof(buf); i++)
        assert_int_equal(buf[i], 0xAB);
    tsim_down();
}

int tsim_run_scenarios(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bundled),         cmocka_unit_test(test_bundled_behaviour),
        cmocka_unit_test(test_builtin_default), cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_speed_and_start), cmocka_unit_test(test_trace),
        cmocka_unit_test(test_layout_by_driver),
    };
    return cmocka_run_group_tests_name("sim_scenarios", tests, NULL, NULL);
}

/* ---- parse ---- */

struct scen_bad {
    const char *text;
    size_t len;                             /* 0: strlen */
    int line;
    const char *needle;
};

static nvmlReturn_t scen_init_plain(void)
{
    return L.nvmlInit();
}

static nvmlReturn_t scen_init_flags(void)
{
    return L.nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS);
}

static void test_invalid_files(void **state)
{
    static const char junk[] = "gpu 0\n\x7f" "ELF\x02\x01\x01\0\0\0garbage\n";
    static const struct scen_bad bad[] = {
        { "seed 1\ngpu 0\n  colour blue\n", 0, 3, "unknown key" },
        { "seed abc\n", 0, 1, "number" },
        { "gpu 0\n  util.gpu = sine(50, 10\n", 0, 2, "unterminated" },
        { "gpu 0\n  memory_total 1e300 GiB\n", 0, 2, "range" },
        { "gpu 0\n  memory_total 99999999999999999999999 GiB\n", 0, 2, "range" },
        { "gpu 0\n  util.gpu = wobble(3)\n", 0, 2, "unknown term" },
        { "gpu 0\n  util.gpu = const(5) const(6)\n", 0, 2, "'+'" },
        { "gpu 64\n", 0, 1, "gpu index" },
        { "gpu 3-1\n", 0, 1, "range" },
        { "util.gpu = const(1)\n", 0, 1, "outside a gpu block" },
        { "gpu 0\n  process 12\n", 0, 2, "name" },
        { "gpu 0\n  unsupported fans\n", 0, 2, "unknown family" },
        { "gpu 0\n  at 5 hang nvmlDoesNotExist 3\n", 0, 2, "function" },
        { "gpu 0\n  at 5 explode\n", 0, 2, "unknown fault" },
        { "gpu 0\n  temperature = trace(no-such-file.csv)\n", 0, 2, "no-such-file.csv" },
        { "gpu 0\n  square = square(1, 2, 0)\n", 0, 2, "unknown key" },
        { "gpu 0\n  util.gpu = square(1, 2, 0)\n", 0, 2, "period" },
        { "init_error NOT_A_CODE\n", 0, 1, "init_error" },
        { "gpu 0\n  memory_total 1 GiB\n  memory_reserved 2 GiB\n", 0, 3, "memory_reserved" },
        { junk, sizeof(junk) - 1, 2, "control character" },
    };
    char err[2048], expect[1400];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *path = tsim_write(bad[i].text, bad[i].len ? bad[i].len : strlen(bad[i].text));
        nvmlReturn_t (*const inits[3])(void) = { L.nvmlInit_v2, scen_init_plain, scen_init_flags };
        for (int k = 0; k < 3; k++) {
            tsim_env(path, 0, 0);
            assert_int_equal(tsim_init_captured(inits[k], err, sizeof(err)), NVML_ERROR_UNKNOWN);
            snprintf(expect, sizeof(expect), "gpumon-sim: %s:%d: ", path, bad[i].line);
            if (strncmp(err, expect, strlen(expect)) != 0 || !strstr(err, bad[i].needle))
                fail_msg("case %zu: got \"%s\", expected \"%s...%s...\"", i, err, expect, bad[i].needle);
            assert_int_equal(err[strlen(err) - 1], '\n');
            assert_null(strchr(err, '\n') + 1 == err + strlen(err) ? NULL : "more than one line");
            assert_int_equal(L.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
        }
    }
    tsim_env("/nonexistent/dir/x.scn", 0, 0);
    assert_int_equal(tsim_init_captured(L.nvmlInit_v2, err, sizeof(err)), NVML_ERROR_UNKNOWN);
    assert_non_null(strstr(err, "gpumon-sim: /nonexistent/dir/x.scn:0: "));
    tsim_env(tsim_data("basic.scn"), 0, 0);
    setenv("GPUMON_SIM_SPEED", "fast", 1);
    assert_int_equal(tsim_init_captured(L.nvmlInit_v2, err, sizeof(err)), NVML_ERROR_UNKNOWN);
    assert_non_null(strstr(err, "GPUMON_SIM_SPEED"));
    tsim_env(NULL, -1, -1);
}

static void test_init_error_codes(void **state)
{
    static const char num[] = "init_error 18\n";
    static const char name[] = "init_error NVML_ERROR_NO_PERMISSION\n";

    (void)state;
    tsim_env(tsim_write(num, sizeof(num) - 1), 0, 0);
    assert_int_equal(L.nvmlInit_v2(), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
    tsim_env(tsim_write(name, sizeof(name) - 1), 0, 0);
    assert_int_equal(L.nvmlInit_v2(), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(L.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
}

/* Mutates a valid scenario at random; init must succeed or fail cleanly. */
static void test_fuzz(void **state)
{
    static const char base[] =
        "seed 3\ndriver 535.54.03\ngpu 0-3\n  name NVIDIA H100 80GB HBM3\n  memory_total 80 GiB\n"
        "  util.gpu = square(0, 60, 2.0, 0.5) + noise(3)\n  power = saw(300, 650, 10)\n"
        "  clock_max sm=1980 mem=2619\n  pcie gen=5 width=16\n"
        "  process 4242 python3 train.py memory=ramp(1 GiB, 70 GiB, 0, 300) start=0 stop=320 util=100%\n"
        "  at 30 unsupported power\n  at 50 xid 79 every 1 until 60\n  at 120 lost\n";
    static const char alphabet[] = "0123456789 ()+,=.#-xeGiBW%\n\t\0\xff\x80" "abcgpuatlost";
    unsigned long long rng = 0x1234567ull;
    char text[sizeof(base) + 64], err[2048];
    int ok = 0, bad = 0;

    (void)state;
    for (int iter = 0; iter < 400; iter++) {
        size_t len = sizeof(base) - 1;
        memcpy(text, base, len);
        for (int m = 0; m < 1 + iter % 6; m++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            size_t pos = (size_t)(rng >> 33) % len;
            char c = alphabet[(rng >> 20) % (sizeof(alphabet) - 1)];
            if ((rng >> 8) % 3 == 0 && len + 1 < sizeof(text)) {
                memmove(text + pos + 1, text + pos, len - pos);
                len++;
            } else if ((rng >> 8) % 3 == 1 && len > 1) {
                memmove(text + pos, text + pos + 1, len - pos - 1);
                len--;
                continue;
            }
            text[pos] = c;
        }
        tsim_env(tsim_write(text, len), 0, 100);
        nvmlReturn_t rc = tsim_init_captured(L.nvmlInit_v2, err, sizeof(err));
        if (rc == NVML_SUCCESS) {
            unsigned int count = 0;
            assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
            for (unsigned int i = 0; i < count; i++) {
                nvmlDevice_t d;
                unsigned int v;
                if (L.nvmlDeviceGetHandleByIndex_v2(i, &d) == NVML_SUCCESS)
                    (void)L.nvmlDeviceGetPowerUsage(d, &v);
            }
            tsim_down();
            ok++;
        } else {
            assert_int_equal(rc, NVML_ERROR_UNKNOWN);
            assert_memory_equal(err, "gpumon-sim: ", 12);
            assert_non_null(strchr(err, '\n'));
            assert_int_equal(strchr(err, '\n')[1], '\0');
            bad++;
        }
    }
    assert_true(ok > 0 && bad > 0);
    tsim_env(NULL, -1, -1);
}

int tsim_run_parse(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_files),
        cmocka_unit_test(test_init_error_codes),
        cmocka_unit_test(test_fuzz),
    };
    return cmocka_run_group_tests_name("sim_parse", tests, NULL, NULL);
}

/* ---- variants ---- */

static const char *const scen_newer_than_470[] = {
    "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3",
    "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetCurrentClocksEventReasons",
    "nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetTemperatureV",
    "nvmlDeviceGetRunningProcessDetailList", "nvmlDeviceGetConfComputeMemSizeInfo",
    "nvmlGpmQueryDeviceSupport", "nvmlGpmSampleAlloc", "nvmlGpmSampleFree", "nvmlGpmSampleGet",
    "nvmlGpmMetricsGet", "nvmlDeviceGetMPSComputeRunningProcesses_v3", "nvmlDeviceGetDriverModel_v2",
};

static void test_legacy470(void **state)
{
    struct tsim_lib lib;
    char ver[80];

    (void)state;
    assert_int_equal(tsim_open(&lib, "legacy-470"), 16);    /* the 15 above + GetNumFans */
    for (size_t i = 0; i < sizeof(scen_newer_than_470) / sizeof(scen_newer_than_470[0]); i++)
        if (tsim_sym(&lib, scen_newer_than_470[i]))
            fail_msg("legacy-470 exports %s", scen_newer_than_470[i]);
    assert_non_null(tsim_sym(&lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    assert_non_null(tsim_sym(&lib, "nvmlDeviceGetComputeRunningProcesses_v2"));
    assert_non_null(tsim_sym(&lib, "nvmlDeviceGetMPSComputeRunningProcesses_v2"));   /* since 470.42.01 */
    assert_non_null(tsim_sym(&lib, "nvmlDeviceGetMigMode"));
    assert_non_null(tsim_sym(&lib, "nvmlDeviceGetTemperature"));
    assert_null(tsim_sym(&lib, "sim_state"));                /* internals stay hidden */
    assert_null(tsim_sym(&lib, "sim_scenario_load"));
    tsim_env(tsim_data("basic.scn"), 0, 5);
    unsetenv("GPUMON_SIM_SCENARIO");
    assert_int_equal(lib.nvmlInit_v2(), NVML_SUCCESS);
    assert_int_equal(lib.nvmlSystemGetDriverVersion(ver, sizeof(ver)), NVML_SUCCESS);
    assert_string_equal(ver, "470.256.02");
    assert_int_equal(lib.nvmlShutdown(), NVML_SUCCESS);
    assert_null(tsim_sym(&L, "sim_state"));
}

static void test_r535(void **state)
{
    struct tsim_lib lib;
    unsigned char buf[256];
    unsigned int count = 4, pid;
    nvmlDevice_t d;

    (void)state;
    assert_int_equal(tsim_open(&lib, "r535-43"), 3);        /* DetailList, TemperatureV, DriverModel_v2 */
    assert_non_null(tsim_sym(&lib, "nvmlDeviceGetConfComputeMemSizeInfo"));
    assert_null(tsim_sym(&lib, "nvmlDeviceGetRunningProcessDetailList"));
    assert_non_null(tsim_sym(&lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    assert_non_null(tsim_sym(&L, "nvmlDeviceGetConfComputeMemSizeInfo"));
    assert_non_null(tsim_sym(&L, "nvmlDeviceGetRunningProcessDetailList"));
    tsim_env(tsim_data("basic.scn"), 0, 50);
    assert_int_equal(lib.nvmlInit_v2(), NVML_SUCCESS);
    assert_int_equal(lib.nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_SUCCESS);
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(lib.nvmlDeviceGetComputeRunningProcesses_v3(d, &count, (void *)buf), NVML_SUCCESS);
    assert_int_equal(count, 2);
    memcpy(&pid, buf + 32, 4);
    assert_int_equal(pid, 1002);
    for (size_t i = 64; i < sizeof(buf); i++)
        assert_int_equal(buf[i], 0xAB);
    count = 4;
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(lib.nvmlDeviceGetComputeRunningProcesses_v2(d, &count, (void *)buf), NVML_SUCCESS);
    memcpy(&pid, buf + 24, 4);
    assert_int_equal(pid, 1002);
    for (size_t i = 48; i < sizeof(buf); i++)
        assert_int_equal(buf[i], 0xAB);
    assert_int_equal(lib.nvmlShutdown(), NVML_SUCCESS);
}

int tsim_run_variants(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy470),
        cmocka_unit_test(test_r535),
    };
    return cmocka_run_group_tests_name("sim_variants", tests, NULL, NULL);
}
