/* The device view's inputs: the devices, their ops with the category the rules give,
 * and each op's launch on the host.
 *
 * An op is linked by its correlation id to the host slice holding the same id, looked
 * up in a map of the host slices that carry one (the runtime calls: a few per op, so
 * the map is as large as the ops). An op with no id is linked through a kept flow
 * whose end it starts at, to the host slice the flow starts in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/devview_impl.h"
#include "base/search.h"

/* ---- rule evaluation ---------------------------------------------------------------- */

/* Per condition, what it gave for each string id (or lane) it met: -1 not yet. */
typedef struct memo {
    signed char *v;
    size_t n;
} memo;

typedef struct eval {
    const sts_timeline *tl;
    const sts_devview_rules *r;
    memo *by_cond;
    uint32_t *arg_key; /* per condition: the arg key's string id (DV_F_ARG), else STS_NONE */
    const sts_arg *args;
    size_t nargs;
} eval;

static int memo_get(memo *m, size_t id)
{
    return id < m->n ? m->v[id] : -1;
}

static int memo_put(memo *m, size_t id, int val)
{
    if (id >= m->n) {
        size_t n = m->n ? m->n : 64;
        while (n <= id)
            n *= 2;
        signed char *v = realloc(m->v, n);
        if (!v) return -1;
        memset(v + m->n, -1, n - m->n);
        m->v = v;
        m->n = n;
    }
    m->v[id] = (signed char)val;
    return 0;
}

/* A condition on a string id's text, memoized. -1 when memory is exhausted. */
static int test_string(eval *e, size_t ci, uint32_t id)
{
    int got = memo_get(&e->by_cond[ci], id);
    if (got >= 0) return got;
    const char *t = sts_timeline_string(e->tl, id);
    got = sts_dv_cond_test(&e->r->conds.v[ci], t, strlen(t));
    return memo_put(&e->by_cond[ci], id, got) == 0 ? got : -1;
}

static const sts_arg *find_arg(const eval *e, uint32_t first, uint32_t key)
{
    if (first == STS_NONE || key == STS_NONE) return NULL;
    for (size_t k = first; k < e->nargs; k++) {
        if (e->args[k].key == key) return &e->args[k];
        if (e->args[k].last) break;
    }
    return NULL;
}

static int test_arg(eval *e, size_t ci, const sts_slice *s)
{
    const sts_arg *a = find_arg(e, s->args, e->arg_key[ci]);
    if (!a) return 0;
    char buf[64];
    switch (a->type) {
    case STS_ARG_STRING:
        return test_string(e, ci, a->v.str);
    case STS_ARG_INT:
        snprintf(buf, sizeof buf, "%lld", (long long)a->v.i);
        break;
    case STS_ARG_DOUBLE:
        snprintf(buf, sizeof buf, "%.17g", a->v.d);
        break;
    case STS_ARG_BOOL:
        snprintf(buf, sizeof buf, "%s", a->v.i ? "true" : "false");
        break;
    default:
        return 0;
    }
    return sts_dv_cond_test(&e->r->conds.v[ci], buf, strlen(buf));
}

static int test_cond(eval *e, size_t ci, const sts_slice *s)
{
    const dv_cond *c = &e->r->conds.v[ci];
    switch (c->field) {
    case DV_F_ANY:
        return 1;
    case DV_F_NAME:
        return test_string(e, ci, s->name);
    case DV_F_CAT:
        return test_string(e, ci, s->cat);
    case DV_F_LANE: {
        const sts_lane *l = &sts_timeline_lanes(e->tl, NULL)[s->lane];
        return test_string(e, ci, l->name);
    }
    case DV_F_PROCESS: {
        const sts_lane *l = &sts_timeline_lanes(e->tl, NULL)[s->lane];
        return test_string(e, ci, sts_timeline_processes(e->tl, NULL)[l->process].name);
    }
    case DV_F_ARG:
        return test_arg(e, ci, s);
    default:
        return 0;
    }
}

/* The first rule whose conditions all hold: its index, rules.n when none, or -1 when
 * memory is exhausted. */
static long first_rule(eval *e, const sts_slice *s)
{
    const sts_devview_rules *r = e->r;
    for (size_t i = 0; i < r->rules.n; i++) {
        const dv_rule *ru = &r->rules.v[i];
        int all = 1;
        for (uint32_t c = ru->first_cond; c < ru->first_cond + ru->ncond && all; c++) {
            int t = test_cond(e, c, s);
            if (t < 0) return -1;
            all = t;
        }
        if (all) return (long)i;
    }
    return (long)r->rules.n;
}

static int eval_open(eval *e, const sts_timeline *tl, const sts_devview_rules *r)
{
    memset(e, 0, sizeof *e);
    e->tl = tl;
    e->r = r;
    size_t nc = r->conds.n ? r->conds.n : 1;
    e->by_cond = calloc(nc, sizeof *e->by_cond);
    e->arg_key = malloc(nc * sizeof *e->arg_key);
    if (!e->by_cond || !e->arg_key) return -1;
    for (size_t i = 0; i < r->conds.n; i++)
        e->arg_key[i] = r->conds.v[i].field == DV_F_ARG ? sts_timeline_find_string(tl, r->conds.v[i].key) : STS_NONE;
    e->args = sts_timeline_args(tl, &e->nargs);
    return 0;
}

static void eval_close(eval *e)
{
    for (size_t i = 0; e->by_cond && i < e->r->conds.n; i++)
        free(e->by_cond[i].v);
    free(e->by_cond);
    free(e->arg_key);
}

/* ---- correlation ids ---------------------------------------------------------------- */

typedef struct keys {
    uint32_t corr, corr_id; /* "correlation" (Kineto), "correlation_id" (XSpace, the recorder) */
} keys;

/* The slice's correlation id (> 0), or 0 when it has none. Kineto writes ids from 1
 * (CUPTI's and roctracer's), and -1 or 0 for none, as HTA reads them. */
static int64_t corr_of(const eval *e, const keys *k, const sts_slice *s)
{
    if (s->args == STS_NONE) return 0;
    for (size_t i = s->args; i < e->nargs; i++) {
        const sts_arg *a = &e->args[i];
        if (a->key == k->corr || a->key == k->corr_id) {
            if (a->type == STS_ARG_INT) return a->v.i > 0 ? a->v.i : 0;
            if (a->type == STS_ARG_DOUBLE && a->v.d >= 1 && a->v.d < 9.2e18 && a->v.d == (double)(int64_t)a->v.d)
                return (int64_t)a->v.d;
            if (a->type == STS_ARG_STRING) {
                const char *t = sts_timeline_string(e->tl, a->v.str);
                char *end;
                long long x = strtoll(t, &end, 10);
                return *t && !*end && x > 0 ? (int64_t)x : 0;
            }
            return 0;
        }
        if (a->last) break;
    }
    return 0;
}

/* Host API calls that enqueue device work: an id of one that no op holds is a launch
 * whose work the trace lacks. */
static int is_launch_call(const char *n)
{
    static const char *const prefixes[] = {
        "cudaLaunch",     "cuLaunch",  "cudaGraphLaunch", "cuGraphLaunch",   "cudaMemcpy",         "cudaMemset",
        "cuMemcpy",       "cuMemset",  "hipLaunch",       "hipModuleLaunch", "hipExtModuleLaunch", "hipExtLaunch",
        "hipGraphLaunch", "hipMemcpy", "hipMemset",       "enqueue ",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(n, prefixes[i], strlen(prefixes[i])) == 0) return 1;
    return 0;
}

/* What the rules gave a name on a lane in a category: valid when lane1 is the lane + 1
 * and cat the category's string id. */
typedef struct rule_memo {
    uint32_t lane1, cat;
    int32_t rule;
    uint8_t category, direction;
} rule_memo;

/* A host slice holding a correlation id; its start is copied here so that linking an
 * op reads this array, about in order, not the slice (a cache miss each). */
typedef struct host_entry {
    int64_t ts;
    uint32_t slice;
    uint8_t call, used;
} host_entry;

typedef struct collect {
    const sts_timeline *tl;
    sts_devview *v;
    eval e;
    keys k;
    const sts_slice *s;
    const sts_lane *lanes;
    size_t ns, nl;
    unsigned char *is_dev; /* per lane */
    STS_VEC(host_entry) hosts;
    sts_u64map host_of; /* correlation id -> hosts entry, when the ids are sparse */
    uint32_t *dense;    /* or indexed by the id itself, when they are dense */
    uint64_t ndense;
    signed char *call_memo;
    uint32_t name_bound;
    uint32_t *dev_of_process; /* process -> device, STS_NONE */
    rule_memo *by_name;       /* per name id, when the rules read nothing but name, cat, lane, process */
} collect;

typedef struct id_at {
    uint64_t id;
    int64_t ts;
    uint32_t slice;
    uint8_t call; /* is_launch_call() of its name */
} id_at;

/* Inserts id -> hosts entry `h` unless the id is there: 0, 1 when it was, -1 when
 * memory is exhausted. */
static int host_put(collect *c, uint64_t id, uint32_t h)
{
    if (!c->dense) return sts_u64map_put_new(&c->host_of, id, h);
    if (c->dense[id] != UINT32_MAX) return 1;
    c->dense[id] = h;
    return 0;
}

static uint32_t host_get(const collect *c, uint64_t id)
{
    if (!c->dense) return sts_u64map_get(&c->host_of, id);
    return id < c->ndense ? c->dense[id] : UINT32_MAX;
}

/* Kineto numbers correlation ids from 1 up, so they are usually dense: then an array
 * indexed by id replaces the hash map, and ops, which come in about launch order,
 * read it about in order instead of at random. */
static int host_index(collect *c, const id_at *ids, size_t n, uint64_t max)
{
    if (n && max / 4 <= n) {
        c->ndense = max + 1;
        c->dense = malloc(c->ndense * sizeof *c->dense);
        if (!c->dense) return -1;
        memset(c->dense, 0xff, c->ndense * sizeof *c->dense);
    }
    for (size_t i = 0; i < n; i++) {
        int had = host_put(c, ids[i].id, (uint32_t)c->hosts.n);
        if (had < 0) return -1;
        if (had) {
            c->v->links.duplicate_ids++;
            continue;
        }
        host_entry *h = STS_VEC_PUSH(c->hosts);
        if (!h) return -1;
        h->slice = ids[i].slice;
        h->ts = ids[i].ts;
        h->call = ids[i].call;
    }
    return 0;
}

static int host_map(collect *c)
{
    STS_VEC(id_at) ids = { NULL, 0, 0 };
    uint64_t max = 0;
    int bad = 0;
    for (size_t l = 0; l < c->nl && !bad; l++) {
        if (c->is_dev[l]) continue;
        const sts_lane *ln = &c->lanes[l];
        for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++) {
            const sts_slice *s = &c->s[i];
            int64_t id = corr_of(&c->e, &c->k, s);
            if (!id) continue;
            id_at *a = STS_VEC_PUSH(ids);
            if (!a) {
                bad = 1;
                break;
            }
            a->id = (uint64_t)id;
            a->ts = s->ts;
            a->slice = i;
            if (c->call_memo[s->name] < 0)
                c->call_memo[s->name] = (signed char)is_launch_call(sts_timeline_string(c->tl, s->name));
            a->call = (uint8_t)c->call_memo[s->name];
            if (a->id > max) max = a->id;
        }
    }
    bad = bad || host_index(c, ids.v, ids.n, max) != 0;
    STS_VEC_RELEASE(ids);
    return bad ? -1 : 0;
}

/* ---- devices ---------------------------------------------------------------------- */

/* Devices in process display order, each a process with at least one op. */
static int find_devices(collect *c, const unsigned char *has_ops)
{
    size_t np;
    sts_timeline_processes(c->tl, &np);
    uint32_t *lane_order = malloc((c->nl ? c->nl : 1) * sizeof *lane_order);
    uint32_t *porder = malloc((np ? np : 1) * sizeof *porder);
    c->dev_of_process = malloc((np ? np : 1) * sizeof *c->dev_of_process);
    int bad = !lane_order || !porder || !c->dev_of_process;
    if (!bad) {
        sts_lane_display_order(c->tl, lane_order);
        bad = sts_process_display_order(c->tl, lane_order, porder, NULL) != STS_OK;
    }
    for (size_t i = 0; !bad && i < np; i++) {
        c->dev_of_process[i] = STS_NONE;
    }
    for (size_t i = 0; !bad && i < np; i++) {
        uint32_t p = porder[i];
        if (!has_ops[p]) continue;
        sts_devview_device *d = STS_VEC_PUSH(c->v->devices);
        if (!d) {
            bad = 1;
            break;
        }
        d->process = p;
        d->kineto = has_ops[p] == 1;
        c->dev_of_process[p] = (uint32_t)(c->v->devices.n - 1);
    }
    free(lane_order);
    free(porder);
    return bad ? -1 : 0;
}

/* ---- ops ---------------------------------------------------------------------------- */

static void note_hit(collect *c, long rule, uint8_t cat)
{
    c->v->hits.v[rule]++;
    if (cat < STS_DV_CATEGORIES) c->v->ops_by_cat[cat]++;
}

/* The category and direction rule `ri` (or none) gives slice s; DV_IGNORE to skip. */
static void category_of(const collect *c, long ri, const sts_slice *s, uint8_t *cat, uint8_t *dir)
{
    *dir = STS_DV_DIR_OTHER;
    if ((size_t)ri == c->v->rules->rules.n) {
        *cat = STS_DV_OTHER;
        return;
    }
    const dv_rule *r = &c->v->rules->rules.v[ri];
    *cat = r->category;
    if (r->category != STS_DV_MEMCPY) return;
    *dir = r->direction == DV_DIR_FROM_NAME ? (uint8_t)sts_dv_direction_from_name(sts_timeline_string(c->tl, s->name))
                                            : r->direction;
}

/* Whether a slice's rule follows from its name, category and lane alone: no condition
 * reads an arg the trace has (an arg condition on a key it never uses fails on every
 * slice), so one evaluation serves every op of a name on a lane. */
static int rules_by_name(const collect *c)
{
    for (size_t i = 0; i < c->v->rules->conds.n; i++)
        if (c->v->rules->conds.v[i].field == DV_F_ARG && c->e.arg_key[i] != STS_NONE) return 0;
    return 1;
}

/* The rule (index, or rules.n for none; -1 when memory is exhausted), category and
 * direction for slice s of lane. */
static long rule_of(collect *c, uint32_t lane, const sts_slice *s, uint8_t *cat, uint8_t *dir)
{
    rule_memo *m = c->by_name ? &c->by_name[s->name] : NULL;
    if (m && m->lane1 == lane + 1 && m->cat == s->cat) {
        *cat = m->category;
        *dir = m->direction;
        return m->rule;
    }
    long ri = first_rule(&c->e, s);
    if (ri < 0) return -1;
    category_of(c, ri, s, cat, dir);
    if (m) {
        m->lane1 = lane + 1;
        m->cat = s->cat;
        m->rule = (int32_t)ri;
        m->category = *cat;
        m->direction = *dir;
    }
    return ri;
}

static int lane_ops(collect *c, uint32_t lane, dv_ops *ops)
{
    const sts_lane *ln = &c->lanes[lane];
    if (STS_VEC_RESERVE(ops->v, ops->v.n + ln->slice_count + 1) != 0) return -1;
    for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++) {
        const sts_slice *s = &c->s[i];
        if (s->flags & STS_SLICE_INSTANT) continue;
        uint8_t cat, dir;
        long ri = rule_of(c, lane, s, &cat, &dir);
        if (ri < 0) return -1;
        note_hit(c, ri, cat);
        if (cat == DV_IGNORE) {
            c->v->links.ignored++;
            continue;
        }
        dv_op *o = &ops->v.v[ops->v.n++];
        o->by_flow = o->unused = 0;
        o->launch = 0;
        o->start = s->ts;
        o->end = sts_an_end(s);
        o->slice = i;
        o->name = s->name;
        o->lane = lane;
        o->host = STS_NONE;
        o->cat = cat;
        o->dir = dir;
        o->device = ln->process; /* a process until find_devices numbers the devices */
        int64_t id = corr_of(&c->e, &c->k, s);
        if (!id) {
            c->v->links.no_correlation++;
            continue;
        }
        uint32_t h = host_get(c, (uint64_t)id);
        if (h == UINT32_MAX) {
            if (!c->v->links.dangling) c->v->links.first_dangling_id = id;
            c->v->links.dangling++;
            continue;
        }
        c->hosts.v[h].used = 1;
        o->host = c->hosts.v[h].slice;
        o->launch = c->hosts.v[h].ts;
    }
    return 0;
}

/* ---- flows ---------------------------------------------------------------------------- */

/* The slice of `lane` that a flow event at `ts` binds to: the last one that starts at
 * or before ts and has not ended (a zero-length one at ts counts), looking back at most
 * 64 slices from the last start at or before ts. STS_NONE when none. */
static uint32_t slice_at(const collect *c, uint32_t lane, int64_t ts)
{
    const sts_lane *ln = &c->lanes[lane];
    uint32_t lo = ln->first_slice, hi = ln->first_slice + ln->slice_count;
    STS_BISECT(uint32_t, lo, hi, mid, c->s[mid].ts <= ts);
    for (uint32_t k = 0; k < 64 && lo > ln->first_slice; k++) {
        const sts_slice *s = &c->s[--lo];
        int64_t e = sts_an_end(s);
        if (e > ts || s->ts == ts) return lo;
    }
    return STS_NONE;
}

/* The unlinked op of ops[lo, hi) (one lane's, in start order) that starts at ts, or
 * NULL. */
static dv_op *op_at(dv_ops *ops, size_t lo, size_t hi, int64_t ts)
{
    size_t end = hi;
    STS_BISECT(size_t, lo, hi, mid, ops->v.v[mid].start < ts);
    for (; lo < end && ops->v.v[lo].start == ts; lo++)
        if (ops->v.v[lo].host == STS_NONE) return &ops->v.v[lo];
    return NULL;
}

/* Links ops with no correlation id through kept flows: a flow starting on a host lane
 * and ending (or stepping) on a device lane where an unlinked op starts. */
static int link_flows(collect *c, dv_ops *ops)
{
    size_t nf;
    const sts_flow *f = sts_timeline_flows(c->tl, &nf);
    if (!nf || !c->v->links.no_correlation) return 0;
    sts_u64map start_of = STS_U64MAP_INIT; /* flow id -> its start on a host lane */
    int bad = 0;
    for (size_t i = 0; i < nf && !bad; i++)
        if (f[i].phase == 's' && !c->is_dev[f[i].lane] &&
            sts_u64map_get(&start_of, (uint64_t)f[i].id + 1) == UINT32_MAX)
            bad = sts_u64map_put(&start_of, (uint64_t)f[i].id + 1, (uint32_t)i) != 0;
    /* Ops were collected lane by lane in slice order, which is start order per lane. */
    size_t *lane_lo = bad ? NULL : malloc((c->nl + 1) * sizeof *lane_lo);
    size_t *lane_hi = bad ? NULL : calloc(c->nl + 1, sizeof *lane_hi);
    bad = bad || !lane_lo || !lane_hi;
    for (size_t l = 0; !bad && l <= c->nl; l++)
        lane_lo[l] = 0;
    for (size_t i = ops->v.n; !bad && i-- > 0;)
        lane_lo[ops->v.v[i].lane] = i;
    for (size_t i = 0; !bad && i < ops->v.n; i++)
        lane_hi[ops->v.v[i].lane] = i + 1;
    for (size_t i = 0; i < nf && !bad; i++) {
        if ((f[i].phase != 'f' && f[i].phase != 't') || !c->is_dev[f[i].lane]) continue;
        uint32_t si = sts_u64map_get(&start_of, (uint64_t)f[i].id + 1);
        if (si == UINT32_MAX) continue;
        size_t lo = lane_lo[f[i].lane], hi = lane_hi[f[i].lane];
        if (hi <= lo) continue;
        dv_op *o = op_at(ops, lo, hi, f[i].ts);
        if (!o || corr_of(&c->e, &c->k, &c->s[o->slice])) continue;
        uint32_t h = slice_at(c, f[si].lane, f[si].ts);
        if (h == STS_NONE) continue;
        o->host = h;
        o->launch = c->s[h].ts;
        o->by_flow = 1;
        c->v->links.by_flow++;
        c->v->links.no_correlation--;
    }
    free(lane_lo);
    free(lane_hi);
    sts_u64map_release(&start_of);
    return bad ? -1 : 0;
}

/* ---- putting it together ---------------------------------------------------------- */

static int op_before(const dv_op *x, const dv_op *y)
{
    if (x->device != y->device) return x->device < y->device;
    if (x->start != y->start) return x->start < y->start;
    return x->slice < y->slice;
}

/* Sorts ops by device, start, slice (a total order). They arrive as one sorted run per
 * lane (slice order is start order on a lane), so a merge of the runs found costs
 * n log(runs), not the n log n of a sort that cannot see them. -1 when memory is
 * exhausted. */
static int sort_ops(dv_op *o, size_t n)
{
    if (n < 2) return 0;
    size_t nr = 1;
    for (size_t i = 1; i < n; i++)
        nr += op_before(&o[i], &o[i - 1]);
    if (nr == 1) return 0;
    size_t *run = malloc((nr + 1) * sizeof *run);
    dv_op *tmp = malloc(n * sizeof *tmp);
    if (!run || !tmp) {
        free(run);
        free(tmp);
        return -1;
    }
    size_t k = 0;
    run[k++] = 0;
    for (size_t i = 1; i < n; i++)
        if (op_before(&o[i], &o[i - 1])) run[k++] = i;
    run[k] = n;
    dv_op *src = o, *dst = tmp;
    while (nr > 1) {
        size_t m = 0;
        for (size_t r = 0; r < nr; r += 2) {
            size_t a = run[r], mid = run[r + 1 < nr ? r + 1 : nr], b = run[r + 2 < nr ? r + 2 : nr];
            size_t i = a, j = mid, d = a;
            while (i < mid && j < b)
                dst[d++] = op_before(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[d++] = src[i++];
            while (j < b)
                dst[d++] = src[j++];
            run[m++] = a;
        }
        run[m] = n;
        nr = m;
        dv_op *t = src;
        src = dst;
        dst = t;
    }
    if (src != o) memcpy(o, src, n * sizeof *o);
    free(run);
    free(tmp);
    return 0;
}

static int fill_outputs(collect *c, dv_ops *ops)
{
    sts_devview *v = c->v;
    for (size_t i = 0; i < ops->v.n; i++)
        ops->v.v[i].device = c->dev_of_process[ops->v.v[i].device];
    if (sort_ops(ops->v.v, ops->v.n) != 0) return -1;
    if (STS_VEC_RESERVE(v->launches, ops->v.n ? ops->v.n : 1) != 0) return -1;
    uint32_t last_lane = STS_NONE, last_dev = STS_NONE;
    unsigned char *lane_seen = calloc(c->nl ? c->nl : 1, 1);
    if (!lane_seen) return -1;
    for (size_t i = 0; i < ops->v.n; i++) {
        const dv_op *o = &ops->v.v[i];
        sts_devview_device *d = &v->devices.v[o->device];
        if (o->device != last_dev) {
            d->start_ns = o->start;
            d->end_ns = o->end;
            last_dev = o->device;
        }
        if (o->end > d->end_ns) d->end_ns = o->end;
        d->ops++;
        if (!lane_seen[o->lane]) {
            lane_seen[o->lane] = 1;
            d->lanes++;
        }
        last_lane = o->lane;
        sts_devview_launch *L = &v->launches.v[v->launches.n++];
        memset(L, 0, sizeof *L);
        L->device_slice = o->slice;
        L->host_slice = o->host;
        L->device = o->device;
        L->category = o->cat;
        L->direction = o->dir;
        L->by_flow = o->by_flow;
        if (o->host != STS_NONE) {
            d->matched++;
            v->links.matched++;
            L->delay_ns = o->start - o->launch;
        }
    }
    (void)last_lane;
    free(lane_seen);
    v->links.ops = ops->v.n;
    for (size_t i = 0; i < c->hosts.n; i++) {
        const host_entry *h = &c->hosts.v[i];
        v->links.launches += h->used;
        v->links.launch_calls += h->call;
        if (h->call && !h->used) {
            uint32_t *p = STS_VEC_PUSH(v->orphans);
            if (!p) return -1;
            *p = h->slice;
        }
    }
    v->links.orphan_calls = v->orphans.n;
    return 0;
}

static int collect_ops(collect *c, dv_ops *ops)
{
    for (size_t l = 0; l < c->nl; l++)
        if (c->is_dev[l] && lane_ops(c, (uint32_t)l, ops) != 0) return -1;
    if (sts_timeline_flows(c->tl, NULL) && link_flows(c, ops) != 0) return -1;
    size_t np;
    sts_timeline_processes(c->tl, &np);
    unsigned char *has_ops = calloc(np ? np : 1, 1);
    if (!has_ops) return -1;
    /* 1: every lane with ops is a Kineto stream thread; 2: some is not. Ops come lane by
     * lane, so the lane's answer is worked out once per run of its ops. */
    uint32_t last = STS_NONE;
    int kineto = 0;
    for (size_t i = 0; i < ops->v.n; i++) {
        if (ops->v.v[i].lane != last) {
            last = ops->v.v[i].lane;
            const sts_lane *ln = &c->lanes[last];
            const char *pname = sts_timeline_string(c->tl, sts_timeline_processes(c->tl, NULL)[ln->process].name);
            kineto = ln->kind != STS_LANE_DEVICE && strncmp(pname, "/device:", 8) != 0;
        }
        if (!has_ops[ops->v.v[i].device] || !kineto) has_ops[ops->v.v[i].device] = (unsigned char)(kineto ? 1 : 2);
    }
    int bad = find_devices(c, has_ops);
    free(has_ops);
    return bad ? -1 : fill_outputs(c, ops);
}

int sts_dv_collect(const sts_timeline *tl, sts_devview *v, dv_ops *ops)
{
    collect c;
    memset(&c, 0, sizeof c);
    c.tl = tl;
    c.v = v;
    c.s = sts_timeline_slices(tl, &c.ns);
    c.lanes = sts_timeline_lanes(tl, &c.nl);
    c.k.corr = sts_timeline_find_string(tl, "correlation");
    c.k.corr_id = sts_timeline_find_string(tl, "correlation_id");
    v->links.first_dangling_id = -1;
    c.name_bound = v->name_bound = sts_an_name_bound(tl);
    c.is_dev = calloc(c.nl ? c.nl : 1, 1);
    c.call_memo = malloc(c.name_bound ? c.name_bound : 1);
    int bad = !c.is_dev || !c.call_memo || eval_open(&c.e, tl, v->rules) != 0 ||
              STS_VEC_RESERVE(v->hits, v->rules->rules.n + 1) != 0;
    if (!bad) {
        memset(c.call_memo, -1, c.name_bound);
        memset(v->hits.v, 0, (v->rules->rules.n + 1) * sizeof *v->hits.v);
        v->hits.n = v->rules->rules.n + 1;
        for (size_t l = 0; l < c.nl; l++)
            c.is_dev[l] = (unsigned char)sts_lane_is_device(tl, (uint32_t)l);
        if (rules_by_name(&c) && !(c.by_name = calloc(c.name_bound ? c.name_bound : 1, sizeof *c.by_name))) bad = 1;
        bad = bad || host_map(&c) != 0 || collect_ops(&c, ops) != 0;
    }
    eval_close(&c.e);
    free(c.is_dev);
    free(c.call_memo);
    free(c.dev_of_process);
    free(c.by_name);
    STS_VEC_RELEASE(c.hosts);
    sts_u64map_release(&c.host_of);
    free(c.dense);
    return bad ? -1 : 0;
}
