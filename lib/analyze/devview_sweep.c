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
#include "base/search.h"

enum { EV_START, EV_END, EV_QIN, EV_QOUT };

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
    ev_vec evs;               /* a device's events, by time */
    ev_vec later;             /* its ends and launches, before they are sorted into evs */
    ev_vec merged;            /* room for the merge */
    STS_VEC(start_at) starts;
    STS_VEC(int64_t) pairs; /* (window, delay) pairs of one device, flattened */
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
 * where qsort pays log n calls through a pointer per record. -1 when memory is
 * exhausted. */
typedef struct rec16 {
    unsigned char b[16];
} rec16;

static uint64_t key_at(const rec16 *r, size_t off)
{
    int64_t k;
    memcpy(&k, r->b + off, sizeof k);
    return (uint64_t)k ^ ((uint64_t)1 << 63); /* signed order as unsigned */
}

static int radix16(void *base, size_t n, const size_t *keys, size_t nk)
{
    if (n < 2) return 0;
    rec16 *src = base, *dst = malloc(n * sizeof *dst);
    size_t(*count)[256] = calloc(8, sizeof *count);
    if (!dst || !count) {
        free(dst);
        free(count);
        return -1;
    }
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
    if (src != base) {
        memcpy(base, src, n * sizeof *src);
        dst = src;
    }
    free(dst);
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

static void credit(sts_devview_window *x, int64_t len, const state *st)
{
    int busy = 0;
    for (int c = 0; c < STS_DV_CATEGORIES; c++) {
        if (!st->cat[c]) continue;
        x->union_ns[c] += len;
        if (!busy) x->exclusive_ns[c] += len;
        busy = 1;
    }
    for (int d = 0; d < STS_DV_DIRECTIONS; d++)
        if (st->dir[d]) x->memcpy_ns[d] += len;
    if (busy) {
        x->busy_ns += len;
        if (st->cat[STS_DV_COMPUTE] && st->cat[STS_DV_COMMUNICATION]) x->overlap_ns += len;
        if (!st->cat[STS_DV_COMPUTE] && st->cat[STS_DV_COMMUNICATION]) x->exposed_ns += len;
    } else {
        x->idle_ns += len;
        if (st->idle == 0)
            x->kernel_wait_ns += len;
        else if (st->idle == 1)
            x->host_wait_ns += len;
        else
            x->other_idle_ns += len;
    }
    x->queue_mean += (double)st->pending * (double)len;
    if (st->pending > x->queue_max) x->queue_max = st->pending;
}

static size_t first_reach_after(const sweep *w, int64_t t)
{
    return sts_first_above_i64(w->reach, w->nsteps, t);
}

static size_t first_start_at(const sweep *w, int64_t t)
{
    return sts_first_at_least_i64(w->w0, w->nsteps, t);
}

static void segment(sweep *w, uint32_t d, int64_t a, int64_t b, const state *st)
{
    sts_devview_window *x = window(w, SPAN, d);
    int64_t lo0 = a > x->start_ns ? a : x->start_ns;
    int64_t hi0 = b < x->start_ns + x->window_ns ? b : x->start_ns + x->window_ns;
    if (hi0 > lo0) credit(x, hi0 - lo0, st);
    if (!w->nsteps) return;
    size_t end = first_start_at(w, b);
    for (size_t k = first_reach_after(w, a); k < end; k++) {
        int64_t lo = a > w->w0[k] ? a : w->w0[k], hi = b < w->w1[k] ? b : w->w1[k];
        if (hi > lo) credit(window(w, k, d), hi - lo, st);
    }
}

static int push_ev(ev_vec *to, int64_t t, int kind, uint8_t cat, uint8_t dir)
{
    ev *e = STS_VEC_PUSH(*to);
    if (!e) return -1;
    e->t = t;
    e->kind = (uint8_t)kind;
    e->cat = cat;
    e->dir = dir;
    return 0;
}

/* The device's events, and its distinct start times with whether all their ops are
 * linked. ops[lo, hi) are the device's, by start. */
static int device_events(sweep *w, const dv_op *o, size_t n)
{
    /* Starts come in order (the ops are by start); only ends and launches need sorting,
     * and then one merge. */
    w->evs.n = 0;
    w->later.n = 0;
    w->starts.n = 0;
    for (size_t i = 0; i < n; i++) {
        int linked = o[i].host != STS_NONE;
        if (push_ev(&w->evs, o[i].start, EV_START, o[i].cat, o[i].dir) != 0 ||
            push_ev(&w->later, o[i].end, EV_END, o[i].cat, o[i].dir) != 0)
            return -1;
        if (linked && o[i].launch < o[i].start &&
            (push_ev(&w->later, o[i].launch, EV_QIN, 0, 0) != 0 || push_ev(&w->evs, o[i].start, EV_QOUT, 0, 0) != 0))
            return -1;
        if (w->starts.n && w->starts.v[w->starts.n - 1].t == o[i].start) {
            w->starts.v[w->starts.n - 1].all_linked &= linked;
            continue;
        }
        start_at *s = STS_VEC_PUSH(w->starts);
        if (!s) return -1;
        s->t = o[i].start;
        s->all_linked = linked;
    }
    /* The order of events at one time does not matter: a segment starts after all of them. */
    static const size_t by_t[] = { 0 };
    if (radix16(w->later.v, w->later.n, by_t, 1) != 0) return -1;
    size_t na = w->evs.n, nb = w->later.n, i = 0, j = 0, k = 0;
    if (STS_VEC_RESERVE(w->merged, na + nb ? na + nb : 1) != 0) return -1;
    ev *m = w->merged.v;
    while (i < na && j < nb)
        m[k++] = w->later.v[j].t < w->evs.v[i].t ? w->later.v[j++] : w->evs.v[i++];
    while (i < na)
        m[k++] = w->evs.v[i++];
    while (j < nb)
        m[k++] = w->later.v[j++];
    w->merged.n = k;
    ev_vec t = w->evs;
    w->evs = w->merged;
    w->merged = t;
    return 0;
}

static void apply(state *st, const ev *e)
{
    int64_t s = e->kind == EV_START || e->kind == EV_QIN ? 1 : -1;
    if (e->kind == EV_QIN || e->kind == EV_QOUT) {
        st->pending += s;
        return;
    }
    st->cat[e->cat] += s;
    if (e->cat == STS_DV_MEMCPY) st->dir[e->dir] += s;
}

/* Every segment from before the first event to after the last: the windows may reach
 * past the device's ops on both sides. */
static void sweep_device(sweep *w, uint32_t d)
{
    state st;
    memset(&st, 0, sizeof st);
    size_t next = 0; /* into w->starts: the first start at or after the segment's end */
    int64_t t = INT64_MIN;
    for (size_t i = 0;;) {
        int64_t b = i < w->evs.n ? w->evs.v[i].t : INT64_MAX;
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
        if (i == w->evs.n) break;
        t = b;
        while (i < w->evs.n && w->evs.v[i].t == t)
            apply(&st, &w->evs.v[i++]);
    }
}

/* ---- launches per window -------------------------------------------------------------- */

static int add_op(sweep *w, sts_devview_window *x, size_t k, const dv_op *o)
{
    if (o->host == STS_NONE) {
        x->unmatched++;
        return 0;
    }
    x->matched++;
    if (STS_VEC_RESERVE(w->pairs, w->pairs.n + 2) != 0) return -1;
    w->pairs.v[w->pairs.n++] = k == SPAN ? -1 : (int64_t)k;
    w->pairs.v[w->pairs.n++] = o->start - o->launch;
    return 0;
}

static int delay_stats(sweep *w, uint32_t d)
{
    size_t n = w->pairs.n / 2;
    static const size_t by_window_delay[] = { 0, sizeof(int64_t) };
    if (radix16(w->pairs.v, n, by_window_delay, 2) != 0) return -1;
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo;
        int64_t k = w->pairs.v[2 * lo];
        while (hi < n && w->pairs.v[2 * hi] == k)
            hi++;
        size_t m = hi - lo;
        const int64_t *at = &w->pairs.v[2 * lo];
#define DELAY(i) (at[2 * (i) + 1])
        sts_devview_window *x = window(w, k < 0 ? SPAN : (size_t)k, d);
        x->known |= STS_DEVVIEW_KNOWN_DELAY;
        x->delay_max_ns = DELAY(m - 1);
        x->delay_p90_ns = DELAY((9 * m + 9) / 10 - 1);
        int64_t a = DELAY((m - 1) / 2), b = DELAY(m / 2);
        x->delay_median_ns = a + (int64_t)(((uint64_t)b - (uint64_t)a) / 2);
#undef DELAY
        lo = hi;
    }
    return 0;
}

static int device_launches(sweep *w, uint32_t d, const dv_op *o, size_t n)
{
    w->pairs.n = 0;
    for (size_t i = 0; i < n; i++) {
        if (add_op(w, window(w, SPAN, d), SPAN, &o[i]) != 0) return -1;
        for (size_t k = first_reach_after(w, o[i].start); k < w->nsteps && w->w0[k] <= o[i].start; k++)
            if (o[i].start < w->w1[k] && add_op(w, window(w, k, d), k, &o[i]) != 0) return -1;
    }
    return delay_stats(w, d);
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
        if (!bad) sweep_device(&w, d);
        bad = bad || device_launches(&w, d, &ops->v.v[lo], hi - lo) != 0;
        lo = hi;
    }
    if (!bad) finish_windows(&w);
    free(w.w0);
    free(w.w1);
    free(w.reach);
    STS_VEC_RELEASE(w.evs);
    STS_VEC_RELEASE(w.later);
    STS_VEC_RELEASE(w.merged);
    STS_VEC_RELEASE(w.starts);
    STS_VEC_RELEASE(w.pairs);
    return bad ? -1 : 0;
}
