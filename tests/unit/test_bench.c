/* The bench harness: statistics against their formulas, checks, the order and count of
 * calls, dispatch-only against synchronized intervals, errors, the JSON report, and
 * lesson 1's workloads on the OpenCL device against the host reference. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "stepscope/bench.h"
#include "test.h"

/* ---------------------------------------------------------------- statistics */

TEST(stats_against_formulas)
{
    double x[5] = { 3, 1, 100, 2, 4 };
    unsigned char out[5];
    sts_stats s;
    sts_stats_compute(x, 5, &s, out);
    T_EQ_I64(s.n, 5);
    T_NEAR(s.min, 1, 0, 0);
    T_NEAR(s.max, 100, 0, 0);
    T_NEAR(s.median, 3, 0, 0);
    T_NEAR(s.mean, 22, 1e-12, 0);
    double ss = (19 * 19) + (21 * 21) + (78 * 78) + (20 * 20) + (18 * 18);
    T_NEAR(s.stddev, sqrt(ss / 4), 1e-12, 1e-12);
    T_NEAR(s.cv, sqrt(ss / 4) / 22, 1e-12, 1e-12);
    /* |x - 3| = 0, 2, 97, 1, 1 -> sorted 0 1 1 2 97 -> MAD 1. */
    T_NEAR(s.mad, 1, 0, 0);
    /* 0.6745 * 97 / 1 = 65.4 > 3.5: only 100 is an outlier; 0.6745 * 2 = 1.35 is not. */
    T_EQ_I64(s.outliers, 1);
    T_EQ_I64(out[2], 1);
    T_EQ_I64(out[0] + out[1] + out[3] + out[4], 0);
    /* This input (a copy) is unchanged by the median. */
    T_NEAR(x[0], 3, 0, 0);
}

TEST(stats_edge_cases)
{
    sts_stats s;
    double even[4] = { 4, 1, 3, 2 };
    sts_stats_compute(even, 4, &s, NULL);
    T_NEAR(s.median, 2.5, 0, 0);
    T_NEAR(sts_median(even, 4), 2.5, 0, 0);
    /* MAD 0: the z-score is unbounded, so anything off the median is an outlier. */
    double flat[4] = { 5, 5, 5, 6 };
    unsigned char out[5];
    sts_stats_compute(flat, 4, &s, out);
    T_NEAR(s.mad, 0, 0, 0);
    T_EQ_I64(s.outliers, 1);
    T_EQ_I64(out[3], 1);
    double same[3] = { 7, 7, 7 };
    sts_stats_compute(same, 3, &s, NULL);
    T_EQ_I64(s.outliers, 0);
    T_NEAR(s.stddev, 0, 0, 0);
    double one[1] = { 42 };
    sts_stats_compute(one, 1, &s, NULL);
    T_NEAR(s.median, 42, 0, 0);
    T_NEAR(s.stddev, 0, 0, 0);
    T_EQ_I64(s.outliers, 0);
    sts_stats_compute(NULL, 0, &s, NULL);
    T_EQ_I64(s.n, 0);
    T_NEAR(s.mean, 0, 0, 0);
    /* The threshold: with MAD 1, z = 0.6745 * d; d = 5.18 gives 3.494 (kept), 5.19 gives
     * 3.5007 (outlier). */
    double edge[5] = { 10, 11, 9, 10 + 5.18, 10 };
    sts_stats_compute(edge, 5, &s, out);
    T_EQ_I64(s.outliers, 0);
    edge[3] = 10 + 5.19;
    sts_stats_compute(edge, 5, &s, out);
    T_EQ_I64(s.outliers, 1);
}

/* ---------------------------------------------------------------- checks */

TEST(check_tolerances_and_nan)
{
    sts_bench_check c;
    memset(&c, 0, sizeof c);
    c.atol = 1e-3;
    c.rtol = 1e-2;
    float got[4] = { 1.0f, 2.0f, 100.5f, -3.0f };
    double want[4] = { 1.0, 2.0005, 100.0, -3.0 };
    int64_t shape[1] = { 4 };
    /* 100.5 vs 100: 0.5 <= 1e-3 + 1e-2 * 100 = 1.001 -> within tolerance. */
    sts_check_add_f32(&c, "a", 1, shape, got, want, 4);
    T_EQ_I64(c.checked, 1);
    T_EQ_I64(c.passed, 1);
    T_NEAR(c.max_abs_error, 0.5, 0, 0);
    T_EQ_I64(c.leaves[0].worst_index, 2);
    float bad[2] = { 1.0f, NAN };
    double bwant[2] = { 1.5, 2.0 };
    sts_check_add_f32(&c, "b", 1, shape, bad, bwant, 2);
    T_EQ_I64(c.passed, 0);
    T_EQ_I64(c.nleaves, 2);
    T_EQ_I64(c.leaves[1].mismatches, 2);
    T_TRUE(isinf(c.max_abs_error));
    T_EQ_STR(c.leaves[1].name, "b");
}

TEST(check_f64_matches_f32_rule)
{
    sts_bench_check c;
    memset(&c, 0, sizeof c);
    c.atol = 1e-9;
    c.rtol = 0;
    /* Values float32 cannot hold: 1 + 1e-10 rounds to 1 in float32 but not in double. */
    double got[3] = { 1.0 + 1e-10, 2.0, 3.0 + 4e-9 };
    double want[3] = { 1.0, 2.0, 3.0 };
    int64_t shape[2] = { 3, 1 };
    sts_check_add_f64(&c, "x", 2, shape, got, want, 3);
    T_EQ_I64(c.checked, 1);
    T_EQ_I64(c.passed, 0);
    T_EQ_I64(c.leaves[0].mismatches, 1);
    T_EQ_I64(c.leaves[0].worst_index, 2);
    T_NEAR(c.leaves[0].max_abs_error, fabs(got[2] - want[2]), 0, 0);
    T_NEAR(c.leaves[0].worst_got, got[2], 0, 0);
    T_EQ_I64(c.leaves[0].shape[1], 1);
    /* More leaves than the record holds still decide passed and the largest error. */
    sts_bench_check d;
    memset(&d, 0, sizeof d);
    d.atol = 0.5;
    double ok[1] = { 0 }, zero[1] = { 0 }, far[1] = { 9 };
    for (int i = 0; i < STS_CHECK_MAX_LEAVES; i++)
        sts_check_add_f64(&d, "ok", 0, NULL, ok, zero, 1);
    T_EQ_I64(d.passed, 1);
    sts_check_add_f64(&d, "late", 0, NULL, far, zero, 1);
    T_EQ_I64(d.nleaves, STS_CHECK_MAX_LEAVES);
    T_EQ_I64(d.passed, 0);
    T_NEAR(d.max_abs_error, 9, 0, 0);
}

/* ---------------------------------------------------------------- the harness with fakes */

typedef struct fake {
    int setups, calls, waits, releases, checks, live;
    int setup_after_call; /* set if a call came before setup */
    int last_checked;     /* id of the handle the check saw */
    int fail_at_call;     /* 0 = never */
    int64_t sleep_ns;     /* work "on the device": a thread that sleeps */
    char log[64];
} fake;

typedef struct fake_handle {
    int id;
    pthread_t worker;
    int64_t sleep_ns;
} fake_handle;

static void *sleeper(void *p)
{
    fake_handle *h = p;
    struct timespec ts = { h->sleep_ns / 1000000000, h->sleep_ns % 1000000000 };
    nanosleep(&ts, NULL);
    return NULL;
}

static sts_status f_setup(void *u, sts_error *err)
{
    fake *f = u;
    (void)err;
    f->setups++;
    if (f->calls) f->setup_after_call = 1;
    return STS_OK;
}

static sts_status f_call(void *u, void **out, sts_error *err)
{
    fake *f = u;
    f->calls++;
    if (f->fail_at_call && f->calls == f->fail_at_call)
        return sts_error_set(err, STS_ERR_DEVICE, -1, "fake device failed at call %d", f->calls);
    fake_handle *h = calloc(1, sizeof *h);
    h->id = f->calls;
    h->sleep_ns = f->sleep_ns;
    if (f->sleep_ns) pthread_create(&h->worker, NULL, sleeper, h);
    f->live++;
    *out = h;
    return STS_OK;
}

static sts_status f_wait(void *u, void *hp, sts_error *err)
{
    fake *f = u;
    fake_handle *h = hp;
    (void)err;
    f->waits++;
    if (h->sleep_ns) {
        pthread_join(h->worker, NULL);
        h->sleep_ns = 0;
    }
    return STS_OK;
}

static int64_t f_device(void *u, void *hp)
{
    (void)u;
    return ((fake_handle *)hp)->id == 2 ? -1 : 1000;
}

static void f_release(void *u, void *hp)
{
    fake *f = u;
    fake_handle *h = hp;
    if (!h) return;
    if (h->sleep_ns) pthread_join(h->worker, NULL);
    f->releases++;
    f->live--;
    free(h);
}

static sts_status f_check(void *u, void *hp, sts_bench_check *out, sts_error *err)
{
    fake *f = u;
    (void)err;
    f->checks++;
    f->last_checked = ((fake_handle *)hp)->id;
    float got[1] = { 1.0f };
    double want[1] = { 1.0 };
    sts_check_add_f32(out, "value", 0, NULL, got, want, 1);
    return STS_OK;
}

static sts_bench_spec fake_spec(fake *f, int repeats, int warmup, int dispatch)
{
    sts_bench_spec s;
    memset(&s, 0, sizeof s);
    s.name = "fake";
    s.boundary = "call plus wait";
    s.dtype = "float32";
    s.shapes[0] = (sts_bench_shape){ "input_shape", 2, { 64, 32 } };
    s.nshapes = 1;
    s.user = f;
    s.setup = f_setup;
    s.call = f_call;
    s.wait = f_wait;
    s.check = f_check;
    s.device_ns = f_device;
    s.release = f_release;
    s.repeats = repeats;
    s.warmup = warmup;
    s.dispatch_repeats = dispatch;
    s.atol = 2e-5;
    s.rtol = 2e-5;
    return s;
}

TEST(harness_calls_in_order)
{
    fake f;
    memset(&f, 0, sizeof f);
    sts_bench_spec s = fake_spec(&f, 7, 2, 0);
    sts_bench_result *r = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_bench_run(&s, &r, &err), STS_OK);
    if (!r) return;
    T_EQ_I64(f.setups, 1);
    T_EQ_I64(f.setup_after_call, 0);
    /* first + warmup + samples + dispatch-only (as many as repeats) */
    T_EQ_I64(f.calls, 1 + 2 + 7 + 7);
    T_EQ_I64(f.waits, f.calls);
    T_EQ_I64(f.releases, f.calls);
    T_EQ_I64(f.live, 0);
    T_EQ_I64(f.checks, 1);
    /* the check saw the last synchronized sample: call number 1 + 2 + 7 */
    T_EQ_I64(f.last_checked, 10);
    T_EQ_I64(r->nsamples, 7);
    T_EQ_I64(r->ndispatch, 7);
    T_EQ_I64(r->warmup, 2);
    for (size_t i = 0; i < r->nsamples; i++)
        T_GE_I64(r->samples_ns[i], 0);
    T_GE_I64(r->first_call_ns, 0);
    /* the first call was handle 1 (device 1000 ns); handle 2 (a warmup) said unknown */
    T_EQ_I64(r->first_device_ns, 1000);
    for (size_t i = 0; i < r->nsamples; i++)
        T_EQ_I64(r->device_ns[i], 1000);
    T_EQ_I64(r->device_stats.n, 7);
    T_NEAR(r->overhead_stats.median, r->stats.median - 1000, 0.5, 0);
    T_EQ_I64(r->check.checked, 1);
    T_EQ_I64(r->check.passed, 1);
    T_NEAR(r->check.atol, 2e-5, 0, 0);
    T_EQ_STR(r->name, "fake");
    T_EQ_STR(r->shapes[0].key, "input_shape");
    T_NEAR(sts_bench_first_to_warm_ratio(r), (double)r->first_call_ns / r->stats.median, 1e-9, 1e-9);
    sts_bench_result_free(r);
    sts_bench_result_free(NULL);
}

TEST(harness_dispatch_counts)
{
    fake f;
    memset(&f, 0, sizeof f);
    sts_bench_spec s = fake_spec(&f, 3, 0, -1);
    sts_bench_result *r = NULL;
    T_EQ_I64(sts_bench_run(&s, &r, NULL), STS_OK);
    T_EQ_I64(r->ndispatch, 0);
    T_EQ_I64(f.calls, 4);
    sts_bench_result_free(r);
    memset(&f, 0, sizeof f);
    s = fake_spec(&f, 2, 0, 5);
    T_EQ_I64(sts_bench_run(&s, &r, NULL), STS_OK);
    T_EQ_I64(r->ndispatch, 5);
    T_EQ_I64(f.calls, 1 + 2 + 5);
    sts_bench_result_free(r);
}

/* Work that takes 20 ms after the call returns: the dispatch-only interval must be far
 * shorter than the synchronized one (a relationship, not an absolute time). */
TEST(dispatch_only_is_shorter_than_synchronized)
{
    fake f;
    memset(&f, 0, sizeof f);
    f.sleep_ns = 20000000;
    sts_bench_spec s = fake_spec(&f, 3, 0, 3);
    s.check = NULL;
    sts_bench_result *r = NULL;
    T_EQ_I64(sts_bench_run(&s, &r, NULL), STS_OK);
    if (!r) return;
    T_GE_I64(r->stats.min, 20000000);
    T_TRUE(r->dispatch_stats.median < r->stats.median / 2);
    T_EQ_I64(r->check.checked, 0);
    T_EQ_I64(f.live, 0);
    sts_bench_result_free(r);
}

TEST(harness_rejects_bad_specs)
{
    fake f;
    memset(&f, 0, sizeof f);
    sts_bench_result *r = (sts_bench_result *)&f;
    sts_error err = STS_ERROR_INIT;
    sts_bench_spec s = fake_spec(&f, 0, 0, 0);
    T_EQ_I64(sts_bench_run(&s, &r, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "repeats must be at least 1 (got 0)");
    T_TRUE(r == NULL);
    s.repeats = -3;
    T_EQ_I64(sts_bench_run(&s, &r, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "(got -3)");
    s = fake_spec(&f, 1, -1, 0);
    T_EQ_I64(sts_bench_run(&s, &r, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "warmup");
    s = fake_spec(&f, 1, 0, 0);
    s.wait = NULL;
    T_EQ_I64(sts_bench_run(&s, &r, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "call and a wait");
    T_EQ_I64(f.calls, 0);
}

TEST(harness_passes_on_callback_errors)
{
    for (int at = 1; at <= 8; at++) { /* 1 first + 1 warmup + 3 samples + 3 dispatch-only */
        fake f;
        memset(&f, 0, sizeof f);
        f.fail_at_call = at;
        sts_bench_spec s = fake_spec(&f, 3, 1, 3);
        sts_bench_result *r = NULL;
        sts_error err = STS_ERROR_INIT;
        T_EQ_I64(sts_bench_run(&s, &r, &err), STS_ERR_DEVICE);
        T_CONTAINS(err.message, "fake device failed");
        T_TRUE(r == NULL);
        T_EQ_I64(f.live, 0);
    }
}

TEST(harness_overhead_is_measured)
{
    int64_t ns = sts_bench_harness_overhead_ns(3, 1000);
    T_GE_I64(ns, 1);
}

/* ---------------------------------------------------------------- report */

static char *report_text(const sts_bench_result *r, const sts_bench_env *env, const sts_bench_result *const *v,
                         size_t nv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sts_bench_write_json(f, r, env, v, nv, NULL);
    fclose(f);
    return buf;
}

TEST(json_report_fields)
{
    fake f;
    memset(&f, 0, sizeof f);
    sts_bench_spec s = fake_spec(&f, 4, 0, 2);
    s.shapes[1] = (sts_bench_shape){ "weight_shape", 2, { 32, 16 } };
    s.nshapes = 2;
    sts_bench_result *r = NULL, *v = NULL;
    T_EQ_I64(sts_bench_run(&s, &r, NULL), STS_OK);
    s.name = "second";
    T_EQ_I64(sts_bench_run(&s, &v, NULL), STS_OK);
    sts_bench_env env;
    sts_bench_env_collect(&env, NULL);
    T_TRUE(env.os[0] != 0);
    T_TRUE(env.compiler[0] != 0);
    T_EQ_STR(env.stepscope_version, STS_VERSION_STRING);
    const sts_bench_result *vars[1] = { v };
    char *text = report_text(r, &env, vars, 1);
    T_CONTAINS(text, "\"schema\": \"stepscope.bench/1\"");
    T_CONTAINS(text, "\"input_shape\": [\n    64,\n    32\n  ]");
    T_CONTAINS(text, "\"weight_shape\": [\n    32,\n    16\n  ]");
    T_CONTAINS(text, "\"dtype\": \"float32\"");
    T_CONTAINS(text, "\"boundary\": \"call plus wait\"");
    T_CONTAINS(text, "\"first_call_seconds\": ");
    T_CONTAINS(text, "\"warm_samples_seconds\": [");
    T_CONTAINS(text, "\"warm_median_seconds\": ");
    T_CONTAINS(text, "\"max_abs_error\": 0");
    T_CONTAINS(text, "\"dispatch_only_seconds\": [");
    T_CONTAINS(text, "\"device_samples_seconds\": [");
    T_CONTAINS(text, "\"outlier_rule\"");
    T_CONTAINS(text, "\"environment\": {");
    T_CONTAINS(text, "\"variants\": {\n    \"second\": {");
    /* one device time per sample: 1000 ns = 1e-06 s */
    T_CONTAINS(text, "1e-06");
    free(text);
    sts_bench_result_free(r);
    sts_bench_result_free(v);
}

TEST(json_report_runtime_and_reference)
{
    fake f;
    memset(&f, 0, sizeof f);
    sts_bench_spec s = fake_spec(&f, 3, 0, -1);
    s.reference = "NumPy float64";
    sts_bench_result *r = NULL;
    T_EQ_I64(sts_bench_run(&s, &r, NULL), STS_OK);
    T_EQ_STR(r->check.reference, "NumPy float64");
    sts_bench_env env;
    sts_bench_env_collect_host(&env);
    T_EQ_I64(env.has_device, 0);
    T_TRUE(env.os[0] != 0);
    snprintf(env.backend, sizeof env.backend, "JAX 0.9.2 on cpu");
    snprintf(env.runtime_device, sizeof env.runtime_device, "TFRT_CPU_0");
    T_EQ_I64(sts_bench_env_add_runtime(&env, "python", "3.11.7"), STS_OK);
    T_EQ_I64(sts_bench_env_add_runtime(&env, "jax", "0.9.2"), STS_OK);
    char *text = report_text(r, &env, NULL, 0);
    T_CONTAINS(text, "\"backend\": \"JAX 0.9.2 on cpu\"");
    T_CONTAINS(text, "\"device\": \"TFRT_CPU_0\"");
    T_CONTAINS(text, "\"python\": \"3.11.7\",\n    \"jax\": \"0.9.2\"\n  }");
    T_CONTAINS(text, "\"runtime\": {\n      \"backend\": \"JAX 0.9.2 on cpu\"");
    T_CONTAINS(text, "\"reference\": \"NumPy float64\"");
    T_TRUE(strstr(text, "\"opencl\"") == NULL);
    free(text);
    for (int i = 2; i < STS_BENCH_MAX_RUNTIME; i++)
        T_EQ_I64(sts_bench_env_add_runtime(&env, "k", "v"), STS_OK);
    T_EQ_I64(sts_bench_env_add_runtime(&env, "one", "too many"), STS_ERR_LIMIT);
    T_EQ_I64(env.nruntime, STS_BENCH_MAX_RUNTIME);
    sts_bench_result_free(r);
}

/* The reader gives back what the writer wrote: every sample (as the writer's seconds),
 * the contract, the check, the variants by their key, the environment. */
TEST(json_report_reads_back)
{
    fake f;
    memset(&f, 0, sizeof f);
    sts_bench_spec s = fake_spec(&f, 5, 0, 3);
    sts_bench_result *r = NULL, *v = NULL;
    T_EQ_I64(sts_bench_run(&s, &r, NULL), STS_OK);
    s.name = "second";
    s.shapes[0].dims[0] = 96;
    T_EQ_I64(sts_bench_run(&s, &v, NULL), STS_OK);
    sts_bench_env env;
    sts_bench_env_collect_host(&env);
    const sts_bench_result *vars[1] = { v };
    char *text = report_text(r, &env, vars, 1);
    sts_bench_doc *d = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_bench_read_json(text, strlen(text), "b.json", &d, &err), STS_OK);
    T_TRUE(d && d->nruns == 2);
    if (d && d->nruns == 2) {
        const sts_bench_run_doc *a = &d->runs[0], *b = &d->runs[1];
        T_TRUE(a->member == NULL && strcmp(b->member, "second") == 0);
        T_EQ_STR(a->name, "fake");
        T_EQ_U64(a->warm.n, r->nsamples);
        T_EQ_U64(a->warm.measured, r->nsamples);
        for (size_t i = 0; i < a->warm.n && i < r->nsamples; i++)
            T_NEAR(a->warm.s[i] * 1e9, (double)r->samples_ns[i], 0, 1e-12);
        T_EQ_U64(a->dispatch.n, r->ndispatch);
        T_TRUE(!a->dispatch.scalar && a->device.given);
        T_NEAR(a->first_call_s * 1e9, (double)r->first_call_ns, 0, 1e-12);
        T_EQ_STR(a->contract[0], "[64, 32]");
        T_EQ_STR(b->contract[0], "[96, 32]");
        T_EQ_STR(a->contract[3], "float32");
        T_TRUE(a->contract[1] == NULL); /* no weight shape */
        T_EQ_I64(a->checked, 1);
        T_EQ_I64(a->passed, 1);
        T_EQ_I64(a->unstable, r->unstable);
        const sts_bench_fact *fact = sts_bench_fact_get(a->facts, a->nfacts, "input_shape");
        T_TRUE(fact && fact->array && strcmp(fact->text, "[64, 32]") == 0);
        fact = sts_bench_fact_get(a->facts, a->nfacts, "max_abs_error");
        T_TRUE(fact && fact->number == 0 && strcmp(fact->text, "0") == 0);
        T_TRUE(d->has_env && d->opencl_device == NULL);
        fact = sts_bench_fact_get(d->env, d->nenv, "os");
        T_TRUE(fact && fact->string && strcmp(fact->string, env.os) == 0);
    }
    sts_bench_doc_free(d);
    sts_bench_doc_free(NULL);
    free(text);
    sts_bench_result_free(r);
    sts_bench_result_free(v);
}

/* Every way a document can be wrong: named by file, byte and key. */
TEST(json_report_reader_errors)
{
    static const struct {
        const char *text;
        sts_status st;
        const char *msg;
    } cases[] = {
        { "{\"warm_samples_seconds\": [1e-5, ", STS_ERR_PARSE, "b.json: byte 32: " },
        { "[1, 2]", STS_ERR_FORMAT, "b.json: not a bench result" },
        { "{\"variants\": {\"x\": {\"samples\": [1]}}}", STS_ERR_FORMAT, "not a bench result" },
        { "{\"warm_samples_seconds\": 3}", STS_ERR_FORMAT,
          "b.json: byte 25: \"warm_samples_seconds\" must be an array of numbers" },
        { "{\"warm_samples_seconds\": [1e-5, \"x\"]}", STS_ERR_FORMAT,
          "b.json: byte 32: \"warm_samples_seconds\"[1] must be a non-negative number of seconds or null" },
        { "{\"warm_samples_seconds\": [], \"device_samples_seconds\": [-1]}", STS_ERR_FORMAT,
          "\"device_samples_seconds\"[0] must be a non-negative" },
        { "{\"warm_samples_seconds\": [], \"first_call_seconds\": true}", STS_ERR_FORMAT,
          "\"first_call_seconds\" must be a non-negative number of seconds" },
        { "{\"warm_samples_seconds\": [4.6e6]}", STS_ERR_RANGE,
          "byte 26: \"warm_samples_seconds\"[0] is out of range" },
        { "{\"warm_samples_seconds\": [], \"warm_median_seconds\": 1e300}", STS_ERR_RANGE,
          "\"warm_median_seconds\" is out of range" },
        { "{\"warm_samples_seconds\": [], \"dispatch_only_seconds\": \"fast\"}", STS_ERR_FORMAT,
          "\"dispatch_only_seconds\" must be an array of numbers" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sts_bench_doc *d = (sts_bench_doc *)1;
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_bench_read_json(cases[i].text, strlen(cases[i].text), "b.json", &d, &err);
        if (st != cases[i].st || d != NULL || !strstr(err.message, cases[i].msg))
            T_FAIL_AT("case %zu: status %d, message \"%s\"", i, st, err.message);
    }
    /* 4.5e6 s is 2^52 ns less a little: in range; one number is one dispatch interval. */
    const char *ok = "{\"warm_samples_seconds\": [4.5e6, null], \"dispatch_only_seconds\": 2e-6}";
    sts_bench_doc *d = NULL;
    T_EQ_I64(sts_bench_read_json(ok, strlen(ok), "b.json", &d, NULL), STS_OK);
    if (d) {
        T_EQ_U64(d->runs[0].warm.n, 2);
        T_EQ_U64(d->runs[0].warm.measured, 1);
        T_TRUE(isnan(d->runs[0].warm.s[1]) && isnan(d->runs[0].first_call_s));
        T_TRUE(d->runs[0].dispatch.scalar && d->runs[0].dispatch.n == 1 && d->runs[0].dispatch.s[0] == 2e-6);
        T_EQ_I64(d->runs[0].checked, -1);
    }
    sts_bench_doc_free(d);
    /* More runs than a document may hold. */
    size_t cap = 64 * (STS_BENCH_DOC_MAX_RUNS + 2), at = 0;
    char *many = malloc(cap);
    at += (size_t)snprintf(many + at, cap - at, "[");
    for (int i = 0; i <= STS_BENCH_DOC_MAX_RUNS; i++)
        at += (size_t)snprintf(many + at, cap - at, "%s{\"warm_samples_seconds\": [1]}", i ? "," : "");
    snprintf(many + at, cap - at, "]");
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_bench_read_json(many, strlen(many), "b.json", &d, &err), STS_ERR_LIMIT);
    T_CONTAINS(err.message, "more than 256 runs");
    free(many);
}

/* ---------------------------------------------------------------- normal inputs */

TEST(normal_inputs_are_seeded_and_standard)
{
    enum { N = 200000 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    sts_normal_f32(4, a, N);
    sts_normal_f32(4, b, N);
    T_EQ_I64(memcmp(a, b, N * sizeof *a), 0);
    sts_normal_f32(5, b, N);
    T_TRUE(memcmp(a, b, N * sizeof *a) != 0);
    double sum = 0, sq = 0;
    size_t beyond3 = 0;
    for (int i = 0; i < N; i++) {
        sum += a[i];
        sq += (double)a[i] * a[i];
        beyond3 += fabs(a[i]) > 3;
    }
    double mean = sum / N, var = sq / N - mean * mean;
    /* Standard errors: mean 1/sqrt(N) = 0.0022, variance sqrt(2/N) = 0.0032; 5 sigma. */
    T_NEAR(mean, 0, 0.012, 0);
    T_NEAR(var, 1, 0.016, 0);
    /* P(|z| > 3) = 0.0027: expect 540, allow +-25%. */
    T_TRUE(beyond3 > 405 && beyond3 < 675);
    float odd[3];
    sts_normal_f32(4, odd, 3);
    T_NEAR(odd[0], a[0], 0, 0);
    T_NEAR(odd[2], a[2], 0, 0);
    free(a);
    free(b);
}

/* ---------------------------------------------------------------- lesson 1 on the device */

static sts_device *dev;

static sts_bench_result *run_workload(sts_workload_kind kind, int64_t rows, int64_t features, int64_t outputs,
                                      int repeats)
{
    sts_workload_params p = STS_WORKLOAD_PARAMS_INIT;
    p.kind = kind;
    p.rows = rows, p.features = features, p.outputs = outputs;
    sts_workload *wl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_workload_create(dev, &p, &wl, &err) != STS_OK) {
        fprintf(stderr, "workload: %s\n", err.message);
        return NULL;
    }
    sts_bench_spec s;
    sts_workload_spec(wl, &s);
    s.repeats = repeats;
    sts_bench_result *r = NULL;
    if (sts_bench_run(&s, &r, &err) != STS_OK) fprintf(stderr, "bench: %s\n", err.message);
    sts_workload_free(wl);
    return r;
}

TEST(lesson_predict_default_contract)
{
    if (!dev) T_SKIP("no OpenCL device");
    sts_bench_result *r = run_workload(STS_WORKLOAD_PREDICT, 64, 32, 16, 7);
    T_TRUE(r != NULL);
    if (!r) return;
    T_EQ_I64(r->nsamples, 7);
    for (size_t i = 0; i < 7; i++) {
        T_GE_I64(r->samples_ns[i], 0);
        T_GE_I64(r->device_ns[i], 0);
    }
    T_EQ_I64(r->check.passed, 1);
    T_NEAR(r->check.atol, 2e-5, 0, 0);
    T_NEAR(r->check.rtol, 2e-5, 0, 0);
    T_TRUE(r->check.max_abs_error <= 2e-5);
    T_EQ_I64(r->check.leaves[0].count, 64 * 16);
    T_EQ_STR(r->shapes[0].key, "input_shape");
    T_EQ_I64(r->shapes[0].dims[0], 64);
    T_EQ_I64(r->shapes[1].dims[1], 16);
    T_EQ_STR(r->dtype, "float32");
    T_EQ_STR(r->boundary, "input already placed; call plus output synchronization");
    sts_bench_result_free(r);
}

TEST(lesson_predict_odd_shapes)
{
    if (!dev) T_SKIP("no OpenCL device");
    static const int64_t shapes[][3] = { { 1, 1, 1 }, { 63, 33, 17 }, { 96, 32, 16 }, { 7, 130, 3 } };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        sts_bench_result *r = run_workload(STS_WORKLOAD_PREDICT, shapes[i][0], shapes[i][1], shapes[i][2], 2);
        T_TRUE(r != NULL);
        if (!r) continue;
        T_EQ_I64(r->check.passed, 1);
        T_EQ_I64(r->check.leaves[0].count, shapes[i][0] * shapes[i][2]);
        sts_bench_result_free(r);
    }
}

TEST(lesson_energy_and_structured)
{
    if (!dev) T_SKIP("no OpenCL device");
    sts_bench_result *e = run_workload(STS_WORKLOAD_ENERGY, 64, 32, 16, 5);
    T_TRUE(e != NULL);
    if (e) {
        T_EQ_I64(e->nsamples, 5);
        T_EQ_I64(e->check.passed, 1);
        T_NEAR(e->check.atol, 2e-3, 0, 0);
        T_EQ_STR(e->shapes[2].key, "output_shape");
        T_EQ_I64(e->shapes[2].ndim, 1);
        T_EQ_I64(e->shapes[2].dims[0], 64);
        T_EQ_I64(e->check.leaves[0].count, 64);
    }
    sts_bench_result *s = run_workload(STS_WORKLOAD_STRUCTURED, 64, 32, 16, 3);
    T_TRUE(s != NULL);
    if (s) {
        T_EQ_I64(s->nsamples, 3);
        T_EQ_I64(s->check.passed, 1);
        T_EQ_I64(s->check.nleaves, 2);
        T_EQ_STR(s->check.leaves[0].name, "prediction");
        T_EQ_STR(s->check.leaves[1].name, "mean");
        T_EQ_I64(s->check.leaves[1].count, 1);
    }
    sts_bench_result_free(e);
    sts_bench_result_free(s);
}

TEST(workload_errors)
{
    sts_error err = STS_ERROR_INIT;
    sts_workload_kind k;
    T_EQ_I64(sts_workload_parse("energy", &k, &err), STS_OK);
    T_EQ_I64(k, STS_WORKLOAD_ENERGY);
    T_EQ_I64(sts_workload_parse("bogus", &k, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "unknown workload 'bogus' (expected predict, energy or structured)");
    T_EQ_STR(sts_workload_name(STS_WORKLOAD_STRUCTURED), "structured");
    sts_workload_params p = STS_WORKLOAD_PARAMS_INIT;
    p.features = 0;
    sts_workload *wl = (sts_workload *)&err;
    T_EQ_I64(sts_workload_create(dev, &p, &wl, &err), STS_ERR_SHAPE);
    T_CONTAINS(err.message, "features 0");
    T_TRUE(wl == NULL);
    sts_workload_free(NULL);
}

int main(void)
{
    sts_error err = STS_ERROR_INIT;
    if (sts_device_open(NULL, &dev, &err) != STS_OK) {
        printf("  (no OpenCL device: %s)\n", err.message);
        dev = NULL;
    }
    RUN(stats_against_formulas);
    RUN(stats_edge_cases);
    RUN(check_tolerances_and_nan);
    RUN(check_f64_matches_f32_rule);
    RUN(harness_calls_in_order);
    RUN(harness_dispatch_counts);
    RUN(dispatch_only_is_shorter_than_synchronized);
    RUN(harness_rejects_bad_specs);
    RUN(harness_passes_on_callback_errors);
    RUN(harness_overhead_is_measured);
    RUN(json_report_fields);
    RUN(json_report_runtime_and_reference);
    RUN(json_report_reads_back);
    RUN(json_report_reader_errors);
    RUN(normal_inputs_are_seeded_and_standard);
    RUN(lesson_predict_default_contract);
    RUN(lesson_predict_odd_shapes);
    RUN(lesson_energy_and_structured);
    RUN(workload_errors);
    sts_device_free(dev);
    return t_done();
}
