/* Two traces compared per step: the step itself, its direct children, the unattributed
 * remainder, and every other interval name by the time its outermost slices cover in
 * each step's window on any lane. Without steps in either trace, each slice is a
 * sample. Names are matched by their text, never by ids that differ between runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/search.h"
#include "base/vec.h"
#include "diff/diff_impl.h"
#include "stepscope/analyze.h"
#include "stepscope/hostsync.h"

typedef struct series {
    STS_VEC(int64_t) v;
    STS_VEC(int64_t) idx;
} series;

/* Per interval name (interned across both runs): its samples in each run as a step
 * child and as a plain name, and what it is. */
typedef struct name_info {
    series child[2], other[2];
    uint8_t is_child, is_step;
    int64_t total; /* other samples of both runs summed: the display order */
} name_info;

typedef struct names {
    sts_strtab tab;
    STS_VEC(name_info) info;
    STS_VEC(uint32_t) child_order; /* ids in order of first appearance as a child */
} names;

/* One run: its steps and the translation of its string ids into ours. */
typedef struct run {
    const sts_timeline *tl;
    sts_steps *steps;
    const sts_step *list;
    size_t nsteps;
    uint32_t *local; /* timeline string id -> our id, UINT32_MAX when not yet seen */
    uint32_t nlocal;
} run;

/* ---- names --------------------------------------------------------------------------- */

static int push(series *s, int64_t v, int64_t idx)
{
    int64_t *a = STS_VEC_PUSH(s->v), *b = a ? STS_VEC_PUSH(s->idx) : NULL;
    if (!b) return -1;
    *a = v;
    *b = idx;
    return 0;
}

static void names_release(names *t)
{
    for (size_t i = 0; i < t->info.n; i++) {
        for (int r = 0; r < 2; r++) {
            STS_VEC_RELEASE(t->info.v[i].child[r].v);
            STS_VEC_RELEASE(t->info.v[i].child[r].idx);
            STS_VEC_RELEASE(t->info.v[i].other[r].v);
            STS_VEC_RELEASE(t->info.v[i].other[r].idx);
        }
    }
    STS_VEC_RELEASE(t->info);
    STS_VEC_RELEASE(t->child_order);
    sts_strtab_release(&t->tab);
}

/* Our id of the timeline's string `sid`; UINT32_MAX when memory is exhausted. */
static uint32_t our_id(names *t, run *r, uint32_t sid)
{
    if (sid < r->nlocal && r->local[sid] != UINT32_MAX) return r->local[sid];
    const char *s = sts_timeline_string(r->tl, sid);
    uint32_t id = sts_strtab_intern(&t->tab, s, strlen(s));
    if (id == UINT32_MAX) return id;
    while (t->info.n <= id)
        if (!STS_VEC_PUSH(t->info)) return UINT32_MAX;
    if (sid < r->nlocal) r->local[sid] = id;
    return id;
}

static sts_status nomem(sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
}

/* ---- steps ---------------------------------------------------------------------------- */

static sts_status find_steps(run *r, const sts_diff_options *opt, sts_error *err)
{
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    so.step = opt->step;
    so.window_names = 1; /* the lanes' busy time is compared, not their names */
    sts_status st = sts_steps_find(r->tl, &so, &r->steps, err);
    if (st != STS_OK) return st;
    r->list = sts_steps_list(r->steps, &r->nsteps);
    return STS_OK;
}

static sts_status collect_children(names *t, run *r, int side, sts_error *err)
{
    size_t nc;
    const sts_step_child *ch = sts_steps_children(r->steps, &nc);
    for (size_t k = 0; k < r->nsteps; k++) {
        const sts_step *s = &r->list[k];
        uint32_t sid = our_id(t, r, s->name);
        if (sid == UINT32_MAX) return nomem(err);
        t->info.v[sid].is_step = 1;
        for (uint32_t c = s->first_child; c < s->first_child + s->child_count; c++) {
            uint32_t id = our_id(t, r, ch[c].name);
            if (id == UINT32_MAX) return nomem(err);
            name_info *ni = &t->info.v[id];
            if (!ni->is_child) {
                uint32_t *o = STS_VEC_PUSH(t->child_order);
                if (!o) return nomem(err);
                *o = id;
                ni->is_child = 1;
            }
            if (push(&ni->child[side], ch[c].total_ns, s->index) != 0) return nomem(err);
        }
    }
    return STS_OK;
}

/* ---- other names: time inside each step's window ---------------------------------------- */

typedef struct cell {
    uint32_t id, step;
    int64_t ns;
} cell;

typedef struct windows {
    const sts_step *list;
    size_t n;
    int64_t *reach; /* reach[k] = the latest end among steps 0..k (monotone) */
} windows;

/* First step whose window could hold time at or after `a`. */
static size_t first_window(const windows *w, int64_t a)
{
    return sts_first_above_i64(w->reach, w->n, a);
}

typedef struct accum {
    sts_u64map map;
    STS_VEC(cell) cells;
} accum;

static int add_cell(accum *a, uint32_t id, size_t step, int64_t ns)
{
    uint64_t key = ((uint64_t)id + 1) << 32 | (uint64_t)step;
    uint32_t at = sts_u64map_get(&a->map, key);
    if (at != UINT32_MAX) {
        a->cells.v[at].ns += ns;
        return 0;
    }
    cell *c = STS_VEC_PUSH(a->cells);
    if (!c || a->cells.n > UINT32_MAX - 1 || sts_u64map_put(&a->map, key, (uint32_t)(a->cells.n - 1)) != 0) return -1;
    c->id = id;
    c->step = (uint32_t)step;
    c->ns = ns;
    return 0;
}

/* Adds the part of [ts, ts + dur) inside each step window it meets; a zero-length
 * slice counts (0 ns) in the window holding its start. */
static int clip_to_steps(accum *a, const windows *w, uint32_t id, int64_t ts, int64_t dur)
{
    int64_t end = ts + dur;
    for (size_t k = first_window(w, ts); k < w->n && w->list[k].ts <= ts + (dur > 0 ? dur - 1 : 0); k++) {
        int64_t s0 = w->list[k].ts, s1 = s0 + w->list[k].dur;
        int64_t lo = ts > s0 ? ts : s0, hi = end < s1 ? end : s1;
        if (hi > lo || (dur == 0 && s0 <= ts && ts < s1))
            if (add_cell(a, id, k, hi > lo ? hi - lo : 0) != 0) return -1;
    }
    return 0;
}

static int cmp_cell(const void *pa, const void *pb)
{
    const cell *a = pa, *b = pb;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return (a->step > b->step) - (a->step < b->step);
}

/* Walks each lane keeping the chain of open ancestors, so a slice inside another of the
 * same name is not counted again: each name's time on a lane is the union of its
 * outermost slices. */
static sts_status collect_names(names *t, run *r, int side, sts_error *err)
{
    size_t nl, ns;
    const sts_lane *lanes = sts_timeline_lanes(r->tl, &nl);
    const sts_slice *sl = sts_timeline_slices(r->tl, &ns);
    uint32_t *open = calloc(r->nlocal ? r->nlocal : 1, sizeof *open);
    STS_VEC(uint32_t) stack = { 0 };
    accum acc = { STS_U64MAP_INIT, { 0 } };
    windows w = { r->list, r->nsteps, malloc((r->nsteps ? r->nsteps : 1) * sizeof(int64_t)) };
    sts_status st = open && w.reach ? STS_OK : nomem(err);
    for (size_t k = 0; st == STS_OK && k < r->nsteps; k++) {
        int64_t e = r->list[k].ts + r->list[k].dur;
        w.reach[k] = k && w.reach[k - 1] > e ? w.reach[k - 1] : e;
    }
    for (size_t l = 0; st == STS_OK && l < nl; l++) {
        stack.n = 0;
        for (uint32_t i = lanes[l].first_slice; st == STS_OK && i < lanes[l].first_slice + lanes[l].slice_count; i++) {
            while (stack.n && stack.v[stack.n - 1] != sl[i].parent)
                open[sl[stack.v[--stack.n]].name]--;
            int outermost = open[sl[i].name] == 0;
            uint32_t *top = STS_VEC_PUSH(stack);
            if (!top) {
                st = nomem(err);
                break;
            }
            *top = i;
            open[sl[i].name]++;
            if (!outermost) continue;
            uint32_t id = our_id(t, r, sl[i].name);
            if (id == UINT32_MAX) {
                st = nomem(err);
            } else if (r->nsteps) {
                if (clip_to_steps(&acc, &w, id, sl[i].ts, sl[i].dur) != 0) st = nomem(err);
            } else {
                series *s = &t->info.v[id].other[side];
                if (push(s, sl[i].dur, (int64_t)s->v.n) != 0) st = nomem(err);
                t->info.v[id].total += sl[i].dur;
            }
        }
        while (stack.n)
            open[sl[stack.v[--stack.n]].name]--;
    }
    if (st == STS_OK && acc.cells.n) {
        qsort(acc.cells.v, acc.cells.n, sizeof *acc.cells.v, cmp_cell);
        for (size_t c = 0; st == STS_OK && c < acc.cells.n; c++) {
            name_info *ni = &t->info.v[acc.cells.v[c].id];
            if (push(&ni->other[side], acc.cells.v[c].ns, r->list[acc.cells.v[c].step].index) != 0) st = nomem(err);
            ni->total += acc.cells.v[c].ns;
        }
    }
    free(open);
    free(w.reach);
    STS_VEC_RELEASE(stack);
    STS_VEC_RELEASE(acc.cells);
    sts_u64map_release(&acc.map);
    return st;
}

/* ---- rows --------------------------------------------------------------------------- */

static sts_dd_series as_series(const series *s)
{
    sts_dd_series o = { s->v.v, s->idx.v, s->v.n };
    return o;
}

/* One row from a per-step field of both runs' steps. */
typedef int64_t (*step_field)(const sts_step *s);
static int64_t field_dur(const sts_step *s)
{
    return s->dur;
}
static int64_t field_unattributed(const sts_step *s)
{
    return s->unattributed_ns;
}

static sts_status step_field_row(sts_diff *d, const run *r, const char *name, step_field f, const char *note,
                                 sts_error *err)
{
    int64_t *v[2] = { NULL, NULL }, *ix[2] = { NULL, NULL };
    sts_status st = STS_OK;
    for (int side = 0; side < 2 && st == STS_OK; side++) {
        size_t n = r[side].nsteps ? r[side].nsteps : 1;
        v[side] = malloc(n * sizeof(int64_t));
        ix[side] = malloc(n * sizeof(int64_t));
        if (!v[side] || !ix[side]) st = nomem(err);
        for (size_t i = 0; st == STS_OK && i < r[side].nsteps; i++) {
            v[side][i] = f(&r[side].list[i]);
            ix[side][i] = r[side].list[i].index;
        }
    }
    sts_dd_series b = { v[0], ix[0], r[0].nsteps }, n = { v[1], ix[1], r[1].nsteps };
    if (st == STS_OK) st = sts_dd_add_samples(d, name, name, "ns", "step", b, n, note, err);
    for (int side = 0; side < 2; side++) {
        free(v[side]);
        free(ix[side]);
    }
    return st;
}

/* Per step of one run: its host syncs' count and wait (stepscope/hostsync.h). */
static sts_status sync_series(const run *r, int64_t *count, int64_t *wait, int64_t *ix, uint64_t *any, sts_error *err)
{
    sts_host_syncs *h = NULL;
    sts_status st = sts_host_syncs_find(r->tl, r->steps, &h, err);
    if (st != STS_OK) return st;
    const sts_host_sync *hs = sts_host_syncs_list(h, NULL);
    for (size_t k = 0; k < r->nsteps; k++) {
        size_t first, n = sts_host_syncs_of_step(h, (uint32_t)k, &first);
        count[k] = wait[k] = 0;
        ix[k] = r->list[k].index;
        for (size_t i = first; i < first + n; i++) {
            count[k] += hs[i].count;
            wait[k] += hs[i].wait_ns;
        }
        *any += (uint64_t)count[k];
    }
    sts_host_syncs_free(h);
    return STS_OK;
}

/* Rows `host_syncs` (per step, how many) and `host_sync_wait` (the host's wait in them),
 * when either run shows any. */
static sts_status host_sync_rows(sts_diff *d, const run *r, sts_error *err)
{
    int64_t *buf[2] = { NULL, NULL };
    uint64_t any = 0;
    sts_status st = STS_OK;
    for (int side = 0; side < 2 && st == STS_OK; side++) {
        size_t n = r[side].nsteps ? r[side].nsteps : 1;
        buf[side] = malloc(3 * n * sizeof(int64_t));
        st = buf[side] ? sync_series(&r[side], buf[side], buf[side] + n, buf[side] + 2 * n, &any, err) : nomem(err);
    }
    if (st == STS_OK && any) {
        size_t nb = r[0].nsteps ? r[0].nsteps : 1, nn = r[1].nsteps ? r[1].nsteps : 1;
        sts_dd_series bc = { buf[0], buf[0] + 2 * nb, r[0].nsteps }, nc = { buf[1], buf[1] + 2 * nn, r[1].nsteps };
        sts_dd_series bw = { buf[0] + nb, buf[0] + 2 * nb, r[0].nsteps },
                      nw = { buf[1] + nn, buf[1] + 2 * nn, r[1].nsteps };
        st = sts_dd_add_samples(d, "host_syncs", "host_syncs", "count", "step", bc, nc,
                                "host syncs per step (docs/host-syncs.md)", err);
        if (st == STS_OK)
            st = sts_dd_add_samples(d, "host_sync_wait", "host_syncs", "ns", "step", bw, nw,
                                    "the host's wait in host syncs per step", err);
    }
    free(buf[0]);
    free(buf[1]);
    return st;
}

typedef struct ranked {
    int64_t total;
    const char *name;
    uint32_t id;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return strcmp(a->name, b->name);
}

static sts_status other_rows(sts_diff *d, names *t, int per_step, sts_error *err)
{
    ranked *ids = malloc((t->info.n ? t->info.n : 1) * sizeof *ids);
    if (!ids) return nomem(err);
    size_t k = 0;
    for (uint32_t id = 0; id < t->info.n; id++) {
        const name_info *ni = &t->info.v[id];
        if (ni->is_child || ni->is_step || (!ni->other[0].v.n && !ni->other[1].v.n)) continue;
        ids[k++] = (ranked){ ni->total, sts_strtab_get(&t->tab, id), id };
    }
    qsort(ids, k, sizeof *ids, cmp_ranked);
    sts_status st = STS_OK;
    for (size_t i = 0; i < k && st == STS_OK; i++) {
        const name_info *ni = &t->info.v[ids[i].id];
        st = sts_dd_add_samples(d, ids[i].name, "name", "ns", per_step ? "step" : "slice", as_series(&ni->other[0]),
                                as_series(&ni->other[1]), NULL, err);
    }
    free(ids);
    return st;
}

static sts_status child_rows(sts_diff *d, names *t, sts_error *err)
{
    sts_status st = STS_OK;
    for (size_t i = 0; i < t->child_order.n && st == STS_OK; i++) {
        uint32_t id = t->child_order.v[i];
        const name_info *ni = &t->info.v[id];
        st = sts_dd_add_samples(d, sts_strtab_get(&t->tab, id), "child", "ns", "step", as_series(&ni->child[0]),
                                as_series(&ni->child[1]), NULL, err);
    }
    return st;
}

/* ---- lanes: busy time inside each step's window ------------------------------------------ */

/* A lane's name for matching across runs: "process / thread" from their names, never
 * from ids that change between runs; the pid and tid as written only when a name is
 * missing. A second lane with the same name in one run gets " #2", in display order. */
/* The length of a name without its per-process random part: a last "/", "-", "_", ":"
 * or "#" followed by an optionally signed number of at least 6 digits, as JAX names its
 * worker threads (tf_XLAEigen/-9088472200616544340); such a number is an id drawn anew by
 * every process, while short numbers (worker-3, stream 7) name which one. */
size_t sts_dd_stable_len(const char *name)
{
    size_t n = strlen(name), i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    size_t digits = n - i;
    if (digits < 6 || i == 0) return n;
    if (name[i - 1] == '-' || name[i - 1] == '+') i--;
    if (i == 0 || !strchr("/-_:#", name[i - 1])) return n;
    return i - 1 > 0 ? i - 1 : n;
}

static void lane_label(const sts_timeline *tl, uint32_t lane, char *buf, size_t cap)
{
    const char *pn = sts_lane_process_name(tl, lane), *tn = sts_lane_thread_name(tl, lane);
    int pl = (int)sts_dd_stable_len(pn), tlen = (int)sts_dd_stable_len(tn);
    snprintf(buf, cap, "%s%.*s / %s%.*s", *pn ? "" : "pid ", *pn ? pl : (int)strlen(sts_lane_pid(tl, lane)),
             *pn ? pn : sts_lane_pid(tl, lane), *tn ? "" : "tid ", *tn ? tlen : (int)strlen(sts_lane_tid(tl, lane)),
             *tn ? tn : sts_lane_tid(tl, lane));
}

typedef struct lane_series {
    uint32_t id; /* our id of its label */
    int64_t *v, *idx;
} lane_series;

typedef STS_VEC(lane_series) lane_list;

/* NEW's lane named as the pair that names it (--pair-lanes A=B: B is compared as A). */
static void paired_label(const sts_diff_options *o, char *label, size_t cap, unsigned char *used)
{
    for (size_t p = 0; p < o->npair_lanes && p < STS_DIFF_MAX_LANE_PAIRS; p++) {
        const char *eq = strchr(o->pair_lanes[p], '=');
        if (eq && strcmp(eq + 1, label) == 0) {
            snprintf(label, cap, "%.*s", (int)(eq - o->pair_lanes[p]), o->pair_lanes[p]);
            used[p] = 1;
            return;
        }
    }
}

/* Per window lane of one run: its busy time in every step (0 where it is idle). */
static sts_status lane_samples(const sts_diff_options *o, int side, unsigned char *used, names *t, run *r,
                               lane_list *out, sts_error *err)
{
    size_t nl, nw;
    const sts_window_lane_stats *wl = sts_steps_window_lanes(r->steps, &nl);
    const sts_step_window *win = sts_steps_windows(r->steps, &nw);
    for (size_t i = 0; i < nl; i++) {
        char label[600];
        lane_label(r->tl, wl[i].lane, label, sizeof label);
        if (side == 1) paired_label(o, label, sizeof label, used);
        size_t base = strlen(label);
        for (int dup = 2; dup < 1000 && sts_strtab_find(&t->tab, label, strlen(label)) != UINT32_MAX; dup++) {
            int seen = 0;
            for (size_t k = 0; k < out->n; k++)
                seen |= strcmp(sts_strtab_get(&t->tab, out->v[k].id), label) == 0;
            if (!seen) break;
            snprintf(label + base, sizeof label - base, " #%d", dup);
        }
        uint32_t id = sts_strtab_intern(&t->tab, label, strlen(label));
        lane_series *ls = id != UINT32_MAX ? STS_VEC_PUSH(*out) : NULL;
        if (!ls) return nomem(err);
        ls->id = id;
        ls->v = calloc(r->nsteps ? r->nsteps : 1, sizeof *ls->v);
        ls->idx = malloc((r->nsteps ? r->nsteps : 1) * sizeof *ls->idx);
        if (!ls->v || !ls->idx) return nomem(err);
        for (size_t k = 0; k < r->nsteps; k++) {
            ls->idx[k] = r->list[k].index;
            for (uint32_t w = r->list[k].first_window; w < r->list[k].first_window + r->list[k].window_count; w++)
                if (win[w].lane == wl[i].lane) ls->v[k] = win[w].busy_ns;
        }
    }
    return STS_OK;
}

static sts_status lane_rows(sts_diff *d, names *t, run *r, sts_error *err)
{
    lane_list ls[2] = { { 0 }, { 0 } };
    unsigned char used[STS_DIFF_MAX_LANE_PAIRS] = { 0 };
    sts_status st = lane_samples(&d->opt, 0, used, t, &r[0], &ls[0], err);
    if (st == STS_OK) st = lane_samples(&d->opt, 1, used, t, &r[1], &ls[1], err);
    for (size_t p = 0; p < d->opt.npair_lanes && p < STS_DIFF_MAX_LANE_PAIRS && st == STS_OK; p++)
        if (!used[p] && strchr(d->opt.pair_lanes[p], '='))
            st = sts_dd_note(d, "--pair-lanes %s: NEW has no lane named '%s'", d->opt.pair_lanes[p],
                             strchr(d->opt.pair_lanes[p], '=') + 1);
    for (int side = 0; side < 2 && st == STS_OK; side++) {
        for (size_t i = 0; i < ls[side].n && st == STS_OK; i++) {
            const lane_series *a = &ls[side].v[i], *b = NULL;
            for (size_t k = 0; k < ls[1 - side].n; k++)
                if (ls[1 - side].v[k].id == a->id) b = &ls[1 - side].v[k];
            if (side == 1 && b) continue; /* compared from BASE already */
            sts_dd_series sa = { a->v, a->idx, r[side].nsteps },
                          sb = { b ? b->v : NULL, b ? b->idx : NULL, b ? r[1 - side].nsteps : 0 };
            st = sts_dd_add_samples(d, sts_strtab_get(&t->tab, a->id), "lane", "ns", "step", side ? sb : sa,
                                    side ? sa : sb, "busy time of the lane inside each step's window", err);
        }
    }
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < ls[side].n; i++) {
            free(ls[side].v[i].v);
            free(ls[side].v[i].idx);
        }
        STS_VEC_RELEASE(ls[side]);
    }
    return st;
}

/* ---- the comparison ------------------------------------------------------------------ */

static sts_status prepare(run *r, const sts_timeline *tl, const sts_diff_options *opt, const char *which,
                          sts_error *err)
{
    memset(r, 0, sizeof *r);
    r->tl = tl;
    size_t ns;
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    if (ns == 0)
        return sts_error_set(err, STS_ERR_FORMAT, -1, "%s: %s holds no slices: nothing to compare", which,
                             sts_timeline_get_info(tl)->path);
    uint32_t max = 0;
    for (size_t i = 0; i < ns; i++)
        if (sl[i].name > max) max = sl[i].name;
    r->nlocal = max + 1;
    r->local = malloc(r->nlocal * sizeof *r->local);
    if (!r->local) return nomem(err);
    memset(r->local, 0xff, r->nlocal * sizeof *r->local);
    return find_steps(r, opt, err);
}

static void describe_side(sts_diff *d, int side, const run *r)
{
    sts_dd_side *s = &d->side[side];
    s->steps = r->nsteps;
    if (!r->nsteps) return;
    s->step_name = sts_dd_strdup(d, sts_timeline_string(r->tl, r->list[0].name));
    s->rule = sts_step_rule_name(sts_steps_rule(r->steps));
}

static sts_status check_steps(sts_diff *d, const run *r, sts_error *err)
{
    const char *word[2] = { "BASE", "NEW" };
    if (!r[0].nsteps && !r[1].nsteps) {
        if (d->opt.step)
            return sts_error_set(err, STS_ERR_FORMAT, -1, "no slice in either trace is named or matches '%s'",
                                 d->opt.step);
        return sts_dd_note(d, "no steps found in either trace: each sample is one slice's duration") == STS_OK
                   ? STS_OK
                   : nomem(err);
    }
    for (int i = 0; i < 2; i++) {
        if (r[i].nsteps) continue;
        const run *o = &r[1 - i];
        return sts_error_set(err, STS_ERR_FORMAT, -1,
                             "%s (%s) has no steps while %s has %zu %s steps (rule %s): per-step samples need steps "
                             "in both; name them with --step NAME",
                             word[i], sts_timeline_get_info(r[i].tl)->path, word[1 - i], o->nsteps,
                             sts_timeline_string(o->tl, o->list[0].name), sts_step_rule_name(sts_steps_rule(o->steps)));
    }
    sts_status st = STS_OK;
    if (strcmp(d->side[0].step_name, d->side[1].step_name) != 0)
        st = sts_dd_note(d, "the steps are named differently: %s in BASE, %s in NEW", d->side[0].step_name,
                         d->side[1].step_name);
    if (st == STS_OK && strcmp(d->side[0].rule, d->side[1].rule) != 0)
        st = sts_dd_note(d, "the steps were found by different rules: %s in BASE, %s in NEW", d->side[0].rule,
                         d->side[1].rule);
    for (int i = 0; i < 2 && st == STS_OK; i++) {
        size_t partial = sts_steps_get_summary(r[i].steps)->partial;
        if (partial)
            st = sts_dd_note(d,
                             "%s: %zu step%s may be partial (at the trace's start or end, or never closed): %s kept "
                             "as samples",
                             word[i], partial, partial == 1 ? "" : "s", partial == 1 ? "it is" : "they are");
    }
    for (int i = 0; i < 2 && st == STS_OK; i++)
        if (sts_steps_other_lanes(r[i].steps))
            st = sts_dd_note(d, "%s: step markers on %zu other lane%s were set aside (the lane with the most was used)",
                             word[i], sts_steps_other_lanes(r[i].steps),
                             sts_steps_other_lanes(r[i].steps) == 1 ? "" : "s");
    return st == STS_OK ? STS_OK : nomem(err);
}

static sts_status compare(sts_diff *d, run *r, names *t, sts_error *err)
{
    sts_status st = check_steps(d, r, err);
    int per_step = r[0].nsteps > 0;
    d->samples_word = per_step ? "step" : "slice";
    for (int side = 0; side < 2 && st == STS_OK && per_step; side++)
        st = collect_children(t, &r[side], side, err);
    for (int side = 0; side < 2 && st == STS_OK; side++)
        st = collect_names(t, &r[side], side, err);
    if (st == STS_OK && per_step) st = step_field_row(d, r, "step", field_dur, NULL, err);
    if (st == STS_OK && per_step) st = child_rows(d, t, err);
    if (st == STS_OK && per_step)
        st = step_field_row(d, r, "unattributed", field_unattributed,
                            "step time no child covers (the step minus its children)", err);
    if (st == STS_OK && per_step) st = lane_rows(d, t, r, err);
    if (st == STS_OK && per_step) {
        const sts_timeline *tls[2] = { r[0].tl, r[1].tl };
        sts_steps *steps[2] = { r[0].steps, r[1].steps };
        st = sts_dd_device_rows(d, tls, steps, err);
    }
    if (st == STS_OK && per_step) st = host_sync_rows(d, r, err);
    if (st == STS_OK) st = other_rows(d, t, per_step, err);
    const sts_timeline *tls[2] = { r[0].tl, r[1].tl };
    const sts_steps *steps[2] = { per_step ? r[0].steps : NULL, per_step ? r[1].steps : NULL };
    if (st == STS_OK && per_step) st = sts_dd_memory_rows(d, tls, steps, err);
    return st;
}

sts_status sts_diff_timelines(const sts_timeline *base, const sts_timeline *new_, const sts_diff_options *opt,
                              sts_diff **out, sts_error *err)
{
    *out = NULL;
    sts_diff_options dflt = STS_DIFF_OPTIONS_INIT;
    if (!opt) opt = &dflt;
    if (!base || !new_) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "diff: two timelines are needed");
    sts_diff_stats probe;
    sts_status st = sts_diff_samples(NULL, 0, NULL, 0, opt, &probe, err); /* checks the options */
    if (st != STS_OK) return st;
    run r[2];
    names t = { STS_STRTAB_INIT, { 0 }, { 0 } };
    memset(r, 0, sizeof r);
    st = prepare(&r[0], base, opt, "BASE", err);
    if (st == STS_OK) st = prepare(&r[1], new_, opt, "NEW", err);
    sts_diff *d = NULL;
    if (st == STS_OK && sts_strtab_init(&t.tab) != 0) st = nomem(err);
    if (st == STS_OK) {
        d = sts_dd_new(STS_DIFF_KIND_TRACE, opt, sts_timeline_get_info(base)->path, sts_timeline_get_info(new_)->path);
        if (!d) st = nomem(err);
    }
    if (st == STS_OK) {
        describe_side(d, 0, &r[0]);
        describe_side(d, 1, &r[1]);
        st = compare(d, r, &t, err);
    }
    for (int i = 0; i < 2; i++) {
        sts_steps_free(r[i].steps);
        free(r[i].local);
    }
    names_release(&t);
    if (st != STS_OK) {
        sts_diff_free(d);
        return st;
    }
    *out = d;
    return STS_OK;
}
