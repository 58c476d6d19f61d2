/*
 * test_top_hist.c: gpumon top's history as the UI takes it from the
 * collector's short rings (top_hist_catch_up): every point when it keeps
 * up, the points the collector no longer has as unknown when it fell
 * behind, at most a ring's worth when it fell far behind, and the ring's
 * wrap-around on both sides.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "top/top.h"

static struct top_hist ui;
static struct top_recent col;

/* The collector pushes points up to n, point i's value in series s being i * 4 + s. */
static void push_to(unsigned n)
{
    for (; col.n < n; col.n++)
        for (int s = 0; s < TOP_S_COUNT; s++)
            col.v[s][col.n % TOP_RECENT] = (float)(col.n * 4 + (unsigned)s);
}

static void expect(unsigned i, bool known)
{
    for (int s = 0; s < TOP_S_COUNT; s++) {
        float v = ui.v[s][i % TOP_HIST];
        if (known ? v != (float)(i * 4 + (unsigned)s) : !isnan(v))
            fail_msg("point %u, series %d: %g, expected %s", i, s, v, known ? "its value" : "unknown");
    }
}

static void test_keeps_up(void **state)
{
    (void)state;
    memset(&ui, 0, sizeof ui);
    memset(&col, 0, sizeof col);
    for (unsigned n = 1; n <= 3 * TOP_HIST; n += 7) {   /* both rings wrap many times */
        push_to(n);
        top_hist_catch_up(&ui, &col);
        assert_int_equal(ui.n, n);
    }
    unsigned n = ui.n;
    for (unsigned i = n - TOP_HIST; i < n; i++)
        expect(i, true);
}

static void test_falls_behind(void **state)
{
    (void)state;
    memset(&ui, 0, sizeof ui);
    memset(&col, 0, sizeof col);
    push_to(10);
    top_hist_catch_up(&ui, &col);
    push_to(10 + TOP_RECENT + 40);   /* the UI missed 40 points the collector no longer has */
    top_hist_catch_up(&ui, &col);
    assert_int_equal(ui.n, 10 + TOP_RECENT + 40);
    for (unsigned i = 0; i < 10; i++)
        expect(i, true);
    for (unsigned i = 10; i < 50; i++)
        expect(i, false);
    for (unsigned i = 50; i < ui.n; i++)
        expect(i, true);
}

static void test_far_behind(void **state)
{
    (void)state;
    memset(&ui, 0, sizeof ui);
    memset(&col, 0, sizeof col);
    push_to(5);
    top_hist_catch_up(&ui, &col);
    push_to(100000);   /* a day's stall: one ring of history, the newest TOP_RECENT of it known */
    top_hist_catch_up(&ui, &col);
    assert_int_equal(ui.n, 100000);
    for (unsigned i = 100000 - TOP_HIST; i < 100000 - TOP_RECENT; i++)
        expect(i, false);
    for (unsigned i = 100000 - TOP_RECENT; i < 100000; i++)
        expect(i, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keeps_up),
        cmocka_unit_test(test_falls_behind),
        cmocka_unit_test(test_far_behind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
