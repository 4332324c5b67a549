/* ledger: internal interface of the log parsers (JAX and PyTorch compile logs).
 *
 * logparse.c reads lines, strips known prefixes (logparse_prefix.c), groups the lines
 * of multi-line records per stream and hands complete records to the JAX and torch
 * handlers, which fill the ledger. */
#ifndef STS_LEDGER_LOGPARSE_H
#define STS_LEDGER_LOGPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "ledger/ledger_impl.h"

/* Record kinds. Single-line kinds are handled at once; the others collect lines. */
typedef enum lp_kind {
    LP_NONE = 0,
    LP_JAX_TRACE,       /* Finished tracing [+ transforming] NAME [for API] in T sec */
    LP_JAX_COMPILE,     /* Compiling NAME ... with global shapes and types AVALS ... */
    LP_JAX_LOWER,       /* Finished jaxpr to MLIR module conversion NAME in T sec */
    LP_JAX_XLA,         /* Finished XLA compilation of NAME in T sec */
    LP_JAX_PCACHE,      /* persistent compilation cache hit / miss / write / skip */
    LP_JAX_MISS,        /* TRACING CACHE MISS at SITE ...: multi-line */
    LP_TORCH_RECOMPILE, /* Recompiling function F in FILE:LINE: multi-line */
    LP_TORCH_LIMIT      /* torch._dynamo hit config.LIMIT (N): multi-line */
} lp_kind;

/* What the prefix stripper learned about a line. */
typedef struct lp_prefix {
    int prefixed;     /* some known prefix was removed */
    int per_line;     /* the producer prefixes every line of a message (torch) */
    char stream[160]; /* lines of one record share this key */
    char traceid[48]; /* torch compile id "0/3" ("" when absent) */
} lp_prefix;

/* Returns the message part of `line` and fills p. */
const char *sts_lp_strip_prefix(const char *line, lp_prefix *p);

/* A record being collected. */
typedef struct lp_rec {
    lp_kind kind;
    int64_t line; /* line number of its first line */
    char **lines; /* message lines with the prefix removed; owned */
    size_t n, cap;
    int per_line;
    char stream[160];
    char traceid[48];
} lp_rec;

/* A JAX row being assembled from the stages logged for one function. */
typedef struct lp_pending {
    int active;
    int has_trace, has_sig, has_lower, has_compile;
    sts_ledger_call c;
    sts_argsig *args;
    size_t argcap;
    int64_t line;
} lp_pending;

typedef struct lp_ctx {
    sts_ledger *l;
    const char *name; /* file name for warnings */
    lp_rec *open;     /* open multi-line records, one per stream */
    size_t nopen, opencap;
    lp_pending *pend; /* indexed by function */
    size_t npend;
    sts_u64map fn_by_key; /* sanitized name id + 1 -> function index */
    int64_t lineno;
} lp_ctx;

/* ---- shared helpers (logparse_aval.c) ---- */

/* Copies the dtype spelled by s[0..n) ("f32", "float32", "Float", "torch.bfloat16") as
 * numpy names it into buf; unknown spellings are copied as they are. */
void sts_lp_dtype_norm(const char *s, size_t n, char *buf, size_t cap);

/* Parses one JAX aval: "ShapedArray(float32[8,4], weak_type=True)", "f32[8]",
 * "f32[]{weak_type=True}", "float32[8@x,4]". The dtype text goes to dtbuf and
 * a->dtype points at it. Returns 0, or -1 when it is not an aval. */
int sts_lp_parse_aval(const char *s, size_t n, sts_argsig *a, char *dtbuf, size_t dtcap);

/* Splits the bracketed list starting at s ("(A, B)", "[A, B]", "{k: v}") at its top-level
 * commas, calling fn(element, length, user) for each non-empty element. Returns the
 * number of elements, or -1 when the brackets do not balance; *end gets the position
 * after the closing bracket. */
int sts_lp_split_list(const char *s, const char **end, void (*fn)(const char *, size_t, void *), void *user);

/* Parses "T sec" / "T" as seconds into nanoseconds; -1 when not a number. */
int64_t sts_lp_seconds_ns(const char *s, const char **end);

/* A function's ledger index from a name as logged. `module` is set when the name is
 * an XLA module name ("jit_score", "jit(score)", "pmap_f"). Returns -1 when out of memory. */
long sts_lp_function(lp_ctx *x, const char *raw, size_t n, int module);

/* The pending row for function fn (created inactive on first use), or NULL. */
lp_pending *sts_lp_pending_get(lp_ctx *x, long fn);
/* Commits the pending row of function fn to the ledger, if active. */
void sts_lp_pending_commit(lp_ctx *x, long fn);

/* Records a miss reason for function fn; `seen` is the record's bitmask of categories
 * already counted (a record counts once per category). */
void sts_lp_reason(lp_ctx *x, long fn, sts_miss_category cat, const char *detail, unsigned *seen);

/* ---- handlers ---- */

/* Classifies a message line: the kind of record it starts, or LP_NONE. */
lp_kind sts_lp_jax_start(const char *msg);
lp_kind sts_lp_torch_start(const char *msg);

/* Handles a single-line JAX record; returns 0, or -1 when it did not parse (a warning
 * has been recorded). */
int sts_lp_jax_line(lp_ctx *x, lp_kind kind, const char *msg, int64_t line);
/* Handles a complete multi-line record. */
void sts_lp_jax_miss(lp_ctx *x, const lp_rec *r);
void sts_lp_torch_record(lp_ctx *x, const lp_rec *r);

/* 1 when an unprefixed line continues a Python-logging multi-line record. */
int sts_lp_is_continuation(const lp_rec *r, const char *msg);

#endif
