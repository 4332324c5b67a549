/* What `stepscope analyze --json` and `stepscope steps --json` print, written with the
 * library's JSON writer in the same order and with the same keys as the CLI
 * (programs/cmd_analyze.c, programs/cmd_steps.c), so a Python user reads exactly the
 * CLI's documents (docs/json-schemas.md). tests/python checks them against the CLI on
 * every fixture: a change on one side without the other fails there. */
#include <stdlib.h>
#include <string.h>

#include "stepscope/analyze.h"
#include "tl.h"

#define K(j, key) sts_jsonw_key((j), (key))

/* ---- analyze: the trace object ------------------------------------------------------ */

PyObject *ext_info_json(PyObject *self, PyObject *cap)
{
    (void)self;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    sts_busy all;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_busy_lanes(tl, NULL, 0, &all, &err);
    if (st != STS_OK) return ext_raise(st, &err);
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    size_t nprocs, nlanes, nslices, n;
    sts_timeline_processes(tl, &nprocs);
    sts_timeline_lanes(tl, &nlanes);
    sts_timeline_slices(tl, &nslices);
    ext_json d;
    if (ext_json_begin(&d) < 0) return NULL;
    sts_jsonw *j = d.w;
    sts_jsonw_obj_begin(j);
    K(j, "path"), sts_jsonw_str(j, in->path);
    K(j, "run"), sts_jsonw_str(j, in->run);
    K(j, "format"), sts_jsonw_str(j, in->format);
    K(j, "bytes"), sts_jsonw_u64(j, in->bytes);
    K(j, "compressed"), sts_jsonw_bool(j, in->compressed);
    K(j, "truncated"), sts_jsonw_bool(j, in->truncated);
    K(j, "events"), sts_jsonw_u64(j, in->events);
    K(j, "by_phase");
    sts_jsonw_obj_begin(j);
    for (int c = 0; c < 128; c++) {
        if (!in->by_phase[c]) continue;
        char k[2] = { (char)c, 0 };
        K(j, k), sts_jsonw_u64(j, in->by_phase[c]);
    }
    sts_jsonw_obj_end(j);
    K(j, "processes"), sts_jsonw_u64(j, nprocs);
    K(j, "lanes"), sts_jsonw_u64(j, nlanes);
    K(j, "slices"), sts_jsonw_u64(j, nslices);
    sts_timeline_instants(tl, &n), K(j, "instants"), sts_jsonw_u64(j, n);
    sts_timeline_counters(tl, &n), K(j, "counters"), sts_jsonw_u64(j, n);
    sts_timeline_asyncs(tl, &n), K(j, "asyncs"), sts_jsonw_u64(j, n);
    sts_timeline_flows(tl, &n), K(j, "flows"), sts_jsonw_u64(j, n);
    sts_timeline_args(tl, &n), K(j, "args_kept"), sts_jsonw_u64(j, n);
    K(j, "ts_min_ns"), sts_jsonw_i64(j, in->ts_min);
    K(j, "ts_max_ns"), sts_jsonw_i64(j, in->ts_max);
    K(j, "span_ns"), sts_jsonw_i64(j, in->ts_max - in->ts_min);
    K(j, "busy_ns"), sts_jsonw_i64(j, all.union_ns);
    K(j, "resolution_ns"), sts_jsonw_i64(j, in->resolution_ns);
    K(j, "display_time_unit"), sts_jsonw_str(j, in->display_time_unit);
    K(j, "clamped"), sts_jsonw_u64(j, in->clamped);
    K(j, "overlaps"), sts_jsonw_u64(j, in->overlaps);
    K(j, "unmatched_end"), sts_jsonw_u64(j, in->unmatched_end);
    K(j, "unclosed_begin"), sts_jsonw_u64(j, in->unclosed_begin);
#ifdef STS_SLICE_ASYNC
    K(j, "misplaced_end"), sts_jsonw_u64(j, in->misplaced_end);
    K(j, "repaired"), sts_jsonw_u64(j, in->repaired);
    K(j, "overflow_tracks"), sts_jsonw_u64(j, in->overflow_tracks);
#endif
    K(j, "skipped"), sts_jsonw_u64(j, in->skipped);
    K(j, "rejected"), sts_jsonw_u64(j, in->rejected);
    uint64_t total;
    const char *const *w = sts_timeline_warnings(tl, &n, &total);
    K(j, "warnings_total"), sts_jsonw_u64(j, total);
    K(j, "warnings");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n; i++)
        sts_jsonw_str(j, w[i]);
    sts_jsonw_arr_end(j);
    sts_jsonw_obj_end(j);
    return ext_json_end(&d);
}

/* ---- analyze: names, lanes and processes in a scope --------------------------------- */

static const char *group_title(sts_group g)
{
    return g == STS_GROUP_HLO_OP ? "hlo_op" : g == STS_GROUP_HLO_MODULE ? "hlo_module" : "name";
}

static void json_names(sts_jsonw *j, const sts_timeline *tl, const sts_scope *sc, const sts_name_summary *names,
                       size_t nn)
{
    K(j, "names");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < nn; i++) {
        const sts_name_summary *s = &names[i];
        sts_jsonw_obj_begin(j);
        K(j, "name"), sts_jsonw_str(j, sts_timeline_string(tl, s->name));
        K(j, "count"), sts_jsonw_u64(j, s->count);
        K(j, "total_ns"), sts_jsonw_i64(j, s->total_ns);
        K(j, "self_ns"), sts_jsonw_i64(j, s->self_ns);
        K(j, "min_ns"), sts_jsonw_i64(j, s->min_ns);
        K(j, "median_ns"), sts_jsonw_i64(j, s->median_ns);
        K(j, "max_ns"), sts_jsonw_i64(j, s->max_ns);
        if (s->grouped) {
            K(j, "by"), sts_jsonw_str(j, group_title(sc->group));
            if (sc->group == STS_GROUP_HLO_OP) {
                K(j, "hlo_module");
                s->module != STS_NONE ? sts_jsonw_str(j, sts_timeline_string(tl, s->module)) : sts_jsonw_null(j);
            }
        }
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void busy_fields(sts_jsonw *j, const sts_busy *b)
{
    K(j, "slices"), sts_jsonw_u64(j, b->slices);
    K(j, "union_ns"), sts_jsonw_i64(j, b->union_ns);
    K(j, "span_ns"), sts_jsonw_i64(j, b->span_ns);
    K(j, "start_ns"), sts_jsonw_i64(j, b->start_ns);
    K(j, "end_ns"), sts_jsonw_i64(j, b->end_ns);
}

static void lane_fields(sts_jsonw *j, const sts_timeline *tl, uint32_t l)
{
    K(j, "pid"), sts_jsonw_str(j, tl_pid(tl, l));
    K(j, "tid"), sts_jsonw_str(j, tl_tid(tl, l));
    K(j, "process"), sts_jsonw_str(j, tl_process_name(tl, l));
    K(j, "thread"), sts_jsonw_str(j, tl_thread_name(tl, l));
}

static int kept(const sts_scope *sc, uint32_t l)
{
    for (size_t i = 0; i < sc->nlanes; i++)
        if (sc->lanes[i] == l) return 1;
    return 0;
}

/* Lanes the scope left out are not listed; kept ones are, busy or not. */
static void json_lanes(sts_jsonw *j, const sts_timeline *tl, const sts_scope *sc, const uint32_t *order,
                       const sts_busy *busy, size_t nl)
{
    K(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < nl; k++) {
        uint32_t l = order[k];
        if (sc->lanes && !busy[l].slices && !kept(sc, l)) continue;
        sts_jsonw_obj_begin(j);
        lane_fields(j, tl, l);
#ifdef STS_SLICE_ASYNC
        K(j, "tracks"), sts_jsonw_u64(j, sts_timeline_lanes(tl, NULL)[l].track_count);
#endif
        busy_fields(j, &busy[l]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

/* Processes in the order their first lane is displayed, then any without lanes. */
static void json_processes(sts_jsonw *j, const sts_timeline *tl, const sts_scope *sc, const uint32_t *order, size_t nl,
                           const sts_busy *pbusy, uint32_t *porder, unsigned char *seen)
{
    size_t np;
    const sts_process *procs = sts_timeline_processes(tl, &np);
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    size_t k = 0;
    for (size_t i = 0; i < nl; i++) {
        uint32_t p = lanes[order[i]].process;
        if (!seen[p]) seen[p] = 1, porder[k++] = p;
    }
    for (size_t p = 0; p < np; p++)
        if (!seen[p]) porder[k++] = (uint32_t)p;
    K(j, "processes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < np; i++) {
        uint32_t p = porder[i];
        if (sc->lanes && !pbusy[p].slices) continue;
        sts_jsonw_obj_begin(j);
        K(j, "pid"), sts_jsonw_str(j, sts_timeline_string(tl, procs[p].label));
        K(j, "process"), sts_jsonw_str(j, sts_timeline_string(tl, procs[p].name));
        busy_fields(j, &pbusy[p]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

/* The lanes a pattern names, as `--lane` / `--lanes` choose them; NULL with an error
 * raised when none match. */
static uint32_t *lanes_of(const sts_timeline *tl, const char *pattern, size_t *n)
{
    uint32_t *lanes = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_lanes_matching(tl, pattern, &lanes, n, &err);
    if (st != STS_OK) return (uint32_t *)ext_raise(st, &err);
    if (*n == 0) {
        free(lanes);
        return (uint32_t *)ext_raise_msg(STS_ERR_NOT_FOUND,
                                         "no lane of %s matches '%s' (by thread or process name, pid, tid or "
                                         "PID:TID, or as an extended regex over the names)",
                                         sts_timeline_get_info(tl)->path, pattern);
    }
    return lanes;
}

typedef struct analyze_mem {
    uint32_t *lanes, *order, *porder;
    sts_busy *busy, *pbusy;
    unsigned char *seen;
    sts_name_summary *names;
} analyze_mem;

static void analyze_free(analyze_mem *m)
{
    free(m->lanes);
    free(m->order);
    free(m->porder);
    free(m->busy);
    free(m->pbusy);
    free(m->seen);
    free(m->names);
}

/* analyze_json(timeline, lane, name, window, group) -> {"names", "lanes", "processes"}
 * as `analyze --json` writes them for --lane, --name, --window START:END and --group
 * (window: None or (start_ns, end_ns) on the trace's clock; group 0 name, 1 hlo_op,
 * 2 hlo_module). */
PyObject *ext_analyze_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "lane", "name", "window", "group", NULL };
    PyObject *cap, *window = Py_None;
    const char *lane = NULL, *name = NULL;
    int group = STS_GROUP_NAME;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zzOi", keys, &cap, &lane, &name, &window, &group)) return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    if (group < STS_GROUP_NAME || group > STS_GROUP_HLO_MODULE)
        return ext_raise_msg(STS_ERR_INVALID_ARG, "group %d is not one of name, hlo_op, hlo_module", group);
    sts_scope sc = STS_SCOPE_INIT;
    sc.group = (sts_group)group;
    sc.name = name;
    if (window != Py_None) {
        long long a, b;
        if (!PyArg_ParseTuple(window, "LL", &a, &b)) return NULL;
        if (a >= b)
            return ext_raise_msg(STS_ERR_INVALID_ARG, "window (%lld, %lld) is empty: start must be before end", a, b);
        sc.windowed = 1, sc.start_ns = a, sc.end_ns = b;
    }
    analyze_mem m = { 0 };
    if (lane && !(m.lanes = lanes_of(tl, lane, &sc.nlanes))) return NULL;
    sc.lanes = m.lanes;
    size_t nl, np, nn = 0;
    sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    m.order = malloc((nl ? nl : 1) * sizeof *m.order);
    m.busy = malloc((nl ? nl : 1) * sizeof *m.busy);
    m.pbusy = malloc((np ? np : 1) * sizeof *m.pbusy);
    m.porder = malloc((np ? np : 1) * sizeof *m.porder);
    m.seen = calloc(np ? np : 1, 1);
    if (!m.order || !m.busy || !m.pbusy || !m.porder || !m.seen) {
        analyze_free(&m);
        return PyErr_NoMemory();
    }
    sts_error err = STS_ERROR_INIT;
    sts_busy all;
    sts_status st = sts_name_summaries_in(tl, &sc, &m.names, &nn, &err);
    if (st == STS_OK) st = sts_busy_each(tl, &sc, m.busy, m.pbusy, &all, &err);
    if (st != STS_OK) {
        analyze_free(&m);
        return ext_raise(st, &err);
    }
    sts_lane_display_order(tl, m.order);
    ext_json d;
    PyObject *out = NULL;
    if (ext_json_begin(&d) == 0) {
        sts_jsonw_obj_begin(d.w);
        json_names(d.w, tl, &sc, m.names, nn);
        json_lanes(d.w, tl, &sc, m.order, m.busy, nl);
        json_processes(d.w, tl, &sc, m.order, nl, m.pbusy, m.porder, m.seen);
        sts_jsonw_obj_end(d.w);
        out = ext_json_end(&d);
    }
    analyze_free(&m);
    return out;
}

/* ---- steps ------------------------------------------------------------------------- */

static const char *rule_text(sts_step_rule r)
{
    switch (r) {
    case STS_STEP_RULE_GIVEN_NAME:
        return "slices with the name given by --step";
    case STS_STEP_RULE_GIVEN_REGEX:
        return "slices whose name matches the --step regular expression";
    case STS_STEP_RULE_PROFILER_STEP:
        return "PyTorch profiler step markers named ProfilerStep#N";
    case STS_STEP_RULE_STEP_NUM:
        return "slices carrying a step_num arg (XProf step markers)";
    case STS_STEP_RULE_REPEATED:
        return "the outermost name repeated on one lane with the most time, holding other slices";
    case STS_STEP_RULE_NONE:
        break;
    }
    return "no steps found";
}

static void json_windows(sts_jsonw *j, const sts_timeline *tl, const sts_steps *s, const sts_step *x)
{
    const sts_step_window *w = sts_steps_windows(s, NULL);
    const sts_window_name *wn = sts_steps_window_names(s, NULL);
    K(j, "windows");
    sts_jsonw_arr_begin(j);
    for (uint32_t i = x->first_window; i < x->first_window + x->window_count; i++) {
        sts_jsonw_obj_begin(j);
        lane_fields(j, tl, w[i].lane);
        K(j, "busy_ns"), sts_jsonw_i64(j, w[i].busy_ns);
        K(j, "names");
        sts_jsonw_arr_begin(j);
        for (uint32_t m = w[i].first_name; m < w[i].first_name + w[i].name_count; m++) {
            sts_jsonw_obj_begin(j);
            K(j, "name"), sts_jsonw_str(j, sts_timeline_string(tl, wn[m].name));
            K(j, "ns"), sts_jsonw_i64(j, wn[m].ns);
            sts_jsonw_obj_end(j);
        }
        sts_jsonw_arr_end(j);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_partial(sts_jsonw *j, uint32_t f)
{
    K(j, "partial"), sts_jsonw_bool(j, (f & STS_STEP_PARTIAL) != 0);
    K(j, "partial_reasons");
    sts_jsonw_arr_begin(j);
    if (f & STS_STEP_UNCLOSED) sts_jsonw_str(j, "unclosed");
    if (f & STS_STEP_AT_TRACE_START) sts_jsonw_str(j, "at_trace_start");
    if (f & STS_STEP_AT_TRACE_END) sts_jsonw_str(j, "at_trace_end");
    sts_jsonw_arr_end(j);
}

static void json_steps(sts_jsonw *j, const sts_timeline *tl, const sts_steps *s)
{
    size_t n, nch;
    const sts_step *st = sts_steps_list(s, &n);
    const sts_step_child *ch = sts_steps_children(s, &nch);
    K(j, "steps");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        const sts_step *x = &st[k];
        sts_jsonw_obj_begin(j);
        K(j, "name"), sts_jsonw_str(j, sts_timeline_string(tl, x->name));
        K(j, "index"), sts_jsonw_i64(j, x->index);
        K(j, "ts_ns"), sts_jsonw_i64(j, x->ts);
        K(j, "dur_ns"), sts_jsonw_i64(j, x->dur);
        json_partial(j, x->flags);
        K(j, "children");
        sts_jsonw_obj_begin(j);
        for (uint32_t c = x->first_child; c < x->first_child + x->child_count; c++)
            K(j, sts_timeline_string(tl, ch[c].name)), sts_jsonw_i64(j, ch[c].total_ns);
        sts_jsonw_obj_end(j);
        K(j, "child_counts");
        sts_jsonw_obj_begin(j);
        for (uint32_t c = x->first_child; c < x->first_child + x->child_count; c++)
            K(j, sts_timeline_string(tl, ch[c].name)), sts_jsonw_u64(j, ch[c].count);
        sts_jsonw_obj_end(j);
        K(j, "children_ns"), sts_jsonw_i64(j, x->children_ns);
        K(j, "unattributed_ns"), sts_jsonw_i64(j, x->unattributed_ns);
        K(j, "naive_ns"), sts_jsonw_i64(j, x->naive_ns);
        json_windows(j, tl, s, x);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_children(sts_jsonw *j, const sts_timeline *tl, const sts_steps *s)
{
    size_t ncs;
    const sts_step_child_stats *cs = sts_steps_child_stats(s, &ncs);
    K(j, "children");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < ncs; i++) {
        const sts_step_child_stats *c = &cs[i];
        sts_jsonw_obj_begin(j);
        K(j, "name"), sts_jsonw_str(j, sts_timeline_string(tl, c->name));
        K(j, "steps"), sts_jsonw_u64(j, c->steps);
        K(j, "count"), sts_jsonw_u64(j, c->count);
        K(j, "total_ns"), sts_jsonw_i64(j, c->total_ns);
        K(j, "min_ns"), sts_jsonw_i64(j, c->min_ns);
        K(j, "median_ns"), sts_jsonw_i64(j, c->median_ns);
        K(j, "max_ns"), sts_jsonw_i64(j, c->max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_window_lanes(sts_jsonw *j, const sts_timeline *tl, const sts_steps *s)
{
    size_t n;
    const sts_window_lane_stats *wl = sts_steps_window_lanes(s, &n);
    K(j, "window_lanes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        sts_jsonw_obj_begin(j);
        lane_fields(j, tl, wl[i].lane);
        K(j, "steps"), sts_jsonw_u64(j, wl[i].steps);
        K(j, "total_ns"), sts_jsonw_i64(j, wl[i].total_ns);
        K(j, "min_ns"), sts_jsonw_i64(j, wl[i].min_ns);
        K(j, "median_ns"), sts_jsonw_i64(j, wl[i].median_ns);
        K(j, "max_ns"), sts_jsonw_i64(j, wl[i].max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_summary(sts_jsonw *j, const sts_steps *s)
{
    const sts_steps_summary *y = sts_steps_get_summary(s);
    K(j, "summary");
    sts_jsonw_obj_begin(j);
    K(j, "steps"), sts_jsonw_u64(j, y->steps);
    K(j, "total_ns"), sts_jsonw_i64(j, y->total_ns);
    K(j, "min_ns"), sts_jsonw_i64(j, y->min_ns);
    K(j, "median_ns"), sts_jsonw_i64(j, y->median_ns);
    K(j, "max_ns"), sts_jsonw_i64(j, y->max_ns);
    K(j, "mean_ns"), sts_jsonw_f64(j, y->mean_ns);
    K(j, "stddev_ns"), sts_jsonw_f64(j, y->stddev_ns);
    K(j, "partial"), sts_jsonw_u64(j, y->partial);
    K(j, "dropped"), sts_jsonw_u64(j, sts_steps_dropped(s));
    K(j, "children_ns"), sts_jsonw_i64(j, y->children_ns);
    K(j, "unattributed_ns"), sts_jsonw_i64(j, y->unattributed_ns);
    K(j, "unattributed_min_ns"), sts_jsonw_i64(j, y->unattributed_min_ns);
    K(j, "unattributed_median_ns"), sts_jsonw_i64(j, y->unattributed_median_ns);
    K(j, "unattributed_max_ns"), sts_jsonw_i64(j, y->unattributed_max_ns);
    K(j, "naive_ns"), sts_jsonw_i64(j, y->naive_ns);
    sts_jsonw_obj_end(j);
}

static PyObject *steps_document(const sts_timeline *tl, const sts_steps *s, int xprof)
{
    ext_json d;
    if (ext_json_begin(&d) < 0) return NULL;
    sts_jsonw *j = d.w;
    sts_jsonw_obj_begin(j);
    K(j, "trace"), sts_jsonw_str(j, sts_timeline_get_info(tl)->path);
    K(j, "rule"), sts_jsonw_str(j, sts_step_rule_name(sts_steps_rule(s)));
    K(j, "rule_description"), sts_jsonw_str(j, rule_text(sts_steps_rule(s)));
    K(j, "lane");
    sts_jsonw_obj_begin(j);
    lane_fields(j, tl, sts_steps_list(s, NULL)[0].lane);
    sts_jsonw_obj_end(j);
    K(j, "other_lanes"), sts_jsonw_u64(j, sts_steps_other_lanes(s));
    K(j, "xprof_view"), sts_jsonw_bool(j, xprof);
    json_steps(j, tl, s);
    json_children(j, tl, s);
    json_window_lanes(j, tl, s);
    json_summary(j, s);
    sts_jsonw_obj_end(j);
    return ext_json_end(&d);
}

/* No steps: an error naming what was tried and names close to a mistyped step, as the
 * CLI's exit status 1 and message. */
static PyObject *no_steps(const sts_timeline *tl, const sts_steps *s)
{
    size_t n, ns;
    const char *const *tried = sts_steps_tried(s, &n);
    const uint32_t *sug = sts_steps_suggestions(s, &ns);
    const char *path = sts_timeline_get_info(tl)->path;
    static const char head[] = "no steps found in %s; tried:", line[] = "\n  - %s", mean[] = "%s'%s'",
                      tail[] = "\nname the step slice with step=NAME (or an extended regex)";
    size_t cap = sizeof head + strlen(path) + sizeof tail + 32;
    for (size_t i = 0; i < n; i++)
        cap += sizeof line + strlen(tried[i]);
    for (size_t i = 0; i < ns; i++)
        cap += sizeof mean + strlen(sts_timeline_string(tl, sug[i]));
    char *msg = malloc(cap);
    if (!msg) return PyErr_NoMemory();
    size_t at = (size_t)snprintf(msg, cap, head, path);
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(msg + at, cap - at, line, tried[i]);
    if (ns) at += (size_t)snprintf(msg + at, cap - at, "\ndid you mean ");
    for (size_t i = 0; i < ns; i++)
        at += (size_t)snprintf(msg + at, cap - at, mean, i ? ", " : "", sts_timeline_string(tl, sug[i]));
    if (ns) at += (size_t)snprintf(msg + at, cap - at, "?");
    snprintf(msg + at, cap - at, "%s", tail);
    ext_raise_as("STS_NO_STEPS", msg, NULL);
    free(msg);
    return NULL;
}

/* steps_json(timeline, step, lanes, names, xprof): `steps --json` with --step, --lanes,
 * --names and --xprof. */
PyObject *ext_steps_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "step", "lanes", "names", "xprof", NULL };
    PyObject *cap;
    const char *step = NULL, *lanes = NULL;
    int names = 5, xprof = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zzip", keys, &cap, &step, &lanes, &names, &xprof)) return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    if (names < 0) return ext_raise_msg(STS_ERR_INVALID_ARG, "names expects N >= 0, got %d", names);
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = step;
    o.xprof_view = xprof;
    o.window_names = (size_t)names;
    uint32_t *chosen = NULL;
    if (lanes && !(chosen = lanes_of(tl, lanes, &o.nwindow_lanes))) return NULL;
    o.window_lanes = chosen;
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_steps_find(tl, &o, &s, &err);
    free(chosen);
    if (st != STS_OK) return ext_raise(st, &err);
    PyObject *out = sts_steps_rule(s) == STS_STEP_RULE_NONE ? no_steps(tl, s) : steps_document(tl, s, xprof);
    sts_steps_free(s);
    return out;
}
