/* trace: device lanes. The device layer calls our hook after each kernel launch or
 * copy; we keep the command's event and, at stop (or detach), read its OpenCL
 * profiling timestamps, map them onto the host clock and lay them out on a device
 * lane, linked to the enqueue on the host lane by a correlation id and a flow.
 *
 * The map (devclock.h) is fitted to bounds that hold whatever the scheduling: the two
 * calibration pairs, and for every command its QUEUED stamp inside the enqueue call
 * (which began after floor_tick and had returned by hook_tick) and its END stamp
 * before the host saw it complete (sts_event_done_ns). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "stepscope/device.h"
#include "trace/build.h"
#include "trace/devclock.h"

typedef struct dev_op {
    sts_event *ev; /* retained until resolved */
    uint64_t corr;
    int64_t tid;         /* the enqueuing thread */
    uint64_t hook_tick;  /* when the enqueue had returned */
    uint64_t floor_tick; /* the enqueue began later: innermost open scope's start, the
                            last closed scope's end, or the thread's previous enqueue's
                            return, whichever is latest */
    uint32_t depth;      /* open scopes around the enqueue */
    int ok;              /* times were read */
    int64_t done_ns;     /* CLOCK_MONOTONIC: the host had seen it complete (-1: unknown) */
    sts_event_times times;
    char name[64];
} dev_op;

/* Host = device - dev + host at one calibration point, to within unc. */
typedef struct clock_pair {
    int ok;
    int64_t host, dev, unc;
} clock_pair;

typedef struct tracker {
    sts_device *dev;
    _Atomic int detached; /* read by the hook without the lock */
    pthread_mutex_t lock; /* ops: the hook may run on any thread that uses the device */
    STS_VEC(dev_op) ops;
    clock_pair a, b;
    char process[32]; /* "/device:CPU:0" */
    char lane[200];
} tracker;

static tracker trackers[STS_TRACE_MAX_DEVICES];
static int ntrackers;
static _Atomic uint32_t trackers_session; /* read by the hook without the lock */
static pthread_mutex_t trackers_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t next_correlation;

/* The calling thread's last enqueue hook: its next enqueue begins after it. */
static __thread struct {
    uint32_t session;
    uint64_t tick;
} last_hook;

static void on_enqueue(void *user, const char *name, sts_event *ev)
{
    tracker *t = user;
    sts_tstate *s = sts_rec_current();
    if (!s || s->session != atomic_load_explicit(&trackers_session, memory_order_acquire) ||
        atomic_load_explicit(&t->detached, memory_order_acquire))
        return;
    uint64_t now = sts_ticks(s->tsc);
    uint32_t depth = atomic_load_explicit(&s->depth, memory_order_relaxed);
    uint64_t floor = s->last_t1;
    if (depth > 0 && depth <= STS_TRACE_MAX_DEPTH) {
        uint64_t t0 = atomic_load_explicit(&s->stack[depth - 1].t0, memory_order_relaxed);
        if (t0 > floor) floor = t0;
    }
    if (last_hook.session == s->session && last_hook.tick > floor) floor = last_hook.tick;
    last_hook.session = s->session;
    last_hook.tick = now;
    pthread_mutex_lock(&t->lock);
    dev_op *op = STS_VEC_PUSH(t->ops);
    if (op) {
        op->ev = sts_event_retain(ev);
        op->corr = atomic_fetch_add_explicit(&next_correlation, 1, memory_order_relaxed) + 1;
        op->tid = s->tid;
        op->hook_tick = now;
        op->floor_tick = floor;
        op->depth = depth > STS_TRACE_MAX_DEPTH ? STS_TRACE_MAX_DEPTH : depth;
        snprintf(op->name, sizeof op->name, "%s", name ? name : sts_event_name(ev));
        sts_utf8_trim(op->name);
    }
    pthread_mutex_unlock(&t->lock);
}

static clock_pair calibrate(sts_device *dev, sts_error *err)
{
    clock_pair c = { 0, 0, 0, 0 };
    c.ok = sts_device_clock_pair(dev, &c.host, &c.dev, &c.unc, err) == STS_OK;
    return c;
}

/* Waits for the recorded commands, reads their times, releases their events, takes
 * the closing calibration point and unhooks the device. */
static void resolve(tracker *t)
{
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->ops.n; i++) {
        dev_op *op = &t->ops.v[i];
        if (!op->ev) continue;
        op->ok = sts_event_wait(op->ev, NULL) == STS_OK && sts_event_get_times(op->ev, &op->times, NULL) == STS_OK;
        op->done_ns = sts_event_done_ns(op->ev);
        sts_event_release(op->ev);
        op->ev = NULL;
    }
    pthread_mutex_unlock(&t->lock);
    if (!atomic_load_explicit(&t->detached, memory_order_acquire)) {
        t->b = calibrate(t->dev, NULL);
        sts_device_set_enqueue_hook(t->dev, NULL, NULL);
        atomic_store_explicit(&t->detached, 1, memory_order_release);
    }
}

/* Host-clock values known only as CLOCK_MONOTONIC (the calibrations, done_ns) may
 * differ from the trace's clock by its error; the recorder's own ticks need no slack. */
static int64_t widen(int64_t v, int64_t slack, int up)
{
    return up ? v + slack : v - slack;
}

/* Each command's own bounds: QUEUED inside its enqueue call, END before the host saw it
 * complete. */
static int bound_ops(const sts_build *b, const tracker *t, sts_devbound **out, size_t *n)
{
    int64_t slack = b->stats->clock_error_ns;
    sts_devbound *v = malloc((2 * t->ops.n + 1) * sizeof *v);
    *out = v;
    *n = 0;
    if (!v) return -1;
    for (size_t i = 0; i < t->ops.n; i++) {
        const dev_op *op = &t->ops.v[i];
        if (!op->ok) continue;
        int64_t q = op->times.queued, e = op->times.end;
        int64_t floor = sts_tclock_ns(b->clock, op->floor_tick), hook = sts_tclock_ns(b->clock, op->hook_tick);
        v[(*n)++] = (sts_devbound){ q, floor - q, hook - q };
        if (op->done_ns >= 0) v[(*n)++] = (sts_devbound){ e, INT64_MIN, widen(op->done_ns, slack, 1) - e };
    }
    return 0;
}

/* The calibration pairs' bounds, widened by their uncertainty and the trace clock's. */
static size_t bound_pairs(const sts_build *b, const tracker *t, sts_devbound *v)
{
    size_t n = 0;
    const clock_pair *p[2] = { &t->a, &t->b };
    for (int i = 0; i < 2; i++) {
        if (!p[i]->ok) continue;
        int64_t off = p[i]->host - p[i]->dev, slack = b->stats->clock_error_ns + p[i]->unc;
        v[n++] = (sts_devbound){ p[i]->dev, widen(off, slack, 0), widen(off, slack, 1) };
    }
    return n;
}

/* The device-to-host line over the commands' span of device time (error_ns -1 when
 * the bounds contradicted each other). */
static sts_devmap fit(const sts_build *b, const tracker *t)
{
    int64_t d0 = t->a.dev, d1 = t->b.ok ? t->b.dev : t->a.dev + 1;
    int any = 0;
    for (size_t i = 0; i < t->ops.n; i++) {
        const dev_op *op = &t->ops.v[i];
        if (!op->ok) continue;
        if (!any || op->times.queued < d0) d0 = op->times.queued;
        if (!any || op->times.end > d1) d1 = op->times.end;
        any = 1;
    }
    sts_devmap m;
    memset(&m, 0, sizeof m);
    sts_devbound cal[2], *ops = NULL;
    size_t ncal = bound_pairs(b, t, cal), nops = 0;
    if (bound_ops(b, t, &ops, &nops) == 0) m = sts_devclock_map(d0, d1, t->a.host - t->a.dev, cal, ncal, ops, nops);
    free(ops);
    return m;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static sts_arg int_arg(sts_build *b, const char *key, int64_t v)
{
    sts_arg a;
    memset(&a, 0, sizeof a);
    a.key = sts_build_text(b, key);
    a.type = STS_ARG_INT;
    a.v.i = v;
    return a;
}

static void add_flow(sts_build *b, uint32_t lane, int64_t ts, uint32_t id, char phase)
{
    sts_flow *f = STS_VEC_PUSH(b->tl->flows);
    b->tl->info.flows += f != NULL;
    if (!f) {
        b->nomem = 1;
        return;
    }
    f->ts = ts;
    f->name = sts_build_text(b, "enqueue");
    /* No category: DevTools binds a flow only to a slice of the same category, and the
     * enqueue and device slices have none. */
    f->id = id;
    f->lane = lane;
    f->phase = phase;
    f->bind_enclosing = phase == 'f';
}

static void build_op(sts_build *b, const sts_devmap *m, const dev_op *op, uint32_t dev_lane)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%" PRId64, op->tid);
    uint32_t host_lane = sts_tl_lane(b->tl, b->host_process, sts_build_text(b, buf), op->tid);
    /* The fitted line meets every command's bounds up to its rounding (or, when the
     * bounds contradicted each other, not at all); the clamp keeps each command after
     * its enqueue began and before the host saw it complete either way. */
    int64_t lo = sts_tclock_ns(b->clock, op->floor_tick);
    int64_t hi = op->done_ns >= 0 ? widen(op->done_ns, b->stats->clock_error_ns, 1) : INT64_MAX;
    int64_t start = clamp(sts_devmap_host(m, op->times.start), lo, hi);
    int64_t end = clamp(sts_devmap_host(m, op->times.end), lo, hi);
    int64_t queued = clamp(sts_devmap_host(m, op->times.queued), lo, hi);
    int64_t submit = clamp(sts_devmap_host(m, op->times.submit), lo, hi);
    sts_arg a[3] = { int_arg(b, "correlation_id", (int64_t)op->corr), int_arg(b, "queued_ns", queued),
                     int_arg(b, "submit_ns", submit) };
    uint32_t dev_slice_args = sts_tl_add_args(b->tl, a, 3);
    sts_build_slice(b, dev_lane, start, end - start, sts_build_text(b, op->name), 0, dev_slice_args);

    /* The dispatch: from the command's queued time (taken by the driver inside the
     * enqueue call) to the enqueue's return, kept inside the scope that enclosed it. */
    int64_t d_end = sts_tclock_ns(b->clock, op->hook_tick);
    int64_t d_start = queued < lo ? lo : queued;
    if (d_start > d_end) d_start = d_end;
    snprintf(buf, sizeof buf, "enqueue %s", op->name);
    sts_arg h[1] = { int_arg(b, "correlation_id", (int64_t)op->corr) };
    sts_build_slice(b, host_lane, d_start, d_end - d_start, sts_build_text(b, buf), (uint16_t)op->depth,
                    sts_tl_add_args(b->tl, h, 1));
    snprintf(buf, sizeof buf, "%" PRIu64, op->corr);
    uint32_t id = sts_build_text(b, buf);
    add_flow(b, host_lane, d_start, id, 's');
    add_flow(b, dev_lane, start, id, 'f');
}

static void build_tracker(sts_build *b, const tracker *t, int first)
{
    uint32_t proc = sts_tl_process(b->tl, sts_build_text(b, t->process), INT64_MIN);
    if (proc == STS_NONE) {
        b->nomem = 1;
        return;
    }
    b->tl->procs.v[proc].name = sts_build_text(b, t->process);
    uint32_t lane = sts_tl_lane(b->tl, proc, sts_build_text(b, "1"), 1);
    if (lane == STS_NONE) {
        b->nomem = 1;
        return;
    }
    b->tl->lanes.v[lane].name = sts_build_text(b, t->lane);
    b->tl->lanes.v[lane].kind = STS_LANE_DEVICE;
    sts_devmap m = fit(b, t);
    if (!m.ok) {
        b->nomem = 1;
        return;
    }
    for (size_t i = 0; i < t->ops.n; i++) {
        if (!t->ops.v[i].ok) continue;
        build_op(b, &m, &t->ops.v[i], lane);
        b->stats->device_ops++;
    }
    sts_trace_stats *st = b->stats;
    if (first) st->device_offset_ns = t->a.dev - sts_devmap_host(&m, t->a.dev);
    /* The largest over the devices; unknown (-1) stays unknown. */
    if (first || (st->device_offset_error_ns >= 0 && (m.error_ns < 0 || m.error_ns > st->device_offset_error_ns)))
        st->device_offset_error_ns = m.error_ns;
}

static void finish(sts_build *b)
{
    pthread_mutex_lock(&trackers_lock);
    for (int i = 0; i < ntrackers; i++) {
        tracker *t = &trackers[i];
        resolve(t);
        if (b->tl) build_tracker(b, t, i == 0);
        free(t->ops.v);
        t->ops.v = NULL;
        t->ops.n = t->ops.cap = 0;
        pthread_mutex_destroy(&t->lock);
    }
    ntrackers = 0;
    atomic_store_explicit(&trackers_session, 0, memory_order_release);
    pthread_mutex_unlock(&trackers_lock);
}

static tracker *find(const sts_device *dev)
{
    for (int i = 0; i < ntrackers; i++)
        if (trackers[i].dev == dev) return &trackers[i];
    return NULL;
}

sts_status sts_trace_device(sts_device *dev, sts_error *err)
{
    sts_status st = sts_device_require_opencl("sts_trace_device (the recorder's device lanes)", err);
    if (st != STS_OK) return st;
    if (!dev) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "sts_trace_device: no device given");
    uint32_t session = atomic_load_explicit(&sts_rec.session, memory_order_acquire);
    if (session == 0)
        return sts_error_set(err, STS_ERR_STATE, -1,
                             "sts_trace_device: no trace session is running (call "
                             "sts_trace_start first)");
    pthread_mutex_lock(&trackers_lock);
    if (atomic_load_explicit(&trackers_session, memory_order_relaxed) != session) {
        ntrackers = 0; /* the previous session's finish released them */
        atomic_store_explicit(&trackers_session, session, memory_order_release);
    }
    if (find(dev)) goto out;
    if (ntrackers == STS_TRACE_MAX_DEVICES) {
        st = sts_error_set(err, STS_ERR_LIMIT, -1, "sts_trace_device: at most %d devices can be traced at once",
                           STS_TRACE_MAX_DEVICES);
        goto out;
    }
    tracker *t = &trackers[ntrackers];
    memset(t, 0, sizeof *t);
    atomic_store_explicit(&t->detached, 0, memory_order_relaxed);
    t->dev = dev;
    t->a = calibrate(dev, err);
    if (!t->a.ok) {
        st = err ? err->code : STS_ERR_DEVICE;
        goto out;
    }
    const sts_device_info *info = sts_device_get_info(dev);
    const char *kind = info->is_gpu ? "GPU" : info->is_cpu ? "CPU" : "ACCELERATOR";
    int same_kind = 0;
    for (int i = 0; i < ntrackers; i++) {
        const sts_device_info *o = sts_device_get_info(trackers[i].dev);
        same_kind += (o->is_gpu == info->is_gpu && o->is_cpu == info->is_cpu);
    }
    snprintf(t->process, sizeof t->process, "/device:%s:%d", kind, same_kind);
    snprintf(t->lane, sizeof t->lane, "queue 0 (%s)", info->name);
    sts_utf8_trim(t->lane);
    pthread_mutex_init(&t->lock, NULL);
    ntrackers++;
    sts_build_dev.finish = finish;
    sts_device_set_enqueue_hook(dev, on_enqueue, t);
out:
    pthread_mutex_unlock(&trackers_lock);
    return st;
}

sts_status sts_trace_device_detach(sts_device *dev, sts_error *err)
{
    pthread_mutex_lock(&trackers_lock);
    tracker *t = dev ? find(dev) : NULL;
    if (t) resolve(t);
    pthread_mutex_unlock(&trackers_lock);
    if (!t)
        return sts_error_set(err, STS_ERR_NOT_FOUND, -1, "sts_trace_device_detach: this device is not being traced");
    return STS_OK;
}
