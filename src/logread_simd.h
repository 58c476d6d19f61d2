/*
 * logread_simd.h: the log reader's fast path. Where simdjson is found at
 * build time (CMakeLists.txt, GPUMON_SIMDJSON), logread_simd.cpp, the one
 * C++ file of gpumon, parses a line with simdjson's DOM parser (validating
 * all of it, as cJSON does) and fills the same record as the cJSON
 * path. It answers only when the result is certainly the same: on any error
 * or anything the two parsers might read differently (a number of 64 or
 * more characters, a trailing CR, an integer -0 where a float's sign would
 * survive, nesting over 64 levels), it declines and the cJSON path reads
 * the line, so messages and edge cases stay cJSON's. Conversions of values
 * (kinds, ranges, the errors map) are C functions both paths call
 * (logread_convert below, logread_value.c).
 *
 * gpumon loads it on first use as the module gpumon-simdjson.so (so no
 * other command maps libstdc++ and simdjson); the tests and fuzz harnesses
 * link it and call logread_simd_use() themselves.
 */
#ifndef GPUMON_LOGREAD_SIMD_H
#define GPUMON_LOGREAD_SIMD_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "record.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOGREAD_SIMD_PAD 64   /* readable bytes a line needs after its end (simdjson's padding) */

/* Where one parsed record's parts live (a slot of the reader's ring): valid until its next parse. */
struct logread_simd_out {
    struct record_gpu *gpus;      /* grown with realloc by the parser */
    unsigned gcap;
    struct record_rank *ranks;    /* RECORD_MAX_RANKS, the caller's */
    char *strs;                   /* the record's strings: at least the line's length + 1 bytes */
};

struct logread_simd;              /* a parser: one per thread that parses */

struct logread_simd_ops {
    const char *version;          /* GPUMON_VERSION of the build it came from */
    size_t record_size, gpu_size, rank_size;   /* the layout it was built for */
    const char *(*library)(void); /* "simdjson 3.0.1 (icelake)" */
    struct logread_simd *(*open)(void);
    void (*close)(struct logread_simd *p);
    /* Parses line (len bytes, NUL after them and LOGREAD_SIMD_PAD readable bytes after that) into rec
     * and out. Returns 1 with the record cJSON's path would read, 0 to leave the line to that path. */
    int (*parse)(struct logread_simd *p, const char *line, size_t len, struct logread_simd_out *out,
                 struct record *rec);
};

/* The module's table (logread_simd.cpp; dlsym name "logread_simd_table"). */
extern const struct logread_simd_ops logread_simd_table;

/* The simdjson reader that logread_open uses from now on; NULL: cJSON only. */
void logread_simd_use(const struct logread_simd_ops *ops);
/* The one in use, or NULL. */
const struct logread_simd_ops *logread_simd_current(void);

/* What the cJSON path shares with the simdjson one, so that both convert alike (logread_value.c). */
enum logread_json { LJ_NULL, LJ_FALSE, LJ_TRUE, LJ_NUMBER, LJ_STRING, LJ_OTHER,
                   LJ_WHOLE };   /* a number known to be whole (simdjson's integers): as LJ_NUMBER, one check less */
/* Key ids besides metric ids (>= 0). */
enum { LOGREAD_KEY_EMPTY = -2, LOGREAD_KEY_UNKNOWN = -1, LOGREAD_KEY_ERRORS = -3, LOGREAD_KEY_PROCESSES = -4,
       LOGREAD_KEY_XIDS = -5, LOGREAD_KEY_JOBS = -6 };
/* The id of a key: a metric id, or one of LOGREAD_KEY_*. */
int logread_key(const char *key);
/* What a metric id is (0 for an id that is none): of the host (else of a GPU), the GPU's index, and its
 * kind (metrics.h's, as a logread_kind). */
#define LOGREAD_KF_HOST 1u
#define LOGREAD_KF_INDEX 2u
#define LOGREAD_KF_KIND(flags) (((flags) >> 4) & 7u)
enum logread_kind { LK_NONE, LK_INT, LK_FLOAT, LK_HEX, LK_STR, LK_FLAG, LK_PSTATE };
unsigned logread_key_flags(int id);
#define LOGREAD_NOT_SUPPORTED 3       /* NVML_ERROR_NOT_SUPPORTED (checked in logread_value.c) */

/* What is wrong with a value of the wrong type for a metric of this kind. */
static inline const char *logread_wrong(unsigned kind)
{
    return kind == LK_STR ? "has the wrong type for a string value"
           : kind == LK_FLAG ? "has the wrong type for a boolean value"
           : kind == LK_PSTATE ? "is not a P-state (\"P0\" to \"P15\")" : "has the wrong type for a numeric value";
}

/* Sets v from a JSON value (type t; num for a number, str for a string) of a metric with these flags.
 * Returns NULL, or what is wrong with the value ("is out of range"). The one conversion of both parsers:
 * inline, as it runs for every value of every record. */
static inline const char *logread_convert(unsigned flags, enum logread_json t, double num, const char *str,
                                          struct value *v)
{
    unsigned kind = LOGREAD_KF_KIND(flags);
    int number = t == LJ_NUMBER || t == LJ_WHOLE;
    memset(v, 0, sizeof *v);
    if (t == LJ_NULL) {
        /* the log's contract: a GPU value null without "errors" is "not supported"; a host figure that
         * is null is not known yet (CPU shares need an interval) */
        if (!(flags & LOGREAD_KF_HOST)) {
            v->state = VS_UNSUPPORTED;
            v->code = LOGREAD_NOT_SUPPORTED;
        }
        return NULL;
    }
    v->state = VS_OK;
    switch (kind) {
    case LK_FLOAT:
        if (number && !isfinite(num))
            return "is out of range";   /* 1e400: not a double */
        v->u.f = number ? num : 0;
        return number ? NULL : logread_wrong(kind);
    case LK_INT:
    case LK_HEX:
        if (!number)
            return logread_wrong(kind);
        if (!isfinite(num))
            return "is out of range";
        if (t != LJ_WHOLE && num != floor(num))
            return "is not a whole number";
        if (fabs(num) > 9.007199254740992e15)
            return "is out of range";
        v->u.i = (long long)num;
        return NULL;
    case LK_FLAG:
        v->u.i = t == LJ_TRUE;
        return t == LJ_TRUE || t == LJ_FALSE ? NULL : logread_wrong(kind);
    case LK_PSTATE: {
        char *end;
        if (t != LJ_STRING || str[0] != 'P' || str[1] < '0' || str[1] > '9')
            return logread_wrong(kind);
        v->u.i = strtol(str + 1, &end, 10);
        return *end || v->u.i > 15 ? logread_wrong(kind) : NULL;
    }
    case LK_STR:
        if (t != LJ_STRING)
            return logread_wrong(kind);
        v->u.s = str;
        return NULL;
    default:
        return logread_wrong(kind);
    }
}
/* logread_convert for metric id. */
const char *logread_scalar(int id, enum logread_json t, double num, const char *str, struct value *v);
/* The errors map: the GPU metric an entry's key names (-1: none, the entry is skipped); an entry's NVML
 * code from its text (logs of gpumon 0.1); the code applied to the value (0: nothing). */
int logread_error_metric(const char *key);
long long logread_error_text(const char *text);
void logread_error_apply(struct value *vals, int id, long long code);

#ifdef __cplusplus
}
#endif

#endif
