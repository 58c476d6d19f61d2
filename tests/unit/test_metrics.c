/*
 * test_metrics.c: invariants of the metric table (the master copy every
 * output walks) and of option parsing over it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "metrics.h"

static void test_rows_complete(void **state)
{
    (void)state;
    for (int i = 0; i < METRIC_COUNT; i++) {
        const struct metric *m = &metric_table[i];
        assert_int_equal(m->id, i);
        assert_non_null(m->key);
        assert_non_null(m->unit);
        assert_non_null(m->help);
        assert_true(strlen(m->help) > 10);
        assert_true(m->decimals >= 0 && m->decimals <= 6);
    }
}

/* The reason rows come from clock_reasons.h, in its order, with its keys. */
static void test_reason_rows(void **state)
{
    (void)state;
    unsigned long long all = 0;
    for (int r = 0; r < CLOCK_REASON_COUNT; r++) {
        const struct clock_reason *cr = &clock_reasons[r];
        const struct metric *m = &metric_table[metric_reason_id((enum clock_reason_id)r)];
        char key[128], label[128];
        snprintf(key, sizeof key, "clocks_event_reasons.%s", cr->key);
        snprintf(label, sizeof label, "reason=\"%s\"", cr->key);
        assert_string_equal(m->key, key);
        assert_string_equal(m->prom_labels, label);
        assert_int_equal(m->kind, MK_FLAG);
        if (r > 0)
            assert_int_equal(metric_reason_id((enum clock_reason_id)r), metric_reason_id((enum clock_reason_id)(r - 1)) + 1);
        assert_true(cr->bit && !(cr->bit & all));
        all |= cr->bit;
    }
    assert_int_equal(clock_reason_mask(CR_GROUP_THERMAL), 0x68);
    assert_int_equal(clock_reason_mask(CR_GROUP_POWER), 0x84);
}

static void test_keys_unique_and_clean(void **state)
{
    (void)state;
    for (int i = 0; i < METRIC_COUNT; i++) {
        const char *k = metric_table[i].key;
        for (const char *p = k; *p; p++)
            assert_true(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '.' || *p == '_');
        for (int j = i + 1; j < METRIC_COUNT; j++)
            assert_string_not_equal(k, metric_table[j].key);
        assert_ptr_equal(metric_find(k), &metric_table[i]);
    }
    assert_null(metric_find("utilization"));
    assert_null(metric_find(""));
}

static void test_prometheus_columns(void **state)
{
    (void)state;
    for (int i = 0; i < METRIC_COUNT; i++) {
        const struct metric *m = &metric_table[i];
        if (!m->prom_name) {
            /* labels, or exported in another shape (XIDs: a counter per code) */
            assert_true(m->kind == MK_STR || m->id == M_INDEX || m->id == M_UTIL_SAMPLES ||
                        m->id == M_XID_COUNT || m->id == M_XID_LAST);
            continue;
        }
        assert_true(!strncmp(m->prom_name, "gpumon_", 7));
        for (const char *p = m->prom_name; *p; p++)
            assert_true(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_');
        assert_true(!strcmp(m->prom_type, "gauge") || !strcmp(m->prom_type, "counter"));
        size_t n = strlen(m->prom_name);
        if (!strcmp(m->prom_type, "counter"))
            assert_true(n > 6 && !strcmp(m->prom_name + n - 6, "_total"));
        assert_true(m->prom_scale > 0);
        /* Percent metrics export as 0-1 ratios, MiB as bytes, MHz as hertz. */
        if (!strcmp(m->unit, "%"))
            assert_true(m->prom_scale == 0.01 && strstr(m->prom_name, "_ratio"));
        if (!strcmp(m->unit, "MiB"))
            assert_true(m->prom_scale == 1048576 && strstr(m->prom_name, "_bytes"));
        if (!strcmp(m->unit, "MHz"))
            assert_true(m->prom_scale == 1e6 && strstr(m->prom_name, "_hertz"));
        /* Two rows may share a name only with different labels. */
        for (int j = i + 1; j < METRIC_COUNT; j++) {
            const struct metric *o = &metric_table[j];
            if (o->prom_name && !strcmp(o->prom_name, m->prom_name)) {
                assert_non_null(m->prom_labels);
                assert_non_null(o->prom_labels);
                assert_string_not_equal(m->prom_labels, o->prom_labels);
                assert_string_equal(m->prom_type, o->prom_type);
            }
        }
    }
}

static void test_required_metrics_present(void **state)
{
    (void)state;
    const char *need[] = {"index", "name", "uuid", "pci.bus_id", "driver_version", "utilization.gpu",
                          "utilization.memory", "memory.total", "memory.used", "memory.free", "memory.reserved",
                          "temperature.gpu", "fan.speed", "power.draw", "power.limit", "enforced.power.limit",
                          "energy.consumption", "clocks.sm", "clocks.mem", "clocks.gr", "clocks.max.sm",
                          "clocks.max.mem", "clocks.max.gr", "clocks_event_reasons.active",
                          "clocks_event_reasons.hw_thermal_slowdown", "pstate", "pcie.throughput.tx",
                          "pcie.throughput.rx", "pcie.link.gen.current", "pcie.link.gen.max",
                          "pcie.link.width.current", "pcie.link.width.max", "utilization.encoder",
                          "utilization.decoder", "ecc.errors.corrected.volatile.total",
                          "ecc.errors.uncorrected.volatile.total", "retired_pages.pending",
                          "remapped_rows.pending", "host.cpu.user", "host.cpu.system", "host.cpu.iowait",
                          "host.memory.total", "host.memory.used"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        assert_non_null(metric_find(need[i]));
    assert_int_equal(metric_find("pcie.throughput.tx")->cadence, MC_SLOW);
}

static void test_parse_list(void **state)
{
    (void)state;
    enum metric_id ids[8];
    char bad[64];
    assert_int_equal(metric_parse_list("utilization.gpu, memory.used ,utilization.gpu", ids, 8, bad, sizeof bad), 2);
    assert_int_equal(ids[0], M_UTIL_GPU);
    assert_int_equal(ids[1], M_MEM_USED);
    assert_int_equal(metric_parse_list("utilization.gpu,bogus", ids, 8, bad, sizeof bad), -1);
    assert_string_equal(bad, "bogus");
    assert_int_equal(metric_parse_list("utilization.gpu,,memory.used", ids, 8, bad, sizeof bad), -1);
    assert_int_equal(metric_parse_list("", ids, 8, bad, sizeof bad), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_complete),
        cmocka_unit_test(test_reason_rows),
        cmocka_unit_test(test_keys_unique_and_clean),
        cmocka_unit_test(test_prometheus_columns),
        cmocka_unit_test(test_required_metrics_present),
        cmocka_unit_test(test_parse_list),
    };
    return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
