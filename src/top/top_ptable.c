/*
 * top_ptable.c: `gpumon top`'s process table. One table of columns
 * (title, width, alignment, comparison, cell) drives the heads, the cells,
 * sorting by any column and the choice of columns that fit. Rows are one
 * per process and GPU; a filter (case-insensitive, on pid, user,
 * container, command and NVML's name) and "the selected GPU only" pick
 * them; flat mode sorts them, tree mode nests each process under its
 * nearest shown ancestor, where an ancestor that is not itself on a GPU is
 * shown only when two or more branches with GPU processes meet at it (the
 * launcher of a multi-GPU job, not the login shell above it). Unknown
 * values sort last whichever the direction.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "top.h"

/* a against b, unknown (NAN) last whichever the direction. */
static int top_pt_num(double a, double b, bool desc)
{
    bool ka = isfinite(a), kb = isfinite(b);
    if (ka != kb)
        return ka ? -1 : 1;
    int c = !ka ? 0 : a < b ? -1 : a > b;
    return desc ? -c : c;
}

static int top_pt_str(const char *a, const char *b, bool desc)
{
    int c = strcmp(a, b);
    return desc ? -c : c;
}

static double top_pt_known(long long v)
{
    return v >= 0 ? (double)v : NAN;
}

static int cmp_pid(const struct top_row *a, const struct top_row *b, bool d) { return top_pt_num(a->p.pid, b->p.pid, d); }
static int cmp_gpu(const struct top_row *a, const struct top_row *b, bool d) { return top_pt_num(a->gpu, b->gpu, d); }
static int cmp_user(const struct top_row *a, const struct top_row *b, bool d) { return top_pt_str(a->p.user, b->p.user, d); }
static int cmp_cmd(const struct top_row *a, const struct top_row *b, bool d) { return top_pt_str(a->p.cmd, b->p.cmd, d); }
static int cmp_cpu(const struct top_row *a, const struct top_row *b, bool d) { return top_pt_num(a->p.cpu, b->p.cpu, d); }
static int cmp_sm(const struct top_row *a, const struct top_row *b, bool d) { return top_pt_num(top_pt_known(a->sm), top_pt_known(b->sm), d); }

static int cmp_container(const struct top_row *a, const struct top_row *b, bool d)
{
    int c = top_pt_str(a->p.ct.pod, b->p.ct.pod, d);
    return c ? c : top_pt_str(a->p.ct.id, b->p.ct.id, d);
}

static int cmp_mem(const struct top_row *a, const struct top_row *b, bool d)
{
    return top_pt_num(top_pt_known(a->gpu_mib), top_pt_known(b->gpu_mib), d);
}

static int cmp_rss(const struct top_row *a, const struct top_row *b, bool d)
{
    return top_pt_num(top_pt_known(a->p.rss_kib), top_pt_known(b->p.rss_kib), d);
}

/* A size in MiB as a column shows it: 512M, 40.0G, 1.2T. */
static void top_pt_size(double mib, char *out, size_t len)
{
    if (!(mib >= 0))
        snprintf(out, len, "-");
    else if (mib < 1024)
        snprintf(out, len, "%.0fM", mib);
    else if (mib < 1024.0 * 1024)
        snprintf(out, len, "%.1fG", mib / 1024);
    else
        snprintf(out, len, "%.1fT", mib / 1024 / 1024);
}

static void cell_pid(const struct top_row *r, char *o, size_t n) { snprintf(o, n, "%d", r->p.pid); }
static void cell_user(const struct top_row *r, char *o, size_t n) { top_copy(o, n, r->p.user); }
static void cell_cmd(const struct top_row *r, char *o, size_t n) { top_copy(o, n, r->p.cmd); }
static void cell_mem(const struct top_row *r, char *o, size_t n) { top_pt_size(r->gpu_mib >= 0 ? (double)r->gpu_mib : -1, o, n); }
static void cell_rss(const struct top_row *r, char *o, size_t n) { top_pt_size(r->p.rss_kib >= 0 ? r->p.rss_kib / 1024.0 : -1, o, n); }
static void cell_container(const struct top_row *r, char *o, size_t n) { top_proc_container_short(&r->p.ct, o, n); }

static void cell_gpu(const struct top_row *r, char *o, size_t n)
{
    if (r->gpu < 0)
        snprintf(o, n, "-");
    else
        snprintf(o, n, "%d", r->gpu);
}

static void cell_sm(const struct top_row *r, char *o, size_t n)
{
    if (r->sm < 0)
        snprintf(o, n, "-");
    else
        snprintf(o, n, "%d%%", r->sm);
}

static void cell_cpu(const struct top_row *r, char *o, size_t n)
{
    if (!isfinite(r->p.cpu))
        snprintf(o, n, "-");
    else
        snprintf(o, n, r->p.cpu < 10 ? "%.1f" : "%.0f", r->p.cpu);
}

enum { TOP_COL_PID, TOP_COL_USER, TOP_COL_GPU, TOP_COL_CONTAINER, TOP_COL_MEM, TOP_COL_SM, TOP_COL_CPU, TOP_COL_RSS,
       TOP_COL_CMD };

const struct top_col top_ptable_cols[] = {
    [TOP_COL_PID] = {"PID", 7, true, cmp_pid, false, cell_pid},
    [TOP_COL_USER] = {"USER", 9, false, cmp_user, false, cell_user},
    [TOP_COL_GPU] = {"GPU", 3, true, cmp_gpu, false, cell_gpu},
    [TOP_COL_CONTAINER] = {"CONTAINER", 12, false, cmp_container, false, cell_container},
    [TOP_COL_MEM] = {"GPU MEM", 7, true, cmp_mem, true, cell_mem},
    [TOP_COL_SM] = {"SM%", 4, true, cmp_sm, true, cell_sm},
    [TOP_COL_CPU] = {"CPU%", 5, true, cmp_cpu, true, cell_cpu},
    [TOP_COL_RSS] = {"RSS", 6, true, cmp_rss, true, cell_rss},
    [TOP_COL_CMD] = {"COMMAND", 0, false, cmp_cmd, false, cell_cmd},
};
const int top_ptable_ncols = (int)(sizeof top_ptable_cols / sizeof top_ptable_cols[0]);
const int top_ptable_default_sort = TOP_COL_MEM;

bool top_ptable_col_shown(const struct top_ui *ui, int i)
{
    if (i == TOP_COL_SM)
        return ui->view.putil_any;
    if (i == TOP_COL_CONTAINER) {
        for (unsigned r = 0; r < ui->view.nrows; r++)
            if (ui->view.rows[r].p.ct.id[0] || ui->view.rows[r].p.ct.pod[0])
                return true;
        return false;
    }
    return true;
}

/* The columns that fit w columns, the command keeping at least 16 (RSS, then the container, then the
 * user go first). Returns how many, their indices in out. */
static int top_pt_fit(const struct top_ui *ui, int w, int *out)
{
    static const int drop[] = {TOP_COL_RSS, TOP_COL_CONTAINER, TOP_COL_USER, TOP_COL_CPU};
    bool on[32];
    int used = 0;
    for (int i = 0; i < top_ptable_ncols; i++) {
        on[i] = top_ptable_col_shown(ui, i);
        used += on[i] ? top_ptable_cols[i].width + 1 : 0;
    }
    for (size_t d = 0; d < sizeof drop / sizeof drop[0] && w - used < 16; d++)
        if (on[drop[d]])
            on[drop[d]] = false, used -= top_ptable_cols[drop[d]].width + 1;
    int n = 0;
    for (int i = 0; i < top_ptable_ncols; i++)
        if (on[i])
            out[n++] = i;
    return n;
}

static bool top_pt_has(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return true;
    return n == 0;
}

static bool top_pt_match(const struct top_row *r, const char *f)
{
    char pid[16];
    if (!*f)
        return true;
    snprintf(pid, sizeof pid, "%d", r->p.pid);
    return top_pt_has(pid, f) || top_pt_has(r->p.user, f) || top_pt_has(r->p.cmd, f) ||
           top_pt_has(r->nvml_name, f) || top_pt_has(r->p.ct.id, f) || top_pt_has(r->p.ct.pod, f) ||
           top_pt_has(r->p.ct.runtime, f);
}

/* Rows ra and rb in the order the UI asks; ties by GPU, then pid. */
static int top_pt_cmp_rows(const struct top_ui *ui, unsigned ra, unsigned rb)
{
    const struct top_row *a = &ui->view.rows[ra], *b = &ui->view.rows[rb];
    int c = top_ptable_cols[ui->sort_col].cmp(a, b, ui->sort_desc);
    if (!c)
        c = a->gpu != b->gpu ? (a->gpu < b->gpu ? -1 : 1) : (a->p.pid > b->p.pid) - (a->p.pid < b->p.pid);
    return c;
}

static int top_pt_order(const void *x, const void *y, void *ctx)
{
    return top_pt_cmp_rows(ctx, ((const struct top_shown *)x)->row, ((const struct top_shown *)y)->row);
}

/* ---- tree mode ---- */

struct top_pt_node {
    int pid, parent;        /* parent: node index, -1 none */
    int first;              /* its first row */
    bool gpu, counted, shown;
    unsigned branches;      /* children whose subtree holds a GPU process */
};

/* A node to be ordered among its siblings: its first row, and which node it is. */
struct top_pt_sib {
    unsigned row;
    int node;
};

static int top_pt_sib_order(const void *x, const void *y, void *ctx)
{
    return top_pt_cmp_rows(ctx, ((const struct top_pt_sib *)x)->row, ((const struct top_pt_sib *)y)->row);
}

static int top_pt_find(const struct top_pt_node *nodes, int n, int pid)
{
    for (int i = 0; i < n; i++)
        if (nodes[i].pid == pid)
            return i;
    return -1;
}

struct top_pt_tree {
    struct top_ui *ui;
    struct top_pt_node *nodes;
    int n;
    int *disp;              /* the nearest shown ancestor of each node, -1 none */
    const struct top_shown *cand;
    unsigned ncand;
};

static void top_pt_emit(struct top_pt_tree *t, int node, unsigned depth)
{
    struct top_ui *ui = t->ui;
    if (t->nodes[node].gpu) {
        for (unsigned i = 0; i < t->ncand && ui->nshown < TOP_MAX_ROWS; i++)
            if (ui->view.rows[t->cand[i].row].p.pid == t->nodes[node].pid)
                ui->shown[ui->nshown++] = (struct top_shown){t->cand[i].row, depth};
    } else if (ui->nshown < TOP_MAX_ROWS) {
        ui->shown[ui->nshown++] = (struct top_shown){(unsigned)t->nodes[node].first, depth};
    }
    struct top_pt_sib kids[TOP_MAX_ROWS];
    unsigned nk = 0;
    for (int k = 0; k < t->n; k++)
        if (t->nodes[k].shown && t->disp[k] == node)
            kids[nk++] = (struct top_pt_sib){(unsigned)t->nodes[k].first, k};
    qsort_r(kids, nk, sizeof *kids, top_pt_sib_order, ui);
    for (unsigned k = 0; k < nk && depth < 64; k++)
        top_pt_emit(t, kids[k].node, depth + 1);
}

static void top_pt_tree(struct top_ui *ui, const struct top_shown *cand, unsigned ncand)
{
    static struct top_pt_node nodes[TOP_MAX_ROWS];
    static int disp[TOP_MAX_ROWS];
    int n = 0;
    for (unsigned i = 0; i < ncand; i++) {   /* the GPU processes (cand is sorted: a pid's first row first) */
        const struct top_row *r = &ui->view.rows[cand[i].row];
        if (top_pt_find(nodes, n, r->p.pid) < 0)
            nodes[n++] = (struct top_pt_node){r->p.pid, -1, (int)cand[i].row, true, false, false, 0};
    }
    for (unsigned i = 0; i < ui->view.nrows; i++) {   /* their ancestors */
        const struct top_row *r = &ui->view.rows[i];
        if (r->gpu < 0 && top_pt_find(nodes, n, r->p.pid) < 0)
            nodes[n++] = (struct top_pt_node){r->p.pid, -1, (int)i, false, false, false, 0};
    }
    for (int i = 0; i < n; i++) {
        const struct top_row *r = &ui->view.rows[nodes[i].first];
        nodes[i].parent = r->on_host && r->p.ppid != r->p.pid ? top_pt_find(nodes, n, r->p.ppid) : -1;
    }
    for (int i = 0; i < n; i++) {   /* count the branches with GPU processes at each ancestor */
        if (!nodes[i].gpu)
            continue;
        for (int child = i, p = nodes[i].parent, hops = 0; p >= 0 && !nodes[child].counted && hops < 64; hops++) {
            nodes[child].counted = true;
            nodes[p].branches++;
            child = p;
            p = nodes[p].parent;
        }
    }
    for (int i = 0; i < n; i++)
        nodes[i].shown = nodes[i].gpu || nodes[i].branches >= 2;
    for (int i = 0; i < n; i++) {
        int p = nodes[i].parent;
        for (int hops = 0; p >= 0 && !nodes[p].shown && hops < 64; hops++)
            p = nodes[p].parent;
        disp[i] = p >= 0 && nodes[p].shown ? p : -1;
    }
    struct top_pt_tree t = {ui, nodes, n, disp, cand, ncand};
    struct top_pt_sib roots[TOP_MAX_ROWS];
    unsigned nr = 0;
    for (int i = 0; i < n; i++)
        if (nodes[i].shown && disp[i] < 0)
            roots[nr++] = (struct top_pt_sib){(unsigned)nodes[i].first, i};
    qsort_r(roots, nr, sizeof *roots, top_pt_sib_order, ui);
    for (unsigned i = 0; i < nr; i++)
        top_pt_emit(&t, roots[i].node, 0);
}

void top_ptable_build(struct top_ui *ui)
{
    struct top_shown cand[TOP_MAX_ROWS];
    unsigned ncand = 0;
    int sel_index = ui->sel_gpu < ui->view.ngpus ? (int)ui->view.gpus[ui->sel_gpu].rec.index : -1;
    for (unsigned i = 0; i < ui->view.nrows; i++) {
        const struct top_row *r = &ui->view.rows[i];
        if (r->gpu >= 0 && (!ui->gpu_only || r->gpu == sel_index) && top_pt_match(r, ui->filter))
            cand[ncand++] = (struct top_shown){i, 0};
    }
    qsort_r(cand, ncand, sizeof *cand, top_pt_order, ui);
    ui->nshown = 0;
    if (ui->tree) {
        top_pt_tree(ui, cand, ncand);
    } else {
        memcpy(ui->shown, cand, ncand * sizeof *cand);
        ui->nshown = ncand;
    }
    /* keep the selected process selected, wherever it moved */
    for (unsigned i = 0; ui->sel_pid && i < ui->nshown; i++) {
        const struct top_row *r = &ui->view.rows[ui->shown[i].row];
        if (r->p.pid == ui->sel_pid && r->gpu == ui->sel_pid_gpu) {
            ui->sel_row = i;
            return;
        }
    }
    if (ui->sel_row >= ui->nshown)
        ui->sel_row = ui->nshown ? ui->nshown - 1 : 0;
    if (ui->nshown) {
        const struct top_row *r = &ui->view.rows[ui->shown[ui->sel_row].row];
        ui->sel_pid = r->p.pid;
        ui->sel_pid_gpu = r->gpu;
    } else {
        ui->sel_pid = 0;
    }
}

void top_ptable_draw(struct top_ui *ui, int y0, int h)
{
    int cols[32], n = top_pt_fit(ui, COLS, cols), x = 0;
    top_fill(y0, 0, COLS, TOP_ST_HEAD);
    for (int k = 0; k < n; k++) {
        const struct top_col *c = &top_ptable_cols[cols[k]];
        int w = c->width ? c->width : COLS - x;
        char title[32];
        const char *arrow = cols[k] != ui->sort_col ? "" : top_term_utf8() ? (ui->sort_desc ? "\u25bc" : "\u25b2")
                                                                          : (ui->sort_desc ? "v" : "^");
        snprintf(title, sizeof title, "%s%s", c->title, arrow);
        if (c->right)
            top_put_right(y0, x, w, title, TOP_ST_HEAD);
        else
            top_put(y0, x, w, title, TOP_ST_HEAD);
        x += w + 1;
    }
    int rows = h - 1;
    if (ui->nshown == 0) {
        top_put(y0 + 1, 1, COLS - 2, ui->filter[0] || ui->gpu_only ? "no process matches (Esc clears the filter, "
                "g shows every GPU's)" : "no processes on the GPUs", TOP_ST_DIM);
        return;
    }
    if (ui->sel_row < ui->proc_top)
        ui->proc_top = ui->sel_row;
    if (ui->sel_row >= ui->proc_top + (unsigned)rows)
        ui->proc_top = ui->sel_row - (unsigned)rows + 1;
    if (ui->proc_top + (unsigned)rows > ui->nshown)
        ui->proc_top = ui->nshown > (unsigned)rows ? ui->nshown - (unsigned)rows : 0;
    for (int i = 0; i < rows && ui->proc_top + (unsigned)i < ui->nshown; i++) {
        unsigned at = ui->proc_top + (unsigned)i;
        const struct top_row *r = &ui->view.rows[ui->shown[at].row];
        bool sel = at == ui->sel_row;
        enum top_style st = sel ? (ui->focus == TOP_FOCUS_PROCS ? TOP_ST_SELECT : TOP_ST_MARK)
                                : r->gpu < 0 ? TOP_ST_DIM : TOP_ST_NORMAL;
        int y = y0 + 1 + i;
        x = 0;
        if (sel)
            top_fill(y, 0, COLS, st);
        for (int k = 0; k < n; k++) {
            const struct top_col *c = &top_ptable_cols[cols[k]];
            int w = c->width ? c->width : COLS - x;
            char cell[256];
            if (!c->width && ui->shown[at].depth) {
                size_t ind = 0;
                for (unsigned d = 1; d < ui->shown[at].depth && ind + 3 < sizeof cell; d++)
                    cell[ind++] = ' ', cell[ind++] = ' ';
                snprintf(cell + ind, sizeof cell - ind, "%s", top_term_utf8() ? "\u2514\u2500 " : "`- ");
                size_t k2 = strlen(cell);
                c->cell(r, cell + k2, sizeof cell - k2);
            } else {
                c->cell(r, cell, sizeof cell);
            }
            if (c->right)
                top_put_right(y, x, w, cell, st);
            else
                top_put(y, x, w, cell, st);
            x += w + 1;
        }
    }
}
