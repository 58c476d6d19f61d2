/*
 * fuzz_util.c: helpers of the harnesses (see fuzz_util.h).
 */
#include "fuzz_util.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sanitizer/common_interface_defs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fuzz_util_report_fd = 2;

void fuzz_util_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dprintf(fuzz_util_report_fd, "fuzz: ");
    vdprintf(fuzz_util_report_fd, fmt, ap);
    dprintf(fuzz_util_report_fd, "\n");
    va_end(ap);
    abort();
}

void fuzz_util_quiet(void)
{
    int report = dup(2), null = open("/dev/null", O_RDWR);
    if (report < 0 || null < 0) {
        perror("fuzz_util_quiet");
        abort();
    }
    __sanitizer_set_report_fd((void *)(intptr_t)report);
    fuzz_util_report_fd = report;
    dup2(null, 0);
    dup2(null, 1);
    /* gpumon writes diagnostics through stderr; libFuzzer already holds the old FILE. */
    FILE *quiet = fdopen(null, "w");
    if (!quiet)
        abort();
    stderr = quiet;
}

char *fuzz_util_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

int fuzz_util_split(const uint8_t *data, size_t size, char **out, int max, char **buf)
{
    char *s = *buf = fuzz_util_str(data, size);
    int n = 0;
    for (size_t i = 0; n < max; ) {
        out[n++] = s + i;
        size_t len = strlen(s + i);
        if (i + len >= size)
            break;
        i += len + 1;
    }
    return n;
}
