/* The per-step breakdown: each step's direct children summed by name, the remainder
 * no child covers, and statistics per child name across steps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/steps_impl.h"

static int parse_i64(const char *p, int64_t *out)
{
    if (!*p) return 0;
    errno = 0;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

/* The step number: a step_num arg, else N from a name ending in "#N". */
static int explicit_index(const sts_timeline *tl, const sts_slice *sl, int64_t *index)
{
    const sts_arg *a = sts_timeline_find_arg(tl, sl->args, "step_num");
    if (a) {
        switch (a->type) {
        case STS_ARG_INT:
            *index = a->v.i;
            return 1;
        case STS_ARG_DOUBLE:
            if (a->v.d >= -9.2e18 && a->v.d <= 9.2e18) {
                *index = (int64_t)a->v.d;
                return 1;
            }
            break;
        case STS_ARG_STRING:
            if (parse_i64(sts_strtab_get(&tl->strings, a->v.str), index)) return 1;
            break;
        default:
            break;
        }
    }
    const char *hash = strrchr(sts_strtab_get(&tl->strings, sl->name), '#');
    if (!hash || hash[1] < '0' || hash[1] > '9') return 0;
    for (const char *p = hash + 1; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return parse_i64(hash + 1, index);
}

typedef struct name_slots {
    uint32_t *seen_in; /* name -> 1 + the step that last saw it */
    uint32_t *entry;   /* name -> its child entry in that step */
} name_slots;

static int add_children(const sts_timeline *tl, sts_steps *s, sts_step *st, uint32_t k, name_slots *ns)
{
    const sts_slice *S = tl->slices.v;
    const sts_lane *ln = &tl->lanes.v[st->lane];
    uint32_t stop = ln->first_slice + ln->slice_count;
    int64_t end = st->ts + st->dur;
    st->first_child = (uint32_t)s->children.n;
    for (uint32_t j = st->slice + 1; j < stop && S[j].ts < end; j++) {
        if (S[j].parent != st->slice) continue;
        uint32_t nm = S[j].name;
        if (ns->seen_in[nm] != k + 1) {
            sts_step_child *c = STS_VEC_PUSH(s->children);
            if (!c) return -1;
            c->name = nm;
            c->first_ts = S[j].ts;
            ns->seen_in[nm] = k + 1;
            ns->entry[nm] = (uint32_t)(s->children.n - 1);
        }
        sts_step_child *c = &s->children.v[ns->entry[nm]];
        c->count++;
        c->total_ns += S[j].dur;
        st->children_ns += S[j].dur;
    }
    st->child_count = (uint32_t)(s->children.n - st->first_child);
    st->unattributed_ns = st->dur - st->children_ns;
    st->naive_ns = st->dur + st->children_ns;
    return 0;
}

/* Statistics per child name of its per-step totals; `stat_of` maps a name to its
 * stats entry and is reused as scratch. */
static int child_stats(const sts_timeline *tl, sts_steps *s, uint32_t *stat_of)
{
    memset(stat_of, 0xff, tl->strings.count * sizeof *stat_of);
    for (size_t c = 0; c < s->children.n; c++) {
        const sts_step_child *ch = &s->children.v[c];
        if (stat_of[ch->name] == STS_NONE) {
            sts_step_child_stats *x = STS_VEC_PUSH(s->stats);
            if (!x) return -1;
            x->name = ch->name;
            x->min_ns = x->max_ns = ch->total_ns;
            stat_of[ch->name] = (uint32_t)(s->stats.n - 1);
        }
        sts_step_child_stats *x = &s->stats.v[stat_of[ch->name]];
        x->steps++;
        x->count += ch->count;
        x->total_ns += ch->total_ns;
        if (ch->total_ns < x->min_ns) x->min_ns = ch->total_ns;
        if (ch->total_ns > x->max_ns) x->max_ns = ch->total_ns;
    }
    /* Group the per-step totals by name (counting sort), then take each median. */
    size_t ng = s->stats.n;
    size_t *off = calloc(ng + 1, sizeof *off);
    int64_t *vals = malloc((s->children.n ? s->children.n : 1) * sizeof *vals);
    if (!off || !vals) {
        free(off);
        free(vals);
        return -1;
    }
    for (size_t g = 0; g < ng; g++)
        off[g + 1] = off[g] + s->stats.v[g].steps;
    for (size_t c = 0; c < s->children.n; c++)
        vals[off[stat_of[s->children.v[c].name]]++] = s->children.v[c].total_ns;
    for (size_t g = 0, start = 0; g < ng; g++) {
        s->stats.v[g].median_ns = sts_median_i64(vals + start, off[g] - start);
        start = off[g];
    }
    free(off);
    free(vals);
    return 0;
}

static int summarize(sts_steps *s)
{
    size_t n = s->steps.n;
    sts_steps_summary *y = &s->summary;
    y->steps = n;
    int64_t *d = malloc((n ? n : 1) * sizeof *d), *u = malloc((n ? n : 1) * sizeof *u);
    if (!d || !u) {
        free(d);
        free(u);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        const sts_step *st = &s->steps.v[k];
        d[k] = st->dur;
        u[k] = st->unattributed_ns;
        y->total_ns += st->dur;
        y->children_ns += st->children_ns;
        if (k == 0 || st->dur < y->min_ns) y->min_ns = st->dur;
        if (k == 0 || st->dur > y->max_ns) y->max_ns = st->dur;
        if (k == 0 || u[k] < y->unattributed_min_ns) y->unattributed_min_ns = u[k];
        if (k == 0 || u[k] > y->unattributed_max_ns) y->unattributed_max_ns = u[k];
    }
    y->median_ns = sts_median_i64(d, n);
    y->unattributed_median_ns = sts_median_i64(u, n);
    y->unattributed_ns = y->total_ns - y->children_ns;
    y->naive_ns = y->total_ns + y->children_ns;
    free(d);
    free(u);
    return 0;
}

sts_status sts_steps_breakdown_fill(const sts_timeline *tl, sts_steps *s, const uint32_t *slices, size_t n,
                                    sts_error *err)
{
    size_t nstr = tl->strings.count;
    name_slots ns = { calloc(nstr ? nstr : 1, sizeof(uint32_t)), malloc((nstr ? nstr : 1) * sizeof(uint32_t)) };
    int bad = !ns.seen_in || !ns.entry;
    int all_explicit = 1;
    for (size_t k = 0; k < n && !bad; k++) {
        const sts_slice *sl = &tl->slices.v[slices[k]];
        sts_step *st = STS_VEC_PUSH(s->steps);
        if (!st) {
            bad = 1;
            break;
        }
        st->slice = slices[k];
        st->name = sl->name;
        st->lane = sl->lane;
        st->ts = sl->ts;
        st->dur = sl->dur;
        if (!explicit_index(tl, sl, &st->index)) all_explicit = 0;
        bad = add_children(tl, s, st, (uint32_t)k, &ns) != 0;
    }
    /* Mixed sources would make indices collide; fall back to ordinals for all. */
    if (!bad && !all_explicit)
        for (size_t k = 0; k < s->steps.n; k++)
            s->steps.v[k].index = (int64_t)k;
    if (!bad) bad = child_stats(tl, s, ns.seen_in) != 0 || summarize(s) != 0;
    free(ns.seen_in);
    free(ns.entry);
    return bad ? steps_nomem(err) : STS_OK;
}
