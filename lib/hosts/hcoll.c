/* A host's collective ops (STS_HOSTS_COLLECTIVES): every collective slice of its device
 * lanes (sts_collective_kind() of the name), the outermost per device (an XLA op and the
 * NCCL kernel under it on another line of the same GPU are one op), with the args that
 * match it across hosts and the host's step around its start. docs/collectives.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/search.h"
#include "hosts/hosts_impl.h"

typedef struct cand {
    int64_t ts, dur;
    uint32_t slice;
    uint32_t device; /* process index */
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* the outer one first */
    return (x->slice > y->slice) - (x->slice < y->slice);
}

/* An arg as an integer: ints, integral doubles, and decimal strings ("1024"); -1 when
 * absent or not a non-negative integer. */
static int64_t arg_int(const sts_timeline *tl, uint32_t args, const char *key)
{
    const sts_arg *a = sts_timeline_find_arg(tl, args, key);
    if (!a) return -1;
    if (a->type == STS_ARG_INT) return a->v.i >= 0 ? a->v.i : -1;
    if (a->type == STS_ARG_DOUBLE)
        return a->v.d >= 0 && a->v.d < 9e18 && a->v.d == (double)(int64_t)a->v.d ? (int64_t)a->v.d : -1;
    if (a->type != STS_ARG_STRING) return -1;
    const char *s = sts_timeline_string(tl, a->v.str);
    int64_t v = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10) return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* An arg as text (ints written in decimal into buf); NULL when absent or empty. */
static const char *arg_text(const sts_timeline *tl, uint32_t args, const char *key, char *buf, size_t cap)
{
    const sts_arg *a = sts_timeline_find_arg(tl, args, key);
    if (!a) return NULL;
    if (a->type == STS_ARG_STRING || a->type == STS_ARG_JSON) {
        const char *s = sts_timeline_string(tl, a->v.str);
        return *s ? s : NULL;
    }
    if (a->type == STS_ARG_INT) {
        snprintf(buf, cap, "%lld", (long long)a->v.i);
        return buf;
    }
    return NULL;
}

static int starts_nocase(const char *s, const char *p)
{
    for (; *p; s++, p++)
        if ((*s | 0x20) != *p) return 0;
    return 1;
}

/* The op's args into o; strings interned into the record. */
static void read_args(sts_host_rec *r, const sts_timeline *tl, const sts_slice *s, const char *kind,
                      sts_host_coll_op *o, int *bad)
{
    char buf[32];
    const char *slice_name = sts_timeline_string(tl, s->name);
    const char *cname = arg_text(tl, s->args, "Collective name", buf, sizeof buf);
    /* NCCL/RCCL kernel names carry the algorithm and the type; the kind is what ranks share. */
    if (!cname) cname = starts_nocase(slice_name, "nccl") || starts_nocase(slice_name, "rccl") ? kind : slice_name;
    o->name = sts_host_rec_str(r, cname, bad);
    o->kind = sts_host_rec_str(r, kind, bad);
    static const char *const group_keys[] = { "Process Group Name", "Process Group ID", "pg_id", "Process Group Ranks",
                                              "hlo_module" };
    const char *group = NULL;
    for (size_t k = 0; k < sizeof group_keys / sizeof group_keys[0] && !group; k++)
        group = arg_text(tl, s->args, group_keys[k], buf, sizeof buf);
    o->group = sts_host_rec_str(r, group, bad);
    o->dtype = sts_host_rec_str(r, arg_text(tl, s->args, "dtype", buf, sizeof buf), bad);
    o->seq = arg_int(tl, s->args, "Seq");
    if (o->seq < 0) o->seq = arg_int(tl, s->args, "seq");
    o->in_nelems = arg_int(tl, s->args, "In msg nelems");
    o->out_nelems = arg_int(tl, s->args, "Out msg nelems");
    o->group_size = arg_int(tl, s->args, "Group size");
}

/* The step of `st` holding ts (steps are in time order; the latest one starting at or
 * before ts that has not ended), or -1. */
static long step_at(const sts_step *st, size_t n, int64_t ts)
{
    size_t lo = 0, hi = n;
    STS_BISECT(size_t, lo, hi, mid, st[mid].ts <= ts);
    for (size_t k = lo; k-- > 0;)
        if (ts < st[k].ts + st[k].dur) return (long)k;
    return -1;
}

/* The step's children (slices of its lane whose parent is the step) clipped to
 * [step start, ts), summed by name into r->cpre. */
static int pre_children(sts_host_rec *r, const sts_timeline *tl, const sts_step *step, int64_t ts, sts_host_coll_op *o)
{
    size_t nl;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const sts_lane *l = &lanes[step->lane];
    uint32_t end = l->first_slice + l->slice_count;
    o->first_pre = (uint32_t)r->cpre.n;
    int bad = 0;
    for (uint32_t i = step->slice + 1; i < end && s[i].ts < ts && !bad; i++) {
        if (s[i].parent != step->slice) continue;
        int64_t b = s[i].ts + s[i].dur < ts ? s[i].ts + s[i].dur : ts;
        if (b <= s[i].ts) continue;
        const char *nm = sts_timeline_string(tl, s[i].name);
        sts_host_child *c = NULL;
        for (uint32_t k = o->first_pre; k < r->cpre.n; k++)
            if (strcmp(r->cpre.v[k].name, nm) == 0) c = &r->cpre.v[k];
        if (!c) {
            c = STS_VEC_PUSH(r->cpre);
            if (!c) return -1;
            c->name = sts_host_rec_str(r, nm, &bad);
            c->count = 0;
            c->total_ns = 0;
        }
        c->count++;
        c->total_ns += b - s[i].ts;
    }
    o->pre_count = (uint32_t)(r->cpre.n - o->first_pre);
    return bad ? -1 : 0;
}

static const char *device_name(const sts_timeline *tl, uint32_t lane, char *buf, size_t cap)
{
    const char *p = sts_lane_process_name(tl, lane);
    if (p && *p) return p;
    snprintf(buf, cap, "pid %s", sts_lane_pid(tl, lane));
    return buf;
}

/* ---- CPU-side collectives: c10d calls and the gloo work that carries them out ---------- */

/* The kind of a c10d op ("c10d::allreduce_"), a gloo work annotation ("gloo:all_reduce")
 * or a record_param_comms "Collective name" ("allreduce", "_allgather_base"): the name
 * with its prefix, underscores and PyTorch's variant suffixes dropped; NULL for others
 * (barrier, send/recv: no data every rank waits on). */
static const char *cpu_kind(const char *name)
{
    static const struct {
        const char *word, *kind;
    } kinds[] = {
        { "allreduce", "all-reduce" },
        { "allreducecoalesced", "all-reduce" },
        { "allgather", "all-gather" },
        { "allgatherbase", "all-gather" },
        { "allgatherintotensorcoalesced", "all-gather" },
        { "allgathercoalesced", "all-gather" },
        { "broadcast", "broadcast" },
        { "reducescatter", "reduce-scatter" },
        { "reducescatterbase", "reduce-scatter" },
        { "reducescattertensorcoalesced", "reduce-scatter" },
        { "reduce", "reduce" },
        { "alltoall", "all-to-all" },
        { "alltoallbase", "all-to-all" },
    };
    if (strncmp(name, "c10d::", 6) == 0)
        name += 6;
    else if (strncmp(name, "gloo:", 5) == 0)
        name += 5;
    char w[40];
    size_t n = 0;
    for (; *name; name++) {
        if (*name == '_') continue;
        if (n + 1 >= sizeof w) return NULL;
        w[n++] = (char)(*name | 0x20);
    }
    w[n] = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(w, kinds[k].word) == 0) return kinds[k].kind;
    return NULL;
}

/* The kind of a calling-thread collective slice: a c10d op, or record_param_comms by its
 * "Collective name". */
static const char *call_kind(const sts_timeline *tl, const sts_slice *s)
{
    const char *nm = sts_timeline_string(tl, s->name);
    if (strncmp(nm, "c10d::", 6) == 0) return cpu_kind(nm);
    if (strcmp(nm, "record_param_comms") != 0) return NULL;
    char buf[32];
    const char *c = arg_text(tl, s->args, "Collective name", buf, sizeof buf);
    return c ? cpu_kind(c) : NULL;
}

static int cmp_ts(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return (x->slice > y->slice) - (x->slice < y->slice);
}

/* The host's collective calls on its host threads (outermost per thread; a nested
 * record_param_comms lends the call its args: seq, group, name) paired in time order with
 * its gloo:* work annotations: the k-th call with the k-th work. Arrival is the call's
 * start, the end is its work's end. A host whose calls and works do not pair one to one,
 * of the same kind, each work starting at or after its call, gives no op (their ends
 * would be guesses); without any work, nothing is counted. docs/collectives.md. */
/* One op of the record: slice x on its device or thread, its args read from `args`,
 * ending at `end`, with the step holding its start and that step's children before it. */
static void push_op(sts_host_rec *r, const sts_timeline *tl, const sts_slice *x, const sts_slice *args,
                    const char *kind, int64_t end, const sts_step *st, size_t ns, int *bad)
{
    sts_host_coll_op *o = STS_VEC_PUSH(r->cops);
    if (!o) {
        *bad = 1;
        return;
    }
    memset(o, 0, sizeof *o);
    char buf[64];
    o->device = sts_host_rec_str(r, device_name(tl, x->lane, buf, sizeof buf), bad);
    read_args(r, tl, args, kind, o, bad);
    o->ts_ns = x->ts;
    o->end_ns = end;
    long k = step_at(st, ns, x->ts);
    o->first_pre = (uint32_t)r->cpre.n;
    if (k >= 0) {
        o->in_step = 1;
        o->step = st[k].index;
        if (pre_children(r, tl, &st[k], x->ts, o) != 0) *bad = 1;
    }
}

static int cpu_colls(sts_host_rec *r, const sts_timeline *tl, const sts_steps *steps)
{
    size_t nl, ns;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const sts_step *st = sts_steps_list(steps, &ns);
    STS_VEC(cand) calls = { 0 };
    STS_VEC(cand) works = { 0 };
    STS_VEC(uint32_t) argsl = { 0 };
    int bad = 0;
    for (uint32_t l = 0; l < nl && !bad; l++) {
        if (sts_lane_is_device(tl, l)) continue;
        for (uint32_t i = lanes[l].first_slice; i < lanes[l].first_slice + lanes[l].slice_count && !bad; i++) {
            if (s[i].dur <= 0) continue;
            const char *nm = sts_timeline_string(tl, s[i].name);
            int work = strncmp(nm, "gloo:", 5) == 0 && cpu_kind(nm);
            if (!work && !call_kind(tl, &s[i])) continue;
            cand *x = work ? STS_VEC_PUSH(works) : STS_VEC_PUSH(calls);
            if (!x) {
                bad = 1;
                break;
            }
            x->ts = s[i].ts;
            x->dur = s[i].dur;
            x->slice = i;
            x->device = l; /* the thread: outermost is per calling thread */
        }
    }
    if (!bad && calls.n > 1) qsort(calls.v, calls.n, sizeof *calls.v, cmp_cand);
    /* Outermost per thread; nested ones are the same call. */
    size_t kept = 0;
    uint64_t nested = 0;
    int64_t reach = INT64_MIN;
    for (size_t k = 0; k < calls.n && !bad; k++) {
        int64_t end = calls.v[k].ts + calls.v[k].dur;
        if (k && calls.v[k - 1].device != calls.v[k].device) reach = INT64_MIN;
        if (end <= reach) {
            nested++;
            const char *nm = sts_timeline_string(tl, s[calls.v[k].slice].name);
            if (kept && strcmp(nm, "record_param_comms") == 0) argsl.v[kept - 1] = calls.v[k].slice;
            continue;
        }
        reach = end;
        calls.v[kept] = calls.v[k];
        uint32_t *a = STS_VEC_PUSH(argsl);
        if (!a)
            bad = 1;
        else
            *a = calls.v[k].slice;
        kept++;
    }
    calls.n = kept;
    /* In time order over the host's threads, calls and their args together. */
    for (size_t k = 0; k < calls.n; k++)
        calls.v[k].dur = argsl.v[k]; /* carried through the sort */
    if (!bad && calls.n > 1) qsort(calls.v, calls.n, sizeof *calls.v, cmp_ts);
    if (!bad && works.n > 1) qsort(works.v, works.n, sizeof *works.v, cmp_ts);
    int paired = !bad && calls.n == works.n;
    for (size_t k = 0; k < calls.n && paired; k++) {
        const sts_slice *c = &s[calls.v[k].slice], *w = &s[works.v[k].slice];
        const char *ck = call_kind(tl, c);
        paired = w->ts >= c->ts && ck == cpu_kind(sts_timeline_string(tl, w->name));
    }
    /* Without any gloo work the calls ran on another backend whose work the trace does
     * not hold (NCCL without its kernels): not CPU collectives, nothing to count. */
    if (!bad && !paired && works.n) r->colls_unpaired += calls.n;
    if (paired) r->colls_nested += nested;
    for (size_t k = 0; k < calls.n && paired && !bad; k++) {
        const sts_slice *x = &s[calls.v[k].slice], *w = &s[works.v[k].slice], *args = &s[calls.v[k].dur];
        int64_t end = w->ts + w->dur > x->ts + x->dur ? w->ts + w->dur : x->ts + x->dur;
        push_op(r, tl, x, args, call_kind(tl, x), end, st, ns, &bad);
    }
    STS_VEC_RELEASE(calls);
    STS_VEC_RELEASE(works);
    STS_VEC_RELEASE(argsl);
    return bad ? -1 : 0;
}

sts_status sts_host_rec_colls(sts_host_rec *r, const sts_timeline *tl, const sts_steps *steps, sts_error *err)
{
    size_t nl, ns;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const sts_step *st = sts_steps_list(steps, &ns);
    r->has_colls = 1;
    STS_VEC(cand) c = { 0 };
    int bad = 0;
    for (uint32_t l = 0; l < nl && !bad; l++) {
        if (!sts_lane_is_device(tl, l)) continue;
        for (uint32_t i = lanes[l].first_slice; i < lanes[l].first_slice + lanes[l].slice_count; i++) {
            if (s[i].dur <= 0 || !sts_collective_kind(sts_timeline_string(tl, s[i].name))) continue;
            cand *x = STS_VEC_PUSH(c);
            if (!x) {
                bad = 1;
                break;
            }
            x->ts = s[i].ts;
            x->dur = s[i].dur;
            x->slice = i;
            x->device = lanes[l].process;
        }
    }
    if (!bad && c.n > 1) qsort(c.v, c.n, sizeof *c.v, cmp_cand);
    int64_t reach = INT64_MIN;
    for (size_t k = 0; k < c.n && !bad; k++) {
        const sts_slice *x = &s[c.v[k].slice];
        int64_t end = x->ts + x->dur;
        if (k && c.v[k - 1].device != c.v[k].device) reach = INT64_MIN;
        if (end <= reach) {
            r->colls_nested++;
            continue;
        }
        reach = end;
        push_op(r, tl, x, x, sts_collective_kind(sts_timeline_string(tl, x->name)), end, st, ns, &bad);
    }
    /* A host without device collectives may run them on its CPUs (gloo). */
    if (!bad && !c.n && cpu_colls(r, tl, steps) != 0) bad = 1;
    /* Marked: gloo's ranks do not leave a collective together, so these ends give no clock offset. */
    if (!bad && !c.n && r->cops.n) r->has_colls = 2;
    STS_VEC_RELEASE(c);
    return bad ? sts_hosts_nomem(err) : STS_OK;
}
