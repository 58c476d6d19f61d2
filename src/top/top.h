/*
 * top.h: the parts of `gpumon top` and what they share.
 *
 * Two threads. The collector (top_collect.c) owns the sampler, the rules
 * (a struct diag fed every record: the verdicts of `gpumon run`), the
 * history rings, the per-process SM shares (read by the sampler, as every
 * NVML value: no file of the module reads NVML) and the /proc memo
 * (top_proc.c); after each sample it publishes a whole snapshot by
 * swapping buffers under a mutex held for the swap, and wakes the UI
 * through an eventfd. The UI thread (top_ui.c: keys, signals, modes;
 * top_draw.c, top_detail.c, top_ptable.c, top_graph.c: screens;
 * top_term.c: the terminal) only ever takes published snapshots (its
 * buffer swapped for the collector's), so a hung NVML call freezes the
 * data, never the screen, and the header shows the data's age.
 */
#ifndef GPUMON_TOP_H
#define GPUMON_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include "analyze.h"
#include "diag.h"
#include "record.h"
#include "sampler.h"
#include "top_proc.h"

/* ---- snapshots: what the collector publishes ---- */

#define TOP_HIST 512             /* history points per series: one per max(interval, 1 s) */
enum top_series { TOP_S_UTIL, TOP_S_SM, TOP_S_MEM, TOP_S_POWER, TOP_S_COUNT };   /* all in % */
/* A GPU's history. Not part of a snapshot: the UI keeps the rings, brought up to date when it takes a
 * snapshot with the points the collector added since (a point a second), which the collector keeps in
 * short rings of its own (TOP_RECENT points: a UI that falls further behind, its terminal stalled
 * for over a minute, shows the points it missed as unknown). */
struct top_hist {
    float v[TOP_S_COUNT][TOP_HIST];   /* NAN where unknown */
    unsigned n;                       /* points pushed so far; the newest is at (n - 1) % TOP_HIST */
};
#define TOP_RECENT 64
struct top_recent {
    float v[TOP_S_COUNT][TOP_RECENT];
    unsigned n;                       /* points pushed so far, as top_hist's n */
};
/* Brings the UI's ring to up to the collector's: the points it still has, and those it no longer has
 * as unknown (NAN). */
void top_hist_catch_up(struct top_hist *to, const struct top_recent *from);

#define TOP_MAX_VERDICTS 6
struct top_verdict {
    int rule;                         /* index into rule_table */
    double held_s;                    /* how long it has held */
    unsigned evidence;                /* offset of its evidence in the snapshot's text */
};

/* What the screens show of a GPU's record: its values and XIDs (its process list becomes the snapshot's rows). */
struct top_gpu_rec {
    unsigned int index;
    struct value v[RECORD_MAX_METRICS];   /* indexed by enum metric_id */
    unsigned int nxids;
    struct record_xid xids[RECORD_MAX_XIDS];
};

struct top_gpu {
    struct top_gpu_rec rec;           /* the latest record's GPU */
    const struct top_hist *hist;      /* in the UI's copy of the rings (set when the UI takes the snapshot) */
    bool have_stats;                  /* the rules judged it at least once */
    struct analyze_gpu_stats stats;   /* the window figures of the latest judgement */
    unsigned nverdicts;
    struct top_verdict verdicts[TOP_MAX_VERDICTS];   /* active now, most severe first */
    int putil_rc;                     /* per-process SM shares: 0 known, else the NVML code why not */
    int cause;                        /* where its recent time went (ledger.h's enum ledger_cause); -1 unknown */
};

#define TOP_MAX_ROWS 512
struct top_row {
    struct top_proc_info p;
    bool on_host;                     /* p was read from /proc (else another PID namespace, or ended) */
    int gpu;                          /* the GPU's index; -1: an ancestor shown in tree mode only */
    long long gpu_mib;                /* -1 unknown */
    int sm;                           /* share of the GPU's SMs, %; -1 unknown */
    char nvml_name[64];               /* the name NVML gave */
};

struct top_snap {
    uint64_t gen;                     /* 0: nothing yet */
    uint64_t mono_ns;                 /* when its sample began (util_mono_ns) */
    struct timespec time;             /* the record's wall-clock time */
    double hist_step_s;               /* seconds between history points */
    char hostname[64];
    struct value host[RECORD_MAX_METRICS];
    unsigned ngpus, gcap;
    struct top_gpu *gpus;             /* owned */
    bool putil_any;                   /* some GPU answers per-process SM shares */
    unsigned nrows;
    struct top_row *rows;             /* TOP_MAX_ROWS, owned */
    char *text;                       /* the verdicts' evidence, each NUL-terminated (owned) */
    size_t ntext, text_cap;
};

void top_snap_init(struct top_snap *s);
void top_snap_free(struct top_snap *s);

/* Rounding of a finite x >= 0 without libm, whose pages each function maps (fault-around: 64 kB a
 * call site's neighbourhood): to the nearest integer with halves away from zero, as lround. */
static inline long top_round_away(double x)
{
    long t = (long)x;   /* x - t is exact: the fraction of a double */
    return x - (double)t >= 0.5 ? t + 1 : t;
}

/* ---- the collector (top_collect.c) ---- */

struct top_collector;
/* Starts sampling s every interval_ms on a thread of its own, the rules
 * configured by cfg; writes 1 to notify_fd (an eventfd) after each
 * snapshot. Returns NULL when the thread cannot start. */
struct top_collector *top_collect_start(struct sampler *s, const struct rule_config *cfg, double interval_ms,
                                        int notify_fd);
void top_collect_set_interval(struct top_collector *c, double interval_ms);
/* The wall time between samples, ms: the interval, over the simulator's speed when it fast-plays. */
double top_collect_interval(const struct top_collector *c);
/* Tree mode wants the GPU processes' ancestors in the rows. */
void top_collect_set_tree(struct top_collector *c, bool tree);
/* Takes the latest snapshot when it is newer than dst's: dst's buffers and the collector's are
 * swapped, nothing is copied; the history rings *hist (*nhist of them, the caller's, grown here)
 * get the points added since, and dst's GPUs point into them. Returns whether it did. */
bool top_collect_take(struct top_collector *c, struct top_snap *dst, struct top_hist **hist, unsigned *nhist);
/* How long the sample in progress has taken, ns; 0 while none is. */
uint64_t top_collect_busy_ns(const struct top_collector *c);
/* Stops and frees the collector. Returns false when it is stuck in an
 * NVML call past grace_s: then it is left running and nothing is freed. */
bool top_collect_stop(struct top_collector *c, double grace_s);

/* ---- the terminal (top_term.c) ---- */

enum top_style {
    TOP_ST_NORMAL, TOP_ST_HEADER, TOP_ST_HEAD, TOP_ST_SELECT, TOP_ST_MARK, TOP_ST_DIM, TOP_ST_OK, TOP_ST_INFO,
    TOP_ST_WARN, TOP_ST_CRIT, TOP_ST_UTIL, TOP_ST_SM, TOP_ST_MEM, TOP_ST_POWER, TOP_ST_COUNT
};
/* Why this terminal cannot show top (not a terminal, TERM=dumb or unset),
 * in why; 0 when it can. */
int top_term_check(char *why, size_t len);
/* Takes the terminal: curses, colours unless NO_COLOR, UTF-8 graphs when
 * the locale's is. Standard error goes to a pipe until top_term_close
 * (messages show on the status line, and are written out at the end).
 * Returns 0, or -1 with why (the terminal lacks cursor addressing). */
int top_term_open(char *why, size_t len);
/* Gives the terminal back as it was, writes the held messages to standard
 * error. Safe to call twice; also run at exit() while the terminal is taken. */
void top_term_close(void);
bool top_term_utf8(void);
/* The descriptor that becomes readable on a key. */
int top_term_input_fd(void);
/* The descriptor that becomes readable on a message to standard error; -1 when it is not held. */
int top_term_message_fd(void);
/* Drains standard error written since the previous call; the latest
 * complete line goes to last (unchanged when none). Returns true when
 * there was one. */
bool top_term_messages(char *last, size_t len);
/* Whether curses' Ctrl-Z handler ran (a suspend and a resume) since the last call: then repaint. */
bool top_term_resumed(void);
/* After a suspend (Ctrl-Z) or a resize: the terminal's size, and the next frame drawn whole. */
void top_term_repaint(void);
/* A frame: top_frame_begin, then the top_put* and top_fill calls, then top_frame_end sends the lines
 * whose calls differ from the previous frame's (top_out.c; through curses, each line cleared first,
 * where that cannot be used, and for the first frame and the one after a resize or a suspend, which
 * curses draws whole). Lines not drawn are blank. */
void top_frame_begin(void);
void top_frame_end(void);
/* Draws s at (y, x), at most w columns (UTF-8 aware; control bytes as '?'), in style st. Returns columns used. */
int top_put(int y, int x, int w, const char *s, enum top_style st);
/* Draws w graph cells of levels lv (eighths of a cell, 0-8) at (y, x): blocks
 * in UTF-8, ASCII levels otherwise; blank cells are left as they are. */
void top_put_levels(int y, int x, const unsigned char *lv, int w, enum top_style st);
/* The same, right-aligned in w columns. */
void top_put_right(int y, int x, int w, const char *s, enum top_style st);
/* Fills w columns at (y, x) with blanks in style st. */
void top_fill(int y, int x, int w, enum top_style st);

/* A frame's operations on one line, as top_term.c records them: a struct top_op, then its n bytes
 * (text, levels; a fill has none). */
enum { TOP_OP_TEXT = 1, TOP_OP_UTF8, TOP_OP_LEVELS, TOP_OP_FILL };
struct top_op {
    unsigned char op, st;
    short x;
    unsigned short n;                 /* bytes that follow (text, levels) or columns (a fill) */
};

/* ---- frames written without curses' update (top_out.c) ---- */

/* Whether this terminal can take them (then true, with the styles' strings made from fg, bg (-1: the
 * default) and attr, colours when color); call with curses started, the cursor hidden. */
bool top_out_open(const short *fg, const short *bg, const unsigned long *attr, bool color);
void top_out_close(void);
bool top_out_on(void);
/* The screen's size: what it shows is not known until the next frame curses draws whole. */
void top_out_size(int nlines, int ncols);
/* Line y, which shows the operations was (wn bytes: the previous frame's, drawn by curses or sent here),
 * is now ops (n bytes): what differs is sent. */
void top_out_line(int y, const unsigned char *was, size_t wn, const unsigned char *ops, size_t n);
/* Curses has drawn a frame: the cursor is home and the attributes normal. */
void top_out_synced(void);
/* Writes the frame's output, leaving the cursor home and the attributes normal. */
void top_out_flush(void);

/* ---- graphs (top_graph.c) ---- */

/* One row of block characters (UTF-8) or ASCII levels: the newest w
 * columns of series, each column the mean of per points. */
void top_graph_spark(int y, int x, int w, const struct top_hist *h, enum top_series series, unsigned per,
                     enum top_style st);
/* A graph `rows` tall of one series, 0-100% on the vertical axis, each
 * column the mean of per points, the newest on the right. */
void top_graph_area(int y, int x, int w, int rows, const struct top_hist *h, enum top_series series, unsigned per,
                    enum top_style st);
/* Whether the series has any known point. */
bool top_graph_known(const struct top_hist *h, enum top_series series);
/* Points per column so that w columns show all of h's history (1 while it fits). */
unsigned top_graph_per(const struct top_hist *h, int w);

/* ---- the UI (top_ui.c and the screens) ---- */

enum top_screen { TOP_SCREEN_MAIN, TOP_SCREEN_DETAIL, TOP_SCREEN_HELP };
enum top_focus { TOP_FOCUS_GPUS, TOP_FOCUS_PROCS };
enum top_input { TOP_INPUT_NONE, TOP_INPUT_FILTER, TOP_INPUT_CONFIRM };

#define TOP_MIN_COLS 60
#define TOP_MIN_ROWS 12

struct top_shown {
    unsigned row;                     /* index into view.rows */
    unsigned depth;                   /* tree depth */
};

struct top_ui {
    struct top_snap view;             /* what is shown (kept while paused) */
    struct top_hist *hist;            /* the history of view's GPUs, by position */
    unsigned nhist;
    double interval_ms;
    uint64_t now_ns;                  /* util_mono_ns() of this frame */
    uint64_t busy_ns;                 /* the collector's sample in progress, ns */
    bool paused;
    enum top_screen screen;
    enum top_focus focus;
    enum top_input input;
    unsigned sel_gpu, gpu_top;        /* selected GPU (position in view.gpus), first GPU row shown */
    int sel_pid, sel_pid_gpu;         /* selected process row, by identity; 0: none */
    unsigned sel_row, proc_top;       /* its place in shown, first process row shown */
    unsigned detail_top;              /* scroll of the detail and help screens */
    int sort_col;                     /* index into top_ptable_cols */
    bool sort_desc, tree, gpu_only;
    char filter[64], edit[64];
    struct {
        int pid, sig;
        unsigned long long start;
        char what[128];
    } confirm;
    char msg[256];
    uint64_t msg_ns;
    unsigned nshown;
    struct top_shown shown[TOP_MAX_ROWS];
};

/* Runs the UI until q or a signal of sigs; returns the exit status. */
int top_ui_run(struct top_collector *c, int notify_fd, const int *sigs, double interval_ms);

/* The process table's columns (top_ptable.c), one table for heads, cells and sorting. */
struct top_col {
    const char *title;
    int width;                        /* 0: takes what is left (the command) */
    bool right;
    int (*cmp)(const struct top_row *a, const struct top_row *b, bool desc);   /* unknown last either way */
    bool desc;                        /* the direction it first sorts in (numbers: largest first) */
    void (*cell)(const struct top_row *r, char *out, size_t len);
};
extern const struct top_col top_ptable_cols[];
extern const int top_ptable_ncols;
extern const int top_ptable_default_sort;     /* GPU memory, largest first */
/* Whether column i is shown for this view (SM% only where some GPU answers it; CONTAINER when a process has one). */
bool top_ptable_col_shown(const struct top_ui *ui, int i);
/* Orders, filters and nests view.rows into ui->shown as the UI asks. */
void top_ptable_build(struct top_ui *ui);
/* Draws the table in rows y0..y0+h-1; h >= 2 (heads, then rows). */
void top_ptable_draw(struct top_ui *ui, int y0, int h);

void top_draw_main(struct top_ui *ui);
void top_draw_detail(struct top_ui *ui);
void top_draw_help(struct top_ui *ui);
/* The status line: the prompt, a recent message or the key hints. */
void top_draw_status(struct top_ui *ui);
/* s into o (n bytes), cut to fit: snprintf's "%s" without its cost. */
void top_copy(char *o, size_t n, const char *s);
/* The GPU's name without "NVIDIA " (for narrow columns). */
const char *top_short_name(const struct top_gpu_rec *g);
/* Whether the GPU of these values (a record's v[]) fell off the bus. */
bool top_gpu_lost(const struct value *v);
/* The style of a rule's severity. */
enum top_style top_severity_style(int rule);

#endif
