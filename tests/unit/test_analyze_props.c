/* Property tests of the analyzer over thousands of random traces: random nesting,
 * crossing slices, equal timestamps, zero durations, B/E mixed with X and unmatched
 * ends, read through the real JSON reader. Every number is checked against a brute
 * force computed here from the definitions, and every invariant of the outputs:
 *   self >= 0 for every slice, and equal to duration minus the union of what lies
 *   inside it; on each lane where no slices cross, the self times add up to the union;
 *   step children lie inside the step; children + unattributed = step; window unions
 *   never exceed the window and a window's names add up to its busy time; busy time
 *   per lane, process and trace equals the union computed directly. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/an_impl.h"
#include "stepscope.h"
#include "stepscope/analyze.h"
#include "json_gen.h"
#include "test.h"

/* ---- random traces ------------------------------------------------------------------ */

static const char *const NAMES[] = { "S", "a", "b", "c", "d" };

/* A time value in us: on a coarse grid so timestamps tie often, sometimes fractional. */
static void put_us(tbuf *b, int64_t ns)
{
    if (ns % 1000 == 0)
        putf(b, "%lld", (long long)(ns / 1000));
    else
        putf(b, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* One random trace as Chrome JSON: `lanes` lanes over up to 3 pids, nested trees with
 * crossing slices mixed in. */
static void random_trace(rng *r, tbuf *b, int whole_us)
{
    int64_t unit = whole_us ? 1000 : 250;
    int nlanes = 1 + (int)below(r, 4), n = 1 + (int)below(r, 40);
    putf(b, "[");
    for (int i = 0; i < n; i++) {
        int lane = (int)below(r, nlanes);
        int64_t ts = below(r, 30) * unit, dur;
        int kind = (int)below(r, 10);
        if (kind < 2)
            dur = 0;
        else if (kind < 6)
            dur = (1 + below(r, 6)) * unit;
        else
            dur = (1 + below(r, 25)) * unit;
        const char *name = NAMES[below(r, 5)];
        int pid = 1 + lane % 3, tid = 1 + lane;
        if (i) putf(b, ",");
        if (below(r, 6) == 0) {
            putf(b, "{\"ph\":\"B\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", name, pid, tid);
            put_us(b, ts);
            putf(b, "},{\"ph\":\"E\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, tid);
            put_us(b, ts + dur);
            putf(b, "}");
        } else if (below(r, 25) == 0) {
            putf(b, "{\"ph\":\"E\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, tid);
            put_us(b, ts);
            putf(b, "}");
        } else {
            putf(b, "{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", name, pid, tid);
            put_us(b, ts);
            putf(b, ",\"dur\":");
            put_us(b, dur);
            putf(b, "}");
        }
    }
    putf(b, "]");
}

static sts_timeline *open_text(const char *text, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/sts_test_props_%d.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    fwrite(text, 1, n, f);
    fclose(f);
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open(path, NULL, &tl, &err) != STS_OK)
        fprintf(stderr, "open: %s\n%.*s\n", err.message, (int)n, text);
    remove(path);
    return tl;
}

/* ---- brute force from the definitions ------------------------------------------------ */

static int64_t end_of(const sts_slice *s)
{
    return s->ts + s->dur;
}

/* Containment order of two slices of a lane: start, end descending, index. */
static int before(const sts_slice *s, uint32_t x, uint32_t y)
{
    if (s[x].ts != s[y].ts) return s[x].ts < s[y].ts;
    if (end_of(&s[x]) != end_of(&s[y])) return end_of(&s[x]) > end_of(&s[y]);
    return x < y;
}

static int inside(const sts_slice *s, uint32_t o, uint32_t in)
{
    return o != in && before(s, in, o) && s[in].ts <= s[o].ts && s[o].ts < end_of(&s[in]) &&
           end_of(&s[o]) <= end_of(&s[in]);
}

/* Union length of iv[0..n), any order, with a plain insertion sort. */
static int64_t brute_union(int64_t (*iv)[2], size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && iv[j][0] < iv[j - 1][0]; j--) {
            int64_t t0 = iv[j][0], t1 = iv[j][1];
            iv[j][0] = iv[j - 1][0];
            iv[j][1] = iv[j - 1][1];
            iv[j - 1][0] = t0;
            iv[j - 1][1] = t1;
        }
    int64_t total = 0, cs = 0, ce = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        if (iv[i][1] <= iv[i][0]) continue;
        if (!open || iv[i][0] > ce) {
            if (open) total += ce - cs;
            open = 1;
            cs = iv[i][0];
            ce = iv[i][1];
        } else if (iv[i][1] > ce) {
            ce = iv[i][1];
        }
    }
    return open ? total + ce - cs : 0;
}

#define MAXS 512

/* Self time of slice i by the definition. */
static int64_t brute_self(const sts_timeline *tl, uint32_t i)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + s[i].lane;
    int64_t iv[MAXS][2];
    size_t k = 0;
    for (uint32_t j = ln->first_slice; j < ln->first_slice + ln->slice_count && k < MAXS; j++)
        if (inside(s, j, i)) {
            iv[k][0] = s[j].ts;
            iv[k][1] = end_of(&s[j]);
            k++;
        }
    return s[i].dur - brute_union(iv, k);
}

/* 1 when two slices of the lane cross (each holds the other's start, neither holds the
 * other whole). */
static int lane_crosses(const sts_timeline *tl, uint32_t lane)
{
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + lane;
    for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++)
        for (uint32_t j = ln->first_slice; j < ln->first_slice + ln->slice_count; j++)
            if (s[i].ts < s[j].ts && s[j].ts < end_of(&s[i]) && end_of(&s[j]) > end_of(&s[i])) return 1;
    return 0;
}

static int64_t lane_union(const sts_timeline *tl, uint32_t lane, int64_t w0, int64_t w1)
{
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + lane;
    int64_t iv[MAXS][2];
    size_t k = 0;
    for (uint32_t j = ln->first_slice; j < ln->first_slice + ln->slice_count && k < MAXS; j++) {
        iv[k][0] = s[j].ts > w0 ? s[j].ts : w0;
        iv[k][1] = end_of(&s[j]) < w1 ? end_of(&s[j]) : w1;
        k++;
    }
    return brute_union(iv, k);
}

/* ---- the properties ------------------------------------------------------------------ */

typedef struct tally {
    int traces, crossing_lanes, steps, windows;
} tally;

static int check_self(const sts_timeline *tl, tally *ty)
{
    size_t n, nl;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    sts_timeline_lanes(tl, &nl);
    int64_t *self = malloc((n ? n : 1) * sizeof *self);
    int ok = sts_self_times(tl, self, NULL) == STS_OK;
    for (size_t i = 0; i < n && ok; i++) {
        if (self[i] < 0 || self[i] != brute_self(tl, (uint32_t)i)) {
            T_FAIL_AT("slice %zu (%s, ts %lld dur %lld): self %lld, by definition %lld", i,
                      sts_timeline_string(tl, s[i].name), (long long)s[i].ts, (long long)s[i].dur, (long long)self[i],
                      (long long)brute_self(tl, (uint32_t)i));
            ok = 0;
        }
    }
    for (uint32_t l = 0; l < nl && ok; l++) {
        if (lane_crosses(tl, l)) {
            ty->crossing_lanes++;
            continue;
        }
        const sts_lane *ln = sts_timeline_lanes(tl, NULL) + l;
        int64_t sum = 0;
        for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++)
            sum += self[i];
        int64_t u = lane_union(tl, l, INT64_MIN, INT64_MAX);
        if (sum != u) {
            T_FAIL_AT("lane %u without crossings: self times add to %lld, union %lld", l, (long long)sum, (long long)u);
            ok = 0;
        }
    }
    /* The names table adds up to the same self times. */
    sts_name_summary *sum = NULL;
    size_t ns = 0;
    if (ok && sts_name_summaries(tl, &sum, &ns, NULL) == STS_OK) {
        int64_t a = 0, b = 0;
        uint64_t c = 0;
        for (size_t i = 0; i < ns; i++)
            a += sum[i].self_ns, c += sum[i].count;
        for (size_t i = 0; i < n; i++)
            b += self[i];
        if (a != b || c != n) {
            T_FAIL_AT("names table: self %lld vs %lld, count %llu vs %zu", (long long)a, (long long)b,
                      (unsigned long long)c, n);
            ok = 0;
        }
    }
    free(sum);
    free(self);
    return ok;
}

static int check_busy(const sts_timeline *tl)
{
    size_t nl, np;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    sts_busy lanes[8], procs[8], all;
    if (nl > 8 || np > 8 || sts_busy_each(tl, NULL, lanes, procs, &all, NULL) != STS_OK) return 0;
    int64_t iv[MAXS][2];
    size_t k = 0;
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    for (uint32_t l = 0; l < nl; l++) {
        if (lanes[l].union_ns != lane_union(tl, l, INT64_MIN, INT64_MAX)) {
            T_FAIL_AT("lane %u busy %lld", l, (long long)lanes[l].union_ns);
            return 0;
        }
    }
    for (uint32_t p = 0; p < np; p++) {
        k = 0;
        for (uint32_t l = 0; l < nl; l++)
            for (uint32_t j = ln[l].first_slice; ln[l].process == p && j < ln[l].first_slice + ln[l].slice_count; j++) {
                iv[k][0] = s[j].ts;
                iv[k][1] = end_of(&s[j]);
                k++;
            }
        if (procs[p].union_ns != brute_union(iv, k) || procs[p].union_ns > procs[p].span_ns) {
            T_FAIL_AT("process %u busy %lld, union %lld", p, (long long)procs[p].union_ns,
                      (long long)brute_union(iv, k));
            return 0;
        }
    }
    size_t n;
    sts_timeline_slices(tl, &n);
    k = 0;
    for (size_t j = 0; j < n; j++) {
        iv[k][0] = s[j].ts;
        iv[k][1] = end_of(&s[j]);
        k++;
    }
    if (all.union_ns != brute_union(iv, k) || all.slices != n) {
        T_FAIL_AT("all busy %lld", (long long)all.union_ns);
        return 0;
    }
    return 1;
}

/* The children by definition: inside the step, inside no other slice inside it. Adds
 * each child's duration to by_name[its name] (by_name may be NULL). */
static int64_t brute_children_union(const sts_timeline *tl, uint32_t step, size_t *count, int64_t *by_name)
{
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + s[step].lane;
    int64_t iv[MAXS][2];
    size_t k = 0;
    for (uint32_t j = ln->first_slice; j < ln->first_slice + ln->slice_count; j++) {
        if (!inside(s, j, step)) continue;
        int outer = 1;
        for (uint32_t m = ln->first_slice; m < ln->first_slice + ln->slice_count && outer; m++)
            if (m != j && inside(s, m, step) && inside(s, j, m)) outer = 0;
        if (!outer) continue;
        if (by_name && s[j].name < 256) by_name[s[j].name] += s[j].dur;
        iv[k][0] = s[j].ts;
        iv[k][1] = end_of(&s[j]);
        k++;
    }
    *count = k;
    return brute_union(iv, k);
}

static int check_steps(const sts_timeline *tl, tally *ty)
{
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = "S";
    o.window_names = 0;
    sts_steps *st = NULL;
    if (sts_steps_find(tl, &o, &st, NULL) != STS_OK) return 0;
    size_t n, nw, nn;
    const sts_step *x = sts_steps_list(st, &n);
    const sts_step_window *w = sts_steps_windows(st, &nw);
    const sts_window_name *wn = sts_steps_window_names(st, &nn);
    const sts_step_child *ch = sts_steps_children(st, NULL);
    int ok = 1;
    for (size_t k = 0; k < n && ok; k++) {
        ty->steps++;
        size_t want_count;
        int64_t by_name[256] = { 0 };
        int64_t want = brute_children_union(tl, x[k].slice, &want_count, by_name);
        uint64_t count = 0;
        for (uint32_t c = x[k].first_child; c < x[k].first_child + x[k].child_count; c++) {
            count += ch[c].count;
            /* each name's children, exactly the slices that lie inside the step */
            if (ch[c].name >= 256 || ch[c].total_ns != by_name[ch[c].name]) {
                T_FAIL_AT("step %zu: children named %s total %lld, by definition %lld", k,
                          sts_timeline_string(tl, ch[c].name), (long long)ch[c].total_ns,
                          ch[c].name < 256 ? (long long)by_name[ch[c].name] : -1LL);
                ok = 0;
            }
        }
        ok = ok && x[k].children_ns == want && count == want_count && x[k].unattributed_ns >= 0 &&
             x[k].children_ns + x[k].unattributed_ns == x[k].dur && x[k].children_ns <= x[k].dur;
        if (!ok)
            T_FAIL_AT("step %zu: children %lld (%llu) vs %lld (%zu), unattributed %lld, dur %lld", k,
                      (long long)x[k].children_ns, (unsigned long long)count, (long long)want, want_count,
                      (long long)x[k].unattributed_ns, (long long)x[k].dur);
        int64_t w0 = x[k].ts, w1 = x[k].ts + x[k].dur;
        for (uint32_t i = x[k].first_window; ok && i < x[k].first_window + x[k].window_count; i++) {
            ty->windows++;
            int64_t names = 0;
            for (uint32_t m = w[i].first_name; m < w[i].first_name + w[i].name_count; m++)
                names += wn[m].ns;
            int64_t u = lane_union(tl, w[i].lane, w0, w1);
            ok = w[i].lane != x[k].lane && w[i].busy_ns > 0 && w[i].busy_ns <= x[k].dur && w[i].busy_ns == u &&
                 names == w[i].busy_ns;
            if (!ok)
                T_FAIL_AT("step %zu window on lane %u: busy %lld, union %lld, names %lld, dur %lld", k, w[i].lane,
                          (long long)w[i].busy_ns, (long long)u, (long long)names, (long long)x[k].dur);
        }
        /* A lane busy in the window but not listed would be a lost window. */
        size_t nl;
        sts_timeline_lanes(tl, &nl);
        for (uint32_t l = 0; ok && l < nl; l++) {
            if (l == x[k].lane || lane_union(tl, l, w0, w1) == 0) continue;
            int listed = 0;
            for (uint32_t i = x[k].first_window; i < x[k].first_window + x[k].window_count; i++)
                listed |= w[i].lane == l;
            ok = listed;
            if (!ok) T_FAIL_AT("step %zu: lane %u is busy in the window but has no window", k, l);
        }
    }
    sts_steps_free(st);
    return ok;
}

/* Cut to a window, every self time is that of the cut slices, and never negative. */
static int check_window_scope(const sts_timeline *tl, rng *r)
{
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    if (in->ts_max <= in->ts_min) return 1;
    int64_t span = in->ts_max - in->ts_min;
    sts_scope sc = STS_SCOPE_INIT;
    sc.windowed = 1;
    sc.start_ns = in->ts_min + below(r, span);
    sc.end_ns = sc.start_ns + 1 + below(r, span);
    sts_name_summary *sum = NULL;
    size_t ns = 0;
    sts_busy all;
    if (sts_name_summaries_in(tl, &sc, &sum, &ns, NULL) != STS_OK || sts_busy_each(tl, &sc, NULL, NULL, &all, NULL))
        return 0;
    int64_t total = 0;
    int ok = 1;
    for (size_t i = 0; i < ns; i++) {
        total += sum[i].total_ns;
        ok = ok && sum[i].self_ns >= 0 && sum[i].self_ns <= sum[i].total_ns && sum[i].max_ns <= sc.end_ns - sc.start_ns;
    }
    /* The cut durations add up to the slices' overlap with the window. */
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    int64_t want = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t a = s[i].ts > sc.start_ns ? s[i].ts : sc.start_ns;
        int64_t b = end_of(&s[i]) < sc.end_ns ? end_of(&s[i]) : sc.end_ns;
        if (b > a) want += b - a;
    }
    if (!ok || total != want || all.union_ns > sc.end_ns - sc.start_ns) {
        T_FAIL_AT("window [%lld, %lld): totals %lld vs %lld, busy %lld", (long long)sc.start_ns, (long long)sc.end_ns,
                  (long long)total, (long long)want, (long long)all.union_ns);
        ok = 0;
    }
    free(sum);
    return ok;
}

TEST(random_traces_match_the_definitions)
{
    rng r = { 0x243f6a8885a308d3u };
    tally ty = { 0 };
    tbuf b = { 0 };
    for (int t = 0; t < 3000; t++) {
        b.n = 0;
        random_trace(&r, &b, t % 2);
        sts_timeline *tl = open_text(b.p, b.n);
        if (!tl) {
            T_FAIL_AT("trace %d did not open", t);
            break;
        }
        ty.traces++;
        int ok = check_self(tl, &ty) && check_busy(tl) && check_steps(tl, &ty) && check_window_scope(tl, &r);
        if (!ok) fprintf(stderr, "trace %d: %.*s\n", t, (int)b.n, b.p);
        sts_timeline_free(tl);
        if (!ok) break;
    }
    free(b.p);
    printf("  %d traces, %d lanes with crossing slices, %d steps, %d windows\n", ty.traces, ty.crossing_lanes, ty.steps,
           ty.windows);
    T_TRUE(ty.crossing_lanes > 100 && ty.steps > 1000 && ty.windows > 500);
}

/* A random trace over many lanes whose slices carry hlo_op and hlo_module args now and
 * then, for the names table by parts. */
static void random_hlo_trace(rng *r, tbuf *b, int nlanes)
{
    static const char *const OPS[] = { "fusion.1", "dot.2", "copy.3", "reduce.4" };
    static const char *const MODS[] = { "jit_step", "jit_eval" };
    int n = 1 + (int)below(r, 300);
    putf(b, "[");
    for (int i = 0; i < n; i++) {
        int lane = (int)below(r, nlanes);
        int64_t ts = below(r, 200) * 500, dur = below(r, 8) ? (1 + below(r, 40)) * 500 : 0;
        putf(b, "%s{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", i ? "," : "", NAMES[below(r, 5)],
             1 + lane % 7, 1 + lane);
        put_us(b, ts);
        putf(b, ",\"dur\":");
        put_us(b, dur);
        int k = (int)below(r, 4);
        if (k == 1)
            putf(b, ",\"args\":{\"hlo_op\":\"%s\",\"hlo_module\":\"%s\"}", OPS[below(r, 4)], MODS[below(r, 2)]);
        else if (k == 2)
            putf(b, ",\"args\":{\"hlo_module\":\"%s\"}", MODS[below(r, 2)]);
        else if (k == 3)
            putf(b, ",\"args\":{\"hlo_op\":\"%s\"}", OPS[below(r, 4)]);
        putf(b, "}");
    }
    putf(b, "]");
}

/* A names-table row worked out from the definitions: the key as text, and the kept
 * slices' durations and (unwindowed) self times. */
typedef struct ref_row {
    char key[96];
    uint64_t count;
    int64_t total, self, min, max;
    int64_t durs[MAXS];
} ref_row;

static const char *arg_text(const sts_timeline *tl, const sts_slice *s, const char *key)
{
    const sts_arg *a = sts_timeline_find_arg(tl, s->args, key);
    return a && a->type == STS_ARG_STRING ? sts_timeline_string(tl, a->v.str) : NULL;
}

/* The row key of a slice as the grouping defines it. */
static void slice_key(const sts_timeline *tl, const sts_slice *s, sts_group g, char *out, size_t cap)
{
    const char *op = arg_text(tl, s, "hlo_op"), *mod = arg_text(tl, s, "hlo_module");
    if (g == STS_GROUP_HLO_OP && op)
        snprintf(out, cap, "op %s|%s", mod ? mod : "-", op);
    else if (g == STS_GROUP_HLO_MODULE && mod)
        snprintf(out, cap, "module %s", mod);
    else
        snprintf(out, cap, "name %s", sts_timeline_string(tl, s->name));
}

static void row_key(const sts_timeline *tl, const sts_name_summary *x, sts_group g, char *out, size_t cap)
{
    const char *name = sts_timeline_string(tl, x->name);
    if (x->grouped && g == STS_GROUP_HLO_OP)
        snprintf(out, cap, "op %s|%s", x->module == STS_NONE ? "-" : sts_timeline_string(tl, x->module), name);
    else if (x->grouped)
        snprintf(out, cap, "module %s", name);
    else
        snprintf(out, cap, "name %s", name);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The reference rows of a scope (lanes, window, name prefix "a" or "b", grouping). */
static size_t ref_rows(const sts_timeline *tl, const sts_scope *sc, ref_row *ref, size_t cap)
{
    size_t nsl, nr = 0;
    const sts_slice *s = sts_timeline_slices(tl, &nsl);
    for (size_t i = 0; i < nsl; i++) {
        int64_t ts, end, w[2] = { sc->start_ns, sc->end_ns };
        int on = !sc->lanes;
        for (size_t k = 0; k < sc->nlanes; k++)
            on |= sc->lanes[k] == s[i].lane;
        const char *name = sts_timeline_string(tl, s[i].name);
        if (!on || !sts_an_clip(&s[i], sc->windowed ? w : NULL, &ts, &end) ||
            (sc->name && name[0] != 'a' && name[0] != 'b'))
            continue;
        char key[96];
        slice_key(tl, &s[i], sc->group, key, sizeof key);
        size_t r = 0;
        while (r < nr && strcmp(ref[r].key, key) != 0)
            r++;
        if (r == nr) {
            if (nr == cap) return SIZE_MAX;
            memset(&ref[nr], 0, sizeof *ref);
            snprintf(ref[nr].key, sizeof ref[nr].key, "%s", key);
            ref[nr].min = INT64_MAX;
            ref[nr++].max = INT64_MIN;
        }
        ref_row *x = &ref[r];
        int64_t d = end - ts;
        if (x->count == MAXS) return SIZE_MAX;
        x->durs[x->count++] = d;
        x->total += d;
        x->self += sc->windowed ? 0 : brute_self(tl, (uint32_t)i);
        if (d < x->min) x->min = d;
        if (d > x->max) x->max = d;
    }
    return nr;
}

/* Each row of the table against the reference: the same keys, counts, totals, self
 * times (unwindowed), extremes and exact medians. */
static int rows_match(const sts_timeline *tl, const sts_scope *sc, ref_row *ref, size_t nr, const sts_name_summary *x,
                      size_t n)
{
    if (n != nr) return 0;
    for (size_t i = 0; i < n; i++) {
        char key[96];
        row_key(tl, &x[i], sc->group, key, sizeof key);
        size_t r = 0;
        while (r < nr && strcmp(ref[r].key, key) != 0)
            r++;
        if (r == nr) return 0;
        ref_row *y = &ref[r];
        qsort(y->durs, y->count, sizeof *y->durs, cmp_i64);
        size_t m = y->count / 2;
        int64_t med = y->count % 2 ? y->durs[m] : y->durs[m - 1] + (y->durs[m] - y->durs[m - 1]) / 2;
        if (x[i].count != y->count || x[i].total_ns != y->total || x[i].min_ns != y->min || x[i].max_ns != y->max ||
            x[i].median_ns != med || (!sc->windowed && x[i].self_ns != y->self))
            return 0;
    }
    return 1;
}

/* The names table made by parts of the lanes on threads side by side, for any number
 * of parts, grouping, window, lanes and name pattern, row for row against the
 * definitions. */
#if defined(__SANITIZE_THREAD__)
#define PARTS_TRACES 40 /* each thread costs ThreadSanitizer a millisecond */
#elif defined(__SANITIZE_ADDRESS__)
#define PARTS_TRACES 100 /* and AddressSanitizer a fraction of one */
#else
#define PARTS_TRACES 400
#endif

TEST(names_by_parts_match_the_definitions)
{
    static const unsigned JOBS[] = { 1, 2, 3, 4, 7, 64, 1000 };
    static ref_row ref[32];
    rng r = { 0x13198a2e03707344u };
    tbuf b = { 0 };
    int compared = 0, multi = 0, grouped = 0;
    for (int t = 0; t < PARTS_TRACES; t++) {
        b.n = 0;
        random_hlo_trace(&r, &b, 1 + (int)below(&r, 60));
        sts_timeline *tl = open_text(b.p, b.n);
        if (!tl) {
            T_FAIL_AT("trace %d did not open", t);
            break;
        }
        size_t nl;
        sts_timeline_lanes(tl, &nl);
        const sts_timeline_info *in = sts_timeline_get_info(tl);
        multi += nl > 1;
        uint32_t lanes[64];
        size_t nk = 0;
        for (uint32_t l = 0; l < nl && nk < 64; l++)
            if (below(&r, 2)) lanes[nk++] = l;
        sts_scope sc = STS_SCOPE_INIT;
        sc.group = (sts_group)below(&r, 3);
        if (below(&r, 3) == 0 && in->ts_max > in->ts_min) {
            sc.windowed = 1;
            sc.start_ns = in->ts_min + below(&r, in->ts_max - in->ts_min);
            sc.end_ns = sc.start_ns + 1 + below(&r, in->ts_max - in->ts_min);
        }
        if (below(&r, 3) == 0) sc.lanes = lanes, sc.nlanes = nk;
        if (below(&r, 8) == 0) sc.name = "^[ab]";
        size_t nr = ref_rows(tl, &sc, ref, sizeof ref / sizeof *ref);
        int ok = nr != SIZE_MAX;
        if (!ok) T_FAIL_AT("trace %d: more rows or slices than the reference holds", t);
        for (size_t j = 0; ok && j < sizeof JOBS / sizeof *JOBS; j++) {
            sts_name_summary *x = NULL;
            size_t n = 0;
            sc.jobs = JOBS[j];
            ok = sts_name_summaries_in(tl, &sc, &x, &n, NULL) == STS_OK;
            if (ok && !rows_match(tl, &sc, ref, nr, x, n)) {
                T_FAIL_AT("trace %d, group %d, %u jobs: %zu rows unlike the %zu by definition", t, (int)sc.group,
                          JOBS[j], n, nr);
                ok = 0;
            }
            for (size_t i = 0; i < n; i++)
                grouped += x[i].grouped;
            free(x);
            compared++;
        }
        sts_timeline_free(tl);
        if (!ok) {
            fprintf(stderr, "trace %d: %.*s\n", t, (int)b.n, b.p);
            break;
        }
    }
    free(b.p);
    printf("  %d tables compared, %d traces with several lanes, %d grouped rows\n", compared, multi, grouped);
    T_TRUE(compared == PARTS_TRACES * 7 && multi > PARTS_TRACES * 3 / 4 && grouped > PARTS_TRACES * 2);
}

/* sts_analysis_run() against its parts computed one by one (sts_name_summaries_in(),
 * sts_busy_each(), the display orders) and its overlap groups against a grouping done
 * here, on one thread and on several; the last trace is large enough (2^15 slices and
 * more) that the names are ranked on threads beside the busy times. */
static int same_busy(const sts_busy *a, const sts_busy *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].slices != b[i].slices || a[i].union_ns != b[i].union_ns || a[i].start_ns != b[i].start_ns ||
            a[i].end_ns != b[i].end_ns || a[i].span_ns != b[i].span_ns)
            return 0;
    return 1;
}

static int same_rows(const sts_name_summary *a, const sts_name_summary *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].name != b[i].name || a[i].module != b[i].module || a[i].grouped != b[i].grouped ||
            a[i].count != b[i].count || a[i].total_ns != b[i].total_ns || a[i].self_ns != b[i].self_ns ||
            a[i].min_ns != b[i].min_ns || a[i].median_ns != b[i].median_ns || a[i].max_ns != b[i].max_ns)
            return 0;
    return 1;
}

static int check_groups(const sts_timeline *tl, const sts_analysis *a)
{
    size_t no, ng;
    const sts_overlap *ov = sts_timeline_overlaps(tl, &no);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const sts_overlap_group *g = sts_analysis_overlap_groups(a, &ng);
    uint64_t total = 0;
    for (size_t k = 0; k < ng; k++) {
        uint64_t count = 0;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        size_t first = SIZE_MAX;
        for (size_t i = 0; i < no; i++) {
            if (s[ov[i].slice].name != g[k].name || s[ov[i].parent].name != g[k].parent) continue;
            count++;
            lo = ov[i].overrun_ns < lo ? ov[i].overrun_ns : lo;
            hi = ov[i].overrun_ns > hi ? ov[i].overrun_ns : hi;
            if (first == SIZE_MAX) first = i;
        }
        int ordered =
            k == 0 || g[k - 1].count > g[k].count || (g[k - 1].count == g[k].count && g[k - 1].first < g[k].first);
        if (count != g[k].count || lo != g[k].min_ns || hi != g[k].max_ns || first != g[k].first ||
            g[k].lane != s[ov[first].slice].lane || !ordered)
            return 0;
        total += count;
    }
    return total == no;
}

static int check_analysis(const sts_timeline *tl, const sts_scope *sc, unsigned jobs)
{
    size_t nl, np;
    sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    sts_analysis_options o = STS_ANALYSIS_OPTIONS_INIT;
    o.jobs = jobs;
    sts_analysis *a = NULL;
    sts_name_summary *x = NULL;
    size_t nx = 0;
    sts_busy *busy = malloc((nl + 1) * sizeof *busy), *pbusy = malloc((np + 1) * sizeof *pbusy), all;
    uint32_t *order = malloc((nl + 1) * sizeof *order), *porder = malloc((np + 1) * sizeof *porder);
    int ok = busy && pbusy && order && porder && sts_analysis_run(tl, sc, &o, &a, NULL) == STS_OK &&
             sts_name_summaries_in(tl, sc, &x, &nx, NULL) == STS_OK &&
             sts_busy_each(tl, sc, busy, pbusy, &all, NULL) == STS_OK;
    if (ok) {
        sts_lane_display_order(tl, order);
        ok = sts_process_display_order(tl, order, porder, NULL) == STS_OK;
    }
    if (ok) {
        size_t n, m, ml, mp;
        const sts_name_summary *y = sts_analysis_names(a, &n);
        ok = n == nx && same_rows(x, y, n);
        ok = ok && same_busy(sts_analysis_lane_busy(a, &ml), busy, nl) && ml == nl;
        ok = ok && same_busy(sts_analysis_process_busy(a, &mp), pbusy, np) && mp == np;
        ok = ok && same_busy(sts_analysis_busy(a), &all, 1);
        ok = ok && memcmp(sts_analysis_lane_order(a, &m), order, nl * sizeof *order) == 0 && m == nl;
        ok = ok && memcmp(sts_analysis_process_order(a, &m), porder, np * sizeof *porder) == 0 && m == np;
        ok = ok && check_groups(tl, a);
        ok = ok && sts_analysis_scoped(a) == (sc->lanes || sc->windowed || sc->name);
    }
    sts_analysis_free(a);
    free(x);
    free(busy);
    free(pbusy);
    free(order);
    free(porder);
    return ok;
}

/* Many nested pairs on 8 lanes, one in 16 overrunning its parent by 3 us (an
 * overlap). */
static void large_trace(tbuf *b, int pairs)
{
    putf(b, "[");
    for (int i = 0; i < pairs; i++) {
        int64_t ts = (int64_t)(i / 8) * 100;
        putf(b, "%s{\"ph\":\"X\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":50}", i ? "," : "",
             NAMES[i % 5], 1 + i % 8, (long long)ts);
        putf(b, ",{\"ph\":\"X\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":%d}", NAMES[(i + 1) % 5],
             1 + i % 8, (long long)ts + 10, i % 16 ? 20 : 43);
    }
    putf(b, "]");
}

TEST(analysis_run_matches_its_parts)
{
    rng r = { 0xa4093822299f31d0u };
    tbuf b = { 0 };
    int compared = 0, large = 0;
    for (int t = 0; t <= PARTS_TRACES; t++) {
        b.n = 0;
        if (t < PARTS_TRACES)
            random_hlo_trace(&r, &b, 1 + (int)below(&r, 20));
        else
            large_trace(&b, 20000);
        sts_timeline *tl = open_text(b.p, b.n);
        if (!tl) {
            T_FAIL_AT("trace %d did not open", t);
            break;
        }
        size_t nl, ns;
        sts_timeline_lanes(tl, &nl);
        sts_timeline_slices(tl, &ns);
        const sts_timeline_info *in = sts_timeline_get_info(tl);
        uint32_t lanes[64];
        size_t nk = 0;
        for (uint32_t l = 0; l < nl && nk < 64; l++)
            if (below(&r, 2)) lanes[nk++] = l;
        sts_scope sc = STS_SCOPE_INIT;
        sc.group = (sts_group)below(&r, 3);
        if (below(&r, 3) == 0 && in->ts_max > in->ts_min) {
            sc.windowed = 1;
            sc.start_ns = in->ts_min + below(&r, in->ts_max - in->ts_min);
            sc.end_ns = sc.start_ns + 1 + below(&r, in->ts_max - in->ts_min);
        }
        if (below(&r, 3) == 0) sc.lanes = lanes, sc.nlanes = nk;
        if (below(&r, 8) == 0) sc.name = "^[ab]";
        int ok = 1;
        for (unsigned jobs = 1; ok && jobs <= 4; jobs += 3, compared++)
            if (!check_analysis(tl, &sc, jobs)) {
                T_FAIL_AT("trace %d, %u jobs: the analysis differs from its parts", t, jobs);
                ok = 0;
            }
        large += ns >= (1u << 15) && in->overlaps > 1000;
        sts_timeline_free(tl);
        if (!ok) break;
    }
    free(b.p);
    T_TRUE(compared == 2 * (PARTS_TRACES + 1) && large == 1);
}

/* Each algorithm for crossing intervals (the segment tree, the scan, and the staged
 * one that picks) against the definition, on intervals that cross heavily, tie, and
 * have zero length. */
TEST(inside_union_algorithms_match_brute_force)
{
    rng r = { 0x13198a2e03707344u };
    sts_an_scratch sc = { 0 };
    for (int t = 0; t < 2000; t++) {
        size_t n = 1 + (size_t)below(&r, 60);
        sts_an_iv iv[64];
        for (size_t k = 0; k < n; k++) {
            iv[k].ts = below(&r, 20);
            iv[k].end = iv[k].ts + below(&r, 12);
            iv[k].idx = (uint32_t)k;
            iv[k].unused = 0;
        }
        /* containment order */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0; j--) {
                sts_an_iv *a = &iv[j - 1], *c = &iv[j];
                int swap = a->ts > c->ts || (a->ts == c->ts && a->end < c->end) ||
                           (a->ts == c->ts && a->end == c->end && a->idx > c->idx);
                if (!swap) break;
                sts_an_iv tmp = *a;
                *a = *c;
                *c = tmp;
            }
        int64_t u[64], v[64], w2[64];
        T_EQ_I64(sts_an_inside_union_general(iv, n, u, &sc), 0);
        T_EQ_I64(sts_an_inside_union(iv, n, v, &sc), 0);
        T_EQ_I64(sts_an_inside_union_scan(iv, n, w2, &sc, UINT64_MAX), 0);
        for (size_t i = 0; i < n; i++) {
            int64_t w[64][2];
            size_t m = 0;
            for (size_t j = i + 1; j < n; j++)
                if (iv[j].ts < iv[i].end && iv[j].end <= iv[i].end) {
                    w[m][0] = iv[j].ts;
                    w[m][1] = iv[j].end;
                    m++;
                }
            int64_t want = brute_union(w, m);
            if (u[i] != want || v[i] != want || w2[i] != want) {
                T_FAIL_AT("trace %d interval %zu [%lld, %lld): general %lld, staged %lld, scan %lld, definition %lld",
                          t, i, (long long)iv[i].ts, (long long)iv[i].end, (long long)u[i], (long long)v[i],
                          (long long)w2[i], (long long)want);
                t = 2000;
                break;
            }
        }
    }
    sts_an_scratch_free(&sc);
}

/* 100,000 processes of 10 lanes each: every per-process quantity at once, with no
 * step that looks at every lane once per process. Each lane t of process p holds one
 * slice [p ms + 10t us, + 15 us), so a process is busy 9 * 10 + 15 = 105 us. */
TEST(a_million_lanes_in_100k_processes)
{
    enum { PROCS = 100000, LANES = 10 };
    char path[128];
    snprintf(path, sizeof path, "/tmp/sts_test_props_scale_%d.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) T_SKIP("cannot write %s", path);
    fputs("[", f);
    for (int p = 0; p < PROCS; p++)
        for (int t = 0; t < LANES; t++)
            fprintf(f, "%s{\"ph\":\"X\",\"name\":\"n%d\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":15}\n",
                    p || t ? "," : "", t, p + 1, t + 1, p * 1000 + 10 * t);
    fputs("]", f);
    fclose(f);
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_timeline_open(path, NULL, &tl, &err);
    remove(path);
    T_EQ_I64(st, STS_OK);
    if (st != STS_OK) return;
    size_t np, nl;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    const sts_process *pr = sts_timeline_processes(tl, &np);
    T_EQ_U64(np, PROCS);
    T_EQ_U64(nl, (uint64_t)PROCS * LANES);
    sts_busy *lanes = malloc(nl * sizeof *lanes), *procs = malloc(np * sizeof *procs), all;
    T_EQ_I64(sts_busy_each(tl, NULL, lanes, procs, &all, NULL), STS_OK);
    int bad = 0;
    for (size_t p = 0; p < np && !bad; p++) {
        int64_t start = (pr[p].pid - 1) * 1000000;
        bad = procs[p].union_ns != 105000 || procs[p].start_ns != start || procs[p].end_ns != start + 105000 ||
              procs[p].slices != LANES;
        if (bad)
            T_FAIL_AT("process %zu (pid %lld): busy %lld from %lld", p, (long long)pr[p].pid,
                      (long long)procs[p].union_ns, (long long)procs[p].start_ns);
    }
    for (size_t l = 0; l < nl && !bad; l++) {
        bad = lanes[l].union_ns != 15000 || lanes[l].slices != 1;
        if (bad) T_FAIL_AT("lane %zu (tid %lld): busy %lld", l, (long long)ln[l].tid, (long long)lanes[l].union_ns);
    }
    T_EQ_I64(all.union_ns, (int64_t)PROCS * 105000);
    T_EQ_U64(all.slices, (uint64_t)PROCS * LANES);
    sts_name_summary *sum = NULL;
    size_t ns = 0;
    T_EQ_I64(sts_name_summaries(tl, &sum, &ns, NULL), STS_OK);
    T_EQ_U64(ns, LANES);
    for (size_t i = 0; i < ns; i++) {
        T_EQ_U64(sum[i].count, PROCS);
        T_EQ_I64(sum[i].self_ns, (int64_t)PROCS * 15000);
    }
    uint32_t *order = malloc(nl * sizeof *order);
    sts_lane_display_order(tl, order);
    T_EQ_I64(ln[order[nl - 1]].tid, LANES);
    T_EQ_I64(pr[ln[order[nl - 1]].process].pid, PROCS);
    free(order);
    free(sum);
    free(lanes);
    free(procs);
    sts_timeline_free(tl);
}

/* A lane walked a run at a time (sts_an_view_runs) gives every slice the inside union
 * the whole lane's view gives it, and each cut is where nothing before it is still
 * open: on random lanes with crossing slices and ties, for runs of 1, 2 and 5. */
TEST(view_runs_walk_as_the_whole_lane)
{
    rng r = { 0xa4093822299f31d0u };
    tbuf b = { 0 };
    sts_an_view whole = { 0 }, part = { 0 };
    sts_an_scratch sc = { 0 };
    uint32_t *cuts = NULL;
    size_t ncuts = 0, cap = 0, runs = 0, cut_lanes = 0, bad = 0;
    for (int t = 0; t < 1500 && !bad; t++) {
        b.n = 0;
        random_trace(&r, &b, t % 2);
        sts_timeline *tl = open_text(b.p, b.n);
        if (!tl) {
            T_FAIL_AT("trace %d did not open", t);
            break;
        }
        size_t nl;
        const sts_lane *ln = sts_timeline_lanes(tl, &nl);
        const sts_slice *s = sts_timeline_slices(tl, NULL);
        for (uint32_t l = 0; l < nl && !bad; l++) {
            T_EQ_I64(sts_an_view_load(&whole, tl, l, NULL), 0);
            int64_t u_whole[64], u_part[64], by_idx[64];
            if (whole.n > 64) continue;
            T_EQ_I64(sts_an_inside_union(whole.iv, whole.n, u_whole, &sc), 0);
            for (size_t k = 0; k < whole.n; k++)
                by_idx[whole.iv[k].idx - ln[l].first_slice] = u_whole[k];
            static const size_t parts[] = { 1, 2, 5 };
            for (size_t pi = 0; pi < 3 && !bad; pi++) {
                T_EQ_I64(sts_an_view_runs(tl, l, parts[pi], &cuts, &ncuts, &cap), 0);
                bad |= ncuts < 2 || cuts[0] != ln[l].first_slice ||
                       cuts[ncuts - 1] != ln[l].first_slice + ln[l].slice_count;
                cut_lanes += ncuts > 2;
                for (size_t c = 0; c + 1 < ncuts && !bad; c++) {
                    runs++;
                    if (c + 2 < ncuts && cuts[c + 1] - cuts[c] < parts[pi]) bad = 1;
                    for (uint32_t i = ln[l].first_slice; i < cuts[c] && !bad; i++) /* nothing open at the cut */
                        if (end_of(&s[i]) > s[cuts[c]].ts && s[i].dur >= 0) bad = 1;
                    T_EQ_I64(sts_an_view_load_range(&part, tl, cuts[c], cuts[c + 1] - cuts[c], NULL), 0);
                    T_EQ_I64(sts_an_inside_union(part.iv, part.n, u_part, &sc), 0);
                    for (size_t k = 0; k < part.n && !bad; k++)
                        bad = u_part[k] != by_idx[part.iv[k].idx - ln[l].first_slice];
                }
                if (bad) T_FAIL_AT("trace %d lane %u, runs of %zu: %.*s", t, l, parts[pi], (int)b.n, b.p);
            }
        }
        sts_timeline_free(tl);
    }
    printf("  %zu runs, %zu lanes cut\n", runs, cut_lanes);
    T_TRUE(cut_lanes > 500);
    sts_an_view_free(&whole);
    sts_an_view_free(&part);
    sts_an_scratch_free(&sc);
    free(cuts);
    free(b.p);
}

/* One lane of 150,000 slices, walked by the names table in runs (more than one): each
 * name's self time is the sum of the self times sts_self_times() gives its slices from
 * the whole lane's view, and its count and total those of the slices. Trees of a root,
 * a child and a grandchild, every seventh child crossing out of its root. */
TEST(names_of_a_lane_longer_than_a_walk_run)
{
    enum { TREES = 50000 };
    tbuf b = { 0 };
    putf(&b, "[");
    for (int i = 0; i < TREES; i++) {
        long long t = (long long)i * 100;
        putf(&b, "%s{\"ph\":\"X\",\"name\":\"r\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":60}", i ? "," : "", t);
        putf(&b, ",{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":%d}", t + 10, i % 7 ? 40 : 70);
        putf(&b, ",{\"ph\":\"X\",\"name\":\"g\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":5}", t + 20);
    }
    putf(&b, "]");
    sts_timeline *tl = open_text(b.p, b.n);
    free(b.p);
    T_TRUE(tl != NULL);
    if (!tl) return;
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    T_EQ_U64(n, 3 * TREES);
    uint32_t *cuts = NULL;
    size_t ncuts = 0, cap = 0;
    T_EQ_I64(sts_an_view_runs(tl, 0, (size_t)1 << 16, &cuts, &ncuts, &cap), 0);
    T_TRUE(ncuts >= 4); /* at least two runs of 65,536 and the rest */
    free(cuts);
    int64_t *self = malloc(n * sizeof *self);
    T_EQ_I64(sts_self_times(tl, self, NULL), STS_OK);
    int64_t want_self[3] = { 0 }, want_total[3] = { 0 };
    uint64_t want_count[3] = { 0 };
    for (size_t i = 0; i < n; i++) {
        int k = strcmp(sts_timeline_string(tl, s[i].name), "r") == 0   ? 0
                : strcmp(sts_timeline_string(tl, s[i].name), "c") == 0 ? 1
                                                                       : 2;
        want_self[k] += self[i];
        want_total[k] += s[i].dur;
        want_count[k]++;
    }
    free(self);
    sts_name_summary *sum = NULL;
    size_t ns = 0;
    T_EQ_I64(sts_name_summaries(tl, &sum, &ns, NULL), STS_OK);
    T_EQ_U64(ns, 3);
    for (size_t i = 0; i < ns; i++) {
        const char *name = sts_timeline_string(tl, sum[i].name);
        int k = strcmp(name, "r") == 0 ? 0 : strcmp(name, "c") == 0 ? 1 : 2;
        T_EQ_I64(sum[i].self_ns, want_self[k]);
        T_EQ_I64(sum[i].total_ns, want_total[k]);
        T_EQ_U64(sum[i].count, want_count[k]);
    }
    /* and the self times are those of the trees' shape: a root holds its child unless
     * the child crosses out of it, and holds the grandchild either way */
    int64_t crossing = (TREES + 6) / 7, plain = TREES - crossing;
    T_EQ_I64(want_self[0], (plain * 20 + crossing * 55) * 1000);
    T_EQ_I64(want_self[1], (plain * 35 + crossing * 65) * 1000);
    T_EQ_I64(want_self[2], (int64_t)TREES * 5 * 1000);
    free(sum);
    sts_timeline_free(tl);
}

/* A staircase of intervals that all cross each other, inside one that holds them all:
 * the scan would take quadratic time, so it gives up within its budget and the staged
 * algorithm answers with the segment tree, still exactly. */
TEST(crossing_staircase_falls_back_and_stays_exact)
{
    enum { N = 4000 };
    sts_an_iv *iv = malloc((N + 1) * sizeof *iv);
    int64_t *u = malloc((N + 1) * sizeof *u);
    sts_an_scratch sc = { 0 };
    iv[0].ts = 0;
    iv[0].end = 3 * N;
    iv[0].idx = 0;
    for (uint32_t i = 1; i <= N; i++) {
        iv[i].ts = i;
        iv[i].end = i + N;
        iv[i].idx = i;
    }
    T_EQ_I64(sts_an_inside_union_scan(iv, N + 1, u, &sc, 24 * (uint64_t)N), 1);
    T_EQ_I64(sts_an_inside_union(iv, N + 1, u, &sc), 0);
    /* Inside the outer one: every step of the staircase, covering [1, 2N). Inside a
     * step: nothing (each later one ends after it). */
    T_EQ_I64(u[0], 2 * N - 1);
    int64_t others = 0;
    for (uint32_t i = 1; i <= N; i++)
        others += u[i];
    T_EQ_I64(others, 0);
    sts_an_scratch_free(&sc);
    free(iv);
    free(u);
}

/* Slices of one lane in containment order, for the check below. */
static int by_containment(const void *a, const void *b, void *ctx)
{
    const sts_slice *s = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return before(s, x, y) ? -1 : before(s, y, x) ? 1 : 0;
}

/* Every slice of a real trace: self >= 0 and equal to the definition, computed by
 * walking forward from each slice over what starts inside it. */
static void check_trace_self(const char *path, int *files, size_t *slices)
{
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open(path, NULL, &tl, &err) != STS_OK) {
        T_FAIL_AT("%s: %s", path, err.message);
        return;
    }
    size_t n, nl;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    int64_t *self = malloc((n ? n : 1) * sizeof *self);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    int64_t(*iv)[2] = malloc((n ? n : 1) * sizeof *iv);
    T_EQ_I64(sts_self_times(tl, self, NULL), STS_OK);
    int bad = 0;
    for (size_t l = 0; l < nl && !bad; l++) {
        uint32_t m = ln[l].slice_count;
        for (uint32_t k = 0; k < m; k++)
            order[k] = ln[l].first_slice + k;
        qsort_r(order, m, sizeof *order, by_containment, (void *)s);
        for (uint32_t k = 0; k < m && !bad; k++) {
            uint32_t i = order[k];
            size_t c = 0;
            for (uint32_t j = k + 1; j < m && s[order[j]].ts < end_of(&s[i]); j++)
                if (end_of(&s[order[j]]) <= end_of(&s[i])) {
                    iv[c][0] = s[order[j]].ts;
                    iv[c][1] = end_of(&s[order[j]]);
                    c++;
                }
            int64_t want = s[i].dur - (c ? sts_union_ns((const int64_t(*)[2])iv, c) : 0);
            if (self[i] < 0 || self[i] != want) {
                T_FAIL_AT("%s: slice %u (%s): self %lld, by definition %lld", path, i,
                          sts_timeline_string(tl, s[i].name), (long long)self[i], (long long)want);
                bad = 1;
            }
        }
    }
    (*files)++;
    *slices += n;
    free(self);
    free(order);
    free(iv);
    sts_timeline_free(tl);
}

TEST(fixture_traces_self_never_negative)
{
    const char *fx = t_fixtures();
    if (!fx) T_SKIP("no fixtures: $STEPSCOPE_FIXTURES or ../shared/fixtures (see docs/fixtures.md)");
    static const char *const dirs[] = { "chrome", "kineto", "torch-legacy", "jax" };
    int files = 0;
    size_t slices = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char dir[4200];
        if (snprintf(dir, sizeof dir, "%s/traces/%s", fx, dirs[d]) >= (int)sizeof dir) continue;
        DIR *dh = opendir(dir);
        if (!dh) continue;
        for (struct dirent *e; (e = readdir(dh));) {
            const char *x = strrchr(e->d_name, '.');
            if (!x || !(strstr(e->d_name, ".json") || strcmp(x, ".pb") == 0)) continue;
            char path[4500];
            if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
            check_trace_self(path, &files, &slices);
        }
        closedir(dh);
    }
    printf("  %d fixture traces, %zu slices\n", files, slices);
    T_TRUE(files > 10);
}

int main(void)
{
    RUN(inside_union_algorithms_match_brute_force);
    RUN(crossing_staircase_falls_back_and_stays_exact);
    RUN(view_runs_walk_as_the_whole_lane);
    RUN(names_of_a_lane_longer_than_a_walk_run);
    RUN(random_traces_match_the_definitions);
    RUN(names_by_parts_match_the_definitions);
    RUN(analysis_run_matches_its_parts);
    RUN(fixture_traces_self_never_negative);
    RUN(a_million_lanes_in_100k_processes);
    return t_done();
}
