/*
 * steps.c: the step channel's reader (see steps.h and docs/steps-channel.md).
 *
 * Each ring is mapped shared and drained without locks: entry seq is taken
 * only when its check word matches, so a slot being written, or still
 * holding an older lap's entry, waits for the next sample. Per ring a small
 * state machine (waiting / computing / out) turns entries into steps and
 * phase time; phase time is credited from the later of the phase's start
 * and the previous record, so an entry that arrives late is counted from
 * the record it reached. A process that has exited has its rings drained
 * once more, a wait in progress dropped (the loop is not waiting for input
 * any more), and is then no longer listed.
 */
#include "steps.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

#define STEPS_MAGIC "GPUMSTP1"
#define STEPS_HEADER 64
#define STEPS_ENTRY 24
#define STEPS_CHECK 0x9E3779B97F4A7C15ull
#define STEPS_MAX_RINGS RECORD_MAX_RANKS
#define STEPS_MAX_SKIPPED 64          /* names of bad files remembered, so each is warned about once */
#define STEPS_FUTURE_NS 1000000000ull /* an entry more than 1 s ahead of gpumon's clock is bad */

struct steps_ring {
    char name[64];
    uint8_t *map;
    size_t size;
    uint32_t mask;
    uint64_t consumed, last_t;
    int pid, rank, local_rank, world;
    uint8_t phase;
    uint64_t phase_t, wait_t, compute_t, acc_from;
    bool wait_known, gone;
    unsigned cur_batches;
    unsigned long long bad, total_steps, dropped;
    /* the interval since the previous record */
    unsigned steps, batches, waited;
    double step_s, wait_s;
    uint64_t in_wait_ns, in_compute_ns;
    uint32_t hist[RECORD_STEP_NBINS];
};

struct steps {
    char dir[4096];
    bool own_dir;
    struct steps_ring rings[STEPS_MAX_RINGS];
    unsigned nrings;
    char skipped[STEPS_MAX_SKIPPED][64];
    unsigned nskipped;
    bool warned_full;
    unsigned long long files_bad, processes;
    struct record_rank out[STEPS_MAX_RINGS];
};

static uint64_t steps_load(const uint8_t *p)
{
    return __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_ACQUIRE);
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
    *out = s;
    return 0;
}

const char *steps_dir(const struct steps *s)
{
    return s->dir;
}

/* "<pid>-<8 hex>.ring" */
static bool steps_name_ok(const char *n, int *pid)
{
    char *end;
    long p = strtol(n, &end, 10);
    if (end == n || *end != '-' || p <= 0 || p > 0x7fffffff || strlen(end) != 14 || strcmp(end + 9, ".ring"))
        return false;
    for (int i = 1; i <= 8; i++)
        if (!((end[i] >= '0' && end[i] <= '9') || (end[i] >= 'a' && end[i] <= 'f')))
            return false;
    *pid = (int)p;
    return true;
}

static void steps_skip(struct steps *s, const char *name, const char *why)
{
    s->files_bad++;
    util_warn("run: step channel: ignoring %s: %s", name, why);
    if (s->nskipped < STEPS_MAX_SKIPPED)
        snprintf(s->skipped[s->nskipped++], sizeof s->skipped[0], "%.63s", name);
}

static bool steps_known(const struct steps *s, const char *name)
{
    for (unsigned i = 0; i < s->nrings; i++)
        if (!strcmp(s->rings[i].name, name))
            return true;
    for (unsigned i = 0; i < s->nskipped; i++)
        if (!strcmp(s->skipped[i], name))
            return true;
    return false;
}

/* Maps a new ring file after checking what it claims. */
static void steps_add(struct steps *s, int dfd, const char *name, int pid, uint64_t now)
{
    if (s->nrings == STEPS_MAX_RINGS) {
        if (!s->warned_full)
            util_warn("run: step channel: more than %d processes record steps; the others are not read",
                      STEPS_MAX_RINGS);
        s->warned_full = true;
        return;
    }
    int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        steps_skip(s, name, fd < 0 ? strerror(errno) : "not a regular file");
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
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        steps_skip(s, name, strerror(errno));
        return;
    }
    struct steps_ring *r = &s->rings[s->nrings++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%.63s", name);
    r->map = map;
    r->size = (size_t)st.st_size;
    r->mask = steps_u32(h + 20) - 1;
    r->pid = pid;
    r->rank = steps_i32(h + 28);
    r->local_rank = steps_i32(h + 32);
    r->world = steps_i32(h + 36);
    r->consumed = steps_load(r->map + 48);
    r->acc_from = now;
    s->processes++;
}

static void steps_scan(struct steps *s, uint64_t now)
{
    int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;   /* the directory went away: what was mapped is still read */
    }
    struct dirent *e;
    int pid;
    while ((e = readdir(d)))
        if (steps_name_ok(e->d_name, &pid) && !steps_known(s, e->d_name))
            steps_add(s, dirfd(d), e->d_name, pid, now);
    closedir(d);
}

/* Credits the current phase with its time since the later of its start and the previous record. */
static void steps_account(struct steps_ring *r, uint64_t until)
{
    uint64_t from = r->phase_t > r->acc_from ? r->phase_t : r->acc_from;
    if (until <= from)
        return;
    if (r->phase == SP_WAIT)
        r->in_wait_ns += until - from;
    else if (r->phase == SP_COMPUTE)
        r->in_compute_ns += until - from;
}

static void steps_end_step(struct steps_ring *r, uint64_t t)
{
    double compute = (double)(t - r->compute_t) / 1e9;
    r->steps++;
    r->total_steps++;
    r->batches += r->cur_batches;
    if (!r->wait_known)
        return;
    double wait = (double)(r->compute_t - r->wait_t) / 1e9;
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
    steps_account(r, t);
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

static void steps_drain(struct steps_ring *r, uint64_t now)
{
    uint64_t seq = r->consumed;
    for (;;) {
        const uint8_t *e = r->map + STEPS_HEADER + (size_t)(seq & r->mask) * STEPS_ENTRY;
        uint64_t t = steps_load(e), tn = steps_load(e + 8), ck = steps_load(e + 16);
        if (((seq + 1) ^ t ^ tn ^ STEPS_CHECK) != ck)
            break;
        seq++;
        steps_event(r, t, tn, now);
    }
    if (seq != r->consumed) {
        r->consumed = seq;
        __atomic_store_n((uint64_t *)(void *)(r->map + 48), seq, __ATOMIC_RELEASE);
    }
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
                              .step_s = r->step_s, .wait_s = r->wait_s, .in_wait_s = (double)r->in_wait_ns / 1e9,
                              .in_compute_s = (double)r->in_compute_ns / 1e9,
                              .dropped = steps_load(r->map + 40), .bad = r->bad};
    r->dropped = o->dropped;
    steps_bins(r, o);
    r->steps = r->batches = r->waited = 0;
    r->step_s = r->wait_s = 0;
    r->in_wait_ns = r->in_compute_ns = 0;
    memset(r->hist, 0, sizeof r->hist);
}

void steps_fill(struct steps *s, struct record *rec, uint64_t now)
{
    steps_scan(s, now);
    unsigned n = 0;
    for (unsigned i = 0; i < s->nrings; i++) {
        struct steps_ring *r = &s->rings[i];
        if (!r->map)
            continue;
        bool gone = kill(r->pid, 0) != 0 && errno == ESRCH;
        steps_drain(r, now);
        if (gone && r->phase != SP_OUT) {   /* it exited: a wait in progress was not for input */
            if (r->phase == SP_COMPUTE)
                steps_account(r, now);
            r->phase = SP_OUT;
            r->phase_t = now;
        }
        steps_account(r, now);
        r->acc_from = now;
        steps_emit(r, &s->out[n++]);
        if (gone) {
            munmap(r->map, r->size);
            r->map = NULL;
        }
    }
    rec->ranks = n ? s->out : NULL;
    rec->nranks = n;
}

void steps_describe(const struct steps *s, char *buf, size_t len)
{
    unsigned long long steps = 0, dropped = 0, bad = 0;
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
    for (unsigned i = 0; i < s->nrings; i++)
        if (s->rings[i].map)
            munmap(s->rings[i].map, s->rings[i].size);
    if (s->own_dir) {   /* ours: the rings in it go too (the job has ended) */
        DIR *d = opendir(s->dir);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")))
                unlinkat(dirfd(d), e->d_name, 0);
        if (d)
            closedir(d);
        rmdir(s->dir);
    }
    free(s);
}
