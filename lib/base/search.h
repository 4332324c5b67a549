/* base: binary searches of sorted int64_t arrays, the one lookup the analyses share
 * (step windows by start or by reach, interval ends). Depends on nothing. */
#ifndef STS_BASE_SEARCH_H
#define STS_BASE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* The first index of v[0..n) ascending (duplicates allowed) whose value is at least t;
 * n when none is. Inline: the callers search in their inner loops. */
static inline size_t sts_first_at_least_i64(const int64_t *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first index of v[0..n) ascending whose value is above t; n when none is. */
static inline size_t sts_first_above_i64(const int64_t *v, size_t n, int64_t t)
{
    return t == INT64_MAX ? n : sts_first_at_least_i64(v, n, t + 1);
}

#endif
