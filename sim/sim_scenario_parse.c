/*
 * sim_scenario_parse.c: the line grammar of scenario files.
 *
 * One line is one statement: a top-level key (seed, driver, cuda, ...), a
 * "gpu N" / "gpu A-B" block header, or a GPU statement (a field, a
 * "METRIC = SIGNAL" assignment, a "process" or an "at" fault) that applies
 * to every GPU of the current block. Later blocks refine earlier ones, so
 * "gpu 5" after "gpu 0-7" changes only GPU 5. Comments start at '#'.
 * The first problem stops parsing with one "FILE:LINE: problem" message;
 * sim_scenario_expr.c parses what is inside a value, and
 * sim_scenario_default.c derives what the file leaves out.
 */
#include "sim_scenario_expr.h"
#include "sim_scenario.h"

#include "nvml_abi.h"
#include "sim_board.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARSE_MAX_FILE_BYTES (4u << 20)

struct parse_block {
    int active;
    unsigned int lo, hi;
};

static const char *parse_skip(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Copies the next whitespace-delimited word of *s into w; advances *s. */
static int parse_word(const char **s, char *w, size_t wlen)
{
    const char *c = parse_skip(*s);
    size_t n = 0;

    while (c[n] && c[n] != ' ' && c[n] != '\t')
        n++;
    if (n == 0 || n >= wlen)
        return n == 0 ? 0 : -1;
    memcpy(w, c, n);
    w[n] = '\0';
    *s = parse_skip(c + n);
    return 1;
}

static int parse_uint(struct sim_parse *p, const char *s, double lo, double hi, unsigned long long *out,
                      const char *what)
{
    double v;

    *out = 0;   /* defined on every path (gcc -O3 cannot see that callers stop on -1) */
    if (sim_expr_quantity(p, s, &v) < 0)
        return -1;
    if (v < lo || v > hi || v != floor(v))
        return sim_expr_fail(p, "%s must be a whole number within %.0f..%.0f", what, lo, hi);
    *out = (unsigned long long)v;
    return 0;
}

static int parse_text_value(struct sim_parse *p, const char *v, char *dst, size_t dlen, const char *key)
{
    size_t n = strlen(v);

    if (n == 0)
        return sim_expr_fail(p, "%s needs a value", key);
    if (n >= dlen)
        return sim_expr_fail(p, "%s is longer than %zu characters", key, dlen - 1);
    memcpy(dst, v, n + 1);
    return 0;
}

/* "00000000:18:00.0" or "0000:18:00.0", hex, any case. */
static int parse_pci(struct sim_parse *p, const char *v, struct sim_gpu *g)
{
    unsigned int dom, bus, dev, fn;
    int n = 0;

    if (sscanf(v, "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &n) != 4 || v[n] != '\0' ||
        dev > 31 || fn > 7 || strchr(v, '-') || strchr(v, '+') || strchr(v, ' '))
        return sim_expr_fail(p, "pci must look like 00000000:18:00.0");
    g->pci_domain = dom;
    g->pci_bus = bus;
    g->pci_device = dev;
    snprintf(g->bus_id, sizeof(g->bus_id), "%08X:%02X:%02X.%X", dom, bus, dev, fn);
    g->set |= SIM_SET_PCI;
    return 0;
}

/* "k=v k=v ..." against a table of keys; values are quantities. */
static int parse_pairs(struct sim_parse *p, const char *s, const char *const *keys, unsigned int *dst,
                       size_t nkeys, double hi, const char *what)
{
    char w[128];
    int r;

    while ((r = parse_word(&s, w, sizeof(w))) > 0) {
        char *eq = strchr(w, '=');
        size_t i;
        double v;
        if (!eq)
            return sim_expr_fail(p, "%s: expected key=value, got \"%s\"", what, w);
        *eq = '\0';
        for (i = 0; i < nkeys; i++)
            if (strcmp(keys[i], w) == 0)
                break;
        if (i == nkeys)
            return sim_expr_fail(p, "%s: unknown key \"%s\"", what, w);
        if (sim_expr_quantity(p, eq + 1, &v) < 0)
            return -1;
        if (v < 0 || v > hi)
            return sim_expr_fail(p, "%s: %s out of range", what, w);
        dst[i] = (unsigned int)v;
    }
    return r < 0 ? sim_expr_fail(p, "%s: word too long", what) : 0;
}

static int parse_families(struct sim_parse *p, const char *s, unsigned int *mask)
{
    char w[64];
    int r, any = 0;

    while ((r = parse_word(&s, w, sizeof(w))) > 0) {
        int f = sim_scenario_family_by_name(w);
        if (f < 0)
            return sim_expr_fail(p, "unknown family \"%s\"", w);
        *mask |= 1u << f;
        any = 1;
    }
    if (r < 0 || !any)
        return sim_expr_fail(p, "expected one or more family names");
    return 0;
}

static int parse_add_fault(struct sim_parse *p, struct sim_gpu *g, const struct sim_fault *f)
{
    struct sim_fault *nf;

    if (g->nfaults >= SIM_MAX_FAULTS)
        return sim_expr_fail(p, "too many faults for one GPU (max %d)", SIM_MAX_FAULTS);
    nf = realloc(g->faults, (g->nfaults + 1) * sizeof(*nf));
    if (!nf)
        return sim_expr_fail(p, "out of memory");
    g->faults = nf;
    g->faults[g->nfaults] = *f;
    g->faults[g->nfaults].seq = g->nfaults;
    g->nfaults++;
    return 0;
}

static int parse_function_known(const char *name)
{
#define PARSE_NAME(n, a) #n,
    static const char *const names[] = { NVML_FUNCTIONS(PARSE_NAME) NVML_CLIENT_FUNCTIONS(PARSE_NAME)
                                         "nvmlErrorString" };
#undef PARSE_NAME
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* "at T lost | unsupported F.. | no_permission F.. | hang FUNC S | xid N [every P until T2]" */
static int parse_at(struct sim_parse *p, const char *s, struct sim_gpu *g)
{
    struct sim_fault f;
    char w[128], kind[32];
    double t;

    memset(&f, 0, sizeof(f));
    if (parse_word(&s, w, sizeof(w)) <= 0 || sim_expr_quantity(p, w, &t) < 0)
        return p->err[0] ? -1 : sim_expr_fail(p, "at: expected a time");
    if (t < 0 || t > SIM_MAX_TIME_S)
        return sim_expr_fail(p, "at: time out of range");
    f.t_us = llround(t * 1e6);
    if (parse_word(&s, kind, sizeof(kind)) <= 0)
        return sim_expr_fail(p, "at: expected lost, unsupported, no_permission, hang or xid");
    if (strcmp(kind, "lost") == 0) {
        if (*s)
            return sim_expr_fail(p, "at ... lost takes no arguments");
        f.kind = SIM_FAULT_LOST;
        return parse_add_fault(p, g, &f);
    }
    if (strcmp(kind, "unsupported") == 0 || strcmp(kind, "no_permission") == 0) {
        unsigned int mask = 0;
        int i;
        f.kind = kind[0] == 'u' ? SIM_FAULT_UNSUPPORTED : SIM_FAULT_NO_PERMISSION;
        if (parse_families(p, s, &mask) < 0)
            return -1;
        for (i = 0; i < SIM_F_COUNT; i++) {
            if (!(mask & (1u << i)))
                continue;
            f.family = i;
            if (parse_add_fault(p, g, &f) < 0)
                return -1;
        }
        return 0;
    }
    if (strcmp(kind, "hang") == 0) {
        f.kind = SIM_FAULT_HANG;
        if (parse_word(&s, f.func, sizeof(f.func)) <= 0 || !parse_function_known(f.func))
            return sim_expr_fail(p, "hang: expected an exported NVML function name");
        if (parse_word(&s, w, sizeof(w)) <= 0)
            return sim_expr_fail(p, "hang: expected a duration in seconds");
        if (sim_expr_quantity(p, w, &f.hang_s) < 0)
            return -1;
        if (f.hang_s < 0 || f.hang_s > 3600 || *s)
            return sim_expr_fail(p, "hang: duration must be within 0..3600 s");
        return parse_add_fault(p, g, &f);
    }
    if (strcmp(kind, "xid") == 0) {
        unsigned long long xid;
        double every = 0, until = t;
        f.kind = SIM_FAULT_XID;
        if (parse_word(&s, w, sizeof(w)) <= 0 || parse_uint(p, w, 0, 65535, &xid, "xid") < 0)
            return p->err[0] ? -1 : sim_expr_fail(p, "xid: expected a number");
        f.xid = (unsigned int)xid;
        if (*s) {
            char w2[64];
            if (parse_word(&s, w, sizeof(w)) <= 0 || strcmp(w, "every") != 0 ||
                parse_word(&s, w, sizeof(w)) <= 0 || sim_expr_quantity(p, w, &every) < 0 ||
                parse_word(&s, w2, sizeof(w2)) <= 0 || strcmp(w2, "until") != 0 ||
                parse_word(&s, w, sizeof(w)) <= 0 || sim_expr_quantity(p, w, &until) < 0 || *s)
                return p->err[0] ? -1 : sim_expr_fail(p, "xid: expected \"xid N every P until T\"");
            if (every <= 0 || until < t || until > SIM_MAX_TIME_S)
                return sim_expr_fail(p, "xid: need P > 0 and T >= the start time");
            if ((until - t) / every >= SIM_MAX_FAULTS)
                return sim_expr_fail(p, "xid: too many events (max %d per GPU)", SIM_MAX_FAULTS);
        }
        for (double x = t; x <= until + 1e-9; x += every > 0 ? every : 1.0) {
            f.t_us = llround(x * 1e6);
            if (parse_add_fault(p, g, &f) < 0)
                return -1;
            if (every <= 0)
                break;
        }
        return 0;
    }
    return sim_expr_fail(p, "at: unknown fault \"%s\"", kind);
}

static const char *const parse_proc_keys[] = { "memory", "start", "stop", "util", "type" };

/* Finds the next " key=" of a process line outside parentheses. */
static const char *parse_proc_next_key(const char *s)
{
    int depth = 0;

    for (const char *c = s; *c; c++) {
        if (*c == '(')
            depth++;
        else if (*c == ')' && depth > 0)
            depth--;
        else if (depth == 0 && (c == s || c[-1] == ' ' || c[-1] == '\t')) {
            for (size_t i = 0; i < sizeof(parse_proc_keys) / sizeof(parse_proc_keys[0]); i++) {
                size_t n = strlen(parse_proc_keys[i]);
                if (strncmp(c, parse_proc_keys[i], n) == 0 && c[n] == '=')
                    return c;
            }
        }
    }
    return NULL;
}

static int parse_process(struct sim_parse *p, const char *s, struct sim_process *pr)
{
    char w[32], val[SIM_MAX_LINE];
    const char *key, *next;
    unsigned long long pid;
    size_t n;
    double v;

    memset(pr, 0, sizeof(*pr));
    pr->stop_us = -1;
    pr->share = 1.0;
    pr->types = SIM_PROC_COMPUTE;
    if (parse_word(&s, w, sizeof(w)) <= 0 || parse_uint(p, w, 1, 4194304, &pid, "pid") < 0)
        return p->err[0] ? -1 : sim_expr_fail(p, "process: expected a pid");
    pr->pid = (unsigned int)pid;
    key = parse_proc_next_key(s);
    n = key ? (size_t)(key - s) : strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n == 0)
        return sim_expr_fail(p, "process: expected a name after the pid");
    if (n >= sizeof(pr->name))
        return sim_expr_fail(p, "process: name too long");
    memcpy(pr->name, s, n);
    pr->name[n] = '\0';
    while (key) {
        const char *eq = strchr(key, '=');
        size_t kl = (size_t)(eq - key);
        next = parse_proc_next_key(eq + 1);
        n = next ? (size_t)(next - (eq + 1)) : strlen(eq + 1);
        memcpy(val, eq + 1, n);
        val[n] = '\0';
        while (n > 0 && (val[n - 1] == ' ' || val[n - 1] == '\t'))
            val[--n] = '\0';
        if (strncmp(key, "memory", kl) == 0) {
            if (sim_expr_signal(p, val, &pr->memory) < 0)
                return -1;
        } else if (strncmp(key, "type", kl) == 0) {
            if (strcmp(val, "compute") == 0)
                pr->types = SIM_PROC_COMPUTE;
            else if (strcmp(val, "graphics") == 0)
                pr->types = SIM_PROC_GRAPHICS;
            else if (strcmp(val, "both") == 0)
                pr->types = SIM_PROC_COMPUTE | SIM_PROC_GRAPHICS;
            else if (strcmp(val, "mps") == 0)
                pr->types = SIM_PROC_MPS;
            else
                return sim_expr_fail(p, "process: type must be compute, graphics, both or mps");
        } else {
            if (sim_expr_quantity(p, val, &v) < 0)
                return -1;
            if (strncmp(key, "util", kl) == 0) {
                if (v < 0 || v > 100)
                    return sim_expr_fail(p, "process: util must be within 0..100%%");
                pr->share = v / 100.0;
            } else {
                if (v < 0 || v > SIM_MAX_TIME_S)
                    return sim_expr_fail(p, "process: time out of range");
                if (key[2] == 'a')
                    pr->start_us = llround(v * 1e6);
                else
                    pr->stop_us = llround(v * 1e6);
            }
        }
        key = next;
    }
    if (pr->stop_us >= 0 && pr->stop_us < pr->start_us)
        return sim_expr_fail(p, "process: stop is before start");
    return 0;
}

static int parse_top_key(struct sim_parse *p, const char *key, const char *v)
{
    struct sim_scenario *sc = p->sc;
    unsigned long long u;

    if (strcmp(key, "seed") == 0) {
        if (parse_uint(p, v, 0, 9007199254740992.0, &u, "seed") < 0)
            return -1;
        sc->seed = u;
    } else if (strcmp(key, "driver") == 0) {
        for (const char *c = v; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-')
                return sim_expr_fail(p, "driver: expected a version like 610.43.02");
        if (parse_text_value(p, v, sc->driver, sizeof(sc->driver), key) < 0)
            return -1;
        sc->has_driver = 1;
    } else if (strcmp(key, "cuda") == 0) {
        if (parse_uint(p, v, 1000, 99999, &u, "cuda") < 0)
            return -1;
        sc->cuda = (int)u;
        sc->has_cuda = 1;
    } else if (strcmp(key, "init_error") == 0) {
        int r = sim_scenario_return_by_name(v);
        if (r < 0) {
            if (!isdigit((unsigned char)*v))
                return sim_expr_fail(p, "init_error: unknown return code \"%.40s\"", v);
            if (parse_uint(p, v, 0, 999, &u, "init_error") < 0)
                return -1;
            r = (int)u;
        }
        sc->init_error = r;
    } else if (strcmp(key, "sample_period_ms") == 0) {
        if (parse_uint(p, v, 10, 10000, &u, "sample_period_ms") < 0)
            return -1;
        sc->sample_period_ms = (unsigned int)u;
    } else if (strcmp(key, "pcie_latency_ms") == 0) {
        if (parse_uint(p, v, 0, 10000, &u, "pcie_latency_ms") < 0)
            return -1;
        sc->pcie_latency_ms = (unsigned int)u;
    } else if (strcmp(key, "process_layout") == 0) {
        if (strcmp(v, "535") == 0)
            sc->process_layout = 535;
        else if (strcmp(v, "24") == 0)
            sc->process_layout = 24;
        else if (strcmp(v, "auto") == 0)
            sc->process_layout = 0;
        else
            return sim_expr_fail(p, "process_layout must be auto, 24 or 535");
    } else {
        return 1;                         /* not a top-level key */
    }
    return 0;
}

/* "on" or "off" into *out (1 or 0). */
static int parse_switch(struct sim_parse *p, const char *v, const char *key, int *out)
{
    if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
        return sim_expr_fail(p, "%s must be on or off", key);
    *out = v[1] == 'n';
    return 0;
}

/* "mig on|off [pending=on|off]": the current MIG mode and the one after the next reset. */
static int parse_mig(struct sim_parse *p, const char *v, struct sim_gpu *g)
{
    char w[32];
    const char *s = v;

    if (parse_word(&s, w, sizeof(w)) <= 0 || parse_switch(p, w, "mig", &g->mig_current) < 0)
        return p->err[0] ? -1 : sim_expr_fail(p, "mig must be on or off");
    g->mig_pending = g->mig_current;
    if (*s) {
        if (parse_word(&s, w, sizeof(w)) <= 0 || strncmp(w, "pending=", 8) != 0 || *s)
            return sim_expr_fail(p, "mig: expected \"mig on|off [pending=on|off]\"");
        if (parse_switch(p, w + 8, "mig pending", &g->mig_pending) < 0)
            return -1;
    }
    return 0;
}

static const char *const parse_clock_keys[] = { "graphics", "sm", "mem", "video" };
static const char *const parse_pcie_keys[] = { "gen", "width", "max_gen", "max_width" };

/* A GPU statement applied to one GPU. */
static int parse_gpu_key(struct sim_parse *p, const char *key, const char *v, struct sim_gpu *g,
                         unsigned int offset)
{
    unsigned long long u;
    double d;
    int m;

    if ((m = sim_scenario_metric_by_name(key)) >= 0) {
        if (*v != '=')
            return sim_expr_fail(p, "expected \"%s = SIGNAL\"", key);
        return sim_expr_signal(p, v + 1, &g->sig[m]);
    }
    if (strcmp(key, "name") == 0) {
        g->set |= SIM_SET_NAME;
        return parse_text_value(p, v, g->name, sizeof(g->name), key);
    }
    if (strcmp(key, "uuid") == 0) {
        g->set |= SIM_SET_UUID;
        return parse_text_value(p, v, g->uuid, sizeof(g->uuid), key);
    }
    if (strcmp(key, "serial") == 0) {
        g->set |= SIM_SET_SERIAL;
        return parse_text_value(p, v, g->serial, sizeof(g->serial), key);
    }
    if (strcmp(key, "pci") == 0)
        return parse_pci(p, v, g);
    if (strcmp(key, "pci_device_id") == 0 || strcmp(key, "pci_subsystem_id") == 0) {
        if (parse_uint(p, v, 0, 4294967295.0, &u, key) < 0)
            return -1;
        if (key[4] == 'd') {
            g->pci_device_id = (unsigned int)u;
            g->set |= SIM_SET_DEVICE_ID;
        } else {
            g->pci_subsystem_id = (unsigned int)u;
        }
        return 0;
    }
    if (strcmp(key, "memory_total") == 0 || strcmp(key, "memory_reserved") == 0) {
        if (sim_expr_quantity(p, v, &d) < 0)
            return -1;
        if (d < 0 || d > 1125899906842624.0)
            return sim_expr_fail(p, "%s out of range (0..1 PiB)", key);
        if (key[7] == 't')
            g->memory_total = (unsigned long long)d;
        else
            g->memory_reserved = (unsigned long long)d;
        return 0;
    }
    if (strcmp(key, "power_limit") == 0 || strcmp(key, "enforced_power_limit") == 0) {
        if (sim_expr_quantity(p, v, &d) < 0)
            return -1;
        if (d < 0 || d > 100000)
            return sim_expr_fail(p, "%s out of range (0..100000 W)", key);
        if (key[0] == 'p') {
            g->power_limit_mw = (unsigned int)llround(d * 1000.0);
        } else {
            g->enforced_limit_mw = (unsigned int)llround(d * 1000.0);
            g->set |= SIM_SET_ENFORCED;
        }
        return 0;
    }
    if (strcmp(key, "clock_max") == 0)
        return parse_pairs(p, v, parse_clock_keys, g->clock_max, SIM_CLK_COUNT, 100000, key);
    if (strcmp(key, "power_range") == 0) {     /* W; 0 keeps the derived bound */
        static const char *const keys[] = {"min", "max"};
        return parse_pairs(p, v, keys, g->power_range_w, 2, 100000, key);
    }
    if (strcmp(key, "temperature_thresholds") == 0) {
        static const char *const keys[] = {"shutdown", "slowdown", "mem_max", "gpu_max"};
        return parse_pairs(p, v, keys, g->temp_threshold, 4, 200, key);
    }
    if (strcmp(key, "pcie") == 0) {
        unsigned int vals[4] = { g->pcie_gen, g->pcie_width, g->pcie_max_gen, g->pcie_max_width };
        if (parse_pairs(p, v, parse_pcie_keys, vals, 4, 64, key) < 0)
            return -1;
        g->pcie_gen = vals[0];
        g->pcie_width = vals[1];
        g->pcie_max_gen = vals[2];
        g->pcie_max_width = vals[3];
        return 0;
    }
    if (strcmp(key, "fans") == 0) {
        if (parse_uint(p, v, 0, 16, &u, "fans") < 0)
            return -1;
        g->num_fans = (unsigned int)u;
        g->set |= SIM_SET_FANS;
        return 0;
    }
    if (strcmp(key, "ecc") == 0)
        return parse_switch(p, v, key, &g->ecc_enabled);
    if (strcmp(key, "gpm") == 0) {
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
            return sim_expr_fail(p, "gpm must be on or off (default: on for Hopper and newer names)");
        g->gpm = v[1] == 'n';
        return 0;
    }
    if (strcmp(key, "mig") == 0)
        return parse_mig(p, v, g);
    if (strcmp(key, "persistence") == 0 || strcmp(key, "display") == 0)
        return parse_switch(p, v, key, key[0] == 'p' ? &g->persistence : &g->display);
    if (strcmp(key, "compute_mode") == 0) {
        static const struct { const char *name; int mode; } modes[] = {
            { "default", NVML_COMPUTEMODE_DEFAULT },
            { "exclusive_process", NVML_COMPUTEMODE_EXCLUSIVE_PROCESS },
            { "prohibited", NVML_COMPUTEMODE_PROHIBITED },
        };
        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
            if (strcmp(v, modes[i].name) == 0) {
                g->compute_mode = modes[i].mode;
                return 0;
            }
        return sim_expr_fail(p, "compute_mode must be default, exclusive_process or prohibited");
    }
    if (strcmp(key, "vbios") == 0) {
        g->set |= SIM_SET_VBIOS;
        return parse_text_value(p, v, g->vbios, sizeof(g->vbios), key);
    }
    if (strcmp(key, "nvlinks") == 0) {
        if (parse_uint(p, v, 0, 18, &u, "nvlinks") < 0)
            return -1;
        g->nvlinks = (unsigned int)u;
        g->set |= SIM_SET_NVLINKS;
        return 0;
    }
    if (strcmp(key, "bar1_total") == 0) {
        if (sim_expr_quantity(p, v, &d) < 0)
            return -1;
        if (d < 1048576.0 || d > 1125899906842624.0)
            return sim_expr_fail(p, "bar1_total out of range (1 MiB..1 PiB)");
        g->bar1_total = (unsigned long long)d;
        g->set |= SIM_SET_BAR1;
        return 0;
    }
    if (strcmp(key, "unsupported") == 0)
        return parse_families(p, v, &g->unsupported);
    if (strcmp(key, "process") == 0) {
        struct sim_process pr, *np;
        if (parse_process(p, v, &pr) < 0)
            return -1;
        if ((unsigned long long)pr.pid + offset > 4194304ull)
            return sim_expr_fail(p, "process: pid out of range");
        pr.pid += offset;
        if (g->nprocs >= SIM_MAX_PROCS)
            return sim_expr_fail(p, "too many processes on one GPU (max %d)", SIM_MAX_PROCS);
        np = realloc(g->procs, (g->nprocs + 1) * sizeof(*np));
        if (!np)
            return sim_expr_fail(p, "out of memory");
        g->procs = np;
        g->procs[g->nprocs++] = pr;
        return 0;
    }
    if (strcmp(key, "at") == 0)
        return parse_at(p, v, g);
    return sim_expr_fail(p, "unknown key \"%.40s\"", key);
}

static int parse_block_header(struct sim_parse *p, const char *v, struct parse_block *b)
{
    unsigned long long lo, hi;
    char a[32], *dash;

    if (strlen(v) >= sizeof(a))
        return sim_expr_fail(p, "gpu: expected an index or a range like 0-7");
    strcpy(a, v);
    dash = strchr(a, '-');
    if (dash)
        *dash = '\0';
    if (parse_uint(p, a, 0, SIM_MAX_GPUS - 1, &lo, "gpu index") < 0)
        return -1;
    hi = lo;
    if (dash && parse_uint(p, dash + 1, 0, SIM_MAX_GPUS - 1, &hi, "gpu index") < 0)
        return -1;
    if (hi < lo)
        return sim_expr_fail(p, "gpu: range end before start");
    b->active = 1;
    b->lo = (unsigned int)lo;
    b->hi = (unsigned int)hi;
    /* GPUs get their defaults when first declared (lower indices too: the
     * count is 1 + the highest index), not all SIM_MAX_GPUS up front. */
    for (unsigned int i = p->sc->ngpus; i <= hi; i++)
        sim_scenario_default_gpu(&p->sc->gpus[i]);
    if (hi + 1 > p->sc->ngpus)
        p->sc->ngpus = (unsigned int)hi + 1;
    return 0;
}

static int parse_line(struct sim_parse *p, char *line, struct parse_block *b)
{
    char key[64], *hash = strchr(line, '#');
    const char *s, *v;
    size_t n = 0;
    int r;

    if (hash)
        *hash = '\0';
    s = parse_skip(line);
    n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    ((char *)s)[n] = '\0';
    if (*s == '\0')
        return 0;
    for (n = 0; s[n] && s[n] != ' ' && s[n] != '\t' && s[n] != '='; n++)
        ;
    if (n >= sizeof(key))
        return sim_expr_fail(p, "unknown key \"%.40s\"", s);
    memcpy(key, s, n);
    key[n] = '\0';
    v = parse_skip(s + n);
    if (strcmp(key, "gpu") == 0)
        return parse_block_header(p, v, b);
    r = parse_top_key(p, key, v);
    if (r <= 0)
        return r;
    if (!b->active) {
        if (sim_scenario_metric_by_name(key) >= 0 || strcmp(key, "process") == 0 ||
            strcmp(key, "at") == 0 || strcmp(key, "name") == 0)
            return sim_expr_fail(p, "\"%s\" outside a gpu block", key);
        return sim_expr_fail(p, "unknown key \"%.40s\"", key);
    }
    for (unsigned int i = b->lo; i <= b->hi; i++)
        if (parse_gpu_key(p, key, v, &p->sc->gpus[i], i - b->lo) < 0)
            return -1;
    return 0;
}

static int parse_fault_cmp(const void *a, const void *b)
{
    const struct sim_fault *x = a, *y = b;

    if (x->t_us != y->t_us)
        return x->t_us < y->t_us ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct sim_scenario *sim_scenario_parse_text(const char *text, size_t len, const char *path,
                                             const char *dir, char *err, size_t errlen)
{
    struct sim_scenario *sc = calloc(1, sizeof(*sc));
    struct parse_block block = { 0, 0, 0 };
    struct sim_parse p;
    char *line = malloc(SIM_MAX_LINE);
    size_t pos = 0;
    int r;

    if (!sc || !line) {
        snprintf(err, errlen, "%s:0: out of memory", path);
        free(sc);
        free(line);
        return NULL;
    }
    err[0] = '\0';
    snprintf(sc->path, sizeof(sc->path), "%s", path);
    sc->seed = 1;
    sc->sample_period_ms = 166;
    sc->pcie_latency_ms = 20;
    memset(&p, 0, sizeof(p));
    p.sc = sc;
    p.path = path;
    p.dir = dir;
    p.err = err;
    p.errlen = errlen;
    while ((r = sim_expr_next_line(text, len, &pos, line, SIM_MAX_LINE)) != 0) {
        p.line++;
        if (p.line > SIM_MAX_LINES) {
            sim_expr_fail(&p, "too many lines (max %d)", SIM_MAX_LINES);
            goto fail;
        }
        if (r < 0) {
            sim_expr_fail(&p, "line too long or holds a control character");
            goto fail;
        }
        if (parse_line(&p, line, &block) < 0)
            goto fail;
    }
    for (unsigned int i = 0; i < sc->ngpus; i++) {
        struct sim_gpu *g = &sc->gpus[i];
        if (g->memory_reserved > g->memory_total) {
            snprintf(err, errlen, "%s:%zu: gpu %u: memory_reserved exceeds memory_total", path, p.line, i);
            goto fail;
        }
        sim_scenario_finish_gpu(sc, g, i);
        if ((g->mig_current || g->mig_pending) && !g->board->mig_max) {
            snprintf(err, errlen, "%s:%zu: gpu %u: mig on needs a board with MIG (A100, A30, H100, H200, B200...), "
                     "not %.60s", path, p.line, i, g->name);
            goto fail;
        }
        if (g->nfaults > 1)
            qsort(g->faults, g->nfaults, sizeof(*g->faults), parse_fault_cmp);
    }
    free(line);
    return sc;
fail:
    free(line);
    sim_scenario_free(sc);
    return NULL;
}

struct sim_scenario *sim_scenario_load(const char *path, char *err, size_t errlen)
{
    struct sim_scenario *sc;
    char dir[1024];
    const char *slash;
    size_t len;
    int too_big;
    char *text;

    if (!path)
        return sim_scenario_parse_text(sim_scenario_builtin, strlen(sim_scenario_builtin), "<builtin>",
                                       NULL, err, errlen);
    text = sim_expr_read_file(path, PARSE_MAX_FILE_BYTES, &len, &too_big);
    if (!text) {
        if (too_big)
            snprintf(err, errlen, "%s:0: file larger than %u bytes", path, PARSE_MAX_FILE_BYTES);
        else
            snprintf(err, errlen, "%s:0: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) < sizeof(dir))
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    else
        snprintf(dir, sizeof(dir), ".");
    sc = sim_scenario_parse_text(text, len, path, dir, err, errlen);
    free(text);
    return sc;
}

void sim_scenario_free(struct sim_scenario *sc)
{
    if (!sc)
        return;
    for (unsigned int i = 0; i < SIM_MAX_GPUS; i++) {
        free(sc->gpus[i].procs);
        free(sc->gpus[i].faults);
    }
    for (size_t i = 0; i < sc->ntraces; i++) {
        free(sc->traces[i]->t);
        free(sc->traces[i]->v);
        free(sc->traces[i]);
    }
    free(sc);
}
