/* The lesson demos run by `stepscope demo`; one file each (demo_<lesson>.c). */
#ifndef STS_PROGRAMS_DEMO_H
#define STS_PROGRAMS_DEMO_H

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

#endif
