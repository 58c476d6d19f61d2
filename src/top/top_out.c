/*
 * top_out.c: the steady frames of `gpumon top`, written to the terminal
 * without curses' update. Curses' doupdate costs most of a frame even
 * when a few figures change: for each changed line it compares all of
 * it, hashes the whole screen for scrolling, and prices every cursor move
 * by formatting the terminfo strings of each way to get there. Here a
 * line whose operations changed (top_term.c) is laid out as cells, those
 * differing from what the terminal shows (the previous frame's operations
 * on that line, laid out the same way: no copy of the screen is kept) are
 * sent with
 * one absolute move per run of them (runs a few equal cells apart are
 * joined) and one style string per change of style (made once from
 * terminfo: sgr0 and op, then bold, dim, rev, smul, setaf and setab as
 * curses would send them), and the frame leaves in one write with the
 * cursor home and the attributes normal, where curses believes them to
 * be. It is used only where that is exactly what curses would show: a
 * hidden cursor, absolute addressing, no automatic margin or one with the
 * xenl glitch (the last column can be written), no magic cookies, every
 * attribute a style needs present and no ncv; elsewhere curses draws as
 * before. Curses still draws the first frame and every frame after a
 * resize or a suspend (clearing the screen, as its copy of the screen is
 * stale), from the same operations that are laid out here.
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>
#include "top.h"
#include "util.h"

#define TOP_OUT_GAP 6   /* equal cells written over rather than moved past (a move is about 8 bytes) */

struct top_cell {
    char b[4 * CCHARW_MAX];    /* UTF-8, a base character and the combining ones a curses cell holds */
    unsigned char n, st, w, pad;   /* bytes, style, width (2: a wide character's first cell, 0: its second) */
};

static struct {
    bool on;
    int nl, nc;                /* lines, columns */
    struct top_cell *row;      /* the line being laid out */
    struct top_cell *shown;    /* what the terminal shows of it (laid out from the previous frame's operations) */
    struct top_cell *blank;    /* a blank line */
    char *style[TOP_ST_COUNT];       /* each style whole: sgr0, op, its attributes and colours */
    size_t stylen[TOP_ST_COUNT];
    char *fg[TOP_ST_COUNT], *bg[TOP_ST_COUNT], *op;   /* a style's colours alone (NULL: the default) */
    unsigned long attr[TOP_ST_COUNT];
    const char *cup, *el;      /* el: NULL when absent (blanks are written instead) */
    bool ansi_cup;             /* cup is \E[%i%p1%d;%p2%dH: formatted here */
    int cy, cx, st;            /* the terminal's cursor (cx -1: not known) and style */
    char *buf;
    size_t n, cap;
} top_out;

static void top_out_add(const char *s, size_t n)
{
    if (top_out.n + n > top_out.cap) {
        top_out.cap = (top_out.n + n) * 2 + 4096;
        top_out.buf = xrealloc(top_out.buf, top_out.cap);
    }
    memcpy(top_out.buf + top_out.n, s, n);
    top_out.n += n;
}

static void top_out_cap(char **o, size_t *n, const char *cap)
{
    size_t k = strlen(cap);
    *o = xrealloc(*o, *n + k + 1);
    memcpy(*o + *n, cap, k + 1);
    *n += k;
}

/* A string capability, NULL when absent. */
static const char *top_out_str(const char *name)
{
    const char *s = tigetstr(name);
    return s && s != (char *)-1 ? s : NULL;
}

bool top_out_open(const short *fg, const short *bg, const unsigned long *attr, bool color)
{
    top_out_close();
    const char *sgr0 = top_out_str("sgr0"), *op = top_out_str("op"), *setaf = top_out_str("setaf"),
               *setab = top_out_str("setab");
    top_out.cup = top_out_str("cup");
    top_out.el = top_out_str("el");
    if (!top_out.cup || !sgr0 || (tigetflag("am") > 0 && tigetflag("xenl") <= 0) || tigetnum("xmc") > 0 ||
        (color && (!setaf || !setab || tigetnum("ncv") > 0)))
        return false;
    static const struct {
        unsigned long a;
        const char *cap;
    } attrs[] = {{A_BOLD, "bold"}, {A_DIM, "dim"}, {A_REVERSE, "rev"}, {A_UNDERLINE, "smul"}};
    for (int s = 0; s < TOP_ST_COUNT; s++) {
        if (attr[s] & ~(unsigned long)(A_BOLD | A_DIM | A_REVERSE | A_UNDERLINE)) {
            top_out_close();   /* an attribute not done here: curses draws */
            return false;
        }
        top_out_cap(&top_out.style[s], &top_out.stylen[s], sgr0);
        if (color && op)
            top_out_cap(&top_out.style[s], &top_out.stylen[s], op);
        for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
            if (!(attr[s] & attrs[i].a))
                continue;
            const char *c = top_out_str(attrs[i].cap);
            if (!c) {
                top_out_close();
                return false;
            }
            top_out_cap(&top_out.style[s], &top_out.stylen[s], c);
        }
        size_t k = 0;
        if (color && fg[s] >= 0) {
            top_out_cap(&top_out.style[s], &top_out.stylen[s], tiparm(setaf, fg[s]));
            top_out_cap(&top_out.fg[s], &k, tiparm(setaf, fg[s]));
        }
        k = 0;
        if (color && bg[s] >= 0) {
            top_out_cap(&top_out.style[s], &top_out.stylen[s], tiparm(setab, bg[s]));
            top_out_cap(&top_out.bg[s], &k, tiparm(setab, bg[s]));
        }
        top_out.attr[s] = attr[s];
    }
    size_t k = 0;
    if (color && op)
        top_out_cap(&top_out.op, &k, op);
    top_out.ansi_cup = !strcmp(top_out.cup, "\033[%i%p1%d;%p2%dH");
    top_out.on = true;
    return true;
}

void top_out_close(void)
{
    for (int s = 0; s < TOP_ST_COUNT; s++) {
        free(top_out.style[s]);
        free(top_out.fg[s]);
        free(top_out.bg[s]);
    }
    free(top_out.op);
    free(top_out.row);
    free(top_out.shown);
    free(top_out.blank);
    free(top_out.buf);
    memset(&top_out, 0, sizeof top_out);
}

bool top_out_on(void)
{
    return top_out.on;
}

/* Switches the terminal to style st: its colours alone where the attributes stay (as curses does), else
 * the whole style. */
static void top_out_style(int st)
{
    int was = top_out.st;
    if (st == was)
        return;
    top_out.st = st;
    const char *f = top_out.fg[st], *b = top_out.bg[st];
    if (top_out.attr[st] != top_out.attr[was] || !top_out.op) {
        top_out_add(top_out.style[st], top_out.stylen[st]);
        return;
    }
    if ((!f && top_out.fg[was]) || (!b && top_out.bg[was])) {   /* back to a default colour */
        top_out_add(top_out.op, strlen(top_out.op));
    } else {
        f = f && top_out.fg[was] && !strcmp(f, top_out.fg[was]) ? NULL : f;
        b = b && top_out.bg[was] && !strcmp(b, top_out.bg[was]) ? NULL : b;
    }
    if (f)
        top_out_add(f, strlen(f));
    if (b)
        top_out_add(b, strlen(b));
}

/* ---- laying a line out as cells ---- */

/* Cell x of the line is b (n bytes, b has at least 4), of width w (1, 2). */
static void top_out_cell_any(int x, const char *b, size_t n, enum top_style st, int w)
{
    struct top_cell *r = top_out.row;
    if (r[x].w == 0 && x > 0)   /* over the second half of a wide character: its first half goes */
        r[x - 1] = (struct top_cell){{' '}, 1, TOP_ST_NORMAL, 1, 0};
    if (r[x].w == 2 && x + 1 < top_out.nc)
        r[x + 1] = (struct top_cell){{' '}, 1, TOP_ST_NORMAL, 1, 0};
    memset(&r[x], 0, sizeof r[x]);
    memcpy(r[x].b, b, n);
    r[x].n = (unsigned char)n, r[x].st = (unsigned char)st, r[x].w = (unsigned char)w;
    if (w == 2) {
        if (r[x + 1].w == 2 && x + 2 < top_out.nc)
            r[x + 2] = (struct top_cell){{' '}, 1, TOP_ST_NORMAL, 1, 0};
        r[x + 1] = (struct top_cell){{0}, 0, (unsigned char)st, 0, 0};
    }
}

static inline void top_out_cell(int x, const char *b, size_t n, enum top_style st, int w)
{
    struct top_cell *r = top_out.row;
    if (w == 1 && r[x].w == 1 && n <= 4) {   /* the common case: a narrow character over one */
        struct top_cell c = {{0}, (unsigned char)n, (unsigned char)st, 1, 0};
        memcpy(c.b, b, 4);
        r[x] = c;
        return;
    }
    top_out_cell_any(x, b, n, st, w);
}

/* UTF-8 text as curses lays it out: a character per cell, a wide one over two, a combining one with
 * the character before it (the text was clipped to fit and made printable by top_put). */
static void top_out_utf8(int x, const char *s, size_t len, enum top_style st)
{
    mbstate_t ms;
    memset(&ms, 0, sizeof ms);
    int last = -1;
    for (size_t i = 0; i < len && x < top_out.nc;) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + i, len - i, &ms);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
            memset(&ms, 0, sizeof ms);
            top_out_cell(x, "?\0\0", 1, st, 1);
            last = x++, i++;
            continue;
        }
        int w = wcwidth(wc);
        if (w == 0 && last >= 0) {
            struct top_cell *c = &top_out.row[last];
            int chars = 0;
            for (int j = 0; j < c->n; j++)
                chars += ((unsigned char)c->b[j] & 0xc0) != 0x80;
            if (chars < CCHARW_MAX && c->n + k <= sizeof c->b) {   /* as many as curses keeps, the rest dropped */
                memcpy(c->b + c->n, s + i, k);
                c->n = (unsigned char)(c->n + k);
            }
        } else if (w == 1 || (w == 2 && x + 1 < top_out.nc)) {
            char t[8] = {0};
            memcpy(t, s + i, k < sizeof t ? k : sizeof t);
            top_out_cell(x, t, k < sizeof t ? k : sizeof t, st, w);
            last = x, x += w;
        } else if (w > 0) {
            break;
        }
        i += k;
    }
}

static void top_out_layout(const unsigned char *b, size_t n)
{
    static const char ascii[9] = {' ', '_', '_', '.', '-', '-', '=', '#', '#'};
    bool utf8 = top_term_utf8();
    memcpy(top_out.row, top_out.blank, (size_t)top_out.nc * sizeof *top_out.row);
    for (size_t at = 0; at < n;) {
        struct top_op h;
        memcpy(&h, b + at, sizeof h);
        at += sizeof h;
        const unsigned char *p = b + at;
        enum top_style st = (enum top_style)h.st;
        int end = h.x + h.n < top_out.nc ? h.x + h.n : top_out.nc;
        if (h.op == TOP_OP_TEXT) {
            for (int x = h.x; x < end; x++) {
                char t[4] = {(char)p[x - h.x]};
                top_out_cell(x, t, 1, st, 1);
            }
        } else if (h.op == TOP_OP_UTF8) {
            top_out_utf8(h.x, (const char *)p, h.n, st);
        } else if (h.op == TOP_OP_LEVELS) {
            for (int x = h.x; x < end; x++) {
                unsigned l = p[x - h.x] > 8 ? 8 : p[x - h.x];
                if (!l)
                    continue;   /* blank cells are not drawn */
                char blk[4] = {(char)0xe2, (char)0x96, (char)(0x80 + l)}, a[4] = {ascii[l]};   /* U+2581 ... U+2588 */
                top_out_cell(x, utf8 ? blk : a, utf8 ? 3 : 1, st, 1);
            }
        } else {
            for (int x = h.x; x < end; x++)
                top_out_cell(x, " \0\0", 1, st, 1);
            continue;
        }
        at += h.n;
    }
}

/* ---- sending it ---- */

static void top_out_move(int y, int x)
{
    if (top_out.cy == y && top_out.cx == x)
        return;
    if (top_out.ansi_cup) {
        char t[32], *e = t + sizeof t;
        *--e = 'H';
        unsigned v = (unsigned)x + 1;
        do
            *--e = (char)('0' + v % 10);
        while (v /= 10);
        *--e = ';';
        v = (unsigned)y + 1;
        do
            *--e = (char)('0' + v % 10);
        while (v /= 10);
        *--e = '[';
        *--e = '\033';
        top_out_add(e, (size_t)(t + sizeof t - e));
    } else {
        const char *s = tiparm(top_out.cup, y, x);
        top_out_add(s, strlen(s));
    }
    top_out.cy = y, top_out.cx = x;
}

void top_out_size(int nlines, int ncols)
{
    free(top_out.row);
    free(top_out.shown);
    free(top_out.blank);
    top_out.nl = nlines > 0 ? nlines : 0;
    top_out.nc = ncols > 0 ? ncols : 0;
    top_out.row = xcalloc((size_t)top_out.nc + 1, sizeof *top_out.row);
    top_out.shown = xcalloc((size_t)top_out.nc + 1, sizeof *top_out.shown);
    top_out.blank = xcalloc((size_t)top_out.nc + 1, sizeof *top_out.blank);
    for (int x = 0; x < top_out.nc; x++)
        top_out.blank[x] = (struct top_cell){{' '}, 1, TOP_ST_NORMAL, 1, 0};
}

void top_out_line(int y, const unsigned char *was, size_t wn, const unsigned char *b, size_t n)
{
    if (y < 0 || y >= top_out.nl || !top_out.nc)
        return;
    top_out_layout(was, wn);   /* laid out in row, which then becomes shown */
    struct top_cell *t = top_out.shown;
    top_out.shown = top_out.row;
    top_out.row = t;
    top_out_layout(b, n);
    struct top_cell *old = top_out.shown, *r = top_out.row;
    int nc = top_out.nc, last = nc - 1;
#define TOP_OUT_SAME(k) (!memcmp(&r[k], &old[k], sizeof r[k]))
    while (last >= 0 && r[last].n == 1 && r[last].b[0] == ' ' && r[last].st == TOP_ST_NORMAL)
        last--;   /* the line's last cell that is not a plain blank */
    for (int x = 0;; x++) {
        while (x + 16 <= nc && !memcmp(&r[x], &old[x], 16 * sizeof *r))
            x += 16;   /* equal cells, 16 at a time */
        while (x < nc && TOP_OUT_SAME(x))
            x++;
        if (x >= nc)
            break;
        int s = x, e = x;
        if (s > 0 && old[s].w == 0)
            s--;   /* over half a wide character: from its first half */
        while (s > 0 && r[s].w == 0)
            s--;
        for (int k = x + 1; k < nc && k - e <= TOP_OUT_GAP; k++)
            if (!TOP_OUT_SAME(k))
                e = k;
        if (e + 1 < nc && r[e].w == 2)
            e++;
        top_out_move(y, s);
        bool eol = e > last && top_out.el;   /* the rest of the line is blank: cleared, as curses does */
        if (eol)
            e = last;
        for (int k = s; k <= e; k++) {
            if (r[k].w == 0)
                continue;
            top_out_style(r[k].st);
            top_out_add(r[k].b, r[k].n);
        }
        if (e >= s)   /* at the margin, where it goes next is the terminal's */
            top_out.cx = e + 1 < nc ? e + 1 : -1;
        x = e;
        if (eol) {
            top_out_style(TOP_ST_NORMAL);
            top_out_add(top_out.el, strlen(top_out.el));
            break;
        }
    }
#undef TOP_OUT_SAME
}

void top_out_synced(void)
{
    top_out.cy = top_out.cx = 0;   /* curses left it home, normal */
    top_out.st = TOP_ST_NORMAL;
    top_out.n = 0;
}

void top_out_flush(void)
{
    top_out_style(TOP_ST_NORMAL);
    if (top_out.n)
        top_out_move(0, 0);
    for (size_t at = 0; at < top_out.n;) {
        ssize_t k = write(STDOUT_FILENO, top_out.buf + at, top_out.n - at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {   /* a terminal left non-blocking by another
                                                                       * program: wait, as curses does, or the
                                                                       * screen is not what top believes */
            struct pollfd pf = {STDOUT_FILENO, POLLOUT, 0};
            if (poll(&pf, 1, -1) >= 0 || errno == EINTR)
                continue;
            break;
        }
        if (k <= 0)
            break;   /* the terminal is gone: the UI sees it hang up */
        at += (size_t)k;
    }
    top_out.n = 0;
}
