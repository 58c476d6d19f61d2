/*
 * webconfig.h: --web.config.file, in the Prometheus exporter-toolkit format
 * (the file node_exporter and promtool's check web-config read):
 *
 *   tls_server_config:
 *     cert_file: server.crt      # relative paths: from the config's folder
 *     key_file: server.key
 *     min_version: TLS12         # TLS10..TLS13; default TLS12
 *     max_version: TLS13
 *   basic_auth_users:
 *     alice: $2y$10$...          # bcrypt ($2a$, $2b$, $2y$)
 *
 * Loading checks everything before the server starts: unknown or
 * unsupported keys, unreadable files, a certificate that does not match its
 * key, a hash that is not bcrypt. Passwords are checked with libcrypt's
 * bcrypt and compared in constant time; a successful check is remembered
 * by SHA-256 of the password, so a scraper does not pay bcrypt each time.
 */
#ifndef GPUMON_WEBCONFIG_H
#define GPUMON_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct webconfig;

/* Loads path. Returns 0 and *out (owned by the caller), or -1 with one line
 * naming the file, the key and the problem in err. */
int webconfig_load(const char *path, struct webconfig **out, char *err, size_t errlen);
/* Parses YAML text (the loader's core, for tests and the fuzzer); paths in
 * it resolve against dir. */
int webconfig_parse(const char *text, size_t len, const char *dir, struct webconfig **out, char *err,
                    size_t errlen);
void webconfig_free(struct webconfig *c);

/* TLS: PEM certificate and key (NULL without TLS) and a GnuTLS priority
 * string that enforces min/max version. */
const char *webconfig_cert(const struct webconfig *c);
const char *webconfig_key(const struct webconfig *c);
const char *webconfig_priorities(const struct webconfig *c);
/* True when basic auth is configured. */
bool webconfig_has_users(const struct webconfig *c);
/* True when user and password match a configured user. Thread-safe. */
bool webconfig_check_user(struct webconfig *c, const char *user, const char *password);

#endif
