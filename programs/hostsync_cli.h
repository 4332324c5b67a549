/* Host syncs found in a trace, as steps and analyze print them. */
#ifndef STS_PROGRAMS_HOSTSYNC_CLI_H
#define STS_PROGRAMS_HOSTSYNC_CLI_H

#include "stepscope.h"

/* Prints step `step`'s host syncs as one indented line ("host syncs: 3, 1.2 ms: _value x3
 * in $train.py:78 log_loss"), nothing when it has none. */
void hs_print_step(const sts_timeline *tl, const sts_host_syncs *h, uint32_t step);

/* Prints the total line: syncs, steps holding them, the host's wait, the top places. */
void hs_print_total(const sts_timeline *tl, const sts_host_syncs *h, size_t nsteps);

#endif
