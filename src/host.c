/*
 * host.c: host CPU and memory from /proc/stat and /proc/meminfo, and the
 * readers of the host rows of the metric table. CPU shares are deltas of
 * the aggregate jiffies between two reads: user includes nice, system
 * includes irq and softirq, and steal counts toward the total only.
 */
#include "host.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "metrics.h"
#include "sampler_int.h"

int host_parse_stat_line(const char *line, struct host_cpu_times *out)
{
    unsigned long long v[10] = {0};
    int n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    if (n < 5)
        return -1;
    /* user nice system idle iowait irq softirq steal guest guest_nice; guest is inside user */
    out->user = v[0] + v[1];
    out->system = v[2] + v[5] + v[6];
    out->iowait = v[4];
    out->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    return 0;
}

static int host_read_cpu(const char *path, struct host_cpu_times *t)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int rc = fgets(line, sizeof line, f) ? host_parse_stat_line(line, t) : -1;
    fclose(f);
    return rc;
}

static int host_read_mem(struct host_sample *h)
{
    FILE *f = fopen(h->meminfo_path, "r");
    if (!f)
        return -1;
    char line[256];
    int found = 0;
    while (fgets(line, sizeof line, f) && found != 3) {
        long long kib;
        if (sscanf(line, "MemTotal: %lld kB", &kib) == 1)
            h->mem_total_kib = kib, found |= 1;
        else if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            h->mem_available_kib = kib, found |= 2;
    }
    fclose(f);
    return found == 3 ? 0 : -1;
}

void host_init(struct host_sample *h)
{
    memset(h, 0, sizeof *h);
    h->stat_path = "/proc/stat";
    h->meminfo_path = "/proc/meminfo";
    if (host_read_cpu(h->stat_path, &h->prev) != 0)
        memset(&h->prev, 0, sizeof h->prev);
}

void host_read(struct host_sample *h)
{
    struct host_cpu_times now;
    h->cpu_ok = false;
    if (host_read_cpu(h->stat_path, &now) == 0 && now.total >= h->prev.total) {
        unsigned long long dt = now.total - h->prev.total;
        if (dt > 0 && now.user >= h->prev.user && now.system >= h->prev.system && now.iowait >= h->prev.iowait) {
            h->user_pct = 100.0 * (double)(now.user - h->prev.user) / (double)dt;
            h->system_pct = 100.0 * (double)(now.system - h->prev.system) / (double)dt;
            h->iowait_pct = 100.0 * (double)(now.iowait - h->prev.iowait) / (double)dt;
            h->cpu_ok = true;
        }
        h->prev = now;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->ncpus = n > 0 ? (int)n : 0;
    h->mem_ok = host_read_mem(h) == 0;
}

static void host_set(struct value *out, bool ok, double f, long long i, bool is_int)
{
    if (!ok) {
        out->state = VS_NONE;   /* first sample (no interval yet) or /proc unreadable */
        return;
    }
    out->state = VS_OK;
    if (is_int)
        out->u.i = i;
    else
        out->u.f = f;
}

void read_host_user(const struct read_ctx *c, struct value *out)
{
    host_set(out, c->host->cpu_ok, c->host->user_pct, 0, false);
}

void read_host_system(const struct read_ctx *c, struct value *out)
{
    host_set(out, c->host->cpu_ok, c->host->system_pct, 0, false);
}

void read_host_iowait(const struct read_ctx *c, struct value *out)
{
    host_set(out, c->host->cpu_ok, c->host->iowait_pct, 0, false);
}

void read_host_cpus(const struct read_ctx *c, struct value *out)
{
    host_set(out, c->host->ncpus > 0, 0, c->host->ncpus, true);
}

void read_host_mem_total(const struct read_ctx *c, struct value *out)
{
    host_set(out, c->host->mem_ok, 0, c->host->mem_total_kib / 1024, true);
}

void read_host_mem_used(const struct read_ctx *c, struct value *out)
{
    host_set(out, c->host->mem_ok, 0, (c->host->mem_total_kib - c->host->mem_available_kib) / 1024, true);
}
