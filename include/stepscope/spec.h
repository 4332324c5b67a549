/* stepscope/spec.h: specialized functions on a device, and host synchronizations that
 * record themselves, both writing into a ledger (stepscope/ledger.h).
 *
 * This is the part of the ledger that runs device work; it needs the device layer
 * (stepscope/device.h) and so OpenCL. Reading compile logs does not: see ledger.h.
 * Strings passed in are copied; the ledger must outlive every function made on it. */
#ifndef STEPSCOPE_SPEC_H
#define STEPSCOPE_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/device.h"
#include "stepscope/ledger.h"
#include "stepscope/status.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
