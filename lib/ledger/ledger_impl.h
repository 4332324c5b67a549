/* ledger: internal storage shared by the ledger's files (core, churn, export, log
 * parsers). Not part of the public API. */
#ifndef STS_LEDGER_IMPL_H
#define STS_LEDGER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/mem.h"
#include "stepscope/ledger.h"

/* Which part of an argument a churn component follows. */
typedef enum lg_what { LG_RANK = 0, LG_DIM, LG_DTYPE, LG_WEAK, LG_VALUE } lg_what;

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
    uint32_t arg;   /* string id of the argument label: a name, or "#i" when positional */
    int32_t what;   /* lg_what */
    int32_t dim;    /* LG_DIM: the dimension; else -1 */
    uint32_t *vals; /* string ids, first-seen order */
    size_t nvals, cap;
    int dead; /* merged into another component */
} lg_comp;

typedef struct lg_reason {
    uint32_t fn, detail;
    int32_t cat;
    int64_t count;
} lg_reason;

typedef struct lg_fn {
    uint32_t name;
    int64_t calls, traces, compiles, hits;
    int64_t trace_ns, lower_ns, compile_ns, max_compile_ns;
    int64_t miss_rows, miss_cost_ns, miss_cost_known;
    int64_t reasons[STS_MISS_COUNT];
    int64_t pers_hits, pers_misses, pers_writes, limit_hits, max_compile_id;
    uint32_t *sigs; /* distinct signature string ids */
    size_t nsigs, sigcap;
    uint32_t *argnames; /* positional argument names learned from logs (0 = unknown) */
    size_t nargnames;
    /* Log parsing. */
    int64_t last_row;        /* torch: the latest recompile row, -1 when none */
    uint32_t last_trace;     /* torch: its compile id string ("0/3"); 0 = none */
    int64_t last_entries;    /* torch: cache entries that record listed */
    uint32_t pending_reason; /* explanation waiting for the next row; 0 = none */
} lg_fn;

typedef struct lg_sync {
    uint32_t label, scope;
    int32_t kind;
    int64_t wait_ns;
} lg_sync;

typedef struct lg_churn {
    uint32_t fn, comp, values, buckets, message; /* comp: component text id */
    int64_t nvalues, specializations, cost_ns, nbuckets;
} lg_churn;

struct sts_ledger {
    sts_strtab strs;
    lg_fn *fns;
    size_t nfns, fncap;
    sts_u64map fn_by_name; /* name id + 1 -> function index */
    lg_row *rows;
    size_t nrows, rowcap;
    sts_argsig *args; /* strings point into `strs` (stable) */
    size_t nargs, argcap;
    sts_u64map sig_seen; /* (fn, sig) -> 1 */
    lg_comp *comps;
    size_t ncomps, compcap;
    sts_u64map comp_by_key; /* key string id + 1 -> component index */
    sts_u64map comp_val;    /* (component, value id) -> 1 */
    lg_reason *reasons;
    size_t nreasons, reasoncap;
    sts_u64map reason_by_key; /* (fn, detail) -> reason index */
    lg_sync *syncs;
    size_t nsyncs, synccap;
    uint32_t *warnings;
    size_t nwarnings, warncap;
    lg_churn *churn;
    size_t nchurn, churncap;
    sts_log_stats log;
    int finalized;
};

/* Interns text; returns UINT32_MAX when memory is exhausted. NULL interns as "". */
uint32_t sts_lg_intern(sts_ledger *l, const char *s);
uint32_t sts_lg_intern_n(sts_ledger *l, const char *s, size_t n);
static inline const char *lg_str(const sts_ledger *l, uint32_t id)
{
    return sts_strtab_get(&l->strs, id);
}

/* Index of the function named `name`, created on first use; -1 when out of memory. */
long sts_lg_fn_get(sts_ledger *l, const char *name);

/* Records that component (arg, what, dim) of function fn took `value`. `arg` is a
 * name or "#i". Returns 0, or -1 when out of memory. */
int sts_lg_observe(sts_ledger *l, size_t fn, const char *arg, lg_what what, int dim, const char *value);

/* sts_ledger_add_call() with the signature text given instead of derived from args
 * (torch rows, whose guards name only the parts that changed). NULL derives it. */
sts_status sts_lg_add_call_sig(sts_ledger *l, const sts_ledger_call *c, const char *sig_text, sts_error *err);

/* sts_ledger_add_reason(); the category's count grows only when count_category is set
 * (a record with several differences of one kind counts once). */
sts_status sts_lg_add_reason(sts_ledger *l, const char *function, sts_miss_category cat, const char *detail,
                             int count_category, sts_error *err);

/* Records a warning "name:line: message". */
void sts_lg_warn(sts_ledger *l, const char *name, int64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Canonical text of an argument signature: "x: float32[8], gain: float32[] (dynamic)". */
int sts_lg_format_sig(const sts_argsig *args, int nargs, char *buf, size_t cap);

/* Churn: resolve positional names, merge and diagnose (ledger_churn.c). */
int sts_lg_churn_compute(sts_ledger *l);

/* Duration text for messages: "12.3 ms", "1.20 s", "850 us". */
void sts_lg_fmt_ns(int64_t ns, char *buf, size_t cap);

#endif
