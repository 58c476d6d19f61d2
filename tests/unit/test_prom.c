/*
 * test_prom.c: the Prometheus rendering: base units, families grouped
 * under one HELP/TYPE, values that are not known left out (never 0), the
 * lost marker, XID counters, label escaping (quotes, backslashes,
 * newlines, invalid UTF-8) and the dcgm names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "prom_write.h"

static struct record_gpu gpus[2];
static struct record rec;

static void ok_int(struct record_gpu *g, enum metric_id id, long long v)
{
    g->v[id] = (struct value){.state = VS_OK, .u.i = v};
}

static void ok_str(struct record_gpu *g, enum metric_id id, const char *s)
{
    g->v[id] = (struct value){.state = VS_OK, .u.s = s};
}

static int setup(void **state)
{
    (void)state;
    memset(gpus, 0, sizeof gpus);
    for (unsigned i = 0; i < 2; i++) {
        gpus[i].index = i;
        ok_str(&gpus[i], M_UUID, i ? "GPU-bbbb" : "GPU-aaaa");
        ok_str(&gpus[i], M_NAME, "NVIDIA H200");
        ok_str(&gpus[i], M_PCI_BUS_ID, "00000000:18:00.0");
        ok_str(&gpus[i], M_DRIVER_VERSION, "570.86.15");
        ok_str(&gpus[i], M_STATE, "ok");
        ok_int(&gpus[i], M_UTIL_GPU, 87);
        ok_int(&gpus[i], M_MEM_TOTAL, 143771);
        ok_int(&gpus[i], M_CLOCK_SM, 1980);
        ok_int(&gpus[i], M_CLOCK_MEM, 2619);
        gpus[i].v[M_POWER] = (struct value){.state = VS_OK, .u.f = 512.25};
    }
    gpus[1].v[M_TEMP] = (struct value){.state = VS_UNSUPPORTED, .code = 3};
    ok_int(&gpus[0], M_TEMP, 61);
    rec = (struct record){.hostname = "node\"1", .ngpus = 2, .gpus = gpus};
    rec.host[M_HOST_CPUS] = (struct value){.state = VS_OK, .u.i = 64};
    return 0;
}

static char *render(bool dcgm)
{
    struct sbuf b;
    sbuf_init(&b);
    struct prom_opts o = {dcgm, true, 16};
    prom_render(&b, &rec, &o);
    return b.data;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void test_base_units_and_labels(void **state)
{
    (void)state;
    char *t = render(false);
    assert_non_null(strstr(t, "gpumon_gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-aaaa\"} 0.87\n"));
    assert_non_null(strstr(t, "gpumon_gpu_memory_total_bytes{gpu=\"1\",uuid=\"GPU-bbbb\"} 150754820096\n"));
    assert_non_null(strstr(t, "gpumon_gpu_clock_hertz{gpu=\"0\",uuid=\"GPU-aaaa\",clock=\"sm\"} 1980000000\n"));
    assert_non_null(strstr(t, "gpumon_gpu_power_watts{gpu=\"0\",uuid=\"GPU-aaaa\"} 512.25\n"));
    assert_non_null(strstr(t, "gpumon_host_cpus 64\n"));
    assert_non_null(strstr(t, "gpumon_gpu_info{gpu=\"1\",uuid=\"GPU-bbbb\",name=\"NVIDIA H200\","
                              "pci_bus_id=\"00000000:18:00.0\",driver_version=\"570.86.15\"} 1\n"));
    free(t);
}

static void test_families_grouped(void **state)
{
    (void)state;
    char *t = render(false);
    assert_int_equal(count(t, "# HELP gpumon_gpu_clock_hertz "), 1);
    assert_int_equal(count(t, "# TYPE gpumon_gpu_clock_hertz gauge"), 1);
    /* all four clock series follow the one header, uninterrupted */
    const char *h = strstr(t, "# TYPE gpumon_gpu_clock_hertz gauge\n");
    assert_non_null(h);
    h = strchr(h, '\n') + 1;
    for (int i = 0; i < 4; i++) {
        assert_true(!strncmp(h, "gpumon_gpu_clock_hertz{", 23));
        h = strchr(h, '\n') + 1;
    }
    assert_true(h[0] == '#');
    free(t);
}

static void test_unknown_values_left_out(void **state)
{
    (void)state;
    char *t = render(false);
    assert_non_null(strstr(t, "gpumon_gpu_temperature_celsius{gpu=\"0\",uuid=\"GPU-aaaa\"} 61\n"));
    assert_null(strstr(t, "gpumon_gpu_temperature_celsius{gpu=\"1\""));
    assert_null(strstr(t, "gpumon_gpu_fan_speed_ratio"));   /* no GPU has it: no family at all */
    free(t);
}

static void test_lost_and_xids(void **state)
{
    (void)state;
    ok_str(&gpus[1], M_STATE, "lost");
    gpus[1].v[M_UTIL_GPU] = (struct value){.state = VS_LOST, .code = 15};
    gpus[1].nxids = 1;
    gpus[1].xids[0] = (struct record_xid){79, 2, {1795989478, 500000000}};
    char *t = render(false);
    assert_non_null(strstr(t, "gpumon_gpu_lost{gpu=\"1\",uuid=\"GPU-bbbb\"} 1\n"));
    assert_non_null(strstr(t, "gpumon_gpu_lost{gpu=\"0\",uuid=\"GPU-aaaa\"} 0\n"));
    assert_null(strstr(t, "gpumon_gpu_utilization_ratio{gpu=\"1\""));
    assert_non_null(strstr(t, "# TYPE gpumon_gpu_xid_errors_total counter\n"));
    assert_non_null(strstr(t, "gpumon_gpu_xid_errors_total{gpu=\"1\",uuid=\"GPU-bbbb\",xid=\"79\"} 2\n"));
    assert_non_null(strstr(t, "gpumon_gpu_xid_last_seen_timestamp_seconds{gpu=\"1\",uuid=\"GPU-bbbb\",xid=\"79\"} "
                              "1795989478.5\n"));
    assert_int_equal(prom_count_errors(&rec), 0);
    gpus[0].v[M_FAN] = (struct value){.state = VS_ERROR, .code = 999};
    assert_int_equal(prom_count_errors(&rec), 1);
    free(t);
}

static void test_label_escaping(void **state)
{
    (void)state;
    gpus[0].nprocs = 1;
    gpus[0].procs[0] = (struct record_proc){.pid = 42, .used_mib = 1024};
    snprintf(gpus[0].procs[0].name, sizeof gpus[0].procs[0].name, "py \"a\\b\"\nc\xff");
    snprintf(gpus[0].procs[0].user, sizeof gpus[0].procs[0].user, "alice");
    snprintf(gpus[0].procs[0].pod, sizeof gpus[0].procs[0].pod, "0c5d6c4e-1f2a-4b3c-9d8e-7f6a5b4c3d2e");
    char *t = render(false);
    assert_non_null(strstr(t, "gpumon_process_gpu_memory_bytes{gpu=\"0\",uuid=\"GPU-aaaa\",pid=\"42\","
                              "process_name=\"py \\\"a\\\\b\\\"\\nc\xef\xbf\xbd\",user=\"alice\",container=\"\","
                              "pod_uid=\"0c5d6c4e-1f2a-4b3c-9d8e-7f6a5b4c3d2e\"} 1073741824\n"));
    free(t);
}

static void test_dcgm(void **state)
{
    (void)state;
    char *t = render(true);
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",device=\"nvidia0\",Hostname=\"node\\\"1\","
                              "UUID=\"GPU-aaaa\",modelName=\"NVIDIA H200\""));
    assert_non_null(strstr(t, "} 87\n"));
    assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n"));
    assert_int_equal(count(t, "DCGM_FI_DEV_GPU_TEMP{"), 1);   /* unsupported on GPU 1 */
    free(t);
}

static void test_numbers(void **state)
{
    (void)state;
    struct sbuf b;
    sbuf_init(&b);
    prom_number(&b, 0.1 + 0.2);
    sbuf_putc(&b, ' ');
    prom_number(&b, 1e20);
    sbuf_putc(&b, ' ');
    prom_number(&b, -3);
    sbuf_putc(&b, ' ');
    prom_number(&b, 1.0 / 0.0);
    assert_string_equal(b.data, "0.3 1e+20 -3 +Inf");
    sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_base_units_and_labels, setup),
        cmocka_unit_test_setup(test_families_grouped, setup),
        cmocka_unit_test_setup(test_unknown_values_left_out, setup),
        cmocka_unit_test_setup(test_lost_and_xids, setup),
        cmocka_unit_test_setup(test_label_escaping, setup),
        cmocka_unit_test_setup(test_dcgm, setup),
        cmocka_unit_test(test_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
