/*
 * cmd_smi.c: gpumon invoked as nvidia-smi with no argument (the summary
 * table) or with -L / --list-gpus (the GPU list): NVML opened, one snapshot
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
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "nvml.h"
#include "smi.h"

enum { SMI_EXIT_NOT_FOUND = 6, SMI_EXIT_DRIVER = 9 };

bool cmd_smi_wants(int argc, char **argv)
{
    return argc == 1 || (argc == 2 && (!strcmp(argv[1], "-L") || !strcmp(argv[1], "--list-gpus")));
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

int cmd_smi(int argc, char **argv)
{
    int rc = cmd_smi_open();
    if (rc != 0)
        return rc;
    bool list = argc > 1;
    struct smi_snapshot s;
    struct sbuf b;
    unsigned shown = 0;
    (void)argv;
    smi_read(&s, !list);
    sbuf_init(&b);
    for (unsigned i = 0; i < s.ngpus; i++) {
        const struct smi_gpu *g = &s.gpus[i];
        if (g->handle_rc == NVML_SUCCESS) {
            shown++;
            continue;
        }
        sbuf_printf(&b, "Unable to determine the device handle for GPU %u: %s\n", g->index,
                    nvml_error(g->handle_rc));
        rc = cmd_query_smi_status(g->handle_rc);
    }
    if (!shown) {
        sbuf_puts(&b, "No devices were found\n");
        if (rc == 0)
            rc = SMI_EXIT_NOT_FOUND;
    } else if (list) {
        smi_list(&b, &s);
    } else {
        smi_table(&b, &s, time(NULL));
    }
    fwrite(b.data, 1, b.len, stdout);
    sbuf_free(&b);
    smi_free(&s);
    nvml_close();
    return rc;
}
