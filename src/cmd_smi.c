/*
 * cmd_smi.c: gpumon invoked as nvidia-smi with no query (the summary
 * table) or with -L / --list-gpus (the GPU list), each for every GPU or
 * those -i/--id names (index, UUID or bus id, comma-separated), once or
 * every -l/--loop SEC seconds (-lms/--loop-ms MS) until interrupted: NVML opened, a snapshot
 * read (smi_read.c), spelled as nvidia-smi spells it (smi_table.c). Every
 * other nvidia-smi invocation goes to cmd_query.c, which answers the query
 * options and refuses the rest.
 *
 * Failures read as nvidia-smi's do, on standard output, with its exit
 * statuses (its man page: 6 not found, 9 driver not loaded, 15 GPU lost,
 * else the NVML code): no usable library or driver is "NVIDIA-SMI has
 * failed because it couldn't communicate with the NVIDIA driver..." (9),
 * zero GPUs "No devices were found" (6), a GPU whose handle fails one line
 * naming it, before the table of the others (15 lost, 4 no permission:
 * cmd_query_smi_status, as the query says it). gpumon's own diagnosis
 * of a failed start goes to standard error, for whoever reads it.
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
#include "sig.h"
#include "smi.h"
#include "util.h"

enum { SMI_EXIT_NOT_FOUND = 6, SMI_EXIT_DRIVER = 9 };

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

/* Keeps the GPUs of s that ids (comma-separated) names, and their processes. Returns false when a
 * token names none (nvidia-smi then finds no device). */
static bool cmd_smi_select(struct smi_snapshot *s, const char *ids)
{
    bool *keep = xcalloc(s->ngpus ? s->ngpus : 1, sizeof *keep), ok = true;
    char *copy = xstrdup(ids);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        bool found = false;
        for (unsigned i = 0; i < s->ngpus; i++)
            if (util_gpu_named(t, s->gpus[i].index, s->gpus[i].uuid_rc == NVML_SUCCESS ? s->gpus[i].uuid : NULL,
                               s->gpus[i].bus_rc == NVML_SUCCESS ? s->gpus[i].bus_id : NULL))
                keep[i] = found = true;
        ok &= found;
    }
    unsigned n = 0, np = 0;
    for (unsigned i = 0; i < s->ngpus; i++) {
        if (keep[i])
            s->gpus[n++] = s->gpus[i];
        else
            free(s->gpus[i].mig);
    }
    for (unsigned p = 0; p < s->nprocs; p++)
        for (unsigned i = 0; i < n; i++)
            if (s->procs[p].gpu == s->gpus[i].index) {
                s->procs[np++] = s->procs[p];
                break;
            }
    s->ngpus = n, s->nprocs = np;
    free(copy);
    free(keep);
    return ok && n > 0;
}

/* One snapshot, spelled into b: the table, or the list; the exit status. */
static int cmd_smi_once(const struct smi_args *a, struct sbuf *b)
{
    struct smi_snapshot s;
    unsigned shown = 0;
    int rc = 0;
    smi_read(&s, !a->list);
    if (a->ids && !cmd_smi_select(&s, a->ids)) {
        sbuf_puts(b, "No devices were found\n");
        smi_free(&s);
        return SMI_EXIT_NOT_FOUND;
    }
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

static int cmd_smi_open(void)
{
    struct nvml_failure why;
    if (nvml_open(NULL, &why) == 0)
        return 0;
    fprintf(stderr, "gpumon: %s\n", why.message);
    switch (why.cause) {
    case NVML_CAUSE_NOT_FOUND:
    case NVML_CAUSE_STUB:
    case NVML_CAUSE_BAD_LIBRARY:
    case NVML_CAUSE_DRIVER:
        printf("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
               "latest NVIDIA driver is installed and running.\n\n");
        return SMI_EXIT_DRIVER;
    default:
        printf("Failed to initialize NVML: %s\n", nvml_code_text(why.code));
        return cmd_query_smi_status(why.code);
    }
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
    int rc = cmd_smi_open();
    if (rc != 0)
        return rc;
    struct sbuf b;
    sbuf_init(&b);
    uint64_t next = util_mono_ns();
    for (;;) {
        sbuf_reset(&b);
        rc = cmd_smi_once(&a, &b);
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
    nvml_close();
    return rc;
}
