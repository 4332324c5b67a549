/* logparse: PyTorch TORCH_LOGS=recompiles / recompiles_verbose records and the
 * recompile-limit warning (torch/_dynamo/guards.py get_and_maybe_log_recompilation_
 * reason(s), torch/_dynamo/convert_frame.py), torch 2.1 on:
 *
 *   Recompiling function F in FILE:LINE
 *       triggered by the following guard failure(s):
 *       - 0/1: tensor 'x' size mismatch at index 0. expected 12, actual 16
 *       - 0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16
 *   (verbose: "guard N failures:" groups, one entry's failures joined with "; ";
 *    before 2.4 no "N/M: " compile ids and names as L['x'])
 *
 *   torch._dynamo hit config.recompile_limit (8)     (cache_size_limit before 2.6)
 *      function: 'F' (FILE:LINE)
 *      last reason: 0/7: tensor 'x' size mismatch at index 0. expected 11, actual 12
 *   To log all recompilation reasons, use TORCH_LOGS="recompiles".
 *   To diagnose recompilation issues, see URL
 *
 * Entries are listed newest cache entry first. */
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

lp_kind sts_lp_torch_start(const char *msg)
{
    if (starts(msg, "Recompiling function ")) return LP_TORCH_RECOMPILE;
    if (starts(msg, "torch._dynamo hit config.")) return LP_TORCH_LIMIT;
    return LP_NONE;
}

/* One guard failure, classified. */
typedef struct guard {
    sts_miss_category cat;
    char detail[400];
    char arg[128]; /* the argument it names, for churn ("" when none) */
    int what, dim; /* lg_what, or -1 when nothing to observe */
    char expected[96], actual[96];
    char sig[160]; /* the new input's part of a signature, or "" */
} guard;

/* L['x'] -> x, L['self'].w -> self.w, G['g'] -> g. */
static void clean_name(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap;) {
        if ((s[i] == 'L' || s[i] == 'G') && i + 2 < n && s[i + 1] == '[' && s[i + 2] == '\'' &&
            (i == 0 || !isalnum((unsigned char)s[i - 1]))) {
            const char *e = memchr(s + i + 3, '\'', n - i - 3);
            if (e && (size_t)(e - s) + 1 < n && e[1] == ']') {
                size_t k = (size_t)(e - (s + i + 3));
                for (size_t j = 0; j < k && o + 1 < cap; j++)
                    out[o++] = s[i + 3 + j];
                i = (size_t)(e - s) + 2;
                continue;
            }
        }
        out[o++] = s[i++];
    }
    out[o] = 0;
}

/* "expected E, actual A" after p. */
static int expected_actual(const char *p, guard *g)
{
    const char *e = strstr(p, "expected "), *a = e ? strstr(e, ", actual ") : NULL;
    if (!e || !a) return -1;
    snprintf(g->expected, sizeof g->expected, "%.*s", (int)(a - e - 9), e + 9);
    const char *end = a + 9;
    size_t n = strcspn(end, " ;");
    snprintf(g->actual, sizeof g->actual, "%.*s", (int)n, end);
    return 0;
}

static const char *const tensor_checks[] = { "size",          "stride",           "rank",           "dtype", "device",
                                             "requires_grad", "dispatch key set", "storage_offset", "layout" };

static int tensor_guard(const char *t, guard *g)
{
    if (!starts(t, "tensor '")) return -1;
    char pat[48];
    const char *hit = NULL;
    size_t which = 0;
    for (size_t i = 0; i < sizeof tensor_checks / sizeof tensor_checks[0] && !hit; i++) {
        snprintf(pat, sizeof pat, "' %s mismatch", tensor_checks[i]);
        if ((hit = strstr(t + 8, pat))) which = i; /* after "tensor '": its quote is no name's end */
    }
    if (!hit) return -1;
    clean_name(t + 8, (size_t)(hit - t - 8), g->arg, sizeof g->arg);
    const char *rest = hit + strlen(pat);
    int ea = expected_actual(rest, g);
    const char *kind = tensor_checks[which];
    if (which <= 3 && ea != 0) return -1;
    if (which == 0 || which == 1) { /* size, stride */
        const char *ix = strstr(rest, "at index ");
        if (!ix) return -1;
        g->dim = atoi(ix + 9);
        g->cat = STS_MISS_SHAPE;
        snprintf(g->detail, sizeof g->detail, "%s %d of %s: %s -> %s", which ? "stride" : "dimension", g->dim, g->arg,
                 g->expected, g->actual);
        if (!which) {
            g->what = STS_LG_DIM;
            snprintf(g->sig, sizeof g->sig, "%.100s.size(%d)=%.30s", g->arg, g->dim, g->actual);
        }
    } else if (which == 2) {
        g->cat = STS_MISS_SHAPE;
        g->what = STS_LG_RANK;
        snprintf(g->detail, sizeof g->detail, "rank of %s: %s -> %s", g->arg, g->expected, g->actual);
        snprintf(g->sig, sizeof g->sig, "%.100s.dim()=%.30s", g->arg, g->actual);
    } else if (which == 3) {
        char e[64], a[64];
        sts_lp_dtype_norm(g->expected, strlen(g->expected), e, sizeof e);
        sts_lp_dtype_norm(g->actual, strlen(g->actual), a, sizeof a);
        snprintf(g->expected, sizeof g->expected, "%s", e);
        snprintf(g->actual, sizeof g->actual, "%s", a);
        g->cat = STS_MISS_DTYPE;
        g->what = STS_LG_DTYPE;
        snprintf(g->detail, sizeof g->detail, "dtype of %s: %s -> %s", g->arg, e, a);
        snprintf(g->sig, sizeof g->sig, "%.100s.dtype=%.30s", g->arg, a);
    } else if (which == 5 && strstr(rest, "expected requires_grad=")) {
        /* "expected requires_grad=0": torch names only the cached value. */
        int was = atoi(strstr(rest, "expected requires_grad=") + 23) != 0;
        g->cat = STS_MISS_CONTEXT;
        snprintf(g->detail, sizeof g->detail, "requires_grad of %s: %s -> %s", g->arg, was ? "True" : "False",
                 was ? "False" : "True");
    } else {
        g->cat = STS_MISS_CONTEXT;
        snprintf(g->detail, sizeof g->detail, "%s of %s%s%s%s%s", kind, g->arg, ea == 0 ? ": " : "",
                 ea == 0 ? g->expected : "", ea == 0 ? " -> " : "", ea == 0 ? g->actual : "");
    }
    return 0;
}

/* "___check_type_id(k, 9447...), type=<class 'float'>": the argument's type changed.
 * A Python number that changed type (2.0 then 2) is a value torch specialized on, not
 * argument structure; another class (a module, a container) is. */
static void type_guard(const char *code, guard *g)
{
    const char *a = strstr(code, "___check_type_id(") + 17, *comma = strchr(a, ',');
    const char *cls = strstr(code, "type=<class '") + 13, *q = strchr(cls, '\'');
    size_t an = comma ? (size_t)(comma - a) : 0, cn = q ? (size_t)(q - cls) : strlen(cls);
    snprintf(g->arg, sizeof g->arg, "%.*s", (int)(an < sizeof g->arg ? an : sizeof g->arg - 1), a);
    static const char *const numbers[] = { "int", "float", "bool", "complex", "str" };
    int number = 0;
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        number |= strlen(numbers[i]) == cn && strncmp(cls, numbers[i], cn) == 0;
    g->cat = number ? STS_MISS_STATIC : STS_MISS_PYTREE;
    snprintf(g->detail, sizeof g->detail, "type of %s: was %.*s%s", an ? g->arg : "an argument",
             (int)(cn < 120 ? cn : 120), cls, number ? " (a Python number torch specializes on)" : "");
}

/* A guard's Python source: "L['scale'] == 2", "len(L['ys']) == 2", "___check_obj_id(...)". */
static void code_guard(const char *t, guard *g)
{
    char code[300];
    size_t n = strlen(t);
    const char *hash = strstr(t, "  #"); /* guards carry the user line as a comment */
    if (hash) n = (size_t)(hash - t);
    while (n && t[n - 1] == ' ')
        n--;
    clean_name(t, n, code, sizeof code);
    snprintf(g->detail, sizeof g->detail, "%s", code);
    const char *eq = strstr(code, " == ");
    if (strstr(code, "size()[") || strstr(code, ".size(") || strstr(code, "stride()[") ||
        strstr(code, "_dynamo_dynamic_indices"))
        g->cat = STS_MISS_SHAPE;
    else if (strstr(code, "___check_type_id(") && strstr(code, "type=<class '"))
        type_guard(code, g);
    else if (starts(code, "len(") || strstr(code, "___check_type_id") || starts(code, "type("))
        g->cat = STS_MISS_PYTREE;
    else if (strstr(code, "___check_obj_id") || strstr(code, "grad_enabled") || strstr(code, "GLOBAL_STATE") ||
             strstr(code, "global state") || strstr(code, "deterministic") || strstr(code, "autocast") ||
             strstr(code, "torch_function_mode") || strstr(code, "___is_"))
        g->cat = STS_MISS_CONTEXT;
    else if (eq || strstr(code, " is None") || strstr(code, " is not None")) {
        g->cat = STS_MISS_STATIC;
        if (eq) {
            snprintf(g->arg, sizeof g->arg, "%.*s", (int)(eq - code), code);
            snprintf(g->expected, sizeof g->expected, "%s", eq + 4);
            g->what = STS_LG_VALUE;
            snprintf(g->detail, sizeof g->detail, "value of %s: was %s", g->arg, g->expected);
        }
    } else
        g->cat = STS_MISS_OTHER;
}

static void classify(const char *t, guard *g)
{
    memset(g, 0, sizeof *g);
    g->what = g->dim = -1;
    if (tensor_guard(t, g) == 0) return;
    memset(g, 0, sizeof *g);
    g->what = g->dim = -1;
    code_guard(t, g);
}

/* A compile or frame id: up to 9 digits (PyTorch counts compiles from 0; more digits
 * are no id it wrote, and would overflow what the ledger adds to them), else -1.
 * *end, when given, is set past the digits. */
static long compile_id(const char *p, const char **end)
{
    long v = 0;
    int n = 0;
    for (; isdigit((unsigned char)p[n]); n++) {
        if (n == 9) return -1;
        v = v * 10 + (p[n] - '0');
    }
    if (n == 0) return -1;
    if (end) *end = p + n;
    return v;
}

/* Skips a "0/3: " (or "!0/3/1: ", "0/3_1: ") compile id; returns the compile index or -1. */
static long entry_id(const char **t)
{
    const char *p = *t;
    if (*p == '!') p++;
    if (!isdigit((unsigned char)*p)) return -1;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p != '/') return -1;
    long id = compile_id(p + 1, &p);
    if (id < 0) return -1;
    while (*p && *p != ':' && *p != ' ')
        p++;
    if (p[0] != ':' || p[1] != ' ') return -1;
    *t = p + 2;
    return id;
}

static long trace_compile_index(const char *traceid)
{
    const char *s = strchr(traceid, '/');
    return s ? compile_id(s + 1, NULL) : -1;
}

long sts_lp_torch_function(lp_ctx *x, const char *name, size_t n, const char *loc, size_t ln)
{
    const char *base = loc;
    for (size_t i = 0; i < ln; i++)
        if (loc[i] == '/' || loc[i] == '\\') base = loc + i + 1;
    char full[400];
    snprintf(full, sizeof full, "%.*s (%.*s)", (int)(n < 120 ? n : 120), name,
             (int)((size_t)(loc + ln - base) < 200 ? (size_t)(loc + ln - base) : 200), base);
    return sts_lp_ident(x, full, 0, 1);
}

#define MAX_ENTRIES 64

/* Old values first (entries are listed newest first), then the new input's values,
 * which every part of the newest entry names. */
static void observe_guards(lp_ctx *x, long ident, guard *g, int n, int first_parts)
{
    long fn = sts_lp_fn(x, ident, STS_LEDGER_SRC_TORCH_LOG);
    if (fn < 0) return;
    for (int i = n - 1; i >= 0; i--)
        if (g[i].what >= 0 && g[i].expected[0])
            sts_lg_observe(x->l, (size_t)fn, g[i].arg, (sts_lg_what)g[i].what, g[i].dim, g[i].expected);
    for (int i = 0; i < first_parts && i < n; i++)
        if (g[i].what >= 0 && g[i].actual[0])
            sts_lg_observe(x->l, (size_t)fn, g[i].arg, (sts_lg_what)g[i].what, g[i].dim, g[i].actual);
}

static void torch_reason(lp_ctx *x, long ident, const guard *g, unsigned *seen)
{
    if (ident < 0) return;
    int count = !(*seen & (1u << g->cat));
    *seen |= 1u << g->cat;
    sts_lp_fn(x, ident, STS_LEDGER_SRC_TORCH_LOG);
    sts_lg_add_reason(x->l, lp_str(x, x->idents.v[ident].display), g->cat, g->detail, count, NULL);
}

/* A signature from the values the failures of one entry name: the new ones
 * (`actual`) or the entry's own (`expected`). */
static void sig_of(const guard *g, int from, int to, int old, char *sig, size_t cap)
{
    size_t pos = 0;
    sig[0] = 0;
    for (int i = from; i < to && pos + 2 < cap; i++) {
        const guard *q = &g[i];
        const char *v = old ? q->expected : q->actual;
        if (!v[0] || q->what < 0) continue;
        int k;
        if (q->what == STS_LG_DIM)
            k = snprintf(sig + pos, cap - pos, "%s%.100s.size(%d)=%.30s", pos ? ", " : "", q->arg, q->dim, v);
        else if (q->what == STS_LG_RANK)
            k = snprintf(sig + pos, cap - pos, "%s%.100s.dim()=%.30s", pos ? ", " : "", q->arg, v);
        else if (q->what == STS_LG_DTYPE)
            k = snprintf(sig + pos, cap - pos, "%s%.100s.dtype=%.30s", pos ? ", " : "", q->arg, v);
        else if (old && q->what == STS_LG_VALUE)
            k = snprintf(sig + pos, cap - pos, "%s%.100s=%.30s", pos ? ", " : "", q->arg, v);
        else
            continue;
        if (k < 0 || (size_t)k >= cap - pos) break;
        pos += (size_t)k;
    }
}

int sts_lp_torch_guards(lp_ctx *x, long ident, const char *const *entries, size_t nentries, long *max_id,
                        lp_guards *out)
{
    memset(out, 0, sizeof *out);
    out->oldest_id = -1;
    guard *g = calloc(MAX_ENTRIES, sizeof *g);
    if (!g) {
        x->oom = 1;
        return -1;
    }
    int n = 0, first_entry_parts = 0, entry = -1, last_from = 0;
    for (size_t i = 0; i < nentries; i++) {
        const char *t = entries[i];
        long id = entry_id(&t);
        if (id >= 0 && id + 1 > *max_id) *max_id = id + 1;
        if (n >= MAX_ENTRIES) break;
        entry++;
        out->oldest_id = id;
        last_from = n;
        /* Verbose mode lists every failing guard of an entry, joined with "; ". */
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", t);
        for (char *part = buf, *next; part && n < MAX_ENTRIES; part = next) {
            next = strstr(part, "; ");
            if (next) *next = 0, next += 2;
            classify(part, &g[n++]);
            if (entry == 0) first_entry_parts++;
        }
    }
    /* N listed entries mean compile ids 0..N-1 exist and this one is N. */
    if (entry + 1 > *max_id) *max_id = entry + 1;
    unsigned seen = 0;
    for (int i = 0; i < first_entry_parts; i++)
        torch_reason(x, ident, &g[i], &seen);
    sig_of(g, 0, first_entry_parts, 0, out->sig, sizeof out->sig);
    sig_of(g, last_from, n, 1, out->old_sig, sizeof out->old_sig);
    if (first_entry_parts)
        snprintf(out->reason, sizeof out->reason, "%s: %s", sts_miss_category_name(g[0].cat), g[0].detail);
    observe_guards(x, ident, g, n, first_entry_parts);
    free(g);
    out->entries = entry + 1;
    x->idents.v[ident].last_entries = entry + 1;
    return 0;
}

static lp_row *torch_row(lp_ctx *x, long ident, int64_t line, const char *sig, const char *reason)
{
    lp_row *row = sts_lp_row_new(x, ident, STS_LEDGER_SRC_TORCH_LOG, line);
    if (!row) return NULL;
    row->traces = row->compiles = 1;
    row->reason = reason[0] ? sts_lp_str(x, reason, strlen(reason)) : 0;
    row->sig_text = sts_lp_str(x, sig, strlen(sig));
    return row;
}

static void recompile(lp_ctx *x, const lp_rec *r)
{
    const char *h = r->lines.v[0] + 21, *in = strstr(h, " in ");
    if (!in || in == h || !in[4]) {
        x->st.records--;
        sts_lp_warn(x, r->line, "expected 'Recompiling function NAME in FILE:LINE', got \"%.120s\"", r->lines.v[0]);
        return;
    }
    long ident = sts_lp_torch_function(x, h, (size_t)(in - h), in + 4, strlen(in + 4));
    if (ident < 0) return;
    const char **entries = calloc(r->lines.n ? r->lines.n : 1, sizeof *entries);
    if (!entries) {
        x->oom = 1;
        return;
    }
    size_t n = 0;
    for (size_t i = 1; i < r->lines.n; i++) {
        const char *t = trim(r->lines.v[i]);
        if (!starts(t, "- ")) continue;
        t += 2;
        if (*t == ' ' || starts(t, "User stack trace")) continue;
        entries[n++] = t;
    }
    long max_id = trace_compile_index(r->traceid);
    if (!n)
        sts_lp_warn(x, r->line,
                    "recompile record for %s lists no guard failures: expected lines '- ID: REASON' "
                    "after 'triggered by the following guard failure(s):' (truncated?)",
                    lp_str(x, x->idents.v[ident].display));
    /* The log holds recompiles only; the frame's first compile (id 0) happened before
     * its first recompile and counts as a compile, its time unknown. */
    int first = !x->idents.v[ident].rows.n && (n || max_id >= 1);
    if (first && sts_lp_fn(x, ident, STS_LEDGER_SRC_TORCH_LOG) >= 0)
        sts_lg_add_reason(x->l, lp_str(x, x->idents.v[ident].display), STS_MISS_FIRST,
                          "first compile (not in TORCH_LOGS=recompiles; implied by the compile ids)", 1, NULL);
    lp_guards gd;
    int bad = sts_lp_torch_guards(x, ident, entries, n, &max_id, &gd);
    free(entries);
    if (bad) return;
    lp_ident *f = &x->idents.v[ident];
    if (max_id > f->max_compile_id) f->max_compile_id = max_id;
    if (first) {
        if (!torch_row(x, ident, r->line, gd.oldest_id == 0 ? gd.old_sig : "",
                       "first: first compile of this frame, before the log's first recompile (time not logged)"))
            return;
    }
    if (!torch_row(x, ident, r->line, gd.sig, gd.reason)) return;
    f = &x->idents.v[ident];
    f->last_row = (long)(x->rows.n - 1);
    f->last_trace = r->traceid[0] ? sts_lp_str(x, r->traceid, strlen(r->traceid)) : 0;
}

static void limit(lp_ctx *x, const lp_rec *r)
{
    const char *p = r->lines.v[0] + 25, *w = p;
    while (isalnum((unsigned char)*w) || *w == '_')
        w++;
    if (w == p || !starts(w, " (") || !isdigit((unsigned char)w[2])) {
        x->st.records--;
        sts_lp_warn(x, r->line, "expected 'torch._dynamo hit config.LIMIT (N)', got \"%.120s\"", r->lines.v[0]);
        return;
    }
    long ident = -1;
    const char *last = NULL;
    for (size_t i = 1; i < r->lines.n; i++) {
        const char *t = trim(r->lines.v[i]);
        if (starts(t, "function: '")) {
            const char *q = strchr(t + 11, '\''), *lp = q ? strstr(q, " (") : NULL;
            const char *rp = lp ? strrchr(lp, ')') : NULL;
            if (q && lp && rp)
                ident = sts_lp_torch_function(x, t + 11, (size_t)(q - t - 11), lp + 2, (size_t)(rp - lp - 2));
        } else if (starts(t, "last reason: "))
            last = t + 13;
        else if (starts(t, "reasons: "))
            last = t + 9;
    }
    long fn = sts_lp_fn(x, ident, STS_LEDGER_SRC_TORCH_LOG);
    if (fn < 0) {
        x->st.records--;
        sts_lp_warn(x, r->line,
                    "recompile-limit warning names no function: expected \"function: 'NAME' "
                    "(FILE:LINE)\" on a following line (truncated?)");
        return;
    }
    sts_lg_fn_count(x->l, (size_t)fn, STS_LG_LIMIT_HIT, 1);
    lp_ident *f = &x->idents.v[ident];
    /* At the limit, compile id N is the attempt refused after N entries. */
    long id = trace_compile_index(r->traceid);
    if (id > 0 && id - 1 > f->max_compile_id) f->max_compile_id = id - 1;
    uint32_t tid = r->traceid[0] ? sts_strtab_find(&x->strs, r->traceid, strlen(r->traceid)) : UINT32_MAX;
    /* Without compile ids (torch 2.1) the refused attempt is the record just before. */
    int same = tid != UINT32_MAX ? tid == f->last_trace : !r->traceid[0] && f->last_row == (long)x->rows.n - 1;
    if (same && f->last_row >= 0) {
        /* The recompile record logged just before this warning never compiled. */
        lp_row *row = &x->rows.v[f->last_row];
        if (row->compiles) {
            row->compiles = row->traces = 0;
            const char *why = "recompile limit reached: dynamo runs this call uncompiled";
            row->reason = sts_lp_str(x, why, strlen(why));
        }
        if (id > 0)
            f->max_compile_id = id - 1;
        else if (f->last_entries > 0)
            f->max_compile_id = f->last_entries - 1;
    }
    sts_ledger_fn_info info;
    int known = 0;
    if (sts_ledger_function(x->l, (size_t)fn, &info) == STS_OK)
        for (int k = 0; k < STS_MISS_COUNT; k++)
            known |= info.reasons[k] > 0;
    if (last && !known) {
        guard g;
        const char *t = last;
        entry_id(&t);
        classify(t, &g);
        unsigned seen = 0;
        torch_reason(x, ident, &g, &seen);
    }
}

void sts_lp_torch_record(lp_ctx *x, const lp_rec *r)
{
    if (r->kind == LP_TORCH_RECOMPILE)
        recompile(x, r);
    else if (r->kind == LP_TORCH_LIMIT)
        limit(x, r);
}
