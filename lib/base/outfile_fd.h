/* base: the library's side of stepscope/outfile.h. The public calls live in
 * outfile.c; this adds the async-signal-safe finish step the recorder's signal dump
 * uses, which cannot allocate or use stdio. */
#ifndef STS_BASE_OUTFILE_H
#define STS_BASE_OUTFILE_H

#include "stepscope/outfile.h"

/* Finishes a temporary file written through `fd`: fsync, close, rename `tmp` over
 * `path`, fsync the directory. Only async-signal-safe calls (fsync, close, rename,
 * open, unlink), no allocation. On failure `tmp` is removed, *step (when not NULL)
 * names the failed step ("fsync", "close" or "rename") and the errno value is
 * returned; 0 on success. */
int sts_outfile_finish_fd(int fd, const char *tmp, const char *path, const char **step);

#endif
