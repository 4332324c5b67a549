/* report: a small label placer. A figure records what it has drawn that a label must
 * not cover (points, reference lines, other labels, axis text), then places each
 * movable label at the first of its candidate positions that is free, or leaves it
 * out (its value stays in the mark's tooltip). Labels never overlap marks or each
 * other by rule, not by per-figure nudges. */
#ifndef STS_REPORT_PLACE_H
#define STS_REPORT_PLACE_H

#include <stddef.h>

#include "base/sbuf.h"
#include "report/measure.h"

typedef struct sts_seg {
    double x0, y0, x1, y1;
} sts_seg;

typedef struct sts_placer {
    sts_box area; /* labels must lie inside it (the figure) */
    sts_box *boxes;
    size_t nboxes, capboxes;
    sts_seg *segs;
    size_t nsegs, capsegs;
    int oom; /* a record was lost: every later placement fails, so nothing is drawn over it */
} sts_placer;

/* A placer for a figure of w x h px; release with sts_placer_release(). */
void sts_placer_init(sts_placer *p, double w, double h);
void sts_placer_release(sts_placer *p);

/* Records a box or a line that labels must keep off. */
void sts_placer_box(sts_placer *p, sts_box b);
void sts_placer_seg(sts_placer *p, double x0, double y0, double x1, double y1);
/* Records a text that is drawn where it is (axis labels, titles). */
void sts_placer_text(sts_placer *p, double x, double y, const char *anchor, const char *cls, const char *text);

/* Non-zero when b lies inside the area and overlaps nothing recorded (1 px apart). */
int sts_placer_free(const sts_placer *p, const sts_box *b);

/* A candidate position for a label: (x, y) and the anchor, as for sts_svg_text. */
typedef struct sts_spot {
    double x, y;
    const char *anchor;
} sts_spot;

/* Draws text (class cls) at the first free spot, records it and returns that spot's
 * index; -1 (nothing drawn) when none is free. */
int sts_place_text(sts_placer *p, sts_sbuf *b, const sts_spot *spots, size_t n, const char *cls, const char *text);

/* Spreads labels along one axis: y[i] are wanted centres, moved as little as needed
 * so that neighbours are at least `gap` apart, all within [lo, hi] when they fit
 * there (else from lo down). Order is kept. */
void sts_spread(double *y, size_t n, double gap, double lo, double hi);

#endif
