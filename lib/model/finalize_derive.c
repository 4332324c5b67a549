/* Finalize, part 1: the slices Perfetto makes of instants and async events, and the
 * lanes that hold their tracks (see docs/ARCHITECTURE.md, "The interval model").
 *
 * An instant (i, I, R) is a zero-length slice: on its thread's own track ("s": "t" or
 * none), on its process's instants lane ("s": "p") or on the global instants lane
 * ("s": "g"). Async events (b, e, n) go to async tracks as Perfetto's track compressor
 * (importers/common/track_compressor.cc, InternLegacyAsyncTrack) puts them: an event's
 * cookie is its category and id; an id2 "local" id scopes it to its process, an "id"
 * or id2 "global" one to the whole trace. Each cookie's first event names its track set
 * (scope, name); within a set a cookie keeps its track, or takes the first track with
 * no open slice, or a new one. Each async track is a lane of its own. Legacy S, T, F
 * and p make no slices, as in Perfetto. */
#include <stdlib.h>
#include <string.h>

#include "model/finalize_impl.h"
#include "model/msort.h"

typedef STS_VEC(fin_track0) t0vec;

typedef struct atrack {
    uint32_t cookie; /* the cookie it holds now */
    uint32_t nest;   /* open slices (b without e) */
    uint32_t lane;   /* its lane, STS_NONE until an event lands on it */
} atrack;

typedef struct aset {
    uint32_t proc; /* owning process, STS_NONE for global */
    uint32_t name; /* the track set's name */
    STS_VEC(atrack) tracks;
    fin_u32vec idle; /* a min-heap of tracks that had no open slice when pushed (see first_idle) */
} aset;

typedef struct derive {
    sts_timeline *tl;
    t0vec t0;
    uint32_t global_proc; /* the holder of global tracks, STS_NONE until needed */
    uint32_t global_instants;
    uint32_t *proc_instants; /* per process: its instants lane, or STS_NONE */
    sts_u64map ids;          /* (cat, id kind, id) -> dense id + 1 */
    sts_u64map cookies;      /* (scope, dense id) -> cookie */
    sts_u64map set_of;       /* (scope, name) -> set */
    fin_u32vec root;         /* cookie -> name of its first event */
    fin_u32vec holder;       /* cookie -> the track of its set holding it, STS_NONE when none */
    STS_VEC(aset) sets;
} derive;

static uint32_t global_process(derive *d)
{
    if (d->global_proc != STS_NONE) return d->global_proc;
    sts_process *p = STS_VEC_PUSH(d->tl->procs);
    if (!p) return STS_NONE;
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->global = 1;
    return d->global_proc = (uint32_t)(d->tl->procs.n - 1);
}

static uint32_t new_lane(derive *d, uint32_t proc, uint32_t kind, uint32_t name, fin_track0 t)
{
    if (proc == STS_NONE) return STS_NONE;
    sts_lane *l = STS_VEC_PUSH(d->tl->lanes);
    fin_track0 *x = STS_VEC_PUSH(d->t0);
    if (!l || !x) return STS_NONE;
    memset(l, 0, sizeof *l);
    l->process = proc;
    l->name = name;
    l->kind = kind;
    *x = t;
    return (uint32_t)(d->tl->lanes.n - 1);
}

static uint32_t instants_lane(derive *d, const sts_instant *in)
{
    fin_track0 t = { STS_TRACK_PROCESS_INSTANTS, 0, 0 };
    if (in->scope == 'g') {
        if (d->global_instants == STS_NONE) {
            t.kind = STS_TRACK_GLOBAL_INSTANTS;
            d->global_instants = new_lane(d, global_process(d), STS_LANE_INSTANTS, 0, t);
        }
        return d->global_instants;
    }
    uint32_t p = d->tl->lanes.v[in->lane].process;
    if (d->proc_instants[p] == STS_NONE) d->proc_instants[p] = new_lane(d, p, STS_LANE_INSTANTS, 0, t);
    return d->proc_instants[p];
}

static sts_slice *new_slice(sts_timeline *tl, int64_t ts, int64_t dur, uint32_t name, uint32_t lane, uint32_t seq,
                            uint32_t args, uint32_t cat, uint16_t flags)
{
    sts_slice *s = STS_VEC_PUSH(tl->slices);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->ts = ts;
    s->dur = dur;
    s->name = name;
    s->lane = lane;
    s->parent = seq; /* raw convention */
    s->args = args;
    s->cat = cat;
    s->flags = flags;
    return s;
}

static int derive_instants(derive *d)
{
    sts_timeline *tl = d->tl;
    for (size_t i = 0; i < tl->instants.n; i++) {
        const sts_instant *in = &tl->instants.v[i];
        if (in->lane >= tl->lanes.n) continue;
        uint32_t lane = in->scope == 'p' || in->scope == 'g' ? instants_lane(d, in) : in->lane;
        if (lane == STS_NONE) return -1;
        in = &tl->instants.v[i];
        if (!new_slice(tl, in->ts, 0, in->name, lane, in->seq, in->args, in->cat, STS_SLICE_INSTANT)) return -1;
    }
    return 0;
}

/* ---- async ---------------------------------------------------------------------- */

static int is_async_slice_phase(char ph)
{
    return ph == 'b' || ph == 'e' || ph == 'n';
}

static int local_id(uint8_t kind)
{
    return kind == STS_ASYNC_ID_LOCAL_STRING || kind == STS_ASYNC_ID_LOCAL_NUMBER;
}

/* Perfetto's sorter keeps async events in (ts, file order): their phase class is the
 * same for b, e and n. */
#define ASYNC_LESS(a, x, y) \
    ((a)[x].ts != (a)[y].ts ? (a)[x].ts < (a)[y].ts : (a)[x].seq != (a)[y].seq ? (a)[x].seq < (a)[y].seq : (x) < (y))

STS_DEFINE_SORT(sort_async, uint32_t, sts_async, ASYNC_LESS)

/* A dense number for key, from `map` (values + 1); *fresh when it is new. */
static uint32_t dense(sts_u64map *map, uint64_t key, uint32_t next, int *fresh)
{
    uint32_t v = sts_u64map_get(map, key);
    *fresh = v == UINT32_MAX;
    if (!*fresh) return v;
    return sts_u64map_put(map, key, next) == 0 ? next : STS_NONE;
}

static uint32_t cookie_of(derive *d, const sts_async *a, uint32_t scope)
{
    /* Perfetto's cookie hashes the category with the id; a string id and a number with
     * the same digits are different ids. */
    int number = a->id_kind == STS_ASYNC_ID_NUMBER || a->id_kind == STS_ASYNC_ID_LOCAL_NUMBER ||
                 a->id_kind == STS_ASYNC_ID_GLOBAL_NUMBER;
    int fresh;
    uint32_t id =
        dense(&d->ids, ((uint64_t)a->cat << 32 | a->id) * 2 + (uint64_t)number + 1, (uint32_t)d->ids.count, &fresh);
    if (id == STS_NONE) return STS_NONE;
    uint32_t c = dense(&d->cookies, ((uint64_t)scope << 32 | id) + 1, (uint32_t)d->root.n, &fresh);
    if (c == STS_NONE) return STS_NONE;
    if (fresh) {
        uint32_t *r = STS_VEC_PUSH(d->root), *h = STS_VEC_PUSH(d->holder);
        if (!r || !h) return STS_NONE;
        *r = a->name;
        *h = STS_NONE;
    }
    return c;
}

static uint32_t set_of(derive *d, uint32_t scope, uint32_t proc, uint32_t name)
{
    int fresh;
    uint32_t s = dense(&d->set_of, ((uint64_t)scope << 32 | name) + 1, (uint32_t)d->sets.n, &fresh);
    if (s == STS_NONE || !fresh) return s;
    aset *x = STS_VEC_PUSH(d->sets);
    if (!x) return STS_NONE;
    memset(x, 0, sizeof *x);
    x->proc = proc;
    x->name = name;
    return s;
}

/* ---- the set's idle tracks, lowest first ----------------------------------------
 * A track is pushed when it becomes idle (made, or its last open slice closed) and
 * left in the heap when it becomes busy again: first_idle() drops such entries when
 * they come to the top. Every idle track has an entry, so the top that is idle is the
 * lowest idle track; a track pushed twice is found idle through either. */

static int idle_push(aset *set, uint32_t k)
{
    uint32_t *slot = STS_VEC_PUSH(set->idle);
    if (!slot) return -1;
    uint32_t *h = set->idle.v;
    size_t i = set->idle.n - 1;
    for (; i && h[(i - 1) / 2] > k; i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = k;
    return 0;
}

static void idle_pop(aset *set)
{
    uint32_t *h = set->idle.v, last = h[--set->idle.n];
    size_t n = set->idle.n, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && h[c + 1] < h[c]) c++;
        if (h[c] >= last) break;
        h[i] = h[c];
        i = c;
    }
    if (n) h[i] = last;
}

static long first_idle(aset *set)
{
    while (set->idle.n && set->tracks.v[set->idle.v[0]].nest != 0)
        idle_pop(set);
    return set->idle.n ? (long)set->idle.v[0] : -1;
}

/* Perfetto's GetOrCreateTrackForCookie: the track holding the cookie, else the first
 * track with no open slice, else a new one. Both found in O(log tracks): they were
 * searched track by track, and open async slices under N distinct ids cost N^2. A
 * cookie is held by one track at most (a track takes a cookie only when none holds it),
 * so d->holder names it. */
static long track_for(derive *d, aset *set, uint32_t cookie)
{
    if (d->holder.v[cookie] != STS_NONE) return (long)d->holder.v[cookie];
    long k = first_idle(set);
    if (k >= 0) {
        d->holder.v[set->tracks.v[k].cookie] = STS_NONE;
    } else {
        atrack *t = STS_VEC_PUSH(set->tracks);
        if (!t) return -1;
        t->nest = 0;
        t->lane = STS_NONE;
        k = (long)(set->tracks.n - 1);
        if (idle_push(set, (uint32_t)k) != 0) return -1;
    }
    set->tracks.v[k].cookie = cookie;
    d->holder.v[cookie] = (uint32_t)k;
    return k;
}

static int place_async(derive *d, const sts_async *a)
{
    sts_timeline *tl = d->tl;
    uint32_t proc = tl->lanes.v[a->lane].process;
    uint32_t scope = local_id(a->id_kind) ? proc + 1 : 0;
    uint32_t cookie = cookie_of(d, a, scope);
    if (cookie == STS_NONE) return -1;
    uint32_t si = set_of(d, scope, local_id(a->id_kind) ? proc : STS_NONE, d->root.v[cookie]);
    if (si == STS_NONE) return -1;
    aset *set = &d->sets.v[si];
    long k = track_for(d, set, cookie);
    if (k < 0) return -1;
    atrack *t = &set->tracks.v[k];
    if (a->phase == 'b') t->nest++;
    if (a->phase == 'e' && t->nest > 0 && --t->nest == 0 && idle_push(set, (uint32_t)k) != 0) return -1;
    if (t->lane == STS_NONE) {
        /* Perfetto names the track after the event that made it; the lane, after its set. */
        fin_track0 t0 = { set->proc == STS_NONE ? STS_TRACK_ASYNC_GLOBAL : STS_TRACK_ASYNC_PROCESS, (uint32_t)k,
                          a->name };
        uint32_t owner = set->proc == STS_NONE ? global_process(d) : set->proc;
        uint32_t lane = new_lane(d, owner, STS_LANE_ASYNC, set->name, t0);
        if (lane == STS_NONE) return -1;
        d->sets.v[si].tracks.v[k].lane = lane;
    }
    uint32_t lane = d->sets.v[si].tracks.v[k].lane;
    if (a->phase == 'e') {
        sts_end_event *e = STS_VEC_PUSH(tl->ends);
        if (!e) return -1;
        e->ts = a->ts;
        e->lane = lane;
        e->seq = a->seq;
        e->name = a->name;
        e->cat = a->cat;
        return 0;
    }
    uint32_t name = a->name;
    if (a->phase == 'b' && name == 0 && (name = sts_tl_no_name(tl)) == STS_NONE) return -1;
    int b = a->phase == 'b';
    return new_slice(tl, a->ts, b ? -1 : 0, name, lane, a->seq, a->args, a->cat,
                     (uint16_t)(STS_SLICE_ASYNC | (b ? STS_SLICE_FROM_BE : STS_SLICE_INSTANT)))
               ? 0
               : -1;
}

static int derive_async(derive *d)
{
    sts_timeline *tl = d->tl;
    size_t n = 0;
    for (size_t i = 0; i < tl->asyncs.n; i++)
        n += is_async_slice_phase(tl->asyncs.v[i].phase) && tl->asyncs.v[i].id_kind != STS_ASYNC_ID_NONE &&
             tl->asyncs.v[i].lane < tl->lanes.n;
    if (n == 0) return 0;
    uint32_t *idx = malloc(n * sizeof *idx), *tmp = malloc(n * sizeof *tmp);
    int bad = !idx || !tmp;
    for (size_t i = 0, k = 0; !bad && i < tl->asyncs.n; i++)
        if (is_async_slice_phase(tl->asyncs.v[i].phase) && tl->asyncs.v[i].id_kind != STS_ASYNC_ID_NONE &&
            tl->asyncs.v[i].lane < tl->lanes.n)
            idx[k++] = (uint32_t)i;
    if (!bad) bad = sort_async(idx, n, tmp, tl->asyncs.v) != 0;
    for (size_t k = 0; !bad && k < n; k++)
        bad = place_async(d, &tl->asyncs.v[idx[k]]) != 0;
    free(idx);
    free(tmp);
    return bad ? -1 : 0;
}

sts_status sts_fin_derive(sts_timeline *tl, fin_track0 **t0, sts_error *err)
{
    derive d;
    memset(&d, 0, sizeof d);
    d.tl = tl;
    d.global_proc = d.global_instants = STS_NONE;
    *t0 = NULL;
    int bad = sts_grow((void **)&d.t0.v, &d.t0.cap, tl->lanes.n + 1, sizeof *d.t0.v) != 0;
    for (size_t l = 0; !bad && l < tl->lanes.n; l++) {
        fin_track0 *x = STS_VEC_PUSH(d.t0);
        x->kind = STS_TRACK_THREAD;
        x->index = x->name = 0;
    }
    if (!bad) bad = !(d.proc_instants = malloc((tl->procs.n + 1) * sizeof *d.proc_instants));
    if (!bad) memset(d.proc_instants, 0xff, (tl->procs.n + 1) * sizeof *d.proc_instants);
    if (!bad) bad = derive_instants(&d) != 0 || derive_async(&d) != 0;
    for (size_t s = 0; s < d.sets.n; s++) {
        free(d.sets.v[s].tracks.v);
        free(d.sets.v[s].idle.v);
    }
    free(d.sets.v);
    free(d.root.v);
    free(d.holder.v);
    free(d.proc_instants);
    sts_u64map_release(&d.ids);
    sts_u64map_release(&d.cookies);
    sts_u64map_release(&d.set_of);
    if (bad) {
        free(d.t0.v);
        return sts_fin_nomem(tl, err);
    }
    *t0 = d.t0.v;
    return STS_OK;
}
