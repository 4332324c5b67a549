/* Step rule 3: without names or args that mark steps, a training loop still shows as one
 * outermost name repeated on a lane, each instance holding the step's work.
 *
 * One pass per lane in containment order finds, with running maxima of ends, which
 * slices are outermost (inside no other), which instances of a name lie inside another
 * instance of it, and (with a sliding-window minimum of ends, since both the window's
 * start and its end only move forward over outermost slices) which outermost slices
 * hold something. */
#include <stdlib.h>
#include <string.h>

#include "analyze/steps_impl.h"
#include "base/mem.h"
#include "stepscope/format.h"

typedef struct candidate {
    uint32_t lane, name;
    uint64_t count;
    int64_t total;
    int has_children;
    int nests;
} candidate;

typedef STS_VEC(candidate) candidate_vec;

typedef struct gather_ctx {
    const sts_timeline *tl;
    sts_an_view v;
    sts_u64map map; /* (lane, name) -> candidate */
    candidate_vec c;
    int64_t *reach_of; /* per name: furthest end of its instances on this lane so far */
    STS_VEC(uint32_t) touched;
    uint32_t *deque;
    size_t deque_cap;
} gather_ctx;

static uint64_t group_key(uint32_t lane, uint32_t name)
{
    return ((uint64_t)lane + 1) << 32 | name;
}

static candidate *candidate_of(gather_ctx *g, uint32_t lane, uint32_t name)
{
    uint64_t key = group_key(lane, name);
    uint32_t at = sts_u64map_get(&g->map, key);
    if (at != UINT32_MAX) return &g->c.v[at];
    candidate *x = STS_VEC_PUSH(g->c);
    if (!x) return NULL;
    x->lane = lane;
    x->name = name;
    if (sts_u64map_put(&g->map, key, (uint32_t)(g->c.n - 1)) != 0) return NULL;
    return x;
}

/* 1 when some entry after `at` starting before its end also ends by it; `hi` and the
 * deque (positions by increasing end) carry over between calls with increasing `at`. */
static int holds_something(gather_ctx *g, size_t at, size_t *hi, size_t *head, size_t *tail)
{
    const sts_an_iv *iv = g->v.iv;
    while (*head < *tail && g->deque[*head] <= at)
        (*head)++;
    if (*hi < at + 1) *hi = at + 1;
    while (*hi < g->v.n && iv[*hi].ts < iv[at].end) {
        while (*tail > *head && iv[g->deque[*tail - 1]].end >= iv[*hi].end)
            (*tail)--;
        g->deque[(*tail)++] = (uint32_t)*hi;
        (*hi)++;
    }
    return *head < *tail && iv[g->deque[*head]].end <= iv[at].end;
}

static int gather_lane(gather_ctx *g, uint32_t lane)
{
    if (sts_an_view_load(&g->v, g->tl, lane, NULL) != 0) return -1;
    if (sts_grow((void **)&g->deque, &g->deque_cap, g->v.n ? g->v.n : 1, sizeof *g->deque) != 0) return -1;
    const sts_slice *s = g->v.slices;
    int64_t reach = INT64_MIN;
    size_t hi = 0, head = 0, tail = 0;
    g->touched.n = 0;
    for (size_t k = 0; k < g->v.n; k++) {
        const sts_an_iv *iv = &g->v.iv[k];
        uint32_t nm = s[iv->idx].name;
        int64_t *r = &g->reach_of[nm];
        if (*r == INT64_MIN) {
            uint32_t *t = STS_VEC_PUSH(g->touched);
            if (!t) return -1;
            *t = nm;
        }
        int inside_same = iv->ts < *r && iv->end <= *r;
        if (iv->end > *r) *r = iv->end;
        int outermost = !(iv->ts < reach && iv->end <= reach);
        if (iv->end > reach) reach = iv->end;
        if (!outermost && !inside_same) continue;
        candidate *c = candidate_of(g, lane, nm);
        if (!c) return -1;
        if (inside_same) c->nests = 1;
        if (!outermost) continue;
        c->count++;
        c->total += iv->end - iv->ts;
        if (!c->has_children && holds_something(g, k, &hi, &head, &tail)) c->has_children = 1;
    }
    for (size_t i = 0; i < g->touched.n; i++)
        g->reach_of[g->touched.v[i]] = INT64_MIN;
    return 0;
}

static int by_total(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static const char *why_not(const candidate *c)
{
    if (c->count < 2) return "occurs only once outermost";
    if (!c->has_children) return "has no children";
    if (c->nests) return "nests inside itself";
    return NULL;
}

static int note(const sts_timeline *tl, sts_steps *s, const candidate *c, const char *why)
{
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + c->lane;
    const sts_process *p = sts_timeline_processes(tl, NULL) + ln->process;
    char total[STS_FMT_DURATION_MAX];
    sts_fmt_duration((double)c->total, total, sizeof total);
    return sts_steps_note_tried(s, "repeated root name '%s' (pid %s tid %s): %llu outermost, %s in all: %s",
                                sts_timeline_string(tl, c->name), sts_timeline_string(tl, p->label),
                                sts_timeline_string(tl, ln->label), (unsigned long long)c->count, total,
                                why ? why : "chosen");
}

/* The chosen name's outermost instances on its lane, in time order. */
static int take(gather_ctx *g, const candidate *c, steps_u32vec *found)
{
    if (sts_an_view_load(&g->v, g->tl, c->lane, NULL) != 0) return -1;
    int64_t reach = INT64_MIN;
    for (size_t k = 0; k < g->v.n; k++) {
        const sts_an_iv *iv = &g->v.iv[k];
        int outermost = !(iv->ts < reach && iv->end <= reach);
        if (iv->end > reach) reach = iv->end;
        if (outermost && g->v.slices[iv->idx].name == c->name && steps_push(found, iv->idx) != 0) return -1;
    }
    return 0;
}

static void gather_free(gather_ctx *g)
{
    sts_an_view_free(&g->v);
    sts_u64map_release(&g->map);
    STS_VEC_RELEASE(g->c);
    STS_VEC_RELEASE(g->touched);
    free(g->reach_of);
    free(g->deque);
}

sts_status sts_steps_detect_repeated(const sts_timeline *tl, sts_steps *s, steps_u32vec *found, sts_error *err)
{
    gather_ctx g = { 0 };
    g.tl = tl;
    uint32_t bound = sts_an_name_bound(tl);
    g.reach_of = malloc((bound ? bound : 1) * sizeof *g.reach_of);
    int bad = !g.reach_of;
    for (uint32_t i = 0; i < bound && !bad; i++)
        g.reach_of[i] = INT64_MIN;
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    for (size_t l = 0; l < nl && !bad; l++)
        bad = gather_lane(&g, (uint32_t)l) != 0;
    /* Names that only ever nest (never outermost) were gathered for the nesting flag. */
    size_t keep = 0;
    for (size_t k = 0; k < g.c.n; k++)
        if (g.c.v[k].count) g.c.v[keep++] = g.c.v[k];
    g.c.n = keep;
    if (!bad && g.c.n > 1) qsort(g.c.v, g.c.n, sizeof *g.c.v, by_total);
    const size_t max_notes = 5;
    for (size_t k = 0; k < g.c.n && !bad; k++) {
        const char *why = why_not(&g.c.v[k]);
        if (k < max_notes || !why) bad = note(tl, s, &g.c.v[k], why) != 0;
        if (!why) {
            bad = bad || take(&g, &g.c.v[k], found) != 0;
            break;
        }
    }
    if (!bad && g.c.n == 0)
        bad = sts_steps_note_tried(s, "repeated root names: the trace has no slices") != 0;
    else if (!bad && g.c.n > max_notes && !found->n)
        bad =
            sts_steps_note_tried(s, "... and %zu more root names, none repeated with children", g.c.n - max_notes) != 0;
    gather_free(&g);
    return bad ? steps_nomem(err) : STS_OK;
}
