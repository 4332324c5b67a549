/* Self times and per-name summaries (count, total, self, min, median, max). */
#include <stdlib.h>
#include <string.h>

#include "model/timeline_impl.h"
#include "stepscope/analyze.h"

void sts_self_times(const sts_timeline *tl, int64_t *self)
{
    const sts_slice *s = tl->slices.v;
    for (size_t i = 0; i < tl->slices.n; i++)
        self[i] = s[i].dur;
    for (size_t i = 0; i < tl->slices.n; i++)
        if (s[i].parent != STS_NONE) self[s[i].parent] -= s[i].dur;
}

static sts_status nomem(const sts_timeline *tl, sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory summarizing %zu slices", tl->info.path,
                         tl->slices.n);
}

/* Gives each name used by a slice a dense index, in order of first use. */
static uint32_t *dense_names(const sts_timeline *tl, size_t *ndense)
{
    size_t nstr = tl->strings.count;
    uint32_t *dense = malloc((nstr ? nstr : 1) * sizeof *dense);
    if (!dense) return NULL;
    memset(dense, 0xff, nstr * sizeof *dense);
    size_t d = 0;
    for (size_t i = 0; i < tl->slices.n; i++) {
        uint32_t nm = tl->slices.v[i].name;
        if (dense[nm] == STS_NONE) dense[nm] = (uint32_t)d++;
    }
    *ndense = d;
    return dense;
}

static void accumulate(const sts_timeline *tl, const uint32_t *dense, sts_name_summary *sum)
{
    const sts_slice *s = tl->slices.v;
    for (size_t i = 0; i < tl->slices.n; i++) {
        sts_name_summary *x = &sum[dense[s[i].name]];
        int64_t d = s[i].dur;
        if (x->count == 0) {
            x->name = s[i].name;
            x->min_ns = x->max_ns = d;
        }
        x->count++;
        x->total_ns += d;
        x->self_ns += d;
        if (d < x->min_ns) x->min_ns = d;
        if (d > x->max_ns) x->max_ns = d;
        if (s[i].parent != STS_NONE) sum[dense[s[s[i].parent].name]].self_ns -= d;
    }
}

/* Exact medians: durations grouped by name (one sequential pass over the slices,
 * scattering into each name's run), then a selection within each run. */
static int medians(const sts_timeline *tl, const uint32_t *dense, sts_name_summary *sum, size_t nd)
{
    size_t n = tl->slices.n;
    size_t *fill = malloc((nd ? nd : 1) * sizeof *fill);
    int64_t *durs = malloc((n ? n : 1) * sizeof *durs);
    if (!fill || !durs) {
        free(fill);
        free(durs);
        return -1;
    }
    for (size_t d = 0, at = 0; d < nd; d++) {
        fill[d] = at;
        at += sum[d].count;
    }
    for (size_t i = 0; i < n; i++)
        durs[fill[dense[tl->slices.v[i].name]]++] = tl->slices.v[i].dur;
    /* fill[d] now marks the end of group d; it starts where group d - 1 ends. */
    for (size_t d = 0, start = 0; d < nd; d++) {
        sum[d].median_ns = sts_median_i64(durs + start, fill[d] - start);
        start = fill[d];
    }
    free(fill);
    free(durs);
    return 0;
}

static int rank_cmp(const void *a, const void *b, void *ctx)
{
    const sts_name_summary *x = a, *y = b;
    const sts_timeline *tl = ctx;
    if (x->self_ns != y->self_ns) return x->self_ns > y->self_ns ? -1 : 1;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    size_t lx = sts_strtab_len(&tl->strings, x->name), ly = sts_strtab_len(&tl->strings, y->name);
    int c = memcmp(sts_strtab_get(&tl->strings, x->name), sts_strtab_get(&tl->strings, y->name), lx < ly ? lx : ly);
    if (c) return c;
    return (lx > ly) - (lx < ly);
}

sts_status sts_name_summaries(const sts_timeline *tl, sts_name_summary **out, size_t *n, sts_error *err)
{
    *out = NULL;
    *n = 0;
    if (tl->slices.n == 0) return STS_OK;
    size_t nd = 0;
    uint32_t *dense = dense_names(tl, &nd);
    sts_name_summary *sum = dense ? calloc(nd, sizeof *sum) : NULL;
    if (!sum) {
        free(dense);
        return nomem(tl, err);
    }
    accumulate(tl, dense, sum);
    int bad = medians(tl, dense, sum, nd);
    free(dense);
    if (bad) {
        free(sum);
        return nomem(tl, err);
    }
    if (nd > 1) qsort_r(sum, nd, sizeof *sum, rank_cmp, (void *)tl);
    *out = sum;
    *n = nd;
    return STS_OK;
}
