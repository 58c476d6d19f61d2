/*
 * test_opt.c: commands as data: one option table drives parsing in both
 * styles (GNU, nvidia-smi) and --help; every command's table is sound
 * (unique names and short forms, help for each option, and every option
 * parses through its command's handler as the table says).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "exitcodes.h"
#include "opt.h"

enum { K_INTERVAL = 1, K_ONCE, K_VERBOSE, K_NAME };

static const struct opt test_opts[] = {
    {"interval", "i", "DUR", K_INTERVAL, "time between samples"},
    {"once", NULL, NULL, K_ONCE, "one sample\nand a second line"},
    {"verbose", "v", NULL, K_VERBOSE, "more words"},
    {"a-rather-long-option-name", NULL, "VALUE", K_NAME, "help on the next line"},
    {NULL, NULL, NULL, 0, NULL},
};

struct seen {
    char log[512];
};

static int test_set(void *ctx, int key, const char *v)
{
    struct seen *s = ctx;
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "%s%d=%s", n ? " " : "", key, v ? v : "-");
    return v && !strcmp(v, "bad") ? EXIT_USAGE : 0;
}

/* The tables are named arrays, not compound literals: gcc 9 and 10 take a designated initializer
 * holding a compound literal for one missing fields (-Wmissing-field-initializers, a false warning). */
static const struct opt *const test_tables[] = {test_opts, NULL};
static const struct cmd_entry gnu = {
    .name = "test", .usage = "[OPTIONS] ARGS", .about = "A test command.", .opts = test_tables,
    .notes = "Notes here. A paragraph much longer than a line, with a line break that is soft\nin the middle of it, so "
             "that the help has to wrap it at a space to stay within eighty columns of a terminal.",
};

static int parse(const struct cmd_entry *e, struct seen *s, int *first, int argc, ...)
{
    char *argv[32];
    va_list ap;
    va_start(ap, argc);
    argv[0] = "gpumon";
    for (int i = 1; i < argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    argv[argc] = NULL;
    memset(s, 0, sizeof *s);
    return opt_parse(e, argc, argv, test_set, s, first);
}

static void test_gnu(void **state)
{
    (void)state;
    struct seen s;
    int first;
    assert_int_equal(parse(&gnu, &s, &first, 6, "-i", "5s", "--once", "-v", "x"), 0);
    assert_string_equal(s.log, "1=5s 2=- 3=-");
    assert_int_equal(first, 5);
    assert_int_equal(parse(&gnu, &s, &first, 4, "--interval=2m", "-vi3", "--a-rather-long-option-name=q"), 0);
    assert_string_equal(s.log, "1=2m 3=- 1=3 4=q");
    assert_int_equal(parse(&gnu, &s, &first, 2, "--bogus"), EXIT_USAGE);
    assert_int_equal(parse(&gnu, &s, &first, 2, "-x"), EXIT_USAGE);
    assert_int_equal(parse(&gnu, &s, &first, 2, "--interval"), EXIT_USAGE);
    assert_int_equal(parse(&gnu, &s, &first, 3, "-i", "bad"), EXIT_USAGE);   /* the handler's verdict */
    assert_int_equal(parse(&gnu, &s, &first, 2, "--once=1"), EXIT_USAGE);
}

static void test_stop_at_operand(void **state)
{
    (void)state;
    struct cmd_entry e = gnu;
    struct seen s;
    int first;
    e.stop_at_operand = true;
    assert_int_equal(parse(&e, &s, &first, 5, "-v", "python3", "-i", "1"), 0);
    assert_string_equal(s.log, "3=-");
    assert_int_equal(first, 2);
}

static void test_smi(void **state)
{
    (void)state;
    static const struct opt smi_opts[] = {
        {"id", "i", "ID", 1, "GPUs"},
        {"loop-ms", "lms", "MS", 2, "loop"},
        {"query-gpu", NULL, "FIELDS", 3, "fields"},
        {NULL, NULL, NULL, 0, NULL},
    };
    static const struct opt *const smi_tables[] = {smi_opts, NULL};
    struct cmd_entry e = {.name = "query", .usage = "", .about = "x", .style = OPT_SMI, .opts = smi_tables};
    struct seen s;
    int first;
    assert_int_equal(parse(&e, &s, &first, 6, "-lms", "100", "--id=0,1", "--query-gpu", "name"), 0);
    assert_string_equal(s.log, "2=100 1=0,1 3=name");
    assert_int_equal(parse(&e, &s, &first, 3, "-i=3", "--loop-ms=5"), 0);
    assert_string_equal(s.log, "1=3 2=5");
    assert_int_equal(parse(&e, &s, &first, 2, "-q"), 0);   /* the handler words the refusal */
    assert_string_equal(s.log, "-2=-q");
    assert_int_equal(parse(&e, &s, &first, 2, "--query-gpu"), 0);
    assert_string_equal(s.log, "-3=--query-gpu");
}

/* Help lists every option of the tables, each help line in its column. */
static void test_help(void **state)
{
    (void)state;
    char path[] = "/tmp/gpumon-opt-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    opt_print_help(&gnu);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    char text[4096] = "";
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    close(fd);
    unlink(path);
    assert_true(n > 0);
    text[n] = '\0';
    assert_non_null(strstr(text, "Usage: gpumon test [OPTIONS] ARGS\nA test command.\n"));
    assert_non_null(strstr(text, "  -i, --interval DUR   time between samples\n"));
    assert_non_null(strstr(text, "      --once           one sample and a second line\n"));   /* reflowed */
    for (char *line = text, *end; *line; line = end + 1) {   /* 80 columns, however long the texts */
        end = strchr(line, '\n');
        assert_non_null(end);
        assert_in_range(end - line, 0, 80);
    }
    assert_non_null(strstr(text, "  -v, --verbose        more words\n"));
    assert_non_null(strstr(text, "      --a-rather-long-option-name VALUE\n                       help on the next"));
    assert_non_null(strstr(text, "  -h, --help           this help\n"));
    assert_non_null(strstr(text, "\nNotes here. A paragraph much longer than a line, with a line break that is soft\n"
                                 "in the middle of it, so that"));   /* reflowed, wrapped at 80 */
}

/* Every command's tables: names and short forms unique, help present. */
static void test_command_tables(void **state)
{
    (void)state;
    const struct cmd_entry *const cmds[] = {&cmd_watch_entry, &cmd_query_entry, &cmd_run_entry,
                                            &cmd_diagnose_entry, &cmd_report_entry};
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        const struct opt *all[64];
        size_t n = 0;
        for (const struct opt *const *t = cmds[c]->opts; *t; t++)
            for (const struct opt *o = *t; o->name; o++)
                all[n++] = o;
        for (size_t i = 0; i < n; i++) {
            assert_true(strlen(all[i]->help) > 5);
            assert_string_not_equal(all[i]->name, "help");
            assert_true(!all[i]->alias || strcmp(all[i]->alias, "h"));
            for (size_t j = i + 1; j < n; j++) {
                assert_string_not_equal(all[i]->name, all[j]->name);
                assert_true(!all[i]->alias || !all[j]->alias || strcmp(all[i]->alias, all[j]->alias));
            }
        }
        assert_non_null(cmds[c]->exec);
        assert_non_null(cmds[c]->about);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gnu),
        cmocka_unit_test(test_stop_at_operand),
        cmocka_unit_test(test_smi),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_command_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
