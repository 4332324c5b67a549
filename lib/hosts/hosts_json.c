/* `analyze --json` and `steps --json` on several hosts (docs/hosts.md): written here
 * once, for the CLI and the Python binding, from the hosts' records and their
 * alignment. */
#include <stdio.h>
#include <string.h>

#include "hosts/hosts_impl.h"

#define K(j, key) sts_jsonw_key((j), (key))

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
    K(j, "trace");
    sts_jsonw_obj_begin(j);
    K(j, "hosts"), sts_jsonw_u64(j, sts_hosts_count(h));
    K(j, "run"), sts_jsonw_str(j, run);
    char fm[256];
    sts_hosts_formats(h, fm, sizeof fm);
    K(j, "format"), sts_jsonw_str(j, fm);
    K(j, "bytes"), sts_jsonw_u64(j, t->bytes);
    K(j, "compressed"), sts_jsonw_u64(j, t->compressed);
    K(j, "truncated"), sts_jsonw_u64(j, t->truncated);
    K(j, "events"), sts_jsonw_u64(j, t->events);
    K(j, "by_phase"), sts_phases_write_json(j, t->by_phase);
    K(j, "processes"), sts_jsonw_u64(j, t->processes);
    K(j, "lanes"), sts_jsonw_u64(j, t->lanes);
    K(j, "slices"), sts_jsonw_u64(j, t->slices);
    K(j, "instants"), sts_jsonw_u64(j, t->instants);
    K(j, "counters"), sts_jsonw_u64(j, t->counters);
    K(j, "asyncs"), sts_jsonw_u64(j, t->asyncs);
    K(j, "flows"), sts_jsonw_u64(j, t->flows);
    K(j, "args_kept"), sts_jsonw_u64(j, t->args);
    K(j, "busy_ns"), sts_jsonw_i64(j, t->busy);
    K(j, "span_ns"), sts_jsonw_i64(j, t->span);
    K(j, "resolution_ns"), sts_jsonw_i64(j, t->fine ? 1 : 1000);
    K(j, "clamped"), sts_jsonw_u64(j, t->clamped);
    K(j, "overlaps"), sts_jsonw_u64(j, t->overlaps);
    K(j, "unmatched_end"), sts_jsonw_u64(j, t->unmatched_end);
    K(j, "unclosed_begin"), sts_jsonw_u64(j, t->unclosed_begin);
    K(j, "skipped"), sts_jsonw_u64(j, t->skipped);
    K(j, "rejected"), sts_jsonw_u64(j, t->rejected);
    K(j, "warnings_total"), sts_jsonw_u64(j, t->warnings);
    sts_jsonw_obj_end(j);
}

static void host(sts_jsonw *j, const sts_hosts *h, size_t i)
{
    const sts_host_info *in = sts_hosts_info(h, i);
    sts_jsonw_obj_begin(j);
    K(j, "host"), sts_jsonw_str(j, in->name);
    K(j, "path"), sts_jsonw_str(j, in->path);
    K(j, "meta_host"), sts_jsonw_str(j, in->meta_host);
    K(j, "format"), sts_jsonw_str(j, in->format);
    K(j, "bytes"), sts_jsonw_u64(j, in->bytes);
    K(j, "compressed"), sts_jsonw_bool(j, in->compressed);
    K(j, "truncated"), sts_jsonw_bool(j, in->truncated);
    K(j, "events"), sts_jsonw_u64(j, in->events);
    K(j, "by_phase"), sts_phases_write_json(j, in->by_phase);
    K(j, "processes"), sts_jsonw_u64(j, in->processes);
    K(j, "lanes"), sts_jsonw_u64(j, in->lanes);
    K(j, "slices"), sts_jsonw_u64(j, in->slices);
    K(j, "instants"), sts_jsonw_u64(j, in->instants);
    K(j, "counters"), sts_jsonw_u64(j, in->counters);
    K(j, "asyncs"), sts_jsonw_u64(j, in->asyncs);
    K(j, "flows"), sts_jsonw_u64(j, in->flows);
    K(j, "args_kept"), sts_jsonw_u64(j, in->args);
    K(j, "ts_min_ns"), sts_jsonw_i64(j, in->ts_min);
    K(j, "ts_max_ns"), sts_jsonw_i64(j, in->ts_max);
    K(j, "span_ns"), sts_jsonw_i64(j, span_of(in));
    K(j, "busy_ns"), sts_jsonw_i64(j, in->busy.union_ns);
    K(j, "resolution_ns"), sts_jsonw_i64(j, in->resolution_ns);
    K(j, "clamped"), sts_jsonw_u64(j, in->clamped);
    K(j, "overlaps"), sts_jsonw_u64(j, in->overlaps);
    K(j, "unmatched_end"), sts_jsonw_u64(j, in->unmatched_end);
    K(j, "unclosed_begin"), sts_jsonw_u64(j, in->unclosed_begin);
    K(j, "skipped"), sts_jsonw_u64(j, in->skipped);
    K(j, "rejected"), sts_jsonw_u64(j, in->rejected);
    K(j, "warnings_total"), sts_jsonw_u64(j, in->warnings_total);
    size_t nw;
    const char *const *w = sts_hosts_warnings(h, i, &nw);
    K(j, "warnings");
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
    K(j, "names");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < show; i++) {
        sts_jsonw_obj_begin(j);
        K(j, "name"), sts_jsonw_str(j, nm[i].name);
        K(j, "count"), sts_jsonw_u64(j, nm[i].count);
        K(j, "total_ns"), sts_jsonw_i64(j, nm[i].total_ns);
        K(j, "self_ns"), sts_jsonw_i64(j, nm[i].self_ns);
        K(j, "min_ns"), sts_jsonw_i64(j, nm[i].min_ns);
        K(j, "median_ns"), sts_jsonw_i64(j, nm[i].median_ns);
        K(j, "max_ns"), sts_jsonw_i64(j, nm[i].max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void lanes_and_processes(sts_jsonw *j, const sts_hosts *h)
{
    K(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_lane *l = sts_hosts_lanes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            sts_jsonw_obj_begin(j);
            K(j, "host"), sts_jsonw_str(j, sts_hosts_info(h, i)->name);
            K(j, "pid"), sts_jsonw_str(j, l[k].pid);
            K(j, "tid"), sts_jsonw_str(j, l[k].tid);
            K(j, "process"), sts_jsonw_str(j, l[k].process);
            K(j, "thread"), sts_jsonw_str(j, l[k].thread);
            K(j, "device"), sts_jsonw_bool(j, l[k].device);
            sts_busy_write_json(j, &l[k].busy);
            sts_jsonw_obj_end(j);
        }
    }
    sts_jsonw_arr_end(j);
    K(j, "processes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_process *p = sts_hosts_processes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            sts_jsonw_obj_begin(j);
            K(j, "host"), sts_jsonw_str(j, sts_hosts_info(h, i)->name);
            K(j, "pid"), sts_jsonw_str(j, p[k].pid);
            K(j, "process"), sts_jsonw_str(j, p[k].name);
            sts_busy_write_json(j, &p[k].busy);
            sts_jsonw_obj_end(j);
        }
    }
    sts_jsonw_arr_end(j);
}

static void overlaps(sts_jsonw *j, const sts_hosts *h)
{
    K(j, "overlap_list");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_overlap *o = sts_hosts_overlaps(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            sts_jsonw_obj_begin(j);
            K(j, "host"), sts_jsonw_str(j, sts_hosts_info(h, i)->name);
            K(j, "name"), sts_jsonw_str(j, o[k].name);
            K(j, "parent"), sts_jsonw_str(j, o[k].parent);
            K(j, "pid"), sts_jsonw_str(j, o[k].pid);
            K(j, "tid"), sts_jsonw_str(j, o[k].tid);
            K(j, "ts_ns"), sts_jsonw_i64(j, o[k].ts_ns);
            K(j, "dur_ns"), sts_jsonw_i64(j, o[k].dur_ns);
            K(j, "parent_ts_ns"), sts_jsonw_i64(j, o[k].parent_ts_ns);
            K(j, "parent_dur_ns"), sts_jsonw_i64(j, o[k].parent_dur_ns);
            K(j, "overrun_ns"), sts_jsonw_i64(j, o[k].overrun_ns);
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
    K(w, "hosts");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < sts_hosts_count(h); i++)
        host(w, h, i);
    sts_jsonw_arr_end(w);
    names(w, h, top);
    lanes_and_processes(w, h);
    K(w, "clamped"), sts_jsonw_u64(w, t.clamped);
    K(w, "overlaps"), sts_jsonw_u64(w, t.overlaps);
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
    K(j, "by");
    if (s->by.kind == STS_CAUSE_NONE) {
        sts_jsonw_null(j);
        return;
    }
    sts_jsonw_obj_begin(j);
    K(j, "kind"), sts_jsonw_str(j, sts_cause_kind_name(s->by.kind));
    K(j, "name"), sts_jsonw_str(j, s->by.name);
    K(j, "ns"), sts_jsonw_i64(j, s->by.slow_ns);
    K(j, "median_host"), sts_jsonw_str(j, host_name(h, s->median_host));
    K(j, "median_host_ns"), sts_jsonw_i64(j, s->by.median_ns);
    K(j, "excess_ns"), sts_jsonw_i64(j, s->by.slow_ns - s->by.median_ns);
    sts_jsonw_obj_end(j);
}

static void host_step(sts_jsonw *j, const sts_hosts *h, size_t i, const sts_host_step *s)
{
    size_t nch, nco;
    const sts_host_child *ch = sts_hosts_step_children(h, i, &nch);
    const sts_host_collective *co = sts_hosts_step_collectives(h, i, &nco);
    sts_jsonw_obj_begin(j);
    K(j, "step"), sts_jsonw_i64(j, s->step);
    K(j, "ts_ns"), sts_jsonw_i64(j, s->ts_ns);
    K(j, "dur_ns"), sts_jsonw_i64(j, s->dur_ns);
    K(j, "children");
    sts_jsonw_obj_begin(j);
    for (uint32_t c = s->first_child; c < s->first_child + s->child_count; c++)
        K(j, ch[c].name), sts_jsonw_i64(j, ch[c].total_ns);
    sts_jsonw_obj_end(j);
    K(j, "children_ns"), sts_jsonw_i64(j, s->children_ns);
    K(j, "unattributed_ns"), sts_jsonw_i64(j, s->unattributed_ns);
    K(j, "device");
    if (s->device_busy_ns < 0) {
        sts_jsonw_null(j);
    } else {
        sts_jsonw_obj_begin(j);
        K(j, "busy_ns"), sts_jsonw_i64(j, s->device_busy_ns);
        K(j, "collective_ns"), sts_jsonw_i64(j, s->collective_ns);
        K(j, "collectives");
        sts_jsonw_obj_begin(j);
        for (uint32_t c = s->first_collective; c < s->first_collective + s->collective_count; c++)
            K(j, co[c].kind), sts_jsonw_i64(j, co[c].ns);
        sts_jsonw_obj_end(j);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_obj_end(j);
}

static void steps_lane(sts_jsonw *j, const sts_host_steps_info *si)
{
    K(j, "lane");
    if (!si->pid) {
        sts_jsonw_null(j);
        return;
    }
    sts_jsonw_obj_begin(j);
    K(j, "pid"), sts_jsonw_str(j, si->pid);
    K(j, "tid"), sts_jsonw_str(j, si->tid);
    K(j, "process"), sts_jsonw_str(j, si->process);
    K(j, "thread"), sts_jsonw_str(j, si->thread);
    sts_jsonw_obj_end(j);
}

static void step_hosts(sts_jsonw *j, const sts_hosts *h, const sts_alignment *a)
{
    const sts_host_step_stats *hs = sts_alignment_hosts(a, NULL);
    K(j, "hosts");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const sts_host_steps_info *si = sts_hosts_steps_info(h, i);
        sts_jsonw_obj_begin(j);
        K(j, "host"), sts_jsonw_str(j, host_name(h, (uint32_t)i));
        K(j, "path"), sts_jsonw_str(j, sts_hosts_info(h, i)->path);
        K(j, "rule"), sts_jsonw_str(j, sts_step_rule_name(si->rule));
        steps_lane(j, si);
        K(j, "device_lanes"), sts_jsonw_u64(j, si->device_lanes);
        K(j, "duplicates"), sts_jsonw_u64(j, si->duplicates);
        int any = hs[i].steps > 0;
        K(j, "min_ns"), any ? sts_jsonw_i64(j, hs[i].min_ns) : sts_jsonw_null(j);
        K(j, "median_ns"), any ? sts_jsonw_i64(j, hs[i].median_ns) : sts_jsonw_null(j);
        K(j, "max_ns"), any ? sts_jsonw_i64(j, hs[i].max_ns) : sts_jsonw_null(j);
        K(j, "total_ns"), sts_jsonw_i64(j, hs[i].total_ns);
        K(j, "slowest"), sts_jsonw_u64(j, hs[i].slowest);
        K(j, "stragglers"), sts_jsonw_u64(j, hs[i].stragglers);
        size_t n;
        const sts_host_step *st = sts_hosts_steps(h, i, &n);
        K(j, "steps");
        sts_jsonw_arr_begin(j);
        for (size_t k = 0; k < n; k++)
            host_step(j, h, i, &st[k]);
        sts_jsonw_arr_end(j);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void aligned_steps(sts_jsonw *j, const sts_hosts *h, const sts_aligned_step *s, size_t n)
{
    K(j, "steps");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        sts_jsonw_obj_begin(j);
        K(j, "step"), sts_jsonw_i64(j, s[k].step);
        K(j, "hosts"), sts_jsonw_u64(j, s[k].hosts);
        K(j, "min_ns"), sts_jsonw_i64(j, s[k].min_ns);
        K(j, "median_ns"), sts_jsonw_i64(j, s[k].median_ns);
        K(j, "max_ns"), sts_jsonw_i64(j, s[k].max_ns);
        K(j, "spread_ns"), sts_jsonw_i64(j, s[k].max_ns - s[k].min_ns);
        K(j, "max_over_median");
        if (s[k].median_ns > 0)
            sts_jsonw_f64(j, (double)s[k].max_ns / (double)s[k].median_ns);
        else
            sts_jsonw_null(j);
        K(j, "slowest"), sts_jsonw_str(j, host_name(h, s[k].slowest));
        K(j, "median_host"), sts_jsonw_str(j, host_name(h, s[k].median_host));
        K(j, "straggler"), sts_jsonw_bool(j, s[k].straggler);
        cause(j, h, &s[k]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
    K(j, "stragglers");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        if (!s[k].straggler) continue;
        sts_jsonw_obj_begin(j);
        K(j, "step"), sts_jsonw_i64(j, s[k].step);
        K(j, "host"), sts_jsonw_str(j, host_name(h, s[k].slowest));
        K(j, "dur_ns"), sts_jsonw_i64(j, s[k].max_ns);
        K(j, "median_ns"), sts_jsonw_i64(j, s[k].median_ns);
        cause(j, h, &s[k]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

sts_status sts_hosts_write_steps_json(sts_jsonw *w, const sts_hosts *h, const sts_alignment *a, const char *run,
                                      sts_error *err)
{
    size_t n;
    const sts_aligned_step *s = sts_alignment_steps(a, &n);
    if (n == 0) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "hosts: no host has steps: no steps document");
    sts_jsonw_obj_begin(w);
    K(w, "hosts_count"), sts_jsonw_u64(w, sts_hosts_count(h));
    K(w, "run"), sts_jsonw_str(w, run);
    K(w, "rule"), sts_jsonw_str(w, sts_step_rule_name(sts_alignment_rule(a)));
    K(w, "rule_mismatches"), sts_jsonw_u64(w, sts_alignment_rule_mismatches(a));
    K(w, "straggler_ratio"), sts_jsonw_f64(w, sts_alignment_ratio(a));
    step_hosts(w, h, a);
    aligned_steps(w, h, s, n);
    sts_jsonw_obj_end(w);
    return STS_OK;
}
