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
    {.key = "spin", WF(spin_share), .col = AC_SM_ACTIVE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "share of the points busy by utilization while SM activity and DRAM bandwidth are both under "
                 "sm.idle (a kernel that waits: counted idle; analyze_point_from)", .unit = "%"},
    {.key = "stops", WF(stops), .col = AC_IDLE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "idle stretches of pause.seconds or more reaching into the window, quiet blips inside them "
                 "forgiven (analyze_stop)"},
    {.key = "stop_max", WF(stop_max_s), .col = AC_IDLE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "idle seconds of the longest stop (analyze_stop)", .unit = "s"},
    {.key = "stop_idle", WF(stop_idle_s), .col = AC_IDLE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "idle seconds of the stops inside the window (analyze_stops_window)", .unit = "s"},
    {.key = "stop_busy_before", WF(stop_busy_before_s), .col = AC_IDLE, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "the least time from the end of the stop before (or the first record) to one of the window's "
                 "stops (analyze_stop)", .unit = "s"},
    {.key = "busy_utilization", WF(busy_util), .col = AC_UTIL, .gate = AC_NONE, .how = AH_CUSTOM,
     .how_text = "mean utilization of the points idle less than half their interval (analyze_stops_window)",
     .unit = "%"},
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
_Static_assert(sizeof analyze_window_figures / sizeof analyze_window_figures[0] <= ANALYZE_PLAN_ROWS,
               "raise ANALYZE_PLAN_ROWS");
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

/* Several percentiles of one histogram in one walk: out[i] is analyze_hist_percentile(hist, n, pct[i]) (the
 * first bin where the count so far reaches the rank, which is a bin that holds points: the walk visits only
 * those, bits[] marking them). */
void analyze_hist_percentiles(const unsigned long long *hist, const unsigned long long *bits, unsigned long long n,
                              const double *pct, unsigned k, double *out)
{
    unsigned long long rank[ANALYZE_PLAN_ROWS], cum = 0;
    bool done[ANALYZE_PLAN_ROWS];
    unsigned left = k;
    for (unsigned i = 0; i < k; i++) {
        out[i] = n ? 100 : NAN;
        rank[i] = (unsigned long long)ceil(pct[i] / 100.0 * (double)n);
        if (rank[i] < 1)
            rank[i] = 1;
        done[i] = false;
    }
    for (int w = 0; w < 2 && left && n; w++)
        for (unsigned long long m = bits[w]; m && left; m &= m - 1) {
            int b = w * 64 + __builtin_ctzll(m);
            cum += hist[b];
            for (unsigned i = 0; i < k; i++)
                if (!done[i] && cum >= rank[i])
                    out[i] = b, done[i] = true, left--;
        }
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

/* The plan of the window figures (analyze_int.h): which (column, gate) pairs need a whole pass (count, sum,
 * min, max, last) and which only their last point, and the clock-reason and slope rows, each with where
 * its value comes from. Rows keep their order; a pair serves every row that reduces it. */
void analyze_plan_make(struct analyze_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    for (int r = 0; r < analyze_nwindow_figures && r < ANALYZE_PLAN_ROWS; r++) {
        const struct analyze_figure *f = &analyze_window_figures[r];
        struct analyze_plan_row *row = &pl->row[pl->nrows++];
        *row = (struct analyze_plan_row){.fig = f, .slot = -1};
        enum analyze_col col = f->col, gate = f->gate == AC_NONE ? f->col : f->gate;
        if (f->how == AH_HIST_PCT) {
            int h = f->col == AC_UTIL_MAX;
            row->slot = (int)pl->nhist[h];
            pl->hist_pct[h][pl->nhist[h]++] = f->pct;
            continue;
        }
        if (f->how == AH_CUSTOM || f->how == AH_HIST_MEAN)
            continue;
        if (f->how == AH_REASONS) {
            row->slot = (int)pl->nreasons;
            pl->reason_mask[pl->nreasons++] = clock_reason_mask(f->group);
            continue;
        }
        if (f->how == AH_SLOPE || f->how == AH_SLOPE_LATER) {
            row->slot = (int)pl->nslopes;
            pl->slope_col[pl->nslopes] = col, pl->slope_gate[pl->nslopes] = gate;
            pl->slope_later[pl->nslopes++] = f->how == AH_SLOPE_LATER;
            continue;
        }
        bool whole = f->how != AH_LAST;
        unsigned k = 0;
        while (k < pl->npairs && (pl->col[k] != col || pl->gate[k] != gate))
            k++;
        if (k == pl->npairs) {
            pl->col[k] = col, pl->gate[k] = gate;
            pl->npairs++;
        }
        pl->whole[k] |= whole;
        row->slot = (int)k;
    }
    /* the whole passes first, then the pairs of which only the last point is wanted */
    unsigned order[ANALYZE_PLAN_PAIRS], n = 0, at[ANALYZE_PLAN_PAIRS];
    for (int w = 1; w >= 0; w--)
        for (unsigned k = 0; k < pl->npairs; k++)
            if (pl->whole[k] == (bool)w)
                at[k] = n, order[n++] = k;
    struct analyze_plan old = *pl;
    for (unsigned k = 0; k < n; k++) {
        pl->col[k] = old.col[order[k]], pl->gate[k] = old.gate[order[k]], pl->whole[k] = old.whole[order[k]];
        pl->nwhole += pl->whole[k];
    }
    for (unsigned r = 0; r < pl->nrows; r++) {
        enum analyze_how how = pl->row[r].fig->how;
        if (pl->row[r].slot >= 0 && how != AH_REASONS && how != AH_SLOPE && how != AH_SLOPE_LATER && how != AH_HIST_PCT) {
            int k = pl->row[r].slot = (int)at[pl->row[r].slot];
            pl->want_min[k] |= how == AH_MIN;
            pl->want_max[k] |= how == AH_MAX;
            pl->want_sum[k] |= how == AH_MEAN;
        }
    }
}

/* The window figures the rows describe: each row's column reduced over the points of g's window. The whole
 * pairs' counts, newest values, extremes and (where they are exact) sums, and the clock-reason counts, are
 * kept as points enter and leave (analyze_slide.c), and so are the slopes' sums where whole numbers make
 * them exact; one pass over the points adds up what remains: a slope or a sum the sums could not hold (each accumulator adds its points in the window's
 * order, as a pass of its own would). A pair wanted for its last point alone looks from the end and stops
 * at the first point that has it. */
void analyze_window_reduce(const struct analyze_plan *pl, struct analyze_gpu *g, struct analyze_gpu_stats *s)
{
    const struct analyze_slide *sl = &g->slide;
    double n[ANALYZE_PLAN_PAIRS] = {0}, sum[ANALYZE_PLAN_PAIRS] = {0}, min[ANALYZE_PLAN_PAIRS],
           max[ANALYZE_PLAN_PAIRS], last[ANALYZE_PLAN_PAIRS];
    unsigned add[ANALYZE_PLAN_PAIRS], nadd = 0;   /* pairs whose sum is added up below */
    struct analyze_acc acc[ANALYZE_PLAN_ROWS];
    double t0 = g->n ? analyze_at(g, 0)->t : 0, half = g->n ? t0 + (analyze_at(g, g->n - 1)->t - t0) / 2 : 0;
    unsigned nw = pl->nwhole;
    for (unsigned k = 0; k < pl->npairs; k++)
        min[k] = max[k] = last[k] = NAN;
    for (unsigned k = 0; k < nw; k++) {
        const struct analyze_wpair *w = &sl->pair[k];
        n[k] = (double)w->n;
        if (!w->n)
            continue;
        last[k] = w->last;
        if (pl->want_min[k])
            min[k] = w->min.e[w->min.head].v;
        if (pl->want_max[k])
            max[k] = w->max.e[w->max.head].v;
        if (pl->want_sum[k] && !analyze_slide_sum(w, &sum[k]))
            add[nadd++] = k;
    }
    memset(acc, 0, pl->nslopes * sizeof acc[0]);
    unsigned slow[ANALYZE_PLAN_ROWS], nslow = 0;   /* slope rows added up below */
    double tlast = g->n ? analyze_at(g, g->n - 1)->t : 0;
    for (unsigned k = 0; k < pl->nslopes; k++)
        if (!g->n || !analyze_slide_slope(pl, g, k, t0, tlast, half, &acc[k]))
            slow[nslow++] = k;
    if (nadd || nslow) {
        struct analyze_runs runs = analyze_runs_of(g);
        ANALYZE_EACH_POINT(runs, p) {
            for (unsigned i = 0; i < nadd; i++) {
                double x = p->v[pl->col[add[i]]];
                if (!isnan(x) && !isnan(p->v[pl->gate[add[i]]]))
                    sum[add[i]] += x;
            }
            for (unsigned j = 0; j < nslow; j++) {
                unsigned k = slow[j];
                if (!isnan(p->v[pl->slope_col[k]]) && !isnan(p->v[pl->slope_gate[k]]) &&
                    (!pl->slope_later[k] || p->t >= half)) {
                    /* analyze_acc_add's sums, those a slope reads */
                    double t = p->t - t0, v = p->v[pl->slope_col[k]];
                    struct analyze_acc *a = &acc[k];
                    a->n++;
                    a->st += t, a->sv += v, a->stt += t * t, a->stv += t * v;
                }
            }
        }
    }
    for (unsigned k = nw; k < pl->npairs; k++)
        for (unsigned i = g->n; i-- > 0 && !n[k];) {
            const struct analyze_point *p = analyze_at(g, i);
            if (!isnan(p->v[pl->col[k]]) && !isnan(p->v[pl->gate[k]]))
                last[k] = p->v[pl->col[k]], n[k] = 1;
        }
    /* the histograms' percentiles, each histogram walked once for all its rows; their means from the running
     * sums (whole numbers: the sum a walk would add up, exactly) */
    double pct[2][ANALYZE_PLAN_ROWS];
    for (int h = 0; h < 2; h++)
        analyze_hist_percentiles(h ? g->hist_max : g->hist, h ? g->hist_max_bits : g->hist_bits,
                                 h ? g->n_max : g->n_util, pl->hist_pct[h], pl->nhist[h], pct[h]);
    for (unsigned r = 0; r < pl->nrows; r++) {
        const struct analyze_figure *f = pl->row[r].fig;
        int k = pl->row[r].slot;
        double v = NAN;
        switch (f->how) {
        case AH_CUSTOM: continue;
        case AH_HIST_MEAN: {
            unsigned long long hn = f->col == AC_UTIL_MAX ? g->n_max : g->n_util;
            v = hn ? (double)(f->col == AC_UTIL_MAX ? g->hist_max_sum : g->hist_sum) / (double)hn : NAN;
            break;
        }
        case AH_HIST_PCT: v = pct[f->col == AC_UTIL_MAX][k]; break;
        case AH_REASONS: v = sl->rknown ? 100.0 * (double)sl->rrow[k] / (double)sl->rknown : 0; break;
        case AH_SLOPE:
        case AH_SLOPE_LATER: v = analyze_acc_value(&acc[k], f->how); break;
        default:
            v = f->how == AH_COUNT ? n[k] : !n[k] ? ((f->flags & AF_NONE_ZERO) ? 0 : NAN)
                : f->how == AH_MEAN ? sum[k] / n[k] : f->how == AH_MIN ? min[k] : f->how == AH_MAX ? max[k]
                : last[k];
            break;
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
