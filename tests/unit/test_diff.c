/* diff: the Mann–Whitney distribution against enumeration and published critical
 * values, the Hodges–Lehmann shift and its interval against brute force, verdicts on
 * synthetic pairs with known shifts, predictions, and the trace, bench and ledger
 * comparisons. SciPy's mannwhitneyu checks the same numbers in tests/interop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/stats.h"
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
    T_NEAR(s.change_pct, 100.0 * s.shift_ns / 1266000.0, 1e-12, 0);
    T_EQ_I64(s.verdict, STS_DIFF_SHRANK);
}

/* Three against three cannot reach p < 0.05 (the smallest two-sided p is 2/20), and
 * no 95% interval exists: inconclusive, asking for at least four per run. */
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

int main(void)
{
    RUN(exact_counts_match_enumeration);
    RUN(exact_critical_values_match_the_published_table);
    RUN(exact_counts_refuse_what_they_cannot_hold);
    RUN(u_statistic_matches_its_definition);
    RUN(kth_difference_matches_sorting_all_of_them);
    RUN(normal_quantile_and_tail);
    RUN(four_against_four_complete_separation);
    RUN(three_against_three_cannot_decide);
    RUN(interval_is_the_rank_rule_on_sorted_differences);
    RUN(normal_approximation_is_named_and_close_to_exact);
    RUN(verdicts_for_known_shifts_and_sample_sizes);
    RUN(one_outlier_step_is_not_a_regression);
    RUN(all_equal_samples_are_the_same);
    RUN(empty_sides_and_bad_options);
    RUN(counts_compare_exactly);
    return t_done();
}
