#include "report/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DejaVu Sans advances for U+0020..U+007E, in thousandths of an em, as Chromium lays
 * them out (measured with canvas measureText at 100 px). */
static const unsigned short adv_regular[95] = {
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361,  318, 337, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
    575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635,  611, 732, 684, 989, 685,
    611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352,  635, 634, 278, 278, 579,
    278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,  525, 636, 337, 636, 838,
};
static const unsigned short adv_bold[95] = {
    348, 456,  521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415,  380, 365, 696, 696,  696,
    696, 696,  696, 696, 696, 696,  696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830,  683,
    683, 821,  837, 372, 372, 775,  637, 995, 837, 850, 733, 850, 770, 720,  682, 812, 774, 1103, 771,
    724, 725,  457, 365, 457, 838,  500, 500, 675, 716, 593, 716, 678, 435,  716, 712, 343, 343,  665,
    343, 1042, 712, 687, 716, 716,  493, 595, 478, 712, 652, 924, 645, 652,  582, 712, 365, 712,  838,
};

/* The font's ascent and descent (hhea), which is the box browsers give a text. */
#define ASCENT  0.928
#define DESCENT 0.236

static const char ELLIPSIS[] = "\xe2\x80\xa6";

sts_font sts_font_of(const char *cls)
{
    sts_font f = { 12, 0 };
    if (!cls) return f;
    char buf[64];
    snprintf(buf, sizeof buf, " %s ", cls);
    if (strstr(buf, " ttl ")) {
        f.px = 14;
        f.bold = 1;
    } else if (strstr(buf, " grp ")) {
        f.bold = 1;
    } else if (strstr(buf, " tick ") || strstr(buf, " lbl ")) {
        f.px = 11;
    }
    return f;
}

/* Decodes one character at s; returns its length in bytes (1 for an invalid byte,
 * which the escaper will write as U+FFFD). */
static size_t next_char(const char *s, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = u[0] < 0x80             ? 1
                 : (u[0] & 0xe0) == 0xc0 ? 2
                 : (u[0] & 0xf0) == 0xe0 ? 3
                 : (u[0] & 0xf8) == 0xf0 ? 4
                                         : 0;
    if (len == 0) {
        *cp = 0xfffd;
        return 1;
    }
    unsigned c = len == 1 ? u[0] : len == 2 ? u[0] & 0x1fu : len == 3 ? u[0] & 0x0fu : u[0] & 0x07u;
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            *cp = 0xfffd;
            return 1;
        }
        c = (c << 6) | (u[i] & 0x3fu);
    }
    *cp = c;
    return len;
}

static double char_em(unsigned cp, int bold)
{
    if (cp >= 0x20 && cp < 0x7f) return (bold ? adv_bold : adv_regular)[cp - 0x20] / 1000.0;
    switch (cp) {
    case 0xb5: /* µ */
        return bold ? 0.736 : 0.636;
    case 0xb7: /* · */
        return bold ? 0.38 : 0.318;
    case 0xd7:   /* × */
    case 0x2212: /* − */
        return 0.838;
    case 0x2026: /* … */
    case 0x2014: /* — */
        return 1.0;
    default:
        break;
    }
    if (cp < 0x20) return 0;         /* tab and the like: the escaper keeps them, they take no room */
    return cp < 0x1100 ? 0.84 : 1.0; /* other letters and symbols; wide scripts take an em */
}

double sts_text_width(const char *text, sts_font f)
{
    double em = 0;
    unsigned cp;
    for (const char *p = text ? text : ""; *p;) {
        p += next_char(p, &cp);
        em += char_em(cp, f.bold);
    }
    return em * f.px;
}

sts_box sts_text_box(double x, double y, const char *anchor, sts_font f, const char *text)
{
    double w = sts_text_width(text, f);
    double x0 = x;
    if (anchor && strcmp(anchor, "middle") == 0)
        x0 = x - w / 2;
    else if (anchor && strcmp(anchor, "end") == 0)
        x0 = x - w;
    sts_box b = { x0, y - ASCENT * f.px, x0 + w, y + DESCENT * f.px };
    return b;
}

int sts_box_overlap(const sts_box *a, const sts_box *b, double slack)
{
    double w = (a->x1 < b->x1 ? a->x1 : b->x1) - (a->x0 > b->x0 ? a->x0 : b->x0);
    double h = (a->y1 < b->y1 ? a->y1 : b->y1) - (a->y0 > b->y0 ? a->y0 : b->y0);
    return w > slack && h > slack;
}

/* Liang-Barsky clipping: does any part of the segment lie inside the box? */
int sts_box_hits_segment(const sts_box *b, double x0, double y0, double x1, double y1, double pad)
{
    double dx = x1 - x0, dy = y1 - y0, t0 = 0, t1 = 1;
    double p[4] = { -dx, dx, -dy, dy };
    double q[4] = { x0 - (b->x0 - pad), (b->x1 + pad) - x0, y0 - (b->y0 - pad), (b->y1 + pad) - y0 };
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0) return 0;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) {
            if (t > t1) return 0;
            if (t > t0) t0 = t;
        } else {
            if (t < t0) return 0;
            if (t < t1) t1 = t;
        }
    }
    return t0 <= t1;
}

/* Bytes of the longest prefix of text (whole characters) no wider than px. */
static size_t head_bytes(const char *text, double px, sts_font f, double *used)
{
    size_t i = 0;
    double w = 0;
    unsigned cp;
    while (text[i]) {
        size_t len = next_char(text + i, &cp);
        double cw = char_em(cp, f.bold) * f.px;
        if (w + cw > px) break;
        w += cw;
        i += len;
    }
    if (used) *used = w;
    return i;
}

/* Byte offset where the longest suffix of text (whole characters) no wider than px
 * starts. */
static size_t tail_start(const char *text, double px, sts_font f, double *used)
{
    size_t n = strlen(text), start = n;
    double w = 0;
    while (start > 0) {
        size_t s = start - 1;
        while (s > 0 && ((unsigned char)text[s] & 0xc0) == 0x80)
            s--;
        unsigned cp;
        size_t len = next_char(text + s, &cp);
        if (s + len != start) len = start - s; /* a broken sequence: take it as one */
        double cw = char_em(cp, f.bold) * f.px;
        if (w + cw > px) break;
        w += cw;
        start = s;
    }
    if (used) *used = w;
    return start;
}

/* head bytes of text, "…", text from byte `from`; 0 when it does not fit in n. */
static int join_cut(const char *text, size_t head, size_t from, char *buf, size_t n)
{
    size_t tail = strlen(text + from);
    if (head + 3 + tail + 1 > n) return 0;
    memcpy(buf, text, head);
    memcpy(buf + head, ELLIPSIS, 3);
    memcpy(buf + head + 3, text + from, tail + 1);
    return 1;
}

static int fits_whole(const char *text, double max_px, sts_font f, char *buf, size_t n)
{
    if (sts_text_width(text, f) > max_px || strlen(text) >= n) return 0;
    strcpy(buf, text);
    return 1;
}

int sts_fit_end(const char *text, double max_px, sts_font f, char *buf, size_t n)
{
    if (n == 0) return 0;
    buf[0] = 0;
    if (!text) return 0;
    if (fits_whole(text, max_px, f, buf, n)) return 1;
    double room = max_px - sts_text_width(ELLIPSIS, f);
    size_t head = room > 0 ? head_bytes(text, room, f, NULL) : 0;
    while (head > 0 && head + 4 > n) { /* keep whole characters within the buffer */
        head--;
        while (head > 0 && ((unsigned char)text[head] & 0xc0) == 0x80)
            head--;
    }
    if (head == 0) return 0;
    return join_cut(text, head, strlen(text), buf, n);
}

/* A middle cut giving the end `tail_share` of the room. */
static int cut_middle(const char *text, double max_px, sts_font f, double tail_share, char *buf, size_t n)
{
    if (n == 0) return 0;
    buf[0] = 0;
    if (!text) return 0;
    if (fits_whole(text, max_px, f, buf, n)) return 1;
    double room = max_px - sts_text_width(ELLIPSIS, f), used;
    if (room <= 0) return 0;
    size_t from = tail_start(text, room * tail_share, f, &used);
    size_t head = head_bytes(text, room - used, f, NULL);
    if (head > from) head = from;
    if (head == 0 && from == strlen(text)) return 0;
    if (!join_cut(text, head, from, buf, n)) return sts_fit_end(text, max_px, f, buf, n);
    return 1;
}

int sts_fit_middle(const char *text, double max_px, sts_font f, char *buf, size_t n)
{
    return cut_middle(text, max_px, f, 2.0 / 3.0, buf, n);
}

/* Index of another label equal to label i whose name differs from name i; n if none. */
static size_t clash(const char *const *names, size_t n, const char *out, size_t stride, size_t i)
{
    for (size_t j = 0; j < n; j++)
        if (j != i && strcmp(out + i * stride, out + j * stride) == 0 && strcmp(names[i], names[j]) != 0) return j;
    return n;
}

/* Bytes the two names share at their start. */
static size_t common_prefix(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    while (i > 0 && ((unsigned char)a[i] & 0xc0) == 0x80) /* back to a character start */
        i--;
    return i;
}

int sts_fit_unique(const char *const *names, size_t n, double max_px, sts_font f, char *out, size_t stride)
{
    for (size_t i = 0; i < n; i++)
        sts_fit_middle(names[i], max_px, f, out + i * stride, stride);
    char *alt = malloc(stride ? stride : 1);
    if (!alt) return 0;
    static const double shares[] = { 0.5, 1.0 / 3.0, 0.85, 1.0, 0.15 };
    for (size_t i = 0; i < n; i++) {
        size_t j = clash(names, n, out, stride, i);
        if (j == n) continue;
        /* Move the cut: another split of the room may tell them apart. */
        int fixed = 0;
        for (size_t k = 0; k < sizeof shares / sizeof shares[0] && !fixed; k++) {
            cut_middle(names[i], max_px, f, shares[k], alt, stride);
            int ok = 1;
            for (size_t m = 0; m < n && ok; m++)
                if (m != i && strcmp(names[m], names[i]) != 0 && strcmp(alt, out + m * stride) == 0) ok = 0;
            if (ok) {
                strcpy(out + i * stride, alt);
                fixed = 1;
            }
        }
        if (fixed) continue;
        /* Show where the two differ: "…" then the name from a little before that. */
        size_t p = common_prefix(names[i], names[j]);
        size_t from = p > 3 ? p - 3 : 0;
        while (from > 0 && ((unsigned char)names[i][from] & 0xc0) == 0x80)
            from--;
        char *tmp = malloc(strlen(names[i]) + 4);
        if (tmp) {
            memcpy(tmp, ELLIPSIS, 3);
            strcpy(tmp + 3, names[i] + from);
            sts_fit_end(tmp, max_px, f, alt, stride);
            free(tmp);
            int ok = alt[0] != 0;
            for (size_t m = 0; m < n && ok; m++)
                if (m != i && strcmp(names[m], names[i]) != 0 && strcmp(alt, out + m * stride) == 0) ok = 0;
            if (ok) {
                strcpy(out + i * stride, alt);
                continue;
            }
        }
        /* Last resort: number it. */
        char num[24];
        snprintf(num, sizeof num, " #%zu", i + 1);
        sts_fit_middle(names[i], max_px - sts_text_width(num, f), f, alt, stride);
        if (strlen(alt) + strlen(num) < stride) {
            strcat(alt, num);
            strcpy(out + i * stride, alt);
        }
    }
    free(alt);
    return 1;
}
