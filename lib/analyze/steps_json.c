/* `steps --json`'s document, one writer for the CLI and the Python binding. */
#include "analyze/json_impl.h"
#include "analyze/critpath_impl.h"
#include "stepscope/devview.h"
#include "stepscope/hostsync.h"

static void windows(sts_jsonw *j, const sts_timeline *tl, const sts_steps *s, const sts_step *x)
{
    const sts_step_window *w = sts_steps_windows(s, NULL);
    const sts_window_name *wn = sts_steps_window_names(s, NULL);
    sts_jsonw_key(j, "windows");
    sts_jsonw_arr_begin(j);
    for (uint32_t i = x->first_window; i < x->first_window + x->window_count; i++) {
        sts_jsonw_obj_begin(j);
        sts_an_json_lane_fields(j, tl, w[i].lane);
        sts_jsonw_kv_i64(j, "busy_ns", w[i].busy_ns);
        sts_jsonw_key(j, "names");
        sts_jsonw_arr_begin(j);
        for (uint32_t m = w[i].first_name; m < w[i].first_name + w[i].name_count; m++) {
            sts_jsonw_obj_begin(j);
            sts_jsonw_kv_str(j, "name", sts_timeline_string(tl, wn[m].name));
            sts_jsonw_kv_i64(j, "ns", wn[m].ns);
            sts_jsonw_obj_end(j);
        }
        sts_jsonw_arr_end(j);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void partial(sts_jsonw *j, uint32_t f)
{
    sts_jsonw_kv_bool(j, "partial", (f & STS_STEP_PARTIAL) != 0);
    sts_jsonw_key(j, "partial_reasons");
    sts_jsonw_arr_begin(j);
    if (f & STS_STEP_UNCLOSED) sts_jsonw_str(j, "unclosed");
    if (f & STS_STEP_AT_TRACE_START) sts_jsonw_str(j, "at_trace_start");
    if (f & STS_STEP_AT_TRACE_END) sts_jsonw_str(j, "at_trace_end");
    sts_jsonw_arr_end(j);
}

/* A step's children by name: their time, then (a second object) their counts. */
static void children_of(sts_jsonw *j, const sts_timeline *tl, const sts_step_child *ch, const sts_step *x)
{
    sts_jsonw_key(j, "children");
    sts_jsonw_obj_begin(j);
    for (uint32_t c = x->first_child; c < x->first_child + x->child_count; c++)
        sts_jsonw_kv_i64(j, sts_timeline_string(tl, ch[c].name), ch[c].total_ns);
    sts_jsonw_obj_end(j);
    sts_jsonw_key(j, "child_counts");
    sts_jsonw_obj_begin(j);
    for (uint32_t c = x->first_child; c < x->first_child + x->child_count; c++)
        sts_jsonw_kv_u64(j, sts_timeline_string(tl, ch[c].name), ch[c].count);
    sts_jsonw_obj_end(j);
}

static void steps(sts_jsonw *j, const sts_timeline *tl, const sts_steps *s, const sts_devview *dv,
                  const sts_critpath *cp, const sts_host_syncs *h)
{
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    const sts_step_child *ch = sts_steps_children(s, NULL);
    sts_jsonw_key(j, "steps");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        const sts_step *x = &st[k];
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_str(j, "name", sts_timeline_string(tl, x->name));
        sts_jsonw_kv_i64(j, "index", x->index);
        sts_jsonw_kv_i64(j, "ts_ns", x->ts);
        sts_jsonw_kv_i64(j, "dur_ns", x->dur);
        partial(j, x->flags);
        children_of(j, tl, ch, x);
        sts_jsonw_kv_i64(j, "children_ns", x->children_ns);
        sts_jsonw_kv_i64(j, "unattributed_ns", x->unattributed_ns);
        sts_jsonw_kv_i64(j, "naive_ns", x->naive_ns);
        windows(j, tl, s, x);
        sts_an_json_host_syncs(j, tl, h, (uint32_t)k);
        if (dv) {
            size_t nd;
            const sts_devview_window *dw = sts_devview_step_windows(dv, k, &nd);
            sts_jsonw_key(j, "devices");
            sts_devview_write_windows_json(j, tl, dv, dw, nd);
        }
        if (cp) {
            sts_jsonw_key(j, "critical_path");
            sts_critpath_write_step_json(j, tl, cp, k);
        }
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void children(sts_jsonw *j, const sts_timeline *tl, const sts_steps *s)
{
    size_t n;
    const sts_step_child_stats *cs = sts_steps_child_stats(s, &n);
    sts_jsonw_key(j, "children");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        const sts_step_child_stats *c = &cs[i];
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_str(j, "name", sts_timeline_string(tl, c->name));
        sts_jsonw_kv_u64(j, "steps", c->steps);
        sts_jsonw_kv_u64(j, "count", c->count);
        sts_jsonw_kv_i64(j, "total_ns", c->total_ns);
        sts_jsonw_kv_i64(j, "min_ns", c->min_ns);
        sts_jsonw_kv_i64(j, "median_ns", c->median_ns);
        sts_jsonw_kv_i64(j, "max_ns", c->max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void window_lanes(sts_jsonw *j, const sts_timeline *tl, const sts_steps *s)
{
    size_t n;
    const sts_window_lane_stats *wl = sts_steps_window_lanes(s, &n);
    sts_jsonw_key(j, "window_lanes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        sts_jsonw_obj_begin(j);
        sts_an_json_lane_fields(j, tl, wl[i].lane);
        sts_jsonw_kv_u64(j, "steps", wl[i].steps);
        sts_jsonw_kv_i64(j, "total_ns", wl[i].total_ns);
        sts_jsonw_kv_i64(j, "min_ns", wl[i].min_ns);
        sts_jsonw_kv_i64(j, "median_ns", wl[i].median_ns);
        sts_jsonw_kv_i64(j, "max_ns", wl[i].max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void summary(sts_jsonw *j, const sts_steps *s)
{
    const sts_steps_summary *y = sts_steps_get_summary(s);
    sts_jsonw_key(j, "summary");
    sts_jsonw_obj_begin(j);
    sts_jsonw_kv_u64(j, "steps", y->steps);
    sts_jsonw_kv_i64(j, "total_ns", y->total_ns);
    sts_jsonw_kv_i64(j, "min_ns", y->min_ns);
    sts_jsonw_kv_i64(j, "median_ns", y->median_ns);
    sts_jsonw_kv_i64(j, "max_ns", y->max_ns);
    sts_jsonw_kv_f64(j, "mean_ns", y->mean_ns);
    sts_jsonw_kv_f64(j, "stddev_ns", y->stddev_ns);
    sts_jsonw_kv_u64(j, "partial", y->partial);
    sts_jsonw_kv_u64(j, "dropped", sts_steps_dropped(s));
    sts_jsonw_kv_u64(j, "out_of_range", sts_steps_out_of_range(s));
    sts_jsonw_kv_i64(j, "children_ns", y->children_ns);
    sts_jsonw_kv_i64(j, "unattributed_ns", y->unattributed_ns);
    sts_jsonw_kv_i64(j, "unattributed_min_ns", y->unattributed_min_ns);
    sts_jsonw_kv_i64(j, "unattributed_median_ns", y->unattributed_median_ns);
    sts_jsonw_kv_i64(j, "unattributed_max_ns", y->unattributed_max_ns);
    sts_jsonw_kv_i64(j, "naive_ns", y->naive_ns);
    sts_jsonw_obj_end(j);
}

/* The document, with each step's device windows and the device summary when dv is given. */
static sts_status write_doc(sts_jsonw *w, const sts_timeline *tl, const sts_steps *s, int xprof_view,
                            const sts_devview *dv, const sts_critpath *cp, sts_error *err)
{
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    if (sts_steps_rule(s) == STS_STEP_RULE_NONE || !n)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "steps JSON: no steps found in %s (sts_steps_tried() says what was looked for)",
                             sts_timeline_get_info(tl)->path);
    sts_host_syncs *h = NULL;
    sts_status rc = sts_host_syncs_find(tl, s, &h, err);
    if (rc != STS_OK) return rc;
    sts_step_rule rule = sts_steps_rule(s);
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "trace", sts_timeline_get_info(tl)->path);
    sts_jsonw_kv_str(w, "rule", sts_step_rule_name(rule));
    sts_jsonw_kv_str(w, "rule_description", sts_step_rule_description(rule));
    sts_jsonw_key(w, "lane");
    sts_jsonw_obj_begin(w);
    sts_an_json_lane_fields(w, tl, st[0].lane);
    sts_jsonw_obj_end(w);
    sts_jsonw_kv_u64(w, "other_lanes", sts_steps_other_lanes(s));
    sts_jsonw_kv_u64(w, "bookkeeping_lanes", sts_steps_bookkeeping_lanes(s));
    sts_jsonw_kv_bool(w, "xprof_view", xprof_view);
    sts_jsonw_kv_u64(w, "host_syncs_outside_steps", sts_host_syncs_outside(h));
    steps(w, tl, s, dv, cp, h);
    sts_host_syncs_free(h);
    children(w, tl, s);
    window_lanes(w, tl, s);
    summary(w, s);
    if (dv) {
        sts_jsonw_key(w, "device");
        sts_devview_write_json(w, tl, dv);
    }
    if (cp) {
        sts_jsonw_key(w, "critical_path");
        sts_critpath_write_summary_json(w, cp);
    }
    sts_jsonw_obj_end(w);
    return STS_OK;
}

sts_status sts_steps_write_json(sts_jsonw *w, const sts_timeline *tl, const sts_steps *s, int xprof_view,
                                sts_error *err)
{
    return write_doc(w, tl, s, xprof_view, NULL, NULL, err);
}

sts_status sts_steps_write_json_device(sts_jsonw *w, const sts_timeline *tl, const sts_steps *s, int xprof_view,
                                       const sts_devview *v, sts_error *err)
{
    size_t n;
    sts_steps_list(s, &n);
    if (v && n && (!sts_devview_has_steps(v) || !sts_devview_step_windows(v, n - 1, NULL)))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "steps JSON: the device view was not computed for these steps (options.steps)");
    return write_doc(w, tl, s, xprof_view, v, NULL, err);
}

sts_status sts_steps_write_json_critpath(sts_jsonw *w, const sts_timeline *tl, const sts_steps *s, int xprof_view,
                                         const sts_devview *dv, const sts_critpath *cp, sts_error *err)
{
    size_t n;
    sts_steps_list(s, &n);
    if (!cp || cp->nsteps != n)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "steps JSON: the critical path was not computed for these steps");
    if (dv && n && (!sts_devview_has_steps(dv) || !sts_devview_step_windows(dv, n - 1, NULL)))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "steps JSON: the device view was not computed for these steps (options.steps)");
    return write_doc(w, tl, s, xprof_view, dv, cp, err);
}
