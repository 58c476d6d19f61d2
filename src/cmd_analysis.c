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

void cmd_analysis_init(struct cmd_analysis_opts *o)
{
    rules_defaults(&o->cfg);
    o->list_rules = false;
}

int cmd_analysis_option(const char *cmd, struct cmd_analysis_opts *o, int code, const char *arg)
{
    char err[256];
    double ms;
    switch (code) {
    case CMD_OPT_WINDOW:
        if (util_parse_duration_ms(arg, &ms) != 0 || ms < 100)
            return cmd_usage_error(cmd, "--window: \"%s\" is not a duration of at least 100ms (examples: 30s, 2m)",
                                   arg);
        o->cfg.window_s = ms / 1000.0;
        return 1;
    case CMD_OPT_THRESHOLD:
        if (rules_set_threshold(&o->cfg, arg, err, sizeof err) != 0)
            return cmd_usage_error(cmd, "%s", err);
        return 1;
    case CMD_OPT_LIST_RULES:
        o->list_rules = true;
        return 1;
    default:
        return 0;
    }
}
