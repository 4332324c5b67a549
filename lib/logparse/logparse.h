/* logparse: internal interface of the compile-log parsers (JAX and PyTorch).
 *
 * logparse.c streams a log line by line (bounded line length), strips known prefixes
 * (logparse_prefix.c), groups the lines of multi-line records per stream and hands
 * complete records to the JAX (logparse_jax.c, logparse_explain.c) and torch
 * (logparse_torch.c) handlers. logparse_rows.c keeps what a parse learns while it
 * runs (function identities, rows being assembled, explanations waiting for their
 * trace) and writes it into the ledger when the log ends; none of that scratch state
 * lives in the ledger. */
#ifndef STS_LOGPARSE_LOGPARSE_H
#define STS_LOGPARSE_LOGPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "base/mem.h"
#include "base/vec.h"
#include "ledger/ledger_builder.h"

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
    int64_t line;          /* line number of its first line */
    STS_VEC(char *) lines; /* message lines with the prefix removed; owned */
    size_t bytes;          /* text held, bounded */
    int per_line;
    char stream[160];
    char traceid[48];
} lp_rec;

/* Most static values one cache-miss explanation carries to its row. */
#define LP_MAX_STATICS 8

/* A function as this parse knows it. */
typedef struct lp_ident {
    uint32_t display;          /* the name shown: "score (train.py:12)", or "add" */
    uint32_t key;              /* its base name as XLA sanitizes it ("_lambda_") */
    int has_site;              /* the log gave its definition site */
    long fn;                   /* ledger function index once something is recorded; -1 before */
    STS_VEC(uint32_t) rows;    /* its rows (indices into lp_ctx.rows) */
    STS_VEC(uint32_t) statics; /* names of static arguments explanations named */
    /* torch */
    long last_row;        /* the latest recompile row, -1 when none */
    uint32_t last_trace;  /* its compile id ("0/3"); 0 = none */
    int64_t last_entries; /* cache entries that record listed */
    int64_t max_compile_id;
} lp_ident;

/* A row being assembled (JAX: from the stages logged for one specialization). */
typedef struct lp_row {
    uint32_t ident;
    sts_ledger_source src;
    int active; /* JAX: later stages may still arrive */
    int has_trace, has_sig, has_lower, has_compile, explained;
    int traces, compiles;
    int64_t trace_ns, lower_ns, compile_ns;
    uint32_t reason;             /* "category: detail"; 0 = none */
    uint32_t sig_text;           /* torch: the signature as text; 0 = from the arguments */
    int64_t line;                /* where the row's first record starts */
    uint32_t avals;              /* the AVALS list of its Compiling line, parsed when it is written; 0 = none */
    STS_VEC(sts_argsig) statics; /* static values; value NULL when unknown */
} lp_row;

/* A JAX 0.9+ cache-miss explanation, printed before the trace it explains. */
typedef struct lp_open {
    uint32_t ident;
    uint32_t site_display; /* name and definition site, without "called at" */
    int nested_same;       /* a function with its enclosing trace's identity: no trace line of its own */
    uint32_t reason;
    int nstatics;
    uint32_t snames[LP_MAX_STATICS], svals[LP_MAX_STATICS];
} lp_open;

typedef struct lp_ctx {
    sts_ledger *l;
    const char *name; /* file name for warnings */
    sts_strtab strs;  /* this parse's strings; pointers stay valid until it ends */
    STS_VEC(lp_ident) idents;
    sts_u64map ident_by_display; /* display id + 1 -> ident */
    sts_u64map bind;             /* key id + 1 -> the ident a bare name now stands for */
    sts_u64map active;           /* key id + 1 -> row index of that name's JAX row */
    STS_VEC(uint32_t) live;      /* rows that may be active (a superset, compacted as they end) */
    STS_VEC(lp_row) rows;
    STS_VEC(lp_open) open;
    STS_VEC(lp_rec) recs;        /* open multi-line records, one per stream */
    STS_VEC(sts_argsig) scratch; /* a row's arguments while it is written */
    sts_log_stats st;
    int64_t lineno;
    int oom;
    struct lp_trace *tt; /* TORCH_TRACE state, made at its first record; NULL before */
} lp_ctx;

/* ---- strings and identities (logparse_rows.c) ---- */

uint32_t sts_lp_str(lp_ctx *x, const char *s, size_t n);
static inline const char *lp_str(const lp_ctx *x, uint32_t id)
{
    return sts_strtab_get(&x->strs, id);
}

/* The key of a name as logged: wrappers ("jit(f)"), an XLA module prefix ("jit_f",
 * when `module`) and a qualname's dotted path removed, then sanitized as XLA does
 * ("<lambda>" -> "_lambda_"). The base name (unsanitized) goes to base. */
uint32_t sts_lp_key(lp_ctx *x, const char *raw, size_t n, int module, char *base, size_t cap);

/* The identity named `display` with base-name key `key`, created on first use; -1
 * when out of memory. */
long sts_lp_ident(lp_ctx *x, const char *display, uint32_t key, int has_site);

/* The identity a bare name stands for now: the last one bound to its key, else one
 * named by the base name. */
long sts_lp_ident_for(lp_ctx *x, const char *raw, size_t n, int module);

/* Makes `ident` what bare name `key` stands for from now on. */
void sts_lp_bind(lp_ctx *x, uint32_t key, long ident);

/* The ledger function of an identity, created (with its source) on first use; -1
 * when out of memory. */
long sts_lp_fn(lp_ctx *x, long ident, sts_ledger_source src);

/* A new row for `ident`; NULL when out of memory. Rows are written to the ledger, in
 * order, when the log ends. */
lp_row *sts_lp_row_new(lp_ctx *x, long ident, sts_ledger_source src, int64_t line);

/* The JAX row of base-name key `key` that later stages may still complete, or NULL. */
lp_row *sts_lp_row_active(lp_ctx *x, uint32_t key);

/* Sets static argument `name` of row r to `value` (NULL = unknown), replacing any. */
void sts_lp_row_static(lp_ctx *x, lp_row *r, uint32_t name, const char *value);

/* Records a miss reason for `ident`; `seen` is the record's bitmask of categories
 * already counted (a record counts once per category). */
void sts_lp_reason(lp_ctx *x, long ident, sts_miss_category cat, const char *detail, unsigned *seen);

/* Records a warning naming this parse's file and `line`. */
void sts_lp_warn(lp_ctx *x, int64_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes every row, in order, into the ledger and pushes what the identities learned. */
void sts_lp_commit(lp_ctx *x);

void sts_lp_ctx_release(lp_ctx *x);

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

/* ---- handlers ---- */

/* Classifies a message line: the kind of record it starts, or LP_NONE. */
lp_kind sts_lp_jax_start(const char *msg);
lp_kind sts_lp_torch_start(const char *msg);

/* Handles a single-line JAX record; returns 0, or -1 when it did not parse (a warning
 * has been recorded). */
int sts_lp_jax_line(lp_ctx *x, lp_kind kind, const char *msg, int64_t line);

/* The open explanation a trace line for `key` completes (JAX 0.9 on), removed with
 * those opened after it; 0 when there is none (then *out is untouched). */
int sts_lp_take_open(lp_ctx *x, uint32_t key, lp_open *out);

/* Handles a complete multi-line record. */
void sts_lp_jax_miss(lp_ctx *x, const lp_rec *r);
void sts_lp_torch_record(lp_ctx *x, const lp_rec *r);

/* The identity "F (base:LINE)" of torch function `name` defined at "FILE:LINE"
 * (loc[0..ln)); -1 when out of memory. */
long sts_lp_torch_function(lp_ctx *x, const char *name, size_t n, const char *loc, size_t ln);

/* What one recompile's guard failures say. */
typedef struct lp_guards {
    char sig[1024];     /* the new input, as far as the failures name it ("x.size(0)=12") */
    char old_sig[1024]; /* the oldest listed cache entry's input (compile id 0 when listed) */
    char reason[512];   /* "category: detail" of the newest entry's first failure; "" when none */
    long oldest_id;     /* the oldest listed entry's compile index; -1 when not given */
    int entries;        /* cache entries listed */
} lp_guards;

/* Classifies one recompile's guard failures (entries "0/1: tensor 'x' size mismatch
 * ...", newest cache entry first; verbose failures of one entry joined by "; "),
 * records their reasons and observed components for `ident` and fills *out. *max_id is
 * raised to the number of compile ids the entries imply. Returns 0, or -1 when out of
 * memory. */
int sts_lp_torch_guards(lp_ctx *x, long ident, const char *const *entries, size_t n, long *max_id, lp_guards *out);

/* TORCH_TRACE structured logs (logparse_trace.c). A line whose message (after a glog
 * prefix) is a JSON object is one record; the tab-indented lines after it are its
 * payload. Returns 1 when `raw` was taken as part of a trace record. */
int sts_lp_trace_line(lp_ctx *x, const char *raw, const lp_prefix *pf, const char *msg);
/* Handles the trace record still open (at a line that is not its payload). */
void sts_lp_trace_flush(lp_ctx *x);
/* At the end of a log: the open record, then a warning for each graph break whose
 * frame no record named. */
void sts_lp_trace_end(lp_ctx *x);
void sts_lp_trace_release(lp_ctx *x);
typedef struct lp_trace lp_trace;

/* 1 when an unprefixed line continues a Python-logging multi-line record. */
int sts_lp_is_continuation(const lp_rec *r, const char *msg);

#endif
