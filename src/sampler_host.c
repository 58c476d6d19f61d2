/*
 * sampler_host.c: the readers of the host rows of the metric table. host.c
 * reads /proc into a host_sample (the only module that reads /proc for
 * the host); these turn its figures into values with their state: a
 * figure host.c could not read, or not yet (CPU shares need an interval),
 * is "not known", never 0.
 */
#include "sampler_int.h"
#include "util.h"

UTIL_HOT static void sampler_host_set(struct value *out, bool ok, double f, long long i, bool is_int)
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

UTIL_HOT void sampler_read_host_user(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->cpu_ok, c->host->user_pct, 0, false);
}

UTIL_HOT void sampler_read_host_system(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->cpu_ok, c->host->system_pct, 0, false);
}

UTIL_HOT void sampler_read_host_iowait(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->cpu_ok, c->host->iowait_pct, 0, false);
}

UTIL_HOT void sampler_read_host_cpus(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->ncpus > 0, 0, c->host->ncpus, true);
}

UTIL_HOT void sampler_read_host_mem_total(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->mem_ok, 0, c->host->mem_total_kib / 1024, true);
}

UTIL_HOT void sampler_read_host_mem_used(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->mem_ok, 0, (c->host->mem_total_kib - c->host->mem_available_kib) / 1024, true);
}

UTIL_HOT void sampler_read_job_cpu(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->job_ok, c->host->job_cpu, 0, false);
}

UTIL_HOT void sampler_read_job_cpu_top(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->job_ok, c->host->job_cpu_top, 0, false);
}

UTIL_HOT void sampler_read_job_rss(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->job_ok, 0, c->host->job_rss_kib / 1024, true);
}

UTIL_HOT void sampler_read_job_procs(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->job_ok, 0, c->host->job_procs, true);
}

UTIL_HOT void sampler_read_job_read(const struct read_ctx *c, struct value *out)
{
    sampler_host_set(out, c->host->job_io_ok, 0, (long long)(c->host->job_read_bps / 1024 + 0.5), true);
}
