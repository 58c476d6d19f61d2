/*
 * fuzz_util.h: what the harnesses share. fuzz_util_quiet() sends gpumon's
 * own stdout and stderr (help texts, usage errors, warnings) to /dev/null
 * while libFuzzer's messages and sanitizer reports still reach the real
 * stderr: libFuzzer keeps the FILE it took at start-up, and the sanitizers
 * are told to write to a duplicate of descriptor 2. Standard input becomes
 * /dev/null, so no fuzzed path (a trace file, --web.config.file /dev/stdin)
 * can block on it. The rest turns fuzz bytes into C strings.
 */
#ifndef GPUMON_FUZZ_UTIL_H
#define GPUMON_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Silences gpumon's output as above; call once, from LLVMFuzzerInitialize. */
void fuzz_util_quiet(void);
/* Prints "fuzz: MESSAGE" where sanitizer reports go, then aborts (a crash
 * libFuzzer records with its reproducer). */
void fuzz_util_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* A NUL-terminated copy of data (free it). */
char *fuzz_util_str(const uint8_t *data, size_t size);
/* Splits a copy of data on NUL bytes into at most max strings; returns the
 * count. *buf holds the strings (free it). */
int fuzz_util_split(const uint8_t *data, size_t size, char **out, int max, char **buf);

#endif
