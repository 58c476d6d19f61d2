/*
 * fuzz_options.c: option parsing of the commands, through their real entry
 * points (cmd_watch, cmd_query as gpumon and as nvidia-smi, cmd_serve).
 * Input: one byte picks the command, the rest split on NUL bytes is argv.
 *
 * Every valid option set must end before sampling: the harness appends
 * sentinel options, each twice (so an option at the end of the input that
 * takes the next word as its value eats only the first copy), and the last
 * value of an option wins: --nvml=/nonexistent (opening NVML fails, exit 3),
 * and for watch --output=/dev/null, for query --filename=/dev/null, for
 * serve --web.listen-address=127.0.0.1:0 (nothing is written, nothing
 * listens for more than a moment). After "--" they are plain words and the
 * command refuses them. Each call runs in a private temp directory holding
 * a copy of fixtures/web.yml (so --web.config.file web.yml loads; under
$TMPDIR, which scripts/fuzz points at its scratch folder), and each
 * command's exit status must be one the man page documents for it (as
 * nvidia-smi, nvidia-smi's: 12 for the library that cannot be loaded;
 * gpumon's 3 with --sim or --scenario, which run on the simulator).
 *
 * getopt keeps state between calls and the commands reset only optind = 1,
 * which leaves glibc's pointer into the previous (freed) argv when a call
 * stopped inside a cluster such as "-hx" (libc is not instrumented, so that
 * would show as wrong parses, not as a report); the harness resets getopt
 * fully (optind = 0 and one call) before each input, as a fresh process is.
 */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "exitcodes.h"
#include "fuzz_util.h"

#define FUZZ_OPTIONS_MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fuzz_options_dir;

static void fuzz_options_copy(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[4096];
    size_t n;
    if (!in || !out)
        abort();
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    if (fclose(out) != 0)
        abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char dir[PATH_MAX];
    char web[PATH_MAX + 16];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gpumon-fuzz-options-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        abort();
    fuzz_options_dir = dir;
    snprintf(web, sizeof web, "%s/web.yml", dir);
    fuzz_options_copy(FUZZ_FIXTURES "/web.yml", web);
    unsetenv("GPUMON_NVML");
    unsetenv("GPUMON_SIM_SCENARIO");
    fuzz_util_quiet();
    return 0;
}

static void fuzz_options_reset_getopt(void)
{
    static char name[] = "gpumon";
    char *argv[] = {name, NULL};
    optind = 0;
    opterr = 0;
    while (getopt(1, argv, "") != -1)
        ;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const sentinels[][3] = {
        {"--nvml=/nonexistent", "--output=/dev/null", NULL},
        {"--nvml=/nonexistent", "--filename=/dev/null", NULL},
        {"--nvml=/nonexistent", "--filename=/dev/null", NULL},
        {"--nvml=/nonexistent", "--web.listen-address=127.0.0.1:0", NULL},
    };
    if (size < 1)
        return 0;
    int cmd = data[0] % 4;
    char *argv[1 + FUZZ_OPTIONS_MAX_ARGS + 4 + 1], *buf = NULL, name[] = "gpumon";
    int argc = 1;
    argv[0] = name;
    if (size > 1)
        argc += fuzz_util_split(data + 1, size - 1, argv + 1, FUZZ_OPTIONS_MAX_ARGS, &buf);
    for (int copy = 0; copy < 2; copy++)
        for (int s = 0; sentinels[cmd][s]; s++)
            argv[argc++] = (char *)sentinels[cmd][s];
    argv[argc] = NULL;

    fuzz_options_reset_getopt();
    int home = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (home < 0 || chdir(fuzz_options_dir) != 0)
        abort();
    int rc;
    bool ok;
    switch (cmd) {
    case 0:
        rc = cmd_watch(argc, argv);
        ok = rc == EXIT_OK || rc == EXIT_USAGE || rc == EXIT_NO_LIBRARY || rc == EXIT_RUNTIME;
        break;
    case 1:
        rc = cmd_query(argc, argv, false);
        ok = rc == EXIT_OK || rc == EXIT_USAGE || rc == EXIT_NO_LIBRARY;
        break;
    case 2:   /* as nvidia-smi, its statuses: 2 invalid argument, 12 no NVML library; with --sim or
               * --scenario gpumon's own (query_open): 3 here, where no simulated library is found */
        rc = cmd_query(argc, argv, true);
        ok = rc == EXIT_OK || rc == EXIT_USAGE || rc == 12 || rc == EXIT_NO_LIBRARY;
        break;
    default:
        rc = cmd_serve(argc, argv);
        ok = rc == EXIT_OK || rc == EXIT_USAGE || rc == EXIT_NO_LIBRARY || rc == EXIT_RUNTIME;
        break;
    }
    if (fchdir(home) != 0)
        abort();
    close(home);
    if (!ok)
        fuzz_util_die("fuzz_options: command %d ended with undocumented status %d", cmd, rc);
    free(buf);
    return 0;
}
