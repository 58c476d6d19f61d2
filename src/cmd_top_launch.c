/*
 * cmd_top_launch.c: `gpumon top` as gpumon itself knows it. The live view
 * (cmd_top.c and the top_* files) is built into a module, gpumon-top.so,
 * linked with ncursesw; this launcher loads it only when top runs, so
 * watch, query, run, diagnose and report never map a curses library (their
 * memory and start-up stay as measured). The module resolves its calls
 * into gpumon's core against this binary, so it must come from the same
 * build: its version is checked before it runs. Built without ncursesw,
 * gpumon says what to install.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "cmd_top.h"
#include "exitcodes.h"

#ifndef GPUMON_TOP_INSTALLED
#define GPUMON_TOP_INSTALLED "/usr/local/lib/gpumon/gpumon-top.so"
#endif

static int cmd_top_launch(int argc, char **argv)
{
#ifndef GPUMON_HAVE_TOP
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpumon top: this gpumon was built without the live view: install libncurses-dev (it holds "
            "ncursesw; scripts/deps.sh does), then configure and build again (cmake -S . -B build -DGPUMON_TOP=ON); "
            "gpumon watch works without it\n");
    return EXIT_RUNTIME;
#else
    char path[PATH_MAX];
    if (!cmd_find_part("gpumon-top.so", GPUMON_TOP_INSTALLED, path, sizeof path)) {
        fprintf(stderr, "gpumon top: the live view module gpumon-top.so was not found next to gpumon or in %s; "
                "build it (cmake --build build) or reinstall gpumon\n", GPUMON_TOP_INSTALLED);
        return EXIT_RUNTIME;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        fprintf(stderr, "gpumon top: cannot load the live view module %s: %s\n", path, dlerror());
        return EXIT_RUNTIME;
    }
    const char *version = dlsym(dl, "gpumon_top_version");
    int (*top)(int, char **) = NULL;
    *(void **)&top = dlsym(dl, "cmd_top");
    if (!version || !top || strcmp(version, GPUMON_VERSION) != 0) {
        fprintf(stderr, "gpumon top: the live view module %s is not gpumon %s's (version %s); reinstall gpumon\n",
                path, GPUMON_VERSION, version ? version : "unknown");
        dlclose(dl);
        return EXIT_RUNTIME;
    }
    return top(argc, argv);   /* the module stays loaded: its collector may outlive a hung NVML call */
#endif
}

const struct cmd_entry cmd_top_launcher = {
    .name = "top",
    .summary = "live view in the terminal: each GPU, its processes, and why it is idle",
    .signals = (const int[])CMD_TOP_SIGNALS,
    .exec = cmd_top_launch,
};
