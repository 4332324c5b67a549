/* The critical path: each step's graph of host segments and device ops, its edges, the
 * dropped ones, a topological order, and the path of the observed replay. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "analyze/critpath_impl.h"
#include "base/search.h"

#define MAX_WARNINGS 8

static const char *const KIND_NAMES[STS_CP_KINDS] = { "host",          "launch", "sync_wait", "idle",        "compute",
                                                      "communication", "memcpy", "memset",    "device_other" };

const char *sts_cp_kind_name(sts_cp_kind k)
{
    return (unsigned)k < STS_CP_KINDS ? KIND_NAMES[k] : NULL;
}

/* The rule table: exact names, then substrings. */
static const char *const SYNC_EXACT[] = { "cudaDeviceSynchronize",
                                          "cudaStreamSynchronize",
                                          "cudaEventSynchronize",
                                          "cudaMemcpy",
                                          "cuCtxSynchronize",
                                          "cuStreamSynchronize",
                                          "cuEventSynchronize",
                                          "cuMemcpy",
                                          "hipDeviceSynchronize",
                                          "hipStreamSynchronize",
                                          "hipEventSynchronize",
                                          "hipMemcpy",
                                          "clFinish",
                                          "clWaitForEvents" };
static const char *const SYNC_SUB[] = { "BlockHostUntilReady", "WaitForCompletion", "block_until_ready" };

int sts_critpath_sync_rule(const char *name)
{
    if (!name) return 0;
    for (size_t i = 0; i < sizeof SYNC_EXACT / sizeof *SYNC_EXACT; i++)
        if (!strcmp(name, SYNC_EXACT[i])) return 1;
    for (size_t i = 0; i < sizeof SYNC_SUB / sizeof *SYNC_SUB; i++)
        if (strstr(name, SYNC_SUB[i])) return 1;
    return 0;
}

static void warn(sts_critpath *cp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(sts_critpath *cp, const char *fmt, ...)
{
    if (cp->nwarnings >= MAX_WARNINGS) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **w = realloc(cp->warnings, (cp->nwarnings + 1) * sizeof *w);
    if (!w) return;
    cp->warnings = w;
    if ((w[cp->nwarnings] = strdup(buf))) cp->nwarnings++;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap * 2 : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static uint32_t add_node(sts_critpath *cp, int64_t ts, int64_t dur, uint32_t slice, uint32_t lane, uint32_t kind)
{
    if (grow((void **)&cp->nodes, &cp->capnodes, cp->nnodes + 1, sizeof *cp->nodes)) return STS_NONE;
    sts_cp_node *n = &cp->nodes[cp->nnodes];
    memset(n, 0, sizeof *n);
    n->ts = ts, n->dur = dur, n->slice = slice, n->lane = lane, n->kind = kind, n->wait = STS_NONE;
    return (uint32_t)cp->nnodes++;
}

static int add_edge(sts_critpath *cp, uint32_t from, uint32_t to, int type, int at_start)
{
    if (grow((void **)&cp->edges, &cp->capedges, cp->nedges + 1, sizeof *cp->edges)) return -1;
    sts_cp_edge *e = &cp->edges[cp->nedges++];
    memset(e, 0, sizeof *e);
    e->from = from, e->to = to, e->type = (uint8_t)type, e->at_start = (uint8_t)at_start;
    return 0;
}

/* ---- what one step's build shares -------------------------------------------------- */

typedef struct build {
    sts_critpath *cp;
    const sts_timeline *tl;
    const sts_slice *sl;
    const sts_lane *lanes;
    size_t nlanes;
    uint8_t *is_launch; /* per slice */
    uint32_t *first_seg, *last_seg;
    uint32_t *lane_first, *lane_count; /* per lane: its segments in this step */
    uint32_t *lane_last_op;            /* per lane: the last device op so far */
    const sts_devview_launch *ln;
    size_t nln;
    uint32_t *dev_first, *dev_count; /* launches by device */
    size_t ndev;
    const sts_flow **fs, **ff; /* flow pairs (start, end), by start ts */
    size_t nflows;
    sts_cp_streams *streams;
    int64_t *op_launch; /* per device op node of the step: its launch's start (its own start unlaunched) */
    size_t capop;
    uint8_t *is_sync; /* per name id: 0 not asked yet, 1 no, 2 a sync (the rule read once per name) */
} build;

static uint32_t seg_kind(const build *b, uint32_t slice)
{
    if (slice == STS_NONE) return STS_CP_IDLE;
    if (b->is_launch[slice]) return STS_CP_LAUNCH;
    uint8_t *m = &b->is_sync[b->sl[slice].name];
    if (!*m) *m = sts_critpath_sync_rule(sts_timeline_string(b->tl, b->sl[slice].name)) ? 2 : 1;
    if (*m == 2) return STS_CP_SYNC;
    return STS_CP_HOST;
}

static int emit(build *b, uint32_t lane, uint32_t slice, int64_t from, int64_t to, int zero_ok)
{
    if (to < from || (to == from && !zero_ok)) return 0;
    uint32_t id = add_node(b->cp, from, to - from, slice, lane, seg_kind(b, slice));
    if (id == STS_NONE) return -1;
    if (b->lane_count[lane]) {
        if (add_edge(b->cp, id - 1, id, CP_E_PROGRAM, 0)) return -1;
    } else
        b->lane_first[lane] = id;
    b->lane_count[lane]++;
    if (slice != STS_NONE) {
        if (b->first_seg[slice] == STS_NONE) b->first_seg[slice] = id;
        b->last_seg[slice] = id;
    }
    return 0;
}

static size_t first_at(const sts_slice *sl, size_t lo, size_t hi, int64_t t)
{
    STS_BISECT(size_t, lo, hi, mid, sl[mid].ts < t);
    return lo;
}

/* One host lane's segments in [ws, we): the innermost slice running, or a gap. */
static int host_lane(build *b, uint32_t lane, int64_t ws, int64_t we, int is_step_lane)
{
    const sts_lane *L = &b->lanes[lane];
    size_t lo = first_at(b->sl, L->first_slice, L->first_slice + L->slice_count, ws);
    size_t hi = L->first_slice + L->slice_count;
    uint32_t stack[256];
    int64_t send[256];
    int depth = 0;
    int64_t t = is_step_lane ? ws : -1;
    for (size_t i = lo; i < hi && b->sl[i].ts < we; i++) {
        const sts_slice *s = &b->sl[i];
        if (s->flags & STS_SLICE_UNCLOSED) continue;
        int64_t ts = s->ts, end = s->ts + s->dur < we ? s->ts + s->dur : we;
        if (t < 0) t = ts;
        while (depth && send[depth - 1] <= ts) {
            if (emit(b, lane, stack[depth - 1], t, send[depth - 1], 0)) return -1;
            if (send[depth - 1] > t) t = send[depth - 1];
            depth--;
        }
        if (emit(b, lane, depth ? stack[depth - 1] : STS_NONE, t, ts, 0)) return -1;
        if (ts > t) t = ts;
        if (depth && end > send[depth - 1]) end = send[depth - 1];
        if (end == ts) {
            if (b->is_launch[i] && emit(b, lane, (uint32_t)i, ts, ts, 1)) return -1;
            continue;
        }
        if (depth == 256) continue;
        stack[depth] = (uint32_t)i, send[depth] = end, depth++;
    }
    while (depth) {
        if (emit(b, lane, stack[depth - 1], t, send[depth - 1], 0)) return -1;
        if (send[depth - 1] > t) t = send[depth - 1];
        depth--;
    }
    if (is_step_lane && t < we && emit(b, lane, STS_NONE, t, we, 0)) return -1;
    return 0;
}

static uint32_t device_kind(uint8_t category)
{
    switch (category) {
    case STS_DV_COMPUTE:
        return STS_CP_COMPUTE;
    case STS_DV_COMMUNICATION:
        return STS_CP_COMMUNICATION;
    case STS_DV_MEMCPY:
        return STS_CP_MEMCPY;
    case STS_DV_MEMSET:
        return STS_CP_MEMSET;
    default:
        return STS_CP_DEVICE_OTHER;
    }
}

/* The device ops starting in [ws, we), with their launch and stream edges. */
static int device_ops(build *b, int64_t ws, int64_t we, uint32_t *first, uint32_t *count)
{
    *first = (uint32_t)b->cp->nnodes;
    *count = 0;
    for (size_t d = 0; d < b->ndev; d++) {
        size_t lo = b->dev_first[d], hi = lo + b->dev_count[d];
        STS_BISECT(size_t, lo, hi, mid, b->sl[b->ln[mid].device_slice].ts < ws);
        for (size_t i = lo; i < b->dev_first[d] + b->dev_count[d]; i++) {
            const sts_devview_launch *x = &b->ln[i];
            const sts_slice *s = &b->sl[x->device_slice];
            if (s->ts >= we) break;
            uint32_t id = add_node(b->cp, s->ts, s->dur, x->device_slice, s->lane, device_kind(x->category));
            if (id == STS_NONE || grow((void **)&b->op_launch, &b->capop, *count + 1, sizeof *b->op_launch)) return -1;
            b->op_launch[*count] = x->host_slice != STS_NONE ? b->sl[x->host_slice].ts : s->ts;
            (*count)++;
            uint32_t prev = b->lane_last_op[s->lane];
            if (prev != STS_NONE && b->cp->nodes[prev].ts + b->cp->nodes[prev].dur <= s->ts) {
                if (add_edge(b->cp, prev, id, CP_E_STREAM, 0)) return -1;
            }
            if (prev == STS_NONE || b->cp->nodes[prev].ts + b->cp->nodes[prev].dur < s->ts + s->dur)
                b->lane_last_op[s->lane] = id;
            if (x->host_slice != STS_NONE && b->first_seg[x->host_slice] != STS_NONE &&
                add_edge(b->cp, b->first_seg[x->host_slice], id, CP_E_LAUNCH, 1))
                return -1;
        }
    }
    return 0;
}

typedef struct endkey {
    int64_t end;
    uint32_t id;
} endkey;

static int cmp_end(const void *a, const void *b)
{
    const endkey *x = a, *y = b;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Each sync segment waits for the latest-ending device op that ended inside it and
 * started before its end (so was launched before it returned). */
static int syncs(build *b, uint32_t gfirst, uint32_t gend, uint32_t dfirst, uint32_t dcount)
{
    sts_critpath *cp = b->cp;
    if (!dcount) return 0;
    endkey *byend = malloc(dcount * sizeof *byend);
    if (!byend) return -1;
    for (uint32_t i = 0; i < dcount; i++)
        byend[i].id = dfirst + i, byend[i].end = cp->nodes[dfirst + i].ts + cp->nodes[dfirst + i].dur;
    qsort(byend, dcount, sizeof *byend, cmp_end);
    for (uint32_t v = gfirst; v < gend; v++) {
        sts_cp_node *s = &cp->nodes[v];
        if (s->kind != STS_CP_SYNC || s->slice == STS_NONE || b->first_seg[s->slice] != b->last_seg[s->slice]) continue;
        int64_t se = s->ts + s->dur;
        size_t lo = 0, hi = dcount;
        STS_BISECT(size_t, lo, hi, mid, byend[mid].end <= se);
        uint32_t only = sts_cp_sync_lane(b->streams, b->tl, s->slice);
        /* every op (of its stream, where the trace names it) ending inside the sync is
         * waited for; the latest binds */
        for (size_t j = lo, seen = 0, scanned = 0; j > 0 && seen < 256 && scanned < 4096; j--, scanned++) {
            const sts_cp_node *x = &cp->nodes[byend[j - 1].id];
            if (x->ts + x->dur <= s->ts) break;
            if (only != STS_NONE && x->lane != only) continue;
            if (!seen++) s->wait = byend[j - 1].id, s->tail = se - (x->ts + x->dur);
            if (add_edge(cp, byend[j - 1].id, v, CP_E_SYNC, 0)) {
                free(byend);
                return -1;
            }
        }
    }
    free(byend);
    return 0;
}

/* The segment of `lane` in this step holding time t (the one starting at t on a tie). */
static uint32_t seg_at(const build *b, uint32_t lane, int64_t t)
{
    uint32_t n = b->lane_count[lane];
    if (!n) return STS_NONE;
    uint32_t lo = 0, hi = n, f = b->lane_first[lane];
    STS_BISECT(uint32_t, lo, hi, mid, b->cp->nodes[f + mid].ts <= t);
    if (!lo) return STS_NONE;
    const sts_cp_node *x = &b->cp->nodes[f + lo - 1];
    return t <= x->ts + x->dur ? f + lo - 1 : STS_NONE;
}

static int flows(build *b, int64_t ws, int64_t we)
{
    size_t lo = 0, hi = b->nflows;
    STS_BISECT(size_t, lo, hi, mid, b->fs[mid]->ts < ws);
    for (size_t i = lo; i < b->nflows && b->fs[i]->ts < we; i++) {
        uint32_t from = seg_at(b, b->fs[i]->lane, b->fs[i]->ts), to = seg_at(b, b->ff[i]->lane, b->ff[i]->ts);
        if (from == STS_NONE || to == STS_NONE || from == to) continue;
        if (add_edge(b->cp, from, to, CP_E_FLOW, 1)) return -1;
    }
    return 0;
}

typedef struct opkey {
    uint32_t lane, id;
    int64_t launch;
} opkey;

static int cmp_op(const void *a, const void *b)
{
    const opkey *x = a, *y = b;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The first op of `lane` launched at or after t (after: 1), or the last launched at or
 * before t (after: 0); STS_NONE. */
static uint32_t op_by_launch(const opkey *k, size_t n, uint32_t lane, int64_t t, int after)
{
    size_t lo = 0, hi = n;
    /* the first key >= (lane, t) for after, > (lane, t) for before */
    STS_BISECT(size_t, lo, hi, mid,
               k[mid].lane < lane || (k[mid].lane == lane && (after ? k[mid].launch < t : k[mid].launch <= t)));
    if (after) return lo < n && k[lo].lane == lane ? k[lo].id : STS_NONE;
    return lo > 0 && k[lo - 1].lane == lane ? k[lo - 1].id : STS_NONE;
}

/* Device-side waits between streams enqueued in [ws, we): the first op launched on the
 * waiting stream after the wait starts after the last op launched on the recorded
 * stream before the event was recorded ends. */
static int waits(build *b, int64_t ws, int64_t we, uint32_t dfirst, uint32_t dcount)
{
    size_t nw;
    const sts_cp_wait *w = sts_cp_waits(b->streams, &nw);
    if (!nw || !dcount) return 0;
    size_t lo = 0, hi = nw;
    STS_BISECT(size_t, lo, hi, mid, w[mid].ts_wait < ws);
    if (lo == nw || w[lo].ts_wait >= we) return 0;
    opkey *k = malloc(dcount * sizeof *k);
    if (!k) return -1;
    for (uint32_t i = 0; i < dcount; i++)
        k[i] = (opkey){ b->cp->nodes[dfirst + i].lane, dfirst + i, b->op_launch[i] };
    qsort(k, dcount, sizeof *k, cmp_op);
    int rc = 0;
    for (size_t i = lo; !rc && i < nw && w[i].ts_wait < we; i++) {
        uint32_t from = op_by_launch(k, dcount, w[i].lane_src, w[i].ts_src, 0);
        uint32_t to = op_by_launch(k, dcount, w[i].lane_dst, w[i].ts_wait, 1);
        if (from != STS_NONE && to != STS_NONE) rc = add_edge(b->cp, from, to, CP_E_WAIT, 0);
    }
    free(k);
    return rc;
}

static const char *node_name(const sts_critpath *cp, const sts_cp_node *x)
{
    return x->slice == STS_NONE ? "(gap)"
                                : sts_timeline_string(cp->tl, sts_timeline_slices(cp->tl, NULL)[x->slice].name);
}

static int64_t anchor(const sts_cp_node *p, const sts_cp_edge *e)
{
    return e->at_start ? p->ts : p->ts + p->dur;
}

static const char *const EDGE_NAMES[] = { "program", "launch", "stream", "sync", "flow", "stream_wait" };

/* Sorts a step's edges by target, then source, stably (as glibc's merge-sorting qsort by
 * target then source did): a counting sort on the target (the step's nodes f..f+nn), then an
 * insertion sort of each target's few in-edges by source. -1 when memory is exhausted. */
static int sort_edges(sts_cp_edge *E, uint32_t n, uint32_t f, uint32_t nn)
{
    if (n < 2) return 0;
    uint32_t *at = calloc((size_t)nn + 1, sizeof *at);
    sts_cp_edge *tmp = malloc((size_t)n * sizeof *tmp);
    if (!at || !tmp) {
        free(at), free(tmp);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        at[E[i].to - f + 1]++;
    for (uint32_t k = 0; k < nn; k++)
        at[k + 1] += at[k];
    for (uint32_t i = 0; i < n; i++)
        tmp[at[E[i].to - f]++] = E[i];
    for (uint32_t i = 1; i < n; i++) {
        sts_cp_edge x = tmp[i];
        uint32_t j = i;
        for (; j > 0 && tmp[j - 1].to == x.to && tmp[j - 1].from > x.from; j--)
            tmp[j] = tmp[j - 1];
        tmp[j] = x;
    }
    memcpy(E, tmp, (size_t)n * sizeof *E);
    free(at), free(tmp);
    return 0;
}

/* Sorts the step's edges by target, drops those pointing back in time, orders the nodes
 * (breaking cycles), then sets each node's in-edge gaps. */
static int finish_graph(sts_critpath *cp, sts_cp_graph *g, size_t step)
{
    sts_cp_edge *E = cp->edges + g->first_edge;
    if (sort_edges(E, g->nedges, g->first_node, g->nnodes) != 0) return -1;
    for (uint32_t i = 0; i < g->nedges; i++) {
        sts_cp_edge *e = &E[i];
        const sts_cp_node *p = &cp->nodes[e->from], *t = &cp->nodes[e->to];
        int back = e->type == CP_E_SYNC ? 0 : anchor(p, e) > t->ts;
        if (back) {
            cp->counts.backward++;
            warn(cp, "step %zu: a %s edge from '%s' (at %lld ns) to '%s' (at %lld ns) points back in time; dropped",
                 step, EDGE_NAMES[e->type], node_name(cp, p), (long long)anchor(p, e), node_name(cp, t),
                 (long long)t->ts);
            e->type = 255;
        }
    }
    uint32_t nn = g->nnodes, f = g->first_node;
    uint32_t *indeg = calloc(nn ? nn : 1, sizeof *indeg), *outc = calloc(nn + 1, sizeof *outc);
    uint32_t *out = malloc((g->nedges ? g->nedges : 1) * sizeof *out), *queue = cp->order + g->first_order;
    uint8_t *done = calloc(nn ? nn : 1, 1);
    if (!indeg || !outc || !out || !done) {
        free(indeg), free(outc), free(out), free(done);
        return -1;
    }
    for (uint32_t i = 0; i < nn; i++)
        cp->nodes[f + i].first_in = STS_NONE;
    for (uint32_t i = 0; i < g->nedges; i++) {
        sts_cp_node *t = &cp->nodes[E[i].to];
        if (t->first_in == STS_NONE) t->first_in = g->first_edge + i, t->nin = 0;
        t->nin++;
        if (E[i].type == 255) continue;
        indeg[E[i].to - f]++;
        outc[E[i].from - f + 1]++;
    }
    for (uint32_t i = 0; i < nn; i++) {
        outc[i + 1] += outc[i];
        if (cp->nodes[f + i].first_in == STS_NONE) cp->nodes[f + i].first_in = 0, cp->nodes[f + i].nin = 0;
    }
    uint32_t *fill = calloc(nn ? nn : 1, sizeof *fill);
    if (!fill) {
        free(indeg), free(outc), free(out), free(done);
        return -1;
    }
    for (uint32_t i = 0; i < g->nedges; i++)
        if (E[i].type != 255) out[outc[E[i].from - f] + fill[E[i].from - f]++] = g->first_edge + i;
    free(fill);
    uint32_t head = 0, tail = 0, scan = 0;
    for (uint32_t i = 0; i < nn; i++)
        if (!indeg[i]) queue[tail++] = f + i, done[i] = 1;
    while (head < nn) {
        if (head == tail) { /* a cycle: free the unordered node that starts first */
            uint32_t pick = STS_NONE;
            for (uint32_t i = scan; i < nn; i++)
                if (!done[i] && (pick == STS_NONE || cp->nodes[f + i].ts < cp->nodes[f + pick].ts)) pick = i;
            sts_cp_node *v = &cp->nodes[f + pick];
            for (uint32_t k = v->first_in; k < v->first_in + v->nin; k++) {
                sts_cp_edge *e = &cp->edges[k];
                if (e->type == 255 || done[e->from - f]) continue;
                cp->counts.cycles++;
                warn(cp,
                     "step %zu: a cycle through '%s' (at %lld ns) and '%s' (at %lld ns); the %s edge into the first is "
                     "dropped",
                     step, node_name(cp, v), (long long)v->ts, node_name(cp, &cp->nodes[e->from]),
                     (long long)cp->nodes[e->from].ts, EDGE_NAMES[e->type]);
                if (e->type == CP_E_SYNC) v->wait = STS_NONE;
                e->type = 255;
                indeg[pick]--;
            }
            queue[tail++] = f + pick, done[pick] = 1;
            while (scan < nn && done[scan])
                scan++;
        }
        uint32_t u = queue[head++] - f;
        for (uint32_t k = outc[u]; k < outc[u + 1]; k++) {
            sts_cp_edge *e = &cp->edges[out[k]];
            if (e->type == 255) continue;
            uint32_t t = e->to - f;
            if (!--indeg[t] && !done[t]) queue[tail++] = e->to, done[t] = 1;
        }
    }
    free(indeg), free(outc), free(out), free(done);
    /* Gaps: the latest anchor binds with the observed gap; the others wait for nothing. */
    for (uint32_t i = 0; i < nn; i++) {
        sts_cp_node *v = &cp->nodes[f + i];
        sts_cp_edge *best = NULL;
        for (uint32_t k = v->first_in; k < v->first_in + v->nin; k++) {
            sts_cp_edge *e = &cp->edges[k];
            if (e->type == 255 || e->type == CP_E_SYNC) continue;
            e->gap = 0;
            if (!best || anchor(&cp->nodes[e->from], e) > anchor(&cp->nodes[best->from], best)) best = e;
        }
        if (best) best->gap = v->ts - anchor(&cp->nodes[best->from], best);
    }
    for (uint32_t i = 0; i < g->nedges; i++)
        if (E[i].type != 255) cp->counts.by_type[E[i].type]++;
    return 0;
}

static int cmp_flow_ts(const void *a, const void *b)
{
    const sts_flow *const *x = a, *const *y = b;
    return (*x)->ts < (*y)->ts ? -1 : (*x)->ts > (*y)->ts;
}

static int cmp_flow_id(const void *a, const void *b)
{
    const sts_flow *const *x = a, *const *y = b;
    if ((*x)->id != (*y)->id) return (*x)->id < (*y)->id ? -1 : 1;
    if ((*x)->ts != (*y)->ts) return (*x)->ts < (*y)->ts ? -1 : 1;
    return (*x < *y) ? -1 : (*x > *y);
}

/* Pairs each flow's start with its end, leaving out launch flows and device lanes. */
static int flow_pairs(build *b)
{
    size_t n;
    const sts_flow *fl = sts_timeline_flows(b->tl, &n);
    if (!n) return 0;
    const sts_flow **idx = malloc(n * sizeof *idx);
    b->fs = malloc(n * sizeof *b->fs), b->ff = malloc(n * sizeof *b->ff);
    if (!idx || !b->fs || !b->ff) {
        free(idx);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = &fl[i];
    qsort(idx, n, sizeof *idx, cmp_flow_id);
    for (size_t i = 0; i < n; i++) {
        if (idx[i]->phase != 's') continue;
        const char *cat = sts_timeline_string(b->tl, idx[i]->cat);
        if (strstr(cat, "ac2g")) continue;
        for (size_t j = i + 1; j < n && idx[j]->id == idx[i]->id; j++)
            if (idx[j]->phase == 'f' && idx[j]->cat == idx[i]->cat) {
                if (!sts_lane_is_device(b->tl, idx[i]->lane) && !sts_lane_is_device(b->tl, idx[j]->lane))
                    b->fs[b->nflows] = idx[i], b->ff[b->nflows++] = idx[j];
                break;
            }
    }
    free(idx);
    /* by start ts, the ends following */
    const sts_flow **pair = malloc((b->nflows ? b->nflows : 1) * 2 * sizeof *pair);
    if (!pair) return -1;
    for (size_t i = 0; i < b->nflows; i++)
        pair[2 * i] = b->fs[i], pair[2 * i + 1] = b->ff[i];
    qsort(pair, b->nflows, 2 * sizeof *pair, cmp_flow_ts);
    for (size_t i = 0; i < b->nflows; i++)
        b->fs[i] = pair[2 * i], b->ff[i] = pair[2 * i + 1];
    free(pair);
    return 0;
}

/* ---- the whole computation ------------------------------------------------------------ */

static int step_graph(build *b, const sts_step *st, size_t k)
{
    sts_critpath *cp = b->cp;
    sts_cp_graph *g = &cp->graphs[k];
    int64_t ws = st->ts, we = st->ts + st->dur;
    g->ts = ws;
    g->first_node = (uint32_t)cp->nnodes;
    g->first_edge = (uint32_t)cp->nedges;
    g->last = STS_NONE;
    if (host_lane(b, st->lane, ws, we, 1)) return -1;
    for (uint32_t l = 0; l < b->nlanes; l++)
        if (l != st->lane && b->lanes[l].kind == STS_LANE_THREAD && !sts_lane_is_device(b->tl, l) &&
            host_lane(b, l, ws, we, 0))
            return -1;
    if (b->lane_count[st->lane]) g->last = b->lane_first[st->lane] + b->lane_count[st->lane] - 1;
    uint32_t hend = (uint32_t)cp->nnodes, dfirst, dcount;
    if (device_ops(b, ws, we, &dfirst, &dcount)) return -1;
    if (syncs(b, g->first_node, hend, dfirst, dcount)) return -1;
    if (flows(b, ws, we) || waits(b, ws, we, dfirst, dcount)) return -1;
    g->nnodes = (uint32_t)cp->nnodes - g->first_node;
    g->nedges = (uint32_t)cp->nedges - g->first_edge;
    uint32_t *o = realloc(cp->order, (cp->nnodes ? cp->nnodes : 1) * sizeof *o);
    if (!o) return -1;
    cp->order = o;
    g->first_order = g->first_node;
    if (finish_graph(cp, g, k)) return -1;
    /* reset the per-step maps */
    for (uint32_t i = g->first_node; i < g->first_node + g->nnodes; i++) {
        const sts_cp_node *x = &cp->nodes[i];
        if (x->slice != STS_NONE) b->first_seg[x->slice] = b->last_seg[x->slice] = STS_NONE;
        b->lane_count[x->lane] = 0;
        b->lane_last_op[x->lane] = STS_NONE;
    }
    return 0;
}

static int path_of(sts_critpath *cp, size_t k)
{
    const sts_cp_graph *g = &cp->graphs[k];
    sts_cp_step *ps = &cp->steps[k];
    ps->step = (uint32_t)k;
    ps->first_interval = (uint32_t)cp->niv;
    ps->nodes = g->nnodes, ps->edges = g->nedges;
    if (g->last == STS_NONE) return 0;
    size_t n = g->nnodes ? g->nnodes : 1;
    int64_t *start = malloc(n * sizeof *start), *end = malloc(n * sizeof *end);
    uint32_t *bind = malloc(n * sizeof *bind);
    uint32_t *wb = malloc(n * sizeof *wb);
    int rc = -1;
    if (start && end && bind && wb) {
        ps->length_ns = sts_cp_replay(cp, g, NULL, start, end, bind, wb);
        rc = sts_cp_walk(cp, g, start, end, bind, wb);
        ps->known = rc == 0;
    }
    free(start), free(end), free(bind), free(wb);
    ps->interval_count = (uint32_t)(cp->niv - ps->first_interval);
    for (uint32_t i = ps->first_interval; i < ps->first_interval + ps->interval_count; i++)
        ps->by_kind_ns[cp->iv[i].kind] += cp->iv[i].dur_ns;
    return rc;
}

static int prepare(build *b, const sts_timeline *tl, const sts_devview *dv)
{
    size_t nsl;
    b->tl = tl;
    b->sl = sts_timeline_slices(tl, &nsl);
    b->lanes = sts_timeline_lanes(tl, &b->nlanes);
    b->is_launch = calloc(nsl ? nsl : 1, 1);
    b->first_seg = malloc((nsl ? nsl : 1) * sizeof *b->first_seg);
    b->last_seg = malloc((nsl ? nsl : 1) * sizeof *b->last_seg);
    size_t nl = b->nlanes ? b->nlanes : 1;
    b->lane_first = calloc(nl, sizeof *b->lane_first);
    b->lane_count = calloc(nl, sizeof *b->lane_count);
    b->lane_last_op = malloc(nl * sizeof *b->lane_last_op);
    uint32_t bound = sts_an_name_bound(tl);
    b->is_sync = calloc(bound ? bound : 1, 1);
    if (!b->is_launch || !b->first_seg || !b->last_seg || !b->lane_first || !b->lane_count || !b->lane_last_op ||
        !b->is_sync)
        return -1;
    memset(b->first_seg, 0xff, (nsl ? nsl : 1) * sizeof *b->first_seg);
    memset(b->last_seg, 0xff, (nsl ? nsl : 1) * sizeof *b->last_seg);
    memset(b->lane_last_op, 0xff, nl * sizeof *b->lane_last_op);
    b->ln = sts_devview_launches(dv, &b->nln);
    size_t no;
    const uint32_t *orph = sts_devview_orphan_calls(dv, &no);
    for (size_t i = 0; i < b->nln; i++)
        if (b->ln[i].host_slice != STS_NONE) b->is_launch[b->ln[i].host_slice] = 1;
    for (size_t i = 0; i < no; i++)
        b->is_launch[orph[i]] = 1;
    sts_devview_devices(dv, &b->ndev);
    b->dev_first = calloc(b->ndev ? b->ndev : 1, sizeof *b->dev_first);
    b->dev_count = calloc(b->ndev ? b->ndev : 1, sizeof *b->dev_count);
    if (!b->dev_first || !b->dev_count) return -1;
    for (size_t i = 0; i < b->nln; i++) {
        if (!b->dev_count[b->ln[i].device]) b->dev_first[b->ln[i].device] = (uint32_t)i;
        b->dev_count[b->ln[i].device]++;
    }
    if (sts_cp_streams_make(tl, &b->streams)) return -1;
    return flow_pairs(b);
}

static void release(build *b)
{
    free(b->is_launch), free(b->first_seg), free(b->last_seg), free(b->lane_first), free(b->lane_count);
    free(b->lane_last_op), free(b->dev_first), free(b->dev_count), free(b->fs), free(b->ff), free(b->op_launch);
    free(b->is_sync);
    sts_cp_streams_free(b->streams);
}

sts_status sts_critpath_compute(const sts_timeline *tl, const sts_steps *s, const sts_devview *dv, sts_critpath **out,
                                sts_error *err)
{
    *out = NULL;
    if (!tl || !s || !dv)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "critical path: a timeline, its steps and its device view are needed");
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    sts_critpath *cp = calloc(1, sizeof *cp);
    if (!cp) return sts_error_set(err, STS_ERR_NOMEM, -1, "critical path: out of memory");
    cp->tl = tl;
    cp->nsteps = n;
    cp->graphs = calloc(n ? n : 1, sizeof *cp->graphs);
    cp->steps = calloc(n ? n : 1, sizeof *cp->steps);
    build b = { 0 };
    b.cp = cp;
    int rc = !cp->graphs || !cp->steps || prepare(&b, tl, dv);
    for (size_t k = 0; !rc && k < n; k++)
        rc = step_graph(&b, &st[k], k);
    release(&b);
    for (size_t k = 0; !rc && k < n; k++)
        rc = path_of(cp, k);
    if (rc) {
        sts_critpath_free(cp);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "critical path: out of memory");
    }
    cp->counts.nodes = cp->nnodes;
    for (int t = 0; t < CP_E_TYPES; t++)
        cp->counts.edges += cp->counts.by_type[t];
    *out = cp;
    return STS_OK;
}

void sts_critpath_free(sts_critpath *cp)
{
    if (!cp) return;
    for (size_t i = 0; i < cp->nwarnings; i++)
        free(cp->warnings[i]);
    free(cp->warnings), free(cp->iv_names), free(cp->nodes), free(cp->edges), free(cp->order), free(cp->graphs),
        free(cp->steps);
    free(cp->iv), free(cp->pred), free(cp->names), free(cp->checked), free(cp->main_of);
    free(cp);
}

const sts_cp_step *sts_critpath_steps(const sts_critpath *cp, size_t *n)
{
    if (n) *n = cp->nsteps;
    return cp->steps;
}

const sts_cp_interval *sts_critpath_intervals(const sts_critpath *cp, size_t *n)
{
    if (n) *n = cp->niv;
    return cp->iv;
}

const sts_critpath_counts *sts_critpath_get_counts(const sts_critpath *cp)
{
    return &cp->counts;
}

const char *const *sts_critpath_warnings(const sts_critpath *cp, size_t *n)
{
    if (n) *n = cp->nwarnings;
    return (const char *const *)cp->warnings;
}
