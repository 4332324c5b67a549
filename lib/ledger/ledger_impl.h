/* ledger: the store's own storage, shared by its files (core, queries, churn,
 * exporters). Not part of the public API, and not for the modules above (they use
 * ledger/ledger_builder.h). */
#ifndef STS_LEDGER_IMPL_H
#define STS_LEDGER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/mem.h"
#include "base/vec.h"
#include "ledger/ledger_builder.h"
#include "stepscope/ledger.h"

typedef struct lg_row {
    uint32_t fn, label, reason, source, sig; /* string ids (fn: function index) */
    uint32_t arg0, nargs;                    /* range in sts_ledger.args */
    int32_t traces, compiles, hit, has_result;
    int64_t trace_ns, lower_ns, compile_ns, total_ns;
    double result;
} lg_row;

/* A component of one function's signatures and the distinct values it took. */
typedef struct lg_comp {
    uint32_t fn;
    uint32_t arg;           /* string id of the argument label: a name, or "#i" when positional */
    int32_t what;           /* sts_lg_what */
    int32_t dim;            /* STS_LG_DIM: the dimension; else -1 */
    STS_VEC(uint32_t) vals; /* string ids, first-seen order */
    int dead;               /* merged into another component */
    int named_by_log;       /* an explanation (JAX's, torch's guards) named this component */
} lg_comp;

typedef struct lg_reason {
    uint32_t fn, detail;
    int32_t cat;
    int64_t count;
    uint32_t next; /* the function's next reason, index + 1; 0 = last */
} lg_reason;

typedef struct lg_fn {
    uint32_t name;
    int32_t source;           /* sts_ledger_source */
    int32_t identity_unknown; /* an anonymous name without a definition site */
    int64_t rows, traces, compiles, hits;
    int64_t trace_ns, lower_ns, compile_ns, max_compile_ns;
    int64_t trace_known, lower_known, compile_known; /* rows that gave that time */
    int64_t miss_rows, miss_cost_ns, miss_cost_known;
    int64_t reasons[STS_MISS_COUNT];
    int64_t counters[STS_LG_REDEFINED + 1]; /* sts_lg_counter */
    int64_t specializations;                /* torch compile ids seen (0 = none) */
    int64_t graph_breaks;                   /* -1 = the input cannot tell */
    uint32_t first_reason, last_reason;     /* its reasons in first-seen order, index + 1; 0 = none */
    STS_VEC(uint32_t) sigs;                 /* distinct signature string ids */
    STS_VEC(uint32_t) argnames;             /* positional argument names learned from logs (0 = unknown) */
} lg_fn;

typedef struct lg_sync {
    uint32_t label, scope;
    int32_t kind;
    int64_t wait_ns;
} lg_sync;

/* Whether the framework compiled f for itself (ledger_churn.c: a site inside its
 * sources, or one of the eager operations JAX jits): no churn advice then. */
int sts_lg_fn_internal(const sts_ledger *l, const lg_fn *f);

typedef struct lg_churn {
    uint32_t fn, comp, values, buckets, message; /* comp: component text id */
    uint32_t ci;                                 /* the component, index + 1; 0 = an entry without values */
    int64_t nvalues, specializations, cost_ns, nbuckets;
} lg_churn;

typedef struct lg_gbreak {
    uint32_t fn, where, reason;
    int64_t count;
} lg_gbreak;

/* A log file read, by its identity on disk. */
typedef struct lg_file {
    uint64_t dev, ino;
    uint32_t path; /* string id */
} lg_file;

struct sts_ledger {
    sts_strtab strs;
    STS_VEC(lg_fn) fns;
    sts_u64map fn_by_name; /* name id + 1 -> function index */
    STS_VEC(lg_row) rows;
    STS_VEC(sts_argsig) args; /* strings point into `strs` (stable) */
    sts_u64map sig_seen;      /* (fn, sig) -> 1 */
    STS_VEC(lg_comp) comps;
    sts_u64map comp_by_key; /* key string id + 1 -> component index */
    sts_u64map comp_val;    /* (component, value id) -> 1 */
    STS_VEC(lg_reason) reasons;
    sts_u64map reason_by_key; /* (fn, detail) -> reason index */
    STS_VEC(lg_sync) syncs;
    STS_VEC(uint32_t) warnings;
    STS_VEC(lg_churn) churn;
    STS_VEC(lg_file) files; /* the logs read, to read a file given twice once */
    STS_VEC(lg_gbreak) gbreaks;
    sts_u64map gbreak_by_key; /* (fn, where, reason) key string id + 1 -> index */
    sts_log_stats log;
    int explain_seen; /* a log held jax_explain_cache_misses records */
    int finalized;
};

/* Interns text; returns UINT32_MAX when memory is exhausted. NULL interns as "". */
uint32_t sts_lg_intern(sts_ledger *l, const char *s);
uint32_t sts_lg_intern_n(sts_ledger *l, const char *s, size_t n);
static inline const char *lg_str(const sts_ledger *l, uint32_t id)
{
    return sts_strtab_get(&l->strs, id);
}

/* sts_lg_observe() that says whether a log's explanation named the component (1) or
 * only a row's signature shows it (0). */
int sts_lg_observe_from(sts_ledger *l, size_t fn, const char *arg, sts_lg_what what, int dim, const char *value,
                        int named_by_log);

/* Churn: resolve positional names, merge and diagnose (ledger_churn.c). */
int sts_lg_churn_compute(sts_ledger *l);

/* Specializations of function f: the most of its compiles, traces and compile ids. */
int64_t sts_lg_specializations(const lg_fn *f);

#endif
