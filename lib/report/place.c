#include "report/place.h"

#include <stdlib.h>
#include <string.h>

#include "report/svg.h"

/* Labels keep this far from what they must not touch. */
#define CLEARANCE 1.0

void sts_placer_init(sts_placer *p, double w, double h)
{
    memset(p, 0, sizeof *p);
    p->area.x1 = w;
    p->area.y1 = h;
}

void sts_placer_release(sts_placer *p)
{
    free(p->boxes);
    free(p->segs);
    memset(p, 0, sizeof *p);
}

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 1;
    size_t c = *cap ? *cap * 2 : 32;
    void *n = realloc(*v, c * size);
    if (!n) return 0;
    *v = n;
    *cap = c;
    return 1;
}

void sts_placer_box(sts_placer *p, sts_box b)
{
    if (!grow((void **)&p->boxes, &p->capboxes, p->nboxes + 1, sizeof *p->boxes)) {
        p->oom = 1;
        return;
    }
    p->boxes[p->nboxes++] = b;
}

void sts_placer_seg(sts_placer *p, double x0, double y0, double x1, double y1)
{
    if (!grow((void **)&p->segs, &p->capsegs, p->nsegs + 1, sizeof *p->segs)) {
        p->oom = 1;
        return;
    }
    sts_seg s = { x0, y0, x1, y1 };
    p->segs[p->nsegs++] = s;
}

void sts_placer_text(sts_placer *p, double x, double y, const char *anchor, const char *cls, const char *text)
{
    sts_placer_box(p, sts_text_box(x, y, anchor, sts_font_of(cls), text));
}

int sts_placer_free(const sts_placer *p, const sts_box *b)
{
    if (p->oom) return 0;
    if (b->x0 < p->area.x0 || b->y0 < p->area.y0 || b->x1 > p->area.x1 || b->y1 > p->area.y1) return 0;
    for (size_t i = 0; i < p->nboxes; i++) {
        sts_box g = p->boxes[i];
        g.x0 -= CLEARANCE;
        g.y0 -= CLEARANCE;
        g.x1 += CLEARANCE;
        g.y1 += CLEARANCE;
        if (sts_box_overlap(b, &g, 0)) return 0;
    }
    for (size_t i = 0; i < p->nsegs; i++) {
        const sts_seg *s = &p->segs[i];
        if (sts_box_hits_segment(b, s->x0, s->y0, s->x1, s->y1, CLEARANCE)) return 0;
    }
    return 1;
}

int sts_place_text(sts_placer *p, sts_sbuf *b, const sts_spot *spots, size_t n, const char *cls, const char *text)
{
    sts_font f = sts_font_of(cls);
    for (size_t i = 0; i < n; i++) {
        sts_box box = sts_text_box(spots[i].x, spots[i].y, spots[i].anchor, f, text);
        if (!sts_placer_free(p, &box)) continue;
        sts_placer_box(p, box);
        sts_svg_text(b, spots[i].x, spots[i].y, spots[i].anchor, cls, text);
        return (int)i;
    }
    return -1;
}

void sts_spread(double *y, size_t n, double gap, double lo, double hi)
{
    if (n == 0) return;
    size_t *ix = malloc(n * sizeof *ix);
    if (!ix) return;
    for (size_t i = 0; i < n; i++) { /* insertion sort by wanted position: n is a handful */
        size_t k = i;
        while (k > 0 && y[ix[k - 1]] > y[i]) {
            ix[k] = ix[k - 1];
            k--;
        }
        ix[k] = i;
    }
    for (size_t k = 0; k < n; k++) {
        double *v = &y[ix[k]];
        if (*v < lo) *v = lo;
        if (*v > hi) *v = hi;
        if (k > 0 && *v < y[ix[k - 1]] + gap) *v = y[ix[k - 1]] + gap;
    }
    if (y[ix[n - 1]] > hi) {
        y[ix[n - 1]] = hi;
        for (size_t k = n - 1; k-- > 0;)
            if (y[ix[k]] > y[ix[k + 1]] - gap) y[ix[k]] = y[ix[k + 1]] - gap;
    }
    if (y[ix[0]] < lo) { /* more than fit: from lo down, evenly */
        y[ix[0]] = lo;
        for (size_t k = 1; k < n; k++)
            if (y[ix[k]] < y[ix[k - 1]] + gap) y[ix[k]] = y[ix[k - 1]] + gap;
    }
    free(ix);
}
