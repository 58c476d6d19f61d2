/*
 * cmd_diagnose.c: `gpumon diagnose LOG.jsonl`: the analysis of `run` on a
 * recorded log. Wires logread to a diagnosis session (diag.c) and prints
 * the verdict changes as a timeline and the summary (text), or the summary
 * as one JSON object. Streams: memory holds one window, not the log. A
 * torn last line is a warning; any other bad line stops with its number.
 * Several logs (the nodes of one multi-node job, each record naming its
 * host) are merged by time into one diagnosis: stragglers among all the
 * GPUs, a slow node, a summary per node.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"
#include "diag.h"
#include "exitcodes.h"
#include "logread.h"

#define DIAGNOSE_TIMELINE_MAX 200

enum { D_FORMAT = 1 };

static const struct opt diagnose_opts[] = {
    {"format", "f", "FMT", D_FORMAT,
     "text (default: timeline and summary) or json; with --list-rules: text, markdown or man"},
    {NULL, NULL, NULL, 0, NULL},
};

const struct cmd_entry cmd_diagnose_entry = {
    .name = "diagnose",
    .usage = "LOG.jsonl [LOG.jsonl...] [OPTIONS]",
    .summary = "the same analysis of a recorded JSON Lines log (gpumon diagnose LOG.jsonl)",
    .about = "Explain a recorded JSON Lines log (gpumon watch --format jsonl, or gpumon run --output): where the\n"
             "GPU time went (the ledger of GPU-seconds by cause, and what removing each would gain), per GPU\n"
             "utilization figures over a sliding window, and verdicts grouped by rule (input-bound, small\n"
             "batch, busy but few SMs working or no tensor cores (GPM), memory pressure, OOM, throttling,\n"
             "straggler, stalled, GPU lost, XID...) with their evidence and advice. LOG may be - for standard input, and may be\n"
             "zstd-compressed (LOG.jsonl.zst). Reads the log as a stream in constant memory. Several logs, one\n"
             "per node of a multi-node job (any number), are read as one job, aligned on time: stragglers among\n"
             "all GPUs, a slow node (slow-node), a summary per node. One file under two names is refused. A GPU\n"
             "index that comes back with another UUID is another GPU.",
    .opts = (const struct opt *const[]){diagnose_opts, cmd_analysis_opts, cmd_cost_opts, NULL},
    .notes = "Exit status: 0 done (whatever the verdicts), 1 the log cannot be read or has a malformed line,\n"
             "or the output could not be written, 2 usage (a log given twice, or under two names). A torn last\n"
             "line (the writer was killed) is ignored with a warning.",
    .signals = (const int[]){0},
    .exec = cmd_diagnose,
};

struct diagnose_opts {
    const char *format;
    struct cmd_analysis_opts ao;
};

static int diagnose_set(void *ctx, int key, const char *v)
{
    struct diagnose_opts *o = ctx;
    if (key != D_FORMAT)
        return cmd_analysis_option("diagnose", &o->ao, key, v);
    if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "markdown") && strcmp(v, "man"))
        return opt_usage_error("diagnose", "--format: unknown format \"%.200s\" (choose text or json; with "
                               "--list-rules, text, markdown or man)", v);
    o->format = v;
    return 0;
}

/* One node's log and its next record (valid until its reader's next call). */
struct diagnose_log {
    const char *path;
    struct logread *lr;
    struct record rec;
    bool live;
};

struct diagnose_timeline {
    struct sbuf line;
    unsigned long long shown, more;
    bool headed;
};

/* The timeline's heading, once, when there is something under it. */
static void diagnose_heading(struct diagnose_timeline *tl)
{
    if (!tl->headed)
        printf("Timeline (verdict changes, seconds from the first record):\n");
    tl->headed = true;
}

static void diagnose_on_change(void *ctx, const struct diag_change *ch)
{
    struct diagnose_timeline *tl = ctx;
    diagnose_heading(tl);
    if (tl->shown >= DIAGNOSE_TIMELINE_MAX) {
        tl->more++;
        return;
    }
    tl->shown++;
    sbuf_reset(&tl->line);
    diag_change_line(ch, &tl->line);
    printf("  %s\n", tl->line.data);
}

/* The logs are n different files: not one name twice, nor two names (links, paths) of one file, whose
 * records would each count twice. Returns 0, or -1 with a usage message. */
static int diagnose_distinct(char **paths, unsigned n)
{
    struct stat *st = xcalloc(n, sizeof *st);
    bool *known = xcalloc(n, sizeof *known);
    int rc = 0;
    for (unsigned i = 0; i < n && rc == 0; i++) {
        known[i] = strcmp(paths[i], "-") && stat(paths[i], &st[i]) == 0;   /* a missing one: its open says why */
        for (unsigned j = 0; j < i && rc == 0; j++) {
            if (!strcmp(paths[i], paths[j]))
                rc = opt_usage_error("diagnose", "\"%.200s\" is given twice", paths[i]);
            else if (known[i] && known[j] && st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino)
                rc = opt_usage_error("diagnose", "\"%.200s\" and \"%.200s\" are the same file (a link or another "
                                     "path to it): each record would count twice", paths[j], paths[i]);
        }
    }
    free(st);
    free(known);
    return rc ? -1 : 0;
}

/* Feeds the records of every log to d in time order (the logs of one job's nodes, aligned on their
 * timestamps: the nodes' clocks are taken as synchronized, as NTP keeps them). Returns 0 at the end of
 * them all, -1 at a log's error (its message in err). */
static int diagnose_merge(struct diagnose_log *logs, unsigned n, struct diag *d, unsigned long long *records,
                          char *err, size_t errlen)
{
    for (unsigned i = 0; i < n; i++) {
        int got = logread_next(logs[i].lr, &logs[i].rec, err, errlen);
        if (got < 0)
            return -1;
        logs[i].live = got == 1;
    }
    for (;;) {
        int next = -1;
        for (unsigned i = 0; i < n; i++)
            if (logs[i].live && (next < 0 || logs[i].rec.time.tv_sec < logs[next].rec.time.tv_sec ||
                                 (logs[i].rec.time.tv_sec == logs[next].rec.time.tv_sec &&
                                  logs[i].rec.time.tv_nsec < logs[next].rec.time.tv_nsec)))
                next = (int)i;
        if (next < 0)
            return 0;
        diag_feed(d, &logs[next].rec);
        (*records)++;
        int got = logread_next(logs[next].lr, &logs[next].rec, err, errlen);   /* its record is used up */
        if (got < 0)
            return -1;
        logs[next].live = got == 1;
    }
}

int cmd_diagnose(int argc, char **argv)
{
    struct diagnose_opts o = {.format = "text"};
    cmd_analysis_init(&o.ao);
    int first, rc = opt_parse(&cmd_diagnose_entry, argc, argv, diagnose_set, &o, &first);
    if (rc != 0)
        return rc == OPT_DONE ? EXIT_OK : rc;
    if ((rc = cmd_analysis_ready("diagnose", &o.ao)) != 0)
        return rc;
    bool doc = !strcmp(o.format, "markdown") || !strcmp(o.format, "man");
    if (o.ao.list_rules) {
        if (!strcmp(o.format, "json"))
            return opt_usage_error("diagnose", "--list-rules prints text, markdown or man, not json");
        rules_print_doc(stdout, &o.ao.cfg, !strcmp(o.format, "markdown") ? RULES_DOC_MARKDOWN
                                           : !strcmp(o.format, "man")    ? RULES_DOC_MAN
                                                                         : RULES_DOC_TEXT);
        return EXIT_OK;
    }
    if (doc)
        return opt_usage_error("diagnose", "--format %s goes with --list-rules (a diagnosis is text or json)",
                               o.format);
    bool json = !strcmp(o.format, "json");
    if (first >= argc)
        return opt_usage_error("diagnose", "give the log to read: gpumon diagnose LOG.jsonl");
    unsigned nlogs = (unsigned)(argc - first);
    if (diagnose_distinct(argv + first, nlogs) != 0)
        return EXIT_USAGE;

    char err[1024];
    rc = cmd_log_reader("diagnose");
    if (rc != 0)
        return rc;
    struct diagnose_log *logs = xcalloc(nlogs, sizeof *logs);
    unsigned opened = 0;
    for (; opened < nlogs; opened++) {
        logs[opened].path = argv[first + (int)opened];
        if (strcmp(logs[opened].path, "-") == 0 && nlogs > 1) {
            err[0] = '\0';
            snprintf(err, sizeof err, "\"-\" (standard input) reads one log alone, not among several");
            break;
        }
        if (logread_open(&logs[opened].lr, logs[opened].path, err, sizeof err) != 0)
            break;
    }
    if (opened < nlogs) {
        fprintf(stderr, "gpumon diagnose: %s\n", err);
        for (unsigned i = 0; i < opened; i++)
            logread_close(logs[i].lr);
        free(logs);
        return err[0] == '"' ? EXIT_USAGE : EXIT_RUNTIME;
    }
    struct diagnose_timeline tl = {.shown = 0};
    sbuf_init(&tl.line);
    struct diag *d = diag_new(&o.ao.cfg, json ? NULL : diagnose_on_change, &tl);
    diag_set_cost(d, o.ao.gpu_hour_cost);
    unsigned long long records = 0;
    int got = diagnose_merge(logs, nlogs, d, &records, err, sizeof err);
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
        } else if (records == 0) {
            printf("The log holds no records.\n");
        } else {
            if (tl.more)
                printf("  ... and %llu more changes (not shown)\n", tl.more);
            if (tl.headed)
                printf("\n");
            diag_summary_text(d, &b);
        }
        fputs(b.data ? b.data : "", stdout);
        sbuf_free(&b);
        fflush(stdout);
        for (unsigned i = 0; i < nlogs; i++) {
            const char *skipped = logread_skipped(logs[i].lr);
            if (logread_warning(logs[i].lr))
                fprintf(stderr, "gpumon diagnose: warning: %s\n", logread_warning(logs[i].lr));
            if (skipped)
                fprintf(stderr, "gpumon diagnose: warning: %s\n", skipped);
        }
    }
    diag_free(d);
    sbuf_free(&tl.line);
    for (unsigned i = 0; i < nlogs; i++)
        logread_close(logs[i].lr);
    free(logs);
    return rc;
}
