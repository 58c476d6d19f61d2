/*
 * fuzz_webconfig.c: the exporter-toolkit web config parser
 * (webconfig_parse) and, when a config loads, the basic-auth check.
 * Input: YAML text, then optionally NUL, user, NUL, password. Relative
 * cert_file/key_file names resolve against fuzz/fixtures (cert.pem and
 * key.pem, a matching pair), so the GnuTLS path runs as well.
 *
 * bcrypt's cost is exponential by design: a fuzzed "$2b$31$" hash would
 * take days, which is a property of the config, not a bug. The harness is
 * linked with -Wl,--wrap=crypt_r and refuses costs above 6 (crypt_r
 * returns NULL, which the parser must already handle); every cheaper hash
 * goes to the real libcrypt.
 */
#include <crypt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_util.h"
#include "webconfig.h"

#define FUZZ_WEBCONFIG_MAX_COST 6

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
char *__real_crypt_r(const char *phrase, const char *setting, struct crypt_data *data);
char *__wrap_crypt_r(const char *phrase, const char *setting, struct crypt_data *data);

char *__wrap_crypt_r(const char *phrase, const char *setting, struct crypt_data *data)
{
    if (setting && setting[0] == '$' && setting[1] == '2' && setting[2] && setting[3] == '$' &&
        (setting[4] != '0' || setting[5] > '0' + FUZZ_WEBCONFIG_MAX_COST))
        return NULL;
    return __real_crypt_r(phrase, setting, data);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_util_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *parts[3] = {NULL, NULL, NULL}, *buf;
    int n = fuzz_util_split(data, size, parts, 3, &buf);
    size_t text_len = strlen(parts[0]);
    struct webconfig *c = NULL;
    char err[256];
    err[0] = '\0';
    /* The text goes in by length and without a terminator, as webconfig_load's buffer would not be. */
    char *text = malloc(text_len ? text_len : 1);
    if (!text)
        abort();
    memcpy(text, parts[0], text_len);
    int rc = webconfig_parse(text, text_len, FUZZ_FIXTURES, &c, err, sizeof err);
    free(text);
    if (rc != 0) {
        if (c || !err[0] || !memchr(err, '\0', sizeof err))
            fuzz_util_die("fuzz_webconfig: a refusal must leave no config and say why");
    } else {
        if (!c)
            abort();
        if (!webconfig_cert(c) != !webconfig_key(c) || (webconfig_cert(c) && !webconfig_priorities(c)))
            abort();
        const char *user = n > 1 ? parts[1] : "fuzz", *password = n > 2 ? parts[2] : "";
        bool ok = webconfig_check_user(c, user, password);
        /* The second check may come from the cache; it must agree. */
        if (webconfig_check_user(c, user, password) != ok)
            abort();
        if (!webconfig_has_users(c) && ok)
            abort();
        webconfig_free(c);
    }
    free(buf);
    return 0;
}
