/* bench: the human-readable table of one run. */
#include <math.h>
#include <stdio.h>

#include "stepscope/bench.h"
#include "stepscope/format.h"

/* A duration (rule in stepscope/format.h), returned for use as a printf argument. */
static const char *fmt_time(char *buf, size_t cap, double ns)
{
    sts_fmt_duration(ns, buf, cap);
    return buf;
}

/* The harness's device timings are -1 when the device gave none. */
static double known(int64_t ns)
{
    return ns < 0 ? NAN : (double)ns;
}

static void print_shape(FILE *f, const sts_bench_shape *s)
{
    fprintf(f, " %s [", s->key);
    for (int i = 0; i < s->ndim; i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)s->dims[i]);
    fprintf(f, "]");
}

static void print_samples(FILE *f, const sts_bench_result *r)
{
    char a[32], b[32], c[32];
    fprintf(f, "  warm samples (%zu synchronized, after %d untimed warmup call%s):\n", r->nsamples, r->warmup,
            r->warmup == 1 ? "" : "s");
    fprintf(f, "    %4s  %12s  %12s  %14s\n", "#", "host", "device", "host overhead");
    for (size_t i = 0; i < r->nsamples; i++) {
        int64_t d = r->device_ns[i];
        fmt_time(a, sizeof a, (double)r->samples_ns[i]);
        fmt_time(b, sizeof b, known(d));
        fmt_time(c, sizeof c, d < 0 ? NAN : (double)(r->samples_ns[i] - d));
        fprintf(f, "    %4zu  %*s  %*s  %*s%s\n", i + 1, sts_fmt_field(a, 12), a, sts_fmt_field(b, 12), b,
                sts_fmt_field(c, 14), c, r->outlier[i] ? "  outlier" : "");
    }
}

static void print_stats(FILE *f, const sts_bench_result *r)
{
    char a[32], b[32], c[32], d[32], e[32], g[32];
    const sts_stats *s = &r->stats;
    fprintf(f, "  warm        min %s  median %s  mean %s  max %s\n", fmt_time(a, sizeof a, s->min),
            fmt_time(b, sizeof b, s->median), fmt_time(c, sizeof c, s->mean), fmt_time(d, sizeof d, s->max));
    fprintf(f, "              stddev %s  MAD %s  CV %.1f%%  outliers %zu\n", fmt_time(e, sizeof e, s->stddev),
            fmt_time(g, sizeof g, s->mad), s->cv * 100, s->outliers);
    if (r->device_stats.n)
        fprintf(f,
                "  device      median %s (OpenCL profiling, first kernel start to last end); host overhead "
                "median %s\n",
                fmt_time(a, sizeof a, r->device_stats.median), fmt_time(b, sizeof b, r->overhead_stats.median));
    fprintf(f, "  first call / warm median = %.1fx\n", sts_bench_first_to_warm_ratio(r));
    if (r->dispatch_stats.n)
        fprintf(f, "  dispatch-only median %s over %zu (call returned a handle, no wait: not the cost of the work)\n",
                fmt_time(a, sizeof a, r->dispatch_stats.median), r->dispatch_stats.n);
}

static void print_check(FILE *f, const sts_bench_check *c)
{
    if (!c->checked) {
        fprintf(f, "  check       none\n");
        return;
    }
    fprintf(f, "  check       %s: max abs error %.3g (atol %g, rtol %g; host reference, double accumulation)\n",
            c->passed ? "passed" : "FAILED", c->max_abs_error, c->atol, c->rtol);
    for (size_t i = 0; i < c->nleaves && (c->nleaves > 1 || !c->passed); i++) {
        const sts_check_leaf *l = &c->leaves[i];
        fprintf(f, "              %-10s %zu values, %zu mismatches, max abs error %.3g", l->name, l->count,
                l->mismatches, l->max_abs_error);
        if (l->mismatches) fprintf(f, " (value %zu: got %.9g, want %.9g)", l->worst_index, l->worst_got, l->worst_want);
        fprintf(f, "\n");
    }
}

void sts_bench_print(FILE *f, const sts_bench_result *r)
{
    char a[32], b[32];
    fprintf(f, "%s\n", r->name);
    fprintf(f, "  boundary    %s\n", r->boundary);
    fprintf(f, "  contract   ");
    for (size_t i = 0; i < r->nshapes; i++)
        print_shape(f, &r->shapes[i]);
    fprintf(f, " %s\n", r->dtype);
    fprintf(f, "  first call  %s (device %s), timed apart from the warm calls\n",
            fmt_time(a, sizeof a, (double)r->first_call_ns), fmt_time(b, sizeof b, known(r->first_device_ns)));
    print_samples(f, r);
    print_stats(f, r);
    print_check(f, &r->check);
    if (r->warning[0]) fprintf(f, "  warning     %s\n", r->warning);
    for (size_t i = 0; i < r->nnotes; i++)
        fprintf(f, "  warning     %s\n", r->notes[i]);
}
