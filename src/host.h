/*
 * host.h: the host side of a record, read from /proc (and nothing else in
 * gpumon reads /proc for the host). CPU shares are computed between two
 * consecutive host_read() calls; the first call after host_init() covers
 * the time since host_init(). With host_job_watch(), host_read() also sums
 * the CPU time and RSS of one process tree (a command and all its
 * descendants, found through the parent links in /proc/PID/stat: of every
 * process at the first read and once a minute, else of the tree's members
 * and the processes created since the previous read), and
 * the bytes it read from storage (/proc/PID/io read_bytes). host_attrib.c
 * tells whose a process is: its user, container and Kubernetes pod.
 */
#ifndef GPUMON_HOST_H
#define GPUMON_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct host_cpu_times {
    unsigned long long user, system, iowait, total;
};

#define HOST_JOB_MAX 1024   /* processes of the watched tree followed between reads */
#define HOST_JOB_PROBE_MAX 512                  /* new pids read one by one; more: every process is read */
#define HOST_JOB_RESCAN_NS 60000000000ull       /* every process is read at least once a minute */

/* One process of the watched tree at the previous read. */
struct host_job_proc {
    int pid;
    unsigned long long start, ticks;   /* start time and own+children CPU ticks */
    unsigned long long sched_ns;       /* main thread's time running or waiting to run */
    long long read_bytes;              /* bytes read from storage (/proc/PID/io); -1 unreadable */
};

/* A file of /proc kept open between reads (host.c); fd -1: not open. */
struct host_file {
    int fd;
    const char *path;   /* the path it was opened at */
};

struct host_sample {
    bool cpu_ok, mem_ok;
    double user_pct, system_pct, iowait_pct;
    int ncpus;
    long long mem_total_kib, mem_available_kib;
    struct host_cpu_times prev;
    const char *stat_path, *meminfo_path;   /* /proc/stat and /proc/meminfo; tests may redirect */
    /* The watched process tree (host_job_watch); job_pid 0: none. */
    int job_pid;
    bool job_ok;                /* job_* below are valid (from the second read on) */
    double job_cpu;             /* cores the whole tree used */
    double job_cpu_top;         /* CPU demand of the busiest process, cores (see host.c) */
    long long job_rss_kib;
    int job_procs;
    bool job_io_ok;             /* job_read_bps is valid: /proc/PID/io readable for the tree */
    double job_read_bps;        /* bytes per second the tree read from storage */
    const char *proc_path;      /* "/proc"; tests may redirect */
    uint64_t job_ns;            /* monotonic time of the previous tree read */
    uint64_t job_scan_ns;       /* ... and of the latest that read every process (host.c) */
    long job_last_pid;          /* the last pid handed out at the previous read; -1 unknown */
    int job_nprev;
    struct host_job_proc *job_prev;     /* job_nprev entries; owned */
    struct host_file stat_f, meminfo_f, online_f;   /* kept open from the first read to host_close */
};

void host_init(struct host_sample *h);
/* Frees what host_read() kept and closes its files. */
void host_close(struct host_sample *h);
/* Refreshes h from /proc. Values that cannot be read get *_ok = false. */
void host_read(struct host_sample *h);
/* Follows the process tree rooted at pid from now on (its first figures
 * come from the next host_read()). */
void host_job_watch(struct host_sample *h, int pid);
/* The machine-learning framework a process tree runs, told by a shared library one of its processes
 * maps (/proc/PID/maps): what advice names (how to report steps in that framework's own way). */
enum host_framework { HOST_FW_UNKNOWN = 0, HOST_FW_TORCH, HOST_FW_TENSORFLOW, HOST_FW_JAX, HOST_FW_COUNT };
/* The framework of the tree rooted at root, from the maps of up to 64 of its processes; UNKNOWN when none
 * shows (not loaded yet, or maps unreadable). Reads /proc: call it seldom (every few seconds). */
enum host_framework host_job_framework(const struct host_sample *h, int root);
/* The framework one line of a /proc/PID/maps text names, or UNKNOWN. */
enum host_framework host_parse_maps_framework(const char *line);
/* Up to max pids of the processes whose parent is parent; returns how many. */
int host_children(const struct host_sample *h, int parent, int *pids, int max);
/* The fields of /proc/PID/stat that the tree needs. */
struct host_pid_stat {
    int pid, ppid;
    unsigned long long utime, stime, cutime, cstime, start;
    long long rss_pages;
};
/* Parses one /proc/PID/stat text (the command name may hold spaces and
 * parentheses). Returns 0 or -1. */
int host_parse_pid_stat(const char *text, struct host_pid_stat *out);
/* Who a process belongs to (host_attrib.c). */
struct host_attrib {
    char runtime[16];          /* docker, containerd, cri-o, podman; "" unknown or on the host */
    char container_id[65];     /* 64 hex digits; "" none */
    char pod[37];              /* Kubernetes pod UID; "" none */
    char user[33];             /* the owner's name, or its uid when the host has no such user */
    bool notebook;             /* its command line runs a notebook's kernel (host_is_notebook_command) */
    bool server;               /* ... an inference server (host_is_server_command) */
};
/* Reads the owner and the cgroup of pid under proc (NULL: /proc); false when the process cannot be seen. */
bool host_attrib_read(const char *proc, int pid, struct host_attrib *a);
/* Whether a command line (or a process name) runs a notebook's kernel: Jupyter, JupyterLab and VS Code
 * (ipykernel_launcher), Colab (colab_kernel_launcher), Spyder (spyder_kernels). */
bool host_is_notebook_command(const char *cmd);
/* Whether it runs an inference server, which idles between requests holding its model: Triton, vLLM, Text
 * Generation Inference, TorchServe, TensorFlow Serving, SGLang, LMDeploy, TensorRT-LLM's server, Ray Serve,
 * llama.cpp's server, Ollama. */
bool host_is_server_command(const char *cmd);
/* The container and pod a /proc/PID/cgroup text names (v1 or v2), or empty fields. */
void host_parse_cgroup(const char *text, struct host_attrib *a);
/* The real uid of a /proc/PID/status text, or -1. */
long host_parse_status_uid(const char *text);
/* The job ids of one GPU from an HPC job mapping directory (dcgm-exporter's format, host_jobs.c): the
 * file DIR/NAME (NAME: the GPU index), one id per line, blank lines skipped, at most max kept. Returns
 * how many; a missing or empty file is none; bad content (an id with spaces or control characters, or
 * over 63 bytes, a file that is not a regular file) is said in warn (else warn[0] is 0). */
unsigned host_jobs_read(const char *dir, const char *name, char (*jobs)[64], unsigned max, char *warn,
                        size_t wlen);
/* Parses the aggregate "cpu" line of /proc/stat. Returns 0 or -1. */
int host_parse_stat_line(const char *line, struct host_cpu_times *out);
/* The read_bytes figure of one /proc/PID/io text, or -1 when absent. */
long long host_parse_pid_io(const char *text);

#endif
