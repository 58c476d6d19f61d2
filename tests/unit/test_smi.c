/*
 * test_smi.c: nvidia-smi's table and -L list of a GPU with MIG devices,
 * which the simulator cannot play (it creates no GPU instances). A fake
 * NVML is put in gpumon's function table (nvml.h) by hand: one H100 with
 * MIG on and the four MIG devices of the real capture
 * tests/captures/linux-x86_64__nvidia-h100-mig__590.48.01.txt, and one
 * process inside a GPU instance. The table is checked line by line
 * against the capture's; only the MIG devices' SM and engine counts
 * differ (N/A, right-aligned where the counts end: gpumon does not read
 * nvmlDeviceGetAttributes). -L is checked against the capture's list.
 * The values go through the sampler, as every reading of NVML does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvml.h"
#include "sampler.h"
#include "smi.h"
#include "util.h"

#define MIB (1024ull * 1024)

/* The fake devices: the GPU and its MIG devices, told apart by address. */
static struct fake_dev {
    int mig;                        /* -1 the GPU, else the MIG slot */
} fake_gpu = {-1}, fake_mig[4] = {{0}, {1}, {2}, {3}};

static const struct {
    const char *profile;
    unsigned gi, ci;
    unsigned long long used_mib, total_mib, bar1_mib;
} fake_migs[4] = {
    {"3g.40gb", 2, 0, 26, 40448, 24739},
    {"2g.20gb", 3, 0, 17, 20096, 12369},
    {"1g.10gb", 9, 0, 9, 9984, 6184},
    {"1g.10gb", 10, 0, 9, 9984, 6184},
};

static const struct fake_dev *fake(nvmlDevice_t d)
{
    return (const struct fake_dev *)d;
}

static nvmlReturn_t f_count(unsigned int *n)
{
    *n = 1;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_handle(unsigned int i, nvmlDevice_t *h)
{
    if (i != 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    *h = (nvmlDevice_t)&fake_gpu;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_name(nvmlDevice_t d, char *b, unsigned int n)
{
    if (fake(d)->mig < 0)
        snprintf(b, n, "NVIDIA H100 80GB HBM3");
    else
        snprintf(b, n, "NVIDIA H100 80GB HBM3 MIG %s", fake_migs[fake(d)->mig].profile);
    return NVML_SUCCESS;
}

static nvmlReturn_t f_uuid(nvmlDevice_t d, char *b, unsigned int n)
{
    int m = fake(d)->mig;
    if (m < 0)
        snprintf(b, n, "GPU-00000000-0000-0000-0000-000000000000");
    else
        snprintf(b, n, "MIG-0000000%d-0000-0000-0000-00000000000%d", m, m);
    return NVML_SUCCESS;
}

static nvmlReturn_t f_pci(nvmlDevice_t d, nvmlPciInfo_t *p)
{
    (void)d;
    memset(p, 0, sizeof *p);
    snprintf(p->busId, sizeof p->busId, "00000000:00:09.0");
    p->bus = 0, p->device = 9;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_unsupported(nvmlDevice_t d, unsigned int *v)
{
    (void)d, (void)v;
    return NVML_ERROR_NOT_SUPPORTED;
}

static nvmlReturn_t f_util(nvmlDevice_t d, nvmlUtilization_t *u)
{
    (void)d, (void)u;
    return NVML_ERROR_NOT_SUPPORTED;   /* MIG on */
}

static nvmlReturn_t f_enabled(nvmlDevice_t d, nvmlEnableState_t *s)
{
    (void)d;
    *s = NVML_FEATURE_ENABLED;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_disabled(nvmlDevice_t d, nvmlEnableState_t *s)
{
    (void)d;
    *s = NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_ecc_mode(nvmlDevice_t d, nvmlEnableState_t *cur, nvmlEnableState_t *pend)
{
    (void)d;
    *cur = *pend = NVML_FEATURE_ENABLED;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_ecc(nvmlDevice_t d, nvmlMemoryErrorType_t t, nvmlEccCounterType_t c, unsigned long long *n)
{
    (void)d, (void)t, (void)c;
    *n = 0;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_temp(nvmlDevice_t d, nvmlTemperatureSensors_t s, unsigned int *t)
{
    (void)d, (void)s;
    *t = 42;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_pstate(nvmlDevice_t d, nvmlPstates_t *p)
{
    (void)d;
    *p = NVML_PSTATE_0;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_power(nvmlDevice_t d, unsigned int *mw)
{
    (void)d;
    *mw = 98765;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_cap(nvmlDevice_t d, unsigned int *mw)
{
    (void)d;
    *mw = 700000;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_memory(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
    int g = fake(d)->mig;
    if (m->version != nvmlMemory_v2)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    m->total = (g < 0 ? 81559 : fake_migs[g].total_mib) * MIB;
    m->used = (g < 0 ? 59 : fake_migs[g].used_mib) * MIB + 12345;
    m->reserved = g < 0 ? 500 * MIB : 0;
    m->free = m->total - m->used - m->reserved;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_bar1(nvmlDevice_t d, nvmlBAR1Memory_t *b)
{
    int g = fake(d)->mig;
    if (g < 0)
        return NVML_ERROR_NO_PERMISSION;
    b->bar1Total = fake_migs[g].bar1_mib * MIB;
    b->bar1Used = 4096;
    b->bar1Free = b->bar1Total - b->bar1Used;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_compute_mode(nvmlDevice_t d, nvmlComputeMode_t *m)
{
    (void)d;
    *m = NVML_COMPUTEMODE_DEFAULT;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_mig_mode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
    (void)d;
    *cur = *pend = NVML_DEVICE_MIG_ENABLE;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_mig_max(nvmlDevice_t d, unsigned int *n)
{
    *n = fake(d)->mig < 0 ? 7 : 0;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_mig_handle(nvmlDevice_t d, unsigned int i, nvmlDevice_t *m)
{
    if (fake(d)->mig >= 0 || i >= 7)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (i >= 4)
        return NVML_ERROR_NOT_FOUND;   /* an empty slot */
    *m = (nvmlDevice_t)&fake_mig[i];
    return NVML_SUCCESS;
}

static nvmlReturn_t f_gi(nvmlDevice_t d, unsigned int *id)
{
    if (fake(d)->mig < 0)
        return NVML_ERROR_NOT_SUPPORTED;
    *id = fake_migs[fake(d)->mig].gi;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_ci(nvmlDevice_t d, unsigned int *id)
{
    if (fake(d)->mig < 0)
        return NVML_ERROR_NOT_SUPPORTED;
    *id = fake_migs[fake(d)->mig].ci;
    return NVML_SUCCESS;
}

/* One compute process in GPU instance 2; graphics: none. */
static nvmlReturn_t f_compute_procs(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v2_t *p)
{
    if (fake(d)->mig >= 0) {
        *n = 0;
        return NVML_SUCCESS;
    }
    if (*n < 1) {
        *n = 1;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    p[0] = (nvmlProcessInfo_v2_t){.pid = 4242, .usedGpuMemory = 11082 * MIB, .gpuInstanceId = 2,
                                  .computeInstanceId = 0};
    *n = 1;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_graphics_procs(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v2_t *p)
{
    (void)d, (void)p;
    *n = 0;
    return NVML_SUCCESS;
}

static nvmlReturn_t f_proc_name(unsigned int pid, char *b, unsigned int n)
{
    if (pid != 4242)
        return NVML_ERROR_NOT_FOUND;
    snprintf(b, n, "/opt/conda/bin/python3 /workspace/examples/llm/finetune.py --config big.yaml");
    return NVML_SUCCESS;
}

static nvmlReturn_t f_cuda(int *v)
{
    *v = 13010;
    return NVML_SUCCESS;
}

static int setup(void **state)
{
    (void)state;
    memset(&nvml, 0, sizeof nvml);
    nvml.get_count = f_count;
    nvml.get_handle = f_handle;
    nvml.nvmlDeviceGetName = f_name;
    nvml.nvmlDeviceGetUUID = f_uuid;
    nvml.nvmlDeviceGetPciInfo_v3 = f_pci;
    nvml.nvmlDeviceGetFanSpeed = f_unsupported;
    nvml.nvmlDeviceGetUtilizationRates = f_util;
    nvml.nvmlDeviceGetPersistenceMode = f_enabled;
    nvml.nvmlDeviceGetDisplayActive = f_disabled;
    nvml.nvmlDeviceGetEccMode = f_ecc_mode;
    nvml.nvmlDeviceGetTotalEccErrors = f_ecc;
    nvml.nvmlDeviceGetTemperature = f_temp;
    nvml.nvmlDeviceGetPerformanceState = f_pstate;
    nvml.nvmlDeviceGetPowerUsage = f_power;
    nvml.nvmlDeviceGetEnforcedPowerLimit = f_cap;
    nvml.nvmlDeviceGetMemoryInfo_v2 = f_memory;
    nvml.nvmlDeviceGetBAR1MemoryInfo = f_bar1;
    nvml.nvmlDeviceGetComputeMode = f_compute_mode;
    nvml.nvmlDeviceGetMigMode = f_mig_mode;
    nvml.nvmlDeviceGetMaxMigDeviceCount = f_mig_max;
    nvml.nvmlDeviceGetMigDeviceHandleByIndex = f_mig_handle;
    nvml.nvmlDeviceGetGpuInstanceId = f_gi;
    nvml.nvmlDeviceGetComputeInstanceId = f_ci;
    nvml.nvmlDeviceGetComputeRunningProcesses_v2 = f_compute_procs;
    nvml.nvmlDeviceGetGraphicsRunningProcesses_v2 = f_graphics_procs;
    nvml.nvmlSystemGetProcessName = f_proc_name;
    nvml.nvmlSystemGetCudaDriverVersion_v2 = f_cuda;
    snprintf(nvml.driver_version, sizeof nvml.driver_version, "590.48.01");
    nvml.cuda_version = 13010;
    nvml.process_stride = sizeof(nvmlProcessInfo_v2_t);
    nvml.clock_speed = 1;
    return 0;
}

/* The capture's table (its date line aside), MIG devices' SM and engine counts as N/A, and the process. */
static const char want_table[] =
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1     |\n"
    "+-----------------------------------------+------------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
    "|                                         |                        |               MIG M. |\n"
    "|=========================================+========================+======================|\n"
    "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:00:09.0 Off |                   On |\n"
    "| N/A   42C    P0             98W /  700W |      59MiB /  81559MiB |     N/A      Default |\n"
    "|                                         |                        |              Enabled |\n"
    "+-----------------------------------------+------------------------+----------------------+\n"
    "\n"
    "+-----------------------------------------------------------------------------------------+\n"
    "| MIG devices:                                                                            |\n"
    "+------------------+----------------------------------+-----------+-----------------------+\n"
    "| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |\n"
    "|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |\n"
    "|                  |                                  |        ECC|                       |\n"
    "|==================+==================================+===========+=======================|\n"
    "|  0    2   0   0  |              26MiB / 40448MiB    |N/A      0 |N/A N/A  N/A  N/A  N/A |\n"
    "|                  |               0MiB / 24739MiB    |           |                       |\n"
    "+------------------+----------------------------------+-----------+-----------------------+\n"
    "|  0    3   0   1  |              17MiB / 20096MiB    |N/A      0 |N/A N/A  N/A  N/A  N/A |\n"
    "|                  |               0MiB / 12369MiB    |           |                       |\n"
    "+------------------+----------------------------------+-----------+-----------------------+\n"
    "|  0    9   0   2  |               9MiB /  9984MiB    |N/A      0 |N/A N/A  N/A  N/A  N/A |\n"
    "|                  |               0MiB /  6184MiB    |           |                       |\n"
    "+------------------+----------------------------------+-----------+-----------------------+\n"
    "|  0   10   0   3  |               9MiB /  9984MiB    |N/A      0 |N/A N/A  N/A  N/A  N/A |\n"
    "|                  |               0MiB /  6184MiB    |           |                       |\n"
    "+------------------+----------------------------------+-----------+-----------------------+\n"
    "\n"
    "+-----------------------------------------------------------------------------------------+\n"
    "| Processes:                                                                              |\n"
    "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n"
    "|        ID   ID                                                               Usage      |\n"
    "|=========================================================================================|\n"
    "|    0    2    0             4242      C   ...finetune.py --config big.yaml      11082MiB |\n"
    "+-----------------------------------------------------------------------------------------+\n";

static const char want_list[] =
    "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
    "  MIG 3g.40gb     Device  0: (UUID: MIG-00000000-0000-0000-0000-000000000000)\n"
    "  MIG 2g.20gb     Device  1: (UUID: MIG-00000001-0000-0000-0000-000000000001)\n"
    "  MIG 1g.10gb     Device  2: (UUID: MIG-00000002-0000-0000-0000-000000000002)\n"
    "  MIG 1g.10gb     Device  3: (UUID: MIG-00000003-0000-0000-0000-000000000003)\n";

/* Compares line by line, so that a failure names the line. */
static void expect_lines(const char *got, const char *want)
{
    for (unsigned line = 1;; line++) {
        const char *ge = strchr(got, '\n'), *we = strchr(want, '\n');
        size_t gn = ge ? (size_t)(ge - got) : strlen(got), wn = we ? (size_t)(we - want) : strlen(want);
        if (gn != wn || memcmp(got, want, gn)) {
            print_error("line %u: got\n%.*s\nexpected\n%.*s\n", line, (int)gn, got, (int)wn, want);
            fail();
        }
        if (!ge || !we) {
            assert_true(!ge && !we);
            return;
        }
        got = ge + 1, want = we + 1;
    }
}

/* The snapshot as cmd_smi takes it: a sampler of every GPU, one record, the whole table (full) or the list. */
static void snapshot(struct sbuf *b, bool full)
{
    static const enum metric_id ids[] = {M_INDEX, M_NAME, M_UUID, M_PCI_BUS_ID, M_DRIVER_VERSION, M_STATE,
                                         M_FAN, M_TEMP, M_PSTATE, M_POWER, M_POWER_ENFORCED, M_MEM_USED,
                                         M_MEM_TOTAL, M_UTIL_GPU, M_ECC_UNCORR};
    struct sampler_opts so = {ids, sizeof ids / sizeof ids[0], NULL, 1000, false, 0, NULL};
    struct sampler *smp;
    struct record rec;
    struct smi_snapshot s;
    char err[256];
    assert_int_equal(sampler_open(&smp, &so, err, sizeof err), 0);
    memset(&rec, 0, sizeof rec);
    sampler_sample(smp, &rec);
    smi_read(&s, smp, &rec, full);
    if (full)
        smi_table(b, &s, 0);
    else
        smi_list(b, &s);
    smi_free(&s);
    sampler_close(smp);
}

static void test_table_with_mig(void **state)
{
    (void)state;
    struct sbuf b;
    sbuf_init(&b);
    snapshot(&b, true);
    const char *nl = strchr(b.data, '\n');   /* the date line aside */
    assert_non_null(nl);
    expect_lines(nl + 1, want_table);
    sbuf_free(&b);
}

static void test_list_with_mig(void **state)
{
    (void)state;
    struct sbuf b;
    sbuf_init(&b);
    snapshot(&b, false);
    expect_lines(b.data, want_list);
    sbuf_free(&b);
}

static nvmlReturn_t f_temp_v_fails(nvmlDevice_t d, nvmlTemperature_v1_t *t)
{
    (void)d, (void)t;
    return NVML_ERROR_UNKNOWN;
}

static nvmlReturn_t f_pstate_unknown(nvmlDevice_t d, nvmlPstates_t *p)
{
    (void)d;
    *p = NVML_PSTATE_UNKNOWN;
    return NVML_SUCCESS;
}

/* The table reads a value as the query and watch do (one reader): a TemperatureV that fails for
 * another reason than "not supported" is that failure (ERR!, no fall back to the older call), and a
 * performance state NVML cannot tell is N/A (not "P32"). */
static void test_table_reads_as_query(void **state)
{
    (void)state;
    struct sbuf b;
    nvml.nvmlDeviceGetTemperatureV = f_temp_v_fails;
    nvml.nvmlDeviceGetPerformanceState = f_pstate_unknown;
    sbuf_init(&b);
    snapshot(&b, true);
    const char *line = strstr(b.data, "\n| N/A ");
    assert_non_null(line);
    assert_memory_equal(line + 1, "| N/A  ERR!    N/A            98W /  700W |", 43);
    sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_table_with_mig, setup),
        cmocka_unit_test_setup(test_list_with_mig, setup),
        cmocka_unit_test_setup(test_table_reads_as_query, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
