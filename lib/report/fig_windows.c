/* The step-windows figure: for each step, how long each of the busiest other lanes
 * (device streams, worker threads) was busy inside it, drawn inside an outline of the
 * step's own duration. Lanes run alongside the step, so their bars stand side by side
 * and are never stacked: stacking would add up time that overlaps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/figures.h"
#include "report/svg.h"

#define W      760.0
#define LEFT   68.0
#define RIGHT  16.0
#define PLOT_H 220.0

enum { NAME = 240 };

static void rect(sts_sbuf *b, const char *cls, double x, double y, double w, double h)
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

/* Legend rows of lane keys, then the step outline's key; returns the y below them. */
static double legend(sts_sbuf *b, sts_placer *pl, const char *id, const sts_rpt_windows *w, const char *cut, double y)
{
    double x = LEFT;
    char sw[96];
    for (size_t k = 0; k <= w->nlanes; k++) {
        const char *label = k < w->nlanes ? cut + k * NAME : "step duration";
        if (x + sts_svg_legend_width(label) - 18 > W - RIGHT && x > LEFT) {
            x = LEFT;
            y += 20;
        }
        if (k < w->nlanes)
            snprintf(sw, sizeof sw, "fill=\"url(#%s-p%zu)\"", id, k % 8);
        else
            snprintf(sw, sizeof sw, "style=\"fill:var(--rem);stroke:var(--muted)\"");
        x = sts_svg_legend_item(b, pl, x, y, sw, label);
    }
    return y + 16;
}

static void step_group(sts_sbuf *b, sts_placer *pl, const char *id, const sts_rpt_windows *w, const char *full,
                       size_t i, const sts_axis *a, double x, double ow, double y_top, double y_bot)
{
    char d[48], t[48];
    double total = w->total_ns[i] > 0 ? w->total_ns[i] : 0;
    sts_sbuf_printf(b, "<g class=\"wstep\" data-step=\"%zu\" data-total-ns=\"%.0f\">\n", i, total);
    double yt = sts_axis_map(a, total, y_bot, y_top);
    rect(b, "win", x, yt, ow, y_bot - yt);
    sts_fmt_duration(total, d, sizeof d);
    sts_sbuf_puts(b, "><title>");
    sts_sbuf_escs(b, w->step_name ? w->step_name : "step");
    sts_sbuf_puts(b, " ");
    sts_sbuf_escs(b, w->labels[i]);
    sts_sbuf_printf(b, ": %s</title></rect>\n", d);
    /* The lanes' bars share the outline's width, with a gap on each side. */
    double pad = fmin(2, ow * 0.06), bw = (ow - 2 * pad) / (double)w->nlanes;
    for (size_t k = 0; k < w->nlanes; k++) {
        double v = w->busy_ns[i * w->nlanes + k];
        if (!(v > 0)) v = 0;
        double y = sts_axis_map(a, v, y_bot, y_top);
        rect(b, "busy", x + pad + bw * (double)k, y, bw, y_bot - y);
        sts_svg_series_fill(b, id, k);
        sts_fmt_duration(v, d, sizeof d);
        sts_fmt_duration(total, t, sizeof t);
        sts_sbuf_printf(b, " data-step=\"%zu\" data-lane=\"%zu\" data-ns=\"%.0f\"><title>", i, k, v);
        sts_sbuf_escs(b, full + k * NAME);
        sts_sbuf_puts(b, ", ");
        sts_sbuf_escs(b, w->step_name ? w->step_name : "step");
        sts_sbuf_puts(b, " ");
        sts_sbuf_escs(b, w->labels[i]);
        if (total > 0)
            sts_sbuf_printf(b, ": busy %s of %s (%.0f%%)</title></rect>\n", d, t, 100.0 * v / total);
        else
            sts_sbuf_printf(b, ": busy %s</title></rect>\n", d);
        if (v == 0 && bw >= 6) { /* idle all step long: a mark, so the zero is seen */
            sts_sbuf_puts(b, "<line class=\"zbar\" x1=\"");
            sts_svg_num(b, x + pad + bw * (double)k + 2);
            sts_sbuf_puts(b, "\" x2=\"");
            sts_svg_num(b, x + pad + bw * (double)(k + 1) - 2);
            sts_sbuf_puts(b, "\" y1=\"");
            sts_svg_num(b, y_bot - 1);
            sts_sbuf_puts(b, "\" y2=\"");
            sts_svg_num(b, y_bot - 1);
            sts_sbuf_puts(b, "\"/>\n");
        }
        /* Its share of the step, inside the bar's top when it fits there. */
        char pct[16];
        snprintf(pct, sizeof pct, "%.0f%%", total > 0 ? 100.0 * v / total : 0);
        if (total > 0 && y_bot - y >= 17 && sts_text_width(pct, sts_font_of("lbl")) + 2 <= bw)
            sts_svg_text(b, x + pad + bw * ((double)k + 0.5), y + 13, "middle", "lbl", pct);
    }
    sts_sbuf_puts(b, "</g>\n");
    sts_box box = { x, yt, x + ow, y_bot };
    sts_placer_box(pl, box);
}

void sts_rpt_draw_windows(sts_sbuf *b, const char *id, int standalone, const sts_rpt_windows *w)
{
    double hi = 0;
    for (size_t i = 0; i < w->nsteps; i++) {
        hi = fmax(hi, w->total_ns[i]);
        for (size_t k = 0; k < w->nlanes; k++)
            hi = fmax(hi, w->busy_ns[i * w->nlanes + k]);
    }
    sts_axis a;
    sts_axis_time(&a, 0, hi, 5);

    /* Lanes are named "thread · process", cut in the middle, never two to the same text. */
    const char **names = w->nlanes ? calloc(w->nlanes, sizeof *names) : NULL;
    char *full = w->nlanes ? calloc(w->nlanes, NAME) : NULL, *cut = w->nlanes ? calloc(w->nlanes, NAME) : NULL;
    if (w->nlanes && (!names || !full || !cut)) {
        free(names);
        free(full);
        free(cut);
        sts_svg_open(b, id, W, 80, standalone, "data-steps=\"0\" data-lanes=\"0\"", "Other lanes during each step");
        sts_svg_close(b);
        return;
    }
    for (size_t k = 0; k < w->nlanes; k++) {
        snprintf(full + k * NAME, NAME, "%s \xc2\xb7 %s", w->names[k] ? w->names[k] : "",
                 w->groups[k] ? w->groups[k] : "");
        names[k] = full + k * NAME;
    }
    sts_fit_unique(names, w->nlanes, W - RIGHT - LEFT - 40, sts_font_of(NULL), cut, NAME);

    int trimmed = w->nsteps < w->found;
    sts_sbuf leg = STS_SBUF_INIT;
    sts_placer pl;
    sts_placer_init(&pl, W, 1e9);
    double leg_bot = legend(&leg, &pl, id, w, cut, 62);
    double y_top = leg_bot + 34, y_bot = y_top + PLOT_H, h = y_bot + 52;
    pl.area.y1 = h;

    char attrs[200], title[300], word[160], sub[300];
    snprintf(word, sizeof word, "%s", w->step_name ? w->step_name : "step");
    char *hash = strrchr(word, '#');
    if (hash && hash > word && hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1)) *hash = 0;
    char name[160];
    sts_fit_middle(word, 300, sts_font_of("ttl"), name, sizeof name);
    snprintf(attrs, sizeof attrs, "data-steps=\"%zu\" data-lanes=\"%zu\" data-unit=\"%s\"", w->nsteps, w->nlanes,
             a.unit_name);
    snprintf(title, sizeof title, "Other lanes during each %s: busy time inside the step", name);
    sts_svg_open(b, id, W, h, standalone, attrs, title);
    snprintf(sub, sizeof sub, "%s%s",
             "Bars stand side by side: lanes run at the same time, so their times do not add up.",
             trimmed ? " First 60 steps." : "");
    sts_svg_subtitle(b, &pl, W, sub);
    sts_svg_patterns(b, id);
    sts_sbuf_put(b, leg.p ? leg.p : "", leg.n);
    sts_sbuf_release(&leg);
    sts_svg_yaxis(b, &pl, &a, LEFT, W - RIGHT, y_top, y_bot, "time per step");

    double pw = W - RIGHT - LEFT;
    double band = w->nsteps ? pw / (double)w->nsteps : pw;
    double ow = fmin(34.0 * (double)w->nlanes + 8, band * 0.86);
    double widest = 0;
    for (size_t i = 0; i < w->nsteps; i++)
        widest = fmax(widest, sts_text_width(w->labels[i], sts_font_of("tick")));
    size_t every = (size_t)ceil((widest + 6) / band);
    if (every < 1) every = 1;
    for (size_t i = 0; i < w->nsteps; i++) {
        double x = LEFT + band * (double)i + (band - ow) / 2;
        step_group(b, &pl, id, w, full, i, &a, x, ow, y_top, y_bot);
        sts_spot under = { x + ow / 2, y_bot + 18, "middle" };
        if (i % every == 0) sts_place_text(&pl, b, &under, 1, "tick", w->labels[i]);
    }
    char xt[260];
    sts_fit_middle(word, 300, sts_font_of("ax-t"), name, sizeof name);
    snprintf(xt, sizeof xt, "%s (in trace order)", name);
    sts_svg_text_rec(b, &pl, (LEFT + W - RIGHT) / 2, y_bot + 36, "middle", "ax-t", xt);
    sts_placer_release(&pl);
    free(names);
    free(full);
    free(cut);
    sts_svg_close(b);
}
