/* ledger: signature text and the query functions of the public API. */
#include "ledger/ledger_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Appends printf output to buf at *pos, never overrunning; returns 0 or -1 when cut. */
static int app(char *buf, size_t cap, size_t *pos, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static int app(char *buf, size_t cap, size_t *pos, const char *fmt, ...)
{
    if (*pos >= cap) return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *pos, cap - *pos, fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    if ((size_t)n >= cap - *pos) {
        *pos = cap - 1;
        return -1;
    }
    *pos += (size_t)n;
    return 0;
}

static void format_one(const sts_argsig *a, char *buf, size_t cap, size_t *pos)
{
    int named = a->name && *a->name;
    if (a->kind == STS_PARAM_STATIC) {
        app(buf, cap, pos, "%s%s%s (static)", named ? a->name : "", named ? "=" : "", a->value ? a->value : "");
        return;
    }
    if (named) app(buf, cap, pos, "%s: ", a->name);
    app(buf, cap, pos, "%s", a->dtype ? a->dtype : "?");
    if (a->kind == STS_PARAM_DYNAMIC) {
        app(buf, cap, pos, " (dynamic)");
        return;
    }
    if (a->ndim < 0)
        app(buf, cap, pos, "[?]");
    else {
        app(buf, cap, pos, "[");
        for (int d = 0; d < a->ndim && d < STS_LEDGER_MAX_DIMS; d++) {
            if (a->shape[d] < 0)
                app(buf, cap, pos, "%s?", d ? "," : "");
            else
                app(buf, cap, pos, "%s%" PRId64, d ? "," : "", a->shape[d]);
        }
        app(buf, cap, pos, "]");
    }
    if (a->weak_type) app(buf, cap, pos, " weak");
}

int sts_lg_format_sig(const sts_argsig *args, int nargs, char *buf, size_t cap)
{
    size_t pos = 0;
    buf[0] = 0;
    for (int i = 0; i < nargs; i++) {
        if (i) app(buf, cap, &pos, ", ");
        format_one(&args[i], buf, cap, &pos);
    }
    return (int)pos;
}

size_t sts_ledger_function_count(const sts_ledger *l)
{
    return l ? l->nfns : 0;
}

sts_status sts_ledger_function(const sts_ledger *l, size_t i, sts_ledger_fn_info *out)
{
    if (!l || i >= l->nfns || !out) return STS_ERR_RANGE;
    const lg_fn *f = &l->fns[i];
    memset(out, 0, sizeof *out);
    out->name = lg_str(l, f->name);
    out->calls = f->calls;
    out->traces = f->traces;
    out->compiles = f->compiles;
    out->hits = f->hits;
    out->trace_ns = f->trace_ns;
    out->lower_ns = f->lower_ns;
    out->compile_ns = f->compile_ns;
    out->max_compile_ns = f->max_compile_ns;
    out->signatures = (int64_t)f->nsigs;
    memcpy(out->reasons, f->reasons, sizeof out->reasons);
    out->persistent_hits = f->pers_hits;
    out->persistent_misses = f->pers_misses;
    out->persistent_writes = f->pers_writes;
    out->limit_hits = f->limit_hits;
    out->specializations = f->max_compile_id + 1 > f->compiles ? f->max_compile_id + 1 : f->compiles;
    return STS_OK;
}

long sts_ledger_function_find(const sts_ledger *l, const char *name)
{
    if (!l || !name) return -1;
    uint32_t id = sts_strtab_find(&l->strs, name, strlen(name));
    if (id == UINT32_MAX) return -1;
    uint32_t fi = sts_u64map_get(&l->fn_by_name, (uint64_t)id + 1);
    return fi == UINT32_MAX ? -1 : (long)fi;
}

const char *sts_ledger_function_signature(const sts_ledger *l, size_t i, size_t j)
{
    if (!l || i >= l->nfns || j >= l->fns[i].nsigs) return NULL;
    return lg_str(l, l->fns[i].sigs[j]);
}

size_t sts_ledger_row_count(const sts_ledger *l)
{
    return l ? l->nrows : 0;
}

sts_status sts_ledger_row_get(const sts_ledger *l, size_t i, sts_ledger_row *out)
{
    if (!l || i >= l->nrows || !out) return STS_ERR_RANGE;
    const lg_row *r = &l->rows[i];
    sts_ledger_call *c = &out->call;
    memset(out, 0, sizeof *out);
    out->index = (int64_t)i;
    c->function = lg_str(l, l->fns[r->fn].name);
    c->label = r->label ? lg_str(l, r->label) : NULL;
    c->reason = r->reason ? lg_str(l, r->reason) : NULL;
    c->source = r->source ? lg_str(l, r->source) : NULL;
    c->args = r->nargs ? &l->args[r->arg0] : NULL;
    c->nargs = (int)r->nargs;
    c->traces = r->traces;
    c->compiles = r->compiles;
    c->hit = r->hit;
    c->trace_ns = r->trace_ns;
    c->lower_ns = r->lower_ns;
    c->compile_ns = r->compile_ns;
    c->total_ns = r->total_ns;
    c->has_result = r->has_result;
    c->result = r->result;
    out->signature = lg_str(l, r->sig);
    return STS_OK;
}

size_t sts_ledger_churn_count(const sts_ledger *l)
{
    return l ? l->nchurn : 0;
}

sts_status sts_ledger_churn_get(const sts_ledger *l, size_t i, sts_ledger_churn *out)
{
    if (!l || i >= l->nchurn || !out) return STS_ERR_RANGE;
    const lg_churn *c = &l->churn[i];
    out->function = lg_str(l, l->fns[c->fn].name);
    out->component = lg_str(l, c->comp);
    out->nvalues = c->nvalues;
    out->values = lg_str(l, c->values);
    out->specializations = c->specializations;
    out->cost_ns = c->cost_ns;
    out->nbuckets = c->nbuckets;
    out->buckets = lg_str(l, c->buckets);
    out->message = lg_str(l, c->message);
    return STS_OK;
}

size_t sts_ledger_sync_count(const sts_ledger *l)
{
    return l ? l->nsyncs : 0;
}

sts_status sts_ledger_sync_get(const sts_ledger *l, size_t i, sts_ledger_sync *out)
{
    if (!l || i >= l->nsyncs || !out) return STS_ERR_RANGE;
    const lg_sync *s = &l->syncs[i];
    out->label = lg_str(l, s->label);
    out->scope = lg_str(l, s->scope);
    out->kind = (sts_sync_kind)s->kind;
    out->wait_ns = s->wait_ns;
    return STS_OK;
}

/* Scopes in first-seen order; small counts, so a linear scan is enough. */
static size_t scope_ids(const sts_ledger *l, uint32_t *ids, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < l->nsyncs; i++) {
        size_t j = 0;
        while (j < n && ids[j] != l->syncs[i].scope)
            j++;
        if (j == n && n < cap) ids[n++] = l->syncs[i].scope;
    }
    return n;
}

#define MAX_SCOPES 256

size_t sts_ledger_sync_scope_count(const sts_ledger *l)
{
    uint32_t ids[MAX_SCOPES];
    return l ? scope_ids(l, ids, MAX_SCOPES) : 0;
}

sts_status sts_ledger_sync_scope_get(const sts_ledger *l, size_t i, sts_ledger_sync_scope *out)
{
    uint32_t ids[MAX_SCOPES];
    if (!l || !out) return STS_ERR_RANGE;
    size_t n = scope_ids(l, ids, MAX_SCOPES);
    if (i >= n) return STS_ERR_RANGE;
    memset(out, 0, sizeof *out);
    out->scope = lg_str(l, ids[i]);
    for (size_t k = 0; k < l->nsyncs; k++) {
        const lg_sync *s = &l->syncs[k];
        if (s->scope != ids[i]) continue;
        out->count++;
        out->total_ns += s->wait_ns;
        if (s->wait_ns > out->max_ns) out->max_ns = s->wait_ns;
        if (s->kind == STS_SYNC_READ)
            out->reads++;
        else if (s->kind == STS_SYNC_WAIT)
            out->waits++;
        else
            out->scalars++;
    }
    return STS_OK;
}

size_t sts_ledger_warning_count(const sts_ledger *l)
{
    return l ? l->nwarnings : 0;
}

const char *sts_ledger_warning(const sts_ledger *l, size_t i)
{
    return l && i < l->nwarnings ? lg_str(l, l->warnings[i]) : NULL;
}

sts_log_stats sts_ledger_log_stats(const sts_ledger *l)
{
    sts_log_stats z = { 0, 0, 0, 0, 0, 0 };
    return l ? l->log : z;
}
