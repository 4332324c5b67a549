#include <stdio.h>

#include "demo.h"

/* Placeholder until this lesson's demo lands. */
int demo_trace(const demo_ctx *ctx)
{
    (void)ctx;
    printf("demo trace: not built yet\n");
    return 0;
}
