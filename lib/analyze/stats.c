/* Exact small statistics: the median by selection, and the union of an interval list. */
#include <stdlib.h>
#include <string.h>

#include "stepscope/analyze.h"

/* Three-way partition around v[pivot]; on return v[0..*lt) < p, v[*lt..*gt) == p,
 * v[*gt..n) > p. */
static void partition3(int64_t *v, size_t n, size_t pivot, size_t *lt, size_t *gt)
{
    int64_t p = v[pivot];
    size_t a = 0, i = 0, b = n;
    while (i < b) {
        int64_t x = v[i];
        if (x < p) {
            v[i++] = v[a];
            v[a++] = x;
        } else if (x > p) {
            v[i] = v[--b];
            v[b] = x;
        } else {
            i++;
        }
    }
    *lt = a;
    *gt = b;
}

/* Puts the k-th smallest value at v[k], smaller-or-equal ones before it. The pivot
 * position comes from a fixed pseudo-random sequence, so sorted or crafted inputs do
 * not make it quadratic in practice. */
static void select_kth(int64_t *v, size_t n, size_t k)
{
    uint64_t rng = 0x9e3779b97f4a7c15u;
    while (n > 1) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        size_t lt, gt;
        partition3(v, n, (size_t)(rng % n), &lt, &gt);
        if (k < lt) {
            n = lt;
        } else if (k >= gt) {
            v += gt;
            n -= gt;
            k -= gt;
        } else {
            return;
        }
    }
}

int64_t sts_median_i64(int64_t *values, size_t n)
{
    if (n == 0) return 0;
    size_t k = n / 2;
    select_kth(values, n, k);
    int64_t hi = values[k];
    if (n % 2) return hi;
    int64_t lo = values[0];
    for (size_t i = 1; i < k; i++)
        if (values[i] > lo) lo = values[i];
    /* floor((lo + hi) / 2) without overflow: hi >= lo, so hi - lo fits in uint64. */
    return lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
}

static int cmp_start(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

int64_t sts_union_ns(const int64_t (*iv)[2], size_t n)
{
    int64_t local[64][2];
    int64_t(*v)[2] = local;
    if (n > 64 && !(v = malloc(n * sizeof *v))) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (iv[i][1] <= iv[i][0]) continue;
        v[m][0] = iv[i][0];
        v[m][1] = iv[i][1];
        m++;
    }
    if (m > 1) qsort(v, m, sizeof *v, cmp_start);
    int64_t total = 0, cs = 0, ce = 0;
    for (size_t i = 0; i < m; i++) {
        if (i == 0 || v[i][0] > ce) {
            if (i) total += ce - cs;
            cs = v[i][0];
            ce = v[i][1];
        } else if (v[i][1] > ce) {
            ce = v[i][1];
        }
    }
    if (m) total += ce - cs;
    if (v != local) free(v);
    return total;
}
