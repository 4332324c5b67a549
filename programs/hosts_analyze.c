/* stepscope analyze on several hosts: the hosts' facts added up, names ranked by self
 * time over every host, and per host its busy time, lanes and processes (each host's
 * pids are its own). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hosts_cli.h"
#include "trace_cli.h"

#define DEFAULT_TOP   20
#define SHOW_OVERLAPS 10

/* The hosts' facts together. */
typedef struct totals {
    uint64_t bytes, events, by_phase[128], skipped, rejected, clamped, overlaps, unmatched_end, unclosed_begin;
    uint64_t processes, lanes, slices, instants, counters, asyncs, flows, args, warnings, compressed, truncated;
    uint64_t fine;      /* hosts with 1 ns resolution */
    int64_t busy, span; /* summed over hosts */
    size_t longest;     /* the host with the longest span */
} totals;

static int64_t span_of(const sts_host_info *in)
{
    return in->ts_max - in->ts_min;
}

static void add_up(const sts_hosts *h, totals *t)
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

/* "xplane" when every host has one format, else "xplane (12), chrome-json (4)". */
static void formats(const sts_hosts *h, char *out, size_t cap)
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

static double pct(int64_t a, int64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* ---- text ------------------------------------------------------------------------------ */

static void print_facts(const sts_hosts *h, const sts_hostset *set, const totals *t)
{
    size_t n = sts_hosts_count(h);
    char d1[32], d2[32], fm[256];
    printf("hosts       %zu (%s to %s), each host's processes its own\n", n, sts_hosts_info(h, 0)->name,
           sts_hosts_info(h, n - 1)->name);
    if (sts_hostset_run(set)) printf("run         %s\n", sts_hostset_run(set));
    formats(h, fm, sizeof fm);
    printf("format      %s, %" PRIu64 " bytes in all", fm, t->bytes);
    if (t->compressed) printf(", %" PRIu64 " gzip", t->compressed);
    if (t->truncated) printf(", %" PRIu64 " TRUNCATED: complete events imported", t->truncated);
    printf("\nevents      %" PRIu64, t->events);
    int first = 1;
    for (int c = 0; c < 128; c++) {
        if (!t->by_phase[c]) continue;
        if (c > 32 && c < 127)
            printf("%s%c %" PRIu64, first ? " (" : ", ", c, t->by_phase[c]);
        else
            printf("%s0x%02x %" PRIu64, first ? " (" : ", ", c, t->by_phase[c]);
        first = 0;
    }
    printf("%s\n", first ? "" : ")");
    printf("lanes       %" PRIu64 " in %" PRIu64 " process%s\n", t->lanes, t->processes, t->processes == 1 ? "" : "es");
    const sts_host_info *lg = sts_hosts_info(h, t->longest);
    sts_fmt_duration((double)span_of(lg), d1, sizeof d1);
    printf("slices      %" PRIu64 "\nspan        longest %s (%s); each host's clock is its own\n", t->slices, d1,
           lg->name);
    if (!t->fine)
        printf("resolution  1 \xc2\xb5s on every host: every ts and dur was a whole microsecond\n");
    else
        printf("resolution  1 ns on %" PRIu64 " of %zu hosts (some ts or dur had a fraction of a microsecond)\n",
               t->fine, n);
    printf("nesting     %" PRIu64 " clamped (overran the parent by <= the resolution: nested, end clamped), %" PRIu64
           " overlaps (overran by more: nested beside it, not inside)\n",
           t->clamped, t->overlaps);
    printf("            %" PRIu64 " unmatched E, %" PRIu64 " unclosed B, %" PRIu64 " skipped, %" PRIu64 " rejected\n",
           t->unmatched_end, t->unclosed_begin, t->skipped, t->rejected);
    sts_fmt_duration((double)t->busy, d1, sizeof d1);
    sts_fmt_duration((double)t->span, d2, sizeof d2);
    printf("busy        %s of %s (%.1f%%): each host's union of its lanes' slices, summed over hosts\n", d1, d2,
           pct(t->busy, t->span));
}

static void print_names(const sts_hosts *h, size_t top)
{
    size_t n;
    const sts_host_name *nm = sts_hosts_names(h, &n);
    size_t show = top && top < n ? top : n;
    printf("\nnames by self time (%s%zu of %zu, over every host; self = duration minus direct children)\n",
           show < n ? "top " : "", show, n);
    if (!show) return;
    int nw = 4, cw = 5;
    for (size_t i = 0; i < show; i++) {
        int w = tc_width(nm[i].name, 60);
        if (w > nw) nw = w;
        char c[32];
        int l = snprintf(c, sizeof c, "%" PRIu64, nm[i].count);
        if (l > cw) cw = l;
    }
    printf("  ");
    tc_cell(stdout, "name", nw, 1);
    printf("  %*s %11s %11s %11s %11s %11s\n", cw, "count", "total", "self", "min", "median", "max");
    for (size_t i = 0; i < show; i++) {
        char v[5][32];
        const int64_t x[5] = { nm[i].total_ns, nm[i].self_ns, nm[i].min_ns, nm[i].median_ns, nm[i].max_ns };
        for (int k = 0; k < 5; k++)
            sts_fmt_duration((double)x[k], v[k], sizeof v[k]);
        printf("  ");
        tc_cell(stdout, nm[i].name, nw, 1);
        printf("  %*" PRIu64, cw, nm[i].count);
        for (int k = 0; k < 5; k++)
            printf(" %*s", sts_fmt_field(v[k], 11), v[k]);
        printf("\n");
    }
}

/* A table row: the label cells, then slices, busy, span and busy% (NULL b: the header). */
static void busy_row(const char *const *cells, const int *widths, size_t ncells, const sts_busy *b)
{
    for (size_t c = 0; c < ncells; c++) {
        printf("  ");
        tc_cell(stdout, cells[c], widths[c], 1);
    }
    if (!b) {
        printf("  %9s %11s %11s %6s\n", "slices", "busy", "span", "busy%");
        return;
    }
    char u[32], sp[32];
    sts_fmt_duration((double)b->union_ns, u, sizeof u);
    sts_fmt_duration((double)b->span_ns, sp, sizeof sp);
    printf("  %9" PRIu64 " %*s %*s %5.1f%%\n", b->slices, sts_fmt_field(u, 11), u, sts_fmt_field(sp, 11), sp,
           pct(b->union_ns, b->span_ns));
}

static void fit(const char *const *cells, const int *caps, int *widths, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        int w = tc_width(cells[c], caps[c]);
        if (w > widths[c]) widths[c] = w;
    }
}

static void print_hosts(const sts_hosts *h)
{
    printf("\nhosts (busy = union of the host's lanes' slices, span = its first start to last end)\n");
    static const char *const titles[2] = { "host", "file" };
    static const int caps[2] = { 32, 60 };
    int widths[2] = { 4, 4 };
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const char *cells[2] = { sts_hosts_info(h, i)->name, sts_hosts_info(h, i)->path };
        fit(cells, caps, widths, 2);
    }
    busy_row(titles, widths, 2, NULL);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const char *cells[2] = { sts_hosts_info(h, i)->name, sts_hosts_info(h, i)->path };
        busy_row(cells, widths, 2, &sts_hosts_info(h, i)->busy);
    }
}

static void print_lanes(const sts_hosts *h)
{
    printf("\nlanes (busy = union of the lane's slices, span = first start to last end)\n");
    static const char *const titles[5] = { "host", "pid", "tid", "process", "thread" };
    static const int caps[5] = { 24, 24, 24, 32, 32 };
    int widths[5] = { 4, 3, 3, 7, 6 };
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_lane *l = sts_hosts_lanes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            const char *cells[5] = { sts_hosts_info(h, i)->name, l[k].pid, l[k].tid, l[k].process, l[k].thread };
            fit(cells, caps, widths, 5);
        }
    }
    busy_row(titles, widths, 5, NULL);
    size_t hidden = 0;
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_lane *l = sts_hosts_lanes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            if (!l[k].busy.slices) {
                hidden++;
                continue;
            }
            const char *cells[5] = { sts_hosts_info(h, i)->name, l[k].pid, l[k].tid, l[k].process, l[k].thread };
            busy_row(cells, widths, 5, &l[k].busy);
        }
    }
    if (hidden) printf("  (%zu lane%s without slices not shown)\n", hidden, hidden == 1 ? "" : "s");
}

static void print_processes(const sts_hosts *h)
{
    printf("\nprocesses (busy = union over all their lanes)\n");
    static const char *const titles[3] = { "host", "pid", "process" };
    static const int caps[3] = { 24, 24, 40 };
    int widths[3] = { 4, 3, 7 };
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_process *p = sts_hosts_processes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            const char *cells[3] = { sts_hosts_info(h, i)->name, p[k].pid, p[k].name };
            fit(cells, caps, widths, 3);
        }
    }
    busy_row(titles, widths, 3, NULL);
    size_t hidden = 0;
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_process *p = sts_hosts_processes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            if (!p[k].busy.slices) {
                hidden++;
                continue;
            }
            const char *cells[3] = { sts_hosts_info(h, i)->name, p[k].pid, p[k].name };
            busy_row(cells, widths, 3, &p[k].busy);
        }
    }
    if (hidden) printf("  (%zu process%s without slices not shown)\n", hidden, hidden == 1 ? "" : "es");
}

static void print_overlaps(const sts_hosts *h, const totals *t)
{
    if (!t->overlaps) return;
    size_t shown = 0;
    printf("\noverlaps (the first of each host, at most %d; %" PRIu64 " in all): slices that overran their parent by "
           "more than the resolution\n",
           SHOW_OVERLAPS, t->overlaps);
    for (size_t i = 0; i < sts_hosts_count(h) && shown < SHOW_OVERLAPS; i++) {
        size_t n;
        const sts_host_overlap *o = sts_hosts_overlaps(h, i, &n);
        if (!n) continue;
        char ov[32], d[32];
        sts_fmt_duration((double)o[0].overrun_ns, ov, sizeof ov);
        sts_fmt_duration((double)o[0].dur_ns, d, sizeof d);
        printf("  %s: '%s' (ts %" PRId64 " ns, %s) overruns '%s' by %s on pid %s tid %s\n", sts_hosts_info(h, i)->name,
               o[0].name, o[0].ts_ns, d, o[0].parent, ov, o[0].pid, o[0].tid);
        shown++;
    }
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void json_phases(sts_jsonw *j, const uint64_t *by_phase)
{
    sts_jsonw_key(j, "by_phase");
    sts_jsonw_obj_begin(j);
    for (int c = 0; c < 128; c++) {
        if (!by_phase[c]) continue;
        char k[2] = { (char)c, 0 };
        sts_jsonw_key(j, k);
        sts_jsonw_u64(j, by_phase[c]);
    }
    sts_jsonw_obj_end(j);
}

static void json_totals(sts_jsonw *j, const sts_hosts *h, const sts_hostset *set, const totals *t)
{
    sts_jsonw_key(j, "trace");
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "hosts"), sts_jsonw_u64(j, sts_hosts_count(h));
    sts_jsonw_key(j, "run"), sts_jsonw_str(j, sts_hostset_run(set));
    char fm[256];
    formats(h, fm, sizeof fm);
    sts_jsonw_key(j, "format"), sts_jsonw_str(j, fm);
    sts_jsonw_key(j, "bytes"), sts_jsonw_u64(j, t->bytes);
    sts_jsonw_key(j, "compressed"), sts_jsonw_u64(j, t->compressed);
    sts_jsonw_key(j, "truncated"), sts_jsonw_u64(j, t->truncated);
    sts_jsonw_key(j, "events"), sts_jsonw_u64(j, t->events);
    json_phases(j, t->by_phase);
    sts_jsonw_key(j, "processes"), sts_jsonw_u64(j, t->processes);
    sts_jsonw_key(j, "lanes"), sts_jsonw_u64(j, t->lanes);
    sts_jsonw_key(j, "slices"), sts_jsonw_u64(j, t->slices);
    sts_jsonw_key(j, "instants"), sts_jsonw_u64(j, t->instants);
    sts_jsonw_key(j, "counters"), sts_jsonw_u64(j, t->counters);
    sts_jsonw_key(j, "asyncs"), sts_jsonw_u64(j, t->asyncs);
    sts_jsonw_key(j, "flows"), sts_jsonw_u64(j, t->flows);
    sts_jsonw_key(j, "args_kept"), sts_jsonw_u64(j, t->args);
    sts_jsonw_key(j, "busy_ns"), sts_jsonw_i64(j, t->busy);
    sts_jsonw_key(j, "span_ns"), sts_jsonw_i64(j, t->span);
    sts_jsonw_key(j, "resolution_ns"), sts_jsonw_i64(j, t->fine ? 1 : 1000);
    sts_jsonw_key(j, "clamped"), sts_jsonw_u64(j, t->clamped);
    sts_jsonw_key(j, "overlaps"), sts_jsonw_u64(j, t->overlaps);
    sts_jsonw_key(j, "unmatched_end"), sts_jsonw_u64(j, t->unmatched_end);
    sts_jsonw_key(j, "unclosed_begin"), sts_jsonw_u64(j, t->unclosed_begin);
    sts_jsonw_key(j, "skipped"), sts_jsonw_u64(j, t->skipped);
    sts_jsonw_key(j, "rejected"), sts_jsonw_u64(j, t->rejected);
    sts_jsonw_key(j, "warnings_total"), sts_jsonw_u64(j, t->warnings);
    sts_jsonw_obj_end(j);
}

static void json_host(sts_jsonw *j, const sts_hosts *h, size_t i)
{
    const sts_host_info *in = sts_hosts_info(h, i);
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "host"), sts_jsonw_str(j, in->name);
    sts_jsonw_key(j, "path"), sts_jsonw_str(j, in->path);
    sts_jsonw_key(j, "meta_host"), sts_jsonw_str(j, in->meta_host);
    sts_jsonw_key(j, "format"), sts_jsonw_str(j, in->format);
    sts_jsonw_key(j, "bytes"), sts_jsonw_u64(j, in->bytes);
    sts_jsonw_key(j, "compressed"), sts_jsonw_bool(j, in->compressed);
    sts_jsonw_key(j, "truncated"), sts_jsonw_bool(j, in->truncated);
    sts_jsonw_key(j, "events"), sts_jsonw_u64(j, in->events);
    json_phases(j, in->by_phase);
    sts_jsonw_key(j, "processes"), sts_jsonw_u64(j, in->processes);
    sts_jsonw_key(j, "lanes"), sts_jsonw_u64(j, in->lanes);
    sts_jsonw_key(j, "slices"), sts_jsonw_u64(j, in->slices);
    sts_jsonw_key(j, "instants"), sts_jsonw_u64(j, in->instants);
    sts_jsonw_key(j, "counters"), sts_jsonw_u64(j, in->counters);
    sts_jsonw_key(j, "asyncs"), sts_jsonw_u64(j, in->asyncs);
    sts_jsonw_key(j, "flows"), sts_jsonw_u64(j, in->flows);
    sts_jsonw_key(j, "args_kept"), sts_jsonw_u64(j, in->args);
    sts_jsonw_key(j, "ts_min_ns"), sts_jsonw_i64(j, in->ts_min);
    sts_jsonw_key(j, "ts_max_ns"), sts_jsonw_i64(j, in->ts_max);
    sts_jsonw_key(j, "span_ns"), sts_jsonw_i64(j, span_of(in));
    sts_jsonw_key(j, "busy_ns"), sts_jsonw_i64(j, in->busy.union_ns);
    sts_jsonw_key(j, "resolution_ns"), sts_jsonw_i64(j, in->resolution_ns);
    sts_jsonw_key(j, "clamped"), sts_jsonw_u64(j, in->clamped);
    sts_jsonw_key(j, "overlaps"), sts_jsonw_u64(j, in->overlaps);
    sts_jsonw_key(j, "unmatched_end"), sts_jsonw_u64(j, in->unmatched_end);
    sts_jsonw_key(j, "unclosed_begin"), sts_jsonw_u64(j, in->unclosed_begin);
    sts_jsonw_key(j, "skipped"), sts_jsonw_u64(j, in->skipped);
    sts_jsonw_key(j, "rejected"), sts_jsonw_u64(j, in->rejected);
    sts_jsonw_key(j, "warnings_total"), sts_jsonw_u64(j, in->warnings_total);
    size_t nw;
    const char *const *w = sts_hosts_warnings(h, i, &nw);
    sts_jsonw_key(j, "warnings");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < nw; k++)
        sts_jsonw_str(j, w[k]);
    sts_jsonw_arr_end(j);
    sts_jsonw_obj_end(j);
}

static void json_names(sts_jsonw *j, const sts_hosts *h, size_t top)
{
    size_t n;
    const sts_host_name *nm = sts_hosts_names(h, &n);
    size_t show = top && top < n ? top : n;
    sts_jsonw_key(j, "names");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < show; i++) {
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "name"), sts_jsonw_str(j, nm[i].name);
        sts_jsonw_key(j, "count"), sts_jsonw_u64(j, nm[i].count);
        sts_jsonw_key(j, "total_ns"), sts_jsonw_i64(j, nm[i].total_ns);
        sts_jsonw_key(j, "self_ns"), sts_jsonw_i64(j, nm[i].self_ns);
        sts_jsonw_key(j, "min_ns"), sts_jsonw_i64(j, nm[i].min_ns);
        sts_jsonw_key(j, "median_ns"), sts_jsonw_i64(j, nm[i].median_ns);
        sts_jsonw_key(j, "max_ns"), sts_jsonw_i64(j, nm[i].max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_lanes_procs(sts_jsonw *j, const sts_hosts *h)
{
    sts_jsonw_key(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_lane *l = sts_hosts_lanes(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            sts_jsonw_obj_begin(j);
            sts_jsonw_key(j, "host"), sts_jsonw_str(j, sts_hosts_info(h, i)->name);
            sts_jsonw_key(j, "pid"), sts_jsonw_str(j, l[k].pid);
            sts_jsonw_key(j, "tid"), sts_jsonw_str(j, l[k].tid);
            sts_jsonw_key(j, "process"), sts_jsonw_str(j, l[k].process);
            sts_jsonw_key(j, "thread"), sts_jsonw_str(j, l[k].thread);
            sts_jsonw_key(j, "device"), sts_jsonw_bool(j, l[k].device);
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
            sts_jsonw_key(j, "host"), sts_jsonw_str(j, sts_hosts_info(h, i)->name);
            sts_jsonw_key(j, "pid"), sts_jsonw_str(j, p[k].pid);
            sts_jsonw_key(j, "process"), sts_jsonw_str(j, p[k].name);
            sts_busy_write_json(j, &p[k].busy);
            sts_jsonw_obj_end(j);
        }
    }
    sts_jsonw_arr_end(j);
}

static void json_overlaps(sts_jsonw *j, const sts_hosts *h)
{
    sts_jsonw_key(j, "overlap_list");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t n;
        const sts_host_overlap *o = sts_hosts_overlaps(h, i, &n);
        for (size_t k = 0; k < n; k++) {
            sts_jsonw_obj_begin(j);
            sts_jsonw_key(j, "host"), sts_jsonw_str(j, sts_hosts_info(h, i)->name);
            sts_jsonw_key(j, "name"), sts_jsonw_str(j, o[k].name);
            sts_jsonw_key(j, "parent"), sts_jsonw_str(j, o[k].parent);
            sts_jsonw_key(j, "pid"), sts_jsonw_str(j, o[k].pid);
            sts_jsonw_key(j, "tid"), sts_jsonw_str(j, o[k].tid);
            sts_jsonw_key(j, "ts_ns"), sts_jsonw_i64(j, o[k].ts_ns);
            sts_jsonw_key(j, "dur_ns"), sts_jsonw_i64(j, o[k].dur_ns);
            sts_jsonw_key(j, "parent_ts_ns"), sts_jsonw_i64(j, o[k].parent_ts_ns);
            sts_jsonw_key(j, "parent_dur_ns"), sts_jsonw_i64(j, o[k].parent_dur_ns);
            sts_jsonw_key(j, "overrun_ns"), sts_jsonw_i64(j, o[k].overrun_ns);
            sts_jsonw_obj_end(j);
        }
    }
    sts_jsonw_arr_end(j);
}

int hc_print_analyze(const sts_hosts *h, const sts_hostset *set, int json, size_t top)
{
    totals t;
    add_up(h, &t);
    if (!json) {
        print_facts(h, set, &t);
        print_names(h, top == SIZE_MAX ? DEFAULT_TOP : top);
        print_hosts(h);
        print_lanes(h);
        print_processes(h);
        print_overlaps(h, &t);
        return cli_stdout_check("analyze");
    }
    sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
    if (!j) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
    sts_jsonw_obj_begin(j);
    json_totals(j, h, set, &t);
    sts_jsonw_key(j, "hosts");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++)
        json_host(j, h, i);
    sts_jsonw_arr_end(j);
    json_names(j, h, top == SIZE_MAX ? 0 : top);
    json_lanes_procs(j, h);
    sts_jsonw_key(j, "clamped"), sts_jsonw_u64(j, t.clamped);
    sts_jsonw_key(j, "overlaps"), sts_jsonw_u64(j, t.overlaps);
    json_overlaps(j, h);
    sts_jsonw_obj_end(j);
    return cli_json_finish("analyze", j);
}
