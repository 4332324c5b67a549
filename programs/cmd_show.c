/* stepscope show: a bench result (stepscope.bench/1, or the Python package's) as a
 * table for people: each workload's first call, warm samples and check. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SHOW_MAX_BYTES (256u << 20) /* a bench document is small; this bounds a wrong file */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_fail(CLI_BAD_INPUT, "show: cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        char *b = cap < SHOW_MAX_BYTES ? realloc(buf, cap * 2) : NULL;
        if (!b) {
            free(buf);
            buf = NULL;
            cli_fail(CLI_BAD_INPUT, "show: %s is larger than %u MB, no bench result", path, SHOW_MAX_BYTES >> 20);
            break;
        }
        buf = b;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
        cli_fail(CLI_BAD_INPUT, "show: cannot read %s", path);
    }
    fclose(f);
    *len = n;
    return buf;
}

/* A time in seconds as stepscope writes durations; "unknown" for NAN. */
static const char *dur(double s, char *buf, size_t cap)
{
    if (isnan(s)) return "unknown";
    sts_fmt_duration(s * 1e9, buf, cap);
    return buf;
}

static void series_range(const sts_bench_series *x, double *lo, double *hi)
{
    *lo = *hi = NAN;
    for (size_t i = 0; i < x->n; i++) {
        if (isnan(x->s[i])) continue;
        if (isnan(*lo) || x->s[i] < *lo) *lo = x->s[i];
        if (isnan(*hi) || x->s[i] > *hi) *hi = x->s[i];
    }
}

static void print_run(const sts_bench_run_doc *r)
{
    char a[32], b[32], c[32], d[32], e[32];
    double lo, hi;
    series_range(&r->warm, &lo, &hi);
    const char *name = r->name ? r->name : r->member ? r->member : r->label ? r->label : "(unnamed)";
    printf("%-24s %10s %10s %10s %10s %5zu %10s  %s\n", name, dur(r->first_call_s, a, sizeof a),
           dur(r->warm_median_s, b, sizeof b), dur(lo, c, sizeof c), dur(hi, d, sizeof d), r->warm.measured,
           dur(r->dispatch_median_s, e, sizeof e),
           r->checked == 1   ? (r->passed == 1   ? "passed"
                                : r->passed == 0 ? "FAILED"
                                                 : "unknown")
           : r->checked == 0 ? "not checked"
                             : "unknown");
    const char *boundary = r->contract[4];
    if (boundary) printf("%24s boundary: %s\n", "", boundary);
    if (r->unstable == 1) printf("%24s unstable: the warm samples spread widely; see the result's warnings\n", "");
    for (size_t w = 0; w < r->nwarnings; w++)
        if (r->warnings[w]) printf("%24s warning: %s\n", "", r->warnings[w]);
}

int cmd_show(int argc, char **argv)
{
    static const cli_opt opts[] = { { 0 } };
    static const cli_spec spec = {
        "show",
        "BENCH.json",
        "Prints a bench result (stepscope bench --json, or stepscope.bench() saved from Python)\n"
        "as a table: per workload its first call, the warm median, min and max, the number of\n"
        "warm samples measured, the dispatch-only median, the check, and its boundary and\n"
        "warnings. What the result does not hold is \"unknown\".",
        opts,
        1,
        1,
    };
    const char *pos[2];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    if (npos != 1) return cli_fail(CLI_USAGE, "show: expects one bench result file, got %d", npos);
    size_t len;
    char *text = read_all(pos[0], &len);
    if (!text) return CLI_BAD_INPUT;
    sts_bench_doc *doc = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_bench_read_json(text, len, pos[0], &doc, &err);
    free(text);
    if (st != STS_OK) return cli_report("show", &err);
    printf("%-24s %10s %10s %10s %10s %5s %10s  %s\n", "workload", "first call", "warm med", "warm min", "warm max",
           "n", "dispatch", "check");
    for (size_t i = 0; i < doc->nruns; i++)
        print_run(&doc->runs[i]);
    if (doc->opencl_device) printf("device: %s\n", doc->opencl_device);
    sts_bench_doc_free(doc);
    return CLI_OK;
}
