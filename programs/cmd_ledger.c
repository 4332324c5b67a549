/* `stepscope ledger LOGFILE...`: JAX and PyTorch compile logs turned into a
 * specialization ledger (docs/ledger.md). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define MAX_LOGS 256

static void print_warnings(const sts_ledger *l)
{
    size_t n = sts_ledger_warning_count(l);
    for (size_t i = 0; i < n; i++)
        cli_warn_text("ledger", sts_ledger_warning(l, i));
    long long all = (long long)sts_ledger_log_stats(l).warnings;
    if (all > (long long)n) cli_say(stderr, "stepscope ledger: warning: ... and %lld more\n", all - (long long)n);
}

int cmd_ledger(int argc, char **argv)
{
    static int json, csv;
    static const cli_opt opts[] = {
        { "json", CLI_FLAG, &json, NULL, "print the ledger as JSON (schema in docs/ledger.md)" },
        { "csv", CLI_FLAG, &csv, NULL, "print one CSV row per specialization" },
        { 0 },
    };
    static const cli_spec spec = {
        "ledger",
        "LOGFILE... [--json | --csv]",
        "Reads compile logs and prints, per function: traces, compiles, total and largest\n"
        "compile time, the distinct signatures, cache-miss reasons grouped by kind (shape,\n"
        "dtype, static argument, weak type, pytree, context) and a churn diagnosis naming\n"
        "the signature component that varies.\n"
        "Understood: JAX_LOG_COMPILES=1 / jax_log_compiles (JAX 0.4.1 to 0.11),\n"
        "jax_explain_cache_misses, TORCH_LOGS=recompiles / recompiles_verbose and the\n"
        "dynamo recompile-limit warning, with Python, absl, JAX or torch line prefixes;\n"
        "TORCH_TRACE structured logs (a directory of dedicated_log_torch_trace_*.log, as\n"
        "TORCH_TRACE=DIR writes them, or one such file): every compile with its id and\n"
        "times, graph breaks with their site and reason, recompile-limit refusals.\n"
        "JAX and PyTorch write these logs to standard error: capture them with\n"
        "'2> compile.log'. Files may be gzip-compressed; '-' reads standard input; input\n"
        "is streamed, and a line longer than 1 MiB is skipped with a warning. Lines\n"
        "starting with '#' are comments. Unknown lines are counted and skipped; a line\n"
        "that begins like a known message but does not parse is a warning naming FILE:LINE.\n"
        "A log cannot tell how many calls reused a specialization or how long the host\n"
        "waited: those are printed as unknown (null in --json), never as 0.\n"
        "Exit status 1 when a file cannot be read, holds binary data, or no file holds a\n"
        "known record.",
        opts,
        1,
        MAX_LOGS,
    };
    json = csv = 0;
    const char *pos[MAX_LOGS];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    if (json && csv) return cli_fail(CLI_USAGE, "ledger: --json and --csv are exclusive");
    sts_ledger *l = sts_ledger_create();
    if (!l) return cli_fail(CLI_BAD_INPUT, "ledger: out of memory");
    sts_error err = STS_ERROR_INIT;
    for (int i = 0; i < npos; i++) {
        if (sts_ledger_parse_log(l, pos[i], &err) != STS_OK) {
            print_warnings(l);
            sts_ledger_free(l);
            return cli_report("ledger", &err);
        }
    }
    print_warnings(l);
    sts_log_stats st = sts_ledger_log_stats(l);
    if (st.records == 0) {
        fprintf(stderr,
                "stepscope ledger: error: no JAX or PyTorch compile records in %s%s (%lld lines, %lld skipped, "
                "%lld malformed); expected JAX_LOG_COMPILES=1, jax_explain_cache_misses or TORCH_LOGS=recompiles "
                "output, which JAX and PyTorch write to standard error: capture it with '2> compile.log' (standard "
                "output holds only the program's own prints); or TORCH_TRACE=DIR's compilation_metrics records\n",
                strcmp(pos[0], "-") == 0 ? "standard input" : pos[0], npos > 1 ? " and the other files" : "",
                (long long)st.lines, (long long)st.skipped, (long long)st.warnings);
        sts_ledger_free(l);
        return CLI_BAD_INPUT;
    }
    sts_status s = json  ? sts_ledger_write_json(l, stdout, NULL, NULL, &err)
                   : csv ? sts_ledger_write_csv(l, stdout, &err)
                         : sts_ledger_write_text(l, stdout, &err);
    sts_ledger_free(l);
    if (s != STS_OK) return cli_report("ledger", &err);
    return CLI_OK;
}
