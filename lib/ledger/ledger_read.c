/* ledger: a ledger document read back (stepscope.ledger/1, docs/ledger.md), the one
 * reader of what sts_ledger_write_json() writes, for `stepscope diff` and `stepscope
 * report`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_dom.h"
#include "base/mem.h"
#include "stepscope/ledger.h"

#define MAX_VALUE 4503599627370496.0 /* 2^52 */

struct sts_ledger_doc_mem {
    sts_jdoc dom;
    sts_arena arena;
};

typedef struct reader {
    sts_ledger_doc *d;
    const char *name;
    sts_error *err;
} reader;

static void *alloc(reader *r, size_t n)
{
    void *p = sts_arena_alloc(&r->d->mem->arena, n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

static sts_status nomem(reader *r)
{
    return sts_error_set(r->err, STS_ERR_NOMEM, -1, "%s: out of memory", r->name);
}

static sts_status bad(reader *r, const sts_jval *v, const char *what)
{
    return sts_error_set(r->err, STS_ERR_FORMAT, v ? (int64_t)v->offset : 0, "%s: byte %zu: %s", r->name,
                         v ? v->offset : 0, what);
}

/* A count member: a whole number >= 0, or absent / null (-1). */
static sts_status count(reader *r, const sts_jval *o, const char *key, int64_t *out)
{
    const sts_jval *v = sts_json_get(o, key);
    *out = -1;
    if (!v || v->type == STS_J_NULL) return STS_OK;
    if (v->type != STS_J_NUM || !(v->u.num >= 0) || v->u.num != floor(v->u.num) || v->u.num > MAX_VALUE) {
        char what[128];
        snprintf(what, sizeof what, "\"%s\" must be a whole number >= 0", key);
        return bad(r, v, what);
    }
    *out = (int64_t)v->u.num;
    return STS_OK;
}

/* A time member in ns: a non-negative number, or absent / null (-1). */
static sts_status nanos(reader *r, const sts_jval *o, const char *key, int64_t *out)
{
    const sts_jval *v = sts_json_get(o, key);
    *out = -1;
    if (!v || v->type == STS_J_NULL) return STS_OK;
    if (v->type != STS_J_NUM || !(v->u.num >= 0) || !isfinite(v->u.num)) {
        char what[128];
        snprintf(what, sizeof what, "\"%s\" must be a non-negative number", key);
        return bad(r, v, what);
    }
    if (v->u.num > MAX_VALUE)
        return sts_error_set(r->err, STS_ERR_RANGE, (int64_t)v->offset,
                             "%s: byte %zu: \"%s\" is out of range (at most 2^52 ns)", r->name, v->offset, key);
    *out = llround(v->u.num);
    return STS_OK;
}

static const char *str(const sts_jval *o, const char *key)
{
    return sts_json_str(sts_json_get(o, key), NULL);
}

/* An array member, absent or null being none: -1 with the error set when it is
 * something else. */
static int items(reader *r, const sts_jval *v, const char *what, size_t *n)
{
    *n = 0;
    if (!v || v->type == STS_J_NULL) return 0;
    if (v->type != STS_J_ARR) {
        bad(r, v, what);
        return -1;
    }
    *n = v->u.arr.n;
    return 0;
}

static sts_status rows_of(reader *r, const sts_jval *rows)
{
    sts_ledger_doc *d = r->d;
    size_t n = sts_json_len(rows);
    sts_ledger_doc_row *v = alloc(r, n * sizeof *v);
    if (!v) return nomem(r);
    for (size_t i = 0; i < n; i++) {
        const sts_jval *o = sts_json_at(rows, i);
        if (o->type != STS_J_OBJ) return bad(r, o, "each of \"rows\" must be an object");
        sts_status st;
        if ((st = count(r, o, "traces", &v[i].traces)) || (st = count(r, o, "compiles", &v[i].compiles)) ||
            (st = nanos(r, o, "compile_ns", &v[i].compile_ns)))
            return st;
        v[i].function = str(o, "function");
        v[i].site = str(o, "site");
        v[i].label = str(o, "label");
        v[i].offset = o->offset;
    }
    d->rows = v;
    d->nrows = n;
    return STS_OK;
}

static sts_status functions_of(reader *r, const sts_jval *fns)
{
    sts_ledger_doc *d = r->d;
    size_t n = sts_json_len(fns);
    sts_ledger_doc_fn *v = alloc(r, n * sizeof *v);
    if (!v) return nomem(r);
    for (size_t i = 0; i < n; i++) {
        const sts_jval *o = sts_json_at(fns, i);
        if (o->type != STS_J_OBJ) return bad(r, o, "each of \"functions\" must be an object");
        sts_status st;
        if ((st = count(r, o, "compiles", &v[i].compiles)) ||
            (st = count(r, o, "specializations", &v[i].specializations)) ||
            (st = count(r, o, "traces", &v[i].traces)) || (st = nanos(r, o, "compile_ns", &v[i].compile_ns)))
            return st;
        const sts_jval *hits = sts_json_get(o, "hits");
        v[i].hits_unknown = hits && hits->type == STS_J_NULL;
        v[i].name = str(o, "name");
        v[i].site = str(o, "site");
        v[i].unknown = str(o, "unknown");
        v[i].offset = o->offset;
    }
    d->functions = v;
    d->nfunctions = n;
    return STS_OK;
}

static sts_status syncs_of(reader *r, const sts_jval *syncs)
{
    sts_ledger_doc *d = r->d;
    size_t ne, ns;
    const sts_jval *ev = sts_json_get(syncs, "events"), *sc = sts_json_get(syncs, "scopes");
    if (items(r, ev, "\"host_syncs\".\"events\" must be an array", &ne) < 0 ||
        items(r, sc, "\"host_syncs\".\"scopes\" must be an array", &ns) < 0)
        return STS_ERR_FORMAT;
    sts_ledger_doc_sync *e = alloc(r, ne * sizeof *e);
    sts_ledger_doc_scope *s = alloc(r, ns * sizeof *s);
    if (!e || !s) return nomem(r);
    sts_status st = STS_OK;
    for (size_t i = 0; i < ne && st == STS_OK; i++) {
        const sts_jval *o = sts_json_at(ev, i);
        if (o->type != STS_J_OBJ) return bad(r, o, "each of \"host_syncs\".\"events\" must be an object");
        e[i].scope = str(o, "scope");
        st = nanos(r, o, "wait_ns", &e[i].wait_ns);
    }
    for (size_t i = 0; i < ns && st == STS_OK; i++) {
        const sts_jval *o = sts_json_at(sc, i);
        if (o->type != STS_J_OBJ) return bad(r, o, "each of \"host_syncs\".\"scopes\" must be an object");
        s[i].scope = str(o, "scope");
        if ((st = count(r, o, "count", &s[i].count)) == STS_OK) st = nanos(r, o, "total_ns", &s[i].total_ns);
    }
    d->sync_events = e;
    d->nsync_events = ne;
    d->scopes = s;
    d->nscopes = ns;
    return st;
}

static sts_status document(reader *r, const sts_jval *root)
{
    sts_ledger_doc *d = r->d;
    const sts_jval *rows = sts_json_get(root, "rows"), *fns = sts_json_get(root, "functions");
    if (root->type != STS_J_OBJ || (!rows && !fns))
        return sts_error_set(r->err, STS_ERR_FORMAT, 0,
                             "%s: not a ledger: expected an object with \"rows\" and \"functions\" arrays "
                             "(stepscope ledger --json, stepscope.ledger/1)",
                             r->name);
    if ((rows && rows->type != STS_J_ARR) || (fns && fns->type != STS_J_ARR))
        return bad(r, rows && rows->type != STS_J_ARR ? rows : fns, "\"rows\" and \"functions\" must be arrays");
    d->schema = str(root, "schema");
    d->has_rows = rows != NULL;
    d->has_functions = fns != NULL;
    sts_status st = rows_of(r, rows);
    if (st == STS_OK) st = functions_of(r, fns);
    const sts_jval *syncs = sts_json_get(root, "host_syncs");
    if (st == STS_OK && syncs) {
        if (syncs->type == STS_J_NULL)
            d->syncs = STS_LEDGER_DOC_SYNCS_UNKNOWN;
        else if (syncs->type != STS_J_OBJ)
            st = bad(r, syncs, "\"host_syncs\" must be an object or null");
        else {
            d->syncs = STS_LEDGER_DOC_SYNCS_KNOWN;
            st = syncs_of(r, syncs);
        }
    }
    d->syncs_unknown = str(root, "host_syncs_unknown");
    const sts_jval *churn = sts_json_get(root, "churn");
    const char **msgs = st == STS_OK ? alloc(r, sts_json_len(churn) * sizeof *msgs) : NULL;
    if (st == STS_OK && !msgs) st = nomem(r);
    for (size_t i = 0; st == STS_OK && i < sts_json_len(churn); i++)
        msgs[i] = str(sts_json_at(churn, i), "message");
    d->churn = msgs;
    d->nchurn = sts_json_len(churn);
    d->nwarnings = sts_json_len(sts_json_get(root, "warnings"));
    return st;
}

void sts_ledger_doc_free(sts_ledger_doc *d)
{
    if (!d) return;
    if (d->mem) {
        sts_jdoc_release(&d->mem->dom);
        sts_arena_release(&d->mem->arena);
        free(d->mem);
    }
    free(d);
}

sts_status sts_ledger_read_json(const char *text, size_t len, const char *name, sts_ledger_doc **out, sts_error *err)
{
    *out = NULL;
    name = name ? name : "(ledger json)";
    sts_ledger_doc *d = calloc(1, sizeof *d);
    if (d && !(d->mem = calloc(1, sizeof *d->mem))) {
        free(d);
        d = NULL;
    }
    if (!d) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    reader r = { d, name, err };
    sts_status st = sts_json_parse(&d->mem->dom, text, len, name, err);
    if (st == STS_OK) st = document(&r, d->mem->dom.root);
    if (st != STS_OK) {
        sts_ledger_doc_free(d);
        return st;
    }
    *out = d;
    return STS_OK;
}
