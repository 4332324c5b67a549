/* Self times and per-name summaries (count, total, self, min, median, max), by slice
 * name or grouped by the hlo_op / hlo_module args XLA puts on its ops. */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/mem.h"
#include "base/vec.h"

/* One lane at a time: its view and each entry's inside union. */
typedef struct walker {
    sts_an_view v;
    sts_an_scratch sc;
    int64_t *u;
    size_t ucap;
} walker;

static void walker_free(walker *w)
{
    sts_an_view_free(&w->v);
    sts_an_scratch_free(&w->sc);
    free(w->u);
}

static int walk_lane(walker *w, const sts_timeline *tl, uint32_t lane, const int64_t *window)
{
    if (sts_an_view_load(&w->v, tl, lane, window) != 0) return -1;
    if (sts_grow((void **)&w->u, &w->ucap, w->v.n ? w->v.n : 1, sizeof *w->u) != 0) return -1;
    return sts_an_inside_union(w->v.iv, w->v.n, w->u, &w->sc);
}

sts_status sts_self_times(const sts_timeline *tl, int64_t *self, sts_error *err)
{
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    walker w = { 0 };
    for (size_t l = 0; l < nl; l++) {
        if (walk_lane(&w, tl, (uint32_t)l, NULL) != 0) {
            walker_free(&w);
            return sts_an_nomem(err, "computing self times");
        }
        for (size_t k = 0; k < w.v.n; k++)
            self[w.v.iv[k].idx] = w.v.iv[k].end - w.v.iv[k].ts - w.u[k];
    }
    walker_free(&w);
    return STS_OK;
}

/* ---- rows ------------------------------------------------------------------------- */

typedef struct rows {
    STS_VEC(sts_name_summary) v;
    uint32_t *by_name; /* name id -> row + 1 */
    uint32_t bound;
    sts_u64map by_arg; /* (module, op) or module -> row */
    uint32_t key_op, key_module;
    size_t kept; /* slices counted */
} rows;

static void rows_free(rows *r)
{
    STS_VEC_RELEASE(r->v);
    free(r->by_name);
    sts_u64map_release(&r->by_arg);
}

static uint32_t new_row(rows *r, uint32_t name, uint32_t module, uint32_t grouped)
{
    sts_name_summary *x = STS_VEC_PUSH(r->v);
    if (!x) return STS_NONE;
    x->name = name;
    x->module = module;
    x->grouped = grouped;
    return (uint32_t)(r->v.n - 1);
}

static uint32_t string_arg(const sts_timeline *tl, uint32_t args, uint32_t key)
{
    size_t na;
    const sts_arg *a = sts_timeline_args(tl, &na);
    if (args == STS_NONE || key == STS_NONE) return STS_NONE;
    for (size_t k = args; k < na; k++) {
        if (a[k].key == key) return a[k].type == STS_ARG_STRING ? a[k].v.str : STS_NONE;
        if (a[k].last) break;
    }
    return STS_NONE;
}

/* The row of a slice; STS_NONE when memory is exhausted. */
static inline uint32_t row_for(rows *r, const sts_timeline *tl, const sts_slice *s, sts_group g)
{
    if (g == STS_GROUP_NAME && r->by_name[s->name]) return r->by_name[s->name] - 1;
    if (g != STS_GROUP_NAME) {
        uint32_t module = string_arg(tl, s->args, r->key_module);
        uint32_t op = g == STS_GROUP_HLO_OP ? string_arg(tl, s->args, r->key_op) : STS_NONE;
        uint32_t key = g == STS_GROUP_HLO_OP ? op : module;
        if (key != STS_NONE) {
            if (g == STS_GROUP_HLO_MODULE) op = STS_NONE;
            uint64_t k = (((uint64_t)(g == STS_GROUP_HLO_OP ? module : 0xfffffffeu) << 32) | key) + 1;
            uint32_t row = sts_u64map_get(&r->by_arg, k);
            if (row != UINT32_MAX) return row;
            row = new_row(r, key, g == STS_GROUP_HLO_OP ? module : STS_NONE, 1);
            if (row == STS_NONE || sts_u64map_put(&r->by_arg, k, row) != 0) return STS_NONE;
            return row;
        }
    }
    if (r->by_name[s->name]) return r->by_name[s->name] - 1;
    uint32_t row = new_row(r, s->name, STS_NONE, 0);
    if (row != STS_NONE) r->by_name[s->name] = row + 1;
    return row;
}

static void add(rows *r, uint32_t row, int64_t dur, int64_t self)
{
    sts_name_summary *x = &r->v.v[row];
    if (x->count == 0) x->min_ns = x->max_ns = dur;
    x->count++;
    x->total_ns += dur;
    x->self_ns += self;
    if (dur < x->min_ns) x->min_ns = dur;
    if (dur > x->max_ns) x->max_ns = dur;
    r->kept++;
}

/* Exact medians: a second pass scatters the durations by row (a counting sort; the
 * rows and their counts are known), then a selection in each. 8 bytes per slice. */
static int medians(const sts_timeline *tl, sts_an_scope *x, rows *r)
{
    size_t nr = r->v.n, n = r->kept, nl;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    size_t *fill = malloc((nr ? nr : 1) * sizeof *fill);
    int64_t *durs = malloc((n ? n : 1) * sizeof *durs);
    if (!fill || !durs) {
        free(fill);
        free(durs);
        return -1;
    }
    for (size_t g = 0, at = 0; g < nr; g++) {
        fill[g] = at;
        at += r->v.v[g].count;
    }
    for (size_t l = 0; l < nl; l++) {
        if (!sts_an_scope_lane(x, (uint32_t)l)) continue;
        for (uint32_t i = ln[l].first_slice; i < ln[l].first_slice + ln[l].slice_count; i++) {
            int64_t ts, end;
            if (!sts_an_clip(&s[i], sts_an_scope_window(x), &ts, &end) || !sts_an_scope_name(x, s[i].name)) continue;
            uint32_t row = row_for(r, tl, &s[i], x->group); /* found: the first pass made every row */
            durs[fill[row]++] = end - ts;
        }
    }
    for (size_t g = 0, start = 0; g < nr; g++) {
        r->v.v[g].median_ns = sts_median_i64(durs + start, fill[g] - start);
        start = fill[g];
    }
    free(fill);
    free(durs);
    return 0;
}

static int cmp_text(const sts_timeline *tl, uint32_t a, uint32_t b)
{
    if (a == b) return 0;
    if (a == STS_NONE || b == STS_NONE) return a == STS_NONE ? -1 : 1;
    int c = strcmp(sts_timeline_string(tl, a), sts_timeline_string(tl, b));
    return c ? c : (a > b) - (a < b);
}

static int rank_cmp(const void *a, const void *b, void *ctx)
{
    const sts_name_summary *x = a, *y = b;
    const sts_timeline *tl = ctx;
    if (x->self_ns != y->self_ns) return x->self_ns > y->self_ns ? -1 : 1;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    int c = cmp_text(tl, x->name, y->name);
    if (!c) c = cmp_text(tl, x->module, y->module);
    return c ? c : (x->grouped > y->grouped) - (x->grouped < y->grouped);
}

static sts_status summarize(const sts_timeline *tl, sts_an_scope *x, rows *r, sts_error *err)
{
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    walker w = { 0 };
    int bad = 0;
    for (size_t l = 0; l < nl && !bad; l++) {
        if (!sts_an_scope_lane(x, (uint32_t)l)) continue;
        bad = walk_lane(&w, tl, (uint32_t)l, sts_an_scope_window(x)) != 0;
        for (size_t k = 0; k < w.v.n && !bad; k++) {
            const sts_an_iv *iv = &w.v.iv[k];
            if (!sts_an_scope_name(x, s[iv->idx].name)) continue;
            uint32_t row = row_for(r, tl, &s[iv->idx], x->group);
            int64_t dur = iv->end - iv->ts;
            bad = row == STS_NONE;
            if (!bad) add(r, row, dur, dur - w.u[k]);
        }
    }
    walker_free(&w);
    if (!bad) bad = medians(tl, x, r) != 0;
    return bad ? sts_an_nomem(err, "summarizing names") : STS_OK;
}

sts_status sts_name_summaries_in(const sts_timeline *tl, const sts_scope *scope, sts_name_summary **out, size_t *n,
                                 sts_error *err)
{
    *out = NULL;
    *n = 0;
    sts_an_scope x;
    sts_status st = sts_an_scope_open(&x, tl, scope, err);
    if (st != STS_OK) return st;
    rows r = { 0 };
    r.bound = sts_an_name_bound(tl);
    r.key_op = sts_timeline_find_string(tl, "hlo_op");
    r.key_module = sts_timeline_find_string(tl, "hlo_module");
    r.by_name = calloc(r.bound ? r.bound : 1, sizeof *r.by_name);
    st = r.by_name ? summarize(tl, &x, &r, err) : sts_an_nomem(err, "summarizing names");
    sts_an_scope_close(&x);
    if (st == STS_OK && r.v.n) {
        if (r.v.n > 1) qsort_r(r.v.v, r.v.n, sizeof *r.v.v, rank_cmp, (void *)tl);
        *out = r.v.v;
        *n = r.v.n;
        r.v.v = NULL;
    }
    rows_free(&r);
    return st;
}

sts_status sts_name_summaries(const sts_timeline *tl, sts_name_summary **out, size_t *n, sts_error *err)
{
    return sts_name_summaries_in(tl, NULL, out, n, err);
}
