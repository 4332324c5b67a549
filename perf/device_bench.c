/* Device-layer benchmarks (perf/run_device.sh runs them):
 *   device_bench overhead             the harness's own cost per sample (empty workload)
 *   device_bench matmul [--n N]       sts_op_matmul against OpenBLAS cblas_sgemm, same inputs
 *   device_bench lesson [--rows R]    lesson 1's tanh(x @ w) in this fresh process: first call,
 *                                     warm median, and where each warm call's time goes
 *                                     (dispatch, launch latency, device, completion notice),
 *                                     from device timestamps mapped onto the host clock
 * Uses only the public API (and cblas.h). Times are medians; numbers vary by machine. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "stepscope.h"

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time of every thread of this process (PoCL's workers and OpenBLAS's included). */
static int64_t cpu_ns(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return ((int64_t)u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000 +
           ((int64_t)u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000;
}

static int arg_int(int argc, char **argv, const char *name, int def)
{
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) return atoi(argv[i + 1]);
    return def;
}

static const char *arg_str(int argc, char **argv, const char *name, const char *def)
{
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return def;
}

static int die(const char *what, const sts_error *err)
{
    fprintf(stderr, "device_bench: %s: %s\n", what, err->message);
    return 1;
}

/* ---------------------------------------------------------------- harness overhead */

static int bench_overhead(int argc, char **argv)
{
    int runs = arg_int(argc, argv, "--runs", 21), iters = arg_int(argc, argv, "--iterations", 100000);
    int64_t per = sts_bench_harness_overhead_ns(runs, iters);
    /* The floor: two clock reads back to back. */
    double floor_ns[64];
    int nf = runs > 64 ? 64 : runs;
    for (int r = 0; r < nf; r++) {
        int64_t total = 0;
        for (int i = 0; i < iters; i++) {
            int64_t a = now_ns();
            total += now_ns() - a;
        }
        floor_ns[r] = (double)total / iters;
    }
    printf("harness overhead per sample (empty call + wait, two clock reads, bookkeeping): %lld ns "
           "(median of %d runs x %d samples; target <= 100 ns: %s)\n",
           (long long)per, runs, iters, per <= 100 ? "met" : "NOT met");
    printf("clock_gettime(CLOCK_MONOTONIC) pair alone: %.1f ns\n", sts_median(floor_ns, (size_t)nf));
    return 0;
}

/* ---------------------------------------------------------------- matmul */

typedef struct mm {
    sts_device *dev;
    sts_array *a, *b, *c;
    float *ha, *hb, *hc, *ref;
    int n;
} mm;

static double median_i64(const int64_t *v, int n)
{
    double d[64];
    for (int i = 0; i < n && i < 64; i++)
        d[i] = (double)v[i];
    return sts_median(d, (size_t)(n < 64 ? n : 64));
}

static int mm_setup(mm *m, const char *kind, sts_error *err)
{
    int64_t shape[2] = { m->n, m->n };
    size_t count = (size_t)m->n * (size_t)m->n;
    m->ha = malloc(count * sizeof(float)), m->hb = malloc(count * sizeof(float));
    m->hc = malloc(count * sizeof(float)), m->ref = malloc(count * sizeof(float));
    if (!m->ha || !m->hb || !m->hc || !m->ref) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory");
    sts_normal_f32(1, m->ha, count);
    sts_normal_f32(2, m->hb, count);
    sts_status st = sts_device_open(NULL, &m->dev, err);
    if (st != STS_OK) return st;
    sts_matmul_kind k = STS_MATMUL_AUTO;
    if (strcmp(kind, "tiled") == 0)
        k = STS_MATMUL_TILED;
    else if (strcmp(kind, "blocked") == 0)
        k = STS_MATMUL_BLOCKED;
    else if (strcmp(kind, "naive") == 0)
        k = STS_MATMUL_NAIVE;
    sts_device_set_matmul(m->dev, k);
    if ((st = sts_array_create(m->dev, STS_DTYPE_F32, 2, shape, &m->a, err)) != STS_OK ||
        (st = sts_array_create(m->dev, STS_DTYPE_F32, 2, shape, &m->b, err)) != STS_OK ||
        (st = sts_array_create(m->dev, STS_DTYPE_F32, 2, shape, &m->c, err)) != STS_OK ||
        (st = sts_array_write(m->a, m->ha, count * sizeof(float), NULL, err)) != STS_OK ||
        (st = sts_array_write(m->b, m->hb, count * sizeof(float), NULL, err)) != STS_OK)
        return st;
    sts_array *in[2] = { m->a, m->b };
    return sts_arrays_ready(in, 2, err);
}

static void mm_free(mm *m)
{
    sts_array_free(m->a), sts_array_free(m->b), sts_array_free(m->c);
    sts_device_free(m->dev);
    free(m->ha), free(m->hb), free(m->hc), free(m->ref);
}

static int bench_matmul(int argc, char **argv)
{
    mm m;
    memset(&m, 0, sizeof m);
    m.n = arg_int(argc, argv, "--n", 1024);
    int runs = arg_int(argc, argv, "--runs", 7);
    if (runs > 64) runs = 64;
    sts_error err = STS_ERROR_INIT;
    if (mm_setup(&m, arg_str(argc, argv, "--matmul", "auto"), &err) != STS_OK) return die("setup", &err);
    int n = m.n;
    double flop = 2.0 * n * (double)n * n;
    int64_t host[64], devt[64], blas[64];
    int64_t t0 = now_ns();
    sts_event *ev = NULL;
    if (sts_op_matmul(m.dev, m.a, m.b, m.c, &ev, &err) != STS_OK || sts_event_wait(ev, &err) != STS_OK)
        return die("matmul", &err);
    int64_t first = now_ns() - t0;
    sts_event_release(ev);
    int64_t c0 = cpu_ns();
    for (int r = 0; r < runs; r++) {
        t0 = now_ns();
        sts_op_matmul(m.dev, m.a, m.b, m.c, &ev, &err);
        sts_event_wait(ev, &err);
        host[r] = now_ns() - t0;
        devt[r] = sts_event_device_ns(ev);
        sts_event_release(ev);
    }
    double dev_cpu = (double)(cpu_ns() - c0) / runs;
    sts_array_read(m.c, m.hc, (size_t)n * n * sizeof(float), &err);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, m.ha, n, m.hb, n, 0.0f, m.ref, n);
    c0 = cpu_ns();
    for (int r = 0; r < runs; r++) {
        t0 = now_ns();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, m.ha, n, m.hb, n, 0.0f, m.ref, n);
        blas[r] = now_ns() - t0;
    }
    double blas_cpu = (double)(cpu_ns() - c0) / runs;
    double maxdiff = 0, maxref = 0;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        double d = fabs((double)m.hc[i] - m.ref[i]);
        if (!(d <= maxdiff)) maxdiff = d;
        if (fabs(m.ref[i]) > maxref) maxref = fabs(m.ref[i]);
    }
    double h = median_i64(host, runs), d = median_i64(devt, runs), b = median_i64(blas, runs);
    const sts_device_info *info = sts_device_get_info(m.dev);
    printf("matmul %dx%dx%d float32, median of %d (first call with compile: %.1f ms)\n", n, n, n, runs, first / 1e6);
    printf("  stepscope on %s: %.2f ms synchronized = %.1f GFLOP/s (device %.2f ms = %.1f GFLOP/s; "
           "%.1f GFLOP per CPU-second)\n",
           info->name, h / 1e6, flop / h, d / 1e6, flop / d, flop / dev_cpu);
    printf("  OpenBLAS cblas_sgemm (core %s, %d threads): %.2f ms = %.1f GFLOP/s (%.1f GFLOP per CPU-second)\n",
           openblas_get_corename(), openblas_get_num_threads(), b / 1e6, flop / b, flop / blas_cpu);
    printf("  ratio OpenBLAS / stepscope time: %.2fx (target <= 3x: %s); max |difference| %.3g (largest |value| "
           "%.3g)\n",
           h / b, h / b <= 3.0 ? "met" : "NOT met", maxdiff, maxref);
    mm_free(&m);
    return maxdiff <= 1e-3 * maxref ? 0 : 1;
}

/* ---------------------------------------------------------------- lesson 1, broken down */

typedef struct lesson {
    sts_device *dev;
    sts_array *x, *w, *t;
    float *hx, *hw;
    int rows;
} lesson;

static sts_status lesson_setup(lesson *L, sts_error *err)
{
    int64_t xs[2] = { L->rows, 32 }, ws[2] = { 32, 16 }, ys[2] = { L->rows, 16 };
    float *both = malloc(((size_t)L->rows * 32 + 512) * sizeof *both);
    if (!both) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory");
    sts_normal_f32(4, both, (size_t)L->rows * 32 + 512);
    L->hx = both;
    L->hw = both + (size_t)L->rows * 32;
    sts_status st = sts_device_open(NULL, &L->dev, err);
    if (st == STS_OK) st = sts_array_create(L->dev, STS_DTYPE_F32, 2, xs, &L->x, err);
    if (st == STS_OK) st = sts_array_create(L->dev, STS_DTYPE_F32, 2, ws, &L->w, err);
    if (st == STS_OK) st = sts_array_create(L->dev, STS_DTYPE_F32, 2, ys, &L->t, err);
    if (st == STS_OK) st = sts_array_write(L->x, L->hx, sts_array_bytes(L->x), NULL, err);
    if (st == STS_OK) st = sts_array_write(L->w, L->hw, sts_array_bytes(L->w), NULL, err);
    sts_array *in[2] = { L->x, L->w };
    if (st == STS_OK) st = sts_arrays_ready(in, 2, err);
    return st;
}

/* One call: tanh(x @ w) as one fused operation (one launch at this size). */
static sts_status lesson_call(lesson *L, sts_event **ev, sts_error *err)
{
    return sts_op_matmul_tanh(L->dev, L->x, L->w, L->t, ev, err);
}

static int bench_lesson(int argc, char **argv)
{
    lesson L;
    memset(&L, 0, sizeof L);
    L.rows = arg_int(argc, argv, "--rows", 64);
    int repeats = arg_int(argc, argv, "--repeats", 7);
    if (repeats < 1 || repeats > 64 || L.rows < 1) return fprintf(stderr, "device_bench: bad --rows/--repeats\n"), 2;
    sts_error err = STS_ERROR_INIT;
    if (lesson_setup(&L, &err) != STS_OK) return die("setup", &err);
    sts_event *ev = NULL;
    int64_t t0 = now_ns();
    if (lesson_call(&L, &ev, &err) != STS_OK || sts_event_wait(ev, &err) != STS_OK) return die("first call", &err);
    int64_t first = now_ns() - t0;
    sts_event_release(ev);
    int64_t host_ns, dev_ns, unc;
    if (sts_device_clock_pair(L.dev, &host_ns, &dev_ns, &unc, &err) != STS_OK) return die("clock pair", &err);
    int64_t total[64], dispatch[64], wait[64], launch[64], device[64], notice[64];
    for (int r = 0; r < repeats; r++) {
        int64_t a = now_ns();
        lesson_call(&L, &ev, &err);
        int64_t b = now_ns();
        sts_event_wait(ev, &err);
        int64_t c = now_ns();
        sts_event_times tt;
        sts_event_get_times(ev, &tt, &err);
        int64_t start = tt.start - dev_ns + host_ns, end = tt.end - dev_ns + host_ns;
        total[r] = c - a, dispatch[r] = b - a, wait[r] = c - b;
        launch[r] = start - a, device[r] = end - start, notice[r] = c - end;
        sts_event_release(ev);
    }
    const sts_device_info *info = sts_device_get_info(L.dev);
    printf("{\"tool\": \"stepscope\", \"device\": \"%s\", \"rows\": %d, \"first_call_seconds\": %.9g, "
           "\"warm_median_seconds\": %.9g, \"dispatch_median_seconds\": %.9g, \"wait_median_seconds\": %.9g, "
           "\"launch_latency_median_seconds\": %.9g, \"device_span_median_seconds\": %.9g, "
           "\"completion_notice_median_seconds\": %.9g, \"clock_pair_uncertainty_seconds\": %.9g}\n",
           info->name, L.rows, first / 1e9, median_i64(total, repeats) / 1e9, median_i64(dispatch, repeats) / 1e9,
           median_i64(wait, repeats) / 1e9, median_i64(launch, repeats) / 1e9, median_i64(device, repeats) / 1e9,
           median_i64(notice, repeats) / 1e9, unc / 1e9);
    sts_array_free(L.x), sts_array_free(L.w), sts_array_free(L.t);
    sts_device_free(L.dev);
    free(L.hx);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "overhead") == 0) return bench_overhead(argc, argv);
    if (strcmp(mode, "matmul") == 0) return bench_matmul(argc, argv);
    if (strcmp(mode, "lesson") == 0) return bench_lesson(argc, argv);
    fprintf(stderr, "usage: device_bench overhead [--runs N --iterations N] | matmul [--n N --runs N --matmul KIND]"
                    " | lesson [--rows R --repeats N]\n");
    return 2;
}
