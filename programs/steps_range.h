/* steps --steps RANGE and --summary: which steps, and one line for each. */
#ifndef STS_PROGRAMS_STEPS_RANGE_H
#define STS_PROGRAMS_STEPS_RANGE_H

#include <stdint.h>

#include "stepscope.h"

/* Parses N, FIRST:LAST or FIRST..LAST (step numbers, both included; either side of a range
 * may be empty: no bound). Returns 0, or -1 when `text` is none of these. */
int sr_parse(const char *text, int64_t *first, int64_t *last);

/* One line per step: number, start, duration, children, unattributed, host syncs and their
 * wait ("unknown" when they could not be found), and the step's longest child. */
void sr_print_summary_rows(const sts_timeline *tl, const sts_steps *s, const sts_host_syncs *h);

#endif
