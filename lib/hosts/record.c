/* A host's record: its facts, lanes, processes, first overlaps and warnings, taken from
 * its timeline so the timeline can be freed. */
#include <stdlib.h>
#include <string.h>

#include "hosts/hosts_impl.h"

sts_status sts_hosts_nomem(sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "hosts: out of memory");
}

sts_host_rec *sts_host_rec_new(void)
{
    sts_host_rec *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    if (sts_strtab_init(&r->str) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

void sts_host_rec_free(sts_host_rec *r)
{
    if (!r) return;
    STS_VEC_RELEASE(r->lanes);
    STS_VEC_RELEASE(r->procs);
    STS_VEC_RELEASE(r->overlaps);
    STS_VEC_RELEASE(r->warnings);
    STS_VEC_RELEASE(r->tried);
    STS_VEC_RELEASE(r->steps);
    STS_VEC_RELEASE(r->children);
    STS_VEC_RELEASE(r->colls);
    STS_VEC_RELEASE(r->dsteps);
    STS_VEC_RELEASE(r->msteps);
    STS_VEC_RELEASE(r->mlives);
    STS_VEC_RELEASE(r->mdevs);
    STS_VEC_RELEASE(r->mpoints);
    STS_VEC_RELEASE(r->mwarnings);
    STS_VEC_RELEASE(r->cops);
    STS_VEC_RELEASE(r->cpre);
    sts_strtab_release(&r->str);
    free(r);
}

void sts_host_rec_lane_names(sts_host_rec *r, const sts_timeline *tl, uint32_t lane, const char **names[4], int *bad)
{
    *names[0] = sts_host_rec_str(r, sts_lane_pid(tl, lane), bad);
    *names[1] = sts_host_rec_str(r, sts_lane_tid(tl, lane), bad);
    *names[2] = sts_host_rec_str(r, sts_lane_process_name(tl, lane), bad);
    *names[3] = sts_host_rec_str(r, sts_lane_thread_name(tl, lane), bad);
}

const char *sts_host_rec_str(sts_host_rec *r, const char *s, int *bad)
{
    if (!s) return NULL;
    uint32_t id = sts_strtab_intern(&r->str, s, strlen(s));
    if (id == UINT32_MAX) {
        *bad = 1;
        return NULL;
    }
    return sts_strtab_get(&r->str, id);
}

sts_hosts *sts_hosts_create(void)
{
    sts_hosts *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    if (sts_strtab_init(&h->nstr) != 0) {
        free(h);
        return NULL;
    }
    return h;
}

void sts_hosts_free(sts_hosts *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->hosts.n; i++)
        sts_host_rec_free(h->hosts.v[i]);
    STS_VEC_RELEASE(h->hosts);
    for (size_t i = 0; i < h->names.n; i++)
        STS_VEC_RELEASE(h->names.v[i].values);
    STS_VEC_RELEASE(h->names);
    STS_VEC_RELEASE(h->view);
    STS_VEC_RELEASE(h->view_rec);
    sts_u64map_release(&h->nmap);
    sts_strtab_release(&h->nstr);
    free(h);
}

int sts_hosts_insert(sts_hosts *h, sts_host_rec *r)
{
    size_t at = h->hosts.n;
    while (at > 0 && h->hosts.v[at - 1]->info.index > r->info.index)
        at--;
    if (at > 0 && h->hosts.v[at - 1]->info.index == r->info.index) return -1;
    if (!STS_VEC_PUSH(h->hosts)) return -1;
    memmove(h->hosts.v + at + 1, h->hosts.v + at, (h->hosts.n - 1 - at) * sizeof *h->hosts.v);
    h->hosts.v[at] = r;
    return 0;
}

sts_name_rec *sts_hosts_name(sts_hosts *h, const char *name, size_t len)
{
    uint32_t id = sts_strtab_intern(&h->nstr, name, len);
    if (id == UINT32_MAX) return NULL;
    uint32_t k = sts_u64map_get(&h->nmap, (uint64_t)id + 1);
    if (k != UINT32_MAX) return &h->names.v[k];
    sts_name_rec *n = STS_VEC_PUSH(h->names);
    if (!n) return NULL;
    if (sts_u64map_put(&h->nmap, (uint64_t)id + 1, (uint32_t)(h->names.n - 1)) != 0) {
        h->names.n--;
        return NULL;
    }
    n->pub.name = sts_strtab_get(&h->nstr, id);
    n->has_values = 1; /* an empty set of durations is complete */
    return n;
}

/* ---- facts ------------------------------------------------------------------------ */

static void copy_info(sts_host_info *in, const sts_timeline *tl)
{
    const sts_timeline_info *ti = sts_timeline_get_info(tl);
    in->bytes = ti->bytes;
    in->compressed = ti->compressed;
    in->truncated = ti->truncated;
    in->events = ti->events;
    memcpy(in->by_phase, ti->by_phase, sizeof in->by_phase);
    in->skipped = ti->skipped;
    in->rejected = ti->rejected;
    in->clamped = ti->clamped;
    in->overlaps = ti->overlaps;
    in->unmatched_end = ti->unmatched_end;
    in->unclosed_begin = ti->unclosed_begin;
    in->resolution_ns = ti->resolution_ns;
    in->ts_min = ti->ts_min;
    in->ts_max = ti->ts_max;
    size_t n;
    sts_timeline_processes(tl, &n), in->processes = n;
    sts_timeline_lanes(tl, &n), in->lanes = n;
    sts_timeline_slices(tl, &n), in->slices = n;
    sts_timeline_instants(tl, &n), in->instants = n;
    sts_timeline_counters(tl, &n), in->counters = n;
    sts_timeline_asyncs(tl, &n), in->asyncs = n;
    in->flows = ti->flows;
    sts_timeline_args(tl, &n), in->args = n;
}

/* The lanes and processes in display order, as one host's analyze lists them. */
static sts_status add_lanes(sts_host_rec *r, const sts_timeline *tl, const uint32_t *order, const sts_busy *busy,
                            sts_error *err)
{
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    if (STS_VEC_RESERVE(r->lanes, nl) != 0) return sts_hosts_nomem(err);
    int bad = 0;
    for (size_t k = 0; k < nl && !bad; k++) {
        uint32_t l = order[k];
        sts_host_lane *hl = STS_VEC_PUSH(r->lanes); /* reserved above */
        sts_host_rec_lane_names(r, tl, l, (const char **[4]){ &hl->pid, &hl->tid, &hl->process, &hl->thread }, &bad);
        hl->device = sts_lane_is_device(tl, l);
        hl->busy = busy[l];
    }
    return bad ? sts_hosts_nomem(err) : STS_OK;
}

static sts_status add_procs(sts_host_rec *r, const sts_timeline *tl, const uint32_t *porder, const sts_busy *busy,
                            sts_error *err)
{
    size_t np;
    const sts_process *procs = sts_timeline_processes(tl, &np);
    if (STS_VEC_RESERVE(r->procs, np) != 0) return sts_hosts_nomem(err);
    int bad = 0;
    for (size_t i = 0; i < np && !bad; i++) {
        uint32_t p = porder[i];
        sts_host_process *hp = STS_VEC_PUSH(r->procs); /* reserved above */
        hp->pid = sts_host_rec_str(r, sts_timeline_string(tl, procs[p].label), &bad);
        hp->name = sts_host_rec_str(r, sts_timeline_string(tl, procs[p].name), &bad);
        hp->busy = busy[p];
    }
    return bad ? sts_hosts_nomem(err) : STS_OK;
}

static sts_status add_overlaps(sts_host_rec *r, const sts_timeline *tl, size_t keep, sts_error *err)
{
    size_t n;
    const sts_overlap *ov = sts_timeline_overlaps(tl, &n);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    const sts_process *procs = sts_timeline_processes(tl, NULL);
    int bad = 0;
    for (size_t i = 0; i < n && i < keep && !bad; i++) {
        const sts_slice *c = &s[ov[i].slice], *p = &s[ov[i].parent];
        sts_host_overlap *o = STS_VEC_PUSH(r->overlaps);
        if (!o) return sts_hosts_nomem(err);
        o->name = sts_host_rec_str(r, sts_timeline_string(tl, c->name), &bad);
        o->parent = sts_host_rec_str(r, sts_timeline_string(tl, p->name), &bad);
        o->pid = sts_host_rec_str(r, sts_timeline_string(tl, procs[lanes[c->lane].process].label), &bad);
        o->tid = sts_host_rec_str(r, sts_timeline_string(tl, lanes[c->lane].label), &bad);
        o->ts_ns = c->ts;
        o->dur_ns = c->dur;
        o->parent_ts_ns = p->ts;
        o->parent_dur_ns = p->dur;
        o->overrun_ns = ov[i].overrun_ns;
    }
    return bad ? sts_hosts_nomem(err) : STS_OK;
}

/* The busy times, lanes, processes and overlaps (STS_HOSTS_FACTS). */
static sts_status add_facts(sts_host_rec *r, const sts_timeline *tl, const sts_hosts_options *opt, sts_error *err)
{
    size_t nl, np;
    sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    sts_busy *lanes = malloc((nl ? nl : 1) * sizeof *lanes), *procs = malloc((np ? np : 1) * sizeof *procs);
    uint32_t *order = malloc((nl ? nl : 1) * sizeof *order), *porder = malloc((np ? np : 1) * sizeof *porder);
    sts_status st = lanes && procs && order && porder ? sts_busy_each(tl, NULL, lanes, procs, &r->info.busy, err)
                                                      : sts_hosts_nomem(err);
    if (st == STS_OK) {
        sts_lane_display_order(tl, order);
        st = sts_process_display_order(tl, order, porder, err);
    }
    if (st == STS_OK) st = add_lanes(r, tl, order, lanes, err);
    if (st == STS_OK) st = add_procs(r, tl, porder, procs, err);
    if (st == STS_OK) st = add_overlaps(r, tl, opt->keep_overlaps, err);
    free(lanes);
    free(procs);
    free(order);
    free(porder);
    return st;
}

/* What the timeline's info says, and its first warnings: kept for every host. */
static sts_status add_info(sts_host_rec *r, const sts_timeline *tl, const sts_hosts_options *opt, sts_error *err)
{
    const sts_timeline_info *ti = sts_timeline_get_info(tl);
    int bad = 0;
    r->info.format = sts_host_rec_str(r, ti->format, &bad);
    r->info.meta_host = sts_host_rec_str(r, ti->host, &bad);
    if (bad) return sts_hosts_nomem(err);
    copy_info(&r->info, tl);
    size_t nw;
    uint64_t total;
    const char *const *w = sts_timeline_warnings(tl, &nw, &total);
    r->info.warnings_total = total;
    for (size_t i = 0; i < nw && i < opt->keep_warnings && !bad; i++) {
        const char **slot = STS_VEC_PUSH(r->warnings);
        if (!slot) return sts_hosts_nomem(err);
        *slot = sts_host_rec_str(r, w[i], &bad);
    }
    return bad ? sts_hosts_nomem(err) : STS_OK;
}

sts_status sts_hosts_add(sts_hosts *h, size_t index, const char *name, const sts_timeline *tl,
                         const sts_hosts_options *opt, sts_error *err)
{
    static const sts_hosts_options defaults = STS_HOSTS_OPTIONS_INIT;
    if (!opt) opt = &defaults;
    for (size_t i = 0; i < h->hosts.n; i++)
        if (h->hosts.v[i]->info.index == index)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "hosts: host %zu (%s) was added already", index,
                                 name ? name : "");
    sts_host_rec *r = sts_host_rec_new();
    if (!r) return sts_hosts_nomem(err);
    int bad = 0;
    r->info.index = index;
    r->info.name = sts_host_rec_str(r, name ? name : "", &bad);
    r->info.path = sts_host_rec_str(r, sts_timeline_get_info(tl)->path, &bad);
    sts_status st = bad ? sts_hosts_nomem(err) : add_info(r, tl, opt, err);
    if (st == STS_OK && (opt->what & STS_HOSTS_FACTS)) st = add_facts(r, tl, opt, err);
    if (st == STS_OK && (opt->what & STS_HOSTS_STEPS)) st = sts_host_rec_steps(r, tl, opt, err);
    if (st == STS_OK && (opt->what & STS_HOSTS_NAMES)) st = sts_hosts_add_names(h, tl, err);
    if (st == STS_OK && (opt->what & STS_HOSTS_MEMORY_DEVICES))
        st = sts_host_rec_memory_devices(r, tl, opt->keep_warnings, err);
    if (st == STS_OK && sts_hosts_insert(h, r) != 0) st = sts_hosts_nomem(err);
    if (st != STS_OK) {
        sts_host_rec_free(r);
        return st;
    }
    h->finished = 0;
    return sts_hosts_refresh_view(h) == 0 ? STS_OK : sts_hosts_nomem(err);
}

/* ---- accessors ---------------------------------------------------------------------- */

size_t sts_hosts_count(const sts_hosts *h)
{
    return h->hosts.n;
}

const sts_host_info *sts_hosts_info(const sts_hosts *h, size_t i)
{
    return i < h->hosts.n ? &h->hosts.v[i]->info : NULL;
}

#define HOST_VEC_ACCESSOR(fn, T, field)                  \
    const T *fn(const sts_hosts *h, size_t i, size_t *n) \
    {                                                    \
        if (i >= h->hosts.n) {                           \
            if (n) *n = 0;                               \
            return NULL;                                 \
        }                                                \
        if (n) *n = h->hosts.v[i]->field.n;              \
        return h->hosts.v[i]->field.v;                   \
    }
HOST_VEC_ACCESSOR(sts_hosts_lanes, sts_host_lane, lanes)
HOST_VEC_ACCESSOR(sts_hosts_processes, sts_host_process, procs)
HOST_VEC_ACCESSOR(sts_hosts_overlaps, sts_host_overlap, overlaps)
HOST_VEC_ACCESSOR(sts_hosts_steps, sts_host_step, steps)
HOST_VEC_ACCESSOR(sts_hosts_step_children, sts_host_child, children)
HOST_VEC_ACCESSOR(sts_hosts_step_collectives, sts_host_collective, colls)
HOST_VEC_ACCESSOR(sts_hosts_device_steps, sts_host_device_step, dsteps)
HOST_VEC_ACCESSOR(sts_hosts_memory_steps, sts_host_memory_step, msteps)
HOST_VEC_ACCESSOR(sts_hosts_memory_lives, sts_memory_live, mlives)
HOST_VEC_ACCESSOR(sts_hosts_memory_devices, sts_memory_device, mdevs)
HOST_VEC_ACCESSOR(sts_hosts_memory_points, sts_memory_point, mpoints)
#undef HOST_VEC_ACCESSOR

const char *const *sts_hosts_warnings(const sts_hosts *h, size_t i, size_t *n)
{
    if (i >= h->hosts.n) {
        if (n) *n = 0;
        return NULL;
    }
    if (n) *n = h->hosts.v[i]->warnings.n;
    return h->hosts.v[i]->warnings.v;
}

const char *const *sts_hosts_memory_warnings(const sts_hosts *h, size_t i, size_t *n)
{
    if (i >= h->hosts.n) {
        if (n) *n = 0;
        return NULL;
    }
    if (n) *n = h->hosts.v[i]->mwarnings.n;
    return h->hosts.v[i]->mwarnings.v;
}

int sts_hosts_memory_asked(const sts_hosts *h, size_t i)
{
    return i < h->hosts.n && h->hosts.v[i]->memory_asked;
}

const sts_host_steps_info *sts_hosts_steps_info(const sts_hosts *h, size_t i)
{
    return i < h->hosts.n && h->hosts.v[i]->has_steps ? &h->hosts.v[i]->steps_info : NULL;
}
