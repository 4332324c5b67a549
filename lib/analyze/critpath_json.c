/* The critical path's JSON, one writer for `steps --critical-path --json` and the Python
 * binding (schemas in docs/json-schemas.md). */
#include <math.h>
#include <stdio.h>

#include "analyze/critpath_impl.h"
#include "analyze/json_impl.h"

#define K(j, key) sts_jsonw_key((j), (key))

static void lane_label(sts_jsonw *j, const sts_timeline *tl, uint32_t lane)
{
    if (lane == STS_NONE) {
        sts_jsonw_null(j);
        return;
    }
    char buf[300];
    const char *t = sts_lane_thread_name(tl, lane);
    if (*t)
        snprintf(buf, sizeof buf, "%s (pid %s)", t, sts_lane_pid(tl, lane));
    else
        snprintf(buf, sizeof buf, "pid %s tid %s", sts_lane_pid(tl, lane), sts_lane_tid(tl, lane));
    sts_jsonw_str(j, buf);
}

void sts_critpath_write_step_json(sts_jsonw *w, const sts_timeline *tl, const sts_critpath *cp, size_t k)
{
    if (!cp || k >= cp->nsteps || !cp->steps[k].known) {
        sts_jsonw_null(w);
        return;
    }
    const sts_cp_step *ps = &cp->steps[k];
    const sts_slice *sl = sts_timeline_slices(tl, NULL);
    sts_jsonw_obj_begin(w);
    K(w, "length_ns"), sts_jsonw_i64(w, ps->length_ns);
    K(w, "by_kind");
    sts_jsonw_obj_begin(w);
    for (int c = 0; c < STS_CP_KINDS; c++)
        K(w, sts_cp_kind_name((sts_cp_kind)c)), sts_jsonw_i64(w, ps->by_kind_ns[c]);
    sts_jsonw_obj_end(w);
    K(w, "intervals");
    sts_jsonw_arr_begin(w);
    for (uint32_t i = ps->first_interval; i < ps->first_interval + ps->interval_count; i++) {
        const sts_cp_interval *x = &cp->iv[i];
        sts_jsonw_obj_begin(w);
        K(w, "name");
        if (x->slice == STS_NONE)
            sts_jsonw_null(w);
        else
            sts_jsonw_str(w, sts_timeline_string(tl, sl[x->slice].name));
        K(w, "lane"), lane_label(w, tl, x->lane);
        K(w, "ts_ns"), sts_jsonw_i64(w, x->ts_ns);
        K(w, "dur_ns"), sts_jsonw_i64(w, x->dur_ns);
        K(w, "kind"), sts_jsonw_str(w, sts_cp_kind_name((sts_cp_kind)x->kind));
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
}

static void f64_or_null(sts_jsonw *w, double v)
{
    if (isfinite(v))
        sts_jsonw_f64(w, v);
    else
        sts_jsonw_null(w);
}

void sts_critpath_write_what_if_json(sts_jsonw *w, const sts_critpath *cp)
{
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; cp && i < cp->npred; i++) {
        const sts_cp_prediction *p = &cp->pred[i];
        sts_jsonw_obj_begin(w);
        K(w, "change"), sts_jsonw_str(w, p->change);
        K(w, "matched"), sts_jsonw_u64(w, p->matched);
        K(w, "original_ns"), sts_jsonw_i64(w, p->original_ns);
        K(w, "predicted_ns"), sts_jsonw_i64(w, p->predicted_ns);
        K(w, "predicted_step_ns"), sts_jsonw_i64(w, p->predicted_step_ns);
        K(w, "predicted_change_pct"), f64_or_null(w, p->change_pct);
        K(w, "min_change_pct"), f64_or_null(w, p->min_pct);
        K(w, "max_change_pct"), f64_or_null(w, p->max_pct);
        K(w, "path_moved"), sts_jsonw_bool(w, p->path_moved);
        K(w, "expect"), sts_jsonw_str(w, p->expect);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
}

/* The top-level "critical_path" object of the steps document. */
void sts_critpath_write_summary_json(sts_jsonw *w, const sts_critpath *cp)
{
    sts_jsonw_obj_begin(w);
    K(w, "nodes"), sts_jsonw_u64(w, cp->counts.nodes);
    K(w, "edges"), sts_jsonw_u64(w, cp->counts.edges);
    static const char *const T[CP_E_TYPES] = { "program", "launch", "stream", "sync", "flow", "stream_wait" };
    K(w, "edges_by_type");
    sts_jsonw_obj_begin(w);
    for (int t = 0; t < CP_E_TYPES; t++)
        K(w, T[t]), sts_jsonw_u64(w, cp->counts.by_type[t]);
    sts_jsonw_obj_end(w);
    K(w, "dropped_backward"), sts_jsonw_u64(w, cp->counts.backward);
    K(w, "dropped_cycles"), sts_jsonw_u64(w, cp->counts.cycles);
    K(w, "warnings");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < cp->nwarnings; i++)
        sts_jsonw_str(w, cp->warnings[i]);
    sts_jsonw_arr_end(w);
    K(w, "what_if"), sts_critpath_write_what_if_json(w, cp);
    sts_jsonw_obj_end(w);
}
