/*
 * cmd_report.c: `gpumon report LOG.jsonl -o report.html`: the HTML report
 * of a recorded log. Wires logread to the diagnosis session (verdicts and
 * their changes) and to the report's bounded time buckets (report*.c), one
 * pass over the log, then writes the page.
 */
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "diag.h"
#include "exitcodes.h"
#include "logread.h"
#include "report.h"
#include "wfile.h"

enum { P_OUTPUT = 1 };

static const struct opt report_opts[] = {
    {"output", "o", "FILE", P_OUTPUT, "the HTML file to write (required)"},
    {NULL, NULL, NULL, 0, NULL},
};

const struct cmd_entry cmd_report_entry = {
    .name = "report",
    .usage = "LOG.jsonl -o FILE.html [OPTIONS]",
    .summary = "an HTML report with charts and verdicts (gpumon report LOG.jsonl -o FILE.html)",
    .about = "Write one self-contained HTML file (no network, no external scripts or fonts): first where the\n"
             "GPU time went (the ledger, a stacked bar for the job and one per GPU), the verdicts grouped with\n"
             "evidence and advice, the steps and each GPU's figures; then one SVG chart per metric over time\n"
             "(utilization, GPM activity, steps, memory, temperature, power, SM clock) with all GPUs overlaid\n"
             "(small multiples past 8), verdict changes marked on the time axis.\n"
             "Long logs are summarized into at most 800 time buckets per chart (min-max band and mean), in one\n"
             "streaming pass with bounded memory. LOG may be - for standard input, and may be zstd-compressed.",
    .opts = (const struct opt *const[]){report_opts, cmd_analysis_opts, cmd_cost_opts, NULL},
    .notes = "Exit status: 0 written, 1 the log cannot be read, holds no records, or the file cannot be\n"
             "written, 2 usage (among them -o naming the log itself).",
    .signals = (const int[]){0},
    .exec = cmd_report,
};

struct report_opts {
    const char *output;
    struct cmd_analysis_opts ao;
};

static int report_set(void *ctx, int key, const char *v)
{
    struct report_opts *o = ctx;
    if (key != P_OUTPUT)
        return cmd_analysis_option("report", &o->ao, key, v);
    return cmd_parse_output("report", "--output", v, &o->output);
}

static void report_on_change(void *ctx, const struct diag_change *ch)
{
    report_change(ctx, ch);
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o = {.output = NULL};
    cmd_analysis_init(&o.ao);
    int first, rc = opt_parse(&cmd_report_entry, argc, argv, report_set, &o, &first);
    if (rc != 0)
        return rc == OPT_DONE ? EXIT_OK : rc;
    if ((rc = cmd_analysis_ready("report", &o.ao)) != 0)
        return rc;
    if (o.ao.list_rules) {
        rules_print(&o.ao.cfg);
        return EXIT_OK;
    }
    if (first >= argc)
        return opt_usage_error("report", "give the log to read: gpumon report LOG.jsonl -o FILE.html");
    if (first + 1 < argc)
        return opt_usage_error("report", "unexpected argument \"%.200s\"", argv[first + 1]);
    if (!o.output)
        return opt_usage_error("report", "give the file to write with -o FILE.html");
    const char *output = o.output;
    const char *path = argv[first];
    char err[1024];
    struct logread *lr;
    if (cmd_same_file(path, output))
        return opt_usage_error("report", "-o %.200s is the log it reads: the report would replace it", output);
    if (wfile_check(output, err, sizeof err) != 0) {   /* before reading what may be a long log */
        fprintf(stderr, "gpumon report: %s\n", err);
        return EXIT_RUNTIME;
    }
    rc = cmd_log_reader("report");
    if (rc != 0)
        return rc;
    if (logread_open(&lr, path, err, sizeof err) != 0) {
        fprintf(stderr, "gpumon report: %s\n", err);
        return EXIT_RUNTIME;
    }
    struct report *rp = report_new();
    struct diag *d = diag_new(&o.ao.cfg, report_on_change, rp);
    diag_set_cost(d, o.ao.gpu_hour_cost);
    struct record rec;
    int got;
    unsigned long long records = 0;
    while ((got = logread_next(lr, &rec, err, sizeof err)) == 1) {
        diag_feed(d, &rec);
        report_feed(rp, d, &rec);
        records++;
    }
    rc = EXIT_OK;
    if (got < 0) {
        fprintf(stderr, "gpumon report: %s\n", err);
        rc = EXIT_RUNTIME;
    } else if (records == 0) {
        if (logread_warning(lr))
            fprintf(stderr, "gpumon report: warning: %s\n", logread_warning(lr));
        fprintf(stderr, "gpumon report: the log holds no records: no report written\n");
        rc = EXIT_RUNTIME;
    } else {
        if (logread_warning(lr))
            fprintf(stderr, "gpumon report: warning: %s\n", logread_warning(lr));
        if (logread_skipped(lr))
            fprintf(stderr, "gpumon report: warning: %s\n", logread_skipped(lr));
        diag_finish(d);
        char source[1200];
        snprintf(source, sizeof source, "Log %s", path);
        size_t size = 0;
        if (report_write(rp, d, output, source, &size, err, sizeof err) != 0) {
            fprintf(stderr, "gpumon report: %s\n", err);
            rc = EXIT_RUNTIME;
        } else {
            fprintf(stderr, "gpumon report: wrote %s (%.1f kB, %u GPU%s)\n", output, size / 1000.0,
                    report_ngpus(rp), report_ngpus(rp) == 1 ? "" : "s");
        }
    }
    diag_free(d);
    report_free(rp);
    logread_close(lr);
    return rc;
}
