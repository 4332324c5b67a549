/* A bench section: for each benchmarked workload in the JSON (any object holding
 * "warm_samples_seconds"), its facts and the first-call / warm-calls figure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/in_json.h"

#define MAX_RUNS 32

static const char HOW_BENCH[] =
    "The left panel is the first synchronized call, which includes preparing the specialization (for a JIT: "
    "tracing and compiling). The right panel is each warm call in the order run, each timed until its result was "
    "complete; the dashed line is their median. The two panels have independent vertical axes: compare the "
    "numbers and units on the ticks, not the heights of the panels. A dotted line, when present, is the "
    "dispatch-only interval (the clock stopped when the call returned, before the work finished): it is not the "
    "cost of the work. A single higher warm point is one slower sample, not proof of recompilation.";

/* Known keys shown as facts, in this order, with their labels. */
static const struct {
    const char *key, *label;
} known[] = {
    { "backend", "backend" },       { "device", "device" },
    { "workload", "workload" },     { "input_shape", "input shape" },
    { "weight_shape", "weight shape" }, { "output_shape", "output shape" },
    { "dtype", "dtype" },           { "boundary", "boundary" },
    { "max_abs_error", "max abs error" }, { "atol", "atol" },
    { "rtol", "rtol" },             { "check", "check" },
};

static const char *const drawn[] = { "first_call_seconds", "warm_samples_seconds", "warm_median_seconds",
                                     "dispatch_only_seconds", "device_samples_seconds" };

static int is_drawn_or_known(const char *k)
{
    for (size_t i = 0; i < sizeof drawn / sizeof drawn[0]; i++)
        if (strcmp(k, drawn[i]) == 0) return 1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(k, known[i].key) == 0) return 1;
    return 0;
}

static const char *run_label(sts_report *r, const sts_jval *o)
{
    static const char *const keys[] = { "name", "label", "workload", "kernel" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *s = sts_json_str(sts_json_get(o, keys[i]), NULL);
        if (s && *s) return sts_rpt_strdup(r, s);
    }
    const char *in = sts_rpt_json_text(r, sts_json_get(o, "input_shape"));
    const char *w = sts_rpt_json_text(r, sts_json_get(o, "weight_shape"));
    const char *dt = sts_json_str(sts_json_get(o, "dtype"), NULL);
    if (!in) return NULL;
    char buf[512];
    snprintf(buf, sizeof buf, "x %s%s%s%s%s", in, w ? ", w " : "", w ? w : "", dt ? " " : "", dt ? dt : "");
    return sts_rpt_strdup(r, buf);
}

static sts_status add_run(sts_report *r, sts_rpt_section *sec, const sts_jval *o, const char *name, sts_error *err)
{
    sts_rpt_bench *bn = sts_rpt_alloc(r, sizeof *bn);
    if (!bn) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    bn->label = run_label(r, o);
    sts_status st;
    if ((st = sts_rpt_json_number(sts_json_get(o, "first_call_seconds"), 1e9, name, "first_call_seconds",
                                  &bn->first_ns, err)) != STS_OK ||
        (st = sts_rpt_json_numbers(r, sts_json_get(o, "warm_samples_seconds"), 1e9, name, "warm_samples_seconds",
                                   &bn->warm_ns, &bn->nwarm, err)) != STS_OK ||
        (st = sts_rpt_json_number(sts_json_get(o, "warm_median_seconds"), 1e9, name, "warm_median_seconds",
                                  &bn->median_ns, err)) != STS_OK ||
        (st = sts_rpt_json_numbers(r, sts_json_get(o, "device_samples_seconds"), 1e9, name, "device_samples_seconds",
                                   &bn->device_ns, &bn->ndevice, err)) != STS_OK)
        return st;
    /* dispatch-only may be one interval or a list of them: draw the median of a list. */
    const sts_jval *dv = sts_json_get(o, "dispatch_only_seconds");
    if (dv && dv->type == STS_J_ARR) {
        double *d;
        size_t n;
        if ((st = sts_rpt_json_numbers(r, dv, 1e9, name, "dispatch_only_seconds", &d, &n, err)) != STS_OK) return st;
        bn->dispatch_ns = sts_rpt_median(d, n);
    } else if ((st = sts_rpt_json_number(dv, 1e9, name, "dispatch_only_seconds", &bn->dispatch_ns, err)) != STS_OK) {
        return st;
    }

    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, bn->label ? bn->label : "benchmark");
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const char *t = sts_rpt_json_text(r, sts_json_get(o, known[i].key));
        if (t) sts_rpt_fact(r, f, known[i].label, "%s", t);
    }
    char d[48], m[48];
    double median = isfinite(bn->median_ns) ? bn->median_ns : sts_rpt_median(bn->warm_ns, bn->nwarm);
    sts_fmt_duration(bn->first_ns, d, sizeof d);
    sts_fmt_duration(median, m, sizeof m);
    sts_rpt_fact(r, f, "first call", "%s", isfinite(bn->first_ns) ? d : "not recorded");
    sts_rpt_fact(r, f, "warm median", "%s over %zu samples%s", bn->nwarm ? m : "n/a", bn->nwarm,
                 isfinite(bn->median_ns) ? "" : " (computed here)");
    for (size_t i = 0; i < o->u.obj.n; i++) {
        const sts_jmember *mb = &o->u.obj.members[i];
        if (is_drawn_or_known(mb->key) || mb->val->type == STS_J_ARR || mb->val->type == STS_J_OBJ) continue;
        const char *t = sts_rpt_json_text(r, mb->val);
        if (t) sts_rpt_fact(r, f, mb->key, "%s", t);
    }
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_BENCH, "fig-bench", bn, HOW_BENCH))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    return STS_OK;
}

/* Depth-first: the runs are the objects holding warm samples, wherever they sit. */
static void find_runs(const sts_jval *v, const sts_jval **runs, size_t *n, int depth)
{
    if (!v || depth > 8 || *n >= MAX_RUNS) return;
    if (v->type == STS_J_OBJ) {
        if (sts_json_get(v, "warm_samples_seconds")) {
            runs[(*n)++] = v;
            return;
        }
        for (size_t i = 0; i < v->u.obj.n; i++) find_runs(v->u.obj.members[i].val, runs, n, depth + 1);
    } else if (v->type == STS_J_ARR) {
        for (size_t i = 0; i < v->u.arr.n; i++) find_runs(v->u.arr.items[i], runs, n, depth + 1);
    }
}

sts_status sts_report_add_bench_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err)
{
    if (!r || !text) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no text given");
    name = name ? name : "(bench json)";
    sts_jdoc doc = STS_JDOC_INIT;
    sts_status st = sts_json_parse(&doc, text, len, name, err);
    if (st != STS_OK) {
        sts_jdoc_release(&doc);
        return st;
    }
    const sts_jval *runs[MAX_RUNS];
    size_t n = 0;
    find_runs(doc.root, runs, &n, 0);
    if (n == 0) {
        sts_jdoc_release(&doc);
        return sts_error_set(err, STS_ERR_FORMAT, 0,
                             "%s: not a bench result: expected an object with \"warm_samples_seconds\"", name);
    }
    sts_rpt_section *sec = sts_rpt_section_new(r, "bench", "Benchmark: first call and warm calls", name);
    if (!sec) {
        sts_jdoc_release(&doc);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    }
    const char *backend = sts_json_str(sts_json_get(doc.root, "backend"), NULL);
    if (backend && n > 1) {
        sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
        sts_rpt_fact(r, f, "backend", "%s", backend);
    }
    for (size_t i = 0; i < n; i++) {
        if ((st = add_run(r, sec, runs[i], name, err)) != STS_OK) {
            sts_jdoc_release(&doc);
            return st;
        }
    }
    sts_jdoc_release(&doc);
    sts_rpt_section_commit(r, sec);
    return STS_OK;
}
