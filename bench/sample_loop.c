/*
 * sample_loop.c: gpumon's own CPU per sample, without the wake-ups: the
 * sampler and a sink (what `gpumon watch` runs per sample) called back to
 * back, on the stand-in NVML whose calls cost nothing (bench/nvml_free.c),
 * every metric, the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) taken
 * around whole loops. Prints, per format, nanoseconds per sample for
 * sampling alone and for sampling with formatting, each the least of
 * ROUNDS rounds (what the machine's noise adds is never less).
 * Usage: sample_loop NVML_LIBRARY [SAMPLES] [ROUNDS]   (bench/sample_cost.py runs it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "nvml.h"
#include "sampler.h"
#include "sink.h"
#include "util.h"

static double thread_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Nanoseconds per sample of n samples, formatted by sink (NULL: sampling alone). */
static double loop(struct sampler *smp, const struct sink *sk, int n)
{
    struct record rec = {0};
    struct sbuf b;
    sbuf_init(&b);
    double t0 = thread_ns();
    for (int i = 0; i < n; i++) {
        sampler_sample(smp, &rec);
        if (sk) {
            sk->ops->record(sk, &rec, &b);
            sbuf_reset(&b);
        }
    }
    double ns = (thread_ns() - t0) / n;
    sbuf_free(&b);
    return ns;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NVML_LIBRARY [SAMPLES] [ROUNDS]\n", argv[0]);
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 20000, rounds = argc > 3 ? atoi(argv[3]) : 5;
    struct nvml_failure why;
    if (nvml_open(argv[1], &why) != 0) {
        fprintf(stderr, "%s\n", why.message);
        return 1;
    }
    enum metric_id ids[METRIC_COUNT];
    for (int i = 0; i < METRIC_COUNT; i++)
        ids[i] = (enum metric_id)i;
    struct sampler_opts so = {ids, METRIC_COUNT, NULL, 1000, true, 0, NULL};
    struct sampler *smp;
    char err[512];
    if (sampler_open(&smp, &so, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const struct sink_ops *ops[] = {&sink_jsonl, &sink_csv, &sink_text};
    double best[4];
    for (int k = 0; k < 4; k++)
        best[k] = 1e300;
    loop(smp, NULL, n / 10 + 1);   /* warm: GPM and PCIe pairs taken, buffers grown */
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 4; k++) {
            struct sink sk = {k ? ops[k - 1] : NULL, ids, METRIC_COUNT, false, k == 1, 0};
            double ns = loop(smp, k ? &sk : NULL, n);
            best[k] = ns < best[k] ? ns : best[k];
        }
    }
    printf("sample %.0f\n", best[0]);
    for (int k = 1; k < 4; k++)
        printf("%s %.0f\n", ops[k - 1]->name, best[k]);
    sampler_close(smp);
    nvml_close();
    return 0;
}
