/* The model: finalize builds Perfetto's slice table (nesting, B/E matching by name and
 * category, misplaced ends, overflow tracks, instants and async tracks, the rounding
 * tolerance, children kept inside parents, the final order); the permutations; checked
 * time arithmetic; and properties over thousands of random traces, including that the
 * Chrome JSON and XSpace readers give the same model for the same events. Timelines are
 * built with the model's builder API (as readers fill them), and from JSON files. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/finalize.h"
#include "model/finalize_impl.h"
#include "model/timeline_builder.h"
#include "stepscope.h"
#include "stepscope/write.h"
#include "raw_timeline.h"
#include "test.h"
#include "tl_same.h"

/* ---- building raw timelines ------------------------------------------------------ */

static void B(sts_timeline *tl, uint32_t ln, const char *name, int64_t ts)
{
    add_slice(tl, ln, name, ts, -1)->flags = STS_SLICE_FROM_BE;
}

static void Bc(sts_timeline *tl, uint32_t ln, const char *name, const char *cat, int64_t ts)
{
    sts_slice *s = add_slice(tl, ln, name, ts, -1);
    s->flags = STS_SLICE_FROM_BE;
    s->cat = str(tl, cat);
}

/* An E with a name and category (NULL: absent). */
static void En(sts_timeline *tl, uint32_t ln, const char *name, const char *cat, int64_t ts)
{
    sts_end_event *e = STS_VEC_PUSH(tl->ends);
    e->ts = ts;
    e->lane = ln;
    e->seq = (uint32_t)tl->info.events++;
    e->name = name ? str(tl, name) : 0;
    e->cat = cat ? str(tl, cat) : 0;
}

static void E(sts_timeline *tl, uint32_t ln, int64_t ts)
{
    En(tl, ln, NULL, NULL, ts);
}

static void I(sts_timeline *tl, uint32_t ln, const char *name, int64_t ts, char scope)
{
    sts_instant *in = STS_VEC_PUSH(tl->instants);
    in->ts = ts;
    in->name = str(tl, name);
    in->lane = ln;
    in->args = STS_NONE;
    in->seq = (uint32_t)tl->info.events++;
    in->scope = scope;
}

static void A(sts_timeline *tl, uint32_t ln, char ph, const char *name, const char *id, uint8_t kind, int64_t ts)
{
    sts_async *a = STS_VEC_PUSH(tl->asyncs);
    a->ts = ts;
    a->name = str(tl, name);
    a->cat = str(tl, "c");
    a->id = str(tl, id);
    a->id_kind = kind;
    a->lane = ln;
    a->args = STS_NONE;
    a->seq = (uint32_t)tl->info.events++;
    a->phase = ph;
}

static int fin(sts_timeline *tl)
{
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_tl_finalize(tl, &err);
    if (st != STS_OK) fprintf(stderr, "finalize: %s\n", err.message);
    return st == STS_OK;
}

/* Index of the (last) slice with this name, or -1. */
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

static const sts_track *track_of(const sts_timeline *tl, const char *name)
{
    const sts_slice *s = get(tl, name);
    return s ? &sts_timeline_tracks(tl, NULL)[s->track] : NULL;
}

/* Whether c lies inside p: it starts in [p.ts, p.end) (two zero-length slices at one
 * instant stack) and ends by p's end. */
static int inside(const sts_slice *c, const sts_slice *p)
{
    int64_t pend = p->ts + p->dur;
    if (c->ts < p->ts || c->ts + c->dur > pend) return 0;
    return c->ts < pend || (p->dur == 0 && c->dur == 0);
}

/* The invariants stepscope/timeline.h promises after loading; "" or what broke. */
static const char *broken(const sts_timeline *tl)
{
    size_t n, nl, nt;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_lane *l = sts_timeline_lanes(tl, &nl);
    const sts_track *t = sts_timeline_tracks(tl, &nt);
    size_t covered = 0, tracks = 0;
    uint32_t *per_track = calloc(nt + 1, sizeof *per_track);
    const char *why = "";
    for (size_t k = 0; k < nl && !*why; k++) {
        if (l[k].first_slice != covered) why = "lanes' slices not contiguous";
        if (l[k].first_track != tracks || l[k].track_count == 0) why = "lanes' tracks not contiguous";
        for (uint32_t x = l[k].first_track; x < l[k].first_track + l[k].track_count && x < nt; x++)
            if (t[x].lane != k) why = "a track names another lane";
        for (uint32_t i = l[k].first_slice; i < l[k].first_slice + l[k].slice_count && !*why; i++) {
            if (s[i].lane != k) why = "a slice names another lane";
            if (s[i].track < l[k].first_track || s[i].track >= l[k].first_track + l[k].track_count)
                why = "a slice's track is not its lane's";
            if (i > l[k].first_slice && s[i].ts < s[i - 1].ts) why = "not ordered by ts";
            if (s[i].dur < 0) why = "a negative duration";
            if (s[i].track < nt) per_track[s[i].track]++;
            if (s[i].parent != STS_NONE) {
                const sts_slice *p = &s[s[i].parent];
                if (s[i].parent >= i) why = "a parent after its child";
                if (p->track != s[i].track) why = "a parent on another track";
                if (!inside(&s[i], p)) why = "a child outside its parent";
                if (p->depth < 65535 && s[i].depth != p->depth + 1) why = "depth is not the parent's + 1";
            } else if (s[i].depth != 0) {
                why = "a root below depth 0";
            }
        }
        covered += l[k].slice_count;
        tracks += l[k].track_count;
    }
    for (size_t x = 0; x < nt && !*why; x++)
        if (per_track[x] != t[x].slice_count) why = "a track's slice count is wrong";
    free(per_track);
    if (!*why && covered != n) why = "slices outside every lane";
    if (!*why && tracks != nt) why = "tracks outside every lane";
    return why;
}

#define T_WELL_FORMED(tl)                                             \
    do {                                                              \
        const char *t_why = broken(tl);                               \
        if (*t_why) T_FAIL_AT("timeline not well formed: %s", t_why); \
    } while (0)

/* ---- nesting ----------------------------------------------------------------------- */

/* A NUL inside a name (XSpace strings may hold one) is U+2400, visible: downstream
 * every name is a C string, and "k\0a" and "k\0b" were two names both "k". */
TEST(intern_shows_nul_visibly)
{
    sts_timeline *tl = sts_tl_new("t.json", "chrome-json", STS_ARGS_KNOWN);
    T_TRUE(tl != NULL);
    uint32_t a = sts_tl_intern(tl, "k\0a", 3), b = sts_tl_intern(tl, "k\0b", 3);
    uint32_t lead = sts_tl_intern(tl, "\0\0", 2), plain = sts_tl_intern(tl, "k", 1);
    T_TRUE(a != b && a != plain && b != plain);
    T_EQ_STR(sts_strtab_get(&tl->strings, a), "k\xe2\x90\x80"
                                              "a");
    T_EQ_STR(sts_strtab_get(&tl->strings, b), "k\xe2\x90\x80"
                                              "b");
    T_EQ_STR(sts_strtab_get(&tl->strings, lead), "\xe2\x90\x80\xe2\x90\x80");
    T_EQ_I64(sts_tl_intern(tl, "k\0a", 3), a);
    sts_tl_free(tl);
}

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
    T_WELL_FORMED(tl);
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
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

TEST(zero_length_slices_stack_at_one_instant)
{
    /* Perfetto: two zero-length slices at one instant nest; anything longer pops them. */
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    I(tl, ln, "i1", 5000, 't');
    I(tl, ln, "i2", 5000, 't');
    X(tl, ln, "x", 5000, 1000);
    T_TRUE(fin(tl));
    T_EQ_U64(get(tl, "i2")->parent, (uint64_t)find(tl, "i1"));
    T_EQ_U64(get(tl, "x")->parent, STS_NONE); /* X sorts first at equal ts, then holds the instants */
    T_EQ_U64(get(tl, "i1")->parent, (uint64_t)find(tl, "x"));
    T_TRUE(get(tl, "i1")->flags & STS_SLICE_INSTANT);
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

TEST(begin_end_innermost_without_names)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1), other = lane(tl, 1, 2);
    B(tl, ln, "outer", 0);
    B(tl, ln, "inner", 1000);
    B(tl, other, "elsewhere", 1500);
    E(tl, ln, 3000); /* closes inner: the innermost open B of its lane */
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
    if (nw) T_CONTAINS(w[0], "1 E event matched no open B");
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

TEST(end_matches_name_and_category)
{
    /* Perfetto's MatchingIncompleteSliceIndex: the innermost open B whose category
     * equals the E's (when it has one) and whose name equals the E's (when it has one). */
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    Bc(tl, ln, "outer", "a", 0);
    Bc(tl, ln, "inner", "b", 1000);
    En(tl, ln, "Asub", NULL, 2000);  /* no B of that name: ignored */
    En(tl, ln, "inner", "a", 2500);  /* name matches inner, category does not: ignored */
    En(tl, ln, "outer", NULL, 6000); /* closes outer, though inner is open above it */
    X(tl, ln, "later", 7000, 1000);  /* comes after outer's end: inner is cut there */
    T_TRUE(fin(tl));
    T_EQ_I64(get(tl, "outer")->dur, 6000);
    T_EQ_I64(get(tl, "inner")->dur, 5000); /* cut at outer's end: a misplaced E */
    T_TRUE(get(tl, "inner")->flags & STS_SLICE_TRUNCATED);
    T_TRUE(!(get(tl, "inner")->flags & STS_SLICE_UNCLOSED));
    T_EQ_U64(get(tl, "later")->parent, STS_NONE);
    T_EQ_U64(tl->info.unmatched_end, 2);
    T_EQ_U64(tl->info.misplaced_end, 1);
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

TEST(an_e_closes_a_b_named_like_its_start_only_when_equal)
{
    /* chrome/simple_trace.json: an E named "Asub" does not close a B named "Asub with a
     * name that wont fit"; a nameless E closes whatever is innermost. */
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    B(tl, ln, "Asub with a name that wont fit", 0);
    En(tl, ln, "Asub", NULL, 1000);
    T_TRUE(fin(tl));
    T_TRUE(get(tl, "Asub with a name that wont fit")->flags & STS_SLICE_UNCLOSED);
    T_EQ_U64(tl->info.unmatched_end, 1);
    sts_timeline_free(tl);
}

TEST(begin_end_sorted_by_time_not_file_order)
{
    /* Perfetto sorts by timestamp before matching: a later-listed earlier pair still
     * matches itself. At equal ts an E sorts before a B (the sorter's phase class). */
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
    T_EQ_U64(tl->info.overflow_tracks, 0);
    T_EQ_I64(tl->info.resolution_ns, 1000);
    sts_timeline_free(tl);
}

TEST(five_us_overrun_spills_to_an_overflow_track)
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
    T_EQ_U64(o->parent, STS_NONE);
    T_EQ_I64(o->depth, 0);
    const sts_track *t = track_of(tl, "over");
    T_EQ_I64(t->kind, STS_TRACK_OVERFLOW);
    T_EQ_I64(t->index, 1);
    T_EQ_U64(t->lane, ln);
    T_EQ_I64(track_of(tl, "root")->kind, STS_TRACK_THREAD);
    /* Later slices try the thread's own track first. */
    T_EQ_U64(get(tl, "inside")->parent, (uint64_t)find(tl, "parent"));
    T_EQ_I64(get(tl, "inside")->depth, 2);
    T_EQ_U64(tl->info.overlaps, 1);
    T_EQ_U64(tl->info.overflow_tracks, 1);
    T_EQ_U64(sts_timeline_lanes(tl, NULL)[ln].track_count, 2);
    size_t nov;
    const sts_overlap *ov = sts_timeline_overlaps(tl, &nov);
    T_EQ_U64(nov, 1);
    if (nov) {
        T_EQ_U64(ov[0].slice, (uint64_t)find(tl, "over"));
        T_EQ_U64(ov[0].parent, (uint64_t)find(tl, "parent"));
        T_EQ_I64(ov[0].overrun_ns, 5000);
    }
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

TEST(overflow_tracks_nest_follow_or_stack_up)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "p", 0, 100000);
    X(tl, ln, "a", 50000, 100000); /* overlaps p: overflow 1 */
    X(tl, ln, "b", 60000, 100000); /* overlaps p; on overflow 1 it overlaps a: overflow 2 */
    X(tl, ln, "c", 70000, 10000);  /* nests in p on the thread's own track */
    X(tl, ln, "d", 90000, 20000);  /* overlaps p; nests inside a on overflow 1 */
    X(tl, ln, "e", 140000, 5000);  /* p has ended: the thread's own track */
    X(tl, ln, "f", 150000, 30000); /* a has ended on overflow 1 ... */
    T_TRUE(fin(tl));
    T_EQ_I64(track_of(tl, "a")->index, 1);
    T_EQ_I64(track_of(tl, "b")->index, 2);
    T_EQ_I64(track_of(tl, "c")->kind, STS_TRACK_THREAD);
    T_EQ_I64(get(tl, "c")->depth, 1);
    T_EQ_I64(track_of(tl, "d")->index, 1);
    T_EQ_U64(get(tl, "d")->parent, (uint64_t)find(tl, "a"));
    T_EQ_I64(track_of(tl, "e")->kind, STS_TRACK_THREAD);
    T_EQ_I64(get(tl, "e")->depth, 0);
    T_EQ_I64(track_of(tl, "f")->kind, STS_TRACK_THREAD); /* nothing open there at 150 us */
    T_EQ_U64(tl->info.overlaps, 3);
    T_EQ_U64(tl->info.overflow_tracks, 2);
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

/* Each spilled slice goes to the first overflow track where it nests in the innermost
 * open slice or follows them all: found in a tree of the tracks' tops, checked here
 * against that rule applied track by track (a stack per track, popped as the slices
 * go by). Roots follow each other on the thread's own track; every other slice starts
 * inside one and overruns it, so it spills, and ends before the next root: the
 * overflow tracks nest, follow, stack up and empty to fill again under the next root. */
TEST(overflow_tracks_first_fit_as_track_by_track)
{
    enum { ROOTS = 30, PER = 100, N = ROOTS * PER, P = 100000, L = 50000 };
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int ok = 1, deepest = 0, most = 0;
    for (int round = 0; round < 8 && ok; round++) {
        sts_timeline *tl = mk(0);
        uint32_t ln = lane(tl, 1, 1);
        static int64_t ts[N], end[N];
        for (int j = 0; j < ROOTS; j++) {
            X(tl, ln, "root", (int64_t)j * P, L);
            for (int k = 0; k < PER; k++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                int i = j * PER + k;
                ts[i] = (int64_t)j * P + 1 + k * (L / PER) + (int64_t)(rng % 50); /* distinct, ascending */
                end[i] = (int64_t)j * P + L + 2 + (int64_t)(rng >> 20) % (round % 2 ? 500 : P - L - 2);
                X(tl, ln, "s", ts[i], end[i] - ts[i]);
            }
        }
        T_TRUE(fin(tl));
        static int64_t top[N][64];
        static int depth[N];
        int ntracks = 0;
        size_t n;
        const sts_slice *sl = sts_timeline_slices(tl, &n);
        const sts_lane *l = &sts_timeline_lanes(tl, NULL)[0];
        for (int i = 0; i < N && ok; i++) {
            int t = 0;
            for (; t < ntracks; t++) {
                while (depth[t] && top[t][depth[t] - 1] <= ts[i])
                    depth[t]--;
                if (depth[t] == 0 || end[i] <= top[t][depth[t] - 1]) break;
            }
            if (t == ntracks) depth[ntracks++] = 0;
            const sts_slice *got = &sl[i + i / PER + 1]; /* by ts, each root before its slices */
            if (depth[t] == 64 || got->ts != ts[i] || got->track != l->first_track + 1 + (uint32_t)t ||
                got->depth != depth[t])
                ok = 0;
            if (depth[t] > deepest) deepest = depth[t];
            top[t][depth[t]++] = end[i];
        }
        if (ntracks > most) most = ntracks;
        T_EQ_U64(tl->info.overflow_tracks, (uint64_t)ntracks);
        sts_timeline_free(tl);
    }
    T_TRUE(ok);
    T_TRUE(deepest >= 3 && most >= 20); /* the shapes above were there to be checked */
}

/* Issue 34: a staircase, each slice overrunning the one before, puts each on a new
 * overflow track; each was found by trying every track in turn (6 MB took 40 s).
 * 400,000 steps took about 20 minutes that way and take a fraction of a second now. */
TEST(a_staircase_of_overlaps_on_400000_tracks)
{
    enum { N = 400000 };
    sts_timeline *tl = mk(0); /* 1 ns resolution: each 1 us overrun spills */
    uint32_t ln = lane(tl, 1, 1);
    for (int64_t k = 0; k < N; k++)
        X(tl, ln, "step", k * 1000, (N + 10) * 1000);
    T_TRUE(fin(tl));
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    T_EQ_U64(n, N);
    const sts_lane *l = &sts_timeline_lanes(tl, NULL)[0];
    T_EQ_U64(l->track_count, N);
    T_EQ_U64(tl->info.overlaps, N - 1);
    int ok = 1;
    for (uint32_t k = 0; k < N; k++)
        if (s[k].ts != k * 1000 || s[k].track != l->first_track + k || s[k].depth != 0) ok = 0;
    T_TRUE(ok);
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

TEST(children_kept_inside_parents)
{
    /* Perfetto's stack walk skips the complete slices under an open B, so x2 can run
     * past x1, and once the B is closed, its walk pops its top (x2) where the B ended,
     * leaving x3 a child of the ended B. stepscope cuts x2 at the B's end and moves x3
     * up to x1, the ancestor that holds it. */
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "x1", 0, 10000);
    B(tl, ln, "b", 2000);
    X(tl, ln, "x2", 3000, 17000);
    E(tl, ln, 5000);
    X(tl, ln, "x3", 6000, 1000);
    T_TRUE(fin(tl));
    T_EQ_I64(get(tl, "b")->dur, 3000);
    T_EQ_I64(get(tl, "x2")->dur, 2000);
    T_TRUE(get(tl, "x2")->flags & STS_SLICE_TRUNCATED);
    T_EQ_U64(get(tl, "x2")->parent, (uint64_t)find(tl, "b"));
    T_EQ_U64(get(tl, "x3")->parent, (uint64_t)find(tl, "x1"));
    T_EQ_I64(get(tl, "x3")->depth, 1);
    T_EQ_U64(tl->info.repaired, 2);
    T_WELL_FORMED(tl);
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
    sts_timeline_free(tl);
}

/* Issue 34: zero-length slices at one instant each nest in the one before, and each
 * walk of the stack once went through all of them (5 MB of them took 11 s, 21 MB more
 * than 120 s). 600,000 on a bare lane, and 600,000 over an open B (under which every
 * one is irregular), take half an hour each that way and a fraction of a second now:
 * the table is what the walk always gave, each inside the one before. */
TEST(a_million_zero_length_slices_at_one_instant)
{
    enum { N = 600000 };
    sts_timeline *tl = mk(1);
    uint32_t bare = lane(tl, 1, 1), under_b = lane(tl, 1, 2);
    for (int k = 0; k < N; k++)
        X(tl, bare, "z", 7000, 0);
    B(tl, under_b, "open", 7000);
    for (int k = 0; k < N; k++)
        X(tl, under_b, "z", 7000, 0);
    E(tl, under_b, 8000); /* at 7000 it would sort before the B, as in Perfetto */
    T_TRUE(fin(tl));
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    T_EQ_U64(n, 2 * N + 1);
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    int ok = 1;
    for (uint32_t l = 0; l < 2; l++) {
        uint32_t first = lanes[l].first_slice, off = lanes[l].slice_count == N + 1u; /* the B first */
        for (uint32_t k = off; k < lanes[l].slice_count; k++) {
            const sts_slice *z = &s[first + k];
            uint32_t d = k > 65535 ? 65535 : k;
            if (z->ts != 7000 || z->dur != 0 || z->depth != d || z->parent != (k ? first + k - 1 : STS_NONE)) ok = 0;
        }
        if (off && (s[first].dur != 1000 || (s[first].flags & STS_SLICE_UNCLOSED))) ok = 0; /* the E closed it */
    }
    T_TRUE(ok);
    sts_timeline_free(tl);
}

/* ---- instants and async tracks ------------------------------------------------------ */

TEST(instants_are_zero_length_slices_on_their_tracks)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 7, 1), ln2 = lane(tl, 7, 2);
    X(tl, ln, "work", 0, 10000);
    I(tl, ln, "mark", 5000, 't');
    I(tl, ln2, "proc", 6000, 'p');
    I(tl, ln, "global", 7000, 'g');
    T_TRUE(fin(tl));
    T_EQ_U64(get(tl, "mark")->parent, (uint64_t)find(tl, "work"));
    T_EQ_I64(get(tl, "mark")->dur, 0);
    const sts_track *p = track_of(tl, "proc"), *g = track_of(tl, "global");
    T_EQ_I64(p->kind, STS_TRACK_PROCESS_INSTANTS);
    T_EQ_I64(g->kind, STS_TRACK_GLOBAL_INSTANTS);
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    const sts_process *procs = sts_timeline_processes(tl, NULL);
    T_EQ_I64(lanes[p->lane].kind, STS_LANE_INSTANTS);
    T_EQ_STR(sts_timeline_string(tl, procs[lanes[p->lane].process].label), "7");
    T_TRUE(procs[lanes[g->lane].process].global);
    T_EQ_U64(tl->instants.n, 3); /* the raw list is kept */
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

TEST(async_slices_on_compressed_tracks)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1), ln2 = lane(tl, 2, 1);
    /* Two requests at once: two tracks of the set "req"; the third starts when the
     * first track is free and takes it. */
    A(tl, ln, 'b', "req", "1", STS_ASYNC_ID_STRING, 0);
    A(tl, ln2, 'b', "req", "2", STS_ASYNC_ID_STRING, 1000); /* another process: ids are global */
    A(tl, ln, 'n', "mark", "1", STS_ASYNC_ID_STRING, 2000);
    A(tl, ln, 'e', "req", "1", STS_ASYNC_ID_STRING, 3000);
    A(tl, ln, 'b', "req", "3", STS_ASYNC_ID_STRING, 4000);
    A(tl, ln, 'e', "req", "3", STS_ASYNC_ID_STRING, 5000);
    A(tl, ln2, 'e', "req", "2", STS_ASYNC_ID_STRING, 6000);
    /* Scoped to process 1 by an id2 "local" id. */
    A(tl, ln, 'b', "local", "9", STS_ASYNC_ID_LOCAL_NUMBER, 0);
    A(tl, ln, 'e', "local", "9", STS_ASYNC_ID_LOCAL_NUMBER, 500);
    T_TRUE(fin(tl));
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_track *t = sts_timeline_tracks(tl, NULL);
    int reqs = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(sts_timeline_string(tl, s[i].name), "req") != 0) continue;
        reqs++;
        T_TRUE(s[i].flags & STS_SLICE_ASYNC);
        T_EQ_I64(t[s[i].track].kind, STS_TRACK_ASYNC_GLOBAL);
        T_EQ_STR(sts_timeline_string(tl, t[s[i].track].name), "req");
        T_EQ_I64(s[i].dur, s[i].ts == 0 ? 3000 : s[i].ts == 1000 ? 5000 : 1000);
        T_EQ_I64(t[s[i].track].index, s[i].ts == 1000 ? 1 : 0);
    }
    T_EQ_I64(reqs, 3);
    T_EQ_U64(get(tl, "mark")->parent, 0); /* n nests in the open request of its track */
    T_TRUE(get(tl, "mark")->flags & STS_SLICE_INSTANT);
    T_EQ_I64(track_of(tl, "local")->kind, STS_TRACK_ASYNC_PROCESS);
    T_EQ_I64(get(tl, "local")->dur, 500);
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

/* Issue 34: async slices under N distinct ids open at once each take a new track; the
 * track of a cookie, then the first idle track, were searched track by track (200,000
 * took 21 s). Here 300,000 open at once, close, and 300,000 more under new ids take the
 * idle tracks lowest first: minutes that way, a fraction of a second now. */
TEST(async_slices_under_300000_ids_at_once)
{
    enum { N = 300000 };
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    char id[24];
    for (int k = 0; k < N; k++) {
        snprintf(id, sizeof id, "%d", k);
        A(tl, ln, 'b', "req", id, STS_ASYNC_ID_STRING, (int64_t)k * 1000);
    }
    for (int k = 0; k < N; k++) {
        snprintf(id, sizeof id, "%d", k);
        A(tl, ln, 'e', "req", id, STS_ASYNC_ID_STRING, (int64_t)(N + k) * 1000);
    }
    for (int k = 0; k < N; k++) {
        snprintf(id, sizeof id, "second-%d", k);
        A(tl, ln, 'b', "req", id, STS_ASYNC_ID_STRING, (int64_t)(2 * N + k) * 1000);
    }
    T_TRUE(fin(tl));
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_track *t = sts_timeline_tracks(tl, NULL);
    T_EQ_U64(n, 2 * N);
    int ok = 1, tracks_of_set = 0;
    for (size_t i = 0; i < n; i++) {
        const sts_track *tr = &t[s[i].track];
        int64_t k = s[i].ts / 1000, want = k < N ? k : k - 2 * N; /* the first wave's track, then again */
        if (tr->kind != STS_TRACK_ASYNC_GLOBAL || (int64_t)tr->index != want) ok = 0;
        if (k < N && s[i].dur != (int64_t)N * 1000) ok = 0; /* each closed by its own e */
        if (k >= N && !(s[i].flags & STS_SLICE_UNCLOSED)) ok = 0;
        if ((int64_t)tr->index + 1 > tracks_of_set) tracks_of_set = (int)tr->index + 1;
    }
    T_TRUE(ok);
    T_EQ_I64(tracks_of_set, N);
    sts_timeline_free(tl);
}

/* Labels as `slices --track` writes them. An async track is labelled by its set's name,
 * as trace_processor's `name` dimension of the track: the second track of set "A"
 * below is made by an event named "X" (Perfetto's track name), yet is in set A. */
TEST(track_labels)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1), ln2 = lane(tl, 1, 2);
    X(tl, ln2, "p", 0, 100000);
    X(tl, ln2, "o", 50000, 100000); /* overlaps p: overflow 1 */
    I(tl, ln2, "pi", 1000, 'p');
    I(tl, ln2, "gi", 2000, 'g');
    A(tl, ln, 'b', "A", "1", STS_ASYNC_ID_STRING, 0);
    A(tl, ln, 'e', "A", "1", STS_ASYNC_ID_STRING, 100);
    A(tl, ln, 'b', "A", "3", STS_ASYNC_ID_STRING, 200); /* cookie 3 takes track 0 */
    A(tl, ln, 'b', "X", "1", STS_ASYNC_ID_STRING, 300); /* cookie 1 again: track 1, made by X */
    A(tl, ln, 'e', "X", "1", STS_ASYNC_ID_STRING, 400);
    A(tl, ln, 'e', "A", "3", STS_ASYNC_ID_STRING, 500);
    A(tl, ln, 'b', "L", "9", STS_ASYNC_ID_LOCAL_NUMBER, 0);
    A(tl, ln, 'e', "L", "9", STS_ASYNC_ID_LOCAL_NUMBER, 50);
    T_TRUE(fin(tl));
    char buf[64];
    T_EQ_STR(sts_track_label(tl, track_of(tl, "p"), buf, sizeof buf), "thread");
    T_EQ_STR(sts_track_label(tl, track_of(tl, "o"), buf, sizeof buf), "overflow 1");
    T_EQ_STR(sts_track_label(tl, track_of(tl, "pi"), buf, sizeof buf), "instants");
    T_EQ_STR(sts_track_label(tl, track_of(tl, "gi"), buf, sizeof buf), "global instants");
    T_EQ_STR(sts_track_label(tl, track_of(tl, "A"), buf, sizeof buf), "global async 0 A");
    const sts_track *x = track_of(tl, "X");
    T_EQ_STR(sts_timeline_string(tl, x->name), "X");
    T_EQ_STR(sts_track_label(tl, x, buf, sizeof buf), "global async 1 A");
    T_EQ_STR(sts_track_label(tl, track_of(tl, "L"), buf, sizeof buf), "async 0 L");
    /* Cut to the buffer, always terminated; n == 0 writes nothing. */
    T_EQ_STR(sts_track_label(tl, x, buf, 8), "global ");
    buf[0] = '#';
    T_TRUE(sts_track_label(tl, x, buf, 0) == buf);
    T_EQ_I64(buf[0], '#');
    T_WELL_FORMED(tl);
    sts_timeline_free(tl);
}

/* ---- the final order ---------------------------------------------------------------- */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* The fallback permutation (no memory) and the fast one (tracked swaps, its arrays
 * allocated or in the caller's scratch) agree with gathering into a second array. */
TEST(permutations_agree)
{
    for (int round = 0; round < 50; round++) {
        size_t n = 1 + rnd() % 3000;
        uint32_t *order = malloc(n * sizeof *order), *copy = malloc(n * sizeof *copy);
        sts_slice *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *want = calloc(n, sizeof *want);
        for (size_t i = 0; i < n; i++) {
            order[i] = (uint32_t)i;
            a[i].ts = b[i].ts = (int64_t)i;
            a[i].name = b[i].name = (uint32_t)(rnd() % 1000);
        }
        for (size_t i = n; i > 1 && round % 5; i--) {
            size_t j = rnd() % i;
            uint32_t t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        for (size_t k = 0; k < n; k++)
            want[k] = a[order[k]];
        memcpy(copy, order, n * sizeof *copy);
        /* The swaps' two arrays: both allocated, one from the scratch, both from it. */
        size_t nscratch = round % 3 == 0 ? 0 : round % 3 == 1 ? n + rnd() % n : 2 * n + rnd() % 3;
        uint32_t *scratch = nscratch ? malloc(nscratch * sizeof *scratch) : NULL;
        for (size_t i = 0; i < nscratch; i++)
            scratch[i] = (uint32_t)rnd(); /* what the caller left there does not matter */
        T_EQ_I64(sts_fin_permute_swaps(a, order, n, scratch, nscratch), 0);
        free(scratch);
        sts_fin_permute_cycles(b, copy, n);
        T_TRUE(memcmp(a, want, n * sizeof *a) == 0);
        T_TRUE(memcmp(b, want, n * sizeof *b) == 0);
        free(order);
        free(copy);
        free(a);
        free(b);
        free(want);
    }
}

/* An order that names a slice twice, handed to a permutation in a child process, which
 * returns its wait status and what it wrote on stderr. The alarm turns a loop into a
 * failure: without its assert, the cycle walk never ends on such an order. */
static int broken_permutation(int cycles, char *msg, size_t cap)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        alarm(10);
        sts_slice s[3] = { { .ts = 0 }, { .ts = 1 }, { .ts = 2 } };
        if (cycles)
            sts_fin_permute_cycles(s, (uint32_t[]){ 1, 1, 0 }, 3); /* slice 1 twice, 2 never */
        else
            sts_fin_permute_swaps(s, (uint32_t[]){ 0, 0, 2 }, 3, NULL, 0); /* slice 0 twice */
        _exit(0);
    }
    close(fd[1]);
    size_t n = 0;
    for (ssize_t got; n + 1 < cap && (got = read(fd[0], msg + n, cap - 1 - n)) > 0;)
        n += (size_t)got;
    msg[n] = 0;
    close(fd[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return status;
}

/* Where STS_ASSERT is on (the sanitizer, fuzz and debug builds) each permutation aborts
 * on a broken order naming the file, the line and the condition. In release it is
 * compiled out: the swaps go on (leaving a table that holds one slice twice, which is
 * why the builds that test check it) and the cycle walk, which would loop, is not run. */
TEST(broken_permutation_fails_its_assert)
{
    static const char *const cond[2] = { "assertion failed: p >= k", "assertion failed: src < n && src != j" };
    char msg[4096];
#ifdef STS_ASSERTS
    for (int cycles = 0; cycles < 2; cycles++) {
        int status = broken_permutation(cycles, msg, sizeof msg);
        T_TRUE(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
        T_CONTAINS(msg, "stepscope: internal error: lib/model/finalize.c:");
        T_CONTAINS(msg, cond[cycles]);
    }
#else
    (void)cond;
    int status = broken_permutation(0, msg, sizeof msg);
    T_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    T_TRUE(strstr(msg, "internal error") == NULL);
#endif
}

/* How many slices of two finished timelines differ in any field or name (their counts
 * checked equal; *n receives a's count). */
static size_t slices_differ(const sts_timeline *a, const sts_timeline *b, size_t *n)
{
    size_t na, nb, bad = 0;
    const sts_slice *x = sts_timeline_slices(a, &na), *y = sts_timeline_slices(b, &nb);
    T_EQ_U64(na, nb);
    for (size_t i = 0; i < na && na == nb; i++)
        bad += x[i].ts != y[i].ts || x[i].dur != y[i].dur || x[i].lane != y[i].lane || x[i].depth != y[i].depth ||
               x[i].parent != y[i].parent || x[i].flags != y[i].flags || x[i].track != y[i].track ||
               strcmp(sts_timeline_string(a, x[i].name), sts_timeline_string(b, y[i].name)) != 0;
    *n = na;
    return bad;
}

/* A lane whose tokens are two ordered runs (its slices in time order, then its
 * instants, or then its E events) is merged, not sorted: the model must be the one a
 * sort gives, which the same events with the slices shuffled (many runs: sorted) show.
 * Every timestamp of a lane is distinct, so file order never breaks a tie. */
static void two_run_events(sts_timeline *tl, const uint32_t *lanes, int64_t (*ev)[4], size_t n, const size_t *perm,
                           int with_ends)
{
    for (size_t k = 0; k < n; k++) { /* slices, in the order perm gives */
        const int64_t *e = ev[perm[k]];
        char name[32];
        snprintf(name, sizeof name, "s%zu", perm[k]);
        if (e[2] == 0)
            X(tl, lanes[e[3]], name, e[0], e[1]);
        else if (e[2] == 1 && with_ends)
            B(tl, lanes[e[3]], name, e[0]);
    }
    for (size_t i = 0; i < n; i++) { /* then E events or instants, in time order */
        const int64_t *e = ev[i];
        char name[32];
        snprintf(name, sizeof name, "i%zu", i);
        if (e[2] == 1 && with_ends) E(tl, lanes[e[3]], e[0] + e[1]);
        if (e[2] == 2 && !with_ends) I(tl, lanes[e[3]], name, e[0], 't');
    }
}

TEST(two_ordered_runs_merge_as_a_sort)
{
    enum { N = 3000 };
    int64_t(*ev)[4] = malloc(N * sizeof *ev); /* ts, dur, kind (X, B/E, instant), lane */
    size_t *in_order = malloc(N * sizeof *in_order), *shuffled = malloc(N * sizeof *shuffled);
    for (int round = 0; round < 40; round++) {
        size_t n = 2 + rnd() % (N - 1);
        for (size_t i = 0; i < n; i++) { /* distinct times: 4 apart, a B's E lands at +1 */
            ev[i][0] = (int64_t)i * 4;
            ev[i][1] = 4 * (int64_t)(rnd() % 50) + 1;
            ev[i][2] = (int64_t)(rnd() % 3);
            ev[i][3] = (int64_t)(rnd() % 3);
            in_order[i] = shuffled[i] = i;
        }
        for (size_t i = n; i > 1; i--) {
            size_t j = rnd() % i, t = shuffled[i - 1];
            shuffled[i - 1] = shuffled[j];
            shuffled[j] = t;
        }
        int with_ends = round % 2;
        sts_timeline *a = mk(0), *b = mk(0);
        uint32_t la[3], lb[3];
        for (int l = 0; l < 3; l++)
            la[l] = lane(a, 1, 10 + l), lb[l] = lane(b, 1, 10 + l);
        two_run_events(a, la, ev, n, in_order, with_ends);
        two_run_events(b, lb, ev, n, shuffled, with_ends);
        T_TRUE(fin(a) && fin(b));
        size_t na, bad = slices_differ(a, b, &na);
        if (bad)
            T_FAIL_AT("round %d (%s): %zu of %zu slices differ", round, with_ends ? "E events" : "instants", bad, na);
        sts_timeline_free(a);
        sts_timeline_free(b);
    }
    free(ev);
    free(in_order);
    free(shuffled);
}

/* A lane whose order steps back thousands of times is sorted by insertion when its
 * records are near their places (finalize.c, insertion_within), else by ts digits
 * (radix_keys) when its span fits them, else merge-sorted: each way, the table must be
 * the one of the same events read in order, which needs no sort. Spans of one to four
 * digits and one beyond, times from below zero, B/E pairs and instants. */
TEST(a_lane_sorted_by_digits_gives_the_in_order_table)
{
    enum { N = 10000 }; /* about 5000 tokens a lane: past RADIX_MIN_RECORDS */
    static const int64_t stride[] = { 4, 4 << 10, 4 << 20, (int64_t)4 << 30, (int64_t)1 << 36 };
    int64_t(*ev)[4] = malloc(N * sizeof *ev);
    size_t *in_order = malloc(N * sizeof *in_order), *shuffled = malloc(N * sizeof *shuffled);
    for (size_t r = 0; r < 4 * sizeof stride / sizeof *stride; r++) {
        int64_t st = stride[r / 4];
        int with_ends = (int)(r % 2), local = (int)(r / 2 % 2);
        for (size_t i = 0; i < N; i++) { /* distinct times; a B's E lands 1 past a multiple */
            ev[i][0] = ((int64_t)i - N / 2) * st;
            ev[i][1] = st * (int64_t)(rnd() % 50) + 1;
            ev[i][2] = local ? 0 : (int64_t)(rnd() % 3); /* local: X only, no second run */
            ev[i][3] = (int64_t)(rnd() % 2);
            in_order[i] = shuffled[i] = i;
        }
        /* Shuffled (the digits sort it), or each block of 8 reversed, as a tracer writes
         * children before their parent (the insertion sort does). */
        for (size_t i = N; i > 1 && !local; i--) {
            size_t j = rnd() % i, t = shuffled[i - 1];
            shuffled[i - 1] = shuffled[j];
            shuffled[j] = t;
        }
        for (size_t i = 0; i + 8 <= N && local; i += 8)
            for (size_t k = 0; k < 8; k++)
                shuffled[i + k] = i + 7 - k;
        sts_timeline *a = mk(0), *b = mk(0);
        uint32_t la[2], lb[2];
        for (int l = 0; l < 2; l++)
            la[l] = lane(a, 1, 10 + l), lb[l] = lane(b, 1, 10 + l);
        two_run_events(a, la, ev, N, in_order, with_ends);
        two_run_events(b, lb, ev, N, shuffled, with_ends);
        T_TRUE(fin(a) && fin(b));
        size_t na, bad = slices_differ(a, b, &na);
        if (bad)
            T_FAIL_AT("stride %lld (%s, %s): %zu of %zu slices differ", (long long)st, with_ends ? "B/E" : "instants",
                      local ? "blocks reversed" : "shuffled", bad, na);
        sts_timeline_free(a);
        sts_timeline_free(b);
    }
    free(ev);
    free(in_order);
    free(shuffled);
}

/* Random forests on interleaved lanes, file order shuffled: every slice must come back
 * with the parent it was generated under. */
typedef struct gen {
    sts_timeline *tl;
    int64_t (*iv)[4]; /* ts, dur, lane, parent id */
    size_t n;
} gen;

static void grow_tree(gen *g, int64_t lo, int64_t hi, int64_t lane_id, int64_t parent, int depth)
{
    int64_t t = lo;
    while (t < hi && g->n < 20000) {
        int64_t len = 1 + (int64_t)(rnd() % (uint64_t)(hi - t));
        if (parent >= 0 && t == lo && len == hi - lo) len--; /* strictly shorter than the parent */
        if (len <= 0) break;
        size_t id = g->n++;
        g->iv[id][0] = t;
        g->iv[id][1] = len;
        g->iv[id][2] = lane_id;
        g->iv[id][3] = parent;
        if (depth < 6 && len > 4) grow_tree(g, t, t + len, lane_id, (int64_t)id, depth + 1);
        t += len + (int64_t)(rnd() % 3);
    }
}

TEST(random_forests_shuffled)
{
    gen g = { mk(0), malloc(20000 * sizeof *g.iv), 0 };
    for (int l = 0; l < 4; l++)
        grow_tree(&g, 0, 100000, l, -1, 0);
    size_t n = g.n;
    size_t *perm = malloc(n * sizeof *perm);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd() % i, t = perm[i - 1];
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
    T_WELL_FORMED(g.tl);
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
}

/* ---- properties over random traces ---------------------------------------------------- */

/* A random raw timeline: X slices nested, overlapping a little or a lot, of zero length
 * or at equal timestamps; B/E pairs with names and categories from a small set, E events
 * that match by name, close out of order or match nothing; instants of every scope; and
 * (when `async`) async b/e/n events. Every slice-making event carries a unique int arg
 * "k", so each can be found again. Up to max_lanes lanes and max_events events (> 5);
 * `sorted`: timestamps never decrease in file order. */
static sts_timeline *random_trace_into(sts_timeline *tl, int async, int max_lanes, size_t max_events, int sorted,
                                       size_t *nslices)
{
    static const char *names[] = { "a", "b", "c" };
    int whole = rnd() % 2;
    if (!whole) sts_tl_note_resolution(tl, 0);
    int64_t unit = whole ? 1000 : 1 + (int64_t)(rnd() % 700);
    uint32_t lanes[64];
    int nl = 1 + (int)(rnd() % (uint64_t)max_lanes);
    for (int l = 0; l < nl; l++)
        lanes[l] = lane(tl, 1 + l / 2, 1 + l);
    size_t n = 5 + rnd() % (max_events - 4), k = 0;
    uint32_t key = str(tl, "k");
    for (size_t i = 0; i < n; i++) {
        uint32_t ln = lanes[rnd() % (uint64_t)nl];
        int64_t ts = sorted ? (int64_t)(i * 40 / n) * unit : (int64_t)(rnd() % 40) * unit;
        static const int64_t durs[] = { 0, 1, 2, 3, 5, 10, 40 };
        sts_arg a = { 0 };
        a.key = key;
        a.type = STS_ARG_INT;
        a.v.i = (int64_t)k;
        uint64_t what = rnd() % 100;
        if (what < 40) {
            sts_slice *s = add_slice(tl, ln, names[rnd() % 3], ts, durs[rnd() % 7] * unit);
            s->args = sts_tl_add_args(tl, &a, 1);
            k++;
        } else if (what < 58) {
            sts_slice *s = add_slice(tl, ln, names[rnd() % 3], ts, -1);
            s->flags = STS_SLICE_FROM_BE;
            if (rnd() % 2) s->cat = str(tl, "x");
            s->args = sts_tl_add_args(tl, &a, 1);
            k++;
        } else if (what < 80) {
            En(tl, ln, rnd() % 2 ? names[rnd() % 3] : NULL, rnd() % 3 == 0 ? "x" : NULL, ts);
        } else if (what < 90 || !async) {
            static const char scopes[] = "ttpg";
            I(tl, ln, names[rnd() % 3], ts, scopes[rnd() % 4]);
            tl->instants.v[tl->instants.n - 1].args = sts_tl_add_args(tl, &a, 1);
            k++;
        } else {
            static const char phases[] = "bbeen";
            char ph = phases[rnd() % 5];
            static const uint8_t kinds[] = { STS_ASYNC_ID_STRING, STS_ASYNC_ID_NUMBER, STS_ASYNC_ID_LOCAL_STRING };
            A(tl, ln, ph, names[rnd() % 2], rnd() % 2 ? "1" : "2", kinds[rnd() % 3], ts);
            tl->asyncs.v[tl->asyncs.n - 1].args = ph == 'e' ? STS_NONE : sts_tl_add_args(tl, &a, 1);
            k += ph != 'e';
        }
    }
    *nslices = k;
    return tl;
}

static sts_timeline *random_trace(int async, int max_lanes, size_t max_events, int sorted, size_t *nslices)
{
    return random_trace_into(sts_tl_new("random.json", "chrome-json", STS_ARGS_ALL), async, max_lanes, max_events,
                             sorted, nslices);
}

/* The table, for a failure's message. */
static void dump(const sts_timeline *tl)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  %zu: lane %u track %u ts %lld dur %lld depth %u parent %d flags %#x '%s'\n", i, s[i].lane,
                s[i].track, (long long)s[i].ts, (long long)s[i].dur, s[i].depth, (int)s[i].parent, s[i].flags,
                sts_timeline_string(tl, s[i].name));
}

static int64_t key_of(const sts_timeline *tl, const sts_slice *s)
{
    const sts_arg *a = sts_timeline_find_arg(tl, s->args, "k");
    return a ? a->v.i : -1;
}

/* Every input slice once; children inside parents on their own track (closed
 * intervals, two zero-length slices at one instant stacking); siblings that never
 * overlap; flags and counts that agree; spilled slices only on overflow tracks. */
static const char *check_random(const sts_timeline *tl, size_t want)
{
    const char *why = broken(tl);
    if (*why) return why;
    size_t n, nt;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_track *t = sts_timeline_tracks(tl, &nt);
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    unsigned char *seen = calloc(want + 1, 1);
    uint32_t *last = malloc((n + nt + 1) * sizeof *last); /* per parent (or track, for roots): last child */
    memset(last, 0xff, (n + nt + 1) * sizeof *last);
    uint64_t unclosed = 0, overlap = 0, clamped = 0;
    for (size_t i = 0; i < n && !*why; i++) {
        int64_t k = key_of(tl, &s[i]);
        if (k < 0 || (size_t)k >= want || seen[k]++) why = "an input slice missing its key, or seen twice";
        unclosed += (s[i].flags & STS_SLICE_UNCLOSED) != 0;
        clamped += (s[i].flags & STS_SLICE_CLAMPED) != 0;
        if (s[i].flags & STS_SLICE_OVERLAP) {
            overlap++;
            if (t[s[i].track].kind != STS_TRACK_OVERFLOW) why = "a spilled slice off the overflow tracks";
        } else if (t[s[i].track].kind == STS_TRACK_OVERFLOW) {
            why = "an unspilled slice on an overflow track";
        }
        if ((s[i].flags & STS_SLICE_UNCLOSED) && !(s[i].flags & STS_SLICE_FROM_BE))
            why = "an unclosed slice not from a B";
        size_t group = s[i].parent == STS_NONE ? n + s[i].track : s[i].parent;
        if (last[group] != STS_NONE) {
            const sts_slice *prev = &s[last[group]];
            if (s[i].ts < prev->ts + prev->dur) why = "siblings that overlap";
        }
        last[group] = (uint32_t)i;
    }
    for (size_t k = 0; k < want && !*why; k++)
        if (!seen[k]) why = "an input slice missing from the table";
    if (!*why && (unclosed != in->unclosed_begin || clamped != in->clamped || overlap != in->overlaps))
        why = "flags and counts disagree";
    size_t nov;
    sts_timeline_overlaps(tl, &nov);
    if (!*why && nov != in->overlaps) why = "the overlap list and its count disagree";
    free(seen);
    free(last);
    return why;
}

TEST(random_traces_keep_the_invariants)
{
    for (int trial = 0; trial < 3000 && !t_current_failed; trial++) {
        size_t want;
        sts_timeline *tl = random_trace(1, 3, 64, 0, &want);
        if (!fin(tl)) {
            T_FAIL_AT("trial %d: finalize failed", trial);
        } else {
            const char *why = check_random(tl, want);
            if (*why) {
                T_FAIL_AT("trial %d: %s", trial, why);
                dump(tl);
            }
        }
        sts_timeline_free(tl);
    }
}

/* NULL when two finalized timelines hold the same table, else the first difference:
 * every slice field, track, overlap, lane range, count and warning. */
static const char *same_table(const sts_timeline *a, const sts_timeline *b)
{
    static char why[160];
#define SAME(what, i, x, y)                                                                                   \
    if ((x) != (y)) {                                                                                         \
        snprintf(why, sizeof why, "%s %zu: %lld != %lld", what, (size_t)(i), (long long)(x), (long long)(y)); \
        return why;                                                                                           \
    }
    SAME("slices", 0, a->slices.n, b->slices.n);
    for (size_t i = 0; i < a->slices.n; i++) {
        const sts_slice *x = &a->slices.v[i], *y = &b->slices.v[i];
        SAME("ts of slice", i, x->ts, y->ts);
        SAME("dur of slice", i, x->dur, y->dur);
        SAME("name of slice", i, x->name, y->name);
        SAME("lane of slice", i, x->lane, y->lane);
        SAME("parent of slice", i, x->parent, y->parent);
        SAME("args of slice", i, x->args, y->args);
        SAME("cat of slice", i, x->cat, y->cat);
        SAME("track of slice", i, x->track, y->track);
        SAME("depth of slice", i, x->depth, y->depth);
        SAME("flags of slice", i, x->flags, y->flags);
    }
    SAME("tracks", 0, a->tracks.n, b->tracks.n);
    for (size_t i = 0; i < a->tracks.n; i++) {
        const sts_track *x = &a->tracks.v[i], *y = &b->tracks.v[i];
        SAME("lane of track", i, x->lane, y->lane);
        SAME("kind of track", i, x->kind, y->kind);
        SAME("index of track", i, x->index, y->index);
        SAME("name of track", i, x->name, y->name);
        SAME("slice count of track", i, x->slice_count, y->slice_count);
    }
    SAME("overlaps", 0, a->overlaps.n, b->overlaps.n);
    for (size_t i = 0; i < a->overlaps.n; i++) {
        SAME("slice of overlap", i, a->overlaps.v[i].slice, b->overlaps.v[i].slice);
        SAME("parent of overlap", i, a->overlaps.v[i].parent, b->overlaps.v[i].parent);
        SAME("overrun of overlap", i, a->overlaps.v[i].overrun_ns, b->overlaps.v[i].overrun_ns);
    }
    SAME("lanes", 0, a->lanes.n, b->lanes.n);
    for (size_t i = 0; i < a->lanes.n; i++) {
        const sts_lane *x = &a->lanes.v[i], *y = &b->lanes.v[i];
        SAME("first track of lane", i, x->first_track, y->first_track);
        SAME("track count of lane", i, x->track_count, y->track_count);
        SAME("first slice of lane", i, x->first_slice, y->first_slice);
        SAME("slice count of lane", i, x->slice_count, y->slice_count);
    }
    const sts_timeline_info *x = &a->info, *y = &b->info;
    SAME("clamped", 0, x->clamped, y->clamped);
    SAME("overlaps counted", 0, x->overlaps, y->overlaps);
    SAME("unmatched ends", 0, x->unmatched_end, y->unmatched_end);
    SAME("unclosed begins", 0, x->unclosed_begin, y->unclosed_begin);
    SAME("misplaced ends", 0, x->misplaced_end, y->misplaced_end);
    SAME("overflow tracks", 0, x->overflow_tracks, y->overflow_tracks);
    SAME("repaired", 0, x->repaired, y->repaired);
    SAME("ts_min", 0, x->ts_min, y->ts_min);
    SAME("ts_max", 0, x->ts_max, y->ts_max);
    SAME("warnings", 0, a->warnings.n, b->warnings.n);
    for (size_t i = 0; i < a->warnings.n; i++)
        if (strcmp(a->warnings.v[i], b->warnings.v[i]) != 0) {
            snprintf(why, sizeof why, "warning %zu: '%.60s' != '%.60s'", i, a->warnings.v[i], b->warnings.v[i]);
            return why;
        }
#undef SAME
    return NULL;
}

/* Finalize on threads side by side (tl->jobs) gives the one thread's table, whatever
 * the number of parts: slices bucketed by parts of the array (each lane's order notes
 * joined across the parts), lanes replayed by parts (tracks renumbered once the tracks
 * before them are known, overlaps and counts added in lane order). The random traces
 * have up to 4 or up to 40 lanes, B/E, overlaps that spill to overflow tracks (so later
 * parts' tracks move), instants and async lanes. */
#if defined(__SANITIZE_THREAD__)
#define PARTS_TRIALS 100 /* each thread costs ThreadSanitizer a millisecond */
#elif defined(__SANITIZE_ADDRESS__)
#define PARTS_TRIALS 200
#else
#define PARTS_TRIALS 600
#endif

TEST(finalize_by_parts_gives_the_one_thread_table)
{
    static const int jobs[] = { 2, 3, 4, 7, 64, 1000 };
    int trials = PARTS_TRIALS, moved = 0;
    for (int trial = 0; trial < trials && !t_current_failed; trial++) {
        uint64_t seed = rnd_state;
        size_t want, want2;
        int lanes = trial % 2 ? 4 : 40; /* few lanes: the slices are bucketed by parts too */
        int sorted = trial % 4 >= 2;    /* in time order: lanes of two ordered runs, the instants after the rest */
        sts_timeline *one = random_trace(1, lanes, 400, sorted, &want);
        int j = jobs[trial % 6];
        rnd_state = seed;
        sts_timeline *many = random_trace(1, lanes, 400, sorted, &want2);
        many->jobs = j;
        many->fin_min_parallel = 0;
        if (!fin(one) || !fin(many)) {
            T_FAIL_AT("trial %d: finalize failed", trial);
        } else {
            const char *why = same_table(one, many);
            if (why) T_FAIL_AT("trial %d (-j %d, %zu lanes): %s", trial, j, one->lanes.n, why);
            for (size_t l = 1; l < many->lanes.n; l++)
                moved += many->lanes.v[l].first_track != l; /* a track before it was an overflow track */
        }
        sts_timeline_free(one);
        sts_timeline_free(many);
    }
    /* The renumbering was exercised: lanes whose tracks moved past their index. */
    T_TRUE(moved > 0);
}

/* The same events written as Chrome JSON and as XSpace read back into the same model:
 * every slice (found by its key) with the same ts, dur, depth, track within its lane,
 * name and parent; its ts as written, its dur at most as written. */
typedef struct kslice {
    int64_t ts, dur, parent_key;
    uint32_t depth, local_track;
    char name[8];
} kslice;

static kslice *by_key(const sts_timeline *tl, size_t want)
{
    kslice *out = calloc(want + 1, sizeof *out);
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_lane *l = sts_timeline_lanes(tl, NULL);
    for (size_t i = 0; i < n; i++) {
        int64_t k = key_of(tl, &s[i]);
        if (k < 0 || (size_t)k >= want) continue;
        kslice *x = &out[k];
        x->ts = s[i].ts;
        x->dur = s[i].dur;
        x->depth = s[i].depth;
        x->local_track = s[i].track - l[s[i].lane].first_track;
        x->parent_key = s[i].parent == STS_NONE ? -1 : key_of(tl, &s[s[i].parent]);
        snprintf(x->name, sizeof x->name, "%s", sts_timeline_string(tl, s[i].name));
    }
    return out;
}

static sts_timeline *open_all_args(const char *path)
{
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.args = STS_ARGS_ALL;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open(path, &o, &tl, &err) != STS_OK) T_FAIL_AT("open %s: %s", path, err.message);
    return tl;
}

TEST(json_and_xplane_readers_give_the_same_model)
{
    char json[256], pb[256];
    snprintf(json, sizeof json, "/tmp/sts_test_model_%d.json", (int)getpid());
    snprintf(pb, sizeof pb, "/tmp/sts_test_model_%d.xplane.pb", (int)getpid());
    for (int trial = 0; trial < 300 && !t_current_failed; trial++) {
        size_t want;
        sts_timeline *tl = random_trace(0, 3, 64, 0, &want);
        /* XSpace has no instants of their own: keep thread slices only. */
        tl->instants.n = 0;
        if (!fin(tl)) {
            T_FAIL_AT("trial %d: finalize failed", trial);
            sts_timeline_free(tl);
            break;
        }
        sts_error err = STS_ERROR_INIT;
        T_EQ_I64(sts_write_chrome_json(tl, json, NULL, &err), STS_OK);
        T_EQ_I64(sts_write_xplane(tl, pb, NULL, &err), STS_OK);
        sts_timeline *a = open_all_args(json), *b = open_all_args(pb);
        if (a && b) {
            kslice *ka = by_key(a, want), *kb = by_key(b, want), *ko = by_key(tl, want);
            for (size_t k = 0; k < want && !t_current_failed; k++) {
                if (ko[k].name[0] == 0) continue; /* an instant's key: not written */
                /* Read back, a written slice can nest anew (a slice that was under an open B
                 * now fits, or is clamped, against a complete one); both readers alike. */
                if (memcmp(&ka[k], &kb[k], sizeof ka[k]) != 0 || ka[k].ts != ko[k].ts || ka[k].dur > ko[k].dur)
                    T_FAIL_AT("trial %d, slice %zu: JSON %lld+%lld depth %u track %u parent %lld '%s'; XSpace "
                              "%lld+%lld depth %u track %u parent %lld '%s'; written %lld+%lld",
                              trial, k, (long long)ka[k].ts, (long long)ka[k].dur, ka[k].depth, ka[k].local_track,
                              (long long)ka[k].parent_key, ka[k].name, (long long)kb[k].ts, (long long)kb[k].dur,
                              kb[k].depth, kb[k].local_track, (long long)kb[k].parent_key, kb[k].name,
                              (long long)ko[k].ts, (long long)ko[k].dur);
            }
            free(ka);
            free(kb);
            free(ko);
        }
        sts_timeline_free(a);
        sts_timeline_free(b);
        sts_timeline_free(tl);
    }
    remove(json);
    remove(pb);
}

/* ---- checked time arithmetic ---------------------------------------------------------- */

TEST(finalize_refuses_a_span_beyond_int64)
{
    sts_timeline *tl = mk(1);
    uint32_t ln = lane(tl, 1, 1);
    X(tl, ln, "early", -9000000000000000000, 1000);
    X(tl, ln, "late", 9000000000000000000, 1000);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_tl_finalize(tl, &err), STS_ERR_RANGE);
    T_CONTAINS(err.message, "event 1");
    T_CONTAINS(err.message, "out of range");
    sts_timeline_free(tl);
    tl = mk(1);
    ln = lane(tl, 1, 1);
    X(tl, ln, "long", INT64_MAX - 10, 100);
    T_EQ_I64(sts_tl_finalize(tl, &err), STS_ERR_RANGE);
    T_CONTAINS(err.message, "event 0");
    sts_timeline_free(tl);
}

/* A lane whose tokens are two ordered runs (its complete slices, then its instants,
 * earlier in time than the last slice) is told by where its order steps back; bucketed
 * by parts, that step can be inside a part or exactly where a part begins (n slices
 * then m instants: with two parts and n == m, the second part begins with the first
 * instant). Either way the table is the one thread's. */
TEST(finalize_by_parts_finds_a_step_back_at_a_part_boundary)
{
    static const size_t ns[] = { 50, 100, 150 };
    for (size_t a = 0; a < 3; a++)
        for (int jobs = 1; jobs <= 6; jobs++) {
            sts_timeline *tl[2];
            for (int t = 0; t < 2; t++) {
                tl[t] = mk(1);
                uint32_t ln = lane(tl[t], 1, 1);
                for (size_t i = 0; i < ns[a]; i++)
                    X(tl[t], ln, "x", (int64_t)i * 1000, 100);
                for (size_t j = 0; j < 100; j++)
                    I(tl[t], ln, "i", (int64_t)j * 1000 + 500, 't');
                tl[t]->jobs = t ? jobs : 1;
                tl[t]->fin_min_parallel = 0;
                T_TRUE(fin(tl[t]));
            }
            const char *why = same_table(tl[0], tl[1]);
            if (why) T_FAIL_AT("%zu slices, -j %d: %s", ns[a], jobs, why);
            size_t n;
            const sts_slice *s = sts_timeline_slices(tl[1], &n);
            for (size_t i = 1; i < n; i++) /* in time order: the instants went between the slices */
                if (s[i].ts < s[i - 1].ts) T_FAIL_AT("-j %d: slice %zu starts before slice %zu", jobs, i, i - 1);
            sts_timeline_free(tl[0]);
            sts_timeline_free(tl[1]);
        }
}

/* A timeline emptied for another use (a chunk reader's, read into chunk after chunk) is
 * a new one with its arrays' memory kept: the same raw contents as a new timeline, and
 * the same table once the same events go into both, after a use that finalized it,
 * warned, and filled every array and map. */
TEST(a_cleared_timeline_is_a_new_one)
{
    for (int trial = 0; trial < 200 && !t_current_failed; trial++) {
        size_t want, want2;
        sts_timeline *used = random_trace(1, 6, 200, trial % 2, &want);
        sts_tl_warn(used, "a warning to be forgotten");
        T_TRUE(fin(used));
        size_t cap = used->slices.cap;
        T_EQ_I64(sts_tl_clear(used, "random.json", "chrome-json", STS_ARGS_ALL), 0);
        sts_timeline *fresh = sts_tl_new("random.json", "chrome-json", STS_ARGS_ALL);
        const char *why = tl_same(used, fresh);
        if (why) T_FAIL_AT("trial %d, emptied: %s", trial, why);
        T_EQ_U64(used->slices.cap, cap); /* the memory is kept */
        T_EQ_U64(used->tracks.n + used->overlaps.n + used->warnings.n + used->finalized, 0);
        uint64_t seed = rnd_state;
        random_trace_into(used, 1, 6, 200, trial % 2, &want);
        rnd_state = seed;
        random_trace_into(fresh, 1, 6, 200, trial % 2, &want2);
        if ((why = tl_same(used, fresh))) T_FAIL_AT("trial %d, filled again: %s", trial, why);
        T_TRUE(fin(used) && fin(fresh));
        if ((why = same_table(used, fresh))) T_FAIL_AT("trial %d, finalized: %s", trial, why);
        sts_timeline_free(used);
        sts_timeline_free(fresh);
    }
}

/* A finalize on threads side by side fails as the one thread does, naming the same
 * event: a slice whose end does not fit, a span beyond int64 (found only once the parts'
 * spans are joined), a slice or E event on a lane that does not exist. And slices with a
 * negative duration are set to 0 with the same warning. */
static sts_timeline *faulty(int fault, size_t at, int jobs)
{
    sts_timeline *tl = mk(1);
    uint32_t ln[2] = { lane(tl, 1, 1), lane(tl, 1, 2) };
    for (size_t i = 0; i < 300; i++) {
        int64_t ts = (int64_t)i * 1000, dur = 500;
        if (i == at && fault == 1) ts = INT64_MAX - 10;
        if (i == at && fault == 2) ts = -9000000000000000000;
        if (i == at + 100 && fault == 2) ts = 9000000000000000000;
        if (i % 7 == 3 && fault == 0) dur = -5;
        sts_slice *s = add_slice(tl, ln[i % 2], "s", ts, dur);
        if (i == at && fault == 3) s->lane = 7;
    }
    if (fault == 4) {
        E(tl, ln[0], 1000);
        tl->ends.v[0].lane = 9;
    }
    tl->jobs = jobs;
    tl->fin_min_parallel = 0;
    return tl;
}

TEST(finalize_by_parts_fails_as_one_thread_does)
{
    static const size_t ats[] = { 0, 1, 149, 150, 199, 298 };
    for (int fault = 0; fault <= 4; fault++)
        for (size_t a = 0; a < 6; a++)
            for (int jobs = 2; jobs <= 5; jobs++) {
                size_t at = fault == 2 ? ats[a] % 200 : ats[a];
                sts_timeline *one = faulty(fault, at, 1), *many = faulty(fault, at, jobs);
                sts_error e1 = STS_ERROR_INIT, e2 = STS_ERROR_INIT;
                sts_status s1 = sts_tl_finalize(one, &e1), s2 = sts_tl_finalize(many, &e2);
                T_EQ_I64(s2, s1);
                T_EQ_I64(s1, fault == 0 ? STS_OK : fault <= 2 ? STS_ERR_RANGE : STS_ERR_INTERNAL);
                T_EQ_STR(e2.message, e1.message);
                if (fault == 0) {
                    const char *why = same_table(one, many);
                    if (why) T_FAIL_AT("-j %d: %s", jobs, why);
                    char want[64];
                    snprintf(want, sizeof want, "%d slices had a negative duration",
                             (300 - 3 + 6) / 7); /* i % 7 == 3 */
                    T_EQ_U64(many->warnings.n, 1);
                    T_CONTAINS(many->warnings.v[0], want);
                }
                sts_timeline_free(one);
                sts_timeline_free(many);
            }
}

/* ---- through the Chrome JSON reader ------------------------------------------------ */

static const char *tmp_write(const char *name, const void *data, size_t n)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/sts_test_model_%d_%s", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
    return path;
}

static sts_timeline *open_json(const char *json)
{
    const char *p = tmp_write("t.json", json, strlen(json));
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_timeline_open(p, NULL, &tl, &err);
    remove(p);
    if (st != STS_OK) T_FAIL_AT("open: %s", err.message);
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
    if (!tl) return;
    const sts_timeline_info *info = sts_timeline_get_info(tl);
    T_EQ_I64(info->resolution_ns, 1000);
    T_EQ_U64(info->unmatched_end, 1);
    /* listed first and longer, so "child" (6 us) is the parent of "parent" (5 us) */
    T_EQ_U64(get(tl, "parent")->parent, (uint64_t)find(tl, "child"));
    T_EQ_I64(get(tl, "open")->dur, 8000);
    T_EQ_U64(get(tl, "in")->parent, (uint64_t)find(tl, "open"));
    T_EQ_I64(info->ts_min, 1000);
    T_EQ_I64(info->ts_max, 16000);
    T_WELL_FORMED(tl);
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
    if (!tl) return;
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

TEST(json_order_follows_perfetto_sorter)
{
    /* Events in non-decreasing ts keep file order: B then E at one ts make a
     * zero-length slice... */
    sts_timeline *tl = open_json("[{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":10},"
                                 "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10}]");
    if (!tl) return;
    T_EQ_I64(get(tl, "b")->dur, 0);
    T_TRUE(!(get(tl, "b")->flags & STS_SLICE_UNCLOSED));
    sts_timeline_free(tl);
    /* ...but once an X was seen and an event came out of order, everything from the
     * smallest out-of-order ts on is sorted by (ts, E first, longer X first, file
     * order): the E now comes before the B it followed, matches nothing, and the B
     * stays open. */
    tl = open_json("[{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1},"
                   "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":10},"
                   "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10},"
                   "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}]");
    if (!tl) return;
    T_TRUE(get(tl, "b")->flags & STS_SLICE_UNCLOSED);
    T_EQ_U64(sts_timeline_get_info(tl)->unmatched_end, 1);
    sts_timeline_free(tl);
}

TEST(json_span_beyond_int64_is_refused_not_wrapped)
{
    /* Two valid events 1.8e19 ns apart: the span would not fit in int64 ns. The second
     * is refused with its event index; the span stays positive. */
    sts_timeline *tl = open_json("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":-9e15,\"dur\":1},"
                                 "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":9e15,\"dur\":1},"
                                 "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,"
                                 "\"ts\":9223372036854775,\"dur\":1}]");
    if (!tl) return;
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    T_EQ_U64(in->rejected, 2);
    T_TRUE(get(tl, "b") == NULL);
    T_TRUE(get(tl, "c") == NULL);
    T_TRUE(in->ts_max - in->ts_min >= 0);
    size_t nw;
    const char *const *w = sts_timeline_warnings(tl, &nw, NULL);
    T_TRUE(nw >= 2);
    if (nw >= 2) {
        T_CONTAINS(w[0], "event 1");
        T_CONTAINS(w[0], "out of range");
        T_CONTAINS(w[1], "event 2");
    }
    sts_timeline_free(tl);
}

int main(void)
{
    RUN(intern_shows_nul_visibly);
    RUN(child_before_parent_at_equal_ts);
    RUN(equal_ts_equal_dur_keeps_file_order);
    RUN(half_open_siblings);
    RUN(zero_length_slices_stack_at_one_instant);
    RUN(begin_end_innermost_without_names);
    RUN(end_matches_name_and_category);
    RUN(an_e_closes_a_b_named_like_its_start_only_when_equal);
    RUN(begin_end_sorted_by_time_not_file_order);
    RUN(unclosed_begin_runs_to_lane_end);
    RUN(one_us_overrun_clamped_in_whole_us_trace);
    RUN(five_us_overrun_spills_to_an_overflow_track);
    RUN(overflow_tracks_nest_follow_or_stack_up);
    RUN(overflow_tracks_first_fit_as_track_by_track);
    RUN(a_staircase_of_overlaps_on_400000_tracks);
    RUN(ns_resolution_one_ns_clamps_two_ns_overlaps);
    RUN(children_kept_inside_parents);
    RUN(deep_nesting_without_recursion);
    RUN(a_million_zero_length_slices_at_one_instant);
    RUN(instants_are_zero_length_slices_on_their_tracks);
    RUN(async_slices_on_compressed_tracks);
    RUN(async_slices_under_300000_ids_at_once);
    RUN(track_labels);
    RUN(permutations_agree);
    RUN(broken_permutation_fails_its_assert);
    RUN(two_ordered_runs_merge_as_a_sort);
    RUN(a_lane_sorted_by_digits_gives_the_in_order_table);
    RUN(random_forests_shuffled);
    RUN(random_traces_keep_the_invariants);
    RUN(finalize_by_parts_gives_the_one_thread_table);
    RUN(json_and_xplane_readers_give_the_same_model);
    RUN(finalize_refuses_a_span_beyond_int64);
    RUN(finalize_by_parts_fails_as_one_thread_does);
    RUN(finalize_by_parts_finds_a_step_back_at_a_part_boundary);
    RUN(a_cleared_timeline_is_a_new_one);
    RUN(json_driven_nesting);
    RUN(json_driven_clamp_and_overlap);
    RUN(json_order_follows_perfetto_sorter);
    RUN(json_span_beyond_int64_is_refused_not_wrapped);
    return t_done();
}
