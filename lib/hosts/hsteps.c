/* A host's steps: its breakdown from sts_steps_find(), and what its device lanes did
 * inside each step's window: busy time and time in collectives, by kind. */
#include <stdlib.h>
#include <string.h>

#include "base/search.h"
#include "hosts/hosts_impl.h"

/* A slice of a device lane cut to one step's window. */
typedef struct cut {
    uint32_t step; /* index into the host's kept steps */
    int32_t kind;  /* index into the kinds, or -1: not a collective */
    int64_t a, b;  /* [a, b) */
} cut;

typedef STS_VEC(cut) cut_vec;

/* Union length of c[0..n), sorted by start. */
static int64_t union_sorted(const cut *c, size_t n)
{
    int64_t total = 0, end = INT64_MIN, start = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].a >= end) {
            if (end != INT64_MIN) total += end - start;
            start = c[i].a;
            end = c[i].b;
        } else if (c[i].b > end) {
            end = c[i].b;
        }
    }
    if (end != INT64_MIN) total += end - start;
    return total;
}

/* Sorts c[0..n) by start, stably, merging the runs already in order (each device
 * lane's cuts arrive in time order, so a step's cuts are a few runs): O(n log runs). */
static void sort_runs(cut *c, size_t n, cut *tmp)
{
    while (n > 1) {
        size_t runs = 0;
        for (size_t lo = 0; lo < n; runs++) {
            size_t mid = lo + 1;
            while (mid < n && c[mid - 1].a <= c[mid].a)
                mid++;
            size_t hi = mid < n ? mid + 1 : n;
            while (hi < n && c[hi - 1].a <= c[hi].a)
                hi++;
            /* [lo, mid) and [mid, hi) merged into tmp[lo, hi). */
            size_t i = lo, j = mid, out = lo;
            while (i < mid || j < hi)
                tmp[out++] = j >= hi || (i < mid && c[i].a <= c[j].a) ? c[i++] : c[j++];
            lo = hi;
        }
        memcpy(c, tmp, n * sizeof *c);
        if (runs <= 1) return;
    }
}

typedef struct windows {
    const sts_host_step *st;
    size_t n;
    int64_t *max_end; /* max_end[k] = the latest end among steps 0..k (steps are by start) */
} windows;

/* Cuts [ts, end) to every step window it overlaps. */
static int cut_slice(const windows *w, int64_t ts, int64_t end, int32_t kind, cut_vec *out)
{
    /* from the first step whose windows so far reach past ts */
    for (size_t k = sts_first_above_i64(w->max_end, w->n, ts); k < w->n && w->st[k].ts_ns < end; k++) {
        int64_t a = ts > w->st[k].ts_ns ? ts : w->st[k].ts_ns;
        int64_t wend = w->st[k].ts_ns + w->st[k].dur_ns, b = end < wend ? end : wend;
        if (b <= a) continue;
        cut *c = STS_VEC_PUSH(*out);
        if (!c) return -1;
        c->step = (uint32_t)k;
        c->kind = kind;
        c->a = a;
        c->b = b;
    }
    return 0;
}

/* The collective kinds seen, as indices into a small table of static strings. */
typedef struct kinds {
    const char *name[16];
    int n;
} kinds;

static int32_t kind_index(kinds *k, const char *kind)
{
    for (int i = 0; i < k->n; i++)
        if (k->name[i] == kind) return i;
    if (k->n == 16) return -1; /* more kinds than the classifier has: cannot happen */
    k->name[k->n] = kind;
    return k->n++;
}

/* Collective kind index per name id (-1: none), computed once per name. */
static int32_t *kinds_of_names(const sts_timeline *tl, kinds *k, uint32_t *nnames)
{
    size_t ns;
    const sts_slice *s = sts_timeline_slices(tl, &ns);
    uint32_t max = 0;
    for (size_t i = 0; i < ns; i++)
        if (s[i].name > max) max = s[i].name;
    int32_t *memo = malloc(((size_t)max + 1) * sizeof *memo);
    if (!memo) return NULL;
    for (size_t i = 0; i <= max; i++)
        memo[i] = INT32_MIN;
    for (size_t i = 0; i < ns; i++) {
        if (memo[s[i].name] != INT32_MIN) continue;
        const char *kind = sts_collective_kind(sts_timeline_string(tl, s[i].name));
        memo[s[i].name] = kind ? kind_index(k, kind) : -1;
    }
    *nnames = max + 1;
    return memo;
}

/* Every device lane's roots (their union is the lane's busy time) and collectives,
 * cut to the step windows. */
static int gather_cuts(const sts_timeline *tl, const windows *w, const int32_t *kind_of, cut_vec *out,
                       size_t *device_lanes)
{
    size_t nl;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    for (uint32_t l = 0; l < nl; l++) {
        if (!sts_lane_is_device(tl, l)) continue;
        (*device_lanes)++;
        for (uint32_t i = lanes[l].first_slice; i < lanes[l].first_slice + lanes[l].slice_count; i++) {
            if (s[i].dur <= 0) continue;
            int32_t kind = kind_of[s[i].name];
            if (s[i].parent != STS_NONE && kind < 0) continue;
            if (cut_slice(w, s[i].ts, s[i].ts + s[i].dur, kind, out) != 0) return -1;
            /* A root collective also counts as busy time. */
            if (kind >= 0 && s[i].parent == STS_NONE && cut_slice(w, s[i].ts, s[i].ts + s[i].dur, -1, out) != 0)
                return -1;
        }
    }
    return 0;
}

/* Per step: device busy (kind -1 cuts), and each kind's union; collective_ns is the
 * union of every kind's cuts together. The cuts are grouped by (step, kind) with a
 * stable counting sort, which keeps each lane's cuts in time order. */
static sts_status fill_device(sts_host_rec *r, const cut_vec *cuts, const kinds *k, sts_error *err)
{
    size_t groups = r->steps.n * (size_t)(k->n + 1);
    size_t *off = calloc(groups + 1, sizeof *off);
    cut *g = malloc((cuts->n ? cuts->n : 1) * sizeof *g), *tmp = malloc((cuts->n ? cuts->n : 1) * sizeof *tmp);
    if (!off || !g || !tmp) {
        free(off);
        free(g);
        free(tmp);
        return sts_hosts_nomem(err);
    }
#define GROUP(c) ((size_t)(c).step * (size_t)(k->n + 1) + (size_t)((c).kind + 1))
    for (size_t i = 0; i < cuts->n; i++)
        off[GROUP(cuts->v[i]) + 1]++;
    for (size_t i = 0; i < groups; i++)
        off[i + 1] += off[i];
    for (size_t i = 0; i < cuts->n; i++)
        g[off[GROUP(cuts->v[i])]++] = cuts->v[i];
    for (size_t i = groups; i > 0; i--) /* off[i] is now group i's start */
        off[i] = off[i - 1];
    off[0] = 0;
#undef GROUP
    int bad = 0;
    for (size_t s = 0; s < r->steps.n && !bad; s++) {
        sts_host_step *st = &r->steps.v[s];
        size_t base = s * (size_t)(k->n + 1), lo = off[base], hi = off[base + (size_t)k->n + 1];
        st->first_collective = (uint32_t)r->colls.n;
        sort_runs(g + lo, off[base + 1] - lo, tmp);
        st->device_busy_ns = union_sorted(g + lo, off[base + 1] - lo);
        for (int kind = 0; kind < k->n && !bad; kind++) {
            size_t a = off[base + (size_t)kind + 1], b = off[base + (size_t)kind + 2];
            if (a == b) continue;
            sort_runs(g + a, b - a, tmp);
            sts_host_collective *c = STS_VEC_PUSH(r->colls);
            if (!c) {
                bad = 1;
                break;
            }
            c->kind = sts_host_rec_str(r, k->name[kind], &bad);
            c->ns = union_sorted(g + a, b - a);
        }
        /* Every kind together: the kinds' sorted runs merged. */
        sort_runs(g + off[base + 1], hi - off[base + 1], tmp);
        st->collective_ns = union_sorted(g + off[base + 1], hi - off[base + 1]);
        st->collective_count = (uint32_t)(r->colls.n - st->first_collective);
    }
    free(off);
    free(g);
    free(tmp);
    return bad ? sts_hosts_nomem(err) : STS_OK;
}

static sts_status device_windows(sts_host_rec *r, const sts_timeline *tl, sts_error *err)
{
    kinds k = { { NULL }, 0 };
    uint32_t nnames = 0;
    int32_t *kind_of = kinds_of_names(tl, &k, &nnames);
    windows w = { r->steps.v, r->steps.n, malloc((r->steps.n ? r->steps.n : 1) * sizeof(int64_t)) };
    cut_vec cuts = { 0 };
    sts_status st = STS_OK;
    if (!kind_of || !w.max_end) st = sts_hosts_nomem(err);
    for (size_t i = 0; st == STS_OK && i < w.n; i++) {
        int64_t e = w.st[i].ts_ns + w.st[i].dur_ns;
        w.max_end[i] = i && w.max_end[i - 1] > e ? w.max_end[i - 1] : e;
    }
    size_t ndev = 0;
    if (st == STS_OK && gather_cuts(tl, &w, kind_of, &cuts, &ndev) != 0) st = sts_hosts_nomem(err);
    r->steps_info.device_lanes = ndev;
    if (st == STS_OK && ndev) st = fill_device(r, &cuts, &k, err);
    if (st == STS_OK && !ndev)
        for (size_t i = 0; i < r->steps.n; i++)
            r->steps.v[i].device_busy_ns = r->steps.v[i].collective_ns = -1;
    free(kind_of);
    free(w.max_end);
    STS_VEC_RELEASE(cuts);
    return st;
}

/* The steps' lane, rule and what was tried. */
static int note_found(sts_host_rec *r, const sts_timeline *tl, const sts_steps *s)
{
    int bad = 0;
    sts_host_steps_info *in = &r->steps_info;
    in->rule = sts_steps_rule(s);
    in->other_lanes = sts_steps_other_lanes(s);
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    if (n) {
        sts_host_rec_lane_names(r, tl, st[0].lane, (const char **[4]){ &in->pid, &in->tid, &in->process, &in->thread },
                                &bad);
    }
    size_t nt;
    const char *const *tried = sts_steps_tried(s, &nt);
    for (size_t i = 0; i < nt && !bad; i++) {
        const char **slot = STS_VEC_PUSH(r->tried);
        if (!slot) return -1;
        *slot = sts_host_rec_str(r, tried[i], &bad);
    }
    in->tried = r->tried.v;
    in->ntried = r->tried.n;
    return bad ? -1 : 0;
}

/* Keeps each step number's first step: steps align across hosts by number. */
static int keep_steps(sts_host_rec *r, const sts_timeline *tl, const sts_steps *s)
{
    size_t n, nch;
    const sts_step *st = sts_steps_list(s, &n);
    const sts_step_child *ch = sts_steps_children(s, &nch);
    sts_u64map seen = STS_U64MAP_INIT;
    int bad = 0;
    for (size_t k = 0; k < n && !bad; k++) {
        uint64_t key = (uint64_t)st[k].index ^ 0x8000000000000000u;
        if (key == 0) key = 1u; /* INT64_MAX's key; the map reserves 0 */
        if (sts_u64map_get(&seen, key) != UINT32_MAX) {
            r->steps_info.duplicates++;
            continue;
        }
        sts_host_step *hs = STS_VEC_PUSH(r->steps);
        if (!hs || sts_u64map_put(&seen, key, 1) != 0) {
            bad = 1;
            break;
        }
        hs->step = st[k].index;
        hs->ts_ns = st[k].ts;
        hs->dur_ns = st[k].dur;
        hs->children_ns = st[k].children_ns;
        hs->unattributed_ns = st[k].unattributed_ns;
        hs->first_child = (uint32_t)r->children.n;
        for (uint32_t c = st[k].first_child; c < st[k].first_child + st[k].child_count && !bad; c++) {
            sts_host_child *hc = STS_VEC_PUSH(r->children);
            if (!hc) {
                bad = 1;
                break;
            }
            hc->name = sts_host_rec_str(r, sts_timeline_string(tl, ch[c].name), &bad);
            hc->count = ch[c].count;
            hc->total_ns = ch[c].total_ns;
        }
        hs->child_count = (uint32_t)(r->children.n - hs->first_child);
    }
    sts_u64map_release(&seen);
    return bad ? -1 : 0;
}

sts_status sts_host_rec_steps(sts_host_rec *r, const sts_timeline *tl, const sts_hosts_options *opt, sts_error *err)
{
    sts_steps *s = NULL;
    sts_status st = sts_steps_find(tl, &opt->steps, &s, err);
    if (st != STS_OK) return st;
    r->has_steps = 1;
    if (note_found(r, tl, s) != 0 || keep_steps(r, tl, s) != 0) st = sts_hosts_nomem(err);
    if (st == STS_OK && (opt->what & STS_HOSTS_DEVICE)) st = sts_host_rec_device(r, tl, s, opt->device_rules, err);
    if (st == STS_OK && (opt->what & STS_HOSTS_MEMORY)) st = sts_host_rec_memory(r, tl, s, opt->keep_warnings, err);
    if (st == STS_OK && (opt->what & STS_HOSTS_COLLECTIVES)) st = sts_host_rec_colls(r, tl, s, err);
    sts_steps_free(s);
    if (st == STS_OK) st = device_windows(r, tl, err);
    return st;
}
