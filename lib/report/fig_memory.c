/* The memory figure: one device's bytes in use over time, as the trace states them after
 * each allocation and free (held until the next event, so the line is a staircase), on
 * an axis from zero, with each step's start (and the last one's end) as a dashed line
 * and the peak marked with its value. More points than pixels are drawn as each pixel
 * column's lowest and highest value, so the peak is never lost to thinning. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/figures.h"
#include "report/svg.h"

#define W      760.0
#define LEFT   72.0
#define RIGHT  16.0
#define PLOT_H 220.0

static void line(sts_sbuf *b, const char *cls, double x0, double y0, double x1, double y1)
{
    sts_sbuf_printf(b, "<line class=\"%s\" x1=\"", cls);
    sts_svg_num(b, x0);
    sts_sbuf_puts(b, "\" y1=\"");
    sts_svg_num(b, y0);
    sts_sbuf_puts(b, "\" x2=\"");
    sts_svg_num(b, x1);
    sts_sbuf_puts(b, "\" y2=\"");
    sts_svg_num(b, y1);
    sts_sbuf_puts(b, "\"");
}

static void fmt_bytes(double v, char *buf, size_t n)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    size_t u = 0;
    while (u + 1 < sizeof unit / sizeof unit[0] && fabs(v) >= 1024) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%.0f B", v);
    else
        snprintf(buf, n, "%.3g %s", v, unit[u]);
}

typedef struct stair {
    sts_sbuf *b;
    sts_placer *pl;
    double x, y; /* the last vertex */
} stair;

static void vertex(stair *s, double x, double y)
{
    sts_svg_num(s->b, x);
    sts_sbuf_puts(s->b, ",");
    sts_svg_num(s->b, y);
    sts_sbuf_puts(s->b, " ");
    sts_placer_seg(s->pl, s->x, s->y, x, y);
    s->x = x;
    s->y = y;
}

/* The staircase: after each point the line holds its value until the next point's x.
 * Points falling in the same pixel column are reduced to that column's highest, lowest
 * and last value, which keeps every extreme. Its segments are recorded in pl. */
static void path(sts_sbuf *b, sts_placer *pl, const sts_rpt_memory *m, const sts_axis *ax, const sts_axis *ay,
                 double x0, double x1, double y_top, double y_bot)
{
    if (!m->npoints) return;
    sts_sbuf_printf(b, "<polyline class=\"line memline\" data-points=\"%zu\" points=\"", m->npoints);
    stair s = { b, pl, sts_axis_map(ax, m->ts[0], x0, x1), sts_axis_map(ay, m->bytes[0], y_bot, y_top) };
    vertex(&s, s.x, s.y);
    size_t i = 1;
    while (i < m->npoints) {
        double x = sts_axis_map(ax, m->ts[i], x0, x1);
        double col = floor(x);
        double lo = m->bytes[i], hi = m->bytes[i], last = m->bytes[i];
        size_t j = i + 1;
        while (j < m->npoints && floor(sts_axis_map(ax, m->ts[j], x0, x1)) == col) {
            lo = fmin(lo, m->bytes[j]);
            hi = fmax(hi, m->bytes[j]);
            last = m->bytes[j];
            j++;
        }
        vertex(&s, x, s.y);
        if (j - i > 1) {
            vertex(&s, x, sts_axis_map(ay, hi, y_bot, y_top));
            vertex(&s, x, sts_axis_map(ay, lo, y_bot, y_top));
        }
        vertex(&s, x, sts_axis_map(ay, last, y_bot, y_top));
        i = j;
    }
    vertex(&s, x1, s.y);
    sts_sbuf_puts(b, "\"/>\n");
}

static void step_lines(sts_sbuf *b, sts_placer *pl, const sts_rpt_memory *m, const sts_axis *ax, double x0, double x1,
                       double y_top, double y_bot)
{
    char pk[48];
    for (size_t k = 0; k <= m->nsteps && m->nsteps; k++) {
        int end = k == m->nsteps;
        double ts = end ? m->step_end[k - 1] : m->step_ts[k];
        double x = sts_axis_map(ax, ts, x0, x1);
        line(b, "ref stepb", x, y_top, x, y_bot);
        sts_sbuf_printf(b, " data-step=\"%zu\" data-ts-ns=\"%.0f\"", end ? k - 1 : k, ts);
        if (!end) sts_sbuf_printf(b, " data-peak-bytes=\"%.0f\"", m->step_peak[k]);
        sts_sbuf_puts(b, "><title>");
        sts_sbuf_escs(b, m->step_name ? m->step_name : "step");
        sts_sbuf_puts(b, " ");
        sts_sbuf_escs(b, m->labels[end ? k - 1 : k]);
        if (end) {
            sts_sbuf_puts(b, " ends");
        } else {
            if (m->step_peak[k] >= 0)
                fmt_bytes(m->step_peak[k], pk, sizeof pk);
            else
                snprintf(pk, sizeof pk, "unknown");
            sts_sbuf_printf(b, " starts; its peak on this device: %s", pk);
        }
        sts_sbuf_puts(b, "</title></line>\n");
        sts_placer_seg(pl, x, y_top, x, y_bot);
    }
}

/* Step numbers above the plot, each centred in its step when it has room there. */
static void step_numbers(sts_sbuf *b, sts_placer *pl, const sts_rpt_memory *m, const sts_axis *ax, double x0, double x1,
                         double y_top)
{
    double widest = 0;
    for (size_t k = 0; k < m->nsteps; k++)
        widest = fmax(widest, sts_text_width(m->labels[k], sts_font_of("tick")));
    for (size_t k = 0; k < m->nsteps; k++) {
        double xa = sts_axis_map(ax, m->step_ts[k], x0, x1), xb = sts_axis_map(ax, m->step_end[k], x0, x1);
        if (xb - xa < widest + 4) continue;
        sts_spot at = { (xa + xb) / 2, y_top - 4, "middle" };
        sts_place_text(pl, b, &at, 1, "tick", m->labels[k]);
    }
}

static void peak_mark(sts_sbuf *b, sts_placer *pl, const sts_rpt_memory *m, const sts_axis *ax, const sts_axis *ay,
                      double x0, double x1, double y_top, double y_bot)
{
    if (!(m->peak_bytes >= 0)) return;
    double x = sts_axis_map(ax, m->peak_ts, x0, x1), y = sts_axis_map(ay, m->peak_bytes, y_bot, y_top);
    char v[48], lab[96], when[48];
    fmt_bytes(m->peak_bytes, v, sizeof v);
    sts_fmt_duration(m->peak_ts - m->t0, when, sizeof when);
    sts_sbuf_puts(b, "<circle class=\"peak\" cx=\"");
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" cy=\"");
    sts_svg_num(b, y);
    sts_sbuf_printf(b, "\" r=\"4\" data-bytes=\"%.0f\" data-ts-ns=\"%.0f\"><title>peak %s at %s</title></circle>\n",
                    m->peak_bytes, m->peak_ts, v, when);
    sts_box box = { x - 5, y - 5, x + 5, y + 5 };
    sts_placer_box(pl, box);
    snprintf(lab, sizeof lab, "peak %s", v);
    sts_spot spots[] = { { x + 8, y - 6, "start" },     { x - 8, y - 6, "end" },        { x + 8, y + 14, "start" },
                         { x - 8, y + 14, "end" },      { x, y - 10, "middle" },        { x, y + 18, "middle" },
                         { x1 - 4, y_top + 12, "end" }, { x0 + 4, y_top + 12, "start" } };
    sts_place_text(pl, b, spots, sizeof spots / sizeof spots[0], "lbl", lab);
}

void sts_rpt_draw_memory(sts_sbuf *b, const char *id, int standalone, const sts_rpt_memory *m)
{
    double hi = 0;
    for (size_t i = 0; i < m->npoints; i++)
        hi = fmax(hi, m->bytes[i]);
    if (m->peak_bytes > hi) hi = m->peak_bytes;
    sts_axis ay, ax;
    sts_axis_bytes(&ay, 0, hi, 5);
    double t1 = m->t1 > m->t0 ? m->t1 : m->t0 + 1;
    sts_axis_time_exact(&ax, m->t0, t1, 6);
    /* Ticks read time since the window's start: shift the axis to start at 0. */
    sts_axis axr;
    sts_axis_time_exact(&axr, 0, t1 - m->t0, 6);

    /* Time starts a little right of the value axis, so the two axes' first labels
     * never meet at the corner. */
    const double y_top = 86, y_bot = y_top + PLOT_H, h = y_bot + 48, x0 = LEFT, x1 = W - RIGHT, px0 = x0 + 12;
    sts_placer pl;
    sts_placer_init(&pl, W, h);
    char attrs[400], title[300], sub[400], pk[48], st[48], en[48];
    snprintf(attrs, sizeof attrs,
             "data-points=\"%zu\" data-steps=\"%zu\" data-found=\"%zu\" data-peak-bytes=\"%.0f\" "
             "data-peak-ts-ns=\"%.0f\" data-t0-ns=\"%.0f\" data-unit=\"%s\"",
             m->npoints, m->nsteps, m->found, m->peak_bytes >= 0 ? m->peak_bytes : -1,
             m->peak_bytes >= 0 ? m->peak_ts : -1, m->t0, ay.unit_name);
    char dev[120];
    sts_fit_middle(m->device ? m->device : "", 420, sts_font_of("ttl"), dev, sizeof dev);
    snprintf(title, sizeof title, "Memory in use on %s over time", dev);
    sts_svg_open(b, id, W, h, standalone, attrs, title);
    if (m->peak_bytes >= 0)
        fmt_bytes(m->peak_bytes, pk, sizeof pk);
    else
        snprintf(pk, sizeof pk, "unknown");
    if (m->start_bytes >= 0)
        fmt_bytes(m->start_bytes, st, sizeof st);
    else
        snprintf(st, sizeof st, "unknown");
    if (m->end_bytes >= 0)
        fmt_bytes(m->end_bytes, en, sizeof en);
    else
        snprintf(en, sizeof en, "unknown");
    snprintf(sub, sizeof sub, "As the trace states it after each event: start %s, peak %s, end %s.%s%s", st, pk, en,
             m->nsteps ? " Dashed lines: step boundaries." : "", m->nsteps < m->found ? " First 60 steps." : "");
    sts_svg_subtitle(b, &pl, W, sub);
    sts_svg_yaxis(b, &pl, &ay, x0, x1, y_top, y_bot, "in use");
    sts_svg_xaxis(b, &pl, &axr, px0, x1, y_top, y_bot, "time since the window's start");
    step_lines(b, &pl, m, &ax, px0, x1, y_top, y_bot);
    path(b, &pl, m, &ax, &ay, px0, x1, y_top, y_bot);
    peak_mark(b, &pl, m, &ax, &ay, px0, x1, y_top, y_bot);
    step_numbers(b, &pl, m, &ax, px0, x1, y_top);
    sts_placer_release(&pl);
    sts_svg_close(b);
}
