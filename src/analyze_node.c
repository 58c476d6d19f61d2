/*
 * analyze_node.c: the analysis per node. Records carry their hostname; a
 * diagnosis of several nodes' logs (one job across nodes) keeps each
 * node's host figures and training processes apart, since a pid or an
 * iowait means nothing on another machine, and compares the nodes: a node
 * whose GPUs run well below those of the others slows every step of a
 * data-parallel job. Nodes are kept in an array that grows as they appear.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze_int.h"
#include "metrics.h"

_Static_assert((ANALYZE_MAX_POINTS & (ANALYZE_MAX_POINTS - 1)) == 0, "ring caps are powers of two (analyze_wrap)");

void *analyze_ring_grow(void *ring, size_t sz, unsigned *cap, unsigned *head, unsigned n)
{
    if (n < *cap || *cap >= ANALYZE_MAX_POINTS)
        return ring;
    unsigned ncap = *cap ? *cap * 2 : 64;
    char *out = xmalloc(ncap * sz);
    for (unsigned i = 0; i < n; i++)
        memcpy(out + i * sz, (char *)ring + analyze_wrap(*head + i, *cap) * sz, sz);
    free(ring);
    *cap = ncap;
    *head = 0;
    return out;
}

int analyze_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

struct analyze_node *analyze_node_for(struct analyzer *a, const char *hostname)
{
    const char *name = hostname ? hostname : "";
    for (unsigned i = 0; i < a->nnodes; i++)
        if (!strncmp(a->nodes[i].name, name, sizeof a->nodes[i].name - 1))
            return &a->nodes[i];
    if (a->nnodes == a->ncap) {
        a->ncap = a->ncap ? 2 * a->ncap : 4;
        a->nodes = xrealloc(a->nodes, a->ncap * sizeof *a->nodes);
    }
    struct analyze_node *node = &a->nodes[a->nnodes++];
    memset(node, 0, sizeof *node);
    snprintf(node->name, sizeof node->name, "%s", name);
    node->steps = stepstat_new(a->cfg.window_s);
    return node;
}

void analyze_node_free(struct analyze_node *node)
{
    free(node->host);
    stepstat_free(node->steps);
}

void analyze_node_feed(struct analyze_node *node, const struct record *r, double t, double from)
{
    const struct value *h = r->host;
    struct analyze_host_point hp = {t, analyze_num(&h[M_JOB_CPU], M_JOB_CPU),
                                    analyze_num(&h[M_JOB_CPU_TOP], M_JOB_CPU_TOP),
                                    analyze_num(&h[M_JOB_RSS], M_JOB_RSS),
                                    analyze_num(&h[M_HOST_IOWAIT], M_HOST_IOWAIT),
                                    analyze_num(&h[M_HOST_CPUS], M_HOST_CPUS),
                                    analyze_num(&h[M_JOB_READ], M_JOB_READ),
                                    h[M_JOB_PROCS].state == VS_OK ? (int32_t)h[M_JOB_PROCS].u.i : -1};
    while (node->hn && node->host[node->hhead].t <= from)
        node->hhead = analyze_wrap(node->hhead + 1, node->hcap), node->hn--;
    node->host = analyze_ring_grow(node->host, sizeof *node->host, &node->hcap, &node->hhead, node->hn);
    if (node->hn == node->hcap)   /* full at the cap: the window is what fits */
        node->hhead = analyze_wrap(node->hhead + 1, node->hcap), node->hn--;
    node->host[analyze_wrap(node->hhead + node->hn++, node->hcap)] = hp;
    stepstat_feed(node->steps, r, t);
}

void analyze_node_stats(const struct analyze_node *node, struct analyze_gpu_stats *s)
{
    double n = 0, cpu = 0, top = 0, rss = NAN, ni = 0, io = 0, nr = 0, rd = 0;
    s->ncpus = NAN;
    s->job_procs = -1;
    for (unsigned k = 0; k < node->hn; k++) {
        const struct analyze_host_point *p = &node->host[analyze_wrap(node->hhead + k, node->hcap)];
        if (!isnan(p->job_cpu)) {
            n++, cpu += p->job_cpu;
            top += isnan(p->job_top) ? 0 : p->job_top;
        }
        if (!isnan(p->job_rss))
            rss = isnan(rss) ? p->job_rss : fmax(rss, p->job_rss);
        if (!isnan(p->iowait))
            ni++, io += p->iowait;
        if (!isnan(p->job_read))
            nr++, rd += p->job_read;
        if (!isnan(p->ncpus))
            s->ncpus = p->ncpus;
        if (p->job_procs >= 0)
            s->job_procs = p->job_procs;
    }
    s->job_ok = n > 0;
    s->job_cpu = n ? cpu / n : NAN;
    s->job_cpu_top = n ? top / n : NAN;
    s->job_rss_max = rss;
    s->iowait = ni ? io / ni : NAN;
    s->job_read_kbs = nr ? rd / nr : NAN;
}

void analyze_node_copy(const struct analyze_gpu_stats *from, struct analyze_gpu_stats *s)
{
    s->ncpus = from->ncpus;
    s->job_procs = from->job_procs;
    s->job_ok = from->job_ok;
    s->job_cpu = from->job_cpu;
    s->job_cpu_top = from->job_cpu_top;
    s->job_rss_max = from->job_rss_max;
    s->iowait = from->iowait;
    s->job_read_kbs = from->job_read_kbs;
}

double analyze_median(double *v, unsigned n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, analyze_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double analyze_median_but(const double *sorted, unsigned n, double x)
{
    unsigned out = 0, m = n - 1;
    while (out < n && sorted[out] != x)
        out++;
    if (n < 2 || out == n)
        return NAN;
#define ANALYZE_BUT(k) sorted[(k) < out ? (k) : (k) + 1]
    return m % 2 ? ANALYZE_BUT(m / 2) : (ANALYZE_BUT(m / 2 - 1) + ANALYZE_BUT(m / 2)) / 2;
#undef ANALYZE_BUT
}

double analyze_nth(double *v, unsigned n, unsigned k)
{
    long lo = 0, hi = (long)n - 1, want = (long)k;
    while (lo < hi) {   /* Hoare's selection: v[k] ends as the k-th smallest, as after a sort */
        double pivot = v[lo + (hi - lo) / 2];
        long i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (want <= j)
            hi = j;
        else if (want >= i)
            lo = i;
        else
            break;   /* between the two parts: equal to the pivot */
    }
    return v[k];
}

void analyze_nodes_compare(const struct analyzer *a, struct analyze_gpu_stats *out)
{
    unsigned n = a->ngpus, nnodes = a->nnodes, with = 0;
    double *med = xcalloc(nnodes, sizeof *med), *v = xcalloc(n > nnodes ? n : nnodes, sizeof *v);
    for (unsigned h = 0; h < nnodes; h++) {   /* each node: the median of its GPUs in use */
        unsigned k = 0;
        for (unsigned i = 0; i < n; i++)
            if (a->gpus[i]->node == h && out[i].enough && !out[i].lost && !isnan(out[i].util_mean) &&
                (out[i].util_mean >= a->cfg.idle_util || out[i].procs > 0))
                v[k++] = out[i].util_mean;
        med[h] = analyze_median(v, k);
        with += k > 0;
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned k = 0, node = a->gpus[i]->node;
        for (unsigned h = 0; h < nnodes; h++)
            if (h != node && !isnan(med[h]))
                v[k++] = med[h];
        out[i].nodes = with;
        out[i].node_util = med[node];
        out[i].other_nodes_util = analyze_median(v, k);
    }
    free(med);
    free(v);
}
