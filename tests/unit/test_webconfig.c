/*
 * test_webconfig.c: the exporter-toolkit web config: what is accepted,
 * what is refused (by name: an empty file, or basic_auth_users with no
 * user, protect nothing and are refused too), and password checks (right, wrong, unknown
 * user, and the cached second check).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "webconfig.h"

#define HASH "$2b$10$/1ckNswVKatls7K3/U3.0.HKTdZ7f/yLs7b5qVQoVmqgN9NhZIycG"   /* "s3cret" */

static char err[1024];

static struct webconfig *parse(const char *text)
{
    struct webconfig *c = NULL;
    err[0] = '\0';
    if (webconfig_parse(text, strlen(text), "/nonexistent", &c, err, sizeof err) != 0)
        return NULL;
    return c;
}

static void test_users(void **state)
{
    (void)state;
    struct webconfig *c = parse("basic_auth_users:\n  prometheus: " HASH "\n  other: " HASH "\n");
    assert_non_null(c);
    assert_true(webconfig_has_users(c));
    assert_null(webconfig_cert(c));
    assert_true(webconfig_check_user(c, "prometheus", "s3cret"));
    assert_true(webconfig_check_user(c, "prometheus", "s3cret"));   /* cached */
    assert_false(webconfig_check_user(c, "prometheus", "s3cret "));
    assert_false(webconfig_check_user(c, "prometheus", ""));
    assert_false(webconfig_check_user(c, "nobody", "s3cret"));
    assert_false(webconfig_check_user(c, NULL, NULL));
    webconfig_free(c);
}

static void refused(const char *text, const char *why)
{
    struct webconfig *c = parse(text);
    if (c) {
        webconfig_free(c);
        fail_msg("accepted: %s", text);
    }
    if (!strstr(err, why))
        fail_msg("message \"%s\" does not say \"%s\"", err, why);
}

static void test_refused(void **state)
{
    (void)state;
    /* asked for protection and given none: refused, saying what is missing */
    refused("", "the file is empty: it configures neither TLS nor basic auth");
    refused("# only a comment\n", "the file is empty");
    refused("{}\n", "the file is empty");
    refused("basic_auth_users:\n", "basic_auth_users: names no user, so nothing would be protected");
    refused("basic_auth_users: {}\n", "names no user");
    refused("basic_auth_users:\n  bob: secret\n", "basic_auth_users.bob: not a bcrypt hash");
    refused("basic_auth_users:\n  bob: $1$abc$def\n", "not a bcrypt hash");
    refused("basic_auth_users:\n  bob: " HASH "\n  bob: " HASH "\n", "given twice");
    refused("basic_auth_users: [a, b]\n", "expected a mapping");
    refused("http_server_config:\n  http2: true\n", "\"http_server_config\": unknown or unsupported");
    refused("tls_server_config:\n  cert_file: a.pem\n", "cannot open /nonexistent/a.pem");
    refused("tls_server_config:\n  client_auth_type: RequireAndVerifyClientCert\n", "client_auth_type: not supported");
    refused("tls_server_config:\n  min_version: TLS14\n", "\"TLS14\" is not one of");
    refused("- a\n- b\n", "expected a mapping");
    refused("a: [\n", "not valid YAML");
    refused("basic_auth_users:\n  \"a:b\": " HASH "\n", "without ':'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_users),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
