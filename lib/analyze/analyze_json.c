/* `analyze --json`: the trace's facts, the scope, names, lanes and processes of a
 * scoped analysis and the overlaps. One writer for the CLI and the Python binding, so
 * their documents cannot drift apart (tests/python compares them). */
#include <stdlib.h>

#include "analyze/an_impl.h"
#include "analyze/json_impl.h"

#define K(j, key) sts_jsonw_key((j), (key))

void sts_an_json_lane_fields(sts_jsonw *j, const sts_timeline *tl, uint32_t lane)
{
    K(j, "pid"), sts_jsonw_str(j, sts_lane_pid(tl, lane));
    K(j, "tid"), sts_jsonw_str(j, sts_lane_tid(tl, lane));
    K(j, "process"), sts_jsonw_str(j, sts_lane_process_name(tl, lane));
    K(j, "thread"), sts_jsonw_str(j, sts_lane_thread_name(tl, lane));
}

void sts_busy_write_json(sts_jsonw *w, const sts_busy *b)
{
    K(w, "slices"), sts_jsonw_u64(w, b->slices);
    K(w, "union_ns"), sts_jsonw_i64(w, b->union_ns);
    K(w, "span_ns"), sts_jsonw_i64(w, b->span_ns);
    K(w, "start_ns"), sts_jsonw_i64(w, b->start_ns);
    K(w, "end_ns"), sts_jsonw_i64(w, b->end_ns);
}

void sts_phases_write_json(sts_jsonw *j, const uint64_t by_phase[128])
{
    sts_jsonw_obj_begin(j);
    for (int c = 0; c < 128; c++) {
        if (!by_phase[c]) continue;
        char k[2] = { (char)c, 0 };
        K(j, k), sts_jsonw_u64(j, by_phase[c]);
    }
    sts_jsonw_obj_end(j);
}

static void counts(sts_jsonw *j, const sts_timeline *tl)
{
    size_t n;
    sts_timeline_processes(tl, &n), K(j, "processes"), sts_jsonw_u64(j, n);
    sts_timeline_lanes(tl, &n), K(j, "lanes"), sts_jsonw_u64(j, n);
    sts_timeline_slices(tl, &n), K(j, "slices"), sts_jsonw_u64(j, n);
    sts_timeline_instants(tl, &n), K(j, "instants"), sts_jsonw_u64(j, n);
    sts_timeline_counters(tl, &n), K(j, "counters"), sts_jsonw_u64(j, n);
    sts_timeline_asyncs(tl, &n), K(j, "asyncs"), sts_jsonw_u64(j, n);
    K(j, "flows"), sts_jsonw_u64(j, sts_timeline_get_info(tl)->flows);
    sts_timeline_args(tl, &n), K(j, "args_kept"), sts_jsonw_u64(j, n);
}

static void repairs(sts_jsonw *j, const sts_timeline_info *in)
{
    K(j, "clamped"), sts_jsonw_u64(j, in->clamped);
    K(j, "overlaps"), sts_jsonw_u64(j, in->overlaps);
    K(j, "unmatched_end"), sts_jsonw_u64(j, in->unmatched_end);
    K(j, "unclosed_begin"), sts_jsonw_u64(j, in->unclosed_begin);
    K(j, "misplaced_end"), sts_jsonw_u64(j, in->misplaced_end);
    K(j, "repaired"), sts_jsonw_u64(j, in->repaired);
    K(j, "overflow_tracks"), sts_jsonw_u64(j, in->overflow_tracks);
    K(j, "skipped"), sts_jsonw_u64(j, in->skipped);
    K(j, "rejected"), sts_jsonw_u64(j, in->rejected);
}

void sts_timeline_info_write_json(sts_jsonw *w, const sts_timeline *tl, int64_t busy_ns)
{
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    sts_jsonw_obj_begin(w);
    K(w, "path"), sts_jsonw_str(w, in->path);
    K(w, "run"), sts_jsonw_str(w, in->run);
    K(w, "format"), sts_jsonw_str(w, in->format);
    K(w, "bytes"), sts_jsonw_u64(w, in->bytes);
    K(w, "compressed"), sts_jsonw_bool(w, in->compressed);
    K(w, "truncated"), sts_jsonw_bool(w, in->truncated);
    K(w, "events"), sts_jsonw_u64(w, in->events);
    K(w, "by_phase"), sts_phases_write_json(w, in->by_phase);
    counts(w, tl);
    K(w, "ts_min_ns"), sts_jsonw_i64(w, in->ts_min);
    K(w, "ts_max_ns"), sts_jsonw_i64(w, in->ts_max);
    K(w, "span_ns"), sts_jsonw_i64(w, in->ts_max - in->ts_min);
    K(w, "busy_ns"), sts_jsonw_i64(w, busy_ns);
    K(w, "resolution_ns"), sts_jsonw_i64(w, in->resolution_ns);
    K(w, "display_time_unit"), sts_jsonw_str(w, in->display_time_unit);
    repairs(w, in);
    size_t n;
    uint64_t total;
    const char *const *warn = sts_timeline_warnings(tl, &n, &total);
    K(w, "warnings_total"), sts_jsonw_u64(w, total);
    K(w, "warnings");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        sts_jsonw_str(w, warn[i]);
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
}

static const char *group_title(sts_group g)
{
    return g == STS_GROUP_HLO_OP ? "hlo_op" : g == STS_GROUP_HLO_MODULE ? "hlo_module" : "name";
}

static void scope(sts_jsonw *j, const sts_analysis *a)
{
    const sts_scope *sc = sts_analysis_scope(a);
    const sts_analysis_options *o = sts_analysis_get_options(a);
    K(j, "scope");
    sts_jsonw_obj_begin(j);
    K(j, "lane"), o->lane_pattern ? sts_jsonw_str(j, o->lane_pattern) : sts_jsonw_null(j);
    K(j, "lanes_matched"), o->lane_pattern ? sts_jsonw_u64(j, sc->nlanes) : sts_jsonw_null(j);
    K(j, "name"), sc->name ? sts_jsonw_str(j, sc->name) : sts_jsonw_null(j);
    K(j, "window");
    if (sc->windowed) {
        sts_jsonw_obj_begin(j);
        K(j, "start_ns"), sts_jsonw_i64(j, sc->start_ns);
        K(j, "end_ns"), sts_jsonw_i64(j, sc->end_ns);
        K(j, "step"), o->window_step != STS_NO_STEP ? sts_jsonw_i64(j, o->window_step) : sts_jsonw_null(j);
        sts_jsonw_obj_end(j);
    } else {
        sts_jsonw_null(j);
    }
    K(j, "group"), sts_jsonw_str(j, group_title(sc->group));
    sts_jsonw_obj_end(j);
}

static void names(sts_jsonw *j, const sts_analysis *a, size_t top)
{
    const sts_timeline *tl = sts_analysis_timeline(a);
    sts_group group = sts_analysis_scope(a)->group;
    size_t nn;
    const sts_name_summary *rows = sts_analysis_names(a, &nn);
    size_t show = top && top < nn ? top : nn;
    K(j, "names");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < show; i++) {
        const sts_name_summary *s = &rows[i];
        sts_jsonw_obj_begin(j);
        K(j, "name"), sts_jsonw_str(j, sts_timeline_string(tl, s->name));
        K(j, "count"), sts_jsonw_u64(j, s->count);
        K(j, "total_ns"), sts_jsonw_i64(j, s->total_ns);
        K(j, "self_ns"), sts_jsonw_i64(j, s->self_ns);
        K(j, "min_ns"), sts_jsonw_i64(j, s->min_ns);
        K(j, "median_ns"), sts_jsonw_i64(j, s->median_ns);
        K(j, "max_ns"), sts_jsonw_i64(j, s->max_ns);
        if (s->grouped) {
            K(j, "by"), sts_jsonw_str(j, group_title(group));
            if (group == STS_GROUP_HLO_OP) {
                K(j, "hlo_module");
                s->module != STS_NONE ? sts_jsonw_str(j, sts_timeline_string(tl, s->module)) : sts_jsonw_null(j);
            }
        }
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static int kept(const sts_scope *sc, uint32_t l)
{
    for (size_t i = 0; i < sc->nlanes; i++)
        if (sc->lanes[i] == l) return 1;
    return 0;
}

static void lanes(sts_jsonw *j, const sts_analysis *a)
{
    const sts_timeline *tl = sts_analysis_timeline(a);
    const sts_scope *sc = sts_analysis_scope(a);
    const sts_busy *busy = sts_analysis_lane_busy(a, NULL);
    size_t nl;
    const uint32_t *order = sts_analysis_lane_order(a, &nl);
    const sts_lane *ln = sts_timeline_lanes(tl, NULL);
    K(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < nl; k++) {
        uint32_t l = order[k];
        if (sc->lanes && !busy[l].slices && !kept(sc, l)) continue;
        sts_jsonw_obj_begin(j);
        sts_an_json_lane_fields(j, tl, l);
        K(j, "tracks"), sts_jsonw_u64(j, ln[l].track_count);
        sts_busy_write_json(j, &busy[l]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void processes(sts_jsonw *j, const sts_analysis *a)
{
    const sts_timeline *tl = sts_analysis_timeline(a);
    const sts_busy *pbusy = sts_analysis_process_busy(a, NULL);
    size_t np;
    const uint32_t *porder = sts_analysis_process_order(a, &np);
    const sts_process *procs = sts_timeline_processes(tl, NULL);
    int some_lanes = sts_analysis_scope(a)->lanes != NULL;
    K(j, "processes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < np; k++) {
        uint32_t p = porder[k];
        if (some_lanes && !pbusy[p].slices) continue;
        sts_jsonw_obj_begin(j);
        K(j, "pid"), sts_jsonw_str(j, sts_timeline_string(tl, procs[p].label));
        K(j, "process"), sts_jsonw_str(j, sts_timeline_string(tl, procs[p].name));
        sts_busy_write_json(j, &pbusy[p]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void overlap_list(sts_jsonw *j, const sts_timeline *tl, size_t max)
{
    size_t n;
    const sts_overlap *ov = sts_timeline_overlaps(tl, &n);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    K(j, "overlap_list");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n && (!max || i < max); i++) {
        const sts_slice *c = &s[ov[i].slice], *p = &s[ov[i].parent];
        sts_jsonw_obj_begin(j);
        K(j, "name"), sts_jsonw_str(j, sts_timeline_string(tl, c->name));
        K(j, "parent"), sts_jsonw_str(j, sts_timeline_string(tl, p->name));
        K(j, "pid"), sts_jsonw_str(j, sts_lane_pid(tl, c->lane));
        K(j, "tid"), sts_jsonw_str(j, sts_lane_tid(tl, c->lane));
        K(j, "ts_ns"), sts_jsonw_i64(j, c->ts);
        K(j, "dur_ns"), sts_jsonw_i64(j, c->dur);
        K(j, "parent_ts_ns"), sts_jsonw_i64(j, p->ts);
        K(j, "parent_dur_ns"), sts_jsonw_i64(j, p->dur);
        K(j, "overrun_ns"), sts_jsonw_i64(j, ov[i].overrun_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void overlap_groups(sts_jsonw *j, const sts_analysis *a)
{
    const sts_timeline *tl = sts_analysis_timeline(a);
    size_t n;
    const sts_overlap_group *g = sts_analysis_overlap_groups(a, &n);
    K(j, "overlap_groups");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        sts_jsonw_obj_begin(j);
        K(j, "name"), sts_jsonw_str(j, sts_timeline_string(tl, g[k].name));
        K(j, "parent"), sts_jsonw_str(j, sts_timeline_string(tl, g[k].parent));
        K(j, "count"), sts_jsonw_u64(j, g[k].count);
        K(j, "min_overrun_ns"), sts_jsonw_i64(j, g[k].min_ns);
        K(j, "max_overrun_ns"), sts_jsonw_i64(j, g[k].max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

sts_status sts_analysis_write_json(sts_jsonw *w, const sts_analysis *a, size_t top, size_t overlaps, sts_error *err)
{
    (void)err;
    const sts_timeline *tl = sts_analysis_timeline(a);
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    sts_jsonw_obj_begin(w);
    K(w, "trace"), sts_timeline_info_write_json(w, tl, sts_analysis_busy(a)->union_ns);
    scope(w, a);
    names(w, a, top);
    lanes(w, a);
    processes(w, a);
    K(w, "clamped"), sts_jsonw_u64(w, in->clamped);
    K(w, "overlaps"), sts_jsonw_u64(w, in->overlaps);
    overlap_list(w, tl, overlaps);
    overlap_groups(w, a);
    sts_jsonw_obj_end(w);
    return STS_OK;
}
