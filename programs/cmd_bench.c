/* `stepscope bench [predict|energy|structured]`: lesson 1's workload on an OpenCL
 * device, with the boundary drawn correctly (docs/bench.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct bench_args {
    int rows, features, outputs;
    const char *input_shape, *weight_shape;
    int repeats, warmup, dispatch, seed;
    const char *device, *out, *matmul;
    int json, list;
    const char *atol_text, *rtol_text; /* NULL: the workload's own tolerances */
    double atol, rtol;                 /* parsed by check_counts */
} bench_args;

/* "64x32" or "64,32" into two dimensions. */
static int parse_pair(const char *s, long long *a, long long *b)
{
    char *end;
    errno = 0;
    *a = strtoll(s, &end, 10);
    if (errno || end == s || (*end != 'x' && *end != ',')) return 0;
    const char *second = end + 1;
    *b = strtoll(second, &end, 10);
    return !errno && end != second && *end == 0;
}

/* Applies --input-shape / --weight-shape over --rows/--features/--outputs. Returns -1,
 * or CLI_USAGE after printing why. */
static int resolve_shapes(bench_args *a)
{
    long long r = a->rows, f = a->features, f2 = a->features, o = a->outputs;
    if (a->input_shape && !parse_pair(a->input_shape, &r, &f))
        return cli_fail(CLI_USAGE, "bench: --input-shape expects ROWSxFEATURES (e.g. 64x32), got '%s'", a->input_shape);
    if (a->weight_shape && !parse_pair(a->weight_shape, &f2, &o))
        return cli_fail(CLI_USAGE, "bench: --weight-shape expects FEATURESxOUTPUTS (e.g. 32x16), got '%s'",
                        a->weight_shape);
    if (!a->weight_shape) f2 = f;
    if (!a->input_shape && a->weight_shape) f = f2;
    if (f != f2)
        return cli_fail(CLI_USAGE,
                        "bench: input_shape [%lld,%lld] and weight_shape [%lld,%lld] do not match: x @ w needs the "
                        "input's columns (%lld) to equal the weight's rows (%lld)",
                        r, f, f2, o, f, f2);
    if (r < 1 || f < 1 || o < 1 || r > 16384 || f > 16384 || o > 16384)
        return cli_fail(CLI_USAGE, "bench: rows, features and outputs must each be 1..16384 (got %lld, %lld, %lld)", r,
                        f, o);
    a->rows = (int)r, a->features = (int)f, a->outputs = (int)o;
    return -1;
}

/* --atol / --rtol: a finite number >= 0 (-1 once meant "the default", silently, and a
 * NaN or infinity made the check fail or pass every value). Returns -1 (set or left),
 * or CLI_USAGE after printing why. */
static int parse_tolerance(const char *name, const char *text, double *out)
{
    if (!text) return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= 0) || !isfinite(v))
        return cli_fail(CLI_USAGE, "bench: --%s expects a finite number >= 0, got '%s'", name, text);
    *out = v == 0 ? 0 : v; /* -0 prints as 0 */
    return -1;
}

static int check_counts(bench_args *a)
{
    if (a->repeats < 1) return cli_fail(CLI_USAGE, "bench: --repeats must be at least 1 (got %d)", a->repeats);
    if (a->repeats > 100000) return cli_fail(CLI_USAGE, "bench: --repeats is limited to 100000 (got %d)", a->repeats);
    if (a->warmup < 0) return cli_fail(CLI_USAGE, "bench: --warmup must be 0 or more (got %d)", a->warmup);
    if (a->dispatch < -1) return cli_fail(CLI_USAGE, "bench: --dispatch must be -1 (none), 0 (as --repeats) or more");
    if (a->seed < 0) return cli_fail(CLI_USAGE, "bench: --seed must be 0 or more (got %d)", a->seed);
    int rc = parse_tolerance("atol", a->atol_text, &a->atol);
    return rc != -1 ? rc : parse_tolerance("rtol", a->rtol_text, &a->rtol);
}

static int parse_matmul(const char *s, sts_matmul_kind *k)
{
    static const char *const names[] = { "auto", "tiled", "blocked", "naive" };
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) return *k = (sts_matmul_kind)i, 1;
    return 0;
}

/* Prints an error; for a failed kernel build, the compiler's whole log. */
static int runtime_error(sts_device *dev, const sts_error *err)
{
    const char *cut = err->code == STS_ERR_BUILD ? strstr(err->message, "compiler log:\n") : NULL;
    if (!cut || !dev) return cli_report("bench", err);
    cli_say(stderr, "stepscope bench: error: %.*s\n%s\n", (int)(cut - err->message) + 13, err->message,
            sts_device_last_build_log(dev));
    return CLI_BAD_INPUT;
}

static int list_devices(void)
{
    sts_device_info infos[16];
    size_t n = 0;
    sts_error err = STS_ERROR_INIT;
    if (sts_device_list(infos, 16, &n, &err) != STS_OK) return cli_report("bench", &err);
    for (size_t i = 0; i < n && i < 16; i++)
        printf("%zu: %s / %s (%s, %u compute units, OpenCL C %s, driver %s)\n", i, infos[i].platform, infos[i].name,
               infos[i].is_gpu   ? "GPU"
               : infos[i].is_cpu ? "CPU"
                                 : "other",
               infos[i].compute_units, infos[i].opencl_c_version, infos[i].driver_version);
    return CLI_OK;
}

/* The JSON report as a whole file: a failed write leaves an earlier one intact. */
static int write_out(const char *path, const sts_bench_result *r, const sts_bench_env *env)
{
    sts_error err = STS_ERROR_INIT;
    sts_outfile *f = NULL;
    if (sts_outfile_open(path, &f, &err) != STS_OK) return cli_report("bench", &err);
    if (sts_bench_write_json(sts_outfile_stream(f), r, env, NULL, 0, &err) != STS_OK) {
        sts_outfile_abandon(f, &err);
        return cli_report("bench", &err);
    }
    if (sts_outfile_commit(f, &err) != STS_OK) return cli_report("bench", &err);
    return CLI_OK;
}

static int report(const bench_args *a, const sts_bench_result *r, const sts_bench_env *env)
{
    sts_error err = STS_ERROR_INIT;
    if (a->json) {
        if (sts_bench_write_json(stdout, r, env, NULL, 0, &err) != STS_OK) return cli_report("bench", &err);
    } else {
        printf("stepscope bench: %s on %s / %s\n\n", r->name, env->device.platform, env->device.name);
        sts_bench_print(stdout, r);
        printf("\nenvironment\n");
        sts_bench_env_print(stdout, env);
    }
    if (a->out && write_out(a->out, r, env) != CLI_OK) return CLI_BAD_INPUT;
    if (!r->check.passed)
        return cli_fail(CLI_BAD_INPUT,
                        "bench: %s: the result does not match the host reference (max abs error %g, "
                        "atol %g, rtol %g)",
                        r->name, r->check.max_abs_error, r->check.atol, r->check.rtol);
    return CLI_OK;
}

static int run(const bench_args *a, sts_workload_kind kind, sts_matmul_kind mm)
{
    sts_error err = STS_ERROR_INIT;
    sts_device *dev = NULL;
    if (sts_device_open(a->device, &dev, &err) != STS_OK) return cli_report("bench", &err);
    sts_device_set_matmul(dev, mm);
    sts_workload_params p = STS_WORKLOAD_PARAMS_INIT;
    p.kind = kind;
    p.rows = a->rows, p.features = a->features, p.outputs = a->outputs;
    p.seed = (uint64_t)a->seed;
    sts_workload *wl = NULL;
    sts_bench_result *r = NULL;
    int rc = CLI_OK;
    if (sts_workload_create(dev, &p, &wl, &err) == STS_OK) {
        sts_bench_spec spec;
        sts_workload_spec(wl, &spec);
        spec.repeats = a->repeats;
        spec.warmup = a->warmup;
        spec.dispatch_repeats = a->dispatch;
        if (a->atol_text) spec.atol = a->atol;
        if (a->rtol_text) spec.rtol = a->rtol;
        if (sts_bench_run(&spec, &r, &err) == STS_OK) {
            sts_bench_env env;
            sts_bench_env_collect(&env, dev);
            rc = report(a, r, &env);
        } else
            rc = runtime_error(dev, &err);
    } else
        rc = runtime_error(dev, &err);
    sts_bench_result_free(r);
    sts_workload_free(wl);
    sts_device_free(dev);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    static bench_args a;
    a = (bench_args){ 64, 32, 16, NULL, NULL, 7, 0, 0, 4, NULL, NULL, "auto", 0, 0, NULL, NULL, 0, 0 };
    const cli_opt opts[] = {
        { "rows", CLI_INT, &a.rows, "N", "rows of x (default 64)" },
        { "features", CLI_INT, &a.features, "N", "columns of x = rows of w (default 32)" },
        { "outputs", CLI_INT, &a.outputs, "N", "columns of w (default 16)" },
        { "input-shape", CLI_STRING, &a.input_shape, "RxF", "x's shape, instead of --rows/--features" },
        { "weight-shape", CLI_STRING, &a.weight_shape, "FxO", "w's shape, instead of --features/--outputs" },
        { "repeats", CLI_INT, &a.repeats, "N", "synchronized warm samples (default 7)" },
        { "warmup", CLI_INT, &a.warmup, "N", "untimed waited calls after the first (default 0)" },
        { "dispatch", CLI_INT, &a.dispatch, "N", "dispatch-only samples: 0 = as many as --repeats, -1 = none" },
        { "seed", CLI_INT, &a.seed, "N", "seed of the normal inputs (default 4)" },
        { "atol", CLI_STRING, &a.atol_text, "X",
          "absolute tolerance of the check, a finite number >= 0 (default: the lesson's, see docs)" },
        { "rtol", CLI_STRING, &a.rtol_text, "X",
          "relative tolerance of the check, a finite number >= 0 (default 2e-5)" },
        { "device", CLI_STRING, &a.device, "SPEC",
          "OpenCL device: index or name part (default $STEPSCOPE_DEVICE, "
          "else the first GPU, else the first CPU)" },
        { "matmul", CLI_STRING, &a.matmul, "KIND", "matmul kernel: auto, tiled, blocked or naive" },
        { "json", CLI_FLAG, &a.json, NULL, "print the JSON report instead of the table" },
        { "out", CLI_STRING, &a.out, "FILE", "also write the JSON report to FILE" },
        { "list-devices", CLI_FLAG, &a.list, NULL, "list the OpenCL devices and exit" },
        { 0 },
    };
    const cli_spec spec = {
        "bench",
        "[predict|energy|structured] [options]",
        "Benchmark lesson 1's workload on an OpenCL device with the boundary drawn correctly: inputs are\n"
        "placed and waited for before any clock; the first call is timed apart; each warm sample runs\n"
        "from the call to the completed result; the result is checked against a host reference.\n"
        "  predict     y = tanh(x @ w)                  x [64,32], w [32,16] by default\n"
        "  energy      e = sum((x @ w)^2, axis=1)       shape (rows,)\n"
        "  structured  tanh(x @ w) and its mean, waited on as one result\n"
        "Dispatch-only intervals (the call returns a handle, no wait) are reported apart.\n"
        "Exit status 1 also when the result does not match the reference.\n"
        "This times stepscope's own OpenCL version of lesson 1's workload, not your code. To\n"
        "measure your own asynchronous call the same way: the C harness in <stepscope/bench.h>\n"
        "(docs/bench.md), or stepscope.bench / stepscope.jax.bench in Python (python/README.md).",
        opts,
        0,
        1,
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    if (a.list) return (rc = cli_need_opencl("bench")) >= 0 ? rc : list_devices();
    sts_workload_kind kind = STS_WORKLOAD_PREDICT;
    sts_error err = STS_ERROR_INIT;
    if (npos && sts_workload_parse(pos[0], &kind, &err) != STS_OK) return cli_fail(CLI_USAGE, "bench: %s", err.message);
    sts_matmul_kind mm;
    if (!parse_matmul(a.matmul, &mm))
        return cli_fail(CLI_USAGE, "bench: --matmul expects auto, tiled, blocked or naive, got '%s'", a.matmul);
    if ((rc = check_counts(&a)) >= 0 || (rc = resolve_shapes(&a)) >= 0 || (rc = cli_need_opencl("bench")) >= 0)
        return rc;
    return run(&a, kind, mm);
}
