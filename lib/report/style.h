/* report: the stylesheet shared by the HTML page and every standalone SVG. */
#ifndef STS_REPORT_STYLE_H
#define STS_REPORT_STYLE_H

#include "base/sbuf.h"

/* Number of distinct series fills: the eight Okabe-Ito colours, each also given its
 * own texture so no distinction rests on colour alone. */
#define STS_RPT_NSERIES 8

/* CSS for figures: colour variables for light and dark schemes and the classes the
 * SVG marks use. Valid both in an HTML <style> and inside an SVG <style>. */
void sts_rpt_css_figures(sts_sbuf *b);

/* CSS for the page around the figures (layout, tables, notes). */
void sts_rpt_css_page(sts_sbuf *b);

#endif
