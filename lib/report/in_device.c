/* The trace section's device figures: per step, a stacked bar per device of where its
 * window went (the categories' exclusive times, then the idle causes), from the device
 * view (sts_devview_compute()). The segments add up to the step exactly, so the bar
 * meets the step's total line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/figures.h"
#include "report/report_impl.h"
#include "stepscope/devview.h"

#define MAX_DEVICES_DRAWN 4
#define MAX_STEPS_DRAWN   60

static const char HOW_DEVICE[] =
    "One bar per step, as tall as the step: where this device's time went while the host ran the step (the device "
    "is the union of its streams). Busy time is split by category, each instant given to the first running of "
    "compute, communication (the part no compute hid), memcpy, memset and other, so the busy segments add up to "
    "the busy time instead of counting overlapping streams twice. Idle time is split by cause: host_wait, nothing "
    "had been launched yet (the host was late); kernel_wait, work was launched and had not started; the rest "
    "(hatched), the next op's launch is unknown or nothing followed. Definitions in docs/device.md.";

static const char *const SERIES[] = { "compute", "communication (exposed)", "memcpy",           "memset",
                                      "other",   "idle: host_wait",         "idle: kernel_wait" };
#define NSERIES (sizeof SERIES / sizeof SERIES[0])

static sts_status device_fig(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_devview *v,
                             const sts_steps *st, uint32_t d, const char *step_name, int *drawn)
{
    size_t n;
    const sts_step *steps = sts_steps_list(st, &n);
    sts_rpt_steps *s = sts_rpt_steps_new(r, steps, n, MAX_STEPS_DRAWN, SERIES, NSERIES);
    if (!s) return STS_ERR_NOMEM;
    char label[200], title[300];
    sts_devview_device_label(tl, v, d, label, sizeof label);
    snprintf(title, sizeof title, "Where %s's time went in each step: busy by category, idle by cause", label);
    s->title = sts_rpt_strdup(r, title);
    s->rem_label = "idle: other or unknown";
    s->step_name = step_name;
    if (!s->title) return STS_ERR_NOMEM;
    for (size_t k = 0; k < s->nsteps; k++) {
        const sts_devview_window *x = &sts_devview_step_windows(v, k, NULL)[d];
        s->total_ns[k] = (double)x->window_ns;
        double seg[NSERIES];
        for (int c = 0; c < STS_DV_CATEGORIES; c++)
            seg[c] = (double)x->exclusive_ns[c];
        seg[5] = (double)x->host_wait_ns;
        seg[6] = (double)x->kernel_wait_ns;
        for (size_t j = 0; j < NSERIES; j++) {
            s->child_ns[k * NSERIES + j] = seg[j];
            s->child_count[k * NSERIES + j] = seg[j] > 0;
        }
        s->rem_ns[k] = (double)x->other_idle_ns;
    }
    char id[32];
    snprintf(id, sizeof id, "fig-device%u", d);
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_STEPS, id, s, HOW_DEVICE)) return STS_ERR_NOMEM;
    (*drawn)++;
    return STS_OK;
}

sts_status sts_rpt_device_figures(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_steps *st,
                                  const char *step_name)
{
    size_t n;
    sts_steps_list(st, &n);
    if (!n) return STS_OK;
    sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
    o.steps = st;
    sts_devview *v = NULL;
    sts_status s = sts_devview_compute(tl, &o, &v, NULL);
    if (s != STS_OK) return s;
    size_t nd;
    sts_devview_devices(v, &nd);
    int drawn = 0;
    if (nd && !sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Where each device's time went in each step"))
        s = STS_ERR_NOMEM;
    for (uint32_t d = 0; d < nd && d < MAX_DEVICES_DRAWN && s == STS_OK; d++)
        s = device_fig(r, sec, tl, v, st, d, step_name, &drawn);
    if (s == STS_OK && nd > MAX_DEVICES_DRAWN) {
        char note[160];
        snprintf(note, sizeof note, "%zu more devices not drawn (stepscope steps --device lists every one).",
                 nd - MAX_DEVICES_DRAWN);
        if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, note)) s = STS_ERR_NOMEM;
    }
    size_t nw;
    const char *const *w = sts_devview_warnings(v, &nw);
    for (size_t i = 0; s == STS_OK && drawn && i < nw; i++)
        if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, w[i])) s = STS_ERR_NOMEM;
    /* The critical path follows the device view's launches: computed from the same view. */
    if (s == STS_OK) s = sts_rpt_critpath_figures(r, sec, tl, st, v, step_name);
    sts_devview_free(v);
    return s;
}
