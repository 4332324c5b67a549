/* The device view for Python: `steps --device --json` and `analyze --device --json`'s
 * "device" object written by the library's own writers (sts_steps_write_json_device(),
 * sts_devview_write_json()), and the launches as columns. The numbers are
 * sts_devview_compute()'s; this file only hands them over. */
#include <stdlib.h>
#include <string.h>

#include "stepscope/analyze.h"
#include "stepscope/devview.h"
#include "tl.h"

/* The rules a `categories` argument names (None: the built-in table). The args their
 * arg:KEY fields read must have been kept when the trace was opened (args="all"). 0, or
 * -1 with an exception set. */
static int rules_of(const sts_timeline *tl, const char *path, sts_devview_rules **out)
{
    *out = NULL;
    if (!path) return 0;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_devview_rules_load(path, out, &err);
    if (st != STS_OK) {
        ext_raise(st, &err);
        return -1;
    }
    return 0;
}

/* Computes the view; NULL with an exception set on failure. */
static sts_devview *compute(const sts_timeline *tl, const sts_devview_rules *r, const sts_steps *s)
{
    sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
    o.rules = r;
    o.steps = s;
    sts_devview *v = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_devview_compute(tl, &o, &v, &err);
    if (st != STS_OK) return (sts_devview *)ext_raise(st, &err);
    return v;
}

/* steps_device_json(timeline, step, lanes, names, xprof, categories): `steps --json
 * --device` with --step, --lanes, --names, --xprof and --categories; None when there
 * are no steps (the caller asks steps_json() for the error that explains it). */
PyObject *ext_steps_device_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "step", "lanes", "names", "xprof", "categories", NULL };
    PyObject *cap;
    const char *step = NULL, *lanes = NULL, *categories = NULL;
    int names = 5, xprof = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zzipz", keys, &cap, &step, &lanes, &names, &xprof, &categories))
        return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    if (names < 0) return ext_raise_msg(STS_ERR_INVALID_ARG, "names expects N >= 0, got %d", names);
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = step;
    o.xprof_view = xprof;
    o.window_names = (size_t)names;
    sts_error err = STS_ERROR_INIT;
    uint32_t *chosen = NULL;
    if (lanes) {
        sts_status ls = sts_lanes_matching(tl, lanes, &chosen, &o.nwindow_lanes, &err);
        if (ls != STS_OK) return ext_raise(ls, &err);
        if (!o.nwindow_lanes) {
            free(chosen);
            Py_RETURN_NONE; /* steps_json() raises for the lanes, as without device */
        }
        o.window_lanes = chosen;
    }
    sts_devview_rules *r = NULL;
    if (rules_of(tl, categories, &r) != 0) {
        free(chosen);
        return NULL;
    }
    sts_steps *s = NULL;
    sts_status st = sts_steps_find(tl, &o, &s, &err);
    free(chosen);
    if (st != STS_OK) {
        sts_devview_rules_free(r);
        return ext_raise(st, &err);
    }
    PyObject *out = NULL;
    if (sts_steps_rule(s) == STS_STEP_RULE_NONE) {
        out = Py_None;
        Py_INCREF(out);
    } else {
        sts_devview *v = compute(tl, r, s);
        ext_json d;
        if (v && ext_json_begin(&d) == 0) {
            st = sts_steps_write_json_device(d.w, tl, s, xprof, v, &err);
            if (st != STS_OK) {
                ext_json_abandon(&d);
                ext_raise(st, &err);
            } else {
                out = ext_json_end(&d);
            }
        }
        sts_devview_free(v);
    }
    sts_steps_free(s);
    sts_devview_rules_free(r);
    return out;
}

/* device_json(timeline, categories): `analyze --device --json`'s "device" object. */
PyObject *ext_device_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "categories", NULL };
    PyObject *cap;
    const char *categories = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z", keys, &cap, &categories)) return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    sts_devview_rules *r = NULL;
    if (rules_of(tl, categories, &r) != 0) return NULL;
    sts_devview *v = compute(tl, r, NULL);
    PyObject *out = NULL;
    ext_json d;
    if (v && ext_json_begin(&d) == 0) {
        sts_devview_write_json(d.w, tl, v);
        out = ext_json_end(&d);
    }
    sts_devview_free(v);
    sts_devview_rules_free(r);
    return out;
}

/* ---- the launches as columns ------------------------------------------------------------ */

typedef struct cols {
    PyObject *device, *linked, *by_flow, *category, *direction, *delay, *dts, *ddur, *hts, *hdur, *name, *hname;
    int32_t *pdevice, *plinked, *pby_flow, *pcategory, *pdirection, *pname, *phname;
    int64_t *pdelay, *pdts, *pddur, *phts, *phdur;
} cols;

static void cols_free(cols *c)
{
    Py_XDECREF(c->device);
    Py_XDECREF(c->linked);
    Py_XDECREF(c->by_flow);
    Py_XDECREF(c->category);
    Py_XDECREF(c->direction);
    Py_XDECREF(c->delay);
    Py_XDECREF(c->dts);
    Py_XDECREF(c->ddur);
    Py_XDECREF(c->hts);
    Py_XDECREF(c->hdur);
    Py_XDECREF(c->name);
    Py_XDECREF(c->hname);
}

static int cols_alloc(cols *c, Py_ssize_t n)
{
    memset(c, 0, sizeof *c);
#define I32(f) (c->f = ext_column(n, 4, (void **)&c->p##f))
#define I64(f) (c->f = ext_column(n, 8, (void **)&c->p##f))
    int ok = I32(device) && I32(linked) && I32(by_flow) && I32(category) && I32(direction) && I32(name) && I32(hname);
    ok = ok && (c->delay = ext_column(n, 8, (void **)&c->pdelay)) && (c->dts = ext_column(n, 8, (void **)&c->pdts)) &&
         (c->ddur = ext_column(n, 8, (void **)&c->pddur)) && (c->hts = ext_column(n, 8, (void **)&c->phts)) &&
         (c->hdur = ext_column(n, 8, (void **)&c->phdur));
#undef I32
#undef I64
    return ok ? 0 : -1;
}

/* Codes for string ids: the first time an id is met it gets the next code and joins
 * the table. */
typedef struct coder {
    int32_t *code; /* per string id; -1: not met */
    size_t n;
    PyObject *table;
} coder;

static int code_of(coder *k, const sts_timeline *tl, uint32_t id, int32_t *out)
{
    if (id >= k->n) {
        size_t n = k->n ? k->n : 256;
        while (n <= id)
            n *= 2;
        int32_t *c = realloc(k->code, n * sizeof *c);
        if (!c) return -1;
        memset(c + k->n, 0xff, (n - k->n) * sizeof *c);
        k->code = c;
        k->n = n;
    }
    if (k->code[id] < 0) {
        PyObject *s = ext_str(sts_timeline_string(tl, id));
        if (!s || PyList_Append(k->table, s) != 0) {
            Py_XDECREF(s);
            return -1;
        }
        Py_DECREF(s);
        k->code[id] = (int32_t)(PyList_Size(k->table) - 1);
    }
    *out = k->code[id];
    return 0;
}

static PyObject *device_labels(const sts_timeline *tl, const sts_devview *v)
{
    size_t n;
    sts_devview_devices(v, &n);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t d = 0; list && d < n; d++) {
        char buf[200];
        PyObject *s = ext_str(sts_devview_device_label(tl, v, (uint32_t)d, buf, sizeof buf));
        if (!s) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, (Py_ssize_t)d, s);
    }
    return list;
}

/* device_launches(timeline, categories) -> columns: every device op with its launch. */
PyObject *ext_device_launches(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "categories", NULL };
    PyObject *cap;
    const char *categories = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z", keys, &cap, &categories)) return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    sts_devview_rules *r = NULL;
    if (rules_of(tl, categories, &r) != 0) return NULL;
    sts_devview *v = compute(tl, r, NULL);
    sts_devview_rules_free(r);
    if (!v) return NULL;
    size_t n;
    const sts_devview_launch *L = sts_devview_launches(v, &n);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    cols c;
    memset(&c, 0, sizeof c);
    coder names = { NULL, 0, PyList_New(0) }, hnames = { NULL, 0, PyList_New(0) };
    PyObject *out = NULL, *devices = NULL;
    int ok = names.table && hnames.table && cols_alloc(&c, (Py_ssize_t)n) == 0;
    for (size_t i = 0; ok && i < n; i++) {
        const sts_slice *d = &s[L[i].device_slice];
        int linked = L[i].host_slice != STS_NONE;
        c.pdevice[i] = (int32_t)L[i].device;
        c.plinked[i] = linked;
        c.pby_flow[i] = L[i].by_flow;
        c.pcategory[i] = L[i].category;
        c.pdirection[i] = L[i].direction;
        c.pdelay[i] = L[i].delay_ns;
        c.pdts[i] = d->ts;
        c.pddur[i] = d->dur;
        c.phts[i] = linked ? s[L[i].host_slice].ts : 0;
        c.phdur[i] = linked ? s[L[i].host_slice].dur : 0;
        ok = code_of(&names, tl, d->name, &c.pname[i]) == 0;
        if (ok && linked)
            ok = code_of(&hnames, tl, s[L[i].host_slice].name, &c.phname[i]) == 0;
        else
            c.phname[i] = -1;
    }
    if (ok && (devices = device_labels(tl, v)))
        out = Py_BuildValue("{s:n,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:N}", "rows", (Py_ssize_t)n,
                            "device", c.device, "linked", c.linked, "by_flow", c.by_flow, "category", c.category,
                            "direction", c.direction, "delay_ns", c.delay, "device_ts_ns", c.dts, "device_dur_ns",
                            c.ddur, "host_ts_ns", c.hts, "host_dur_ns", c.hdur, "name", c.name, "name_table",
                            names.table, "host_name", c.hname, "host_name_table", hnames.table, "devices", devices);
    else if (!PyErr_Occurred())
        PyErr_NoMemory();
    cols_free(&c);
    Py_XDECREF(names.table);
    Py_XDECREF(hnames.table);
    free(names.code);
    free(hnames.code);
    sts_devview_free(v);
    return out;
}
