/* model: an adaptive merge sort, instantiated per element type and key.
 *
 * Trace events mostly arrive in time order, with local disorder (a child listed before
 * its parent, two threads' buffers flushed in turn). A natural merge sort costs one
 * pass on sorted input and few passes on nearly sorted input.
 *
 *   STS_DEFINE_SORT(fn, T, ctx_type, LESS)
 * defines `static int fn(T *a, size_t n, T *tmp, const ctx_type *ctx)` that sorts
 * a[0..n) using tmp[0..n) as scratch; LESS(ctx, x, y) compares two T values and must
 * be a strict total order (break every tie), so stability does not matter. Returns 0,
 * or -1 when the run table cannot be allocated. */
#ifndef STS_MODEL_MSORT_H
#define STS_MODEL_MSORT_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define STS_MSORT_MINRUN 32

#define STS_DEFINE_SORT(fn, T, ctx_type, LESS)                                                          \
    static void fn##_insertion(T *a, size_t lo, size_t sorted_to, size_t hi, const ctx_type *ctx)       \
    {                                                                                                   \
        for (size_t i = sorted_to; i < hi; i++) {                                                       \
            T x = a[i];                                                                                 \
            size_t j = i;                                                                               \
            while (j > lo && LESS(ctx, x, a[j - 1])) {                                                  \
                a[j] = a[j - 1];                                                                        \
                j--;                                                                                    \
            }                                                                                           \
            a[j] = x;                                                                                   \
        }                                                                                               \
    }                                                                                                   \
    /* Length of the run starting at lo: ascending, or strictly descending (reversed). */               \
    static size_t fn##_run(T *a, size_t lo, size_t n, const ctx_type *ctx)                              \
    {                                                                                                   \
        size_t hi = lo + 1;                                                                             \
        if (hi == n) return 1;                                                                          \
        if (LESS(ctx, a[hi], a[lo])) {                                                                  \
            while (hi + 1 < n && LESS(ctx, a[hi + 1], a[hi]))                                           \
                hi++;                                                                                   \
            for (size_t l = lo, r = hi; l < r; l++, r--) {                                              \
                T t = a[l];                                                                             \
                a[l] = a[r];                                                                            \
                a[r] = t;                                                                               \
            }                                                                                           \
        } else {                                                                                        \
            while (hi + 1 < n && !LESS(ctx, a[hi + 1], a[hi]))                                          \
                hi++;                                                                                   \
        }                                                                                               \
        return hi + 1 - lo;                                                                             \
    }                                                                                                   \
    static void fn##_merge(const T *src, T *dst, size_t lo, size_t mid, size_t hi, const ctx_type *ctx) \
    {                                                                                                   \
        size_t i = lo, j = mid, k = lo;                                                                 \
        if (mid == hi || !LESS(ctx, src[mid], src[mid - 1])) {                                          \
            memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);                                        \
            return;                                                                                     \
        }                                                                                               \
        while (i < mid && j < hi)                                                                       \
            dst[k++] = LESS(ctx, src[j], src[i]) ? src[j++] : src[i++];                                 \
        while (i < mid)                                                                                 \
            dst[k++] = src[i++];                                                                        \
        while (j < hi)                                                                                  \
            dst[k++] = src[j++];                                                                        \
    }                                                                                                   \
    static int fn(T *a, size_t n, T *tmp, const ctx_type *ctx)                                          \
    {                                                                                                   \
        if (n < 2) return 0;                                                                            \
        size_t cap = n / STS_MSORT_MINRUN + 2, nruns = 0;                                               \
        size_t *bounds = malloc(cap * sizeof *bounds);                                                  \
        if (!bounds) return -1;                                                                         \
        for (size_t lo = 0; lo < n;) {                                                                  \
            size_t len = fn##_run(a, lo, n, ctx);                                                       \
            if (len < STS_MSORT_MINRUN && lo + len < n) {                                               \
                size_t hi = lo + STS_MSORT_MINRUN < n ? lo + STS_MSORT_MINRUN : n;                      \
                fn##_insertion(a, lo, lo + len, hi, ctx);                                               \
                len = hi - lo;                                                                          \
            }                                                                                           \
            bounds[nruns++] = lo;                                                                       \
            lo += len;                                                                                  \
        }                                                                                               \
        bounds[nruns] = n;                                                                              \
        T *src = a, *dst = tmp;                                                                         \
        while (nruns > 1) {                                                                             \
            size_t out = 0;                                                                             \
            for (size_t r = 0; r < nruns; r += 2) {                                                     \
                size_t lo = bounds[r], mid = bounds[r + 1];                                             \
                size_t hi = r + 2 <= nruns ? bounds[r + 2] : mid;                                       \
                if (r + 1 >= nruns) hi = mid = bounds[r + 1];                                           \
                fn##_merge(src, dst, lo, mid, hi, ctx);                                                 \
                bounds[out++] = lo;                                                                     \
            }                                                                                           \
            bounds[out] = n;                                                                            \
            nruns = out;                                                                                \
            T *t = src;                                                                                 \
            src = dst;                                                                                  \
            dst = t;                                                                                    \
        }                                                                                               \
        if (src != a) memcpy(a, src, n * sizeof *a);                                                    \
        free(bounds);                                                                                   \
        return 0;                                                                                       \
    }

#endif
