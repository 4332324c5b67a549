/* ledger: jax_explain_cache_misses records, all three eras.
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
 *       * at input path [1]['square'], now <...> Static(val=False) and before <...> Static(val=True), ... */
#include "ledger/logparse.h"

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

void sts_lp_reason(lp_ctx *x, long fn, sts_miss_category cat, const char *detail, unsigned *seen)
{
    if (fn < 0) return;
    int count = !(*seen & (1u << cat));
    *seen |= 1u << cat;
    sts_lg_add_reason(x->l, lg_str(x->l, x->l->fns[fn].name), cat, detail, count, NULL);
}

typedef struct miss {
    lp_ctx *x;
    long fn;
    int nreasons;
    unsigned seen;   /* categories counted for this record */
    char first[512]; /* the first reason, for the row that this miss leads to */
} miss;

static void add(miss *m, sts_miss_category cat, const char *detail)
{
    sts_lp_reason(m->x, m->fn, cat, detail, &m->seen);
    if (!m->nreasons++) snprintf(m->first, sizeof m->first, "%s: %s", sts_miss_category_name(cat), detail);
}

static void observe(miss *m, const char *arg, lg_what what, int dim, const char *before, const char *now)
{
    sts_lg_observe(m->x->l, (size_t)m->fn, arg, what, dim, before);
    sts_lg_observe(m->x->l, (size_t)m->fn, arg, what, dim, now);
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
        observe(m, arg, LG_DTYPE, -1, db, dn);
        found = 1;
    }
    if (ab.ndim != an.ndim) {
        snprintf(d, sizeof d, "rank of %s: %d -> %d", arg, ab.ndim, an.ndim);
        snprintf(vb, sizeof vb, "%d", ab.ndim);
        snprintf(vn, sizeof vn, "%d", an.ndim);
        add(m, STS_MISS_SHAPE, d);
        observe(m, arg, LG_RANK, -1, vb, vn);
        found = 1;
    } else {
        for (int i = 0; i < an.ndim && i < STS_LEDGER_MAX_DIMS; i++) {
            if (ab.shape[i] == an.shape[i]) continue;
            snprintf(vb, sizeof vb, "%lld", (long long)ab.shape[i]);
            snprintf(vn, sizeof vn, "%lld", (long long)an.shape[i]);
            snprintf(d, sizeof d, "dimension %d of %s: %s -> %s", i, arg, vb, vn);
            add(m, STS_MISS_SHAPE, d);
            observe(m, arg, LG_DIM, i, vb, vn);
            found = 1;
        }
    }
    if (ab.weak_type != an.weak_type) {
        snprintf(d, sizeof d, "weak type of %s: %s -> %s", arg, ab.weak_type ? "Python scalar" : "typed array",
                 an.weak_type ? "Python scalar" : "typed array");
        add(m, STS_MISS_WEAK_TYPE, d);
        observe(m, arg, LG_WEAK, -1, ab.weak_type ? "weak" : "strong", an.weak_type ? "weak" : "strong");
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
    const char *name = t + 5, *sep, *b, *n;
    size_t bn, nn, namelen;
    if ((sep = strstr(name, ", seen ")) && strstr(sep, ", but now given ")) {
        b = sep + 7;
        const char *g = strstr(b, ", but now given ");
        bn = (size_t)(g - b);
        n = g + 16;
        nn = cut_url(n, strlen(n));
    } else if ((sep = strstr(name, ", now ")) && strstr(sep, " and before ")) {
        n = sep + 6;
        const char *a = strstr(n, " and before ");
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
    if (n >= 6 && starts(p, "[0][") && isdigit((unsigned char)p[4])) {
        snprintf(out, cap, "#%d", atoi(p + 4));
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
        snprintf(d, sizeof d, "value of %s%s: %s -> %s", arg[0] == '#' ? "argument " : "",
                 arg[0] == '#' ? arg + 1 : arg, vb, vn);
        add(m, STS_MISS_STATIC, d);
        observe(m, arg, LG_VALUE, -1, vb, vn);
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
            observe(m, now.keys[i], LG_VALUE, -1, before.vals[j], now.vals[i]);
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
    observe(m, "static args", LG_VALUE, -1, vb, vn);
}

/* "x: f32[12], gain: f32[]" lists every argument in order: remember the names. */
static void learn_names(lp_ctx *x, long fn, const char *t)
{
    if (strstr(t, "...")) return; /* cut at 73 characters: the list is incomplete */
    lg_fn *f = &x->l->fns[fn];
    uint32_t ids[64];
    size_t n = 0;
    const char *p = t;
    while (*p && n < 64) {
        p = trim(p);
        const char *c = strstr(p, ": ");
        if (!c) break;
        ids[n++] = sts_lg_intern_n(x->l, p, (size_t)(c - p));
        const char *next = strstr(c, ", ");
        if (!next) break;
        p = next + 2;
    }
    if (!n) return;
    uint32_t *a = realloc(f->argnames, n * sizeof *a);
    if (!a) return;
    memcpy(a, ids, n * sizeof *a);
    f->argnames = a;
    f->nargnames = n;
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
    if (starts(t, "types now: ") && m->fn >= 0)
        learn_names(m->x, m->fn, t + 11);
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
    else if (*h == H_TYPE_NAMES && strstr(t, ": ") && m->fn >= 0)
        learn_names(m->x, m->fn, t);
}

/* The function a record is about: "for NAME defined at ..." or "never seen function:". */
static const char *record_function(const lp_rec *r, size_t *n, int *first)
{
    for (size_t i = 1; i < r->n; i++) {
        const char *t = trim(r->lines[i]);
        if (starts(t, "never seen function:") && i + 1 < r->n) {
            const char *s = trim(r->lines[i + 1]), *e = strstr(s, " id=");
            *first = 1;
            *n = e ? (size_t)(e - s) : strlen(s);
            return s;
        }
        if (starts(t, "for ") && t[4]) {
            const char *s = t + 4, *e = strstr(s, " defined at ");
            *n = e ? (size_t)(e - s) : strlen(s);
            return s;
        }
    }
    return NULL;
}

void sts_lp_jax_miss(lp_ctx *x, const lp_rec *r)
{
    const char *head = r->lines[0];
    size_t hl = strlen(head);
    while (hl && head[hl - 1] == ' ')
        hl--;
    if (!hl || head[hl - 1] != ':') {
        x->l->log.records--;
        sts_lg_warn(x->l, x->name, r->line, "cache-miss record does not end its first line with ':' (truncated?)");
        return;
    }
    size_t n = 0;
    int first = 0, redefined = 0;
    const char *name = record_function(r, &n, &first);
    if (!name || !n) {
        x->l->log.records--;
        sts_lg_warn(x->l, x->name, r->line,
                    "cache-miss record names no function: expected 'for NAME' or 'never seen function:' (truncated?)");
        return;
    }
    miss m;
    memset(&m, 0, sizeof m);
    m.x = x;
    m.fn = sts_lp_function(x, name, n, 0);
    if (m.fn < 0) return;
    int h = H_NONE;
    for (size_t i = 1; i < r->n; i++) {
        const char *t = trim(r->lines[i]);
        if (strstr(t, "seen another function defined on the same line"))
            redefined = 1;
        else if (!first)
            body_line(&m, t, &h);
    }
    if (redefined)
        add(&m, STS_MISS_CONTEXT, "function re-defined at the same line (a new function object per call)");
    else if (first)
        add(&m, STS_MISS_FIRST, "first call");
    else if (!m.nreasons)
        add(&m, STS_MISS_OTHER, "no explanation given");
    uint32_t id = sts_lg_intern(x->l, m.first);
    if (id == UINT32_MAX) return;
    /* 0.6 - 0.8 explain after "Finished tracing"; other versions before it. */
    lp_pending *p = sts_lp_pending_get(x, m.fn);
    if (p && p->active && p->has_trace && !p->has_sig && !p->c.reason)
        p->c.reason = lg_str(x->l, id);
    else
        x->l->fns[m.fn].pending_reason = id;
}
