/* Opening a trace, closing it, its warnings, and its slice table as columns. */
#include <stdlib.h>
#include <string.h>

#include "stepscope/analyze.h"
#include "tl.h"

#define CAPSULE "stepscope.timeline"

typedef struct holder {
    sts_timeline *tl;
} holder;

static void holder_free(PyObject *cap)
{
    holder *h = PyCapsule_GetPointer(cap, CAPSULE);
    if (!h) return;
    sts_timeline_free(h->tl);
    free(h);
}

const sts_timeline *tl_get(PyObject *cap)
{
    holder *h = PyCapsule_GetPointer(cap, CAPSULE);
    if (!h) return NULL;
    if (!h->tl) {
        PyErr_SetString(PyExc_ValueError, "the trace was closed");
        return NULL;
    }
    return h->tl;
}

int ext_keep_options(int mode, sts_open_options *opt)
{
    int base = mode & (int)STS_ARGS_BASE_MASK;
    if ((mode & ~(int)(STS_ARGS_BASE_MASK | STS_ARGS_FLAG_MASK)) ||
        (base != STS_ARGS_KNOWN && base != STS_ARGS_NONE && base != STS_ARGS_ALL && base != STS_ARGS_ANALYSIS)) {
        ext_raise_msg(STS_ERR_INVALID_ARG, "args mode %d is not one of ARGS_KNOWN, ARGS_NONE, ARGS_ALL, ARGS_ANALYSIS",
                      mode);
        return -1;
    }
    opt->args = (sts_args_mode)mode;
    opt->flows = STS_FLOWS_COUNT;
    return 0;
}

PyObject *ext_open(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "path", "run", "args", "flows", NULL };
    const char *path, *run = NULL;
    int mode = STS_ARGS_ANALYSIS, flows = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y|zip", keys, &path, &run, &mode, &flows)) return NULL;
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    if (ext_keep_options(mode, &opt) != 0) return NULL;
    if (flows) opt.flows = STS_FLOWS_KEEP;
    holder *h = calloc(1, sizeof *h);
    if (!h) return PyErr_NoMemory();
    opt.run = run;
    sts_error err = STS_ERROR_INIT;
    /* Reading is all C: other Python threads may run meanwhile. */
    PyThreadState *ts = PyEval_SaveThread();
    sts_status st = sts_timeline_open(path, &opt, &h->tl, &err);
    PyEval_RestoreThread(ts);
    if (st != STS_OK) {
        free(h);
        return ext_raise(st, &err);
    }
    PyObject *cap = PyCapsule_New(h, CAPSULE, holder_free);
    if (!cap) {
        sts_timeline_free(h->tl);
        free(h);
    }
    return cap;
}

/* open_bytes(data, name, args, flows): a trace already in memory (gzip inflated by content). */
PyObject *ext_open_bytes(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "data", "name", "args", "flows", NULL };
    const char *data, *name = "<bytes>";
    Py_ssize_t n;
    int mode = STS_ARGS_ANALYSIS, flows = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y#|sip", keys, &data, &n, &name, &mode, &flows)) return NULL;
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    if (ext_keep_options(mode, &opt) != 0) return NULL;
    if (flows) opt.flows = STS_FLOWS_KEEP;
    holder *h = calloc(1, sizeof *h);
    if (!h) return PyErr_NoMemory();
    sts_error err = STS_ERROR_INIT;
    /* The bytes object is held by the caller's frame for the whole call. */
    PyThreadState *ts = PyEval_SaveThread();
    sts_status st = sts_timeline_open_mem(data, (size_t)n, name, &opt, &h->tl, &err);
    PyEval_RestoreThread(ts);
    if (st != STS_OK) {
        free(h);
        return ext_raise(st, &err);
    }
    PyObject *cap = PyCapsule_New(h, CAPSULE, holder_free);
    if (!cap) {
        sts_timeline_free(h->tl);
        free(h);
    }
    return cap;
}

PyObject *ext_close(PyObject *self, PyObject *cap)
{
    (void)self;
    holder *h = PyCapsule_GetPointer(cap, CAPSULE);
    if (!h) return NULL;
    sts_timeline_free(h->tl);
    h->tl = NULL;
    Py_RETURN_NONE;
}

PyObject *ext_warnings(PyObject *self, PyObject *cap)
{
    (void)self;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    size_t n;
    uint64_t total;
    const char *const *w = sts_timeline_warnings(tl, &n, &total);
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *s = ext_str(w[i]);
        if (!s || PyList_SetItem(list, (Py_ssize_t)i, s) < 0) {
            Py_DECREF(list);
            return NULL;
        }
    }
    return Py_BuildValue("(NK)", list, (unsigned long long)total);
}

/* ---- the slice table ------------------------------------------------------------- */

/* Dictionary-encodes texts: the same text always gets the same code, in order of
 * first appearance. */
typedef struct dict_enc {
    PyObject *codes; /* str -> int */
    PyObject *table; /* list of str */
} dict_enc;

static int enc_init(dict_enc *e)
{
    e->codes = PyDict_New();
    e->table = PyList_New(0);
    return e->codes && e->table ? 0 : -1;
}

static void enc_free(dict_enc *e)
{
    Py_XDECREF(e->codes);
    Py_XDECREF(e->table);
}

/* The code of `text`, added when new; -1 with an exception on failure. */
static int32_t enc_code(dict_enc *e, const char *text)
{
    PyObject *s = ext_str(text);
    if (!s) return -1;
    PyObject *have = PyDict_GetItem(e->codes, s); /* borrowed */
    if (have) {
        Py_DECREF(s);
        return (int32_t)PyLong_AsLong(have);
    }
    Py_ssize_t code = PyList_Size(e->table);
    PyObject *num = PyLong_FromSsize_t(code);
    int bad = !num || PyDict_SetItem(e->codes, s, num) < 0 || PyList_Append(e->table, s) < 0;
    Py_XDECREF(num);
    Py_DECREF(s);
    return bad ? -1 : (int32_t)code;
}

/* Per track, the code of its label (sts_track_label(), as `stepscope slices --track`). */
static int32_t *track_codes(const sts_timeline *tl, dict_enc *e, size_t *ncodes)
{
    size_t nt;
    const sts_track *tracks = sts_timeline_tracks(tl, &nt);
    int32_t *codes = malloc((nt ? nt : 1) * sizeof *codes);
    if (!codes) return (int32_t *)PyErr_NoMemory();
    char buf[4096];
    for (size_t i = 0; i < nt; i++)
        if ((codes[i] = enc_code(e, sts_track_label(tl, &tracks[i], buf, sizeof buf))) < 0) {
            free(codes);
            return NULL;
        }
    *ncodes = nt;
    return codes;
}

/* dur as the slice table gives it (see `stepscope slices`). */
static int64_t table_dur(const sts_slice *s)
{
    return (s->flags & STS_SLICE_UNCLOSED) ? -1 : s->dur;
}

typedef struct columns {
    PyObject *lane, *ts, *dur, *depth, *name, *track;
    int32_t *lane_v, *depth_v, *name_v, *track_v;
    int64_t *ts_v, *dur_v;
} columns;

static void columns_free(columns *c)
{
    Py_XDECREF(c->lane);
    Py_XDECREF(c->ts);
    Py_XDECREF(c->dur);
    Py_XDECREF(c->depth);
    Py_XDECREF(c->name);
    Py_XDECREF(c->track);
}

static int columns_alloc(columns *c, Py_ssize_t n)
{
    memset(c, 0, sizeof *c);
    c->lane = ext_column(n, 4, (void **)&c->lane_v);
    c->ts = ext_column(n, 8, (void **)&c->ts_v);
    c->dur = ext_column(n, 8, (void **)&c->dur_v);
    c->depth = ext_column(n, 4, (void **)&c->depth_v);
    c->name = ext_column(n, 4, (void **)&c->name_v);
    c->track = ext_column(n, 4, (void **)&c->track_v);
    return c->lane && c->ts && c->dur && c->depth && c->name && c->track ? 0 : -1;
}

/* Names get dense codes in order of first appearance: map[string id] = code. */
static int fill_columns(const sts_timeline *tl, const uint32_t *order, columns *c, int32_t *map, dict_enc *names,
                        const int32_t *tcode)
{
    size_t nl;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    size_t row = 0;
    for (size_t k = 0; k < nl; k++) {
        const sts_lane *ln = &lanes[order[k]];
        for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++, row++) {
            const sts_slice *x = &s[i];
            if (map[x->name] < 0 && (map[x->name] = enc_code(names, sts_timeline_string(tl, x->name))) < 0) return -1;
            c->lane_v[row] = (int32_t)order[k];
            c->ts_v[row] = x->ts;
            c->dur_v[row] = table_dur(x);
            c->depth_v[row] = x->depth;
            c->name_v[row] = map[x->name];
            c->track_v[row] = tcode[x->track];
        }
    }
    return 0;
}

typedef const char *(*lane_text)(const sts_timeline *tl, uint32_t lane);

/* Per lane, the codes of two of its texts (pid and tid; process and thread name). */
static PyObject *lane_codes(const sts_timeline *tl, dict_enc *pids, dict_enc *tids, lane_text fp, lane_text ft)
{
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    int32_t *p, *t;
    PyObject *pc = ext_column((Py_ssize_t)nl, 4, (void **)&p), *tc = ext_column((Py_ssize_t)nl, 4, (void **)&t);
    if (!pc || !tc) goto fail;
    for (size_t l = 0; l < nl; l++)
        if ((p[l] = enc_code(pids, fp(tl, (uint32_t)l))) < 0 || (t[l] = enc_code(tids, ft(tl, (uint32_t)l))) < 0)
            goto fail;
    return Py_BuildValue("(NN)", pc, tc);
fail:
    Py_XDECREF(pc);
    Py_XDECREF(tc);
    return NULL;
}

/* The largest string id a slice name uses, for the code map. */
static uint32_t max_name(const sts_timeline *tl)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].name > m) m = s[i].name;
    return m;
}

PyObject *ext_slices(PyObject *self, PyObject *cap)
{
    (void)self;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    size_t n, nl, ntc = 0;
    sts_timeline_slices(tl, &n);
    sts_timeline_lanes(tl, &nl);
    uint32_t top = max_name(tl);
    uint32_t *order = malloc((nl ? nl : 1) * sizeof *order);
    int32_t *map = malloc(((size_t)top + 1) * sizeof *map);
    columns c;
    dict_enc names, tracks, pids, tids, procs, threads;
    int ok = columns_alloc(&c, (Py_ssize_t)n) == 0;
    ok = enc_init(&procs) == 0 && ok;
    ok = enc_init(&threads) == 0 && ok;
    ok = enc_init(&names) == 0 && ok;
    ok = enc_init(&tracks) == 0 && ok;
    ok = enc_init(&pids) == 0 && ok;
    ok = enc_init(&tids) == 0 && ok;
    int32_t *tcode = ok ? track_codes(tl, &tracks, &ntc) : NULL;
    PyObject *out = NULL, *lanes = NULL, *lnames = NULL;
    if (!order || !map) PyErr_NoMemory();
    if (ok && order && map && tcode) {
        memset(map, 0xff, ((size_t)top + 1) * sizeof *map);
        sts_lane_display_order(tl, order);
        if (fill_columns(tl, order, &c, map, &names, tcode) == 0 &&
            (lanes = lane_codes(tl, &pids, &tids, sts_lane_pid, sts_lane_tid)) &&
            (lnames = lane_codes(tl, &procs, &threads, sts_lane_process_name, sts_lane_thread_name)))
            out = Py_BuildValue("{s:n,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:N,s:O,s:O,s:N}", "rows", (Py_ssize_t)n,
                                "lane", c.lane, "ts_ns", c.ts, "dur_ns", c.dur, "depth", c.depth, "name", c.name,
                                "name_table", names.table, "track", c.track, "track_table", tracks.table, "pid_table",
                                pids.table, "tid_table", tids.table, "lane_pid_tid", lanes, "process_table",
                                procs.table, "thread_table", threads.table, "lane_names", lnames);
        else {
            Py_XDECREF(lanes);
            Py_XDECREF(lnames);
        }
    }
    free(order);
    free(map);
    free(tcode);
    columns_free(&c);
    enc_free(&names);
    enc_free(&tracks);
    enc_free(&pids);
    enc_free(&tids);
    enc_free(&procs);
    enc_free(&threads);
    return out;
}

/* One arg key as a dictionary-encoded column in the slice table's row order: codes
 * (int32, -1 where the slice has no such arg) into the values as sts_arg_text() writes
 * them. Returns (codes, values, found) or NULL with an exception. */
static PyObject *arg_column(const sts_timeline *tl, const uint32_t *order, const char *key)
{
    size_t n, nl;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    size_t nargs;
    const sts_arg *args = sts_timeline_args(tl, &nargs);
    uint32_t id = sts_timeline_find_string(tl, key); /* STS_NONE: no event has the key */
    int32_t *codes;
    PyObject *col = ext_column((Py_ssize_t)n, 4, (void **)&codes);
    dict_enc e;
    int ok = col && enc_init(&e) == 0;
    size_t row = 0, found = 0, cap = 256;
    char *buf = ok ? malloc(cap) : NULL;
    if (ok && !buf) {
        PyErr_NoMemory();
        ok = 0;
    }
    for (size_t k = 0; ok && k < nl; k++) {
        const sts_lane *ln = &lanes[order[k]];
        for (uint32_t i = ln->first_slice; ok && i < ln->first_slice + ln->slice_count; i++, row++) {
            const sts_arg *a = NULL;
            for (uint32_t x = s[i].args; id != STS_NONE && x != STS_NONE && x < nargs; x++) {
                if (args[x].key == id) {
                    a = &args[x];
                    break;
                }
                if (args[x].last) break;
            }
            codes[row] = -1;
            if (!a) continue;
            size_t len = sts_arg_text(tl, a, buf, cap);
            if (len + 1 > cap) {
                char *more = realloc(buf, len + 1);
                if (!more) {
                    PyErr_NoMemory();
                    ok = 0;
                    break;
                }
                buf = more;
                cap = len + 1;
                sts_arg_text(tl, a, buf, cap);
            }
            found++;
            ok = (codes[row] = enc_code(&e, buf)) >= 0;
        }
    }
    free(buf);
    PyObject *out = ok ? Py_BuildValue("(OOn)", col, e.table, (Py_ssize_t)found) : NULL;
    Py_XDECREF(col);
    if (col) enc_free(&e);
    return out;
}

PyObject *ext_slice_args(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap;
    const char *key;
    if (!PyArg_ParseTuple(args, "Os", &cap, &key)) return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    uint32_t *order = malloc((nl ? nl : 1) * sizeof *order);
    if (!order) return PyErr_NoMemory();
    sts_lane_display_order(tl, order);
    PyObject *out = arg_column(tl, order, key);
    free(order);
    return out;
}
