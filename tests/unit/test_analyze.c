/* The analyzer: self time, summaries, unions, gaps, steps, and the opener (finalize's
 * own tests are in test_model.c). Timelines are built with the model's builder API (as
 * readers fill them), and from JSON files when the reader is built. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/an_impl.h"
#include "model/finalize.h"
#include "model/timeline_builder.h"
#include "stepscope.h"
#include "stepscope/analyze.h"
#include "raw_timeline.h"
#include "test.h"

/* ---- building raw timelines ------------------------------------------------------ */

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

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Large arrays take the sampled selection (a sorted sample of 1,024 values at fixed
 * strides brackets the median, the rest is moved aside in branch-free passes): against
 * sorting, over spreads that make the bracket wide, narrow or one value (sorted,
 * reversed, organ pipe, extremes), and crafted ones whose sampled places hold only the
 * largest or only the smallest values, so that the bracket misses the median on one
 * side or the other; at odd and even sizes; the array after is the same values,
 * reordered. */
TEST(medians_of_large_arrays_match_sorting)
{
    static const size_t sizes[] = { 8191, 8192, 8193, 50000, 200001 };
    uint64_t r = 0x243f6a8885a308d3u;
    for (int dist = 0; dist < 9; dist++)
        for (size_t z = 0; z < 5; z++) {
            size_t n = sizes[z];
            int64_t *v = malloc(n * sizeof *v), *sorted = malloc(n * sizeof *v), *after = malloc(n * sizeof *v);
            unsigned char *sampled = calloc(n, 1);
            for (size_t j = 0; j < 1024; j++) /* where the selection samples, as lib/analyze/exact_stats.c does */
                sampled[j * n / 1024 + n / 1024 / 2] = 1;
            for (size_t i = 0; i < n; i++) {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                int64_t x = dist == 0   ? (int64_t)(r >> 1)                                           /* wide */
                            : dist == 1 ? 5000 + (int64_t)(r % 50)                                    /* narrow */
                            : dist == 2 ? 42                                                          /* one value */
                            : dist == 3 ? (int64_t)i                                                  /* sorted */
                            : dist == 4 ? -(int64_t)i                                                 /* reversed */
                            : dist == 5 ? (int64_t)(i < n / 2 ? i : n - i)                            /* organ pipe */
                            : dist == 6 ? (r & 1 ? INT64_MAX : INT64_MIN + (int64_t)(r % 3))          /* extremes */
                            : dist == 7 ? (sampled[i] ? 1000000 + (int64_t)i : (int64_t)(r % 1000))   /* misses high */
                                        : (sampled[i] ? -1000000 - (int64_t)i : (int64_t)(r % 1000)); /* misses low */
                v[i] = sorted[i] = x;
            }
            qsort(sorted, n, sizeof *sorted, cmp_i64);
            int64_t hi = sorted[n / 2], lo = n % 2 ? hi : sorted[n / 2 - 1];
            /* floor((lo + hi) / 2), in 128 bits */
            __int128 sum = (__int128)lo + hi;
            int64_t want = (int64_t)(sum >= 0 ? sum / 2 : (sum - 1) / 2);
            int64_t got = sts_median_i64(v, n);
            if (got != want)
                T_FAIL_AT("spread %d, %zu values: median %lld, sorting says %lld", dist, n, (long long)got,
                          (long long)want);
            memcpy(after, v, n * sizeof *v);
            qsort(after, n, sizeof *after, cmp_i64);
            if (memcmp(after, sorted, n * sizeof *v) != 0)
                T_FAIL_AT("spread %d, %zu values: not the same values", dist, n);
            free(v);
            free(sorted);
            free(after);
            free(sampled);
        }
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

/* Self time by containment over every track of a thread: a clamped child, and a slice
 * that crosses its sibling and is spilled onto an overflow track. */
TEST(self_time_over_a_threads_tracks)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "parent", 0, 10000);
    X(tl, ln, "child", 5000, 6000); /* 1 us past its parent: clamped to 5 us */
    X(tl, ln, "grandchild", 6000, 4000);
    T_TRUE(fin(tl));
    int64_t self[3];
    T_EQ_I64(sts_self_times(tl, self, NULL), STS_OK);
    T_EQ_I64(self[find(tl, "parent")], 5000);
    T_EQ_I64(self[find(tl, "child")], 1000);
    T_EQ_I64(self[find(tl, "grandchild")], 4000);
    sts_timeline_free(tl);

    tl = mk(1);
    ln = lane(tl, 1, 1);
    X(tl, ln, "root", 0, 30000);
    X(tl, ln, "parent", 1000, 10000);
    X(tl, ln, "over", 6000, 10000); /* crosses parent's end by 5 us: an overflow track */
    X(tl, ln, "inside", 7000, 1000);
    T_TRUE(fin(tl));
    T_EQ_U64(sts_timeline_lanes(tl, NULL)[ln].track_count, 2);
    int64_t self4[4];
    T_EQ_I64(sts_self_times(tl, self4, NULL), STS_OK);
    /* root holds parent [1, 11) us and over [6, 16) us, which cross; what lies inside
     * root covers [1, 16) us once. */
    T_EQ_I64(self4[find(tl, "root")], 30000 - 15000);
    /* inside [7, 8) us lies inside both slices that cross, whatever track each is on. */
    T_EQ_I64(self4[find(tl, "parent")], 10000 - 1000);
    T_EQ_I64(self4[find(tl, "over")], 10000 - 1000);
    T_EQ_I64(self4[find(tl, "inside")], 1000);
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

/* Busy time takes a lane's slices in their stored (ts) order; a lane whose slices
 * are not in that order (no reader makes one) is sorted first, not summed wrong. */
TEST(busy_time_of_a_lane_out_of_ts_order)
{
    sts_timeline *tl = mk(1);
    uint32_t a = lane(tl, 1, 1);
    X(tl, a, "x", 0, 10000);
    X(tl, a, "y", 2000, 5000);
    X(tl, a, "z", 8000, 4000);
    T_TRUE(fin(tl));
    sts_busy before;
    T_EQ_I64(sts_busy_lane(tl, a, &before, NULL), STS_OK);
    T_EQ_I64(before.union_ns, 12000);
    sts_slice *s = tl->slices.v + tl->lanes.v[a].first_slice;
    T_EQ_I64(s[0].ts, 0);
    T_EQ_I64(s[2].ts, 8000);
    sts_slice first = s[0];
    s[0].ts = s[2].ts, s[0].dur = s[2].dur; /* z first, x last: taken in this order, 4000 */
    s[2].ts = first.ts, s[2].dur = first.dur;
    sts_busy after, each;
    T_EQ_I64(sts_busy_lane(tl, a, &after, NULL), STS_OK);
    T_EQ_I64(after.union_ns, 12000);
    T_EQ_I64(after.span_ns, 12000);
    T_EQ_U64(after.slices, 3);
    T_EQ_I64(sts_busy_each(tl, NULL, NULL, NULL, &each, NULL), STS_OK);
    T_EQ_I64(each.union_ns, 12000);
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
    /* Processes follow their first lane: pid 5 (lanes l2, l0), then pid 3. */
    uint32_t porder[2];
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_process_display_order(tl, order, porder, &err), STS_OK);
    T_EQ_U64(porder[0], tl->lanes.v[l0].process);
    T_EQ_U64(porder[1], tl->lanes.v[l1].process);
    T_TRUE(porder[0] != porder[1]);
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

/* An instant inside a step (a Kineto [memory] event) is a zero-length slice of the
 * step's thread, as in Perfetto, but a mark, not an interval: never one of the step's
 * children. */
TEST(steps_instants_are_not_children)
{
    static const char json[] =
        "{\"traceEvents\": ["
        "{\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},"
        "{\"ph\": \"X\", \"name\": \"work\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 20},"
        "{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 50, \"s\": \"t\"},"
        "{\"ph\": \"X\", \"name\": \"ProfilerStep#2\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 100},"
        "{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 205, \"s\": \"t\"},"
        "{\"ph\": \"X\", \"name\": \"work\", \"pid\": 1, \"tid\": 1, \"ts\": 210, \"dur\": 30}]}";
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_timeline_open_mem(json, sizeof json - 1, "instants.json", NULL, &tl, &err), STS_OK);
    if (!tl) return;
    size_t nsl, instants = 0;
    const sts_slice *sl = sts_timeline_slices(tl, &nsl);
    for (size_t i = 0; i < nsl; i++)
        instants += (sl[i].flags & STS_SLICE_INSTANT) != 0;
    T_EQ_U64(instants, 2); /* the marks are there, on the step's thread */
    sts_steps *s = steps_of(tl, NULL);
    T_TRUE(s != NULL);
    if (s) {
        size_t n, nc;
        const sts_step *st = sts_steps_list(s, &n);
        const sts_step_child *c = sts_steps_children(s, &nc);
        T_EQ_U64(n, 2);
        T_EQ_U64(nc, 2);
        for (size_t k = 0; k < n && k < 2; k++) {
            T_EQ_U64(st[k].child_count, 1);
            T_EQ_I64(st[k].children_ns, k == 0 ? 20000 : 30000);
            T_EQ_I64(st[k].unattributed_ns, st[k].dur - st[k].children_ns);
        }
        for (size_t k = 0; k < nc; k++)
            T_EQ_STR(sts_timeline_string(tl, c[k].name), "work");
        sts_steps_free(s);
    }
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

/* `unit` n times, then `tail`; the caller frees it. */
static char *repeated(const char *head, const char *unit, size_t n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *p = malloc(hl + ul * n + tl + 1);
    if (!p) return NULL;
    memcpy(p, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(p + hl + i * ul, unit, ul);
    memcpy(p + hl + ul * n, tail, tl + 1);
    return p;
}

/* glibc's regcomp recurses once per nested group and copies a group per count of its
 * interval: 30,000 `(` overflowed the stack (SIGSEGV) and ((a{0,100}){0,100}){0,100}
 * took half a minute. Such patterns are refused before it, naming what passed which
 * limit; the patterns at the limits still compile and match. */
TEST(patterns_deep_or_huge_are_refused_before_regcomp)
{
    static const struct {
        const char *head, *unit, *tail;
        size_t n;
        const char *why;
    } bad[] = {
        { "", "(", "", 30000, "nests groups more than 64 deep" },
        { "", "(", "a", 65, "nests groups more than 64 deep" },
        { "", "(a", ")", 65, "nests groups more than 64 deep" },
        { "x|", "(|", "", 30000, "nests groups more than 64 deep" },
        { "[a]", "(", "", 30000, "nests groups more than 64 deep" },
        { "", "a?", "", 65536, "more than 4096 positions" },
        { "", "()", "", 65536, "more than 4096 positions" },
        { "", "a|", "", 30000, "more than 4096 positions" },
        { "", "[[:alpha:]]*", "", 30000, "more than 4096 positions" },
        { "", "a", "", 5000, "more than 4096 positions" },
        { "((a{0,100}){0,100}){0,100}", "", "", 0, "more than 4096 positions" },
        { "a{0,32767}", "", "", 0, "more than 4096 positions" },
        { "(ab){2000}{2000}{2000}{2000}", "", "", 0, "more than 4096 positions" },
        { "a{99999999999999999999}", "", "", 0, "more than 4096 positions" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *p = repeated(bad[i].head, bad[i].unit, bad[i].n, bad[i].tail);
        T_TRUE(p != NULL);
        if (!p) return;
        sts_an_matcher m;
        sts_error err = STS_ERROR_INIT;
        T_EQ_I64(sts_an_matcher_init(&m, p, 0, "lane pattern", &err), STS_ERR_INVALID_ARG);
        T_CONTAINS(err.message, "lane pattern '");
        T_CONTAINS(err.message, "too complex for the regular-expression engine");
        T_CONTAINS(err.message, bad[i].why);
        free(p);
    }
    /* At the limits, and what only looks deep: brackets and escapes open no group. */
    static const struct {
        const char *head, *unit, *tail;
        size_t n;
        const char *subject;
        int matches;
    } good[] = {
        { "", "(", "a", 64, "xa", 1 },
        { "", "(a", "", 0, "a", 1 },
        { "", "[(]", "", 3000, "((((", 0 },
        { "", "\\(", "", 2000, "((", 0 },
        { "", "a?", "b", 2000, "aab", 1 },
        { "", "a", "", 4096, "a", 0 },
        { "(a{0,60}){0,60}b", "", "", 0, "aaab", 1 },
        { "^learner_st.p$", "", "", 0, "learner_step", 1 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *p = repeated(good[i].head, good[i].unit, good[i].n, good[i].tail);
        if (good[i].n && strcmp(good[i].unit, "(") == 0) {
            /* close the 64 groups */
            char *q = repeated(p, ")", good[i].n, "");
            free(p);
            p = q;
        }
        T_TRUE(p != NULL);
        if (!p) return;
        sts_an_matcher m;
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_an_matcher_init(&m, p, 0, "lane pattern", &err);
        if (st != STS_OK) T_FAIL_AT("pattern %zu refused: %s", i, err.message);
        if (st == STS_OK) {
            T_EQ_I64(sts_an_matcher_match(&m, good[i].subject), good[i].matches);
            sts_an_matcher_release(&m);
        }
        free(p);
    }
    /* From each public entry point that takes a pattern. */
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    lesson_steps(tl, ln, 0);
    T_TRUE(fin(tl));
    char *deep = repeated("", "(", 30000, "");
    T_TRUE(deep != NULL);
    if (!deep) return;
    sts_error err = STS_ERROR_INIT;
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = deep;
    sts_steps *s = NULL;
    T_EQ_I64(sts_steps_find(tl, &o, &s, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "step '((((");
    T_CONTAINS(err.message, "(30000 bytes) is too complex");
    uint32_t *lanes = NULL;
    size_t nl = 0;
    sts_error_clear(&err);
    T_EQ_I64(sts_lanes_matching(tl, deep, &lanes, &nl, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "too complex");
    free(lanes);
    sts_scope sc = STS_SCOPE_INIT;
    sc.name = deep;
    sts_name_summary *names = NULL;
    size_t nn = 0;
    sts_error_clear(&err);
    T_EQ_I64(sts_name_summaries_in(tl, &sc, &names, &nn, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "name pattern '((((");
    free(names);
    free(deep);
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
        /* No document for no steps, and not a byte of one. */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        sts_jsonw *w = f ? sts_jsonw_create(f, STS_JSON_COMPACT) : NULL;
        sts_error err = STS_ERROR_INIT;
        T_TRUE(w != NULL);
        if (w) {
            T_EQ_I64(sts_steps_write_json(w, tl, s, 0, &err), STS_ERR_INVALID_ARG);
            T_CONTAINS(err.message, "no steps");
            fflush(f);
            T_EQ_U64(len, 0);
        }
        sts_jsonw_free(w);
        if (f) fclose(f);
        free(buf);
        T_EQ_STR(sts_step_rule_description(STS_STEP_RULE_NONE), "no steps found");
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

TEST(fixture_torch_lesson)
{
    const char *fx = t_fixtures();
    if (!fx) T_SKIP("no fixtures (see docs/fixtures.md)");
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

/* ---- numbered names ----------------------------------------------------------------- */

TEST(numbered_prefix_rule)
{
    static const struct {
        const char *name;
        size_t prefix;
    } cases[] = { { "ProfilerStep#3", 12 }, { "a#0", 1 },   { "x#y#12", 3 }, { "#7", 0 },    { "v#1x", 0 },
                  { "step#", 0 },           { "plain", 0 }, { "a#-1", 0 },   { "ab#007", 2 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (sts_an_numbered_prefix(cases[i].name) != cases[i].prefix)
            T_FAIL_AT("%s: prefix %zu, expected %zu", cases[i].name, sts_an_numbered_prefix(cases[i].name),
                      cases[i].prefix);
}

/* Random Step#K slices on several lanes, a lone Alone#1 and plain names: by
 * STS_GROUP_NUMBERED one Step#N row whose count, total, extremes and median are those
 * of all Step#K durations (sorted here), Alone#1 its own row, and the same rows for
 * any number of threads. */
TEST(numbered_names_one_row_any_threads)
{
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (int round = 0; round < 20; round++) {
        sts_timeline *tl = mk(0);
        uint32_t ln[4];
        for (int l = 0; l < 4; l++)
            ln[l] = lane(tl, 1, l + 1);
        int64_t durs[400];
        size_t nd = 0;
        for (int l = 0; l < 4; l++)
            for (int k = 0; k < 50 + round; k++) {
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                int64_t d = 10 + (int64_t)(seed % 900);
                char nm[32];
                snprintf(nm, sizeof nm, "Step#%d", (int)(seed >> 40) % 17);
                X(tl, ln[l], k % 3 ? nm : "work", 1000 * k, d);
                if (k % 3 && nd < 400) durs[nd++] = d;
            }
        X(tl, ln[0], "Alone#1", 1000000, 5);
        T_TRUE(fin(tl));
        sts_name_summary *rows[2] = { NULL, NULL };
        size_t n[2] = { 0, 0 };
        for (int j = 0; j < 2; j++) {
            sts_scope sc = STS_SCOPE_INIT;
            sc.group = STS_GROUP_NUMBERED;
            sc.jobs = j ? 4 : 1;
            T_EQ_I64(sts_name_summaries_in(tl, &sc, &rows[j], &n[j], NULL), STS_OK);
        }
        T_EQ_U64(n[0], 3);
        T_TRUE(n[0] == n[1] && rows[0] && rows[1] && !memcmp(rows[0], rows[1], n[0] * sizeof *rows[0]));
        qsort(durs, nd, sizeof *durs, cmp_i64);
        int64_t sum = 0;
        for (size_t i = 0; i < nd; i++)
            sum += durs[i];
        int seen = 0;
        for (size_t i = 0; rows[0] && i < n[0]; i++) {
            char buf[64];
            const char *label = sts_name_summary_label(tl, &rows[0][i], buf, sizeof buf);
            if (!strcmp(label, "Step#N")) {
                seen |= 1;
                T_EQ_U64(rows[0][i].grouped, STS_NAME_GROUPED_NUMBERED);
                T_EQ_U64(rows[0][i].count, nd);
                T_EQ_I64(rows[0][i].total_ns, sum);
                T_EQ_I64(rows[0][i].min_ns, durs[0]);
                T_EQ_I64(rows[0][i].max_ns, durs[nd - 1]);
                T_EQ_I64(rows[0][i].median_ns, sts_median_i64(durs, nd));
            } else if (!strcmp(label, "Alone#1")) {
                seen |= 2;
                T_EQ_U64(rows[0][i].grouped, 0);
            }
        }
        T_EQ_I64(seen, 3);
        free(rows[0]);
        free(rows[1]);
        sts_timeline_free(tl);
    }
}

int main(void)
{
    RUN(union_of_interval_list);
    RUN(numbered_prefix_rule);
    RUN(numbered_names_one_row_any_threads);
    RUN(medians_odd_and_even);
    RUN(medians_of_large_arrays_match_sorting);
    RUN(self_time_and_name_summaries);
    RUN(self_time_over_a_threads_tracks);
    RUN(busy_time_and_gaps);
    RUN(busy_time_of_a_lane_out_of_ts_order);
    RUN(display_order);
    RUN(steps_from_profiler_step_names);
    RUN(steps_instants_are_not_children);
    RUN(steps_from_step_num_args);
    RUN(steps_from_repeated_name);
    RUN(steps_given_name_and_regex);
    RUN(patterns_deep_or_huge_are_refused_before_regcomp);
    RUN(no_steps_lists_candidates);
    RUN(open_errors_name_the_file);
    RUN(fixture_torch_lesson);
    return t_done();
}
