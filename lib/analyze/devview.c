/* The device view's handle: collect the ops and their launches, sweep each device into
 * its windows, then say what looks wrong (see stepscope/devview.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/devview_impl.h"

int sts_dv_note(sts_devview *v, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *copy = strdup(buf);
    char **slot = copy ? STS_VEC_PUSH(v->warnings) : NULL;
    if (!slot) {
        free(copy);
        return -1;
    }
    *slot = copy;
    return 0;
}

void sts_devview_free(sts_devview *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->warnings.n; i++)
        free(v->warnings.v[i]);
    STS_VEC_RELEASE(v->warnings);
    STS_VEC_RELEASE(v->devices);
    STS_VEC_RELEASE(v->windows);
    STS_VEC_RELEASE(v->spans);
    STS_VEC_RELEASE(v->launches);
    STS_VEC_RELEASE(v->orphans);
    STS_VEC_RELEASE(v->hits);
    sts_devview_rules_free(v->own_rules);
    free(v);
}

sts_status sts_devview_compute(const sts_timeline *tl, const sts_devview_options *options, sts_devview **out,
                               sts_error *err)
{
    *out = NULL;
    sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
    if (options) o = *options;
    sts_devview *v = calloc(1, sizeof *v);
    if (!v) return sts_an_nomem(err, "the device view");
    v->rules = o.rules;
    if (!v->rules) {
        const char *t = sts_devview_rules_builtin_text();
        sts_status st = sts_devview_rules_parse(t, strlen(t), "<built-in device rules>", &v->own_rules, err);
        if (st != STS_OK) {
            free(v);
            return st;
        }
        v->rules = v->own_rules;
    }
    dv_ops ops = { { 0 } };
    int bad =
        sts_dv_collect(tl, v, &ops) != 0 || sts_dv_sweep(tl, v, &ops, o.steps) != 0 || sts_dv_warn(tl, v, &ops) != 0;
    STS_VEC_RELEASE(ops.v);
    if (bad) {
        sts_devview_free(v);
        return sts_an_nomem(err, "the device view");
    }
    *out = v;
    return STS_OK;
}

STS_VEC_ACCESSOR(sts_devview_devices, sts_devview, sts_devview_device, devices)
STS_VEC_ACCESSOR(sts_devview_span_windows, sts_devview, sts_devview_window, spans)

const sts_devview_window *sts_devview_windows(const sts_devview *v, size_t *n)
{
    if (!v->nsteps) return sts_devview_span_windows(v, n);
    if (n) *n = v->windows.n;
    return v->windows.v;
}
STS_VEC_ACCESSOR(sts_devview_launches, sts_devview, sts_devview_launch, launches)
STS_VEC_ACCESSOR(sts_devview_orphan_calls, sts_devview, uint32_t, orphans)
STS_VEC_ACCESSOR(sts_devview_rule_hits, sts_devview, uint64_t, hits)

const sts_devview_window *sts_devview_step_windows(const sts_devview *v, size_t k, size_t *n)
{
    if (n) *n = 0;
    if (!v->nsteps || k >= v->nsteps) return NULL;
    if (n) *n = v->devices.n;
    return v->windows.v + k * v->devices.n;
}

const sts_devview_links *sts_devview_get_links(const sts_devview *v)
{
    return &v->links;
}

const sts_devview_rules *sts_devview_rules_used(const sts_devview *v)
{
    return v->rules;
}

const char *const *sts_devview_warnings(const sts_devview *v, size_t *n)
{
    if (n) *n = v->warnings.n;
    return (const char *const *)v->warnings.v;
}

int sts_devview_has_steps(const sts_devview *v)
{
    return v->nsteps > 0;
}
