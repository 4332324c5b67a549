/* `stepscope demo [bench|retrace|trace|diff|report|all]`: the three lessons end to end,
 * lesson 3 made whole by a diff, then the report; `report` alone rebuilds the page from
 * what earlier runs left in --out. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "demo/demo.h"

int cmd_demo(int argc, char **argv)
{
    static const char *out_dir = "demo-out";
    static int json;
    static const cli_opt opts[] = {
        { "out", CLI_STRING, &out_dir, "DIR", "where to write reports and traces (default demo-out)" },
        { "json", CLI_FLAG, &json, NULL, "also print each lesson's JSON report" },
        { 0 },
    };
    static const cli_spec spec = {
        "demo",
        "[bench|retrace|trace|diff|report|all] [--out DIR]",
        "Run the lessons end to end on the default OpenCL device (PoCL on the CPU):\n"
        "  bench    lesson 1: measure asynchronous work correctly\n"
        "  retrace  lesson 2: specializations, compiles and host syncs in a ledger\n"
        "  trace    lesson 3: capture a trace with steps and read it back\n"
        "  diff     lesson 3 made whole: cut input_wait, record again, judge the predictions\n"
        "  report   only rebuild DIR/report.html from what the others left in DIR\n"
        "           (a lesson whose output is missing becomes a note on the page)\n"
        "  all      all of them, then the report (the default)",
        opts,
        0,
        1,
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    const char *which = npos ? pos[0] : "all";
    static const struct {
        const char *name;
        int (*fn)(const demo_ctx *);
    } demos[] = {
        { "bench", demo_bench }, { "retrace", demo_retrace }, { "trace", demo_trace }, { "diff", demo_diff }
    };
    size_t ndemos = sizeof demos / sizeof demos[0], only = ndemos;
    for (size_t i = 0; i < ndemos; i++)
        if (strcmp(which, demos[i].name) == 0) only = i;
    int all = strcmp(which, "all") == 0, report = strcmp(which, "report") == 0;
    /* Checked before anything is created, so a typo leaves no directory behind. */
    if (only == ndemos && !all && !report) {
        cli_usage(&spec, stderr);
        return CLI_USAGE;
    }
    demo_ctx ctx = { out_dir, json };
    if (report) {
        struct stat st;
        if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return cli_fail(CLI_BAD_INPUT, "demo report: %s is not a directory (run a lesson with --out %s first)",
                            out_dir, out_dir);
        return demo_report(&ctx);
    }
    /* The lessons run on a device; the page alone (above) needs none. */
    if ((rc = cli_need_opencl("demo")) >= 0) return rc;
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) return cli_fail(CLI_BAD_INPUT, "cannot create %s", out_dir);
    for (size_t i = 0; i < ndemos; i++) {
        if (!all && i != only) continue;
        rc = demos[i].fn(&ctx);
        if (rc != 0) return rc;
    }
    return all ? demo_report(&ctx) : CLI_OK;
}
