/* stepscope steps: each step, its direct children by name, the unattributed remainder,
 * and what summing step and children would wrongly give. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hosts_cli.h"
#include "trace_cli.h"

typedef struct view {
    const sts_timeline *tl;
    const sts_steps *s;
    const sts_step *st;
    const sts_step_child *ch;
    const sts_step_child_stats *cs;
    const sts_steps_summary *sum;
    size_t n, nch, ncs;
} view;

static const char *rule_text(sts_step_rule r)
{
    switch (r) {
    case STS_STEP_RULE_GIVEN_NAME:
        return "slices with the name given by --step";
    case STS_STEP_RULE_GIVEN_REGEX:
        return "slices whose name matches the --step regular expression";
    case STS_STEP_RULE_PROFILER_STEP:
        return "PyTorch profiler step markers named ProfilerStep#N";
    case STS_STEP_RULE_STEP_NUM:
        return "slices carrying a step_num arg (XProf step markers)";
    case STS_STEP_RULE_REPEATED:
        return "the root name repeated on one lane with the most time, holding children";
    case STS_STEP_RULE_NONE:
        break;
    }
    return "no steps found";
}

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

static void print_human(const view *v)
{
    const char *nm = common_name(v);
    uint32_t lane = v->st[0].lane;
    const char *thread = tc_thread_name(v->tl, lane);
    printf("%zu steps%s%s%s on pid %s tid %s%s%s%s\n", v->n, nm ? " '" : "", nm ? nm : "", nm ? "'" : "",
           tc_pid(v->tl, lane), tc_tid(v->tl, lane), *thread ? " (" : "", thread, *thread ? ")" : "");
    printf("found by: %s (%s)\n", sts_step_rule_name(sts_steps_rule(v->s)), rule_text(sts_steps_rule(v->s)));
    if (sts_steps_other_lanes(v->s))
        printf("note: %zu other lane%s also hold matching slices (e.g. the same marker on a device lane); "
               "this lane has the most\n",
               sts_steps_other_lanes(v->s), sts_steps_other_lanes(v->s) == 1 ? "" : "s");
    int64_t t0 = sts_timeline_get_info(v->tl)->ts_min;
    printf("\n%8s %12s %11s %11s %13s %15s\n", "index", "start (ms)", "dur (ms)", "children", "unattributed",
           "step+children");
    for (size_t k = 0; k < v->n; k++) {
        const sts_step *s = &v->st[k];
        printf("%8" PRId64 " %12.3f %11.3f %11.3f %13.3f %15.3f\n", s->index, ms(s->ts - t0), ms(s->dur),
               ms(s->children_ns), ms(s->unattributed_ns), ms(s->naive_ns));
        printf("%8s ", "");
        for (uint32_t c = s->first_child; c < s->first_child + s->child_count; c++) {
            char d[32];
            sts_fmt_duration(v->ch[c].total_ns, d, sizeof d);
            printf("%s%s %s", c == s->first_child ? "" : ", ", name_of(v, v->ch[c].name), d);
            if (v->ch[c].count > 1) printf(" (x%u)", v->ch[c].count);
        }
        printf("%s\n", s->child_count ? "" : "(no children)");
    }
    printf("(start is relative to the trace's first timestamp; all columns in ms)\n");
    if (v->ncs) {
        int nw = 4;
        for (size_t i = 0; i < v->ncs; i++) {
            int w = tc_width(name_of(v, v->cs[i].name), 48);
            if (w > nw) nw = w;
        }
        printf("\ndirect children across steps (per-step totals, ms)\n  ");
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
    const sts_steps_summary *y = v->sum;
    printf("\nsteps:         %zu, %.3f ms in all (min %.3f, median %.3f, max %.3f ms)\n", y->steps, ms(y->total_ns),
           ms(y->min_ns), ms(y->median_ns), ms(y->max_ns));
    printf("children:      %.3f ms (direct children only; deeper slices are inside them)\n", ms(y->children_ns));
    printf("unattributed:  %.3f ms (step time no direct child covers; median %.3f ms per step)\n",
           ms(y->unattributed_ns), ms(y->unattributed_median_ns));
    printf("step+children: %.3f ms: WRONG as a total, it counts the children's %.3f ms twice\n", ms(y->naive_ns),
           ms(y->children_ns));
}

static void json_steps(sts_jsonw *j, const view *v)
{
    sts_jsonw_key(j, "steps");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < v->n; k++) {
        const sts_step *s = &v->st[k];
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "name"), sts_jsonw_str(j, name_of(v, s->name));
        sts_jsonw_key(j, "index"), sts_jsonw_i64(j, s->index);
        sts_jsonw_key(j, "ts_ns"), sts_jsonw_i64(j, s->ts);
        sts_jsonw_key(j, "dur_ns"), sts_jsonw_i64(j, s->dur);
        sts_jsonw_key(j, "children");
        sts_jsonw_obj_begin(j);
        for (uint32_t c = s->first_child; c < s->first_child + s->child_count; c++)
            sts_jsonw_key(j, name_of(v, v->ch[c].name)), sts_jsonw_i64(j, v->ch[c].total_ns);
        sts_jsonw_obj_end(j);
        sts_jsonw_key(j, "child_counts");
        sts_jsonw_obj_begin(j);
        for (uint32_t c = s->first_child; c < s->first_child + s->child_count; c++)
            sts_jsonw_key(j, name_of(v, v->ch[c].name)), sts_jsonw_u64(j, v->ch[c].count);
        sts_jsonw_obj_end(j);
        sts_jsonw_key(j, "children_ns"), sts_jsonw_i64(j, s->children_ns);
        sts_jsonw_key(j, "unattributed_ns"), sts_jsonw_i64(j, s->unattributed_ns);
        sts_jsonw_key(j, "naive_ns"), sts_jsonw_i64(j, s->naive_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_children(sts_jsonw *j, const view *v)
{
    sts_jsonw_key(j, "children");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < v->ncs; i++) {
        const sts_step_child_stats *c = &v->cs[i];
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "name"), sts_jsonw_str(j, name_of(v, c->name));
        sts_jsonw_key(j, "steps"), sts_jsonw_u64(j, c->steps);
        sts_jsonw_key(j, "count"), sts_jsonw_u64(j, c->count);
        sts_jsonw_key(j, "total_ns"), sts_jsonw_i64(j, c->total_ns);
        sts_jsonw_key(j, "min_ns"), sts_jsonw_i64(j, c->min_ns);
        sts_jsonw_key(j, "median_ns"), sts_jsonw_i64(j, c->median_ns);
        sts_jsonw_key(j, "max_ns"), sts_jsonw_i64(j, c->max_ns);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_summary(sts_jsonw *j, const sts_steps_summary *y)
{
    sts_jsonw_key(j, "summary");
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "steps"), sts_jsonw_u64(j, y->steps);
    sts_jsonw_key(j, "total_ns"), sts_jsonw_i64(j, y->total_ns);
    sts_jsonw_key(j, "min_ns"), sts_jsonw_i64(j, y->min_ns);
    sts_jsonw_key(j, "median_ns"), sts_jsonw_i64(j, y->median_ns);
    sts_jsonw_key(j, "max_ns"), sts_jsonw_i64(j, y->max_ns);
    sts_jsonw_key(j, "children_ns"), sts_jsonw_i64(j, y->children_ns);
    sts_jsonw_key(j, "unattributed_ns"), sts_jsonw_i64(j, y->unattributed_ns);
    sts_jsonw_key(j, "unattributed_min_ns"), sts_jsonw_i64(j, y->unattributed_min_ns);
    sts_jsonw_key(j, "unattributed_median_ns"), sts_jsonw_i64(j, y->unattributed_median_ns);
    sts_jsonw_key(j, "unattributed_max_ns"), sts_jsonw_i64(j, y->unattributed_max_ns);
    sts_jsonw_key(j, "naive_ns"), sts_jsonw_i64(j, y->naive_ns);
    sts_jsonw_obj_end(j);
}

static int print_json(const view *v)
{
    sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
    if (!j) return cli_fail(CLI_BAD_INPUT, "steps: out of memory");
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "trace"), sts_jsonw_str(j, sts_timeline_get_info(v->tl)->path);
    sts_jsonw_key(j, "rule"), sts_jsonw_str(j, sts_step_rule_name(sts_steps_rule(v->s)));
    sts_jsonw_key(j, "rule_description"), sts_jsonw_str(j, rule_text(sts_steps_rule(v->s)));
    uint32_t lane = v->st[0].lane;
    sts_jsonw_key(j, "lane");
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "pid"), sts_jsonw_str(j, tc_pid(v->tl, lane));
    sts_jsonw_key(j, "tid"), sts_jsonw_str(j, tc_tid(v->tl, lane));
    sts_jsonw_key(j, "process"), sts_jsonw_str(j, tc_process_name(v->tl, lane));
    sts_jsonw_key(j, "thread"), sts_jsonw_str(j, tc_thread_name(v->tl, lane));
    sts_jsonw_obj_end(j);
    sts_jsonw_key(j, "other_lanes"), sts_jsonw_u64(j, sts_steps_other_lanes(v->s));
    json_steps(j, v);
    json_children(j, v);
    json_summary(j, v->sum);
    sts_jsonw_obj_end(j);
    return cli_json_finish("steps", j);
}

static int no_steps(const char *path, const sts_steps *s)
{
    size_t n;
    const char *const *tried = sts_steps_tried(s, &n);
    fprintf(stderr, "stepscope steps: no steps found in %s; tried:\n", path);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  - %s\n", tried[i]);
    fprintf(stderr, "name the step slice with --step NAME (or an extended regex)\n");
    return CLI_BAD_INPUT;
}

int cmd_steps(int argc, char **argv)
{
    int json = 0, jobs = INT_MIN, mpi = 0;
    double ratio = 1.1;
    const char *step = NULL, *run = NULL, *args = NULL;
    const cli_opt opts[] = {
        { "step", CLI_STRING, &step, "NAME", "the step slice's name, or an extended regex over names" },
        { "json", CLI_FLAG, &json, NULL, "print JSON (see docs/json-schemas.md)" },
        TC_RUN_OPT(run),
        TC_ARGS_OPT(args),
        HC_JOBS_OPT(jobs),
        HC_MPI_OPT(mpi),
        { "straggler-ratio", CLI_DOUBLE, &ratio, "R",
          "with several hosts, a step is a straggler when its slowest host took R x the step's median (default "
          "1.1)" },
        { 0 },
    };
    const cli_spec spec = {
        "steps",
        "TRACE... [--step NAME-or-REGEX] [--json] [--run NAME] [--args MODE] [-j N] [--mpi] [--straggler-ratio R]",
        "Finds the steps of a trace and breaks each into its direct children by name, the\n"
        "unattributed remainder (step minus direct children) and the double-counted total that\n"
        "adding step and children would give. Without --step, steps are ProfilerStep#N slices,\n"
        "else slices with a step_num arg, else the root name repeated on one lane with the most\n"
        "time that holds children. Exit 1 when none are found (the candidates tried are listed).\n"
        "Several hosts (files, or a profile run holding several; see docs/hosts.md): each\n"
        "host's steps aligned by step number, per step the spread across hosts, the slowest host\n"
        "and what it spent longer on than the median host (device collectives included), and the\n"
        "stragglers.",
        opts,
        1,
        argc,
    };
    const char **pos = malloc((size_t)argc * sizeof *pos);
    if (!pos) return cli_fail(CLI_BAD_INPUT, "steps: out of memory");
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc < 0) {
        hc_opts ho = { "steps", pos, (size_t)npos, run, args, jobs, mpi };
        rc = hc_steps(&ho, step, json, ratio);
    }
    /* One host: read as one trace. */
    const char *path = rc == HC_SINGLE ? pos[0] : NULL;
    free(pos);
    if (rc != HC_SINGLE) return rc;
    sts_timeline *tl = NULL;
    if ((rc = tc_open("steps", path, run, args, &tl)) != CLI_OK) return rc;
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    o.step = step;
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_steps_find(tl, &o, &s, &err) != STS_OK) {
        rc = err.code == STS_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD_INPUT;
        fprintf(stderr, "stepscope steps: error: %s\n", err.message);
        sts_timeline_free(tl);
        return rc;
    }
    view v = { tl, s, NULL, NULL, NULL, NULL, 0, 0, 0 };
    v.st = sts_steps_list(s, &v.n);
    v.ch = sts_steps_children(s, &v.nch);
    v.cs = sts_steps_child_stats(s, &v.ncs);
    v.sum = sts_steps_get_summary(s);
    if (v.n == 0)
        rc = no_steps(sts_timeline_get_info(tl)->path, s);
    else if (json)
        rc = print_json(&v);
    else
        print_human(&v);
    sts_steps_free(s);
    sts_timeline_free(tl);
    return rc;
}
