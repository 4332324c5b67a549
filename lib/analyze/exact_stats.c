/* Exact small statistics: the median by selection, and the union of an interval list. */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
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

int sts_an_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Moves the values that `keep` accepts (x < p, or x <= p with `or_equal`) to the
 * front, without a branch on the data; returns how many. */
static size_t keep_front(int64_t *v, size_t n, int64_t p, int or_equal)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t x = v[i];
        v[i] = v[j];
        v[j] = x;
        j += or_equal ? x <= p : x < p;
    }
    return j;
}

#define SAMPLE 1024
#define MARGIN 48 /* sample ranks either side of k's: the bracket misses k about once in 10^6 */

/* select_kth for large arrays: a sorted sample of the values brackets the k-th between
 * two of them, lo and hi; two branch-free passes move what is below lo to the front and
 * what is above hi to the back, and the selection goes on in the bracket, a few percent
 * of the values. lo and hi are values of v, so the bracket is never empty and every
 * round shrinks the range; after a few rounds (a crafted input), select_kth goes on. */
static void select_kth_sampled(int64_t *v, size_t n, size_t k)
{
    for (int round = 0; round < 4 && n >= 8 * SAMPLE; round++) {
        int64_t smp[SAMPLE];
        for (size_t i = 0; i < SAMPLE; i++)
            smp[i] = v[i * n / SAMPLE + n / SAMPLE / 2];
        qsort(smp, SAMPLE, sizeof *smp, sts_an_cmp_i64);
        size_t ks = k * SAMPLE / n;
        int64_t lo = smp[ks > MARGIN ? ks - MARGIN : 0], hi = smp[ks + MARGIN < SAMPLE ? ks + MARGIN : SAMPLE - 1];
        size_t a = keep_front(v, n, lo, 0); /* [0, a) < lo */
        if (k < a) {
            n = a;
            continue;
        }
        size_t b = a + keep_front(v + a, n - a, hi, 1); /* [a, b) in [lo, hi]; [b, n) > hi */
        if (k >= b) {
            v += b, n -= b, k -= b;
            continue;
        }
        if (lo == hi) return; /* the bracket is one value: it is at k */
        v += a, n = b - a, k -= a;
    }
    select_kth(v, n, k);
}

void sts_an_select_kth(int64_t *v, size_t n, size_t k)
{
    if (k < n) select_kth_sampled(v, n, k);
}

int64_t sts_median_i64(int64_t *values, size_t n)
{
    if (n == 0) return 0;
    size_t k = n / 2;
    select_kth_sampled(values, n, k);
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
