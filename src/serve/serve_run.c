/*
 * serve_run.c: gpumon run --web (cmd_web.h), on the exporter's own parts:
 * the same HTTP server (serve_http.c: TLS and basic auth from the web
 * config, the same limits), the same routes (/metrics, /health, the live
 * page and its API) and the same rendering (serve_publish), fed by run's
 * loop instead of a collector thread: run samples and judges each record,
 * this renders it. Before the first record the state answers 503 and
 * /metrics is empty. The module exports the table as gpumon_serve_web.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd_web.h"
#include "serve.h"

#define SERVE_RUN_MAX_CONNECTIONS 64u
#define SERVE_RUN_TIMEOUT_S 10u

struct cmd_web {
    struct serve_state st;
    struct serve_http *http;
    int fd;
};

static void serve_run_stop(struct cmd_web *w)
{
    if (!w)
        return;
    serve_http_stop(w->http);
    if (w->fd >= 0)
        close(w->fd);
    serve_web_free(w->st.page);
    webconfig_free(w->st.web);
    free(w->st.snap);
    pthread_mutex_destroy(&w->st.mu);
    pthread_mutex_destroy(&w->st.stop_mu);
    pthread_cond_destroy(&w->st.stop_cv);
    free(w);
}

/* serve_http_listen names serve's option; run's is --web. */
static void serve_run_option_name(char *err, size_t errlen)
{
    static const char serve_name[] = "--web.listen-address ";
    if (!strncmp(err, serve_name, sizeof serve_name - 1)) {
        size_t skip = strlen("--web.listen-address") - strlen("--web");
        memmove(err + strlen("--web"), err + strlen("--web") + skip, strlen(err) - strlen("--web") - skip + 1);
    }
    (void)errlen;
}

static struct cmd_web *serve_run_start(const struct cmd_web_opts *o, char *where, size_t wherelen, char *err,
                                       size_t errlen, bool *usage)
{
    struct cmd_web *w = xcalloc(1, sizeof *w);
    struct serve_state *st = &w->st;
    pthread_mutex_init(&st->mu, NULL);
    pthread_mutex_init(&st->stop_mu, NULL);
    util_cond_init_monotonic(&st->stop_cv);
    st->interval_ms = o->interval_ms;
    st->prom = (struct prom_opts){false, o->processes, 16};
    st->snap = xstrdup("");
    st->snap_ns = util_mono_ns();
    w->fd = -1;
    *usage = false;
    if (o->web_config && webconfig_load(o->web_config, &st->web, err, errlen) != 0) {
        *usage = true;
        goto fail;
    }
    if ((w->fd = serve_http_listen(o->address, err, errlen)) < 0) {
        *usage = w->fd == SERVE_BAD_ADDRESS;
        serve_run_option_name(err, errlen);
        goto fail;
    }
    struct serve_web_opts wo = {o->interval_ms, SERVE_WEB_DEFAULT_HISTORY_S, o->window_s, "run", o->command,
                                o->processes};
    st->page = serve_web_new(&wo);
    struct serve_http_opts ho = {w->fd, SERVE_RUN_MAX_CONNECTIONS, SERVE_RUN_TIMEOUT_S};
    if (!(w->http = serve_http_start(st, &ho, err, errlen)))
        goto fail;
    char addr[300];
    serve_http_describe(w->fd, addr, sizeof addr);
    snprintf(where, wherelen, "%s://%s/", webconfig_cert(st->web) ? "https" : "http", addr);
    return w;
fail:
    serve_run_stop(w);
    return NULL;
}

static void serve_run_feed(struct cmd_web *w, const struct record *rec, const struct diag *d)
{
    serve_publish(&w->st, rec, d, util_mono_ns());
}

const struct cmd_web_ops gpumon_serve_web = {serve_run_start, serve_run_feed, serve_run_stop};
