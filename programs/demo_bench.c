#include <stdio.h>

#include "demo.h"

/* Placeholder until this lesson's demo lands. */
int demo_bench(const demo_ctx *ctx)
{
    (void)ctx;
    printf("demo bench: not built yet\n");
    return 0;
}
