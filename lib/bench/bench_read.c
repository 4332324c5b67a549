/* bench: a bench result read back (stepscope.bench/1, docs/bench.md), the one reader
 * of the documents sts_bench_write_json() writes, for `stepscope diff` and `stepscope
 * report`. Needs nothing of the device layer. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json_dom.h"
#include "base/mem.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "stepscope/bench.h"

#define MAX_DEPTH   8
#define MAX_NS      4503599627370496.0 /* 2^52 */
#define FACT_ITEMS  16
#define CONTRACT_SZ 256

const char *const sts_bench_contract_key[STS_BENCH_CONTRACT_KEYS] = { "input_shape", "weight_shape", "output_shape",
                                                                      "dtype",       "boundary",     "device" };

struct sts_bench_doc_mem {
    sts_jdoc dom;
    sts_arena arena;
    STS_VEC(sts_bench_run_doc) runs;
};

typedef struct reader {
    sts_bench_doc *d;
    const char *name;
    sts_error *err;
} reader;

static void *alloc(reader *r, size_t n)
{
    void *p = sts_arena_alloc(&r->d->mem->arena, n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

static const char *copy(reader *r, const char *s, size_t n)
{
    char *p = alloc(r, n + 1);
    if (p) memcpy(p, s, n);
    return p;
}

static sts_status nomem(reader *r)
{
    return sts_error_set(r->err, STS_ERR_NOMEM, -1, "%s: out of memory", r->name);
}

/* ---- numbers ---------------------------------------------------------------------------- */

/* A time in seconds: a non-negative finite number of at most 2^52 ns, or null. `at`
 * (>= 0) is the item's place in its array, for the message. */
static sts_status seconds(reader *r, const sts_jval *v, const char *key, long at, double *out)
{
    *out = NAN;
    if (!v || v->type == STS_J_NULL) return STS_OK;
    char where[96];
    if (at >= 0)
        snprintf(where, sizeof where, "\"%s\"[%ld]", key, at);
    else
        snprintf(where, sizeof where, "\"%s\"", key);
    if (v->type != STS_J_NUM || !(v->u.num >= 0) || !isfinite(v->u.num))
        return sts_error_set(r->err, STS_ERR_FORMAT, (int64_t)v->offset,
                             "%s: byte %zu: %s must be a non-negative number of seconds or null", r->name, v->offset,
                             where);
    if (!(v->u.num * 1e9 <= MAX_NS))
        return sts_error_set(r->err, STS_ERR_RANGE, (int64_t)v->offset,
                             "%s: byte %zu: %s is out of range (at most 2^52 ns)", r->name, v->offset, where);
    *out = v->u.num;
    return STS_OK;
}

/* An array of seconds (or, with `scalar_ok`, one number: dispatch_only_seconds is
 * written either way). */
static sts_status series(reader *r, const sts_jval *o, const char *key, int scalar_ok, sts_bench_series *s)
{
    const sts_jval *v = sts_json_get(o, key);
    memset(s, 0, sizeof *s);
    if (!v || v->type == STS_J_NULL) return STS_OK;
    s->given = 1;
    s->offset = v->offset;
    size_t n = v->type == STS_J_ARR ? v->u.arr.n : 1;
    if (v->type != STS_J_ARR && (v->type != STS_J_NUM || !scalar_ok))
        return sts_error_set(r->err, STS_ERR_FORMAT, (int64_t)v->offset,
                             "%s: byte %zu: \"%s\" must be an array of numbers (seconds) or null", r->name, v->offset,
                             key);
    double *x = alloc(r, n * sizeof *x);
    size_t *at = alloc(r, n * sizeof *at);
    if (!x || !at) return nomem(r);
    s->scalar = v->type == STS_J_NUM;
    for (size_t i = 0; i < n; i++) {
        const sts_jval *it = s->scalar ? v : v->u.arr.items[i];
        sts_status st = seconds(r, it, key, s->scalar ? -1 : (long)i, &x[i]);
        if (st != STS_OK) return st;
        at[i] = it->offset;
        s->measured += !isnan(x[i]);
    }
    s->s = x;
    s->at = at;
    s->n = n;
    return STS_OK;
}

/* ---- texts ------------------------------------------------------------------------------- */

static void put_scalar(sts_sbuf *b, const sts_jval *v)
{
    char num[64];
    switch (v->type) {
    case STS_J_NUM:
        snprintf(num, sizeof num, "%.6g", v->u.num);
        sts_sbuf_puts(b, num);
        break;
    case STS_J_STR:
        sts_sbuf_put(b, v->u.str.s, v->u.str.n);
        break;
    case STS_J_BOOL:
        sts_sbuf_puts(b, v->u.b ? "true" : "false");
        break;
    default:
        break;
    }
}

/* A fact's text: a scalar, or a flat array of at most FACT_ITEMS non-null scalars. */
static int fact_text(const sts_jval *v, sts_sbuf *b)
{
    if (v->type == STS_J_NULL || v->type == STS_J_OBJ) return 0;
    if (v->type != STS_J_ARR) {
        put_scalar(b, v);
        return 1;
    }
    if (v->u.arr.n > FACT_ITEMS) return 0;
    sts_sbuf_puts(b, "[");
    for (size_t i = 0; i < v->u.arr.n; i++) {
        const sts_jval *it = v->u.arr.items[i];
        if (it->type == STS_J_ARR || it->type == STS_J_OBJ || it->type == STS_J_NULL) return 0;
        if (i) sts_sbuf_puts(b, ", ");
        put_scalar(b, it);
    }
    sts_sbuf_puts(b, "]");
    return 1;
}

/* A contract member's text for comparing: exact numbers, "null", "..." for what
 * nests, cut to CONTRACT_SZ - 1 bytes. */
static void exact_scalar(char *buf, size_t cap, const sts_jval *v)
{
    if (v->type == STS_J_NUM)
        snprintf(buf, cap, "%.17g", v->u.num);
    else if (v->type == STS_J_STR)
        snprintf(buf, cap, "%s", v->u.str.s);
    else if (v->type == STS_J_BOOL)
        snprintf(buf, cap, "%s", v->u.b ? "true" : "false");
    else if (v->type == STS_J_NULL)
        snprintf(buf, cap, "null");
    else
        snprintf(buf, cap, "...");
}

static void exact_text(const sts_jval *v, char *buf, size_t cap)
{
    if (v->type != STS_J_ARR) {
        exact_scalar(buf, cap, v);
        return;
    }
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < v->u.arr.n && used < cap; i++) {
        char one[64];
        exact_scalar(one, sizeof one, v->u.arr.items[i]);
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", one);
    }
    if (used < cap) snprintf(buf + used, cap - used, "]");
}

static sts_status facts_of(reader *r, const sts_jval *o, const sts_bench_fact **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!o || o->type != STS_J_OBJ) return STS_OK;
    sts_bench_fact *f = alloc(r, o->u.obj.n * sizeof *f);
    if (!f) return nomem(r);
    for (size_t i = 0; i < o->u.obj.n; i++) {
        const sts_jmember *m = &o->u.obj.members[i];
        f[i].key = m->key;
        f[i].array = m->val->type == STS_J_ARR;
        f[i].object = m->val->type == STS_J_OBJ;
        f[i].number = m->val->type == STS_J_NUM ? m->val->u.num : NAN;
        f[i].string = m->val->type == STS_J_STR ? m->val->u.str.s : NULL;
        sts_sbuf b = STS_SBUF_INIT;
        int ok = fact_text(m->val, &b);
        if (ok && !b.oom && !(f[i].text = copy(r, b.p ? b.p : "", b.n))) b.oom = 1;
        sts_sbuf_release(&b);
        if (b.oom) return nomem(r);
        char buf[CONTRACT_SZ];
        exact_text(m->val, buf, sizeof buf);
        if (!(f[i].exact = copy(r, buf, strlen(buf)))) return nomem(r);
    }
    *out = f;
    *n = o->u.obj.n;
    return STS_OK;
}

const sts_bench_fact *sts_bench_fact_get(const sts_bench_fact *facts, size_t n, const char *key)
{
    for (size_t i = n; i-- > 0;)
        if (strcmp(facts[i].key, key) == 0) return &facts[i];
    return NULL;
}

/* ---- runs ---------------------------------------------------------------------------------- */

static const char *str_member(const sts_jval *o, const char *key)
{
    return sts_json_str(sts_json_get(o, key), NULL);
}

static int flag(const sts_jval *v)
{
    return v && v->type == STS_J_BOOL ? v->u.b != 0 : -1;
}

static sts_status run_of(reader *r, const sts_jval *o, const char *member, sts_bench_run_doc *run)
{
    run->member = member;
    run->offset = o->offset;
    run->name = str_member(o, "name");
    run->label = str_member(o, "label");
    run->workload = str_member(o, "workload");
    run->kernel = str_member(o, "kernel");
    for (size_t k = 0; k < STS_BENCH_CONTRACT_KEYS; k++) {
        const sts_jval *v = sts_json_get(o, sts_bench_contract_key[k]);
        if (!v) continue;
        char buf[CONTRACT_SZ];
        exact_text(v, buf, sizeof buf);
        if (!(run->contract[k] = copy(r, buf, strlen(buf)))) return nomem(r);
    }
    sts_status st;
    if ((st = seconds(r, sts_json_get(o, "first_call_seconds"), "first_call_seconds", -1, &run->first_call_s)) ||
        (st = series(r, o, "warm_samples_seconds", 0, &run->warm)) ||
        (st = seconds(r, sts_json_get(o, "warm_median_seconds"), "warm_median_seconds", -1, &run->warm_median_s)) ||
        (st = series(r, o, "device_samples_seconds", 0, &run->device)) ||
        (st = seconds(r, sts_json_get(o, "dispatch_only_median_seconds"), "dispatch_only_median_seconds", -1,
                      &run->dispatch_median_s)) ||
        (st = series(r, o, "dispatch_only_seconds", 1, &run->dispatch)))
        return st;
    const sts_jval *check = sts_json_get(o, "check");
    run->checked = flag(sts_json_get(check, "checked"));
    run->passed = flag(sts_json_get(check, "passed"));
    run->reference = str_member(check, "reference");
    run->unstable = flag(sts_json_get(o, "unstable"));
    if ((st = facts_of(r, o, &run->facts, &run->nfacts)) != STS_OK) return st;
    const sts_jval *w = sts_json_get(o, "warnings");
    const char **ws = alloc(r, sts_json_len(w) * sizeof *ws);
    if (!ws) return nomem(r);
    for (size_t i = 0; i < sts_json_len(w); i++)
        ws[i] = sts_json_str(sts_json_at(w, i), NULL);
    run->warnings = ws;
    run->nwarnings = sts_json_len(w);
    return STS_OK;
}

/* Depth first, in document order: every object holding warm samples is a run, wherever
 * it sits (the result itself, then its "variants"). */
static sts_status find_runs(reader *r, const sts_jval *v, const char *member, int variant, int depth)
{
    if (!v || depth > MAX_DEPTH) return STS_OK;
    sts_status st = STS_OK;
    if (v->type == STS_J_OBJ) {
        /* A variant is a run even without its samples: left out, it "disappeared" and
         * a prediction that it shrank held. */
        if (sts_json_get(v, "warm_samples_seconds") || variant) {
            if (r->d->mem->runs.n == STS_BENCH_DOC_MAX_RUNS)
                return sts_error_set(r->err, STS_ERR_LIMIT, (int64_t)v->offset, "%s: byte %zu: more than %d runs",
                                     r->name, v->offset, STS_BENCH_DOC_MAX_RUNS);
            sts_bench_run_doc *run = STS_VEC_PUSH(r->d->mem->runs);
            if (!run) return nomem(r);
            if ((st = run_of(r, v, member, run)) != STS_OK) return st;
        }
        int variants = member && !strcmp(member, "variants");
        for (size_t i = 0; i < v->u.obj.n && st == STS_OK; i++)
            st = find_runs(r, v->u.obj.members[i].val, v->u.obj.members[i].key, variants, depth + 1);
    } else if (v->type == STS_J_ARR) {
        for (size_t i = 0; i < v->u.arr.n && st == STS_OK; i++)
            st = find_runs(r, v->u.arr.items[i], NULL, 0, depth + 1);
    }
    return st;
}

static sts_status environment(reader *r, const sts_jval *env)
{
    sts_bench_doc *d = r->d;
    if (!env || env->type != STS_J_OBJ) return STS_OK;
    d->has_env = 1;
    const sts_jval *cl = sts_json_get(env, "opencl");
    d->opencl_device = str_member(cl, "device");
    d->opencl_type = str_member(cl, "type");
    d->opencl_driver = str_member(cl, "driver_version");
    return facts_of(r, env, &d->env, &d->nenv);
}

void sts_bench_doc_free(sts_bench_doc *d)
{
    if (!d) return;
    if (d->mem) {
        sts_jdoc_release(&d->mem->dom);
        sts_arena_release(&d->mem->arena);
        STS_VEC_RELEASE(d->mem->runs);
        free(d->mem);
    }
    free(d);
}

sts_status sts_bench_read_json(const char *text, size_t len, const char *name, sts_bench_doc **out, sts_error *err)
{
    *out = NULL;
    name = name ? name : "(bench json)";
    sts_bench_doc *d = calloc(1, sizeof *d);
    if (d && !(d->mem = calloc(1, sizeof *d->mem))) {
        free(d);
        d = NULL;
    }
    if (!d) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    reader r = { d, name, err };
    sts_status st = sts_json_parse(&d->mem->dom, text, len, name, err);
    if (st == STS_OK) st = find_runs(&r, d->mem->dom.root, NULL, 0, 0);
    /* A variant without samples is a run of a bench result, not what makes one. */
    size_t measured = 0;
    for (size_t i = 0; st == STS_OK && i < d->mem->runs.n; i++)
        measured += d->mem->runs.v[i].warm.given;
    if (st == STS_OK && measured == 0)
        st = sts_error_set(err, STS_ERR_FORMAT, 0,
                           "%s: not a bench result: expected a bench result, an object with \"warm_samples_seconds\" "
                           "(at the top level or in \"variants\")",
                           name);
    if (st == STS_OK) st = environment(&r, sts_json_get(d->mem->dom.root, "environment"));
    if (st != STS_OK) {
        sts_bench_doc_free(d);
        return st;
    }
    d->runs = d->mem->runs.v;
    d->nruns = d->mem->runs.n;
    *out = d;
    return STS_OK;
}
