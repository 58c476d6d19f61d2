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
 * purpose (a monitor must not cost what it watches): ASCII text goes to
 * curses as ready cells (chtype arrays, no multibyte decoding), graph
 * cells as cells built once, and blank graph cells are not drawn at all.
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>
#include "top.h"

#define TOP_TERM_HELD (16 * 1024)

static struct {
    SCREEN *scr;
    bool active, utf8, color, hooked;
    int saved_err, pipe_r;
    char held[TOP_TERM_HELD];
    size_t nheld, lost;
} top_term = {.saved_err = -1, .pipe_r = -1};

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
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");   /* numbers keep their point whatever the locale */
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
    curs_set(0);
    top_term_colors();
    return 0;
}

void top_term_close(void)
{
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

void top_term_resize(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resizeterm(ws.ws_row, ws.ws_col);
    clearok(curscr, TRUE);
}

int top_term_input_fd(void)
{
    return STDIN_FILENO;
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

/* Bytes of s that fill at most w columns, into out (control bytes as '?'; without UTF-8, non-ASCII as '?'). */
static int top_term_clip(const char *s, int w, char *out, size_t outlen, size_t *outn)
{
    int cols = 0;
    size_t k = 0;
    mbstate_t ms;
    memset(&ms, 0, sizeof ms);
    while (*s && cols < w && k + MB_LEN_MAX + 1 < outlen) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x80 || !top_term.utf8) {
            out[k++] = c < 0x20 || c == 0x7f || c >= 0x80 ? '?' : (char)c;
            cols++, s++;
            continue;
        }
        wchar_t wc;
        size_t n = mbrtowc(&wc, s, MB_LEN_MAX, &ms);
        int cw = n == (size_t)-1 || n == (size_t)-2 ? -1 : wcwidth(wc);
        if (cw < 0) {
            memset(&ms, 0, sizeof ms);
            out[k++] = '?';
            cols++, s++;
            continue;
        }
        if (cols + cw > w)
            break;
        memcpy(out + k, s, n);
        k += n, s += n, cols += cw;
    }
    out[k] = '\0';
    *outn = k;
    return cols;
}

int top_put(int y, int x, int w, const char *s, enum top_style st)
{
    if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    /* ASCII (or any text in a non-UTF-8 locale): ready cells */
    chtype cells[512], a = top_term_chattr(st);
    const unsigned char *p = (const unsigned char *)s;
    int n = 0;
    for (; *p && n < w && n < (int)(sizeof cells / sizeof cells[0]); p++) {
        if (*p >= 0x80 && top_term.utf8)
            break;
        cells[n++] = (*p < 0x20 || *p >= 0x7f ? '?' : *p) | a;
    }
    if (!*p || n == w || n == (int)(sizeof cells / sizeof cells[0])) {
        mvaddchnstr(y, x, cells, n);
        return n;
    }
    /* UTF-8 text: curses decodes it */
    char buf[1024];
    size_t len;
    int cols = top_term_clip(s, w, buf, sizeof buf, &len);
    top_term_attr(st);
    mvaddnstr(y, x, buf, (int)len);
    top_term_attr(TOP_ST_NORMAL);
    return cols;
}

void top_put_levels(int y, int x, const unsigned char *lv, int w, enum top_style st)
{
    static const char ascii[9] = {' ', '_', '_', '.', '-', '-', '=', '#', '#'};
    static cchar_t blocks[TOP_ST_COUNT][9];
    static bool built[TOP_ST_COUNT];
    if (y < 0 || y >= LINES || x < 0 || x >= COLS)
        return;
    if (x + w > COLS)
        w = COLS - x;
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
            i++;   /* blanks: the screen was erased */
        int start = i;
        while (i < w && lv[i] != 0 && i - start < (int)(sizeof cells / sizeof cells[0]))
            i++;
        if (i == start)
            break;
        if (top_term.utf8) {
            cchar_t run[512];
            for (int k = start; k < i; k++)
                run[k - start] = blocks[st][lv[k] > 8 ? 8 : lv[k]];
            mvadd_wchnstr(y, x + start, run, i - start);
        } else {
            for (int k = start; k < i; k++)
                cells[k - start] = (chtype)(unsigned char)ascii[lv[k] > 8 ? 8 : lv[k]] | a;
            mvaddchnstr(y, x + start, cells, i - start);
        }
    }
}

void top_put_right(int y, int x, int w, const char *s, enum top_style st)
{
    char buf[1024];
    size_t n;
    int cols = top_term_clip(s, w, buf, sizeof buf, &n);
    top_put(y, x + w - cols, cols, buf, st);
}

void top_fill(int y, int x, int w, enum top_style st)
{
    if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
        return;
    if (x + w > COLS)
        w = COLS - x;
    mvhline(y, x, ' ' | top_term_chattr(st), w);
}
