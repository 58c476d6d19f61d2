/*
 * host_attrib.c: who a process belongs to (host.h): its user, and the
 * container and Kubernetes pod it runs in, read from /proc/PID/status and
 * /proc/PID/cgroup, so no container runtime or kubelet socket is needed.
 *
 * The cgroup path names the container in each runtime's own way; every
 * path component is looked at, the pod from a "pod<uid>" component
 * (cgroupfs: "pod1b2c-...", systemd: "kubepods-burstable-pod1b2c_....slice",
 * underscores standing for dashes), the container from a 64-hex-digit id,
 * bare or in a systemd scope named after the runtime ("docker-<id>.scope",
 * "cri-containerd-<id>.scope", "crio-<id>.scope", "libpod-<id>.scope"), or
 * in systemd's "<slice>:<prefix>:<id>" form. gpumon top's process table
 * reads containers through this too (one reading of cgroup paths).
 * The last id of the path wins (a container's own cgroup is below its
 * pod's). cgroup v1 files have one line per hierarchy: the first line that
 * names a container decides. What cannot be told stays empty: a process on
 * the host has no container, one in another PID namespace is not visible
 * at all (run gpumon with the host's PIDs).
 */
#include <ctype.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include "host.h"

static bool attrib_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return false;
    return true;
}

/* A pod UID in a component: "pod<uid>" (cgroupfs) or "...-pod<uid>.slice" (systemd). */
static bool attrib_pod(const char *c, size_t n, char *pod, size_t len)
{
    const char *p = NULL;
    for (size_t i = 0; i + 3 <= n; i++)
        if (!memcmp(c + i, "pod", 3) && (i == 0 || c[i - 1] == '-'))
            p = c + i + 3;
    if (!p)
        return false;
    size_t k = (size_t)(c + n - p);
    if (k > 6 && !memcmp(p + k - 6, ".slice", 6))
        k -= 6;
    if (k != 36)
        return false;
    char uid[37];
    for (size_t i = 0; i < 36; i++) {
        char ch = p[i] == '_' ? '-' : p[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? ch != '-' : !attrib_hex(&ch, 1))
            return false;
        uid[i] = ch;
    }
    uid[36] = '\0';
    snprintf(pod, len, "%s", uid);
    return true;
}

/* A container id in a component: bare, or a runtime's systemd scope. */
static bool attrib_container(const char *c, size_t n, const char *parent, size_t pn, struct host_attrib *a)
{
    static const struct { const char *prefix, *runtime; } scopes[] = {
        {"docker-", "docker"}, {"cri-containerd-", "containerd"}, {"crio-", "cri-o"}, {"libpod-", "podman"},
        {"containerd-", "containerd"},
    };
    const char *runtime = NULL;
    if (n > 6 && !memcmp(c + n - 6, ".scope", 6)) {
        for (size_t i = 0; i < sizeof scopes / sizeof scopes[0] && !runtime; i++) {
            size_t pl = strlen(scopes[i].prefix);
            if (n - 6 > pl && !memcmp(c, scopes[i].prefix, pl)) {
                runtime = scopes[i].runtime;
                c += pl, n -= pl;
            }
        }
        if (!runtime)
            return false;   /* crio-conmon-<id>.scope and other scopes are not the container */
        n -= 6;
    } else if (pn == 6 && !memcmp(parent, "docker", 6)) {
        runtime = "docker";
    } else {
        runtime = pn >= 3 && (!memcmp(parent, "pod", 3) || strstr(parent, "-pod")) ? "" : "containerd";
    }
    if (n != 64 || !attrib_hex(c, 64))
        return false;
    memcpy(a->container_id, c, 64);
    a->container_id[64] = '\0';
    snprintf(a->runtime, sizeof a->runtime, "%s", runtime);
    return true;
}

void host_parse_cgroup(const char *text, struct host_attrib *a)
{
    a->runtime[0] = a->container_id[0] = a->pod[0] = '\0';
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *path = memchr(line, ':', len);
        path = path ? memchr(path + 1, ':', len - (size_t)(path + 1 - line)) : NULL;
        struct host_attrib found;
        memset(&found, 0, sizeof found);
        if (path) {
            path++;
            const char *stop = line + len, *parent = "", *c = path;
            size_t pn = 0;
            while (c < stop) {   /* components end at '/', or ':' (systemd's "slice:prefix:name" form) */
                while (c < stop && (*c == '/' || *c == ':'))
                    c++;
                size_t n = strcspn(c, "/:\n");
                if (n > (size_t)(stop - c))
                    n = (size_t)(stop - c);
                if (n) {
                    attrib_pod(c, n, found.pod, sizeof found.pod);
                    attrib_container(c, n, parent, pn, &found);
                    parent = c, pn = n;
                }
                c += n;
            }
        }
        if (found.container_id[0] || found.pod[0]) {   /* the user is not the cgroup's to set */
            memcpy(a->runtime, found.runtime, sizeof a->runtime);
            memcpy(a->container_id, found.container_id, sizeof a->container_id);
            memcpy(a->pod, found.pod, sizeof a->pod);
            if (found.container_id[0])
                return;   /* the first hierarchy that names the container decides */
        }
        line = end ? end + 1 : NULL;
    }
}

/* The real uid from a /proc/PID/status text; -1 when absent. */
long host_parse_status_uid(const char *text)
{
    const char *u = strstr(text, "\nUid:");
    unsigned long uid;
    if (!u && !strncmp(text, "Uid:", 4))
        u = text - 1;
    return u && sscanf(u + 5, "%lu", &uid) == 1 ? (long)uid : -1;
}

static bool attrib_read(const char *proc, int pid, const char *what, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%d/%s", proc, pid, what);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n > 0;
}

/* What a notebook's kernel runs as. */
static const char *const host_notebook_kernels[] = {"ipykernel", "colab_kernel_launcher", "spyder_kernels"};

bool host_is_notebook_command(const char *cmd)
{
    for (size_t i = 0; i < sizeof host_notebook_kernels / sizeof *host_notebook_kernels; i++)
        if (strstr(cmd, host_notebook_kernels[i]))
            return true;
    return false;
}

/* What an inference server runs as: its executable, or the module or subcommand that starts it. */
static const char *const host_servers[] = {
    "tritonserver", "vllm.entrypoints", "vllm serve", "text-generation-launcher", "text-generation-server",
    "text_generation_server", "torchserve", "org.pytorch.serve", "tensorflow_model_server", "sglang.launch_server",
    "lmdeploy serve", "trtllm-serve", "ray::ServeReplica", "llama-server", "ollama serve", "ollama_llama_server"};

bool host_is_server_command(const char *cmd)
{
    for (size_t i = 0; i < sizeof host_servers / sizeof *host_servers; i++)
        if (strstr(cmd, host_servers[i]))
            return true;
    return false;
}

bool host_attrib_read(const char *proc, int pid, struct host_attrib *a)
{
    char buf[8192];
    memset(a, 0, sizeof *a);
    if (!attrib_read(proc ? proc : "/proc", pid, "status", buf, sizeof buf))
        return false;   /* gone, or in a PID namespace gpumon cannot see */
    long uid = host_parse_status_uid(buf);
    if (uid >= 0) {
        struct passwd pw, *res = NULL;
        char pwbuf[1024];
        if (getpwuid_r((uid_t)uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
            snprintf(a->user, sizeof a->user, "%s", res->pw_name);
        else
            snprintf(a->user, sizeof a->user, "%ld", uid);   /* a container's user the host does not know */
    }
    if (attrib_read(proc ? proc : "/proc", pid, "cgroup", buf, sizeof buf))
        host_parse_cgroup(buf, a);
    char path[256];   /* the command line: its arguments NUL-separated (NVML names only the executable) */
    snprintf(path, sizeof path, "%s/%d/cmdline", proc ? proc : "/proc", pid);
    FILE *f = fopen(path, "re");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            buf[i] = buf[i] ? buf[i] : ' ';
        buf[n] = '\0';
        a->notebook = host_is_notebook_command(buf);
        a->server = host_is_server_command(buf);
    }
    return true;
}
