/* The memory document (stepscope/memory.h): one writer for `steps --memory --json`,
 * `analyze --memory --json` and the Python binding, so every caller prints the same bytes.
 * An unknown number (-1 in the structs) is null, never 0. */
#include "stepscope/memory.h"

static void kv_known(sts_jsonw *w, const char *key, int64_t v)
{
    if (v < 0)
        sts_jsonw_kv_null(w, key);
    else
        sts_jsonw_kv_i64(w, key, v);
}

static void lives(sts_jsonw *w, const sts_memory_live *l, size_t n, const char *key, uint32_t first, uint32_t count,
                  int known)
{
    sts_jsonw_key(w, key);
    if (!known) {
        sts_jsonw_null(w);
        return;
    }
    sts_jsonw_arr_begin(w);
    for (uint32_t i = first; i < first + count && i < n; i++) {
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "name", l[i].name);
        if (l[i].within)
            sts_jsonw_kv_str(w, "within", l[i].within);
        else
            sts_jsonw_kv_null(w, "within");
        sts_jsonw_kv_i64(w, "bytes", l[i].bytes);
        sts_jsonw_kv_u64(w, "count", l[i].count);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
}

/* Counts only mean something where the device has allocation events (a counter has none). */
static void kv_count(sts_jsonw *w, const char *key, int has_events, uint64_t v)
{
    if (has_events)
        sts_jsonw_kv_u64(w, key, v);
    else
        sts_jsonw_kv_null(w, key);
}

void sts_memory_write_device_json(sts_jsonw *w, const sts_memory_device *d, const sts_memory_point *p, size_t np,
                                  const sts_memory_live *l, size_t nl)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "device", d->name);
    sts_jsonw_kv_str(w, "source", d->source);
    sts_jsonw_kv_u64(w, "events", d->events);
    kv_known(w, "peak_bytes", d->peak_bytes);
    kv_known(w, "peak_ts_ns", d->peak_bytes < 0 ? -1 : d->peak_ts_ns);
    kv_known(w, "start_bytes", d->start_bytes);
    kv_known(w, "end_bytes", d->end_bytes);
    lives(w, l, nl, "live_at_peak", d->first_live, d->live_count, d->has_addrs && d->peak_bytes >= 0);
    kv_known(w, "untracked_bytes", d->untracked_bytes);
    kv_count(w, "allocations", d->has_events, d->allocations);
    kv_known(w, "allocated_bytes", d->has_events ? d->allocated_bytes : -1);
    kv_count(w, "frees", d->has_events, d->frees);
    kv_known(w, "freed_bytes", d->has_events ? d->freed_bytes : -1);
    sts_jsonw_kv_u64(w, "unmatched_frees", d->unmatched_frees);
    sts_jsonw_kv_u64(w, "reused_addrs", d->reused_addrs);
    sts_jsonw_kv_u64(w, "bad_totals", d->bad_totals);
    sts_jsonw_kv_u64(w, "inconsistent_totals", d->inconsistent_totals);
    sts_jsonw_kv_u64(w, "bad_events", d->bad_events);
    sts_jsonw_key(w, "leak");
    if (d->leak_steps < 3) {
        sts_jsonw_null(w);
    } else {
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_bool(w, "suspect", d->leak_suspect);
        sts_jsonw_kv_u64(w, "steps", d->leak_steps);
        sts_jsonw_kv_u64(w, "grew", d->leak_grew);
        sts_jsonw_kv_i64(w, "first_step", d->leak_first_step);
        sts_jsonw_kv_i64(w, "last_step", d->leak_last_step);
        sts_jsonw_kv_i64(w, "growth_bytes", d->leak_growth_bytes);
        lives(w, l, nl, "kept", d->first_kept, d->kept_count, d->leak_suspect && d->has_addrs);
        kv_known(w, "kept_bytes", d->leak_suspect ? d->kept_bytes : -1);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_key(w, "points");
    sts_jsonw_arr_begin(w);
    for (uint32_t i = d->first_point; i < d->first_point + d->point_count && i < np; i++) {
        sts_jsonw_arr_begin(w);
        sts_jsonw_i64(w, p[i].ts_ns);
        sts_jsonw_i64(w, p[i].bytes);
        sts_jsonw_arr_end(w);
    }
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
}

void sts_memory_write_json(sts_jsonw *w, const sts_memory *m)
{
    size_t n, np, nl;
    const sts_memory_device *d = sts_memory_devices(m, &n);
    const sts_memory_point *p = sts_memory_points(m, &np);
    const sts_memory_live *l = sts_memory_lives(m, &nl);
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        sts_memory_write_device_json(w, &d[i], p, np, l, nl);
    sts_jsonw_arr_end(w);
}

void sts_memory_write_entry_json(sts_jsonw *w, const char *device, int has_events, int has_addrs,
                                 const sts_memory_step *e, const sts_memory_live *l, size_t nl)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "device", device);
    kv_known(w, "peak_bytes", e->peak_bytes);
    kv_known(w, "peak_ts_ns", e->peak_bytes < 0 ? -1 : e->peak_ts_ns);
    lives(w, l, nl, "live_at_peak", e->first_live, e->live_count, has_addrs && e->peak_bytes >= 0);
    kv_known(w, "untracked_bytes", e->untracked_bytes);
    kv_count(w, "allocations", has_events, e->allocations);
    kv_known(w, "allocated_bytes", e->allocated_bytes);
    kv_count(w, "frees", has_events, e->frees);
    kv_known(w, "freed_bytes", e->freed_bytes);
    kv_known(w, "start_bytes", e->start_bytes);
    kv_known(w, "end_bytes", e->end_bytes);
    sts_jsonw_obj_end(w);
}

void sts_memory_write_step_json(sts_jsonw *w, const sts_memory *m, size_t k)
{
    size_t n, nd, nl;
    const sts_memory_step *e = sts_memory_step_entries(m, k, &n);
    const sts_memory_device *d = sts_memory_devices(m, &nd);
    const sts_memory_live *l = sts_memory_lives(m, &nl);
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        const sts_memory_device *dv = &d[e[i].device];
        sts_memory_write_entry_json(w, dv->name, dv->has_events, dv->has_addrs, &e[i], l, nl);
    }
    sts_jsonw_arr_end(w);
}

sts_status sts_memory_write_document(sts_jsonw *w, const sts_timeline *tl, const sts_memory *m, const sts_steps *s)
{
    size_t nst = 0, nw;
    const sts_step *st = s ? sts_steps_list(s, &nst) : NULL;
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "trace", sts_timeline_get_info(tl)->path);
    sts_jsonw_key(w, "devices");
    sts_memory_write_json(w, m);
    sts_jsonw_key(w, "steps");
    if (!s) {
        sts_jsonw_null(w);
    } else {
        sts_jsonw_arr_begin(w);
        for (size_t k = 0; k < nst; k++) {
            sts_jsonw_obj_begin(w);
            sts_jsonw_kv_i64(w, "step", st[k].index);
            sts_jsonw_kv_i64(w, "ts_ns", st[k].ts);
            sts_jsonw_kv_i64(w, "dur_ns", st[k].dur);
            sts_jsonw_key(w, "memory");
            sts_memory_write_step_json(w, m, k);
            sts_jsonw_obj_end(w);
        }
        sts_jsonw_arr_end(w);
    }
    const char *const *warn = sts_memory_warnings(m, &nw);
    sts_jsonw_key(w, "warnings");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < nw; i++)
        sts_jsonw_str(w, warn[i]);
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
    return STS_OK;
}
