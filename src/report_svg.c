/*
 * report_svg.c: per-GPU time buckets and their SVG charts (see report.h).
 * A bucket keeps min, max, sum and count of each series plus the idle
 * share, throttled and lost counts of its records. Buckets start 10 ms
 * wide from the first record; when a record falls past the last bucket,
 * pairs merge (min of mins, max of maxes, sums and counts added) and the
 * width doubles, so the buckets always cover the whole run. Utilization's
 * envelope uses the driver's sub-second min and max where the record has
 * them. Charts draw the envelope as a band and the mean as a line, broken
 * where records are missing for more than three mean intervals (a bucket
 * narrower than the interval is empty without being a gap), shaded
 * idle/throttled/lost stretches, and the verdict changes as vertical marks.
 * SM and tensor-core activity (GPM) follow utilization where the log has
 * them, so "busy" and "busy doing what" sit one above the other; then the
 * job's own steps where it reports them: steps per second, step time and
 * the share of time its loop waited for input, on the same time axis.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "metrics.h"
#include "report.h"
#include "rules.h"

#define RS_W 800.0
#define RS_H 120.0
#define RS_L 56.0
#define RS_R 8.0
#define RS_T 8.0
#define RS_B 20.0

struct report_bucket {
    float min, max;
    double sum;
    uint32_t n;
};

struct report_mark {
    double t;
    int rule;
    bool active;
};

struct report_gpu {
    unsigned index;
    double t0, width;
    unsigned nb;
    struct report_bucket s[RS_COUNT][REPORT_BUCKETS];
    float idle[REPORT_BUCKETS];
    uint32_t nrec[REPORT_BUCKETS], thr[REPORT_BUCKETS], lost[REPORT_BUCKETS];
    double ref[RS_COUNT];   /* the series' ceiling: 100 %, memory total, power limit, max clock */
    double last_t;
    unsigned long long nrecords;
    struct report_mark marks[REPORT_MAX_MARKS];
    unsigned nmarks, marks_dropped;
};

/* optional: drawn only when the log has the series (GPM: Hopper and newer; steps: a job that reports
 * them). A step series has no metric: its key and unit are its own. */
static const struct {
    const char *title;
    enum metric_id metric;
    double floor_max;
    bool optional;
    const char *key, *unit;
} rs_series[RS_COUNT] = {
    [RS_UTIL] = {"utilization", M_UTIL_GPU, 100, false, NULL, NULL},
    [RS_SM] = {"SM activity (GPM)", M_GPM_SM_ACTIVE, 100, true, NULL, NULL},
    [RS_TENSOR] = {"tensor-core activity (GPM)", M_GPM_TENSOR_ACTIVE, 100, true, NULL, NULL},
    [RS_STEPS] = {"training steps per second (reported by the job)", M_UTIL_GPU, 1, true, "steps.rate", "1/s"},
    [RS_STEP_TIME] = {"step time (reported by the job)", M_UTIL_GPU, 1, true, "steps.time", "ms"},
    [RS_WAIT] = {"share of the loop's time spent waiting for input (reported by the job)", M_UTIL_GPU, 100, true,
                 "steps.wait", "%"},
    [RS_MEM] = {"memory used", M_MEM_USED, 1, false, NULL, NULL},
    [RS_TEMP] = {"temperature", M_TEMP, 50, false, NULL, NULL},
    [RS_POWER] = {"power", M_POWER, 1, false, NULL, NULL},
    [RS_CLOCK] = {"SM clock", M_CLOCK_SM, 1, false, NULL, NULL},
};

struct report_gpu *report_gpu_new(unsigned index, double t0)
{
    struct report_gpu *g = xcalloc(1, sizeof *g);
    g->index = index;
    g->t0 = t0;
    g->width = 0.01;
    return g;
}

void report_gpu_free(struct report_gpu *g)
{
    free(g);
}

unsigned report_gpu_index(const struct report_gpu *g)
{
    return g->index;
}

static void rs_bucket_add(struct report_bucket *b, double lo, double hi, double mean)
{
    if (b->n == 0 || lo < b->min)
        b->min = (float)lo;
    if (b->n == 0 || hi > b->max)
        b->max = (float)hi;
    b->sum += mean;
    b->n++;
}

static void rs_bucket_merge(struct report_bucket *into, const struct report_bucket *a, const struct report_bucket *b)
{
    struct report_bucket m = *a;
    if (b->n) {
        m.min = a->n ? fminf(a->min, b->min) : b->min;
        m.max = a->n ? fmaxf(a->max, b->max) : b->max;
        m.sum += b->sum;
        m.n += b->n;
    }
    *into = m;
}

static void rs_halve(struct report_gpu *g)
{
    for (unsigned i = 0; i < REPORT_BUCKETS / 2; i++) {
        for (int s = 0; s < RS_COUNT; s++)
            rs_bucket_merge(&g->s[s][i], &g->s[s][2 * i], &g->s[s][2 * i + 1]);
        g->idle[i] = g->idle[2 * i] + g->idle[2 * i + 1];
        g->nrec[i] = g->nrec[2 * i] + g->nrec[2 * i + 1];
        g->thr[i] = g->thr[2 * i] + g->thr[2 * i + 1];
        g->lost[i] = g->lost[2 * i] + g->lost[2 * i + 1];
    }
    for (int s = 0; s < RS_COUNT; s++)
        memset(&g->s[s][REPORT_BUCKETS / 2], 0, REPORT_BUCKETS / 2 * sizeof g->s[s][0]);
    memset(&g->idle[REPORT_BUCKETS / 2], 0, REPORT_BUCKETS / 2 * sizeof g->idle[0]);
    memset(&g->nrec[REPORT_BUCKETS / 2], 0, REPORT_BUCKETS / 2 * sizeof g->nrec[0]);
    memset(&g->thr[REPORT_BUCKETS / 2], 0, REPORT_BUCKETS / 2 * sizeof g->thr[0]);
    memset(&g->lost[REPORT_BUCKETS / 2], 0, REPORT_BUCKETS / 2 * sizeof g->lost[0]);
    g->width *= 2;
    g->nb = (g->nb + 1) / 2;
}

static double rs_num(const struct value *v, enum metric_id id)
{
    if (v->state != VS_OK)
        return NAN;
    return metric_table[id].kind == MK_FLOAT ? v->u.f : (double)v->u.i;
}

/* The step series of one record: rate, mean step time (ms), wait share (%); NAN where unknown. */
static double rs_step_value(int s, const struct stepstat_fig *st)
{
    if (!st)
        return NAN;
    if (s == RS_STEPS)
        return st->rate;
    if (s == RS_STEP_TIME)
        return st->step_mean * 1e3;
    return st->wait_share;
}

void report_gpu_add(struct report_gpu *g, const struct record_gpu *rg, double t, const struct stepstat_fig *st)
{
    if (t < g->t0)
        return;
    unsigned long long k;
    while ((k = (unsigned long long)((t - g->t0) / g->width)) >= REPORT_BUCKETS)
        rs_halve(g);
    if (k + 1 > g->nb)
        g->nb = (unsigned)k + 1;
    g->last_t = t;
    g->nrecords++;
    const struct value *v = rg->v;
    for (int s = 0; s < RS_COUNT; s++) {
        double x = rs_series[s].key ? rs_step_value(s, st) : rs_num(&v[rs_series[s].metric], rs_series[s].metric);
        double lo = x, hi = x;
        if (s == RS_UTIL) {
            double mn = rs_num(&v[M_UTIL_MIN], M_UTIL_MIN), mx = rs_num(&v[M_UTIL_MAX], M_UTIL_MAX);
            if (!isnan(mn) && !isnan(mx) && !isnan(x))
                lo = fmin(mn, x), hi = fmax(mx, x);
        }
        if (!isnan(x))
            rs_bucket_add(&g->s[s][k], lo, hi, x);
    }
    double ref[RS_COUNT] = {[RS_UTIL] = 100, [RS_SM] = 100, [RS_TENSOR] = 100, [RS_STEPS] = NAN, [RS_STEP_TIME] = NAN,
                            [RS_WAIT] = 100,
                            [RS_MEM] = rs_num(&v[M_MEM_TOTAL], M_MEM_TOTAL), [RS_TEMP] = NAN,
                            [RS_POWER] = rs_num(&v[M_POWER_ENFORCED], M_POWER_ENFORCED),
                            [RS_CLOCK] = rs_num(&v[M_CLOCK_MAX_SM], M_CLOCK_MAX_SM)};
    for (int s = 0; s < RS_COUNT; s++)
        if (!isnan(ref[s]))
            g->ref[s] = ref[s];
    double idle = rs_num(&v[M_UTIL_IDLE], M_UTIL_IDLE), util = rs_num(&v[M_UTIL_GPU], M_UTIL_GPU);
    if (isnan(idle) && !isnan(util))
        idle = util < 5 ? 100 : 0;
    g->idle[k] += isnan(idle) ? 0 : (float)(idle / 100);
    g->nrec[k]++;
    if (v[M_REASONS].state == VS_OK && (v[M_REASONS].u.i & (clock_reason_mask(CR_GROUP_THERMAL) | clock_reason_mask(CR_GROUP_POWER))))
        g->thr[k]++;
    if (metric_gpu_lost(v))
        g->lost[k]++;
}

void report_gpu_mark(struct report_gpu *g, const struct diag_change *ch)
{
    if (g->nmarks == REPORT_MAX_MARKS) {
        g->marks_dropped++;
        return;
    }
    g->marks[g->nmarks++] = (struct report_mark){ch->t, ch->rule, ch->active};
}

void report_html_escape(struct sbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': sbuf_puts(b, "&amp;"); break;
        case '<': sbuf_puts(b, "&lt;"); break;
        case '>': sbuf_puts(b, "&gt;"); break;
        case '"': sbuf_puts(b, "&quot;"); break;
        default: sbuf_putc(b, *s);
        }
    }
}

/* Shaded stretches: runs of buckets where pick() holds; an empty bucket
 * within gap buckets of the last record takes that record's state. */
static void rs_shade(const struct report_gpu *g, double x0, double bw, unsigned gap, const char *cls,
                     bool (*pick)(const struct report_gpu *, unsigned), struct sbuf *b)
{
    bool on = false, state = false;
    unsigned start = 0, last = 0;
    for (unsigned i = 0; i <= g->nb; i++) {
        if (i < g->nb && g->nrec[i])
            state = pick(g, i), last = i;
        else if (i == g->nb || i - last > gap)
            state = false;
        if (state && !on)
            start = i, on = true;
        if (!state && on) {
            unsigned end = i < g->nb && i - last <= gap ? i : last + 1;
            sbuf_printf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\"/>", cls,
                        x0 + start * bw, RS_T, fmax((end - start) * bw, 0.5), RS_H - RS_T - RS_B);
            on = false;
        }
    }
}

static bool rs_is_idle(const struct report_gpu *g, unsigned i)
{
    return g->nrec[i] && g->idle[i] / g->nrec[i] >= 0.5f && g->lost[i] == 0;
}

static bool rs_is_throttled(const struct report_gpu *g, unsigned i)
{
    return g->nrec[i] && g->thr[i] * 2 >= g->nrec[i];
}

static bool rs_is_lost(const struct report_gpu *g, unsigned i)
{
    return g->nrec[i] && g->lost[i] * 2 >= g->nrec[i];
}

static void rs_time_label(double t, struct sbuf *b)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    sbuf_printf(b, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void rs_chart(const struct report_gpu *g, int s, double t0, double t1, struct sbuf *b)
{
    const struct metric *m = &metric_table[rs_series[s].metric];
    const char *unit = rs_series[s].unit ? rs_series[s].unit : m->unit, *key = rs_series[s].key ? rs_series[s].key : m->key;
    double top = rs_series[s].floor_max, pw = RS_W - RS_L - RS_R, ph = RS_H - RS_T - RS_B;
    for (unsigned i = 0; i < g->nb; i++)
        if (g->s[s][i].n && g->s[s][i].max > top)
            top = g->s[s][i].max;
    if (g->ref[s] > top)
        top = g->ref[s];
    if (s == RS_TEMP)
        top = ceil(top / 10) * 10;
    double span = t1 > t0 ? t1 - t0 : 1, x0 = RS_L + (g->t0 - t0) / span * pw, bw = g->width / span * pw;
#define RS_Y(v) (RS_T + ph - (v) / top * ph)
    sbuf_printf(b, "<figure><figcaption>%s (%s)</figcaption><svg class=\"chart\" data-series=\"%s\" "
                "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
                "xmlns=\"http://www.w3.org/2000/svg\">", rs_series[s].title, *unit ? unit : "-", key, RS_W,
                RS_H, RS_W, RS_H);
    sbuf_printf(b, "<rect class=\"plot\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>", RS_L, RS_T, pw, ph);
    double mean_dt = g->nrecords > 1 ? (g->last_t - g->t0) / (double)(g->nrecords - 1) : g->width;
    unsigned gap = (unsigned)fmax(1, ceil(fmax(3 * mean_dt, 1.5 * g->width) / g->width));
    rs_shade(g, x0, bw, gap, "idle", rs_is_idle, b);
    rs_shade(g, x0, bw, gap, "thr", rs_is_throttled, b);
    rs_shade(g, x0, bw, gap, "lost", rs_is_lost, b);
    if (g->ref[s] > 0 && s != RS_UTIL && s != RS_SM && s != RS_TENSOR && s != RS_WAIT)
        sbuf_printf(b, "<line class=\"ref\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"><title>%s %.0f %s</title>"
                    "</line>", RS_L, RS_L + pw, RS_Y(g->ref[s]), RS_Y(g->ref[s]), s == RS_MEM ? "total"
                    : s == RS_POWER ? "enforced limit" : "maximum", g->ref[s], m->unit);
    /* envelope bands and mean lines, one per run of buckets without a real gap */
    for (unsigned i = 0; i < g->nb;) {
        if (!g->s[s][i].n) {
            i++;
            continue;
        }
        unsigned j = i, last = i, nk = 0, ks[REPORT_BUCKETS];
        for (; j < g->nb && j - last <= gap; j++)
            if (g->s[s][j].n)
                ks[nk++] = last = j;
        double half = nk == 1 ? fmax(bw / 2, 1) : 0;   /* a lone bucket: a short dash */
        sbuf_puts(b, "<path class=\"band\" d=\"");
        for (unsigned q = 0; q < nk; q++)
            sbuf_printf(b, "%s%.1f,%.1f", q ? "L" : "M", x0 + (ks[q] + 0.5) * bw - half, RS_Y(g->s[s][ks[q]].max));
        if (nk == 1)
            sbuf_printf(b, "L%.1f,%.1f", x0 + (ks[0] + 0.5) * bw + half, RS_Y(g->s[s][ks[0]].max));
        for (unsigned q = nk; q-- > 0;)
            sbuf_printf(b, "L%.1f,%.1f", x0 + (ks[q] + 0.5) * bw + half, RS_Y(g->s[s][ks[q]].min));
        if (nk == 1)
            sbuf_printf(b, "L%.1f,%.1f", x0 + (ks[0] + 0.5) * bw - half, RS_Y(g->s[s][ks[0]].min));
        sbuf_puts(b, "Z\"/><polyline class=\"mean\" points=\"");
        for (unsigned q = 0; q < nk; q++)
            sbuf_printf(b, "%s%.1f,%.1f", q ? " " : "", x0 + (ks[q] + 0.5) * bw - half,
                        RS_Y(g->s[s][ks[q]].sum / g->s[s][ks[q]].n));
        if (nk == 1)
            sbuf_printf(b, " %.1f,%.1f", x0 + (ks[0] + 0.5) * bw + half, RS_Y(g->s[s][ks[0]].sum / g->s[s][ks[0]].n));
        sbuf_puts(b, "\"/>");
        i = last + 1;
    }
    for (unsigned i = 0; i < g->nmarks; i++) {
        const struct report_mark *mk = &g->marks[i];
        double x = RS_L + (mk->t - t0) / span * pw;
        sbuf_printf(b, "<line class=\"mark %s%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"><title>%s %s"
                    "</title></line>", rules_severity_name(rule_table[mk->rule].severity), mk->active ? "" : " end",
                    x, x, RS_T, RS_T + ph, rule_table[mk->rule].id, mk->active ? "starts" : "ends");
    }
    sbuf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" class=\"ax\" text-anchor=\"end\">%.0f</text>", RS_L - 4, RS_T + 9, top);
    sbuf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" class=\"ax\" text-anchor=\"end\">0</text>", RS_L - 4, RS_T + ph);
    for (int k = 0; k <= 4; k++) {
        sbuf_printf(b, "<text x=\"%.1f\" y=\"%.0f\" class=\"ax\" text-anchor=\"%s\">", RS_L + k * pw / 4, RS_H - 5,
                    k == 0 ? "start" : k == 4 ? "end" : "middle");
        rs_time_label(t0 + k * span / 4, b);
        sbuf_puts(b, "</text>");
    }
    sbuf_puts(b, "</svg></figure>\n");
#undef RS_Y
}

static bool rs_has_data(const struct report_gpu *g, int s)
{
    for (unsigned i = 0; i < g->nb; i++)
        if (g->s[s][i].n)
            return true;
    return false;
}

void report_gpu_charts(const struct report_gpu *g, double t0, double t1, struct sbuf *b)
{
    for (int s = 0; s < RS_COUNT; s++)
        if (!rs_series[s].optional || rs_has_data(g, s))
            rs_chart(g, s, t0, t1, b);
    sbuf_printf(b, "<p class=\"note\">Each point summarizes %.3g s of records: the band spans their minimum and "
                "maximum%s, the line their mean.", g->width, " (utilization: the driver's sub-second samples)");
    if (g->marks_dropped)
        sbuf_printf(b, " %u further verdict changes are not marked (the first %d are); the list below has every "
                    "verdict.", g->marks_dropped, REPORT_MAX_MARKS);
    sbuf_puts(b, "</p>\n");
}
