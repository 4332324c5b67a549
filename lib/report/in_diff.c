/* A diff section (`stepscope diff --json`, schema "stepscope.diff/1", docs/diff.md): the
 * two runs, the predictions with their verdicts and reasons, and the before/after
 * figure of the rows that matter most: those the predictions named, then the step and
 * its children (or the bench workloads, compile times and host waits). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_impl.h"
#include "stepscope/diff.h"

#define MAX_ROWS 8

static const char HOW_DIFF[] =
    "Each row is one interval. On the left, every sample of BASE (circles, upper line) and NEW (squares, lower "
    "line) on one time axis for that row, with lines joining the samples of the same step; the short bars are the "
    "medians. The shaded bar on the NEW line is BASE's median plus the confidence interval of the shift "
    "(Hodges-Lehmann): where NEW's center plausibly lies. On the right, the change in percent of BASE's median "
    "with the same interval, on one axis for every row; the grey band is the margin within which a change counts "
    "as \"same\". An interval that crosses 0 and leaves the band cannot tell: the verdict is inconclusive. A "
    "dotted bar across a row is what a prediction said before the change (step:shrink>=17%, as stepscope steps "
    "--what-if prints it): the outcome beside the prediction.";

/* Groups drawn after the predicted rows, in this order of preference. */
static const char *const preferred[] = { "step", "child",  "unattributed", "lane",
                                         "warm", "device", "compile_time", "wait" };

/* Whether a side's samples are in the document: written unless the row is absent
 * from that run, or too long to write. */
static int has_samples(const sts_diff_interval *row, int which)
{
    const sts_diff_stats *s = &row->stats;
    size_t n = which ? s->n_new : s->n_base;
    if (n) return (which ? row->new_samples : row->base_samples) != NULL;
    return !(which ? s->verdict == STS_DIFF_APPEARED : s->verdict == STS_DIFF_DISAPPEARED);
}

static int drawable(const sts_diff_interval *row)
{
    return strcmp(row->unit, "ns") == 0 && row->stats.method != STS_DIFF_METHOD_SINGLE &&
           (has_samples(row, 0) || has_samples(row, 1));
}

/* A side's samples and step numbers as the figure draws them (ordinals without step
 * numbers), its median (NAN when the side is empty). */
static sts_status side(sts_report *r, const sts_diff_interval *row, int which, double **v, double **idx, size_t *n,
                       double *med)
{
    const sts_diff_stats *s = &row->stats;
    const int64_t *x = which ? row->new_samples : row->base_samples, *k = which ? row->new_index : row->base_index;
    size_t count = which ? s->n_new : s->n_base;
    *n = x ? count : 0;
    *med = count ? (double)(which ? s->median_new : s->median_base) : NAN;
    *v = sts_rpt_alloc(r, (*n + 1) * sizeof **v);
    *idx = sts_rpt_alloc(r, (*n + 1) * sizeof **idx);
    if (!*v || !*idx) return STS_ERR_NOMEM;
    for (size_t i = 0; i < *n; i++) {
        (*v)[i] = (double)x[i];
        (*idx)[i] = k ? (double)k[i] : (double)i;
    }
    return STS_OK;
}

static const char *prediction_of(const sts_diff *d, const char *key)
{
    size_t n;
    const sts_diff_prediction *p = sts_diff_predictions(d, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].key, key) == 0) return sts_diff_result_name(p[i].result);
    return NULL;
}

/* The first prediction of the row that states a size for a shrink or a grow (what
 * `steps --what-if` prints: step:shrink>=17%), as a signed change; NAN when none. */
static double predicted_bound(const sts_diff *d, const char *key)
{
    size_t n;
    const sts_diff_prediction *p = sts_diff_predictions(d, &n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(p[i].key, key) != 0 || !isfinite(p[i].size_pct) || p[i].direction == STS_DIFF_EXPECT_SAME) continue;
        return p[i].direction == STS_DIFF_EXPECT_SHRINK ? -p[i].size_pct : p[i].size_pct;
    }
    return NAN;
}

static sts_status fill_row(sts_report *r, const sts_diff *d, const sts_diff_interval *j, const char *name,
                           sts_rpt_diff_row *row, sts_error *err)
{
    const sts_diff_stats *s = &j->stats;
    row->key = sts_rpt_strdup(r, j->key);
    row->verdict = sts_rpt_strdup(r, sts_diff_verdict_name(s->verdict));
    row->method = sts_rpt_strdup(r, sts_diff_method_name(s->method));
    const char *p = prediction_of(d, j->key);
    row->prediction = p ? sts_rpt_strdup(r, p) : NULL;
    row->predicted_pct = predicted_bound(d, j->key);
    if (side(r, j, 0, &row->base, &row->bidx, &row->nb, &row->med_base) != STS_OK ||
        side(r, j, 1, &row->new_, &row->nidx, &row->nn, &row->med_new) != STS_OK)
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    row->change_pct = s->change_pct;
    row->lo_pct = s->ci_low_pct;
    row->hi_pct = s->ci_high_pct;
    row->lo_ns = s->ci_low_ns;
    row->hi_ns = s->ci_high_ns;
    row->p = s->p_value;
    return STS_OK;
}

static int picked(const sts_diff_interval *const *pick, size_t n, const sts_diff_interval *row)
{
    for (size_t q = 0; q < n; q++)
        if (pick[q] == row) return 1;
    return 0;
}

/* The rows to draw: named by a prediction first, then by preferred group. */
static size_t choose(const sts_diff *d, const sts_diff_interval **pick)
{
    size_t n = 0, nrows, npreds;
    const sts_diff_interval *rows = sts_diff_intervals(d, &nrows);
    const sts_diff_prediction *preds = sts_diff_predictions(d, &npreds);
    for (size_t i = 0; i < npreds && n < MAX_ROWS; i++)
        for (size_t k = 0; k < nrows; k++)
            if (strcmp(rows[k].key, preds[i].key) == 0 && drawable(&rows[k]) && !picked(pick, n, &rows[k]))
                pick[n++] = &rows[k];
    for (size_t g = 0; g < sizeof preferred / sizeof preferred[0]; g++)
        for (size_t k = 0; k < nrows && n < MAX_ROWS; k++)
            if (strcmp(rows[k].group, preferred[g]) == 0 && drawable(&rows[k]) && !picked(pick, n, &rows[k]))
                pick[n++] = &rows[k];
    return n;
}

static void facts(sts_report *r, sts_rpt_section *sec, const sts_diff *d)
{
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    const char *kind = sts_diff_kind_name(sts_diff_get_kind(d));
    sts_rpt_fact(r, f, "compares", "two %s%s", kind, strcmp(kind, "bench") == 0 ? " results" : "s");
    for (int i = 0; i < 2; i++) {
        const char *nm = i ? sts_diff_new_name(d) : sts_diff_base_name(d), *step = NULL;
        size_t steps = sts_diff_run_steps(d, i, &step, NULL);
        if (sts_diff_get_kind(d) == STS_DIFF_KIND_TRACE)
            sts_rpt_fact(r, f, i ? "NEW" : "BASE", "%s (%zu %s steps)", nm, steps, step ? step : "?");
        else
            sts_rpt_fact(r, f, i ? "NEW" : "BASE", "%s", nm);
    }
    const sts_diff_options *o = sts_diff_get_options(d);
    sts_rpt_fact(r, f, "one sample per", "%s", sts_diff_samples_word(d));
    sts_rpt_fact(r, f, "confidence", "%g%%", 100 * o->confidence);
    sts_rpt_fact(r, f, "\"same\" within", "\xc2\xb1%g%%", o->margin_pct);
    size_t n, by[STS_DIFF_DISAPPEARED + 1] = { 0 };
    const sts_diff_interval *rows = sts_diff_intervals(d, &n);
    for (size_t i = 0; i < n; i++)
        by[rows[i].stats.verdict]++;
    sts_rpt_fact(r, f, "intervals",
                 "%zu: %zu shrank, %zu grew, %zu same, %zu inconclusive, %zu appeared, %zu disappeared", n,
                 by[STS_DIFF_SHRANK], by[STS_DIFF_GREW], by[STS_DIFF_SAME], by[STS_DIFF_INCONCLUSIVE],
                 by[STS_DIFF_APPEARED], by[STS_DIFF_DISAPPEARED]);
}

static void predictions(sts_report *r, sts_rpt_section *sec, const sts_diff *d)
{
    size_t n;
    const sts_diff_prediction *p = sts_diff_predictions(d, &n);
    if (!n) return;
    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Predictions");
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    for (size_t i = 0; i < n; i++) {
        char key[300];
        snprintf(key, sizeof key, "%s: %s", sts_diff_result_name(p[i].result), p[i].expect);
        sts_rpt_fact(r, f, key, "%s", p[i].why);
    }
}

static sts_status add_section(sts_report *r, const sts_diff *d, const char *name, sts_error *err)
{
    sts_rpt_section *sec = sts_rpt_section_new(r, "diff", "Diff: before and after", name);
    sts_rpt_diff *fig = sec ? sts_rpt_alloc(r, sizeof *fig) : NULL;
    if (!sec || !fig) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    facts(r, sec, d);
    size_t nn;
    const char *const *notes = sts_diff_notes(d, &nn);
    for (size_t i = 0; i < nn; i++)
        sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, notes[i]);
    predictions(r, sec, d);
    const sts_diff_interval *pick[MAX_ROWS];
    fig->confidence = sts_diff_get_options(d)->confidence;
    fig->margin_pct = sts_diff_get_options(d)->margin_pct;
    fig->sample = sts_rpt_strdup(r, sts_diff_samples_word(d));
    sts_diff_intervals(d, &fig->total);
    fig->n = choose(d, pick);
    fig->rows = sts_rpt_alloc(r, (fig->n + 1) * sizeof *fig->rows);
    if (!fig->rows) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    for (size_t i = 0; i < fig->n; i++) {
        sts_status st = fill_row(r, d, pick[i], name, &fig->rows[i], err);
        if (st != STS_OK) return st;
    }
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_DIFF, "fig-diff", fig, HOW_DIFF))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    sts_rpt_section_commit(r, sec);
    return STS_OK;
}

sts_status sts_report_add_diff_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err)
{
    if (!r || !text) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no text given");
    name = name ? name : "(diff json)";
    sts_diff *d = NULL;
    sts_status st = sts_diff_read_json(text, len, name, &d, err);
    if (st == STS_OK) st = add_section(r, d, name, err);
    sts_diff_free(d);
    return st;
}
