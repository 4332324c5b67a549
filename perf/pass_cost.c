/* perf/pass_cost: the CPU time of each analysis pass over one read trace, so that a pass
 * the command line cannot run alone (the host syncs, which every `steps` runs) is still
 * weighed against the read and the steps it rides on (issue 33 item 5).
 *
 *   pass_cost TRACE [REPEATS]
 *
 * Reads TRACE once on one thread, keeping what every pass reads (the analysis args, the
 * memory args, flows), then times each pass REPEATS times (default 5) and prints the
 * least process CPU time of each, one "name seconds" line per pass: read, steps,
 * host_syncs, device, critical_path (its graph, the device view it needs included),
 * what_if_top20, memory. A pass that fails prints its error and the program exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stepscope/analyze.h"
#include "stepscope/critpath.h"
#include "stepscope/devview.h"
#include "stepscope/hostsync.h"
#include "stepscope/memory.h"
#include "stepscope/timeline.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct ctx {
    const sts_timeline *tl;
    sts_steps *steps;
    sts_devview *dv;
    sts_critpath *cp;
} ctx;

static int fail(const char *what, const sts_error *err)
{
    fprintf(stderr, "pass_cost: %s: %s\n", what, err->message);
    return -1;
}

static int run_steps(ctx *c)
{
    sts_error err = STS_ERROR_INIT;
    sts_step_options o = STS_STEP_OPTIONS_INIT;
    sts_steps *s = NULL;
    if (sts_steps_find(c->tl, &o, &s, &err) != STS_OK) return fail("steps", &err);
    sts_steps_free(s);
    return 0;
}

static int run_syncs(ctx *c)
{
    sts_error err = STS_ERROR_INIT;
    sts_host_syncs *h = NULL;
    if (sts_host_syncs_find(c->tl, c->steps, &h, &err) != STS_OK) return fail("host syncs", &err);
    sts_host_syncs_free(h);
    return 0;
}

static int run_device(ctx *c)
{
    sts_error err = STS_ERROR_INIT;
    sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
    o.steps = c->steps;
    sts_devview *v = NULL;
    if (sts_devview_compute(c->tl, &o, &v, &err) != STS_OK) return fail("device view", &err);
    sts_devview_free(v);
    return 0;
}

static int run_critpath(ctx *c)
{
    sts_error err = STS_ERROR_INIT;
    sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
    o.steps = c->steps;
    sts_devview *v = NULL;
    sts_critpath *cp = NULL;
    if (sts_devview_compute(c->tl, &o, &v, &err) != STS_OK) return fail("device view", &err);
    sts_status st = sts_critpath_compute(c->tl, c->steps, v, &cp, &err);
    sts_devview_free(v);
    if (st != STS_OK) return fail("critical path", &err);
    sts_critpath_free(cp);
    return 0;
}

static int run_what_if(ctx *c)
{
    (void)sts_critpath_what_if_top(c->cp, 20);
    return 0;
}

static int run_memory(ctx *c)
{
    sts_error err = STS_ERROR_INIT;
    sts_memory_options o = STS_MEMORY_OPTIONS_INIT;
    o.steps = c->steps;
    sts_memory *m = NULL;
    if (sts_memory_find(c->tl, &o, &m, &err) != STS_OK) return fail("memory", &err);
    sts_memory_free(m);
    return 0;
}

/* The least CPU seconds of `repeats` runs of fn, or -1 when it failed. */
static double least(ctx *c, int (*fn)(ctx *), int repeats)
{
    double best = -1;
    for (int i = 0; i < repeats; i++) {
        double t0 = cpu_now();
        if (fn(c) != 0) return -1;
        double t = cpu_now() - t0;
        if (best < 0 || t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: pass_cost TRACE [REPEATS]\n");
        return 2;
    }
    int repeats = argc == 3 ? atoi(argv[2]) : 5;
    if (repeats < 1) repeats = 1;
    sts_open_options oo = STS_OPEN_OPTIONS_INIT;
    oo.args = (sts_args_mode)(STS_ARGS_ANALYSIS | STS_ARGS_WITH_MEMORY);
    oo.flows = STS_FLOWS_KEEP;
    oo.jobs = 1;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    double t0 = cpu_now();
    if (sts_timeline_open(argv[1], &oo, &tl, &err) != STS_OK) {
        fprintf(stderr, "pass_cost: %s\n", err.message);
        return 1;
    }
    printf("read %.4f\n", cpu_now() - t0);
    ctx c = { tl, NULL, NULL, NULL };
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    sts_devview_options vo = STS_DEVVIEW_OPTIONS_INIT;
    int rc = 0;
    if (sts_steps_find(tl, &so, &c.steps, &err) != STS_OK) {
        rc = fail("steps", &err);
    } else {
        vo.steps = c.steps;
        if (sts_devview_compute(tl, &vo, &c.dv, &err) != STS_OK || sts_critpath_compute(tl, c.steps, c.dv, &c.cp, &err))
            rc = fail("critical path", &err);
    }
    static const struct {
        const char *name;
        int (*fn)(ctx *);
    } passes[] = { { "steps", run_steps },           { "host_syncs", run_syncs },
                   { "device", run_device },         { "critical_path", run_critpath },
                   { "what_if_top20", run_what_if }, { "memory", run_memory } };
    for (size_t i = 0; rc == 0 && i < sizeof passes / sizeof passes[0]; i++) {
        /* top=20 keeps its predictions in the handle: once, on a handle of its own. */
        double t = least(&c, passes[i].fn, passes[i].fn == run_what_if ? 1 : repeats);
        if (t < 0)
            rc = -1;
        else
            printf("%s %.4f\n", passes[i].name, t);
    }
    sts_critpath_free(c.cp);
    sts_devview_free(c.dv);
    sts_steps_free(c.steps);
    sts_timeline_free(tl);
    return rc ? 1 : 0;
}
