/*
 * fuzz_logread.c: the JSON Lines log reader that diagnose and report use
 * (src/logread.c). Each input is a log: it is parsed line by line through
 * logread_parse(), then read whole through the threaded reader
 * (logread_open/next on a memfd), so torn last lines, empty lines, CRLF and
 * bad lines in the middle all run. The contract is checked: a record has
 * at most as many GPUs as the line can hold, every value's state is one
 * of the known ones and a string value is NUL-terminated; an error has a
 * message; the reader ends (0 or -1) and never returns more records than
 * the input has lines. Step records keep their bounds (ranks, bins, counts,
 * finite times) and go through the step statistics (stepstat.c) too.
 * Where simdjson is built (FUZZ_SIMDJSON), every line is parsed a second
 * time by a reader on the simdjson path (logread_simd.h), and the reading
 * whole by both readers' threads: the two must agree on the result, the
 * message and every field of the record (logread_record_text).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_util.h"
#include "logread.h"
#include "logread_simd.h"
#include "metrics.h"
#include "stepstat.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_util_quiet();
    return 0;
}

static void fuzz_logread_check(const struct record *r)
{
    for (unsigned g = 0; g < r->ngpus; g++)
        for (int id = 0; id < METRIC_COUNT; id++) {
            const struct value *v = &r->gpus[g].v[id];
            if (v->state > VS_LOST)
                fuzz_util_die("GPU %u metric %s: state %d", g, metric_table[id].key, v->state);
            if (v->state == VS_OK && metric_table[id].kind == MK_STR && strlen(v->u.s) > (1u << 24))
                fuzz_util_die("string value too long");
        }
    if (r->hostname == NULL)
        fuzz_util_die("no hostname");
    if (r->nranks > RECORD_MAX_RANKS)
        fuzz_util_die("%u ranks", r->nranks);
    for (unsigned i = 0; i < r->nranks; i++) {
        const struct record_rank *k = &r->ranks[i];
        if (k->nbins > RECORD_STEP_BINS || k->waited > k->steps || !(k->step_s >= 0) || !(k->in_wait_s >= 0) ||
            !(k->in_compute_s >= 0) || !(k->wait_s >= 0) || k->step_s > 1e308)
            fuzz_util_die("rank %u out of bounds", i);
        for (unsigned b = 0; b < k->nbins; b++)
            if (k->bins[b].bin >= RECORD_STEP_NBINS)
                fuzz_util_die("bin %u", k->bins[b].bin);
    }
}

/* The step statistics over the parsed records (their time from the record; order not checked). */
static void fuzz_logread_steps(struct stepstat *ss, const struct record *r)
{
    double t = (double)r->time.tv_sec + r->time.tv_nsec / 1e9;
    stepstat_feed(ss, r, t);
    for (unsigned i = 0; i < stepstat_nranks(ss); i++) {
        struct stepstat_rank k;
        stepstat_rank(ss, i, t, &k);
    }
    struct stepstat_fig f;
    for (unsigned g = 0; g < r->ngpus; g++)
        stepstat_gpu(ss, r->gpus[g].index, t, &f);
}

/* A reader on the cJSON path (simd false) or the simdjson one. */
static void fuzz_logread_open(struct logread **lr, const char *path, bool simd)
{
    char err[512];
#ifdef FUZZ_SIMDJSON
    logread_simd_use(simd ? &logread_simd_table : NULL);
#else
    (void)simd;
#endif
    if (logread_open(lr, path, err, sizeof err) != 0)
        fuzz_util_die("cannot open %s: %s", path, err);
    logread_simd_use(NULL);
}

/* The two readers agree on a line (rc, message, record where there is one): else a crash with both. */
static void fuzz_logread_same(int rc1, const char *e1, const struct record *a, int rc2, const char *e2,
                              const struct record *b)
{
    struct sbuf ta, tb;
    sbuf_init(&ta);
    sbuf_init(&tb);
    if (a)
        logread_record_text(a, &ta);
    if (b)
        logread_record_text(b, &tb);
    if (rc1 != rc2 || strcmp(e1, e2) || strcmp(ta.data ? ta.data : "", tb.data ? tb.data : ""))
        fuzz_util_die("the readers differ: cJSON %d \"%s\"\n%s\nsimdjson %d \"%s\"\n%s", rc1, e1,
                      ta.data ? ta.data : "", rc2, e2, tb.data ? tb.data : "");
    sbuf_free(&ta);
    sbuf_free(&tb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    struct logread *lr, *lr2 = NULL;
    struct record rec;
    size_t lines = 1;
    bool simd = false;
#ifdef FUZZ_SIMDJSON
    simd = true;
#endif
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';

    /* line by line, through the direct entry point */
    fuzz_logread_open(&lr, "/dev/null", false);
    if (simd)
        fuzz_logread_open(&lr2, "/dev/null", true);
    struct stepstat *ss = stepstat_new(30);
    for (size_t at = 0; at < size;) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
        err[0] = '\0';
        int rc = logread_parse(lr, (const char *)data + at, len, &rec, err, sizeof err);
        if (rc == 0) {
            if (rec.ngpus > len / 2 + 1)
                fuzz_util_die("%u GPUs from a line of %zu bytes", rec.ngpus, len);
            fuzz_logread_check(&rec);
        } else if (!err[0]) {
            fuzz_util_die("a refused line without a message");
        }
        if (lr2) {
            char err2[512] = "";
            struct record rec2;
            int rc2 = logread_parse(lr2, (const char *)data + at, len, &rec2, err2, sizeof err2);
            fuzz_logread_same(rc, rc == 0 ? "" : err, rc == 0 ? &rec : NULL, rc2, rc2 == 0 ? "" : err2,
                              rc2 == 0 ? &rec2 : NULL);
        }
        if (rc == 0)
            fuzz_logread_steps(ss, &rec);
        at += len + 1;
    }
    stepstat_free(ss);
    logread_close(lr);
    if (lr2)
        logread_close(lr2);

    /* the whole input as a file, through the reader thread */
    int fd = memfd_create("log", 0);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
        fuzz_util_die("memfd");
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fuzz_logread_open(&lr, path, false);
    lr2 = NULL;
    if (simd)
        fuzz_logread_open(&lr2, path, true);
    size_t n = 0;
    int rc;
    for (;;) {
        err[0] = '\0';
        rc = logread_next(lr, &rec, err, sizeof err);
        if (lr2) {   /* the simdjson reader's thread, record for record */
            char err2[512] = "";
            struct record rec2;
            int rc2 = logread_next(lr2, &rec2, err2, sizeof err2);
            fuzz_logread_same(rc, rc < 0 ? err : "", rc == 1 ? &rec : NULL, rc2, rc2 < 0 ? err2 : "",
                              rc2 == 1 ? &rec2 : NULL);
        }
        if (rc != 1)
            break;
        fuzz_logread_check(&rec);
        if (++n > lines)
            fuzz_util_die("%zu records from %zu lines", n, lines);
    }
    if (rc != 0 && rc != -1)
        fuzz_util_die("logread_next returned %d", rc);
    if (logread_next(lr, &rec, err, sizeof err) != rc)
        fuzz_util_die("a call after the end did not repeat it");
    if (lr2 && (logread_warning(lr) ? !logread_warning(lr2) || strcmp(logread_warning(lr), logread_warning(lr2))
                                    : logread_warning(lr2) != NULL))
        fuzz_util_die("the readers' warnings differ");
    logread_close(lr);
    if (lr2)
        logread_close(lr2);
    close(fd);
    return 0;
}
