/* A host's device memory, kept per step and device in its record (STS_HOSTS_MEMORY), and
 * written as `steps --memory --json`'s "memory" of each host step. The numbers are
 * sts_memory_find()'s over the host's own steps; the live allocations at each step's
 * peak are copied with their names, so the record outlives the timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts/hosts_impl.h"

/* The memory warnings among the host's; also every one of them in mwarnings when `all`. */
static int keep_warnings(sts_host_rec *r, const sts_memory *m, size_t keep, int all)
{
    size_t nw;
    const char *const *w = sts_memory_warnings(m, &nw);
    int bad = 0;
    for (size_t i = 0; i < nw && all && !bad; i++) {
        const char **slot = STS_VEC_PUSH(r->mwarnings);
        if (!slot) return -1;
        *slot = sts_host_rec_str(r, w[i], &bad);
    }
    for (size_t i = 0; i < nw && !bad; i++) {
        r->info.warnings_total++;
        if (r->warnings.n >= keep) continue;
        const char **slot = STS_VEC_PUSH(r->warnings);
        if (!slot) return -1;
        *slot = sts_host_rec_str(r, w[i], &bad);
    }
    return bad ? -1 : 0;
}

/* Copies one entry, its live allocations appended to the record's. */
static int keep_entry(sts_host_rec *r, uint32_t j, const sts_memory_device *dv, const char *device,
                      const sts_memory_step *e, const sts_memory_live *l, size_t nl)
{
    sts_host_memory_step *x = STS_VEC_PUSH(r->msteps);
    if (!x) return -1;
    x->step = j;
    x->device = device;
    x->has_events = dv->has_events;
    x->has_addrs = dv->has_addrs;
    x->e = *e;
    x->e.first_live = (uint32_t)r->mlives.n;
    x->e.live_count = 0;
    int bad = 0;
    for (uint32_t i = e->first_live; i < e->first_live + e->live_count && i < nl && !bad; i++) {
        sts_memory_live *c = STS_VEC_PUSH(r->mlives);
        if (!c) return -1;
        c->name = sts_host_rec_str(r, l[i].name ? l[i].name : "", &bad);
        c->within = sts_host_rec_str(r, l[i].within, &bad);
        c->bytes = l[i].bytes;
        c->count = l[i].count;
        x->e.live_count++;
    }
    return bad ? -1 : 0;
}

sts_status sts_host_rec_memory(sts_host_rec *r, const sts_timeline *tl, const sts_steps *s, size_t keep, sts_error *err)
{
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    r->memory_asked = 1;
    if (!n) return STS_OK;
    sts_memory_options o = STS_MEMORY_OPTIONS_INIT;
    o.steps = s;
    sts_memory *m = NULL;
    sts_status status = sts_memory_find(tl, &o, &m, err);
    if (status != STS_OK) return status;
    size_t nd, nl;
    const sts_memory_device *dev = sts_memory_devices(m, &nd);
    const sts_memory_live *l = sts_memory_lives(m, &nl);
    const char **names = malloc((nd ? nd : 1) * sizeof *names);
    int bad = !names || keep_warnings(r, m, keep, 0) != 0;
    for (size_t d = 0; d < nd && !bad; d++)
        names[d] = sts_host_rec_str(r, dev[d].name, &bad);
    /* The record kept each step number's first step (keep_steps()), in order. */
    size_t j = 0;
    for (size_t k = 0; k < n && j < r->steps.n && !bad; k++) {
        if (r->steps.v[j].step != st[k].index || r->steps.v[j].ts_ns != st[k].ts) continue;
        size_t ne;
        const sts_memory_step *e = sts_memory_step_entries(m, k, &ne);
        for (size_t i = 0; i < ne && !bad; i++)
            bad = keep_entry(r, (uint32_t)j, &dev[e[i].device], names[e[i].device], &e[i], l, nl) != 0;
        j++;
    }
    free(names);
    sts_memory_free(m);
    return bad ? sts_hosts_nomem(err) : STS_OK;
}

/* Copies live allocations [first, first + count) into the record's; returns where they
 * begin there. */
static uint32_t copy_lives(sts_host_rec *r, const sts_memory_live *l, size_t nl, uint32_t first, uint32_t count,
                           int *bad)
{
    uint32_t at = (uint32_t)r->mlives.n;
    for (uint32_t i = first; i < first + count && i < nl && !*bad; i++) {
        sts_memory_live *c = STS_VEC_PUSH(r->mlives);
        if (!c) {
            *bad = 1;
            break;
        }
        c->name = sts_host_rec_str(r, l[i].name ? l[i].name : "", bad);
        c->within = sts_host_rec_str(r, l[i].within, bad);
        c->bytes = l[i].bytes;
        c->count = l[i].count;
    }
    return at;
}

sts_status sts_host_rec_memory_devices(sts_host_rec *r, const sts_timeline *tl, size_t keep, sts_error *err)
{
    sts_memory_options o = STS_MEMORY_OPTIONS_INIT;
    sts_memory *m = NULL;
    sts_status status = sts_memory_find(tl, &o, &m, err);
    if (status != STS_OK) return status;
    size_t nd, np, nl;
    const sts_memory_device *dev = sts_memory_devices(m, &nd);
    const sts_memory_point *p = sts_memory_points(m, &np);
    const sts_memory_live *l = sts_memory_lives(m, &nl);
    int bad = keep_warnings(r, m, keep, 1) != 0;
    for (size_t d = 0; d < nd && !bad; d++) {
        sts_memory_device *x = STS_VEC_PUSH(r->mdevs);
        if (!x) {
            bad = 1;
            break;
        }
        *x = dev[d];
        x->name = sts_host_rec_str(r, dev[d].name, &bad);
        x->source = sts_host_rec_str(r, dev[d].source, &bad);
        uint32_t fl = copy_lives(r, l, nl, dev[d].first_live, dev[d].live_count, &bad);
        uint32_t fk = copy_lives(r, l, nl, dev[d].first_kept, dev[d].kept_count, &bad);
        x = &r->mdevs.v[r->mdevs.n - 1];
        x->first_live = fl;
        x->first_kept = fk;
        x->first_point = (uint32_t)r->mpoints.n;
        if (!bad && dev[d].point_count && STS_VEC_RESERVE(r->mpoints, r->mpoints.n + dev[d].point_count) != 0) bad = 1;
        for (uint32_t i = dev[d].first_point; i < dev[d].first_point + dev[d].point_count && i < np && !bad; i++)
            r->mpoints.v[r->mpoints.n++] = p[i];
    }
    sts_memory_free(m);
    return bad ? sts_hosts_nomem(err) : STS_OK;
}

sts_status sts_hosts_write_memory_json(sts_jsonw *w, const sts_hosts *h, const char *run, sts_error *err)
{
    (void)err;
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_u64(w, "hosts_count", sts_hosts_count(h));
    if (run)
        sts_jsonw_kv_str(w, "run", run);
    else
        sts_jsonw_kv_null(w, "run");
    sts_jsonw_key(w, "hosts");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t nd, np, nl, nw;
        const sts_memory_device *d = sts_hosts_memory_devices(h, i, &nd);
        const sts_memory_point *p = sts_hosts_memory_points(h, i, &np);
        const sts_memory_live *l = sts_hosts_memory_lives(h, i, &nl);
        const char *const *wn = sts_hosts_memory_warnings(h, i, &nw);
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "host", sts_hosts_info(h, i)->name);
        sts_jsonw_kv_str(w, "trace", sts_hosts_info(h, i)->path);
        sts_jsonw_key(w, "devices");
        sts_jsonw_arr_begin(w);
        for (size_t k = 0; k < nd; k++)
            sts_memory_write_device_json(w, &d[k], p, np, l, nl);
        sts_jsonw_arr_end(w);
        sts_jsonw_key(w, "warnings");
        sts_jsonw_arr_begin(w);
        for (size_t k = 0; k < nw; k++)
            sts_jsonw_str(w, wn[k]);
        sts_jsonw_arr_end(w);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
    return STS_OK;
}

void sts_host_memory_steps_write_json(sts_jsonw *j, const sts_hosts *h, size_t i, const sts_host_memory_step *e,
                                      size_t n)
{
    size_t nl;
    const sts_memory_live *l = sts_hosts_memory_lives(h, i, &nl);
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++)
        sts_memory_write_entry_json(j, e[k].device, e[k].has_events, e[k].has_addrs, &e[k].e, l, nl);
    sts_jsonw_arr_end(j);
}
