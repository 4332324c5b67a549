/* The collectives' keys of `steps --collectives --json` (docs/json-schemas.md), and the
 * hosts' records moved onto the aligned clocks (`--align`). */
#include <string.h>

#include "hosts/hosts_impl.h"

static const char *label(const sts_collectives *c, uint32_t rank)
{
    return sts_collectives_ranks(c, NULL)[rank].label;
}

static void kv_ns_or_null(sts_jsonw *w, const char *key, int known, int64_t v)
{
    if (known)
        sts_jsonw_kv_i64(w, key, v);
    else
        sts_jsonw_kv_null(w, key);
}

static void by_rank(sts_jsonw *w, const char *key, const sts_collectives *c, const sts_coll_instance *in, int what)
{
    const sts_coll_arrival *a = sts_collectives_arrivals(c, NULL) + in->first;
    sts_jsonw_key(w, key);
    sts_jsonw_obj_begin(w);
    for (uint32_t k = 0; k < in->count; k++)
        sts_jsonw_kv_i64(w, label(c, a[k].rank), what == 0 ? a[k].ts_ns : what == 1 ? a[k].end_ns : a[k].wait_ns);
    sts_jsonw_obj_end(w);
}

static void cause(sts_jsonw *w, const sts_coll_instance *in)
{
    sts_jsonw_key(w, "by");
    if (!in->cause) {
        sts_jsonw_null(w);
        return;
    }
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "name", in->cause);
    sts_jsonw_kv_i64(w, "ns", in->cause_ns);
    sts_jsonw_kv_i64(w, "median_rank_ns", in->cause_median_ns);
    sts_jsonw_kv_i64(w, "excess_ns", in->cause_ns - in->cause_median_ns);
    sts_jsonw_obj_end(w);
}

static void instance(sts_jsonw *w, const sts_collectives *c, const sts_coll_instance *in)
{
    const sts_coll_arrival *a = sts_collectives_arrivals(c, NULL) + in->first;
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "name", in->name);
    sts_jsonw_kv_str(w, "kind", in->kind);
    sts_jsonw_kv_str(w, "group", in->group);
    sts_jsonw_kv_i64(w, "seq", in->seq);
    sts_jsonw_kv_str(w, "matched_by", in->by == STS_COLL_BY_SEQ ? "seq" : "order");
    sts_jsonw_key(w, "ranks");
    sts_jsonw_arr_begin(w);
    for (uint32_t k = 0; k < in->count; k++)
        sts_jsonw_str(w, label(c, a[k].rank));
    sts_jsonw_arr_end(w);
    by_rank(w, "arrival_ns", c, in, 0);
    by_rank(w, "end_ns", c, in, 1);
    sts_jsonw_kv_i64(w, "skew_ns", in->skew_ns);
    by_rank(w, "wait_ns", c, in, 2);
    sts_jsonw_kv_i64(w, "wait_total_ns", in->wait_ns);
    sts_jsonw_kv_str(w, "last_rank", label(c, in->last_rank));
    sts_jsonw_kv_str(w, "median_rank", label(c, in->median_rank));
    sts_jsonw_kv_i64(w, "late_ns", in->late_ns);
    sts_jsonw_kv_i64(w, "transfer_ns", in->transfer_ns);
    kv_ns_or_null(w, "bytes", in->bytes >= 0, in->bytes);
    if (in->alg_bw_gbps >= 0)
        sts_jsonw_kv_f64(w, "alg_bw_gbps", in->alg_bw_gbps);
    else
        sts_jsonw_kv_null(w, "alg_bw_gbps");
    if (in->bus_bw_gbps >= 0)
        sts_jsonw_kv_f64(w, "bus_bw_gbps", in->bus_bw_gbps);
    else
        sts_jsonw_kv_null(w, "bus_bw_gbps");
    kv_ns_or_null(w, "step", in->in_step, in->step);
    cause(w, in);
    sts_jsonw_obj_end(w);
}

static void counts(sts_jsonw *w, const sts_coll_counts *k)
{
    sts_jsonw_key(w, "collective_counts");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_u64(w, "ops", k->ops);
    sts_jsonw_kv_u64(w, "nested", k->nested);
    sts_jsonw_kv_u64(w, "one_rank", k->one_rank);
    sts_jsonw_kv_u64(w, "repeated", k->repeated);
    sts_jsonw_kv_u64(w, "partial", k->partial);
    sts_jsonw_kv_u64(w, "conflicts", k->conflicts);
    sts_jsonw_kv_u64(w, "size_conflicts", k->size_conflicts);
    sts_jsonw_kv_u64(w, "uneven_groups", k->uneven);
    sts_jsonw_kv_u64(w, "unpaired_calls", k->unpaired);
    sts_jsonw_obj_end(w);
}

void sts_collectives_write_json(sts_jsonw *w, const sts_hosts *h, const sts_collectives *c)
{
    size_t n, ns;
    const sts_coll_instance *in = sts_collectives_instances(c, &n);
    sts_jsonw_key(w, "collectives");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        instance(w, c, &in[i]);
    sts_jsonw_arr_end(w);
    const sts_coll_step *st = sts_collectives_steps(c, &ns);
    const uint32_t *si = sts_collectives_step_instances(c, NULL);
    sts_jsonw_key(w, "collective_steps");
    sts_jsonw_arr_begin(w);
    for (size_t s = 0; s < ns; s++) {
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_i64(w, "step", st[s].step);
        sts_jsonw_kv_i64(w, "wait_ns", st[s].wait_ns);
        sts_jsonw_key(w, "top");
        sts_jsonw_arr_begin(w);
        for (uint32_t k = st[s].first; k < st[s].first + st[s].count; k++) {
            const sts_coll_instance *x = &in[si[k]];
            sts_jsonw_obj_begin(w);
            sts_jsonw_kv_u64(w, "collective", si[k]);
            sts_jsonw_kv_str(w, "name", x->name);
            sts_jsonw_kv_i64(w, "seq", x->seq);
            sts_jsonw_kv_i64(w, "wait_ns", x->wait_ns);
            sts_jsonw_kv_str(w, "last_rank", label(c, x->last_rank));
            sts_jsonw_kv_i64(w, "late_ns", x->late_ns);
            cause(w, x);
            sts_jsonw_obj_end(w);
        }
        sts_jsonw_arr_end(w);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
    counts(w, sts_collectives_counts(c));
    sts_jsonw_key(w, "clock_offsets_ns");
    sts_jsonw_obj_begin(w);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        int known;
        int64_t off = sts_collectives_offset(c, i, &known);
        kv_ns_or_null(w, sts_hosts_info(h, i)->name, known, off);
    }
    sts_jsonw_obj_end(w);
    int64_t med, max;
    int have = sts_collectives_residual(c, &med, &max);
    kv_ns_or_null(w, "clock_residual_ns", have, med);
    kv_ns_or_null(w, "clock_residual_max_ns", have, max);
}

/* ---- --align --------------------------------------------------------------------------------- */

typedef struct shift {
    int64_t off;
    int ok; /* every shifted value fits */
} shift;

static void check(shift *s, int64_t v)
{
    int64_t out;
    if (__builtin_sub_overflow(v, s->off, &out)) s->ok = 0;
}

static void move(const shift *s, int64_t *v)
{
    *v -= s->off;
}

/* Walks every time of a record, checking (apply 0) or shifting (apply 1). */
static void walk(sts_host_rec *r, shift *s, int apply)
{
#define T(x) (apply ? move(s, &(x)) : check(s, (x)))
    T(r->info.ts_min);
    T(r->info.ts_max);
    if (r->info.busy.slices) T(r->info.busy.start_ns), T(r->info.busy.end_ns);
    for (size_t i = 0; i < r->lanes.n; i++)
        if (r->lanes.v[i].busy.slices) T(r->lanes.v[i].busy.start_ns), T(r->lanes.v[i].busy.end_ns);
    for (size_t i = 0; i < r->procs.n; i++)
        if (r->procs.v[i].busy.slices) T(r->procs.v[i].busy.start_ns), T(r->procs.v[i].busy.end_ns);
    for (size_t i = 0; i < r->overlaps.n; i++)
        T(r->overlaps.v[i].ts_ns), T(r->overlaps.v[i].parent_ts_ns);
    for (size_t i = 0; i < r->steps.n; i++) {
        if (!apply) check(s, r->steps.v[i].ts_ns + r->steps.v[i].dur_ns); /* fits: checked when read */
        T(r->steps.v[i].ts_ns);
    }
    for (size_t i = 0; i < r->dsteps.n; i++)
        T(r->dsteps.v[i].w.start_ns);
    for (size_t i = 0; i < r->cops.n; i++)
        T(r->cops.v[i].ts_ns), T(r->cops.v[i].end_ns);
#undef T
}

void sts_hosts_apply_offsets(sts_hosts *h, const sts_collectives *c)
{
    for (size_t i = 0; i < h->hosts.n; i++) {
        int known;
        shift s = { sts_collectives_offset(c, i, &known), 1 };
        if (!known || !s.off) continue;
        walk(h->hosts.v[i], &s, 0);
        if (s.ok) walk(h->hosts.v[i], &s, 1);
    }
}
