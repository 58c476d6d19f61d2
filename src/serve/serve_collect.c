/*
 * serve_collect.c: the exporter's collector. Samples at --interval on
 * absolute deadlines, renders the record with the exporter's own health,
 * swaps the new text in under the state mutex (the old one is freed after
 * the swap, outside it), feeds the record to the rules (serve_diag.c
 * renders their verdicts) and to the live page (serve_web.c), and writes --textfile atomically (wfile.c: a
 * unique temporary file in the same folder, then rename), so node_exporter
 * never reads half a file. A textfile that cannot be written is reported once when it starts
 * failing and once when it recovers; serving goes on either way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "diag.h"
#include "serve.h"
#include "wfile.h"

void serve_collect_once(struct serve_state *st)
{
    struct record rec = {0};
    uint64_t t0 = util_mono_ns();
    sampler_sample(st->sampler, &rec);
    st->self.collect_seconds = (double)(util_mono_ns() - t0) / 1e9;
    if (st->diag)
        diag_feed(st->diag, &rec);
    serve_publish(st, &rec, st->diag, t0);
}

void serve_publish(struct serve_state *st, const struct record *rec, const struct diag *d, uint64_t t0)
{
    struct timespec wall;
    st->self.collections_total++;
    st->self.errors_total += prom_count_errors(rec);
    st->self.gpus = rec->ngpus;
    st->self.gpus_lost = 0;
    for (unsigned g = 0; g < rec->ngpus; g++)
        st->self.gpus_lost += metric_gpu_lost(rec->gpus[g].v);
    clock_gettime(CLOCK_REALTIME, &wall);
    st->self.last_success = (double)wall.tv_sec + wall.tv_nsec / 1e9;

    struct sbuf b;
    sbuf_init(&b);
    prom_render(&b, rec, &st->prom);
    if (d)
        serve_render_diag(&b, d, rec);
    prom_render_self(&b, &st->self);

    pthread_mutex_lock(&st->mu);
    char *old = st->snap;
    st->snap = b.data;
    st->snap_len = b.len;
    st->snap_ns = t0;
    pthread_mutex_unlock(&st->mu);
    free(old);
    if (st->page)
        serve_web_feed(st->page, rec, d);

    if (st->textfile) {
        char why[4400];
        int rc = wfile_write(st->textfile, b.data, b.len, why, sizeof why);
        if (rc && !st->textfile_failing)
            util_warn("--textfile: %s (serving goes on; retrying every interval)", why);
        else if (!rc && st->textfile_failing)
            util_warn("--textfile: writing %s again", st->textfile);
        st->textfile_failing = rc != 0;
    }
}

void *serve_collect_main(void *arg)
{
    struct serve_state *st = arg;
    uint64_t step = sampler_step_ns(st->sampler, st->interval_ms), next = util_mono_ns() + step;
    while (!atomic_load(&st->stop)) {
        /* Sleep until the deadline, or until told to stop. */
        if (util_mono_ns() < next) {
            struct timespec until = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
            pthread_mutex_lock(&st->stop_mu);   /* stop_cv runs on CLOCK_MONOTONIC */
            while (!atomic_load(&st->stop) && pthread_cond_timedwait(&st->stop_cv, &st->stop_mu, &until) == 0)
                ;
            pthread_mutex_unlock(&st->stop_mu);
            if (atomic_load(&st->stop))
                break;
        }
        serve_collect_once(st);
        next += step;
        uint64_t now = util_mono_ns();
        if (next < now)   /* a slow collection: skip missed deadlines, do not bunch */
            next = now + step - (now - next) % step;
    }
    return NULL;
}

double serve_snapshot_age(struct serve_state *st)
{
    pthread_mutex_lock(&st->mu);
    uint64_t t = st->snap_ns;
    pthread_mutex_unlock(&st->mu);
    return (double)(util_mono_ns() - t) / 1e9;
}
