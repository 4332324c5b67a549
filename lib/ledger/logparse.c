/* ledger: the log reader. Splits a log into lines, strips prefixes, groups multi-line
 * records per stream (so interleaved ranks and threads stay apart), dispatches records
 * to the JAX and torch handlers and assembles JAX rows from their stages. */
#include "ledger/logparse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/instream.h"

/* A record longer than this keeps its first lines only (a runaway log cannot exhaust
 * memory); the rest are consumed. */
#define LP_MAX_RECORD_LINES 4096

/* ---- functions -------------------------------------------------------------------- */

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
        else if (raw[i] == '.' && !angle && i + 1 < n)
            start = i + 1;
    }
    snprintf(out, cap, "%.*s", (int)(n - start), raw + start);
    if (!out[0]) snprintf(out, cap, "<unnamed>");
}

static int has_symbol(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 1;
    return 0;
}

long sts_lp_function(lp_ctx *x, const char *raw, size_t n, int module)
{
    char name[256], key[256];
    base_name(raw, n, module, name, sizeof name);
    /* XLA sanitizes module names ("<lambda>" becomes "_lambda_"), so match on that form. */
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof key; i++)
        key[i] = isalnum((unsigned char)name[i]) ? name[i] : '_';
    key[i] = 0;
    sts_ledger *l = x->l;
    uint32_t kid = sts_lg_intern(l, key);
    if (kid == UINT32_MAX) return -1;
    uint32_t fi = sts_u64map_get(&x->fn_by_key, (uint64_t)kid + 1);
    if (fi != UINT32_MAX) {
        /* Prefer the name as Python spelled it over the sanitized module name. */
        if (has_symbol(name) && !has_symbol(lg_str(l, l->fns[fi].name))) {
            uint32_t nid = sts_lg_intern(l, name);
            if (nid != UINT32_MAX && sts_u64map_put(&l->fn_by_name, (uint64_t)nid + 1, fi) == 0) l->fns[fi].name = nid;
        }
        return (long)fi;
    }
    long f = sts_lg_fn_get(l, name);
    if (f < 0 || sts_u64map_put(&x->fn_by_key, (uint64_t)kid + 1, (uint32_t)f) != 0) return -1;
    return f;
}

/* ---- pending JAX rows ---------------------------------------------------------------- */

lp_pending *sts_lp_pending_get(lp_ctx *x, long fn)
{
    if (fn < 0) return NULL;
    if ((size_t)fn >= x->npend) {
        size_t n = (size_t)fn + 16;
        lp_pending *p = realloc(x->pend, n * sizeof *p);
        if (!p) return NULL;
        memset(p + x->npend, 0, (n - x->npend) * sizeof *p);
        x->pend = p;
        x->npend = n;
    }
    return &x->pend[fn];
}

void sts_lp_pending_commit(lp_ctx *x, long fn)
{
    lp_pending *p = sts_lp_pending_get(x, fn);
    if (!p || !p->active) return;
    p->c.function = lg_str(x->l, x->l->fns[fn].name);
    /* "Compiling ..." announces a compile even when its finish line is missing. */
    if (p->has_sig && !p->has_compile) p->c.compiles = 1;
    p->c.args = p->args;
    if (sts_ledger_add_call(x->l, &p->c, NULL) != STS_OK)
        sts_lg_warn(x->l, x->name, p->line, "could not record the row for %s", p->c.function);
    p->active = p->has_trace = p->has_sig = p->has_lower = p->has_compile = 0;
}

static void commit_all(lp_ctx *x)
{
    for (size_t i = 0; i < x->npend; i++)
        sts_lp_pending_commit(x, (long)i);
}

/* ---- records ------------------------------------------------------------------------ */

static lp_rec *find_open(lp_ctx *x, const char *stream)
{
    for (size_t i = 0; i < x->nopen; i++)
        if (strcmp(x->open[i].stream, stream) == 0) return &x->open[i];
    return NULL;
}

static void rec_free(lp_rec *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->lines[i]);
    free(r->lines);
}

static void close_rec(lp_ctx *x, lp_rec *r)
{
    lp_rec done = *r;
    /* Remove before handling (handlers never see it twice), keeping the open order. */
    size_t i = (size_t)(r - x->open);
    memmove(r, r + 1, (x->nopen - i - 1) * sizeof *r);
    x->nopen--;
    if (done.kind == LP_JAX_MISS)
        sts_lp_jax_miss(x, &done);
    else
        sts_lp_torch_record(x, &done);
    rec_free(&done);
}

static int rec_append(lp_rec *r, const char *msg)
{
    if (r->n >= LP_MAX_RECORD_LINES) return 0;
    if (sts_grow((void **)&r->lines, &r->cap, r->n + 1, sizeof *r->lines) != 0) return -1;
    size_t len = strlen(msg);
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, msg, len + 1);
    r->lines[r->n++] = copy;
    return 0;
}

static void open_rec(lp_ctx *x, lp_kind kind, const lp_prefix *pf, const char *msg)
{
    if (sts_grow((void **)&x->open, &x->opencap, x->nopen + 1, sizeof *x->open) != 0) return;
    lp_rec *r = &x->open[x->nopen];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->line = x->lineno;
    r->per_line = pf->per_line;
    snprintf(r->stream, sizeof r->stream, "%s", pf->stream);
    snprintf(r->traceid, sizeof r->traceid, "%s", pf->traceid);
    if (rec_append(r, msg) != 0) {
        rec_free(r);
        return;
    }
    x->nopen++;
}

static int starts(const char *s, const char *lit)
{
    return strncmp(s, lit, strlen(lit)) == 0;
}

int sts_lp_is_continuation(const lp_rec *r, const char *msg)
{
    if (msg[0] == ' ' || msg[0] == '\t') return 1;
    static const char *const jax[] = { "where weak_type=",        "weak_type=False",  "See https://", "https://",
                                       "explanation unavailable", "compare to tuple", " != before" };
    static const char *const torch[] = { "- ", "To log all recompilation", "To diagnose recompilation",
                                         "to diagnose recompilation", "guard " };
    if (r->kind == LP_JAX_MISS) {
        for (size_t i = 0; i < sizeof jax / sizeof jax[0]; i++)
            if (starts(msg, jax[i])) return 1;
        return 0;
    }
    for (size_t i = 0; i < sizeof torch / sizeof torch[0]; i++)
        if (starts(msg, torch[i])) return 1;
    return 0;
}

static int is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    return *s == 0;
}

/* The rank part of a stream key ("rank0" or ""). */
static size_t rank_len(const char *stream)
{
    return strcspn(stream, "|");
}

static void handle_start(lp_ctx *x, lp_kind kind, const lp_prefix *pf, const char *msg)
{
    lp_rec *r = find_open(x, pf->stream);
    if (r) close_rec(x, r);
    /* Torch logs the recompile-limit warning on another logger after the recompile
     * record of the same compile id: that record is complete now. */
    if (kind == LP_TORCH_LIMIT)
        for (size_t i = 0; i < x->nopen;) {
            lp_rec *o = &x->open[i];
            size_t rl = rank_len(o->stream);
            int same_id = !o->traceid[0] || !pf->traceid[0] || strcmp(o->traceid, pf->traceid) == 0;
            if (o->kind == LP_TORCH_RECOMPILE && same_id && rl == rank_len(pf->stream) &&
                strncmp(o->stream, pf->stream, rl) == 0)
                close_rec(x, o);
            else
                i++;
        }
    x->l->log.records++;
    if (kind == LP_JAX_MISS || kind == LP_TORCH_RECOMPILE || kind == LP_TORCH_LIMIT)
        open_rec(x, kind, pf, msg);
    else
        sts_lp_jax_line(x, kind, msg, x->lineno);
}

static void handle_line(lp_ctx *x, const char *raw)
{
    x->l->log.lines++;
    if (raw[0] == '#') {
        x->l->log.comments++;
        return;
    }
    lp_prefix pf;
    const char *msg = sts_lp_strip_prefix(raw, &pf);
    lp_rec *r = find_open(x, pf.stream);
    if (is_blank(msg)) return; /* blank lines separate verbose guard groups; they end nothing */
    lp_kind kind = sts_lp_jax_start(msg);
    if (kind == LP_NONE) kind = sts_lp_torch_start(msg);
    if (kind != LP_NONE) {
        handle_start(x, kind, &pf, msg);
        return;
    }
    /* Python logging prefixes only a record's first line: a prefixed line is never a
     * continuation there. Torch prefixes every line, with the same stream key. */
    int cont = r && (pf.per_line ? r->per_line : !pf.prefixed) && sts_lp_is_continuation(r, msg);
    if (cont) {
        rec_append(r, msg);
        return;
    }
    if (r) close_rec(x, r);
    x->l->log.skipped++;
}

static void finish(lp_ctx *x)
{
    while (x->nopen)
        close_rec(x, &x->open[0]);
    commit_all(x);
}

static void ctx_free(lp_ctx *x)
{
    for (size_t i = 0; i < x->nopen; i++)
        rec_free(&x->open[i]);
    free(x->open);
    for (size_t i = 0; i < x->npend; i++)
        free(x->pend[i].args);
    free(x->pend);
    sts_u64map_release(&x->fn_by_key);
}

sts_status sts_ledger_parse_text(sts_ledger *l, const char *name, const char *text, size_t len, sts_error *err)
{
    if (!l || (!text && len)) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: no ledger or text");
    lp_ctx x;
    memset(&x, 0, sizeof x);
    x.l = l;
    x.name = name ? name : "<log>";
    l->log.files++;
    char *line = NULL;
    size_t cap = 0, pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        if (sts_grow((void **)&line, &cap, n + 1, 1) != 0) {
            free(line);
            ctx_free(&x);
            return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", x.name);
        }
        /* NUL bytes inside a line would cut it short; show them as '?'. */
        for (size_t i = 0; i < n; i++)
            line[i] = text[pos + i] ? text[pos + i] : '?';
        while (n && line[n - 1] == '\r')
            n--;
        line[n] = 0;
        x.lineno++;
        handle_line(&x, line);
        pos += (nl ? (size_t)(nl - (text + pos)) + 1 : len - pos);
    }
    free(line);
    finish(&x);
    ctx_free(&x);
    l->finalized = 0;
    return STS_OK;
}

sts_status sts_ledger_parse_log(sts_ledger *l, const char *path, sts_error *err)
{
    char *text = NULL;
    size_t len = 0;
    sts_status st = sts_read_file(path, &text, &len, err);
    if (st != STS_OK) return st;
    st = sts_ledger_parse_text(l, path, text, len, err);
    free(text);
    return st;
}
