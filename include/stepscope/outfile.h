/* stepscope/outfile.h: an output file that appears whole or not at all.
 *
 * Every file stepscope writes goes through this: the bytes go to a temporary file in
 * the destination's directory (".NAME.tmp.XXXXXX", so the rename stays on one file
 * system), which commit flushes, fsyncs and renames over the destination, then fsyncs
 * the directory. When anything fails (a full disk, an I/O error, a failed rename) the
 * temporary file is removed and the destination is left exactly as it was: an older
 * file stays whole, a missing one stays missing.
 *
 *   sts_outfile *f = NULL;
 *   if (sts_outfile_open("report.json", &f, &err) != STS_OK) return fail(&err);
 *   fprintf(sts_outfile_stream(f), "{\"ok\": true}\n");
 *   if (sts_outfile_commit(f, &err) != STS_OK) return fail(&err);  // frees f either way
 *
 * A new file gets mode 0666 minus the process's umask; a replaced file keeps its mode.
 * A destination that is a symbolic link is followed as the shell's `>` follows it: the
 * file it points to is replaced, a dangling link's target is created (the link stays),
 * and a loop is refused ("PATH: cannot open for writing: a symbolic link loop: ...").
 * A destination that exists and is not a regular file (/dev/null, a FIFO, a terminal)
 * cannot be replaced by a rename: it is written in place, without the guarantee.
 *
 * SIGINT, SIGTERM and SIGHUP, where they would end the process (their default
 * disposition), remove the temporary files being written or committed before it ends
 * (up to 16 at once): a handler is installed while one is open, and the default is
 * back once none is. A program that handles them itself keeps its handler and decides
 * (the recorder's signal dump removes them as well). */
#ifndef STEPSCOPE_OUTFILE_H
#define STEPSCOPE_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "stepscope/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sts_outfile sts_outfile;

/* Starts writing `path`: creates the temporary file beside it. On success *out is the
 * handle (finish it with sts_outfile_commit() or sts_outfile_free()); on failure *out
 * is NULL and err says "PATH: cannot open for writing: ..." with the reason. */
sts_status sts_outfile_open(const char *path, sts_outfile **out, sts_error *err);

/* Writes `n` bytes (unbuffered; the stream is flushed first). Returns 0, or -1 once a
 * write has failed: the failure is sticky, later writes do nothing, and commit
 * reports it. */
int sts_outfile_write(sts_outfile *f, const void *p, size_t n);

/* A stdio stream onto the temporary file, for writers that take a FILE *. Owned by
 * `f`: do not fclose it. Its write errors are remembered for commit, so a writer may
 * ignore fprintf's result. NULL only when memory is exhausted (commit then fails). */
FILE *sts_outfile_stream(sts_outfile *f);

/* Finishes the file: flushes, fsyncs, renames it over the destination and fsyncs the
 * directory. Always frees `f`. On failure the temporary file is removed, the
 * destination is untouched, and err says which step failed and why:
 * "PATH: write failed: No space left on device; PATH was left as it was". */
sts_status sts_outfile_commit(sts_outfile *f, sts_error *err);

/* Abandons the file: removes the temporary file and frees `f`; the destination is
 * untouched. NULL is a no-op. */
void sts_outfile_free(sts_outfile *f);

/* Abandons the file after the code writing it failed, as sts_outfile_free(), and
 * says why when the file itself was the cause: if a write to it had failed, err gets
 * the message commit would give ("PATH: write failed: No space left on device; ...")
 * and that status is returned; otherwise STS_OK, err untouched (the writer's own
 * error stands). */
sts_status sts_outfile_abandon(sts_outfile *f, sts_error *err);

/* Writes `n` bytes as the whole of `path`, atomically as above. */
sts_status sts_outfile_write_all(const char *path, const void *data, size_t n, sts_error *err);

/* For a stream that is not an sts_outfile (standard output): flushes `f` and says
 * whether any write to it failed. Returns 0, or the errno of the failure (ENOSPC for a
 * full disk). stdio keeps only a flag once a write failed, not its errno, but keeps the
 * bytes it could not write, so the flush here fails again and gives the reason; EIO
 * when none can be told. Call it once the stream's last byte was written. */
int sts_stream_failure(FILE *f);

/* "standard output" for stdout, "standard error" for stderr, else "the output stream":
 * how a writer handed a FILE * names it in its messages. Returns a static string. */
const char *sts_stream_name(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
