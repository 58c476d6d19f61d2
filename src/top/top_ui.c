/*
 * top_ui.c: `gpumon top`'s UI thread. One loop: take the signals that are
 * pending (sig.h: SIGWINCH resizes; SIGINT, SIGTERM and SIGHUP end it),
 * take a newer snapshot from the collector unless paused, redraw when
 * something changed or a figure on screen ticks (the data's age, a
 * message), then sleep in poll until a key, a snapshot (the collector's
 * eventfd), a signal (a signalfd over the blocked set says one is
 * pending), a message on standard error or the clock's next second; each
 * source is read only when poll says it is ready (one wake and no empty
 * reads a frame). It never calls NVML, so a hung
 * call freezes the data, never the screen. Keys are one switch per input
 * mode (normal, filter text, a y/n question). Signalling a process checks
 * first: it is visible here, it belongs to this user unless gpumon runs as
 * root, and after the question it is still the same process (pid and
 * start time), so a pid reused meanwhile is not hit; a process that ended
 * says so (ESRCH).
 */
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "exitcodes.h"
#include "sig.h"
#include "top.h"
#include "util.h"

static const double top_ui_steps[] = {100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000};
#define TOP_UI_NSTEPS (sizeof top_ui_steps / sizeof top_ui_steps[0])

static void top_ui_msg(struct top_ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void top_ui_msg(struct top_ui *ui, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ui->msg, sizeof ui->msg, fmt, ap);
    va_end(ap);
    ui->msg_ns = util_mono_ns();
}

static const struct top_row *top_ui_selected(const struct top_ui *ui)
{
    return ui->nshown && ui->sel_row < ui->nshown ? &ui->view.rows[ui->shown[ui->sel_row].row] : NULL;
}

static void top_ui_signal_ask(struct top_ui *ui, int sig)
{
    const struct top_row *r = top_ui_selected(ui);
    if (!r) {
        top_ui_msg(ui, "no process selected (Tab moves to the process list)");
        return;
    }
    if (!r->on_host) {
        top_ui_msg(ui, "process %d is not visible here (another PID namespace, or it ended): it cannot be "
                   "signalled from here", r->p.pid);
        return;
    }
    uid_t me = geteuid();
    if (me != 0 && r->p.uid != (unsigned)me) {
        top_ui_msg(ui, "process %d belongs to %s: only root may signal another user's processes", r->p.pid,
                   r->p.user);
        return;
    }
    ui->confirm.pid = r->p.pid;
    ui->confirm.sig = sig;
    ui->confirm.start = r->p.start;
    snprintf(ui->confirm.what, sizeof ui->confirm.what, "%d (%.100s)", r->p.pid, r->p.cmd);
    ui->input = TOP_INPUT_CONFIRM;
}

static void top_ui_signal_send(struct top_ui *ui, struct top_proc_cache *pc)
{
    const char *name = ui->confirm.sig == SIGKILL ? "SIGKILL" : "SIGTERM";
    int pid = ui->confirm.pid;
    ui->input = TOP_INPUT_NONE;
    if (!top_proc_alive(pc, pid, ui->confirm.start)) {
        top_ui_msg(ui, "process %d has already ended: no signal sent", pid);
        return;
    }
    if (kill(pid, ui->confirm.sig) == 0)
        top_ui_msg(ui, "sent %s to process %d", name, pid);
    else if (errno == ESRCH)
        top_ui_msg(ui, "process %d ended before the signal could be sent (ESRCH)", pid);
    else
        top_ui_msg(ui, "could not send %s to process %d: %s", name, pid, strerror(errno));
}

/* Moves the selection (or the scroll of a full screen) by delta rows, or to an end. */
static void top_ui_move(struct top_ui *ui, long delta)
{
    if (ui->screen != TOP_SCREEN_MAIN) {
        long t = (long)ui->detail_top + delta;
        ui->detail_top = t < 0 ? 0 : t > 100000 ? 100000 : (unsigned)t;   /* the screen clamps the end */
        return;
    }
    unsigned n = ui->focus == TOP_FOCUS_GPUS ? ui->view.ngpus : ui->nshown;
    unsigned *at = ui->focus == TOP_FOCUS_GPUS ? &ui->sel_gpu : &ui->sel_row;
    long t = (long)*at + delta;
    *at = n == 0 || t < 0 ? 0 : t >= (long)n ? n - 1 : (unsigned)t;
    const struct top_row *r = ui->focus == TOP_FOCUS_PROCS ? top_ui_selected(ui) : NULL;
    if (r) {
        ui->sel_pid = r->p.pid;
        ui->sel_pid_gpu = r->gpu;
    }
}

static void top_ui_interval(struct top_ui *ui, struct top_collector *c, int dir)
{
    size_t i = 0;
    while (i + 1 < TOP_UI_NSTEPS && top_ui_steps[i] < ui->interval_ms - 1e-9)
        i++;
    if (dir > 0 && top_ui_steps[i] <= ui->interval_ms + 1e-9 && i + 1 < TOP_UI_NSTEPS)
        i++;
    else if (dir < 0 && i > 0)
        i--;
    ui->interval_ms = top_ui_steps[i];
    top_collect_set_interval(c, ui->interval_ms);
    if (ui->interval_ms >= 1000)
        top_ui_msg(ui, "sampling every %g s", ui->interval_ms / 1000);
    else
        top_ui_msg(ui, "sampling every %g ms%s", ui->interval_ms, i == 0 ? " (the minimum)" : "");
}

static void top_ui_sort(struct top_ui *ui, int dir)
{
    int i = ui->sort_col;
    do
        i = (i + dir + top_ptable_ncols) % top_ptable_ncols;
    while (!top_ptable_col_shown(ui, i) && i != ui->sort_col);
    ui->sort_col = i;
    ui->sort_desc = top_ptable_cols[i].desc;
    top_ui_msg(ui, "sorted by %s", top_ptable_cols[i].title);
}

/* Keys while typing a filter. */
static void top_ui_filter_key(struct top_ui *ui, int ch)
{
    size_t n = strlen(ui->edit);
    if (ch == 27) {
        ui->edit[0] = ui->filter[0] = '\0';
        ui->input = TOP_INPUT_NONE;
        return;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        ui->input = TOP_INPUT_NONE;
        return;
    }
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        while (n > 0 && ((unsigned char)ui->edit[n - 1] & 0xc0) == 0x80)
            n--;   /* a whole UTF-8 character */
        ui->edit[n ? n - 1 : 0] = '\0';
    } else if (ch >= 32 && ch < 256 && ch != 127 && n + 1 < sizeof ui->edit) {
        ui->edit[n] = (char)ch;
        ui->edit[n + 1] = '\0';
    }
    memcpy(ui->filter, ui->edit, sizeof ui->filter);
}

/* Keys in normal mode. Returns false to quit. */
static bool top_ui_key(struct top_ui *ui, struct top_collector *c, int ch)
{
    long page = LINES / 2 > 1 ? LINES / 2 : 1;
    top_ptable_build(ui);   /* keys typed together (a filter, then k) act on the rows the screen will show */
    switch (ch) {
    case 'q': case 'Q': case KEY_F(10): return false;
    case '?': case 'h': case KEY_F(1):
        ui->screen = ui->screen == TOP_SCREEN_HELP ? TOP_SCREEN_MAIN : TOP_SCREEN_HELP;
        ui->detail_top = 0;
        break;
    case 27: case KEY_BACKSPACE: case 127:
        if (ui->screen != TOP_SCREEN_MAIN)
            ui->screen = TOP_SCREEN_MAIN;
        else if (ui->filter[0])
            ui->filter[0] = ui->edit[0] = '\0';
        break;
    case '\n': case '\r': case KEY_ENTER: case 'd':
        if (ui->screen == TOP_SCREEN_DETAIL) {
            ui->screen = TOP_SCREEN_MAIN;
            break;
        }
        if (ui->focus == TOP_FOCUS_PROCS && top_ui_selected(ui) && top_ui_selected(ui)->gpu >= 0)
            for (unsigned g = 0; g < ui->view.ngpus; g++)
                if ((int)ui->view.gpus[g].rec.index == top_ui_selected(ui)->gpu)
                    ui->sel_gpu = g;
        ui->screen = ui->view.ngpus ? TOP_SCREEN_DETAIL : TOP_SCREEN_MAIN;
        ui->detail_top = 0;
        break;
    case '\t': ui->focus = ui->focus == TOP_FOCUS_GPUS ? TOP_FOCUS_PROCS : TOP_FOCUS_GPUS; break;
    case KEY_UP: top_ui_move(ui, -1); break;
    case KEY_DOWN: top_ui_move(ui, 1); break;
    case KEY_PPAGE: top_ui_move(ui, -page); break;
    case KEY_NPAGE: top_ui_move(ui, page); break;
    case KEY_HOME: top_ui_move(ui, -1000000); break;
    case KEY_END: top_ui_move(ui, 1000000); break;
    case KEY_LEFT: case KEY_RIGHT:
        if (ui->screen == TOP_SCREEN_DETAIL && ui->view.ngpus) {
            ui->sel_gpu = (ui->sel_gpu + (ch == KEY_LEFT ? ui->view.ngpus - 1 : 1)) % ui->view.ngpus;
            ui->detail_top = 0;
        }
        break;
    case 's': case '>': top_ui_sort(ui, 1); break;
    case '<': top_ui_sort(ui, -1); break;
    case 'r':
        ui->sort_desc = !ui->sort_desc;
        top_ui_msg(ui, "sorted by %s, %s", top_ptable_cols[ui->sort_col].title,
                   ui->sort_desc ? "descending" : "ascending");
        break;
    case '/':
        ui->screen = TOP_SCREEN_MAIN;
        memcpy(ui->edit, ui->filter, sizeof ui->edit);
        ui->input = TOP_INPUT_FILTER;
        break;
    case 'g':
        ui->gpu_only = !ui->gpu_only;
        top_ui_msg(ui, ui->gpu_only ? "processes of the selected GPU only (g: all)" : "processes of every GPU");
        break;
    case 't':
        ui->tree = !ui->tree;
        top_collect_set_tree(c, ui->tree);
        top_ui_msg(ui, ui->tree ? "tree view (from the next sample)" : "flat view");
        break;
    case 'p': case ' ':
        ui->paused = !ui->paused;
        break;
    case '+': case '=': top_ui_interval(ui, c, 1); break;
    case '-': case '_': top_ui_interval(ui, c, -1); break;
    case 'k': top_ui_signal_ask(ui, SIGTERM); break;
    case 'K': top_ui_signal_ask(ui, SIGKILL); break;
    default:
        if (ch >= '0' && ch <= '9')
            for (unsigned g = 0; g < ui->view.ngpus; g++)
                if (ui->view.gpus[g].rec.index == (unsigned)(ch - '0'))
                    ui->sel_gpu = g, ui->focus = TOP_FOCUS_GPUS;
        break;
    }
    return true;
}

static void top_ui_draw(struct top_ui *ui)
{
    top_frame_begin();
    if (COLS < TOP_MIN_COLS || LINES < TOP_MIN_ROWS) {
        char need[48], have[48];
        snprintf(need, sizeof need, "needs %dx%d or more,", TOP_MIN_COLS, TOP_MIN_ROWS);
        snprintf(have, sizeof have, "this one is %dx%d", COLS, LINES);
        top_put(0, 0, COLS, "gpumon top: terminal too small:", TOP_ST_CRIT);
        top_put(1, 0, COLS, need, TOP_ST_NORMAL);
        top_put(2, 0, COLS, have, TOP_ST_NORMAL);
        top_put(3, 0, COLS, "(q quits)", TOP_ST_DIM);
    } else if (ui->screen == TOP_SCREEN_DETAIL) {
        top_draw_detail(ui);
    } else if (ui->screen == TOP_SCREEN_HELP) {
        top_draw_help(ui);
    } else {
        top_draw_main(ui);
    }
    top_frame_end();
}

/* Whether something on screen changes with time alone: the age of stale data, the wait for the first
 * sample, a message until it expires. */
static bool top_ui_ticking(const struct top_ui *ui)
{
    uint64_t now = util_mono_ns();
    return !ui->paused && (!ui->view.gen || (double)(now - ui->view.mono_ns) / 1e6 > 2 * ui->interval_ms ||
                           (ui->msg[0] && now - ui->msg_ns < 9000000000ull));
}

/* What woke the UI (top_ui_wait): each is looked at only when it is ready, so a frame costs no
 * system calls that find nothing. */
enum { TOP_UI_KEY = 1, TOP_UI_SNAP = 2, TOP_UI_SIG = 4, TOP_UI_MSG = 8, TOP_UI_ALL = 15 };

/* Waits for a key, a snapshot, a signal (sfd; -1: none, then at most 250 ms and signals are looked for
 * at every wake) or a message on standard error: while something ticks, until the clock's next second;
 * otherwise until the data would turn stale. Sets *ready (TOP_UI_*). Returns false when the terminal is
 * gone. */
static bool top_ui_wait(const struct top_ui *ui, int notify_fd, int sfd, int *ready)
{
    struct pollfd pf[4] = {{top_term_input_fd(), POLLIN, 0}, {notify_fd, POLLIN, 0}, {top_term_message_fd(), POLLIN, 0},
                           {sfd, POLLIN, 0}};
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int ms = 1000 - (int)(now.tv_nsec / 1000000) + 2;
    if (!top_ui_ticking(ui) && !ui->paused) {
        double stale_ms = 2 * ui->interval_ms - (double)(util_mono_ns() - ui->view.mono_ns) / 1e6;
        ms = stale_ms > 3600000 ? 3600000 : (int)stale_ms + 2;
    }
    int n = poll(pf, sfd >= 0 ? 4 : 3, sfd < 0 && ms > 250 ? 250 : ms);
    bool key = n > 0 && (pf[0].revents & POLLIN);
    *ready = (key ? TOP_UI_KEY : 0) | (n > 0 && pf[1].revents ? TOP_UI_SNAP : 0) |
             (n > 0 && pf[2].revents ? TOP_UI_MSG : 0) | (sfd < 0 || (n > 0 && pf[3].revents) ? TOP_UI_SIG : 0);
    /* EINTR: a handler ran (curses' Ctrl-Z one): top_term_resumed says so */
    return !(n > 0 && (pf[0].revents & (POLLHUP | POLLERR | POLLNVAL)) && !key);
}

/* A descriptor that is readable while one of sigs is pending (they are blocked: sig.h), or -1. */
static int top_ui_signalfd(const int *sigs)
{
    sigset_t set;
    sigemptyset(&set);
    for (const int *s = sigs; *s; s++)
        sigaddset(&set, *s);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int top_ui_run(struct top_collector *c, int notify_fd, const int *sigs, double interval_ms)
{
    struct top_ui *ui = xcalloc(1, sizeof *ui);
    struct top_proc_cache *pc = top_proc_new("/proc");
    top_snap_init(&ui->view);
    ui->interval_ms = interval_ms;
    ui->sort_col = top_ptable_default_sort;
    ui->sort_desc = top_ptable_cols[ui->sort_col].desc;
    bool dirty = true;
    time_t drawn = 0;
    unsigned idle_reads = 0;
    int sfd = top_ui_signalfd(sigs), ready = TOP_UI_ALL;
    for (;;) {
        int sig = ready & TOP_UI_SIG ? sig_wait(sigs, 0, NULL) : 0;
        if (sig == SIGWINCH || (!sig && top_term_resumed())) {   /* resumed: wherever the handler ran */
            top_term_repaint();
            dirty = true;
            ready = TOP_UI_ALL;   /* a signal was one: there may be more */
            continue;
        }
        if (sig)
            break;
        uint64_t junk;
        if (ready & TOP_UI_SNAP && read(notify_fd, &junk, sizeof junk) < 0)
            junk = 0;   /* read already (EAGAIN): the snapshot is taken below either way */
        if (!ui->paused && top_collect_take(c, &ui->view, &ui->hist, &ui->nhist)) {
            dirty = true;
            if (ui->sel_gpu >= ui->view.ngpus)
                ui->sel_gpu = ui->view.ngpus ? ui->view.ngpus - 1 : 0;
        }
        char last[sizeof ui->msg];
        if (ready & TOP_UI_MSG && top_term_messages(last, sizeof last)) {
            top_ui_msg(ui, "%s", last);
            dirty = true;
        }
        ui->now_ns = util_mono_ns();
        ui->busy_ns = top_collect_busy_ns(c);
        if (dirty || (top_ui_ticking(ui) && time(NULL) != drawn)) {
            top_ui_draw(ui);
            drawn = time(NULL);
            dirty = false;
        }
        if (!top_ui_wait(ui, notify_fd, sfd, &ready))
            break;   /* the terminal hung up */
        if (!(ready & TOP_UI_KEY))
            continue;
        int ch, got = 0;
        while ((ch = getch()) != ERR) {
            got++;
            if (ch == KEY_RESIZE) {
                dirty = true;
                continue;
            }
            if (ui->input == TOP_INPUT_FILTER)
                top_ui_filter_key(ui, ch);
            else if (ui->input == TOP_INPUT_CONFIRM && (ch == 'y' || ch == 'Y'))
                top_ui_signal_send(ui, pc);
            else if (ui->input == TOP_INPUT_CONFIRM)
                ui->input = TOP_INPUT_NONE, top_ui_msg(ui, "no signal sent");
            else if (!top_ui_key(ui, c, ch))
                goto out;
            dirty = true;
        }
        idle_reads = got ? 0 : idle_reads + 1;
        if (idle_reads > 200)
            break;   /* readable without keys, again and again: the terminal is gone */
    }
out:
    if (sfd >= 0)
        close(sfd);
    top_proc_free(pc);
    top_snap_free(&ui->view);
    free(ui->hist);
    free(ui);
    return EXIT_OK;
}
