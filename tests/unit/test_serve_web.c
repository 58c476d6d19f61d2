/*
 * test_serve_web.c: the live page's ring and routes (src/serve/serve_web.c) without a server:
 * points as means of records (unknown stays null, never 0), the ring's wrap and its stated size, a
 * reset when the GPUs change, a long history in at most SERVE_WEB_MAX_POINTS points, the job's steps
 * per second and input wait, ?seconds= parsing (bad, huge, absent), the state before the first
 * record, the page at / and paths that are not the page's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include "metrics.h"
#include "serve_web.h"

struct fixture {
    struct record rec;
    struct record_gpu gpus[2];
    struct record_rank rank;
};

static void fixture_init(struct fixture *f, unsigned ngpus)
{
    memset(f, 0, sizeof *f);
    f->rec.hostname = "node1";
    f->rec.gpus = f->gpus;
    f->rec.ngpus = ngpus;
    static const char *const uuids[2] = {"GPU-aaaa", "GPU-bbbb"};
    for (unsigned g = 0; g < ngpus; g++) {
        f->gpus[g].index = g;
        f->gpus[g].v[M_UUID] = (struct value){.state = VS_OK, .u.s = uuids[g]};
    }
}

static void set_int(struct record_gpu *g, enum metric_id id, long long v)
{
    g->v[id] = (struct value){.state = VS_OK, .u.i = v};
}

/* A record at t seconds with GPU 0 at util and 1 at util / 2. */
static void feed(struct serve_web *w, struct fixture *f, double t, long long util)
{
    f->rec.time.tv_sec = (time_t)t;
    f->rec.time.tv_nsec = (long)((t - (double)(time_t)t) * 1e9);
    set_int(&f->gpus[0], M_UTIL_GPU, util);
    if (f->rec.ngpus > 1)
        set_int(&f->gpus[1], M_UTIL_GPU, util / 2);
    serve_web_feed(w, &f->rec, NULL);
}

static const char *arg_seconds;
static const char *arg_fn(void *ctx, const char *name)
{
    (void)ctx;
    return !strcmp(name, "seconds") ? arg_seconds : NULL;
}

/* GET path (with ?seconds=seconds); the reply parsed when it is JSON. */
static cJSON *get(struct serve_web *w, const char *path, const char *seconds, unsigned *status)
{
    struct serve_web_reply r;
    arg_seconds = seconds;
    assert_true(serve_web_answer(w, path, arg_fn, NULL, &r));
    *status = r.status;
    cJSON *j = r.status == 200 && !strcmp(r.type, "application/json") ? cJSON_ParseWithLength(r.body, r.len) : NULL;
    if (r.owned)
        free(r.body);
    return j;
}

static cJSON *column(cJSON *h, int gpu, const char *key)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(h, "gpus"), gpu), "series"),
                               key);
}

static void test_points_and_wrap(void **state)
{
    (void)state;
    struct serve_web_opts o = {.interval_ms = 1000, .history_s = 60, .window_s = 30, .source = "serve"};
    struct serve_web *w = serve_web_new(&o);
    struct fixture f;
    fixture_init(&f, 2);
    unsigned st;
    assert_null(get(w, "/api/v1/state", NULL, &st));
    assert_int_equal(st, 503);   /* no record yet */
    for (int i = 0; i < 100; i++)
        feed(w, &f, 1000 + i, i % 2 ? 100 : 0);
    assert_int_equal(serve_web_points(w), 60);
    assert_int_equal(serve_web_ring_bytes(w, 2), 60 * (8 + 4 * (2 * 8 + 2)));
    cJSON *h = get(w, "/api/v1/history", NULL, &st);
    assert_non_null(h);
    assert_int_equal(cJSON_GetObjectItem(h, "points")->valueint, 60);
    cJSON *t = cJSON_GetObjectItem(h, "t");
    assert_int_equal(cJSON_GetArraySize(t), 60);
    assert_true(cJSON_GetArrayItem(t, 0)->valuedouble == 1040);   /* the oldest 40 were overwritten */
    assert_true(cJSON_GetArrayItem(t, 59)->valuedouble == 1099);
    cJSON *u = column(h, 0, "utilization.gpu"), *u1 = column(h, 1, "utilization.gpu");
    assert_true(cJSON_GetArrayItem(u, 0)->valuedouble == 0 && cJSON_GetArrayItem(u, 59)->valuedouble == 100);
    assert_true(cJSON_GetArrayItem(u1, 59)->valuedouble == 50);
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(column(h, 0, "power.draw"), 0)));   /* never read: null */
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "job"), "steps_per_s"), 0)));
    cJSON_Delete(h);
    h = get(w, "/api/v1/history", "10", &st);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(h, "t")), 10);
    cJSON_Delete(h);
    cJSON *s = get(w, "/api/v1/state", NULL, &st);
    assert_non_null(s);
    assert_string_equal(cJSON_GetObjectItem(s, "source")->valuestring, "serve");
    cJSON *hist = cJSON_GetObjectItem(s, "history");
    assert_int_equal(cJSON_GetObjectItem(hist, "points")->valueint, 60);
    assert_int_equal(cJSON_GetObjectItem(hist, "bytes")->valueint, 60 * 80);
    assert_null(cJSON_GetObjectItem(s, "ledger"));   /* the hook writes nothing yet */
    assert_null(cJSON_GetObjectItem(s, "job"));
    cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "record"), "gpus"), 0);
    assert_int_equal(cJSON_GetObjectItem(g0, "utilization.gpu")->valueint, 100);
    cJSON_Delete(s);
    serve_web_free(w);
}

static void test_means_and_reset(void **state)
{
    (void)state;
    /* a day at 1 s: 3600 points of 24 records each */
    struct serve_web_opts o = {.interval_ms = 1000, .history_s = 86400, .source = "serve"};
    struct serve_web *w = serve_web_new(&o);
    assert_int_equal(serve_web_points(w), SERVE_WEB_MAX_POINTS);
    assert_true(serve_web_step_s(w) == 24);
    struct fixture f;
    fixture_init(&f, 2);
    for (int i = 0; i < 48; i++) {
        if (i < 24 && i % 2)   /* the first point: power known in half its records */
            f.gpus[0].v[M_POWER] = (struct value){.state = VS_OK, .u.f = 300};
        else
            f.gpus[0].v[M_POWER] = (struct value){.state = VS_UNSUPPORTED};
        feed(w, &f, 1000 + i, i % 2 ? 100 : 0);
    }
    unsigned st;
    cJSON *h = get(w, "/api/v1/history", NULL, &st);
    assert_int_equal(cJSON_GetObjectItem(h, "points")->valueint, 2);
    assert_true(cJSON_GetArrayItem(column(h, 0, "utilization.gpu"), 0)->valuedouble == 50);
    assert_true(cJSON_GetArrayItem(column(h, 0, "power.draw"), 0)->valuedouble == 300);   /* of the known ones */
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(column(h, 0, "power.draw"), 1)));
    assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(h, "t"), 1)->valuedouble == 1047);
    cJSON_Delete(h);
    /* another GPU at position 1: the ring starts again */
    f.gpus[1].v[M_UUID].u.s = "GPU-cccc";
    for (int i = 48; i < 72; i++)
        feed(w, &f, 1000 + i, 10);
    h = get(w, "/api/v1/history", NULL, &st);
    assert_int_equal(cJSON_GetObjectItem(h, "points")->valueint, 1);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(h, "gpus"), 1), "uuid")->valuestring,
                        "GPU-cccc");
    cJSON_Delete(h);
    /* one GPU fewer: again */
    f.rec.ngpus = 1;
    for (int i = 72; i < 96; i++)
        feed(w, &f, 1000 + i, 10);
    h = get(w, "/api/v1/history", NULL, &st);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(h, "gpus")), 1);
    assert_int_equal(cJSON_GetObjectItem(h, "points")->valueint, 1);
    cJSON_Delete(h);
    serve_web_free(w);
}

static void test_job(void **state)
{
    (void)state;
    struct serve_web_opts o = {.interval_ms = 500, .history_s = 60, .source = "run", .command = "python3 train.py"};
    struct serve_web *w = serve_web_new(&o);
    struct fixture f;
    fixture_init(&f, 1);
    f.rec.ranks = &f.rank;
    f.rec.nranks = 1;
    f.rank = (struct record_rank){.pid = 42, .steps = 10, .in_wait_s = 0.1, .in_compute_s = 0.4};
    feed(w, &f, 1000, 90);
    feed(w, &f, 1000.5, 90);   /* 10 steps in 0.5 s */
    unsigned st;
    cJSON *s = get(w, "/api/v1/state", NULL, &st);
    assert_string_equal(cJSON_GetObjectItem(s, "command")->valuestring, "python3 train.py");
    cJSON *job = cJSON_GetObjectItem(s, "job");
    assert_non_null(job);
    assert_true(cJSON_GetObjectItem(job, "steps_per_s")->valuedouble == 20);
    assert_true(cJSON_GetObjectItem(job, "input_wait")->valuedouble == 20);
    cJSON_Delete(s);
    serve_web_free(w);
}

static void test_routes(void **state)
{
    (void)state;
    struct serve_web_opts o = {.interval_ms = 1000, .history_s = 120};
    struct serve_web *w = serve_web_new(&o);
    struct fixture f;
    fixture_init(&f, 1);
    feed(w, &f, 1000, 5);
    struct serve_web_reply r;
    assert_true(serve_web_answer(w, "/", arg_fn, NULL, &r));
    assert_int_equal(r.status, 200);
    assert_false(r.owned);
    assert_int_equal(r.len, serve_page_html_len);
    assert_non_null(strstr(r.body, "api/v1/state"));
    static const char *const other[] = {"/api", "/api/v1", "/api/v1/", "/api/v1/nope", "/api/v1/state/", "/index.html",
                                        "/metrics", ""};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        assert_false(serve_web_answer(w, other[i], arg_fn, NULL, &r));
    static const char *const bad[] = {"", "abc", "-1", "0", "nan", "inf", "-inf", "0x10", "1e400", "5s", " 5", "1e-400"};
    unsigned st;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_null(get(w, "/api/v1/history", bad[i], &st));
        assert_int_equal(st, 400);
    }
    static const char *const good[] = {"1", "0.5", "120", "1e308", "99999999999999999999"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        cJSON *h = get(w, "/api/v1/history", good[i], &st);
        assert_int_equal(st, 200);
        double secs = cJSON_GetObjectItem(h, "seconds")->valuedouble;
        assert_true(secs > 0 && secs <= 120);   /* huge: the whole history */
        cJSON_Delete(h);
    }
    serve_web_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_and_wrap),
        cmocka_unit_test(test_means_and_reset),
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_routes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
