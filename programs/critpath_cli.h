/* `steps --critical-path` and `--what-if`: the options and the text (the computation and
 * the JSON are the library's: stepscope/critpath.h). */
#ifndef STS_PROGRAMS_CRITPATH_CLI_H
#define STS_PROGRAMS_CRITPATH_CLI_H

#include "cli.h"
#include "stepscope.h"

typedef struct cp_opts {
    int critical_path; /* --critical-path */
    cli_list what_if;  /* --what-if NAME=FACTOR | top=N */
} cp_opts;

/* clang-format off */
#define CP_OPTS(o) \
    { "critical-path", CLI_FLAG, &(o).critical_path, NULL, "per step, the critical path through host threads, launches, device streams and syncs: its length, share by kind (host, launch, sync_wait, idle, compute, communication, memcpy, memset, device_other) and its longest intervals (docs/critical-path.md)" }, \
    { "what-if", CLI_MULTI, &(o).what_if, "NAME=FACTOR", "with the critical path: replay each step with NAME's durations scaled by FACTOR (0, 0.5, 0.5x, 2x; NAME a slice name, a category such as communication, or an extended regex) and print the predicted step time and an --expect line for diff; top=N ranks the N names whose halving saves most (repeatable)" }
/* clang-format on */

/* Whether the critical path is asked for (--critical-path or any --what-if). */
int cp_wanted(const cp_opts *o);

/* Computes the path (and the view it needs, with the built-in rules when dv is NULL)
 * and every --what-if; what fails is printed as "stepscope CMD: error: ...". Returns
 * CLI_OK with *out set, CLI_USAGE for a what-if that does not parse or names nothing,
 * or CLI_BAD_INPUT. */
int cp_compute(const char *cmd, const cp_opts *o, const sts_timeline *tl, const sts_steps *s, const sts_devview *dv,
               sts_critpath **out);

/* Step k's path lines, indented under the step's rows. */
void cp_print_step(const sts_timeline *tl, const sts_critpath *cp, size_t k);

/* The path's totals over the steps, its warnings and each prediction. */
void cp_print_summary(const sts_critpath *cp);

#endif
