/* The cut (sts_write_chrome_json_cut): random traces read through the real JSON reader
 * (nested and crossing complete slices, B/E pairs left open or closed out of place,
 * instants of every scope, async slices, counters, flows), cut at random windows, on
 * random lanes and names, then read back. The property: the analysis of the cut equals
 * the windowed analysis of the whole (names by self time, busy time per thread lane,
 * per process and in all), computed by the analyzer on both sides. Also checked here:
 * the marks on cut slices against the slices' own times, the flows against the rule,
 * counters carried to the window's start, and every error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stepscope.h"
#include "stepscope/analyze.h"
#include "stepscope/write.h"
#include "json_gen.h"
#include "test.h"

/* ---- random traces ------------------------------------------------------------------ */

typedef struct gen {
    rng r;
    tbuf b;
    int whole_us; /* every time a whole microsecond (the reader's 1 us resolution) */
    int events;
    int64_t hi; /* the latest time written */
} gen;

/* A time: nanoseconds, rounded to whole microseconds in whole_us mode. */
static int64_t t_of(gen *g, int64_t ns)
{
    return g->whole_us ? ns / 1000 * 1000 : ns;
}

static void sep(gen *g)
{
    putf(&g->b, g->events++ ? ",\n" : "");
}

static void us(gen *g, int64_t ns)
{
    putf(&g->b, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
    if (ns > g->hi) g->hi = ns;
}

static const char *const NAMES[] = { "step", "fwd", "bwd", "mm", "conv", "copy", "wait", "io" };

static void x_event(gen *g, int pid, int tid, int64_t ts, int64_t dur, const char *name)
{
    sep(g);
    putf(&g->b, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, tid);
    us(g, ts);
    putf(&g->b, ",\"dur\":");
    us(g, dur);
    if (ts + dur > g->hi) g->hi = ts + dur;
    putf(&g->b, ",\"name\":\"%s\",\"args\":{\"k\":%d}}", name, (int)below(&g->r, 100));
}

static void be_event(gen *g, char ph, int pid, int tid, int64_t ts, const char *name)
{
    sep(g);
    putf(&g->b, "{\"ph\":\"%c\",\"pid\":%d,\"tid\":%d,\"ts\":", ph, pid, tid);
    us(g, ts);
    putf(&g->b, ",\"name\":\"%s\"}", name);
}

static void instant(gen *g, int pid, int tid, int64_t ts, char scope)
{
    sep(g);
    putf(&g->b, "{\"ph\":\"i\",\"s\":\"%c\",\"pid\":%d,\"tid\":%d,\"ts\":", scope, pid, tid);
    us(g, ts);
    putf(&g->b, ",\"name\":\"mark%c\"}", scope);
}

/* Slices nested inside [start, end) on one thread, some as B/E pairs, some crossing
 * their parent's end (by a little: clamped; by more: an overlap), some zero-length. */
static void tree(gen *g, int pid, int tid, int64_t start, int64_t end, int depth)
{
    int64_t t = start;
    while (depth < 4 && end - t > 4000 && below(&g->r, 5) != 0) {
        int64_t a = t_of(g, t + below(&g->r, (end - t) / 3 + 1));
        int64_t b = t_of(g, a + 1 + below(&g->r, end - a));
        if (b > end) b = end;
        if (b <= a) break;
        const char *name = NAMES[below(&g->r, 8)];
        int kind = (int)below(&g->r, 10);
        if (kind == 0 && depth > 0) {
            int64_t over = t_of(g, below(&g->r, 2) ? 1000 : 1000 + below(&g->r, 5000)); /* clamped or spilled */
            x_event(g, pid, tid, a, b - a + over, name);
        } else if (kind == 1) {
            be_event(g, 'B', pid, tid, a, name);
            tree(g, pid, tid, a, b, depth + 1);
            be_event(g, 'E', pid, tid, b, name);
        } else if (kind == 2) {
            x_event(g, pid, tid, a, 0, name);
        } else if (kind == 3) {
            instant(g, pid, tid, a, 't');
        } else {
            x_event(g, pid, tid, a, b - a, name);
            tree(g, pid, tid, a, b, depth + 1);
        }
        t = b;
    }
}

static void async_id(gen *g, int local, int id)
{
    if (local)
        putf(&g->b, "\"id2\":{\"local\":\"0x%x\"}}", id);
    else
        putf(&g->b, "\"id\":\"0x%x\"}", id);
}

/* One request with a nested part and an instant, on a process-scoped or global id. */
static void async_chain(gen *g, int pid, int64_t t0, int64_t t1, int local, int id)
{
    int64_t a = t_of(g, t0 + below(&g->r, (t1 - t0) / 2 + 1)), b = t_of(g, a + below(&g->r, t1 - a + 1));
    int64_t m = t_of(g, a + (b - a) / 2);
    const char ph[4] = { 'b', 'b', 'e', 'e' };
    int64_t ts[4] = { a, m, b, b };
    const char *nm[4] = { "req", "sub", "sub", "req" };
    for (int k = 0; k < 4; k++) {
        sep(g);
        putf(&g->b, "{\"ph\":\"%c\",\"cat\":\"net\",\"pid\":%d,\"tid\":%d,\"ts\":", ph[k], pid, pid);
        us(g, ts[k]);
        putf(&g->b, ",\"name\":\"%s\",", nm[k]);
        async_id(g, local, id);
    }
    sep(g);
    putf(&g->b, "{\"ph\":\"n\",\"cat\":\"net\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, pid);
    us(g, m);
    putf(&g->b, ",\"name\":\"ping\",");
    async_id(g, local, id);
}

static void counter(gen *g, int pid, int64_t ts, int v)
{
    sep(g);
    putf(&g->b, "{\"ph\":\"C\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, pid);
    us(g, ts);
    putf(&g->b, ",\"name\":\"mem\",\"args\":{\"bytes\":%d}}", v);
}

static void flow(gen *g, int pid, int tid_from, int tid_to, int64_t a, int64_t b, int id)
{
    sep(g);
    putf(&g->b, "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"fl\",\"id\":%d,\"pid\":%d,\"tid\":%d,\"ts\":", id, pid,
         tid_from);
    us(g, a);
    putf(&g->b, "}");
    sep(g);
    putf(&g->b,
         "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"fl\",\"id\":%d,\"pid\":%d,\"tid\":%d,\"ts\":", id, pid,
         tid_to);
    us(g, b);
    putf(&g->b, "}");
}

/* A trace of two processes, three threads each, spanning about a millisecond. */
static void make_trace(gen *g)
{
    g->b.n = 0;
    g->events = 0;
    g->hi = 0;
    g->whole_us = below(&g->r, 3) == 0;
    putf(&g->b, "{\"traceEvents\":[\n");
    const int64_t span = 1000000;
    for (int pid = 1; pid <= 2; pid++) {
        sep(g);
        putf(&g->b, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"proc %d\"}}", pid, pid);
        for (int tid = 1; tid <= 3; tid++) {
            sep(g);
            putf(&g->b,
                 "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"thread %d.%d\"}}",
                 pid, tid, pid, tid);
            int64_t t = 0;
            while (t < span) {
                int64_t a = t_of(g, t + below(&g->r, 20000)), b = t_of(g, a + 1000 + below(&g->r, 150000));
                if (below(&g->r, 12) == 0) { /* left open: runs to the lane's last timestamp */
                    be_event(g, 'B', pid, tid, a, "open");
                } else {
                    x_event(g, pid, tid, a, b - a, NAMES[below(&g->r, 8)]);
                    tree(g, pid, tid, a, b, 1);
                }
                t = b;
            }
        }
        for (int k = 0; k < 3; k++)
            async_chain(g, pid, 0, span, (int)below(&g->r, 2), k + 10 * pid);
        for (int k = 0; k < 6; k++)
            counter(g, pid, t_of(g, below(&g->r, span)), (int)below(&g->r, 1000));
        instant(g, pid, 1, t_of(g, below(&g->r, span)), 'p');
    }
    instant(g, 1, 2, t_of(g, below(&g->r, span)), 'g');
    for (int k = 0; k < 12; k++) {
        int64_t a = t_of(g, below(&g->r, span)), b = t_of(g, a + below(&g->r, 100000));
        flow(g, 1 + (int)below(&g->r, 2), 1 + (int)below(&g->r, 3), 1 + (int)below(&g->r, 3), a, b, 100 + k);
    }
    putf(&g->b, "\n]}\n");
}

/* ---- reading, cutting, analyzing -------------------------------------------------------- */

static char dir[64];

static const char *tmp_path(const char *name)
{
    static char p[128];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/sts_cut_XXXXXX");
        if (!mkdtemp(dir)) return NULL;
    }
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static sts_timeline *open_text(const char *text, size_t n)
{
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.args = STS_ARGS_ALL;
    o.jobs = 1;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open_mem(text, n, "random.json", &o, &tl, &err) != STS_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        return NULL;
    }
    return tl;
}

static sts_timeline *open_path(const char *path)
{
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.args = STS_ARGS_ALL;
    o.jobs = 1;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open(path, &o, &tl, &err) != STS_OK) {
        fprintf(stderr, "open %s: %s\n", path, err.message);
        return NULL;
    }
    return tl;
}

/* What the analysis says of a scope, keyed by names and labels, as one text to
 * compare: names with count, total, self, min, median, max; busy per thread lane
 * (pid, tid), per process (pid) and in all. Lanes without slices in the scope are
 * left out on both sides (the cut has no async lane for them). */
static char *summary(const sts_timeline *tl, const sts_scope *sc)
{
    tbuf b = { NULL, 0, 0 };
    sts_name_summary *nm = NULL;
    size_t nn = 0;
    sts_error err = STS_ERROR_INIT;
    if (sts_name_summaries_in(tl, sc, &nm, &nn, &err) != STS_OK) return NULL;
    /* The rows' order ties on equal times by name: sort by name for a stable text. */
    for (size_t i = 0; i < nn; i++)
        for (size_t j = i + 1; j < nn; j++)
            if (strcmp(sts_timeline_string(tl, nm[j].name), sts_timeline_string(tl, nm[i].name)) < 0) {
                sts_name_summary x = nm[i];
                nm[i] = nm[j];
                nm[j] = x;
            }
    for (size_t i = 0; i < nn; i++)
        putf(&b, "name %s %llu %lld %lld %lld %lld %lld\n", sts_timeline_string(tl, nm[i].name),
             (unsigned long long)nm[i].count, (long long)nm[i].total_ns, (long long)nm[i].self_ns,
             (long long)nm[i].min_ns, (long long)nm[i].median_ns, (long long)nm[i].max_ns);
    free(nm);
    size_t nl, np;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    const sts_process *pr = sts_timeline_processes(tl, &np);
    sts_busy *lb = calloc(nl + 1, sizeof *lb), *pb = calloc(np + 1, sizeof *pb), all;
    if (sts_busy_each(tl, sc, lb, pb, &all, &err) != STS_OK) return NULL;
    /* Lanes and processes by label, in label order, as two sorted passes over ids. */
    for (int pass = 0; pass < 2; pass++) {
        size_t n = pass ? np : nl;
        char **rows = calloc(n + 1, sizeof *rows);
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const sts_busy *x = pass ? &pb[i] : &lb[i];
            if (!x->slices || (!pass && ln[i].kind != STS_LANE_THREAD && ln[i].kind != STS_LANE_DEVICE)) continue;
            char row[256];
            if (pass)
                snprintf(row, sizeof row, "process '%s' %llu %lld %lld %lld\n", sts_timeline_string(tl, pr[i].label),
                         (unsigned long long)x->slices, (long long)x->union_ns, (long long)x->start_ns,
                         (long long)x->end_ns);
            else
                snprintf(row, sizeof row, "lane %s:%s %llu %lld %lld %lld\n", sts_lane_pid(tl, (uint32_t)i),
                         sts_lane_tid(tl, (uint32_t)i), (unsigned long long)x->slices, (long long)x->union_ns,
                         (long long)x->start_ns, (long long)x->end_ns);
            rows[k++] = strdup(row);
        }
        for (size_t i = 0; i < k; i++)
            for (size_t j = i + 1; j < k; j++)
                if (strcmp(rows[j], rows[i]) < 0) {
                    char *x = rows[i];
                    rows[i] = rows[j];
                    rows[j] = x;
                }
        for (size_t i = 0; i < k; i++) {
            putf(&b, "%s", rows[i]);
            free(rows[i]);
        }
        free(rows);
    }
    putf(&b, "all %llu %lld\n", (unsigned long long)all.slices, (long long)all.union_ns);
    free(lb);
    free(pb);
    return b.p;
}

static void show_diff(const char *want, const char *got)
{
    fprintf(stderr, "--- windowed analysis of the whole:\n%s--- analysis of the cut:\n%s", want, got);
}

/* ---- the property ---------------------------------------------------------------------- */

static int64_t pick_time(rng *r, const sts_timeline_info *in, int whole_us)
{
    int64_t t = in->ts_min - 5000 + below(r, in->ts_max - in->ts_min + 10000);
    return whole_us && below(r, 2) ? t / 1000 * 1000 : t;
}

TEST(cut_round_trips_random_traces)
{
    gen g;
    memset(&g, 0, sizeof g);
    g.r.s = 0x9e3779b97f4a7c13ull;
    int cases = 0, nonempty = 0, named = 0, laned = 0, cut_both = 0;
    for (int round = 0; round < 60 && !t_current_failed; round++) {
        make_trace(&g);
        sts_timeline *whole = open_text(g.b.p, g.b.n);
        T_TRUE(whole != NULL);
        if (!whole) break;
        const sts_timeline_info *in = sts_timeline_get_info(whole);
        size_t nl;
        const sts_lane *ln = sts_timeline_lanes(whole, &nl);
        for (int k = 0; k < 8 && !t_current_failed; k++) {
            sts_cut cut = STS_CUT_INIT;
            cut.start_ns = pick_time(&g.r, in, g.whole_us);
            cut.end_ns = pick_time(&g.r, in, g.whole_us);
            if (cut.start_ns > cut.end_ns) {
                int64_t x = cut.start_ns;
                cut.start_ns = cut.end_ns;
                cut.end_ns = x;
            }
            if (cut.start_ns == cut.end_ns) cut.end_ns++;
            uint32_t lanes[64];
            size_t n = 0;
            if (below(&g.r, 3) == 0) {
                for (size_t l = 0; l < nl && n < 64; l++)
                    if (below(&g.r, 2)) lanes[n++] = (uint32_t)l;
                cut.lanes = lanes;
                cut.nlanes = n;
                laned++;
            }
            if (below(&g.r, 4) == 0) {
                cut.name = below(&g.r, 2) ? NAMES[below(&g.r, 8)] : "^(fwd|bwd)$";
                named++;
            }
            sts_scope sc = STS_SCOPE_INIT;
            sc.windowed = 1;
            sc.start_ns = cut.start_ns;
            sc.end_ns = cut.end_ns;
            sc.lanes = cut.lanes;
            sc.nlanes = cut.lanes ? n : 0;
            sc.name = cut.name;
            if (cut.lanes && n == 0) continue; /* the scope takes an empty list as every lane */
            const char *path = tmp_path(below(&g.r, 2) ? "cut.json" : "cut.json.gz");
            sts_cut_stats st;
            sts_error err = STS_ERROR_INIT;
            sts_status s = sts_write_chrome_json_cut(whole, &cut, path, NULL, &st, &err);
            char *want = summary(whole, &sc);
            T_TRUE(want != NULL);
            cases++;
            if (s == STS_ERR_NOT_FOUND) {
                /* Nothing to cut: the windowed analysis must see nothing either. */
                T_TRUE(want && strstr(want, "all 0 0\n") != NULL);
                free(want);
                continue;
            }
            T_EQ_I64(s, STS_OK);
            if (s != STS_OK) {
                fprintf(stderr, "%s\n", err.message);
                free(want);
                break;
            }
            nonempty++;
            cut_both += st.cut_start && st.cut_end;
            sts_timeline *back = open_path(path);
            T_TRUE(back != NULL);
            sts_scope bs = STS_SCOPE_INIT;
            bs.name = cut.name;
            char *got = back ? summary(back, &bs) : NULL;
            T_TRUE(got != NULL);
            if (want && got && strcmp(want, got) != 0) {
                T_FAIL_AT("round %d window [%lld, %lld) lanes %zu name %s: the cut's analysis differs", round,
                          (long long)cut.start_ns, (long long)cut.end_ns, cut.lanes ? n : nl,
                          cut.name ? cut.name : "-");
                show_diff(want, got);
            }
            /* The cut holds what it says it wrote. */
            if (back) {
                size_t nb;
                sts_timeline_slices(back, &nb);
                T_EQ_I64(nb, st.slices);
            }
            free(want);
            free(got);
            sts_timeline_free(back);
        }
        sts_timeline_free(whole);
        (void)ln;
    }
    printf("  %d cuts (%d with something in them, %d by name, %d by lanes, %d cut at both edges)\n", cases, nonempty,
           named, laned, cut_both);
    T_TRUE(nonempty > cases / 2 && named > 10 && laned > 10 && cut_both > 10);
    free(g.b.p);
}

/* ---- the details -------------------------------------------------------------------- */

static sts_timeline *open_str(const char *text)
{
    return open_text(text, strlen(text));
}

/* Cuts `whole` to [a, b) into `name` (under the test's directory), then reads it back. */
static sts_timeline *cut_and_read(const sts_timeline *whole, sts_cut *cut, const char *name, sts_cut_stats *st)
{
    const char *path = tmp_path(name);
    sts_error err = STS_ERROR_INIT;
    sts_status s = sts_write_chrome_json_cut(whole, cut, path, NULL, st, &err);
    if (s != STS_OK) {
        fprintf(stderr, "cut: %s\n", err.message);
        return NULL;
    }
    return open_path(path);
}

static const sts_slice *slice_named(const sts_timeline *tl, const char *name)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(sts_timeline_string(tl, s[i].name), name)) return &s[i];
    return NULL;
}

/* The raw JSON of a slice's stepscope_cut arg, or NULL. */
static const char *mark_of(const sts_timeline *tl, const sts_slice *s)
{
    const sts_arg *a = s ? sts_timeline_find_arg(tl, s->args, "stepscope_cut") : NULL;
    return a && a->type == STS_ARG_JSON ? sts_timeline_string(tl, a->v.str) : NULL;
}

TEST(cut_marks_what_it_cut)
{
    sts_timeline *whole = open_str("[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":100,\"name\":\"A\","
                                   "\"args\":{\"layer\":7}},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1020,\"dur\":20,\"name\":\"B\"},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1060,\"dur\":10,\"name\":\"C\"},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1090,\"dur\":110,\"name\":\"D\"},"
                                   "{\"ph\":\"B\",\"pid\":1,\"tid\":3,\"ts\":1010,\"name\":\"open\"},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1150,\"dur\":1,\"name\":\"last\"}]");
    T_TRUE(whole != NULL);
    if (!whole) return;
    sts_cut cut = STS_CUT_INIT;
    cut.start_ns = 1030000;
    cut.end_ns = 1095000;
    sts_cut_stats st;
    sts_timeline *back = cut_and_read(whole, &cut, "marks.json", &st);
    T_TRUE(back != NULL);
    if (!back) {
        sts_timeline_free(whole);
        return;
    }
    /* A: cut at both edges; B: at the start; C: not cut, no mark; D: at the end; the
     * unclosed B runs to its lane's last timestamp (1151 us) and is cut at the end. */
    const char *want[][2] = { { "A", "{\"at\":\"both\",\"ts_ns\":1000000,\"dur_ns\":100000}" },
                              { "B", "{\"at\":\"start\",\"ts_ns\":1020000,\"dur_ns\":20000}" },
                              { "D", "{\"at\":\"end\",\"ts_ns\":1090000,\"dur_ns\":110000}" },
                              { "open", "{\"at\":\"both\",\"ts_ns\":1010000,\"dur_ns\":141000,\"unclosed\":true}" } };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const char *m = mark_of(back, slice_named(back, want[k][0]));
        if (!m || strcmp(m, want[k][1]) != 0)
            T_FAIL_AT("%s: mark %s, want %s", want[k][0], m ? m : "(none)", want[k][1]);
    }
    T_TRUE(mark_of(back, slice_named(back, "C")) == NULL);
    T_TRUE(slice_named(back, "last") == NULL); /* after the window */
    /* The slice's own args stay beside the mark. */
    const sts_slice *a = slice_named(back, "A");
    const sts_arg *layer = a ? sts_timeline_find_arg(back, a->args, "layer") : NULL;
    T_TRUE(layer && layer->type == STS_ARG_INT && layer->v.i == 7);
    T_EQ_I64(a ? a->ts : 0, 1030000);
    T_EQ_I64(a ? a->dur : 0, 65000);
    T_EQ_I64(st.slices, 5);
    T_EQ_I64(st.cut_start, 3);
    T_EQ_I64(st.cut_end, 3);
    /* A cut of the cut replaces the mark with its own, which describes its input. */
    sts_cut again = STS_CUT_INIT;
    again.start_ns = 1040000;
    again.end_ns = 1095000;
    sts_timeline *twice = cut_and_read(back, &again, "marks2.json", NULL);
    const char *m = twice ? mark_of(twice, slice_named(twice, "A")) : NULL;
    T_TRUE(m && !strcmp(m, "{\"at\":\"start\",\"ts_ns\":1030000,\"dur_ns\":65000}"));
    sts_timeline_free(twice);
    sts_timeline_free(back);
    sts_timeline_free(whole);
}

/* A slice that overran another, cut by the window's end to overrun it by no more than
 * the resolution: the file says its times are exact, so the reader keeps the crossing
 * instead of clamping it (which would move time inside the other slice). */
TEST(cut_keeps_crossings_its_edge_shrinks)
{
    sts_timeline *whole = open_str("[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"P\"},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":10,\"name\":\"C\"}]");
    T_TRUE(whole != NULL);
    if (!whole) return;
    sts_cut cut = STS_CUT_INIT;
    cut.start_ns = 0;
    cut.end_ns = 11000; /* C ends 1 us after P now: within the trace's resolution */
    sts_timeline *back = cut_and_read(whole, &cut, "cross.json", NULL);
    T_TRUE(back != NULL);
    if (back) {
        T_EQ_I64(sts_timeline_get_info(back)->clamped, 0);
        T_EQ_I64(sts_timeline_get_info(back)->overlaps, 1);
        const sts_slice *c = slice_named(back, "C");
        T_EQ_I64(c ? c->dur : 0, 6000);
        sts_scope ws = STS_SCOPE_INIT;
        ws.windowed = 1;
        ws.start_ns = cut.start_ns;
        ws.end_ns = cut.end_ns;
        char *want = summary(whole, &ws), *got = summary(back, NULL);
        T_TRUE(want && got && !strcmp(want, got));
        free(want);
        free(got);
    }
    /* The same events without the file's word: the rounding tolerance clamps C. */
    sts_timeline *plain = open_str("[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"P\"},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":6,\"name\":\"C\"}]");
    T_EQ_I64(plain ? sts_timeline_get_info(plain)->clamped : 99, 1);
    sts_timeline *flagged = open_str("{\"stepscope_exact_times\":true,\"traceEvents\":["
                                     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"P\"},"
                                     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":6,\"name\":\"C\"}]}");
    T_EQ_I64(flagged ? sts_timeline_get_info(flagged)->clamped : 99, 0);
    T_EQ_I64(flagged ? sts_timeline_get_info(flagged)->overlaps : 99, 1);
    sts_timeline_free(flagged);
    sts_timeline_free(plain);
    sts_timeline_free(back);
    sts_timeline_free(whole);
}

static size_t flows_named(const sts_timeline *tl, const char *name)
{
    size_t n, k = 0;
    const sts_flow *f = sts_timeline_flows(tl, &n);
    for (size_t i = 0; i < n; i++)
        k += !strcmp(sts_timeline_string(tl, f[i].name), name);
    return k;
}

TEST(cut_keeps_flows_whose_ends_survive)
{
    /* in: both ends in the window; half: its f after it; named: its s on a slice --name
     * drops; t3: s, t and f, all in. */
    sts_timeline *whole =
        open_str("[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"cpu\"},"
                 "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"name\":\"launch\"},"
                 "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":100,\"name\":\"gpu\"},"
                 "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":30,\"dur\":5,\"name\":\"kernel\"},"
                 "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"ts\":11,\"name\":\"in\",\"cat\":\"c\",\"id\":1},"
                 "{\"ph\":\"f\",\"pid\":1,\"tid\":2,\"ts\":31,\"name\":\"in\",\"cat\":\"c\",\"id\":1,\"bp\":\"e\"},"
                 "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"ts\":12,\"name\":\"half\",\"cat\":\"c\",\"id\":2},"
                 "{\"ph\":\"f\",\"pid\":1,\"tid\":2,\"ts\":110,\"name\":\"half\",\"cat\":\"c\",\"id\":2,\"bp\":\"e\"},"
                 "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"ts\":5,\"name\":\"named\",\"cat\":\"c\",\"id\":3},"
                 "{\"ph\":\"f\",\"pid\":1,\"tid\":2,\"ts\":32,\"name\":\"named\",\"cat\":\"c\",\"id\":3,\"bp\":\"e\"},"
                 "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"ts\":13,\"name\":\"t3\",\"cat\":\"c\",\"id\":4},"
                 "{\"ph\":\"t\",\"pid\":1,\"tid\":2,\"ts\":33,\"name\":\"t3\",\"cat\":\"c\",\"id\":4},"
                 "{\"ph\":\"f\",\"pid\":1,\"tid\":2,\"ts\":34,\"name\":\"t3\",\"cat\":\"c\",\"id\":4,\"bp\":\"e\"}]");
    T_TRUE(whole != NULL);
    if (!whole) return;
    sts_cut cut = STS_CUT_INIT;
    cut.start_ns = 0;
    cut.end_ns = 60000;
    sts_cut_stats st;
    sts_timeline *back = cut_and_read(whole, &cut, "flows.json", &st);
    T_TRUE(back != NULL);
    T_EQ_I64(back ? flows_named(back, "in") : 0, 2);
    T_EQ_I64(back ? flows_named(back, "half") : 9, 0);
    T_EQ_I64(back ? flows_named(back, "named") : 0, 2);
    T_EQ_I64(back ? flows_named(back, "t3") : 0, 3);
    T_EQ_I64(st.flows, 3);
    T_EQ_I64(st.flow_events, 7);
    T_EQ_I64(st.flows_left_out, 1);
    sts_timeline_free(back);
    /* --name launch|kernel: "named" starts on cpu at 5 (the top of its stack), which the name drops. */
    cut.name = "launch|kernel";
    back = cut_and_read(whole, &cut, "flows2.json", &st);
    T_EQ_I64(back ? flows_named(back, "in") : 0, 2);
    T_EQ_I64(back ? flows_named(back, "named") : 9, 0);
    T_EQ_I64(back ? flows_named(back, "t3") : 0, 3);
    T_EQ_I64(st.flows_left_out, 2);
    sts_timeline_free(back);
    sts_timeline_free(whole);
}

TEST(cut_carries_counters_to_its_start)
{
    sts_timeline *whole =
        open_str("[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":300,\"name\":\"run\"},"
                 "{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":0,\"name\":\"mem\",\"args\":{\"v\":1}},"
                 "{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":50,\"name\":\"mem\",\"args\":{\"v\":2}},"
                 "{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":120,\"name\":\"mem\",\"args\":{\"v\":3}},"
                 "{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":100,\"name\":\"q\",\"args\":{\"v\":7}},"
                 "{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":90,\"name\":\"q\",\"args\":{\"v\":6}},"
                 "{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":250,\"name\":\"mem\",\"args\":{\"v\":4}}]");
    T_TRUE(whole != NULL);
    if (!whole) return;
    sts_cut cut = STS_CUT_INIT;
    cut.start_ns = 100000;
    cut.end_ns = 200000;
    sts_cut_stats st;
    sts_timeline *back = cut_and_read(whole, &cut, "counters.json", &st);
    T_TRUE(back != NULL);
    size_t n = 0;
    const sts_counter *c = back ? sts_timeline_counters(back, &n) : NULL;
    /* mem: 2 carried to 100 us, then 3 at 120; q: its own sample at 100, none carried. */
    T_EQ_I64(n, 3);
    T_EQ_I64(st.counters, 3);
    double mem_at_100 = -1, mem_at_120 = -1, q_at_100 = -1;
    for (size_t i = 0; c && i < n; i++) {
        const char *nm = sts_timeline_string(back, c[i].name);
        if (!strcmp(nm, "mem") && c[i].ts == 100000) mem_at_100 = c[i].value;
        if (!strcmp(nm, "mem") && c[i].ts == 120000) mem_at_120 = c[i].value;
        if (!strcmp(nm, "q") && c[i].ts == 100000) q_at_100 = c[i].value;
    }
    T_TRUE(mem_at_100 == 2 && mem_at_120 == 3 && q_at_100 == 7);
    sts_timeline_free(back);
    sts_timeline_free(whole);
}

TEST(cut_min_dur_leaves_short_slices_out)
{
    sts_timeline *whole = open_str("[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"long\"},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":4,\"name\":\"short\"},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"name\":\"edge\"},"
                                   "{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":30,\"name\":\"mark\"}]");
    T_TRUE(whole != NULL);
    if (!whole) return;
    sts_cut cut = STS_CUT_INIT;
    cut.start_ns = 0;
    cut.end_ns = 50000; /* long is cut to 50 us: still judged by its 100 */
    cut.min_dur_ns = 5000;
    sts_cut_stats st;
    sts_timeline *back = cut_and_read(whole, &cut, "mindur.json", &st);
    T_TRUE(back && slice_named(back, "long") && slice_named(back, "edge") && slice_named(back, "mark"));
    T_TRUE(back && !slice_named(back, "short"));
    T_EQ_I64(st.short_left_out, 1);
    T_EQ_I64(st.instants, 1);
    sts_timeline_free(back);
    sts_timeline_free(whole);
}

TEST(cut_async_slices_nest_again)
{
    sts_timeline *whole = open_str(
        "[{\"ph\":\"b\",\"pid\":1,\"tid\":1,\"ts\":0,\"name\":\"req\",\"cat\":\"n\",\"id\":\"0x1\"},"
        "{\"ph\":\"b\",\"pid\":1,\"tid\":1,\"ts\":10,\"name\":\"sub\",\"cat\":\"n\",\"id\":\"0x1\"},"
        "{\"ph\":\"n\",\"pid\":1,\"tid\":1,\"ts\":12,\"name\":\"ping\",\"cat\":\"n\",\"id\":\"0x1\"},"
        "{\"ph\":\"e\",\"pid\":1,\"tid\":1,\"ts\":20,\"name\":\"sub\",\"cat\":\"n\",\"id\":\"0x1\"},"
        "{\"ph\":\"e\",\"pid\":1,\"tid\":1,\"ts\":30,\"name\":\"req\",\"cat\":\"n\",\"id\":\"0x1\"},"
        "{\"ph\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5,\"name\":\"req\",\"cat\":\"n\",\"id2\":{\"local\":\"0x2\"}},"
        "{\"ph\":\"e\",\"pid\":1,\"tid\":1,\"ts\":25,\"name\":\"req\",\"cat\":\"n\",\"id2\":{\"local\":\"0x2\"}}]");
    T_TRUE(whole != NULL);
    if (!whole) return;
    sts_cut cut = STS_CUT_INIT;
    cut.start_ns = 11000;
    cut.end_ns = 40000;
    sts_cut_stats st;
    sts_timeline *back = cut_and_read(whole, &cut, "async.json", &st);
    T_TRUE(back != NULL);
    if (back) {
        const sts_slice *sub = slice_named(back, "sub");
        T_TRUE(sub && (sub->flags & STS_SLICE_ASYNC) && sub->depth == 1 && sub->ts == 11000 && sub->dur == 9000);
        size_t nt;
        const sts_track *t = sts_timeline_tracks(back, &nt);
        int global = 0, local = 0;
        for (size_t i = 0; i < nt; i++) {
            global += t[i].kind == STS_TRACK_ASYNC_GLOBAL;
            local += t[i].kind == STS_TRACK_ASYNC_PROCESS;
        }
        T_EQ_I64(global, 1);
        T_EQ_I64(local, 1);
        sts_scope ws = STS_SCOPE_INIT;
        ws.windowed = 1;
        ws.start_ns = cut.start_ns;
        ws.end_ns = cut.end_ns;
        char *want = summary(whole, &ws), *got = summary(back, NULL);
        T_TRUE(want && got && !strcmp(want, got));
        free(want);
        free(got);
    }
    T_EQ_I64(st.async_slices, 4);
    sts_timeline_free(back);
    sts_timeline_free(whole);
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

TEST(cut_refuses_what_it_cannot_cut)
{
    sts_timeline *whole = open_str("[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"a\"},"
                                   "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10,\"name\":\"b\"}]");
    T_TRUE(whole != NULL);
    if (!whole) return;
    const char *path = tmp_path("refused.json");
    struct {
        int64_t a, b, min;
        uint32_t lane;
        const char *name;
        sts_status want;
        const char *says;
    } bad[] = {
        { 5000, 5000, 0, STS_NONE, NULL, STS_ERR_INVALID_ARG, "empty window: start 5000 ns is not before end 5000 ns" },
        { 9000, 3000, 0, STS_NONE, NULL, STS_ERR_INVALID_ARG, "empty window" },
        { 0, 30000, 0, 7, NULL, STS_ERR_INVALID_ARG, "lane 7 out of range (1 lanes)" },
        { 0, 30000, -1, STS_NONE, NULL, STS_ERR_INVALID_ARG, "min_dur_ns -1 is negative" },
        { 0, 30000, 0, STS_NONE, "(", STS_ERR_INVALID_ARG, "name pattern '(' is neither an exact name" },
        { 12000, 18000, 0, STS_NONE, NULL, STS_ERR_NOT_FOUND, "nothing to cut: no slice of the trace's lanes" },
        { 0, 30000, 0, STS_NONE, "c", STS_ERR_NOT_FOUND, "nothing to cut: no slice named 'c'" },
        { 0, 30000, 11000, STS_NONE, NULL, STS_ERR_NOT_FOUND, "no slice long enough" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sts_cut cut = STS_CUT_INIT;
        cut.start_ns = bad[k].a;
        cut.end_ns = bad[k].b;
        cut.min_dur_ns = bad[k].min;
        cut.name = bad[k].name;
        if (bad[k].lane != STS_NONE) {
            cut.lanes = &bad[k].lane;
            cut.nlanes = 1;
        }
        sts_error err = STS_ERROR_INIT;
        sts_status s = sts_write_chrome_json_cut(whole, &cut, path, NULL, NULL, &err);
        if (s != bad[k].want || !strstr(err.message, bad[k].says))
            T_FAIL_AT("case %zu: %s '%s', want %s '%s'", k, sts_status_name(s), err.message,
                      sts_status_name(bad[k].want), bad[k].says);
        T_TRUE(!exists(path)); /* nothing written */
    }
    /* An output that cannot be written: the writer's error, nothing left behind. */
    sts_cut cut = STS_CUT_INIT;
    cut.start_ns = 0;
    cut.end_ns = 30000;
    sts_error err = STS_ERROR_INIT;
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no/such/dir/cut.json", dir);
    sts_status s = sts_write_chrome_json_cut(whole, &cut, missing, NULL, NULL, &err);
    T_TRUE(s != STS_OK && strstr(err.message, missing) != NULL);
    T_TRUE(sts_write_chrome_json_cut(NULL, &cut, path, NULL, NULL, &err) == STS_ERR_INVALID_ARG);
    T_TRUE(sts_write_chrome_json_cut(whole, NULL, path, NULL, NULL, &err) == STS_ERR_INVALID_ARG);
    sts_timeline_free(whole);
}

int main(void)
{
    RUN(cut_round_trips_random_traces);
    RUN(cut_marks_what_it_cut);
    RUN(cut_keeps_crossings_its_edge_shrinks);
    RUN(cut_keeps_flows_whose_ends_survive);
    RUN(cut_carries_counters_to_its_start);
    RUN(cut_min_dur_leaves_short_slices_out);
    RUN(cut_async_slices_nest_again);
    RUN(cut_refuses_what_it_cannot_cut);
    if (dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    }
    return t_done();
}
