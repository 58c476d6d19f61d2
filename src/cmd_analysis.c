/*
 * cmd_analysis.c: the options that run, diagnose and report share to
 * shape the analysis: --window, --threshold NAME=VALUE and --list-rules.
 * The values go into a rule_config (rules.h), the one place the analysis
 * reads them from.
 */
#include <stdio.h>
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

void cmd_analysis_init(struct cmd_analysis_opts *o)
{
    rules_defaults(&o->cfg);
    o->list_rules = false;
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
    default:
        return EXIT_USAGE;
    }
}
