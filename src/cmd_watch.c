/*
 * cmd_watch.c: `gpumon watch`, the default command. Wires the sampler to
 * one sink and one output: samples every --interval on absolute monotonic
 * deadlines (no drift; missed deadlines are skipped, not bunched), writes
 * each record whole, and takes its signals between samples (sig.h):
 * SIGINT/SIGTERM finish after the current record and exit 0 (one that
 * arrived during start-up ends it before the first sample), SIGHUP reopens
 * the --output file for logrotate; without one it is the terminal hanging up,
 * and ends it as SIGTERM does (writes to a hung-up terminal fail for good).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cmd.h"
#include "exitcodes.h"
#include "nvml.h"
#include "out.h"
#include "sampler.h"
#include "sig.h"
#include "sink.h"

enum { W_INTERVAL = 1, W_COUNT, W_ONCE, W_FORMAT, W_FIELDS, W_GPUS, W_OUTPUT, W_NO_PROCS, W_JOBS };

static const struct opt watch_opts[] = {
    {"interval", "i", "DUR", W_INTERVAL, "time between samples: 1s (default), 500ms, 10ms (minimum), 2m, 24h (maximum)"},
    {"count", "n", "N", W_COUNT, "stop after N samples"},
    {"once", NULL, NULL, W_ONCE, "take one sample and exit (same as --count 1)"},
    {"format", "f", "FMT", W_FORMAT, "text (default), csv or jsonl"},
    {"fields", NULL, "LIST", W_FIELDS, "comma-separated metric keys (see gpumon --list-metrics)"},
    {"gpus", "g", "LIST", W_GPUS, "GPUs to watch: indices, UUIDs or PCI bus ids, comma-separated"},
    {"output", "o", "FILE", W_OUTPUT,
     "append records to FILE (one complete line each, flushed per sample);\nSIGHUP reopens it"},
    {"no-processes", NULL, NULL, W_NO_PROCS, "leave per-process lists out of JSON Lines records"},
    {"hpc-job-mapping-dir", NULL, "DIR", W_JOBS, "each GPU's job ids from DIR: a file per GPU index, one job id per line\n(dcgm-exporter's format, re-read as it changes)"},
    {NULL, NULL, NULL, 0, NULL},
};

static const int watch_signals[] = {SIGINT, SIGTERM, SIGHUP, 0};
static const int watch_stop_signals[] = {SIGINT, SIGTERM, 0};

const struct cmd_entry cmd_watch_entry = {
    .name = "watch",
    .usage = "[OPTIONS]",
    .summary = "sample GPUs and print or log records (the default)",
    .about = "Sample every GPU through NVML and print or log timestamped status.",
    .opts = (const struct opt *const[]){watch_opts, cmd_nvml_opts, NULL},
    .notes = "SIGINT and SIGTERM end it after the current record (exit 0); SIGHUP reopens --output (without\n"
             "--output it is the terminal hanging up, and ends it too).",
    .signals = watch_signals,
    .exec = cmd_watch,
};

struct watch_opts {
    double interval_ms;
    unsigned long long count;
    const struct sink_ops *format;
    const char *fields, *gpus, *output, *job_dir;
    bool processes;
    struct cmd_nvml_opts nvml;
};

static int watch_set(void *ctx, int key, const char *v)
{
    struct watch_opts *o = ctx;
    switch (key) {
    case W_INTERVAL: return cmd_parse_interval("watch", v, &o->interval_ms);
    case W_COUNT:
        if (*v && !v[strspn(v, "0123456789")] && strspn(v, "0") < strlen(v) &&
            util_parse_uint(v, 1ull << 62, &o->count) != 0)
            return opt_usage_error("watch", "--count: %.200s is too large (at most %llu)", v, 1ull << 62);
        if (util_parse_uint(v, 1ull << 62, &o->count) != 0 || o->count == 0)
            return opt_usage_error("watch", "--count: \"%.200s\" is not a positive integer", v);
        return 0;
    case W_ONCE: o->count = 1; return 0;
    case W_FORMAT:
        if (!(o->format = sink_find(v)))
            return opt_usage_error("watch", "--format: unknown format \"%.200s\" (choose %s)", v, sink_names());
        return 0;
    case W_FIELDS: o->fields = v; return 0;
    case W_GPUS:
        return cmd_parse_gpus("watch", v, &o->gpus);
    case W_OUTPUT: return cmd_parse_output("watch", "--output", v, &o->output);
    case W_NO_PROCS: o->processes = false; return 0;
    case W_JOBS: return cmd_parse_job_dir("watch", v, &o->job_dir);
    default: return cmd_nvml_option(&o->nvml, key, v);
    }
}

/* Takes the signals that arrived until deadline (0: those pending now):
 * SIGHUP reopens the --output file (logrotate moved it; a new file gets the
 * sink's header); records to standard output have no file to reopen, and
 * there it is the terminal hanging up. Returns true when asked to stop. */
UTIL_HOT static bool watch_signals_until(const struct watch_opts *o, struct sink *sk, struct out *out,
                                         struct sbuf *b, uint64_t deadline)
{
    for (;;) {
        int sig = sig_wait(watch_signals, deadline, NULL);
        if (sig == 0)
            return false;
        if (sig != SIGHUP || !o->output)
            return true;
        char err[512];
        if (out_reopen(out, err, sizeof err) != 0)
            util_warn("%s", err);
        else if (out_is_empty(out))
            sk->ops->begin(sk, b);
    }
}

/* The terminal's width when the text goes to one ($COLUMNS, else the
 * terminal's size), read again each record so a resize takes effect; 0
 * when it goes to a file or a pipe (the full layout, for logs). */
static int watch_width(const struct watch_opts *o)
{
    struct winsize ws;
    if (o->output || o->format != &sink_text || !isatty(STDOUT_FILENO))
        return 0;
    const char *cols = getenv("COLUMNS");
    unsigned long long n;
    if (cols && util_parse_uint(cols, 10000, &n) == 0 && n > 0)
        return (int)n;
    return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 0;
}

static int watch_loop(const struct watch_opts *o, struct sampler *smp, struct sink *sk, struct out *out)
{
    struct sbuf b;
    struct record rec;
    sbuf_init(&b);
    memset(&rec, 0, sizeof rec);
    uint64_t step = sampler_step_ns(smp, o->interval_ms), next = util_mono_ns();
    if (!o->output || out_is_empty(out))
        sk->ops->begin(sk, &b);
    bool stop = watch_signals_until(o, sk, out, &b, 0);   /* a signal during start-up */
    for (unsigned long long n = 0; !stop; n++) {
        cmd_sample(smp, &rec, step);
        sk->width = watch_width(o);
        sk->ops->record(sk, &rec, &b);
        if (out_write(out, b.data, b.len) != 0)
            break;   /* standard output closed: the reader is gone */
        sbuf_reset(&b);
        if (o->count && n + 1 >= o->count)
            break;
        util_next_deadline(&next, step);
        stop = watch_signals_until(o, sk, out, &b, next);
    }
    sbuf_free(&b);
    return EXIT_OK;
}

int cmd_watch(int argc, char **argv)
{
    struct watch_opts o = {.interval_ms = 1000, .format = &sink_text, .processes = true};
    int first, rc = opt_parse(&cmd_watch_entry, argc, argv, watch_set, &o, &first);
    if (rc != 0)
        return rc == OPT_DONE ? EXIT_OK : rc;
    if (first < argc)
        return opt_usage_error("watch", "unexpected argument \"%.200s\"", argv[first]);
    enum metric_id ids[METRIC_COUNT + 1], read_ids[METRIC_COUNT];   /* ids: room for index before the list */
    int nids = METRIC_COUNT, nread = 0;
    for (int i = 0; i < METRIC_COUNT; i++)
        ids[i] = (enum metric_id)i;
    if (o.fields) {
        char bad[128];
        nids = metric_parse_list(o.fields, ids + 1, METRIC_COUNT, bad, sizeof bad);
        if (nids < 0)
            return opt_usage_error("watch", "--fields: unknown metric \"%s\" (gpumon --list-metrics lists them)",
                                   bad);
        /* CSV rows always name their GPU (as JSON Lines objects do): index first unless listed */
        bool has_index = false;
        for (int i = 1; i <= nids; i++)
            has_index |= ids[i] == M_INDEX;
        if (o.format == &sink_csv && !has_index)
            ids[0] = M_INDEX, nids++;
        else
            memmove(ids, ids + 1, (size_t)nids * sizeof *ids);
    }
    /* The text layout needs its own metrics; every record names its GPU. */
    bool want[METRIC_COUNT] = {false};
    for (int i = 0; i < nids; i++)
        want[ids[i]] = true;
    want[M_INDEX] = want[M_STATE] = true;
    for (int i = 0; i < METRIC_COUNT; i++)
        if (want[i] || !o.fields)
            read_ids[nread++] = (enum metric_id)i;

    struct out out;
    struct sampler *smp = NULL;
    bool nvml_open = false;
    char err[512];
    if ((rc = out_open(&out, o.output, sig_pending, watch_stop_signals, err, sizeof err)) != 0) {
        if (rc == OUT_STOPPED)
            return EXIT_OK;   /* SIGINT or SIGTERM before the first record, as during any start-up */
        util_warn("%s", err);
        return EXIT_RUNTIME;
    }
    struct sink sk = {o.format, ids, nids, o.fields != NULL, false, 0};
    if (o.output) {   /* appending to a log: the same format (CSV: the same header) */
        struct sbuf head;
        sbuf_init(&head);
        sk.ops->begin(&sk, &head);
        if (head.len)
            head.data[--head.len] = '\0';
        rc = cmd_check_append("watch", o.output, o.format->name, head.len ? head.data : NULL);
        sbuf_free(&head);
        if (rc != 0)
            goto out;
    }
    if ((rc = cmd_open_nvml(&o.nvml, true)) != 0)
        goto out;
    nvml_open = true;
    /* Process lists go into JSON Lines unless --no-processes, or --fields names no process metric. */
    bool procs = o.processes && o.format == &sink_jsonl && (!o.fields || want[M_PROC_COUNT] || want[M_PROC_MEM]);
    struct sampler_opts so = {read_ids, nread, o.gpus, o.interval_ms > 1000 ? o.interval_ms : 1000, procs, 0,
                              o.job_dir};
    if (sampler_open(&smp, &so, err, sizeof err) != 0) {
        rc = opt_usage_error("watch", "%s", err);
        goto out;
    }
    sk.processes = so.processes;
    rc = watch_loop(&o, smp, &sk, &out);
out:
    sampler_close(smp);
    if (nvml_open)
        nvml_close();
    if (out_close(&out) != 0 && rc == EXIT_OK)
        rc = EXIT_RUNTIME;
    return rc;
}
