/* The ledger of compile logs, as `stepscope ledger --json` prints it. */
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "stepscope/ledger.h"

/* One source: ("path", bytes path) or ("text", str name, bytes text). */
static sts_status parse_one(sts_ledger *l, PyObject *src, sts_error *err)
{
    const char *kind, *a, *text = NULL;
    Py_ssize_t len = 0;
    PyObject *k0 = PyTuple_Size(src) > 0 ? PyTuple_GetItem(src, 0) : NULL;
    int is_text = k0 && PyUnicode_Check(k0) && PyUnicode_CompareWithASCIIString(k0, "text") == 0;
    if (is_text ? !PyArg_ParseTuple(src, "ssy#", &kind, &a, &text, &len) : !PyArg_ParseTuple(src, "sy", &kind, &a))
        return STS_ERR_INVALID_ARG;
    sts_status st;
    PyThreadState *ts = PyEval_SaveThread();
    if (is_text)
        st = sts_ledger_parse_text(l, a, text, (size_t)len, err);
    else
        st = sts_ledger_parse_log(l, a, err);
    PyEval_RestoreThread(ts);
    return st;
}

static PyObject *warning_list(const sts_ledger *l)
{
    size_t n = sts_ledger_warning_count(l);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *s = ext_str(sts_ledger_warning(l, i));
        if (!s || PyList_SetItem(list, (Py_ssize_t)i, s) < 0) {
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}

/* ledger_json(sources) -> (json text, records, lines, warnings). */
PyObject *ext_ledger_json(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *sources;
    if (!PyArg_ParseTuple(args, "O", &sources)) return NULL;
    Py_ssize_t n = PySequence_Size(sources);
    if (n < 0) return NULL;
    sts_ledger *l = sts_ledger_create();
    if (!l) return PyErr_NoMemory();
    sts_error err = STS_ERROR_INIT;
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *src = PySequence_GetItem(sources, i);
        sts_status st = src ? parse_one(l, src, &err) : STS_ERR_INVALID_ARG;
        Py_XDECREF(src);
        if (st != STS_OK) {
            if (!PyErr_Occurred()) ext_raise(st, &err);
            sts_ledger_free(l);
            return NULL;
        }
    }
    ext_mem m;
    if (ext_mem_open(&m) == 0) {
        sts_status st = sts_ledger_write_json(l, m.f, NULL, NULL, &err);
        PyObject *text = ext_mem_text(&m, st, &err);
        sts_log_stats ls = sts_ledger_log_stats(l);
        PyObject *warnings = text ? warning_list(l) : NULL;
        if (text && warnings)
            out = Py_BuildValue("(NLLN)", text, (long long)ls.records, (long long)ls.lines, warnings);
        else {
            Py_XDECREF(text);
            Py_XDECREF(warnings);
        }
    }
    sts_ledger_free(l);
    return out;
}
