/* model: turn a raw timeline (model/timeline_impl.h) into the nested, ordered form
 * stepscope/timeline.h promises. Readers and the recorder fill the raw form; the
 * opener (and anything else that builds a timeline) calls this once. */
#ifndef STS_MODEL_FINALIZE_H
#define STS_MODEL_FINALIZE_H

#include "model/timeline_impl.h"

/* Matches B/E pairs per lane in (ts, sequence) order, gives unclosed B slices a
 * duration up to their lane's last timestamp, nests slices per lane (ts ascending, dur
 * descending, file order; half-open; overruns up to the resolution clamped, bigger
 * ones recorded as overlaps), reorders slices into (lane, ts, depth) order and fills
 * the lanes' slice ranges and info (resolution, span, counts). Frees the E events.
 * A second call does nothing. Fails only for lack of memory or more than 2^31 events
 * of one kind (STS_ERR_LIMIT); the timeline is then unusable. */
sts_status sts_tl_finalize(sts_timeline *tl, sts_error *err);

/* Tests only: non-zero permutes slices into their final order by following cycles,
 * as when memory for the faster tracked swaps is lacking. */
extern int sts_finalize_test_cycles;

#endif
