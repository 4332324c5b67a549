/* Writing the report: the HTML page around the figures, and standalone SVG files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/outfile_fd.h"
#include "report/report_impl.h"
#include "report/style.h"
#include "stepscope/version.h"

void sts_rpt_draw(sts_sbuf *b, const sts_rpt_fig *f, int standalone)
{
    switch (f->kind) {
    case STS_RPT_FIG_STEPS:
        sts_rpt_draw_steps(b, f->id, standalone, f->data);
        break;
    case STS_RPT_FIG_LANES:
        sts_rpt_draw_lanes(b, f->id, standalone, f->data);
        break;
    case STS_RPT_FIG_BENCH:
        sts_rpt_draw_bench(b, f->id, standalone, f->data);
        break;
    case STS_RPT_FIG_LEDGER_CALLS:
        sts_rpt_draw_ledger_calls(b, f->id, standalone, f->data);
        break;
    case STS_RPT_FIG_HBARS:
        sts_rpt_draw_hbars(b, f->id, standalone, f->data);
        break;
    case STS_RPT_FIG_DIFF:
        sts_rpt_draw_diff(b, f->id, standalone, f->data);
        break;
    case STS_RPT_FIG_WINDOWS:
        sts_rpt_draw_windows(b, f->id, standalone, f->data);
        break;
    case STS_RPT_FIG_MEMORY:
        sts_rpt_draw_memory(b, f->id, standalone, f->data);
        break;
    }
}

static void facts(sts_sbuf *b, const sts_rpt_facts *f)
{
    sts_sbuf_puts(b, "<dl class=\"facts\">\n");
    for (size_t i = 0; i < f->n; i++) {
        sts_sbuf_puts(b, "<dt>");
        sts_sbuf_escs(b, f->key[i]);
        sts_sbuf_puts(b, "</dt><dd>");
        sts_sbuf_escs(b, f->val[i]);
        sts_sbuf_puts(b, "</dd>\n");
    }
    sts_sbuf_puts(b, "</dl>\n");
}

static void section(sts_sbuf *b, const sts_rpt_section *s)
{
    sts_sbuf_printf(b, "<section id=\"%s\" data-kind=\"%s\">\n<h2>", s->id, s->kind);
    sts_sbuf_escs(b, s->heading);
    sts_sbuf_puts(b, "</h2>\n");
    if (s->source) {
        sts_sbuf_puts(b, "<p class=\"meta\">from <span class=\"mono\">");
        sts_sbuf_escs(b, s->source);
        sts_sbuf_puts(b, "</span></p>\n");
    }
    for (const sts_rpt_item *it = s->items; it; it = it->next) {
        switch (it->kind) {
        case STS_RPT_ITEM_FIG:
            sts_sbuf_printf(b, "<figure id=\"%s-box\">\n", it->fig->id);
            sts_rpt_draw(b, it->fig, 0);
            if (it->fig->how_to_read) {
                sts_sbuf_puts(b, "<figcaption><strong>How to read:</strong> ");
                sts_sbuf_escs(b, it->fig->how_to_read);
                sts_sbuf_puts(b, "</figcaption>\n");
            }
            sts_sbuf_puts(b, "</figure>\n");
            break;
        case STS_RPT_ITEM_FACTS:
            facts(b, it->facts);
            break;
        case STS_RPT_ITEM_NAMES:
            sts_rpt_table_names(b, it->id, it->names);
            break;
        case STS_RPT_ITEM_NOTE:
            sts_sbuf_puts(b, "<p class=\"note\">");
            sts_sbuf_escs(b, it->text);
            sts_sbuf_puts(b, "</p>\n");
            break;
        case STS_RPT_ITEM_H3:
            sts_sbuf_puts(b, "<h3>");
            sts_sbuf_escs(b, it->text);
            sts_sbuf_puts(b, "</h3>\n");
            break;
        }
    }
    sts_sbuf_puts(b, "</section>\n");
}

static void page(sts_sbuf *b, const sts_report *r)
{
    sts_sbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"color-scheme\" content=\"light dark\">\n");
    sts_sbuf_printf(b, "<meta name=\"generator\" content=\"stepscope %s\">\n<title>", sts_version());
    sts_sbuf_escs(b, r->title);
    sts_sbuf_puts(b, "</title>\n<style>\n");
    sts_rpt_css_figures(b);
    sts_rpt_css_page(b);
    sts_sbuf_puts(b, "</style>\n</head>\n<body>\n<main>\n<h1>");
    sts_sbuf_escs(b, r->title);
    size_t nsec = 0, nfigs = sts_report_figure_count(r);
    for (const sts_rpt_section *s = r->sections; s; s = s->next)
        nsec++;
    sts_sbuf_printf(b,
                    "</h1>\n<p class=\"meta\">Written by stepscope %s: %zu section%s, %zu figure%s. "
                    "Self-contained: no scripts, no network.</p>\n",
                    sts_version(), nsec, nsec == 1 ? "" : "s", nfigs, nfigs == 1 ? "" : "s");
    if (nsec > 1) {
        sts_sbuf_puts(b, "<nav><ul>\n");
        for (const sts_rpt_section *s = r->sections; s; s = s->next) {
            sts_sbuf_printf(b, "<li><a href=\"#%s\">", s->id);
            sts_sbuf_escs(b, s->heading);
            sts_sbuf_puts(b, "</a></li>\n");
        }
        sts_sbuf_puts(b, "</ul></nav>\n");
    }
    if (!r->sections) sts_sbuf_puts(b, "<p class=\"note\">Nothing to show: no inputs were added.</p>\n");
    for (const sts_rpt_section *s = r->sections; s; s = s->next)
        section(b, s);
    sts_sbuf_puts(b, "</main>\n</body>\n</html>\n");
}

sts_status sts_report_render(const sts_report *r, char **html, size_t *len)
{
    *html = NULL;
    if (len) *len = 0;
    if (!r) return STS_ERR_INVALID_ARG;
    sts_sbuf b = STS_SBUF_INIT;
    page(&b, r);
    if (b.oom || !b.p) {
        sts_sbuf_release(&b);
        return STS_ERR_NOMEM;
    }
    *html = b.p;
    if (len) *len = b.n;
    return STS_OK;
}

/* "-" is standard output; a file is replaced whole or not at all (base/outfile). */
static sts_status write_file(const char *path, const char *text, size_t n, sts_error *err)
{
    if (strcmp(path, "-") != 0) return sts_outfile_write_all(path, text, n, err);
    if (fwrite(text, 1, n, stdout) != n || fflush(stdout) != 0)
        return sts_error_set(err, STS_ERR_IO, -1, "standard output: write failed: %s", strerror(errno));
    return STS_OK;
}

sts_status sts_report_write_html(const sts_report *r, const char *path, sts_error *err)
{
    char *html;
    size_t n;
    sts_status st = sts_rpt_output_is_no_input(r, path, err);
    if (st != STS_OK) return st;
    st = sts_report_render(r, &html, &n);
    if (st != STS_OK) return sts_error_set(err, st, -1, "%s: cannot render the report: %s", path, sts_strerror(st));
    st = write_file(path, html, n, err);
    free(html);
    return st;
}

typedef struct svg_writer {
    const sts_report *r;
    const char *dir;
    size_t *written;
    sts_error *err;
    sts_status st;
} svg_writer;

/* Before any is written: a figure's file that is an input refuses them all. */
static void check_one(const sts_rpt_fig *f, void *user)
{
    svg_writer *w = user;
    if (w->st != STS_OK) return;
    size_t plen = strlen(w->dir) + strlen(f->id) + 8;
    char *path = malloc(plen);
    if (!path) {
        w->st = sts_error_set(w->err, STS_ERR_NOMEM, -1, "%s: out of memory", w->dir);
        return;
    }
    snprintf(path, plen, "%s/%s.svg", w->dir, f->id);
    w->st = sts_rpt_output_is_no_input(w->r, path, w->err);
    free(path);
}

static void write_one(const sts_rpt_fig *f, void *user)
{
    svg_writer *w = user;
    if (w->st != STS_OK) return;
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw(&b, f, 1);
    size_t plen = strlen(w->dir) + strlen(f->id) + 8;
    char *path = b.oom ? NULL : malloc(plen);
    if (!path) {
        sts_sbuf_release(&b);
        w->st = sts_error_set(w->err, STS_ERR_NOMEM, -1, "%s: out of memory drawing %s", w->dir, f->id);
        return;
    }
    snprintf(path, plen, "%s/%s.svg", w->dir, f->id);
    w->st = write_file(path, b.p, b.n, w->err);
    free(path);
    sts_sbuf_release(&b);
    if (w->st == STS_OK && w->written) (*w->written)++;
}

sts_status sts_report_write_svgs(const sts_report *r, const char *dir, size_t *written, sts_error *err)
{
    if (written) *written = 0;
    if (!r || !dir) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no directory given");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sts_error_set(err, STS_ERR_IO, -1, "%s: cannot create directory: %s", dir, strerror(errno));
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return sts_error_set(err, STS_ERR_IO, -1, "%s: not a directory", dir);
    svg_writer w = { r, dir, written, err, STS_OK };
    sts_rpt_each_fig(r, check_one, &w);
    sts_rpt_each_fig(r, write_one, &w);
    return w.st;
}
