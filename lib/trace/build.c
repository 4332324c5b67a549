/* trace: stop. The threads' buffers become a timeline in the nested, ordered form
 * sts_timeline_open() returns: host threads are lanes of process "/host:CPU", scopes
 * are complete slices, args follow their scope. */
#include "trace/build.h"
#include "model/finalize.h"
#include "model/msort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

sts_build_devices sts_build_dev;

uint32_t sts_build_text(sts_build *b, const char *s)
{
    uint32_t id = sts_tl_intern(b->tl, s, strlen(s));
    if (id == STS_NONE) b->nomem = 1;
    return id;
}

uint32_t sts_build_name(sts_build *b, const char *name)
{
    if (!name) return 0;
    uint32_t id = sts_u64map_get(&b->names, (uint64_t)(uintptr_t)name);
    if (id != UINT32_MAX) return id;
    id = sts_build_text(b, name);
    if (id != STS_NONE && sts_u64map_put(&b->names, (uint64_t)(uintptr_t)name, id) != 0) b->nomem = 1;
    return id == STS_NONE ? 0 : id;
}

uint32_t sts_build_slice(sts_build *b, uint32_t lane, int64_t ts, int64_t dur, uint32_t name, uint16_t depth,
                         uint32_t args)
{
    sts_slice *s = STS_VEC_PUSH(b->tl->slices);
    if (!s) {
        b->nomem = 1;
        return STS_NONE;
    }
    s->ts = ts;
    s->dur = dur < 0 ? 0 : dur;
    s->name = name;
    s->lane = lane;
    s->parent = STS_NONE;
    s->args = args;
    s->depth = depth; /* the recorded depth until nest() recomputes it */
    return (uint32_t)(b->tl->slices.n - 1);
}

/* The pending args of frame `depth`, in recording order, as timeline args; drops
 * every pending arg at that depth or deeper (deeper ones belonged to scopes that were
 * dropped). */
static uint32_t take_args(sts_build *b, uint32_t depth)
{
    b->argv.n = 0;
    size_t keep = b->pending.n;
    for (size_t i = 0; i < b->pending.n; i++) {
        const sts_rec_arg *a = b->pending.v[i];
        uint32_t d = a->kd >> 8;
        if (d < depth) continue;
        if (i < keep) keep = i;
        if (d != depth) continue;
        sts_arg *out = STS_VEC_PUSH(b->argv);
        if (!out) {
            b->nomem = 1;
            break;
        }
        out->key = sts_build_name(b, a->key);
        switch (a->kd & 0xffu) {
        case STS_REC_ARG_INT:
            out->type = STS_ARG_INT;
            out->v.i = a->v.i;
            break;
        case STS_REC_ARG_DOUBLE:
            out->type = STS_ARG_DOUBLE;
            out->v.d = a->v.d;
            break;
        default: {
            const char *str = (const char *)a + STS_REC_ARG_HEADER;
            out->type = STS_ARG_STRING;
            out->v.str = sts_tl_intern(b->tl, str, a->len);
            if (out->v.str == STS_NONE) b->nomem = 1;
        }
        }
    }
    /* Pending args are kept in depth order, so everything from `keep` on is at this
     * depth or deeper. */
    b->pending.n = keep;
    if (b->argv.n == 0) return STS_NONE;
    uint32_t first = sts_tl_add_args(b->tl, b->argv.v, b->argv.n);
    if (first == STS_NONE) b->nomem = 1;
    return first;
}

static void parse_records(sts_build *b, const char *p, const char *end, uint32_t lane, uint64_t *recorded)
{
    while (p < end) {
        size_t size = sts_rec_size(p);
        if (size == 0 || (size_t)(end - p) < size) break; /* cannot happen: records are whole */
        uint32_t kd = *(const uint32_t *)(const void *)p;
        switch (kd & 0xffu) {
        case STS_REC_SCOPE: {
            const sts_rec_scope *r = (const sts_rec_scope *)(const void *)p;
            uint32_t depth = kd >> 8;
            int64_t ts = sts_tclock_ns(b->clock, r->t0);
            int64_t te = sts_tclock_ns(b->clock, r->t1);
            uint32_t args = take_args(b, depth);
            sts_build_slice(b, lane, ts, te - ts, sts_build_name(b, r->name), (uint16_t)depth, args);
            (*recorded)++;
            break;
        }
        default: {
            const sts_rec_arg **slot = STS_VEC_PUSH(b->pending);
            if (!slot)
                b->nomem = 1;
            else
                *slot = (const sts_rec_arg *)(const void *)p;
        }
        }
        p += size;
    }
}

static uint32_t add_instant(sts_build *b, uint32_t lane, int64_t ts, const char *name, const sts_arg *args,
                            size_t nargs)
{
    sts_instant *in = STS_VEC_PUSH(b->tl->instants);
    if (!in) {
        b->nomem = 1;
        return STS_NONE;
    }
    in->ts = ts;
    in->name = sts_build_text(b, name);
    in->cat = sts_build_text(b, "stepscope");
    in->lane = lane;
    in->scope = 't';
    in->args = sts_tl_add_args(b->tl, args, nargs);
    return (uint32_t)(b->tl->instants.n - 1);
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

static void build_thread(sts_build *b, sts_tstate *s)
{
    char label[32];
    snprintf(label, sizeof label, "%" PRId64, s->tid);
    uint32_t lane = sts_tl_lane(b->tl, b->host_process, sts_build_text(b, label), s->tid);
    if (lane == STS_NONE) {
        b->nomem = 1;
        return;
    }
    b->tl->lanes.v[lane].name = sts_build_text(b, s->name);
    b->tl->lanes.v[lane].sort_index = (int32_t)s->order;
    b->tl->lanes.v[lane].kind = STS_LANE_THREAD;

    uint64_t recorded = 0;
    b->pending.n = 0;
    for (sts_chunk *c = atomic_load_explicit(&s->first, memory_order_acquire); c;
         c = atomic_load_explicit(&c->next, memory_order_acquire)) {
        size_t used = atomic_load_explicit(&c->used, memory_order_acquire);
        parse_records(b, c->data, c->data + used, lane, &recorded);
    }
    /* Frames still open: read after the chunks (see recorder_impl.h). */
    uint32_t depth = atomic_load_explicit(&s->depth, memory_order_acquire);
    uint32_t open = depth < STS_TRACE_MAX_DEPTH ? depth : STS_TRACE_MAX_DEPTH;
    for (uint32_t d = open; d-- > 0;) {
        int64_t ts = sts_tclock_ns(b->clock, atomic_load_explicit(&s->stack[d].t0, memory_order_relaxed));
        const char *name = atomic_load_explicit(&s->stack[d].name, memory_order_relaxed);
        uint32_t args = take_args(b, d);
        uint32_t i = sts_build_slice(b, lane, ts, b->stop_ns - ts, sts_build_name(b, name), (uint16_t)d, args);
        if (i != STS_NONE) b->tl->slices.v[i].flags |= STS_SLICE_UNCLOSED;
    }

    uint64_t dropped = atomic_load_explicit(&s->dropped, memory_order_relaxed);
    uint64_t too_deep = atomic_load_explicit(&s->too_deep, memory_order_relaxed);
    if (dropped || too_deep) {
        sts_arg a[2] = { int_arg(b, "dropped", (int64_t)dropped), int_arg(b, "too_deep", (int64_t)too_deep) };
        add_instant(b, lane, b->stop_ns, "stepscope.dropped", a, 2);
        sts_tl_warn(b->tl,
                    "thread %s (tid %" PRId64 "): %" PRIu64 " scopes dropped (event pool full), %" PRIu64
                    " nested too deep",
                    s->name, s->tid, dropped, too_deep);
    }

    sts_trace_stats *st = b->stats;
    if (st->threads < STS_TRACE_MAX_THREAD_STATS) {
        sts_trace_thread_stats *t = &st->thread[st->threads];
        t->tid = s->tid;
        snprintf(t->name, sizeof t->name, "%s", s->name);
        t->recorded = recorded;
        t->dropped = dropped;
        t->too_deep = too_deep;
        t->open_at_stop = open;
        t->exited = atomic_load_explicit(&s->exited, memory_order_acquire);
    }
    st->threads++;
    st->recorded += recorded;
    st->dropped += dropped;
    st->too_deep += too_deep;
    st->open_at_stop += open;
    st->unmatched_end += atomic_load_explicit(&s->unmatched, memory_order_relaxed);
}

/* Recording order: lane, start, longer first, then outer before inner (depth), then
 * the order of recording (held in `parent` while sorting). */
#define REC_LESS(ctx, a, b)                           \
    ((a).lane != (b).lane     ? (a).lane < (b).lane   \
     : (a).ts != (b).ts       ? (a).ts < (b).ts       \
     : (a).dur != (b).dur     ? (a).dur > (b).dur     \
     : (a).depth != (b).depth ? (a).depth < (b).depth \
                              : (a).parent < (b).parent)

STS_DEFINE_SORT(sort_recorded, sts_slice, void, REC_LESS)

/* Hands the slices to the interval model's finalize, which orders and nests them
 * exactly as it nests a file. Host scopes nest by construction; the stack walk still
 * decides parents, so a scope whose parent was dropped becomes a root instead of joining
 * a wrong parent, and two overlapping device commands (a queue that is not in order)
 * are listed as an overlap. Finalize breaks ties of equal ts and dur by the events'
 * sequence numbers (a raw slice's `parent`), but a scope is recorded when it ends,
 * after the scopes inside it: a parent and a child that start and end on the same
 * clock tick (a coarse TSC does that) would come child first. So the slices are put in
 * nesting order first, the recorded depth deciding those ties, and numbered in it. */
static sts_status nest(sts_timeline *tl)
{
    size_t n = tl->slices.n;
    for (size_t i = 0; i < n; i++)
        tl->slices.v[i].parent = (uint32_t)i;
    sts_slice *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp || sort_recorded(tl->slices.v, n, tmp, NULL) != 0) {
        free(tmp);
        return STS_ERR_NOMEM;
    }
    free(tmp);
    for (size_t i = 0; i < n; i++)
        tl->slices.v[i].parent = (uint32_t)i;
    sts_error err = STS_ERROR_INIT;
    return sts_tl_finalize(tl, &err);
}

static void fill_info(sts_timeline *tl)
{
    sts_timeline_info *in = &tl->info;
    in->events = tl->slices.n + tl->instants.n + tl->flows.n;
    in->by_phase['X'] = tl->slices.n;
    in->by_phase['i'] = tl->instants.n;
    in->by_phase['s'] = 0;
    for (size_t i = 0; i < tl->flows.n; i++)
        in->by_phase[(unsigned char)tl->flows.v[i].phase]++;
    in->resolution_ns = 1;
    tl->all_whole_us = 0;
    int any = 0;
    for (size_t i = 0; i < tl->slices.n; i++) {
        int64_t a = tl->slices.v[i].ts, e = a + tl->slices.v[i].dur;
        if (!any || a < in->ts_min) in->ts_min = a;
        if (!any || e > in->ts_max) in->ts_max = e;
        any = 1;
    }
    for (size_t i = 0; i < tl->instants.n; i++) {
        int64_t a = tl->instants.v[i].ts;
        if (!any || a < in->ts_min) in->ts_min = a;
        if (!any || a > in->ts_max) in->ts_max = a;
        any = 1;
    }
}

/* Session-wide facts, as args of one instant at the session's start. */
static void add_trace_instant(sts_build *b, uint32_t lane)
{
    const sts_trace_stats *st = b->stats;
    sts_arg a[9];
    size_t n = 0;
    a[n++] = int_arg(b, "recorded", (int64_t)st->recorded);
    a[n++] = int_arg(b, "dropped", (int64_t)st->dropped);
    a[n++] = int_arg(b, "too_deep", (int64_t)st->too_deep);
    a[n++] = int_arg(b, "open_at_stop", (int64_t)st->open_at_stop);
    a[n++] = int_arg(b, "threads", (int64_t)st->threads);
    a[n++] = int_arg(b, "clock_error_ns", st->clock_error_ns);
    a[n] = int_arg(b, "clock", 0);
    a[n].type = STS_ARG_STRING;
    a[n++].v.str = sts_build_text(b, st->clock);
    a[n] = int_arg(b, "tsc_ghz", 0);
    a[n].type = STS_ARG_DOUBLE;
    a[n++].v.d = st->tsc_ghz;
    a[n++] = int_arg(b, "device_ops", (int64_t)st->device_ops);
    add_instant(b, lane, b->start_ns, "stepscope.trace", a, n);
}

static int by_order(const void *a, const void *b)
{
    uint32_t x = (*(sts_tstate *const *)a)->order, y = (*(sts_tstate *const *)b)->order;
    return (x > y) - (x < y);
}

static sts_status build_timeline(sts_build *b, uint32_t session)
{
    sts_timeline *tl = b->tl;
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    b->host_process = sts_tl_process(tl, sts_build_text(b, pid), (int64_t)getpid());
    if (b->host_process == STS_NONE) return STS_ERR_NOMEM;
    tl->procs.v[b->host_process].name = sts_build_text(b, STS_HOST_PROCESS_NAME);

    /* Lanes in registration order, so the first thread that recorded comes first. */
    size_t nstates = 0;
    for (sts_tstate *s = atomic_load_explicit(&sts_rec.threads, memory_order_acquire); s;
         s = atomic_load_explicit(&s->next, memory_order_relaxed))
        nstates += s->session == session;
    sts_tstate **order = malloc((nstates ? nstates : 1) * sizeof *order);
    if (!order) return STS_ERR_NOMEM;
    size_t k = 0;
    for (sts_tstate *s = atomic_load_explicit(&sts_rec.threads, memory_order_acquire); s;
         s = atomic_load_explicit(&s->next, memory_order_relaxed))
        if (s->session == session) order[k++] = s;
    /* qsort: the registry lists the newest first, the worst case of an insertion sort
     * (32,768 threads took seconds). Orders are unique, so the result is determined. */
    qsort(order, k, sizeof *order, by_order);
    for (size_t i = 0; i < k; i++)
        build_thread(b, order[i]);
    free(order);
    if (sts_build_dev.finish) sts_build_dev.finish(b);
    b->devices_done = 1;
    if (tl->lanes.n) add_trace_instant(b, 0);
    if (b->nomem) return STS_ERR_NOMEM;
    fill_info(tl);
    sts_status st = nest(tl);
    if (st != STS_OK) return st;
    return b->nomem ? STS_ERR_NOMEM : STS_OK;
}

/* Ends the running session (lock held): later events are ignored from here on. */
static void end_session(void)
{
    sts_tclock_end(&sts_rec.clock);
    /* A SIGTERM from here on waits for the profile (sts_crash_finish raises it). */
    if (sts_rec.opt.flush_on_signal) sts_crash_hold();
    atomic_store_explicit(&sts_rec.session, 0, memory_order_seq_cst);
    __atomic_store_n(&sts__trace_on, 0u, __ATOMIC_RELEASE);
}

static void release_pool(void)
{
    /* The mapping stays (a thread still finishing its last event may write to it);
     * its pages go back to the system. */
    if (sts_rec.pool) madvise(sts_rec.pool, sts_rec.pool_bytes, MADV_DONTNEED);
}

sts_status sts_rec_stop(sts_timeline **out, sts_trace_stats *stats, sts_error *err)
{
    if (out) *out = NULL;
    sts_trace_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    pthread_mutex_lock(&sts_rec.lock);
    uint32_t session = atomic_load_explicit(&sts_rec.session, memory_order_relaxed);
    if (session == 0) {
        pthread_mutex_unlock(&sts_rec.lock);
        return sts_error_set(err, STS_ERR_STATE, -1, "sts_trace_stop: no trace session is running");
    }
    end_session();
    int64_t stop_ns = sts_rec.clock.tsc ? sts_rec.clock.b.ns : sts_clock_ns();
    stats->clock = sts_rec.clock.tsc ? "tsc" : "monotonic";
    stats->tsc_ghz = sts_tclock_ghz(&sts_rec.clock);
    stats->clock_error_ns = sts_tclock_error_ns(&sts_rec.clock);
    stats->pool_bytes = sts_rec.pool_bytes;
    size_t taken = atomic_load_explicit(&sts_rec.next_chunk, memory_order_relaxed);
    stats->pool_used_bytes = (taken < sts_rec.nchunks ? taken : sts_rec.nchunks) * sts_rec.chunk_bytes;
    stats->start_ns = sts_rec.start_ns;
    stats->stop_ns = stop_ns;

    sts_build b;
    memset(&b, 0, sizeof b);
    b.clock = &sts_rec.clock;
    b.start_ns = sts_rec.start_ns;
    b.stop_ns = stop_ns;
    b.stats = stats;
    b.tl = sts_tl_new(sts_rec.dir, "stepscope-recorder", STS_ARGS_ALL);
    sts_status st = b.tl ? build_timeline(&b, session) : STS_ERR_NOMEM;
    if (!b.devices_done && sts_build_dev.finish) {
        /* The build stopped early: still release the devices' events. */
        sts_timeline *keep = b.tl;
        b.tl = NULL;
        sts_build_dev.finish(&b);
        b.tl = keep;
    }
    release_pool();
    sts_rec_collect_free(); /* the session's exited threads: their states serve new threads */
    pthread_mutex_unlock(&sts_rec.lock);
    sts_u64map_release(&b.names);
    free(b.pending.v);
    free(b.argv.v);
    if (st != STS_OK) {
        sts_tl_free(b.tl);
        return sts_error_set(err, st, -1, "sts_trace_stop: out of memory building the timeline of %s", sts_rec.dir);
    }
    if (out)
        *out = b.tl;
    else
        sts_tl_free(b.tl);
    return STS_OK;
}

sts_status sts_trace_stop_timeline(sts_timeline **out, sts_trace_stats *stats, sts_error *err)
{
    sts_status st = sts_rec_stop(out, stats, err);
    sts_crash_finish();
    return st;
}
