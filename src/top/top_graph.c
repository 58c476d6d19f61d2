/*
 * top_graph.c: `gpumon top`'s history graphs, drawn from the collector's
 * rings (top.h): a sparkline (one row) and an area graph (several rows),
 * both with the newest point on the right and 0-100% upwards. Each column
 * is the mean of `per` points: one while the history fits the width, then
 * as many as make the whole ring fit, so the graph fills from the right
 * and then compresses. Each cell is a level in eighths of a cell, drawn by
 * top_term.c as a Unicode block element when the locale is UTF-8 and an
 * ASCII level otherwise; a column without data is blank. No state.
 */
#include <math.h>
#include "top.h"

unsigned top_graph_per(const struct top_hist *h, int w)
{
    unsigned avail = h->n < TOP_HIST ? h->n : TOP_HIST;
    return w <= 0 || avail <= (unsigned)w ? 1 : (avail + (unsigned)w - 1) / (unsigned)w;
}

bool top_graph_known(const struct top_hist *h, enum top_series series)
{
    unsigned avail = h->n < TOP_HIST ? h->n : TOP_HIST;
    for (unsigned i = 0; i < avail; i++)
        if (isfinite(h->v[series][i]))
            return true;
    return false;
}

/* The mean of the col-th group of per points back from the newest: NAN unknown or before the first point. */
static double top_graph_column(const struct top_hist *h, enum top_series series, unsigned per, unsigned col)
{
    unsigned avail = h->n < TOP_HIST ? h->n : TOP_HIST;
    double sum = 0;
    unsigned k = 0;
    for (unsigned i = col * per; i < (col + 1) * per && i < avail; i++) {
        float v = h->v[series][(h->n - 1 - i) % TOP_HIST];
        if (isfinite(v))
            sum += v, k++;
    }
    return k ? sum / k : NAN;
}

/* Eighths of a cell of value v (%) over a graph rows tall: -1 unknown, 0 none, at least 1 for a little. */
static int top_graph_total(double v, int rows)
{
    if (!isfinite(v))
        return -1;
    v = v < 0 ? 0 : v > 100 ? 100 : v;
    int total = (int)top_round_away(v / 100.0 * rows * 8);
    return total <= 0 && v > 0 ? 1 : total;   /* a little is not nothing */
}

/* Eighths of a cell (0-8) on row r (from the bottom) of a column of total eighths. */
static int top_graph_eighths(int total, int r)
{
    int e = total - r * 8;
    return total < 0 || e < 0 ? 0 : e > 8 ? 8 : e;
}

/* The column means of the newest w groups of per points, oldest first. */
static void top_graph_columns(double *col, int w, const struct top_hist *h, enum top_series series, unsigned per)
{
    for (int c = 0; c < w; c++)
        col[c] = top_graph_column(h, series, per, (unsigned)(w - 1 - c));
}

void top_graph_spark(int y, int x, int w, const struct top_hist *h, enum top_series series, unsigned per,
                     enum top_style st)
{
    double col[512];
    unsigned char lv[512];
    w = w > 512 ? 512 : w;
    top_graph_columns(col, w, h, series, per);
    for (int c = 0; c < w; c++)
        lv[c] = (unsigned char)top_graph_eighths(top_graph_total(col[c], 1), 0);
    top_put_levels(y, x, lv, w, st);
}

void top_graph_area(int y, int x, int w, int rows, const struct top_hist *h, enum top_series series, unsigned per,
                    enum top_style st)
{
    double col[512];
    int total[512];
    unsigned char lv[512];
    w = w > 512 ? 512 : w;
    top_graph_columns(col, w, h, series, per);
    int most = 0;
    for (int c = 0; c < w; c++) {
        total[c] = top_graph_total(col[c], rows);
        most = total[c] > most ? total[c] : most;
    }
    for (int r = 0; r < rows; r++) {
        if (most <= (rows - 1 - r) * 8)
            continue;   /* nothing reaches this row: its cells would all be blank, which are not drawn */
        for (int c = 0; c < w; c++)
            lv[c] = (unsigned char)top_graph_eighths(total[c], rows - 1 - r);
        top_put_levels(y + r, x, lv, w, st);
    }
}
