/* The analyzer: finalize (B/E matching, nesting, clamping, overlaps, order), self time,
 * summaries, unions, gaps, steps, and the opener. Timelines are built with the model's
 * builder API (as readers fill them), and from JSON files when the reader is built. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/finalize.h"
#include "model/timeline_impl.h"
#include "stepscope.h"
#include "stepscope/analyze.h"
#include "test.h"

/* ---- building raw timelines ------------------------------------------------------ */

static sts_timeline *mk(int whole_us)
{
    sts_timeline *tl = sts_tl_new("test.json", "chrome-json", STS_ARGS_KNOWN);
    if (!whole_us) sts_tl_note_resolution(tl, 0);
    return tl;
}

static uint32_t str(sts_timeline *tl, const char *s)
{
    return sts_tl_intern(tl, s, strlen(s));
}

static uint32_t lane(sts_timeline *tl, int pid, int tid)
{
    char p[32], t[32];
    snprintf(p, sizeof p, "%d", pid);
    snprintf(t, sizeof t, "%d", tid);
    uint32_t proc = sts_tl_process(tl, str(tl, p), pid);
    return sts_tl_lane(tl, proc, str(tl, t), tid);
}

static sts_slice *add_slice(sts_timeline *tl, uint32_t ln, const char *name, int64_t ts, int64_t dur)
{
    sts_slice *s = STS_VEC_PUSH(tl->slices);
    s->ts = ts;
    s->dur = dur;
    s->name = str(tl, name);
    s->lane = ln;
    s->args = STS_NONE;
    s->parent = (uint32_t)tl->info.events++; /* raw convention: the event's sequence number */
    return s;
}

static void X(sts_timeline *tl, uint32_t ln, const char *name, int64_t ts, int64_t dur)
{
    add_slice(tl, ln, name, ts, dur);
}

static void B(sts_timeline *tl, uint32_t ln, const char *name, int64_t ts)
{
    add_slice(tl, ln, name, ts, -1)->flags = STS_SLICE_FROM_BE;
}

static void E(sts_timeline *tl, uint32_t ln, int64_t ts)
{
    sts_end_event *e = STS_VEC_PUSH(tl->ends);
    e->ts = ts;
    e->lane = ln;
    e->seq = (uint32_t)tl->info.events++;
}

static void X_step_num(sts_timeline *tl, uint32_t ln, const char *name, int64_t ts, int64_t dur, int64_t step)
{
    sts_slice *s = add_slice(tl, ln, name, ts, dur);
    sts_arg a = { 0 };
    a.key = str(tl, "step_num");
    a.type = STS_ARG_INT;
    a.v.i = step;
    s->args = sts_tl_add_args(tl, &a, 1);
}

static int fin(sts_timeline *tl)
{
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_tl_finalize(tl, &err);
    if (st != STS_OK) fprintf(stderr, "finalize: %s\n", err.message);
    return st == STS_OK;
}

/* Index of the (only) slice with this name, or -1. */
static long find(const sts_timeline *tl, const char *name)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    long found = -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(sts_timeline_string(tl, s[i].name), name) == 0) found = (long)i;
    return found;
}

static const sts_slice *get(const sts_timeline *tl, const char *name)
{
    long i = find(tl, name);
    return i < 0 ? NULL : &tl->slices.v[i];
}

/* The invariants stepscope/timeline.h promises after loading. */
static int well_formed(const sts_timeline *tl)
{
    size_t n, nl;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_lane *l = sts_timeline_lanes(tl, &nl);
    size_t covered = 0;
    for (size_t k = 0; k < nl; k++) {
        if (l[k].first_slice != covered) return 0;
        for (uint32_t i = l[k].first_slice; i < l[k].first_slice + l[k].slice_count; i++) {
            if (s[i].lane != k) return 0;
            if (i > l[k].first_slice &&
                (s[i].ts < s[i - 1].ts || (s[i].ts == s[i - 1].ts && s[i].depth < s[i - 1].depth)))
                return 0;
            if (s[i].parent != STS_NONE) {
                const sts_slice *p = &s[s[i].parent];
                if (s[i].parent >= i || p->lane != k || s[i].ts < p->ts || s[i].ts + s[i].dur > p->ts + p->dur)
                    return 0;
                if (p->depth < 65535 && s[i].depth != p->depth + 1) return 0;
            } else if (!(s[i].flags & STS_SLICE_OVERLAP) && s[i].depth != 0) {
                return 0;
            }
        }
        covered += l[k].slice_count;
    }
    return covered == n;
}

/* ---- nesting ----------------------------------------------------------------------- */

TEST(child_before_parent_at_equal_ts)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "child", 10000, 5000);
    X(tl, ln, "parent", 10000, 20000);
    T_TRUE(fin(tl));
    T_EQ_I64(find(tl, "parent"), 0);
    T_EQ_I64(find(tl, "child"), 1);
    T_EQ_U64(get(tl, "child")->parent, 0);
    T_EQ_I64(get(tl, "child")->depth, 1);
    T_EQ_U64(get(tl, "parent")->parent, STS_NONE);
    T_TRUE(well_formed(tl));
    sts_timeline_free(tl);
}

TEST(equal_ts_equal_dur_keeps_file_order)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "first", 0, 5000);
    X(tl, ln, "second", 0, 5000);
    T_TRUE(fin(tl));
    T_EQ_I64(find(tl, "first"), 0);
    T_EQ_U64(get(tl, "second")->parent, 0);
    T_EQ_I64(tl->info.clamped + tl->info.overlaps, 0);
    sts_timeline_free(tl);
}

TEST(half_open_siblings)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "b", 10000, 5000);
    X(tl, ln, "a", 0, 10000);
    X(tl, ln, "zero", 15000, 0);
    X(tl, ln, "after_zero", 15000, 1000);
    T_TRUE(fin(tl));
    T_EQ_U64(get(tl, "a")->parent, STS_NONE);
    T_EQ_U64(get(tl, "b")->parent, STS_NONE);
    T_EQ_I64(get(tl, "b")->depth, 0);
    /* A zero-length slice contains nothing, not even what starts at its instant. */
    T_EQ_U64(get(tl, "after_zero")->parent, STS_NONE);
    T_TRUE(well_formed(tl));
    sts_timeline_free(tl);
}

TEST(begin_end_matching)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1), other = lane(tl, 1, 2);
    B(tl, ln, "outer", 0);
    B(tl, ln, "inner", 1000);
    B(tl, other, "elsewhere", 1500);
    E(tl, ln, 3000); /* closes inner: the most recent open B on its lane */
    E(tl, ln, 8000); /* closes outer */
    E(tl, ln, 9000); /* nothing open: counted, ignored */
    E(tl, other, 2500);
    T_TRUE(fin(tl));
    T_EQ_I64(get(tl, "inner")->dur, 2000);
    T_EQ_I64(get(tl, "outer")->dur, 8000);
    T_EQ_I64(get(tl, "elsewhere")->dur, 1000);
    T_EQ_U64(get(tl, "inner")->parent, (uint64_t)find(tl, "outer"));
    T_TRUE(get(tl, "inner")->flags & STS_SLICE_FROM_BE);
    T_EQ_U64(tl->info.unmatched_end, 1);
    T_EQ_U64(tl->info.unclosed_begin, 0);
    size_t nw;
    const char *const *w = sts_timeline_warnings(tl, &nw, NULL);
    T_EQ_U64(nw, 1);
    if (nw) T_CONTAINS(w[0], "1 E event had no open B");
    T_TRUE(well_formed(tl));
    sts_timeline_free(tl);
}

TEST(begin_end_sorted_by_time_not_file_order)
{
    /* Perfetto sorts by timestamp before matching: a later-listed earlier pair still
     * matches itself. At equal ts, file order decides (the E closes before the B opens). */
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    B(tl, ln, "late", 10000);
    E(tl, ln, 20000);
    B(tl, ln, "early", 1000);
    E(tl, ln, 4000);
    B(tl, ln, "x", 30000);
    E(tl, ln, 31000);
    B(tl, ln, "y", 31000);
    E(tl, ln, 32000);
    T_TRUE(fin(tl));
    T_EQ_I64(get(tl, "late")->dur, 10000);
    T_EQ_I64(get(tl, "early")->dur, 3000);
    T_EQ_I64(get(tl, "x")->dur, 1000);
    T_EQ_I64(get(tl, "y")->dur, 1000);
    T_EQ_U64(get(tl, "y")->parent, STS_NONE);
    T_EQ_U64(tl->info.unmatched_end, 0);
    sts_timeline_free(tl);
}

TEST(unclosed_begin_runs_to_lane_end)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1), other = lane(tl, 2, 2);
    B(tl, ln, "open", 1000);
    X(tl, ln, "work", 2000, 5000);
    X(tl, other, "far", 0, 100000); /* another lane's data does not extend this one */
    T_TRUE(fin(tl));
    const sts_slice *o = get(tl, "open");
    T_EQ_I64(o->dur, 6000);
    T_TRUE(o->flags & STS_SLICE_UNCLOSED);
    T_EQ_U64(get(tl, "work")->parent, (uint64_t)find(tl, "open"));
    T_EQ_U64(tl->info.unclosed_begin, 1);
    size_t nw;
    const char *const *w = sts_timeline_warnings(tl, &nw, NULL);
    T_EQ_U64(nw, 1);
    if (nw) T_CONTAINS(w[0], "'open'");
    sts_timeline_free(tl);
}

TEST(one_us_overrun_clamped_in_whole_us_trace)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "parent", 0, 10000);
    X(tl, ln, "child", 5000, 6000); /* ends 1 us after its parent: rounding */
    X(tl, ln, "grandchild", 6000, 4000);
    T_TRUE(fin(tl));
    const sts_slice *c = get(tl, "child");
    T_EQ_I64(c->dur, 5000);
    T_TRUE(c->flags & STS_SLICE_CLAMPED);
    T_EQ_U64(c->parent, (uint64_t)find(tl, "parent"));
    /* the grandchild is checked against the clamped end: 10000 - 6000 = 4000 fits */
    T_EQ_U64(get(tl, "grandchild")->parent, (uint64_t)find(tl, "child"));
    T_EQ_U64(tl->info.clamped, 1);
    T_EQ_U64(tl->info.overlaps, 0);
    T_EQ_I64(tl->info.resolution_ns, 1000);
    int64_t self[3];
    T_EQ_I64(sts_self_times(tl, self, NULL), STS_OK);
    T_EQ_I64(self[find(tl, "parent")], 5000);
    T_EQ_I64(self[find(tl, "child")], 1000);
    T_EQ_I64(self[find(tl, "grandchild")], 4000);
    sts_timeline_free(tl);
}

TEST(five_us_overrun_is_an_overlap)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "root", 0, 30000);
    X(tl, ln, "parent", 1000, 10000);
    X(tl, ln, "over", 6000, 10000);
    X(tl, ln, "inside", 7000, 1000);
    T_TRUE(fin(tl));
    const sts_slice *o = get(tl, "over");
    T_EQ_I64(o->dur, 10000);
    T_TRUE(o->flags & STS_SLICE_OVERLAP);
    /* Not the child of the slice it overran: its sibling, under the innermost slice
     * that holds it whole; it keeps its own children. */
    T_EQ_U64(o->parent, (uint64_t)find(tl, "root"));
    T_EQ_I64(o->depth, 1);
    T_EQ_U64(get(tl, "parent")->parent, (uint64_t)find(tl, "root"));
    T_EQ_U64(get(tl, "inside")->parent, (uint64_t)find(tl, "over"));
    T_EQ_I64(get(tl, "inside")->depth, 2);
    T_EQ_U64(tl->info.overlaps, 1);
    size_t nov;
    const sts_overlap *ov = sts_timeline_overlaps(tl, &nov);
    T_EQ_U64(nov, 1);
    if (nov) {
        T_EQ_U64(ov[0].slice, (uint64_t)find(tl, "over"));
        T_EQ_U64(ov[0].parent, (uint64_t)find(tl, "parent"));
        T_EQ_I64(ov[0].overrun_ns, 5000);
    }
    int64_t self[4];
    T_EQ_I64(sts_self_times(tl, self, NULL), STS_OK);
    /* Containment: root holds parent [1, 11) us and over [6, 16) us, which cross; what
     * lies inside root covers [1, 16) us once. */
    T_EQ_I64(self[find(tl, "root")], 30000 - 15000);
    /* "inside" [7, 8) us lies inside both slices that cross, whatever its parent link. */
    T_EQ_I64(self[find(tl, "parent")], 10000 - 1000);
    T_EQ_I64(self[find(tl, "over")], 10000 - 1000);
    T_TRUE(well_formed(tl));
    sts_timeline_free(tl);
}

TEST(overlap_without_a_holder_is_a_root)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "parent", 0, 10000);
    X(tl, ln, "over", 5000, 10000);
    X(tl, ln, "inside", 12000, 1000);
    T_TRUE(fin(tl));
    const sts_slice *o = get(tl, "over");
    T_EQ_U64(o->parent, STS_NONE);
    T_EQ_I64(o->depth, 0);
    T_EQ_U64(get(tl, "inside")->parent, (uint64_t)find(tl, "over"));
    T_EQ_I64(get(tl, "inside")->depth, 1);
    T_TRUE(well_formed(tl));
    sts_timeline_free(tl);
}

TEST(ns_resolution_one_ns_clamps_two_ns_overlaps)
{
    sts_timeline *tl = mk(0);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "p1", 0, 100);
    X(tl, ln, "c1", 50, 51);
    X(tl, ln, "p2", 200, 100);
    X(tl, ln, "c2", 250, 52);
    T_TRUE(fin(tl));
    T_EQ_I64(tl->info.resolution_ns, 1);
    T_TRUE(get(tl, "c1")->flags & STS_SLICE_CLAMPED);
    T_EQ_I64(get(tl, "c1")->dur, 50);
    T_TRUE(get(tl, "c2")->flags & STS_SLICE_OVERLAP);
    T_EQ_I64(get(tl, "c2")->dur, 52);
    T_EQ_U64(tl->info.clamped, 1);
    T_EQ_U64(tl->info.overlaps, 1);
    sts_timeline_free(tl);
}

TEST(deep_nesting_without_recursion)
{
    enum { N = 100000 };
    sts_timeline *tl = mk(0);
    uint32_t ln = lane(tl, 1, 1);
    /* Listed innermost first, so the sort does real work. */
    for (int64_t k = N - 1; k >= 0; k--)
        X(tl, ln, "d", k, 2 * (N - k));
    T_TRUE(fin(tl));
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    T_EQ_U64(n, N);
    int ok = 1;
    for (size_t k = 0; k < n; k++) {
        int64_t want_depth = k > 65535 ? 65535 : (int64_t)k;
        if (s[k].ts != (int64_t)k || s[k].depth != want_depth || s[k].parent != (k ? (uint32_t)(k - 1) : STS_NONE))
            ok = 0;
    }
    T_TRUE(ok);
    int64_t *self = malloc(n * sizeof *self);
    T_EQ_I64(sts_self_times(tl, self, NULL), STS_OK);
    T_EQ_I64(self[0], 2);
    T_EQ_I64(self[N - 1], 2);
    free(self);
    sts_timeline_free(tl);
}

/* Random forests on interleaved lanes, file order shuffled: every slice must come back
 * with the parent it was generated under. */
typedef struct gen {
    sts_timeline *tl;
    uint64_t rng;
    int64_t (*iv)[4]; /* ts, dur, lane, parent id */
    size_t n;
} gen;

static uint64_t rnd(gen *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

static void grow_tree(gen *g, int64_t lo, int64_t hi, int64_t lane_id, int64_t parent, int depth)
{
    int64_t t = lo;
    while (t < hi && g->n < 20000) {
        int64_t len = 1 + (int64_t)(rnd(g) % (uint64_t)(hi - t));
        if (parent >= 0 && t == lo && len == hi - lo) len--; /* strictly shorter than the parent */
        if (len <= 0) break;
        size_t id = g->n++;
        g->iv[id][0] = t;
        g->iv[id][1] = len;
        g->iv[id][2] = lane_id;
        g->iv[id][3] = parent;
        if (depth < 6 && len > 4) grow_tree(g, t, t + len, lane_id, (int64_t)id, depth + 1);
        t += len + (int64_t)(rnd(g) % 3);
    }
}

static void random_forests(int cycles)
{
    sts_finalize_test_cycles = cycles;
    gen g = { mk(0), 0x1234567u, malloc(20000 * sizeof *g.iv), 0 };
    for (int l = 0; l < 4; l++)
        grow_tree(&g, 0, 100000, l, -1, 0);
    size_t n = g.n;
    size_t *perm = malloc(n * sizeof *perm);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd(&g) % i, t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    uint32_t lanes[4];
    for (int l = 0; l < 4; l++)
        lanes[l] = lane(g.tl, 1, 10 + l);
    for (size_t k = 0; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "s%zu", perm[k]);
        X(g.tl, lanes[g.iv[perm[k]][2]], name, g.iv[perm[k]][0], g.iv[perm[k]][1]);
    }
    T_TRUE(fin(g.tl));
    T_TRUE(well_formed(g.tl));
    size_t m;
    const sts_slice *s = sts_timeline_slices(g.tl, &m);
    T_EQ_U64(m, n);
    int bad = 0;
    for (size_t i = 0; i < m; i++) {
        size_t id = (size_t)strtoul(sts_timeline_string(g.tl, s[i].name) + 1, NULL, 10);
        int64_t want = g.iv[id][3];
        if (want < 0) {
            bad += s[i].parent != STS_NONE;
        } else {
            bad +=
                s[i].parent == STS_NONE || strtol(sts_timeline_string(g.tl, s[s[i].parent].name) + 1, NULL, 10) != want;
        }
    }
    T_EQ_I64(bad, 0);
    T_EQ_U64(g.tl->info.clamped + g.tl->info.overlaps, 0);
    free(perm);
    free(g.iv);
    sts_timeline_free(g.tl);
    sts_finalize_test_cycles = 0;
}

TEST(random_forests_shuffled)
{
    random_forests(0);
}

/* The fallback permutation, used when the swap bookkeeping does not fit: same result. */
TEST(random_forests_permuted_by_cycles)
{
    random_forests(1);
}

/* ---- unions, self time, summaries -------------------------------------------------- */

TEST(union_of_interval_list)
{
    const int64_t iv[3][2] = { { 0, 10 }, { 2, 7 }, { 8, 12 } };
    T_EQ_I64(sts_union_ns(iv, 3), 12);
    int64_t sum = 0;
    for (int i = 0; i < 3; i++)
        sum += iv[i][1] - iv[i][0];
    T_EQ_I64(sum, 19);
    const int64_t touching[3][2] = { { 5, 7 }, { 0, 5 }, { 9, 9 } };
    T_EQ_I64(sts_union_ns(touching, 3), 7);
    T_EQ_I64(sts_union_ns(NULL, 0), 0);
    /* more than the on-stack buffer: 100 disjoint unit intervals */
    int64_t(*many)[2] = malloc(100 * sizeof *many);
    for (int i = 0; i < 100; i++) {
        many[i][0] = 3 * (99 - i);
        many[i][1] = 3 * (99 - i) + 1;
    }
    T_EQ_I64(sts_union_ns((const int64_t(*)[2])many, 100), 100);
    free(many);
}

TEST(medians_odd_and_even)
{
    int64_t odd[] = { 5, 1, 3 };
    T_EQ_I64(sts_median_i64(odd, 3), 3);
    int64_t even[] = { 4, 1, 3, 2 };
    T_EQ_I64(sts_median_i64(even, 4), 2); /* floor(2.5) */
    int64_t even2[] = { 2001, 1000 };
    T_EQ_I64(sts_median_i64(even2, 2), 1500);
    int64_t one[] = { 7 };
    T_EQ_I64(sts_median_i64(one, 1), 7);
    int64_t dup[] = { 9, 9, 9, 1, 9, 9 };
    T_EQ_I64(sts_median_i64(dup, 6), 9);
    int64_t neg[] = { -3, -4 };
    T_EQ_I64(sts_median_i64(neg, 2), -4); /* floor(-3.5) */
    /* against sorting, on a larger pseudo-random array */
    enum { M = 1001 };
    int64_t *v = malloc(M * sizeof *v), *w = malloc(M * sizeof *w);
    uint64_t r = 88172645463325252u;
    for (int i = 0; i < M; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        v[i] = w[i] = (int64_t)(r % 500);
    }
    for (int i = 1; i < M; i++)
        for (int j = i; j > 0 && w[j] < w[j - 1]; j--) {
            int64_t t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
        }
    T_EQ_I64(sts_median_i64(v, M), w[M / 2]);
    T_EQ_I64(sts_median_i64(v, M - 1), w[(M - 1) / 2 - 1] + (w[(M - 1) / 2] - w[(M - 1) / 2 - 1]) / 2);
    free(v);
    free(w);
}

static const sts_name_summary *summary_of(const sts_timeline *tl, const sts_name_summary *s, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(sts_timeline_string(tl, s[i].name), name) == 0) return &s[i];
    return NULL;
}

TEST(self_time_and_name_summaries)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    /* step [0,100) holds op [10,40) and op [50,60); op [10,40) holds leaf [15,25). */
    X(tl, ln, "step", 0, 100000);
    X(tl, ln, "op", 10000, 30000);
    X(tl, ln, "leaf", 15000, 10000);
    X(tl, ln, "op", 50000, 10000);
    X(tl, ln, "op", 70000, 20000);
    X(tl, ln, "op", 95000, 4000);
    T_TRUE(fin(tl));
    sts_name_summary *sum = NULL;
    size_t n = 0;
    T_EQ_I64(sts_name_summaries(tl, &sum, &n, NULL), STS_OK);
    T_EQ_U64(n, 3);
    const sts_name_summary *step = summary_of(tl, sum, n, "step"), *op = summary_of(tl, sum, n, "op"),
                           *leaf = summary_of(tl, sum, n, "leaf");
    T_TRUE(step && op && leaf);
    if (step && op && leaf) {
        T_EQ_I64(step->total_ns, 100000);
        T_EQ_I64(step->self_ns, 100000 - (30000 + 10000 + 20000 + 4000));
        T_EQ_U64(op->count, 4);
        T_EQ_I64(op->total_ns, 64000);
        T_EQ_I64(op->self_ns, 64000 - 10000);
        T_EQ_I64(op->min_ns, 4000);
        T_EQ_I64(op->max_ns, 30000);
        T_EQ_I64(op->median_ns, 15000); /* (10000 + 20000) / 2 */
        T_EQ_I64(leaf->median_ns, 10000);
        /* ranked by self time: op (54000) > step (36000) > leaf (10000) */
        T_EQ_STR(sts_timeline_string(tl, sum[0].name), "op");
        T_EQ_STR(sts_timeline_string(tl, sum[1].name), "step");
        /* the whole tree's self times add up to the root's duration */
        T_EQ_I64(step->self_ns + op->self_ns + leaf->self_ns, 100000);
    }
    free(sum);
    sts_timeline_free(tl);
}

TEST(busy_time_and_gaps)
{
    sts_timeline *tl = mk(1);
    uint32_t a = lane(tl, 1, 1), b = lane(tl, 1, 2), c = lane(tl, 2, 1);
    X(tl, a, "x", 0, 10000);
    X(tl, a, "y", 2000, 5000); /* nested: adds nothing */
    X(tl, a, "z", 8000, 4000); /* overlaps x by 2 us: an overlap, still busy time */
    X(tl, b, "w", 20000, 5000);
    X(tl, c, "v", 11000, 12000);
    T_TRUE(fin(tl));
    sts_busy la;
    T_EQ_I64(sts_busy_lane(tl, a, &la, NULL), STS_OK);
    T_EQ_I64(la.union_ns, 12000);
    T_EQ_I64(la.span_ns, 12000);
    T_EQ_U64(la.slices, 3);
    sts_busy p1;
    T_EQ_I64(sts_busy_process(tl, 0, &p1, NULL), STS_OK);
    T_EQ_I64(p1.union_ns, 17000);
    T_EQ_I64(p1.span_ns, 25000);
    sts_busy all;
    T_EQ_I64(sts_busy_lanes(tl, NULL, 0, &all, NULL), STS_OK);
    T_EQ_I64(all.union_ns, 25000); /* [0,12) + [11,23) + [20,25) = [0,25) */
    T_EQ_U64(all.slices, 5);
    int64_t(*gaps)[2] = NULL;
    size_t ng = 0;
    T_EQ_I64(sts_gaps(tl, NULL, 0, 1, &gaps, &ng, NULL), STS_OK);
    T_EQ_U64(ng, 0);
    free(gaps);
    const uint32_t only_a_b[2] = { a, b };
    T_EQ_I64(sts_gaps(tl, only_a_b, 2, 1000, &gaps, &ng, NULL), STS_OK);
    T_EQ_U64(ng, 1);
    if (ng) {
        T_EQ_I64(gaps[0][0], 12000);
        T_EQ_I64(gaps[0][1], 20000);
    }
    free(gaps);
    T_EQ_I64(sts_gaps(tl, only_a_b, 2, 9000, &gaps, &ng, NULL), STS_OK);
    T_EQ_U64(ng, 0);
    free(gaps);
    const uint32_t bad_lane[1] = { 99 };
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_busy_lanes(tl, bad_lane, 1, &all, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "lane 99");
    sts_timeline_free(tl);
}

TEST(display_order)
{
    sts_timeline *tl = mk(1);
    uint32_t l0 = lane(tl, 5, 9), l1 = lane(tl, 3, 2), l2 = lane(tl, 5, 1), l3 = lane(tl, 3, 7);
    tl->procs.v[tl->lanes.v[l0].process].sort_index = -1; /* pid 5 first */
    T_TRUE(fin(tl));
    uint32_t order[4];
    sts_lane_display_order(tl, order);
    T_EQ_U64(order[0], l2);
    T_EQ_U64(order[1], l0);
    T_EQ_U64(order[2], l1);
    T_EQ_U64(order[3], l3);
    sts_timeline_free(tl);
}

/* ---- steps ---------------------------------------------------------------------- */

static sts_steps *steps_of(const sts_timeline *tl, const char *step)
{
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = step;
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_steps_find(tl, &o, &s, &err) != STS_OK) fprintf(stderr, "steps: %s\n", err.message);
    return s;
}

/* Four steps of 1.2 ms: input_wait 1 ms then model 150 us, in whole microseconds. */
static void lesson_steps(sts_timeline *tl, uint32_t ln, int profiler_names)
{
    for (int i = 0; i < 4; i++) {
        int64_t t = 10000 + i * 2000000;
        char name[32];
        snprintf(name, sizeof name, profiler_names ? "ProfilerStep#%d" : "learner_step", 7 + i);
        X(tl, ln, name, t, 1200000);
        X(tl, ln, "input_wait", t + 5000, 1000000 + i * 1000);
        X(tl, ln, "model_and_wait", t + 1010000, 150000 + i * 10000);
        X(tl, ln, "aten::mm", t + 1020000, 100000);
    }
    X(tl, ln, "setup", 0, 5000);
    X(tl, ln, "setup_child", 1000, 1000);
}

static void check_lesson_steps(const sts_timeline *tl, const sts_steps *s)
{
    size_t n, nc, ns;
    const sts_step *st = sts_steps_list(s, &n);
    const sts_step_child *ch = sts_steps_children(s, &nc);
    const sts_step_child_stats *cs = sts_steps_child_stats(s, &ns);
    T_EQ_U64(n, 4);
    for (size_t k = 0; k < n && k < 4; k++) {
        T_EQ_I64(st[k].dur, 1200000);
        T_EQ_U64(st[k].child_count, 2);
        if (st[k].child_count != 2) continue;
        const sts_step_child *c = &ch[st[k].first_child];
        T_EQ_STR(sts_timeline_string(tl, c[0].name), "input_wait");
        T_EQ_STR(sts_timeline_string(tl, c[1].name), "model_and_wait");
        T_TRUE(c[0].first_ts < c[1].first_ts);
        int64_t children = c[0].total_ns + c[1].total_ns;
        T_EQ_I64(st[k].children_ns, children); /* aten::mm is a grandchild: not counted */
        T_EQ_I64(st[k].unattributed_ns, st[k].dur - children);
        T_GE_I64(st[k].unattributed_ns, 0);
        T_EQ_I64(st[k].naive_ns, st[k].dur + children);
        T_TRUE(st[k].naive_ns > st[k].dur);
    }
    T_EQ_U64(ns, 2);
    if (ns == 2) {
        T_EQ_STR(sts_timeline_string(tl, cs[1].name), "model_and_wait");
        T_EQ_I64(cs[1].min_ns, 150000);
        T_EQ_I64(cs[1].max_ns, 180000);
        T_EQ_I64(cs[1].median_ns, 165000);
        T_EQ_U64(cs[1].steps, 4);
    }
    const sts_steps_summary *y = sts_steps_get_summary(s);
    T_EQ_U64(y->steps, 4);
    T_EQ_I64(y->total_ns, 4800000);
    T_EQ_I64(y->unattributed_ns, y->total_ns - y->children_ns);
    T_EQ_I64(y->naive_ns, y->total_ns + y->children_ns);
}

TEST(steps_from_profiler_step_names)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    lesson_steps(tl, ln, 1);
    /* the same step marked on a device lane too (as Kineto does): set aside */
    X(tl, lane(tl, 0, 7), "ProfilerStep#7", 500000, 100000);
    T_TRUE(fin(tl));
    sts_steps *s = steps_of(tl, NULL);
    T_TRUE(s != NULL);
    if (!s) return;
    T_EQ_I64(sts_steps_rule(s), STS_STEP_RULE_PROFILER_STEP);
    T_EQ_STR(sts_step_rule_name(sts_steps_rule(s)), "profiler-step");
    check_lesson_steps(tl, s);
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    if (n == 4) T_EQ_I64(st[3].index, 10);
    T_EQ_U64(sts_steps_other_lanes(s), 1);
    sts_steps_free(s);
    sts_timeline_free(tl);
}

TEST(steps_from_step_num_args)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    for (int i = 0; i < 3; i++) {
        X_step_num(tl, ln, "train", i * 100000, 90000, 40 + i);
        X(tl, ln, "fwd", i * 100000 + 1000, 50000);
    }
    T_TRUE(fin(tl));
    sts_steps *s = steps_of(tl, NULL);
    T_TRUE(s != NULL);
    if (!s) return;
    T_EQ_I64(sts_steps_rule(s), STS_STEP_RULE_STEP_NUM);
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    T_EQ_U64(n, 3);
    if (n == 3) {
        T_EQ_I64(st[0].index, 40);
        T_EQ_I64(st[2].index, 42);
        T_EQ_I64(st[1].children_ns, 50000);
        T_EQ_I64(st[1].unattributed_ns, 40000);
    }
    sts_steps_free(s);
    sts_timeline_free(tl);
}

TEST(steps_from_repeated_name)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    lesson_steps(tl, ln, 0);
    X(tl, ln, "setup", 9000000, 1000); /* repeated root, no children, less time */
    T_TRUE(fin(tl));
    sts_steps *s = steps_of(tl, NULL);
    T_TRUE(s != NULL);
    if (!s) return;
    T_EQ_I64(sts_steps_rule(s), STS_STEP_RULE_REPEATED);
    check_lesson_steps(tl, s);
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    if (n == 4) {
        T_EQ_I64(st[0].index, 0); /* no number in name or args: ordinal */
        T_EQ_I64(st[3].index, 3);
    }
    sts_steps_free(s);
    sts_timeline_free(tl);
}

TEST(steps_given_name_and_regex)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    lesson_steps(tl, ln, 0);
    T_TRUE(fin(tl));
    sts_steps *s = steps_of(tl, "model_and_wait");
    T_TRUE(s && sts_steps_rule(s) == STS_STEP_RULE_GIVEN_NAME);
    size_t n = 0;
    if (s) sts_steps_list(s, &n);
    T_EQ_U64(n, 4);
    sts_steps_free(s);
    s = steps_of(tl, "^learner_st.p$");
    T_TRUE(s && sts_steps_rule(s) == STS_STEP_RULE_GIVEN_REGEX);
    if (s) check_lesson_steps(tl, s);
    sts_steps_free(s);
    s = steps_of(tl, "no_such_step");
    T_TRUE(s && sts_steps_rule(s) == STS_STEP_RULE_NONE);
    if (s) {
        size_t nt;
        const char *const *tried = sts_steps_tried(s, &nt);
        T_EQ_U64(nt, 2);
        if (nt) T_CONTAINS(tried[0], "no_such_step");
    }
    sts_steps_free(s);
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = "bad(regex";
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_steps_find(tl, &o, &s, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "bad(regex");
    sts_timeline_free(tl);
}

TEST(no_steps_lists_candidates)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "once", 0, 1000);
    X(tl, ln, "flat", 2000, 1000);
    X(tl, ln, "flat", 4000, 1000);
    X(tl, ln, "self", 6000, 5000);
    X(tl, ln, "self", 7000, 1000);
    X(tl, ln, "self", 12000, 1000);
    T_TRUE(fin(tl));
    sts_steps *s = steps_of(tl, NULL);
    T_TRUE(s && sts_steps_rule(s) == STS_STEP_RULE_NONE);
    if (s) {
        size_t nt, n;
        const char *const *tried = sts_steps_tried(s, &nt);
        sts_steps_list(s, &n);
        T_EQ_U64(n, 0);
        char all[4096] = "";
        for (size_t i = 0; i < nt; i++)
            strncat(all, tried[i], sizeof all - strlen(all) - 1);
        T_CONTAINS(all, "ProfilerStep#N");
        T_CONTAINS(all, "step_num");
        T_CONTAINS(all, "'flat'");
        T_CONTAINS(all, "has no children");
        T_CONTAINS(all, "nests inside itself");
        T_CONTAINS(all, "occurs only once");
    }
    sts_steps_free(s);
    sts_timeline_free(tl);
}

/* ---- opening files ------------------------------------------------------------------ */

static const char *tmp_write(const char *name, const void *data, size_t n)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/sts_test_analyze_%d_%s", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
    return path;
}

TEST(open_errors_name_the_file)
{
    sts_timeline *tl = (sts_timeline *)1;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_timeline_open("/nonexistent/trace.json", NULL, &tl, &err), STS_ERR_NOT_FOUND);
    T_TRUE(tl == NULL);
    T_CONTAINS(err.message, "/nonexistent/trace.json");
    const char *p = tmp_write("empty.json", "  \n", 3);
    T_EQ_I64(sts_timeline_open(p, NULL, &tl, &err), STS_ERR_FORMAT);
    T_CONTAINS(err.message, p);
    T_CONTAINS(err.message, "only whitespace");
    remove(p);
    p = tmp_write("garbage.bin", "\x01\x02garbage", 9);
    sts_status st = sts_timeline_open(p, NULL, &tl, &err);
    T_TRUE(st != STS_OK);
    T_CONTAINS(err.message, p);
    remove(p);
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/sts_test_analyze_%d_dir", (int)getpid());
    mkdir(dir, 0755);
    T_EQ_I64(sts_timeline_open(dir, NULL, &tl, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, dir);
    T_CONTAINS(err.message, "xplane.pb");
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.run = "nope";
    T_EQ_I64(sts_timeline_open(dir, &o, &tl, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "nope");
    rmdir(dir);
}

/* JSON through the real reader, when it is built. */
static sts_timeline *open_json(const char *json)
{
    const char *p = tmp_write("t.json", json, strlen(json));
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_timeline_open(p, NULL, &tl, &err);
    remove(p);
    if (st != STS_OK) {
        if (strstr(err.message, "not built")) return NULL;
        fprintf(stderr, "open: %s\n", err.message);
    }
    return tl;
}

TEST(json_driven_nesting)
{
    sts_timeline *tl = open_json("[{\"ph\":\"X\",\"name\":\"child\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":6},"
                                 "{\"ph\":\"X\",\"name\":\"parent\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
                                 "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":2,\"ts\":1},"
                                 "{\"ph\":\"X\",\"name\":\"in\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":3},"
                                 "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":9},"
                                 "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":9}]");
    if (!tl) T_SKIP("the Chrome JSON reader is not built yet");
    const sts_timeline_info *info = sts_timeline_get_info(tl);
    T_EQ_I64(info->resolution_ns, 1000);
    T_EQ_U64(info->unmatched_end, 1);
    /* listed first and longer, so "child" (6 us) is the parent of "parent" (5 us) */
    T_EQ_U64(get(tl, "parent")->parent, (uint64_t)find(tl, "child"));
    T_EQ_I64(get(tl, "open")->dur, 8000);
    T_EQ_U64(get(tl, "in")->parent, (uint64_t)find(tl, "open"));
    T_EQ_I64(info->ts_min, 1000);
    T_EQ_I64(info->ts_max, 16000);
    T_TRUE(well_formed(tl));
    sts_timeline_free(tl);
}

TEST(json_driven_clamp_and_overlap)
{
    sts_timeline *tl =
        open_json("{\"traceEvents\":["
                  "{\"ph\":\"X\",\"name\":\"p\",\"pid\":\"CPU functions\",\"tid\":1,\"ts\":100,\"dur\":10},"
                  "{\"ph\":\"X\",\"name\":\"c\",\"pid\":\"CPU functions\",\"tid\":1,\"ts\":105,\"dur\":6},"
                  "{\"ph\":\"X\",\"name\":\"q\",\"pid\":\"CPU functions\",\"tid\":1,\"ts\":200,\"dur\":10},"
                  "{\"ph\":\"X\",\"name\":\"o\",\"pid\":\"CPU functions\",\"tid\":1,\"ts\":205,\"dur\":10}]}");
    if (!tl) T_SKIP("the Chrome JSON reader is not built yet");
    T_EQ_U64(sts_timeline_get_info(tl)->clamped, 1);
    T_EQ_U64(sts_timeline_get_info(tl)->overlaps, 1);
    T_EQ_I64(get(tl, "c")->dur, 5000);
    T_TRUE(get(tl, "o")->flags & STS_SLICE_OVERLAP);
    sts_timeline_free(tl);
    tl = open_json("[{\"ph\":\"X\",\"name\":\"p\",\"pid\":1,\"tid\":1,\"ts\":0.1,\"dur\":0.1},"
                   "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":0.15,\"dur\":0.051},"
                   "{\"ph\":\"X\",\"name\":\"q\",\"pid\":1,\"tid\":1,\"ts\":0.3,\"dur\":0.1},"
                   "{\"ph\":\"X\",\"name\":\"o\",\"pid\":1,\"tid\":1,\"ts\":0.35,\"dur\":0.052}]");
    if (!tl) return;
    T_EQ_I64(sts_timeline_get_info(tl)->resolution_ns, 1);
    T_EQ_U64(sts_timeline_get_info(tl)->clamped, 1);
    T_EQ_U64(sts_timeline_get_info(tl)->overlaps, 1);
    sts_timeline_free(tl);
}

TEST(fixture_torch_lesson)
{
    const char *fx = t_fixtures();
    if (!fx) T_SKIP("no fixtures");
    char path[4096];
    if (snprintf(path, sizeof path, "%s/traces/torch-legacy/torch_lesson.json", fx) >= (int)sizeof path ||
        access(path, R_OK) != 0)
        T_SKIP("torch-legacy/torch_lesson.json missing");
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open(path, NULL, &tl, &err) != STS_OK) {
        if (strstr(err.message, "not built")) T_SKIP("the Chrome JSON reader is not built yet");
        T_FAIL_AT("%s", err.message);
        return;
    }
    sts_steps *s = steps_of(tl, NULL);
    T_TRUE(s && sts_steps_rule(s) == STS_STEP_RULE_REPEATED);
    size_t n = 0, nc;
    const sts_step *st = s ? sts_steps_list(s, &n) : NULL;
    const sts_step_child *ch = s ? sts_steps_children(s, &nc) : NULL;
    T_EQ_U64(n, 4);
    for (size_t k = 0; k < n; k++) {
        T_EQ_STR(sts_timeline_string(tl, st[k].name), "learner_step");
        long iw = -1, mw = -1;
        for (uint32_t c = st[k].first_child; c < st[k].first_child + st[k].child_count; c++) {
            if (strcmp(sts_timeline_string(tl, ch[c].name), "input_wait") == 0) iw = (long)c;
            if (strcmp(sts_timeline_string(tl, ch[c].name), "model_and_wait") == 0) mw = (long)c;
        }
        T_TRUE(iw >= 0 && mw > iw);
        T_GE_I64(st[k].unattributed_ns, 0);
        T_TRUE(st[k].naive_ns > st[k].dur);
    }
    sts_steps_free(s);
    sts_timeline_free(tl);
}

int main(void)
{
    RUN(child_before_parent_at_equal_ts);
    RUN(equal_ts_equal_dur_keeps_file_order);
    RUN(half_open_siblings);
    RUN(begin_end_matching);
    RUN(begin_end_sorted_by_time_not_file_order);
    RUN(unclosed_begin_runs_to_lane_end);
    RUN(one_us_overrun_clamped_in_whole_us_trace);
    RUN(five_us_overrun_is_an_overlap);
    RUN(overlap_without_a_holder_is_a_root);
    RUN(ns_resolution_one_ns_clamps_two_ns_overlaps);
    RUN(deep_nesting_without_recursion);
    RUN(random_forests_shuffled);
    RUN(random_forests_permuted_by_cycles);
    RUN(union_of_interval_list);
    RUN(medians_odd_and_even);
    RUN(self_time_and_name_summaries);
    RUN(busy_time_and_gaps);
    RUN(display_order);
    RUN(steps_from_profiler_step_names);
    RUN(steps_from_step_num_args);
    RUN(steps_from_repeated_name);
    RUN(steps_given_name_and_regex);
    RUN(no_steps_lists_candidates);
    RUN(open_errors_name_the_file);
    RUN(json_driven_nesting);
    RUN(json_driven_clamp_and_overlap);
    RUN(fixture_torch_lesson);
    return t_done();
}
