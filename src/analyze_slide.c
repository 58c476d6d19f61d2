/*
 * analyze_slide.c: a GPU's window figures kept as points enter and leave
 * it, so that an evaluation costs the same whatever the window's length,
 * and gives exactly what a pass over the window's points gives.
 *
 * Each (column, gate) pair that analyze_fig.c's plan reduces whole keeps
 * its count, its newest value and, where a row wants them, its minimum and
 * maximum: each a deque of (value, point) whose front is the window's
 * extreme, the oldest of equals as a pass finds it first (a value replaces
 * an older identical one; +0 and -0 both stay). Its sum is kept exactly, as
 * a 128-bit fixed point in units of 2^-24: a pass adds the points in order
 * in doubles, which rounds nothing while every partial sum is a multiple
 * of the finest unit among the values (f fractional bits) no larger than
 * 2^(53 - f); the sum of the values' magnitudes bounds every partial sum,
 * so when it is under that, the pass's sum is the exact sum. Otherwise (a
 * value with more than 24 fractional bits, a huge one, sums too large)
 * analyze_fig.c adds the window's points up as before. The clock event
 * reasons are counts: points that have them, each reason, and each of the
 * plan's reason rows.
 *
 * A slope row's least-squares sums (of t, v, t*t, t*v, t from the window's
 * first time) are kept exactly too, where times and values are whole
 * numbers: each point's time T as whole seconds from the GPU's first time
 * (the difference exact: the two within a factor of two), its value whole,
 * both under 2^40; the window's sums of T, T*T, v, T*v and |v| in 128-bit
 * integers give the sums from the window's first time T0 (sum of t is
 * sum T - n T0, and so on). A pass adds whole numbers in doubles, which
 * rounds nothing while every partial sum stays under 2^53: bounded by
 * n span^2 (t*t), span sum|v| (t*v) and sum|v|, with span the window's
 * last time less its first; under those, the pass's sums are the exact
 * sums. A later slope (from the window's middle time on) keeps its own
 * sums from its oldest point, moved as the middle moves. Otherwise (a time
 * or value with a fraction, a sum too large) analyze_fig.c adds the
 * window's points up as before.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analyze_int.h"

#define ANALYZE_FIX 24   /* fractional bits of the fixed point (0x1p-24 below) */

/* x in units of 2^-ANALYZE_FIX, exactly, and the fractional bits it needs; false if it needs more, is
 * 2^62 or more, or is not finite. */
static bool analyze_fixed(float x, analyze_wide *out, unsigned *frac)
{
    if (!ANALYZE_EXACT_SUMS)
        return false;
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t e = (b >> 23) & 0xff, m = b & 0x7fffff;
    if (e == 0 && m == 0) {   /* +0 or -0 */
        *out = 0, *frac = 0;
        return true;
    }
    if (e == 0 || e == 0xff || e >= 127 + 62)   /* subnormal (126 fractional bits and more), huge, inf */
        return false;
    uint64_t mant = m | 0x800000u;
    int low = (int)e - 150 + __builtin_ctzll(mant);   /* the exponent of its lowest bit */
    if (low < -ANALYZE_FIX)
        return false;
    *frac = low >= 0 ? 0 : (unsigned)-low;
    int shift = (int)e - 150 + ANALYZE_FIX;
    analyze_wide v = shift >= 0 ? (analyze_wide)mant << shift : (analyze_wide)(mant >> -shift);   /* only zeros out */
    *out = b >> 31 ? -v : v;
    return true;
}

/* The deque's i-th entry from the front. */
static struct analyze_extreme *analyze_dq_at(struct analyze_deque *d, unsigned i)
{
    return &d->e[(d->head + i) & (d->cap - 1)];
}

static void analyze_dq_push(struct analyze_deque *d, double v, unsigned long long seq, bool want_min)
{
    while (d->n) {   /* drop what can no longer be the extreme, and an older identical value */
        const struct analyze_extreme *back = analyze_dq_at(d, d->n - 1);
        bool beaten = want_min ? back->v > v : back->v < v;
        if (!beaten && !(back->v == v && signbit(back->v) == signbit(v)))
            break;
        d->n--;
    }
    if (d->n == d->cap) {   /* grow, unrolling */
        unsigned cap = d->cap ? 2 * d->cap : 64;
        struct analyze_extreme *e = xmalloc(cap * sizeof *e);
        for (unsigned i = 0; i < d->n; i++)
            e[i] = *analyze_dq_at(d, i);
        free(d->e);
        d->e = e, d->cap = cap, d->head = 0;
    }
    *analyze_dq_at(d, d->n++) = (struct analyze_extreme){v, seq};
}

static void analyze_dq_pop(struct analyze_deque *d, unsigned long long seq)
{
    if (d->n && d->e[d->head].seq == seq)
        d->head = (d->head + 1) & (d->cap - 1), d->n--;
}

/* A point's time as whole seconds from base and its value, when both are whole numbers under 2^40 (and the
 * time within a factor of two of base, so that t - base is exact). */
static bool analyze_whole(double base, double t, float x, long long *T, long long *V)
{
    if (!(base > 0 && t >= base / 2 && t <= 2 * base))
        return false;
    double d = t - base, v = x;
    if (!(fabs(d) < 0x1p40 && fabs(v) < 0x1p40))
        return false;
    *T = (long long)d, *V = (long long)v;   /* whole: they convert back unchanged (no call to floor) */
    return (double)*T == d && (double)*V == v;
}

/* Point p (of GPU base's) enters (dir 1) or leaves (-1) slope row k's sums, if both its columns are known. */
static void analyze_slope_add(const struct analyze_plan *pl, unsigned k, double base, struct analyze_slope_sums *ss,
                              const struct analyze_point *p, int dir)
{
    if (isnan(p->v[pl->slope_col[k]]) || isnan(p->v[pl->slope_gate[k]]))
        return;
    long long T, V;
    ss->n += dir;
    if (!ANALYZE_EXACT_SUMS || !analyze_whole(base, p->t, p->v[pl->slope_col[k]], &T, &V)) {
        ss->bad += dir;
        return;
    }
    analyze_wide t = T, v = V;
    ss->t += dir * t;
    ss->tt += dir * t * t;
    ss->v += dir * v;
    ss->tv += dir * t * v;
    ss->av += dir * (v < 0 ? -v : v);
}

bool analyze_slide_slope(const struct analyze_plan *pl, struct analyze_gpu *g, unsigned k, double t0, double tlast,
                         double half, struct analyze_acc *acc)
{
    if (!ANALYZE_EXACT_SUMS || k >= ANALYZE_PLAN_SLOPES)
        return false;
    struct analyze_slide *s = &g->slide;
    struct analyze_slope_sums *ss = &s->slope[k];
    if (pl->slope_later[k]) {   /* the points from half on: a suffix of the window (its times never go back) */
        while (ss->front < g->seq_in && analyze_at(g, (unsigned)(ss->front - g->seq_out))->t < half)
            analyze_slope_add(pl, k, s->base, ss, analyze_at(g, (unsigned)(ss->front++ - g->seq_out)), -1);
        while (ss->front > g->seq_out && analyze_at(g, (unsigned)(ss->front - 1 - g->seq_out))->t >= half)
            analyze_slope_add(pl, k, s->base, ss, analyze_at(g, (unsigned)(--ss->front - g->seq_out)), +1);
    }
    long long T0, Tl, V;
    if (ss->bad || !analyze_whole(s->base, t0, 0, &T0, &V) || !analyze_whole(s->base, tlast, 0, &Tl, &V))
        return false;
    analyze_wide n = ss->n, span = Tl - T0, lim = (analyze_wide)1 << 53;
    if (ss->av >= lim || n * span * span >= lim || span * ss->av >= lim)
        return false;
    /* each under 2^53 in magnitude now: through long long, exactly, without a 128-bit conversion */
    acc->n = (double)ss->n;
    acc->st = (double)(long long)(ss->t - n * T0);
    acc->sv = (double)(long long)ss->v;
    acc->stt = (double)(long long)(ss->tt - 2 * T0 * ss->t + n * T0 * T0);
    acc->stv = (double)(long long)(ss->tv - T0 * ss->v);
    return true;
}

void analyze_slide(const struct analyze_plan *pl, struct analyze_gpu *g, const struct analyze_point *p,
                   unsigned long long seq, int dir)
{
    struct analyze_slide *s = &g->slide;
    if (!s->based)
        s->base = p->t, s->based = true;   /* once: a point leaves as it entered */
    for (unsigned k = 0; k < pl->nslopes && k < ANALYZE_PLAN_SLOPES; k++) {
        struct analyze_slope_sums *ss = &s->slope[k];
        if (!pl->slope_later[k] || dir > 0) {
            analyze_slope_add(pl, k, s->base, ss, p, dir);
        } else if (ss->front == seq) {   /* it leaves the later slope too, if still in it */
            analyze_slope_add(pl, k, s->base, ss, p, dir);
            ss->front++;
        }
    }
    for (unsigned k = 0; k < pl->nwhole; k++) {
        float x = p->v[pl->col[k]];
        if (isnan(x) || isnan(p->v[pl->gate[k]]))
            continue;
        struct analyze_wpair *w = &s->pair[k];
        analyze_wide fx;
        unsigned frac;
        if (!pl->want_sum[k]) {
            /* no row reads its sum (analyze_slide_sum is for those that do) */
        } else if (!analyze_fixed(x, &fx, &frac)) {
            w->bad += dir;
        } else {
            analyze_wide mag = fx < 0 ? -fx : fx;
            w->sum += dir > 0 ? fx : -fx;
            w->abs += dir > 0 ? mag : -mag;
            if ((w->frac[frac] += dir) == 0)
                w->fmask &= ~(1u << frac);
            else
                w->fmask |= 1u << frac;
        }
        w->n += dir;
        if (dir > 0) {
            w->last = x;
            if (pl->want_min[k])
                analyze_dq_push(&w->min, x, seq, true);
            if (pl->want_max[k])
                analyze_dq_push(&w->max, x, seq, false);
        } else {
            analyze_dq_pop(&w->min, seq);
            analyze_dq_pop(&w->max, seq);
        }
    }
    if (p->reasons >= 0) {
        s->rknown += dir;
        if (p->reasons) {
            unsigned long long bits = (unsigned long long)p->reasons;
            for (int r = 0; r < CLOCK_REASON_COUNT; r++)
                s->reason[r] += dir * ((bits & clock_reasons[r].bit) != 0);
            for (unsigned r = 0; r < pl->nreasons; r++)
                s->rrow[r] += dir * ((bits & pl->reason_mask[r]) != 0);
        }
    }
}

bool analyze_slide_sum(const struct analyze_wpair *w, double *sum)
{
#if !ANALYZE_EXACT_SUMS
    (void)w, (void)sum;
    return false;
#else
    if (w->bad)
        return false;
    unsigned f = w->fmask ? 31u - (unsigned)__builtin_clz(w->fmask) : 0;   /* the finest unit among them */
    if (w->abs >= (analyze_wide)1 << (53 + ANALYZE_FIX - f))
        return false;
    /* exact: the sum's bits span at most 53 (above), so each 64-bit half converts exactly, their sum is
     * the value itself, and 2^-24 (ANALYZE_FIX) is a power of two. In halves rather than as one 128-bit
     * conversion: that is libgcc's __floattidf, linked at the very end of the binary, where its page
     * alone would keep a 64 kB neighbourhood of code no sampler or rule uses resident (fault-around). */
    analyze_wide m = w->sum < 0 ? -w->sum : w->sum;
    double v = (double)(unsigned long long)(m >> 64) * 0x1p64 + (double)(unsigned long long)m;
    *sum = (w->sum < 0 ? -v : v) * 0x1p-24;
    return true;
#endif
}

void analyze_slide_free(struct analyze_gpu *g)
{
    for (unsigned k = 0; k < ANALYZE_PLAN_PAIRS; k++) {
        free(g->slide.pair[k].min.e);
        free(g->slide.pair[k].max.e);
    }
}
