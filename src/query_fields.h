/*
 * query_fields.h: nvidia-smi's --query-gpu and --query-compute-apps field
 * names, mapped onto gpumon's metric table. Each row names the field as
 * nvidia-smi prints it in headers, its aliases, the unit nvidia-smi shows,
 * how the value is spelled, and which metric holds it (or a field of the
 * query itself: timestamp, count). This table drives field parsing,
 * --help-query-gpu and formatting; the values still come from the one
 * metric table through records.
 */
#ifndef GPUMON_QUERY_FIELDS_H
#define GPUMON_QUERY_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include "metrics.h"

enum query_style {
    QS_NUMBER,      /* integer, then " unit" unless nounits */
    QS_WATTS,       /* two decimals, then " W" */
    QS_TEXT,        /* a string as it is */
    QS_PSTATE,      /* P0 ... P15 */
    QS_MASK,        /* 0x%016llx */
    QS_ACTIVE,      /* Active / Not Active */
    QS_YESNO,       /* Yes / No */
    QS_TIMESTAMP,   /* YYYY/MM/DD HH:MM:SS.mmm, local time */
    QS_COUNT,       /* number of GPUs */
};

struct query_field {
    const char *name;           /* printed in headers */
    const char *aliases[3];
    const char *unit;           /* "" when nvidia-smi prints none */
    enum query_style style;
    enum metric_id metric;      /* unused for QS_TIMESTAMP and QS_COUNT */
    const char *help;
};

extern const struct query_field query_gpu_fields[];
extern const size_t query_gpu_nfields;

/* Compute-apps fields. */
enum query_app_field { QA_PID, QA_NAME, QA_MEMORY, QA_GPU_UUID, QA_GPU_BUS_ID, QA_GPU_NAME, QA_COUNT };
struct query_app_field_row {
    const char *name;
    const char *aliases[2];
    const char *unit;
    const char *help;
};
extern const struct query_app_field_row query_app_fields[QA_COUNT];

/* Parses a comma-separated list into row pointers (gpu) or indices (apps).
 * Returns the count; -1 with the offending name in bad; or QUERY_TOO_MANY
 * when the list holds more than max fields. */
#define QUERY_TOO_MANY (-2)
int query_parse_gpu_fields(const char *list, const struct query_field **out, int max, char *bad, size_t badlen);
int query_parse_app_fields(const char *list, enum query_app_field *out, int max, char *bad, size_t badlen);

#endif
