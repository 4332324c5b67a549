/* Finalize, part 2: nesting with the rounding tolerance, and the final slice order. See
 * DESIGN.md "The interval model" and docs/ARCHITECTURE.md.
 *
 * Cost model: a 1 GB trace holds millions of slices, so every step here is a sequential
 * pass or a sort of one lane's slices, and the passes are few: a scan (lane counts, B
 * counts, checks), a bucketing pass that also notices which lanes are already in
 * nesting order, a sort of only the lanes that are not, a nesting pass, and an in-place
 * permutation into the final order (skipped when nothing moves). Extra memory is a few
 * 4-byte arrays per slice, never a second slice array. */
#include <stdlib.h>
#include <string.h>

#include "model/finalize_impl.h"
#include "model/msort.h"

int sts_finalize_test_cycles;

sts_status sts_fin_nomem(const sts_timeline *tl, sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory while nesting %zu slices", tl->info.path,
                         tl->slices.n);
}

/* Perfetto's order: ts ascending, longer first (so a parent precedes the children that
 * start with it), then file order. Raw slices are stored in file order, so the index
 * breaks the remaining ties. */
static inline int nest_less(const sts_slice *s, uint32_t x, uint32_t y)
{
    if (s[x].ts != s[y].ts) return s[x].ts < s[y].ts;
    if (s[x].dur != s[y].dur) return s[x].dur > s[y].dur;
    return x < y;
}

/* Sort records carry the primary key, so comparisons touch the slices only on ties. */
typedef struct nest_key {
    int64_t ts;
    uint32_t idx;
    uint32_t unused;
} nest_key;

#define KEY_LESS(s, a, b) ((a).ts != (b).ts ? (a).ts < (b).ts : nest_less(s, (a).idx, (b).idx))

STS_DEFINE_SORT(sort_keys, nest_key, sts_slice, KEY_LESS)

/* ---- pass 1: scan ---------------------------------------------------------------- */

typedef struct lanes_work {
    size_t nl;
    size_t *off;    /* nl + 1: lane l's slices are order[off[l]..off[l+1]) */
    size_t *begins; /* nl: open B slices per lane */
    size_t nbegins;
    unsigned char *sorted; /* nl: the lane's slices are already in nesting order */
    int identity;          /* order[k] == k for every k */
} lanes_work;

static sts_status scan(sts_timeline *tl, lanes_work *w, sts_error *err)
{
    if (tl->slices.n >= 0x80000000u || tl->ends.n >= 0x80000000u)
        return sts_error_set(err, STS_ERR_LIMIT, -1, "%s: %zu slices and %zu end events; at most 2^31 - 1 of each",
                             tl->info.path, tl->slices.n, tl->ends.n);
    size_t nl = w->nl;
    for (size_t i = 0; i < tl->slices.n; i++) {
        const sts_slice *s = &tl->slices.v[i];
        if (s->lane >= nl)
            return sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: slice %zu names lane %u of %zu", tl->info.path, i,
                                 s->lane, nl);
        w->off[s->lane + 1]++;
        if (fin_is_open_begin(s)) {
            w->begins[s->lane]++;
            w->nbegins++;
        }
    }
    for (size_t j = 0; j < tl->ends.n; j++)
        if (tl->ends.v[j].lane >= nl)
            return sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: end event %zu names lane %u of %zu", tl->info.path, j,
                                 tl->ends.v[j].lane, nl);
    for (size_t l = 0; l < nl; l++)
        w->off[l + 1] += w->off[l];
    return STS_OK;
}

/* ---- pass 2: bucket by lane, noting order --------------------------------------- */

/* Stable counting sort of slice indices by lane. Each slice is compared with the
 * previous one of its lane (still in cache), which tells which lanes need sorting. */
static uint32_t *bucket(sts_timeline *tl, lanes_work *w)
{
    size_t nl = w->nl, n = tl->slices.n;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t *fill = malloc((nl ? nl : 1) * sizeof *fill);
    uint32_t *prev = malloc((nl ? nl : 1) * sizeof *prev);
    if (!order || !fill || !prev) {
        free(order);
        free(fill);
        free(prev);
        return NULL;
    }
    memcpy(fill, w->off, nl * sizeof *fill);
    memset(prev, 0xff, nl * sizeof *prev);
    memset(w->sorted, 1, nl);
    w->identity = 1;
    uint64_t negative = 0;
    sts_slice *s = tl->slices.v;
    for (size_t i = 0; i < n; i++) {
        uint32_t l = s[i].lane;
        if (s[i].dur < 0) { /* readers reject these; never let one reach the nesting */
            s[i].dur = 0;
            negative++;
        }
        if (fill[l] != i) w->identity = 0;
        order[fill[l]++] = (uint32_t)i;
        if (prev[l] != STS_NONE && nest_less(s, (uint32_t)i, prev[l])) w->sorted[l] = 0;
        prev[l] = (uint32_t)i;
    }
    free(fill);
    free(prev);
    if (negative)
        sts_tl_warn(tl, "%s: %llu slice%s had a negative duration; set to 0", tl->info.path,
                    (unsigned long long)negative, negative == 1 ? "" : "s");
    return order;
}

/* ---- sorting the lanes that need it --------------------------------------------- */

static int sort_lanes(const sts_timeline *tl, uint32_t *order, lanes_work *w)
{
    size_t maxseg = 0;
    for (size_t l = 0; l < w->nl; l++)
        if (!w->sorted[l] && w->off[l + 1] - w->off[l] > maxseg) maxseg = w->off[l + 1] - w->off[l];
    if (maxseg == 0) return 0;
    w->identity = 0;
    nest_key *keys = malloc(2 * maxseg * sizeof *keys);
    if (!keys) return -1;
    int bad = 0;
    for (size_t l = 0; l < w->nl && !bad; l++) {
        if (w->sorted[l]) continue;
        uint32_t *seg = order + w->off[l];
        size_t m = w->off[l + 1] - w->off[l];
        for (size_t k = 0; k < m; k++) {
            keys[k].ts = tl->slices.v[seg[k]].ts;
            keys[k].idx = seg[k];
            keys[k].unused = 0;
        }
        bad = sort_keys(keys, m, keys + maxseg, tl->slices.v) != 0;
        for (size_t k = 0; k < m && !bad; k++)
            seg[k] = keys[k].idx;
    }
    free(keys);
    return bad ? -1 : 0;
}

/* ---- pass 3: nest, then permute ---------------------------------------------- */

/* The open slices of one lane. Ends are not monotonic once an overlap is pushed (it
 * sits above the slice it overran but belongs to an older ancestor), so each entry
 * carries its own depth. */
typedef struct nest_stack {
    int64_t *end;
    uint32_t *pos;
    uint32_t *depth;
    size_t n, cap;
} nest_stack;

static int nest_push(nest_stack *st, int64_t end, uint32_t pos, uint32_t depth)
{
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        int64_t *e = realloc(st->end, cap * sizeof *e);
        if (!e) return -1;
        st->end = e;
        uint32_t *p = realloc(st->pos, cap * sizeof *p);
        if (!p) return -1;
        st->pos = p;
        uint32_t *d = realloc(st->depth, cap * sizeof *d);
        if (!d) return -1;
        st->depth = d;
        st->cap = cap;
    }
    st->end[st->n] = end;
    st->pos[st->n] = pos;
    st->depth[st->n++] = depth;
    return 0;
}

/* The innermost open slice that wholly holds [ts, end), as a stack index, or -1.
 * An overlap nests there: it is a sibling of the slice it overran, so neither its own
 * children nor the overrun slice's self time are lost (JAX's Python tracer frames
 * routinely end just inside the step annotation they opened). */
static long nest_holder(const nest_stack *st, int64_t ts, int64_t end)
{
    for (size_t i = st->n; i-- > 0;) {
        if (st->end[i] > ts && st->end[i] >= end) return (long)i;
    }
    return -1;
}

static int record_overlap(sts_timeline *tl, uint32_t slice, uint32_t parent, int64_t over)
{
    sts_overlap *ov = STS_VEC_PUSH(tl->overlaps);
    if (!ov) return -1;
    ov->slice = slice;
    ov->parent = parent;
    ov->overrun_ns = over;
    return 0;
}

/* Nests one lane, visiting its slices in nesting order: slice order[k], bound for
 * final position k, gets its parent (a final position), depth, clamped dur and flags.
 * The slices stay where they lie until the permutation. */
static int nest_lane(sts_timeline *tl, const uint32_t *order, size_t lo, size_t hi, int64_t res, nest_stack *st)
{
    sts_slice *all = tl->slices.v;
    st->n = 0;
    for (size_t k = lo; k < hi; k++) {
        if (k + 16 < hi) __builtin_prefetch(&all[order[k + 16]], 1);
        sts_slice *s = &all[order[k]];
        int64_t end = fin_end(s->ts, s->dur);
        while (st->n && st->end[st->n - 1] <= s->ts)
            st->n--; /* half-open: ending at ts is not enclosing */
        uint32_t parent = STS_NONE, depth = 0;
        if (st->n) {
            size_t top = st->n - 1;
            int64_t pend = st->end[top];
            parent = st->pos[top];
            depth = st->depth[top] + 1;
            if (end > pend && end - pend <= res) {
                s->dur = pend - s->ts;
                s->flags |= STS_SLICE_CLAMPED;
                end = pend;
                tl->info.clamped++;
            } else if (end > pend) {
                if (record_overlap(tl, (uint32_t)k, parent, end - pend) != 0) return -1;
                s->flags |= STS_SLICE_OVERLAP;
                long h = nest_holder(st, s->ts, end);
                parent = h < 0 ? STS_NONE : st->pos[h];
                depth = h < 0 ? 0 : st->depth[h] + 1;
            }
        }
        s->parent = parent;
        s->depth = depth > 65535 ? 65535 : (uint16_t)depth;
        if (s->ts < tl->info.ts_min) tl->info.ts_min = s->ts;
        if (end > tl->info.ts_max) tl->info.ts_max = end;
        if (nest_push(st, end, (uint32_t)k, depth) != 0) return -1;
    }
    return 0;
}

/* Moves slice order[k] to position k for every k by swaps, tracking where each slice
 * went (pos: original index -> position, at: position -> original index). Unlike
 * following cycles, the next few moves are known in advance, so their cache misses are
 * prefetched and overlap. Needs 8 bytes per slice; -1 when they cannot be had. */
static int permute_swaps(sts_slice *s, const uint32_t *order, size_t n)
{
    enum { AHEAD = 8 };
    uint32_t *pos = malloc((n ? n : 1) * sizeof *pos), *at = malloc((n ? n : 1) * sizeof *at);
    if (!pos || !at) {
        free(pos);
        free(at);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        pos[i] = at[i] = (uint32_t)i;
    for (size_t k = 0; k < n; k++) {
        if (k + 2 * AHEAD < n) __builtin_prefetch(&pos[order[k + 2 * AHEAD]]);
        if (k + AHEAD < n) {
            uint32_t q = pos[order[k + AHEAD]];
            __builtin_prefetch(&s[q], 1);
            __builtin_prefetch(&at[q], 1);
            __builtin_prefetch(&pos[at[k + AHEAD]], 1);
        }
        uint32_t p = pos[order[k]];
        if (p == k) continue;
        sts_slice t = s[k];
        s[k] = s[p];
        s[p] = t;
        uint32_t y = at[k];
        at[p] = y;
        pos[y] = p;
    }
    free(pos);
    free(at);
    return 0;
}

/* The same with no memory at all, following cycles; order is consumed. Every move
 * waits for a cache miss: the last resort. */
static void permute_cycles(sts_slice *s, uint32_t *order, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (order[k] == k) continue;
        sts_slice held = s[k];
        size_t j = k;
        for (;;) {
            size_t src = order[j];
            order[j] = (uint32_t)j;
            if (src == k) {
                s[j] = held;
                break;
            }
            s[j] = s[src];
            j = src;
        }
    }
}

static int nest_all(sts_timeline *tl, uint32_t *order, const lanes_work *w)
{
    size_t n = tl->slices.n;
    int64_t res = tl->all_whole_us ? 1000 : 1;
    nest_stack st = { 0 };
    int bad = 0;
    for (size_t l = 0; l < w->nl && !bad; l++)
        bad = nest_lane(tl, order, w->off[l], w->off[l + 1], res, &st) != 0;
    free(st.end);
    free(st.pos);
    free(st.depth);
    if (bad) return -1;
    /* In place: a second slice array (gathering) measured slower, its fresh pages
     * costing more than the prefetched swaps, and 5x the memory. */
    if (!w->identity && (sts_finalize_test_cycles || permute_swaps(tl->slices.v, order, n) != 0))
        permute_cycles(tl->slices.v, order, n);
    for (size_t l = 0; l < w->nl; l++) {
        tl->lanes.v[l].first_slice = (uint32_t)w->off[l];
        tl->lanes.v[l].slice_count = (uint32_t)(w->off[l + 1] - w->off[l]);
    }
    tl->info.overlaps = tl->overlaps.n;
    return 0;
}

/* ---- the whole ------------------------------------------------------------------ */

/* Slices were folded in while nesting; instants count too. */
static void finish_span(sts_timeline *tl)
{
    int64_t lo = tl->info.ts_min, hi = tl->info.ts_max;
    for (size_t i = 0; i < tl->instants.n; i++) {
        int64_t t = tl->instants.v[i].ts;
        if (t < lo) lo = t;
        if (t > hi) hi = t;
    }
    tl->info.ts_min = lo == INT64_MAX ? 0 : lo;
    tl->info.ts_max = hi == INT64_MIN ? 0 : hi;
}

static void work_free(lanes_work *w)
{
    free(w->off);
    free(w->begins);
    free(w->sorted);
}

sts_status sts_tl_finalize(sts_timeline *tl, sts_error *err)
{
    if (tl->finalized) return STS_OK;
    lanes_work w = { tl->lanes.n, NULL, NULL, 0, NULL, 0 };
    w.off = calloc(w.nl + 1, sizeof *w.off);
    w.begins = calloc(w.nl + 1, sizeof *w.begins);
    w.sorted = malloc(w.nl + 1);
    if (!w.off || !w.begins || !w.sorted) {
        work_free(&w);
        return sts_fin_nomem(tl, err);
    }
    sts_status st = scan(tl, &w, err);
    if (st == STS_OK) st = sts_fin_match_begin_end(tl, w.begins, w.nbegins, err);
    if (st != STS_OK) {
        work_free(&w);
        return st;
    }
    free(tl->ends.v);
    memset(&tl->ends, 0, sizeof tl->ends);
    tl->info.resolution_ns = tl->all_whole_us ? 1000 : 1;
    tl->info.ts_min = INT64_MAX;
    tl->info.ts_max = INT64_MIN;
    uint32_t *order = bucket(tl, &w);
    int bad = !order || sort_lanes(tl, order, &w) != 0 || nest_all(tl, order, &w) != 0;
    free(order);
    work_free(&w);
    if (bad) return sts_fin_nomem(tl, err);
    finish_span(tl);
    tl->finalized = 1;
    return STS_OK;
}
