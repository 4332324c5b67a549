/* A bench section (`stepscope bench --json`, schema "stepscope.bench/1", docs/bench.md):
 * for each benchmarked workload in the JSON (the top-level result and each of its
 * "variants"; in general any object holding "warm_samples_seconds"), its facts and the
 * first-call / warm-calls figure. */
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
    "cost of the work. Squares, when present, are the device's own timestamps for each warm call. A single "
    "higher warm point is one slower sample, not proof of recompilation.";

/* Keys shown first, in this order, with their labels. */
static const struct {
    const char *key, *label;
} known[] = {
    { "backend", "backend" },
    { "workload", "workload" },
    { "input_shape", "input shape" },
    { "weight_shape", "weight shape" },
    { "output_shape", "output shape" },
    { "dtype", "dtype" },
    { "boundary", "boundary" },
    { "max_abs_error", "max abs error" },
    { "atol", "atol" },
    { "rtol", "rtol" },
};

/* Drawn, summarized by hand, or not worth a line. */
static const char *const skipped[] = { "schema",
                                       "name",
                                       "device",
                                       "first_call_seconds",
                                       "warm_samples_seconds",
                                       "warm_median_seconds",
                                       "dispatch_only_seconds",
                                       "device_samples_seconds",
                                       "host_overhead_samples_seconds" };

static int is_listed(const char *k)
{
    for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
        if (strcmp(k, skipped[i]) == 0) return 1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(k, known[i].key) == 0) return 1;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *run_label(sts_report *r, const sts_jval *o, const char *member)
{
    static const char *const keys[] = { "name", "label", "workload", "kernel" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *s = sts_json_str(sts_json_get(o, keys[i]), NULL);
        if (s && *s) return sts_rpt_strdup(r, s);
    }
    if (member) return sts_rpt_strdup(r, member);
    const char *in = sts_rpt_json_text(r, sts_json_get(o, "input_shape"));
    const char *w = sts_rpt_json_text(r, sts_json_get(o, "weight_shape"));
    const char *dt = sts_json_str(sts_json_get(o, "dtype"), NULL);
    if (!in) return NULL;
    char buf[512];
    snprintf(buf, sizeof buf, "x %s%s%s%s%s", in, w ? ", w " : "", w ? w : "", dt ? " " : "", dt ? dt : "");
    return sts_rpt_strdup(r, buf);
}

/* Any other scalar member, durations written in their own unit. */
static void other_fact(sts_report *r, sts_rpt_facts *f, const sts_jmember *m)
{
    char key[128], d[48];
    snprintf(key, sizeof key, "%s", m->key);
    for (char *p = key; *p; p++)
        if (*p == '_') *p = ' ';
    if (m->val->type == STS_J_NUM && ends_with(m->key, "_seconds") && isfinite(m->val->u.num * 1e9)) {
        key[strlen(key) - 8] = 0; /* drop " seconds": the value carries its unit */
        sts_fmt_duration(m->val->u.num * 1e9, d, sizeof d);
        sts_rpt_fact(r, f, key, "%s", d);
        return;
    }
    const char *t = sts_rpt_json_text(r, m->val);
    if (t) sts_rpt_fact(r, f, key, "%s", t);
}

static void check_fact(sts_report *r, sts_rpt_facts *f, const sts_jval *check)
{
    const sts_jval *checked = sts_json_get(check, "checked"), *passed = sts_json_get(check, "passed");
    if (!checked || checked->type != STS_J_BOOL) return;
    const char *ref = sts_json_str(sts_json_get(check, "reference"), NULL);
    sts_rpt_fact(r, f, "check", "%s%s%s",
                 !checked->u.b                                         ? "not checked"
                 : passed && passed->type == STS_J_BOOL && passed->u.b ? "passed"
                                                                       : "FAILED",
                 ref && checked->u.b ? " against " : "", ref && checked->u.b ? ref : "");
}

static void run_facts(sts_report *r, sts_rpt_section *sec, const sts_jval *o, const sts_rpt_bench *bn)
{
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const char *t = sts_rpt_json_text(r, sts_json_get(o, known[i].key));
        if (t) sts_rpt_fact(r, f, known[i].label, "%s", t);
    }
    check_fact(r, f, sts_json_get(o, "check"));
    char d[48], m[48];
    double median = isfinite(bn->median_ns) ? bn->median_ns : sts_rpt_median(bn->warm_ns, bn->nwarm);
    sts_fmt_duration(bn->first_ns, d, sizeof d);
    sts_fmt_duration(median, m, sizeof m);
    sts_rpt_fact(r, f, "first call", "%s", isfinite(bn->first_ns) ? d : "not recorded");
    sts_rpt_fact(r, f, "warm median", "%s over %zu samples%s", isfinite(median) ? m : "n/a", bn->nwarm,
                 isfinite(bn->median_ns) ? "" : " (computed here)");
    for (size_t i = 0; i < o->u.obj.n; i++) {
        const sts_jmember *mb = &o->u.obj.members[i];
        if (is_listed(mb->key) || mb->val->type == STS_J_OBJ) continue;
        if (mb->val->type == STS_J_ARR && (ends_with(mb->key, "_seconds") || strcmp(mb->key, "warnings") == 0))
            continue;
        other_fact(r, f, mb);
    }
    const sts_jval *warnings = sts_json_get(o, "warnings");
    for (size_t i = 0; i < sts_json_len(warnings) && i < 8; i++) {
        const char *w = sts_json_str(sts_json_at(warnings, i), NULL);
        if (w && *w) sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, w);
    }
}

static sts_status add_run(sts_report *r, sts_rpt_section *sec, const sts_jval *o, const char *member, const char *name,
                          sts_error *err)
{
    sts_rpt_bench *bn = sts_rpt_alloc(r, sizeof *bn);
    if (!bn) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    bn->label = run_label(r, o, member);
    size_t finite_dev = 0;
    sts_status st;
    if ((st = sts_rpt_json_number(sts_json_get(o, "first_call_seconds"), 1e9, name, "first_call_seconds", &bn->first_ns,
                                  err)) != STS_OK ||
        (st = sts_rpt_json_numbers(r, sts_json_get(o, "warm_samples_seconds"), 1e9, name, "warm_samples_seconds",
                                   &bn->warm_ns, &bn->nwarm, NULL, err)) != STS_OK ||
        (st = sts_rpt_json_number(sts_json_get(o, "warm_median_seconds"), 1e9, name, "warm_median_seconds",
                                  &bn->median_ns, err)) != STS_OK ||
        (st = sts_rpt_json_numbers(r, sts_json_get(o, "device_samples_seconds"), 1e9, name, "device_samples_seconds",
                                   &bn->device_ns, &bn->ndevice, &finite_dev, err)) != STS_OK)
        return st;
    if (finite_dev == 0) bn->ndevice = 0; /* no device timestamps: no series, no legend entry */
    /* Dispatch-only: its median when given, else one interval or the median of a list. */
    const sts_jval *dv = sts_json_get(o, "dispatch_only_seconds");
    if ((st = sts_rpt_json_number(sts_json_get(o, "dispatch_only_median_seconds"), 1e9, name,
                                  "dispatch_only_median_seconds", &bn->dispatch_ns, err)) != STS_OK)
        return st;
    if (!isfinite(bn->dispatch_ns) && dv && dv->type == STS_J_ARR) {
        double *d;
        size_t n;
        if ((st = sts_rpt_json_numbers(r, dv, 1e9, name, "dispatch_only_seconds", &d, &n, NULL, err)) != STS_OK)
            return st;
        bn->dispatch_ns = sts_rpt_median(d, n);
    } else if (!isfinite(bn->dispatch_ns) &&
               (st = sts_rpt_json_number(dv, 1e9, name, "dispatch_only_seconds", &bn->dispatch_ns, err)) != STS_OK) {
        return st;
    }
    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, bn->label ? bn->label : "benchmark");
    run_facts(r, sec, o, bn);
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_BENCH, "fig-bench", bn, HOW_BENCH))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    return STS_OK;
}

typedef struct run_list {
    const sts_jval *obj[MAX_RUNS];
    const char *member[MAX_RUNS]; /* the key holding it ("energy" under "variants"), or NULL */
    size_t n;
} run_list;

/* Depth-first, document order: every object holding warm samples is a run, wherever it
 * sits (the result itself, then its "variants"). */
static void find_runs(const sts_jval *v, const char *member, run_list *runs, int depth)
{
    if (!v || depth > 8 || runs->n >= MAX_RUNS) return;
    if (v->type == STS_J_OBJ) {
        if (sts_json_get(v, "warm_samples_seconds")) {
            runs->obj[runs->n] = v;
            runs->member[runs->n++] = member;
        }
        for (size_t i = 0; i < v->u.obj.n; i++)
            find_runs(v->u.obj.members[i].val, v->u.obj.members[i].key, runs, depth + 1);
    } else if (v->type == STS_J_ARR) {
        for (size_t i = 0; i < v->u.arr.n; i++)
            find_runs(v->u.arr.items[i], NULL, runs, depth + 1);
    }
}

static void environment_facts(sts_report *r, sts_rpt_section *sec, const sts_jval *env)
{
    if (!env || env->type != STS_J_OBJ) return;
    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Machine");
    static const struct {
        const char *key, *label;
    } keys[] = { { "cpu_model", "CPU" }, { "cpu_count", "CPUs" },    { "cpu_governor", "CPU governor" },
                 { "os", "OS" },         { "compiler", "compiler" }, { "timestamp", "measured at" } };
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *t = sts_rpt_json_text(r, sts_json_get(env, keys[i].key));
        if (t && *t) sts_rpt_fact(r, f, keys[i].label, "%s", t);
    }
    const sts_jval *cl = sts_json_get(env, "opencl");
    const char *dev = sts_json_str(sts_json_get(cl, "device"), NULL);
    if (dev) {
        const char *type = sts_json_str(sts_json_get(cl, "type"), "");
        const char *drv = sts_json_str(sts_json_get(cl, "driver_version"), "");
        sts_rpt_fact(r, f, "OpenCL device", "%s%s%s%s", dev, *type ? " (" : "", type, *type ? ")" : "");
        if (*drv) sts_rpt_fact(r, f, "driver", "%s", drv);
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
    run_list runs = { { 0 }, { 0 }, 0 };
    find_runs(doc.root, NULL, &runs, 0);
    if (runs.n == 0) {
        sts_jdoc_release(&doc);
        return sts_error_set(err, STS_ERR_FORMAT, 0,
                             "%s: not a bench result: expected an object with \"warm_samples_seconds\"", name);
    }
    sts_rpt_section *sec = sts_rpt_section_new(r, "bench", "Benchmark: first call and warm calls", name);
    if (!sec) {
        sts_jdoc_release(&doc);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    }
    environment_facts(r, sec, sts_json_get(doc.root, "environment"));
    for (size_t i = 0; i < runs.n; i++) {
        if ((st = add_run(r, sec, runs.obj[i], runs.member[i], name, err)) != STS_OK) {
            sts_jdoc_release(&doc);
            return st;
        }
    }
    sts_jdoc_release(&doc);
    sts_rpt_section_commit(r, sec);
    return STS_OK;
}
