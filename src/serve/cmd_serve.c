/*
 * cmd_serve.c: `gpumon serve`, the Prometheus exporter. Parses options,
 * then starts in an order that leaves nothing half-started: the web config
 * is loaded and checked, the address bound, NVML opened, one collection
 * made (so the first scrape has data), the collector thread started, and
 * only then libmicrohttpd. Its signals are blocked before any of that
 * (sig.h), so one that arrives during start-up waits for the main thread:
 * SIGINT/SIGTERM stop it, SIGHUP is ignored. A collector stuck in a hung
 * NVML call is not waited for longer than two seconds at exit.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "diag.h"
#include "exitcodes.h"
#include "nvml.h"
#include "serve.h"
#include "sig.h"

#define SERVE_DEFAULT_ADDRESS ":9445"

enum { S_ADDR = 1, S_WEBCONF, S_MAXCONN, S_TIMEOUT, S_INTERVAL, S_GPUS, S_COMPAT, S_PROCS, S_PROCS_MAX, S_TEXTFILE, S_JOBS, S_HISTORY };

static const struct opt serve_opts[] = {
    {"web.listen-address", NULL, "[HOST]:PORT", S_ADDR,
     "where to listen (default " SERVE_DEFAULT_ADDRESS ", all addresses; port 0: any free port;\n"
     "node_exporter uses 9100, dcgm-exporter 9400, nvidia_gpu_exporter 9835)"},
    {"web.config.file", NULL, "FILE", S_WEBCONF,
     "TLS and basic auth, in the Prometheus exporter-toolkit format\n(tls_server_config: cert_file, key_file, "
     "min_version; basic_auth_users:\nuser: bcrypt hash)"},
    {"web.max-connections", NULL, "N", S_MAXCONN, "concurrent connections (default 1024)"},
    {"web.history", NULL, "DUR", S_HISTORY,
     "how far back the live page at / reaches (default 15m; 1m to 24h): a ring of\nat most 3600 points per "
     "series, in memory"},
    {"web.timeout", NULL, "DUR", S_TIMEOUT, "close connections idle this long (default 10s; 1s to 24h)"},
    {"interval", "i", "DUR", S_INTERVAL, "sampling period (default 1s; 10ms to 24h)"},
    {"gpus", "g", "LIST", S_GPUS, "GPUs to export: indices, UUIDs or PCI bus ids, comma-separated"},
    {"compat", NULL, "dcgm", S_COMPAT, "also export dcgm-exporter's names (DCGM_FI_DEV_*), for its dashboards"},
    {"collect.processes", NULL, NULL, S_PROCS, "export GPU memory per process (gpumon_process_gpu_memory_bytes)"},
    {"hpc-job-mapping-dir", NULL, "DIR", S_JOBS, "export each GPU's job ids (gpumon_gpu_job_info) and job accounting, from\nDIR: a file per GPU index, one job id per line (dcgm-exporter's format)"},
    {"collect.processes.max", NULL, "N", S_PROCS_MAX, "at most N processes per GPU, the largest (default 16)"},
    {"textfile", NULL, "PATH", S_TEXTFILE,
     "also write the metrics to PATH every interval, atomically, for\nnode_exporter's textfile collector "
     "(name it *.prom)"},
    {NULL, NULL, NULL, 0, NULL},
};

static const int serve_signals[] = CMD_SERVE_SIGNALS;

const struct cmd_entry cmd_serve_entry = {
    .name = "serve",
    .usage = "[OPTIONS]",
    .about = "Serve GPU metrics to Prometheus: /metrics (text format 0.0.4), /health, and a live page at /\n"
             "(charts of the last minutes, verdicts, processes) with its JSON API, /api/v1/state and\n"
             "/api/v1/history?seconds=N.\n"
             "A collector thread samples every --interval; scrapes get the latest snapshot at once, never\n"
             "waiting for NVML (gpumon_exporter_snapshot_age_seconds shows how old it is). The collector\n"
             "also runs the rules of gpumon run on every record and exports their verdicts\n"
             "(gpumon_diagnosis_active, gpumon_diagnosis_seconds_total) and window figures.",
    .opts = (const struct opt *const[]){serve_opts, cmd_analysis_opts, cmd_nvml_opts, NULL},
    .notes = "SIGINT and SIGTERM stop it (exit 0); SIGHUP is ignored. Exit status: 1 the address cannot be\n"
             "bound, 2 usage or a bad web config, 3-5 no NVML library, init failed.",
    .signals = serve_signals,
    .exec = cmd_serve,
};

struct serve_opts {
    const char *address, *web_config, *gpus, *textfile, *job_dir;
    double interval_ms, timeout_ms, history_ms;
    unsigned long long max_conn, max_procs;
    bool dcgm, processes;
    struct cmd_nvml_opts nvml;
    struct cmd_analysis_opts ao;
};

static int serve_set(void *ctx, int key, const char *v)
{
    struct serve_opts *o = ctx;
    switch (key) {
    case S_ADDR: o->address = v; return 0;
    case S_WEBCONF: o->web_config = v; return 0;
    case S_MAXCONN:
        if (util_parse_uint(v, 1000000, &o->max_conn) != 0 || o->max_conn == 0)
            return opt_usage_error("serve", "--web.max-connections: \"%.200s\" is not a count from 1 to 1000000", v);
        return 0;
    case S_HISTORY: return cmd_parse_duration("serve", "--web.history", v, 60000, SERVE_WEB_MAX_HISTORY_S * 1000.0,
                                              &o->history_ms);
    case S_TIMEOUT: return cmd_parse_duration("serve", "--web.timeout", v, 1000, 86400000, &o->timeout_ms);
    case S_INTERVAL: return cmd_parse_interval("serve", v, &o->interval_ms);
    case S_GPUS:
        return cmd_parse_gpus("serve", v, &o->gpus);
    case S_COMPAT:
        if (strcmp(v, "dcgm"))
            return opt_usage_error("serve", "--compat: unknown \"%.200s\" (the one choice is dcgm)", v);
        o->dcgm = true;
        return 0;
    case S_PROCS: o->processes = true; return 0;
    case S_PROCS_MAX:
        if (util_parse_uint(v, RECORD_MAX_PROCS, &o->max_procs) != 0 || o->max_procs == 0)
            return opt_usage_error("serve", "--collect.processes.max: \"%.200s\" is not a count from 1 to %d", v,
                                   RECORD_MAX_PROCS);
        return 0;
    case S_TEXTFILE: o->textfile = v; return 0;
    case S_JOBS: return cmd_parse_job_dir("serve", v, &o->job_dir);
    default:
        if (key >= CMD_OPT_WINDOW)
            return cmd_analysis_option("serve", &o->ao, key, v);
        return cmd_nvml_option(&o->nvml, key, v);
    }
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
    struct serve_opts o = {.address = SERVE_DEFAULT_ADDRESS, .interval_ms = 1000, .timeout_ms = 10000,
                           .history_ms = SERVE_WEB_DEFAULT_HISTORY_S * 1000.0,
                           .max_conn = 1024, .max_procs = 16};
    cmd_analysis_init(&o.ao);
    int first, rc = opt_parse(&cmd_serve_entry, argc, argv, serve_set, &o, &first);
    if (rc != 0)
        return rc == OPT_DONE ? EXIT_OK : rc;
    if (o.ao.list_rules) {
        rules_print(&o.ao.cfg);
        return EXIT_OK;
    }
    if (first < argc)
        return opt_usage_error("serve", "unexpected argument \"%.200s\"", argv[first]);
    static struct serve_state st;
    serve_state_init(&st);
    st.interval_ms = o.interval_ms;
    st.textfile = o.textfile;
    st.prom = (struct prom_opts){o.dcgm, o.processes, (unsigned)o.max_procs};
    char err[1024], where[300];
    int fd = -1;
    bool nvml_open = false, collecting = false;
    pthread_t collector;
    struct serve_http *http = NULL;
    if (o.web_config && webconfig_load(o.web_config, &st.web, err, sizeof err) != 0) {
        util_warn("%s", err);
        rc = EXIT_USAGE;
        goto out;
    }
    if ((fd = serve_http_listen(o.address, err, sizeof err)) < 0) {
        rc = fd == SERVE_BAD_ADDRESS ? opt_usage_error("serve", "%s", err) : (util_warn("%s", err), EXIT_RUNTIME);
        goto out;
    }
    if ((rc = cmd_open_nvml(&o.nvml, false)) != 0)
        goto out;
    nvml_open = true;
    struct sampler_opts so = {NULL, 0, o.gpus, o.interval_ms > 1000 ? o.interval_ms : 1000, o.processes, 0,
                              o.job_dir};
    if (sampler_open(&st.sampler, &so, err, sizeof err) != 0) {
        rc = opt_usage_error("serve", "%s", err);
        goto out;
    }
    if (sampler_device_count(st.sampler) == 0)
        util_warn("NVML reports no GPU; serving the exporter's own metrics (gpumon_exporter_gpus 0)");
    serve_raise_nofile(o.max_conn);
    st.diag = diag_new(&o.ao.cfg, NULL, NULL);
    struct serve_web_opts wo = {o.interval_ms, o.history_ms / 1000, o.ao.cfg.window_s, "serve", NULL, o.processes};
    st.page = serve_web_new(&wo);
    serve_collect_once(&st);
    unsigned ngpus = st.self.gpus;   /* st.self is the collector's once it runs: read before */
    if (pthread_create(&collector, NULL, serve_collect_main, &st) != 0) {
        util_warn("cannot start the collector thread");
        rc = EXIT_RUNTIME;
        goto out;
    }
    collecting = true;
    struct serve_http_opts ho = {fd, (unsigned)o.max_conn, (unsigned)((o.timeout_ms + 999) / 1000)};
    if (!(http = serve_http_start(&st, &ho, err, sizeof err))) {
        util_warn("%s", err);
        rc = EXIT_RUNTIME;
        goto out;
    }
    serve_http_describe(fd, where, sizeof where);
    fprintf(stderr, "gpumon: serving %u GPU%s on %s://%s/metrics (every %.0f ms)\n", ngpus, ngpus == 1 ? "" : "s",
            webconfig_cert(st.web) ? "https" : "http", where, o.interval_ms);
    fprintf(stderr, "gpumon: the live page is at %s://%s/ (history: %u points of %.3g s, %.1f kB in memory)\n",
            webconfig_cert(st.web) ? "https" : "http", where, serve_web_points(st.page), serve_web_step_s(st.page),
            serve_web_ring_bytes(st.page, ngpus) / 1000.0);
    while (sig_wait(serve_signals, SIG_FOREVER, NULL) == SIGHUP)
        ;   /* documented as ignored */
    rc = EXIT_OK;
out:
    serve_http_stop(http);
    if (collecting && !serve_stop_collector(&st, collector)) {
        util_warn("the collector is stuck in an NVML call; exiting without waiting for it");
        close(fd);
        return rc;
    }
    if (fd >= 0)
        close(fd);
    sampler_close(st.sampler);
    if (nvml_open)
        nvml_close();
    diag_free(st.diag);
    serve_web_free(st.page);
    serve_state_free(&st);
    return rc;
}
