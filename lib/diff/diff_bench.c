/* Two `stepscope bench --json` results compared per workload: the warm samples are the
 * samples; the first call is one observation per run (reported, not tested); device
 * times and dispatch-only intervals are compared like the warm samples. A workload's
 * contract (shapes, dtype, boundary, device) that differs between runs, a failed
 * check or an unstable run becomes a note: a faster answer to another question is not
 * a speed-up (lesson 1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_impl.h"
#include "stepscope/bench.h"

typedef struct workload {
    const char *name;
    const sts_bench_run_doc *run;
} workload;

typedef struct doc {
    const char *file;
    sts_bench_doc *bench;
    workload *w;
    size_t n;
} doc;

/* A run's name: its key under "variants", else its own name or workload. */
static const char *workload_name(const sts_bench_run_doc *r)
{
    if (r->member) return r->member;
    const char *n = r->name && *r->name ? r->name : r->workload;
    return n && *n ? n : "bench";
}

static sts_status load(doc *d, const char *text, size_t len, const char *file, sts_error *err)
{
    d->file = file;
    sts_status st = sts_bench_read_json(text, len, file, &d->bench, err);
    if (st != STS_OK) return st;
    d->w = calloc(d->bench->nruns, sizeof *d->w);
    if (!d->w) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    for (size_t i = 0; i < d->bench->nruns; i++)
        d->w[d->n++] = (workload){ workload_name(&d->bench->runs[i]), &d->bench->runs[i] };
    return STS_OK;
}

static const workload *find(const doc *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->w[i].name, name) == 0) return &d->w[i];
    return NULL;
}

/* A series in ns, the unmeasured (null) samples left out and counted. */
static sts_status nanos(const doc *d, const char *key, const sts_bench_series *s, int64_t **out, size_t *n,
                        size_t *nulls, sts_error *err)
{
    *out = NULL;
    *n = *nulls = 0;
    if (s->scalar)
        return sts_error_set(err, STS_ERR_FORMAT, (int64_t)s->offset,
                             "%s: byte %zu: \"%s\" must be an array of numbers", d->file, s->offset, key);
    if (!s->n) return STS_OK;
    if (!(*out = malloc(s->n * sizeof **out))) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    for (size_t i = 0; i < s->n; i++) {
        if (isnan(s->s[i])) {
            (*nulls)++;
            continue;
        }
        (*out)[(*n)++] = llround(s->s[i] * 1e9); /* at most 2^52: the reader's bound */
    }
    return STS_OK;
}

static const sts_bench_series *series_of(const sts_bench_run_doc *r, const char *key)
{
    return !strcmp(key, "warm_samples_seconds")     ? &r->warm
           : !strcmp(key, "device_samples_seconds") ? &r->device
                                                    : &r->dispatch;
}

/* One sample row from an array of seconds; absent in both runs: no row. */
static sts_status samples_row(sts_diff *d, const char *name, const char *group, const char *key, const workload *b,
                              const workload *n, const doc *db, const doc *dn, sts_error *err)
{
    static const sts_bench_series none = { 0 };
    const sts_bench_series *sb = b ? series_of(b->run, key) : &none, *sn = n ? series_of(n->run, key) : &none;
    int64_t *v[2] = { NULL, NULL };
    size_t nv[2] = { 0, 0 }, nulls[2] = { 0, 0 };
    sts_status st = nanos(db, key, sb, &v[0], &nv[0], &nulls[0], err);
    if (st == STS_OK) st = nanos(dn, key, sn, &v[1], &nv[1], &nulls[1], err);
    if (st == STS_OK && (sb->given || sn->given)) {
        char note[160] = "";
        if (nulls[0] || nulls[1])
            snprintf(note, sizeof note, "%zu unmeasured (null) samples in BASE and %zu in NEW were left out", nulls[0],
                     nulls[1]);
        sts_dd_series xb = { v[0], NULL, nv[0] }, xn = { v[1], NULL, nv[1] };
        if (b && n && (!nv[0] || !nv[1])) {
            /* Measured in one run only (no device clock in the other): not an appearance. */
            if (sts_dd_note(d, "%s: \"%s\" is measured in %s only: not compared", name, key, nv[0] ? "BASE" : "NEW") !=
                STS_OK)
                st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
        } else {
            st = sts_dd_add_samples(d, name, group, "ns", "call", xb, xn, note[0] ? note : NULL, err);
        }
    }
    free(v[0]);
    free(v[1]);
    return st;
}

/* The first call in ns: 1 when known, 0 when absent or null, -1 for the absent run. */
static int first_call(const workload *w, int64_t *ns)
{
    *ns = 0;
    if (!w) return -1;
    if (isnan(w->run->first_call_s)) return 0;
    *ns = llround(w->run->first_call_s * 1e9);
    return 1;
}

static sts_status first_call_row(sts_diff *d, const workload *b, const workload *n, sts_error *err)
{
    int64_t x, y;
    int kb = first_call(b, &x), kn = first_call(n, &y);
    return sts_dd_add_single(d, b ? b->name : n->name, "first_call", kb, x, kn, y,
                             "the first call is one observation per run: its change is reported, not tested", err);
}

/* Contract fields that must agree for the timings to answer the same question. */
static sts_status contract_notes(sts_diff *d, const workload *b, const workload *n)
{
    sts_status st = STS_OK;
    for (size_t i = 0; i < STS_BENCH_CONTRACT_KEYS && st == STS_OK; i++) {
        const char *x = b->run->contract[i] ? b->run->contract[i] : "";
        const char *y = n->run->contract[i] ? n->run->contract[i] : "";
        if (strcmp(x, y) != 0)
            st = sts_dd_note(d, "%s: %s differs (BASE %s, NEW %s): the runs time different work", b->name,
                             sts_bench_contract_key[i], x[0] ? x : "absent", y[0] ? y : "absent");
    }
    return st;
}

static sts_status health_notes(sts_diff *d, const workload *w, const char *side)
{
    sts_status st = STS_OK;
    if (w->run->passed == 0)
        st = sts_dd_note(d, "%s %s: the result did not match its reference: these are timings of a wrong answer", side,
                         w->name);
    if (st == STS_OK && w->run->unstable == 1)
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
    if (st == STS_OK) st = first_call_row(d, b, n, err);
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
    for (int i = 0; i < 2; i++) {
        sts_bench_doc_free(db[i].bench);
        free(db[i].w);
    }
    free(db);
    if (st != STS_OK) {
        sts_diff_free(d);
        return st;
    }
    *out = d;
    return STS_OK;
}
