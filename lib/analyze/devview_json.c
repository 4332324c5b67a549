/* The device view's JSON, one writer for `steps --device --json`, `analyze --device
 * --json` and the Python binding (schemas in docs/json-schemas.md). */
#include <stdio.h>

#include "analyze/devview_impl.h"

#define K(j, key) sts_jsonw_key((j), (key))

const char *sts_devview_device_label(const sts_timeline *tl, const sts_devview *v, uint32_t d, char *buf, size_t n)
{
    if (n) buf[0] = 0;
    if (d >= v->devices.n || !n) return buf;
    const sts_process *p = &sts_timeline_processes(tl, NULL)[v->devices.v[d].process];
    const char *name = sts_timeline_string(tl, p->name), *pid = sts_timeline_string(tl, p->label);
    if (v->devices.v[d].kineto)
        snprintf(buf, n, "GPU %s", pid);
    else if (*name)
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "pid %s", pid);
    return buf;
}

static void name_json(sts_jsonw *j, const char *device, const char *pid, const char *process)
{
    K(j, "device"), sts_jsonw_str(j, device);
    K(j, "pid"), sts_jsonw_str(j, pid);
    K(j, "process"), sts_jsonw_str(j, process);
}

static void device_name(sts_jsonw *j, const sts_timeline *tl, const sts_devview *v, uint32_t d)
{
    char buf[200];
    const sts_process *p = &sts_timeline_processes(tl, NULL)[v->devices.v[d].process];
    name_json(j, sts_devview_device_label(tl, v, d, buf, sizeof buf), sts_timeline_string(tl, p->label),
              sts_timeline_string(tl, p->name));
}

static void known_i64(sts_jsonw *j, int known, int64_t v)
{
    if (known)
        sts_jsonw_i64(j, v);
    else
        sts_jsonw_null(j);
}

static void by_category(sts_jsonw *j, const sts_devview_window *x)
{
    K(j, "by_category");
    sts_jsonw_obj_begin(j);
    for (int c = 0; c < STS_DV_CATEGORIES; c++) {
        K(j, sts_devview_category_name((sts_devview_category)c));
        sts_jsonw_obj_begin(j);
        K(j, "union_ns"), sts_jsonw_i64(j, x->union_ns[c]);
        K(j, "exclusive_ns"), sts_jsonw_i64(j, x->exclusive_ns[c]);
        if (c == STS_DV_MEMCPY)
            for (int d = 0; d < STS_DV_DIRECTIONS; d++) {
                char key[16];
                snprintf(key, sizeof key, "%s_ns", sts_devview_direction_name((sts_devview_direction)d));
                K(j, key), sts_jsonw_i64(j, x->memcpy_ns[d]);
            }
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_obj_end(j);
}

/* The window's numbers after its device's names: the members of one window object. */
static void window_body(sts_jsonw *j, const sts_devview_window *x)
{
    int split = (x->known & STS_DEVVIEW_KNOWN_IDLE_SPLIT) != 0, queue = (x->known & STS_DEVVIEW_KNOWN_QUEUE) != 0,
        delay = (x->known & STS_DEVVIEW_KNOWN_DELAY) != 0;
    K(j, "start_ns"), sts_jsonw_i64(j, x->start_ns);
    K(j, "window_ns"), sts_jsonw_i64(j, x->window_ns);
    K(j, "busy_ns"), sts_jsonw_i64(j, x->busy_ns);
    by_category(j, x);
    K(j, "overlap");
    sts_jsonw_obj_begin(j);
    K(j, "compute_communication_ns"), sts_jsonw_i64(j, x->overlap_ns);
    K(j, "exposed_communication_ns"), sts_jsonw_i64(j, x->exposed_ns);
    sts_jsonw_obj_end(j);
    K(j, "idle");
    sts_jsonw_obj_begin(j);
    K(j, "total_ns"), sts_jsonw_i64(j, x->idle_ns);
    K(j, "host_wait_ns"), known_i64(j, split, x->host_wait_ns);
    K(j, "kernel_wait_ns"), known_i64(j, split, x->kernel_wait_ns);
    K(j, "other_ns"), known_i64(j, split, x->other_idle_ns);
    sts_jsonw_obj_end(j);
    K(j, "launches");
    sts_jsonw_obj_begin(j);
    K(j, "matched"), sts_jsonw_u64(j, x->matched);
    K(j, "unmatched"), sts_jsonw_u64(j, x->unmatched);
    K(j, "delay_ns");
    sts_jsonw_obj_begin(j);
    K(j, "median"), known_i64(j, delay, x->delay_median_ns);
    K(j, "p90"), known_i64(j, delay, x->delay_p90_ns);
    K(j, "max"), known_i64(j, delay, x->delay_max_ns);
    sts_jsonw_obj_end(j);
    sts_jsonw_obj_end(j);
    K(j, "queue");
    sts_jsonw_obj_begin(j);
    K(j, "mean");
    if (queue)
        sts_jsonw_f64(j, x->queue_mean);
    else
        sts_jsonw_null(j);
    K(j, "max"), known_i64(j, queue, x->queue_max);
    sts_jsonw_obj_end(j);
}

static void window_json(sts_jsonw *j, const sts_timeline *tl, const sts_devview *v, const sts_devview_window *x)
{
    sts_jsonw_obj_begin(j);
    device_name(j, tl, v, x->device);
    window_body(j, x);
    sts_jsonw_obj_end(j);
}

void sts_devview_write_window_named_json(sts_jsonw *w, const char *device, const char *pid, const char *process,
                                         const sts_devview_window *x)
{
    sts_jsonw_obj_begin(w);
    name_json(w, device, pid, process);
    window_body(w, x);
    sts_jsonw_obj_end(w);
}

void sts_devview_write_windows_json(sts_jsonw *w, const sts_timeline *tl, const sts_devview *v,
                                    const sts_devview_window *windows, size_t n)
{
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        window_json(w, tl, v, &windows[i]);
    sts_jsonw_arr_end(w);
}

static void devices_json(sts_jsonw *j, const sts_timeline *tl, const sts_devview *v)
{
    K(j, "devices");
    sts_jsonw_arr_begin(j);
    for (size_t d = 0; d < v->devices.n; d++) {
        const sts_devview_device *x = &v->devices.v[d];
        sts_jsonw_obj_begin(j);
        device_name(j, tl, v, (uint32_t)d);
        K(j, "streams"), sts_jsonw_u64(j, x->lanes);
        K(j, "ops"), sts_jsonw_u64(j, x->ops);
        K(j, "matched"), sts_jsonw_u64(j, x->matched);
        K(j, "start_ns"), sts_jsonw_i64(j, x->start_ns);
        K(j, "end_ns"), sts_jsonw_i64(j, x->end_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void links_json(sts_jsonw *j, const sts_devview_links *k)
{
    K(j, "links");
    sts_jsonw_obj_begin(j);
    K(j, "ops"), sts_jsonw_u64(j, k->ops);
    K(j, "matched"), sts_jsonw_u64(j, k->matched);
    K(j, "by_flow"), sts_jsonw_u64(j, k->by_flow);
    K(j, "no_correlation"), sts_jsonw_u64(j, k->no_correlation);
    K(j, "dangling"), sts_jsonw_u64(j, k->dangling);
    K(j, "launches"), sts_jsonw_u64(j, k->launches);
    K(j, "launch_calls"), sts_jsonw_u64(j, k->launch_calls);
    K(j, "orphan_calls"), sts_jsonw_u64(j, k->orphan_calls);
    K(j, "duplicate_ids"), sts_jsonw_u64(j, k->duplicate_ids);
    K(j, "ignored"), sts_jsonw_u64(j, k->ignored);
    sts_jsonw_obj_end(j);
}

static void rules_json(sts_jsonw *j, const sts_devview *v)
{
    const sts_devview_rules *r = v->rules;
    K(j, "rules");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < r->rules.n; i++) {
        int c = r->rules.v[i].category;
        sts_jsonw_obj_begin(j);
        K(j, "line"), sts_jsonw_u64(j, r->rules.v[i].line);
        K(j, "rule"), sts_jsonw_str(j, r->rules.v[i].text);
        K(j, "category"),
            sts_jsonw_str(j, c == DV_IGNORE ? "ignore" : sts_devview_category_name((sts_devview_category)c));
        K(j, "hits"), sts_jsonw_u64(j, v->hits.v[i]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
    K(j, "no_rule"), sts_jsonw_u64(j, v->hits.v[r->rules.n]);
}

void sts_devview_write_json(sts_jsonw *w, const sts_timeline *tl, const sts_devview *v)
{
    sts_jsonw_obj_begin(w);
    devices_json(w, tl, v);
    links_json(w, &v->links);
    rules_json(w, v);
    K(w, "warnings");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < v->warnings.n; i++)
        sts_jsonw_str(w, v->warnings.v[i]);
    sts_jsonw_arr_end(w);
    K(w, "windows");
    sts_devview_write_windows_json(w, tl, v, v->spans.v, v->spans.n);
    sts_jsonw_obj_end(w);
}
