/* write: an output file that appears whole or not at all, with buffering and gzip.
 *
 * A buffered (optionally gzip-compressing) front of base's outfile
 * (stepscope/outfile.h), which writes to a temporary file beside the destination and
 * renames it into place at commit; abort (or any failure) removes the temporary file
 * and leaves an existing destination untouched. */
#ifndef STS_WRITE_WFILE_H
#define STS_WRITE_WFILE_H

#include <stddef.h>

#include "stepscope/status.h"

typedef struct sts_wfile sts_wfile;

/* Opens a temporary file beside `path`. gzip: compress with zlib at `level` (1-9;
 * 0 means zlib's default). Returns NULL with err filled on failure. */
sts_wfile *sts_wfile_open(const char *path, int gzip, int level, sts_error *err);

/* Buffers `n` bytes. Returns 0, or -1 after a write error (sticky: later writes do
 * nothing and commit reports it). */
int sts_wfile_write(sts_wfile *f, const void *p, size_t n);

/* Same, for a NUL-terminated string. */
int sts_wfile_puts(sts_wfile *f, const char *s);

/* Finishes the file and renames it into place, then frees `f`. On failure the
 * temporary file is removed and err names the path and the system error. */
sts_status sts_wfile_commit(sts_wfile *f, sts_error *err);

/* Removes the temporary file and frees `f`; NULL is a no-op. */
void sts_wfile_abort(sts_wfile *f);

/* 1 when `path` ends in ".gz". */
int sts_path_is_gz(const char *path);

#endif
