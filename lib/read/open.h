/* read: the trace opener's stream entry, for code in lib/ that has a stream already
 * (report opens an input once, peeks to tell a trace from bench or ledger JSON, then
 * hands the same stream here). sts_timeline_open() and its FILE and memory variants
 * (stepscope/timeline.h) are built on it. */
#ifndef STS_READ_OPEN_H
#define STS_READ_OPEN_H

#include "base/instream.h"
#include "stepscope/timeline.h"

/* Tells the format from the stream's first bytes (peeked, not consumed), reads it with
 * that reader and finalizes. `in` stays open (the caller frees it). Errors as
 * sts_timeline_open()'s. opt->run is ignored. */
sts_status sts_timeline_read_stream(sts_instream *in, const sts_open_options *opt, sts_timeline **out, sts_error *err);

#endif
