/* base: what a failed STS_ASSERT does (base/invariant.h). */
#include "base/invariant.h"

#include <stdio.h>
#include <stdlib.h>

void sts_assert_fail(const char *file, int line, const char *cond)
{
    fprintf(stderr, "stepscope: internal error: %s:%d: assertion failed: %s\n", file, line, cond);
    fflush(stderr);
    abort();
}
