/*
 * cmd_analysis.c: the options that run, diagnose and report share to
 * shape the analysis: --window, --threshold NAME=VALUE and --list-rules.
 * The values go into a rule_config (rules.h), the one place the analysis
 * reads them from. --gpu-hour-cost (or GPUMON_GPU_HOUR_COST) prices the
 * ledger's GPU time in run, diagnose and report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cmd.h"
#include "exitcodes.h"
#include "util.h"

#define CMD_WINDOW_MAX_MS (7.0 * 24 * 3600 * 1000)

const struct opt cmd_analysis_opts[] = {
    {"window", NULL, "DUR", CMD_OPT_WINDOW, "sliding analysis window per GPU (default 30s; e.g. 10s, 2m)"},
    {"threshold", NULL, "NAME=VALUE", CMD_OPT_THRESHOLD,
     "change a rule threshold (repeatable; --list-rules lists them)"},
    {"list-rules", NULL, NULL, CMD_OPT_LIST_RULES, "print the rules, their severities and thresholds, and exit"},
    {NULL, NULL, NULL, 0, NULL},
};

const struct opt cmd_cost_opts[] = {
    {"gpu-hour-cost", NULL, "PRICE", CMD_OPT_COST,
     "what a GPU-hour costs: the ledger of GPU time by cause says it in money too\n(default: GPUMON_GPU_HOUR_COST, else none)"},
    {NULL, NULL, NULL, 0, NULL},
};

void cmd_analysis_init(struct cmd_analysis_opts *o)
{
    rules_defaults(&o->cfg);
    o->list_rules = false;
    o->gpu_hour_cost = 0;
    o->cost_given = false;
}

/* A price: a finite number from 0 to a million a GPU-hour. */
static int cmd_analysis_price(const char *v, double *out)
{
    char *end;
    double p = strtod(v, &end);
    if (end == v || *end || !isfinite(p) || p < 0 || p > 1e6)
        return -1;
    *out = p;
    return 0;
}

int cmd_analysis_ready(const char *cmd, struct cmd_analysis_opts *o)
{
    const char *env = getenv("GPUMON_GPU_HOUR_COST");
    if (o->cost_given || !env || !*env)
        return 0;
    if (cmd_analysis_price(env, &o->gpu_hour_cost) != 0)
        return opt_usage_error(cmd, "GPUMON_GPU_HOUR_COST=\"%.100s\": not a price (a number from 0 to 1000000, "
                               "what a GPU-hour costs)", env);
    return 0;
}

int cmd_analysis_option(const char *cmd, struct cmd_analysis_opts *o, int key, const char *arg)
{
    char err[256];
    double ms;
    switch (key) {
    case CMD_OPT_WINDOW:
        if (cmd_parse_duration(cmd, "--window", arg, 100, CMD_WINDOW_MAX_MS, &ms) != 0)
            return EXIT_USAGE;
        o->cfg.window_s = ms / 1000.0;
        return 0;
    case CMD_OPT_THRESHOLD:
        if (rules_set_threshold(&o->cfg, arg, err, sizeof err) != 0)
            return opt_usage_error(cmd, "%s", err);
        return 0;
    case CMD_OPT_LIST_RULES:
        o->list_rules = true;   /* printed once all options are read, with their thresholds */
        return 0;
    case CMD_OPT_COST:
        if (cmd_analysis_price(arg, &o->gpu_hour_cost) != 0)
            return opt_usage_error(cmd, "--gpu-hour-cost %.100s: give a price (a number from 0 to 1000000, what a "
                                   "GPU-hour costs)", arg);
        o->cost_given = true;
        return 0;
    default:
        return EXIT_USAGE;
    }
}
