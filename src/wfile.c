/*
 * wfile.c: whole files written safely (see wfile.h). Every descriptor is
 * closed exactly once, also when close() fails (it is released anyway on
 * Linux; closing the number again could close another thread's file).
 */
#include "wfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

/* Writes all of data to fd. Returns 0 or -1 with errno set. */
static int wfile_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ENOSPC;
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Creates a temporary file beside base in dir, with a name no other writer
 * (thread or process) uses, mode 0666 less the umask. */
static int wfile_temp(const char *dir, const char *base, char *tmp, size_t tmplen)
{
    static atomic_uint counter;
    for (int tries = 0; tries < 100; tries++) {
        if ((size_t)snprintf(tmp, tmplen, "%s/.%s.%ld.%u.%llx.tmp", dir, base, (long)getpid(),
                             atomic_fetch_add(&counter, 1), (unsigned long long)util_mono_ns()) >= tmplen) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* Replaces the regular file at path (or creates it) through a temporary
 * file in its folder; mode: the replaced file's, or -1 for a new file. */
static int wfile_replace(const char *path, const char *name, const char *data, size_t len, int mode, char *err,
                         size_t errlen)
{
    char copy[PATH_MAX], dircopy[PATH_MAX], tmp[PATH_MAX + 64];
    if (strlen(path) >= sizeof copy) {
        snprintf(err, errlen, "cannot write %s: the path is too long (%zu bytes)", name, strlen(path));
        return -1;
    }
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(dircopy, sizeof dircopy, "%s", path);
    const char *base = basename(copy), *dir = dirname(dircopy);
    int fd = wfile_temp(dir, base, tmp, sizeof tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: cannot create a temporary file beside it: %s", name,
                 strerror(errno));
        return -1;
    }
    int e = 0;
    if (wfile_all(fd, data, len) != 0 || (mode >= 0 && fchmod(fd, (mode_t)mode) != 0))
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        snprintf(err, errlen, "cannot write %s: %s", name, strerror(e));
        return -1;
    }
    return 0;
}

/* Writes into what is at path without replacing it (a device, a FIFO). */
static int wfile_through(const char *path, const char *name, bool fifo, const char *data, size_t len, char *err,
                         size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (fifo ? O_NONBLOCK : 0));
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", name,
                 fifo && errno == ENXIO ? "it is a FIFO that nothing reads" : strerror(errno));
        return -1;
    }
    if (fifo)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);   /* a reader is there: wait for it */
    int e = wfile_all(fd, data, len) != 0 ? errno : 0;
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        snprintf(err, errlen, "cannot write %s: %s", name, strerror(e));
        return -1;
    }
    return 0;
}

/* Writes through a dangling symbolic link, creating its target. The descriptor is closed once, whatever
 * close() answers: Linux releases it even when close fails, and a second close could close a file that
 * another thread (the exporter's) opened meanwhile under the same number. */
static int wfile_link(const char *path, const char *name, const void *data, size_t len, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int e = fd < 0 ? errno : wfile_all(fd, data, len) != 0 ? errno : 0;
    if (fd >= 0 && close(fd) != 0 && !e)
        e = errno;
    if (e) {
        snprintf(err, errlen, "cannot write %s: %s", name, strerror(e));
        return -1;
    }
    return 0;
}

static int wfile_write_named(const char *path, const char *name, const void *data, size_t len, char *err,
                             size_t errlen)
{
    struct stat st;
    if (!*path) {
        snprintf(err, errlen, "cannot write a file with an empty name");
        return -1;
    }
    if (stat(path, &st) != 0) {   /* follows a link: a dangling one is written through (creating its target) */
        if (errno != ENOENT) {
            snprintf(err, errlen, "cannot write %s: %s", name, strerror(errno));
            return -1;
        }
        struct stat lst;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
            return wfile_link(path, name, data, len, err, errlen);
        return wfile_replace(path, name, data, len, -1, err, errlen);
    }
    if (S_ISREG(st.st_mode)) {
        char real[PATH_MAX];
        const char *target = realpath(path, real) ? real : path;   /* a link stays a link */
        return wfile_replace(target, name, data, len, (int)(st.st_mode & 07777), err, errlen);
    }
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode))
        return wfile_through(path, name, S_ISFIFO(st.st_mode), data, len, err, errlen);
    snprintf(err, errlen, "cannot write %s: it is %s, not a file", name,
             S_ISDIR(st.st_mode) ? "a directory" : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file");
    return -1;
}

int wfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    char shorter[UTIL_SHORT + 1];
    return wfile_write_named(path, util_short(path, shorter), data, len, err, errlen);
}

int wfile_check(const char *path, char *err, size_t errlen)
{
    char shorter[UTIL_SHORT + 1], real[PATH_MAX], copy[PATH_MAX], tmp[PATH_MAX + 64];
    const char *name = util_short(path, shorter);
    struct stat st;
    if (!*path) {
        snprintf(err, errlen, "cannot write a file with an empty name");
        return -1;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode))
            return 0;   /* written through when the time comes (a FIFO's reader may come later) */
        snprintf(err, errlen, "cannot write %s: it is %s, not a file", name,
                 S_ISDIR(st.st_mode) ? "a directory" : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file");
        return -1;
    }
    const char *target = realpath(path, real) ? real : path;   /* the file a link names */
    if (strlen(target) >= sizeof copy) {
        snprintf(err, errlen, "cannot write %s: the path is too long (%zu bytes)", name, strlen(path));
        return -1;
    }
    snprintf(copy, sizeof copy, "%s", target);
    char *slash = strrchr(copy, '/');
    const char *dir = slash ? (slash == copy ? "/" : (*slash = '\0', copy)) : ".";
    int fd = wfile_temp(dir, "check", tmp, sizeof tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", name, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(tmp);
    return 0;
}
