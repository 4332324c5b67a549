/* Shared by the trace-reading subcommands (analyze, steps, slices): opening a trace with
 * progress and warnings on stderr, lane labels and duration formatting. */
#ifndef STS_PROGRAMS_TRACE_CLI_H
#define STS_PROGRAMS_TRACE_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "stepscope.h"
#include "stepscope/analyze.h"

/* Opens `path` (a file or profile directory; `run` picks a run, NULL = latest). Shows
 * progress on stderr when it is a terminal, prints the reader's warnings (the first 10
 * and a count of the rest) as "stepscope CMD: warning: ...". Returns CLI_OK with *out
 * set, or prints the error and returns CLI_BAD_INPUT. */
int tc_open(const char *cmd, const char *path, const char *run, sts_timeline **out);

/* The lane's pid and tid as written in the trace, and its process and thread names
 * ("" when absent). */
const char *tc_pid(const sts_timeline *tl, uint32_t lane);
const char *tc_tid(const sts_timeline *tl, uint32_t lane);
const char *tc_process_name(const sts_timeline *tl, uint32_t lane);
const char *tc_thread_name(const sts_timeline *tl, uint32_t lane);

/* Prints s padded (or cut, ending in "...") to exactly `width` columns, counting
 * UTF-8 characters. left: pad on the right. */
void tc_cell(FILE *f, const char *s, int width, int left);

/* Display width of s in characters (UTF-8 aware), capped at `cap`. */
int tc_width(const char *s, int cap);

#endif
