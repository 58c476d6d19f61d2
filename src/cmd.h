/*
 * cmd.h: what every command shares: the entry points main.c dispatches to,
 * and the NVML options (--nvml, --sim, --scenario) with the one function
 * that opens NVML and turns a failure into one line and an exit status.
 */
#ifndef GPUMON_CMD_H
#define GPUMON_CMD_H

#include <stdbool.h>

int cmd_watch(int argc, char **argv);
/* as_smi: invoked as nvidia-smi, so other nvidia-smi options get a clear refusal. */
int cmd_query(int argc, char **argv, bool as_smi);
int cmd_serve(int argc, char **argv);

struct cmd_nvml_opts {
    const char *nvml_path;      /* --nvml */
    const char *scenario;       /* --scenario (implies --sim) */
    bool sim;                   /* --sim */
};

/* getopt_long option codes for the shared options; commands add these to
 * their tables with CMD_NVML_LONGOPTS and pass unknown codes here. */
enum { CMD_OPT_NVML = 0x1000, CMD_OPT_SIM, CMD_OPT_SCENARIO };
#define CMD_NVML_LONGOPTS \
    {"nvml", required_argument, NULL, CMD_OPT_NVML}, {"sim", no_argument, NULL, CMD_OPT_SIM}, \
    {"scenario", required_argument, NULL, CMD_OPT_SCENARIO}
#define CMD_NVML_HELP \
    "  --nvml PATH          NVML library to load (default: $GPUMON_NVML, then libnvidia-ml.so.1)\n" \
    "  --sim                use the bundled simulated GPUs instead of a driver\n" \
    "  --scenario FILE      simulated scenario: a path, or a bundled name such as input-bound\n" \
    "                       (implies --sim)\n"

/* Handles a shared option code; returns true if it was one. */
bool cmd_nvml_option(struct cmd_nvml_opts *o, int code, const char *arg);
/* Opens NVML as the options say. Returns 0, or an exit status after
 * printing one line that names the cause and what to do. require_gpu: fail
 * with EXIT_NO_GPU when NVML reports zero GPUs. */
int cmd_open_nvml(const struct cmd_nvml_opts *o, bool require_gpu);
/* Prints "gpumon: MSG" and a hint to use --help; returns EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
