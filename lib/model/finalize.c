/* Finalize, part 2: the driver. See docs/ARCHITECTURE.md, "The interval model".
 *
 * Steps: instants and async events become slices (finalize_derive.c); every lane's
 * slices and E events are bucketed by lane and put in the order Perfetto's importer
 * sees them (sorted by ts, then the sorter's phase class, then file order; a lane
 * already in that order is not sorted, and one in two ordered runs, as a lane whose
 * instants or E events follow its other events, is merged); each lane is replayed
 * (finalize_replay.c), which gives every slice its final position, track, depth,
 * parent and duration; the slices are permuted into that order in place.
 *
 * Cost model: a 1 GB trace holds millions of slices, so every step is a sequential pass
 * or a sort of one lane's tokens, and extra memory is a few 4-byte arrays per slice,
 * never a second slice array. */
#include <stdlib.h>
#include <string.h>

#include "model/finalize_impl.h"
#include "model/msort.h"

sts_status sts_fin_nomem(const sts_timeline *tl, sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory while nesting %zu slices", tl->info.path,
                         tl->slices.n);
}

int64_t sts_fin_sort_class(const sts_timeline *tl, uint32_t tok)
{
    const sts_tl_sorter *so = &tl->sorter;
    if (so->simulate) {
        /* Before the first event that broke the order and below its ts, file order. */
        if (!so->has_ooo || (fin_tok_seq(tl, tok) < so->first_ooo && fin_tok_ts(tl, tok) < so->min_ooo_ts)) return 0;
        if (!so->slow) return 0;
    }
    if (tok & FIN_END)
        return tl->lanes.v[tl->ends.v[tok & ~FIN_END].lane].kind == STS_LANE_ASYNC ? INT64_MAX : INT64_MIN;
    const sts_slice *s = &tl->slices.v[tok];
    if (s->flags & (STS_SLICE_FROM_BE | STS_SLICE_INSTANT | STS_SLICE_ASYNC)) return INT64_MAX;
    return INT64_MAX - s->dur; /* X: longer first, so a parent precedes what starts with it */
}

static inline int tok_less(const sts_timeline *tl, uint32_t a, uint32_t b)
{
    int64_t ta = fin_tok_ts(tl, a), tb = fin_tok_ts(tl, b);
    if (ta != tb) return ta < tb;
    int64_t ka = sts_fin_sort_class(tl, a), kb = sts_fin_sort_class(tl, b);
    if (ka != kb) return ka < kb;
    uint32_t sa = fin_tok_seq(tl, a), sb = fin_tok_seq(tl, b);
    if (sa != sb) return sa < sb;
    return a < b;
}

/* Sort records carry the primary key, so comparisons touch the events only on ties.
 * Packed: 12 bytes, not 16, as the sort of the largest lane (its records and as many
 * again of scratch) is the peak of a large trace's memory. */
typedef struct __attribute__((packed)) tok_key {
    int64_t ts;
    uint32_t tok;
} tok_key;

#define KEY_LESS(tl, a, b) ((a).ts != (b).ts ? (a).ts < (b).ts : tok_less(tl, (a).tok, (b).tok))

STS_DEFINE_SORT(sort_keys, tok_key, sts_timeline, KEY_LESS)

/* ---- checks ------------------------------------------------------------------------ */

/* Every end must fit in int64 and so must the span from the earliest start to the
 * latest end: the first event that breaks either is named. Readers reject such events
 * with a warning; this catches what any other producer hands over. */
typedef struct span_check {
    int64_t lo, hi;
    uint64_t negative; /* X slices with a negative dur, set to 0 */
} span_check;

static sts_status out_of_range(const sts_timeline *tl, uint32_t seq, int64_t ts, const span_check *c, sts_error *err)
{
    return sts_error_set(err, STS_ERR_RANGE, -1,
                         "%s: event %u: ts %lld ns is more than 2^63 - 1 ns from the trace's other events (%lld to "
                         "%lld ns); out of range",
                         tl->info.path, seq, (long long)ts, (long long)c->lo, (long long)c->hi);
}

static inline sts_status check_span(const sts_timeline *tl, span_check *c, int64_t ts, int64_t end, uint32_t seq,
                                    sts_error *err)
{
    int64_t lo = ts < c->lo ? ts : c->lo, hi = end > c->hi ? end : c->hi, span;
    if (__builtin_sub_overflow(hi, lo, &span)) return out_of_range(tl, seq, ts, c, err);
    c->lo = lo, c->hi = hi;
    return STS_OK;
}

static inline sts_status check_slice(const sts_timeline *tl, sts_slice *s, span_check *c, sts_error *err)
{
    if (s->dur < 0 && !(s->flags & STS_SLICE_FROM_BE)) { /* readers reject these */
        s->dur = 0;
        c->negative++;
    }
    int64_t end = s->ts;
    if (s->dur > 0 && __builtin_add_overflow(s->ts, s->dur, &end))
        return sts_error_set(err, STS_ERR_RANGE, -1,
                             "%s: event %u: ts %lld ns + dur %lld ns does not fit in 64-bit nanoseconds", tl->info.path,
                             s->parent, (long long)s->ts, (long long)s->dur);
    return check_span(tl, c, s->ts, end, s->parent, err); /* raw: parent holds the sequence number */
}

/* ---- tokens per lane ---------------------------------------------------------------- */

typedef struct lanes_work {
    size_t nl;
    size_t *off;    /* nl + 1: lane l's tokens are tok[off[l]..off[l+1]) */
    size_t *soff;   /* nl + 1: lane l's slices end up at [soff[l], soff[l+1]) */
    uint32_t *desc; /* nl: where a lane's tokens step back in order (0: in order; saturates) */
    size_t *split;  /* nl: with one step back, the offset in the lane where the second run starts */
    uint32_t *tok;
} lanes_work;

static void work_free(lanes_work *w)
{
    free(w->off);
    free(w->soff);
    free(w->desc);
    free(w->split);
    free(w->tok);
}

/* Notes token t, at tok[at], against the lane's previous token. */
static inline void note_order(const sts_timeline *tl, lanes_work *w, uint32_t *prev, uint32_t l, uint32_t t, size_t at)
{
    if (prev[l] != STS_NONE && tok_less(tl, t, prev[l]) && w->desc[l] < 2) {
        w->desc[l]++;
        w->split[l] = at - w->off[l];
    }
    prev[l] = t;
}

/* Buckets the slices and E events by lane, checking their times on the way (the only
 * pass over them before the replay). -1: no memory; 1: out of range (err set). */
static int bucket(sts_timeline *tl, lanes_work *w, sts_error *err)
{
    size_t nl = w->nl, ns = tl->slices.n, ne = tl->ends.n;
    w->off = calloc(nl + 1, sizeof *w->off);
    w->soff = calloc(nl + 1, sizeof *w->soff);
    w->desc = calloc(nl + 1, sizeof *w->desc);
    w->split = malloc((nl + 1) * sizeof *w->split);
    w->tok = malloc((ns + ne ? ns + ne : 1) * sizeof *w->tok);
    size_t *fill = malloc((nl ? nl : 1) * sizeof *fill);
    uint32_t *prev = malloc((nl ? nl : 1) * sizeof *prev);
    int rc = !w->off || !w->soff || !w->desc || !w->split || !w->tok || !fill || !prev ? -1 : 0;
    span_check c = { INT64_MAX, INT64_MIN, 0 };
    for (size_t i = 0; i < ns && rc == 0; i++)
        if (tl->slices.v[i].lane >= nl)
            rc = 1, sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: slice %zu names lane %u of %zu", tl->info.path, i,
                                  tl->slices.v[i].lane, nl);
        else
            w->soff[tl->slices.v[i].lane + 1]++;
    for (size_t j = 0; j < ne && rc == 0; j++)
        if (tl->ends.v[j].lane >= nl)
            rc = 1, sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: end event %zu names lane %u of %zu", tl->info.path, j,
                                  tl->ends.v[j].lane, nl);
    if (rc == 0) {
        memcpy(w->off, w->soff, (nl + 1) * sizeof *w->off);
        for (size_t j = 0; j < ne; j++)
            w->off[tl->ends.v[j].lane + 1]++;
        for (size_t l = 0; l < nl; l++) {
            w->off[l + 1] += w->off[l];
            w->soff[l + 1] += w->soff[l];
        }
        memcpy(fill, w->off, nl * sizeof *fill);
        memset(prev, 0xff, nl * sizeof *prev);
        /* Each token is compared with the previous one of its lane (still in cache),
         * which tells which lanes need sorting, and which are two runs: events in order
         * and then the instants or E events of the lane, in order too. */
        for (size_t i = 0; i < ns && rc == 0; i++) {
            sts_slice *s = &tl->slices.v[i];
            if (check_slice(tl, s, &c, err) != STS_OK) rc = 1;
            uint32_t l = s->lane;
            note_order(tl, w, prev, l, (uint32_t)i, fill[l]);
            w->tok[fill[l]++] = (uint32_t)i;
        }
        for (size_t j = 0; j < ne && rc == 0; j++) {
            const sts_end_event *e = &tl->ends.v[j];
            if (check_span(tl, &c, e->ts, e->ts, e->seq, err) != STS_OK) rc = 1;
            note_order(tl, w, prev, e->lane, (uint32_t)j | FIN_END, fill[e->lane]);
            w->tok[fill[e->lane]++] = (uint32_t)j | FIN_END;
        }
    }
    free(fill);
    free(prev);
    if (c.negative)
        sts_tl_warn(tl, "%s: %llu slice%s had a negative duration; set to 0", tl->info.path,
                    (unsigned long long)c.negative, c.negative == 1 ? "" : "s");
    return rc;
}

/* A lane's tokens in two ascending runs, [0, split) and [split, m), as when a lane's
 * instant slices or E events follow its other events: each token of the second run,
 * last first, finds its place in the first by binary search, and the tokens of the
 * first run after it move up as a block, so the first run's events are read only
 * log n times per token placed (a sort would read each of them). tok_less is a strict
 * total order, so this is the sort's result. -1 when memory is exhausted. */
static int merge_two_runs(const sts_timeline *tl, uint32_t *seg, size_t m, size_t split)
{
    size_t n2 = m - split;
    uint32_t *b = malloc((n2 ? n2 : 1) * sizeof *b);
    if (!b) return -1;
    memcpy(b, seg + split, n2 * sizeof *b);
    size_t hi = split, out = m; /* seg[0, hi) not yet moved; seg[out, m) in place */
    for (size_t j = n2; j-- > 0;) {
        size_t lo = 0, h = hi; /* the first token of seg[0, hi) after b[j] */
        while (lo < h) {
            size_t mid = lo + (h - lo) / 2;
            if (tok_less(tl, b[j], seg[mid]))
                h = mid;
            else
                lo = mid + 1;
        }
        out -= hi - lo;
        memmove(seg + out, seg + lo, (hi - lo) * sizeof *seg);
        seg[--out] = b[j];
        hi = lo;
    }
    free(b);
    return 0;
}

static int sort_lanes(const sts_timeline *tl, lanes_work *w)
{
    size_t maxseg = 0;
    int bad = 0;
    for (size_t l = 0; l < w->nl && !bad; l++) {
        size_t m = w->off[l + 1] - w->off[l];
        if (w->desc[l] == 1)
            bad = merge_two_runs(tl, w->tok + w->off[l], m, w->split[l]) != 0;
        else if (w->desc[l] > 1 && m > maxseg)
            maxseg = m;
    }
    if (bad) return -1;
    if (maxseg == 0) return 0;
    tok_key *keys = malloc(2 * maxseg * sizeof *keys);
    if (!keys) return -1;
    for (size_t l = 0; l < w->nl && !bad; l++) {
        if (w->desc[l] < 2) continue;
        uint32_t *seg = w->tok + w->off[l];
        size_t m = w->off[l + 1] - w->off[l];
        for (size_t k = 0; k < m; k++) {
            keys[k].ts = fin_tok_ts(tl, seg[k]);
            keys[k].tok = seg[k];
        }
        bad = sort_keys(keys, m, keys + maxseg, tl) != 0;
        for (size_t k = 0; k < m && !bad; k++)
            seg[k] = keys[k].tok;
    }
    free(keys);
    return bad ? -1 : 0;
}

/* ---- the final order ------------------------------------------------------------- */

/* Swaps slices into place tracking where each went (pos: original index -> position,
 * at: position -> original index). Unlike following cycles, the next few moves are
 * known in advance, so their cache misses are prefetched and overlap. */
int sts_fin_permute_swaps(sts_slice *s, const uint32_t *order, size_t n)
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

/* Every move waits for a cache miss: the last resort, when memory is short. */
void sts_fin_permute_cycles(sts_slice *s, uint32_t *order, size_t n)
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

/* Replays every lane; 1 when slices must move to reach their final order, 0 when they
 * are already there, -1 when memory is exhausted. */
static int replay_all(sts_timeline *tl, const lanes_work *w, const fin_track0 *t0, uint32_t *order, fin_lane_out *out)
{
    fin_replay *r = sts_fin_replay_new(tl, order);
    if (!r) return -1;
    int bad = 0;
    for (size_t l = 0; l < w->nl && !bad; l++) {
        uint32_t pos = (uint32_t)w->soff[l];
        bad = sts_fin_replay_lane(r, (uint32_t)l, &t0[l], w->tok + w->off[l], w->off[l + 1] - w->off[l], &pos,
                                  &out[l]) != 0;
        tl->lanes.v[l].first_slice = (uint32_t)w->soff[l];
        tl->lanes.v[l].slice_count = (uint32_t)(w->soff[l + 1] - w->soff[l]);
    }
    int moved = sts_fin_replay_moved(r);
    sts_fin_replay_free(r);
    return bad ? -1 : moved;
}

/* ---- children inside parents ------------------------------------------------------ */

/* Perfetto's table can hold a child that runs past its parent's end (a B closed while
 * complete slices above it were still running, or a complete slice pushed over an
 * open B that overran what held the B), a child that starts at or after its parent's
 * end (its stack walk keeps slices that have ended under an open B, and pops its top
 * where a lower entry ended), and so siblings that overlap. Each track is walked again
 * in order, keeping the chain of slices that hold the current point: a slice keeps
 * Perfetto's parent when that parent is on the chain and holds its start; otherwise it
 * goes under the innermost slice of the chain holding its start. It is then cut at its
 * parent's end if it runs past it. Where Perfetto's table has children inside parents
 * and siblings apart, every slice keeps its parent: the chain then leads to it.
 * `cur` has a slot per track. */
static void contain_lane(sts_timeline *tl, const sts_lane *ln, uint32_t *cur, fin_lane_out *out)
{
    sts_slice *s = tl->slices.v;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t x = ln->first_track; x < ln->first_track + ln->track_count; x++)
        cur[x] = STS_NONE;
    for (size_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++) {
        uint32_t p = s[i].parent, q = cur[s[i].track];
        int64_t ts = s[i].ts;
        /* Up the chain to Perfetto's parent, when it holds the start (two zero-length
         * slices at one instant stack), or to the first slice that holds it. */
        while (q != STS_NONE) {
            int64_t qend = s[q].ts + s[q].dur;
            if (q == p && (ts < qend || (ts == qend && s[q].dur == 0 && s[i].dur == 0))) break;
            if (ts < qend) break;
            q = s[q].parent;
        }
        int fixed = q != p;
        s[i].parent = q;
        if (q == STS_NONE) {
            s[i].depth = 0;
        } else {
            s[i].depth = s[q].depth < 65535 ? (uint16_t)(s[q].depth + 1) : 65535;
            int64_t pend = s[q].ts + s[q].dur;
            if (ts + s[i].dur > pend) {
                s[i].dur = pend - ts;
                fixed = 1;
            }
        }
        if (fixed) {
            s[i].flags |= STS_SLICE_TRUNCATED;
            tl->info.repaired++;
        }
        cur[s[i].track] = (uint32_t)i;
        int64_t end = ts + s[i].dur; /* bucket() proved it fits */
        if (ts < lo) lo = ts;
        if (end > hi) hi = end;
    }
    out->lo = lo;
    out->hi = hi;
}

/* Only lanes that had a B can break containment in Perfetto's table: with complete
 * slices alone, its stack walk checks every new slice against all open ones. The span
 * comes on the way. */
static int contain(sts_timeline *tl, fin_lane_out *out)
{
    uint32_t *cur = NULL;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t l = 0; l < tl->lanes.n; l++) {
        if (out[l].opened) {
            if (!cur && !(cur = malloc((tl->tracks.n ? tl->tracks.n : 1) * sizeof *cur))) return -1;
            contain_lane(tl, &tl->lanes.v[l], cur, &out[l]);
        }
        if (out[l].lo < lo) lo = out[l].lo;
        if (out[l].hi > hi) hi = out[l].hi;
    }
    free(cur);
    tl->info.ts_min = lo <= hi ? lo : 0;
    tl->info.ts_max = lo <= hi ? hi : 0;
    return 0;
}

/* ---- counts and warnings ----------------------------------------------------------- */

static void warn(sts_timeline *tl)
{
    const sts_timeline_info *in = &tl->info;
    if (in->unclosed_begin) {
        const sts_slice *s = tl->slices.v;
        while (!(s->flags & STS_SLICE_UNCLOSED))
            s++;
        const sts_lane *ln = &tl->lanes.v[s->lane];
        uint64_t n = in->unclosed_begin;
        sts_tl_warn(tl,
                    "%s: %llu B event%s never closed by an E; shown running to the last timestamp of %s lane "
                    "(first: '%s' at ts %lld ns on pid %s tid %s)",
                    in->path, (unsigned long long)n, n == 1 ? " was" : "s were", n == 1 ? "its" : "their",
                    sts_strtab_get(&tl->strings, s->name), (long long)s->ts,
                    sts_strtab_get(&tl->strings, tl->procs.v[ln->process].label),
                    sts_strtab_get(&tl->strings, ln->label));
    }
    if (in->unmatched_end) {
        uint64_t n = in->unmatched_end;
        sts_tl_warn(tl, "%s: %llu E event%s matched no open B on %s lane and %s ignored", in->path,
                    (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "its" : "their", n == 1 ? "was" : "were");
    }
    if (in->repaired) {
        uint64_t n = in->repaired;
        sts_tl_warn(tl,
                    "%s: %llu slice%s ran past the end of %s parent (the events are out of order) and %s cut at "
                    "it, or moved up to the ancestor holding %s start",
                    in->path, (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
                    n == 1 ? "was" : "were", n == 1 ? "its" : "their");
    }
    if (in->misplaced_end) {
        uint64_t n = in->misplaced_end;
        sts_tl_warn(tl,
                    "%s: %llu time%s, slices still open were cut at the end of an enclosing slice that ended "
                    "first (a misplaced E; Perfetto's misplaced_end_event)",
                    in->path, (unsigned long long)n, n == 1 ? "" : "s");
    }
}

/* ---- the whole ------------------------------------------------------------------ */

sts_status sts_tl_finalize(sts_timeline *tl, sts_error *err)
{
    sts_error local = STS_ERROR_INIT;
    if (!err) err = &local;
    if (tl->finalized) return STS_OK;
    if (tl->slices.n + tl->instants.n + tl->asyncs.n >= 0x80000000u || tl->ends.n + tl->asyncs.n >= 0x80000000u)
        return sts_error_set(err, STS_ERR_LIMIT, -1,
                             "%s: %zu slices, %zu instants, %zu async and %zu end events; at most 2^31 - 1 slices "
                             "and ends",
                             tl->info.path, tl->slices.n, tl->instants.n, tl->asyncs.n, tl->ends.n);
    tl->info.resolution_ns = tl->all_whole_us ? 1000 : 1;
    fin_track0 *t0 = NULL;
    sts_status st = sts_fin_derive(tl, &t0, err);
    if (st != STS_OK) return st;
    lanes_work w = { tl->lanes.n, NULL, NULL, NULL, NULL, NULL };
    uint32_t *order = NULL;
    fin_lane_out *out = malloc((tl->lanes.n ? tl->lanes.n : 1) * sizeof *out);
    int rc = out ? bucket(tl, &w, err) : -1;
    if (rc == 0) rc = sort_lanes(tl, &w);
    if (rc == 0 && !(order = malloc((tl->slices.n ? tl->slices.n : 1) * sizeof *order))) rc = -1;
    int moved = rc ? 0 : replay_all(tl, &w, t0, order, out);
    if (moved < 0) rc = -1;
    work_free(&w); /* spent: freed before the permutation's own arrays */
    free(t0);
    if (rc == 0 && moved && sts_fin_permute_swaps(tl->slices.v, order, tl->slices.n) != 0)
        sts_fin_permute_cycles(tl->slices.v, order, tl->slices.n);
    free(order);
    if (rc == 0) rc = contain(tl, out);
    free(out);
    if (rc) return rc > 0 ? err->code : sts_fin_nomem(tl, err);
    free(tl->ends.v);
    memset(&tl->ends, 0, sizeof tl->ends);
    tl->info.overlaps = tl->overlaps.n;
    warn(tl);
    tl->finalized = 1;
    return STS_OK;
}
