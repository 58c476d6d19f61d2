/*
 * webconfig.c: the exporter-toolkit web config (see webconfig.h). libyaml
 * loads the document; a table of known keys per section drives checking,
 * so every key the file has is either understood or refused by name.
 * GnuTLS checks the certificate and key pair; libcrypt checks passwords.
 */
#include "webconfig.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>
#include "util.h"

#define WEBCONFIG_MAX_USERS 256
#define WEBCONFIG_MAX_FILE (1 << 20)

struct webconfig_user {
    char *name, *hash;
    bool cached;                      /* cache_digest holds SHA-256 of a password that matched */
    unsigned char cache_digest[32];
};

struct webconfig {
    char *cert, *key;                 /* PEM text; NULL without TLS */
    char priorities[160];
    unsigned nusers;
    struct webconfig_user *users;
    pthread_mutex_t mu;               /* guards the users' caches */
};

struct webconfig_parse_ctx {
    yaml_document_t *doc;
    const char *dir;
    char *err;
    size_t errlen;
};

static int webconfig_fail(struct webconfig_parse_ctx *p, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int webconfig_fail(struct webconfig_parse_ctx *p, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n)
        snprintf(p->err, p->errlen, "line %zu: %s", n->start_mark.line + 1, msg);
    else
        snprintf(p->err, p->errlen, "%s", msg);
    return -1;
}

static const char *webconfig_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Reads a whole file of at most WEBCONFIG_MAX_FILE bytes. */
/* Reads a whole regular file of at most WEBCONFIG_MAX_FILE bytes. Opened
 * without blocking and refused unless regular, so a FIFO or a device named
 * by mistake is an error instead of a hung start-up. */
static char *webconfig_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char shorter[UTIL_SHORT + 1];
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot open %s: %s", util_short(path, shorter), strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > WEBCONFIG_MAX_FILE) {
        snprintf(err, errlen, "cannot read %s: %s", path, S_ISREG(st.st_mode) ? "larger than 1 MiB"
                 : "not a regular file");
        close(fd);
        return NULL;
    }
    char *buf = xmalloc((size_t)st.st_size + 1);
    size_t n = 0;
    while (n < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    int e = errno;
    close(fd);
    if (n != (size_t)st.st_size) {
        snprintf(err, errlen, "cannot read %s: %s", path, n < (size_t)st.st_size ? strerror(e) : "read error");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int webconfig_pem(struct webconfig_parse_ctx *p, const yaml_node_t *n, const char *key, char **out)
{
    const char *v = webconfig_scalar(n);
    if (!v || !*v)
        return webconfig_fail(p, n, "tls_server_config.%s: expected a file name", key);
    char path[4096], why[600];
    snprintf(path, sizeof path, "%s%s%s", v[0] == '/' || !p->dir ? "" : p->dir, v[0] == '/' || !p->dir ? "" : "/", v);
    size_t len;
    *out = webconfig_read_file(path, &len, why, sizeof why);
    return *out ? 0 : webconfig_fail(p, n, "tls_server_config.%s: %s", key, why);
}

static int webconfig_tls_version(struct webconfig_parse_ctx *p, const yaml_node_t *n, const char *key, int *out)
{
    static const char *const names[] = {"TLS10", "TLS11", "TLS12", "TLS13"};
    const char *v = webconfig_scalar(n);
    for (int i = 0; v && i < 4; i++)
        if (!strcmp(v, names[i])) {
            *out = i;
            return 0;
        }
    return webconfig_fail(p, n, "tls_server_config.%s: \"%s\" is not one of TLS10, TLS11, TLS12, TLS13", key,
                          v ? v : "(not a string)");
}

static int webconfig_tls(struct webconfig_parse_ctx *p, const yaml_node_t *sec, struct webconfig *c)
{
    int minv = 2, maxv = 3;
    if (sec->type != YAML_MAPPING_NODE)
        return webconfig_fail(p, sec, "tls_server_config: expected a mapping");
    for (yaml_node_pair_t *kv = sec->data.mapping.pairs.start; kv < sec->data.mapping.pairs.top; kv++) {
        const char *k = webconfig_scalar(yaml_document_get_node(p->doc, kv->key));
        yaml_node_t *v = yaml_document_get_node(p->doc, kv->value);
        int rc;
        if (!k)
            rc = webconfig_fail(p, v, "tls_server_config: keys must be strings");
        else if (!strcmp(k, "cert_file"))
            rc = c->cert ? webconfig_fail(p, v, "tls_server_config.cert_file given twice")
                         : webconfig_pem(p, v, k, &c->cert);
        else if (!strcmp(k, "key_file"))
            rc = c->key ? webconfig_fail(p, v, "tls_server_config.key_file given twice")
                        : webconfig_pem(p, v, k, &c->key);
        else if (!strcmp(k, "min_version"))
            rc = webconfig_tls_version(p, v, k, &minv);
        else if (!strcmp(k, "max_version"))
            rc = webconfig_tls_version(p, v, k, &maxv);
        else if (!strcmp(k, "client_auth_type") && webconfig_scalar(v) &&
                 !strcmp(webconfig_scalar(v), "NoClientCert"))
            rc = 0;
        else
            rc = webconfig_fail(p, v, "tls_server_config.%s: not supported by gpumon (supported: cert_file, "
                                "key_file, min_version, max_version, client_auth_type: NoClientCert)", k);
        if (rc)
            return rc;
    }
    if (!c->cert || !c->key)
        return webconfig_fail(p, sec, "tls_server_config: both cert_file and key_file are required");
    if (minv > maxv)
        return webconfig_fail(p, sec, "tls_server_config: min_version is above max_version");
    int n = snprintf(c->priorities, sizeof c->priorities, "NORMAL:-VERS-ALL");
    for (int v = minv; v <= maxv; v++)
        n += snprintf(c->priorities + n, sizeof c->priorities - n, ":+VERS-TLS1.%d", v);

    gnutls_certificate_credentials_t cred;
    gnutls_datum_t cd = {(unsigned char *)c->cert, (unsigned)strlen(c->cert)};
    gnutls_datum_t kd = {(unsigned char *)c->key, (unsigned)strlen(c->key)};
    if (gnutls_certificate_allocate_credentials(&cred) < 0)
        return webconfig_fail(p, sec, "tls_server_config: GnuTLS could not allocate credentials");
    int g = gnutls_certificate_set_x509_key_mem(cred, &cd, &kd, GNUTLS_X509_FMT_PEM);
    gnutls_certificate_free_credentials(cred);
    if (g < 0)
        return webconfig_fail(p, sec, "tls_server_config: the certificate and key cannot be used together: %s",
                              gnutls_strerror(g));
    return 0;
}

static bool webconfig_is_bcrypt(const char *h)
{
    if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$' || h[6] != '$')
        return false;
    struct crypt_data *cd = xcalloc(1, sizeof *cd);
    const char *out = crypt_r("gpumon-check", h, cd);
    bool ok = out && !strncmp(out, h, 29);
    free(cd);
    return ok;
}

static int webconfig_users(struct webconfig_parse_ctx *p, const yaml_node_t *sec, struct webconfig *c)
{
    static const char none[] = "basic_auth_users: names no user, so nothing would be protected: add "
                               "\"USER: BCRYPT-HASH\" lines under it (htpasswd -nBC 10 USER makes one), or remove "
                               "the key to serve without basic auth";
    if (sec->type == YAML_SCALAR_NODE && !*webconfig_scalar(sec))
        return webconfig_fail(p, sec, none);   /* "basic_auth_users:" with nothing */
    if (sec->type != YAML_MAPPING_NODE)
        return webconfig_fail(p, sec, "basic_auth_users: expected a mapping of user name to bcrypt hash");
    size_t n = (size_t)(sec->data.mapping.pairs.top - sec->data.mapping.pairs.start);
    if (n == 0)
        return webconfig_fail(p, sec, none);   /* "basic_auth_users: {}" */
    if (n > WEBCONFIG_MAX_USERS)
        return webconfig_fail(p, sec, "basic_auth_users: more than %d users", WEBCONFIG_MAX_USERS);
    c->users = xcalloc(n ? n : 1, sizeof *c->users);
    for (yaml_node_pair_t *kv = sec->data.mapping.pairs.start; kv < sec->data.mapping.pairs.top; kv++) {
        const char *u = webconfig_scalar(yaml_document_get_node(p->doc, kv->key));
        yaml_node_t *vn = yaml_document_get_node(p->doc, kv->value);
        const char *h = webconfig_scalar(vn);
        if (!u || !*u || strchr(u, ':'))
            return webconfig_fail(p, vn, "basic_auth_users: a user name must be a non-empty string without ':'");
        for (unsigned i = 0; i < c->nusers; i++)
            if (!strcmp(c->users[i].name, u))
                return webconfig_fail(p, vn, "basic_auth_users: user \"%s\" given twice", u);
        if (!h || !webconfig_is_bcrypt(h))
            return webconfig_fail(p, vn, "basic_auth_users.%s: not a bcrypt hash ($2y$, $2b$ or $2a$, 60 "
                                  "characters; make one with htpasswd -nBC 10 USER)", u);
        c->users[c->nusers].name = xstrdup(u);
        c->users[c->nusers].hash = xstrdup(h);
        c->nusers++;
    }
    return 0;
}

static int webconfig_root(struct webconfig_parse_ctx *p, struct webconfig *c)
{
    /* The exporter toolkit serves an empty file as no config at all; but --web.config.file asks for
     * protection, and serving without it in silence would hide the mistake. */
    static const char empty[] = "the file is empty: it configures neither TLS nor basic auth; give "
                                "tls_server_config and/or basic_auth_users, or leave out --web.config.file to "
                                "serve plain HTTP without auth";
    yaml_node_t *root = yaml_document_get_root_node(p->doc);
    if (!root || (root->type == YAML_SCALAR_NODE && !*webconfig_scalar(root)) ||
        (root->type == YAML_MAPPING_NODE && root->data.mapping.pairs.top == root->data.mapping.pairs.start))
        return webconfig_fail(p, NULL, empty);
    if (root->type != YAML_MAPPING_NODE)
        return webconfig_fail(p, root, "expected a mapping with tls_server_config and/or basic_auth_users");
    bool seen_tls = false, seen_users = false;
    for (yaml_node_pair_t *kv = root->data.mapping.pairs.start; kv < root->data.mapping.pairs.top; kv++) {
        const char *k = webconfig_scalar(yaml_document_get_node(p->doc, kv->key));
        yaml_node_t *v = yaml_document_get_node(p->doc, kv->value);
        int rc;
        if (k && !strcmp(k, "tls_server_config") && !seen_tls) {
            seen_tls = true;
            rc = webconfig_tls(p, v, c);
        } else if (k && !strcmp(k, "basic_auth_users") && !seen_users) {
            seen_users = true;
            rc = webconfig_users(p, v, c);
        } else {
            rc = webconfig_fail(p, v, "%s%s%s: %s", k ? "\"" : "", k ? k : "(a key that is not a string)",
                                k ? "\"" : "", k && (!strcmp(k, "tls_server_config") || !strcmp(k, "basic_auth_users"))
                                ? "given twice" : "unknown or unsupported key (gpumon reads tls_server_config "
                                "and basic_auth_users)");
        }
        if (rc)
            return rc;
    }
    return 0;
}

#define WEBCONFIG_MAX_DEPTH 16   /* a web config nests 3 levels; libyaml's parse is quadratic in depth */

/* Refuses a document nested deeper than WEBCONFIG_MAX_DEPTH before it is
 * loaded: a pass over the events that stops at the first level too deep,
 * so a hostile file costs microseconds, not seconds. Returns 0 or -1 with
 * a message (YAML errors are left to the loader, which says them better). */
static int webconfig_depth(const char *text, size_t len, char *err, size_t errlen)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int depth = 0, rc = 0;
    if (!yaml_parser_initialize(&parser))
        return 0;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    for (bool done = false; !done && rc == 0;) {
        if (!yaml_parser_parse(&parser, &ev))
            break;
        if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
            if (++depth > WEBCONFIG_MAX_DEPTH) {
                snprintf(err, errlen, "line %zu: nested more than %d levels deep (a web config needs 3)",
                         ev.start_mark.line + 1, WEBCONFIG_MAX_DEPTH);
                rc = -1;
            }
        } else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}

int webconfig_parse(const char *text, size_t len, const char *dir, struct webconfig **out, char *err,
                    size_t errlen)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    struct webconfig *c = xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    *out = NULL;
    if (webconfig_depth(text, len, err, errlen) != 0) {
        webconfig_free(c);
        return -1;
    }
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "cannot initialize the YAML parser");
        webconfig_free(c);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "line %zu: not valid YAML: %s", parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "syntax error");
        yaml_parser_delete(&parser);
        webconfig_free(c);
        return -1;
    }
    struct webconfig_parse_ctx p = {&doc, dir, err, errlen};
    int rc = webconfig_root(&p, c);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc) {
        webconfig_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

int webconfig_load(const char *path, struct webconfig **out, char *err, size_t errlen)
{
    char why[600];
    size_t len;
    char *text = webconfig_read_file(path, &len, why, sizeof why);
    if (!text) {
        snprintf(err, errlen, "--web.config.file: %s", why);
        return -1;
    }
    char *dir = xstrdup(path), *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    int rc = webconfig_parse(text, len, slash ? (slash == dir ? "/" : dir) : NULL, out, why, sizeof why);
    if (rc)
        snprintf(err, errlen, "--web.config.file %s: %s", path, why);
    free(dir);
    free(text);
    return rc;
}

void webconfig_free(struct webconfig *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->nusers; i++) {
        free(c->users[i].name);
        free(c->users[i].hash);
    }
    free(c->users);
    free(c->cert);
    if (c->key)
        memset(c->key, 0, strlen(c->key));
    free(c->key);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

const char *webconfig_cert(const struct webconfig *c) { return c ? c->cert : NULL; }
const char *webconfig_key(const struct webconfig *c) { return c ? c->key : NULL; }
const char *webconfig_priorities(const struct webconfig *c) { return c && c->cert ? c->priorities : NULL; }
bool webconfig_has_users(const struct webconfig *c) { return c && c->nusers > 0; }

/* Compares n bytes in time that depends only on n. */
static bool webconfig_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= x[i] ^ y[i];
    return d == 0;
}

bool webconfig_check_user(struct webconfig *c, const char *user, const char *password)
{
    if (!c || c->nusers == 0 || !user || !password)
        return false;
    struct webconfig_user *u = NULL;
    for (unsigned i = 0; i < c->nusers; i++)
        if (strlen(c->users[i].name) == strlen(user) && webconfig_equal(c->users[i].name, user, strlen(user)))
            u = &c->users[i];
    unsigned char digest[32];
    if (gnutls_hash_fast(GNUTLS_DIG_SHA256, password, strlen(password), digest) < 0)
        return false;
    if (u) {
        pthread_mutex_lock(&c->mu);
        bool hit = u->cached && webconfig_equal(u->cache_digest, digest, sizeof digest);
        pthread_mutex_unlock(&c->mu);
        if (hit)
            return true;
    }
    /* An unknown user still pays one bcrypt, so timing does not tell users apart. */
    const char *hash = u ? u->hash : c->users[0].hash;
    struct crypt_data *cd = xcalloc(1, sizeof *cd);
    const char *out = crypt_r(password, hash, cd);
    bool ok = u && out && strlen(out) == strlen(hash) && webconfig_equal(out, hash, strlen(hash));
    free(cd);
    if (ok) {
        pthread_mutex_lock(&c->mu);
        memcpy(u->cache_digest, digest, sizeof digest);
        u->cached = true;
        pthread_mutex_unlock(&c->mu);
    }
    return ok;
}
