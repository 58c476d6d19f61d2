/*
 * cmd_serve.c: `gpumon serve`, the Prometheus exporter. Parses options,
 * then starts in an order that leaves nothing half-started: the web config
 * is loaded and checked, the address bound, NVML opened, one collection
 * made (so the first scrape has data), the collector thread started, and
 * only then libmicrohttpd. SIGINT/SIGTERM stop it; a collector stuck in a
 * hung NVML call is not waited for longer than two seconds at exit.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "exitcodes.h"
#include "nvml.h"
#include "serve.h"

#define SERVE_DEFAULT_ADDRESS ":9445"

static const char serve_help[] =
    "Usage: gpumon serve [OPTIONS]\n"
    "Serve GPU metrics to Prometheus: /metrics (text format 0.0.4), /health, and a landing page at /.\n"
    "A collector thread samples every --interval; scrapes get the latest snapshot at once, never\n"
    "waiting for NVML (gpumon_exporter_snapshot_age_seconds shows how old it is).\n\n"
    "  --web.listen-address [HOST]:PORT  where to listen (default " SERVE_DEFAULT_ADDRESS ", all addresses;\n"
    "                       node_exporter uses 9100, dcgm-exporter 9400, nvidia_gpu_exporter 9835)\n"
    "  --web.config.file FILE  TLS and basic auth, in the Prometheus exporter-toolkit format\n"
    "                       (tls_server_config: cert_file, key_file, min_version; basic_auth_users:\n"
    "                       user: bcrypt hash)\n"
    "  --web.max-connections N  concurrent connections (default 1024)\n"
    "  --web.timeout DUR    close connections idle this long (default 10s)\n"
    "  -i, --interval DUR   sampling period (default 1s; minimum 10ms)\n"
    "  -g, --gpus LIST      GPUs to export: indices, UUIDs or PCI bus ids, comma-separated\n"
    "      --compat dcgm    also export dcgm-exporter's names (DCGM_FI_DEV_*), for its dashboards\n"
    "      --collect.processes  export GPU memory per process (gpumon_process_gpu_memory_bytes)\n"
    "      --collect.processes.max N  at most N processes per GPU, the largest (default 16)\n"
    "      --textfile PATH  also write the metrics to PATH every interval, atomically, for\n"
    "                       node_exporter's textfile collector (name it *.prom)\n"
    CMD_NVML_HELP
    "  -h, --help           this help\n";

struct serve_opts {
    const char *address, *web_config, *gpus, *textfile;
    double interval_ms, timeout_ms;
    unsigned long long max_conn, max_procs;
    bool dcgm, processes;
    struct cmd_nvml_opts nvml;
};

enum { SO_ADDR = 0x2000, SO_WEBCONF, SO_MAXCONN, SO_TIMEOUT, SO_COMPAT, SO_PROCS, SO_PROCS_MAX, SO_TEXTFILE };

static int serve_parse(int argc, char **argv, struct serve_opts *o)
{
    static const struct option longopts[] = {
        {"web.listen-address", required_argument, NULL, SO_ADDR},
        {"web.config.file", required_argument, NULL, SO_WEBCONF},
        {"web.max-connections", required_argument, NULL, SO_MAXCONN},
        {"web.timeout", required_argument, NULL, SO_TIMEOUT},
        {"interval", required_argument, NULL, 'i'},
        {"gpus", required_argument, NULL, 'g'},
        {"compat", required_argument, NULL, SO_COMPAT},
        {"collect.processes", no_argument, NULL, SO_PROCS},
        {"collect.processes.max", required_argument, NULL, SO_PROCS_MAX},
        {"textfile", required_argument, NULL, SO_TEXTFILE},
        {"help", no_argument, NULL, 'h'},
        CMD_NVML_LONGOPTS,
        {NULL, 0, NULL, 0}};
    *o = (struct serve_opts){.address = SERVE_DEFAULT_ADDRESS, .interval_ms = 1000, .timeout_ms = 10000,
                             .max_conn = 1024, .max_procs = 16};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":i:g:h", longopts, NULL)) != -1) {
        switch (c) {
        case SO_ADDR: o->address = optarg; break;
        case SO_WEBCONF: o->web_config = optarg; break;
        case SO_MAXCONN:
            if (util_parse_uint(optarg, 1000000, &o->max_conn) != 0 || o->max_conn == 0)
                return cmd_usage_error("serve", "--web.max-connections: \"%s\" is not a count from 1 to 1000000",
                                       optarg);
            break;
        case SO_TIMEOUT:
            if (util_parse_duration_ms(optarg, &o->timeout_ms) != 0 || o->timeout_ms < 1000)
                return cmd_usage_error("serve", "--web.timeout: \"%s\" is not a duration of at least 1s", optarg);
            break;
        case 'i':
            if (cmd_parse_interval("serve", optarg, &o->interval_ms) != 0)
                return EXIT_USAGE;
            break;
        case 'g': o->gpus = optarg; break;
        case SO_COMPAT:
            if (strcmp(optarg, "dcgm"))
                return cmd_usage_error("serve", "--compat: unknown \"%s\" (the one choice is dcgm)", optarg);
            o->dcgm = true;
            break;
        case SO_PROCS: o->processes = true; break;
        case SO_PROCS_MAX:
            if (util_parse_uint(optarg, RECORD_MAX_PROCS, &o->max_procs) != 0 || o->max_procs == 0)
                return cmd_usage_error("serve", "--collect.processes.max: \"%s\" is not a count from 1 to %d",
                                       optarg, RECORD_MAX_PROCS);
            break;
        case SO_TEXTFILE: o->textfile = optarg; break;
        case 'h': fputs(serve_help, stdout); return -1;
        case ':': return cmd_usage_error("serve", "option %s needs a value", argv[optind - 1]);
        case '?': return cmd_usage_error("serve", "unknown option %s", argv[optind - 1]);
        default:
            if (!cmd_nvml_option(&o->nvml, c, optarg))
                return cmd_usage_error("serve", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cmd_usage_error("serve", "unexpected argument \"%s\"", argv[optind]);
    return 0;
}

/* Lets the connection limit be reached: raise the soft descriptor limit. */
static void serve_raise_nofile(unsigned long long want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want + 64) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want + 64 ? want + 64 : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* Waits for SIGINT or SIGTERM (blocked in every thread); SIGHUP is ignored. */
static void serve_wait(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) == 0 && sig != SIGHUP)
            return;
    }
}

static void serve_block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Stops the collector; false when it is stuck in NVML past the grace time. */
static bool serve_stop_collector(struct serve_state *st, pthread_t t)
{
    pthread_mutex_lock(&st->stop_mu);
    atomic_store(&st->stop, true);
    pthread_cond_signal(&st->stop_cv);
    pthread_mutex_unlock(&st->stop_mu);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    return pthread_timedjoin_np(t, NULL, &until) == 0;
}

/* st is cmd_serve's static (a collector stuck in NVML may outlive the call): start from zero,
 * so nothing freed by an earlier call (the web config, the snapshot) is seen again. */
static void serve_state_init(struct serve_state *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_init(&st->mu, NULL);
    pthread_mutex_init(&st->stop_mu, NULL);
    util_cond_init_monotonic(&st->stop_cv);
}

static void serve_state_free(struct serve_state *st)
{
    free(st->snap);
    pthread_mutex_destroy(&st->mu);
    pthread_mutex_destroy(&st->stop_mu);
    pthread_cond_destroy(&st->stop_cv);
    webconfig_free(st->web);
}

int cmd_serve(int argc, char **argv)
{
    struct serve_opts o;
    int rc = serve_parse(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? EXIT_OK : rc;
    static struct serve_state st;
    serve_state_init(&st);
    st.interval_ms = o.interval_ms;
    st.textfile = o.textfile;
    st.prom = (struct prom_opts){o.dcgm, o.processes, (unsigned)o.max_procs};
    char err[1024];
    if (o.web_config && webconfig_load(o.web_config, &st.web, err, sizeof err) != 0) {
        util_warn("%s", err);
        serve_state_free(&st);
        return EXIT_USAGE;
    }
    int fd = serve_http_listen(o.address, err, sizeof err);
    if (fd < 0) {
        util_warn("%s", err);
        serve_state_free(&st);
        return EXIT_RUNTIME;
    }
    if ((rc = cmd_open_nvml(&o.nvml, false)) != 0) {
        close(fd);
        serve_state_free(&st);
        return rc;
    }
    struct sampler_opts so = {NULL, 0, o.gpus, o.interval_ms > 1000 ? o.interval_ms : 1000, o.processes, 0};
    if (sampler_open(&st.sampler, &so, err, sizeof err) != 0) {
        nvml_close();
        close(fd);
        serve_state_free(&st);
        return cmd_usage_error("serve", "%s", err);
    }
    if (sampler_device_count(st.sampler) == 0)
        util_warn("NVML reports no GPU; serving the exporter's own metrics (gpumon_exporter_gpus 0)");
    serve_block_signals();
    serve_raise_nofile(o.max_conn);
    serve_collect_once(&st);
    pthread_t collector;
    struct serve_http *http = NULL;
    if (pthread_create(&collector, NULL, serve_collect_main, &st) != 0) {
        util_warn("cannot start the collector thread");
        rc = EXIT_RUNTIME;
    } else {
        struct serve_http_opts ho = {fd, (unsigned)o.max_conn, (unsigned)((o.timeout_ms + 999) / 1000)};
        http = serve_http_start(&st, &ho, err, sizeof err);
        if (!http) {
            util_warn("%s", err);
            rc = EXIT_RUNTIME;
        } else {
            fprintf(stderr, "gpumon: serving %u GPU%s on %s://%s/metrics (every %.0f ms)\n", st.self.gpus,
                    st.self.gpus == 1 ? "" : "s", webconfig_cert(st.web) ? "https" : "http", o.address,
                    o.interval_ms);
            serve_wait();
            rc = EXIT_OK;
        }
        serve_http_stop(http);
        if (!serve_stop_collector(&st, collector)) {
            util_warn("the collector is stuck in an NVML call; exiting without waiting for it");
            close(fd);
            return rc;
        }
    }
    close(fd);
    sampler_close(st.sampler);
    nvml_close();
    serve_state_free(&st);
    return rc;
}
