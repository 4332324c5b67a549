/* Slices by name over every host: counts, totals, self times, minima and maxima add up
 * as hosts are added or sets merged; each name keeps its durations while they are
 * whole, for an exact median (or takes a median found elsewhere, see sts_xmedian). */
#include <stdlib.h>
#include <string.h>

#include "base/invariant.h"
#include "hosts/hosts_impl.h"

/* Adds `src` (one host's or one set's statistics of a name) into `dst`. */
static void add_stats(sts_host_name *dst, const sts_host_name *src)
{
    if (src->count == 0) return;
    if (dst->count == 0 || src->min_ns < dst->min_ns) dst->min_ns = src->min_ns;
    if (dst->count == 0 || src->max_ns > dst->max_ns) dst->max_ns = src->max_ns;
    dst->count += src->count;
    dst->total_ns += src->total_ns;
    dst->self_ns += src->self_ns;
}

/* Durations grouped by name id (counting sort): name id k's are vals[off[k]..off[k+1]). */
static int group_durations(const sts_timeline *tl, size_t **off_out, int64_t **vals_out, size_t *nids)
{
    size_t ns;
    const sts_slice *s = sts_timeline_slices(tl, &ns);
    uint32_t max = 0;
    for (size_t i = 0; i < ns; i++)
        if (s[i].name > max) max = s[i].name;
    size_t *off = calloc((size_t)max + 2, sizeof *off);
    int64_t *vals = malloc((ns ? ns : 1) * sizeof *vals);
    if (!off || !vals) {
        free(off);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < ns; i++)
        off[s[i].name + 1]++;
    for (size_t k = 0; k <= max; k++)
        off[k + 1] += off[k];
    size_t *at = malloc(((size_t)max + 1) * sizeof *at);
    if (!at) {
        free(off);
        free(vals);
        return -1;
    }
    memcpy(at, off, ((size_t)max + 1) * sizeof *at);
    for (size_t i = 0; i < ns; i++)
        vals[at[s[i].name]++] = s[i].dur;
    free(at);
    *off_out = off;
    *vals_out = vals;
    *nids = (size_t)max + 1;
    return 0;
}

sts_status sts_hosts_add_names(sts_hosts *h, const sts_timeline *tl, sts_error *err)
{
    sts_name_summary *sum = NULL;
    size_t n = 0, nids = 0, *off = NULL;
    int64_t *vals = NULL;
    sts_status st = sts_name_summaries(tl, &sum, &n, err);
    if (st != STS_OK) return st;
    if (n && group_durations(tl, &off, &vals, &nids) != 0) st = sts_hosts_nomem(err);
    for (size_t i = 0; i < n && st == STS_OK; i++) {
        const char *text = sts_timeline_string(tl, sum[i].name);
        sts_name_rec *r = sts_hosts_name(h, text, strlen(text));
        if (!r) {
            st = sts_hosts_nomem(err);
            break;
        }
        sts_host_name one = { NULL, sum[i].count, sum[i].total_ns, sum[i].self_ns, sum[i].min_ns, 0, sum[i].max_ns };
        add_stats(&r->pub, &one);
        if (!r->has_values) continue;
        uint32_t id = sum[i].name;
        size_t k = id < nids ? off[id + 1] - off[id] : 0;
        if (STS_VEC_RESERVE(r->values, r->values.n + k) != 0) {
            st = sts_hosts_nomem(err);
            break;
        }
        if (k) memcpy(r->values.v + r->values.n, vals + off[id], k * sizeof *vals);
        r->values.n += k;
        /* Every duration the count counts, or the exact median is of some other set. */
        STS_ASSERT(r->values.n == r->pub.count);
    }
    free(sum);
    free(off);
    free(vals);
    return st;
}

/* ---- merging ------------------------------------------------------------------------- */

static sts_status merge_names(sts_hosts *into, sts_hosts *from, sts_error *err)
{
    for (size_t i = 0; i < from->names.n; i++) {
        sts_name_rec *src = &from->names.v[i];
        sts_name_rec *dst = sts_hosts_name(into, src->pub.name, strlen(src->pub.name));
        if (!dst) return sts_hosts_nomem(err);
        int was_empty = dst->pub.count == 0;
        add_stats(&dst->pub, &src->pub);
        /* A median set from outside holds for the set it was set on, not for a union. */
        dst->median_set = was_empty && src->median_set;
        if (dst->median_set) dst->pub.median_ns = src->pub.median_ns;
        if (!src->has_values) {
            dst->has_values = 0;
            STS_VEC_RELEASE(dst->values);
        } else if (dst->has_values) {
            if (STS_VEC_RESERVE(dst->values, dst->values.n + src->values.n) != 0) return sts_hosts_nomem(err);
            if (src->values.n)
                memcpy(dst->values.v + dst->values.n, src->values.v, src->values.n * sizeof *src->values.v);
            dst->values.n += src->values.n;
        }
        STS_ASSERT(!dst->has_values || dst->values.n == dst->pub.count);
    }
    return STS_OK;
}

sts_status sts_hosts_merge(sts_hosts *into, sts_hosts *from, sts_error *err)
{
    for (size_t i = 0; i < from->hosts.n; i++)
        for (size_t j = 0; j < into->hosts.n; j++)
            if (from->hosts.v[i]->info.index == into->hosts.v[j]->info.index)
                return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "hosts: host %zu (%s) is in both sets",
                                     from->hosts.v[i]->info.index, from->hosts.v[i]->info.name);
    if (STS_VEC_RESERVE(into->hosts, into->hosts.n + from->hosts.n) != 0) return sts_hosts_nomem(err);
    sts_status st = merge_names(into, from, err);
    if (st != STS_OK) return st;
    for (size_t i = 0; i < from->hosts.n; i++) {
        int placed = sts_hosts_insert(into, from->hosts.v[i]);
        STS_ASSERT(placed == 0); /* room reserved, indices distinct (checked above) */
    }
    from->hosts.n = 0;
    for (size_t i = 0; i < from->names.n; i++)
        STS_VEC_RELEASE(from->names.v[i].values);
    from->names.n = 0;
    sts_u64map_release(&from->nmap);
    into->finished = 0;
    if (sts_hosts_refresh_view(into) != 0 || sts_hosts_refresh_view(from) != 0) return sts_hosts_nomem(err);
    return STS_OK;
}

/* ---- medians and ranking -------------------------------------------------------------- */

const int64_t *sts_hosts_name_values(sts_hosts *h, size_t i, size_t *n)
{
    *n = 0;
    if (i >= h->view_rec.n) return NULL;
    sts_name_rec *r = &h->names.v[h->view_rec.v[i]];
    if (!r->has_values) return NULL;
    *n = r->values.n;
    return r->values.v;
}

sts_status sts_hosts_set_median(sts_hosts *h, const char *name, int64_t median_ns, sts_error *err)
{
    uint32_t id = sts_strtab_find(&h->nstr, name, strlen(name));
    uint32_t k = id == UINT32_MAX ? UINT32_MAX : sts_u64map_get(&h->nmap, (uint64_t)id + 1);
    if (k == UINT32_MAX) return sts_error_set(err, STS_ERR_NOT_FOUND, -1, "hosts: no slices named '%s'", name);
    h->names.v[k].pub.median_ns = median_ns;
    h->names.v[k].median_set = 1;
    for (size_t i = 0; i < h->view_rec.n; i++)
        if (h->view_rec.v[i] == k) h->view.v[i].median_ns = median_ns;
    return STS_OK;
}

/* Self time descending, total descending, name bytewise ascending (as sts_name_summaries). */
static int cmp_rank(const void *a, const void *b)
{
    const sts_host_name *x = a, *y = b;
    if (x->self_ns != y->self_ns) return x->self_ns > y->self_ns ? -1 : 1;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

int sts_hosts_refresh_view(sts_hosts *h)
{
    h->view.n = h->view_rec.n = 0;
    if (STS_VEC_RESERVE(h->view, h->names.n) != 0 || STS_VEC_RESERVE(h->view_rec, h->names.n) != 0) return -1;
    for (size_t i = 0; i < h->names.n; i++)
        h->view.v[i] = h->names.v[i].pub;
    h->view.n = h->names.n;
    if (h->finished && h->view.n > 1) qsort(h->view.v, h->view.n, sizeof *h->view.v, cmp_rank);
    /* Names are unique: find each entry's record through the table. */
    for (size_t i = 0; i < h->view.n; i++) {
        uint32_t id = sts_strtab_find(&h->nstr, h->view.v[i].name, strlen(h->view.v[i].name));
        h->view_rec.v[i] = sts_u64map_get(&h->nmap, (uint64_t)id + 1);
    }
    h->view_rec.n = h->view.n;
    return 0;
}

sts_status sts_hosts_finish(sts_hosts *h, sts_error *err)
{
    for (size_t i = 0; i < h->names.n; i++) {
        sts_name_rec *r = &h->names.v[i];
        if (r->median_set) continue;
        if (!r->has_values || r->values.n != r->pub.count)
            return sts_error_set(err, STS_ERR_STATE, -1,
                                 "hosts: the median of '%s' is unknown: its durations are not all here and it was "
                                 "not set",
                                 r->pub.name);
        /* A selection, not a sort: the values' order is not kept. */
        r->pub.median_ns = sts_median_i64(r->values.v, r->values.n);
    }
    h->finished = 1;
    return sts_hosts_refresh_view(h) == 0 ? STS_OK : sts_hosts_nomem(err);
}

const sts_host_name *sts_hosts_names(const sts_hosts *h, size_t *n)
{
    if (n) *n = h->view.n;
    return h->view.v;
}
