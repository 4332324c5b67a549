/* logparse: jax_explain_cache_misses records, all three eras.
 *
 *   0.4.24 - 0.5.3 (jax/_src/pjit.py explain_tracing_cache_miss):
 *     TRACING CACHE MISS at SITE because:
 *       for NAME defined at FILE:LINE            | never seen function:\n    NAME id=N ...
 *       never seen input type signature:\n    x: f32[12],  gain: f32[]
 *       closest seen input type signature has 1 mismatches, including:
 *         * at x, seen f32[8], but now given f32[12]
 *       (pytree, keyword-argument and tracing-context variants)
 *   0.6 - 0.8 (pjit.py, diff_tracing_cache_keys):
 *     TRACING CACHE MISS at SITE costing X ms because:
 *       for NAME defined at FILE:LINE
 *       all previously seen cache keys are different. Closest previous key:
 *       * key with different input types:
 *           types now: x: f32[12], gain: f32[]
 *             * at x, now f32[12] and before f32[8]
 *       * key with different value of static kwargs:\n      now {square: False} and before {...}
 *   0.9 on (interpreters/partial_eval.py explain):
 *     TRACING CACHE MISS at SITE:
 *       for NAME defined at FILE:LINE
 *       all previously seen cache keys differ. For the closest previous key:
 *       different input types:
 *       * at x, now f32[12] and before f32[8]
 *       different input pytree:
 *       * at input path [1]['square'], now <...> Static(val=False) and before <...> Static(val=True), ...
 *
 * SITE is "FILE:LINE[:COL] (CALLER)": where the function was called, from inside
 * CALLER. The record names the function and where it was defined; that pair is its
 * identity, so three lambdas of one script stay three functions. Up to 0.8 the record
 * follows the trace it explains; from 0.9 on it precedes it, and a function traced
 * inside another one's trace (a lax.cond branch, a nested jit) is explained before the
 * enclosing trace ends: such a record belongs to the inner function, never to the
 * enclosing one's row. */
#include "logparse/logparse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int starts(const char *s, const char *lit)
{
    return strncmp(s, lit, strlen(lit)) == 0;
}

static const char *trim(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

typedef struct miss {
    lp_ctx *x;
    long ident;
    int nreasons;
    unsigned seen;   /* categories counted for this record */
    char first[512]; /* the first reason, for the row that this miss leads to */
    int nstatics;    /* static values this record names */
    char sname[LP_MAX_STATICS][128], sbefore[LP_MAX_STATICS][128], snow[LP_MAX_STATICS][128];
} miss;

/* Copies kept for display are cut to their buffers on purpose (the ledger keeps the
 * whole text); the length snprintf would have written is looked at only so that the
 * compiler knows the cut is meant. */
static void cut_copy(char *dst, size_t size, const char *a, const char *b)
{
    int n = b ? snprintf(dst, size, "%s: %s", a, b) : snprintf(dst, size, "%s", a);
    if (n < 0) dst[0] = 0;
}

static void add(miss *m, sts_miss_category cat, const char *detail)
{
    sts_lp_reason(m->x, m->ident, cat, detail, &m->seen);
    if (!m->nreasons++) cut_copy(m->first, sizeof m->first, sts_miss_category_name(cat), detail);
}

static void observe(miss *m, const char *arg, sts_lg_what what, int dim, const char *before, const char *now)
{
    long fn = sts_lp_fn(m->x, m->ident, STS_LEDGER_SRC_JAX_LOG);
    if (fn < 0) return;
    sts_lg_observe(m->x->l, (size_t)fn, arg, what, dim, before);
    sts_lg_observe(m->x->l, (size_t)fn, arg, what, dim, now);
}

/* A static argument's value changed: a churn component, and part of the signatures
 * of the row this record explains (now) and of the one before (before). */
static void static_value(miss *m, const char *arg, const char *before, const char *now)
{
    observe(m, arg, STS_LG_VALUE, -1, before, now);
    if (m->nstatics >= LP_MAX_STATICS) return;
    cut_copy(m->sname[m->nstatics], sizeof m->sname[0], arg, NULL);
    cut_copy(m->sbefore[m->nstatics], sizeof m->sbefore[0], before, NULL);
    cut_copy(m->snow[m->nstatics], sizeof m->snow[0], now, NULL);
    m->nstatics++;
}

/* Compares two avals of argument `arg` and records each difference. */
static void type_diff(miss *m, const char *arg, const char *b, size_t bn, const char *n, size_t nn)
{
    sts_argsig ab, an;
    char db[64], dn[64], d[700], vb[32], vn[32];
    if (sts_lp_parse_aval(b, bn, &ab, db, sizeof db) != 0 || sts_lp_parse_aval(n, nn, &an, dn, sizeof dn) != 0) {
        snprintf(d, sizeof d, "%s: %.*s -> %.*s", arg, (int)(bn < 200 ? bn : 200), b, (int)(nn < 200 ? nn : 200), n);
        add(m, STS_MISS_OTHER, d);
        return;
    }
    int found = 0;
    if (strcmp(db, dn) != 0) {
        snprintf(d, sizeof d, "dtype of %s: %s -> %s", arg, db, dn);
        add(m, STS_MISS_DTYPE, d);
        observe(m, arg, STS_LG_DTYPE, -1, db, dn);
        found = 1;
    }
    if (ab.ndim != an.ndim) {
        snprintf(d, sizeof d, "rank of %s: %d -> %d", arg, ab.ndim, an.ndim);
        snprintf(vb, sizeof vb, "%d", ab.ndim);
        snprintf(vn, sizeof vn, "%d", an.ndim);
        add(m, STS_MISS_SHAPE, d);
        observe(m, arg, STS_LG_RANK, -1, vb, vn);
        found = 1;
    } else {
        for (int i = 0; i < an.ndim && i < STS_LEDGER_MAX_DIMS; i++) {
            if (ab.shape[i] == an.shape[i]) continue;
            snprintf(vb, sizeof vb, "%lld", (long long)ab.shape[i]);
            snprintf(vn, sizeof vn, "%lld", (long long)an.shape[i]);
            snprintf(d, sizeof d, "dimension %d of %s: %s -> %s", i, arg, vb, vn);
            add(m, STS_MISS_SHAPE, d);
            observe(m, arg, STS_LG_DIM, i, vb, vn);
            found = 1;
        }
    }
    if (ab.weak_type != an.weak_type) {
        snprintf(d, sizeof d, "weak type of %s: %s -> %s", arg, ab.weak_type ? "Python scalar" : "typed array",
                 an.weak_type ? "Python scalar" : "typed array");
        add(m, STS_MISS_WEAK_TYPE, d);
        observe(m, arg, STS_LG_WEAK, -1, ab.weak_type ? "weak" : "strong", an.weak_type ? "weak" : "strong");
        found = 1;
    }
    if (!found) {
        snprintf(d, sizeof d, "sharding or memory space of %s: %.*s -> %.*s", arg, (int)(bn < 200 ? bn : 200), b,
                 (int)(nn < 200 ? nn : 200), n);
        add(m, STS_MISS_CONTEXT, d);
    }
}

/* Cuts a trailing documentation URL that 0.9+ glues onto the last type. */
static size_t cut_url(const char *s, size_t n)
{
    const char *u = strstr(s, "https://");
    return u && (size_t)(u - s) < n ? (size_t)(u - s) : n;
}

/* "* at NAME, now S1 and before S2" and "* at NAME, seen S1, but now given S2". */
static int at_types(miss *m, const char *t)
{
    const char *name = t + 5, *sep, *b, *n, *g, *a;
    size_t bn, nn, namelen;
    /* Each second pattern is searched after the first one ends: ", now and before X"
     * holds " and before " only from the space that ends ", now ". */
    if ((sep = strstr(name, ", seen ")) && (g = strstr(sep + 7, ", but now given "))) {
        b = sep + 7;
        bn = (size_t)(g - b);
        n = g + 16;
        nn = cut_url(n, strlen(n));
    } else if ((sep = strstr(name, ", now ")) && (a = strstr(sep + 6, " and before "))) {
        n = sep + 6;
        nn = (size_t)(a - n);
        b = a + 12;
        bn = cut_url(b, strlen(b));
    } else
        return -1;
    namelen = (size_t)(sep - name);
    char arg[160];
    snprintf(arg, sizeof arg, "%.*s", (int)(namelen < 150 ? namelen : 150), name);
    type_diff(m, arg, b, bn, n, nn);
    return 0;
}

/* The value inside "Static(val=...)" in s[0..n), copied to out. */
static int static_val(const char *s, size_t n, char *out, size_t cap)
{
    const char *p = strstr(s, "Static(val=");
    if (!p || (size_t)(p - s) >= n) return -1;
    p += 11;
    int depth = 0;
    const char *e = p;
    while (*e && (depth || *e != ')')) {
        if (*e == '(')
            depth++;
        else if (*e == ')')
            depth--;
        e++;
    }
    snprintf(out, cap, "%.*s", (int)(e - p), p);
    return 0;
}

/* "[1]['square']" names keyword argument square; "[0][2]" names positional argument 2. */
static void path_arg(const char *p, size_t n, char *out, size_t cap)
{
    const char *q = NULL;
    for (const char *s = p; s + 2 < p + n; s++)
        if (s[0] == '[' && s[1] == '\'') q = s + 2;
    if (q) {
        const char *e = strchr(q, '\'');
        if (e && e < p + n) {
            snprintf(out, cap, "%.*s", (int)(e - q), q);
            return;
        }
    }
    /* Positional static arguments count every argument, so they are not the "#i" of
     * the arrays a Compiling line lists. */
    if (n >= 6 && starts(p, "[0][") && isdigit((unsigned char)p[4])) {
        snprintf(out, cap, "argument %d", atoi(p + 4));
        return;
    }
    snprintf(out, cap, "%.*s", (int)(n < 100 ? n : 100), p);
}

/* "* at input path P, now X and before Y, so Z": static values hide here from 0.9 on. */
static void at_path(miss *m, const char *t)
{
    const char *p = t + 5;
    if (starts(p, "input path ")) p += 11;
    const char *now = strstr(p, ", now "), *before = now ? strstr(now, " and before ") : NULL;
    char d[700], arg[128], vb[128], vn[128];
    if (now && before && static_val(now, (size_t)(before - now), vn, sizeof vn) == 0 &&
        static_val(before, strlen(before), vb, sizeof vb) == 0) {
        path_arg(p, (size_t)(now - p), arg, sizeof arg);
        snprintf(d, sizeof d, "value of %s: %s -> %s", arg, vb, vn);
        add(m, STS_MISS_STATIC, d);
        static_value(m, arg, vb, vn);
        return;
    }
    snprintf(d, sizeof d, "%.300s", t + 2);
    add(m, STS_MISS_PYTREE, d);
}

typedef struct kv_list {
    char keys[16][64], vals[16][128];
    int n;
} kv_list;

static void on_kv(const char *s, size_t n, void *user)
{
    kv_list *kv = user;
    const char *c = memchr(s, ':', n);
    if (!c || kv->n >= 16) return;
    snprintf(kv->keys[kv->n], sizeof kv->keys[0], "%.*s", (int)(c - s), s);
    const char *v = c + 1;
    while (v < s + n && *v == ' ')
        v++;
    snprintf(kv->vals[kv->n], sizeof kv->vals[0], "%.*s", (int)(s + n - v), v);
    kv->n++;
}

/* "now {square: False} and before {square: True}" (0.6 - 0.8 static kwargs). */
static void static_kwargs(miss *m, const char *t)
{
    const char *b = strstr(t, " and before ");
    kv_list now, before;
    memset(&now, 0, sizeof now);
    memset(&before, 0, sizeof before);
    if (!b || sts_lp_split_list(t + 4, NULL, on_kv, &now) < 0 || sts_lp_split_list(b + 12, NULL, on_kv, &before) < 0) {
        add(m, STS_MISS_STATIC, t);
        return;
    }
    int found = 0;
    char d[512];
    for (int i = 0; i < now.n; i++)
        for (int j = 0; j < before.n; j++) {
            if (strcmp(now.keys[i], before.keys[j]) != 0 || strcmp(now.vals[i], before.vals[j]) == 0) continue;
            snprintf(d, sizeof d, "value of %s: %s -> %s", now.keys[i], before.vals[j], now.vals[i]);
            add(m, STS_MISS_STATIC, d);
            static_value(m, now.keys[i], before.vals[j], now.vals[i]);
            found = 1;
        }
    if (!found) add(m, STS_MISS_STATIC, t);
}

/* "now 'gelu' and before 'relu'" (0.6 - 0.8 static positional args, all of them joined). */
static void static_args(miss *m, const char *t)
{
    const char *b = strstr(t, " and before ");
    char d[600], vn[256], vb[256];
    if (!b) {
        snprintf(d, sizeof d, "static args: %.400s", t);
        add(m, STS_MISS_STATIC, d);
        return;
    }
    snprintf(vn, sizeof vn, "%.*s", (int)(b - t - 4 < 250 ? b - t - 4 : 250), t + 4);
    snprintf(vb, sizeof vb, "%.250s", b + 12);
    snprintf(d, sizeof d, "value of static args: %s -> %s", vb, vn);
    add(m, STS_MISS_STATIC, d);
    static_value(m, "static args", vb, vn);
}

/* "x: f32[12], gain: f32[]" lists every argument in order: remember the names. */
static void learn_names(miss *m, const char *t)
{
    if (strstr(t, "...")) return; /* cut at 73 characters: the list is incomplete */
    char names[64][96];
    const char *ptrs[64];
    size_t n = 0;
    const char *p = t;
    while (*p && n < 64) {
        p = trim(p);
        const char *c = strstr(p, ": ");
        if (!c) break;
        snprintf(names[n], sizeof names[0], "%.*s", (int)((size_t)(c - p) < 95 ? (size_t)(c - p) : 95), p);
        ptrs[n] = names[n];
        n++;
        const char *next = strstr(c, ", ");
        if (!next) break;
        p = next + 2;
    }
    long fn = n ? sts_lp_fn(m->x, m->ident, STS_LEDGER_SRC_JAX_LOG) : -1;
    if (fn >= 0) sts_lg_fn_set_argnames(m->x->l, (size_t)fn, ptrs, n);
}

enum { H_NONE, H_TYPES, H_TYPE_NAMES, H_STATIC_ARGS, H_STATIC_KWARGS, H_PYTREE, H_CONTEXT };

static void context_item(miss *m, const char *t)
{
    char d[512];
    snprintf(d, sizeof d, "%.400s", t + 2);
    add(m, STS_MISS_CONTEXT, d);
}

/* One body line of a record whose function is known; *h carries the open header. */
static void body_line(miss *m, const char *t, int *h)
{
    if (starts(t, "* key with ")) {
        const char *k = t + 11;
        *h = H_NONE;
        if (starts(k, "different input types"))
            *h = H_TYPES;
        else if (starts(k, "different value of static args"))
            *h = H_STATIC_ARGS;
        else if (starts(k, "different value of static kwargs"))
            *h = H_STATIC_KWARGS;
        else if (starts(k, "different static_argnums"))
            add(m, STS_MISS_STATIC, "static_argnums changed");
        else if (starts(k, "different input pytree") || starts(k, "different number of args"))
            *h = H_PYTREE;
        else if (starts(k, "different tracing context"))
            add(m, STS_MISS_CONTEXT, "tracing context (config)");
        else
            add(m, STS_MISS_OTHER, k);
        if (*h == H_PYTREE && starts(k, "different number of args")) add(m, STS_MISS_PYTREE, k);
        return;
    }
    if (starts(t, "types now: "))
        learn_names(m, t + 11);
    else if (starts(t, "different input types") || starts(t, "closest seen input type signature"))
        *h = H_TYPES;
    else if (starts(t, "never seen input type signature"))
        *h = H_TYPE_NAMES;
    else if (starts(t, "different input pytree") || starts(t, "closest seen input pytree"))
        *h = H_PYTREE;
    else if (starts(t, "never seen input pytree") || starts(t, "never seen passing "))
        add(m, STS_MISS_PYTREE, t);
    else if (starts(t, "Tracing context doesn't match") || starts(t, "tracing context doesn't match")) {
        *h = H_CONTEXT;
        add(m, STS_MISS_CONTEXT, "tracing context (config or context manager)");
    } else if (starts(t, "Debug info doesn't match"))
        add(m, STS_MISS_CONTEXT, "debug info (function identity)");
    else if (strstr(t, "explanation unavailable"))
        add(m, STS_MISS_OTHER, "explanation unavailable");
    else if (starts(t, "now ") && *h == H_STATIC_ARGS)
        static_args(m, t);
    else if (starts(t, "now {") && *h == H_STATIC_KWARGS)
        static_kwargs(m, t);
    else if (starts(t, "* at ")) {
        if (*h == H_PYTREE || starts(t, "* at input path") || strstr(t, "Static(val=") ||
            (strstr(t, " but now given ") && !strstr(t, ", but now given ")))
            at_path(m, t);
        else if (at_types(m, t) != 0)
            add(m, STS_MISS_OTHER, t + 2);
    } else if (starts(t, "* ") && *h == H_CONTEXT)
        context_item(m, t);
    else if (*h == H_TYPE_NAMES && strstr(t, ": "))
        learn_names(m, t);
}

/* The function a record is about: "for NAME defined at ..." or "never seen function:";
 * *site gets the "FILE:LINE" after "defined at" ("" when none). */
static const char *record_function(const lp_rec *r, size_t *n, int *first, char *site, size_t cap)
{
    site[0] = 0;
    for (size_t i = 1; i < r->lines.n; i++) {
        const char *t = trim(r->lines.v[i]), *s = NULL;
        if (starts(t, "never seen function:") && i + 1 < r->lines.n) {
            s = trim(r->lines.v[i + 1]);
            const char *e = strstr(s, " id=");
            *first = 1;
            *n = e ? (size_t)(e - s) : strcspn(s, " ");
        } else if (starts(t, "for ") && t[4]) {
            s = t + 4;
            const char *e = strstr(s, " defined at ");
            *n = e ? (size_t)(e - s) : strlen(s);
        } else
            continue;
        const char *d = strstr(s + *n, " defined at ");
        if (d) {
            d += 12;
            size_t len = strlen(d);
            while (len && d[len - 1] == ' ')
                len--;
            snprintf(site, cap, "%.*s", (int)(len < cap - 1 ? len : cap - 1), d);
        }
        return s;
    }
    return NULL;
}

/* "/home/u/train.py:104" -> "train.py:104". */
static const char *path_base(const char *path)
{
    const char *b = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\') b = p + 1;
    return b;
}

/* The first line: "TRACING CACHE MISS at SITE (CALLER)[ costing X ms][ because]:". */
typedef struct miss_head {
    int before;       /* 0.9 on: printed before the trace it explains */
    char site[300];   /* where the call was made, "FILE:LINE[:COL]" */
    char caller[128]; /* the function it was made from ("<module>", "<lambda>"); "" when absent */
} miss_head;

static void parse_head(const char *head, miss_head *h)
{
    memset(h, 0, sizeof *h);
    h->before = strstr(head, " because") == NULL && strstr(head, " costing ") == NULL;
    const char *at = head + strlen("TRACING CACHE MISS at ");
    const char *open = strrchr(at, '(');
    const char *close = open ? strchr(open, ')') : NULL;
    size_t sn = open && open > at ? (size_t)(open - at) : strcspn(at, " ");
    while (sn && at[sn - 1] == ' ')
        sn--;
    snprintf(h->site, sizeof h->site, "%.*s", (int)(sn < sizeof h->site - 1 ? sn : sizeof h->site - 1), at);
    if (open && close && close > open + 1)
        snprintf(h->caller, sizeof h->caller, "%.*s", (int)(close - open - 1), open + 1);
}

/* The open explanation that encloses a call made from inside `caller`, or -1. */
static long enclosing(lp_ctx *x, const char *caller)
{
    if (!caller[0]) return -1;
    char base[256];
    uint32_t key = sts_lp_key(x, caller, strlen(caller), 0, base, sizeof base);
    for (size_t i = x->open.n; i-- > 0;)
        if (x->idents.v[x->open.v[i].ident].key == key) return (long)i;
    return -1;
}

int sts_lp_take_open(lp_ctx *x, uint32_t key, lp_open *out)
{
    long pick = -1;
    /* The innermost explanation of that name, but not a function that shares its
     * enclosing trace's identity: such functions (lax.cond branches written as lambdas
     * on the jitted lambda's line) are traced without a line of their own. */
    for (size_t i = x->open.n; i-- > 0;) {
        const lp_open *o = &x->open.v[i];
        if (x->idents.v[o->ident].key != key) continue;
        if (!o->nested_same) {
            pick = (long)i;
            break;
        }
        if (pick < 0) pick = (long)i;
    }
    if (pick < 0) return 0;
    *out = x->open.v[pick];
    x->open.n = (size_t)pick; /* what opened inside it ends with it */
    return 1;
}

/* Most explanations waiting for their trace; older ones are dropped. */
#define LP_MAX_OPEN 64

static void push_open(lp_ctx *x, const miss *m, uint32_t site_display, uint32_t reason, int nested_same)
{
    /* An earlier explanation of the same function never got its trace: it is stale. */
    for (size_t i = 0; i < x->open.n;)
        if (x->open.v[i].ident == (uint32_t)m->ident) {
            memmove(&x->open.v[i], &x->open.v[i + 1], (x->open.n - i - 1) * sizeof *x->open.v);
            x->open.n--;
        } else
            i++;
    if (x->open.n >= LP_MAX_OPEN) {
        memmove(&x->open.v[0], &x->open.v[1], (x->open.n - 1) * sizeof *x->open.v);
        x->open.n--;
    }
    lp_open *o = STS_VEC_PUSH(x->open);
    if (!o) {
        x->oom = 1;
        return;
    }
    o->ident = (uint32_t)m->ident;
    o->site_display = site_display;
    o->nested_same = nested_same;
    o->reason = reason;
    for (int i = 0; i < m->nstatics; i++) {
        o->snames[i] = sts_lp_str(x, m->sname[i], strlen(m->sname[i]));
        o->svals[i] = sts_lp_str(x, m->snow[i], strlen(m->snow[i]));
    }
    o->nstatics = m->nstatics;
}

/* Whether row r has a known value for static argument `name`. */
static int row_has_static(const lp_ctx *x, const lp_row *r, uint32_t name)
{
    const char *nm = lp_str(x, name);
    for (size_t i = 0; i < r->statics.n; i++)
        if (r->statics.v[i].name == nm) return r->statics.v[i].value != NULL;
    return 0;
}

/* Static value names: the "before" of a change belongs to an earlier row. When exactly
 * one earlier row of the function has no value for it, that row is the one. */
static void backfill_statics(lp_ctx *x, const miss *m, const lp_row *explained)
{
    for (int k = 0; k < m->nstatics; k++) {
        uint32_t name = sts_lp_str(x, m->sname[k], strlen(m->sname[k]));
        lp_ident *id = &x->idents.v[m->ident];
        long lacking = -1;
        int count = 0;
        for (size_t i = 0; i < id->rows.n; i++) {
            lp_row *r = &x->rows.v[id->rows.v[i]];
            if (r == explained || row_has_static(x, r, name)) continue;
            lacking = (long)id->rows.v[i];
            count++;
        }
        if (count == 1) sts_lp_row_static(x, &x->rows.v[lacking], name, m->sbefore[k]);
        int known = 0;
        for (size_t i = 0; i < id->statics.n; i++)
            known |= id->statics.v[i] == name;
        uint32_t *slot = known ? NULL : STS_VEC_PUSH(id->statics);
        if (slot) *slot = name;
    }
}

/* Up to 0.8 the record follows its trace: it explains the row that trace started. */
static lp_row *explain_row_after(lp_ctx *x, const miss *m, uint32_t key, uint32_t reason)
{
    lp_row *r = sts_lp_row_active(x, key);
    if (!r || !r->has_trace || r->has_sig || r->explained) return NULL;
    size_t ri = (size_t)(r - x->rows.v);
    lp_ident *old = &x->idents.v[r->ident];
    for (size_t i = 0; i < old->rows.n; i++)
        if (old->rows.v[i] == ri) {
            memmove(&old->rows.v[i], &old->rows.v[i + 1], (old->rows.n - i - 1) * sizeof *old->rows.v);
            old->rows.n--;
            break;
        }
    uint32_t *slot = STS_VEC_PUSH(x->idents.v[m->ident].rows);
    if (!slot) {
        x->oom = 1;
        return NULL;
    }
    *slot = (uint32_t)ri;
    r = &x->rows.v[ri];
    r->ident = (uint32_t)m->ident;
    r->explained = 1;
    r->reason = reason;
    for (int i = 0; i < m->nstatics; i++)
        sts_lp_row_static(x, r, sts_lp_str(x, m->sname[i], strlen(m->sname[i])), m->snow[i]);
    return r;
}

static int malformed(lp_ctx *x, const lp_rec *r)
{
    const char *head = r->lines.v[0];
    size_t hl = strlen(head);
    while (hl && head[hl - 1] == ' ')
        hl--;
    if (!hl || head[hl - 1] != ':') {
        x->st.records--;
        sts_lp_warn(x, r->line, "cache-miss record does not end its first line with ':' (truncated?)");
        return 1;
    }
    return 0;
}

void sts_lp_jax_miss(lp_ctx *x, const lp_rec *r)
{
    if (malformed(x, r)) return;
    size_t n = 0;
    int first = 0, redefined = 0;
    char site[300];
    const char *name = record_function(r, &n, &first, site, sizeof site);
    if (!name || !n) {
        x->st.records--;
        sts_lp_warn(x, r->line,
                    "cache-miss record names no function: expected 'for NAME' or 'never seen function:' (truncated?)");
        return;
    }
    sts_lg_note_explain(x->l);
    miss_head h;
    parse_head(r->lines.v[0], &h);
    char base[256], display[700];
    uint32_t key = sts_lp_key(x, name, n, 0, base, sizeof base);
    if (site[0])
        snprintf(display, sizeof display, "%s (%s)", base, path_base(site));
    else
        snprintf(display, sizeof display, "%s", base);
    uint32_t site_display = sts_lp_str(x, display, strlen(display));
    long outer = h.before ? enclosing(x, h.caller) : -1;
    int nested_same = outer >= 0 && x->open.v[outer].site_display == site_display;
    if (nested_same) /* another function object defined where its enclosing one was */
        snprintf(display + strlen(display) - 1, sizeof display - strlen(display) + 1, ", called at %s)",
                 path_base(h.site));
    miss m;
    memset(&m, 0, sizeof m);
    m.x = x;
    m.ident = sts_lp_ident(x, display, key, site[0] != 0);
    if (m.ident < 0) return;
    int hd = H_NONE;
    for (size_t i = 1; i < r->lines.n; i++) {
        const char *t = trim(r->lines.v[i]);
        if (strstr(t, "seen another function defined on the same line"))
            redefined = 1;
        else if (!first)
            body_line(&m, t, &hd);
    }
    if (redefined) {
        add(&m, STS_MISS_CONTEXT, "function re-defined at the same line (a new function object per call)");
        long fn = sts_lp_fn(x, m.ident, STS_LEDGER_SRC_JAX_LOG);
        if (fn >= 0) sts_lg_fn_count(x->l, (size_t)fn, STS_LG_REDEFINED, 1);
    } else if (first)
        add(&m, STS_MISS_FIRST, "first call");
    else if (!m.nreasons)
        add(&m, STS_MISS_OTHER, "no explanation given");
    uint32_t reason = sts_lp_str(x, m.first, strlen(m.first));
    lp_row *explained = NULL;
    if (h.before)
        push_open(x, &m, site_display, reason, nested_same);
    else
        explained = explain_row_after(x, &m, key, reason);
    if (!nested_same) sts_lp_bind(x, key, m.ident);
    backfill_statics(x, &m, explained);
}
