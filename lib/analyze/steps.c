/* Step detection: which slices are the steps (see sts_steps_find()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/steps_impl.h"

const char *sts_step_rule_name(sts_step_rule rule)
{
    switch (rule) {
    case STS_STEP_RULE_GIVEN_NAME:
        return "given-name";
    case STS_STEP_RULE_GIVEN_REGEX:
        return "given-regex";
    case STS_STEP_RULE_PROFILER_STEP:
        return "profiler-step";
    case STS_STEP_RULE_STEP_NUM:
        return "step-num";
    case STS_STEP_RULE_REPEATED:
        return "repeated-name";
    case STS_STEP_RULE_NONE:
        break;
    }
    return "none";
}

const char *sts_step_rule_description(sts_step_rule rule)
{
    switch (rule) {
    case STS_STEP_RULE_GIVEN_NAME:
        return "slices with the name given by --step";
    case STS_STEP_RULE_GIVEN_REGEX:
        return "slices whose name matches the --step regular expression";
    case STS_STEP_RULE_PROFILER_STEP:
        return "PyTorch profiler step markers named ProfilerStep#N";
    case STS_STEP_RULE_STEP_NUM:
        return "slices carrying a step_num arg (XProf step markers)";
    case STS_STEP_RULE_REPEATED:
        return "the outermost name repeated on one lane with the most time, holding other slices";
    case STS_STEP_RULE_NONE:
        break;
    }
    return "no steps found";
}

void sts_steps_free(sts_steps *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->tried.n; i++)
        free(s->tried.v[i]);
    STS_VEC_RELEASE(s->tried);
    STS_VEC_RELEASE(s->steps);
    STS_VEC_RELEASE(s->children);
    STS_VEC_RELEASE(s->stats);
    STS_VEC_RELEASE(s->windows);
    STS_VEC_RELEASE(s->window_names);
    STS_VEC_RELEASE(s->window_lanes);
    STS_VEC_RELEASE(s->suggestions);
    free(s);
}

sts_step_rule sts_steps_rule(const sts_steps *s)
{
    return s->rule;
}

STS_VEC_ACCESSOR(sts_steps_list, sts_steps, sts_step, steps)
STS_VEC_ACCESSOR(sts_steps_children, sts_steps, sts_step_child, children)
STS_VEC_ACCESSOR(sts_steps_child_stats, sts_steps, sts_step_child_stats, stats)
STS_VEC_ACCESSOR(sts_steps_windows, sts_steps, sts_step_window, windows)
STS_VEC_ACCESSOR(sts_steps_window_names, sts_steps, sts_window_name, window_names)
STS_VEC_ACCESSOR(sts_steps_window_lanes, sts_steps, sts_window_lane_stats, window_lanes)
STS_VEC_ACCESSOR(sts_steps_suggestions, sts_steps, uint32_t, suggestions)

const sts_steps_summary *sts_steps_get_summary(const sts_steps *s)
{
    return &s->summary;
}

size_t sts_steps_other_lanes(const sts_steps *s)
{
    return s->other_lanes;
}

size_t sts_steps_bookkeeping_lanes(const sts_steps *s)
{
    return s->bookkeeping_lanes;
}

size_t sts_steps_out_of_range(const sts_steps *s)
{
    return s->out_of_range;
}

size_t sts_steps_dropped(const sts_steps *s)
{
    return s->dropped;
}

const char *const *sts_steps_tried(const sts_steps *s, size_t *n)
{
    if (n) *n = s->tried.n;
    return (const char *const *)s->tried.v;
}

int sts_steps_note_tried(sts_steps *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *copy = strdup(buf);
    char **slot = copy ? STS_VEC_PUSH(s->tried) : NULL;
    if (!slot) {
        free(copy);
        return -1;
    }
    *slot = copy;
    return 0;
}

/* ---- matching by name --------------------------------------------------------- */

/* Collects slices whose name satisfies `match` (evaluated once per distinct name). */
static int collect_by_name(const sts_timeline *tl, int (*match)(const char *name, const void *ctx), const void *ctx,
                           steps_u32vec *out)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    uint32_t bound = sts_an_name_bound(tl);
    signed char *memo = malloc(bound ? bound : 1);
    if (!memo) return -1;
    memset(memo, -1, bound);
    for (size_t i = 0; i < n; i++) {
        uint32_t nm = s[i].name;
        if (memo[nm] < 0) memo[nm] = (signed char)(match(sts_timeline_string(tl, nm), ctx) != 0);
        if (memo[nm] && steps_push(out, (uint32_t)i) != 0) {
            free(memo);
            return -1;
        }
    }
    free(memo);
    return 0;
}

static int match_profiler_step(const char *name, const void *ctx)
{
    (void)ctx;
    static const char prefix[] = "ProfilerStep#";
    if (strncmp(name, prefix, sizeof prefix - 1) != 0) return 0;
    const char *p = name + sizeof prefix - 1;
    if (!*p) return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

static int match_pattern(const char *name, const void *ctx)
{
    return sts_an_matcher_match(ctx, name);
}

static int collect_step_num(const sts_timeline *tl, steps_u32vec *out)
{
    uint32_t key = sts_timeline_find_string(tl, "step_num");
    if (key == STS_NONE) return 0;
    size_t n, na;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_arg *a = sts_timeline_args(tl, &na);
    for (size_t i = 0; i < n; i++) {
        if (s[i].args == STS_NONE) continue;
        for (size_t k = s[i].args; k < na; k++) {
            if (a[k].key == key) {
                if (steps_push(out, (uint32_t)i) != 0) return -1;
                break;
            }
            if (a[k].last) break;
        }
    }
    return 0;
}

static sts_status given(const sts_timeline *tl, sts_steps *s, const char *step, steps_u32vec *found, sts_error *err)
{
    sts_an_matcher m = { step, NULL };
    if (collect_by_name(tl, match_pattern, &m, found) != 0) return steps_nomem(err);
    if (found->n) {
        s->rule = STS_STEP_RULE_GIVEN_NAME;
        return STS_OK;
    }
    if (sts_steps_note_tried(s, "slices named '%s': none", step) != 0) return steps_nomem(err);
    sts_status st = sts_an_matcher_init(&m, step, 0, "step", err);
    if (st != STS_OK) return st;
    int bad = collect_by_name(tl, match_pattern, &m, found);
    sts_an_matcher_release(&m);
    if (bad) return steps_nomem(err);
    if (found->n) {
        s->rule = STS_STEP_RULE_GIVEN_REGEX;
        return STS_OK;
    }
    if (sts_steps_note_tried(s, "names matching the extended regex /%s/: none", step) != 0 ||
        sts_steps_suggest(tl, s, step) != 0)
        return steps_nomem(err);
    return STS_OK;
}

static sts_status detect(const sts_timeline *tl, sts_steps *s, steps_u32vec *found, sts_error *err)
{
    if (collect_by_name(tl, match_profiler_step, NULL, found) != 0) return steps_nomem(err);
    if (found->n) {
        s->rule = STS_STEP_RULE_PROFILER_STEP;
        return STS_OK;
    }
    if (sts_steps_note_tried(s, "names like ProfilerStep#N: none") != 0) return steps_nomem(err);
    if (collect_step_num(tl, found) != 0) return steps_nomem(err);
    if (found->n) {
        s->rule = STS_STEP_RULE_STEP_NUM;
        return STS_OK;
    }
    if (sts_steps_note_tried(s, "slices with a step_num arg: none") != 0) return steps_nomem(err);
    sts_status st = sts_steps_detect_repeated(tl, s, found, err);
    if (st == STS_OK && found->n) s->rule = STS_STEP_RULE_REPEATED;
    return st;
}

/* ---- keeping one lane's outermost matches -------------------------------------- */

/* Drops matches that lie inside another match, so no step time is counted twice.
 * found is in slice order, so each lane's matches are contiguous. */
static int keep_outermost(const sts_timeline *tl, steps_u32vec *found)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    unsigned char *mark = calloc(n / 8 + 1, 1);
    if (!mark) return -1;
    for (size_t k = 0; k < found->n; k++)
        mark[found->v[k] / 8] |= (unsigned char)(1u << (found->v[k] % 8));
    sts_an_view v = { 0 };
    size_t out = 0;
    int bad = 0;
    for (size_t lo = 0; lo < found->n && !bad;) {
        uint32_t lane = s[found->v[lo]].lane;
        size_t hi = lo;
        while (hi < found->n && s[found->v[hi]].lane == lane)
            hi++;
        lo = hi;
        if ((bad = sts_an_view_load(&v, tl, lane, NULL) != 0)) break;
        int64_t reach = INT64_MIN; /* the furthest end of the matches so far */
        for (size_t k = 0; k < v.n; k++) {
            const sts_an_iv *iv = &v.iv[k];
            if (!(mark[iv->idx / 8] & (1u << (iv->idx % 8)))) continue;
            if (!(iv->ts < reach && iv->end <= reach)) found->v[out++] = iv->idx;
            if (iv->end > reach) reach = iv->end;
        }
    }
    found->n = out;
    free(mark);
    sts_an_view_free(&v);
    return bad ? -1 : 0;
}

/* Keeps the lane with the most matches (ties: the earliest first match). Each lane's
 * matches are contiguous and in time order. */
static void keep_one_lane(const sts_timeline *tl, steps_u32vec *found, size_t *other_lanes)
{
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    size_t best_lo = 0, best_n = 0, lanes = 0;
    for (size_t lo = 0; lo < found->n;) {
        uint32_t lane = s[found->v[lo]].lane;
        size_t hi = lo;
        while (hi < found->n && s[found->v[hi]].lane == lane)
            hi++;
        lanes++;
        int better = hi - lo > best_n || (hi - lo == best_n && s[found->v[lo]].ts < s[found->v[best_lo]].ts);
        if (better) {
            best_lo = lo;
            best_n = hi - lo;
        }
        lo = hi;
    }
    memmove(found->v, found->v + best_lo, best_n * sizeof *found->v);
    found->n = best_n;
    *other_lanes = lanes ? lanes - 1 : 0;
}

sts_status sts_steps_find(const sts_timeline *tl, const sts_step_options *options, sts_steps **out, sts_error *err)
{
    *out = NULL;
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    if (options) o = *options;
    sts_steps *s = calloc(1, sizeof *s);
    if (!s) return steps_nomem(err);
    steps_u32vec found = { 0 };
    sts_status st = o.step && *o.step ? given(tl, s, o.step, &found, err) : detect(tl, s, &found, err);
    if (st == STS_OK && found.n) {
        if (keep_outermost(tl, &found) != 0)
            st = steps_nomem(err);
        else
            keep_one_lane(tl, &found, &s->other_lanes);
    }
    if (st == STS_OK && found.n) st = sts_steps_breakdown_fill(tl, s, found.v, found.n, &o, err);
    if (st == STS_OK && s->steps.n) st = sts_steps_windows_fill(tl, s, &o, err);
    STS_VEC_RELEASE(found);
    if (st != STS_OK) {
        sts_steps_free(s);
        return st;
    }
    *out = s;
    return STS_OK;
}

int sts_steps_suggest(const sts_timeline *tl, sts_steps *s, const char *word)
{
    size_t n;
    const sts_slice *sl = sts_timeline_slices(tl, &n);
    uint32_t bound = sts_an_name_bound(tl);
    unsigned char *seen = calloc(bound ? bound : 1, 1);
    STS_VEC(const char *) names = { 0 };
    STS_VEC(uint32_t) ids = { 0 };
    int bad = !seen;
    for (size_t i = 0; i < n && !bad; i++) {
        if (seen[sl[i].name]) continue;
        seen[sl[i].name] = 1;
        const char **p = STS_VEC_PUSH(names);
        uint32_t *q = p ? STS_VEC_PUSH(ids) : NULL;
        if (!q) {
            bad = 1;
            break;
        }
        *p = sts_timeline_string(tl, sl[i].name);
        *q = sl[i].name;
    }
    size_t pick[5];
    size_t k = bad ? 0 : sts_suggest(word, names.v, names.n, pick, 5);
    for (size_t i = 0; i < k && !bad; i++) {
        uint32_t *p = STS_VEC_PUSH(s->suggestions);
        if (p)
            *p = ids.v[pick[i]];
        else
            bad = 1;
    }
    free(seen);
    STS_VEC_RELEASE(names);
    STS_VEC_RELEASE(ids);
    return bad ? -1 : 0;
}
