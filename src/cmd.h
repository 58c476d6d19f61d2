/*
 * cmd.h: what every command shares: the entry points main.c dispatches to,
 * and the NVML options (--nvml, --sim, --scenario) with the one function
 * that opens NVML and turns a failure into one line and an exit status.
 */
#ifndef GPUMON_CMD_H
#define GPUMON_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include "rules.h"

int cmd_watch(int argc, char **argv);
/* as_smi: invoked as nvidia-smi, so other nvidia-smi options get a clear refusal. */
int cmd_query(int argc, char **argv, bool as_smi);
int cmd_serve(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_diagnose(int argc, char **argv);
int cmd_report(int argc, char **argv);

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
struct sampler;
struct record;
/* Takes one sample for a loop running every step ns; a sample that took
 * over a second and over an interval (an NVML call slow or hung) is said
 * on stderr, since the records will show a gap there. */
void cmd_sample(struct sampler *s, struct record *rec, uint64_t step);
/* Parses an --interval value of cmd (at least 10 ms). Returns 0, or -1
 * after a usage error naming the problem. */
int cmd_parse_interval(const char *cmd, const char *arg, double *ms);
/* Prints "gpumon: MSG" and a hint to use --help; returns EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The analysis options of run, diagnose and report (cmd_analysis.c). */
struct cmd_analysis_opts {
    struct rule_config cfg;     /* window and thresholds */
    bool list_rules;
};
enum { CMD_OPT_WINDOW = 0x1100, CMD_OPT_THRESHOLD, CMD_OPT_LIST_RULES };
#define CMD_ANALYSIS_LONGOPTS \
    {"window", required_argument, NULL, CMD_OPT_WINDOW}, {"threshold", required_argument, NULL, CMD_OPT_THRESHOLD}, \
    {"list-rules", no_argument, NULL, CMD_OPT_LIST_RULES}
#define CMD_ANALYSIS_HELP \
    "  --window DUR         sliding analysis window per GPU (default 30s; e.g. 10s, 2m)\n" \
    "  --threshold NAME=VALUE  change a rule threshold (repeatable; --list-rules lists them)\n" \
    "  --list-rules         print the rules, their severities and thresholds, and exit\n"

void cmd_analysis_init(struct cmd_analysis_opts *o);
/* Handles an analysis option code: 1 if it was one, 0 if not, or
 * EXIT_USAGE after printing the problem. */
int cmd_analysis_option(const char *cmd, struct cmd_analysis_opts *o, int code, const char *arg);

#endif
