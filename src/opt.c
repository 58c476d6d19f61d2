/*
 * opt.c: option parsing and help from a command's tables (see opt.h).
 * GNU style builds getopt_long's tables from the options, once per call;
 * nvidia-smi style walks the tables itself, word by word, since nvidia-smi
 * has single-dash options of several letters that getopt cannot take.
 * Usage errors are printed here in gpumon's wording, except in nvidia-smi
 * style, where the command words them (OPT_KEY_UNKNOWN, OPT_KEY_NO_VALUE).
 */
#include "opt.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "exitcodes.h"

#define OPT_HELP_KEY 0x7fff0001
#define OPT_HELP_COLUMN 23
#define OPT_HELP_WIDTH 80     /* every line of help fits a terminal of 80 columns */

#define OPT_MAX 64

/* The options of e in table order, the help row last. Returns the count. */
static size_t opt_flatten(const struct cmd_entry *e, const struct opt **out)
{
    static const struct opt help = {"help", "h", NULL, OPT_HELP_KEY, "this help"};
    size_t n = 0;
    for (const struct opt *const *t = e->opts; t && *t; t++)
        for (const struct opt *o = *t; o->name && n + 1 < OPT_MAX; o++)
            out[n++] = o;
    out[n++] = &help;
    return n;
}

static int opt_parse_gnu(const struct cmd_entry *e, int argc, char **argv, opt_handler *set, void *ctx, int *first)
{
    const struct opt *all[OPT_MAX];
    size_t k = opt_flatten(e, all);
    struct option lo[OPT_MAX + 1];
    char shorts[2 * OPT_MAX + 3] = ":";
    size_t sl = 1;
    if (e->stop_at_operand)
        shorts[0] = '+', shorts[1] = ':', sl = 2;
    for (size_t i = 0; i < k; i++) {
        lo[i] = (struct option){all[i]->name, all[i]->arg ? required_argument : no_argument, NULL,
                                (int)(0x10000 + i)};
        if (all[i]->alias) {
            shorts[sl++] = all[i]->alias[0];
            if (all[i]->arg)
                shorts[sl++] = ':';
        }
    }
    lo[k] = (struct option){NULL, 0, NULL, 0};
    shorts[sl] = '\0';
    optind = 0;   /* 0, not 1: glibc re-reads the optstring ("+") and forgets an earlier call's state */
    opterr = 0;
    int c, rc = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const struct opt *hit = NULL;
        if (c >= 0x10000 && (size_t)(c - 0x10000) < k) {
            hit = all[c - 0x10000];
        } else if (c == ':') {
            rc = opt_usage_error(e->name, "option %s needs a value", argv[optind - 1]);
        } else if (c == '?') {
            char shortopt[3] = {'-', (char)optopt, '\0'};
            bool is_short = optopt > 0 && optopt < 0x10000 && argv[optind - 1][1] != '-';
            rc = opt_usage_error(e->name, "unknown option %s", is_short ? shortopt : argv[optind - 1]);
        } else {
            for (size_t i = 0; i < k && !hit; i++)
                if (all[i]->alias && all[i]->alias[0] == c)
                    hit = all[i];
        }
        if (!hit)
            continue;
        if (hit->key == OPT_HELP_KEY) {
            opt_print_help(e);
            rc = OPT_DONE;
        } else {
            rc = set(ctx, hit->key, hit->arg ? optarg : NULL);
        }
    }
    *first = optind;
    return rc;
}

/* nvidia-smi style: --name=V, --name V, -alias V, -alias=V. */
static int opt_parse_smi(const struct cmd_entry *e, int argc, char **argv, opt_handler *set, void *ctx, int *first)
{
    const struct opt *all[OPT_MAX];
    size_t n = opt_flatten(e, all);
    int i = 1, rc = 0;
    for (; rc == 0 && i < argc; i++) {
        const char *a = argv[i];
        const struct opt *hit = NULL;
        const char *value = NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || !a[1])
            break;   /* the first operand */
        const char *word = a + (a[1] == '-' ? 2 : 1);
        size_t wl = strcspn(word, "=");
        for (size_t o = 0; o < n && !hit; o++) {
            const char *name = a[1] == '-' ? all[o]->name : all[o]->alias;
            if (name && strlen(name) == wl && !strncmp(word, name, wl))
                hit = all[o];
        }
        if (!hit) {
            rc = set(ctx, OPT_KEY_UNKNOWN, a);
            continue;
        }
        if (hit->arg) {
            if (word[wl] == '=')
                value = word + wl + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else {
                rc = set(ctx, OPT_KEY_NO_VALUE, a);
                continue;
            }
        } else if (word[wl] == '=') {
            rc = set(ctx, OPT_KEY_UNKNOWN, a);
            continue;
        }
        if (hit->key == OPT_HELP_KEY) {
            opt_print_help(e);
            rc = OPT_DONE;
        } else {
            rc = set(ctx, hit->key, value);
        }
    }
    *first = i;
    return rc;
}

int opt_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gpumon %s: %s (see gpumon %s --help)\n", cmd, msg, cmd);
    return EXIT_USAGE;
}

int opt_parse(const struct cmd_entry *e, int argc, char **argv, opt_handler *set, void *ctx, int *first)
{
    return e->style == OPT_SMI ? opt_parse_smi(e, argc, argv, set, ctx, first)
                               : opt_parse_gnu(e, argc, argv, set, ctx, first);
}

void opt_print_wrapped(const char *text, int col, int indent, bool reflow)
{
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            bool paragraph = p[1] == '\n';
            if (reflow && !paragraph && p[1]) {   /* a soft break: the words go on */
                p++;
                if (col > indent && *p != ' ') {
                    if (col + 1 + (int)strcspn(p, " \n") > OPT_HELP_WIDTH) {
                        printf("\n%*s", indent, "");
                        col = indent;
                    } else {
                        putchar(' ');
                        col++;
                    }
                }
                continue;
            }
            p += paragraph ? 2 : 1;
            printf(paragraph ? "\n\n" : "\n");
            if (*p)
                printf("%*s", indent, "");
            col = indent;
            continue;
        }
        size_t spaces = strspn(p, " "), word = strcspn(p + spaces, " \n");
        if (col > indent && col + (int)(spaces + word) > OPT_HELP_WIDTH) {
            printf("\n%*s", indent, "");   /* the spaces before a wrapped word go */
            col = indent;
            p += spaces;
            spaces = 0;
        }
        printf("%.*s", (int)(spaces + word), p);
        col += (int)(spaces + word);
        p += spaces + word;
    }
    putchar('\n');
}

void opt_print_help(const struct cmd_entry *e)
{
    const struct opt *all[OPT_MAX];
    size_t n = opt_flatten(e, all);
    int lead = printf("Usage: gpumon %s ", e->name);
    opt_print_wrapped(e->usage, lead, lead, false);
    opt_print_wrapped(e->about, 0, 0, true);
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        const struct opt *o = all[i];
        char head[96];
        const char *dashes = e->style == OPT_SMI || !o->alias ? "" : "-";
        if (o->alias && e->style == OPT_SMI)
            snprintf(head, sizeof head, "  -%s, --%s%s%s", o->alias, o->name, o->arg ? "=" : "",
                     o->arg ? o->arg : "");
        else if (o->alias)
            snprintf(head, sizeof head, "  %s%s, --%s%s%s", dashes, o->alias, o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        else
            snprintf(head, sizeof head, "      --%s%s%s", o->name, o->arg ? (e->style == OPT_SMI ? "=" : " ") : "",
                     o->arg ? o->arg : "");
        size_t hl = strlen(head);
        fputs(head, stdout);
        if (hl + 2 > OPT_HELP_COLUMN)
            printf("\n%*s", OPT_HELP_COLUMN, "");
        else
            printf("%*s", (int)(OPT_HELP_COLUMN - hl), "");
        opt_print_wrapped(o->help, OPT_HELP_COLUMN, OPT_HELP_COLUMN, true);
    }
    if (e->notes) {
        putchar('\n');
        opt_print_wrapped(e->notes, 0, 0, true);
    }
}
