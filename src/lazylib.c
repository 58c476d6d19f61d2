/*
 * lazylib.c: dlopen on first use of libzstd and cJSON (see lazylib.h).
 * One pthread_once per library; a library or symbol that is missing is
 * said, with the package that provides it. A library stays loaded.
 */
#include "lazylib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct lazy_zstd lazy_zstd;
struct lazy_cjson lazy_cjson;

struct lazy_lib {
    const char *soname, *package;
    pthread_once_t once;
    char error[512];
};

static struct lazy_lib lazy_zstd_lib = {"libzstd.so.1", "libzstd1", PTHREAD_ONCE_INIT, ""};
static struct lazy_lib lazy_cjson_lib = {"libcjson.so.1", "libcjson1", PTHREAD_ONCE_INIT, ""};

static void *lazy_dlopen(struct lazy_lib *l)
{
    void *dl = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!dl)
        snprintf(l->error, sizeof l->error, "cannot load %s (install %s): %s", l->soname, l->package, dlerror());
    return dl;
}

static void lazy_missing(struct lazy_lib *l, const char *name)
{
    snprintf(l->error, sizeof l->error, "%s lacks %s: it is too old for gpumon", l->soname, name);
}

/* Resolves every function of a table; the first missing one is the error. */
#define LAZY_RESOLVE(table, lib, f) \
    if (!(*(void **)&table.f = dlsym(dl, #f))) { \
        lazy_missing(&lib, #f); \
        return; \
    }

static void lazy_open_zstd(void)
{
    void *dl = lazy_dlopen(&lazy_zstd_lib);
    if (!dl)
        return;
#define LAZY_ZSTD(f) LAZY_RESOLVE(lazy_zstd, lazy_zstd_lib, f)
    LAZY_ZSTD_FUNCS(LAZY_ZSTD)
#undef LAZY_ZSTD
}

static void lazy_open_cjson(void)
{
    void *dl = lazy_dlopen(&lazy_cjson_lib);
    if (!dl)
        return;
#define LAZY_CJSON(f) LAZY_RESOLVE(lazy_cjson, lazy_cjson_lib, f)
    LAZY_CJSON_FUNCS(LAZY_CJSON)
#undef LAZY_CJSON
}

static int lazy_result(const struct lazy_lib *l, char *err, size_t errlen)
{
    if (!l->error[0])
        return 0;
    snprintf(err, errlen, "%s", l->error);
    return -1;
}

int lazy_zstd_load(char *err, size_t errlen)
{
    pthread_once(&lazy_zstd_lib.once, lazy_open_zstd);
    return lazy_result(&lazy_zstd_lib, err, errlen);
}

int lazy_cjson_load(char *err, size_t errlen)
{
    pthread_once(&lazy_cjson_lib.once, lazy_open_cjson);
    return lazy_result(&lazy_cjson_lib, err, errlen);
}
