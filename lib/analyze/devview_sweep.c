/* The device view's windows: one sweep over each device's ops cuts its time into
 * segments in which nothing changes (the categories running, the queue, the next op to
 * start), and each segment is credited to the windows it overlaps.
 *
 * The events of a device are its ops' starts and ends and, for each linked op, its
 * launch (the queue grows) and its start (the queue shrinks). Between two consecutive
 * event times every count is constant, so each segment's time goes to exactly one of:
 * a category's exclusive time (the first running in category order) or one idle cause,
 * and the invariants (exclusive times plus idle equal the window; unions never exceed
 * it) hold by construction, in integers. Windows are found for a segment by binary
 * search (as the steps' windows on other lanes are), so a device costs
 * O(ops log ops + segments log steps) plus the windows it touches. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/devview_impl.h"

enum { EV_END, EV_QIN }; /* what the sorted events are; starts are read from the ops */

typedef struct ev {
    int64_t t;
    uint8_t kind, cat, dir, unused;
} ev;

/* The next op start at or after a time, and whether every op starting then is linked. */
typedef struct start_at {
    int64_t t;
    int all_linked;
} start_at;

typedef STS_VEC(ev) ev_vec;

typedef struct sweep {
    sts_devview *v;
    const sts_steps *steps;
    size_t nsteps, ndev;
    int64_t *w0, *w1, *reach; /* per step */
    ev_vec later;             /* a device's op ends and launches, sorted by time */
    ev_vec room;              /* the radix sort's room */
    STS_VEC(start_at) starts;
    STS_VEC(int64_t) delays;   /* a device's delays, grouped by window */
    size_t *per_window;        /* nsteps + 2 counters: where each window's delays start */
    size_t reach_at, start_at; /* cursors into the steps: segments come in time order */
} sweep;

typedef struct state {
    int64_t cat[STS_DV_CATEGORIES];
    int64_t dir[STS_DV_DIRECTIONS];
    int64_t pending;
    int idle; /* 0 kernel_wait, 1 host_wait, 2 other */
} state;

/* ---- sorting -------------------------------------------------------------------------- */

/* Sorts n records of 16 bytes by the signed 64-bit keys at the offsets keys[0..nk)
 * (the first the most significant), stably: a least significant digit radix sort, one
 * pass per key byte that is not the same in every record. A device's timestamps share
 * their high bytes and its windows are few, so most of a key's 8 passes are skipped,
 * where qsort pays log n calls through a pointer per record. `room` holds n records
 * (the caller's, reused across devices, so its pages are touched once). -1 when memory
 * is exhausted. */
typedef struct rec16 {
    unsigned char b[16];
} rec16;

static uint64_t key_at(const rec16 *r, size_t off)
{
    int64_t k;
    memcpy(&k, r->b + off, sizeof k);
    return (uint64_t)k ^ ((uint64_t)1 << 63); /* signed order as unsigned */
}

static int radix16(void *base, size_t n, const size_t *keys, size_t nk, void *room)
{
    if (n < 2) return 0;
    rec16 *src = base, *dst = room;
    size_t(*count)[256] = calloc(8, sizeof *count);
    if (!count) return -1;
    for (size_t q = nk; q-- > 0;) {
        memset(count, 0, 8 * sizeof *count);
        for (size_t i = 0; i < n; i++) {
            uint64_t k = key_at(&src[i], keys[q]);
            for (int d = 0; d < 8; d++)
                count[d][(k >> (8 * d)) & 0xff]++;
        }
        for (int d = 0; d < 8; d++) {
            size_t at = 0, one = 0;
            for (int b = 0; b < 256; b++) {
                size_t c = count[d][b];
                one |= c == n;
                count[d][b] = at;
                at += c;
            }
            if (one) continue;
            for (size_t i = 0; i < n; i++)
                dst[count[d][(key_at(&src[i], keys[q]) >> (8 * d)) & 0xff]++] = src[i];
            rec16 *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != base) memcpy(base, src, n * sizeof *src);
    free(count);
    return 0;
}

_Static_assert(sizeof(ev) == sizeof(rec16) && offsetof(ev, t) == 0, "ev is sorted as a 16-byte record");

/* Step k's window on device d; k == SPAN: the device's span window. */
#define SPAN SIZE_MAX
static sts_devview_window *window(const sweep *w, size_t k, uint32_t d)
{
    return k == SPAN ? &w->v->spans.v[d] : &w->v->windows.v[k * w->ndev + d];
}

/* What a segment's state credits, worked out once per segment (it is credited to the
 * span and to each step window it overlaps): the categories running as bits, the first
 * of them (exclusive; -1 when idle), the memcpy directions as bits. */
typedef struct credit_of {
    unsigned unions, dirs;
    int excl, overlap, exposed, idle;
    int64_t pending;
} credit_of;

static void credit_from(credit_of *c, const state *st)
{
    c->unions = c->dirs = 0;
    c->excl = -1;
    for (int k = STS_DV_CATEGORIES; k-- > 0;)
        if (st->cat[k]) c->unions |= 1u << k, c->excl = k;
    for (int d = 0; d < STS_DV_DIRECTIONS; d++)
        if (st->dir[d]) c->dirs |= 1u << d;
    c->overlap = st->cat[STS_DV_COMPUTE] && st->cat[STS_DV_COMMUNICATION];
    c->exposed = !st->cat[STS_DV_COMPUTE] && st->cat[STS_DV_COMMUNICATION];
    c->idle = st->idle;
    c->pending = st->pending;
}

static void credit(sts_devview_window *x, int64_t len, const credit_of *c)
{
    for (unsigned m = c->unions; m; m &= m - 1)
        x->union_ns[__builtin_ctz(m)] += len;
    for (unsigned m = c->dirs; m; m &= m - 1)
        x->memcpy_ns[__builtin_ctz(m)] += len;
    if (c->excl >= 0) {
        x->exclusive_ns[c->excl] += len;
        x->busy_ns += len;
        if (c->overlap) x->overlap_ns += len;
        if (c->exposed) x->exposed_ns += len;
    } else {
        x->idle_ns += len;
        if (c->idle == 0)
            x->kernel_wait_ns += len;
        else if (c->idle == 1)
            x->host_wait_ns += len;
        else
            x->other_idle_ns += len;
    }
    x->queue_mean += (double)c->pending * (double)len;
    if (c->pending > x->queue_max) x->queue_max = c->pending;
}

/* The first step whose reach (the latest end of the steps up to it) is after t, and the
 * first that starts at or after t. A device's segments and ops come in time order, so
 * each is a cursor that only moves forward (reset per device), where a binary search
 * per segment cost log steps. */
static size_t first_reach_after(sweep *w, int64_t t)
{
    while (w->reach_at < w->nsteps && w->reach[w->reach_at] <= t)
        w->reach_at++;
    return w->reach_at;
}

static size_t first_start_at(sweep *w, int64_t t)
{
    while (w->start_at < w->nsteps && w->w0[w->start_at] < t)
        w->start_at++;
    return w->start_at;
}

static void segment(sweep *w, uint32_t d, int64_t a, int64_t b, const state *st)
{
    credit_of c;
    credit_from(&c, st);
    sts_devview_window *x = window(w, SPAN, d);
    int64_t lo0 = a > x->start_ns ? a : x->start_ns;
    int64_t hi0 = b < x->start_ns + x->window_ns ? b : x->start_ns + x->window_ns;
    if (hi0 > lo0) credit(x, hi0 - lo0, &c);
    if (!w->nsteps) return;
    size_t end = first_start_at(w, b);
    for (size_t k = first_reach_after(w, a); k < end; k++) {
        int64_t lo = a > w->w0[k] ? a : w->w0[k], hi = b < w->w1[k] ? b : w->w1[k];
        if (hi > lo) credit(window(w, k, d), hi - lo, &c);
    }
}

/* Appends to a vector with room reserved. */
static void push_ev(ev_vec *to, int64_t t, int kind, uint8_t cat, uint8_t dir)
{
    ev *e = &to->v[to->n++];
    e->t = t;
    e->kind = (uint8_t)kind;
    e->cat = cat;
    e->dir = dir;
    e->unused = 0;
}

/* The device's op ends and launches, by time, and its distinct start times with whether
 * all their ops are linked. o[0, n) are the device's ops, by start: their starts (and
 * the queue shrinking as each linked op starts) are read from them in the sweep. */
static int device_events(sweep *w, const dv_op *o, size_t n)
{
    w->later.n = 0;
    w->starts.n = 0;
    size_t room = n ? 2 * n : 1;
    if (STS_VEC_RESERVE(w->later, room) != 0 || STS_VEC_RESERVE(w->room, room) != 0 ||
        STS_VEC_RESERVE(w->starts, n ? n : 1) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int linked = o[i].host != STS_NONE;
        push_ev(&w->later, o[i].end, EV_END, o[i].cat, o[i].dir);
        if (linked && o[i].launch < o[i].start) push_ev(&w->later, o[i].launch, EV_QIN, 0, 0);
        if (w->starts.n && w->starts.v[w->starts.n - 1].t == o[i].start) {
            w->starts.v[w->starts.n - 1].all_linked &= linked;
            continue;
        }
        start_at *s = &w->starts.v[w->starts.n++];
        s->t = o[i].start;
        s->all_linked = linked;
    }
    /* The order of events at one time does not matter: a segment starts after all of them. */
    static const size_t by_t[] = { 0 };
    return radix16(w->later.v, w->later.n, by_t, 1, w->room.v);
}

static void apply(state *st, const ev *e)
{
    if (e->kind == EV_QIN) {
        st->pending++;
        return;
    }
    st->cat[e->cat]--; /* EV_END */
    if (e->cat == STS_DV_MEMCPY) st->dir[e->dir]--;
}

/* An op starting: its category runs, and a linked op launched before leaves the queue. */
static void apply_start(state *st, const dv_op *o)
{
    st->cat[o->cat]++;
    if (o->cat == STS_DV_MEMCPY) st->dir[o->dir]++;
    if (o->host != STS_NONE && o->launch < o->start) st->pending--;
}

/* Every segment from before the first event to after the last: the windows may reach
 * past the device's ops on both sides. The events are the ops' starts (o[0, n), by
 * start) merged with the sorted ends and launches as the sweep goes. */
static void sweep_device(sweep *w, uint32_t d, const dv_op *o, size_t n)
{
    state st;
    memset(&st, 0, sizeof st);
    w->reach_at = w->start_at = 0;
    const ev *L = w->later.v;
    size_t nl = w->later.n;
    size_t next = 0; /* into w->starts: the first start at or after the segment's end */
    int64_t t = INT64_MIN;
    for (size_t i = 0, j = 0;;) {
        int64_t b = i < n ? o[i].start : INT64_MAX;
        if (j < nl && L[j].t < b) b = L[j].t;
        if (b > t) {
            while (next < w->starts.n && w->starts.v[next].t < b)
                next++;
            if (st.pending > 0)
                st.idle = 0;
            else if (next < w->starts.n && w->starts.v[next].all_linked)
                st.idle = 1;
            else
                st.idle = 2;
            segment(w, d, t, b, &st);
        }
        if (i == n && j == nl) break;
        t = b;
        while (i < n && o[i].start == t)
            apply_start(&st, &o[i++]);
        while (j < nl && L[j].t == t)
            apply(&st, &L[j++]);
    }
}

/* ---- launches per window -------------------------------------------------------------- */

/* Insertion sort, for the few values of most windows. */
static void sort_small(int64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int64_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* The median, p90 and max of a window's m > 0 delays, as the sorted values give them
 * (v[(m-1)/2] and v[m/2] for the median, v[ceil(0.9m)-1], v[m-1]), by selection: the
 * ranks, not the order, are what is read. v is reordered. */
static void delay_of(sts_devview_window *x, int64_t *v, size_t m)
{
    size_t k1 = (m - 1) / 2, k2 = m / 2, k9 = (9 * m + 9) / 10 - 1;
    if (m <= 32) {
        sort_small(v, m);
    } else {
        sts_an_select_kth(v, m, k1); /* v[0, k1] <= v[k1] <= v(k1, m) */
        if (k9 > k1) sts_an_select_kth(v + k1 + 1, m - k1 - 1, k9 - k1 - 1);
        int64_t lo = v[k1 + 1], hi = v[k1 + 1];
        for (size_t i = k1 + 1; i < m; i++) {
            if (v[i] < lo) lo = v[i];
            if (v[i] > hi) hi = v[i];
        }
        v[k2] = k2 == k1 ? v[k1] : lo; /* the least above k1 is the next rank */
        v[m - 1] = hi;
    }
    int64_t a = v[k1], b = v[k2];
    x->known |= STS_DEVVIEW_KNOWN_DELAY;
    x->delay_max_ns = v[m - 1];
    x->delay_p90_ns = v[k9];
    x->delay_median_ns = a + (int64_t)(((uint64_t)b - (uint64_t)a) / 2);
}

/* The steps whose windows hold a start time t: k in [*lo, *hi) with w1[k] > t. */
static void steps_at(sweep *w, int64_t t, size_t *lo, size_t *hi)
{
    size_t k = first_reach_after(w, t);
    *lo = k;
    while (k < w->nsteps && w->w0[k] <= t)
        k++;
    *hi = k;
}

/* Each window's launch counts and delay statistics. Two passes over the device's ops
 * (by start): the first counts each window's linked ops (bucket 0 the span, b > 0 step
 * b - 1), the second puts their delays at their bucket's place, so that each window's
 * delays lie together for the selection. */
static int device_launches(sweep *w, uint32_t d, const dv_op *o, size_t n)
{
    size_t nb = w->nsteps + 1, *at = w->per_window, lo, hi;
    memset(at, 0, (nb + 1) * sizeof *at);
    sts_devview_window *span = window(w, SPAN, d);
    w->reach_at = w->start_at = 0;
    for (size_t i = 0; i < n; i++) {
        int linked = o[i].host != STS_NONE;
        steps_at(w, o[i].start, &lo, &hi);
        span->matched += (uint64_t)linked;
        span->unmatched += (uint64_t)!linked;
        at[1] += (size_t)linked;
        for (size_t k = lo; k < hi; k++) {
            if (o[i].start >= w->w1[k]) continue;
            sts_devview_window *x = window(w, k, d);
            x->matched += (uint64_t)linked;
            x->unmatched += (uint64_t)!linked;
            at[k + 2] += (size_t)linked;
        }
    }
    for (size_t b = 0; b < nb; b++)
        at[b + 1] += at[b];
    if (STS_VEC_RESERVE(w->delays, at[nb] ? at[nb] : 1) != 0) return -1;
    int64_t *dl = w->delays.v;
    w->reach_at = w->start_at = 0;
    for (size_t i = 0; i < n; i++) {
        if (o[i].host == STS_NONE) continue;
        int64_t delay = o[i].start - o[i].launch;
        steps_at(w, o[i].start, &lo, &hi);
        dl[at[0]++] = delay;
        for (size_t k = lo; k < hi; k++)
            if (o[i].start < w->w1[k]) dl[at[k + 1]++] = delay;
    }
    /* at[b] is now where bucket b's delays end, and at[b - 1] where they start. */
    for (size_t b = 0; b < nb; b++) {
        size_t from = b ? at[b - 1] : 0;
        if (at[b] > from) delay_of(window(w, b == 0 ? SPAN : b - 1, d), dl + from, at[b] - from);
    }
    return 0;
}

/* ---- the windows ------------------------------------------------------------------------ */

static void init_window(sweep *w, sts_devview_window *x, size_t k, uint32_t d)
{
    const sts_devview_device *dev = &w->v->devices.v[d];
    x->device = d;
    x->step = k == SPAN ? STS_NONE : (uint32_t)k;
    x->start_ns = k == SPAN ? dev->start_ns : w->w0[k];
    x->window_ns = k == SPAN ? dev->end_ns - dev->start_ns : w->w1[k] - w->w0[k];
    if (dev->matched) x->known = STS_DEVVIEW_KNOWN_IDLE_SPLIT | STS_DEVVIEW_KNOWN_QUEUE;
}

static int setup(sweep *w, const sts_steps *steps)
{
    size_t n = 0;
    const sts_step *st = steps ? sts_steps_list(steps, &n) : NULL;
    w->nsteps = n;
    w->ndev = w->v->devices.n;
    w->v->nsteps = n;
    size_t nw = n * w->ndev;
    if (STS_VEC_RESERVE(w->v->windows, nw ? nw : 1) != 0 || STS_VEC_RESERVE(w->v->spans, w->ndev ? w->ndev : 1) != 0)
        return -1;
    memset(w->v->windows.v, 0, (nw ? nw : 1) * sizeof *w->v->windows.v);
    memset(w->v->spans.v, 0, (w->ndev ? w->ndev : 1) * sizeof *w->v->spans.v);
    w->v->windows.n = nw;
    w->v->spans.n = w->ndev;
    w->per_window = malloc((n + 2) * sizeof *w->per_window);
    if (!w->per_window) return -1;
    if (n) {
        w->w0 = malloc(n * sizeof *w->w0);
        w->w1 = malloc(n * sizeof *w->w1);
        w->reach = malloc(n * sizeof *w->reach);
        if (!w->w0 || !w->w1 || !w->reach) return -1;
        for (size_t k = 0; k < n; k++) {
            w->w0[k] = st[k].ts;
            w->w1[k] = st[k].ts + st[k].dur;
            w->reach[k] = k && w->reach[k - 1] > w->w1[k] ? w->reach[k - 1] : w->w1[k];
        }
    }
    for (uint32_t d = 0; d < w->ndev; d++) {
        init_window(w, window(w, SPAN, d), SPAN, d);
        for (size_t k = 0; k < n; k++)
            init_window(w, window(w, k, d), k, d);
    }
    return 0;
}

/* Time-weighted mean of the queue, and what the trace cannot tell set to unknown. */
static void finish_window(sts_devview_window *x)
{
    x->queue_mean = x->window_ns > 0 ? x->queue_mean / (double)x->window_ns : 0;
    if (!(x->known & STS_DEVVIEW_KNOWN_IDLE_SPLIT)) {
        x->host_wait_ns = x->kernel_wait_ns = 0;
        x->other_idle_ns = x->idle_ns;
    }
    if (!(x->known & STS_DEVVIEW_KNOWN_QUEUE)) {
        x->queue_mean = 0;
        x->queue_max = 0;
    }
}

static void finish_windows(sweep *w)
{
    for (size_t i = 0; i < w->v->windows.n; i++)
        finish_window(&w->v->windows.v[i]);
    for (size_t i = 0; i < w->v->spans.n; i++)
        finish_window(&w->v->spans.v[i]);
}

int sts_dv_sweep(const sts_timeline *tl, sts_devview *v, const dv_ops *ops, const sts_steps *steps)
{
    (void)tl;
    sweep w;
    memset(&w, 0, sizeof w);
    w.v = v;
    w.steps = steps;
    int bad = setup(&w, steps) != 0;
    for (size_t lo = 0; !bad && lo < ops->v.n;) {
        uint32_t d = ops->v.v[lo].device;
        size_t hi = lo;
        while (hi < ops->v.n && ops->v.v[hi].device == d)
            hi++;
        bad = device_events(&w, &ops->v.v[lo], hi - lo) != 0;
        if (!bad) sweep_device(&w, d, &ops->v.v[lo], hi - lo);
        bad = bad || device_launches(&w, d, &ops->v.v[lo], hi - lo) != 0;
        lo = hi;
    }
    if (!bad) finish_windows(&w);
    free(w.w0);
    free(w.w1);
    free(w.reach);
    free(w.per_window);
    STS_VEC_RELEASE(w.delays);
    STS_VEC_RELEASE(w.later);
    STS_VEC_RELEASE(w.room);
    STS_VEC_RELEASE(w.starts);
    return bad ? -1 : 0;
}
