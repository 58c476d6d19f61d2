/*
 * logread_steps.c: the "steps" of a log record (docs/steps-channel.md, "In
 * the log") back into record_rank structs: every entry is checked (ids,
 * counts, times from 0 to a year, histogram bins), a repeated pid refused,
 * the first RECORD_MAX_RANKS kept.
 */
#include <stdio.h>
#include "logread_int.h"

/* A time in seconds: a number from 0 to a year (more is not an interval's), else NAN. */
static double logread_num(const cJSON *j)
{
    return logread_is(j, cJSON_Number) && j->valuedouble >= 0 && j->valuedouble <= 3.2e7 ? j->valuedouble : NAN;
}

/* -1 for null or absent (the job did not say), else an integer from 0. */
static int logread_id(const cJSON *j, bool *ok)
{
    long long v;
    if (!j || logread_is(j, cJSON_NULL))
        return -1;
    if (logread_int(j, &v) != 0 || v < 0 || v > 0x7fffffff)
        *ok = false;
    return *ok ? (int)v : -1;
}

static int logread_rank(const cJSON *o, struct record_rank *k, char *err, size_t errlen)
{
    static const char *const phases[] = {"none", "wait", "compute", "out"};
    static const char *const sums[] = {"step_s", "wait_s", "in_wait_s", "in_compute_s"};
    double *const sumv[] = {&k->step_s, &k->wait_s, &k->in_wait_s, &k->in_compute_s};
    static const char *const counts[] = {"n", "batches", "waited"};
    unsigned *const countv[] = {&k->steps, &k->batches, &k->waited};
    long long v;
    bool ok = true;
    memset(k, 0, sizeof *k);
    if (!logread_is(o, cJSON_Object) || logread_int(logread_item(o, "pid"), &v) != 0 || v <= 0 || v > 0x7fffffff) {
        snprintf(err, errlen, "needs an integer \"pid\"");
        return -1;
    }
    k->pid = (int)v;
    k->rank = logread_id(logread_item(o, "rank"), &ok);
    k->local_rank = logread_id(logread_item(o, "local_rank"), &ok);
    k->world = logread_id(logread_item(o, "world_size"), &ok);
    const char *ph = logread_str(logread_item(o, "phase"));
    for (unsigned i = 0; ph && i < 4; i++)
        if (!strcmp(ph, phases[i]))
            k->phase = (uint8_t)i;
    for (int i = 0; i < 3 && ok; i++)
        ok = logread_int(logread_item(o, counts[i]), &v) == 0 && v >= 0 && v <= 0xffffffffll &&
             ((*countv[i] = (unsigned)v), true);
    for (int i = 0; i < 4 && ok; i++)
        ok = !isnan(*sumv[i] = logread_num(logread_item(o, sums[i])));
    const cJSON *uw = logread_item(o, "unwait_s");   /* absent: none */
    k->unwait_s = uw ? logread_num(uw) : 0;
    ok = ok && !isnan(k->unwait_s);
    const cJSON *dr = logread_item(o, "dropped"), *bd = logread_item(o, "bad");
    k->dropped = logread_is(dr, cJSON_Number) && dr->valuedouble > 0 && dr->valuedouble < 1.8e19
                 ? (unsigned long long)dr->valuedouble : 0;
    k->bad = logread_is(bd, cJSON_Number) && bd->valuedouble > 0 && bd->valuedouble < 1.8e19
             ? (unsigned long long)bd->valuedouble : 0;
    if (!ok || k->waited > k->steps) {
        snprintf(err, errlen, "needs ids that are null or integers from 0, and counts (n >= waited, batches) and "
                 "times in seconds (step_s, wait_s, in_wait_s, in_compute_s) that are numbers from 0 to a year");
        return -1;
    }
    const cJSON *h = logread_item(o, "hist"), *pair;
    if (h && !logread_is(h, cJSON_Array)) {
        snprintf(err, errlen, "\"hist\" is not an array");
        return -1;
    }
    cJSON_ArrayForEach(pair, h) {
        long long bin, n;
        if (!logread_is(pair, cJSON_Array) || logread_count(pair) != 2 || logread_int(pair->child, &bin) != 0 ||
            logread_int(pair->child->next, &n) != 0 || bin < 0 || bin >= RECORD_STEP_NBINS || n < 0 ||
            n > 0xffffffffll) {
            snprintf(err, errlen, "\"hist\" holds [bin, count] pairs, bin 0 to %d", RECORD_STEP_NBINS - 1);
            return -1;
        }
        if (k->nbins < RECORD_STEP_BINS) {
            k->bins[k->nbins].bin = (uint16_t)bin;
            k->bins[k->nbins++].n = (uint32_t)n;
        }
    }
    return 0;
}

/* "steps": the training processes' figures (gpumon run); absent in other logs. */
int logread_steps(struct record_rank *store, const cJSON *arr, struct record *rec, char *err, size_t errlen)
{
    const cJSON *o;
    size_t i = 0;
    if (!arr)
        return 0;
    if (!logread_is(arr, cJSON_Array)) {
        snprintf(err, errlen, "\"steps\" is not an array");
        return -1;
    }
    cJSON_ArrayForEach(o, arr) {   /* every entry is checked; the first RECORD_MAX_RANKS are kept */
        char e[256];
        struct record_rank k;
        if (logread_rank(o, &k, e, sizeof e) != 0) {
            snprintf(err, errlen, "steps[%zu] %s", i, e);
            return -1;
        }
        for (unsigned j = 0; j < rec->nranks; j++)
            if (store[j].pid == k.pid) {
                snprintf(err, errlen, "steps[%zu] repeats the pid %d of steps[%u]", i, k.pid, j);
                return -1;
            }
        if (rec->nranks < RECORD_MAX_RANKS)
            store[rec->nranks++] = k;
        i++;
    }
    rec->ranks = rec->nranks ? store : NULL;
    return 0;
}

