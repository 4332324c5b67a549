/* `stepscope diff BASE NEW [--expect PREDICTION]... [--json]`: two traces, two bench
 * results or two ledgers compared, and each prediction judged held, failed or
 * inconclusive. Exit status: 0 every prediction held (or none given), 3 some failed,
 * 4 some inconclusive and none failed, 1 bad input, 2 usage. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_cli.h"

/* Bench results and ledgers are small; a bigger file is refused rather than read whole. */
#define MAX_RESULT_BYTES (64L * 1024 * 1024)

typedef struct input {
    const char *path;
    sts_report_input kind;
    sts_timeline *tl;
    char *text;
    size_t len;
} input;

static int read_all(const char *path, char **text, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return cli_fail(CLI_BAD_INPUT, "diff: %s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int rc = buf ? CLI_OK : cli_fail(CLI_BAD_INPUT, "diff: out of memory");
    while (rc == CLI_OK) {
        if (n == cap) {
            char *more = cap < (size_t)MAX_RESULT_BYTES ? realloc(buf, cap * 2) : NULL;
            if (!more) {
                rc = cli_fail(CLI_BAD_INPUT, "diff: %s: larger than %ld bytes: not a bench result or ledger", path,
                              MAX_RESULT_BYTES);
                break;
            }
            buf = more;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) rc = cli_fail(CLI_BAD_INPUT, "diff: %s: read error: %s", path, strerror(errno));
            break;
        }
    }
    if (f != stdin) fclose(f);
    if (rc != CLI_OK) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return CLI_OK;
}

static int load(input *in)
{
    sts_error err = STS_ERROR_INIT;
    /* Recognizing the kind reads the start of the input, so a pipe could not be read again. */
    if (strcmp(in->path, "-") == 0) return cli_fail(CLI_USAGE, "diff: give two files or directories, not '-'");
    if (sts_report_detect(in->path, &in->kind, &err) != STS_OK) return cli_report("diff", &err);
    if (in->kind == STS_REPORT_INPUT_DIFF)
        return cli_fail(CLI_USAGE, "diff: %s is a diff result; compare two traces, two bench results or two ledgers",
                        in->path);
    if (in->kind == STS_REPORT_INPUT_TRACE) return CLI_OK; /* opened after both kinds agree */
    return read_all(in->path, &in->text, &in->len);
}

static int build(input *in, const sts_diff_options *opt, sts_diff **d)
{
    sts_error err = STS_ERROR_INIT;
    sts_status st;
    switch (in[0].kind) {
    case STS_REPORT_INPUT_BENCH:
        st = sts_diff_bench_json(in[0].text, in[0].len, in[0].path, in[1].text, in[1].len, in[1].path, opt, d, &err);
        break;
    case STS_REPORT_INPUT_LEDGER:
        st = sts_diff_ledger_json(in[0].text, in[0].len, in[0].path, in[1].text, in[1].len, in[1].path, opt, d, &err);
        break;
    default:
        for (int i = 0; i < 2; i++) {
            tc_read_opts ro = TC_READ_OPTS_INIT;
            ro.args_flags = STS_ARGS_WITH_MEMORY; /* for the row memory.peak; few events carry these keys */
            int rc = tc_open("diff", in[i].path, NULL, NULL, &ro, &in[i].tl);
            if (rc != CLI_OK) return rc;
        }
        st = sts_diff_timelines(in[0].tl, in[1].tl, opt, d, &err);
        break;
    }
    return st == STS_OK ? CLI_OK : cli_report("diff", &err);
}

static int judge(sts_diff *d, const cli_list *expect)
{
    for (int i = 0; i < expect->n; i++) {
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_diff_expect(d, expect->v[i], &err);
        if (st == STS_ERR_NOT_FOUND || st == STS_ERR_INVALID_ARG) return cli_fail(CLI_USAGE, "diff: %s", err.message);
        if (st != STS_OK) return cli_report("diff", &err);
    }
    return CLI_OK;
}

int cmd_diff(int argc, char **argv)
{
    static cli_list expect, pair_lanes, pairs;
    static int json, top = 20, allow_contract;
    static const char *step;
    static double margin = 5.0, confidence = 0.95;
    static const cli_opt opts[] = {
        { "expect", CLI_MULTI, &expect, "PREDICTION",
          "NAME:shrink, NAME:grow or NAME:same, optionally sized: NAME:shrink>=20%, NAME:same<=5% (repeatable)" },
        { "json", CLI_FLAG, &json, NULL, "print JSON (schema stepscope.diff/1, docs/diff.md)" },
        { "step", CLI_STRING, &step, "NAME|REGEX", "traces: the step slices (default: detected, as in `steps`)" },
        { "margin", CLI_DOUBLE, &margin, "PCT", "a change (NEW / BASE - 1) within +-PCT% is 'same' (default 5)" },
        { "confidence", CLI_DOUBLE, &confidence, "C", "of the intervals; the tests' level is 1 - C (default 0.95)" },
        { "top", CLI_INT, &top, "N", "text: show the first N other interval names (default 20, 0 = all)" },
        { "pair-lanes", CLI_MULTI, &pair_lanes, "A=B",
          "traces: compare NEW's lane B as BASE's lane A, named as the rows name lanes (\"python / worker\"); "
          "lanes match by name without random per-process ids anyway (repeatable)" },
        { "pair", CLI_MULTI, &pairs, "A=B",
          "bench: compare NEW's workload B as BASE's workload A (default: by name, and one workload each "
          "pair whatever their names) (repeatable)" },
        { "allow-contract-change", CLI_FLAG, &allow_contract, NULL,
          "bench: compare workloads whose shapes or dtypes differ (a note) instead of refusing them" },
        { 0 },
    };
    static const cli_spec spec = {
        "diff",
        "BASE NEW [--expect PREDICTION]... [--json] [--step NAME] [--margin PCT] [--confidence C]\n"
        "       [--pair-lanes A=B]... [--pair A=B]... [--allow-contract-change]",
        "Compare two runs: two traces (any format stepscope reads), two `bench --json` results or\n"
        "two ledgers (`ledger --json`), recognized by content. Per interval: both runs' samples\n"
        "(per step for traces), their medians, the change in percent with a confidence interval\n"
        "(NEW / BASE - 1, Hodges-Lehmann on log durations), a two-sided Mann-Whitney p-value\n"
        "(exact for small samples without ties, else normal with tie correction) and a verdict:\n"
        "shrank, grew, same (within the margin) or inconclusive (with the steps that would decide).\n"
        "Each --expect is judged held, failed or inconclusive with its reason.\n"
        "NAME is a row's key: a step child or interval name, `step`, `unattributed`; a bench\n"
        "workload (`W`, `W.first_call`, `W.device`, `W.dispatch`); a ledger function (`F` =\n"
        "its compiles, `F.specializations`, `F.traces`, `F.compile_time`) or host-sync scope\n"
        "(`S` = its waits, `S.syncs`). Bench workloads whose shapes or dtypes differ (any `*_shape`,\n"
        "`dtype` or `*_dtype` member) time another problem: refused (exit 1) unless\n"
        "--allow-contract-change. See docs/diff.md.\n"
        "exit status: 0 all predictions held (or none given), 3 some failed, 4 some inconclusive\n"
        "and none failed",
        opts,
        2,
        2,
    };
    const char *pos[2];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    if (top < 0) return cli_fail(CLI_USAGE, "diff: --top must be 0 or more");
    sts_diff_options opt = STS_DIFF_OPTIONS_INIT;
    opt.margin_pct = margin;
    opt.confidence = confidence;
    opt.step = step;
    opt.pair_lanes = pair_lanes.v;
    opt.npair_lanes = (size_t)pair_lanes.n;
    opt.pairs = pairs.v;
    opt.npairs = (size_t)pairs.n;
    opt.allow_contract_change = allow_contract;
    sts_error err = STS_ERROR_INIT;
    sts_diff_stats probe;
    if (sts_diff_samples(NULL, 0, NULL, 0, &opt, &probe, &err) != STS_OK) return cli_fail(CLI_USAGE, "%s", err.message);
    for (int i = 0; i < expect.n; i++)
        if (sts_diff_expect_check(expect.v[i], &err) != STS_OK) return cli_fail(CLI_USAGE, "diff: %s", err.message);

    input in[2] = { { pos[0], STS_REPORT_INPUT_UNKNOWN, NULL, NULL, 0 },
                    { pos[1], STS_REPORT_INPUT_UNKNOWN, NULL, NULL, 0 } };
    sts_diff *d = NULL;
    rc = load(&in[0]);
    if (rc == CLI_OK) rc = load(&in[1]);
    if (rc == CLI_OK && in[0].kind != in[1].kind)
        rc = cli_fail(CLI_USAGE, "diff: %s is a %s but %s is a %s: compare two of the same kind", in[0].path,
                      sts_report_input_name(in[0].kind), in[1].path, sts_report_input_name(in[1].kind));
    if (rc == CLI_OK) rc = build(in, &opt, &d);
    if (rc == CLI_OK) rc = judge(d, &expect);
    if (rc == CLI_OK) {
        if (json) {
            if (sts_diff_write_json(d, stdout, &err) != STS_OK) rc = cli_report("diff", &err);
        } else {
            sts_diff_print(d, stdout, (size_t)top);
            rc = cli_stdout_check("diff"); /* before the verdict's status, which would hide it */
        }
        if (rc == CLI_OK) rc = sts_diff_exit_status(d);
    }
    sts_diff_free(d);
    for (int i = 0; i < 2; i++) {
        sts_timeline_free(in[i].tl);
        free(in[i].text);
    }
    return rc;
}
