/* libFuzzer target: bytes as the NEW side of a bench diff and of a ledger diff (against
 * fixed valid BASE documents, and as BASE against them), then as a diff result for the
 * report. Whatever the bytes: a failure has a message and no diff; a success holds only
 * rows whose shift lies in its interval, whose p lies in [0, 1], and whose JSON and
 * text outputs can be written; the report adds a diff section or nothing; a diff read
 * back (sts_diff_read_json()) and written reads and writes again to the same bytes. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope/diff.h"
#include "stepscope/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char BENCH[] = "{\"name\":\"w\",\"first_call_seconds\":0.5,\"warm_samples_seconds\":[1e-3,2e-3,3e-3,4e-3],"
                            "\"variants\":{\"v\":{\"name\":\"v\",\"warm_samples_seconds\":[1e-6]}}}";
static const char LEDGER[] = "{\"functions\":[{\"name\":\"f\",\"compiles\":3,\"specializations\":3,\"traces\":null}],"
                             "\"rows\":[{\"function\":\"f\",\"compiles\":1,\"compile_ns\":5}],"
                             "\"host_syncs\":{\"events\":[{\"scope\":\"s\",\"wait_ns\":7}],"
                             "\"scopes\":[{\"scope\":\"s\",\"count\":1}]}}";

static void check(const sts_diff *d)
{
    size_t n;
    const sts_diff_interval *rows = sts_diff_intervals(d, &n);
    for (size_t i = 0; i < n; i++) {
        const sts_diff_stats *s = &rows[i].stats;
        if (!isnan(s->p_value) && !(s->p_value >= 0 && s->p_value <= 1)) __builtin_trap();
        if (!isnan(s->shift_ns) && !isnan(s->ci_low_ns) &&
            !(s->ci_low_ns <= s->shift_ns && s->shift_ns <= s->ci_high_ns))
            __builtin_trap();
        if (!rows[i].key || !rows[i].name) __builtin_trap();
    }
    FILE *f = fopen("/dev/null", "w");
    if (!f) return;
    sts_error err = STS_ERROR_INIT;
    if (sts_diff_write_json(d, f, &err) != STS_OK) __builtin_trap();
    sts_diff_print(d, f, 0);
    fclose(f);
}

typedef sts_status (*differ)(const char *, size_t, const char *, const char *, size_t, const char *,
                             const sts_diff_options *, sts_diff **, sts_error *);

static void one(differ fn, const char *fixed, size_t flen, const char *bytes, size_t n, int fixed_first)
{
    sts_diff *d = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = fixed_first ? fn(fixed, flen, "base", bytes, n, "fuzz", NULL, &d, &err)
                                : fn(bytes, n, "fuzz", fixed, flen, "new", NULL, &d, &err);
    if (st != STS_OK) {
        if (d || err.message[0] == 0) __builtin_trap();
        return;
    }
    check(d);
    sts_error e2 = STS_ERROR_INIT;
    sts_diff_expect(d, "w:shrink", &e2);
    sts_diff_free(d);
}

static char *written(const sts_diff *d, size_t *n)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, n);
    if (!f) return NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_diff_write_json(d, f, &err) != STS_OK) __builtin_trap();
    fclose(f);
    return buf;
}

/* Whatever a read accepts, its writing is a fixed point of reading and writing. */
static void read_back(const char *bytes, size_t size)
{
    sts_diff *d = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_diff_read_json(bytes, size, "fuzz.json", &d, &err) != STS_OK) {
        if (d || err.message[0] == 0) __builtin_trap();
        return;
    }
    size_t n1, n2; /* its numbers are the document's: check() holds for computed diffs only */
    char *t1 = written(d, &n1);
    sts_diff_free(d);
    d = NULL;
    if (!t1) return;
    if (sts_diff_read_json(t1, n1, "again.json", &d, &err) != STS_OK) __builtin_trap();
    char *t2 = written(d, &n2);
    if (t2 && (n1 != n2 || memcmp(t1, t2, n1) != 0)) __builtin_trap();
    free(t1);
    free(t2);
    sts_diff_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *bytes = (const char *)data;
    for (int first = 0; first < 2; first++) {
        one(sts_diff_bench_json, BENCH, sizeof BENCH - 1, bytes, size, first);
        one(sts_diff_ledger_json, LEDGER, sizeof LEDGER - 1, bytes, size, first);
    }
    read_back(bytes, size);
    sts_report *r;
    if (sts_report_create("fuzz", &r) != STS_OK) return 0;
    sts_error err = STS_ERROR_INIT;
    if (sts_report_add_diff_json(r, bytes, size, "fuzz.json", &err) != STS_OK &&
        (sts_report_figure_count(r) != 0 || err.message[0] == 0))
        __builtin_trap();
    char *html;
    size_t n;
    if (sts_report_render(r, &html, &n) == STS_OK) free(html);
    sts_report_free(r);
    return 0;
}
