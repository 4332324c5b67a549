/* Collectives matched across hosts (stepscope/hosts.h, docs/collectives.md): each host's
 * collective ops (hcoll.c) keyed by (group, seq) where the trace numbers them, else by
 * (group, name, place among the rank's ops of that group and name); the hosts' clock
 * offsets from the instances' ends; then each instance on the aligned clocks. */
#include <stdlib.h>
#include <string.h>

#include "hosts/hosts_impl.h"

/* One op of one rank, with its matching key. */
typedef struct entry {
    uint32_t rank;
    const sts_host_coll_op *op;
    int by;            /* sts_coll_match */
    const char *group; /* "" when unknown */
    const char *name;  /* the key's name: STS_COLL_BY_ORDER only ("" otherwise) */
    int64_t seq;       /* the trace's seq, or the op's place */
} entry;

struct sts_collectives {
    STS_VEC(sts_coll_rank) ranks;
    STS_VEC(sts_coll_instance) inst;
    STS_VEC(sts_coll_arrival) arr;
    STS_VEC(sts_coll_step) steps;
    STS_VEC(uint32_t) step_inst;
    sts_coll_counts counts;
    size_t nhosts;
    int64_t *offset; /* per host */
    int *comp;       /* per host: its offset's component (0: the reference host's), -1: none */
    int64_t residual_median, residual_max;
    int have_residual;
    STS_VEC(char *) labels; /* owned "HOST DEVICE" labels */
};

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* ---- ranks ------------------------------------------------------------------------------ */

static int cmp_pstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each host's distinct devices with ops, sorted by name: the ranks, host by host. */
static int make_ranks(sts_collectives *c, const sts_hosts *h)
{
    for (size_t i = 0; i < h->hosts.n; i++) {
        const sts_host_rec *r = h->hosts.v[i];
        if (!r->has_colls || !r->cops.n) continue;
        const char **d = malloc(r->cops.n * sizeof *d);
        if (!d) return -1;
        size_t nd = 0;
        for (size_t k = 0; k < r->cops.n; k++)
            d[nd++] = r->cops.v[k].device;
        qsort(d, nd, sizeof *d, cmp_pstr);
        size_t u = 0;
        for (size_t k = 0; k < nd; k++)
            if (!u || strcmp(d[u - 1], d[k]) != 0) d[u++] = d[k];
        for (size_t k = 0; k < u; k++) {
            sts_coll_rank *rk = STS_VEC_PUSH(c->ranks);
            if (!rk) {
                free(d);
                return -1;
            }
            rk->host = (uint32_t)i;
            rk->device = d[k];
            rk->label = r->info.name;
            if (u > 1) {
                size_t len = strlen(r->info.name) + strlen(d[k]) + 2;
                char *l = malloc(len), **slot = l ? STS_VEC_PUSH(c->labels) : NULL;
                if (!slot) {
                    free(l);
                    free(d);
                    return -1;
                }
                snprintf(l, len, "%s %s", r->info.name, d[k]);
                *slot = l;
                rk->label = l;
            }
        }
        free(d);
    }
    return 0;
}

static uint32_t rank_of(const sts_collectives *c, uint32_t host, const char *device)
{
    size_t lo = 0, hi = c->ranks.n; /* ranks are by host, then device name */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const sts_coll_rank *r = &c->ranks.v[mid];
        int d = r->host != host ? (r->host < host ? -1 : 1) : strcmp(r->device, device);
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* ---- keys --------------------------------------------------------------------------------- */

static int cmp_place(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int d;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if ((d = x->by - y->by) != 0) return d;
    if ((d = strcmp(x->group, y->group)) != 0) return d;
    if ((d = strcmp(x->name, y->name)) != 0) return d;
    return cmp_i64(x->op->ts_ns, y->op->ts_ns);
}

static int cmp_key(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int d;
    if ((d = x->by - y->by) != 0) return d;
    if ((d = strcmp(x->group, y->group)) != 0) return d;
    if ((d = strcmp(x->name, y->name)) != 0) return d;
    if ((d = cmp_i64(x->seq, y->seq)) != 0) return d;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return cmp_i64(x->op->ts_ns, y->op->ts_ns);
}

static int same_key(const entry *x, const entry *y)
{
    return x->by == y->by && x->seq == y->seq && strcmp(x->group, y->group) == 0 && strcmp(x->name, y->name) == 0;
}

/* Every op of every rank with its key; ops without a seq get their place among their
 * rank's ops of the same group and name. */
static entry *make_entries(sts_collectives *c, const sts_hosts *h, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < h->hosts.n; i++)
        total += h->hosts.v[i]->has_colls ? h->hosts.v[i]->cops.n : 0;
    entry *e = malloc((total ? total : 1) * sizeof *e);
    if (!e) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < h->hosts.n; i++) {
        const sts_host_rec *r = h->hosts.v[i];
        if (!r->has_colls) continue;
        c->counts.nested += r->colls_nested;
        c->counts.unpaired += r->colls_unpaired;
        for (size_t j = 0; j < r->cops.n; j++, k++) {
            const sts_host_coll_op *o = &r->cops.v[j];
            e[k].rank = rank_of(c, (uint32_t)i, o->device);
            e[k].op = o;
            e[k].by = o->seq >= 0 ? STS_COLL_BY_SEQ : STS_COLL_BY_ORDER;
            e[k].group = o->group ? o->group : "";
            e[k].name = o->seq >= 0 ? "" : o->name;
            e[k].seq = o->seq;
        }
    }
    c->counts.ops = total;
    if (total > 1) qsort(e, total, sizeof *e, cmp_place);
    for (size_t a = 0; a < total; a++) {
        if (e[a].by != STS_COLL_BY_ORDER) continue;
        int first = !a || e[a - 1].rank != e[a].rank || e[a - 1].by != e[a].by ||
                    strcmp(e[a - 1].group, e[a].group) != 0 || strcmp(e[a - 1].name, e[a].name) != 0;
        e[a].seq = first ? 0 : e[a - 1].seq + 1;
    }
    if (total > 1) qsort(e, total, sizeof *e, cmp_key);
    *n = total;
    return e;
}

/* Groups matched by order whose ranks hold different counts of ops: their places do not
 * say which ops belong together, so none of them is matched. Marks them by->-1. */
static void drop_uneven(sts_collectives *c, entry *e, size_t n)
{
    size_t a = 0;
    while (a < n) {
        size_t b = a;
        while (b < n && e[b].by == e[a].by && strcmp(e[b].group, e[a].group) == 0 && strcmp(e[b].name, e[a].name) == 0)
            b++;
        if (e[a].by == STS_COLL_BY_ORDER) {
            /* Every place holds the same ranks when the counts are even: the first place's
             * rank count times the places is the group's size. */
            size_t first = a, places = (size_t)e[b - 1].seq + 1;
            while (first < b && e[first].seq == 0)
                first++;
            if ((first - a) * places != b - a) {
                c->counts.uneven++;
                for (size_t k = a; k < b; k++)
                    e[k].by = -1;
            }
        }
        a = b;
    }
}

/* ---- clock offsets ------------------------------------------------------------------------ */

typedef struct hostend {
    uint32_t host;
    int64_t end; /* the median of the host's ranks' ends in the instance */
} hostend;

typedef STS_VEC(hostend) hostend_vec;

/* Per kept instance, its hosts' ends: ends[ioff[i] .. ioff[i + 1]). */
static int instance_host_ends(const sts_collectives *c, hostend_vec *ends, size_t *ioff)
{
    int64_t tmp[64];
    for (size_t i = 0; i < c->inst.n; i++) {
        ioff[i] = ends->n;
        const sts_coll_instance *in = &c->inst.v[i];
        for (uint32_t a = in->first; a < in->first + in->count;) {
            uint32_t host = c->ranks.v[c->arr.v[a].rank].host, b = a;
            size_t m = 0;
            while (b < in->first + in->count && c->ranks.v[c->arr.v[b].rank].host == host) {
                if (m < 64) tmp[m++] = c->arr.v[b].end_ns;
                b++;
            }
            hostend *he = STS_VEC_PUSH(*ends);
            if (!he) return -1;
            he->host = host;
            he->end = sts_median_i64(tmp, m);
            a = b;
        }
    }
    ioff[c->inst.n] = ends->n;
    return 0;
}

/* Offsets in passes: a host without one gets the median, over the instances it shares
 * with hosts that have one, of its end minus theirs (made aligned); one host per
 * component starts at 0, the first with ops being the reference (component 0). */
static int estimate_offsets(sts_collectives *c)
{
    size_t nh = c->nhosts ? c->nhosts : 1;
    size_t *ioff = malloc((c->inst.n + 1) * sizeof *ioff), *hoff = calloc(nh + 1, sizeof *hoff);
    hostend_vec ends = { 0 };
    STS_VEC(int64_t) diffs = { 0 };
    uint32_t *inst_of = NULL, *by_host = NULL; /* a hostend's instance; hostends by host */
    int *done = calloc(nh, sizeof *done);
    int rc = -1;
    if (!ioff || !hoff || !done || instance_host_ends(c, &ends, ioff) != 0) goto out;
    inst_of = malloc((ends.n ? ends.n : 1) * sizeof *inst_of);
    by_host = malloc((ends.n ? ends.n : 1) * sizeof *by_host);
    if (!inst_of || !by_host) goto out;
    for (size_t i = 0; i < c->inst.n; i++)
        for (size_t k = ioff[i]; k < ioff[i + 1]; k++)
            inst_of[k] = (uint32_t)i;
    for (size_t k = 0; k < ends.n; k++)
        hoff[ends.v[k].host + 1]++;
    for (size_t h = 0; h < nh; h++)
        hoff[h + 1] += hoff[h];
    for (size_t k = 0; k < ends.n; k++)
        by_host[hoff[ends.v[k].host]++] = (uint32_t)k;
    for (size_t h = nh; h > 0; h--) /* hoff[h] is now host h's start */
        hoff[h] = hoff[h - 1];
    hoff[0] = 0;
    for (int comp = 0;; comp++) {
        size_t root = c->nhosts;
        for (size_t i = 0; i < c->nhosts && root == c->nhosts; i++)
            if (hoff[i + 1] > hoff[i] && c->comp[i] < 0) root = i;
        if (root == c->nhosts) break;
        c->comp[root] = comp;
        c->offset[root] = 0;
        done[root] = 1;
        for (int progress = 1; progress;) {
            progress = 0;
            for (size_t hst = 0; hst < c->nhosts; hst++) {
                if (c->comp[hst] >= 0) continue;
                diffs.n = 0;
                for (size_t q = hoff[hst]; q < hoff[hst + 1]; q++) {
                    const hostend *mine = &ends.v[by_host[q]], *known = NULL;
                    uint32_t i = inst_of[by_host[q]];
                    for (size_t k = ioff[i]; k < ioff[i + 1] && !known; k++)
                        if (done[ends.v[k].host] && c->comp[ends.v[k].host] == comp) known = &ends.v[k];
                    int64_t aligned, d;
                    if (!known || __builtin_sub_overflow(known->end, c->offset[known->host], &aligned) ||
                        __builtin_sub_overflow(mine->end, aligned, &d))
                        continue;
                    int64_t *slot = STS_VEC_PUSH(diffs);
                    if (!slot) goto out;
                    *slot = d;
                }
                if (!diffs.n) continue;
                c->offset[hst] = sts_median_i64(diffs.v, diffs.n);
                c->comp[hst] = comp;
                progress = 1;
            }
            /* Hosts placed in this pass serve the next one. */
            for (size_t hst = 0; hst < c->nhosts; hst++)
                if (c->comp[hst] == comp) done[hst] = 1;
        }
    }
    rc = 0;
out:
    free(ioff);
    free(hoff);
    free(done);
    free(inst_of);
    free(by_host);
    STS_VEC_RELEASE(ends);
    STS_VEC_RELEASE(diffs);
    return rc;
}

/* ---- instances ------------------------------------------------------------------------------ */

static int64_t dtype_size(const char *t)
{
    static const struct {
        const char *name;
        int64_t size;
    } sizes[] = {
        { "Float", 4 },         { "float", 4 },       { "float32", 4 }, { "Double", 8 },       { "double", 8 },
        { "float64", 8 },       { "Half", 2 },        { "half", 2 },    { "float16", 2 },      { "BFloat16", 2 },
        { "bfloat16", 2 },      { "Long", 8 },        { "int64", 8 },   { "Int", 4 },          { "int32", 4 },
        { "Short", 2 },         { "int16", 2 },       { "Char", 1 },    { "int8", 1 },         { "Byte", 1 },
        { "uint8", 1 },         { "Bool", 1 },        { "bool", 1 },    { "ComplexFloat", 8 }, { "ComplexDouble", 16 },
        { "Float8_e4m3fn", 1 }, { "Float8_e5m2", 1 },
    };
    for (size_t i = 0; t && i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(t, sizes[i].name) == 0) return sizes[i].size;
    return -1;
}

static int64_t op_bytes(const sts_host_coll_op *o)
{
    int64_t n = o->in_nelems > o->out_nelems ? o->in_nelems : o->out_nelems, size = dtype_size(o->dtype), b;
    if (n < 0 || size < 0 || __builtin_mul_overflow(n, size, &b)) return -1;
    return b;
}

/* NCCL's bus bandwidth factor for `kind` over n ranks (nccl-tests' PERFORMANCE.md); < 0
 * for a kind it does not define. */
static double bus_factor(const char *kind, uint32_t n)
{
    double r = (double)n;
    if (strcmp(kind, "all-reduce") == 0) return 2.0 * (r - 1) / r;
    if (strcmp(kind, "all-gather") == 0 || strcmp(kind, "reduce-scatter") == 0 || strcmp(kind, "all-to-all") == 0)
        return (r - 1) / r;
    if (strcmp(kind, "broadcast") == 0 || strcmp(kind, "reduce") == 0 || strcmp(kind, "send-recv") == 0 ||
        strcmp(kind, "collective-permute") == 0)
        return 1.0;
    return -1.0;
}

/* The last rank's step child whose time before its arrival exceeds the median rank's the
 * most (ties: the name first in byte order). */
static void late_cause(const sts_hosts *h, const sts_collectives *c, sts_coll_instance *in,
                       const sts_host_coll_op *last, const sts_host_coll_op *med)
{
    const sts_host_rec *rl = h->hosts.v[c->ranks.v[in->last_rank].host];
    const sts_host_rec *rm = h->hosts.v[c->ranks.v[in->median_rank].host];
    in->cause = NULL;
    int64_t best = 0;
    for (uint32_t k = last->first_pre; k < last->first_pre + last->pre_count; k++) {
        const sts_host_child *x = &rl->cpre.v[k];
        int64_t m = 0;
        for (uint32_t q = med->first_pre; q < med->first_pre + med->pre_count; q++)
            if (strcmp(rm->cpre.v[q].name, x->name) == 0) m = rm->cpre.v[q].total_ns;
        int64_t ex = x->total_ns - m;
        if (ex > best || (ex == best && ex > 0 && in->cause && strcmp(x->name, in->cause) < 0)) {
            best = ex;
            in->cause = x->name;
            in->cause_ns = x->total_ns;
            in->cause_median_ns = m;
        }
    }
}

typedef struct tplace {
    int64_t ts;
    uint32_t k; /* arrivals are by rank: k orders ties by rank */
} tplace;

static int cmp_tplace(const void *x, const void *y)
{
    const tplace *a = x, *b = y;
    int d = cmp_i64(a->ts, b->ts);
    return d ? d : (a->k > b->k) - (a->k < b->k);
}

/* Fills an instance's times (its arrivals are placed, on the hosts' own clocks):
 * aligns them, then the last rank, skew, waits, transfer, bandwidth, step and cause.
 * 0 when its aligned times do not fit int64, -1 when memory runs out. */
static int compute(const sts_hosts *h, sts_collectives *c, sts_coll_instance *in, const sts_host_coll_op **ops)
{
    sts_coll_arrival *a = &c->arr.v[in->first];
    int64_t lo = INT64_MAX, hi = INT64_MIN, emin = INT64_MAX, emax = INT64_MIN;
    uint32_t last = 0;
    for (uint32_t k = 0; k < in->count; k++) {
        int64_t off = c->offset[c->ranks.v[a[k].rank].host];
        if (__builtin_sub_overflow(ops[k]->ts_ns, off, &a[k].ts_ns) ||
            __builtin_sub_overflow(ops[k]->end_ns, off, &a[k].end_ns))
            return 0;
        if (a[k].ts_ns > hi) hi = a[k].ts_ns, last = k;
        if (a[k].ts_ns < lo) lo = a[k].ts_ns;
        if (a[k].end_ns < emin) emin = a[k].end_ns;
        if (a[k].end_ns > emax) emax = a[k].end_ns;
    }
    int64_t skew, spread, total = 0;
    if (__builtin_sub_overflow(hi, lo, &skew) || __builtin_sub_overflow(emax, emin, &spread)) return 0;
    for (uint32_t k = 0; k < in->count; k++) {
        a[k].wait_ns = hi - a[k].ts_ns;
        if (__builtin_add_overflow(total, a[k].wait_ns, &total)) return 0;
    }
    /* The median rank: place (n - 1) / 2 of the arrivals by time (ties by rank). */
    tplace *order = malloc(in->count * sizeof *order);
    if (!order) return -1;
    for (uint32_t k = 0; k < in->count; k++)
        order[k].ts = a[k].ts_ns, order[k].k = k;
    qsort(order, in->count, sizeof *order, cmp_tplace);
    uint32_t med = order[(in->count - 1) / 2].k;
    free(order);
    in->last_ns = hi;
    in->last_rank = a[last].rank;
    in->median_rank = a[med].rank;
    in->skew_ns = skew;
    in->wait_ns = total;
    in->late_ns = hi - a[med].ts_ns;
    in->transfer_ns = ops[last]->end_ns - ops[last]->ts_ns;
    in->in_step = (int)ops[last]->in_step;
    in->step = ops[last]->step;
    /* A size only when every rank knows it and they agree. */
    int64_t b0 = op_bytes(ops[0]);
    int unknown = b0 < 0, differ = 0;
    for (uint32_t k = 1; k < in->count; k++) {
        int64_t bk = op_bytes(ops[k]);
        unknown |= bk < 0;
        differ |= bk >= 0 && b0 >= 0 && bk != b0;
    }
    in->bytes = unknown || differ ? -1 : b0;
    c->counts.size_conflicts += (uint64_t)differ;
    double f = bus_factor(in->kind, in->count);
    in->alg_bw_gbps = in->bus_bw_gbps = -1.0;
    if (in->bytes >= 0 && in->transfer_ns > 0) {
        in->alg_bw_gbps = (double)in->bytes / (double)in->transfer_ns; /* bytes per ns = GB/s */
        if (f >= 0) in->bus_bw_gbps = in->alg_bw_gbps * f;
    }
    late_cause(h, c, in, ops[last], ops[med]);
    if (spread > c->residual_max) c->residual_max = spread;
    return 1;
}

/* The instances from runs of equal keys; bad ones counted and left out. With `times` 0
 * only the arrivals are placed (for the offsets); with 1 they are computed. */
static int make_instances(const sts_hosts *h, sts_collectives *c, const entry *e, size_t n, int times)
{
    const sts_host_coll_op **ops = malloc((c->ranks.n ? c->ranks.n : 1) * sizeof *ops);
    if (!ops) return -1;
    c->inst.n = c->arr.n = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && same_key(&e[a], &e[b]))
            b++;
        size_t from = a;
        a = b;
        if (e[from].by < 0) continue; /* an uneven group */
        int repeats = 0, kinds_differ = 0;
        int64_t group_size = -1;
        for (size_t k = from; k < b; k++) {
            repeats |= k > from && e[k].rank == e[k - 1].rank;
            kinds_differ |= strcmp(e[k].op->kind, e[from].op->kind) != 0;
            if (e[k].op->group_size > group_size) group_size = e[k].op->group_size;
        }
        if (!times) { /* counted once, in the second pass */
        } else if (repeats)
            c->counts.repeated++;
        else if (b - from == 1)
            c->counts.one_rank++;
        else if (kinds_differ)
            c->counts.conflicts++;
        else if (group_size >= 0 && (uint64_t)(b - from) < (uint64_t)group_size)
            c->counts.partial++;
        if (repeats || b - from == 1 || kinds_differ ||
            (group_size >= 0 && (uint64_t)(b - from) < (uint64_t)group_size))
            continue;
        sts_coll_instance *in = STS_VEC_PUSH(c->inst);
        if (!in || STS_VEC_RESERVE(c->arr, c->arr.n + (b - from)) != 0) {
            free(ops);
            return -1;
        }
        memset(in, 0, sizeof *in);
        in->name = e[from].op->name;
        in->kind = e[from].op->kind;
        in->group = e[from].op->group;
        in->seq = e[from].seq;
        in->by = e[from].by;
        in->first = (uint32_t)c->arr.n;
        in->count = (uint32_t)(b - from);
        for (size_t k = from; k < b; k++) {
            sts_coll_arrival *ar = &c->arr.v[c->arr.n++];
            ar->rank = e[k].rank;
            ar->ts_ns = e[k].op->ts_ns;
            ar->end_ns = e[k].op->end_ns;
            ar->wait_ns = 0;
            ops[k - from] = e[k].op;
        }
        int ok = times ? compute(h, c, in, ops) : 1;
        if (ok < 0) {
            free(ops);
            return -1;
        }
        if (!ok) {
            c->counts.conflicts++;
            c->arr.n = in->first;
            c->inst.n--;
        }
    }
    free(ops);
    return 0;
}

/* ---- ordering, steps, residual ------------------------------------------------------------- */

static int cmp_inst(const void *x, const void *y)
{
    const sts_coll_instance *a = x, *b = y;
    int d = cmp_i64(a->last_ns, b->last_ns);
    if (d) return d;
    if ((d = cmp_str(a->group, b->group)) != 0) return d;
    if ((d = cmp_i64(a->seq, b->seq)) != 0) return d;
    return cmp_str(a->name, b->name);
}

typedef struct sidx {
    int64_t step, wait;
    uint32_t inst;
} sidx;

static int cmp_sidx(const void *x, const void *y)
{
    const sidx *a = x, *b = y;
    int d = cmp_i64(a->step, b->step);
    if (d) return d;
    if ((d = cmp_i64(b->wait, a->wait)) != 0) return d;
    return (a->inst > b->inst) - (a->inst < b->inst);
}

static int make_steps(sts_collectives *c)
{
    sidx *s = malloc((c->inst.n ? c->inst.n : 1) * sizeof *s);
    if (!s) return -1;
    size_t n = 0;
    for (size_t i = 0; i < c->inst.n; i++)
        if (c->inst.v[i].in_step)
            s[n].step = c->inst.v[i].step, s[n].wait = c->inst.v[i].wait_ns, s[n++].inst = (uint32_t)i;
    if (n > 1) qsort(s, n, sizeof *s, cmp_sidx);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        sts_coll_step *st = STS_VEC_PUSH(c->steps);
        if (!st) {
            free(s);
            return -1;
        }
        st->step = s[a].step;
        st->first = (uint32_t)c->step_inst.n;
        st->wait_ns = 0;
        for (; b < n && s[b].step == s[a].step; b++) {
            st->wait_ns = st->wait_ns > INT64_MAX - s[b].wait ? INT64_MAX : st->wait_ns + s[b].wait;
            if (b - a >= 3) continue;
            uint32_t *slot = STS_VEC_PUSH(c->step_inst);
            if (!slot) {
                free(s);
                return -1;
            }
            *slot = s[b].inst;
        }
        st->count = (uint32_t)(c->step_inst.n - st->first);
        a = b;
    }
    free(s);
    return 0;
}

static int residual(sts_collectives *c)
{
    if (!c->inst.n) return 0;
    int64_t *v = malloc(c->inst.n * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < c->inst.n; i++) {
        const sts_coll_arrival *a = &c->arr.v[c->inst.v[i].first];
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (uint32_t k = 0; k < c->inst.v[i].count; k++) {
            if (a[k].end_ns < lo) lo = a[k].end_ns;
            if (a[k].end_ns > hi) hi = a[k].end_ns;
        }
        v[i] = hi - lo; /* checked in compute() */
    }
    c->residual_median = sts_median_i64(v, c->inst.n);
    c->have_residual = 1;
    free(v);
    return 0;
}

/* ---- the handle ----------------------------------------------------------------------------- */

sts_status sts_collectives_match(const sts_hosts *h, sts_collectives **out, sts_error *err)
{
    *out = NULL;
    sts_collectives *c = calloc(1, sizeof *c);
    if (!c) return sts_hosts_nomem(err);
    c->nhosts = h->hosts.n;
    c->offset = calloc(c->nhosts ? c->nhosts : 1, sizeof *c->offset);
    c->comp = malloc((c->nhosts ? c->nhosts : 1) * sizeof *c->comp);
    entry *e = NULL;
    size_t n = 0;
    int bad = !c->offset || !c->comp || make_ranks(c, h) != 0 || !(e = make_entries(c, h, &n));
    for (size_t i = 0; !bad && i < c->nhosts; i++)
        c->comp[i] = -1;
    if (!bad) drop_uneven(c, e, n);
    /* First the arrivals on the hosts' own clocks for the offsets, then everything aligned. */
    bad = bad || make_instances(h, c, e, n, 0) != 0 || estimate_offsets(c) != 0;
    bad = bad || make_instances(h, c, e, n, 1) != 0;
    if (!bad && c->inst.n > 1) qsort(c->inst.v, c->inst.n, sizeof *c->inst.v, cmp_inst);
    bad = bad || make_steps(c) != 0 || residual(c) != 0;
    free(e);
    if (bad) {
        sts_collectives_free(c);
        return sts_hosts_nomem(err);
    }
    *out = c;
    return STS_OK;
}

void sts_collectives_free(sts_collectives *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->labels.n; i++)
        free(c->labels.v[i]);
    STS_VEC_RELEASE(c->labels);
    STS_VEC_RELEASE(c->ranks);
    STS_VEC_RELEASE(c->inst);
    STS_VEC_RELEASE(c->arr);
    STS_VEC_RELEASE(c->steps);
    STS_VEC_RELEASE(c->step_inst);
    free(c->offset);
    free(c->comp);
    free(c);
}

#define COLL_ACCESSOR(fn, T, field)                  \
    const T *fn(const sts_collectives *c, size_t *n) \
    {                                                \
        if (n) *n = c->field.n;                      \
        return c->field.v;                           \
    }
COLL_ACCESSOR(sts_collectives_ranks, sts_coll_rank, ranks)
COLL_ACCESSOR(sts_collectives_instances, sts_coll_instance, inst)
COLL_ACCESSOR(sts_collectives_arrivals, sts_coll_arrival, arr)
COLL_ACCESSOR(sts_collectives_steps, sts_coll_step, steps)
COLL_ACCESSOR(sts_collectives_step_instances, uint32_t, step_inst)
#undef COLL_ACCESSOR

const sts_coll_counts *sts_collectives_counts(const sts_collectives *c)
{
    return &c->counts;
}

int64_t sts_collectives_offset(const sts_collectives *c, size_t host, int *known)
{
    int k = host < c->nhosts && c->comp[host] == 0;
    if (known) *known = k;
    return k ? c->offset[host] : 0;
}

int sts_collectives_residual(const sts_collectives *c, int64_t *median_ns, int64_t *max_ns)
{
    if (median_ns) *median_ns = c->have_residual ? c->residual_median : 0;
    if (max_ns) *max_ns = c->have_residual ? c->residual_max : 0;
    return c->have_residual;
}
