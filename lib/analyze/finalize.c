/* Finalize: B/E matching, nesting with the rounding tolerance, and the final slice
 * order. See DESIGN.md "The interval model" and docs/ARCHITECTURE.md.
 *
 * Memory: everything works on 4-byte index arrays (an order array plus scratch of the
 * largest lane's size); slices are permuted in place, never copied. */
#include "analyze/finalize.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/idxsort.h"

#define E_TOKEN 0x80000000u

static int64_t end_of(int64_t ts, int64_t dur)
{
    int64_t e;
    return __builtin_add_overflow(ts, dur, &e) ? INT64_MAX : e;
}

static sts_status no_memory(sts_error *err, const sts_timeline *tl)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory while nesting %zu slices", tl->info.path,
                         tl->slices.n);
}

/* ---- B/E matching ------------------------------------------------------------ */

typedef struct be_ctx {
    const sts_slice *s;
    const sts_end_event *e;
} be_ctx;

static inline int64_t be_ts(const be_ctx *c, uint32_t t)
{
    return (t & E_TOKEN) ? c->e[t & ~E_TOKEN].ts : c->s[t].ts;
}

static inline uint32_t be_seq(const be_ctx *c, uint32_t t)
{
    return (t & E_TOKEN) ? c->e[t & ~E_TOKEN].seq : c->s[t].parent;
}

/* Perfetto sorts events by timestamp before matching; equal timestamps keep file order. */
#define BE_LESS(c, x, y)                                                                         \
    (be_ts(c, x) != be_ts(c, y) ? be_ts(c, x) < be_ts(c, y)                                      \
                                : (be_seq(c, x) != be_seq(c, y) ? be_seq(c, x) < be_seq(c, y) : (x) < (y)))

STS_DEFINE_IDX_SORT(sort_be, be_ctx, BE_LESS)

static int is_open_begin(const sts_slice *s)
{
    return (s->flags & STS_SLICE_FROM_BE) && s->dur < 0;
}

/* Counting sort of tokens by lane: off[l]..off[l+1] is lane l's segment. */
static uint32_t *bucket_be(sts_timeline *tl, size_t *off, size_t *ntok)
{
    size_t nl = tl->lanes.n;
    memset(off, 0, (nl + 1) * sizeof *off);
    for (size_t i = 0; i < tl->slices.n; i++)
        if (is_open_begin(&tl->slices.v[i])) off[tl->slices.v[i].lane + 1]++;
    for (size_t j = 0; j < tl->ends.n; j++) off[tl->ends.v[j].lane + 1]++;
    for (size_t l = 0; l < nl; l++) off[l + 1] += off[l];
    *ntok = off[nl];
    uint32_t *tok = malloc((*ntok ? *ntok : 1) * sizeof *tok);
    size_t *fill = malloc((nl ? nl : 1) * sizeof *fill);
    if (!tok || !fill) {
        free(tok);
        free(fill);
        return NULL;
    }
    memcpy(fill, off, nl * sizeof *fill);
    for (size_t i = 0; i < tl->slices.n; i++)
        if (is_open_begin(&tl->slices.v[i])) tok[fill[tl->slices.v[i].lane]++] = (uint32_t)i;
    for (size_t j = 0; j < tl->ends.n; j++) tok[fill[tl->ends.v[j].lane]++] = (uint32_t)j | E_TOKEN;
    free(fill);
    return tok;
}

typedef STS_VEC(uint32_t) u32vec;

static int push_u32(u32vec *v, uint32_t x)
{
    uint32_t *p = STS_VEC_PUSH(*v);
    if (!p) return -1;
    *p = x;
    return 0;
}

/* Walks one lane's tokens in time order: an E closes the most recent open B. Open
 * B's left at the end go to `unclosed`. */
static int match_lane(sts_timeline *tl, const uint32_t *tok, size_t n, u32vec *stack, u32vec *unclosed)
{
    stack->n = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t t = tok[k];
        if (!(t & E_TOKEN)) {
            if (push_u32(stack, t) != 0) return -1;
            continue;
        }
        const sts_end_event *e = &tl->ends.v[t & ~E_TOKEN];
        if (stack->n == 0) {
            tl->info.unmatched_end++;
            continue;
        }
        sts_slice *b = &tl->slices.v[stack->v[--stack->n]];
        b->dur = e->ts - b->ts;
    }
    for (size_t k = 0; k < stack->n; k++)
        if (push_u32(unclosed, stack->v[k]) != 0) return -1;
    return 0;
}

/* The last timestamp anything reaches on each lane, so an unclosed B stays visible up
 * to where its lane's data ends. */
static int64_t *lane_last_ts(const sts_timeline *tl)
{
    size_t nl = tl->lanes.n;
    int64_t *last = malloc((nl ? nl : 1) * sizeof *last);
    if (!last) return NULL;
    for (size_t l = 0; l < nl; l++) last[l] = INT64_MIN;
    for (size_t i = 0; i < tl->slices.n; i++) {
        const sts_slice *s = &tl->slices.v[i];
        int64_t e = s->dur >= 0 ? end_of(s->ts, s->dur) : s->ts;
        if (e > last[s->lane]) last[s->lane] = e;
    }
    for (size_t j = 0; j < tl->ends.n; j++)
        if (tl->ends.v[j].ts > last[tl->ends.v[j].lane]) last[tl->ends.v[j].lane] = tl->ends.v[j].ts;
    for (size_t j = 0; j < tl->instants.n; j++) {
        const sts_instant *in = &tl->instants.v[j];
        if (in->lane < nl && in->ts > last[in->lane]) last[in->lane] = in->ts;
    }
    return last;
}

static void close_unclosed(sts_timeline *tl, const u32vec *unclosed, const int64_t *last)
{
    for (size_t k = 0; k < unclosed->n; k++) {
        sts_slice *s = &tl->slices.v[unclosed->v[k]];
        s->dur = last[s->lane] - s->ts;
        s->flags |= STS_SLICE_UNCLOSED;
    }
    tl->info.unclosed_begin = unclosed->n;
    if (unclosed->n == 0) return;
    const sts_slice *s = &tl->slices.v[unclosed->v[0]];
    const sts_lane *ln = &tl->lanes.v[s->lane];
    sts_tl_warn(tl,
                "%s: %zu B event%s never closed by an E; shown running to the last timestamp of %s lane "
                "(first: '%s' at ts %lld ns on pid %s tid %s)",
                tl->info.path, unclosed->n, unclosed->n == 1 ? " was" : "s were", unclosed->n == 1 ? "its" : "their",
                sts_strtab_get(&tl->strings, s->name), (long long)s->ts,
                sts_strtab_get(&tl->strings, tl->procs.v[ln->process].label), sts_strtab_get(&tl->strings, ln->label));
}

static sts_status match_begin_end(sts_timeline *tl, sts_error *err)
{
    size_t nl = tl->lanes.n, ntok = 0;
    size_t *off = malloc((nl + 1) * sizeof *off);
    if (!off) return no_memory(err, tl);
    uint32_t *tok = bucket_be(tl, off, &ntok);
    if (!tok) {
        free(off);
        return no_memory(err, tl);
    }
    size_t maxseg = 0;
    for (size_t l = 0; l < nl; l++)
        if (off[l + 1] - off[l] > maxseg) maxseg = off[l + 1] - off[l];
    uint32_t *tmp = malloc((maxseg ? maxseg : 1) * sizeof *tmp);
    u32vec stack = { 0 }, unclosed = { 0 };
    int64_t *last = NULL;
    int bad = tmp == NULL;
    be_ctx ctx = { tl->slices.v, tl->ends.v };
    for (size_t l = 0; l < nl && !bad; l++) {
        size_t n = off[l + 1] - off[l];
        if (n == 0) continue;
        bad = sort_be(tok + off[l], n, tmp, &ctx) != 0 || match_lane(tl, tok + off[l], n, &stack, &unclosed) != 0;
    }
    if (!bad) bad = (last = lane_last_ts(tl)) == NULL;
    if (!bad) close_unclosed(tl, &unclosed, last);
    if (!bad && tl->info.unmatched_end)
        sts_tl_warn(tl, "%s: %llu E event%s had no open B on %s lane and %s ignored", tl->info.path,
                    (unsigned long long)tl->info.unmatched_end, tl->info.unmatched_end == 1 ? "" : "s",
                    tl->info.unmatched_end == 1 ? "its" : "their", tl->info.unmatched_end == 1 ? "was" : "were");
    free(last);
    free(stack.v);
    free(unclosed.v);
    free(tmp);
    free(tok);
    free(off);
    return bad ? no_memory(err, tl) : STS_OK;
}

/* ---- nesting ------------------------------------------------------------------ */

/* Perfetto's order: ts ascending, longer first (so a parent precedes the children that
 * start with it), then file order. Raw slices are stored in file order, so the index
 * breaks the remaining ties. */
#define NEST_LESS(s, x, y)                                                                       \
    ((s)[x].ts != (s)[y].ts ? (s)[x].ts < (s)[y].ts : ((s)[x].dur != (s)[y].dur ? (s)[x].dur > (s)[y].dur : (x) < (y)))

STS_DEFINE_IDX_SORT(sort_nest, sts_slice, NEST_LESS)

static int is_sorted_nest(const sts_slice *s, const uint32_t *a, size_t n)
{
    for (size_t k = 1; k < n; k++)
        if (NEST_LESS(s, a[k], a[k - 1])) return 0;
    return 1;
}

/* Stable counting sort of slice indices by lane; off[l]..off[l+1] is lane l. */
static uint32_t *bucket_slices(const sts_timeline *tl, size_t *off)
{
    size_t nl = tl->lanes.n, n = tl->slices.n;
    memset(off, 0, (nl + 1) * sizeof *off);
    for (size_t i = 0; i < n; i++) off[tl->slices.v[i].lane + 1]++;
    for (size_t l = 0; l < nl; l++) off[l + 1] += off[l];
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t *fill = malloc((nl ? nl : 1) * sizeof *fill);
    if (!order || !fill) {
        free(order);
        free(fill);
        return NULL;
    }
    memcpy(fill, off, nl * sizeof *fill);
    for (size_t i = 0; i < n; i++) order[fill[tl->slices.v[i].lane]++] = (uint32_t)i;
    free(fill);
    return order;
}

static int sort_lanes(const sts_timeline *tl, uint32_t *order, const size_t *off)
{
    size_t nl = tl->lanes.n, maxseg = 0;
    for (size_t l = 0; l < nl; l++)
        if (off[l + 1] - off[l] > maxseg) maxseg = off[l + 1] - off[l];
    uint32_t *tmp = NULL;
    for (size_t l = 0; l < nl; l++) {
        size_t n = off[l + 1] - off[l];
        if (is_sorted_nest(tl->slices.v, order + off[l], n)) continue;
        if (!tmp && !(tmp = malloc(maxseg * sizeof *tmp))) return -1;
        if (sort_nest(order + off[l], n, tmp, tl->slices.v) != 0) {
            free(tmp);
            return -1;
        }
    }
    free(tmp);
    return 0;
}

typedef struct nest_stack {
    int64_t *end;
    uint32_t *pos;
    size_t n, cap;
} nest_stack;

static int nest_push(nest_stack *st, int64_t end, uint32_t pos)
{
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        int64_t *e = realloc(st->end, cap * sizeof *e);
        if (!e) return -1;
        st->end = e;
        uint32_t *p = realloc(st->pos, cap * sizeof *p);
        if (!p) return -1;
        st->pos = p;
        st->cap = cap;
    }
    st->end[st->n] = end;
    st->pos[st->n++] = pos;
    return 0;
}

/* Assigns parent (as a final position), depth, clamped dur and flags to the slices of
 * one lane, visited in nesting order order[lo..hi). */
static int nest_lane(sts_timeline *tl, const uint32_t *order, size_t lo, size_t hi, int64_t res, nest_stack *st)
{
    st->n = 0;
    for (size_t k = lo; k < hi; k++) {
        sts_slice *s = &tl->slices.v[order[k]];
        int64_t end = end_of(s->ts, s->dur);
        while (st->n && st->end[st->n - 1] <= s->ts) st->n--;
        uint32_t parent = STS_NONE;
        int nested = 1;
        if (st->n) {
            int64_t pend = st->end[st->n - 1];
            parent = st->pos[st->n - 1];
            if (end > pend) {
                int64_t over = end - pend;
                if (over <= res) {
                    s->dur = pend - s->ts;
                    s->flags |= STS_SLICE_CLAMPED;
                    end = pend;
                    tl->info.clamped++;
                } else {
                    sts_overlap *ov = STS_VEC_PUSH(tl->overlaps);
                    if (!ov) return -1;
                    ov->slice = (uint32_t)k;
                    ov->parent = parent;
                    ov->overrun_ns = over;
                    s->flags |= STS_SLICE_OVERLAP;
                    parent = STS_NONE;
                    nested = 0;
                }
            }
        }
        s->parent = parent;
        s->depth = st->n > 65535 ? 65535 : (uint16_t)st->n;
        if (nested && nest_push(st, end, (uint32_t)k) != 0) return -1;
    }
    return 0;
}

/* Moves slice order[k] to position k for every k, following cycles; order is consumed. */
static void permute_slices(sts_slice *s, uint32_t *order, size_t n)
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

static void fix_negative_durations(sts_timeline *tl)
{
    uint64_t bad = 0;
    for (size_t i = 0; i < tl->slices.n; i++) {
        sts_slice *s = &tl->slices.v[i];
        if (s->dur < 0) {
            s->dur = 0;
            bad++;
        }
    }
    if (bad)
        sts_tl_warn(tl, "%s: %llu slice%s had a negative duration; set to 0", tl->info.path, (unsigned long long)bad,
                    bad == 1 ? "" : "s");
}

static sts_status nest(sts_timeline *tl, sts_error *err)
{
    size_t nl = tl->lanes.n;
    size_t *off = malloc((nl + 1) * sizeof *off);
    uint32_t *order = off ? bucket_slices(tl, off) : NULL;
    if (!order || sort_lanes(tl, order, off) != 0) {
        free(order);
        free(off);
        return no_memory(err, tl);
    }
    int64_t res = tl->all_whole_us ? 1000 : 1;
    nest_stack st = { 0 };
    int bad = 0;
    for (size_t l = 0; l < nl && !bad; l++) bad = nest_lane(tl, order, off[l], off[l + 1], res, &st) != 0;
    free(st.end);
    free(st.pos);
    if (bad) {
        free(order);
        free(off);
        return no_memory(err, tl);
    }
    permute_slices(tl->slices.v, order, tl->slices.n);
    for (size_t l = 0; l < nl; l++) {
        tl->lanes.v[l].first_slice = (uint32_t)off[l];
        tl->lanes.v[l].slice_count = (uint32_t)(off[l + 1] - off[l]);
    }
    tl->info.overlaps = tl->overlaps.n;
    free(order);
    free(off);
    return STS_OK;
}

static void fill_span(sts_timeline *tl)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < tl->slices.n; i++) {
        const sts_slice *s = &tl->slices.v[i];
        if (s->ts < lo) lo = s->ts;
        int64_t e = end_of(s->ts, s->dur);
        if (e > hi) hi = e;
    }
    for (size_t i = 0; i < tl->instants.n; i++) {
        int64_t t = tl->instants.v[i].ts;
        if (t < lo) lo = t;
        if (t > hi) hi = t;
    }
    tl->info.ts_min = lo == INT64_MAX ? 0 : lo;
    tl->info.ts_max = hi == INT64_MIN ? 0 : hi;
}

static sts_status check_limits(const sts_timeline *tl, sts_error *err)
{
    if (tl->slices.n >= E_TOKEN || tl->ends.n >= E_TOKEN)
        return sts_error_set(err, STS_ERR_LIMIT, -1, "%s: %zu slices and %zu end events; at most 2^31 - 1 of each",
                             tl->info.path, tl->slices.n, tl->ends.n);
    for (size_t i = 0; i < tl->slices.n; i++)
        if (tl->slices.v[i].lane >= tl->lanes.n)
            return sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: slice %zu names lane %u of %zu", tl->info.path, i,
                                 tl->slices.v[i].lane, tl->lanes.n);
    for (size_t j = 0; j < tl->ends.n; j++)
        if (tl->ends.v[j].lane >= tl->lanes.n)
            return sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: end event %zu names lane %u of %zu", tl->info.path, j,
                                 tl->ends.v[j].lane, tl->lanes.n);
    return STS_OK;
}

sts_status sts_tl_finalize(sts_timeline *tl, sts_error *err)
{
    if (tl->finalized) return STS_OK;
    sts_status st = check_limits(tl, err);
    if (st == STS_OK) st = match_begin_end(tl, err);
    if (st != STS_OK) return st;
    free(tl->ends.v);
    memset(&tl->ends, 0, sizeof tl->ends);
    fix_negative_durations(tl);
    tl->info.resolution_ns = tl->all_whole_us ? 1000 : 1;
    st = nest(tl, err);
    if (st != STS_OK) return st;
    fill_span(tl);
    tl->finalized = 1;
    return STS_OK;
}
