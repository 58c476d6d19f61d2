/*
 * rules_doc.c: the rule and threshold tables as documentation, so that
 * --list-rules, docs/rules.md and the man page's rules section are the
 * tables themselves (tests/cli/test_rule_docs.sh fails when the files
 * differ from what this prints; scripts/rule-docs rewrites them). Each
 * rule: id, severity, whether it needs a full window, what it holds on
 * (its .when, where {name} is a threshold, printed with its value), the
 * rules it stands aside for, title and advice; each threshold: name,
 * value, unit, meaning, and whether the analysis measures with it or the
 * rules alone decide with it.
 */
#include <stdio.h>
#include <string.h>
#include "rules_int.h"

/* A threshold's value with its unit: "95%", "1.25x", "120 s", "10". */
static void rules_doc_value(struct sbuf *b, const struct rule_config *c, int t)
{
    const char *unit = rules_thresholds[t].unit;
    sbuf_printf(b, "%g%s%s", c->t[t], *unit && strcmp(unit, "%") && strcmp(unit, "x") ? " " : "", unit);
}

/* Text with a format's escapes (Markdown: |; man: \ and a leading dot or quote). */
static void rules_doc_text(struct sbuf *b, const char *s, size_t n, enum rules_doc_format f)
{
    for (size_t i = 0; i < n; i++) {
        if (f == RULES_DOC_MARKDOWN && s[i] == '|')
            sbuf_putc(b, '\\');
        if (f == RULES_DOC_MAN && s[i] == '\\')
            sbuf_putc(b, '\\');
        if (f == RULES_DOC_MAN && (s[i] == '.' || s[i] == '\'') && (b->len == 0 || b->data[b->len - 1] == '\n'))
            sbuf_puts(b, "\\&");
        sbuf_putc(b, s[i]);
    }
}

/* A name (a rule's, a threshold's) as code; in man, its hyphens are minus signs, so that it copies. */
static void rules_doc_name(struct sbuf *b, const char *name, enum rules_doc_format f)
{
    sbuf_puts(b, f == RULES_DOC_MARKDOWN ? "`" : f == RULES_DOC_MAN ? "\\fB" : "");
    for (; *name; name++)
        sbuf_puts(b, f == RULES_DOC_MAN && *name == '-' ? "\\-" : (char[2]){*name, 0});
    sbuf_puts(b, f == RULES_DOC_MARKDOWN ? "`" : f == RULES_DOC_MAN ? "\\fR" : "");
}

/* A .when text, each {name} as "name (value)". */
static void rules_doc_when(struct sbuf *b, const char *w, const struct rule_config *c, enum rules_doc_format f)
{
    while (*w) {
        const char *open = strchr(w, '{'), *close = open ? strchr(open, '}') : NULL;
        if (!close) {
            rules_doc_text(b, w, strlen(w), f);
            return;
        }
        rules_doc_text(b, w, (size_t)(open - w), f);
        int t = -1;
        for (int i = 0; i < T_COUNT && t < 0; i++)
            if (strlen(rules_thresholds[i].name) == (size_t)(close - open - 1) &&
                !strncmp(rules_thresholds[i].name, open + 1, (size_t)(close - open - 1)))
                t = i;
        if (t < 0) {
            rules_doc_text(b, open, (size_t)(close - open + 1), f);   /* a unit test keeps this from happening */
        } else {
            rules_doc_name(b, rules_thresholds[t].name, f);
            sbuf_puts(b, " (");
            rules_doc_value(b, c, t);
            sbuf_putc(b, ')');
        }
        w = close + 1;
    }
}

/* "input-bound-io, input-bound-cpu" (ids as code), "any warning or critical verdict", or "-". */
static void rules_doc_yields(struct sbuf *b, const struct rule *r, enum rules_doc_format f)
{
    const char *sep = "";
    for (int i = 0; i < rule_count; i++)
        if (r->yields_to & RULE_BIT(i)) {
            sbuf_puts(b, sep);
            rules_doc_name(b, rule_table[i].id, f);
            sep = ", ";
        }
    if (r->yields_to_problems)
        sbuf_printf(b, "%sany warning or critical verdict", sep), sep = ", ";
    if (!*sep)
        sbuf_puts(b, f == RULES_DOC_TEXT ? "" : "-");
}

static void rules_doc_markdown(struct sbuf *b, const struct rule_config *c)
{
    sbuf_puts(b, "| rule | severity | holds when | stands aside for | title |\n| --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < rule_count; i++) {
        const struct rule *r = &rule_table[i];
        sbuf_printf(b, "| `%s` | %s%s | ", r->id, rules_severity_name(r->severity), r->needs_window ? "" : " (event)");
        rules_doc_when(b, r->when, c, RULES_DOC_MARKDOWN);
        sbuf_puts(b, " | ");
        rules_doc_yields(b, r, RULES_DOC_MARKDOWN);
        sbuf_puts(b, " | ");
        rules_doc_text(b, r->title, strlen(r->title), RULES_DOC_MARKDOWN);
        sbuf_puts(b, " |\n");
    }
    sbuf_puts(b, "\n");
    rules_doc_when(b, rules_doc_starving, c, RULES_DOC_MARKDOWN);
    sbuf_puts(b, "\n\n### Advice\n\n");
    for (int i = 0; i < rule_count; i++) {
        sbuf_printf(b, "- `%s`: ", rule_table[i].id);
        rules_doc_text(b, rule_table[i].advice, strlen(rule_table[i].advice), RULES_DOC_MARKDOWN);
        sbuf_putc(b, '\n');
    }
    sbuf_printf(b, "\n### Thresholds\n\n`--threshold NAME=VALUE` sets one; the window (`--window`) is %g s by "
                   "default.\n\n| threshold | default | meaning | read by |\n| --- | --- | --- | --- |\n", c->window_s);
    for (int t = 0; t < T_COUNT; t++) {
        sbuf_printf(b, "| `%s` | ", rules_thresholds[t].name);
        rules_doc_value(b, c, t);
        sbuf_puts(b, " | ");
        rules_doc_text(b, rules_thresholds[t].meaning, strlen(rules_thresholds[t].meaning), RULES_DOC_MARKDOWN);
        sbuf_puts(b, rules_thresholds[t].analysis ? " | the analysis (it measures with it) and the rules |\n"
                                                   : " | the rules |\n");
    }
}

static void rules_doc_man(struct sbuf *b, const struct rule_config *c)
{
    for (int i = 0; i < rule_count; i++) {
        const struct rule *r = &rule_table[i];
        sbuf_puts(b, ".TP\n");
        rules_doc_name(b, r->id, RULES_DOC_MAN);
        sbuf_printf(b, " (%s%s)\n", rules_severity_name(r->severity), r->needs_window ? "" : ", an event");
        sbuf_putc(b, (char)(r->title[0] >= 'a' && r->title[0] <= 'z' ? r->title[0] - 'a' + 'A' : r->title[0]));
        rules_doc_text(b, r->title + 1, strlen(r->title + 1), RULES_DOC_MAN);
        sbuf_puts(b, ". Holds when ");
        rules_doc_when(b, r->when, c, RULES_DOC_MAN);
        if (r->yields_to || r->yields_to_problems) {
            sbuf_puts(b, "; stands aside for ");
            rules_doc_yields(b, r, RULES_DOC_MAN);
        }
        sbuf_puts(b, ".\n");
    }
    sbuf_puts(b, ".PP\n");
    rules_doc_when(b, rules_doc_starving, c, RULES_DOC_MAN);
    sbuf_puts(b, "\n.PP\nThresholds (\\fB\\-\\-threshold\\fR \\fINAME\\fR=\\fIVALUE\\fR; the defaults):\n");
    for (int t = 0; t < T_COUNT; t++) {
        sbuf_puts(b, ".TP\n");
        rules_doc_name(b, rules_thresholds[t].name, RULES_DOC_MAN);
        sbuf_puts(b, " ");
        rules_doc_value(b, c, t);
        sbuf_puts(b, "\n");
        rules_doc_text(b, rules_thresholds[t].meaning, strlen(rules_thresholds[t].meaning), RULES_DOC_MAN);
        sbuf_puts(b, rules_thresholds[t].analysis ? " (the analysis measures with it)\n" : "\n");
    }
}

static void rules_doc_plain(struct sbuf *b, const struct rule_config *c)
{
    sbuf_puts(b, "RULES (most severe first)\n");
    for (int i = 0; i < rule_count; i++) {
        const struct rule *r = &rule_table[i];
        sbuf_printf(b, "  %-17s %-8s %s%s", r->id, rules_severity_name(r->severity), r->title,
                    r->needs_window ? "" : " (an event: no full window needed)");
        if (r->yields_to || r->yields_to_problems) {
            sbuf_puts(b, "; stands aside for ");
            rules_doc_yields(b, r, RULES_DOC_TEXT);
        }
        sbuf_putc(b, '\n');
    }
    sbuf_printf(b, "\nTHRESHOLDS (--threshold NAME=VALUE; window: --window, now %g s)\n", c->window_s);
    for (int i = 0; i < T_COUNT; i++)
        sbuf_printf(b, "  %-18s %8g %-6s %s\n", rules_thresholds[i].name, c->t[i], rules_thresholds[i].unit,
                    rules_thresholds[i].meaning);
}

void rules_print_doc(FILE *out, const struct rule_config *c, enum rules_doc_format format)
{
    struct sbuf b;
    sbuf_init(&b);
    if (format == RULES_DOC_MARKDOWN)
        rules_doc_markdown(&b, c);
    else if (format == RULES_DOC_MAN)
        rules_doc_man(&b, c);
    else
        rules_doc_plain(&b, c);
    fputs(b.data ? b.data : "", out);
    sbuf_free(&b);
}

void rules_print(const struct rule_config *c)
{
    rules_print_doc(stdout, c, RULES_DOC_TEXT);
}
