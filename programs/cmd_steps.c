/* stepscope steps: each step, its children by name, the unattributed remainder, what
 * summing step and children would wrongly give, and what every other lane did during
 * the step. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "critpath_cli.h"
#include "devview_cli.h"
#include "hosts_cli.h"
#include "memory_cli.h"
#include "hostsync_cli.h"
#include "steps_range.h"
#include "trace_cli.h"
#include "trace_scope.h"

#define TEXT_WINDOWS   4  /* lanes per step in text */
#define TEXT_NAMES     3  /* names per window in text */
#define TEXT_LANE_ROWS 12 /* rows of the lanes-across-steps table */

typedef struct view {
    const sts_timeline *tl;
    const sts_steps *s;
    const sts_step *st;
    const sts_step_child *ch;
    const sts_step_child_stats *cs;
    const sts_step_window *w;
    const sts_window_name *wn;
    const sts_window_lane_stats *wl;
    const sts_steps_summary *sum;
    const sts_host_syncs *hs; /* NULL when they could not be found (out of memory) */
    size_t n, nch, ncs, nw, nwn, nwl;
    int xprof, summary;
    const sts_devview *dv;  /* --device */
    const sts_critpath *cp; /* --critical-path */
} view;

static const char *name_of(const view *v, uint32_t id)
{
    return sts_timeline_string(v->tl, id);
}

/* The steps' common name, or NULL when a regex matched several. */
static const char *common_name(const view *v)
{
    for (size_t k = 1; k < v->n; k++)
        if (v->st[k].name != v->st[0].name) return NULL;
    return name_of(v, v->st[0].name);
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* "stream 7 (pid 0)", or "pid 0 tid 7" for a lane without a thread name. */
static void lane_label(const view *v, uint32_t lane, char *buf, size_t n)
{
    const char *t = sts_lane_thread_name(v->tl, lane);
    if (*t)
        snprintf(buf, n, "%s (pid %s)", t, sts_lane_pid(v->tl, lane));
    else
        snprintf(buf, n, "pid %s tid %s", sts_lane_pid(v->tl, lane), sts_lane_tid(v->tl, lane));
}

/* A name for one line of text, cut to `cap` characters. */
static void put_cut(const char *s, int cap)
{
    int w = tc_width(s, cap + 1);
    tc_cell(stdout, s, w < cap ? w : cap, 1);
}

static void partial_text(uint32_t f, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", f & STS_STEP_UNCLOSED ? " never closed (B without E)" : "",
             f & STS_STEP_AT_TRACE_START ? " at the trace's start" : "",
             f & STS_STEP_AT_TRACE_END ? " at the trace's end" : "");
}

/* The step's busiest windows (at most TEXT_WINDOWS), shown in lane display order. */
static void print_windows(const view *v, const sts_step *s)
{
    uint32_t pick[TEXT_WINDOWS];
    size_t np = 0;
    for (uint32_t i = s->first_window; i < s->first_window + s->window_count; i++) {
        size_t at = np < TEXT_WINDOWS ? np++ : TEXT_WINDOWS;
        while (at > 0 && v->w[pick[at - 1]].busy_ns < v->w[i].busy_ns) {
            if (at < TEXT_WINDOWS) pick[at] = pick[at - 1];
            at--;
        }
        if (at < TEXT_WINDOWS) pick[at] = i;
    }
    for (size_t a = 1; a < np; a++) /* back to display order */
        for (size_t b = a; b > 0 && pick[b] < pick[b - 1]; b--) {
            uint32_t t = pick[b];
            pick[b] = pick[b - 1];
            pick[b - 1] = t;
        }
    for (size_t k = 0; k < np; k++) {
        const sts_step_window *w = &v->w[pick[k]];
        char label[160], d[32];
        lane_label(v, w->lane, label, sizeof label);
        sts_fmt_duration((double)(w->busy_ns), d, sizeof d);
        cli_say(stdout, "%9s%s: busy %s (%.1f%%):", "", label, d,
                s->dur ? 100.0 * (double)w->busy_ns / (double)s->dur : 0.0);
        for (uint32_t m = w->first_name; m < w->first_name + w->name_count && m < w->first_name + TEXT_NAMES; m++) {
            sts_fmt_duration((double)(v->wn[m].ns), d, sizeof d);
            printf("%s ", m == w->first_name ? "" : ",");
            put_cut(name_of(v, v->wn[m].name), 48);
            printf(" %s", d);
        }
        printf("%s\n", w->name_count > TEXT_NAMES ? ", ..." : "");
    }
    if (s->window_count > np)
        printf("%9s(%u more lane%s busy in this step; --json lists them)\n", "", s->window_count - (uint32_t)np,
               s->window_count - np == 1 ? "" : "s");
}

static void print_step_rows(const view *v)
{
    int64_t t0 = sts_timeline_get_info(v->tl)->ts_min;
    printf("\n%8s %12s %11s %11s %13s %15s\n", "step", "start (ms)", "dur (ms)", "children", "unattributed",
           "step+children");
    for (size_t k = 0; k < v->n; k++) {
        const sts_step *s = &v->st[k];
        char why[96];
        partial_text(s->flags, why, sizeof why);
        printf("%8" PRId64 " %12.3f %11.3f %11.3f %13.3f %15.3f%s%s\n", s->index, ms(s->ts - t0), ms(s->dur),
               ms(s->children_ns), ms(s->unattributed_ns), ms(s->naive_ns), *why ? "  partial?" : "", why);
        printf("%9s", "");
        for (uint32_t c = s->first_child; c < s->first_child + s->child_count; c++) {
            char d[32];
            sts_fmt_duration((double)(v->ch[c].total_ns), d, sizeof d);
            printf("%s", c == s->first_child ? "" : ", ");
            put_cut(name_of(v, v->ch[c].name), 72);
            printf(" %s", d);
            if (v->ch[c].count > 1) printf(" (x%u)", v->ch[c].count);
        }
        printf("%s\n", s->child_count ? "" : "(no children)");
        print_windows(v, s);
        if (v->dv) dc_print_step(v->tl, v->dv, k);
        if (v->cp) cp_print_step(v->tl, v->cp, k);
        hs_print_step(v->tl, v->hs, (uint32_t)k);
    }
    printf("(step: the step number (step_num arg, else N of NAME#N, else the ordinal); start is relative to the "
           "trace's first timestamp; all columns in ms; indented: the children, then other lanes during the step)\n");
}

static void print_children(const view *v)
{
    if (!v->ncs) return;
    int nw = 4;
    for (size_t i = 0; i < v->ncs; i++) {
        int w = tc_width(name_of(v, v->cs[i].name), 48);
        if (w > nw) nw = w;
    }
    printf("\nchildren across steps (per-step totals, ms)\n  ");
    tc_cell(stdout, "name", nw, 1);
    printf("  %5s %10s %10s %10s %11s\n", "steps", "min", "median", "max", "total");
    for (size_t i = 0; i < v->ncs; i++) {
        const sts_step_child_stats *c = &v->cs[i];
        printf("  ");
        tc_cell(stdout, name_of(v, c->name), nw, 1);
        printf("  %5u %10.3f %10.3f %10.3f %11.3f\n", c->steps, ms(c->min_ns), ms(c->median_ns), ms(c->max_ns),
               ms(c->total_ns));
    }
}

static void print_lanes(const view *v)
{
    if (!v->nwl) return;
    /* The busiest lanes, in display order. */
    size_t show = v->nwl < TEXT_LANE_ROWS ? v->nwl : TEXT_LANE_ROWS;
    int64_t cut = INT64_MIN;
    if (show < v->nwl) {
        int64_t *t = malloc(v->nwl * sizeof *t);
        if (!t) return;
        for (size_t i = 0; i < v->nwl; i++)
            t[i] = v->wl[i].total_ns;
        for (size_t i = 0; i < show; i++) /* a partial selection of the largest */
            for (size_t j = i + 1; j < v->nwl; j++)
                if (t[j] > t[i]) {
                    int64_t x = t[i];
                    t[i] = t[j];
                    t[j] = x;
                }
        cut = t[show - 1];
        free(t);
    }
    printf("\nother lanes during the steps (busy time per step window, ms; a step where the lane is idle counts 0)\n");
    printf("  %-44s %5s %10s %10s %10s %11s\n", "lane", "steps", "min", "median", "max", "total");
    size_t shown = 0;
    for (size_t i = 0; i < v->nwl && shown < show; i++) {
        const sts_window_lane_stats *x = &v->wl[i];
        if (x->total_ns < cut) continue;
        char label[160];
        lane_label(v, x->lane, label, sizeof label);
        printf("  ");
        tc_cell(stdout, label, 44, 1);
        printf(" %5u %10.3f %10.3f %10.3f %11.3f\n", x->steps, ms(x->min_ns), ms(x->median_ns), ms(x->max_ns),
               ms(x->total_ns));
        shown++;
    }
    if (v->nwl > shown) printf("  (%zu more lanes; --lanes chooses, --json lists all)\n", v->nwl - shown);
}

static void print_summary(const view *v)
{
    const sts_steps_summary *y = v->sum;
    printf("\nsteps:         %zu, %.3f ms in all; mean %.3f ms", y->steps, ms(y->total_ns), y->mean_ns / 1e6);
    if (isnan(y->stddev_ns))
        printf(", std dev unknown (one step)");
    else
        printf(", std dev %.3f ms", y->stddev_ns / 1e6);
    printf("; min %.3f, median %.3f, max %.3f ms\n", ms(y->min_ns), ms(y->median_ns), ms(y->max_ns));
    printf("children:      %.3f ms (the time the steps' outermost inner slices cover; deeper slices are inside them)\n",
           ms(y->children_ns));
    printf("unattributed:  %.3f ms (step time no child covers; median %.3f ms per step)\n", ms(y->unattributed_ns),
           ms(y->unattributed_median_ns));
    printf("step+children: %.3f ms: WRONG as a total, it counts the children's time twice\n", ms(y->naive_ns));
    size_t dropped = sts_steps_dropped(v->s);
    if (dropped)
        printf("XProf's view:  the first and last of %zu steps are left out, as XProf's overview page does (they may "
               "be partial)\n",
               y->steps + dropped);
    else if (!v->xprof && y->steps > 5)
        printf("note: XProf's overview page leaves out the first and last step (of more than 5); --xprof shows that "
               "view\n");
    if (y->partial)
        printf("note: %zu step%s may be partial (marked partial?): cut by the start or end of the capture, or never "
               "closed\n",
               y->partial, y->partial == 1 ? "" : "s");
    if (v->xprof && !dropped)
        printf("XProf's view:  with %zu steps (5 or fewer) XProf's overview keeps them all\n", y->steps);
}

static void print_human(const view *v)
{
    const char *nm = common_name(v);
    uint32_t lane = v->st[0].lane;
    const char *thread = sts_lane_thread_name(v->tl, lane);
    printf("%zu step%s%s", v->n, v->n == 1 ? "" : "s", nm ? " '" : "");
    cli_put_text(stdout, nm ? nm : "");
    printf("%s on pid ", nm ? "'" : "");
    cli_put_text(stdout, sts_lane_pid(v->tl, lane));
    fputs(" tid ", stdout);
    cli_put_text(stdout, sts_lane_tid(v->tl, lane));
    fputs(*thread ? " (" : "", stdout);
    cli_put_text(stdout, thread);
    fputs(*thread ? ")\n" : "\n", stdout);
    printf("found by: %s (%s)\n", sts_step_rule_name(sts_steps_rule(v->s)),
           sts_step_rule_description(sts_steps_rule(v->s)));
    if (sts_steps_other_lanes(v->s))
        printf("note: %zu other lane%s matching slices (e.g. the same marker on a device lane); "
               "this lane has the most\n",
               sts_steps_other_lanes(v->s), sts_steps_other_lanes(v->s) == 1 ? " holds" : "s hold");
    if (sts_steps_bookkeeping_lanes(v->s))
        printf("note: %zu lane%s of profiler bookkeeping only (PyTorch Profiler (N) spans) left out of the other "
               "lanes (--lanes names them to see them)\n",
               sts_steps_bookkeeping_lanes(v->s), sts_steps_bookkeeping_lanes(v->s) == 1 ? "" : "s");
    if (sts_steps_out_of_range(v->s))
        printf("--steps:       %zu step%s outside the range left out; the summaries are over the %zu kept\n",
               sts_steps_out_of_range(v->s), sts_steps_out_of_range(v->s) == 1 ? "" : "s", v->n);
    if (v->summary) {
        sr_print_summary_rows(v->tl, v->s, v->hs);
        print_summary(v);
        if (v->hs) hs_print_total(v->tl, v->hs, v->n);
        return;
    }
    print_step_rows(v);
    print_children(v);
    print_lanes(v);
    print_summary(v);
    if (v->hs) hs_print_total(v->tl, v->hs, v->n);
}

/* ---- JSON ---------------------------------------------------------------------------- */

static int print_json(const view *v)
{
    sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
    if (!j) return cli_fail(CLI_BAD_INPUT, "steps: out of memory");
    sts_error err = STS_ERROR_INIT;
    sts_status st = v->cp ? sts_steps_write_json_critpath(j, v->tl, v->s, v->xprof, v->dv, v->cp, &err)
                          : sts_steps_write_json_device(j, v->tl, v->s, v->xprof, v->dv, &err);
    if (st != STS_OK) {
        sts_jsonw_free(j);
        return cli_report("steps", &err);
    }
    return cli_json_finish("steps", j);
}

static int no_steps(const sts_timeline *tl, const sts_steps *s)
{
    size_t n;
    const char *const *tried = sts_steps_tried(s, &n);
    cli_say(stderr, "stepscope steps: no steps found in %s; tried:\n", sts_timeline_get_info(tl)->path);
    for (size_t i = 0; i < n; i++) {
        fputs("  - ", stderr);
        cli_put_text(stderr, tried[i]);
        fputc('\n', stderr);
    }
    const uint32_t *sug = sts_steps_suggestions(s, &n);
    if (n) {
        cli_say(stderr, "did you mean ");
        for (size_t i = 0; i < n; i++) {
            cli_say(stderr, "%s'", i ? ", " : "");
            cli_put_text(stderr, sts_timeline_string(tl, sug[i]));
            fputc('\'', stderr);
        }
        cli_say(stderr, "?\n");
    }
    cli_say(stderr, "name the step slice with --step NAME (or an extended regex)\n");
    return CLI_BAD_INPUT;
}

typedef struct args {
    int json, xprof, names, memory, summary;
    const char *step, *run, *argmode, *lanes, *range;
    dc_opts dc;
    cp_opts cp;
} args;

static int run(sts_timeline *tl, const args *o)
{
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    so.step = o->step;
    so.xprof_view = o->xprof;
    so.window_names = (size_t)o->names;
    if (o->range && sr_parse(o->range, &so.first_index, &so.last_index) != 0)
        return cli_fail(CLI_USAGE,
                        "steps: --steps expects N, FIRST:LAST or FIRST..LAST (step numbers; e.g. 5:10), got '%s'",
                        o->range);
    if (so.first_index > so.last_index)
        return cli_fail(CLI_USAGE, "steps: --steps %s: the first step comes after the last", o->range);
    uint32_t *lanes = NULL;
    if (o->lanes) {
        int rc = ts_lanes("steps", tl, o->lanes, &lanes, &so.nwindow_lanes);
        if (rc != CLI_OK) return rc;
        so.window_lanes = lanes;
    }
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_steps_find(tl, &so, &s, &err) != STS_OK) {
        free(lanes);
        cli_say(stderr, "stepscope steps: error: %s\n", err.message);
        return err.code == STS_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD_INPUT;
    }
    view v = { 0 };
    v.tl = tl;
    v.s = s;
    v.xprof = o->xprof;
    v.summary = o->summary;
    v.st = sts_steps_list(s, &v.n);
    v.ch = sts_steps_children(s, &v.nch);
    v.cs = sts_steps_child_stats(s, &v.ncs);
    v.w = sts_steps_windows(s, &v.nw);
    v.wn = sts_steps_window_names(s, &v.nwn);
    v.wl = sts_steps_window_lanes(s, &v.nwl);
    v.sum = sts_steps_get_summary(s);
    sts_host_syncs *hs = NULL;
    if (!o->json && sts_steps_rule(s) != STS_STEP_RULE_NONE) (void)sts_host_syncs_find(tl, s, &hs, NULL);
    v.hs = hs;
    int rc = CLI_OK;
    sts_devview *dv = NULL;
    sts_critpath *cp = NULL;
    if (sts_steps_rule(s) == STS_STEP_RULE_NONE)
        rc = no_steps(tl, s);
    else if (!v.n && sts_steps_out_of_range(s))
        rc = cli_fail(CLI_BAD_INPUT,
                      "steps: --steps %s: none of the %zu steps of %s is numbered in that range (see 'stepscope "
                      "steps --summary')",
                      o->range, sts_steps_out_of_range(s), sts_timeline_get_info(tl)->path);
    else if (o->memory)
        rc = mc_print("steps", tl, s, o->json);
    else if (o->dc.device && (rc = dc_compute("steps", &o->dc, tl, s, &dv)) != CLI_OK)
        ;
    else if (cp_wanted(&o->cp) && (rc = cp_compute("steps", &o->cp, tl, s, dv, &cp)) != CLI_OK)
        ;
    else if ((v.dv = dv, v.cp = cp, o->json))
        rc = print_json(&v);
    else {
        print_human(&v);
        if (dv) dc_print_summary(tl, dv, o->dc.explain);
        if (cp) cp_print_summary(cp);
    }
    sts_critpath_free(cp);
    sts_devview_free(dv);
    sts_host_syncs_free(hs);
    sts_steps_free(s);
    free(lanes);
    return rc;
}

int cmd_steps(int argc, char **argv)
{
    args o = { 0, 0, INT_MIN, 0, 0, NULL, NULL, NULL, NULL, NULL, { 0, NULL, 0, NULL }, { 0, { { 0 }, 0 } } };
    tc_read_opts ro = TC_READ_OPTS_INIT;
    int mpi = 0, colls = 0, align = 0;
    double ratio = 1.1;
    const cli_opt opts[] = {
        { "step", CLI_STRING, &o.step, "NAME", "the step slice's name, or an extended regex over names" },
        { "lanes", CLI_STRING, &o.lanes, "PATTERN",
          "the other lanes to report during each step (thread or process name, pid, tid, PID:TID, else an "
          "extended regex over the names; default: every lane)" },
        { "names", CLI_INT, &o.names, "N", "names kept per lane and step, longest first (default 5; 0 = all)" },
        { "xprof", CLI_FLAG, &o.xprof, NULL,
          "XProf's overview view: with more than 5 steps, leave out the first and the last" },
        { "steps", CLI_STRING, &o.range, "RANGE",
          "only the steps numbered N, or FIRST:LAST (FIRST..LAST; both included, either may be empty); the "
          "summaries are over those. Exit 1 when none is" },
        { "summary", CLI_FLAG, &o.summary, NULL,
          "one line per step (number, times, host syncs, longest child), then the summary" },
        { "json", CLI_FLAG, &o.json, NULL, "print JSON (see docs/json-schemas.md)" },
        DC_OPTS(o.dc),
        { "memory", CLI_FLAG, &o.memory, NULL,
          "device memory per step instead: peak, at start and end, allocations and frees, what was live at the "
          "peak (on several hosts, each host step's own; docs/memory.md)" },
        CP_OPTS(o.cp),
        TC_RUN_OPT(o.run),
        TC_ARGS_OPT(o.argmode),
        TC_READ_OPTS(ro),
        HC_MPI_OPT(mpi),
        { "collectives", CLI_FLAG, &colls, NULL,
          "match each collective across the hosts' ranks (even one file's devices): arrivals, skew, waits, "
          "the last rank and why, transfer and bus bandwidth, clock offsets (docs/collectives.md). Exit 1 "
          "when none matches" },
        { "align", CLI_FLAG, &align, NULL,
          "with several hosts, move every output onto the clocks the collectives' ends give (implies "
          "--collectives)" },
        { "straggler-ratio", CLI_DOUBLE, &ratio, "R",
          "with several hosts, a step is a straggler when its slowest host took R x the step's median (default "
          "1.1)" },
        { 0 },
    };
    const cli_spec spec = {
        "steps",
        "TRACE... [--step NAME-or-REGEX] [--steps RANGE] [--summary] [--lanes PATTERN] [--names N] [--xprof] "
        "[--json] [--device [--categories FILE] [--explain]] [--memory] [--critical-path [--what-if "
        "NAME=FACTOR|top=N]...] [--run NAME] "
        "[--args MODE] [-j N] [--mpi] [--straggler-ratio R] [--collectives] [--align]",
        "Finds the steps of a trace and breaks each into its children (the outermost slices\n"
        "of its lane inside it; instants are marks, not children) by name, the unattributed\n"
        "remainder and the double-counted total that adding step and children would give;\n"
        "then what every other lane (device streams, worker threads) was busy with during\n"
        "each step. Prints mean and standard deviation beside min, median and max, and marks\n"
        "steps the capture may have cut. --device adds, per step and device (the union of its\n"
        "streams), where the device's time went: busy time by category, compute hidden under\n"
        "communication, idle time by cause (the host had not launched the next work yet, or it\n"
        "was launched and waiting), launch delays and queue length (docs/device.md).\n"
        "--critical-path adds each step's critical path through host threads, launches, device\n"
        "streams and syncs, by kind; --what-if replays it with durations scaled and predicts\n"
        "the step time, printing --expect lines for diff (docs/critical-path.md).\n"
        "Without --step, steps are ProfilerStep#N slices, else slices with a step_num arg,\n"
        "else the outermost name repeated on one lane with the most time that holds other\n"
        "slices. Exit 1 when none are found (the candidates tried are listed).\n"
        "Several hosts (files, or a profile run holding several; see docs/hosts.md): each\n"
        "host's steps aligned by step number, per step the spread across hosts, the slowest host\n"
        "and what it spent longer on than the median host (device collectives included), and the\n"
        "stragglers; with --device, each host's device view per step (--categories and\n"
        "--explain apply to one trace). --collectives matches each collective across the\n"
        "ranks (devices of the hosts) by process group and sequence number, else by order,\n"
        "and says who arrived last, what the others waited and why; --align moves every\n"
        "output onto the clocks the collectives' ends give (docs/collectives.md).",
        opts,
        1,
        argc,
    };
    const char **pos = malloc((size_t)argc * sizeof *pos);
    if (!pos) return cli_fail(CLI_BAD_INPUT, "steps: out of memory");
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    int names_given = o.names != INT_MIN;
    if (o.names == INT_MIN) o.names = 5;
    if (rc < 0 && o.names < 0) {
        cli_say(stderr, "stepscope steps: --names expects N >= 0, got %d\n", o.names);
        rc = CLI_USAGE;
    }
    if (rc < 0 && o.dc.device && o.memory) {
        cli_say(stderr, "stepscope steps: --device and --memory each print a document of their own; give one\n");
        rc = CLI_USAGE;
    }
    if (rc < 0) {
        int prc = dc_prepare("steps", &o.dc, &o.argmode);
        if (prc != CLI_OK) rc = prc;
    }
    if (rc < 0) {
        const char *one_host = o.lanes            ? "--lanes"
                               : names_given      ? "--names"
                               : o.dc.categories  ? "--categories"
                               : o.dc.explain     ? "--explain"
                               : cp_wanted(&o.cp) ? "--critical-path"
                               : o.range          ? "--steps"
                               : o.summary        ? "--summary"
                                                  : NULL;
        int cf = (colls || align ? HC_COLLECTIVES : 0) | (align ? HC_ALIGN : 0);
        hc_opts ho = { "steps", pos, (size_t)npos, o.run, o.argmode, HC_JOBS(ro), mpi, one_host, cf != 0 };
        rc = hc_steps_colls(&ho, o.step, o.xprof, o.json, ratio,
                            (o.dc.device ? STS_HOSTS_DEVICE : 0u) | (o.memory ? STS_HOSTS_MEMORY : 0u), cf);
    }
    /* One host: read as one trace. */
    const char *path = rc == HC_SINGLE ? pos[0] : NULL;
    free(pos);
    if (rc != HC_SINGLE) {
        dc_release(&o.dc);
        return rc;
    }
    sts_timeline *tl = NULL;
    if (o.memory) ro.args_flags = STS_ARGS_WITH_MEMORY;
    ro.keep_flows = cp_wanted(&o.cp);
    if (ro.keep_flows) ro.args_flags |= STS_ARGS_WITH_STREAMS; /* the stream edges' keys */
    if ((rc = tc_open("steps", path, o.run, o.argmode, &ro, &tl)) == CLI_OK) rc = run(tl, &o);
    sts_timeline_free(tl);
    dc_release(&o.dc);
    return rc;
}
