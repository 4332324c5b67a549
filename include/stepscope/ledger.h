/* stepscope/ledger.h: the specialization ledger, the host-sync ledger, and the JAX /
 * PyTorch compile-log parsers that fill it. Nothing here needs a device: a program that
 * only reads logs links without OpenCL. Specialized functions that run on a device and
 * record into a ledger are in stepscope/spec.h.
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

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
    const char *name; /* "x"; NULL or "" for a positional array known only by index */
    sts_param_kind kind;
    const char *dtype;                  /* "float32", "int32", ...; NULL when unknown or static */
    int ndim;                           /* arrays: rank (0 for a scalar array); -1 when unknown */
    int64_t shape[STS_LEDGER_MAX_DIMS]; /* -1 for a symbolic dimension */
    int weak_type;                      /* JAX weak type (a Python scalar) */
    const char *value;                  /* static values: the value as text ("True", "relu", "3"); NULL when unknown */
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
    int64_t lines;      /* lines read */
    int64_t records;    /* recognized records (a multi-line record counts once) */
    int64_t skipped;    /* lines that are not part of any known record */
    int64_t comments;   /* header comment lines ("# ...") skipped */
    int64_t warnings;   /* records that began like a known message but did not parse, and long lines */
    int64_t long_lines; /* lines longer than STS_LEDGER_MAX_LINE, skipped (each also a warning) */
} sts_log_stats;

/* The longest line the log parser reads; a longer line is skipped, counted in
 * sts_log_stats.long_lines and warned about, so memory stays bounded on any input. */
#define STS_LEDGER_MAX_LINE (1024 * 1024)

/* Parses a JAX or PyTorch log (plain or gzip; "-" is standard input) into the ledger,
 * streaming it line by line: JAX_LOG_COMPILES / jax_log_compiles lines (0.4.1 to 0.11),
 * jax_explain_cache_misses records (all three eras), TORCH_LOGS=recompiles /
 * recompiles_verbose records and the recompile-limit warning, with any of the known
 * line prefixes. Unknown lines are counted and skipped; a record that begins like a
 * known message but does not parse becomes a warning naming path:line (see
 * sts_ledger_warning()); so does a line longer than STS_LEDGER_MAX_LINE, which is
 * skipped. Lines starting with '#' are comments. Memory grows with the records the log
 * holds, never with its size. Errors: STS_ERR_IO / STS_ERR_NOT_FOUND when the file
 * cannot be read (or a gzip stream is corrupt); STS_ERR_FORMAT when an over-long line
 * holds NUL bytes (binary data such as /dev/zero, not a text log), naming the byte
 * offset. What was parsed before an error stays in the ledger. A regular file this
 * ledger already read (the same device and inode, under any name) is not read again:
 * a warning says so. */
sts_status sts_ledger_parse_log(sts_ledger *l, const char *path, sts_error *err);

/* As sts_ledger_parse_log() for text already in memory (not inflated); `name` is used
 * in warnings. */
sts_status sts_ledger_parse_text(sts_ledger *l, const char *name, const char *text, size_t len, sts_error *err);

/* Resolves positional argument names, merges churn statistics and computes the
 * diagnosis. Called by the exporters; call it before the query functions below
 * after adding rows or parsing logs. Idempotent. */
sts_status sts_ledger_finalize(sts_ledger *l, sts_error *err);

/* ---- querying --------------------------------------------------------------------- */

/* Where a function's rows came from. */
typedef enum sts_ledger_source {
    STS_LEDGER_SRC_CALLS = 0,  /* sts_ledger_add_call(): every call is a row, hits included */
    STS_LEDGER_SRC_JAX_LOG,    /* a JAX log: only traces and compiles are logged */
    STS_LEDGER_SRC_TORCH_LOG,  /* a PyTorch log: only recompiles are logged */
    STS_LEDGER_SRC_TORCH_TRACE /* a TORCH_TRACE structured log: every compile, its times, graph breaks */
} sts_ledger_source;

/* "calls", "jax_log", "torch_log", "torch_trace". */
const char *sts_ledger_source_name(sts_ledger_source s);

/* Per-function totals. Pointers are owned by the ledger. A function from a log is
 * named with its definition site when the log gives one ("<lambda> (train.py:104)",
 * "forward (model.py:42)"), so same-named functions stay apart. */
typedef struct sts_ledger_fn_info {
    const char *name;
    sts_ledger_source source;
    int64_t rows;  /* rows recorded for it */
    int64_t calls; /* calls made; -1 when unknown (logs record no call that reused a specialization) */
    int64_t traces;
    int64_t compiles;
    int64_t hits;        /* calls that reused a specialization; -1 when unknown (logs) */
    const char *unknown; /* why calls and hits are unknown ("not in JAX logs"); NULL when known */
    int64_t trace_ns; /* totals over rows with known times; -1 when there were traces (or, for lower_ns and compile_ns,
                         compiles) and no row gave a time, as PyTorch logs; 0 when there was nothing to time */
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
    int64_t redefined;       /* JAX: misses because the function was re-defined at the same line */
    int64_t graph_breaks; /* torch graph breaks in its frames; -1 when the input cannot tell (only TORCH_TRACE can) */
} sts_ledger_fn_info;

/* A graph break torch recorded (TORCH_TRACE): where in the user's code, why, and how
 * many compiles of the function met it. Pointers are owned by the ledger. */
typedef struct sts_ledger_graph_break {
    const char *function;
    const char *where;  /* "train.py:5" as torch names it; "" when it does not */
    const char *reason; /* torch's words, first line ("Call to `torch._dynamo.graph_break()`") */
    int64_t count;
} sts_ledger_graph_break;

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

/* Graph breaks, in first-seen order. */
size_t sts_ledger_graph_break_count(const sts_ledger *l);
sts_status sts_ledger_graph_break_get(const sts_ledger *l, size_t i, sts_ledger_graph_break *out);

size_t sts_ledger_sync_count(const sts_ledger *l);
sts_status sts_ledger_sync_get(const sts_ledger *l, size_t i, sts_ledger_sync *out);
size_t sts_ledger_sync_scope_count(const sts_ledger *l);
sts_status sts_ledger_sync_scope_get(const sts_ledger *l, size_t i, sts_ledger_sync_scope *out);

/* Warnings from log parsing, each "path:line: message" (the first 1,000 are kept;
 * sts_log_stats.warnings counts them all). */
size_t sts_ledger_warning_count(const sts_ledger *l);
const char *sts_ledger_warning(const sts_ledger *l, size_t i);

/* Log-parsing counters so far. */
sts_log_stats sts_ledger_log_stats(const sts_ledger *l);

/* Why the host syncs are unknown ("not in JAX logs"), or NULL when they are known: a
 * ledger whose rows all came from logs and that recorded no sync cannot tell whether
 * the host waited. Static string. */
const char *sts_ledger_syncs_unknown(const sts_ledger *l);

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

/* ---- reading a ledger document back ----------------------------------------------- */

/* What `stepscope diff` and `stepscope report` read of a ledger document
 * (sts_ledger_write_json()'s, stepscope.ledger/1, or one written by hand or by another
 * tool with the same members). Counts and times are -1 where the document gives null
 * or nothing; strings NULL. Pointers are owned by the document. */
typedef struct sts_ledger_doc_fn {
    const char *name;
    const char *site;    /* "site": where it is defined, when given apart from the name */
    const char *unknown; /* why calls and hits are unknown */
    int hits_unknown;    /* "hits" is null: the input records no reuse (a compile log) */
    int64_t compiles, specializations, traces, compile_ns;
    size_t offset;
} sts_ledger_doc_fn;

typedef struct sts_ledger_doc_row {
    const char *function, *site, *label;
    int64_t traces, compiles, compile_ns;
    size_t offset;
} sts_ledger_doc_row;

typedef struct sts_ledger_doc_sync {
    const char *scope;
    int64_t wait_ns;
} sts_ledger_doc_sync;

typedef struct sts_ledger_doc_scope {
    const char *scope;
    int64_t count, total_ns;
} sts_ledger_doc_scope;

/* What a document says of host syncs. */
typedef enum sts_ledger_doc_syncs {
    STS_LEDGER_DOC_SYNCS_ABSENT = 0, /* no "host_syncs" */
    STS_LEDGER_DOC_SYNCS_UNKNOWN,    /* "host_syncs": null (see syncs_unknown) */
    STS_LEDGER_DOC_SYNCS_KNOWN       /* an object of events and scopes */
} sts_ledger_doc_syncs;

typedef struct sts_ledger_doc {
    const char *schema;
    int has_functions, has_rows; /* the arrays are present */
    const sts_ledger_doc_fn *functions;
    size_t nfunctions;
    const sts_ledger_doc_row *rows;
    size_t nrows;
    sts_ledger_doc_syncs syncs;
    const char *syncs_unknown; /* "host_syncs_unknown" */
    const sts_ledger_doc_sync *sync_events;
    size_t nsync_events;
    const sts_ledger_doc_scope *scopes;
    size_t nscopes;
    const char *const *churn; /* each churn diagnosis's "message" (NULL where not a string) */
    size_t nchurn;
    size_t nwarnings;
    struct sts_ledger_doc_mem *mem; /* the document's memory (internal) */
} sts_ledger_doc;

/* Reads a ledger document: an object with a "functions" or a "rows" array (or both).
 * Counts must be whole numbers >= 0, times non-negative numbers of ns (at most 2^52),
 * each either null. `name` (a file name) begins every message. Errors: STS_ERR_PARSE
 * for malformed JSON (the byte named), STS_ERR_FORMAT for a document that is not a
 * ledger or a member of the wrong type ("NAME: byte N: ..."), STS_ERR_RANGE for a time
 * beyond 2^52 ns. On success *out is a new document (free with
 * sts_ledger_doc_free()). */
sts_status sts_ledger_read_json(const char *text, size_t len, const char *name, sts_ledger_doc **out, sts_error *err);

/* Frees the document; NULL is a no-op. */
void sts_ledger_doc_free(sts_ledger_doc *d);

#ifdef __cplusplus
}
#endif
#endif
