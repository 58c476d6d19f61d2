/*
 * cmd_report.c: `gpumon report LOG.jsonl -o report.html`: the HTML report
 * of a recorded log. Wires logread to the diagnosis session (verdicts and
 * their changes) and to the report's bounded time buckets (report*.c), one
 * pass over the log, then writes the page.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "diag.h"
#include "exitcodes.h"
#include "logread.h"
#include "report.h"

static const char report_help[] =
    "Usage: gpumon report LOG.jsonl -o FILE.html [OPTIONS]\n"
    "Write one self-contained HTML file (no network, no external scripts or fonts) with SVG charts per\n"
    "GPU over time (utilization, memory, temperature, power, SM clock), idle and throttled stretches\n"
    "shaded, verdict changes marked on the time axis, and the verdicts with evidence and advice.\n"
    "Long logs are summarized into at most 800 time buckets per chart (min-max band and mean), in one\n"
    "streaming pass with bounded memory.\n\n"
    "  -o, --output FILE    the HTML file to write (required)\n"
    CMD_ANALYSIS_HELP
    "  -h, --help           this help\n\n"
    "Exit status: 0 written, 1 the log cannot be read or the file written, 2 usage.\n";

static void report_on_change(void *ctx, const struct diag_change *ch)
{
    report_change(ctx, ch);
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, CMD_ANALYSIS_LONGOPTS,
        {NULL, 0, NULL, 0}};
    struct cmd_analysis_opts ao;
    cmd_analysis_init(&ao);
    const char *output = NULL;
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'h': fputs(report_help, stdout); return EXIT_OK;
        case ':': return cmd_usage_error("report", "option %s needs a value", argv[optind - 1]);
        case '?': return cmd_usage_error("report", "unknown option %s", argv[optind - 1]);
        default:
            if ((rc = cmd_analysis_option("report", &ao, c, optarg)) != 1)
                return rc ? rc : cmd_usage_error("report", "unknown option %s", argv[optind - 1]);
        }
    }
    if (ao.list_rules) {
        rules_print(&ao.cfg);
        return EXIT_OK;
    }
    if (optind >= argc)
        return cmd_usage_error("report", "give the log to read: gpumon report LOG.jsonl -o FILE.html");
    if (optind + 1 < argc)
        return cmd_usage_error("report", "unexpected argument \"%s\"", argv[optind + 1]);
    if (!output)
        return cmd_usage_error("report", "give the file to write with -o FILE.html");

    const char *path = argv[optind];
    char err[1024];
    struct logread *lr;
    if (logread_open(&lr, path, err, sizeof err) != 0) {
        fprintf(stderr, "gpumon report: %s\n", err);
        return EXIT_RUNTIME;
    }
    struct report *rp = report_new();
    struct diag *d = diag_new(&ao.cfg, report_on_change, rp);
    struct record rec;
    int got;
    while ((got = logread_next(lr, &rec, err, sizeof err)) == 1) {
        report_feed(rp, &rec);
        diag_feed(d, &rec);
    }
    rc = EXIT_OK;
    if (got < 0) {
        fprintf(stderr, "gpumon report: %s\n", err);
        rc = EXIT_RUNTIME;
    } else {
        if (logread_warning(lr))
            fprintf(stderr, "gpumon report: warning: %s\n", logread_warning(lr));
        diag_finish(d);
        char source[1200];
        snprintf(source, sizeof source, "Log %s", path);
        if (report_write(rp, d, output, source, err, sizeof err) != 0) {
            fprintf(stderr, "gpumon report: %s\n", err);
            rc = EXIT_RUNTIME;
        }
    }
    diag_free(d);
    report_free(rp);
    logread_close(lr);
    return rc;
}
