/*
 * host_jobs.c: which jobs run on a GPU, from an HPC job mapping directory
 * as dcgm-exporter reads it (--hpc-job-mapping-dir): the workload manager
 * (a Slurm prolog, say) writes one file per GPU, named by its index, with
 * one job id per line, and empties or removes it when the job ends. The
 * file is read whole each time (it is tiny), never followed through a
 * symbolic link, and what is wrong with it is said, not fatal: the GPU
 * then simply has no job.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host.h"

#define HOST_JOBS_MAX_FILE 65536

unsigned host_jobs_read(const char *dir, const char *name, char (*jobs)[64], unsigned max, char *warn,
                        size_t wlen)
{
    char path[4096], buf[HOST_JOBS_MAX_FILE + 1];
    warn[0] = '\0';
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)   /* no file: no job on this GPU */
            snprintf(warn, wlen, "%s: %s", path, errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno));
        return 0;
    }
    struct stat st;
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        n = read(fd, buf, HOST_JOBS_MAX_FILE + 1);
    else
        snprintf(warn, wlen, "%s: not a regular file", path);
    close(fd);
    if (n < 0) {
        if (!warn[0])
            snprintf(warn, wlen, "%s: %s", path, strerror(errno));
        return 0;
    }
    if (n > HOST_JOBS_MAX_FILE) {
        snprintf(warn, wlen, "%s: larger than %d bytes: not a job list", path, HOST_JOBS_MAX_FILE);
        return 0;
    }
    buf[n] = '\0';
    unsigned count = 0, lineno = 0;
    for (char *line = buf, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        size_t len = strlen(line);
        while (len && isspace((unsigned char)line[len - 1]))
            line[--len] = '\0';
        while (isspace((unsigned char)*line))
            line++, len--;
        if (!len)
            continue;
        bool ok = len < 64;
        for (size_t i = 0; i < len && ok; i++)
            ok = isgraph((unsigned char)line[i]) && line[i] != '"' && line[i] != '\\';
        if (!ok) {
            if (!warn[0])
                snprintf(warn, wlen, "%s line %u: not a job id (1 to 63 printable characters, no spaces, quotes or "
                         "backslashes): skipped", path, lineno);
            continue;
        }
        bool dup = false;
        for (unsigned j = 0; j < count && !dup; j++)
            dup = !strcmp(jobs[j], line);
        if (dup)
            continue;
        if (count == max) {
            if (!warn[0])
                snprintf(warn, wlen, "%s: more than %u jobs on one GPU: the first %u kept", path, max, max);
            break;
        }
        memcpy(jobs[count++], line, len + 1);
    }
    return count;
}
