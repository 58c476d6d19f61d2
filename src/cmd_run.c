/*
 * cmd_run.c: `gpumon run [OPTIONS] -- CMD ARGS...`: starts the command,
 * samples the GPUs and the command's whole process tree (host.c, through
 * sampler_opts.job_pid), and feeds every record to the same diagnosis
 * session diagnose uses, to the JSON Lines sink (--output, watch's exact
 * format) and to the report (--report). Verdict changes go to stderr as
 * they happen; the summary goes to stderr when the command ends, so the
 * command's own standard output stays clean.
 *
 * A monitor never stops the work it watches: without a usable GPU the
 * command still runs (gpumon says once why it cannot watch the GPUs and
 * follows the command's CPU and memory only), and the exit status is
 * always the command's. Signals (sig.h) are blocked before anything
 * starts; a forwarder thread passes SIGINT and SIGTERM on to the
 * command at once, even while the sampler waits for a slow NVML call,
 * except those the terminal sent to the whole foreground group (the
 * command has them already); one ignored when gpumon started (nohup)
 * stays ignored for the command too. The child waits at a start gate with
 * signals blocked and restores gpumon's original dispositions before
 * exec, so a signal that arrives before the start reaches the command the
 * moment it can. SIGHUP is gpumon's own, as in watch: it reopens --output
 * (logrotate) and never reaches the command. Exit status: the command's, 128+N if a signal N killed
 * it, 127/126 if it could not be started.
 *
 * The job learns where to report its steps (steps.h, python/gpumon) from
 * GPUMON_STEPS, set before the fork so the child does nothing between
 * fork and exec but restore signals. `--attach PID` watches a process
 * that is already running (a notebook's kernel) instead of starting one:
 * until it exits, or until gpumon gets SIGINT or SIGTERM, which end the
 * watch (not the process), and the exit status is 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "cmd_web.h"
#include "compare.h"
#include "diag.h"
#include "exitcodes.h"
#include "host.h"
#include "metrics.h"
#include "nvml.h"
#include "out.h"
#include "report.h"
#include "sampler.h"
#include "sig.h"
#include "sink.h"
#include "steps.h"
#include "wfile.h"

enum { R_INTERVAL = 1, R_GPUS, R_OUTPUT, R_REPORT, R_NO_PROCS, R_ATTACH, R_STEPS, R_NO_STEPS, R_JOBS, R_BASELINE, R_WEB,
       R_WEB_CONFIG };

static const struct opt run_opts[] = {
    {"interval", "i", "DUR", R_INTERVAL, "time between samples: 1s (default), 500ms, 100ms (minimum 10ms)"},
    {"gpus", "g", "LIST", R_GPUS, "GPUs to monitor: indices, UUIDs or PCI bus ids (default: all)"},
    {"output", "o", "FILE", R_OUTPUT,
     "append JSON Lines records to FILE (gpumon watch's format; gpumon diagnose\nand gpumon report read it; "
     "FILE.zst: zstd-compressed)"},
    {"report", NULL, "FILE", R_REPORT, "write the HTML report to FILE when the command ends"},
    {"baseline", NULL, "LOG", R_BASELINE,
     "compare this run with an earlier one (its JSON Lines log) when the command ends,\nas gpumon compare LOG does: "
     "faster or slower, input wait, activity, energy"},
    {"no-processes", NULL, NULL, R_NO_PROCS, "leave per-process lists out of the JSON Lines records"},
    {"attach", NULL, "PID", R_ATTACH,
     "watch the running process PID and its children instead of starting a command,\nuntil it exits or gpumon "
     "gets SIGINT/SIGTERM (a notebook kernel: %%gpumon does this);\nits steps are read from --steps DIR only"},
    {"steps", NULL, "DIR", R_STEPS,
     "the step channel's directory (yours, mode 0700; default: a private one gpumon\nmakes and removes); the job "
     "finds it in GPUMON_STEPS"},
    {"hpc-job-mapping-dir", NULL, "DIR", R_JOBS, "each GPU's job ids from DIR: a file per GPU index, one job id per line\n(dcgm-exporter's format, re-read as it changes)"},
    {"web", NULL, "[HOST]:PORT", R_WEB,
     "serve the live page of this run at http://HOST:PORT/ while it runs (gpumon\nserve's page: charts, verdicts, "
     "steps/s; also /metrics); 127.0.0.1:0 picks a port"},
    {"web.config.file", NULL, "FILE", R_WEB_CONFIG, "TLS and basic auth for --web (gpumon serve's web config format)"},
    {"no-steps", NULL, NULL, R_NO_STEPS, "no step channel: the job's step timing (python/gpumon) stays off"},
    {NULL, NULL, NULL, 0, NULL},
};

/* SIGUSR1 is the forwarder's stop message from the main thread. */
static const int run_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, 0};
static const int run_forwarded[] = {SIGINT, SIGTERM, SIGUSR1, 0};
static const int run_between_samples[] = {SIGCHLD, SIGHUP, 0};   /* the command ended; reopen --output */

const struct cmd_entry cmd_run_entry = {
    .name = "run",
    .usage = "[OPTIONS] -- CMD [ARGS...] | --attach PID [OPTIONS]",
    .summary = "run a training command, watch its GPUs and processes, explain low utilization",
    .about = "Run a training command, monitor the GPUs and the command's whole process tree (CPU in cores,\n"
             "busiest process, RSS), and explain low utilization as it happens: each verdict change is printed\n"
             "on stderr, and when the command ends a summary: where the GPU time went (the ledger: compute, input\n"
             "wait, throttled, startup, pause, stalled, idle, lost, and what removing each would gain), the\n"
             "verdicts grouped by rule with their evidence and advice, and per GPU its utilization figures.\n"
             "A training loop that uses the Python package gpumon (gpumon.torch.timed, gpumon.keras.StepTimer,\n"
             "gpumon.step) reports each step's input wait and compute time through GPUMON_STEPS; its figures are then the evidence\n"
             "on input stalls, ahead of what utilization suggests.",
    .opts = (const struct opt *const[]){run_opts, cmd_analysis_opts, cmd_cost_opts, cmd_nvml_opts, NULL},
    .notes = "SIGINT and SIGTERM are forwarded to the command; SIGHUP reopens --output (logrotate) and is not\n"
             "forwarded. Without a usable GPU the command still runs, watched on the CPU side only, and the\n"
             "summary says why no GPU was watched; it always ends with the job's CPU and memory, and with how\n"
             "to report steps when the job reported none. Exit status: the command's own, 128+N when signal N\n"
             "ended it, 127 when it was not found, 126 when it could not be executed; before the start: 2 usage,\n"
             "1 an output cannot be written (--output is written by another gpumon or holds another format,\n"
             "--report cannot be created), 128+N signal N while waiting for a reader of a FIFO. With --attach:\n"
             "0, 2 usage or no such process.",
    .stop_at_operand = true,
    .signals = run_signals,
    .exec = cmd_run,
};

struct run_opts {
    double interval_ms;
    const char *gpus, *output, *report, *steps_dir, *job_dir, *baseline, *web, *web_config;
    bool processes, no_steps;
    int attach;
    struct cmd_nvml_opts nvml;
    struct cmd_analysis_opts ao;
};

static int run_set(void *ctx, int key, const char *v)
{
    struct run_opts *o = ctx;
    switch (key) {
    case R_INTERVAL: return cmd_parse_interval("run", v, &o->interval_ms);
    case R_GPUS:
        return cmd_parse_gpus("run", v, &o->gpus);
    case R_OUTPUT: return cmd_parse_output("run", "--output", v, &o->output);
    case R_REPORT: return cmd_parse_output("run", "--report", v, &o->report);
    case R_BASELINE: o->baseline = v; return 0;
    case R_NO_PROCS: o->processes = false; return 0;
    case R_STEPS: o->steps_dir = v; return 0;
    case R_NO_STEPS: o->no_steps = true; return 0;
    case R_JOBS: return cmd_parse_job_dir("run", v, &o->job_dir);
    case R_WEB: o->web = v; return 0;
    case R_WEB_CONFIG: o->web_config = v; return 0;
    case R_ATTACH: {
        char *end;
        long pid = strtol(v, &end, 10);
        if (end == v || *end || pid <= 0 || pid > 0x3fffffff)
            return opt_usage_error("run", "--attach %s: give a process id (a positive integer)", v);
        o->attach = (int)pid;
        return 0;
    }
    default:
        if (key >= CMD_OPT_WINDOW)
            return cmd_analysis_option("run", &o->ao, key, v);
        return cmd_nvml_option(&o->nvml, key, v);
    }
}

static atomic_bool run_forward_stop;

/* Passes the forwarded signals on to the command until the main thread
 * says stop (run_forward_stop, then SIGUSR1 to this thread). */
static void *run_forward_main(void *arg)
{
    pid_t child = *(const pid_t *)arg;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int sig = sig_wait(run_forwarded, SIG_FOREVER, &si);
        if (sig == SIGUSR1) {
            if (atomic_load(&run_forward_stop))
                return NULL;
            continue;   /* someone else's SIGUSR1: not ours to forward */
        }
        if (sig > 0 && si.si_code != SI_KERNEL && !sig_ignored_at_start(sig))
            kill(child, sig);   /* one ignored at start is ignored by the command too (nohup) */
    }
}

/* Forks the command, held at a gate (signals blocked) until go is written,
 * so a failure to open the sampler never leaves it running. Returns its
 * pid, or -1. */
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
        if (read(go[0], &b, 1) != 1)
            _exit(127);   /* gpumon gave up before the start */
        sig_restore_child();   /* a signal forwarded meanwhile is delivered here */
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

/* Reaps every ended child: the command, and (gpumon being their subreaper)
 * descendants it left behind that have ended since. True once the command
 * itself has ended, its wait status in *status. */
static bool run_reap(pid_t child, int *status)
{
    bool ended = false;
    int st;
    pid_t p;
    while ((p = waitpid(-1, &st, WNOHANG)) > 0)
        if (p == child) {
            *status = st;
            ended = true;
        }
    return ended;
}

/* After the command ended: its descendants that still run (reparented to
 * gpumon, their subreaper) are said, by pid, since gpumon stops here. */
static void run_leftovers(const char *cmd)
{
    struct host_sample h;
    int pids[8], n;
    host_init(&h);
    n = host_children(&h, (int)getpid(), pids, 8);
    host_close(&h);
    if (n == 0)
        return;
    char list[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? ", " : "", pids[i]);
    fprintf(stderr, "gpumon run: %s exited, but %s%d of the processes it started still run%s (pid %s%s): gpumon "
            "stops watching here; they keep running (stuck data-loader workers? kill them if so)\n", cmd,
            n == 8 ? "at least " : "", n, n == 1 ? "s" : "", list, n == 8 ? ", ..." : "");
}

static const int run_stop_signals[] = {SIGINT, SIGTERM, 0};
static const int run_attach_signals[] = {SIGINT, SIGTERM, SIGHUP, 0};   /* stop watching; reopen --output */

/* The job's CPU and memory over the whole run, from the records' job.* figures (host.c): what run says
 * it watches, summarized at its end whether a GPU was watched or not. Records after the command ended
 * (no process left) do not count. */
struct run_jobsum {
    unsigned n, nread;     /* records with the tree's figures; of them, with its storage reads */
    double first_t, last_t, cpu_sum, cpu_max, top_max, read_sum, read_max, rss_max, procs_max, ncpus;
};

static double run_host_value(const struct record *r, enum metric_id m)
{
    const struct value *v = &r->host[m];
    if (v->state != VS_OK)
        return NAN;
    return metric_table[m].kind == MK_FLOAT ? v->u.f : (double)v->u.i;
}

static void run_jobsum_feed(struct run_jobsum *j, const struct record *r)
{
    double cpu = run_host_value(r, M_JOB_CPU), procs = run_host_value(r, M_JOB_PROCS);
    if (isnan(cpu) || !(procs > 0))
        return;
    double t = (double)r->time.tv_sec + r->time.tv_nsec / 1e9, top = run_host_value(r, M_JOB_CPU_TOP);
    double rss = run_host_value(r, M_JOB_RSS), rd = run_host_value(r, M_JOB_READ), n = run_host_value(r, M_HOST_CPUS);
    if (!j->n++)
        j->first_t = t;
    j->last_t = t;
    j->cpu_sum += cpu;
    j->cpu_max = fmax(j->cpu_max, cpu);
    j->top_max = isnan(top) ? j->top_max : fmax(j->top_max, top);
    j->rss_max = isnan(rss) ? j->rss_max : fmax(j->rss_max, rss);
    j->procs_max = fmax(j->procs_max, procs);
    j->ncpus = isnan(n) ? j->ncpus : n;
    if (!isnan(rd)) {
        j->nread++;
        j->read_sum += rd;
        j->read_max = fmax(j->read_max, rd);
    }
}

/* "Job (the command's process tree, 12 s): CPU mean 1.02 cores, peak 1.98 (busiest process up to 1.00) of 16
 * CPUs; memory up to 3.1 GiB (RSS) in up to 4 processes; storage reads 0.0 MB/s mean, 0.0 MB/s peak" */
static void run_jobsum_text(const struct run_jobsum *j, const char *what, struct sbuf *b)
{
    if (!j->n) {
        sbuf_printf(b, "Job (%s): no figures of its process tree (it ended before a second reading)\n", what);
        return;
    }
    sbuf_printf(b, "Job (%s, %.0f s): CPU mean %.2f cores, peak %.2f (busiest process up to %.2f)", what,
                j->last_t - j->first_t, j->cpu_sum / j->n, j->cpu_max, j->top_max);
    if (j->ncpus > 0)
        sbuf_printf(b, " of %.0f CPUs", j->ncpus);
    sbuf_printf(b, "; memory up to %.*f %s (RSS) in up to %.0f process%s", j->rss_max >= 1024 ? 1 : 0,
                j->rss_max >= 1024 ? j->rss_max / 1024 : j->rss_max, j->rss_max >= 1024 ? "GiB" : "MiB",
                j->procs_max, j->procs_max == 1 ? "" : "es");
    if (j->nread)
        sbuf_printf(b, "; storage reads %.1f MB/s mean, %.1f MB/s peak", j->read_sum / j->nread / 1024,
                    j->read_max / 1024);
    sbuf_putc(b, '\n');
}

/* How to report steps, by the framework the job runs (host_job_framework): one line, said at the end of a
 * run whose job reported none, since step timing turns an inferred input stall into a measured one. */
static const char *const run_step_hints[HOST_FW_COUNT] = {
    [HOST_FW_UNKNOWN] = "wrap each step's compute in `with gpumon.step():` (PyTorch: `for batch in "
                        "gpumon.torch.timed(loader):`; Keras: `model.fit(..., callbacks=[gpumon.keras.StepTimer()])`)",
    [HOST_FW_TORCH] = "it runs PyTorch: `import gpumon.torch` and loop `for batch in gpumon.torch.timed(loader):`",
    [HOST_FW_TENSORFLOW] = "it runs TensorFlow: `import gpumon.keras` and "
                           "`model.fit(..., callbacks=[gpumon.keras.StepTimer()])`",
    [HOST_FW_JAX] = "it runs JAX: `import gpumon` and wrap each step's compute in `with gpumon.step():`",
};

/* What run watches: the command it started (child), or a running process (attach), and the step channel. */
struct run_job {
    pid_t child;
    int attach;
    struct steps *steps;
    int stop_sig;          /* attach: the signal that ended the watch; 0: the process exited */
    struct run_jobsum sum;
    enum host_framework fw;   /* what the tree runs, looked for every few seconds until found */
    uint64_t fw_next;
};

/* While the job reports no steps, every 3 s: which framework it runs (for the hint at the end). */
static void run_look_for_framework(struct run_job *job)
{
    uint64_t now = util_mono_ns();
    if (!job->steps || job->fw != HOST_FW_UNKNOWN || now < job->fw_next || steps_reported(job->steps))
        return;
    struct host_sample h;
    host_init(&h);
    job->fw = host_job_framework(&h, job->attach ? job->attach : job->child);
    host_close(&h);
    job->fw_next = now + 3000000000ull;
}

/* Whether the job has ended: the command (reaped, its status in *status) or the attached process. */
static bool run_ended(struct run_job *job, int *status)
{
    if (job->attach)
        return kill(job->attach, 0) != 0 && errno == ESRCH;
    return run_reap(job->child, status);
}

/* Waits until the next sample's deadline, or until the command ends
 * (SIGCHLD); SIGHUP reopens --output on the way (logrotate moved it). With
 * --attach, SIGINT and SIGTERM end the watch: true then, the signal in
 * job->stop_sig. */
static bool run_wait(const struct run_opts *o, struct run_job *job, struct out *out, uint64_t deadline)
{
    for (;;) {
        int sig = sig_wait(job->attach ? run_attach_signals : run_between_samples, deadline, NULL);
        if (sig != SIGHUP) {
            if (job->attach && sig > 0)
                job->stop_sig = sig;
            return job->attach && sig > 0;
        }
        char err[512];
        if (o->output && out_reopen(out, err, sizeof err) != 0)
            util_warn("run: %s", err);
    }
}

/* Whether a wait for a FIFO's reader (--output) should end: SIGINT or
 * SIGTERM pending (before the start, or with --attach), or the job over
 * (seen without reaping it: run_reap takes its status). */
static bool run_out_stop(const void *ctx)
{
    const struct run_job *job = ctx;
    if (sig_pending(run_stop_signals))
        return true;
    if (job->attach)
        return kill(job->attach, 0) != 0 && errno == ESRCH;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return job->child > 0 && waitid(P_PID, (id_t)job->child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           si.si_pid == job->child;
}

/* The live page of --web (cmd_web.h): the module's table and its server; ops NULL without --web. */
struct run_web {
    const struct cmd_web_ops *ops;
    struct cmd_web *w;
};

/* Samples until the job ends; returns the command's wait status (0 when attached). */
static int run_loop(const struct run_opts *o, struct run_job *job, struct sampler *smp, struct sink *sk,
                    struct out *out, struct diag *d, struct report *rp, struct compare_run *cmp,
                    const struct run_web *web)
{
    struct sbuf b;
    struct record rec;
    sbuf_init(&b);
    memset(&rec, 0, sizeof rec);
    uint64_t step = sampler_step_ns(smp, o->interval_ms), next = util_mono_ns();
    int status = 0;
    bool out_ok = true;
    for (bool last = false;;) {
        if (!last && run_ended(job, &status)) {
            /* It ended: one more sample sees it gone, taken once the
             * sampler's 0.5 s host cadence reads /proc again. */
            last = true;
            struct timespec pause = {0, 510000000};
            while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
                ;
        }
        cmd_sample(smp, &rec, step);
        if (job->steps)
            steps_fill(job->steps, &rec, util_mono_ns());
        run_jobsum_feed(&job->sum, &rec);
        if (!last)
            run_look_for_framework(job);
        if (o->output && out_ok) {
            sbuf_reset(&b);
            sk->ops->record(sk, &rec, &b);
            out_ok = out_write(out, b.data, b.len) == 0;
        }
        diag_feed(d, &rec);
        if (web->w)
            web->ops->feed(web->w, &rec, d);
        if (rp)
            report_feed(rp, d, &rec);
        if (cmp)
            compare_run_feed(cmp, &rec);
        if (last)
            break;
        util_next_deadline(&next, step);
        if (run_wait(o, job, out, next))
            last = true;   /* told to stop watching: one last sample now */
    }
    sbuf_free(&b);
    return status;
}

/* Opens the GPUs; without a usable GPU the command runs all the same.
 * Returns 0 (*watching says whether NVML is open) or a usage error. */
static int run_open_gpus(const struct run_opts *o, const char *cmd, bool *watching)
{
    int rc = cmd_open_nvml(&o->nvml, true);
    *watching = rc == 0;
    if (rc == EXIT_USAGE)
        return rc;
    if (rc != 0)
        fprintf(stderr, "gpumon run: cannot watch the GPUs (above); running %s anyway, watching its CPU and "
                "memory only\n", cmd);
    return 0;
}

/* Opens the step channel and tells the job where it is (GPUMON_STEPS, inherited by the command). Without
 * --steps a failure only costs the step timing. */
static int run_open_steps(const struct run_opts *o, struct steps **st)
{
    char err[512];
    *st = NULL;
    if (o->attach && !o->steps_dir)
        return 0;   /* a running process cannot learn of a directory made now: --steps names one it knows */
    if (o->no_steps) {
        unsetenv("GPUMON_STEPS");   /* not an outer gpumon run's */
        return 0;
    }
    if (steps_open(st, o->steps_dir, err, sizeof err) != 0) {
        if (o->steps_dir)
            return opt_usage_error("run", "%s", err);
        unsetenv("GPUMON_STEPS");
        util_warn("run: %s; the job's step timing stays off", err);
        return 0;
    }
    if (!o->attach)
        setenv("GPUMON_STEPS", steps_dir(*st), 1);
    return 0;
}

/* Starts the live page of --web before anything else starts, so a failure leaves nothing running: 0, or
 * the exit status (2 a bad address or web config, 1 the address cannot be bound or no module). */
static int run_open_web(const struct run_opts *o, char **cmd, const char *name, struct run_web *web)
{
    char what[256] = "", err[1024], where[400];
    bool usage = false;
    if (o->attach)
        snprintf(what, sizeof what, "%s", name);
    for (int i = 0; !o->attach && cmd[i] && strlen(what) < sizeof what - 1; i++)
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", i ? " " : "", cmd[i]);
    if (!(web->ops = cmd_web_load()))
        return EXIT_RUNTIME;
    struct cmd_web_opts wo = {o->web, o->web_config, what, o->interval_ms, o->ao.cfg.window_s, o->processes};
    if (!(web->w = web->ops->start(&wo, where, sizeof where, err, sizeof err, &usage))) {
        if (usage)
            return opt_usage_error("run", "%s", err);
        util_warn("run: %s", err);
        return EXIT_RUNTIME;
    }
    fprintf(stderr, "gpumon run: the live page is at %s\n", where);
    return 0;
}

/* Starts the command held at its gate (see run_fork); returns 0 once it runs, else the exit status. */
static int run_start(char **cmd, pid_t *child, int *gate, int *status_fd)
{
    int e = 0;
    ssize_t n = write(*gate, "g", 1) == 1 ? read(*status_fd, &e, sizeof e) : -1;
    if (n == 0)
        return 0;
    /* exec failed (or the child ended before it: a signal) */
    int st;
    waitpid(*child, &st, 0);
    if (n < 0 && WIFSIGNALED(st)) {
        fprintf(stderr, "gpumon run: %s was ended by signal %d before it started\n", cmd[0], WTERMSIG(st));
        return 128 + WTERMSIG(st);
    }
    fprintf(stderr, "gpumon run: cannot run %s: %s\n", cmd[0], n > 0 ? strerror(e) : "the child ended early");
    return n > 0 && e == ENOENT ? 127 : 126;
}

/* The comparison with the baseline (--baseline), on stderr. */
static void run_compare(const char *baseline, const struct compare_run *base, struct compare_run *cur)
{
    struct compare_result res;
    struct sbuf b;
    sbuf_init(&b);
    compare_run_finish(cur);
    compare_runs(base, cur, &res);
    compare_text(&res, baseline, "this run", &b);
    fprintf(stderr, "\nAgainst the baseline:\n%s", b.data ? b.data : "");
    sbuf_free(&b);
}

/* The end of the run: the summary on stderr (the GPUs', or why none was watched; the job's CPU and
 * memory; its steps, or how to report them), the comparison with the baseline, then the report. */
static void run_finish(const struct run_opts *o, const char *what, const struct run_job *job, int status,
                       bool watching, struct diag *d, struct report *rp, const struct compare_run *base,
                       struct compare_run *cur)
{
    char err[512];
    struct sbuf b;
    sbuf_init(&b);
    diag_summary_text(d, &b);
    if (job->attach && job->stop_sig)
        fprintf(stderr, "gpumon run: stopped watching pid %d (signal %d)\n", job->attach, job->stop_sig);
    else if (job->attach)
        fprintf(stderr, "gpumon run: pid %d exited\n", job->attach);
    else
        fprintf(stderr, "gpumon run: %s exited with %s %d\n", what, WIFSIGNALED(status) ? "signal" : "status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    if (!watching)
        sbuf_printf(&b, "No GPU was watched: %s; what follows is the job's CPU and memory only\n",
                    cmd_nvml_failure()[0] ? cmd_nvml_failure() : "NVML could not be opened");
    run_jobsum_text(&job->sum, job->attach ? "the process tree" : "the command's process tree", &b);
    fputs(b.data ? b.data : "", stderr);
    if (job->steps) {
        steps_describe(job->steps, err, sizeof err);
        fprintf(stderr, "Step channel: %s\n", err);
        if (!steps_reported(job->steps))
            fprintf(stderr, "Step timing: the job reported no steps; %s, and gpumon measures each step's input "
                    "wait instead of inferring it from utilization\n", run_step_hints[job->fw]);
    }
    sbuf_free(&b);
    if (base && cur)
        run_compare(o->baseline, base, cur);
    if (rp) {
        char source[600];
        snprintf(source, sizeof source, "gpumon run %.500s", what);
        size_t size = 0;
        if (report_write(rp, d, o->report, source, &size, err, sizeof err) != 0)
            util_warn("run: %s", err);
        else
            fprintf(stderr, "gpumon run: wrote the report %s (%.1f kB)\n", o->report, size / 1000.0);
    }
}

int cmd_run(int argc, char **argv)
{
    struct run_opts o = {.interval_ms = 1000, .processes = true};
    cmd_analysis_init(&o.ao);
    int first, rc = opt_parse(&cmd_run_entry, argc, argv, run_set, &o, &first);
    if (rc != 0)
        return rc == OPT_DONE ? EXIT_OK : rc;
    if ((rc = cmd_analysis_ready("run", &o.ao)) != 0)
        return rc;
    if (o.ao.list_rules) {
        rules_print(&o.ao.cfg);
        return EXIT_OK;
    }
    if (first < argc && !strcmp(argv[first], "--"))
        first++;
    if (first >= argc && !o.attach)
        return opt_usage_error("run", "give the command to run: gpumon run [OPTIONS] -- CMD ARGS...");
    if (first < argc && o.attach)
        return opt_usage_error("run", "--attach watches a running process: give no command with it");
    if (o.no_steps && o.steps_dir)
        return opt_usage_error("run", "--steps and --no-steps contradict each other");
    if (o.attach && kill(o.attach, 0) != 0 && errno == ESRCH)
        return opt_usage_error("run", "--attach %d: no such process", o.attach);
    char **cmd = argv + first, err[512], what[32];
    snprintf(what, sizeof what, "pid %d", o.attach);
    const char *name = o.attach ? what : cmd[0];
    struct out out = {.fd = -1};
    struct sampler *smp = NULL;
    struct diag *d = NULL;
    struct report *rp = NULL;
    struct compare_run *base = NULL, *cur = NULL;
    struct run_job job = {.child = -1, .attach = o.attach};
    bool watching = false, forwarding = false;
    pthread_t fwd;
    int gate = -1, status_fd = -1;
    if (o.web_config && !o.web)
        return opt_usage_error("run", "--web.config.file is for --web: give the address to serve the page on");
    if (o.output && o.report && cmd_same_file(o.output, o.report))
        return opt_usage_error("run", "--output and --report name the same file (%.200s): the report would "
                               "replace the log", o.report);
    if (o.report && wfile_check(o.report, err, sizeof err) != 0) {   /* now, not after the job */
        fprintf(stderr, "gpumon run: --report: %s\n", err);
        return EXIT_RUNTIME;
    }
    if (o.baseline && (rc = cmd_compare_load("run", o.baseline, &base)) != 0)
        return rc;   /* before anything starts: the comparison asked for cannot be made */
    if (o.output && (rc = out_open(&out, o.output, run_out_stop, &job, err, sizeof err)) != 0) {
        compare_run_free(base);
        if (rc == OUT_STOPPED) {
            int sig = sig_wait(run_stop_signals, 0, NULL);
            fprintf(stderr, "gpumon run: %s (signal %d)%s%s%s\n", err, sig, o.attach ? "" : "; ",
                    o.attach ? "" : name, o.attach ? "" : " was not started");
            return o.attach ? EXIT_OK : 128 + (sig > 0 ? sig : SIGTERM);
        }
        util_warn("%s", err);
        return EXIT_RUNTIME;
    }
    if (o.output && (rc = cmd_check_append("run", o.output, "jsonl", NULL)) != 0) {
        out_close(&out);
        compare_run_free(base);
        return rc;
    }
    struct run_web web = {NULL, NULL};
    if (o.web && (rc = run_open_web(&o, argv + first, name, &web)) != 0) {
        if (o.output)
            out_close(&out);
        compare_run_free(base);
        return rc;
    }
    if ((rc = run_open_steps(&o, &job.steps)) != 0 || (rc = run_open_gpus(&o, name, &watching)) != 0)
        goto out;
    if (!o.attach) {
        /* orphans of the command come to gpumon (to be reaped, and named if they outlive it) */
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        if ((job.child = run_fork(cmd, &gate, &status_fd)) < 0) {
            util_warn("run: cannot start %s: %s", cmd[0], strerror(errno));
            rc = EXIT_RUNTIME;
            goto out;
        }
        atomic_store(&run_forward_stop, false);
        forwarding = pthread_create(&fwd, NULL, run_forward_main, &job.child) == 0;
    }
    struct sampler_opts so = {NULL, 0, o.gpus, o.interval_ms > 1000 ? o.interval_ms : 1000, o.processes,
                              o.attach ? o.attach : job.child, o.job_dir};
    if (sampler_open(&smp, &so, err, sizeof err) != 0) {
        if (gate >= 0) {
            close(gate);   /* the command never starts */
            gate = -1;
            waitpid(job.child, NULL, 0);
        }
        rc = opt_usage_error("run", "%s", err);
        goto out;
    }
    if (job.steps)
        steps_set_speed(job.steps, nvml_clock_speed());   /* the job's times on the records' time axis */
    if (!o.attach && (rc = run_start(cmd, &job.child, &gate, &status_fd)) != 0)
        goto out;
    enum metric_id ids[METRIC_COUNT];
    for (int i = 0; i < METRIC_COUNT; i++)
        ids[i] = (enum metric_id)i;
    struct sink sk = {&sink_jsonl, ids, METRIC_COUNT, false, o.processes, 0};
    rp = o.report ? report_new() : NULL;
    d = diag_new(&o.ao.cfg, run_on_change, rp);
    diag_set_cost(d, o.ao.gpu_hour_cost);
    cur = base ? compare_run_new() : NULL;
    int status = run_loop(&o, &job, smp, &sk, &out, d, rp, cur, &web);
    if (!o.attach)
        run_leftovers(cmd[0]);
    diag_finish(d);
    run_finish(&o, name, &job, status, watching, d, rp, base, cur);
    rc = o.attach ? EXIT_OK : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
out:
    if (forwarding) {
        atomic_store(&run_forward_stop, true);
        pthread_kill(fwd, SIGUSR1);
        pthread_join(fwd, NULL);
    }
    if (gate >= 0)
        close(gate);
    if (status_fd >= 0)
        close(status_fd);
    if (web.w)
        web.ops->stop(web.w);
    report_free(rp);
    compare_run_free(base);
    compare_run_free(cur);
    diag_free(d);
    sampler_close(smp);
    steps_close(job.steps);
    if (watching)
        nvml_close();
    if (o.output && out_close(&out) != 0)
        util_warn("run: some records of %s were lost (above); the exit status stays the command's", o.output);
    return rc;
}
