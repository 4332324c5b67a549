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
 * never a second slice array. The bucketing (by parts of the slice array) and the
 * replay (by parts of the lanes) run on the threads tl->jobs allows, with the one
 * thread's result (docs/ARCHITECTURE.md, "On threads"); the permutation runs on one,
 * as each of its moves depends on the one before. */
#include <stdlib.h>
#include <string.h>

#include "base/invariant.h"
#include "base/mem.h"
#include "base/search.h"
#include "base/threads.h"
#include "model/finalize_impl.h"
#include "model/msort.h"

/* Threads: at most this many; the lanes' replay goes in this many parts per thread. */
#define FIN_MAX_THREADS      64
#define FIN_PARTS_PER_THREAD 4
#define FIN_MAX_PARTS        (FIN_MAX_THREADS * FIN_PARTS_PER_THREAD)

/* The threads a step over `work` items may use: those tl->jobs allows, when there are
 * enough items to pay for them; else 1. */
static size_t fin_threads(const sts_timeline *tl, size_t work)
{
    if (tl->jobs < 2 || work < tl->fin_min_parallel) return 1;
    return (size_t)tl->jobs < FIN_MAX_THREADS ? (size_t)tl->jobs : FIN_MAX_THREADS;
}

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

/* Whether seg[0, m) is in the importer's order: what the replay takes each lane's
 * tokens in (STS_ASSERT only). */
static inline int fin_ascending(const sts_timeline *tl, const uint32_t *seg, size_t m)
{
    for (size_t k = 1; k < m; k++)
        if (!tok_less(tl, seg[k - 1], seg[k])) return 0;
    return 1;
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

/* Sorts keys[0, n) by insertion when that takes at most `budget` moves in all: a lane
 * written as a tracer ends its slices (children before their parent) is in order but
 * for each slice's descendants, a few places each, and comparing neighbours beats any
 * pass over the whole. 0 when sorted; 1 when the budget ran out (keys then hold the
 * same records in another order). */
static int insertion_within(tok_key *keys, size_t n, size_t budget, const sts_timeline *tl)
{
    for (size_t i = 1; i < n; i++) {
        if (!KEY_LESS(tl, keys[i], keys[i - 1])) continue;
        tok_key x = keys[i];
        size_t j = i;
        do {
            keys[j] = keys[j - 1];
            j--;
        } while (j > 0 && KEY_LESS(tl, x, keys[j - 1]));
        keys[j] = x;
        if (i - j > budget) return 1;
        budget -= i - j;
    }
    return 0;
}

/* A lane whose order steps back often (children written before their parents, threads
 * taking turns) costs the merge sort a pass per doubling of its runs, each comparison
 * a branch that is hard to predict: from this many steps back, a radix sort by ts
 * (a pass over the records per digit, no comparisons) is cheaper. */
/* (Overridable at build time, so that a build can take the digits' path for every lane
 * and be compared with this one on any trace.) */
#ifndef RADIX_MIN_RECORDS
#define RADIX_MIN_RECORDS 4096
#endif
#ifndef RADIX_MIN_STEPS
#define RADIX_MIN_STEPS 64
#endif
/* Moves per record an insertion sort may make before the lane is sorted otherwise: a
 * lane of trees six deep written children first takes about four. */
#ifndef INSERTION_MOVES
#define INSERTION_MOVES 8
#endif
#ifndef RADIX_BITS
#define RADIX_BITS 11
#endif
#define RADIX_MAX_PASSES ((48 + RADIX_BITS - 1) / RADIX_BITS) /* ts spans of 2^48 ns (78 hours) at least */

/* Sorts keys[0, n) as sort_keys does, with tmp[0, n) as scratch: a stable least
 * significant digit radix sort on ts - lo, then each run of equal ts sorted by
 * KEY_LESS (stability kept the tokens' order there, but the order is KEY_LESS's).
 * 0, -1 when memory is exhausted, 1 when the span needs too many digits (nothing
 * changed; the caller merge-sorts). */
static int radix_keys(tok_key *keys, size_t n, tok_key *tmp, int64_t lo, int64_t hi, const sts_timeline *tl)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    unsigned passes = 1;
    while (passes < 8 && (span >> (passes * RADIX_BITS)) != 0)
        passes++;
    if (passes > RADIX_MAX_PASSES) return 1;
    enum { B = 1u << RADIX_BITS };
    uint32_t *count = calloc((size_t)passes * B, sizeof *count);
    if (!count) return -1;
    for (size_t k = 0; k < n; k++) {
        uint64_t v = (uint64_t)keys[k].ts - (uint64_t)lo;
        for (unsigned d = 0; d < passes; d++)
            count[d * B + ((v >> (d * RADIX_BITS)) & (B - 1))]++;
    }
    tok_key *src = keys, *dst = tmp;
    for (unsigned d = 0; d < passes; d++) {
        uint32_t *c = count + d * B, sum = 0;
        unsigned shift = d * RADIX_BITS;
        if (c[((uint64_t)src[0].ts - (uint64_t)lo) >> shift & (B - 1)] == n) continue; /* one digit: in order */
        for (unsigned b = 0; b < B; b++) {
            uint32_t x = c[b];
            c[b] = sum;
            sum += x;
        }
        for (size_t k = 0; k < n; k++) {
            uint64_t v = (uint64_t)src[k].ts - (uint64_t)lo;
            dst[c[(v >> shift) & (B - 1)]++] = src[k];
        }
        tok_key *t = src;
        src = dst;
        dst = t;
    }
    free(count);
    if (src != keys) memcpy(keys, src, n * sizeof *keys);
    for (size_t i = 0; i < n;) { /* ties of ts: KEY_LESS decides */
        size_t j = i + 1;
        while (j < n && keys[j].ts == keys[i].ts)
            j++;
        if (j - i > 1 && sort_keys(keys + i, j - i, tmp, tl) != 0) return -1;
        i = j;
    }
    return 0;
}

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

/* Where lanes' tokens step back in order: lanes_work's, or a part's of the slices. */
typedef struct order_notes {
    uint32_t *prev; /* per lane: its last token so far, STS_NONE before the first */
    uint32_t *desc; /* per lane: steps back (saturates at 2) */
    size_t *split;  /* per lane: with one step back, its offset in the lane */
} order_notes;

/* Notes token t, at tok[at] (offset `rel` in its lane), against the lane's previous. */
static inline void note_order(const sts_timeline *tl, const order_notes *o, uint32_t l, uint32_t t, size_t rel)
{
    if (o->prev[l] != STS_NONE && tok_less(tl, t, o->prev[l]) && o->desc[l] < 2) {
        o->desc[l]++;
        o->split[l] = rel;
    }
    o->prev[l] = t;
}

/* The token counts and offsets, from the slices' counts per lane in soff[l + 1] and the
 * E events'. */
static void lay_out(const sts_timeline *tl, lanes_work *w)
{
    size_t nl = w->nl;
    memcpy(w->off, w->soff, (nl + 1) * sizeof *w->off);
    for (size_t j = 0; j < tl->ends.n; j++)
        w->off[tl->ends.v[j].lane + 1]++;
    for (size_t l = 0; l < nl; l++) {
        w->off[l + 1] += w->off[l];
        w->soff[l + 1] += w->soff[l];
    }
}

/* The slices into their lanes' tokens, in one pass on this thread: 0, or 1 with err set
 * for the first slice (by index) whose time does not fit. */
static int bucket_slices(sts_timeline *tl, lanes_work *w, const order_notes *o, size_t *fill, span_check *c,
                         sts_error *err)
{
    /* Each token is compared with the previous one of its lane (still in cache), which
     * tells which lanes need sorting, and which are two runs: events in order and then
     * the instants or E events of the lane, in order too. */
    for (size_t i = 0; i < tl->slices.n; i++) {
        sts_slice *s = &tl->slices.v[i];
        if (check_slice(tl, s, c, err) != STS_OK) return 1;
        uint32_t l = s->lane;
        note_order(tl, o, l, (uint32_t)i, fill[l] - w->off[l]);
        w->tok[fill[l]++] = (uint32_t)i;
    }
    return 0;
}

/* ---- the slices bucketed by parts side by side ---------------------------------------- */

/* Slices [i0, i1) on a thread of their own: first counted per lane, then placed after
 * the tokens of the parts before them, with their own order notes and time checks. */
typedef struct bucket_part {
    sts_timeline *tl;
    const lanes_work *w;
    size_t i0, i1;
    size_t *fill;      /* per lane: the count, then where the part's next token goes */
    order_notes notes; /* the part's own: its lanes' steps back within it */
    span_check c;
    int phase; /* 0: count; 1: place */
    int bad;   /* a lane or a time out of range: the one-thread pass names it */
} bucket_part;

static void bucket_part_run(void *arg, size_t thread)
{
    (void)thread;
    bucket_part *p = arg;
    sts_timeline *tl = p->tl;
    const lanes_work *w = p->w;
    if (p->phase == 0) {
        for (size_t i = p->i0; i < p->i1; i++) {
            uint32_t l = tl->slices.v[i].lane;
            if (l >= w->nl) {
                p->bad = 1;
                break;
            }
            p->fill[l]++;
        }
        return;
    }
    for (size_t i = p->i0; i < p->i1; i++) {
        sts_slice *s = &tl->slices.v[i];
        if (check_slice(tl, s, &p->c, NULL) != STS_OK) {
            p->bad = 1;
            break;
        }
        uint32_t l = s->lane;
        note_order(tl, &p->notes, l, (uint32_t)i, p->fill[l] - w->off[l]);
        w->tok[p->fill[l]++] = (uint32_t)i;
    }
}

/* Parts of the slices for the bucketing: one per thread finalize may use, when there
 * are enough slices to pay for the threads and the parts' per-lane arrays (24 bytes a
 * lane each) cost no more than the tokens (4 bytes a slice). 1: one thread. */
static size_t bucket_parts(const sts_timeline *tl, size_t nl)
{
    size_t ns = tl->slices.n, parts = ns < 2 ? 1 : fin_threads(tl, ns);
    while (parts > 1 && 6 * nl * parts > ns)
        parts--;
    return parts;
}

/* Each lane's order notes over the parts in turn: a part's first token against the
 * last one before it (a step back there counts first), then the part's own steps. */
static void merge_notes(const sts_timeline *tl, lanes_work *w, const bucket_part *part, size_t n, uint32_t *prev)
{
    for (size_t l = 0; l < w->nl; l++) {
        uint32_t last = STS_NONE, desc = 0;
        size_t from = w->off[l], split = 0;
        for (size_t k = 0; k < n; k++) {
            size_t to = part[k].fill[l]; /* the part's tokens of the lane: [from, to) */
            if (to == from) continue;
            if (last != STS_NONE && desc < 2 && tok_less(tl, w->tok[from], last)) {
                desc++;
                split = from - w->off[l];
            }
            /* The part's step back counts as it would in one pass; its place matters
             * only when it is the lane's one step back. */
            uint32_t d = part[k].notes.desc[l];
            if (d && desc < 2) {
                split = part[k].notes.split[l];
                desc = desc + d < 2 ? desc + d : 2;
            }
            last = w->tok[to - 1];
            from = to;
        }
        w->desc[l] = desc;
        w->split[l] = split;
        prev[l] = last;
    }
}

/* The slices bucketed by parts side by side, when bucket_parts() allows: 0 done (with
 * prev, *c and the counts and offsets of w set), 1 when one thread must do it (nothing
 * of w changed), -1 when memory is exhausted. */
static int bucket_by_parts(sts_timeline *tl, lanes_work *w, uint32_t *prev, span_check *c)
{
    size_t nl = w->nl, ns = tl->slices.n, n = bucket_parts(tl, nl);
    if (n < 2) return 1;
    bucket_part part[FIN_MAX_THREADS];
    size_t *mem = calloc(n * (2 * nl + 1), sizeof *mem);       /* per part: fill, split */
    uint32_t *mem32 = calloc(n * (2 * nl + 1), sizeof *mem32); /* per part: prev, desc */
    if (!mem || !mem32) {
        free(mem);
        free(mem32);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        part[k] = (bucket_part){ tl,
                                 w,
                                 ns / n * k + ns % n * k / n,
                                 ns / n * (k + 1) + ns % n * (k + 1) / n,
                                 mem + k * 2 * nl,
                                 { mem32 + k * 2 * nl, mem32 + k * 2 * nl + nl, mem + k * 2 * nl + nl },
                                 { INT64_MAX, INT64_MIN, 0 },
                                 0,
                                 0 };
        memset(part[k].notes.prev, 0xff, nl * sizeof *part[k].notes.prev);
    }
    sts_run_parts(bucket_part_run, part, sizeof *part, n, n);
    int bad = 0;
    for (size_t k = 0; k < n; k++)
        bad |= part[k].bad;
    if (!bad) {
        for (size_t l = 0; l < nl; l++) {
            size_t count = 0;
            for (size_t k = 0; k < n; k++)
                count += part[k].fill[l];
            w->soff[l + 1] = count;
        }
        lay_out(tl, w);
        for (size_t l = 0; l < nl; l++) /* each part's tokens after those of the parts before it */
            for (size_t k = 0, at = w->off[l]; k < n; k++) {
                size_t count = part[k].fill[l];
                part[k].fill[l] = at;
                at += count;
            }
        for (size_t k = 0; k < n; k++)
            part[k].phase = 1;
        sts_run_parts(bucket_part_run, part, sizeof *part, n, n);
        for (size_t k = 0; k < n; k++) {
            bad |= part[k].bad;
            c->negative += part[k].c.negative;
            if (part[k].c.lo < c->lo) c->lo = part[k].c.lo;
            if (part[k].c.hi > c->hi) c->hi = part[k].c.hi;
        }
        int64_t span;
        if (c->lo <= c->hi && __builtin_sub_overflow(c->hi, c->lo, &span)) bad = 1;
    }
    if (!bad) merge_notes(tl, w, part, n, prev);
    free(mem);
    free(mem32);
    if (!bad) return 0;
    /* The one-thread pass finds the first slice at fault, from a clean start. */
    memset(w->soff, 0, (nl + 1) * sizeof *w->soff);
    *c = (span_check){ INT64_MAX, INT64_MIN, 0 };
    return 1;
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
    order_notes o = { prev, w->desc, w->split };
    int ends_ok = 1; /* (else the one-thread pass names what is wrong, in its order) */
    for (size_t j = 0; j < ne && ends_ok; j++)
        ends_ok = tl->ends.v[j].lane < nl;
    int one = rc == 0 && ends_ok ? bucket_by_parts(tl, w, prev, &c) : 1;
    if (one < 0) rc = -1;
    if (one > 0) {
        for (size_t i = 0; i < ns && rc == 0; i++)
            if (tl->slices.v[i].lane >= nl)
                rc = 1, sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: slice %zu names lane %u of %zu", tl->info.path, i,
                                      tl->slices.v[i].lane, nl);
            else
                w->soff[tl->slices.v[i].lane + 1]++;
        for (size_t j = 0; j < ne && rc == 0; j++)
            if (tl->ends.v[j].lane >= nl)
                rc = 1, sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: end event %zu names lane %u of %zu",
                                      tl->info.path, j, tl->ends.v[j].lane, nl);
        if (rc == 0) {
            lay_out(tl, w);
            memcpy(fill, w->off, nl * sizeof *fill);
            memset(prev, 0xff, nl * sizeof *prev);
            rc = bucket_slices(tl, w, &o, fill, &c, err);
        }
    } else if (rc == 0) {
        for (size_t l = 0; l < nl; l++) /* the E events follow the lane's slices */
            fill[l] = w->off[l] + (w->soff[l + 1] - w->soff[l]);
    }
    for (size_t j = 0; j < ne && rc == 0; j++) {
        const sts_end_event *e = &tl->ends.v[j];
        if (check_span(tl, &c, e->ts, e->ts, e->seq, err) != STS_OK) rc = 1;
        note_order(tl, &o, e->lane, (uint32_t)j | FIN_END, fill[e->lane] - w->off[e->lane]);
        w->tok[fill[e->lane]++] = (uint32_t)j | FIN_END;
    }
    /* Every lane's tokens fill exactly the room its counts made (on one thread or by
     * parts): a miscount would leave a stale token for the replay. */
    for (size_t l = 0; l < nl && rc == 0; l++)
        STS_ASSERT(fill[l] == w->off[l + 1]);
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
        STS_BISECT(size_t, lo, h, mid, !tok_less(tl, b[j], seg[mid]));
        out -= hi - lo;
        memmove(seg + out, seg + lo, (hi - lo) * sizeof *seg);
        seg[--out] = b[j];
        hi = lo;
    }
    /* What was not moved is in place: the first run's tokens before every second's. */
    STS_ASSERT(out == hi);
    STS_ASSERT(fin_ascending(tl, seg, m));
    free(b);
    return 0;
}

/* One lane's tokens sorted with keys[0, 2m) as its records and scratch: -1 when memory
 * is exhausted. */
static int sort_lane(const sts_timeline *tl, uint32_t *seg, size_t m, tok_key *keys)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t steps = 0;
    for (size_t k = 0; k < m; k++) {
        int64_t ts = fin_tok_ts(tl, seg[k]);
        keys[k].ts = ts;
        keys[k].tok = seg[k];
        steps += k && ts < keys[k - 1].ts;
        lo = ts < lo ? ts : lo;
        hi = ts > hi ? ts : hi;
    }
    int r = insertion_within(keys, m, INSERTION_MOVES * m, tl);
    if (r && m >= RADIX_MIN_RECORDS && steps >= RADIX_MIN_STEPS) r = radix_keys(keys, m, keys + m, lo, hi, tl);
    if (r < 0 || (r > 0 && sort_keys(keys, m, keys + m, tl) != 0)) return -1;
    for (size_t k = 0; k < m; k++)
        seg[k] = keys[k].tok;
    STS_ASSERT(fin_ascending(tl, seg, m));
    return 0;
}

/* The lanes to sort, on threads side by side: each thread keeps its scratch, grown to
 * the largest lane it took, so what the sorts hold at once is at most one largest lane's
 * records per thread (and one's when the lanes are sorted on one thread). */
typedef struct sort_ctx {
    const sts_timeline *tl;
    lanes_work *w;
    struct {
        tok_key *v;
        size_t cap;
    } scratch[FIN_MAX_THREADS];
    int bad;
} sort_ctx;

typedef struct sort_job {
    sort_ctx *ctx;
    uint32_t lane;
} sort_job;

static void sort_job_run(void *arg, size_t thread)
{
    sort_job *j = arg;
    sort_ctx *c = j->ctx;
    lanes_work *w = c->w;
    size_t m = w->off[j->lane + 1] - w->off[j->lane];
    if (__atomic_load_n(&c->bad, __ATOMIC_RELAXED)) return; /* after a failure, the rest is wasted */
    size_t cap = c->scratch[thread].cap;
    if (sts_grow((void **)&c->scratch[thread].v, &cap, 2 * m, sizeof *c->scratch[thread].v) != 0 ||
        sort_lane(c->tl, w->tok + w->off[j->lane], m, c->scratch[thread].v) != 0)
        __atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED);
    c->scratch[thread].cap = cap;
}

/* Sorts the lanes that are neither in order nor two ordered runs (those are merged by
 * the replay, lane by lane: see replay_part_run), the largest first. */
static int sort_lanes(const sts_timeline *tl, lanes_work *w)
{
    size_t nsort = 0, total = 0;
    for (size_t l = 0; l < w->nl; l++)
        if (w->desc[l] > 1) nsort++, total += w->off[l + 1] - w->off[l];
    if (nsort == 0) return 0;
    sort_job *job = malloc(nsort * sizeof *job);
    uint64_t *weight = malloc(nsort * sizeof *weight);
    sort_ctx *ctx = calloc(1, sizeof *ctx);
    int bad = !job || !weight || !ctx;
    if (!bad) {
        *ctx = (sort_ctx){ .tl = tl, .w = w };
        for (size_t l = 0, k = 0; l < w->nl; l++)
            if (w->desc[l] > 1) {
                job[k] = (sort_job){ ctx, (uint32_t)l };
                weight[k++] = w->off[l + 1] - w->off[l];
            }
        size_t threads = fin_threads(tl, total);
        if (threads > nsort) threads = nsort;
        sts_run_parts_heaviest_first(sort_job_run, job, sizeof *job, nsort, threads, weight);
        bad = __atomic_load_n(&ctx->bad, __ATOMIC_RELAXED);
        for (size_t t = 0; t < FIN_MAX_THREADS; t++)
            free(ctx->scratch[t].v);
    }
    free(job);
    free(weight);
    free(ctx);
    return bad ? -1 : 0;
}

/* ---- the final order ------------------------------------------------------------- */

/* Swaps slices into place tracking where each went (pos: original index -> position,
 * at: position -> original index). Unlike following cycles, the next few moves are
 * known in advance, so their cache misses are prefetched and overlap. The two arrays
 * come from the caller's scratch where it is large enough: memory already touched,
 * where a new array costs its page faults (on a VM, clearing each page is dear). */
int sts_fin_permute_swaps(sts_slice *s, const uint32_t *order, size_t n, uint32_t *scratch, size_t nscratch)
{
    enum { AHEAD = 8 };
    int own_pos = !(n && nscratch >= n), own_at = !(n && nscratch >= 2 * n);
    uint32_t *pos = own_pos ? malloc((n ? n : 1) * sizeof *pos) : scratch;
    uint32_t *at = own_at ? malloc((n ? n : 1) * sizeof *at) : scratch + n;
    if (!pos || !at) {
        if (own_pos) free(pos);
        if (own_at) free(at);
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
        /* order is a permutation: each slice is asked for once, so the one for k is
         * never at a position already filled (a second request would move a placed
         * slice away, and the table would silently hold one slice twice). */
        STS_ASSERT(order[k] < n);
        uint32_t p = pos[order[k]];
        STS_ASSERT(p >= k);
        if (p == k) continue;
        sts_slice t = s[k];
        s[k] = s[p];
        s[p] = t;
        uint32_t y = at[k];
        at[p] = y;
        pos[y] = p;
    }
    if (own_pos) free(pos);
    if (own_at) free(at);
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
            /* In a permutation's cycle, a position not yet visited is never its own
             * source: one that is means order named a slice twice (and this loops). */
            STS_ASSERT(src < n && src != j);
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

/* ---- replaying the lanes, by parts side by side ------------------------------------ */

/* Track numbers to correct after the permutation: lanes [l0, l1) by delta. */
typedef struct fin_shift {
    size_t n;
    struct {
        size_t l0, l1;
        uint32_t delta;
    } v[FIN_MAX_PARTS];
} fin_shift;

/* What every part of the replay shares, and only reads (each part writes its own
 * lanes' slices, positions and lane records). */
typedef struct replay_ctx {
    sts_timeline *tl;
    const lanes_work *w;
    const fin_track0 *t0;
    uint32_t *order;
    fin_lane_out *out;
} replay_ctx;

/* Lanes [l0, l1), replayed by one thread, each after its two ordered runs are merged
 * (a lane's own work, so it goes with the replay). Their tracks are numbered as if
 * every lane before l0 had one track; finalize corrects that afterwards. */
typedef struct replay_part {
    const replay_ctx *q;
    size_t l0, l1;
    fin_replay *r;
    int rc; /* 0, or -1: no memory */
} replay_part;

static void replay_part_run(void *arg, size_t thread)
{
    (void)thread;
    replay_part *p = arg;
    const replay_ctx *q = p->q;
    const lanes_work *w = q->w;
    p->r = sts_fin_replay_new(q->tl, q->order, (uint32_t)p->l0);
    p->rc = p->r ? 0 : -1;
    for (size_t l = p->l0; l < p->l1 && p->rc == 0; l++) {
        uint32_t pos = (uint32_t)w->soff[l];
        size_t m = w->off[l + 1] - w->off[l];
        if (w->desc[l] == 1 && merge_two_runs(q->tl, w->tok + w->off[l], m, w->split[l]) != 0) {
            p->rc = -1;
            break;
        }
        p->rc = sts_fin_replay_lane(p->r, (uint32_t)l, &q->t0[l], w->tok + w->off[l], m, &pos, &q->out[l]);
        /* The lane placed each of its slices once: the next lane's positions start
         * where bucket() counted, or two parts would write one position. */
        STS_ASSERT(p->rc != 0 || pos == w->soff[l + 1]);
        q->tl->lanes.v[l].first_slice = (uint32_t)w->soff[l];
        q->tl->lanes.v[l].slice_count = (uint32_t)(w->soff[l + 1] - w->soff[l]);
    }
}

/* Lane l's events, the weight by which the lanes are cut into parts. */
static uint64_t lane_events(const void *ctx, size_t l)
{
    const lanes_work *w = ctx;
    return w->off[l + 1] - w->off[l];
}

/* Moves the tracks of lanes [l0, l1) by delta, once the tracks of the lanes before
 * them are known (after the permutation: each lane's slices are then together). */
static void shift_tracks(sts_timeline *tl, size_t l0, size_t l1, uint32_t delta)
{
    for (size_t l = l0; l < l1; l++) {
        sts_lane *ln = &tl->lanes.v[l];
        ln->first_track += delta;
        for (size_t i = ln->first_slice; i < (size_t)ln->first_slice + ln->slice_count; i++)
            tl->slices.v[i].track += delta;
    }
}

/* Replays every lane, in parts on threads side by side; the parts' tracks, overlaps and
 * counts are added in lane order, so the result is the one thread's. Returns 1 when
 * slices must move to reach their final order, 0 when they are already there, -1 when
 * memory is exhausted. *shift receives what shift_tracks() must do after the
 * permutation. */
static int replay_all(sts_timeline *tl, const lanes_work *w, const fin_track0 *t0, uint32_t *order, fin_lane_out *out,
                      fin_shift *shift)
{
    size_t threads = fin_threads(tl, w->off[w->nl]), cut[FIN_MAX_PARTS + 1];
    replay_part part[FIN_MAX_PARTS];
    replay_ctx q = { tl, w, t0, order, out };
    size_t n = sts_cut_even(w->nl, lane_events, w, threads == 1 ? 1 : FIN_PARTS_PER_THREAD * threads, cut);
    uint64_t events[FIN_MAX_PARTS];
    for (size_t k = 0; k < n; k++) {
        part[k] = (replay_part){ &q, cut[k], cut[k + 1], NULL, -1 };
        events[k] = w->off[cut[k + 1]] - w->off[cut[k]];
    }
    sts_run_parts_heaviest_first(replay_part_run, part, sizeof *part, n, threads, events);
    int rc = 0, moved = 0;
    uint32_t base = (uint32_t)tl->tracks.n;
    shift->n = 0;
    for (size_t k = 0; k < n; k++) {
        if (rc == 0 && part[k].rc == 0) {
            if (base != cut[k]) {
                shift->v[shift->n].l0 = cut[k];
                shift->v[shift->n].l1 = cut[k + 1];
                shift->v[shift->n++].delta = base - (uint32_t)cut[k];
            }
            base += sts_fin_replay_tracks(part[k].r);
            moved |= sts_fin_replay_moved(part[k].r);
            rc = sts_fin_replay_commit(part[k].r);
        } else {
            rc = -1;
        }
        sts_fin_replay_free(part[k].r);
    }
    return rc ? -1 : moved;
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
        uint64_t n = in->unclosed_begin, na = tl->unclosed_async_begin;
        /* Async b and e are named as the trace wrote them: "B ... E" called an async b
         * a B, and its async track a pid and tid (both empty). */
        const char *what = !na ? "B event" : na == n ? "async b event" : "B or async b event";
        const char *closer = !na ? "an E" : na == n ? "an e of its id" : "an E (or async e)";
        char where[300];
        if (ln->kind == STS_LANE_ASYNC) {
            char label[200];
            snprintf(where, sizeof where, "on the async track %s",
                     sts_track_label(tl, &tl->tracks.v[s->track], label, sizeof label));
        } else
            snprintf(where, sizeof where, "on pid %s tid %s",
                     sts_strtab_get(&tl->strings, tl->procs.v[ln->process].label),
                     sts_strtab_get(&tl->strings, ln->label));
        sts_tl_warn(tl,
                    "%s: %llu %s%s never closed by %s; shown running to the last timestamp of %s %s (first: '%s' at ts "
                    "%lld ns %s)",
                    in->path, (unsigned long long)n, what, n == 1 ? " was" : "s were", closer, n == 1 ? "its" : "their",
                    na == n ? "track" : "lane", sts_strtab_get(&tl->strings, s->name), (long long)s->ts, where);
    }
    if (in->unmatched_end) {
        uint64_t n = in->unmatched_end, na = tl->unmatched_async_end;
        const char *what = !na ? "E event" : na == n ? "async e event" : "E or async e event";
        const char *opener = !na       ? (n == 1 ? "open B on its lane" : "open B on their lane")
                             : na == n ? "open b of its id"
                                       : "open B (or async b)";
        sts_tl_warn(tl, "%s: %llu %s%s matched no %s and %s ignored", in->path, (unsigned long long)n, what,
                    n == 1 ? "" : "s", opener, n == 1 ? "was" : "were");
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
    fin_shift shift = { 0 };
    int moved = rc ? 0 : replay_all(tl, &w, t0, order, out, &shift);
    if (moved < 0) rc = -1;
    /* Spent; the tokens' array (a slot per slice and end) is the permutation's scratch. */
    uint32_t *scratch = w.tok;
    size_t nscratch = w.tok ? tl->slices.n + tl->ends.n : 0;
    w.tok = NULL;
    work_free(&w);
    free(t0);
    if (rc == 0 && moved && sts_fin_permute_swaps(tl->slices.v, order, tl->slices.n, scratch, nscratch) != 0)
        sts_fin_permute_cycles(tl->slices.v, order, tl->slices.n);
    free(scratch);
    free(order);
    for (size_t k = 0; rc == 0 && k < shift.n; k++)
        shift_tracks(tl, shift.v[k].l0, shift.v[k].l1, shift.v[k].delta);
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
