/*
 * cmd_top.c: `gpumon top`, the live view (built into gpumon-top.so). Parses
 * options, then starts in an order that leaves nothing half-started and
 * never touches NVML when the terminal cannot be used: the terminal is
 * checked (a terminal on both ends, TERM set and not dumb: else exit 2),
 * NVML opened as watch opens it (the same one-line causes and statuses),
 * the sampler opened, the collector thread started, and only then the
 * screen taken. SIGTSTP stays blocked on every thread but the UI's, so
 * ncurses' suspend handler (Ctrl-Z) runs where the screen is drawn. The
 * terminal is given back before anything else at the end; a collector
 * stuck in a hung NVML call is not waited for past two seconds.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "cmd.h"
#include "cmd_top.h"
#include "exitcodes.h"
#include "nvml.h"
#include "top.h"

enum { T_INTERVAL = 1, T_GPUS };

#define TOP_INTERVAL_MIN_MS 100.0
#define TOP_INTERVAL_MAX_MS 3600000.0

static const struct opt top_opts[] = {
    {"interval", "i", "DUR", T_INTERVAL,
     "time between samples: 1s (default), 100ms (the minimum for a screen) to 1h;\n+ and - change it while "
     "running"},
    {"gpus", "g", "LIST", T_GPUS, "GPUs to show: indices, UUIDs or PCI bus ids, comma-separated"},
    {NULL, NULL, NULL, 0, NULL},
};

static const int top_signals[] = CMD_TOP_SIGNALS;

const struct cmd_entry cmd_top_entry = {
    .name = "top",
    .usage = "[OPTIONS]",
    .about = "A live view of every GPU in the terminal: utilization with the driver's sub-second range, SM and\n"
             "tensor activity (GPM), memory, temperature, power against its limit, clocks and the reasons that\n"
             "hold them down, history graphs, and the verdict of gpumon run's rules on each GPU (Enter shows\n"
             "its evidence and advice); below, the GPU processes with user, container, GPU memory, SM share\n"
             "(where the driver reports it), CPU and command, sorted, filtered, as a tree, and signalled.\n"
             "Sampling runs on its own thread: a hung NVML call freezes the data, not the screen, and the\n"
             "header says how old the data is. Press ? in top for the keys.",
    .opts = (const struct opt *const[]){top_opts, cmd_analysis_opts, cmd_nvml_opts, NULL},
    .notes = "Needs a terminal (over SSH, in tmux or screen too) of at least 60x12 with TERM set: not a terminal,\n"
             "or TERM=dumb, is refused with exit status 2 (use gpumon watch there). Colours unless NO_COLOR is\n"
             "set; block graphs when the locale is UTF-8, ASCII otherwise. q, SIGINT, SIGTERM and SIGHUP end it\n"
             "(exit 0) with the terminal restored. Exit status: 2 usage or no usable terminal, 3-5 no NVML\n"
             "library, init failed, no GPU.",
    .signals = top_signals,
    .exec = cmd_top,
};

struct top_opts {
    double interval_ms;
    const char *gpus;
    struct cmd_nvml_opts nvml;
    struct cmd_analysis_opts ao;
};

static int top_set(void *ctx, int key, const char *v)
{
    struct top_opts *o = ctx;
    switch (key) {
    case T_INTERVAL:
        return cmd_parse_duration("top", "--interval", v, TOP_INTERVAL_MIN_MS, TOP_INTERVAL_MAX_MS, &o->interval_ms);
    case T_GPUS: return cmd_parse_gpus("top", v, &o->gpus);
    default:
        if (key >= CMD_OPT_WINDOW)
            return cmd_analysis_option("top", &o->ao, key, v);
        return cmd_nvml_option(&o->nvml, key, v);
    }
}

int cmd_top(int argc, char **argv)
{
    struct top_opts o = {.interval_ms = 1000};
    cmd_analysis_init(&o.ao);
    int first, rc = opt_parse(&cmd_top_entry, argc, argv, top_set, &o, &first);
    if (rc != 0)
        return rc == OPT_DONE ? EXIT_OK : rc;
    if (o.ao.list_rules) {
        rules_print(&o.ao.cfg);
        return EXIT_OK;
    }
    if (first < argc)
        return opt_usage_error("top", "unexpected argument \"%.200s\"", argv[first]);
    char why[1024];
    if (top_term_check(why, sizeof why) != 0) {
        fprintf(stderr, "gpumon top: %s\n", why);
        return EXIT_USAGE;
    }
    sigset_t tstp;
    sigemptyset(&tstp);
    sigaddset(&tstp, SIGTSTP);
    pthread_sigmask(SIG_BLOCK, &tstp, NULL);   /* threads started from here on inherit it */
    struct sampler *smp = NULL;
    struct top_collector *col = NULL;
    int efd = -1;
    bool nvml_open = false;
    if ((rc = cmd_open_nvml(&o.nvml, true)) != 0)
        goto out;
    nvml_open = true;
    struct sampler_opts so = {NULL, 0, o.gpus, 1000, true, 0, NULL};
    if (sampler_open(&smp, &so, why, sizeof why) != 0) {
        rc = opt_usage_error("top", "%s", why);
        goto out;
    }
    if ((efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
        !(col = top_collect_start(smp, &o.ao.cfg, o.interval_ms, efd))) {
        util_warn("cannot start the collector thread");
        rc = EXIT_RUNTIME;
        goto out;
    }
    if (top_term_open(why, sizeof why) != 0) {
        fprintf(stderr, "gpumon top: %s\n", why);
        rc = EXIT_USAGE;
        goto out;
    }
    pthread_sigmask(SIG_UNBLOCK, &tstp, NULL);
    rc = top_ui_run(col, efd, top_signals, o.interval_ms);
    top_term_close();
out:
    if (col && !top_collect_stop(col, 2.0)) {
        util_warn("the sampler is stuck in an NVML call; exiting without waiting for it");
        return rc;
    }
    if (efd >= 0)
        close(efd);
    sampler_close(smp);
    if (nvml_open)
        nvml_close();
    return rc;
}
