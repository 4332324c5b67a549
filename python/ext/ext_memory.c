/* What `stepscope steps --memory --json` and `analyze --memory --json` print, written by
 * the library's sts_memory_write_document(), so Python reads the CLI's bytes. */
#include "stepscope/memory.h"
#include "tl.h"

/* memory_json(timeline, steps, step): the memory document, per step when steps is true
 * (step: the --step name or regex, None for the default rule). */
PyObject *ext_memory_json(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *keys[] = { "timeline", "steps", "step", NULL };
    PyObject *cap;
    int per_step = 0;
    const char *step = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pz", keys, &cap, &per_step, &step)) return NULL;
    const sts_timeline *tl = tl_get(cap);
    if (!tl) return NULL;
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    if (per_step) {
        sts_step_options o = STS_STEP_OPTIONS_INIT;
        o.step = step;
        sts_status st = sts_steps_find(tl, &o, &s, &err);
        if (st != STS_OK) return ext_raise(st, &err);
        if (sts_steps_rule(s) == STS_STEP_RULE_NONE) {
            sts_steps_free(s);
            return ext_raise_msg(STS_ERR_NOT_FOUND, "no steps found in %s (steps=False reads the memory without)",
                                 sts_timeline_get_info(tl)->path);
        }
    }
    sts_memory_options mo = STS_MEMORY_OPTIONS_INIT;
    mo.steps = s;
    sts_memory *m = NULL;
    sts_status st = sts_memory_find(tl, &mo, &m, &err);
    if (st != STS_OK) {
        sts_steps_free(s);
        return ext_raise(st, &err);
    }
    size_t nd;
    sts_memory_devices(m, &nd);
    PyObject *out = NULL;
    ext_json d;
    if (!nd)
        ext_raise_msg(STS_ERR_NOT_FOUND,
                      "%s holds no memory events (Kineto [memory] instants, XSpace MemoryAllocation, or counters "
                      "named for memory); open it with args=\"memory\" or \"all\" to keep their sizes",
                      sts_timeline_get_info(tl)->path);
    else if (ext_json_begin_as(&d, STS_JSON_TWO_LEVELS) == 0) {
        sts_memory_write_document(d.w, tl, m, s);
        out = ext_json_end(&d);
    }
    sts_memory_free(m);
    sts_steps_free(s);
    return out;
}
