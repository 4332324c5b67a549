/* stepscope analyze: what a trace holds, names ranked by self time, busy time per lane. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hosts_cli.h"
#include "trace_cli.h"

#define DEFAULT_TOP   20
#define SHOW_OVERLAPS 10
#define JSON_OVERLAPS 100

typedef struct analysis {
    const sts_timeline *tl;
    const sts_timeline_info *info;
    sts_name_summary *names;
    size_t nnames;
    uint32_t *order;  /* lanes in display order */
    sts_busy *busy;   /* per lane */
    sts_busy *pbusy;  /* per process */
    uint32_t *porder; /* processes in display order */
    sts_busy all;
    size_t nlanes, nslices, nprocs;
} analysis;

static int compute(analysis *a)
{
    sts_error err = STS_ERROR_INIT;
    const sts_timeline *tl = a->tl;
    a->info = sts_timeline_get_info(tl);
    sts_timeline_lanes(tl, &a->nlanes);
    sts_timeline_slices(tl, &a->nslices);
    sts_timeline_processes(tl, &a->nprocs);
    if (sts_name_summaries(tl, &a->names, &a->nnames, &err) != STS_OK ||
        sts_busy_lanes(tl, NULL, 0, &a->all, &err) != STS_OK)
        return cli_report("analyze", &err);
    a->order = malloc((a->nlanes ? a->nlanes : 1) * sizeof *a->order);
    a->busy = malloc((a->nlanes ? a->nlanes : 1) * sizeof *a->busy);
    if (!a->order || !a->busy) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
    sts_lane_display_order(tl, a->order);
    for (size_t l = 0; l < a->nlanes; l++)
        a->busy[l] = sts_busy_lane(tl, (uint32_t)l);
    a->pbusy = malloc((a->nprocs ? a->nprocs : 1) * sizeof *a->pbusy);
    a->porder = malloc((a->nprocs ? a->nprocs : 1) * sizeof *a->porder);
    if (!a->pbusy || !a->porder) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
    for (size_t p = 0; p < a->nprocs; p++)
        if (sts_busy_process(tl, (uint32_t)p, &a->pbusy[p], &err) != STS_OK) return cli_report("analyze", &err);
    /* Processes in the order their first lane is displayed. */
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    unsigned char *seen = calloc(a->nprocs ? a->nprocs : 1, 1);
    if (!seen) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
    size_t np = 0;
    for (size_t k = 0; k < a->nlanes; k++) {
        uint32_t p = lanes[a->order[k]].process;
        if (!seen[p]) seen[p] = 1, a->porder[np++] = p;
    }
    for (size_t p = 0; p < a->nprocs; p++)
        if (!seen[p]) a->porder[np++] = (uint32_t)p;
    free(seen);
    return CLI_OK;
}

/* ---- human output ----------------------------------------------------------------- */

static void print_phases(const sts_timeline_info *info)
{
    int first = 1;
    for (int c = 0; c < 128; c++) {
        if (!info->by_phase[c]) continue;
        if (c > 32 && c < 127)
            printf("%s%c %" PRIu64, first ? " (" : ", ", c, info->by_phase[c]);
        else
            printf("%s0x%02x %" PRIu64, first ? " (" : ", ", c, info->by_phase[c]);
        first = 0;
    }
    printf("%s\n", first ? "" : ")");
}

static void print_facts(const analysis *a)
{
    const sts_timeline_info *in = a->info;
    char d1[32], d2[32];
    printf("trace       %s\n", in->path);
    printf("format      %s, %" PRIu64 " bytes%s%s\n", in->format, in->bytes, in->compressed ? " (gzip)" : "",
           in->truncated ? ", TRUNCATED: complete events imported" : "");
    printf("events      %" PRIu64, in->events);
    print_phases(in);
    printf("lanes       %zu in %zu process%s\n", a->nlanes, a->nprocs, a->nprocs == 1 ? "" : "es");
    sts_fmt_duration(in->ts_max - in->ts_min, d1, sizeof d1);
    printf("slices      %zu\nspan        %s (ts %" PRId64 " to %" PRId64 " ns)\n", a->nslices, d1, in->ts_min,
           in->ts_max);
    if (in->resolution_ns == 1000)
        printf("resolution  1 \xc2\xb5s: every ts and dur was a whole microsecond\n");
    else
        printf("resolution  1 ns: some ts or dur had a fraction of a microsecond\n");
    sts_fmt_duration(in->resolution_ns, d1, sizeof d1);
    printf("nesting     %" PRIu64 " clamped (overran the parent by <= %s: nested, end clamped), %" PRIu64
           " overlaps (overran by more: nested beside it, not inside)\n",
           in->clamped, d1, in->overlaps);
    printf("            %" PRIu64 " unmatched E, %" PRIu64 " unclosed B, %" PRIu64 " skipped, %" PRIu64 " rejected\n",
           in->unmatched_end, in->unclosed_begin, in->skipped, in->rejected);
    sts_fmt_duration(a->all.union_ns, d1, sizeof d1);
    sts_fmt_duration(a->all.span_ns, d2, sizeof d2);
    printf("busy        %s of %s (%.1f%%): union of all lanes' slices\n", d1, d2,
           a->all.span_ns ? 100.0 * (double)a->all.union_ns / (double)a->all.span_ns : 0.0);
}

static void print_names(const analysis *a, size_t top)
{
    size_t show = top && top < a->nnames ? top : a->nnames;
    printf("\nnames by self time (%s%zu of %zu; self = duration minus direct children)\n",
           show < a->nnames ? "top " : "", show, a->nnames);
    if (!show) return;
    int nw = 4, cw = 5;
    for (size_t i = 0; i < show; i++) {
        int w = tc_width(sts_timeline_string(a->tl, a->names[i].name), 60);
        if (w > nw) nw = w;
        char c[32];
        int l = snprintf(c, sizeof c, "%" PRIu64, a->names[i].count);
        if (l > cw) cw = l;
    }
    printf("  ");
    tc_cell(stdout, "name", nw, 1);
    printf("  %*s %11s %11s %11s %11s %11s\n", cw, "count", "total", "self", "min", "median", "max");
    for (size_t i = 0; i < show; i++) {
        const sts_name_summary *s = &a->names[i];
        char t[32], se[32], mn[32], md[32], mx[32];
        sts_fmt_duration(s->total_ns, t, sizeof t);
        sts_fmt_duration(s->self_ns, se, sizeof se);
        sts_fmt_duration(s->min_ns, mn, sizeof mn);
        sts_fmt_duration(s->median_ns, md, sizeof md);
        sts_fmt_duration(s->max_ns, mx, sizeof mx);
        printf("  ");
        tc_cell(stdout, sts_timeline_string(a->tl, s->name), nw, 1);
        printf("  %*" PRIu64 " %*s %*s %*s %*s %*s\n", cw, s->count, sts_fmt_field(t, 11), t, sts_fmt_field(se, 11), se,
               sts_fmt_field(mn, 11), mn, sts_fmt_field(md, 11), md, sts_fmt_field(mx, 11), mx);
    }
}

/* One row of a busy-time table: the label cells, then slices, busy, span and busy%.
 * A NULL `b` prints the header with `cells` as column titles. */
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
    sts_fmt_duration(b->union_ns, u, sizeof u);
    sts_fmt_duration(b->span_ns, sp, sizeof sp);
    printf("  %9" PRIu64 " %*s %*s %5.1f%%\n", b->slices, sts_fmt_field(u, 11), u, sts_fmt_field(sp, 11), sp,
           b->span_ns ? 100.0 * (double)b->union_ns / (double)b->span_ns : 0.0);
}

/* Widens widths[] to fit cells (each capped at caps[]). */
static void fit_widths(const char *const *cells, const int *caps, int *widths, size_t ncells)
{
    for (size_t c = 0; c < ncells; c++) {
        int w = tc_width(cells[c], caps[c]);
        if (w > widths[c]) widths[c] = w;
    }
}

static void lane_cells(const analysis *a, uint32_t l, const char *cells[4])
{
    cells[0] = tc_pid(a->tl, l);
    cells[1] = tc_tid(a->tl, l);
    cells[2] = tc_process_name(a->tl, l);
    cells[3] = tc_thread_name(a->tl, l);
}

static void print_lanes(const analysis *a)
{
    printf("\nlanes (busy = union of the lane's slices, span = first start to last end)\n");
    static const char *const titles[4] = { "pid", "tid", "process", "thread" };
    static const int caps[4] = { 24, 24, 32, 32 };
    int widths[4] = { 3, 3, 7, 6 };
    const char *cells[4];
    for (size_t k = 0; k < a->nlanes; k++) {
        lane_cells(a, a->order[k], cells);
        fit_widths(cells, caps, widths, 4);
    }
    busy_row(titles, widths, 4, NULL);
    size_t hidden = 0;
    for (size_t k = 0; k < a->nlanes; k++) {
        uint32_t l = a->order[k];
        if (!a->busy[l].slices) {
            hidden++;
            continue;
        }
        lane_cells(a, l, cells);
        busy_row(cells, widths, 4, &a->busy[l]);
    }
    if (hidden) printf("  (%zu lane%s without slices not shown)\n", hidden, hidden == 1 ? "" : "s");
}

static void print_processes(const analysis *a)
{
    if (a->nprocs < 2) return;
    const sts_process *procs = sts_timeline_processes(a->tl, NULL);
    printf("\nprocesses (busy = union over all their lanes)\n");
    static const char *const titles[2] = { "pid", "process" };
    static const int caps[2] = { 24, 40 };
    int widths[2] = { 3, 7 };
    const char *cells[2];
    for (size_t p = 0; p < a->nprocs; p++) {
        cells[0] = sts_timeline_string(a->tl, procs[p].label);
        cells[1] = sts_timeline_string(a->tl, procs[p].name);
        fit_widths(cells, caps, widths, 2);
    }
    busy_row(titles, widths, 2, NULL);
    size_t hidden = 0;
    for (size_t k = 0; k < a->nprocs; k++) {
        uint32_t p = a->porder[k];
        if (!a->pbusy[p].slices) {
            hidden++;
            continue;
        }
        cells[0] = sts_timeline_string(a->tl, procs[p].label);
        cells[1] = sts_timeline_string(a->tl, procs[p].name);
        busy_row(cells, widths, 2, &a->pbusy[p]);
    }
    if (hidden) printf("  (%zu process%s without slices not shown)\n", hidden, hidden == 1 ? "" : "es");
}

static void print_overlaps(const analysis *a)
{
    size_t n;
    const sts_overlap *ov = sts_timeline_overlaps(a->tl, &n);
    if (!n) return;
    const sts_slice *s = sts_timeline_slices(a->tl, NULL);
    size_t show = n < SHOW_OVERLAPS ? n : SHOW_OVERLAPS;
    printf("\noverlaps (%s%zu of %zu): slices that overran their parent by more than the resolution\n",
           show < n ? "first " : "", show, n);
    for (size_t i = 0; i < show; i++) {
        const sts_slice *c = &s[ov[i].slice], *p = &s[ov[i].parent];
        char o[32], d[32];
        sts_fmt_duration(ov[i].overrun_ns, o, sizeof o);
        sts_fmt_duration(c->dur, d, sizeof d);
        printf("  '%s' (ts %" PRId64 " ns, %s) overruns '%s' by %s on pid %s tid %s\n",
               sts_timeline_string(a->tl, c->name), c->ts, d, sts_timeline_string(a->tl, p->name), o,
               tc_pid(a->tl, c->lane), tc_tid(a->tl, c->lane));
    }
}

/* ---- JSON ------------------------------------------------------------------------- */

static void json_trace(sts_jsonw *j, const analysis *a)
{
    const sts_timeline_info *in = a->info;
    sts_jsonw_key(j, "trace");
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "path"), sts_jsonw_str(j, in->path);
    sts_jsonw_key(j, "run"), sts_jsonw_str(j, in->run);
    sts_jsonw_key(j, "format"), sts_jsonw_str(j, in->format);
    sts_jsonw_key(j, "bytes"), sts_jsonw_u64(j, in->bytes);
    sts_jsonw_key(j, "compressed"), sts_jsonw_bool(j, in->compressed);
    sts_jsonw_key(j, "truncated"), sts_jsonw_bool(j, in->truncated);
    sts_jsonw_key(j, "events"), sts_jsonw_u64(j, in->events);
    sts_jsonw_key(j, "by_phase");
    sts_jsonw_obj_begin(j);
    for (int c = 0; c < 128; c++) {
        if (!in->by_phase[c]) continue;
        char k[2] = { (char)c, 0 };
        sts_jsonw_key(j, k);
        sts_jsonw_u64(j, in->by_phase[c]);
    }
    sts_jsonw_obj_end(j);
    sts_jsonw_key(j, "processes"), sts_jsonw_u64(j, a->nprocs);
    sts_jsonw_key(j, "lanes"), sts_jsonw_u64(j, a->nlanes);
    sts_jsonw_key(j, "slices"), sts_jsonw_u64(j, a->nslices);
    size_t n;
    sts_timeline_instants(a->tl, &n), sts_jsonw_key(j, "instants"), sts_jsonw_u64(j, n);
    sts_timeline_counters(a->tl, &n), sts_jsonw_key(j, "counters"), sts_jsonw_u64(j, n);
    sts_timeline_asyncs(a->tl, &n), sts_jsonw_key(j, "asyncs"), sts_jsonw_u64(j, n);
    sts_timeline_flows(a->tl, &n), sts_jsonw_key(j, "flows"), sts_jsonw_u64(j, n);
    sts_timeline_args(a->tl, &n), sts_jsonw_key(j, "args_kept"), sts_jsonw_u64(j, n);
    sts_jsonw_key(j, "ts_min_ns"), sts_jsonw_i64(j, in->ts_min);
    sts_jsonw_key(j, "ts_max_ns"), sts_jsonw_i64(j, in->ts_max);
    sts_jsonw_key(j, "span_ns"), sts_jsonw_i64(j, in->ts_max - in->ts_min);
    sts_jsonw_key(j, "busy_ns"), sts_jsonw_i64(j, a->all.union_ns);
    sts_jsonw_key(j, "resolution_ns"), sts_jsonw_i64(j, in->resolution_ns);
    sts_jsonw_key(j, "display_time_unit"), sts_jsonw_str(j, in->display_time_unit);
    sts_jsonw_key(j, "clamped"), sts_jsonw_u64(j, in->clamped);
    sts_jsonw_key(j, "overlaps"), sts_jsonw_u64(j, in->overlaps);
    sts_jsonw_key(j, "unmatched_end"), sts_jsonw_u64(j, in->unmatched_end);
    sts_jsonw_key(j, "unclosed_begin"), sts_jsonw_u64(j, in->unclosed_begin);
    sts_jsonw_key(j, "skipped"), sts_jsonw_u64(j, in->skipped);
    sts_jsonw_key(j, "rejected"), sts_jsonw_u64(j, in->rejected);
    uint64_t total;
    const char *const *w = sts_timeline_warnings(a->tl, &n, &total);
    sts_jsonw_key(j, "warnings_total"), sts_jsonw_u64(j, total);
    sts_jsonw_key(j, "warnings");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n; i++)
        sts_jsonw_str(j, w[i]);
    sts_jsonw_arr_end(j);
    sts_jsonw_obj_end(j);
}

static void json_names(sts_jsonw *j, const analysis *a, size_t top)
{
    size_t show = top && top < a->nnames ? top : a->nnames;
    sts_jsonw_key(j, "names");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < show; i++) {
        const sts_name_summary *s = &a->names[i];
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "name"), sts_jsonw_str(j, sts_timeline_string(a->tl, s->name));
        sts_jsonw_key(j, "count"), sts_jsonw_u64(j, s->count);
        sts_jsonw_key(j, "total_ns"), sts_jsonw_i64(j, s->total_ns);
        sts_jsonw_key(j, "self_ns"), sts_jsonw_i64(j, s->self_ns);
        sts_jsonw_key(j, "min_ns"), sts_jsonw_i64(j, s->min_ns);
        sts_jsonw_key(j, "median_ns"), sts_jsonw_i64(j, s->median_ns);
        sts_jsonw_key(j, "max_ns"), sts_jsonw_i64(j, s->max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_lanes(sts_jsonw *j, const analysis *a)
{
    sts_jsonw_key(j, "lanes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < a->nlanes; k++) {
        uint32_t l = a->order[k];
        const sts_busy *b = &a->busy[l];
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "pid"), sts_jsonw_str(j, tc_pid(a->tl, l));
        sts_jsonw_key(j, "tid"), sts_jsonw_str(j, tc_tid(a->tl, l));
        sts_jsonw_key(j, "process"), sts_jsonw_str(j, tc_process_name(a->tl, l));
        sts_jsonw_key(j, "thread"), sts_jsonw_str(j, tc_thread_name(a->tl, l));
        sts_jsonw_key(j, "slices"), sts_jsonw_u64(j, b->slices);
        sts_jsonw_key(j, "union_ns"), sts_jsonw_i64(j, b->union_ns);
        sts_jsonw_key(j, "span_ns"), sts_jsonw_i64(j, b->span_ns);
        sts_jsonw_key(j, "start_ns"), sts_jsonw_i64(j, b->start_ns);
        sts_jsonw_key(j, "end_ns"), sts_jsonw_i64(j, b->end_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_processes(sts_jsonw *j, const analysis *a)
{
    const sts_process *procs = sts_timeline_processes(a->tl, NULL);
    sts_jsonw_key(j, "processes");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < a->nprocs; k++) {
        uint32_t p = a->porder[k];
        const sts_busy *b = &a->pbusy[p];
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "pid"), sts_jsonw_str(j, sts_timeline_string(a->tl, procs[p].label));
        sts_jsonw_key(j, "process"), sts_jsonw_str(j, sts_timeline_string(a->tl, procs[p].name));
        sts_jsonw_key(j, "slices"), sts_jsonw_u64(j, b->slices);
        sts_jsonw_key(j, "union_ns"), sts_jsonw_i64(j, b->union_ns);
        sts_jsonw_key(j, "span_ns"), sts_jsonw_i64(j, b->span_ns);
        sts_jsonw_key(j, "start_ns"), sts_jsonw_i64(j, b->start_ns);
        sts_jsonw_key(j, "end_ns"), sts_jsonw_i64(j, b->end_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_overlaps(sts_jsonw *j, const analysis *a)
{
    size_t n;
    const sts_overlap *ov = sts_timeline_overlaps(a->tl, &n);
    const sts_slice *s = sts_timeline_slices(a->tl, NULL);
    sts_jsonw_key(j, "overlap_list");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < n && i < JSON_OVERLAPS; i++) {
        const sts_slice *c = &s[ov[i].slice], *p = &s[ov[i].parent];
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "name"), sts_jsonw_str(j, sts_timeline_string(a->tl, c->name));
        sts_jsonw_key(j, "parent"), sts_jsonw_str(j, sts_timeline_string(a->tl, p->name));
        sts_jsonw_key(j, "pid"), sts_jsonw_str(j, tc_pid(a->tl, c->lane));
        sts_jsonw_key(j, "tid"), sts_jsonw_str(j, tc_tid(a->tl, c->lane));
        sts_jsonw_key(j, "ts_ns"), sts_jsonw_i64(j, c->ts);
        sts_jsonw_key(j, "dur_ns"), sts_jsonw_i64(j, c->dur);
        sts_jsonw_key(j, "parent_ts_ns"), sts_jsonw_i64(j, p->ts);
        sts_jsonw_key(j, "parent_dur_ns"), sts_jsonw_i64(j, p->dur);
        sts_jsonw_key(j, "overrun_ns"), sts_jsonw_i64(j, ov[i].overrun_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static int print_json(const analysis *a, size_t top)
{
    sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
    if (!j) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
    sts_jsonw_obj_begin(j);
    json_trace(j, a);
    json_names(j, a, top);
    json_lanes(j, a);
    json_processes(j, a);
    sts_jsonw_key(j, "clamped"), sts_jsonw_u64(j, a->info->clamped);
    sts_jsonw_key(j, "overlaps"), sts_jsonw_u64(j, a->info->overlaps);
    json_overlaps(j, a);
    sts_jsonw_obj_end(j);
    return cli_json_finish("analyze", j);
}

int cmd_analyze(int argc, char **argv)
{
    int json = 0, top = INT_MIN, jobs = INT_MIN, mpi = 0;
    const char *run = NULL, *args = NULL;
    const cli_opt opts[] = {
        { "json", CLI_FLAG, &json, NULL, "print JSON (see docs/json-schemas.md); lists every name unless --top" },
        { "top", CLI_INT, &top, "N", "show the N names with the most self time (default 20; 0 = all)" },
        TC_RUN_OPT(run),
        TC_ARGS_OPT(args),
        HC_JOBS_OPT(jobs),
        HC_MPI_OPT(mpi),
        { 0 },
    };
    const cli_spec spec = {
        "analyze",
        "TRACE... [--json] [--top N] [--run NAME] [--args MODE] [-j N] [--mpi]",
        "Reads a trace (Chrome JSON, .json.gz, XSpace .xplane.pb or a JAX profile directory)\n"
        "and reports what it holds: events by phase, lanes, time span, resolution, how many\n"
        "slices were clamped into their parent or kept apart as overlaps; every slice name\n"
        "ranked by self time (duration minus direct children) with count, total, min, median\n"
        "and max; and per lane its busy time (the union of its slices) against its span.\n"
        "Several hosts (files, or a profile run holding several; see docs/hosts.md): each\n"
        "host's facts, lanes and processes apart, names ranked over every host.",
        opts,
        1,
        argc,
    };
    const char **pos = malloc((size_t)argc * sizeof *pos);
    if (!pos) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc < 0 && top != INT_MIN && top < 0) {
        fprintf(stderr, "stepscope analyze: --top expects N >= 0, got %d\n", top);
        rc = CLI_USAGE;
    }
    if (rc < 0) {
        hc_opts ho = { "analyze", pos, (size_t)npos, run, args, jobs, mpi };
        rc = hc_analyze(&ho, json, top == INT_MIN ? SIZE_MAX : (size_t)top);
    }
    /* One host: read as one trace. */
    const char *path = rc == HC_SINGLE ? pos[0] : NULL;
    free(pos);
    if (rc != HC_SINGLE) return rc;
    sts_timeline *tl = NULL;
    if ((rc = tc_open("analyze", path, run, args, &tl)) != CLI_OK) return rc;
    analysis a = { 0 };
    a.tl = tl;
    rc = compute(&a);
    if (rc == CLI_OK && json) {
        rc = print_json(&a, top == INT_MIN ? 0 : (size_t)top);
    } else if (rc == CLI_OK) {
        print_facts(&a);
        print_names(&a, top == INT_MIN ? DEFAULT_TOP : (size_t)top);
        print_lanes(&a);
        print_processes(&a);
        print_overlaps(&a);
    }
    free(a.names);
    free(a.order);
    free(a.busy);
    free(a.pbusy);
    free(a.porder);
    sts_timeline_free(tl);
    return rc;
}
