/*
 * top_detail.c: `gpumon top`'s two full screens. The detail screen (Enter
 * or d on a GPU) shows everything the latest record holds for one GPU,
 * the window figures the rules judged, and each verdict that holds with
 * its title, evidence and advice, worded by rules.c as `gpumon run` and
 * `diagnose` word them; the history graphs fill what is left below. The
 * help screen lists the keys. Both are built as lines (word-wrapped to the
 * screen's width) and scroll with the arrows and page keys. A value that
 * is not known shows its marker from fmt.c's table ("n/a", "no-perm",
 * "ERR", "LOST"), never 0.
 */
#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "metrics.h"
#include "rules.h"
#include "top.h"

#define TOP_DETAIL_LINES 400

struct top_lines {
    int n;
    char text[TOP_DETAIL_LINES][256];
    enum top_style st[TOP_DETAIL_LINES];
};

/* Adds s, word-wrapped to the screen, continuation lines indented by indent. */
static void top_lines_add(struct top_lines *l, enum top_style st, int indent, const char *s)
{
    int w = COLS - 1 > 20 ? COLS - 1 : 20, first = 1;
    while (l->n < TOP_DETAIL_LINES) {
        int pad = first ? 0 : indent, room = w - pad;
        size_t len = strlen(s);
        size_t cut = len;
        if ((int)len > room) {
            cut = (size_t)room;
            while (cut > 0 && s[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = (size_t)room;
        }
        snprintf(l->text[l->n], sizeof l->text[0], "%*s%.*s", pad, "", (int)cut, s);
        l->st[l->n++] = st;
        s += cut;
        while (*s == ' ')
            s++;
        if (!*s)
            return;
        first = 0;
    }
}

static void top_lines_printf(struct top_lines *l, enum top_style st, int indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void top_lines_printf(struct top_lines *l, enum top_style st, int indent, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    top_lines_add(l, st, indent, buf);
}

/* A value with its unit and decimals, or its marker when not known. */
static const char *top_dv(const struct top_gpu_rec *g, enum metric_id m, char *buf, size_t len)
{
    const struct value *v = &g->v[m];
    char mark[32];
    if (v->state != VS_OK)
        snprintf(buf, len, "%s", fmt_marker(v, FMT_MARK_BRIEF, mark, sizeof mark));
    else if (metric_table[m].kind == MK_FLOAT)
        snprintf(buf, len, "%.*f%s%s", metric_table[m].decimals > 1 ? 1 : metric_table[m].decimals, v->u.f,
                 *metric_table[m].unit == '%' ? "" : " ", metric_table[m].unit);
    else if (metric_table[m].kind == MK_STR)
        snprintf(buf, len, "%s", v->u.s ? v->u.s : "");
    else
        snprintf(buf, len, "%lld%s%s", v->u.i, *metric_table[m].unit == '%' || !*metric_table[m].unit ? "" : " ",
                 metric_table[m].unit);
    return buf;
}

static void top_detail_values(struct top_lines *l, const struct top_gpu *tg)
{
    const struct top_gpu_rec *g = &tg->rec;
    char a[64], b[64], c[64], d[64], e[64], f[64];
    top_lines_printf(l, TOP_ST_NORMAL, 2, "uuid %s  pci %s  driver %s  serial %s", top_dv(g, M_UUID, a, sizeof a),
                     top_dv(g, M_PCI_BUS_ID, b, sizeof b), top_dv(g, M_DRIVER_VERSION, c, sizeof c),
                     top_dv(g, M_SERIAL, d, sizeof d));
    if (top_gpu_lost(g->v))
        top_lines_add(l, TOP_ST_CRIT, 2, "state: LOST: the GPU fell off the bus; NVML answers \"GPU is lost\"");
    top_lines_printf(l, TOP_ST_UTIL, 2, "utilization %s (sub-second samples since the previous record: %s to %s, "
                     "idle %s)  memory activity %s", top_dv(g, M_UTIL_GPU, a, sizeof a), top_dv(g, M_UTIL_MIN, b, sizeof b),
                     top_dv(g, M_UTIL_MAX, c, sizeof c), top_dv(g, M_UTIL_IDLE, d, sizeof d),
                     top_dv(g, M_UTIL_MEM, e, sizeof e));
    const struct value *sm = &g->v[M_GPM_SM_ACTIVE];
    if (sm->state == VS_OK)
        top_lines_printf(l, TOP_ST_SM, 2, "GPM: SM active %s  occupancy %s  tensor %s  DRAM %s  FP32 %s  FP16 %s",
                         top_dv(g, M_GPM_SM_ACTIVE, a, sizeof a), top_dv(g, M_GPM_SM_OCCUPANCY, b, sizeof b),
                         top_dv(g, M_GPM_TENSOR_ACTIVE, c, sizeof c), top_dv(g, M_GPM_DRAM_ACTIVE, d, sizeof d),
                         top_dv(g, M_GPM_FP32_ACTIVE, e, sizeof e), top_dv(g, M_GPM_FP16_ACTIVE, f, sizeof f));
    else
        top_lines_printf(l, TOP_ST_DIM, 2, "GPM (SM and tensor activity): %s",
                         sm->state == VS_NONE ? "no reading yet" : rules_gpm_why(sm->code));
    top_lines_printf(l, TOP_ST_MEM, 2, "memory used %s of %s, reserved %s, free %s", top_dv(g, M_MEM_USED, a, sizeof a),
                     top_dv(g, M_MEM_TOTAL, b, sizeof b), top_dv(g, M_MEM_RESERVED, c, sizeof c),
                     top_dv(g, M_MEM_FREE, d, sizeof d));
    top_lines_printf(l, TOP_ST_POWER, 2, "power %s of %s (enforced %s)  temperature %s  fan %s",
                     top_dv(g, M_POWER, a, sizeof a), top_dv(g, M_POWER_LIMIT, b, sizeof b),
                     top_dv(g, M_POWER_ENFORCED, c, sizeof c), top_dv(g, M_TEMP, d, sizeof d),
                     top_dv(g, M_FAN, e, sizeof e));
    char ps[24];
    if (g->v[M_PSTATE].state == VS_OK)
        snprintf(ps, sizeof ps, "P%lld", g->v[M_PSTATE].u.i);
    else
        top_dv(g, M_PSTATE, ps, sizeof ps);
    top_lines_printf(l, TOP_ST_NORMAL, 2, "clocks: SM %s (max %s), memory %s (max %s), graphics %s  pstate %s",
                     top_dv(g, M_CLOCK_SM, a, sizeof a), top_dv(g, M_CLOCK_MAX_SM, b, sizeof b),
                     top_dv(g, M_CLOCK_MEM, c, sizeof c), top_dv(g, M_CLOCK_MAX_MEM, d, sizeof d),
                     top_dv(g, M_CLOCK_GR, e, sizeof e), ps);
    top_lines_printf(l, TOP_ST_NORMAL, 2, "PCIe gen %s x%s (max gen %s x%s)  tx %s  rx %s",
                     top_dv(g, M_PCIE_GEN, a, sizeof a), top_dv(g, M_PCIE_WIDTH, b, sizeof b),
                     top_dv(g, M_PCIE_GEN_MAX, c, sizeof c), top_dv(g, M_PCIE_WIDTH_MAX, d, sizeof d),
                     top_dv(g, M_PCIE_TX, e, sizeof e), top_dv(g, M_PCIE_RX, f, sizeof f));
    int active = 0;
    for (int r = 0; r < CLOCK_REASON_COUNT; r++) {
        const struct value *v = &g->v[metric_reason_id((enum clock_reason_id)r)];
        if (v->state == VS_OK && v->u.i) {
            top_lines_printf(l, r == CR_IDLE ? TOP_ST_NORMAL : TOP_ST_WARN, 4, "clock reason %s: %s",
                             clock_reasons[r].label, clock_reasons[r].help);
            active++;
        }
    }
    if (!active)
        top_lines_add(l, TOP_ST_NORMAL, 2, g->v[M_REASONS].state == VS_OK ? "clock reasons: none active"
                                                                          : "clock reasons: not reported");
    top_lines_printf(l, TOP_ST_NORMAL, 2, "ECC errors: corrected %s, uncorrected %s   processes %s using %s",
                     top_dv(g, M_ECC_CORR, a, sizeof a), top_dv(g, M_ECC_UNCORR, b, sizeof b),
                     top_dv(g, M_PROC_COUNT, c, sizeof c), top_dv(g, M_PROC_MEM, d, sizeof d));
    for (unsigned x = 0; x < g->nxids; x++) {
        bool critical;
        const char *meaning = rules_xid_meaning(g->xids[x].code, &critical);
        top_lines_printf(l, critical ? TOP_ST_CRIT : TOP_ST_WARN, 4, "XID %u seen %llu time%s: %s", g->xids[x].code,
                         g->xids[x].count, g->xids[x].count == 1 ? "" : "s", meaning);
    }
}

static void top_detail_verdicts(struct top_lines *l, const struct top_gpu *tg, const char *text)
{
    const struct analyze_gpu_stats *s = &tg->stats;
    top_lines_add(l, TOP_ST_NORMAL, 0, "");
    if (tg->have_stats && s->n) {   /* the window figures the analysis names (analyze_window_figures' labels) */
        char line[1024];
        int len = snprintf(line, sizeof line, "window (%.0f s, %.0f s covered):", s->window_s, s->span_s);
        const char *sep = " ";
        for (int f = 0; f < analyze_nwindow_figures && len < (int)sizeof line; f++) {
            const struct analyze_figure *fig = &analyze_window_figures[f];
            if (!fig->label || !analyze_figure_shown(fig, s))
                continue;
            const char *unit = fig->unit ? fig->unit : "";
            len += snprintf(line + len, sizeof line - (size_t)len, "%s%s %.0f%s%s", sep, fig->label,
                            analyze_figure_value(fig, s), *unit && *unit != '%' ? " " : "", unit);
            sep = ", ";
        }
        top_lines_add(l, TOP_ST_NORMAL, 2, line);
    }
    top_lines_add(l, TOP_ST_MARK, 0, "Verdicts (the rules of gpumon run; gpumon run --list-rules lists them):");
    for (unsigned i = 0; i < tg->nverdicts; i++) {
        const struct top_verdict *v = &tg->verdicts[i];
        const struct rule *r = &rule_table[v->rule];
        top_lines_printf(l, top_severity_style(v->rule), 4, "  %s %s: %s (held %.0f s)",
                         rules_severity_name(r->severity), r->id, r->title, v->held_s);
        if (text[v->evidence])
            top_lines_printf(l, TOP_ST_NORMAL, 14, "    evidence: %s", text + v->evidence);
        top_lines_printf(l, TOP_ST_NORMAL, 12, "    advice: %s", r->advice);
    }
    if (!tg->nverdicts && (!tg->have_stats || !s->enough))
        top_lines_printf(l, TOP_ST_DIM, 4, "  none yet: the window rules judge once most of the window is covered "
                         "(%.0f of %.0f s so far); faults (lost, XID, ECC, OOM) are reported at once",
                         tg->have_stats ? s->span_s : 0, tg->have_stats ? s->window_s : 0);
    else if (!tg->nverdicts)
        top_lines_add(l, TOP_ST_OK, 4, "  none");
}

/* Draws lines from ui->detail_top in rows y0..y0+h-1. */
static void top_lines_draw(struct top_ui *ui, const struct top_lines *l, int y0, int h)
{
    if (ui->detail_top + (unsigned)h > (unsigned)l->n)
        ui->detail_top = l->n > h ? (unsigned)(l->n - h) : 0;
    for (int i = 0; i < h && ui->detail_top + (unsigned)i < (unsigned)l->n; i++)
        top_put(y0 + i, 0, COLS, l->text[ui->detail_top + (unsigned)i], l->st[ui->detail_top + (unsigned)i]);
}

void top_draw_detail(struct top_ui *ui)
{
    static struct top_lines l;
    char title[256];
    if (ui->sel_gpu >= ui->view.ngpus) {
        ui->screen = TOP_SCREEN_MAIN;
        top_draw_main(ui);
        return;
    }
    const struct top_gpu *tg = &ui->view.gpus[ui->sel_gpu];
    l.n = 0;
    top_detail_values(&l, tg);
    top_detail_verdicts(&l, tg, ui->view.text);
    snprintf(title, sizeof title, "GPU %u  %s   (Left/Right: other GPUs, arrows scroll, Esc back)", tg->rec.index,
             top_short_name(&tg->rec));
    top_fill(0, 0, COLS, TOP_ST_HEADER);
    top_put(0, 0, COLS, title, TOP_ST_HEADER);
    int body = LINES - 2, graph = 0;
    if (body - l.n >= 6)
        graph = body - l.n - 2 > 10 ? 10 : body - l.n - 2;
    top_lines_draw(ui, &l, 1, body - (graph ? graph + 1 : 0));
    if (graph) {
        int w = COLS / 2 - 1;
        unsigned per = top_graph_per(tg->hist, w);
        top_put(LINES - 2 - graph, 0, w, "utilization", TOP_ST_MARK);
        top_graph_area(LINES - 1 - graph, 0, w, graph, tg->hist, TOP_S_UTIL, per, TOP_ST_UTIL);
        bool sm = top_graph_known(tg->hist, TOP_S_SM);
        top_put(LINES - 2 - graph, w + 2, w, sm ? "SM active (GPM)" : "memory used", TOP_ST_MARK);
        top_graph_area(LINES - 1 - graph, w + 2, w, graph, tg->hist, sm ? TOP_S_SM : TOP_S_MEM, per,
                       sm ? TOP_ST_SM : TOP_ST_MEM);
    }
    top_draw_status(ui);
}

void top_draw_help(struct top_ui *ui)
{
    static struct top_lines l;
    static const char *const keys[][2] = {
        {"q, F10", "quit (Ctrl-C, SIGTERM and a closed terminal too)"},
        {"?, h, F1", "this help; Esc or ? goes back"},
        {"Tab", "move between the GPU list and the process list"},
        {"Up Down PgUp PgDn Home End", "select a GPU or a process; 0-9 select a GPU by its index"},
        {"Enter, d", "the selected GPU's details: every value, the window figures, each verdict with its "
                     "evidence and advice; Left/Right there for the other GPUs"},
        {"s, <, >", "sort the processes by the next / previous / next column"},
        {"r", "reverse the sort"},
        {"/", "filter the processes by pid, user, container or command (Enter keeps it, Esc clears it)"},
        {"g", "only the selected GPU's processes, or all again"},
        {"t", "tree (each process under its parent; a job's launcher shown grey) or flat list"},
        {"p, Space", "pause the display (sampling and the verdicts go on); again to resume"},
        {"+, -", "sample less or more often: 100ms (the minimum) to 1 min"},
        {"k, K", "send SIGTERM or SIGKILL to the selected process, after a y/n question; another user's "
                 "processes only as root"},
    };
    l.n = 0;
    top_lines_add(&l, TOP_ST_MARK, 0, "Keys");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        top_lines_printf(&l, TOP_ST_NORMAL, 30, "  %-26s %s", keys[i][0], keys[i][1]);
    top_lines_add(&l, TOP_ST_NORMAL, 0, "");
    top_lines_add(&l, TOP_ST_MARK, 0, "Columns");
    top_lines_add(&l, TOP_ST_NORMAL, 4, "  UTIL is the share of time a kernel ran; RANGE the lowest and highest of the "
                  "driver's sub-second samples since the previous record; SM and TNSR how much of the GPU the kernels "
                  "fill (GPM, Hopper and newer; - elsewhere); THROTTLE the clock event reasons holding the clocks "
                  "down; VERDICT the most severe verdict of gpumon run's rules over the window (--window, default "
                  "30 s), +N more on the details screen. \"judging\" until the window is 80% covered.");
    top_lines_add(&l, TOP_ST_NORMAL, 4, "  The header says how old the data is once the latest sample is older than "
                  "two intervals (an NVML call that hangs freezes the data, never the screen).");
    top_fill(0, 0, COLS, TOP_ST_HEADER);
    top_put(0, 0, COLS, "gpumon top: help   (Esc back, q quit)", TOP_ST_HEADER);
    top_lines_draw(ui, &l, 1, LINES - 2);
    top_draw_status(ui);
}
