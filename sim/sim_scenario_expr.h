/*
 * sim_scenario_expr.h: pieces of the scenario parser shared by its files.
 *
 * sim_scenario_parse.c owns the line grammar (keys, blocks, faults);
 * sim_scenario_expr.c owns everything below a line: numbers with units,
 * signal expressions (TERM + TERM ...), trace CSV files, and reading
 * bounded lines out of a buffer. Both report errors through one
 * struct sim_parse, which formats the single "FILE:LINE: problem" message
 * that nvmlInit prints.
 */
#ifndef GPUMON_SIM_SCENARIO_EXPR_H
#define GPUMON_SIM_SCENARIO_EXPR_H

#include <stddef.h>

#include "sim_scenario.h"

struct sim_parse {
    struct sim_scenario *sc;
    const char *path;               /* file named in messages */
    const char *dir;                /* base for trace() paths; NULL: cwd */
    size_t line;
    char *err;
    size_t errlen;
};

/* Formats "PATH:LINE: message" into p->err. Always returns -1. */
int sim_expr_fail(struct sim_parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Parses a whole string as one quantity: a decimal or 0x-hex number with an
 * optional unit (B KiB MiB GiB TiB W mW MHz C % s ms min). Returns 0 or -1.
 */
int sim_expr_quantity(struct sim_parse *p, const char *s, double *out);

/* Parses "TERM [+ TERM ...]" into out. Returns 0 or -1. */
int sim_expr_signal(struct sim_parse *p, const char *s, struct sim_signal *out);

/*
 * Copies the next line of text[0..len) starting at *pos into buf (without
 * the newline, CR stripped) and advances *pos. Returns 1 for a line, 0 at
 * the end, -1 for a line longer than bufsz-1 or holding a NUL or another
 * control character (the caller reports it).
 */
int sim_expr_next_line(const char *text, size_t len, size_t *pos, char *buf, size_t bufsz);

/* Reads a whole file (at most max bytes) into a NUL-terminated buffer. */
char *sim_expr_read_file(const char *path, size_t max, size_t *len, int *too_big);

#endif
