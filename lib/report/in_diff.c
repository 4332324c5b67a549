/* A diff section (`stepscope diff --json`, schema "stepscope.diff/1", docs/diff.md): the
 * two runs, the predictions with their verdicts and reasons, and the before/after
 * figure of the rows that matter most: those the predictions named, then the step and
 * its children (or the bench workloads, compile times and host waits). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/in_json.h"

#define MAX_ROWS 8

static const char HOW_DIFF[] =
    "Each row is one interval. On the left, every sample of BASE (circles, upper line) and NEW (squares, lower "
    "line) on one time axis for that row, with lines joining the samples of the same step; the short bars are the "
    "medians. The shaded bar on the NEW line is BASE's median plus the confidence interval of the shift "
    "(Hodges-Lehmann): where NEW's center plausibly lies. On the right, the change in percent of BASE's median "
    "with the same interval, on one axis for every row; the grey band is the margin within which a change counts "
    "as \"same\". An interval that crosses 0 and leaves the band cannot tell: the verdict is inconclusive.";

/* Groups drawn after the predicted rows, in this order of preference. */
static const char *const preferred[] = { "step", "child",  "unattributed", "lane",
                                         "warm", "device", "compile_time", "wait" };

static int drawable(const sts_jval *row)
{
    if (strcmp(sts_json_str(sts_json_get(row, "unit"), ""), "ns") != 0) return 0;
    const char *method = sts_json_str(sts_json_get(row, "method"), "");
    if (strcmp(method, "single") == 0) return 0;
    const sts_jval *b = sts_json_get(row, "base"), *n = sts_json_get(row, "new");
    int hb =
        b && b->type == STS_J_OBJ && sts_json_get(b, "samples_ns") && sts_json_get(b, "samples_ns")->type == STS_J_ARR;
    int hn =
        n && n->type == STS_J_OBJ && sts_json_get(n, "samples_ns") && sts_json_get(n, "samples_ns")->type == STS_J_ARR;
    return hb || hn;
}

static double num_or_nan(const sts_jval *v)
{
    return v && v->type == STS_J_NUM ? v->u.num : NAN;
}

/* A bound of the interval: null means unbounded when the row says so. */
static double bound(const sts_jval *row, const char *key, double inf)
{
    const sts_jval *v = sts_json_get(row, key), *b = sts_json_get(row, "ci_bounded");
    if (v && v->type == STS_J_NUM) return v->u.num;
    if (b && b->type == STS_J_BOOL && !b->u.b) return inf;
    return NAN;
}

static sts_status side(sts_report *r, const sts_jval *s, const char *name, double **v, double **idx, size_t *n,
                       double *med, sts_error *err)
{
    *v = *idx = NULL;
    *n = 0;
    *med = NAN;
    if (!s || s->type != STS_J_OBJ) return STS_OK;
    size_t ni;
    sts_status st = sts_rpt_json_numbers(r, sts_json_get(s, "samples_ns"), 1, name, "samples_ns", v, n, NULL, err);
    if (st == STS_OK) st = sts_rpt_json_numbers(r, sts_json_get(s, "index"), 1, name, "index", idx, &ni, NULL, err);
    if (st != STS_OK) return st;
    if (*idx == NULL || ni != *n) {
        /* Without step numbers the samples are only in run order. */
        *idx = sts_rpt_alloc(r, (*n + 1) * sizeof **idx);
        if (!*idx) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
        for (size_t i = 0; i < *n; i++)
            (*idx)[i] = (double)i;
    }
    for (size_t i = 0; i < *n; i++)
        if (!isfinite((*v)[i]))
            return sts_error_set(err, STS_ERR_FORMAT, (int64_t)s->offset,
                                 "%s: byte %zu: \"samples_ns\" must hold numbers only", name, s->offset);
    *med = num_or_nan(sts_json_get(s, "median_ns"));
    return STS_OK;
}

static const char *prediction_of(const sts_jval *preds, const char *key)
{
    for (size_t i = 0; i < sts_json_len(preds); i++) {
        const sts_jval *p = sts_json_at(preds, i);
        if (strcmp(sts_json_str(sts_json_get(p, "key"), ""), key) == 0)
            return sts_json_str(sts_json_get(p, "result"), NULL);
    }
    return NULL;
}

static sts_status fill_row(sts_report *r, const sts_jval *j, const sts_jval *preds, const char *name,
                           sts_rpt_diff_row *row, sts_error *err)
{
    row->key = sts_rpt_strdup(r, sts_json_str(sts_json_get(j, "key"), "?"));
    row->verdict = sts_rpt_strdup(r, sts_json_str(sts_json_get(j, "verdict"), "?"));
    row->method = sts_rpt_strdup(r, sts_json_str(sts_json_get(j, "method"), ""));
    const char *p = prediction_of(preds, row->key);
    row->prediction = p ? sts_rpt_strdup(r, p) : NULL;
    sts_status st = side(r, sts_json_get(j, "base"), name, &row->base, &row->bidx, &row->nb, &row->med_base, err);
    if (st == STS_OK) st = side(r, sts_json_get(j, "new"), name, &row->new_, &row->nidx, &row->nn, &row->med_new, err);
    row->change_pct = num_or_nan(sts_json_get(j, "change_pct"));
    row->lo_pct = bound(j, "ci_low_pct", -INFINITY);
    row->hi_pct = bound(j, "ci_high_pct", INFINITY);
    row->lo_ns = bound(j, "ci_low_ns", -INFINITY);
    row->hi_ns = bound(j, "ci_high_ns", INFINITY);
    row->p = num_or_nan(sts_json_get(j, "p_value"));
    return st;
}

/* Every row's samples must be numbers, drawn or not: a malformed document is refused
 * whole rather than drawn in part. */
static sts_status check_rows(sts_report *r, const sts_jval *rows, const char *name, sts_error *err)
{
    static const char *sides[2] = { "base", "new" };
    for (size_t k = 0; k < sts_json_len(rows); k++) {
        const sts_jval *row = sts_json_at(rows, k);
        if (!row || row->type != STS_J_OBJ)
            return sts_error_set(err, STS_ERR_FORMAT, row ? (int64_t)row->offset : 0,
                                 "%s: byte %zu: each of \"intervals\" must be an object", name, row ? row->offset : 0);
        for (int i = 0; i < 2; i++) {
            double *v, *idx, med;
            size_t n;
            sts_status st = side(r, sts_json_get(row, sides[i]), name, &v, &idx, &n, &med, err);
            if (st != STS_OK) return st;
        }
    }
    return STS_OK;
}

/* The rows to draw: named by a prediction first, then by preferred group. */
static size_t choose(const sts_jval *rows, const sts_jval *preds, const sts_jval **pick)
{
    size_t n = 0;
    for (size_t i = 0; i < sts_json_len(preds) && n < MAX_ROWS; i++) {
        const char *key = sts_json_str(sts_json_get(sts_json_at(preds, i), "key"), "");
        for (size_t k = 0; k < sts_json_len(rows); k++) {
            const sts_jval *row = sts_json_at(rows, k);
            if (strcmp(sts_json_str(sts_json_get(row, "key"), ""), key) != 0 || !drawable(row)) continue;
            int dup = 0;
            for (size_t q = 0; q < n; q++)
                dup |= pick[q] == row;
            if (!dup) pick[n++] = row;
        }
    }
    for (size_t g = 0; g < sizeof preferred / sizeof preferred[0]; g++) {
        for (size_t k = 0; k < sts_json_len(rows) && n < MAX_ROWS; k++) {
            const sts_jval *row = sts_json_at(rows, k);
            if (strcmp(sts_json_str(sts_json_get(row, "group"), ""), preferred[g]) != 0 || !drawable(row)) continue;
            int dup = 0;
            for (size_t q = 0; q < n; q++)
                dup |= pick[q] == row;
            if (!dup) pick[n++] = row;
        }
    }
    return n;
}

static void facts(sts_report *r, sts_rpt_section *sec, const sts_jval *root)
{
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    const char *kind = sts_json_str(sts_json_get(root, "kind"), "?");
    sts_rpt_fact(r, f, "compares", "two %s%s", kind, strcmp(kind, "bench") == 0 ? " results" : "s");
    static const char *sides[2] = { "base", "new" };
    for (int i = 0; i < 2; i++) {
        const sts_jval *s = sts_json_get(root, sides[i]);
        const char *nm = sts_json_str(sts_json_get(s, "name"), "?");
        const sts_jval *steps = sts_json_get(s, "steps");
        if (steps && steps->type == STS_J_NUM)
            sts_rpt_fact(r, f, i ? "NEW" : "BASE", "%s (%.0f %s steps)", nm, steps->u.num,
                         sts_json_str(sts_json_get(s, "step_name"), "?"));
        else
            sts_rpt_fact(r, f, i ? "NEW" : "BASE", "%s", nm);
    }
    sts_rpt_fact(r, f, "one sample per", "%s", sts_json_str(sts_json_get(root, "samples"), "?"));
    sts_rpt_fact(r, f, "confidence", "%g%%", 100 * sts_json_num(sts_json_get(root, "confidence"), NAN));
    sts_rpt_fact(r, f, "\"same\" within", "\xc2\xb1%g%%", sts_json_num(sts_json_get(root, "margin_pct"), NAN));
    const sts_jval *sum = sts_json_get(root, "summary");
    sts_rpt_fact(r, f, "intervals",
                 "%.0f: %.0f shrank, %.0f grew, %.0f same, %.0f inconclusive, %.0f appeared, %.0f "
                 "disappeared",
                 sts_json_num(sts_json_get(sum, "intervals"), 0), sts_json_num(sts_json_get(sum, "shrank"), 0),
                 sts_json_num(sts_json_get(sum, "grew"), 0), sts_json_num(sts_json_get(sum, "same"), 0),
                 sts_json_num(sts_json_get(sum, "inconclusive"), 0), sts_json_num(sts_json_get(sum, "appeared"), 0),
                 sts_json_num(sts_json_get(sum, "disappeared"), 0));
}

static void predictions(sts_report *r, sts_rpt_section *sec, const sts_jval *preds)
{
    if (!sts_json_len(preds)) return;
    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Predictions");
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    for (size_t i = 0; i < sts_json_len(preds); i++) {
        const sts_jval *p = sts_json_at(preds, i);
        char key[300];
        snprintf(key, sizeof key, "%s: %s", sts_json_str(sts_json_get(p, "result"), "?"),
                 sts_json_str(sts_json_get(p, "expect"), "?"));
        sts_rpt_fact(r, f, key, "%s", sts_json_str(sts_json_get(p, "why"), ""));
    }
}

sts_status sts_report_add_diff_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err)
{
    if (!r || !text) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no text given");
    name = name ? name : "(diff json)";
    sts_jdoc doc = STS_JDOC_INIT;
    sts_status st = sts_json_parse(&doc, text, len, name, err);
    const char *schema = st == STS_OK ? sts_json_str(sts_json_get(doc.root, "schema"), "") : "";
    const sts_jval *rows = st == STS_OK ? sts_json_get(doc.root, "intervals") : NULL;
    if (st == STS_OK && (strncmp(schema, "stepscope.diff/", 15) != 0 || !rows || rows->type != STS_J_ARR))
        st = sts_error_set(
            err, STS_ERR_FORMAT, 0,
            "%s: not a diff result: expected \"schema\": \"stepscope.diff/1\" and an \"intervals\" array", name);
    sts_rpt_section *sec = st == STS_OK ? sts_rpt_section_new(r, "diff", "Diff: before and after", name) : NULL;
    sts_rpt_diff *d = sec ? sts_rpt_alloc(r, sizeof *d) : NULL;
    const sts_jval *pick[MAX_ROWS];
    if (st == STS_OK && (!sec || !d)) st = sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    if (st == STS_OK) st = check_rows(r, rows, name, err);
    if (st == STS_OK) {
        const sts_jval *preds = sts_json_get(doc.root, "predictions");
        facts(r, sec, doc.root);
        const sts_jval *notes = sts_json_get(doc.root, "notes");
        for (size_t i = 0; i < sts_json_len(notes); i++)
            sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, sts_json_str(sts_json_at(notes, i), ""));
        predictions(r, sec, preds);
        d->confidence = sts_json_num(sts_json_get(doc.root, "confidence"), 0.95);
        d->margin_pct = sts_json_num(sts_json_get(doc.root, "margin_pct"), 5);
        d->sample = sts_rpt_strdup(r, sts_json_str(sts_json_get(doc.root, "samples"), "sample"));
        d->total = sts_json_len(rows);
        d->n = choose(rows, preds, pick);
        d->rows = sts_rpt_alloc(r, (d->n + 1) * sizeof *d->rows);
        if (!d->rows) st = sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
        for (size_t i = 0; st == STS_OK && i < d->n; i++)
            st = fill_row(r, pick[i], preds, name, &d->rows[i], err);
    }
    if (st == STS_OK && !sts_rpt_add_fig(r, sec, STS_RPT_FIG_DIFF, "fig-diff", d, HOW_DIFF))
        st = sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    sts_jdoc_release(&doc);
    if (st == STS_OK) sts_rpt_section_commit(r, sec);
    return st;
}
