/* `stepscope demo bench`: lesson 1 end to end on the default OpenCL device. Writes
 * <out>/bench.json (schema in docs/bench.md): the main predict report at top level and
 * the other experiments under "variants". */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "demo.h"

#define NVARIANTS 4

typedef struct lesson {
    sts_device *dev;
    sts_bench_env env;
    const demo_ctx *ctx;
    int failed_checks;
} lesson;

static int64_t demo_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs one workload with the given repeats / warmup; prints its table. */
static sts_status run_one(lesson *L, sts_workload_kind kind, int64_t rows, const char *name, const char *boundary,
                          int repeats, int warmup, sts_bench_result **out, sts_error *err)
{
    sts_workload_params p = STS_WORKLOAD_PARAMS_INIT;
    p.kind = kind;
    p.rows = rows;
    sts_workload *wl = NULL;
    sts_status st = sts_workload_create(L->dev, &p, &wl, err);
    if (st != STS_OK) return st;
    sts_bench_spec spec;
    sts_workload_spec(wl, &spec);
    if (name) spec.name = name;
    if (boundary) spec.boundary = boundary;
    spec.repeats = repeats;
    spec.warmup = warmup;
    st = sts_bench_run(&spec, out, err);
    sts_workload_free(wl);
    if (st != STS_OK) return st;
    sts_bench_print(stdout, *out);
    if (!(*out)->check.passed) L->failed_checks++;
    printf("\n");
    return STS_OK;
}

static void print_samples(const char *label, const int64_t *ns, size_t n)
{
    printf("%s [", label);
    for (size_t i = 0; i < n; i++)
        printf("%s%.3g", i ? ", " : "", (double)ns[i] / 1e9);
    printf("]\n");
}

static void handle_vs_sync(const sts_bench_result *r)
{
    printf("handle-only against synchronized (separate intervals, separate noise)\n");
    print_samples("  handle-only seconds:  ", r->dispatch_ns, r->ndispatch);
    print_samples("  complete-call seconds:", r->samples_ns, r->nsamples);
    printf("  Only the synchronized samples guarantee a complete output when the clock stops; on a small\n"
           "  CPU workload the two can be close, which does not justify dropping the wait.\n\n");
}

/* The broken timer from the lesson: start; create inputs; call; stop. It mixes input
 * preparation and placement into the interval and misses the completion. */
static sts_status broken_timer(lesson *L, const sts_bench_result *repaired, sts_error *err)
{
    sts_workload_params p = STS_WORKLOAD_PARAMS_INIT;
    p.seed = 5;
    int64_t t0 = demo_clock_ns();
    sts_workload *wl = NULL;
    sts_status st = sts_workload_create(L->dev, &p, &wl, err);
    sts_bench_spec spec;
    void *h = NULL;
    if (st == STS_OK) {
        sts_workload_spec(wl, &spec);
        st = spec.setup(spec.user, err);
    }
    if (st == STS_OK) st = spec.call(spec.user, &h, err);
    int64_t t1 = demo_clock_ns();
    if (st == STS_OK) st = spec.wait(spec.user, h, err);
    if (h) spec.release(spec.user, h);
    sts_workload_free(wl);
    if (st != STS_OK) return st;
    char broken[STS_FMT_DURATION_MAX], median[STS_FMT_DURATION_MAX];
    sts_fmt_duration((double)(t1 - t0), broken, sizeof broken);
    sts_fmt_duration(repaired->stats.median, median, sizeof median);
    printf("broken timer (start; create and place inputs; call; stop): %s\n", broken);
    printf("  It mixes input creation and placement into the interval and stops before the output is\n"
           "  complete; the repaired median (%s) answers the warm-call question instead. A speedup\n"
           "  cannot be reconstructed from the broken number.\n\n",
           median);
    return STS_OK;
}

static int write_report(lesson *L, const sts_bench_result *main, const sts_bench_result *const *variants)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench.json", L->ctx->out_dir);
    sts_error err = STS_ERROR_INIT;
    sts_outfile *f = NULL;
    if (sts_outfile_open(path, &f, &err) != STS_OK) return cli_report("demo bench", &err);
    if (sts_bench_write_json(sts_outfile_stream(f), main, &L->env, variants, NVARIANTS, &err) != STS_OK) {
        sts_outfile_abandon(f, &err);
        return cli_report("demo bench", &err);
    }
    if (sts_outfile_commit(f, &err) != STS_OK) return cli_report("demo bench", &err);
    if (L->ctx->json) sts_bench_write_json(stdout, main, &L->env, variants, NVARIANTS, &err);
    printf("wrote %s\n", path);
    return CLI_OK;
}

static sts_status experiments(lesson *L, sts_bench_result **main, sts_bench_result **v, sts_error *err)
{
    printf("1. first call, then 7 synchronized warm samples of tanh(x @ w)\n\n");
    sts_status st = run_one(L, STS_WORKLOAD_PREDICT, 64, NULL, NULL, 7, 0, main, err);
    if (st != STS_OK) return st;
    handle_vs_sync(*main);
    printf("2. the same contract with 96 rows, kept as a separate report\n\n");
    st = run_one(L, STS_WORKLOAD_PREDICT, 96, "predict_rows96", NULL, 5, 0, &v[0], err);
    if (st != STS_OK) return st;
    printf("3. a different equivalent workload: energy = sum((x @ w)^2, axis=1), shape (64,)\n\n");
    st = run_one(L, STS_WORKLOAD_ENERGY, 64, NULL, NULL, 5, 0, &v[1], err);
    if (st != STS_OK) return st;
    printf("4. a structured result (prediction and its mean) waited on as one\n\n");
    st = run_one(L, STS_WORKLOAD_STRUCTURED, 64, NULL, NULL, 3, 0, &v[2], err);
    if (st != STS_OK) return st;
    printf("5. the repaired benchmark\n\n");
    st =
        run_one(L, STS_WORKLOAD_PREDICT, 64, "repaired", "placed inputs; warm call plus output wait", 5, 1, &v[3], err);
    if (st == STS_OK) st = broken_timer(L, v[3], err);
    return st;
}

int demo_bench(const demo_ctx *ctx)
{
    lesson L;
    memset(&L, 0, sizeof L);
    L.ctx = ctx;
    sts_error err = STS_ERROR_INIT;
    printf("== lesson 1: benchmark asynchronous work correctly\n\n");
    if (sts_device_open(NULL, &L.dev, &err) != STS_OK) return cli_report("demo bench", &err);
    sts_bench_env_collect(&L.env, L.dev);
    printf("device: %s / %s\n\n", L.env.device.platform, L.env.device.name);
    sts_bench_result *main = NULL, *v[NVARIANTS] = { NULL };
    sts_status st = experiments(&L, &main, v, &err);
    int rc = CLI_OK;
    if (st != STS_OK)
        rc = cli_report("demo bench", &err);
    else
        rc = write_report(&L, main, (const sts_bench_result *const *)v);
    if (rc == CLI_OK && L.failed_checks)
        rc = cli_fail(CLI_BAD_INPUT, "demo bench: %d result(s) did not match the host reference", L.failed_checks);
    sts_bench_result_free(main);
    for (int i = 0; i < NVARIANTS; i++)
        sts_bench_result_free(v[i]);
    sts_device_free(L.dev);
    return rc;
}
