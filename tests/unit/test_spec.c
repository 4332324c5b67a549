/* Specialized functions on the default OpenCL device (PoCL on the CPU): lesson 2's
 * numbers against their closed forms, specialization deltas, static against dynamic
 * arguments, the dynamic-branch misuse, STEPSCOPE_LOG_COMPILES and recorded host
 * syncs. Skipped when no OpenCL device is available. */
#include "test.h"

#include <fcntl.h>
#include <unistd.h>

#include "stepscope.h"

static sts_device *dev;

#define NEED_DEVICE()                                                        \
    do {                                                                     \
        if (!dev) T_SKIP("no OpenCL device (pocl-opencl-icd provides one)"); \
    } while (0)

/* The same source as `stepscope demo retrace`, so the two share PoCL's kernel cache. */
static const char SCORE_SRC[] = "__kernel void score(__global const X_T *x, GAIN_T gain, __global float *out)\n"
                                "{\n"
                                "    float acc = 0.0f;\n"
                                "    for (int i = 0; i < X_SIZE; i++) {\n"
                                "        float v = (float)x[i] * gain;\n"
                                "        acc += v * v;\n"
                                "    }\n"
                                "    out[0] = acc;\n"
                                "}\n";

static const sts_fn_param SCORE_PARAMS[] = {
    { "x", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
    { "gain", STS_PARAM_DYNAMIC, STS_DTYPE_F32, STS_STATIC_INT, NULL },
    { "out", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
};

static sts_array *range(size_t n, float offset)
{
    float v[64];
    for (size_t i = 0; i < n; i++)
        v[i] = (float)i + offset;
    int64_t shape[1] = { (int64_t)n };
    sts_array *a = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_array_create(dev, STS_DTYPE_F32, 1, shape, &a, &err) != STS_OK) return NULL;
    sts_event *ev = NULL;
    if (sts_array_write(a, v, n * 4, &ev, &err) != STS_OK || sts_event_wait(ev, &err) != STS_OK) {
        sts_event_release(ev);
        sts_array_free(a);
        return NULL;
    }
    sts_event_release(ev);
    return a;
}

static sts_array *scalar_out(void)
{
    int64_t one[1] = { 1 };
    sts_array *a = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_array_create(dev, STS_DTYPE_F32, 1, one, &a, &err);
    return a;
}

static double score_ref(int n, double offset, double gain)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += ((i + offset) * gain) * ((i + offset) * gain);
    return s;
}

/* Calls score and returns its result; fills the call info. */
static double call_score(sts_fn *fn, int n, float offset, double gain, sts_array *out, sts_fn_call_info *in)
{
    sts_array *x = range((size_t)n, offset);
    sts_fn_arg args[3] = { { x, 0, NULL }, { NULL, gain, NULL }, { out, 0, NULL } };
    sts_error err = STS_ERROR_INIT;
    if (sts_fn_call(fn, args, 3, "call", STS_FN_RESULT, NULL, in, &err) != STS_OK) {
        fprintf(stderr, "score call: %s\n", err.message);
        in->result = NAN;
    }
    sts_array_free(x);
    return in->result;
}

TEST(lesson2_values_and_trace_deltas)
{
    NEED_DEVICE();
    sts_ledger *l = sts_ledger_create();
    sts_fn *fn = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_fn_spec spec = { "score", SCORE_SRC, NULL, NULL, SCORE_PARAMS, 3, -1, 2, NULL };
    T_EQ_I64(sts_fn_create(dev, &spec, l, &fn, &err), STS_OK);
    sts_array *out = scalar_out();
    static const struct {
        int n;
        float offset;
        double gain;
        int delta;
    } calls[] = { { 8, 0, 1, 1 }, { 8, 1, 1, 0 }, { 8, 0, 2, 0 }, { 12, 0, 1, 1 }, { 16, 0, 1, 1 } };
    for (size_t i = 0; i < 5; i++) {
        sts_fn_call_info in;
        double v = call_score(fn, calls[i].n, calls[i].offset, calls[i].gain, out, &in);
        T_NEAR(v, score_ref(calls[i].n, calls[i].offset, calls[i].gain), 0, 2e-5);
        T_EQ_I64(in.traces, calls[i].delta);
        T_EQ_I64(in.hit, !calls[i].delta);
        T_TRUE(in.total_ns > 0);
        if (calls[i].delta) T_TRUE(in.trace_ns >= 0 && in.compile_ns >= 0);
    }
    /* The closed forms the lesson states. */
    T_NEAR(score_ref(8, 0, 1), 140, 0, 0);
    T_NEAR(score_ref(8, 1, 1), 204, 0, 0);
    T_NEAR(score_ref(8, 0, 2), 560, 0, 0);
    T_NEAR(score_ref(12, 0, 1), 506, 0, 0);
    T_NEAR(score_ref(16, 0, 1), 1240, 0, 0);
    T_EQ_U64(sts_fn_specializations(fn), 3);
    sts_ledger_fn_info info;
    T_EQ_I64(sts_ledger_function(l, 0, &info), STS_OK);
    T_EQ_I64(info.calls, 5);
    T_EQ_I64(info.traces, 3);
    T_EQ_I64(info.hits, 2);
    T_EQ_STR(sts_ledger_function_signature(l, 0, 0), "x: float32[8], gain: float32 (dynamic), out: float32[1]");
    sts_ledger_row r;
    sts_ledger_row_get(l, 2, &r);
    T_TRUE(r.call.has_result);
    T_NEAR(r.call.result, 560, 0, 2e-5);
    /* Every result read is a recorded scalar conversion. */
    T_EQ_U64(sts_ledger_sync_count(l), 5);
    sts_fn_free(fn);
    sts_array_free(out);
    sts_ledger_free(l);
}

TEST(new_dynamic_values_never_respecialize)
{
    NEED_DEVICE();
    sts_ledger *l = sts_ledger_create();
    sts_fn *fn = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_fn_spec spec = { "score", SCORE_SRC, NULL, NULL, SCORE_PARAMS, 3, -1, 2, NULL };
    T_EQ_I64(sts_fn_create(dev, &spec, l, &fn, &err), STS_OK);
    sts_array *out = scalar_out();
    int traces = 0;
    for (int g = 1; g <= 20; g++) {
        sts_fn_call_info in;
        double v = call_score(fn, 8, 0, g * 0.25, out, &in);
        T_NEAR(v, score_ref(8, 0, g * 0.25), 0, 2e-5);
        traces += in.traces;
    }
    T_EQ_I64(traces, 1);
    T_EQ_U64(sts_fn_specializations(fn), 1);
    sts_fn_free(fn);
    sts_array_free(out);
    sts_ledger_free(l);
}

static const char BRANCH_SRC[] = "__kernel void branch_score(__global const X_T *x, __global float *out)\n"
                                 "{\n"
                                 "    float acc = 0.0f;\n"
                                 "    for (int i = 0; i < X_SIZE; i++)\n"
                                 "#if SQUARE\n"
                                 "        acc += x[i] * x[i];\n"
                                 "#else\n"
                                 "        acc += x[i];\n"
                                 "#endif\n"
                                 "    out[0] = acc;\n"
                                 "}\n";

TEST(changed_static_values_respecialize)
{
    NEED_DEVICE();
    static const sts_fn_param params[] = {
        { "x", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
        { "square", STS_PARAM_STATIC, STS_DTYPE_F32, STS_STATIC_BOOL, NULL },
        { "out", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
    };
    sts_ledger *l = sts_ledger_create();
    sts_fn *fn = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_fn_spec spec = { "branch_score", BRANCH_SRC, NULL, NULL, params, 3, -1, 2, NULL };
    T_EQ_I64(sts_fn_create(dev, &spec, l, &fn, &err), STS_OK);
    sts_array *x = range(8, 0), *out = scalar_out();
    static const int square[] = { 1, 1, 0, 1 };
    static const int delta[] = { 1, 0, 1, 0 };
    for (int i = 0; i < 4; i++) {
        sts_fn_arg args[3] = { { x, 0, NULL }, { NULL, square[i], NULL }, { out, 0, NULL } };
        sts_fn_call_info in;
        T_EQ_I64(sts_fn_call(fn, args, 3, NULL, STS_FN_RESULT, NULL, &in, &err), STS_OK);
        T_NEAR(in.result, square[i] ? 140 : 28, 0, 0); /* sum i^2 and sum i over i < 8 */
        T_EQ_I64(in.traces, delta[i]);
    }
    T_EQ_U64(sts_fn_specializations(fn), 2);
    T_EQ_STR(sts_ledger_function_signature(l, 0, 1), "x: float32[8], square=False (static), out: float32[1]");
    sts_fn_free(fn);
    sts_array_free(x);
    sts_array_free(out);
    sts_ledger_free(l);
}

TEST(static_values_are_checked)
{
    NEED_DEVICE();
    static const char *const modes[] = { "sum", "sumsq", NULL };
    sts_fn_param params[3] = {
        { "x", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
        { "mode", STS_PARAM_STATIC, STS_DTYPE_F32, STS_STATIC_ENUM, modes },
        { "out", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
    };
    sts_ledger *l = sts_ledger_create();
    sts_fn *fn = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_fn_spec spec = { "modal", "__kernel void modal(void) {}", NULL, NULL, params, 3, -1, 2, NULL };
    T_EQ_I64(sts_fn_create(dev, &spec, l, &fn, &err), STS_OK);
    sts_array *x = range(4, 0), *out = scalar_out();
    sts_fn_arg args[3] = { { x, 0, NULL }, { NULL, 0, "max" }, { out, 0, NULL } };
    T_EQ_I64(sts_fn_call(fn, args, 3, NULL, 0, NULL, NULL, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "'mode' is 'max'; expected one of: sum, sumsq");
    args[0].array = NULL;
    T_EQ_I64(sts_fn_call(fn, args, 3, NULL, 0, NULL, NULL, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "argument 0 ('x') must be an array");
    T_EQ_I64(sts_fn_call(fn, args, 2, NULL, 0, NULL, NULL, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "called with 2 arguments; it takes 3");
    T_EQ_U64(sts_ledger_row_count(l), 0); /* refused calls make no rows */
    sts_fn_free(fn);
    /* Bad specs are refused at creation. */
    sts_fn_spec bad = spec;
    bad.grid = 1;
    T_EQ_I64(sts_fn_create(dev, &bad, l, &fn, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "grid must name an array parameter");
    bad = spec;
    bad.name = "not an identifier";
    T_EQ_I64(sts_fn_create(dev, &bad, l, &fn, &err), STS_ERR_INVALID_ARG);
    params[2].name = "x";
    bad = spec;
    T_EQ_I64(sts_fn_create(dev, &bad, l, &fn, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "parameter 'x' appears twice");
    params[1].choices = NULL;
    params[2].name = "out";
    T_EQ_I64(sts_fn_create(dev, &bad, l, &fn, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "needs its choices");
    sts_array_free(x);
    sts_array_free(out);
    sts_ledger_free(l);
}

/* "if gain > 1:" while specializing: gain is dynamic. */
static sts_status host_branch(sts_fn_trace *t, void *user, sts_error *err)
{
    (void)user;
    double gain;
    sts_status st = sts_fn_trace_host_value(t, "gain", &gain, err);
    if (st != STS_OK) return st;
    return sts_fn_trace_emit(t, "__kernel void broken(void) {}", err);
}

TEST(host_branch_on_a_dynamic_value_is_a_named_error)
{
    NEED_DEVICE();
    sts_ledger *l = sts_ledger_create();
    sts_fn *fn = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_fn_spec spec = { "broken", NULL, host_branch, NULL, SCORE_PARAMS, 3, -1, 2, NULL };
    T_EQ_I64(sts_fn_create(dev, &spec, l, &fn, &err), STS_OK);
    sts_array *x = range(8, 0), *out = scalar_out();
    sts_fn_arg args[3] = { { x, 0, NULL }, { NULL, 2.0, NULL }, { out, 0, NULL } };
    T_EQ_I64(sts_fn_call(fn, args, 3, NULL, STS_FN_RESULT, NULL, NULL, &err), STS_ERR_DYNAMIC_BRANCH);
    T_EQ_STR(sts_status_name(err.code), "STS_ERR_DYNAMIC_BRANCH");
    T_CONTAINS(err.message, "dynamic argument 'gain'");
    T_CONTAINS(err.message, "TracerBoolConversionError");
    T_CONTAINS(err.message, "Select on the device");
    T_EQ_U64(sts_fn_specializations(fn), 0);
    T_EQ_U64(sts_ledger_row_count(l), 0);
    sts_fn_free(fn);
    sts_array_free(x);
    sts_array_free(out);
    sts_ledger_free(l);
}

/* Runs one call with STEPSCOPE_LOG_COMPILES=1 and stderr captured into buf. */
static void logged_call(sts_fn *fn, sts_array *out, sts_fn_call_info *in, char *buf, size_t cap)
{
    char path[256];
    snprintf(path, sizeof path, "%s/sts_spec_log_%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    dup2(fd, 2);
    setenv("STEPSCOPE_LOG_COMPILES", "1", 1);
    call_score(fn, 8, 0, 1, out, in);
    unsetenv("STEPSCOPE_LOG_COMPILES");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
    remove(path);
}

TEST(log_compiles_and_the_program_cache)
{
    NEED_DEVICE();
    sts_ledger *l = sts_ledger_create();
    sts_fn *a = NULL, *b = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_fn_spec spec = { "score", SCORE_SRC, NULL, NULL, SCORE_PARAMS, 3, -1, 2, NULL };
    T_EQ_I64(sts_fn_create(dev, &spec, l, &a, &err), STS_OK);
    T_EQ_I64(sts_fn_create(dev, &spec, l, &b, &err), STS_OK);
    sts_array *out = scalar_out();
    sts_fn_call_info in;
    call_score(a, 8, 0, 1, out, &in); /* builds (or the device cache already has it) */
    char log[2048];
    logged_call(b, out, &in, log, sizeof log);
    /* b traces its own first call, but the device already built that exact source. */
    T_EQ_I64(in.traces, 1);
    T_EQ_I64(in.compiles, 0);
    T_CONTAINS(log,
               "stepscope: Finished tracing score for x: float32[8], gain: float32 (dynamic), out: float32[1] in ");
    T_CONTAINS(log, "stepscope: Finished compiling score in ");
    T_CONTAINS(log, "program cache already held it");
    logged_call(b, out, &in, log, sizeof log); /* a hit logs nothing */
    T_EQ_STR(log, "");
    sts_fn_free(a);
    sts_fn_free(b);
    sts_array_free(out);
    sts_ledger_free(l);
}

TEST(build_errors_make_no_specialization)
{
    NEED_DEVICE();
    sts_ledger *l = sts_ledger_create();
    sts_fn *fn = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_fn_spec spec = { "score",      "__kernel void score(__global float *x, float g, __global float *o) { nope; }",
                         NULL,         NULL,
                         SCORE_PARAMS, 3,
                         -1,           2,
                         NULL };
    T_EQ_I64(sts_fn_create(dev, &spec, l, &fn, &err), STS_OK);
    sts_array *out = scalar_out();
    sts_array *x = range(4, 0);
    sts_fn_arg args[3] = { { x, 0, NULL }, { NULL, 1, NULL }, { out, 0, NULL } };
    T_EQ_I64(sts_fn_call(fn, args, 3, NULL, 0, NULL, NULL, &err), STS_ERR_BUILD);
    T_EQ_U64(sts_fn_specializations(fn), 0);
    T_EQ_U64(sts_ledger_row_count(l), 0);
    sts_fn_free(fn);
    sts_array_free(x);
    sts_array_free(out);
    sts_ledger_free(l);
}

TEST(host_syncs_are_recorded)
{
    NEED_DEVICE();
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    sts_array *x = range(4, 1), *one = range(1, 7);
    float host[4];
    double v = 0;
    T_EQ_I64(sts_ledger_read(l, "read x", "loop", x, host, sizeof host, &err), STS_OK);
    T_NEAR(host[3], 4, 0, 0);
    T_EQ_I64(sts_ledger_scalar(l, "metric", "loop", one, &v, &err), STS_OK);
    T_NEAR(v, 7, 0, 0);
    T_EQ_I64(sts_ledger_wait(l, "final", "end", &x, 1, &err), STS_OK);
    T_EQ_I64(sts_ledger_scalar(l, "not a scalar", "loop", x, &v, &err), STS_ERR_SHAPE);
    T_CONTAINS(err.message, "one-element array, got 4 elements");
    T_EQ_U64(sts_ledger_sync_count(l), 3);
    sts_ledger_sync s;
    sts_ledger_sync_get(l, 1, &s);
    T_EQ_STR(s.label, "metric");
    T_EQ_I64(s.kind, STS_SYNC_SCALAR);
    T_TRUE(s.wait_ns >= 0);
    sts_ledger_sync_scope sc;
    sts_ledger_sync_scope_get(l, 0, &sc);
    T_EQ_STR(sc.scope, "loop");
    T_EQ_I64(sc.reads, 1);
    T_EQ_I64(sc.scalars, 1);
    sts_array_free(x);
    sts_array_free(one);
    sts_ledger_free(l);
}

int main(void)
{
    sts_error err = STS_ERROR_INIT;
    if (sts_device_open(NULL, &dev, &err) != STS_OK) {
        printf("  (no device: %s)\n", err.message);
        dev = NULL;
    }
    RUN(lesson2_values_and_trace_deltas);
    RUN(new_dynamic_values_never_respecialize);
    RUN(changed_static_values_respecialize);
    RUN(static_values_are_checked);
    RUN(host_branch_on_a_dynamic_value_is_a_named_error);
    RUN(log_compiles_and_the_program_cache);
    RUN(build_errors_make_no_specialization);
    RUN(host_syncs_are_recorded);
    sts_device_free(dev);
    return t_done();
}
