/*
 * test_analyze_slope.c: the memory slopes' least-squares sums kept as
 * points enter and leave the window (analyze_slide.c) against a pass over
 * the window's points, bit for bit: whole seconds and whole values (the
 * exact sums), with holes, repeated times, records without memory, and
 * then what the exact sums cannot hold (a time with a fraction, values of
 * 2^40 and more, sums past 2^53: added up point by point), the later
 * slope's front moving with the window's middle either way, and windows
 * of several lengths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "analyze_int.h"
#include "metrics.h"

#define MAX_POINTS 4096

struct pt {
    double t;
    float mem;                       /* NAN: no memory in the record */
};

/* The slope a pass over the window's points gives (analyze_fig.c before the running sums: analyze_acc's
 * sums in order, then analyze_acc_value's formula), of the points from half on when later. */
static double pass_slope(const struct pt *w, int n, bool later)
{
    double t0 = w[0].t, half = t0 + (w[n - 1].t - t0) / 2;
    double k = 0, st = 0, sv = 0, stt = 0, stv = 0;
    for (int i = 0; i < n; i++) {
        if (isnan(w[i].mem) || (later && !(w[i].t >= half)))
            continue;
        double t = w[i].t - t0, v = w[i].mem;
        k++;
        st += t, sv += v, stt += t * t, stv += t * v;
    }
    double den = k * stt - st * st;
    return k >= 2 && den > 0 ? (k * stv - st * sv) / den : 0;
}

static void same(double got, double want, const char *what, int step)
{
    if (memcmp(&got, &want, sizeof got) && !(isnan(got) && isnan(want)))
        fail_msg("step %d: %s %a, a pass gives %a", step, what, got, want);
}

static struct record_gpu gpu;
static struct record rec;

/* Feeds steps records (time and memory from next) to a window of window_s, checking both slopes after each. */
static void run(double window_s, int steps, void (*next)(int i, double *t, double *mem))
{
    struct analyze_config c = {.window_s = window_s, .idle_util = 5, .mem_high = 90, .min_samples = 5,
                               .min_coverage = 80, .startup_s = 60, .steps_min = 10, .busy_util = 40,
                               .pause_s = 5, .sm_idle = 5};
    struct analyzer *a = analyze_new(&c);
    static struct pt win[MAX_POINTS];
    int n = 0;
    for (int i = 0; i < steps; i++) {
        double t, mem;
        next(i, &t, &mem);
        memset(&gpu, 0, sizeof gpu);
        memset(&rec, 0, sizeof rec);
        rec.time.tv_sec = (time_t)floor(t);
        rec.time.tv_nsec = (long)llround((t - floor(t)) * 1e9);
        rec.ngpus = 1;
        rec.gpus = &gpu;
        gpu.v[M_UTIL_GPU] = (struct value){.state = VS_OK, .u.i = 50};
        gpu.v[M_MEM_TOTAL] = (struct value){.state = VS_OK, .u.i = 1000000};
        if (!isnan(mem))
            gpu.v[M_MEM_USED] = (struct value){.state = VS_OK, .u.i = (long long)mem};
        analyze_feed(a, &rec);
        /* the reference window: the points after now - window_s (analyze_feed's time, as it computes it) */
        double now = (double)rec.time.tv_sec + rec.time.tv_nsec / 1e9;
        assert_true(n < MAX_POINTS);
        win[n++] = (struct pt){now, isnan(mem) ? NAN : (float)mem};
        int drop = 0;
        while (drop < n && win[drop].t <= now - window_s)
            drop++;
        memmove(win, win + drop, (size_t)(n - drop) * sizeof win[0]);
        n -= drop;
        struct analyze_gpu_stats s[1];
        analyze_stats(a, s);
        same(s[0].mem_slope, pass_slope(win, n, false), "memory slope", i);
        same(s[0].mem_recent_slope, pass_slope(win, n, true), "later memory slope", i);
    }
    analyze_free(a);
}

static unsigned seed;
static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

static double clock_s;

/* Whole seconds: steps of 1 s, now and then a hole or a repeated time; memory rising, falling, jumping, and
 * missing now and then. */
static void whole(int i, double *t, double *mem)
{
    if (i == 0)
        clock_s = 1798761600;
    else
        clock_s += rnd() % 9 == 0 ? 0 : rnd() % 11 == 0 ? 1 + rnd() % 40 : 1;
    *t = clock_s;
    unsigned r = rnd() % 20;
    *mem = r == 0 ? NAN : r < 10 ? 60000 + (i % 300) * 37 : r < 15 ? 141000 - (i % 50) * 1000 : (double)(rnd() % 143771);
}

/* As whole, but now and then what the exact sums cannot hold: a time with a fraction, a value of 2^40 or
 * more (memory in MiB no GPU has), values whose sums pass 2^53. */
static void awkward(int i, double *t, double *mem)
{
    whole(i, t, mem);
    unsigned r = rnd() % 40;
    if (r == 0)
        clock_s += 0.25, *t = clock_s;
    else if (r == 1)
        *mem = 0x1p41;
    else if (r == 2)
        *mem = 0x1p52;
    else if (r == 3)
        *mem = 123456789012.0;
}

static void test_whole_seconds(void **state)
{
    (void)state;
    static const double windows[] = {30, 10, 120, 600};
    for (unsigned w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        seed = 11 + w;
        run(windows[w], 3000, whole);
    }
}

static void test_what_they_cannot_hold(void **state)
{
    (void)state;
    static const double windows[] = {30, 10, 300};
    for (unsigned w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        seed = 101 + w;
        run(windows[w], 3000, awkward);
    }
}

/* Times a millisecond apart from a whole second (gpumon's own timestamps) and half seconds: no whole
 * seconds from the first, every slope added up point by point, and the same as a pass. */
static void fractions(int i, double *t, double *mem)
{
    clock_s = i == 0 ? 1798761600.123 : clock_s + (rnd() % 2 ? 0.5 : 1.001);
    *t = clock_s;
    *mem = 1000 + (double)(rnd() % 5000);
}

static void test_fractions(void **state)
{
    (void)state;
    seed = 5;
    run(30, 2000, fractions);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_seconds),
        cmocka_unit_test(test_what_they_cannot_hold),
        cmocka_unit_test(test_fractions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
