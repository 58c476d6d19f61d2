/*
 * lazylib.h: libraries only some runs need, loaded on first use: libzstd
 * (compressed logs) and cJSON (reading logs back). A gpumon watch writing a
 * plain log never maps them, which is part of keeping its memory at
 * nvtop's level (bench/rss.py). Each table is the list of the functions
 * gpumon calls, with the library's own prototypes (its header), resolved
 * by dlopen of the soname the -dev package links against. Call the
 * library through the table once *_load() succeeded.
 */
#ifndef GPUMON_LAZYLIB_H
#define GPUMON_LAZYLIB_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include <zstd.h>

#define LAZY_ZSTD_FUNCS(X) \
    X(ZSTD_createCCtx) X(ZSTD_freeCCtx) X(ZSTD_CCtx_reset) X(ZSTD_CCtx_setParameter) X(ZSTD_CStreamOutSize) \
    X(ZSTD_compressStream2) X(ZSTD_compressBound) X(ZSTD_isError) X(ZSTD_getErrorName) X(ZSTD_createDStream) \
    X(ZSTD_initDStream) X(ZSTD_decompressStream) X(ZSTD_freeDStream)

/* The parser and its memory; walking a parsed tree needs no call (cJSON's
 * struct and type flags are its public interface). */
#define LAZY_CJSON_FUNCS(X) X(cJSON_InitHooks) X(cJSON_ParseWithOpts) X(cJSON_Delete) X(cJSON_GetErrorPtr)

struct lazy_zstd {
#define LAZY_MEMBER(f) __typeof__(f) *f;
    LAZY_ZSTD_FUNCS(LAZY_MEMBER)
};
struct lazy_cjson {
    LAZY_CJSON_FUNCS(LAZY_MEMBER)
#undef LAZY_MEMBER
};

extern struct lazy_zstd lazy_zstd;
extern struct lazy_cjson lazy_cjson;

/* Loads the library once (thread-safe). Returns 0, or -1 with a message
 * naming the library and what to install. */
int lazy_zstd_load(char *err, size_t errlen);
int lazy_cjson_load(char *err, size_t errlen);

#endif
