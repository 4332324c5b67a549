/* The report object: sections, items, unique ids and the arena behind them. */
#include "report/report_impl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void *sts_rpt_alloc(sts_report *r, size_t n)
{
    void *p = sts_arena_alloc(&r->arena, n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

const char *sts_rpt_strndup(sts_report *r, const char *s, size_t n)
{
    char *c = sts_arena_alloc(&r->arena, n + 1);
    if (!c) return NULL;
    if (n) memcpy(c, s, n);
    c[n] = 0;
    return c;
}

const char *sts_rpt_strdup(sts_report *r, const char *s)
{
    return sts_rpt_strndup(r, s ? s : "", s ? strlen(s) : 0);
}

sts_rpt_steps *sts_rpt_steps_new(sts_report *r, const sts_step *steps, size_t n, size_t most, const char *const *series,
                                 size_t nseries)
{
    sts_rpt_steps *s = sts_rpt_alloc(r, sizeof *s);
    if (!s) return NULL;
    s->nsteps = n < most ? n : most;
    s->found = n;
    s->nseries = nseries;
    s->series = (const char **)series;
    s->labels = sts_rpt_alloc(r, (s->nsteps + 1) * sizeof *s->labels);
    s->total_ns = sts_rpt_alloc(r, (s->nsteps + 1) * sizeof *s->total_ns);
    s->rem_ns = sts_rpt_alloc(r, (s->nsteps + 1) * sizeof *s->rem_ns);
    s->child_ns = sts_rpt_alloc(r, (s->nsteps * nseries + 1) * sizeof *s->child_ns);
    s->child_count = sts_rpt_alloc(r, (s->nsteps * nseries + 1) * sizeof *s->child_count);
    if (!s->labels || !s->total_ns || !s->rem_ns || !s->child_ns || !s->child_count) return NULL;
    for (size_t k = 0; k < s->nsteps; k++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%" PRId64, steps[k].index);
        if (!(s->labels[k] = sts_rpt_strdup(r, lab))) return NULL;
    }
    return s;
}

const char *sts_rpt_unique_id(sts_report *r, const char *base)
{
    sts_rpt_idcount *c = r->ids;
    while (c && strcmp(c->base, base) != 0)
        c = c->next;
    if (!c) {
        c = sts_rpt_alloc(r, sizeof *c);
        if (!c || !(c->base = sts_rpt_strdup(r, base))) return NULL;
        c->next = r->ids;
        r->ids = c;
    }
    c->n++;
    if (c->n == 1) return c->base;
    char buf[128];
    snprintf(buf, sizeof buf, "%s-%u", base, c->n);
    return sts_rpt_strdup(r, buf);
}

const char *sts_report_input_name(sts_report_input kind)
{
    switch (kind) {
    case STS_REPORT_INPUT_TRACE:
        return "trace";
    case STS_REPORT_INPUT_BENCH:
        return "bench";
    case STS_REPORT_INPUT_LEDGER:
        return "ledger";
    case STS_REPORT_INPUT_DIFF:
        return "diff";
    default:
        return "unknown";
    }
}

sts_status sts_report_create(const char *title, sts_report **out)
{
    *out = NULL;
    sts_report *r = calloc(1, sizeof *r);
    if (!r) return STS_ERR_NOMEM;
    r->title = sts_rpt_strdup(r, title && *title ? title : "stepscope report");
    if (!r->title) {
        sts_report_free(r);
        return STS_ERR_NOMEM;
    }
    *out = r;
    return STS_OK;
}

sts_status sts_rpt_note_input(sts_report *r, const char *path, sts_error *err)
{
    struct stat st;
    if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0) return STS_OK;
    sts_rpt_input_file *f = sts_rpt_alloc(r, sizeof *f);
    if (!f || !(f->path = sts_rpt_strdup(r, path)))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
    f->dev = (unsigned long long)st.st_dev;
    f->ino = (unsigned long long)st.st_ino;
    f->next = r->inputs;
    r->inputs = f;
    return STS_OK;
}

/* Compared by device and inode, as the file that `out` would replace: a name that
 * resolves to an input through a link or another spelling is still that input. */
sts_status sts_rpt_output_is_no_input(const sts_report *r, const char *out, sts_error *err)
{
    struct stat st;
    if (strcmp(out, "-") == 0 || stat(out, &st) != 0) return STS_OK;
    for (const sts_rpt_input_file *f = r->inputs; f; f = f->next)
        if (f->dev == (unsigned long long)st.st_dev && f->ino == (unsigned long long)st.st_ino)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                                 "%s: is %s%s%s; writing the report there would replace it: name another output "
                                 "file",
                                 out, strcmp(out, f->path) == 0 ? "an input" : "the input ",
                                 strcmp(out, f->path) == 0 ? "" : f->path,
                                 strcmp(out, f->path) == 0 ? "" : " (the same file)");
    return STS_OK;
}

void sts_report_free(sts_report *r)
{
    if (!r) return;
    sts_arena_release(&r->arena);
    free(r);
}

sts_rpt_section *sts_rpt_section_new(sts_report *r, const char *kind, const char *heading, const char *source)
{
    sts_rpt_section *s = sts_rpt_alloc(r, sizeof *s);
    if (!s) return NULL;
    char base[64];
    snprintf(base, sizeof base, "sec-%s", kind);
    s->id = sts_rpt_unique_id(r, base);
    s->kind = sts_rpt_strdup(r, kind);
    s->heading = sts_rpt_strdup(r, heading);
    s->source = source ? sts_rpt_strdup(r, source) : NULL;
    if (!s->id || !s->kind || !s->heading || (source && !s->source)) return NULL;
    return s;
}

void sts_rpt_section_commit(sts_report *r, sts_rpt_section *s)
{
    if (r->last_section)
        r->last_section->next = s;
    else
        r->sections = s;
    r->last_section = s;
}

void sts_rpt_each_fig(const sts_report *r, void (*fn)(const sts_rpt_fig *f, void *user), void *user)
{
    for (const sts_rpt_section *s = r->sections; s; s = s->next)
        for (const sts_rpt_item *it = s->items; it; it = it->next)
            if (it->kind == STS_RPT_ITEM_FIG) fn(it->fig, user);
}

static sts_rpt_item *item_new(sts_report *r, sts_rpt_section *s, sts_rpt_item_kind kind)
{
    sts_rpt_item *it = sts_rpt_alloc(r, sizeof *it);
    if (!it) return NULL;
    it->kind = kind;
    if (s->last)
        s->last->next = it;
    else
        s->items = it;
    s->last = it;
    return it;
}

sts_rpt_item *sts_rpt_add_fig(sts_report *r, sts_rpt_section *s, sts_rpt_fig_kind kind, const char *base_id,
                              const void *data, const char *how_to_read)
{
    sts_rpt_fig *f = sts_rpt_alloc(r, sizeof *f);
    if (!f || !(f->id = sts_rpt_unique_id(r, base_id))) return NULL;
    f->kind = kind;
    f->data = data;
    f->how_to_read = how_to_read;
    sts_rpt_item *it = item_new(r, s, STS_RPT_ITEM_FIG);
    if (!it) return NULL;
    it->fig = f;
    return it;
}

sts_rpt_item *sts_rpt_add_text(sts_report *r, sts_rpt_section *s, sts_rpt_item_kind kind, const char *text)
{
    sts_rpt_item *it = item_new(r, s, kind);
    if (!it || !(it->text = sts_rpt_strdup(r, text))) return NULL;
    return it;
}

sts_rpt_facts *sts_rpt_add_facts(sts_report *r, sts_rpt_section *s)
{
    sts_rpt_item *it = item_new(r, s, STS_RPT_ITEM_FACTS);
    if (!it) return NULL;
    it->facts = sts_rpt_alloc(r, sizeof *it->facts);
    return it->facts;
}

sts_rpt_item *sts_rpt_add_names(sts_report *r, sts_rpt_section *s, const sts_rpt_names *names, const char *base_id)
{
    sts_rpt_item *it = item_new(r, s, STS_RPT_ITEM_NAMES);
    if (!it || !(it->id = sts_rpt_unique_id(r, base_id))) return NULL;
    it->names = names;
    return it;
}

void sts_rpt_fact(sts_report *r, sts_rpt_facts *f, const char *key, const char *fmt, ...)
{
    if (!f || f->n >= STS_RPT_MAX_FACTS) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *k = sts_rpt_strdup(r, key), *v = sts_rpt_strdup(r, buf);
    if (!k || !v) return;
    f->key[f->n] = k;
    f->val[f->n] = v;
    f->n++;
}

sts_status sts_report_add_note(sts_report *r, const char *heading, const char *text)
{
    if (!r || !text) return STS_ERR_INVALID_ARG;
    sts_rpt_section *s = sts_rpt_section_new(r, "note", heading ? heading : "Note", NULL);
    if (!s || !sts_rpt_add_text(r, s, STS_RPT_ITEM_NOTE, text)) return STS_ERR_NOMEM;
    sts_rpt_section_commit(r, s);
    return STS_OK;
}

static void count_fig(const sts_rpt_fig *f, void *user)
{
    (void)f;
    (*(size_t *)user)++;
}

size_t sts_report_figure_count(const sts_report *r)
{
    size_t n = 0;
    if (r) sts_rpt_each_fig(r, count_fig, &n);
    return n;
}

typedef struct find_fig {
    size_t want, at;
    const char *id;
} find_fig;

static void pick_fig(const sts_rpt_fig *f, void *user)
{
    find_fig *ff = user;
    if (ff->at++ == ff->want) ff->id = f->id;
}

const char *sts_report_figure_id(const sts_report *r, size_t i)
{
    find_fig ff = { i, 0, NULL };
    if (r) sts_rpt_each_fig(r, pick_fig, &ff);
    return ff.id;
}

sts_status sts_report_add_timeline(sts_report *r, const sts_timeline *tl, const char *label, sts_error *err)
{
    if (!r || !tl) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no timeline given");
    return sts_rpt_trace_section(r, tl, label, err);
}
