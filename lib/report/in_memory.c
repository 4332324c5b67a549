/* The trace section's memory figures (docs/memory.md): per device, the bytes in use over
 * time as sts_memory_find() read them, with the steps' boundaries and the peak marked,
 * then its warnings. A device whose events state no totals has no line: the page says so
 * instead of drawing a sum the trace does not give. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/report_impl.h"
#include "stepscope/memory.h"

#define MAX_DEVICES_DRAWN 4
#define MAX_STEPS_DRAWN   60

static const char HOW_MEMORY[] =
    "The line is the bytes this device had in use after each allocation and free, as the trace itself states them "
    "(PyTorch's Total Allocated, XLA's bytes_allocated, or a memory counter), held until the next event; it starts "
    "at the first event, from the bytes in use just before it. The axis starts at zero. Dashed vertical lines are "
    "the steps' starts and the last step's end, numbered above the plot; hover one for that step's peak. The dot "
    "is the peak, where it was first reached. Where more events fall in one pixel than can be drawn, that pixel "
    "shows their lowest and highest value, so no peak is thinned away. stepscope steps --memory lists what was "
    "live at each peak. Definitions in docs/memory.md.";

static sts_status device_fig(sts_report *r, sts_rpt_section *sec, const sts_memory *m, const sts_memory_device *dv,
                             size_t d, const sts_steps *st, const char *step_name)
{
    size_t np, nsteps = 0;
    const sts_memory_point *pt = sts_memory_points(m, &np);
    const sts_step *steps = st ? sts_steps_list(st, &nsteps) : NULL;
    sts_rpt_memory *f = sts_rpt_alloc(r, sizeof *f);
    if (!f) return STS_ERR_NOMEM;
    f->device = sts_rpt_strdup(r, dv->name);
    f->step_name = step_name;
    f->found = nsteps;
    f->nsteps = nsteps < MAX_STEPS_DRAWN ? nsteps : MAX_STEPS_DRAWN;
    /* One more point for the bytes in use just before the first event. */
    int lead = dv->start_bytes >= 0 && dv->point_count;
    f->npoints = dv->point_count + (size_t)lead;
    double *ts = sts_rpt_alloc(r, (f->npoints + 1) * sizeof *ts), *by = sts_rpt_alloc(r, (f->npoints + 1) * sizeof *by);
    double *s0 = sts_rpt_alloc(r, (f->nsteps + 1) * sizeof *s0), *s1 = sts_rpt_alloc(r, (f->nsteps + 1) * sizeof *s1);
    double *sp = sts_rpt_alloc(r, (f->nsteps + 1) * sizeof *sp);
    f->labels = sts_rpt_alloc(r, (f->nsteps + 1) * sizeof *f->labels);
    if (!f->device || !ts || !by || !s0 || !s1 || !sp || !f->labels) return STS_ERR_NOMEM;
    const sts_memory_point *p = pt + dv->first_point;
    if (lead) {
        ts[0] = (double)p[0].ts_ns;
        by[0] = (double)dv->start_bytes;
    }
    for (size_t i = 0; i < dv->point_count; i++) {
        ts[i + (size_t)lead] = (double)p[i].ts_ns;
        by[i + (size_t)lead] = (double)p[i].bytes;
    }
    f->ts = ts;
    f->bytes = by;
    f->peak_bytes = (double)dv->peak_bytes;
    f->peak_ts = (double)dv->peak_ts_ns;
    f->start_bytes = (double)dv->start_bytes;
    f->end_bytes = (double)dv->end_bytes;
    double t0 = dv->point_count ? (double)p[0].ts_ns : 0, t1 = dv->point_count ? ts[f->npoints - 1] : 0;
    for (size_t k = 0; k < f->nsteps; k++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%" PRId64, steps[k].index);
        if (!(f->labels[k] = sts_rpt_strdup(r, lab))) return STS_ERR_NOMEM;
        s0[k] = (double)steps[k].ts;
        s1[k] = (double)(steps[k].ts + steps[k].dur);
        size_t ne;
        const sts_memory_step *e = sts_memory_step_entries(m, k, &ne);
        sp[k] = e && d < ne ? (double)e[d].peak_bytes : -1;
        if (!dv->point_count && k == 0) t0 = s0[k], t1 = s1[k];
        if (s0[k] < t0) t0 = s0[k];
        if (s1[k] > t1) t1 = s1[k];
    }
    f->t0 = t0;
    f->t1 = t1;
    f->step_ts = s0;
    f->step_end = s1;
    f->step_peak = sp;
    char id[32];
    snprintf(id, sizeof id, "fig-memory%zu", d);
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_MEMORY, id, f, HOW_MEMORY)) return STS_ERR_NOMEM;
    return STS_OK;
}

sts_status sts_rpt_memory_figures(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_steps *st,
                                  const char *step_name)
{
    sts_memory_options o = STS_MEMORY_OPTIONS_INIT;
    o.steps = st;
    sts_memory *m = NULL;
    sts_status s = sts_memory_find(tl, &o, &m, NULL);
    if (s != STS_OK) return s;
    size_t nd, drawn = 0;
    const sts_memory_device *dv = sts_memory_devices(m, &nd);
    if (nd && !sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Device memory over time")) s = STS_ERR_NOMEM;
    for (size_t d = 0; d < nd && s == STS_OK; d++) {
        if (!dv[d].has_totals || !dv[d].point_count) {
            char note[300];
            snprintf(note, sizeof note,
                     "%s: its memory events do not state the bytes in use, so its memory over time is unknown and "
                     "not drawn.",
                     dv[d].name);
            if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, note)) s = STS_ERR_NOMEM;
            continue;
        }
        if (drawn == MAX_DEVICES_DRAWN) continue;
        s = device_fig(r, sec, m, &dv[d], d, st, step_name);
        drawn++;
    }
    size_t with = 0;
    for (size_t d = 0; d < nd; d++)
        with += dv[d].has_totals && dv[d].point_count;
    if (s == STS_OK && with > drawn) {
        char note[160];
        snprintf(note, sizeof note, "%zu more devices not drawn (stepscope analyze --memory lists every one).",
                 with - drawn);
        if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, note)) s = STS_ERR_NOMEM;
    }
    size_t nw;
    const char *const *w = sts_memory_warnings(m, &nw);
    for (size_t i = 0; s == STS_OK && i < nw; i++)
        if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, w[i])) s = STS_ERR_NOMEM;
    sts_memory_free(m);
    return s;
}
