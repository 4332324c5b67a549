/* The critical path's stream facts: which stream a synchronization waited on, and the
 * device-side waits between streams (cudaStreamWaitEvent and its twins), from what the
 * trace holds (docs/critical-path.md, "Streams"). Kineto writes both as `cuda_sync`
 * records on the device lanes, each with the `correlation` of its runtime call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/critpath_impl.h"
#include "base/search.h"

enum { R_STREAM_SYNC = 0, R_EVENT_SYNC, R_STREAM_WAIT };

typedef struct rec {
    int64_t corr;
    uint32_t lane; /* the stream a sync waited on; for a wait, the waiting stream */
    uint32_t slice;
} rec;

typedef struct call {
    int64_t corr;
    uint32_t slice;
} call;

typedef struct devlane {
    uint32_t pid; /* string id of the lane's pid label */
    uint32_t lane;
    int64_t stream;
} devlane;

struct sts_cp_streams {
    rec *recs; /* sync records by correlation */
    size_t nrecs;
    call *records, *waits; /* cudaEventRecord and cudaStreamWaitEvent calls by correlation */
    size_t nrecords, nwaits;
    sts_cp_wait *w; /* by ts_wait */
    size_t nw;
    devlane *dl;
    size_t ndl;
};

static int arg_int(const sts_timeline *tl, const sts_slice *s, const char *key, int64_t *v)
{
    const sts_arg *a = sts_timeline_find_arg(tl, s->args, key);
    if (!a) return 0;
    if (a->type == STS_ARG_INT)
        *v = a->v.i;
    else if (a->type == STS_ARG_DOUBLE && a->v.d == (double)(int64_t)a->v.d)
        *v = (int64_t)a->v.d;
    else
        return 0;
    return 1;
}

static int cmp_corr(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The device lane of stream `stream`: on the process with pid label `pid` (STS_NONE: any,
 * if only one process has such a stream). Kineto names a stream lane by its number as
 * the tid. */
static uint32_t stream_lane(const sts_cp_streams *x, uint32_t pid, int64_t stream)
{
    uint32_t found = STS_NONE;
    for (size_t i = 0; i < x->ndl; i++) {
        if (x->dl[i].stream != stream || (pid != STS_NONE && x->dl[i].pid != pid)) continue;
        if (found != STS_NONE) return STS_NONE;
        found = x->dl[i].lane;
    }
    return found;
}

static const call *find_call(const call *c, size_t n, int64_t corr)
{
    size_t lo = 0, hi = n;
    STS_BISECT(size_t, lo, hi, mid, c[mid].corr < corr);
    return lo < n && c[lo].corr == corr ? &c[lo] : NULL;
}

/* The string ids of names[0..n) (STS_NONE for one the trace never uses), so the pass
 * over the slices compares ids, not text. */
static void ids_of(const sts_timeline *tl, const char *const *names, size_t n, uint32_t *ids)
{
    for (size_t i = 0; i < n; i++)
        ids[i] = sts_timeline_find_string(tl, names[i]);
}

static int is_any(uint32_t name, const uint32_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == name) return 1;
    return 0;
}

static const char *const RECORD_CALLS[] = { "cudaEventRecord", "cuEventRecord", "hipEventRecord",
                                            "cudaEventRecordWithFlags", "hipEventRecordWithFlags" };
static const char *const WAIT_CALLS[] = { "cudaStreamWaitEvent", "cuStreamWaitEvent", "hipStreamWaitEvent" };
#define NREC  (sizeof RECORD_CALLS / sizeof *RECORD_CALLS)
#define NWAIT (sizeof WAIT_CALLS / sizeof *WAIT_CALLS)

static int push_wait(sts_cp_streams *x, size_t *cap, int64_t t_wait, int64_t t_src, uint32_t src, uint32_t dst)
{
    if (src == STS_NONE || dst == STS_NONE || src == dst) return 0;
    if (x->nw == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        sts_cp_wait *w = realloc(x->w, c * sizeof *w);
        if (!w) return -1;
        x->w = w, *cap = c;
    }
    x->w[x->nw++] = (sts_cp_wait){ t_wait, t_src, src, dst };
    return 0;
}

static int cmp_wait(const void *a, const void *b)
{
    const sts_cp_wait *x = a, *y = b;
    if (x->ts_wait != y->ts_wait) return x->ts_wait < y->ts_wait ? -1 : 1;
    return x->lane_dst < y->lane_dst ? -1 : x->lane_dst > y->lane_dst;
}

/* A wait: the host call that enqueued it (by correlation) gives its time, the event
 * record it names (wait_on_cuda_event_record_corr_id) the time the event was recorded;
 * without them, the record's own time stands for both. */
static int wait_of(sts_cp_streams *x, const sts_timeline *tl, const sts_slice *sl, const sts_slice *s, uint32_t pid,
                   size_t *cap, uint8_t *used)
{
    int64_t corr, ws, src_stream, rc;
    if (!arg_int(tl, s, "wait_on_stream", &src_stream)) return 0;
    uint32_t src = stream_lane(x, pid, src_stream), dst = s->lane;
    int64_t t_wait = s->ts, t_src;
    if (pid == STS_NONE) { /* a host call that names both streams itself */
        if (!arg_int(tl, s, "stream", &ws)) return 0;
        dst = stream_lane(x, STS_NONE, ws);
    } else if (arg_int(tl, s, "correlation", &corr)) {
        const call *c = find_call(x->waits, x->nwaits, corr);
        if (c) t_wait = sl[c->slice].ts, used[c - x->waits] = 1;
    }
    t_src = t_wait;
    if (arg_int(tl, s, "wait_on_cuda_event_record_corr_id", &rc)) {
        const call *c = find_call(x->records, x->nrecords, rc);
        if (c && sl[c->slice].ts <= t_wait) t_src = sl[c->slice].ts;
    }
    return push_wait(x, cap, t_wait, t_src, src, dst);
}

static int collect(sts_cp_streams *x, const sts_timeline *tl)
{
    size_t nsl, nl, caprec = 0, caprc = 0, capw = 0, capdl = 0, capwait = 0;
    const sts_slice *sl = sts_timeline_slices(tl, &nsl);
    sts_timeline_lanes(tl, &nl);
    for (uint32_t l = 0; l < nl; l++) {
        char *end;
        const char *tid = sts_lane_tid(tl, l);
        long long v = strtoll(tid, &end, 10);
        if (!sts_lane_is_device(tl, l) || end == tid || *end) continue;
        if (x->ndl == capdl) {
            capdl = capdl ? capdl * 2 : 16;
            devlane *d = realloc(x->dl, capdl * sizeof *d);
            if (!d) return -1;
            x->dl = d;
        }
        x->dl[x->ndl++] = (devlane){ sts_timeline_find_string(tl, sts_lane_pid(tl, l)), l, v };
    }
    uint32_t n_ss = sts_timeline_find_string(tl, "Stream Sync"), n_es = sts_timeline_find_string(tl, "Event Sync");
    uint32_t n_sw = sts_timeline_find_string(tl, "Stream Wait Event"), rec_ids[NREC], wait_ids[NWAIT];
    ids_of(tl, RECORD_CALLS, NREC, rec_ids);
    ids_of(tl, WAIT_CALLS, NWAIT, wait_ids);
    for (size_t i = 0; i < nsl; i++) {
        const sts_slice *s = &sl[i];
        int64_t corr;
        int kind = s->name == n_ss ? R_STREAM_SYNC : s->name == n_es ? R_EVENT_SYNC : -1;
        if (kind >= 0 && sts_lane_is_device(tl, s->lane) && arg_int(tl, s, "correlation", &corr)) {
            uint32_t lane = s->lane;
            int64_t ws;
            if (kind == R_EVENT_SYNC)
                lane = arg_int(tl, s, "wait_on_stream", &ws)
                           ? stream_lane(x, sts_timeline_find_string(tl, sts_lane_pid(tl, s->lane)), ws)
                           : STS_NONE;
            if (lane == STS_NONE) continue;
            if (x->nrecs == caprec) {
                caprec = caprec ? caprec * 2 : 64;
                rec *r = realloc(x->recs, caprec * sizeof *r);
                if (!r) return -1;
                x->recs = r;
            }
            x->recs[x->nrecs++] = (rec){ corr, lane, (uint32_t)i };
            continue;
        }
        int is_rec = is_any(s->name, rec_ids, NREC);
        if (!is_rec && !is_any(s->name, wait_ids, NWAIT)) continue;
        if (sts_lane_is_device(tl, s->lane) || !arg_int(tl, s, "correlation", &corr)) continue;
        call **arr = is_rec ? &x->records : &x->waits;
        size_t *cnt = is_rec ? &x->nrecords : &x->nwaits, *cap = is_rec ? &caprc : &capw;
        if (*cnt == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            call *c = realloc(*arr, *cap * sizeof *c);
            if (!c) return -1;
            *arr = c;
        }
        (*arr)[(*cnt)++] = (call){ corr, (uint32_t)i };
    }
    if (x->nrecs) qsort(x->recs, x->nrecs, sizeof *x->recs, cmp_corr);
    if (x->nrecords) qsort(x->records, x->nrecords, sizeof *x->records, cmp_corr);
    if (x->nwaits) qsort(x->waits, x->nwaits, sizeof *x->waits, cmp_corr);
    uint8_t *used = calloc(x->nwaits ? x->nwaits : 1, 1);
    if (!used) return -1;
    int rc = 0;
    for (size_t i = 0; !rc && n_sw != STS_NONE && i < nsl; i++)
        if (sl[i].name == n_sw && sts_lane_is_device(tl, sl[i].lane))
            rc = wait_of(x, tl, sl, &sl[i], sts_timeline_find_string(tl, sts_lane_pid(tl, sl[i].lane)), &capwait, used);
    for (size_t i = 0; !rc && i < x->nwaits; i++)
        if (!used[i]) rc = wait_of(x, tl, sl, &sl[x->waits[i].slice], STS_NONE, &capwait, used);
    free(used);
    if (x->nw) qsort(x->w, x->nw, sizeof *x->w, cmp_wait);
    return rc;
}

void sts_cp_streams_free(sts_cp_streams *x)
{
    if (!x) return;
    free(x->recs), free(x->records), free(x->waits), free(x->w), free(x->dl);
    free(x);
}

int sts_cp_streams_make(const sts_timeline *tl, sts_cp_streams **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out) return -1;
    if (collect(*out, tl)) {
        sts_cp_streams_free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

uint32_t sts_cp_sync_lane(const sts_cp_streams *x, const sts_timeline *tl, uint32_t slice)
{
    const sts_slice *s = &sts_timeline_slices(tl, NULL)[slice];
    int64_t v;
    if (arg_int(tl, s, "stream", &v)) return stream_lane(x, STS_NONE, v);
    if (!arg_int(tl, s, "correlation", &v)) return STS_NONE;
    size_t lo = 0, hi = x->nrecs;
    STS_BISECT(size_t, lo, hi, mid, x->recs[mid].corr < v);
    return lo < x->nrecs && x->recs[lo].corr == v ? x->recs[lo].lane : STS_NONE;
}

const sts_cp_wait *sts_cp_waits(const sts_cp_streams *x, size_t *n)
{
    *n = x->nw;
    return x->w;
}
