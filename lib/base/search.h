/* base: binary search, written once: over any index range by a predicate (STS_BISECT),
 * and of sorted int64_t arrays, the lookup the analyses share (step windows by start or
 * by reach, interval ends). Depends on nothing. */
#ifndef STS_BASE_SEARCH_H
#define STS_BASE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* Sets lo to the first index of [lo, hi) at which `before` is false; to hi when it is
 * true throughout. `before` is an expression of `mid` (declared here, of `type`, the
 * unsigned or signed integer type of lo and hi) that holds on a prefix of the range and
 * on nothing after it: for an ascending array, "element mid < key". lo and hi are
 * variables; hi is narrowed too (both end equal). */
#define STS_BISECT(type, lo, hi, mid, before)    \
    do {                                         \
        while ((lo) < (hi)) {                    \
            type mid = (lo) + ((hi) - (lo)) / 2; \
            if (before)                          \
                (lo) = mid + 1;                  \
            else                                 \
                (hi) = mid;                      \
        }                                        \
    } while (0)

/* The first index of v[0..n) ascending (duplicates allowed) whose value is at least t;
 * n when none is. Inline: the callers search in their inner loops. */
static inline size_t sts_first_at_least_i64(const int64_t *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    STS_BISECT(size_t, lo, hi, mid, v[mid] < t);
    return lo;
}

/* The first index of v[0..n) ascending whose value is above t; n when none is. */
static inline size_t sts_first_above_i64(const int64_t *v, size_t n, int64_t t)
{
    return t == INT64_MAX ? n : sts_first_at_least_i64(v, n, t + 1);
}

#endif
