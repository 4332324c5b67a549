/* read: what an input is, from its first bytes (after gzip is inflated). The trace
 * opener peeks at them on the stream it then hands to the reader, so the input is
 * opened and read once. */
#ifndef STS_READ_SNIFF_H
#define STS_READ_SNIFF_H

#include <stddef.h>
#include <stdint.h>

typedef enum sts_trace_format {
    STS_FORMAT_NONE = 0,    /* not a trace: see sts_sniff.what */
    STS_FORMAT_CHROME_JSON, /* '[' or '{' first (after a UTF-8 byte-order mark and whitespace) */
    STS_FORMAT_XSPACE       /* binary that starts like a protobuf message: the XSpace reader judges */
} sts_trace_format;

/* How many bytes the opener looks at. */
#define STS_SNIFF_BYTES 4096

typedef struct sts_sniff {
    sts_trace_format format;
    /* For STS_FORMAT_NONE: what the bytes look like, as a noun phrase ("empty",
     * "UTF-16 text (little-endian, with a byte-order mark)", "an ELF executable or
     * library", "plain text (\"first line\")"), and a hint for the user or "". */
    char what[160];
    const char *hint;
    int empty; /* no bytes, or only whitespace */
} sts_sniff;

/* Decides from the first `n` bytes at p; `ended`: the input holds no more than these. */
void sts_sniff_trace(const uint8_t *p, size_t n, int ended, sts_sniff *out);

#endif
