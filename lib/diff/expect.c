/* Predictions: NAME:shrink, NAME:grow, NAME:same, optionally sized (shrink>=20%,
 * same<=5%), parsed and judged against a row. A prediction is a single planned test,
 * stated before looking, so it is judged at the diff's confidence on its own; the
 * rows it did not name are exploration (docs/diff.md). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_impl.h"

typedef struct parsed {
    char *name; /* malloc'd */
    sts_diff_direction dir;
    double size; /* NAN: none */
} parsed;

const char *sts_dd_direction_name(sts_diff_direction d)
{
    return d == STS_DIFF_EXPECT_SHRINK ? "shrink" : d == STS_DIFF_EXPECT_GROW ? "grow" : "same";
}

/* The size after the direction word: "", ">=20%", ">=20", "<=5%". */
static int parse_size(const char *s, sts_diff_direction dir, double *size, const char **why)
{
    *size = NAN;
    if (!*s) return 0;
    const char *op = dir == STS_DIFF_EXPECT_SAME ? "<=" : ">=";
    if (strncmp(s, op, 2) != 0) {
        *why = dir == STS_DIFF_EXPECT_SAME ? "after 'same' only '<=N%' may follow"
                                           : "after 'shrink' or 'grow' only "
                                             "'>=N%' may follow";
        return -1;
    }
    s += 2;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0 || (*end && strcmp(end, "%") != 0)) {
        *why = "the size must be a non-negative number of percent, like 20%";
        return -1;
    }
    if (dir == STS_DIFF_EXPECT_SHRINK && v > 100) {
        *why = "nothing shrinks by more than 100%";
        return -1;
    }
    *size = v;
    return 0;
}

/* Splits at the last ':' that a direction word follows, so a NAME may hold colons
 * ("forward (model.py:12)"). */
static int parse(const char *text, parsed *p, const char **why)
{
    static const struct {
        const char *word;
        sts_diff_direction dir;
    } dirs[] = { { "shrink", STS_DIFF_EXPECT_SHRINK },
                 { "grow", STS_DIFF_EXPECT_GROW },
                 { "same", STS_DIFF_EXPECT_SAME } };
    memset(p, 0, sizeof *p);
    *why = "expected NAME:shrink, NAME:grow or NAME:same (optionally shrink>=N%, grow>=N%, same<=N%)";
    for (const char *c = strrchr(text, ':'); c;
         c = c > text ? (const char *)memrchr(text, ':', (size_t)(c - text)) : NULL) {
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
            size_t k = strlen(dirs[i].word);
            if (strncmp(c + 1, dirs[i].word, k) != 0) continue;
            if (c == text) {
                *why = "the prediction names nothing before ':'";
                return -1;
            }
            p->dir = dirs[i].dir;
            if (parse_size(c + 1 + k, p->dir, &p->size, why) != 0) return -1;
            p->name = strndup(text, (size_t)(c - text));
            return p->name ? 0 : -2;
        }
    }
    return -1;
}

int sts_dd_parse_expect(const char *text, sts_diff_direction *dir, double *size)
{
    parsed p;
    const char *why;
    if (parse(text, &p, &why) != 0) return -1;
    *dir = p.dir;
    *size = p.size;
    free(p.name);
    return 0;
}

/* ---- judging -------------------------------------------------------------------- */

typedef struct judgement {
    sts_diff_result result;
    char reason[200]; /* after the result word: ", it grew" */
} judgement;

static void set(judgement *j, sts_diff_result r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(judgement *j, sts_diff_result r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    j->result = r;
    vsnprintf(j->reason, sizeof j->reason, fmt, ap);
    va_end(ap);
}

static void judge_presence(const sts_diff_stats *s, sts_diff_direction dir, judgement *j)
{
    int appeared = s->verdict == STS_DIFF_APPEARED;
    if (dir == STS_DIFF_EXPECT_SAME)
        set(j, STS_DIFF_FAILED, ", it %s", appeared ? "appeared" : "disappeared");
    else if ((dir == STS_DIFF_EXPECT_GROW) == appeared)
        set(j, STS_DIFF_HELD, "%s", "");
    else
        set(j, STS_DIFF_FAILED, ", it %s", appeared ? "appeared" : "disappeared");
}

static void undecided_samples(const sts_diff_interval *r, judgement *j)
{
    char more[96] = "";
    if (r->stats.samples_needed)
        snprintf(more, sizeof more, "about %llu %ss per run would be needed",
                 (unsigned long long)r->stats.samples_needed, r->sample);
    else
        snprintf(more, sizeof more, "more %ss would be needed", r->sample);
    set(j, STS_DIFF_UNDECIDED, ", %s", more);
}

/* Unsized shrink or grow: the row's verdict decides. "same" (the interval within the
 * margin) refutes it: whatever change there is, it is too small to count. */
static void judge_direction(const sts_diff *d, const sts_diff_interval *r, sts_diff_direction dir, judgement *j)
{
    sts_diff_verdict want = dir == STS_DIFF_EXPECT_SHRINK ? STS_DIFF_SHRANK : STS_DIFF_GREW;
    sts_diff_verdict v = r->stats.verdict;
    char m[48];
    snprintf(m, sizeof m, "%g%%", d->opt.margin_pct);
    if (v == want)
        set(j, STS_DIFF_HELD, "%s", "");
    else if (v == STS_DIFF_SHRANK || v == STS_DIFF_GREW)
        set(j, STS_DIFF_FAILED, ", it %s", v == STS_DIFF_GREW ? "grew" : "shrank");
    else if (v == STS_DIFF_SAME)
        set(j, STS_DIFF_FAILED, ", %s%s",
            r->stats.method == STS_DIFF_METHOD_COUNT ? "it did not change" : "it stayed within \xc2\xb1",
            r->stats.method == STS_DIFF_METHOD_COUNT ? "" : m);
    else
        undecided_samples(r, j);
}

/* Sized predictions compare the interval (in percent of the base median) with the
 * size: held when all of it lies in the predicted region, failed when none does. */
static void judge_sized(const sts_diff_interval *r, sts_diff_direction dir, double size, judgement *j)
{
    const sts_diff_stats *s = &r->stats;
    double lo = s->ci_low_pct, hi = s->ci_high_pct;
    char sz[32];
    snprintf(sz, sizeof sz, "%s%g%%",
             dir == STS_DIFF_EXPECT_SHRINK ? "\xe2\x88\x92"
             : dir == STS_DIFF_EXPECT_GROW ? "+"
                                           : "",
             size);
    if (isnan(lo) || isnan(hi)) {
        set(j, STS_DIFF_UNDECIDED, "%s", ", the base median is 0, so no percent exists");
        return;
    }
    int held, failed;
    if (dir == STS_DIFF_EXPECT_SHRINK) {
        held = hi <= -size;
        failed = lo > -size;
    } else if (dir == STS_DIFF_EXPECT_GROW) {
        held = lo >= size;
        failed = hi < size;
    } else {
        held = lo >= -size && hi <= size;
        failed = lo > size || hi < -size;
    }
    if (held)
        set(j, STS_DIFF_HELD, "%s", "");
    else if (failed)
        set(j, STS_DIFF_FAILED, ", %s %s",
            dir == STS_DIFF_EXPECT_SAME ? "it changed by more than" : "the interval rules out a change of", sz);
    else if (isinf(lo) || isinf(hi))
        undecided_samples(r, j);
    else if (dir == STS_DIFF_EXPECT_SAME)
        set(j, STS_DIFF_UNDECIDED, ", the interval reaches beyond \xc2\xb1%s", sz);
    else
        set(j, STS_DIFF_UNDECIDED, ", the interval straddles %s", sz);
}

static void judge(const sts_diff *d, const sts_diff_interval *r, const parsed *p, judgement *j)
{
    const sts_diff_stats *s = &r->stats;
    if (s->verdict == STS_DIFF_APPEARED || s->verdict == STS_DIFF_DISAPPEARED) {
        judge_presence(s, p->dir, j);
    } else if (s->method == STS_DIFF_METHOD_NONE) {
        set(j, STS_DIFF_UNDECIDED, "%s", ", the value is unknown");
    } else if (s->method == STS_DIFF_METHOD_SINGLE) {
        set(j, STS_DIFF_UNDECIDED, "%s", ", one run each cannot show a change: repeat the runs");
    } else if (p->dir == STS_DIFF_EXPECT_SAME) {
        double size = isnan(p->size) ? d->opt.margin_pct : p->size;
        judge_sized(r, p->dir, size, j);
        /* The row's estimate is of the samples that would decide it either way (a change,
         * or sameness within the margin): either way decides this prediction too. */
        if (j->result == STS_DIFF_UNDECIDED && size == d->opt.margin_pct && s->samples_needed) {
            size_t used = strlen(j->reason);
            snprintf(j->reason + used, sizeof j->reason - used, "; about %llu %ss per run would be needed",
                     (unsigned long long)s->samples_needed, r->sample);
        }
    } else if (isnan(p->size) || p->size == 0) {
        judge_direction(d, r, p->dir, j);
    } else {
        judge_sized(r, p->dir, p->size, j);
        /* A sized claim still needs the change to be significant at all. */
        if (j->result == STS_DIFF_HELD && s->method != STS_DIFF_METHOD_COUNT && !(s->p_value < 1.0 - d->opt.confidence))
            set(j, STS_DIFF_UNDECIDED, ", the rank test is not significant (p = %.2g)", s->p_value);
    }
}

/* ---- suggestions -------------------------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64) return (size_t)-1;
    size_t row[65];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = cur;
        }
    }
    return row[m];
}

static sts_status not_found(const sts_diff *d, const char *name, sts_error *err)
{
    char hint[400] = "";
    size_t used = 0, shown = 0;
    for (size_t i = 0; i < d->rows.n && shown < 5; i++) {
        const char *k = d->rows.v[i].key;
        size_t dist = edit_distance(name, k), len = strlen(name);
        if (!(dist <= 2 + len / 4 || strstr(k, name))) continue;
        int w = snprintf(hint + used, sizeof hint - used, "%s'%s'", shown ? ", " : "", k);
        if (w < 0 || (size_t)w >= sizeof hint - used) break;
        used += (size_t)w;
        shown++;
    }
    if (shown)
        return sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                             "--expect: '%s' is no interval of either run; did you mean %s?", name, hint);
    return sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                         "--expect: '%s' is no interval of either run (the keys are listed by --json, \"key\")", name);
}

sts_status sts_diff_expect_check(const char *text, sts_error *err)
{
    parsed p;
    const char *why = NULL;
    int rc = parse(text, &p, &why);
    free(p.name);
    if (rc == -2) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    if (rc != 0) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "--expect '%s': %s", text, why);
    return STS_OK;
}

sts_status sts_diff_expect(sts_diff *d, const char *text, sts_error *err)
{
    parsed p;
    const char *why = NULL;
    int rc = parse(text, &p, &why);
    if (rc == -2) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    if (rc != 0) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "--expect '%s': %s", text, why);
    size_t idx;
    const sts_diff_interval *r = sts_dd_find(d, p.name, &idx);
    if (!r) {
        sts_status st = not_found(d, p.name, err);
        free(p.name);
        return st;
    }
    judgement j;
    judge(d, r, &p, &j);
    char desc[600];
    sts_dd_describe(d, r, desc, sizeof desc);
    const char *why_s = sts_dd_printf(d, "%s: %s%s", desc, sts_diff_result_name(j.result), j.reason);
    const char *ex = sts_dd_strdup(d, text);
    sts_diff_prediction *pr = why_s && ex ? STS_VEC_PUSH(d->preds) : NULL;
    free(p.name);
    if (!pr) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    pr->expect = ex;
    pr->key = r->key;
    pr->interval = idx;
    pr->direction = p.dir;
    pr->size_pct = p.size;
    pr->result = j.result;
    pr->why = why_s;
    return STS_OK;
}
