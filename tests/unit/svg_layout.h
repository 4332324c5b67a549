/* Reads a figure's SVG back and checks its layout as a reader would see it, with the
 * same text estimate the layout uses (report/measure.h):
 *   - every text lies inside the figure;
 *   - no two texts overlap;
 *   - no text covers a point (circle, square), a data line (polyline), a reference
 *     line (median, dispatch, step total, zero mark, pairs) or an axis line;
 *   - a text that sits on a bar or slice lies wholly inside it.
 * svg_layout_problems() returns the number of problems and prints each one. */
#ifndef STS_TEST_SVG_LAYOUT_H
#define STS_TEST_SVG_LAYOUT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/measure.h"

typedef struct lay_text {
    sts_box box;
    char text[512];
} lay_text;

typedef struct lay_mark {
    sts_box box; /* rects and points */
    double *pts; /* segments: x0 y0 x1 y1 ... (polyline vertices) */
    size_t npts; /* vertices */
    int kind;    /* 0 point, 1 line(s), 2 bar or slice */
    char cls[64];
} lay_mark;

/* key inside [p, end), or NULL. Bounded, unlike strstr on the rest of the document,
 * which made reading a figure quadratic (and slow under ASan, whose strstr measures
 * the whole haystack on every call). */
static const char *lay_find(const char *p, const char *end, const char *key)
{
    return end > p ? memmem(p, (size_t)(end - p), key, strlen(key)) : NULL;
}

/* The value of attribute `name` in the tag starting at `tag` (up to its '>'), or def. */
static double lay_attr_num(const char *tag, const char *end, const char *name, double def)
{
    char key[40];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *p = lay_find(tag, end, key);
    if (!p) return def;
    return strtod(p + strlen(key), NULL);
}

static void lay_attr_str(const char *tag, const char *end, const char *name, char *out, size_t n)
{
    char key[40];
    snprintf(key, sizeof key, " %s=\"", name);
    out[0] = 0;
    const char *p = lay_find(tag, end, key);
    if (!p) return;
    p += strlen(key);
    const char *q = strchr(p, '"');
    if (!q) return;
    size_t len = (size_t)(q - p) < n - 1 ? (size_t)(q - p) : n - 1;
    memcpy(out, p, len);
    out[len] = 0;
}

static int lay_has_class(const char *cls, const char *c)
{
    char a[80], b[40];
    snprintf(a, sizeof a, " %s ", cls);
    snprintf(b, sizeof b, " %s ", c);
    return strstr(a, b) != NULL;
}

/* Text content with the five XML entities decoded. */
static void lay_decode(const char *p, const char *end, char *out, size_t n)
{
    static const char *const ent[][2] = {
        { "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" }, { "&quot;", "\"" }, { "&#39;", "'" }
    };
    size_t k = 0;
    while (p < end && k + 2 < n) {
        int done = 0;
        for (size_t e = 0; e < 5 && *p == '&'; e++) {
            size_t l = strlen(ent[e][0]);
            if ((size_t)(end - p) >= l && strncmp(p, ent[e][0], l) == 0) {
                out[k++] = ent[e][1][0];
                p += l;
                done = 1;
                break;
            }
        }
        if (!done) out[k++] = *p++;
    }
    out[k] = 0;
}

typedef struct lay_fig {
    double w, h;
    lay_text *texts;
    size_t ntexts;
    lay_mark *marks;
    size_t nmarks;
} lay_fig;

static void lay_free(lay_fig *f)
{
    for (size_t i = 0; i < f->nmarks; i++)
        free(f->marks[i].pts);
    free(f->texts);
    free(f->marks);
}

static void lay_read(const char *svg, lay_fig *f)
{
    memset(f, 0, sizeof *f);
    const char *vb = strstr(svg, "viewBox=\"0 0 ");
    if (vb) sscanf(vb + 13, "%lf %lf", &f->w, &f->h);
    size_t cap = 0;
    for (const char *p = svg; (p = strchr(p, '<')) != NULL; p++)
        cap++;
    f->texts = calloc(cap + 1, sizeof *f->texts);
    f->marks = calloc(cap + 1, sizeof *f->marks);
    /* <title> and <defs> content is not drawn. */
    for (const char *p = svg; (p = strchr(p, '<')) != NULL; p++) {
        const char *end = strchr(p, '>');
        if (!end) break;
        if (strncmp(p, "<defs", 5) == 0) {
            const char *q = strstr(p, "</defs>");
            if (q) p = q;
            continue;
        }
        char cls[64];
        lay_attr_str(p, end, "class", cls, sizeof cls);
        if (strncmp(p, "<text ", 6) == 0) {
            const char *close = strstr(end, "</text>");
            if (!close) break;
            lay_text *t = &f->texts[f->ntexts++];
            char anchor[16];
            lay_attr_str(p, end, "text-anchor", anchor, sizeof anchor);
            lay_decode(end + 1, close, t->text, sizeof t->text);
            t->box = sts_text_box(lay_attr_num(p, end, "x", 0), lay_attr_num(p, end, "y", 0),
                                  anchor[0] ? anchor : "start", sts_font_of(cls), t->text);
            p = close;
        } else if (strncmp(p, "<circle ", 8) == 0 && !lay_has_class(cls, "dot")) {
            lay_mark *m = &f->marks[f->nmarks++];
            double cx = lay_attr_num(p, end, "cx", 0), cy = lay_attr_num(p, end, "cy", 0),
                   r = lay_attr_num(p, end, "r", 0);
            m->box = (sts_box){ cx - r, cy - r, cx + r, cy + r };
            snprintf(m->cls, sizeof m->cls, "%s", cls);
        } else if (strncmp(p, "<rect ", 6) == 0 &&
                   (lay_has_class(cls, "pt2") || lay_has_class(cls, "bar") || lay_has_class(cls, "slice") ||
                    lay_has_class(cls, "busy") || lay_has_class(cls, "win") || lay_has_class(cls, "encl"))) {
            lay_mark *m = &f->marks[f->nmarks++];
            double x = lay_attr_num(p, end, "x", 0), y = lay_attr_num(p, end, "y", 0);
            m->box = (sts_box){ x, y, x + lay_attr_num(p, end, "width", 0), y + lay_attr_num(p, end, "height", 0) };
            m->kind = lay_has_class(cls, "pt2") ? 0 : 2;
            snprintf(m->cls, sizeof m->cls, "%s", cls);
        } else if (strncmp(p, "<line ", 6) == 0 &&
                   (lay_has_class(cls, "med") || lay_has_class(cls, "ref") || lay_has_class(cls, "tot") ||
                    lay_has_class(cls, "zbar") || lay_has_class(cls, "pair") || lay_has_class(cls, "axis"))) {
            lay_mark *m = &f->marks[f->nmarks++];
            m->kind = 1;
            m->pts = malloc(4 * sizeof *m->pts);
            m->npts = 2;
            m->pts[0] = lay_attr_num(p, end, "x1", 0);
            m->pts[1] = lay_attr_num(p, end, "y1", 0);
            m->pts[2] = lay_attr_num(p, end, "x2", 0);
            m->pts[3] = lay_attr_num(p, end, "y2", 0);
            snprintf(m->cls, sizeof m->cls, "%s", cls);
        } else if (strncmp(p, "<polyline ", 10) == 0) {
            lay_mark *m = &f->marks[f->nmarks++];
            m->kind = 1;
            const char *q = lay_find(p, end, "points=\"");
            size_t cap2 = 16;
            m->pts = malloc(cap2 * 2 * sizeof *m->pts);
            for (q = q ? q + 8 : end; q < end && *q != '"';) {
                char *e1, *e2;
                double x = strtod(q, &e1);
                if (e1 == q || *e1 != ',') break;
                double y = strtod(e1 + 1, &e2);
                if (m->npts == cap2) m->pts = realloc(m->pts, (cap2 *= 2) * 2 * sizeof *m->pts);
                m->pts[2 * m->npts] = x;
                m->pts[2 * m->npts + 1] = y;
                m->npts++;
                q = e2;
                while (*q == ' ')
                    q++;
            }
            snprintf(m->cls, sizeof m->cls, "%s", cls);
        }
        p = end;
    }
}

static size_t svg_layout_problems(const char *svg, const char *what)
{
    lay_fig f;
    lay_read(svg, &f);
    size_t bad = 0;
    for (size_t i = 0; i < f.ntexts; i++) {
        const lay_text *t = &f.texts[i];
        if (!t->text[0]) continue;
        const sts_box *a = &t->box;
        if (a->x0 < -0.5 || a->y0 < -0.5 || a->x1 > f.w + 0.5 || a->y1 > f.h + 0.5) {
            fprintf(stderr, "  %s: \"%s\" [%.1f,%.1f]-[%.1f,%.1f] leaves the figure (%gx%g)\n", what, t->text, a->x0,
                    a->y0, a->x1, a->y1, f.w, f.h);
            bad++;
        }
        for (size_t j = i + 1; j < f.ntexts; j++) {
            if (!f.texts[j].text[0] || !sts_box_overlap(a, &f.texts[j].box, 0.5)) continue;
            fprintf(stderr, "  %s: \"%s\" overlaps \"%s\"\n", what, t->text, f.texts[j].text);
            bad++;
        }
        for (size_t k = 0; k < f.nmarks; k++) {
            const lay_mark *m = &f.marks[k];
            if (m->kind == 0 && sts_box_overlap(a, &m->box, 0.5)) {
                fprintf(stderr, "  %s: \"%s\" covers a point (%s at %.1f,%.1f)\n", what, t->text, m->cls,
                        (m->box.x0 + m->box.x1) / 2, (m->box.y0 + m->box.y1) / 2);
                bad++;
            } else if (m->kind == 1) {
                for (size_t s = 0; s + 1 < m->npts; s++) {
                    if (!sts_box_hits_segment(a, m->pts[2 * s], m->pts[2 * s + 1], m->pts[2 * s + 2], m->pts[2 * s + 3],
                                              -0.5))
                        continue;
                    fprintf(stderr, "  %s: \"%s\" crosses a %s line\n", what, t->text, m->cls);
                    bad++;
                    break;
                }
            } else if (m->kind == 2 && sts_box_overlap(a, &m->box, 0.5)) {
                int inside = a->x0 >= m->box.x0 - 1 && a->x1 <= m->box.x1 + 1 && a->y0 >= m->box.y0 - 1 &&
                             a->y1 <= m->box.y1 + 1;
                if (!inside) {
                    fprintf(stderr, "  %s: \"%s\" straddles the edge of a %s\n", what, t->text, m->cls);
                    bad++;
                }
            }
        }
    }
    lay_free(&f);
    return bad;
}

/* The texts of one figure whose class list holds `cls` (NULL: any), in order, one per
 * line in out (NUL-separated), for tests on label sets; returns how many. */
static inline size_t svg_texts(const char *svg, const char *cls, char out[][512], size_t max)
{
    size_t n = 0;
    for (const char *p = svg; (p = strstr(p, "<text ")) != NULL && n < max; p++) {
        const char *end = strchr(p, '>'), *close = end ? strstr(end, "</text>") : NULL;
        if (!close) break;
        char c[64];
        lay_attr_str(p, end, "class", c, sizeof c);
        if (!cls || lay_has_class(c, cls)) lay_decode(end + 1, close, out[n++], 512);
        p = close;
    }
    return n;
}

#endif
