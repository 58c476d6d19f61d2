/*
 * loglock.c: the one-writer lock on log files (see loglock.h). An OFD lock
 * does not record its owner's pid (F_OFD_GETLK and /proc/locks say -1), so
 * when the lock is refused the holder is found the way lsof finds it: the
 * descriptors in /proc/PID/fd that are this file, and among them the one
 * whose /proc/PID/fdinfo lists a lock on it. That walk happens only on a
 * refusal, never on the way to writing.
 */
#include "loglock.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "util.h"

/* "PID (command line)" of a process, the command cut to fit a message. */
static void loglock_describe(long pid, char *out, size_t len)
{
    char path[64], cmd[160] = "";
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "re");
    size_t n = 0;
    if (f) {
        n = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
    }
    while (n > 0 && cmd[n - 1] == '\0')
        n--;
    for (size_t i = 0; i < n; i++)
        if (cmd[i] == '\0' || !isprint((unsigned char)cmd[i]))
            cmd[i] = ' ';
    cmd[n] = '\0';
    if (n == sizeof cmd - 2)
        snprintf(cmd + n - 3, 4, "...");
    if (cmd[0])
        snprintf(out, len, "pid %ld: %s", pid, cmd);
    else
        snprintf(out, len, "pid %ld", pid);
}

/* Whether /proc/PID/fdinfo/FD lists a lock on the file dev:ino (as the
 * kernel spells it in /proc/locks: hex major:minor, decimal inode). */
static bool loglock_fd_locks(const char *pid, const char *fd, const char *devino)
{
    char path[600], line[256];
    snprintf(path, sizeof path, "/proc/%s/fdinfo/%s", pid, fd);
    FILE *f = fopen(path, "re");
    bool found = false;
    if (!f)
        return false;
    while (!found && fgets(line, sizeof line, f))
        found = !strncmp(line, "lock:", 5) && strstr(line, devino);
    fclose(f);
    return found;
}

/* The process (other than through self_fd) holding a lock on st's file;
 * 0 when none is visible from here. */
static long loglock_find_holder(const struct stat *st, int self_fd)
{
    char devino[80];
    snprintf(devino, sizeof devino, " %02x:%02x:%llu ", major(st->st_dev), minor(st->st_dev),
             (unsigned long long)st->st_ino);
    DIR *proc = opendir("/proc");
    long holder = 0, self = (long)getpid();
    struct dirent *p;
    while (proc && !holder && (p = readdir(proc))) {
        char *end;
        long pid = strtol(p->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
        DIR *fds = opendir(dir);
        struct dirent *e;
        while (fds && !holder && (e = readdir(fds))) {
            char path[400];
            struct stat fst;
            if (e->d_name[0] == '.' || (pid == self && atoi(e->d_name) == self_fd))
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (stat(path, &fst) == 0 && fst.st_dev == st->st_dev && fst.st_ino == st->st_ino &&
                loglock_fd_locks(p->d_name, e->d_name, devino))
                holder = pid;
        }
        if (fds)
            closedir(fds);
    }
    if (proc)
        closedir(proc);
    return holder;
}

int loglock_take(int fd, const char *name, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int cmd = F_OFD_SETLK;
    int rc = fcntl(fd, cmd, &fl);
    if (rc != 0 && errno == EINVAL) {   /* a kernel before 3.15: a POSIX lock, which at least names its owner */
        cmd = F_SETLK;
        rc = fcntl(fd, cmd, &fl);
    }
    if (rc == 0)
        return 0;
    if (errno != EAGAIN && errno != EACCES) {
        util_warn("cannot lock %s for writing (%s%s): a second writer of it would not be refused", name,
                  strerror(errno), errno == ENOLCK ? ": a network file system mounted without locking?" : "");
        return 0;
    }
    long holder = 0;
    struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, cmd == F_SETLK ? F_GETLK : F_OFD_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid > 0)
        holder = who.l_pid;
    if (holder <= 0)
        holder = loglock_find_holder(&st, fd);
    char desc[200];
    if (holder > 0)
        loglock_describe(holder, desc, sizeof desc);
    snprintf(err, errlen, "%s is being written by another process (%s); two writers would interleave their records "
             "(and make a compressed log unreadable): stop that one, or write to another file", name,
             holder > 0 ? desc : "not visible from here: another host sharing the file over NFS, another container, "
                                 "or another user's process");
    return -1;
}
