/* diff: the Mann–Whitney distribution against enumeration and published critical
 * values, the Hodges–Lehmann shift and its interval against brute force, verdicts on
 * synthetic pairs with known shifts, predictions, and the trace, bench and ledger
 * comparisons. SciPy's mannwhitneyu checks the same numbers in tests/interop. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff/stats.h"
#include "diff/diff_impl.h"
#include "stepscope/analyze.h"
#include "stepscope/diff.h"
#include "test.h"

/* ---- independent reference computations ---------------------------------------- */

/* U of y over x by definition: every pair compared. */
static double brute_u(const int64_t *x, size_t n, const int64_t *y, size_t m)
{
    double u = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            u += y[j] > x[i] ? 1.0 : y[j] == x[i] ? 0.5 : 0.0;
    return u;
}

/* The null distribution of U by enumerating every choice of which n of the n+m ranks
 * belong to x (bit masks), counting for each the pairs where a y rank beats an x rank. */
static void enumerate_u(size_t n, size_t m, uint64_t *hist)
{
    size_t N = n + m;
    memset(hist, 0, (n * m + 1) * sizeof *hist);
    for (uint32_t mask = 0; mask < (1u << N); mask++) {
        if ((size_t)__builtin_popcount(mask) != n) continue;
        size_t u = 0, xs_below = 0;
        for (size_t r = 0; r < N; r++) {
            if (mask & (1u << r))
                xs_below++;
            else
                u += xs_below;
        }
        hist[u]++;
    }
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every difference y_j - x_i, sorted. */
static int64_t *all_diffs(const int64_t *x, size_t n, const int64_t *y, size_t m)
{
    int64_t *d = malloc(n * m * sizeof *d);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            d[i * m + j] = y[j] - x[i];
    qsort(d, n * m, sizeof *d, cmp64);
    return d;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

/* A normal deviate (Box–Muller) for synthetic samples. */
static double gauss(void)
{
    double u1 = ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0;
    double u2 = ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/* n samples around `center` ns with relative noise `rel` (never below 1 ns). */
static void synth(int64_t *v, size_t n, double center, double rel)
{
    for (size_t i = 0; i < n; i++) {
        double x = center * (1.0 + rel * gauss());
        v[i] = x < 1 ? 1 : (int64_t)llround(x);
    }
}

/* ---- the exact distribution ------------------------------------------------------ */

TEST(exact_counts_match_enumeration)
{
    for (size_t n = 1; n <= 8; n++) {
        for (size_t m = 1; m <= 8; m++) {
            uint64_t *c, total, want[65];
            T_EQ_I64(sts_dstat_exact_counts(n, m, &c, &total), 1);
            if (!c) return;
            enumerate_u(n, m, want);
            uint64_t sum = 0;
            for (size_t u = 0; u <= n * m; u++) {
                if (c[u] != want[u])
                    T_FAIL_AT("n=%zu m=%zu u=%zu: %llu != %llu", n, m, u, (unsigned long long)c[u],
                              (unsigned long long)want[u]);
                sum += want[u];
            }
            T_EQ_U64(total, sum);
            free(c);
        }
    }
}

/* Two-sided 5% critical values of U from the published tables (e.g. Siegel &
 * Castellan, Table J; Zar, Table B.11): the largest U with P(U <= u) <= 0.025; "-" (here
 * -1) where no U is small enough. The exact distribution must reproduce each. */
TEST(exact_critical_values_match_the_published_table)
{
    static const int table[8][8] = {
        /* m =   3   4   5   6   7   8   9  10       n */
        { -1, -1, 0, 1, 1, 2, 2, 3 },    /* 3 */
        { -1, 0, 1, 2, 3, 4, 4, 5 },     /* 4 */
        { 0, 1, 2, 3, 5, 6, 7, 8 },      /* 5 */
        { 1, 2, 3, 5, 6, 8, 10, 11 },    /* 6 */
        { 1, 3, 5, 6, 8, 10, 12, 14 },   /* 7 */
        { 2, 4, 6, 8, 10, 13, 15, 17 },  /* 8 */
        { 2, 4, 7, 10, 12, 15, 17, 20 }, /* 9 */
        { 3, 5, 8, 11, 14, 17, 20, 23 }, /* 10 */
    };
    for (size_t n = 3; n <= 10; n++) {
        for (size_t m = 3; m <= 10; m++) {
            uint64_t *c, total;
            T_EQ_I64(sts_dstat_exact_counts(n, m, &c, &total), 1);
            if (!c) return;
            int crit = -1;
            uint64_t cum = 0;
            for (size_t u = 0; u <= n * m; u++) {
                cum += c[u];
                if ((double)cum / (double)total > 0.025) break;
                crit = (int)u;
            }
            if (crit != table[n - 3][m - 3])
                T_FAIL_AT("n=%zu m=%zu: critical U %d, table %d", n, m, crit, table[n - 3][m - 3]);
            free(c);
        }
    }
}

TEST(exact_counts_refuse_what_they_cannot_hold)
{
    uint64_t *c, total;
    /* C(68, 34) > 2^64: left to the normal approximation. */
    T_EQ_I64(sts_dstat_exact_counts(34, 34, &c, &total), 0);
    T_TRUE(c == NULL);
    /* C(66, 33) < 2^64: exact, and symmetric. */
    T_EQ_I64(sts_dstat_exact_counts(33, 33, &c, &total), 1);
    T_EQ_U64(total, 7219428434016265740ULL);
    int sym = 1;
    for (size_t u = 0; c && u <= 33 * 33; u++)
        sym &= c[u] == c[33 * 33 - u];
    T_TRUE(sym);
    free(c);
    T_EQ_I64(sts_dstat_exact_counts(0, 5, &c, &total), 0);
}

/* ---- U, shift and interval ------------------------------------------------------- */

TEST(u_statistic_matches_its_definition)
{
    for (int trial = 0; trial < 300; trial++) {
        size_t n = 1 + rnd() % 12, m = 1 + rnd() % 12;
        int64_t x[12], y[12];
        int64_t range = 1 + (int64_t)(rnd() % 6); /* small ranges make ties */
        for (size_t i = 0; i < n; i++)
            x[i] = (int64_t)(rnd() % (uint64_t)range);
        for (size_t j = 0; j < m; j++)
            y[j] = (int64_t)(rnd() % (uint64_t)range);
        qsort(x, n, sizeof *x, cmp64);
        qsort(y, m, sizeof *y, cmp64);
        double ties;
        double u = sts_dstat_u(x, n, y, m, &ties);
        T_NEAR(u, brute_u(x, n, y, m), 0, 0);
        /* sum(t^3 - t) over tie groups, counted directly. */
        double want = 0;
        for (int64_t v = 0; v < range; v++) {
            double t = 0;
            for (size_t i = 0; i < n; i++)
                t += x[i] == v;
            for (size_t j = 0; j < m; j++)
                t += y[j] == v;
            want += t * t * t - t;
        }
        T_NEAR(ties, want, 0, 0);
    }
}

TEST(kth_difference_matches_sorting_all_of_them)
{
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + rnd() % 15, m = 1 + rnd() % 15;
        int64_t x[15], y[15];
        for (size_t i = 0; i < n; i++)
            x[i] = (int64_t)(rnd() % 1000) - 300;
        for (size_t j = 0; j < m; j++)
            y[j] = (int64_t)(rnd() % 1000) - 200;
        qsort(x, n, sizeof *x, cmp64);
        qsort(y, m, sizeof *y, cmp64);
        int64_t *d = all_diffs(x, n, y, m);
        for (uint64_t k = 1; k <= n * m; k++)
            if (sts_dstat_kth_diff(x, n, y, m, k) != d[k - 1])
                T_FAIL_AT("trial %d, k=%llu: %lld != %lld", trial, (unsigned long long)k,
                          (long long)sts_dstat_kth_diff(x, n, y, m, k), (long long)d[k - 1]);
        free(d);
    }
}

TEST(normal_quantile_and_tail)
{
    T_NEAR(sts_dstat_norm_quantile(0.975), 1.959963984540054, 1e-12, 0);
    T_NEAR(sts_dstat_norm_quantile(0.5), 0, 1e-12, 0);
    T_NEAR(sts_dstat_norm_quantile(0.995), 2.5758293035489004, 1e-12, 0);
    T_NEAR(sts_dstat_norm_sf(1.959963984540054), 0.025, 1e-15, 0);
}

/* Hodges–Lehmann shift = median of all differences; the interval's ends are the
 * order statistics whose rank the exact distribution gives: for 4 vs 4, c = 0, so the
 * interval is [min, max] of the differences with coverage 1 - 2/70. */
TEST(four_against_four_complete_separation)
{
    const int64_t base[4] = { 1263000, 1253000, 1269000, 1271000 };
    const int64_t newv[4] = { 263000, 259000, 270000, 255000 };
    sts_diff_stats s;
    T_EQ_I64(sts_diff_samples(base, 4, newv, 4, NULL, &s, NULL), STS_OK);
    T_EQ_I64(s.method, STS_DIFF_METHOD_EXACT);
    T_NEAR(s.u, 0, 0, 0);
    T_NEAR(s.p_value, 2.0 / 70.0, 1e-15, 0);
    T_NEAR(s.ci_level, 1.0 - 2.0 / 70.0, 1e-15, 0);
    T_NEAR(s.ci_low_ns, 255000 - 1271000, 0, 0);
    T_NEAR(s.ci_high_ns, 270000 - 1253000, 0, 0);
    int64_t *d = all_diffs((int64_t[]){ 1253000, 1263000, 1269000, 1271000 }, 4,
                           (int64_t[]){ 255000, 259000, 263000, 270000 }, 4);
    T_NEAR(s.shift_ns, 0.5 * ((double)d[7] + (double)d[8]), 0, 0);
    free(d);
    T_EQ_I64(s.median_base, (1263000 + 1269000) / 2);
    T_EQ_I64(s.median_new, (259000 + 263000) / 2);
    /* The percent is the ratio's: the median of the 16 ratios new_j / base_i, minus 1. */
    double ratios[16];
    const double bs[4] = { 1253000, 1263000, 1269000, 1271000 }, ns[4] = { 255000, 259000, 263000, 270000 };
    for (int i = 0; i < 16; i++)
        ratios[i] = ns[i % 4] / bs[i / 4];
    qsort(ratios, 16, sizeof ratios[0], cmp_double);
    T_NEAR(s.change_pct, 100.0 * (sqrt(ratios[7] * ratios[8]) - 1.0), 1e-9, 0);
    T_NEAR(s.ci_low_pct, 100.0 * (ratios[0] - 1.0), 1e-9, 0);
    T_NEAR(s.ci_high_pct, 100.0 * (ratios[15] - 1.0), 1e-9, 0);
    T_EQ_I64(s.verdict, STS_DIFF_SHRANK);
}

/* Three against three cannot reach p < 0.05 (the smallest two-sided p is 2/20), and
 * no 95% interval exists: inconclusive, asking for at least four per run. */
/* Durations of real loops are bimodal (a step that waits on the host now and then):
 * 0.1 ms and 28 ms mixed. The old percent, a shift over the base median, put such an
 * interval far below -100%; a ratio's never goes there. */
TEST(bimodal_interval_stays_above_minus_100)
{
    int64_t base[12], newv[12];
    for (int i = 0; i < 12; i++) {
        base[i] = i % 3 ? 100000 + i * 1000 : 28000000 + i * 10000;
        newv[i] = i % 4 ? 100000 + i * 900 : 28000000 + i * 9000;
    }
    sts_diff_stats s;
    T_EQ_I64(sts_diff_samples(base, 12, newv, 12, NULL, &s, NULL), STS_OK);
    T_TRUE(isfinite(s.ci_low_pct) && isfinite(s.ci_high_pct));
    T_TRUE(s.ci_low_pct > -100.0);
    T_TRUE(s.ci_low_pct <= s.change_pct && s.change_pct <= s.ci_high_pct);
    /* The bounds are ratios of one new sample over one base sample, minus 1. */
    T_TRUE(s.ci_low_pct >= 100.0 * (100000.0 / 28110000.0 - 1.0) - 1e-9);
}

/* Two modes are found and told by their medians; one outlier, a spread of one mode,
 * zeros or too few samples are not two modes. */
TEST(modes_found_and_not)
{
    int64_t v[10] = { 28000000, 100000, 101000, 28100000, 99000, 102000, 27900000, 100500, 98000, 103000 }, m[2];
    T_EQ_I64(sts_diff_modes(v, 10, m), 1);
    T_EQ_I64(m[0], 100500); /* the median of the seven lows 98000 .. 103000 */
    T_EQ_I64(m[1], 28000000);
    int64_t one_outlier[10] = { 100, 101, 102, 103, 104, 105, 106, 107, 108, 5000 };
    T_EQ_I64(sts_diff_modes(one_outlier, 10, m), 0);
    int64_t spread[8] = { 100, 150, 220, 330, 500, 740, 1100, 1650 };
    T_EQ_I64(sts_diff_modes(spread, 8, m), 0);
    int64_t zero[8] = { 0, 0, 0, 0, 1000, 1000, 1000, 1000 };
    T_EQ_I64(sts_diff_modes(zero, 8, m), 0);
    T_EQ_I64(sts_diff_modes(v, 5, m), 0);
}

/* Over random sample sets (one mode or two, any sizes from 4), a bounded percent
 * interval lies in (-100%, +inf), holds the estimate, and agrees in sign with the ns
 * interval (the same ranks of the same pairs). */
TEST(percent_interval_is_a_ratio_interval_property)
{
    for (int trial = 0; trial < 300; trial++) {
        size_t n = 4 + rnd() % 20, m = 4 + rnd() % 20;
        int64_t x[24], y[24];
        int64_t lo = 1 + (int64_t)(rnd() % 1000), hi = lo * (int64_t)(1 + rnd() % 500);
        for (size_t i = 0; i < n; i++)
            x[i] = (rnd() % 3 ? lo : hi) + (int64_t)(rnd() % (uint64_t)(lo + 1));
        for (size_t j = 0; j < m; j++)
            y[j] = (rnd() % 2 ? lo : hi) + (int64_t)(rnd() % (uint64_t)(lo + 1)) - (trial % 7 == 0 ? lo : 0);
        sts_diff_stats s;
        T_EQ_I64(sts_diff_samples(x, n, y, m, NULL, &s, NULL), STS_OK);
        if (isinf(s.ci_low_pct)) continue;
        T_TRUE(s.ci_low_pct > -100.0);
        T_TRUE(s.ci_low_pct <= s.change_pct + 1e-9 && s.change_pct <= s.ci_high_pct + 1e-9);
        T_TRUE((s.ci_low_ns > 0) == (s.ci_low_pct > 0) && (s.ci_high_ns < 0) == (s.ci_high_pct < 0));
    }
}

TEST(three_against_three_cannot_decide)
{
    const int64_t base[3] = { 1000, 1010, 1020 }, newv[3] = { 100, 110, 120 };
    sts_diff_stats s;
    T_EQ_I64(sts_diff_samples(base, 3, newv, 3, NULL, &s, NULL), STS_OK);
    T_NEAR(s.p_value, 0.1, 1e-15, 0);
    T_TRUE(isinf(s.ci_low_ns) && s.ci_low_ns < 0 && isinf(s.ci_high_ns));
    T_EQ_I64(s.verdict, STS_DIFF_INCONCLUSIVE);
    T_GE_I64(s.samples_needed, 4);
}

/* The interval's ranks for random samples: [D_(c+1), D_(nm-c)] with c the published
 * rule, checked against the sorted differences; its coverage is at least 95%. */
TEST(interval_is_the_rank_rule_on_sorted_differences)
{
    for (int trial = 0; trial < 100; trial++) {
        size_t n = 4 + rnd() % 7, m = 4 + rnd() % 7;
        int64_t x[10], y[10];
        for (size_t i = 0; i < n; i++)
            x[i] = (int64_t)(rnd() % 1000000) * 4 + 1; /* distinct odd-ish: ties unlikely */
        for (size_t j = 0; j < m; j++)
            y[j] = (int64_t)(rnd() % 1000000) * 4 + 3;
        sts_diff_stats s;
        T_EQ_I64(sts_diff_samples(x, n, y, m, NULL, &s, NULL), STS_OK);
        if (s.method != STS_DIFF_METHOD_EXACT) continue;
        uint64_t hist[101];
        enumerate_u(n, m, hist);
        uint64_t total = 0, cum = 0;
        for (size_t u = 0; u <= n * m; u++)
            total += hist[u];
        long c = -1;
        for (size_t u = 0; u <= n * m; u++) {
            cum += hist[u];
            if ((double)cum / (double)total > 0.025) break;
            c = (long)u;
        }
        qsort(x, n, sizeof *x, cmp64);
        qsort(y, m, sizeof *y, cmp64);
        int64_t *d = all_diffs(x, n, y, m);
        T_TRUE(c >= 0);
        if (c >= 0) {
            T_NEAR(s.ci_low_ns, d[c], 0, 0);
            T_NEAR(s.ci_high_ns, d[n * m - 1 - (size_t)c], 0, 0);
        }
        T_TRUE(s.ci_level >= 0.95);
        T_TRUE(s.ci_low_ns <= s.shift_ns && s.shift_ns <= s.ci_high_ns);
        free(d);
    }
}

/* Without ties but with samples too big for the table, and with ties, the normal
 * approximation is used and says so; its p agrees with the exact one where both
 * exist (20 vs 20 without ties). */
TEST(normal_approximation_is_named_and_close_to_exact)
{
    int64_t x[40], y[40];
    for (int i = 0; i < 20; i++) {
        x[i] = 1000 + 7 * i;
        y[i] = 1061 + 7 * i; /* never equal to an x */
    }
    sts_diff_stats exact, ties;
    T_EQ_I64(sts_diff_samples(x, 20, y, 20, NULL, &exact, NULL), STS_OK);
    T_EQ_I64(exact.method, STS_DIFF_METHOD_EXACT);
    /* The same U by the normal formula, written out here. */
    double u = brute_u(x, 20, y, 20), sigma = sqrt(20.0 * 20.0 * 41.0 / 12.0);
    double z = (fabs(u - 200.0) - 0.5) / sigma, p_norm = erfc(z / sqrt(2.0));
    T_NEAR(exact.p_value, p_norm, 0.01, 0);
    for (int i = 0; i < 20; i++)
        y[i] = x[i] + 70 * (i % 2);
    T_EQ_I64(sts_diff_samples(x, 20, y, 20, NULL, &ties, NULL), STS_OK);
    T_EQ_I64(ties.method, STS_DIFF_METHOD_NORMAL_TIES);
    int64_t big_x[40], big_y[40];
    for (int i = 0; i < 40; i++) {
        big_x[i] = 5000 + 11 * i;
        big_y[i] = 5003 + 11 * i;
    }
    sts_diff_stats normal;
    T_EQ_I64(sts_diff_samples(big_x, 40, big_y, 40, NULL, &normal, NULL), STS_OK);
    T_EQ_I64(normal.method, STS_DIFF_METHOD_NORMAL);
}

/* ---- verdicts on synthetic pairs with known shifts -------------------------------- */

typedef struct shift_case {
    const char *what;
    size_t n;
    double shift; /* relative: new = base * (1 + shift) */
    double noise; /* relative standard deviation */
    sts_diff_verdict want;
} shift_case;

TEST(verdicts_for_known_shifts_and_sample_sizes)
{
    static const shift_case cases[] = {
        { "no shift, 200 steps, 1% noise", 200, 0.0, 0.01, STS_DIFF_SAME },
        { "5% growth, 200 steps, 1% noise", 200, 0.05, 0.01, STS_DIFF_GREW },
        { "50% shrink, 10 steps, 2% noise", 10, -0.5, 0.02, STS_DIFF_SHRANK },
        { "50% growth, 4 steps, 2% noise", 4, 0.5, 0.02, STS_DIFF_GREW },
        { "5% growth, 4 steps, 10% noise", 4, 0.05, 0.10, STS_DIFF_INCONCLUSIVE },
        { "no shift, 4 steps, 10% noise", 4, 0.0, 0.10, STS_DIFF_INCONCLUSIVE },
        { "50% growth, 3 steps, 1% noise", 3, 0.5, 0.01, STS_DIFF_INCONCLUSIVE },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const shift_case *c = &cases[k];
        int64_t base[200], newv[200];
        rng_state = 0x9e3779b97f4a7c15ULL + k;
        synth(base, c->n, 1e6, c->noise);
        synth(newv, c->n, 1e6 * (1 + c->shift), c->noise);
        sts_diff_stats s;
        T_EQ_I64(sts_diff_samples(base, c->n, newv, c->n, NULL, &s, NULL), STS_OK);
        if (s.verdict != c->want)
            T_FAIL_AT("%s: verdict %s, want %s (change %.2f%%, CI %.2f..%.2f, p %.3g)", c->what,
                      sts_diff_verdict_name(s.verdict), sts_diff_verdict_name(c->want), s.change_pct, s.ci_low_pct,
                      s.ci_high_pct, s.p_value);
        if (c->want == STS_DIFF_GREW || c->want == STS_DIFF_SHRANK)
            T_TRUE(s.ci_low_pct <= 100 * c->shift + 3 * c->noise * 100 &&
                   s.ci_high_pct >= 100 * c->shift - 3 * c->noise * 100);
        if (s.verdict == STS_DIFF_INCONCLUSIVE) T_TRUE(s.samples_needed > c->n);
    }
}

/* Lesson 1: one slow sample is not a regression. Nineteen equal-looking steps and one
 * three times slower: the rank test sees one outlier, not a shift. */
TEST(one_outlier_step_is_not_a_regression)
{
    int64_t base[20], newv[20];
    rng_state = 77;
    synth(base, 20, 1e6, 0.01);
    synth(newv, 20, 1e6, 0.01);
    newv[7] = 3000000;
    sts_diff_stats s;
    T_EQ_I64(sts_diff_samples(base, 20, newv, 20, NULL, &s, NULL), STS_OK);
    T_TRUE(s.verdict != STS_DIFF_GREW);
    T_TRUE(s.p_value > 0.05);
    T_TRUE(fabs(s.change_pct) < 2.0);
    /* The mean would have said +10%. */
    double mb = 0, mn = 0;
    for (int i = 0; i < 20; i++) {
        mb += (double)base[i];
        mn += (double)newv[i];
    }
    T_TRUE(mn / mb - 1 > 0.09);
}

TEST(all_equal_samples_are_the_same)
{
    const int64_t v[5] = { 1000, 1000, 1000, 1000, 1000 };
    sts_diff_stats s;
    T_EQ_I64(sts_diff_samples(v, 5, v, 5, NULL, &s, NULL), STS_OK);
    T_EQ_I64(s.method, STS_DIFF_METHOD_NORMAL_TIES);
    T_NEAR(s.p_value, 1, 0, 0);
    T_NEAR(s.ci_low_ns, 0, 0, 0);
    T_NEAR(s.ci_high_ns, 0, 0, 0);
    T_EQ_I64(s.verdict, STS_DIFF_SAME);
}

/* Equal values do not make up for too few samples: 1 vs 1 or 3 vs 3 cannot have any
 * 95% interval, tied or not, so they cannot be "same" either. */
TEST(too_few_samples_are_never_same)
{
    const int64_t v[3] = { 1000, 1000, 1000 };
    sts_diff_stats s;
    for (size_t n = 1; n <= 3; n++) {
        T_EQ_I64(sts_diff_samples(v, n, v, n, NULL, &s, NULL), STS_OK);
        T_TRUE(isinf(s.ci_low_ns) && isinf(s.ci_high_ns));
        T_EQ_I64(s.verdict, STS_DIFF_INCONCLUSIVE);
    }
    const int64_t w[4] = { 1000, 1000, 1000, 1000 };
    T_EQ_I64(sts_diff_samples(w, 4, w, 4, NULL, &s, NULL), STS_OK); /* C(8, 4) = 70 >= 40 */
    T_EQ_I64(s.verdict, STS_DIFF_SAME);
}

TEST(empty_sides_and_bad_options)
{
    const int64_t v[2] = { 5, 6 };
    sts_diff_stats s;
    T_EQ_I64(sts_diff_samples(v, 0, v, 2, NULL, &s, NULL), STS_OK);
    T_EQ_I64(s.verdict, STS_DIFF_APPEARED);
    T_TRUE(isnan(s.p_value) && isnan(s.change_pct));
    T_EQ_I64(sts_diff_samples(v, 2, v, 0, NULL, &s, NULL), STS_OK);
    T_EQ_I64(s.verdict, STS_DIFF_DISAPPEARED);
    sts_diff_options o = STS_DIFF_OPTIONS_INIT;
    sts_error err = STS_ERROR_INIT;
    o.confidence = 1.0;
    T_EQ_I64(sts_diff_samples(v, 2, v, 2, &o, &s, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "confidence");
    o.confidence = 0.95;
    o.margin_pct = 0;
    T_EQ_I64(sts_diff_samples(v, 2, v, 2, &o, &s, &err), STS_ERR_INVALID_ARG);
    const int64_t huge[1] = { INT64_C(1) << 60 };
    T_EQ_I64(sts_diff_samples(huge, 1, v, 2, NULL, &s, &err), STS_ERR_RANGE);
    T_CONTAINS(err.message, "base sample 0");
}

TEST(counts_compare_exactly)
{
    sts_diff_stats s;
    sts_diff_counts(8, 4, &s);
    T_EQ_I64(s.method, STS_DIFF_METHOD_COUNT);
    T_EQ_I64(s.verdict, STS_DIFF_SHRANK);
    T_NEAR(s.change_pct, -50, 0, 0);
    sts_diff_counts(0, 3, &s);
    T_EQ_I64(s.verdict, STS_DIFF_GREW);
    T_TRUE(isnan(s.change_pct));
    sts_diff_counts(2, 2, &s);
    T_EQ_I64(s.verdict, STS_DIFF_SAME);
}

/* ---- properties over random samples ------------------------------------------------ */

/* Whatever the samples: the shift lies in its interval, p in [0, 1], U in [0, nm], the
 * verdict agrees with the interval and the test, an exact interval covers at least
 * the confidence, and swapping the runs mirrors everything. */
TEST(properties_hold_for_random_samples)
{
    rng_state = 12345;
    for (int trial = 0; trial < 400; trial++) {
        size_t n = 1 + rnd() % 40, m = 1 + rnd() % 40;
        int64_t x[40], y[40];
        int64_t spread = 1 + (int64_t)(rnd() % 1000), shift = (int64_t)(rnd() % 400) - 200;
        for (size_t i = 0; i < n; i++)
            x[i] = 1000 + (int64_t)(rnd() % (uint64_t)spread);
        for (size_t j = 0; j < m; j++)
            y[j] = 1000 + shift + (int64_t)(rnd() % (uint64_t)spread);
        sts_diff_stats s, r;
        T_EQ_I64(sts_diff_samples(x, n, y, m, NULL, &s, NULL), STS_OK);
        T_EQ_I64(sts_diff_samples(y, m, x, n, NULL, &r, NULL), STS_OK);
        T_TRUE(s.p_value >= 0 && s.p_value <= 1);
        T_TRUE(s.u >= 0 && s.u <= (double)(n * m));
        T_TRUE(s.ci_low_ns <= s.shift_ns && s.shift_ns <= s.ci_high_ns);
        T_TRUE(s.min_base <= s.median_base && s.median_base <= s.max_base);
        if (s.method == STS_DIFF_METHOD_EXACT) T_TRUE(s.ci_level >= 0.95);
        if (s.verdict == STS_DIFF_GREW) T_TRUE(s.ci_low_ns > 0 && s.p_value < 0.05);
        if (s.verdict == STS_DIFF_SHRANK) T_TRUE(s.ci_high_ns < 0 && s.p_value < 0.05);
        if (s.verdict == STS_DIFF_SAME)
            T_TRUE((s.ci_low_pct >= -5 && s.ci_high_pct <= 5) || (s.ci_low_ns == 0 && s.ci_high_ns == 0));
        if (s.samples_needed) T_TRUE(s.verdict == STS_DIFF_INCONCLUSIVE && s.samples_needed > (n > m ? n : m));
        T_NEAR(r.shift_ns, -s.shift_ns, 0, 0);
        T_TRUE(r.ci_low_ns == -s.ci_high_ns); /* infinities included */
        T_TRUE(r.ci_high_ns == -s.ci_low_ns);
        T_NEAR(r.p_value, s.p_value, 1e-12, 0);
        T_NEAR(r.u, (double)(n * m) - s.u, 0, 0);
        T_EQ_I64(r.method, s.method);
    }
}

/* ---- traces -------------------------------------------------------------------------- */

typedef struct tbuf {
    char *p;
    size_t n, cap;
} tbuf;

static void tput(tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tput(tbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)k + 1 > b->cap) {
        b->cap = (b->cap + (size_t)k + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, tmp, (size_t)k + 1);
    b->n += (size_t)k;
}

/* Opens Chrome JSON text as a timeline (through a temporary file). */
static sts_timeline *open_json(const char *json)
{
    char path[] = "/tmp/stepscope-diff-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return NULL;
    size_t n = strlen(json);
    int ok = write(fd, json, n) == (ssize_t)n;
    close(fd);
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (ok && sts_timeline_open(path, NULL, &tl, &err) != STS_OK) fprintf(stderr, "open: %s\n", err.message);
    unlink(path);
    return tl;
}

/* Lesson 3's shape: steps of input_wait (w[i] us) then model_and_wait (m[i] us) on the
 * host thread, with `gap` us of step time no child covers, and a device kernel of
 * k[i] us inside each step on another process. `extra` names a child added after
 * model_and_wait in every step (NULL: none). */
static char *lesson_json(size_t n, const int *w, const int *mo, const int *k, int gap, const char *extra)
{
    tbuf b = { NULL, 0, 0 };
    tput(&b, "{\"traceEvents\":[\n"
             "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}},\n"
             "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}},\n"
             "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"args\":{\"name\":\"/device:CPU:0\"}}");
    long t = 100;
    for (size_t i = 0; i < n; i++) {
        int ex = extra ? 3 : 0;
        long dur = w[i] + mo[i] + ex + gap;
        tput(&b,
             ",\n{\"ph\":\"X\",\"name\":\"learner_step\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%ld,\"args\":{\"step_"
             "num\":%zu}}",
             t, dur, i);
        tput(&b, ",\n{\"ph\":\"X\",\"name\":\"input_wait\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%d}", t, w[i]);
        tput(&b, ",\n{\"ph\":\"X\",\"name\":\"model_and_wait\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%d}", t + w[i],
             mo[i]);
        if (extra)
            tput(&b, ",\n{\"ph\":\"X\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%d}", extra,
                 t + w[i] + mo[i], ex);
        tput(&b, ",\n{\"ph\":\"X\",\"name\":\"kernel\",\"pid\":9,\"tid\":7,\"ts\":%ld,\"dur\":%d}", t + w[i] + 1, k[i]);
        t += dur + 50;
    }
    tput(&b, "\n]}\n");
    return b.p;
}

static const sts_diff_interval *row_of(const sts_diff *d, const char *key)
{
    size_t n;
    const sts_diff_interval *r = sts_diff_intervals(d, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].key, key) == 0) return &r[i];
    return NULL;
}

static sts_diff *diff_of(const char *a, const char *b, const char *step, sts_error *err)
{
    sts_timeline *ta = open_json(a), *tb = open_json(b);
    sts_diff *d = NULL;
    sts_diff_options o = STS_DIFF_OPTIONS_INIT;
    o.step = step;
    if (ta && tb) sts_diff_timelines(ta, tb, &o, &d, err);
    sts_timeline_free(ta);
    sts_timeline_free(tb);
    return d;
}

static int expect(sts_diff *d, const char *pred)
{
    sts_error err = STS_ERROR_INIT;
    if (sts_diff_expect(d, pred, &err) != STS_OK) return -1;
    size_t n;
    const sts_diff_prediction *p = sts_diff_predictions(d, &n);
    return (int)p[n - 1].result;
}

/* The lesson's change: the wait cut from ~1000 us to ~200 us, the model unchanged (the
 * same durations in another order). Every per-step sample is what the trace says. */
TEST(trace_pair_with_a_known_shift)
{
    enum { N = 12 };
    int w0[N], w1[N], mo0[N], mo1[N], k0[N], k1[N];
    for (int i = 0; i < N; i++) {
        w0[i] = 1000 + 7 * i;
        w1[i] = 200 + 5 * i;
        mo0[i] = 100 + i % 3;
        mo1[i] = 100 + (i + 1) % 3;
        k0[i] = k1[i] = 40;
    }
    char *a = lesson_json(N, w0, mo0, k0, 5, NULL), *b = lesson_json(N, w1, mo1, k1, 5, NULL);
    sts_error err = STS_ERROR_INIT;
    sts_diff *d = diff_of(a, b, NULL, &err);
    T_TRUE(d != NULL);
    if (!d) {
        fprintf(stderr, "%s\n", err.message);
        free(a);
        free(b);
        return;
    }
    T_EQ_STR(sts_diff_samples_word(d), "step");
    const sts_diff_interval *wait = row_of(d, "input_wait"), *model = row_of(d, "model_and_wait");
    const sts_diff_interval *step = row_of(d, "step"), *un = row_of(d, "unattributed"), *kern = row_of(d, "kernel");
    T_TRUE(wait && model && step && un && kern);
    if (wait && model && step && un && kern) {
        T_EQ_STR(wait->group, "child");
        T_EQ_U64(wait->stats.n_base, N);
        for (int i = 0; i < N; i++) {
            T_EQ_I64(wait->base_samples[i], w0[i] * 1000);
            T_EQ_I64(wait->new_samples[i], w1[i] * 1000);
            T_EQ_I64(wait->base_index[i], i);
            T_EQ_I64(step->base_samples[i], (w0[i] + mo0[i] + 5) * 1000);
            T_EQ_I64(un->base_samples[i], 5000);
            T_EQ_I64(kern->base_samples[i], 40000);
        }
        T_EQ_I64(wait->stats.verdict, STS_DIFF_SHRANK);
        T_EQ_I64(step->stats.verdict, STS_DIFF_SHRANK);
        T_EQ_I64(model->stats.verdict, STS_DIFF_SAME);
        T_EQ_I64(kern->stats.verdict, STS_DIFF_SAME);
        T_EQ_STR(kern->group, "name");
        const sts_diff_interval *dev = row_of(d, "/device:CPU:0 / tid 7");
        T_TRUE(dev && dev->base_samples[0] == 40000 && dev->stats.verdict == STS_DIFF_SAME);
        /* The same numbers through sts_diff_samples directly. */
        int64_t x[N], y[N];
        for (int i = 0; i < N; i++) {
            x[i] = w0[i] * 1000;
            y[i] = w1[i] * 1000;
        }
        sts_diff_stats s;
        sts_diff_samples(x, N, y, N, NULL, &s, NULL);
        T_NEAR(wait->stats.p_value, s.p_value, 0, 0);
        T_NEAR(wait->stats.shift_ns, s.shift_ns, 0, 0);
    }
    T_EQ_I64(expect(d, "input_wait:shrink"), STS_DIFF_HELD);
    T_EQ_I64(expect(d, "model_and_wait:same"), STS_DIFF_HELD);
    T_EQ_I64(sts_diff_exit_status(d), 0);
    T_EQ_I64(expect(d, "input_wait:shrink>=70%"), STS_DIFF_HELD);
    T_EQ_I64(expect(d, "step:same<=5%"), STS_DIFF_FAILED);
    T_EQ_I64(sts_diff_exit_status(d), 3);
    T_EQ_I64(expect(d, "input_wait:shrink>=81%"), STS_DIFF_FAILED);
    T_EQ_I64(expect(d, "kernel:shrink"), STS_DIFF_FAILED); /* it stayed the same */
    size_t np;
    const sts_diff_prediction *p = sts_diff_predictions(d, &np);
    T_CONTAINS(p[0].why, "input_wait shrank ");
    T_CONTAINS(p[0].why, "over 12 vs 12 steps): held");
    T_CONTAINS(p[3].why, ": failed, it changed by more than 5%");
    sts_diff_free(d);
    free(a);
    free(b);
}

/* Four steps can tell a 5x shrink (p = 2/70) but not that something stayed the same:
 * exit status 4, with the steps that would decide. */
TEST(four_steps_decide_a_shrink_but_not_sameness)
{
    int w0[4] = { 1263, 1253, 1269, 1271 }, w1[4] = { 263, 259, 270, 255 };
    int m0[4] = { 108, 137, 74, 140 }, m1[4] = { 82, 136, 62, 122 }, k[4] = { 30, 30, 30, 30 };
    char *a = lesson_json(4, w0, m0, k, 5, NULL), *b = lesson_json(4, w1, m1, k, 5, NULL);
    sts_diff *d = diff_of(a, b, "learner_step", NULL);
    T_TRUE(d != NULL);
    if (d) {
        T_EQ_I64(expect(d, "input_wait:shrink"), STS_DIFF_HELD);
        T_TRUE(expect(d, "model_and_wait:same") >= 0);
        T_EQ_I64(sts_diff_exit_status(d), 4);
        size_t np;
        const sts_diff_prediction *p = sts_diff_predictions(d, &np);
        T_CONTAINS(p[0].why, "p = 0.029 over 4 vs 4 steps): held");
        T_CONTAINS(p[1].why, ": inconclusive, ");
        T_CONTAINS(p[1].why, "steps per run would be needed");
        T_TRUE(row_of(d, "model_and_wait")->stats.samples_needed > 4);
    }
    sts_diff_free(d);
    free(a);
    free(b);
}

/* A child in one run only appears or disappears; predictions about it are judged by
 * that. */
TEST(names_in_one_run_only)
{
    int w[4] = { 100, 101, 102, 103 }, m[4] = { 50, 51, 52, 53 }, k[4] = { 9, 9, 9, 9 };
    char *a = lesson_json(4, w, m, k, 2, "log"), *b = lesson_json(4, w, m, k, 2, "prefetch");
    sts_diff *d = diff_of(a, b, NULL, NULL);
    T_TRUE(d != NULL);
    if (d) {
        const sts_diff_interval *log = row_of(d, "log"), *pre = row_of(d, "prefetch");
        T_TRUE(log && pre);
        if (log && pre) {
            T_EQ_I64(log->stats.verdict, STS_DIFF_DISAPPEARED);
            T_EQ_I64(pre->stats.verdict, STS_DIFF_APPEARED);
            T_EQ_U64(pre->stats.n_base, 0);
            T_EQ_U64(pre->stats.n_new, 4);
        }
        T_EQ_I64(expect(d, "log:shrink"), STS_DIFF_HELD);
        T_EQ_I64(expect(d, "log:same"), STS_DIFF_FAILED);
        T_EQ_I64(expect(d, "prefetch:grow"), STS_DIFF_HELD);
        T_EQ_I64(expect(d, "prefetch:shrink"), STS_DIFF_FAILED);
        sts_error err = STS_ERROR_INIT;
        T_EQ_I64(sts_diff_expect(d, "prefetc:grow", &err), STS_ERR_NOT_FOUND);
        T_CONTAINS(err.message, "did you mean 'prefetch'");
    }
    sts_diff_free(d);
    free(a);
    free(b);
}

/* A slice on another lane that spans two steps counts in each by its overlap; one
 * nested in a slice of its own name is not counted again; time outside every step is
 * not counted. */
TEST(interval_names_are_clipped_to_step_windows)
{
    const char *json = "{\"traceEvents\":[\n"
                       "{\"ph\":\"X\",\"name\":\"step\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
                       "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},\n"
                       "{\"ph\":\"X\",\"name\":\"step\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},\n"
                       "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":20},\n"
                       "{\"ph\":\"X\",\"name\":\"bg\",\"pid\":2,\"tid\":2,\"ts\":60,\"dur\":80},\n"
                       "{\"ph\":\"X\",\"name\":\"f\",\"pid\":2,\"tid\":3,\"ts\":150,\"dur\":40},\n"
                       "{\"ph\":\"X\",\"name\":\"f\",\"pid\":2,\"tid\":3,\"ts\":160,\"dur\":10},\n"
                       "{\"ph\":\"X\",\"name\":\"late\",\"pid\":2,\"tid\":3,\"ts\":300,\"dur\":10}\n"
                       "]}";
    sts_diff *d = diff_of(json, json, "step", NULL);
    T_TRUE(d != NULL);
    if (!d) return;
    const sts_diff_interval *bg = row_of(d, "bg"), *f = row_of(d, "f");
    T_TRUE(bg && f && !row_of(d, "late"));
    if (bg && f) {
        T_EQ_U64(bg->stats.n_base, 2);
        T_EQ_I64(bg->base_samples[0], 40000); /* [60, 100) */
        T_EQ_I64(bg->base_samples[1], 40000); /* [100, 140) */
        T_EQ_U64(f->stats.n_base, 1);
        T_EQ_I64(f->base_samples[0], 40000); /* the outer f only */
        T_EQ_I64(f->base_index[0], 1);
    }
    sts_diff_free(d);
}

/* Lanes other than the steps' own are compared by their busy time inside each step,
 * matched by process and thread name even when the ids differ between runs; a lane
 * idle in a step counts 0 there. */
TEST(lanes_matched_by_name_not_id)
{
    static const char a[] =
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":5,\"args\":{\"name\":\"python\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":5,\"tid\":51,\"args\":{\"name\":\"worker\"}},"
        "{\"ph\":\"X\",\"name\":\"step\",\"pid\":5,\"tid\":50,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":5,\"tid\":50,\"ts\":10,\"dur\":20},"
        "{\"ph\":\"X\",\"name\":\"step\",\"pid\":5,\"tid\":50,\"ts\":100,\"dur\":100},"
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":5,\"tid\":50,\"ts\":110,\"dur\":20},"
        "{\"ph\":\"X\",\"name\":\"load\",\"pid\":5,\"tid\":51,\"ts\":20,\"dur\":30},"
        "{\"ph\":\"X\",\"name\":\"load\",\"pid\":5,\"tid\":51,\"ts\":40,\"dur\":30}]}";
    static const char b[] =
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":8,\"args\":{\"name\":\"python\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":8,\"tid\":99,\"args\":{\"name\":\"worker\"}},"
        "{\"ph\":\"X\",\"name\":\"step\",\"pid\":8,\"tid\":80,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":8,\"tid\":80,\"ts\":10,\"dur\":20},"
        "{\"ph\":\"X\",\"name\":\"step\",\"pid\":8,\"tid\":80,\"ts\":100,\"dur\":100},"
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":8,\"tid\":80,\"ts\":110,\"dur\":20},"
        "{\"ph\":\"X\",\"name\":\"load\",\"pid\":8,\"tid\":99,\"ts\":120,\"dur\":10}]}";
    sts_diff *d = diff_of(a, b, "step", NULL);
    T_TRUE(d != NULL);
    if (!d) return;
    const sts_diff_interval *w = row_of(d, "python / worker");
    T_TRUE(w != NULL);
    if (w) {
        T_EQ_STR(w->group, "lane");
        T_EQ_U64(w->stats.n_base, 2);
        T_EQ_U64(w->stats.n_new, 2);
        T_EQ_I64(w->base_samples[0], 50000); /* the union of [20, 50) and [40, 70) */
        T_EQ_I64(w->base_samples[1], 0);     /* idle in the second step */
        T_EQ_I64(w->new_samples[0], 0);
        T_EQ_I64(w->new_samples[1], 10000);
        T_EQ_I64(w->new_index[1], 1);
    }
    sts_diff_free(d);
}

/* Two JAX runs: the worker threads carry a random id per process
 * (tf_XLAEigen/-9088472200616544340); the rows match them by the name without it, and
 * a lane renamed between runs is paired with --pair-lanes. */
static const char jax_a[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":5,\"args\":{\"name\":\"/host:CPU\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":5,\"tid\":51,\"args\":{\"name\":\"tf_XLAEigen/"
    "-9088472200616544340\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":5,\"tid\":52,\"args\":{\"name\":\"loader\"}},"
    "{\"ph\":\"X\",\"name\":\"step\",\"pid\":5,\"tid\":50,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"name\":\"step\",\"pid\":5,\"tid\":50,\"ts\":100,\"dur\":100},"
    "{\"ph\":\"X\",\"name\":\"dot\",\"pid\":5,\"tid\":51,\"ts\":20,\"dur\":30},"
    "{\"ph\":\"X\",\"name\":\"dot\",\"pid\":5,\"tid\":51,\"ts\":120,\"dur\":40},"
    "{\"ph\":\"X\",\"name\":\"read\",\"pid\":5,\"tid\":52,\"ts\":10,\"dur\":5}]}";
static const char jax_b[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"args\":{\"name\":\"/host:CPU\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":9,\"tid\":91,\"args\":{\"name\":\"tf_XLAEigen/"
    "7431520012338865409\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":9,\"tid\":92,\"args\":{\"name\":\"prefetch\"}},"
    "{\"ph\":\"X\",\"name\":\"step\",\"pid\":9,\"tid\":90,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"name\":\"step\",\"pid\":9,\"tid\":90,\"ts\":100,\"dur\":100},"
    "{\"ph\":\"X\",\"name\":\"dot\",\"pid\":9,\"tid\":91,\"ts\":20,\"dur\":10},"
    "{\"ph\":\"X\",\"name\":\"read\",\"pid\":9,\"tid\":92,\"ts\":110,\"dur\":7}]}";

TEST(jax_worker_lanes_match_without_random_ids)
{
    T_EQ_U64(sts_dd_stable_len("tf_XLAEigen/-9088472200616544340"), 11);
    T_EQ_U64(sts_dd_stable_len("tf_XLAEigen/7431520012338865409"), 11);
    T_EQ_U64(sts_dd_stable_len("worker-3"), 8);        /* a short number says which worker */
    T_EQ_U64(sts_dd_stable_len("stream 1234567"), 14); /* no separator before it */
    T_EQ_U64(sts_dd_stable_len("/1234567"), 8);
    sts_diff *d = diff_of(jax_a, jax_b, "step", NULL);
    T_TRUE(d != NULL);
    if (!d) return;
    const sts_diff_interval *w = row_of(d, "/host:CPU / tf_XLAEigen");
    T_TRUE(w != NULL);
    if (w) {
        T_EQ_U64(w->stats.n_base, 2);
        T_EQ_U64(w->stats.n_new, 2);
        T_EQ_I64(w->base_samples[1], 40000);
        T_EQ_I64(w->new_samples[0], 10000);
        T_EQ_I64(w->new_samples[1], 0);
    }
    /* Without a pair the renamed lane is one that disappeared and one that appeared. */
    T_EQ_I64(row_of(d, "/host:CPU / loader")->stats.verdict, STS_DIFF_DISAPPEARED);
    sts_diff_free(d);

    const char *pairs[] = { "/host:CPU / loader=/host:CPU / prefetch", "/host:CPU / x=/host:CPU / nothing" };
    sts_timeline *ta = open_json(jax_a), *tb = open_json(jax_b);
    sts_diff_options o = STS_DIFF_OPTIONS_INIT;
    o.step = "step";
    o.pair_lanes = pairs;
    o.npair_lanes = 2;
    d = NULL;
    if (ta && tb) T_EQ_I64(sts_diff_timelines(ta, tb, &o, &d, NULL), STS_OK);
    sts_timeline_free(ta);
    sts_timeline_free(tb);
    T_TRUE(d != NULL);
    if (!d) return;
    const sts_diff_interval *l = row_of(d, "/host:CPU / loader");
    T_TRUE(l && l->stats.n_base == 2 && l->stats.n_new == 2);
    if (l) T_EQ_I64(l->new_samples[1], 7000);
    T_TRUE(row_of(d, "/host:CPU / prefetch") == NULL);
    size_t nn;
    const char *const *notes = sts_diff_notes(d, &nn);
    int said = 0;
    for (size_t i = 0; i < nn; i++)
        said |= strstr(notes[i], "NEW has no lane named '/host:CPU / nothing'") != NULL;
    T_TRUE(said);
    sts_diff_free(d);
    o.pair_lanes = (const char *[]){ "no equals sign" };
    o.npair_lanes = 1;
    sts_error err = STS_ERROR_INIT;
    sts_diff_stats probe;
    T_EQ_I64(sts_diff_samples(NULL, 0, NULL, 0, &o, &probe, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "not 'no equals sign'");
}

TEST(traces_without_steps_compare_slices)
{
    const char *a = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
                    "{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":11},"
                    "{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":12}]}";
    const char *b = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":5,\"tid\":5,\"ts\":0,\"dur\":20}]}";
    sts_diff *d = diff_of(a, b, NULL, NULL);
    T_TRUE(d != NULL);
    if (!d) return;
    T_EQ_STR(sts_diff_samples_word(d), "slice");
    size_t nn;
    const char *const *notes = sts_diff_notes(d, &nn);
    T_TRUE(nn >= 1 && strstr(notes[0], "no steps found in either trace"));
    const sts_diff_interval *k = row_of(d, "k");
    T_TRUE(k && k->stats.n_base == 3 && k->stats.n_new == 1 && k->new_samples[0] == 20000);
    sts_diff_free(d);
}

TEST(trace_bad_inputs)
{
    int w[4] = { 100, 101, 102, 103 }, m[4] = { 50, 51, 52, 53 }, k[4] = { 9, 9, 9, 9 };
    char *steps = lesson_json(4, w, m, k, 2, NULL);
    const char *flat = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10}]}";
    const char *empty =
        "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"p\"}}]}";
    sts_error err = STS_ERROR_INIT;
    sts_diff *d = diff_of(steps, flat, NULL, &err);
    T_TRUE(d == NULL);
    T_EQ_I64(err.code, STS_ERR_FORMAT);
    T_CONTAINS(err.message, "NEW (");
    T_CONTAINS(err.message, "has no steps while BASE has 4 learner_step steps");
    sts_error_clear(&err);
    d = diff_of(empty, steps, NULL, &err);
    T_TRUE(d == NULL);
    T_CONTAINS(err.message, "holds no slices");
    sts_error_clear(&err);
    d = diff_of(flat, flat, "learner_step", &err);
    T_TRUE(d == NULL);
    T_CONTAINS(err.message, "no slice in either trace is named or matches 'learner_step'");
    free(steps);
}

/* ---- predictions ----------------------------------------------------------------------- */

TEST(prediction_syntax)
{
    static const char *good[] = {
        "a:shrink", "a:grow", "a:same", "a:shrink>=20%", "a:grow>=5", "a:same<=2.5%", "forward (model.py:12):shrink",
        "x:y:same"
    };
    static const struct {
        const char *text, *why;
    } bad[] = { { "a", "expected NAME:shrink" },         { "a:shrinks", "only '>=N%'" },
                { ":shrink", "names nothing" },          { "a:shrink<=5%", "only '>=N%'" },
                { "a:same>=5%", "only '<=N%'" },         { "a:shrink>=x%", "non-negative number" },
                { "a:shrink>=150%", "more than 100%" },  { "a:grow>=-3%", "non-negative number" },
                { "a:same<=5%%", "non-negative number" } };
    sts_error err = STS_ERROR_INIT;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (sts_diff_expect_check(good[i], &err) != STS_OK) T_FAIL_AT("%s: %s", good[i], err.message);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sts_error_clear(&err);
        if (sts_diff_expect_check(bad[i].text, &err) != STS_ERR_INVALID_ARG || !strstr(err.message, bad[i].why))
            T_FAIL_AT("%s: \"%s\"", bad[i].text, err.message);
    }
}

/* ---- bench results ---------------------------------------------------------------------- */

static char *bench_json(const char *name, const double *warm, size_t n, double first, const char *shape,
                        const char *variant)
{
    tbuf b = { NULL, 0, 0 };
    tput(&b,
         "{\"schema\":\"stepscope.bench/1\",\"name\":\"%s\",\"input_shape\":%s,\"dtype\":\"float32\","
         "\"first_call_seconds\":%.9g,\"warm_samples_seconds\":[",
         name, shape, first);
    for (size_t i = 0; i < n; i++)
        tput(&b, "%s%.9g", i ? "," : "", warm[i]);
    tput(&b, "],\"device_samples_seconds\":[");
    for (size_t i = 0; i < n; i++)
        tput(&b, "%s%s", i ? "," : "", i == 0 ? "null" : "1e-06");
    tput(&b, "],\"check\":{\"checked\":true,\"passed\":true}");
    if (variant)
        tput(&b,
             ",\"variants\":{\"%s\":{\"name\":\"%s\",\"first_call_seconds\":0.5,\"warm_samples_seconds\":[1e-3,2e-3]}}",
             variant, variant);
    tput(&b, "}");
    return b.p;
}

TEST(bench_results_compared)
{
    double w0[7] = { 4.12e-5, 3.98e-5, 4.05e-5, 6.3e-5, 4.01e-5, 3.95e-5, 4.2e-5 };
    double w1[7] = { 2.12e-5, 1.98e-5, 2.05e-5, 2.3e-5, 2.01e-5, 1.95e-5, 2.2e-5 };
    char *a = bench_json("predict", w0, 7, 0.0213, "[64, 32]", "energy");
    char *b = bench_json("predict", w1, 7, 0.0190, "[96, 32]", "structured");
    sts_diff *d = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_diff_bench_json(a, strlen(a), "a.json", b, strlen(b), "b.json", NULL, &d, &err), STS_OK);
    if (!d) {
        fprintf(stderr, "%s\n", err.message);
        free(a);
        free(b);
        return;
    }
    const sts_diff_interval *warm = row_of(d, "predict"), *first = row_of(d, "predict.first_call");
    const sts_diff_interval *dev = row_of(d, "predict.device");
    T_TRUE(warm && first && dev);
    if (warm && first && dev) {
        int64_t x[7], y[7];
        for (int i = 0; i < 7; i++) {
            x[i] = llround(w0[i] * 1e9);
            y[i] = llround(w1[i] * 1e9);
            T_EQ_I64(warm->base_samples[i], x[i]);
        }
        sts_diff_stats s;
        sts_diff_samples(x, 7, y, 7, NULL, &s, NULL);
        T_NEAR(warm->stats.p_value, s.p_value, 0, 0);
        T_NEAR(warm->stats.p_value, 2.0 / 3432.0, 1e-15, 0); /* complete separation, 7 vs 7: 2 / C(14, 7) */
        T_EQ_I64(warm->stats.verdict, STS_DIFF_SHRANK);
        T_EQ_I64(first->stats.method, STS_DIFF_METHOD_SINGLE);
        T_EQ_I64(first->stats.verdict, STS_DIFF_INCONCLUSIVE);
        T_TRUE(isnan(first->stats.p_value));
        T_NEAR(first->stats.change_pct, 100.0 * (19000000.0 - 21300000.0) / 21300000.0, 1e-9, 0);
        T_EQ_U64(dev->stats.n_base, 6); /* the null device sample is left out */
        T_CONTAINS(dev->note, "1 unmeasured (null) samples in BASE");
    }
    T_EQ_I64(row_of(d, "energy")->stats.verdict, STS_DIFF_DISAPPEARED);
    T_EQ_I64(row_of(d, "structured")->stats.verdict, STS_DIFF_APPEARED);
    T_EQ_I64(row_of(d, "energy.first_call")->stats.verdict, STS_DIFF_DISAPPEARED);
    size_t nn;
    const char *const *notes = sts_diff_notes(d, &nn);
    int shape_note = 0;
    for (size_t i = 0; i < nn; i++)
        shape_note |= strstr(notes[i], "predict: input_shape differs (BASE [64, 32], NEW [96, 32])") != NULL;
    T_TRUE(shape_note);
    T_EQ_I64(expect(d, "predict:shrink>=40%"), STS_DIFF_HELD);
    T_EQ_I64(expect(d, "predict.first_call:shrink"), STS_DIFF_UNDECIDED);
    size_t np;
    T_CONTAINS(sts_diff_predictions(d, &np)[1].why, "one observation per run");
    sts_diff_free(d);
    free(a);
    free(b);
}

/* What the text and the JSON say of bimodal samples, of an interval too few samples
 * allow, and of a huge estimate of what would decide: words, never an infinity. */
TEST(text_says_modes_no_interval_and_no_inf)
{
    double w0[10] = { 1e-4, 1.01e-4, 2.8e-2, 0.99e-4, 1.02e-4, 2.81e-2, 1.03e-4, 0.98e-4, 2.79e-2, 1e-4 };
    double w1[10] = { 1e-4, 1.011e-4, 2.8e-2, 0.991e-4, 1.021e-4, 2.81e-2, 1.031e-4, 0.981e-4, 2.79e-2, 1.001e-4 };
    char *a = bench_json("loop", w0, 10, 0.05, "[64, 32]", "tiny");
    char *b = bench_json("loop", w1, 10, 0.05, "[64, 32]", "tiny");
    sts_diff *d = NULL;
    T_EQ_I64(sts_diff_bench_json(a, strlen(a), "a.json", b, strlen(b), "b.json", NULL, &d, NULL), STS_OK);
    if (d) {
        char *text = NULL, *json = NULL;
        size_t tl = 0, jl = 0;
        FILE *f = open_memstream(&text, &tl);
        sts_diff_print(d, f, 0);
        fclose(f);
        f = open_memstream(&json, &jl);
        T_EQ_I64(sts_diff_write_json(d, f, NULL), STS_OK);
        fclose(f);
        T_CONTAINS(text, "BASE: two modes: 0.1 ms and 28.0 ms; compare them apart");
        T_CONTAINS(text, "NEW: two modes:");
        T_CONTAINS(text, "none (too few)"); /* the variant's 2 against 2 samples */
        T_TRUE(strstr(text, "inf") == NULL && strstr(json, "inf") == NULL && strstr(json, "Infinity") == NULL);
        T_CONTAINS(json, "\"modes_ns\":[100000,28000000]"); /* medians of the 7 lows and the 3 highs */
        const sts_diff_interval *loop = row_of(d, "loop");
        if (loop && loop->stats.samples_needed > 1000) T_CONTAINS(text, "more than 1,000 calls");
        T_TRUE(!loop || loop->stats.samples_needed <= 1000 || strstr(text, "~") == NULL);
        free(text);
        free(json);
    }
    sts_diff_free(d);
    free(a);
    free(b);
}

TEST(bench_bad_inputs)
{
    double w[2] = { 1e-3, 2e-3 };
    char *good = bench_json("p", w, 2, 0.1, "[1]", NULL);
    static const struct {
        const char *text, *why;
    } bad[] = { { "{\"a\": 1", "bad.json: byte 7: " },
                { "{\"ledger\": 1}", "not a bench result" },
                { "[1, 2]", "expected a bench result" },
                { "{\"warm_samples_seconds\": [1, -2]}", "must be a non-negative number" },
                { "{\"warm_samples_seconds\": 3}", "must be an array of numbers" } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sts_diff *d = NULL;
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_diff_bench_json(good, strlen(good), "good.json", bad[i].text, strlen(bad[i].text),
                                            "bad.json", NULL, &d, &err);
        if (st == STS_OK || d || !strstr(err.message, bad[i].why)) T_FAIL_AT("case %zu: \"%s\"", i, err.message);
    }
    free(good);
}

/* ---- ledgers ----------------------------------------------------------------------------- */

static const char LEDGER_BEFORE[] =
    "{\"schema\":\"stepscope.ledger/1\",\"functions\":["
    "{\"name\":\"batch_loss\",\"compiles\":8,\"specializations\":8,\"traces\":8,\"hits\":null},"
    "{\"name\":\"score\",\"compiles\":3,\"specializations\":3,\"traces\":3}],"
    "\"rows\":["
    "{\"function\":\"batch_loss\",\"compiles\":1,\"compile_ns\":46000000},"
    "{\"function\":\"batch_loss\",\"compiles\":1,\"compile_ns\":45000000},"
    "{\"function\":\"batch_loss\",\"compiles\":1,\"compile_ns\":47000000},"
    "{\"function\":\"batch_loss\",\"compiles\":1,\"compile_ns\":44000000},"
    "{\"function\":\"batch_loss\",\"compiles\":0,\"compile_ns\":null},"
    "{\"function\":\"score\",\"compiles\":1,\"compile_ns\":10000000}],"
    "\"host_syncs\":{\"events\":["
    "{\"scope\":\"read each step\",\"wait_ns\":31000},{\"scope\":\"read each step\",\"wait_ns\":30000},"
    "{\"scope\":\"read each step\",\"wait_ns\":32000},{\"scope\":\"read each step\",\"wait_ns\":29000}],"
    "\"scopes\":[{\"scope\":\"read each step\",\"count\":4}]}}";
static const char LEDGER_AFTER[] = "{\"schema\":\"stepscope.ledger/1\",\"functions\":["
                                   "{\"name\":\"batch_loss\",\"compiles\":4,\"specializations\":4,\"traces\":null},"
                                   "{\"name\":\"padded_loss\",\"compiles\":1,\"specializations\":1,\"traces\":1}],"
                                   "\"rows\":["
                                   "{\"function\":\"batch_loss\",\"compiles\":1,\"compile_ns\":46500000},"
                                   "{\"function\":\"batch_loss\",\"compiles\":1,\"compile_ns\":45500000}],"
                                   "\"host_syncs\":null}";

TEST(ledgers_compared)
{
    sts_diff *d = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_diff_ledger_json(LEDGER_BEFORE, strlen(LEDGER_BEFORE), "before.json", LEDGER_AFTER,
                                  strlen(LEDGER_AFTER), "after.json", NULL, &d, &err),
             STS_OK);
    if (!d) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    const sts_diff_interval *c = row_of(d, "batch_loss"), *sp = row_of(d, "batch_loss.specializations");
    const sts_diff_interval *tr = row_of(d, "batch_loss.traces"), *ct = row_of(d, "batch_loss.compile_time");
    T_TRUE(c && sp && tr && ct);
    if (c && sp && tr && ct) {
        T_EQ_STR(c->group, "compiles");
        T_EQ_I64(c->stats.method, STS_DIFF_METHOD_COUNT);
        T_EQ_I64(c->stats.verdict, STS_DIFF_SHRANK);
        T_NEAR(c->stats.change_pct, -50, 0, 0);
        T_EQ_I64(tr->stats.method, STS_DIFF_METHOD_NONE); /* null in NEW: unknown, not 0 */
        T_EQ_I64(tr->stats.verdict, STS_DIFF_INCONCLUSIVE);
        T_EQ_U64(ct->stats.n_base, 4);
        T_EQ_U64(ct->stats.n_new, 2);
        T_EQ_STR(ct->sample, "compile");
    }
    T_EQ_I64(row_of(d, "score")->stats.verdict, STS_DIFF_DISAPPEARED);
    T_EQ_I64(row_of(d, "padded_loss")->stats.verdict, STS_DIFF_APPEARED);
    T_TRUE(row_of(d, "read each step") == NULL);
    size_t nn;
    const char *const *notes = sts_diff_notes(d, &nn);
    T_TRUE(nn == 1 && strstr(notes[0], "host syncs are unknown in NEW"));
    T_EQ_I64(expect(d, "batch_loss:shrink"), STS_DIFF_HELD);
    T_EQ_I64(expect(d, "batch_loss:shrink>=50%"), STS_DIFF_HELD);
    T_EQ_I64(expect(d, "batch_loss:shrink>=60%"), STS_DIFF_FAILED);
    T_EQ_I64(expect(d, "batch_loss.traces:shrink"), STS_DIFF_UNDECIDED);
    T_EQ_I64(expect(d, "padded_loss:grow"), STS_DIFF_HELD);
    size_t np;
    T_CONTAINS(sts_diff_predictions(d, &np)[0].why, "batch_loss compiles shrank 8 \xe2\x86\x92 4, \xe2\x88\x92"
                                                    "50% (exact counts): held");
    sts_diff_free(d);
    /* Both with host syncs: waits per sync and their count. */
    T_EQ_I64(sts_diff_ledger_json(LEDGER_BEFORE, strlen(LEDGER_BEFORE), "a", LEDGER_BEFORE, strlen(LEDGER_BEFORE), "b",
                                  NULL, &d, &err),
             STS_OK);
    if (d) {
        const sts_diff_interval *w = row_of(d, "read each step"), *n = row_of(d, "read each step.syncs");
        T_TRUE(w && n && w->stats.n_base == 4 && n->stats.median_base == 4);
        if (w) T_EQ_I64(w->stats.verdict, STS_DIFF_INCONCLUSIVE); /* 4 vs 4 equal waits: ties, cannot tell */
    }
    sts_diff_free(d);
    const char *not_ledger = "{\"rows\": []}";
    T_EQ_I64(sts_diff_ledger_json(LEDGER_BEFORE, strlen(LEDGER_BEFORE), "a", not_ledger, strlen(not_ledger), "b.json",
                                  NULL, &d, &err),
             STS_ERR_FORMAT);
    T_CONTAINS(err.message, "b.json: not a ledger");
}

/* Functions are their name and definition site: two <lambda>s stay apart, a "site"
 * field joins the name, and a key holding colons is still a prediction's NAME. */
TEST(ledger_identity_is_name_and_site)
{
    static const char a[] = "{\"functions\":["
                            "{\"name\":\"<lambda> (t.py:68)\",\"compiles\":3,\"specializations\":3,\"traces\":3},"
                            "{\"name\":\"<lambda> (t.py:104)\",\"compiles\":1,\"specializations\":1,\"traces\":1},"
                            "{\"name\":\"f\",\"site\":\"u.py:7\",\"compiles\":2,\"specializations\":2,\"traces\":2}]}";
    static const char b[] = "{\"functions\":["
                            "{\"name\":\"<lambda> (t.py:68)\",\"compiles\":1,\"specializations\":1,\"traces\":1},"
                            "{\"name\":\"<lambda> (t.py:104)\",\"compiles\":1,\"specializations\":1,\"traces\":1},"
                            "{\"name\":\"f\",\"site\":\"u.py:7\",\"compiles\":2,\"specializations\":2,\"traces\":2}]}";
    sts_diff *d = NULL;
    T_EQ_I64(sts_diff_ledger_json(a, strlen(a), "a", b, strlen(b), "b", NULL, &d, NULL), STS_OK);
    if (!d) return;
    T_EQ_I64(row_of(d, "<lambda> (t.py:68)")->stats.verdict, STS_DIFF_SHRANK);
    T_EQ_I64(row_of(d, "<lambda> (t.py:104)")->stats.verdict, STS_DIFF_SAME);
    T_TRUE(row_of(d, "f (u.py:7)") != NULL);
    T_EQ_I64(expect(d, "<lambda> (t.py:68):shrink>=50%"), STS_DIFF_HELD);
    T_EQ_I64(expect(d, "<lambda> (t.py:104).specializations:same"), STS_DIFF_HELD);
    sts_diff_free(d);
}

/* A function is paired by its name when its line moved: one "score" on each side is
 * one function; several of one name in one file pair in line order; a note says so.
 * Exact identities pair first. */
TEST(ledger_functions_pair_by_name_when_lines_move)
{
    static const char a[] = "{\"functions\":["
                            "{\"name\":\"score (train.py:12)\",\"compiles\":8,\"specializations\":8,\"traces\":8},"
                            "{\"name\":\"<lambda> (t.py:68)\",\"compiles\":4,\"specializations\":4,\"traces\":4},"
                            "{\"name\":\"<lambda> (t.py:104)\",\"compiles\":1,\"specializations\":1,\"traces\":1},"
                            "{\"name\":\"gone (train.py:40)\",\"compiles\":1,\"specializations\":1,\"traces\":1},"
                            "{\"name\":\"same (u.py:1)\",\"compiles\":2,\"specializations\":2,\"traces\":2},"
                            "{\"name\":\"torch_dynamo_resume_in_f_at_5 (t.py:5)\",\"compiles\":3,"
                            "\"specializations\":3,\"traces\":3}],"
                            "\"rows\":[{\"function\":\"score (train.py:12)\",\"compiles\":1,\"compile_ns\":5000000}]}";
    static const char b[] = "{\"functions\":["
                            "{\"name\":\"<lambda> (t.py:110)\",\"compiles\":1,\"specializations\":1,\"traces\":1},"
                            "{\"name\":\"<lambda> (t.py:70)\",\"compiles\":2,\"specializations\":2,\"traces\":2},"
                            "{\"name\":\"score (train.py:15)\",\"compiles\":2,\"specializations\":2,\"traces\":2},"
                            "{\"name\":\"same (u.py:1)\",\"compiles\":2,\"specializations\":2,\"traces\":2},"
                            "{\"name\":\"new_fn (train.py:40)\",\"compiles\":1,\"specializations\":1,\"traces\":1},"
                            "{\"name\":\"torch_dynamo_resume_in_f_at_7 (t.py:7)\",\"compiles\":1,"
                            "\"specializations\":1,\"traces\":1}],"
                            "\"rows\":[{\"function\":\"score (train.py:15)\",\"compiles\":1,\"compile_ns\":4000000}]}";
    sts_diff *d = NULL;
    T_EQ_I64(sts_diff_ledger_json(a, strlen(a), "a", b, strlen(b), "b", NULL, &d, NULL), STS_OK);
    if (!d) return;
    const sts_diff_interval *sc = row_of(d, "score (train.py:15)");
    T_TRUE(sc != NULL);
    if (sc) {
        T_EQ_I64(sc->stats.verdict, STS_DIFF_SHRANK); /* 8 -> 2, not "disappeared" and "appeared" */
        T_NEAR(sc->stats.change_pct, -75, 0, 0);
    }
    const sts_diff_interval *ct = row_of(d, "score (train.py:15).compile_time");
    T_TRUE(ct && ct->stats.n_base == 1 && ct->stats.n_new == 1); /* each side's rows under its own name */
    T_TRUE(row_of(d, "score (train.py:12)") == NULL);
    const sts_diff_interval *l68 = row_of(d, "<lambda> (t.py:70)"), *l104 = row_of(d, "<lambda> (t.py:110)");
    T_TRUE(l68 && l104);
    if (l68 && l104) {
        T_NEAR(l68->stats.change_pct, -50, 0, 0); /* 68 -> 70: 4 -> 2 */
        T_EQ_I64(l104->stats.verdict, STS_DIFF_SAME);
    }
    T_EQ_I64(row_of(d, "same (u.py:1)")->stats.verdict, STS_DIFF_SAME);
    /* torch's frame after a graph break is named by the break's line: it moved with it */
    const sts_diff_interval *rs = row_of(d, "torch_dynamo_resume_in_f_at_7 (t.py:7)");
    T_TRUE(rs && rs->stats.verdict == STS_DIFF_SHRANK);
    /* Different names are different functions, whatever their lines. */
    T_EQ_I64(row_of(d, "gone (train.py:40)")->stats.verdict, STS_DIFF_DISAPPEARED);
    T_EQ_I64(row_of(d, "new_fn (train.py:40)")->stats.verdict, STS_DIFF_APPEARED);
    size_t nn;
    const char *const *notes = sts_diff_notes(d, &nn);
    int moved = 0;
    for (size_t i = 0; i < nn; i++)
        moved += strstr(notes[i], "score (train.py:12) in BASE is score (train.py:15) in NEW: paired by name") != NULL;
    T_EQ_I64(moved, 1);
    T_EQ_I64(expect(d, "score (train.py:15):shrink>=50%"), STS_DIFF_HELD);
    sts_diff_free(d);
}

/* ---- the document read back ---------------------------------------------------------- */

static char *diff_text(const sts_diff *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    sts_diff_write_json(d, f, NULL);
    fclose(f);
    return buf;
}

/* Written, read back, written again: the same bytes, and the same rows, for a trace
 * pair (steps, lanes, predictions of every result, an unbounded interval), bench
 * results and ledgers (counts, unknowns, rows in one run only). */
static size_t unbounded_rows;

static int round_trip(const sts_diff *d, const char *what)
{
    char *a = diff_text(d);
    sts_diff *back = NULL;
    sts_error err = STS_ERROR_INIT;
    int ok = a && sts_diff_read_json(a, strlen(a), "d.json", &back, &err) == STS_OK;
    if (!ok) T_FAIL_AT("%s: %s", what, err.message);
    char *b = ok ? diff_text(back) : NULL;
    if (ok && (!b || strcmp(a, b) != 0)) {
        T_FAIL_AT("%s: the diff written again differs", what);
        ok = 0;
    }
    size_t n, m;
    const sts_diff_interval *x = sts_diff_intervals(d, &n), *y = ok ? sts_diff_intervals(back, &m) : NULL;
    for (size_t i = 0; ok && i < n; i++)
        if (m != n || strcmp(x[i].key, y[i].key) || x[i].stats.verdict != y[i].stats.verdict ||
            x[i].stats.n_base != y[i].stats.n_base ||
            (x[i].stats.ci_low_ns != y[i].stats.ci_low_ns &&
             !(isnan(x[i].stats.ci_low_ns) && isnan(y[i].stats.ci_low_ns))) ||
            (x[i].stats.n_base && x[i].base_samples[x[i].stats.n_base - 1] != y[i].base_samples[y[i].stats.n_base - 1]))
            ok = 0;
    for (size_t i = 0; ok && i < m; i++)
        unbounded_rows += isinf(y[i].stats.ci_low_ns) && isinf(y[i].stats.ci_high_pct);
    if (ok && sts_diff_exit_status(back) != sts_diff_exit_status(d)) ok = 0;
    free(a);
    free(b);
    sts_diff_free(back);
    return ok;
}

TEST(documents_read_back_as_written)
{
    int w0[4] = { 1000, 1010, 990, 1005 }, w1[4] = { 200, 210, 190, 205 }, m[4] = { 100, 101, 99, 100 };
    int k[4] = { 20, 21, 19, 20 };
    char *a = lesson_json(4, w0, m, k, 3, NULL), *b = lesson_json(4, w1, m, k, 3, "extra");
    sts_error err = STS_ERROR_INIT;
    sts_diff *d = diff_of(a, b, NULL, &err);
    T_TRUE(d != NULL);
    if (d) {
        T_EQ_I64(expect(d, "input_wait:shrink"), STS_DIFF_HELD);
        T_EQ_I64(expect(d, "input_wait:grow>=10%"), STS_DIFF_FAILED);
        T_TRUE(expect(d, "model_and_wait:same") >= 0);
        const sts_diff_interval *ex = row_of(d, "extra");
        T_TRUE(ex && ex->stats.verdict == STS_DIFF_APPEARED);
        T_TRUE(round_trip(d, "traces"));
        char *t = diff_text(d);
        sts_diff *back = NULL;
        T_EQ_I64(sts_diff_read_json(t, strlen(t), "d.json", &back, &err), STS_OK);
        if (back) {
            const char *name = NULL, *rule = NULL;
            T_EQ_U64(sts_diff_run_steps(back, 1, &name, &rule), 4);
            T_EQ_STR(name, "learner_step");
            T_EQ_STR(rule, "step-num");
            size_t np;
            const sts_diff_prediction *p = sts_diff_predictions(back, &np);
            T_TRUE(np == 3 && p[1].result == STS_DIFF_FAILED && p[1].size_pct == 10);
            T_EQ_STR(sts_diff_intervals(back, NULL)[p[0].interval].key, "input_wait");
        }
        sts_diff_free(back);
        free(t);
    }
    sts_diff_free(d);
    free(a);
    free(b);
    double w2[3] = { 1e-3, 1.1e-3, 0.9e-3 }, w3[3] = { 2e-3, 2.1e-3, 1.9e-3 };
    a = bench_json("predict", w2, 3, 0.02, "[64, 32]", "energy");
    b = bench_json("predict", w3, 3, 0.03, "[64, 32]", NULL);
    d = NULL;
    T_EQ_I64(sts_diff_bench_json(a, strlen(a), "a", b, strlen(b), "b", NULL, &d, &err), STS_OK);
    if (d) T_TRUE(round_trip(d, "bench results"));
    sts_diff_free(d);
    free(a);
    free(b);
    d = NULL;
    T_EQ_I64(sts_diff_ledger_json(LEDGER_BEFORE, strlen(LEDGER_BEFORE), "before", LEDGER_AFTER, strlen(LEDGER_AFTER),
                                  "after", NULL, &d, &err),
             STS_OK);
    if (d) {
        T_EQ_I64(expect(d, "batch_loss:shrink"), STS_DIFF_HELD);
        T_TRUE(round_trip(d, "ledgers"));
    }
    sts_diff_free(d);
    T_TRUE(unbounded_rows > 0); /* an interval too wide for the samples came back infinite */
}

TEST(document_reader_errors)
{
    static const struct {
        const char *text;
        sts_status st;
        const char *msg;
    } cases[] = {
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[", STS_ERR_PARSE, "d.json: byte 42: " },
        { "{\"schema\":\"stepscope.bench/1\",\"intervals\":[]}", STS_ERR_FORMAT, "d.json: not a diff result" },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":{}}", STS_ERR_FORMAT, "not a diff result" },
        { "{\"schema\":\"stepscope.diff/"
          "1\",\"intervals\":[{\"unit\":\"ns\",\"base\":{\"n\":2,\"samples_ns\":[1,\"x\"]}}]}",
          STS_ERR_FORMAT, "\"samples_ns\"[1] must be a whole number >= 0" },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[{\"unit\":\"ns\",\"base\":{\"n\":3,\"samples_ns\":[1]}}]}",
          STS_ERR_FORMAT, "\"samples_ns\" must be an array of the side's n numbers" },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[7]}", STS_ERR_FORMAT,
          "each of \"intervals\" must be an object" },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[{\"unit\":\"ns\",\"name\":\"a\",\"key\":\"a\","
          "\"group\":\"name\",\"sample\":\"step\",\"method\":\"exact\",\"verdict\":\"faster\"}]}",
          STS_ERR_FORMAT, "\"verdict\" has a value this version does not know" },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[],\"kind\":\"trace\",\"base\":{\"name\":\"a\"}}",
          STS_ERR_FORMAT, "\"steps\" must be a whole number" },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[],\"kind\":\"bench\",\"base\":{\"name\":\"a\"},"
          "\"new\":{\"name\":\"b\"},\"samples\":\"call\",\"confidence\":2,\"margin_pct\":5}",
          STS_ERR_FORMAT, "\"confidence\" must lie in (0.5, 1)" },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[],\"predictions\":[{\"expect\":\"a:same\",\"key\":\"a\","
          "\"direction\":\"same\",\"size_pct\":null,\"result\":\"held\",\"why\":\"w\"}]}",
          STS_ERR_FORMAT, "the prediction names no row (\"a\")" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sts_diff *d = (sts_diff *)1;
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_diff_read_json(cases[i].text, strlen(cases[i].text), "d.json", &d, &err);
        if (st != cases[i].st || d != NULL || !strstr(err.message, cases[i].msg))
            T_FAIL_AT("case %zu: status %d, message \"%s\"", i, st, err.message);
    }
}

int main(void)
{
    RUN(exact_counts_match_enumeration);
    RUN(exact_critical_values_match_the_published_table);
    RUN(exact_counts_refuse_what_they_cannot_hold);
    RUN(u_statistic_matches_its_definition);
    RUN(kth_difference_matches_sorting_all_of_them);
    RUN(normal_quantile_and_tail);
    RUN(four_against_four_complete_separation);
    RUN(bimodal_interval_stays_above_minus_100);
    RUN(percent_interval_is_a_ratio_interval_property);
    RUN(modes_found_and_not);
    RUN(three_against_three_cannot_decide);
    RUN(interval_is_the_rank_rule_on_sorted_differences);
    RUN(normal_approximation_is_named_and_close_to_exact);
    RUN(verdicts_for_known_shifts_and_sample_sizes);
    RUN(one_outlier_step_is_not_a_regression);
    RUN(all_equal_samples_are_the_same);
    RUN(too_few_samples_are_never_same);
    RUN(empty_sides_and_bad_options);
    RUN(counts_compare_exactly);
    RUN(properties_hold_for_random_samples);
    RUN(trace_pair_with_a_known_shift);
    RUN(four_steps_decide_a_shrink_but_not_sameness);
    RUN(names_in_one_run_only);
    RUN(interval_names_are_clipped_to_step_windows);
    RUN(lanes_matched_by_name_not_id);
    RUN(jax_worker_lanes_match_without_random_ids);
    RUN(traces_without_steps_compare_slices);
    RUN(trace_bad_inputs);
    RUN(prediction_syntax);
    RUN(bench_results_compared);
    RUN(text_says_modes_no_interval_and_no_inf);
    RUN(bench_bad_inputs);
    RUN(ledgers_compared);
    RUN(ledger_identity_is_name_and_site);
    RUN(ledger_functions_pair_by_name_when_lines_move);
    RUN(documents_read_back_as_written);
    RUN(document_reader_errors);
    return t_done();
}
