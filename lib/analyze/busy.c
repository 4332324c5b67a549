/* Busy time (unions) and gaps over lanes, processes and the whole trace.
 *
 * Each lane is reduced to its busy segments (the maximal stretches covered by its
 * slices, in time order: one sweep over the lane in containment order). Unions over
 * several lanes merge those segments: the segments of one process, then of everything,
 * put in order of start and swept again. They arrive as runs already in order (a lane's
 * segments, then a process's), which are merged, not sorted. Every process's lanes are
 * found by one counting pass, so the cost is linear in lanes and processes and
 * n log(runs) in segments. */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/mem.h"
#include "base/vec.h"

typedef struct seg {
    int64_t start, end;
} seg;

typedef STS_VEC(seg) seg_vec;

/* What one lane (or a merge) contributes: counts, extent and segments. */
typedef struct extent {
    uint64_t slices;
    int any;
    int64_t start, end;
} extent;

static void extent_add(extent *e, int64_t start, int64_t end)
{
    if (!e->any || start < e->start) e->start = start;
    if (!e->any || end > e->end) e->end = end;
    e->any = 1;
}

/* Builds busy segments from intervals given in order of start. */
typedef struct seg_builder {
    int open;
    seg cur;
    seg_vec *out;
} seg_builder;

static inline int seg_add(seg_builder *b, extent *e, int64_t ts, int64_t end)
{
    e->slices++;
    extent_add(e, ts, end);
    if (end <= ts) return 0; /* covers nothing; must not split a segment */
    if (b->open && ts <= b->cur.end) {
        if (end > b->cur.end) b->cur.end = end;
        return 0;
    }
    if (b->open) {
        seg *p = STS_VEC_PUSH(*b->out);
        if (!p) return -1;
        *p = b->cur;
    }
    b->open = 1;
    b->cur.start = ts;
    b->cur.end = end;
    return 0;
}

static int seg_finish(seg_builder *b)
{
    if (!b->open) return 0;
    seg *p = STS_VEC_PUSH(*b->out);
    if (!p) return -1;
    *p = b->cur;
    return 0;
}

/* Appends the busy segments of view entries (those whose slice `keep` accepts). */
static int lane_segments(const sts_an_view *v, sts_an_scope *x, extent *e, seg_vec *out)
{
    const sts_slice *s = v->slices;
    seg_builder b = { 0, { 0, 0 }, out };
    for (size_t k = 0; k < v->n; k++) {
        const sts_an_iv *iv = &v->iv[k];
        if (x && !sts_an_scope_name(x, s[iv->idx].name)) continue;
        if (seg_add(&b, e, iv->ts, iv->end) != 0) return -1;
    }
    return seg_finish(&b);
}

/* A union needs its intervals in order of start only, not in containment order, and
 * the model keeps each lane's slices in ts order (a cut to the window keeps that
 * order): so the segments come straight from the slices, without a view (24 bytes per
 * slice of the lane: 27 MB for the largest lane of a 1 GB Kineto trace). 1, with
 * nothing appended, when a slice is out of ts order: the caller then sorts a view. */
static int lane_segments_direct(const sts_timeline *tl, uint32_t lane, sts_an_scope *x, extent *e, seg_vec *out)
{
    size_t nl;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl) + lane;
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const int64_t *window = x ? sts_an_scope_window(x) : NULL;
    size_t at = out->n;
    extent before = *e;
    seg_builder b = { 0, { 0, 0 }, out };
    int64_t last = INT64_MIN;
    for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++) {
        if (s[i].ts < last) {
            out->n = at;
            *e = before;
            return 1;
        }
        last = s[i].ts;
        int64_t ts, end;
        if (!sts_an_clip(&s[i], window, &ts, &end) || (x && !sts_an_scope_name(x, s[i].name))) continue;
        if (seg_add(&b, e, ts, end) != 0) return -1;
    }
    return seg_finish(&b);
}

/* One lane's segments: from its slices, or through a view when they are out of order. */
static int lane_busy(const sts_timeline *tl, uint32_t lane, sts_an_scope *x, sts_an_view *v, extent *e, seg_vec *out)
{
    int rc = lane_segments_direct(tl, lane, x, e, out);
    if (rc != 1) return rc;
    if (sts_an_view_load(v, tl, lane, x ? sts_an_scope_window(x) : NULL) != 0) return -1;
    return lane_segments(v, x, e, out);
}

static int seg_cmp(const void *a, const void *b)
{
    const seg *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

static inline int seg_less(const seg *a, const seg *b)
{
    return a->start != b->start ? a->start < b->start : a->end < b->end;
}

/* The sorted runs a[0, na) and b[0, nb) into out. */
static void merge_two(const seg *a, size_t na, const seg *b, size_t nb, seg *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = seg_less(&b[j], &a[i]) ? b[j++] : a[i++];
    memcpy(out + k, a + i, (na - i) * sizeof *a);
    memcpy(out + k + na - i, b + j, (nb - j) * sizeof *b);
}

/* Sorts segments by start (then end). They come as runs already in that order (each
 * lane's segments; each process's, once merged), so the runs are found and merged
 * pairwise: n log(runs) where a sort would be n log n. Sorts in place when the scratch
 * cannot be had. */
static void sort_segs(seg *v, size_t n)
{
    size_t runs = 1;
    for (size_t i = 1; i < n; i++)
        runs += seg_less(&v[i], &v[i - 1]);
    if (runs < 2) return;
    size_t *at = malloc((runs + 1) * sizeof *at); /* run r is [at[r], at[r + 1]) */
    seg *tmp = malloc(n * sizeof *tmp);
    if (!at || !tmp) {
        free(at);
        free(tmp);
        qsort(v, n, sizeof *v, seg_cmp);
        return;
    }
    at[0] = 0;
    for (size_t i = 1, r = 1; i < n; i++)
        if (seg_less(&v[i], &v[i - 1])) at[r++] = i;
    at[runs] = n;
    seg *src = v, *dst = tmp;
    while (runs > 1) {
        size_t m = 0; /* runs r and r + 1 become run m (m <= r: at[r..r + 2] are read first) */
        for (size_t r = 0; r < runs; r += 2) {
            size_t a = at[r], b = at[r + 1], c = r + 1 < runs ? at[r + 2] : b;
            merge_two(src + a, b - a, src + b, c - b, dst + a);
            at[m++] = a;
        }
        at[m] = n;
        runs = m;
        seg *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) memcpy(v, src, n * sizeof *v);
    free(at);
    free(tmp);
}

typedef void (*segment_fn)(int64_t start, int64_t end, void *user);

/* Sorts segments by start and calls fn for each maximal merged one; returns the union. */
static int64_t merge(seg *v, size_t n, segment_fn fn, void *user)
{
    sort_segs(v, n);
    int64_t total = 0;
    size_t k = 0;
    while (k < n) {
        int64_t cs = v[k].start, ce = v[k].end;
        for (k++; k < n && v[k].start <= ce; k++)
            if (v[k].end > ce) ce = v[k].end;
        total += ce - cs;
        if (fn) fn(cs, ce, user);
    }
    return total;
}

static sts_busy to_busy(const extent *e, int64_t union_ns)
{
    sts_busy b = { 0 };
    b.slices = e->slices;
    b.union_ns = union_ns;
    if (e->any) {
        b.start_ns = e->start;
        b.end_ns = e->end;
        b.span_ns = e->end - e->start;
    }
    return b;
}

static void extent_join(extent *into, const extent *e)
{
    into->slices += e->slices;
    if (e->any) {
        extent_add(into, e->start, e->end);
    }
}

/* ---- every lane, every process, everything ---------------------------------------- */

typedef struct each {
    const sts_timeline *tl;
    sts_an_scope *x;
    sts_an_view v;
    seg_vec segs; /* all lanes' segments, grouped by process */
    extent all;
} each;

/* Lanes grouped by process: lanes_of[first[p] .. first[p + 1]). */
static uint32_t *group_lanes(const sts_timeline *tl, size_t **first_out)
{
    size_t nl, np;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    size_t *first = calloc(np + 2, sizeof *first);
    uint32_t *lanes = malloc((nl ? nl : 1) * sizeof *lanes);
    if (!first || !lanes) {
        free(first);
        free(lanes);
        return NULL;
    }
    for (size_t l = 0; l < nl; l++)
        first[ln[l].process + 2]++;
    for (size_t p = 0; p < np; p++)
        first[p + 2] += first[p + 1];
    for (size_t l = 0; l < nl; l++)
        lanes[first[ln[l].process + 1]++] = (uint32_t)l;
    *first_out = first; /* first[p] .. first[p + 1] after the fill shifted it down */
    return lanes;
}

static int one_process(each *e, const uint32_t *lanes, size_t n, sts_busy *per_lane, sts_busy *proc_out)
{
    size_t from = e->segs.n;
    extent pe = { 0 };
    for (size_t k = 0; k < n; k++) {
        uint32_t l = lanes[k];
        if (!sts_an_scope_lane(e->x, l)) continue;
        extent le = { 0 };
        size_t at = e->segs.n;
        if (lane_busy(e->tl, l, e->x, &e->v, &le, &e->segs) != 0) return -1;
        int64_t u = 0;
        for (size_t i = at; i < e->segs.n; i++)
            u += e->segs.v[i].end - e->segs.v[i].start;
        if (per_lane) per_lane[l] = to_busy(&le, u);
        extent_join(&pe, &le);
    }
    int64_t u = merge(e->segs.v + from, e->segs.n - from, NULL, NULL);
    if (proc_out) *proc_out = to_busy(&pe, u);
    extent_join(&e->all, &pe);
    return 0;
}

sts_status sts_busy_each(const sts_timeline *tl, const sts_scope *scope, sts_busy *per_lane, sts_busy *per_process,
                         sts_busy *all, sts_error *err)
{
    size_t nl, np;
    sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    sts_an_scope x;
    sts_status st = sts_an_scope_open(&x, tl, scope, err);
    if (st != STS_OK) return st;
    if (per_lane) memset(per_lane, 0, nl * sizeof *per_lane);
    size_t *first = NULL;
    uint32_t *lanes = group_lanes(tl, &first);
    each e = { tl, &x, { 0 }, { 0 }, { 0 } };
    int bad = !lanes;
    for (size_t p = 0; p < np && !bad; p++)
        bad = one_process(&e, lanes + first[p], first[p + 1] - first[p], per_lane,
                          per_process ? &per_process[p] : NULL) != 0;
    if (!bad && all) *all = to_busy(&e.all, merge(e.segs.v, e.segs.n, NULL, NULL));
    free(first);
    free(lanes);
    sts_an_view_free(&e.v);
    STS_VEC_RELEASE(e.segs);
    sts_an_scope_close(&x);
    return bad ? sts_an_nomem(err, "computing busy time") : STS_OK;
}

/* ---- a set of lanes ----------------------------------------------------------------- */

/* Collects the segments of the given lanes (NULL: all). */
static sts_status collect(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, seg_vec *segs, extent *ext,
                          sts_error *err)
{
    size_t total;
    sts_timeline_lanes(tl, &total);
    if (!lanes) nlanes = total;
    for (size_t k = 0; k < nlanes; k++)
        if (lanes && lanes[k] >= total)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "lane %u out of range (%zu lanes)", lanes[k], total);
    unsigned char *seen = calloc(total ? total : 1, 1);
    if (!seen) return sts_an_nomem(err, "computing busy time");
    sts_an_view v = { 0 };
    int bad = 0;
    for (size_t k = 0; k < nlanes && !bad; k++) {
        uint32_t l = lanes ? lanes[k] : (uint32_t)k;
        if (seen[l]) continue; /* a lane named twice counts once */
        seen[l] = 1;
        bad = lane_busy(tl, l, NULL, &v, ext, segs) != 0;
    }
    free(seen);
    sts_an_view_free(&v);
    return bad ? sts_an_nomem(err, "computing busy time") : STS_OK;
}

sts_status sts_busy_lanes(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, sts_busy *out, sts_error *err)
{
    memset(out, 0, sizeof *out);
    seg_vec segs = { 0 };
    extent ext = { 0 };
    sts_status st = collect(tl, lanes, nlanes, &segs, &ext, err);
    if (st == STS_OK) *out = to_busy(&ext, merge(segs.v, segs.n, NULL, NULL));
    STS_VEC_RELEASE(segs);
    return st;
}

sts_status sts_busy_lane(const sts_timeline *tl, uint32_t lane, sts_busy *out, sts_error *err)
{
    return sts_busy_lanes(tl, &lane, 1, out, err);
}

sts_status sts_busy_process(const sts_timeline *tl, uint32_t process, sts_busy *out, sts_error *err)
{
    memset(out, 0, sizeof *out);
    size_t nl, np;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    if (process >= np)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "process %u out of range (%zu processes)", process, np);
    uint32_t *lanes = malloc((nl ? nl : 1) * sizeof *lanes);
    if (!lanes) return sts_an_nomem(err, "computing busy time");
    size_t n = 0;
    for (size_t l = 0; l < nl; l++)
        if (ln[l].process == process) lanes[n++] = (uint32_t)l;
    sts_status st = sts_busy_lanes(tl, lanes, n, out, err);
    free(lanes);
    return st;
}

/* ---- gaps ----------------------------------------------------------------------------- */

typedef int64_t gap_pair[2];

typedef struct gap_acc {
    int64_t min_gap;
    int started;
    int64_t prev_end;
    STS_VEC(gap_pair) gaps;
    int failed;
} gap_acc;

static void add_gap(int64_t start, int64_t end, void *user)
{
    gap_acc *g = user;
    if (g->started && start - g->prev_end >= g->min_gap && !g->failed) {
        gap_pair *gp = STS_VEC_PUSH(g->gaps);
        if (!gp) {
            g->failed = 1;
        } else {
            (*gp)[0] = g->prev_end;
            (*gp)[1] = start;
        }
    }
    g->started = 1;
    g->prev_end = end;
}

sts_status sts_gaps(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, int64_t min_gap_ns,
                    int64_t (**out)[2], size_t *n, sts_error *err)
{
    *out = NULL;
    *n = 0;
    seg_vec segs = { 0 };
    extent ext = { 0 };
    sts_status st = collect(tl, lanes, nlanes, &segs, &ext, err);
    gap_acc g = { min_gap_ns > 0 ? min_gap_ns : 1, 0, 0, { NULL, 0, 0 }, 0 };
    if (st == STS_OK) merge(segs.v, segs.n, add_gap, &g);
    STS_VEC_RELEASE(segs);
    if (st == STS_OK && g.failed) st = sts_an_nomem(err, "listing gaps");
    if (st != STS_OK) {
        STS_VEC_RELEASE(g.gaps);
        return st;
    }
    *out = g.gaps.v;
    *n = g.gaps.n;
    return STS_OK;
}
