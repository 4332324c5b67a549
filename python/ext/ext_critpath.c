/* The critical path for Python: `steps --critical-path --json` (with --device and
 * --what-if), written by the library's writer (sts_steps_write_json_critpath()); this
 * file only hands the numbers over. */
#include <stdlib.h>
#include <string.h>

#include "stepscope/analyze.h"
#include "stepscope/critpath.h"
#include "stepscope/devview.h"
#include "tl.h"

/* The what-ifs, as the CLI runs them: top=N ranks, anything else is NAME=FACTOR; `text`
 * holds them one a line (the limited API has no cheap way to read a list of str). 0, or
 * -1 with an exception set. */
static int one_what_if(sts_critpath *cp, const char *c)
{
    if (!strncmp(c, "top=", 4)) {
        char *end;
        long k = strtol(c + 4, &end, 10);
        if (end == c + 4 || *end || k < 1 || k > 64) {
            ext_raise_msg(STS_ERR_INVALID_ARG, "what-if '%s': top=N expects N from 1 to 64", c);
            return -1;
        }
        sts_critpath_what_if_top(cp, (size_t)k);
        return 0;
    }
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_critpath_what_if(cp, &c, 1, NULL, &err);
    if (st == STS_OK) return 0;
    ext_raise(st, &err);
    return -1;
}

static int what_ifs(sts_critpath *cp, const char *text)
{
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) : strlen(text);
        char *one = malloc(n + 1);
        if (!one) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(one, text, n);
        one[n] = 0;
        int rc = one_what_if(cp, one);
        free(one);
        if (rc) return -1;
        text = nl ? nl + 1 : text + n;
    }
    return 0;
}

/* steps_critpath_json(timeline, step, xprof, device, what_if): what_if one change a
 * line; None when there are no
 * steps (the caller asks steps_json() for the error that explains it). */
PyObject *ext_steps_critpath_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "step", "xprof", "device", "what_if", NULL };
    PyObject *cap;
    const char *step = NULL, *wi = NULL;
    int xprof = 0, device = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zppz", keys, &cap, &step, &xprof, &device, &wi)) return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = step;
    o.xprof_view = xprof;
    sts_error err = STS_ERROR_INIT;
    sts_steps *s = NULL;
    sts_status st = sts_steps_find(tl, &o, &s, &err);
    if (st != STS_OK) return ext_raise(st, &err);
    PyObject *out = NULL;
    sts_devview *v = NULL;
    sts_critpath *cp = NULL;
    sts_devview_options vo = STS_DEVVIEW_OPTIONS_INIT;
    vo.steps = s;
    if (sts_steps_rule(s) == STS_STEP_RULE_NONE) {
        out = Py_None;
        Py_INCREF(out);
    } else if ((st = sts_devview_compute(tl, &vo, &v, &err)) != STS_OK ||
               (st = sts_critpath_compute(tl, s, v, &cp, &err)) != STS_OK)
        ext_raise(st, &err);
    else if (what_ifs(cp, wi) == 0) {
        ext_json d; /* laid out as the CLI prints it: its bytes */
        if (ext_json_begin_as(&d, STS_JSON_TWO_LEVELS) == 0) {
            st = sts_steps_write_json_critpath(d.w, tl, s, xprof, device ? v : NULL, cp, &err);
            if (st != STS_OK) {
                ext_json_abandon(&d);
                ext_raise(st, &err);
            } else
                out = ext_json_end(&d);
        }
    }
    sts_critpath_free(cp);
    sts_devview_free(v);
    sts_steps_free(s);
    return out;
}
