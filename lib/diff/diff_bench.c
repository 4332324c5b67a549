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

static sts_status no_workload(const doc *d, const char *pair, const char *side, const char *name, sts_error *err)
{
    char list[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < d->n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", d->w[i].name);
    return sts_error_set(err, STS_ERR_NOT_FOUND, -1, "diff: --pair %s: %s (%s) has no workload named '%s'; it holds %s",
                         pair, side, d->file, name, list);
}

/* Each BASE workload's NEW partner: the pairs given, then the same name; with no pairs
 * given and one workload in each run, those two whatever their names (a rename between
 * runs is the usual case of a single workload). taken[j]: NEW's workload j is paired. */
static sts_status pair_workloads(const doc *db, const doc *dn, const sts_diff_options *o, const workload **partner,
                                 unsigned char *taken, sts_error *err)
{
    unsigned char *given = calloc(db->n + 1, 1);
    if (!given) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    sts_status st = STS_OK;
    for (size_t p = 0; p < o->npairs && st == STS_OK; p++) {
        const char *pair = o->pairs[p], *eq = strchr(pair, '=');
        size_t i = 0, j = 0, la = (size_t)(eq - pair);
        while (i < db->n && (strlen(db->w[i].name) != la || strncmp(db->w[i].name, pair, la) != 0))
            i++;
        while (j < dn->n && strcmp(dn->w[j].name, eq + 1) != 0)
            j++;
        if (i == db->n) {
            char a[256];
            snprintf(a, sizeof a, "%.*s", (int)la, pair);
            st = no_workload(db, pair, "BASE", a, err);
        } else if (j == dn->n) {
            st = no_workload(dn, pair, "NEW", eq + 1, err);
        } else if (given[i] || taken[j]) {
            st = sts_error_set(err, STS_ERR_INVALID_ARG, -1, "diff: --pair %s: %s is already paired", pair,
                               given[i] ? "BASE's workload" : "NEW's workload");
        } else {
            partner[i] = &dn->w[j];
            given[i] = taken[j] = 1;
        }
    }
    for (size_t i = 0; i < db->n && st == STS_OK; i++)
        for (size_t j = 0; j < dn->n && !given[i]; j++)
            if (!taken[j] && !strcmp(db->w[i].name, dn->w[j].name)) {
                partner[i] = &dn->w[j];
                given[i] = taken[j] = 1;
            }
    if (st == STS_OK && !o->npairs && db->n == 1 && dn->n == 1 && !given[0]) {
        partner[0] = &dn->w[0];
        taken[0] = 1;
    }
    free(given);
    return st;
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

/* A row whose value one run cannot tell: both sides' samples kept, the verdict unknown,
 * so a prediction about it is inconclusive (docs/diff.md). Without it the warm key went
 * to the next row (the first call's) and a workload without samples "disappeared". */
static sts_status unknown_row(sts_diff *d, const char *name, const char *group, sts_dd_series xb, sts_dd_series xn,
                              const char *note, sts_error *err)
{
    sts_status st = sts_dd_add_samples(d, name, group, "ns", "call", xb, xn, note, err);
    if (st != STS_OK) return st;
    sts_diff_stats *s = &d->rows.v[d->rows.n - 1].stats;
    s->method = STS_DIFF_METHOD_NONE;
    s->verdict = STS_DIFF_INCONCLUSIVE;
    s->samples_needed = 0;
    return STS_OK;
}

/* One sample row from an array of seconds; absent in both runs: no row. The warm
 * samples always have their row while the workload is in both runs: unknown where a
 * run has none. Device and dispatch-only samples measured in one run only are noted
 * (no device clock in the other), not an appearance. */
static sts_status samples_row(sts_diff *d, const char *name, const char *group, const char *key, const workload *b,
                              const workload *n, const doc *db, const doc *dn, sts_error *err)
{
    static const sts_bench_series none = { 0 };
    const sts_bench_series *sb = b ? series_of(b->run, key) : &none, *sn = n ? series_of(n->run, key) : &none;
    int warm = !strcmp(group, "warm");
    int64_t *v[2] = { NULL, NULL };
    size_t nv[2] = { 0, 0 }, nulls[2] = { 0, 0 };
    sts_status st = nanos(db, key, sb, &v[0], &nv[0], &nulls[0], err);
    if (st == STS_OK) st = nanos(dn, key, sn, &v[1], &nv[1], &nulls[1], err);
    if (st == STS_OK && (sb->given || sn->given || (warm && b && n))) {
        char note[200] = "";
        if (nulls[0] || nulls[1])
            snprintf(note, sizeof note, "%zu unmeasured (null) samples in BASE and %zu in NEW were left out", nulls[0],
                     nulls[1]);
        sts_dd_series xb = { v[0], NULL, nv[0] }, xn = { v[1], NULL, nv[1] };
        if (b && n && (!nv[0] || !nv[1])) {
            const char *side = !nv[0] && !nv[1] ? "either run" : !nv[0] ? "BASE" : "NEW";
            if (warm) {
                if (!note[0]) snprintf(note, sizeof note, "no \"%s\" measured in %s: unknown", key, side);
                st = unknown_row(d, name, group, xb, xn, note, err);
            } else if (nv[0] || nv[1]) {
                if (sts_dd_note(d, "%s: \"%s\" is measured in %s only: not compared", name, key,
                                nv[0] ? "BASE" : "NEW") != STS_OK)
                    st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
            }
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

/* A member naming the problem timed: its shapes and dtypes, under any key (the Python
 * package writes one `<parameter>_shape` per argument). */
static int problem_key(const char *k)
{
    size_t n = strlen(k);
    return !strcmp(k, "dtype") || (n > 6 && !strcmp(k + n - 6, "_shape")) || (n > 6 && !strcmp(k + n - 6, "_dtype"));
}

static const char *exact_of(const workload *w, const char *key)
{
    const sts_bench_fact *f = sts_bench_fact_get(w->run->facts, w->run->nfacts, key);
    return f ? f->exact : NULL;
}

static sts_status contract_note(sts_diff *d, const workload *b, const char *key, const char *x, const char *y,
                                const char *why, sts_error *err)
{
    if (sts_dd_note(d, "%s: %s differs (BASE %s, NEW %s): %s", b->name, key, x ? x : "absent", y ? y : "absent", why) !=
        STS_OK)
        return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    return STS_OK;
}

/* Shapes and dtypes that differ (or that one run lacks) are another problem: refused
 * unless allowed, then a note each; how it was timed (boundary, device) that differs is
 * a note. */
static sts_status contract_check(sts_diff *d, const workload *b, const workload *n, const doc *db, const doc *dn,
                                 sts_error *err)
{
    sts_status st = STS_OK;
    for (int side = 0; side < 2 && st == STS_OK; side++) {
        const workload *w = side ? n : b;
        for (size_t i = 0; i < w->run->nfacts && st == STS_OK; i++) {
            const char *k = w->run->facts[i].key, *x = exact_of(b, k), *y = exact_of(n, k);
            if (!problem_key(k) || (x && y && !strcmp(x, y)) || (side && x)) continue; /* BASE's keys said once */
            if (!d->opt.allow_contract_change)
                return sts_error_set(err, STS_ERR_SHAPE, -1,
                                     "diff: workload %s: %s differs (BASE %s: %s, NEW %s: %s): the runs time "
                                     "different work, and a faster answer to another problem is not a speed-up; "
                                     "compare them anyway with --allow-contract-change",
                                     b->name, k, db->file, x ? x : "absent", dn->file, y ? y : "absent");
            st = contract_note(d, b, k, x, y, "the runs time different work", err);
        }
    }
    static const char *const how[] = { "boundary", "device" };
    for (size_t i = 0; i < 2 && st == STS_OK; i++) {
        const char *x = exact_of(b, how[i]), *y = exact_of(n, how[i]);
        if ((x || y) && (!x || !y || strcmp(x, y) != 0))
            st = contract_note(d, b, how[i], x, y, "the runs were timed differently", err);
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
    sts_status st = b && n ? contract_check(d, b, n, db, dn, err) : STS_OK;
    if (st != STS_OK) return st;
    if (b && n && strcmp(b->name, n->name) != 0 &&
        sts_dd_note(d, "NEW's workload %s is compared as BASE's %s (rows named %s)", n->name, b->name, b->name) !=
            STS_OK)
        st = STS_ERR_NOMEM;
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
    const workload **partner = st == STS_OK ? calloc(db->n + 1, sizeof *partner) : NULL;
    unsigned char *taken = partner ? calloc(dn->n + 1, 1) : NULL;
    if (st == STS_OK && !taken) st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    if (st == STS_OK) st = pair_workloads(db, dn, &d->opt, partner, taken, err);
    for (size_t i = 0; st == STS_OK && i < db->n; i++)
        st = workload_rows(d, &db->w[i], partner[i], db, dn, err);
    for (size_t i = 0; st == STS_OK && i < dn->n; i++)
        if (!taken[i]) st = workload_rows(d, NULL, &dn->w[i], db, dn, err);
    free(partner);
    free(taken);
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
