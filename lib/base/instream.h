/* base: read a file in chunks, inflating gzip transparently (detected by its magic
 * bytes, not its name). A multi-GB .json.gz is never inflated into memory whole.
 *
 * A stream is opened once and can be peeked at: the first bytes (after inflating) can
 * be looked at to decide what the input is, then read again by the reader that takes
 * it. So pipes, FIFOs and process substitution, which can be read only once, work as
 * well as files. */
#ifndef STS_BASE_INSTREAM_H
#define STS_BASE_INSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stepscope/status.h"

typedef struct sts_instream sts_instream;

/* The most sts_instream_peek() looks ahead. */
#define STS_INSTREAM_MAX_PEEK (1u << 20)

/* Opens `path` ("-" is standard input). On failure returns NULL and fills err. */
sts_instream *sts_instream_open(const char *path, sts_error *err);

/* Reads from `f`, already open, from where it stands; `name` stands for it in messages.
 * The stream does not close `f`. On failure (no memory) returns NULL and fills err. */
sts_instream *sts_instream_open_file(FILE *f, const char *name, sts_error *err);

/* Reads from `len` bytes at `data` (gzip detected the same way); `name` stands for the
 * input in messages. The bytes are not copied: they must outlive the stream. On failure
 * (no memory) returns NULL and fills err. */
sts_instream *sts_instream_open_mem(const void *data, size_t len, const char *name, sts_error *err);

/* The same, but the bytes are the data: no gzip detection (for decoders given bytes
 * that are already uncompressed, such as the fuzz targets). */
sts_instream *sts_instream_open_mem_plain(const void *data, size_t len, const char *name, sts_error *err);

/* Reads up to `cap` uncompressed bytes into buf. Returns the count (possibly fewer than
 * asked while data remains), 0 at a clean end, or -1 on error (err filled: a truncated
 * or corrupt gzip stream, a read error). Peeked bytes come first; the bytes inflated
 * before a gzip error are delivered, and the error by the next call. */
long sts_instream_read(sts_instream *in, void *buf, size_t cap, sts_error *err);

/* Looks at the next `n` uncompressed bytes (at most STS_INSTREAM_MAX_PEEK) without
 * consuming them: *p points at them until the next call on the stream. Returns how many
 * there are (fewer than n only when the input ends first), or -1 on error with nothing
 * to show (err filled). An error after some bytes (a gzip stream cut short) is kept and
 * returned by the sts_instream_read() that reaches it. */
long sts_instream_peek(sts_instream *in, size_t n, const unsigned char **p, sts_error *err);

/* 1 when the input is gzip-compressed. */
int sts_instream_is_gzip(const sts_instream *in);
/* Uncompressed bytes delivered by sts_instream_read() so far (peeked bytes not counted). */
uint64_t sts_instream_offset(const sts_instream *in);
/* Compressed (on-disk) bytes consumed so far. */
uint64_t sts_instream_raw_offset(const sts_instream *in);
/* Size of the input on disk, or 0 when unknown (a pipe). */
uint64_t sts_instream_raw_size(const sts_instream *in);
/* The path as given ("-" for standard input). */
const char *sts_instream_path(const sts_instream *in);
/* The name for messages: the path, "<stdin>" for "-". */
const char *sts_instream_name(const sts_instream *in);

/* Closes (unless opened with sts_instream_open_file) and frees; NULL is a no-op. */
void sts_instream_free(sts_instream *in);

/* Reads a whole (possibly gzip) file into memory; for small inputs such as .pb files
 * and logs. *out is malloc'd and NUL-terminated; the caller frees it. */
sts_status sts_read_file(const char *path, char **out, size_t *len, sts_error *err);

#endif
