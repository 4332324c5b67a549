/* read: the readers. Each takes a stream (base/instream: a file, a pipe or memory,
 * gzip inflated) and fills a raw timeline (see model/timeline_builder.h for the raw
 * conventions); the opener (read/open.c) picks the reader by content and finalizes.
 * Readers never depend on the device layer. */
#ifndef STS_READ_READERS_H
#define STS_READ_READERS_H

#include "base/instream.h"
#include "model/timeline_builder.h"

/* Chrome trace-event JSON: a top-level array, or an object whose "traceEvents" holds
 * the events (other keys skipped). Streams: memory use does not grow with file size
 * beyond the events kept. A truncated file imports what is complete and warns
 * (info.truncated). Errors name the file, byte offset and event index. */
sts_status sts_read_chrome_json(sts_instream *in, sts_timeline *tl, const sts_open_options *opt, sts_error *err);

/* An XSpace protobuf (.xplane.pb, optionally gzip-compressed). Planes become
 * processes, lines become lanes, stats become args (see read/xplane.h). Streams:
 * memory holds the timeline (and, where the input cannot be read twice, as gzip and
 * pipes cannot, one plane's events), and input that is not an XSpace fails at its
 * first bad field. Errors name the input, the byte offset and the field. */
sts_status sts_read_xplane(sts_instream *in, sts_timeline *tl, const sts_open_options *opt, sts_error *err);

#endif
