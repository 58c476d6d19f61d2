/*
 * top_term.c: the terminal under `gpumon top`. Decides whether it can be
 * used at all (a terminal on standard input and output, TERM set and not
 * dumb, cursor addressing in its terminfo entry), takes it with ncursesw
 * (cbreak, no echo, keypad, no cursor; input polled by the UI loop), and
 * gives it back on every way out: the UI's return, exit() (an atexit
 * hook) and a failed start. Colours come from one table of styles with a
 * monochrome column, used when NO_COLOR is set (any non-empty value) or
 * the terminal has none. Graph blocks are UTF-8 only when the locale's
 * codeset is; otherwise ASCII. While the screen is up, standard error
 * goes into a non-blocking pipe (a message printed over the screen would
 * garble it; a full pipe drops messages rather than stall the sampler):
 * the UI shows its latest line, and everything held is written to the
 * real standard error once the terminal is restored. Drawing is cheap on
 * purpose (a monitor must not cost what it watches): a frame is first
 * written down as the operations drawn on each line (text, graph levels,
 * fills), and only the lines whose operations differ from the previous
 * frame's are sent: written straight to the terminal by top_out.c where
 * it can (the cells of those lines that differ from what the terminal
 * shows), else cleared and handed to curses, so curses compares and sends
 * what changed, not the whole screen; ASCII text goes to curses as ready
 * cells (chtype arrays, no multibyte decoding), graph cells as cells built
 * once, and blank graph cells are not drawn at all. Curses draws the first
 * frame and those after a resize or a suspend whole. A frame leaves in one
 * write: Debian's ncurses 6.4 flushes its output at every cursor move
 * until the screen has once been ended and resumed, so top_term_open does
 * that before the first frame.
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>
#include "top.h"
#include "util.h"

#define TOP_TERM_HELD (16 * 1024)

static struct {
    SCREEN *scr;
    bool active, utf8, color, hooked, hidden;   /* hidden: the cursor is (curs_set(0) worked) */
    int saved_err, pipe_r;
    char held[TOP_TERM_HELD];
    size_t nheld, lost;
} top_term = {.saved_err = -1, .pipe_r = -1};

/* Curses' Ctrl-Z handler, run from top's: it ends the screen, stops, and on the way back redraws the frame
 * curses drew last, not the one top_out wrote since; a flag tells the UI to draw whole again. The UI's
 * poll returning EINTR does not: the handler may run while a frame is written (a slow terminal). */
static struct sigaction top_term_tstp_curses;
static volatile sig_atomic_t top_term_tstp_ran;
static bool top_term_tstp_hooked;

static void top_term_tstp(int sig)
{
    int saved = errno;   /* curses' handler writes the terminal and more: the write it interrupted reads errno */
    top_term_tstp_ran = 1;
    top_term_tstp_curses.sa_handler(sig);
    errno = saved;
}

/* The operations drawn on each line in this frame (cur) and the previous one (prev; struct top_op). */
struct top_ops {
    unsigned char *b;
    size_t n, cap;
};
static struct {
    struct top_ops *cur, *prev;
    int nlines, ncols;                /* the size they are for */
    bool all;                         /* every line to curses at the next frame's end */
    int cy, cx;                       /* where curses leaves its cursor after the frame's last call */
} top_frame;

/* fg, bg (-1: the terminal's default), attributes with colour, attributes without. */
static const struct {
    short fg, bg;
    attr_t color, mono;
} top_term_styles[TOP_ST_COUNT] = {
    [TOP_ST_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
    [TOP_ST_HEADER] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [TOP_ST_HEAD] = {COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_BOLD | A_UNDERLINE},
    [TOP_ST_SELECT] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [TOP_ST_MARK] = {-1, -1, A_BOLD, A_BOLD},
    [TOP_ST_DIM] = {-1, -1, A_DIM, A_DIM},
    [TOP_ST_OK] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [TOP_ST_INFO] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
    [TOP_ST_WARN] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [TOP_ST_CRIT] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_REVERSE},
    [TOP_ST_UTIL] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [TOP_ST_SM] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
    [TOP_ST_MEM] = {COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL},
    [TOP_ST_POWER] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
};

int top_term_check(char *why, size_t len)
{
    const char *term = getenv("TERM");
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(why, len, "standard input and output must be a terminal (for a pipe or a log: gpumon watch)");
        return -1;
    }
    if (!term || !*term || !strcmp(term, "dumb")) {
        snprintf(why, len, "this terminal (TERM=%s) cannot show a full-screen view; set TERM to the terminal's "
                 "type (e.g. xterm-256color), or use gpumon watch", term && *term ? term : "");
        return -1;
    }
    return 0;
}

static void top_term_colors(void)
{
    const char *nc = getenv("NO_COLOR");
    top_term.color = !(nc && *nc) && has_colors();
    if (!top_term.color)
        return;
    start_color();
    use_default_colors();
    for (int s = 0; s < TOP_ST_COUNT; s++)
        init_pair((short)(s + 1), top_term_styles[s].fg, top_term_styles[s].bg);
}

/* Standard error into a pipe; false when it cannot be (then it stays as it is). */
static bool top_term_take_stderr(void)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
        return false;
    fflush(stderr);
    top_term.saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (top_term.saved_err < 0 || dup2(p[1], STDERR_FILENO) < 0) {
        close(p[0]);
        close(p[1]);
        if (top_term.saved_err >= 0)
            close(top_term.saved_err);
        top_term.saved_err = -1;
        return false;
    }
    close(p[1]);
    top_term.pipe_r = p[0];
    return true;
}

int top_term_open(char *why, size_t len)
{
    setlocale(LC_CTYPE, "");   /* the terminal's characters; the rest stays C (numbers keep their point,
                                  * messages their words), and no other category's files are mapped */
    top_term.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    top_term_take_stderr();
    if (!top_term.hooked) {
        atexit(top_term_close);
        top_term.hooked = true;
    }
    if (!(top_term.scr = newterm(NULL, stdout, stdin))) {
        top_term_close();
        snprintf(why, len, "the terminal type TERM=%s is not known here (no terminfo entry); set TERM to one that "
                 "is, e.g. xterm-256color", getenv("TERM"));
        return -1;
    }
    top_term.active = true;
    const char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) {
        top_term_close();
        snprintf(why, len, "this terminal (TERM=%s) cannot move the cursor, which a full-screen view needs; use "
                 "gpumon watch", getenv("TERM"));
        return -1;
    }
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    typeahead(-1);   /* a frame goes out whole, in one write, without polling the keyboard in between */
    top_term.hidden = curs_set(0) != ERR;
    if (top_term.hidden)
        leaveok(stdscr, TRUE);   /* the cursor is hidden: not moved back after a frame (where it can't be
                                  * hidden, e.g. vt100, it is put where the frame's last drawing left it) */
    top_term_colors();
    struct sigaction sa;
    if (!top_term_tstp_hooked && sigaction(SIGTSTP, NULL, &top_term_tstp_curses) == 0 &&
        !(top_term_tstp_curses.sa_flags & SA_SIGINFO) && top_term_tstp_curses.sa_handler != SIG_DFL &&
        top_term_tstp_curses.sa_handler != SIG_IGN) {
        sa = top_term_tstp_curses;
        sa.sa_handler = top_term_tstp;
        top_term_tstp_hooked = sigaction(SIGTSTP, &sa, NULL) == 0;
    }
    if (top_term.hidden) {   /* steady frames without curses' update, where they show the same */
        short fg[TOP_ST_COUNT], bg[TOP_ST_COUNT];
        unsigned long attr[TOP_ST_COUNT];
        for (int s = 0; s < TOP_ST_COUNT; s++) {
            fg[s] = top_term_styles[s].fg, bg[s] = top_term_styles[s].bg;
            attr[s] = top_term.color ? top_term_styles[s].color : top_term_styles[s].mono;
        }
        if (top_out_open(fg, bg, attr, top_term.color))
            leaveok(stdscr, FALSE);   /* curses' frames end home, where top_out's do */
    }
    /* ncurses 6.4 flushes at each cursor move (a write per changed piece of the screen) while the screen
     * is in its initial state, which only an end and a resume leave: before the first frame (which clears
     * the screen and draws it whole), so nothing shows */
    endwin();
    top_frame.all = true;
    return 0;
}

void top_term_close(void)
{
    for (int y = 0; y < top_frame.nlines; y++) {
        free(top_frame.cur[y].b);
        free(top_frame.prev[y].b);
    }
    free(top_frame.cur);
    free(top_frame.prev);
    memset(&top_frame, 0, sizeof top_frame);
    top_out_close();
    if (top_term_tstp_hooked && sigaction(SIGTSTP, &top_term_tstp_curses, NULL) == 0)
        top_term_tstp_hooked = false;
    if (top_term.active) {
        endwin();
        delscreen(top_term.scr);
        top_term.scr = NULL;
        top_term.active = false;
    }
    if (top_term.saved_err < 0)
        return;
    char last[8];
    top_term_messages(last, sizeof last);
    fflush(stderr);
    dup2(top_term.saved_err, STDERR_FILENO);
    close(top_term.saved_err);
    close(top_term.pipe_r);
    top_term.saved_err = top_term.pipe_r = -1;
    if (top_term.lost)
        fprintf(stderr, "gpumon top: %zu bytes of earlier messages were dropped\n", top_term.lost);
    if (top_term.nheld)
        fwrite(top_term.held, 1, top_term.nheld, stderr);
    top_term.nheld = top_term.lost = 0;
}

bool top_term_utf8(void)
{
    return top_term.utf8;
}

bool top_term_resumed(void)
{
    if (!top_term_tstp_ran)
        return false;
    top_term_tstp_ran = 0;
    return true;
}

void top_term_repaint(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resizeterm(ws.ws_row, ws.ws_col);
    clearok(curscr, TRUE);
    top_frame.all = true;
}

int top_term_input_fd(void)
{
    return STDIN_FILENO;
}

int top_term_message_fd(void)
{
    return top_term.pipe_r;
}

bool top_term_messages(char *last, size_t len)
{
    char buf[4096];
    ssize_t n;
    size_t before = top_term.nheld;
    while (top_term.pipe_r >= 0 && (n = read(top_term.pipe_r, buf, sizeof buf)) > 0) {
        size_t k = (size_t)n;
        if (top_term.nheld + k > TOP_TERM_HELD) {   /* keep the newest */
            size_t drop = top_term.nheld + k - TOP_TERM_HELD;
            drop = drop > top_term.nheld ? top_term.nheld : drop;
            memmove(top_term.held, top_term.held + drop, top_term.nheld - drop);
            top_term.nheld -= drop;
            top_term.lost += drop;
            before = before > drop ? before - drop : 0;
            if (k > TOP_TERM_HELD)
                top_term.lost += k - TOP_TERM_HELD, k = TOP_TERM_HELD;
        }
        memcpy(top_term.held + top_term.nheld, buf + (size_t)n - k, k);
        top_term.nheld += k;
    }
    if (top_term.nheld == before)
        return false;
    /* the latest complete line */
    size_t end = top_term.nheld;
    while (end > 0 && top_term.held[end - 1] != '\n')
        end--;
    if (end == 0)
        return false;
    size_t start = end - 1;
    while (start > 0 && top_term.held[start - 1] != '\n')
        start--;
    size_t k = end - 1 - start < len - 1 ? end - 1 - start : len - 1;
    memcpy(last, top_term.held + start, k);
    last[k] = '\0';
    return true;
}

static chtype top_term_chattr(enum top_style st)
{
    return top_term.color ? COLOR_PAIR(st + 1) | top_term_styles[st].color : top_term_styles[st].mono;
}

static void top_term_attr(enum top_style st)
{
    attrset(top_term_chattr(st));
}

/* Bytes of s that fill at most w columns, into out (control bytes, and a combining character that begins it,
 * as '?'; without UTF-8, non-ASCII as '?'). A combining character after a wide one is left out: ncurses
 * before 6.3 (Debian 11, Ubuntu 20.04) drops it and 6.4 keeps it, so top's own frames could match only one
 * of them (check-portable's Debian 11 root showed it). */
static int top_term_clip(const char *s, int w, char *out, size_t outlen, size_t *outn)
{
    int cols = 0, lastw = 0;
    size_t k = 0;
    mbstate_t ms;
    memset(&ms, 0, sizeof ms);
    while (*s && cols < w && k + MB_LEN_MAX + 1 < outlen) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x80 || !top_term.utf8) {
            out[k++] = c < 0x20 || c == 0x7f || c >= 0x80 ? '?' : (char)c;
            cols++, s++, lastw = 1;
            continue;
        }
        wchar_t wc;
        size_t n = mbrtowc(&wc, s, MB_LEN_MAX, &ms);
        int cw = n == (size_t)-1 || n == (size_t)-2 ? -1 : wcwidth(wc);
        if (cw < 0) {
            memset(&ms, 0, sizeof ms);
            out[k++] = '?';
            cols++, s++, lastw = 1;
            continue;
        }
        if (cw == 0 && k == 0) {   /* combining with nothing: curses would put it on the cell before the text,
                                    * or the line above's last, which another writer cannot follow */
            out[k++] = '?';
            cols++, s += n, lastw = 1;
            continue;
        }
        if (cw == 0 && lastw == 2) {
            s += n;
            continue;
        }
        if (cols + cw > w)
            break;
        memcpy(out + k, s, n);
        k += n, s += n, cols += cw;
        if (cw > 0)
            lastw = cw;
    }
    out[k] = '\0';
    *outn = k;
    return cols;
}

/* ---- frames: each line's operations, handed to curses only when they changed ---- */

/* Appends an operation on line y (in range) with its n bytes. */
static void top_op_add(int y, unsigned char op, enum top_style st, int x, const void *bytes, size_t n)
{
    struct top_ops *o = &top_frame.cur[y];
    struct top_op h = {op, (unsigned char)st, (short)x, (unsigned short)n};
    size_t need = o->n + sizeof h + (op == TOP_OP_FILL ? 0 : n);
    if (need > o->cap) {
        o->cap = need < 256 ? 256 : need * 2;
        o->b = xrealloc(o->b, o->cap);
    }
    memcpy(o->b + o->n, &h, sizeof h);
    o->n += sizeof h;
    if (op != TOP_OP_FILL && n) {
        memcpy(o->b + o->n, bytes, n);
        o->n += n;
    }
}

void top_frame_begin(void)
{
    if (top_frame.nlines != LINES || top_frame.ncols != COLS) {
        for (int y = 0; y < top_frame.nlines; y++) {
            free(top_frame.cur[y].b);
            free(top_frame.prev[y].b);
        }
        free(top_frame.cur);
        free(top_frame.prev);
        top_frame.nlines = LINES > 0 ? LINES : 0;
        top_frame.ncols = COLS;
        top_frame.cur = xcalloc((size_t)top_frame.nlines + 1, sizeof *top_frame.cur);
        top_frame.prev = xcalloc((size_t)top_frame.nlines + 1, sizeof *top_frame.prev);
        top_frame.all = true;
        if (top_out_on())
            top_out_size(top_frame.nlines, top_frame.ncols);
    }
    for (int y = 0; y < top_frame.nlines; y++)
        top_frame.cur[y].n = 0;
}

static void top_levels_draw(int y, int x, const unsigned char *lv, int w, enum top_style st)
{
    static const char ascii[9] = {' ', '_', '_', '.', '-', '-', '=', '#', '#'};
    static cchar_t blocks[TOP_ST_COUNT][9];
    static bool built[TOP_ST_COUNT];
    if (top_term.utf8 && !built[st]) {
        for (int l = 1; l <= 8; l++) {
            wchar_t wc[2] = {(wchar_t)(0x2580 + l), 0};   /* U+2581 lower one eighth ... U+2588 full block */
            setcchar(&blocks[st][l], wc, top_term.color ? top_term_styles[st].color : top_term_styles[st].mono,
                     top_term.color ? (short)(st + 1) : 0, NULL);
        }
        built[st] = true;
    }
    chtype cells[512], a = top_term_chattr(st);
    for (int i = 0; i < w;) {
        while (i < w && lv[i] == 0)
            i++;   /* blanks: the line was cleared */
        int start = i;
        while (i < w && lv[i] != 0 && i - start < (int)(sizeof cells / sizeof cells[0]))
            i++;
        if (i == start)
            break;
        if (top_term.utf8) {
            cchar_t run[64];   /* in pieces: a cell is 28 bytes, and the stack is memory too */
            for (int k = start; k < i; k += 64) {
                int m = i - k < 64 ? i - k : 64;
                for (int j = 0; j < m; j++)
                    run[j] = blocks[st][lv[k + j] > 8 ? 8 : lv[k + j]];
                mvadd_wchnstr(y, x + k, run, m);
            }
        } else {
            for (int k = start; k < i; k++)
                cells[k - start] = (chtype)(unsigned char)ascii[lv[k] > 8 ? 8 : lv[k]] | a;
            mvaddchnstr(y, x + start, cells, i - start);
        }
    }
}

/* Hands line y's operations to curses, on a cleared line. */
static void top_ops_draw(int y, const struct top_ops *o)
{
    move(y, 0);
    clrtoeol();
    for (size_t at = 0; at < o->n;) {
        struct top_op h;
        memcpy(&h, o->b + at, sizeof h);
        at += sizeof h;
        const unsigned char *p = o->b + at;
        enum top_style st = (enum top_style)h.st;
        if (h.op == TOP_OP_TEXT) {
            chtype cells[512], a = top_term_chattr(st);
            for (int i = 0; i < h.n; i++)
                cells[i] = p[i] | a;
            mvaddchnstr(y, h.x, cells, h.n);
        } else if (h.op == TOP_OP_UTF8) {
            top_term_attr(st);
            mvaddnstr(y, h.x, (const char *)p, h.n);
            top_term_attr(TOP_ST_NORMAL);
        } else if (h.op == TOP_OP_LEVELS) {
            top_levels_draw(y, h.x, p, h.n, st);
        } else {
            mvhline(y, h.x, ' ' | top_term_chattr(st), h.n);
            continue;
        }
        at += h.n;
    }
}

void top_frame_end(void)
{
    bool out = top_out_on(), direct = out && !top_frame.all;
    for (int y = 0; y < top_frame.nlines; y++) {
        struct top_ops *c = &top_frame.cur[y], *p = &top_frame.prev[y];
        bool changed = top_frame.all || c->n != p->n || (c->n && memcmp(c->b, p->b, c->n));
        if (changed && !direct)
            top_ops_draw(y, c);
        if (changed && direct)   /* the terminal shows p: curses drew it, or top_out sent it */
            top_out_line(y, p->b, p->n, c->b, c->n);
        struct top_ops t = *c;
        *c = *p;
        *p = t;
    }
    if (direct) {
        top_out_flush();
        return;
    }
    if (out) {   /* curses' copy of the screen is stale: it clears it and draws the frame whole */
        clearok(curscr, TRUE);
        move(0, 0);
    } else if (!top_term.hidden) {
        move(top_frame.cy, top_frame.cx);
    }
    top_frame.all = false;
    refresh();
    if (out)
        top_out_synced();
}

int top_put(int y, int x, int w, const char *s, enum top_style st)
{
    if (w <= 0 || y < 0 || y >= top_frame.nlines || x < 0 || x >= COLS)
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    /* ASCII (or any text in a non-UTF-8 locale): ready cells */
    unsigned char cells[512];
    const unsigned char *p = (const unsigned char *)s;
    int n = 0;
    for (; *p && n < w && n < (int)sizeof cells; p++) {
        if (*p >= 0x80 && top_term.utf8)
            break;
        cells[n++] = *p < 0x20 || *p >= 0x7f ? '?' : *p;
    }
    if (!*p || n == w || n == (int)sizeof cells) {
        top_op_add(y, TOP_OP_TEXT, st, x, cells, (size_t)n);
        top_frame.cy = y, top_frame.cx = x;   /* a cell string leaves the cursor where it starts */
        return n;
    }
    /* UTF-8 text: curses decodes it */
    char buf[1024];
    size_t len;
    int cols = top_term_clip(s, w, buf, sizeof buf, &len);
    top_op_add(y, TOP_OP_UTF8, st, x, buf, len);
    top_frame.cy = y, top_frame.cx = x + cols < COLS ? x + cols : COLS - 1;   /* text moves it on */
    return cols;
}

void top_put_levels(int y, int x, const unsigned char *lv, int w, enum top_style st)
{
    if (y < 0 || y >= top_frame.nlines || x < 0 || x >= COLS)
        return;
    if (x + w > COLS)
        w = COLS - x;
    if (w <= 0)
        return;
    top_op_add(y, TOP_OP_LEVELS, st, x, lv, (size_t)w);
    int end = w - 1, i;   /* the start of the last piece of the last run of cells drawn */
    while (end >= 0 && !lv[end])
        end--;
    for (i = end; i > 0 && lv[i - 1];)
        i--;
    if (end >= 0)
        top_frame.cy = y, top_frame.cx = x + i + (end - i) / (top_term.utf8 ? 64 : 512) * (top_term.utf8 ? 64 : 512);
}

void top_put_right(int y, int x, int w, const char *s, enum top_style st)
{
    size_t n = 0;
    while (s[n] && (unsigned char)s[n] < 0x80 && n < 512)
        n++;
    if (!s[n] && (int)n <= w) {   /* short ASCII (every cell of the GPU line): its length is its width */
        top_put(y, x + w - (int)n, (int)n, s, st);
        return;
    }
    char buf[1024];
    int cols = top_term_clip(s, w, buf, sizeof buf, &n);
    top_put(y, x + w - cols, cols, buf, st);
}

void top_fill(int y, int x, int w, enum top_style st)
{
    if (w <= 0 || y < 0 || y >= top_frame.nlines || x >= COLS)
        return;
    if (x + w > COLS)
        w = COLS - x;
    top_op_add(y, TOP_OP_FILL, st, x, NULL, (size_t)w);
    top_frame.cy = y, top_frame.cx = x;
}
