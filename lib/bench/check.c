/* bench: comparing results with a double-precision reference. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stepscope/bench.h"

/* NumPy's isclose(got, want, rtol, atol, equal_nan): the formula for finite values
 * (where inf * 0 or inf - inf would make it wrong: an infinite reference passed any
 * value, inf failed against inf and passed against -inf); an infinity equals only
 * itself; a NaN equals only a NaN, and only with equal_nan. *err is the value's
 * error: |got - want|, 0 for a non-finite match, infinite for a non-finite mismatch. */
static int close_to(const sts_bench_check *c, double got, double want, double *err)
{
    if (isfinite(got) && isfinite(want)) {
        *err = fabs(got - want);
        return *err <= c->atol + c->rtol * fabs(want);
    }
    int ok = (isnan(got) || isnan(want)) ? c->equal_nan && isnan(got) && isnan(want) : got == want;
    *err = ok ? 0 : INFINITY;
    return ok;
}

/* One leaf; exactly one of got32 and got64 is set. */
static void add_leaf(sts_bench_check *check, const char *name, int ndim, const int64_t *shape, const float *got32,
                     const double *got64, const double *want, size_t count)
{
    if (!check->checked) {
        check->checked = 1;
        check->passed = 1;
        check->max_abs_error = 0;
    }
    sts_check_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    snprintf(leaf.name, sizeof leaf.name, "%s", name);
    leaf.ndim = ndim < 0 ? 0 : ndim > 4 ? 4 : ndim;
    for (int i = 0; i < leaf.ndim; i++)
        leaf.shape[i] = shape[i];
    leaf.count = count;
    for (size_t i = 0; i < count; i++) {
        double got = got32 ? (double)got32[i] : got64[i];
        double err;
        int ok = close_to(check, got, want[i], &err);
        if (!ok) leaf.mismatches++;
        if (err > leaf.max_abs_error) {
            leaf.max_abs_error = err;
            leaf.worst_index = i;
            leaf.worst_got = got;
            leaf.worst_want = want[i];
        }
    }
    if (leaf.mismatches) check->passed = 0;
    if (leaf.max_abs_error > check->max_abs_error) check->max_abs_error = leaf.max_abs_error;
    if (check->nleaves < STS_CHECK_MAX_LEAVES) check->leaves[check->nleaves++] = leaf;
}

void sts_check_add_f32(sts_bench_check *check, const char *name, int ndim, const int64_t *shape, const float *got,
                       const double *want, size_t count)
{
    add_leaf(check, name, ndim, shape, got, NULL, want, count);
}

void sts_check_add_f64(sts_bench_check *check, const char *name, int ndim, const int64_t *shape, const double *got,
                       const double *want, size_t count)
{
    add_leaf(check, name, ndim, shape, NULL, got, want, count);
}
