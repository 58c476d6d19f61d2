/*
 * opt.h: commands as data (tmux's cmd_entry is the model). A command is a
 * const struct cmd_entry: its name, usage line, description, option tables
 * and the function that runs it. One table of options per command (plus
 * the shared groups: the NVML options, the analysis options) drives both
 * parsing and --help, so the help can never drift from what is parsed.
 * Two parsing styles: GNU (getopt_long: -i 1s, --interval=1s, clustered
 * short options) for gpumon's own commands, and nvidia-smi's (-i 0,
 * --id=0, -lms 100: multi-letter single-dash forms) for `query`.
 */
#ifndef GPUMON_OPT_H
#define GPUMON_OPT_H

#include <stdbool.h>

struct opt {
    const char *name;           /* long name, --name; NULL ends a table */
    const char *alias;          /* short form without its dash ("i"; nvidia-smi style: "lms"), or NULL */
    const char *arg;            /* the value's name in help ("DUR"), or NULL for a flag */
    int key;                    /* what the command's handler receives */
    const char *help;           /* one line per '\n' */
};

enum opt_style { OPT_GNU, OPT_SMI };

/* Keys the parser hands to the handler in nvidia-smi style, so the command
 * can word the refusal as nvidia-smi does (value: the word). */
enum { OPT_KEY_UNKNOWN = -2, OPT_KEY_NO_VALUE = -3 };
/* A handler's (or opt_parse's) "done, exit 0": help or a listing was printed. */
#define OPT_DONE (-1)

struct cmd_entry {
    const char *name;           /* "watch" */
    const char *usage;          /* what follows "gpumon NAME" on the usage line */
    const char *summary;        /* one line for gpumon --help */
    const char *about;          /* the paragraph under the usage line */
    const struct opt *const *opts;   /* option tables, NULL-terminated */
    const char *notes;          /* after the options (exit status), or NULL */
    enum opt_style style;
    bool stop_at_operand;       /* options end at the first operand (run's command) */
    const int *signals;         /* the signals the command waits for (sig.h), 0-terminated, or NULL */
    int (*exec)(int argc, char **argv);
};

/* The handler of a command's options: returns 0, OPT_DONE, or an exit
 * status after printing the problem. value is NULL for a flag. */
typedef int opt_handler(void *ctx, int key, const char *value);

/* Parses argv[1..argc-1] against e's tables. Returns 0 with *first set to
 * the index of the first operand; OPT_DONE after --help (printed) or a
 * handler's OPT_DONE; or an exit status after a usage error was printed.
 * Operands are left to the caller. */
int opt_parse(const struct cmd_entry *e, int argc, char **argv, opt_handler *set, void *ctx, int *first);
/* Prints "gpumon CMD: MSG (see gpumon CMD --help)"; returns EXIT_USAGE (2). */
int opt_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints e's help: usage, about, every option of every table, notes, in
 * 80 columns: the texts are paragraphs, reflowed (a single '\n' in about,
 * notes or an option's help is a space, "\n\n" a new paragraph); in usage
 * '\n' breaks the line; a line too long wraps at a space. */
void opt_print_help(const struct cmd_entry *e);
/* Prints text on stdout from column col, wrapped at 80 columns at spaces,
 * its lines after the first indented by indent; reflow: a single '\n'
 * joins lines (see opt_print_help). Ends with a newline. */
void opt_print_wrapped(const char *text, int col, int indent, bool reflow);

#endif
