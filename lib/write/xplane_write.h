/* write: the XSpace encoder behind sts_write_xplane(), with an in-memory variant for
 * tests and the fuzz target. The layout is described in stepscope/write.h. */
#ifndef STS_WRITE_XPLANE_WRITE_H
#define STS_WRITE_XPLANE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "base/pb.h"
#include "stepscope/write.h"

/* Encodes `tl` as an XSpace, sending the bytes to `sink`. */
sts_status sts_xplane_encode(const sts_timeline *tl, const sts_write_options *opts, sts_pb_sink_fn sink, void *user,
                             sts_error *err);

/* Encodes into memory: *out (malloc'd, the caller frees it) holds *len bytes. */
sts_status sts_xplane_encode_mem(const sts_timeline *tl, const sts_write_options *opts, uint8_t **out, size_t *len,
                                 sts_error *err);

/* opts->host, else gethostname(), else "localhost"; written into buf. */
const char *sts_write_host(const sts_write_options *opts, char *buf, size_t cap);

#endif
