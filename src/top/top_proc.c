/*
 * top_proc.c: /proc for `gpumon top`'s process table (top_proc.h). A memo
 * (open addressing on pid, rebuilt by a sweep that forgets one) holds per
 * process what is read once: owner (/proc/PID/status: real, effective and saved uid),
 * command line, container (/proc/PID/cgroup); and what each refresh needs
 * to turn ticks into a CPU share: the previous utime+stime and when they
 * were read. A process is its pid plus start time, so a pid reused by a
 * new process starts a new memo entry. Owner names go through a small
 * uid cache, so the password database is asked once per user.
 */
#include "top_proc.h"

#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "host.h"
#include "util.h"

struct top_proc_memo {
    int pid;                    /* 0: free slot */
    bool seen;                  /* read since the previous sweep */
    unsigned long long start, ticks;
    uint64_t t_ns;
    unsigned uid;
    char user[32];
    struct top_container ct;
    char cmd[160];
};

#define TOP_PROC_USERS 16

struct top_proc_cache {
    char proc[256];
    struct top_proc_memo *m;
    size_t cap, n;              /* cap: a power of two, at most half full */
    long hz, page_kib;
    struct { unsigned uid; char name[32]; } users[TOP_PROC_USERS];
    unsigned nusers;
};

struct top_proc_cache *top_proc_new(const char *proc)
{
    struct top_proc_cache *c = xcalloc(1, sizeof *c);
    snprintf(c->proc, sizeof c->proc, "%s", proc);
    c->cap = 64;
    c->m = xcalloc(c->cap, sizeof *c->m);
    c->hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
    c->page_kib = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) / 1024 : 4;
    return c;
}

void top_proc_free(struct top_proc_cache *c)
{
    if (c)
        free(c->m);
    free(c);
}

/* Reads a small file whole (at most len-1 bytes). Returns the length, or -1. */
static ssize_t top_proc_slurp(const struct top_proc_cache *c, int pid, const char *name, char *buf, size_t len)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%d/%s", c->proc, pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    ssize_t r;
    while (got + 1 < len && (r = read(fd, buf + got, len - 1 - got)) > 0)
        got += (size_t)r;
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

struct top_proc_stat {
    int ppid;
    unsigned long long ticks, start;
    long long rss_pages;
};

static int top_proc_stat(const struct top_proc_cache *c, int pid, struct top_proc_stat *st, char *comm, size_t clen)
{
    char text[1024];
    if (top_proc_slurp(c, pid, "stat", text, sizeof text) <= 0)
        return -1;
    const char *open = strchr(text, '('), *close = strrchr(text, ')');
    if (!open || !close || close < open)
        return -1;
    snprintf(comm, clen, "%.*s", (int)(close - open - 1), open + 1);
    unsigned long long ut, stime;
    /* after "(comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
     * cutime cstime priority nice threads itrealvalue starttime vsize rss */
    int n = sscanf(close + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d "
                   "%llu %*u %lld", &st->ppid, &ut, &stime, &st->start, &st->rss_pages);
    if (n != 5)
        return -1;
    st->ticks = ut + stime;
    return 0;
}

static struct top_proc_memo *top_proc_slot(struct top_proc_cache *c, int pid)
{
    size_t mask = c->cap - 1, i = (size_t)pid * 2654435761u & mask;
    while (c->m[i].pid && c->m[i].pid != pid)
        i = (i + 1) & mask;
    return &c->m[i];
}

static void top_proc_grow(struct top_proc_cache *c)
{
    struct top_proc_memo *old = c->m;
    size_t ocap = c->cap;
    c->cap *= 2;
    c->m = xcalloc(c->cap, sizeof *c->m);
    for (size_t i = 0; i < ocap; i++)
        if (old[i].pid)
            *top_proc_slot(c, old[i].pid) = old[i];
    free(old);
}

static const char *top_proc_user(struct top_proc_cache *c, unsigned uid)
{
    for (unsigned i = 0; i < c->nusers; i++)
        if (c->users[i].uid == uid)
            return c->users[i].name;
    unsigned at = c->nusers < TOP_PROC_USERS ? c->nusers++ : uid % TOP_PROC_USERS;
    struct passwd pw, *res = NULL;
    char buf[2048];
    c->users[at].uid = uid;
    if (getpwuid_r((uid_t)uid, &pw, buf, sizeof buf, &res) == 0 && res)
        snprintf(c->users[at].name, sizeof c->users[at].name, "%s", res->pw_name);
    else
        snprintf(c->users[at].name, sizeof c->users[at].name, "%u", uid);
    return c->users[at].name;
}

/* The command line with NULs as spaces and control bytes as '?'; "[comm]" when empty. */
static void top_proc_cmdline(const struct top_proc_cache *c, int pid, const char *comm, char *out, size_t len)
{
    char text[4096];
    ssize_t n = top_proc_slurp(c, pid, "cmdline", text, sizeof text);
    while (n > 0 && text[n - 1] == '\0')
        n--;
    if (n <= 0) {
        snprintf(out, len, "[%s]", comm);
        return;
    }
    size_t k = 0;
    for (ssize_t i = 0; i < n && k + 1 < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        out[k++] = ch == '\0' ? ' ' : ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    out[k] = '\0';
}

/* The effective uid from /proc/PID/status ("Uid: real effective saved fs"). */
static unsigned top_proc_uid(const struct top_proc_cache *c, int pid)
{
    char text[4096];
    unsigned r, e;
    if (top_proc_slurp(c, pid, "status", text, sizeof text) <= 0)
        return (unsigned)-1;
    const char *at = strstr(text, "\nUid:");
    return at && sscanf(at, "\nUid: %u %u", &r, &e) == 2 ? e : (unsigned)-1;
}

int top_proc_read(struct top_proc_cache *c, int pid, uint64_t now_ns, struct top_proc_info *out)
{
    struct top_proc_stat st;
    char comm[64];
    if (pid <= 0 || top_proc_stat(c, pid, &st, comm, sizeof comm) != 0)
        return -1;
    struct top_proc_memo *m = top_proc_slot(c, pid);
    if (m->pid && m->start != st.start)
        memset(m, 0, sizeof *m);   /* the pid was reused: a new process */
    if (!m->pid) {
        if ((c->n + 1) * 2 > c->cap) {
            top_proc_grow(c);
            m = top_proc_slot(c, pid);
        }
        c->n++;
        m->pid = pid;
        m->start = st.start;
        m->uid = top_proc_uid(c, pid);
        snprintf(m->user, sizeof m->user, "%s", m->uid == (unsigned)-1 ? "?" : top_proc_user(c, m->uid));
        top_proc_cmdline(c, pid, comm, m->cmd, sizeof m->cmd);
        char cg[8192];
        if (top_proc_slurp(c, pid, "cgroup", cg, sizeof cg) <= 0 || !top_proc_container(cg, &m->ct))
            memset(&m->ct, 0, sizeof m->ct);
        m->t_ns = 0;
    }
    out->pid = pid;
    out->ppid = st.ppid;
    out->start = st.start;
    out->uid = m->uid;
    out->rss_kib = st.rss_pages * c->page_kib;
    out->cpu = m->t_ns && now_ns > m->t_ns
                   ? (double)(st.ticks - m->ticks) / (double)c->hz / ((double)(now_ns - m->t_ns) / 1e9) * 100.0
                   : NAN;
    if (!(m->t_ns && now_ns == m->t_ns)) {   /* a second read in one refresh keeps the first's base */
        m->ticks = st.ticks;
        m->t_ns = now_ns;
    }
    m->seen = true;
    memcpy(out->user, m->user, sizeof out->user);
    out->ct = m->ct;
    memcpy(out->cmd, m->cmd, sizeof out->cmd);
    return 0;
}

void top_proc_sweep(struct top_proc_cache *c)
{
    size_t gone = 0;
    for (size_t i = 0; i < c->cap && c->n; i++)
        gone += c->m[i].pid && !c->m[i].seen;
    if (!gone) {   /* nothing to forget: the table stays as it is (no rebuild every refresh) */
        for (size_t i = 0; i < c->cap && c->n; i++)
            c->m[i].seen = false;
        return;
    }
    struct top_proc_memo *old = c->m;
    c->m = xcalloc(c->cap, sizeof *c->m);
    c->n = 0;
    for (size_t i = 0; i < c->cap; i++) {
        if (!old[i].pid || !old[i].seen)
            continue;
        old[i].seen = false;
        *top_proc_slot(c, old[i].pid) = old[i];
        c->n++;
    }
    free(old);
}

int top_proc_alive(const struct top_proc_cache *c, int pid, unsigned long long start)
{
    struct top_proc_stat st;
    char comm[64];
    return top_proc_stat(c, pid, &st, comm, sizeof comm) == 0 && st.start == start;
}

/* ---- containers: host_attrib.c's one reading of cgroup paths ---- */

bool top_proc_container(const char *cgroup, struct top_container *out)
{
    struct host_attrib a;
    memset(&a, 0, sizeof a);
    host_parse_cgroup(cgroup, &a);
    memset(out, 0, sizeof *out);
    memcpy(out->runtime, a.runtime, sizeof out->runtime);
    memcpy(out->id, a.container_id, sizeof out->id);
    memcpy(out->pod, a.pod, sizeof out->pod);
    return out->id[0] || out->pod[0];
}

void top_proc_container_short(const struct top_container *ct, char *out, size_t len)
{
    if (ct->pod[0])
        snprintf(out, len, "pod %.8s", ct->pod);
    else
        snprintf(out, len, "%.12s", ct->id);
}
