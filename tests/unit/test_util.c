/*
 * test_util.c: duration and number parsing, timestamps, /proc/stat parsing,
 * and the output file's whole-record guarantee: a write that fails part-way
 * (file size limit standing in for a full disk) leaves no torn line, and
 * the kept records are written once space returns; the one-writer lock on
 * log files (kept across a reopen of the same file); a FIFO that never
 * blocks: waiting for its reader, and for a reader that does not read,
 * both end when the caller's stop function says so, and what was begun is
 * finished first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host.h"
#include "out.h"
#include "util.h"

static void test_duration(void **state)
{
    (void)state;
    double ms;
    assert_int_equal(util_parse_duration_ms("1s", &ms), 0);
    assert_true(ms == 1000);
    assert_int_equal(util_parse_duration_ms("250ms", &ms), 0);
    assert_true(ms == 250);
    assert_int_equal(util_parse_duration_ms("2", &ms), 0);
    assert_true(ms == 2000);
    assert_int_equal(util_parse_duration_ms("1.5m", &ms), 0);
    assert_true(ms == 90000);
    assert_int_equal(util_parse_duration_ms("0.01s", &ms), 0);
    assert_true(ms > 9.99 && ms < 10.01);
    assert_int_equal(util_parse_duration_ms("", &ms), -1);
    assert_int_equal(util_parse_duration_ms("fast", &ms), -1);
    assert_int_equal(util_parse_duration_ms("-1s", &ms), -1);
    assert_int_equal(util_parse_duration_ms("1 s", &ms), -1);
    assert_int_equal(util_parse_duration_ms("nan", &ms), -1);
    assert_int_equal(util_parse_duration_ms("1e999", &ms), -1);
}

static void test_uint(void **state)
{
    (void)state;
    unsigned long long v;
    assert_int_equal(util_parse_uint("42", 100, &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(util_parse_uint("101", 100, &v), -1);
    assert_int_equal(util_parse_uint("-1", 100, &v), -1);
    assert_int_equal(util_parse_uint("4x", 100, &v), -1);
    assert_int_equal(util_parse_uint("99999999999999999999999", ~0ull, &v), -1);
}

static void test_rfc3339(void **state)
{
    (void)state;
    char buf[32];
    struct timespec t = {1796000000, 123456789};
    util_rfc3339(&t, buf);
    assert_string_equal(buf, "2026-11-30T00:53:20.123Z");
    t.tv_nsec = 999999999;
    util_rfc3339(&t, buf);
    assert_string_equal(buf, "2026-11-30T00:53:20.999Z");
}

static void test_stat_line(void **state)
{
    (void)state;
    struct host_cpu_times t;
    assert_int_equal(host_parse_stat_line("cpu  100 5 50 800 40 3 2 0 0 0\n", &t), 0);
    assert_int_equal(t.user, 105);
    assert_int_equal(t.system, 55);
    assert_int_equal(t.iowait, 40);
    assert_int_equal(t.total, 1000);
    assert_int_equal(host_parse_stat_line("intr 1 2 3", &t), -1);
}

/* A fake /proc with a job (pid 100) and its worker (101). */
static void fake_proc(const char *dir, int pid, int ppid, long long read_bytes)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%d", dir, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%d/stat", dir, pid);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%d (python3) S %d %d %d 0 -1 4194304 0 0 0 0 10 5 0 0 20 0 1 0 %d 1000000 500\n", pid, ppid, pid,
            pid, 1000 + pid);
    fclose(f);
    snprintf(path, sizeof path, "%s/%d/io", dir, pid);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "rchar: 1\nwchar: 0\nsyscr: 1\nsyscw: 0\nread_bytes: %lld\nwrite_bytes: 0\n", read_bytes);
    fclose(f);
}

static double job_read_bytes(struct host_sample *h)
{
    uint64_t before = h->job_ns;
    host_read(h);
    return h->job_read_bps * (double)(h->job_ns - before) / 1e9;
}

/* The tree's storage reads: each member's growth; a reaped worker's reads, which its parent then
 * shows again, count once. */
static void test_job_reads(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpumon-proc-XXXXXX", cmd[600];
    assert_non_null(mkdtemp(dir));
    fake_proc(dir, 100, 1, 0);
    fake_proc(dir, 101, 100, 1000);
    struct host_sample h;
    host_init(&h);
    h.proc_path = dir;
    host_job_watch(&h, 100);
    usleep(20000);
    fake_proc(dir, 101, 100, 3000);
    assert_true(fabs(job_read_bytes(&h) - 2000) < 1);
    assert_true(h.job_io_ok);
    usleep(20000);
    snprintf(cmd, sizeof cmd, "rm -rf %s/101", dir);
    assert_int_equal(system(cmd), 0);
    fake_proc(dir, 100, 1, 3500);   /* reaped: the worker's 3500 bytes now in the parent's figure */
    assert_true(fabs(job_read_bytes(&h) - 500) < 1);
    usleep(20000);
    assert_true(fabs(job_read_bytes(&h)) < 1);
    host_close(&h);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void fake_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A process of the fake /proc that the tree's incremental read can tell from a thread (status's Tgid). */
static void fake_task(const char *dir, int pid, int ppid, int tgid)
{
    char name[64], text[64];
    fake_proc(dir, pid, ppid, 0);
    snprintf(name, sizeof name, "%d/status", pid);
    snprintf(text, sizeof text, "Name:\tpython3\nUmask:\t0022\nState:\tS\nTgid:\t%d\n", tgid);
    fake_file(dir, name, text);
}

/* With ns_last_pid, a read looks at the tree's members and the pids handed out since the previous read,
 * not at every process: new children join (a new thread of a member does not, nor a stranger's child),
 * an ended member leaves, and an orphan adopted outside the tree leaves with it. */
static void test_job_tree_incremental(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpumon-proc-XXXXXX", cmd[600];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "mkdir -p %s/sys/kernel", dir);
    assert_int_equal(system(cmd), 0);
    fake_task(dir, 50, 1, 50);     /* a stranger */
    fake_task(dir, 100, 1, 100);   /* the job */
    fake_task(dir, 101, 100, 101);
    fake_file(dir, "sys/kernel/ns_last_pid", "101\n");
    struct host_sample h;
    host_init(&h);
    h.proc_path = dir;
    host_job_watch(&h, 100);
    assert_int_equal(h.job_procs, 2);
    assert_int_equal(h.job_last_pid, 101);
    uint64_t scanned = h.job_scan_ns;

    fake_task(dir, 102, 101, 102);   /* a child of the worker */
    fake_task(dir, 103, 100, 101);   /* a thread of the worker: its stat names the worker's parent */
    fake_task(dir, 104, 50, 104);    /* the stranger's child */
    fake_file(dir, "sys/kernel/ns_last_pid", "104\n");
    host_read(&h);
    assert_int_equal(h.job_scan_ns, scanned);   /* no full scan */
    assert_int_equal(h.job_procs, 3);
    assert_int_equal(h.job_last_pid, 104);

    snprintf(cmd, sizeof cmd, "rm -rf %s/101", dir);   /* the worker ends: init adopts 102 */
    assert_int_equal(system(cmd), 0);
    fake_task(dir, 102, 1, 102);
    host_read(&h);
    assert_int_equal(h.job_scan_ns, scanned);
    assert_int_equal(h.job_procs, 1);

    snprintf(cmd, sizeof cmd, "rm -rf %s/103", dir);   /* a real /proc lists no thread: this one does */
    assert_int_equal(system(cmd), 0);
    fake_file(dir, "sys/kernel/ns_last_pid", "90\n");   /* set back (a wrap): every process is read */
    fake_task(dir, 105, 100, 105);
    host_read(&h);
    assert_true(h.job_scan_ns > scanned);
    assert_int_equal(h.job_procs, 2);
    host_close(&h);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_pid_io(void **state)
{
    (void)state;
    assert_int_equal(host_parse_pid_io("rchar: 9000\nwchar: 5\nsyscr: 3\nsyscw: 1\nread_bytes: 4096\n"
                                       "write_bytes: 0\ncancelled_write_bytes: 0\n"), 4096);
    assert_int_equal(host_parse_pid_io("read_bytes: 12\n"), 12);
    /* rchar (page-cache hits, pipes) is not storage */
    assert_int_equal(host_parse_pid_io("rchar: 9000\n"), -1);
    assert_int_equal(host_parse_pid_io(""), -1);
    assert_int_equal(host_parse_pid_io("read_bytes: -5\n"), -1);
    assert_int_equal(host_parse_pid_io("xread_bytes: 5\n"), -1);
}

static size_t file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return (size_t)n;
}

static void test_out_whole_records(void **state)
{
    (void)state;
    char path[] = "/tmp/gpumon-out-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    struct out o;
    assert_int_equal(out_open(&o, path, NULL, NULL, err, sizeof err), 0);
    assert_true(out_is_empty(&o));
    char rec[100];
    memset(rec, 'x', sizeof rec - 1);
    rec[sizeof rec - 1] = '\n';
    assert_int_equal(out_write(&o, rec, sizeof rec), 0);
    assert_int_equal(file_size(path), 100);

    /* A 250-byte limit: the next record fits, the one after is cut part-way. */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 250;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    assert_int_equal(out_write(&o, rec, sizeof rec), 0);
    assert_int_equal(file_size(path), 200);
    assert_int_equal(out_write(&o, rec, sizeof rec), 0);    /* kept, not torn */
    assert_int_equal(file_size(path), 200);
    assert_int_equal(out_write(&o, rec, sizeof rec), 0);
    assert_int_equal(file_size(path), 200);
    assert_true(o.failing);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);

    /* Space is back: the two kept records and the new one land, in order. */
    assert_int_equal(out_write(&o, rec, sizeof rec), 0);
    assert_int_equal(file_size(path), 500);
    assert_false(o.failing);
    out_close(&o);
    unlink(path);
}

/* A full backlog drops the newest whole records (never parts of one), so a
 * multi-line text record or a compressed stream stays intact; out_close
 * reports what could not be written. */
static void test_out_full_backlog(void **state)
{
    (void)state;
    char path[] = "/tmp/gpumon-out-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    struct out o;
    assert_int_equal(out_open(&o, path, NULL, NULL, err, sizeof err), 0);
    o.backlog_max = 1000;
    const char rec[] = "line one of a record\nline two of the record\n";   /* 45 bytes, two lines */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 0;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(out_write(&o, rec, sizeof rec - 1), 0);
    assert_int_equal(o.qn, 1000 / (sizeof rec - 1));   /* whole records only */
    assert_true(o.qbytes <= 1000);
    assert_int_equal(o.dropped, 100 - o.qn);
    size_t kept = o.qn;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    assert_int_equal(out_write(&o, rec, sizeof rec - 1), 0);   /* space is back: the kept ones, then this one */
    assert_int_equal(o.qn, 0);
    assert_false(o.failing);
    assert_int_equal(file_size(path), (long)((kept + 1) * (sizeof rec - 1)));
    assert_int_equal(out_close(&o), -1);   /* records were dropped: the caller must say so */
    unlink(path);
}

/* A compressed log: one zstd frame flushed per record, readable at once;
 * reopening ends the frame and starts another in the new file. */
static void test_out_zstd(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpumon-zst-XXXXXX", path[64], cmd[200], buf[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/log.jsonl.zst", dir);
    char err[256];
    struct out o;
    assert_true(out_is_zstd_path(path));
    assert_false(out_is_zstd_path("log.jsonl"));
    assert_int_equal(out_open(&o, path, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(out_write(&o, "{\"a\":1}\n", 8), 0);
    assert_int_equal(out_write(&o, "{\"a\":2}\n", 8), 0);
    /* not closed yet: a reader sees both records (zstd warns the frame is unfinished) */
    snprintf(cmd, sizeof cmd, "zstd -dc %s 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    pclose(p);
    buf[n] = '\0';
    assert_string_equal(buf, "{\"a\":1}\n{\"a\":2}\n");
    assert_int_equal(out_reopen(&o, err, sizeof err), 0);   /* ends the frame; appends a new one */
    assert_int_equal(out_write(&o, "{\"a\":3}\n", 8), 0);
    assert_int_equal(out_close(&o), 0);
    snprintf(cmd, sizeof cmd, "zstd -t -q %s && zstd -dc %s", path, path);
    p = popen(cmd, "r");
    n = fread(buf, 1, sizeof buf - 1, p);
    assert_int_equal(pclose(p), 0);   /* both frames complete, checksums right */
    buf[n] = '\0';
    assert_string_equal(buf, "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");
    unlink(path);
    rmdir(dir);
}

static void test_out_bad_path(void **state)
{
    (void)state;
    struct out o;
    char err[256];
    assert_int_equal(out_open(&o, "/nonexistent-dir/x.log", NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent-dir/x.log"));
    assert_non_null(strstr(err, "No such file"));
}

/* A second writer of a log is refused, naming the first (here: this process); a reopen of the same
 * file keeps the lock; a rotated-away file is free again once the writer has moved on. */
static void test_out_lock(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpumon-lock-XXXXXX", path[64], moved[80], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/log.jsonl", dir);
    snprintf(moved, sizeof moved, "%s/log.jsonl.1", dir);
    struct out a, b;
    assert_int_equal(out_open(&a, path, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(out_open(&b, path, NULL, NULL, err, sizeof err), -1);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
    assert_non_null(strstr(err, pid));
    assert_non_null(strstr(err, "test_util"));   /* the holder's command line */
    assert_non_null(strstr(err, "log.jsonl is being written by another process"));
    assert_int_equal(out_reopen(&a, err, sizeof err), 0);   /* not moved: the same descriptor goes on */
    assert_int_equal(out_open(&b, path, NULL, NULL, err, sizeof err), -1);
    assert_int_equal(rename(path, moved), 0);
    assert_int_equal(out_reopen(&a, err, sizeof err), 0);   /* logrotate: the new file is locked, the old free */
    assert_int_equal(out_open(&b, path, NULL, NULL, err, sizeof err), -1);
    assert_int_equal(out_open(&b, moved, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(out_close(&b), 0);
    assert_int_equal(out_close(&a), 0);
    assert_int_equal(out_open(&b, path, NULL, NULL, err, sizeof err), 0);   /* the writer is gone */
    assert_int_equal(out_close(&b), 0);
    unlink(path);
    unlink(moved);
    rmdir(dir);
}

static int stop_after;   /* the stop function says stop from its stop_after-th call on */
static bool stop_counting(const void *ctx)
{
    (void)ctx;
    return --stop_after <= 0;
}

/* A FIFO with no reader: out_open waits without blocking, asking the stop function. */
static void test_out_fifo_no_reader(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpumon-fifo-XXXXXX", path[64], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    struct out o;
    stop_after = 3;
    assert_int_equal(out_open(&o, path, stop_counting, NULL, err, sizeof err), OUT_STOPPED);
    assert_int_equal(stop_after, 0);
    assert_non_null(strstr(err, "waiting for a reader on FIFO"));
    unlink(path);
    rmdir(dir);
}

/* A FIFO whose reader does not read: the write that fills it waits, and gives up when told to stop,
 * keeping the rest of the record it began; once the reader reads, that rest comes first and every
 * record arrives whole and in order. */
static void test_out_fifo_stalled(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpumon-fifo-XXXXXX", path[64], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    int rd = open(path, O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    struct out o;
    stop_after = 1000000;
    assert_int_equal(out_open(&o, path, stop_counting, NULL, err, sizeof err), 0);
    assert_true(o.fifo);
    char rec[10000];
    memset(rec, 'r', sizeof rec - 1);
    rec[sizeof rec - 1] = '\n';
    int n = 0;
    stop_after = 2;   /* the first wait for room ends the writing */
    while (!o.stopped && n < 1000) {
        assert_int_equal(out_write(&o, rec, sizeof rec), 0);
        n++;
    }
    assert_true(o.stopped);
    assert_int_equal(o.qn, 1);
    assert_true(o.qbytes > 0 && o.qbytes < sizeof rec);   /* the record begun: its rest, kept */
    /* the reader takes what is in the FIFO; the end writes the rest, without waiting (stopped) */
    size_t total = 0;
    char buf[65536];
    for (ssize_t got; (got = read(rd, buf, sizeof buf)) > 0; total += (size_t)got)
        for (ssize_t i = 0; i < got; i++)
            assert_int_equal(buf[i], (total + (size_t)i + 1) % sizeof rec ? 'r' : '\n');
    assert_int_equal(out_close(&o), 0);
    for (ssize_t got; (got = read(rd, buf, sizeof buf)) > 0; total += (size_t)got)
        for (ssize_t i = 0; i < got; i++)
            assert_int_equal(buf[i], (total + (size_t)i + 1) % sizeof rec ? 'r' : '\n');
    assert_int_equal(total, (size_t)n * sizeof rec);   /* every record whole, in order */
    close(rd);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_uint),
        cmocka_unit_test(test_rfc3339),
        cmocka_unit_test(test_stat_line),
        cmocka_unit_test(test_pid_io),
        cmocka_unit_test(test_job_reads),
        cmocka_unit_test(test_job_tree_incremental),
        cmocka_unit_test(test_out_whole_records),
        cmocka_unit_test(test_out_full_backlog),
        cmocka_unit_test(test_out_zstd),
        cmocka_unit_test(test_out_bad_path),
        cmocka_unit_test(test_out_lock),
        cmocka_unit_test(test_out_fifo_no_reader),
        cmocka_unit_test(test_out_fifo_stalled),
    };
    return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
