/*
 * cmd_watch.c: `gpumon watch`, the default command. Wires the sampler to
 * one sink and one output: samples every --interval on absolute monotonic
 * deadlines (no drift; missed deadlines are skipped, not bunched), writes
 * each record whole, and handles signals: SIGINT/SIGTERM finish the current
 * record and exit 0, SIGHUP reopens the --output file for logrotate.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "exitcodes.h"
#include "nvml.h"
#include "out.h"
#include "sampler.h"
#include "sink.h"

static volatile sig_atomic_t watch_stop, watch_hup;

static void watch_on_signal(int sig)
{
    if (sig == SIGHUP)
        watch_hup = 1;
    else
        watch_stop = 1;
}

static void watch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = watch_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);   /* a file size limit is a failed write (kept and retried), not death */
}

static const char watch_help[] =
    "Usage: gpumon [watch] [OPTIONS]\n"
    "Sample every GPU through NVML and print or log timestamped status.\n\n"
    "  -i, --interval DUR   time between samples: 1s (default), 500ms, 10ms (minimum), 2m\n"
    "  -n, --count N        stop after N samples\n"
    "      --once           take one sample and exit (same as --count 1)\n"
    "  -f, --format FMT     text (default), csv or jsonl\n"
    "      --fields LIST    comma-separated metric keys (see gpumon --list-metrics)\n"
    "  -g, --gpus LIST      GPUs to watch: indices, UUIDs or PCI bus ids, comma-separated\n"
    "  -o, --output FILE    append records to FILE (one complete line each, flushed per sample);\n"
    "                       SIGHUP reopens it\n"
    "      --no-processes   leave per-process lists out of JSON Lines records\n"
    CMD_NVML_HELP
    "  -h, --help           this help\n";

struct watch_opts {
    double interval_ms;
    unsigned long long count;
    const struct sink_ops *format;
    const char *fields, *gpus, *output;
    bool processes;
    struct cmd_nvml_opts nvml;
};

static int watch_parse(int argc, char **argv, struct watch_opts *o)
{
    static const struct option longopts[] = {
        {"interval", required_argument, NULL, 'i'}, {"count", required_argument, NULL, 'n'},
        {"once", no_argument, NULL, '1'},           {"format", required_argument, NULL, 'f'},
        {"fields", required_argument, NULL, 'F'},   {"gpus", required_argument, NULL, 'g'},
        {"output", required_argument, NULL, 'o'},   {"no-processes", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},           CMD_NVML_LONGOPTS,
        {NULL, 0, NULL, 0}};
    *o = (struct watch_opts){.interval_ms = 1000, .format = &sink_text, .processes = true};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":i:n:f:g:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (cmd_parse_interval("watch", optarg, &o->interval_ms) != 0)
                return EXIT_USAGE;
            break;
        case 'n':
            if (util_parse_uint(optarg, 1ull << 62, &o->count) != 0 || o->count == 0)
                return cmd_usage_error("watch", "--count: \"%s\" is not a positive integer", optarg);
            break;
        case '1': o->count = 1; break;
        case 'f':
            if (!(o->format = sink_find(optarg)))
                return cmd_usage_error("watch", "--format: unknown format \"%s\" (choose %s)", optarg, sink_names());
            break;
        case 'F': o->fields = optarg; break;
        case 'g': o->gpus = optarg; break;
        case 'o': o->output = optarg; break;
        case 'P': o->processes = false; break;
        case 'h': fputs(watch_help, stdout); return -1;
        case ':': return cmd_usage_error("watch", "option %s needs a value", argv[optind - 1]);
        case '?':
            return cmd_usage_error("watch", "unknown option %s", argv[optind - 1]);
        default:
            if (!cmd_nvml_option(&o->nvml, c, optarg))
                return cmd_usage_error("watch", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cmd_usage_error("watch", "unexpected argument \"%s\"", argv[optind]);
    return 0;
}

/* SIGHUP: reopen the output (logrotate moved it); a new file gets a header.
 * Checked after every sample and every interrupted sleep, so a signal that
 * lands while sampling is not left waiting for another. */
static void watch_reopen(struct sink *sk, struct out *out, struct sbuf *b)
{
    char err[512];
    if (!watch_hup)
        return;
    watch_hup = 0;
    if (out_reopen(out, err, sizeof err) != 0)
        util_warn("%s", err);
    else if (out_is_empty(out))
        sk->ops->begin(sk, b);
}

static int watch_loop(const struct watch_opts *o, struct sampler *smp, struct sink *sk, struct out *out)
{
    struct sbuf b;
    struct record rec;
    sbuf_init(&b);
    memset(&rec, 0, sizeof rec);
    uint64_t step = (uint64_t)(o->interval_ms * 1e6), next = util_mono_ns();
    if (!o->output || out_is_empty(out))
        sk->ops->begin(sk, &b);
    for (unsigned long long n = 0; !watch_stop; n++) {
        cmd_sample(smp, &rec, step);
        sk->ops->record(sk, &rec, &b);
        if (out_write(out, b.data, b.len) != 0)
            break;   /* standard output closed: the reader is gone */
        sbuf_reset(&b);
        if (o->count && n + 1 >= o->count)
            break;
        watch_reopen(sk, out, &b);
        for (uint64_t st = step; !watch_stop && util_sleep_next(&next, st) == EINTR; st = 0)
            watch_reopen(sk, out, &b);
    }
    sbuf_free(&b);
    return EXIT_OK;
}

int cmd_watch(int argc, char **argv)
{
    struct watch_opts o;
    int rc = watch_parse(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? EXIT_OK : rc;
    enum metric_id ids[METRIC_COUNT];
    int nids = METRIC_COUNT;
    for (int i = 0; i < METRIC_COUNT; i++)
        ids[i] = (enum metric_id)i;
    if (o.fields) {
        char bad[128];
        nids = metric_parse_list(o.fields, ids, METRIC_COUNT, bad, sizeof bad);
        if (nids < 0)
            return cmd_usage_error("watch", "--fields: unknown metric \"%s\" (gpumon --list-metrics lists them)",
                                   bad);
    }
    /* The text layout needs its own metrics; the JSON/text record always names the GPU. */
    enum metric_id read_ids[METRIC_COUNT];
    int nread = 0;
    bool want[METRIC_COUNT] = {false};
    for (int i = 0; i < nids; i++)
        want[ids[i]] = true;
    want[M_INDEX] = want[M_STATE] = true;
    if (!o.fields)
        for (int i = 0; i < METRIC_COUNT; i++)
            want[i] = true;
    for (int i = 0; i < METRIC_COUNT; i++)
        if (want[i])
            read_ids[nread++] = (enum metric_id)i;

    struct out out;
    char err[512];
    if (out_open(&out, o.output, err, sizeof err) != 0) {
        util_warn("%s", err);
        return EXIT_RUNTIME;
    }
    if ((rc = cmd_open_nvml(&o.nvml, true)) != 0) {
        out_close(&out);
        return rc;
    }
    /* Process lists go into JSON Lines unless --no-processes, or --fields names no process metric. */
    bool procs = o.processes && o.format == &sink_jsonl && (!o.fields || want[M_PROC_COUNT] || want[M_PROC_MEM]);
    struct sampler_opts so = {read_ids, nread, o.gpus, o.interval_ms > 1000 ? o.interval_ms : 1000, procs, 0};
    struct sampler *smp;
    if (sampler_open(&smp, &so, err, sizeof err) != 0) {
        nvml_close();
        out_close(&out);
        return cmd_usage_error("watch", "%s", err);
    }
    struct sink sk = {o.format, ids, nids, o.fields != NULL, so.processes};
    watch_signals();
    rc = watch_loop(&o, smp, &sk, &out);
    sampler_close(smp);
    nvml_close();
    out_close(&out);
    return rc;
}
