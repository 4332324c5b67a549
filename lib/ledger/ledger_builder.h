/* ledger: the builder header, what the modules above the store (the log parsers in
 * logparse, the specialized-function runtime in spec) may do to a ledger beyond the
 * public API. Not public; the store's own insides are ledger_impl.h. Functions are
 * addressed by their index (sts_lg_fn_get). */
#ifndef STS_LEDGER_BUILDER_H
#define STS_LEDGER_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "stepscope/ledger.h"

/* Which part of an argument a churn component follows. */
typedef enum sts_lg_what { STS_LG_RANK = 0, STS_LG_DIM, STS_LG_DTYPE, STS_LG_WEAK, STS_LG_VALUE } sts_lg_what;

/* Per-function counters only logs know. */
typedef enum sts_lg_counter {
    STS_LG_PERS_HIT = 0, /* JAX persistent compilation cache */
    STS_LG_PERS_MISS,
    STS_LG_PERS_WRITE,
    STS_LG_LIMIT_HIT, /* torch recompile-limit warnings */
    STS_LG_REDEFINED  /* JAX: "seen another function defined on the same line" */
} sts_lg_counter;

/* Index of the function named `name`, created on first use; -1 when out of memory. */
long sts_lg_fn_get(sts_ledger *l, const char *name);

/* Marks where function fn's rows come from (hits and calls are unknown for logs). */
void sts_lg_fn_set_source(sts_ledger *l, size_t fn, sts_ledger_source src);

void sts_lg_fn_count(sts_ledger *l, size_t fn, sts_lg_counter c, int64_t n);

/* Raises function fn's specialization count to at least n (torch compile ids). */
void sts_lg_fn_specializations_at_least(sts_ledger *l, size_t fn, int64_t n);

/* Marks fn as a name that may stand for several functions (an anonymous function
 * logged without its definition site): its rows are not diagnosed as one function. */
void sts_lg_fn_identity_unknown(sts_ledger *l, size_t fn);

/* Records that one compile of function fn met a graph break at `where` (may be "")
 * for `reason`; the same (where, reason) again counts up. Makes fn's graph-break count
 * known. Returns 0, or -1 when out of memory. */
int sts_lg_graph_break(sts_ledger *l, size_t fn, const char *where, const char *reason);

/* Makes function fn's graph-break count known (0 until sts_lg_graph_break()): the
 * input would have recorded any. */
void sts_lg_fn_graph_breaks_known(sts_ledger *l, size_t fn);

/* The names of fn's positional arguments, in order, as a log listed them all. */
int sts_lg_fn_set_argnames(sts_ledger *l, size_t fn, const char *const *names, size_t n);

/* Records that component (arg, what, dim) of function fn took `value`. `arg` is a
 * name or "#i" for the i-th positional array. Returns 0, or -1 when out of memory. */
int sts_lg_observe(sts_ledger *l, size_t fn, const char *arg, sts_lg_what what, int dim, const char *value);

/* sts_ledger_add_call() for a row from `src`, with the signature text given instead of
 * derived from the arguments when sig_text is not NULL (torch rows, whose guards name
 * only the parts that changed). */
sts_status sts_lg_add_row(sts_ledger *l, const sts_ledger_call *c, const char *sig_text, sts_ledger_source src,
                          sts_error *err);

/* sts_ledger_add_reason(); the category's count grows only when count_category is set
 * (a record with several differences of one kind counts once). */
sts_status sts_lg_add_reason(sts_ledger *l, const char *function, sts_miss_category cat, const char *detail,
                             int count_category, sts_error *err);

/* Keeps a warning "name:line: message" ("name: message" when line is 0) (up to the first 1,000; the caller counts them
 * in the log statistics). */
void sts_lg_warn(sts_ledger *l, const char *name, int64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The path under which the file (dev, ino) was read before, or NULL after recording it
 * under `path` (NULL too when memory is exhausted: the file is then read again). */
const char *sts_lg_file_seen(sts_ledger *l, uint64_t dev, uint64_t ino, const char *path);

/* Adds one parse's counters to the ledger's. */
void sts_lg_log_add(sts_ledger *l, const sts_log_stats *d);

/* Notes that a log held jax_explain_cache_misses records (so advice never asks for
 * them). */
void sts_lg_note_explain(sts_ledger *l);

/* Appends the canonical text of an argument signature:
 * "x: float32[8], gain: float32 (dynamic), square=True (static)". */
void sts_lg_format_sig(const sts_argsig *args, int nargs, sts_sbuf *out);

/* Duration text for messages, as stepscope writes every duration (stepscope/format.h:
 * "12.3 ms", "1.20 s", "850 µs"); a negative ns (not known) is "unknown". */
void sts_lg_fmt_ns(int64_t ns, char *buf, size_t cap);

#endif
