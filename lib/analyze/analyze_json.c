/* `analyze --json`'s pieces: the trace's facts, names, lanes and processes of a scoped
 * analysis. One writer for the CLI and the Python binding, so their documents cannot
 * drift apart (tests/python compares them). */
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

static void phases(sts_jsonw *j, const uint64_t *by_phase)
{
    K(j, "by_phase");
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
    phases(w, in->by_phase);
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

static void names(sts_jsonw *j, const sts_timeline *tl, const sts_analysis_results *r, sts_group group)
{
    size_t show = r->top && r->top < r->nnames ? r->top : r->nnames;
    K(j, "names");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < show; i++) {
        const sts_name_summary *s = &r->names[i];
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

static void lanes(sts_jsonw *j, const sts_timeline *tl, const sts_scope *sc, const uint32_t *order,
                  const sts_busy *busy)
{
    size_t nl;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    K(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < nl; k++) {
        uint32_t l = order[k];
        if (sc && sc->lanes && !busy[l].slices && !kept(sc, l)) continue;
        sts_jsonw_obj_begin(j);
        sts_an_json_lane_fields(j, tl, l);
        K(j, "tracks"), sts_jsonw_u64(j, ln[l].track_count);
        sts_busy_write_json(j, &busy[l]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void processes(sts_jsonw *j, const sts_timeline *tl, const sts_scope *sc, const uint32_t *porder,
                      const sts_busy *pbusy)
{
    size_t np;
    const sts_process *procs = sts_timeline_processes(tl, &np);
    K(j, "processes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < np; k++) {
        uint32_t p = porder[k];
        if (sc && sc->lanes && !pbusy[p].slices) continue;
        sts_jsonw_obj_begin(j);
        K(j, "pid"), sts_jsonw_str(j, sts_timeline_string(tl, procs[p].label));
        K(j, "process"), sts_jsonw_str(j, sts_timeline_string(tl, procs[p].name));
        sts_busy_write_json(j, &pbusy[p]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

sts_status sts_analysis_write_json(sts_jsonw *w, const sts_timeline *tl, const sts_analysis_results *r, sts_error *err)
{
    if (!r->lane_busy || !r->process_busy || (r->nnames && !r->names))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "analysis JSON: the results lack per-lane or per-process busy times or names");
    size_t nl, np;
    sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    uint32_t *order = malloc((nl ? nl : 1) * sizeof *order);
    uint32_t *porder = malloc((np ? np : 1) * sizeof *porder);
    sts_status st = STS_OK;
    if (!order || !porder) {
        st = sts_error_set(err, STS_ERR_NOMEM, -1, "analysis JSON: out of memory ordering %zu lanes", nl);
    } else {
        sts_lane_display_order(tl, order);
        st = sts_process_display_order(tl, order, porder, err);
    }
    if (st == STS_OK) {
        names(w, tl, r, r->scope ? r->scope->group : STS_GROUP_NAME);
        lanes(w, tl, r->scope, order, r->lane_busy);
        processes(w, tl, r->scope, porder, r->process_busy);
    }
    free(order);
    free(porder);
    return st;
}
