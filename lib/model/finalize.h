/* model: turn a raw timeline (model/timeline_builder.h) into the nested, ordered form
 * stepscope/timeline.h promises. Readers and the recorder fill the raw form; the
 * opener (and anything else that builds a timeline) calls this once. */
#ifndef STS_MODEL_FINALIZE_H
#define STS_MODEL_FINALIZE_H

#include "model/timeline_builder.h"

/* Builds Perfetto's slice table from the raw events (see docs/ARCHITECTURE.md, "The
 * interval model"): instants and async events become slices on their tracks; every
 * lane's events are replayed in the order Perfetto's importer sees them through its
 * slice tracker (E matching by name and category, misplaced ends, complete slices that
 * overlap spilled to overflow tracks), with stepscope's rounding tolerance (an overrun
 * of at most the resolution is clamped). Then
 * slices are reordered into (lane, ts, creation) order, tracks and lanes get their
 * ranges, and info its counts, resolution and span. Frees the E events. A second call
 * does nothing. Fails for lack of memory, for more than 2^31 events of one kind
 * (STS_ERR_LIMIT), or for times whose span does not fit in int64 nanoseconds
 * (STS_ERR_RANGE, naming the event); the timeline is then unusable. */
sts_status sts_tl_finalize(sts_timeline *tl, sts_error *err);

#endif
