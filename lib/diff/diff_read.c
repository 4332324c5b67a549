/* A diff read back (stepscope.diff/1, docs/diff.md), the one reader of what
 * sts_diff_write_json() writes, for `stepscope report`: the rows with their samples
 * and statistics, the notes and the judged predictions, so that writing the diff again
 * gives the same bytes. Where the writer wrote null for a number that is not a number
 * (an unbounded interval, a percent of a zero median), the reader puts back what it
 * stood for. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/json_dom.h"
#include "diff/diff_impl.h"

#define MAX_VALUE           4503599627370496.0 /* 2^52 */
#define MAX_SAMPLES_WRITTEN 100000             /* json.c leaves longer sample arrays out */

typedef struct reader {
    sts_diff *d;
    const char *name;
    sts_error *err;
} reader;

static sts_status bad(reader *r, const sts_jval *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static sts_status bad(reader *r, const sts_jval *v, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sts_error_set(r->err, STS_ERR_FORMAT, v ? (int64_t)v->offset : 0, "%s: byte %zu: %s", r->name,
                         v ? v->offset : 0, what);
}

static sts_status nomem(reader *r)
{
    return sts_error_set(r->err, STS_ERR_NOMEM, -1, "%s: out of memory", r->name);
}

/* A string member copied into the diff; null or absent is NULL when `null_ok`, "" when
 * `null_ok` is 2 (a label a hand-made document may leave out). */
static sts_status text(reader *r, const sts_jval *o, const char *key, int null_ok, const char **out)
{
    const sts_jval *v = sts_json_get(o, key);
    *out = NULL;
    if ((!v || v->type == STS_J_NULL) && null_ok == 2) {
        *out = "";
        return STS_OK;
    }
    if ((!v || v->type == STS_J_NULL) && null_ok) return STS_OK;
    if (!v || v->type != STS_J_STR)
        return bad(r, v ? v : o, "\"%s\" must be a string%s", key, null_ok ? " or null" : "");
    return (*out = sts_dd_strdup(r->d, v->u.str.s)) ? STS_OK : nomem(r);
}

/* A number member; null is NAN. */
static sts_status number(reader *r, const sts_jval *o, const char *key, double *out)
{
    const sts_jval *v = sts_json_get(o, key);
    *out = NAN;
    if (v && v->type == STS_J_NUM) *out = v->u.num;
    return !v || v->type == STS_J_NUM || v->type == STS_J_NULL ? STS_OK
                                                               : bad(r, v, "\"%s\" must be a number or null", key);
}

/* A whole number of at most 2^52 in magnitude (>= 0 unless `sign`). */
static int whole(const sts_jval *v, int sign)
{
    return v && v->type == STS_J_NUM && v->u.num == floor(v->u.num) && fabs(v->u.num) <= MAX_VALUE &&
           (sign || v->u.num >= 0);
}

static sts_status count(reader *r, const sts_jval *o, const char *key, int null_ok, int64_t *out)
{
    const sts_jval *v = sts_json_get(o, key);
    *out = 0;
    if (null_ok && (!v || v->type == STS_J_NULL)) return STS_OK;
    if (!whole(v, 0)) return bad(r, v ? v : o, "\"%s\" must be a whole number >= 0", key);
    *out = (int64_t)v->u.num;
    return STS_OK;
}

/* One of `names` (by sts_*_name()); its index in *out. */
static sts_status named(reader *r, const sts_jval *o, const char *key, const char *(*name_of)(int), int n, int *out)
{
    const char *s = sts_json_str(sts_json_get(o, key), NULL);
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, name_of(i)) == 0) return *out = i, STS_OK;
    return bad(r, sts_json_get(o, key) ? sts_json_get(o, key) : o, "\"%s\" has a value this version does not know",
               key);
}

static const char *method_name(int i)
{
    return sts_diff_method_name((sts_diff_method)i);
}
static const char *verdict_name(int i)
{
    return sts_diff_verdict_name((sts_diff_verdict)i);
}
static const char *result_name(int i)
{
    return sts_diff_result_name((sts_diff_result)i);
}
static const char *direction_name(int i)
{
    return sts_dd_direction_name((sts_diff_direction)i);
}
static const char *kind_name(int i)
{
    return sts_diff_kind_name((sts_diff_kind)(i + 1));
}

/* ---- a row -------------------------------------------------------------------------- */

/* n whole numbers (>= 0 unless `sign`). Absent or null: not written (*out NULL; the
 * writer leaves more than MAX_SAMPLES_WRITTEN out), or for an index the ordinals, as
 * for one that does not match the samples. */
static sts_status values(reader *r, const sts_jval *v, const char *key, size_t n, int sign, int ordinals,
                         const int64_t **out)
{
    *out = NULL;
    int given = v && v->type == STS_J_ARR && v->u.arr.n == n;
    if (!given && !ordinals) {
        if (!v || v->type == STS_J_NULL) return STS_OK;
        return bad(r, v, "\"%s\" must be an array of the side's n numbers or null", key);
    }
    int64_t *x = sts_arena_alloc(&r->d->arena, (n ? n : 1) * sizeof *x);
    if (!x) return nomem(r);
    for (size_t i = 0; i < n; i++) {
        const sts_jval *it = given ? v->u.arr.items[i] : NULL;
        if (it && !whole(it, sign))
            return sts_error_set(r->err, STS_ERR_FORMAT, (int64_t)it->offset,
                                 "%s: byte %zu: \"%s\"[%zu] must be a whole number%s", r->name, it->offset, key, i,
                                 sign ? "" : " >= 0");
        x[i] = it ? (int64_t)it->u.num : (int64_t)i;
    }
    *out = x;
    return STS_OK;
}

/* A run's side of a row: null (absent from that run, or an unknown count) or its n,
 * median, minimum, maximum, samples and their index. */
static sts_status side(reader *r, const sts_jval *s, int counts, sts_diff_interval *row, int which)
{
    sts_diff_stats *st = &row->stats;
    size_t *n = which ? &st->n_new : &st->n_base;
    int64_t *med = which ? &st->median_new : &st->median_base, *mn = which ? &st->min_new : &st->min_base,
            *mx = which ? &st->max_new : &st->max_base;
    const int64_t **v = which ? &row->new_samples : &row->base_samples,
                  **idx = which ? &row->new_index : &row->base_index;
    static const int64_t none = 0;
    *n = 0;
    *med = *mn = *mx = 0;
    *v = *idx = &none;
    if (!s || s->type == STS_J_NULL) return STS_OK;
    if (s->type != STS_J_OBJ) return bad(r, s, "\"%s\" must be an object or null", which ? "new" : "base");
    const char *skey = counts ? "samples" : "samples_ns";
    const sts_jval *samples = sts_json_get(s, skey);
    int64_t k = (int64_t)sts_json_len(samples); /* a hand-made side may leave n out */
    sts_status e = sts_json_get(s, "n") ? count(r, s, "n", 0, &k) : STS_OK;
    *n = (size_t)k;
    if (e == STS_OK) e = values(r, samples, skey, *n, 0, 0, v);
    if (e == STS_OK) e = values(r, sts_json_get(s, "index"), "index", *n, 1, 1, idx);
    if (e == STS_OK) e = count(r, s, counts ? "median" : "median_ns", 1, med);
    if (e == STS_OK) e = count(r, s, counts ? "min" : "min_ns", 1, mn);
    if (e == STS_OK) e = count(r, s, counts ? "max" : "max_ns", 1, mx);
    if (e == STS_OK && *n == 0) *idx = *v = &none;
    return e;
}

/* The interval's bounds: null where the interval is unbounded stands for an infinity. */
static void unbounded(const sts_jval *o, double *lo, double *hi)
{
    const sts_jval *b = sts_json_get(o, "ci_bounded");
    if (!b || b->type != STS_J_BOOL || b->u.b) return;
    if (isnan(*lo)) *lo = -INFINITY;
    if (isnan(*hi)) *hi = INFINITY;
}

static sts_status row_of(reader *r, const sts_jval *o, sts_diff_interval *row)
{
    if (o->type != STS_J_OBJ) return bad(r, o, "each of \"%s\" must be an object", "intervals");
    sts_diff_stats *st = &row->stats;
    const char *unit = sts_json_str(sts_json_get(o, "unit"), "");
    int is_count = strcmp(unit, "count") == 0 || strcmp(unit, "bytes") == 0, m = 0, v = 0;
    int64_t needed;
    sts_status e;
    if ((e = side(r, sts_json_get(o, "base"), is_count, row, 0)) ||
        (e = side(r, sts_json_get(o, "new"), is_count, row, 1)) || (e = text(r, o, "name", 2, &row->name)) ||
        (e = text(r, o, "key", 0, &row->key)) || (e = text(r, o, "group", 2, &row->group)) ||
        (e = text(r, o, "unit", 0, &row->unit)) || (e = text(r, o, "sample", 2, &row->sample)) ||
        (e = text(r, o, "note", 1, &row->note)) || (e = number(r, o, "change_pct", &st->change_pct)) ||
        (e = number(r, o, "ci_low_pct", &st->ci_low_pct)) || (e = number(r, o, "ci_high_pct", &st->ci_high_pct)) ||
        (e = number(r, o, "shift_ns", &st->shift_ns)) || (e = number(r, o, "ci_low_ns", &st->ci_low_ns)) ||
        (e = number(r, o, "ci_high_ns", &st->ci_high_ns)) || (e = number(r, o, "ci_level", &st->ci_level)) ||
        (e = number(r, o, "u", &st->u)) || (e = number(r, o, "p_value", &st->p_value)) ||
        (e = number(r, o, "spread_pct", &st->spread_pct)) || (e = count(r, o, "samples_needed", 1, &needed)) ||
        (e = named(r, o, "method", method_name, STS_DIFF_METHOD_SINGLE + 1, &m)) ||
        (e = named(r, o, "verdict", verdict_name, STS_DIFF_DISAPPEARED + 1, &v)))
        return e;
    unbounded(o, &st->ci_low_ns, &st->ci_high_ns);
    unbounded(o, &st->ci_low_pct, &st->ci_high_pct);
    st->samples_needed = (uint64_t)needed;
    st->method = (sts_diff_method)m;
    st->verdict = (sts_diff_verdict)v;
    return STS_OK;
}

/* ---- the document ---------------------------------------------------------------------- */

static sts_status run_of(reader *r, const sts_jval *root, int which)
{
    const sts_jval *o = sts_json_get(root, which ? "new" : "base");
    sts_dd_side *s = &r->d->side[which];
    sts_status e = text(r, o, "name", 0, &s->name);
    if (e != STS_OK || r->d->kind != STS_DIFF_KIND_TRACE) return e;
    int64_t steps;
    if ((e = count(r, o, "steps", 0, &steps)) || (e = text(r, o, "step_name", 1, &s->step_name)) ||
        (e = text(r, o, "step_rule", 1, &s->rule)))
        return e;
    s->steps = (size_t)steps;
    return STS_OK;
}

static sts_status prediction_of(reader *r, const sts_jval *o, sts_diff_prediction *p)
{
    if (o->type != STS_J_OBJ) return bad(r, o, "each of \"%s\" must be an object", "predictions");
    int dir = 0, res = 0;
    sts_status e;
    if ((e = text(r, o, "expect", 0, &p->expect)) || (e = text(r, o, "key", 0, &p->key)) ||
        (e = named(r, o, "result", result_name, STS_DIFF_UNDECIDED + 1, &res)) || (e = text(r, o, "why", 0, &p->why)))
        return e;
    /* A hand-made document may give the prediction's text alone. */
    sts_diff_direction parsed_dir = STS_DIFF_EXPECT_SAME;
    double parsed_size = NAN;
    int parsed = sts_dd_parse_expect(p->expect, &parsed_dir, &parsed_size) == 0;
    if (sts_json_get(o, "direction") || !parsed) {
        if ((e = named(r, o, "direction", direction_name, STS_DIFF_EXPECT_SAME + 1, &dir)) ||
            (e = number(r, o, "size_pct", &p->size_pct)))
            return e;
        p->direction = (sts_diff_direction)dir;
    } else {
        p->direction = parsed_dir;
        p->size_pct = parsed_size;
    }
    p->result = (sts_diff_result)res;
    if (!sts_dd_find(r->d, p->key, &p->interval)) return bad(r, o, "the prediction names no row (\"%s\")", p->key);
    return STS_OK;
}

static sts_status lists(reader *r, const sts_jval *root)
{
    sts_diff *d = r->d;
    const sts_jval *rows = sts_json_get(root, "intervals"), *notes = sts_json_get(root, "notes"),
                   *preds = sts_json_get(root, "predictions");
    sts_status e = STS_OK;
    for (size_t i = 0; i < rows->u.arr.n && e == STS_OK; i++) {
        sts_diff_interval *row = STS_VEC_PUSH(d->rows);
        e = row ? row_of(r, rows->u.arr.items[i], row) : nomem(r);
    }
    for (size_t i = 0; i < sts_json_len(notes) && e == STS_OK; i++) {
        const char **slot = STS_VEC_PUSH(d->notes);
        const sts_jval *it = sts_json_at(notes, i);
        if (!slot) return nomem(r);
        if (it->type != STS_J_STR) return bad(r, it, "each of \"%s\" must be a string", "notes");
        if (!(*slot = sts_dd_strdup(d, it->u.str.s))) return nomem(r);
    }
    for (size_t i = 0; i < sts_json_len(preds) && e == STS_OK; i++) {
        sts_diff_prediction *p = STS_VEC_PUSH(d->preds);
        e = p ? prediction_of(r, sts_json_at(preds, i), p) : nomem(r);
    }
    return e;
}

static sts_status document(reader *r, const sts_jval *root)
{
    const char *schema = sts_json_str(sts_json_get(root, "schema"), "");
    const sts_jval *rows = sts_json_get(root, "intervals");
    if (strncmp(schema, "stepscope.diff/", 15) != 0 || !rows || rows->type != STS_J_ARR)
        return sts_error_set(
            r->err, STS_ERR_FORMAT, 0,
            "%s: not a diff result: expected \"schema\": \"stepscope.diff/1\" and an \"intervals\" array", r->name);
    int kind = 0;
    double conf = NAN, margin = NAN;
    sts_status e = lists(r, root);
    if (e == STS_OK) e = named(r, root, "kind", kind_name, STS_DIFF_KIND_LEDGER, &kind);
    r->d->kind = (sts_diff_kind)(kind + 1);
    if (e == STS_OK) e = run_of(r, root, 0);
    if (e == STS_OK) e = run_of(r, root, 1);
    if (e == STS_OK) e = text(r, root, "samples", 0, &r->d->samples_word);
    if (e == STS_OK) e = number(r, root, "confidence", &conf);
    if (e == STS_OK) e = number(r, root, "margin_pct", &margin);
    if (e == STS_OK && (!(conf > 0.5 && conf < 1) || !(margin > 0)))
        e = bad(r, root, "\"confidence\" must lie in (0.5, 1) and \"margin_pct\" be above 0");
    r->d->opt.confidence = conf;
    r->d->opt.margin_pct = margin;
    return e;
}

sts_status sts_diff_read_json(const char *text, size_t len, const char *name, sts_diff **out, sts_error *err)
{
    *out = NULL;
    name = name ? name : "(diff json)";
    sts_diff *d = sts_dd_new(STS_DIFF_KIND_TRACE, NULL, "", "");
    if (!d) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    reader r = { d, name, err };
    sts_jdoc dom = STS_JDOC_INIT;
    sts_status st = sts_json_parse(&dom, text, len, name, err);
    if (st == STS_OK) st = document(&r, dom.root);
    sts_jdoc_release(&dom);
    if (st != STS_OK) {
        sts_diff_free(d);
        return st;
    }
    *out = d;
    return STS_OK;
}

size_t sts_diff_run_steps(const sts_diff *d, int which, const char **step_name, const char **rule)
{
    const sts_dd_side *s = &d->side[which ? 1 : 0];
    if (step_name) *step_name = s->step_name;
    if (rule) *rule = s->rule;
    return s->steps;
}
