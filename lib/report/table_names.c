/* The names table: where self time goes, by slice name. */
#include <math.h>
#include <stdio.h>

#include "report/figures.h"
#include "report/scale.h"

static void cell_dur(sts_sbuf *b, double ns)
{
    char d[48];
    sts_fmt_duration(ns, d, sizeof d);
    sts_sbuf_printf(b, "<td class=\"n\" data-ns=\"%.0f\">%s</td>", ns, d);
}

void sts_rpt_table_names(sts_sbuf *b, const char *id, const sts_rpt_names *n)
{
    sts_sbuf_printf(b, "<table id=\"%s\" data-rows=\"%zu\" data-names=\"%zu\">\n", id, n->n, n->total);
    sts_sbuf_puts(
        b, "<thead><tr><th>name</th><th class=\"n\">count</th><th class=\"n\">self time</th>"
           "<th class=\"n\">share of self</th><th class=\"n\">total (incl. children)</th>"
           "<th class=\"n\">min</th><th class=\"n\">median</th><th class=\"n\">max</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n->n; i++) {
        const sts_rpt_name_row *r = &n->rows[i];
        double share = n->trace_self_ns > 0 ? r->self_ns / n->trace_self_ns : 0;
        sts_sbuf_puts(b, "<tr><td class=\"name mono\">");
        sts_sbuf_escs(b, r->name);
        sts_sbuf_printf(b, "</td><td class=\"n\">%llu</td>", (unsigned long long)r->count);
        cell_dur(b, r->self_ns);
        /* The meter is decoration: the percentage beside it carries the value. */
        sts_sbuf_printf(b, "<td class=\"n\"><span class=\"meter\" style=\"width:%.1fpx\"></span>%.1f%%</td>",
                        fmax(1, share * 80), share * 100);
        cell_dur(b, r->total_ns);
        cell_dur(b, r->min_ns);
        cell_dur(b, r->median_ns);
        cell_dur(b, r->max_ns);
        sts_sbuf_puts(b, "</tr>\n");
    }
    if (n->n == 0) sts_sbuf_puts(b, "<tr><td colspan=\"8\">no slices</td></tr>\n");
    sts_sbuf_puts(b, "</tbody></table>\n");
    if (n->total > n->n)
        sts_sbuf_printf(b, "<p class=\"note\">Showing the %zu names with the most self time of %zu.</p>\n", n->n,
                        n->total);
}
