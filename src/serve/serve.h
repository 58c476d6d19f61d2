/*
 * serve.h: the parts of `gpumon serve` and what they share.
 *
 * The collector (serve_collect.c) samples on its own thread and publishes
 * each collection as a rendered snapshot; the HTTP side (serve_http.c,
 * libmicrohttpd) copies the latest snapshot under a mutex held only for a
 * memcpy, so a scrape never waits for NVML, and a hung NVML call shows up
 * as a growing snapshot age instead of a hung scrape. cmd_serve.c parses
 * options and starts the parts in an order that leaves nothing half-started.
 */
#ifndef GPUMON_SERVE_H
#define GPUMON_SERVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "prom.h"
#include "sampler.h"
#include "serve_web.h"
#include "webconfig.h"

struct serve_state {
    /* set before the threads start, then read-only */
    struct sampler *sampler;
    struct prom_opts prom;
    double interval_ms;
    const char *textfile;           /* NULL: none */
    struct webconfig *web;          /* NULL: no TLS, no auth */
    struct diag *diag;              /* the rules on every record (collector-owned); NULL under run --web */
    struct serve_web *page;         /* the live page's ring and state (serve_web.h); NULL: none */

    pthread_mutex_t mu;             /* guards the three below */
    char *snap;                     /* latest rendering; owned */
    size_t snap_len;
    uint64_t snap_ns;               /* monotonic start of the collection that made it */

    atomic_ullong scrapes;
    atomic_bool stop;
    pthread_mutex_t stop_mu;
    pthread_cond_t stop_cv;
    struct prom_self self;          /* collector-owned */
    bool textfile_failing;          /* collector-owned: the last textfile write failed */
};

/* The verdicts of d's rules, their seconds held and window figures (serve_diag.c). */
struct diag;
void serve_render_diag(struct sbuf *b, const struct diag *d, const struct record *rec);
/* The verdicts that hold now on the record's GPUs, as a JSON array (the page's state; d may be NULL):
 * [{"gpu","uuid","rule","severity","title","evidence","advice","first","held_s"}], most severe first. */
void serve_diag_json(struct sbuf *b, const struct diag *d, const struct record *rec);
/* The time ledger so far as ,"ledger":{...}, or nothing while gpumon has no ledger (a hook). */
void serve_diag_ledger_json(struct sbuf *b, const struct diag *d);

/* One collection: sample, feed the rules, publish. */
void serve_collect_once(struct serve_state *st);
/* Renders rec (judged by d, which may be NULL) as the snapshot begun at t0 (util_mono_ns), feeds the
 * page, and writes the textfile: the collector's, and gpumon run --web's for each of its records. */
void serve_publish(struct serve_state *st, const struct record *rec, const struct diag *d, uint64_t t0);
/* The collector thread's body (arg: struct serve_state *). */
void *serve_collect_main(void *arg);
/* Seconds since the snapshot served now was begun. */
double serve_snapshot_age(struct serve_state *st);

struct serve_http;
struct serve_http_opts {
    int listen_fd;                  /* bound and listening */
    unsigned max_connections;
    unsigned timeout_s;
};
/* Starts libmicrohttpd on the socket. Returns NULL with a message in err. */
struct serve_http *serve_http_start(struct serve_state *st, const struct serve_http_opts *o, char *err,
                                    size_t errlen);
void serve_http_stop(struct serve_http *h);
/* Binds and listens on "[HOST]:PORT", "HOST:PORT" or ":PORT". Returns the
 * socket, or with a message naming the address and the cause:
 * SERVE_BAD_ADDRESS when it is not an address (a usage error), -1 when it
 * cannot be bound (in use, no privilege). */
#define SERVE_BAD_ADDRESS (-2)
int serve_http_listen(const char *address, char *err, size_t errlen);
/* The address fd listens on, as a URL's host:port ("node1:9445" for all
 * addresses, "127.0.0.1:9445", "[::1]:9445"), for the start-up line. */
void serve_http_describe(int fd, char *out, size_t len);

#endif
