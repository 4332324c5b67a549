/* The lesson demos run by `stepscope demo`; one file each (demo_<lesson>.c). */
#ifndef STS_PROGRAMS_DEMO_H
#define STS_PROGRAMS_DEMO_H

#include "stepscope/status.h"

typedef struct demo_ctx {
    const char *out_dir; /* existing directory for reports and traces */
    int json;            /* also print JSON reports */
} demo_ctx;

/* Each returns a CLI exit code and prints its own results. */
int demo_bench(const demo_ctx *ctx);
int demo_retrace(const demo_ctx *ctx);
int demo_trace(const demo_ctx *ctx);
int demo_diff(const demo_ctx *ctx);
int demo_report(const demo_ctx *ctx);

/* OUT/DEMO_TRACE_RUN_FILE names the run `demo trace` wrote (one line, relative to OUT),
 * so `demo report` shows that run, not the latest by name (another host's, a copied
 * one). Written whole or not at all (report.c). */
#define DEMO_TRACE_RUN_FILE "trace_run.txt"
sts_status demo_note_trace_run(const char *out_dir, const char *run_path, sts_error *err);

#endif
