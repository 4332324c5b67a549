/* analyze: an adaptive merge sort of uint32 index arrays, instantiated per key.
 *
 * Trace events mostly arrive in time order, with local disorder (a child listed before
 * its parent, two threads' buffers flushed in turn). A natural merge sort costs one
 * pass on sorted input and few passes on nearly sorted input, and sorting 4-byte
 * indices keeps the scratch memory at 4 bytes per element.
 *
 *   STS_DEFINE_IDX_SORT(fn, ctx_type, LESS)
 * defines `static int fn(uint32_t *a, size_t n, uint32_t *tmp, const ctx_type *ctx)`
 * that sorts a[0..n) using tmp[0..n) as scratch; LESS(ctx, x, y) must be a strict
 * total order on the index values (break every tie). Returns 0, or -1 when the run
 * table cannot be allocated. */
#ifndef STS_ANALYZE_IDXSORT_H
#define STS_ANALYZE_IDXSORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STS_IDXSORT_MINRUN 32

#define STS_DEFINE_IDX_SORT(fn, ctx_type, LESS)                                                  \
    static void fn##_insertion(uint32_t *a, size_t lo, size_t sorted_to, size_t hi,             \
                               const ctx_type *ctx)                                             \
    {                                                                                           \
        for (size_t i = sorted_to; i < hi; i++) {                                               \
            uint32_t x = a[i];                                                                  \
            size_t j = i;                                                                       \
            while (j > lo && LESS(ctx, x, a[j - 1])) {                                          \
                a[j] = a[j - 1];                                                                \
                j--;                                                                            \
            }                                                                                   \
            a[j] = x;                                                                           \
        }                                                                                       \
    }                                                                                           \
    /* Length of the run starting at lo: ascending, or strictly descending (reversed). */       \
    static size_t fn##_run(uint32_t *a, size_t lo, size_t n, const ctx_type *ctx)               \
    {                                                                                           \
        size_t hi = lo + 1;                                                                     \
        if (hi == n) return 1;                                                                  \
        if (LESS(ctx, a[hi], a[lo])) {                                                          \
            while (hi + 1 < n && LESS(ctx, a[hi + 1], a[hi])) hi++;                             \
            for (size_t l = lo, r = hi; l < r; l++, r--) {                                      \
                uint32_t t = a[l];                                                              \
                a[l] = a[r];                                                                    \
                a[r] = t;                                                                       \
            }                                                                                   \
        } else {                                                                                \
            while (hi + 1 < n && !LESS(ctx, a[hi + 1], a[hi])) hi++;                            \
        }                                                                                       \
        return hi + 1 - lo;                                                                     \
    }                                                                                           \
    static void fn##_merge(const uint32_t *src, uint32_t *dst, size_t lo, size_t mid, size_t hi, \
                           const ctx_type *ctx)                                                 \
    {                                                                                           \
        size_t i = lo, j = mid, k = lo;                                                         \
        if (mid == hi || !LESS(ctx, src[mid], src[mid - 1])) {                                  \
            memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);                                \
            return;                                                                             \
        }                                                                                       \
        while (i < mid && j < hi) dst[k++] = LESS(ctx, src[j], src[i]) ? src[j++] : src[i++];   \
        while (i < mid) dst[k++] = src[i++];                                                    \
        while (j < hi) dst[k++] = src[j++];                                                     \
    }                                                                                           \
    static int fn(uint32_t *a, size_t n, uint32_t *tmp, const ctx_type *ctx)                    \
    {                                                                                           \
        if (n < 2) return 0;                                                                    \
        size_t cap = n / STS_IDXSORT_MINRUN + 2, nruns = 0;                                     \
        size_t *bounds = malloc(cap * sizeof *bounds);                                          \
        if (!bounds) return -1;                                                                 \
        for (size_t lo = 0; lo < n;) {                                                          \
            size_t len = fn##_run(a, lo, n, ctx);                                               \
            if (len < STS_IDXSORT_MINRUN && lo + len < n) {                                     \
                size_t hi = lo + STS_IDXSORT_MINRUN < n ? lo + STS_IDXSORT_MINRUN : n;          \
                fn##_insertion(a, lo, lo + len, hi, ctx);                                       \
                len = hi - lo;                                                                  \
            }                                                                                   \
            bounds[nruns++] = lo;                                                               \
            lo += len;                                                                          \
        }                                                                                       \
        bounds[nruns] = n;                                                                      \
        uint32_t *src = a, *dst = tmp;                                                          \
        while (nruns > 1) {                                                                     \
            size_t out = 0;                                                                     \
            for (size_t r = 0; r < nruns; r += 2) {                                             \
                size_t lo = bounds[r], mid = bounds[r + 1];                                     \
                size_t hi = r + 2 <= nruns ? bounds[r + 2] : mid;                               \
                if (r + 1 >= nruns) hi = mid = bounds[r + 1];                                   \
                fn##_merge(src, dst, lo, mid, hi, ctx);                                         \
                bounds[out++] = lo;                                                             \
            }                                                                                   \
            bounds[out] = n;                                                                    \
            nruns = out;                                                                        \
            uint32_t *t = src;                                                                  \
            src = dst;                                                                          \
            dst = t;                                                                            \
        }                                                                                       \
        if (src != a) memcpy(a, src, n * sizeof *a);                                            \
        free(bounds);                                                                           \
        return 0;                                                                               \
    }

#endif
