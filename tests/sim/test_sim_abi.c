/*
 * test_sim_abi.c: main() of the simulator tests and the "abi" group.
 *
 * The abi group checks the library lifecycle (UNINITIALIZED before init
 * and after the last shutdown, reference counting), nvmlErrorString,
 * version reporting, handles, string length handling, the byte counts of
 * the PCI variants and the memory v1/v2 relation and version word. Byte
 * counts are measured by filling buffers with 0xAB and finding the last
 * byte the call changed. Usage: test_sim_abi GROUP (abi, protocols,
 * faults, events, scenarios, parse, variants, clients).
 */
#include "test_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tsim_run_protocols(void);
int tsim_run_faults(void);
int tsim_run_events(void);
int tsim_run_scenarios(void);
int tsim_run_parse(void);
int tsim_run_variants(void);
int tsim_run_clients(void);
int tsim_run_realism(void);

/* Number of leading bytes a call may have touched: index of the last non-0xAB byte + 1. */
static size_t abi_touched(const unsigned char *buf, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        if (buf[i] != 0xAB)
            n = i + 1;
    return n;
}

static void test_all_symbols(void **state)
{
    (void)state;
    /* main() opened L and required every symbol; check a few by name too. */
    assert_non_null(L.nvmlDeviceGetConfComputeMemSizeInfo);
    assert_non_null(L.nvmlDeviceGetRunningProcessDetailList);
    assert_non_null(L.nvmlDeviceGetTemperatureV);
    assert_non_null(L.nvmlErrorString);
}

static void test_uninitialized(void **state)
{
    unsigned int count = 5;
    char buf[80];
    nvmlDevice_t d;

    (void)state;
    tsim_down();
    assert_int_equal(L.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(L.nvmlDeviceGetCount(&count), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(L.nvmlSystemGetDriverVersion(buf, sizeof(buf)), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(L.nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_ERROR_UNINITIALIZED);
    tsim_up(tsim_data("basic.scn"), 0, 50);
    d = tsim_dev(0);
    assert_int_equal(L.nvmlShutdown(), NVML_SUCCESS);
    /* after the final shutdown, even a handle obtained earlier is refused */
    assert_int_equal(L.nvmlDeviceGetName(d, buf, sizeof(buf)), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(L.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
}

static void test_refcount(void **state)
{
    unsigned int count = 0;

    (void)state;
    tsim_env(tsim_data("basic.scn"), 0, 50);
    assert_int_equal(L.nvmlInit_v2(), NVML_SUCCESS);
    assert_int_equal(L.nvmlInit(), NVML_SUCCESS);
    assert_int_equal(L.nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS), NVML_SUCCESS);
    assert_int_equal(L.nvmlShutdown(), NVML_SUCCESS);
    assert_int_equal(L.nvmlShutdown(), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    assert_int_equal(count, 3);
    assert_int_equal(L.nvmlShutdown(), NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(L.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
}

static void test_error_strings(void **state)
{
    static const int probes[] = { -1000, -1, 0, 1, 2, 3, 7, 15, 25, 30, 31, 100, 998, 999, 1000, 0x7fffffff };

    (void)state;
    tsim_down();                           /* works without init */
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        const char *s = L.nvmlErrorString(probes[i]);
        assert_non_null(s);
        assert_true(strlen(s) > 0);
        assert_ptr_equal(s, L.nvmlErrorString(probes[i]));   /* static */
    }
    assert_string_equal(L.nvmlErrorString(NVML_SUCCESS), "Success");
    assert_string_equal(L.nvmlErrorString(NVML_ERROR_UNKNOWN), "Unknown Error");
    assert_string_not_equal(L.nvmlErrorString(NVML_ERROR_GPU_IS_LOST), L.nvmlErrorString(NVML_ERROR_TIMEOUT));
}

static void test_versions(void **state)
{
    char buf[80], small[9];
    int cuda = 0;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 50);
    assert_int_equal(L.nvmlSystemGetDriverVersion(buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "610.43.02");
    assert_int_equal(L.nvmlSystemGetDriverVersion(buf, 10), NVML_SUCCESS);   /* exactly fits */
    memset(small, 0xAB, sizeof(small));
    assert_int_equal(L.nvmlSystemGetDriverVersion(small, 9), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(abi_touched((unsigned char *)small, sizeof(small)), 0);
    assert_int_equal(L.nvmlSystemGetDriverVersion(NULL, 80), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlSystemGetNVMLVersion(buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "13.610.43.02");
    assert_int_equal(L.nvmlSystemGetCudaDriverVersion(&cuda), NVML_SUCCESS);
    assert_int_equal(cuda, 13030);
    assert_int_equal(L.nvmlSystemGetCudaDriverVersion_v2(&cuda), NVML_SUCCESS);
    assert_int_equal(cuda, 13030);
    assert_int_equal(L.nvmlSystemGetCudaDriverVersion(NULL), NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
}

static void test_handles(void **state)
{
    nvmlDevice_t d[3], again, other;
    unsigned int idx = 99, count = 0;
    int foreign = 0;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 5);
    assert_int_equal(L.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    assert_int_equal(count, 3);
    assert_int_equal(L.nvmlDeviceGetCount(&count), NVML_SUCCESS);
    assert_int_equal(count, 3);
    for (unsigned int i = 0; i < 3; i++) {
        d[i] = tsim_dev(i);
        assert_int_equal(L.nvmlDeviceGetHandleByIndex(i, &again), NVML_SUCCESS);
        assert_ptr_equal(again, d[i]);
        assert_int_equal(L.nvmlDeviceGetIndex(d[i], &idx), NVML_SUCCESS);
        assert_int_equal(idx, i);
    }
    assert_ptr_not_equal(d[0], d[1]);
    assert_ptr_not_equal(d[1], d[2]);
    assert_ptr_not_equal(d[0], d[2]);
    assert_int_equal(L.nvmlDeviceGetHandleByIndex_v2(3, &again), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetHandleByIndex_v2(0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetIndex((nvmlDevice_t)(void *)&foreign, &idx), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetIndex(NULL, &idx), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetIndex((nvmlDevice_t)((char *)d[0] + 1), &idx), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetIndex(d[0], NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetHandleByUUID("GPU-00000000-1111-2222-3333-444444444444", &other),
                     NVML_SUCCESS);
    assert_ptr_equal(other, d[2]);
    assert_int_equal(L.nvmlDeviceGetHandleByUUID("GPU-nope", &other), NVML_ERROR_NOT_FOUND);
    assert_int_equal(L.nvmlDeviceGetHandleByUUID(NULL, &other), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetHandleByPciBusId_v2("00000000:C1:00.0", &other), NVML_SUCCESS);
    assert_ptr_equal(other, d[2]);
    assert_int_equal(L.nvmlDeviceGetHandleByPciBusId("0000:c1:00.0", &other), NVML_SUCCESS);
    assert_ptr_equal(other, d[2]);
    assert_int_equal(L.nvmlDeviceGetHandleByPciBusId_v2("00000000:C2:00.0", &other), NVML_ERROR_NOT_FOUND);
    assert_int_equal(L.nvmlDeviceGetHandleByPciBusId_v2("garbage", &other), NVML_ERROR_INVALID_ARGUMENT);
    /* handles stay the same across a shutdown/init cycle (static objects) */
    tsim_down();
    tsim_up(tsim_data("basic.scn"), 0, 5);
    assert_ptr_equal(tsim_dev(1), d[1]);
    tsim_down();
}

static void test_strings(void **state)
{
    char buf[96], small[96];
    size_t n;
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 5);
    d = tsim_dev(2);
    assert_int_equal(L.nvmlDeviceGetName(d, buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "NVIDIA H100 80GB HBM3");
    n = strlen(buf);
    assert_int_equal(L.nvmlDeviceGetName(d, small, (unsigned int)n + 1), NVML_SUCCESS);
    memset(small, 0xAB, sizeof(small));
    assert_int_equal(L.nvmlDeviceGetName(d, small, (unsigned int)n), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(abi_touched((unsigned char *)small, sizeof(small)), 0);
    assert_int_equal(L.nvmlDeviceGetName(d, NULL, 96), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetUUID(d, buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "GPU-00000000-1111-2222-3333-444444444444");
    assert_int_equal(L.nvmlDeviceGetUUID(d, buf, 10), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(L.nvmlDeviceGetSerial(d, buf, 30), NVML_SUCCESS);
    assert_string_equal(buf, "1654922006541");
    assert_int_equal(L.nvmlDeviceGetSerial(d, buf, 13), NVML_ERROR_INSUFFICIENT_SIZE);
    /* derived defaults: GPU-8-4-4-4-12, distinct per GPU */
    {
        char u0[96], u1[96];
        assert_int_equal(L.nvmlDeviceGetUUID(tsim_dev(0), u0, sizeof(u0)), NVML_SUCCESS);
        assert_int_equal(L.nvmlDeviceGetUUID(tsim_dev(1), u1, sizeof(u1)), NVML_SUCCESS);
        assert_int_equal(strlen(u0), 40);
        assert_memory_equal(u0, "GPU-", 4);
        assert_true(u0[12] == '-' && u0[17] == '-' && u0[22] == '-' && u0[27] == '-');
        assert_string_not_equal(u0, u1);
    }
    tsim_down();
}

static void test_pci_sizes(void **state)
{
    unsigned char buf[128];
    nvmlPciInfo_t v3;
    nvmlPciInfo_legacy_t legacy;
    nvmlDevice_t d;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 5);
    d = tsim_dev(2);
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(L.nvmlDeviceGetPciInfo_v3(d, (nvmlPciInfo_t *)(void *)buf), NVML_SUCCESS);
    assert_true(abi_touched(buf, sizeof(buf)) <= 68);
    assert_true(abi_touched(buf, sizeof(buf)) > 52);         /* busId at 36.. is written */
    memcpy(&v3, buf, sizeof(v3));
    assert_string_equal(v3.busId, "00000000:C1:00.0");
    assert_string_equal(v3.busIdLegacy, "0000:C1:00.0");
    assert_int_equal(v3.bus, 0xC1);
    assert_int_equal(v3.pciDeviceId & 0xFFFF, 0x10DE);
    assert_int_equal(v3.pciDeviceId >> 16, 0x2330);
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(L.nvmlDeviceGetPciInfo_v2(d, (nvmlPciInfo_legacy_t *)(void *)buf), NVML_SUCCESS);
    assert_true(abi_touched(buf, sizeof(buf)) <= 52);
    memcpy(&legacy, buf, sizeof(legacy));
    assert_string_equal(legacy.busId, "0000:C1:00.0");
    assert_int_equal(legacy.bus, 0xC1);
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(L.nvmlDeviceGetPciInfo(d, (nvmlPciInfo_legacy_t *)(void *)buf), NVML_SUCCESS);
    assert_true(abi_touched(buf, sizeof(buf)) <= 52);
    assert_int_equal(L.nvmlDeviceGetPciInfo_v3(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetPciInfo(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
}

static void test_memory(void **state)
{
    unsigned char buf[64];
    nvmlMemory_t v1;
    nvmlMemory_v2_t v2;
    nvmlDevice_t d;
    const unsigned long long gib = 1024ull * 1024 * 1024;

    (void)state;
    tsim_up(tsim_data("basic.scn"), 0, 50);
    d = tsim_dev(0);
    assert_int_equal(L.nvmlDeviceGetMemoryInfo(d, &v1), NVML_SUCCESS);
    memset(buf, 0xAB, sizeof(buf));
    memset(&v2, 0, sizeof(v2));
    v2.version = nvmlMemory_v2;
    memcpy(buf, &v2.version, sizeof(v2.version));
    assert_int_equal(L.nvmlDeviceGetMemoryInfo_v2(d, (nvmlMemory_v2_t *)(void *)buf), NVML_SUCCESS);
    assert_true(abi_touched(buf, sizeof(buf)) <= 40);
    memcpy(&v2, buf, sizeof(v2));
    assert_int_equal(v2.total, 80 * gib);
    assert_int_equal(v2.reserved, 512ull * 1024 * 1024);
    assert_int_equal(v2.used, 12 * gib);                     /* processes 1001 + 1002 */
    assert_int_equal(v2.total, v2.reserved + v2.used + v2.free);
    assert_int_equal(v1.total, v2.total);
    assert_int_equal(v1.used, v2.used + v2.reserved);
    assert_int_equal(v1.total, v1.used + v1.free);
    v2.version = 2;                                           /* the documented-but-wrong value */
    assert_int_equal(L.nvmlDeviceGetMemoryInfo_v2(d, &v2), NVML_ERROR_FUNCTION_NOT_FOUND);
    v2.version = 0x01000028;
    assert_int_equal(L.nvmlDeviceGetMemoryInfo_v2(d, &v2), NVML_ERROR_FUNCTION_NOT_FOUND);
    assert_int_equal(L.nvmlDeviceGetMemoryInfo_v2(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetMemoryInfo(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    /* an idle GPU: v2 used is 0 (no processes, no signal) */
    v2.version = nvmlMemory_v2;
    assert_int_equal(L.nvmlDeviceGetMemoryInfo_v2(tsim_dev(2), &v2), NVML_SUCCESS);
    assert_int_equal(v2.used, 0);
    {
        unsigned long long cc[2] = { 1, 1 };
        assert_int_equal(L.nvmlDeviceGetConfComputeMemSizeInfo(d, cc), NVML_SUCCESS);
        assert_int_equal(cc[0], 0);
        assert_int_equal(cc[1], 80 * gib / 1024);
    }
    tsim_down();
}

static int tsim_run_abi(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_symbols), cmocka_unit_test(test_uninitialized),
        cmocka_unit_test(test_refcount),    cmocka_unit_test(test_error_strings),
        cmocka_unit_test(test_versions),    cmocka_unit_test(test_handles),
        cmocka_unit_test(test_strings),     cmocka_unit_test(test_pci_sizes),
        cmocka_unit_test(test_memory),
    };
    return cmocka_run_group_tests_name("sim_abi", tests, NULL, NULL);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; int (*run)(void); } groups[] = {
        { "abi", tsim_run_abi },           { "protocols", tsim_run_protocols },
        { "faults", tsim_run_faults },     { "events", tsim_run_events },
        { "scenarios", tsim_run_scenarios }, { "parse", tsim_run_parse },
        { "variants", tsim_run_variants }, { "clients", tsim_run_clients },
        { "realism", tsim_run_realism },
    };
    int missing, failed = 0, ran = 0;

    missing = tsim_open(&L, "");
    if (missing != 0) {
        fprintf(stderr, "test_sim_abi: full library: %d symbols missing or dlopen failed\n", missing);
        return 1;
    }
    for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
        if (argc > 1 && strcmp(argv[1], groups[i].name) != 0)
            continue;
        failed += groups[i].run();
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "usage: test_sim_abi [abi|protocols|faults|events|scenarios|parse|variants|clients|realism]\n");
        return 2;
    }
    return failed ? 1 : 0;
}
