/*
 * logread_int.h: what the log reader's files share: walking a cJSON tree
 * without calling into the library (its node struct and type flags are
 * public; the library itself is loaded on first use), and the step records'
 * parser (logread_steps.c).
 */
#ifndef GPUMON_LOGREAD_INT_H
#define GPUMON_LOGREAD_INT_H

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include "lazylib.h"
#include "record.h"

/* Walking a parsed tree: cJSON's node struct and type flags are public, so
 * these need no call into the library (which is loaded on first use). */
static inline bool logread_is(const cJSON *j, int type)
{
    return j && (j->type & 0xff) == type;
}

/* The member key of object obj (exact case), or NULL. */
static inline const cJSON *logread_item(const cJSON *obj, const char *key)
{
    if (!logread_is(obj, cJSON_Object))
        return NULL;
    for (const cJSON *j = obj->child; j; j = j->next)
        if (j->string && !strcmp(j->string, key))
            return j;
    return NULL;
}

static inline const char *logread_str(const cJSON *j)
{
    return logread_is(j, cJSON_String) ? j->valuestring : NULL;
}

static inline size_t logread_count(const cJSON *arr)
{
    size_t n = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next)
        n++;
    return n;
}

static inline int logread_int(const cJSON *j, long long *out)
{
    if (!logread_is(j, cJSON_Number) || j->valuedouble != floor(j->valuedouble) ||
        fabs(j->valuedouble) > 9.007199254740992e15)
        return -1;
    *out = (long long)j->valuedouble;
    return 0;
}

/* Parses "steps" (absent: none) into rec, the entries kept in store[RECORD_MAX_RANKS]. Returns 0, or -1 with a message. */
int logread_steps(struct record_rank *store, const cJSON *arr, struct record *rec, char *err, size_t errlen);

#endif
