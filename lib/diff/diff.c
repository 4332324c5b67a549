/* The diff object: rows, notes, predictions, and the accessors of stepscope/diff.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_impl.h"

const char *sts_diff_kind_name(sts_diff_kind k)
{
    switch (k) {
    case STS_DIFF_KIND_TRACE:
        return "trace";
    case STS_DIFF_KIND_BENCH:
        return "bench";
    case STS_DIFF_KIND_LEDGER:
        return "ledger";
    }
    return "unknown";
}

const char *sts_diff_result_name(sts_diff_result r)
{
    switch (r) {
    case STS_DIFF_HELD:
        return "held";
    case STS_DIFF_FAILED:
        return "failed";
    case STS_DIFF_UNDECIDED:
        return "inconclusive";
    }
    return "inconclusive";
}

const char *sts_dd_strdup(sts_diff *d, const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s);
    char *p = sts_arena_alloc(&d->arena, n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

static const char *vprintf_arena(sts_diff *d, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static const char *vprintf_arena(sts_diff *d, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return NULL;
    char *p = sts_arena_alloc(&d->arena, (size_t)n + 1);
    if (p) vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

const char *sts_dd_printf(sts_diff *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *p = vprintf_arena(d, fmt, ap);
    va_end(ap);
    return p;
}

sts_status sts_dd_note(sts_diff *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *p = vprintf_arena(d, fmt, ap);
    va_end(ap);
    const char **slot = p ? STS_VEC_PUSH(d->notes) : NULL;
    if (!slot) return STS_ERR_NOMEM;
    *slot = p;
    return STS_OK;
}

sts_diff *sts_dd_new(sts_diff_kind kind, const sts_diff_options *opt, const char *base_name, const char *new_name)
{
    sts_diff *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    sts_diff_options dflt = STS_DIFF_OPTIONS_INIT;
    d->kind = kind;
    d->opt = opt ? *opt : dflt;
    d->opt.step = opt && opt->step ? sts_dd_strdup(d, opt->step) : NULL;
    d->side[0].name = sts_dd_strdup(d, base_name);
    d->side[1].name = sts_dd_strdup(d, new_name);
    d->samples_word = "sample";
    if (!d->side[0].name || !d->side[1].name) {
        sts_diff_free(d);
        return NULL;
    }
    return d;
}

void sts_diff_free(sts_diff *d)
{
    if (!d) return;
    STS_VEC_RELEASE(d->rows);
    STS_VEC_RELEASE(d->notes);
    STS_VEC_RELEASE(d->preds);
    sts_arena_release(&d->arena);
    free(d);
}

sts_diff_kind sts_diff_get_kind(const sts_diff *d)
{
    return d->kind;
}
const char *sts_diff_base_name(const sts_diff *d)
{
    return d->side[0].name;
}
const char *sts_diff_new_name(const sts_diff *d)
{
    return d->side[1].name;
}
const char *sts_diff_samples_word(const sts_diff *d)
{
    return d->samples_word;
}
const sts_diff_options *sts_diff_get_options(const sts_diff *d)
{
    return &d->opt;
}

const sts_diff_interval *sts_diff_intervals(const sts_diff *d, size_t *n)
{
    if (n) *n = d->rows.n;
    return d->rows.v;
}

const char *const *sts_diff_notes(const sts_diff *d, size_t *n)
{
    if (n) *n = d->notes.n;
    return d->notes.v;
}

const sts_diff_prediction *sts_diff_predictions(const sts_diff *d, size_t *n)
{
    if (n) *n = d->preds.n;
    return d->preds.v;
}

int sts_diff_exit_status(const sts_diff *d)
{
    int failed = 0, undecided = 0;
    for (size_t i = 0; i < d->preds.n; i++) {
        failed |= d->preds.v[i].result == STS_DIFF_FAILED;
        undecided |= d->preds.v[i].result == STS_DIFF_UNDECIDED;
    }
    return failed ? 3 : undecided ? 4 : 0;
}

const sts_diff_interval *sts_dd_find(const sts_diff *d, const char *key, size_t *index)
{
    for (size_t i = 0; i < d->rows.n; i++) {
        if (strcmp(d->rows.v[i].key, key) == 0) {
            if (index) *index = i;
            return &d->rows.v[i];
        }
    }
    return NULL;
}

/* ---- adding rows ----------------------------------------------------------------- */

static const int64_t *copy_i64(sts_diff *d, const int64_t *v, size_t n)
{
    int64_t *p = sts_arena_alloc(&d->arena, (n ? n : 1) * sizeof *p);
    if (p && n) memcpy(p, v, n * sizeof *p);
    return p;
}

/* The index array of a series: its own, or the ordinals. */
static const int64_t *copy_index(sts_diff *d, sts_dd_series s)
{
    if (s.idx) return copy_i64(d, s.idx, s.n);
    int64_t *p = sts_arena_alloc(&d->arena, (s.n ? s.n : 1) * sizeof *p);
    for (size_t i = 0; p && i < s.n; i++)
        p[i] = (int64_t)i;
    return p;
}

/* A new row with its strings set; the key is the name unless taken. */
static sts_diff_interval *new_row(sts_diff *d, const char *name, const char *group, const char *unit,
                                  const char *sample, const char *note)
{
    const char *nm = sts_dd_strdup(d, name);
    const char *key = nm && sts_dd_find(d, nm, NULL) ? sts_dd_printf(d, "%s.%s", name, group) : nm;
    const char *nt = note ? sts_dd_strdup(d, note) : NULL;
    if (!nm || !key || (note && !nt)) return NULL;
    sts_diff_interval *r = STS_VEC_PUSH(d->rows);
    if (!r) return NULL;
    r->name = nm;
    r->key = key;
    r->group = group; /* static strings from the callers */
    r->unit = unit;
    r->sample = sample;
    r->note = nt;
    return r;
}

static sts_status nomem(sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
}

sts_status sts_dd_add_samples(sts_diff *d, const char *name, const char *group, const char *unit, const char *sample,
                              sts_dd_series base, sts_dd_series new_, const char *note, sts_error *err)
{
    sts_diff_stats st;
    sts_status s = sts_diff_samples(base.v, base.n, new_.v, new_.n, &d->opt, &st, err);
    if (s != STS_OK) return s;
    const int64_t *bv = copy_i64(d, base.v, base.n), *nv = copy_i64(d, new_.v, new_.n);
    const int64_t *bi = copy_index(d, base), *ni = copy_index(d, new_);
    sts_diff_interval *r = bv && nv && bi && ni ? new_row(d, name, group, unit, sample, note) : NULL;
    if (!r) return nomem(err);
    r->stats = st;
    r->base_samples = bv;
    r->new_samples = nv;
    r->base_index = bi;
    r->new_index = ni;
    return STS_OK;
}

static sts_status add_pair(sts_diff *d, const char *name, const char *group, int kb, int64_t b, int kn, int64_t n,
                           const char *note, int single, sts_error *err)
{
    sts_diff_stats st;
    if (kb > 0 && kn > 0) {
        sts_diff_counts(b, n, &st);
        if (single) {
            /* One observation per run: the difference is real but says nothing about
             * the run-to-run spread, so no verdict beyond inconclusive. */
            st.method = STS_DIFF_METHOD_SINGLE;
            st.verdict = STS_DIFF_INCONCLUSIVE;
            st.ci_low_ns = st.ci_high_ns = st.ci_level = NAN;
            st.ci_low_pct = st.ci_high_pct = NAN;
        }
    } else {
        sts_diff_samples(NULL, 0, NULL, 0, &d->opt, &st, NULL);
        st.n_base = kb > 0;
        st.n_new = kn > 0;
        st.median_base = st.min_base = st.max_base = kb > 0 ? b : 0;
        st.median_new = st.min_new = st.max_new = kn > 0 ? n : 0;
        if (kb < 0 && kn >= 0) st.verdict = STS_DIFF_APPEARED;
        if (kn < 0 && kb >= 0) st.verdict = STS_DIFF_DISAPPEARED;
    }
    const int64_t *bv = copy_i64(d, &b, kb > 0), *nv = copy_i64(d, &n, kn > 0);
    const int64_t zero = 0;
    const int64_t *bi = copy_i64(d, &zero, 1), *ni = copy_i64(d, &zero, 1);
    sts_diff_interval *r = bv && nv && bi && ni ? new_row(d, name, group, single ? "ns" : "count", "run", note) : NULL;
    if (!r) return nomem(err);
    r->stats = st;
    r->base_samples = bv;
    r->new_samples = nv;
    r->base_index = bi;
    r->new_index = ni;
    return STS_OK;
}

sts_status sts_dd_add_counts(sts_diff *d, const char *name, const char *group, int known_base, int64_t base,
                             int known_new, int64_t new_, const char *note, sts_error *err)
{
    return add_pair(d, name, group, known_base, base, known_new, new_, note, 0, err);
}

sts_status sts_dd_add_single(sts_diff *d, const char *name, const char *group, int known_base, int64_t base,
                             int known_new, int64_t new_, const char *note, sts_error *err)
{
    return add_pair(d, name, group, known_base, base, known_new, new_, note, 1, err);
}
