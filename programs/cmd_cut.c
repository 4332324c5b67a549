/* stepscope cut: part of a trace (a time window or some steps, some lanes, some names)
 * written as a Chrome JSON trace that viewers open; the library cuts
 * (sts_write_chrome_json_cut()), this file reads the options. */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "trace_cli.h"
#include "trace_scope.h"

typedef struct args {
    int json;
    const char *out, *window, *steps, *step, *name, *min_dur, *run, *argmode;
    cli_list lanes;
} args;

/* The window and what chose it, for the summary. */
typedef struct chosen {
    int64_t start, end;
    int64_t first_step, last_step; /* INT64_MIN without --steps */
    int whole;                     /* neither --window nor --steps: the trace's whole span */
} chosen;

/* ---- the output path, checked before a large input is read --------------------------- */

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

static int same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static int check_output(const char *trace, const char *out)
{
    if (!strcmp(out, "-") || !*out)
        return cli_fail(CLI_USAGE, "cut: -o expects a file name (the cut is written atomically, not to stdout)");
    if (ends_with(out, ".pb"))
        return cli_fail(CLI_USAGE,
                        "cut: %s: the cut is Chrome JSON; name it .json or .json.gz (XSpace input is written "
                        "as Perfetto JSON)",
                        out);
    if (strcmp(trace, "-") && same_file(trace, out))
        return cli_fail(CLI_USAGE, "cut: -o %s names the input trace; write the cut to another file", out);
    struct stat st;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_fail(CLI_BAD_INPUT, "cut: %s is a directory; -o names the file to write", out);
    char *copy = strdup(out);
    if (!copy) return cli_fail(CLI_BAD_INPUT, "cut: out of memory");
    const char *dir = dirname(copy);
    int ok = access(dir, W_OK) == 0;
    int e = errno;
    if (!ok) cli_fail(CLI_BAD_INPUT, "cut: %s: cannot write in %s: %s", out, dir, strerror(e));
    free(copy);
    return ok ? CLI_OK : CLI_BAD_INPUT;
}

/* ---- the window ------------------------------------------------------------------------ */

/* "7..9" or "7": the first and last step numbers. */
static int parse_steps(const char *text, int64_t *first, int64_t *last)
{
    char *e;
    errno = 0;
    long long a = strtoll(text, &e, 10), b = a;
    if (e == text || errno) return -1;
    if (e[0] == '.' && e[1] == '.') {
        const char *p = e + 2;
        b = strtoll(p, &e, 10);
        if (e == p || errno) return -1;
    }
    if (*e) return -1;
    *first = a;
    *last = b;
    return 0;
}

static const sts_step *step_numbered(const sts_step *st, size_t n, int64_t index)
{
    for (size_t k = 0; k < n; k++)
        if (st[k].index == index) return &st[k];
    return NULL;
}

static void explain_no_steps(const sts_timeline *tl, const sts_steps *s, const args *o)
{
    fprintf(stderr, "stepscope cut: --steps %s: no steps found in %s", o->steps, sts_timeline_get_info(tl)->path);
    size_t n;
    const char *const *tried = sts_steps_tried(s, &n);
    fprintf(stderr, "%s\n", n ? "; tried:" : "");
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  %s\n", tried[i]);
    if (o->step) ts_suggest_names(tl, o->step);
}

/* The step numbers nearest to a missing one, as "did you mean". */
static void missing_step(const sts_step *st, size_t n, int64_t want, const char *text)
{
    fprintf(stderr,
            "stepscope cut: --steps %s: there is no step %" PRId64 "; the steps are numbered %" PRId64 " to %" PRId64
            " (see 'stepscope steps')\n",
            text, want, st[0].index, st[n - 1].index);
    const sts_step *near = NULL;
    for (size_t k = 0; k < n; k++)
        if (!near || llabs(st[k].index - want) < llabs(near->index - want)) near = &st[k];
    if (near) fprintf(stderr, "did you mean %" PRId64 "?\n", near->index);
}

static int window_of_steps(const sts_timeline *tl, const args *o, chosen *w)
{
    if (parse_steps(o->steps, &w->first_step, &w->last_step) != 0)
        return cli_fail(CLI_USAGE, "cut: --steps expects a step number N or a range FIRST..LAST (e.g. 7..9), got '%s'",
                        o->steps);
    if (w->first_step > w->last_step)
        return cli_fail(CLI_USAGE, "cut: --steps %s: the first step comes after the last", o->steps);
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    so.step = o->step;
    static const uint32_t no_lanes[1] = { 0 };
    so.window_lanes = no_lanes; /* no windows needed: an empty lane list */
    so.nwindow_lanes = 0;
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_steps_find(tl, &so, &s, &err) != STS_OK) {
        fprintf(stderr, "stepscope cut: error: %s\n", err.message);
        return err.code == STS_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD_INPUT;
    }
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    int rc = CLI_BAD_INPUT;
    const sts_step *a = n ? step_numbered(st, n, w->first_step) : NULL;
    const sts_step *b = n ? step_numbered(st, n, w->last_step) : NULL;
    if (!n) {
        explain_no_steps(tl, s, o);
    } else if (!a || !b) {
        missing_step(st, n, a ? w->last_step : w->first_step, o->steps);
    } else {
        /* Steps are in time order; numbers usually are too, but take every step numbered
         * in the range wherever it lies. */
        w->start = INT64_MAX;
        w->end = INT64_MIN;
        for (size_t k = 0; k < n; k++) {
            if (st[k].index < w->first_step || st[k].index > w->last_step) continue;
            if (st[k].ts < w->start) w->start = st[k].ts;
            if (st[k].ts + st[k].dur > w->end) w->end = st[k].ts + st[k].dur;
        }
        rc = CLI_OK;
        if (w->start >= w->end) /* zero-length steps: the instant they mark */
            w->end = w->start + 1;
    }
    sts_steps_free(s);
    return rc;
}

static int choose_window(const sts_timeline *tl, const args *o, chosen *w)
{
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    w->first_step = w->last_step = INT64_MIN;
    if (o->steps) return window_of_steps(tl, o, w);
    if (!o->window) {
        /* The whole span, its last instant included. */
        w->whole = 1;
        w->start = in->ts_min;
        w->end = in->ts_max < INT64_MAX ? in->ts_max + 1 : in->ts_max;
        return CLI_OK;
    }
    int r = ts_parse_window("cut", o->window, tl, &w->start, &w->end);
    if (r < 0) return CLI_USAGE;
    if (r == 1)
        return cli_fail(CLI_USAGE,
                        "cut: --window expects START:END (e.g. 120ms:135ms; no unit = ms), got '%s'; "
                        "--steps N cuts steps",
                        o->window);
    if (w->end <= in->ts_min || w->start > in->ts_max) {
        char span[32];
        sts_fmt_duration((double)(in->ts_max - in->ts_min), span, sizeof span);
        fprintf(stderr,
                "stepscope cut: --window %s lies outside %s, whose events span 0 to %s after its first timestamp\n",
                o->window, in->path, span);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* Every lane any --lanes pattern names, in lane order. */
static int choose_lanes(const sts_timeline *tl, const args *o, uint32_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!o->lanes.n) return CLI_OK;
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    unsigned char *on = calloc(nl ? nl : 1, 1);
    if (!on) return cli_fail(CLI_BAD_INPUT, "cut: out of memory");
    int rc = CLI_OK;
    for (int k = 0; k < o->lanes.n && rc == CLI_OK; k++) {
        uint32_t *m = NULL;
        size_t nm = 0;
        rc = ts_lanes("cut", tl, o->lanes.v[k], &m, &nm);
        for (size_t i = 0; i < nm; i++)
            on[m[i]] = 1;
        free(m);
    }
    if (rc == CLI_OK && !(*out = malloc((nl ? nl : 1) * sizeof **out)))
        rc = cli_fail(CLI_BAD_INPUT, "cut: out of memory");
    for (size_t l = 0; rc == CLI_OK && l < nl; l++)
        if (on[l]) (*out)[(*n)++] = (uint32_t)l;
    free(on);
    return rc;
}

/* ---- output ------------------------------------------------------------------------------ */

static void print_text(const sts_timeline *tl, const args *o, const chosen *w, size_t nlanes, const sts_cut_stats *st)
{
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    char a[32], b[32];
    sts_fmt_duration((double)(w->start - in->ts_min), a, sizeof a);
    sts_fmt_duration((double)(w->end - in->ts_min), b, sizeof b);
    printf("cut         %s -> %s\n", in->path, o->out);
    printf("window      %s to %s after the trace's first timestamp", a, b);
    if (w->first_step != INT64_MIN && w->first_step == w->last_step)
        printf(" (step %" PRId64 ")", w->first_step);
    else if (w->first_step != INT64_MIN)
        printf(" (steps %" PRId64 " to %" PRId64 ")", w->first_step, w->last_step);
    else if (w->whole)
        printf(" (the whole trace)");
    printf("\n");
    if (nlanes) printf("lanes       %zu chosen\n", nlanes);
    printf("slices      %" PRIu64 " on %" PRIu64 " lane%s of %" PRIu64 " process%s: %" PRIu64
           " cut at the window's start, %" PRIu64 " at its end (marked with a stepscope_cut arg)\n",
           st->slices, st->lanes, st->lanes == 1 ? "" : "s", st->processes, st->processes == 1 ? "" : "es",
           st->cut_start, st->cut_end);
    if (o->min_dur) printf("            %" PRIu64 " shorter than %s left out\n", st->short_left_out, o->min_dur);
    printf("flows       %" PRIu64 " kept, %" PRIu64 " left out (an end outside the cut)\n", st->flows,
           st->flows_left_out);
    printf("counters    %" PRIu64 " samples\n", st->counters);
    printf("events      %" PRIu64 " written\n", st->events);
}

static int print_json(const sts_timeline *tl, const args *o, const chosen *w, size_t nlanes, const sts_cut_stats *st)
{
    sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
    if (!j) return cli_fail(CLI_BAD_INPUT, "cut: out of memory");
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "trace"), sts_jsonw_str(j, in->path);
    sts_jsonw_key(j, "output"), sts_jsonw_str(j, o->out);
    sts_jsonw_key(j, "window");
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "start_ns"), sts_jsonw_i64(j, w->start);
    sts_jsonw_key(j, "end_ns"), sts_jsonw_i64(j, w->end);
    sts_jsonw_key(j, "first_step");
    w->first_step != INT64_MIN ? sts_jsonw_i64(j, w->first_step) : sts_jsonw_null(j);
    sts_jsonw_key(j, "last_step");
    w->first_step != INT64_MIN ? sts_jsonw_i64(j, w->last_step) : sts_jsonw_null(j);
    sts_jsonw_obj_end(j);
    sts_jsonw_key(j, "lanes_chosen");
    o->lanes.n ? sts_jsonw_u64(j, nlanes) : sts_jsonw_null(j);
    sts_jsonw_key(j, "name"), sts_jsonw_str(j, o->name);
    sts_jsonw_key(j, "min_dur_ns");
    int64_t md = 0;
    if (o->min_dur) ts_parse_duration(o->min_dur, strlen(o->min_dur), &md);
    sts_jsonw_i64(j, md);
    sts_jsonw_key(j, "slices"), sts_jsonw_u64(j, st->slices);
    sts_jsonw_key(j, "cut_start"), sts_jsonw_u64(j, st->cut_start);
    sts_jsonw_key(j, "cut_end"), sts_jsonw_u64(j, st->cut_end);
    sts_jsonw_key(j, "instants"), sts_jsonw_u64(j, st->instants);
    sts_jsonw_key(j, "async_slices"), sts_jsonw_u64(j, st->async_slices);
    sts_jsonw_key(j, "short_left_out"), sts_jsonw_u64(j, st->short_left_out);
    sts_jsonw_key(j, "flows"), sts_jsonw_u64(j, st->flows);
    sts_jsonw_key(j, "flow_events"), sts_jsonw_u64(j, st->flow_events);
    sts_jsonw_key(j, "flows_left_out"), sts_jsonw_u64(j, st->flows_left_out);
    sts_jsonw_key(j, "counters"), sts_jsonw_u64(j, st->counters);
    sts_jsonw_key(j, "lanes"), sts_jsonw_u64(j, st->lanes);
    sts_jsonw_key(j, "processes"), sts_jsonw_u64(j, st->processes);
    sts_jsonw_key(j, "events"), sts_jsonw_u64(j, st->events);
    sts_jsonw_obj_end(j);
    return cli_json_finish("cut", j);
}

/* Whether any slice of the trace, anywhere, has the name (or matches it): tells a typo
 * from a window that holds none of them. */
static int name_anywhere(const sts_timeline *tl, const char *name)
{
    sts_scope sc = STS_SCOPE_INIT;
    sc.name = name;
    sts_name_summary *rows = NULL;
    size_t n = 0;
    sts_error err = STS_ERROR_INIT;
    int found = sts_name_summaries_in(tl, &sc, &rows, &n, &err) == STS_OK && n > 0;
    free(rows);
    return found;
}

/* ---- the command ------------------------------------------------------------------------- */

static int run(const char *path, const args *o, const tc_read_opts *ro, int64_t min_dur)
{
    sts_timeline *tl = NULL;
    int rc = tc_open("cut", path, o->run, o->argmode, ro, &tl);
    if (rc != CLI_OK) return rc;
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    chosen w = { 0, 0, INT64_MIN, INT64_MIN, 0 };
    uint32_t *lanes = NULL;
    size_t nlanes = 0;
    if (in->path && same_file(in->path, o->out))
        rc = cli_fail(CLI_USAGE, "cut: -o %s names the trace read (%s); write the cut to another file", o->out,
                      in->path);
    if (rc == CLI_OK) rc = choose_window(tl, o, &w);
    if (rc == CLI_OK) rc = choose_lanes(tl, o, &lanes, &nlanes);
    sts_cut_stats st;
    if (rc == CLI_OK) {
        sts_cut cut = STS_CUT_INIT;
        cut.start_ns = w.start;
        cut.end_ns = w.end;
        cut.lanes = o->lanes.n ? lanes : NULL;
        cut.nlanes = nlanes;
        cut.name = o->name;
        cut.min_dur_ns = min_dur;
        cut.source = in->path;
        sts_error err = STS_ERROR_INIT;
        sts_status s = sts_write_chrome_json_cut(tl, &cut, o->out, NULL, &st, &err);
        if (s == STS_ERR_NOT_FOUND && o->name && !name_anywhere(tl, o->name)) {
            fprintf(stderr, "stepscope cut: no slice name of %s matches '%s'\n", in->path, o->name);
            ts_suggest_names(tl, o->name);
            rc = CLI_BAD_INPUT;
        } else if (s != STS_OK) {
            fprintf(stderr, "stepscope cut: error: %s\n", err.message);
            rc = s == STS_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD_INPUT;
        }
    }
    if (rc == CLI_OK && o->json)
        rc = print_json(tl, o, &w, nlanes, &st);
    else if (rc == CLI_OK)
        print_text(tl, o, &w, nlanes, &st);
    free(lanes);
    sts_timeline_free(tl);
    return rc;
}

int cmd_cut(int argc, char **argv)
{
    args o;
    memset(&o, 0, sizeof o);
    tc_read_opts ro = TC_READ_OPTS_INIT;
    const cli_opt opts[] = {
        { "o|output", CLI_STRING, &o.out, "OUT",
          "the file to write (required): Chrome JSON, gzip-compressed when OUT ends in .gz" },
        { "window", CLI_STRING, &o.window, "START:END",
          "keep [START, END) after the trace's first timestamp (e.g. 120ms:135ms; no unit = ms; either side may be "
          "empty); slices are cut to it" },
        { "steps", CLI_STRING, &o.steps, "N|FIRST..LAST",
          "keep the time of step N, or of steps FIRST to LAST (numbered as 'stepscope steps' numbers them)" },
        { "step", CLI_STRING, &o.step, "NAME", "with --steps: the step slice's name or regex (as in steps)" },
        { "lanes", CLI_MULTI, &o.lanes, "PATTERN",
          "keep only lanes whose thread or process name, pid, tid or PID:TID is PATTERN (else an extended regex over "
          "the names); repeatable" },
        { "name", CLI_STRING, &o.name, "PATTERN",
          "keep only slices named PATTERN (else an extended regex over names) and the slices inside them" },
        { "min-dur", CLI_STRING, &o.min_dur, "D",
          "leave out slices shorter than D in the whole trace (e.g. 5us; no unit = ms); instants are kept" },
        { "json", CLI_FLAG, &o.json, NULL, "print what was cut as JSON (see docs/json-schemas.md)" },
        TC_RUN_OPT(o.run),
        TC_ARGS_OPT(o.argmode),
        TC_READ_OPTS(ro),
        { 0 },
    };
    const cli_spec spec = {
        "cut",
        "TRACE -o OUT [--window START:END | --steps N|FIRST..LAST [--step NAME]] [--lanes PATTERN]... [--name PATTERN] "
        "[--min-dur D] [--json] [--run NAME] [--args MODE] [-j N]",
        "Writes part of a trace (Chrome JSON, .json.gz, XSpace .xplane.pb or a JAX profile\n"
        "directory) as a Chrome JSON trace that Perfetto, chrome://tracing and stepscope open:\n"
        "the slices of the chosen lanes that overlap the window, cut at its edges and marked\n"
        "(a stepscope_cut arg), with the metadata, process and thread names, the flows whose\n"
        "ends both survive and the counters. 'stepscope analyze' of the cut equals\n"
        "'stepscope analyze --window' of the whole on the same lanes. Without --window or\n"
        "--steps, the whole span. Every arg is kept (--args all) unless --args says less.\n"
        "See docs/cut.md.",
        opts,
        1,
        1,
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    if (!o.out) return cli_fail(CLI_USAGE, "cut: -o OUT is required (see 'stepscope cut --help')");
    if (o.window && o.steps) return cli_fail(CLI_USAGE, "cut: give --window or --steps, not both");
    if (o.step && !o.steps)
        return cli_fail(CLI_USAGE, "cut: --step only chooses the steps --steps counts; give --steps");
    int64_t min_dur = 0;
    if (o.min_dur && (ts_parse_duration(o.min_dur, strlen(o.min_dur), &min_dur) != 0 || min_dur < 0))
        return cli_fail(CLI_USAGE, "cut: --min-dur expects a duration >= 0 (e.g. 5us, 0.2ms; no unit = ms), got '%s'",
                        o.min_dur);
    if ((rc = check_output(pos[0], o.out)) != CLI_OK) return rc;
    return run(pos[0], &o, &ro, min_dur);
}
