/* `stepscope demo retrace`: lesson 2 end to end on the default device.
 *
 * score(x, gain) = sum((x*gain)^2) is a specialized function: x's shape joins its key,
 * gain is a dynamic scalar. The ledger records each call's trace and compile deltas;
 * the checks compare every number with its closed form. Then a static branch, a
 * device-resident update loop read each step against one final wait, a padded batch
 * with and without its mask, and the misuse (branching on the host on a dynamic
 * value) with its fix. Writes <out>/ledger.json (docs/ledger.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"

typedef struct retrace {
    sts_device *dev;
    sts_ledger *l;
    sts_error err;
    FILE *checks; /* JSON array members, written as checks run */
    char *checks_buf;
    size_t checks_len;
    int nchecks, failed;
    int json;
} retrace;

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Records one check of a measured value against its closed form. */
static void check(retrace *r, const char *name, double value, double expected, const char *formula, double rtol)
{
    int ok = fabs(value - expected) <= rtol * fabs(expected) + 1e-6;
    r->failed += !ok;
    if (!r->json)
        printf("  %s %-44s %12.6g   expected %.6g = %s\n", ok ? "ok  " : "FAIL", name, value, expected, formula);
    fprintf(r->checks, "%s{\"name\": ", r->nchecks++ ? ", " : "");
    json_str(r->checks, name);
    fprintf(r->checks, ", \"value\": %.17g, \"expected\": %.17g, \"formula\": ", value, expected);
    json_str(r->checks, formula);
    fprintf(r->checks, ", \"ok\": %s}", ok ? "true" : "false");
}

static int fail(retrace *r, const char *what)
{
    fprintf(stderr, "stepscope demo retrace: %s: %s\n", what,
            r->err.message[0] ? r->err.message : sts_strerror(r->err.code));
    return CLI_BAD_INPUT;
}

/* A 1-D array holding `n` values, written and ready. */
static sts_array *array_of(retrace *r, sts_dtype dt, size_t n, const void *values)
{
    int64_t shape[1] = { (int64_t)n };
    sts_array *a = NULL;
    if (sts_array_create(r->dev, dt, 1, shape, &a, &r->err) != STS_OK) return NULL;
    sts_event *ev = NULL;
    if (sts_array_write(a, values, n * 4, &ev, &r->err) != STS_OK || sts_event_wait(ev, &r->err) != STS_OK) {
        sts_event_release(ev);
        sts_array_free(a);
        return NULL;
    }
    sts_event_release(ev);
    return a;
}

static sts_array *range(retrace *r, size_t n, float offset)
{
    float v[64];
    for (size_t i = 0; i < n && i < 64; i++)
        v[i] = (float)i + offset;
    return array_of(r, STS_DTYPE_F32, n, v);
}

static void print_call(retrace *r, const char *label, const sts_fn_call_info *in)
{
    if (r->json) return;
    printf("  %-36s trace +%d  compile +%d  %-5s  result %g\n", label, in->traces, in->compiles,
           in->hit ? "reuse" : "new", in->result);
}

/* ---- score(x, gain) = sum((x*gain)^2) ---------------------------------------------- */

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

/* sum_{i<n} ((i + offset) * gain)^2, computed on the host in double. */
static double score_ref(int n, double offset, double gain)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += ((i + offset) * gain) * ((i + offset) * gain);
    return s;
}

static int score_calls(retrace *r, sts_array *out)
{
    sts_fn *fn = NULL;
    sts_fn_spec spec = { "score", SCORE_SRC, NULL, NULL, SCORE_PARAMS, 3, -1, 2, NULL };
    if (sts_fn_create(r->dev, &spec, r->l, &fn, &r->err) != STS_OK) return fail(r, "score");
    static const struct {
        const char *label;
        int n;
        float offset, gain;
        int delta;
        const char *formula;
    } calls[] = {
        { "initial signature", 8, 0, 1, 1, "sum_{i<8} i^2" },
        { "same signature, changed data", 8, 1, 1, 0, "sum_{i<8} (i+1)^2" },
        { "same signature, changed dynamic gain", 8, 0, 2, 0, "4 sum_{i<8} i^2" },
        { "different input shape", 12, 0, 1, 1, "sum_{i<12} i^2" },
        { "new length sixteen", 16, 0, 1, 1, "sum_{i<16} i^2" },
    };
    int rc = CLI_OK;
    if (!r->json) printf("score(x, gain) = sum((x*gain)^2): x's shape is static, gain is dynamic\n");
    for (size_t i = 0; i < sizeof calls / sizeof calls[0] && rc == CLI_OK; i++) {
        sts_array *x = range(r, (size_t)calls[i].n, calls[i].offset);
        if (!x) {
            rc = fail(r, "score input");
            break;
        }
        sts_fn_arg args[3] = { { x, 0, NULL }, { NULL, calls[i].gain, NULL }, { out, 0, NULL } };
        sts_fn_call_info in;
        if (sts_fn_call(fn, args, 3, calls[i].label, STS_FN_RESULT, NULL, &in, &r->err) != STS_OK)
            rc = fail(r, calls[i].label);
        else {
            print_call(r, calls[i].label, &in);
            char name[96];
            snprintf(name, sizeof name, "score: %s", calls[i].label);
            check(r, name, in.result, score_ref(calls[i].n, calls[i].offset, calls[i].gain), calls[i].formula, 2e-5);
            snprintf(name, sizeof name, "trace delta: %s", calls[i].label);
            check(r, name, in.traces, calls[i].delta, calls[i].delta ? "a new shape traces" : "no new shape", 0);
        }
        sts_array_free(x);
    }
    sts_fn_free(fn);
    return rc;
}

/* ---- a static branch ------------------------------------------------------------------ */

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

static int static_branch(retrace *r, sts_array *out)
{
    static const sts_fn_param params[] = {
        { "x", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
        { "square", STS_PARAM_STATIC, STS_DTYPE_F32, STS_STATIC_BOOL, NULL },
        { "out", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
    };
    sts_fn *fn = NULL;
    sts_fn_spec spec = { "branch_score", BRANCH_SRC, NULL, NULL, params, 3, -1, 2, NULL };
    sts_array *x = range(r, 8, 0);
    if (!x || sts_fn_create(r->dev, &spec, r->l, &fn, &r->err) != STS_OK) {
        sts_array_free(x);
        return fail(r, "branch_score");
    }
    if (!r->json) printf("branch_score(x, square): square is static, so each value is its own specialization\n");
    static const int squares[] = { 1, 1, 0 };
    int rc = CLI_OK;
    for (int i = 0; i < 3 && rc == CLI_OK; i++) {
        sts_fn_arg args[3] = { { x, 0, NULL }, { NULL, squares[i], NULL }, { out, 0, NULL } };
        sts_fn_call_info in;
        const char *label = squares[i] ? "square=True" : "square=False";
        if (sts_fn_call(fn, args, 3, label, STS_FN_RESULT, NULL, &in, &r->err) != STS_OK)
            rc = fail(r, label);
        else {
            print_call(r, label, &in);
            check(r, squares[i] ? "branch: sum(x^2)" : "branch: sum(x)", in.result, squares[i] ? 140 : 28,
                  squares[i] ? "sum_{i<8} i^2" : "sum_{i<8} i", 0);
        }
    }
    if (rc == CLI_OK) check(r, "branch specializations", (double)sts_fn_specializations(fn), 2, "two static values", 0);
    sts_fn_free(fn);
    sts_array_free(x);
    return rc;
}

/* ---- v = 0.9 v + 1, read each step against one final wait ------------------------------ */

static const char UPDATE_SRC[] = "__kernel void update(__global V_T *v) { v[0] = 0.9f * v[0] + 1.0f; }\n";

typedef struct loop_result {
    double value;
    int64_t ns;
} loop_result;

#include <time.h>
static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int run_loop(retrace *r, sts_fn *fn, sts_array *v, int read_each, loop_result *res)
{
    const float zero = 0.0f;
    sts_event *ev = NULL;
    if (sts_array_write(v, &zero, 4, &ev, &r->err) != STS_OK || sts_event_wait(ev, &r->err) != STS_OK) {
        sts_event_release(ev);
        return fail(r, "update input");
    }
    sts_event_release(ev);
    const char *scope = read_each ? "read each step" : "one final wait";
    sts_fn_arg args[1] = { { v, 0, NULL } };
    int64_t t0 = now_ns();
    for (int step = 0; step < 6; step++) {
        char label[64];
        snprintf(label, sizeof label, "%s, step %d", read_each ? "read each step" : "final wait", step + 1);
        if (sts_fn_call(fn, args, 1, label, 0, NULL, NULL, &r->err) != STS_OK) return fail(r, "update");
        double metric;
        if (read_each && sts_ledger_scalar(r->l, label, scope, v, &metric, &r->err) != STS_OK)
            return fail(r, "metric read");
    }
    if (sts_ledger_wait(r->l, "final wait", scope, &v, 1, &r->err) != STS_OK) return fail(r, "final wait");
    res->ns = now_ns() - t0;
    /* Reading the answer for the check is outside the timed region and its own scope. */
    if (sts_ledger_scalar(r->l, "check the final value", "checks", v, &res->value, &r->err) != STS_OK)
        return fail(r, "final read");
    return CLI_OK;
}

static int update_loop(retrace *r, loop_result out[2])
{
    static const sts_fn_param params[] = { { "v", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL } };
    sts_fn *fn = NULL;
    sts_fn_spec spec = { "update", UPDATE_SRC, NULL, NULL, params, 1, -1, -1, NULL };
    int64_t shape[1] = { 1 };
    sts_array *v = NULL;
    if (sts_array_create(r->dev, STS_DTYPE_F32, 1, shape, &v, &r->err) != STS_OK ||
        sts_fn_create(r->dev, &spec, r->l, &fn, &r->err) != STS_OK) {
        sts_array_free(v);
        return fail(r, "update");
    }
    /* Compile before timing, as the lesson does with update(initial).block_until_ready(). */
    sts_fn_arg args[1] = { { v, 0, NULL } };
    int rc =
        sts_fn_call(fn, args, 1, "warm-up", STS_FN_WAIT, NULL, NULL, &r->err) == STS_OK ? CLI_OK : fail(r, "warm-up");
    if (rc == CLI_OK) rc = run_loop(r, fn, v, 1, &out[0]);
    if (rc == CLI_OK) rc = run_loop(r, fn, v, 0, &out[1]);
    if (rc == CLI_OK) {
        double ref = 10.0 * (1.0 - pow(0.9, 6));
        check(r, "v after 6 steps, read each step", out[0].value, ref, "10 (1 - 0.9^6)", 2e-5);
        check(r, "v after 6 steps, one final wait", out[1].value, ref, "10 (1 - 0.9^6)", 2e-5);
        if (!r->json)
            printf("  read each step: %.1f us for 6 steps; one final wait: %.1f us (both recorded, no order "
                   "expected)\n",
                   (double)out[0].ns / 1e3, (double)out[1].ns / 1e3);
    }
    sts_fn_free(fn);
    sts_array_free(v);
    return rc;
}

/* ---- a padded batch with its mask --------------------------------------------------------- */

static const char MASKED_SRC[] =
    "__kernel void masked_score(__global const VALUES_T *values, __global const MASK_T *mask, __global float *out)\n"
    "{\n"
    "    float acc = 0.0f;\n"
    "    for (int i = 0; i < VALUES_SIZE; i++) {\n"
    "        float v = values[i] + 1.0f;\n"
    "        acc += mask[i] ? v * v : 0.0f;\n"
    "    }\n"
    "    out[0] = acc;\n"
    "}\n";

static const char UNMASKED_SRC[] = "__kernel void padded_score(__global const VALUES_T *values, __global float *out)\n"
                                   "{\n"
                                   "    float acc = 0.0f;\n"
                                   "    for (int i = 0; i < VALUES_SIZE; i++) {\n"
                                   "        float v = values[i] + 1.0f;\n"
                                   "        acc += v * v;\n"
                                   "    }\n"
                                   "    out[0] = acc;\n"
                                   "}\n";

static int padded_batch(retrace *r, sts_array *out)
{
    static const sts_fn_param mp[] = { { "values", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
                                       { "mask", STS_PARAM_ARRAY, STS_DTYPE_I32, STS_STATIC_INT, NULL },
                                       { "out", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL } };
    static const sts_fn_param up[] = { { "values", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL },
                                       { "out", STS_PARAM_ARRAY, STS_DTYPE_F32, STS_STATIC_INT, NULL } };
    const float padded[8] = { 0, 1, 2, 3, 4, 0, 0, 0 };
    const int32_t mask[8] = { 1, 1, 1, 1, 1, 0, 0, 0 };
    sts_fn *masked = NULL, *plain = NULL;
    sts_fn_spec ms = { "masked_score", MASKED_SRC, NULL, NULL, mp, 3, -1, 2, NULL };
    sts_fn_spec ps = { "padded_score", UNMASKED_SRC, NULL, NULL, up, 2, -1, 1, NULL };
    sts_array *v = array_of(r, STS_DTYPE_F32, 8, padded), *m = array_of(r, STS_DTYPE_I32, 8, mask);
    int rc = CLI_OK;
    sts_fn_call_info a, b;
    if (!v || !m || sts_fn_create(r->dev, &ms, r->l, &masked, &r->err) != STS_OK ||
        sts_fn_create(r->dev, &ps, r->l, &plain, &r->err) != STS_OK)
        rc = fail(r, "padded batch");
    sts_fn_arg margs[3] = { { v, 0, NULL }, { m, 0, NULL }, { out, 0, NULL } };
    sts_fn_arg pargs[2] = { { v, 0, NULL }, { out, 0, NULL } };
    if (rc == CLI_OK &&
        (sts_fn_call(masked, margs, 3, "5 values padded to 8, masked", STS_FN_RESULT, NULL, &a, &r->err) != STS_OK ||
         sts_fn_call(plain, pargs, 2, "5 values padded to 8, no mask", STS_FN_RESULT, NULL, &b, &r->err) != STS_OK))
        rc = fail(r, "padded batch");
    if (rc == CLI_OK) {
        check(r, "padded batch, masked", a.result, score_ref(5, 1, 1), "sum_{i<5} (i+1)^2", 0);
        check(r, "padded batch, unmasked", b.result, score_ref(5, 1, 1) + 3, "masked + 3 (three pads of (0+1)^2)", 0);
    }
    sts_fn_free(masked);
    sts_fn_free(plain);
    sts_array_free(v);
    sts_array_free(m);
    return rc;
}

/* ---- misuse: a host branch on a dynamic value, and the fix -------------------------------- */

static sts_status broken_trace(sts_fn_trace *t, void *user, sts_error *err)
{
    (void)user;
    double gain;
    /* "if gain > 1:" on the host: gain is dynamic, so this fails. */
    sts_status st = sts_fn_trace_host_value(t, "gain", &gain, err);
    if (st != STS_OK) return st;
    return sts_fn_trace_emit(t, gain > 1 ? "/* sum of squares */" : "/* sum */", err);
}

static const char REPAIRED_SRC[] = "__kernel void repaired(__global const X_T *x, GAIN_T gain, __global float *out)\n"
                                   "{\n"
                                   "    float sq = 0.0f, s = 0.0f;\n"
                                   "    for (int i = 0; i < X_SIZE; i++) {\n"
                                   "        sq += x[i] * x[i];\n"
                                   "        s += x[i];\n"
                                   "    }\n"
                                   "    out[0] = gain > 1.0f ? sq : s; /* the choice is made on the device */\n"
                                   "}\n";

typedef struct misuse {
    sts_status status;
    char message[512];
    double fixed[2];
} misuse;

static int dynamic_branch(retrace *r, sts_array *out, misuse *mu)
{
    sts_fn *broken = NULL, *fixed = NULL;
    sts_fn_spec bs = { "broken_branch", NULL, broken_trace, NULL, SCORE_PARAMS, 3, -1, 2, NULL };
    sts_fn_spec fs = { "repaired", REPAIRED_SRC, NULL, NULL, SCORE_PARAMS, 3, -1, 2, NULL };
    sts_array *x = range(r, 8, 0);
    int rc = CLI_OK;
    if (!x || sts_fn_create(r->dev, &bs, r->l, &broken, &r->err) != STS_OK ||
        sts_fn_create(r->dev, &fs, r->l, &fixed, &r->err) != STS_OK)
        rc = fail(r, "misuse setup");
    sts_fn_arg args[3] = { { x, 0, NULL }, { NULL, 2.0, NULL }, { out, 0, NULL } };
    sts_error e = STS_ERROR_INIT;
    if (rc == CLI_OK) {
        mu->status = sts_fn_call(broken, args, 3, "host branch on gain", STS_FN_RESULT, NULL, NULL, &e);
        snprintf(mu->message, sizeof mu->message, "%s", e.message);
        check(r, "misuse fails with STS_ERR_DYNAMIC_BRANCH", mu->status == STS_ERR_DYNAMIC_BRANCH, 1, "the named error",
              0);
        if (!r->json) printf("  %s: %s\n", sts_status_name(mu->status), mu->message);
    }
    static const double gains[2] = { 0.5, 2.0 };
    static const double expect[2] = { 28, 140 };
    for (int i = 0; i < 2 && rc == CLI_OK; i++) {
        args[1].number = gains[i];
        sts_fn_call_info in;
        if (sts_fn_call(fixed, args, 3, gains[i] > 1 ? "device select, gain 2" : "device select, gain 0.5",
                        STS_FN_RESULT, NULL, &in, &r->err) != STS_OK)
            rc = fail(r, "repaired");
        else {
            mu->fixed[i] = in.result;
            check(r, gains[i] > 1 ? "fixed: gain 2 selects sum(x^2)" : "fixed: gain 0.5 selects sum(x)", in.result,
                  expect[i], gains[i] > 1 ? "sum_{i<8} i^2" : "sum_{i<8} i", 0);
        }
    }
    if (rc == CLI_OK)
        check(r, "fixed: one specialization for both gains", (double)sts_fn_specializations(fixed), 1,
              "gain is dynamic", 0);
    sts_fn_free(broken);
    sts_fn_free(fixed);
    sts_array_free(x);
    return rc;
}

/* ---- output ------------------------------------------------------------------------------- */

static char *extra_json(retrace *r, const loop_result loops[2], const misuse *mu)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fflush(r->checks);
    fprintf(f, "{\"lesson\": \"retrace\", \"device\": ");
    json_str(f, sts_device_get_info(r->dev)->name);
    fprintf(f, ", \"checks\": [%.*s], \"failed\": %d, ", (int)r->checks_len, r->checks_buf, r->failed);
    fprintf(f, "\"metric_loop\": {\"steps\": 6, \"read_each_step_ns\": %lld, \"read_each_step_value\": %.9g, ",
            (long long)loops[0].ns, loops[0].value);
    fprintf(f, "\"one_final_wait_ns\": %lld, \"one_final_wait_value\": %.9g, \"expected\": %.9g}, ",
            (long long)loops[1].ns, loops[1].value, 10.0 * (1.0 - pow(0.9, 6)));
    fprintf(f, "\"misuse\": {\"status\": ");
    json_str(f, sts_status_name(mu->status));
    fprintf(f, ", \"message\": ");
    json_str(f, mu->message);
    fprintf(f, ", \"fixed_results\": [%.9g, %.9g]}}", mu->fixed[0], mu->fixed[1]);
    fclose(f);
    return buf;
}

static int write_outputs(retrace *r, const demo_ctx *ctx, const loop_result loops[2], const misuse *mu)
{
    char *extra = extra_json(r, loops, mu);
    char path[4096];
    snprintf(path, sizeof path, "%s/ledger.json", ctx->out_dir);
    /* Whole or not at all: a failed write leaves an earlier ledger.json intact. */
    sts_outfile *f = NULL;
    int rc = CLI_OK;
    if (sts_outfile_open(path, &f, &r->err) != STS_OK) {
        rc = fail(r, "writing the ledger");
    } else if (sts_ledger_write_json(r->l, sts_outfile_stream(f), "demo", extra, &r->err) != STS_OK) {
        sts_outfile_abandon(f, &r->err);
        rc = fail(r, "writing the ledger");
    } else if (sts_outfile_commit(f, &r->err) != STS_OK) {
        rc = fail(r, "writing the ledger");
    }
    if (rc == CLI_OK && ctx->json)
        sts_ledger_write_json(r->l, stdout, "demo", extra, &r->err);
    else if (rc == CLI_OK) {
        printf("\n");
        sts_ledger_write_text(r->l, stdout, &r->err);
        printf("\nwrote %s\n", path);
    }
    free(extra);
    return rc;
}

static int run(retrace *r, const demo_ctx *ctx)
{
    int64_t one[1] = { 1 };
    sts_array *out = NULL;
    if (sts_array_create(r->dev, STS_DTYPE_F32, 1, one, &out, &r->err) != STS_OK) return fail(r, "output array");
    loop_result loops[2] = { { 0, 0 }, { 0, 0 } };
    misuse mu = { STS_OK, "", { 0, 0 } };
    int rc = score_calls(r, out);
    if (rc == CLI_OK) rc = static_branch(r, out);
    if (rc == CLI_OK && !r->json) printf("v = 0.9 v + 1, six steps from 0, on the device\n");
    if (rc == CLI_OK) rc = update_loop(r, loops);
    if (rc == CLI_OK && !r->json) printf("a batch of 5 padded to 8\n");
    if (rc == CLI_OK) rc = padded_batch(r, out);
    if (rc == CLI_OK && !r->json) printf("misuse: choosing a branch on the host from a dynamic value\n");
    if (rc == CLI_OK) rc = dynamic_branch(r, out, &mu);
    sts_array_free(out);
    if (rc == CLI_OK) rc = write_outputs(r, ctx, loops, &mu);
    return rc;
}

int demo_retrace(const demo_ctx *ctx)
{
    retrace r;
    memset(&r, 0, sizeof r);
    sts_error_clear(&r.err);
    r.json = ctx->json;
    r.checks = open_memstream(&r.checks_buf, &r.checks_len);
    if (!r.checks) return cli_fail(CLI_BAD_INPUT, "demo retrace: out of memory");
    int rc;
    if (sts_device_open(NULL, &r.dev, &r.err) != STS_OK)
        rc = fail(&r, "no device");
    else if (!(r.l = sts_ledger_create()))
        rc = cli_fail(CLI_BAD_INPUT, "demo retrace: out of memory");
    else {
        if (!r.json)
            printf("lesson 2: recompilation and host synchronization (device: %s)\n", sts_device_get_info(r.dev)->name);
        rc = run(&r, ctx);
    }
    if (rc == CLI_OK && r.failed) {
        fprintf(stderr, "stepscope demo retrace: %d check(s) failed\n", r.failed);
        rc = CLI_BAD_INPUT;
    }
    sts_ledger_free(r.l);
    sts_device_free(r.dev);
    fclose(r.checks);
    free(r.checks_buf);
    return rc;
}
