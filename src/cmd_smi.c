/*
 * cmd_smi.c: gpumon invoked as nvidia-smi with no query (the summary
 * table) or with -L / --list-gpus (the GPU list), each for every GPU or
 * those -i/--id names (index, UUID or bus id, comma-separated), once or
 * every -l/--loop SEC seconds (-lms/--loop-ms MS) until interrupted: NVML
 * opened, the GPUs sampled by the sampler (-i is its selection, as the
 * query's), a snapshot gathered (smi_read.c), spelled as nvidia-smi spells
 * it (smi_table.c). Every
 * other nvidia-smi invocation goes to cmd_query.c, which answers the query
 * options and refuses the rest.
 *
 * Failures read as nvidia-smi's do, on standard output, with its exit
 * statuses (its man page: 6 not found, 9 driver not loaded, 12 no library,
 * 15 GPU lost, else the NVML code). NVML is opened one way for every
 * nvidia-smi invocation, the query's too (cmd_smi_open): no usable library
 * is "NVIDIA-SMI couldn't find libnvidia-ml.so library..." (12), no driver
 * "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA
 * driver..." (9), zero GPUs "No devices were found" (6); gpumon's own
 * diagnosis of a failed start goes to standard error, for whoever reads
 * it. A GPU whose handle fails gets one line naming it, before the table
 * of the others (15 lost, 4 no permission: cmd_query_smi_status, as the
 * query says it).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "exitcodes.h"
#include "nvml.h"
#include "sampler.h"
#include "sig.h"
#include "smi.h"
#include "util.h"

enum { SMI_EXIT_NOT_FOUND = 6 };

/* What a bare nvidia-smi may be given: -L, -i/--id IDS and -l/--loop SEC or -lms/--loop-ms MS, each at
 * most once. */
struct smi_args {
    bool list;
    const char *ids;                /* NULL: every GPU */
    const char *loop, *loop_ms;     /* NULL: once */
};

/* Takes argv[*i] as one of smi_args' options (its value from "=", or the next word); false when it is
 * none of them or is repeated. */
static bool cmd_smi_arg(struct smi_args *a, int argc, char **argv, int *i)
{
    const char *w = argv[*i], *eq = strchr(w, '=');
    size_t n = eq ? (size_t)(eq - w) : strlen(w);
    const char **slot = NULL;
    if (!strcmp(w, "-L") || !strcmp(w, "--list-gpus")) {
        if (a->list)
            return false;
        return a->list = true;
    }
    if ((n == 2 && !strncmp(w, "-i", 2)) || (n == 4 && !strncmp(w, "--id", 4)))
        slot = &a->ids;
    else if ((n == 2 && !strncmp(w, "-l", 2)) || (n == 6 && !strncmp(w, "--loop", 6)))
        slot = &a->loop;
    else if ((n == 4 && !strncmp(w, "-lms", 4)) || (n == 9 && !strncmp(w, "--loop-ms", 9)))
        slot = &a->loop_ms;
    if (!slot || *slot || (slot == &a->loop ? a->loop_ms : slot == &a->loop_ms ? a->loop : NULL))
        return false;
    if (eq)
        *slot = eq + 1;
    else if (*i + 1 < argc)
        *slot = argv[++*i];
    return *slot != NULL;
}

static bool cmd_smi_parse(int argc, char **argv, struct smi_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++)
        if (!cmd_smi_arg(a, argc, argv, &i))
            return false;
    return true;
}

bool cmd_smi_wants(int argc, char **argv)
{
    struct smi_args a;
    return cmd_smi_parse(argc, argv, &a);
}

/* One record, its snapshot spelled into b: the table, or the list; the exit status. */
static int cmd_smi_once(const struct smi_args *a, struct sampler *smp, struct sbuf *b)
{
    struct smi_snapshot s;
    struct record rec;
    unsigned shown = 0;
    int rc = 0;
    memset(&rec, 0, sizeof rec);
    sampler_sample(smp, &rec);
    smi_read(&s, smp, &rec, !a->list);
    for (unsigned i = 0; i < s.ngpus; i++) {
        const struct smi_gpu *g = &s.gpus[i];
        if (g->handle_rc == NVML_SUCCESS) {
            shown++;
            continue;
        }
        sbuf_printf(b, "Unable to determine the device handle for GPU %u: %s\n", g->index, nvml_error(g->handle_rc));
        rc = cmd_query_smi_status(g->handle_rc);
    }
    if (!shown) {
        sbuf_puts(b, "No devices were found\n");
        if (rc == 0)
            rc = SMI_EXIT_NOT_FOUND;
    } else if (a->list) {
        smi_list(b, &s);
    } else {
        smi_table(b, &s, time(NULL));
    }
    smi_free(&s);
    return rc;
}

/* The sampler of what the table (full) or -L shows, of the GPUs ids names (NULL: all). */
static int cmd_smi_sampler(struct sampler **smp, const char *ids, bool full)
{
    static const enum metric_id table[] = {M_INDEX, M_NAME, M_UUID, M_PCI_BUS_ID, M_DRIVER_VERSION, M_STATE, M_FAN,
                                           M_TEMP, M_PSTATE, M_POWER, M_POWER_ENFORCED, M_MEM_USED, M_MEM_TOTAL,
                                           M_UTIL_GPU, M_ECC_UNCORR};
    char err[512];
    struct sampler_opts so = {table, full ? (int)(sizeof table / sizeof table[0]) : 6, ids, 1000, false, 0, NULL};
    return sampler_open(smp, &so, err, sizeof err);
}

int cmd_smi_open(const char *path)
{
    struct nvml_failure why;
    if (nvml_open(path, &why) != 0) {
        fprintf(stderr, "gpumon: %s\n", why.message);
        switch (why.cause) {
        case NVML_CAUSE_NOT_FOUND:
        case NVML_CAUSE_STUB:
        case NVML_CAUSE_BAD_LIBRARY:
            printf("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the "
                   "NVIDIA Display Driver is properly installed and present in your system.\nPlease also try "
                   "adding directory that contains libnvidia-ml.so to your system PATH.\n");
            return NVML_ERROR_LIBRARY_NOT_FOUND;
        case NVML_CAUSE_DRIVER:
            printf("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
                   "latest NVIDIA driver is installed and running.\n\n");
            return NVML_ERROR_DRIVER_NOT_LOADED;
        default:
            printf("Failed to initialize NVML: %s\n", nvml_code_text(why.code));
            return cmd_query_smi_status(why.code);
        }
    }
    unsigned count = 0;
    if (nvml.get_count(&count) != NVML_SUCCESS || count == 0) {
        printf("No devices were found\n");
        nvml_close();
        return SMI_EXIT_NOT_FOUND;
    }
    return 0;
}

static const int cmd_smi_signals[] = {SIGINT, SIGTERM, 0};

int cmd_smi(int argc, char **argv)
{
    struct smi_args a;
    unsigned long long secs = 0, ms = 0;
    cmd_smi_parse(argc, argv, &a);
    if (a.loop && (util_parse_uint(a.loop, 86400, &secs) != 0 || secs == 0)) {
        printf("Invalid loop interval \"%s\": give whole seconds, from 1 to 86400.\n"
               "Please run 'nvidia-smi -h' for help.\n", a.loop);
        return EXIT_USAGE;
    }
    if (a.loop_ms && (util_parse_uint(a.loop_ms, 86400000, &ms) != 0 || ms < 10)) {
        printf("Invalid loop interval \"%s\": give milliseconds, from 10 to 86400000.\n"
               "Please run 'nvidia-smi -h' for help.\n", a.loop_ms);
        return EXIT_USAGE;
    }
    uint64_t step = secs ? secs * 1000000000ull : ms * 1000000ull;
    int rc = cmd_smi_open(NULL);
    if (rc != 0)
        return rc;
    struct sampler *smp;
    if (cmd_smi_sampler(&smp, a.ids, !a.list) != 0) {   /* -i names no GPU */
        printf("No devices were found\n");
        nvml_close();
        return SMI_EXIT_NOT_FOUND;
    }
    struct sbuf b;
    sbuf_init(&b);
    uint64_t next = util_mono_ns();
    for (;;) {
        sbuf_reset(&b);
        rc = cmd_smi_once(&a, smp, &b);
        if (fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0) {
            if (errno != EPIPE) {   /* EPIPE: the reader left (| head), a quiet end */
                fprintf(stderr, "gpumon nvidia-smi: the output could not be written: %s\n", strerror(errno));
                rc = rc ? rc : EXIT_RUNTIME;
            }
            clearerr(stdout);
            break;
        }
        if (!step || rc != 0)
            break;
        util_next_deadline(&next, step);
        if (sig_wait(cmd_smi_signals, next, NULL) != 0)
            break;   /* -l runs until interrupted, as nvidia-smi's: a clean end */
    }
    sbuf_free(&b);
    sampler_close(smp);
    nvml_close();
    return rc;
}
