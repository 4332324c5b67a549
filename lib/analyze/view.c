/* Lane views: one lane's slices in containment order (see an_impl.h), optionally cut to
 * a time window, plus the small helpers every analysis shares. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/mem.h"

void sts_an_scratch_free(sts_an_scratch *sc)
{
    free(sc->stack);
    free(sc->rank);
    free(sc->keys);
    free(sc->tree);
    free(sc->reach);
    free(sc->flags);
    free(sc->heap);
    memset(sc, 0, sizeof *sc);
}

void sts_an_view_free(sts_an_view *v)
{
    free(v->iv);
    memset(v, 0, sizeof *v);
}

/* Containment order. Cut intervals that tie are ordered as their uncut slices are,
 * so the slice that held the other before the cut still holds it. */
static int iv_cmp(const sts_an_iv *a, const sts_an_iv *b, const sts_slice *s)
{
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    if (a->idx == b->idx) return 0;
    const sts_slice *x = &s[a->idx], *y = &s[b->idx];
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    int64_t ex = sts_an_end(x), ey = sts_an_end(y);
    if (ex != ey) return ex > ey ? -1 : 1;
    return a->idx < b->idx ? -1 : 1;
}

static int iv_qcmp(const void *a, const void *b, void *ctx)
{
    return iv_cmp(a, b, ctx);
}

int sts_an_view_load(sts_an_view *v, const sts_timeline *tl, uint32_t lane, const int64_t *window)
{
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + lane;
    return sts_an_view_load_range(v, tl, ln->first_slice, ln->slice_count, window);
}

int sts_an_view_runs(const sts_timeline *tl, uint32_t lane, size_t part, uint32_t **cuts, size_t *n, size_t *cap)
{
    const sts_lane *ln = sts_timeline_lanes(tl, NULL) + lane;
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    uint32_t first = ln->first_slice, last = ln->first_slice + ln->slice_count;
    *n = 0;
    if (sts_grow((void **)cuts, cap, 2, sizeof **cuts) != 0) return -1;
    (*cuts)[(*n)++] = first;
    int64_t ts0 = 0, end0 = 0, reach = INT64_MIN;                       /* the previous slice; the latest end before */
    for (uint32_t i = first; i < last && ln->slice_count > part; i++) { /* a short lane is one run, unscanned */
        int64_t ts = s[i].ts, end = sts_an_end(&s[i]);
        if (i > first && (ts < ts0 || (ts == ts0 && end > end0))) { /* out of order: one run */
            (*cuts)[1] = last;
            *n = 2;
            return 0;
        }
        if (i - (*cuts)[*n - 1] >= part && reach <= ts) {
            if (sts_grow((void **)cuts, cap, *n + 2, sizeof **cuts) != 0) return -1;
            (*cuts)[(*n)++] = i;
        }
        ts0 = ts;
        end0 = end;
        if (end > reach) reach = end;
    }
    (*cuts)[(*n)++] = last;
    return 0;
}

int sts_an_view_load_range(sts_an_view *v, const sts_timeline *tl, uint32_t first, uint32_t count,
                           const int64_t *window)
{
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    v->slices = s;
    v->n = 0;
    if (sts_grow((void **)&v->iv, &v->cap, count ? count : 1, sizeof *v->iv) != 0) return -1;
    int sorted = 1;
    for (uint32_t i = first; i < first + count; i++) {
        int64_t ts, end;
        if (!sts_an_clip(&s[i], window, &ts, &end)) continue;
        sts_an_iv *x = &v->iv[v->n++];
        x->ts = ts;
        x->end = end;
        x->idx = i;
        x->unused = 0;
        if (sorted && v->n > 1 && (x[-1].ts > ts || (x[-1].ts == ts && x[-1].end <= end)) && iv_cmp(x - 1, x, s) > 0)
            sorted = 0;
    }
    if (!sorted) qsort_r(v->iv, v->n, sizeof *v->iv, iv_qcmp, (void *)s);
    return 0;
}

int64_t sts_an_union_sorted(const sts_an_iv *iv, size_t n)
{
    int64_t total = 0, cs = 0, ce = 0;
    int started = 0;
    for (size_t k = 0; k < n; k++) {
        if (iv[k].end <= iv[k].ts) continue;
        if (!started || iv[k].ts > ce) {
            if (started) total += ce - cs;
            started = 1;
            cs = iv[k].ts;
            ce = iv[k].end;
        } else if (iv[k].end > ce) {
            ce = iv[k].end;
        }
    }
    return started ? total + (ce - cs) : 0;
}

uint32_t sts_an_name_bound(const sts_timeline *tl)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    uint32_t bound = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].name >= bound) bound = s[i].name + 1;
    return bound;
}

sts_status sts_an_nomem(sts_error *err, const char *what)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory %s", what);
}

sts_status sts_an_matcher_init(sts_an_matcher *m, const char *pattern, int exact, const char *what, sts_error *err)
{
    m->text = pattern;
    m->re = NULL;
    if (exact) return STS_OK;
    sts_status st = sts_an_pattern_check(pattern, what, err);
    if (st != STS_OK) return st;
    regex_t *re = malloc(sizeof *re);
    if (!re) return sts_an_nomem(err, "compiling a pattern");
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, re, msg, sizeof msg);
        free(re);
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "%s '%s' is neither an exact name nor a valid extended regular expression (%s)", what,
                             pattern, msg);
    }
    m->re = re;
    return STS_OK;
}

int sts_an_matcher_match(const sts_an_matcher *m, const char *s)
{
    if (!m->re) return strcmp(s, m->text) == 0;
    return regexec((const regex_t *)m->re, s, 0, NULL, 0) == 0;
}

void sts_an_matcher_release(sts_an_matcher *m)
{
    if (m->re) {
        regfree(m->re);
        free(m->re);
    }
    m->re = NULL;
}

int sts_an_has_name(const sts_timeline *tl, const char *name)
{
    uint32_t id = sts_timeline_find_string(tl, name);
    if (id == STS_NONE) return 0;
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (s[i].name == id) return 1;
    return 0;
}
