/*
 * top_proc.h: what `gpumon top` learns about a process from /proc, apart
 * from NVML: its owner, parent, container, command line, CPU and resident
 * memory. A memo keyed by pid and start time keeps what does not change
 * (command line, owner, container) and the previous CPU ticks, so each
 * refresh reads one file per process (/proc/PID/stat) and a reused pid is
 * a new process. Container ids come from /proc/PID/cgroup (cgroup v1 and
 * v2; docker, containerd, CRI-O, podman, Kubernetes pods). This is the top
 * module's only reader of /proc; it includes base only.
 */
#ifndef GPUMON_TOP_PROC_H
#define GPUMON_TOP_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* A container a process runs in, from its cgroup path. */
struct top_container {
    char runtime[16];           /* "docker", "containerd", "cri-o", "podman", "" unknown runtime (host_attrib.c) */
    char id[65];                /* the 64-hex container id, "" none */
    char pod[37];               /* Kubernetes pod UID (dashes), "" none */
};

struct top_proc_info {
    int pid, ppid;
    unsigned uid;
    unsigned long long start;   /* start time, clock ticks after boot (identifies the process with pid) */
    double cpu;                 /* % of one CPU since the previous read; NAN on the first */
    long long rss_kib;
    char user[32];              /* login name, or the uid in digits */
    struct top_container ct;
    char cmd[160];              /* command line, spaces for NULs, '?' for control bytes; "[comm]" when empty */
};

struct top_proc_cache;

/* proc: the proc file system's root ("/proc"; tests pass a copy). */
struct top_proc_cache *top_proc_new(const char *proc);
void top_proc_free(struct top_proc_cache *c);
/* Reads pid at monotonic time now_ns. Returns 0, or -1 when no such
 * process exists (ended, or never on this host: another PID namespace). */
int top_proc_read(struct top_proc_cache *c, int pid, uint64_t now_ns, struct top_proc_info *out);
/* Forgets processes not read since the previous call (call once per refresh). */
void top_proc_sweep(struct top_proc_cache *c);
/* Whether pid is still the process that started at start: 1 yes, 0 it
 * ended (or its pid now belongs to another process). */
int top_proc_alive(const struct top_proc_cache *c, int pid, unsigned long long start);
/* Finds a container in the text of /proc/PID/cgroup. Returns true when
 * the path names a container id or a pod; out is cleared otherwise. */
bool top_proc_container(const char *cgroup, struct top_container *out);
/* The container as a column shows it: "pod 1a2b3c4d", "3f4e5a6b7c8d" (a
 * short id as docker ps shows it), "" none. */
void top_proc_container_short(const struct top_container *ct, char *out, size_t len);

#endif
