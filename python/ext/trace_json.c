/* What `stepscope analyze --json` and `stepscope steps --json` print, computed and
 * written by the library calls the CLI makes (sts_analysis_run() and
 * sts_analysis_write_json(), sts_steps_find() and sts_steps_write_json(),
 * sts_timeline_info_write_json()), so a Python user reads exactly the CLI's documents
 * (docs/json-schemas.md). tests/python checks them against the CLI on every fixture. */
#include <stdlib.h>
#include <string.h>

#include "stepscope/analyze.h"
#include "tl.h"

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
    ext_json d;
    if (ext_json_begin(&d) < 0) return NULL;
    sts_timeline_info_write_json(d.w, tl, all.union_ns);
    return ext_json_end(&d);
}

/* ---- analyze: names, lanes and processes in a scope --------------------------------- */

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

/* The scope of analyze_json()'s arguments; -1 with an exception set when they are not
 * one. */
static int scope_of(const sts_timeline *tl, const char *lane, const char *name, PyObject *window, int group,
                    sts_scope *sc, uint32_t **lanes)
{
    if (group < STS_GROUP_NAME || group > STS_GROUP_SCOPE) {
        ext_raise_msg(STS_ERR_INVALID_ARG, "group %d is not one of name, hlo_op, hlo_module, scope", group);
        return -1;
    }
    sc->group = (sts_group)group;
    sc->name = name;
    if (window != Py_None) {
        long long a, b;
        if (!PyArg_ParseTuple(window, "LL", &a, &b)) return -1;
        if (a >= b) {
            ext_raise_msg(STS_ERR_INVALID_ARG, "window (%lld, %lld) is empty: start must be before end", a, b);
            return -1;
        }
        sc->windowed = 1, sc->start_ns = a, sc->end_ns = b;
    }
    if (lane && !(*lanes = lanes_of(tl, lane, &sc->nlanes))) return -1;
    sc->lanes = *lanes;
    return 0;
}

/* analyze_json(timeline, lane, name, window, group, top, overlaps, jobs): the document
 * `analyze --json` prints, byte for byte, for --lane, --name, --window START:END,
 * --group, --top, --overlaps and -j (window: None or (start_ns, end_ns) on the trace's
 * clock; group 0 name, 1 hlo_op, 2 hlo_module; top 0: every name; jobs 0: one thread
 * per core). */
PyObject *ext_analyze_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "lane", "name", "window", "group", "top", "overlaps", "jobs", NULL };
    PyObject *cap, *window = Py_None;
    const char *lane = NULL, *name = NULL;
    int group = STS_GROUP_NAME, top = 0, overlaps = 0, jobs = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zzOiipi", keys, &cap, &lane, &name, &window, &group, &top, &overlaps,
                                     &jobs))
        return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    if (top < 0) return ext_raise_msg(STS_ERR_INVALID_ARG, "top expects N >= 0, got %d", top);
    if (jobs < 0) return ext_raise_msg(STS_ERR_INVALID_ARG, "jobs expects N >= 0 (0: one per core), got %d", jobs);
    sts_scope sc = STS_SCOPE_INIT;
    uint32_t *lanes = NULL;
    if (scope_of(tl, lane, name, window, group, &sc, &lanes) < 0) return NULL;
    sts_analysis_options o = STS_ANALYSIS_OPTIONS_INIT;
    o.jobs = (unsigned)jobs;
    o.lane_pattern = lane;
    sts_analysis *a = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_analysis_run(tl, &sc, &o, &a, &err);
    free(lanes);
    if (st != STS_OK) return ext_raise(st, &err);
    ext_json d;
    PyObject *out = NULL;
    if (ext_json_begin_as(&d, STS_JSON_TWO_LEVELS) == 0) {
        st = sts_analysis_write_json(d.w, a, (size_t)top, overlaps ? 0 : STS_ANALYSIS_JSON_OVERLAPS, &err);
        if (st == STS_OK) {
            out = ext_json_end(&d);
        } else {
            ext_json_abandon(&d);
            ext_raise(st, &err);
        }
    }
    sts_analysis_free(a);
    return out;
}

/* ---- steps ------------------------------------------------------------------------- */

static PyObject *steps_document(const sts_timeline *tl, const sts_steps *s, int xprof)
{
    ext_json d;
    if (ext_json_begin_as(&d, STS_JSON_TWO_LEVELS) < 0) return NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_steps_write_json(d.w, tl, s, xprof, &err);
    if (st != STS_OK) {
        ext_json_abandon(&d);
        return ext_raise(st, &err);
    }
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
