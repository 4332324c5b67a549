/* read: the XSpace (.xplane.pb) reader's in-memory entry point, for the fuzz target
 * and tests; sts_read_xplane() (read/readers.h) reads a stream, and this reads the
 * bytes given through one.
 *
 * Mapping (see docs/xplane.md):
 *   - a plane with at least one line becomes a process named after the plane
 *     ("/host:CPU", "/device:GPU:0"); its pid follows XProf's trace viewer: 701 for
 *     the host, ordinal + 1 for "/device:<kind>:<N>", 500 + plane index for other
 *     planes (a pid already taken moves to 1000 + plane index, or the next free one).
 *     Planes without lines ("/host:metadata", "Task Environment") are skipped;
 *   - a line becomes a lane (tid = line id; lines sharing an id share the lane), named
 *     by its display_name, else its name; lanes of "/device:" planes are
 *     STS_LANE_DEVICE;
 *   - an event becomes a slice named by its metadata's display_name, else its name
 *     (XProf's trace viewer shows display_name when set; with STS_ARGS_ALL the full
 *     name is kept as arg "long_name"). Start and end are line.timestamp_ns plus
 *     offset_ps (and + duration_ps) converted to ns, each rounded to the nearest ns
 *     with halves up, so an event inside its parent in ps stays inside in ns;
 *     dur = end - start. Aggregated events (num_occurrences, no offset) are skipped
 *     and counted; a negative duration is rejected with a warning;
 *   - stats become args (per the args mode): int64/uint64 as ints (a uint64 above
 *     INT64_MAX as its decimal text), double, str and ref_value (the name of the
 *     referenced stat metadata) as strings; bytes values are not kept. Stats of the
 *     event's metadata follow the event's own, unless the event has the same key.
 *   - XSpace errors and warnings become timeline warnings.
 * Resolution is 1 ns. Malformed input fails with the byte offset, the field (named
 * from the schema) and what was expected. */
#ifndef STS_READ_XPLANE_H
#define STS_READ_XPLANE_H

#include <stddef.h>

#include "model/timeline_builder.h"

/* Decodes `len` bytes of an (uncompressed) XSpace into the raw timeline `tl`. `name`
 * stands for the input in messages. `opt` may be NULL (args: the timeline's mode). */
sts_status sts_read_xplane_mem(const void *buf, size_t len, const char *name, sts_timeline *tl,
                               const sts_open_options *opt, sts_error *err);

#endif
