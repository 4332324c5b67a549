/* Busy time (unions) and gaps over lanes, processes and the whole trace.
 *
 * Each lane's slices are already sorted by start, and children lie inside their
 * parents, so only parentless slices (roots and overlaps) can extend the union. Lanes
 * are merged by start time with a small heap: O(n log lanes), no copy of the slices. */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "model/timeline_impl.h"
#include "stepscope/analyze.h"

static int64_t end_of(const sts_slice *s)
{
    int64_t e;
    return __builtin_add_overflow(s->ts, s->dur, &e) ? INT64_MAX : e;
}

typedef struct cursor {
    uint32_t at, stop; /* next parentless slice, and the lane's end */
} cursor;

typedef struct merger {
    const sts_slice *s;
    cursor *heap; /* min-heap on the start of each cursor's next slice */
    size_t n;
} merger;

static void skip_children(const sts_slice *s, cursor *c)
{
    while (c->at < c->stop && s[c->at].parent != STS_NONE)
        c->at++;
}

static int cur_less(const merger *m, size_t a, size_t b)
{
    return m->s[m->heap[a].at].ts < m->s[m->heap[b].at].ts;
}

static void sift_down(merger *m, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < m->n && cur_less(m, l, best)) best = l;
        if (r < m->n && cur_less(m, r, best)) best = r;
        if (best == i) return;
        cursor t = m->heap[i];
        m->heap[i] = m->heap[best];
        m->heap[best] = t;
        i = best;
    }
}

/* Pops the earliest-starting parentless slice; returns its index or STS_NONE. */
static uint32_t merger_next(merger *m)
{
    if (m->n == 0) return STS_NONE;
    uint32_t idx = m->heap[0].at++;
    skip_children(m->s, &m->heap[0]);
    if (m->heap[0].at >= m->heap[0].stop) m->heap[0] = m->heap[--m->n];
    sift_down(m, 0);
    return idx;
}

typedef void (*segment_fn)(int64_t start, int64_t end, void *user);

typedef struct sweep_result {
    uint64_t slices;
    int64_t start, end;
} sweep_result;

/* Calls fn for each maximal busy segment of the lanes, in time order. */
static sts_status sweep(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, segment_fn fn, void *user,
                        sweep_result *res, sts_error *err)
{
    size_t total = tl->lanes.n;
    if (!lanes) nlanes = total;
    memset(res, 0, sizeof *res);
    merger m = { tl->slices.v, malloc((nlanes ? nlanes : 1) * sizeof(cursor)), 0 };
    if (!m.heap) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory merging %zu lanes", nlanes);
    for (size_t k = 0; k < nlanes; k++) {
        uint32_t l = lanes ? lanes[k] : (uint32_t)k;
        if (l >= total) {
            free(m.heap);
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "lane %u out of range (%zu lanes)", l, total);
        }
        const sts_lane *ln = &tl->lanes.v[l];
        res->slices += ln->slice_count;
        cursor c = { ln->first_slice, ln->first_slice + ln->slice_count };
        skip_children(tl->slices.v, &c);
        if (c.at < c.stop) m.heap[m.n++] = c;
    }
    for (size_t i = m.n; i-- > 0;)
        sift_down(&m, i);
    int any = 0, started = 0;
    int64_t cs = 0, ce = 0;
    for (uint32_t i; (i = merger_next(&m)) != STS_NONE;) {
        const sts_slice *s = &tl->slices.v[i];
        int64_t e = end_of(s);
        if (!any) {
            any = 1;
            res->start = s->ts;
            res->end = e;
        } else if (e > res->end) {
            res->end = e;
        }
        if (e <= s->ts) continue; /* covers nothing; must not split a gap */
        if (!started) {
            started = 1;
            cs = s->ts;
            ce = e;
        } else if (s->ts > ce) {
            fn(cs, ce, user);
            cs = s->ts;
            ce = e;
        } else if (e > ce) {
            ce = e;
        }
    }
    if (started) fn(cs, ce, user);
    free(m.heap);
    return STS_OK;
}

static void add_segment(int64_t start, int64_t end, void *user)
{
    *(int64_t *)user += end - start;
}

sts_status sts_busy_lanes(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, sts_busy *out, sts_error *err)
{
    memset(out, 0, sizeof *out);
    sweep_result r;
    int64_t busy = 0;
    sts_status st = sweep(tl, lanes, nlanes, add_segment, &busy, &r, err);
    if (st != STS_OK) return st;
    out->slices = r.slices;
    out->union_ns = busy;
    out->start_ns = r.start;
    out->end_ns = r.end;
    out->span_ns = r.end - r.start;
    return STS_OK;
}

sts_busy sts_busy_lane(const sts_timeline *tl, uint32_t lane)
{
    sts_busy b = { 0 };
    const sts_lane *ln = &tl->lanes.v[lane];
    b.slices = ln->slice_count;
    const sts_slice *s = tl->slices.v + ln->first_slice;
    int64_t cs = 0, ce = 0;
    int started = 0;
    for (uint32_t k = 0; k < ln->slice_count; k++) {
        int64_t e = end_of(&s[k]);
        if (k == 0) {
            b.start_ns = s[k].ts;
            b.end_ns = e;
        } else if (e > b.end_ns) {
            b.end_ns = e;
        }
        if (e <= s[k].ts) continue;
        if (!started) {
            started = 1;
            cs = s[k].ts;
            ce = e;
        } else if (s[k].ts > ce) {
            b.union_ns += ce - cs;
            cs = s[k].ts;
            ce = e;
        } else if (e > ce) {
            ce = e;
        }
    }
    if (started) b.union_ns += ce - cs;
    b.span_ns = b.end_ns - b.start_ns;
    return b;
}

sts_status sts_busy_process(const sts_timeline *tl, uint32_t process, sts_busy *out, sts_error *err)
{
    memset(out, 0, sizeof *out);
    if (process >= tl->procs.n)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "process %u out of range (%zu processes)", process,
                             tl->procs.n);
    uint32_t *lanes = malloc((tl->lanes.n ? tl->lanes.n : 1) * sizeof *lanes);
    if (!lanes) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory");
    size_t n = 0;
    for (size_t l = 0; l < tl->lanes.n; l++)
        if (tl->lanes.v[l].process == process) lanes[n++] = (uint32_t)l;
    sts_status st = sts_busy_lanes(tl, lanes, n, out, err);
    free(lanes);
    return st;
}

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
    gap_acc g = { min_gap_ns > 0 ? min_gap_ns : 1, 0, 0, { NULL, 0, 0 }, 0 };
    sweep_result r;
    sts_status st = sweep(tl, lanes, nlanes, add_gap, &g, &r, err);
    if (st == STS_OK && g.failed) st = sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory listing gaps");
    if (st != STS_OK) {
        STS_VEC_RELEASE(g.gaps);
        return st;
    }
    *out = g.gaps.v;
    *n = g.gaps.n;
    return STS_OK;
}
