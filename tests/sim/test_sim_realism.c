/*
 * test_sim_realism.c: the "realism" group: the scenario's clock as gpumon
 * reads it (gpumonSimClock: the speed, an epoch time that starts at the wall
 * time of init and runs SPEED times as fast, frozen at 0, exported by every
 * variant), the one clock that two library instances (standing for two
 * processes: each its own state and descriptors) share while one holds it, and the simulator's likeness to nvidia-smi captures of real
 * boards (an H100 SXM, an L40S, a GeForce RTX 2080 SUPER): process memory
 * changing in 2 MiB pages at 100 ms ticks, the memory clock unthrottled, idle
 * clocks and power per board, no fan on SXM and passive boards, no serial
 * on GeForce boards.
 */
#include "test_sim.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef nvmlReturn_t (*real_clock_fn)(double *speed, unsigned long long *epoch_us);

static double real_wall(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_clock(void **state)
{
    static const char scn[] = "gpu 0\n  util.gpu = const(50)\n";
    real_clock_fn clk = (real_clock_fn)tsim_sym(&L, GPUMON_SIM_CLOCK_SYMBOL);
    double speed = -1, t0, t1;
    unsigned long long a, b;
    struct tsim_lib old;

    (void)state;
    assert_non_null(clk);
    assert_int_equal(clk(&speed, &a), NVML_ERROR_UNINITIALIZED);
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 10, 300);
    assert_int_equal(clk(NULL, &a), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clk(&speed, NULL), NVML_ERROR_INVALID_ARGUMENT);
    t0 = tsim_now();
    assert_int_equal(clk(&speed, &a), NVML_SUCCESS);
    assert_true(speed == 10);
    assert_true(fabs((double)a / 1e6 - real_wall()) < 2);   /* starts at the wall time of init, whatever START */
    tsim_sleep_ms(100);
    assert_int_equal(clk(&speed, &b), NVML_SUCCESS);
    t1 = tsim_now();
    assert_true(b > a);
    assert_true((double)(b - a) / 1e6 >= 10 * 0.09);              /* 10x the wall time that passed */
    assert_true((double)(b - a) / 1e6 <= 10 * (t1 - t0) + 0.01);
    tsim_down();

    tsim_up(tsim_write(scn, sizeof(scn) - 1), 0, 5);              /* frozen */
    assert_int_equal(clk(&speed, &a), NVML_SUCCESS);
    tsim_sleep_ms(20);
    assert_int_equal(clk(&speed, &b), NVML_SUCCESS);
    assert_true(speed == 0);
    assert_true(a == b);
    tsim_down();

    assert_int_equal(tsim_open(&old, "legacy-470"), 16);          /* every variant has it */
    assert_non_null(tsim_sym(&old, GPUMON_SIM_CLOCK_SYMBOL));
}

/* The temperature of GPU 0 (the scenario's second, from the ramp below) through lib. */
static unsigned int real_second(const struct tsim_lib *lib)
{
    nvmlDevice_t d;
    unsigned int t;

    assert_int_equal(lib->nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_SUCCESS);
    assert_int_equal(lib->nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
    return t;
}

/* Clock files in the test's clock directory. */
static int real_clock_files(void)
{
    const char *dir = getenv("GPUMON_SIM_CLOCK_DIR");
    struct dirent *e;
    DIR *d;
    int n = 0;

    assert_non_null(dir);
    if (!(d = opendir(dir)))
        return 0;
    while ((e = readdir(d)))
        n += strstr(e->d_name, ".clock") != NULL;
    closedir(d);
    return n;
}

static void test_shared_clock(void **state)
{
    /* temperature = 20 + the scenario's second */
    static const char scn[] = "gpu 0\n  util.gpu = const(50)\n  temperature = ramp(20, 1020, 0, 1000)\n";
    real_clock_fn clk = (real_clock_fn)tsim_sym(&L, GPUMON_SIM_CLOCK_SYMBOL), clk2;
    struct tsim_lib other;
    unsigned int a1, b, a2;
    unsigned long long ea, eb;
    double speed = 0;
    const char *path;
    char dir[1024];

    (void)state;
    assert_int_equal(tsim_open(&other, "r535-43"), 3);   /* another instance: its own state, like a process */
    clk2 = (real_clock_fn)tsim_sym(&other, GPUMON_SIM_CLOCK_SYMBOL);
    path = tsim_write(scn, sizeof(scn) - 1);
    tsim_up(path, 10, -1);                 /* 10x, no pinned START: the shared clock */
    assert_int_equal(real_clock_files(), 1);
    tsim_sleep_ms(400);                    /* >= second 4 */
    tsim_env(path, -1, -1);                /* the second one sets no speed: it adopts the clock's */
    a1 = real_second(&L);
    assert_int_equal(other.nvmlInit_v2(), NVML_SUCCESS);
    b = real_second(&other);
    a2 = real_second(&L);
    assert_true(a1 >= 24);
    assert_true(b + 1 >= a1 && b <= a2 + 1);   /* the same second, not a clock of its own from 0 */
    assert_int_equal(clk2(&speed, &eb), NVML_SUCCESS);
    assert_int_equal(clk(&speed, &ea), NVML_SUCCESS);
    assert_true(speed == 10);
    assert_true(ea >= eb && (double)(ea - eb) < 2e6);   /* one epoch mapping: the samples' stamps agree */
    assert_int_equal(clk2(&speed, &eb), NVML_SUCCESS);
    assert_true(speed == 10);              /* fast-play adopted */
    assert_int_equal(real_clock_files(), 1);
    assert_int_equal(other.nvmlShutdown(), NVML_SUCCESS);

    tsim_env(path, 1, -1);                 /* another speed asked for: a clock of its own */
    assert_int_equal(other.nvmlInit_v2(), NVML_SUCCESS);
    assert_true(real_second(&other) <= 21 && real_second(&L) >= 24);
    assert_int_equal(other.nvmlShutdown(), NVML_SUCCESS);
    tsim_env(path, -1, 0);                 /* a pinned moment: its own, at START */
    assert_int_equal(other.nvmlInit_v2(), NVML_SUCCESS);
    assert_true(real_second(&other) <= 21);
    assert_int_equal(other.nvmlShutdown(), NVML_SUCCESS);

    tsim_down();                           /* the last holder: the clock goes with it */
    assert_int_equal(real_clock_files(), 0);
    tsim_env(path, 10, -1);
    assert_int_equal(other.nvmlInit_v2(), NVML_SUCCESS);
    assert_true(real_second(&other) <= 21);  /* a fresh clock from second 0 */
    assert_int_equal(other.nvmlShutdown(), NVML_SUCCESS);
    snprintf(dir, sizeof dir, "%s", getenv("GPUMON_SIM_CLOCK_DIR"));
    setenv("GPUMON_SIM_CLOCK_DIR", "off", 1);   /* sharing off: each its own clock, as before */
    tsim_up(path, 10, -1);
    tsim_sleep_ms(300);
    assert_int_equal(other.nvmlInit_v2(), NVML_SUCCESS);
    assert_true(real_second(&other) <= 21 && real_second(&L) >= 23);
    tsim_down();
    assert_int_equal(other.nvmlShutdown(), NVML_SUCCESS);
    setenv("GPUMON_SIM_CLOCK_DIR", dir, 1);
    unsetenv("GPUMON_SIM_SCENARIO");
}

/* Memory used on GPU 0 at scenario time start (a frozen clock); GetMemoryInfo (v1) counts the driver's
 * reservation (512 MiB by default) as used. */
static unsigned long long real_used_at(const char *scn, size_t len, double start)
{
    nvmlMemory_t m;

    tsim_up(tsim_write(scn, len), 0, start);
    assert_int_equal(L.nvmlDeviceGetMemoryInfo(tsim_dev(0), &m), NVML_SUCCESS);
    tsim_down();
    return m.used;
}

static void test_memory_steps(void **state)
{
    /* 100 GiB over 1000 s: 10.24 MiB per 100 ms tick */
    static const char scn[] = "gpu 0\n  name NVIDIA H100 80GB HBM3\n  memory_total 200 GiB\n"
                              "  process 7 train memory=ramp(1 GiB, 101 GiB, 0, 1000)\n";
    const unsigned long long page = 2ull << 20;
    unsigned long long a = real_used_at(scn, sizeof(scn) - 1, 33.3), b, c;
    nvmlMemory_t m1, m2;

    (void)state;
    b = real_used_at(scn, sizeof(scn) - 1, 33.39);        /* the same tick */
    c = real_used_at(scn, sizeof(scn) - 1, 33.4);         /* the next one */
    assert_int_equal(a % page, 0);
    assert_int_equal(c % page, 0);
    assert_int_equal(a, b);
    assert_true(c >= a + 4 * page && c <= a + 6 * page);
    {   /* a constant is reported as given, odd MiB included (nvidia-smi shows 681 MiB, 3 MiB...) */
        static const char odd[] = "gpu 0\n  process 8 ffmpeg memory=const(681 MiB)\n";
        assert_int_equal(real_used_at(odd, sizeof(odd) - 1, 5), (681ull + 512) << 20);   /* v1: + reserved */
    }
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 1, 40);     /* live: two calls a moment apart agree */
    for (int i = 0; i < 50; i++) {
        assert_int_equal(L.nvmlDeviceGetMemoryInfo(tsim_dev(0), &m1), NVML_SUCCESS);
        assert_int_equal(L.nvmlDeviceGetMemoryInfo(tsim_dev(0), &m2), NVML_SUCCESS);
        assert_true(m2.used == m1.used || m2.used >= m1.used + 4 * page);   /* equal, or a tick passed */
        assert_int_equal(m1.used % page, 0);
    }
    tsim_down();
}

static void test_memory_clock_not_throttled(void **state)
{
    static const char scn[] = "gpu 0-2\n  name NVIDIA H100 80GB HBM3\n  clock_max sm=1980 mem=2619 graphics=1980 "
                              "video=1545\n  util.gpu = const(95)\n"
                              "gpu 0\n  clocks_event_reasons = const(0x4)\n"      /* SW power cap */
                              "gpu 1\n  clocks_event_reasons = const(0x40)\n"     /* HW thermal */
                              "gpu 2\n  clocks_event_reasons = const(0x40)\n  clock.mem = const(1600)\n";
    unsigned int sm, mem;

    (void)state;
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 0, 10);
    assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(0), NVML_CLOCK_SM, &sm), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(0), NVML_CLOCK_MEM, &mem), NVML_SUCCESS);
    assert_int_equal(sm, 1683);                                    /* 1980 x 0.85 */
    assert_int_equal(mem, 2619);
    assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(1), NVML_CLOCK_SM, &sm), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(1), NVML_CLOCK_MEM, &mem), NVML_SUCCESS);
    assert_int_equal(sm, 1188);                                    /* 1980 x 0.6 */
    assert_int_equal(mem, 2619);
    assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(2), NVML_CLOCK_MEM, &mem), NVML_SUCCESS);
    assert_int_equal(mem, 1600);                                   /* unless the scenario says otherwise */
    tsim_down();
}

static void test_idle_by_board(void **state)
{
    /* idle (no util signal): the captures' idle clocks and power per board */
    static const char scn[] = "gpu 0\n  name NVIDIA H100 80GB HBM3\n  power_limit 700 W\n"
                              "  clock_max sm=1980 mem=2619 graphics=1980 video=1545\n"
                              "gpu 1\n  name NVIDIA L40S\n  power_limit 350 W\n"
                              "  clock_max sm=2520 mem=9001 graphics=2520 video=1965\n"
                              "gpu 2\n  name NVIDIA GeForce RTX 2080 SUPER\n  power_limit 250 W\n"
                              "  clock_max sm=2145 mem=7751 graphics=2145 video=1995\n"
                              "gpu 3\n  name NVIDIA A100-SXM4-80GB\n  power_limit 400 W\n";
    static const struct { unsigned int sm, mem, video, mw; } want[] = {
        { 345, 2619, 765, 70000 }, { 210, 405, 555, 37000 }, { 300, 405, 540, 38000 }, { 210, 1593, 555, 40000 },
    };
    unsigned int v;

    (void)state;
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 0, 10);
    for (unsigned int i = 0; i < 4; i++) {
        assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(i), NVML_CLOCK_SM, &v), NVML_SUCCESS);
        assert_int_equal(v, want[i].sm);
        assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(i), NVML_CLOCK_GRAPHICS, &v), NVML_SUCCESS);
        assert_int_equal(v, want[i].sm);
        assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(i), NVML_CLOCK_MEM, &v), NVML_SUCCESS);
        assert_int_equal(v, want[i].mem);
        assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(i), NVML_CLOCK_VIDEO, &v), NVML_SUCCESS);
        assert_int_equal(v, want[i].video);
        assert_int_equal(L.nvmlDeviceGetPowerUsage(tsim_dev(i), &v), NVML_SUCCESS);
        assert_int_equal(v, want[i].mw);
    }
    tsim_down();
}

static void test_serial_and_fans(void **state)
{
    static const char scn[] = "gpu 0\n  name NVIDIA H100 80GB HBM3\n"
                              "gpu 1\n  name NVIDIA L40S\n"
                              "gpu 2\n  name NVIDIA GeForce RTX 2080 SUPER\n"
                              "gpu 3\n  name NVIDIA GeForce RTX 2080 SUPER\n  serial 0324118012345\n"
                              "gpu 4\n  name NVIDIA H200\n  fans 2\n";
    char serial[32];
    unsigned int v;

    (void)state;
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 0, 1);
    assert_int_equal(L.nvmlDeviceGetFanSpeed(tsim_dev(0), &v), NVML_ERROR_NOT_SUPPORTED);   /* SXM: no fan */
    assert_int_equal(L.nvmlDeviceGetFanSpeed(tsim_dev(1), &v), NVML_ERROR_NOT_SUPPORTED);   /* passive */
    assert_int_equal(L.nvmlDeviceGetFanSpeed(tsim_dev(2), &v), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetFanSpeed(tsim_dev(4), &v), NVML_SUCCESS);               /* fans 2 */
    assert_int_equal(L.nvmlDeviceGetSerial(tsim_dev(0), serial, sizeof(serial)), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetSerial(tsim_dev(1), serial, sizeof(serial)), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetSerial(tsim_dev(2), serial, sizeof(serial)), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetSerial(tsim_dev(3), serial, sizeof(serial)), NVML_SUCCESS);   /* said */
    assert_string_equal(serial, "0324118012345");
    tsim_down();
}

int tsim_run_realism(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_shared_clock),
        cmocka_unit_test(test_memory_steps),
        cmocka_unit_test(test_memory_clock_not_throttled),
        cmocka_unit_test(test_idle_by_board),
        cmocka_unit_test(test_serial_and_fans),
    };
    return cmocka_run_group_tests_name("sim_realism", tests, NULL, NULL);
}
