/* The last step of `stepscope demo`: one HTML page from what the lessons and the diff wrote
 * into the output directory. A missing input becomes a visible note, not a failure,
 * so the page still shows what the other lessons produced. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "demo.h"
#include "stepscope/outfile.h"

#define TRACE_HEADING "Lesson 3: trace"

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

sts_status demo_note_trace_run(const char *out_dir, const char *run_path, sts_error *err)
{
    /* Relative to OUT when it lies there, so the note survives moving OUT. */
    size_t n = strlen(out_dir);
    const char *rel = NULL;
    if (n && strncmp(run_path, out_dir, n) == 0 && (run_path[n] == '/' || out_dir[n - 1] == '/'))
        rel = run_path + n + (run_path[n] == '/');
    char abs[PATH_MAX];
    if (!rel) rel = realpath(run_path, abs) ? abs : run_path;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out_dir, DEMO_TRACE_RUN_FILE);
    sts_outfile *f = NULL;
    sts_status st = sts_outfile_open(path, &f, err);
    if (st != STS_OK) return st;
    fprintf(sts_outfile_stream(f), "%s\n", rel);
    return sts_outfile_commit(f, err);
}

/* Reads OUT/trace_run.txt into run[cap] (relative to OUT unless absolute). 1 when read,
 * 0 when there is none, -1 (with a message in why[]) when it cannot be used. */
static int noted_trace_run(const char *out_dir, char *run, size_t cap, char *why, size_t why_cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out_dir, DEMO_TRACE_RUN_FILE);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t len = fread(run, 1, cap - 1, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    run[len] = 0;
    if (len && run[len - 1] == '\n') run[--len] = 0;
    if (more || len == 0 || strlen(run) != len || strchr(run, '\n')) {
        snprintf(why, why_cap,
                 "%s: expected one line naming the run `stepscope demo trace` wrote (a path relative to %s), "
                 "found %s",
                 path, out_dir,
                 more                 ? "more than fits a path"
                 : len == 0           ? "an empty file"
                 : strlen(run) != len ? "a NUL byte"
                                      : "more than one line");
        return -1;
    }
    return 1;
}

/* The trace section: the run demo trace noted, or (no note) the latest run by name,
 * said on the terminal and on the page. */
static int add_trace(sts_report *r, const char *out_dir)
{
    char run[4096], why[4400];
    int noted = noted_trace_run(out_dir, run, sizeof run, why, sizeof why);
    if (noted < 0) {
        char note[4500];
        snprintf(note, sizeof note, "Skipped: %s", why);
        sts_report_add_note(r, TRACE_HEADING, note);
        fprintf(stderr, "stepscope demo report: %s\n", why);
        return 1;
    }
    if (noted) {
        int absolute = run[0] == '/';
        printf("demo report: trace run %s%s%s (noted by demo trace)\n", absolute ? "" : out_dir, absolute ? "" : "/",
               run);
        return absolute ? add_input(r, "", run + 1, TRACE_HEADING, "trace")
                        : add_input(r, out_dir, run, TRACE_HEADING, "trace");
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/trace", out_dir);
    struct stat st;
    if (stat(dir, &st) == 0) {
        char note[8400];
        snprintf(note, sizeof note,
                 "%s/%s not found (`stepscope demo trace` writes it): showing the latest run by name under %s, "
                 "which may not be the one demo trace wrote.",
                 out_dir, DEMO_TRACE_RUN_FILE, dir);
        printf("demo report: %s\n", note);
        sts_report_add_note(r, TRACE_HEADING, note);
    }
    return add_input(r, out_dir, "trace", TRACE_HEADING, "trace");
}

int demo_report(const demo_ctx *ctx)
{
    sts_report *r = NULL;
    if (sts_report_create("stepscope demo: the three lessons", &r) != STS_OK)
        return cli_fail(CLI_BAD_INPUT, "demo report: out of memory");
    int bad = 0;
    bad |= add_input(r, ctx->out_dir, "bench.json", "Lesson 1: benchmark", "bench");
    bad |= add_input(r, ctx->out_dir, "ledger.json", "Lesson 2: ledger", "retrace");
    bad |= add_trace(r, ctx->out_dir);
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
