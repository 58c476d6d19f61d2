/*
 * prom.h: the Prometheus sink. Renders a record in the text exposition
 * format 0.0.4 from the metric table: each family's HELP and TYPE once,
 * its series grouped, values scaled to base units, labels gpu and uuid on
 * every per-GPU series, no timestamps (the scrape time is the sample time,
 * and node_exporter's textfile collector refuses them). A value that is
 * unsupported, unknown or lost is left out, never written as 0. serve and
 * --textfile both render through here.
 */
#ifndef GPUMON_PROM_H
#define GPUMON_PROM_H

#include <stdbool.h>
#include "metrics.h"
#include "util.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct prom_opts {
    bool dcgm;                  /* also dcgm-exporter's DCGM_FI_DEV_* names */
    bool processes;             /* gpumon_process_gpu_memory_bytes per process */
    unsigned max_processes;     /* per GPU, the largest by memory */
};

/* The exporter's own health, measured by its collector. */
struct prom_self {
    double collect_seconds;     /* duration of the latest collection */
    double last_success;        /* unix time of the latest complete collection; 0: none */
    unsigned long long errors_total;
    unsigned long long collections_total;
    unsigned gpus, gpus_lost;
};

/* Appends the series of rec to b. */
void prom_render(struct sbuf *b, const struct record *rec, const struct prom_opts *o);
/* Appends the exporter self-metrics measured at collection time. */
void prom_render_self(struct sbuf *b, const struct prom_self *s);
/* Appends the series that change at every scrape (snapshot age, scrapes). */
void prom_render_scrape(struct sbuf *b, double snapshot_age, unsigned long long scrapes);
/* Number of values in rec that NVML answered with an error (not
 * "unsupported"): the collection errors of one sample. */
unsigned prom_count_errors(const struct record *rec);

#endif
