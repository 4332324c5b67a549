/* The bench figure: the first call and the warm samples in two panels, each with its
 * own axis and its unit written out, because their scales differ by orders of
 * magnitude (lesson 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/figures.h"
#include "report/svg.h"

#define W    760.0
#define TOP  124.0
#define BOT  340.0
#define A_X0 72.0
#define A_X1 200.0
#define B_X0 290.0
#define B_X1 612.0
/* Reference lines are labelled in a gutter right of the warm panel, never over the
 * samples: there they cannot cover a point, and close values are spread apart. */
#define GUT_X (B_X1 + 10)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sts_rpt_median(const double *v, size_t n)
{
    double *c = n ? malloc(n * sizeof *c) : NULL;
    if (!c) return NAN;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) c[k++] = v[i]; /* a missing sample is not a value */
    n = k;
    if (n == 0) {
        free(c);
        return NAN;
    }
    qsort(c, n, sizeof *c, cmp_double);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

static void hline(sts_sbuf *b, const char *cls, double x0, double x1, double y, double ns)
{
    sts_sbuf_printf(b, "<line class=\"%s\" data-ns=\"%.0f\" x1=\"", cls, ns);
    sts_svg_num(b, x0);
    sts_sbuf_puts(b, "\" x2=\"");
    sts_svg_num(b, x1);
    sts_sbuf_puts(b, "\" y1=\"");
    sts_svg_num(b, y);
    sts_sbuf_puts(b, "\" y2=\"");
    sts_svg_num(b, y);
    sts_sbuf_puts(b, "\"/>\n");
}

static void panel_first(sts_sbuf *b, sts_placer *pl, const char *id, const sts_rpt_bench *bn)
{
    int have = isfinite(bn->first_ns);
    sts_axis a;
    sts_axis_time(&a, 0, have ? bn->first_ns : 0, 4);
    sts_sbuf_printf(b, "<g class=\"panel\" id=\"%s-first\" data-unit=\"%s\">\n", id, a.unit_name);
    sts_svg_text_rec(b, pl, A_X0 - 60, TOP - 34, "start", "ttl", "First call");
    sts_svg_yaxis(b, pl, &a, A_X0, A_X1, TOP, BOT, "first call");
    if (have) {
        double y = sts_axis_map(&a, bn->first_ns, BOT, TOP), bw = 56, x = (A_X0 + A_X1 - bw) / 2;
        char d[48];
        sts_fmt_duration(bn->first_ns, d, sizeof d);
        sts_sbuf_puts(b, "<rect class=\"bar first\" x=\"");
        sts_svg_num(b, x);
        sts_sbuf_puts(b, "\" y=\"");
        sts_svg_num(b, y);
        sts_sbuf_puts(b, "\" width=\"");
        sts_svg_num(b, bw);
        sts_sbuf_puts(b, "\" height=\"");
        sts_svg_num(b, BOT - y);
        sts_sbuf_printf(b, "\"");
        sts_svg_series_fill(b, id, 0);
        sts_sbuf_printf(b, " data-ns=\"%.0f\"><title>first call (synchronized): %s</title></rect>\n", bn->first_ns, d);
        /* Above the bar; inside its top when the axis title is in the way. */
        sts_spot spots[] = { { x + bw / 2, y - 6, "middle" }, { x + bw / 2, y + 15, "middle" } };
        sts_place_text(pl, b, spots, BOT - y > 20 ? 2 : 1, "lbl", d);
    } else {
        sts_svg_text(b, (A_X0 + A_X1) / 2, (TOP + BOT) / 2, "middle", "sub", "not recorded");
    }
    sts_svg_text(b, (A_X0 + A_X1) / 2, BOT + 16, "middle", "tick", "call 1");
    sts_sbuf_puts(b, "</g>\n");
}

static double sample_x(size_t i, size_t n)
{
    double pw = B_X1 - B_X0;
    return n <= 1 ? B_X0 + pw / 2 : B_X0 + 16 + (pw - 32) * (double)i / (double)(n - 1);
}

static void series_points(sts_sbuf *b, sts_placer *pl, const sts_axis *a, const double *v, size_t n, int square,
                          const char *what)
{
    if (n > 1) {
        sts_sbuf_printf(b, "<polyline class=\"line%s\" points=\"", square ? " line2" : "");
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(v[i])) continue;
            sts_svg_num(b, sample_x(i, n));
            sts_sbuf_puts(b, ",");
            sts_svg_num(b, sts_axis_map(a, v[i], BOT, TOP));
            sts_sbuf_puts(b, " ");
        }
        sts_sbuf_puts(b, "\"/>\n");
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) continue;
        double x = sample_x(i, n), y = sts_axis_map(a, v[i], BOT, TOP);
        sts_box mark = { x - 5, y - 5, x + 5, y + 5 };
        sts_placer_box(pl, mark);
        char d[48];
        sts_fmt_duration(v[i], d, sizeof d);
        if (square) {
            sts_sbuf_puts(b, "<rect class=\"pt2 device\" x=\"");
            sts_svg_num(b, x - 4);
            sts_sbuf_puts(b, "\" y=\"");
            sts_svg_num(b, y - 4);
            sts_sbuf_puts(b, "\" width=\"8\" height=\"8\"");
        } else {
            sts_sbuf_puts(b, "<circle class=\"pt sample\" cx=\"");
            sts_svg_num(b, x);
            sts_sbuf_puts(b, "\" cy=\"");
            sts_svg_num(b, y);
            sts_sbuf_puts(b, "\" r=\"4.5\"");
        }
        sts_sbuf_printf(b, " data-i=\"%zu\" data-ns=\"%.0f\"><title>%s %zu: %s</title></%s>\n", i, v[i], what, i + 1, d,
                        square ? "rect" : "circle");
    }
}

typedef struct ref_label {
    double y_line, y;
    char text[96];
} ref_label;

/* The median and dispatch-only lines' labels, in the gutter at the lines' heights,
 * spread apart when the values are close, each joined to its line by a leader. */
static void ref_labels(sts_sbuf *b, sts_placer *pl, ref_label *r, size_t n)
{
    double y[2];
    for (size_t i = 0; i < n; i++)
        y[i] = r[i].y_line;
    sts_spread(y, n, 14, TOP, BOT);
    for (size_t i = 0; i < n; i++) {
        sts_sbuf_puts(b, "<line class=\"leader\" x1=\"");
        sts_svg_num(b, B_X1);
        sts_sbuf_puts(b, "\" y1=\"");
        sts_svg_num(b, r[i].y_line);
        sts_sbuf_puts(b, "\" x2=\"");
        sts_svg_num(b, GUT_X - 2);
        sts_sbuf_puts(b, "\" y2=\"");
        sts_svg_num(b, y[i]);
        sts_sbuf_puts(b, "\"/>\n");
        sts_svg_text_rec(b, pl, GUT_X, y[i] + 4, "start", "lbl", r[i].text);
    }
}

static void panel_warm(sts_sbuf *b, sts_placer *pl, const char *id, const sts_rpt_bench *bn, double median)
{
    double hi = 0;
    for (size_t i = 0; i < bn->nwarm; i++)
        if (isfinite(bn->warm_ns[i])) hi = fmax(hi, bn->warm_ns[i]);
    for (size_t i = 0; i < bn->ndevice; i++)
        if (isfinite(bn->device_ns[i])) hi = fmax(hi, bn->device_ns[i]);
    if (isfinite(bn->dispatch_ns)) hi = fmax(hi, bn->dispatch_ns);
    if (isfinite(median)) hi = fmax(hi, median);
    sts_axis a;
    sts_axis_time(&a, 0, hi, 5);
    sts_sbuf_printf(b, "<g class=\"panel\" id=\"%s-warm\" data-unit=\"%s\" data-samples=\"%zu\">\n", id, a.unit_name,
                    bn->nwarm);
    sts_svg_text_rec(b, pl, B_X0 - 60, TOP - 34, "start", "ttl", "Warm calls");
    sts_svg_yaxis(b, pl, &a, B_X0, B_X1, TOP, BOT, "each warm call");
    char d[48];
    ref_label refs[2];
    size_t nref = 0;
    if (isfinite(bn->dispatch_ns)) {
        double y = sts_axis_map(&a, bn->dispatch_ns, BOT, TOP);
        hline(b, "ref dispatch", B_X0, B_X1, y, bn->dispatch_ns);
        sts_fmt_duration(bn->dispatch_ns, d, sizeof d);
        refs[nref].y_line = y;
        snprintf(refs[nref++].text, sizeof refs[0].text, "dispatch only %s", d);
    }
    series_points(b, pl, &a, bn->device_ns, bn->ndevice, 1, "device time, sample");
    series_points(b, pl, &a, bn->warm_ns, bn->nwarm, 0, "warm sample");
    if (isfinite(median)) {
        double y = sts_axis_map(&a, median, BOT, TOP);
        hline(b, "med", B_X0, B_X1, y, median);
        sts_fmt_duration(median, d, sizeof d);
        refs[nref].y_line = y;
        snprintf(refs[nref++].text, sizeof refs[0].text, "median %s", d);
    }
    ref_labels(b, pl, refs, nref);
    if (bn->nwarm == 0) sts_svg_text_rec(b, pl, (B_X0 + B_X1) / 2, (TOP + BOT) / 2, "middle", "sub", "no warm samples");
    size_t n = bn->nwarm > bn->ndevice ? bn->nwarm : bn->ndevice;
    char lab[24];
    snprintf(lab, sizeof lab, "%zu", n);
    /* Every k-th sample is numbered so that the numbers keep apart. */
    double room = n > 1 ? (sample_x(1, n) - sample_x(0, n)) : B_X1 - B_X0;
    size_t every = (size_t)ceil((sts_text_width(lab, sts_font_of("tick")) + 8) / room);
    if (every < 1) every = 1;
    for (size_t i = 0; i < n; i += every) {
        snprintf(lab, sizeof lab, "%zu", i + 1);
        sts_svg_text_rec(b, pl, sample_x(i, n), BOT + 16, "middle", "tick", lab);
    }
    sts_svg_text_rec(b, pl, (B_X0 + B_X1) / 2, BOT + 34, "middle", "ax-t", "warm sample, in the order run");
    sts_sbuf_puts(b, "</g>\n");
}

/* One legend entry: a mark drawn by `mark` (x is its left edge), then the label. */
static double legend_entry(sts_sbuf *b, sts_placer *pl, double x, double y, int kind, const char *label)
{
    static const char *const line_cls[] = { NULL, "med", "ref" };
    if (kind == 0) {
        sts_sbuf_puts(b, "<circle class=\"pt\" cx=\"");
        sts_svg_num(b, x + 6);
        sts_sbuf_printf(b, "\" cy=\"%g\" r=\"4.5\"/>", y - 4);
    } else if (kind == 3) {
        sts_sbuf_puts(b, "<rect class=\"pt2\" x=\"");
        sts_svg_num(b, x + 2);
        sts_sbuf_printf(b, "\" y=\"%g\" width=\"8\" height=\"8\"/>", y - 8);
    } else {
        sts_sbuf_printf(b, "<line class=\"%s\" x1=\"", line_cls[kind]);
        sts_svg_num(b, x);
        sts_sbuf_puts(b, "\" x2=\"");
        sts_svg_num(b, x + 22);
        sts_sbuf_printf(b, "\" y1=\"%g\" y2=\"%g\"/>", y - 4, y - 4);
    }
    double tx = x + (kind == 0 || kind == 3 ? 16 : 28);
    sts_svg_text_rec(b, pl, tx, y, "start", NULL, label);
    return tx + sts_text_width(label, sts_font_of(NULL)) + 16;
}

static void legend(sts_sbuf *b, sts_placer *pl, const sts_rpt_bench *bn)
{
    double y = 62, x = B_X0 - 60;
    sts_sbuf_puts(b, "<g class=\"key\">");
    x = legend_entry(b, pl, x, y, 0, "synchronized sample");
    x = legend_entry(b, pl, x, y, 1, "median");
    if (isfinite(bn->dispatch_ns)) x = legend_entry(b, pl, x, y, 2, "dispatch only");
    if (bn->ndevice) legend_entry(b, pl, x, y, 3, "device time");
    sts_sbuf_puts(b, "</g>\n");
}

void sts_rpt_draw_bench(sts_sbuf *b, const char *id, int standalone, const sts_rpt_bench *bn)
{
    double median = isfinite(bn->median_ns) ? bn->median_ns : sts_rpt_median(bn->warm_ns, bn->nwarm);
    size_t warm = 0, dev = 0;
    for (size_t i = 0; i < bn->nwarm; i++)
        warm += isfinite(bn->warm_ns[i]) != 0;
    for (size_t i = 0; i < bn->ndevice; i++)
        dev += isfinite(bn->device_ns[i]) != 0;
    char attrs[256];
    snprintf(attrs, sizeof attrs,
             "data-warm=\"%zu\" data-device=\"%zu\" data-first-ns=\"%.0f\" data-median-ns=\"%.0f\"", warm, dev,
             isfinite(bn->first_ns) ? bn->first_ns : -1, isfinite(median) ? median : -1);
    char title[300];
    snprintf(title, sizeof title, "First call vs warm calls%s%s", bn->label ? ": " : "", bn->label ? bn->label : "");
    sts_svg_open(b, id, W, BOT + 50, standalone, attrs, title);
    sts_svg_patterns(b, id);
    char sub[256];
    int n = snprintf(sub, sizeof sub, "Two panels with independent vertical axes: read each axis's unit.");
    if (isfinite(bn->first_ns) && median > 0 && n > 0)
        snprintf(sub + n, sizeof sub - (size_t)n, " The first call took %.0f\xc3\x97 the warm median.",
                 bn->first_ns / median);
    sts_placer pl;
    sts_placer_init(&pl, W, BOT + 50);
    sts_svg_subtitle(b, &pl, W, sub);
    legend(b, &pl, bn);
    panel_first(b, &pl, id, bn);
    panel_warm(b, &pl, id, bn, median);
    sts_placer_release(&pl);
    sts_svg_close(b);
}
