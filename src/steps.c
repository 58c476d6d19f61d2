/*
 * steps.c: the step channel's reader (see steps.h and docs/steps-channel.md).
 *
 * The job writes its ring through a shared mapping; gpumon reads it with
 * pread and writes back how far it read with pwrite (the same page cache),
 * never through a mapping of its own: a job that truncates its file makes
 * a read come up short, not a SIGBUS. Entry seq is taken only when its
 * check word matches, so a slot being written, or still holding an older
 * lap's entry, waits for the next sample; a drain takes at most one lap.
 * Per ring a small state machine (waiting / computing / out) turns entries
 * into steps and phase time; phase time is credited from the later of the
 * phase's start and the previous record, so an entry that arrives late is
 * counted from the record it reached. A wait in progress is counted as it
 * goes; if it ends out of the loop (`o`) it was not a wait for input, and
 * the record where it ended takes back what earlier records counted of it
 * (unwait_s: records are facts, a correction is a new one). A process's
 * end is seen through a
 * pidfd (a zombie or a reused pid cannot hide it): its ring is drained once
 * more, a wait in progress dropped (the loop is not waiting for input any
 * more), its totals kept, and its slot freed. Every file seen is
 * remembered by name and by inode, so none is read twice (hard links,
 * renames) or warned about twice; rings left in a reused --steps directory
 * by processes that ended before the channel opened are not read. The
 * job's times are its own monotonic clock's; on a simulator that fast-plays
 * its scenario they are scaled to the records' time axis (steps_set_speed).
 */
#include "steps.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "util.h"

#define STEPS_MAGIC "GPUMSTP1"
#define STEPS_HEADER 64
#define STEPS_ENTRY 24
#define STEPS_CHECK 0x9E3779B97F4A7C15ull
#define STEPS_MAX_RINGS RECORD_MAX_RANKS   /* live at once */
#define STEPS_CHUNK 256                    /* entries per read */
#define STEPS_WARN_FILES 10                /* bad files named; further ones only counted */
#define STEPS_FUTURE_NS 1000000000ull      /* an entry more than 1 s ahead of gpumon's clock is invalid */

struct steps_ring {
    int fd, pidfd;
    dev_t dev;
    ino_t ino;
    uint32_t mask;
    uint64_t consumed, last_t;
    int pid, rank, local_rank, world;
    uint8_t phase;
    uint64_t phase_t, wait_t, compute_t, acc_from;
    uint64_t open_wait_ns, unwait_ns;   /* of the wait in progress, what records got; what they must take back */
    bool wait_known, gone;
    unsigned cur_batches;
    unsigned long long bad, total_steps, dropped;
    /* the interval since the previous record */
    unsigned steps, batches, waited;
    double step_s, wait_s;
    uint64_t in_wait_ns, in_compute_ns;
    uint32_t hist[RECORD_STEP_NBINS];
    double scale;                       /* record seconds per second of the job (steps_set_speed) */
};

/* Files seen: names (so a scan skips them at once) and inodes (so no file is read under two names). */
struct steps_seen {
    char (*names)[32];
    struct { dev_t dev; ino_t ino; } *ids;
    unsigned n, nids, cap, capids;
};

struct steps {
    char dir[4096];
    bool own_dir;
    uint64_t opened_ns;
    uint64_t last_fill;                 /* the previous record's time (steps_fill), opened_ns before one */
    struct timespec opened_wall;
    struct steps_ring rings[STEPS_MAX_RINGS];
    unsigned nrings;
    struct steps_seen seen;
    bool warned_full;
    double speed;                       /* steps_set_speed; 1 until set */
    unsigned long long files_bad, processes, done_steps, done_bad, done_dropped;
    struct record_rank out[STEPS_MAX_RINGS];
};

static uint64_t steps_u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static int32_t steps_i32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint32_t steps_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* A directory the job can use and nobody else can write into. */
static int steps_check_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(dir, &st) != 0) {
        snprintf(err, errlen, "--steps %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--steps %s: not a directory%s", dir, S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
        return -1;
    }
    if (st.st_uid != geteuid() || (st.st_mode & 022)) {
        snprintf(err, errlen, "--steps %s: must belong to you and not be writable by others (mode 0700)", dir);
        return -1;
    }
    return 0;
}

int steps_open(struct steps **out, const char *dir, char *err, size_t errlen)
{
    struct steps *s = xcalloc(1, sizeof *s);
    s->speed = 1;
    if (dir) {
        if (steps_check_dir(dir, err, errlen) != 0) {
            free(s);
            return -1;
        }
        snprintf(s->dir, sizeof s->dir, "%s", dir);
    } else {
        const char *bases[] = {getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"), "/tmp"};
        int e = 0;
        for (size_t i = 0; i < 3 && !s->own_dir; i++) {
            if (!bases[i] || bases[i][0] != '/')
                continue;
            snprintf(s->dir, sizeof s->dir, "%s/gpumon-steps-XXXXXX", bases[i]);
            if (mkdtemp(s->dir))   /* mode 0700 */
                s->own_dir = true;
            else
                e = errno;
        }
        if (!s->own_dir) {
            snprintf(err, errlen, "cannot make a directory for the step channel: %s", strerror(e));
            free(s);
            return -1;
        }
    }
    s->opened_ns = s->last_fill = util_mono_ns();
    clock_gettime(CLOCK_REALTIME, &s->opened_wall);
    *out = s;
    return 0;
}

const char *steps_dir(const struct steps *s)
{
    return s->dir;
}

/* "<pid>-<8 hex>.ring": the pid in plain decimal (no sign, no leading zero), at most 10 digits. */
static bool steps_name_ok(const char *n, int *pid)
{
    size_t len = strlen(n), digits = strspn(n, "0123456789");
    if (len > 24 || digits == 0 || digits > 10 || n[0] == '0' || len != digits + 14 || n[digits] != '-' ||
        strcmp(n + digits + 9, ".ring") != 0 || strspn(n + digits + 1, "0123456789abcdef") < 8)
        return false;
    long long p = strtoll(n, NULL, 10);
    if (p > 0x7fffffff)
        return false;
    *pid = (int)p;
    return true;
}

static bool steps_seen_name(const struct steps_seen *v, const char *name)
{
    for (unsigned i = 0; i < v->n; i++)
        if (!strcmp(v->names[i], name))
            return true;
    return false;
}

static void steps_remember(struct steps_seen *v, const char *name)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 64;
        v->names = xrealloc(v->names, v->cap * sizeof *v->names);
    }
    snprintf(v->names[v->n++], sizeof v->names[0], "%.31s", name);
}

/* True when (dev, ino) was seen already; else remembers it. */
static bool steps_seen_file(struct steps_seen *v, dev_t dev, ino_t ino)
{
    for (unsigned i = 0; i < v->nids; i++)
        if (v->ids[i].dev == dev && v->ids[i].ino == ino)
            return true;
    if (v->nids == v->capids) {
        v->capids = v->capids ? v->capids * 2 : 64;
        v->ids = xrealloc(v->ids, v->capids * sizeof *v->ids);
    }
    v->ids[v->nids].dev = dev;
    v->ids[v->nids++].ino = ino;
    return false;
}

static void steps_skip(struct steps *s, const char *name, const char *why)
{
    if (++s->files_bad <= STEPS_WARN_FILES)
        util_warn("run: step channel: ignoring %s: %s%s", name, why,
                  s->files_bad == STEPS_WARN_FILES ? " (further bad files are only counted)" : "");
}

/* A pidfd to see the process end, or -1 (kernels before 5.3: kill(pid, 0) then). */
static int steps_pidfd(int pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

static bool steps_gone(const struct steps_ring *r)
{
    if (r->pidfd >= 0) {
        struct pollfd p = {.fd = r->pidfd, .events = POLLIN};
        return poll(&p, 1, 0) > 0;
    }
    return kill(r->pid, 0) != 0 && errno == ESRCH;
}

/* Opens a new ring file after checking what it claims; NULL (said, counted) when it is not one. */
static void steps_add(struct steps *s, int dfd, const char *name, int pid, uint64_t now)
{
    if (s->nrings == STEPS_MAX_RINGS) {
        if (!s->warned_full)
            util_warn("run: step channel: more than %d processes record steps at once; the others are not read",
                      STEPS_MAX_RINGS);
        s->warned_full = true;
        return;   /* not remembered: read once a slot is free */
    }
    steps_remember(&s->seen, name);
    int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        steps_skip(s, name, fd < 0 ? strerror(errno) : "not a regular file");
        return;
    }
    if (steps_seen_file(&s->seen, st.st_dev, st.st_ino)) {   /* a hard link or a new name of a ring read already */
        close(fd);
        return;
    }
    uint8_t h[STEPS_HEADER];
    const char *why = NULL;
    if (st.st_uid != geteuid())
        why = "it belongs to another user";
    else if (st.st_size < STEPS_HEADER || pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h)
        why = "shorter than a header";
    else if (memcmp(h, STEPS_MAGIC, 8) != 0)
        why = "not a gpumon step ring (magic)";
    else if (steps_u32(h + 8) != 1 || steps_u32(h + 12) != STEPS_HEADER || steps_u32(h + 16) != STEPS_ENTRY)
        why = "an unknown version of the ring format";
    else {
        uint32_t n = steps_u32(h + 20);
        if (n < 64 || n > (1u << 20) || (n & (n - 1)) || (uint64_t)st.st_size != STEPS_HEADER + (uint64_t)n * STEPS_ENTRY)
            why = "its slot count does not match its size";
        else if (steps_i32(h + 24) != pid)
            why = "its header names another process";
    }
    if (why) {
        close(fd);
        steps_skip(s, name, why);
        return;
    }
    int pidfd = steps_pidfd(pid);
    struct steps_ring probe = {.pid = pid, .pidfd = pidfd};
    struct timespec mt = st.st_mtim;
    if (steps_gone(&probe) && (mt.tv_sec < s->opened_wall.tv_sec ||
                               (mt.tv_sec == s->opened_wall.tv_sec && mt.tv_nsec < s->opened_wall.tv_nsec))) {
        if (pidfd >= 0)   /* left by a process that ended before this channel opened (a reused --steps DIR) */
            close(pidfd);
        close(fd);
        return;
    }
    struct steps_ring *r = &s->rings[s->nrings++];
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->pidfd = pidfd;
    r->dev = st.st_dev, r->ino = st.st_ino;
    r->mask = steps_u32(h + 20) - 1;
    r->pid = pid;
    r->rank = steps_i32(h + 28);
    r->local_rank = steps_i32(h + 32);
    r->world = steps_i32(h + 36);
    r->consumed = steps_u64(h + 48);
    /* what it did before it was found falls in the current record's interval (a loaded machine may let a
     * job do its steps before the next scan finds its ring): credited from the previous record on */
    r->acc_from = s->last_fill < now ? s->last_fill : now;
    r->scale = s->speed;
    s->processes++;
}

static void steps_scan(struct steps *s, uint64_t now)
{
    int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;   /* the directory went away: the rings open already are still read */
    }
    struct dirent *e;
    int pid;
    while ((e = readdir(d)))
        if (steps_name_ok(e->d_name, &pid) && !steps_seen_name(&s->seen, e->d_name))
            steps_add(s, dirfd(d), e->d_name, pid, now);
    closedir(d);
}

/* Credits the current phase with its time since the later of its start and the previous record. */
static void steps_account(struct steps_ring *r, uint64_t until)
{
    uint64_t from = r->phase_t > r->acc_from ? r->phase_t : r->acc_from;
    if (until <= from)
        return;
    if (r->phase == SP_WAIT) {
        r->in_wait_ns += until - from;
        r->open_wait_ns += until - from;
    } else if (r->phase == SP_COMPUTE)
        r->in_compute_ns += until - from;
}

static void steps_end_step(struct steps_ring *r, uint64_t t)
{
    double compute = (double)(t - r->compute_t) / 1e9 * r->scale;
    r->steps++;
    r->total_steps++;
    /* saturating: a record's count is 32 bits, and entries each up to 2^32 - 1 batches would wrap it */
    r->batches = r->cur_batches > UINT_MAX - r->batches ? UINT_MAX : r->batches + r->cur_batches;
    if (!r->wait_known)
        return;
    double wait = (double)(r->compute_t - r->wait_t) / 1e9 * r->scale;
    r->waited++;
    r->wait_s += wait;
    r->step_s += wait + compute;
    r->hist[record_step_bin(wait + compute)]++;
}

static void steps_event(struct steps_ring *r, uint64_t t, uint64_t tn, uint64_t now)
{
    char type = (char)(tn & 0xff);
    uint64_t count = (tn >> 8) & 0xffffffffull;
    if (t < r->last_t || t > now + STEPS_FUTURE_NS || (tn >> 40) || (type != 'w' && type != 'c' && type != 'o') ||
        (type == 'c' && count == 0)) {
        r->bad++;
        return;
    }
    r->last_t = t;
    if (type == 'o' && r->phase == SP_WAIT) {   /* a wait that ends out of the loop was not for input */
        r->unwait_ns += r->open_wait_ns;        /* what records counted of it is taken back */
    } else
        steps_account(r, t);
    if (type != 'w' || r->phase != SP_WAIT)
        r->open_wait_ns = 0;
    switch (type) {
    case 'w':
        if (r->phase == SP_COMPUTE)
            steps_end_step(r, t);
        if (r->phase != SP_WAIT)
            r->wait_t = t;
        r->phase = SP_WAIT;
        break;
    case 'c':
        if (r->phase == SP_COMPUTE) {   /* compute marks only: each step ends where the next begins */
            steps_end_step(r, t);
            r->wait_t = t;
        }
        r->wait_known = r->phase == SP_WAIT || r->phase == SP_COMPUTE;
        r->compute_t = t;
        r->cur_batches = (unsigned)count;
        r->phase = SP_COMPUTE;
        break;
    default:
        if (r->phase == SP_COMPUTE)
            steps_end_step(r, t);
        r->phase = SP_OUT;
        break;
    }
    r->phase_t = t;
}

/* Takes the ring's new entries, at most one lap, in chunks read with pread; writes back how far. */
static void steps_drain(struct steps_ring *r, uint64_t now)
{
    uint8_t buf[STEPS_CHUNK * STEPS_ENTRY];
    uint64_t seq = r->consumed, limit = seq + (uint64_t)r->mask + 1;
    for (bool more = true; more && seq < limit;) {
        uint64_t slot = seq & r->mask, n = r->mask + 1 - slot;   /* up to the ring's end */
        if (n > STEPS_CHUNK)
            n = STEPS_CHUNK;
        if (n > limit - seq)
            n = limit - seq;
        ssize_t got = pread(r->fd, buf, (size_t)n * STEPS_ENTRY, STEPS_HEADER + (off_t)slot * STEPS_ENTRY);
        if (got <= 0)
            break;   /* truncated by the job: nothing more to read */
        uint64_t k, have = (uint64_t)got / STEPS_ENTRY;
        for (k = 0; k < have; k++) {
            const uint8_t *e = buf + k * STEPS_ENTRY;
            uint64_t t = steps_u64(e), tn = steps_u64(e + 8), ck = steps_u64(e + 16);
            if (((seq + 1) ^ t ^ tn ^ STEPS_CHECK) != ck)
                break;
            seq++;
            steps_event(r, t, tn, now);
        }
        more = k == n;
    }
    if (seq != r->consumed) {
        r->consumed = seq;
        uint8_t b[8];
        memcpy(b, &seq, sizeof b);
        if (pwrite(r->fd, b, sizeof b, 48) != (ssize_t)sizeof b) {
            /* a truncated ring: the writer will see it full and drop, which it counts */
        }
    }
    uint8_t d[8];
    if (pread(r->fd, d, sizeof d, 40) == (ssize_t)sizeof d)
        r->dropped = steps_u64(d);
}

/* Up to RECORD_STEP_BINS bins: neighbours merge (2, 4, ... at a time) when the interval has more. */
static void steps_bins(const struct steps_ring *r, struct record_rank *o)
{
    unsigned shift = 0, groups;
    do {
        groups = 0;
        int last = -1;
        for (unsigned b = 0; b < RECORD_STEP_NBINS; b++)
            if (r->hist[b] && (int)(b >> shift) != last)
                groups++, last = (int)(b >> shift);
    } while (groups > RECORD_STEP_BINS && ++shift < 9);
    o->nbins = 0;
    for (unsigned g = 0; g < ((unsigned)RECORD_STEP_NBINS >> shift); g++) {
        double n = 0, sum = 0;
        for (unsigned b = g << shift; b < ((g + 1) << shift); b++)
            n += r->hist[b], sum += (double)b * r->hist[b];
        if (n > 0 && o->nbins < RECORD_STEP_BINS) {
            o->bins[o->nbins].bin = (uint16_t)(sum / n + 0.5);
            o->bins[o->nbins++].n = (uint32_t)n;
        }
    }
}

static void steps_emit(struct steps_ring *r, struct record_rank *o)
{
    *o = (struct record_rank){.pid = r->pid, .rank = r->rank, .local_rank = r->local_rank, .world = r->world,
                              .phase = r->phase, .steps = r->steps, .batches = r->batches, .waited = r->waited,
                              .step_s = r->step_s, .wait_s = r->wait_s,
                              .in_wait_s = (double)r->in_wait_ns / 1e9 * r->scale,
                              .in_compute_s = (double)r->in_compute_ns / 1e9 * r->scale,
                              .unwait_s = (double)r->unwait_ns / 1e9 * r->scale, .dropped = r->dropped,
                              .bad = r->bad};
    steps_bins(r, o);
    r->steps = r->batches = r->waited = 0;
    r->step_s = r->wait_s = 0;
    r->in_wait_ns = r->in_compute_ns = r->unwait_ns = 0;
    memset(r->hist, 0, sizeof r->hist);
}

/* A finished process: its totals kept for steps_describe, its slot freed. */
static void steps_retire(struct steps *s, unsigned i)
{
    struct steps_ring *r = &s->rings[i];
    s->done_steps += r->total_steps;
    s->done_bad += r->bad;
    s->done_dropped += r->dropped;
    close(r->fd);
    if (r->pidfd >= 0)
        close(r->pidfd);
    s->rings[i] = s->rings[--s->nrings];
}

void steps_set_speed(struct steps *s, double speed)
{
    s->speed = speed > 0 ? speed : 1;
    for (unsigned i = 0; i < s->nrings; i++)
        s->rings[i].scale = s->speed;
}

void steps_fill(struct steps *s, struct record *rec, uint64_t now)
{
    steps_scan(s, now);
    unsigned n = 0;
    for (unsigned i = 0; i < s->nrings; i++) {
        struct steps_ring *r = &s->rings[i];
        r->gone = steps_gone(r);   /* before the drain: what it wrote before it ended is read */
        steps_drain(r, now);
        if (r->gone && r->phase != SP_OUT) {   /* it ended: a wait in progress was not for input */
            if (r->phase == SP_COMPUTE)
                steps_account(r, now);
            else if (r->phase == SP_WAIT)
                r->unwait_ns += r->open_wait_ns;
            r->phase = SP_OUT;
            r->phase_t = now;
        }
        steps_account(r, now);
        r->acc_from = now;
        steps_emit(r, &s->out[n++]);
    }
    for (unsigned i = s->nrings; i-- > 0;)
        if (s->rings[i].gone)
            steps_retire(s, i);
    s->last_fill = now;
    rec->ranks = n ? s->out : NULL;
    rec->nranks = n;
}

unsigned long long steps_reported(const struct steps *s)
{
    unsigned long long n = s->done_steps;
    for (unsigned i = 0; i < s->nrings; i++)
        n += s->rings[i].total_steps;
    return n;
}

void steps_describe(const struct steps *s, char *buf, size_t len)
{
    unsigned long long steps = s->done_steps, dropped = s->done_dropped, bad = s->done_bad;
    for (unsigned i = 0; i < s->nrings; i++) {
        steps += s->rings[i].total_steps;
        bad += s->rings[i].bad;
        dropped += s->rings[i].dropped;
    }
    int k = snprintf(buf, len, "%llu process%s reported %llu step%s", s->processes, s->processes == 1 ? "" : "es",
                     steps, steps == 1 ? "" : "s");
    if (k > 0 && (size_t)k < len && (dropped || bad || s->files_bad))
        snprintf(buf + k, len - (size_t)k, " (%llu entr%s dropped by a full ring, %llu invalid, %llu bad file%s)",
                 dropped, dropped == 1 ? "y" : "ies", bad, s->files_bad, s->files_bad == 1 ? "" : "s");
}

void steps_close(struct steps *s)
{
    if (!s)
        return;
    while (s->nrings)
        steps_retire(s, s->nrings - 1);
    if (s->own_dir) {   /* ours: the rings in it go too (the job has ended) */
        DIR *d = opendir(s->dir);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(dirfd(d), e->d_name, 0);
        if (d)
            closedir(d);
        if (rmdir(s->dir) != 0)
            util_warn("run: cannot remove the step channel's directory %s: %s (the job left something in it)",
                      s->dir, strerror(errno));
    }
    free(s->seen.names);
    free(s->seen.ids);
    free(s);
}
