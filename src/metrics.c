/*
 * metrics.c: the metric table's rows, expanded from METRIC_TABLE, and the
 * few functions that walk it for lookups, option checking and listing.
 */
#include "metrics.h"

#include <stdio.h>
#include <string.h>

_Static_assert(METRIC_COUNT <= RECORD_MAX_METRICS, "record.h value arrays too small for the metric table");

const struct metric metric_table[METRIC_COUNT] = {
#define METRIC_ROW(mid, reader, ...) [mid] = {.id = mid, __VA_ARGS__},
    METRIC_TABLE(METRIC_ROW)
#undef METRIC_ROW
};

const struct metric *metric_find(const char *key)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        if (!strcmp(metric_table[i].key, key))
            return &metric_table[i];
    return NULL;
}

int metric_parse_list(const char *list, enum metric_id *ids, int max, char *bad, size_t badlen)
{
    int n = 0;
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        char key[128];
        if (len == 0 || len >= sizeof key) {
            snprintf(bad, badlen, "%.*s", (int)(len < 100 ? len : 100), p);
            return -1;
        }
        memcpy(key, p, len);
        key[len] = '\0';
        const struct metric *m = metric_find(key);
        if (!m) {
            snprintf(bad, badlen, "%s", key);
            return -1;
        }
        int dup = 0;
        for (int i = 0; i < n; i++)
            dup |= ids[i] == m->id;
        if (!dup && n < max)
            ids[n++] = m->id;
        if (!end)
            return n;
        p = end + 1;
    }
}

static const char *metric_cadence_name(enum metric_cadence c)
{
    return c == MC_STATIC ? "once" : c == MC_SLOW ? "slow" : "sample";
}

void metric_print_table(void)
{
    printf("%-50s %-5s %-6s %-6s %-44s %s\n", "KEY", "UNIT", "SCOPE", "READ", "PROMETHEUS", "DESCRIPTION");
    for (int i = 0; i < METRIC_COUNT; i++) {
        const struct metric *m = &metric_table[i];
        char prom[128] = "-";
        if (m->prom_name)
            snprintf(prom, sizeof prom, "%s%s%s%s (%s)", m->prom_name, m->prom_labels ? "{" : "",
                     m->prom_labels ? m->prom_labels : "", m->prom_labels ? "}" : "", m->prom_type);
        printf("%-50s %-5s %-6s %-6s %-44s %s\n", m->key, *m->unit ? m->unit : "-",
               m->scope == MS_GPU ? "gpu" : "host", metric_cadence_name(m->cadence), prom, m->help);
    }
}

bool metric_gpu_lost(const struct value *v)
{
    const struct value *st = &v[M_STATE];
    return (st->state == VS_OK && st->u.s && !strcmp(st->u.s, "lost")) || st->state == VS_LOST ||
           v[M_UTIL_GPU].state == VS_LOST;
}
