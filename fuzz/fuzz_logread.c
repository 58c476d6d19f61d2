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
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_util.h"
#include "logread.h"
#include "metrics.h"
#include "stepstat.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    struct logread *lr;
    struct record rec;
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';

    /* line by line, through the direct entry point */
    if (logread_open(&lr, "/dev/null", err, sizeof err) != 0)
        fuzz_util_die("cannot open /dev/null: %s", err);
    struct stepstat *ss = stepstat_new(30);
    for (size_t at = 0; at < size;) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
        err[0] = '\0';
        if (logread_parse(lr, (const char *)data + at, len, &rec, err, sizeof err) == 0) {
            if (rec.ngpus > len / 2 + 1)
                fuzz_util_die("%u GPUs from a line of %zu bytes", rec.ngpus, len);
            fuzz_logread_check(&rec);
            fuzz_logread_steps(ss, &rec);
        } else if (!err[0]) {
            fuzz_util_die("a refused line without a message");
        }
        at += len + 1;
    }
    stepstat_free(ss);
    logread_close(lr);

    /* the whole input as a file, through the reader thread */
    int fd = memfd_create("log", 0);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
        fuzz_util_die("memfd");
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (logread_open(&lr, path, err, sizeof err) != 0)
        fuzz_util_die("cannot open the memfd: %s", err);
    size_t n = 0;
    int rc;
    while ((rc = logread_next(lr, &rec, err, sizeof err)) == 1) {
        fuzz_logread_check(&rec);
        if (++n > lines)
            fuzz_util_die("%zu records from %zu lines", n, lines);
    }
    if (rc != 0 && rc != -1)
        fuzz_util_die("logread_next returned %d", rc);
    if (logread_next(lr, &rec, err, sizeof err) != rc)
        fuzz_util_die("a call after the end did not repeat it");
    logread_close(lr);
    close(fd);
    return 0;
}
