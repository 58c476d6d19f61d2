/*
 * logread_value.c: what the log reader's two parsers share (logread.c's
 * cJSON, logread_simd.cpp's simdjson), so that they convert alike: a key
 * to its metric id, a JSON scalar to a value of its metric's kind (ranges,
 * P-states, null as "not supported"), the errors map's NVML codes to
 * value states, RFC 3339 times; and a record written out field by field,
 * every bit of every number, for the tests and the fuzz harness that hold
 * the two parsers' records side by side.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "logread.h"
#include "logread_simd.h"
#include "metrics.h"
#include "nvml_codes.h"
#include "util.h"

/* Days from 1970-01-01 to a date of the proleptic Gregorian calendar (as timegm counts them; a day of the
 * month past the month's end runs on into the next, as timegm normalizes it). */
static long long logread_days(long long y, int m, int d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* The digits of s[at..at+n) as a number, or -1 if one is not a digit. */
static int logread_digits(const char *s, int at, int n)
{
    int v = 0;
    for (int i = at; i < at + n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

int logread_parse_time(const char *s, struct timespec *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int n = 0;
    /* every record has one: gpumon's own form read without sscanf and timegm, anything else with them */
    int y, mo = 0, d = 0, h = 0, mi = 0, se = 0;   /* in order: no byte past the string's end is read */
    bool plain = (y = logread_digits(s, 0, 4)) >= 0 && s[4] == '-' && (mo = logread_digits(s, 5, 2)) >= 0 &&
                 s[7] == '-' && (d = logread_digits(s, 8, 2)) >= 0 && s[10] == 'T' &&
                 (h = logread_digits(s, 11, 2)) >= 0 && s[13] == ':' && (mi = logread_digits(s, 14, 2)) >= 0 &&
                 s[16] == ':' && (se = logread_digits(s, 17, 2)) >= 0;
    if (plain) {
        tm.tm_year = y, tm.tm_mon = mo, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = se;
        n = 19;
    } else if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                      &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 19) {
        return -1;
    }
    long nsec = 0, scale = 100000000;
    const char *p = s + n;
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
            nsec += scale * (*p - '0');
    }
    if (strcmp(p, "Z") != 0 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    if (plain) {
        out->tv_sec = (time_t)(logread_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + se);
    } else {
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        out->tv_sec = timegm(&tm);
    }
    out->tv_nsec = nsec;
    return 0;
}

int logread_key(const char *key)
{
    const struct metric *m = metric_find(key);
    return m ? (int)m->id : !strcmp(key, "errors") ? LOGREAD_KEY_ERRORS
           : !strcmp(key, "processes") ? LOGREAD_KEY_PROCESSES : !strcmp(key, "xids") ? LOGREAD_KEY_XIDS
           : !strcmp(key, "jobs") ? LOGREAD_KEY_JOBS : LOGREAD_KEY_UNKNOWN;
}

_Static_assert(LOGREAD_NOT_SUPPORTED == NVML_ERROR_NOT_SUPPORTED, "a null GPU value is \"not supported\"");

unsigned logread_key_flags(int id)
{
    static const unsigned kinds[] = {[MK_INT] = LK_INT, [MK_FLOAT] = LK_FLOAT, [MK_HEX] = LK_HEX, [MK_STR] = LK_STR,
                                     [MK_FLAG] = LK_FLAG, [MK_PSTATE] = LK_PSTATE};
    if (id < 0 || id >= METRIC_COUNT)
        return 0;
    const struct metric *m = &metric_table[id];
    return (m->scope == MS_HOST ? LOGREAD_KF_HOST : 0) | (id == M_INDEX ? LOGREAD_KF_INDEX : 0) |
           ((unsigned)m->kind < sizeof kinds / sizeof kinds[0] ? kinds[m->kind] << 4 : 0);
}

const char *logread_scalar(int id, enum logread_json t, double num, const char *str, struct value *v)
{
    return logread_convert(logread_key_flags(id), t, num, str, v);
}

int logread_error_metric(const char *key)
{
    const struct metric *m = metric_find(key);
    return m && m->scope == MS_GPU ? (int)m->id : -1;
}

long long logread_error_text(const char *text)
{
    return nvml_code_from_text(text);   /* logs of gpumon 0.1 stored the text only */
}

void logread_error_apply(struct value *vals, int id, long long code)
{
    if (code == NVML_SUCCESS)
        return;
    vals[id] = (struct value){.state = nvml_code_is_lost((int)code) ? VS_LOST
                                       : nvml_code_is_unsupported((int)code) ? VS_UNSUPPORTED : VS_ERROR,
                              .code = (int32_t)code};
}


/* A value as text: its state and code, then its payload by its metric's kind (a float to the bit). */
static void logread_value_text(const struct value *v, int id, struct sbuf *b)
{
    sbuf_printf(b, " %s=%d/%d", metric_table[id].key, v->state, v->code);
    if (v->state != VS_OK)
        return;
    switch (metric_table[id].kind) {
    case MK_FLOAT: sbuf_printf(b, ":%a", v->u.f); break;
    case MK_STR: sbuf_printf(b, ":\"%s\"", v->u.s ? v->u.s : "(null)"); break;
    default: sbuf_printf(b, ":%lld", v->u.i); break;
    }
}

void logread_record_text(const struct record *r, struct sbuf *b)
{
    sbuf_printf(b, "time %lld.%09ld host \"%s\"\n", (long long)r->time.tv_sec, r->time.tv_nsec, r->hostname);
    for (int id = 0; id < METRIC_COUNT; id++)
        if (metric_table[id].scope == MS_HOST && r->host[id].state != VS_NONE)
            logread_value_text(&r->host[id], id, b);
    for (int id = 0; id < RECORD_MAX_METRICS; id++)   /* nothing past the table, nor of the GPUs' scope */
        if ((id >= METRIC_COUNT || metric_table[id].scope != MS_HOST) && r->host[id].state != VS_NONE)
            sbuf_printf(b, " host[%d]=%d", id, r->host[id].state);
    sbuf_printf(b, "\n%u gpus\n", r->ngpus);
    for (unsigned i = 0; i < r->ngpus; i++) {
        const struct record_gpu *g = &r->gpus[i];
        sbuf_printf(b, "gpu %u:", g->index);
        for (int id = 0; id < RECORD_MAX_METRICS; id++)
            if (id >= METRIC_COUNT ? g->v[id].state != VS_NONE : g->v[id].state != VS_NONE || g->v[id].code)
                id < METRIC_COUNT ? logread_value_text(&g->v[id], id, b) : sbuf_printf(b, " v[%d]", id);
        sbuf_printf(b, "\n procs %u (+%u)", g->nprocs, g->procs_omitted);
        for (unsigned k = 0; k < g->nprocs; k++) {
            const struct record_proc *p = &g->procs[k];
            sbuf_printf(b, " [%u %lld \"%s\" \"%s\" \"%s\" \"%s\" %u %d %d]", p->pid, p->used_mib, p->name, p->user,
                        p->container, p->pod, p->kinds, p->notebook, p->server);
        }
        sbuf_printf(b, "\n xids %u", g->nxids);
        for (unsigned k = 0; k < g->nxids; k++)
            sbuf_printf(b, " [%u %llu %lld.%09ld]", g->xids[k].code, g->xids[k].count, (long long)g->xids[k].last.tv_sec,
                        g->xids[k].last.tv_nsec);
        sbuf_printf(b, "\n jobs %u", g->njobs);
        for (unsigned k = 0; k < g->njobs; k++)
            sbuf_printf(b, " \"%s\"", g->jobs[k]);
        sbuf_puts(b, "\n");
    }
    sbuf_printf(b, "%u ranks%s\n", r->nranks, r->ranks ? "" : " (none)");
    for (unsigned i = 0; i < r->nranks; i++) {
        const struct record_rank *k = &r->ranks[i];
        sbuf_printf(b, "rank pid %d rank %d local %d world %d phase %u steps %u batches %u waited %u step %a wait %a "
                    "in_wait %a in_compute %a unwait %a dropped %llu bad %llu bins", k->pid, k->rank, k->local_rank,
                    k->world, k->phase, k->steps, k->batches, k->waited, k->step_s, k->wait_s, k->in_wait_s,
                    k->in_compute_s, k->unwait_s, k->dropped, k->bad);
        for (unsigned j = 0; j < k->nbins; j++)
            sbuf_printf(b, " %u:%u", k->bins[j].bin, k->bins[j].n);
        sbuf_puts(b, "\n");
    }
}
