/* ledger: JSON, CSV and text output (formats in docs/ledger.md). */
#include "ledger/ledger_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope/format.h"
#include "stepscope/json.h"
#include "stepscope/outfile.h"

static void ns_or_null(sts_jsonw *w, const char *key, int64_t ns)
{
    if (ns < 0)
        sts_jsonw_kv_null(w, key);
    else
        sts_jsonw_kv_i64(w, key, ns);
}

static void i64_or_null(sts_jsonw *w, const char *key, int64_t v)
{
    ns_or_null(w, key, v);
}

static void write_reasons(sts_jsonw *w, const sts_ledger *l, size_t fi)
{
    const lg_fn *f = &l->fns.v[fi];
    sts_jsonw_key(w, "miss_reasons");
    sts_jsonw_obj_begin(w);
    for (int k = 0; k < STS_MISS_COUNT; k++) {
        sts_jsonw_kv_i64(w, sts_miss_category_name((sts_miss_category)k), f->reasons[k]);
    }
    sts_jsonw_obj_end(w);
    sts_jsonw_key(w, "reason_details");
    sts_jsonw_arr_begin(w);
    for (uint32_t i = f->first_reason; i; i = l->reasons.v[i - 1].next) {
        const lg_reason *r = &l->reasons.v[i - 1];
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "category", sts_miss_category_name((sts_miss_category)r->cat));
        sts_jsonw_kv_str(w, "detail", lg_str(l, r->detail));
        sts_jsonw_kv_i64(w, "count", r->count);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
}

static void write_function(sts_jsonw *w, const sts_ledger *l, size_t fi)
{
    sts_ledger_fn_info in;
    sts_ledger_function(l, fi, &in);
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "name", in.name);
    sts_jsonw_kv_str(w, "source", sts_ledger_source_name(in.source));
    sts_jsonw_kv_i64(w, "rows", in.rows);
    i64_or_null(w, "calls", in.calls);
    const struct {
        const char *k;
        int64_t v;
    } counts[] = { { "traces", in.traces }, { "compiles", in.compiles }, { "specializations", in.specializations } };
    i64_or_null(w, "hits", in.hits);
    if (in.unknown) {
        sts_jsonw_kv_str(w, "unknown", in.unknown);
    }
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        sts_jsonw_kv_i64(w, counts[i].k, counts[i].v);
    }
    ns_or_null(w, "trace_ns", in.trace_ns);
    ns_or_null(w, "lower_ns", in.lower_ns);
    ns_or_null(w, "compile_ns", in.compile_ns);
    ns_or_null(w, "max_compile_ns", in.max_compile_ns);
    sts_jsonw_key(w, "signatures");
    sts_jsonw_arr_begin(w);
    for (int64_t j = 0; j < in.signatures; j++)
        sts_jsonw_str(w, sts_ledger_function_signature(l, fi, (size_t)j));
    sts_jsonw_arr_end(w);
    write_reasons(w, l, fi);
    sts_jsonw_key(w, "persistent_cache");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_i64(w, "hits", in.persistent_hits);
    sts_jsonw_kv_i64(w, "misses", in.persistent_misses);
    sts_jsonw_kv_i64(w, "writes", in.persistent_writes);
    sts_jsonw_obj_end(w);
    sts_jsonw_kv_i64(w, "limit_hits", in.limit_hits);
    sts_jsonw_kv_i64(w, "redefined", in.redefined);
    i64_or_null(w, "graph_breaks", in.graph_breaks);
    sts_jsonw_obj_end(w);
}

static void write_graph_breaks(sts_jsonw *w, const sts_ledger *l)
{
    sts_jsonw_key(w, "graph_breaks");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < sts_ledger_graph_break_count(l); i++) {
        sts_ledger_graph_break g;
        sts_ledger_graph_break_get(l, i, &g);
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "function", g.function);
        sts_jsonw_kv_str(w, "where", g.where);
        sts_jsonw_kv_str(w, "reason", g.reason);
        sts_jsonw_kv_i64(w, "count", g.count);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
}

/* Writes a ", "-separated list of integers as a JSON array. */
static void write_numbers(sts_jsonw *w, const char *s)
{
    sts_jsonw_arr_begin(w);
    while (s && *s) {
        char *end;
        sts_jsonw_i64(w, strtoll(s, &end, 10));
        const char *e = strstr(end, ", ");
        s = e ? e + 2 : NULL;
    }
    sts_jsonw_arr_end(w);
}

static void write_churn(sts_jsonw *w, const sts_ledger *l)
{
    sts_jsonw_key(w, "churn");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < l->churn.n; i++) {
        sts_ledger_churn c;
        sts_ledger_churn_get(l, i, &c);
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "function", c.function);
        sts_jsonw_kv_str(w, "component", c.component);
        sts_jsonw_key(w, "values");
        /* From the component itself: a value may hold ", " ("(1, 2)"). */
        sts_jsonw_arr_begin(w);
        const lg_churn *lc = &l->churn.v[i];
        const lg_comp *comp = lc->ci ? &l->comps.v[lc->ci - 1] : NULL;
        for (size_t k = 0; comp && k < comp->vals.n; k++)
            sts_jsonw_str(w, lg_str(l, comp->vals.v[k]));
        sts_jsonw_arr_end(w);
        sts_jsonw_kv_i64(w, "specializations", c.specializations);
        ns_or_null(w, "cost_ns", c.cost_ns);
        sts_jsonw_key(w, "buckets");
        write_numbers(w, c.buckets);
        sts_jsonw_kv_str(w, "message", c.message);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
}

static const char *kind_name(sts_param_kind k)
{
    return k == STS_PARAM_ARRAY ? "array" : k == STS_PARAM_DYNAMIC ? "dynamic" : "static";
}

static void write_arg(sts_jsonw *w, const sts_argsig *a)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "name", a->name ? a->name : "");
    sts_jsonw_kv_str(w, "kind", kind_name(a->kind));
    if (a->kind != STS_PARAM_STATIC) {
        if (a->dtype)
            sts_jsonw_kv_str(w, "dtype", a->dtype);
        else
            sts_jsonw_kv_null(w, "dtype");
    }
    if (a->kind == STS_PARAM_ARRAY) {
        sts_jsonw_key(w, "shape");
        if (a->ndim < 0)
            sts_jsonw_null(w);
        else {
            sts_jsonw_arr_begin(w);
            for (int d = 0; d < a->ndim; d++) {
                if (a->shape[d] < 0)
                    sts_jsonw_null(w);
                else
                    sts_jsonw_i64(w, a->shape[d]);
            }
            sts_jsonw_arr_end(w);
        }
        sts_jsonw_kv_bool(w, "weak_type", a->weak_type);
    }
    if (a->kind == STS_PARAM_STATIC) {
        if (a->value)
            sts_jsonw_kv_str(w, "value", a->value);
        else
            sts_jsonw_kv_null(w, "value");
    }
    sts_jsonw_obj_end(w);
}

static void opt_str(sts_jsonw *w, const char *key, const char *s)
{
    if (s && *s)
        sts_jsonw_kv_str(w, key, s);
    else
        sts_jsonw_kv_null(w, key);
}

static void write_row(sts_jsonw *w, const sts_ledger *l, size_t i)
{
    sts_ledger_row r;
    sts_ledger_row_get(l, i, &r);
    const sts_ledger_call *c = &r.call;
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_i64(w, "index", r.index);
    sts_jsonw_kv_str(w, "function", c->function);
    opt_str(w, "label", c->label);
    sts_jsonw_kv_str(w, "signature", r.signature);
    sts_jsonw_key(w, "args");
    sts_jsonw_arr_begin(w);
    for (int a = 0; a < c->nargs; a++)
        write_arg(w, &c->args[a]);
    sts_jsonw_arr_end(w);
    sts_jsonw_kv_i64(w, "traces", c->traces);
    sts_jsonw_kv_i64(w, "compiles", c->compiles);
    sts_jsonw_kv_bool(w, "hit", c->hit);
    ns_or_null(w, "trace_ns", c->trace_ns);
    ns_or_null(w, "lower_ns", c->lower_ns);
    ns_or_null(w, "compile_ns", c->compile_ns);
    ns_or_null(w, "total_ns", c->total_ns);
    if (c->has_result)
        sts_jsonw_kv_f64(w, "result", c->result);
    else
        sts_jsonw_kv_null(w, "result");
    opt_str(w, "reason", c->reason);
    opt_str(w, "source", c->source);
    sts_jsonw_obj_end(w);
}

static void write_syncs(sts_jsonw *w, const sts_ledger *l)
{
    sts_jsonw_key(w, "host_syncs");
    const char *unknown = sts_ledger_syncs_unknown(l);
    if (unknown) {
        sts_jsonw_null(w);
        sts_jsonw_kv_str(w, "host_syncs_unknown", unknown);
        return;
    }
    sts_jsonw_obj_begin(w);
    sts_jsonw_key(w, "events");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < l->syncs.n; i++) {
        sts_ledger_sync s;
        sts_ledger_sync_get(l, i, &s);
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "label", s.label);
        sts_jsonw_kv_str(w, "scope", s.scope);
        sts_jsonw_kv_str(w, "kind", sts_sync_kind_name(s.kind));
        sts_jsonw_kv_i64(w, "wait_ns", s.wait_ns);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
    sts_jsonw_key(w, "scopes");
    sts_jsonw_arr_begin(w);
    size_t ns = sts_ledger_sync_scope_count(l);
    for (size_t i = 0; i < ns; i++) {
        sts_ledger_sync_scope s;
        sts_ledger_sync_scope_get(l, i, &s);
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "scope", s.scope);
        const struct {
            const char *k;
            int64_t v;
        } f[] = { { "count", s.count }, { "total_ns", s.total_ns }, { "max_ns", s.max_ns },
                  { "reads", s.reads }, { "waits", s.waits },       { "scalars", s.scalars } };
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
            sts_jsonw_kv_i64(w, f[k].k, f[k].v);
        }
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
}

static void write_log_stats(sts_jsonw *w, const sts_ledger *l)
{
    sts_jsonw_key(w, "log_stats");
    sts_jsonw_obj_begin(w);
    const struct {
        const char *k;
        int64_t v;
    } f[] = { { "files", l->log.files },          { "lines", l->log.lines },       { "records", l->log.records },
              { "skipped", l->log.skipped },      { "comments", l->log.comments }, { "warnings", l->log.warnings },
              { "long_lines", l->log.long_lines } };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        sts_jsonw_kv_i64(w, f[k].k, f[k].v);
    }
    sts_jsonw_obj_end(w);
}

sts_status sts_ledger_write_json(sts_ledger *l, FILE *f, const char *extra_key, const char *extra_json, sts_error *err)
{
    sts_status st = sts_ledger_finalize(l, err);
    if (st != STS_OK) return st;
    sts_jsonw *w = sts_jsonw_create(f, STS_JSON_INDENTED);
    if (!w) return sts_error_set(err, STS_ERR_NOMEM, -1, "ledger: out of memory");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "schema", "stepscope.ledger/1");
    sts_jsonw_key(w, "functions");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < l->fns.n; i++)
        write_function(w, l, i);
    sts_jsonw_arr_end(w);
    write_churn(w, l);
    write_graph_breaks(w, l);
    sts_jsonw_key(w, "rows");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < l->rows.n; i++)
        write_row(w, l, i);
    sts_jsonw_arr_end(w);
    write_syncs(w, l);
    sts_jsonw_key(w, "warnings");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < l->warnings.n; i++)
        sts_jsonw_str(w, lg_str(l, l->warnings.v[i]));
    sts_jsonw_arr_end(w);
    write_log_stats(w, l);
    if (extra_key && extra_json) {
        sts_jsonw_key(w, extra_key);
        sts_jsonw_raw(w, extra_json);
    }
    sts_jsonw_obj_end(w);
    st = sts_jsonw_finish(w);
    int e = sts_jsonw_errno(w);
    sts_jsonw_free(w);
    if (st == STS_ERR_IO)
        return sts_error_set(err, st, -1, "ledger: cannot write to %s: %s", sts_stream_name(f), strerror(e));
    if (st != STS_OK) return sts_error_set(err, st, -1, "ledger: write error: %s", sts_strerror(st));
    return STS_OK;
}

/* RFC 4180: quote every text field, doubling inner quotes; one a spreadsheet would
 * take for a formula gets a "'" first (docs/csv.md). */
static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    if (s && sts_csv_formula(s, strlen(s))) fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_ns(FILE *f, int64_t ns)
{
    fputc(',', f);
    if (ns >= 0) fprintf(f, "%" PRId64, ns);
}

sts_status sts_ledger_write_csv(sts_ledger *l, FILE *f, sts_error *err)
{
    sts_status st = sts_ledger_finalize(l, err);
    if (st != STS_OK) return st;
    fputs("index,function,label,signature,traces,compiles,hit,trace_ns,lower_ns,compile_ns,total_ns,result,reason,"
          "source\n",
          f);
    for (size_t i = 0; i < l->rows.n; i++) {
        sts_ledger_row r;
        sts_ledger_row_get(l, i, &r);
        const sts_ledger_call *c = &r.call;
        fprintf(f, "%" PRId64 ",", r.index);
        csv_str(f, c->function);
        fputc(',', f);
        csv_str(f, c->label);
        fputc(',', f);
        csv_str(f, r.signature);
        fprintf(f, ",%d,%d,%d", c->traces, c->compiles, c->hit);
        csv_ns(f, c->trace_ns);
        csv_ns(f, c->lower_ns);
        csv_ns(f, c->compile_ns);
        csv_ns(f, c->total_ns);
        fputc(',', f);
        if (c->has_result) fprintf(f, "%.17g", c->result);
        fputc(',', f);
        csv_str(f, c->reason);
        fputc(',', f);
        csv_str(f, c->source);
        fputc('\n', f);
    }
    int e = sts_stream_failure(f);
    if (e) return sts_error_set(err, STS_ERR_IO, -1, "ledger: cannot write to %s: %s", sts_stream_name(f), strerror(e));
    return STS_OK;
}
