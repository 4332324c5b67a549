/* The diff as JSON, schema stepscope.diff/1 (docs/diff.md). Unknown and inapplicable
 * numbers are null, never 0. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/diff_impl.h"
#include "stepscope/json.h"

/* Sample arrays longer than this are left out (per-slice samples of a huge trace). */
#define MAX_SAMPLES_WRITTEN 100000

static void i64_array(sts_jsonw *w, const char *k, const int64_t *v, size_t n)
{
    sts_jsonw_key(w, k);
    if (n > MAX_SAMPLES_WRITTEN || !v) { /* too many, or (read back) not written */
        sts_jsonw_null(w);
        return;
    }
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        sts_jsonw_i64(w, v[i]);
    sts_jsonw_arr_end(w);
}

static void write_side(sts_jsonw *w, const sts_diff_interval *r, int side)
{
    const sts_diff_stats *s = &r->stats;
    size_t n = side ? s->n_new : s->n_base;
    int present = n > 0 || !(side ? s->verdict == STS_DIFF_APPEARED : s->verdict == STS_DIFF_DISAPPEARED);
    sts_jsonw_key(w, side ? "new" : "base");
    if (!present || (n == 0 && strcmp(r->unit, "count") == 0)) {
        sts_jsonw_null(w);
        return;
    }
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_u64(w, "n", n);
    int count = strcmp(r->unit, "count") == 0 || strcmp(r->unit, "bytes") == 0; /* keys without _ns */
    const char *med = count ? "median" : "median_ns", *mn = count ? "min" : "min_ns", *mx = count ? "max" : "max_ns";
    if (n)
        sts_jsonw_kv_i64(w, med, side ? s->median_new : s->median_base);
    else
        sts_jsonw_kv_null(w, med);
    if (n)
        sts_jsonw_kv_i64(w, mn, side ? s->min_new : s->min_base);
    else
        sts_jsonw_kv_null(w, mn);
    if (n)
        sts_jsonw_kv_i64(w, mx, side ? s->max_new : s->max_base);
    else
        sts_jsonw_kv_null(w, mx);
    i64_array(w, count ? "samples" : "samples_ns", side ? r->new_samples : r->base_samples, n);
    i64_array(w, "index", side ? r->new_index : r->base_index, n);
    sts_jsonw_obj_end(w);
}

static void write_interval(sts_jsonw *w, const sts_diff_interval *r)
{
    const sts_diff_stats *s = &r->stats;
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "name", r->name);
    sts_jsonw_kv_str(w, "key", r->key);
    sts_jsonw_kv_str(w, "group", r->group);
    sts_jsonw_kv_str(w, "unit", r->unit);
    sts_jsonw_kv_str(w, "sample", r->sample);
    write_side(w, r, 0);
    write_side(w, r, 1);
    sts_jsonw_kv_f64(w, "change_pct", s->change_pct);
    sts_jsonw_kv_f64(w, "ci_low_pct", s->ci_low_pct);
    sts_jsonw_kv_f64(w, "ci_high_pct", s->ci_high_pct);
    sts_jsonw_kv_f64(w, "shift_ns", s->shift_ns);
    sts_jsonw_kv_f64(w, "ci_low_ns", s->ci_low_ns);
    sts_jsonw_kv_f64(w, "ci_high_ns", s->ci_high_ns);
    if (isnan(s->ci_low_ns))
        sts_jsonw_kv_null(w, "ci_bounded");
    else
        sts_jsonw_kv_bool(w, "ci_bounded", isfinite(s->ci_low_ns) && isfinite(s->ci_high_ns));
    sts_jsonw_kv_f64(w, "ci_level", s->ci_level);
    sts_jsonw_kv_f64(w, "u", s->u);
    sts_jsonw_kv_f64(w, "p_value", s->p_value);
    sts_jsonw_kv_str(w, "method", sts_diff_method_name(s->method));
    sts_jsonw_kv_str(w, "verdict", sts_diff_verdict_name(s->verdict));
    sts_jsonw_kv_f64(w, "spread_pct", s->spread_pct);
    if (s->samples_needed)
        sts_jsonw_kv_u64(w, "samples_needed", s->samples_needed);
    else
        sts_jsonw_kv_null(w, "samples_needed");
    sts_jsonw_kv_str(w, "note", r->note);
    sts_jsonw_obj_end(w);
}

static void write_run(sts_jsonw *w, const sts_diff *d, int side)
{
    const sts_dd_side *s = &d->side[side];
    sts_jsonw_key(w, side ? "new" : "base");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "name", s->name);
    if (d->kind == STS_DIFF_KIND_TRACE) {
        sts_jsonw_kv_u64(w, "steps", s->steps);
        sts_jsonw_kv_str(w, "step_name", s->step_name);
        sts_jsonw_kv_str(w, "step_rule", s->rule);
    }
    sts_jsonw_obj_end(w);
}

static void write_prediction(sts_jsonw *w, const sts_diff_prediction *p)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "expect", p->expect);
    sts_jsonw_kv_str(w, "key", p->key);
    sts_jsonw_kv_str(w, "direction", sts_dd_direction_name(p->direction));
    sts_jsonw_kv_f64(w, "size_pct", p->size_pct);
    sts_jsonw_kv_str(w, "result", sts_diff_result_name(p->result));
    sts_jsonw_kv_str(w, "why", p->why);
    sts_jsonw_obj_end(w);
}

static void write_summary(sts_jsonw *w, const sts_diff *d)
{
    size_t by[STS_DIFF_DISAPPEARED + 1] = { 0 }, res[3] = { 0 };
    for (size_t i = 0; i < d->rows.n; i++)
        by[d->rows.v[i].stats.verdict]++;
    for (size_t i = 0; i < d->preds.n; i++)
        res[d->preds.v[i].result]++;
    sts_jsonw_key(w, "summary");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_u64(w, "intervals", d->rows.n);
    for (int v = 0; v <= STS_DIFF_DISAPPEARED; v++) {
        sts_jsonw_kv_u64(w, sts_diff_verdict_name((sts_diff_verdict)v), by[v]);
    }
    sts_jsonw_key(w, "predictions");
    sts_jsonw_obj_begin(w);
    for (int r = 0; r < 3; r++) {
        sts_jsonw_kv_u64(w, sts_diff_result_name((sts_diff_result)r), res[r]);
    }
    sts_jsonw_obj_end(w);
    sts_jsonw_kv_i64(w, "exit_status", sts_diff_exit_status(d));
    sts_jsonw_obj_end(w);
}

static void write_document(sts_jsonw *w, const sts_diff *d)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "schema", "stepscope.diff/1");
    sts_jsonw_kv_str(w, "kind", sts_diff_kind_name(d->kind));
    write_run(w, d, 0);
    write_run(w, d, 1);
    sts_jsonw_kv_f64(w, "confidence", d->opt.confidence);
    sts_jsonw_kv_f64(w, "margin_pct", d->opt.margin_pct);
    sts_jsonw_kv_str(w, "samples", d->samples_word);
    sts_jsonw_key(w, "notes");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < d->notes.n; i++)
        sts_jsonw_str(w, d->notes.v[i]);
    sts_jsonw_arr_end(w);
    sts_jsonw_key(w, "intervals");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < d->rows.n; i++)
        write_interval(w, &d->rows.v[i]);
    sts_jsonw_arr_end(w);
    sts_jsonw_key(w, "predictions");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < d->preds.n; i++)
        write_prediction(w, &d->preds.v[i]);
    sts_jsonw_arr_end(w);
    write_summary(w, d);
    sts_jsonw_obj_end(w);
}

sts_status sts_diff_write_json(const sts_diff *d, FILE *f, sts_error *err)
{
    sts_jsonw *w = sts_jsonw_create(f, STS_JSON_TWO_LEVELS);
    if (!w) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    write_document(w, d);
    sts_status st = sts_jsonw_finish(w);
    sts_jsonw_free(w);
    if (st != STS_OK) return sts_error_set(err, st, -1, "diff: cannot write the JSON output (%s)", sts_strerror(st));
    return STS_OK;
}
