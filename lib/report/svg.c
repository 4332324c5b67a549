#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/style.h"

void sts_svg_num(sts_sbuf *b, double v)
{
    if (!isfinite(v)) v = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%.2f", v);
    char *end = buf + strlen(buf) - 1;
    while (*end == '0')
        *end-- = 0;
    if (*end == '.') *end = 0;
    if (strcmp(buf, "-0") == 0) strcpy(buf, "0");
    sts_sbuf_puts(b, buf);
}

void sts_svg_open(sts_sbuf *b, const char *id, double w, double h, int standalone, const char *attrs, const char *title)
{
    if (standalone) sts_sbuf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sts_sbuf_puts(b, "<svg");
    if (standalone) sts_sbuf_puts(b, " xmlns=\"http://www.w3.org/2000/svg\"");
    sts_sbuf_printf(b, " id=\"%s\" class=\"fig\" role=\"img\" aria-labelledby=\"%s-title\" viewBox=\"0 0 ", id, id);
    sts_svg_num(b, w);
    sts_sbuf_puts(b, " ");
    sts_svg_num(b, h);
    sts_sbuf_puts(b, "\" width=\"");
    sts_svg_num(b, w);
    sts_sbuf_puts(b, "\" height=\"");
    sts_svg_num(b, h);
    sts_sbuf_puts(b, "\"");
    if (attrs && *attrs) {
        sts_sbuf_puts(b, " ");
        sts_sbuf_puts(b, attrs);
    }
    sts_sbuf_puts(b, ">\n");
    if (standalone) {
        sts_sbuf_puts(b, "<style>\n");
        sts_rpt_css_figures(b);
        sts_sbuf_puts(b, "</style>\n");
        /* A standalone file has no page behind it: paint the background. */
        sts_sbuf_puts(b, "<rect class=\"bgfill\" width=\"100%\" height=\"100%\" style=\"fill:var(--bg)\"/>\n");
    }
    sts_sbuf_printf(b, "<title id=\"%s-title\">", id);
    sts_sbuf_escs(b, title);
    sts_sbuf_puts(b, "</title>\n");
    /* The <title> above holds it whole; the visible one stays inside the figure. */
    char fit[512];
    if (!sts_fit_end(title, w - 16, sts_font_of("ttl"), fit, sizeof fit)) fit[0] = 0;
    sts_svg_text(b, 8, 20, "start", "ttl", fit);
}

void sts_svg_subtitle(sts_sbuf *b, sts_placer *p, double w, const char *text)
{
    char fit[1024];
    if (!sts_fit_end(text, w - 16, sts_font_of("sub"), fit, sizeof fit)) fit[0] = 0;
    sts_svg_text_rec(b, p, 8, 38, "start", "sub", fit);
}

void sts_svg_close(sts_sbuf *b)
{
    sts_sbuf_puts(b, "</svg>\n");
}

/* Textures, in order: none, /, dots, -, \, cross, |, dense dots. */
static const char *const textures[STS_RPT_NSERIES] = {
    "",
    "<path class=\"tex\" d=\"M-1 1L1 -1M0 8L8 0M7 9L9 7\"/>",
    "<circle class=\"dot\" cx=\"2\" cy=\"2\" r=\"1.2\"/><circle class=\"dot\" cx=\"6\" cy=\"6\" r=\"1.2\"/>",
    "<path class=\"tex\" d=\"M0 2H8M0 6H8\"/>",
    "<path class=\"tex\" d=\"M-1 7L1 9M0 0L8 8M7 -1L9 1\"/>",
    "<path class=\"tex\" d=\"M0 0L8 8M8 0L0 8\"/>",
    "<path class=\"tex\" d=\"M2 0V8M6 0V8\"/>",
    ("<circle class=\"dot\" cx=\"2\" cy=\"2\" r=\".9\"/><circle class=\"dot\" cx=\"6\" cy=\"2\" r=\".9\"/>"
     "<circle class=\"dot\" cx=\"2\" cy=\"6\" r=\".9\"/><circle class=\"dot\" cx=\"6\" cy=\"6\" r=\".9\"/>"),
};

void sts_svg_patterns(sts_sbuf *b, const char *id)
{
    sts_sbuf_puts(b, "<defs>\n");
    for (int i = 0; i < STS_RPT_NSERIES; i++) {
        sts_sbuf_printf(b,
                        "<pattern id=\"%s-p%d\" patternUnits=\"userSpaceOnUse\" width=\"8\" height=\"8\">"
                        "<rect class=\"s%d\" width=\"8\" height=\"8\"/>%s</pattern>\n",
                        id, i, i, textures[i]);
    }
    sts_sbuf_printf(b,
                    "<pattern id=\"%s-rem\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\">"
                    "<rect class=\"remfill\" width=\"6\" height=\"6\"/>"
                    "<path class=\"remtex\" d=\"M-1 1L1 -1M0 6L6 0M5 7L7 5\"/></pattern>\n",
                    id);
    sts_sbuf_puts(b, "</defs>\n");
}

void sts_svg_series_fill(sts_sbuf *b, const char *id, size_t series)
{
    sts_sbuf_printf(b, " fill=\"url(#%s-p%zu)\"", id, series % STS_RPT_NSERIES);
}

void sts_svg_text(sts_sbuf *b, double x, double y, const char *anchor, const char *cls, const char *text)
{
    sts_sbuf_puts(b, "<text x=\"");
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" y=\"");
    sts_svg_num(b, y);
    sts_sbuf_puts(b, "\"");
    if (anchor && strcmp(anchor, "start") != 0) sts_sbuf_printf(b, " text-anchor=\"%s\"", anchor);
    if (cls) sts_sbuf_printf(b, " class=\"%s\"", cls);
    sts_sbuf_puts(b, ">");
    sts_sbuf_escs(b, text);
    sts_sbuf_puts(b, "</text>\n");
}

void sts_svg_text_rec(sts_sbuf *b, sts_placer *p, double x, double y, const char *anchor, const char *cls,
                      const char *text)
{
    sts_svg_text(b, x, y, anchor, cls, text);
    if (p) sts_placer_text(p, x, y, anchor, cls, text);
}

static void line(sts_sbuf *b, const char *cls, double x1, double y1, double x2, double y2)
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

static void axis_title(char *buf, size_t n, const sts_axis *a, const char *title)
{
    if (a->unit_name && *a->unit_name)
        snprintf(buf, n, "%s (%s)", title, a->unit_name);
    else
        snprintf(buf, n, "%s", title);
}

void sts_svg_yaxis(sts_sbuf *b, sts_placer *p, const sts_axis *a, double x0, double x1, double y_top, double y_bot,
                   const char *title)
{
    char lab[64], t[256];
    sts_sbuf_printf(b, "<g class=\"yaxis\" data-unit=\"%s\" data-ticks=\"%d\">\n", a->unit_name, a->nticks);
    for (int i = 0; i < a->nticks; i++) {
        double v = sts_axis_tick(a, i);
        double y = sts_axis_map(a, v, y_bot, y_top);
        line(b, fabs(v) < a->step * 1e-9 ? "zero" : "grid", x0, y, x1, y);
        sts_axis_tick_label(a, i, lab, sizeof lab);
        sts_svg_text_rec(b, p, x0 - 6, y + 4, "end", "tick", lab);
    }
    line(b, "axis", x0, y_top, x0, y_bot);
    if (p) sts_placer_seg(p, x0, y_top, x0, y_bot);
    axis_title(t, sizeof t, a, title);
    sts_svg_text_rec(b, p, x0 - 6, y_top - 12, "start", "ax-t", t);
    sts_sbuf_puts(b, "</g>\n");
}

void sts_svg_xaxis(sts_sbuf *b, sts_placer *p, const sts_axis *a, double x0, double x1, double y_top, double y_bot,
                   const char *title)
{
    char lab[64], t[256];
    sts_sbuf_printf(b, "<g class=\"xaxis\" data-unit=\"%s\" data-ticks=\"%d\">\n", a->unit_name, a->nticks);
    for (int i = 0; i < a->nticks; i++) {
        double v = sts_axis_tick(a, i);
        double x = sts_axis_map(a, v, x0, x1);
        line(b, fabs(v) < a->step * 1e-9 ? "zero" : "grid", x, y_top, x, y_bot);
        sts_axis_tick_label(a, i, lab, sizeof lab);
        sts_svg_text_rec(b, p, x, y_bot + 15, "middle", "tick", lab);
    }
    line(b, "axis", x0, y_bot, x1, y_bot);
    if (p) sts_placer_seg(p, x0, y_bot, x1, y_bot);
    axis_title(t, sizeof t, a, title);
    sts_svg_text_rec(b, p, (x0 + x1) / 2, y_bot + 32, "middle", "ax-t", t);
    sts_sbuf_puts(b, "</g>\n");
}

double sts_svg_text_width(const char *text, double font_px)
{
    sts_font f = { font_px, 0 };
    return sts_text_width(text, f);
}

int sts_svg_fit_text(const char *text, double max_px, double font_px, char *buf, size_t n)
{
    sts_font f = { font_px, 0 };
    return sts_fit_end(text, max_px, f, buf, n);
}

double sts_svg_legend_width(const char *label)
{
    return 19 + sts_text_width(label, sts_font_of(NULL)) + 18;
}

double sts_svg_legend_item(sts_sbuf *b, sts_placer *p, double x, double y, const char *swatch_attrs, const char *label)
{
    sts_sbuf_puts(b, "<g class=\"key\"><rect class=\"sw\" x=\"");
    sts_svg_num(b, x);
    sts_sbuf_puts(b, "\" y=\"");
    sts_svg_num(b, y - 10);
    sts_sbuf_printf(b, "\" width=\"14\" height=\"14\" %s/>", swatch_attrs);
    sts_svg_text_rec(b, p, x + 19, y + 1, "start", NULL, label);
    sts_sbuf_puts(b, "</g>\n");
    if (p) {
        sts_box sw = { x, y - 10, x + 14, y + 4 };
        sts_placer_box(p, sw);
    }
    return x + sts_svg_legend_width(label);
}
