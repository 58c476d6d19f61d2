/*
 * fuzz_logread.c: the JSON Lines log reader that diagnose and report use
 * (src/logread.c). Each input is a log: it is parsed line by line through
 * logread_parse(), then read whole through the threaded reader
 * (logread_open/next on a memfd), so torn last lines, empty lines, CRLF and
 * bad lines in the middle all run. The contract is checked: a record has
 * at most as many GPUs as the line can hold, every value's state is one
 * of the known ones and a string value is NUL-terminated; an error has a
 * message; the reader ends (0 or -1) and never returns more records than
 * the input has lines.
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
    for (size_t at = 0; at < size;) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
        err[0] = '\0';
        if (logread_parse(lr, (const char *)data + at, len, &rec, err, sizeof err) == 0) {
            if (rec.ngpus > len / 2 + 1)
                fuzz_util_die("%u GPUs from a line of %zu bytes", rec.ngpus, len);
            fuzz_logread_check(&rec);
        } else if (!err[0]) {
            fuzz_util_die("a refused line without a message");
        }
        at += len + 1;
    }
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
