/* `stepscope report INPUT... -o report.html`: one self-contained HTML page (and, with
 * --svg, one SVG file per figure) from traces, bench JSON and ledger JSON. */
#include <string.h>

#include "cli.h"

#define MAX_INPUTS 64

int cmd_report(int argc, char **argv)
{
    static const char *out, *svg_dir, *title;
    static const cli_opt opts[] = {
        { "out", CLI_STRING, &out, "FILE", "the HTML file to write (also -o FILE; \"-\" = standard output)" },
        { "svg", CLI_STRING, &svg_dir, "DIR", "also write each figure as DIR/<figure id>.svg" },
        { "title", CLI_STRING, &title, "TEXT", "the page title (default \"stepscope report\")" },
        { 0 },
    };
    static const cli_spec spec = {
        "report",
        "INPUT... -o FILE [--svg DIR] [--title TEXT]",
        "Write a self-contained HTML report: no network, no scripts, figures as inline SVG.\n"
        "Each INPUT is recognized by its content:\n"
        "  a trace (Chrome JSON, .json.gz, .xplane.pb or a profile directory): per-step stacked\n"
        "    bars, each device's time, each step's critical path by kind and the what-if of\n"
        "    halving its top names, device memory over time with the step boundaries, the\n"
        "    lane timeline of the busiest window, names by self time;\n"
        "  `stepscope bench --json` output: first call and warm samples, two panels;\n"
        "  `stepscope ledger --json` output: traces and compiles per call, compile time per\n"
        "    function, host waits per scope;\n"
        "  `stepscope diff --json` output: the predictions and a before/after figure.\n"
        "See docs/report.md for how to read each figure.",
        opts,
        1,
        MAX_INPUTS,
    };
    /* The shared parser knows only long options: accept the customary -o as --out. */
    char *args[MAX_INPUTS + 16];
    if (argc > (int)(sizeof args / sizeof args[0]))
        return cli_fail(CLI_USAGE, "report: too many arguments (at most %d inputs)", MAX_INPUTS);
    static char long_out[] = "--out";
    for (int i = 0; i < argc; i++)
        args[i] = i > 0 && strcmp(argv[i], "-o") == 0 ? long_out : argv[i];
    const char *pos[MAX_INPUTS];
    int npos;
    int rc = cli_parse(&spec, argc, args, pos, &npos);
    if (rc >= 0) return rc;
    if (!out) {
        cli_say(stderr, "stepscope report: missing -o FILE (where to write the HTML)\n");
        cli_usage(&spec, stderr);
        return CLI_USAGE;
    }
    sts_report *r = NULL;
    if (sts_report_create(title, &r) != STS_OK) return cli_fail(CLI_BAD_INPUT, "report: out of memory");
    sts_error err = STS_ERROR_INIT;
    for (int i = 0; i < npos; i++) {
        sts_report_input kind;
        if (sts_report_add_path(r, pos[i], &kind, &err) != STS_OK) {
            sts_report_free(r);
            return cli_report("report", &err);
        }
        cli_say(stderr, "report: %s: read as %s\n", pos[i], sts_report_input_name(kind));
    }
    if (sts_report_write_html(r, out, &err) != STS_OK) {
        sts_report_free(r);
        return cli_report("report", &err);
    }
    size_t nfig = sts_report_figure_count(r), nsvg = 0;
    if (svg_dir && sts_report_write_svgs(r, svg_dir, &nsvg, &err) != STS_OK) {
        sts_report_free(r);
        return cli_report("report", &err);
    }
    sts_report_free(r);
    if (strcmp(out, "-") != 0) printf("wrote %s (%zu figure%s)\n", out, nfig, nfig == 1 ? "" : "s");
    if (svg_dir) printf("wrote %zu SVG file%s to %s/\n", nsvg, nsvg == 1 ? "" : "s", svg_dir);
    return CLI_OK;
}
