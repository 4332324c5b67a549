/* ledger: signature text and the query functions of the public API. */
#include "ledger/ledger_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void format_one(const sts_argsig *a, sts_sbuf *b)
{
    int named = a->name && *a->name;
    if (a->kind == STS_PARAM_STATIC) {
        sts_sbuf_printf(b, "%s%s%s (static)", named ? a->name : "", named ? "=" : "", a->value ? a->value : "?");
        return;
    }
    if (named) sts_sbuf_printf(b, "%s: ", a->name);
    sts_sbuf_puts(b, a->dtype ? a->dtype : "?");
    if (a->kind == STS_PARAM_DYNAMIC) {
        sts_sbuf_puts(b, " (dynamic)");
        return;
    }
    if (a->ndim < 0)
        sts_sbuf_puts(b, "[?]");
    else {
        sts_sbuf_puts(b, "[");
        for (int d = 0; d < a->ndim && d < STS_LEDGER_MAX_DIMS; d++) {
            if (a->shape[d] < 0)
                sts_sbuf_printf(b, "%s?", d ? "," : "");
            else
                sts_sbuf_printf(b, "%s%" PRId64, d ? "," : "", a->shape[d]);
        }
        sts_sbuf_puts(b, "]");
    }
    if (a->weak_type) sts_sbuf_puts(b, " weak");
}

void sts_lg_format_sig(const sts_argsig *args, int nargs, sts_sbuf *out)
{
    for (int i = 0; i < nargs; i++) {
        if (i) sts_sbuf_puts(out, ", ");
        format_one(&args[i], out);
    }
}

size_t sts_ledger_function_count(const sts_ledger *l)
{
    return l ? l->fns.n : 0;
}

/* Why a log-built function's calls and hits are unknown. */
static const char *unknown_why(sts_ledger_source s)
{
    switch (s) {
    case STS_LEDGER_SRC_JAX_LOG:
        return "not in JAX logs";
    case STS_LEDGER_SRC_TORCH_LOG:
    case STS_LEDGER_SRC_TORCH_TRACE:
        return "not in PyTorch logs";
    case STS_LEDGER_SRC_CALLS:
        break;
    }
    return NULL;
}

sts_status sts_ledger_function(const sts_ledger *l, size_t i, sts_ledger_fn_info *out)
{
    if (!l || i >= l->fns.n || !out) return STS_ERR_RANGE;
    const lg_fn *f = &l->fns.v[i];
    memset(out, 0, sizeof *out);
    out->name = lg_str(l, f->name);
    out->source = (sts_ledger_source)f->source;
    out->unknown = unknown_why(out->source);
    out->rows = f->rows;
    out->calls = out->unknown ? -1 : f->rows;
    out->hits = out->unknown ? -1 : f->hits;
    out->traces = f->traces;
    out->compiles = f->compiles;
    /* A total no row gave a time for is unknown (-1), not 0: PyTorch's recompile logs
     * name compiles but no times. With no trace or compile at all it is truly 0. */
    out->trace_ns = f->traces > 0 && !f->trace_known ? -1 : f->trace_ns;
    out->lower_ns = f->compiles > 0 && !f->lower_known ? -1 : f->lower_ns;
    out->compile_ns = f->compiles > 0 && !f->compile_known ? -1 : f->compile_ns;
    out->max_compile_ns = f->max_compile_ns;
    out->signatures = (int64_t)f->sigs.n;
    memcpy(out->reasons, f->reasons, sizeof out->reasons);
    out->persistent_hits = f->counters[STS_LG_PERS_HIT];
    out->persistent_misses = f->counters[STS_LG_PERS_MISS];
    out->persistent_writes = f->counters[STS_LG_PERS_WRITE];
    out->limit_hits = f->counters[STS_LG_LIMIT_HIT];
    out->redefined = f->counters[STS_LG_REDEFINED];
    out->specializations = f->specializations > f->compiles ? f->specializations : f->compiles;
    out->graph_breaks = f->graph_breaks;
    return STS_OK;
}

size_t sts_ledger_graph_break_count(const sts_ledger *l)
{
    return l ? l->gbreaks.n : 0;
}

sts_status sts_ledger_graph_break_get(const sts_ledger *l, size_t i, sts_ledger_graph_break *out)
{
    if (!l || i >= l->gbreaks.n || !out) return STS_ERR_RANGE;
    const lg_gbreak *g = &l->gbreaks.v[i];
    out->function = lg_str(l, l->fns.v[g->fn].name);
    out->where = lg_str(l, g->where);
    out->reason = lg_str(l, g->reason);
    out->count = g->count;
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
    if (!l || i >= l->fns.n || j >= l->fns.v[i].sigs.n) return NULL;
    return lg_str(l, l->fns.v[i].sigs.v[j]);
}

size_t sts_ledger_row_count(const sts_ledger *l)
{
    return l ? l->rows.n : 0;
}

sts_status sts_ledger_row_get(const sts_ledger *l, size_t i, sts_ledger_row *out)
{
    if (!l || i >= l->rows.n || !out) return STS_ERR_RANGE;
    const lg_row *r = &l->rows.v[i];
    sts_ledger_call *c = &out->call;
    memset(out, 0, sizeof *out);
    out->index = (int64_t)i;
    c->function = lg_str(l, l->fns.v[r->fn].name);
    c->label = r->label ? lg_str(l, r->label) : NULL;
    c->reason = r->reason ? lg_str(l, r->reason) : NULL;
    c->source = r->source ? lg_str(l, r->source) : NULL;
    c->args = r->nargs ? &l->args.v[r->arg0] : NULL;
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
    return l ? l->churn.n : 0;
}

sts_status sts_ledger_churn_get(const sts_ledger *l, size_t i, sts_ledger_churn *out)
{
    if (!l || i >= l->churn.n || !out) return STS_ERR_RANGE;
    const lg_churn *c = &l->churn.v[i];
    out->function = lg_str(l, l->fns.v[c->fn].name);
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
    return l ? l->syncs.n : 0;
}

sts_status sts_ledger_sync_get(const sts_ledger *l, size_t i, sts_ledger_sync *out)
{
    if (!l || i >= l->syncs.n || !out) return STS_ERR_RANGE;
    const lg_sync *s = &l->syncs.v[i];
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
    for (size_t i = 0; i < l->syncs.n; i++) {
        size_t j = 0;
        while (j < n && ids[j] != l->syncs.v[i].scope)
            j++;
        if (j == n && n < cap) ids[n++] = l->syncs.v[i].scope;
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
    for (size_t k = 0; k < l->syncs.n; k++) {
        const lg_sync *s = &l->syncs.v[k];
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
    return l ? l->warnings.n : 0;
}

const char *sts_ledger_warning(const sts_ledger *l, size_t i)
{
    return l && i < l->warnings.n ? lg_str(l, l->warnings.v[i]) : NULL;
}

sts_log_stats sts_ledger_log_stats(const sts_ledger *l)
{
    sts_log_stats z = { 0, 0, 0, 0, 0, 0, 0 };
    return l ? l->log : z;
}

const char *sts_ledger_syncs_unknown(const sts_ledger *l)
{
    if (!l || l->syncs.n) return NULL;
    int jax = 0, torch = 0;
    for (size_t i = 0; i < l->fns.n; i++) {
        if (l->fns.v[i].source == STS_LEDGER_SRC_CALLS && l->fns.v[i].rows) return NULL;
        jax |= l->fns.v[i].source == STS_LEDGER_SRC_JAX_LOG;
        torch |= l->fns.v[i].source == STS_LEDGER_SRC_TORCH_LOG || l->fns.v[i].source == STS_LEDGER_SRC_TORCH_TRACE;
    }
    if (jax && torch) return "not in JAX or PyTorch logs";
    if (jax) return "not in JAX logs";
    if (torch) return "not in PyTorch logs";
    return l->log.files ? "not in compile logs" : NULL;
}
