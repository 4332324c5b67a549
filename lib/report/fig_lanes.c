/* The lane timeline: one window of the trace, each lane split into depth rows so
 * nesting reads top (outer) to bottom (inner). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/figures.h"
#include "report/svg.h"

#define W        760.0
#define LABEL_W  150.0
#define RIGHT    16.0
#define ROW_H    18.0
#define LANE_GAP 8.0

static void slice(sts_sbuf *b, const char *id, const sts_rpt_lanes *l, const sts_rpt_lslice *s, const sts_axis *a,
                  double x0, double x1, double y)
{
    double span = l->t1 - l->t0;
    double s0 = fmax(0, s->ts - l->t0), s1 = fmin(span, s->ts + s->dur - l->t0);
    if (s1 < s0) s1 = s0;
    double px0 = sts_axis_map(a, s0, x0, x1), px1 = sts_axis_map(a, s1, x0, x1);
    double w = fmax(1, px1 - px0);
    char d[48], fit[160];
    sts_fmt_duration(s->dur, d, sizeof d);
    sts_sbuf_puts(b, "<rect class=\"slice\" x=\"");
    sts_svg_num(b, px0);
    sts_sbuf_puts(b, "\" y=\"");
    sts_svg_num(b, y + 1);
    sts_sbuf_puts(b, "\" width=\"");
    sts_svg_num(b, w);
    sts_sbuf_printf(b, "\" height=\"%g\"", ROW_H - 2);
    sts_svg_series_fill(b, id, s->color);
    sts_sbuf_printf(b, " data-lane=\"%u\" data-depth=\"%u\" data-name=\"", s->lane, (unsigned)s->depth);
    sts_sbuf_escs(b, s->name);
    sts_sbuf_printf(b, "\" data-ns=\"%.0f\"><title>", s->dur);
    sts_sbuf_escs(b, s->name);
    sts_sbuf_printf(b, " \xc2\xb7 %s \xc2\xb7 depth %u</title></rect>\n", d, (unsigned)s->depth);
    if (w >= 24 && sts_svg_fit_text(s->name, w - 6, 11, fit, sizeof fit))
        sts_svg_text(b, px0 + 3, y + ROW_H / 2 + 4, "start", "lbl", fit);
}

void sts_rpt_draw_lanes(sts_sbuf *b, const char *id, int standalone, const sts_rpt_lanes *l)
{
    double span = l->t1 > l->t0 ? l->t1 - l->t0 : 0;
    sts_axis a;
    sts_axis_time_exact(&a, 0, span, 6);
    double x0 = LABEL_W + 10, x1 = W - RIGHT;
    double top = 62, y = top;
    double lane_y[256];
    size_t nl = l->nlanes < 256 ? l->nlanes : 256;
    for (size_t i = 0; i < nl; i++) {
        lane_y[i] = y;
        y += l->lanes[i].rows * ROW_H + LANE_GAP;
    }
    double bot = nl ? y - LANE_GAP + 4 : top + 40;
    double h = bot + 48;

    char attrs[240], title[96];
    snprintf(attrs, sizeof attrs,
             "data-lanes=\"%zu\" data-slices=\"%zu\" data-hidden=\"%zu\" data-t0-ns=\"%.0f\" data-t1-ns=\"%.0f\"", nl,
             l->nslices, l->hidden, l->t0, l->t1);
    snprintf(title, sizeof title, "Lanes in the busiest window (nesting shown as rows)");
    sts_svg_open(b, id, W, h, standalone, attrs, title);
    sts_svg_patterns(b, id);
    char sub[400];
    char d[48];
    sts_fmt_duration(span, d, sizeof d);
    snprintf(sub, sizeof sub, "%s \xc2\xb7 %s wide%s", l->window ? l->window : "whole trace", d,
             l->hidden ? " \xc2\xb7 some slices not drawn (see note)" : "");
    sts_svg_text(b, 8, 38, "start", "sub", sub);

    sts_svg_xaxis(b, &a, x0, x1, top - 6, bot, "time since the window starts");
    for (size_t i = 0; i < nl; i++) {
        char fit[160];
        double ly = lane_y[i];
        if (i) {
            sts_sbuf_puts(b, "<line class=\"lane-sep\" x1=\"8\" x2=\"");
            sts_svg_num(b, x1);
            sts_sbuf_puts(b, "\" y1=\"");
            sts_svg_num(b, ly - LANE_GAP / 2);
            sts_sbuf_puts(b, "\" y2=\"");
            sts_svg_num(b, ly - LANE_GAP / 2);
            sts_sbuf_puts(b, "\"/>\n");
        }
        if (!sts_svg_fit_text(l->lanes[i].name, LABEL_W - 8, 12, fit, sizeof fit)) fit[0] = 0;
        sts_sbuf_printf(b, "<g class=\"lane\" data-lane=\"%zu\" data-rows=\"%d\">", i, l->lanes[i].rows);
        sts_sbuf_puts(b, "<title>");
        sts_sbuf_escs(b, l->lanes[i].name);
        sts_sbuf_puts(b, "</title>");
        sts_svg_text(b, 8, ly + ROW_H / 2 + 4, "start", NULL, fit);
        sts_sbuf_puts(b, "</g>\n");
    }
    if (nl == 0) sts_svg_text(b, (x0 + x1) / 2, top + 24, "middle", "sub", "no slices in this trace");
    for (size_t k = 0; k < l->nslices; k++) {
        const sts_rpt_lslice *s = &l->slices[k];
        if (s->lane >= nl || (int)s->depth >= l->lanes[s->lane].rows) continue;
        slice(b, id, l, s, &a, x0, x1, lane_y[s->lane] + s->depth * ROW_H);
    }
    sts_svg_close(b);
}
