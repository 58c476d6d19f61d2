/*
 * main.c: command dispatch. `gpumon [COMMAND] [OPTIONS]`; without a
 * command, watch. Global flags: --help, --version, --list-metrics.
 */
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "exitcodes.h"
#include "metrics.h"

static const char main_help[] =
    "Usage: gpumon [COMMAND] [OPTIONS]\n"
    "Watch NVIDIA GPUs through NVML: utilization, memory, temperature, power, clocks,\n"
    "throttle reasons, PCIe, ECC and the host's CPU, as text, CSV or JSON Lines.\n\n"
    "Commands:\n"
    "  watch          sample GPUs and print or log records (the default)\n"
    "  query          nvidia-smi compatible --query-gpu / --query-compute-apps in its CSV format\n"
    "                 (also what gpumon does when invoked as nvidia-smi)\n"
    "  serve          Prometheus exporter: /metrics over HTTP(S), optional basic auth, dcgm names\n"
    "  run            run a training command, watch its GPUs and processes, explain low utilization\n"
    "                 (gpumon run [OPTIONS] -- CMD ARGS...)\n"
    "  diagnose       the same analysis of a recorded JSON Lines log (gpumon diagnose LOG.jsonl)\n"
    "  report         an HTML report with charts and verdicts (gpumon report LOG.jsonl -o FILE.html)\n\n"
    "Global options:\n"
    "  --list-metrics print the metric table: keys, units, Prometheus names, descriptions\n"
    "  --version      print the version\n"
    "  --help         this help; gpumon COMMAND --help for a command's options\n\n"
    "Without a GPU, add --sim to run on the bundled simulated GPUs (--scenario NAME picks a\n"
    "situation, e.g. input-bound). Exit status: 0 ok, 1 runtime error, 2 usage, 3 no NVML\n"
    "library (or the CUDA stub), 4 NVML init failed, 5 no GPU.\n";

int main(int argc, char **argv)
{
    char self[256];
    snprintf(self, sizeof self, "%s", argv[0]);
    if (!strcmp(basename(self), "nvidia-smi"))
        return cmd_query(argc, argv, true);
    if (argc > 1 && !strcmp(argv[1], "--help"))
        return fputs(main_help, stdout) < 0 ? EXIT_RUNTIME : EXIT_OK;
    if (argc > 1 && !strcmp(argv[1], "--version"))
        return printf("gpumon %s\n", GPUMON_VERSION) < 0 ? EXIT_RUNTIME : EXIT_OK;
    if (argc > 1 && !strcmp(argv[1], "--list-metrics")) {
        metric_print_table();
        return EXIT_OK;
    }
    if (argc > 1 && !strcmp(argv[1], "query"))
        return cmd_query(argc - 1, argv + 1, false);
    if (argc > 1 && !strcmp(argv[1], "serve"))
        return cmd_serve(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "watch"))
        return cmd_watch(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "run"))
        return cmd_run(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "diagnose"))
        return cmd_diagnose(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "report"))
        return cmd_report(argc - 1, argv + 1);
    if (argc > 1 && argv[1][0] != '-') {
        fprintf(stderr, "gpumon: unknown command \"%s\" (see gpumon --help)\n", argv[1]);
        return EXIT_USAGE;
    }
    return cmd_watch(argc, argv);
}
