/*
 * report.c: the report page (see report.h): header, per-GPU summary
 * figures, charts (report_svg.c) and the verdicts with evidence and
 * advice. Everything is inline: CSS in a <style>, charts as SVG, and one
 * small inline script that only checks the page (it counts the charts
 * into a data attribute that tests read; the page reads fine without it).
 * The file is written whole (wfile.c: atomically over a regular file, through a device).
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "wfile.h"

struct report {
    struct stepstat *steps;          /* which GPU each reporting process is on, and its latest figures */
    struct report_gpu **gpus;        /* by the analyzer's number of the GPU (analyze_gpu_of); NULL: none yet */
    unsigned ngpus, cap;
    double t0, t1;
    char host[256];
};

static const char report_css[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;max-width:900px}"
    "h1{font-size:20px}h2{font-size:17px;border-top:1px solid #ccc;padding-top:12px}"
    "figure{margin:6px 0}figcaption{font-size:12px;color:#555}"
    ".chart{display:block}.plot{fill:#fafafa;stroke:#ddd}.idle{fill:#d9d9d9;opacity:.7}"
    ".thr{fill:#ffb347;opacity:.45}.lost{fill:#e06666;opacity:.5}.band{fill:#7aa6d6;opacity:.45}"
    ".mean{fill:none;stroke:#1f4e89;stroke-width:1.2}.ref{stroke:#888;stroke-dasharray:4 3}"
    ".mark{stroke-width:1.5}.mark.critical{stroke:#c00}.mark.warning{stroke:#e69500}.mark.info{stroke:#2a7ab0}"
    ".mark.ok{stroke:#2e8b57}.mark.end{stroke-dasharray:2 3;stroke-width:1}.ax{font-size:10px;fill:#555}"
    ".legend span{display:inline-block;margin-right:14px;font-size:12px}"
    ".sw{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:middle}"
    "table{border-collapse:collapse}td,th{padding:2px 10px 2px 0;text-align:left}"
    ".v{border-left:4px solid #999;padding:4px 10px;margin:8px 0;background:#f7f7f7}"
    ".v.critical{border-color:#c00}.v.warning{border-color:#e69500}.v.info{border-color:#2a7ab0}"
    ".v.ok{border-color:#2e8b57}.note{font-size:12px;color:#555}";

static const char report_script[] =
    "<script>(function(){var n=document.querySelectorAll('svg.chart').length;"
    "document.body.setAttribute('data-charts',String(n));"
    "var p=document.getElementById('check');if(p)p.textContent='charts rendered: '+n;})();</script>";

struct report *report_new(void)
{
    struct report *rp = xcalloc(1, sizeof(struct report));
    rp->steps = stepstat_new(1);
    return rp;
}

void report_free(struct report *rp)
{
    if (!rp)
        return;
    for (unsigned i = 0; i < rp->ngpus; i++)
        report_gpu_free(rp->gpus[i]);
    free(rp->gpus);
    stepstat_free(rp->steps);
    free(rp);
}

/* The charts of the analyzer's GPU number slot (its index given), created at time t on first sight. */
static struct report_gpu *report_gpu_for(struct report *rp, unsigned slot, unsigned index, double t)
{
    if (slot >= rp->cap) {
        unsigned cap = rp->cap ? rp->cap : 8;
        while (cap <= slot)
            cap *= 2;
        rp->gpus = xrealloc(rp->gpus, cap * sizeof *rp->gpus);
        memset(rp->gpus + rp->cap, 0, (cap - rp->cap) * sizeof *rp->gpus);
        rp->cap = cap;
    }
    if (!rp->gpus[slot])
        rp->gpus[slot] = report_gpu_new(index, t);
    if (slot >= rp->ngpus)
        rp->ngpus = slot + 1;
    return rp->gpus[slot];
}

void report_feed(struct report *rp, const struct diag *d, const struct record *r)
{
    double t = (double)r->time.tv_sec + r->time.tv_nsec / 1e9;
    if (t < rp->t1)
        return;
    if (rp->t0 == 0)
        rp->t0 = t;
    rp->t1 = t;
    if (r->hostname && !rp->host[0])
        snprintf(rp->host, sizeof rp->host, "%s", r->hostname);
    stepstat_feed(rp->steps, r, t);
    for (unsigned i = 0; i < r->ngpus; i++) {
        int slot = analyze_gpu_of(diag_analyzer(d), r, i);
        if (slot < 0)
            continue;
        struct report_gpu *g = report_gpu_for(rp, (unsigned)slot, r->gpus[i].index, t);
        struct stepstat_fig st;
        report_gpu_add(g, &r->gpus[i], t, stepstat_latest(rp->steps, r->gpus[i].index, &st) ? &st : NULL);
    }
}

void report_change(struct report *rp, const struct diag_change *ch)
{
    report_gpu_mark(report_gpu_for(rp, ch->slot, ch->gpu, ch->t), ch);
}

static void report_ts(double t, struct sbuf *b)
{
    char ts[32];
    struct timespec tv = {(time_t)floor(t), (long)((t - floor(t)) * 1e9)};
    util_rfc3339(&tv, ts);
    sbuf_puts(b, ts);
}

static void report_gpu_section(const struct report *rp, const struct diag *d, unsigned i, struct sbuf *b)
{
    struct analyze_summary t;
    analyze_summary(diag_analyzer(d), i, &t);
    const struct report_gpu *g = i < rp->ngpus ? rp->gpus[i] : NULL;
    if (t.twin > 1)   /* the index came back with another UUID: another GPU, its own section */
        sbuf_printf(b, "<section class=\"gpu\" id=\"gpu%u-%u\"><h2>GPU %u &ndash; ", t.index, t.twin, t.index);
    else
        sbuf_printf(b, "<section class=\"gpu\" id=\"gpu%u\"><h2>GPU %u &ndash; ", t.index, t.index);
    report_html_escape(b, t.name[0] ? t.name : "unnamed");
    if (t.twin) {
        sbuf_puts(b, " (");
        report_html_escape(b, t.uuid[0] ? t.uuid : "no UUID");
        sbuf_putc(b, ')');
    }
    sbuf_puts(b, "</h2>\n");
    diag_summary_html(&t, b);
    if (g)
        report_gpu_charts(g, rp->t0, rp->t1, b);
    bool any = false;
    for (int r = 0; r < rule_count; r++) {
        const struct diag_verdict *v = diag_verdict(d, i, r);
        if (!v->ever)
            continue;
        any = true;
        const char *sev = rules_severity_name(rule_table[r].severity);
        sbuf_printf(b, "<div class=\"v %s\" data-rule=\"%s\"><b>%s</b> %s: ", sev, rule_table[r].id, sev,
                    rule_table[r].id);
        report_html_escape(b, rule_table[r].title);
        sbuf_printf(b, "<br><span class=\"note\">held %.0f s from ", v->active_s);
        report_ts(v->first_t, b);
        sbuf_puts(b, v->active ? ", still at the end" : "");
        sbuf_puts(b, "</span><br>Evidence: ");
        report_html_escape(b, v->evidence);
        if (rule_table[r].severity != SEV_OK) {
            sbuf_puts(b, "<br>Advice: ");
            report_html_escape(b, rules_advice(r, v->job_watched));
        }
        sbuf_puts(b, "</div>\n");
    }
    if (!any)
        sbuf_puts(b, diag_had_enough(d, i) ? "<p>No verdict: no rule held.</p>\n"
                                           : "<p>No verdict: too little data for the analysis window.</p>\n");
    sbuf_puts(b, "</section>\n");
}

static void report_ms(struct sbuf *b, double seconds)
{
    if (isnan(seconds))
        sbuf_puts(b, "<td>n/a</td>");
    else
        sbuf_printf(b, "<td>%.1f ms</td>", seconds * 1e3);
}

/* The processes that reported steps, side by side (whole run). */
static void report_steps_section(const struct diag *d, struct sbuf *b)
{
    const struct analyzer *an = diag_analyzer(d);
    const struct stepstat *ss = analyze_steps(an);
    unsigned n = ss ? stepstat_nranks(ss) : 0;   /* no step table before the first record */
    if (n == 0)
        return;
    sbuf_puts(b, "<section id=\"steps\"><h2>Training steps (reported by the job)</h2>\n<table><tr><th>rank</th>"
                 "<th>pid</th><th>GPU</th><th>steps</th><th>steps/s of training</th><th>p50 step</th><th>p95 step</th>"
                 "<th>mean wait</th><th>waiting for input</th></tr>\n");
    for (unsigned i = 0; i < n; i++) {
        struct stepstat_rank r;
        stepstat_rank(ss, i, analyze_now(an), &r);
        sbuf_puts(b, "<tr data-pid=\"");
        sbuf_put_int(b, r.pid);
        sbuf_puts(b, "\">");
        sbuf_printf(b, r.rank >= 0 ? "<td>%d</td>" : "<td>-</td>", r.rank);
        sbuf_printf(b, "<td>%d</td>", r.pid);
        sbuf_printf(b, r.gpu >= 0 ? "<td>%d</td>" : "<td>all</td>", r.gpu);
        sbuf_printf(b, "<td>%.0f</td><td>%.2f</td>", r.run.steps, isnan(r.run.rate) ? 0 : r.run.rate);
        report_ms(b, r.run.p50);
        report_ms(b, r.run.p95);
        report_ms(b, r.run.wait_mean);
        if (isnan(r.run.wait_share))
            sbuf_puts(b, "<td>n/a</td></tr>\n");
        else
            sbuf_printf(b, "<td>%.1f%%</td></tr>\n", r.run.wait_share);
    }
    sbuf_puts(b, "</table>\n<p class=\"note\">From the job's own step timing (python/gpumon): the time between a "
                 "step's end and the next batch's arrival is waiting for input. A process on no visible GPU is "
                 "counted on all of them.</p></section>\n");
}

unsigned report_ngpus(const struct report *rp)
{
    return rp->ngpus;
}

int report_write(const struct report *rp, const struct diag *d, const char *path, const char *source,
                 size_t *written, char *err, size_t errlen)
{
    struct sbuf b;
    sbuf_init(&b);
    sbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width\"><title>gpumon report");
    if (rp->host[0]) {
        sbuf_puts(&b, " &ndash; ");
        report_html_escape(&b, rp->host);
    }
    sbuf_printf(&b, "</title><style>%s</style></head>\n<body>\n<h1>gpumon report</h1>\n<p>", report_css);
    report_html_escape(&b, source);
    if (rp->host[0]) {
        sbuf_puts(&b, " on ");
        report_html_escape(&b, rp->host);
    }
    sbuf_puts(&b, ": ");
    if (rp->ngpus) {
        report_ts(rp->t0, &b);
        sbuf_puts(&b, " to ");
        report_ts(rp->t1, &b);
        sbuf_printf(&b, " (%.0f s), %u GPU%s. Times on the axes are UTC.", rp->t1 - rp->t0, rp->ngpus,
                    rp->ngpus == 1 ? "" : "s");
    } else {
        sbuf_puts(&b, "no GPU records.");
    }
    sbuf_puts(&b, "</p>\n<p class=\"legend\"><span><i class=\"sw\" style=\"background:#d9d9d9\"></i>idle</span>"
                  "<span><i class=\"sw\" style=\"background:#ffb347\"></i>throttled (thermal or power)</span>"
                  "<span><i class=\"sw\" style=\"background:#e06666\"></i>GPU lost</span>"
                  "<span><i class=\"sw\" style=\"background:#c00\"></i>critical</span>"
                  "<span><i class=\"sw\" style=\"background:#e69500\"></i>warning</span>"
                  "<span><i class=\"sw\" style=\"background:#2a7ab0\"></i>info</span>"
                  "<span><i class=\"sw\" style=\"background:#2e8b57\"></i>healthy</span> verdict starts "
                  "(dotted: ends)</p>\n<p id=\"check\" class=\"note\"></p>\n");
    const struct analyzer *an = diag_analyzer(d);
    for (unsigned i = 0; i < analyze_ngpus(an); i++)
        report_gpu_section(rp, d, i, &b);
    report_steps_section(d, &b);
    sbuf_printf(&b, "%s\n</body></html>\n", report_script);

    int rc = wfile_write(path, b.data, b.len, err, errlen);
    if (rc == 0 && written)
        *written = b.len;
    sbuf_free(&b);
    return rc;
}
