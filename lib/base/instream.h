/* base: read a file in chunks, inflating gzip transparently (detected by its magic
 * bytes, not its name). A multi-GB .json.gz is never inflated into memory whole. */
#ifndef STS_BASE_INSTREAM_H
#define STS_BASE_INSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stepscope/status.h"

typedef struct sts_instream sts_instream;

/* Opens `path` ("-" is standard input). On failure returns NULL and fills err. */
sts_instream *sts_instream_open(const char *path, sts_error *err);

/* Reads from `len` bytes at `data` (gzip detected the same way); `name` stands for the
 * input in messages. The bytes are not copied: they must outlive the stream. On failure
 * (no memory) returns NULL and fills err. */
sts_instream *sts_instream_open_mem(const void *data, size_t len, const char *name, sts_error *err);

/* Reads up to `cap` uncompressed bytes into buf. Returns the count, 0 at a clean end,
 * or -1 on error (err filled: a truncated or corrupt gzip stream, a read error). */
long sts_instream_read(sts_instream *in, void *buf, size_t cap, sts_error *err);

/* Goes forward to uncompressed offset `off` (at or past the current one): a seek in a
 * plain file, a skip otherwise. Returns 0, or -1 with err filled. */
int sts_instream_skip_to(sts_instream *in, uint64_t off, sts_error *err);

/* The file descriptor of an uncompressed regular file, which others may pread from
 * (it does not move this stream); -1 for anything else. */
int sts_instream_plain_fd(const sts_instream *in);

/* The bytes of an uncompressed memory source (sts_instream_open_mem), or NULL. */
const char *sts_instream_plain_mem(const sts_instream *in, size_t *len);

/* 1 when the input is gzip-compressed. */
int sts_instream_is_gzip(const sts_instream *in);
/* Uncompressed bytes delivered so far. */
uint64_t sts_instream_offset(const sts_instream *in);
/* Compressed (on-disk) bytes consumed so far. */
uint64_t sts_instream_raw_offset(const sts_instream *in);
/* Size of the file on disk, or 0 when unknown (a pipe). */
uint64_t sts_instream_raw_size(const sts_instream *in);
const char *sts_instream_path(const sts_instream *in);

/* Closes and frees; NULL is a no-op. */
void sts_instream_free(sts_instream *in);

/* Reads a whole (possibly gzip) file into memory; for small inputs such as .pb files
 * and logs. *out is malloc'd and NUL-terminated; the caller frees it. */
sts_status sts_read_file(const char *path, char **out, size_t *len, sts_error *err);

#endif
