/* The union of what lies inside each interval: the quantity self time subtracts.
 *
 * Where intervals nest properly (the usual case), the union inside an interval is the
 * sum of its direct children, found with a stack in one pass. Where some intervals
 * cross, each interval's inside union is built incrementally instead: taking the
 * intervals in containment order, every interval that lies inside an earlier one only
 * starts at or after everything already counted for it, so the union inside `s` grows
 * by `end - max(ts, R_s)`, where R_s is the furthest end counted for `s` so far. An
 * interval [a, b) lies inside exactly the earlier open intervals whose end is >= b, a
 * suffix when they are ranked by end; on that suffix it raises every R below b to b and
 * adds b - max(a, R). Two ways to apply that:
 *   - the scan (below): walk the open intervals from the latest down and stop at the
 *     first container that every interval still open below it holds; where crossings
 *     are few that is a step or two per interval;
 *   - when the scan would run long (many intervals crossing each other, as a hostile
 *     file can make), a segment tree "beats" chmax on the suffix (min and second min
 *     per node; a node whose second min is >= b changes only its min elements, all by
 *     the same amount): O(m log m) amortized for m intervals. Intervals are switched on
 *     in order, so an interval never counts itself or later ones. */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/mem.h"
#include "base/search.h"

#define OFF  INT64_MAX /* a leaf whose interval has not started: never updated */
#define NONE INT64_MIN /* R of an interval nothing has been counted inside yet */

typedef struct tree {
    int64_t *mn, *smn, *add; /* per node: min R, second smallest distinct R, pending add */
    size_t size;             /* leaves, a power of two */
} tree;

static void apply(tree *t, size_t node, int64_t v, int64_t a)
{
    int64_t from = t->mn[node] > a ? t->mn[node] : a;
    t->add[node] += v - from;
    t->mn[node] = v;
}

/* Hands a node's pending update to the children whose min it was. */
static void push(tree *t, size_t node)
{
    for (size_t c = 2 * node; c <= 2 * node + 1; c++) {
        if (t->mn[c] < t->mn[node]) {
            t->add[c] += t->add[node];
            t->mn[c] = t->mn[node];
        }
    }
    t->add[node] = 0;
}

static void pull(tree *t, size_t node)
{
    size_t l = 2 * node, r = l + 1;
    if (t->mn[l] == t->mn[r]) {
        t->mn[node] = t->mn[l];
        t->smn[node] = t->smn[l] < t->smn[r] ? t->smn[l] : t->smn[r];
    } else if (t->mn[l] < t->mn[r]) {
        t->mn[node] = t->mn[l];
        t->smn[node] = t->smn[l] < t->mn[r] ? t->smn[l] : t->mn[r];
    } else {
        t->mn[node] = t->mn[r];
        t->smn[node] = t->mn[l] < t->smn[r] ? t->mn[l] : t->smn[r];
    }
}

/* For every leaf in [ql, size) whose R < v: add v - max(a, R), set R = v. */
static void update(tree *t, size_t node, size_t lo, size_t hi, size_t ql, int64_t v, int64_t a)
{
    if (hi <= ql || t->mn[node] >= v) return;
    if (ql <= lo && t->smn[node] > v) {
        apply(t, node, v, a);
        return;
    }
    push(t, node);
    size_t mid = lo + (hi - lo) / 2;
    update(t, 2 * node, lo, mid, ql, v, a);
    update(t, 2 * node + 1, mid, hi, ql, v, a);
    pull(t, node);
}

static void switch_on(tree *t, size_t leaf)
{
    size_t node = t->size + leaf;
    for (int h = 63; h > 0; h--)
        if ((node >> h) != 0) push(t, node >> h);
    t->mn[node] = NONE;
    for (node >>= 1; node; node >>= 1)
        pull(t, node);
}

static int grow_scratch(sts_an_scratch *sc, size_t n, size_t size)
{
    if (sts_grow((void **)&sc->rank, &sc->rank_cap, 2 * n, sizeof *sc->rank) != 0) return -1;
    if (sts_grow((void **)&sc->keys, &sc->keys_cap, 2 * n, sizeof *sc->keys) != 0) return -1;
    return sts_grow((void **)&sc->tree, &sc->tree_cap, 6 * size, sizeof *sc->tree);
}

/* Ranks the intervals by end: rank[k] is interval k's leaf, ends[0..n) the sorted ends
 * (a merge sort that carries the keys; the order among equal ends does not matter).
 * rank and ends each hold 2n entries, the upper halves used as buffers. */
static void rank_by_end(const sts_an_iv *iv, size_t n, uint32_t *rank, int64_t *ends)
{
    uint32_t *by = rank + n;
    int64_t *tmp = ends + n;
    for (size_t k = 0; k < n; k++)
        by[k] = (uint32_t)k;
    for (size_t k = 0; k < n; k++)
        ends[k] = iv[k].end;
    uint32_t *src = by, *dst = rank;
    int64_t *ks = ends, *kd = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                if (ks[j] < ks[i]) {
                    kd[o] = ks[j];
                    dst[o++] = src[j++];
                } else {
                    kd[o] = ks[i];
                    dst[o++] = src[i++];
                }
            }
            while (i < mid) {
                kd[o] = ks[i];
                dst[o++] = src[i++];
            }
            while (j < hi) {
                kd[o] = ks[j];
                dst[o++] = src[j++];
            }
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
        int64_t *tk = ks;
        ks = kd;
        kd = tk;
    }
    /* src holds intervals by end, ks their ends; turn it into interval -> leaf. */
    if (ks != ends) memcpy(ends, ks, n * sizeof *ends);
    if (src != by) memcpy(by, src, n * sizeof *by);
    for (size_t p = 0; p < n; p++)
        rank[by[p]] = (uint32_t)p;
}

int sts_an_inside_union_general(const sts_an_iv *iv, size_t n, int64_t *u, sts_an_scratch *sc)
{
    if (n == 0) return 0;
    size_t size = 1;
    while (size < n)
        size *= 2;
    if (grow_scratch(sc, n, size) != 0) return -1;
    tree t = { sc->tree, sc->tree + 2 * size, sc->tree + 4 * size, size };
    for (size_t i = 0; i < 2 * size; i++) {
        t.mn[i] = OFF;
        t.smn[i] = OFF;
        t.add[i] = 0;
    }
    rank_by_end(iv, n, sc->rank, sc->keys);
    for (size_t k = 0; k < n; k++) {
        /* Earlier intervals holding [ts, end) are those still open at ts with end >= end;
         * one that ended by ts is never raised above its own end, so it gains nothing. */
        size_t from = sts_first_at_least_i64(sc->keys, n, iv[k].end);
        if (from < n && iv[k].end > iv[k].ts) update(&t, 1, 0, size, from, iv[k].end, iv[k].ts);
        switch_on(&t, sc->rank[k]);
    }
    for (size_t node = 1; node < size; node++)
        push(&t, node);
    for (size_t k = 0; k < n; k++)
        u[k] = t.add[size + sc->rank[k]];
    return 0;
}

/* ---- the scan ------------------------------------------------------------------------
 *
 * Intervals that lie inside an interval o are inside every container of o, but o adds
 * to a container's union only while that container has counted nothing reaching b =
 * o's end. Scanning the open intervals from the latest down, each container with less
 * counted gets b - max(a, R) and its R rises to b; the scan stops at the first
 * container that lies inside every interval still open below it ("nested": noted when
 * it opened), since those below then already reach past b. Where nothing crosses, that
 * is the first container: one step. Open intervals are ended by a min-heap on their
 * ends, so a container is one whose end is at least b among the intervals still open. */

enum { DEAD = 1, NESTED = 2 };

typedef struct scan {
    const sts_an_iv *iv;
    uint32_t *heap; /* positions of the open intervals, a min-heap on end */
    size_t nheap;
    unsigned char *flags;
} scan;

static int64_t end_at(const scan *c, size_t h)
{
    return c->iv[c->heap[h]].end;
}

static void heap_push(scan *c, uint32_t k)
{
    size_t i = c->nheap++;
    c->heap[i] = k;
    while (i > 0 && end_at(c, (i - 1) / 2) > end_at(c, i)) {
        uint32_t t = c->heap[i];
        c->heap[i] = c->heap[(i - 1) / 2];
        c->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static void heap_pop(scan *c)
{
    c->heap[0] = c->heap[--c->nheap];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->nheap && end_at(c, l) < end_at(c, m)) m = l;
        if (r < c->nheap && end_at(c, r) < end_at(c, m)) m = r;
        if (m == i) return;
        uint32_t t = c->heap[i];
        c->heap[i] = c->heap[m];
        c->heap[m] = t;
        i = m;
    }
}

static int grow_scan(sts_an_scratch *sc, size_t n)
{
    if (sts_grow((void **)&sc->reach, &sc->reach_cap, n, sizeof *sc->reach) != 0) return -1;
    if (sts_grow((void **)&sc->flags, &sc->flags_cap, n, sizeof *sc->flags) != 0) return -1;
    if (sts_grow((void **)&sc->heap, &sc->heap_cap, n, sizeof *sc->heap) != 0) return -1;
    return sts_grow((void **)&sc->stack, &sc->stack_cap, n, sizeof *sc->stack);
}

int sts_an_inside_union_scan(const sts_an_iv *iv, size_t n, int64_t *u, sts_an_scratch *sc, uint64_t budget)
{
    if (n == 0) return 0;
    if (grow_scan(sc, n) != 0) return -1;
    scan c = { iv, sc->heap, 0, sc->flags };
    int64_t *reach = sc->reach;
    uint32_t *st = sc->stack;
    size_t depth = 0;
    uint64_t steps = 0;
    for (size_t k = 0; k < n; k++) {
        int64_t a = iv[k].ts, b = iv[k].end;
        while (c.nheap && end_at(&c, 0) <= a) {
            c.flags[c.heap[0]] |= DEAD;
            heap_pop(&c);
        }
        while (depth && (c.flags[st[depth - 1]] & DEAD))
            depth--;
        for (size_t i = depth; b > a && i-- > 0;) {
            uint32_t s = st[i];
            if (++steps > budget) return 1;
            if ((c.flags[s] & DEAD) || iv[s].end < b) continue;
            if (reach[s] < b) {
                u[s] += b - (reach[s] > a ? reach[s] : a);
                reach[s] = b;
            }
            if (c.flags[s] & NESTED) break;
        }
        u[k] = 0;
        reach[k] = INT64_MIN;
        c.flags[k] = (unsigned char)(!c.nheap || b <= end_at(&c, 0) ? NESTED : 0);
        st[depth++] = (uint32_t)k;
        heap_push(&c, (uint32_t)k);
    }
    return 0;
}

/* Scan steps allowed per interval before a stretch goes to the general algorithm. */
#define SCAN_STEPS_PER_INTERVAL 24

/* One crossing stretch: the scan, or the segment tree when the scan runs long. */
static int crossed_stretch(const sts_an_iv *iv, size_t n, int64_t *u, sts_an_scratch *sc)
{
    int rc = sts_an_inside_union_scan(iv, n, u, sc, (uint64_t)n * SCAN_STEPS_PER_INTERVAL + 1024);
    if (rc <= 0) return rc;
    return sts_an_inside_union_general(iv, n, u, sc);
}

int sts_an_inside_union(const sts_an_iv *iv, size_t n, int64_t *u, sts_an_scratch *sc)
{
    if (sts_grow((void **)&sc->stack, &sc->stack_cap, n ? n : 1, sizeof *sc->stack) != 0) return -1;
    size_t depth = 0, from = 0;
    int crossed = 0;
    for (size_t k = 0; k <= n; k++) {
        uint32_t *st = sc->stack;
        while (depth && k < n && iv[st[depth - 1]].end <= iv[k].ts)
            depth--;
        if (depth == 0 || k == n) {
            /* A stretch with no open interval ends here; redo it if some crossed. */
            if (crossed && crossed_stretch(iv + from, k - from, u + from, sc) != 0) return -1;
            if (k == n) break;
            from = k;
            crossed = 0;
        }
        st = sc->stack; /* the stretch's scan may have grown it */
        u[k] = 0;
        if (depth) {
            const sts_an_iv *p = &iv[st[depth - 1]];
            if (iv[k].end <= p->end)
                u[st[depth - 1]] += iv[k].end - iv[k].ts;
            else
                crossed = 1;
        }
        st[depth++] = (uint32_t)k;
    }
    return 0;
}
