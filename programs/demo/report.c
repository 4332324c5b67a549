/* The last step of `stepscope demo`: one HTML page from what the lessons and the diff wrote
 * into the output directory. A missing input becomes a visible note, not a failure,
 * so the page still shows what the other lessons produced. */
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"
#include "demo.h"

static int add_input(sts_report *r, const char *dir, const char *name, const char *heading, const char *lesson)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    if (stat(path, &st) != 0) {
        char note[4300];
        snprintf(note, sizeof note, "Skipped: %s was not found (run `stepscope demo %s` to write it).", path, lesson);
        sts_report_add_note(r, heading, note);
        printf("demo report: %s not found, section skipped\n", path);
        return 0;
    }
    sts_error err = STS_ERROR_INIT;
    if (sts_report_add_path(r, path, NULL, &err) != STS_OK) {
        char note[4700];
        snprintf(note, sizeof note, "Skipped: %s could not be read: %s", path, err.message);
        sts_report_add_note(r, heading, note);
        fprintf(stderr, "stepscope demo report: %s\n", err.message);
        return 1;
    }
    return 0;
}

int demo_report(const demo_ctx *ctx)
{
    sts_report *r = NULL;
    if (sts_report_create("stepscope demo: the three lessons", &r) != STS_OK)
        return cli_fail(CLI_BAD_INPUT, "demo report: out of memory");
    int bad = 0;
    bad |= add_input(r, ctx->out_dir, "bench.json", "Lesson 1: benchmark", "bench");
    bad |= add_input(r, ctx->out_dir, "ledger.json", "Lesson 2: ledger", "retrace");
    bad |= add_input(r, ctx->out_dir, "trace", "Lesson 3: trace", "trace");
    bad |= add_input(r, ctx->out_dir, "diff.json", "Lesson 3, made whole: diff", "diff");
    char out[4096];
    snprintf(out, sizeof out, "%s/report.html", ctx->out_dir);
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_report_write_html(r, out, &err);
    sts_report_free(r);
    if (st != STS_OK) return cli_report("demo report", &err);
    printf("demo report: wrote %s\n", out);
    return bad ? CLI_BAD_INPUT : CLI_OK;
}
