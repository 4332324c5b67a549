/* The lane timeline: one window of the trace, each lane split into depth rows so
 * nesting reads top (outer) to bottom (inner). */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "report/figures.h"
#include "report/svg.h"

#define W         760.0
#define LABEL_MIN 110.0
#define LABEL_MAX 210.0
#define INDENT    10.0 /* lane names under their process heading */
#define GROUP_H   20.0
#define RIGHT     16.0
#define ROW_H     18.0
#define LANE_GAP  8.0

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
    if (w >= 24 && sts_fit_end(s->name, w - 6, sts_font_of("lbl"), fit, sizeof fit))
        sts_svg_text(b, px0 + 3, y + ROW_H / 2 + 4, "start", "lbl", fit);
}

/* The stack the window sits inside, as one row: how deep, and the innermost frame. */
static void enclosing_row(sts_sbuf *b, const char *id, const sts_rpt_lane *ln, double x0, double x1, double y)
{
    const char *names = ln->enclosing_names ? ln->enclosing_names : "";
    const char *inner = names;
    for (const char *p = names; (p = strstr(p, " \xe2\x80\xba ")) != NULL; p += 5)
        inner = p + 5;
    sts_sbuf_printf(b, "<rect class=\"encl\" data-depths=\"%d\" x=\"", ln->enclosing);
    sts_svg_num(b, x0);
    sts_sbuf_puts(b, "\" y=\"");
    sts_svg_num(b, y + 1);
    sts_sbuf_puts(b, "\" width=\"");
    sts_svg_num(b, x1 - x0);
    sts_sbuf_printf(b,
                    "\" height=\"%g\" fill=\"url(#%s-rem)\"><title>%d enclosing slices, each spanning the whole window "
                    "(outermost first): ",
                    ROW_H - 2, id, ln->enclosing);
    sts_sbuf_escs(b, names);
    sts_sbuf_puts(b, "</title></rect>\n");
    char text[512], fit[512];
    snprintf(text, sizeof text, "%d enclosing slices \xc2\xb7 innermost: %s", ln->enclosing, inner);
    if (sts_fit_end(text, x1 - x0 - 6, sts_font_of("lbl"), fit, sizeof fit))
        sts_svg_text(b, x0 + 3, y + ROW_H / 2 + 4, "start", "lbl", fit);
}

static void sep(sts_sbuf *b, double x0, double x1, double y)
{
    sts_sbuf_puts(b, "<line class=\"lane-sep\" x1=\"");
    sts_svg_num(b, x0);
    sts_sbuf_puts(b, "\" x2=\"");
    sts_svg_num(b, x1);
    sts_sbuf_puts(b, "\" y1=\"");
    sts_svg_num(b, y);
    sts_sbuf_puts(b, "\" y2=\"");
    sts_svg_num(b, y);
    sts_sbuf_puts(b, "\"/>\n");
}

static int new_group(const sts_rpt_lanes *l, size_t i)
{
    const char *g = l->lanes[i].group;
    if (!g || !*g) return 0;
    return i == 0 || !l->lanes[i - 1].group || strcmp(l->lanes[i - 1].group, g) != 0;
}

/* The label column: as wide as the widest lane name needs, within bounds. */
static double label_width(const sts_rpt_lanes *l, size_t nl)
{
    double w = 0;
    for (size_t i = 0; i < nl; i++)
        w = fmax(w, sts_text_width(l->lanes[i].name, sts_font_of(NULL)) + (l->lanes[i].group ? INDENT : 0));
    return fmin(LABEL_MAX, fmax(LABEL_MIN, w + 8));
}

void sts_rpt_draw_lanes(sts_sbuf *b, const char *id, int standalone, const sts_rpt_lanes *l)
{
    double span = l->t1 > l->t0 ? l->t1 - l->t0 : 0;
    sts_axis a;
    sts_axis_time_exact(&a, 0, span, 6);
    size_t nl = l->nlanes < 256 ? l->nlanes : 256;
    double label_w = label_width(l, nl);
    double x0 = label_w + 14, x1 = W - RIGHT;
    double top = 62, y = top;
    double lane_y[256], group_y[256];
    for (size_t i = 0; i < nl; i++) {
        group_y[i] = -1;
        if (new_group(l, i)) {
            group_y[i] = y;
            y += GROUP_H;
        }
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
    sts_svg_subtitle(b, NULL, W, sub);

    sts_svg_xaxis(b, NULL, &a, x0, x1, top - 6, bot, "time since the window starts");
    /* Lane names are cut in the middle, never two to the same text; the tooltip has
     * the whole name and its process. */
    enum { NAME = 200 };
    const char **names = nl ? malloc(nl * sizeof *names) : NULL;
    char *cut = nl ? calloc(nl, NAME) : NULL;
    if (names && cut) {
        for (size_t i = 0; i < nl; i++)
            names[i] = l->lanes[i].name ? l->lanes[i].name : "";
        /* Uniqueness is over the whole figure: lanes of two processes may share a name,
         * and their headings are not beside every row. */
        sts_fit_unique(names, nl, label_w - 8 - INDENT, sts_font_of(NULL), cut, NAME);
        for (size_t i = 0; i < nl; i++)
            if (!l->lanes[i].group && sts_text_width(names[i], sts_font_of(NULL)) <= label_w - 8)
                snprintf(cut + i * NAME, NAME, "%s", names[i]); /* no heading: no indent to give up */
    }
    for (size_t i = 0; i < nl; i++) {
        const sts_rpt_lane *ln = &l->lanes[i];
        double ly = lane_y[i];
        if (group_y[i] >= 0) {
            char fit[NAME];
            if (i) sep(b, 8, x1, group_y[i] - LANE_GAP / 2);
            if (!sts_fit_middle(ln->group, x1 - 8, sts_font_of("grp"), fit, sizeof fit)) fit[0] = 0;
            sts_sbuf_puts(b, "<g class=\"lane-group\"><title>");
            sts_sbuf_escs(b, ln->group);
            sts_sbuf_puts(b, "</title>");
            sts_svg_text(b, 8, group_y[i] + 13, "start", "grp", fit);
            sts_sbuf_puts(b, "</g>\n");
        } else if (i) {
            sep(b, ln->group ? 8 + INDENT : 8, x1, ly - LANE_GAP / 2);
        }
        sts_sbuf_printf(b, "<g class=\"lane\" data-lane=\"%zu\" data-rows=\"%d\">", i, ln->rows);
        sts_sbuf_puts(b, "<title>");
        sts_sbuf_escs(b, ln->name);
        if (ln->group) {
            sts_sbuf_puts(b, " \xc2\xb7 ");
            sts_sbuf_escs(b, ln->group);
        }
        sts_sbuf_puts(b, "</title>");
        sts_svg_text(b, ln->group ? 8 + INDENT : 8, ly + ROW_H / 2 + 4, "start", NULL, cut ? cut + i * NAME : "");
        sts_sbuf_puts(b, "</g>\n");
    }
    free(names);
    free(cut);
    if (nl == 0) sts_svg_text(b, (x0 + x1) / 2, top + 24, "middle", "sub", "no slices in this trace");
    for (size_t i = 0; i < nl; i++)
        if (l->lanes[i].enclosing) enclosing_row(b, id, &l->lanes[i], x0, x1, lane_y[i]);
    for (size_t k = 0; k < l->nslices; k++) {
        const sts_rpt_lslice *s = &l->slices[k];
        if (s->lane >= nl) continue;
        const sts_rpt_lane *ln = &l->lanes[s->lane];
        int row = (int)s->depth - ln->enclosing + (ln->enclosing ? 1 : 0);
        if (row < 0 || row >= ln->rows) continue;
        slice(b, id, l, s, &a, x0, x1, lane_y[s->lane] + row * ROW_H);
    }
    sts_svg_close(b);
}
