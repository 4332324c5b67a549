/* stepscope/bench.h: benchmark an asynchronous call with its boundary drawn correctly.
 *
 * The harness is generic C: a spec of function pointers and user data, so it wraps any
 * call that returns before its work is done (an OpenCL enqueue, a CUDA launch, a job
 * handed to a thread pool). For each run it
 *   1. calls setup() outside any clock (create and place inputs, then wait for them);
 *   2. times the first call together with its wait, apart from the rest;
 *   3. makes `warmup` more waited calls, untimed;
 *   4. times `repeats` synchronized samples: start, call, wait, stop;
 *   5. checks the last result against a reference (atol, rtol);
 *   6. times `dispatch_repeats` dispatch-only intervals: start, call, stop (the wait
 *      comes after the clock), reported apart and labelled as such.
 * When the spec can say how long the device worked on a handle (device_ns), each
 * sample carries that too, and host overhead = host interval - device time.
 * docs/bench.md describes the JSON report and shows how to wrap a CUDA call. */
#ifndef STEPSCOPE_BENCH_H
#define STEPSCOPE_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stepscope/device.h"
#include "stepscope/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- statistics */

/* A modified z-score |0.6745 (x - median) / MAD| above this marks an outlier. */
#define STS_OUTLIER_Z 3.5
/* A coefficient of variation above this makes a run "unstable". */
#define STS_UNSTABLE_CV 0.10

typedef struct sts_stats {
    size_t n;
    double min, median, mean, max;
    double stddev;   /* sample standard deviation (n - 1); 0 when n < 2 */
    double mad;      /* median absolute deviation from the median, unscaled */
    double cv;       /* stddev / mean; 0 when the mean is 0 */
    size_t outliers; /* samples whose modified z-score exceeds STS_OUTLIER_Z */
} sts_stats;

/* Statistics of x[0..n) (n may be 0: all fields 0). When `outlier` is not NULL,
 * outlier[i] is set to 1 for each outlier and 0 otherwise. When MAD is 0 the z-score
 * is unbounded, so every sample different from the median counts as an outlier. */
void sts_stats_compute(const double *x, size_t n, sts_stats *out, unsigned char *outlier);

/* The median of x[0..n) without changing x; 0 when n is 0. */
double sts_median(const double *x, size_t n);

/* ---------------------------------------------------------------- checks */

#define STS_CHECK_MAX_LEAVES 4

/* The comparison of one output ("leaf") with its reference, value by value, by
 * NumPy's isclose(): |got - want| <= atol + rtol * |want| for finite values; an
 * infinity matches only the same infinity; a NaN matches nothing, or only a NaN when
 * equal_nan is set. */
typedef struct sts_check_leaf {
    char name[32];
    int ndim;
    int64_t shape[4];
    size_t count;
    size_t mismatches;
    double max_abs_error;
    size_t worst_index; /* index of the largest error */
    double worst_got, worst_want;
} sts_check_leaf;

typedef struct sts_bench_check {
    int checked; /* 0 when the spec has no check */
    int passed;
    char reference[96];   /* what the result was compared with, in words; "" = the host reference */
    double atol, rtol;    /* finite, >= 0 (sts_bench_run refuses others) */
    int equal_nan;        /* a NaN matches a NaN (NumPy's equal_nan) */
    double max_abs_error; /* over every leaf */
    size_t nleaves;
    sts_check_leaf leaves[STS_CHECK_MAX_LEAVES];
} sts_bench_check;

/* Compares float32 results with a double reference and appends the leaf to `check`
 * (up to STS_CHECK_MAX_LEAVES; later leaves still count in passed and max_abs_error),
 * updating passed and max_abs_error, by the rule of sts_check_leaf. A value that
 * matches adds 0 to max_abs_error whatever it is; an infinity or NaN that does not
 * makes it infinite (null in JSON). */
void sts_check_add_f32(sts_bench_check *check, const char *name, int ndim, const int64_t *shape, const float *got,
                       const double *want, size_t count);

/* As sts_check_add_f32() for results already widened to double (float64 results, or
 * any dtype converted exactly, as the Python binding does). */
void sts_check_add_f64(sts_bench_check *check, const char *name, int ndim, const int64_t *shape, const double *got,
                       const double *want, size_t count);

/* ---------------------------------------------------------------- the spec */

#define STS_BENCH_MAX_SHAPES 4

/* One named shape of the workload contract, written into the report under `key`
 * ("input_shape", "weight_shape", "output_shape"). */
typedef struct sts_bench_shape {
    char key[24];
    int ndim;
    int64_t dims[4];
} sts_bench_shape;

typedef struct sts_bench_spec {
    const char *name;     /* the workload, e.g. "predict" */
    const char *boundary; /* what the timed interval holds, in words */
    const char *dtype;    /* "float32" */
    sts_bench_shape shapes[STS_BENCH_MAX_SHAPES];
    size_t nshapes;
    void *user; /* passed to every callback */

    /* Outside the clock: prepare and place inputs, and wait for them. Optional. */
    sts_status (*setup)(void *user, sts_error *err);
    /* Starts the work and returns a handle without waiting for it. Required. */
    sts_status (*call)(void *user, void **handle, sts_error *err);
    /* Returns when the work behind `handle` is complete. Required. */
    sts_status (*wait)(void *user, void *handle, sts_error *err);
    /* Compares the completed result behind `handle` with a reference (see
     * sts_check_add_f32). Optional. */
    sts_status (*check)(void *user, void *handle, sts_bench_check *out, sts_error *err);
    /* Device-side duration of the completed work behind `handle` in ns, or -1 when
     * unknown. Optional. */
    int64_t (*device_ns)(void *user, void *handle);
    /* Releases a handle. Optional. */
    void (*release)(void *user, void *handle);

    int warmup;            /* untimed waited calls after the first; >= 0 */
    int repeats;           /* synchronized samples; >= 1 */
    int dispatch_repeats;  /* dispatch-only samples; 0 = as many as repeats, < 0 = none */
    double atol, rtol;     /* tolerances handed to check: finite and >= 0 */
    const char *reference; /* what check compares with, in words; NULL = "host, double-precision accumulation" */
    int equal_nan;         /* handed to check: a NaN result matches a NaN reference */
} sts_bench_spec;

/* ---------------------------------------------------------------- results */

/* The most warnings a caller may add to a result (sts_bench_result_note). */
#define STS_BENCH_MAX_NOTES 4

/* One run's measurements. Every pointer is owned by the result. Times are ns. */
typedef struct sts_bench_result {
    char name[64];
    char boundary[160];
    char dtype[16];
    sts_bench_shape shapes[STS_BENCH_MAX_SHAPES];
    size_t nshapes;
    int warmup;

    int64_t first_call_ns;
    int64_t first_device_ns; /* -1 when unknown */

    size_t nsamples;
    int64_t *samples_ns;      /* synchronized host intervals */
    int64_t *device_ns;       /* device duration per sample, -1 when unknown */
    unsigned char *outlier;   /* per sample */
    sts_stats stats;          /* of samples_ns */
    sts_stats device_stats;   /* of the known device durations */
    sts_stats overhead_stats; /* of host - device, where both are known */

    size_t ndispatch;
    int64_t *dispatch_ns; /* call-returns-handle intervals, no wait */
    sts_stats dispatch_stats;

    int64_t harness_overhead_ns; /* cost of the timer + bookkeeping per sample, measured */
    sts_bench_check check;
    int unstable;
    char warning[256]; /* why the run is unstable, in words; "" when stable */
    /* further warnings a caller added after the run (sts_bench_result_note), written
     * after `warning` in the report's "warnings" */
    char notes[STS_BENCH_MAX_NOTES][256];
    size_t nnotes;
} sts_bench_result;

/* Runs the benchmark described by `spec`. Repeats < 1, warmup < 0, a tolerance that is
 * negative, infinite or NaN, or a missing call / wait give STS_ERR_INVALID_ARG; an error from a callback is passed on.
 * A failed check is not an error here: see result->check.passed. On success the caller owns *out
 * (sts_bench_result_free). */
sts_status sts_bench_run(const sts_bench_spec *spec, sts_bench_result **out, sts_error *err);

/* NULL is a no-op. */
void sts_bench_result_free(sts_bench_result *r);

/* Adds a warning about the run that only the caller can tell (the Python binding's
 * boundary it drew for the caller, a first call that was not slower than the warm
 * ones), cut to 255 bytes. Returns STS_ERR_LIMIT past STS_BENCH_MAX_NOTES. */
sts_status sts_bench_result_note(sts_bench_result *r, const char *text);

/* Replaces the boundary's words, cut to 159 bytes (for a caller who learns what the
 * interval held only from the results, as the Python binding does). */
void sts_bench_result_set_boundary(sts_bench_result *r, const char *text);

/* first call / warm median; 0 when the median is 0. */
double sts_bench_first_to_warm_ratio(const sts_bench_result *r);

/* The cost per sample of the harness itself (two clock reads, the bookkeeping and an
 * empty call) in ns, the median of `rounds` measurements of `iterations` samples. */
int64_t sts_bench_harness_overhead_ns(int rounds, int iterations);

/* ---------------------------------------------------------------- environment */

#define STS_BENCH_MAX_RUNTIME 8

/* One "name": "version" pair of a runtime's description ("python": "3.11.7"). */
typedef struct sts_bench_kv {
    char key[32];
    char value[128];
} sts_bench_kv;

typedef struct sts_bench_env {
    char cpu_model[128]; /* /proc/cpuinfo "model name" */
    unsigned cpu_count;  /* online CPUs */
    char governor[32];   /* cpufreq scaling governor, "" when unreadable */
    char os[400];        /* uname: sysname release version machine */
    char compiler[128];  /* the compiler that built stepscope */
    char stepscope_version[32];
    char timestamp[32]; /* UTC, ISO 8601 */
    int has_device;
    sts_device_info device; /* when has_device */
    /* A runtime other than stepscope's OpenCL device (JAX, PyTorch, plain Python), as its
     * caller describes it: written as "backend", "device", in "versions" and in
     * environment.runtime. "" and 0 when unused. */
    char backend[160];        /* "JAX 0.9.2 on cpu" */
    char runtime_device[128]; /* "TFRT_CPU_0" */
    size_t nruntime;
    sts_bench_kv runtime[STS_BENCH_MAX_RUNTIME]; /* versions: python, jax, jaxlib, numpy, ... */
} sts_bench_env;

/* Fills `env` with the machine's description and the OpenCL device's, when `dev` is not
 * NULL. Links the OpenCL device layer. */
void sts_bench_env_collect(sts_bench_env *env, const sts_device *dev);

/* Fills `env` with the machine's description only (no device). Needs nothing of the
 * device layer, so a program benchmarking its own calls links without OpenCL. */
void sts_bench_env_collect_host(sts_bench_env *env);

/* Appends "key": "value" to env->runtime (both cut to fit); STS_ERR_LIMIT when
 * STS_BENCH_MAX_RUNTIME pairs are there already. */
sts_status sts_bench_env_add_runtime(sts_bench_env *env, const char *key, const char *value);

/* ---------------------------------------------------------------- reports */

/* Writes one JSON document: the main result's fields at top level (the lesson's
 * report: input_shape, weight_shape, dtype, boundary, first_call_seconds,
 * warm_samples_seconds, warm_median_seconds, max_abs_error, ...), the environment,
 * and each of `variants` as an object under "variants", keyed by its name. The schema
 * is in docs/bench.md. Returns STS_ERR_IO when writing fails. */
sts_status sts_bench_write_json(FILE *f, const sts_bench_result *main, const sts_bench_env *env,
                                const sts_bench_result *const *variants, size_t nvariants, sts_error *err);

/* Prints a readable table: the boundary, the contract, the first call, every sample
 * with its device time and outlier mark, the statistics, the first-call to warm-median
 * ratio, dispatch-only, and the check. */
void sts_bench_print(FILE *f, const sts_bench_result *r);

/* Prints the environment in a few lines. */
void sts_bench_env_print(FILE *f, const sts_bench_env *env);

/* ---------------------------------------------------------------- reading a report back */

/* A series of samples as a bench document holds them (seconds). */
typedef struct sts_bench_series {
    const double *s;  /* seconds; NAN for a sample given as null (not measured) */
    const size_t *at; /* each sample's byte offset in the document */
    size_t n;
    size_t measured; /* samples that are numbers */
    int given;       /* the member is present and not null */
    int scalar;      /* it is one number, not an array (n is then 1; dispatch_only_seconds only) */
    size_t offset;   /* the member's byte offset */
} sts_bench_series;

/* A member of a run or of the environment, for showing as a fact. */
typedef struct sts_bench_fact {
    const char *key;
    const char *text;   /* a scalar or a flat array of at most 16 scalars as text ("[64, 32]", "float32",
                           "2e-05", "true"; numbers as %.6g); NULL for null, objects and other arrays */
    const char *string; /* the value when it is a string, else NULL */
    double number;      /* the value when it is a number, else NAN */
    int array, object;
    const char *exact; /* exact text for comparing, as sts_bench_run_doc.contract (never NULL) */
} sts_bench_fact;

/* The members of the workload contract, which must agree for two runs to time the same
 * work: input_shape, weight_shape, output_shape, dtype, boundary, device. */
#define STS_BENCH_CONTRACT_KEYS 6
extern const char *const sts_bench_contract_key[STS_BENCH_CONTRACT_KEYS];

/* One benchmarked workload of a document: an object holding "warm_samples_seconds". */
typedef struct sts_bench_run_doc {
    const char *member;                            /* the key holding it ("rows96" under "variants"); NULL at the top
                                                      level or in an array */
    const char *name, *label, *workload, *kernel;  /* string members; NULL when absent or not strings */
    const char *contract[STS_BENCH_CONTRACT_KEYS]; /* exact text for comparing (numbers to 17 digits, a flat
                                                      array "[64, 32]", nested "..."); NULL when absent */
    double first_call_s, warm_median_s, dispatch_median_s; /* NAN when absent or null */
    sts_bench_series warm, device, dispatch;               /* warm_samples_, device_samples_, dispatch_only_seconds */
    int checked, passed;         /* check.checked and check.passed: 1, 0, or -1 when absent or not booleans */
    const char *reference;       /* check.reference; NULL */
    int unstable;                /* 1, 0, or -1 when absent or not a boolean */
    const sts_bench_fact *facts; /* every member, in document order (repeated keys kept) */
    size_t nfacts;
    const char *const *warnings; /* the items of "warnings", NULL for those not strings */
    size_t nwarnings;
    size_t offset;
} sts_bench_run_doc;

typedef struct sts_bench_doc {
    const sts_bench_run_doc *runs; /* in document order, depth first */
    size_t nruns;
    int has_env;               /* "environment" is an object: */
    const sts_bench_fact *env; /* its members */
    size_t nenv;
    const char *opencl_device, *opencl_type, *opencl_driver; /* its "opencl" strings; NULL */
    struct sts_bench_doc_mem *mem;                           /* the document's memory (internal) */
} sts_bench_doc;

/* The most runs a document may hold. */
#define STS_BENCH_DOC_MAX_RUNS 256

/* Reads a bench result (sts_bench_write_json()'s document, stepscope.bench/1, or any
 * JSON whose objects holding "warm_samples_seconds" are runs, at most 8 levels deep:
 * the Python package's and hand-made ones). Samples must be non-negative numbers of
 * seconds or null, at most 2^52 ns. `name` (a file name) begins every message. Errors:
 * STS_ERR_PARSE for malformed JSON (the byte named), STS_ERR_FORMAT for a document
 * that is not a bench result or a member of the wrong type, STS_ERR_RANGE for a time
 * beyond 2^52 ns, STS_ERR_LIMIT for more than STS_BENCH_DOC_MAX_RUNS runs. On success
 * *out is a new document (free with sts_bench_doc_free()). */
sts_status sts_bench_read_json(const char *text, size_t len, const char *name, sts_bench_doc **out, sts_error *err);

/* Frees the document; NULL is a no-op. */
void sts_bench_doc_free(sts_bench_doc *d);

/* The last fact of `run` (or of the environment, with `env`) named `key`; NULL. */
const sts_bench_fact *sts_bench_fact_get(const sts_bench_fact *facts, size_t n, const char *key);

/* ---------------------------------------------------------------- lesson 1 workloads */

typedef enum sts_workload_kind {
    STS_WORKLOAD_PREDICT = 0, /* y = tanh(x @ w) */
    STS_WORKLOAD_ENERGY,      /* e = sum((x @ w)^2, axis=1) */
    STS_WORKLOAD_STRUCTURED   /* {prediction: tanh(x @ w), mean: mean(prediction)}, waited as one */
} sts_workload_kind;

typedef struct sts_workload_params {
    sts_workload_kind kind;
    int64_t rows, features, outputs; /* x [rows, features], w [features, outputs] */
    uint64_t seed;                   /* inputs are seeded standard normal values */
} sts_workload_params;
/* clang-format off */
#define STS_WORKLOAD_PARAMS_INIT { STS_WORKLOAD_PREDICT, 64, 32, 16, 4 }
/* clang-format on */

typedef struct sts_workload sts_workload;

/* "predict" / "energy" / "structured"; a static string. */
const char *sts_workload_name(sts_workload_kind kind);

/* Parses a workload name; STS_ERR_INVALID_ARG naming the choices otherwise. */
sts_status sts_workload_parse(const char *name, sts_workload_kind *out, sts_error *err);

/* Generates the inputs on the host and computes the double-precision reference. Device
 * arrays are created here but filled by the spec's setup. Dimensions below 1 give
 * STS_ERR_SHAPE. The caller owns *out (sts_workload_free). */
sts_status sts_workload_create(sts_device *dev, const sts_workload_params *p, sts_workload **out, sts_error *err);

/* NULL is a no-op. */
void sts_workload_free(sts_workload *w);

/* Fills `spec` for this workload: name, boundary, contract, callbacks and the
 * lesson's tolerances (atol = rtol = 2e-5; energy atol 2e-3, rtol 2e-5), with atol
 * scaled by features / 32 beyond 32 features (float32 rounding grows with the length
 * of the dot products). repeats = 7, warmup = 0, dispatch_repeats = 0; change any of
 * them before sts_bench_run. The spec points into `w`. */
void sts_workload_spec(sts_workload *w, sts_bench_spec *spec);

/* Fills `out[0..n)` with standard normal float32 values from `seed` (a xoshiro256**
 * stream turned normal by the Box-Muller transform); the same seed gives the same
 * values (up to the C library's rounding of log, sqrt and cos). */
void sts_normal_f32(uint64_t seed, float *out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
