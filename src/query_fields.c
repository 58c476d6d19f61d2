/*
 * query_fields.c: the nvidia-smi query field table (see query_fields.h).
 * Names, aliases and units follow nvidia-smi --help-query-gpu.
 */
#include "query_fields.h"

#include <stdio.h>
#include <string.h>

const struct query_field query_gpu_fields[] = {
    {"timestamp", {NULL}, "", QS_TIMESTAMP, M_INDEX, "Time of the query, YYYY/MM/DD HH:MM:SS.msec, local time"},
    {"driver_version", {NULL}, "", QS_TEXT, M_DRIVER_VERSION, "Version of the installed NVIDIA display driver"},
    {"count", {NULL}, "", QS_COUNT, M_INDEX, "Number of NVIDIA GPUs in the system"},
    {"name", {"gpu_name"}, "", QS_TEXT, M_NAME, "Official product name of the GPU"},
    {"serial", {"gpu_serial"}, "", QS_TEXT, M_SERIAL, "Board serial number"},
    {"uuid", {"gpu_uuid"}, "", QS_TEXT, M_UUID, "Globally unique immutable identifier of the GPU"},
    {"pci.bus_id", {"gpu_bus_id"}, "", QS_TEXT, M_PCI_BUS_ID, "PCI bus id as domain:bus:device.function, in hex"},
    {"index", {NULL}, "", QS_NUMBER, M_INDEX, "Zero-based index of the GPU (may change at boot)"},
    {"pcie.link.gen.current", {"pcie.link.gen.gpucurrent"}, "", QS_NUMBER, M_PCIE_GEN,
     "Current PCIe link generation (may drop when the GPU is idle)"},
    {"pcie.link.gen.max", {NULL}, "", QS_NUMBER, M_PCIE_GEN_MAX, "Maximum PCIe link generation of GPU and system"},
    {"pcie.link.width.current", {NULL}, "", QS_NUMBER, M_PCIE_WIDTH, "Current PCIe link width"},
    {"pcie.link.width.max", {NULL}, "", QS_NUMBER, M_PCIE_WIDTH_MAX, "Maximum PCIe link width"},
    {"fan.speed", {NULL}, "%", QS_NUMBER, M_FAN, "Intended fan speed, share of the maximum"},
    {"pstate", {NULL}, "", QS_PSTATE, M_PSTATE, "Performance state, P0 (maximum) to P12 (minimum)"},
    {"clocks_event_reasons.active", {"clocks_throttle_reasons.active"}, "", QS_MASK, M_REASONS,
     "Bitmask of the active clock event (throttle) reasons"},
#define QUERY_REASON_ROW(P, id, bit, key, label, group, help, smi_help) \
    {"clocks_event_reasons." key, {"clocks_throttle_reasons." key}, "", QS_ACTIVE, M_R_##id, smi_help},
    CLOCK_REASON_TABLE(QUERY_REASON_ROW, _)
#undef QUERY_REASON_ROW
    {"memory.total", {NULL}, "MiB", QS_NUMBER, M_MEM_TOTAL, "Total installed GPU memory"},
    {"memory.reserved", {NULL}, "MiB", QS_NUMBER, M_MEM_RESERVED, "Memory reserved by the driver and firmware"},
    {"memory.used", {NULL}, "MiB", QS_NUMBER, M_MEM_USED, "Memory allocated by active contexts"},
    {"memory.free", {NULL}, "MiB", QS_NUMBER, M_MEM_FREE, "Free memory"},
    {"utilization.gpu", {NULL}, "%", QS_NUMBER, M_UTIL_GPU,
     "Share of the past sample period during which a kernel was running"},
    {"utilization.memory", {NULL}, "%", QS_NUMBER, M_UTIL_MEM,
     "Share of the past sample period during which memory was read or written"},
    {"utilization.encoder", {NULL}, "%", QS_NUMBER, M_ENC, "Video encoder utilization"},
    {"utilization.decoder", {NULL}, "%", QS_NUMBER, M_DEC, "Video decoder utilization"},
    {"ecc.errors.corrected.volatile.total", {NULL}, "", QS_NUMBER, M_ECC_CORR,
     "Corrected ECC errors since the last driver load"},
    {"ecc.errors.uncorrected.volatile.total", {NULL}, "", QS_NUMBER, M_ECC_UNCORR,
     "Uncorrected ECC errors since the last driver load"},
    {"retired_pages.pending", {NULL}, "", QS_YESNO, M_RETIRED_PENDING,
     "Pages waiting to be retired at the next reset"},
    {"remapped_rows.pending", {NULL}, "", QS_YESNO, M_REMAP_PENDING, "Row remappings waiting for the next reset"},
    {"temperature.gpu", {NULL}, "", QS_NUMBER, M_TEMP, "Core GPU temperature, degrees C"},
    {"power.draw", {NULL}, "W", QS_WATTS, M_POWER, "Power drawn by the board"},
    {"power.limit", {NULL}, "W", QS_WATTS, M_POWER_LIMIT, "Software power limit"},
    {"enforced.power.limit", {NULL}, "W", QS_WATTS, M_POWER_ENFORCED,
     "Power limit the board enforces, the lowest of all limiters"},
    {"clocks.current.graphics", {"clocks.gr"}, "MHz", QS_NUMBER, M_CLOCK_GR, "Current graphics (shader) clock"},
    {"clocks.current.sm", {"clocks.sm"}, "MHz", QS_NUMBER, M_CLOCK_SM, "Current SM clock"},
    {"clocks.current.memory", {"clocks.mem"}, "MHz", QS_NUMBER, M_CLOCK_MEM, "Current memory clock"},
    {"clocks.max.graphics", {"clocks.max.gr"}, "MHz", QS_NUMBER, M_CLOCK_MAX_GR, "Maximum graphics clock"},
    {"clocks.max.sm", {NULL}, "MHz", QS_NUMBER, M_CLOCK_MAX_SM, "Maximum SM clock"},
    {"clocks.max.memory", {"clocks.max.mem"}, "MHz", QS_NUMBER, M_CLOCK_MAX_MEM, "Maximum memory clock"},
};
const size_t query_gpu_nfields = sizeof query_gpu_fields / sizeof query_gpu_fields[0];

const struct query_app_field_row query_app_fields[QA_COUNT] = {
    [QA_PID] = {"pid", {NULL}, "", "Process id of the compute application"},
    [QA_NAME] = {"process_name", {"name"}, "", "Process name"},
    [QA_MEMORY] = {"used_gpu_memory", {"used_memory"}, "MiB", "GPU memory used by the process"},
    [QA_GPU_UUID] = {"gpu_uuid", {NULL}, "", "UUID of the GPU the process runs on"},
    [QA_GPU_BUS_ID] = {"gpu_bus_id", {NULL}, "", "PCI bus id of the GPU the process runs on"},
    [QA_GPU_NAME] = {"gpu_name", {NULL}, "", "Name of the GPU the process runs on"},
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
        if (query_name_is(name, query_gpu_fields[i].name, query_gpu_fields[i].aliases, 3)) {
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
