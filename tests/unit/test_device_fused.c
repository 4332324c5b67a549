/* The fused products (sts_op_matmul_tanh, sts_op_matmul_energy) against a host
 * reference in double precision, on both sides of the single-launch size limit, with
 * the lesson's tolerances; their joined events; and their shape errors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "stepscope/device.h"
#include "test.h"

static sts_device *dev;

static uint64_t rng_state = 777;
static float next_value(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(rng_state >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static sts_array *upload_random(int64_t rows, int64_t cols, float **host)
{
    size_t n = (size_t)(rows * cols);
    *host = malloc(n * sizeof **host);
    for (size_t i = 0; i < n; i++)
        (*host)[i] = next_value();
    int64_t shape[2] = { rows, cols };
    sts_array *a = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_array_create(dev, STS_DTYPE_F32, 2, shape, &a, &err) != STS_OK ||
        sts_array_write(a, *host, n * sizeof **host, NULL, &err) != STS_OK || sts_arrays_ready(&a, 1, &err) != STS_OK)
        fprintf(stderr, "upload: %s\n", err.message);
    return a;
}

static double dot(const float *x, const float *w, int64_t i, int64_t j, int64_t k, int64_t n)
{
    double s = 0;
    for (int64_t p = 0; p < k; p++)
        s += (double)x[i * k + p] * (double)w[p * n + j];
    return s;
}

/* Values out of tolerance (2e-5 absolute and relative for tanh; energy's 2e-3
 * absolute, grown with K past 32 as lib/bench/workloads.c does) for one shape. */
static int check_shape(int64_t m, int64_t k, int64_t n)
{
    float *x, *w;
    sts_array *X = upload_random(m, k, &x), *W = upload_random(k, n, &w), *Y = NULL, *S = NULL, *E = NULL;
    int64_t ys[2] = { m, n }, es[1] = { m };
    sts_error err = STS_ERROR_INIT;
    sts_array_create(dev, STS_DTYPE_F32, 2, ys, &Y, &err);
    sts_array_create(dev, STS_DTYPE_F32, 2, ys, &S, &err);
    sts_array_create(dev, STS_DTYPE_F32, 1, es, &E, &err);
    float *y = malloc((size_t)(m * n) * sizeof *y), *e = malloc((size_t)m * sizeof *e);
    sts_event *ev[2] = { NULL, NULL };
    int bad = 0;
    if (sts_op_matmul_tanh(dev, X, W, Y, &ev[0], &err) != STS_OK ||
        sts_op_matmul_energy(dev, X, W, S, E, &ev[1], &err) != STS_OK || sts_ready(ev, 2, &err) != STS_OK ||
        sts_array_read(Y, y, (size_t)(m * n) * sizeof *y, &err) != STS_OK ||
        sts_array_read(E, e, (size_t)m * sizeof *e, &err) != STS_OK) {
        fprintf(stderr, "fused %lldx%lld@%lldx%lld: %s\n", (long long)m, (long long)k, (long long)k, (long long)n,
                err.message);
        bad = 1;
    }
    /* One event per operation, whichever path ran; each has device times. */
    if (!bad && (sts_event_device_ns(ev[0]) < 0 || sts_event_device_ns(ev[1]) < 0)) bad = 1;
    double grow = k > 32 ? (double)k / 32.0 : 1.0;
    for (int64_t i = 0; i < m && !bad; i++) {
        double energy = 0;
        for (int64_t j = 0; j < n; j++) {
            double s = dot(x, w, i, j, k, n), t = tanh(s);
            energy += s * s;
            if (fabs(y[i * n + j] - t) > 2e-5 * grow + 2e-5 * fabs(t)) {
                fprintf(stderr, "  tanh %lldx%lldx%lld [%lld,%lld]: got %.8g want %.8g\n", (long long)m, (long long)k,
                        (long long)n, (long long)i, (long long)j, y[i * n + j], t);
                bad++;
            }
        }
        if (fabs(e[i] - energy) > 2e-3 * grow + 2e-5 * energy) {
            fprintf(stderr, "  energy %lldx%lldx%lld row %lld: got %.8g want %.8g\n", (long long)m, (long long)k,
                    (long long)n, (long long)i, e[i], energy);
            bad++;
        }
    }
    sts_event_release(ev[0]), sts_event_release(ev[1]);
    sts_array_free(X), sts_array_free(W), sts_array_free(Y), sts_array_free(S), sts_array_free(E);
    free(x), free(w), free(y), free(e);
    return bad;
}

/* M*N*K at or under STS_FUSED_MAX_WORK run as one launch; the others (130x70x50,
 * 512x20x32) as the separate operations. */
static const int64_t shapes[][3] = {
    { 64, 32, 16 }, { 96, 32, 16 }, { 1, 1, 1 },  { 63, 33, 17 },  { 5, 7, 3 },
    { 4, 1, 16 },   { 9, 3, 33 },   { 1, 32, 8 }, { 130, 70, 50 }, { 512, 20, 32 },
};

TEST(fused_matches_reference_both_paths)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        T_EQ_I64(check_shape(shapes[i][0], shapes[i][1], shapes[i][2]), 0);
    T_TRUE(130 * 70 * 50 > STS_FUSED_MAX_WORK && 96 * 32 * 16 <= STS_FUSED_MAX_WORK);
}

TEST(forced_matmul_kind_skips_fusion_and_agrees)
{
    sts_device_set_matmul(dev, STS_MATMUL_NAIVE);
    T_EQ_I64(check_shape(63, 33, 17), 0);
    sts_device_set_matmul(dev, STS_MATMUL_AUTO);
}

/* The enqueue hook sees one launch for a small fused call. */
static int hook_calls;
static void count_hook(void *user, const char *name, sts_event *ev)
{
    (void)user, (void)name, (void)ev;
    hook_calls++;
}

TEST(small_call_is_one_launch)
{
    float *x, *w;
    sts_array *X = upload_random(64, 32, &x), *W = upload_random(32, 16, &w), *Y = NULL;
    int64_t ys[2] = { 64, 16 };
    sts_error err = STS_ERROR_INIT;
    sts_array_create(dev, STS_DTYPE_F32, 2, ys, &Y, &err);
    hook_calls = 0;
    sts_device_set_enqueue_hook(dev, count_hook, NULL);
    sts_event *ev = NULL;
    T_EQ_I64(sts_op_matmul_tanh(dev, X, W, Y, &ev, &err), STS_OK);
    sts_device_set_enqueue_hook(dev, NULL, NULL);
    T_EQ_I64(hook_calls, 1);
    T_EQ_STR(sts_event_name(ev), "matmul_tanh");
    T_EQ_I64(sts_event_wait(ev, &err), STS_OK);
    T_TRUE(sts_array_event(Y) == ev);
    sts_event_release(ev);
    sts_array_free(X), sts_array_free(W), sts_array_free(Y);
    free(x), free(w);
}

TEST(shape_errors)
{
    sts_error err = STS_ERROR_INIT;
    int64_t as[2] = { 8, 4 }, bs[2] = { 5, 3 }, ys[2] = { 8, 3 }, es[1] = { 7 };
    sts_array *a = NULL, *b = NULL, *y = NULL, *e = NULL;
    sts_array_create(dev, STS_DTYPE_F32, 2, as, &a, &err);
    sts_array_create(dev, STS_DTYPE_F32, 2, bs, &b, &err);
    sts_array_create(dev, STS_DTYPE_F32, 2, ys, &y, &err);
    sts_array_create(dev, STS_DTYPE_F32, 1, es, &e, &err);
    sts_event *ev = (sts_event *)&err; /* must be reset to NULL on failure */
    T_EQ_I64(sts_op_matmul_tanh(dev, a, b, y, &ev, &err), STS_ERR_SHAPE);
    T_CONTAINS(err.message, "a [8,4] @ b [5,3]");
    T_TRUE(ev == NULL);
    sts_array_free(b);
    b = NULL;
    int64_t good[2] = { 4, 3 };
    sts_array_create(dev, STS_DTYPE_F32, 2, good, &b, &err);
    T_EQ_I64(sts_op_matmul_energy(dev, a, b, y, e, &ev, &err), STS_ERR_SHAPE);
    T_CONTAINS(err.message, "matmul_energy: a [8,4] has 8 rows, but the output [7] holds 7 values");
    T_TRUE(ev == NULL);
    sts_array_free(a), sts_array_free(b), sts_array_free(y), sts_array_free(e);
}

int main(void)
{
    sts_error err = STS_ERROR_INIT;
    if (sts_device_open(NULL, &dev, &err) != STS_OK) {
        printf("SKIP test_device_fused: %s\n", err.message);
        return 0;
    }
    RUN(fused_matches_reference_both_paths);
    RUN(forced_matmul_kind_skips_fusion_and_agrees);
    RUN(small_call_is_one_launch);
    RUN(shape_errors);
    sts_device_free(dev);
    return t_done();
}
