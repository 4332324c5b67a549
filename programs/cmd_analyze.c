/* stepscope analyze: what a trace holds, names ranked by self time, busy time per lane,
 * optionally narrowed to some lanes, names or a time window. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devview_cli.h"
#include "hosts_cli.h"
#include "memory_cli.h"
#include "trace_cli.h"
#include "trace_scope.h"

#define DEFAULT_TOP   20
#define SHOW_OVERLAPS 5
#define NAME_CUT      72

typedef struct args {
    int json, top, all_overlaps, memory;
    const char *run, *argmode, *lane, *name, *window, *step, *group;
    dc_opts dc;
} args;

typedef struct analysis {
    const sts_timeline *tl;
    const sts_timeline_info *info;
    sts_analysis *an;
    sts_scope scope;
    int scoped;
    int64_t window_step; /* the step number --window named, or STS_NO_STEP */
    uint32_t *lanes;     /* --lane's lanes (scope.lanes) */
    size_t nlanes_kept;
    /* What the library computed (owned by `an`). */
    const sts_name_summary *names;
    size_t nnames;
    const uint32_t *order;  /* lanes in display order */
    const sts_busy *busy;   /* per lane */
    const sts_busy *pbusy;  /* per process */
    const uint32_t *porder; /* processes in display order */
    sts_busy all;
    size_t nlanes, nslices, nprocs;
    const sts_overlap_group *groups;
    size_t ngroups;
} analysis;

static void analysis_free(analysis *a)
{
    sts_analysis_free(a->an);
    free(a->lanes);
}

/* ---- the scope from the options ----------------------------------------------------- */

static int parse_group(const char *g, sts_group *out)
{
    if (!g || !strcmp(g, "name")) {
        *out = STS_GROUP_NAME;
    } else if (!strcmp(g, "hlo_op")) {
        *out = STS_GROUP_HLO_OP;
    } else if (!strcmp(g, "hlo_module")) {
        *out = STS_GROUP_HLO_MODULE;
    } else {
        cli_say(stderr, "stepscope analyze: --group expects name, hlo_op or hlo_module, got '%s'\n", g);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* --window N: the window of step N (as `steps` numbers them). */
static int window_of_step(analysis *a, const args *o, int64_t *start, int64_t *end)
{
    char *e;
    long long want = strtoll(o->window, &e, 10);
    if (e == o->window || *e) {
        cli_say(stderr, "stepscope analyze: --window expects START:END or a step number, got '%s'\n", o->window);
        return CLI_USAGE;
    }
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    so.step = o->step;
    static const uint32_t no_lanes[1] = { 0 };
    so.window_lanes = no_lanes; /* no windows needed: an empty lane list */
    so.nwindow_lanes = 0;
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_steps_find(a->tl, &so, &s, &err) != STS_OK) {
        cli_say(stderr, "stepscope analyze: error: %s\n", err.message);
        return err.code == STS_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD_INPUT;
    }
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    int rc = CLI_BAD_INPUT;
    for (size_t k = 0; k < n; k++) {
        if (st[k].index != want) continue;
        *start = st[k].ts;
        *end = st[k].ts + st[k].dur;
        a->window_step = want;
        rc = CLI_OK;
        break;
    }
    if (rc != CLI_OK && n)
        fprintf(stderr,
                "stepscope analyze: --window %lld: no such step; the steps are numbered %" PRId64 " to %" PRId64
                " (see 'stepscope steps')\n",
                want, st[0].index, st[n - 1].index);
    else if (rc != CLI_OK)
        cli_say(stderr, "stepscope analyze: --window %lld: no steps found in %s (see 'stepscope steps')\n", want,
                a->info->path);
    sts_steps_free(s);
    return rc;
}

static int make_scope(analysis *a, const args *o)
{
    sts_scope sc = STS_SCOPE_INIT;
    int rc = parse_group(o->group, &sc.group);
    if (rc != CLI_OK) return rc;
    a->window_step = STS_NO_STEP;
    if (o->lane) {
        if ((rc = ts_lanes("analyze", a->tl, o->lane, &a->lanes, &a->nlanes_kept)) != CLI_OK) return rc;
        sc.lanes = a->lanes;
        sc.nlanes = a->nlanes_kept;
    }
    if (o->window) {
        int w = ts_parse_window("analyze", o->window, a->tl, &sc.start_ns, &sc.end_ns);
        if (w < 0) return CLI_USAGE;
        if (w == 1 && (rc = window_of_step(a, o, &sc.start_ns, &sc.end_ns)) != CLI_OK) return rc;
        sc.windowed = 1;
    }
    sc.name = o->name;
    a->scope = sc;
    a->scoped = o->lane || o->window || o->name;
    return CLI_OK;
}

/* Whether --name matches a slice of the chosen lanes anywhere in the trace: a window
 * that holds none of its slices is an empty answer, not a filter that matches nothing. */
static int name_in_lanes(const analysis *a, const sts_analysis_options *ao)
{
    if (!a->scope.windowed) return 0;
    sts_scope whole = a->scope;
    whole.windowed = 0;
    sts_analysis *an = NULL;
    if (sts_analysis_run(a->tl, &whole, ao, &an, NULL) != STS_OK) return 1; /* unknown: claim no mismatch */
    size_t n;
    sts_analysis_names(an, &n);
    sts_analysis_free(an);
    return n > 0;
}

/* ---- computing ---------------------------------------------------------------------- */

static int compute(analysis *a, const args *o, int jobs)
{
    const sts_timeline *tl = a->tl;
    a->info = sts_timeline_get_info(tl);
    sts_timeline_slices(tl, &a->nslices);
    int rc = make_scope(a, o);
    if (rc != CLI_OK) return rc;
    sts_analysis_options ao = STS_ANALYSIS_OPTIONS_INIT;
    ao.jobs = jobs > 0 ? (unsigned)jobs : 0;
    ao.lane_pattern = o->lane;
    ao.window_step = a->window_step;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_analysis_run(tl, &a->scope, &ao, &a->an, &err);
    if (st != STS_OK) {
        cli_say(stderr, "stepscope analyze: error: %s\n", err.message);
        return st == STS_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD_INPUT;
    }
    a->names = sts_analysis_names(a->an, &a->nnames);
    a->busy = sts_analysis_lane_busy(a->an, &a->nlanes);
    a->pbusy = sts_analysis_process_busy(a->an, &a->nprocs);
    a->order = sts_analysis_lane_order(a->an, NULL);
    a->porder = sts_analysis_process_order(a->an, NULL);
    a->all = *sts_analysis_busy(a->an);
    a->groups = sts_analysis_overlap_groups(a->an, &a->ngroups);
    if (o->name && a->nnames == 0 && !name_in_lanes(a, &ao)) {
        /* A filter that matches nothing exits 1, as --lane does (docs/stepscope.1, EXIT STATUS). */
        cli_say(stderr, "stepscope analyze: no slice name matches '%s'\n", o->name);
        ts_suggest_names(tl, o->name);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* ---- human output ----------------------------------------------------------------- */

/* A name cut to NAME_CUT characters for one line of text. */
static void put_name(const char *s)
{
    int w = tc_width(s, NAME_CUT + 1);
    tc_cell(stdout, s, w < NAME_CUT ? w : NAME_CUT, 1);
}

static const char *group_title(sts_group g)
{
    return g == STS_GROUP_HLO_OP ? "hlo_op" : g == STS_GROUP_HLO_MODULE ? "hlo_module" : "name";
}

static void print_scope(const analysis *a, const args *o)
{
    if (!a->scoped && a->scope.group == STS_GROUP_NAME) return;
    char d1[32], d2[32];
    if (o->lane) cli_say(stdout, "lanes       %zu matching '%s'\n", a->nlanes_kept, o->lane);
    if (o->name) cli_say(stdout, "names       matching '%s'\n", o->name);
    if (a->scope.windowed) {
        sts_fmt_duration((double)(a->scope.start_ns - a->info->ts_min), d1, sizeof d1);
        sts_fmt_duration((double)(a->scope.end_ns - a->info->ts_min), d2, sizeof d2);
        printf("window      %s to %s after the trace's first timestamp", d1, d2);
        if (a->window_step != STS_NO_STEP) printf(" (step %" PRId64 ")", a->window_step);
        printf(": every slice cut to it\n");
    }
    if (a->scope.group != STS_GROUP_NAME)
        printf("grouped     by %s: slices carrying it are counted under its value, others under their name\n",
               group_title(a->scope.group));
}

static void print_facts(const analysis *a)
{
    const sts_timeline_info *in = a->info;
    char d1[32], d2[32];
    cli_say(stdout, "trace       %s\n", in->path);
    printf("format      %s, %" PRIu64 " bytes%s%s\n", in->format, in->bytes, in->compressed ? " (gzip)" : "",
           in->truncated ? ", TRUNCATED: complete events imported" : "");
    printf("events      %" PRIu64, in->events);
    tc_print_phases(in->by_phase);
    printf("lanes       %zu in %zu process%s\n", a->nlanes, a->nprocs, a->nprocs == 1 ? "" : "es");
    sts_fmt_duration((double)(in->ts_max - in->ts_min), d1, sizeof d1);
    printf("slices      %zu\nspan        %s (ts %" PRId64 " to %" PRId64 " ns)\n", a->nslices, d1, in->ts_min,
           in->ts_max);
    if (in->resolution_ns == 1000)
        printf("resolution  1 \xc2\xb5s: every ts and dur was a whole microsecond\n");
    else
        printf("resolution  1 ns: some ts or dur had a fraction of a microsecond\n");
    sts_fmt_duration((double)(in->resolution_ns), d1, sizeof d1);
    printf("nesting     %" PRIu64 " clamped (overran the slice they started in by <= %s: end clamped), %" PRIu64
           " overlap%s (overran it by more: listed below, on %" PRIu64 " overflow track%s as in Perfetto)\n",
           in->clamped, d1, in->overlaps, in->overlaps == 1 ? "" : "s", in->overflow_tracks,
           in->overflow_tracks == 1 ? "" : "s");
    printf("            %" PRIu64 " unmatched E (ignored), %" PRIu64 " misplaced E (open slices cut), %" PRIu64
           " cut to fit their parent\n",
           in->unmatched_end, in->misplaced_end, in->repaired);
    printf("            %" PRIu64 " unclosed B (counted as running to the last timestamp of their lane), %" PRIu64
           " skipped, %" PRIu64 " rejected\n",
           in->unclosed_begin, in->skipped, in->rejected);
    sts_fmt_duration((double)(a->all.union_ns), d1, sizeof d1);
    sts_fmt_duration((double)(a->all.span_ns), d2, sizeof d2);
    printf("busy        %s of %s (%.1f%%): union of %s slices\n", d1, d2,
           a->all.span_ns ? 100.0 * (double)a->all.union_ns / (double)a->all.span_ns : 0.0,
           a->scoped ? "the chosen" : "all lanes'");
}

/* The row's label: the slice name, or "module/op" for an hlo_op group. */
static const char *row_label(const analysis *a, const sts_name_summary *s, char *buf, size_t n)
{
    const char *nm = sts_timeline_string(a->tl, s->name);
    if (!s->grouped || s->module == STS_NONE) return nm;
    snprintf(buf, n, "%s/%s", sts_timeline_string(a->tl, s->module), nm);
    return buf;
}

static void print_names(const analysis *a, size_t top)
{
    size_t show = top && top < a->nnames ? top : a->nnames;
    printf("\n%s by self time (%s%zu of %zu; self = duration minus the union of what lies inside it)\n",
           a->scope.group == STS_GROUP_NAME ? "names" : "names and hlo groups", show < a->nnames ? "top " : "", show,
           a->nnames);
    if (!show) return;
    int nw = 4, cw = 5;
    char buf[512];
    for (size_t i = 0; i < show; i++) {
        int w = tc_width(row_label(a, &a->names[i], buf, sizeof buf), 60);
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
        sts_fmt_duration((double)(s->total_ns), t, sizeof t);
        sts_fmt_duration((double)(s->self_ns), se, sizeof se);
        sts_fmt_duration((double)(s->min_ns), mn, sizeof mn);
        sts_fmt_duration((double)(s->median_ns), md, sizeof md);
        sts_fmt_duration((double)(s->max_ns), mx, sizeof mx);
        printf("  ");
        tc_cell(stdout, row_label(a, s, buf, sizeof buf), nw, 1);
        printf("  %*" PRIu64 " %*s %*s %*s %*s %*s\n", cw, s->count, sts_fmt_field(t, 11), t, sts_fmt_field(se, 11), se,
               sts_fmt_field(mn, 11), mn, sts_fmt_field(md, 11), md, sts_fmt_field(mx, 11), mx);
    }
}

static void lane_cells(const analysis *a, uint32_t l, const char *cells[4])
{
    cells[0] = sts_lane_pid(a->tl, l);
    cells[1] = sts_lane_tid(a->tl, l);
    cells[2] = sts_lane_process_name(a->tl, l);
    cells[3] = sts_lane_thread_name(a->tl, l);
}

static void print_lanes(const analysis *a)
{
    printf("\nlanes (busy = union of the lane's slices, span = first start to last end)\n");
    static const char *const titles[4] = { "pid", "tid", "process", "thread" };
    static const int caps[4] = { 24, 24, 32, 40 };
    int widths[4] = { 3, 3, 7, 6 };
    const char *cells[4];
    for (size_t k = 0; k < a->nlanes; k++) {
        if (!a->busy[a->order[k]].slices) continue;
        lane_cells(a, a->order[k], cells);
        tc_fit_widths(cells, caps, widths, 4);
    }
    tc_busy_row(titles, widths, 4, NULL);
    size_t hidden = 0;
    for (size_t k = 0; k < a->nlanes; k++) {
        uint32_t l = a->order[k];
        if (!a->busy[l].slices) {
            hidden++;
            continue;
        }
        lane_cells(a, l, cells);
        tc_busy_row(cells, widths, 4, &a->busy[l]);
    }
    if (hidden)
        printf("  (%zu lane%s without %sslices not shown)\n", hidden, hidden == 1 ? "" : "s",
               a->scoped ? "chosen " : "");
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
        if (!a->pbusy[p].slices) continue;
        cells[0] = sts_timeline_string(a->tl, procs[p].label);
        cells[1] = sts_timeline_string(a->tl, procs[p].name);
        tc_fit_widths(cells, caps, widths, 2);
    }
    tc_busy_row(titles, widths, 2, NULL);
    size_t hidden = 0;
    for (size_t k = 0; k < a->nprocs; k++) {
        uint32_t p = a->porder[k];
        if (!a->pbusy[p].slices) {
            hidden++;
            continue;
        }
        cells[0] = sts_timeline_string(a->tl, procs[p].label);
        cells[1] = sts_timeline_string(a->tl, procs[p].name);
        tc_busy_row(cells, widths, 2, &a->pbusy[p]);
    }
    if (hidden) printf("  (%zu process%s without slices not shown)\n", hidden, hidden == 1 ? "" : "es");
}

static void print_overlap(const analysis *a, const sts_overlap *ov)
{
    const sts_slice *s = sts_timeline_slices(a->tl, NULL);
    const sts_slice *c = &s[ov->slice], *p = &s[ov->parent];
    char o[32], d[32];
    sts_fmt_duration((double)(ov->overrun_ns), o, sizeof o);
    sts_fmt_duration((double)(c->dur), d, sizeof d);
    printf("  '");
    put_name(sts_timeline_string(a->tl, c->name));
    printf("' (ts %" PRId64 " ns, %s) overran '", c->ts, d);
    put_name(sts_timeline_string(a->tl, p->name));
    cli_say(stdout, "' by %s on pid %s tid %s\n", o, sts_lane_pid(a->tl, c->lane), sts_lane_tid(a->tl, c->lane));
}

static void print_overlaps(const analysis *a, int all)
{
    size_t n;
    const sts_overlap *ov = sts_timeline_overlaps(a->tl, &n);
    if (!n) return;
    printf("\noverlaps: %zu slice%s started inside an open slice of its track and ended after it, so moved to an "
           "overflow track (self time counts only what lies inside a slice)\n",
           n, n == 1 ? "" : "s");
    if (all) {
        for (size_t i = 0; i < n; i++)
            print_overlap(a, &ov[i]);
        return;
    }
    size_t show = a->ngroups < SHOW_OVERLAPS ? a->ngroups : SHOW_OVERLAPS;
    for (size_t k = 0; k < show; k++) {
        const sts_overlap_group *g = &a->groups[k];
        char lo[32], hi[32];
        sts_fmt_duration((double)(g->min_ns), lo, sizeof lo);
        sts_fmt_duration((double)(g->max_ns), hi, sizeof hi);
        printf("  %" PRIu64 "x '", g->count);
        put_name(sts_timeline_string(a->tl, g->name));
        printf("' overran '");
        put_name(sts_timeline_string(a->tl, g->parent));
        if (g->count == 1)
            printf("' by %s", lo);
        else
            printf("' by %s to %s", lo, hi);
        cli_say(stdout, " (pid %s tid %s)\n", sts_lane_pid(a->tl, g->lane), sts_lane_tid(a->tl, g->lane));
    }
    if (show < a->ngroups)
        printf("  ... %zu more pair%s of names; --overlaps lists every overlap\n", a->ngroups - show,
               a->ngroups - show == 1 ? "" : "s");
    else if (n > show)
        printf("  (--overlaps lists every overlap)\n");
}

/* ---- JSON ------------------------------------------------------------------------- */

static int print_json(const analysis *a, const args *o, const sts_devview *dv)
{
    sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
    if (!j) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
    sts_error err = STS_ERROR_INIT;
    size_t top = o->top == INT_MIN ? 0 : (size_t)o->top;
    if (sts_analysis_write_json_device(j, a->an, top, o->all_overlaps ? 0 : STS_ANALYSIS_JSON_OVERLAPS, dv, &err) !=
        STS_OK) {
        sts_jsonw_free(j);
        cli_say(stderr, "stepscope analyze: error: %s\n", err.message);
        return CLI_BAD_INPUT;
    }
    return cli_json_finish("analyze", j);
}

int cmd_analyze(int argc, char **argv)
{
    args o = { 0, INT_MIN, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, { 0, NULL, 0, NULL } };
    tc_read_opts ro = TC_READ_OPTS_INIT;
    int mpi = 0;
    const cli_opt opts[] = {
        { "json", CLI_FLAG, &o.json, NULL, "print JSON (see docs/json-schemas.md); lists every name unless --top" },
        { "top", CLI_INT, &o.top, "N", "show the N names with the most self time (default 20; 0 = all)" },
        { "lane", CLI_STRING, &o.lane, "PATTERN",
          "only lanes whose thread or process name, pid, tid or PID:TID is PATTERN (else an extended regex over "
          "the names)" },
        { "name", CLI_STRING, &o.name, "PATTERN", "only slices named PATTERN (else an extended regex over names)" },
        { "window", CLI_STRING, &o.window, "START:END|STEP",
          "only [START, END) after the trace's first timestamp (e.g. 10ms:20ms; no unit = ms), or step number "
          "STEP's time; slices are cut to it" },
        { "step", CLI_STRING, &o.step, "NAME", "with --window STEP: the step slice's name or regex (as in steps)" },
        { "group", CLI_STRING, &o.group, "BY",
          "name (default), hlo_op or hlo_module: XLA ops counted under their hlo_op (with its hlo_module) or "
          "hlo_module args" },
        { "overlaps", CLI_FLAG, &o.all_overlaps, NULL, "list every overlap (default: a count and the most common)" },
        DC_OPTS(o.dc),
        { "memory", CLI_FLAG, &o.memory, NULL,
          "device memory over time instead: per device its peak, when, what was live there, bytes at start and "
          "end, allocations and frees (on several hosts, each host's own; docs/memory.md)" },
        TC_RUN_OPT(o.run),
        TC_ARGS_OPT(o.argmode),
        TC_READ_OPTS(ro),
        HC_MPI_OPT(mpi),
        { 0 },
    };
    const cli_spec spec = {
        "analyze",
        "TRACE... [--json] [--top N] [--lane PATTERN] [--name PATTERN] [--window START:END|STEP] [--group BY] "
        "[--overlaps] [--device [--categories FILE] [--explain]] [--memory] [--run NAME] [--args MODE] [-j N] [--mpi]",
        "Reads a trace (Chrome JSON, .json.gz, XSpace .xplane.pb or a JAX profile directory)\n"
        "and reports what it holds: events by phase, lanes, time span, resolution, how many\n"
        "slices were clamped into the slice they started in or overran it (overlaps); every\n"
        "slice name ranked by self time (duration minus the union of the slices of its lane\n"
        "that lie inside it) with count, total, min, median and max; and per lane and process\n"
        "its busy time (the union of its slices) against its span. --lane, --name and\n"
        "--window narrow all of it (one host). --device adds the device view over the whole\n"
        "trace: per device, busy time by category, overlap, idle time by cause, launch delays\n"
        "and queue length (docs/device.md; per step: steps --device). Several hosts (files, or\n"
        "a profile run holding several; see docs/hosts.md): each host's facts, lanes and\n"
        "processes apart, names ranked over every host.",
        opts,
        1,
        argc,
    };
    const char **pos = malloc((size_t)argc * sizeof *pos);
    if (!pos) return cli_fail(CLI_BAD_INPUT, "analyze: out of memory");
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    sts_group g = STS_GROUP_NAME;
    if (rc < 0 && o.top != INT_MIN && o.top < 0) {
        cli_say(stderr, "stepscope analyze: --top expects N >= 0, got %d\n", o.top);
        rc = CLI_USAGE;
    }
    if (rc < 0 && parse_group(o.group, &g) != CLI_OK) rc = CLI_USAGE;
    if (rc < 0 && o.step && !o.window) {
        cli_say(stderr, "stepscope analyze: --step only chooses the steps --window STEP counts; give --window\n");
        rc = CLI_USAGE;
    }
    if (rc < 0 && o.dc.device && (o.lane || o.name || o.window)) {
        fprintf(stderr,
                "stepscope analyze: --device covers every device lane of the whole trace; %s does not narrow "
                "it (steps --device gives it per step)\n",
                o.lane   ? "--lane"
                : o.name ? "--name"
                         : "--window");
        rc = CLI_USAGE;
    }
    if (rc < 0 && o.dc.device && o.memory) {
        cli_say(stderr, "stepscope analyze: --device and --memory each print a document of their own; give one\n");
        rc = CLI_USAGE;
    }
    if (rc < 0) {
        int prc = dc_prepare("analyze", &o.dc, &o.argmode);
        if (prc != CLI_OK) rc = prc;
    }
    if (rc < 0) {
        const char *one_host = o.lane           ? "--lane"
                               : o.name         ? "--name"
                               : o.window       ? "--window"
                               : o.group        ? "--group"
                               : o.all_overlaps ? "--overlaps"
                               : o.dc.device    ? "--device"
                                                : NULL;
        hc_opts ho = { "analyze", pos, (size_t)npos, o.run, o.argmode, HC_JOBS(ro), mpi, one_host, 0 };
        rc = hc_analyze(&ho, o.json, o.top == INT_MIN ? SIZE_MAX : (size_t)o.top, o.memory);
    }
    /* One host: read as one trace. */
    const char *path = rc == HC_SINGLE ? pos[0] : NULL;
    free(pos);
    sts_timeline *tl = NULL;
    if (rc != HC_SINGLE) {
        dc_release(&o.dc);
        return rc;
    }
    if (o.memory) ro.args_flags = STS_ARGS_WITH_MEMORY;
    if ((rc = tc_open("analyze", path, o.run, o.argmode, &ro, &tl)) != CLI_OK) {
        dc_release(&o.dc);
        return rc;
    }
    if (o.memory) {
        rc = mc_print("analyze", tl, NULL, o.json);
        sts_timeline_free(tl);
        dc_release(&o.dc);
        return rc;
    }
    analysis a = { 0 };
    a.tl = tl;
    rc = compute(&a, &o, ro.jobs);
    sts_devview *dv = NULL;
    if (rc == CLI_OK && o.dc.device) rc = dc_compute("analyze", &o.dc, tl, NULL, &dv);
    if (rc == CLI_OK && o.json) {
        rc = print_json(&a, &o, dv);
    } else if (rc == CLI_OK) {
        print_facts(&a);
        print_scope(&a, &o);
        print_names(&a, o.top == INT_MIN ? DEFAULT_TOP : (size_t)o.top);
        print_lanes(&a);
        print_processes(&a);
        print_overlaps(&a, o.all_overlaps);
        if (dv) dc_print_summary(tl, dv, o.dc.explain);
    }
    sts_devview_free(dv);
    dc_release(&o.dc);
    analysis_free(&a);
    sts_timeline_free(tl);
    return rc;
}
