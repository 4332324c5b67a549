/* `analyze --json`: the trace's facts, the scope, names, lanes and processes of a
 * scoped analysis and the overlaps. One writer for the CLI and the Python binding, so
 * their documents cannot drift apart (tests/python compares them). */
#include <stdlib.h>

#include "analyze/an_impl.h"
#include "analyze/json_impl.h"
#include "stepscope/devview.h"

void sts_an_json_lane_fields(sts_jsonw *j, const sts_timeline *tl, uint32_t lane)
{
    sts_jsonw_kv_str(j, "pid", sts_lane_pid(tl, lane));
    sts_jsonw_kv_str(j, "tid", sts_lane_tid(tl, lane));
    sts_jsonw_kv_str(j, "process", sts_lane_process_name(tl, lane));
    sts_jsonw_kv_str(j, "thread", sts_lane_thread_name(tl, lane));
}

void sts_busy_write_json(sts_jsonw *w, const sts_busy *b)
{
    sts_jsonw_kv_u64(w, "slices", b->slices);
    sts_jsonw_kv_i64(w, "union_ns", b->union_ns);
    sts_jsonw_kv_i64(w, "span_ns", b->span_ns);
    sts_jsonw_kv_i64(w, "start_ns", b->start_ns);
    sts_jsonw_kv_i64(w, "end_ns", b->end_ns);
}

void sts_phases_write_json(sts_jsonw *j, const uint64_t by_phase[128])
{
    sts_jsonw_obj_begin(j);
    for (int c = 0; c < 128; c++) {
        if (!by_phase[c]) continue;
        char k[2] = { (char)c, 0 };
        sts_jsonw_kv_u64(j, k, by_phase[c]);
    }
    sts_jsonw_obj_end(j);
}

static void counts(sts_jsonw *j, const sts_timeline *tl)
{
    size_t n;
    sts_timeline_processes(tl, &n), sts_jsonw_kv_u64(j, "processes", n);
    sts_timeline_lanes(tl, &n), sts_jsonw_kv_u64(j, "lanes", n);
    sts_timeline_slices(tl, &n), sts_jsonw_kv_u64(j, "slices", n);
    sts_timeline_instants(tl, &n), sts_jsonw_kv_u64(j, "instants", n);
    sts_timeline_counters(tl, &n), sts_jsonw_kv_u64(j, "counters", n);
    sts_timeline_asyncs(tl, &n), sts_jsonw_kv_u64(j, "asyncs", n);
    sts_jsonw_kv_u64(j, "flows", sts_timeline_get_info(tl)->flows);
    sts_timeline_args(tl, &n), sts_jsonw_kv_u64(j, "args_kept", n);
}

static void repairs(sts_jsonw *j, const sts_timeline_info *in)
{
    sts_jsonw_kv_u64(j, "clamped", in->clamped);
    sts_jsonw_kv_u64(j, "overlaps", in->overlaps);
    sts_jsonw_kv_u64(j, "unmatched_end", in->unmatched_end);
    sts_jsonw_kv_u64(j, "unclosed_begin", in->unclosed_begin);
    sts_jsonw_kv_u64(j, "misplaced_end", in->misplaced_end);
    sts_jsonw_kv_u64(j, "repaired", in->repaired);
    sts_jsonw_kv_u64(j, "overflow_tracks", in->overflow_tracks);
    sts_jsonw_kv_u64(j, "skipped", in->skipped);
    sts_jsonw_kv_u64(j, "rejected", in->rejected);
}

void sts_timeline_info_write_json(sts_jsonw *w, const sts_timeline *tl, int64_t busy_ns)
{
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "path", in->path);
    sts_jsonw_kv_str(w, "run", in->run);
    sts_jsonw_kv_str(w, "format", in->format);
    sts_jsonw_kv_u64(w, "bytes", in->bytes);
    sts_jsonw_kv_bool(w, "compressed", in->compressed);
    sts_jsonw_kv_bool(w, "truncated", in->truncated);
    sts_jsonw_kv_u64(w, "events", in->events);
    sts_jsonw_key(w, "by_phase");
    sts_phases_write_json(w, in->by_phase);
    counts(w, tl);
    sts_jsonw_kv_i64(w, "ts_min_ns", in->ts_min);
    sts_jsonw_kv_i64(w, "ts_max_ns", in->ts_max);
    sts_jsonw_kv_i64(w, "span_ns", in->ts_max - in->ts_min);
    sts_jsonw_kv_i64(w, "busy_ns", busy_ns);
    sts_jsonw_kv_i64(w, "resolution_ns", in->resolution_ns);
    sts_jsonw_kv_str(w, "display_time_unit", in->display_time_unit);
    repairs(w, in);
    size_t n;
    uint64_t total;
    const char *const *warn = sts_timeline_warnings(tl, &n, &total);
    sts_jsonw_kv_u64(w, "warnings_total", total);
    sts_jsonw_key(w, "warnings");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        sts_jsonw_str(w, warn[i]);
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
}

static const char *group_title(sts_group g)
{
    return g == STS_GROUP_HLO_OP       ? "hlo_op"
           : g == STS_GROUP_HLO_MODULE ? "hlo_module"
           : g == STS_GROUP_SCOPE      ? "scope"
                                       : "name";
}

static void scope(sts_jsonw *j, const sts_analysis *a)
{
    const sts_scope *sc = sts_analysis_scope(a);
    const sts_analysis_options *o = sts_analysis_get_options(a);
    sts_jsonw_key(j, "scope");
    sts_jsonw_obj_begin(j);
    sts_jsonw_kv_str(j, "lane", o->lane_pattern); /* NULL: null */
    o->lane_pattern ? sts_jsonw_kv_u64(j, "lanes_matched", sc->nlanes) : sts_jsonw_kv_null(j, "lanes_matched");
    sts_jsonw_kv_str(j, "name", sc->name);
    sts_jsonw_key(j, "window");
    if (sc->windowed) {
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_i64(j, "start_ns", sc->start_ns);
        sts_jsonw_kv_i64(j, "end_ns", sc->end_ns);
        o->window_step != STS_NO_STEP ? sts_jsonw_kv_i64(j, "step", o->window_step) : sts_jsonw_kv_null(j, "step");
        sts_jsonw_obj_end(j);
    } else {
        sts_jsonw_null(j);
    }
    sts_jsonw_kv_str(j, "group", group_title(sc->group));
    sts_jsonw_kv_bool(j, "numbered_names_grouped", sc->group == STS_GROUP_NUMBERED);
    sts_jsonw_obj_end(j);
}

static void names(sts_jsonw *j, const sts_analysis *a, size_t top)
{
    const sts_timeline *tl = sts_analysis_timeline(a);
    sts_group group = sts_analysis_scope(a)->group;
    size_t nn;
    const sts_name_summary *rows = sts_analysis_names(a, &nn);
    size_t show = top && top < nn ? top : nn;
    sts_jsonw_key(j, "names");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < show; i++) {
        const sts_name_summary *s = &rows[i];
        sts_jsonw_obj_begin(j);
        char label[512];
        sts_jsonw_kv_str(j, "name", sts_name_summary_label(tl, s, label, sizeof label));
        sts_jsonw_kv_u64(j, "count", s->count);
        sts_jsonw_kv_i64(j, "total_ns", s->total_ns);
        sts_jsonw_kv_i64(j, "self_ns", s->self_ns);
        sts_jsonw_kv_i64(j, "min_ns", s->min_ns);
        sts_jsonw_kv_i64(j, "median_ns", s->median_ns);
        sts_jsonw_kv_i64(j, "max_ns", s->max_ns);
        if (s->grouped == STS_NAME_GROUPED_NUMBERED) {
            sts_jsonw_kv_str(j, "by", "numbered");
        } else if (s->grouped) {
            sts_jsonw_kv_str(j, "by", group_title(group));
            if (group == STS_GROUP_HLO_OP) {
                sts_jsonw_key(j, "hlo_module");
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
    sts_jsonw_key(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < nl; k++) {
        uint32_t l = order[k];
        if (sc->lanes && !busy[l].slices && !kept(sc, l)) continue;
        sts_jsonw_obj_begin(j);
        sts_an_json_lane_fields(j, tl, l);
        sts_jsonw_kv_u64(j, "lane", l); /* the key Python's Slices.lane shares */
        sts_jsonw_kv_u64(j, "tracks", ln[l].track_count);
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
    sts_jsonw_key(j, "processes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < np; k++) {
        uint32_t p = porder[k];
        if (some_lanes && !pbusy[p].slices) continue;
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_str(j, "pid", sts_timeline_string(tl, procs[p].label));
        sts_jsonw_kv_str(j, "process", sts_timeline_string(tl, procs[p].name));
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
    sts_jsonw_key(j, "overlap_list");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n && (!max || i < max); i++) {
        const sts_slice *c = &s[ov[i].slice], *p = &s[ov[i].parent];
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_str(j, "name", sts_timeline_string(tl, c->name));
        sts_jsonw_kv_str(j, "parent", sts_timeline_string(tl, p->name));
        sts_jsonw_kv_str(j, "pid", sts_lane_pid(tl, c->lane));
        sts_jsonw_kv_str(j, "tid", sts_lane_tid(tl, c->lane));
        sts_jsonw_kv_i64(j, "ts_ns", c->ts);
        sts_jsonw_kv_i64(j, "dur_ns", c->dur);
        sts_jsonw_kv_i64(j, "parent_ts_ns", p->ts);
        sts_jsonw_kv_i64(j, "parent_dur_ns", p->dur);
        sts_jsonw_kv_i64(j, "overrun_ns", ov[i].overrun_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void overlap_groups(sts_jsonw *j, const sts_analysis *a)
{
    const sts_timeline *tl = sts_analysis_timeline(a);
    size_t n;
    const sts_overlap_group *g = sts_analysis_overlap_groups(a, &n);
    sts_jsonw_key(j, "overlap_groups");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_str(j, "name", sts_timeline_string(tl, g[k].name));
        sts_jsonw_kv_str(j, "parent", sts_timeline_string(tl, g[k].parent));
        sts_jsonw_kv_u64(j, "count", g[k].count);
        sts_jsonw_kv_i64(j, "min_overrun_ns", g[k].min_ns);
        sts_jsonw_kv_i64(j, "max_overrun_ns", g[k].max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

void sts_an_json_host_syncs(sts_jsonw *j, const sts_timeline *tl, const sts_host_syncs *h, uint32_t step)
{
    size_t first, n = sts_host_syncs_of_step(h, step, &first);
    const sts_host_sync *hs = sts_host_syncs_list(h, NULL);
    sts_jsonw_key(j, "host_syncs");
    sts_jsonw_arr_begin(j);
    for (size_t i = first; i < first + n; i++) {
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_str(j, "name", hs[i].name);
        sts_jsonw_kv_u64(j, "count", hs[i].count);
        sts_jsonw_kv_i64(j, "wait_ns", hs[i].wait_ns);
        sts_jsonw_key(j, "where");
        if (hs[i].where == STS_NONE)
            sts_jsonw_null(j);
        else
            sts_jsonw_str(j, sts_timeline_string(tl, hs[i].where));
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

/* The scope's host syncs as one span (docs/host-syncs.md), and their total. */
static sts_status host_syncs(sts_jsonw *j, const sts_analysis *a, sts_error *err)
{
    const sts_timeline *tl = sts_analysis_timeline(a);
    sts_host_syncs *h = NULL;
    sts_status st = sts_host_syncs_find_scope(tl, sts_analysis_scope(a), &h, err);
    if (st != STS_OK) return st;
    size_t n;
    const sts_host_sync *hs = sts_host_syncs_list(h, &n);
    uint64_t count = 0;
    int64_t wait = 0;
    for (size_t i = 0; i < n; i++) {
        count += hs[i].count;
        wait += hs[i].wait_ns;
    }
    sts_jsonw_key(j, "host_syncs_total");
    sts_jsonw_obj_begin(j);
    sts_jsonw_kv_u64(j, "count", count);
    sts_jsonw_kv_i64(j, "wait_ns", wait);
    sts_jsonw_obj_end(j);
    sts_an_json_host_syncs(j, tl, h, 0);
    sts_host_syncs_free(h);
    return STS_OK;
}

static sts_status write_doc(sts_jsonw *w, const sts_analysis *a, size_t top, size_t overlaps, const sts_devview *dv,
                            sts_error *err)
{
    const sts_timeline *tl = sts_analysis_timeline(a);
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    sts_jsonw_obj_begin(w);
    sts_jsonw_key(w, "trace");
    sts_timeline_info_write_json(w, tl, sts_analysis_busy(a)->union_ns);
    scope(w, a);
    names(w, a, top);
    lanes(w, a);
    processes(w, a);
    sts_status st = host_syncs(w, a, err);
    if (st != STS_OK) return st;
    sts_jsonw_kv_u64(w, "clamped", in->clamped);
    sts_jsonw_kv_u64(w, "overlaps", in->overlaps);
    overlap_list(w, tl, overlaps);
    overlap_groups(w, a);
    if (dv) {
        sts_jsonw_key(w, "device");
        sts_devview_write_json(w, tl, dv);
    }
    sts_jsonw_obj_end(w);
    return STS_OK;
}

sts_status sts_analysis_write_json(sts_jsonw *w, const sts_analysis *a, size_t top, size_t overlaps, sts_error *err)
{
    return write_doc(w, a, top, overlaps, NULL, err);
}

sts_status sts_analysis_write_json_device(sts_jsonw *w, const sts_analysis *a, size_t top, size_t overlaps,
                                          const sts_devview *v, sts_error *err)
{
    return write_doc(w, a, top, overlaps, v, err);
}
