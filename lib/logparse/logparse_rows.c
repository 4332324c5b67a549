/* logparse: what one parse learns while it runs, kept apart from the ledger until the
 * log ends: function identities (a name and, when the log gives it, a definition
 * site), the rows being assembled, and their static arguments, which a later
 * explanation may reveal for an earlier row. */
#include "logparse/logparse.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t sts_lp_str(lp_ctx *x, const char *s, size_t n)
{
    uint32_t id = sts_strtab_intern(&x->strs, s ? s : "", s ? n : 0);
    if (id == UINT32_MAX) {
        x->oom = 1;
        return 0;
    }
    return id;
}

/* Whether c can start a qualname's part: an identifier or "<lambda>"/"<locals>". */
static int qual_part(char c)
{
    return isalpha((unsigned char)c) || c == '_' || c == '<';
}

/* Strips "jit(...)"-style wrappers, an XLA module prefix and a qualname's dotted path. */
static void base_name(const char *raw, size_t n, int module, char *out, size_t cap)
{
    while (n && isspace((unsigned char)*raw))
        raw++, n--;
    while (n && isspace((unsigned char)raw[n - 1]))
        n--;
    for (;;) {
        size_t w = 0;
        while (w < n && (islower((unsigned char)raw[w]) || raw[w] == '_'))
            w++;
        if (w == 0 || w + 1 >= n || raw[w] != '(' || raw[n - 1] != ')') break;
        raw += w + 1;
        n -= w + 2;
    }
    static const char *const prefixes[] = { "jit_", "pjit_", "pmap_", "xmap_" };
    for (size_t i = 0; module && i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t k = strlen(prefixes[i]);
        if (n > k && memcmp(raw, prefixes[i], k) == 0) {
            raw += k;
            n -= k;
            break;
        }
    }
    size_t start = 0;
    int angle = 0;
    for (size_t i = 0; i < n; i++) {
        if (raw[i] == '<')
            angle++;
        else if (raw[i] == '>' && angle)
            angle--;
        else if (raw[i] == '.' && !angle && i + 1 < n && qual_part(raw[i + 1]))
            start = i + 1; /* "Outer.method", never "1.0" (which was "0", one with "2.0") */
    }
    snprintf(out, cap, "%.*s", (int)(n - start), raw + start);
    if (!out[0]) snprintf(out, cap, "<unnamed>");
}

uint32_t sts_lp_key(lp_ctx *x, const char *raw, size_t n, int module, char *base, size_t cap)
{
    char key[256];
    base_name(raw, n, module, base, cap);
    /* XLA sanitizes module names ("<lambda>" becomes "_lambda_"), so names match on that form. */
    size_t i = 0;
    for (; base[i] && i + 1 < sizeof key; i++)
        key[i] = isalnum((unsigned char)base[i]) ? base[i] : '_';
    key[i] = 0;
    return sts_lp_str(x, key, i);
}

long sts_lp_ident(lp_ctx *x, const char *display, uint32_t key, int has_site)
{
    uint32_t did = sts_lp_str(x, display, strlen(display));
    if (x->oom) return -1;
    uint32_t found = sts_u64map_get(&x->ident_by_display, (uint64_t)did + 1);
    if (found != UINT32_MAX) return (long)found;
    lp_ident *id = STS_VEC_PUSH(x->idents);
    if (!id || sts_u64map_put(&x->ident_by_display, (uint64_t)did + 1, (uint32_t)(x->idents.n - 1)) != 0) {
        if (id) x->idents.n--;
        x->oom = 1;
        return -1;
    }
    id->display = did;
    id->key = key;
    id->has_site = has_site;
    id->fn = -1;
    id->last_row = -1;
    id->max_compile_id = -1;
    return (long)(x->idents.n - 1);
}

void sts_lp_bind(lp_ctx *x, uint32_t key, long ident)
{
    if (ident >= 0 && sts_u64map_put(&x->bind, (uint64_t)key + 1, (uint32_t)ident) != 0) x->oom = 1;
}

static int has_symbol(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 1;
    return 0;
}

long sts_lp_ident_for(lp_ctx *x, const char *raw, size_t n, int module)
{
    char base[256];
    uint32_t key = sts_lp_key(x, raw, n, module, base, sizeof base);
    if (x->oom) return -1;
    uint32_t bound = sts_u64map_get(&x->bind, (uint64_t)key + 1);
    if (bound != UINT32_MAX) {
        lp_ident *id = &x->idents.v[bound];
        const char *shown = lp_str(x, id->display);
        if (strcmp(shown, base) != 0 && has_symbol(base) && has_symbol(shown)) {
            /* Two Python spellings that sanitize alike ("a+1" and "a-1", "+x" and "-x")
             * are two functions; the sanitized module name goes to the latest. */
            long ident = sts_lp_ident(x, base, key, 0);
            sts_lp_bind(x, key, ident);
            return ident;
        }
        /* Prefer the name as Python spelled it ("<lambda>") over the sanitized module
         * name ("_lambda_") an earlier line gave, while nothing was recorded under it. */
        if (!id->has_site && id->fn < 0 && has_symbol(base) && !has_symbol(lp_str(x, id->display))) {
            uint32_t did = sts_lp_str(x, base, strlen(base));
            if (!x->oom && sts_u64map_get(&x->ident_by_display, (uint64_t)did + 1) == UINT32_MAX &&
                sts_u64map_put(&x->ident_by_display, (uint64_t)did + 1, bound) == 0)
                id->display = did;
        }
        return (long)bound;
    }
    long ident = sts_lp_ident(x, base, key, 0);
    sts_lp_bind(x, key, ident);
    return ident;
}

/* A name that several anonymous functions share ("<lambda>", XLA's "_lambda_"). */
static int anonymous(const char *name)
{
    return name[0] == '<' || strncmp(name, "_lambda_", 8) == 0 || strncmp(name, "_unnamed", 8) == 0;
}

long sts_lp_fn(lp_ctx *x, long ident, sts_ledger_source src)
{
    if (ident < 0) return -1;
    lp_ident *id = &x->idents.v[ident];
    if (id->fn < 0) {
        id->fn = sts_lg_fn_get(x->l, lp_str(x, id->display));
        if (id->fn < 0) {
            x->oom = 1;
            return -1;
        }
        if (!id->has_site && anonymous(lp_str(x, id->display))) sts_lg_fn_identity_unknown(x->l, (size_t)id->fn);
    }
    sts_lg_fn_set_source(x->l, (size_t)id->fn, src);
    return id->fn;
}

lp_row *sts_lp_row_new(lp_ctx *x, long ident, sts_ledger_source src, int64_t line)
{
    if (ident < 0) return NULL;
    lp_row *r = STS_VEC_PUSH(x->rows);
    uint32_t *slot = r ? STS_VEC_PUSH(x->idents.v[ident].rows) : NULL;
    if (!slot) {
        if (r) x->rows.n--;
        x->oom = 1;
        return NULL;
    }
    *slot = (uint32_t)(x->rows.n - 1);
    r->ident = (uint32_t)ident;
    r->src = src;
    r->trace_ns = r->lower_ns = r->compile_ns = -1;
    r->line = line;
    return r;
}

lp_row *sts_lp_row_active(lp_ctx *x, uint32_t key)
{
    uint32_t i = sts_u64map_get(&x->active, (uint64_t)key + 1);
    return i != UINT32_MAX && i < x->rows.n && x->rows.v[i].active ? &x->rows.v[i] : NULL;
}

void sts_lp_row_static(lp_ctx *x, lp_row *r, uint32_t name, const char *value)
{
    const char *nm = lp_str(x, name);
    const char *v = value ? lp_str(x, sts_lp_str(x, value, strlen(value))) : NULL;
    for (size_t i = 0; i < r->statics.n; i++)
        if (r->statics.v[i].name == nm) {
            r->statics.v[i].value = v;
            return;
        }
    sts_argsig *a = STS_VEC_PUSH(r->statics);
    if (!a) {
        x->oom = 1;
        return;
    }
    a->name = nm;
    a->kind = STS_PARAM_STATIC;
    a->ndim = -1;
    a->value = v;
}

void sts_lp_reason(lp_ctx *x, long ident, sts_miss_category cat, const char *detail, unsigned *seen)
{
    if (ident < 0) return;
    int count = !(*seen & (1u << cat));
    *seen |= 1u << cat;
    sts_lp_fn(x, ident, STS_LEDGER_SRC_JAX_LOG);
    sts_lg_add_reason(x->l, lp_str(x, x->idents.v[ident].display), cat, detail, count, NULL);
}

void sts_lp_warn(lp_ctx *x, int64_t line, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    x->st.warnings++;
    sts_lg_warn(x->l, x->name, line, "%s", msg);
}

typedef struct aval_acc {
    lp_ctx *x;
} aval_acc;

static void on_aval(const char *s, size_t n, void *user)
{
    lp_ctx *x = ((aval_acc *)user)->x;
    if (x->scratch.n >= 4096) return;
    sts_argsig *arg = STS_VEC_PUSH(x->scratch);
    if (!arg) {
        x->oom = 1;
        return;
    }
    char dt[64];
    if (sts_lp_parse_aval(s, n, arg, dt, sizeof dt) != 0) {
        /* Tokens, opaque types and the like: keep the text as the dtype. */
        memset(arg, 0, sizeof *arg);
        arg->kind = STS_PARAM_ARRAY;
        arg->ndim = -1;
        snprintf(dt, sizeof dt, "%.*s", (int)(n < 60 ? n : 60), s);
    }
    arg->dtype = lp_str(x, sts_lp_str(x, dt, strlen(dt)));
    arg->name = NULL;
}

/* Every static argument the identity is known to take, on every row: a row whose
 * value no explanation gave shows it as unknown rather than leaving it out. */
static void complete_statics(lp_ctx *x, lp_row *r)
{
    const lp_ident *id = &x->idents.v[r->ident];
    for (size_t k = 0; k < id->statics.n; k++) {
        const char *nm = lp_str(x, id->statics.v[k]);
        int have = 0;
        for (size_t i = 0; i < r->statics.n && !have; i++)
            have = r->statics.v[i].name == nm;
        if (!have) sts_lp_row_static(x, r, id->statics.v[k], NULL);
    }
}

static void commit_row(lp_ctx *x, lp_row *r)
{
    const lp_ident *id = &x->idents.v[r->ident];
    complete_statics(x, r);
    /* "Compiling ..." announces a compile even when its finish line is missing. */
    if (r->src == STS_LEDGER_SRC_JAX_LOG && r->has_sig && !r->has_compile) r->compiles = 1;
    x->scratch.n = 0;
    if (r->avals) {
        aval_acc acc = { x };
        sts_lp_split_list(lp_str(x, r->avals), NULL, on_aval, &acc);
    }
    for (size_t i = 0; i < r->statics.n; i++) {
        sts_argsig *a = STS_VEC_PUSH(x->scratch);
        if (a) *a = r->statics.v[i];
    }
    size_t n = x->scratch.n;
    char src[600];
    snprintf(src, sizeof src, "%s:%lld", x->name, (long long)r->line);
    sts_ledger_call c = STS_LEDGER_CALL_INIT;
    c.function = lp_str(x, id->display);
    c.args = n ? x->scratch.v : NULL;
    c.nargs = (int)n;
    c.traces = r->traces;
    c.compiles = r->compiles;
    c.trace_ns = r->trace_ns;
    c.lower_ns = r->lower_ns;
    c.compile_ns = r->compile_ns;
    c.reason = r->reason ? lp_str(x, r->reason) : NULL;
    c.source = src;
    sts_lp_fn(x, (long)r->ident, r->src);
    if (sts_lg_add_row(x->l, &c, r->sig_text ? lp_str(x, r->sig_text) : NULL, r->src, NULL) != STS_OK)
        sts_lp_warn(x, r->line, "could not record the row for %s", c.function);
}

void sts_lp_commit(lp_ctx *x)
{
    for (size_t i = 0; i < x->rows.n; i++)
        commit_row(x, &x->rows.v[i]);
    for (size_t i = 0; i < x->idents.n; i++) {
        const lp_ident *id = &x->idents.v[i];
        if (id->max_compile_id >= 0 && id->fn >= 0)
            sts_lg_fn_specializations_at_least(x->l, (size_t)id->fn, id->max_compile_id + 1);
    }
}

void sts_lp_ctx_release(lp_ctx *x)
{
    sts_lp_trace_release(x);
    for (size_t i = 0; i < x->recs.n; i++) {
        for (size_t k = 0; k < x->recs.v[i].lines.n; k++)
            free(x->recs.v[i].lines.v[k]);
        STS_VEC_RELEASE(x->recs.v[i].lines);
    }
    STS_VEC_RELEASE(x->recs);
    for (size_t i = 0; i < x->rows.n; i++) {
        STS_VEC_RELEASE(x->rows.v[i].statics);
    }
    STS_VEC_RELEASE(x->rows);
    for (size_t i = 0; i < x->idents.n; i++) {
        STS_VEC_RELEASE(x->idents.v[i].rows);
        STS_VEC_RELEASE(x->idents.v[i].statics);
    }
    STS_VEC_RELEASE(x->idents);
    STS_VEC_RELEASE(x->open);
    STS_VEC_RELEASE(x->live);
    STS_VEC_RELEASE(x->scratch);
    sts_u64map_release(&x->ident_by_display);
    sts_u64map_release(&x->bind);
    sts_u64map_release(&x->active);
    sts_strtab_release(&x->strs);
}
