#include <stdio.h>

#include "demo.h"

/* Placeholder until this lesson's demo lands. */
int demo_retrace(const demo_ctx *ctx)
{
    (void)ctx;
    printf("demo retrace: not built yet\n");
    return 0;
}
