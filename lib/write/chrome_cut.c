/* The cut: part of a timeline written as a Chrome JSON trace (sts_write_chrome_json_cut(),
 * described in stepscope/write.h and docs/cut.md).
 *
 * What makes `analyze` of the cut equal `analyze --window` of the whole is that the
 * cut writes exactly the intervals the windowed analysis looks at, in an order that
 * makes the reader rebuild the same containment:
 *   - a slice is in the window by the analysis's own rule (lib/analyze/an_impl.h,
 *     sts_an_clip): it overlaps [start, end), or it is a zero-length slice at an
 *     instant inside it; it is cut to the window;
 *   - each lane's kept slices are written in containment order (start ascending, end
 *     descending, then the uncut start and end, then slice index), the order the
 *     analysis sorts the cut intervals into. The reader keeps file order among events
 *     that start together and last as long, so two slices that the cut made identical
 *     keep the order in which the first held the second;
 *   - ts and dur are written exactly (nanoseconds as microseconds with three decimals).
 * The one place the reader could still differ is its rounding tolerance: a slice that
 * overran another and is cut by the window's end to overrun it by no more than the
 * file's resolution reads back clamped (docs/cut.md says so).
 *
 * Nothing is copied: each lane's kept slices are found by one scan of its slices up to
 * the window's end, sorted only where the cut made them leave containment order, and
 * written before the next lane's are looked at. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/search.h"
#include "base/vec.h"
#include "stepscope/write.h"
#include "write/chrome_json.h"

/* A kept slice cut to the window. */
typedef struct civ {
    int64_t ts, end;
    uint32_t idx;
    uint32_t edges; /* CUT_START | CUT_END */
} civ;

#define CUT_START 1u
#define CUT_END   2u

typedef struct cutter {
    const sts_timeline *tl;
    const sts_cut *cut;
    const sts_slice *s;
    const sts_lane *lanes;
    const sts_process *procs;
    size_t nslices, nlanes, nprocs;
    unsigned char *lane_on;
    /* --name: an exact name's id, or a regex with a verdict per string id */
    int by_name;
    uint32_t exact;
    regex_t re;
    int have_re;
    signed char *memo;
    uint32_t bound;
    uint32_t cut_key; /* the marker's key, left out where a slice already has one */
    uint8_t *kept;    /* one bit per slice: written (for the flows), NULL when there are none */
    civ *iv;
    size_t niv, cap;
    uint32_t *lane_tid;  /* per process: a kept thread lane to emit process-scoped events from */
    uint32_t first_proc; /* the first process written: global events are emitted from it */
    sts_cut_stats st;
    sts_cjw w;
} cutter;

/* ---- which slices ------------------------------------------------------------------ */

static int64_t slice_end(const sts_slice *s)
{
    int64_t e;
    if (s->dur < 0) return s->ts;
    return __builtin_add_overflow(s->ts, s->dur, &e) ? INT64_MAX : e;
}

/* The analysis's window rule (sts_an_clip): 0 when the slice lies outside. */
static int clip(const sts_slice *s, int64_t w0, int64_t w1, int64_t *ts, int64_t *end)
{
    *ts = s->ts;
    *end = slice_end(s);
    if (*ts >= w1 || *end < w0 || (*end == w0 && *end > *ts) || (*end == *ts && *ts < w0)) return 0;
    if (*ts < w0) *ts = w0;
    if (*end > w1) *end = w1;
    return 1;
}

static int name_matches(cutter *c, uint32_t name)
{
    if (!c->by_name) return 1;
    if (!c->have_re) return name == c->exact;
    if (name >= c->bound) return 0;
    if (c->memo[name] < 0)
        c->memo[name] = (signed char)(regexec(&c->re, sts_timeline_string(c->tl, name), 0, NULL, 0) == 0);
    return c->memo[name];
}

/* Instants (thread and async) are exempt from min_dur: they have no length to judge. */
static int long_enough(const cutter *c, const sts_slice *s)
{
    return c->cut->min_dur_ns <= 0 || (s->flags & STS_SLICE_INSTANT) || s->dur >= c->cut->min_dur_ns;
}

/* The first slice of the lane that starts at or after t (the lane's slices are in ts
 * order). */
static uint32_t first_at(const cutter *c, const sts_lane *ln, int64_t t)
{
    uint32_t lo = ln->first_slice, hi = ln->first_slice + ln->slice_count;
    STS_BISECT(uint32_t, lo, hi, mid, c->s[mid].ts < t);
    return lo;
}

static int civ_cmp(const void *x, const void *y, void *ctx)
{
    const civ *a = x, *b = y;
    const sts_slice *s = ctx;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    const sts_slice *p = &s[a->idx], *q = &s[b->idx];
    if (p->ts != q->ts) return p->ts < q->ts ? -1 : 1;
    int64_t ep = slice_end(p), eq = slice_end(q);
    if (ep != eq) return ep > eq ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Fills c->iv with the lane's kept slices in containment order. -1: out of memory. */
static int load_lane(cutter *c, uint32_t lane)
{
    const sts_lane *ln = &c->lanes[lane];
    int64_t w0 = c->cut->start_ns, w1 = c->cut->end_ns;
    uint32_t stop = first_at(c, ln, w1);
    c->niv = 0;
    int sorted = 1;
    for (uint32_t i = ln->first_slice; i < stop; i++) {
        const sts_slice *s = &c->s[i];
        int64_t ts, end;
        if (s->dur < 0 || !clip(s, w0, w1, &ts, &end)) continue;
        if (!long_enough(c, s)) {
            c->st.short_left_out++;
            continue;
        }
        if (sts_grow((void **)&c->iv, &c->cap, c->niv + 1, sizeof *c->iv) != 0) return -1;
        civ *v = &c->iv[c->niv++];
        v->ts = ts;
        v->end = end;
        v->idx = i;
        v->edges = (s->ts < w0 ? CUT_START : 0) | (slice_end(s) > w1 ? CUT_END : 0);
        if (sorted && c->niv > 1 && civ_cmp(v - 1, v, (void *)c->s) > 0) sorted = 0;
    }
    if (!sorted) qsort_r(c->iv, c->niv, sizeof *c->iv, civ_cmp, (void *)c->s);
    if (!c->by_name) return 0;
    /* Kept: a slice with the name, or one lying inside such a slice. In containment
     * order the slices that may hold this one came before it, and one of them does
     * exactly when the furthest end among them, R, reaches past its start and to its end
     * (the slice with that end holds it; nothing lies inside a zero-length one). */
    int64_t reach = INT64_MIN;
    size_t k = 0;
    for (size_t i = 0; i < c->niv; i++) {
        civ v = c->iv[i];
        int named = name_matches(c, c->s[v.idx].name);
        if (!named && !(reach > v.ts && reach >= v.end)) continue;
        if (named && v.end > reach) reach = v.end;
        c->iv[k++] = v;
    }
    c->niv = k;
    return 0;
}

/* Whether anything at all is kept: a slice of a kept lane in the window, long enough
 * and (with a name) named so; what lies inside it is kept only with it. */
static int anything_kept(cutter *c)
{
    int64_t w0 = c->cut->start_ns, w1 = c->cut->end_ns, ts, end;
    for (size_t l = 0; l < c->nlanes; l++) {
        if (!c->lane_on[l]) continue;
        const sts_lane *ln = &c->lanes[l];
        uint32_t stop = first_at(c, ln, w1);
        for (uint32_t i = ln->first_slice; i < stop; i++)
            if (c->s[i].dur >= 0 && clip(&c->s[i], w0, w1, &ts, &end) && long_enough(c, &c->s[i]) &&
                name_matches(c, c->s[i].name))
                return 1;
    }
    return 0;
}

/* ---- writing slices ------------------------------------------------------------------ */

static void put_ts(cutter *c, const char *key, int64_t ns)
{
    sts_cjw_lit(&c->w, key);
    sts_cjw_us(&c->w, ns);
}

/* ,"args":{...} with the marker of a slice that was cut or never closed:
 * "stepscope_cut":{"at":"start"|"end"|"both"|"none","ts_ns":T,"dur_ns":D[,"unclosed":true]}
 * where T and D are the slice as the whole trace has it. */
static void slice_args(cutter *c, const sts_slice *s, uint32_t edges)
{
    int unclosed = (s->flags & STS_SLICE_UNCLOSED) != 0;
    if (!edges && !unclosed) {
        sts_cjw_args(&c->w, s->args);
        return;
    }
    static const char *const at[4] = { "none", "start", "end", "both" };
    sts_cjw_lit(&c->w, ",\"args\":{");
    if (sts_cjw_arg_members(&c->w, s->args, c->cut_key)) sts_cjw_lit(&c->w, ",");
    sts_cjw_lit(&c->w, "\"stepscope_cut\":{\"at\":\"");
    sts_cjw_lit(&c->w, at[edges & 3u]);
    sts_cjw_lit(&c->w, "\",\"ts_ns\":");
    sts_cjw_i64(&c->w, s->ts);
    sts_cjw_lit(&c->w, ",\"dur_ns\":");
    sts_cjw_i64(&c->w, s->dur);
    if (unclosed) sts_cjw_lit(&c->w, ",\"unclosed\":true");
    sts_cjw_lit(&c->w, "}}");
    if (edges & CUT_START) c->st.cut_start++;
    if (edges & CUT_END) c->st.cut_end++;
}

/* "pid":P,"tid":T for an event of a lane that is no thread (async and instants lanes):
 * the owning process's pid, and the tid of one of its kept thread lanes, so that the
 * reader makes no new thread of it. */
static void emitter(cutter *c, uint32_t lane)
{
    uint32_t proc = c->lanes[lane].process;
    const sts_process *pr = proc < c->nprocs ? &c->procs[proc] : NULL;
    if (pr && pr->global) proc = c->first_proc;
    uint32_t via = proc < c->nprocs ? c->lane_tid[proc] : STS_NONE;
    if (via != STS_NONE) {
        sts_cjw_pid_tid(&c->w, via);
        return;
    }
    sts_cjw_lit(&c->w, "\"pid\":");
    sts_cjw_put_pid(&c->w, proc);
    sts_cjw_lit(&c->w, ",\"tid\":");
    sts_cjw_put_pid(&c->w, proc);
}

/* An async lane's slices all get one id, the lane's index, so that they nest on one
 * track again: the ids they were read with are not kept per slice. A process's async
 * lanes are process-scoped ids (id2 local), the trace's global ones plain ids. */
static void async_id(cutter *c, uint32_t lane)
{
    size_t nt;
    const sts_track *t = sts_timeline_tracks(c->tl, &nt);
    uint32_t first = c->lanes[lane].first_track;
    int local = first < nt && t[first].kind == STS_TRACK_ASYNC_PROCESS;
    sts_cjw_lit(&c->w, local ? ",\"id2\":{\"local\":\"" : ",\"id\":\"");
    sts_cjw_lit(&c->w, "stepscope-cut-");
    sts_cjw_i64(&c->w, (int64_t)lane);
    sts_cjw_lit(&c->w, local ? "\"}" : "\"");
}

static void write_one(cutter *c, uint32_t lane, const civ *v)
{
    const sts_slice *s = &c->s[v->idx];
    const sts_lane *ln = &c->lanes[lane];
    if (ln->kind == STS_LANE_ASYNC) {
        int instant = (s->flags & STS_SLICE_INSTANT) != 0;
        sts_cjw_phase(&c->w, instant ? 'n' : 'b');
        emitter(c, lane);
        put_ts(c, ",\"ts\":", v->ts);
        sts_cjw_name_cat(&c->w, s->name, s->cat);
        async_id(c, lane);
        slice_args(c, s, v->edges);
        sts_cjw_lit(&c->w, "}");
        if (!instant) {
            /* The same name and category, so the reader closes this slice with it. */
            sts_cjw_phase(&c->w, 'e');
            emitter(c, lane);
            put_ts(c, ",\"ts\":", v->end);
            sts_cjw_name_cat(&c->w, s->name, s->cat);
            async_id(c, lane);
            sts_cjw_lit(&c->w, "}");
        }
        c->st.async_slices++;
    } else if (s->flags & STS_SLICE_INSTANT) {
        int global = ln->process < c->nprocs && c->procs[ln->process].global;
        char scope = ln->kind != STS_LANE_INSTANTS ? 't' : global ? 'g' : 'p';
        char head[] = "{\"ph\":\"i\",\"s\":\"t\",";
        head[15] = scope;
        sts_cjw_event(&c->w, head);
        if (scope == 't')
            sts_cjw_pid_tid(&c->w, lane);
        else
            emitter(c, lane);
        put_ts(c, ",\"ts\":", v->ts);
        sts_cjw_name_cat(&c->w, s->name, s->cat);
        sts_cjw_args(&c->w, s->args);
        sts_cjw_lit(&c->w, "}");
        c->st.instants++;
    } else {
        sts_cjw_event(&c->w, "{\"ph\":\"X\",");
        sts_cjw_pid_tid(&c->w, lane);
        put_ts(c, ",\"ts\":", v->ts);
        put_ts(c, ",\"dur\":", v->end - v->ts);
        sts_cjw_name_cat(&c->w, s->name, s->cat);
        slice_args(c, s, v->edges);
        sts_cjw_lit(&c->w, "}");
    }
    c->st.slices++;
    if (c->kept) c->kept[v->idx >> 3] |= (uint8_t)(1u << (v->idx & 7));
}

static int write_lanes(cutter *c)
{
    unsigned char *proc_used = calloc(c->nprocs + 1, 1);
    if (!proc_used) return -1;
    for (size_t l = 0; l < c->nlanes; l++) {
        if (!c->lane_on[l]) continue;
        if (load_lane(c, (uint32_t)l) != 0) {
            free(proc_used);
            return -1;
        }
        for (size_t k = 0; k < c->niv; k++)
            write_one(c, (uint32_t)l, &c->iv[k]);
        if (c->niv) {
            c->st.lanes++;
            uint32_t p = c->lanes[l].process;
            if (p < c->nprocs && !proc_used[p]++) c->st.processes++;
        }
    }
    free(proc_used);
    return 0;
}

/* ---- flows ------------------------------------------------------------------------- */

static int in_window(const cutter *c, int64_t ts)
{
    return ts >= c->cut->start_ns && ts < c->cut->end_ns;
}

static int slice_kept(const cutter *c, uint32_t i)
{
    return i != STS_NONE && c->kept && (c->kept[i >> 3] >> (i & 7) & 1u);
}

/* The slice a flow event is bound to, as Perfetto binds one: s, t, and an f with
 * "bp":"e" to the top of its thread's own track's stack of open slices; another f to
 * the next slice to start on that track. STS_NONE when there is none.
 *
 * The stack is popped only when a slice begins or an E arrives, so its top at ts is
 * the last slice to start by then even when that one has ended (a complete slice
 * ended at 10 still holds a flow at 15), unless it was a B closed by its E by then:
 * the E popped it, and with it every slice below that had ended by its end. */
static uint32_t bound_slice(const cutter *c, const sts_flow *f)
{
    if (f->lane >= c->nlanes) return STS_NONE;
    const sts_lane *ln = &c->lanes[f->lane];
    uint32_t own = ln->first_track, last = ln->first_slice + ln->slice_count;
    if (f->phase == 'f' && !f->bind_enclosing) {
        for (uint32_t i = first_at(c, ln, f->ts); i < last; i++)
            if (c->s[i].track == own) return i;
        return STS_NONE;
    }
    uint32_t j = f->ts == INT64_MAX ? last : first_at(c, ln, f->ts + 1);
    while (j > ln->first_slice && c->s[j - 1].track != own)
        j--;
    if (j == ln->first_slice) return STS_NONE;
    j--;
    while (j != STS_NONE && (c->s[j].flags & STS_SLICE_FROM_BE) && slice_end(&c->s[j]) <= f->ts) {
        int64_t e = slice_end(&c->s[j]);
        for (j = c->s[j].parent; j != STS_NONE && slice_end(&c->s[j]) <= e; j = c->s[j].parent) {
        }
    }
    return j;
}

typedef struct flowsets {
    sts_u64map pairs; /* (cat, name) -> dense pair */
    sts_u64map keys;  /* (id, pair) -> flow */
    STS_VEC(uint8_t) broken;
} flowsets;

/* The flow of event f (Perfetto's v1 flow key: id, category and name), added when
 * `add`; UINT32_MAX when it is not one of those seen, -2u when memory runs out. */
static uint32_t flow_of(flowsets *fs, const sts_flow *f, int add)
{
    uint64_t pk = ((uint64_t)f->cat << 32 | f->name) + 1;
    uint32_t p = sts_u64map_get(&fs->pairs, pk);
    if (p == UINT32_MAX) {
        if (!add) return UINT32_MAX;
        p = (uint32_t)fs->pairs.count;
        if (sts_u64map_put(&fs->pairs, pk, p) != 0) return UINT32_MAX - 1;
    }
    uint64_t key = ((uint64_t)f->id << 32 | p) + 1;
    uint32_t g = sts_u64map_get(&fs->keys, key);
    if (g != UINT32_MAX || !add) return g;
    g = (uint32_t)fs->broken.n;
    if (!STS_VEC_PUSH(fs->broken) || sts_u64map_put(&fs->keys, key, g) != 0) return UINT32_MAX - 1;
    return g;
}

/* A flow is written, every event of it, when each of its events lies in the window on
 * a kept lane and is bound to a slice the cut wrote: then the reader binds it to the
 * same slices, cut. */
static int write_flows(cutter *c)
{
    size_t n;
    const sts_flow *fl = sts_timeline_flows(c->tl, &n);
    if (n == 0) return 0;
    flowsets fs = { STS_U64MAP_INIT, STS_U64MAP_INIT, { NULL, 0, 0 } };
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (fl[i].lane < c->nlanes && c->lane_on[fl[i].lane] && in_window(c, fl[i].ts) &&
            flow_of(&fs, &fl[i], 1) == UINT32_MAX - 1)
            rc = -1;
    for (size_t i = 0; i < n && rc == 0 && fs.broken.n; i++) {
        uint32_t g = flow_of(&fs, &fl[i], 0);
        if (g == UINT32_MAX || fs.broken.v[g]) continue;
        int ok = fl[i].lane < c->nlanes && c->lane_on[fl[i].lane] && in_window(c, fl[i].ts) &&
                 slice_kept(c, bound_slice(c, &fl[i]));
        if (!ok) fs.broken.v[g] = 1;
    }
    for (size_t i = 0; i < n && rc == 0 && fs.broken.n; i++) {
        uint32_t g = flow_of(&fs, &fl[i], 0);
        if (g == UINT32_MAX || fs.broken.v[g]) continue;
        sts_cjw_phase(&c->w, fl[i].phase ? fl[i].phase : 's');
        sts_cjw_pid_tid(&c->w, fl[i].lane);
        put_ts(c, ",\"ts\":", fl[i].ts);
        sts_cjw_name_cat(&c->w, fl[i].name, fl[i].cat);
        sts_cjw_lit(&c->w, ",\"id\":");
        sts_cjw_str(&c->w, fl[i].id);
        if (fl[i].bind_enclosing) sts_cjw_lit(&c->w, ",\"bp\":\"e\"");
        sts_cjw_lit(&c->w, "}");
        c->st.flow_events++;
    }
    for (size_t g = 0; g < fs.broken.n; g++) {
        if (fs.broken.v[g])
            c->st.flows_left_out++;
        else
            c->st.flows++;
    }
    sts_u64map_release(&fs.pairs);
    sts_u64map_release(&fs.keys);
    STS_VEC_RELEASE(fs.broken);
    return rc;
}

/* ---- counters ---------------------------------------------------------------------- */

/* A counter holds its value until its next sample, so each series sampled before the
 * window gets its last value again at the window's start (unless it has a sample
 * there): the cut shows what the whole shows at every instant of the window. */
typedef struct carry {
    uint32_t idx; /* the series' last sample before the window */
    uint8_t at_start;
} carry;

static uint32_t counter_lane(const cutter *c, const sts_counter *k)
{
    if (k->lane >= c->nlanes) return STS_NONE;
    if (c->lane_on[k->lane]) return k->lane;
    uint32_t p = c->lanes[k->lane].process;
    return p < c->nprocs ? c->lane_tid[p] : STS_NONE;
}

static void counter_event(cutter *c, const sts_counter *k, int64_t ts)
{
    sts_cjw_event(&c->w, "{\"ph\":\"C\",");
    sts_cjw_pid_tid(&c->w, counter_lane(c, k));
    put_ts(c, ",\"ts\":", ts);
    sts_cjw_name_cat(&c->w, k->name, 0);
    if (k->id) {
        sts_cjw_lit(&c->w, ",\"id\":");
        sts_cjw_str(&c->w, k->id);
    }
    sts_cjw_lit(&c->w, ",\"args\":{");
    sts_cjw_str(&c->w, k->series);
    sts_cjw_lit(&c->w, ":");
    sts_cjw_f64(&c->w, k->value);
    sts_cjw_lit(&c->w, "}}");
    c->st.counters++;
}

/* A dense number per (a, b), from `map`; UINT32_MAX when memory runs out. */
static uint32_t dense2(sts_u64map *map, uint32_t a, uint32_t b)
{
    uint64_t key = ((uint64_t)a << 32 | b) + 1;
    uint32_t v = sts_u64map_get(map, key);
    if (v != UINT32_MAX) return v;
    v = (uint32_t)map->count;
    return sts_u64map_put(map, key, v) == 0 ? v : UINT32_MAX;
}

static int write_counters(cutter *c)
{
    size_t n;
    const sts_counter *k = sts_timeline_counters(c->tl, &n);
    int64_t w0 = c->cut->start_ns;
    sts_u64map names = STS_U64MAP_INIT, owners = STS_U64MAP_INIT, series = STS_U64MAP_INIT;
    STS_VEC(carry) carried = { NULL, 0, 0 };
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (k[i].ts > w0 || counter_lane(c, &k[i]) == STS_NONE) continue;
        uint32_t a = dense2(&names, k[i].name, k[i].series);
        uint32_t b = dense2(&owners, k[i].id, c->lanes[k[i].lane].process);
        uint32_t s = a == UINT32_MAX || b == UINT32_MAX ? UINT32_MAX : dense2(&series, a, b);
        if (s == UINT32_MAX) {
            rc = -1;
            break;
        }
        if (s == carried.n && !STS_VEC_PUSH(carried)) {
            rc = -1;
            break;
        }
        carry *x = &carried.v[s];
        if (k[i].ts == w0) {
            x->at_start = 1;
        } else if (x->idx == 0 || k[x->idx - 1].ts <= k[i].ts) {
            x->idx = (uint32_t)i + 1; /* + 1: 0 is none yet */
        }
    }
    for (size_t s = 0; s < carried.n && rc == 0; s++)
        if (carried.v[s].idx && !carried.v[s].at_start) counter_event(c, &k[carried.v[s].idx - 1], w0);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (in_window(c, k[i].ts) && counter_lane(c, &k[i]) != STS_NONE) counter_event(c, &k[i], k[i].ts);
    sts_u64map_release(&names);
    sts_u64map_release(&owners);
    sts_u64map_release(&series);
    STS_VEC_RELEASE(carried);
    return rc;
}

/* ---- the whole --------------------------------------------------------------------- */

static void cutter_release(cutter *c)
{
    free(c->lane_on);
    free(c->memo);
    if (c->have_re) regfree(&c->re);
    free(c->kept);
    free(c->iv);
    free(c->lane_tid);
}

static sts_status nomem(const char *path, sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory cutting the trace", path);
}

static sts_status choose_lanes(cutter *c, sts_error *err)
{
    const sts_cut *cut = c->cut;
    c->lane_on = calloc(c->nlanes + 1, 1);
    c->lane_tid = malloc((c->nprocs + 1) * sizeof *c->lane_tid);
    if (!c->lane_on || !c->lane_tid) return STS_ERR_NOMEM;
    for (size_t k = 0; cut->lanes && k < cut->nlanes; k++) {
        if (cut->lanes[k] >= c->nlanes)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "cut: lane %u out of range (%zu lanes)", cut->lanes[k],
                                 c->nlanes);
        c->lane_on[cut->lanes[k]] = 1;
    }
    if (!cut->lanes) memset(c->lane_on, 1, c->nlanes);
    for (size_t p = 0; p < c->nprocs; p++)
        c->lane_tid[p] = STS_NONE;
    c->first_proc = STS_NONE;
    for (size_t l = 0; l < c->nlanes; l++) {
        const sts_lane *ln = &c->lanes[l];
        if (!c->lane_on[l] || ln->process >= c->nprocs || c->procs[ln->process].global) continue;
        if (c->first_proc == STS_NONE || ln->process < c->first_proc) c->first_proc = ln->process;
        if ((ln->kind == STS_LANE_THREAD || ln->kind == STS_LANE_DEVICE) && c->lane_tid[ln->process] == STS_NONE)
            c->lane_tid[ln->process] = (uint32_t)l;
    }
    return STS_OK;
}

/* The name rule of the analysis's scopes: an exact name when a slice has it, else a
 * POSIX extended regex. */
static sts_status choose_names(cutter *c, sts_error *err)
{
    const char *name = c->cut->name;
    if (!name) return STS_OK;
    c->by_name = 1;
    c->exact = sts_timeline_find_string(c->tl, name);
    for (size_t i = 0; c->exact != STS_NONE && i < c->nslices; i++)
        if (c->s[i].name == c->exact) return STS_OK;
    int rc = regcomp(&c->re, name, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &c->re, msg, sizeof msg);
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "cut: name pattern '%s' is neither an exact name nor a valid extended regular expression "
                             "(%s)",
                             name, msg);
    }
    c->have_re = 1;
    for (size_t i = 0; i < c->nslices; i++)
        if (c->s[i].name >= c->bound) c->bound = c->s[i].name + 1;
    c->memo = malloc(c->bound ? c->bound : 1);
    if (!c->memo) return STS_ERR_NOMEM;
    memset(c->memo, -1, c->bound);
    return STS_OK;
}

/* An event naming what was cut, for whoever opens the file:
 * {"ph":"M","name":"stepscope.cut","args":{"source":...,"start_ns":...,"end_ns":...,
 * "lanes":N|null,"name":...|null,"min_dur_ns":...}}. Viewers ignore metadata they do
 * not know. */
static void describe(cutter *c)
{
    const sts_cut *cut = c->cut;
    const char *src = cut->source ? cut->source : sts_timeline_get_info(c->tl)->path;
    sts_cjw_event(&c->w, "{\"ph\":\"M\",\"pid\":");
    sts_cjw_put_pid(&c->w, c->w.first_proc);
    sts_cjw_lit(&c->w, ",\"name\":\"stepscope.cut\",\"args\":{\"source\":");
    sts_cjw_text(&c->w, src ? src : "");
    sts_cjw_lit(&c->w, ",\"start_ns\":");
    sts_cjw_i64(&c->w, cut->start_ns);
    sts_cjw_lit(&c->w, ",\"end_ns\":");
    sts_cjw_i64(&c->w, cut->end_ns);
    sts_cjw_lit(&c->w, ",\"lanes\":");
    if (cut->lanes)
        sts_cjw_i64(&c->w, (int64_t)cut->nlanes);
    else
        sts_cjw_lit(&c->w, "null");
    sts_cjw_lit(&c->w, ",\"name\":");
    if (cut->name)
        sts_cjw_text(&c->w, cut->name);
    else
        sts_cjw_lit(&c->w, "null");
    sts_cjw_lit(&c->w, ",\"min_dur_ns\":");
    sts_cjw_i64(&c->w, cut->min_dur_ns > 0 ? cut->min_dur_ns : 0);
    sts_cjw_lit(&c->w, "}}");
}

static sts_status setup(cutter *c, sts_error *err)
{
    const sts_cut *cut = c->cut;
    if (cut->start_ns >= cut->end_ns)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "cut: empty window: start %lld ns is not before end %lld ns",
                             (long long)cut->start_ns, (long long)cut->end_ns);
    if (cut->min_dur_ns < 0)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "cut: min_dur_ns %lld is negative",
                             (long long)cut->min_dur_ns);
    c->s = sts_timeline_slices(c->tl, &c->nslices);
    c->lanes = sts_timeline_lanes(c->tl, &c->nlanes);
    c->procs = sts_timeline_processes(c->tl, &c->nprocs);
    c->cut_key = sts_timeline_find_string(c->tl, "stepscope_cut");
    sts_status st = choose_lanes(c, err);
    if (st == STS_OK) st = choose_names(c, err);
    size_t nflows;
    sts_timeline_flows(c->tl, &nflows);
    if (st == STS_OK && nflows && !(c->kept = calloc(c->nslices / 8 + 1, 1))) st = STS_ERR_NOMEM;
    return st;
}

sts_status sts_write_chrome_json_cut(const sts_timeline *tl, const sts_cut *cut, const char *path,
                                     const sts_write_options *opts, sts_cut_stats *stats, sts_error *err)
{
    if (!tl || !cut || !path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "cut: no timeline, cut or path");
    cutter c;
    memset(&c, 0, sizeof c);
    c.tl = tl;
    c.cut = cut;
    sts_status st = setup(&c, err);
    if (st == STS_ERR_NOMEM) st = nomem(path, err);
    if (st == STS_OK && !anything_kept(&c))
        st = sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                           "%s: nothing to cut: no slice%s%s%s%s of the %s lanes overlaps the window [%lld, %lld) ns",
                           sts_timeline_get_info(tl)->path, cut->name ? " named '" : "", cut->name ? cut->name : "",
                           cut->name ? "'" : "", cut->min_dur_ns > 0 ? " long enough" : "",
                           cut->lanes ? "chosen" : "trace's", (long long)cut->start_ns, (long long)cut->end_ns);
    const char *unit = sts_timeline_get_info(tl)->display_time_unit;
    if (st == STS_OK) st = sts_cjw_open(&c.w, tl, path, opts, unit ? unit : "ns", c.first_proc, 1, err);
    if (st != STS_OK) {
        cutter_release(&c);
        return st;
    }
    sts_cjw_metadata(&c.w, c.lane_on);
    describe(&c);
    if (write_lanes(&c) != 0 || write_flows(&c) != 0 || write_counters(&c) != 0) {
        sts_cjw_abort(&c.w);
        cutter_release(&c);
        return nomem(path, err);
    }
    c.st.events = c.w.events + 1; /* with the completion record's tail */
    st = sts_cjw_commit(&c.w, err);
    if (st == STS_OK && stats) *stats = c.st;
    cutter_release(&c);
    return st;
}
