/*
 * test_top_proc.c: what `gpumon top` reads from /proc (src/top/top_proc.c):
 * container ids and pod UIDs from cgroup paths of docker, containerd,
 * CRI-O and podman, cgroup v1 and v2, cgroupfs and systemd drivers; and a
 * fake /proc tree read through the memo: the command line (NULs, control
 * bytes, an empty one), the owner, the CPU share between two reads, a pid
 * reused by a new process, and a process that ended. Built and run by
 * tests/cli/test_top.sh (the module's files are not in gpumoncore).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "top_proc.h"

#define ID64 "3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081"

static void check(const char *cgroup, const char *runtime, const char *id, const char *pod, const char *shown)
{
    struct top_container ct;
    char s[64];
    bool found = top_proc_container(cgroup, &ct);
    assert_int_equal(found, id[0] || pod[0]);
    assert_string_equal(ct.runtime, runtime);
    assert_string_equal(ct.id, id);
    assert_string_equal(ct.pod, pod);
    top_proc_container_short(&ct, s, sizeof s);
    assert_string_equal(s, shown);
}

static void test_containers(void **state)
{
    (void)state;
    /* docker, cgroup v1 and v2 (cgroupfs), v2 with the systemd driver */
    check("12:memory:/docker/" ID64 "\n11:cpu:/docker/" ID64 "\n", "docker", ID64, "", "3f4e5a6b7c8d");
    check("0::/docker/" ID64 "\n", "docker", ID64, "", "3f4e5a6b7c8d");
    check("0::/system.slice/docker-" ID64 ".scope\n", "docker", ID64, "", "3f4e5a6b7c8d");
    /* podman, CRI-O, containerd outside Kubernetes */
    check("0::/machine.slice/libpod-" ID64 ".scope/container\n", "podman", ID64, "", "3f4e5a6b7c8d");
    check("0::/system.slice/crio-" ID64 ".scope\n", "cri-o", ID64, "", "3f4e5a6b7c8d");
    check("0::/default/" ID64 "\n", "containerd", ID64, "", "3f4e5a6b7c8d");   /* containerd's namespace */
    /* Kubernetes: cgroupfs driver (v1), systemd driver (v2) with containerd and CRI-O, the colon form */
    check("4:memory:/kubepods/burstable/pod1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d/" ID64 "\n", "",
          ID64, "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "pod 1a2b3c4d");
    check("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b3c4d_5e6f_4a7b_8c9d_0e1f2a3b4c5d"
          ".slice/cri-containerd-" ID64 ".scope\n", "containerd", ID64, "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
          "pod 1a2b3c4d");
    check("0::/kubepods.slice/kubepods-pod1a2b3c4d_5e6f_4a7b_8c9d_0e1f2a3b4c5d.slice/crio-" ID64 ".scope\n",
          "cri-o", ID64, "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "pod 1a2b3c4d");
    check("0::/kubepods-besteffort-pod1a2b3c4d_5e6f_4a7b_8c9d_0e1f2a3b4c5d.slice:cri-containerd:" ID64 "\n",
          "containerd", ID64, "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "pod 1a2b3c4d");
    /* a pod's sandbox cgroup without a container id yet */
    check("0::/kubepods.slice/kubepods-pod1a2b3c4d_5e6f_4a7b_8c9d_0e1f2a3b4c5d.slice\n", "", "",
          "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "pod 1a2b3c4d");
    /* no container: the host, a user session, a 63- or 65-digit run, an empty file */
    check("0::/user.slice/user-1000.slice/session-3.scope\n", "", "", "", "");
    check("0::/\n", "", "", "", "");
    check("0::/docker/" ID64 "0\n", "", "", "", "");
    check("1:name=systemd:/\n2:cpu:/docker/" ID64 "\n", "docker", ID64, "", "3f4e5a6b7c8d");
    check("", "", "", "", "");
}

static char root[64];

static void put(int pid, const char *name, const char *text, size_t len)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%d", root, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%d/%s", root, pid, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite(text, 1, len, f);
    fclose(f);
}

/* /proc/PID/stat with ppid, utime+stime ticks, start time and rss pages. */
static void put_stat(int pid, const char *comm, int ppid, unsigned long long ticks, unsigned long long start,
                     long long rss)
{
    char text[512];
    int n = snprintf(text, sizeof text, "%d (%s) S %d 1 1 0 -1 4194304 100 0 0 0 %llu 0 0 0 20 0 1 0 %llu "
                     "12345678 %lld 18446744073709551615\n", pid, comm, ppid, ticks, start, rss);
    put(pid, "stat", text, (size_t)n);
}

static void test_read(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/gpumon-top-proc.%d", (int)getpid());
    mkdir(root, 0755);
    long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE) / 1024;
    put_stat(100, "py thon) x", 1, 0, 5000, 256);
    static const char status[] = "Name:\tpython\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n";
    static const char cmdline[] = "python3\0train.py\0--lr\0\x01";   /* NUL-terminated, as the kernel's */
    static const char cgroup[] = "0::/system.slice/docker-" ID64 ".scope\n";
    put(100, "status", status, sizeof status - 1);
    put(100, "cmdline", cmdline, sizeof cmdline);
    put(100, "cgroup", cgroup, sizeof cgroup - 1);
    struct top_proc_cache *c = top_proc_new(root);
    struct top_proc_info p;
    assert_int_equal(top_proc_read(c, 100, 1000000000ull, &p), 0);
    assert_int_equal(p.pid, 100);
    assert_int_equal(p.ppid, 1);
    assert_int_equal(p.uid, 0);
    assert_string_equal(p.user, "root");
    assert_string_equal(p.cmd, "python3 train.py --lr ?");
    assert_string_equal(p.ct.id, ID64);
    assert_int_equal(p.rss_kib, 256 * page);
    assert_true(isnan(p.cpu));   /* no earlier read */
    /* half a second later, hz/4 more ticks: 50% of a CPU; the command line is not read again */
    put_stat(100, "py thon) x", 1, (unsigned long long)hz / 4, 5000, 256);
    put(100, "cmdline", "changed", 7);
    assert_int_equal(top_proc_read(c, 100, 1500000000ull, &p), 0);
    assert_true(fabs(p.cpu - 50.0) < 0.01);
    assert_string_equal(p.cmd, "python3 train.py --lr ?");
    assert_int_equal(top_proc_alive(c, 100, 5000), 1);
    assert_int_equal(top_proc_alive(c, 100, 4999), 0);
    /* the pid reused by a new process (another start time): read afresh, no CPU share yet */
    put_stat(100, "worker", 7, 10, 9000, 1);
    put(100, "cmdline", "", 0);
    assert_int_equal(top_proc_read(c, 100, 2000000000ull, &p), 0);
    assert_string_equal(p.cmd, "[worker]");
    assert_true(isnan(p.cpu));
    assert_int_equal(p.start, 9000);
    top_proc_sweep(c);
    /* many processes: the memo grows and keeps them */
    for (int pid = 200; pid < 400; pid++) {
        put_stat(pid, "w", 100, 0, 100, 1);
        put(pid, "status", status, sizeof status - 1);
        assert_int_equal(top_proc_read(c, pid, 3000000000ull, &p), 0);
    }
    top_proc_sweep(c);
    for (int pid = 200; pid < 400; pid++) {
        put_stat(pid, "w", 100, (unsigned long long)hz, 100, 1);
        assert_int_equal(top_proc_read(c, pid, 4000000000ull, &p), 0);
        assert_true(fabs(p.cpu - 100.0) < 0.01);
    }
    /* a process that does not exist */
    assert_int_equal(top_proc_read(c, 999, 4000000000ull, &p), -1);
    assert_int_equal(top_proc_alive(c, 999, 1), 0);
    top_proc_free(c);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_containers),
        cmocka_unit_test(test_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
