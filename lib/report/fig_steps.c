/* The per-step figure: stacked bars of each step's children and its remainder. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "report/figures.h"
#include "report/svg.h"

#define W      760.0
#define LEFT   68.0
#define RIGHT  16.0
#define PLOT_H 260.0

typedef struct geo {
    const sts_axis *a;
    double y_top, y_bot;
} geo;

static double ypx(const geo *g, double v)
{
    return sts_axis_map(g->a, v, g->y_bot, g->y_top);
}

static void rect_open(sts_sbuf *b, const char *cls, double x, double y, double w, double h)
{
    sts_sbuf_printf(b, "<rect class=\"%s\" x=\"", cls);
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" y=\"");
    sts_svg_num(b, y);
    sts_sbuf_puts(b, "\" width=\"");
    sts_svg_num(b, w);
    sts_sbuf_puts(b, "\" height=\"");
    sts_svg_num(b, h);
    sts_sbuf_puts(b, "\"");
}

static void data_attrs(sts_sbuf *b, size_t step, const char *name, double ns)
{
    sts_sbuf_printf(b, " data-step=\"%zu\" data-name=\"", step);
    sts_sbuf_escs(b, name);
    sts_sbuf_printf(b, "\" data-ns=\"%.0f\"", ns);
}

static void tooltip(sts_sbuf *b, const sts_rpt_steps *s, size_t i, const char *name, double ns, unsigned count)
{
    char d[48];
    sts_fmt_duration(ns, d, sizeof d);
    sts_sbuf_puts(b, "><title>");
    sts_sbuf_escs(b, s->step_name ? s->step_name : "step");
    sts_sbuf_puts(b, " ");
    sts_sbuf_escs(b, s->labels[i]);
    sts_sbuf_puts(b, " \xc2\xb7 ");
    sts_sbuf_escs(b, name);
    sts_sbuf_printf(b, ": %s", d);
    if (count > 1) sts_sbuf_printf(b, " (%u slices)", count);
    sts_sbuf_puts(b, "</title></rect>\n");
}

/* A value label inside a segment when it fits, else nothing (the tooltip has it). */
static void inner_label(sts_sbuf *b, double x, double w, double ytop, double h, double ns)
{
    char d[48];
    sts_fmt_duration(ns, d, sizeof d);
    if (h < 15 || sts_svg_text_width(d, 11) + 4 > w) return;
    sts_svg_text(b, x + w / 2, ytop + h / 2 + 4, "middle", "lbl", d);
}

static void draw_step(sts_sbuf *b, sts_placer *pl, const char *id, const sts_rpt_steps *s, size_t i, const geo *g,
                      double x, double bw)
{
    sts_sbuf_printf(b, "<g class=\"step\" data-step=\"%zu\" data-total-ns=\"%.0f\">\n", i, s->total_ns[i]);
    double cum = 0, top = ypx(g, 0), bottom = ypx(g, 0);
    for (size_t j = 0; j < s->nseries; j++) {
        uint32_t count = s->child_count[i * s->nseries + j];
        if (count == 0) continue;
        double v = s->child_ns[i * s->nseries + j];
        if (!(v > 0)) v = 0;
        double y1 = ypx(g, cum + v), y0 = ypx(g, cum);
        rect_open(b, "bar", x, y1, bw, y0 - y1);
        sts_svg_series_fill(b, id, j);
        data_attrs(b, i, s->series[j], v);
        tooltip(b, s, i, s->series[j], v, count);
        inner_label(b, x, bw, y1, y0 - y1, v);
        cum += v;
        top = fmin(top, y1);
    }
    double rem = s->rem_ns[i];
    double y0, y1;
    if (rem >= 0) {
        y1 = ypx(g, cum + rem);
        y0 = ypx(g, cum);
    } else {
        /* Children overran the step (rounding): draw the deficit below zero, at least
         * 2 px tall so it is seen, with its exact value written under it. */
        y1 = ypx(g, 0);
        y0 = fmax(ypx(g, rem), y1 + 2);
    }
    rect_open(b, "bar rem", x, y1, bw, y0 - y1);
    sts_sbuf_printf(b, " fill=\"url(#%s-rem)\"", id);
    data_attrs(b, i, s->rem_label ? s->rem_label : "(unattributed)", rem);
    tooltip(b, s, i, s->rem_label ? s->rem_label : "unattributed (step minus children)", rem, 0);
    if (rem >= 0) inner_label(b, x, bw, y1, y0 - y1, rem);
    top = fmin(top, y1);
    bottom = fmax(bottom, y0);
    /* The step's own duration, as a cap: children plus remainder meet it exactly. */
    double yt = ypx(g, s->total_ns[i]);
    sts_sbuf_puts(b, "<line class=\"tot\" x1=\"");
    sts_svg_num(b, x - 3);
    sts_sbuf_puts(b, "\" x2=\"");
    sts_svg_num(b, x + bw + 3);
    sts_sbuf_puts(b, "\" y1=\"");
    sts_svg_num(b, yt);
    sts_sbuf_puts(b, "\" y2=\"");
    sts_svg_num(b, yt);
    sts_sbuf_puts(b, "\"/>\n");
    sts_sbuf_puts(b, "</g>\n");
    sts_box bar = { x, fmin(top, yt), x + bw, bottom };
    sts_placer_box(pl, bar);
    sts_placer_seg(pl, x - 3, yt, x + bw + 3, yt);
}

/* The labels outside the bars, once every bar is down so none is written over a
 * neighbour: the step total above its bar, a negative remainder under it. A label
 * with no free room is left to the tooltip. */
static void outer_labels(sts_sbuf *b, sts_placer *pl, const sts_rpt_steps *s, size_t i, const geo *g, double x,
                         double bw)
{
    char d[48];
    double cum = 0;
    for (size_t j = 0; j < s->nseries; j++)
        if (s->child_count[i * s->nseries + j]) cum += fmax(0, s->child_ns[i * s->nseries + j]);
    double rem = s->rem_ns[i], ytop = fmin(ypx(g, s->total_ns[i]), ypx(g, cum + fmax(0, rem)));
    sts_fmt_duration(s->total_ns[i], d, sizeof d);
    sts_spot above = { x + bw / 2, ytop - 6, "middle" };
    sts_place_text(pl, b, &above, 1, "lbl", d);
    if (rem < 0) {
        sts_fmt_duration(rem, d, sizeof d);
        sts_spot under = { x + bw / 2, fmax(ypx(g, rem), ypx(g, 0) + 2) + 12, "middle" };
        sts_place_text(pl, b, &under, 1, "lbl", d);
    }
}

/* Legend rows, wrapped to the figure's width; returns the y below the last row. */
static double legend(sts_sbuf *b, sts_placer *pl, const char *id, const sts_rpt_steps *s, double y)
{
    double x = LEFT;
    char sw[96];
    for (size_t j = 0; j <= s->nseries + 1; j++) {
        const char *label = j < s->nseries    ? s->series[j]
                            : j == s->nseries ? (s->rem_label ? s->rem_label : "unattributed (step minus children)")
                                              : "step total";
        char fit[256];
        /* A name wider than a row is cut in the middle; its tooltip in the bars has it whole. */
        if (!sts_fit_middle(label, W - RIGHT - LEFT - 40, sts_font_of(NULL), fit, sizeof fit)) fit[0] = 0;
        double need = sts_svg_legend_width(fit) - 18;
        if (x + need > W - RIGHT && x > LEFT) {
            x = LEFT;
            y += 20;
        }
        if (j < s->nseries) {
            snprintf(sw, sizeof sw, "fill=\"url(#%s-p%zu)\"", id, j % 8);
            x = sts_svg_legend_item(b, pl, x, y, sw, fit);
        } else if (j == s->nseries) {
            snprintf(sw, sizeof sw, "fill=\"url(#%s-rem)\" style=\"stroke:var(--muted)\"", id);
            x = sts_svg_legend_item(b, pl, x, y, sw, fit);
        } else {
            /* The total is a line across the bar, so its key is that line. */
            sts_sbuf_puts(b, "<g class=\"key\"><line class=\"tot swl\" x1=\"");
            sts_svg_num(b, x);
            sts_sbuf_puts(b, "\" x2=\"");
            sts_svg_num(b, x + 14);
            sts_sbuf_printf(b, "\" y1=\"%g\" y2=\"%g\"/>", y - 4, y - 4);
            sts_svg_text_rec(b, pl, x + 19, y + 1, "start", NULL, fit);
            sts_sbuf_puts(b, "</g>\n");
            x += sts_svg_legend_width(fit);
        }
    }
    return y + 16;
}

/* "ProfilerStep#551" names one step; the figure is about all of them. */
static void steps_word(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s", name ? name : "step");
    char *hash = strrchr(buf, '#');
    if (hash && hash > buf && hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1)) *hash = 0;
}

void sts_rpt_draw_steps(sts_sbuf *b, const char *id, int standalone, const sts_rpt_steps *s)
{
    double lo = 0, hi = 0;
    for (size_t i = 0; i < s->nsteps; i++) {
        double sum = 0;
        for (size_t j = 0; j < s->nseries; j++)
            sum += fmax(0, s->child_ns[i * s->nseries + j]);
        hi = fmax(hi, fmax(s->total_ns[i], sum));
        lo = fmin(lo, s->rem_ns[i]);
    }
    sts_axis a;
    sts_axis_time(&a, lo, hi, 5);

    /* The legend's height depends on wrapping: lay it out into a scratch buffer first. */
    int cut = s->nsteps < s->found;
    sts_sbuf leg = STS_SBUF_INIT;
    sts_placer pl;
    sts_placer_init(&pl, W, 1e9);
    double leg_bot = legend(&leg, &pl, id, s, cut ? 62 : 46);
    geo g = { &a, leg_bot + 34, leg_bot + 34 + PLOT_H };
    double h = g.y_bot + 52;
    pl.area.y1 = h;

    char word[200], name[160], attrs[200], title[300];
    steps_word(s->step_name, word, sizeof word);
    sts_fit_middle(word, 260, sts_font_of("ttl"), name, sizeof name);
    snprintf(attrs, sizeof attrs, "data-steps=\"%zu\" data-found=\"%zu\" data-series=\"%zu\" data-unit=\"%s\"",
             s->nsteps, s->found, s->nseries, a.unit_name);
    if (s->title)
        snprintf(title, sizeof title, "%s", s->title);
    else
        snprintf(title, sizeof title, "Time inside each %s: children and unattributed remainder", name);
    sts_svg_open(b, id, W, h, standalone, attrs, title);
    if (cut) {
        char sub[160];
        snprintf(sub, sizeof sub, "Showing the first %zu of %zu steps.", s->nsteps, s->found);
        sts_svg_subtitle(b, &pl, W, sub);
    }
    sts_svg_patterns(b, id);
    sts_sbuf_put(b, leg.p ? leg.p : "", leg.n);
    sts_sbuf_release(&leg);
    sts_svg_yaxis(b, &pl, &a, LEFT, W - RIGHT, g.y_top, g.y_bot, "time per step");

    if (s->nsteps == 0)
        sts_svg_text_rec(b, &pl, (LEFT + W - RIGHT) / 2, (g.y_top + g.y_bot) / 2, "middle", "sub", "no steps found");
    double pw = W - RIGHT - LEFT;
    double band = s->nsteps ? pw / (double)s->nsteps : pw;
    double bw = fmin(72, band * 0.62);
    /* Number every k-th step, k from the widest number, so numbers keep apart. */
    double widest = 0;
    for (size_t i = 0; i < s->nsteps; i++)
        widest = fmax(widest, sts_text_width(s->labels[i], sts_font_of("tick")));
    size_t every = (size_t)ceil((widest + 6) / band);
    if (every < 1) every = 1;
    for (size_t i = 0; i < s->nsteps; i++) {
        double x = LEFT + band * (double)i + (band - bw) / 2;
        draw_step(b, &pl, id, s, i, &g, x, bw);
        /* Under the bar, unless a tick of the value axis is there (an axis below zero). */
        sts_spot under = { x + bw / 2, g.y_bot + 18, "middle" };
        if (i % every == 0) sts_place_text(&pl, b, &under, 1, "tick", s->labels[i]);
    }
    /* The longest steps are labelled first: where labels compete for room, the peaks
     * keep theirs. */
    size_t *order = s->nsteps ? malloc(s->nsteps * sizeof *order) : NULL;
    for (size_t i = 0; order && i < s->nsteps; i++) {
        size_t k = i;
        while (k > 0 && s->total_ns[order[k - 1]] < s->total_ns[i]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    for (size_t k = 0; order && k < s->nsteps; k++)
        outer_labels(b, &pl, s, order[k], &g, LEFT + band * (double)order[k] + (band - bw) / 2, bw);
    free(order);
    char xt[260];
    sts_fit_middle(word, 300, sts_font_of("ax-t"), name, sizeof name);
    snprintf(xt, sizeof xt, "%s (in trace order)", name);
    sts_svg_text_rec(b, &pl, (LEFT + W - RIGHT) / 2, g.y_bot + 36, "middle", "ax-t", xt);
    sts_placer_release(&pl);
    sts_svg_close(b);
}
