/* Benchmarking Python callables with the C harness (lib/bench): the harness draws the
 * boundaries, takes the clock, computes the statistics and the stability verdict, and
 * writes the report; Python only makes the call, the wait and the reference. */
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "stepscope/bench.h"

typedef struct pyspec {
    PyObject *fn, *args, *kwargs, *ready, *setup, *check;
} pyspec;

/* A callback raised: the Python exception stays set and the harness stops. */
static sts_status raised(sts_error *err, const char *what)
{
    return sts_error_set(err, STS_ERR_INTERNAL, -1, "the %s raised a Python exception", what);
}

static sts_status cb_setup(void *user, sts_error *err)
{
    pyspec *p = user;
    PyObject *r = PyObject_CallObject(p->setup, NULL);
    if (!r) return raised(err, "setup function");
    Py_DECREF(r);
    return STS_OK;
}

static sts_status cb_call(void *user, void **handle, sts_error *err)
{
    pyspec *p = user;
    PyObject *r = PyObject_Call(p->fn, p->args, p->kwargs);
    if (!r) return raised(err, "benchmarked function");
    *handle = r;
    return STS_OK;
}

static sts_status cb_wait(void *user, void *handle, sts_error *err)
{
    pyspec *p = user;
    if (!p->ready) return STS_OK;
    PyObject *r = PyObject_CallFunctionObjArgs(p->ready, (PyObject *)handle, NULL);
    if (!r) return raised(err, "ready function");
    Py_DECREF(r);
    return STS_OK;
}

static void cb_release(void *user, void *handle)
{
    (void)user;
    Py_XDECREF((PyObject *)handle);
}

/* One leaf from Python: (name, shape, got, want), got and want the bytes of float64
 * arrays of the same length. */
static sts_status add_leaf(PyObject *leaf, sts_bench_check *out, sts_error *err)
{
    const char *name;
    PyObject *shape;
    const char *got, *want;
    Py_ssize_t ng, nw;
    if (!PyArg_ParseTuple(leaf, "sOy#y#", &name, &shape, &got, &ng, &want, &nw))
        return raised(err, "check (a leaf is not (name, shape, got bytes, want bytes))");
    Py_ssize_t ndim = PySequence_Size(shape);
    if (ndim < 0) return raised(err, "check (a shape is not a sequence)");
    if (ng != nw || ng % 8)
        return sts_error_set(err, STS_ERR_SHAPE, -1, "check: leaf '%s' has %zd result values but %zd reference values",
                             name, ng / 8, nw / 8);
    int64_t dims[4] = { 0, 0, 0, 0 };
    for (Py_ssize_t i = 0; i < ndim && i < 4; i++) {
        PyObject *d = PySequence_GetItem(shape, i);
        dims[i] = d ? PyLong_AsLongLong(d) : -1;
        Py_XDECREF(d);
        if (PyErr_Occurred()) return raised(err, "check (a dimension is not an int)");
    }
    /* bytes hold no alignment promise: copy into doubles. */
    size_t n = (size_t)ng / 8;
    double *g = malloc((n ? n : 1) * sizeof *g), *w = malloc((n ? n : 1) * sizeof *w);
    if (!g || !w) {
        free(g);
        free(w);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "check: out of memory for %zu values", n);
    }
    memcpy(g, got, n * 8);
    memcpy(w, want, n * 8);
    sts_check_add_f64(out, name, (int)(ndim > 4 ? 4 : ndim), dims, g, w, n);
    free(g);
    free(w);
    return STS_OK;
}

static sts_status cb_check(void *user, void *handle, sts_bench_check *out, sts_error *err)
{
    pyspec *p = user;
    PyObject *leaves = PyObject_CallFunctionObjArgs(p->check, (PyObject *)handle, NULL);
    if (!leaves) return raised(err, "check");
    Py_ssize_t n = PySequence_Size(leaves);
    sts_status st = n < 0 ? raised(err, "check (it must return a list of leaves)") : STS_OK;
    for (Py_ssize_t i = 0; i < n && st == STS_OK; i++) {
        PyObject *leaf = PySequence_GetItem(leaves, i);
        st = leaf ? add_leaf(leaf, out, err) : raised(err, "check");
        Py_XDECREF(leaf);
    }
    Py_DECREF(leaves);
    return st;
}

/* shapes: a sequence of (key, dims). */
static int read_shapes(PyObject *shapes, sts_bench_spec *spec)
{
    Py_ssize_t n = shapes == Py_None ? 0 : PySequence_Size(shapes);
    if (n < 0) return -1;
    if (n > STS_BENCH_MAX_SHAPES) {
        ext_raise_msg(STS_ERR_INVALID_ARG, "at most %d shapes (got %zd)", STS_BENCH_MAX_SHAPES, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(shapes, i), *dims;
        const char *key;
        int ok = item && PyArg_ParseTuple(item, "sO", &key, &dims);
        Py_ssize_t nd = ok ? PySequence_Size(dims) : -1;
        if (nd > 4) {
            Py_XDECREF(item);
            ext_raise_msg(STS_ERR_INVALID_ARG, "shape '%s' has %zd dimensions; the report holds at most 4", key, nd);
            return -1;
        }
        sts_bench_shape *s = &spec->shapes[i];
        memset(s, 0, sizeof *s);
        if (ok && nd >= 0) {
            snprintf(s->key, sizeof s->key, "%s", key);
            s->ndim = (int)nd;
            for (Py_ssize_t k = 0; k < nd; k++) {
                PyObject *d = PySequence_GetItem(dims, k);
                s->dims[k] = d ? PyLong_AsLongLong(d) : -1;
                Py_XDECREF(d);
            }
        }
        Py_XDECREF(item);
        if (!ok || nd < 0 || PyErr_Occurred()) return -1;
    }
    spec->nshapes = (size_t)n;
    return 0;
}

/* runtime: a sequence of (key, value) pairs written as versions and environment.runtime. */
static int read_runtime(PyObject *runtime, sts_bench_env *env)
{
    Py_ssize_t n = runtime == Py_None ? 0 : PySequence_Size(runtime);
    if (n < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(runtime, i);
        const char *k, *v;
        int ok = item && PyArg_ParseTuple(item, "ss", &k, &v);
        if (ok && sts_bench_env_add_runtime(env, k, v) != STS_OK) {
            Py_DECREF(item);
            ext_raise_msg(STS_ERR_LIMIT, "at most %d runtime versions", STS_BENCH_MAX_RUNTIME);
            return -1;
        }
        Py_XDECREF(item);
        if (!ok) return -1;
    }
    return 0;
}

/* The leaves' worst values, for a message naming what failed. */
static PyObject *leaf_details(const sts_bench_check *c)
{
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < c->nleaves; i++) {
        const sts_check_leaf *l = &c->leaves[i];
        PyObject *t =
            Py_BuildValue("{s:N,s:n,s:n,s:d,s:n,s:d,s:d}", "name", ext_str(l->name), "values", (Py_ssize_t)l->count,
                          "mismatches", (Py_ssize_t)l->mismatches, "max_abs_error", l->max_abs_error, "worst_index",
                          (Py_ssize_t)l->worst_index, "worst_got", l->worst_got, "worst_want", l->worst_want);
        if (!t || PyList_Append(list, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(t);
    }
    return list;
}

static PyObject *report(const sts_bench_result *r, const sts_bench_env *env)
{
    ext_mem m;
    if (ext_mem_open(&m) < 0) return NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_bench_write_json(m.f, r, env, NULL, 0, &err);
    PyObject *text = ext_mem_text(&m, st, &err);
    PyObject *leaves = text ? leaf_details(&r->check) : NULL;
    if (!text || !leaves) {
        Py_XDECREF(text);
        Py_XDECREF(leaves);
        return NULL;
    }
    return Py_BuildValue("(NNNN)", text, PyBool_FromLong(r->check.checked), PyBool_FromLong(r->check.passed), leaves);
}

static PyObject *none_to_null(PyObject *o)
{
    return o == Py_None ? NULL : o;
}

/* bench(fn, args, kwargs, ready, setup, check, *, name, boundary, dtype, reference,
 *       shapes, repeats, warmup, dispatch, atol, rtol, backend, device, runtime)
 * -> (json text, checked, passed, leaf details) */
PyObject *ext_bench(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "fn",       "args",  "kwargs",    "ready",  "setup",   "check",  "name",
                            "boundary", "dtype", "reference", "shapes", "repeats", "warmup", "dispatch",
                            "atol",     "rtol",  "backend",   "device", "runtime", NULL };
    pyspec p = { 0 };
    PyObject *shapes = Py_None, *runtime = Py_None;
    const char *name = "bench", *boundary = "", *dtype = "", *reference = NULL, *backend = "", *device = "";
    int repeats = 7, warmup = 0, dispatch = 0;
    double atol = 0, rtol = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO!OOOO|zzzzOiiiddzzO", keys, &p.fn, &PyTuple_Type, &p.args, &p.kwargs,
                                     &p.ready, &p.setup, &p.check, &name, &boundary, &dtype, &reference, &shapes,
                                     &repeats, &warmup, &dispatch, &atol, &rtol, &backend, &device, &runtime))
        return NULL;
    p.kwargs = none_to_null(p.kwargs), p.ready = none_to_null(p.ready);
    p.setup = none_to_null(p.setup), p.check = none_to_null(p.check);
    if (!PyCallable_Check(p.fn)) {
        PyErr_SetString(PyExc_TypeError, "bench: fn must be callable");
        return NULL;
    }
    sts_bench_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.name = name ? name : "bench";
    spec.boundary = boundary;
    spec.dtype = dtype;
    spec.reference = reference;
    spec.user = &p;
    spec.setup = p.setup ? cb_setup : NULL;
    spec.call = cb_call;
    spec.wait = cb_wait;
    spec.check = p.check ? cb_check : NULL;
    spec.release = cb_release;
    spec.repeats = repeats;
    spec.warmup = warmup;
    spec.dispatch_repeats = dispatch;
    spec.atol = atol;
    spec.rtol = rtol;
    sts_bench_env env;
    sts_bench_env_collect_host(&env);
    snprintf(env.backend, sizeof env.backend, "%s", backend ? backend : "");
    snprintf(env.runtime_device, sizeof env.runtime_device, "%s", device ? device : "");
    if (read_shapes(shapes, &spec) < 0 || read_runtime(runtime, &env) < 0) return NULL;
    sts_bench_result *r = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_bench_run(&spec, &r, &err);
    if (st != STS_OK) return PyErr_Occurred() ? NULL : ext_raise(st, &err);
    PyObject *out = report(r, &env);
    sts_bench_result_free(r);
    return out;
}
