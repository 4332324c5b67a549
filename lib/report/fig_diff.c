/* The before/after figure of a diff. One row per compared interval: on the left both
 * runs' samples on one time axis (BASE above, NEW below), each step's pair joined by a
 * line, the medians marked, and the interval for the shift drawn where it puts NEW's
 * center (BASE's median plus the shift's interval); on the right the change in percent
 * with its interval, on an axis shared by every row, with the "same" band shaded. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "report/figures.h"
#include "report/svg.h"

#define W         760.0
#define TOP       92.0
#define RH        78.0
#define LAB_X     8.0
#define LAB_W     150.0
#define X0        214.0
#define X1        520.0
#define F0        562.0
#define F1        744.0
#define PCT_LO    (-100.0)
#define PCT_HI    300.0
#define MAX_PAIRS 400

static void seg(sts_sbuf *b, const char *cls, double x1, double y1, double x2, double y2)
{
    sts_sbuf_printf(b, "<line class=\"%s\" x1=\"", cls);
    sts_svg_num(b, x1);
    sts_sbuf_puts(b, "\" y1=\"");
    sts_svg_num(b, y1);
    sts_sbuf_puts(b, "\" x2=\"");
    sts_svg_num(b, x2);
    sts_sbuf_puts(b, "\" y2=\"");
    sts_svg_num(b, y2);
    sts_sbuf_puts(b, "\"/>\n");
}

static void rect(sts_sbuf *b, const char *cls, double x, double y, double w, double h, const char *title)
{
    sts_sbuf_printf(b, "<rect class=\"%s\" x=\"", cls);
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" y=\"");
    sts_svg_num(b, y);
    sts_sbuf_puts(b, "\" width=\"");
    sts_svg_num(b, w > 0 ? w : 0);
    sts_sbuf_puts(b, "\" height=\"");
    sts_svg_num(b, h);
    sts_sbuf_puts(b, "\">");
    if (title) {
        sts_sbuf_puts(b, "<title>");
        sts_sbuf_escs(b, title);
        sts_sbuf_puts(b, "</title>");
    }
    sts_sbuf_puts(b, "</rect>\n");
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void fmt_pct(double p, char *buf, size_t n)
{
    if (!isfinite(p)) {
        snprintf(buf, n, "%s", isnan(p) ? "unknown" : p < 0 ? "\xe2\x88\x92\xe2\x88\x9e" : "+\xe2\x88\x9e");
        return;
    }
    double a = fabs(p);
    snprintf(buf, n, "%s%.*f%%", p < 0 ? "\xe2\x88\x92" : p > 0 ? "+" : "", a >= 10 || a == 0 ? 0 : 1, a);
}

static double row_max(const sts_rpt_diff_row *r)
{
    double hi = 0;
    for (size_t i = 0; i < r->nb; i++)
        hi = fmax(hi, r->base[i]);
    for (size_t i = 0; i < r->nn; i++)
        hi = fmax(hi, r->new_[i]);
    if (isfinite(r->med_base) && isfinite(r->hi_ns)) hi = fmax(hi, r->med_base + r->hi_ns);
    return hi;
}

static void points(sts_sbuf *b, const sts_axis *a, const double *v, const double *idx, size_t n, double y, int square,
                   const char *run)
{
    for (size_t i = 0; i < n; i++) {
        double x = sts_axis_map(a, v[i], X0, X1);
        char d[48];
        sts_fmt_duration(v[i], d, sizeof d);
        if (square) {
            sts_sbuf_puts(b, "<rect class=\"pt2 new\" x=\"");
            sts_svg_num(b, x - 3.5);
            sts_sbuf_puts(b, "\" y=\"");
            sts_svg_num(b, y - 3.5);
            sts_sbuf_puts(b, "\" width=\"7\" height=\"7\"");
        } else {
            sts_sbuf_puts(b, "<circle class=\"pt base\" cx=\"");
            sts_svg_num(b, x);
            sts_sbuf_puts(b, "\" cy=\"");
            sts_svg_num(b, y);
            sts_sbuf_puts(b, "\" r=\"4\"");
        }
        sts_sbuf_printf(b, " data-ns=\"%.0f\" data-index=\"%.0f\"><title>%s, %.0f: %s</title></%s>\n", v[i], idx[i],
                        run, idx[i], d, square ? "rect" : "circle");
    }
}

/* Lines joining the BASE and NEW samples of the same step number. */
static size_t pairs(sts_sbuf *b, const sts_axis *a, const sts_rpt_diff_row *r, double yb, double yn)
{
    size_t drawn = 0;
    if (r->nb > MAX_PAIRS || r->nn > MAX_PAIRS) return 0;
    for (size_t i = 0; i < r->nb; i++) {
        for (size_t j = 0; j < r->nn; j++) {
            if (r->nidx[j] != r->bidx[i]) continue;
            seg(b, "pair", sts_axis_map(a, r->base[i], X0, X1), yb, sts_axis_map(a, r->new_[j], X0, X1), yn);
            drawn++;
            break;
        }
    }
    return drawn;
}

static void median_tick(sts_sbuf *b, const sts_axis *a, double med, double y)
{
    if (!isfinite(med)) return;
    double x = sts_axis_map(a, med, X0, X1);
    seg(b, "med", x, y - 9, x, y + 9);
}

/* BASE's median plus the shift's interval: where NEW's center plausibly lies. */
static void shift_band(sts_sbuf *b, const sts_axis *a, const sts_rpt_diff_row *r, double y, double conf)
{
    if (!isfinite(r->med_base) || isnan(r->lo_ns) || isnan(r->hi_ns)) return;
    char t[160], lo[48], hi[48];
    int bounded = isfinite(r->lo_ns) && isfinite(r->hi_ns);
    double x0 = bounded ? sts_axis_map(a, r->med_base + r->lo_ns, X0, X1) : X0;
    double x1 = bounded ? sts_axis_map(a, r->med_base + r->hi_ns, X0, X1) : X1;
    x0 = clampd(x0, X0, X1);
    x1 = clampd(x1, X0, X1);
    if (bounded) {
        sts_fmt_duration(r->lo_ns, lo, sizeof lo);
        sts_fmt_duration(r->hi_ns, hi, sizeof hi);
        snprintf(t, sizeof t, "%.0f%% interval for the shift: %s to %s", conf * 100, lo, hi);
    } else {
        snprintf(t, sizeof t, "no %.0f%% interval: too few samples", conf * 100);
    }
    rect(b, "ci shift", x0, y - 7, x1 - x0, 14, t);
}

/* A lane's key is "PROCESS / THREAD": the thread on the first line, its process under
 * it, each cut in the middle on its own, so the part that tells lanes apart stays. */
static void labels(sts_sbuf *b, const sts_rpt_diff_row *r, const char *key, const char *proc, double y0)
{
    char line[160], pct[32];
    double y = y0 + 20;
    sts_sbuf_puts(b, "<g class=\"dkey\"><title>");
    sts_sbuf_escs(b, r->key);
    sts_sbuf_puts(b, "</title>");
    sts_svg_text(b, LAB_X, y, "start", "ttl", key);
    if (proc && *proc) sts_svg_text(b, LAB_X, y += 15, "start", "tick", proc);
    sts_sbuf_puts(b, "</g>\n");
    fmt_pct(r->change_pct, pct, sizeof pct);
    if (isfinite(r->change_pct))
        snprintf(line, sizeof line, "%s, %s", r->verdict, pct);
    else
        snprintf(line, sizeof line, "%s", r->verdict);
    sts_svg_text(b, LAB_X, y += 18, "start", "sub", line);
    if (r->prediction) {
        snprintf(line, sizeof line, "prediction %s", r->prediction);
        sts_svg_text(b, LAB_X, y + 16, "start", NULL, line);
    }
}

static void time_row(sts_sbuf *b, const sts_rpt_diff_row *r, double y0, double conf)
{
    double yb = y0 + 16, yn = y0 + 40, ya = y0 + 52;
    sts_axis a;
    sts_axis_time(&a, 0, row_max(r), 4);
    sts_svg_text(b, X0 - 8, yb + 4, "end", "tick", "BASE");
    sts_svg_text(b, X0 - 8, yn + 4, "end", "tick", "NEW");
    seg(b, "axis", X0, ya, X1, ya);
    char lab[48];
    for (int i = 0; i < a.nticks; i++) {
        double x = sts_axis_map(&a, sts_axis_tick(&a, i), X0, X1);
        seg(b, "grid", x, y0 + 6, x, ya);
        sts_axis_tick_label(&a, i, lab, sizeof lab);
        if (i == a.nticks - 1) snprintf(lab + strlen(lab), sizeof lab - strlen(lab), " %s", a.unit_name);
        sts_svg_text(b, x, ya + 13, "middle", "tick", lab);
    }
    shift_band(b, &a, r, yn, conf);
    sts_sbuf_printf(b, "<g class=\"pairs\" data-pairs=\"%zu\">\n", pairs(b, &a, r, yb, yn));
    sts_sbuf_puts(b, "</g>\n");
    points(b, &a, r->base, r->bidx, r->nb, yb, 0, "BASE");
    points(b, &a, r->new_, r->nidx, r->nn, yn, 1, "NEW");
    median_tick(b, &a, r->med_base, yb);
    median_tick(b, &a, r->med_new, yn);
}

static void pct_range(const sts_rpt_diff *d, double *lo, double *hi)
{
    *lo = -d->margin_pct;
    *hi = d->margin_pct;
    for (size_t i = 0; i < d->n; i++) {
        const sts_rpt_diff_row *r = &d->rows[i];
        if (isfinite(r->lo_pct)) *lo = fmin(*lo, r->lo_pct);
        if (isfinite(r->hi_pct)) *hi = fmax(*hi, r->hi_pct);
        if (isfinite(r->change_pct)) {
            *lo = fmin(*lo, r->change_pct);
            *hi = fmax(*hi, r->change_pct);
        }
        if (isfinite(r->predicted_pct)) {
            *lo = fmin(*lo, r->predicted_pct);
            *hi = fmax(*hi, r->predicted_pct);
        }
    }
    *lo = clampd(*lo, PCT_LO, 0);
    *hi = clampd(*hi, 0, PCT_HI);
}

/* The prediction beside the outcome: a short bar across the row at the change it
 * predicted (at least that much shrink or grow), so the interval is read against it. */
static void predicted_mark(sts_sbuf *b, const sts_axis *a, const sts_rpt_diff_row *r, double y)
{
    if (!isfinite(r->predicted_pct)) return;
    double x = clampd(sts_axis_map(a, r->predicted_pct, F0, F1), F0, F1);
    char p[32];
    fmt_pct(fabs(r->predicted_pct), p, sizeof p);
    const char *num = p[0] == '+' ? p + 1 : p; /* the size alone: "17%" */
    sts_sbuf_puts(b, "<line class=\"ref pred\" x1=\"");
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" x2=\"");
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" y1=\"");
    sts_svg_num(b, y - 11);
    sts_sbuf_puts(b, "\" y2=\"");
    sts_svg_num(b, y + 11);
    sts_sbuf_printf(b, "\" data-predicted-pct=\"%.6g\"><title>predicted: a %s of %s or more</title></line>\n",
                    r->predicted_pct, r->predicted_pct < 0 ? "shrink" : "growth", num);
}

static void change_row(sts_sbuf *b, const sts_axis *a, const sts_rpt_diff_row *r, double y0)
{
    double y = y0 + 28;
    if (!isfinite(r->change_pct)) {
        sts_svg_text(b, (F0 + F1) / 2, y + 4, "middle", "sub", isnan(r->change_pct) ? "no percent" : "");
        return;
    }
    double lo = isnan(r->lo_pct) ? r->change_pct : r->lo_pct, hi = isnan(r->hi_pct) ? r->change_pct : r->hi_pct;
    double xl = clampd(sts_axis_map(a, lo, F0, F1), F0, F1), xh = clampd(sts_axis_map(a, hi, F0, F1), F0, F1);
    char t[160], p1[32], p2[32];
    fmt_pct(lo, p1, sizeof p1);
    fmt_pct(hi, p2, sizeof p2);
    snprintf(t, sizeof t, "interval %s to %s", p1, p2);
    rect(b, "ci pct", xl, y - 5, xh - xl, 10, t);
    predicted_mark(b, a, r, y);
    double x = clampd(sts_axis_map(a, r->change_pct, F0, F1), F0, F1);
    sts_sbuf_puts(b, "<circle class=\"est\" cx=\"");
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" cy=\"");
    sts_svg_num(b, y);
    fmt_pct(r->change_pct, p1, sizeof p1);
    sts_sbuf_printf(b, "\" r=\"4\"><title>change %s</title></circle>\n", p1);
    if (isfinite(r->p)) {
        /* On the side of the zero line with room; over it (with a halo) only when
         * neither side has room. */
        snprintf(t, sizeof t, "p = %.2g, %s", r->p, r->method);
        double x0 = clampd(sts_axis_map(a, 0, F0, F1), F0, F1);
        sts_placer pl;
        sts_placer_init(&pl, W, y0 + RH);
        sts_placer_seg(&pl, x0, y0, x0, y0 + RH);
        sts_spot spots[] = { { F1, y0 + 54, "end" }, { F0, y0 + 54, "start" } };
        if (sts_place_text(&pl, b, spots, 2, "tick", t) < 0) sts_svg_text(b, F1, y0 + 54, "end", "tick lbl", t);
        sts_placer_release(&pl);
    }
}

static void row(sts_sbuf *b, const sts_rpt_diff *d, const sts_axis *pa, size_t i, const char *key, const char *proc)
{
    const sts_rpt_diff_row *r = &d->rows[i];
    double y0 = TOP + (double)i * RH;
    sts_sbuf_puts(b, "<g class=\"drow\" data-key=\"");
    sts_sbuf_escs(b, r->key);
    sts_sbuf_printf(b, "\" data-verdict=\"%s\" data-prediction=\"%s\" data-base-n=\"%zu\" data-new-n=\"%zu\"",
                    r->verdict, r->prediction ? r->prediction : "", r->nb, r->nn);
    sts_sbuf_printf(b, " data-change-pct=\"%.6g\" data-ci-low-pct=\"%.6g\" data-ci-high-pct=\"%.6g\">\n", r->change_pct,
                    r->lo_pct, r->hi_pct);
    if (i) seg(b, "lane-sep", LAB_X, y0, W - 8, y0);
    labels(b, r, key, proc, y0);
    time_row(b, r, y0, d->confidence);
    change_row(b, pa, r, y0);
    sts_sbuf_puts(b, "</g>\n");
}

static void legend(sts_sbuf *b, double conf)
{
    double y = 62, x = LAB_X;
    char t[64];
    sts_sbuf_puts(b, "<g class=\"key\">");
    sts_sbuf_puts(b, "<circle class=\"pt\" cx=\"");
    sts_svg_num(b, x + 5);
    sts_sbuf_printf(b, "\" cy=\"%g\" r=\"4\"/>", y - 4);
    sts_svg_text(b, x + 14, y, "start", NULL, "BASE sample");
    x += 104;
    sts_sbuf_puts(b, "<rect class=\"pt2\" x=\"");
    sts_svg_num(b, x + 1.5);
    sts_sbuf_printf(b, "\" y=\"%g\" width=\"7\" height=\"7\"/>", y - 7.5);
    sts_svg_text(b, x + 14, y, "start", NULL, "NEW sample");
    x += 98;
    seg(b, "med", x + 4, y - 12, x + 4, y + 3);
    sts_svg_text(b, x + 12, y, "start", NULL, "median");
    x += 70;
    rect(b, "ci", x, y - 10, 22, 11, NULL);
    snprintf(t, sizeof t, "%.0f%% interval", conf * 100);
    sts_svg_text(b, x + 28, y, "start", NULL, t);
    x += 118;
    rect(b, "band", x, y - 10, 22, 11, NULL);
    sts_svg_text(b, x + 28, y, "start", NULL, "\"same\" band");
    sts_sbuf_puts(b, "</g>\n");
}

void sts_rpt_draw_diff(sts_sbuf *b, const char *id, int standalone, const sts_rpt_diff *d)
{
    double h = TOP + (double)d->n * RH + 48;
    char attrs[160], title[128], sub[256];
    snprintf(attrs, sizeof attrs, "data-rows=\"%zu\" data-intervals=\"%zu\" data-margin-pct=\"%g\"", d->n, d->total,
             d->margin_pct);
    snprintf(title, sizeof title, "Before and after: each %s of both runs, and the change", d->sample);
    sts_svg_open(b, id, W, h, standalone, attrs, title);
    snprintf(sub, sizeof sub,
             "Left: one time axis per row, BASE above NEW; lines join the same %s. Right: change in %% of "
             "BASE's median.",
             d->sample);
    sts_svg_subtitle(b, NULL, W, sub);
    legend(b, d->confidence);
    double lo, hi;
    pct_range(d, &lo, &hi);
    sts_axis pa;
    sts_axis_count(&pa, lo, hi, 4);
    double ybot = TOP + (double)d->n * RH;
    double bx0 = sts_axis_map(&pa, -d->margin_pct, F0, F1), bx1 = sts_axis_map(&pa, d->margin_pct, F0, F1);
    rect(b, "band", clampd(bx0, F0, F1), TOP, clampd(bx1, F0, F1) - clampd(bx0, F0, F1), ybot - TOP, NULL);
    sts_svg_xaxis(b, NULL, &pa, F0, F1, TOP, ybot, "change (%)");
    /* Keys are cut in the middle (a lane's device is at its end) and never to the same text. */
    enum { KEY = 160 };
    const char **keys = d->n ? calloc(d->n, sizeof *keys) : NULL, **procs = d->n ? calloc(d->n, sizeof *procs) : NULL;
    char *cut = d->n ? calloc(d->n, KEY) : NULL, *pcut = d->n ? calloc(d->n, KEY) : NULL;
    char *split = d->n ? calloc(d->n, KEY * 2) : NULL;
    if (keys && procs && cut && pcut && split) {
        for (size_t i = 0; i < d->n; i++) {
            const char *k = d->rows[i].key ? d->rows[i].key : "", *at = NULL;
            for (const char *p = k; (p = strstr(p, " / ")) != NULL; p++)
                at = p;
            keys[i] = at ? at + 3 : k;
            procs[i] = "";
            if (at) {
                snprintf(split + i * KEY * 2, KEY * 2, "%.*s", (int)(at - k), k);
                procs[i] = split + i * KEY * 2;
            }
        }
        sts_fit_unique(keys, d->n, LAB_W, sts_font_of("ttl"), cut, KEY);
        sts_fit_unique(procs, d->n, LAB_W, sts_font_of("tick"), pcut, KEY);
    }
    for (size_t i = 0; i < d->n; i++)
        row(b, d, &pa, i, cut ? cut + i * KEY : "", pcut ? pcut + i * KEY : "");
    free(keys);
    free(procs);
    free(cut);
    free(pcut);
    free(split);
    if (d->n == 0) sts_svg_text(b, W / 2, TOP + 20, "middle", "sub", "no interval with samples in both runs");
    sts_svg_close(b);
}
