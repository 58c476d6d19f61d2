/*
 * sim_signal.c: waveforms, seeded noise and trace interpolation.
 *
 * Every term is a closed-form function of time, so any instant can be
 * evaluated without history: const, square (high for the first `duty` of
 * each period), sine, saw (low to high, then back to low), ramp (hold,
 * linear, hold), step, noise (uniform in [-amp, amp], constant within one
 * bucket) and trace (piecewise linear between CSV points, holding the first
 * and last values outside them). Monotonic counters and clamping are done
 * by the caller.
 */
#include "sim_signal.h"

#include <math.h>

unsigned long long sim_signal_hash(unsigned long long seed, unsigned int gpu, unsigned int key,
                                   long long bucket)
{
    unsigned long long x = seed ^ 0x9E3779B97F4A7C15ull;
    unsigned long long parts[3] = { gpu, key, (unsigned long long)bucket };

    for (int i = 0; i < 3; i++) {
        x += parts[i] + 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        x ^= x >> 31;
    }
    return x;
}

static double signal_trace(const struct sim_trace *tr, double t)
{
    size_t lo = 0, hi;

    if (!tr || tr->n == 0)
        return 0.0;
    if (t <= tr->t[0])
        return tr->v[0];
    if (t >= tr->t[tr->n - 1])
        return tr->v[tr->n - 1];
    hi = tr->n - 1;
    while (hi - lo > 1) {                 /* t[lo] < t < t[hi] */
        size_t mid = lo + (hi - lo) / 2;
        if (tr->t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (tr->t[hi] <= tr->t[lo])
        return tr->v[hi];
    return tr->v[lo] + (tr->v[hi] - tr->v[lo]) * (t - tr->t[lo]) / (tr->t[hi] - tr->t[lo]);
}

static double signal_term(const struct sim_term *term, double t, unsigned long long seed, unsigned int gpu,
                          unsigned int key, long long t_us, long long bucket_us, int index)
{
    const double *a = term->a;
    double ph;

    switch (term->kind) {
    case SIM_TERM_CONST:
        return a[0];
    case SIM_TERM_SQUARE:
        ph = fmod(t, a[2]) / a[2];
        return ph < a[3] ? a[1] : a[0];
    case SIM_TERM_SINE:
        return a[0] + a[1] * sin(2.0 * M_PI * t / a[2]);
    case SIM_TERM_SAW:
        ph = fmod(t, a[2]) / a[2];
        return a[0] + (a[1] - a[0]) * ph;
    case SIM_TERM_RAMP:
        if (t <= a[2])
            return a[0];
        if (t >= a[3])
            return a[1];
        return a[0] + (a[1] - a[0]) * (t - a[2]) / (a[3] - a[2]);
    case SIM_TERM_STEP:
        return t < a[0] ? a[1] : a[2];
    case SIM_TERM_NOISE: {
        long long bucket = bucket_us > 0 ? t_us / bucket_us : t_us;
        unsigned long long h = sim_signal_hash(seed, gpu, key * 16u + (unsigned int)index, bucket);
        double u = (double)(h >> 11) / 9007199254740992.0;     /* [0, 1) */
        return a[0] * (2.0 * u - 1.0);
    }
    case SIM_TERM_TRACE:
        return signal_trace(term->trace, t);
    }
    return 0.0;
}

double sim_signal_eval(const struct sim_signal *sig, unsigned long long seed, unsigned int gpu,
                       unsigned int key, long long t_us, long long bucket_us)
{
    double t = (double)t_us / 1e6, v = 0.0;

    for (int i = 0; i < sig->nterms; i++)
        v += signal_term(&sig->terms[i], t, seed, gpu, key, t_us, bucket_us, i);
    return isfinite(v) ? v : 0.0;
}
