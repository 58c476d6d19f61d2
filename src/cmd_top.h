/*
 * cmd_top.h: `gpumon top`, the live view. The view itself (cmd_top.c and
 * the top_* files) is built into a module, gpumon-top.so, with ncursesw;
 * gpumon holds only its launcher (cmd_top_launch.c), so the other commands
 * never map a curses library. Both entries share the signals: SIGINT,
 * SIGTERM and SIGHUP end it, SIGWINCH is a resize; all are blocked from
 * the start and taken by the UI loop (sig.h).
 */
#ifndef GPUMON_CMD_TOP_H
#define GPUMON_CMD_TOP_H

#include <signal.h>
#include "opt.h"

#define CMD_TOP_SIGNALS {SIGINT, SIGTERM, SIGHUP, SIGWINCH, 0}

extern const struct cmd_entry cmd_top_entry, cmd_top_launcher;
int cmd_top(int argc, char **argv);

#endif
