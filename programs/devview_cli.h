/* The device view's options and text, shared by `steps --device` and `analyze --device`
 * (the computation and the JSON are the library's: stepscope/devview.h). */
#ifndef STS_PROGRAMS_DEVVIEW_CLI_H
#define STS_PROGRAMS_DEVVIEW_CLI_H

#include "stepscope.h"

typedef struct dc_opts {
    int device;               /* --device */
    const char *categories;   /* --categories FILE */
    int explain;              /* --explain */
    sts_devview_rules *rules; /* loaded by dc_prepare(); NULL: the built-in table */
} dc_opts;

/* clang-format off */
#define DC_OPTS(o) \
    { "device", CLI_FLAG, &(o).device, NULL, "the device view: per device, busy time by category (compute, communication, memcpy, memset, other; unions), compute/communication overlap, idle time by cause (host_wait, kernel_wait, other), launch delays and queue length (docs/device.md)" }, \
    { "categories", CLI_STRING, &(o).categories, "FILE", "with --device: the rule table deciding each device op's category, in place of the built-in one (docs/device.md; its arg:KEY fields make the read keep those args)" }, \
    { "explain", CLI_FLAG, &(o).explain, NULL, "with --device: list the category rules with how many ops each decided" }
/* clang-format on */

/* Checks the options and loads --categories (before the trace is read, so a bad file
 * fails at once). Where the rules read args that *argmode (an --args value; NULL: the
 * command's default, analysis) drops: with no --args, *argmode becomes "known" or
 * "all", whichever keeps them; with one, a usage error naming the rule. Returns CLI_OK
 * or prints the error and returns CLI_USAGE / CLI_BAD_INPUT. */
int dc_prepare(const char *cmd, dc_opts *o, const char **argmode);

/* Frees what dc_prepare() loaded. */
void dc_release(dc_opts *o);

/* Computes the view (steps NULL: each device's span), printing its warnings on stderr
 * as "stepscope CMD: warning: ...". Returns CLI_OK with *out set, or prints the error and
 * returns CLI_BAD_INPUT. */
int dc_compute(const char *cmd, const dc_opts *o, const sts_timeline *tl, const sts_steps *steps, sts_devview **out);

/* Step k's device lines, indented under the step's rows. */
void dc_print_step(const sts_timeline *tl, const sts_devview *v, size_t k);

/* The device section after the steps (or alone, for analyze): each device's totals over
 * the windows, the launches' delays over the whole trace, how the launches were linked,
 * and with `explain` the rules and their hits. */
void dc_print_summary(const sts_timeline *tl, const sts_devview *v, int explain);

#endif
