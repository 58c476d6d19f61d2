/*
 * cmd_web.h: gpumon run --web, the live page of a run. The page, its API
 * and the HTTP server are the exporter's (src/serve/: serve_web.c,
 * serve_http.c), in gpumon-serve.so; gpumon run reaches them through this
 * table, which the module exports as gpumon_serve_web and cmd_web_load
 * (cmd_serve_launch.c) finds, so run maps libmicrohttpd and GnuTLS only
 * when --web is given. run feeds each record with the diag that judged it;
 * the module renders /metrics and the page's state from it as the
 * exporter's collector does, and serves them until stop.
 */
#ifndef GPUMON_CMD_WEB_H
#define GPUMON_CMD_WEB_H

#include <stdbool.h>
#include <stddef.h>

struct diag;
struct record;
struct cmd_web;

struct cmd_web_opts {
    const char *address;        /* [HOST]:PORT, as serve's --web.listen-address */
    const char *web_config;     /* TLS and basic auth (serve's --web.config.file); NULL: none */
    const char *command;        /* what the run watches, for the page's title */
    double interval_ms, window_s;
    bool processes;
};

struct cmd_web_ops {
    /* Loads the web config, binds the address and starts serving; NULL with a message in err
     * (*usage: the address or the config is wrong, as opposed to a failure to bind). where gets the
     * page's URL. */
    struct cmd_web *(*start)(const struct cmd_web_opts *o, char *where, size_t wherelen, char *err,
                             size_t errlen, bool *usage);
    /* One record, judged by d (already fed to it). */
    void (*feed)(struct cmd_web *w, const struct record *rec, const struct diag *d);
    void (*stop)(struct cmd_web *w);
};

/* The exporter module's table, loaded on first call; NULL after saying why on stderr (the module is
 * missing, or this gpumon was built without it). */
const struct cmd_web_ops *cmd_web_load(void);

#endif
