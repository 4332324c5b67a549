/* Shared by analyze and steps: choosing lanes by pattern, reading a time window, and
 * saying "did you mean" when a name or lane pattern finds nothing. */
#ifndef STS_PROGRAMS_TRACE_SCOPE_H
#define STS_PROGRAMS_TRACE_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope.h"
#include "stepscope/analyze.h"

/* The lanes `pattern` names (see sts_lanes_matching()). When none does, prints the
 * error with lanes whose names look like a typo of it and returns CLI_BAD_INPUT; an
 * invalid regex is CLI_USAGE. On CLI_OK, *out is malloc'ed (caller frees). */
int ts_lanes(const char *cmd, const sts_timeline *tl, const char *pattern, uint32_t **out, size_t *n);

/* Parses a duration: a number with an optional unit (ns, us, ms, s; none = ms).
 * Returns 0, or -1 when it is not one. */
int ts_parse_duration(const char *s, size_t len, int64_t *ns);

/* Parses "START:END" (either side may be empty: the trace's start or end), each a
 * duration since the trace's first timestamp. Returns 0 with the absolute window,
 * 1 when `text` has no ':' (a step number, for the caller), or prints the error and
 * returns -1. */
int ts_parse_window(const char *cmd, const char *text, const sts_timeline *tl, int64_t *start, int64_t *end);

/* Prints "did you mean 'x', 'y'?" (to stderr) for slice names close to `word`. */
void ts_suggest_names(const sts_timeline *tl, const char *word);

#endif
