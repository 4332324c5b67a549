/* report: how much room text takes, and cutting names to the room there is.
 *
 * The layout never asks a browser: it estimates each label's box from its font and
 * characters, with DejaVu Sans's advance widths. That is the widest face the page's
 * font stack resolves to on common systems (Segoe UI, Roboto, Helvetica and Arial are
 * narrower), so a label laid out to fit here fits wherever the page is opened. The
 * tests check the figures with the same estimate, and tests/browser measures the real
 * boxes. */
#ifndef STS_REPORT_MEASURE_H
#define STS_REPORT_MEASURE_H

#include <stddef.h>

typedef struct sts_font {
    double px;
    int bold;
} sts_font;

/* The font a figure's CSS gives a <text> of class `cls` (see style.c): "ttl" is 14 px
 * bold, "grp" 12 px bold, "tick" and "lbl" 11 px, anything else (NULL included) 12 px. */
sts_font sts_font_of(const char *cls);

/* Advance width of UTF-8 text in px. */
double sts_text_width(const char *text, sts_font f);

typedef struct sts_box {
    double x0, y0, x1, y1; /* x0 <= x1, y0 <= y1 */
} sts_box;

/* The box of a <text> at (x, y) (y is the baseline) with text-anchor `anchor` ("start",
 * "middle", "end"; NULL is start): its advance across, the font's ascent and descent
 * up and down. */
sts_box sts_text_box(double x, double y, const char *anchor, sts_font f, const char *text);

/* Non-zero when a and b overlap by more than `slack` px in both directions. */
int sts_box_overlap(const sts_box *a, const sts_box *b, double slack);

/* Non-zero when the segment (x0,y0)-(x1,y1) passes through box (grown by `pad`). */
int sts_box_hits_segment(const sts_box *b, double x0, double y0, double x1, double y1, double pad);

/* Copies text into buf (n bytes), cut at its end to fit max_px with "…" when it does
 * not fit, never splitting a UTF-8 character. Returns 0 (and "") when not even one
 * character and the ellipsis fit. */
int sts_fit_end(const char *text, double max_px, sts_font f, char *buf, size_t n);

/* Like sts_fit_end, but cut in the middle: the start and the end stay, "…" between.
 * Names of threads, streams and functions differ at their ends
 * ("tf_pjrt_thread_pool/-2878…", "<lambda> (train.py:104)"), so the end is kept
 * (about two thirds of the room). */
int sts_fit_middle(const char *text, double max_px, sts_font f, char *buf, size_t n);

/* Cuts n names to max_px each (sts_fit_middle), into out[i * stride] (stride bytes
 * each), so that different names never read the same: where two cuts collide, the
 * cut moves to show where the names differ, and as a last resort a number is added.
 * Equal names stay equal. Returns 0 on no memory (out is then cut without the
 * guarantee). */
int sts_fit_unique(const char *const *names, size_t n, double max_px, sts_font f, char *out, size_t stride);

#endif
