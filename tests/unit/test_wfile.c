/*
 * test_wfile.c: whole-file writes (src/wfile.c) when close() fails. Linked
 * with -Wl,--wrap=close, so every close() of gpumon's code comes here: the
 * wrapper can make the next one fail as Linux does (the descriptor is
 * released, then -1 with EIO is returned) and it counts every later close
 * of that same number. A second close of a released descriptor could close
 * a file another thread opened meanwhile (the exporter writes its textfile
 * beside its HTTP threads), so each path of wfile_write must close once,
 * report the failure and leave nothing half-written behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "wfile.h"

int __real_close(int fd);
int __wrap_close(int fd);

static bool fail_next;          /* the next close() fails (after releasing its descriptor) */
static int failed_fd = -1;      /* the descriptor whose close failed */
static int closed_again;        /* closes of failed_fd after that */

int __wrap_close(int fd)
{
    if (fd == failed_fd) {
        closed_again++;
        errno = EBADF;
        return -1;
    }
    if (fail_next) {
        fail_next = false;
        failed_fd = fd;
        __real_close(fd);
        errno = EIO;
        return -1;
    }
    return __real_close(fd);
}

static char dir[PATH_MAX];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/gpumon-wfile-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    fail_next = false, failed_fd = -1, closed_again = 0;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlink(p);
    }
    if (d)
        closedir(d);
    return rmdir(dir);
}

static unsigned entries(void)
{
    unsigned n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

/* Writes through a path whose close fails; checks the message and the single close. */
static void write_failing(const char *path)
{
    char err[512] = "";
    fail_next = true;
    assert_int_equal(wfile_write(path, "new\n", 4, err, sizeof err), -1);
    assert_false(fail_next);                        /* the close was reached */
    assert_int_equal(closed_again, 0);              /* and not repeated */
    assert_non_null(strstr(err, "Input/output error"));
}

/* A dangling symbolic link is written through (its target created): one close. */
static void test_dangling_link_close_fails(void **state)
{
    (void)state;
    char link[PATH_MAX + 16], target[PATH_MAX + 16];
    snprintf(link, sizeof link, "%s/link", dir);
    snprintf(target, sizeof target, "%s/target", dir);
    assert_int_equal(symlink(target, link), 0);
    write_failing(link);
}

/* A regular file is replaced through a temporary one: one close, the old content kept, no temporary left. */
static void test_replace_close_fails(void **state)
{
    (void)state;
    char path[PATH_MAX + 16], got[16] = "";
    snprintf(path, sizeof path, "%s/report.html", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old\n", f);
    fclose(f);
    write_failing(path);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, "old\n");
    assert_int_equal(entries(), 1);
}

/* A device is written through: one close. */
static void test_device_close_fails(void **state)
{
    (void)state;
    write_failing("/dev/null");
}

/* Without a failure every path works, and the wrapper sees nothing twice. */
static void test_no_failure(void **state)
{
    (void)state;
    char path[PATH_MAX + 16], err[512] = "";
    snprintf(path, sizeof path, "%s/ok.txt", dir);
    assert_int_equal(wfile_write(path, "ok\n", 3, err, sizeof err), 0);
    assert_int_equal(wfile_write(path, "ok\n", 3, err, sizeof err), 0);
    assert_int_equal(entries(), 1);
    assert_int_equal(closed_again, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dangling_link_close_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replace_close_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_close_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_failure, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
