/*
 * fuzz_http.c: the exporter's HTTP request handling, end to end: the real
 * serve_http_start (libmicrohttpd, its thread pool, the routes, basic auth
 * from fixtures/web.yml: user "fuzz", password "fuzz", bcrypt cost 4) runs
 * in this process on 127.0.0.1:0 with a fixed snapshot, as cmd_serve would
 * start it. Each input is one TCP connection: connect, send the bytes,
 * shut down the write side, read the reply (1 s limit), close. A reply must
 * begin with an HTTP/1.x status line. Every 64 inputs, and once at start,
 * an authorized GET /metrics must answer 200 with the snapshot within 5 s
 * (asked again for 5 s while the pool refuses connections over its limit),
 * so a request that wedges or kills the server fails the run. The snapshot
 * time is refreshed then, so /health answers both fresh and stale. The live
 * page's routes (/, /api/v1/state, /api/v1/history) answer from a page fed
 * one record of one GPU at start.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "fuzz_util.h"
#include "serve.h"

#define FUZZ_HTTP_CHECK_EVERY 64
#define FUZZ_HTTP_SNAPSHOT "# HELP fuzz_up A fixed snapshot.\n# TYPE fuzz_up gauge\nfuzz_up 1\n"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct serve_state fuzz_http_st;
static struct serve_http *fuzz_http_server;
static struct sockaddr_in fuzz_http_addr;
static char fuzz_http_reply[1 << 16];
static int fuzz_http_errno;   /* of the last failed socket or connect */

/* One connection: sends req, then reads until the server closes, the
 * buffer is full or timeout_ms passes. Returns the bytes read, or -1 when
 * the server cannot be reached. */
static ssize_t fuzz_http_exchange(const void *req, size_t len, int timeout_ms)
{
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    int s = -1;
    /* A loaded machine (CI's two cores) may leave the listen queue unserved for a moment: connect
     * again for up to 5 s before calling the server unreachable; a dead server stays unreachable. */
    for (int attempt = 0; s < 0 && attempt < 50; attempt++) {
        if (attempt)
            usleep(100 * 1000);
        if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
            fuzz_http_errno = errno;
            continue;
        }
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (connect(s, (struct sockaddr *)&fuzz_http_addr, sizeof fuzz_http_addr) != 0) {
            fuzz_http_errno = errno;
            close(s);
            s = -1;
        }
    }
    if (s < 0)
        return -1;
    for (size_t off = 0; off < len;) {   /* the server may answer and close before reading it all */
        ssize_t w = send(s, (const char *)req + off, len - off, MSG_NOSIGNAL);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    /* libmicrohttpd (epoll, edge-triggered) misses an end of stream that arrives in the same wake-up
     * as the data and then holds the connection until its idle timeout; wait for the reply, or a
     * moment, before shutting down the write side, so the end of stream is an event of its own. */
    struct pollfd p = {s, POLLIN, 0};
    poll(&p, 1, 5);
    shutdown(s, SHUT_WR);
    size_t got = 0;
    while (got < sizeof fuzz_http_reply - 1) {
        ssize_t r = recv(s, fuzz_http_reply + got, sizeof fuzz_http_reply - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    fuzz_http_reply[got] = '\0';
    close(s);
    return (ssize_t)got;
}

static void fuzz_http_check_alive(void)
{
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Basic ZnV6ejpmdXp6\r\n"
                              "Connection: close\r\n\r\n";
    /* The pool refuses a connection over its limit (closed at once, no reply) while earlier inputs'
     * connections wait out their idle timeout (2 s): a refusal is not death, so ask again for up to
     * 5 s; a wedged or dead server never answers. */
    ssize_t n = -1;
    for (int attempt = 0; attempt < 10; attempt++) {
        if (attempt)
            usleep(500 * 1000);
        n = fuzz_http_exchange(req, sizeof req - 1, 5000);
        if (n < 0)
            fuzz_http_reply[0] = '\0';
        if (n > 0)
            break;
    }
    if (n < 0)
        fuzz_util_die("fuzz_http: GET /metrics cannot connect to the server: %s", strerror(fuzz_http_errno));
    if (strncmp(fuzz_http_reply, "HTTP/1.1 200", 12) || !strstr(fuzz_http_reply, "\nfuzz_up 1\n"))
        fuzz_util_die("fuzz_http: the server no longer answers GET /metrics (reply: \"%.200s\")", fuzz_http_reply);
    pthread_mutex_lock(&fuzz_http_st.mu);
    fuzz_http_st.snap_ns = util_mono_ns();
    pthread_mutex_unlock(&fuzz_http_st.mu);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char err[1024];
    fuzz_util_quiet();
    signal(SIGPIPE, SIG_IGN);
    struct serve_state *st = &fuzz_http_st;
    pthread_mutex_init(&st->mu, NULL);
    pthread_mutex_init(&st->stop_mu, NULL);
    pthread_cond_init(&st->stop_cv, NULL);
    st->interval_ms = 1000;
    st->snap = xstrdup(FUZZ_HTTP_SNAPSHOT);
    st->snap_len = strlen(st->snap);
    st->snap_ns = util_mono_ns();
    static struct record_gpu gpu = {.index = 0};
    struct record rec = {.time = {1000000, 0}, .hostname = "fuzz", .ngpus = 1, .gpus = &gpu};
    gpu.v[M_UUID] = (struct value){.state = VS_OK, .u.s = "GPU-fuzz"};
    gpu.v[M_UTIL_GPU] = (struct value){.state = VS_OK, .u.i = 50};
    struct serve_web_opts wo = {.interval_ms = 1000, .history_s = 60, .source = "serve"};
    st->page = serve_web_new(&wo);
    serve_web_feed(st->page, &rec, NULL);
    if (webconfig_load(FUZZ_FIXTURES "/web.yml", &st->web, err, sizeof err) != 0)
        fuzz_util_die("fuzz_http: %s", err);
    int fd = serve_http_listen("127.0.0.1:0", err, sizeof err);
    if (fd < 0)
        fuzz_util_die("fuzz_http: %s", err);
    socklen_t alen = sizeof fuzz_http_addr;
    if (getsockname(fd, (struct sockaddr *)&fuzz_http_addr, &alen) != 0)
        fuzz_util_die("fuzz_http: getsockname failed");
    struct serve_http_opts o = {fd, 64, 2};
    if (!(fuzz_http_server = serve_http_start(st, &o, err, sizeof err)))
        fuzz_util_die("fuzz_http: %s", err);
    fuzz_http_check_alive();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned long runs;
    ssize_t n = fuzz_http_exchange(data, size, 1000);
    if (n < 0)
        fuzz_util_die("fuzz_http: cannot connect to the server: %s", strerror(fuzz_http_errno));
    if (n > 0 && strncmp(fuzz_http_reply, "HTTP/1.", 7))
        fuzz_util_die("fuzz_http: a reply that is not HTTP: \"%.200s\"", fuzz_http_reply);
    if (++runs % FUZZ_HTTP_CHECK_EVERY == 0)
        fuzz_http_check_alive();
    return 0;
}
