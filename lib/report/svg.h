/* report: SVG building blocks shared by the figures: the root element, textures,
 * axes, text and legends. Coordinates are user units (px); every label is a real
 * <text> element so it can be selected and searched. */
#ifndef STS_REPORT_SVG_H
#define STS_REPORT_SVG_H

#include <stddef.h>

#include "base/sbuf.h"
#include "report/measure.h"
#include "report/place.h"
#include "report/scale.h"

/* Opens <svg id=ID class="fig" ...> with a viewBox of w x h. `attrs` (may be NULL) is
 * extra attribute text already escaped ("data-steps=\"4\""). A standalone figure also
 * gets the XML namespace and an embedded copy of the stylesheet. Writes the figure's
 * <title> and the visible title text at the top. */
void sts_svg_open(sts_sbuf *b, const char *id, double w, double h, int standalone, const char *attrs,
                  const char *title);
void sts_svg_close(sts_sbuf *b);
/* The subtitle under the title, cut to the figure's width w; recorded in p (may be NULL). */
void sts_svg_subtitle(sts_sbuf *b, sts_placer *p, double w, const char *text);

/* <defs> with one fill per series (ID-p0 ... ID-p7: colour plus texture) and the
 * texture for unattributed time (ID-rem). */
void sts_svg_patterns(sts_sbuf *b, const char *id);

/* Writes the fill attribute for series i (wrapping at 8): ` fill="url(#ID-pN)"`. */
void sts_svg_series_fill(sts_sbuf *b, const char *id, size_t series);

/* Text at (x, y); anchor is "start", "middle" or "end"; cls may be NULL. */
void sts_svg_text(sts_sbuf *b, double x, double y, const char *anchor, const char *cls, const char *text);
/* The same, also recorded in p (when not NULL) so that labels placed later keep off it. */
void sts_svg_text_rec(sts_sbuf *b, sts_placer *p, double x, double y, const char *anchor, const char *cls,
                      const char *text);

/* A vertical value axis on the left of a plot [x0, x1] x [y_top, y_bot]: gridlines,
 * tick labels, a darker line at zero, and `title` with the unit in parentheses above
 * the axis ("duration (ms)"). Its texts are recorded in p (may be NULL). */
void sts_svg_yaxis(sts_sbuf *b, sts_placer *p, const sts_axis *a, double x0, double x1, double y_top, double y_bot,
                   const char *title);

/* A horizontal value axis below a plot: tick marks, labels and `title (unit)` under
 * them. Gridlines span [y_top, y_bot]. Its texts are recorded in p (may be NULL). */
void sts_svg_xaxis(sts_sbuf *b, sts_placer *p, const sts_axis *a, double x0, double x1, double y_top, double y_bot,
                   const char *title);

/* Width of text in px at `font_px`, regular weight (report/measure.h). */
double sts_svg_text_width(const char *text, double font_px);

/* Copies text into buf (n bytes) cut at its end to fit max_px, regular weight, ending
 * in "…" when cut, and never splitting a UTF-8 character. Returns 0 when not even one
 * character and the ellipsis fit. */
int sts_svg_fit_text(const char *text, double max_px, double font_px, char *buf, size_t n);

/* A legend entry at (x, y) (y: the text's baseline): a 14 px swatch (fill given as raw
 * attribute text, e.g. the output of sts_svg_series_fill, or a class) and a label.
 * Records both in p (may be NULL). Returns the x after the entry. */
double sts_svg_legend_item(sts_sbuf *b, sts_placer *p, double x, double y, const char *swatch_attrs, const char *label);
/* The width a legend entry takes (what sts_svg_legend_item advances x by). */
double sts_svg_legend_width(const char *label);

/* Short numbers in attributes: up to 3 decimals, no trailing zeros. */
void sts_svg_num(sts_sbuf *b, double v);

#endif
