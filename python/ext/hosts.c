/* Several hosts of one run: `analyze --json` and `steps --json` on several hosts, read,
 * merged and written by the library calls the CLI makes (sts_hostset_expand(),
 * sts_hosts_read(), sts_hosts_finish(), sts_hosts_align() and the documents'
 * writers), so the documents are the CLI's bytes. */
#include <stdlib.h>
#include <string.h>

#include "stepscope/hosts.h"
#include "tl.h"

/* The paths of a sequence of bytes objects, pointing into them (the sequence is kept
 * alive by the caller); NULL with an exception set. */
static const char **paths_of(PyObject *seq, Py_ssize_t *n)
{
    *n = PySequence_Size(seq);
    if (*n < 0) return NULL;
    if (*n == 0) {
        ext_raise_msg(STS_ERR_INVALID_ARG, "no inputs: give the hosts' files or a profile directory");
        return NULL;
    }
    const char **v = malloc((size_t)*n * sizeof *v);
    if (!v) return (const char **)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *it = PySequence_GetItem(seq, i);
        v[i] = it ? PyBytes_AsString(it) : NULL;
        Py_XDECREF(it); /* the sequence holds its own reference */
        if (!v[i]) {
            free(v);
            return NULL;
        }
    }
    return v;
}

/* The inputs expanded into hosts and read with `ho`, finished: 0, or -1 with an
 * exception set. The reading runs without the GIL. */
static int read_hosts(PyObject *inputs, const char *run, sts_hosts_options *ho, sts_hostset **set, sts_hosts **h)
{
    Py_ssize_t n;
    const char **paths = paths_of(inputs, &n);
    if (!paths) return -1;
    sts_error err = STS_ERROR_INIT;
    PyThreadState *ts = PyEval_SaveThread();
    sts_status st = sts_hostset_expand(paths, (size_t)n, run, set, &err);
    if (st == STS_OK) st = sts_hosts_read(*set, NULL, 0, ho, h, &err);
    if (st == STS_OK) st = sts_hosts_finish(*h, &err);
    PyEval_RestoreThread(ts);
    free(paths);
    if (st != STS_OK) {
        ext_raise(st, &err);
        return -1;
    }
    return 0;
}

/* The document a writer makes, in the CLI's layout; NULL with an exception set. */
static PyObject *document(sts_status (*write)(sts_jsonw *, const void *, sts_error *), const void *what)
{
    ext_json d;
    if (ext_json_begin_as(&d, STS_JSON_TWO_LEVELS) < 0) return NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = write(d.w, what, &err);
    if (st != STS_OK) {
        ext_json_abandon(&d);
        return ext_raise(st, &err);
    }
    return ext_json_end(&d);
}

typedef struct analyze_doc {
    const sts_hosts *h;
    const char *run;
    size_t top;
} analyze_doc;

static sts_status write_analyze(sts_jsonw *w, const void *p, sts_error *err)
{
    const analyze_doc *d = p;
    return sts_hosts_write_analyze_json(w, d->h, d->run, d->top, err);
}

/* hosts_analyze_json(inputs, run, args, top, jobs): `analyze --json` on several hosts
 * (inputs: bytes paths, as the CLI takes them; top 0: every name; jobs 0: one file
 * read at a time per core). */
PyObject *ext_hosts_analyze_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "inputs", "run", "args", "top", "jobs", NULL };
    PyObject *inputs;
    const char *run = NULL;
    int mode = STS_ARGS_ANALYSIS, top = 0, jobs = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ziii", keys, &inputs, &run, &mode, &top, &jobs)) return NULL;
    if (top < 0) return ext_raise_msg(STS_ERR_INVALID_ARG, "top expects N >= 0, got %d", top);
    if (jobs < 0) return ext_raise_msg(STS_ERR_INVALID_ARG, "jobs expects N >= 0 (0: one per core), got %d", jobs);
    sts_hosts_options ho = STS_HOSTS_OPTIONS_INIT;
    if (ext_keep_options(mode, &ho.open) != 0) return NULL;
    ho.what = STS_HOSTS_FACTS | STS_HOSTS_NAMES;
    ho.jobs = (unsigned)jobs;
    sts_hostset *set = NULL;
    sts_hosts *h = NULL;
    PyObject *out = NULL;
    if (read_hosts(inputs, run, &ho, &set, &h) == 0) {
        analyze_doc d = { h, sts_hostset_run(set), (size_t)top };
        out = document(write_analyze, &d);
    }
    sts_hosts_free(h);
    sts_hostset_free(set);
    return out;
}

typedef struct steps_doc {
    const sts_hosts *h;
    const sts_alignment *a;
    const char *run;
    const sts_collectives *c; /* collectives=True, else NULL */
} steps_doc;

static sts_status write_steps(sts_jsonw *w, const void *p, sts_error *err)
{
    const steps_doc *d = p;
    return sts_hosts_write_steps_json_with(w, d->h, d->a, d->run, d->c, err);
}

/* No host has steps: what the first host's search tried, as the CLI's exit status 1
 * and message. */
static PyObject *no_steps(const sts_hosts *h)
{
    const sts_host_steps_info *si = sts_hosts_steps_info(h, 0);
    const char *first = sts_hosts_info(h, 0)->name;
    static const char head[] = "no steps found on any of the %zu hosts; on %s, tried:", line[] = "\n  - %s",
                      tail[] = "\nname the step slice with step=NAME (or an extended regex)";
    size_t cap = sizeof head + strlen(first) + sizeof tail + 32;
    for (size_t i = 0; si && i < si->ntried; i++)
        cap += sizeof line + strlen(si->tried[i]);
    char *msg = malloc(cap);
    if (!msg) return PyErr_NoMemory();
    size_t at = (size_t)snprintf(msg, cap, head, sts_hosts_count(h), first);
    for (size_t i = 0; si && i < si->ntried; i++)
        at += (size_t)snprintf(msg + at, cap - at, line, si->tried[i]);
    snprintf(msg + at, cap - at, "%s", tail);
    ext_raise_as("STS_NO_STEPS", msg, NULL);
    free(msg);
    return NULL;
}

/* hosts_steps_json(inputs, run, args, step, xprof, ratio, jobs, device, memory, collectives,
 * align): `steps --json` on several hosts, with --step, --xprof, --straggler-ratio,
 * --device, --memory, --collectives and --align. */
PyObject *ext_hosts_steps_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "inputs", "run",    "args",   "step",        "xprof", "ratio",
                            "jobs",   "device", "memory", "collectives", "align", NULL };
    PyObject *inputs;
    const char *run = NULL, *step = NULL;
    int mode = STS_ARGS_ANALYSIS, xprof = 0, jobs = 0, device = 0, memory = 0, colls = 0, align = 0;
    double ratio = 1.1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zizpdipppp", keys, &inputs, &run, &mode, &step, &xprof, &ratio, &jobs,
                                     &device, &memory, &colls, &align))
        return NULL;
    colls |= align;
    if (!(ratio >= 1.0) || ratio > 1e9)
        return ext_raise_msg(STS_ERR_INVALID_ARG, "straggler_ratio expects a number >= 1, got %g", ratio);
    if (jobs < 0) return ext_raise_msg(STS_ERR_INVALID_ARG, "jobs expects N >= 0 (0: one per core), got %d", jobs);
    /* Each host's steps as for one trace; its windows on other lanes are not kept. */
    static const uint32_t no_lanes[1] = { 0 };
    sts_hosts_options ho = STS_HOSTS_OPTIONS_INIT;
    if (ext_keep_options(mode, &ho.open) != 0) return NULL;
    ho.what = STS_HOSTS_STEPS | (device ? STS_HOSTS_DEVICE : 0u) | (memory ? STS_HOSTS_MEMORY : 0u) |
              (colls ? STS_HOSTS_COLLECTIVES : 0u);
    /* The memory events' keys, as `steps --memory` keeps them. */
    if (memory && ho.open.args != STS_ARGS_ALL)
        ho.open.args = (sts_args_mode)((unsigned)ho.open.args | STS_ARGS_WITH_MEMORY);
    ho.jobs = (unsigned)jobs;
    ho.steps.step = step;
    ho.steps.xprof_view = xprof;
    ho.steps.window_lanes = no_lanes;
    ho.steps.nwindow_lanes = 0;
    sts_hostset *set = NULL;
    sts_hosts *h = NULL;
    sts_alignment *a = NULL;
    sts_collectives *c = NULL;
    PyObject *out = NULL;
    if (read_hosts(inputs, run, &ho, &set, &h) == 0) {
        sts_error err = STS_ERROR_INIT;
        size_t n = 0;
        sts_status st = colls ? sts_collectives_match(h, &c, &err) : STS_OK;
        if (st == STS_OK && align) sts_hosts_apply_offsets(h, c);
        if (st == STS_OK) st = sts_hosts_align(h, ratio, &a, &err);
        if (st == STS_OK) sts_alignment_steps(a, &n);
        if (st != STS_OK) {
            ext_raise(st, &err);
        } else if (n == 0) {
            no_steps(h);
        } else {
            steps_doc d = { h, a, sts_hostset_run(set), c };
            out = document(write_steps, &d);
        }
    }
    sts_collectives_free(c);
    sts_alignment_free(a);
    sts_hosts_free(h);
    sts_hostset_free(set);
    return out;
}
