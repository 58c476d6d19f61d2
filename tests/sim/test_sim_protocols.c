/*
 * test_sim_protocols.c: the "protocols", "faults" and "events" groups.
 *
 * protocols: process-list sizing and per-variant strides, the detail list,
 * process names, GetSamples (sizing, lastSeen, NOT_FOUND), utilization
 * rates against the last second of samples, process utilization, energy
 * and ECC monotonicity, clocks dropping with clock-event reasons, GPM
 * (versions, support by board, the sample pool, the 100 ms rule).
 * faults: NOT_SUPPORTED families, NO_PERMISSION and GPU-lost faults, a
 * hanging call (and that it does not block other threads), the cost of
 * GetPcieThroughput. events: the event-set API with XIDs and timeouts.
 */
#include "test_sim.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static size_t proto_touched(const unsigned char *buf, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        if (buf[i] != 0xAB)
            n = i + 1;
    return n;
}

static void test_process_sizing(void **state)
{
    nvmlProcessInfo_v2_t infos[4];
    unsigned int count;
    nvmlDevice_t d0, d2;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 50);
    d0 = tsim_dev(0);
    d2 = tsim_dev(2);
    count = 0;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(d0, &count, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 2);
    count = 1;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(d0, &count, infos), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 2);
    count = 4;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(d0, &count, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(d0, NULL, infos), NVML_ERROR_INVALID_ARGUMENT);
    count = 0;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(d2, &count, NULL), NVML_SUCCESS);
    assert_int_equal(count, 0);
    count = 0;                              /* graphics list holds only the type=both process */
    assert_int_equal(L.nvmlDeviceGetGraphicsRunningProcesses_v2(d0, &count, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 1);
    tsim_down();
    /* at t=150 the late process runs too */
    tsim_up(tsim_data("basic.scn"), 0, 150);
    count = 0;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses(tsim_dev(0), &count, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 3);
    tsim_down();
}

typedef nvmlReturn_t (*proto_list_fn)(nvmlDevice_t, unsigned int *, void *);

/* Calls a list variant on a sentinel buffer; checks stride and the bytes written. */
static void proto_check_stride(proto_list_fn fn, nvmlDevice_t d, size_t stride)
{
    unsigned char buf[256];
    unsigned int count = 4, pid;
    unsigned long long mem;

    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(fn(d, &count, buf), NVML_SUCCESS);
    assert_int_equal(count, 2);
    assert_true(proto_touched(buf, sizeof(buf)) <= 2 * stride);
    assert_true(proto_touched(buf, sizeof(buf)) > stride);
    memcpy(&pid, buf, 4);
    assert_int_equal(pid, 1001);
    memcpy(&mem, buf + 8, 8);
    assert_int_equal(mem, 10ull << 30);
    memcpy(&pid, buf + stride, 4);
    assert_int_equal(pid, 1002);
    memcpy(&mem, buf + stride + 8, 8);
    assert_int_equal(mem, 2ull << 30);
    if (stride >= 24) {
        unsigned int gi, ci;
        memcpy(&gi, buf + 16, 4);
        memcpy(&ci, buf + 20, 4);
        assert_int_equal(gi, 0xFFFFFFFFu);
        assert_int_equal(ci, 0xFFFFFFFFu);
    }
}

static void test_process_strides(void **state)
{
    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 50);
    proto_check_stride((proto_list_fn)(void *)L.nvmlDeviceGetComputeRunningProcesses, tsim_dev(0), 16);
    proto_check_stride((proto_list_fn)(void *)L.nvmlDeviceGetComputeRunningProcesses_v2, tsim_dev(0), 24);
    proto_check_stride((proto_list_fn)(void *)L.nvmlDeviceGetComputeRunningProcesses_v3, tsim_dev(0), 24);
    tsim_down();
}

static void test_detail_list(void **state)
{
    nvmlProcessDetail_v1_t arr[4];
    nvmlProcessDetailList_v1_t list;
    unsigned char buf[160];

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 50);
    memset(&list, 0, sizeof(list));
    list.version = 1;
    assert_int_equal(L.nvmlDeviceGetRunningProcessDetailList(tsim_dev(0), &list), NVML_ERROR_INVALID_ARGUMENT);
    list.version = nvmlProcessDetailList_v1;
    list.mode = NVML_PROCESS_MODE_COMPUTE;
    assert_int_equal(L.nvmlDeviceGetRunningProcessDetailList(tsim_dev(0), &list), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(list.numProcArrayEntries, 2);
    memset(buf, 0xAB, sizeof(buf));
    list.numProcArrayEntries = 4;
    list.procArray = (nvmlProcessDetail_v1_t *)(void *)buf;
    assert_int_equal(L.nvmlDeviceGetRunningProcessDetailList(tsim_dev(0), &list), NVML_SUCCESS);
    assert_int_equal(list.numProcArrayEntries, 2);
    assert_true(proto_touched(buf, sizeof(buf)) <= 64 && proto_touched(buf, sizeof(buf)) > 32);
    memcpy(arr, buf, 2 * sizeof(arr[0]));
    assert_int_equal(arr[1].pid, 1002);
    assert_int_equal(arr[1].usedGpuCcProtectedMemory, 0);
    list.mode = NVML_PROCESS_MODE_MPS;
    assert_int_equal(L.nvmlDeviceGetRunningProcessDetailList(tsim_dev(0), &list), NVML_SUCCESS);
    assert_int_equal(list.numProcArrayEntries, 0);
    tsim_down();
}

static void test_process_name(void **state)
{
    char buf[64];

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 50);
    assert_int_equal(L.nvmlSystemGetProcessName(1002, buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "python3 eval.py --fast");
    assert_int_equal(L.nvmlSystemGetProcessName(1002, buf, 8), NVML_SUCCESS);
    assert_string_equal(buf, "python3");
    assert_int_equal(L.nvmlSystemGetProcessName(1003, buf, sizeof(buf)), NVML_ERROR_NOT_FOUND);  /* not yet */
    assert_int_equal(L.nvmlSystemGetProcessName(31337, buf, sizeof(buf)), NVML_ERROR_NOT_FOUND);
    tsim_down();
}

static void test_samples(void **state)
{
    nvmlSample_t s[200];
    nvmlValueType_t vt = -1;
    unsigned int count = 0, n;
    nvmlDevice_t d;
    struct timespec now;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 50);
    d = tsim_dev(0);
    assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &count, NULL), NVML_SUCCESS);
    assert_int_equal(vt, NVML_VALUE_TYPE_UNSIGNED_INT);
    assert_true(count > 10 && count <= 200);
    n = 0;
    assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, s),
                     NVML_ERROR_INVALID_ARGUMENT);
    n = count;
    assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
    assert_true(n <= count && n > 10);
    clock_gettime(CLOCK_REALTIME, &now);
    for (unsigned int i = 0; i < n; i++) {
        assert_true(s[i].sampleValue.uiVal <= 100);
        if (i)
            assert_true(s[i].timeStamp > s[i - 1].timeStamp);
    }
    /* µs since the epoch, close to now (frozen clock: within a minute) */
    assert_true(s[n - 1].timeStamp / 1000000ull + 60 > (unsigned long long)now.tv_sec);
    assert_true(s[n - 1].timeStamp / 1000000ull < (unsigned long long)now.tv_sec + 60);
    {
        unsigned int m = 50;
        nvmlSample_t t[50];
        assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, s[n - 1].timeStamp, &vt, &m, t),
                         NVML_ERROR_NOT_FOUND);
        m = 50;
        assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, s[n - 3].timeStamp, &vt, &m, t),
                         NVML_SUCCESS);
        assert_int_equal(m, 2);
        assert_int_equal(t[1].timeStamp, s[n - 1].timeStamp);
        m = 0;
        assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, s[n - 1].timeStamp, &vt, &m, NULL),
                         NVML_ERROR_NOT_FOUND);
        m = 1;                              /* a capacity below what is held: the newest */
        assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_TOTAL_POWER_SAMPLES, 0, &vt, &m, t), NVML_SUCCESS);
        assert_int_equal(m, 1);
        assert_true(t[0].sampleValue.uiVal >= 280000 && t[0].sampleValue.uiVal <= 620000);   /* mW */
    }
    n = 10;
    assert_int_equal(L.nvmlDeviceGetSamples(d, 42, 0, &vt, &n, s), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, NULL, s),
                     NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
}

static void test_rates_match_samples(void **state)
{
    nvmlSample_t s[200];
    nvmlValueType_t vt;
    nvmlUtilization_t u;
    nvmlProcessUtilizationSample_t pu[100];
    unsigned int n = 200, sum = 0, cnt = 0, pn;
    nvmlDevice_t d;

    (void)state;
    for (double start = 50.0; start < 53.0; start += 0.77) {
        tsim_up(tsim_data("basic.scn"), 0, start);
        d = tsim_dev(0);
        n = 200;
        assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, s), NVML_SUCCESS);
        sum = cnt = 0;
        for (unsigned int i = 0; i < n; i++)
            if (s[i].timeStamp + 1000000ull > s[n - 1].timeStamp) {
                sum += s[i].sampleValue.uiVal;
                cnt++;
            }
        assert_int_equal(L.nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
        assert_int_equal(u.gpu, (sum + cnt / 2) / cnt);
        assert_int_equal(u.memory, 30);
        /* per-process smUtil splits the same mean 60/40 */
        pn = 0;
        assert_int_equal(L.nvmlDeviceGetProcessUtilization(d, NULL, &pn, 0), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_true(pn >= 2);
        pn = 100;
        assert_int_equal(L.nvmlDeviceGetProcessUtilization(d, pu, &pn, 0), NVML_SUCCESS);
        assert_int_equal(pn, 2);
        assert_true(pu[0].smUtil + pu[1].smUtil + 1 >= u.gpu && pu[0].smUtil + pu[1].smUtil <= u.gpu + 1);
        assert_int_equal(pu[0].timeStamp, s[n - 1].timeStamp);
        pn = 100;
        assert_int_equal(L.nvmlDeviceGetProcessUtilization(d, pu, &pn, s[n - 1].timeStamp), NVML_ERROR_NOT_FOUND);
        pn = 1;
        assert_int_equal(L.nvmlDeviceGetProcessUtilization(d, pu, &pn, 0), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_int_equal(pn, 2);
        tsim_down();
    }
}

static void test_energy_monotonic(void **state)
{
    unsigned long long e[4];
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 10, 100);           /* 10x: 100 ms wall = 1 s scenario */
    d = tsim_dev(0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(L.nvmlDeviceGetTotalEnergyConsumption(d, &e[i]), NVML_SUCCESS);
        if (i)
            assert_true(e[i] > e[i - 1]);
        tsim_sleep_ms(100);
    }
    /* 100 s at 300..600 W: between 30 and 60 kJ */
    assert_true(e[0] >= 29000000ull && e[0] <= 61000000ull);
    tsim_down();
}

static void test_ecc_monotonic(void **state)
{
    unsigned long long a, b;
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 100, 29.5);          /* the signal drops 10 -> 5 at t=30 */
    d = tsim_dev(0);
    assert_int_equal(L.nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &a),
                     NVML_SUCCESS);
    assert_int_equal(a, 10);
    tsim_sleep_ms(50);
    assert_int_equal(L.nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &b),
                     NVML_SUCCESS);
    assert_int_equal(b, 10);
    assert_int_equal(L.nvmlDeviceGetTotalEccErrors(d, 2, NVML_VOLATILE_ECC, &b), NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
}

static void test_clocks_drop(void **state)
{
    unsigned long long r1 = 1, r2 = 1;
    unsigned int sm = 0, mem = 0, max = 0;
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 2);
    d = tsim_dev(1);
    assert_int_equal(L.nvmlDeviceGetCurrentClocksEventReasons(d, &r1), NVML_SUCCESS);
    assert_int_equal(r1, 0);
    assert_int_equal(L.nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &sm), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetMaxClockInfo(d, NVML_CLOCK_SM, &max), NVML_SUCCESS);
    assert_int_equal(max, 1980);
    assert_int_equal(sm, 1980);
    assert_int_equal(L.nvmlDeviceGetClockInfo(d, NVML_CLOCK_COUNT, &sm), NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
    tsim_up(tsim_data("basic.scn"), 0, 8);
    d = tsim_dev(1);
    assert_int_equal(L.nvmlDeviceGetCurrentClocksEventReasons(d, &r1), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetCurrentClocksThrottleReasons(d, &r2), NVML_SUCCESS);
    assert_int_equal(r1, 0x40);
    assert_int_equal(r2, r1);
    assert_int_equal(L.nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &sm), NVML_SUCCESS);
    assert_int_equal(sm, 1188);                                /* 1980 x 0.6 */
    assert_int_equal(L.nvmlDeviceGetClockInfo(d, NVML_CLOCK_MEM, &mem), NVML_SUCCESS);
    assert_int_equal(mem, 2619);                               /* the memory clock is not throttled */
    assert_int_equal(L.nvmlDeviceGetSupportedClocksEventReasons(d, &r1), NVML_SUCCESS);
    assert_true((r1 & 0xEC) == 0xEC);
    /* an idle GPU reports GpuIdle and idle clocks */
    assert_int_equal(L.nvmlDeviceGetCurrentClocksEventReasons(tsim_dev(2), &r1), NVML_SUCCESS);
    assert_int_equal(r1, 0x1);
    assert_int_equal(L.nvmlDeviceGetClockInfo(tsim_dev(2), NVML_CLOCK_SM, &sm), NVML_SUCCESS);
    assert_true(sm < 500);
    tsim_down();
}

static const char gpm_scn[] =
    "seed 5\n"
    "gpu 0\n  name NVIDIA H100 80GB HBM3\n  util.gpu = const(90)\n  gpm.sm = const(50)\n  gpm.tensor = const(30)\n"
    "gpu 1\n  name NVIDIA A100-SXM4-80GB\n  util.gpu = const(90)\n"
    "gpu 2\n  name NVIDIA H200\n  util.gpu = const(90)\n  unsupported gpm\n"
    "gpu 3\n  name NVIDIA H100 80GB HBM3\n  util.gpu = const(90)\n  at 0 no_permission gpm\n";

static nvmlReturn_t gpm_metrics(nvmlGpmSample_t a, nvmlGpmSample_t b, unsigned n, nvmlGpmMetricsGet_t *q)
{
    memset(q, 0, sizeof(*q));
    q->version = NVML_GPM_METRICS_GET_VERSION;
    q->numMetrics = n;
    q->sample1 = a;
    q->sample2 = b;
    q->metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
    q->metrics[1].metricId = NVML_GPM_METRIC_ANY_TENSOR_UTIL;
    q->metrics[2].metricId = NVML_GPM_METRIC_GRAPHICS_UTIL;
    q->metrics[3].metricId = 30;   /* NVDEC 0: not modelled */
    return L.nvmlGpmMetricsGet(q);
}

static void test_gpm(void **state)
{
    static nvmlGpmMetricsGet_t q;
    nvmlGpmSupport_t sup;
    nvmlGpmSample_t a, b, pool[600];
    int n;

    (void)state;
    tsim_up(tsim_write(gpm_scn, sizeof(gpm_scn) - 1), 1, 0);
    /* the support query takes the raw version 1; the size|ver word is refused */
    sup.version = NVML_STRUCT_VERSION(nvmlGpmSupport_t, 1);
    assert_int_equal(L.nvmlGpmQueryDeviceSupport(tsim_dev(0), &sup), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(L.nvmlGpmQueryDeviceSupport(tsim_dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    sup = (nvmlGpmSupport_t){NVML_GPM_SUPPORT_VERSION, 7};
    assert_int_equal(L.nvmlGpmQueryDeviceSupport(tsim_dev(0), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 1);
    sup.isSupportedDevice = 7;   /* before Hopper: SUCCESS, not supported */
    assert_int_equal(L.nvmlGpmQueryDeviceSupport(tsim_dev(1), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 0);
    assert_int_equal(L.nvmlGpmQueryDeviceSupport(tsim_dev(2), &sup), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlGpmQueryDeviceSupport(tsim_dev(3), &sup), NVML_ERROR_NO_PERMISSION);
    /* samples */
    assert_int_equal(L.nvmlGpmSampleAlloc(NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlGpmSampleAlloc(&a), NVML_SUCCESS);
    assert_int_equal(L.nvmlGpmSampleAlloc(&b), NVML_SUCCESS);
    assert_true(a != NULL && b != NULL && a != b);
    assert_int_equal(L.nvmlGpmSampleGet(tsim_dev(1), a), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlGpmSampleGet(tsim_dev(0), (nvmlGpmSample_t)&sup), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gpm_metrics(a, b, 4, &q), NVML_ERROR_INVALID_ARGUMENT);   /* not taken yet */
    assert_int_equal(L.nvmlGpmSampleGet(tsim_dev(0), a), NVML_SUCCESS);
    tsim_sleep_ms(120);
    assert_int_equal(L.nvmlGpmSampleGet(tsim_dev(0), b), NVML_SUCCESS);
    assert_int_equal(gpm_metrics(a, b, 0, &q), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gpm_metrics(a, b, NVML_GPM_METRIC_MAX + 1, &q), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gpm_metrics(b, a, 4, &q), NVML_ERROR_INVALID_ARGUMENT);    /* the later one first */
    q.version = NVML_STRUCT_VERSION(nvmlGpmMetricsGet_t, 1);
    assert_int_equal(L.nvmlGpmMetricsGet(&q), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(gpm_metrics(a, b, 4, &q), NVML_SUCCESS);
    assert_int_equal(q.metrics[0].nvmlReturn, NVML_SUCCESS);
    assert_true(q.metrics[0].value > 49.9 && q.metrics[0].value < 50.1);
    assert_true(q.metrics[1].value > 29.9 && q.metrics[1].value < 30.1);
    assert_true(q.metrics[2].value > 89.9 && q.metrics[2].value < 90.1);
    assert_int_equal(q.metrics[3].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    /* the 100 ms rule: a closer pair succeeds with meaningless values */
    assert_int_equal(L.nvmlGpmSampleGet(tsim_dev(0), a), NVML_SUCCESS);
    assert_int_equal(L.nvmlGpmSampleGet(tsim_dev(0), b), NVML_SUCCESS);
    assert_int_equal(gpm_metrics(a, b, 4, &q), NVML_SUCCESS);
    assert_true(q.metrics[0].value < 49 || q.metrics[0].value > 51);
    /* freeing */
    assert_int_equal(L.nvmlGpmSampleFree(a), NVML_SUCCESS);
    assert_int_equal(L.nvmlGpmSampleFree(a), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlGpmSampleFree(b), NVML_SUCCESS);
    /* a bounded pool: MEMORY when exhausted, never a crash */
    for (n = 0; n < 600 && L.nvmlGpmSampleAlloc(&pool[n]) == NVML_SUCCESS; n++)
        ;
    assert_true(n > 0 && n < 600);
    assert_int_equal(L.nvmlGpmSampleAlloc(&a), NVML_ERROR_MEMORY);
    for (int i = 0; i < n; i++)
        assert_int_equal(L.nvmlGpmSampleFree(pool[i]), NVML_SUCCESS);
    tsim_down();
    assert_int_equal(L.nvmlGpmSampleAlloc(&a), NVML_ERROR_UNINITIALIZED);
}

int tsim_run_protocols(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_process_sizing),   cmocka_unit_test(test_process_strides),
        cmocka_unit_test(test_detail_list),      cmocka_unit_test(test_process_name),
        cmocka_unit_test(test_samples),          cmocka_unit_test(test_rates_match_samples),
        cmocka_unit_test(test_energy_monotonic), cmocka_unit_test(test_ecc_monotonic),
        cmocka_unit_test(test_clocks_drop), cmocka_unit_test(test_gpm),
    };
    return cmocka_run_group_tests_name("sim_protocols", tests, NULL, NULL);
}

/* ---- faults ---- */

static void test_not_supported(void **state)
{
    unsigned int v;
    nvmlEnableState_t cur, pend;
    unsigned long long e;
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 5);
    d = tsim_dev(1);
    assert_int_equal(L.nvmlDeviceGetFanSpeed(d, &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetFanSpeed_v2(d, 0, &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetNumFans(d, &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetEccMode(d, &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetTotalEccErrors(d, 0, 0, &e), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetPowerUsage(d, &v), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetFanSpeed(tsim_dev(0), &v), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetEccMode(tsim_dev(0), &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur, NVML_FEATURE_ENABLED);
    tsim_down();
}

static void test_no_permission(void **state)
{
    unsigned int v;
    nvmlValueType_t vt;
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 15);
    d = tsim_dev(1);
    assert_int_equal(L.nvmlDeviceGetPowerUsage(d, &v), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(L.nvmlDeviceGetPowerManagementLimit(d, &v), NVML_ERROR_NO_PERMISSION);
    v = 0;
    assert_int_equal(L.nvmlDeviceGetSamples(d, NVML_TOTAL_POWER_SAMPLES, 0, &vt, &v, NULL), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(L.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &v), NVML_SUCCESS);
    tsim_down();
}

static void test_gpu_lost(void **state)
{
    char name[96];
    unsigned int v, count;
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 1, 19.7);
    d = tsim_dev(1);
    assert_int_equal(L.nvmlDeviceGetName(d, name, sizeof(name)), NVML_SUCCESS);
    tsim_sleep_ms(400);
    assert_int_equal(L.nvmlDeviceGetName(d, name, sizeof(name)), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(L.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &v), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(L.nvmlDeviceGetHandleByIndex_v2(1, &d), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    assert_int_equal(count, 3);
    assert_int_equal(L.nvmlDeviceGetName(tsim_dev(0), name, sizeof(name)), NVML_SUCCESS);
    tsim_down();
    /* plain nvmlInit attaches every GPU up front and fails on a lost one */
    tsim_env(tsim_data("basic.scn"), 0, 25);
    assert_int_equal(L.nvmlInit(), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(L.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(L.nvmlInit_v2(), NVML_SUCCESS);
    tsim_down();
}

struct proto_thread_arg {
    nvmlDevice_t dev;
    double took;
    nvmlReturn_t rc;
};

static void *proto_temp_thread(void *p)
{
    struct proto_thread_arg *a = p;
    unsigned int t;
    double t0 = tsim_now();

    a->rc = L.nvmlDeviceGetTemperature(a->dev, NVML_TEMPERATURE_GPU, &t);
    a->took = tsim_now() - t0;
    return NULL;
}

static void test_hang(void **state)
{
    static const char scn[] = "gpu 0\n  at 0.1 hang nvmlDeviceGetPowerUsage 1\n";
    struct proto_thread_arg arg;
    pthread_t th;
    unsigned int v;
    double t0, took;

    (void)state;
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 1, 0.2);
    arg.dev = tsim_dev(0);
    t0 = tsim_now();
    assert_int_equal(pthread_create(&th, NULL, proto_temp_thread, &arg), 0);
    assert_int_equal(L.nvmlDeviceGetPowerUsage(arg.dev, &v), NVML_SUCCESS);
    took = tsim_now() - t0;
    pthread_join(th, NULL);
    assert_true(took >= 0.95 && took < 3.0);
    assert_int_equal(arg.rc, NVML_SUCCESS);
    assert_true(arg.took < 0.5);            /* the hang holds no lock */
    t0 = tsim_now();
    assert_int_equal(L.nvmlDeviceGetPowerUsage(arg.dev, &v), NVML_SUCCESS);
    assert_true(tsim_now() - t0 < 0.5);      /* one-shot */
    tsim_down();
}

static void test_pcie_latency(void **state)
{
    static const char fast[] = "pcie_latency_ms 0\ngpu 0\n  pcie.tx = const(1234)\n";
    unsigned int v = 0;
    double t0;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 5);
    t0 = tsim_now();
    assert_int_equal(L.nvmlDeviceGetPcieThroughput(tsim_dev(0), NVML_PCIE_UTIL_TX_BYTES, &v), NVML_SUCCESS);
    assert_true(tsim_now() - t0 >= 0.018);
    assert_int_equal(L.nvmlDeviceGetPcieThroughput(tsim_dev(0), 5, &v), NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
    tsim_up(tsim_write(fast, sizeof(fast) - 1), 0, 5);
    t0 = tsim_now();
    assert_int_equal(L.nvmlDeviceGetPcieThroughput(tsim_dev(0), NVML_PCIE_UTIL_TX_BYTES, &v), NVML_SUCCESS);
    assert_true(tsim_now() - t0 < 0.015);
    assert_int_equal(v, 1234);
    tsim_down();
}

int tsim_run_faults(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_supported), cmocka_unit_test(test_no_permission),
        cmocka_unit_test(test_gpu_lost),      cmocka_unit_test(test_hang),
        cmocka_unit_test(test_pcie_latency),
    };
    return cmocka_run_group_tests_name("sim_faults", tests, NULL, NULL);
}

/* ---- events ---- */

static void test_events_basic(void **state)
{
    nvmlEventSet_t set = NULL;
    nvmlEventData_t ev;
    unsigned long long types = 0;
    double t0;
    int foreign;

    (void)state;
    assert_int_equal(L.nvmlEventSetCreate(&set), NVML_ERROR_UNINITIALIZED);
    tsim_up(tsim_data("basic.scn"), 0, 5);
    assert_int_equal(L.nvmlEventSetCreate(&set), NVML_SUCCESS);
    assert_non_null(set);
    assert_int_equal(L.nvmlDeviceGetSupportedEventTypes(tsim_dev(0), &types), NVML_SUCCESS);
    assert_int_equal(types, 0xF);
    assert_int_equal(L.nvmlDeviceRegisterEvents(tsim_dev(0), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceRegisterEvents(tsim_dev(0), 0x10, set), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceRegisterEvents(tsim_dev(0), 0x8, (nvmlEventSet_t)(void *)&foreign),
                     NVML_ERROR_INVALID_ARGUMENT);
    t0 = tsim_now();
    assert_int_equal(L.nvmlEventSetWait_v2(set, &ev, 150), NVML_ERROR_TIMEOUT);
    assert_true(tsim_now() - t0 >= 0.14);
    assert_int_equal(L.nvmlEventSetWait_v2(set, NULL, 10), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlEventSetFree(set), NVML_SUCCESS);
    assert_int_equal(L.nvmlEventSetFree(set), NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
}

static void test_events_xid(void **state)
{
    static const char scn[] =
        "gpu 0-1\n"
        "gpu 0\n"
        "  at 0.1 xid 13         # before registration: never delivered\n"
        "  at 0.4 xid 31\n"
        "  at 0.5 xid 48\n"
        "gpu 1\n"
        "  at 0.6 lost\n";
    unsigned char buf[64];
    nvmlEventSet_t set;
    nvmlEventData_t ev;
    nvmlEventData_legacy_t lev;
    nvmlDevice_t d0, d1;

    (void)state;
    tsim_up(tsim_write(scn, sizeof(scn) - 1), 1, 0.2);
    d0 = tsim_dev(0);
    d1 = tsim_dev(1);
    assert_int_equal(L.nvmlEventSetCreate(&set), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceRegisterEvents(d0, nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceRegisterEvents(d1, nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(L.nvmlEventSetWait_v2(set, (nvmlEventData_t *)(void *)buf, 3000), NVML_SUCCESS);
    assert_true(proto_touched(buf, sizeof(buf)) <= 32 && proto_touched(buf, sizeof(buf)) > 24);
    memcpy(&ev, buf, sizeof(ev));
    assert_ptr_equal(ev.device, d0);
    assert_int_equal(ev.eventType, nvmlEventTypeXidCriticalError);
    assert_int_equal(ev.eventData, 31);
    assert_int_equal(ev.gpuInstanceId, 0xFFFFFFFFu);
    assert_int_equal(ev.computeInstanceId, 0xFFFFFFFFu);
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(L.nvmlEventSetWait(set, (nvmlEventData_legacy_t *)(void *)buf, 3000), NVML_SUCCESS);
    assert_true(proto_touched(buf, sizeof(buf)) <= 24);
    memcpy(&lev, buf, sizeof(lev));
    assert_int_equal(lev.eventData, 48);
    assert_int_equal(L.nvmlEventSetWait_v2(set, &ev, 3000), NVML_SUCCESS);
    assert_ptr_equal(ev.device, d1);
    assert_int_equal(ev.eventData, 79);     /* fell off the bus */
    assert_int_equal(L.nvmlEventSetWait_v2(set, &ev, 100), NVML_ERROR_TIMEOUT);
    assert_int_equal(L.nvmlEventSetFree(set), NVML_SUCCESS);
    tsim_down();
}

static void *proto_wait_thread(void *p)
{
    struct proto_thread_arg *a = p;
    nvmlEventData_t ev;
    nvmlEventSet_t set = (nvmlEventSet_t)(void *)a->dev;
    double t0 = tsim_now();

    a->rc = L.nvmlEventSetWait_v2(set, &ev, 800);
    a->took = tsim_now() - t0;
    return NULL;
}

static void test_wait_holds_no_lock(void **state)
{
    struct proto_thread_arg arg;
    nvmlEventSet_t set;
    pthread_t th;
    unsigned int count;
    char name[96];
    double t0;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 1, 5);
    assert_int_equal(L.nvmlEventSetCreate(&set), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceRegisterEvents(tsim_dev(0), 0x8, set), NVML_SUCCESS);
    arg.dev = (nvmlDevice_t)(void *)set;
    assert_int_equal(pthread_create(&th, NULL, proto_wait_thread, &arg), 0);
    tsim_sleep_ms(100);
    t0 = tsim_now();
    for (int i = 0; i < 20; i++) {
        assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
        assert_int_equal(L.nvmlDeviceGetName(tsim_dev(0), name, sizeof(name)), NVML_SUCCESS);
    }
    assert_true(tsim_now() - t0 < 0.3);
    pthread_join(th, NULL);
    assert_int_equal(arg.rc, NVML_ERROR_TIMEOUT);
    assert_true(arg.took >= 0.79);
    assert_int_equal(L.nvmlEventSetFree(set), NVML_SUCCESS);
    tsim_down();
}

int tsim_run_events(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_basic),
        cmocka_unit_test(test_events_xid),
        cmocka_unit_test(test_wait_holds_no_lock),
    };
    return cmocka_run_group_tests_name("sim_events", tests, NULL, NULL);
}
