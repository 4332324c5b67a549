/* diff: the pieces of the two-sample comparison, exposed for the unit tests. */
#ifndef STS_DIFF_STATS_H
#define STS_DIFF_STATS_H

#include <stddef.h>
#include <stdint.h>

/* The exact null distribution of the Mann–Whitney U for samples of n and m without
 * ties: counts[u] (u = 0..n*m) orderings give U = u, out of *total = C(n+m, n). Returns
 * 1 with *counts a new array of n*m+1 entries (free() it), 0 when the sizes are beyond
 * what is computed exactly (C(n+m, n) >= 2^64, or too much work), -1 on no memory. */
int sts_dstat_exact_counts(size_t n, size_t m, uint64_t **counts, uint64_t *total);

/* U of sorted y over sorted x: pairs with y_j > x_i, ties 1/2. *tie_term is
 * sum(t^3 - t) over the groups of equal values in the pooled sample (0: no ties). */
double sts_dstat_u(const int64_t *x, size_t n, const int64_t *y, size_t m, double *tie_term);

/* The k-th smallest (1-based, 1 <= k <= n*m) of the differences y_j - x_i of sorted
 * x and y, without forming them. */
int64_t sts_dstat_kth_diff(const int64_t *x, size_t n, const int64_t *y, size_t m, uint64_t k);

/* The standard normal quantile: z with P(Z <= z) = p, 0 < p < 1. */
double sts_dstat_norm_quantile(double p);

/* Standard normal upper tail P(Z > z). */
double sts_dstat_norm_sf(double z);

#endif
