/*
 * sim_clock.c: one scenario clock shared by every process of the machine
 * that plays the same scenario, so that gpumon run, nvidia-smi (gpumon by
 * that name), gpumon top and any other NVML client opened side by side see
 * the same GPUs in the same state at the same moment.
 *
 * The clock is a small file in a private directory (GPUMON_SIM_CLOCK_DIR,
 * else $XDG_RUNTIME_DIR/gpumon-sim, else /tmp/gpumon-sim-UID), named by a
 * hash of the scenario's identity (its real path, device, inode, size and
 * modification time; the built-in scenario has one name). It holds the
 * origin (CLOCK_MONOTONIC and CLOCK_REALTIME at scenario time 0) and the
 * speed. Every process that has the library initialized holds a shared
 * flock on it: the clock lives while one does. The first process (no
 * holder: an exclusive flock can be had) writes a fresh origin; later
 * ones read it and adopt its speed unless they set another one
 * (GPUMON_SIM_SPEED), in which case they keep a private clock. A process
 * that pins a moment (GPUMON_SIM_START) always keeps a private clock, as
 * does one whose directory cannot be used (not ours, writable by others):
 * the simulator then behaves as before, a clock from its own init. Joining
 * and leaving happen under an exclusive flock of the directory's `lock`
 * file, so that a newcomer never reads a half-written origin and the last
 * holder may remove the clock file. A process killed outright releases its
 * lease with its descriptors; the next newcomer then finds no holder.
 */
#include "sim_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SIM_CLOCK_MAGIC "gpumon-sim-clock 1"

static int sim_clock_fd = -1;          /* the lease: the clock file, flock'ed shared; -1 private */
static char sim_clock_path[PATH_MAX];  /* its name, to remove it as the last holder */
static char sim_clock_lock[PATH_MAX];  /* the directory's guard */

/* Creates dir and its missing parents (the last ones mode 0700); 0 when it is then a directory. */
static int clock_mkdirs(const char *dir)
{
    char p[PATH_MAX];
    size_t n = strlen(dir);

    if (n == 0 || n >= sizeof p)
        return -1;
    memcpy(p, dir, n + 1);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0700) != 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* The clock directory, made and checked (a directory of ours that nobody else may write); -1: none. */
static int clock_dir(char *out, size_t len)
{
    const char *env = getenv("GPUMON_SIM_CLOCK_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    int n;

    if (env && !strcmp(env, "off"))
        return -1;
    if (env && *env)
        n = snprintf(out, len, "%s", env);
    else if (xdg && *xdg == '/' && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
        n = snprintf(out, len, "%s/gpumon-sim", xdg);
    else
        n = snprintf(out, len, "/tmp/gpumon-sim-%lu", (unsigned long)geteuid());
    if (n < 0 || (size_t)n >= len || clock_mkdirs(out) != 0)
        return -1;
    if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
        return -1;
    return 0;
}

static uint64_t clock_fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;

    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The scenario's identity as a hash: its real path and what changes when the file does. */
static uint64_t clock_key(const char *scenario)
{
    uint64_t h = clock_fnv(0xcbf29ce484222325ull, "v1", 3);
    char real[PATH_MAX];
    struct stat st;

    if (!scenario || !*scenario)
        return clock_fnv(h, "(built-in)", 11);
    if (!realpath(scenario, real) || stat(real, &st) != 0)
        return clock_fnv(h, scenario, strlen(scenario) + 1);
    long long id[6] = {(long long)st.st_dev, (long long)st.st_ino, (long long)st.st_size,
                       (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec, 0};
    h = clock_fnv(h, real, strlen(real) + 1);
    return clock_fnv(h, id, sizeof id);
}

static int clock_flock(int fd, int op)
{
    int rc;

    while ((rc = flock(fd, op)) != 0 && errno == EINTR)
        ;
    return rc;
}

/* Writes the clock (with the guard held, the file flock'ed exclusively by us). */
static int clock_write(int fd, const struct sim_clock_origin *c)
{
    char buf[160];
    int n = snprintf(buf, sizeof buf, "%s %lld %lld %.17g\n", SIM_CLOCK_MAGIC, c->origin_mono_us,
                     c->origin_epoch_us, c->speed);

    if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n)
        return -1;
    return 0;
}

/* Reads the clock (with the guard held); -1 if the file is not one. */
static int clock_read(int fd, struct sim_clock_origin *c)
{
    char buf[160], tail;
    size_t m = sizeof SIM_CLOCK_MAGIC;   /* the magic and its space */
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    double speed;
    long long mono, epoch;

    if (n <= (ssize_t)m)
        return -1;
    buf[n] = '\0';
    if (strncmp(buf, SIM_CLOCK_MAGIC " ", m) != 0 ||
        sscanf(buf + m, "%lld %lld %lf%c", &mono, &epoch, &speed, &tail) != 4 || tail != '\n' ||
        !(speed >= 0 && speed <= 1000))
        return -1;
    c->origin_mono_us = mono;
    c->origin_epoch_us = epoch;
    c->speed = speed;
    return 0;
}

static long long clock_now_us(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* A private clock: from now, at the speed asked for (or 1). */
static int clock_private(struct sim_clock_origin *c, double speed)
{
    c->origin_mono_us = clock_now_us(CLOCK_MONOTONIC);
    c->origin_epoch_us = clock_now_us(CLOCK_REALTIME);
    c->speed = speed;
    return 0;
}

int sim_clock_join(const char *scenario, double speed, int speed_set, struct sim_clock_origin *c)
{
    char dir[PATH_MAX - 32];
    int guard, fd, first;

    sim_clock_leave();
    if (clock_dir(dir, sizeof dir) != 0)
        return clock_private(c, speed);
    snprintf(sim_clock_lock, sizeof sim_clock_lock, "%s/lock", dir);
    snprintf(sim_clock_path, sizeof sim_clock_path, "%s/%016llx.clock", dir,
             (unsigned long long)clock_key(scenario));
    guard = open(sim_clock_lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (guard < 0)
        return clock_private(c, speed);
    if (clock_flock(guard, LOCK_EX) != 0) {
        close(guard);
        return clock_private(c, speed);
    }
    fd = open(sim_clock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        goto private;
    first = clock_flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (!first && clock_flock(fd, LOCK_SH) != 0)
        goto private;
    if (!first && clock_read(fd, c) != 0)
        goto private;   /* held, but not a clock this library wrote */
    if (first) {
        clock_private(c, speed);
        if (clock_write(fd, c) != 0 || clock_flock(fd, LOCK_SH) != 0)
            goto private;
    } else if (speed_set && c->speed != speed) {
        goto private;   /* another speed asked for: this process plays on its own */
    }
    sim_clock_fd = fd;
    clock_flock(guard, LOCK_UN);
    close(guard);
    return 1;
private:
    if (fd >= 0)
        close(fd);
    clock_flock(guard, LOCK_UN);
    close(guard);
    return clock_private(c, speed);
}

void sim_clock_leave(void)
{
    int guard;

    if (sim_clock_fd < 0)
        return;
    guard = open(sim_clock_lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (guard >= 0 && clock_flock(guard, LOCK_EX) == 0) {
        if (clock_flock(sim_clock_fd, LOCK_EX | LOCK_NB) == 0)
            unlink(sim_clock_path);   /* the last holder: nobody plays this scenario now */
        clock_flock(guard, LOCK_UN);
    }
    if (guard >= 0)
        close(guard);
    close(sim_clock_fd);
    sim_clock_fd = -1;
}
