/* `analyze --json` and `steps --json` on several hosts (docs/hosts.md): written here
 * once, for the CLI and the Python binding, from the hosts' records and their
 * alignment. */
#include <stdio.h>
#include <string.h>

#include "hosts/hosts_impl.h"

static int64_t span_of(const sts_host_info *in)
{
    return in->ts_max - in->ts_min;
}

void sts_hosts_add_up(const sts_hosts *h, sts_hosts_totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const sts_host_info *in = sts_hosts_info(h, i);
        t->bytes += in->bytes;
        t->events += in->events;
        for (int c = 0; c < 128; c++)
            t->by_phase[c] += in->by_phase[c];
        t->skipped += in->skipped;
        t->rejected += in->rejected;
        t->clamped += in->clamped;
        t->overlaps += in->overlaps;
        t->unmatched_end += in->unmatched_end;
        t->unclosed_begin += in->unclosed_begin;
        t->processes += in->processes;
        t->lanes += in->lanes;
        t->slices += in->slices;
        t->instants += in->instants;
        t->counters += in->counters;
        t->asyncs += in->asyncs;
        t->flows += in->flows;
        t->args += in->args;
        t->warnings += in->warnings_total;
        t->compressed += in->compressed != 0;
        t->truncated += in->truncated != 0;
        t->fine += in->resolution_ns != 1000;
        t->busy += in->busy.union_ns;
        t->span += in->busy.span_ns;
        if (span_of(in) > span_of(sts_hosts_info(h, t->longest))) t->longest = i;
    }
}

void sts_hosts_formats(const sts_hosts *h, char *out, size_t cap)
{
    size_t n = sts_hosts_count(h), at = 0;
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const char *f = sts_hosts_info(h, i)->format;
        size_t first = i, count = 0;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(sts_hosts_info(h, k)->format, f) != 0) continue;
            if (k < first) first = k;
            count++;
        }
        if (first != i) continue;
        if (count == n)
            snprintf(out, cap, "%s", f);
        else if (at < cap)
            at += (size_t)snprintf(out + at, cap - at, "%s%s (%zu)", at ? ", " : "", f, count);
    }
}

/* ---- analyze ---------------------------------------------------------------------------- */

static void totals(sts_jsonw *j, const sts_hosts *h, const char *run, const sts_hosts_totals *t)
{
    sts_jsonw_key(j, "trace");
    sts_jsonw_obj_begin(j);
    sts_jsonw_kv_u64(j, "hosts", sts_hosts_count(h));
    sts_jsonw_kv_str(j, "run", run);
    char fm[256];
    sts_hosts_formats(h, fm, sizeof fm);
    sts_jsonw_kv_str(j, "format", fm);
    sts_jsonw_kv_u64(j, "bytes", t->bytes);
    sts_jsonw_kv_u64(j, "compressed", t->compressed);
    sts_jsonw_kv_u64(j, "truncated", t->truncated);
    sts_jsonw_kv_u64(j, "events", t->events);
    sts_jsonw_key(j, "by_phase");
    sts_phases_write_json(j, t->by_phase);
    sts_jsonw_kv_u64(j, "processes", t->processes);
    sts_jsonw_kv_u64(j, "lanes", t->lanes);
    sts_jsonw_kv_u64(j, "slices", t->slices);
    sts_jsonw_kv_u64(j, "instants", t->instants);
    sts_jsonw_kv_u64(j, "counters", t->counters);
    sts_jsonw_kv_u64(j, "asyncs", t->asyncs);
    sts_jsonw_kv_u64(j, "flows", t->flows);
    sts_jsonw_kv_u64(j, "args_kept", t->args);
    sts_jsonw_kv_i64(j, "busy_ns", t->busy);
    sts_jsonw_kv_i64(j, "span_ns", t->span);
    sts_jsonw_kv_i64(j, "resolution_ns", t->fine ? 1 : 1000);
    sts_jsonw_kv_u64(j, "clamped", t->clamped);
    sts_jsonw_kv_u64(j, "overlaps", t->overlaps);
    sts_jsonw_kv_u64(j, "unmatched_end", t->unmatched_end);
    sts_jsonw_kv_u64(j, "unclosed_begin", t->unclosed_begin);
    sts_jsonw_kv_u64(j, "skipped", t->skipped);
    sts_jsonw_kv_u64(j, "rejected", t->rejected);
    sts_jsonw_kv_u64(j, "warnings_total", t->warnings);
    sts_jsonw_obj_end(j);
}

static void host(sts_jsonw *j, const sts_hosts *h, size_t i)
{
    const sts_host_info *in = sts_hosts_info(h, i);
    sts_jsonw_obj_begin(j);
    sts_jsonw_kv_str(j, "host", in->name);
    sts_jsonw_kv_str(j, "path", in->path);
    sts_jsonw_kv_str(j, "meta_host", in->meta_host);
    sts_jsonw_kv_str(j, "format", in->format);
    sts_jsonw_kv_u64(j, "bytes", in->bytes);
    sts_jsonw_kv_bool(j, "compressed", in->compressed);
    sts_jsonw_kv_bool(j, "truncated", in->truncated);
    sts_jsonw_kv_u64(j, "events", in->events);
    sts_jsonw_key(j, "by_phase");
    sts_phases_write_json(j, in->by_phase);
    sts_jsonw_kv_u64(j, "processes", in->processes);
    sts_jsonw_kv_u64(j, "lanes", in->lanes);
    sts_jsonw_kv_u64(j, "slices", in->slices);
    sts_jsonw_kv_u64(j, "instants", in->instants);
    sts_jsonw_kv_u64(j, "counters", in->counters);
    sts_jsonw_kv_u64(j, "asyncs", in->asyncs);
    sts_jsonw_kv_u64(j, "flows", in->flows);
    sts_jsonw_kv_u64(j, "args_kept", in->args);
    sts_jsonw_kv_i64(j, "ts_min_ns", in->ts_min);
    sts_jsonw_kv_i64(j, "ts_max_ns", in->ts_max);
    sts_jsonw_kv_i64(j, "span_ns", span_of(in));
    sts_jsonw_kv_i64(j, "busy_ns", in->busy.union_ns);
    sts_jsonw_kv_i64(j, "resolution_ns", in->resolution_ns);
    sts_jsonw_kv_u64(j, "clamped", in->clamped);
    sts_jsonw_kv_u64(j, "overlaps", in->overlaps);
    sts_jsonw_kv_u64(j, "unmatched_end", in->unmatched_end);
    sts_jsonw_kv_u64(j, "unclosed_begin", in->unclosed_begin);
    sts_jsonw_kv_u64(j, "skipped", in->skipped);
    sts_jsonw_kv_u64(j, "rejected", in->rejected);
    sts_jsonw_kv_u64(j, "warnings_total", in->warnings_total);
    size_t nw;
    const char *const *w = sts_hosts_warnings(h, i, &nw);
    sts_jsonw_key(j, "warnings");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < nw; k++)
        sts_jsonw_str(j, w[k]);
    sts_jsonw_arr_end(j);
    sts_jsonw_obj_end(j);
}

static void names(sts_jsonw *j, const sts_hosts *h, size_t top)
{
    size_t n;
    const sts_host_name *nm = sts_hosts_names(h, &n);
    size_t show = top && top < n ? top : n;
    sts_jsonw_key(j, "names");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < show; i++) {
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_str(j, "name", nm[i].name);
        sts_jsonw_kv_u64(j, "count", nm[i].count);
        sts_jsonw_kv_i64(j, "total_ns", nm[i].total_ns);
        sts_jsonw_kv_i64(j, "self_ns", nm[i].self_ns);
        sts_jsonw_kv_i64(j, "min_ns", nm[i].min_ns);
        sts_jsonw_kv_i64(j, "median_ns", nm[i].median_ns);
        sts_jsonw_kv_i64(j, "max_ns", nm[i].max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void lanes_and_processes(sts_jsonw *j, const sts_hosts *h)
{
    sts_jsonw_key(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_lane *l = sts_hosts_lanes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            sts_jsonw_obj_begin(j);
            sts_jsonw_kv_str(j, "host", sts_hosts_info(h, i)->name);
            sts_jsonw_kv_str(j, "pid", l[k].pid);
            sts_jsonw_kv_str(j, "tid", l[k].tid);
            sts_jsonw_kv_str(j, "process", l[k].process);
            sts_jsonw_kv_str(j, "thread", l[k].thread);
            sts_jsonw_kv_bool(j, "device", l[k].device);
            sts_busy_write_json(j, &l[k].busy);
            sts_jsonw_obj_end(j);
        }
    }
    sts_jsonw_arr_end(j);
    sts_jsonw_key(j, "processes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_process *p = sts_hosts_processes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            sts_jsonw_obj_begin(j);
            sts_jsonw_kv_str(j, "host", sts_hosts_info(h, i)->name);
            sts_jsonw_kv_str(j, "pid", p[k].pid);
            sts_jsonw_kv_str(j, "process", p[k].name);
            sts_busy_write_json(j, &p[k].busy);
            sts_jsonw_obj_end(j);
        }
    }
    sts_jsonw_arr_end(j);
}

static void overlaps(sts_jsonw *j, const sts_hosts *h)
{
    sts_jsonw_key(j, "overlap_list");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_overlap *o = sts_hosts_overlaps(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            sts_jsonw_obj_begin(j);
            sts_jsonw_kv_str(j, "host", sts_hosts_info(h, i)->name);
            sts_jsonw_kv_str(j, "name", o[k].name);
            sts_jsonw_kv_str(j, "parent", o[k].parent);
            sts_jsonw_kv_str(j, "pid", o[k].pid);
            sts_jsonw_kv_str(j, "tid", o[k].tid);
            sts_jsonw_kv_i64(j, "ts_ns", o[k].ts_ns);
            sts_jsonw_kv_i64(j, "dur_ns", o[k].dur_ns);
            sts_jsonw_kv_i64(j, "parent_ts_ns", o[k].parent_ts_ns);
            sts_jsonw_kv_i64(j, "parent_dur_ns", o[k].parent_dur_ns);
            sts_jsonw_kv_i64(j, "overrun_ns", o[k].overrun_ns);
            sts_jsonw_obj_end(j);
        }
    }
    sts_jsonw_arr_end(j);
}

sts_status sts_hosts_write_analyze_json(sts_jsonw *w, const sts_hosts *h, const char *run, size_t top, sts_error *err)
{
    (void)err;
    sts_hosts_totals t;
    sts_hosts_add_up(h, &t);
    sts_jsonw_obj_begin(w);
    totals(w, h, run, &t);
    sts_jsonw_key(w, "hosts");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < sts_hosts_count(h); i++)
        host(w, h, i);
    sts_jsonw_arr_end(w);
    names(w, h, top);
    lanes_and_processes(w, h);
    sts_jsonw_kv_u64(w, "clamped", t.clamped);
    sts_jsonw_kv_u64(w, "overlaps", t.overlaps);
    overlaps(w, h);
    sts_jsonw_obj_end(w);
    return STS_OK;
}

/* ---- steps -------------------------------------------------------------------------------- */

static const char *host_name(const sts_hosts *h, uint32_t i)
{
    return sts_hosts_info(h, i)->name;
}

static void cause(sts_jsonw *j, const sts_hosts *h, const sts_aligned_step *s)
{
    sts_jsonw_key(j, "by");
    if (s->by.kind == STS_CAUSE_NONE) {
        sts_jsonw_null(j);
        return;
    }
    sts_jsonw_obj_begin(j);
    sts_jsonw_kv_str(j, "kind", sts_cause_kind_name(s->by.kind));
    sts_jsonw_kv_str(j, "name", s->by.name);
    sts_jsonw_kv_i64(j, "ns", s->by.slow_ns);
    sts_jsonw_kv_str(j, "median_host", host_name(h, s->median_host));
    sts_jsonw_kv_i64(j, "median_host_ns", s->by.median_ns);
    sts_jsonw_kv_i64(j, "excess_ns", s->by.slow_ns - s->by.median_ns);
    sts_jsonw_obj_end(j);
}

/* A host step; with its device view (STS_HOSTS_DEVICE), its "devices" as the host's
 * trace alone writes them. */
static void host_step(sts_jsonw *j, const sts_hosts *h, size_t i, const sts_host_step *s,
                      const sts_host_device_step *dev, size_t ndev, int mem_asked, const sts_host_memory_step *mem,
                      size_t nmem)
{
    size_t nch, nco;
    const sts_host_child *ch = sts_hosts_step_children(h, i, &nch);
    const sts_host_collective *co = sts_hosts_step_collectives(h, i, &nco);
    sts_jsonw_obj_begin(j);
    sts_jsonw_kv_i64(j, "step", s->step);
    sts_jsonw_kv_i64(j, "ts_ns", s->ts_ns);
    sts_jsonw_kv_i64(j, "dur_ns", s->dur_ns);
    sts_jsonw_key(j, "children");
    sts_jsonw_obj_begin(j);
    for (uint32_t c = s->first_child; c < s->first_child + s->child_count; c++)
        sts_jsonw_kv_i64(j, ch[c].name, ch[c].total_ns);
    sts_jsonw_obj_end(j);
    sts_jsonw_kv_i64(j, "children_ns", s->children_ns);
    sts_jsonw_kv_i64(j, "unattributed_ns", s->unattributed_ns);
    sts_jsonw_key(j, "device");
    if (s->device_busy_ns < 0) {
        sts_jsonw_null(j);
    } else {
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_i64(j, "busy_ns", s->device_busy_ns);
        sts_jsonw_kv_i64(j, "collective_ns", s->collective_ns);
        sts_jsonw_key(j, "collectives");
        sts_jsonw_obj_begin(j);
        for (uint32_t c = s->first_collective; c < s->first_collective + s->collective_count; c++)
            sts_jsonw_kv_i64(j, co[c].kind, co[c].ns);
        sts_jsonw_obj_end(j);
        sts_jsonw_obj_end(j);
    }
    if (dev) sts_jsonw_key(j, "devices"), sts_host_device_steps_write_json(j, dev, ndev);
    /* With STS_HOSTS_MEMORY, a host without memory events has [] in each step. */
    if (mem_asked) sts_jsonw_key(j, "memory"), sts_host_memory_steps_write_json(j, h, i, mem, nmem);
    sts_jsonw_obj_end(j);
}

static void steps_lane(sts_jsonw *j, const sts_host_steps_info *si)
{
    sts_jsonw_key(j, "lane");
    if (!si->pid) {
        sts_jsonw_null(j);
        return;
    }
    sts_jsonw_obj_begin(j);
    sts_jsonw_kv_str(j, "pid", si->pid);
    sts_jsonw_kv_str(j, "tid", si->tid);
    sts_jsonw_kv_str(j, "process", si->process);
    sts_jsonw_kv_str(j, "thread", si->thread);
    sts_jsonw_obj_end(j);
}

static void step_hosts(sts_jsonw *j, const sts_hosts *h, const sts_alignment *a)
{
    const sts_host_step_stats *hs = sts_alignment_hosts(a, NULL);
    sts_jsonw_key(j, "hosts");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const sts_host_steps_info *si = sts_hosts_steps_info(h, i);
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_str(j, "host", host_name(h, (uint32_t)i));
        sts_jsonw_kv_str(j, "path", sts_hosts_info(h, i)->path);
        sts_jsonw_kv_str(j, "rule", sts_step_rule_name(si->rule));
        steps_lane(j, si);
        sts_jsonw_kv_u64(j, "device_lanes", si->device_lanes);
        sts_jsonw_kv_u64(j, "duplicates", si->duplicates);
        int any = hs[i].steps > 0;
        any ? sts_jsonw_kv_i64(j, "min_ns", hs[i].min_ns) : sts_jsonw_kv_null(j, "min_ns");
        any ? sts_jsonw_kv_i64(j, "median_ns", hs[i].median_ns) : sts_jsonw_kv_null(j, "median_ns");
        any ? sts_jsonw_kv_i64(j, "max_ns", hs[i].max_ns) : sts_jsonw_kv_null(j, "max_ns");
        sts_jsonw_kv_i64(j, "total_ns", hs[i].total_ns);
        sts_jsonw_kv_u64(j, "slowest", hs[i].slowest);
        sts_jsonw_kv_u64(j, "stragglers", hs[i].stragglers);
        size_t n;
        const sts_host_step *st = sts_hosts_steps(h, i, &n);
        sts_jsonw_key(j, "steps");
        sts_jsonw_arr_begin(j);
        size_t nd, at = 0, nm, mat = 0;
        const sts_host_device_step *dv = sts_hosts_device_steps(h, i, &nd);
        const sts_host_memory_step *mv = sts_hosts_memory_steps(h, i, &nm);
        int mem = sts_hosts_memory_asked(h, i);
        for (size_t k = 0; k < n; k++) {
            size_t lo = at, mlo = mat;
            while (at < nd && dv[at].step == k)
                at++;
            while (mat < nm && mv[mat].step == k)
                mat++;
            host_step(j, h, i, &st[k], dv ? dv + lo : NULL, at - lo, mem, mv ? mv + mlo : NULL, mat - mlo);
        }
        sts_jsonw_arr_end(j);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void aligned_steps(sts_jsonw *j, const sts_hosts *h, const sts_aligned_step *s, size_t n)
{
    sts_jsonw_key(j, "steps");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_i64(j, "step", s[k].step);
        sts_jsonw_kv_u64(j, "hosts", s[k].hosts);
        sts_jsonw_kv_i64(j, "min_ns", s[k].min_ns);
        sts_jsonw_kv_i64(j, "median_ns", s[k].median_ns);
        sts_jsonw_kv_i64(j, "max_ns", s[k].max_ns);
        sts_jsonw_kv_i64(j, "spread_ns", s[k].max_ns - s[k].min_ns);
        sts_jsonw_key(j, "max_over_median");
        if (s[k].median_ns > 0)
            sts_jsonw_f64(j, (double)s[k].max_ns / (double)s[k].median_ns);
        else
            sts_jsonw_null(j);
        sts_jsonw_kv_str(j, "slowest", host_name(h, s[k].slowest));
        sts_jsonw_kv_str(j, "median_host", host_name(h, s[k].median_host));
        sts_jsonw_kv_bool(j, "straggler", s[k].straggler);
        cause(j, h, &s[k]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
    sts_jsonw_key(j, "stragglers");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        if (!s[k].straggler) continue;
        sts_jsonw_obj_begin(j);
        sts_jsonw_kv_i64(j, "step", s[k].step);
        sts_jsonw_kv_str(j, "host", host_name(h, s[k].slowest));
        sts_jsonw_kv_i64(j, "dur_ns", s[k].max_ns);
        sts_jsonw_kv_i64(j, "median_ns", s[k].median_ns);
        cause(j, h, &s[k]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

sts_status sts_hosts_write_steps_json(sts_jsonw *w, const sts_hosts *h, const sts_alignment *a, const char *run,
                                      sts_error *err)
{
    return sts_hosts_write_steps_json_with(w, h, a, run, NULL, err);
}

sts_status sts_hosts_write_steps_json_with(sts_jsonw *w, const sts_hosts *h, const sts_alignment *a, const char *run,
                                           const sts_collectives *c, sts_error *err)
{
    size_t n;
    const sts_aligned_step *s = sts_alignment_steps(a, &n);
    if (n == 0) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "hosts: no host has steps: no steps document");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_u64(w, "hosts_count", sts_hosts_count(h));
    sts_jsonw_kv_str(w, "run", run);
    sts_jsonw_kv_str(w, "rule", sts_step_rule_name(sts_alignment_rule(a)));
    sts_jsonw_kv_u64(w, "rule_mismatches", sts_alignment_rule_mismatches(a));
    sts_jsonw_kv_f64(w, "straggler_ratio", sts_alignment_ratio(a));
    step_hosts(w, h, a);
    aligned_steps(w, h, s, n);
    if (c) sts_collectives_write_json(w, h, c);
    sts_jsonw_obj_end(w);
    return STS_OK;
}
