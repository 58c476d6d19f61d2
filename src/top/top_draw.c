/*
 * top_draw.c: `gpumon top`'s main screen, top to bottom: the header (host,
 * GPUs, interval, the data's time, and its age once the latest sample is
 * older than two intervals), the host's CPU and memory, one line per GPU,
 * the selected GPU's history graphs, the process table (top_ptable.c) and
 * the status line. The GPU line's columns are one table (title, width,
 * priority, cell): a narrower screen drops the highest priorities first,
 * and the verdict, from the same rules as `gpumon run`, always keeps its
 * place. Heights are shared out so that processes keep at least three
 * rows; more GPUs than fit scroll with the selection. Values that are not
 * known print as "-", never as 0.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "ledger.h"
#include "metrics.h"
#include "rules.h"
#include "top.h"

const char *top_short_name(const struct top_gpu_rec *g)
{
    const struct value *v = &g->v[M_NAME];
    const char *s = v->state == VS_OK && v->u.s ? v->u.s : "?";
    return !strncmp(s, "NVIDIA ", 7) ? s + 7 : s;
}

enum top_style top_severity_style(int rule)
{
    switch (rule_table[rule].severity) {
    case SEV_CRITICAL: return TOP_ST_CRIT;
    case SEV_WARNING: return TOP_ST_WARN;
    case SEV_INFO: return TOP_ST_INFO;
    default: return TOP_ST_OK;
    }
}

/* The value as a number, NAN when it is not known. */
static double top_v(const struct top_gpu_rec *g, enum metric_id m)
{
    const struct value *v = &g->v[m];
    if (v->state != VS_OK)
        return NAN;
    return metric_table[m].kind == MK_FLOAT ? v->u.f : (double)v->u.i;
}

/* Numbers without printf, whose multi-precision path costs about a thousand instructions a number (a
 * frame formats a hundred): top_d0 writes "%.0f" of v as printf does (util_fmt_fixed: the nearest
 * integer, ties to even; -0 for a negative v that rounds to zero) at o, which has room for 24 bytes,
 * and returns the end; top_cell copies the text between t and e into o (n bytes). */
static char *top_d0(char *o, double v)
{
    char t[UTIL_FMT_ROOM];
    size_t k = util_fmt_fixed(t, v, 0);
    if (!k)
        return o + snprintf(o, 24, "%.0f", v);
    memcpy(o, t, k);
    o[k] = '\0';
    return o + k;
}

static void top_cell(char *o, size_t n, const char *t, const char *e)
{
    size_t k = (size_t)(e - t) < n ? (size_t)(e - t) : n - 1;
    memcpy(o, t, k);
    o[k] = '\0';
}

void top_copy(char *o, size_t n, const char *s)
{
    top_cell(o, n, s, s + strlen(s));
}

static void top_pct(char *o, size_t n, double v)
{
    char t[32], *e = t;
    if (isfinite(v))
        e = top_d0(e, v), *e++ = '%';
    else
        *e++ = '-';
    top_cell(o, n, t, e);
}

/* "%.1f/%.1fG" of used and total MiB over 1024, as printf writes it: MiB / 1024 is exact in a double,
 * so the tenths round half to even on the integers themselves (printf's rounding of an exact tie). */
static void top_gib1(char *o, size_t n, long long used, long long total)
{
    if (used < 0 || total < 0 || used > (1ll << 40) || total > (1ll << 40)) {
        snprintf(o, n, "%.1f/%.1fG", (double)used / 1024, (double)total / 1024);
        return;
    }
    char t[64], *e = t;
    long long x[2] = {used, total};
    for (int i = 0; i < 2; i++) {
        long long q = x[i] * 10 / 1024, r = x[i] * 10 % 1024;
        q += r > 512 || (r == 512 && (q & 1));
        e = top_d0(e, (double)(q / 10));
        *e++ = '.';
        *e++ = (char)('0' + q % 10);
        *e++ = i ? 'G' : '/';
    }
    top_cell(o, n, t, e);
}

/* ---- the GPU line's columns ---- */

typedef enum top_style top_gcell(const struct top_gpu *g, char *o, size_t n);

static enum top_style gc_index(const struct top_gpu *g, char *o, size_t n)
{
    char t[32], *e = top_d0(t, g->rec.index);
    top_cell(o, n, t, e);
    return TOP_ST_NORMAL;
}

static enum top_style gc_name(const struct top_gpu *g, char *o, size_t n)
{
    top_copy(o, n, top_short_name(&g->rec));
    return TOP_ST_NORMAL;
}

static enum top_style gc_util(const struct top_gpu *g, char *o, size_t n)
{
    if (top_gpu_lost(g->rec.v)) {
        snprintf(o, n, "LOST");
        return TOP_ST_CRIT;
    }
    top_pct(o, n, top_v(&g->rec, M_UTIL_GPU));
    return TOP_ST_UTIL;
}

static enum top_style gc_range(const struct top_gpu *g, char *o, size_t n)
{
    double lo = top_v(&g->rec, M_UTIL_MIN), hi = top_v(&g->rec, M_UTIL_MAX);
    char t[64], *e = t;
    if (isfinite(lo) && isfinite(hi))
        e = top_d0(e, lo), *e++ = '-', e = top_d0(e, hi);
    else
        *e++ = '-';
    top_cell(o, n, t, e);
    return TOP_ST_NORMAL;
}

static enum top_style gc_sm(const struct top_gpu *g, char *o, size_t n)
{
    top_pct(o, n, top_v(&g->rec, M_GPM_SM_ACTIVE));
    return TOP_ST_SM;
}

static enum top_style gc_tensor(const struct top_gpu *g, char *o, size_t n)
{
    top_pct(o, n, top_v(&g->rec, M_GPM_TENSOR_ACTIVE));
    return TOP_ST_NORMAL;
}

static enum top_style gc_mem(const struct top_gpu *g, char *o, size_t n)
{
    double used = top_v(&g->rec, M_MEM_USED), total = top_v(&g->rec, M_MEM_TOTAL);
    top_pct(o, n, total > 0 ? used / total * 100 : NAN);
    return TOP_ST_MEM;
}

static enum top_style gc_mem_used(const struct top_gpu *g, char *o, size_t n)
{
    const struct value *u = &g->rec.v[M_MEM_USED], *t = &g->rec.v[M_MEM_TOTAL];
    if (u->state == VS_OK && t->state == VS_OK)
        top_gib1(o, n, u->u.i, t->u.i);
    else
        snprintf(o, n, "-");
    return TOP_ST_NORMAL;
}

static enum top_style gc_temp(const struct top_gpu *g, char *o, size_t n)
{
    double v = top_v(&g->rec, M_TEMP);
    char t[32], *e = t;
    if (isfinite(v))
        e = top_d0(e, v), *e++ = 'C';
    else
        *e++ = '-';
    top_cell(o, n, t, e);
    return TOP_ST_NORMAL;
}

static enum top_style gc_power(const struct top_gpu *g, char *o, size_t n)
{
    double p = top_v(&g->rec, M_POWER), lim = top_v(&g->rec, M_POWER_ENFORCED);
    if (!isfinite(lim))
        lim = top_v(&g->rec, M_POWER_LIMIT);
    char t[64], *e = t;
    if (isfinite(p))
        e = top_d0(e, p);
    if (isfinite(p) && isfinite(lim))
        *e++ = '/', e = top_d0(e, lim);
    *e++ = isfinite(p) ? 'W' : '-';
    top_cell(o, n, t, e);
    return TOP_ST_POWER;
}

static enum top_style gc_clock(const struct top_gpu *g, char *o, size_t n)
{
    double c = top_v(&g->rec, M_CLOCK_SM);
    char t[32], *e = t;
    if (isfinite(c))
        e = top_d0(e, c);
    else
        *e++ = '-';
    top_cell(o, n, t, e);
    return TOP_ST_NORMAL;
}

static enum top_style gc_pstate(const struct top_gpu *g, char *o, size_t n)
{
    double p = top_v(&g->rec, M_PSTATE);
    char t[32], *e = t;
    if (isfinite(p))
        *e++ = 'P', e = top_d0(e, p);
    else
        *e++ = '-';
    top_cell(o, n, t, e);
    return TOP_ST_NORMAL;
}

/* The active reasons that hold the clocks down (gpu_idle is not one), by their short labels. */
static enum top_style gc_throttle(const struct top_gpu *g, char *o, size_t n)
{
    size_t k = 0;
    o[0] = '\0';
    for (int r = 0; r < CLOCK_REASON_COUNT; r++) {
        const struct value *v = &g->rec.v[metric_reason_id((enum clock_reason_id)r)];
        if (r == CR_IDLE || v->state != VS_OK || !v->u.i || k + 2 >= n)
            continue;
        if (k)
            o[k++] = ',';
        top_copy(o + k, n - k, clock_reasons[r].label);
        k += strlen(o + k);
    }
    if (!k)
        top_copy(o, n, "-");
    return k ? TOP_ST_WARN : TOP_ST_NORMAL;
}

static enum top_style gc_verdict(const struct top_gpu *g, char *o, size_t n)
{
    if (g->nverdicts) {
        const struct top_verdict *v = &g->verdicts[0];
        if (g->nverdicts > 1)
            snprintf(o, n, "%s +%u", rule_table[v->rule].id, g->nverdicts - 1);
        else
            top_copy(o, n, rule_table[v->rule].id);
        return top_severity_style(v->rule);
    }
    if (g->have_stats && !g->stats.enough) {   /* "judging (%.0f/%.0f s)" */
        char t[80], *e = t;
        memcpy(e, "judging (", 9), e += 9;
        e = top_d0(e, g->stats.span_s), *e++ = '/';
        e = top_d0(e, g->stats.window_s);
        memcpy(e, " s)", 3), e += 3;
        top_cell(o, n, t, e);
    } else
        top_copy(o, n, g->have_stats ? "-" : "judging");
    return TOP_ST_DIM;
}

/* Where the GPU's recent time went (the ledger's main cause over about a window), when not to compute. */
static enum top_style gc_cause(const struct top_gpu *g, char *o, size_t n)
{
    if (g->cause < 0 || g->cause == LC_COMPUTE) {
        top_copy(o, n, g->cause < 0 ? "" : "-");
        return TOP_ST_DIM;
    }
    top_copy(o, n, ledger_causes[g->cause].label);
    return g->cause == LC_LOST || g->cause == LC_STALLED ? TOP_ST_CRIT : TOP_ST_WARN;
}

enum { TOP_GC_HISTORY = -1 };

struct top_gcol {
    const char *title;
    int width;                /* 0: the verdict, which takes what is left */
    int prio;                 /* dropped highest first when the screen is narrow */
    bool right;
    top_gcell *cell;          /* NULL: the history sparkline */
};

static const struct top_gcol top_gcols[] = {
    {"GPU", 3, 0, true, gc_index},
    {"NAME", 14, 8, false, gc_name},
    {"UTIL", 4, 0, true, gc_util},
    {"RANGE", 6, 2, true, gc_range},
    {"SM", 4, 1, true, gc_sm},
    {"TNSR", 4, 3, true, gc_tensor},
    {"MEM", 4, 1, true, gc_mem},
    {"MEM USED", 12, 9, true, gc_mem_used},
    {"TEMP", 4, 2, true, gc_temp},
    {"POWER", 9, 2, true, gc_power},
    {"SMCLK", 5, 6, true, gc_clock},
    {"P", 3, 10, true, gc_pstate},
    {"THROTTLE", 12, 5, false, gc_throttle},
    {"TIME GOES TO", 12, 4, false, gc_cause},
    {"HISTORY", 0, 7, false, NULL},
    {"VERDICT", 0, 0, false, gc_verdict},
};
#define TOP_NGCOLS ((int)(sizeof top_gcols / sizeof top_gcols[0]))
#define TOP_VERDICT_MIN 18

/* Which columns fit: on[i], and the sparkline's width (0: none). */
static void top_draw_fit(bool *on, int *spark_w)
{
    int used = TOP_VERDICT_MIN;
    for (int i = 0; i < TOP_NGCOLS; i++)
        on[i] = top_gcols[i].cell == gc_verdict;
    for (int prio = 0; prio <= 10; prio++)
        for (int i = 0; i < TOP_NGCOLS; i++) {
            if (top_gcols[i].prio != prio || !top_gcols[i].width)
                continue;
            if (used + top_gcols[i].width + 1 <= COLS)
                on[i] = true, used += top_gcols[i].width + 1;
        }
    /* the sparkline: on a wide screen, up to 60 columns, leaving the verdict room for its title */
    int spare = COLS - used - 24;
    *spark_w = spare >= 12 ? (spare / 2 > 60 ? 60 : spare / 2 < 12 ? 12 : spare / 2) : 0;
    for (int i = 0; i < TOP_NGCOLS; i++)
        if (!top_gcols[i].cell)
            on[i] = *spark_w > 0;
}

static void top_draw_gpus(struct top_ui *ui, int y0, int rows)
{
    bool on[TOP_NGCOLS];
    int spark_w, x = 0;
    top_draw_fit(on, &spark_w);
    top_fill(y0, 0, COLS, TOP_ST_HEAD);
    for (int i = 0; i < TOP_NGCOLS; i++) {
        if (!on[i])
            continue;
        int w = top_gcols[i].cell ? (top_gcols[i].width ? top_gcols[i].width : COLS - x) : spark_w;
        if (top_gcols[i].right)
            top_put_right(y0, x, w, top_gcols[i].title, TOP_ST_HEAD);
        else
            top_put(y0, x, w, top_gcols[i].title, TOP_ST_HEAD);
        x += w + 1;
    }
    unsigned n = ui->view.ngpus;
    if (ui->sel_gpu < ui->gpu_top)
        ui->gpu_top = ui->sel_gpu;
    if (ui->sel_gpu >= ui->gpu_top + (unsigned)rows)
        ui->gpu_top = ui->sel_gpu - (unsigned)rows + 1;
    if (ui->gpu_top + (unsigned)rows > n)   /* a taller screen: no blank rows below the last GPU */
        ui->gpu_top = n > (unsigned)rows ? n - (unsigned)rows : 0;
    if (n > (unsigned)rows) {
        char more[48];
        snprintf(more, sizeof more, " GPUs %u-%u of %u ", ui->gpu_top + 1,
                 ui->gpu_top + (unsigned)rows < n ? ui->gpu_top + (unsigned)rows : n, n);
        top_put_right(y0, 0, COLS, more, TOP_ST_HEADER);
    }
    for (int r = 0; r < rows && ui->gpu_top + (unsigned)r < n; r++) {
        unsigned at = ui->gpu_top + (unsigned)r;
        const struct top_gpu *g = &ui->view.gpus[at];
        bool sel = at == ui->sel_gpu;
        enum top_style row_st = sel ? (ui->focus == TOP_FOCUS_GPUS ? TOP_ST_SELECT : TOP_ST_MARK) : TOP_ST_NORMAL;
        int y = y0 + 1 + r;
        if (sel)
            top_fill(y, 0, COLS, row_st);
        x = 0;
        for (int i = 0; i < TOP_NGCOLS; i++) {
            if (!on[i])
                continue;
            if (!top_gcols[i].cell) {
                top_graph_spark(y, x, spark_w, g->hist, TOP_S_UTIL, 1, sel ? row_st : TOP_ST_UTIL);
                x += spark_w + 1;
                continue;
            }
            char cell[160];
            int w = top_gcols[i].width ? top_gcols[i].width : COLS - x;
            enum top_style st = top_gcols[i].cell(g, cell, sizeof cell);
            const char *title = g->nverdicts ? rule_table[g->verdicts[0].rule].title : "";
            size_t len = strlen(cell);
            if (top_gcols[i].cell == gc_verdict && g->nverdicts && w >= (int)(len + 2 + strlen(title)) &&
                len + 2 < sizeof cell) {
                cell[len] = ':', cell[len + 1] = ' ';
                top_copy(cell + len + 2, sizeof cell - len - 2, title);
            }
            st = sel ? row_st : st;
            if (top_gcols[i].right)
                top_put_right(y, x, w, cell, st);
            else
                top_put(y, x, w, cell, st);
            x += w + 1;
        }
    }
}

/* The selected GPU's graphs side by side: as many of util, SM, memory and power as fit 40 columns each. */
static void top_draw_history(struct top_ui *ui, int y0, int rows)
{
    static const struct { enum top_series s; const char *name; enum top_style st; } series[] = {
        {TOP_S_UTIL, "utilization", TOP_ST_UTIL}, {TOP_S_SM, "SM active (GPM)", TOP_ST_SM},
        {TOP_S_MEM, "memory used", TOP_ST_MEM}, {TOP_S_POWER, "power of limit", TOP_ST_POWER},
    };
    const struct top_gpu *g = &ui->view.gpus[ui->sel_gpu];
    int pick[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (top_graph_known(g->hist, series[i].s) || series[i].s == TOP_S_UTIL)
            pick[n++] = i;
    int fit = COLS / 40 < 1 ? 1 : COLS / 40;
    n = n < fit ? n : fit;
    int w = (COLS - (n - 1)) / n;
    unsigned per = top_graph_per(g->hist, w), avail = g->hist->n < TOP_HIST ? g->hist->n : TOP_HIST;
    double span = (double)(avail < per * (unsigned)w ? avail : per * (unsigned)w) * ui->view.hist_step_s;
    for (int k = 0; k < n; k++) {
        int x = k * (w + 1);
        char title[128];
        float last = g->hist->n ? g->hist->v[series[pick[k]].s][(g->hist->n - 1) % TOP_HIST] : NAN;
        char now[16];
        top_pct(now, sizeof now, last);
        char t[128], *e = t;   /* "GPU %u %s %s, last %.0f %s" */
        size_t nl = strlen(series[pick[k]].name), ml = strlen(now);
        memcpy(e, "GPU ", 4), e += 4;
        e = top_d0(e, g->rec.index), *e++ = ' ';
        memcpy(e, series[pick[k]].name, nl), e += nl, *e++ = ' ';
        memcpy(e, now, ml), e += ml;
        memcpy(e, ", last ", 7), e += 7;
        e = top_d0(e, span >= 120 ? span / 60 : span);
        memcpy(e, span >= 120 ? " min" : " s", span >= 120 ? 4 : 2), e += span >= 120 ? 4 : 2;
        top_cell(title, sizeof title, t, e);
        top_put(y0, x, w, title, TOP_ST_MARK);
        top_graph_area(y0 + 1, x, w, rows, g->hist, series[pick[k]].s, per, series[pick[k]].st);
    }
}

static void top_draw_header(struct top_ui *ui)
{
    char line[512], clock[16] = "", age[160] = "";
    time_t at = ui->view.time.tv_sec;   /* the data's time: it stops when the data does */
    struct tm tm;
    if (ui->view.gen && localtime_r(&at, &tm))
        strftime(clock, sizeof clock, "%H:%M:%S", &tm);
    double data_s = ui->view.gen ? (double)(ui->now_ns - ui->view.mono_ns) / 1e9 : 0;
    double busy_s = (double)ui->busy_ns / 1e9;
    if (ui->paused)
        snprintf(age, sizeof age, "  PAUSED (p resumes)");
    else if (!ui->view.gen)
        snprintf(age, sizeof age, "  waiting for the first sample (%.0f s)", busy_s);
    else if (data_s * 1000 > 2 * ui->interval_ms)
        snprintf(age, sizeof age, data_s < 10 ? "  data %.1f s old%s" : "  data %.0f s old%s", data_s,
                 busy_s > 1 && busy_s * 1000 > ui->interval_ms ? ": an NVML call is slow or hung" : "");
    char iv[16];
    if (ui->interval_ms >= 1000)
        snprintf(iv, sizeof iv, "%gs", ui->interval_ms / 1000);
    else
        snprintf(iv, sizeof iv, "%gms", ui->interval_ms);
    if (ui->view.gen)
        snprintf(line, sizeof line, "gpumon top  %s  %u GPU%s  every %s  %s%s", ui->view.hostname, ui->view.ngpus,
                 ui->view.ngpus == 1 ? "" : "s", iv, clock, age);
    else
        snprintf(line, sizeof line, "gpumon top%s", age);
    static const char help[] = "? help ";
    int hw = (int)sizeof help - 1;
    top_fill(0, 0, COLS, TOP_ST_HEADER);
    /* up to the hint, not under it: written over half a wide character (a UTF-8 hostname), the hint would
     * move on screen where curses draws it, and not where top's own frames do */
    top_put(0, 0, COLS - hw, line, age[0] && !ui->paused && ui->view.gen ? TOP_ST_CRIT : TOP_ST_HEADER);
    top_put_right(0, 0, COLS, help, TOP_ST_HEADER);
}

static void top_draw_host(struct top_ui *ui)
{
    const struct value *h = ui->view.host;
    char line[256];
    size_t k = 0;
    if (h[M_HOST_USER].state == VS_OK)
        k += (size_t)snprintf(line + k, sizeof line - k, "cpu usr %.1f%% sys %.1f%% iowait %.1f%%  ",
                              h[M_HOST_USER].u.f, h[M_HOST_SYSTEM].state == VS_OK ? h[M_HOST_SYSTEM].u.f : NAN,
                              h[M_HOST_IOWAIT].state == VS_OK ? h[M_HOST_IOWAIT].u.f : NAN);
    if (h[M_HOST_MEM_USED].state == VS_OK && h[M_HOST_MEM_TOTAL].state == VS_OK && k < sizeof line)
        k += (size_t)snprintf(line + k, sizeof line - k, "mem %lld/%lld MiB  ", h[M_HOST_MEM_USED].u.i,
                              h[M_HOST_MEM_TOTAL].u.i);
    if (k < sizeof line)
        snprintf(line + k, sizeof line - k, "%s%s%s%s", ui->tree ? "tree  " : "", ui->gpu_only ? "GPU " : "",
                 ui->gpu_only ? "selected only  " : "", ui->filter[0] ? "filter: " : "");
    int used = top_put(1, 0, COLS, line, TOP_ST_NORMAL);
    if (ui->filter[0])
        top_put(1, used, COLS - used, ui->filter, TOP_ST_MARK);
}

void top_draw_main(struct top_ui *ui)
{
    top_draw_header(ui);
    top_draw_host(ui);
    int avail = LINES - 5;   /* header, host, GPU heads, process heads, status */
    int g = (int)ui->view.ngpus;
    if (g > avail - 3)
        g = avail - 3 > 1 ? avail - 3 : 1;
    if (g < 1)
        g = 1;
    int spare = avail - g - 3, graph = 0;
    if (spare >= 4 && ui->view.ngpus)
        graph = spare / 2 > 10 ? 10 : spare / 2 < 3 ? 3 : spare / 2;
    top_draw_gpus(ui, 2, g);
    int y = 3 + g;
    if (graph) {
        top_draw_history(ui, y, graph);
        y += graph + 1;
    }
    top_ptable_build(ui);
    top_ptable_draw(ui, y, LINES - 1 - y);
    top_draw_status(ui);
}

void top_draw_status(struct top_ui *ui)
{
    char line[512];
    int y = LINES - 1;
    top_fill(y, 0, COLS, TOP_ST_NORMAL);
    if (ui->input == TOP_INPUT_FILTER) {
        snprintf(line, sizeof line, "filter (pid, user, container, command): %s_   Enter keeps it, Esc clears it",
                 ui->edit);
        top_put(y, 0, COLS, line, TOP_ST_MARK);
    } else if (ui->input == TOP_INPUT_CONFIRM) {
        snprintf(line, sizeof line, "Send %s to %s? (y/n)", ui->confirm.sig == 9 ? "SIGKILL" : "SIGTERM",
                 ui->confirm.what);
        top_put(y, 0, COLS, line, TOP_ST_CRIT);
    } else if (ui->msg[0] && ui->now_ns - ui->msg_ns < 8000000000ull) {
        top_put(y, 0, COLS, ui->msg, TOP_ST_MARK);
    } else {
        static const char *const hints[] = {
            ("q quit  ? help  Tab GPUs/processes  Enter details  s < > sort  r reverse  / filter  t tree  "
             "g this GPU  p pause  + - interval  k K signal"),
            "q quit  ? help  Tab pane  Enter details  s sort  / filter  t tree  p pause  + - interval  k signal",
            "q quit  ? help  Tab pane  Enter details  s sort  / filter  k signal",
        };
        size_t h = 0;
        while (h + 1 < sizeof hints / sizeof hints[0] && (int)strlen(hints[h]) > COLS)
            h++;
        top_put(y, 0, COLS, hints[h], TOP_ST_DIM);
    }
}
