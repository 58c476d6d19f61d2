/*
 * test_attrib.c: whose a process is (host_attrib.c): the container and pod
 * of /proc/PID/cgroup texts as each runtime writes them, cgroup v1 and v2
 * (fixtures from docker, containerd and cri-o under Kubernetes with the
 * cgroupfs and systemd drivers, podman, nerdctl), what must not be taken
 * for a container, and the user from a fake /proc; the framework a process
 * tree runs, from its maps; and the accounting of
 * GPU time by job and user (account.c): shares, energy, eviction.
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
#include "account.h"
#include "host.h"

#define ID "3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e"
#define POD "0c5d6c4e-1f2a-4b3c-9d8e-7f6a5b4c3d2e"
#define POD_ "0c5d6c4e_1f2a_4b3c_9d8e_7f6a5b4c3d2e"

static void expect(const char *cgroup, const char *runtime, const char *id, const char *pod)
{
    struct host_attrib a;
    memset(&a, 0x55, sizeof a);   /* every field must be set */
    host_parse_cgroup(cgroup, &a);
    if (strcmp(a.runtime, runtime) || strcmp(a.container_id, id) || strcmp(a.pod, pod))
        fail_msg("%s: got runtime \"%s\" id \"%s\" pod \"%s\", expected \"%s\" \"%s\" \"%s\"", cgroup, a.runtime,
                 a.container_id, a.pod, runtime, id, pod);
}

static void test_runtimes(void **state)
{
    (void)state;
    /* docker: cgroupfs (v1) and systemd (v2) drivers */
    expect("12:memory:/docker/" ID "\n11:cpu,cpuacct:/docker/" ID "\n", "docker", ID, "");
    expect("0::/system.slice/docker-" ID ".scope\n", "docker", ID, "");
    /* Kubernetes, cgroupfs driver, v1: the qos level, the pod, the container */
    expect("10:memory:/kubepods/burstable/pod" POD "/" ID "\n", "", ID, POD);
    expect("10:memory:/kubepods/pod" POD "/" ID "\n", "", ID, POD);   /* guaranteed: no qos level */
    /* Kubernetes, systemd driver, v2: containerd, cri-o, dockershim */
    expect("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_ ".slice/cri-containerd-" ID
           ".scope\n", "containerd", ID, POD);
    expect("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_ ".slice/crio-" ID ".scope",
           "cri-o", ID, POD);
    expect("0::/kubepods.slice/kubepods-pod" POD_ ".slice/docker-" ID ".scope\n", "docker", ID, POD);
    /* systemd's slice:prefix:id form */
    expect("0::/kubepods-besteffort-pod" POD_ ".slice:cri-containerd:" ID "\n", "containerd", ID, POD);
    /* podman, containerd's own namespaces (nerdctl) */
    expect("0::/machine.slice/libpod-" ID ".scope/container\n", "podman", ID, "");
    expect("0::/default/" ID "\n", "containerd", ID, "");
    /* the pod's own cgroup (a pause process): the pod, no container */
    expect("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_ ".slice\n", "", "", POD);
}

static void test_not_containers(void **state)
{
    (void)state;
    expect("0::/user.slice/user-1000.slice/session-3.scope\n", "", "", "");   /* a login session */
    expect("0::/system.slice/containerd.service\n", "", "", "");              /* the runtime itself */
    expect("0::/\n", "", "", "");
    expect("", "", "", "");
    expect("garbage without colons", "", "", "");
    /* cri-o's conmon, an id of the wrong length or case, a pod uid of the wrong shape */
    expect("0::/machine.slice/crio-conmon-" ID ".scope\n", "", "", "");
    expect("0::/docker/" "3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4\n", "", "", "");
    expect("0::/docker/" "3F4E5D6C7B8A9F0E1D2C3B4A5F6E7D8C9B0A1F2E3D4C5B6A7F8E9D0C1B2A3F4E\n", "", "", "");
    expect("0::/kubepods/podnot-a-uid/" ID "\n", "", ID, "");
    /* v1: a hierarchy without the container does not hide one that has it */
    expect("13:rdma:/\n12:memory:/docker/" ID "\n", "docker", ID, "");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpumon-attrib-XXXXXX", p[256];
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/77", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/77/status", dir);
    write_file(p, "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
    snprintf(p, sizeof p, "%s/77/cgroup", dir);
    write_file(p, "0::/system.slice/docker-" ID ".scope\n");
    struct host_attrib a;
    assert_true(host_attrib_read(dir, 77, &a));
    assert_string_equal(a.user, "root");
    assert_string_equal(a.runtime, "docker");
    assert_string_equal(a.container_id, ID);
    /* a uid the host does not know (a container's own user): the number */
    snprintf(p, sizeof p, "%s/77/status", dir);
    write_file(p, "Name:\tpython3\nUid:\t4000123\t4000123\t4000123\t4000123\n");
    assert_true(host_attrib_read(dir, 77, &a));
    assert_string_equal(a.user, "4000123");
    /* no such process: nothing known */
    assert_false(host_attrib_read(dir, 78, &a));
    assert_string_equal(a.user, "");
    assert_int_equal(host_parse_status_uid("Name:\tx\n"), -1);
    assert_int_equal(host_parse_status_uid("Uid:\t1000\t1000\t1000\t1000\n"), 1000);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The framework a job runs, from the maps of its process tree (a fake /proc: sh 100 -> python 101 with
 * PyTorch mapped, -> 102 a DataLoader worker; 200 someone else's TensorFlow; 300 a tree without one). */
static void fake_proc(const char *dir, int pid, int ppid, const char *maps)
{
    char p[256], stat[256];
    snprintf(p, sizeof p, "%s/%d", dir, pid);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/%d/stat", dir, pid);
    snprintf(stat, sizeof stat, "%d (py thon) S %d %d %d 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 %d 1000000 250\n",
             pid, ppid, pid, pid, 1000 + pid);
    write_file(p, stat);
    snprintf(p, sizeof p, "%s/%d/maps", dir, pid);
    write_file(p, maps);
}

static void test_framework(void **state)
{
    (void)state;
    const char *libc = "7f0000000000-7f0000001000 r-xp 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libc.so.6\n";
    assert_int_equal(host_parse_maps_framework(libc), HOST_FW_UNKNOWN);
    assert_int_equal(host_parse_maps_framework("7f00-7f01 r-xp 00000000 08:01 9 /usr/lib/python3/dist-packages/torch/"
                                               "lib/libtorch_cpu.so\n"), HOST_FW_TORCH);
    assert_int_equal(host_parse_maps_framework("7f00-7f01 r--p 00000000 08:01 9 /opt/venv/lib/python3.8/site-packages/"
                                               "tensorflow/libtensorflow_framework.so.2\n"), HOST_FW_TENSORFLOW);
    assert_int_equal(host_parse_maps_framework("7f00-7f01 r-xp 00000000 08:01 9 /opt/venv/lib/python3.11/site-packages/"
                                               "jaxlib/xla_extension.so\n"), HOST_FW_JAX);
    assert_int_equal(host_parse_maps_framework("7f00-7f01 rw-p 00000000 00:00 0 [heap]\n"), HOST_FW_UNKNOWN);
    /* a name elsewhere than the path is no library: an anonymous mapping named like one */
    assert_int_equal(host_parse_maps_framework("7f00-7f01 rw-p 00000000 00:00 0 [anon:libtorch_cpu.so]\n"),
                     HOST_FW_UNKNOWN);
    char dir[] = "/tmp/gpumon-fw-XXXXXX";
    assert_non_null(mkdtemp(dir));
    fake_proc(dir, 100, 1, libc);
    fake_proc(dir, 101, 100, "7f00-7f01 r-xp 00000000 08:01 9 /usr/lib/libtorch_python.so\n");
    fake_proc(dir, 102, 101, libc);
    fake_proc(dir, 200, 1, "7f00-7f01 r-xp 00000000 08:01 9 /x/_pywrap_tensorflow_internal.so\n");
    fake_proc(dir, 300, 1, libc);
    fake_proc(dir, 301, 300, libc);
    /* a notebook's kernel, by its command line (NUL-separated arguments) */
    char p[256];
    snprintf(p, sizeof p, "%s/100/cmdline", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fwrite("python3\0-m\0ipykernel_launcher\0-f\0/run/kernel-1.json\0", 1, 52, f);
    fclose(f);
    snprintf(p, sizeof p, "%s/100/status", dir);
    write_file(p, "Name:\tpython3\nUid:\t0\t0\t0\t0\n");
    struct host_attrib at;
    assert_true(host_attrib_read(dir, 100, &at));
    assert_true(at.notebook);
    snprintf(p, sizeof p, "%s/101/status", dir);
    write_file(p, "Name:\tpython3\nUid:\t0\t0\t0\t0\n");
    assert_true(host_attrib_read(dir, 101, &at));   /* no command line: not known to be one */
    assert_false(at.notebook);
    assert_true(host_is_notebook_command("/usr/bin/python3 /usr/local/lib/python3.10/colab_kernel_launcher.py"));
    assert_true(host_is_notebook_command("python -m spyder_kernels.console -f kernel.json"));
    assert_false(host_is_notebook_command("/usr/bin/python3"));
    assert_false(host_is_notebook_command("jupyter-lab --port 8888"));
    assert_false(at.server);
    /* an inference server, by its executable or the module that starts it */
    assert_true(host_is_server_command("/opt/tritonserver/bin/tritonserver --model-repository=/models"));
    assert_true(host_is_server_command("python3 -m vllm.entrypoints.openai.api_server --model m"));
    assert_true(host_is_server_command("/usr/bin/python3 /usr/local/bin/vllm serve meta-llama/Llama-3.1-8B"));
    assert_true(host_is_server_command("text-generation-launcher --model-id m"));
    assert_true(host_is_server_command("java -cp ... org.pytorch.serve.ModelServer"));
    assert_false(host_is_server_command("python3 train.py --serve-every 100"));
    assert_false(host_is_server_command("/usr/bin/python3"));
    struct host_sample h;
    host_init(&h);
    h.proc_path = dir;
    assert_int_equal(host_job_framework(&h, 100), HOST_FW_TORCH);
    assert_int_equal(host_job_framework(&h, 200), HOST_FW_TENSORFLOW);
    assert_int_equal(host_job_framework(&h, 300), HOST_FW_UNKNOWN);
    assert_int_equal(host_job_framework(&h, 999), HOST_FW_UNKNOWN);   /* gone */
    host_close(&h);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_account(void **state)
{
    (void)state;
    struct account *ac = account_new();
    struct record_gpu g;
    memset(&g, 0, sizeof g);
    g.index = 3;
    g.njobs = 2;
    snprintf(g.jobs[0], sizeof g.jobs[0], "a");
    snprintf(g.jobs[1], sizeof g.jobs[1], "b");
    g.nprocs = 3;
    snprintf(g.procs[0].user, sizeof g.procs[0].user, "alice");
    snprintf(g.procs[1].user, sizeof g.procs[1].user, "alice");   /* one user, two processes: one share */
    g.procs[2].user[0] = '\0';                                      /* unknown: no share */
    account_add(ac, &g, 100, 10, 0.5, 1000);
    account_add(ac, &g, 110, 0, 0.5, 1000);    /* no interval: nothing */
    account_add(ac, &g, 120, 10, NAN, NAN);    /* unknown idle and energy: time only */
    const struct account_entry *e[ACCOUNT_MAX];
    assert_int_equal(account_sorted(ac, e), 3);
    assert_int_equal(e[0]->kind, ACCOUNT_JOB);
    assert_float_equal(e[0]->gpu_s, 10, 1e-9);     /* half of 2 x 10 s */
    assert_float_equal(e[0]->idle_s, 2.5, 1e-9);
    assert_float_equal(e[0]->energy_j, 500, 1e-9);
    assert_int_equal(e[0]->ngpus, 1);
    assert_int_equal(e[2]->kind, ACCOUNT_USER);
    assert_string_equal(e[2]->key, "alice");
    assert_float_equal(e[2]->gpu_s, 20, 1e-9);
    assert_float_equal(e[2]->energy_j, 1000, 1e-9);
    /* full: the least recently seen makes room */
    g.nprocs = 0;
    g.njobs = 1;
    for (int i = 0; i < ACCOUNT_MAX; i++) {
        snprintf(g.jobs[0], sizeof g.jobs[0], "j%d", i);
        account_add(ac, &g, 200 + i, 1, 0, 0);
    }
    assert_int_equal(account_sorted(ac, e), ACCOUNT_MAX);
    bool alice = false, a = false;
    for (int i = 0; i < ACCOUNT_MAX; i++)
        alice |= !strcmp(e[i]->key, "alice"), a |= !strcmp(e[i]->key, "a");
    assert_false(alice || a);
    account_free(ac);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtimes),
        cmocka_unit_test(test_not_containers),
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_framework),
        cmocka_unit_test(test_account),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
