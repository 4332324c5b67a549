/* programs: `--memory` of steps and analyze: device memory over time (stepscope/memory.h),
 * as text or as the library's memory document. */
#ifndef STS_PROGRAMS_MEMORY_CLI_H
#define STS_PROGRAMS_MEMORY_CLI_H

#include "stepscope.h"

/* Finds the memory of `tl` (read with STS_ARGS_WITH_MEMORY) per step of `s` (NULL: no
 * steps) and prints it: the memory document with json, else text. Warnings go to stderr
 * as "stepscope CMD: warning: ...". A trace without memory events says so on stderr and
 * returns CLI_BAD_INPUT (1); else CLI_OK. */
int mc_print(const char *cmd, const sts_timeline *tl, const sts_steps *s, int json);

#endif
