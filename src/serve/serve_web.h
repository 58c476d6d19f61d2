/*
 * serve_web.h: the live page's data, kept by the exporter (gpumon serve)
 * and by gpumon run --web: a bounded history ring per GPU and the latest
 * state, both served as JSON (/api/v1/state, /api/v1/history?seconds=N)
 * to the page that / answers (serve_page.html, embedded in the module).
 *
 * The feeder (the collector thread, or run's loop) calls serve_web_feed
 * once per record with the diag that judged it; it averages records into
 * points of step_s (at least the interval; longer when the history would
 * need more than SERVE_WEB_MAX_POINTS) and renders the state JSON then,
 * once per record, so a request only copies text. A history request
 * copies the span it asks for under the mutex and formats it outside.
 * Memory: points x (8 + 4 x (GPUs x series + job series)) bytes, stated
 * by serve_web_ring_bytes and in the state's "history". Answers are
 * plain structs, so the routes are tested without a server; serve_http.c
 * passes them to libmicrohttpd.
 */
#ifndef GPUMON_SERVE_WEB_H
#define GPUMON_SERVE_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include "record.h"

#define SERVE_WEB_MAX_POINTS 3600      /* points per series at most, whatever --web.history asks */
#define SERVE_WEB_DEFAULT_HISTORY_S 900
#define SERVE_WEB_MAX_HISTORY_S 86400

struct diag;
struct serve_web;

struct serve_web_opts {
    double interval_ms;     /* the records' interval */
    double history_s;       /* how far back the ring reaches */
    double window_s;        /* the rules' window (for the page's legend) */
    const char *source;     /* "serve" or "run" */
    const char *command;    /* what gpumon run watches; NULL under serve */
    bool processes;         /* the records list processes (serve: --collect.processes) */
};

/* A new page state; nothing is allocated for GPUs until the first feed. */
struct serve_web *serve_web_new(const struct serve_web_opts *o);
void serve_web_free(struct serve_web *w);
/* Adds a record (d: the diag that was fed it, or NULL) to the ring and renders the state. */
void serve_web_feed(struct serve_web *w, const struct record *rec, const struct diag *d);
/* The ring's points, their length, and its memory for ngpus GPUs in bytes. */
unsigned serve_web_points(const struct serve_web *w);
double serve_web_step_s(const struct serve_web *w);
size_t serve_web_ring_bytes(const struct serve_web *w, unsigned ngpus);

/* One answer: status, type, body (owned: the caller frees it unless it is static). */
struct serve_web_reply {
    unsigned status;
    const char *type;
    char *body;
    size_t len;
    bool owned;
};
/* Looks up a query argument of the request (NULL: absent). */
typedef const char *serve_web_arg_fn(void *ctx, const char *name);
/* Answers path if it is the page's (/, /api/v1/state, /api/v1/history, anything under /api/):
 * true with *out filled; false when the path is not the page's. */
bool serve_web_answer(struct serve_web *w, const char *path, serve_web_arg_fn *arg, void *ctx,
                      struct serve_web_reply *out);

/* The embedded page (serve_page.c, generated from serve_page.html at build time). */
extern const char serve_page_html[];
extern const size_t serve_page_html_len;

#endif
