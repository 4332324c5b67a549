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
    for (size_t i = 0; i < c->vals.n; i++)
        if (c->vals.v[i] == v) return 1;
    return 0;
}

static int subset(const lg_comp *small, const lg_comp *big)
{
    for (size_t i = 0; i < small->vals.n; i++)
        if (!contains(big, small->vals.v[i])) return 0;
    return 1;
}

/* Component indices grouped by function: those of function f are
 * idx[start[f] .. start[f + 1]), in creation order. */
typedef struct comp_groups {
    uint32_t *idx;
    size_t *start;
} comp_groups;

static int group_comps(const sts_ledger *l, comp_groups *g)
{
    g->idx = malloc((l->comps.n ? l->comps.n : 1) * sizeof *g->idx);
    g->start = calloc(l->fns.n + 2, sizeof *g->start);
    if (!g->idx || !g->start) return -1;
    for (size_t i = 0; i < l->comps.n; i++)
        g->start[l->comps.v[i].fn + 2]++;
    for (size_t f = 2; f < l->fns.n + 2; f++)
        g->start[f] += g->start[f - 1];
    for (size_t i = 0; i < l->comps.n; i++)
        g->idx[g->start[l->comps.v[i].fn + 1]++] = (uint32_t)i;
    return 0;
}

static void groups_release(comp_groups *g)
{
    free(g->idx);
    free(g->start);
}

/* The name positional argument `index` of function fn maps to, or 0. */
static uint32_t resolve_name(const sts_ledger *l, const comp_groups *g, uint32_t fn, long index)
{
    const lg_fn *f = &l->fns.v[fn];
    if ((size_t)index < f->argnames.n && f->argnames.v[index]) return f->argnames.v[index];
    uint32_t found = 0;
    for (size_t i = g->start[fn]; i < g->start[fn + 1]; i++) {
        const lg_comp *p = &l->comps.v[g->idx[i]];
        long pi;
        if (p->vals.n < 2 || !is_positional(l, p, &pi) || pi != index) continue;
        for (size_t j = g->start[fn]; j < g->start[fn + 1]; j++) {
            const lg_comp *n = &l->comps.v[g->idx[j]];
            long ni;
            if (n->what != p->what || n->dim != p->dim || n->vals.n < 2) continue;
            if (is_positional(l, n, &ni) || !subset(n, p)) continue;
            if (found && found != n->arg) return 0; /* ambiguous: leave it positional */
            found = n->arg;
        }
    }
    return found;
}

/* The component (fn, arg, what, dim), or SIZE_MAX. */
static size_t comp_find(const sts_ledger *l, uint32_t fn, const char *arg, int what, int dim)
{
    char key[512];
    snprintf(key, sizeof key, "%u\x1f%s\x1f%d\x1f%d", (unsigned)fn, arg, what, dim);
    uint32_t kid = sts_strtab_find(&l->strs, key, strlen(key));
    if (kid == UINT32_MAX) return SIZE_MAX;
    uint32_t ci = sts_u64map_get(&l->comp_by_key, (uint64_t)kid + 1);
    return ci == UINT32_MAX ? SIZE_MAX : ci;
}

/* Moves component p's values into the named component, keeping p's order first. */
static int merge_into_named(sts_ledger *l, size_t pi, uint32_t name)
{
    lg_comp p = l->comps.v[pi];
    const char *nm = lg_str(l, name);
    /* Observing the first value creates the named component when it is new. */
    for (size_t k = 0; k < p.vals.n; k++)
        if (sts_lg_observe_from(l, p.fn, nm, (sts_lg_what)p.what, p.dim, lg_str(l, p.vals.v[k]), p.named_by_log) != 0)
            return -1;
    size_t ti = comp_find(l, p.fn, nm, p.what, p.dim);
    if (ti == SIZE_MAX) return 0;
    lg_comp *t = &l->comps.v[ti];
    uint32_t *order = malloc((t->vals.n ? t->vals.n : 1) * sizeof *order);
    if (!order) return -1;
    size_t n = 0;
    for (size_t k = 0; k < p.vals.n; k++)
        order[n++] = p.vals.v[k];
    for (size_t k = 0; k < t->vals.n; k++)
        if (!contains(&p, t->vals.v[k])) order[n++] = t->vals.v[k];
    memcpy(t->vals.v, order, n * sizeof *order);
    free(order);
    l->comps.v[pi].dead = 1;
    return 0;
}

static int resolve_positional(sts_ledger *l)
{
    comp_groups g = { NULL, NULL };
    size_t n = l->comps.n; /* merging may append components */
    size_t *names = calloc(n ? n : 1, sizeof *names);
    int rc = names && group_comps(l, &g) == 0 ? 0 : -1;
    /* Names first, merges after: a merge appends components the groups do not list. */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        long index;
        if (is_positional(l, &l->comps.v[i], &index)) names[i] = resolve_name(l, &g, l->comps.v[i].fn, index);
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (names[i] && merge_into_named(l, i, (uint32_t)names[i]) != 0) rc = -1;
    free(names);
    groups_release(&g);
    return rc;
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
    switch ((sts_lg_what)c->what) {
    case STS_LG_RANK:
        snprintf(buf, cap, "rank of %s", arg);
        break;
    case STS_LG_DIM:
        snprintf(buf, cap, "dimension %d of %s", c->dim, arg);
        break;
    case STS_LG_DTYPE:
        snprintf(buf, cap, "dtype of %s", arg);
        break;
    case STS_LG_WEAK:
        snprintf(buf, cap, "weak type of %s", arg);
        break;
    case STS_LG_VALUE:
        snprintf(buf, cap, "value of %s", arg);
        break;
    }
}

static void join_values(const sts_ledger *l, const lg_comp *c, size_t max, sts_sbuf *out)
{
    for (size_t i = 0; i < c->vals.n && i < max; i++)
        sts_sbuf_printf(out, "%s%s", i ? ", " : "", lg_str(l, c->vals.v[i]));
    if (c->vals.n > max) sts_sbuf_puts(out, ", ...");
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
    for (size_t i = 0; i < c->vals.n; i++) {
        const char *s = lg_str(l, c->vals.v[i]);
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

/* PyTorch's own remedies: a dimension marked dynamic (or dynamic=True) serves every
 * size with one graph; a Python number it specialized on becomes a tensor input. */
static void torch_advice(const lg_comp *c, const char *comp, const char *arg, char *buf, size_t cap)
{
    switch ((sts_lg_what)c->what) {
    case STS_LG_DIM:
        snprintf(buf, cap,
                 "mark it dynamic: torch._dynamo.mark_dynamic(%s, %d) before the first call, or "
                 "torch.compile(..., dynamic=True), so one graph serves every size (or pad %s to a few sizes)",
                 arg, c->dim, comp);
        break;
    case STS_LG_RANK:
        snprintf(buf, cap, "reshape %s to one rank before the call", arg);
        break;
    case STS_LG_DTYPE:
        snprintf(buf, cap, "cast %s to one dtype before the call (%s.to(...))", arg, arg);
        break;
    case STS_LG_WEAK:
    case STS_LG_VALUE:
        snprintf(buf, cap,
                 "torch specializes on the Python value of %s: pass it as a tensor (torch.tensor(%s)), or "
                 "torch.compile(..., dynamic=True) to make Python ints symbolic",
                 arg, arg);
        break;
    }
}

static void advice(const lg_comp *c, const char *comp, const char *arg, int64_t nb, const char *bk, int64_t maxv,
                   char *buf, size_t cap)
{
    switch ((sts_lg_what)c->what) {
    case STS_LG_DIM:
        if (nb > 1 && (size_t)nb < c->vals.n)
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
    case STS_LG_RANK:
        snprintf(buf, cap, "reshape %s to one rank before the call", arg);
        break;
    case STS_LG_DTYPE:
        snprintf(buf, cap, "cast %s to one dtype before the call", arg);
        break;
    case STS_LG_WEAK:
        snprintf(buf, cap, "pass %s as a typed array every time (not sometimes a Python scalar)", arg);
        break;
    case STS_LG_VALUE:
        snprintf(buf, cap,
                 "keep %s static only if it selects program structure; if it only feeds arithmetic, "
                 "pass it as a dynamic value",
                 arg);
        break;
    }
}

static int add_churn(sts_ledger *l, const lg_churn *c)
{
    lg_churn *slot = STS_VEC_PUSH(l->churn);
    if (!slot) return -1;
    *slot = *c;
    return 0;
}

int64_t sts_lg_specializations(const lg_fn *f)
{
    int64_t s = f->compiles;
    if (f->traces > s) s = f->traces;
    if (f->specializations > s) s = f->specializations;
    return s;
}

static int diagnose_comp(sts_ledger *l, size_t ci)
{
    const lg_comp *c = &l->comps.v[ci];
    const lg_fn *f = &l->fns.v[c->fn];
    char comp[256], bk[512], adv[1024], cost[32];
    int64_t b[64], maxv = 0;
    sts_sbuf vals = STS_SBUF_INIT, msg = STS_SBUF_INIT;
    component_text(l, c, comp, sizeof comp);
    join_values(l, c, SIZE_MAX, &vals);
    size_t nb = c->what == STS_LG_DIM ? buckets(l, c, b, 64, &maxv) : 0;
    size_t pos = 0;
    bk[0] = 0;
    for (size_t i = 0; i < nb && pos + 24 < sizeof bk; i++)
        pos += (size_t)snprintf(bk + pos, sizeof bk - pos, "%s%" PRId64, i ? ", " : "", b[i]);
    lg_churn ch;
    memset(&ch, 0, sizeof ch);
    ch.fn = c->fn;
    ch.ci = (uint32_t)ci + 1;
    ch.nvalues = (int64_t)c->vals.n;
    ch.specializations = sts_lg_specializations(f);
    ch.cost_ns = f->miss_cost_known ? f->miss_cost_ns : -1;
    ch.nbuckets = (int64_t)nb;
    char arg[160];
    arg_text(l, c, arg, sizeof arg);
    if (f->source == STS_LEDGER_SRC_TORCH_LOG || f->source == STS_LEDGER_SRC_TORCH_TRACE)
        torch_advice(c, comp, arg, adv, sizeof adv);
    else
        advice(c, comp, arg, (int64_t)nb, bk, maxv, adv, sizeof adv);
    sts_lg_fmt_ns(ch.cost_ns, cost, sizeof cost);
    sts_sbuf_printf(&msg, "%s: %s took %zu values (", lg_str(l, f->name), comp, c->vals.n);
    join_values(l, c, CHURN_MAX_LISTED, &msg);
    sts_sbuf_printf(&msg, ") across %" PRId64 " specializations costing %s; %s", ch.specializations,
                    ch.cost_ns >= 0 ? cost : "an unknown time", adv);
    int bad = vals.oom || msg.oom;
    ch.comp = sts_lg_intern(l, comp);
    ch.values = bad ? UINT32_MAX : sts_lg_intern_n(l, vals.p ? vals.p : "", vals.n);
    ch.buckets = sts_lg_intern(l, bk);
    ch.message = bad ? UINT32_MAX : sts_lg_intern_n(l, msg.p ? msg.p : "", msg.n);
    sts_sbuf_release(&vals);
    sts_sbuf_release(&msg);
    if (ch.comp == UINT32_MAX || ch.values == UINT32_MAX || ch.buckets == UINT32_MAX || ch.message == UINT32_MAX)
        return -1;
    return add_churn(l, &ch);
}

/* An entry with no values: the function, its specializations and cost, a component
 * text and a message built by the caller. */
static int add_plain(sts_ledger *l, size_t fi, const char *comp, const char *msg, int64_t order)
{
    lg_churn ch;
    memset(&ch, 0, sizeof ch);
    ch.fn = (uint32_t)fi;
    ch.nvalues = order;
    ch.specializations = sts_lg_specializations(&l->fns.v[fi]);
    ch.cost_ns = l->fns.v[fi].miss_cost_known ? l->fns.v[fi].miss_cost_ns : -1;
    ch.comp = sts_lg_intern(l, comp);
    ch.message = sts_lg_intern(l, msg);
    if (ch.comp == UINT32_MAX || ch.message == UINT32_MAX) return -1;
    return add_churn(l, &ch);
}

static void cost_text(const lg_fn *f, char *buf, size_t cap)
{
    if (f->miss_cost_known)
        sts_lg_fmt_ns(f->miss_cost_ns, buf, cap);
    else
        snprintf(buf, cap, "an unknown time");
}

/* The log option that would have named what varies, when it was not on. */
static const char *explain_hint(const sts_ledger *l, const lg_fn *f)
{
    if (f->source == STS_LEDGER_SRC_JAX_LOG)
        return l->explain_seen ? "; JAX's cache-miss explanations (on in this log) did not name it either"
                               : "; enable jax_explain_cache_misses to name it";
    if (f->source == STS_LEDGER_SRC_TORCH_LOG || f->source == STS_LEDGER_SRC_TORCH_TRACE)
        return "; TORCH_LOGS=recompiles_verbose lists every failing guard";
    return "";
}

/* A function compiled many times whose logged signatures never differ: the varying
 * part (static parameters, closed-over values, the function object) is not logged. */
static int diagnose_invisible(sts_ledger *l, size_t fi)
{
    const lg_fn *f = &l->fns.v[fi];
    char msg[1024], cost[32];
    cost_text(f, cost, sizeof cost);
    snprintf(msg, sizeof msg,
             "%s: %" PRId64 " specializations costing %s, but the %s argument signatures do not differ: what "
             "varies (a static parameter, a closed-over value, the function object itself) is not in the %s%s",
             lg_str(l, f->name), sts_lg_specializations(f), cost, f->source ? "logged" : "recorded",
             f->source ? "log" : "recorded signatures", explain_hint(l, f));
    return add_plain(l, fi, "not visible in the log", msg, 0);
}

/* JAX said a miss was a new function object defined where an earlier one was. */
static int diagnose_redefined(sts_ledger *l, size_t fi)
{
    const lg_fn *f = &l->fns.v[fi];
    char msg[1024], cost[32];
    cost_text(f, cost, sizeof cost);
    int64_t r = f->counters[STS_LG_REDEFINED];
    snprintf(msg, sizeof msg,
             "%s: %" PRId64 " specializations costing %s; %" PRId64 " of its cache misses %s a new function object "
             "defined at the same line as one seen before (JAX: \"seen another function defined on the same "
             "line\"): a function (or jax.jit wrapper) created anew each time never reuses a compile; create and "
             "jit it once, outside the loop, and call that",
             lg_str(l, f->name), sts_lg_specializations(f), cost, r, r == 1 ? "was" : "were");
    return add_plain(l, fi, "function object", msg, r + 1);
}

/* An anonymous name with no definition site may stand for several functions: their
 * signatures cannot be compared as one function's. */
static int diagnose_unknown_identity(sts_ledger *l, size_t fi)
{
    const lg_fn *f = &l->fns.v[fi];
    char msg[1024], cost[32];
    cost_text(f, cost, sizeof cost);
    snprintf(msg, sizeof msg,
             "%s: %" PRId64 " specializations costing %s of functions the log names only \"%s\": it does not say "
             "whether they are one function or several, so no changing signature is diagnosed%s",
             lg_str(l, f->name), sts_lg_specializations(f), cost, lg_str(l, f->name),
             f->source == STS_LEDGER_SRC_JAX_LOG && !l->explain_seen
                 ? "; enable jax_explain_cache_misses: its records name each function's definition site"
                 : "");
    return add_plain(l, fi, "identity not in the log", msg, 0);
}

/* Functions the framework compiles for itself: JAX jits each eager jnp / lax operation
 * called outside a jit (jnp.asarray's `stage`, `iota`, `convert_element_type`, ...), so
 * a log names them as if they were the user's; PyTorch compiles its own frames. Their
 * specializations follow the user's eager calls and no padding or static argument of
 * theirs stops them (jitting the code that calls them does). The rule: a site inside
 * the framework's sources (".../jax/_src/", ".../torch/"), or, without a site, one of
 * the names below (the operations JAX compiles eagerly, docs/ledger.md). */
static const char *const jax_internal[] = {
    "stage",
    "iota",
    "convert_element_type",
    "broadcast_in_dim",
    "concatenate",
    "reshape",
    "squeeze",
    "transpose",
    "dynamic_slice",
    "dynamic_update_slice",
    "gather",
    "scatter",
    "scatter-add",
    "select_n",
    "_where",
    "_reduce_sum",
    "_reduce_max",
    "_reduce_min",
    "_reduce_prod",
    "_argmax",
    "_argmin",
    "clamp",
    "integer_pow",
    "_multi_slice",
    "_pad",
    "_einsum",
    "cumsum",
    "_cumulative_reduction",
    "copy",
    "_identity_fn",
    "_convert_element_type",
    "_lax_const",
    "_reshape",
    "_squeeze",
    "_split",
    "_take",
    "_rewriting_take",
    "_broadcast_arrays",
    "_broadcast_to",
    "_promote_dtypes",
};

int sts_lg_fn_internal(const sts_ledger *l, const lg_fn *f)
{
    const char *name = lg_str(l, f->name), *site = strstr(name, " (");
    if (site && (strstr(site, "/jax/_src/") || strstr(site, "/jax/numpy/") || strstr(site, "/torch/"))) return 1;
    if (f->source != STS_LEDGER_SRC_JAX_LOG) return 0;
    size_t n = site ? (size_t)(site - name) : strlen(name);
    for (size_t i = 0; i < sizeof jax_internal / sizeof jax_internal[0]; i++)
        if (strlen(jax_internal[i]) == n && memcmp(jax_internal[i], name, n) == 0) return 1;
    return 0;
}

static int diagnose_internal(sts_ledger *l, size_t fi)
{
    const lg_fn *f = &l->fns.v[fi];
    char msg[1024];
    int jax = f->source == STS_LEDGER_SRC_JAX_LOG;
    snprintf(msg, sizeof msg,
             "%s: %" PRId64 " specializations of a function %s compiles for itself (%s): no change to its "
             "arguments stops them; %s",
             lg_str(l, f->name), sts_lg_specializations(f), jax ? "JAX" : "PyTorch",
             jax ? "an eager jnp / lax operation called outside jit" : "a frame inside torch",
             jax ? "jit the code that calls it, so the operation joins that compile"
                 : "compile the code around it, or leave it eager");
    return add_plain(l, fi, "compiled by the framework", msg, 0);
}

static int cmp_churn(const void *a, const void *b)
{
    const lg_churn *x = a, *y = b;
    if (x->nvalues != y->nvalues) return x->nvalues < y->nvalues ? 1 : -1;
    if (x->fn != y->fn) return x->fn < y->fn ? -1 : 1;
    return x->comp < y->comp ? -1 : x->comp > y->comp;
}

static int worth(const lg_fn *f)
{
    return sts_lg_specializations(f) >= CHURN_MIN_SPECIALIZATIONS;
}

/* Whether the log explained f's misses (beyond first calls). Then those explanations
 * say what changed, and a component only the rows' signatures show varying changed
 * along with something else (a config, the function object): not a cause to fix. */
static int explained(const lg_fn *f)
{
    for (int k = STS_MISS_SHAPE; k < STS_MISS_COUNT; k++)
        if (f->reasons[k] > 0) return 1;
    return 0;
}

int sts_lg_churn_compute(sts_ledger *l)
{
    l->churn.n = 0;
    if (resolve_positional(l) != 0) return -1;
    char *varying = calloc(l->fns.n ? l->fns.n : 1, 1);
    if (!varying) return -1;
    int rc = 0;
    for (size_t ci = 0; rc == 0 && ci < l->comps.n; ci++) {
        const lg_comp *c = &l->comps.v[ci];
        const lg_fn *f = &l->fns.v[c->fn];
        if (c->dead || c->vals.n < 2 || !worth(f) || f->identity_unknown || sts_lg_fn_internal(l, f)) continue;
        if (explained(f) && !c->named_by_log) continue;
        varying[c->fn] = 1;
        rc = diagnose_comp(l, ci);
    }
    for (size_t fi = 0; rc == 0 && fi < l->fns.n; fi++) {
        const lg_fn *f = &l->fns.v[fi];
        int reasons = 0;
        for (int k = STS_MISS_SHAPE; k < STS_MISS_COUNT; k++)
            reasons += f->reasons[k] > 0;
        if (f->counters[STS_LG_REDEFINED] > 0 && f->compiles >= 2)
            rc = diagnose_redefined(l, fi);
        else if (!worth(f))
            continue;
        else if (sts_lg_fn_internal(l, f)) {
            /* Traced inside the user's jit and never compiled alone: nothing to say. */
            if (f->compiles >= CHURN_MIN_SPECIALIZATIONS) rc = diagnose_internal(l, fi);
        } else if (f->identity_unknown)
            rc = diagnose_unknown_identity(l, fi);
        /* Only compiles make an invisible variation worth reporting: inner jitted helpers
         * are re-traced inside every outer trace without compiling. */
        else if (!varying[fi] && !reasons && f->compiles >= CHURN_MIN_SPECIALIZATIONS)
            rc = diagnose_invisible(l, fi);
    }
    free(varying);
    if (rc != 0) return -1;
    if (l->churn.n > 1) qsort(l->churn.v, l->churn.n, sizeof *l->churn.v, cmp_churn);
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
