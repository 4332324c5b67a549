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

/* ---- analyze: names ----------------------------------------------------------------- */

PyObject *ext_names_json(PyObject *self, PyObject *cap)
{
    (void)self;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    sts_name_summary *names = NULL;
    size_t nn = 0;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_name_summaries(tl, &names, &nn, &err);
    if (st != STS_OK) return ext_raise(st, &err);
    ext_json d;
    if (ext_json_begin(&d) < 0) {
        free(names);
        return NULL;
    }
    sts_jsonw *j = d.w;
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
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
    free(names);
    return ext_json_end(&d);
}

/* ---- analyze: lanes and processes ---------------------------------------------------- */

static void busy_fields(sts_jsonw *j, const sts_busy *b)
{
    K(j, "slices"), sts_jsonw_u64(j, b->slices);
    K(j, "union_ns"), sts_jsonw_i64(j, b->union_ns);
    K(j, "span_ns"), sts_jsonw_i64(j, b->span_ns);
    K(j, "start_ns"), sts_jsonw_i64(j, b->start_ns);
    K(j, "end_ns"), sts_jsonw_i64(j, b->end_ns);
}

static void json_lanes(sts_jsonw *j, const sts_timeline *tl, const uint32_t *order, size_t nlanes)
{
    K(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < nlanes; k++) {
        uint32_t l = order[k];
        sts_busy b = sts_busy_lane(tl, l);
        sts_jsonw_obj_begin(j);
        K(j, "pid"), sts_jsonw_str(j, tl_pid(tl, l));
        K(j, "tid"), sts_jsonw_str(j, tl_tid(tl, l));
        K(j, "process"), sts_jsonw_str(j, tl_process_name(tl, l));
        K(j, "thread"), sts_jsonw_str(j, tl_thread_name(tl, l));
        busy_fields(j, &b);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

/* Processes in the order their first lane is displayed, then any without lanes. */
static int json_processes(sts_jsonw *j, const sts_timeline *tl, const uint32_t *order, size_t nlanes, sts_error *err)
{
    size_t np;
    const sts_process *procs = sts_timeline_processes(tl, &np);
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    unsigned char *seen = calloc(np ? np : 1, 1);
    uint32_t *porder = malloc((np ? np : 1) * sizeof *porder);
    if (!seen || !porder) {
        free(seen);
        free(porder);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory"), -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < nlanes; i++) {
        uint32_t p = lanes[order[i]].process;
        if (!seen[p]) seen[p] = 1, porder[k++] = p;
    }
    for (size_t p = 0; p < np; p++)
        if (!seen[p]) porder[k++] = (uint32_t)p;
    int rc = 0;
    K(j, "processes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < np && rc == 0; i++) {
        uint32_t p = porder[i];
        sts_busy b;
        if (sts_busy_process(tl, p, &b, err) != STS_OK) {
            rc = -1;
            break;
        }
        sts_jsonw_obj_begin(j);
        K(j, "pid"), sts_jsonw_str(j, sts_timeline_string(tl, procs[p].label));
        K(j, "process"), sts_jsonw_str(j, sts_timeline_string(tl, procs[p].name));
        busy_fields(j, &b);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
    free(seen);
    free(porder);
    return rc;
}

PyObject *ext_lanes_json(PyObject *self, PyObject *cap)
{
    (void)self;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    uint32_t *order = malloc((nl ? nl : 1) * sizeof *order);
    if (!order) return PyErr_NoMemory();
    sts_lane_display_order(tl, order);
    ext_json d;
    if (ext_json_begin(&d) < 0) {
        free(order);
        return NULL;
    }
    sts_error err = STS_ERROR_INIT;
    sts_jsonw_obj_begin(d.w);
    json_lanes(d.w, tl, order, nl);
    int rc = json_processes(d.w, tl, order, nl, &err);
    sts_jsonw_obj_end(d.w);
    free(order);
    if (rc != 0) {
        ext_json_abandon(&d);
        return ext_raise(err.code, &err);
    }
    return ext_json_end(&d);
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
        return "the root name repeated on one lane with the most time, holding children";
    case STS_STEP_RULE_NONE:
        break;
    }
    return "no steps found";
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

static void json_summary(sts_jsonw *j, const sts_steps_summary *y)
{
    K(j, "summary");
    sts_jsonw_obj_begin(j);
    K(j, "steps"), sts_jsonw_u64(j, y->steps);
    K(j, "total_ns"), sts_jsonw_i64(j, y->total_ns);
    K(j, "min_ns"), sts_jsonw_i64(j, y->min_ns);
    K(j, "median_ns"), sts_jsonw_i64(j, y->median_ns);
    K(j, "max_ns"), sts_jsonw_i64(j, y->max_ns);
    K(j, "children_ns"), sts_jsonw_i64(j, y->children_ns);
    K(j, "unattributed_ns"), sts_jsonw_i64(j, y->unattributed_ns);
    K(j, "unattributed_min_ns"), sts_jsonw_i64(j, y->unattributed_min_ns);
    K(j, "unattributed_median_ns"), sts_jsonw_i64(j, y->unattributed_median_ns);
    K(j, "unattributed_max_ns"), sts_jsonw_i64(j, y->unattributed_max_ns);
    K(j, "naive_ns"), sts_jsonw_i64(j, y->naive_ns);
    sts_jsonw_obj_end(j);
}

static PyObject *steps_document(const sts_timeline *tl, const sts_steps *s)
{
    ext_json d;
    if (ext_json_begin(&d) < 0) return NULL;
    sts_jsonw *j = d.w;
    uint32_t lane = sts_steps_list(s, NULL)[0].lane;
    sts_jsonw_obj_begin(j);
    K(j, "trace"), sts_jsonw_str(j, sts_timeline_get_info(tl)->path);
    K(j, "rule"), sts_jsonw_str(j, sts_step_rule_name(sts_steps_rule(s)));
    K(j, "rule_description"), sts_jsonw_str(j, rule_text(sts_steps_rule(s)));
    K(j, "lane");
    sts_jsonw_obj_begin(j);
    K(j, "pid"), sts_jsonw_str(j, tl_pid(tl, lane));
    K(j, "tid"), sts_jsonw_str(j, tl_tid(tl, lane));
    K(j, "process"), sts_jsonw_str(j, tl_process_name(tl, lane));
    K(j, "thread"), sts_jsonw_str(j, tl_thread_name(tl, lane));
    sts_jsonw_obj_end(j);
    K(j, "other_lanes"), sts_jsonw_u64(j, sts_steps_other_lanes(s));
    json_steps(j, tl, s);
    json_children(j, tl, s);
    json_summary(j, sts_steps_get_summary(s));
    sts_jsonw_obj_end(j);
    return ext_json_end(&d);
}

/* No steps: an error naming what was tried, as the CLI's exit status 1 and message. */
static PyObject *no_steps(const sts_timeline *tl, const sts_steps *s)
{
    size_t n;
    const char *const *tried = sts_steps_tried(s, &n);
    const char *path = sts_timeline_get_info(tl)->path;
    static const char head[] = "no steps found in %s; tried:", line[] = "\n  - %s",
                      tail[] = "\nname the step slice with step=NAME (or an extended regex)";
    size_t cap = sizeof head + strlen(path) + sizeof tail;
    for (size_t i = 0; i < n; i++)
        cap += sizeof line + strlen(tried[i]);
    char *msg = malloc(cap);
    if (!msg) return PyErr_NoMemory();
    size_t at = (size_t)snprintf(msg, cap, head, path);
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(msg + at, cap - at, line, tried[i]);
    snprintf(msg + at, cap - at, "%s", tail);
    ext_raise_as("STS_NO_STEPS", msg, NULL);
    free(msg);
    return NULL;
}

PyObject *ext_steps_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "step", NULL };
    PyObject *cap;
    const char *step = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z", keys, &cap, &step)) return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = step;
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_steps_find(tl, &o, &s, &err);
    if (st != STS_OK) return ext_raise(st, &err);
    size_t n;
    sts_steps_list(s, &n);
    PyObject *out = n ? steps_document(tl, s) : no_steps(tl, s);
    sts_steps_free(s);
    return out;
}
