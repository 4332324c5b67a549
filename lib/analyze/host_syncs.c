/* Host syncs found in a trace: the rule table, and the per-step tally. */
#include "stepscope/hostsync.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/search.h"
#include "base/vec.h"

/* Why each rule is here is in docs/host-syncs.md. The JAX frames are the Python tracer's
 * ("$array.py:615 _value"); PyTorch's Python frames are "<built-in method item of Tensor
 * object at 0x...>". cudaMemcpy and hipMemcpy (not their Async forms) return only when
 * the copy is done. */
static const sts_host_sync_rule RULES[] = {
    { "_value", "jax", STS_HSM_PYFRAME, "_value", "array.py", "scalar" },
    { "__float__", "jax", STS_HSM_PYFRAME, "__float__", "array.py", "scalar" },
    { "__int__", "jax", STS_HSM_PYFRAME, "__int__", "array.py", "scalar" },
    { "__bool__", "jax", STS_HSM_PYFRAME, "__bool__", "array.py", "scalar" },
    { "__index__", "jax", STS_HSM_PYFRAME, "__index__", "array.py", "scalar" },
    { "__array__", "jax", STS_HSM_PYFRAME, "__array__", "array.py", "read" },
    { "tolist", "jax", STS_HSM_PYFRAME, "tolist", "array.py", "read" },
    { "block_until_ready", "jax", STS_HSM_PYFRAME, "block_until_ready", NULL, "wait" },
    { "Tensor.item", "pytorch", STS_HSM_PREFIX, "<built-in method item of Tensor", NULL, "scalar" },
    { "Tensor.tolist", "pytorch", STS_HSM_PREFIX, "<built-in method tolist of Tensor", NULL, "read" },
    { "aten::item", "pytorch", STS_HSM_EXACT, "aten::item", NULL, "scalar" },
    { "aten::_local_scalar_dense", "pytorch", STS_HSM_EXACT, "aten::_local_scalar_dense", NULL, "scalar" },
    { "cudaStreamSynchronize", "cuda", STS_HSM_EXACT, "cudaStreamSynchronize", NULL, "wait" },
    { "cudaDeviceSynchronize", "cuda", STS_HSM_EXACT, "cudaDeviceSynchronize", NULL, "wait" },
    { "cudaEventSynchronize", "cuda", STS_HSM_EXACT, "cudaEventSynchronize", NULL, "wait" },
    { "cudaMemcpy", "cuda", STS_HSM_EXACT, "cudaMemcpy", NULL, "read" },
    { "cuStreamSynchronize", "cuda", STS_HSM_EXACT, "cuStreamSynchronize", NULL, "wait" },
    { "cuCtxSynchronize", "cuda", STS_HSM_EXACT, "cuCtxSynchronize", NULL, "wait" },
    { "cuMemcpyDtoH", "cuda", STS_HSM_PREFIX, "cuMemcpyDtoH_v", NULL, "read" },
    { "hipStreamSynchronize", "hip", STS_HSM_EXACT, "hipStreamSynchronize", NULL, "wait" },
    { "hipDeviceSynchronize", "hip", STS_HSM_EXACT, "hipDeviceSynchronize", NULL, "wait" },
    { "hipEventSynchronize", "hip", STS_HSM_EXACT, "hipEventSynchronize", NULL, "wait" },
    { "hipMemcpy", "hip", STS_HSM_EXACT, "hipMemcpy", NULL, "read" },
    { "hipMemcpyDtoH", "hip", STS_HSM_EXACT, "hipMemcpyDtoH", NULL, "read" },
};

const sts_host_sync_rule *sts_host_sync_rules(size_t *n)
{
    if (n) *n = sizeof RULES / sizeof RULES[0];
    return RULES;
}

/* "$FILE:LINE FUNC": FUNC is the text after the last space; FILE the text before ':'. */
static int pyframe_is(const char *name, const sts_host_sync_rule *r)
{
    if (name[0] != '$') return 0;
    const char *sp = strrchr(name, ' ');
    if (!sp || strcmp(sp + 1, r->pattern) != 0) return 0;
    if (!r->file) return 1;
    const char *colon = strchr(name, ':');
    size_t fl = strlen(r->file);
    if (!colon || colon > sp || (size_t)(colon - name - 1) < fl) return 0;
    /* the file may come with a directory: match its last component */
    const char *base = colon - fl;
    return memcmp(base, r->file, fl) == 0 && (base == name + 1 || base[-1] == '/' || base[-1] == '\\');
}

const sts_host_sync_rule *sts_host_sync_match_name(const char *name)
{
    if (!name) return NULL;
    char c = name[0];
    if (c != '$' && c != '<' && c != 'a' && c != 'c' && c != 'h') return NULL; /* the fast path */
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++) {
        const sts_host_sync_rule *r = &RULES[i];
        switch (r->how) {
        case STS_HSM_EXACT:
            if (strcmp(name, r->pattern) == 0) return r;
            break;
        case STS_HSM_PREFIX:
            if (strncmp(name, r->pattern, strlen(r->pattern)) == 0) return r;
            break;
        case STS_HSM_PYFRAME:
            if (pyframe_is(name, r)) return r;
            break;
        }
    }
    return NULL;
}

struct sts_host_syncs {
    STS_VEC(sts_host_sync) list;
    STS_VEC(uint32_t) slices; /* each sync's outermost slice, in slice order */
    STS_VEC(size_t) first;    /* per step: its first entry; one more at the end */
    size_t outside;
};

STS_VEC_ACCESSOR(sts_host_syncs_list, sts_host_syncs, sts_host_sync, list)
STS_VEC_ACCESSOR(sts_host_syncs_slices, sts_host_syncs, uint32_t, slices)

size_t sts_host_syncs_of_step(const sts_host_syncs *h, uint32_t step, size_t *first)
{
    if (!h || (size_t)step + 1 >= h->first.n) {
        if (first) *first = 0;
        return 0;
    }
    if (first) *first = h->first.v[step];
    return h->first.v[step + 1] - h->first.v[step];
}

size_t sts_host_syncs_outside(const sts_host_syncs *h)
{
    return h ? h->outside : 0;
}

void sts_host_syncs_free(sts_host_syncs *h)
{
    if (!h) return;
    STS_VEC_RELEASE(h->list);
    STS_VEC_RELEASE(h->slices);
    STS_VEC_RELEASE(h->first);
    free(h);
}

/* The step holding `ts`: steps are on one lane in time order; the last that starts at or
 * before ts, when ts is before its end. Returns STS_NONE otherwise. */
static uint32_t step_of(const sts_step *st, size_t n, int64_t ts)
{
    size_t lo = 0, hi = n;
    STS_BISECT(size_t, lo, hi, mid, st[mid].ts <= ts);
    if (!lo) return STS_NONE;
    const sts_step *x = &st[lo - 1];
    return ts < x->ts + x->dur ? (uint32_t)(lo - 1) : STS_NONE;
}

static int by_key(const void *a, const void *b)
{
    const sts_host_sync *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->where < y->where ? -1 : x->where > y->where;
}

static int by_order(const void *a, const void *b)
{
    const sts_host_sync *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->wait_ns != y->wait_ns) return x->wait_ns > y->wait_ns ? -1 : 1;
    return by_key(a, b);
}

/* Where syncs are looked for: the steps (each its own entry), or one span (entry 0) on
 * some lanes. */
typedef struct where_to_look {
    const sts_step *st;
    size_t nst;
    int windowed;
    int64_t start, end;
    const unsigned char *lane_ok; /* NULL: every lane */
} where_to_look;

static uint32_t entry_of(const where_to_look *w, const sts_slice *s)
{
    if (w->st) return step_of(w->st, w->nst, s->ts);
    if (w->lane_ok && !w->lane_ok[s->lane]) return STS_NONE;
    return !w->windowed || (s->ts >= w->start && s->ts < w->end) ? 0 : STS_NONE;
}

/* One entry per matching outermost slice, step and rule known. `inside` marks slices
 * under a match (a parent precedes its children in the slice array). */
static sts_status collect(const sts_timeline *tl, const where_to_look *w, sts_host_syncs *h, sts_error *err)
{
    size_t ns;
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    unsigned char *inside = calloc(ns ? ns : 1, 1);
    /* The rule of each name, matched once per name (a trace has a few thousand names and
     * millions of slices): rule index + 2, 1 none, 0 not matched yet. */
    uint32_t bound = sts_an_name_bound(tl);
    uint16_t *memo = calloc(bound ? bound : 1, sizeof *memo);
    size_t nrules;
    const sts_host_sync_rule *rules = sts_host_sync_rules(&nrules);
    if (!inside || !memo || nrules > UINT16_MAX - 2) {
        free(inside);
        free(memo);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "host syncs: out of memory");
    }
    for (size_t i = 0; i < ns; i++) {
        uint32_t p = sl[i].parent;
        if (p != STS_NONE && p < i && inside[p]) {
            inside[i] = 1;
            continue;
        }
        uint16_t *m = &memo[sl[i].name];
        if (!*m) {
            const sts_host_sync_rule *got = sts_host_sync_match_name(sts_timeline_string(tl, sl[i].name));
            *m = got ? (uint16_t)(got - rules + 2) : 1;
        }
        if (*m == 1) continue;
        const sts_host_sync_rule *r = &rules[*m - 2];
        inside[i] = 1;
        uint32_t k = entry_of(w, &sl[i]);
        if (k == STS_NONE) {
            h->outside++;
            continue;
        }
        sts_host_sync *e = STS_VEC_PUSH(h->list);
        uint32_t *at = e ? STS_VEC_PUSH(h->slices) : NULL;
        if (!at) {
            free(inside);
            free(memo);
            return sts_error_set(err, STS_ERR_NOMEM, -1, "host syncs: out of memory");
        }
        *e = (sts_host_sync){ k, r->name, p == STS_NONE ? STS_NONE : sl[p].name, 1, sl[i].dur };
        *at = (uint32_t)i;
    }
    free(inside);
    free(memo);
    return STS_OK;
}

/* Entries sharing step, rule and where become one. */
static void merge(sts_host_syncs *h)
{
    if (!h->list.n) return;
    qsort(h->list.v, h->list.n, sizeof *h->list.v, by_key);
    size_t o = 0;
    for (size_t i = 1; i < h->list.n; i++) {
        sts_host_sync *a = &h->list.v[o], *b = &h->list.v[i];
        if (by_key(a, b) == 0) {
            a->count += b->count;
            a->wait_ns += b->wait_ns;
        } else
            h->list.v[++o] = *b;
    }
    h->list.n = o + 1;
    qsort(h->list.v, h->list.n, sizeof *h->list.v, by_order);
}

static sts_status index_steps(sts_host_syncs *h, size_t nst, sts_error *err)
{
    if (STS_VEC_RESERVE(h->first, nst + 1) != 0)
        return sts_error_set(err, STS_ERR_NOMEM, -1, "host syncs: out of memory");
    h->first.n = nst + 1;
    size_t e = 0;
    for (size_t k = 0; k <= nst; k++) {
        while (e < h->list.n && h->list.v[e].step < k)
            e++;
        h->first.v[k] = e;
    }
    return STS_OK;
}

/* Takes h: *out on success, freed on failure. */
static sts_status find(const sts_timeline *tl, const where_to_look *w, sts_host_syncs *h, sts_host_syncs **out,
                       sts_error *err)
{
    sts_status rc = collect(tl, w, h, err);
    if (rc == STS_OK) {
        merge(h);
        rc = index_steps(h, w->nst, err);
    }
    if (rc != STS_OK) {
        sts_host_syncs_free(h);
        return rc;
    }
    *out = h;
    return STS_OK;
}

sts_status sts_host_syncs_find(const sts_timeline *tl, const sts_steps *s, sts_host_syncs **out, sts_error *err)
{
    if (!out) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "host syncs: no output");
    *out = NULL;
    if (!tl || !s) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "host syncs: no timeline or steps");
    sts_host_syncs *h = calloc(1, sizeof *h);
    if (!h) return sts_error_set(err, STS_ERR_NOMEM, -1, "host syncs: out of memory");
    where_to_look w = { NULL, 0, 0, 0, 0, NULL };
    w.st = sts_steps_list(s, &w.nst);
    return find(tl, &w, h, out, err);
}

sts_status sts_host_syncs_find_scope(const sts_timeline *tl, const sts_scope *scope, sts_host_syncs **out,
                                     sts_error *err)
{
    if (!out) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "host syncs: no output");
    *out = NULL;
    if (!tl) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "host syncs: no timeline");
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    where_to_look w = {
        NULL, 1, scope && scope->windowed, scope ? scope->start_ns : 0, scope ? scope->end_ns : 0, NULL
    };
    unsigned char *ok = NULL;
    if (scope && scope->lanes) {
        if (!(ok = calloc(nl ? nl : 1, 1))) return sts_error_set(err, STS_ERR_NOMEM, -1, "host syncs: out of memory");
        for (size_t i = 0; i < scope->nlanes; i++)
            if (scope->lanes[i] < nl) ok[scope->lanes[i]] = 1;
        w.lane_ok = ok;
    }
    sts_host_syncs *h = calloc(1, sizeof *h);
    sts_status rc = h ? find(tl, &w, h, out, err) : sts_error_set(err, STS_ERR_NOMEM, -1, "host syncs: out of memory");
    free(ok);
    return rc;
}
