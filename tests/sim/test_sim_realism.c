/*
 * test_sim_realism.c: the "realism" group: the scenario's clock as gpumon
 * reads it (gpumonSimClock: the speed, an epoch time that starts at the wall
 * time of init and runs SPEED times as fast, frozen at 0, exported by every
 * variant), and the simulator's likeness to the captured hardware in
 * /work/shared/captures (nvidia-smi of an H100 SXM, an L40S and a GeForce
 * RTX 2080 SUPER).
 */
#include "test_sim.h"

#include <math.h>
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

int tsim_run_realism(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock),
    };
    return cmocka_run_group_tests_name("sim_realism", tests, NULL, NULL);
}
