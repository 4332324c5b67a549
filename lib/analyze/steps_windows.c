/* Each step's window on the other lanes: what every other lane (device streams, worker
 * threads) did while the step ran.
 *
 * Each lane is cut into attribution segments in one sweep: at every busy instant the
 * slice that covers it and started last (a stack of open slices in containment order;
 * entries that ended under a crossing one are dropped when they surface). A segment
 * overlaps the windows between the first whose running maximum end passes its start
 * and the first that starts after its end, both found by binary search, so the cost is
 * O(slices log steps) plus the output. */
#include <stdlib.h>
#include <string.h>

#include "analyze/steps_impl.h"
#include "base/mem.h"
#include "base/search.h"

typedef struct segment {
    int64_t t0, t1;
    uint32_t name;
    uint32_t unused;
} segment;

typedef struct acc {
    uint32_t window, name;
    int64_t ns;
} acc;

typedef struct record {
    uint32_t step, rank; /* rank: the lane's place in display order */
    sts_step_window w;
} record;

typedef struct windows_ctx {
    const sts_timeline *tl;
    sts_steps *s;
    size_t nsteps;
    int64_t *w0, *w1, *reach; /* per step: window, running max of w1 */
    uint32_t *rank;           /* lane -> display rank */
    sts_an_view v;
    uint32_t *stack;
    size_t stack_cap;
    STS_VEC(segment) segs;
    STS_VEC(acc) accs;
    sts_u64map acc_of; /* (window, name) -> acc, for the current lane */
    int64_t *busy;     /* per window, for the current lane */
    STS_VEC(uint32_t) touched;
    STS_VEC(record) records;
    STS_VEC(int64_t) values;
    size_t keep_names;
} windows_ctx;

static int emit(windows_ctx *c, int64_t t0, int64_t t1, uint32_t name)
{
    if (t1 <= t0) return 0;
    segment *g = STS_VEC_PUSH(c->segs);
    if (!g) return -1;
    g->t0 = t0;
    g->t1 = t1;
    g->name = name;
    return 0;
}

/* The lane's attribution segments, in time order. */
static int attribute(windows_ctx *c)
{
    const sts_an_iv *iv = c->v.iv;
    size_t n = c->v.n, depth = 0;
    if (sts_grow((void **)&c->stack, &c->stack_cap, n ? n : 1, sizeof *c->stack) != 0) return -1;
    c->segs.n = 0;
    int64_t cur = INT64_MIN;
    for (size_t k = 0; k <= n; k++) {
        int64_t t = k < n ? iv[k].ts : INT64_MAX;
        while (depth) {
            const sts_an_iv *top = &iv[c->stack[depth - 1]];
            if (top->end <= cur) {
                depth--;
                continue;
            }
            if (cur >= t) break;
            int64_t e = top->end < t ? top->end : t;
            if (emit(c, cur, e, c->v.slices[top->idx].name) != 0) return -1;
            cur = e;
        }
        cur = t;
        if (k < n) c->stack[depth++] = (uint32_t)k;
    }
    return 0;
}

static size_t first_reach_after(const windows_ctx *c, int64_t t)
{
    return sts_first_above_i64(c->reach, c->nsteps, t);
}

static size_t first_start_at(const windows_ctx *c, int64_t t)
{
    return sts_first_at_least_i64(c->w0, c->nsteps, t);
}

static int credit(windows_ctx *c, uint32_t k, uint32_t name, int64_t ns)
{
    if (c->busy[k] == 0) {
        uint32_t *t = STS_VEC_PUSH(c->touched);
        if (!t) return -1;
        *t = k;
    }
    c->busy[k] += ns;
    uint64_t key = ((uint64_t)k << 32 | name) + 1;
    uint32_t at = sts_u64map_get(&c->acc_of, key);
    if (at == UINT32_MAX) {
        acc *a = STS_VEC_PUSH(c->accs);
        if (!a || sts_u64map_put(&c->acc_of, key, (uint32_t)(c->accs.n - 1)) != 0) return -1;
        a->window = k;
        a->name = name;
        at = (uint32_t)(c->accs.n - 1);
    }
    c->accs.v[at].ns += ns;
    return 0;
}

static int spread(windows_ctx *c)
{
    for (size_t i = 0; i < c->segs.n; i++) {
        const segment *g = &c->segs.v[i];
        size_t hi = first_start_at(c, g->t1);
        for (size_t k = first_reach_after(c, g->t0); k < hi; k++) {
            int64_t a = g->t0 > c->w0[k] ? g->t0 : c->w0[k], b = g->t1 < c->w1[k] ? g->t1 : c->w1[k];
            if (b > a && credit(c, (uint32_t)k, g->name, b - a) != 0) return -1;
        }
    }
    return 0;
}

static int by_window_then_time(const void *a, const void *b)
{
    const acc *x = a, *y = b;
    if (x->window != y->window) return x->window < y->window ? -1 : 1;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Statistics of one lane's busy time over every step (idle steps count 0). */
static int lane_stats(windows_ctx *c, uint32_t lane)
{
    size_t m = c->touched.n, zeros = c->nsteps - m;
    c->values.n = 0;
    if (STS_VEC_RESERVE(c->values, m ? m : 1) != 0) return -1;
    sts_window_lane_stats *x = STS_VEC_PUSH(c->s->window_lanes);
    if (!x) return -1;
    x->lane = lane;
    x->steps = (uint32_t)m;
    for (size_t i = 0; i < m; i++) {
        int64_t b = c->busy[c->touched.v[i]];
        c->values.v[c->values.n++] = b;
        x->total_ns += b;
    }
    qsort(c->values.v, m, sizeof *c->values.v, sts_an_cmp_i64);
    const int64_t *v = c->values.v;
    size_t n = c->nsteps;
#define AT(i) ((i) < zeros ? 0 : v[(i)-zeros])
    x->min_ns = AT(0);
    x->max_ns = AT(n - 1);
    x->median_ns = n % 2 ? AT(n / 2) : AT(n / 2 - 1) + (AT(n / 2) - AT(n / 2 - 1)) / 2;
#undef AT
    return 0;
}

/* Turns the current lane's accumulators into window records and names. */
static int flush_lane(windows_ctx *c, uint32_t lane)
{
    if (c->touched.n == 0) return 0;
    qsort(c->touched.v, c->touched.n, sizeof *c->touched.v, cmp_u32);
    qsort(c->accs.v, c->accs.n, sizeof *c->accs.v, by_window_then_time);
    if (lane_stats(c, lane) != 0) return -1;
    size_t a = 0;
    for (size_t i = 0; i < c->touched.n; i++) {
        uint32_t k = c->touched.v[i];
        record *r = STS_VEC_PUSH(c->records);
        if (!r) return -1;
        r->step = k;
        r->rank = c->rank[lane];
        r->w.lane = lane;
        r->w.busy_ns = c->busy[k];
        r->w.first_name = (uint32_t)c->s->window_names.n;
        for (size_t kept = 0; a < c->accs.n && c->accs.v[a].window == k; a++, kept++) {
            if (c->keep_names && kept >= c->keep_names) continue;
            sts_window_name *nm = STS_VEC_PUSH(c->s->window_names);
            if (!nm) return -1;
            nm->name = c->accs.v[a].name;
            nm->ns = c->accs.v[a].ns;
        }
        r->w.name_count = (uint32_t)(c->s->window_names.n - r->w.first_name);
        c->busy[k] = 0;
    }
    c->touched.n = 0;
    c->accs.n = 0;
    sts_u64map_release(&c->acc_of);
    return 0;
}

static int by_step_then_rank(const void *a, const void *b)
{
    const record *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int place_records(windows_ctx *c)
{
    if (c->records.n > 1) qsort(c->records.v, c->records.n, sizeof *c->records.v, by_step_then_rank);
    if (STS_VEC_RESERVE(c->s->windows, c->records.n ? c->records.n : 1) != 0) return -1;
    for (size_t k = 0; k < c->nsteps; k++) {
        c->s->steps.v[k].first_window = 0;
        c->s->steps.v[k].window_count = 0;
    }
    for (size_t i = 0; i < c->records.n; i++) {
        sts_step *st = &c->s->steps.v[c->records.v[i].step];
        if (st->window_count == 0) st->first_window = (uint32_t)i;
        st->window_count++;
        c->s->windows.v[c->s->windows.n++] = c->records.v[i].w;
    }
    return 0;
}

static int by_rank(const void *a, const void *b, void *ctx)
{
    const uint32_t *rank = ctx;
    uint32_t x = rank[((const sts_window_lane_stats *)a)->lane], y = rank[((const sts_window_lane_stats *)b)->lane];
    return (x > y) - (x < y);
}

static int setup(windows_ctx *c, size_t nl)
{
    size_t n = c->nsteps;
    c->w0 = malloc(n * sizeof *c->w0);
    c->w1 = malloc(n * sizeof *c->w1);
    c->reach = malloc(n * sizeof *c->reach);
    c->busy = calloc(n, sizeof *c->busy);
    c->rank = malloc((nl ? nl : 1) * sizeof *c->rank);
    uint32_t *order = malloc((nl ? nl : 1) * sizeof *order);
    if (!c->w0 || !c->w1 || !c->reach || !c->busy || !c->rank || !order) {
        free(order);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        const sts_step *st = &c->s->steps.v[k];
        c->w0[k] = st->ts;
        c->w1[k] = st->ts + st->dur;
        c->reach[k] = k && c->reach[k - 1] > c->w1[k] ? c->reach[k - 1] : c->w1[k];
    }
    sts_lane_display_order(c->tl, order);
    for (size_t i = 0; i < nl; i++)
        c->rank[order[i]] = (uint32_t)i;
    free(order);
    return 0;
}

static void cleanup(windows_ctx *c)
{
    free(c->w0);
    free(c->w1);
    free(c->reach);
    free(c->busy);
    free(c->rank);
    free(c->stack);
    sts_an_view_free(&c->v);
    STS_VEC_RELEASE(c->segs);
    STS_VEC_RELEASE(c->accs);
    sts_u64map_release(&c->acc_of);
    STS_VEC_RELEASE(c->touched);
    STS_VEC_RELEASE(c->records);
    STS_VEC_RELEASE(c->values);
}

static int one_lane(windows_ctx *c, uint32_t lane)
{
    if (sts_an_view_load(&c->v, c->tl, lane, NULL) != 0 || attribute(c) != 0 || spread(c) != 0) return -1;
    return flush_lane(c, lane);
}

sts_status sts_steps_windows_fill(const sts_timeline *tl, sts_steps *s, const sts_step_options *o, sts_error *err)
{
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    const uint32_t *lanes = o->window_lanes;
    size_t n = lanes ? o->nwindow_lanes : nl;
    for (size_t k = 0; lanes && k < n; k++)
        if (lanes[k] >= nl)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "window lane %u out of range (%zu lanes)", lanes[k], nl);
    if (n == 0) return STS_OK; /* no lanes asked for: every step's window list stays empty */
    windows_ctx c = { 0 };
    c.tl = tl;
    c.s = s;
    c.nsteps = s->steps.n;
    c.keep_names = o->window_names;
    uint32_t own = s->steps.v[0].lane;
    unsigned char *done = calloc(nl ? nl : 1, 1);
    int bad = !done || setup(&c, nl) != 0;
    for (size_t k = 0; k < n && !bad; k++) {
        uint32_t l = lanes ? lanes[k] : (uint32_t)k;
        if (l == own || done[l]) continue;
        done[l] = 1;
        if (!lanes && sts_an_lane_is_bookkeeping(tl, l)) { /* asked for by --lanes: kept */
            s->bookkeeping_lanes++;
            continue;
        }
        bad = one_lane(&c, l) != 0;
    }
    if (!bad) bad = place_records(&c) != 0;
    if (!bad && s->window_lanes.n > 1)
        qsort_r(s->window_lanes.v, s->window_lanes.n, sizeof *s->window_lanes.v, by_rank, c.rank);
    free(done);
    cleanup(&c);
    return bad ? sts_an_nomem(err, "measuring step windows") : STS_OK;
}
