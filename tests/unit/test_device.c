/* The OpenCL device layer: device choice, arrays, copies, events, the program cache,
 * kernel launches and the built-in operations, each checked against a host reference
 * computed in double precision. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "device/device_impl.h"
#include "stepscope/device.h"
#include "test.h"

static sts_device *dev;

/* A fixed pseudo-random sequence in [-1, 1): enough to exercise the kernels. */
static uint64_t rng_state = 12345;
static float next_value(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(rng_state >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static float *random_values(size_t n)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = next_value();
    return v;
}

static sts_array *upload(const float *host, int ndim, const int64_t *shape)
{
    sts_array *a = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_array_create(dev, STS_DTYPE_F32, ndim, shape, &a, &err) != STS_OK) {
        fprintf(stderr, "array: %s\n", err.message);
        return NULL;
    }
    if (sts_array_write(a, host, sts_array_bytes(a), NULL, &err) != STS_OK) fprintf(stderr, "write: %s\n", err.message);
    /* The write is asynchronous: wait before `host` may change or be freed. */
    sts_arrays_ready(&a, 1, NULL);
    return a;
}

static void host_matmul(const float *a, const float *b, double *c, int64_t m, int64_t n, int64_t k)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t p = 0; p < k; p++)
                s += (double)a[i * k + p] * (double)b[p * n + j];
            c[i * n + j] = s;
        }
}

TEST(open_default_device)
{
    T_TRUE(dev != NULL);
    if (!dev) return;
    const sts_device_info *info = sts_device_get_info(dev);
    T_TRUE(info->name[0] != 0);
    T_TRUE(info->platform[0] != 0);
    T_TRUE(info->driver_version[0] != 0);
    T_CONTAINS(info->opencl_c_version, "OpenCL C");
    T_GE_I64(info->compute_units, 1);
    T_GE_I64(info->max_work_group_size, 1);
    T_GE_I64(info->local_mem_bytes, 1);
}

TEST(device_list_and_spec)
{
    sts_device_info infos[8];
    size_t n = 0;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_device_list(infos, 8, &n, &err), STS_OK);
    T_GE_I64(n, 1);
    sts_device *d = NULL;
    T_EQ_I64(sts_device_open("0", &d, &err), STS_OK);
    if (d) T_EQ_STR(sts_device_get_info(d)->name, infos[0].name);
    sts_device_free(d);
    /* A case-changed substring of the first device's name picks it. */
    char sub[8] = { 0 };
    for (int i = 0; i < 4 && infos[0].name[i]; i++) {
        char c = infos[0].name[i];
        sub[i] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    d = NULL;
    T_EQ_I64(sts_device_open(sub, &d, &err), STS_OK);
    sts_device_free(d);
    d = NULL;
    T_EQ_I64(sts_device_open("999", &d, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "'999' matches no OpenCL device");
    T_CONTAINS(err.message, infos[0].name);
    T_TRUE(d == NULL);
    T_EQ_I64(sts_device_open("no-such-device-anywhere", &d, &err), STS_ERR_NOT_FOUND);
    setenv(STS_DEVICE_ENV, "no-such-device-either", 1);
    T_EQ_I64(sts_device_open(NULL, &d, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "no-such-device-either");
    unsetenv(STS_DEVICE_ENV);
    sts_device_free(NULL);
}

TEST(array_shapes_and_errors)
{
    sts_error err = STS_ERROR_INIT;
    sts_array *a = NULL;
    int64_t shape[4] = { 2, 3, 4, 5 };
    T_EQ_I64(sts_array_create(dev, STS_DTYPE_F32, 4, shape, &a, &err), STS_OK);
    T_EQ_I64(sts_array_ndim(a), 4);
    T_EQ_I64(sts_array_count(a), 120);
    T_EQ_I64(sts_array_bytes(a), 480);
    T_EQ_I64(sts_array_shape(a)[2], 4);
    T_EQ_STR(sts_dtype_name(sts_array_dtype(a)), "float32");
    T_TRUE(sts_array_event(a) == NULL);
    float host[120];
    T_EQ_I64(sts_array_write(a, host, 100, NULL, &err), STS_ERR_SHAPE);
    T_CONTAINS(err.message, "100 bytes into an array of 480 bytes");
    sts_array_free(a);
    sts_array *s = NULL;
    T_EQ_I64(sts_array_create(dev, STS_DTYPE_I32, 0, NULL, &s, &err), STS_OK);
    T_EQ_I64(sts_array_count(s), 1);
    sts_array_free(s);
    int64_t bad[2] = { 3, 0 };
    T_EQ_I64(sts_array_create(dev, STS_DTYPE_F32, 2, bad, &a, &err), STS_ERR_SHAPE);
    bad[1] = -4;
    T_EQ_I64(sts_array_create(dev, STS_DTYPE_F32, 2, bad, &a, &err), STS_ERR_SHAPE);
    T_EQ_I64(sts_array_create(dev, STS_DTYPE_F32, 5, shape, &a, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "rank 5");
    sts_array_free(NULL);
}

TEST(copies_round_trip)
{
    sts_error err = STS_ERROR_INIT;
    int64_t shape[1] = { 1000 };
    int32_t in[1000], out[1000];
    for (int i = 0; i < 1000; i++)
        in[i] = i * 7 - 3000;
    sts_array *a = NULL;
    T_EQ_I64(sts_array_create(dev, STS_DTYPE_I32, 1, shape, &a, &err), STS_OK);
    sts_event *w = NULL;
    T_EQ_I64(sts_array_write(a, in, sizeof in, &w, &err), STS_OK);
    T_TRUE(w != NULL && sts_array_event(a) == w);
    T_EQ_STR(sts_event_name(w), "write");
    T_EQ_I64(sts_event_wait(w, &err), STS_OK);
    T_EQ_I64(sts_event_done(w), 1);
    T_EQ_I64(sts_array_read(a, out, sizeof out, &err), STS_OK);
    T_EQ_I64(memcmp(in, out, sizeof in), 0);
    memset(out, 0, sizeof out);
    sts_event *r = NULL;
    T_EQ_I64(sts_array_read_async(a, out, sizeof out, &r, &err), STS_OK);
    T_EQ_I64(sts_ready(&r, 1, &err), STS_OK);
    T_EQ_I64(out[999], in[999]);
    sts_event_release(w);
    sts_event_release(r);
    sts_array_free(a);
}

/* tanh(x @ w) against the double-precision reference with the lesson's tolerances,
 * for one matmul kernel variant. Returns the number of values out of tolerance. */
static int check_predict(sts_matmul_kind kind, int64_t m, int64_t k, int64_t n)
{
    float *x = random_values((size_t)(m * k)), *w = random_values((size_t)(k * n));
    float *y = malloc((size_t)(m * n) * sizeof *y), *raw = malloc((size_t)(m * n) * sizeof *raw);
    double *ref = malloc((size_t)(m * n) * sizeof *ref);
    host_matmul(x, w, ref, m, n, k);
    int64_t xs[2] = { m, k }, ws[2] = { k, n }, ys[2] = { m, n };
    sts_array *X = upload(x, 2, xs), *W = upload(w, 2, ws), *Y = NULL, *T = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_array_create(dev, STS_DTYPE_F32, 2, ys, &Y, &err);
    sts_array_create(dev, STS_DTYPE_F32, 2, ys, &T, &err);
    sts_device_set_matmul(dev, kind);
    int bad = 0;
    if (sts_op_matmul(dev, X, W, Y, NULL, &err) != STS_OK || sts_op_tanh(dev, Y, T, NULL, &err) != STS_OK ||
        sts_array_read(Y, raw, (size_t)(m * n) * sizeof *raw, &err) != STS_OK ||
        sts_array_read(T, y, (size_t)(m * n) * sizeof *y, &err) != STS_OK) {
        fprintf(stderr, "predict %lldx%lld@%lldx%lld: %s\n", (long long)m, (long long)k, (long long)k, (long long)n,
                err.message);
        bad = 1;
    }
    for (int64_t i = 0; i < m * n && !bad; i++) {
        double t = tanh(ref[i]);
        if (fabs(y[i] - t) > 2e-5 + 2e-5 * fabs(t) || fabs(raw[i] - ref[i]) > 1e-4 + 1e-5 * fabs(ref[i])) {
            fprintf(stderr, "  kind %d %lldx%lldx%lld: element %lld: got %.8g (raw %.8g), want %.8g (raw %.8g)\n",
                    (int)kind, (long long)m, (long long)k, (long long)n, (long long)i, y[i], raw[i], t, ref[i]);
            bad++;
            if (bad > 3) break;
        }
    }
    sts_device_set_matmul(dev, STS_MATMUL_AUTO);
    sts_array_free(X), sts_array_free(W), sts_array_free(Y), sts_array_free(T);
    free(x), free(w), free(y), free(raw), free(ref);
    return bad;
}

static const int64_t shapes[][3] = {
    { 64, 32, 16 },  { 1, 1, 1 },  { 63, 33, 17 },  { 96, 32, 16 }, { 5, 7, 3 },
    { 130, 70, 50 }, { 4, 1, 16 }, { 512, 20, 32 }, { 9, 3, 33 },
};

TEST(matmul_tanh_blocked)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        T_EQ_I64(check_predict(STS_MATMUL_BLOCKED, shapes[i][0], shapes[i][1], shapes[i][2]), 0);
}

TEST(matmul_tanh_tiled)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        T_EQ_I64(check_predict(STS_MATMUL_TILED, shapes[i][0], shapes[i][1], shapes[i][2]), 0);
}

TEST(matmul_tanh_naive_and_auto)
{
    T_EQ_I64(check_predict(STS_MATMUL_NAIVE, 63, 33, 17), 0);
    T_EQ_I64(check_predict(STS_MATMUL_AUTO, 64, 32, 16), 0);
}

TEST(matmul_shape_errors)
{
    sts_error err = STS_ERROR_INIT;
    int64_t as[2] = { 64, 32 }, bs[2] = { 33, 16 }, cs[2] = { 64, 16 }, vs[1] = { 16 };
    sts_array *a = NULL, *b = NULL, *c = NULL, *v = NULL, *ai = NULL;
    sts_array_create(dev, STS_DTYPE_F32, 2, as, &a, &err);
    sts_array_create(dev, STS_DTYPE_F32, 2, bs, &b, &err);
    sts_array_create(dev, STS_DTYPE_F32, 2, cs, &c, &err);
    sts_array_create(dev, STS_DTYPE_F32, 1, vs, &v, &err);
    sts_array_create(dev, STS_DTYPE_I32, 2, as, &ai, &err);
    sts_event *ev = (sts_event *)&err; /* must be reset to NULL on failure */
    T_EQ_I64(sts_op_matmul(dev, a, b, c, &ev, &err), STS_ERR_SHAPE);
    T_CONTAINS(err.message, "a [64,32] @ b [33,16]");
    T_CONTAINS(err.message, "columns (32) must equal b's rows (33)");
    T_TRUE(ev == NULL);
    T_EQ_I64(sts_op_matmul(dev, a, v, c, NULL, &err), STS_ERR_SHAPE);
    T_CONTAINS(err.message, "must all be 2-D");
    T_EQ_I64(sts_op_matmul(dev, ai, b, c, NULL, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "int32 (expected float32)");
    T_EQ_I64(sts_op_tanh(dev, a, c, NULL, &err), STS_ERR_SHAPE);
    T_EQ_I64(sts_op_row_sum(dev, a, c, NULL, &err), STS_ERR_SHAPE);
    T_EQ_I64(sts_op_sum(dev, a, v, NULL, &err), STS_ERR_SHAPE);
    T_CONTAINS(err.message, "exactly one value");
    sts_device *other = NULL;
    sts_array *foreign = NULL;
    if (sts_device_open(NULL, &other, &err) == STS_OK &&
        sts_array_create(other, STS_DTYPE_F32, 2, cs, &foreign, &err) == STS_OK) {
        T_EQ_I64(sts_op_tanh(dev, foreign, c, NULL, &err), STS_ERR_INVALID_ARG);
        T_CONTAINS(err.message, "tanh: input belongs to another device");
    }
    sts_array_free(foreign);
    sts_device_free(other);
    sts_array_free(a), sts_array_free(b), sts_array_free(c), sts_array_free(v), sts_array_free(ai);
}

/* Elementwise maps and reductions over n values. */
static void check_maps_and_reductions(int64_t rows, int64_t cols)
{
    size_t n = (size_t)(rows * cols);
    float *x = random_values(n), *y = malloc(n * sizeof *y), *rs = malloc((size_t)rows * sizeof *rs);
    int64_t xs[2] = { rows, cols }, rshape[1] = { rows };
    sts_array *X = upload(x, 2, xs), *Y = NULL, *R = NULL, *S = NULL, *Mn = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_array_create(dev, STS_DTYPE_F32, 2, xs, &Y, &err);
    sts_array_create(dev, STS_DTYPE_F32, 1, rshape, &R, &err);
    sts_array_create(dev, STS_DTYPE_F32, 0, NULL, &S, &err);
    sts_array_create(dev, STS_DTYPE_F32, 0, NULL, &Mn, &err);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];

    T_EQ_I64(sts_op_square(dev, X, Y, NULL, &err), STS_OK);
    T_EQ_I64(sts_array_read(Y, y, n * sizeof *y, &err), STS_OK);
    for (size_t i = 0; i < n; i++)
        T_NEAR(y[i], (double)x[i] * x[i], 1e-7, 1e-6);
    T_EQ_I64(sts_op_scale(dev, X, -2.5f, Y, NULL, &err), STS_OK);
    T_EQ_I64(sts_array_read(Y, y, n * sizeof *y, &err), STS_OK);
    for (size_t i = 0; i < n; i++)
        T_NEAR(y[i], -2.5 * x[i], 1e-7, 1e-6);
    T_EQ_I64(sts_op_tanh(dev, X, Y, NULL, &err), STS_OK);
    T_EQ_I64(sts_array_read(Y, y, n * sizeof *y, &err), STS_OK);
    for (size_t i = 0; i < n; i++)
        T_NEAR(y[i], tanh((double)x[i]), 2e-7, 2e-6);

    T_EQ_I64(sts_op_row_sum(dev, X, R, NULL, &err), STS_OK);
    T_EQ_I64(sts_array_read(R, rs, (size_t)rows * sizeof *rs, &err), STS_OK);
    for (int64_t r = 0; r < rows; r++) {
        double s = 0;
        for (int64_t c = 0; c < cols; c++)
            s += x[r * cols + c];
        T_NEAR(rs[r], s, 1e-5 * (double)cols, 1e-5);
    }
    float total = 0, mean = 0;
    sts_event *evs[2] = { NULL, NULL };
    T_EQ_I64(sts_op_sum(dev, X, S, &evs[0], &err), STS_OK);
    T_EQ_I64(sts_op_mean(dev, X, Mn, &evs[1], &err), STS_OK);
    T_EQ_I64(sts_ready(evs, 2, &err), STS_OK);
    T_EQ_I64(sts_array_read(S, &total, sizeof total, &err), STS_OK);
    T_EQ_I64(sts_array_read(Mn, &mean, sizeof mean, &err), STS_OK);
    T_NEAR(total, sum, 1e-6 * (double)n, 1e-5);
    T_NEAR(mean, sum / (double)n, 1e-6, 1e-5);
    sts_event_release(evs[0]);
    sts_event_release(evs[1]);
    sts_array_free(X), sts_array_free(Y), sts_array_free(R), sts_array_free(S), sts_array_free(Mn);
    free(x), free(y), free(rs);
}

TEST(maps_and_reductions)
{
    check_maps_and_reductions(1, 1);
    check_maps_and_reductions(64, 16);
    check_maps_and_reductions(63, 17);
    check_maps_and_reductions(300, 1001);
}

static int hook_calls;
static char hook_names[256];
static void count_hook(void *user, const char *name, sts_event *ev)
{
    (void)ev;
    hook_calls += *(int *)user;
    strncat(hook_names, name, sizeof hook_names - strlen(hook_names) - 2);
    strcat(hook_names, ",");
}

TEST(events_times_and_hook)
{
    int one = 1;
    hook_calls = 0;
    hook_names[0] = 0;
    sts_device_set_enqueue_hook(dev, count_hook, &one);
    float x[256];
    for (int i = 0; i < 256; i++)
        x[i] = (float)i / 256.0f;
    int64_t shape[2] = { 16, 16 };
    sts_array *a = upload(x, 2, shape), *c = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_array_create(dev, STS_DTYPE_F32, 2, shape, &c, &err);
    sts_event *ev = NULL;
    T_EQ_I64(sts_op_matmul(dev, a, a, c, &ev, &err), STS_OK);
    T_TRUE(ev != NULL && sts_array_event(c) == ev);
    T_EQ_STR(sts_event_name(ev), "matmul");
    T_EQ_I64(sts_event_done_ns(ev), -1);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t before = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    T_EQ_I64(sts_ready(&ev, 1, &err), STS_OK);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t after = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    /* Seen complete inside the wait, and kept from the first time it was. */
    int64_t done = sts_event_done_ns(ev);
    T_GE_I64(done, before);
    T_GE_I64(after, done);
    T_EQ_I64(sts_event_wait(ev, &err), STS_OK);
    T_EQ_I64(sts_event_done_ns(ev), done);
    sts_event_times t;
    T_EQ_I64(sts_event_get_times(ev, &t, &err), STS_OK);
    T_TRUE(t.queued <= t.submit && t.submit <= t.start && t.start <= t.end);
    T_EQ_I64(sts_event_device_ns(ev), t.end - t.start);
    T_EQ_I64(sts_events_span_ns(&ev, 1), t.end - t.start);
    T_GE_I64(sts_event_host_ns(ev), 1);
    sts_device_set_enqueue_hook(dev, NULL, NULL);
    T_EQ_I64(hook_calls, 2);
    T_EQ_STR(hook_names, "write,matmul,");
    T_TRUE(sts_event_retain(ev) == ev);
    sts_event_release(ev);
    sts_event_release(ev);
    sts_event_release(NULL);
    sts_array_free(a), sts_array_free(c);
}

TEST(clock_pair_maps_device_time_into_host_bracket)
{
    sts_error err = STS_ERROR_INIT;
    int64_t host = 0, devt = 0, unc = -1;
    T_EQ_I64(sts_device_clock_pair(dev, &host, &devt, &unc, &err), STS_OK);
    T_GE_I64(unc, 0);
    float x[64 * 64] = { 0 };
    int64_t shape[2] = { 64, 64 };
    sts_array *a = upload(x, 2, shape), *c = NULL;
    sts_array_create(dev, STS_DTYPE_F32, 2, shape, &c, &err);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t before = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    sts_event *ev = NULL;
    sts_op_matmul(dev, a, a, c, &ev, &err);
    sts_event_wait(ev, &err);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t after = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    sts_event_times t;
    T_EQ_I64(sts_event_get_times(ev, &t, &err), STS_OK);
    /* Mapped onto the host clock, the kernel ran inside the host's bracket (allowing
     * the pairing's uncertainty plus 1 ms for clock drift). */
    int64_t slack = unc + 1000000;
    T_GE_I64(t.start - devt + host, before - slack);
    T_GE_I64(after + slack, t.end - devt + host);
    sts_event_release(ev);
    sts_array_free(a), sts_array_free(c);
}

static int64_t clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_MONOTONIC minus CLOCK_MONOTONIC_RAW from the tightest of 32 brackets
 * monotonic / raw / monotonic; *half receives its half-width, rounded up. */
static int64_t monotonic_minus_raw(int64_t *half)
{
    int64_t best = INT64_MAX, off = 0;
    for (int i = 0; i < 32; i++) {
        int64_t m0 = clock_of(CLOCK_MONOTONIC), r = clock_of(CLOCK_MONOTONIC_RAW), m1 = clock_of(CLOCK_MONOTONIC);
        if (m1 - m0 < best) best = m1 - m0, off = m0 + (m1 - m0) / 2 - r;
    }
    *half = (best + 1) / 2;
    return off;
}

/* 1 when a command's profiling stamps fall where CLOCK_MONOTONIC_RAW says they must:
 * QUEUED inside the enqueue call, END before the host saw the command complete. PoCL's
 * CPU devices stamp with that clock (pocl_gettimemono_ns, lib/CL/pocl_timing.c), which
 * gives the tests below a ground truth for the host/device pairing. */
static int device_stamps_raw(void)
{
    float x[256] = { 0 };
    int64_t shape[1] = { 256 };
    sts_array *a = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_array_create(dev, STS_DTYPE_F32, 1, shape, &a, &err) != STS_OK) return 0;
    int ok = 1;
    for (int i = 0; i < 8 && ok; i++) {
        sts_event *ev = NULL;
        int64_t r0 = clock_of(CLOCK_MONOTONIC_RAW);
        ok = sts_array_write(a, x, sizeof x, &ev, &err) == STS_OK;
        int64_t r1 = clock_of(CLOCK_MONOTONIC_RAW);
        ok = ok && sts_event_wait(ev, &err) == STS_OK;
        int64_t r2 = clock_of(CLOCK_MONOTONIC_RAW);
        sts_event_times t;
        ok = ok && sts_event_get_times(ev, &t, &err) == STS_OK;
        ok = ok && r0 <= t.queued && t.queued <= r1 && t.end <= r2;
        sts_event_release(ev);
    }
    sts_array_free(a);
    return ok;
}

static int is_pocl_cpu(void)
{
    const sts_device_info *info = sts_device_get_info(dev);
    return strstr(info->platform, "Portable Computing Language") != NULL && info->is_cpu;
}

/* The pairing's uncertainty bounds its real error: checked against the clock the
 * device really stamps with, many times, on a loaded machine too. */
TEST(clock_pair_uncertainty_is_true)
{
    if (!is_pocl_cpu()) T_SKIP("the ground truth needs PoCL's CPU device (its clock is CLOCK_MONOTONIC_RAW)");
    if (!device_stamps_raw()) T_SKIP("this PoCL does not stamp with CLOCK_MONOTONIC_RAW");
    sts_error err = STS_ERROR_INIT;
    int misses = 0;
    for (int i = 0; i < 50; i++) {
        int64_t host = 0, devt = 0, unc = -1, half = 0;
        T_EQ_I64(sts_device_clock_pair(dev, &host, &devt, &unc, &err), STS_OK);
        int64_t truth = monotonic_minus_raw(&half);
        int64_t miss = llabs((host - devt) - truth);
        if (miss > unc + half) {
            if (misses++ < 3) T_GE_I64(unc + half, miss);
        }
    }
    T_EQ_I64(misses, 0);
}

/* The markers' causal bracket holds the true offset, whatever the scheduling (the
 * pairing falls back to it on devices that do not stamp with the host's clock). */
TEST(marker_bracket_holds_the_true_offset)
{
    if (!is_pocl_cpu()) T_SKIP("the ground truth needs PoCL's CPU device (its clock is CLOCK_MONOTONIC_RAW)");
    if (!device_stamps_raw()) T_SKIP("this PoCL does not stamp with CLOCK_MONOTONIC_RAW");
    sts_error err = STS_ERROR_INIT;
    int misses = 0;
    for (int i = 0; i < 50; i++) {
        sts_clock_bracket b = { 0, 0, 0 };
        int raw = 0;
        T_EQ_I64(sts_device_marker_bracket(dev, &b, &raw, &err), STS_OK);
        T_EQ_I64(raw, 1);
        int64_t half = 0, truth = monotonic_minus_raw(&half);
        T_GE_I64(b.hi, b.lo);
        if (truth + half < b.lo || truth - half > b.hi) {
            if (misses++ < 3) {
                T_GE_I64(truth + half, b.lo);
                T_GE_I64(b.hi, truth - half);
            }
        }
    }
    T_EQ_I64(misses, 0);
}

static const char add_src[] = "__kernel void add_k(__global const float *x, __global float *y, float k, int n) {\n"
                              "  int i = get_global_id(0); if (i < n) y[i] = x[i] + k * OFFSET; }\n";

TEST(program_cache_and_custom_kernel)
{
    sts_error err = STS_ERROR_INIT;
    sts_program *p1 = NULL, *p2 = NULL, *p3 = NULL;
    sts_build_info b1, b2, b3;
    T_EQ_I64(sts_program_build(dev, add_src, 0, "-DOFFSET=2", &p1, &b1, &err), STS_OK);
    T_EQ_I64(b1.cache_hit, 0);
    T_GE_I64(b1.build_ns, 1);
    T_EQ_I64(sts_program_build(dev, add_src, sizeof add_src - 1, "-DOFFSET=2", &p2, &b2, &err), STS_OK);
    T_EQ_I64(b2.cache_hit, 1);
    T_TRUE(p1 == p2);
    T_EQ_U64(b1.key, b2.key);
    T_EQ_I64(sts_program_build(dev, add_src, 0, "-DOFFSET=3", &p3, &b3, &err), STS_OK);
    T_EQ_I64(b3.cache_hit, 0);
    T_TRUE(p3 != p1 && b3.key != b1.key);
    T_TRUE(sts_program_log(p1) != NULL);

    sts_kernel *k = NULL;
    T_EQ_I64(sts_kernel_create(p3, "no_such_kernel", &k, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "no_such_kernel");
    T_EQ_I64(sts_kernel_create(p3, "add_k", &k, &err), STS_OK);
    T_EQ_STR(sts_kernel_name(k), "add_k");
    float x[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, y[10];
    int64_t shape[1] = { 10 };
    sts_array *X = upload(x, 1, shape), *Y = NULL;
    sts_array_create(dev, STS_DTYPE_F32, 1, shape, &Y, &err);
    T_EQ_I64(sts_kernel_set_array(k, 0, X, &err), STS_OK);
    T_EQ_I64(sts_kernel_set_array(k, 1, Y, &err), STS_OK);
    T_EQ_I64(sts_kernel_set_f32(k, 2, 0.5f, &err), STS_OK);
    T_EQ_I64(sts_kernel_set_i32(k, 3, 10, &err), STS_OK);
    T_EQ_I64(sts_kernel_set_i32(k, 9, 10, &err), STS_ERR_RANGE);
    size_t global = 16, local = 8, bad_local = 5;
    sts_event *ev = NULL;
    T_EQ_I64(sts_kernel_enqueue(k, 1, &global, &bad_local, &ev, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "not a multiple of the local size");
    T_EQ_I64(sts_kernel_enqueue(k, 4, &global, NULL, &ev, &err), STS_ERR_INVALID_ARG);
    T_EQ_I64(sts_kernel_enqueue(k, 1, &global, &local, &ev, &err), STS_OK);
    sts_array_set_event(Y, ev);
    T_EQ_STR(sts_event_name(ev), "add_k");
    T_EQ_I64(sts_arrays_ready(&Y, 1, &err), STS_OK);
    T_EQ_I64(sts_event_done(ev), 1);
    T_EQ_I64(sts_array_read(Y, y, sizeof y, &err), STS_OK);
    for (int i = 0; i < 10; i++)
        T_NEAR(y[i], x[i] + 1.5, 0, 0);
    sts_event_release(ev);
    sts_kernel_free(k);
    sts_kernel_free(NULL);
    sts_array_free(X), sts_array_free(Y);
}

TEST(build_failure_returns_log)
{
    sts_error err = STS_ERROR_INIT;
    sts_program *p = NULL;
    const char *bad = "__kernel void broken(__global float *x) { x[0] = undefined_name; }\n";
    T_EQ_I64(sts_program_build(dev, bad, 0, NULL, &p, NULL, &err), STS_ERR_BUILD);
    T_TRUE(p == NULL);
    T_CONTAINS(err.message, "build failed");
    T_CONTAINS(err.message, "undefined_name");
    T_CONTAINS(sts_device_last_build_log(dev), "undefined_name");
    /* Failed builds are not cached: the same source fails again with the same log. */
    T_EQ_I64(sts_program_build(dev, bad, 0, NULL, &p, NULL, &err), STS_ERR_BUILD);
    T_EQ_I64(sts_program_build(dev, add_src, 0, "-DOFFSET=1 -bogus-option-xyz", &p, NULL, &err), STS_ERR_BUILD);
}

TEST(kernel_override_directory)
{
    char dir[] = "/tmp/sts_kernels_XXXXXX";
    if (!mkdtemp(dir)) T_SKIP("mkdtemp failed");
    char path[128];
    snprintf(path, sizeof path, "%s/elementwise.cl", dir);
    FILE *f = fopen(path, "w");
    fputs("__kernel void ew_tanh(__global const float *x) { this is not OpenCL C; }\n", f);
    fclose(f);
    setenv(STS_KERNELS_ENV, dir, 1);
    sts_device *d = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_device_open(NULL, &d, &err), STS_OK);
    int64_t shape[1] = { 4 };
    sts_array *x = NULL;
    sts_array_create(d, STS_DTYPE_F32, 1, shape, &x, &err);
    T_EQ_I64(sts_op_tanh(d, x, x, NULL, &err), STS_ERR_BUILD);
    T_CONTAINS(err.message, "overridden from");
    T_CONTAINS(err.message, dir);
    /* #line markers make the compiler name the overriding file itself. */
    T_CONTAINS(sts_device_last_build_log(d), path);
    T_CONTAINS(sts_device_last_build_log(d), "error");
    T_EQ_I64(sts_op_sum(d, x, x, NULL, &err), STS_ERR_SHAPE);
    int64_t one[1] = { 1 };
    sts_array *s = NULL;
    sts_array_create(d, STS_DTYPE_F32, 1, one, &s, &err);
    /* Every built-in kernel shares the one program, so reduce.cl's sum fails too. */
    T_EQ_I64(sts_op_sum(d, x, s, NULL, &err), STS_ERR_BUILD);
    unsetenv(STS_KERNELS_ENV);
    sts_array_free(x), sts_array_free(s);
    sts_device_free(d);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    sts_error err = STS_ERROR_INIT;
    if (sts_device_open(NULL, &dev, &err) != STS_OK) {
        printf("SKIP test_device: %s\n", err.message);
        return 0;
    }
    RUN(open_default_device);
    RUN(device_list_and_spec);
    RUN(array_shapes_and_errors);
    RUN(copies_round_trip);
    RUN(matmul_tanh_blocked);
    RUN(matmul_tanh_tiled);
    RUN(matmul_tanh_naive_and_auto);
    RUN(matmul_shape_errors);
    RUN(maps_and_reductions);
    RUN(events_times_and_hook);
    RUN(clock_pair_maps_device_time_into_host_bracket);
    RUN(clock_pair_uncertainty_is_true);
    RUN(marker_bracket_holds_the_true_offset);
    RUN(program_cache_and_custom_kernel);
    RUN(build_failure_returns_log);
    RUN(kernel_override_directory);
    sts_device_free(dev);
    return t_done();
}
