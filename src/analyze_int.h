/*
 * analyze_int.h: what analyze.c and analyze_node.c share: the growable
 * rings of points, reading a value as a number, and a node's windows (its
 * host figures and the steps its processes report).
 */
#ifndef GPUMON_ANALYZE_INT_H
#define GPUMON_ANALYZE_INT_H

#include "analyze.h"
#include "metrics.h"

#define ANALYZE_MAX_NODES 64

struct analyze_host_point {
    double t;
    float job_cpu, job_top, job_rss, iowait, ncpus, job_read;
    int32_t job_procs;
};

/* One node (a hostname of the records): the host's window and its processes' steps. */
struct analyze_node {
    char name[64];
    struct analyze_host_point *host;
    unsigned hcap, hhead, hn;
    struct stepstat *steps;
};

/* Grows a ring of n elements of sz bytes when full (up to ANALYZE_MAX_POINTS), unrolling it. */
void *analyze_ring_grow(void *ring, size_t sz, unsigned *cap, unsigned *head, unsigned n);
float analyze_num(const struct value *v, enum metric_id id);
int analyze_cmp_double(const void *x, const void *y);

/* The node of hostname (created on first sight; NULL past ANALYZE_MAX_NODES). */
struct analyze_node *analyze_node_for(struct analyze_node *nodes, unsigned *n, const char *hostname,
                                      double window_s);
void analyze_node_free(struct analyze_node *node);
/* Adds a record's host figures and steps (t its time; points before from leave the window). */
void analyze_node_feed(struct analyze_node *node, const struct record *r, double t, double from);
/* The job's CPU, RSS, storage reads and the host's iowait over the window, into s. */
void analyze_node_stats(const struct analyze_node *node, struct analyze_gpu_stats *s);
/* With GPUs on several nodes: each GPU's node against the others (stats of n GPUs, node[i] its node). */
void analyze_nodes_compare(struct analyze_gpu_stats *out, const unsigned *node, unsigned n, unsigned nnodes,
                           double idle_util);

#endif
