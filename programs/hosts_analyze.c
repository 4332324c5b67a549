/* stepscope analyze on several hosts: the hosts' facts added up, names ranked by self
 * time over every host, and per host its busy time, lanes and processes (each host's
 * pids are its own). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hosts_cli.h"
#include "memory_cli.h"
#include "trace_cli.h"

#define DEFAULT_TOP   20
#define SHOW_OVERLAPS 10

static int64_t span_of(const sts_host_info *in)
{
    return in->ts_max - in->ts_min;
}

static double pct(int64_t a, int64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* ---- text ------------------------------------------------------------------------------ */

static void print_facts(const sts_hosts *h, const sts_hostset *set, const sts_hosts_totals *t)
{
    size_t n = sts_hosts_count(h);
    char d1[32], d2[32], fm[256];
    cli_say(stdout, "hosts       %zu (%s to %s), each host's processes its own\n", n, sts_hosts_info(h, 0)->name,
            sts_hosts_info(h, n - 1)->name);
    if (sts_hostset_run(set)) cli_say(stdout, "run         %s\n", sts_hostset_run(set));
    sts_hosts_formats(h, fm, sizeof fm);
    printf("format      %s, %" PRIu64 " bytes in all", fm, t->bytes);
    if (t->compressed) printf(", %" PRIu64 " gzip", t->compressed);
    if (t->truncated) printf(", %" PRIu64 " TRUNCATED: complete events imported", t->truncated);
    printf("\nevents      %" PRIu64, t->events);
    tc_print_phases(t->by_phase);
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

static void print_hosts(const sts_hosts *h)
{
    printf("\nhosts (busy = union of the host's lanes' slices, span = its first start to last end)\n");
    static const char *const titles[2] = { "host", "file" };
    static const int caps[2] = { 32, 60 };
    int widths[2] = { 4, 4 };
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const char *cells[2] = { sts_hosts_info(h, i)->name, sts_hosts_info(h, i)->path };
        tc_fit_widths(cells, caps, widths, 2);
    }
    tc_busy_row(titles, widths, 2, NULL);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const char *cells[2] = { sts_hosts_info(h, i)->name, sts_hosts_info(h, i)->path };
        tc_busy_row(cells, widths, 2, &sts_hosts_info(h, i)->busy);
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
            tc_fit_widths(cells, caps, widths, 5);
        }
    }
    tc_busy_row(titles, widths, 5, NULL);
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
            tc_busy_row(cells, widths, 5, &l[k].busy);
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
            tc_fit_widths(cells, caps, widths, 3);
        }
    }
    tc_busy_row(titles, widths, 3, NULL);
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
            tc_busy_row(cells, widths, 3, &p[k].busy);
        }
    }
    if (hidden) printf("  (%zu process%s without slices not shown)\n", hidden, hidden == 1 ? "" : "es");
}

static void print_overlaps(const sts_hosts *h, const sts_hosts_totals *t)
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
        cli_say(stdout, "  %s: '%s' (ts %" PRId64 " ns, %s) overruns '%s' by %s on pid %s tid %s\n",
                sts_hosts_info(h, i)->name, o[0].name, o[0].ts_ns, d, o[0].parent, ov, o[0].pid, o[0].tid);
        shown++;
    }
}

int hc_print_analyze(const sts_hosts *h, const sts_hostset *set, int json, size_t top)
{
    sts_hosts_totals t;
    sts_hosts_add_up(h, &t);
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
    sts_error err = STS_ERROR_INIT;
    if (sts_hosts_write_analyze_json(j, h, sts_hostset_run(set), top == SIZE_MAX ? 0 : top, &err) != STS_OK) {
        sts_jsonw_free(j);
        return cli_report("analyze", &err);
    }
    return cli_json_finish("analyze", j);
}

/* ---- --memory ------------------------------------------------------------------------ */

int hc_print_memory(const sts_hosts *h, const sts_hostset *set, int json)
{
    size_t any = 0;
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t nd;
        sts_hosts_memory_devices(h, i, &nd);
        any += nd;
    }
    if (!any) {
        cli_say(stderr,
                "stepscope analyze: none of the %zu hosts holds memory events (Kineto [memory] instants, XSpace "
                "MemoryAllocation, or counters named for memory); PyTorch writes them with profile_memory=True\n",
                sts_hosts_count(h));
        return CLI_BAD_INPUT;
    }
    if (json) {
        sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
        if (!j) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
        sts_error err = STS_ERROR_INIT;
        if (sts_hosts_write_memory_json(j, h, sts_hostset_run(set), &err) != STS_OK) {
            sts_jsonw_free(j);
            return cli_report("analyze", &err);
        }
        return cli_json_finish("analyze", j);
    }
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t nd, nl;
        const sts_memory_device *d = sts_hosts_memory_devices(h, i, &nd);
        const sts_memory_live *l = sts_hosts_memory_lives(h, i, &nl);
        printf("%sdevice memory of host ", i ? "\n" : "");
        cli_put_text(stdout, sts_hosts_info(h, i)->name);
        printf(" (");
        cli_put_text(stdout, sts_hosts_info(h, i)->path);
        printf(")\n");
        if (!nd) printf("  no memory events\n");
        for (size_t k = 0; k < nd; k++)
            mc_print_device(&d[k], l, nl);
    }
    return cli_stdout_check("analyze");
}
