/* write: JSON value formatting onto an sts_wfile, for the Chrome trace writer. Fast
 * paths for the values a trace holds millions of: integers, microsecond times and
 * escaped strings. */
#ifndef STS_WRITE_JSONOUT_H
#define STS_WRITE_JSONOUT_H

#include <stddef.h>
#include <stdint.h>

#include "write/wfile.h"

/* A JSON string literal (with quotes); control characters escaped, invalid UTF-8
 * bytes replaced by U+FFFD so the output is always valid JSON. */
void sts_jo_string(sts_wfile *f, const char *s, size_t n);
void sts_jo_cstring(sts_wfile *f, const char *s);
void sts_jo_i64(sts_wfile *f, int64_t v);
/* Shortest text that reads back as the same double; null for NaN and infinities. */
void sts_jo_double(sts_wfile *f, double v);
/* Nanoseconds as microseconds, exactly: "-12.345" for -12345. */
void sts_jo_us(sts_wfile *f, int64_t ns);

#endif
