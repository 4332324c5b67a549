/* Step rule 3: without names or args that mark steps, a training loop still shows as one
 * root name repeated on a lane, each instance holding the step's work. */
#include <stdlib.h>
#include <string.h>

#include "analyze/steps_impl.h"
#include "stepscope/format.h"

typedef struct candidate {
    uint32_t lane, name;
    uint64_t count;
    int64_t total;
    int has_children;
} candidate;

typedef STS_VEC(candidate) candidate_vec;

static int is_root(const sts_slice *s)
{
    return s->depth == 0 && s->parent == STS_NONE;
}

static uint64_t group_key(uint32_t lane, uint32_t name)
{
    return ((uint64_t)lane + 1) << 32 | name;
}

static int gather(const sts_timeline *tl, sts_u64map *map, candidate_vec *c)
{
    const sts_slice *s = tl->slices.v;
    for (size_t i = 0; i < tl->slices.n; i++) {
        if (!is_root(&s[i])) continue;
        uint64_t key = group_key(s[i].lane, s[i].name);
        uint32_t g = sts_u64map_get(map, key);
        if (g == UINT32_MAX) {
            candidate *x = STS_VEC_PUSH(*c);
            if (!x) return -1;
            x->lane = s[i].lane;
            x->name = s[i].name;
            g = (uint32_t)(c->n - 1);
            if (sts_u64map_put(map, key, g) != 0) return -1;
        }
        c->v[g].count++;
        c->v[g].total += s[i].dur;
    }
    uint32_t last = STS_NONE;
    for (size_t i = 0; i < tl->slices.n; i++) {
        uint32_t p = s[i].parent;
        if (p == STS_NONE || p == last || !is_root(&s[p])) continue;
        last = p;
        c->v[sts_u64map_get(map, group_key(s[p].lane, s[p].name))].has_children = 1;
    }
    return 0;
}

static int by_total(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

/* 1 when some instance of the name on the lane lies inside another instance. */
static int nests_in_itself(const sts_timeline *tl, const candidate *c)
{
    const sts_lane *ln = &tl->lanes.v[c->lane];
    const sts_slice *s = tl->slices.v;
    for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++) {
        if (s[i].name != c->name) continue;
        for (uint32_t p = s[i].parent; p != STS_NONE; p = s[p].parent)
            if (s[p].name == c->name) return 1;
    }
    return 0;
}

static const char *why_not(const sts_timeline *tl, const candidate *c)
{
    if (c->count < 2) return "occurs only once at depth 0";
    if (!c->has_children) return "has no children";
    if (nests_in_itself(tl, c)) return "nests inside itself";
    return NULL;
}

static int note(const sts_timeline *tl, sts_steps *s, const candidate *c, const char *why)
{
    const sts_lane *ln = &tl->lanes.v[c->lane];
    char total[STS_FMT_DURATION_MAX];
    sts_fmt_duration((double)c->total, total, sizeof total);
    return sts_steps_note_tried(
        s, "repeated root name '%s' (pid %s tid %s): %llu at depth 0, %s in all: %s",
        sts_strtab_get(&tl->strings, c->name), sts_strtab_get(&tl->strings, tl->procs.v[ln->process].label),
        sts_strtab_get(&tl->strings, ln->label), (unsigned long long)c->count, total, why ? why : "chosen");
}

static int take(const sts_timeline *tl, const candidate *c, steps_u32vec *found)
{
    const sts_lane *ln = &tl->lanes.v[c->lane];
    for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++)
        if (is_root(&tl->slices.v[i]) && tl->slices.v[i].name == c->name && steps_push(found, i) != 0) return -1;
    return 0;
}

sts_status sts_steps_detect_repeated(const sts_timeline *tl, sts_steps *s, steps_u32vec *found, sts_error *err)
{
    sts_u64map map = STS_U64MAP_INIT;
    candidate_vec c = { 0 };
    int bad = gather(tl, &map, &c);
    sts_u64map_release(&map);
    if (!bad && c.n > 1) qsort(c.v, c.n, sizeof *c.v, by_total);
    const size_t max_notes = 5;
    for (size_t k = 0; k < c.n && !bad; k++) {
        const char *why = why_not(tl, &c.v[k]);
        if (k < max_notes || !why) bad = note(tl, s, &c.v[k], why) != 0;
        if (!why) {
            bad = bad || take(tl, &c.v[k], found) != 0;
            break;
        }
    }
    if (!bad && c.n == 0)
        bad = sts_steps_note_tried(s, "repeated root names: the trace has no slices") != 0;
    else if (!bad && c.n > max_notes && !found->n)
        bad = sts_steps_note_tried(s, "... and %zu more root names, none repeated with children", c.n - max_notes) != 0;
    free(c.v);
    return bad ? steps_nomem(err) : STS_OK;
}
