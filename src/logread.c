/*
 * logread.c: JSON Lines back into records (see logread.h). A line is
 * parsed by simdjson where gpumon has it (logread_simd.h), which leaves
 * anything it might read otherwise to cJSON (logread_tree.c).
 *
 * Parsing is most of diagnose's work, so it runs beside the analysis: a
 * reader thread reads lines ahead into a ring of slots (each with its own
 * line, its tree and its record) and parses them, the oldest first; the
 * caller, when the record it needs next is not parsed yet, parses the
 * oldest line nobody has taken rather than wait, or reads one itself when
 * there is none (the reader thread may have lost its core to another
 * process), so both cores parse while the analysis is the lighter half. Each thread has its own
 * parser and key caches. Records reach the caller in the log's order,
 * where the order checks run (a record whose time goes back is skipped
 * and counted); a line's error is reported when the caller reaches it. A
 * side that waits is woken with half a ring of work, not line by line.
 *
 * A reader thread costs a ring of LOGREAD_SLOTS slots and a second parser
 * (about 1.2 MiB more per 8-GPU log), and diagnose may read hundreds of
 * logs at once: only logread_threads() logs read ahead at a time, the
 * first opened (GPUMON_LOG_THREADS, default LOGREAD_THREADS; 0: none).
 * The others are read by the caller alone, in the same code with a ring
 * of two slots (the record held and the next) and one parser, so the
 * threads and their rings stop growing past that many logs.
 */
#include "logread.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lazylib.h"
#include "logread_int.h"
#include "logread_simd.h"
#include "logsrc.h"
#include "util.h"

#define LOGREAD_SLOTS 16
#define LOGREAD_CALLER_SLOTS 2          /* a log without a reader thread: the record held, and the next */
#define LOGREAD_AHEAD 3                 /* lines the reader keeps read and not taken, for the caller to take */
_Static_assert(LOGSRC_PAD >= LOGREAD_SIMD_PAD, "the lines of logsrc carry simdjson's padding");

/* What one parsing thread owns. */
struct logread_ctx {
    struct logread_keys keys;
    struct logread_simd *simd;      /* its simdjson parser, NULL: cJSON only */
};

enum { LOGREAD_RAW, LOGREAD_TAKEN, LOGREAD_READY };

/* A line read ahead, then its record (or the end, or an error). */
struct logread_slot {
    struct logread_tree tree;
    struct record rec;
    char *line;                     /* the line: NUL and LOGREAD_SIMD_PAD bytes after it */
    size_t len, cap;
    bool complete;                  /* it ended with a newline */
    unsigned long long lineno;
    int state;                      /* LOGREAD_RAW read, LOGREAD_TAKEN being parsed, LOGREAD_READY */
    int status;                     /* 1 a record, 0 the end (err: a warning, if any), -1 an error (err) */
    char err[1024];
};

struct logread {
    struct logsrc *src;
    char *path;
    const struct logread_simd_ops *simd_ops;   /* the simdjson reader, NULL: cJSON only */
    struct logread_ctx reader, caller;         /* the reader thread's, and the caller's (logread_parse too) */
    struct logread_tree direct;     /* logread_parse()'s */
    unsigned long long lineno;      /* the reading thread's: lines read */
    bool eof;                       /* the end (or a read error) is in a slot (under mu) */
    struct timespec last;           /* caller's: the latest record's time */
    unsigned long long skipped, skip_line;   /* records skipped: their time went back; the first one's line */
    struct timespec skip_t, skip_after;      /* its time, and the latest before it */
    char skip_text[512];
    char end_warning[1024];         /* caller's: the end's warning, once the caller reached the end */
    bool end_warned, end_seen;

    /* The reader thread fills slots ahead of the caller: produced and
     * consumed count slots; the caller holds slot (consumed - 1) % N.
     * States and counters change under mu. */
    struct logread_slot *slots;
    unsigned nslots;                /* LOGREAD_SLOTS with a reader thread, else LOGREAD_CALLER_SLOTS */
    pthread_t thread;
    bool threaded, started, stop;   /* threaded: it holds one of logread_threads()'s places */
    bool reader_waits, caller_waits;    /* signal only a thread that sleeps */
    unsigned long long produced, consumed;
    unsigned raw;                   /* produced slots read and not taken */
    bool reading;                   /* a thread reads the log (its lines, lineno, eof): one at a time */
    pthread_mutex_t mu;
    pthread_cond_t more, room;
};

static const struct logread_simd_ops *logread_simd_ops_used;
static unsigned logread_thread_max = LOGREAD_THREADS;
static unsigned logread_thread_used;       /* logs open with a reader thread (under logread_thread_mu) */
static pthread_mutex_t logread_thread_mu = PTHREAD_MUTEX_INITIALIZER;

void logread_threads_set(unsigned n)
{
    pthread_mutex_lock(&logread_thread_mu);
    logread_thread_max = n;
    pthread_mutex_unlock(&logread_thread_mu);
}

unsigned logread_threads(void)
{
    pthread_mutex_lock(&logread_thread_mu);
    unsigned n = logread_thread_max;
    pthread_mutex_unlock(&logread_thread_mu);
    return n;
}

bool logread_threaded(const struct logread *lr)
{
    return lr->threaded;
}

void logread_simd_use(const struct logread_simd_ops *ops)
{
    logread_simd_ops_used = ops;
}

const struct logread_simd_ops *logread_simd_current(void)
{
    return logread_simd_ops_used;
}

static void logread_ctx_init(struct logread *lr, struct logread_ctx *cx)
{
    for (int i = 0; i < LOGREAD_KEY_CACHE; i++)
        cx->keys.host[i].id = cx->keys.gpu[i].id = LOGREAD_KEY_EMPTY;
    cx->simd = lr->simd_ops ? lr->simd_ops->open() : NULL;
}

/* The simdjson path (logread_simd.h): 1 with the record, 0 to leave the line to cJSON. line[len] is NUL
 * and LOGREAD_SIMD_PAD bytes after it can be read. */
static int logread_simd_parse(struct logread *lr, struct logread_ctx *cx, struct logread_tree *t, const char *line,
                              size_t len, struct record *rec)
{
    if (!cx->simd)
        return 0;
    if (t->scap < len + 1) {
        t->scap = len + 1 > 4096 ? len + 1 + len / 2 : 4096;
        free(t->strs);
        t->strs = xmalloc(t->scap);
    }
    struct logread_simd_out out = {t->gpus, t->gcap, t->ranks, t->strs};
    int rc = lr->simd_ops->parse(cx->simd, line, len, &out, rec);
    t->gpus = out.gpus;   /* grown or not, it is the tree's */
    t->gcap = out.gcap;
    return rc;
}

/* A line into t and rec, by simdjson or else cJSON: 0, or -1 with a message. */
static int logread_line(struct logread *lr, struct logread_ctx *cx, struct logread_tree *t, const char *line,
                        size_t len, struct record *rec, char *err, size_t errlen)
{
    logread_tree_release(t);
    if (logread_simd_parse(lr, cx, t, line, len, rec) == 1)
        return 0;
    return logread_tree_parse(&cx->keys, t, line, len, rec, err, errlen);
}

int logread_parse(struct logread *lr, const char *line, size_t len, struct record *rec, char *err, size_t errlen)
{
    /* the parsers want the line NUL-terminated and padded: a copy (tests and fuzzing only) */
    char *copy = xmalloc(len + 1 + LOGREAD_SIMD_PAD);
    memcpy(copy, line, len);
    memset(copy + len, 0, 1 + LOGREAD_SIMD_PAD);
    int rc = logread_line(lr, &lr->caller, &lr->direct, copy, len, rec, err, errlen);
    free(copy);   /* the record's strings point into the tree, not into the line */
    return rc;
}

int logread_open(struct logread **out, const char *path, char *err, size_t errlen)
{
    struct logsrc *src;
    if (lazy_cjson_load(err, errlen) != 0 || logsrc_open(&src, path, err, errlen) != 0)
        return -1;
    struct logread *lr = xcalloc(1, sizeof *lr);
    lr->src = src;
    lr->path = xstrdup(path);
    lr->simd_ops = logread_simd_ops_used;
    pthread_mutex_lock(&logread_thread_mu);   /* a place for a reader thread, if one is left */
    lr->threaded = logread_thread_used < logread_thread_max;
    logread_thread_used += lr->threaded;
    pthread_mutex_unlock(&logread_thread_mu);
    lr->nslots = lr->threaded ? LOGREAD_SLOTS : LOGREAD_CALLER_SLOTS;
    lr->slots = xcalloc(lr->nslots, sizeof *lr->slots);
    if (lr->threaded)
        logread_ctx_init(lr, &lr->reader);
    logread_ctx_init(lr, &lr->caller);
    pthread_mutex_init(&lr->mu, NULL);
    pthread_cond_init(&lr->more, NULL);
    pthread_cond_init(&lr->room, NULL);
    *out = lr;
    return 0;
}

/* What a line that is not a record may be instead, for the message. */
static const char *logread_hint(const char *line)
{
    if (!strncmp(line, "timestamp,hostname", 18) || (strchr(line, ',') && line[0] != '{' && line[0] != '['))
        return " (this looks like CSV: diagnose and report read JSON Lines, as gpumon watch --format jsonl "
               "or gpumon run --output write them)";
    if (line[0] >= '0' && line[0] <= '9' && strstr(line, "  "))
        return " (this looks like gpumon watch's text output: record with --format jsonl for diagnose and report)";
    return "";
}

/* Reads the next non-empty line into sl (LOGREAD_RAW), or the end or a read error (LOGREAD_READY:
 * returns true). Reader thread, without the lock (the slot is not yet produced). */
static bool logread_read(struct logread *lr, struct logread_slot *sl)
{
    for (;;) {
        char *line, e[384];
        size_t len;
        bool complete;
        int got = logsrc_line(lr->src, &line, &len, &complete, e, sizeof e);
        if (got <= 0) {
            sl->status = got;
            if (got < 0)
                snprintf(sl->err, sizeof sl->err, "%s:%llu: %s", lr->path, lr->lineno + 1, e);
            else
                snprintf(sl->err, sizeof sl->err, "%s", logsrc_warning(lr->src) ? logsrc_warning(lr->src) : "");
            sl->state = LOGREAD_READY;
            return true;
        }
        lr->lineno++;
        if (len == 0)
            continue;
        logsrc_swap(lr->src, &sl->line, &sl->cap);   /* the line into the slot without a copy (padded alike) */
        sl->len = len;
        sl->complete = complete;
        sl->lineno = lr->lineno;
        sl->state = LOGREAD_RAW;
        return false;
    }
}

/* Parses a taken slot's line (either thread, without the lock). */
static void logread_slot_parse(struct logread *lr, struct logread_ctx *cx, struct logread_slot *sl)
{
    char e[384];
    if (logread_line(lr, cx, &sl->tree, sl->line, sl->len, &sl->rec, e, sizeof e) == 0) {
        sl->status = 1;
    } else if (!sl->complete) {   /* the last line, cut short: the end */
        sl->status = 0;
        snprintf(sl->err, sizeof sl->err, "%s:%llu: the last line is incomplete (%zu bytes, no newline; the writer "
                 "was probably killed) and was ignored", lr->path, sl->lineno, sl->len);
    } else {
        sl->status = -1;
        snprintf(sl->err, sizeof sl->err, "%.300s:%llu: %s%s", lr->path, sl->lineno, e, logread_hint(sl->line));
    }
}

/* The oldest produced slot no thread has taken, taken for the calling thread; NULL if none (under mu). */
static struct logread_slot *logread_take(struct logread *lr)
{
    for (unsigned long long i = lr->consumed; i < lr->produced; i++) {
        struct logread_slot *sl = &lr->slots[i % lr->nslots];
        if (sl->state == LOGREAD_RAW) {
            sl->state = LOGREAD_TAKEN;
            lr->raw--;
            return sl;
        }
    }
    return NULL;
}

/* Parses a slot taken under mu, and marks it ready (the lock is released meanwhile). */
static void logread_parse_taken(struct logread *lr, struct logread_ctx *cx, struct logread_slot *sl)
{
    pthread_mutex_unlock(&lr->mu);
    logread_slot_parse(lr, cx, sl);
    pthread_mutex_lock(&lr->mu);
    sl->state = LOGREAD_READY;
}

/* Whether a line can be read now: a free slot, the log not at its end, no thread reading (under mu). */
static bool logread_can_read(const struct logread *lr)
{
    return !lr->eof && !lr->reading && lr->produced + 1 < lr->consumed + lr->nslots;
}

/* Reads the next line into the next free slot, holding the log for it (called and returning under mu,
 * which it releases meanwhile); then wakes the other thread if it waits for work. */
static void logread_read_next(struct logread *lr)
{
    struct logread_slot *sl = &lr->slots[lr->produced % lr->nslots];
    lr->reading = true;
    pthread_mutex_unlock(&lr->mu);
    bool end = logread_read(lr, sl);
    pthread_mutex_lock(&lr->mu);
    lr->reading = false;
    lr->produced++;
    lr->eof = end;
    lr->raw += !end;
    if (lr->caller_waits)
        pthread_cond_signal(&lr->more);
    if (lr->reader_waits)
        pthread_cond_signal(&lr->room);
}

/* The reader thread: reads lines into free slots until the end or
 * logread_close, keeping a few read and not taken for the caller to take,
 * and parses the oldest line nobody has taken. A caller that waits has
 * nothing to parse or read: it is woken at once when there is. */
static void *logread_main(void *arg)
{
    struct logread *lr = arg;
    pthread_mutex_lock(&lr->mu);
    while (!lr->stop) {
        if (logread_can_read(lr) && lr->raw < LOGREAD_AHEAD) {   /* read ahead: a line is cheap next to its parse */
            logread_read_next(lr);
            continue;
        }
        struct logread_slot *sl = logread_take(lr);
        if (sl) {
            logread_parse_taken(lr, &lr->reader, sl);
            if (lr->caller_waits)
                pthread_cond_signal(&lr->more);
            continue;
        }
        if (logread_can_read(lr))
            continue;
        lr->reader_waits = true;   /* the ring is full of parsed lines, the log is read, or the caller reads */
        pthread_cond_wait(&lr->room, &lr->mu);
        lr->reader_waits = false;
    }
    pthread_mutex_unlock(&lr->mu);
    return NULL;
}

int logread_next(struct logread *lr, struct record *rec, char *err, size_t errlen)
{
    if (lr->threaded && !lr->started) {
        lr->started = pthread_create(&lr->thread, NULL, logread_main, lr) == 0;
        if (!lr->started) {   /* the caller reads it alone, as a log past logread_threads() */
            pthread_mutex_lock(&logread_thread_mu);
            logread_thread_used--;
            pthread_mutex_unlock(&logread_thread_mu);
            lr->threaded = false;
        }
    }
    pthread_mutex_lock(&lr->mu);
    if (lr->consumed > 0 && lr->slots[(lr->consumed - 1) % lr->nslots].status != 1) {
        struct logread_slot *last = &lr->slots[(lr->consumed - 1) % lr->nslots];
        pthread_mutex_unlock(&lr->mu);   /* called again after the end or an error */
        if (last->status < 0)
            snprintf(err, errlen, "%s", last->err);
        return last->status;
    }
    for (;;) {
        /* the slot held since the last call is free; wake a waiting reader once half the ring is */
        if (lr->reader_waits && !lr->eof && lr->consumed + lr->nslots - 1 - lr->produced >= lr->nslots / 2)
            pthread_cond_signal(&lr->room);
        struct logread_slot *sl = &lr->slots[lr->consumed % lr->nslots];
        while (lr->produced == lr->consumed || sl->state != LOGREAD_READY) {
            struct logread_slot *raw = logread_take(lr);
            if (raw) {   /* rather than wait, parse the oldest line nobody has taken */
                logread_parse_taken(lr, &lr->caller, raw);
                continue;
            }
            if (logread_can_read(lr)) {   /* or read one (the reader thread may have lost its core) */
                logread_read_next(lr);
                continue;
            }
            lr->caller_waits = true;
            pthread_cond_wait(&lr->more, &lr->mu);
            lr->caller_waits = false;
        }
        lr->consumed++;
        if (sl->status == 1) {
            bool back = sl->rec.time.tv_sec < lr->last.tv_sec ||
                        (sl->rec.time.tv_sec == lr->last.tv_sec && sl->rec.time.tv_nsec < lr->last.tv_nsec);
            if (back) {   /* the analysis needs time order: say what is left out, and where */
                if (lr->skipped++ == 0) {
                    lr->skip_line = sl->lineno;
                    lr->skip_t = sl->rec.time;
                    lr->skip_after = lr->last;
                }
                continue;
            }
            lr->last = sl->rec.time;
        }
        lr->end_seen = sl->status != 1;
        pthread_mutex_unlock(&lr->mu);
        if (sl->status == 1)
            *rec = sl->rec;
        else if (sl->status < 0)
            snprintf(err, errlen, "%s", sl->err);
        else if (sl->err[0]) {
            snprintf(lr->end_warning, sizeof lr->end_warning, "%s", sl->err);
            lr->end_warned = true;
        }
        return sl->status;
    }
}

const char *logread_warning(const struct logread *lr)
{
    return lr->end_warned ? lr->end_warning : NULL;
}

const char *logread_skipped(struct logread *lr)
{
    if (!lr->end_seen || lr->skipped == 0)
        return NULL;
    char a[32], b[32];
    util_rfc3339(&lr->skip_t, a);
    util_rfc3339(&lr->skip_after, b);
    snprintf(lr->skip_text, sizeof lr->skip_text, "%s: %llu record%s skipped: %s time goes back (the first at line "
             "%llu, %s, after %s); is an older log appended to this one? Diagnose each part on its own, or sort "
             "the lines by time", lr->path, lr->skipped, lr->skipped == 1 ? " was" : "s were",
             lr->skipped == 1 ? "its" : "their", lr->skip_line, a, b);
    return lr->skip_text;
}

void logread_close(struct logread *lr)
{
    if (!lr)
        return;
    if (lr->started) {
        pthread_mutex_lock(&lr->mu);
        lr->stop = true;
        pthread_cond_signal(&lr->room);
        pthread_mutex_unlock(&lr->mu);
        pthread_join(lr->thread, NULL);
    }
    if (lr->threaded) {   /* its place, whether it started or not */
        pthread_mutex_lock(&logread_thread_mu);
        logread_thread_used--;
        pthread_mutex_unlock(&logread_thread_mu);
    }
    logsrc_close(lr->src);
    for (unsigned i = 0; i < lr->nslots; i++) {
        logread_tree_free(&lr->slots[i].tree);
        free(lr->slots[i].line);
    }
    free(lr->slots);
    logread_tree_free(&lr->direct);
    struct logread_ctx *cx[2] = {&lr->reader, &lr->caller};
    for (int i = 0; i < 2; i++)
        if (cx[i]->simd)
            lr->simd_ops->close(cx[i]->simd);
    pthread_mutex_destroy(&lr->mu);
    pthread_cond_destroy(&lr->more);
    pthread_cond_destroy(&lr->room);
    free(lr->path);
    free(lr);
}
