/* Device memory over time (stepscope/memory.h): the allocation events of each device in
 * time order, the bytes in use the trace states after each, peaks overall and per step,
 * and the allocations live at each peak, found by replaying allocations and frees by
 * address once, in time order, stopping at every moment a peak or a step end asks about.
 *
 * Numbers come from the trace's totals only. A sum of our own would be wrong whenever
 * the capture began after some allocations (every real trace): their frees are counted
 * as unmatched and their bytes show as untracked at a peak, never subtracted twice. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/search.h"
#include "base/vec.h"
#include "stepscope/memory.h"

#define UNKNOWN  (-1)
#define NO_TOTAL INT64_MIN

/* One allocation event (or counter sample). */
typedef struct mev {
    int64_t ts;
    int64_t delta; /* > 0 allocated, < 0 freed; 0 for a counter sample */
    int64_t total; /* in use after it; NO_TOTAL when the trace does not say */
    uint64_t addr;
    uint32_t dev;
    uint32_t seq; /* slice (or counter) index: ties in ts keep the trace's order */
    int has_addr;
    const char *name, *within;
} mev;

typedef struct devkey {
    char *name;
    const char *source;
} devkey;

typedef STS_VEC(devkey) devkeys;

/* What a snapshot of the live allocations is for. */
enum { SNAP_DEVICE, SNAP_STEP, SNAP_KEPT };

typedef struct snap {
    int64_t after;          /* the position (in the device's events) after which it is taken; -1: before any */
    int what;               /* SNAP_* */
    uint32_t index;         /* device or step entry */
    int64_t from_ts, to_ts; /* SNAP_KEPT: only allocations made in [from_ts, to_ts) */
} snap;

struct sts_memory {
    STS_VEC(sts_memory_device) devices;
    STS_VEC(sts_memory_point) points;
    STS_VEC(sts_memory_live) lives;
    STS_VEC(sts_memory_step) steps;
    STS_VEC(char *) warnings;
    STS_VEC(char *) names;
    size_t nsteps;
    size_t ndev; /* devices in all (the stride of steps), known before any is filled */
};

void sts_memory_free(sts_memory *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->warnings.n; i++)
        free(m->warnings.v[i]);
    for (size_t i = 0; i < m->names.n; i++)
        free(m->names.v[i]);
    STS_VEC_RELEASE(m->devices);
    STS_VEC_RELEASE(m->points);
    STS_VEC_RELEASE(m->lives);
    STS_VEC_RELEASE(m->steps);
    STS_VEC_RELEASE(m->warnings);
    STS_VEC_RELEASE(m->names);
    free(m);
}

const sts_memory_device *sts_memory_devices(const sts_memory *m, size_t *n)
{
    if (n) *n = m->devices.n;
    return m->devices.v;
}

const sts_memory_point *sts_memory_points(const sts_memory *m, size_t *n)
{
    if (n) *n = m->points.n;
    return m->points.v;
}

const sts_memory_live *sts_memory_lives(const sts_memory *m, size_t *n)
{
    if (n) *n = m->lives.n;
    return m->lives.v;
}

const sts_memory_step *sts_memory_steps(const sts_memory *m, size_t *n)
{
    if (n) *n = m->steps.n;
    return m->steps.v;
}

const sts_memory_step *sts_memory_step_entries(const sts_memory *m, size_t k, size_t *n)
{
    if (k >= m->nsteps || !m->devices.n) {
        if (n) *n = 0;
        return NULL;
    }
    if (n) *n = m->devices.n;
    return m->steps.v + k * m->devices.n;
}

const char *const *sts_memory_warnings(const sts_memory *m, size_t *n)
{
    if (n) *n = m->warnings.n;
    return (const char *const *)m->warnings.v;
}

/* ---- reading the events ---------------------------------------------------------------- */

/* An integer arg: ints as they are, doubles when whole and in range. */
static int arg_i64(const sts_timeline *tl, uint32_t args, const char *key, int64_t *v)
{
    const sts_arg *a = sts_timeline_find_arg(tl, args, key);
    if (!a) return 0;
    if (a->type == STS_ARG_INT) {
        *v = a->v.i;
        return 1;
    }
    if (a->type == STS_ARG_DOUBLE && isfinite(a->v.d) && a->v.d == floor(a->v.d) && fabs(a->v.d) < 9.2e18) {
        *v = (int64_t)a->v.d;
        return 1;
    }
    return -1; /* present but not a number */
}

static const char *arg_str(const sts_timeline *tl, uint32_t args, const char *key)
{
    const sts_arg *a = sts_timeline_find_arg(tl, args, key);
    if (!a || a->type != STS_ARG_STRING) return NULL;
    const char *s = sts_timeline_string(tl, a->v.str);
    return s && *s ? s : NULL;
}

static int dev_index(devkeys *keys, const char *name, const char *source, uint32_t *out)
{
    for (size_t i = 0; i < keys->n; i++)
        if (keys->v[i].source == source && strcmp(keys->v[i].name, name) == 0) {
            *out = (uint32_t)i;
            return 0;
        }
    devkey *k = STS_VEC_PUSH(*keys);
    if (!k) return -1;
    k->name = strdup(name);
    k->source = source;
    if (!k->name) {
        keys->n--;
        return -1;
    }
    *out = (uint32_t)(keys->n - 1);
    return 0;
}

/* c10::DeviceType, as Kineto writes "Device Type". */
static void kineto_device(int have_type, int64_t type, int have_id, int64_t id, char *buf, size_t n)
{
    static const char *const types[] = { "cpu",  "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",
                                         "fpga", "maia", "xla",    "vulkan", "metal",  "xpu",   "mps",
                                         "meta", "hpu",  "ve",     "lazy",   "ipu",    "mtia",  "privateuseone" };
    if (have_type != 1) {
        snprintf(buf, n, "unknown device");
        return;
    }
    char tname[40];
    if (type >= 0 && type < (int64_t)(sizeof types / sizeof types[0]))
        snprintf(tname, sizeof tname, "%s", types[type]);
    else
        snprintf(tname, sizeof tname, "device type %lld", (long long)type);
    if (have_id == 1 && id >= 0 && type != 0)
        snprintf(buf, n, "%s:%lld", tname, (long long)id);
    else
        snprintf(buf, n, "%s", tname);
}

typedef struct reader {
    const sts_timeline *tl;
    const sts_slice *s;
    const unsigned char *is_step; /* per slice: a step of opt->steps */
    STS_VEC(mev) ev;
    devkeys keys;
    uint64_t *bad_events; /* per device key, grown with keys */
    size_t nbad;
} reader;

/* The slice that made an allocation event, and the outermost non-step slice holding it. */
static void attribute(reader *r, const sts_slice *e, mev *m)
{
    m->name = NULL;
    m->within = NULL;
    uint32_t p = e->parent, outer = STS_NONE;
    if (p != STS_NONE) m->name = sts_timeline_string(r->tl, r->s[p].name);
    for (uint32_t q = p; q != STS_NONE; q = r->s[q].parent)
        if (!r->is_step || !r->is_step[q]) outer = q;
    if (outer != STS_NONE && outer != p) m->within = sts_timeline_string(r->tl, r->s[outer].name);
    if (!m->name) m->name = "(outside any slice)";
}

static int note_bad(reader *r, uint32_t dev)
{
    if (dev >= r->nbad) {
        size_t n = r->keys.n + 8;
        uint64_t *b = realloc(r->bad_events, n * sizeof *b);
        if (!b) return -1;
        memset(b + r->nbad, 0, (n - r->nbad) * sizeof *b);
        r->bad_events = b;
        r->nbad = n;
    }
    r->bad_events[dev]++;
    return 0;
}

static int read_kineto(reader *r, uint32_t i)
{
    const sts_slice *e = &r->s[i];
    int64_t type = 0, id = 0, bytes = 0, total = 0, addr = 0;
    int ht = arg_i64(r->tl, e->args, "Device Type", &type), hi = arg_i64(r->tl, e->args, "Device Id", &id);
    char name[64];
    kineto_device(ht, type, hi, id, name, sizeof name);
    uint32_t dev;
    if (dev_index(&r->keys, name, "kineto", &dev) != 0) return -1;
    if (arg_i64(r->tl, e->args, "Bytes", &bytes) != 1) return note_bad(r, dev);
    mev *m = STS_VEC_PUSH(r->ev);
    if (!m) return -1;
    m->ts = e->ts;
    m->delta = bytes;
    int htot = arg_i64(r->tl, e->args, "Total Allocated", &total);
    m->total = htot == 1 ? total : htot == -1 ? -1 : NO_TOTAL; /* not a number: a bad total */
    m->has_addr = arg_i64(r->tl, e->args, "Addr", &addr) == 1;
    m->addr = (uint64_t)addr;
    m->dev = dev;
    m->seq = i;
    attribute(r, e, m);
    return 0;
}

static int read_xspace(reader *r, uint32_t i, int is_free)
{
    const sts_slice *e = &r->s[i];
    const char *alloc = arg_str(r->tl, e->args, "allocator_name");
    uint32_t dev;
    if (dev_index(&r->keys, alloc ? alloc : "unknown allocator", "xspace", &dev) != 0) return -1;
    int64_t bytes = 0, total = 0, addr = 0;
    if (arg_i64(r->tl, e->args, "allocation_bytes", &bytes) != 1 || bytes < 0) return note_bad(r, dev);
    mev *m = STS_VEC_PUSH(r->ev);
    if (!m) return -1;
    m->ts = e->ts;
    m->delta = is_free ? -bytes : bytes;
    int htot = arg_i64(r->tl, e->args, "bytes_allocated", &total);
    m->total = htot == 1 ? total : htot == -1 ? -1 : NO_TOTAL;
    m->has_addr = arg_i64(r->tl, e->args, "addr", &addr) == 1;
    m->addr = (uint64_t)addr;
    m->dev = dev;
    m->seq = i;
    attribute(r, e, m);
    const char *op = arg_str(r->tl, e->args, "tf_op");
    if (op) m->name = op;
    return 0;
}

static int contains_ci(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++) {
        size_t k = 0;
        while (k < n && s[k] && (s[k] | 0x20) == word[k])
            k++;
        if (k == n) return 1;
    }
    return 0;
}

static int memory_words(const char *s)
{
    static const char *const words[] = { "memory", "allocated", "bytes in use", "bytes_in_use", "hbm" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (contains_ci(s, words[i])) return 1;
    return 0;
}

static int read_counters(reader *r)
{
    size_t nc;
    const sts_counter *c = sts_timeline_counters(r->tl, &nc);
    for (size_t i = 0; i < nc; i++) {
        const char *name = sts_timeline_string(r->tl, c[i].name);
        const char *series = sts_timeline_string(r->tl, c[i].series);
        if (!memory_words(name) && !memory_words(series)) continue;
        char dn[256];
        const char *id = c[i].id ? sts_timeline_string(r->tl, c[i].id) : "";
        snprintf(dn, sizeof dn, "%s%s%s%s%s", name, *id ? " id: " : "", id, *series ? " " : "", series);
        uint32_t dev;
        if (dev_index(&r->keys, dn, "counter", &dev) != 0) return -1;
        mev *m = STS_VEC_PUSH(r->ev);
        if (!m) return -1;
        memset(m, 0, sizeof *m);
        m->ts = c[i].ts;
        m->total = isfinite(c[i].value) && fabs(c[i].value) < 9.2e18 ? (int64_t)llround(c[i].value) : -1;
        m->dev = dev;
        m->seq = (uint32_t)i;
    }
    return 0;
}

/* ---- per device ------------------------------------------------------------------------- */

static uint32_t *g_rank; /* qsort has no context: the device ranks while sorting */

static int cmp_mev(const void *a, const void *b)
{
    const mev *x = a, *y = b;
    if (x->dev != y->dev) return g_rank[x->dev] < g_rank[y->dev] ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

typedef struct live_item {
    const char *name, *within;
    int64_t bytes;
} live_item;

static int cmp_item_names(const void *a, const void *b)
{
    const live_item *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    if (!x->within || !y->within) return (x->within != NULL) - (y->within != NULL);
    return strcmp(x->within, y->within);
}

static int cmp_live(const void *a, const void *b)
{
    const sts_memory_live *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    if (!x->within || !y->within) return (x->within != NULL) - (y->within != NULL);
    return strcmp(x->within, y->within);
}

static int cmp_snap(const void *a, const void *b)
{
    const snap *x = a, *y = b;
    if (x->after != y->after) return x->after < y->after ? -1 : 1;
    if (x->what != y->what) return x->what < y->what ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

typedef struct device_ctx {
    sts_memory *m;
    const mev *e;
    size_t n;
    const sts_memory_options *opt;
    int64_t *after; /* per event: in use after it, -1 unknown */
    STS_VEC(snap) snaps;
    /* the replay */
    sts_u64map where; /* addr + 1 -> event index, or DEAD */
    uint32_t *live;   /* event indices of the live allocations */
    uint32_t *pos;    /* per event: its place in live */
    size_t nlive;
    live_item *items;
} device_ctx;

#define DEAD (UINT32_MAX - 1)

/* Groups the live allocations (those made in [from, to) when from < to) into lives;
 * returns the bytes of all of them. */
static int64_t take_snapshot(device_ctx *d, int64_t from, int64_t to, uint32_t *first, uint32_t *count, int *bad)
{
    size_t k = 0;
    int64_t sum = 0;
    for (size_t i = 0; i < d->nlive; i++) {
        const mev *a = &d->e[d->live[i]];
        if (from < to && (a->ts < from || a->ts >= to)) continue;
        d->items[k++] = (live_item){ a->name, a->within, a->delta };
        sum += a->delta;
    }
    if (k > 1) qsort(d->items, k, sizeof *d->items, cmp_item_names);
    size_t at = d->m->lives.n;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        sts_memory_live g = { d->items[i].name, d->items[i].within, 0, 0 };
        while (j < k && cmp_item_names(&d->items[j], &d->items[i]) == 0)
            g.bytes += d->items[j].bytes, g.count++, j++;
        sts_memory_live *slot = STS_VEC_PUSH(d->m->lives);
        if (!slot) {
            *bad = 1;
            return 0;
        }
        *slot = g;
        i = j;
    }
    size_t groups = d->m->lives.n - at;
    if (groups > 1) qsort(d->m->lives.v + at, groups, sizeof *d->m->lives.v, cmp_live);
    size_t keep = d->opt->top && groups > d->opt->top ? d->opt->top : groups;
    d->m->lives.n = at + keep;
    *first = (uint32_t)at;
    *count = (uint32_t)keep;
    return sum;
}

static int64_t untracked(int64_t total, int64_t tracked)
{
    return total < 0 || tracked > total ? UNKNOWN : total - tracked;
}

static void run_snapshot(device_ctx *d, const snap *sn, sts_memory_device *dv, int *bad)
{
    if (sn->what == SNAP_DEVICE) {
        int64_t t = take_snapshot(d, 0, 0, &dv->first_live, &dv->live_count, bad);
        dv->untracked_bytes = untracked(dv->peak_bytes, t);
    } else if (sn->what == SNAP_STEP) {
        sts_memory_step *st = &d->m->steps.v[sn->index];
        int64_t t = take_snapshot(d, 0, 0, &st->first_live, &st->live_count, bad);
        st->untracked_bytes = untracked(st->peak_bytes, t);
    } else {
        dv->kept_bytes = take_snapshot(d, sn->from_ts, sn->to_ts, &dv->first_kept, &dv->kept_count, bad);
    }
}

static void live_remove(device_ctx *d, uint32_t j)
{
    uint32_t p = d->pos[j], last = d->live[--d->nlive];
    d->live[p] = last;
    d->pos[last] = p;
}

/* Replays allocations and frees, taking each snapshot at its moment. */
static int replay(device_ctx *d, sts_memory_device *dv)
{
    int bad = 0;
    if (d->snaps.n > 1) qsort(d->snaps.v, d->snaps.n, sizeof *d->snaps.v, cmp_snap);
    d->live = malloc((d->n ? d->n : 1) * sizeof *d->live);
    d->pos = malloc((d->n ? d->n : 1) * sizeof *d->pos);
    d->items = malloc((d->n ? d->n : 1) * sizeof *d->items);
    if (!d->live || !d->pos || !d->items) return -1;
    size_t s = 0;
    for (int64_t j = -1; j < (int64_t)d->n && !bad; j++) {
        if (j >= 0) {
            const mev *a = &d->e[j];
            uint64_t key = a->addr + 1 ? a->addr + 1 : 1;
            uint32_t was = sts_u64map_get(&d->where, key);
            if (a->delta > 0) {
                if (was != UINT32_MAX && was != DEAD) {
                    dv->reused_addrs++;
                    live_remove(d, was);
                }
                if (sts_u64map_put(&d->where, key, (uint32_t)j) != 0) return -1;
                d->pos[j] = (uint32_t)d->nlive;
                d->live[d->nlive++] = (uint32_t)j;
            } else if (a->delta < 0) {
                if (was == UINT32_MAX || was == DEAD) {
                    dv->unmatched_frees++;
                } else {
                    live_remove(d, was);
                    if (sts_u64map_put(&d->where, key, DEAD) != 0) return -1;
                }
            }
        }
        for (; s < d->snaps.n && d->snaps.v[s].after == j; s++)
            run_snapshot(d, &d->snaps.v[s], dv, &bad);
    }
    return bad ? -1 : 0;
}

static int add_snap(device_ctx *d, int64_t after, int what, uint32_t index, int64_t from, int64_t to)
{
    snap *s = STS_VEC_PUSH(d->snaps);
    if (!s) return -1;
    *s = (snap){ after, what, index, from, to };
    return 0;
}

/* The first event at or after ts. */
static size_t lower(const mev *e, size_t n, int64_t ts)
{
    size_t lo = 0, hi = n;
    STS_BISECT(size_t, lo, hi, mid, e[mid].ts < ts);
    return lo;
}

/* In use after event j (j = -1: before any). */
static int64_t in_use_after(const device_ctx *d, const sts_memory_device *dv, int64_t j)
{
    return j < 0 ? dv->start_bytes : d->after[j];
}

static int step_entry(device_ctx *d, sts_memory_device *dv, const sts_step *st, uint32_t at)
{
    sts_memory_step *x = &d->m->steps.v[at];
    size_t a = lower(d->e, d->n, st->ts), b = lower(d->e, d->n, st->ts + st->dur);
    x->start_bytes = in_use_after(d, dv, (int64_t)a - 1);
    x->end_bytes = in_use_after(d, dv, (int64_t)b - 1);
    x->peak_bytes = x->start_bytes;
    x->peak_ts_ns = st->ts;
    int64_t peak_after = (int64_t)a - 1;
    for (size_t j = a; j < b; j++) {
        const mev *e = &d->e[j];
        if (d->after[j] > x->peak_bytes) x->peak_bytes = d->after[j], x->peak_ts_ns = e->ts, peak_after = (int64_t)j;
        if (!dv->has_events) continue;
        if (e->delta > 0) x->allocations++, x->allocated_bytes += e->delta;
        if (e->delta < 0) x->frees++, x->freed_bytes -= e->delta;
    }
    x->untracked_bytes = UNKNOWN;
    if (x->peak_bytes < 0) x->peak_ts_ns = UNKNOWN;
    if (!dv->has_events) x->allocations = x->frees = 0, x->allocated_bytes = x->freed_bytes = UNKNOWN;
    if (dv->has_addrs && x->peak_bytes >= 0) return add_snap(d, peak_after, SNAP_STEP, at, 0, 0);
    return 0;
}

/* Bytes at each step's end growing: see sts_memory_device. */
static int leak_check(device_ctx *d, sts_memory_device *dv, const sts_step *st, size_t nst, uint32_t base)
{
    int64_t first = 0, prev = 0, last_end_ts = 0, first_ts = 0, last_ts = 0;
    uint32_t m = 0, grew = 0;
    int below = 0;
    for (size_t k = 0; k < nst; k++) {
        int64_t e = d->m->steps.v[base + k * d->m->ndev].end_bytes;
        if (e < 0) continue;
        if (m == 0) first = e, dv->leak_first_step = st[k].index, first_ts = st[k].ts;
        if (m > 0 && e > prev) grew++;
        if (e < first) below = 1;
        prev = e;
        dv->leak_last_step = st[k].index;
        last_ts = st[k].ts;
        last_end_ts = st[k].ts + st[k].dur;
        m++;
    }
    dv->leak_steps = m;
    dv->leak_grew = grew;
    if (m < 3) return 0;
    dv->leak_growth_bytes = prev - first;
    dv->leak_suspect = dv->leak_growth_bytes > 0 && !below && 3 * (uint64_t)grew >= 2 * (uint64_t)(m - 1);
    if (!dv->leak_suspect || !dv->has_addrs) return 0;
    return add_snap(d, (int64_t)lower(d->e, d->n, last_end_ts) - 1, SNAP_KEPT, 0, first_ts, last_ts);
}

static void totals(device_ctx *d, sts_memory_device *dv)
{
    int64_t prev = NO_TOTAL;
    dv->has_addrs = dv->has_events;
    for (size_t j = 0; j < d->n; j++) {
        const mev *e = &d->e[j];
        d->after[j] = UNKNOWN;
        if (dv->has_events) {
            if (e->delta > 0) dv->allocations++, dv->allocated_bytes += e->delta;
            if (e->delta < 0) dv->frees++, dv->freed_bytes -= e->delta;
            if (!e->has_addr && e->delta) dv->has_addrs = 0;
        }
        if (e->total == NO_TOTAL) {
            prev = NO_TOTAL;
            continue;
        }
        if (e->total < 0) {
            dv->bad_totals++;
            prev = NO_TOTAL;
            continue;
        }
        dv->has_totals = 1;
        d->after[j] = e->total;
        if (dv->has_events && prev != NO_TOTAL && e->total - prev != e->delta) dv->inconsistent_totals++;
        prev = e->total;
    }
    dv->start_bytes = d->n && d->after[0] >= 0 && (!dv->has_events || d->after[0] - d->e[0].delta >= 0)
                          ? (dv->has_events ? d->after[0] - d->e[0].delta : UNKNOWN)
                          : UNKNOWN;
    dv->end_bytes = d->n ? d->after[d->n - 1] : UNKNOWN;
    dv->peak_bytes = dv->start_bytes;
    dv->peak_ts_ns = d->n ? d->e[0].ts : UNKNOWN;
    int64_t peak_after = -1;
    for (size_t j = 0; j < d->n; j++)
        if (d->after[j] > dv->peak_bytes)
            dv->peak_bytes = d->after[j], dv->peak_ts_ns = d->e[j].ts, peak_after = (int64_t)j;
    if (dv->peak_bytes < 0) dv->peak_ts_ns = UNKNOWN;
    dv->untracked_bytes = UNKNOWN;
    dv->kept_bytes = UNKNOWN;
    dv->first_point = (uint32_t)d->m->points.n;
    d->snaps.n = 0;
    if (dv->has_addrs && dv->peak_bytes >= 0) add_snap(d, peak_after, SNAP_DEVICE, 0, 0, 0);
}

static int warn(sts_memory *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int warn(sts_memory *m, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **slot = STS_VEC_PUSH(m->warnings);
    if (!slot) return -1;
    if (!(*slot = strdup(buf))) {
        m->warnings.n--;
        return -1;
    }
    return 0;
}

static int device_warnings(sts_memory *m, const sts_memory_device *dv)
{
    char what[640] = "";
    size_t at = 0;
#define PART(cond, ...)                                                                         \
    if (cond && at < sizeof what) {                                                             \
        at += (size_t)snprintf(what + at, sizeof what - at, "%s", at ? "; " : "");              \
        if (at < sizeof what) at += (size_t)snprintf(what + at, sizeof what - at, __VA_ARGS__); \
    }
    PART(dv->bad_events, "%llu event%s without a size (skipped)", (unsigned long long)dv->bad_events,
         dv->bad_events == 1 ? "" : "s")
    PART(dv->bad_totals, "%llu total%s negative or not a number (left out)", (unsigned long long)dv->bad_totals,
         dv->bad_totals == 1 ? "" : "s")
    PART(dv->inconsistent_totals, "%llu total%s moved by other than the event's bytes (events missing?)",
         (unsigned long long)dv->inconsistent_totals, dv->inconsistent_totals == 1 ? "" : "s")
    PART(dv->reused_addrs, "%llu allocation%s of an address still live (a free missing)",
         (unsigned long long)dv->reused_addrs, dv->reused_addrs == 1 ? "" : "s")
    PART(dv->unmatched_frees, "%llu free%s of memory the capture never saw allocated (made before it began)",
         (unsigned long long)dv->unmatched_frees, dv->unmatched_frees == 1 ? "" : "s")
    PART(dv->has_events && !dv->has_totals, "no totals: bytes in use unknown")
    PART(dv->has_events && !dv->has_addrs, "events without addresses: live allocations unknown")
#undef PART
    if (!at) return 0;
    return warn(m, "memory: %s: %s", dv->name, what);
}

static int one_device(sts_memory *m, const devkey *k, const mev *e, size_t n, const sts_memory_options *opt,
                      uint64_t bad_events)
{
    sts_memory_device *dv = STS_VEC_PUSH(m->devices);
    if (!dv) return -1;
    memset(dv, 0, sizeof *dv);
    char **nm = STS_VEC_PUSH(m->names);
    if (!nm) return -1;
    *nm = strdup(k->name);
    if (!*nm) {
        m->names.n--;
        return -1;
    }
    dv->name = *nm;
    dv->source = k->source;
    dv->has_events = strcmp(k->source, "counter") != 0;
    dv->events = n;
    dv->bad_events = bad_events;
    device_ctx d = { m, e, n, opt, malloc((n ? n : 1) * sizeof(int64_t)), { 0 }, STS_U64MAP_INIT, NULL, NULL, 0, NULL };
    int bad = !d.after;
    if (!bad) totals(&d, dv);
    for (size_t j = 0; j < n && !bad; j++) {
        if (d.after[j] < 0) continue;
        sts_memory_point *p = STS_VEC_PUSH(m->points);
        if (!p)
            bad = 1;
        else
            *p = (sts_memory_point){ e[j].ts, d.after[j] };
    }
    dv->point_count = (uint32_t)(m->points.n - dv->first_point);
    size_t nst = 0;
    const sts_step *st = opt->steps ? sts_steps_list(opt->steps, &nst) : NULL;
    uint32_t devno = (uint32_t)(m->devices.n - 1);
    for (size_t s = 0; s < nst && !bad; s++) {
        uint32_t at = (uint32_t)(s * m->ndev + devno);
        m->steps.v[at].step = (uint32_t)s;
        m->steps.v[at].device = devno;
        bad = step_entry(&d, dv, &st[s], at) != 0;
    }
    if (!bad && nst) bad = leak_check(&d, dv, st, nst, devno) != 0;
    if (!bad && dv->has_addrs) bad = replay(&d, dv) != 0;
    if (!bad) bad = device_warnings(m, dv) != 0;
    free(d.after);
    free(d.live);
    free(d.pos);
    free(d.items);
    STS_VEC_RELEASE(d.snaps);
    sts_u64map_release(&d.where);
    return bad ? -1 : 0;
}

static int cmp_key_names(const void *a, const void *b)
{
    const devkey *const *x = a, *const *y = b;
    int c = strcmp((*x)->name, (*y)->name);
    return c ? c : strcmp((*x)->source, (*y)->source);
}

static sts_status nomem(sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "memory: out of memory");
}

static int gather(reader *r)
{
    uint32_t kin = sts_timeline_find_string(r->tl, "[memory]");
    uint32_t xal = sts_timeline_find_string(r->tl, "MemoryAllocation");
    uint32_t xfr = sts_timeline_find_string(r->tl, "MemoryDeallocation");
    size_t ns;
    r->s = sts_timeline_slices(r->tl, &ns);
    for (size_t i = 0; i < ns; i++) {
        const sts_slice *e = &r->s[i];
        if (e->dur != 0 || (e->name != kin && e->name != xal && e->name != xfr) || e->name == STS_NONE) continue;
        int rc = e->name == kin ? read_kineto(r, (uint32_t)i) : read_xspace(r, (uint32_t)i, e->name == xfr);
        if (rc != 0) return -1;
    }
    return read_counters(r);
}

sts_status sts_memory_find(const sts_timeline *tl, const sts_memory_options *opt, sts_memory **out, sts_error *err)
{
    static const sts_memory_options defaults = STS_MEMORY_OPTIONS_INIT;
    if (!opt) opt = &defaults;
    *out = NULL;
    sts_memory *m = calloc(1, sizeof *m);
    if (!m) return nomem(err);
    reader r = { tl, NULL, NULL, { 0 }, { 0 }, NULL, 0 };
    size_t ns, nst = 0;
    sts_timeline_slices(tl, &ns);
    const sts_step *st = opt->steps ? sts_steps_list(opt->steps, &nst) : NULL;
    unsigned char *is_step = nst ? calloc(ns ? ns : 1, 1) : NULL;
    int bad = nst && !is_step;
    for (size_t k = 0; k < nst && !bad; k++)
        if (st[k].slice < ns) is_step[st[k].slice] = 1;
    r.is_step = is_step;
    if (!bad) bad = gather(&r) != 0;
    size_t nd = r.keys.n;
    const devkey **order = malloc((nd ? nd : 1) * sizeof *order);
    uint32_t *rank = malloc((nd ? nd : 1) * sizeof *rank);
    bad = bad || !order || !rank;
    for (size_t i = 0; !bad && i < nd; i++)
        order[i] = &r.keys.v[i];
    if (!bad && nd > 1) qsort(order, nd, sizeof *order, cmp_key_names);
    for (size_t i = 0; !bad && i < nd; i++)
        rank[order[i] - r.keys.v] = (uint32_t)i;
    if (!bad && r.ev.n > 1) {
        g_rank = rank;
        qsort(r.ev.v, r.ev.n, sizeof *r.ev.v, cmp_mev);
        g_rank = NULL;
    }
    m->nsteps = nd ? nst : 0;
    m->ndev = nd;
    if (!bad && nd && nst) {
        bad = STS_VEC_RESERVE(m->steps, nst * nd) != 0;
        if (!bad) memset(m->steps.v, 0, nst * nd * sizeof *m->steps.v), m->steps.n = nst * nd;
    }
    for (size_t i = 0, lo = 0; !bad && i < nd; i++) {
        size_t di = (size_t)(order[i] - r.keys.v), hi = lo;
        while (hi < r.ev.n && r.ev.v[hi].dev == di)
            hi++;
        bad = one_device(m, order[i], r.ev.v + lo, hi - lo, opt, di < r.nbad ? r.bad_events[di] : 0) != 0;
        lo = hi;
    }
    for (size_t i = 0; i < r.keys.n; i++)
        free(r.keys.v[i].name);
    STS_VEC_RELEASE(r.keys);
    STS_VEC_RELEASE(r.ev);
    free(r.bad_events);
    free(is_step);
    free(order);
    free(rank);
    if (bad) {
        sts_memory_free(m);
        return nomem(err);
    }
    *out = m;
    return STS_OK;
}
