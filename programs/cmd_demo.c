/* `stepscope demo [bench|retrace|trace]`: the three lessons end to end, then the report. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "demo.h"

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
        "demo", "[bench|retrace|trace|all] [--out DIR]",
        "Run the lessons end to end on the default OpenCL device (PoCL on the CPU):\n"
        "  bench    lesson 1: measure asynchronous work correctly\n"
        "  retrace  lesson 2: specializations, compiles and host syncs in a ledger\n"
        "  trace    lesson 3: capture a trace with steps and read it back\n"
        "  all      all three, then an HTML report (the default)",
        opts, 0, 1,
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    const char *which = npos ? pos[0] : "all";
    demo_ctx ctx = { out_dir, json };
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) return cli_fail(CLI_BAD_INPUT, "cannot create %s", out_dir);
    static const struct {
        const char *name;
        int (*fn)(const demo_ctx *);
    } demos[] = { { "bench", demo_bench }, { "retrace", demo_retrace }, { "trace", demo_trace } };
    int all = strcmp(which, "all") == 0, found = 0;
    for (size_t i = 0; i < sizeof demos / sizeof demos[0]; i++) {
        if (!all && strcmp(which, demos[i].name) != 0) continue;
        found = 1;
        rc = demos[i].fn(&ctx);
        if (rc != 0) return rc;
    }
    if (!found) {
        cli_usage(&spec, stderr);
        return CLI_USAGE;
    }
    if (all) return demo_report(&ctx);
    return CLI_OK;
}
