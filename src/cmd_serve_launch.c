/*
 * cmd_serve_launch.c: `gpumon serve` as gpumon itself knows it. The
 * exporter (cmd_serve.c and the serve_* files) is built into a module,
 * gpumon-serve.so, with libmicrohttpd, GnuTLS, libyaml and libcrypt; this
 * launcher loads it only when serve runs, so the other commands never map
 * those libraries (their memory and start-up). The module resolves its
 * calls into gpumon's core against this binary, so it must come from the
 * same build: its version is checked before it runs. gpumon run --web
 * loads the same module for its live page (cmd_web_load, cmd_web.h).
 */
#include <dlfcn.h>
#include <stdio.h>
#include "cmd.h"
#include "cmd_web.h"
#include "exitcodes.h"

#ifndef GPUMON_SERVE_INSTALLED
#define GPUMON_SERVE_INSTALLED "/usr/local/lib/gpumon/gpumon-serve.so"
#endif

static int cmd_serve_launch(int argc, char **argv)
{
#ifndef GPUMON_HAVE_SERVE
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpumon serve: this gpumon was built without the Prometheus exporter: install "
            "libmicrohttpd-dev, libgnutls28-dev, libyaml-dev and libcrypt-dev (scripts/deps.sh does), then "
            "configure and build again (cmake -S . -B build -DGPUMON_SERVE=ON)\n");
    return EXIT_RUNTIME;
#else
    return cmd_run_module("serve", "the exporter module", "gpumon-serve.so", GPUMON_SERVE_INSTALLED,
                          "gpumon_serve_version", "cmd_serve", argc, argv);
#endif
}

const struct cmd_web_ops *cmd_web_load(void)
{
#ifndef GPUMON_HAVE_SERVE
    fprintf(stderr, "gpumon run: --web: this gpumon was built without the exporter module, which serves the "
            "page: install libmicrohttpd-dev, libgnutls28-dev, libyaml-dev and libcrypt-dev, then configure and "
            "build again (cmake -S . -B build -DGPUMON_SERVE=ON)\n");
    return NULL;
#else
    static const struct cmd_web_ops *ops;
    if (ops)
        return ops;
    void *dl = cmd_load_module("run", "--web: the exporter module", "gpumon-serve.so", GPUMON_SERVE_INSTALLED,
                               "gpumon_serve_version");
    if (!dl)
        return NULL;
    if (!(ops = dlsym(dl, "gpumon_serve_web"))) {
        fprintf(stderr, "gpumon run: --web: the exporter module lacks its live page (gpumon_serve_web); reinstall "
                "gpumon\n");
        dlclose(dl);
    }
    return ops;   /* the module stays loaded */
#endif
}

const struct cmd_entry cmd_serve_launcher = {
    .name = "serve",
    .summary = "Prometheus exporter: /metrics over HTTP(S), optional basic auth, dcgm names",
    .signals = (const int[])CMD_SERVE_SIGNALS,
    .exec = cmd_serve_launch,
};
