/* The XSpace writer. Preparation decides planes, lines, event order and the
 * deduplicated metadata; then encode_space() runs twice over that plan (measure, then
 * write; see base/pb.h), so it must depend on nothing but the plan. */
#include "write/xplane_write.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/completion.h"
#include "base/mem.h"
#include "base/vec.h"
#include "write/wfile.h"

typedef struct xev {
    int64_t ts, dur;
    uint32_t idx;  /* slice or instant index */
    uint32_t meta; /* event metadata id in its plane */
    uint32_t line;
    uint8_t instant;
} xev;

typedef struct xline {
    uint32_t lane;
    int64_t id;
    char *name; /* owned */
    size_t ev_first, ev_n;
    int64_t base_ns, span_ps;
} xline;

typedef struct xplane {
    char *name; /* owned */
    int64_t id;
    size_t line_first, line_n;
    sts_u64map emap;              /* name string id + 1 -> event metadata id */
    STS_VEC(uint32_t) enames;     /* event metadata id - 1 -> name string id */
    sts_u64map smap;              /* string id + 1 -> stat metadata id */
    STS_VEC(const char *) snames; /* stat metadata id - 1 -> name */
    uint32_t r_meta;              /* stat metadata id of "_r" (0: none needed) */
} xplane;

typedef struct plan {
    const sts_timeline *tl;
    const sts_process *procs;
    const sts_lane *lanes;
    const sts_slice *slices;
    const sts_instant *instants;
    const sts_arg *args;
    size_t nprocs, nlanes, nslices, ninstants, nargs;
    xev *ev;
    size_t nev;
    xline *lines;
    size_t nlines;
    xplane *planes;
    size_t nplanes;
    uint32_t step_key, r_key; /* string ids of "step_num" and "_r", or STS_NONE */
    uint32_t *mark;           /* per stat metadata id: last event that wrote the key */
    size_t mark_cap;
    uint32_t gen;
    const char *host;
    sts_error *err;
} plan;

const char *sts_write_host(const sts_write_options *opts, char *buf, size_t cap)
{
    if (opts && opts->host && *opts->host) return opts->host;
    if (gethostname(buf, cap) != 0 || !buf[0]) snprintf(buf, cap, "localhost");
    buf[cap - 1] = 0;
    return buf;
}

static sts_status nomem(plan *p)
{
    return sts_error_set(p->err, STS_ERR_NOMEM, -1, "xplane writer: out of memory");
}

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static const char *str(const plan *p, uint32_t id)
{
    return sts_timeline_string(p->tl, id);
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- planes and lines ---- */

static xplane *add_plane(plan *p, char *name, int64_t id)
{
    if (!name) return NULL;
    xplane *pl = &p->planes[p->nplanes++];
    memset(pl, 0, sizeof *pl);
    pl->name = name;
    pl->id = id;
    return pl;
}

/* The trailing ordinal of "/device:GPU:3", else `fallback`. */
static int64_t device_ordinal(const char *name, int64_t fallback)
{
    const char *colon = strrchr(name, ':');
    if (!colon || !colon[1]) return fallback;
    int64_t v = 0;
    for (const char *c = colon + 1; *c; c++) {
        if (*c < '0' || *c > '9' || v > 1000000) return fallback;
        v = v * 10 + (*c - '0');
    }
    return v;
}

/* Line ids used in the current plane (sts_u64map reserves key 0). */
typedef struct idset {
    sts_u64map m;
    int zero;
} idset;

/* XProf (and stepscope's reader) know a line by its id cut to a uint32, so that is
 * what must be unique. */
static int id_taken(const idset *ids, int64_t id)
{
    uint32_t k = (uint32_t)id;
    return k == 0 ? ids->zero : sts_u64map_get(&ids->m, k) != UINT32_MAX;
}

static int id_add(idset *ids, int64_t id)
{
    uint32_t k = (uint32_t)id;
    if (k == 0) {
        ids->zero = 1;
        return 0;
    }
    return sts_u64map_put(&ids->m, k, 1);
}

/* A device lane: the recorder's and XSpace's device lanes, and the lanes of a process
 * named "/device:..." (JAX's Chrome JSON names its device planes so), which go back
 * to device planes. */
static int lane_is_device(const plan *p, const sts_lane *ln)
{
    const sts_process *pr = &p->procs[ln->process];
    return ln->kind == STS_LANE_DEVICE || (pr->name && starts_with(str(p, pr->name), "/device:"));
}

/* Threads and device streams are lines; the lanes finalize makes for async and
 * instant tracks are not (XSpace has neither). */
static int lane_is_line(const sts_lane *ln)
{
    return ln->kind == STS_LANE_THREAD || ln->kind == STS_LANE_DEVICE;
}

static sts_status add_lines(plan *p, xplane *pl, uint32_t proc_or_host, int host, int prefix)
{
    pl->line_first = p->nlines;
    idset ids = { STS_U64MAP_INIT, 0 };
    for (size_t l = 0; l < p->nlanes; l++) {
        const sts_lane *ln = &p->lanes[l];
        int is_device = lane_is_device(p, ln);
        if (!lane_is_line(ln) || (host ? is_device : (!is_device || ln->process != proc_or_host))) continue;
        xline *xl = &p->lines[p->nlines];
        memset(xl, 0, sizeof *xl);
        xl->lane = (uint32_t)l;
        xl->id = ln->tid;
        /* Lines sharing an id are one timeline to XProf: keep lanes apart. */
        if (id_taken(&ids, xl->id)) {
            xl->id = (int64_t)(uint32_t)(0x80000000u + (uint32_t)l);
            while (id_taken(&ids, xl->id))
                xl->id = (int64_t)(uint32_t)(xl->id + 1);
        }
        if (id_add(&ids, xl->id) != 0) {
            sts_u64map_release(&ids.m);
            return nomem(p);
        }
        const char *lname = ln->name ? str(p, ln->name) : "";
        const sts_process *pr = &p->procs[ln->process];
        const char *pname = pr->name ? str(p, pr->name) : str(p, pr->label);
        if (!*lname)
            xl->name = dup_printf("%s %s", is_device ? "Stream" : "Thread", str(p, ln->label));
        else if (prefix)
            xl->name = dup_printf("%s/%s", pname, lname);
        else
            xl->name = dup_printf("%s", lname);
        if (!xl->name) {
            sts_u64map_release(&ids.m);
            return nomem(p);
        }
        p->nlines++;
    }
    sts_u64map_release(&ids.m);
    pl->line_n = p->nlines - pl->line_first;
    return STS_OK;
}

static sts_status make_planes(plan *p)
{
    p->planes = calloc(p->nprocs + 1, sizeof *p->planes);
    p->lines = calloc(p->nlanes + 1, sizeof *p->lines);
    uint8_t *has_thread = calloc(p->nprocs + 1, 1), *has_device = calloc(p->nprocs + 1, 1);
    if (!p->planes || !p->lines || !has_thread || !has_device) {
        free(has_thread);
        free(has_device);
        return nomem(p);
    }
    size_t thread_procs = 0, any_thread = 0;
    for (size_t l = 0; l < p->nlanes; l++) {
        uint32_t pr = p->lanes[l].process;
        if (!lane_is_line(&p->lanes[l])) continue;
        if (lane_is_device(p, &p->lanes[l]))
            has_device[pr] = 1;
        else
            any_thread = 1, thread_procs += !has_thread[pr], has_thread[pr] = 1;
    }
    sts_status st = STS_OK;
    if (any_thread) {
        xplane *pl = add_plane(p, dup_printf("/host:CPU"), 0);
        st = pl ? add_lines(p, pl, 0, 1, thread_procs > 1) : nomem(p);
    }
    for (size_t pr = 0; pr < p->nprocs && st == STS_OK; pr++) {
        if (!has_device[pr]) continue;
        const sts_process *proc = &p->procs[pr];
        const char *pname = proc->name ? str(p, proc->name) : "";
        char *name;
        /* XProf's trace viewer shows only GPU, TPU and CUSTOM device planes (checked
         * with xprof 2.24): any other device ("/device:CPU:0") goes under CUSTOM. */
        if (starts_with(pname, "/device:GPU:") || starts_with(pname, "/device:TPU:") ||
            starts_with(pname, "/device:CUSTOM:"))
            name = dup_printf("%s", pname);
        else if (starts_with(pname, "/device:"))
            name = dup_printf("/device:CUSTOM:%s", pname + 8);
        else if (*pname)
            name = dup_printf("/device:CUSTOM:%s", pname);
        else
            name = dup_printf("/device:CUSTOM:pid %" PRId64, proc->pid);
        xplane *pl = add_plane(p, name, 0);
        if (!pl) {
            st = nomem(p);
            break;
        }
        pl->id = device_ordinal(pl->name, (int64_t)p->nplanes - 1);
        st = add_lines(p, pl, (uint32_t)pr, 0, 0);
    }
    free(has_thread);
    free(has_device);
    return st;
}

/* ---- events ---- */

static int cmp_ev(const void *a, const void *b)
{
    const xev *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* parents first */
    if (x->instant != y->instant) return x->instant < y->instant ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int ev_before(const xev *x, const xev *y)
{
    return cmp_ev(x, y) < 0;
}

/* Events grouped by line (a stable counting sort), then each line in time order; a
 * line already in order (a finalized timeline, a recorder's thread) is not sorted. */
static sts_status collect_events(plan *p)
{
    size_t *count = calloc(p->nlines + 1, sizeof *count);
    uint32_t *lane_line = malloc((p->nlanes + 1) * sizeof *lane_line);
    xev *tmp_ev = malloc((p->nslices + p->ninstants + 1) * sizeof *tmp_ev);
    p->ev = malloc((p->nslices + p->ninstants + 1) * sizeof *p->ev);
    if (!count || !lane_line || !tmp_ev || !p->ev) {
        free(count);
        free(lane_line);
        free(tmp_ev);
        return nomem(p);
    }
    for (size_t l = 0; l < p->nlanes; l++)
        lane_line[l] = UINT32_MAX;
    for (size_t i = 0; i < p->nlines; i++)
        lane_line[p->lines[i].lane] = (uint32_t)i;
    size_t n = 0;
    for (size_t i = 0; i < p->nslices; i++) {
        const sts_slice *s = &p->slices[i];
        /* Instants and async events are written from their own lists. */
        if (s->dur < 0 || s->lane >= p->nlanes || (s->flags & (STS_SLICE_INSTANT | STS_SLICE_ASYNC)) ||
            lane_line[s->lane] == UINT32_MAX)
            continue;
        tmp_ev[n++] = (xev){ s->ts, s->dur, (uint32_t)i, 0, lane_line[s->lane], 0 };
    }
    for (size_t i = 0; i < p->ninstants; i++) {
        const sts_instant *s = &p->instants[i];
        if (s->lane >= p->nlanes || lane_line[s->lane] == UINT32_MAX) continue;
        tmp_ev[n++] = (xev){ s->ts, 0, (uint32_t)i, 0, lane_line[s->lane], 1 };
    }
    free(lane_line);
    for (size_t i = 0; i < n; i++)
        count[tmp_ev[i].line]++;
    size_t at = 0;
    for (size_t l = 0; l < p->nlines; l++) {
        size_t c = count[l];
        count[l] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++)
        p->ev[count[tmp_ev[i].line]++] = tmp_ev[i];
    free(tmp_ev);
    free(count);
    p->nev = n;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        int sorted = 1;
        for (; j < n && p->ev[j].line == p->ev[i].line; j++)
            if (sorted && !ev_before(&p->ev[j - 1], &p->ev[j])) sorted = 0;
        if (!sorted) qsort(p->ev + i, j - i, sizeof *p->ev, cmp_ev);
        i = j;
    }
    /* Line ranges, base times and spans; offsets must fit in int64 picoseconds. */
    for (size_t i = 0; i < p->nev;) {
        size_t j = i;
        xline *xl = &p->lines[p->ev[i].line];
        int64_t base = p->ev[i].ts, end = base;
        for (; j < p->nev && p->ev[j].line == p->ev[i].line; j++) {
            int64_t e;
            if (__builtin_add_overflow(p->ev[j].ts, p->ev[j].dur, &e) || __builtin_sub_overflow(e, base, &e) ||
                e > INT64_MAX / 1000)
                return sts_error_set(p->err, STS_ERR_RANGE, -1,
                                     "xplane writer: lane \"%s\" spans more than 2^63 ps (event at %" PRId64
                                     " ns, dur %" PRId64 " ns, line start %" PRId64
                                     " ns); XSpace offsets cannot hold it",
                                     xl->name, p->ev[j].ts, p->ev[j].dur, base);
            if (p->ev[j].ts + p->ev[j].dur > end) end = p->ev[j].ts + p->ev[j].dur;
        }
        xl->ev_first = i;
        xl->ev_n = j - i;
        xl->base_ns = base;
        xl->span_ps = (end - base) * 1000;
        i = j;
    }
    return STS_OK;
}

/* ---- metadata ---- */

static uint32_t stat_meta(plan *p, xplane *pl, uint32_t sid)
{
    uint32_t m = sts_u64map_get(&pl->smap, (uint64_t)sid + 1);
    if (m != UINT32_MAX) return m;
    const char **slot = STS_VEC_PUSH(pl->snames);
    if (!slot) return 0;
    *slot = str(p, sid);
    m = (uint32_t)pl->snames.n;
    if (sts_u64map_put(&pl->smap, (uint64_t)sid + 1, m) != 0) return 0;
    return m;
}

static uint32_t event_args(const plan *p, const xev *e)
{
    return e->instant ? p->instants[e->idx].args : p->slices[e->idx].args;
}

/* Is this a step event that needs "_r" added? */
static int needs_root(const plan *p, uint32_t first)
{
    if (first == STS_NONE || first >= p->nargs || p->step_key == STS_NONE) return 0;
    int step = 0;
    for (size_t i = first; i < p->nargs; i++) {
        if (p->args[i].key == p->step_key) step = 1;
        if (p->r_key != STS_NONE && p->args[i].key == p->r_key) return 0;
        if (p->args[i].last) break;
    }
    return step;
}

static sts_status plane_metadata(plan *p, xplane *pl)
{
    for (size_t li = pl->line_first; li < pl->line_first + pl->line_n; li++) {
        const xline *xl = &p->lines[li];
        for (size_t k = xl->ev_first; k < xl->ev_first + xl->ev_n; k++) {
            xev *e = &p->ev[k];
            uint32_t name = e->instant ? p->instants[e->idx].name : p->slices[e->idx].name;
            uint32_t m = sts_u64map_get(&pl->emap, (uint64_t)name + 1);
            if (m == UINT32_MAX) {
                uint32_t *slot = STS_VEC_PUSH(pl->enames);
                if (!slot) return nomem(p);
                *slot = name;
                m = (uint32_t)pl->enames.n;
                if (sts_u64map_put(&pl->emap, (uint64_t)name + 1, m) != 0) return nomem(p);
            }
            e->meta = m;
            uint32_t first = event_args(p, e);
            if (first == STS_NONE || first >= p->nargs) continue;
            for (size_t i = first; i < p->nargs; i++) {
                const sts_arg *a = &p->args[i];
                if (!stat_meta(p, pl, a->key)) return nomem(p);
                if (a->type == STS_ARG_STRING && !stat_meta(p, pl, a->v.str)) return nomem(p);
                if (a->last) break;
            }
            if (!pl->r_meta && needs_root(p, first)) {
                if (p->r_key != STS_NONE) {
                    pl->r_meta = stat_meta(p, pl, p->r_key);
                } else {
                    const char **slot = STS_VEC_PUSH(pl->snames);
                    if (slot) *slot = "_r", pl->r_meta = (uint32_t)pl->snames.n;
                }
                if (!pl->r_meta) return nomem(p);
            }
        }
    }
    if (pl->snames.n + 1 > p->mark_cap) {
        free(p->mark);
        p->mark_cap = pl->snames.n + 1;
        p->mark = calloc(p->mark_cap, sizeof *p->mark);
        if (!p->mark) return nomem(p);
    }
    return STS_OK;
}

/* ---- encoding (runs twice) ---- */

static void encode_stats(plan *p, sts_pb_writer *w, xplane *pl, uint32_t first)
{
    if (first == STS_NONE || first >= p->nargs) return;
    uint32_t gen = ++p->gen;
    if (gen == 0) { /* wrapped: forget every mark */
        memset(p->mark, 0, p->mark_cap * sizeof *p->mark);
        gen = p->gen = 1;
    }
    for (size_t i = first; i < p->nargs; i++) {
        const sts_arg *a = &p->args[i];
        uint32_t m = sts_u64map_get(&pl->smap, (uint64_t)a->key + 1);
        int skip = m == UINT32_MAX || p->mark[m] == gen || a->type == STS_ARG_NULL;
        if (!skip) {
            p->mark[m] = gen; /* XProf expects one stat per key on an event */
            sts_pb_begin(w, 4);
            sts_pb_put_uint(w, 1, m);
            switch (a->type) {
            case STS_ARG_INT:
                sts_pb_put_int(w, 4, a->v.i);
                break;
            case STS_ARG_BOOL:
                sts_pb_put_int(w, 4, a->v.i != 0);
                break;
            case STS_ARG_DOUBLE:
                sts_pb_put_double(w, 2, a->v.d);
                break;
            case STS_ARG_STRING:
                sts_pb_put_uint(w, 7, sts_u64map_get(&pl->smap, (uint64_t)a->v.str + 1));
                break;
            default:
                sts_pb_put_str(w, 5, str(p, a->v.str));
                break; /* raw JSON text */
            }
            sts_pb_end(w);
        }
        if (a->last) break;
    }
    if (pl->r_meta && needs_root(p, first)) {
        sts_pb_begin(w, 4);
        sts_pb_put_uint(w, 1, pl->r_meta);
        sts_pb_put_int(w, 4, 1);
        sts_pb_end(w);
    }
}

static void encode_line(plan *p, sts_pb_writer *w, xplane *pl, const xline *xl)
{
    sts_pb_begin(w, 3);
    if (xl->id) sts_pb_put_int(w, 1, xl->id);
    if (*xl->name) sts_pb_put_str(w, 2, xl->name);
    if (xl->base_ns) sts_pb_put_int(w, 3, xl->base_ns);
    for (size_t k = xl->ev_first; k < xl->ev_first + xl->ev_n; k++) {
        const xev *e = &p->ev[k];
        sts_pb_begin(w, 4);
        sts_pb_put_uint(w, 1, e->meta);
        sts_pb_put_int(w, 2, (e->ts - xl->base_ns) * 1000); /* a oneof member: written even when 0 */
        if (e->dur) sts_pb_put_int(w, 3, e->dur * 1000);
        encode_stats(p, w, pl, event_args(p, e));
        sts_pb_end(w);
    }
    if (xl->span_ps) sts_pb_put_int(w, 9, xl->span_ps);
    sts_pb_end(w);
}

static void encode_space(plan *p, sts_pb_writer *w)
{
    /* The completion record's head (base/completion.h): the file says it ends with one. */
    sts_pb_begin(w, STS_COMPLETION_XSPACE_HEAD);
    sts_pb_put_str(w, 1, "stepscope " STS_VERSION_STRING);
    sts_pb_end(w);
    for (size_t pi = 0; pi < p->nplanes; pi++) {
        xplane *pl = &p->planes[pi];
        sts_pb_begin(w, 1);
        if (pl->id) sts_pb_put_int(w, 1, pl->id);
        sts_pb_put_str(w, 2, pl->name);
        for (size_t li = pl->line_first; li < pl->line_first + pl->line_n; li++)
            encode_line(p, w, pl, &p->lines[li]);
        for (size_t m = 0; m < pl->enames.n; m++) {
            sts_pb_begin(w, 4);
            sts_pb_put_int(w, 1, (int64_t)m + 1);
            sts_pb_begin(w, 2);
            sts_pb_put_int(w, 1, (int64_t)m + 1);
            const char *name = str(p, pl->enames.v[m]);
            if (*name) sts_pb_put_str(w, 2, name);
            sts_pb_end(w);
            sts_pb_end(w);
        }
        for (size_t m = 0; m < pl->snames.n; m++) {
            sts_pb_begin(w, 5);
            sts_pb_put_int(w, 1, (int64_t)m + 1);
            sts_pb_begin(w, 2);
            sts_pb_put_int(w, 1, (int64_t)m + 1);
            if (*pl->snames.v[m]) sts_pb_put_str(w, 2, pl->snames.v[m]);
            sts_pb_end(w);
            sts_pb_end(w);
        }
        sts_pb_end(w);
    }
    sts_pb_put_str(w, 4, p->host);
    sts_pb_begin(w, STS_COMPLETION_XSPACE_TAIL); /* the completion record, last */
    if (p->nev) sts_pb_put_uint(w, 1, p->nev);
    sts_pb_end(w);
}

/* ---- driver ---- */

static void plan_free(plan *p)
{
    for (size_t i = 0; i < p->nplanes; i++) {
        free(p->planes[i].name);
        sts_u64map_release(&p->planes[i].emap);
        sts_u64map_release(&p->planes[i].smap);
        free(p->planes[i].enames.v);
        free(p->planes[i].snames.v);
    }
    for (size_t i = 0; i < p->nlines; i++)
        free(p->lines[i].name);
    free(p->planes);
    free(p->lines);
    free(p->ev);
    free(p->mark);
}

static sts_status make_plan(plan *p, const sts_timeline *tl, sts_error *err)
{
    memset(p, 0, sizeof *p);
    p->tl = tl;
    p->err = err;
    p->procs = sts_timeline_processes(tl, &p->nprocs);
    p->lanes = sts_timeline_lanes(tl, &p->nlanes);
    p->slices = sts_timeline_slices(tl, &p->nslices);
    p->instants = sts_timeline_instants(tl, &p->ninstants);
    p->args = sts_timeline_args(tl, &p->nargs);
    p->step_key = sts_timeline_find_string(tl, "step_num");
    p->r_key = sts_timeline_find_string(tl, "_r");
    for (size_t l = 0; l < p->nlanes; l++)
        if (p->lanes[l].process >= p->nprocs)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "xplane writer: lane %zu names process %u of %zu", l,
                                 p->lanes[l].process, p->nprocs);
    sts_status st = make_planes(p);
    if (st == STS_OK) st = collect_events(p);
    for (size_t i = 0; i < p->nplanes && st == STS_OK; i++)
        st = plane_metadata(p, &p->planes[i]);
    return st;
}

static sts_status werr(sts_pb_werr e, sts_error *err)
{
    switch (e) {
    case STS_PB_W_OK:
        return STS_OK;
    case STS_PB_W_NOMEM:
        return sts_error_set(err, STS_ERR_NOMEM, -1, "xplane writer: out of memory");
    case STS_PB_W_SINK:
        return sts_error_set(err, STS_ERR_IO, -1, "xplane writer: the output could not be written");
    case STS_PB_W_TOO_BIG:
        return sts_error_set(err, STS_ERR_LIMIT, -1,
                             "xplane writer: a plane or the whole XSpace reaches protobuf's 2 GiB message limit; "
                             "XProf could not read it (write Chrome JSON instead, or trace fewer events)");
    case STS_PB_W_MISUSE:
        break;
    }
    return sts_error_set(err, STS_ERR_INTERNAL, -1, "xplane writer: internal error (the two passes differ)");
}

sts_status sts_xplane_encode(const sts_timeline *tl, const sts_write_options *opts, sts_pb_sink_fn sink, void *user,
                             sts_error *err)
{
    if (!tl) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "xplane writer: no timeline");
    char hostbuf[256];
    plan p;
    sts_status st = make_plan(&p, tl, err);
    p.host = sts_write_host(opts, hostbuf, sizeof hostbuf);
    sts_pb_writer w;
    if (st == STS_OK && sts_pb_writer_init(&w, sink, user) != 0)
        st = nomem(&p);
    else if (st == STS_OK) {
        encode_space(&p, &w);
        sts_pb_writer_emit(&w);
        encode_space(&p, &w);
        sts_pb_werr e = sts_pb_writer_finish(&w);
        sts_pb_writer_release(&w);
        st = werr(e, err);
    }
    plan_free(&p);
    return st;
}

typedef STS_VEC(uint8_t) membuf;

static int mem_sink(void *user, const void *buf, size_t n)
{
    membuf *m = user;
    if (STS_VEC_RESERVE(*m, m->n + n) != 0) return -1;
    memcpy(m->v + m->n, buf, n);
    m->n += n;
    return 0;
}

sts_status sts_xplane_encode_mem(const sts_timeline *tl, const sts_write_options *opts, uint8_t **out, size_t *len,
                                 sts_error *err)
{
    membuf m = { NULL, 0, 0 };
    *out = NULL;
    *len = 0;
    sts_status st = sts_xplane_encode(tl, opts, mem_sink, &m, err);
    if (st != STS_OK) {
        STS_VEC_RELEASE(m);
        return st;
    }
    if (!m.v) m.v = malloc(1); /* an empty XSpace is zero bytes; still hand back a buffer */
    if (!m.v) return sts_error_set(err, STS_ERR_NOMEM, -1, "xplane writer: out of memory");
    *out = m.v;
    *len = m.n;
    return STS_OK;
}

static int file_sink(void *user, const void *buf, size_t n)
{
    return sts_wfile_write(user, buf, n);
}

sts_status sts_write_xplane(const sts_timeline *tl, const char *path, const sts_write_options *opts, sts_error *err)
{
    if (!tl || !path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "xplane writer: no timeline or path");
    sts_wfile *f = sts_wfile_open(path, sts_path_is_gz(path), opts ? opts->gzip_level : 0, err);
    if (!f) return err ? err->code : STS_ERR_IO;
    sts_status st = sts_xplane_encode(tl, opts, file_sink, f, err);
    if (st == STS_ERR_IO) {
        /* The sink failed: commit knows the system error and reports it with the path. */
        return sts_wfile_commit(f, err);
    }
    if (st != STS_OK) {
        sts_wfile_abort(f);
        return st;
    }
    return sts_wfile_commit(f, err);
}
