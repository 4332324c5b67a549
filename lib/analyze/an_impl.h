/* analyze: the pieces shared between the analyzer's files. The analyzer reads the
 * timeline only through its public accessors (stepscope/timeline.h); it never assumes
 * more about slice order than that each lane's slices are contiguous, so a model that
 * keeps several tracks per lane (overflow tracks) is read the same way.
 *
 * Containment order, used throughout: start ascending, end descending, then (for
 * slices cut to a window) the uncut start ascending and end descending, then slice
 * index. In that order every slice comes before the slices that lie inside it.
 * A slice `o` lies inside `s` when `s` comes first and `s.ts <= o.ts < s.end` and
 * `o.end <= s.end`: half-open, so nothing lies inside a zero-length slice and a slice
 * that starts where another ends is not inside it. */
#ifndef STS_ANALYZE_AN_IMPL_H
#define STS_ANALYZE_AN_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/analyze.h"

/* One interval of a lane view: [ts, end), possibly cut to a window, and its slice. */
typedef struct sts_an_iv {
    int64_t ts, end;
    uint32_t idx;
    uint32_t unused;
} sts_an_iv;

/* Scratch memory reused across lanes (grown on demand, freed by sts_an_scratch_free). */
typedef struct sts_an_scratch {
    uint32_t *stack;
    size_t stack_cap;
    uint32_t *rank;
    size_t rank_cap;
    int64_t *keys;
    size_t keys_cap;
    int64_t *tree; /* the segment tree of sts_an_inside_union's general case */
    size_t tree_cap;
    int64_t *reach; /* the scan: per interval, the furthest end counted inside it */
    size_t reach_cap;
    unsigned char *flags;
    size_t flags_cap;
    uint32_t *heap;
    size_t heap_cap;
} sts_an_scratch;

void sts_an_scratch_free(sts_an_scratch *sc);

/* A lane's intervals in containment order. */
typedef struct sts_an_view {
    sts_an_iv *iv;
    size_t n, cap;
    const sts_slice *slices; /* the timeline's slices, for ties between cut intervals */
} sts_an_view;

void sts_an_view_free(sts_an_view *v);

/* ts + dur, saturating: a hostile file must not overflow the arithmetic. */
static inline int64_t sts_an_end(const sts_slice *s)
{
    int64_t e;
    if (s->dur < 0) return s->ts;
    return __builtin_add_overflow(s->ts, s->dur, &e) ? INT64_MAX : e;
}

/* A slice cut to `window` (NULL: whole): 0 when it lies outside it. A zero-length slice
 * is in the window when its instant is. */
static inline int sts_an_clip(const sts_slice *s, const int64_t *window, int64_t *ts, int64_t *end)
{
    *ts = s->ts;
    *end = sts_an_end(s);
    if (!window) return 1;
    int64_t w0 = window[0], w1 = window[1];
    if (*ts >= w1 || *end < w0 || (*end == w0 && *end > *ts) || (*end == *ts && *ts < w0)) return 0;
    if (*ts < w0) *ts = w0;
    if (*end > w1) *end = w1;
    return 1;
}

/* Loads lane `lane` into v in containment order. With `window` (start < end), keeps
 * only the slices that overlap [start, end) (a zero-length one when it lies in it),
 * each cut to the window. -1 when memory is exhausted. */
int sts_an_view_load(sts_an_view *v, const sts_timeline *tl, uint32_t lane, const int64_t *window);

/* The same for the slices [first, first + count) of one lane. */
int sts_an_view_load_range(sts_an_view *v, const sts_timeline *tl, uint32_t first, uint32_t count,
                           const int64_t *window);

/* Cuts lane `lane` into runs of slices whose views can be loaded and walked one at a
 * time, so a walk holds a run's view rather than the lane's: when the lane's slices are
 * in containment order, a run ends after at least `part` slices where no slice before
 * ends after the next one starts. No interval of a run then lies inside one of another
 * run, and a run's view is a stretch of the lane's (the same intervals, the same inside
 * unions). A lane out of order is one run. *cuts (grown as sts_grow grows it, *cap its
 * capacity) gets each run's first slice and then the lane's end, *n the entries.
 * -1 when memory is exhausted. */
int sts_an_view_runs(const sts_timeline *tl, uint32_t lane, size_t part, uint32_t **cuts, size_t *n, size_t *cap);

/* u[k] = the length of the union of the intervals that lie inside iv[k] (see above),
 * for intervals in containment order. Linear when the intervals nest properly (each
 * is inside the latest one still open, or after it); where some cross, O(m log m) in
 * the m intervals of that stretch. -1 when memory is exhausted. */
int sts_an_inside_union(const sts_an_iv *iv, size_t n, int64_t *u, sts_an_scratch *sc);

/* The general case of sts_an_inside_union for one stretch, any nesting: O(n log n). */
int sts_an_inside_union_general(const sts_an_iv *iv, size_t n, int64_t *u, sts_an_scratch *sc);

/* The same by scanning the open intervals, fast where few cross; gives up (returns 1,
 * u undefined) after `budget` steps so a hostile input falls back to the general case.
 * 0 when done, -1 when memory is exhausted. */
int sts_an_inside_union_scan(const sts_an_iv *iv, size_t n, int64_t *u, sts_an_scratch *sc, uint64_t budget);

/* The union length of intervals in start order (any end order). */
int64_t sts_an_union_sorted(const sts_an_iv *iv, size_t n);

/* The largest string id used as a slice name, plus one (0 for no slices). */
uint32_t sts_an_name_bound(const sts_timeline *tl);

/* Memory-exhausted error naming what was being computed. */
sts_status sts_an_nomem(sts_error *err, const char *what);

/* qsort's comparison for int64_t values, ascending. */
int sts_an_cmp_i64(const void *a, const void *b);

/* Reorders v[0..n) so that v[k] holds the value of rank k, those before it no greater
 * and those after it no less (k < n; nothing otherwise). */
void sts_an_select_kth(int64_t *v, size_t n, size_t k);

/* A name pattern: exact equality, or a compiled POSIX extended regex searched for. */
typedef struct sts_an_matcher {
    const char *text;
    void *re; /* regex_t *; NULL for exact equality */
} sts_an_matcher;

/* Refuses (STS_ERR_INVALID_ARG naming `what`) a pattern the regex compiler would take
 * too deep or too long over: groups nested deeper than STS_AN_PATTERN_MAX_DEPTH, or more
 * than STS_AN_PATTERN_MAX_SIZE positions once its intervals are expanded. */
#define STS_AN_PATTERN_MAX_DEPTH 64
#define STS_AN_PATTERN_MAX_SIZE  4096
sts_status sts_an_pattern_check(const char *pattern, const char *what, sts_error *err);

/* exact: match by equality; else compile `pattern` as an extended regex
 * (STS_ERR_INVALID_ARG naming `what` when it does not compile, or when
 * sts_an_pattern_check() refuses it). */
sts_status sts_an_matcher_init(sts_an_matcher *m, const char *pattern, int exact, const char *what, sts_error *err);
int sts_an_matcher_match(const sts_an_matcher *m, const char *s);
void sts_an_matcher_release(sts_an_matcher *m);

/* 1 when some slice of the timeline is named exactly `name`. */
int sts_an_has_name(const sts_timeline *tl, const char *name);

/* A resolved sts_scope: which lanes and names it keeps, and its window. */
typedef struct sts_an_scope {
    unsigned char *lane_on; /* per lane; NULL: every lane */
    int by_name;
    sts_an_matcher name;
    signed char *memo; /* per name id: -1 not decided yet, else kept */
    uint32_t bound;    /* name ids below this */
    const sts_timeline *tl;
    int windowed;
    int64_t window[2];
    sts_group group;
} sts_an_scope;

/* The length of a numbered name's prefix (ProfilerStep#3: 12), 0 for other names. */
size_t sts_an_numbered_prefix(const char *name);

/* Per slice-name id below *bound: the smallest id of a name the scope keeps (on its
 * lanes, in its window, matching its name) with the same prefix when the name is numbered and another
 * kept name shares its prefix, else STS_NONE. The caller frees it; NULL when out of
 * memory. */
uint32_t *sts_an_numbered_reps(const sts_timeline *tl, sts_an_scope *x, uint32_t *bound);

/* scope NULL keeps everything. Errors: a lane out of range, an empty window, a name
 * pattern that is not a regex (STS_ERR_INVALID_ARG), memory. */
sts_status sts_an_scope_open(sts_an_scope *x, const sts_timeline *tl, const sts_scope *scope, sts_error *err);
void sts_an_scope_close(sts_an_scope *x);

static inline int sts_an_scope_lane(const sts_an_scope *x, uint32_t lane)
{
    return !x->lane_on || x->lane_on[lane];
}

int sts_an_scope_name_match(sts_an_scope *x, uint32_t name);

/* Whether slices named `name` are kept (decided once per name). */
static inline int sts_an_scope_name(sts_an_scope *x, uint32_t name)
{
    return !x->by_name || sts_an_scope_name_match(x, name);
}

static inline const int64_t *sts_an_scope_window(const sts_an_scope *x)
{
    return x->windowed ? x->window : NULL;
}

/* Whether the lane holds only profiler bookkeeping ("PyTorch Profiler (N)" spans; see
 * bookkeeping.c). */
int sts_an_lane_is_bookkeeping(const sts_timeline *tl, uint32_t lane);

#endif
