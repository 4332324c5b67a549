/* The two-sample comparison: Mann–Whitney U (exact or normal), the Hodges–Lehmann
 * shift with its distribution-free interval, and the verdict. docs/diff.md explains the
 * method; the functions here follow it line by line. */
#include "diff/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/search.h"
#include "stepscope/analyze.h"
#include "stepscope/diff.h"

/* Beyond these the normal approximation is as good as exact for any decision made
 * here, and the exact table would cost too much memory or time. */
#define EXACT_MAX_CELLS (1u << 20) /* n*m + 1 entries of the table */
#define EXACT_MAX_WORK  (1u << 27) /* min(n, m) passes over it */
#define VALUE_LIMIT     (INT64_C(1) << 52)

const char *sts_diff_method_name(sts_diff_method m)
{
    switch (m) {
    case STS_DIFF_METHOD_NONE:
        return "none";
    case STS_DIFF_METHOD_EXACT:
        return "exact";
    case STS_DIFF_METHOD_NORMAL:
        return "normal";
    case STS_DIFF_METHOD_NORMAL_TIES:
        return "normal-ties";
    case STS_DIFF_METHOD_COUNT:
        return "count";
    case STS_DIFF_METHOD_SINGLE:
        return "single";
    }
    return "none";
}

const char *sts_diff_verdict_name(sts_diff_verdict v)
{
    switch (v) {
    case STS_DIFF_INCONCLUSIVE:
        return "inconclusive";
    case STS_DIFF_SAME:
        return "same";
    case STS_DIFF_SHRANK:
        return "shrank";
    case STS_DIFF_GREW:
        return "grew";
    case STS_DIFF_APPEARED:
        return "appeared";
    case STS_DIFF_DISAPPEARED:
        return "disappeared";
    }
    return "inconclusive";
}

/* ---- the exact distribution ------------------------------------------------------ */

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* C(big+k, k), or 0 when it does not fit in 64 bits. Each partial product
 * C(big+i, i) = C(big+i-1, i-1) (big+i) / i is an integer; dividing c and i by their
 * gcd first leaves an i' that divides big+i, so nothing overflows before the result
 * does. */
static uint64_t binomial(size_t k, size_t big)
{
    uint64_t c = 1;
    for (size_t i = 1; i <= k; i++) {
        uint64_t f = (uint64_t)(big + i), g = gcd(c, i), d = i / g;
        f /= d;
        c /= g;
        if (c > UINT64_MAX / f) return 0;
        c *= f;
    }
    return c;
}

int sts_dstat_exact_counts(size_t n, size_t m, uint64_t **counts, uint64_t *total)
{
    *counts = NULL;
    *total = 0;
    size_t k = n < m ? n : m, big = n < m ? m : n;
    if (k == 0) return 0;
    if (big > EXACT_MAX_CELLS / k) return 0;
    size_t cells = n * m + 1;
    if (cells + k > EXACT_MAX_CELLS || (uint64_t)k * cells > EXACT_MAX_WORK) return 0;
    uint64_t all = binomial(k, big);
    if (all == 0) return 0;
    /* The generating function of U is the Gaussian binomial [n+m choose k]_q =
     * prod_{i=1..k} (1 - q^(big+i)) / (1 - q^i). Multiplying and then dividing by each
     * factor in turn keeps whole polynomials; unsigned arithmetic wraps modulo 2^64,
     * which is exact here because every final coefficient, like their sum, is below
     * 2^64 (checked above), whatever the intermediate values were. */
    uint64_t *c = calloc(cells + k, sizeof *c);
    if (!c) return -1;
    c[0] = 1;
    size_t deg = 0;
    for (size_t i = 1; i <= k; i++) {
        size_t up = big + i, top = deg + up;
        for (size_t j = top; j >= up; j--)
            c[j] -= c[j - up];
        for (size_t j = i; j <= top; j++)
            c[j] += c[j - i];
        deg += big;
    }
    *counts = c;
    *total = all;
    return 1;
}

/* ---- ranks ------------------------------------------------------------------------ */

double sts_dstat_u(const int64_t *x, size_t n, const int64_t *y, size_t m, double *tie_term)
{
    double u = 0, ties = 0;
    size_t i = 0, j = 0;
    /* Walk both sorted samples one distinct value at a time. */
    while (i < n || j < m) {
        int64_t v = j >= m || (i < n && x[i] <= y[j]) ? x[i] : y[j];
        size_t a = 0, b = 0;
        while (i + a < n && x[i + a] == v)
            a++;
        while (j + b < m && y[j + b] == v)
            b++;
        /* The b new values equal to v beat the i base values below v and tie with a. */
        u += (double)b * ((double)i + 0.5 * (double)a);
        double t = (double)(a + b);
        ties += t * t * t - t;
        i += a;
        j += b;
    }
    *tie_term = ties;
    return u;
}

/* Pairs with y_j - x_i <= t, counted in O(n + m): as y_j grows, so does the first x_i
 * that is >= y_j - t. */
static uint64_t count_le(const int64_t *x, size_t n, const int64_t *y, size_t m, int64_t t)
{
    uint64_t c = 0;
    size_t i = 0;
    for (size_t j = 0; j < m; j++) {
        int64_t lim = y[j] - t;
        while (i < n && x[i] < lim)
            i++;
        c += n - i;
    }
    return c;
}

int64_t sts_dstat_kth_diff(const int64_t *x, size_t n, const int64_t *y, size_t m, uint64_t k)
{
    /* The smallest t with count_le(t) >= k is a difference itself: bisect on integers. */
    int64_t lo = y[0] - x[n - 1], hi = y[m - 1] - x[0];
    STS_BISECT(int64_t, lo, hi, mid, count_le(x, n, y, m, mid) < k);
    return lo;
}

/* ---- the normal distribution ------------------------------------------------------- */

double sts_dstat_norm_sf(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

double sts_dstat_norm_quantile(double p)
{
    /* Bisection on the upper tail: 200 halvings of [-40, 40] reach the closest double. */
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && lo < hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi) break;
        if (1.0 - sts_dstat_norm_sf(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* ---- the comparison ---------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void clear_stats(sts_diff_stats *s)
{
    memset(s, 0, sizeof *s);
    s->method = STS_DIFF_METHOD_NONE;
    s->verdict = STS_DIFF_INCONCLUSIVE;
    s->u = s->p_value = s->shift_ns = s->ci_low_ns = s->ci_high_ns = s->ci_level = NAN;
    s->change_pct = s->ci_low_pct = s->ci_high_pct = s->spread_pct = NAN;
}

static void describe(const int64_t *sorted, size_t n, int64_t *median, int64_t *lo, int64_t *hi)
{
    if (n == 0) return;
    *lo = sorted[0];
    *hi = sorted[n - 1];
    *median = n % 2 ? sorted[n / 2] : (int64_t)floor(((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2.0);
}

/* Robust pooled spread: 1.4826 times the median absolute deviation of each value from
 * its own run's median, both runs together (1.4826 makes it the standard deviation for
 * normal data). */
static double pooled_spread(const int64_t *x, size_t n, int64_t mx, const int64_t *y, size_t m, int64_t my)
{
    int64_t *dev = malloc((n + m) * sizeof *dev);
    if (!dev) return NAN;
    for (size_t i = 0; i < n; i++)
        dev[i] = llabs(x[i] - mx);
    for (size_t j = 0; j < m; j++)
        dev[n + j] = llabs(y[j] - my);
    double mad = (double)sts_median_i64(dev, n + m);
    free(dev);
    return 1.4826 * mad;
}

/* The rank c such that [D_(c+1), D_(nm-c)] is the interval: the largest c with
 * P(U <= c) <= alpha/2, or -1 when even P(U <= 0) is larger (no interval exists). */
typedef struct rank_choice {
    int64_t c;
    double level;
} rank_choice;

static rank_choice exact_rank(const uint64_t *counts, uint64_t total, uint64_t nm, double alpha)
{
    rank_choice r = { -1, 1.0 };
    uint64_t cum = 0;
    for (uint64_t u = 0; u <= nm / 2; u++) {
        cum += counts[u];
        double tail = (double)cum / (double)total;
        if (tail > alpha / 2) break;
        r.c = (int64_t)u;
        r.level = 1.0 - 2.0 * tail;
    }
    return r;
}

static rank_choice normal_rank(double nm, double sigma, double z, double confidence)
{
    rank_choice r = { (int64_t)floor(nm / 2.0 - 0.5 - z * sigma), confidence };
    if (r.c < 0) r.c = -1;
    if ((double)r.c > nm / 2.0) r.c = (int64_t)(nm / 2.0);
    return r;
}

static double exact_p(const uint64_t *counts, uint64_t total, uint64_t nm, uint64_t u)
{
    uint64_t lo = u < nm - u ? u : nm - u, cum = 0;
    for (uint64_t v = 0; v <= lo; v++)
        cum += counts[v];
    double p = 2.0 * (double)cum / (double)total;
    return p > 1.0 ? 1.0 : p;
}

static double normal_p(double u, double nm, double sigma)
{
    if (!(sigma > 0)) return 1.0;
    double z = (fabs(u - nm / 2.0) - 0.5) / sigma;
    double p = 2.0 * sts_dstat_norm_sf(z);
    return p > 1.0 ? 1.0 : p;
}

/* ---- samples that would decide ------------------------------------------------------- */

/* The interval's rank c for N vs N samples without ties (-1: no interval). */
static int64_t rank_for(uint64_t N, double alpha, double z, double confidence)
{
    uint64_t *counts = NULL, total = 0;
    if (N <= 33 && sts_dstat_exact_counts((size_t)N, (size_t)N, &counts, &total) == 1) {
        rank_choice r = exact_rank(counts, total, N * N, alpha);
        free(counts);
        return r.c;
    }
    double nm = (double)N * (double)N;
    return normal_rank(nm, sqrt(nm * (2.0 * (double)N + 1.0) / 12.0), z, confidence).c;
}

/* The interval's half-width for N vs N, in units of the spread: its ends are the
 * differences of rank c + 1 and N^2 - c, and under a normal model with spread s a
 * difference of two samples is normal with spread sqrt(2) s, so the end lies near its
 * (c + 1) / (N^2 + 1) quantile. INFINITY when no interval exists. */
static double width_units(uint64_t N, double alpha, double z, double confidence)
{
    int64_t c = rank_for(N, alpha, z, confidence);
    if (c < 0) return INFINITY;
    double q = ((double)c + 1.0) / ((double)N * (double)N + 1.0);
    return -sqrt(2.0) * sts_dstat_norm_quantile(q);
}

/* The smallest N whose half-width, in units of the spread, is below `units`. */
static uint64_t smallest_n_below(double units, double alpha, double z, double confidence)
{
    if (!(units > 0)) return 0;
    uint64_t hi = 2;
    while (hi < (UINT64_C(1) << 30) && !(width_units(hi, alpha, z, confidence) < units))
        hi *= 2;
    if (!(width_units(hi, alpha, z, confidence) < units)) return 0;
    uint64_t lo = hi / 2 + 1;
    if (hi == 2) lo = 2;
    STS_BISECT(uint64_t, lo, hi, mid, !(width_units(mid, alpha, z, confidence) < units));
    return lo;
}

/* Samples per run that would decide, if the change were what was estimated and the
 * spread stayed what was seen: enough for the interval's half-width to fall below the
 * distance from the estimate to 0 (to tell a direction) or to the margin (to tell
 * "same"), whichever needs fewer. The spread comes from the interval observed at the
 * current sizes when one exists (so the estimate follows the method actually used),
 * else from the pooled MAD. 0 when nothing can be said. */
static void estimate_needed(sts_diff_stats *s, double z, double alpha, double confidence, double margin)
{
    if (!isfinite(s->change_pct)) return;
    double now = 2.0 / (1.0 / (double)s->n_base + 1.0 / (double)s->n_new); /* equal-size equivalent */
    uint64_t n_now = now < 2 ? 2 : (uint64_t)now;
    double units_now = width_units(n_now, alpha, z, confidence), spread = s->spread_pct;
    double half = 0.5 * (s->ci_high_pct - s->ci_low_pct);
    if (isfinite(half) && isfinite(units_now) && units_now > 0) spread = half / units_now;
    if (!isfinite(spread)) return;
    double d = fabs(s->change_pct);
    uint64_t need;
    if (spread == 0) {
        need = smallest_n_below(INFINITY, alpha, z, confidence);
    } else {
        uint64_t dir = d > 0 ? smallest_n_below(d / spread, alpha, z, confidence) : 0;
        uint64_t same = d < margin ? smallest_n_below((margin - d) / spread, alpha, z, confidence) : 0;
        need = dir && same ? (dir < same ? dir : same) : dir ? dir : same;
    }
    if (need == 0) return;
    /* Never suggest what the runs already have: that did not decide. */
    uint64_t have = s->n_base > s->n_new ? s->n_base : s->n_new;
    if (need <= have) need = have + 1;
    s->samples_needed = need;
}

static void decide(sts_diff_stats *s, double alpha, double margin)
{
    int excludes0 = s->ci_low_ns > 0 || s->ci_high_ns < 0;
    if (s->p_value < alpha && excludes0) {
        s->verdict = s->ci_low_ns > 0 ? STS_DIFF_GREW : STS_DIFF_SHRANK;
    } else if (isfinite(s->ci_low_pct) && isfinite(s->ci_high_pct) && s->ci_low_pct >= -margin &&
               s->ci_high_pct <= margin) {
        s->verdict = STS_DIFF_SAME;
    } else if (s->ci_low_ns == 0 && s->ci_high_ns == 0) {
        s->verdict = STS_DIFF_SAME; /* every difference is 0: nothing moved, whatever the base */
    } else {
        s->verdict = STS_DIFF_INCONCLUSIVE;
    }
}

static sts_status check_values(const int64_t *v, size_t n, const char *which, sts_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] > VALUE_LIMIT || v[i] < -VALUE_LIMIT)
            return sts_error_set(err, STS_ERR_RANGE, -1, "diff: %s sample %zu is out of range (beyond 2^52)", which, i);
    return STS_OK;
}

static sts_status check_options(const sts_diff_options *o, sts_error *err)
{
    if (!(o->confidence > 0.5 && o->confidence < 1.0))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "diff: confidence must lie strictly between 0.5 and 1, not %g", o->confidence);
    if (!(o->margin_pct > 0 && o->margin_pct < 1e6))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "diff: the margin must be a positive percentage, not %g",
                             o->margin_pct);
    if (o->npair_lanes > 64)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "diff: at most 64 lane pairs, not %zu", o->npair_lanes);
    for (size_t i = 0; i < o->npair_lanes; i++) {
        const char *p = o->pair_lanes ? o->pair_lanes[i] : NULL, *eq = p ? strchr(p, '=') : NULL;
        if (!eq || eq == p || !eq[1])
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                                 "diff: a lane pair is BASE_LANE=NEW_LANE (as the rows name lanes, "
                                 "\"python / worker\"), not '%s'",
                                 p ? p : "(null)");
    }
    if (o->npairs > 256)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "diff: at most 256 workload pairs, not %zu", o->npairs);
    for (size_t i = 0; i < o->npairs; i++) {
        const char *p = o->pairs ? o->pairs[i] : NULL, *eq = p ? strchr(p, '=') : NULL;
        if (!eq || eq == p || !eq[1])
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                                 "diff: a workload pair is BASE_NAME=NEW_NAME (bench workloads, as the rows name "
                                 "them), not '%s'",
                                 p ? p : "(null)");
    }
    return STS_OK;
}

/* U, p and the rank of the interval, exactly when possible. */
static sts_status test_ranks(const int64_t *x, size_t n, const int64_t *y, size_t m, double confidence,
                             sts_diff_stats *s, rank_choice *rc, sts_error *err)
{
    double ties, alpha = 1.0 - confidence;
    s->u = sts_dstat_u(x, n, y, m, &ties);
    uint64_t nm = (uint64_t)n * m;
    uint64_t *counts = NULL, total = 0;
    int exact = 0;
    if (ties == 0) {
        exact = sts_dstat_exact_counts(n, m, &counts, &total);
        if (exact < 0) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    }
    if (exact) {
        s->method = STS_DIFF_METHOD_EXACT;
        s->p_value = exact_p(counts, total, nm, (uint64_t)s->u);
        *rc = exact_rank(counts, total, nm, alpha);
        free(counts);
        return STS_OK;
    }
    double N = (double)(n + m);
    double var = (double)nm / 12.0 * ((N + 1.0) - (N > 1 ? ties / (N * (N - 1.0)) : 0));
    double sigma = var > 0 ? sqrt(var) : 0;
    s->method = ties > 0 ? STS_DIFF_METHOD_NORMAL_TIES : STS_DIFF_METHOD_NORMAL;
    s->p_value = normal_p(s->u, (double)nm, sigma);
    *rc = normal_rank((double)nm, sigma, sts_dstat_norm_quantile(1.0 - alpha / 2.0), confidence);
    /* Too few samples for any distribution-free interval (even runs that separate
     * completely would have P(U <= 0) = 1 / C(n+m, n) > alpha / 2): ties must not make
     * up for that, as when every value of 1 vs 1 happens to be equal. */
    uint64_t all = binomial(n < m ? n : m, n < m ? m : n);
    if (all != 0 && (double)all < 2.0 / alpha) rc->c = -1;
    return STS_OK;
}

/* Percent changes of durations are ratios, NEW / BASE - 1, so they lie in (-100%, +inf):
 * the Hodges–Lehmann estimate and interval of the shift of log durations (the k-th
 * smallest log(y_j / x_i)), taken with the same ranks as the shift's. Log values are
 * fixed point (2^40 per unit: 1e-12 relative, well inside +-2^52 for any duration), so
 * the exact k-th difference of the integer samples serves; a sample of 0 shifts every
 * value by 1 (a nanosecond) first. Negative samples are no durations: the percent is
 * then the shift over the base median, as for any other difference. */
#define LOG_SCALE 1099511627776.0

static int64_t *log_values(const int64_t *sorted, size_t n, int shift)
{
    int64_t *out = malloc((n ? n : 1) * sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        out[i] = llround(log((double)sorted[i] + shift) * LOG_SCALE);
    return out;
}

static double ratio_pct(const int64_t *lx, size_t n, const int64_t *ly, size_t m, uint64_t k)
{
    return 100.0 * expm1((double)sts_dstat_kth_diff(lx, n, ly, m, k) / LOG_SCALE);
}

static int ratio_percents(const int64_t *x, size_t n, const int64_t *y, size_t m, rank_choice rc, sts_diff_stats *s)
{
    if (x[0] < 0 || y[0] < 0) return 0;
    int shift = x[0] == 0 || y[0] == 0;
    int64_t *lx = log_values(x, n, shift), *ly = log_values(y, m, shift);
    int ok = lx && ly;
    if (ok) {
        uint64_t nm = (uint64_t)n * m;
        double a = (double)sts_dstat_kth_diff(lx, n, ly, m, (nm + 1) / 2);
        double b = nm % 2 ? a : (double)sts_dstat_kth_diff(lx, n, ly, m, nm / 2 + 1);
        s->change_pct = 100.0 * expm1(0.5 * (a + b) / LOG_SCALE);
        s->ci_low_pct = rc.c < 0 ? -INFINITY : ratio_pct(lx, n, ly, m, (uint64_t)rc.c + 1);
        s->ci_high_pct = rc.c < 0 ? INFINITY : ratio_pct(lx, n, ly, m, nm - (uint64_t)rc.c);
    }
    free(lx);
    free(ly);
    return ok;
}

static void shift_interval(const int64_t *x, size_t n, const int64_t *y, size_t m, rank_choice rc, sts_diff_stats *s)
{
    uint64_t nm = (uint64_t)n * m;
    double a = (double)sts_dstat_kth_diff(x, n, y, m, (nm + 1) / 2);
    double b = nm % 2 ? a : (double)sts_dstat_kth_diff(x, n, y, m, nm / 2 + 1);
    s->shift_ns = 0.5 * (a + b);
    if (rc.c < 0) {
        s->ci_low_ns = -INFINITY;
        s->ci_high_ns = INFINITY;
        s->ci_level = 1.0;
    } else {
        s->ci_low_ns = (double)sts_dstat_kth_diff(x, n, y, m, (uint64_t)rc.c + 1);
        s->ci_high_ns = (double)sts_dstat_kth_diff(x, n, y, m, nm - (uint64_t)rc.c);
        s->ci_level = rc.level;
    }
    if (s->median_base != 0 && !ratio_percents(x, n, y, m, rc, s)) {
        double base = (double)s->median_base;
        s->change_pct = 100.0 * s->shift_ns / base;
        s->ci_low_pct = 100.0 * s->ci_low_ns / base;
        s->ci_high_pct = 100.0 * s->ci_high_ns / base;
    }
}

sts_status sts_diff_samples(const int64_t *base, size_t n, const int64_t *new_, size_t m, const sts_diff_options *opt,
                            sts_diff_stats *out, sts_error *err)
{
    sts_diff_options dflt = STS_DIFF_OPTIONS_INIT;
    if (!opt) opt = &dflt;
    clear_stats(out);
    sts_status st = check_options(opt, err);
    if (st == STS_OK) st = check_values(base, n, "base", err);
    if (st == STS_OK) st = check_values(new_, m, "new", err);
    if (st != STS_OK) return st;
    out->n_base = n;
    out->n_new = m;
    int64_t *x = malloc((n + m + 1) * sizeof *x);
    if (!x) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    int64_t *y = x + n;
    if (n) memcpy(x, base, n * sizeof *x);
    if (m) memcpy(y, new_, m * sizeof *y);
    qsort(x, n, sizeof *x, cmp_i64);
    qsort(y, m, sizeof *y, cmp_i64);
    describe(x, n, &out->median_base, &out->min_base, &out->max_base);
    describe(y, m, &out->median_new, &out->min_new, &out->max_new);
    if (n == 0 || m == 0) {
        out->verdict = n == 0 && m == 0 ? STS_DIFF_INCONCLUSIVE : n == 0 ? STS_DIFF_APPEARED : STS_DIFF_DISAPPEARED;
        free(x);
        return STS_OK;
    }
    rank_choice rc = { -1, 1.0 };
    st = test_ranks(x, n, y, m, opt->confidence, out, &rc, err);
    if (st == STS_OK) {
        shift_interval(x, n, y, m, rc, out);
        if (out->median_base != 0)
            out->spread_pct =
                100.0 * pooled_spread(x, n, out->median_base, y, m, out->median_new) / fabs((double)out->median_base);
        double alpha = 1.0 - opt->confidence;
        decide(out, alpha, opt->margin_pct);
        if (out->verdict == STS_DIFF_INCONCLUSIVE)
            estimate_needed(out, sts_dstat_norm_quantile(1.0 - alpha / 2.0), alpha, opt->confidence, opt->margin_pct);
    }
    free(x);
    return st;
}

static int64_t median_sorted(const int64_t *v, size_t n)
{
    return n % 2 ? v[n / 2] : (int64_t)floor(((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0);
}

int sts_diff_modes(const int64_t *v, size_t n, int64_t modes[2])
{
    if (n < 6 || !v) return 0; /* a read document may count samples it does not hold */
    int64_t *x = malloc(n * sizeof *x);
    if (!x) return -1;
    memcpy(x, v, n * sizeof *x);
    qsort(x, n, sizeof *x, cmp_i64);
    size_t least = n / 10 > 2 ? n / 10 : 2, cut = 0;
    double widest = 0;
    for (size_t i = least; x[0] > 0 && i + least <= n; i++) {
        double ratio = (double)x[i] / (double)x[i - 1];
        if (ratio > widest) widest = ratio, cut = i;
    }
    int two = x[0] > 0 && widest >= STS_DIFF_MODE_RATIO;
    if (two) {
        modes[0] = median_sorted(x, cut);
        modes[1] = median_sorted(x + cut, n - cut);
    }
    free(x);
    return two;
}

void sts_diff_counts(int64_t base, int64_t new_, sts_diff_stats *out)
{
    clear_stats(out);
    out->method = STS_DIFF_METHOD_COUNT;
    out->n_base = out->n_new = 1;
    out->median_base = out->min_base = out->max_base = base;
    out->median_new = out->min_new = out->max_new = new_;
    out->shift_ns = out->ci_low_ns = out->ci_high_ns = (double)(new_ - base);
    out->ci_level = 1.0;
    if (base != 0) {
        out->change_pct = out->ci_low_pct = out->ci_high_pct = 100.0 * (double)(new_ - base) / (double)base;
    }
    out->verdict = new_ > base ? STS_DIFF_GREW : new_ < base ? STS_DIFF_SHRANK : STS_DIFF_SAME;
}
