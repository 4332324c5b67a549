/* Two `stepscope bench --json` results compared per workload: the warm samples are the
 * samples; the first call is one observation per run (reported, not tested); device
 * times and dispatch-only intervals are compared like the warm samples. A workload's
 * contract (shapes, dtype, boundary, device) that differs between runs, a failed
 * check or an unstable run becomes a note: a faster answer to another question is not
 * a speed-up (lesson 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_impl.h"
#include "diff/jin.h"

#define MAX_WORKLOADS 256

typedef struct workload {
    const char *name;
    const sts_jval *obj;
} workload;

typedef struct doc {
    const char *file;
    sts_jdoc dom;
    workload w[MAX_WORKLOADS];
    size_t n;
} doc;

static const char *workload_name(const sts_jval *o)
{
    const char *n = sts_json_str(sts_json_get(o, "name"), NULL);
    if (!n || !*n) n = sts_json_str(sts_json_get(o, "workload"), NULL);
    return n && *n ? n : "bench";
}

static sts_status load(doc *d, const char *text, size_t len, const char *file, sts_error *err)
{
    d->file = file;
    sts_status st = sts_json_parse(&d->dom, text, len, file, err);
    if (st != STS_OK) return st;
    const sts_jval *root = d->dom.root;
    if (root->type != STS_J_OBJ)
        return sts_error_set(err, STS_ERR_FORMAT, (int64_t)root->offset,
                             "%s: byte %zu: expected a bench result (a JSON object)", file, root->offset);
    if (sts_json_get(root, "warm_samples_seconds")) d->w[d->n++] = (workload){ workload_name(root), root };
    const sts_jval *vars = sts_json_get(root, "variants");
    for (size_t i = 0; vars && vars->type == STS_J_OBJ && i < vars->u.obj.n; i++) {
        const sts_jmember *m = &vars->u.obj.members[i];
        if (!sts_json_get(m->val, "warm_samples_seconds")) continue;
        if (d->n == MAX_WORKLOADS)
            return sts_error_set(err, STS_ERR_LIMIT, (int64_t)m->val->offset, "%s: more than %d workloads", file,
                                 MAX_WORKLOADS);
        d->w[d->n++] = (workload){ m->key, m->val };
    }
    if (!d->n)
        return sts_error_set(err, STS_ERR_FORMAT, 0,
                             "%s: not a bench result: no \"warm_samples_seconds\" at the top level or in \"variants\"",
                             file);
    return STS_OK;
}

static const workload *find(const doc *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->w[i].name, name) == 0) return &d->w[i];
    return NULL;
}

/* One sample row from an array of seconds; absent in both runs: no row. */
static sts_status samples_row(sts_diff *d, const char *name, const char *group, const char *key, const workload *b,
                              const workload *n, const doc *db, const doc *dn, sts_error *err)
{
    sts_dj_vec v[2] = { { 0 }, { 0 } };
    size_t nulls[2] = { 0, 0 };
    const sts_jval *jb = b ? sts_json_get(b->obj, key) : NULL, *jn = n ? sts_json_get(n->obj, key) : NULL;
    sts_status st = sts_dj_ints(jb, 1e9, db->file, key, &v[0], &nulls[0], err);
    if (st == STS_OK) st = sts_dj_ints(jn, 1e9, dn->file, key, &v[1], &nulls[1], err);
    int any = (jb && jb->type != STS_J_NULL) || (jn && jn->type != STS_J_NULL);
    if (st == STS_OK && any) {
        char note[160] = "";
        if (nulls[0] || nulls[1])
            snprintf(note, sizeof note, "%zu unmeasured (null) samples in BASE and %zu in NEW were left out", nulls[0],
                     nulls[1]);
        sts_dd_series sb = { v[0].v, NULL, v[0].n }, sn = { v[1].v, NULL, v[1].n };
        if (b && n && (!v[0].n || !v[1].n)) {
            /* Measured in one run only (no device clock in the other): not an appearance. */
            if (sts_dd_note(d, "%s: \"%s\" is measured in %s only: not compared", name, key, v[0].n ? "BASE" : "NEW") !=
                STS_OK)
                st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
        } else {
            st = sts_dd_add_samples(d, name, group, "ns", "call", sb, sn, note[0] ? note : NULL, err);
        }
    }
    STS_VEC_RELEASE(v[0]);
    STS_VEC_RELEASE(v[1]);
    return st;
}

static sts_status first_call_row(sts_diff *d, const workload *b, const workload *n, const doc *db, const doc *dn,
                                 sts_error *err)
{
    int64_t x = 0, y = 0;
    int kb =
        b ? sts_dj_int(sts_json_get(b->obj, "first_call_seconds"), 1e9, db->file, "first_call_seconds", &x, err) : -1;
    if (kb == -1 && b) return STS_ERR_FORMAT;
    int kn =
        n ? sts_dj_int(sts_json_get(n->obj, "first_call_seconds"), 1e9, dn->file, "first_call_seconds", &y, err) : -1;
    if (kn == -1 && n) return STS_ERR_FORMAT;
    return sts_dd_add_single(d, b ? b->name : n->name, "first_call", kb, x, kn, y,
                             "the first call is one observation per run: its change is reported, not tested", err);
}

/* Contract fields that must agree for the timings to answer the same question. */
static sts_status contract_notes(sts_diff *d, const workload *b, const workload *n)
{
    static const char *keys[] = { "input_shape", "weight_shape", "output_shape", "dtype", "boundary", "device" };
    sts_status st = STS_OK;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && st == STS_OK; i++) {
        char x[256], y[256];
        sts_dj_text(sts_json_get(b->obj, keys[i]), x, sizeof x);
        sts_dj_text(sts_json_get(n->obj, keys[i]), y, sizeof y);
        if (strcmp(x, y) != 0)
            st = sts_dd_note(d, "%s: %s differs (BASE %s, NEW %s): the runs time different work", b->name, keys[i],
                             x[0] ? x : "absent", y[0] ? y : "absent");
    }
    return st;
}

static sts_status health_notes(sts_diff *d, const workload *w, const char *side)
{
    const sts_jval *passed = sts_json_get(sts_json_get(w->obj, "check"), "passed");
    sts_status st = STS_OK;
    if (passed && passed->type == STS_J_BOOL && !passed->u.b)
        st = sts_dd_note(d, "%s %s: the result did not match its reference: these are timings of a wrong answer", side,
                         w->name);
    const sts_jval *unstable = sts_json_get(w->obj, "unstable");
    if (st == STS_OK && unstable && unstable->type == STS_J_BOOL && unstable->u.b)
        st = sts_dd_note(d, "%s %s: the run was unstable (CV over 10%% or an outlier sample)", side, w->name);
    return st;
}

static sts_status workload_rows(sts_diff *d, const workload *b, const workload *n, const doc *db, const doc *dn,
                                sts_error *err)
{
    const char *name = b ? b->name : n->name;
    sts_status st = STS_OK;
    if (b && n) st = contract_notes(d, b, n);
    if (st == STS_OK && b) st = health_notes(d, b, "BASE");
    if (st == STS_OK && n) st = health_notes(d, n, "NEW");
    if (st != STS_OK) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    st = samples_row(d, name, "warm", "warm_samples_seconds", b, n, db, dn, err);
    if (st == STS_OK) st = first_call_row(d, b, n, db, dn, err);
    if (st == STS_OK) st = samples_row(d, name, "device", "device_samples_seconds", b, n, db, dn, err);
    if (st == STS_OK) st = samples_row(d, name, "dispatch", "dispatch_only_seconds", b, n, db, dn, err);
    return st;
}

sts_status sts_diff_bench_json(const char *base_text, size_t base_len, const char *base_name, const char *new_text,
                               size_t new_len, const char *new_name, const sts_diff_options *opt, sts_diff **out,
                               sts_error *err)
{
    *out = NULL;
    doc *db = calloc(2, sizeof *db), *dn = db ? db + 1 : NULL;
    if (!db) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    sts_diff_stats probe;
    sts_status st = sts_diff_samples(NULL, 0, NULL, 0, opt, &probe, err);
    if (st == STS_OK) st = load(db, base_text, base_len, base_name ? base_name : "BASE", err);
    if (st == STS_OK) st = load(dn, new_text, new_len, new_name ? new_name : "NEW", err);
    sts_diff *d = NULL;
    if (st == STS_OK && !(d = sts_dd_new(STS_DIFF_KIND_BENCH, opt, db->file, dn->file)))
        st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    if (d) d->samples_word = "call";
    for (size_t i = 0; st == STS_OK && i < db->n; i++)
        st = workload_rows(d, &db->w[i], find(dn, db->w[i].name), db, dn, err);
    for (size_t i = 0; st == STS_OK && i < dn->n; i++)
        if (!find(db, dn->w[i].name)) st = workload_rows(d, NULL, &dn->w[i], db, dn, err);
    sts_jdoc_release(&db->dom);
    sts_jdoc_release(&dn->dom);
    free(db);
    if (st != STS_OK) {
        sts_diff_free(d);
        return st;
    }
    *out = d;
    return STS_OK;
}
