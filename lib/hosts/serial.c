/* The records as bytes, for moving them between processes: "STSHOSTS" and a version,
 * then unsigned LEB128 varints (signed values zigzag-coded) and strings as a length
 * and their bytes (a NULL string as length 0 after a 0 flag). Every read is checked
 * against the end, so bytes that are not such records are refused, never trusted. */
#include <stdlib.h>
#include <string.h>

#include "hosts/hosts_impl.h"

static const char MAGIC[8] = { 'S', 'T', 'S', 'H', 'O', 'S', 'T', 'S' };
#define VERSION                                                                              \
    5u /* 2: the device view per step (STS_HOSTS_DEVICE); 3: memory per step and per device; \
          4: collective ops (STS_HOSTS_COLLECTIVES); 5: host-thread calls left unpaired */

/* ---- writing -------------------------------------------------------------------------- */

typedef struct wbuf {
    STS_VEC(unsigned char) b;
    int bad;
} wbuf;

static void put_bytes(wbuf *w, const void *p, size_t n)
{
    if (w->bad || STS_VEC_RESERVE(w->b, w->b.n + n) != 0) {
        w->bad = 1;
        return;
    }
    memcpy(w->b.v + w->b.n, p, n);
    w->b.n += n;
}

static void put_u(wbuf *w, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v) tmp[n] |= 0x80;
        n++;
    } while (v);
    put_bytes(w, tmp, n);
}

static void put_i(wbuf *w, int64_t v)
{
    put_u(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_s(wbuf *w, const char *s)
{
    put_u(w, s != NULL);
    if (!s) return;
    size_t n = strlen(s);
    put_u(w, n);
    put_bytes(w, s, n);
}

static void put_busy(wbuf *w, const sts_busy *b)
{
    put_u(w, b->slices);
    put_i(w, b->union_ns);
    put_i(w, b->start_ns);
    put_i(w, b->end_ns);
    put_i(w, b->span_ns);
}

static void put_info(wbuf *w, const sts_host_info *in)
{
    put_u(w, in->index);
    put_s(w, in->name);
    put_s(w, in->path);
    put_s(w, in->format);
    put_s(w, in->meta_host);
    put_u(w, in->bytes);
    put_u(w, (uint64_t)in->compressed);
    put_u(w, (uint64_t)in->truncated);
    put_u(w, in->events);
    size_t phases = 0;
    for (int c = 0; c < 128; c++)
        phases += in->by_phase[c] != 0;
    put_u(w, phases);
    for (int c = 0; c < 128; c++)
        if (in->by_phase[c]) put_u(w, (uint64_t)c), put_u(w, in->by_phase[c]);
    const uint64_t counts[] = { in->skipped,        in->rejected,  in->clamped, in->overlaps, in->unmatched_end,
                                in->unclosed_begin, in->processes, in->lanes,   in->slices,   in->instants,
                                in->counters,       in->asyncs,    in->flows,   in->args,     in->warnings_total };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        put_u(w, counts[i]);
    put_i(w, in->resolution_ns);
    put_i(w, in->ts_min);
    put_i(w, in->ts_max);
    put_busy(w, &in->busy);
}

static void put_steps(wbuf *w, const sts_host_rec *r)
{
    put_u(w, (uint64_t)r->has_steps);
    if (!r->has_steps) return;
    const sts_host_steps_info *in = &r->steps_info;
    put_u(w, (uint64_t)in->rule);
    put_s(w, in->pid);
    put_s(w, in->tid);
    put_s(w, in->process);
    put_s(w, in->thread);
    put_u(w, in->other_lanes);
    put_u(w, in->device_lanes);
    put_u(w, in->duplicates);
    put_u(w, r->tried.n);
    for (size_t i = 0; i < r->tried.n; i++)
        put_s(w, r->tried.v[i]);
    put_u(w, r->steps.n);
    for (size_t i = 0; i < r->steps.n; i++) {
        const sts_host_step *s = &r->steps.v[i];
        put_i(w, s->step);
        put_i(w, s->ts_ns);
        put_i(w, s->dur_ns);
        put_i(w, s->children_ns);
        put_i(w, s->unattributed_ns);
        put_u(w, s->first_child);
        put_u(w, s->child_count);
        put_i(w, s->device_busy_ns);
        put_i(w, s->collective_ns);
        put_u(w, s->first_collective);
        put_u(w, s->collective_count);
    }
    put_u(w, r->children.n);
    for (size_t i = 0; i < r->children.n; i++) {
        put_s(w, r->children.v[i].name);
        put_u(w, r->children.v[i].count);
        put_i(w, r->children.v[i].total_ns);
    }
    put_u(w, r->colls.n);
    for (size_t i = 0; i < r->colls.n; i++) {
        put_s(w, r->colls.v[i].kind);
        put_i(w, r->colls.v[i].ns);
    }
}

/* A window's integers, in one order for writing and reading. */
#define DSTEP_I64S(x)                                                                                                 \
    {                                                                                                                 \
        &(x)->start_ns, &(x)->window_ns, &(x)->busy_ns, &(x)->overlap_ns, &(x)->exposed_ns, &(x)->idle_ns,            \
            &(x)->host_wait_ns, &(x)->kernel_wait_ns, &(x)->other_idle_ns, &(x)->delay_median_ns, &(x)->delay_p90_ns, \
            &(x)->delay_max_ns, &(x)->queue_max                                                                       \
    }

static void put_dsteps(wbuf *w, const sts_host_rec *r)
{
    put_u(w, r->dsteps.n);
    for (size_t i = 0; i < r->dsteps.n; i++) {
        const sts_host_device_step *e = &r->dsteps.v[i];
        const sts_devview_window *x = &e->w;
        uint64_t q;
        memcpy(&q, &x->queue_mean, sizeof q);
        put_u(w, e->step);
        put_s(w, e->device);
        put_s(w, e->pid);
        put_s(w, e->process);
        put_u(w, x->device);
        put_u(w, x->step);
        put_u(w, x->known);
        const int64_t *v[] = DSTEP_I64S(x);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            put_i(w, *v[k]);
        for (int c = 0; c < STS_DV_CATEGORIES; c++) {
            put_i(w, x->union_ns[c]);
            put_i(w, x->exclusive_ns[c]);
        }
        for (int d = 0; d < STS_DV_DIRECTIONS; d++)
            put_i(w, x->memcpy_ns[d]);
        put_u(w, x->matched);
        put_u(w, x->unmatched);
        put_u(w, q);
    }
}

/* A memory entry's signed values, in one order for writing and reading. */
#define MSTEP_I64S(x)                                                                                  \
    {                                                                                                  \
        &(x)->start_bytes, &(x)->end_bytes, &(x)->peak_bytes, &(x)->peak_ts_ns, &(x)->allocated_bytes, \
            &(x)->freed_bytes, &(x)->untracked_bytes                                                   \
    }

static void put_msteps(wbuf *w, const sts_host_rec *r)
{
    put_u(w, (uint64_t)r->memory_asked);
    put_u(w, r->msteps.n);
    for (size_t i = 0; i < r->msteps.n; i++) {
        const sts_host_memory_step *m = &r->msteps.v[i];
        put_u(w, m->step);
        put_s(w, m->device);
        put_u(w, (uint64_t)m->has_events);
        put_u(w, (uint64_t)m->has_addrs);
        put_u(w, m->e.step);
        put_u(w, m->e.device);
        put_u(w, m->e.allocations);
        put_u(w, m->e.frees);
        put_u(w, m->e.first_live);
        put_u(w, m->e.live_count);
        sts_memory_step e = m->e;
        const int64_t *v[] = MSTEP_I64S(&e);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            put_i(w, *v[k]);
    }
    put_u(w, r->mlives.n);
    for (size_t i = 0; i < r->mlives.n; i++) {
        put_s(w, r->mlives.v[i].name);
        put_s(w, r->mlives.v[i].within);
        put_i(w, r->mlives.v[i].bytes);
        put_u(w, r->mlives.v[i].count);
    }
}

/* A memory device's numbers, in one order for writing and reading. */
#define MDEV_U64S(x)                                                                                               \
    {                                                                                                              \
        &(x)->events, &(x)->allocations, &(x)->frees, &(x)->unmatched_frees, &(x)->reused_addrs, &(x)->bad_totals, \
            &(x)->inconsistent_totals, &(x)->bad_events                                                            \
    }
#define MDEV_I64S(x)                                                                                    \
    {                                                                                                   \
        &(x)->allocated_bytes, &(x)->freed_bytes, &(x)->start_bytes, &(x)->end_bytes, &(x)->peak_bytes, \
            &(x)->peak_ts_ns, &(x)->untracked_bytes, &(x)->leak_first_step, &(x)->leak_last_step,       \
            &(x)->leak_growth_bytes, &(x)->kept_bytes                                                   \
    }
#define MDEV_U32S(x)                                                                                                 \
    {                                                                                                                \
        &(x)->first_live, &(x)->live_count, &(x)->first_point, &(x)->point_count, &(x)->leak_steps, &(x)->leak_grew, \
            &(x)->first_kept, &(x)->kept_count                                                                       \
    }

static void put_mdevs(wbuf *w, const sts_host_rec *r)
{
    put_u(w, r->mdevs.n);
    for (size_t i = 0; i < r->mdevs.n; i++) {
        sts_memory_device d = r->mdevs.v[i];
        put_s(w, d.name);
        put_s(w, d.source);
        const int flags[] = { d.has_totals, d.has_addrs, d.has_events, d.leak_suspect };
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            put_u(w, (uint64_t)flags[k]);
        uint64_t *u[] = MDEV_U64S(&d);
        for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
            put_u(w, *u[k]);
        int64_t *v[] = MDEV_I64S(&d);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            put_i(w, *v[k]);
        uint32_t *x[] = MDEV_U32S(&d);
        for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
            put_u(w, *x[k]);
    }
    put_u(w, r->mpoints.n);
    for (size_t i = 0; i < r->mpoints.n; i++) {
        put_i(w, r->mpoints.v[i].ts_ns);
        put_i(w, r->mpoints.v[i].bytes);
    }
    put_u(w, r->mwarnings.n);
    for (size_t i = 0; i < r->mwarnings.n; i++)
        put_s(w, r->mwarnings.v[i]);
}

/* A collective op's integers, in one order for writing and reading. */
#define COP_I64S(o)                                                                                            \
    {                                                                                                          \
        &(o)->seq, &(o)->in_nelems, &(o)->out_nelems, &(o)->group_size, &(o)->ts_ns, &(o)->end_ns, &(o)->step, \
            &(o)->in_step                                                                                      \
    }

static void put_colls(wbuf *w, const sts_host_rec *r)
{
    put_u(w, (uint64_t)r->has_colls);
    if (!r->has_colls) return;
    put_u(w, r->colls_nested);
    put_u(w, r->colls_unpaired);
    put_u(w, r->cops.n);
    for (size_t i = 0; i < r->cops.n; i++) {
        const sts_host_coll_op *o = &r->cops.v[i];
        put_s(w, o->device);
        put_s(w, o->kind);
        put_s(w, o->name);
        put_s(w, o->group);
        put_s(w, o->dtype);
        const int64_t *v[] = COP_I64S(o);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            put_i(w, *v[k]);
        put_u(w, o->first_pre);
        put_u(w, o->pre_count);
    }
    put_u(w, r->cpre.n);
    for (size_t i = 0; i < r->cpre.n; i++) {
        put_s(w, r->cpre.v[i].name);
        put_u(w, r->cpre.v[i].count);
        put_i(w, r->cpre.v[i].total_ns);
    }
}

static void put_host(wbuf *w, const sts_host_rec *r)
{
    put_info(w, &r->info);
    put_u(w, r->lanes.n);
    for (size_t i = 0; i < r->lanes.n; i++) {
        const sts_host_lane *l = &r->lanes.v[i];
        put_s(w, l->pid);
        put_s(w, l->tid);
        put_s(w, l->process);
        put_s(w, l->thread);
        put_u(w, (uint64_t)l->device);
        put_busy(w, &l->busy);
    }
    put_u(w, r->procs.n);
    for (size_t i = 0; i < r->procs.n; i++) {
        put_s(w, r->procs.v[i].pid);
        put_s(w, r->procs.v[i].name);
        put_busy(w, &r->procs.v[i].busy);
    }
    put_u(w, r->overlaps.n);
    for (size_t i = 0; i < r->overlaps.n; i++) {
        const sts_host_overlap *o = &r->overlaps.v[i];
        put_s(w, o->name);
        put_s(w, o->parent);
        put_s(w, o->pid);
        put_s(w, o->tid);
        put_i(w, o->ts_ns);
        put_i(w, o->dur_ns);
        put_i(w, o->parent_ts_ns);
        put_i(w, o->parent_dur_ns);
        put_i(w, o->overrun_ns);
    }
    put_u(w, r->warnings.n);
    for (size_t i = 0; i < r->warnings.n; i++)
        put_s(w, r->warnings.v[i]);
    put_steps(w, r);
    put_dsteps(w, r);
    put_msteps(w, r);
    put_mdevs(w, r);
    put_colls(w, r);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Values sorted, so equal records give equal bytes whatever order they were read in. */
static void put_name(wbuf *w, const sts_name_rec *r, int values)
{
    const sts_host_name *p = &r->pub;
    put_s(w, p->name);
    put_u(w, p->count);
    put_i(w, p->total_ns);
    put_i(w, p->self_ns);
    put_i(w, p->min_ns);
    put_i(w, p->max_ns);
    put_u(w, (uint64_t)r->median_set);
    put_i(w, p->median_ns);
    int with = values && r->has_values;
    put_u(w, (uint64_t)with);
    if (!with) return;
    put_u(w, r->values.n);
    int64_t *v = r->values.n ? malloc(r->values.n * sizeof *v) : NULL;
    if (r->values.n && !v) {
        w->bad = 1;
        return;
    }
    if (v) memcpy(v, r->values.v, r->values.n * sizeof *v);
    if (r->values.n > 1) qsort(v, r->values.n, sizeof *v, cmp_i64);
    for (size_t i = 0; i < r->values.n; i++)
        put_i(w, v[i]);
    free(v);
}

static int cmp_name_rec(const void *a, const void *b)
{
    const sts_name_rec *const *x = a, *const *y = b;
    return strcmp((*x)->pub.name, (*y)->pub.name);
}

sts_status sts_hosts_serialize(const sts_hosts *h, int values, void **buf, size_t *len, sts_error *err)
{
    *buf = NULL;
    *len = 0;
    wbuf w = { { NULL, 0, 0 }, 0 };
    put_bytes(&w, MAGIC, sizeof MAGIC);
    put_u(&w, VERSION);
    put_u(&w, h->hosts.n);
    for (size_t i = 0; i < h->hosts.n; i++)
        put_host(&w, h->hosts.v[i]);
    /* Names in byte order: the same records give the same bytes. */
    const sts_name_rec **order = malloc((h->names.n ? h->names.n : 1) * sizeof *order);
    if (!order) w.bad = 1;
    for (size_t i = 0; order && i < h->names.n; i++)
        order[i] = &h->names.v[i];
    if (order && h->names.n > 1) qsort(order, h->names.n, sizeof *order, cmp_name_rec);
    put_u(&w, h->names.n);
    for (size_t i = 0; order && i < h->names.n; i++)
        put_name(&w, order[i], values);
    free(order);
    if (w.bad) {
        STS_VEC_RELEASE(w.b);
        return sts_hosts_nomem(err);
    }
    *buf = w.b.v;
    *len = w.b.n;
    return STS_OK;
}

/* ---- reading ---------------------------------------------------------------------------- */

typedef struct rbuf {
    const unsigned char *p;
    size_t n, at;
    int bad;          /* malformed */
    const char *what; /* what was being read when it went bad */
    size_t bad_at;
    int nomem;
} rbuf;

static void malformed(rbuf *r, const char *what)
{
    if (r->bad) return;
    r->bad = 1;
    r->what = what;
    r->bad_at = r->at;
}

static uint64_t get_u(rbuf *r, const char *what)
{
    uint64_t v = 0;
    for (int shift = 0; !r->bad; shift += 7) {
        if (r->at >= r->n || shift > 63) {
            malformed(r, what);
            break;
        }
        unsigned char c = r->p[r->at++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) return v;
    }
    return 0;
}

static int64_t get_i(rbuf *r, const char *what)
{
    uint64_t u = get_u(r, what);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* A count of items each at least `min_bytes` long: never more than the bytes left. */
static size_t get_n(rbuf *r, size_t min_bytes, const char *what)
{
    uint64_t n = get_u(r, what);
    if (r->bad) return 0;
    if (n > (r->n - r->at) / (min_bytes ? min_bytes : 1)) {
        malformed(r, what);
        return 0;
    }
    return (size_t)n;
}

static const char *get_s(rbuf *r, sts_host_rec *rec, sts_strtab *tab, const char *what)
{
    if (!get_u(r, what) || r->bad) return NULL;
    size_t n = get_n(r, 1, what);
    if (r->bad) return NULL;
    if (memchr(r->p + r->at, 0, n)) { /* written from C strings: a NUL would not survive */
        malformed(r, what);
        return NULL;
    }
    uint32_t id = sts_strtab_intern(rec ? &rec->str : tab, (const char *)r->p + r->at, n);
    if (id == UINT32_MAX) {
        r->nomem = 1;
        malformed(r, what);
        return NULL;
    }
    r->at += n;
    return sts_strtab_get(rec ? &rec->str : tab, id);
}

static const char *get_str(rbuf *r, sts_host_rec *rec, const char *what)
{
    const char *s = get_s(r, rec, NULL, what);
    return s ? s : "";
}

static void get_busy(rbuf *r, sts_busy *b)
{
    b->slices = get_u(r, "busy");
    b->union_ns = get_i(r, "busy");
    b->start_ns = get_i(r, "busy");
    b->end_ns = get_i(r, "busy");
    b->span_ns = get_i(r, "busy");
}

static void get_info(rbuf *r, sts_host_rec *rec)
{
    sts_host_info *in = &rec->info;
    in->index = (size_t)get_u(r, "host index");
    in->name = get_str(r, rec, "host name");
    in->path = get_str(r, rec, "host path");
    in->format = get_str(r, rec, "format");
    in->meta_host = get_s(r, rec, NULL, "meta host");
    in->bytes = get_u(r, "bytes");
    in->compressed = get_u(r, "compressed") != 0;
    in->truncated = get_u(r, "truncated") != 0;
    in->events = get_u(r, "events");
    size_t phases = get_n(r, 2, "phases");
    for (size_t i = 0; i < phases && !r->bad; i++) {
        uint64_t c = get_u(r, "phase");
        uint64_t v = get_u(r, "phase count");
        if (c >= 128)
            malformed(r, "phase");
        else
            in->by_phase[c] = v;
    }
    uint64_t *counts[] = { &in->skipped,        &in->rejected,  &in->clamped, &in->overlaps, &in->unmatched_end,
                           &in->unclosed_begin, &in->processes, &in->lanes,   &in->slices,   &in->instants,
                           &in->counters,       &in->asyncs,    &in->flows,   &in->args,     &in->warnings_total };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        *counts[i] = get_u(r, "host counts");
    in->resolution_ns = get_i(r, "resolution");
    in->ts_min = get_i(r, "ts_min");
    in->ts_max = get_i(r, "ts_max");
    get_busy(r, &in->busy);
}

#define GET_VEC(r, vec, min_bytes, what)                                \
    do {                                                                \
        size_t n_ = get_n(r, min_bytes, what);                          \
        if (!(r)->bad && STS_VEC_RESERVE(vec, n_) != 0) (r)->nomem = 1; \
        if ((r)->nomem) malformed(r, what);                             \
        if (!(r)->bad && n_) memset((vec).v, 0, n_ * sizeof *(vec).v);  \
        if (!(r)->bad) (vec).n = n_;                                    \
    } while (0)

/* What a record made from a trace holds (its times fit int64 ns, checked when read), so
 * the alignment's sums and differences cannot overflow: a step's breakdown inside its
 * duration, device times unknown (-1) together or inside the step, nothing negative,
 * and each host's step durations adding up within int64. */
static void check_step_values(rbuf *r, const sts_host_rec *rec)
{
    int64_t total = 0, end;
    for (size_t i = 0; i < rec->steps.n && !r->bad; i++) {
        const sts_host_step *s = &rec->steps.v[i];
        int dev_unknown = s->device_busy_ns == -1 && s->collective_ns == -1;
        int dev_ok = dev_unknown || (s->device_busy_ns >= 0 && s->collective_ns >= 0 &&
                                     s->collective_ns <= s->device_busy_ns && s->device_busy_ns <= s->dur_ns);
        if (s->dur_ns < 0 || __builtin_add_overflow(s->ts_ns, s->dur_ns, &end) || s->children_ns < 0 ||
            s->children_ns > s->dur_ns || s->unattributed_ns != s->dur_ns - s->children_ns || !dev_ok ||
            __builtin_add_overflow(total, s->dur_ns, &total))
            malformed(r, "a step's times (negative, past its duration, or past int64 in all)");
    }
    for (size_t i = 0; i < rec->children.n && !r->bad; i++)
        if (rec->children.v[i].total_ns < 0) malformed(r, "a child's time (negative)");
    for (size_t i = 0; i < rec->colls.n && !r->bad; i++)
        if (rec->colls.v[i].ns < 0) malformed(r, "a collective's time (negative)");
}

static void get_steps(rbuf *r, sts_host_rec *rec)
{
    rec->has_steps = get_u(r, "has steps") != 0;
    if (!rec->has_steps || r->bad) return;
    sts_host_steps_info *in = &rec->steps_info;
    uint64_t rule = get_u(r, "step rule");
    if (rule > STS_STEP_RULE_REPEATED) malformed(r, "step rule");
    in->rule = (sts_step_rule)rule;
    in->pid = get_s(r, rec, NULL, "steps pid");
    in->tid = get_s(r, rec, NULL, "steps tid");
    in->process = get_s(r, rec, NULL, "steps process");
    in->thread = get_s(r, rec, NULL, "steps thread");
    in->other_lanes = (size_t)get_u(r, "other lanes");
    in->device_lanes = (size_t)get_u(r, "device lanes");
    in->duplicates = (size_t)get_u(r, "duplicates");
    GET_VEC(r, rec->tried, 1, "tried");
    for (size_t i = 0; i < rec->tried.n && !r->bad; i++)
        rec->tried.v[i] = get_str(r, rec, "tried");
    in->tried = rec->tried.v;
    in->ntried = rec->tried.n;
    GET_VEC(r, rec->steps, 11, "steps");
    for (size_t i = 0; i < rec->steps.n && !r->bad; i++) {
        sts_host_step *s = &rec->steps.v[i];
        s->step = get_i(r, "step");
        s->ts_ns = get_i(r, "step");
        s->dur_ns = get_i(r, "step");
        s->children_ns = get_i(r, "step");
        s->unattributed_ns = get_i(r, "step");
        s->first_child = (uint32_t)get_u(r, "step");
        s->child_count = (uint32_t)get_u(r, "step");
        s->device_busy_ns = get_i(r, "step");
        s->collective_ns = get_i(r, "step");
        s->first_collective = (uint32_t)get_u(r, "step");
        s->collective_count = (uint32_t)get_u(r, "step");
    }
    GET_VEC(r, rec->children, 3, "children");
    for (size_t i = 0; i < rec->children.n && !r->bad; i++) {
        rec->children.v[i].name = get_str(r, rec, "child");
        rec->children.v[i].count = (uint32_t)get_u(r, "child");
        rec->children.v[i].total_ns = get_i(r, "child");
    }
    GET_VEC(r, rec->colls, 2, "collectives");
    for (size_t i = 0; i < rec->colls.n && !r->bad; i++) {
        rec->colls.v[i].kind = get_str(r, rec, "collective");
        rec->colls.v[i].ns = get_i(r, "collective");
    }
    /* Ranges must stay inside their arrays: the alignment follows them. */
    for (size_t i = 0; i < rec->steps.n && !r->bad; i++) {
        const sts_host_step *s = &rec->steps.v[i];
        if ((uint64_t)s->first_child + s->child_count > rec->children.n ||
            (uint64_t)s->first_collective + s->collective_count > rec->colls.n)
            malformed(r, "a step's children or collectives out of range");
    }
    check_step_values(r, rec);
}

/* The device view's invariants (docs/device.md): what a record made from a trace holds. */
static int dstep_adds_up(const sts_host_rec *rec, const sts_host_device_step *e)
{
    const sts_devview_window *x = &e->w;
    int64_t sum = 0, excl = 0, waits = 0;
    int ok = e->step < rec->steps.n && x->window_ns == rec->steps.v[e->step].dur_ns && x->busy_ns >= 0 &&
             x->idle_ns >= 0 && !__builtin_add_overflow(x->busy_ns, x->idle_ns, &sum) && sum == x->window_ns &&
             x->overlap_ns >= 0 && x->exposed_ns >= 0 && x->queue_max >= 0 &&
             x->known <= (STS_DEVVIEW_KNOWN_IDLE_SPLIT | STS_DEVVIEW_KNOWN_QUEUE | STS_DEVVIEW_KNOWN_DELAY);
    for (int c = 0; c < STS_DV_CATEGORIES && ok; c++)
        ok = x->exclusive_ns[c] >= 0 && x->union_ns[c] >= x->exclusive_ns[c] && x->union_ns[c] <= x->busy_ns &&
             !__builtin_add_overflow(excl, x->exclusive_ns[c], &excl);
    for (int d = 0; d < STS_DV_DIRECTIONS && ok; d++)
        ok = x->memcpy_ns[d] >= 0 && x->memcpy_ns[d] <= x->union_ns[STS_DV_MEMCPY];
    return ok && excl == x->busy_ns && x->host_wait_ns >= 0 && x->kernel_wait_ns >= 0 && x->other_idle_ns >= 0 &&
           x->host_wait_ns <= x->idle_ns && x->kernel_wait_ns <= x->idle_ns &&
           !__builtin_add_overflow(x->host_wait_ns, x->kernel_wait_ns, &waits) && waits <= x->idle_ns &&
           waits + x->other_idle_ns == x->idle_ns;
}

static void get_dsteps(rbuf *r, sts_host_rec *rec)
{
    GET_VEC(r, rec->dsteps, 32, "device steps");
    for (size_t i = 0; i < rec->dsteps.n && !r->bad; i++) {
        sts_host_device_step *e = &rec->dsteps.v[i];
        sts_devview_window *x = &e->w;
        e->step = (uint32_t)get_u(r, "device step");
        e->device = get_str(r, rec, "device step");
        e->pid = get_str(r, rec, "device step");
        e->process = get_str(r, rec, "device step");
        x->device = (uint32_t)get_u(r, "device step");
        x->step = (uint32_t)get_u(r, "device step");
        x->known = (uint32_t)get_u(r, "device step");
        int64_t *v[] = DSTEP_I64S(x);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            *v[k] = get_i(r, "device step");
        for (int c = 0; c < STS_DV_CATEGORIES; c++) {
            x->union_ns[c] = get_i(r, "device step");
            x->exclusive_ns[c] = get_i(r, "device step");
        }
        for (int d = 0; d < STS_DV_DIRECTIONS; d++)
            x->memcpy_ns[d] = get_i(r, "device step");
        x->matched = get_u(r, "device step");
        x->unmatched = get_u(r, "device step");
        uint64_t q = get_u(r, "device step");
        memcpy(&x->queue_mean, &q, sizeof q);
        if (!r->bad && !dstep_adds_up(rec, e)) malformed(r, "a device step (its times do not add up to its step)");
    }
}

/* docs/memory.md's invariants, which a record made from a trace holds: bytes known or
 * -1, the peak at least the start and the end, the live allocations at a peak (with
 * what the capture never saw allocated) adding up to it, entries in step order. */
static int mstep_adds_up(const sts_host_rec *rec, const sts_host_memory_step *m, uint32_t prev_step)
{
    const sts_memory_step *e = &m->e;
    const int64_t v[] = { e->start_bytes,     e->end_bytes,   e->peak_bytes,
                          e->allocated_bytes, e->freed_bytes, e->untracked_bytes };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if (v[k] < -1) return 0;
    if (m->step >= rec->steps.n || m->step < prev_step) return 0;
    if ((uint64_t)e->first_live + e->live_count > rec->mlives.n) return 0;
    if (e->peak_bytes >= 0 && ((e->start_bytes >= 0 && e->peak_bytes < e->start_bytes) ||
                               (e->end_bytes >= 0 && e->peak_bytes < e->end_bytes)))
        return 0;
    if (!m->has_addrs || e->peak_bytes < 0 || e->untracked_bytes < 0) return 1;
    int64_t sum = e->untracked_bytes;
    for (uint32_t i = e->first_live; i < e->first_live + e->live_count; i++)
        if (rec->mlives.v[i].bytes < 0 || __builtin_add_overflow(sum, rec->mlives.v[i].bytes, &sum)) return 0;
    return sum == e->peak_bytes;
}

static void get_msteps(rbuf *r, sts_host_rec *rec)
{
    rec->memory_asked = get_u(r, "memory asked") != 0;
    GET_VEC(r, rec->msteps, 17, "memory steps");
    for (size_t i = 0; i < rec->msteps.n && !r->bad; i++) {
        sts_host_memory_step *m = &rec->msteps.v[i];
        m->step = (uint32_t)get_u(r, "memory step");
        m->device = get_str(r, rec, "memory step");
        m->has_events = get_u(r, "memory step") != 0;
        m->has_addrs = get_u(r, "memory step") != 0;
        m->e.step = (uint32_t)get_u(r, "memory step");
        m->e.device = (uint32_t)get_u(r, "memory step");
        m->e.allocations = get_u(r, "memory step");
        m->e.frees = get_u(r, "memory step");
        m->e.first_live = (uint32_t)get_u(r, "memory step");
        m->e.live_count = (uint32_t)get_u(r, "memory step");
        int64_t *v[] = MSTEP_I64S(&m->e);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            *v[k] = get_i(r, "memory step");
    }
    GET_VEC(r, rec->mlives, 4, "memory live allocations");
    for (size_t i = 0; i < rec->mlives.n && !r->bad; i++) {
        sts_memory_live *l = &rec->mlives.v[i];
        l->name = get_str(r, rec, "memory live allocation");
        l->within = get_s(r, rec, NULL, "memory live allocation");
        l->bytes = get_i(r, "memory live allocation");
        l->count = get_u(r, "memory live allocation");
    }
    /* Checked once both are read: the entries index the live allocations. */
    for (size_t i = 0; i < rec->msteps.n && !r->bad; i++)
        if (!mstep_adds_up(rec, &rec->msteps.v[i], i ? rec->msteps.v[i - 1].step : 0))
            malformed(r, "a memory step (out of range, or its bytes do not add up to its peak)");
}

/* A memory device as sts_memory_find() makes it: its ranges inside the record's arrays,
 * its points in time order, its bytes known or -1, the peak the largest point and at
 * least the start and the end, and (with addresses) live + untracked = peak. */
static int mdev_adds_up(const sts_host_rec *rec, const sts_memory_device *d)
{
    if ((uint64_t)d->first_live + d->live_count > rec->mlives.n ||
        (uint64_t)d->first_kept + d->kept_count > rec->mlives.n ||
        (uint64_t)d->first_point + d->point_count > rec->mpoints.n)
        return 0;
    const int64_t v[] = { d->start_bytes, d->end_bytes, d->peak_bytes, d->untracked_bytes, d->kept_bytes };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if (v[k] < -1) return 0;
    /* No points: nothing to index (the vector may be NULL, where even + 0 is undefined). */
    const sts_memory_point *p = d->point_count ? rec->mpoints.v + d->first_point : NULL;
    int64_t hi = -1;
    for (uint32_t i = 0; i < d->point_count; i++) {
        if ((i && p[i].ts_ns < p[i - 1].ts_ns) || p[i].bytes < 0) return 0;
        if (p[i].bytes > hi) hi = p[i].bytes;
    }
    if (d->peak_bytes >= 0 &&
        ((d->point_count && hi != d->peak_bytes) || d->peak_bytes < d->start_bytes || d->peak_bytes < d->end_bytes))
        return 0;
    if (!d->has_addrs || d->peak_bytes < 0 || d->untracked_bytes < 0) return 1;
    int64_t sum = d->untracked_bytes;
    for (uint32_t i = d->first_live; i < d->first_live + d->live_count; i++)
        if (rec->mlives.v[i].bytes < 0 || __builtin_add_overflow(sum, rec->mlives.v[i].bytes, &sum)) return 0;
    return sum == d->peak_bytes;
}

static void get_mdevs(rbuf *r, sts_host_rec *rec)
{
    static const char *const sources[] = { "kineto", "xspace", "counter" };
    GET_VEC(r, rec->mdevs, 33, "memory devices");
    for (size_t i = 0; i < rec->mdevs.n && !r->bad; i++) {
        sts_memory_device *d = &rec->mdevs.v[i];
        d->name = get_str(r, rec, "memory device");
        const char *src = get_str(r, rec, "memory device");
        d->source = NULL;
        for (size_t k = 0; k < sizeof sources / sizeof sources[0]; k++)
            if (strcmp(src, sources[k]) == 0) d->source = sources[k];
        if (!d->source) malformed(r, "a memory device's source");
        int *flags[] = { &d->has_totals, &d->has_addrs, &d->has_events, &d->leak_suspect };
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            *flags[k] = get_u(r, "memory device") != 0;
        uint64_t *u[] = MDEV_U64S(d);
        for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
            *u[k] = get_u(r, "memory device");
        int64_t *v[] = MDEV_I64S(d);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            *v[k] = get_i(r, "memory device");
        uint32_t *x[] = MDEV_U32S(d);
        for (size_t k = 0; k < sizeof x / sizeof x[0]; k++) {
            uint64_t q = get_u(r, "memory device");
            if (q > UINT32_MAX) malformed(r, "a memory device's range");
            *x[k] = (uint32_t)q;
        }
    }
    GET_VEC(r, rec->mpoints, 2, "memory points");
    for (size_t i = 0; i < rec->mpoints.n && !r->bad; i++) {
        rec->mpoints.v[i].ts_ns = get_i(r, "memory point");
        rec->mpoints.v[i].bytes = get_i(r, "memory point");
    }
    GET_VEC(r, rec->mwarnings, 1, "memory warnings");
    for (size_t i = 0; i < rec->mwarnings.n && !r->bad; i++)
        rec->mwarnings.v[i] = get_str(r, rec, "memory warning");
    for (size_t i = 0; i < rec->mdevs.n && !r->bad; i++)
        if (!mdev_adds_up(rec, &rec->mdevs.v[i]))
            malformed(r, "a memory device (out of range, or its bytes do not add up to its peak)");
}

/* What hcoll.c makes of a trace: strings present, a non-negative duration within int64,
 * unknowns -1, children's time before the start within the op's step and in range. */
static int cop_ok(const sts_host_rec *rec, const sts_host_coll_op *o)
{
    int64_t end;
    if (!o->device || !o->kind || !o->name || o->end_ns < o->ts_ns ||
        __builtin_sub_overflow(o->end_ns, o->ts_ns, &end) || o->seq < -1 || o->in_nelems < -1 || o->out_nelems < -1 ||
        o->group_size < -1 || (o->in_step != 0 && o->in_step != 1) ||
        (uint64_t)o->first_pre + o->pre_count > rec->cpre.n || (!o->in_step && o->pre_count))
        return 0;
    for (uint32_t k = o->first_pre; k < o->first_pre + o->pre_count; k++)
        if (rec->cpre.v[k].total_ns < 0 || !rec->cpre.v[k].name) return 0;
    return 1;
}

static void get_colls(rbuf *r, sts_host_rec *rec)
{
    uint64_t has = get_u(r, "has collectives");
    if (has > 2) malformed(r, "a collectives flag (0, 1 or 2)");
    rec->has_colls = (int)has;
    if (!rec->has_colls || r->bad) return;
    rec->colls_nested = get_u(r, "nested collectives");
    rec->colls_unpaired = get_u(r, "unpaired collective calls");
    GET_VEC(r, rec->cops, 15, "collective ops");
    for (size_t i = 0; i < rec->cops.n && !r->bad; i++) {
        sts_host_coll_op *o = &rec->cops.v[i];
        o->device = get_s(r, rec, NULL, "collective op");
        o->kind = get_s(r, rec, NULL, "collective op");
        o->name = get_s(r, rec, NULL, "collective op");
        o->group = get_s(r, rec, NULL, "collective op");
        o->dtype = get_s(r, rec, NULL, "collective op");
        int64_t *v[] = COP_I64S(o);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            *v[k] = get_i(r, "collective op");
        o->first_pre = (uint32_t)get_u(r, "collective op");
        o->pre_count = (uint32_t)get_u(r, "collective op");
    }
    GET_VEC(r, rec->cpre, 3, "collective ops' steps");
    for (size_t i = 0; i < rec->cpre.n && !r->bad; i++) {
        rec->cpre.v[i].name = get_s(r, rec, NULL, "collective op's step");
        rec->cpre.v[i].count = (uint32_t)get_u(r, "collective op's step");
        rec->cpre.v[i].total_ns = get_i(r, "collective op's step");
    }
    for (size_t i = 0; i < rec->cops.n && !r->bad; i++)
        if (!cop_ok(rec, &rec->cops.v[i])) malformed(r, "a collective op (times, unknowns or its step out of range)");
}

static sts_host_rec *get_host(rbuf *r)
{
    sts_host_rec *rec = sts_host_rec_new();
    if (!rec) {
        r->nomem = 1;
        malformed(r, "host");
        return NULL;
    }
    get_info(r, rec);
    GET_VEC(r, rec->lanes, 9, "lanes");
    for (size_t i = 0; i < rec->lanes.n && !r->bad; i++) {
        sts_host_lane *l = &rec->lanes.v[i];
        l->pid = get_str(r, rec, "lane");
        l->tid = get_str(r, rec, "lane");
        l->process = get_str(r, rec, "lane");
        l->thread = get_str(r, rec, "lane");
        l->device = get_u(r, "lane") != 0;
        get_busy(r, &l->busy);
    }
    GET_VEC(r, rec->procs, 7, "processes");
    for (size_t i = 0; i < rec->procs.n && !r->bad; i++) {
        rec->procs.v[i].pid = get_str(r, rec, "process");
        rec->procs.v[i].name = get_str(r, rec, "process");
        get_busy(r, &rec->procs.v[i].busy);
    }
    GET_VEC(r, rec->overlaps, 9, "overlaps");
    for (size_t i = 0; i < rec->overlaps.n && !r->bad; i++) {
        sts_host_overlap *o = &rec->overlaps.v[i];
        o->name = get_str(r, rec, "overlap");
        o->parent = get_str(r, rec, "overlap");
        o->pid = get_str(r, rec, "overlap");
        o->tid = get_str(r, rec, "overlap");
        o->ts_ns = get_i(r, "overlap");
        o->dur_ns = get_i(r, "overlap");
        o->parent_ts_ns = get_i(r, "overlap");
        o->parent_dur_ns = get_i(r, "overlap");
        o->overrun_ns = get_i(r, "overlap");
    }
    GET_VEC(r, rec->warnings, 1, "warnings");
    for (size_t i = 0; i < rec->warnings.n && !r->bad; i++)
        rec->warnings.v[i] = get_str(r, rec, "warning");
    get_steps(r, rec);
    get_dsteps(r, rec);
    get_msteps(r, rec);
    get_mdevs(r, rec);
    get_colls(r, rec);
    if (r->bad) {
        sts_host_rec_free(rec);
        return NULL;
    }
    return rec;
}

static void get_name(rbuf *r, sts_hosts *h)
{
    const char *nm = get_s(r, NULL, &h->nstr, "name");
    if (r->bad) return;
    if (!nm) nm = "";
    sts_name_rec *rec = sts_hosts_name(h, nm, strlen(nm));
    if (!rec) {
        r->nomem = 1;
        malformed(r, "name");
        return;
    }
    if (rec->pub.count) {
        malformed(r, "a name listed twice");
        return;
    }
    rec->pub.count = get_u(r, "name");
    rec->pub.total_ns = get_i(r, "name");
    rec->pub.self_ns = get_i(r, "name");
    rec->pub.min_ns = get_i(r, "name");
    rec->pub.max_ns = get_i(r, "name");
    rec->median_set = get_u(r, "name") != 0;
    rec->pub.median_ns = get_i(r, "name");
    rec->has_values = get_u(r, "name") != 0;
    if (!rec->has_values || r->bad) return;
    GET_VEC(r, rec->values, 1, "durations");
    for (size_t i = 0; i < rec->values.n && !r->bad; i++)
        rec->values.v[i] = get_i(r, "durations");
    if (!r->bad && rec->values.n != rec->pub.count) malformed(r, "durations (not one per slice)");
}

sts_status sts_hosts_deserialize(const void *buf, size_t len, sts_hosts **out, sts_error *err)
{
    *out = NULL;
    rbuf r = { buf, len, 0, 0, NULL, 0, 0 };
    if (len < sizeof MAGIC || memcmp(buf, MAGIC, sizeof MAGIC) != 0)
        return sts_error_set(err, STS_ERR_FORMAT, 0, "hosts records: byte 0: expected \"STSHOSTS\"");
    r.at = sizeof MAGIC;
    uint64_t version = get_u(&r, "version");
    if (!r.bad && version != VERSION)
        return sts_error_set(err, STS_ERR_FORMAT, (int64_t)sizeof MAGIC,
                             "hosts records: byte %zu: version %llu, expected %u (written by another stepscope?)",
                             sizeof MAGIC, (unsigned long long)version, VERSION);
    sts_hosts *h = sts_hosts_create();
    if (!h) return sts_hosts_nomem(err);
    size_t nhosts = get_n(&r, 16, "hosts");
    for (size_t i = 0; i < nhosts && !r.bad; i++) {
        sts_host_rec *rec = get_host(&r);
        if (rec && sts_hosts_insert(h, rec) != 0) {
            sts_host_rec_free(rec);
            malformed(&r, "a host listed twice");
        }
    }
    size_t nnames = get_n(&r, 9, "names");
    for (size_t i = 0; i < nnames && !r.bad; i++)
        get_name(&r, h);
    if (!r.bad && r.at != r.n) malformed(&r, "the end (bytes left over)");
    if (!r.bad && sts_hosts_refresh_view(h) != 0) r.nomem = 1, r.bad = 1;
    if (r.bad) {
        sts_hosts_free(h);
        if (r.nomem) return sts_hosts_nomem(err);
        return sts_error_set(err, STS_ERR_FORMAT, (int64_t)r.bad_at, "hosts records: byte %zu: malformed %s", r.bad_at,
                             r.what);
    }
    *out = h;
    return STS_OK;
}
