/* logparse: JAX_LOG_COMPILES / jax_log_compiles lines, JAX 0.4.1 to 0.11.
 *
 * Messages (jax/_src/dispatch.py, pjit.py, interpreters/pxla.py, compiler.py,
 * compilation_cache.py):
 *   Finished tracing + transforming NAME for jit|pjit|pmap|xmap in T sec   (0.4.1 - 0.9)
 *   Finished tracing NAME for jit in T sec                                 (0.10 on)
 *   Compiling NAME (ID) for with global shapes and types AVALS. Argument mapping: ...  (0.4.1)
 *   Compiling NAME for with global shapes and types AVALS. ...             (0.4.14 - 0.4.26)
 *   Compiling NAME with global shapes and types AVALS. ...                 (0.4.30 on; NAME
 *                                                     is "jit(f)" from 0.7)
 *   Compiling NAME for MESH mesh with global shapes and types AVALS. ...   (xmap / mesh)
 *   Compiling NAME (ID) for N devices with args AVALS. (num_replicas=...)  (pmap)
 *   Compiling NAME (ID for args AVALS.   /   Compiling NAME (ID) for N args.  (0.4.1 jit)
 *   Finished jaxpr to MLIR module conversion MODULE in T sec
 *   Finished XLA compilation of MODULE in T sec
 *   Persistent compilation cache hit for 'MODULE'[ with key K]
 *   PERSISTENT COMPILATION CACHE MISS for 'MODULE' with key K             (0.4.31 on)
 *   Writing MODULE to persistent compilation cache with key K
 *   Not writing persistent cache entry for 'MODULE' because it took < X seconds ...
 * MODULE is "jit_f" / "pmap_f" up to 0.6 and "jit(f)" from 0.7. */
#include "logparse/logparse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int starts(const char *s, const char *lit)
{
    return strncmp(s, lit, strlen(lit)) == 0;
}

/* "Compiling W " where W is followed by one of our continuations (not "Compiling module"). */
static int is_our_compiling(const char *msg)
{
    if (!starts(msg, "Compiling ")) return 0;
    const char *p = msg + 10;
    if (strstr(p, "global shapes and types") || strstr(p, "devices with args") || strstr(p, " for args ")) return 1;
    const char *sp = strchr(p, ' ');
    if (!sp || sp == p) return 0;
    return starts(sp, " with ") || starts(sp, " (") || starts(sp, " for ");
}

lp_kind sts_lp_jax_start(const char *msg)
{
    if (starts(msg, "Finished tracing")) return LP_JAX_TRACE;
    if (is_our_compiling(msg)) return LP_JAX_COMPILE;
    if (starts(msg, "Finished jaxpr to MLIR module conversion ")) return LP_JAX_LOWER;
    if (starts(msg, "Finished XLA compilation of ")) return LP_JAX_XLA;
    if (starts(msg, "Persistent compilation cache hit for ") || starts(msg, "PERSISTENT COMPILATION CACHE MISS for ") ||
        starts(msg, "Not writing persistent cache entry") ||
        (starts(msg, "Writing ") && strstr(msg, " to persistent compilation cache")))
        return LP_JAX_PCACHE;
    if (starts(msg, "TRACING CACHE MISS at ")) return LP_JAX_MISS;
    return LP_NONE;
}

/* Finds the last occurrence of lit in s, or NULL. */
static const char *rfind(const char *s, const char *lit)
{
    const char *found = NULL;
    for (const char *p = strstr(s, lit); p; p = strstr(p + 1, lit))
        found = p;
    return found;
}

/* "... in T sec" at the end of msg: returns T in ns and sets *in to the " in " position. */
static int64_t trailing_time(const char *msg, const char **in)
{
    const char *p = rfind(msg, " in ");
    if (!p) return -1;
    const char *e;
    int64_t ns = sts_lp_seconds_ns(p + 4, &e);
    if (ns < 0) return -1;
    while (*e == ' ')
        e++;
    if (strncmp(e, "sec", 3) != 0) return -1;
    *in = p;
    return ns;
}

/* Starts the row of base-name key `key`, ending the one in progress. */
static lp_row *start_row(lp_ctx *x, uint32_t key, long ident, int64_t line)
{
    lp_row *old = sts_lp_row_active(x, key);
    if (old) old->active = 0;
    lp_row *r = sts_lp_row_new(x, ident, STS_LEDGER_SRC_JAX_LOG, line);
    if (!r) return NULL;
    r->active = 1;
    uint32_t *live = STS_VEC_PUSH(x->live);
    if (!live || sts_u64map_put(&x->active, (uint64_t)key + 1, (uint32_t)(x->rows.n - 1)) != 0)
        x->oom = 1;
    else
        *live = (uint32_t)(x->rows.n - 1);
    return r;
}

/* A trace line ends the trace-only rows of other functions: they were traced inside
 * this one (jnp helpers, nested jits) and are not compiled on their own. */
static void end_inner_traces(lp_ctx *x)
{
    size_t keep = 0;
    for (size_t i = 0; i < x->live.n; i++) {
        lp_row *r = &x->rows.v[x->live.v[i]];
        if (r->active && r->has_trace && !r->has_sig && !r->has_lower && !r->has_compile) r->active = 0;
        if (r->active) x->live.v[keep++] = x->live.v[i];
    }
    x->live.n = keep;
}

static void end_row(lp_row *r)
{
    if (r) r->active = 0;
}

static int on_trace(lp_ctx *x, const char *msg, int64_t line)
{
    const char *in = NULL, *name;
    if (starts(msg, "Finished tracing + transforming "))
        name = msg + 32;
    else if (starts(msg, "Finished tracing "))
        name = msg + 17;
    else
        return -1;
    int64_t ns = trailing_time(msg, &in);
    if (ns < 0 || in <= name) return -1;
    const char *end = in;
    const char *f = NULL;
    for (const char *q = strstr(name, " for "); q && q < end; q = strstr(q + 1, " for "))
        f = q;
    if (f) {
        const char *api = f + 5;
        while (api < end && (islower((unsigned char)*api) || *api == '_'))
            api++;
        if (api == end) end = f;
    }
    char base[256];
    uint32_t key = sts_lp_key(x, name, (size_t)(end - name), 0, base, sizeof base);
    end_inner_traces(x);
    /* JAX 0.9 on explains a miss before tracing: the explanation names the function. */
    lp_open o;
    int explained = sts_lp_take_open(x, key, &o);
    long ident = explained ? (long)o.ident : sts_lp_ident_for(x, name, (size_t)(end - name), 0);
    if (explained && !o.nested_same) sts_lp_bind(x, key, ident);
    lp_row *r = start_row(x, key, ident, line);
    if (!r) return 0;
    r->has_trace = 1;
    r->traces = 1;
    r->trace_ns = ns;
    if (explained) {
        r->explained = 1;
        r->reason = o.reason;
        for (int i = 0; i < o.nstatics; i++)
            sts_lp_row_static(x, r, o.snames[i], lp_str(x, o.svals[i]));
    }
    return 0;
}

static void skip_aval(const char *s, size_t n, void *user)
{
    (void)s;
    (void)n;
    (void)user;
}

/* The argument list of a Compiling line, or NULL when the line gives only a count. */
static const char *avals_start(const char *msg)
{
    static const char *const keys[] = { "global shapes and types ", "devices with args ", " for args " };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *p = strstr(msg, keys[i]);
        if (p) return p + strlen(keys[i]);
    }
    return NULL;
}

static int on_compiling(lp_ctx *x, const char *msg, int64_t line)
{
    const char *name = msg + 10, *end = name;
    while (*end && !starts(end, " (") && !starts(end, " for ") && !starts(end, " with "))
        end++;
    if (!*end || end == name) return -1;
    const char *av = avals_start(msg);
    int count_only = !av && strstr(end, " args.") != NULL;
    if (!av && !count_only) return -1;
    const char *av_end = NULL;
    if (av && sts_lp_split_list(av, &av_end, skip_aval, NULL) < 0) return -1; /* unbalanced: cut short */
    char base[256];
    uint32_t key = sts_lp_key(x, name, (size_t)(end - name), 0, base, sizeof base);
    lp_row *r = sts_lp_row_active(x, key);
    if (r && (r->has_sig || r->has_lower || r->has_compile)) {
        end_row(r);
        r = NULL;
    }
    if (!r) r = start_row(x, key, sts_lp_ident_for(x, name, (size_t)(end - name), 0), line);
    if (!r) return 0;
    r->has_sig = 1;
    /* Kept as text, shared by every row with the same list, and parsed only when the row
     * is written: a long log of large signatures costs its distinct signatures. */
    r->avals = count_only ? 0 : sts_lp_str(x, av, (size_t)(av_end - av));
    return 0;
}

static int on_stage(lp_ctx *x, const char *msg, int64_t line, int lower)
{
    const char *head = lower ? "Finished jaxpr to MLIR module conversion " : "Finished XLA compilation of ";
    const char *name = msg + strlen(head), *in = NULL;
    int64_t ns = trailing_time(msg, &in);
    if (ns < 0 || in <= name) return -1;
    char base[256];
    uint32_t key = sts_lp_key(x, name, (size_t)(in - name), 1, base, sizeof base);
    lp_row *r = sts_lp_row_active(x, key);
    if (r && (lower ? (r->has_lower || r->has_compile) : r->has_compile)) {
        end_row(r);
        r = NULL;
    }
    if (!r) r = start_row(x, key, sts_lp_ident_for(x, name, (size_t)(in - name), 1), line);
    if (!r) return 0;
    if (lower) {
        r->has_lower = 1;
        r->lower_ns = ns;
        return 0;
    }
    r->has_compile = 1;
    r->compiles = 1;
    r->compile_ns = ns;
    end_row(r); /* the last stage of a specialization */
    return 0;
}

/* The module name in quotes after `head`, or NULL. */
static const char *quoted(const char *msg, const char *head, size_t *n)
{
    const char *p = strstr(msg, head);
    if (!p) return NULL;
    p += strlen(head);
    if (*p != '\'') return NULL;
    const char *e = strchr(p + 1, '\'');
    if (!e) return NULL;
    *n = (size_t)(e - p - 1);
    return p + 1;
}

static int on_pcache(lp_ctx *x, const char *msg)
{
    size_t n = 0;
    const char *name;
    sts_lg_counter which;
    if ((name = quoted(msg, "cache hit for ", &n)))
        which = STS_LG_PERS_HIT;
    else if ((name = quoted(msg, "CACHE MISS for ", &n)))
        which = STS_LG_PERS_MISS;
    else if (starts(msg, "Writing ")) {
        name = msg + 8;
        const char *e = strstr(name, " to persistent compilation cache");
        if (!e) return -1;
        n = (size_t)(e - name);
        which = STS_LG_PERS_WRITE;
    } else if (starts(msg, "Not writing persistent cache entry")) {
        return quoted(msg, "entry for ", &n) && n == 0 ? -1 : 0; /* nothing counted */
    } else
        return -1;
    if (n == 0) return -1;
    long fn = sts_lp_fn(x, sts_lp_ident_for(x, name, n, 1), STS_LEDGER_SRC_JAX_LOG);
    if (fn >= 0) sts_lg_fn_count(x->l, (size_t)fn, which, 1);
    return 0;
}

int sts_lp_jax_line(lp_ctx *x, lp_kind kind, const char *msg, int64_t line)
{
    int rc = 0;
    const char *what = "";
    switch (kind) {
    case LP_JAX_TRACE:
        rc = on_trace(x, msg, line);
        what = "'Finished tracing NAME [for API] in T sec'";
        break;
    case LP_JAX_COMPILE:
        rc = on_compiling(x, msg, line);
        what = "'Compiling NAME ... with global shapes and types (AVALS). ...'";
        break;
    case LP_JAX_LOWER:
        rc = on_stage(x, msg, line, 1);
        what = "'Finished jaxpr to MLIR module conversion NAME in T sec'";
        break;
    case LP_JAX_XLA:
        rc = on_stage(x, msg, line, 0);
        what = "'Finished XLA compilation of NAME in T sec'";
        break;
    case LP_JAX_PCACHE:
        rc = on_pcache(x, msg);
        what = "a persistent-cache message naming its module in quotes";
        break;
    default:
        return 0;
    }
    if (rc != 0) {
        x->st.records--;
        sts_lp_warn(x, line, "looks like a JAX compile-log line but does not parse; expected %s: \"%.120s\"", what,
                    msg);
    }
    return rc;
}
