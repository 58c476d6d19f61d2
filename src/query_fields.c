/*
 * query_fields.c: the compute-apps field table and the parsing of field
 * lists (query_fields.h); the GPU field rows are in query_table.c. Names,
 * aliases and units follow nvidia-smi --help-query-gpu and
 * --help-query-compute-apps.
 */
#include "query_fields.h"

#include <stdio.h>
#include <string.h>

const struct query_app_field_row query_app_fields[QA_COUNT] = {
    [QA_TIMESTAMP] = {"timestamp", {NULL}, "", "The timestamp of when the query was made in format \"YYYY/MM/DD HH:MM:SS.msec\""},
    [QA_GPU_NAME] = {"gpu_name", {NULL}, "", "The official product name of the GPU"},
    [QA_GPU_BUS_ID] = {"gpu_bus_id", {NULL}, "", "PCI bus id as \"domain:bus:device.function\", in hex"},
    [QA_GPU_SERIAL] = {"gpu_serial", {NULL}, "", "The serial number printed on the board"},
    [QA_GPU_UUID] = {"gpu_uuid", {NULL}, "", "The globally unique immutable identifier of the GPU"},
    [QA_PID] = {"pid", {NULL}, "", "Process ID of the compute application"},
    [QA_NAME] = {"process_name", {"name"}, "", "Process Name"},
    [QA_MEMORY] = {"used_gpu_memory", {"used_memory"}, "MiB", "Amount memory used on the device by the context"},
};

/* Splits list on commas; calls match(name) for each trimmed, non-empty name. */
static int query_split(const char *list, int max, char *bad, size_t badlen, int (*match)(const char *, int, void *),
                       void *out)
{
    int n = 0;
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && *p == ' ')
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        if (n >= max)
            return QUERY_TOO_MANY;
        if (len == 0 || len >= sizeof name || match(name, n, out) != 0) {
            snprintf(bad, badlen, "%s", name);
            return -1;
        }
        n++;
        if (!end)
            return n;
        p = end + 1;
    }
}

static bool query_name_is(const char *name, const char *canonical, const char *const *aliases, int naliases)
{
    if (!strcmp(name, canonical))
        return true;
    for (int i = 0; i < naliases && aliases[i]; i++)
        if (!strcmp(name, aliases[i]))
            return true;
    return false;
}

static int query_match_gpu(const char *name, int n, void *out)
{
    for (size_t i = 0; i < query_gpu_nfields; i++)
        if (query_name_is(name, query_gpu_fields[i].name, query_gpu_fields[i].aliases, 2)) {
            ((const struct query_field **)out)[n] = &query_gpu_fields[i];
            return 0;
        }
    return -1;
}

static int query_match_app(const char *name, int n, void *out)
{
    for (int i = 0; i < QA_COUNT; i++)
        if (query_name_is(name, query_app_fields[i].name, query_app_fields[i].aliases, 2)) {
            ((enum query_app_field *)out)[n] = (enum query_app_field)i;
            return 0;
        }
    return -1;
}

int query_parse_gpu_fields(const char *list, const struct query_field **out, int max, char *bad, size_t badlen)
{
    return query_split(list, max, bad, badlen, query_match_gpu, out);
}

int query_parse_app_fields(const char *list, enum query_app_field *out, int max, char *bad, size_t badlen)
{
    return query_split(list, max, bad, badlen, query_match_app, out);
}
