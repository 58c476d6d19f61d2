/*
 * query_fields.h: nvidia-smi's --query-gpu and --query-compute-apps fields.
 *
 * query_gpu_fields (query_table.c) is the master copy of the GPU fields:
 * one row per field of `nvidia-smi --help-query-gpu` (drivers 590 to 610),
 * with the name nvidia-smi prints in headers, its aliases, the unit, how the
 * value is spelled, where it comes from (a row of the metric table, a
 * per-GPU attribute of gpu_attr.h, the query itself, or a fixed text where
 * gpumon reads no NVML source for it: what nvidia-smi prints when it cannot
 * tell), and the help line. Parsing, --help-query-gpu and the formatting
 * (query_format.c) all walk it.
 */
#ifndef GPUMON_QUERY_FIELDS_H
#define GPUMON_QUERY_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include "gpu_attr.h"
#include "metrics.h"

enum query_style {
    QS_INT,           /* integer, then " unit" unless nounits */
    QS_WATTS,         /* two decimals, then " W" */
    QS_TEXT,          /* a string as it is */
    QS_PSTATE,        /* P0 ... P15 */
    QS_MASK,          /* 0x%016llX */
    QS_HEX2,          /* 0x%02X */
    QS_HEX4,          /* 0x%04X */
    QS_HEX8,          /* 0x%08X */
    QS_ACTIVE,        /* Active / Not Active */
    QS_YESNO,         /* Yes / No */
    QS_ENABLED,       /* Enabled / Disabled */
    QS_COMPUTE_MODE,  /* Default, Exclusive_Thread, Prohibited, Exclusive_Process */
    QS_DRIVER_MODEL,  /* WDDM, TCC, MCDM */
};

enum query_source {
    QSRC_METRIC,      /* id is an enum metric_id: the record's value */
    QSRC_ATTR,        /* id is an enum gpu_attr_id: sampler_attrs() */
    QSRC_FIXED,       /* gpumon reads no source: prints na */
    QSRC_TIMESTAMP,   /* the record's time, YYYY/MM/DD HH:MM:SS.mmm, local */
    QSRC_COUNT,       /* the number of GPUs NVML reports */
};

struct query_field {
    const char *name;           /* printed in headers */
    const char *aliases[2];
    const char *unit;           /* "" when nvidia-smi prints none */
    enum query_style style;
    enum query_source source;
    int id;
    const char *na;             /* QSRC_FIXED: the text; else an unsupported value's text (NULL: "[N/A]") */
    const char *help;
};

extern const struct query_field query_gpu_fields[];
extern const size_t query_gpu_nfields;

/* Compute-apps fields, in the order of --help-query-compute-apps. */
enum query_app_field {
    QA_TIMESTAMP, QA_GPU_NAME, QA_GPU_BUS_ID, QA_GPU_SERIAL, QA_GPU_UUID, QA_PID, QA_NAME, QA_MEMORY, QA_COUNT
};
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
