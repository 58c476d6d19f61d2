/*
 * cmd_diagnose.c: `gpumon diagnose LOG.jsonl`: the analysis of `run` on a
 * recorded log. Wires logread to a diagnosis session (diag.c) and prints
 * the verdict changes as a timeline and the summary (text), or the summary
 * as one JSON object. Streams: memory holds one window, not the log. A
 * torn last line is a warning; any other bad line stops with its number.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "diag.h"
#include "exitcodes.h"
#include "logread.h"

#define DIAGNOSE_TIMELINE_MAX 200

static const char diagnose_help[] =
    "Usage: gpumon diagnose LOG.jsonl [OPTIONS]\n"
    "Explain a recorded JSON Lines log (gpumon watch --format jsonl, or gpumon run --output): per GPU\n"
    "utilization figures over a sliding window, and verdicts (input-bound, small batch, memory pressure,\n"
    "OOM, throttling, straggler, stalled, GPU lost, XID...) with their evidence and advice. LOG may be -\n"
    "for standard input. Reads the log as a stream in constant memory.\n\n"
    "  -f, --format FMT     text (default: timeline of verdict changes and a summary) or json (summary)\n"
    CMD_ANALYSIS_HELP
    "  -h, --help           this help\n\n"
    "Exit status: 0 done (whatever the verdicts), 1 the log cannot be read or has a malformed line,\n"
    "2 usage. A torn last line (the writer was killed) is ignored with a warning.\n";

struct diagnose_timeline {
    struct sbuf line;
    unsigned long long shown, more;
};

static void diagnose_on_change(void *ctx, const struct diag_change *ch)
{
    struct diagnose_timeline *tl = ctx;
    if (tl->shown >= DIAGNOSE_TIMELINE_MAX) {
        tl->more++;
        return;
    }
    tl->shown++;
    sbuf_reset(&tl->line);
    diag_change_line(ch, &tl->line);
    printf("  %s\n", tl->line.data);
}

int cmd_diagnose(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, CMD_ANALYSIS_LONGOPTS,
        {NULL, 0, NULL, 0}};
    struct cmd_analysis_opts ao;
    cmd_analysis_init(&ao);
    bool json = false;
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "text") && strcmp(optarg, "json"))
                return cmd_usage_error("diagnose", "--format: unknown format \"%s\" (choose text or json)", optarg);
            json = !strcmp(optarg, "json");
            break;
        case 'h': fputs(diagnose_help, stdout); return EXIT_OK;
        case ':': return cmd_usage_error("diagnose", "option %s needs a value", argv[optind - 1]);
        case '?': return cmd_usage_error("diagnose", "unknown option %s", argv[optind - 1]);
        default:
            if ((rc = cmd_analysis_option("diagnose", &ao, c, optarg)) != 1)
                return rc ? rc : cmd_usage_error("diagnose", "unknown option %s", argv[optind - 1]);
        }
    }
    if (ao.list_rules) {
        rules_print(&ao.cfg);
        return EXIT_OK;
    }
    if (optind >= argc)
        return cmd_usage_error("diagnose", "give the log to read: gpumon diagnose LOG.jsonl");
    if (optind + 1 < argc)
        return cmd_usage_error("diagnose", "unexpected argument \"%s\"", argv[optind + 1]);
    const char *path = argv[optind];

    char err[1024];
    struct logread *lr;
    if (logread_open(&lr, path, err, sizeof err) != 0) {
        fprintf(stderr, "gpumon diagnose: %s\n", err);
        return EXIT_RUNTIME;
    }
    struct diagnose_timeline tl = {.shown = 0};
    sbuf_init(&tl.line);
    struct diag *d = diag_new(&ao.cfg, json ? NULL : diagnose_on_change, &tl);
    if (!json)
        printf("Timeline (verdict changes, seconds from the first record):\n");
    struct record rec;
    int got;
    unsigned long long records = 0;
    while ((got = logread_next(lr, &rec, err, sizeof err)) == 1) {
        diag_feed(d, &rec);
        records++;
    }
    rc = EXIT_OK;
    if (got < 0) {
        fflush(stdout);
        fprintf(stderr, "gpumon diagnose: %s\n", err);
        rc = EXIT_RUNTIME;
    } else {
        diag_finish(d);
        struct sbuf b;
        sbuf_init(&b);
        if (json) {
            diag_summary_json(d, &b);
        } else {
            if (tl.more)
                printf("  ... and %llu more changes (not shown)\n", tl.more);
            if (records == 0)
                printf("  (the log holds no records)\n");
            printf("\n");
            diag_summary_text(d, &b);
        }
        fputs(b.data ? b.data : "", stdout);
        sbuf_free(&b);
        if (logread_warning(lr)) {
            fflush(stdout);
            fprintf(stderr, "gpumon diagnose: warning: %s\n", logread_warning(lr));
        }
    }
    diag_free(d);
    sbuf_free(&tl.line);
    logread_close(lr);
    return rc;
}
