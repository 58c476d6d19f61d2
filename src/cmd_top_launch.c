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
#include <stdio.h>
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
    return cmd_run_module("top", "the live view module", "gpumon-top.so", GPUMON_TOP_INSTALLED, "gpumon_top_version",
                          "cmd_top", argc, argv);
#endif
}

const struct cmd_entry cmd_top_launcher = {
    .name = "top",
    .summary = "live view in the terminal: each GPU, its processes, and why it is idle",
    .signals = (const int[])CMD_TOP_SIGNALS,
    .exec = cmd_top_launch,
};
