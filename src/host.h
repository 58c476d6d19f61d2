/*
 * host.h: the host side of a record, read from /proc (and nothing else in
 * gpumon reads /proc for the host). CPU shares are computed between two
 * consecutive host_read() calls; the first call after host_init() covers
 * the time since host_init().
 */
#ifndef GPUMON_HOST_H
#define GPUMON_HOST_H

#include <stdbool.h>

struct host_cpu_times {
    unsigned long long user, system, iowait, total;
};

struct host_sample {
    bool cpu_ok, mem_ok;
    double user_pct, system_pct, iowait_pct;
    int ncpus;
    long long mem_total_kib, mem_available_kib;
    struct host_cpu_times prev;
    const char *stat_path, *meminfo_path;   /* /proc/stat and /proc/meminfo; tests may redirect */
};

void host_init(struct host_sample *h);
/* Refreshes h from /proc. Values that cannot be read get *_ok = false. */
void host_read(struct host_sample *h);
/* Parses the aggregate "cpu" line of /proc/stat. Returns 0 or -1. */
int host_parse_stat_line(const char *line, struct host_cpu_times *out);

#endif
