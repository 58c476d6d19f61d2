/*
 * test_sim_clients.c: the "clients" group: the entry points other NVML
 * clients need (NVML_CLIENT_FUNCTIONS: nvtop, nvidia-ml-py tools, gonvml
 * exporters), each with its protocol.
 *
 * On clients.scn (an H100 with MIG on, a GeForce RTX 2080 SUPER with MPS
 * clients, an A100 whose power is unsupported, energy forbidden at 10 s
 * and which is lost at 20 s, and more boards): board values (compute
 * capability, architecture, BAR1, VBIOS, minor number), modes, MIG mode
 * and enumeration, MIG switching the utilization calls off, the MPS lists
 * with their sizing protocol and strides, field values with per-entry
 * status, power limits, and for every new call UNINITIALIZED, a foreign
 * handle and a lost GPU. Byte counts are measured on 0xAB-filled buffers.
 */
#include "test_sim.h"

#include <stdio.h>
#include <string.h>

static size_t cli_touched(const unsigned char *buf, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        if (buf[i] != 0xAB)
            n = i + 1;
    return n;
}

/* Calls every device-level client function on d; each must answer want. */
static void cli_all(nvmlDevice_t d, nvmlReturn_t want)
{
    unsigned int u = 0, u2 = 0;
    int i1 = 0, i2 = 0;
    char buf[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE];
    nvmlBAR1Memory_t bar1;
    nvmlFieldValue_t fv[1];
    nvmlProcessInfo_v2_t procs[2];
    nvmlDevice_t other;

    memset(fv, 0, sizeof(fv));
    fv[0].fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
    assert_int_equal(L.nvmlDeviceGetMinorNumber(d, &u), want);
    assert_int_equal(L.nvmlDeviceGetVbiosVersion(d, buf, sizeof(buf)), want);
    assert_int_equal(L.nvmlDeviceGetArchitecture(d, &u), want);
    assert_int_equal(L.nvmlDeviceGetCudaComputeCapability(d, &i1, &i2), want);
    assert_int_equal(L.nvmlDeviceGetBAR1MemoryInfo(d, &bar1), want);
    assert_int_equal(L.nvmlDeviceGetPersistenceMode(d, &i1), want);
    assert_int_equal(L.nvmlDeviceGetComputeMode(d, &i1), want);
    assert_int_equal(L.nvmlDeviceGetDisplayMode(d, &i1), want);
    assert_int_equal(L.nvmlDeviceGetDisplayActive(d, &i1), want);
    assert_int_equal(L.nvmlDeviceIsMigDeviceHandle(d, &u), want);
    assert_int_equal(L.nvmlDeviceGetMaxMigDeviceCount(d, &u), want);
    assert_int_equal(L.nvmlDeviceGetFieldValues(d, 1, fv), want);
    u = 0;
    assert_int_equal(L.nvmlDeviceGetMPSComputeRunningProcesses_v3(d, &u, procs), want);
    u = 0;
    assert_int_equal(L.nvmlDeviceGetMPSComputeRunningProcesses_v2(d, &u, procs), want);
    u = 0;
    assert_int_equal(L.nvmlDeviceGetMPSComputeRunningProcesses(d, &u, NULL), want);
    if (want == NVML_SUCCESS)
        return;
    /* calls whose success depends on the board answer the common error first */
    assert_int_equal(L.nvmlDeviceGetMigMode(d, &u, &u2), want);
    assert_int_equal(L.nvmlDeviceGetMigDeviceHandleByIndex(d, 0, &other), want);
    assert_int_equal(L.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(d, &other), want);
    assert_int_equal(L.nvmlDeviceGetGpuInstanceId(d, &u), want);
    assert_int_equal(L.nvmlDeviceGetComputeInstanceId(d, &u), want);
    assert_int_equal(L.nvmlDeviceGetDriverModel(d, &i1, &i2), want);
    assert_int_equal(L.nvmlDeviceGetDriverModel_v2(d, &i1, &i2), want);
    assert_int_equal(L.nvmlDeviceGetPowerManagementDefaultLimit(d, &u), want);
    assert_int_equal(L.nvmlDeviceGetPowerManagementLimitConstraints(d, &u, &u2), want);
    assert_int_equal(L.nvmlDeviceSetPowerManagementLimit(d, 300000), want);
}

static void test_lifecycle(void **state)
{
    nvmlDevice_t d0, d2;
    int foreign = 0;

    (void)state;
    tsim_up(tsim_data("clients.scn"), 0, 5);
    d0 = tsim_dev(0);
    cli_all(d0, NVML_SUCCESS);
    cli_all((nvmlDevice_t)(void *)&foreign, NVML_ERROR_INVALID_ARGUMENT);
    cli_all(NULL, NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
    cli_all(d0, NVML_ERROR_UNINITIALIZED);            /* a handle from before the last shutdown */
    tsim_up(tsim_data("clients.scn"), 0, 25);
    assert_int_equal(L.nvmlDeviceGetHandleByIndex_v2(2, &d2), NVML_ERROR_GPU_IS_LOST);
    tsim_down();
    tsim_up(tsim_data("clients.scn"), 0, 5);
    d2 = tsim_dev(2);
    tsim_down();
    tsim_up(tsim_data("clients.scn"), 0, 25);         /* the same static handle, now lost */
    cli_all(d2, NVML_ERROR_GPU_IS_LOST);
    cli_all(tsim_dev(3), NVML_SUCCESS);               /* the others are fine */
    tsim_down();
}

static void test_board_values(void **state)
{
    static const struct { unsigned int gpu; int major, minor; unsigned int arch; unsigned long long bar1_mib;
                          const char *vbios; } want[] = {
        { 0, 9, 0, NVML_DEVICE_ARCH_HOPPER, 131072, "96.00.74.00.0D" },
        { 1, 7, 5, NVML_DEVICE_ARCH_TURING, 256, "90.04.7A.40.73" },
        { 2, 8, 0, NVML_DEVICE_ARCH_AMPERE, 65536, "92.00.19.00.10" },   /* scenario overrides */
        { 3, 8, 9, NVML_DEVICE_ARCH_ADA, 65536, "95.02.66.00.01" },
        { 4, 7, 0, NVML_DEVICE_ARCH_VOLTA, 16384, "88.00.4F.00.09" },
        { 5, 9, 0, NVML_DEVICE_ARCH_HOPPER, 262144, "96.00.A5.00.01" },
        { 6, 8, 0, NVML_DEVICE_ARCH_AMPERE, 32768, "92.00.66.00.01" },
        { 7, 8, 0, NVML_DEVICE_ARCH_AMPERE, 131072, "92.00.45.00.03" },  /* unknown name: default row */
    };
    unsigned char raw[64];
    char buf[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE];
    nvmlBAR1Memory_t bar1;
    unsigned int u;
    int major, minor;

    (void)state;
    tsim_up(tsim_data("clients.scn"), 0, 5);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        nvmlDevice_t d = tsim_dev(want[i].gpu);
        assert_int_equal(L.nvmlDeviceGetCudaComputeCapability(d, &major, &minor), NVML_SUCCESS);
        assert_int_equal(major, want[i].major);
        assert_int_equal(minor, want[i].minor);
        assert_int_equal(L.nvmlDeviceGetArchitecture(d, &u), NVML_SUCCESS);
        assert_int_equal(u, want[i].arch);
        assert_int_equal(L.nvmlDeviceGetMinorNumber(d, &u), NVML_SUCCESS);
        assert_int_equal(u, want[i].gpu);
        assert_int_equal(L.nvmlDeviceGetVbiosVersion(d, buf, sizeof(buf)), NVML_SUCCESS);
        assert_string_equal(buf, want[i].vbios);
        assert_int_equal(L.nvmlDeviceGetBAR1MemoryInfo(d, &bar1), NVML_SUCCESS);
        assert_int_equal(bar1.bar1Total, want[i].bar1_mib << 20);
        assert_int_equal(bar1.bar1Total, bar1.bar1Used + bar1.bar1Free);
    }
    /* BAR1 used: the driver's 1 MiB plus 1 MiB per running process (GPU 1 runs 2 of 3 at t=5) */
    memset(raw, 0xAB, sizeof(raw));
    assert_int_equal(L.nvmlDeviceGetBAR1MemoryInfo(tsim_dev(1), (nvmlBAR1Memory_t *)(void *)raw), NVML_SUCCESS);
    assert_true(cli_touched(raw, sizeof(raw)) <= sizeof(nvmlBAR1Memory_t));
    memcpy(&bar1, raw, sizeof(bar1));
    assert_int_equal(bar1.bar1Used, 3ull << 20);
    assert_int_equal(L.nvmlDeviceGetBAR1MemoryInfo(tsim_dev(1), NULL), NVML_ERROR_INVALID_ARGUMENT);
    /* strings: exact fit works, one byte short is 7 with nothing written, NULL is 2 */
    assert_int_equal(L.nvmlDeviceGetVbiosVersion(tsim_dev(0), buf, 15), NVML_SUCCESS);
    memset(raw, 0xAB, sizeof(raw));
    assert_int_equal(L.nvmlDeviceGetVbiosVersion(tsim_dev(0), (char *)raw, 14), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(cli_touched(raw, sizeof(raw)), 0);
    assert_int_equal(L.nvmlDeviceGetVbiosVersion(tsim_dev(0), NULL, 32), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetCudaComputeCapability(tsim_dev(0), NULL, &minor), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetCudaComputeCapability(tsim_dev(0), &major, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetArchitecture(tsim_dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetMinorNumber(tsim_dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
}

static void test_modes(void **state)
{
    int cur = -1, pend = -1, v = -1;

    (void)state;
    tsim_up(tsim_data("clients.scn"), 0, 5);
    assert_int_equal(L.nvmlDeviceGetPersistenceMode(tsim_dev(0), &v), NVML_SUCCESS);
    assert_int_equal(v, NVML_FEATURE_ENABLED);
    assert_int_equal(L.nvmlDeviceGetPersistenceMode(tsim_dev(1), &v), NVML_SUCCESS);
    assert_int_equal(v, NVML_FEATURE_DISABLED);                     /* the driver's default */
    assert_int_equal(L.nvmlDeviceGetComputeMode(tsim_dev(0), &v), NVML_SUCCESS);
    assert_int_equal(v, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
    assert_int_equal(L.nvmlDeviceGetComputeMode(tsim_dev(1), &v), NVML_SUCCESS);
    assert_int_equal(v, NVML_COMPUTEMODE_DEFAULT);
    assert_int_equal(L.nvmlDeviceGetDisplayMode(tsim_dev(1), &v), NVML_SUCCESS);
    assert_int_equal(v, NVML_FEATURE_DISABLED);
    assert_int_equal(L.nvmlDeviceGetDisplayActive(tsim_dev(1), &v), NVML_SUCCESS);
    assert_int_equal(v, NVML_FEATURE_DISABLED);
    /* the driver model is Windows-only */
    assert_int_equal(L.nvmlDeviceGetDriverModel_v2(tsim_dev(0), &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetDriverModel(tsim_dev(0), &cur, NULL), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetDriverModel(tsim_dev(0), NULL, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetPersistenceMode(tsim_dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetComputeMode(tsim_dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetDisplayMode(tsim_dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetDisplayActive(tsim_dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    tsim_down();
}

static void test_mig(void **state)
{
    unsigned int cur = 9, pend = 9, n = 9, u = 9;
    nvmlDevice_t h0, mig = NULL, parent;
    nvmlUtilization_t ut;
    nvmlProcessUtilizationSample_t ps[4];
    nvmlValueType_t vt;
    nvmlSample_t s[4];

    (void)state;
    tsim_up(tsim_data("clients.scn"), 0, 5);
    h0 = tsim_dev(0);
    assert_int_equal(L.nvmlDeviceGetMigMode(h0, &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur, NVML_DEVICE_MIG_ENABLE);
    assert_int_equal(pend, NVML_DEVICE_MIG_DISABLE);
    assert_int_equal(L.nvmlDeviceGetMaxMigDeviceCount(h0, &n), NVML_SUCCESS);
    assert_int_equal(n, 7);
    for (unsigned int i = 0; i < n; i++)                            /* no instance was created */
        assert_int_equal(L.nvmlDeviceGetMigDeviceHandleByIndex(h0, i, &mig), NVML_ERROR_NOT_FOUND);
    assert_int_equal(L.nvmlDeviceGetMigDeviceHandleByIndex(h0, n, &mig), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetMigDeviceHandleByIndex(h0, 0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceIsMigDeviceHandle(h0, &u), NVML_SUCCESS);
    assert_int_equal(u, 0);
    assert_int_equal(L.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(h0, &parent), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetGpuInstanceId(h0, &u), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetComputeInstanceId(h0, &u), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetMigMode(h0, NULL, &pend), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceIsMigDeviceHandle(h0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetMaxMigDeviceCount(h0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetGpuInstanceId(h0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    /* MIG on: utilization, encoder/decoder, process utilization and their samples answer 3 */
    assert_int_equal(L.nvmlDeviceGetUtilizationRates(h0, &ut), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetEncoderUtilization(h0, &u, &n), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetDecoderUtilization(h0, &u, &n), NVML_ERROR_NOT_SUPPORTED);
    u = 4;
    assert_int_equal(L.nvmlDeviceGetProcessUtilization(h0, ps, &u, 0), NVML_ERROR_NOT_SUPPORTED);
    u = 4;
    assert_int_equal(L.nvmlDeviceGetSamples(h0, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &u, s), NVML_ERROR_NOT_SUPPORTED);
    u = 4;
    assert_int_equal(L.nvmlDeviceGetSamples(h0, NVML_TOTAL_POWER_SAMPLES, 0, &vt, &u, s), NVML_SUCCESS);
    /* a GeForce has no MIG */
    assert_int_equal(L.nvmlDeviceGetMigMode(tsim_dev(1), &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetMaxMigDeviceCount(tsim_dev(1), &n), NVML_SUCCESS);
    assert_int_equal(n, 0);
    assert_int_equal(L.nvmlDeviceGetMigDeviceHandleByIndex(tsim_dev(1), 0, &mig), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(L.nvmlDeviceGetUtilizationRates(tsim_dev(1), &ut), NVML_SUCCESS);
    /* MIG-capable but off: mode 0, no slots; an A30 with MIG pending after the next reset */
    assert_int_equal(L.nvmlDeviceGetMigMode(tsim_dev(2), &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur + pend, 0);
    assert_int_equal(L.nvmlDeviceGetMaxMigDeviceCount(tsim_dev(2), &n), NVML_SUCCESS);
    assert_int_equal(n, 0);
    assert_int_equal(L.nvmlDeviceGetMigDeviceHandleByIndex(tsim_dev(2), 0, &mig), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetMigMode(tsim_dev(6), &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur, NVML_DEVICE_MIG_DISABLE);
    assert_int_equal(pend, NVML_DEVICE_MIG_ENABLE);
    assert_int_equal(L.nvmlDeviceGetMigMode(tsim_dev(3), &cur, &pend), NVML_ERROR_NOT_SUPPORTED);   /* L40S */
    tsim_down();
}

static void test_mig_needs_a_board(void **state)
{
    static const char text[] = "gpu 0\n  name NVIDIA GeForce RTX 4090\n  mig on\n";
    char err[512];

    (void)state;
    tsim_down();
    tsim_env(tsim_write(text, sizeof(text) - 1), 0, 0);
    assert_int_equal(tsim_init_captured(L.nvmlInit_v2, err, sizeof(err)), NVML_ERROR_UNKNOWN);
    assert_non_null(strstr(err, "mig on needs a board with MIG"));
    tsim_env(tsim_write("gpu 0\n  mig maybe\n", 18), 0, 0);
    assert_int_equal(tsim_init_captured(L.nvmlInit_v2, err, sizeof(err)), NVML_ERROR_UNKNOWN);
    assert_non_null(strstr(err, "mig must be on or off"));
}

typedef nvmlReturn_t (*cli_list_fn)(nvmlDevice_t, unsigned int *, void *);

static void test_mps(void **state)
{
    static const struct { const char *name; size_t stride; } variants[] = {
        { "nvmlDeviceGetMPSComputeRunningProcesses", 16 },
        { "nvmlDeviceGetMPSComputeRunningProcesses_v2", 24 },
        { "nvmlDeviceGetMPSComputeRunningProcesses_v3", 24 },
    };
    unsigned char buf[256];
    unsigned int count, pid;
    unsigned long long mem;
    nvmlDevice_t d1;
    nvmlProcessDetail_v1_t detail[4];
    nvmlProcessDetailList_v1_t list;

    (void)state;
    tsim_up(tsim_data("clients.scn"), 0, 5);
    d1 = tsim_dev(1);
    for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
        cli_list_fn fn = (cli_list_fn)tsim_sym(&L, variants[i].name);
        assert_non_null(fn);
        count = 0;                                                  /* sizing */
        assert_int_equal(fn(d1, &count, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_int_equal(count, 1);
        count = 3;
        memset(buf, 0xAB, sizeof(buf));
        assert_int_equal(fn(d1, &count, buf), NVML_SUCCESS);
        assert_int_equal(count, 1);
        assert_true(cli_touched(buf, sizeof(buf)) <= variants[i].stride);
        assert_true(cli_touched(buf, sizeof(buf)) > 8);
        memcpy(&pid, buf, 4);
        memcpy(&mem, buf + 8, 8);
        assert_int_equal(pid, 3002);
        assert_int_equal(mem, 1ull << 30);
        count = 2;
        assert_int_equal(fn(d1, &count, NULL), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(fn(d1, NULL, buf), NVML_ERROR_INVALID_ARGUMENT);
        count = 0;                                                  /* no MPS clients: empty, not an error */
        assert_int_equal(fn(tsim_dev(0), &count, NULL), NVML_SUCCESS);
        assert_int_equal(count, 0);
    }
    /* an MPS client is in no compute or graphics list; the detail list in mode MPS has it */
    count = 0;
    assert_int_equal(L.nvmlDeviceGetComputeRunningProcesses_v3(d1, &count, NULL), NVML_SUCCESS);
    assert_int_equal(count, 0);
    count = 0;
    assert_int_equal(L.nvmlDeviceGetGraphicsRunningProcesses_v3(d1, &count, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 1);
    memset(&list, 0, sizeof(list));
    list.version = nvmlProcessDetailList_v1;
    list.mode = NVML_PROCESS_MODE_MPS;
    list.numProcArrayEntries = 4;
    list.procArray = detail;
    assert_int_equal(L.nvmlDeviceGetRunningProcessDetailList(d1, &list), NVML_SUCCESS);
    assert_int_equal(list.numProcArrayEntries, 1);
    assert_int_equal(detail[0].pid, 3002);
    tsim_down();
    /* the late client shows up once started */
    tsim_up(tsim_data("clients.scn"), 0, 150);
    count = 0;
    assert_int_equal(L.nvmlDeviceGetMPSComputeRunningProcesses_v3(tsim_dev(1), &count, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 2);
    count = 1;
    assert_int_equal(L.nvmlDeviceGetMPSComputeRunningProcesses_v3(tsim_dev(1), &count, (void *)buf),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 2);
    tsim_down();
}

/* Fills one field-value request. */
static void cli_field(nvmlFieldValue_t *f, unsigned int id, unsigned int scope)
{
    memset(f, 0xAB, sizeof(*f));
    f->fieldId = id;
    f->scopeId = scope;
}

static void test_fields(void **state)
{
    nvmlFieldValue_t f[12];
    unsigned long long per_link = 100ull * 1024 * 50, energy;   /* KiB: 100 MiB/s per link for 50 s */

    (void)state;
    tsim_up(tsim_data("clients.scn"), 0, 50);
    cli_field(&f[0], NVML_FI_DEV_NVLINK_LINK_COUNT, 0);
    cli_field(&f[1], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 0);
    cli_field(&f[2], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NVML_FI_SCOPE_ALL_LINKS);
    cli_field(&f[3], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, 17);
    cli_field(&f[4], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 18);              /* no such link */
    cli_field(&f[5], 9999, 0);                                              /* unknown id */
    cli_field(&f[6], NVML_FI_DEV_POWER_INSTANT, 0);
    cli_field(&f[7], NVML_FI_DEV_ENERGY, 0);
    cli_field(&f[8], NVML_FI_DEV_ECC_CURRENT, 0);
    cli_field(&f[9], NVML_FI_DEV_PCIE_COUNT_TX_BYTES, 0);
    cli_field(&f[10], NVML_FI_DEV_POWER_MAX_LIMIT, 0);
    cli_field(&f[11], NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX, NVML_FI_SCOPE_ALL_LINKS);
    assert_int_equal(L.nvmlDeviceGetFieldValues(tsim_dev(0), 12, f), NVML_SUCCESS);
    for (int i = 0; i < 12; i++) {
        assert_true(f[i].timestamp > 1000000000000000LL);                   /* µs since the epoch */
        assert_int_equal(f[i].latencyUsec, 0);
    }
    assert_int_equal(f[1].scopeId, 0);                                      /* inputs untouched */
    assert_int_equal(f[5].fieldId, 9999);
    assert_int_equal(f[0].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(f[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
    assert_int_equal(f[0].value.uiVal, 18);
    assert_int_equal(f[1].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(f[1].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
    assert_true(f[1].value.ullVal + 1 >= per_link && f[1].value.ullVal <= per_link);
    assert_true(f[2].value.ullVal + 1 >= 18 * per_link && f[2].value.ullVal <= 18 * per_link);
    assert_int_equal(f[3].nvmlReturn, NVML_SUCCESS);
    assert_true(f[3].value.ullVal + 1 >= per_link / 2 && f[3].value.ullVal <= per_link / 2);
    assert_int_equal(f[4].nvmlReturn, NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(f[5].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(f[6].nvmlReturn, NVML_SUCCESS);
    assert_true(f[6].value.uiVal > 25000 && f[6].value.uiVal < 700000);    /* mW */
    assert_int_equal(f[7].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(L.nvmlDeviceGetTotalEnergyConsumption(tsim_dev(0), &energy), NVML_SUCCESS);
    assert_int_equal(f[7].value.ullVal, energy);                            /* the same counter */
    assert_int_equal(f[8].value.uiVal, 1);
    assert_int_equal(f[9].nvmlReturn, NVML_SUCCESS);
    assert_true(f[9].value.ullVal + 1 >= 1000ull * 1024 * 50 && f[9].value.ullVal <= 1000ull * 1024 * 50);
    assert_int_equal(f[10].value.uiVal, 700000);
    assert_true(f[11].value.ullVal > f[2].value.ullVal);                    /* raw includes overhead */
    /* no NVLink on the GeForce: count 0, throughput 3 */
    cli_field(&f[0], NVML_FI_DEV_NVLINK_LINK_COUNT, 0);
    cli_field(&f[1], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 0);
    assert_int_equal(L.nvmlDeviceGetFieldValues(tsim_dev(1), 2, f), NVML_SUCCESS);
    assert_int_equal(f[0].value.uiVal, 0);
    assert_int_equal(f[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    /* arguments: a negative count or a NULL array fail the call; zero entries do not */
    assert_int_equal(L.nvmlDeviceGetFieldValues(tsim_dev(0), -1, f), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetFieldValues(tsim_dev(0), 1, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetFieldValues(tsim_dev(0), 0, f), NVML_SUCCESS);
    tsim_down();
}

static void test_fields_families(void **state)
{
    nvmlFieldValue_t f[5];

    (void)state;
    tsim_up(tsim_data("clients.scn"), 0, 15);                               /* GPU 2: energy forbidden */
    cli_field(&f[0], NVML_FI_DEV_ECC_CURRENT, 0);
    cli_field(&f[1], NVML_FI_DEV_ECC_SBE_VOL_TOTAL, 0);                     /* ECC off */
    cli_field(&f[2], NVML_FI_DEV_POWER_INSTANT, 0);                         /* power unsupported */
    cli_field(&f[3], NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, 0);
    cli_field(&f[4], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 3);             /* nvlinks 4 */
    assert_int_equal(L.nvmlDeviceGetFieldValues(tsim_dev(2), 5, f), NVML_SUCCESS);
    assert_int_equal(f[0].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(f[0].value.uiVal, 0);
    assert_int_equal(f[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(f[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(f[3].nvmlReturn, NVML_ERROR_NO_PERMISSION);
    assert_int_equal(f[4].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(f[4].value.ullVal, 0);                                 /* no traffic signal */
    tsim_down();
}

static void test_fields_by_driver(void **state)
{
    struct tsim_lib lib;
    nvmlFieldValue_t f[3];
    nvmlDevice_t d;

    (void)state;
    tsim_env(tsim_data("clients.scn"), 0, 5);
    assert_int_equal(tsim_open(&lib, "legacy-470"), 16);
    assert_int_equal(lib.nvmlInit_v2(), NVML_SUCCESS);
    assert_int_equal(lib.nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_SUCCESS);
    cli_field(&f[0], NVML_FI_DEV_ECC_CURRENT, 0);
    cli_field(&f[1], NVML_FI_DEV_POWER_INSTANT, 0);                         /* 535.43.02 and newer */
    cli_field(&f[2], NVML_FI_DEV_PCIE_COUNT_TX_BYTES, 0);                   /* 555.42.02 and newer */
    assert_int_equal(lib.nvmlDeviceGetFieldValues(d, 3, f), NVML_SUCCESS);
    assert_int_equal(f[0].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(f[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(f[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(lib.nvmlShutdown(), NVML_SUCCESS);
    assert_int_equal(tsim_open(&lib, "r535-43"), 3);
    assert_int_equal(lib.nvmlInit_v2(), NVML_SUCCESS);
    assert_int_equal(lib.nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_SUCCESS);
    assert_int_equal(lib.nvmlDeviceGetFieldValues(d, 3, f), NVML_SUCCESS);
    assert_int_equal(f[1].nvmlReturn, NVML_SUCCESS);
    assert_int_equal(f[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(lib.nvmlShutdown(), NVML_SUCCESS);
}

static void test_power_limits(void **state)
{
    unsigned int lo = 0, hi = 0, def = 0;

    (void)state;
    tsim_up(tsim_data("clients.scn"), 0, 5);
    assert_int_equal(L.nvmlDeviceGetPowerManagementLimitConstraints(tsim_dev(0), &lo, &hi), NVML_SUCCESS);
    assert_int_equal(lo, 175000);
    assert_int_equal(hi, 700000);
    assert_int_equal(L.nvmlDeviceGetPowerManagementDefaultLimit(tsim_dev(0), &def), NVML_SUCCESS);
    assert_int_equal(def, 700000);
    assert_int_equal(L.nvmlDeviceSetPowerManagementLimit(tsim_dev(0), 300000), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(L.nvmlDeviceSetPowerManagementLimit(tsim_dev(0), 1000), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceSetPowerManagementLimit(tsim_dev(0), 800000), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetPowerManagementLimitConstraints(tsim_dev(0), NULL, &hi),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetPowerManagementDefaultLimit(tsim_dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(L.nvmlDeviceGetPowerManagementLimitConstraints(tsim_dev(2), &lo, &hi),
                     NVML_ERROR_NOT_SUPPORTED);                             /* power unsupported */
    assert_int_equal(L.nvmlDeviceGetPowerManagementDefaultLimit(tsim_dev(2), &def), NVML_ERROR_NOT_SUPPORTED);
    tsim_down();
}

int tsim_run_clients(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle),   cmocka_unit_test(test_board_values),
        cmocka_unit_test(test_modes),       cmocka_unit_test(test_mig),
        cmocka_unit_test(test_mig_needs_a_board), cmocka_unit_test(test_mps),
        cmocka_unit_test(test_fields),      cmocka_unit_test(test_fields_families),
        cmocka_unit_test(test_fields_by_driver), cmocka_unit_test(test_power_limits),
    };
    return cmocka_run_group_tests_name("sim_clients", tests, NULL, NULL);
}
