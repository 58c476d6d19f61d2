/*
 * diag_groups.c: the verdicts grouped (diag.h's diag_groups): for each rule
 * the GPUs that had it, when, and their evidence merged. Two evidence
 * texts "say the same" when they differ only in their numbers; the GPUs
 * that say the same get one text whose differing numbers are ranges
 * ("p50 26-27"), taking each number's lowest and highest form as written.
 * The summary's text and JSON render the groups here; the report renders
 * them through diag_groups' callback. Wording of the rules stays in
 * rules.c and rules_evidence.c; this file only assembles it.
 */
#include "diag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"

/* A number of an evidence text: where it starts, how long it is, its value. */
struct diag_num {
    size_t at, len;
    double v;
};

/* The numbers of text (digits, with a fraction), at most max; their count. */
static unsigned diag_numbers(const char *text, struct diag_num *out, unsigned max)
{
    unsigned n = 0;
    for (size_t i = 0; text[i] && n < max;) {
        if (text[i] < '0' || text[i] > '9') {
            i++;
            continue;
        }
        size_t j = i;
        while (text[j] >= '0' && text[j] <= '9')
            j++;
        if (text[j] == '.' && text[j + 1] >= '0' && text[j + 1] <= '9')
            for (j++; text[j] >= '0' && text[j] <= '9'; j++)
                ;
        out[n++] = (struct diag_num){i, j - i, strtod(text + i, NULL)};
        i = j;
    }
    return n;
}

#define DIAG_MAX_NUMS 64

/* Whether two evidence texts say the same but for their numbers. */
static bool diag_same_words(const char *x, const char *y)
{
    struct diag_num a[DIAG_MAX_NUMS], c[DIAG_MAX_NUMS];
    unsigned na = diag_numbers(x, a, DIAG_MAX_NUMS), nc = diag_numbers(y, c, DIAG_MAX_NUMS);
    if (na != nc)
        return false;
    size_t pa = 0, pc = 0;
    for (unsigned k = 0; k <= na; k++) {
        size_t ea = k < na ? a[k].at : strlen(x), ec = k < nc ? c[k].at : strlen(y);
        if (ea - pa != ec - pc || memcmp(x + pa, y + pc, ea - pa))
            return false;
        if (k < na)
            pa = a[k].at + a[k].len, pc = c[k].at + c[k].len;
    }
    return true;
}

/* The evidence of GPUs gs[0..n) (the same words) as one text: each number that differs as its range
 * ("waited 38-40% of the time"). */
static void diag_merge_evidence(const struct diag *d, int r, const unsigned *gs, unsigned n, struct sbuf *b)
{
    const char *first = diag_verdict(d, gs[0], r)->evidence;
    struct diag_num base[DIAG_MAX_NUMS], o[DIAG_MAX_NUMS];
    unsigned nb = diag_numbers(first, base, DIAG_MAX_NUMS);
    size_t at = 0;
    for (unsigned k = 0; k < nb; k++) {
        const char *lo = first + base[k].at, *hi = lo;
        size_t llo = base[k].len, lhi = llo;
        double vlo = base[k].v, vhi = vlo;
        for (unsigned i = 1; i < n; i++) {
            const char *e = diag_verdict(d, gs[i], r)->evidence;
            diag_numbers(e, o, DIAG_MAX_NUMS);
            if (o[k].v < vlo)
                vlo = o[k].v, lo = e + o[k].at, llo = o[k].len;
            if (o[k].v > vhi)
                vhi = o[k].v, hi = e + o[k].at, lhi = o[k].len;
        }
        sbuf_add(b, first + at, base[k].at - at);
        sbuf_add(b, lo, llo);
        if (vhi > vlo) {
            sbuf_putc(b, '-');
            sbuf_add(b, hi, lhi);
        }
        at = base[k].at + base[k].len;
    }
    sbuf_puts(b, first + at);
}

/* "GPU 5", "GPUs 0-3, 5", with their nodes in a diagnosis of several ("node-a GPUs 0-7, node-b GPU 2"). */
static void diag_gpu_set(const struct diag *d, const unsigned *gs, unsigned n, struct sbuf *b)
{
    const struct analyzer *an = diag_analyzer(d);
    bool nodes = analyze_nnodes(an) > 1;
    for (unsigned i = 0; i < n;) {
        const char *host = analyze_gpu_host(an, gs[i]);
        unsigned j = i, count = 0;
        while (j < n && (!nodes || !strcmp(analyze_gpu_host(an, gs[j]), host)))
            j++, count++;
        if (i)
            sbuf_puts(b, ", ");
        if (nodes)
            sbuf_printf(b, "%s ", host[0] ? host : "(no hostname)");
        sbuf_puts(b, count == 1 ? "GPU " : "GPUs ");
        for (unsigned k = i; k < j;) {   /* runs of consecutive indices */
            unsigned e = k;
            while (e + 1 < j && analyze_gpu_index(an, gs[e + 1]) == analyze_gpu_index(an, gs[e]) + 1)
                e++;
            sbuf_printf(b, k > i ? ",%u" : "%u", analyze_gpu_index(an, gs[k]));
            if (e > k)
                sbuf_printf(b, "-%u", analyze_gpu_index(an, gs[e]));
            k = e + 1;
        }
        i = j;
    }
}

/* A range of seconds as the text says it: "180 s", "178-182 s". */
static void diag_range(struct sbuf *b, const char *prefix, double lo, double hi)
{
    sbuf_printf(b, "%s%.0f", prefix, lo);
    if (floor(hi + 0.5) > floor(lo + 0.5))
        sbuf_printf(b, "-%.0f", hi);
}

void diag_groups(const struct diag *d, diag_group_fn *fn, void *ctx)
{
    unsigned n = analyze_ngpus(diag_analyzer(d));
    unsigned *gs = xmalloc((n ? n : 1) * sizeof *gs), *sub = xmalloc((n ? n : 1) * sizeof *sub);
    bool *done = xmalloc(n ? n : 1);
    struct sbuf gpus, when;
    struct sbuf *evt = NULL, *evs = NULL;   /* per evidence line: its GPUs, its text */
    unsigned evcap = 0;
    sbuf_init(&gpus), sbuf_init(&when);
    for (int r = 0; r < rule_count; r++) {
        unsigned k = 0, at_end = 0, nev = 0;
        double held_lo = INFINITY, held_hi = 0, first_lo = INFINITY, first_hi = -INFINITY;
        for (unsigned g = 0; g < n; g++) {
            const struct diag_verdict *v = diag_verdict(d, g, r);
            if (!v->ever)
                continue;
            gs[k++] = g;
            at_end += v->active;
            held_lo = fmin(held_lo, v->active_s), held_hi = fmax(held_hi, v->active_s);
            first_lo = fmin(first_lo, v->first_t), first_hi = fmax(first_hi, v->first_t);
        }
        if (k == 0)
            continue;
        sbuf_reset(&gpus), sbuf_reset(&when);
        diag_gpu_set(d, gs, k, &gpus);
        diag_range(&when, "held ", held_lo, held_hi);
        diag_range(&when, " s, first at +", first_lo - diag_first_time(d), first_hi - diag_first_time(d));
        sbuf_puts(&when, " s");
        if (at_end == k) {
            sbuf_puts(&when, ", still at the end");
        } else if (at_end) {
            unsigned m = 0;
            for (unsigned i = 0; i < k; i++)
                if (diag_verdict(d, gs[i], r)->active)
                    sub[m++] = gs[i];
            sbuf_puts(&when, ", still at the end on ");
            diag_gpu_set(d, sub, m, &when);
        }
        memset(done, 0, n);
        bool several = false;
        for (unsigned i = 0; i < k; i++)
            several |= !diag_same_words(diag_verdict(d, gs[0], r)->evidence, diag_verdict(d, gs[i], r)->evidence);
        for (unsigned i = 0; i < k; i++) {   /* one line per set of GPUs whose evidence has the same words */
            if (done[gs[i]])
                continue;
            unsigned m = 0;
            for (unsigned j = i; j < k; j++)
                if (!done[gs[j]] && diag_same_words(diag_verdict(d, gs[i], r)->evidence,
                                                    diag_verdict(d, gs[j], r)->evidence)) {
                    sub[m++] = gs[j];
                    done[gs[j]] = true;
                }
            if (nev == evcap) {
                evcap = evcap ? evcap * 2 : 4;
                evt = xrealloc(evt, evcap * sizeof *evt);
                evs = xrealloc(evs, evcap * sizeof *evs);
                for (unsigned q = nev; q < evcap; q++)
                    sbuf_init(&evt[q]), sbuf_init(&evs[q]);
            }
            sbuf_reset(&evt[nev]), sbuf_reset(&evs[nev]);
            if (several)
                diag_gpu_set(d, sub, m, &evt[nev]);
            diag_merge_evidence(d, r, sub, m, &evs[nev]);
            nev++;
        }
        struct diag_group grp = {.rule = r, .job_watched = diag_verdict(d, gs[0], r)->job_watched, .gpus = gpus.data,
                                 .when = when.data, .nev = nev};
        const char *gl[64], *tl[64];
        grp.ev_gpus = gl, grp.ev_text = tl;
        for (unsigned q = 0; q < nev && q < 64; q++)
            gl[q] = evt[q].data ? evt[q].data : "", tl[q] = evs[q].data ? evs[q].data : "";
        if (grp.nev > 64)
            grp.nev = 64;
        fn(ctx, &grp);
    }
    for (unsigned q = 0; q < evcap; q++)
        sbuf_free(&evt[q]), sbuf_free(&evs[q]);
    free(evt), free(evs);
    sbuf_free(&gpus), sbuf_free(&when);
    free(gs);
    free(sub);
    free(done);
}

struct diag_text_groups {
    struct sbuf *b;
    bool headed;
};

/* A group as the text summary says it. */
static void diag_group_text(void *ctx, const struct diag_group *g)
{
    struct diag_text_groups *tg = ctx;
    struct sbuf *b = tg->b;
    if (!tg->headed)
        sbuf_puts(b, "Verdicts:\n");
    tg->headed = true;
    char sev[16];
    snprintf(sev, sizeof sev, "%s", rules_severity_name(rule_table[g->rule].severity));
    for (char *p = sev; *p; p++)
        *p = (char)(*p - 'a' + 'A');
    sbuf_printf(b, "  %s  %-8s %s: %s\n           %s\n", g->gpus, sev, rule_table[g->rule].id, rule_table[g->rule].title,
                g->when);
    for (unsigned i = 0; i < g->nev; i++)
        sbuf_printf(b, "           evidence%s%s%s: %s\n", g->ev_gpus[i][0] ? " (" : "", g->ev_gpus[i],
                    g->ev_gpus[i][0] ? ")" : "", g->ev_text[i]);
    if (rule_table[g->rule].severity != SEV_OK)
        sbuf_printf(b, "           advice: %s\n", rules_advice(g->rule, g->job_watched));
}

/* The verdicts of every GPU, grouped (diag_groups), after a heading. */
void diag_groups_text(const struct diag *d, struct sbuf *b)
{
    struct diag_text_groups tg = {b, false};
    diag_groups(d, diag_group_text, &tg);
}

/* The GPUs gs[0..n) as JSON: [{"host":..,"index":..},...]. */
static void diag_gpus_json(const struct diag *d, const unsigned *gs, unsigned n, struct sbuf *b)
{
    sbuf_putc(b, '[');
    for (unsigned i = 0; i < n; i++) {
        sbuf_puts(b, i ? ",{\"host\":" : "{\"host\":");
        fmt_json_string(b, analyze_gpu_host(diag_analyzer(d), gs[i]));
        sbuf_printf(b, ",\"index\":%u}", analyze_gpu_index(diag_analyzer(d), gs[i]));
    }
    sbuf_putc(b, ']');
}

/* The grouped verdicts as JSON: "verdict_groups":[{"id","severity","title","gpus","held_s":[lo,hi],
 * "at_end":[GPUs],"evidence":[{"gpus","text"}],"advice"}]. */
void diag_groups_json(const struct diag *d, struct sbuf *b)
{
    unsigned n = analyze_ngpus(diag_analyzer(d));
    unsigned *gs = xmalloc((n ? n : 1) * sizeof *gs), *sub = xmalloc((n ? n : 1) * sizeof *sub);
    bool *done = xmalloc(n ? n : 1), first = true;
    struct sbuf ev;
    sbuf_init(&ev);
    sbuf_puts(b, ",\"verdict_groups\":[");
    for (int r = 0; r < rule_count; r++) {
        unsigned k = 0, m = 0;
        double lo = INFINITY, hi = 0;
        for (unsigned g = 0; g < n; g++) {
            const struct diag_verdict *v = diag_verdict(d, g, r);
            if (!v->ever)
                continue;
            gs[k++] = g;
            lo = fmin(lo, v->active_s), hi = fmax(hi, v->active_s);
        }
        if (k == 0)
            continue;
        sbuf_printf(b, "%s{\"id\":\"%s\",\"severity\":\"%s\",\"title\":", first ? "" : ",", rule_table[r].id,
                    rules_severity_name(rule_table[r].severity));
        first = false;
        fmt_json_string(b, rule_table[r].title);
        sbuf_puts(b, ",\"gpus\":");
        diag_gpus_json(d, gs, k, b);
        sbuf_printf(b, ",\"held_s\":[%.1f,%.1f],\"at_end\":", lo, hi);
        for (unsigned i = 0; i < k; i++)
            if (diag_verdict(d, gs[i], r)->active)
                sub[m++] = gs[i];
        diag_gpus_json(d, sub, m, b);
        sbuf_puts(b, ",\"evidence\":[");
        memset(done, 0, n);
        bool efirst = true;
        for (unsigned i = 0; i < k; i++) {
            if (done[gs[i]])
                continue;
            m = 0;
            for (unsigned j = i; j < k; j++)
                if (!done[gs[j]] && diag_same_words(diag_verdict(d, gs[i], r)->evidence,
                                                    diag_verdict(d, gs[j], r)->evidence)) {
                    sub[m++] = gs[j];
                    done[gs[j]] = true;
                }
            sbuf_puts(b, efirst ? "{\"gpus\":" : ",{\"gpus\":");
            efirst = false;
            diag_gpus_json(d, sub, m, b);
            sbuf_reset(&ev);
            diag_merge_evidence(d, r, sub, m, &ev);
            sbuf_puts(b, ",\"text\":");
            fmt_json_string(b, ev.data ? ev.data : "");
            sbuf_putc(b, '}');
        }
        sbuf_puts(b, "],\"advice\":");
        fmt_json_string(b, rules_advice(r, diag_verdict(d, gs[0], r)->job_watched));
        sbuf_putc(b, '}');
    }
    sbuf_putc(b, ']');
    sbuf_free(&ev);
    free(gs);
    free(sub);
    free(done);
}

