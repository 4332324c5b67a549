/* stepscope._stepscope: the module table, errors and the small helpers every part uses. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "stepscope/format.h"
#include "stepscope/outfile.h"
#include "stepscope/timeline.h"
#include "stepscope/version.h"

static PyObject *error_factory;

PyObject *ext_set_error_factory(PyObject *self, PyObject *factory)
{
    (void)self;
    if (!PyCallable_Check(factory)) {
        PyErr_SetString(PyExc_TypeError, "the error factory must be callable");
        return NULL;
    }
    PyObject *old = error_factory;
    Py_INCREF(factory);
    error_factory = factory;
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

PyObject *ext_str(const char *s)
{
    if (!s) s = "";
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

PyObject *ext_raise(sts_status code, const sts_error *err)
{
    return ext_raise_as(sts_status_name(code), err && err->message[0] ? err->message : sts_strerror(code), err);
}

PyObject *ext_raise_as(const char *kind, const char *text, const sts_error *err)
{
    PyObject *msg = ext_str(text);
    if (!msg) return NULL;
    if (!error_factory) {
        PyErr_SetObject(PyExc_RuntimeError, msg);
        Py_DECREF(msg);
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(error_factory, "sOLL", kind, msg, (long long)(err ? err->byte_offset : -1),
                                          (long long)(err ? err->event_index : -1));
    Py_DECREF(msg);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *ext_raise_msg(sts_status code, const char *fmt, ...)
{
    sts_error err = STS_ERROR_INIT;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
    err.code = code;
    return ext_raise(code, &err);
}

int ext_mem_open(ext_mem *m)
{
    memset(m, 0, sizeof *m);
    m->f = open_memstream(&m->buf, &m->len);
    if (!m->f) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

PyObject *ext_mem_text(ext_mem *m, sts_status st, const sts_error *err)
{
    int closed = m->f ? fclose(m->f) : 0;
    m->f = NULL;
    PyObject *out = NULL;
    if (st != STS_OK)
        ext_raise(st, err);
    else if (closed != 0 || !m->buf)
        ext_raise_msg(STS_ERR_IO, "writing into memory failed");
    else
        out = PyUnicode_DecodeUTF8(m->buf, (Py_ssize_t)m->len, "strict");
    free(m->buf);
    m->buf = NULL;
    return out;
}

int ext_json_begin(ext_json *j)
{
    return ext_json_begin_as(j, STS_JSON_COMPACT);
}

int ext_json_begin_as(ext_json *j, sts_json_layout layout)
{
    j->w = NULL;
    if (ext_mem_open(&j->m) < 0) return -1;
    j->w = sts_jsonw_create(j->m.f, layout);
    if (!j->w) {
        ext_json_abandon(j);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

void ext_json_abandon(ext_json *j)
{
    sts_jsonw_free(j->w);
    j->w = NULL;
    if (j->m.f) fclose(j->m.f);
    free(j->m.buf);
    memset(&j->m, 0, sizeof j->m);
}

PyObject *ext_json_end(ext_json *j)
{
    sts_status st = sts_jsonw_finish(j->w);
    sts_jsonw_free(j->w);
    j->w = NULL;
    sts_error err = STS_ERROR_INIT;
    if (st != STS_OK)
        snprintf(err.message, sizeof err.message, "writing a JSON document into memory failed: %s", sts_strerror(st));
    return ext_mem_text(&j->m, st, &err);
}

PyObject *ext_column(Py_ssize_t n, size_t size, void **data)
{
    PyObject *b = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)size);
    if (!b) return NULL;
    *data = PyByteArray_AsString(b);
    return b;
}

static PyObject *ext_fmt_duration(PyObject *self, PyObject *arg)
{
    (void)self;
    double ns = PyFloat_AsDouble(arg);
    if (ns == -1.0 && PyErr_Occurred()) return NULL;
    char buf[STS_FMT_DURATION_MAX];
    sts_fmt_duration(ns, buf, sizeof buf);
    return ext_str(buf);
}

/* write_file(path bytes, data bytes): the file appears whole or not at all, as every
 * file stepscope writes (stepscope/outfile.h). */
static PyObject *ext_write_file(PyObject *self, PyObject *args)
{
    (void)self;
    const char *path, *data;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "yy#", &path, &data, &n)) return NULL;
    sts_error err = STS_ERROR_INIT;
    PyThreadState *ts = PyEval_SaveThread();
    sts_status st = sts_outfile_write_all(path, data, (size_t)n, &err);
    PyEval_RestoreThread(ts);
    if (st != STS_OK) return ext_raise(st, &err);
    Py_RETURN_NONE;
}

static PyObject *ext_version(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyUnicode_FromString(sts_version());
}

#define FN(name, fn, flags, doc)                            \
    {                                                       \
        name, (PyCFunction)(void (*)(void))(fn), flags, doc \
    }

static PyMethodDef methods[] = {
    FN("version", ext_version, METH_NOARGS, "the C library's version, sts_version()"),
    FN("fmt_duration", ext_fmt_duration, METH_O, "a duration in ns as stepscope writes it"),
    FN("write_file", ext_write_file, METH_VARARGS, "writes a file whole or not at all"),
    FN("_set_error_factory", ext_set_error_factory, METH_O, "sets the callable that makes exceptions"),
    FN("open", ext_open, METH_VARARGS | METH_KEYWORDS, "open(path, run=None, args=0, flows=False) -> timeline capsule"),
    FN("open_bytes", ext_open_bytes, METH_VARARGS | METH_KEYWORDS,
       "open_bytes(data, name, args, flows=False) -> capsule"),
    FN("close", ext_close, METH_O, "frees the timeline now"),
    FN("warnings", ext_warnings, METH_O, "(list of warnings, total)"),
    FN("slices", ext_slices, METH_O, "the slice table as columns"),
    FN("slice_args", ext_slice_args, METH_VARARGS,
       "slice_args(cap, key) -> (codes, values, found): an arg key as a column"),
    FN("info_json", ext_info_json, METH_O, "analyze --json's trace object"),
    FN("analyze_json", ext_analyze_json, METH_VARARGS | METH_KEYWORDS, "analyze --json"),
    FN("steps_json", ext_steps_json, METH_VARARGS | METH_KEYWORDS, "steps --json"),
    FN("hosts_analyze_json", ext_hosts_analyze_json, METH_VARARGS | METH_KEYWORDS, "analyze --json on several hosts"),
    FN("hosts_steps_json", ext_hosts_steps_json, METH_VARARGS | METH_KEYWORDS, "steps --json on several hosts"),
    FN("steps_device_json", ext_steps_device_json, METH_VARARGS | METH_KEYWORDS, "steps --json --device"),
    FN("steps_critpath_json", ext_steps_critpath_json, METH_VARARGS | METH_KEYWORDS, "steps --json --critical-path"),
    FN("device_json", ext_device_json, METH_VARARGS | METH_KEYWORDS, "analyze --device --json's device object"),
    FN("device_launches", ext_device_launches, METH_VARARGS | METH_KEYWORDS, "every device op and its launch"),
    FN("ledger_json", ext_ledger_json, METH_VARARGS, "ledger --json of logs and texts"),
    FN("memory_json", ext_memory_json, METH_VARARGS | METH_KEYWORDS, "steps/analyze --memory --json"),
    FN("bench", ext_bench, METH_VARARGS | METH_KEYWORDS, "runs the C harness over Python callables"),
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "stepscope._stepscope",
    "stepscope's C core (libstepscope)",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__stepscope(void);
PyMODINIT_FUNC PyInit__stepscope(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "ARGS_KNOWN", STS_ARGS_KNOWN) < 0 ||
        PyModule_AddIntConstant(m, "ARGS_NONE", STS_ARGS_NONE) < 0 ||
        PyModule_AddIntConstant(m, "ARGS_ALL", STS_ARGS_ALL) < 0 ||
        PyModule_AddIntConstant(m, "ARGS_ANALYSIS", STS_ARGS_ANALYSIS) < 0 ||
        PyModule_AddIntConstant(m, "ARGS_WITH_MEMORY", STS_ARGS_WITH_MEMORY) < 0 ||
        PyModule_AddIntConstant(m, "ARGS_WITH_STREAMS", STS_ARGS_WITH_STREAMS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
