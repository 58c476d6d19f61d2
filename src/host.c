/*
 * host.c: host CPU and memory from /proc/stat and /proc/meminfo (the
 * readers that turn them into values are sampler_host.c's). CPU shares are deltas of
 * the aggregate jiffies between two reads: user includes nice, system
 * includes irq and softirq, and steal counts toward the total only.
 * The watched process tree: every /proc/PID/stat is read, the tree is the
 * closure of the parent links from the root, and its CPU is the growth of
 * each member's own plus reaped children's ticks since the previous read
 * (matched by pid and start time, so a reused pid is a new process).
 * The busiest process is judged by demand, not use: the time its main
 * thread ran or waited for a CPU (/proc/PID/schedstat), so a loader that
 * would take a whole core still reads as saturated on a crowded machine;
 * without schedstat, its CPU ticks stand in.
 * Storage reads are the growth of each member's read_bytes (/proc/PID/io:
 * bytes that reached the block layer, page-cache hits excluded), the
 * evidence that the job itself, not a neighbour, waits on storage. A
 * parent that reaps a child gains the child's whole total in its own
 * figure, so what members that vanished had already been counted for is
 * taken off again (a reaped worker's reads count once). A tree
 * none of whose io files can be read (another user's setuid process, a
 * kernel without task I/O accounting) has no such figure.
 */
#include "host.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

/* One whitespace-separated integer field of a /proc text at *p, as sscanf's %lld reads it: leading
 * spaces, an optional sign, digits (false when there are none); *p moves past it. */
UTIL_HOT static bool host_field(const char **p, long long *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    unsigned long long u = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        u = u * 10 + (unsigned long long)(*s - '0');
    *v = neg ? (long long)(0ull - u) : (long long)u;
    *p = s;
    return true;
}

/* A /proc or /sys file kept open between reads (struct host_file): its text from offset 0 into buf (len
 * bytes with the terminating NUL), by one pread, the file opened at the first read and again after a
 * failure or when its path changes (tests redirect them). The host's files are read at every sample: an
 * open, an fstat and a close each time cost more than the read (a sample at 1 Hz starts cold). */
UTIL_HOT static ssize_t host_file_read(struct host_file *f, const char *path, char *buf, size_t len)
{
    if (f->fd >= 0 && f->path != path) {
        close(f->fd);
        f->fd = -1;
    }
    if (f->fd < 0) {
        f->fd = open(path, O_RDONLY | O_CLOEXEC);
        f->path = path;
        if (f->fd < 0)
            return -1;
    }
    ssize_t n = pread(f->fd, buf, len - 1, 0);
    if (n < 0) {
        close(f->fd);
        f->fd = -1;
        return -1;
    }
    buf[n] = '\0';
    return n;
}

static void host_file_close(struct host_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    f->path = NULL;
}

UTIL_HOT int host_parse_stat_line(const char *line, struct host_cpu_times *out)
{
    unsigned long long v[10] = {0};
    const char *p = line;
    int n = 0;
    if (strncmp(p, "cpu", 3) != 0)
        return -1;
    p += 3;
    long long x;
    while (n < 10 && host_field(&p, &x))   /* the first line only: a field stops at its newline */
        v[n++] = (unsigned long long)x;
    if (n < 5)
        return -1;
    /* user nice system idle iowait irq softirq steal guest guest_nice; guest is inside user */
    out->user = v[0] + v[1];
    out->system = v[2] + v[5] + v[6];
    out->iowait = v[4];
    out->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    return 0;
}

UTIL_HOT static int host_read_cpu(struct host_sample *h, struct host_cpu_times *t)
{
    char text[512];
    if (host_file_read(&h->stat_f, h->stat_path, text, sizeof text) < 0)
        return -1;
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    return host_parse_stat_line(text, t);
}

/* The number after "KEY:" where a line of a /proc/meminfo text starts so, or -1. */
UTIL_HOT static long long host_meminfo_field(const char *text, const char *key, size_t klen)
{
    for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        long long v;
        const char *q = p + klen;
        if (!strncmp(p, key, klen) && host_field(&q, &v))
            return v;
    }
    return -1;
}

UTIL_HOT static int host_read_mem(struct host_sample *h)
{
    char text[4096];   /* MemTotal is the first line, MemAvailable the third */
    if (host_file_read(&h->meminfo_f, h->meminfo_path, text, sizeof text) < 0)
        return -1;
    long long total = host_meminfo_field(text, "MemTotal:", 9), avail = host_meminfo_field(text, "MemAvailable:", 13);
    if (total != -1)
        h->mem_total_kib = total;
    if (avail != -1)
        h->mem_available_kib = avail;
    return total != -1 && avail != -1 ? 0 : -1;
}

/* The CPUs online, as sysconf(_SC_NPROCESSORS_ONLN) counts them (glibc reads the same list of ranges,
 * "0-3,8-11", each time it is asked); sysconf's answer where the list cannot be read. */
UTIL_HOT static int host_read_ncpus(struct host_sample *h)
{
    char text[1024];
    ssize_t len = host_file_read(&h->online_f, "/sys/devices/system/cpu/online", text, sizeof text);
    const char *l = text, *end = text + (len > 0 ? len : 0);
    unsigned long total = 0;
    while (len > 0) {
        char *e;
        unsigned long a = strtoul(l, &e, 10), b = a;
        if (e == l) {
            total = 0;
            break;
        }
        if (*e == '-') {
            l = e + 1;
            b = strtoul(l, &e, 10);
            if (e == l) {
                total = 0;
                break;
            }
        }
        total += b - a + 1;
        l = e;
        if (l < end && *l == ',')
            l++;
        if (!(l < end && *l != '\n'))
            break;
    }
    if (total == 0 || total > 1u << 20) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? (int)n : 0;
    }
    return (int)total;
}

int host_parse_pid_stat(const char *text, struct host_pid_stat *out)
{
    const char *close = strrchr(text, ')'), *p = text;
    long long pid;
    if (!host_field(&p, &pid) || !close)
        return -1;
    out->pid = (int)pid;
    /* after "(comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
     * utime stime cutime cstime priority nice threads itrealvalue starttime vsize rss */
    p = close + 1;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    if (!*p)
        return -1;
    p++;   /* the state */
    long long f[21];
    for (int i = 0; i < 21; i++)
        if (!host_field(&p, &f[i]))
            return -1;
    out->ppid = (int)f[0];
    out->utime = (unsigned long long)f[10], out->stime = (unsigned long long)f[11];
    out->cutime = (unsigned long long)f[12], out->cstime = (unsigned long long)f[13];
    out->start = (unsigned long long)f[18];
    out->rss_pages = f[20];
    return 0;
}

long long host_parse_pid_io(const char *text)
{
    const char *at = !strncmp(text, "read_bytes:", 11) ? text : strstr(text, "\nread_bytes:");
    long long v;
    if (at && *at == '\n')
        at++;
    return at && sscanf(at, "read_bytes: %lld", &v) == 1 && v >= 0 ? v : -1;
}

/* Reads the file proc/PID/name (pid < 0: proc/name) into text (len bytes with the terminating NUL):
 * its length, or -1. One open, read and close, no stdio: the tree's files are read at every sample. */
static ssize_t host_read_small(const char *proc, int pid, const char *name, char *text, size_t len)
{
    char path[512];
    if (pid >= 0)
        snprintf(path, sizeof path, "%s/%d/%s", proc, pid, name);
    else
        snprintf(path, sizeof path, "%s/%s", proc, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    text[n] = '\0';
    return n;
}

static long long host_read_pid_io(const char *proc, int pid)
{
    char text[512];
    return host_read_small(proc, pid, "io", text, sizeof text) < 0 ? -1 : host_parse_pid_io(text);
}

static int host_read_pid_stat(const char *proc, int pid, struct host_pid_stat *st)
{
    char text[1024];
    return host_read_small(proc, pid, "stat", text, sizeof text) < 0 ? -1 : host_parse_pid_stat(text, st);
}

/* Every process's stat; returns the count, *out owned by the caller. */
static int host_list_procs(const char *proc, struct host_pid_stat **out)
{
    DIR *d = opendir(proc);
    int n = 0, cap = 256;
    *out = xmalloc(cap * sizeof **out);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        if (n == cap)
            *out = xrealloc(*out, (cap *= 2) * sizeof **out);
        if (host_read_pid_stat(proc, atoi(e->d_name), &(*out)[n]) == 0)
            n++;   /* else the process ended meanwhile */
    }
    closedir(d);
    return n;
}

int host_children(const struct host_sample *h, int parent, int *pids, int max)
{
    struct host_pid_stat *ps;
    int n = host_list_procs(h->proc_path, &ps), k = 0;
    for (int i = 0; i < n; i++)
        if (ps[i].ppid == parent && k < max)
            pids[k++] = ps[i].pid;
    free(ps);
    return k;
}

/* Main-thread run + run-queue wait time in ns, or 0 when unknown. */
static unsigned long long host_sched_ns(const char *proc, int pid)
{
    char text[128];
    const char *p = text;
    long long run, wait;
    if (host_read_small(proc, pid, "schedstat", text, sizeof text) < 0 || !host_field(&p, &run) ||
        !host_field(&p, &wait))
        return 0;
    return (unsigned long long)run + (unsigned long long)wait;
}

static int host_pid_cmp(const void *a, const void *b)
{
    int x = ((const struct host_pid_stat *)a)->pid, y = ((const struct host_pid_stat *)b)->pid;
    return (x > y) - (x < y);
}

/* A framework's own shared libraries, as the path of a mapping ends or holds them (PyTorch's wheels
 * and Debian's python3-torch; TensorFlow 2.x; jaxlib). */
static const struct { const char *lib; enum host_framework fw; } host_framework_libs[] = {
    {"/libtorch_cpu.so", HOST_FW_TORCH},
    {"/libtorch_python.so", HOST_FW_TORCH},
    {"/libtensorflow_framework.so", HOST_FW_TENSORFLOW},
    {"/_pywrap_tensorflow_internal.so", HOST_FW_TENSORFLOW},
    {"/xla_extension.so", HOST_FW_JAX},
    {"/jaxlib/", HOST_FW_JAX},
};

enum host_framework host_parse_maps_framework(const char *line)
{
    const char *path = strchr(line, '/');   /* address, perms, offset, dev, inode, then the path */
    for (size_t i = 0; path && i < sizeof host_framework_libs / sizeof *host_framework_libs; i++)
        if (strstr(path, host_framework_libs[i].lib))
            return host_framework_libs[i].fw;
    return HOST_FW_UNKNOWN;
}

static enum host_framework host_pid_framework(const char *proc, int pid)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%d/maps", proc, pid);
    FILE *f = fopen(path, "r");
    enum host_framework fw = HOST_FW_UNKNOWN;
    if (!f)
        return fw;
    while (fw == HOST_FW_UNKNOWN && fgets(line, sizeof line, f))
        fw = host_parse_maps_framework(line);
    fclose(f);
    return fw;
}

enum host_framework host_job_framework(const struct host_sample *h, int root)
{
    struct host_pid_stat *ps;
    int n = host_list_procs(h->proc_path, &ps), checked = 0;
    enum host_framework fw = HOST_FW_UNKNOWN;
    qsort(ps, n, sizeof *ps, host_pid_cmp);
    for (int i = 0; i < n && fw == HOST_FW_UNKNOWN && checked < 64; i++) {
        const struct host_pid_stat *p = &ps[i];
        for (int depth = 0; p && p->pid != root && depth < 64; depth++) {   /* up the parent links */
            struct host_pid_stat key = {.pid = p->ppid};
            p = p->ppid > 0 ? bsearch(&key, ps, n, sizeof *ps, host_pid_cmp) : NULL;
        }
        if (p && p->pid == root) {
            fw = host_pid_framework(h->proc_path, ps[i].pid);
            checked++;
        }
    }
    free(ps);
    return fw;
}

/* The pid the kernel gave last in gpumon's pid namespace (/proc/sys/kernel/ns_last_pid), or -1. */
static long host_last_pid(const char *proc)
{
    char text[32];
    const char *p = text;
    long long v;
    if (host_read_small(proc, -1, "sys/kernel/ns_last_pid", text, sizeof text) < 0 || !host_field(&p, &v) || v < 0)
        return -1;
    return (long)v;
}

/* Whether pid is a process (a thread group's leader), not another thread of one: /proc/TID opens for
 * every thread, and its stat names the process's parent. */
static bool host_is_process(const char *proc, int pid)
{
    char text[512];
    if (host_read_small(proc, pid, "status", text, sizeof text) < 0)
        return false;
    const char *t = strstr(text, "\nTgid:");
    long long tgid;
    t = t ? t + 6 : NULL;
    return t && host_field(&t, &tgid) && tgid == pid;
}

/* The processes that may be in the tree now, without reading every process of the machine: the tree's
 * members at the previous read and its root, read again, and every process created since, whose pids
 * the kernel handed out after the previous read's last one (pids are given in turn, wrapping at
 * pid_max). Every member now is among them: a process joins the tree only by being created in it
 * (an orphan is adopted by an ancestor, outside the tree). Returns the count, or -1 when this cannot
 * be known (the first read, no ns_last_pid, too many new pids, a tree past HOST_JOB_MAX, a minute since
 * the last full scan): the caller lists every process then. */
static int host_job_candidates(struct host_sample *h, long last, uint64_t now, struct host_pid_stat **out)
{
    long prev = h->job_last_pid;
    if (last < 0 || prev < 0 || h->job_nprev >= HOST_JOB_MAX || now - h->job_scan_ns > HOST_JOB_RESCAN_NS)
        return -1;
    long fresh = last >= prev ? last - prev : -1;   /* wrapped (or the counter was set back): scan */
    if (fresh < 0 || fresh > HOST_JOB_PROBE_MAX)
        return -1;
    int cap = h->job_nprev + 1 + (int)fresh, n = 0;
    struct host_pid_stat *ps = xmalloc((size_t)cap * sizeof *ps);
    for (int j = 0; j < h->job_nprev; j++)
        if (host_read_pid_stat(h->proc_path, h->job_prev[j].pid, &ps[n]) == 0 && ps[n].pid != h->job_pid)
            n++;
    if (host_read_pid_stat(h->proc_path, h->job_pid, &ps[n]) == 0)
        n++;
    int known = n;
    for (long pid = prev + 1; pid <= last; pid++) {   /* new pids; a thread's is skipped below */
        bool dup = false;
        for (int j = 0; j < known && !dup; j++)
            dup = ps[j].pid == pid;
        if (!dup && host_read_pid_stat(h->proc_path, (int)pid, &ps[n]) == 0)
            n++;
    }
    /* a new pid whose parent is among them may be a thread of a member: keep processes only */
    for (int i = known; i < n; i++) {
        bool parent = false;
        for (int j = 0; j < n && !parent; j++)
            parent = ps[j].pid == ps[i].ppid;
        if (parent && !host_is_process(h->proc_path, ps[i].pid))
            ps[i--] = ps[--n];
    }
    *out = ps;
    return n;
}

static void host_read_job(struct host_sample *h)
{
    struct host_pid_stat *ps;
    uint64_t now = util_mono_ns();   /* before the scan, like the previous read's time */
    long last = host_last_pid(h->proc_path);   /* before reading: what is created meanwhile is seen next time */
    int n = host_job_candidates(h, last, now, &ps);
    if (n < 0) {
        n = host_list_procs(h->proc_path, &ps);
        h->job_scan_ns = now;
    }
    h->job_last_pid = last;
    /* Membership by the parent links, memoized: 0 unknown, 1 in the tree, 2 not; gpumon and its
     * threads never count as the job's. */
    int self = (int)getpid();
    qsort(ps, n, sizeof *ps, host_pid_cmp);
    unsigned char *in = xcalloc(n ? n : 1, 1);
    int *chain = xmalloc((n ? n : 1) * sizeof *chain);
    for (int i = 0; i < n; i++) {
        int len = 0, at = i;
        unsigned char verdict = 2;
        while (at >= 0 && !in[at] && len < n) {
            if (ps[at].pid == self)   /* gpumon itself, a child of what it watches under run --attach */
                break;
            if (ps[at].pid == h->job_pid) {
                verdict = 1;
                break;
            }
            chain[len++] = at;
            struct host_pid_stat key = {.pid = ps[at].ppid};
            struct host_pid_stat *p = ps[at].ppid > 0 ? bsearch(&key, ps, n, sizeof *ps, host_pid_cmp) : NULL;
            at = p ? (int)(p - ps) : -1;
        }
        if (at >= 0 && in[at])
            verdict = in[at];
        if (at >= 0 && ps[at].pid == h->job_pid)
            in[at] = 1;
        while (len > 0)
            in[chain[--len]] = verdict;
    }
    free(chain);
    long tck = sysconf(_SC_CLK_TCK);
    double secs = (double)(now - h->job_ns) / 1e9, total = 0, top = 0;
    long long rss = 0, read = 0;
    int procs = 0, io_known = 0;
    unsigned char *seen = xcalloc(h->job_nprev ? (size_t)h->job_nprev : 1, 1);   /* prev entries still here */
    struct host_job_proc *next = xmalloc(HOST_JOB_MAX * sizeof *next);
    for (int i = 0; i < n; i++) {
        if (in[i] != 1 || procs >= HOST_JOB_MAX)
            continue;
        unsigned long long all = ps[i].utime + ps[i].stime + ps[i].cutime + ps[i].cstime;
        unsigned long long sched = host_sched_ns(h->proc_path, ps[i].pid);
        const struct host_job_proc *prev = NULL;
        for (int j = 0; j < h->job_nprev && !prev; j++)
            if (h->job_prev[j].pid == ps[i].pid && h->job_prev[j].start == ps[i].start) {
                prev = &h->job_prev[j];
                seen[j] = 1;
            }
        double d = prev ? (all > prev->ticks ? (double)(all - prev->ticks) : 0) : (double)all;
        long long rb = host_read_pid_io(h->proc_path, ps[i].pid);
        if (rb >= 0) {   /* a process born since the previous read counts from zero */
            io_known++;
            if (!prev)
                read += rb;
            else if (prev->read_bytes >= 0 && rb > prev->read_bytes)
                read += rb - prev->read_bytes;
        }
        double demand = d / (tck > 0 ? (double)tck : 100);   /* seconds */
        if (sched && prev && prev->sched_ns && sched >= prev->sched_ns)
            demand = fmin((double)(sched - prev->sched_ns) / 1e9, secs);   /* one thread: at most one core */
        total += d;
        if (demand > top)
            top = demand;
        rss += ps[i].rss_pages;
        next[procs++] = (struct host_job_proc){ps[i].pid, ps[i].start, all, sched, rb};
    }
    /* The first read only sets the baseline. */
    h->job_ok = h->job_ns != 0 && secs > 0 && tck > 0;
    if (h->job_ok) {
        h->job_cpu = total / (double)tck / secs;
        h->job_cpu_top = top / secs;
    }
    long long gone = 0;   /* already counted for members that ended: a reaping parent shows them again */
    for (int j = 0; j < h->job_nprev; j++)
        if (!seen[j] && h->job_prev[j].read_bytes > 0)
            gone += h->job_prev[j].read_bytes;
    free(seen);
    read = read > gone ? read - gone : 0;
    h->job_io_ok = h->job_ok && (io_known > 0 || procs == 0);
    h->job_read_bps = h->job_io_ok ? (double)read / secs : 0;
    long page = sysconf(_SC_PAGESIZE);
    h->job_rss_kib = rss * (page > 0 ? page : 4096) / 1024;
    h->job_procs = procs;
    h->job_ns = now;
    free(h->job_prev);
    h->job_prev = next;   /* only run follows a tree: watch and serve never hold this array */
    h->job_nprev = procs;
    free(in);
    free(ps);
}

void host_job_watch(struct host_sample *h, int pid)
{
    h->job_pid = pid;
    h->job_ns = 0;
    h->job_nprev = 0;
    h->job_last_pid = -1;
    host_read_job(h);
}

void host_close(struct host_sample *h)
{
    free(h->job_prev);
    h->job_prev = NULL;
    h->job_nprev = 0;
    host_file_close(&h->stat_f);
    host_file_close(&h->meminfo_f);
    host_file_close(&h->online_f);
}

void host_init(struct host_sample *h)
{
    memset(h, 0, sizeof *h);
    h->stat_path = "/proc/stat";
    h->meminfo_path = "/proc/meminfo";
    h->proc_path = "/proc";
    h->stat_f.fd = h->meminfo_f.fd = h->online_f.fd = -1;
    if (host_read_cpu(h, &h->prev) != 0)
        memset(&h->prev, 0, sizeof h->prev);
}

UTIL_HOT void host_read(struct host_sample *h)
{
    struct host_cpu_times now;
    h->ncpus = host_read_ncpus(h);
    /* Shares of fewer than 10 clock ticks per CPU (0.1 s at 100 Hz) are
     * noise: wait for more, keeping the previous figures (none yet: not
     * known, never a made-up 0%). */
    unsigned long long min_dt = 10ull * (unsigned long long)(h->ncpus > 0 ? h->ncpus : 1);
    if (host_read_cpu(h, &now) != 0 || now.total < h->prev.total) {
        h->cpu_ok = false;
    } else if (now.total - h->prev.total >= min_dt) {
        unsigned long long dt = now.total - h->prev.total;
        h->cpu_ok = now.user >= h->prev.user && now.system >= h->prev.system && now.iowait >= h->prev.iowait;
        if (h->cpu_ok) {
            h->user_pct = 100.0 * (double)(now.user - h->prev.user) / (double)dt;
            h->system_pct = 100.0 * (double)(now.system - h->prev.system) / (double)dt;
            h->iowait_pct = 100.0 * (double)(now.iowait - h->prev.iowait) / (double)dt;
        }
        h->prev = now;
    }
    h->mem_ok = host_read_mem(h) == 0;
    if (h->job_pid > 0)
        host_read_job(h);
}
