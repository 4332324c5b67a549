/* A host's device view, kept per step and device in its record (STS_HOSTS_DEVICE), and
 * written as `steps --device --json`'s "devices" of each host step. The numbers are
 * sts_devview_compute()'s, over the host's own steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts/hosts_impl.h"

sts_status sts_host_rec_device(sts_host_rec *r, const sts_timeline *tl, const sts_steps *s,
                               const sts_devview_rules *rules, sts_error *err)
{
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    if (!n) return STS_OK;
    sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
    o.steps = s;
    o.rules = rules;
    sts_devview *v = NULL;
    sts_status status = sts_devview_compute(tl, &o, &v, err);
    if (status != STS_OK) return status;
    size_t nd;
    const sts_devview_device *dev = sts_devview_devices(v, &nd);
    const sts_process *proc = sts_timeline_processes(tl, NULL);
    const char **labels = malloc((nd ? nd : 1) * 3 * sizeof *labels);
    int bad = !labels;
    size_t nlab = nd;
    for (size_t d = 0; d < nlab && !bad; d++) {
        char buf[200];
        const sts_process *p = &proc[dev[d].process];
        labels[3 * d] = sts_host_rec_str(r, sts_devview_device_label(tl, v, (uint32_t)d, buf, sizeof buf), &bad);
        labels[3 * d + 1] = sts_host_rec_str(r, sts_timeline_string(tl, p->label), &bad);
        labels[3 * d + 2] = sts_host_rec_str(r, sts_timeline_string(tl, p->name), &bad);
    }
    /* The record kept each step number's first step (keep_steps()), in order. */
    size_t j = 0;
    for (size_t k = 0; k < n && j < r->steps.n && !bad; k++) {
        if (r->steps.v[j].step != st[k].index || r->steps.v[j].ts_ns != st[k].ts) continue;
        const sts_devview_window *w = sts_devview_step_windows(v, k, NULL);
        for (size_t d = 0; d < nlab && !bad; d++) {
            sts_host_device_step *e = STS_VEC_PUSH(r->dsteps);
            if (!e) {
                bad = 1;
                break;
            }
            e->step = (uint32_t)j;
            e->device = labels[3 * d];
            e->pid = labels[3 * d + 1];
            e->process = labels[3 * d + 2];
            e->w = w[d];
        }
        j++;
    }
    free(labels);
    sts_devview_free(v);
    return bad ? sts_hosts_nomem(err) : STS_OK;
}

void sts_host_device_steps_write_json(sts_jsonw *j, const sts_host_device_step *e, size_t n)
{
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n; i++)
        sts_devview_write_window_named_json(j, e[i].device, e[i].pid, e[i].process, &e[i].w);
    sts_jsonw_arr_end(j);
}
