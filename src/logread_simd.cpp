/*
 * logread_simd.cpp: a log line parsed with simdjson into the record that
 * the cJSON path (logread_tree.c) reads from it (see logread_simd.h), or
 * declined.
 *
 * simdjson's DOM parser validates the whole line (strict JSON, UTF-8) at
 * over 1 GB/s; its On-Demand API would skip what it is not asked for
 * without validating it, so a line cJSON refuses could read here, and
 * reading every key (a record needs nearly all) it was slower on these
 * lines. The walk below mirrors logread_tree.c and logread_steps.c: the
 * first occurrence of a key where they look one up (logread_item), the
 * last of "errors", "processes", "xids" and "jobs", keys compared as C
 * strings (cJSON's keys end at an escaped NUL), every number as the double
 * cJSON would hold (strtod and simdjson both round correctly). Values
 * convert through the same functions (logread_convert, logread_value.c).
 * Whatever cJSON would refuse, or might read otherwise, is declined: an
 * error of any kind, nesting deeper than 64 (cJSON allows 1000), a number
 * of 64 characters or more (older cJSON reads 63 and fails), a CR after
 * the record (the cJSON path allows only spaces and tabs there), an
 * integer -0 where the sign of a float would survive (simdjson reads it as
 * the integer 0).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <simdjson.h>

extern "C" {   /* a C header: its system headers are included above, outside this block */
#include "logread.h"
}
#include "logread_simd.h"

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

namespace {

constexpr int KEY_CACHE = 128;               /* as logread_tree.c's: keys by position in their object */
constexpr long long MAX_INDEX = 65535;
constexpr size_t MAX_DEPTH = 64;
constexpr size_t MIN_CAPACITY = 64 << 10;

struct alignas(64) key_slot {                /* one cache line: the walk reads one per key */
    char key[56];
    uint32_t len;
    int16_t id;
    uint8_t flags;                           /* the id's logread_key_flags (they fit a byte) */
    bool scalar;                             /* a metric of the object's scope, not "index": converted */
};
static_assert(sizeof(key_slot) == 64, "a key slot is a cache line");

/* One line's parse. */
struct line_state {
    const char *line;
    size_t len;
    int minus_zero;                          /* the line holds an integer -0: -1 not looked yet */
    char *strs;
    size_t used;
};

/* Bytes cJSON's number reader takes: [0-9+-.eE]. */
struct number_chars {
    bool is[256];
    constexpr number_chars() : is()
    {
        for (int c = '0'; c <= '9'; c++)
            is[c] = true;
        is[static_cast<unsigned char>('+')] = is[static_cast<unsigned char>('-')] = true;
        is[static_cast<unsigned char>('.')] = is[static_cast<unsigned char>('e')] = true;
        is[static_cast<unsigned char>('E')] = true;
    }
};
constexpr number_chars numch;

/* cJSON before Debian's fix of CVE-2023-26819 (1.7.15-1+deb12u3) reads at most 63 characters of a number
 * and then fails on the rest: a run of 64 or more number characters (which always holds an aligned block
 * of 32) is left to cJSON, whichever version it is. */
bool long_number(const char *s, size_t len)
{
    for (size_t b = 0; b + 32 <= len; b += 32) {
        if (!numch.is[static_cast<unsigned char>(s[b])])
            continue;
        size_t k = 1;
        while (k < 32 && numch.is[static_cast<unsigned char>(s[b + k])])
            k++;
        if (k == 32)
            return true;
    }
    return false;
}

/* After the record, the cJSON path (logread_tree.c) allows spaces and tabs only; simdjson also CR and LF. */
bool trailing_newline(const char *s, size_t len)
{
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n')) {
        if (s[len - 1] == '\r' || s[len - 1] == '\n')
            return true;
        len--;
    }
    return false;
}

/* Whether the line holds "-0" not followed by a fraction or exponent (maybe inside a string: then the
 * line is declined for nothing, which costs only time). */
bool has_minus_zero(line_state &st)
{
    if (st.minus_zero < 0) {
        st.minus_zero = 0;
        const char *end = st.line + st.len;
        for (const char *p = st.line; p < end; p++) {
            p = static_cast<const char *>(memchr(p, '-', static_cast<size_t>(end - p)));
            if (!p)
                break;
            char c = p[2];   /* at most the line's NUL, or its padding */
            if (p[1] == '0' && c != '.' && c != 'e' && c != 'E' && !(c >= '0' && c <= '9')) {
                st.minus_zero = 1;
                break;
            }
        }
    }
    return st.minus_zero == 1;
}

/* An array or object element as such (the caller checked its type): a copy, not a reference into the
 * temporary result. */
simdjson::dom::array as_array(element e)
{
    return e.get_array().value_unsafe();
}

object as_object(element e)
{
    return e.get_object().value_unsafe();
}

bool is_number(element e)
{
    element_type t = e.type();
    return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

/* The double cJSON holds for a number (strtod's); false to decline. signed_zero: the sign of a zero
 * survives where this number goes. */
bool number(line_state &st, element e, double &x, bool signed_zero)
{
    switch (e.type()) {
    case element_type::INT64: {
        int64_t i = e.get_int64().value_unsafe();
        if (i == 0 && signed_zero && has_minus_zero(st))
            return false;
        x = static_cast<double>(i);
        return true;
    }
    case element_type::UINT64:
        x = static_cast<double>(e.get_uint64().value_unsafe());
        return true;
    case element_type::DOUBLE:
        x = e.get_double().value_unsafe();
        return true;
    default:
        return false;
    }
}

/* logread_int: an integral number of at most 2^53 in magnitude. */
bool integer(line_state &st, const element *e, long long &out)
{
    double x;
    if (!e || !number(st, *e, x, false) || x != floor(x) || fabs(x) > 9.007199254740992e15)
        return false;
    out = static_cast<long long>(x);
    return true;
}

/* A string value as the C string cJSON holds (it ends at an escaped NUL). */
const char *c_str(element e)
{
    return e.type() == element_type::STRING ? e.get_c_str().value_unsafe() : nullptr;
}

/* A copy in the record's string buffer; nullptr if it would not fit (never: a line's strings fit). */
const char *keep(line_state &st, const char *s)
{
    size_t n = strlen(s) + 1;
    if (st.used + n > st.len + 1)
        return nullptr;
    char *p = st.strs + st.used;
    memcpy(p, s, n);
    st.used += n;
    return p;
}

/* The first members of obj named by keys (logread_item's), into found. */
template <size_t N>
void first_of(object obj, const char *const (&keys)[N], const element *(&found)[N], element (&store)[N])
{
    for (size_t i = 0; i < N; i++)
        found[i] = nullptr;
    for (auto it = obj.begin(), end = obj.end(); it != end; ++it) {   /* end once: it reads the tape */
        const char *k = it.key_c_str();
        for (size_t i = 0; i < N; i++)
            if (!found[i] && !strcmp(k, keys[i])) {
                store[i] = it.value();
                found[i] = &store[i];
                break;
            }
    }
}

}   // namespace

struct logread_simd {
    simdjson::dom::parser parser;
    key_slot host_keys[KEY_CACHE], gpu_keys[KEY_CACHE];
    unsigned char flags[RECORD_MAX_METRICS];   /* logread_key_flags of each metric id (they fit a byte) */
    int index_id;
};

namespace {

/* Whether n bytes at a and b are the same: words compared together, one branch for a key of up to 32
 * bytes, inline (keys are some 20 bytes, and every record has hundreds); nothing past the n bytes read. */
inline uint64_t word_at(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

inline bool same_bytes(const char *a, const char *b, size_t n)
{
    if (n < 8) {
        uint32_t x, y, u, w;
        if (n < 4) {
            for (; n > 0; a++, b++, n--)
                if (*a != *b)
                    return false;
            return true;
        }
        memcpy(&x, a, 4), memcpy(&y, b, 4), memcpy(&u, a + n - 4, 4), memcpy(&w, b + n - 4, 4);
        return ((x ^ y) | (u ^ w)) == 0;   /* the first and the last four bytes, overlapping */
    }
    if (n < 16)   /* the first and the last word, overlapping */
        return ((word_at(a) ^ word_at(b)) | (word_at(a + n - 8) ^ word_at(b + n - 8))) == 0;
    for (; n > 32; a += 16, b += 16, n -= 16)
        if ((word_at(a) ^ word_at(b)) | (word_at(a + 8) ^ word_at(b + 8)))
            return false;
    /* 16 to 32 bytes: the first two words and the last two, overlapping */
    return ((word_at(a) ^ word_at(b)) | (word_at(a + 8) ^ word_at(b + 8)) | (word_at(a + n - 16) ^ word_at(b + n - 16)) |
            (word_at(a + n - 8) ^ word_at(b + n - 8))) == 0;
}

/* The pos-th key of an object (host's or a GPU's) as its slot: id (logread_tree.c's logread_key_id, with the
 * length compared first), flags and what becomes of its value, worked out when the key is first met at
 * that position (a key of 64 bytes or more, or past the cache, in *spare). */
const key_slot *key_of(const logread_simd *p, key_slot *cache, bool host, size_t pos, const object::iterator &it,
                       key_slot *spare)
{
    key_slot *c = pos < KEY_CACHE ? &cache[pos] : nullptr;
    size_t len = it.key_length();
    const char *k = it.key_c_str();
    if (c && c->id != LOGREAD_KEY_EMPTY && c->len == len && same_bytes(c->key, k, len))
        return c;   /* the same bytes, none of them NUL: the same C string */
    int id = logread_key(k);
    size_t n = strlen(k);
    if (!c || n >= sizeof c->key)
        c = spare;
    else
        memcpy(c->key, k, n + 1);
    c->len = static_cast<uint32_t>(n);
    c->id = static_cast<int16_t>(id);
    c->flags = static_cast<uint8_t>(id >= 0 && id < RECORD_MAX_METRICS ? p->flags[id] : logread_key_flags(id));
    c->scalar = id >= 0 && ((c->flags & LOGREAD_KF_HOST) != 0) == host && !(c->flags & LOGREAD_KF_INDEX);
    return c;
}

/* One value of metric id (its logread_key_flags) into v, as the cJSON path converts it. */
bool scalar(line_state &st, unsigned flags, element e, struct value *v)
{
    enum logread_json t;
    double x = 0;
    const char *s = nullptr;
    switch (e.type()) {
    case element_type::NULL_VALUE: t = LJ_NULL; break;
    case element_type::BOOL:
        t = e.get_bool().value_unsafe() ? LJ_TRUE : LJ_FALSE;
        if (LOGREAD_KF_KIND(flags) == LK_FLAG) {   /* logread_convert's answer, without it */
            *v = {};
            v->state = VS_OK;
            v->u.i = t == LJ_TRUE;
            return true;
        }
        break;
    case element_type::INT64: {   /* number()'s conversions, the type known */
        int64_t i = e.get_int64().value_unsafe();
        if ((LOGREAD_KF_KIND(flags) == LK_INT || LOGREAD_KF_KIND(flags) == LK_HEX) && i > -(INT64_C(1) << 53) &&
            i < (INT64_C(1) << 53)) {   /* most values: logread_convert's answer, the double exact, without it */
            *v = {};
            v->state = VS_OK;
            v->u.i = i;
            return true;
        }
        if (i == 0 && LOGREAD_KF_KIND(flags) == LK_FLOAT && has_minus_zero(st))   /* a float's zero keeps its sign */
            return false;
        x = static_cast<double>(i);
        t = LJ_WHOLE;   /* an integer of 64 bits: its double is whole too */
        break;
    }
    case element_type::UINT64:
        x = static_cast<double>(e.get_uint64().value_unsafe());
        t = LJ_WHOLE;
        break;
    case element_type::DOUBLE:
        x = e.get_double().value_unsafe();
        t = LJ_NUMBER;
        if (LOGREAD_KF_KIND(flags) == LK_FLOAT && std::isfinite(x)) {   /* logread_convert's answer, without it */
            *v = {};
            v->state = VS_OK;
            v->u.f = x;
            return true;
        }
        break;
    case element_type::STRING:
        s = c_str(e);   /* a string value is kept: the record's own copy */
        if (LOGREAD_KF_KIND(flags) == LK_STR && !(s = keep(st, s)))
            return false;
        t = LJ_STRING;
        break;
    default: t = LJ_OTHER; break;
    }
    return logread_convert(flags, t, x, s, v) == nullptr;
}

struct extras {
    element index, errors, processes, xids, jobs;
    bool has_index = false, has_errors = false, has_processes = false, has_xids = false, has_jobs = false;
};

/* The metric keys of obj into vals (logread_metrics); a GPU object notes its other members and its first
 * "index" in ex. */
bool metrics(logread_simd *p, line_state &st, object obj, bool host, struct value *vals, extras *ex)
{
    size_t pos = 0;
    key_slot *cache = host ? p->host_keys : p->gpu_keys, spare;
    for (auto it = obj.begin(), end = obj.end(); it != end; ++it) {   /* end once: it reads the tape */
        const key_slot *k = key_of(p, cache, host, pos++, it, &spare);
        if (k->scalar) {   /* most keys */
            if (!scalar(st, k->flags, it.value(), &vals[k->id]))
                return false;
            continue;
        }
        int id = k->id;
        if (ex && id == p->index_id && !ex->has_index) {
            ex->index = it.value();
            ex->has_index = true;
        }
        if (id < 0) {
            if (ex) {
                switch (id) {
                case LOGREAD_KEY_ERRORS: ex->errors = it.value(), ex->has_errors = true; break;
                case LOGREAD_KEY_PROCESSES: ex->processes = it.value(), ex->has_processes = true; break;
                case LOGREAD_KEY_XIDS: ex->xids = it.value(), ex->has_xids = true; break;
                case LOGREAD_KEY_JOBS: ex->jobs = it.value(), ex->has_jobs = true; break;
                default: break;
                }
            }
            continue;
        }
    }
    return true;
}

bool errors_map(line_state &st, element errs, struct value *vals)
{
    if (errs.type() != element_type::OBJECT)
        return false;
    object o = as_object(errs);
    for (auto it = o.begin(), end = o.end(); it != end; ++it) {
        int id = logread_error_metric(it.key_c_str());
        if (id < 0)
            continue;
        element e = it.value();
        long long code;
        if (e.type() == element_type::STRING) {
            code = logread_error_text(c_str(e));
        } else {
            static const char *const keys[] = {"code"};
            const element *found[1];
            element store[1];
            if (e.type() != element_type::OBJECT)
                return false;
            first_of(as_object(e), keys, found, store);
            if (!integer(st, found[0], code) || code < 0 || code > 0x7fffffff)
                return false;
        }
        logread_error_apply(vals, id, code);
    }
    return true;
}

bool procs(line_state &st, element arr, struct record_gpu *g)
{
    if (arr.type() != element_type::ARRAY)
        return false;
    static const char *const keys[] = {"pid", "used_memory", "name", "user", "container", "pod", "notebook", "server"};
    for (element p : as_array(arr)) {
        const element *f[8] = {};
        element store[8];
        if (p.type() == element_type::OBJECT)
            first_of(as_object(p), keys, f, store);
        long long pid, mem;
        if (!integer(st, f[0], pid) || pid < 0)
            return false;
        if (g->nprocs == RECORD_MAX_PROCS)
            continue;
        struct record_proc *rp = &g->procs[g->nprocs++];
        rp->pid = static_cast<unsigned>(pid);
        rp->kinds = 0;
        rp->used_mib = integer(st, f[1], mem) ? mem : -1;
        const char *name = f[2] ? c_str(*f[2]) : nullptr, *user = f[3] ? c_str(*f[3]) : nullptr;
        const char *ctr = f[4] ? c_str(*f[4]) : nullptr, *pod = f[5] ? c_str(*f[5]) : nullptr;
        snprintf(rp->name, sizeof rp->name, "%s", name ? name : "");
        snprintf(rp->user, sizeof rp->user, "%s", user ? user : "");
        snprintf(rp->container, sizeof rp->container, "%s", ctr ? ctr : "");
        snprintf(rp->pod, sizeof rp->pod, "%s", pod ? pod : "");
        rp->notebook = f[6] && f[6]->type() == element_type::BOOL && f[6]->get_bool().value_unsafe();
        rp->server = f[7] && f[7]->type() == element_type::BOOL && f[7]->get_bool().value_unsafe();
    }
    return true;
}

bool xids(line_state &st, element arr, struct record_gpu *g)
{
    if (arr.type() != element_type::ARRAY)
        return false;
    static const char *const keys[] = {"code", "last_seen", "count"};
    for (element x : as_array(arr)) {
        const element *f[3] = {};
        element store[3];
        if (x.type() == element_type::OBJECT)
            first_of(as_object(x), keys, f, store);
        const char *last = f[1] ? c_str(*f[1]) : nullptr;
        struct record_xid rx = {};
        long long code, count;
        if (!integer(st, f[0], code) || code < 0 || (last && logread_parse_time(last, &rx.last) != 0))
            return false;
        rx.code = static_cast<unsigned>(code);
        rx.count = integer(st, f[2], count) && count > 0 ? static_cast<unsigned long long>(count) : 1;
        if (g->nxids < RECORD_MAX_XIDS)
            g->xids[g->nxids++] = rx;
    }
    return true;
}

bool jobs(element arr, struct record_gpu *g)
{
    if (arr.type() != element_type::ARRAY)
        return false;
    for (element j : as_array(arr)) {
        const char *id = c_str(j);
        if (!id || !id[0] || strlen(id) > 63)
            return false;
        if (g->njobs < RECORD_MAX_JOBS)
            snprintf(g->jobs[g->njobs++], sizeof g->jobs[0], "%s", id);
    }
    return true;
}

bool gpu(logread_simd *p, line_state &st, object obj, struct record_gpu *g)
{
    /* logread_tree.c reads "index" first, then the metrics: it comes first in a record, but any order reads
     * alike, as every failure declines the line */
    extras ex;
    long long idx;
    memset(g->v, 0, sizeof g->v);
    g->nprocs = g->procs_omitted = g->nxids = g->njobs = 0;
    if (!metrics(p, st, obj, false, g->v, &ex) || !integer(st, ex.has_index ? &ex.index : nullptr, idx) ||
        idx < 0 || idx > MAX_INDEX)
        return false;
    g->index = static_cast<unsigned>(idx);
    g->v[p->index_id] = {};   /* before the errors map, which may name "index" too */
    g->v[p->index_id].state = VS_OK;
    g->v[p->index_id].u.i = g->index;
    return (!ex.has_errors || errors_map(st, ex.errors, g->v)) && (!ex.has_processes || procs(st, ex.processes, g)) &&
           (!ex.has_xids || xids(st, ex.xids, g)) && (!ex.has_jobs || jobs(ex.jobs, g));
}

/* logread_num: seconds from 0 to a year, else NAN. */
double seconds(line_state &st, const element *e, bool &ok)
{
    double x;
    if (!e || !is_number(*e))
        return NAN;
    if (!number(st, *e, x, true)) {
        ok = false;
        return NAN;
    }
    return x >= 0 && x <= 3.2e7 ? x : NAN;
}

/* logread_id: -1 for null or absent, else an integer from 0. */
int rank_id(line_state &st, const element *e, bool &ok)
{
    long long v = 0;
    if (!e || e->type() == element_type::NULL_VALUE)
        return -1;
    if (!integer(st, e, v) || v < 0 || v > 0x7fffffff)
        ok = false;
    return ok ? static_cast<int>(v) : -1;
}

/* A count of dropped or bad entries: a number from 0 (exclusive) to 1.8e19 (exclusive), else 0. */
unsigned long long tally(line_state &st, const element *e, bool &ok)
{
    double x;
    if (!e || !is_number(*e))
        return 0;
    if (!number(st, *e, x, false)) {
        ok = false;
        return 0;
    }
    return x > 0 && x < 1.8e19 ? static_cast<unsigned long long>(x) : 0;
}

/* One entry of "steps" (logread_steps.c's logread_rank). */
bool rank(line_state &st, element o, struct record_rank *k)
{
    static const char *const keys[] = {"pid", "rank", "local_rank", "world_size", "phase", "n", "batches",
                                       "waited", "step_s", "wait_s", "in_wait_s", "in_compute_s", "unwait_s",
                                       "dropped", "bad", "hist"};
    static const char *const phases[] = {"none", "wait", "compute", "out"};
    const element *f[16] = {};
    element store[16];
    long long v;
    bool ok = true;
    memset(k, 0, sizeof *k);
    if (o.type() != element_type::OBJECT)
        return false;
    first_of(as_object(o), keys, f, store);
    if (!integer(st, f[0], v) || v <= 0 || v > 0x7fffffff)
        return false;
    k->pid = static_cast<int>(v);
    k->rank = rank_id(st, f[1], ok);
    k->local_rank = rank_id(st, f[2], ok);
    k->world = rank_id(st, f[3], ok);
    const char *ph = f[4] ? c_str(*f[4]) : nullptr;
    for (unsigned i = 0; ph && i < 4; i++)
        if (!strcmp(ph, phases[i]))
            k->phase = static_cast<uint8_t>(i);
    unsigned *const counts[] = {&k->steps, &k->batches, &k->waited};
    for (int i = 0; i < 3 && ok; i++) {
        ok = integer(st, f[5 + i], v) && v >= 0 && v <= 0xffffffffll;
        if (ok)
            *counts[i] = static_cast<unsigned>(v);
    }
    double *const sums[] = {&k->step_s, &k->wait_s, &k->in_wait_s, &k->in_compute_s};
    for (int i = 0; i < 4 && ok; i++)
        ok = !isnan(*sums[i] = seconds(st, f[8 + i], ok)) && ok;
    k->unwait_s = f[12] ? seconds(st, f[12], ok) : 0;
    ok = ok && !isnan(k->unwait_s);
    k->dropped = tally(st, f[13], ok);
    k->bad = tally(st, f[14], ok);
    if (!ok || k->waited > k->steps)
        return false;
    if (!f[15])
        return true;
    if (f[15]->type() != element_type::ARRAY)
        return false;
    for (element pair : as_array(*f[15])) {
        long long bin, n;
        if (pair.type() != element_type::ARRAY)
            return false;
        element two[2];
        size_t count = 0;
        for (element x : as_array(pair))
            if (count++ < 2)
                two[count - 1] = x;
        if (count != 2 || !integer(st, &two[0], bin) || !integer(st, &two[1], n) || bin < 0 ||
            bin >= RECORD_STEP_NBINS || n < 0 || n > 0xffffffffll)
            return false;
        if (k->nbins < RECORD_STEP_BINS) {
            k->bins[k->nbins].bin = static_cast<uint16_t>(bin);
            k->bins[k->nbins++].n = static_cast<uint32_t>(n);
        }
    }
    return true;
}

bool steps(line_state &st, element arr, struct record_rank *store, struct record *rec)
{
    if (arr.type() != element_type::ARRAY)
        return false;
    for (element o : as_array(arr)) {
        struct record_rank k;
        if (!rank(st, o, &k))
            return false;
        for (unsigned j = 0; j < rec->nranks; j++)
            if (store[j].pid == k.pid)
                return false;
        if (rec->nranks < RECORD_MAX_RANKS)
            store[rec->nranks++] = k;
    }
    rec->ranks = rec->nranks ? store : nullptr;
    return true;
}

int parse_line(logread_simd *p, const char *line, size_t len, struct logread_simd_out *out, struct record *rec)
{
    if (len > p->parser.capacity()) {
        size_t want = len > 2 * p->parser.capacity() ? len : 2 * p->parser.capacity();
        if (p->parser.allocate(want, MAX_DEPTH))
            return 0;
    }
    element root;
    if (p->parser.parse(line, len, false).get(root) || root.type() != element_type::OBJECT ||
        trailing_newline(line, len) || long_number(line, len))
        return 0;
    line_state st = {line, len, -1, out->strs, 0};
    static const char *const keys[] = {"timestamp", "gpus", "host", "hostname", "steps"};
    const element *f[5];
    element store[5];
    first_of(as_object(root), keys, f, store);
    if (!f[0] || f[0]->type() != element_type::STRING || !f[1] || f[1]->type() != element_type::ARRAY)
        return 0;
    memset(rec, 0, sizeof *rec);
    if (logread_parse_time(c_str(*f[0]), &rec->time) != 0)
        return 0;
    const char *hn = f[3] ? c_str(*f[3]) : nullptr;
    if (!(rec->hostname = hn ? keep(st, hn) : "") || (f[2] && f[2]->type() != element_type::OBJECT))
        return 0;
    if (f[2] && !metrics(p, st, as_object(*f[2]), true, rec->host, nullptr))
        return 0;
    simdjson::dom::array gpus = as_array(*f[1]);
    size_t n = 0;
    for (element g : gpus) {
        if (g.type() != element_type::OBJECT)
            return 0;
        n++;
    }
    if (n > out->gcap) {
        void *grown = realloc(out->gpus, n * sizeof *out->gpus);
        if (!grown)
            return 0;
        out->gpus = static_cast<struct record_gpu *>(grown);
        out->gcap = static_cast<unsigned>(n);
    }
    size_t i = 0;
    for (element g : gpus) {
        if (!gpu(p, st, as_object(g), &out->gpus[i]))
            return 0;
        for (size_t k = 0; k < i; k++)
            if (out->gpus[k].index == out->gpus[i].index)
                return 0;
        i++;
    }
    rec->ngpus = static_cast<unsigned>(n);
    rec->gpus = out->gpus;
    return !f[4] || steps(st, *f[4], out->ranks, rec) ? 1 : 0;
}

const char *simd_library()
{
    static char name[96];
    if (!name[0])
        snprintf(name, sizeof name, "simdjson %d.%d.%d (%s)", static_cast<int>(simdjson::SIMDJSON_VERSION_MAJOR),
                 static_cast<int>(simdjson::SIMDJSON_VERSION_MINOR),
                 static_cast<int>(simdjson::SIMDJSON_VERSION_REVISION),
                 std::string(simdjson::get_active_implementation()->name()).c_str());
    return name;
}

struct logread_simd *simd_open()
{
    logread_simd *p = new (std::nothrow) logread_simd();
    if (!p)
        return nullptr;
    if (p->parser.allocate(MIN_CAPACITY, MAX_DEPTH)) {
        delete p;
        return nullptr;
    }
    for (int i = 0; i < KEY_CACHE; i++)
        p->host_keys[i].id = p->gpu_keys[i].id = LOGREAD_KEY_EMPTY;
    p->index_id = logread_key("index");
    for (int id = 0; id < RECORD_MAX_METRICS; id++)
        p->flags[id] = static_cast<unsigned char>(logread_key_flags(id));
    return p;
}

void simd_close(struct logread_simd *p)
{
    delete p;
}

int simd_parse(struct logread_simd *p, const char *line, size_t len, struct logread_simd_out *out, struct record *rec)
{
    try {
        return parse_line(p, line, len, out, rec);
    } catch (...) {   /* nothing here throws; an exception must not cross into C */
        return 0;
    }
}

}   // namespace

extern "C" const struct logread_simd_ops logread_simd_table = {
    GPUMON_VERSION, sizeof(struct record), sizeof(struct record_gpu), sizeof(struct record_rank),
    simd_library, simd_open, simd_close, simd_parse,
};
