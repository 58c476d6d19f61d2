/*
 * report.c: the report page (see report.h): header, the ledger's bars and
 * table, the grouped verdicts (diag_groups), the steps, the GPUs' table
 * (diag_summary_html_table) and the charts (report_svg.c). Everything is
 * inline: CSS in a <style>, charts as SVG, and one small inline script
 * that only checks the page (it counts the charts and measures the page's
 * height into data attributes that tests read; the page reads fine
 * without it).
 * The file is written whole (wfile.c: atomically over a regular file, through a device).
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ledger.h"
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
    ".v.ok{border-color:#2e8b57}.note{font-size:12px;color:#555}.lb{font-size:12px;fill:#333}"
    ".gl{font-size:12px;margin-left:6px}.multi{display:flex;flex-wrap:wrap;column-gap:0}"
    ".multi figure{width:400px}table.gpus td,table.gpus th{font-size:12px;padding-right:8px}";

static const char report_script[] =
    "<script>(function(){var n=document.querySelectorAll('svg.chart').length;"
    "document.body.setAttribute('data-charts',String(n));"
    "document.body.setAttribute('data-height',String(document.documentElement.scrollHeight));"
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

/* The ledger's colours, by cause (ledger.h's order). */
static const char *const report_cause_colour[LC_COUNT] = {
    [LC_COMPUTE] = "#3a9d5d", [LC_INPUT_WAIT] = "#e8a33d", [LC_THROTTLED] = "#d9643a", [LC_STARTUP] = "#8a9fd1",
    [LC_PAUSE] = "#a9a9a9", [LC_STALLED] = "#b0302a", [LC_IDLE] = "#dcdcdc", [LC_LOST] = "#6b1a1a",
};

/* GPU time in the unit that reads best. */
static void report_gpu_time(struct sbuf *b, double s)
{
    if (s >= 3600)
        sbuf_printf(b, "%.1f GPU-h", s / 3600);
    else if (s >= 60)
        sbuf_printf(b, "%.1f GPU-min", s / 60);
    else
        sbuf_printf(b, "%.0f GPU-s", s);
}

/* One stacked bar of a ledger at y, h high, from x over w pixels; a tooltip per cause. */
static void report_bar(const struct ledger_totals *t, double x, double y, double w, double h, struct sbuf *b)
{
    for (int c = 0; c < LC_COUNT && t->gpu_seconds > 0; c++) {
        double cw = w * t->s[c] / t->gpu_seconds;
        if (cw <= 0)
            continue;
        sbuf_printf(b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" data-cause=\"%s\"><title>%s ",
                    x, y, cw, h, report_cause_colour[c], ledger_causes[c].key, ledger_causes[c].label);
        report_gpu_time(b, t->s[c]);
        sbuf_printf(b, " (%.1f%%)</title></rect>", 100 * t->s[c] / t->gpu_seconds);
        x += cw;
    }
}

/* Where the GPU time went: the job's ledger as one stacked bar with its table of causes and gains, then a
 * bar per GPU. */
static void report_ledger_section(const struct report *rp, const struct diag *d, struct sbuf *b)
{
    const struct ledger *l = diag_ledger(d);
    const struct analyzer *an = diag_analyzer(d);
    struct ledger_totals run;
    ledger_run(l, &run);
    if (run.gpu_seconds <= 0)
        return;
    unsigned n = ledger_ngpus(l);
    double lw = 90, w = 800 - lw, rows = n > 1 ? n : 0, h = 30 + (rows ? 8 + rows * 16 : 0);
    sbuf_puts(b, "<section id=\"ledger\"><h2>Where the GPU time went</h2>\n");
    sbuf_printf(b, "<svg class=\"ledger\" viewBox=\"0 0 800 %.0f\" width=\"800\" height=\"%.0f\" role=\"img\" "
                "xmlns=\"http://www.w3.org/2000/svg\">", h, h);
    sbuf_printf(b, "<text x=\"0\" y=\"19\" class=\"lb\">%s</text>", rp->ngpus == 1 ? "the GPU" : "the job");
    report_bar(&run, lw, 4, w, 22, b);
    for (unsigned i = 0; i < n && rows; i++) {
        struct ledger_totals t;
        ledger_gpu(l, i, &t);
        double y = 38 + i * 16;
        sbuf_printf(b, "<text x=\"0\" y=\"%.0f\" class=\"lb\">", y + 11);
        if (analyze_nnodes(an) > 1) {
            report_html_escape(b, analyze_gpu_host(an, i));
            sbuf_putc(b, ' ');
        }
        sbuf_printf(b, "GPU %u</text>", analyze_gpu_index(an, i));
        report_bar(&t, lw, y, w, 12, b);
    }
    sbuf_puts(b, "</svg>\n<table class=\"causes\"><tr><th></th><th>cause</th><th>GPU time</th><th>share</th>");
    double cost = diag_cost(d);
    if (cost > 0)
        sbuf_printf(b, "<th>cost (%.2f a GPU-hour)</th>", cost);
    sbuf_puts(b, "<th>removing it would gain</th></tr>\n");
    for (int c = 0; c < LC_COUNT; c++) {
        if (run.s[c] <= 0)
            continue;
        sbuf_printf(b, "<tr data-cause=\"%s\"><td><i class=\"sw\" style=\"background:%s\"></i></td><td>%s</td><td>",
                    ledger_causes[c].key, report_cause_colour[c], ledger_causes[c].label);
        report_gpu_time(b, run.s[c]);
        sbuf_printf(b, "</td><td>%.1f%%</td>", 100 * run.s[c] / run.gpu_seconds);
        if (cost > 0)
            sbuf_printf(b, "<td>%.2f</td>", run.s[c] / 3600 * cost);
        double x = ledger_speedup(&run, (enum ledger_cause)c);
        sbuf_puts(b, "<td>");
        if (ledger_causes[c].speedup && !isnan(x))
            sbuf_printf(b, "steps up to %.2fx faster %s", x, ledger_causes[c].gain);
        else if (ledger_causes[c].gain) {
            report_gpu_time(b, run.s[c]);
            sbuf_printf(b, " back %s", ledger_causes[c].gain);
        }
        sbuf_puts(b, "</td></tr>\n");
    }
    sbuf_puts(b, "</table>\n<p class=\"note\">");
    report_gpu_time(b, run.gpu_seconds);
    sbuf_printf(b, " observed on %u GPU%s", run.gpus, run.gpus == 1 ? "" : "s");
    if (run.gpm_s > 0)
        sbuf_printf(b, "; while computing, SM activity %.0f%% and tensor cores %.0f%% (GPM)", run.sm_s / run.gpm_s,
                    run.tensor_s / run.gpm_s);
    if (!isnan(run.steps) && run.steps > 0 && run.energy_j > 0)
        sbuf_printf(b, "; %.1f J per step", run.energy_j / run.steps);
    sbuf_puts(b, ". Every second of every GPU goes to one cause (gpumon diagnose says how).</p></section>\n");
}

/* A group of verdicts as the report shows it. */
static void report_group(void *ctx, const struct diag_group *g)
{
    struct sbuf *b = ctx;
    const struct rule *r = &rule_table[g->rule];
    const char *sev = rules_severity_name(r->severity);
    sbuf_printf(b, "<div class=\"v %s\" data-rule=\"%s\"><b>", sev, r->id);
    report_html_escape(b, g->gpus);
    sbuf_printf(b, "</b> %s %s: ", sev, r->id);
    report_html_escape(b, r->title);
    sbuf_puts(b, "<br><span class=\"note\">");
    report_html_escape(b, g->when);
    sbuf_puts(b, "</span>");
    for (unsigned i = 0; i < g->nev; i++) {
        sbuf_puts(b, "<br>Evidence");
        if (g->ev_gpus[i][0]) {
            sbuf_puts(b, " (");
            report_html_escape(b, g->ev_gpus[i]);
            sbuf_putc(b, ')');
        }
        sbuf_puts(b, ": ");
        report_html_escape(b, g->ev_text[i]);
    }
    if (r->severity != SEV_OK) {
        sbuf_puts(b, "<br>Advice: ");
        report_html_escape(b, rules_advice(g->rule, g->job_watched));
    }
    sbuf_puts(b, "</div>\n");
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
    report_ledger_section(rp, d, &b);
    struct sbuf groups;
    sbuf_init(&groups);
    diag_groups(d, report_group, &groups);
    sbuf_puts(&b, "<section id=\"verdicts\"><h2>Verdicts</h2>\n");
    sbuf_puts(&b, groups.len ? groups.data : "<p>No verdict: no rule held (or too little data for the window).</p>\n");
    sbuf_puts(&b, "</section>\n");
    sbuf_free(&groups);
    report_steps_section(d, &b);
    sbuf_puts(&b, "<section id=\"gpus\"><h2>GPUs</h2>\n");
    diag_summary_html_table(d, &b);
    sbuf_puts(&b, "</section>\n<section id=\"charts\"><h2>Over time</h2>\n");
    const struct report_gpu **gs = xcalloc(rp->ngpus ? rp->ngpus : 1, sizeof *gs);
    unsigned ng = 0;
    for (unsigned i = 0; i < rp->ngpus; i++)
        if (rp->gpus[i])
            gs[ng++] = rp->gpus[i];
    if (ng)
        report_charts(gs, ng, rp->t0, rp->t1, &b);
    free(gs);
    sbuf_printf(&b, "</section>\n%s\n</body></html>\n", report_script);

    int rc = wfile_write(path, b.data, b.len, err, errlen);
    if (rc == 0 && written)
        *written = b.len;
    sbuf_free(&b);
    return rc;
}
