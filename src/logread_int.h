/*
 * logread_int.h: what the log reader's files share: a line's tree and the
 * cJSON parse (logread_tree.c), walking a cJSON tree without calling into
 * the library (its node struct and type flags are public; the library
 * itself is loaded on first use), and the step records' parser
 * (logread_steps.c).
 */
#ifndef GPUMON_LOGREAD_INT_H
#define GPUMON_LOGREAD_INT_H

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include "lazylib.h"
#include "record.h"

#define LOGREAD_KEY_CACHE 128

struct logread_key {
    char key[64];
    int id;
};

struct logread_arena {
    char *buf;
    size_t used, cap;
    size_t overflow;                /* bytes that did not fit, this line */
};

/* One parsed line: its tree (cJSON) or its string buffer (simdjson) owns the strings its record points
 * to. */
struct logread_tree {
    cJSON *root;
    struct logread_arena arena;
    struct record_gpu *gpus;
    unsigned gcap;
    struct record_rank ranks[RECORD_MAX_RANKS];
    char *strs;                     /* the simdjson path's strings */
    size_t scap;
};

/* The key caches of one parsing thread (by position: the ids of an object's keys, logread_tree.c). */
struct logread_keys {
    struct logread_key host[LOGREAD_KEY_CACHE], gpu[LOGREAD_KEY_CACHE];
};

/* Parses line (len bytes, NUL-terminated) with cJSON into t and rec. Returns 0, or -1 with a message (no
 * file or line prefix). Two threads may parse at once, each with its own keys and tree. */
int logread_tree_parse(struct logread_keys *keys, struct logread_tree *t, const char *line, size_t len,
                       struct record *rec, char *err, size_t errlen);
/* Frees a line's tree and readies its arena for the next; logread_tree_free frees it all. */
void logread_tree_release(struct logread_tree *t);
void logread_tree_free(struct logread_tree *t);

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
