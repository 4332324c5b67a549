/* bench: summary statistics of timing samples and outliers by modified z-score. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope/bench.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of a sorted array. */
static double sorted_median(const double *s, size_t n)
{
    if (n == 0) return 0;
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double sts_median(const double *x, size_t n)
{
    if (n == 0) return 0;
    double small[64];
    double *s = n <= 64 ? small : malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = sorted_median(s, n);
    if (s != small) free(s);
    return m;
}

/* Median absolute deviation from `median`. */
static double mad_of(const double *x, size_t n, double median)
{
    double small[64];
    double *d = n <= 64 ? small : malloc(n * sizeof *d);
    if (!d) return NAN;
    for (size_t i = 0; i < n; i++)
        d[i] = fabs(x[i] - median);
    double m = sts_median(d, n);
    if (d != small) free(d);
    return m;
}

void sts_stats_compute(const double *x, size_t n, sts_stats *out, unsigned char *outlier)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0) return;
    double sum = 0;
    out->min = out->max = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < out->min) out->min = x[i];
        if (x[i] > out->max) out->max = x[i];
    }
    out->mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - out->mean) * (x[i] - out->mean);
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    out->cv = out->mean != 0 ? out->stddev / fabs(out->mean) : 0;
    out->median = sts_median(x, n);
    out->mad = mad_of(x, n, out->median);
    for (size_t i = 0; i < n; i++) {
        double dev = fabs(x[i] - out->median);
        int is_out = out->mad > 0 ? 0.6745 * dev / out->mad > STS_OUTLIER_Z : dev > 0;
        if (outlier) outlier[i] = (unsigned char)is_out;
        out->outliers += (size_t)is_out;
    }
}
