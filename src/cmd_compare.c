/*
 * cmd_compare.c: `gpumon compare A.jsonl B.jsonl`: two recorded runs side
 * by side (before and after a fix, two configurations), each figure with
 * its verdict, as text or one JSON object (compare.c judges; this file
 * reads the logs and prints). cmd_compare_load is also run's --baseline.
 */
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "compare.h"
#include "exitcodes.h"
#include "logread.h"

enum { C_FORMAT = 1 };

static const struct opt compare_opts[] = {
    {"format", "f", "FMT", C_FORMAT, "text (default: a table and a summary line) or json"},
    {NULL, NULL, NULL, 0, NULL},
};

const struct cmd_entry cmd_compare_entry = {
    .name = "compare",
    .usage = "A.jsonl B.jsonl [OPTIONS]",
    .summary = "two recorded runs side by side: did the fix work? (gpumon compare A.jsonl B.jsonl)",
    .about = "Compare two JSON Lines logs (gpumon run --output, or watch --format jsonl): A is the baseline\n"
             "(before), B the run to judge (after). For each figure (duration, steps per second, step time p50\n"
             "and p95, the loop's input-wait share, utilization, SM and tensor-core activity (GPM), energy per\n"
             "step) the values of both runs, the change (B/A, or B-A in points for a share) with its 95%\n"
             "interval, and a verdict: better, worse, or no clear change. Changes are judged against each run's\n"
             "own noise: a bootstrap over runs of consecutive records (the step-time test is the interval of\n"
             "the ratio of the medians), and a change must also reach 5% (5 points for a share) to count, so\n"
             "two runs of the same job come out \"no clear change\". Step figures need a job that reports its\n"
             "steps (python/gpumon under gpumon run). Logs may be zstd-compressed; - reads standard input.",
    .opts = (const struct opt *const[]){compare_opts, NULL},
    .notes = "Exit status: 0 compared (whatever the verdicts), 1 a log cannot be read, has a malformed line or\n"
             "holds no records, 2 usage.",
    .signals = (const int[]){0},
    .exec = cmd_compare,
};

static int compare_set(void *ctx, int key, const char *v)
{
    bool *json = ctx;
    if (key != C_FORMAT)
        return EXIT_USAGE;
    if (strcmp(v, "text") && strcmp(v, "json"))
        return opt_usage_error("compare", "--format: unknown format \"%.200s\" (choose text or json)", v);
    *json = !strcmp(v, "json");
    return 0;
}

int cmd_compare_load(const char *cmd, const char *path, struct compare_run **out)
{
    char err[1024];
    struct logread *lr;
    struct record rec;
    int got;
    *out = NULL;
    if (logread_open(&lr, path, err, sizeof err) != 0) {
        fprintf(stderr, "gpumon %s: %s\n", cmd, err);
        return EXIT_RUNTIME;
    }
    struct compare_run *r = compare_run_new();
    memset(&rec, 0, sizeof rec);
    while ((got = logread_next(lr, &rec, err, sizeof err)) == 1)
        compare_run_feed(r, &rec);
    compare_run_finish(r);
    if (got < 0)
        fprintf(stderr, "gpumon %s: %s\n", cmd, err);
    else if (compare_run_records(r) == 0)
        fprintf(stderr, "gpumon %s: %s holds no records\n", cmd, path);
    if (got == 0 && logread_warning(lr))
        fprintf(stderr, "gpumon %s: warning: %s\n", cmd, logread_warning(lr));
    const char *skipped = got == 0 ? logread_skipped(lr) : NULL;
    if (skipped)
        fprintf(stderr, "gpumon %s: warning: %s\n", cmd, skipped);
    logread_close(lr);
    if (got < 0 || compare_run_records(r) == 0) {
        compare_run_free(r);
        return EXIT_RUNTIME;
    }
    *out = r;
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    bool json = false;
    int first, rc = opt_parse(&cmd_compare_entry, argc, argv, compare_set, &json, &first);
    if (rc != 0)
        return rc == OPT_DONE ? EXIT_OK : rc;
    if (argc - first != 2)
        return opt_usage_error("compare", "give two logs: gpumon compare A.jsonl B.jsonl (A the baseline)");
    const char *pa = argv[first], *pb = argv[first + 1];
    if (!strcmp(pa, "-") && !strcmp(pb, "-"))
        return opt_usage_error("compare", "\"-\" (standard input) can be one of the logs, not both");
    struct compare_run *a = NULL, *b = NULL;
    if ((rc = cmd_log_reader("compare")) != 0)
        return rc;
    if ((rc = cmd_compare_load("compare", pa, &a)) != 0 || (rc = cmd_compare_load("compare", pb, &b)) != 0) {
        compare_run_free(a);
        return rc;
    }
    struct compare_result res;
    struct sbuf out;
    compare_runs(a, b, &res);
    sbuf_init(&out);
    if (json)
        compare_json(&res, pa, pb, &out);
    else
        compare_text(&res, pa, pb, &out);
    fputs(out.data ? out.data : "", stdout);
    sbuf_free(&out);
    compare_run_free(a);
    compare_run_free(b);
    return EXIT_OK;
}
