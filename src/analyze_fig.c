/*
 * analyze_fig.c: the analysis' tables and the reductions they name.
 *
 * analyze_columns[]: which metric of a record fills each column of a window
 * point. analyze_window_figures[]: each figure of the window (struct
 * analyze_gpu_stats) as a column reduced one way; the exporter's window
 * gauges, gpumon top's window line and the rules' documentation walk these
 * rows. analyze_run_figures[]: the whole run's figures (struct
 * analyze_summary) the same way. A row whose reduction no enum names is
 * AH_CUSTOM: a function of analyze_window.c (or analyze_summary) fills it,
 * and the row still names and documents it.
 *
 * A new figure over a metric: a column (if none reads the metric yet), a
 * row, a field; every output that walks the rows shows it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze_int.h"

const struct analyze_column analyze_columns[AC_COUNT] = {
    [AC_UTIL] = {.metric = M_UTIL_GPU},
    [AC_UTIL_MAX] = {.metric = M_UTIL_MAX},
    [AC_IDLE] = {.metric = M_UTIL_IDLE, .div = 100},   /* without it, from AC_UTIL under idle.util */
    [AC_MEM_USED] = {.metric = M_MEM_USED},
    [AC_MEM_TOTAL] = {.metric = M_MEM_TOTAL},
    [AC_TEMP] = {.metric = M_TEMP},
    [AC_POWER] = {.metric = M_POWER},
    [AC_POWER_LIMIT] = {.metric = M_POWER_ENFORCED},       /* without it, M_POWER_LIMIT */
    [AC_SM_CLOCK] = {.metric = M_CLOCK_SM},
    [AC_SM_CLOCK_MAX] = {.metric = M_CLOCK_MAX_SM},
    [AC_PCIE_TX] = {.metric = M_PCIE_TX},
    [AC_PCIE_RX] = {.metric = M_PCIE_RX},
    [AC_SM_ACTIVE] = {.metric = M_GPM_SM_ACTIVE},
    [AC_SM_OCCUPANCY] = {.metric = M_GPM_SM_OCCUPANCY},
    [AC_TENSOR] = {.metric = M_GPM_TENSOR_ACTIVE},
    [AC_DRAM] = {.metric = M_GPM_DRAM_ACTIVE},
    [AC_FP32] = {.metric = M_GPM_FP32_ACTIVE},
    [AC_IN_WAIT] = {.from_steps = true},
    [AC_IN_COMPUTE] = {.from_steps = true},
};

#define WF(field) .offset = offsetof(struct analyze_gpu_stats, field)
#define GPM_GATE .gate = AC_SM_ACTIVE, .flags = AF_GPM

const struct analyze_figure analyze_window_figures[] = {
    {.key = "utilization", WF(util_mean), .col = AC_UTIL, .gate = AC_NONE, .how = AH_HIST_MEAN,
     .label = "utilization mean", .unit = "%", .export_help = "Mean utilization over the analysis window (--window)"},
    {.key = "utilization_p5", WF(util_p5), .col = AC_UTIL, .gate = AC_NONE, .how = AH_HIST_PCT, .pct = 5,
     .label = "p5", .unit = "%"},
    {.key = "utilization_p50", WF(util_p50), .col = AC_UTIL, .gate = AC_NONE, .how = AH_HIST_PCT, .pct = 50,
     .label = "p50", .unit = "%"},
    {.key = "utilization_p95", WF(util_p95), .col = AC_UTIL, .gate = AC_NONE, .how = AH_HIST_PCT, .pct = 95,
     .label = "p95", .unit = "%"},
    {.key = "utilization_peak", WF(util_peak), .col = AC_UTIL_MAX, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "p95 of the driver's sub-second maxima (without them, of utilization)", .unit = "%"},
    {.key = "idle", WF(idle_share), .col = AC_IDLE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "time-weighted share of the window idle (analyze_idle)", .label = "idle", .unit = "%",
     .export_help = "Share of the analysis window the GPU was idle (driver's sub-second samples)"},
    {.key = "idle_gaps", WF(idle_gaps), .col = AC_IDLE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "idle stretches (analyze_idle)", .label = "idle gaps"},
    {.key = "idle_gap_mean", WF(idle_gap_mean_s), .col = AC_IDLE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "mean length of the idle stretches (analyze_idle)", .unit = "s"},
    {.key = "idle_gap_max", WF(idle_gap_max_s), .col = AC_IDLE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "longest idle stretch (analyze_idle)", .unit = "s"},
    {.key = "memory_used", WF(mem_last), .col = AC_MEM_USED, .gate = AC_MEM_TOTAL, .how = AH_LAST,
     .flags = AF_NONE_ZERO, .unit = "MiB"},
    {.key = "memory_total", WF(mem_total), .col = AC_MEM_TOTAL, .gate = AC_MEM_USED, .how = AH_LAST, .unit = "MiB"},
    {.key = "memory_min", WF(mem_min), .col = AC_MEM_USED, .gate = AC_MEM_TOTAL, .how = AH_MIN, .unit = "MiB"},
    {.key = "memory_max", WF(mem_max), .col = AC_MEM_USED, .gate = AC_MEM_TOTAL, .how = AH_MAX, .unit = "MiB"},
    {.key = "memory_slope", WF(mem_slope), .col = AC_MEM_USED, .gate = AC_MEM_TOTAL, .how = AH_SLOPE,
     .unit = "MiB/s"},
    {.key = "memory_slope_later", WF(mem_recent_slope), .col = AC_MEM_USED, .gate = AC_MEM_TOTAL,
     .how = AH_SLOPE_LATER, .unit = "MiB/s"},
    {.key = "thermal", WF(thermal_share), .col = AC_NONE, .gate = AC_NONE, .how = AH_REASONS,
     .group = CR_GROUP_THERMAL, .unit = "%"},
    {.key = "power_capped", WF(power_share), .col = AC_NONE, .gate = AC_NONE, .how = AH_REASONS,
     .group = CR_GROUP_POWER, .unit = "%"},
    {.key = "temperature_max", WF(temp_max), .col = AC_TEMP, .gate = AC_NONE, .how = AH_MAX, .unit = "C"},
    {.key = "power", WF(power_mean), .col = AC_POWER, .gate = AC_NONE, .how = AH_MEAN, .unit = "W"},
    {.key = "power_limit", WF(power_limit), .col = AC_POWER_LIMIT, .gate = AC_NONE, .how = AH_LAST, .unit = "W"},
    {.key = "sm_clock", WF(sm_clock_mean), .col = AC_SM_CLOCK, .gate = AC_NONE, .how = AH_MEAN, .unit = "MHz"},
    {.key = "sm_clock_max", WF(sm_clock_max), .col = AC_SM_CLOCK_MAX, .gate = AC_NONE, .how = AH_LAST,
     .unit = "MHz"},
    {.key = "pcie_tx", WF(pcie_tx_mean), .col = AC_PCIE_TX, .gate = AC_NONE, .how = AH_MEAN, .unit = "KB/s"},
    {.key = "pcie_rx", WF(pcie_rx_mean), .col = AC_PCIE_RX, .gate = AC_NONE, .how = AH_MEAN, .unit = "KB/s"},
    {.key = "gpm_points", WF(n_gpm), .col = AC_SM_ACTIVE, .gate = AC_NONE, .how = AH_COUNT},
    {.key = "sm_active", WF(sm_active_mean), .col = AC_SM_ACTIVE, GPM_GATE, .how = AH_MEAN, .label = "SM active mean",
     .unit = "%", .export_help = "Mean SM activity (GPM) over the analysis window, where GPM covers it"},
    {.key = "sm_occupancy", WF(sm_occupancy_mean), .col = AC_SM_OCCUPANCY, GPM_GATE, .how = AH_MEAN, .unit = "%"},
    {.key = "tensor_active", WF(tensor_mean), .col = AC_TENSOR, GPM_GATE, .how = AH_MEAN, .label = "tensor",
     .unit = "%", .export_help = "Mean tensor-core activity (GPM) over the analysis window, where GPM covers it"},
    {.key = "dram_active", WF(dram_mean), .col = AC_DRAM, GPM_GATE, .how = AH_MEAN, .label = "DRAM", .unit = "%"},
    {.key = "fp32_active", WF(fp32_mean), .col = AC_FP32, GPM_GATE, .how = AH_MEAN, .unit = "%"},
};
const int analyze_nwindow_figures = (int)(sizeof analyze_window_figures / sizeof analyze_window_figures[0]);

#define RF(field) .offset = offsetof(struct analyze_summary, field)

const struct analyze_run_figure analyze_run_figures[] = {
    {.key = "utilization_mean", RF(util_mean), .col = AC_UTIL, .gate = AC_NONE, .how = AH_HIST_MEAN},
    {.key = "utilization_p50", RF(util_p50), .col = AC_UTIL, .gate = AC_NONE, .how = AH_HIST_PCT, .pct = 50},
    {.key = "utilization_p95", RF(util_p95), .col = AC_UTIL, .gate = AC_NONE, .how = AH_HIST_PCT, .pct = 95},
    {.key = "idle_share", RF(idle_share), .col = AC_IDLE, .gate = AC_UTIL, .how = AH_CUSTOM,
     .how_text = "mean of the records' idle shares"},
    {.key = "memory_peak", RF(mem_peak), .col = AC_MEM_USED, .gate = AC_NONE, .how = AH_MAX},
    {.key = "memory_total", RF(mem_total), .col = AC_MEM_TOTAL, .gate = AC_NONE, .how = AH_LAST},
    {.key = "throttled", RF(throttled_s), .col = AC_NONE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "seconds with a thermal or power reason active (a hole counts up to 60 s)"},
    {.key = "sm_active_mean", RF(sm_active_mean), .col = AC_SM_ACTIVE, .gate = AC_NONE, .how = AH_MEAN},
    {.key = "tensor_active_mean", RF(tensor_mean), .col = AC_TENSOR, .gate = AC_SM_ACTIVE, .how = AH_MEAN},
    {.key = "dram_active_mean", RF(dram_mean), .col = AC_DRAM, .gate = AC_SM_ACTIVE, .how = AH_MEAN},
};
const int analyze_nrun_figures = (int)(sizeof analyze_run_figures / sizeof analyze_run_figures[0]);
_Static_assert(sizeof analyze_run_figures / sizeof analyze_run_figures[0] <= ANALYZE_RUN_ACCS,
               "raise ANALYZE_RUN_ACCS");

double analyze_hist_percentile(const unsigned long long *hist, unsigned long long n, double pct)
{
    if (n == 0)
        return NAN;
    unsigned long long rank = (unsigned long long)ceil(pct / 100.0 * (double)n), cum = 0;
    if (rank < 1)
        rank = 1;
    for (int b = 0; b <= 100; b++)
        if ((cum += hist[b]) >= rank)
            return b;
    return 100;
}

double analyze_hist_mean(const unsigned long long *hist, unsigned long long n)
{
    if (n == 0)
        return NAN;
    double sum = 0;
    for (int b = 0; b <= 100; b++)
        sum += (double)b * (double)hist[b];
    return sum / (double)n;
}

double analyze_figure_value(const struct analyze_figure *f, const struct analyze_gpu_stats *s)
{
    return *(const double *)((const char *)s + f->offset);
}

bool analyze_figure_shown(const struct analyze_figure *f, const struct analyze_gpu_stats *s)
{
    return s->n && isfinite(analyze_figure_value(f, s)) && (!(f->flags & AF_GPM) || s->gpm_covered);
}

void analyze_acc_add(struct analyze_acc *acc, double t, double v)
{
    acc->min = acc->n && acc->min <= v ? acc->min : v;
    acc->max = acc->n && acc->max >= v ? acc->max : v;
    acc->n++;
    acc->sum += v;
    acc->last = v;
    acc->st += t, acc->sv += v, acc->stt += t * t, acc->stv += t * v;
}

/* The value of a reduction; empty: no point had the column. */
static double analyze_acc_value(const struct analyze_acc *acc, enum analyze_how how)
{
    double den = acc->n * acc->stt - acc->st * acc->st;
    switch (how) {
    case AH_MEAN: return acc->n ? acc->sum / acc->n : NAN;
    case AH_MIN: return acc->n ? acc->min : NAN;
    case AH_MAX: return acc->n ? acc->max : NAN;
    case AH_LAST: return acc->n ? acc->last : NAN;
    case AH_COUNT: return acc->n;
    case AH_SLOPE:
    case AH_SLOPE_LATER: return acc->n >= 2 && den > 0 ? (acc->n * acc->stv - acc->st * acc->sv) / den : 0;
    default: return NAN;
    }
}

static void analyze_set(void *base, size_t offset, double v)
{
    memcpy((char *)base + offset, &v, sizeof v);
}

/* The window's points in their two runs of the ring (no division per point). */
struct analyze_runs {
    const struct analyze_point *p[2];
    unsigned n[2];
};

static struct analyze_runs analyze_runs_of(const struct analyze_gpu *g)
{
    unsigned first = g->cap - g->head < g->n ? g->cap - g->head : g->n;
    return (struct analyze_runs){{g->ring + g->head, g->ring}, {first, g->n - first}};
}

#define ANALYZE_EACH_POINT(runs, p)                                                                            \
    for (int run_ = 0; run_ < 2; run_++)                                                                       \
        for (const struct analyze_point *p = (runs).p[run_], *end_ = p + (runs).n[run_]; p < end_; p++)

/* The count, sum, min, max and last of a column over the points where it and gate are known: one pass for
 * every row that reduces the same column under the same gate (a row wanting the last alone looks from the
 * end, and stops at the first point that has it). */
struct analyze_pass {
    enum analyze_col col, gate;
    bool whole;                      /* all five; else only last (and n > 0 when there is one) */
    double n, sum, min, max, last;
};

static const struct analyze_pass *analyze_pass_for(struct analyze_pass *done, unsigned *ndone,
                                                   const struct analyze_gpu *g, enum analyze_col col,
                                                   enum analyze_col gate, bool whole)
{
    unsigned i = 0;
    while (i < *ndone && (done[i].col != col || done[i].gate != gate))
        i++;
    if (i < *ndone && (done[i].whole || !whole))
        return &done[i];
    if (i == *ndone)
        (*ndone)++;
    double n = 0, sum = 0, min = NAN, max = NAN, last = NAN;   /* in registers, not through done[] */
    if (!whole) {
        for (unsigned k = g->n; k-- > 0 && !n;) {
            const struct analyze_point *p = analyze_at(g, k);
            if (!isnan(p->v[col]) && !isnan(p->v[gate]))
                last = p->v[col], n = 1;
        }
    } else {
        struct analyze_runs runs = analyze_runs_of(g);
        min = INFINITY, max = -INFINITY;
        ANALYZE_EACH_POINT(runs, p) {
            double x = p->v[col];
            if (isnan(x) || isnan(p->v[gate]))
                continue;
            if (x < min)
                min = x;
            if (x > max)
                max = x;
            last = x;
            sum += x;
            n++;
        }
        if (!n)
            min = max = NAN;
    }
    done[i] = (struct analyze_pass){.col = col, .gate = gate, .whole = whole, .n = n, .sum = sum, .min = min,
                                    .max = max, .last = last};
    return &done[i];
}

/* The clock-reason share and slope rows, which need their own pass. */
static double analyze_window_row(const struct analyze_gpu *g, const struct analyze_figure *f, double t0,
                                 double half)
{
    struct analyze_runs runs = analyze_runs_of(g);
    enum analyze_col col = f->col, gate = f->gate == AC_NONE ? f->col : f->gate;
    if (f->how == AH_REASONS) {
        unsigned long long mask = clock_reason_mask(f->group);
        double known = 0, on = 0;
        ANALYZE_EACH_POINT(runs, p)
            if (p->reasons >= 0)
                known++, on += (p->reasons & mask) != 0;
        return known ? 100.0 * on / known : 0;
    }
    struct analyze_acc acc = {0};   /* AH_SLOPE, AH_SLOPE_LATER */
    ANALYZE_EACH_POINT(runs, p)
        if (!isnan(p->v[col]) && !isnan(p->v[gate]) && (f->how == AH_SLOPE || p->t >= half))
            analyze_acc_add(&acc, p->t - t0, p->v[col]);
    return analyze_acc_value(&acc, f->how);
}

/* The window figures the rows describe: each row's column reduced over the points of g's window. */
void analyze_window_reduce(const struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    struct analyze_pass done[2 * AC_COUNT];
    unsigned ndone = 0;
    double t0 = g->n ? analyze_at(g, 0)->t : 0, half = g->n ? t0 + (analyze_at(g, g->n - 1)->t - t0) / 2 : 0;
    for (int r = 0; r < analyze_nwindow_figures; r++) {
        const struct analyze_figure *f = &analyze_window_figures[r];
        double v = NAN;
        if (f->how == AH_CUSTOM) {
            continue;
        } else if (f->how == AH_HIST_MEAN || f->how == AH_HIST_PCT) {
            const unsigned long long *h = f->col == AC_UTIL_MAX ? g->hist_max : g->hist;
            unsigned long long n = f->col == AC_UTIL_MAX ? g->n_max : g->n_util;
            v = f->how == AH_HIST_MEAN ? analyze_hist_mean(h, n) : analyze_hist_percentile(h, n, f->pct);
        } else if (f->how == AH_REASONS || f->how == AH_SLOPE || f->how == AH_SLOPE_LATER) {
            v = analyze_window_row(g, f, t0, half);
        } else if (ndone < sizeof done / sizeof done[0]) {
            const struct analyze_pass *a = analyze_pass_for(done, &ndone, g, f->col,
                                                            f->gate == AC_NONE ? f->col : f->gate, f->how != AH_LAST);
            v = f->how == AH_COUNT ? a->n : !a->n ? ((f->flags & AF_NONE_ZERO) ? 0 : NAN)
                : f->how == AH_MEAN ? a->sum / a->n : f->how == AH_MIN ? a->min : f->how == AH_MAX ? a->max
                : a->last;
        }
        analyze_set(s, f->offset, v);
    }
}

void analyze_run_add(struct analyze_run *run, const struct analyze_point *p)
{
    for (int r = 0; r < analyze_nrun_figures; r++) {
        const struct analyze_run_figure *f = &analyze_run_figures[r];
        if (f->how == AH_CUSTOM || f->how == AH_HIST_MEAN || f->how == AH_HIST_PCT)
            continue;
        double x = p->v[f->col];
        if (!isnan(x) && (f->gate == AC_NONE || !isnan(p->v[f->gate])))
            analyze_acc_add(&run->acc[r], 0, x);
    }
}

void analyze_run_reduce(const struct analyze_run *run, struct analyze_summary *out)
{
    for (int r = 0; r < analyze_nrun_figures; r++) {
        const struct analyze_run_figure *f = &analyze_run_figures[r];
        if (f->how == AH_CUSTOM)
            continue;
        double v = f->how == AH_HIST_MEAN  ? analyze_hist_mean(run->hist, run->n_util)
                   : f->how == AH_HIST_PCT ? analyze_hist_percentile(run->hist, run->n_util, f->pct)
                                           : analyze_acc_value(&run->acc[r], f->how);
        analyze_set(out, f->offset, v);
    }
}
