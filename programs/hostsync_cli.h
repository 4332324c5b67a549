/* Host syncs found in a trace, as steps and analyze print them. */
#ifndef STS_PROGRAMS_HOSTSYNC_CLI_H
#define STS_PROGRAMS_HOSTSYNC_CLI_H

#include "stepscope.h"

/* Prints step `step`'s host syncs as one indented line ("host syncs: 3, 1.2 ms: _value x3
 * in $train.py:78 log_loss"), nothing when it has none. */
void hs_print_step(const sts_timeline *tl, const sts_host_syncs *h, uint32_t step);

/* Prints analyze's line for the scope's host syncs (the whole trace, or its window and
 * lanes): "host syncs  30, the host waited 556 ms: __float__ x30 ... in $train.py:78
 * log_loss", or "none found". Returns CLI_OK, or the status of a reported error. */
int hs_print_scope(const char *command, const sts_timeline *tl, const sts_scope *scope);

/* Records in `l` every host sync of the trace at `path` (the whole trace, every lane),
 * one ledger sync each: labelled "NAME at T" (T after the trace's first timestamp),
 * scoped by the enclosing slice's name, its kind the rule's, its wait the slice's
 * duration; and says the trace was read (sts_ledger_set_sync_source), so none found is
 * said as such. Returns CLI_OK, or the status of a reported error. */
int hs_ledger_from_trace(const char *command, sts_ledger *l, const char *path);

/* Prints the total line: syncs, steps holding them, the host's wait, the top places. */
void hs_print_total(const sts_timeline *tl, const sts_host_syncs *h, size_t nsteps);

#endif
