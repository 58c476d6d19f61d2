/*
 * sim_scenario_expr.c: numbers, units, signal expressions and trace files.
 *
 * Numbers are parsed by hand (not strtod) so the host program's locale can
 * never change how a scenario reads, and so every literal is bounded:
 * anything non-finite or beyond SIM_MAX_NUMBER after its unit is an error.
 * A signal is "TERM [+ TERM ...]" with at most SIM_MAX_TERMS terms; a term
 * is a bare quantity (a constant) or NAME(ARGS). trace(FILE) loads a CSV of
 * "t,value" lines relative to the scenario's directory into the scenario's
 * trace list, which owns it. Evaluation lives in sim_signal.c.
 */
#include "sim_scenario_expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPR_MAX_TRACE_BYTES (8u << 20)

int sim_expr_fail(struct sim_parse *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s:%zu: %s", p->path, p->line, msg);
    return -1;
}

static const char *expr_skip(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static const struct { const char *name; double factor; } expr_units[] = {
    { "B", 1.0 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
    { "TiB", 1099511627776.0 }, { "W", 1.0 }, { "mW", 0.001 }, { "MHz", 1.0 },
    { "C", 1.0 }, { "%", 1.0 }, { "s", 1.0 }, { "ms", 0.001 }, { "min", 60.0 },
};

/* Parses one number with an optional unit at *s; advances *s. */
static int expr_number(struct sim_parse *p, const char **s, double *out)
{
    const char *c = expr_skip(*s);
    double sign = 1.0, v = 0.0;
    int digits = 0;

    if (*c == '+' || *c == '-') {
        sign = *c == '-' ? -1.0 : 1.0;
        c++;
    }
    if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
        c += 2;
        while (isxdigit((unsigned char)*c)) {
            int d = isdigit((unsigned char)*c) ? *c - '0' : (tolower((unsigned char)*c) - 'a' + 10);
            v = v * 16.0 + d;
            digits++;
            c++;
            if (v > SIM_MAX_NUMBER)
                return sim_expr_fail(p, "number out of range");
        }
    } else {
        while (isdigit((unsigned char)*c)) {
            v = v * 10.0 + (*c - '0');
            digits++;
            c++;
            if (v > SIM_MAX_NUMBER)
                return sim_expr_fail(p, "number out of range");
        }
        if (*c == '.') {
            double scale = 0.1;
            c++;
            while (isdigit((unsigned char)*c)) {
                v += (*c - '0') * scale;
                scale *= 0.1;
                digits++;
                c++;
            }
        }
        if (digits && (*c == 'e' || *c == 'E') &&
            (isdigit((unsigned char)c[1]) ||
             ((c[1] == '+' || c[1] == '-') && isdigit((unsigned char)c[2])))) {
            int esign = 1, e = 0;
            c++;
            if (*c == '+' || *c == '-')
                esign = *c++ == '-' ? -1 : 1;
            while (isdigit((unsigned char)*c)) {
                if (e < 1000)
                    e = e * 10 + (*c - '0');
                c++;
            }
            if (esign > 0 && e > 18)
                return sim_expr_fail(p, "number out of range");
            v *= pow(10.0, esign * e);
        }
    }
    if (!digits)
        return sim_expr_fail(p, "expected a number at \"%.40s\"", *s);
    c = expr_skip(c);
    if (isalpha((unsigned char)*c) || *c == '%') {
        const char *u = c;
        size_t n = 0, i;
        while (isalpha((unsigned char)u[n]) || u[n] == '%')
            n++;
        for (i = 0; i < sizeof(expr_units) / sizeof(expr_units[0]); i++)
            if (strlen(expr_units[i].name) == n && strncmp(expr_units[i].name, u, n) == 0)
                break;
        if (i == sizeof(expr_units) / sizeof(expr_units[0]))
            return sim_expr_fail(p, "unknown unit \"%.*s\"", (int)(n > 20 ? 20 : n), u);
        v *= expr_units[i].factor;
        c = expr_skip(u + n);
    }
    v *= sign;
    if (!isfinite(v) || fabs(v) > SIM_MAX_NUMBER)
        return sim_expr_fail(p, "number out of range");
    *out = v;
    *s = c;
    return 0;
}

int sim_expr_quantity(struct sim_parse *p, const char *s, double *out)
{
    const char *c = s;

    if (expr_number(p, &c, out) < 0)
        return -1;
    if (*expr_skip(c) != '\0')
        return sim_expr_fail(p, "unexpected \"%.40s\" after number", c);
    return 0;
}

int sim_expr_next_line(const char *text, size_t len, size_t *pos, char *buf, size_t bufsz)
{
    size_t i = *pos, n = 0;
    int bad = 0;

    if (i >= len)
        return 0;
    while (i < len && text[i] != '\n') {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\0' || (ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f)
            bad = 1;
        if (n + 1 < bufsz)
            buf[n] = (char)ch;
        else
            bad = 1;
        n++;
        i++;
    }
    *pos = i < len ? i + 1 : i;
    if (n >= bufsz)
        n = bufsz - 1;
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\r')
        buf[--n] = '\0';
    return bad ? -1 : 1;
}

char *sim_expr_read_file(const char *path, size_t max, size_t *len, int *too_big)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;

    *too_big = 0;
    if (!f)
        return NULL;
    for (;;) {
        size_t got;
        if (n + 4096 + 1 > cap) {
            char *nb;
            cap = cap ? cap * 2 : 8192;
            if (cap > max + 4096 + 1)
                cap = max + 4096 + 1;
            nb = realloc(buf, cap);
            if (!nb)
                goto err;
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n > max) {
            *too_big = 1;
            goto err;
        }
        if (got == 0)
            break;
    }
    if (ferror(f))
        goto err;
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
err:
    free(buf);
    fclose(f);
    return NULL;
}

/* Parses "t,value" lines into a new trace registered with the scenario. */
static int expr_trace_load(struct sim_parse *p, const char *file, const struct sim_trace **out)
{
    char path[2048], line[SIM_MAX_LINE];
    struct sim_parse tp = *p;
    struct sim_trace *tr;
    size_t len, pos = 0, lineno = 0, cap = 0;
    int too_big, r, seen_data = 0, skipped_header = 0;
    char *text;

    if (p->sc->ntraces >= SIM_MAX_TRACES)
        return sim_expr_fail(p, "too many trace() files (max %d)", SIM_MAX_TRACES);
    if (file[0] == '/' || !p->dir)
        snprintf(path, sizeof(path), "%s", file);
    else
        snprintf(path, sizeof(path), "%s/%s", p->dir, file);
    text = sim_expr_read_file(path, EXPR_MAX_TRACE_BYTES, &len, &too_big);
    if (!text)
        return sim_expr_fail(p, too_big ? "trace file %s too large" : "cannot read trace file %s: %s",
                             path, too_big ? "" : strerror(errno));
    tr = calloc(1, sizeof(*tr));
    if (!tr) {
        free(text);
        return sim_expr_fail(p, "out of memory");
    }
    p->sc->traces[p->sc->ntraces++] = tr;
    tp.path = path;
    while ((r = sim_expr_next_line(text, len, &pos, line, sizeof(line))) != 0) {
        const char *c = line;
        double t, v;
        tp.line = ++lineno;
        if (r < 0)
            goto bad_line;
        c = expr_skip(c);
        if (*c == '\0' || *c == '#')
            continue;
        if (expr_number(&tp, &c, &t) < 0 || *(c = expr_skip(c)) != ',' ||
            (c++, expr_number(&tp, &c, &v) < 0) || *expr_skip(c) != '\0') {
            if (!seen_data && !skipped_header) {
                skipped_header = 1;       /* a "t,value" header line */
                continue;
            }
            sim_expr_fail(&tp, "expected \"t,value\"");
            goto bad;
        }
        seen_data = 1;
        if (t < 0 || t > SIM_MAX_TIME_S) {
            sim_expr_fail(&tp, "time out of range");
            goto bad;
        }
        if (tr->n && t < tr->t[tr->n - 1]) {
            sim_expr_fail(&tp, "times must not decrease");
            goto bad;
        }
        if (tr->n == cap) {
            double *nt, *nv;
            if (cap >= SIM_MAX_TRACE_POINTS) {
                sim_expr_fail(&tp, "too many points (max %d)", SIM_MAX_TRACE_POINTS);
                goto bad;
            }
            cap = cap ? cap * 2 : 64;
            nt = realloc(tr->t, cap * sizeof(double));
            if (nt)
                tr->t = nt;
            nv = nt ? realloc(tr->v, cap * sizeof(double)) : NULL;
            if (nv)
                tr->v = nv;
            if (!nt || !nv) {
                sim_expr_fail(&tp, "out of memory");
                goto bad;
            }
        }
        tr->t[tr->n] = t;
        tr->v[tr->n] = v;
        tr->n++;
    }
    if (tr->n == 0) {
        tp.line = lineno;
        sim_expr_fail(&tp, "trace has no points");
        goto bad;
    }
    free(text);
    *out = tr;
    return 0;
bad_line:
    sim_expr_fail(&tp, "line too long or holds a control character");
bad:
    free(text);
    return -1;
}

static const struct {
    const char *name;
    enum sim_term_kind kind;
    int min_args, max_args;
} expr_terms[] = {
    { "const", SIM_TERM_CONST, 1, 1 },   { "square", SIM_TERM_SQUARE, 3, 4 },
    { "sine", SIM_TERM_SINE, 3, 3 },     { "saw", SIM_TERM_SAW, 3, 3 },
    { "ramp", SIM_TERM_RAMP, 4, 4 },     { "step", SIM_TERM_STEP, 3, 3 },
    { "noise", SIM_TERM_NOISE, 1, 1 },   { "trace", SIM_TERM_TRACE, 1, 1 },
};

static int expr_check_term(struct sim_parse *p, struct sim_term *t, const char *name)
{
    double *a = t->a;

    switch (t->kind) {
    case SIM_TERM_SQUARE:
        if (a[3] < 0 || a[3] > 1)
            return sim_expr_fail(p, "%s(): duty must be within 0..1", name);
        /* fall through */
    case SIM_TERM_SINE:
    case SIM_TERM_SAW:
        if (a[2] <= 0 || a[2] > SIM_MAX_TIME_S)
            return sim_expr_fail(p, "%s(): period must be > 0", name);
        break;
    case SIM_TERM_RAMP:
        if (a[2] < 0 || a[3] < a[2] || a[3] > SIM_MAX_TIME_S)
            return sim_expr_fail(p, "%s(): need 0 <= t0 <= t1", name);
        break;
    case SIM_TERM_STEP:
        if (a[0] < 0 || a[0] > SIM_MAX_TIME_S)
            return sim_expr_fail(p, "%s(): time out of range", name);
        break;
    case SIM_TERM_NOISE:
        if (a[0] < 0)
            return sim_expr_fail(p, "%s(): amplitude must be >= 0", name);
        break;
    default:
        break;
    }
    return 0;
}

/* Parses one term at *s; advances *s past it. */
static int expr_term(struct sim_parse *p, const char **s, struct sim_term *t)
{
    const char *c = expr_skip(*s), *name = c;
    size_t n = 0, i;
    int nargs = 0;

    while (isalpha((unsigned char)c[n]))
        n++;
    if (n == 0 || c[n] != '(') {          /* a bare quantity is a constant */
        t->kind = SIM_TERM_CONST;
        if (expr_number(p, &c, &t->a[0]) < 0)
            return -1;
        *s = c;
        return 0;
    }
    for (i = 0; i < sizeof(expr_terms) / sizeof(expr_terms[0]); i++)
        if (strlen(expr_terms[i].name) == n && strncmp(expr_terms[i].name, name, n) == 0)
            break;
    if (i == sizeof(expr_terms) / sizeof(expr_terms[0]))
        return sim_expr_fail(p, "unknown term \"%.*s\"", (int)(n > 20 ? 20 : n), name);
    t->kind = expr_terms[i].kind;
    c += n + 1;
    if (t->kind == SIM_TERM_TRACE) {
        char file[1024];
        const char *end = strchr(c, ')');
        size_t fl;
        if (!end)
            return sim_expr_fail(p, "unterminated trace(");
        c = expr_skip(c);
        fl = (size_t)(end - c);
        while (fl > 0 && (c[fl - 1] == ' ' || c[fl - 1] == '\t'))
            fl--;
        if (fl == 0 || fl >= sizeof(file))
            return sim_expr_fail(p, "trace() needs a file name");
        memcpy(file, c, fl);
        file[fl] = '\0';
        if (expr_trace_load(p, file, &t->trace) < 0)
            return -1;
        *s = end + 1;
        return 0;
    }
    t->a[3] = 0.5;                        /* square()'s default duty */
    for (;;) {
        if (nargs == 4)
            return sim_expr_fail(p, "too many arguments to %s()", expr_terms[i].name);
        if (expr_number(p, &c, &t->a[nargs]) < 0)
            return -1;
        nargs++;
        c = expr_skip(c);
        if (*c == ',') {
            c++;
            continue;
        }
        if (*c == ')')
            break;
        if (*c == '\0')
            return sim_expr_fail(p, "unterminated %s(", expr_terms[i].name);
        return sim_expr_fail(p, "expected ',' or ')' in %s()", expr_terms[i].name);
    }
    if (nargs < expr_terms[i].min_args || nargs > expr_terms[i].max_args)
        return sim_expr_fail(p, "%s() takes %d%s argument(s), got %d", expr_terms[i].name,
                             expr_terms[i].min_args,
                             expr_terms[i].max_args > expr_terms[i].min_args ? " or more" : "",
                             nargs);
    if (expr_check_term(p, t, expr_terms[i].name) < 0)
        return -1;
    *s = c + 1;
    return 0;
}

int sim_expr_signal(struct sim_parse *p, const char *s, struct sim_signal *out)
{
    struct sim_signal sig;
    const char *c = s;

    memset(&sig, 0, sizeof(sig));
    for (;;) {
        if (sig.nterms == SIM_MAX_TERMS)
            return sim_expr_fail(p, "too many terms (max %d)", SIM_MAX_TERMS);
        if (expr_term(p, &c, &sig.terms[sig.nterms]) < 0)
            return -1;
        sig.nterms++;
        c = expr_skip(c);
        if (*c == '\0')
            break;
        if (*c != '+')
            return sim_expr_fail(p, "expected '+' between terms at \"%.40s\"", c);
        c++;
    }
    *out = sig;
    return 0;
}
