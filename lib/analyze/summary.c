/* Self times and per-name summaries (count, total, self, min, median, max), by slice
 * name or grouped by the hlo_op / hlo_module args XLA puts on its ops. */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/mem.h"
#include "base/threads.h"
#include "base/vec.h"

/* One lane at a time: its view and each entry's inside union. */
typedef struct walker {
    sts_an_view v;
    sts_an_scratch sc;
    int64_t *u;
    size_t ucap;
    uint32_t *cuts; /* a lane's runs (sts_an_view_runs) */
    size_t ncuts, cuts_cap;
} walker;

/* Slices per run of a lane walked a run at a time: a view of 1.5 MB per thread where a
 * whole lane's could take tens of MB. */
#define WALK_RUN ((size_t)1 << 16)

static void walker_free(walker *w)
{
    sts_an_view_free(&w->v);
    sts_an_scratch_free(&w->sc);
    free(w->u);
    free(w->cuts);
}

static int walk_range(walker *w, const sts_timeline *tl, uint32_t first, uint32_t count, const int64_t *window)
{
    if (sts_an_view_load_range(&w->v, tl, first, count, window) != 0) return -1;
    if (sts_grow((void **)&w->u, &w->ucap, w->v.n ? w->v.n : 1, sizeof *w->u) != 0) return -1;
    return sts_an_inside_union(w->v.iv, w->v.n, w->u, &w->sc);
}

static int walk_lane(walker *w, const sts_timeline *tl, uint32_t lane, const int64_t *window)
{
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + lane;
    return walk_range(w, tl, ln->first_slice, ln->slice_count, window);
}

/* The lane's runs to walk in turn: with a window (whose cuts may reorder the slices),
 * the whole lane as one. */
static int lane_runs(walker *w, const sts_timeline *tl, uint32_t lane, const int64_t *window)
{
    if (!window) return sts_an_view_runs(tl, lane, WALK_RUN, &w->cuts, &w->ncuts, &w->cuts_cap);
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + lane;
    if (sts_grow((void **)&w->cuts, &w->cuts_cap, 2, sizeof *w->cuts) != 0) return -1;
    w->cuts[0] = ln->first_slice;
    w->cuts[1] = ln->first_slice + ln->slice_count;
    w->ncuts = 2;
    return 0;
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

/* The row of a slice name (grouped 0), or of an hlo arg's value `name` (with its
 * module by hlo_op, STS_NONE by hlo_module), made on first sight; STS_NONE when memory
 * is exhausted. */
static uint32_t row_of(rows *r, uint32_t name, uint32_t module, uint32_t grouped, sts_group g)
{
    if (!grouped) {
        if (r->by_name[name]) return r->by_name[name] - 1;
        uint32_t row = new_row(r, name, STS_NONE, 0);
        if (row != STS_NONE) r->by_name[name] = row + 1;
        return row;
    }
    uint64_t k = (((uint64_t)(g == STS_GROUP_HLO_OP ? module : 0xfffffffeu) << 32) | name) + 1;
    uint32_t row = sts_u64map_get(&r->by_arg, k);
    if (row != UINT32_MAX) return row;
    row = new_row(r, name, module, 1);
    if (row == STS_NONE || sts_u64map_put(&r->by_arg, k, row) != 0) return STS_NONE;
    return row;
}

/* The row of a slice; STS_NONE when memory is exhausted. */
static inline uint32_t row_for(rows *r, const sts_timeline *tl, const sts_slice *s, sts_group g)
{
    if (g == STS_GROUP_NAME && r->by_name[s->name]) return r->by_name[s->name] - 1;
    if (g != STS_GROUP_NAME) {
        uint32_t module = string_arg(tl, s->args, r->key_module);
        uint32_t key = g == STS_GROUP_HLO_OP ? string_arg(tl, s->args, r->key_op) : module;
        if (key != STS_NONE) return row_of(r, key, g == STS_GROUP_HLO_OP ? module : STS_NONE, 1, g);
    }
    return row_of(r, s->name, STS_NONE, 0, g);
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

#define MAX_THREADS      64 /* threads one summary uses at most */
#define PARTS_PER_THREAD 4  /* taken by whichever thread is free: one large lane runs beside the rest */
#define MAX_PARTS        (MAX_THREADS * PARTS_PER_THREAD)

/* ---- parts: lanes summarized side by side ------------------------------------------ */

/* A run of lanes summarized on a thread of its own into rows of its own; the parts are
 * then merged into one set of rows. A row's count, total, self, min and max are sums
 * and extremes, and its median is a value, not a position, so the merged rows are
 * those of one pass whatever the split; the ranking is a total order, so the order of
 * the rows is too. */
typedef struct part {
    const sts_timeline *tl;
    sts_an_scope *x; /* shared and only read: a scope with a name pattern (whose memo
                        is written as names are met) is summarized in one part */
    size_t l0, l1;   /* its lanes */
    walker *walkers; /* one per thread, shared by the parts each thread runs (a view of a
                        large lane is tens of MB: made once per thread, not per part) */
    rows r;
    uint32_t *to; /* its row -> the merged row */
    size_t *fill; /* its row -> where its next duration goes in durs */
    int64_t *durs;
    int bad;
} part;

static void part_rows(part *p, walker *w)
{
    const sts_slice *s = sts_timeline_slices(p->tl, NULL);
    const sts_lane *ln = sts_timeline_lanes(p->tl, NULL);
    sts_an_scope *x = p->x;
    uint32_t bound = 0;
    for (size_t l = p->l0; l < p->l1; l++)
        if (sts_an_scope_lane(x, (uint32_t)l))
            for (uint32_t i = ln[l].first_slice; i < ln[l].first_slice + ln[l].slice_count; i++)
                if (s[i].name >= bound) bound = s[i].name + 1;
    p->r.bound = bound;
    p->r.by_name = calloc(bound ? bound : 1, sizeof *p->r.by_name);
    if (!p->r.by_name) {
        p->bad = 1;
        return;
    }
    for (size_t l = p->l0; l < p->l1 && !p->bad; l++) {
        if (!sts_an_scope_lane(x, (uint32_t)l)) continue;
        const int64_t *window = sts_an_scope_window(x);
        p->bad = lane_runs(w, p->tl, (uint32_t)l, window) != 0;
        for (size_t c = 0; c + 1 < w->ncuts && !p->bad; c++) {
            p->bad = walk_range(w, p->tl, w->cuts[c], w->cuts[c + 1] - w->cuts[c], window) != 0;
            for (size_t k = 0; k < w->v.n && !p->bad; k++) {
                const sts_an_iv *iv = &w->v.iv[k];
                if (!sts_an_scope_name(x, s[iv->idx].name)) continue;
                uint32_t row = row_for(&p->r, p->tl, &s[iv->idx], x->group);
                int64_t dur = iv->end - iv->ts;
                p->bad = row == STS_NONE;
                if (!p->bad) add(&p->r, row, dur, dur - w->u[k]);
            }
        }
    }
}

/* Scatters the part's durations by row: the rows and their places are known. */
static void part_durations(part *p)
{
    const sts_slice *s = sts_timeline_slices(p->tl, NULL);
    const sts_lane *ln = sts_timeline_lanes(p->tl, NULL);
    sts_an_scope *x = p->x;
    for (size_t l = p->l0; l < p->l1; l++) {
        if (!sts_an_scope_lane(x, (uint32_t)l)) continue;
        for (uint32_t i = ln[l].first_slice; i < ln[l].first_slice + ln[l].slice_count; i++) {
            int64_t ts, end;
            if (!sts_an_clip(&s[i], sts_an_scope_window(x), &ts, &end) || !sts_an_scope_name(x, s[i].name)) continue;
            uint32_t row = row_for(&p->r, p->tl, &s[i], x->group); /* found: the first pass made every row */
            p->durs[p->fill[row]++] = end - ts;
        }
    }
}

/* The merged rows [g0, g1) take their medians from durs. */
typedef struct median_job {
    rows *r;
    const size_t *start; /* merged row -> its first duration; one more entry at the end */
    int64_t *durs;
    size_t g0, g1;
} median_job;

static void medians_of(median_job *m)
{
    for (size_t g = m->g0; g < m->g1; g++)
        m->r->v.v[g].median_ns = sts_median_i64(m->durs + m->start[g], m->start[g + 1] - m->start[g]);
}

static void rows_run(void *p, size_t thread)
{
    part_rows(p, &((part *)p)->walkers[thread]);
}

static void durations_run(void *p, size_t thread)
{
    (void)thread;
    part_durations(p);
}

static void medians_run(void *p, size_t thread)
{
    (void)thread;
    medians_of(p);
}

/* Lane l's kept slices, the weight by which the lanes are cut into parts. */
static uint64_t kept_in(const void *ctx, size_t l)
{
    const sts_an_scope *x = ctx;
    return sts_an_scope_lane(x, (uint32_t)l) ? sts_timeline_lanes(x->tl, NULL)[l].slice_count : 0;
}

/* The lanes cut into at most n runs of about as many kept slices each (one run for a
 * scope with a name pattern: see part), and each run's kept slices. Returns the runs
 * made. */
static size_t split_lanes(const sts_timeline *tl, const sts_an_scope *x, size_t n, part *parts, uint64_t *kept)
{
    size_t nl, cut[MAX_PARTS + 1];
    sts_timeline_lanes(tl, &nl);
    size_t made = sts_cut_even(nl, kept_in, x, x->by_name ? 1 : n, cut);
    for (size_t k = 0; k < made; k++) {
        parts[k].l0 = cut[k];
        parts[k].l1 = cut[k + 1];
        kept[k] = 0;
        for (size_t l = cut[k]; l < cut[k + 1]; l++)
            kept[k] += kept_in(x, l);
    }
    return made;
}

static int merge_rows(rows *r, part *parts, size_t np, sts_group g)
{
    for (size_t i = 0; i < np; i++)
        if (parts[i].r.bound > r->bound) r->bound = parts[i].r.bound;
    if (!(r->by_name = calloc(r->bound ? r->bound : 1, sizeof *r->by_name))) return -1;
    for (size_t i = 0; i < np; i++) {
        part *p = &parts[i];
        if (!(p->to = malloc((p->r.v.n ? p->r.v.n : 1) * sizeof *p->to))) return -1;
        for (size_t j = 0; j < p->r.v.n; j++) {
            const sts_name_summary *y = &p->r.v.v[j];
            uint32_t row = row_of(r, y->name, y->module, y->grouped, g);
            if (row == STS_NONE) return -1;
            p->to[j] = row;
            sts_name_summary *x = &r->v.v[row];
            if (x->count == 0) x->min_ns = y->min_ns, x->max_ns = y->max_ns;
            if (y->min_ns < x->min_ns) x->min_ns = y->min_ns;
            if (y->max_ns > x->max_ns) x->max_ns = y->max_ns;
            x->count += y->count;
            x->total_ns += y->total_ns;
            x->self_ns += y->self_ns;
        }
        r->kept += p->r.kept;
    }
    return 0;
}

/* Exact medians: the durations scattered by merged row (a counting sort: the rows and
 * their counts are known, and each part's share of a row follows the parts before
 * it), then a selection in each row. 8 bytes per slice. */
static int medians(rows *r, part *parts, size_t np, size_t threads)
{
    size_t nr = r->v.n;
    size_t *start = malloc((nr + 1) * sizeof *start), *cursor = malloc((nr ? nr : 1) * sizeof *cursor);
    int64_t *durs = malloc((r->kept ? r->kept : 1) * sizeof *durs);
    int bad = !start || !cursor || !durs;
    if (!bad) {
        start[0] = 0;
        for (size_t g = 0; g < nr; g++)
            start[g + 1] = start[g] + r->v.v[g].count;
        memcpy(cursor, start, nr * sizeof *cursor);
    }
    for (size_t i = 0; i < np && !bad; i++) {
        part *p = &parts[i];
        p->durs = durs;
        if (!(p->fill = malloc((p->r.v.n ? p->r.v.n : 1) * sizeof *p->fill))) {
            bad = 1;
            break;
        }
        for (size_t j = 0; j < p->r.v.n; j++) {
            p->fill[j] = cursor[p->to[j]];
            cursor[p->to[j]] += p->r.v.v[j].count;
        }
    }
    if (!bad) {
        sts_run_parts(durations_run, parts, sizeof *parts, np, threads);
        median_job mj[MAX_PARTS];
        size_t g = 0;
        for (size_t t = 0; t < np; t++) {
            mj[t] = (median_job){ r, start, durs, g, g };
            while (g < nr && (t + 1 == np || start[g] * np < r->kept * (t + 1)))
                g++;
            mj[t].g1 = g;
        }
        sts_run_parts(medians_run, mj, sizeof *mj, np, threads);
    }
    free(start);
    free(cursor);
    free(durs);
    return bad ? -1 : 0;
}

static sts_status summarize(const sts_timeline *tl, sts_an_scope *x, rows *r, unsigned jobs, sts_error *err)
{
    part parts[MAX_PARTS];
    memset(parts, 0, sizeof parts);
    size_t threads = jobs > MAX_THREADS ? MAX_THREADS : jobs ? jobs : 1;
    uint64_t kept[MAX_PARTS];
    size_t np = split_lanes(tl, x, threads == 1 ? 1 : threads * PARTS_PER_THREAD, parts, kept);
    walker walkers[MAX_THREADS];
    memset(walkers, 0, sizeof walkers);
    for (size_t i = 0; i < np; i++) {
        parts[i].tl = tl;
        parts[i].x = x;
        parts[i].walkers = walkers;
        parts[i].r.key_op = r->key_op;
        parts[i].r.key_module = r->key_module;
    }
    sts_run_parts_heaviest_first(rows_run, parts, sizeof *parts, np, threads, kept);
    for (size_t t = 0; t < threads; t++) /* before the medians' memory is taken */
        walker_free(&walkers[t]);
    int bad = 0;
    for (size_t i = 0; i < np; i++)
        bad |= parts[i].bad;
    if (!bad) bad = merge_rows(r, parts, np, x->group) != 0;
    if (!bad) bad = medians(r, parts, np, threads) != 0;
    for (size_t i = 0; i < np; i++) {
        rows_free(&parts[i].r);
        free(parts[i].to);
        free(parts[i].fill);
    }
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
    r.key_op = sts_timeline_find_string(tl, "hlo_op");
    r.key_module = sts_timeline_find_string(tl, "hlo_module");
    st = summarize(tl, &x, &r, scope ? scope->jobs : 1, err);
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
