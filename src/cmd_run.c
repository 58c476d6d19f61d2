/*
 * cmd_run.c: `gpumon run [OPTIONS] -- CMD ARGS...`: starts the command,
 * samples the GPUs and the command's whole process tree (host.c, through
 * sampler_opts.job_pid), and feeds every record to the same diagnosis
 * session diagnose uses, to the JSON Lines sink (--output, watch's exact
 * format) and to the report (--report). Verdict changes go to stderr as
 * they happen; the summary goes to stderr when the command ends, so the
 * command's own standard output stays clean. SIGINT, SIGTERM and SIGHUP
 * are forwarded to the command from the handler itself (kill() is
 * async-signal-safe, so a slow NVML call does not delay them), except
 * those the terminal sent to the whole foreground group, which the
 * command received already; a signal ignored when gpumon started (nohup)
 * stays ignored for the command. Exit status: the command's, 128+N if a
 * signal N killed it, 127/126 if it could not be started.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "diag.h"
#include "exitcodes.h"
#include "nvml.h"
#include "out.h"
#include "report.h"
#include "sampler.h"
#include "sink.h"

static volatile sig_atomic_t run_child_pid, run_child_done;

static void run_on_signal(int sig, siginfo_t *info, void *uc)
{
    (void)uc;
    if (sig == SIGCHLD) {
        run_child_done = 1;
        return;
    }
    if (run_child_pid > 0 && (!info || info->si_code != SI_KERNEL))
        kill((pid_t)run_child_pid, sig);
}

static void run_signals(void)
{
    static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = run_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++) {
        if (sigaction(fwd[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN && fwd[i] != SIGCHLD)
            continue;   /* ignored by whoever started us (nohup): stays ignored for the command too */
        sigaction(fwd[i], &sa, NULL);
    }
}

static const char run_help[] =
    "Usage: gpumon run [OPTIONS] -- CMD [ARGS...]\n"
    "Run a training command, monitor the GPUs and the command's whole process tree (CPU in cores,\n"
    "busiest process, RSS), and explain low utilization as it happens: each verdict change is printed\n"
    "on stderr, and when the command ends a summary per GPU (mean, p50, p95 utilization, idle share,\n"
    "peak memory, time throttled) with the verdicts, their evidence and advice.\n\n"
    "  -i, --interval DUR   time between samples: 1s (default), 500ms, 100ms (minimum 10ms)\n"
    "  -g, --gpus LIST      GPUs to monitor: indices, UUIDs or PCI bus ids (default: all)\n"
    "  -o, --output FILE    append JSON Lines records to FILE (gpumon watch's format; gpumon diagnose\n"
    "                       and gpumon report read it)\n"
    "      --report FILE    write the HTML report to FILE when the command ends\n"
    "      --no-processes   leave per-process lists out of the JSON Lines records\n"
    CMD_ANALYSIS_HELP
    CMD_NVML_HELP
    "  -h, --help           this help\n\n"
    "SIGINT, SIGTERM and SIGHUP are forwarded to the command. Exit status: the command's own, 128+N\n"
    "when signal N ended it, 127 when it was not found, 126 when it could not be executed; gpumon's\n"
    "own failures before the start: 2 usage, 1 output file, 3-5 no NVML library, init failed, no GPU.\n";

struct run_opts {
    double interval_ms;
    const char *gpus, *output, *report;
    bool processes;
    struct cmd_nvml_opts nvml;
    struct cmd_analysis_opts ao;
};

static int run_parse(int argc, char **argv, struct run_opts *o)
{
    enum { OPT_REPORT = 0x1200, OPT_NO_PROCS };
    static const struct option longopts[] = {
        {"interval", required_argument, NULL, 'i'}, {"gpus", required_argument, NULL, 'g'},
        {"output", required_argument, NULL, 'o'},   {"report", required_argument, NULL, OPT_REPORT},
        {"no-processes", no_argument, NULL, OPT_NO_PROCS}, {"help", no_argument, NULL, 'h'},
        CMD_NVML_LONGOPTS, CMD_ANALYSIS_LONGOPTS, {NULL, 0, NULL, 0}};
    *o = (struct run_opts){.interval_ms = 1000, .processes = true};
    cmd_analysis_init(&o->ao);
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, "+:i:g:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (cmd_parse_interval("run", optarg, &o->interval_ms) != 0)
                return EXIT_USAGE;
            break;
        case 'g': o->gpus = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_REPORT: o->report = optarg; break;
        case OPT_NO_PROCS: o->processes = false; break;
        case 'h': fputs(run_help, stdout); return -1;
        case ':': return cmd_usage_error("run", "option %s needs a value", argv[optind - 1]);
        case '?': return cmd_usage_error("run", "unknown option %s", argv[optind - 1]);
        default:
            if (cmd_nvml_option(&o->nvml, c, optarg))
                break;
            if ((rc = cmd_analysis_option("run", &o->ao, c, optarg)) != 1)
                return rc ? rc : cmd_usage_error("run", "unknown option %s", argv[optind - 1]);
        }
    }
    if (o->ao.list_rules) {
        rules_print(&o->ao.cfg);
        return -1;
    }
    if (optind >= argc)
        return cmd_usage_error("run", "give the command to run: gpumon run [OPTIONS] -- CMD ARGS...");
    return 0;
}

/* Forks the command, held at a gate until go is written, so a failure
 * to open the sampler never leaves it running. Returns its pid, or -1. */
static pid_t run_fork(char **cmd, int *gate, int *status_fd)
{
    int go[2], st[2];
    if (pipe2(go, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(st, O_CLOEXEC) != 0) {
        close(go[0]), close(go[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        char b;
        close(go[1]);
        close(st[0]);
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (read(go[0], &b, 1) != 1)
            _exit(127);   /* gpumon gave up before the start */
        execvp(cmd[0], cmd);
        int e = errno;
        if (write(st[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(e == ENOENT ? 127 : 126);
    }
    close(go[0]);
    close(st[1]);
    if (pid < 0) {
        close(go[1]), close(st[0]);
        return -1;
    }
    *gate = go[1];
    *status_fd = st[0];
    return pid;
}

static void run_on_change(void *ctx, const struct diag_change *ch)
{
    struct report *rp = ctx;
    struct sbuf b;
    sbuf_init(&b);
    diag_change_line(ch, &b);
    fprintf(stderr, "gpumon run: %s\n", b.data);
    sbuf_free(&b);
    if (rp)
        report_change(rp, ch);
}

/* Samples until the command ends; returns its wait status. */
static int run_loop(const struct run_opts *o, pid_t child, struct sampler *smp, struct sink *sk, struct out *out,
                    struct diag *d, struct report *rp)
{
    struct sbuf b;
    struct record rec;
    sbuf_init(&b);
    memset(&rec, 0, sizeof rec);
    uint64_t step = (uint64_t)(o->interval_ms * 1e6), next = util_mono_ns();
    int status = 0;
    bool out_ok = true;
    for (bool last = false;;) {
        if (!last) {
            run_child_done = 0;
            if (waitpid(child, &status, WNOHANG) != 0) {
                /* The command ended: one more sample sees it gone, taken once the
                 * sampler's 0.5 s host cadence reads /proc again. */
                last = true;
                struct timespec pause = {0, 510000000};
                while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
                    ;
            }
        }
        cmd_sample(smp, &rec, step);
        if (o->output && out_ok) {
            sbuf_reset(&b);
            sk->ops->record(sk, &rec, &b);
            out_ok = out_write(out, b.data, b.len) == 0;
        }
        diag_feed(d, &rec);
        if (rp)
            report_feed(rp, &rec);
        if (last)
            break;
        for (uint64_t st = step; !run_child_done && util_sleep_next(&next, st) == EINTR; st = 0)
            ;
    }
    sbuf_free(&b);
    return status;
}

int cmd_run(int argc, char **argv)
{
    struct run_opts o;
    int rc = run_parse(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? EXIT_OK : rc;
    char **cmd = argv + optind, err[512];
    struct out out = {.fd = -1};
    if (o.output && out_open(&out, o.output, err, sizeof err) != 0) {
        util_warn("%s", err);
        return EXIT_RUNTIME;
    }
    if ((rc = cmd_open_nvml(&o.nvml, true)) != 0) {
        if (o.output)
            out_close(&out);
        return rc;
    }
    signal(SIGPIPE, SIG_IGN);
    run_signals();
    int gate, status_fd;
    pid_t child = run_fork(cmd, &gate, &status_fd);
    if (child < 0) {
        util_warn("run: cannot start %s: %s", cmd[0], strerror(errno));
        nvml_close();
        if (o.output)
            out_close(&out);
        return EXIT_RUNTIME;
    }
    run_child_pid = child;
    struct sampler_opts so = {NULL, 0, o.gpus, o.interval_ms > 1000 ? o.interval_ms : 1000, o.processes, child};
    struct sampler *smp;
    if (sampler_open(&smp, &so, err, sizeof err) != 0) {
        close(gate);   /* the command never starts */
        waitpid(child, NULL, 0);
        close(status_fd);
        nvml_close();
        if (o.output)
            out_close(&out);
        return cmd_usage_error("run", "%s", err);
    }
    int e = 0;
    ssize_t n = write(gate, "g", 1) == 1 ? read(status_fd, &e, sizeof e) : -1;
    close(gate);
    close(status_fd);
    if (n != 0) {   /* exec failed (or the child vanished before it) */
        int st;
        waitpid(child, &st, 0);
        fprintf(stderr, "gpumon run: cannot run %s: %s\n", cmd[0], n > 0 ? strerror(e) : "the child ended early");
        sampler_close(smp);
        nvml_close();
        if (o.output)
            out_close(&out);
        return n > 0 && e == ENOENT ? 127 : 126;
    }
    enum metric_id ids[METRIC_COUNT];
    for (int i = 0; i < METRIC_COUNT; i++)
        ids[i] = (enum metric_id)i;
    struct sink sk = {&sink_jsonl, ids, METRIC_COUNT, false, o.processes};
    struct report *rp = o.report ? report_new() : NULL;
    struct diag *d = diag_new(&o.ao.cfg, run_on_change, rp);
    int status = run_loop(&o, child, smp, &sk, &out, d, rp);
    run_child_pid = 0;
    diag_finish(d);
    struct sbuf b;
    sbuf_init(&b);
    diag_summary_text(d, &b);
    fprintf(stderr, "gpumon run: %s exited with %s %d\n%s", cmd[0], WIFSIGNALED(status) ? "signal" : "status",
            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), b.data ? b.data : "");
    sbuf_free(&b);
    if (rp) {
        char source[600];
        snprintf(source, sizeof source, "gpumon run %s", cmd[0]);
        if (report_write(rp, d, o.report, source, err, sizeof err) != 0)
            util_warn("run: %s", err);
        report_free(rp);
    }
    diag_free(d);
    sampler_close(smp);
    nvml_close();
    if (o.output)
        out_close(&out);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
