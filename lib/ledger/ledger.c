/* ledger: storage and recording (rows, reasons, host syncs, warnings). */
#include "ledger/ledger_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope/format.h"

/* Warnings kept as text; the count in the log statistics goes on. */
#define MAX_WARNINGS 1000

static const char *const miss_names[STS_MISS_COUNT] = { "first",     "shape",  "dtype",   "static",
                                                        "weak_type", "pytree", "context", "other" };

const char *sts_miss_category_name(sts_miss_category c)
{
    return (unsigned)c < STS_MISS_COUNT ? miss_names[c] : "other";
}

const char *sts_sync_kind_name(sts_sync_kind k)
{
    switch (k) {
    case STS_SYNC_READ:
        return "read";
    case STS_SYNC_WAIT:
        return "wait";
    case STS_SYNC_SCALAR:
        return "scalar";
    }
    return "wait";
}

const char *sts_ledger_source_name(sts_ledger_source s)
{
    switch (s) {
    case STS_LEDGER_SRC_CALLS:
        return "calls";
    case STS_LEDGER_SRC_JAX_LOG:
        return "jax_log";
    case STS_LEDGER_SRC_TORCH_LOG:
        return "torch_log";
    case STS_LEDGER_SRC_TORCH_TRACE:
        return "torch_trace";
    }
    return "calls";
}

sts_ledger *sts_ledger_create(void)
{
    sts_ledger *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    if (sts_strtab_init(&l->strs) != 0) {
        free(l);
        return NULL;
    }
    return l;
}

void sts_ledger_free(sts_ledger *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->fns.n; i++) {
        STS_VEC_RELEASE(l->fns.v[i].sigs);
        STS_VEC_RELEASE(l->fns.v[i].argnames);
    }
    for (size_t i = 0; i < l->comps.n; i++)
        STS_VEC_RELEASE(l->comps.v[i].vals);
    STS_VEC_RELEASE(l->fns);
    STS_VEC_RELEASE(l->rows);
    STS_VEC_RELEASE(l->args);
    STS_VEC_RELEASE(l->comps);
    STS_VEC_RELEASE(l->reasons);
    STS_VEC_RELEASE(l->syncs);
    STS_VEC_RELEASE(l->warnings);
    STS_VEC_RELEASE(l->churn);
    STS_VEC_RELEASE(l->files);
    STS_VEC_RELEASE(l->gbreaks);
    sts_u64map_release(&l->gbreak_by_key);
    sts_u64map_release(&l->fn_by_name);
    sts_u64map_release(&l->sig_seen);
    sts_u64map_release(&l->comp_by_key);
    sts_u64map_release(&l->comp_val);
    sts_u64map_release(&l->reason_by_key);
    sts_strtab_release(&l->strs);
    free(l);
}

uint32_t sts_lg_intern_n(sts_ledger *l, const char *s, size_t n)
{
    if (!s) return 0;
    if (n > UINT32_MAX / 2) n = UINT32_MAX / 2;
    return sts_strtab_intern(&l->strs, s, n);
}

uint32_t sts_lg_intern(sts_ledger *l, const char *s)
{
    return s ? sts_lg_intern_n(l, s, strlen(s)) : 0;
}

long sts_lg_fn_get(sts_ledger *l, const char *name)
{
    uint32_t id = sts_lg_intern(l, name);
    if (id == UINT32_MAX) return -1;
    uint32_t found = sts_u64map_get(&l->fn_by_name, (uint64_t)id + 1);
    if (found != UINT32_MAX) return (long)found;
    lg_fn *f = STS_VEC_PUSH(l->fns);
    if (!f) return -1;
    f->name = id;
    f->max_compile_ns = -1;
    f->graph_breaks = -1;
    if (sts_u64map_put(&l->fn_by_name, (uint64_t)id + 1, (uint32_t)(l->fns.n - 1)) != 0) {
        l->fns.n--;
        return -1;
    }
    l->finalized = 0;
    return (long)(l->fns.n - 1);
}

void sts_lg_fn_set_source(sts_ledger *l, size_t fn, sts_ledger_source src)
{
    /* A log's rows make the function's hits unknown, whatever else recorded it. */
    if (fn < l->fns.n && src != STS_LEDGER_SRC_CALLS) l->fns.v[fn].source = src;
}

void sts_lg_fn_count(sts_ledger *l, size_t fn, sts_lg_counter c, int64_t n)
{
    if (fn < l->fns.n && (unsigned)c <= STS_LG_REDEFINED) l->fns.v[fn].counters[c] += n;
    l->finalized = 0;
}

void sts_lg_fn_specializations_at_least(sts_ledger *l, size_t fn, int64_t n)
{
    if (fn < l->fns.n && n > l->fns.v[fn].specializations) l->fns.v[fn].specializations = n;
    l->finalized = 0;
}

void sts_lg_fn_graph_breaks_known(sts_ledger *l, size_t fn)
{
    if (fn < l->fns.n && l->fns.v[fn].graph_breaks < 0) l->fns.v[fn].graph_breaks = 0;
}

int sts_lg_graph_break(sts_ledger *l, size_t fn, const char *where, const char *reason)
{
    if (fn >= l->fns.n) return -1;
    sts_lg_fn_graph_breaks_known(l, fn);
    l->fns.v[fn].graph_breaks++;
    /* One key string per (function, site, reason): the reason may hold any byte but NUL. */
    sts_sbuf key = STS_SBUF_INIT;
    sts_sbuf_printf(&key, "%zu\x1f%s\x1f%s", fn, where ? where : "", reason ? reason : "");
    uint32_t kid = key.oom ? UINT32_MAX : sts_lg_intern_n(l, key.p, key.n);
    sts_sbuf_release(&key);
    if (kid == UINT32_MAX) return -1;
    uint32_t at = sts_u64map_get(&l->gbreak_by_key, (uint64_t)kid + 1);
    if (at != UINT32_MAX) {
        l->gbreaks.v[at].count++;
        return 0;
    }
    uint32_t w = sts_lg_intern(l, where ? where : ""), r = sts_lg_intern(l, reason ? reason : "");
    if (w == UINT32_MAX || r == UINT32_MAX) return -1;
    lg_gbreak *g = STS_VEC_PUSH(l->gbreaks);
    if (!g) return -1;
    *g = (lg_gbreak){ .fn = (uint32_t)fn, .where = w, .reason = r, .count = 1 };
    if (sts_u64map_put(&l->gbreak_by_key, (uint64_t)kid + 1, (uint32_t)(l->gbreaks.n - 1)) != 0) {
        l->gbreaks.n--;
        return -1;
    }
    return 0;
}

void sts_lg_fn_identity_unknown(sts_ledger *l, size_t fn)
{
    if (fn < l->fns.n) l->fns.v[fn].identity_unknown = 1;
    l->finalized = 0;
}

int sts_lg_fn_set_argnames(sts_ledger *l, size_t fn, const char *const *names, size_t n)
{
    if (fn >= l->fns.n) return -1;
    lg_fn *f = &l->fns.v[fn];
    if (STS_VEC_RESERVE(f->argnames, n) != 0) return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = sts_lg_intern(l, names[i]);
        if (id == UINT32_MAX) return -1;
        f = &l->fns.v[fn];
        f->argnames.v[i] = id;
    }
    f->argnames.n = n;
    l->finalized = 0;
    return 0;
}

void sts_lg_note_explain(sts_ledger *l)
{
    l->explain_seen = 1;
    l->finalized = 0;
}

void sts_lg_log_add(sts_ledger *l, const sts_log_stats *d)
{
    l->log.files += d->files;
    l->log.lines += d->lines;
    l->log.records += d->records;
    l->log.skipped += d->skipped;
    l->log.comments += d->comments;
    l->log.warnings += d->warnings;
    l->log.long_lines += d->long_lines;
    l->finalized = 0;
}

static uint64_t pair_key(uint64_t a, uint64_t b)
{
    return ((a + 1) << 32) | (b & 0xffffffffu);
}

int sts_lg_observe(sts_ledger *l, size_t fn, const char *arg, sts_lg_what what, int dim, const char *value)
{
    return sts_lg_observe_from(l, fn, arg, what, dim, value, 1);
}

int sts_lg_observe_from(sts_ledger *l, size_t fn, const char *arg, sts_lg_what what, int dim, const char *value,
                        int named_by_log)
{
    if (!value) return 0; /* an unknown value is no value */
    char key[512];
    snprintf(key, sizeof key, "%zu\x1f%s\x1f%d\x1f%d", fn, arg, (int)what, dim);
    uint32_t kid = sts_lg_intern(l, key), vid = sts_lg_intern(l, value);
    uint32_t aid = sts_lg_intern(l, arg);
    if (kid == UINT32_MAX || vid == UINT32_MAX || aid == UINT32_MAX) return -1;
    uint32_t ci = sts_u64map_get(&l->comp_by_key, (uint64_t)kid + 1);
    if (ci == UINT32_MAX) {
        lg_comp *c = STS_VEC_PUSH(l->comps);
        if (!c) return -1;
        c->fn = (uint32_t)fn;
        c->arg = aid;
        c->what = what;
        c->dim = what == STS_LG_DIM ? dim : -1;
        ci = (uint32_t)(l->comps.n - 1);
        if (sts_u64map_put(&l->comp_by_key, (uint64_t)kid + 1, ci) != 0) return -1;
    }
    l->comps.v[ci].named_by_log |= named_by_log;
    if (sts_u64map_get(&l->comp_val, pair_key(ci, vid)) != UINT32_MAX) return 0;
    uint32_t *slot = STS_VEC_PUSH(l->comps.v[ci].vals);
    if (!slot) return -1;
    *slot = vid;
    l->finalized = 0;
    return sts_u64map_put(&l->comp_val, pair_key(ci, vid), 1);
}

static int observe_args(sts_ledger *l, size_t fn, const sts_argsig *args, int nargs)
{
    char label[64], val[64];
    for (int i = 0; i < nargs; i++) {
        const sts_argsig *a = &args[i];
        if (a->name && *a->name)
            snprintf(label, sizeof label, "%s", a->name);
        else
            snprintf(label, sizeof label, "#%d", i);
        if (a->kind == STS_PARAM_STATIC) {
            if (sts_lg_observe_from(l, fn, label, STS_LG_VALUE, -1, a->value, 0) != 0) return -1;
            continue;
        }
        if (a->dtype && sts_lg_observe_from(l, fn, label, STS_LG_DTYPE, -1, a->dtype, 0) != 0) return -1;
        if (a->kind == STS_PARAM_DYNAMIC) continue;
        if (sts_lg_observe_from(l, fn, label, STS_LG_WEAK, -1, a->weak_type ? "weak" : "strong", 0) != 0) return -1;
        if (a->ndim < 0) continue;
        snprintf(val, sizeof val, "%d", a->ndim);
        if (sts_lg_observe_from(l, fn, label, STS_LG_RANK, -1, val, 0) != 0) return -1;
        for (int d = 0; d < a->ndim; d++) {
            if (a->shape[d] < 0)
                snprintf(val, sizeof val, "?");
            else
                snprintf(val, sizeof val, "%" PRId64, a->shape[d]);
            if (sts_lg_observe_from(l, fn, label, STS_LG_DIM, d, val, 0) != 0) return -1;
        }
    }
    return 0;
}

static int add_signature(sts_ledger *l, size_t fn, uint32_t sig)
{
    uint64_t key = pair_key(fn, sig);
    if (sts_u64map_get(&l->sig_seen, key) != UINT32_MAX) return 0;
    uint32_t *slot = STS_VEC_PUSH(l->fns.v[fn].sigs);
    if (!slot) return -1;
    *slot = sig;
    return sts_u64map_put(&l->sig_seen, key, 1);
}

static sts_status check_call(const sts_ledger_call *c, sts_error *err)
{
    if (!c || !c->function || !*c->function)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: a call needs a function name");
    if (c->nargs < 0 || c->nargs > 4096 || (c->nargs > 0 && !c->args))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: %s: %d arguments is out of range", c->function,
                             c->nargs);
    for (int i = 0; i < c->nargs; i++)
        if (c->args[i].ndim > STS_LEDGER_MAX_DIMS)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: %s: argument %d has rank %d (at most %d)",
                                 c->function, i, c->args[i].ndim, STS_LEDGER_MAX_DIMS);
    return STS_OK;
}

static sts_status nomem(sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "ledger: out of memory");
}

static const char *stable(sts_ledger *l, const char *s, int *bad)
{
    if (!s) return NULL;
    uint32_t id = sts_lg_intern(l, s);
    if (id == UINT32_MAX) {
        *bad = 1;
        return NULL;
    }
    return lg_str(l, id);
}

static int store_args(sts_ledger *l, const sts_ledger_call *c, lg_row *r)
{
    r->arg0 = (uint32_t)l->args.n;
    r->nargs = (uint32_t)c->nargs;
    if (STS_VEC_RESERVE(l->args, l->args.n + (size_t)c->nargs) != 0) return -1;
    int bad = 0;
    for (int i = 0; i < c->nargs; i++) {
        sts_argsig *s = &l->args.v[l->args.n + (size_t)i];
        *s = c->args[i];
        s->name = stable(l, s->name, &bad);
        s->dtype = stable(l, s->dtype, &bad);
        s->value = stable(l, s->value, &bad);
        if (s->ndim < -1) s->ndim = -1;
    }
    l->args.n += (size_t)c->nargs;
    return bad ? -1 : 0;
}

static void add_totals(lg_fn *f, const sts_ledger_call *c)
{
    f->rows++;
    f->traces += c->traces;
    f->compiles += c->compiles;
    f->hits += c->hit ? 1 : 0;
    if (c->trace_ns > 0) f->trace_ns += c->trace_ns;
    if (c->lower_ns > 0) f->lower_ns += c->lower_ns;
    f->trace_known += c->trace_ns >= 0;
    f->lower_known += c->lower_ns >= 0;
    f->compile_known += c->compile_ns >= 0;
    if (c->compile_ns >= 0) {
        f->compile_ns += c->compile_ns;
        if (c->compile_ns > f->max_compile_ns) f->max_compile_ns = c->compile_ns;
    }
    if (!c->hit) {
        f->miss_rows++;
        int64_t cost = (c->trace_ns > 0 ? c->trace_ns : 0) + (c->lower_ns > 0 ? c->lower_ns : 0) +
                       (c->compile_ns > 0 ? c->compile_ns : 0);
        if (c->trace_ns >= 0 || c->compile_ns >= 0 || c->lower_ns >= 0) f->miss_cost_known++;
        f->miss_cost_ns += cost;
    }
}

sts_status sts_ledger_add_call(sts_ledger *l, const sts_ledger_call *c, sts_error *err)
{
    return sts_lg_add_row(l, c, NULL, STS_LEDGER_SRC_CALLS, err);
}

sts_status sts_lg_add_row(sts_ledger *l, const sts_ledger_call *c, const char *sig_text, sts_ledger_source src,
                          sts_error *err)
{
    if (!l) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: NULL ledger");
    sts_status st = check_call(c, err);
    if (st != STS_OK) return st;
    long fn = sts_lg_fn_get(l, c->function);
    if (fn < 0 || STS_VEC_RESERVE(l->rows, l->rows.n + 1) != 0) return nomem(err);
    lg_row *r = &l->rows.v[l->rows.n];
    memset(r, 0, sizeof *r);
    r->fn = (uint32_t)fn;
    sts_sbuf sig = STS_SBUF_INIT;
    if (sig_text)
        sts_sbuf_puts(&sig, sig_text);
    else
        sts_lg_format_sig(c->args, c->nargs, &sig);
    r->label = sts_lg_intern(l, c->label);
    r->reason = sts_lg_intern(l, c->reason);
    r->source = sts_lg_intern(l, c->source);
    r->sig = sig.oom ? UINT32_MAX : sts_lg_intern_n(l, sig.p ? sig.p : "", sig.n);
    sts_sbuf_release(&sig);
    if (r->label == UINT32_MAX || r->reason == UINT32_MAX || r->source == UINT32_MAX || r->sig == UINT32_MAX)
        return nomem(err);
    if (store_args(l, c, r) != 0) return nomem(err);
    r->traces = c->traces;
    r->compiles = c->compiles;
    r->hit = c->hit != 0;
    r->has_result = c->has_result != 0;
    r->result = c->result;
    r->trace_ns = c->trace_ns;
    r->lower_ns = c->lower_ns;
    r->compile_ns = c->compile_ns;
    r->total_ns = c->total_ns;
    lg_fn *f = &l->fns.v[fn];
    add_totals(f, c);
    sts_lg_fn_set_source(l, (size_t)fn, src);
    if ((c->nargs > 0 || lg_str(l, r->sig)[0]) && add_signature(l, (size_t)fn, r->sig) != 0) return nomem(err);
    if (!c->hit && c->nargs > 0 && observe_args(l, (size_t)fn, c->args, c->nargs) != 0) return nomem(err);
    l->rows.n++;
    l->finalized = 0;
    return STS_OK;
}

sts_status sts_ledger_add_reason(sts_ledger *l, const char *function, sts_miss_category cat, const char *detail,
                                 sts_error *err)
{
    return sts_lg_add_reason(l, function, cat, detail, 1, err);
}

sts_status sts_lg_add_reason(sts_ledger *l, const char *function, sts_miss_category cat, const char *detail,
                             int count_category, sts_error *err)
{
    if (!l || !function || !*function || (unsigned)cat >= STS_MISS_COUNT)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: a reason needs a function and a category");
    long fn = sts_lg_fn_get(l, function);
    uint32_t did = sts_lg_intern(l, detail);
    if (fn < 0 || did == UINT32_MAX) return nomem(err);
    l->finalized = 0;
    if (count_category) l->fns.v[fn].reasons[cat]++;
    uint64_t key = pair_key((uint64_t)fn, did);
    uint32_t ri = sts_u64map_get(&l->reason_by_key, key);
    if (ri != UINT32_MAX) {
        l->reasons.v[ri].count++;
        return STS_OK;
    }
    lg_reason *r = STS_VEC_PUSH(l->reasons);
    if (!r) return nomem(err);
    r->fn = (uint32_t)fn;
    r->detail = did;
    r->cat = cat;
    r->count = 1;
    uint32_t id = (uint32_t)l->reasons.n; /* index + 1 */
    lg_fn *f = &l->fns.v[fn];
    if (f->last_reason)
        l->reasons.v[f->last_reason - 1].next = id;
    else
        f->first_reason = id;
    f->last_reason = id;
    if (sts_u64map_put(&l->reason_by_key, key, id - 1) != 0) return nomem(err);
    return STS_OK;
}

sts_status sts_ledger_add_sync(sts_ledger *l, const char *label, const char *scope, sts_sync_kind kind, int64_t wait_ns,
                               sts_error *err)
{
    if (!l) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: NULL ledger");
    if ((unsigned)kind > STS_SYNC_SCALAR)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: unknown host-sync kind %d", (int)kind);
    uint32_t lid = sts_lg_intern(l, label ? label : "");
    uint32_t sid = sts_lg_intern(l, scope && *scope ? scope : "default");
    if (lid == UINT32_MAX || sid == UINT32_MAX) return nomem(err);
    lg_sync *s = STS_VEC_PUSH(l->syncs);
    if (!s) return nomem(err);
    s->label = lid;
    s->scope = sid;
    s->kind = kind;
    s->wait_ns = wait_ns < 0 ? 0 : wait_ns;
    return STS_OK;
}

const char *sts_lg_file_seen(sts_ledger *l, uint64_t dev, uint64_t ino, const char *path)
{
    for (size_t i = 0; i < l->files.n; i++)
        if (l->files.v[i].dev == dev && l->files.v[i].ino == ino) return lg_str(l, l->files.v[i].path);
    uint32_t id = sts_lg_intern(l, path);
    lg_file *f = id == UINT32_MAX ? NULL : STS_VEC_PUSH(l->files);
    if (f) *f = (lg_file){ dev, ino, id };
    return NULL;
}

void sts_lg_warn(sts_ledger *l, const char *name, int64_t line, const char *fmt, ...)
{
    if (l->warnings.n >= MAX_WARNINGS) return;
    char msg[600], full[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(full, sizeof full, "%s:%" PRId64 ": %s", name, line, msg);
    else
        snprintf(full, sizeof full, "%s: %s", name, msg); /* about the whole file */
    uint32_t id = sts_lg_intern(l, full);
    if (id == UINT32_MAX) return;
    uint32_t *slot = STS_VEC_PUSH(l->warnings);
    if (slot) *slot = id;
}

void sts_lg_fmt_ns(int64_t ns, char *buf, size_t cap)
{
    /* The ledger's -1 is "not known". */
    sts_fmt_duration(ns < 0 ? NAN : (double)ns, buf, cap);
}
