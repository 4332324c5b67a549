/* Finalize, part 3: one lane's events, in the order Perfetto's importer sees them,
 * through the rules of Perfetto's slice tracker (importers/common/slice_tracker.cc)
 * and of its overflow tracks for complete slices (track_compressor.cc,
 * LegacyOverlappingScoped); see docs/ARCHITECTURE.md, "The interval model".
 *
 * Each track keeps a stack of open slices. Before a slice starts, and before an E
 * closes one, the stack is walked from the top: a slice that has ended is popped (a
 * slice ending exactly at the new start is popped too, except that two zero-duration
 * slices at one instant stack); an open B (no E yet) is skipped, but a complete slice
 * under it that the new event has passed cuts everything above it at its own end (a
 * misplaced end); a complete slice that the new one starts inside and ends after is an
 * overlap: the new slice goes to the lane's first overflow track on which it nests or
 * follows. The walk copies Perfetto's faithfully, down to popping the top entry when
 * a lower one has ended.
 *
 * stepscope's deliberate difference here (docs/perfetto.md): an overrun of at most the
 * resolution is clamped, not spilled. What is still open at the end runs to the
 * lane's last timestamp, flagged unclosed (Perfetto's dur -1).
 *
 * Cost: the walk stops at the first entry that proves nothing below it can react (a
 * complete entry whose ends below never shrink, or an open B with only open B's below),
 * so properly nested slices cost O(1) each, as a plain stack would. Zero-length slices
 * at one instant stack without end and prove nothing about what lies below them; a
 * zero-length slice arriving at that instant leaves each of them as it is, so the walk
 * steps over their whole run at once (entry.zrun) and a million of them cost O(1) each
 * too. */
#include <stdlib.h>
#include <string.h>

#include "base/invariant.h"
#include "model/finalize_impl.h"

#define PENDING INT64_MIN /* the end of an open B */

typedef struct entry {
    int64_t ts, end;  /* end: PENDING while open */
    uint32_t pos;     /* the slice's final position */
    uint32_t raw;     /* its raw index */
    uint32_t zrun;    /* zero-length: how many zero-length entries at its instant end here, itself
                         included, counted downwards without a gap; 0 for any other entry */
    uint8_t regular;  /* complete, as is everything below, with ends never shrinking downwards */
    uint8_t open_run; /* open, as is everything below */
} entry;

typedef struct stack {
    entry *v;
    size_t n, cap;
    uint32_t count; /* slices placed on this track */
} stack;

struct fin_replay {
    sts_timeline *tl;
    uint32_t *order;
    stack main;
    stack *over; /* the lane's overflow tracks */
    size_t nover, over_cap;
    /* Over the overflow tracks, leaf k for track k: the least and the greatest end of
     * a top (INT64_MAX for an empty track; INT64_MAX, INT64_MIN past the last track),
     * so the first track a slice fits on is found in O(log tracks) (see spill()). */
    int64_t *tmin, *tmax;
    size_t tcap;     /* leaves, a power of two; node i has children 2i and 2i + 1 */
    uint32_t track0; /* global index of the lane's own track */
    int64_t res;     /* the rounding tolerance on this lane (0: none) */
    int64_t last;    /* the lane's last timestamp so far */
    uint32_t *pos;   /* the next final position */
    int moved;       /* a slice's final position differs from its raw index */
    int opened;      /* the lane had a B */
    int64_t hi;      /* the latest end of a complete slice placed */
    /* What the replay adds to the timeline, kept here so that replays of other lanes
     * can run beside it: tracks numbered from track_base, overlaps, counts. */
    uint32_t track_base;
    STS_VEC(sts_track) tracks;
    STS_VEC(sts_overlap) overlaps;
    uint64_t misplaced_end, clamped, unmatched_end, unclosed_begin, overflow_tracks;
    uint64_t unmatched_async_end, unclosed_async_begin;
    int async; /* the lane replayed is an async track: its events are b and e */
};

int sts_fin_replay_moved(const fin_replay *r)
{
    return r->moved;
}

fin_replay *sts_fin_replay_new(sts_timeline *tl, uint32_t *order, uint32_t track_base)
{
    fin_replay *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->tl = tl;
    r->order = order;
    r->track_base = track_base;
    return r;
}

uint32_t sts_fin_replay_tracks(const fin_replay *r)
{
    return (uint32_t)r->tracks.n;
}

/* Appends a replay's list (src) to the timeline's (dst): handed over whole when dst is
 * empty (a trace can have millions of overlaps), else copied after it. */
static int append(void **dst, size_t *dn, size_t *dcap, void **src, size_t *sn, size_t *scap, size_t elem)
{
    if (*sn == 0) return 0;
    if (*dn == 0) {
        free(*dst);
        *dst = *src, *dn = *sn, *dcap = *scap;
        *src = NULL, *sn = *scap = 0;
        return 0;
    }
    if (sts_grow(dst, dcap, *dn + *sn, elem) != 0) return -1;
    memcpy((char *)*dst + *dn * elem, *src, *sn * elem);
    *dn += *sn;
    return 0;
}

#define APPEND(d, s) append((void **)&(d).v, &(d).n, &(d).cap, (void **)&(s).v, &(s).n, &(s).cap, sizeof *(d).v)

int sts_fin_replay_commit(fin_replay *r)
{
    sts_timeline *tl = r->tl;
    if (APPEND(tl->tracks, r->tracks) != 0 || APPEND(tl->overlaps, r->overlaps) != 0) return -1;
    tl->info.misplaced_end += r->misplaced_end;
    tl->info.clamped += r->clamped;
    tl->info.unmatched_end += r->unmatched_end;
    tl->info.unclosed_begin += r->unclosed_begin;
    tl->unmatched_async_end += r->unmatched_async_end;
    tl->unclosed_async_begin += r->unclosed_async_begin;
    tl->info.overflow_tracks += r->overflow_tracks;
    return 0;
}

void sts_fin_replay_free(fin_replay *r)
{
    if (!r) return;
    free(r->main.v);
    for (size_t k = 0; k < r->over_cap; k++)
        free(r->over[k].v);
    free(r->over);
    free(r->tmin);
    free(r->tmax);
    free(r->tracks.v);
    free(r->overlaps.v);
    free(r);
}

static void set_flags(stack *st, size_t i)
{
    entry *e = &st->v[i];
    const entry *below = i ? &st->v[i - 1] : NULL;
    e->regular = e->end != PENDING && (!below || (below->regular && e->end <= below->end));
    e->open_run = e->end == PENDING && (!below || below->open_run);
    e->zrun = e->end != e->ts ? 0 : below && below->zrun && below->ts == e->ts ? below->zrun + 1 : 1;
}

static sts_slice *slice_of(const fin_replay *r, const entry *e)
{
    return &r->tl->slices.v[e->raw];
}

/* Cuts everything above entry i at `end` and pops it, then pops i: Perfetto's
 * misplaced end, when an event comes after the end of a slice holding open B's. */
static void cut_above(fin_replay *r, stack *st, size_t i, int64_t end)
{
    for (size_t j = st->n; j-- > i + 1;) {
        sts_slice *s = slice_of(r, &st->v[j]);
        /* Perfetto's walk can leave a slice above one that ended before it started (see
         * walk()); it would get a negative duration here. It gets none, and finalize
         * moves it out of what does not hold it. */
        s->dur = end > s->ts ? end - s->ts : 0;
        s->flags |= STS_SLICE_TRUNCATED;
    }
    st->n = i; /* the slice itself too */
    r->misplaced_end++;
}

/* Perfetto's MaybeCloseStack for a new event at ts: a B or E (`open`), or a complete
 * slice ending at *end. An overrun of at most the tolerance clamps *end (*clamped set).
 * Returns 0, or 1 for an overlap: *conflict is the overrun entry's final position and
 * *over the overrun, *end restored. */
static int walk(fin_replay *r, stack *st, int64_t ts, int open, int64_t *end, int *clamped, uint32_t *conflict,
                int64_t *over)
{
    int flagged = 0;
    int64_t orig = open ? 0 : *end;
    int zero = !open && *end == ts;
    for (size_t i = st->n; i-- > 0;) {
        entry *e = &st->v[i];
        if (e->end == PENDING) {
            if (e->open_run) return 0;
            flagged = 1;
            continue;
        }
        if (flagged) {
            if (ts <= e->end) {
                if (e->regular) return 0;
                /* A run of zero-length entries at one instant shares its end, so none
                 * of it is regular either: each would be passed. */
                if (e->zrun > 1) i -= e->zrun - 1;
                continue;
            }
            cut_above(r, st, i, e->end);
            flagged = 0;
            continue;
        }
        if (e->end < ts || (e->end == ts && !(zero && e->end == e->ts))) {
            st->n--; /* the top, whichever entry ended: as Perfetto does */
            continue;
        }
        if (zero && e->zrun > 1 && e->ts == ts) {
            /* Zero-length at this instant, as the new one is, and so is each entry of
             * its run below: none has ended, none is overrun, none ends after ts; the
             * walk would pass each without a change. */
            i -= e->zrun - 1;
            continue;
        }
        if (open) {
            if (e->regular && e->end > ts) return 0;
            continue;
        }
        if (*end > e->end) {
            uint64_t o = (uint64_t)*end - (uint64_t)e->end;
            if (o <= (uint64_t)r->res) {
                *end = e->end;
                *clamped = 1;
            } else {
                *conflict = e->pos;
                *over = (int64_t)((uint64_t)orig - (uint64_t)e->end);
                *end = orig;
                *clamped = 0;
                return 1;
            }
        }
        if (e->regular && e->end > ts) return 0;
    }
    return 0;
}

static int grow(stack *st)
{
    if (st->n < st->cap) return 0;
    size_t cap = st->cap ? st->cap * 2 : 4; /* small: a staircase makes a track per slice */
    entry *v = realloc(st->v, cap * sizeof *v);
    if (!v) return -1;
    st->v = v;
    st->cap = cap;
    return 0;
}

/* Places slice `raw` on track `local` (0: the lane's own) at depth = stack size. */
static inline __attribute__((always_inline)) void place(fin_replay *r, stack *st, uint32_t local, uint32_t raw,
                                                        sts_slice *s, int64_t ts, int64_t end)
{
    uint32_t pos = (*r->pos)++;
    /* Tokens come by start: a slice never starts before the one it is placed under. */
    STS_ASSERT(pos < r->tl->slices.n && (!st->n || st->v[st->n - 1].ts <= ts));
    r->order[pos] = raw;
    r->moved |= pos != raw;
    if (end > r->hi) r->hi = end; /* PENDING is below everything */
    size_t d = st->n;
    s->track = r->track0 + local;
    s->depth = d > 65535 ? 65535 : (uint16_t)d;
    s->parent = d ? st->v[d - 1].pos : STS_NONE;
    entry *e = &st->v[d];
    e->ts = ts;
    e->end = end;
    e->pos = pos;
    e->raw = raw;
    st->n = d + 1;
    st->count++;
}

static int push(fin_replay *r, stack *st, uint32_t local, uint32_t raw, int64_t ts, int64_t end)
{
    if (grow(st) != 0) return -1;
    place(r, st, local, raw, &r->tl->slices.v[raw], ts, end);
    set_flags(st, st->n - 1);
    if (end != PENDING && end > r->last) r->last = end;
    return 0;
}

/* The common case, a complete slice on the lane's own track while only complete,
 * properly nested slices are open: pop what has ended, then it nests in the top or is a
 * root. 0: placed; 1: take the general walk (what was popped stays popped, as the walk
 * would have popped it first); -1: no memory. */
static inline int fast_complete(fin_replay *r, uint32_t raw, sts_slice *s, int64_t end)
{
    stack *st = &r->main;
    int64_t ts = s->ts;
    while (st->n) {
        const entry *e = &st->v[st->n - 1];
        if (!e->regular) return 1;
        if (e->end < ts || (e->end == ts && !(end == ts && e->end == e->ts))) {
            st->n--;
            continue;
        }
        if (e->end <= ts || end > e->end) return 1; /* zero-length stacking, or an overrun */
        break;
    }
    if (grow(st) != 0) return -1;
    place(r, st, 0, raw, s, ts, end);
    entry *e = &st->v[st->n - 1];
    e->regular = 1; /* nested in a regular top, or alone */
    e->open_run = 0;
    e->zrun = end == ts; /* the top, if any, ends after ts: no zero-length run below */
    if (end > r->last) r->last = end;
    return 0;
}

/* ---- the first overflow track that fits ------------------------------------------ */

static void tree_set(fin_replay *r, size_t k, int64_t lo, int64_t hi)
{
    size_t i = r->tcap + k;
    r->tmin[i] = lo;
    r->tmax[i] = hi;
    for (i /= 2; i; i /= 2) {
        int64_t a = r->tmin[2 * i], b = r->tmin[2 * i + 1], c = r->tmax[2 * i], d = r->tmax[2 * i + 1];
        r->tmin[i] = a < b ? a : b;
        r->tmax[i] = c > d ? c : d;
    }
}

/* Leaf k from its track: the end of its top, or INT64_MAX for an empty track. */
static void tree_track(fin_replay *r, size_t k)
{
    const stack *st = &r->over[k];
    int64_t v = st->n ? st->v[st->n - 1].end : INT64_MAX;
    tree_set(r, k, v, v);
}

/* Room for leaf k; a larger tree is built from the tracks. */
static int tree_room(fin_replay *r, size_t k)
{
    if (k < r->tcap) return 0;
    size_t cap = r->tcap ? r->tcap : 8;
    while (cap <= k)
        cap *= 2;
    int64_t *lo = malloc(2 * cap * sizeof *lo), *hi = malloc(2 * cap * sizeof *hi);
    if (!lo || !hi) {
        free(lo);
        free(hi);
        return -1;
    }
    free(r->tmin);
    free(r->tmax);
    r->tmin = lo, r->tmax = hi, r->tcap = cap;
    for (size_t i = 0; i < 2 * cap; i++)
        lo[i] = INT64_MAX, hi[i] = INT64_MIN;
    for (size_t j = 0; j < r->nover; j++)
        tree_track(r, j);
    return 0;
}

/* A slice starting at ts: every overflow track's tops that have ended by then are
 * popped, each track found in O(log tracks) and each entry popped once. Popping them
 * now or when a later slice would reach the track gives the same stacks: slices come
 * by ts, so what has ended by ts has ended for every later slice too. */
static void tree_pop_ended(fin_replay *r, int64_t ts)
{
    while (r->tcap && r->tmin[1] <= ts) {
        size_t i = 1;
        while (i < r->tcap)
            i = r->tmin[2 * i] <= ts ? 2 * i : 2 * i + 1;
        size_t k = i - r->tcap;
        stack *st = &r->over[k];
        while (st->n && st->v[st->n - 1].end <= ts)
            st->n--;
        tree_track(r, k);
    }
}

/* The first overflow track whose top ends at or after `end` (or that is empty), once
 * the ended tops are popped; -1 when none. */
static long tree_first_fit(const fin_replay *r, int64_t end)
{
    if (!r->tcap || r->tmax[1] < end) return -1;
    size_t i = 1;
    while (i < r->tcap)
        i = r->tmax[2 * i] >= end ? 2 * i : 2 * i + 1;
    return (long)(i - r->tcap);
}

/* Past a lane: its tracks' leaves back to "no track", in O(tracks log tracks). */
static void tree_clear(fin_replay *r)
{
    for (size_t k = 0; k < r->nover && k < r->tcap; k++)
        tree_set(r, k, INT64_MAX, INT64_MIN);
}

/* A complete slice that overlaps: onto the first overflow track where it nests inside
 * the innermost open slice or follows them all, else onto a new one. A staircase of
 * slices each overrunning the one before puts each on a new track: the tracks are
 * searched in a tree (above), not one by one, which made that quadratic. */
static int spill(fin_replay *r, uint32_t raw, int64_t ts, int64_t end)
{
    tree_pop_ended(r, ts);
    long fit = tree_first_fit(r, end);
    if (fit >= 0) {
        if (push(r, &r->over[fit], (uint32_t)fit + 1, raw, ts, end) != 0) return -1;
        tree_track(r, (size_t)fit);
        return 0;
    }
    if (tree_room(r, r->nover) != 0) return -1;
    if (r->nover == r->over_cap) {
        size_t cap = r->over_cap ? r->over_cap * 2 : 4;
        stack *v = realloc(r->over, cap * sizeof *v);
        if (!v) return -1;
        memset(v + r->over_cap, 0, (cap - r->over_cap) * sizeof *v);
        r->over = v;
        r->over_cap = cap;
    }
    stack *st = &r->over[r->nover++];
    st->n = 0;
    st->count = 0;
    if (push(r, st, (uint32_t)r->nover, raw, ts, end) != 0) return -1;
    tree_track(r, r->nover - 1);
    return 0;
}

/* A complete slice (X, an instant, n). Only complete slices with a duration on a
 * thread's own track can overlap; a zero-length one never does. */
static int complete(fin_replay *r, uint32_t raw, int can_spill)
{
    sts_slice *s = &r->tl->slices.v[raw];
    int64_t end;
    if (__builtin_add_overflow(s->ts, s->dur, &end)) end = INT64_MAX; /* readers reject these */
    int clamped = 0;
    uint32_t conflict = STS_NONE;
    int64_t over = 0;
    if (walk(r, &r->main, s->ts, 0, &end, &clamped, &conflict, &over) == 0 || !can_spill) {
        if (clamped) {
            s->dur = end - s->ts;
            s->flags |= STS_SLICE_CLAMPED;
            r->clamped++;
        }
        return push(r, &r->main, 0, raw, s->ts, end);
    }
    s->flags |= STS_SLICE_OVERLAP;
    sts_overlap *ov = STS_VEC_PUSH(r->overlaps);
    if (!ov) return -1;
    uint32_t pos = *r->pos; /* where spill() will place it */
    ov->slice = pos;
    ov->parent = conflict;
    ov->overrun_ns = over;
    return spill(r, raw, s->ts, end);
}

static int begin(fin_replay *r, uint32_t raw)
{
    const sts_slice *s = &r->tl->slices.v[raw];
    r->opened = 1;
    walk(r, &r->main, s->ts, 1, NULL, NULL, NULL, NULL);
    return push(r, &r->main, 0, raw, s->ts, PENDING);
}

/* Perfetto's MatchingIncompleteSliceIndex: the innermost open B whose category equals
 * the E's (when the E has one) and whose name equals the E's (when both have one). */
static long match(const fin_replay *r, const sts_end_event *e)
{
    const stack *st = &r->main;
    for (size_t i = st->n; i-- > 0;) {
        if (st->v[i].end != PENDING) continue;
        const sts_slice *s = slice_of(r, &st->v[i]);
        if (e->cat && s->cat != e->cat) continue;
        if (e->name && s->name && s->name != e->name) continue;
        return (long)i;
    }
    return -1;
}

static void end_event(fin_replay *r, const sts_end_event *e)
{
    stack *st = &r->main;
    walk(r, st, e->ts, 1, NULL, NULL, NULL, NULL);
    if (e->ts > r->last) r->last = e->ts;
    long m = match(r, e);
    if (m < 0) {
        r->unmatched_end++;
        r->unmatched_async_end += (uint64_t)r->async;
        return;
    }
    entry *b = &st->v[m];
    sts_slice *s = slice_of(r, b);
    s->dur = e->ts - s->ts;
    b->end = e->ts;
    if ((size_t)m + 1 == st->n) {
        st->n--;
        return;
    }
    /* Closed under other slices, it stays on the stack as Perfetto leaves it. */
    for (size_t j = (size_t)m; j < st->n; j++)
        set_flags(st, j);
}

/* The end of the lane's data: what is still open runs to the lane's last timestamp
 * (Perfetto leaves its dur -1); finalize then keeps it inside its parent. */
static void finish(fin_replay *r)
{
    stack *st = &r->main;
    for (size_t i = 0; i < st->n; i++) {
        sts_slice *s = slice_of(r, &st->v[i]);
        if (st->v[i].end != PENDING) continue;
        s->dur = r->last - s->ts;
        s->flags |= STS_SLICE_UNCLOSED;
        r->unclosed_begin++;
        r->unclosed_async_begin += (uint64_t)r->async;
    }
    st->n = 0;
}

static int add_track(fin_replay *r, uint32_t lane, uint32_t kind, uint32_t index, uint32_t name, uint32_t count)
{
    sts_track *t = STS_VEC_PUSH(r->tracks);
    if (!t) return -1;
    t->lane = lane;
    t->kind = kind;
    t->index = index;
    t->name = name;
    t->slice_count = count;
    return 0;
}

int sts_fin_replay_lane(fin_replay *r, uint32_t lane, const fin_track0 *t0, const uint32_t *tok, size_t n,
                        uint32_t *pos, fin_lane_out *out)
{
    uint32_t first = *pos;
    r->opened = 0;
    r->hi = INT64_MIN;
    sts_timeline *tl = r->tl;
    r->async = tl->lanes.v[lane].kind == STS_LANE_ASYNC;
    r->main.n = 0;
    r->main.count = 0;
    tree_clear(r);
    r->nover = 0;
    r->track0 = r->track_base + (uint32_t)r->tracks.n;
    r->pos = pos;
    r->last = INT64_MIN;
    r->res = t0->kind == STS_TRACK_THREAD && !tl->exact_times ? tl->info.resolution_ns : 0;
    int can_spill = t0->kind == STS_TRACK_THREAD;
    sts_slice *all = tl->slices.v;
    for (size_t k = 0; k < n; k++) {
        uint32_t t = tok[k];
        /* Slices of interleaved lanes lie apart in memory: fetch ahead. */
        if (k + 16 < n) __builtin_prefetch(&all[tok[k + 16] & ~FIN_END], 1); /* an E's index: harmless */
        if (t & FIN_END) {
            end_event(r, &tl->ends.v[t & ~FIN_END]);
            continue;
        }
        sts_slice *s = &all[t];
        int rc;
        if (s->dur >= 0 && (rc = fast_complete(r, t, s, s->ts + s->dur)) <= 0) { /* ts + dur: checked by finalize */
            if (rc < 0) return -1;
            continue; /* it set r->last */
        }
        if (s->ts > r->last) r->last = s->ts;
        if ((s->dur < 0 ? begin(r, t) : complete(r, t, can_spill)) != 0) return -1;
    }
    finish(r);
    if (add_track(r, lane, t0->kind, t0->index, t0->name, r->main.count) != 0) return -1;
    for (size_t k = 0; k < r->nover; k++)
        if (add_track(r, lane, STS_TRACK_OVERFLOW, (uint32_t)k + 1, 0, r->over[k].count) != 0) return -1;
    r->overflow_tracks += r->nover;
    /* What the tracks count is what was placed: the table's slice counts add up. */
    uint64_t counted = r->main.count;
    for (size_t k = 0; k < r->nover; k++)
        counted += r->over[k].count;
    STS_ASSERT(counted == *pos - first);
    out->opened = r->opened;
    out->hi = r->hi;
    out->lo = *pos > first ? tl->slices.v[r->order[first]].ts : INT64_MAX; /* tokens come by ts */
    tl->lanes.v[lane].first_track = r->track0;
    tl->lanes.v[lane].track_count = (uint32_t)(1 + r->nover);
    return 0;
}
