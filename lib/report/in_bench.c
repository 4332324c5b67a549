/* A bench section (`stepscope bench --json`, schema "stepscope.bench/1", docs/bench.md):
 * for each benchmarked workload in the JSON (the top-level result and each of its
 * "variants"; in general any object holding "warm_samples_seconds"), its facts and the
 * first-call / warm-calls figure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_impl.h"
#include "stepscope/bench.h"

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

static const char *fact_text(const sts_bench_run_doc *run, const char *key)
{
    const sts_bench_fact *f = sts_bench_fact_get(run->facts, run->nfacts, key);
    return f ? f->text : NULL;
}

static const char *run_label(sts_report *r, const sts_bench_run_doc *run)
{
    const char *const names[] = { run->name, run->label, run->workload, run->kernel };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i] && *names[i]) return sts_rpt_strdup(r, names[i]);
    if (run->member) return sts_rpt_strdup(r, run->member);
    const char *in = fact_text(run, "input_shape"), *w = fact_text(run, "weight_shape");
    const sts_bench_fact *df = sts_bench_fact_get(run->facts, run->nfacts, "dtype");
    const char *dt = df ? df->string : NULL;
    if (!in) return NULL;
    char buf[512];
    snprintf(buf, sizeof buf, "x %s%s%s%s%s", in, w ? ", w " : "", w ? w : "", dt ? " " : "", dt ? dt : "");
    return sts_rpt_strdup(r, buf);
}

/* Any other scalar member, durations written in their own unit. */
static void other_fact(sts_report *r, sts_rpt_facts *f, const sts_bench_fact *m)
{
    char key[128], d[48];
    snprintf(key, sizeof key, "%s", m->key);
    for (char *p = key; *p; p++)
        if (*p == '_') *p = ' ';
    if (!isnan(m->number) && ends_with(m->key, "_seconds") && isfinite(m->number * 1e9)) {
        key[strlen(key) - 8] = 0; /* drop " seconds": the value carries its unit */
        sts_fmt_duration(m->number * 1e9, d, sizeof d);
        sts_rpt_fact(r, f, key, "%s", d);
        return;
    }
    if (m->text) sts_rpt_fact(r, f, key, "%s", m->text);
}

static void check_fact(sts_report *r, sts_rpt_facts *f, const sts_bench_run_doc *run)
{
    if (run->checked < 0) return;
    const char *ref = run->reference;
    sts_rpt_fact(r, f, "check", "%s%s%s",
                 !run->checked      ? "not checked"
                 : run->passed == 1 ? "passed"
                                    : "FAILED",
                 ref && run->checked ? " against " : "", ref && run->checked ? ref : "");
}

static void run_facts(sts_report *r, sts_rpt_section *sec, const sts_bench_run_doc *run, const sts_rpt_bench *bn)
{
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const char *t = fact_text(run, known[i].key);
        if (t) sts_rpt_fact(r, f, known[i].label, "%s", t);
    }
    check_fact(r, f, run);
    char d[48], m[48];
    double median = isfinite(bn->median_ns) ? bn->median_ns : sts_rpt_median(bn->warm_ns, bn->nwarm);
    sts_fmt_duration(bn->first_ns, d, sizeof d);
    sts_fmt_duration(median, m, sizeof m);
    sts_rpt_fact(r, f, "first call", "%s", isfinite(bn->first_ns) ? d : "not recorded");
    sts_rpt_fact(r, f, "warm median", "%s over %zu samples%s", isfinite(median) ? m : "n/a", bn->nwarm,
                 isfinite(bn->median_ns) ? "" : " (computed here)");
    for (size_t i = 0; i < run->nfacts; i++) {
        const sts_bench_fact *mb = &run->facts[i];
        if (is_listed(mb->key) || mb->object) continue;
        if (mb->array && (ends_with(mb->key, "_seconds") || strcmp(mb->key, "warnings") == 0)) continue;
        other_fact(r, f, mb);
    }
    for (size_t i = 0; i < run->nwarnings && i < 8; i++)
        if (run->warnings[i] && *run->warnings[i]) sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, run->warnings[i]);
}

/* A series in ns, copied into the report (NAN where a sample was not measured). */
static double *nanos(sts_report *r, const sts_bench_series *s)
{
    double *d = sts_rpt_alloc(r, (s->n + 1) * sizeof *d);
    for (size_t i = 0; d && i < s->n; i++)
        d[i] = s->s[i] * 1e9;
    return d;
}

static sts_status add_run(sts_report *r, sts_rpt_section *sec, const sts_bench_run_doc *run, const char *name,
                          sts_error *err)
{
    sts_rpt_bench *bn = sts_rpt_alloc(r, sizeof *bn);
    if (!bn) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    bn->label = run_label(r, run);
    bn->first_ns = run->first_call_s * 1e9;
    bn->median_ns = run->warm_median_s * 1e9;
    bn->warm_ns = nanos(r, &run->warm);
    bn->nwarm = run->warm.n;
    bn->device_ns = nanos(r, &run->device);
    bn->ndevice = run->device.measured ? run->device.n : 0; /* no device timestamps: no series, no legend entry */
    /* Dispatch-only: its median when given, else one interval or the median of a list. */
    bn->dispatch_ns = run->dispatch_median_s * 1e9;
    double *dispatch = nanos(r, &run->dispatch);
    if (!bn->warm_ns || !bn->device_ns || !dispatch)
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    if (!isfinite(bn->dispatch_ns) && run->dispatch.given)
        bn->dispatch_ns = run->dispatch.scalar ? dispatch[0] : sts_rpt_median(dispatch, run->dispatch.n);
    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, bn->label ? bn->label : "benchmark");
    run_facts(r, sec, run, bn);
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_BENCH, "fig-bench", bn, HOW_BENCH))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    return STS_OK;
}

static void environment_facts(sts_report *r, sts_rpt_section *sec, const sts_bench_doc *doc)
{
    if (!doc->has_env) return;
    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Machine");
    static const struct {
        const char *key, *label;
    } keys[] = { { "cpu_model", "CPU" }, { "cpu_count", "CPUs" },    { "cpu_governor", "CPU governor" },
                 { "os", "OS" },         { "compiler", "compiler" }, { "timestamp", "measured at" } };
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const sts_bench_fact *t = sts_bench_fact_get(doc->env, doc->nenv, keys[i].key);
        if (t && t->text && *t->text) sts_rpt_fact(r, f, keys[i].label, "%s", t->text);
    }
    const char *dev = doc->opencl_device;
    if (dev) {
        const char *type = doc->opencl_type ? doc->opencl_type : "";
        const char *drv = doc->opencl_driver ? doc->opencl_driver : "";
        sts_rpt_fact(r, f, "OpenCL device", "%s%s%s%s", dev, *type ? " (" : "", type, *type ? ")" : "");
        if (*drv) sts_rpt_fact(r, f, "driver", "%s", drv);
    }
}

sts_status sts_report_add_bench_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err)
{
    if (!r || !text) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no text given");
    name = name ? name : "(bench json)";
    sts_bench_doc *doc = NULL;
    sts_status st = sts_bench_read_json(text, len, name, &doc, err);
    if (st != STS_OK) return st;
    sts_rpt_section *sec = sts_rpt_section_new(r, "bench", "Benchmark: first call and warm calls", name);
    if (!sec) st = sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    if (st == STS_OK) environment_facts(r, sec, doc);
    for (size_t i = 0; st == STS_OK && i < doc->nruns && i < MAX_RUNS; i++)
        st = add_run(r, sec, &doc->runs[i], name, err);
    sts_bench_doc_free(doc);
    if (st == STS_OK) sts_rpt_section_commit(r, sec);
    return st;
}
