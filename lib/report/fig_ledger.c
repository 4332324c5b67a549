/* The ledger figures: traces and compiles caused by each call, and compile time per
 * function. A zero is an observation (the call reused a specialization), so zero
 * bars get a visible mark and a written "0" (lesson 2). Rows from a compile log are
 * only misses, and the figure says so instead of explaining zeros. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "report/figures.h"
#include "report/svg.h"

#define W 760.0

static void vbar(sts_sbuf *b, const char *id, size_t series, double x, double bw, double y0, double y1)
{
    double top = fmin(y0, y1), h = fabs(y1 - y0);
    sts_sbuf_puts(b, "<rect class=\"bar\" x=\"");
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" y=\"");
    sts_svg_num(b, top);
    sts_sbuf_puts(b, "\" width=\"");
    sts_svg_num(b, bw);
    sts_sbuf_puts(b, "\" height=\"");
    sts_svg_num(b, h);
    sts_sbuf_puts(b, "\"");
    sts_svg_series_fill(b, id, series);
}

void sts_rpt_draw_ledger_calls(sts_sbuf *b, const char *id, int standalone, const sts_rpt_ledger_calls *c)
{
    int have_t = 0, have_c = 0;
    double hi = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (isfinite(c->traces[i])) have_t = 1, hi = fmax(hi, c->traces[i]);
        if (isfinite(c->compiles[i])) have_c = 1, hi = fmax(hi, c->compiles[i]);
    }
    sts_axis a;
    /* Headroom above the tallest bar keeps its written value inside the plot. */
    sts_axis_count(&a, 0, fmax(hi, 1) * 1.1, 4);
    const double x0 = 64, x1 = W - 16, top = 100, bot = 300;
    char attrs[160];
    snprintf(attrs, sizeof attrs, "data-calls=\"%zu\" data-traces=\"%d\" data-compiles=\"%d\"", c->n, have_t, have_c);
    sts_svg_open(b, id, W, bot + 52, standalone, attrs,
                 c->from_log ? "New traces and compiles per logged specialization"
                             : "New traces and compiles caused by each call");
    sts_svg_patterns(b, id);
    /* A log holds only misses: no bar of it says anything about reuse. */
    sts_placer pl;
    sts_placer_init(&pl, W, bot + 52);
    sts_svg_subtitle(b, &pl, W,
                     c->from_log
                         ? "A count per log record, not a time. Calls that reused a specialization are not in "
                           "compile logs."
                         : "A count per call, not a time. Zero means the call reused an existing specialization.");
    char sw[96];
    double lx = x0;
    const size_t S_TRACE = 4, S_COMPILE = 0;
    if (have_t) {
        snprintf(sw, sizeof sw, "fill=\"url(#%s-p%zu)\"", id, S_TRACE);
        lx = sts_svg_legend_item(b, &pl, lx, 58, sw, "new traces");
    }
    if (have_c) {
        snprintf(sw, sizeof sw, "fill=\"url(#%s-p%zu)\"", id, S_COMPILE);
        sts_svg_legend_item(b, &pl, lx, 58, sw, "new compiles");
    }
    sts_svg_yaxis(b, &pl, &a, x0, x1, top, bot, c->from_log ? "count per log record" : "count per call");
    if (c->n == 0) sts_svg_text(b, (x0 + x1) / 2, (top + bot) / 2, "middle", "sub", "no calls recorded");
    double band = c->n ? (x1 - x0) / (double)c->n : 0;
    int groups = have_t + have_c;
    double bw = fmin(40, band * 0.7 / (groups ? groups : 1));
    double y_zero = sts_axis_map(&a, 0, bot, top);
    int numbered = band < 64;
    /* Numbers every k-th group, k from the widest number, so that numbers keep apart. */
    char widest[24];
    snprintf(widest, sizeof widest, "%zu", c->n);
    size_t every = band > 0 ? (size_t)ceil((sts_text_width(widest, sts_font_of("tick")) + 6) / band) : 1;
    if (every < 1) every = 1;
    for (size_t i = 0; i < c->n; i++) {
        double gx = x0 + band * (double)i + (band - bw * groups) / 2;
        sts_sbuf_printf(b, "<g class=\"call\" data-call=\"%zu\">\n", i);
        for (int k = 0; k < 2; k++) {
            const double *vals = k == 0 ? c->traces : c->compiles;
            if (!(k == 0 ? have_t : have_c)) continue;
            double v = vals[i];
            const char *what = k == 0 ? "traces" : "compiles";
            char lab[32];
            if (!isfinite(v)) { /* written with the values, below */
                gx += bw;
                continue;
            }
            double y = sts_axis_map(&a, v, bot, top);
            vbar(b, id, k == 0 ? S_TRACE : S_COMPILE, gx, bw, y_zero, y);
            sts_fmt_number(v, lab, sizeof lab);
            sts_sbuf_printf(b, " data-call=\"%zu\" data-series=\"%s\" data-value=\"%s\"><title>", i, what, lab);
            sts_sbuf_escs(b, c->labels[i]);
            sts_sbuf_printf(b, ": %s new %s</title></rect>\n", lab, what);
            if (v == 0) {
                /* A zero-height bar is invisible: mark the observation on the baseline. */
                sts_sbuf_puts(b, "<line class=\"zbar\" x1=\"");
                sts_svg_num(b, gx + 2);
                sts_sbuf_puts(b, "\" x2=\"");
                sts_svg_num(b, gx + bw - 2);
                sts_sbuf_puts(b, "\" y1=\"");
                sts_svg_num(b, y_zero - 1);
                sts_sbuf_puts(b, "\" y2=\"");
                sts_svg_num(b, y_zero - 1);
                sts_sbuf_puts(b, "\"/>\n");
            }
            sts_box bar = { gx, fmin(y, y_zero) - (v == 0 ? 2 : 0), gx + bw, fmax(y, y_zero) };
            sts_placer_box(&pl, bar);
            gx += bw;
        }
        /* Narrow groups are numbered (every few) instead of named; the tooltip names them. */
        char fit[200];
        if (numbered) {
            if (i % every == 0)
                snprintf(fit, sizeof fit, "%zu", i + 1);
            else
                fit[0] = 0;
        } else if (!sts_fit_middle(c->labels[i], band - 4, sts_font_of("tick"), fit, sizeof fit)) {
            fit[0] = 0;
        }
        sts_sbuf_puts(b, "<g class=\"xlab\"><title>");
        sts_sbuf_printf(b, "call %zu: ", i + 1);
        sts_sbuf_escs(b, c->labels[i]);
        sts_sbuf_puts(b, "</title>");
        sts_spot under = { x0 + band * ((double)i + 0.5), bot + 18, "middle" };
        if (fit[0]) sts_place_text(&pl, b, &under, 1, "tick", fit);
        sts_sbuf_puts(b, "</g></g>\n");
    }
    /* Values above the bars, once every bar is down, so none is written over a
     * neighbour; a value with no room is left to the tooltip. */
    for (size_t i = 0; i < c->n; i++) {
        double gx = x0 + band * (double)i + (band - bw * groups) / 2;
        for (int k = 0; k < 2; k++) {
            if (!(k == 0 ? have_t : have_c)) continue;
            double v = (k == 0 ? c->traces : c->compiles)[i];
            char lab[32];
            if (isfinite(v)) {
                sts_fmt_number(v, lab, sizeof lab);
                double y = sts_axis_map(&a, v, bot, top);
                sts_spot above = { gx + bw / 2, fmin(y, y_zero) - 6, "middle" };
                sts_place_text(&pl, b, &above, 1, "lbl", lab);
            } else {
                sts_spot na = { gx + bw / 2, y_zero - 6, "middle" };
                sts_place_text(&pl, b, &na, 1, "lbl sub", "n/a");
            }
            gx += bw;
        }
    }
    sts_svg_text_rec(
        b, &pl, (x0 + x1) / 2, bot + 36, "middle", "ax-t",
        c->from_log ? (numbered ? "log record number, in log order (hover for its label)" : "log record, in log order")
        : numbered  ? "call number, in the order made (hover for its label)"
                    : "call, in the order made");
    sts_placer_release(&pl);
    sts_svg_close(b);
}

/* "312 ms (2 compiles)", or "no time recorded" when the log gave none. */
static void hbar_label(const sts_rpt_hbars *f, size_t i, char *lab, size_t n)
{
    char d[48];
    if (isfinite(f->ns[i]) && f->ns[i] > 0)
        sts_fmt_duration(f->ns[i], d, sizeof d);
    else
        snprintf(d, sizeof d, "no time recorded");
    if (f->counts[i] > 0)
        snprintf(lab, n, "%s (%u %s%s)", d, f->counts[i], f->count_word, f->counts[i] == 1 ? "" : "s");
    else
        snprintf(lab, n, "%s", d);
}

void sts_rpt_draw_hbars(sts_sbuf *b, const char *id, int standalone, const sts_rpt_hbars *f)
{
    double hi = 0, widest = 0;
    char lab[128];
    for (size_t i = 0; i < f->n; i++) {
        if (isfinite(f->ns[i])) hi = fmax(hi, f->ns[i]);
        hbar_label(f, i, lab, sizeof lab);
        widest = fmax(widest, sts_text_width(lab, sts_font_of("lbl")));
    }
    sts_axis a;
    sts_axis_time(&a, 0, hi, 5);
    /* The axis ends where the longest bar's label still fits after it. */
    const double x0 = 220, top = 56, row = 24;
    const double x1 = fmax(x0 + 240, W - 8 - 6 - widest);
    double bot = top + row * (double)(f->n ? f->n : 1) + 6;
    char attrs[128];
    snprintf(attrs, sizeof attrs, "data-bars=\"%zu\" data-unit=\"%s\"", f->n, a.unit_name);
    sts_svg_open(b, id, W, bot + 52, standalone, attrs, f->title);
    sts_svg_patterns(b, id);
    sts_svg_xaxis(b, NULL, &a, x0, x1, top - 4, bot, f->axis_title);
    if (f->n == 0) sts_svg_text(b, (x0 + x1) / 2, top + 16, "middle", "sub", "nothing recorded");
    /* Names are cut in the middle (a function's definition site is at its end), never
     * two to the same text. */
    enum { NAME = 200 };
    char *cut = f->n ? calloc(f->n, NAME) : NULL;
    if (cut) sts_fit_unique(f->names, f->n, x0 - 16, sts_font_of(NULL), cut, NAME);
    for (size_t i = 0; i < f->n; i++) {
        double y = top + row * (double)i + 4, v = isfinite(f->ns[i]) ? f->ns[i] : 0;
        double px = sts_axis_map(&a, v, x0, x1);
        sts_sbuf_puts(b, "<g class=\"name\"><title>");
        sts_sbuf_escs(b, f->names[i]);
        sts_sbuf_puts(b, "</title>");
        sts_svg_text(b, x0 - 8, y + row / 2 + 1, "end", NULL, cut ? cut + i * NAME : "");
        sts_sbuf_puts(b, "</g>\n");
        sts_sbuf_puts(b, "<rect class=\"bar\" x=\"");
        sts_svg_num(b, x0);
        sts_sbuf_puts(b, "\" y=\"");
        sts_svg_num(b, y);
        sts_sbuf_puts(b, "\" width=\"");
        sts_svg_num(b, px - x0);
        sts_sbuf_printf(b, "\" height=\"%g\"", row - 8);
        sts_svg_series_fill(b, id, 0);
        sts_sbuf_puts(b, " data-name=\"");
        sts_sbuf_escs(b, f->names[i]);
        hbar_label(f, i, lab, sizeof lab);
        sts_sbuf_printf(b, "\" data-ns=\"%.0f\" data-%s=\"%u\"><title>", v, f->data_name, f->counts[i]);
        sts_sbuf_escs(b, f->names[i]);
        sts_sbuf_printf(b, ": %s</title></rect>\n", lab);
        sts_svg_text(b, px + 6, y + row / 2 + 1, "start", "lbl", lab);
    }
    free(cut);
    sts_svg_close(b);
}
