/* Exact medians of values spread over participants, found by counting: each wanted
 * order statistic keeps a range [lo, hi] known to hold it and its rank within the
 * range; every round splits each open range into BUCKETS equal parts, the participants'
 * counts per part are summed, and the range narrows to the part holding the rank. A
 * part is at most ceil(span / BUCKETS) wide, so a 64-bit span closes in 16 rounds.
 * Each participant scans its values whole in the first round, then keeps, per wanted
 * value, only its values still in range: about two passes over the values, no sort. */
#include <stdlib.h>
#include <string.h>

#include "hosts/hosts_impl.h"

#define BUCKETS 16

/* One wanted order statistic of one set. Values are mapped to uint64 order-preserving
 * (the sign bit flipped) so ranges and widths are unsigned. */
typedef struct target {
    uint64_t lo, hi; /* inclusive */
    uint64_t rank;   /* 0-based, among the set's values in [lo, hi] */
    int64_t *cand;   /* this participant's values that were in range when last counted; NULL: all */
    size_t ncand;
} target;

struct sts_xmedian {
    size_t n;
    target *t;       /* 2 per set: the lower and upper middle value */
    uint64_t *count; /* per set */
    size_t *open;    /* targets still open this round, in order */
    size_t nopen;
    size_t round; /* rounds advanced */
    int nomem;    /* a list of candidates could not be kept: the whole sets are counted since */
};

static uint64_t key(int64_t v)
{
    return (uint64_t)v ^ 0x8000000000000000u;
}

static int64_t unkey(uint64_t k)
{
    return (int64_t)(k ^ 0x8000000000000000u);
}

/* An odd count has one middle value: its lower target is the upper one, not sought. */
static void list_open(sts_xmedian *x)
{
    x->nopen = 0;
    for (size_t i = 0; i < 2 * x->n; i++) {
        uint64_t c = x->count[i / 2];
        if (c && !(i % 2 == 0 && c % 2 == 1) && x->t[i].lo < x->t[i].hi) x->open[x->nopen++] = i;
    }
}

sts_status sts_xmedian_create(size_t n, const uint64_t *count, const int64_t *min, const int64_t *max,
                              sts_xmedian **out, sts_error *err)
{
    *out = NULL;
    sts_xmedian *x = calloc(1, sizeof *x);
    if (!x) return sts_hosts_nomem(err);
    x->n = n;
    x->t = calloc(2 * n + 1, sizeof *x->t);
    x->count = calloc(n + 1, sizeof *x->count);
    x->open = calloc(2 * n + 1, sizeof *x->open);
    if (!x->t || !x->count || !x->open) {
        sts_xmedian_free(x);
        return sts_hosts_nomem(err);
    }
    for (size_t i = 0; i < n; i++) {
        x->count[i] = count[i];
        if (!count[i]) continue;
        if (min[i] > max[i]) {
            sts_xmedian_free(x);
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "xmedian: set %zu has min %lld > max %lld", i,
                                 (long long)min[i], (long long)max[i]);
        }
        for (int w = 0; w < 2; w++) {
            target *t = &x->t[2 * i + (size_t)w];
            t->lo = key(min[i]);
            t->hi = key(max[i]);
            t->rank = w == 0 ? (count[i] - 1) / 2 : count[i] / 2;
        }
    }
    list_open(x);
    *out = x;
    return STS_OK;
}

void sts_xmedian_free(sts_xmedian *x)
{
    if (!x) return;
    for (size_t i = 0; x->t && i < 2 * x->n; i++)
        free(x->t[i].cand);
    free(x->t);
    free(x->count);
    free(x->open);
    free(x);
}

size_t sts_xmedian_round(const sts_xmedian *x)
{
    return x->nopen * BUCKETS;
}

/* The width of each of a target's buckets this round. */
static uint64_t width(const target *t)
{
    return (t->hi - t->lo) / BUCKETS + 1;
}

void sts_xmedian_count(sts_xmedian *x, const int64_t *const *values, const size_t *nvalues, uint64_t *counts)
{
    for (size_t o = 0; o < x->nopen; o++) {
        target *t = &x->t[x->open[o]];
        size_t set = x->open[o] / 2;
        const int64_t *v = t->cand;
        size_t n = t->ncand;
        if (!v) {
            v = values ? values[set] : NULL;
            n = v && nvalues ? nvalues[set] : 0;
        }
        uint64_t w = width(t), *c = counts + o * BUCKETS;
        memset(c, 0, BUCKETS * sizeof *c);
        /* From the second round, what is still in range is kept for the next. */
        int64_t *keep = x->round > 0 && !x->nomem && n ? malloc(n * sizeof *keep) : NULL;
        if (x->round > 0 && n && !keep) x->nomem = 1;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t kv = key(v[i]);
            if (kv < t->lo || kv > t->hi) continue;
            c[(kv - t->lo) / w]++;
            if (keep) keep[k++] = v[i];
        }
        if (keep || x->nomem) {
            free(t->cand);
            t->cand = keep;
            t->ncand = k;
        }
    }
}

sts_status sts_xmedian_advance(sts_xmedian *x, const uint64_t *sums, sts_error *err)
{
    for (size_t o = 0; o < x->nopen; o++) {
        target *t = &x->t[x->open[o]];
        uint64_t w = width(t), seen = 0;
        int b = 0;
        for (; b < BUCKETS; b++) {
            uint64_t c = sums[o * BUCKETS + (size_t)b];
            if (t->rank < seen + c) break;
            seen += c;
        }
        if (b == BUCKETS)
            return sts_error_set(err, STS_ERR_STATE, -1,
                                 "xmedian: set %zu: the summed counts (%llu) do not reach rank %llu: the participants "
                                 "disagree on the values",
                                 x->open[o] / 2, (unsigned long long)seen, (unsigned long long)t->rank);
        uint64_t start = t->lo + (uint64_t)b * w;
        uint64_t last = t->hi - start < w - 1 ? t->hi : start + (w - 1);
        t->lo = start;
        t->hi = last;
        t->rank -= seen;
    }
    x->round++;
    list_open(x);
    return STS_OK;
}

int64_t sts_xmedian_result(const sts_xmedian *x, size_t i)
{
    if (i >= x->n || !x->count[i]) return 0;
    int64_t hi = unkey(x->t[2 * i + 1].lo), lo = x->count[i] % 2 ? hi : unkey(x->t[2 * i].lo);
    return lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
}
