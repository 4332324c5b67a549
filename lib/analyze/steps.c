/* Step detection and the per-step breakdown: direct children by name, the unattributed
 * remainder, and the double-counted sum that adding step and children would give. */
#include <regex.h>
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

void sts_steps_free(sts_steps *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->tried.n; i++)
        free(s->tried.v[i]);
    free(s->tried.v);
    free(s->steps.v);
    free(s->children.v);
    free(s->stats.v);
    free(s);
}

sts_step_rule sts_steps_rule(const sts_steps *s)
{
    return s->rule;
}

const sts_step *sts_steps_list(const sts_steps *s, size_t *n)
{
    if (n) *n = s->steps.n;
    return s->steps.v;
}

const sts_step_child *sts_steps_children(const sts_steps *s, size_t *n)
{
    if (n) *n = s->children.n;
    return s->children.v;
}

const sts_step_child_stats *sts_steps_child_stats(const sts_steps *s, size_t *n)
{
    if (n) *n = s->stats.n;
    return s->stats.v;
}

const sts_steps_summary *sts_steps_get_summary(const sts_steps *s)
{
    return &s->summary;
}

size_t sts_steps_other_lanes(const sts_steps *s)
{
    return s->other_lanes;
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
static int collect_by_name(const sts_timeline *tl, int (*match)(const char *name, void *ctx), void *ctx,
                           steps_u32vec *out)
{
    size_t nstr = tl->strings.count;
    signed char *memo = malloc(nstr ? nstr : 1);
    if (!memo) return -1;
    memset(memo, -1, nstr);
    for (size_t i = 0; i < tl->slices.n; i++) {
        uint32_t nm = tl->slices.v[i].name;
        if (memo[nm] < 0) memo[nm] = (signed char)(match(sts_strtab_get(&tl->strings, nm), ctx) != 0);
        if (memo[nm] && steps_push(out, (uint32_t)i) != 0) {
            free(memo);
            return -1;
        }
    }
    free(memo);
    return 0;
}

static int match_profiler_step(const char *name, void *ctx)
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

static int match_regex(const char *name, void *ctx)
{
    return regexec((const regex_t *)ctx, name, 0, NULL, 0) == 0;
}

static int match_exact(const char *name, void *ctx)
{
    return strcmp(name, (const char *)ctx) == 0;
}

static int collect_step_num(const sts_timeline *tl, steps_u32vec *out)
{
    uint32_t key = sts_timeline_find_string(tl, "step_num");
    if (key == STS_NONE) return 0;
    for (size_t i = 0; i < tl->slices.n; i++) {
        uint32_t a = tl->slices.v[i].args;
        if (a == STS_NONE) continue;
        for (size_t k = a; k < tl->args.n; k++) {
            if (tl->args.v[k].key == key) {
                if (steps_push(out, (uint32_t)i) != 0) return -1;
                break;
            }
            if (tl->args.v[k].last) break;
        }
    }
    return 0;
}

static sts_status given(const sts_timeline *tl, sts_steps *s, const char *step, steps_u32vec *found, sts_error *err)
{
    if (collect_by_name(tl, match_exact, (void *)step, found) != 0) return steps_nomem(err);
    if (found->n) {
        s->rule = STS_STEP_RULE_GIVEN_NAME;
        return STS_OK;
    }
    if (sts_steps_note_tried(s, "slices named '%s': none", step) != 0) return steps_nomem(err);
    regex_t re;
    int rc = regcomp(&re, step, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re, msg, sizeof msg);
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "step '%s' is neither a slice name in %s nor a valid extended regular expression (%s)",
                             step, tl->info.path, msg);
    }
    int bad = collect_by_name(tl, match_regex, &re, found);
    regfree(&re);
    if (bad) return steps_nomem(err);
    if (found->n)
        s->rule = STS_STEP_RULE_GIVEN_REGEX;
    else if (sts_steps_note_tried(s, "names matching the extended regex /%s/: none", step) != 0)
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

/* Drops matches nested inside another match, so no step time is counted twice. */
static int keep_outermost(const sts_timeline *tl, steps_u32vec *found)
{
    size_t n = tl->slices.n;
    unsigned char *mark = calloc(n / 8 + 1, 1);
    if (!mark) return -1;
    for (size_t k = 0; k < found->n; k++)
        mark[found->v[k] / 8] |= (unsigned char)(1u << (found->v[k] % 8));
    size_t out = 0;
    for (size_t k = 0; k < found->n; k++) {
        uint32_t p = tl->slices.v[found->v[k]].parent;
        while (p != STS_NONE && !(mark[p / 8] & (1u << (p % 8))))
            p = tl->slices.v[p].parent;
        if (p == STS_NONE) found->v[out++] = found->v[k];
    }
    found->n = out;
    free(mark);
    return 0;
}

/* Keeps the lane with the most matches (ties: the earliest first match); found is in
 * slice order, so each lane's matches are contiguous and in time order. */
static void keep_one_lane(const sts_timeline *tl, steps_u32vec *found, size_t *other_lanes)
{
    size_t best_lo = 0, best_n = 0, lanes = 0;
    for (size_t lo = 0; lo < found->n;) {
        uint32_t lane = tl->slices.v[found->v[lo]].lane;
        size_t hi = lo;
        while (hi < found->n && tl->slices.v[found->v[hi]].lane == lane)
            hi++;
        lanes++;
        int better = hi - lo > best_n ||
                     (hi - lo == best_n && tl->slices.v[found->v[lo]].ts < tl->slices.v[found->v[best_lo]].ts);
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
    sts_steps *s = calloc(1, sizeof *s);
    if (!s) return steps_nomem(err);
    steps_u32vec found = { 0 };
    const char *step = options ? options->step : NULL;
    sts_status st = step && *step ? given(tl, s, step, &found, err) : detect(tl, s, &found, err);
    if (st == STS_OK && found.n) {
        if (keep_outermost(tl, &found) != 0)
            st = steps_nomem(err);
        else
            keep_one_lane(tl, &found, &s->other_lanes);
    }
    if (st == STS_OK && found.n) st = sts_steps_breakdown_fill(tl, s, found.v, found.n, err);
    free(found.v);
    if (st != STS_OK) {
        sts_steps_free(s);
        return st;
    }
    *out = s;
    return STS_OK;
}
