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

/* Prints one device as `analyze --memory` does: its peak and when, start and end,
 * allocations and frees, what was live at the peak (lives[first_live..]), a leak
 * suspicion. `lives` holds what its first_live and first_kept index. */
void mc_print_device(const sts_memory_device *d, const sts_memory_live *lives, size_t nlives);

#endif
