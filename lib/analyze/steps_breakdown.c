/* The per-step breakdown: each step's children (the outermost slices of its lane that
 * lie inside it, on any track) summed by name, the remainder no child covers, the
 * double-counted sum, whether the step may be cut by the capture, and statistics
 * across steps. */
#include <errno.h>
#include <math.h>
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
            if (parse_i64(sts_timeline_string(tl, a->v.str), index)) return 1;
            break;
        default:
            break;
        }
    }
    const char *hash = strrchr(sts_timeline_string(tl, sl->name), '#');
    if (!hash || hash[1] < '0' || hash[1] > '9') return 0;
    for (const char *p = hash + 1; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return parse_i64(hash + 1, index);
}

typedef struct name_slots {
    uint32_t *seen_in; /* name -> 1 + the step that last saw it */
    uint32_t *entry;   /* name -> its child entry in that step */
} name_slots;

static int add_child(sts_steps *s, sts_step *st, uint32_t k, name_slots *ns, const sts_slice *c, int64_t dur)
{
    if (ns->seen_in[c->name] != k + 1) {
        sts_step_child *x = STS_VEC_PUSH(s->children);
        if (!x) return -1;
        x->name = c->name;
        x->first_ts = c->ts;
        ns->seen_in[c->name] = k + 1;
        ns->entry[c->name] = (uint32_t)(s->children.n - 1);
    }
    sts_step_child *x = &s->children.v[ns->entry[c->name]];
    x->count++;
    x->total_ns += dur;
    st->naive_ns += dur;
    return 0;
}

/* The children of the step at view position `at`: the view entries after it that lie
 * inside it and inside no earlier such entry. Their union is what they cover. */
static int add_children(const sts_an_view *v, size_t at, sts_steps *s, sts_step *st, uint32_t k, name_slots *ns)
{
    const sts_an_iv *iv = v->iv;
    int64_t end = iv[at].end, reach = INT64_MIN, covered = 0;
    st->first_child = (uint32_t)s->children.n;
    st->naive_ns = st->dur;
    for (size_t j = at + 1; j < v->n && iv[j].ts < end; j++) {
        if (iv[j].end > end) continue;                                /* crosses the step's end: not inside it */
        if (v->slices[iv[j].idx].flags & STS_SLICE_INSTANT) continue; /* a mark, not an interval: no child */
        if (iv[j].ts < reach && iv[j].end <= reach) continue;         /* inside an earlier child */
        int64_t from = iv[j].ts > reach ? iv[j].ts : reach;
        if (iv[j].end > from) covered += iv[j].end - from;
        if (iv[j].end > reach) reach = iv[j].end;
        if (add_child(s, st, k, ns, &v->slices[iv[j].idx], iv[j].end - iv[j].ts) != 0) return -1;
    }
    st->child_count = (uint32_t)(s->children.n - st->first_child);
    st->children_ns = covered;
    st->unattributed_ns = st->dur - covered;
    return 0;
}

/* Statistics per child name of its per-step totals; `stat_of` maps a name to its
 * stats entry and is reused as scratch. */
static int child_stats(sts_steps *s, uint32_t *stat_of, uint32_t bound)
{
    memset(stat_of, 0xff, bound * sizeof *stat_of);
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

/* Mean and sample standard deviation, in a second pass over the deviations so large
 * timestamps-scale values lose no precision. */
static void mean_stddev(const sts_step *st, size_t n, double *mean, double *sd)
{
    double sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += (double)st[k].dur;
    *mean = n ? sum / (double)n : NAN;
    if (n < 2) {
        *sd = NAN;
        return;
    }
    double sq = 0;
    for (size_t k = 0; k < n; k++) {
        double d = (double)st[k].dur - *mean;
        sq += d * d;
    }
    *sd = sqrt(sq / (double)(n - 1));
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
        y->naive_ns += st->naive_ns;
        if (st->flags & STS_STEP_PARTIAL) y->partial++;
        if (k == 0 || st->dur < y->min_ns) y->min_ns = st->dur;
        if (k == 0 || st->dur > y->max_ns) y->max_ns = st->dur;
        if (k == 0 || u[k] < y->unattributed_min_ns) y->unattributed_min_ns = u[k];
        if (k == 0 || u[k] > y->unattributed_max_ns) y->unattributed_max_ns = u[k];
    }
    y->median_ns = sts_median_i64(d, n);
    y->unattributed_median_ns = sts_median_i64(u, n);
    y->unattributed_ns = y->total_ns - y->children_ns;
    mean_stddev(s->steps.v, n, &y->mean_ns, &y->stddev_ns);
    free(d);
    free(u);
    return 0;
}

static uint32_t partial_flags(const sts_timeline *tl, const sts_slice *sl, int64_t end)
{
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    uint32_t f = 0;
    if (sl->flags & STS_SLICE_UNCLOSED) f |= STS_STEP_UNCLOSED;
    if (sl->ts <= in->ts_min) f |= STS_STEP_AT_TRACE_START;
    if (end >= in->ts_max) f |= STS_STEP_AT_TRACE_END;
    return f;
}

/* Steps in time order, with children; indices from the slices or ordinals. The first
 * `skip` and last `skip` steps are left out (but keep their ordinals). */
static int fill_steps(const sts_timeline *tl, sts_steps *s, const uint32_t *slices, size_t n, size_t skip,
                      name_slots *ns)
{
    const sts_slice *sl = sts_timeline_slices(tl, NULL);
    sts_an_view v = { 0 };
    if (sts_an_view_load(&v, tl, sl[slices[0]].lane, NULL) != 0) return -1;
    /* slices are in view (time) order: walk the view, meeting them one by one. */
    size_t next = 0;
    int all_explicit = 1, bad = 0;
    for (size_t at = 0; at < v.n && next < n && !bad; at++) {
        uint32_t idx = v.iv[at].idx;
        if (idx != slices[next]) continue;
        size_t ordinal = next++;
        int64_t index = (int64_t)ordinal;
        if (!explicit_index(tl, &sl[idx], &index)) all_explicit = 0;
        if (ordinal < skip || ordinal >= n - skip) continue;
        sts_step *st = STS_VEC_PUSH(s->steps);
        if (!st) {
            bad = 1;
            break;
        }
        st->slice = idx;
        st->name = sl[idx].name;
        st->lane = sl[idx].lane;
        st->ts = v.iv[at].ts;
        st->dur = v.iv[at].end - v.iv[at].ts;
        st->flags = partial_flags(tl, &sl[idx], v.iv[at].end);
        st->index = index;
        st->first_window = (uint32_t)ordinal; /* the ordinal, until the windows are filled */
        bad = add_children(&v, at, s, st, (uint32_t)(s->steps.n - 1), ns) != 0;
    }
    sts_an_view_free(&v);
    /* Mixed sources would make indices collide; fall back to ordinals for all. */
    for (size_t k = 0; k < s->steps.n; k++) {
        if (!all_explicit) s->steps.v[k].index = (int64_t)s->steps.v[k].first_window;
        s->steps.v[k].first_window = 0; /* no windows until they are measured */
    }
    return bad ? -1 : 0;
}

/* Keeps the steps numbered first..last, and their children (each step's are contiguous
 * and in step order, so moving them forward in place is safe). */
static void keep_range(sts_steps *s, int64_t first, int64_t last)
{
    size_t o = 0, oc = 0;
    for (size_t k = 0; k < s->steps.n; k++) {
        sts_step x = s->steps.v[k];
        if (x.index < first || x.index > last) continue;
        memmove(&s->children.v[oc], &s->children.v[x.first_child], x.child_count * sizeof *s->children.v);
        x.first_child = (uint32_t)oc;
        oc += x.child_count;
        s->steps.v[o++] = x;
    }
    s->out_of_range = s->steps.n - o;
    s->steps.n = o;
    s->children.n = oc;
}

sts_status sts_steps_breakdown_fill(const sts_timeline *tl, sts_steps *s, const uint32_t *slices, size_t n,
                                    const sts_step_options *o, sts_error *err)
{
    uint32_t bound = sts_an_name_bound(tl);
    name_slots ns = { calloc(bound ? bound : 1, sizeof(uint32_t)), malloc((bound ? bound : 1) * sizeof(uint32_t)) };
    int bad = !ns.seen_in || !ns.entry;
    /* XProf's overview leaves out the first and last of more than five steps. */
    size_t skip = o->xprof_view && n > 5 ? 1 : 0;
    s->dropped = 2 * skip;
    if (!bad) bad = fill_steps(tl, s, slices, n, skip, &ns) != 0;
    if (!bad && (o->first_index != INT64_MIN || o->last_index != INT64_MAX))
        keep_range(s, o->first_index, o->last_index);
    if (!bad) bad = child_stats(s, ns.seen_in, bound) != 0 || summarize(s) != 0;
    free(ns.seen_in);
    free(ns.entry);
    return bad ? steps_nomem(err) : STS_OK;
}
