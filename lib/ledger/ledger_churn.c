/* ledger: churn diagnosis. For a function with many specializations, name the part of
 * its signature that varies, what it cost, and how to stop it.
 *
 * Components come from two places: the argument signatures of rows that missed the
 * cache (named when the caller knows argument names, positional "#i" when a log only
 * lists shapes), and cache-miss explanations (named, but only the part that changed).
 * Positional components are given names where the log says them outright, or where
 * exactly one named argument's values fit inside the positional one's. */
#include "ledger/ledger_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Specializations this many or more make a function worth diagnosing. */
#define CHURN_MIN_SPECIALIZATIONS 3
#define CHURN_MAX_LISTED          8

static int is_positional(const sts_ledger *l, const lg_comp *c, long *index)
{
    const char *a = lg_str(l, c->arg);
    if (a[0] != '#' || !a[1]) return 0;
    char *end;
    long v = strtol(a + 1, &end, 10);
    if (*end || v < 0) return 0;
    *index = v;
    return 1;
}

static int contains(const lg_comp *c, uint32_t v)
{
    for (size_t i = 0; i < c->nvals; i++)
        if (c->vals[i] == v) return 1;
    return 0;
}

static int subset(const lg_comp *small, const lg_comp *big)
{
    for (size_t i = 0; i < small->nvals; i++)
        if (!contains(big, small->vals[i])) return 0;
    return 1;
}

/* The name positional argument `index` of function fn maps to, or 0. */
static uint32_t resolve_name(const sts_ledger *l, uint32_t fn, long index)
{
    const lg_fn *f = &l->fns[fn];
    if ((size_t)index < f->nargnames && f->argnames[index]) return f->argnames[index];
    uint32_t found = 0;
    for (size_t i = 0; i < l->ncomps; i++) {
        const lg_comp *p = &l->comps[i];
        long pi;
        if (p->fn != fn || p->nvals < 2 || !is_positional(l, p, &pi) || pi != index) continue;
        for (size_t j = 0; j < l->ncomps; j++) {
            const lg_comp *n = &l->comps[j];
            long ni;
            if (n->fn != fn || n->what != p->what || n->dim != p->dim || n->nvals < 2) continue;
            if (is_positional(l, n, &ni) || !subset(n, p)) continue;
            if (found && found != n->arg) return 0; /* ambiguous: leave it positional */
            found = n->arg;
        }
    }
    return found;
}

/* Moves component p's values into the named component, keeping p's order first. */
static int merge_into_named(sts_ledger *l, size_t pi, uint32_t name)
{
    lg_comp p = l->comps[pi];
    const char *nm = lg_str(l, name);
    /* Observing the first value creates the named component when it is new. */
    for (size_t k = 0; k < p.nvals; k++)
        if (sts_lg_observe(l, p.fn, nm, (lg_what)p.what, p.dim, lg_str(l, p.vals[k])) != 0) return -1;
    size_t ti = SIZE_MAX;
    for (size_t i = 0; i < l->ncomps; i++)
        if (l->comps[i].fn == p.fn && l->comps[i].arg == name && l->comps[i].what == p.what && l->comps[i].dim == p.dim)
            ti = i;
    if (ti == SIZE_MAX) return 0;
    lg_comp *t = &l->comps[ti];
    uint32_t *order = malloc((t->nvals ? t->nvals : 1) * sizeof *order);
    if (!order) return -1;
    size_t n = 0;
    for (size_t k = 0; k < p.nvals; k++)
        order[n++] = p.vals[k];
    for (size_t k = 0; k < t->nvals; k++)
        if (!contains(&p, t->vals[k])) order[n++] = t->vals[k];
    memcpy(t->vals, order, n * sizeof *order);
    free(order);
    l->comps[pi].dead = 1;
    return 0;
}

static int resolve_positional(sts_ledger *l)
{
    size_t n = l->ncomps; /* merging may append components */
    for (size_t i = 0; i < n; i++) {
        long index;
        if (!is_positional(l, &l->comps[i], &index)) continue;
        uint32_t name = resolve_name(l, l->comps[i].fn, index);
        if (name && merge_into_named(l, i, name) != 0) return -1;
    }
    return 0;
}

static void arg_text(const sts_ledger *l, const lg_comp *c, char *buf, size_t cap)
{
    long index;
    if (is_positional(l, c, &index))
        snprintf(buf, cap, "argument %ld", index);
    else
        snprintf(buf, cap, "%s", lg_str(l, c->arg));
}

static void component_text(const sts_ledger *l, const lg_comp *c, char *buf, size_t cap)
{
    char arg[160];
    arg_text(l, c, arg, sizeof arg);
    switch ((lg_what)c->what) {
    case LG_RANK:
        snprintf(buf, cap, "rank of %s", arg);
        break;
    case LG_DIM:
        snprintf(buf, cap, "dimension %d of %s", c->dim, arg);
        break;
    case LG_DTYPE:
        snprintf(buf, cap, "dtype of %s", arg);
        break;
    case LG_WEAK:
        snprintf(buf, cap, "weak type of %s", arg);
        break;
    case LG_VALUE:
        snprintf(buf, cap, "value of %s", arg);
        break;
    }
}

static void join_values(const sts_ledger *l, const lg_comp *c, size_t max, char *buf, size_t cap)
{
    size_t pos = 0;
    buf[0] = 0;
    for (size_t i = 0; i < c->nvals && i < max && pos + 1 < cap; i++) {
        int w = snprintf(buf + pos, cap - pos, "%s%s", i ? ", " : "", lg_str(l, c->vals[i]));
        if (w < 0 || (size_t)w >= cap - pos) break;
        pos += (size_t)w;
    }
    if (c->nvals > max && pos + 6 < cap) snprintf(buf + pos, cap - pos, ", ...");
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Power-of-two buckets covering the values, or 0 when a value is not a positive integer. */
static size_t buckets(const sts_ledger *l, const lg_comp *c, int64_t *out, size_t cap, int64_t *maxv)
{
    size_t n = 0;
    *maxv = 0;
    for (size_t i = 0; i < c->nvals; i++) {
        const char *s = lg_str(l, c->vals[i]);
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || *end || v < 1 || v > (1LL << 40)) return 0;
        int64_t b = 1;
        while (b < v)
            b <<= 1;
        if (v > *maxv) *maxv = v;
        size_t k = 0;
        while (k < n && out[k] != b)
            k++;
        if (k == n && n < cap) out[n++] = b;
    }
    qsort(out, n, sizeof *out, cmp_i64);
    return n;
}

/* The single bucket of a one-bucket list. */
static int64_t b_one(const char *bk)
{
    return strtoll(bk, NULL, 10);
}

static void advice(const lg_comp *c, const char *comp, const char *arg, int64_t nb, const char *bk, int64_t maxv,
                   char *buf, size_t cap)
{
    switch ((lg_what)c->what) {
    case LG_DIM:
        if (nb > 1 && (size_t)nb < c->nvals)
            snprintf(buf, cap,
                     "pad %s to %" PRId64 " power-of-two buckets (%s) with a validity mask so only %" PRId64
                     " specializations are built",
                     comp, nb, bk, nb);
        else if (nb > 0)
            snprintf(buf, cap,
                     "pad %s to one size (%" PRId64 ") with a validity mask so one specialization serves "
                     "every value",
                     comp, nb == 1 ? b_one(bk) : maxv);
        else
            snprintf(buf, cap, "fix %s to one size, padding with a validity mask", comp);
        break;
    case LG_RANK:
        snprintf(buf, cap, "reshape %s to one rank before the call", arg);
        break;
    case LG_DTYPE:
        snprintf(buf, cap, "cast %s to one dtype before the call", arg);
        break;
    case LG_WEAK:
        snprintf(buf, cap, "pass %s as a typed array every time (not sometimes a Python scalar)", arg);
        break;
    case LG_VALUE:
        snprintf(buf, cap,
                 "keep %s static only if it selects program structure; if it only feeds arithmetic, "
                 "pass it as a dynamic value",
                 arg);
        break;
    }
}

static int add_churn(sts_ledger *l, const lg_churn *c)
{
    if (sts_grow((void **)&l->churn, &l->churncap, l->nchurn + 1, sizeof *l->churn) != 0) return -1;
    l->churn[l->nchurn++] = *c;
    return 0;
}

static int64_t specializations(const lg_fn *f)
{
    int64_t s = f->compiles;
    if (f->traces > s) s = f->traces;
    if (f->max_compile_id + 1 > s) s = f->max_compile_id + 1;
    return s;
}

static int diagnose_comp(sts_ledger *l, size_t ci)
{
    const lg_comp *c = &l->comps[ci];
    const lg_fn *f = &l->fns[c->fn];
    char comp[256], vals[4096], listed[1024], bk[512], adv[1024], cost[32], msg[4096];
    int64_t b[64], maxv = 0;
    component_text(l, c, comp, sizeof comp);
    join_values(l, c, SIZE_MAX, vals, sizeof vals);
    join_values(l, c, CHURN_MAX_LISTED, listed, sizeof listed);
    size_t nb = c->what == LG_DIM ? buckets(l, c, b, 64, &maxv) : 0;
    size_t pos = 0;
    bk[0] = 0;
    for (size_t i = 0; i < nb && pos + 24 < sizeof bk; i++)
        pos += (size_t)snprintf(bk + pos, sizeof bk - pos, "%s%" PRId64, i ? ", " : "", b[i]);
    lg_churn ch;
    memset(&ch, 0, sizeof ch);
    ch.fn = c->fn;
    ch.nvalues = (int64_t)c->nvals;
    ch.specializations = specializations(f);
    ch.cost_ns = f->miss_cost_known ? f->miss_cost_ns : -1;
    ch.nbuckets = (int64_t)nb;
    char arg[160];
    arg_text(l, c, arg, sizeof arg);
    advice(c, comp, arg, (int64_t)nb, bk, maxv, adv, sizeof adv);
    sts_lg_fmt_ns(ch.cost_ns, cost, sizeof cost);
    snprintf(msg, sizeof msg, "%s: %s took %zu values (%s) across %" PRId64 " specializations costing %s; %s",
             lg_str(l, f->name), comp, c->nvals, listed, ch.specializations, ch.cost_ns >= 0 ? cost : "an unknown time",
             adv);
    ch.comp = sts_lg_intern(l, comp);
    ch.values = sts_lg_intern(l, vals);
    ch.buckets = sts_lg_intern(l, bk);
    ch.message = sts_lg_intern(l, msg);
    if (ch.comp == UINT32_MAX || ch.values == UINT32_MAX || ch.buckets == UINT32_MAX || ch.message == UINT32_MAX)
        return -1;
    return add_churn(l, &ch);
}

/* A function compiled many times whose logged signatures never differ: the varying
 * part (static parameters, closed-over values, the function object) is not logged. */
static int diagnose_invisible(sts_ledger *l, size_t fi)
{
    const lg_fn *f = &l->fns[fi];
    char msg[1024], cost[32];
    lg_churn ch;
    memset(&ch, 0, sizeof ch);
    ch.fn = (uint32_t)fi;
    ch.specializations = specializations(f);
    ch.cost_ns = f->miss_cost_known ? f->miss_cost_ns : -1;
    sts_lg_fmt_ns(ch.cost_ns, cost, sizeof cost);
    snprintf(msg, sizeof msg,
             "%s: %" PRId64 " specializations costing %s, but the logged argument signatures do not differ: what "
             "varies (a static parameter, a closed-over value, the function object itself) is not in the log; "
             "enable jax_explain_cache_misses or TORCH_LOGS=recompiles to name it",
             lg_str(l, f->name), ch.specializations, ch.cost_ns >= 0 ? cost : "an unknown time");
    ch.comp = sts_lg_intern(l, "not visible in the log");
    ch.values = 0;
    ch.buckets = 0;
    ch.message = sts_lg_intern(l, msg);
    if (ch.comp == UINT32_MAX || ch.message == UINT32_MAX) return -1;
    return add_churn(l, &ch);
}

static int cmp_churn(const void *a, const void *b)
{
    const lg_churn *x = a, *y = b;
    if (x->nvalues != y->nvalues) return x->nvalues < y->nvalues ? 1 : -1;
    if (x->fn != y->fn) return x->fn < y->fn ? -1 : 1;
    return x->comp < y->comp ? -1 : x->comp > y->comp;
}

int sts_lg_churn_compute(sts_ledger *l)
{
    l->nchurn = 0;
    if (resolve_positional(l) != 0) return -1;
    for (size_t fi = 0; fi < l->nfns; fi++) {
        if (specializations(&l->fns[fi]) < CHURN_MIN_SPECIALIZATIONS) continue;
        int varying = 0, reasons = 0;
        for (size_t ci = 0; ci < l->ncomps; ci++) {
            if (l->comps[ci].fn != fi || l->comps[ci].dead || l->comps[ci].nvals < 2) continue;
            varying = 1;
            if (diagnose_comp(l, ci) != 0) return -1;
        }
        for (int k = STS_MISS_SHAPE; k < STS_MISS_COUNT; k++)
            reasons += l->fns[fi].reasons[k] > 0;
        /* Only compiles make an invisible variation worth reporting: inner jitted helpers
         * are re-traced inside every outer trace without compiling. */
        if (!varying && !reasons && l->fns[fi].compiles >= CHURN_MIN_SPECIALIZATIONS && diagnose_invisible(l, fi) != 0)
            return -1;
    }
    if (l->nchurn > 1) qsort(l->churn, l->nchurn, sizeof *l->churn, cmp_churn);
    return 0;
}

sts_status sts_ledger_finalize(sts_ledger *l, sts_error *err)
{
    if (!l) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: NULL ledger");
    if (l->finalized) return STS_OK;
    if (sts_lg_churn_compute(l) != 0) return sts_error_set(err, STS_ERR_NOMEM, -1, "ledger: out of memory");
    l->finalized = 1;
    return STS_OK;
}
