/* stepscope/ledger.h: the specialization ledger and the host-sync ledger.
 *
 * A ledger answers "was this call slow because a new specialization was traced and
 * compiled, or because the host waited for work already queued?". It holds:
 *   - rows: one per call (from stepscope's own specialized functions) or one per
 *     specialization seen in a log (JAX_LOG_COMPILES, jax_explain_cache_misses,
 *     TORCH_LOGS=recompiles), each with its argument signature, trace and compile
 *     deltas and times;
 *   - functions: per-function totals, distinct signatures, cache-miss reasons grouped
 *     by category, and a churn diagnosis naming the signature component that varies;
 *   - host syncs: every blocking read, explicit wait and scalar conversion with the
 *     time it waited, summarized per scope (for example "read each step" against
 *     "one final wait");
 *   - warnings: log records that looked like a known message but did not parse,
 *     each naming file:line.
 *
 * Times are int64_t nanoseconds; -1 means "not known". All strings passed in are
 * copied; all returned pointers are owned by the ledger and valid until
 * sts_ledger_free(). A ledger is not thread-safe: one thread records into it. */
#ifndef STEPSCOPE_LEDGER_H
#define STEPSCOPE_LEDGER_H

#include <stdint.h>
#include <stdio.h>

#include "stepscope/device.h"
#include "stepscope/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sts_ledger sts_ledger;

#define STS_LEDGER_MAX_DIMS 8

/* How an argument takes part in specialization. */
typedef enum sts_param_kind {
    STS_PARAM_ARRAY = 0, /* shape and dtype join the key; data is dynamic */
    STS_PARAM_DYNAMIC,   /* a scalar passed at run time: new values never re-specialize */
    STS_PARAM_STATIC     /* int, bool, enum or string: its value joins the key */
} sts_param_kind;

/* One argument's part of a call signature. */
typedef struct sts_argsig {
    const char *name; /* "x"; NULL or "" for a positional argument known only by index */
    sts_param_kind kind;
    const char *dtype;                  /* "float32", "int32", ...; NULL when unknown or static */
    int ndim;                           /* arrays: rank (0 for a scalar array); -1 when unknown */
    int64_t shape[STS_LEDGER_MAX_DIMS]; /* -1 for a symbolic dimension */
    int weak_type;                      /* JAX weak type (a Python scalar) */
    const char *value;                  /* static values: the value as text ("True", "relu", "3") */
} sts_argsig;

/* One row: a call of a specialized function, or a specialization seen in a log. */
typedef struct sts_ledger_call {
    const char *function;   /* required */
    const char *label;      /* optional ("changed dynamic gain") */
    const sts_argsig *args; /* may be NULL when nargs is 0 */
    int nargs;
    int traces;         /* trace events during this call (specialized source generated) */
    int compiles;       /* compile events during this call (program builds) */
    int hit;            /* 1 when an existing specialization was reused */
    int64_t trace_ns;   /* time spent tracing in this call, or -1 */
    int64_t lower_ns;   /* time spent lowering (JAX: jaxpr to MLIR), or -1 */
    int64_t compile_ns; /* time spent compiling in this call, or -1 */
    int64_t total_ns;   /* call to completion (result ready), or -1 */
    int has_result;
    double result;      /* a scalar result, when has_result */
    const char *reason; /* optional: why this call missed the cache */
    const char *source; /* optional: "file:line" of the log record */
} sts_ledger_call;
/* clang-format off */
#define STS_LEDGER_CALL_INIT { NULL, NULL, NULL, 0, 0, 0, 0, -1, -1, -1, -1, 0, 0.0, NULL, NULL }
/* clang-format on */

/* Miss-reason categories, as grouped in summaries. */
typedef enum sts_miss_category {
    STS_MISS_FIRST = 0, /* never seen this function */
    STS_MISS_SHAPE,     /* a dimension or the rank of an array changed */
    STS_MISS_DTYPE,
    STS_MISS_STATIC,    /* a static argument's value changed */
    STS_MISS_WEAK_TYPE, /* a Python scalar against an array of the same dtype */
    STS_MISS_PYTREE,    /* argument structure: count, keywords, containers */
    STS_MISS_CONTEXT,   /* config, context manager, device, grad mode, object identity */
    STS_MISS_OTHER,     /* an explanation that fits none of the above */
    STS_MISS_COUNT
} sts_miss_category;

/* "first", "shape", "dtype", "static", "weak_type", "pytree", "context", "other". */
const char *sts_miss_category_name(sts_miss_category c);

/* Host synchronization kinds. */
typedef enum sts_sync_kind {
    STS_SYNC_READ = 0, /* a blocking read of device memory into the host */
    STS_SYNC_WAIT,     /* an explicit wait (block_until_ready, clFinish, an event wait) */
    STS_SYNC_SCALAR    /* a device value converted to a host scalar (float(x)) */
} sts_sync_kind;

/* "read", "wait", "scalar". */
const char *sts_sync_kind_name(sts_sync_kind k);

/* ---- creating and recording ---------------------------------------------------- */

/* Returns a new empty ledger, or NULL when memory is exhausted. Free with
 * sts_ledger_free(). */
sts_ledger *sts_ledger_create(void);

/* Frees the ledger and everything it returned; NULL is a no-op. */
void sts_ledger_free(sts_ledger *l);

/* Appends a row and updates its function's totals, distinct signatures and churn
 * statistics. Fails with STS_ERR_INVALID_ARG (no function name, nargs out of range,
 * ndim > STS_LEDGER_MAX_DIMS) or STS_ERR_NOMEM. */
sts_status sts_ledger_add_call(sts_ledger *l, const sts_ledger_call *call, sts_error *err);

/* Records a cache-miss reason for `function`: `detail` is one human-readable line
 * ("dimension 0 of x: 8 -> 12"). Counted in the function's grouped reasons. */
sts_status sts_ledger_add_reason(sts_ledger *l, const char *function, sts_miss_category cat, const char *detail,
                                 sts_error *err);

/* Records one host synchronization: `label` names the read or wait ("metric step 3"),
 * `scope` groups it for summaries ("read each step"; NULL = "default"). */
sts_status sts_ledger_add_sync(sts_ledger *l, const char *label, const char *scope, sts_sync_kind kind, int64_t wait_ns,
                               sts_error *err);

/* ---- parsing logs ----------------------------------------------------------------- */

/* Counters for the logs parsed into a ledger (cumulative over calls). */
typedef struct sts_log_stats {
    int64_t files;
    int64_t lines;    /* lines read */
    int64_t records;  /* recognized records (a multi-line record counts once) */
    int64_t skipped;  /* lines that are not part of any known record */
    int64_t comments; /* header comment lines ("# ...") skipped */
    int64_t warnings; /* records that began like a known message but did not parse */
} sts_log_stats;

/* Parses a JAX or PyTorch log (plain or gzip; "-" is standard input) into the ledger:
 * JAX_LOG_COMPILES / jax_log_compiles lines (0.4.1 to 0.11), jax_explain_cache_misses
 * records (all three eras), TORCH_LOGS=recompiles / recompiles_verbose records and
 * the recompile-limit warning, with any of the known line prefixes. Unknown lines are
 * counted and skipped; a record that begins like a known message but does not parse
 * becomes a warning naming path:line (see sts_ledger_warning()). Lines starting with
 * '#' are comments. Returns STS_ERR_IO / STS_ERR_NOT_FOUND when the file cannot be
 * read; malformed content never fails the call. */
sts_status sts_ledger_parse_log(sts_ledger *l, const char *path, sts_error *err);

/* As sts_ledger_parse_log() for text already in memory; `name` is used in warnings. */
sts_status sts_ledger_parse_text(sts_ledger *l, const char *name, const char *text, size_t len, sts_error *err);

/* Resolves positional argument names, merges churn statistics and computes the
 * diagnosis. Called by the exporters; call it before the query functions below
 * after adding rows or parsing logs. Idempotent. */
sts_status sts_ledger_finalize(sts_ledger *l, sts_error *err);

/* ---- querying --------------------------------------------------------------------- */

/* Per-function totals. Pointers are owned by the ledger. */
typedef struct sts_ledger_fn_info {
    const char *name;
    int64_t calls; /* rows */
    int64_t traces;
    int64_t compiles;
    int64_t hits;
    int64_t trace_ns; /* totals over rows with known times; 0 when none known */
    int64_t lower_ns;
    int64_t compile_ns;
    int64_t max_compile_ns; /* largest single compile; -1 when none known */
    int64_t signatures;     /* distinct signatures */
    int64_t reasons[STS_MISS_COUNT];
    int64_t persistent_hits; /* JAX persistent compilation cache */
    int64_t persistent_misses;
    int64_t persistent_writes;
    int64_t limit_hits;      /* torch recompile-limit warnings */
    int64_t specializations; /* torch: highest compile id + 1 seen; else = compiles */
} sts_ledger_fn_info;

/* The churn diagnosis for one varying component of a function's signature. */
typedef struct sts_ledger_churn {
    const char *function;
    const char *component;   /* "dimension 0 of x", "dtype of x", "value of square" */
    int64_t nvalues;         /* distinct values seen */
    const char *values;      /* the values in first-seen order, ", "-separated */
    int64_t specializations; /* the function's compiles (or rows that missed) */
    int64_t cost_ns;         /* trace + lower + compile time of those, when known; else -1 */
    int64_t nbuckets;        /* power-of-two buckets covering the values; 0 if not numeric */
    const char *buckets;     /* the buckets, ", "-separated; "" if not numeric */
    const char *message;     /* one sentence: the diagnosis and the suggested fix */
} sts_ledger_churn;

/* Summary of the host syncs in one scope. */
typedef struct sts_ledger_sync_scope {
    const char *scope;
    int64_t count;
    int64_t total_ns;
    int64_t max_ns;
    int64_t reads, waits, scalars;
} sts_ledger_sync_scope;

/* One row as stored. `args` points at `nargs` entries owned by the ledger. */
typedef struct sts_ledger_row {
    int64_t index;
    sts_ledger_call call;
    const char *signature; /* canonical text of the argument signature */
} sts_ledger_row;

/* One host sync as stored. */
typedef struct sts_ledger_sync {
    const char *label;
    const char *scope;
    sts_sync_kind kind;
    int64_t wait_ns;
} sts_ledger_sync;

size_t sts_ledger_function_count(const sts_ledger *l);
/* Fills `out` for function i (0-based, in first-seen order); STS_ERR_RANGE when out of range. */
sts_status sts_ledger_function(const sts_ledger *l, size_t i, sts_ledger_fn_info *out);
/* Index of the function named `name`, or -1. */
long sts_ledger_function_find(const sts_ledger *l, const char *name);
/* The j-th distinct signature of function i, or NULL. */
const char *sts_ledger_function_signature(const sts_ledger *l, size_t i, size_t j);

size_t sts_ledger_row_count(const sts_ledger *l);
sts_status sts_ledger_row_get(const sts_ledger *l, size_t i, sts_ledger_row *out);

/* Churn diagnoses (valid after sts_ledger_finalize()), most values first. */
size_t sts_ledger_churn_count(const sts_ledger *l);
sts_status sts_ledger_churn_get(const sts_ledger *l, size_t i, sts_ledger_churn *out);

size_t sts_ledger_sync_count(const sts_ledger *l);
sts_status sts_ledger_sync_get(const sts_ledger *l, size_t i, sts_ledger_sync *out);
size_t sts_ledger_sync_scope_count(const sts_ledger *l);
sts_status sts_ledger_sync_scope_get(const sts_ledger *l, size_t i, sts_ledger_sync_scope *out);

/* Warnings from log parsing, each "path:line: message". */
size_t sts_ledger_warning_count(const sts_ledger *l);
const char *sts_ledger_warning(const sts_ledger *l, size_t i);

/* Log-parsing counters so far. */
sts_log_stats sts_ledger_log_stats(const sts_ledger *l);

/* ---- host synchronization, recorded ---------------------------------------------- */

/* A blocking read of array `a` into `host` (sts_array_read), recorded as a host sync
 * with the time the host spent blocked. `scope` groups it in summaries (NULL =
 * "default"). */
sts_status sts_ledger_read(sts_ledger *l, const char *label, const char *scope, const sts_array *a, void *host,
                           size_t bytes, sts_error *err);

/* An explicit wait for the arrays' latest writers (sts_arrays_ready), recorded. */
sts_status sts_ledger_wait(sts_ledger *l, const char *label, const char *scope, sts_array *const *arrays, size_t n,
                           sts_error *err);

/* The first element of `a` (float32 or int32) converted to a host double: a blocking
 * read of one value, recorded as a scalar conversion (Python's float(x)). */
sts_status sts_ledger_scalar(sts_ledger *l, const char *label, const char *scope, const sts_array *a, double *out,
                             sts_error *err);

/* ---- specialized functions on a device ------------------------------------------- *
 *
 * A specialized function is OpenCL C source plus an argument spec. Each argument is
 *   - an array: its dtype and shape join the specialization key and reach the source
 *     as defines (for parameter "x": X_T the element type, X_NDIM, X_DIM0.., X_SIZE);
 *   - a dynamic scalar: a kernel argument (type macro G_T for parameter "g"); new
 *     values never re-specialize;
 *   - a static value (int, bool, enum or string): its value joins the key and reaches
 *     the source as a define (for "mode": MODE = the int, 0/1 or the enum's index, and
 *     MODE_IS_<value> = 1 for enums and strings).
 * A call builds the key from those (with the device and build options). A miss
 * generates the specialized source (a trace event) and builds it (a compile event),
 * each timed; a hit reuses the kernel. Every call becomes a ledger row. With
 * STEPSCOPE_LOG_COMPILES=1 each trace and compile also prints one line to stderr.
 *
 * The kernel is named like the function; its arguments are the array and dynamic
 * parameters in declaration order (arrays as __global pointers). */

/* The kinds of static value. */
typedef enum sts_static_type {
    STS_STATIC_INT = 0,
    STS_STATIC_BOOL,
    STS_STATIC_ENUM,
    STS_STATIC_STRING
} sts_static_type;

typedef struct sts_fn_param {
    const char *name; /* a C identifier; its upper case prefixes the defines */
    sts_param_kind kind;
    sts_dtype dtype;             /* STS_PARAM_DYNAMIC: float32 or int32; otherwise ignored */
    sts_static_type static_type; /* STS_PARAM_STATIC only */
    const char *const *choices;  /* STS_STATIC_ENUM: the allowed values, NULL-terminated */
} sts_fn_param;

typedef struct sts_fn_trace sts_fn_trace;

/* Writes the source of one specialization through sts_fn_trace_emit(). It runs on the
 * host at specialization time, where only static values and shapes are known. */
typedef sts_status (*sts_fn_trace_fn)(sts_fn_trace *t, void *user, sts_error *err);

typedef struct sts_fn_spec {
    const char *name;      /* the function and kernel name (a C identifier) */
    const char *source;    /* the kernel source; NULL when `trace` writes it */
    sts_fn_trace_fn trace; /* optional source generator */
    void *user;            /* passed to `trace` */
    const sts_fn_param *params;
    int nparams;         /* 1..32 */
    int grid;            /* array parameter whose element count is the 1-D global size; -1 = 1 */
    int result;          /* array parameter read as the call's scalar result; -1 = none */
    const char *options; /* extra build options (part of the key); may be NULL */
} sts_fn_spec;

typedef struct sts_fn sts_fn;

/* Creates a specialized function on `dev` that records its calls in `ledger` (which
 * must outlive it). Fails with STS_ERR_INVALID_ARG naming the bad field. The caller
 * owns *out (sts_fn_free). */
sts_status sts_fn_create(sts_device *dev, const sts_fn_spec *spec, sts_ledger *ledger, sts_fn **out, sts_error *err);

/* Frees the function and its specializations' kernels. NULL is a no-op. */
void sts_fn_free(sts_fn *f);

/* One argument value: `array` for arrays, `number` for dynamic scalars and static
 * ints/bools, `text` for static enums and strings. */
typedef struct sts_fn_arg {
    sts_array *array;
    double number;
    const char *text;
} sts_fn_arg;

typedef struct sts_fn_call_info {
    int hit;      /* reused a specialization */
    int traces;   /* 1 when specialized source was generated */
    int compiles; /* 1 when a program was built (0 when the device's program cache had it) */
    int64_t trace_ns, compile_ns;
    int64_t total_ns; /* call to completion; -1 for an asynchronous call */
    int has_result;
    double result;
} sts_fn_call_info;

/* Call flags. */
#define STS_FN_WAIT   1u /* wait for completion and record the time to it */
#define STS_FN_RESULT 2u /* read the `result` parameter's first element (a recorded scalar conversion) */

/* Calls f with `nargs` == nparams arguments: looks up or makes the specialization,
 * launches it and records a ledger row labelled `label`. When `ev` is not NULL the
 * caller receives the launch's event (sts_event_release). Errors: STS_ERR_INVALID_ARG
 * (missing or mistyped argument, static value not among the choices),
 * STS_ERR_DYNAMIC_BRANCH (the trace asked for a dynamic value on the host),
 * STS_ERR_BUILD, STS_ERR_DEVICE. */
sts_status sts_fn_call(sts_fn *f, const sts_fn_arg *args, int nargs, const char *label, unsigned flags, sts_event **ev,
                       sts_fn_call_info *info, sts_error *err);

/* Number of specializations made so far. */
size_t sts_fn_specializations(const sts_fn *f);

/* Appends text to the specialization's source (inside a trace callback). */
sts_status sts_fn_trace_emit(sts_fn_trace *t, const char *text, sts_error *err);

/* The value of static parameter `param` while specializing: *number for ints, bools
 * and enums (the index), *text for every kind (either may be NULL). Asking for a
 * parameter that is not static fails like sts_fn_trace_host_value(). */
sts_status sts_fn_trace_static(sts_fn_trace *t, const char *param, int64_t *number, const char **text, sts_error *err);

/* The host value of `param`, to choose a branch while specializing. Static parameters
 * have one. Dynamic scalars and arrays do not: their values exist on the device only
 * when the call runs, so this fails with STS_ERR_DYNAMIC_BRANCH (JAX's
 * TracerBoolConversionError); the fix is a select on the device, or a static
 * parameter if the choice really is structural. */
sts_status sts_fn_trace_host_value(sts_fn_trace *t, const char *param, double *value, sts_error *err);

/* ---- exporting -------------------------------------------------------------------- */

/* Writes the ledger as JSON (schema "stepscope.ledger/1", docs/ledger.md). When
 * `extra_key` and `extra_json` are both non-NULL, the top-level object also gets the
 * member "extra_key": extra_json, where extra_json must be one complete JSON value
 * (the caller vouches for it). Finalizes. */
sts_status sts_ledger_write_json(sts_ledger *l, FILE *f, const char *extra_key, const char *extra_json, sts_error *err);

/* Writes the rows as CSV with a header line (docs/ledger.md). Finalizes. */
sts_status sts_ledger_write_csv(sts_ledger *l, FILE *f, sts_error *err);

/* Writes a human-readable summary: per-function table, reasons, churn, host syncs,
 * warnings. Finalizes. */
sts_status sts_ledger_write_text(sts_ledger *l, FILE *f, sts_error *err);

#ifdef __cplusplus
}
#endif
#endif
