/* spec: internals of specialized functions (spec.c: create, call, cache;
 * spec_source.c: keys, defines, the trace context). */
#ifndef STS_SPEC_SPEC_IMPL_H
#define STS_SPEC_SPEC_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "ledger/ledger_builder.h"
#include "stepscope/spec.h"

#define SPEC_MAX_PARAMS 32

typedef struct spec_entry {
    sts_kernel *kernel;
} spec_entry;

struct sts_fn {
    sts_device *dev;
    sts_ledger *l;
    char *name, *source, *options;
    sts_fn_trace_fn trace;
    void *user;
    sts_fn_param params[SPEC_MAX_PARAMS];
    char *param_names[SPEC_MAX_PARAMS];
    char **choices[SPEC_MAX_PARAMS]; /* copied enum choices, NULL-terminated */
    int nparams, grid, result;
    sts_strtab keys; /* specialization key text -> id; entry id - 1 */
    STS_VEC(spec_entry) specs;
};

struct sts_fn_trace {
    sts_fn *f;
    const sts_fn_arg *args;
    sts_sbuf *src;
};

/* The text of static argument i ("3", "True", "relu"), validated; writes to buf. */
sts_status sts_spec_static_text(const sts_fn *f, int i, const sts_fn_arg *a, char *buf, size_t cap, sts_error *err);

/* Checks every argument against its parameter. */
sts_status sts_spec_check_args(const sts_fn *f, const sts_fn_arg *args, int nargs, sts_error *err);

/* The specialization key of a call: device, options, array dtypes and shapes, static
 * values. */
void sts_spec_key(const sts_fn *f, const sts_fn_arg *args, sts_sbuf *key);

/* The full source of a specialization: defines, then the source or the trace's text. */
sts_status sts_spec_source(sts_fn *f, const sts_fn_arg *args, sts_sbuf *src, sts_error *err);

/* The ledger's view of the call's arguments; strings go to `text` (kept by the caller). */
void sts_spec_argsigs(const sts_fn *f, const sts_fn_arg *args, sts_argsig *out, char text[][64]);

#endif
