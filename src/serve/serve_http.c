/*
 * serve_http.c: the exporter's HTTP side, on libmicrohttpd (poll, an
 * internal pool of 2 threads; not epoll: libmicrohttpd 0.9.75 in epoll mode
 * misses a client's hang-up after half a request, and such connections
 * held their slots until the idle timeout). Routes: /metrics (the latest snapshot plus the
 * per-scrape series), /health (200 while collections are fresh, 503 with
 * the reason once they are not), / (the live page, serve_web.c, and its
 * /api/v1/ routes; a landing page where there is none); GET and HEAD only.
 * Basic auth and TLS come from the web config. Limits: a connection cap,
 * an idle timeout (so slow clients cannot hold slots), and a per-connection
 * memory cap that answers oversized headers with an error. The listening
 * socket is made here before anything else starts, so an address in use
 * is reported by name with nothing half-started.
 *
 * A gate thread accepts the connections and hands each to libmicrohttpd
 * (MHD_add_connection) once its first byte shows what it speaks: a request
 * line on the plain port, a TLS handshake record on the TLS port. Binary
 * junk, or a TLS ClientHello sent to the plain port, is closed at once
 * (libmicrohttpd would wait for a line end until the idle timeout); plain
 * HTTP sent to the TLS port gets a 400 in plain text saying so; a client
 * that sends nothing is closed at the idle timeout, as libmicrohttpd would.
 * libmicrohttpd runs strict for clients: HTTP/1.1 without Host, or a
 * header with space before its colon ("Host : x"), is a 400 (RFC 9112).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "serve.h"

/* libmicrohttpd 0.9.71 made the handlers' int an enum MHD_Result; Ubuntu
 * 20.04 ships 0.9.66. GPUMON_MHD_INT_RESULT forces the old spelling, so
 * that CI compiles that branch too (scripts/compat-check). */
#if MHD_VERSION >= 0x00097100 && !defined(GPUMON_MHD_INT_RESULT)
typedef enum MHD_Result serve_mhd_result;
#else
typedef int serve_mhd_result;
#endif

/* A connection accepted by the gate, waiting for its first byte. */
struct serve_http_pending {
    int fd;
    uint64_t deadline_ns;
    struct sockaddr_storage addr;
    socklen_t addrlen;
};

struct serve_http {
    struct MHD_Daemon *d;
    struct serve_state *st;
    int listen_fd, wake[2];           /* wake: the stop message to the gate thread */
    bool tls, gate_running;
    unsigned timeout_s, max_pending;
    pthread_t gate;
};

static const char serve_http_landing[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpumon exporter</title></head>\n"
    "<body><h1>gpumon exporter</h1>\n<p>NVIDIA GPU metrics for Prometheus, read through NVML.</p>\n"
    "<ul><li><a href=\"metrics\">/metrics</a>: the metrics (text format 0.0.4)</li>\n"
    "<li><a href=\"health\">/health</a>: 200 while collections are fresh, 503 once they are stale</li></ul>\n"
    "<p>gpumon " GPUMON_VERSION "</p></body></html>\n";

static serve_mhd_result serve_http_reply(struct MHD_Connection *c, unsigned status, const char *type, char *body,
                                        size_t len, bool owned)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        if (owned)
            free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    serve_mhd_result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static serve_mhd_result serve_http_text(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static serve_mhd_result serve_http_text(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
    char *body = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&body, fmt, ap);
    va_end(ap);
    if (n < 0)
        return MHD_NO;
    return serve_http_reply(c, status, "text/plain; charset=utf-8", body, (size_t)n, true);
}

static serve_mhd_result serve_http_metrics(struct serve_http *h, struct MHD_Connection *c)
{
    struct serve_state *st = h->st;
    struct sbuf b;
    sbuf_init(&b);
    pthread_mutex_lock(&st->mu);
    sbuf_add(&b, st->snap, st->snap_len);
    uint64_t taken = st->snap_ns;
    pthread_mutex_unlock(&st->mu);
    unsigned long long n = atomic_fetch_add(&st->scrapes, 1) + 1;
    prom_render_scrape(&b, (double)(util_mono_ns() - taken) / 1e9, n);
    return serve_http_reply(c, MHD_HTTP_OK, PROM_CONTENT_TYPE, b.data, b.len, true);
}

/* Fresh: the served data was begun at most three intervals (and at least
 * one second) ago, so one late collection does not flap the check. */
static serve_mhd_result serve_http_health(struct serve_http *h, struct MHD_Connection *c)
{
    double age = serve_snapshot_age(h->st), limit = 3 * h->st->interval_ms / 1000.0;
    if (limit < 1)
        limit = 1;
    if (age <= limit)
        return serve_http_text(c, MHD_HTTP_OK, "ok\n");
    return serve_http_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                           "stale: the latest collection began %.1f s ago (interval %.3g s); an NVML call may be "
                           "hanging\n", age, h->st->interval_ms / 1000.0);
}

static const char *serve_http_arg(void *ctx, const char *name)
{
    return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

/* The live page and its API (serve_web.c), where this server has them: true, with the answer queued in
 * *rc, when url is theirs. */
static bool serve_http_page(struct serve_http *h, struct MHD_Connection *c, const char *url, serve_mhd_result *rc)
{
    struct serve_web_reply r;
    if (!h->st->page || !serve_web_answer(h->st->page, url, serve_http_arg, c, &r))
        return false;
    *rc = serve_http_reply(c, r.status, r.type, r.body, r.len, r.owned);
    return true;
}

static bool serve_http_authorized(struct serve_http *h, struct MHD_Connection *c)
{
    if (!webconfig_has_users(h->st->web))
        return true;
    char *password = NULL;
    char *user = MHD_basic_auth_get_username_password(c, &password);
    bool ok = webconfig_check_user(h->st->web, user, password);
    if (password) {
        memset(password, 0, strlen(password));
        MHD_free(password);
    }
    if (user)
        MHD_free(user);
    return ok;
}

static serve_mhd_result serve_http_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                         const char *version, const char *upload, size_t *upload_size,
                                         void **con_cls)
{
    struct serve_http *h = cls;
    (void)upload;
    /* HTTP/1.0 and 1.1 only. libmicrohttpd 0.9.75 refuses the rest itself; 0.9.72 (Debian 11) passes a
     * request line with no version (HTTP/0.9: no status line to answer with, so the connection is
     * closed) and any other version, HTTP/9.9 too (505). */
    if (!version || !*version)
        return MHD_NO;
    if (strcmp(version, MHD_HTTP_VERSION_1_1) && strcmp(version, MHD_HTTP_VERSION_1_0))
        return serve_http_text(c, MHD_HTTP_HTTP_VERSION_NOT_SUPPORTED, "HTTP version %.20s not supported: "
                               "use HTTP/1.1\n", version);
    if (*upload_size) {   /* a body: discard it and answer once it is read */
        *upload_size = 0;
        return MHD_YES;
    }
    if (!*con_cls) {      /* headers only so far: answer once the whole request is read, so the
                           * connection can be kept alive */
        *con_cls = h;
        return MHD_YES;
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return serve_http_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method %s not allowed: use GET\n", method);
    if (!serve_http_authorized(h, c)) {
        static char denied[] = "401 Unauthorized: basic auth required\n";
        struct MHD_Response *r = MHD_create_response_from_buffer(sizeof denied - 1, denied, MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
        serve_mhd_result rc = MHD_queue_basic_auth_fail_response(c, "gpumon", r);
        MHD_destroy_response(r);
        return rc;
    }
    if (!strcmp(url, "/metrics"))
        return serve_http_metrics(h, c);
    if (!strcmp(url, "/health") || !strcmp(url, "/-/healthy"))
        return serve_http_health(h, c);
    serve_mhd_result rc;
    if (serve_http_page(h, c, url, &rc))
        return rc;
    if (!strcmp(url, "/"))
        return serve_http_reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (char *)serve_http_landing,
                                sizeof serve_http_landing - 1, false);
    return serve_http_text(c, MHD_HTTP_NOT_FOUND, "not found: %s (try /metrics)\n", url);
}

int serve_http_listen(const char *address, char *err, size_t errlen)
{
    char host[256] = "", port[16] = "";
    const char *colon = strrchr(address, ':');
    if (!colon || !colon[1] || strlen(colon + 1) >= sizeof port || (size_t)(colon - address) >= sizeof host) {
        snprintf(err, errlen, "--web.listen-address \"%.200s\": expected [HOST]:PORT, e.g. :9445 or "
                 "127.0.0.1:9445", address);
        return SERVE_BAD_ADDRESS;
    }
    memcpy(host, address, (size_t)(colon - address));
    snprintf(port, sizeof port, "%s", colon + 1);
    size_t hl = strlen(host);
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {   /* [::1] */
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    char *end;
    long pn = strtol(port, &end, 10);
    if (*end || pn < 0 || pn > 65535 || !isdigit((unsigned char)port[0])) {
        snprintf(err, errlen, "--web.listen-address \"%.200s\": \"%s\" is not a port number (0-65535)", address,
                 port);
        return SERVE_BAD_ADDRESS;
    }
    struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    int g = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);
    if (g) {
        snprintf(err, errlen, "--web.listen-address \"%.200s\": cannot resolve \"%s\": %s", address, host,
                 gai_strerror(g));
        return g == EAI_NONAME ? SERVE_BAD_ADDRESS : -1;
    }
    int fd = -1, e = 0;
    /* Without a host, prefer the IPv6 wildcard (dual stack), then IPv4. */
    for (int pass = 0; pass < 2 && fd < 0; pass++)
        for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
            if (!host[0] && (pass == 0) != (a->ai_family == AF_INET6))
                continue;
            fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
            if (fd < 0) {
                e = errno;
                continue;
            }
            int one = 1, zero = 0;
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            if (a->ai_family == AF_INET6 && !host[0])
                setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
            if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 1024) != 0) {
                e = errno;
                close(fd);
                fd = -1;
            }
        }
    freeaddrinfo(ai);
    if (fd < 0)
        snprintf(err, errlen, "--web.listen-address \"%s\": %s%s", address, strerror(e),
                 e == EADDRINUSE ? " (another exporter or gpumon serve is using it; pick another port)"
                 : e == EACCES ? " (ports below 1024 need privileges)" : "");
    return fd;
}

/* What a connection's first byte says: 1 hand it to libmicrohttpd, 0 close it, -1 plain HTTP on
 * the TLS port (told so, then closed). A request line begins with a method (a token) or, RFC 9112
 * allows, an empty line; a TLS connection with a handshake record (content type 22). */
static int serve_http_first_byte(bool tls, unsigned char c)
{
    bool token = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '\r' || c == '\n';
    if (tls)
        return c == 0x16 ? 1 : token ? -1 : 0;
    return token ? 1 : 0;
}

static void serve_http_tell_tls(int fd)
{
    static const char msg[] = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                              "Connection: close\r\nContent-Length: 50\r\n\r\n"
                              "this port speaks TLS: use https:// to reach it.\r\n\r\n";
    if (send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
        return;   /* the client is gone: nothing to tell */
}

/* The gate (see the top): a poll loop over the listening socket, the
 * connections that have sent nothing yet and the stop pipe. */
static void *serve_http_gate_main(void *arg)
{
    struct serve_http *h = arg;
    struct serve_http_pending *pend = xcalloc(h->max_pending, sizeof *pend);
    struct pollfd *pfd = xcalloc(h->max_pending + 2, sizeof *pfd);
    unsigned n = 0;
    for (;;) {
        uint64_t now = util_mono_ns(), soonest = UINT64_MAX;
        for (unsigned i = 0; i < n; i++)
            soonest = pend[i].deadline_ns < soonest ? pend[i].deadline_ns : soonest;
        int wait_ms = soonest == UINT64_MAX ? -1 : soonest <= now ? 0 : (int)((soonest - now) / 1000000 + 1);
        pfd[0] = (struct pollfd){h->wake[0], POLLIN, 0};
        pfd[1] = (struct pollfd){h->listen_fd, n < h->max_pending ? POLLIN : 0, 0};
        for (unsigned i = 0; i < n; i++)
            pfd[i + 2] = (struct pollfd){pend[i].fd, POLLIN, 0};
        if (poll(pfd, n + 2, wait_ms) < 0 && errno != EINTR)
            break;
        if (pfd[0].revents)
            break;   /* serve_http_stop */
        now = util_mono_ns();
        unsigned kept = 0;
        for (unsigned i = 0; i < n; i++) {
            struct serve_http_pending *p = &pend[i];
            int verdict = 2;   /* 2: still waiting */
            unsigned char c;
            if (pfd[i + 2].revents) {
                ssize_t got = recv(p->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
                verdict = got == 1 ? serve_http_first_byte(h->tls, c)
                        : got < 0 && (errno == EAGAIN || errno == EINTR) ? 2 : 0;
            } else if (p->deadline_ns <= now) {
                verdict = 0;   /* sent nothing within the idle timeout */
            }
            if (verdict == 1)
                MHD_add_connection(h->d, p->fd, (const struct sockaddr *)&p->addr, p->addrlen);   /* it owns fd */
            else if (verdict == 2)
                pend[kept++] = *p;
            else {
                if (verdict < 0)
                    serve_http_tell_tls(p->fd);
                close(p->fd);
            }
        }
        n = kept;
        while (pfd[1].revents && n < h->max_pending) {
            struct serve_http_pending *p = &pend[n];
            p->addrlen = sizeof p->addr;
            p->fd = accept4(h->listen_fd, (struct sockaddr *)&p->addr, &p->addrlen, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (p->fd < 0)
                break;   /* none left (EAGAIN), or out of descriptors: the next round tries again */
            p->deadline_ns = now + (uint64_t)h->timeout_s * 1000000000ull;
            n++;
        }
    }
    for (unsigned i = 0; i < n; i++)
        close(pend[i].fd);
    free(pend);
    free(pfd);
    return NULL;
}

struct serve_http *serve_http_start(struct serve_state *st, const struct serve_http_opts *o, char *err,
                                    size_t errlen)
{
    const char *cert = webconfig_cert(st->web);
    if (cert && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        snprintf(err, errlen, "this libmicrohttpd was built without TLS; remove tls_server_config");
        return NULL;
    }
    struct serve_http *h = xcalloc(1, sizeof *h);
    h->st = st;
    h->listen_fd = o->listen_fd;
    h->tls = cert != NULL;
    h->timeout_s = o->timeout_s;
    h->max_pending = o->max_connections;
    h->wake[0] = h->wake[1] = -1;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC |
                     (cert ? MHD_USE_TLS : 0);
    struct MHD_OptionItem tls[] = {
        {cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)webconfig_key(st->web)},
        {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)webconfig_priorities(st->web)},
        {MHD_OPTION_END, 0, NULL},
    };
    h->d = MHD_start_daemon(flags, 0, NULL, NULL, serve_http_handle, h,
                            MHD_OPTION_THREAD_POOL_SIZE, 2u,
                            MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
                            MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
                            MHD_OPTION_STRICT_FOR_CLIENT, 1,
                            MHD_OPTION_ARRAY, tls,
                            MHD_OPTION_END);
    if (!h->d) {
        snprintf(err, errlen, "libmicrohttpd could not start the server%s", cert ? " (check the TLS settings)" : "");
        free(h);
        return NULL;
    }
    int fl = fcntl(o->listen_fd, F_GETFL);
    if (fl < 0 || fcntl(o->listen_fd, F_SETFL, fl | O_NONBLOCK) != 0 || pipe2(h->wake, O_CLOEXEC) != 0 ||
        pthread_create(&h->gate, NULL, serve_http_gate_main, h) != 0) {
        snprintf(err, errlen, "cannot start the connection gate: %s", strerror(errno));
        serve_http_stop(h);
        return NULL;
    }
    h->gate_running = true;
    return h;
}

void serve_http_stop(struct serve_http *h)
{
    if (!h)
        return;
    if (h->gate_running) {
        if (write(h->wake[1], "s", 1) != 1)
            pthread_cancel(h->gate);   /* cannot happen with an empty pipe */
        pthread_join(h->gate, NULL);
    }
    if (h->wake[0] >= 0) {
        close(h->wake[0]);
        close(h->wake[1]);
    }
    MHD_stop_daemon(h->d);   /* the listening socket stays the caller's */
    free(h);
}

void serve_http_describe(int fd, char *out, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[NI_MAXHOST], port[NI_MAXSERV];
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
        getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(out, len, "(unknown address)");
        return;
    }
    bool any = !strcmp(host, "::") || !strcmp(host, "0.0.0.0");
    if (any && gethostname(host, sizeof host) == 0)
        host[sizeof host - 1] = '\0';
    snprintf(out, len, "%s%s%s:%s", !any && strchr(host, ':') ? "[" : "", host,
             !any && strchr(host, ':') ? "]" : "", port);
}
