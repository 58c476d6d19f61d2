/*
 * main.c: command dispatch over the command table. `gpumon [COMMAND]
 * [OPTIONS]`; without a command, watch; invoked as nvidia-smi, its summary
 * table or -L list (cmd_smi.c), else query. The command's signals are set
 * up (sig.h) before it runs, and standard output is checked after it
 * (cmd_finish_stdout). Global flags: --help (-h), --version, --list-metrics.
 */
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "cmd_top.h"
#include "exitcodes.h"
#include "metrics.h"
#include "sig.h"

static const struct cmd_entry *const main_commands[] = {
    &cmd_watch_entry, &cmd_query_entry, &cmd_serve_launcher, &cmd_top_launcher, &cmd_run_entry, &cmd_diagnose_entry,
    &cmd_report_entry, &cmd_compare_entry,
};
#define MAIN_NCOMMANDS (sizeof main_commands / sizeof main_commands[0])

static int main_help(void)
{
    printf("Usage: gpumon [COMMAND] [OPTIONS]\n"
           "Watch NVIDIA GPUs through NVML: utilization, memory, temperature, power,\n"
           "clocks, throttle reasons, PCIe, ECC and the host's CPU, as text, CSV or JSON\n"
           "Lines.\n\n"
           "Commands:\n");
    for (size_t i = 0; i < MAIN_NCOMMANDS; i++) {
        printf("  %-10s ", main_commands[i]->name);
        opt_print_wrapped(main_commands[i]->summary, 13, 13, true);
    }
    printf("\nGlobal options:\n"
           "  --list-metrics  print the metric table: keys, units, Prometheus names,\n"
           "                  descriptions\n"
           "  --version       print the version\n"
           "  -h, --help      this help; gpumon COMMAND --help for a command's options\n\n");
    opt_print_wrapped("Without a GPU, add --sim to run on the bundled simulated GPUs (--scenario NAME picks a "
                      "situation, e.g. input-bound). Exit status: 0 ok, 1 runtime error, 2 usage, 3 no NVML "
                      "library (or the CUDA stub), 4 NVML init failed, 5 no GPU.", 0, 0, true);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    const char *slash = argv[0] ? strrchr(argv[0], '/') : NULL;
    if (argv[0] && !strcmp(slash ? slash + 1 : argv[0], "nvidia-smi")) {   /* however long the path */
        sig_setup(cmd_query_entry.signals);
        if (cmd_smi_wants(argc, argv))
            return cmd_finish_stdout("nvidia-smi", cmd_smi(argc, argv));
        return cmd_finish_stdout("query", cmd_query(argc, argv, true));
    }
    const char *word = argc > 1 ? argv[1] : "";
    if (!strcmp(word, "--help") || !strcmp(word, "-h"))   /* gpumon watch -h is watch's */
        return cmd_finish_stdout("", main_help());
    if (!strcmp(word, "--version"))
        return cmd_finish_stdout("", (printf("gpumon %s\n", GPUMON_VERSION), EXIT_OK));
    if (!strcmp(word, "--list-metrics"))
        return cmd_finish_stdout("", (metric_print_table(), EXIT_OK));
    const struct cmd_entry *e = &cmd_watch_entry;
    if (word[0] && word[0] != '-') {
        e = NULL;
        for (size_t i = 0; i < MAIN_NCOMMANDS && !e; i++)
            if (!strcmp(word, main_commands[i]->name))
                e = main_commands[i];
        if (!e) {
            fprintf(stderr, "gpumon: unknown command \"%.200s\" (see gpumon --help)\n", word);
            return EXIT_USAGE;
        }
        argc--, argv++;
    }
    sig_setup(e->signals);
    return cmd_finish_stdout(e->name, e->exec(argc, argv));
}
